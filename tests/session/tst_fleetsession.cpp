// SPDX-License-Identifier: GPL-3.0-or-later
// The console's fleet session (FleetSession) and the service over it (zhaoxid --fleet slurm)
// against real Slurm daemons: the test starts its own local cluster with scripts/slurm-local and
// always stops it. Needs root (the daemons run as root); skips otherwise.
#include "core/session/fleetsession.h"

#include "tests/fleet/slurmtestrun.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <sys/types.h>
#include <unistd.h>

using namespace Zhaoxi;
using Session::FleetSession;
using Session::SnapshotPtr;

namespace {

using namespace TestSlurm;

constexpr int kWaitMs = 60 * 1000; // Slurm's own pace (backfill every second), generously

const Session::ExternalJob *externalJob(const Session::Snapshot &s, qint64 slurmId)
{
    for (const Session::ExternalJob &j : s.externalJobs) {
        if (j.id == slurmId)
            return &j;
    }
    return nullptr;
}

bool hasEvent(const QList<Storage::Event> &events, const QByteArray &code, qint64 slurmId = 0)
{
    for (const Storage::Event &e : events) {
        if (e.code != code)
            continue;
        if (slurmId == 0)
            return true;
        const QJsonObject p = QJsonDocument::fromJson(e.params).object();
        if (p.value(QStringLiteral("slurmJob")).toInteger() == slurmId)
            return true;
    }
    return false;
}

} // namespace

class TestFleetSession : public QObject
{
    Q_OBJECT

public:
    ~TestFleetSession() override { down(); }

private:
    QTemporaryDir m_tmp;
    QString m_clusterDir;
    QString m_rest;
    QString m_tokenFile;
    QString m_slurmConf;
    bool m_started = false;
    std::unique_ptr<FleetSession> m_session;
    QList<Storage::Event> m_events; // every event the session published
    quint64 m_request = 0;

    void down()
    {
        m_session.reset();
        if (!m_started)
            return;
        m_started = false;
        const Run r = runProgram(QStringLiteral(SLURM_LOCAL),
                                 {QStringLiteral("down"), QStringLiteral("--dir"), m_clusterDir},
                                 kDownTimeoutMs);
        if (r.rc != 0)
            qWarning("slurm-local down failed (%d): %s", r.rc, qPrintable(r.err.right(2000)));
    }

    QProcessEnvironment slurmEnv() const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("SLURM_CONF"), m_slurmConf);
        return env;
    }

    Run scontrol(const QStringList &args)
    {
        return runProgram(QStringLiteral("scontrol"), args, 30000, slurmEnv());
    }

    // A token for root with this lifespan (seconds), written to `path`.
    bool writeToken(const QString &path, int lifespanS)
    {
        const Run r = scontrol({QStringLiteral("token"),
                                QStringLiteral("username=root"),
                                QStringLiteral("lifespan=%1").arg(lifespanS)});
        QFile f(path);
        return r.rc == 0 && f.open(QIODevice::WriteOnly | QIODevice::Truncate)
               && f.write(r.out.toUtf8()) > 0;
    }

    Session::FleetOptions options(const QString &tokenFile) const
    {
        Session::FleetOptions o;
        o.restUrl = QUrl(m_rest);
        o.user = QStringLiteral("root");
        o.tokenFile = tokenFile;
        o.pollIntervalMs = 300;
        o.timeoutMs = 1500;
        o.maxRetryMs = 1200;
        o.slurmConf = m_slurmConf;
        o.submitWorkdir = m_tmp.path();
        o.submitEnvironment.insert(QStringLiteral("PATH"), QStringLiteral("/usr/bin:/bin"));
        o.storePath = m_tmp.filePath(QStringLiteral("fleet-%1.db").arg(++m_sessions));
        return o;
    }
    mutable int m_sessions = 0;

    std::unique_ptr<FleetSession> open(Session::FleetOptions o, QList<Storage::Event> *events)
    {
        QString why;
        auto s = FleetSession::create(std::move(o), &why);
        if (!s)
            qWarning("FleetSession::create: %s", qPrintable(why));
        else
            connect(s.get(), &FleetSession::snapshotReady, this, [events](SnapshotPtr snap) {
                events->append(snap->events);
            });
        return s;
    }

    SnapshotPtr latest() const { return m_session->latest(); }

    // Runs `command` on the session and waits for its answer.
    Session::CommandResult command(const std::function<void(quint64)> &send)
    {
        QSignalSpy spy(m_session.get(), &FleetSession::commandFinished);
        const quint64 id = ++m_request;
        send(id);
        for (int waited = 0; waited < kWaitMs; waited += 50) {
            for (const QList<QVariant> &args : std::as_const(spy)) {
                const auto r = args.at(0).value<Session::CommandResult>();
                if (r.request == id)
                    return r;
            }
            spy.wait(50);
        }
        Session::CommandResult none;
        none.error = QStringLiteral("no answer");
        return none;
    }

    qint64 sbatch(const QStringList &args)
    {
        const Run r = runProgram(QStringLiteral("sbatch"),
                                 QStringList{QStringLiteral("--parsable"),
                                             QStringLiteral("--chdir=") + m_tmp.path(),
                                             QStringLiteral("--mem=1024")}
                                         + args,
                                 30000,
                                 slurmEnv());
        if (r.rc != 0)
            qWarning("sbatch: %s", qPrintable(r.err));
        return r.out.trimmed().section(QLatin1Char(';'), 0, 0).toLongLong();
    }

    // The pid slurm-local recorded for one of its daemons (run/pids: "NAME COMM PID START").
    pid_t daemonPid(const QString &name) const
    {
        QFile f(m_clusterDir + QStringLiteral("/run/pids"));
        if (!f.open(QIODevice::ReadOnly))
            return 0;
        for (const QByteArray &line : f.readAll().split('\n')) {
            const QList<QByteArray> w = line.simplified().split(' ');
            if (w.size() >= 3 && QString::fromLatin1(w[0]) == name)
                return pid_t(w[2].toInt());
        }
        return 0;
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (::geteuid() != 0)
            QSKIP("the fleet tests start Slurm's daemons, which needs root");
        Session::registerMetaTypes();
        QVERIFY(m_tmp.isValid());
        m_clusterDir = m_tmp.filePath(QStringLiteral("cluster"));
        m_started = true; // down cleans up whatever a failed up left
        const ClusterUp up = bringUp(QStringLiteral(SLURM_LOCAL), m_tmp.path(), m_clusterDir, {});
        m_rest = up.rest;
        m_tokenFile = up.tokenFile;
        m_slurmConf = up.slurmConf;
        QVERIFY2(up.ok(), qPrintable(up.error));
        m_session = open(options(m_tokenFile), &m_events);
        QVERIFY(m_session);
        m_session->start();
    }

    void cleanupTestCase() { down(); }

    // The four nodes as hosts, their GRES as cards, Slurm named as the scheduler.
    void theFleetIsTheAppliance()
    {
        QTRY_VERIFY_WITH_TIMEOUT(latest() && latest()->state.hosts().size() == 4, kWaitMs);
        const SnapshotPtr s = latest();
        QStringList hosts;
        for (const Sched::HostState &h : s->state.hosts())
            hosts << h.name;
        hosts.sort();
        QCOMPARE(hosts,
                 QStringList({QStringLiteral("zx-mig"),
                              QStringLiteral("zx-mps"),
                              QStringLiteral("zx-shard"),
                              QStringLiteral("zx-whole")}));
        QCOMPARE(s->state.cards().size(), 8); // 2 MIG H200 + 4 whole H200 + MPS + shard L40S
        QCOMPARE(s->cards.size(), s->state.cards().size());
        QCOMPARE(s->externalScheduler, QStringLiteral("slurm"));
        QVERIFY(!s->simulated);
        QVERIFY(!s->readOnly);
        QVERIFY(s->connected);
        QVERIFY(std::isnan(s->cards.first().utilisation)); // Slurm reports no readings
        QVERIFY(hasEvent(m_events, "fleet-read"));
    }

    // A workload from the console: Zhaoxi picks the node, Slurm runs it there; the job keeps its
    // id from the first answer on.
    static QJsonObject trainingSpec()
    {
        return QJsonObject{
                {QStringLiteral("name"), QStringLiteral("console-train")},
                {QStringLiteral("kind"), QStringLiteral("training")},
                {QStringLiteral("demand"),
                 QJsonObject{{QStringLiteral("compute"),
                              QJsonObject{{QStringLiteral("profile"), QStringLiteral("1g.18gb")}}},
                             {QStringLiteral("hostCpu"), 1},
                             {QStringLiteral("hostMemoryGiB"), 1}}},
                {QStringLiteral("time"), QJsonObject{{QStringLiteral("expectedDuration"), "5m"}}},
                {QStringLiteral("run"),
                 QJsonObject{{QStringLiteral("command"),
                              QJsonArray{QStringLiteral("/bin/sleep"), QStringLiteral("300")}}}}};
    }

    void submitRunsOnTheNodeZhaoxiPicked()
    {
        const QJsonObject spec = trainingSpec();
        const Session::CommandResult r
                = command([&](quint64 id) { m_session->submitWorkload(id, spec); });
        QVERIFY2(r.ok, qPrintable(r.error));
        QVERIFY(r.job.isValid());
        const int job = r.job.value();
        QTRY_VERIFY_WITH_TIMEOUT(latest()->state.jobs().size() > job
                                         && latest()->state.job(r.job).state
                                                    == Sched::JobState::Running,
                                 kWaitMs);
        const SnapshotPtr s = latest();
        QCOMPARE(s->state.job(r.job).spec.name, QStringLiteral("console-train"));
        const auto &assignments = s->state.job(r.job).assignments;
        QCOMPARE(assignments.size(), 1);
        const Sched::CardState &card = s->state.card(assignments.first().card);
        QCOMPARE(s->state.host(card.host).name, QStringLiteral("zx-mig"));
        const qint64 slurmId = m_session->fleet().slurmIdByJob.value(job);
        QVERIFY(slurmId > 0);
        const Session::ExternalJob *e = externalJob(*s, slurmId);
        QVERIFY(e);
        QCOMPARE(e->state, QStringLiteral("RUNNING"));
        QCOMPARE(e->nodes, QStringList{QStringLiteral("zx-mig")});
        QVERIFY(hasEvent(m_events, "slurm-job-submitted", slurmId));
        QTRY_VERIFY_WITH_TIMEOUT(hasEvent(m_events, "slurm-job-started", slurmId), kWaitMs);

        // The operator requeues it: Slurm takes it back to the queue (restarts counted).
        const Session::CommandResult rq
                = command([&](quint64 id) { m_session->requeueJob(id, job); });
        QVERIFY2(rq.ok, qPrintable(rq.error));
        QTRY_VERIFY_WITH_TIMEOUT(hasEvent(m_events, "slurm-job-requeued", slurmId), kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(externalJob(*latest(), slurmId)
                                         && externalJob(*latest(), slurmId)->restarts >= 1,
                                 kWaitMs);
        // ... and cancels it.
        const Session::CommandResult c
                = command([&](quint64 id) { m_session->cancelJob(id, job); });
        QVERIFY2(c.ok, qPrintable(c.error));
        QTRY_VERIFY_WITH_TIMEOUT(latest()->state.job(r.job).state == Sched::JobState::Cancelled,
                                 kWaitMs);
        QVERIFY(hasEvent(m_events, "slurm-job-ended", slurmId));
        // An ended job refuses what only a live one takes.
        const Session::CommandResult again
                = command([&](quint64 id) { m_session->cancelJob(id, job); });
        QVERIFY(!again.ok);
        QCOMPARE(again.problem.code, Domain::Problem::Code::JobEnded);
    }

    // A user's own sbatch job that Slurm keeps waiting (it may begin only in an hour): "Why?"
    // has Slurm's reason beside Zhaoxi's analysis; its priority, node and cancel go to Slurm.
    void aPendingSlurmJobSaysSlurmsReason()
    {
        const qint64 id = sbatch({QStringLiteral("--begin=now+3600"),
                                  QStringLiteral("--partition=training"),
                                  QStringLiteral("--gres=gpu:h200:1"),
                                  QStringLiteral("--job-name=users-own"),
                                  QStringLiteral("--wrap=sleep 60")});
        QVERIFY(id > 0);
        QTRY_VERIFY_WITH_TIMEOUT(externalJob(*latest(), id)
                                         && externalJob(*latest(), id)->reason
                                                    == QLatin1String("BeginTime"),
                                 kWaitMs);
        const SnapshotPtr s = latest();
        const int job = externalJob(*s, id)->job;
        QCOMPARE(s->state.job(Domain::JobId(job)).state, Sched::JobState::Pending);
        QVERIFY(s->queue.contains(Domain::JobId(job)));
        const QList<Sched::DecisionTrace> traces = m_session->latestTraces();
        const auto t = std::find_if(traces.cbegin(), traces.cend(), [&](const auto &tr) {
            return tr.job.value() == job;
        });
        QVERIFY(t != traces.cend());
        QVERIFY2(t->note.contains(QLatin1String("BeginTime")), qPrintable(t->note));
        // Zhaoxi's own analysis: a whole H200 is free on zx-whole.
        QVERIFY(t->result.isSuccess());
        QVERIFY(t->placement);
        QCOMPARE(s->state.host(t->placement->host).name, QStringLiteral("zx-whole"));
        QVERIFY(hasEvent(m_events, "slurm-job-seen", id));

        const Session::CommandResult p
                = command([&](quint64 rq) { m_session->setJobPriority(rq, job, 4242); });
        QVERIFY2(p.ok, qPrintable(p.error));
        QVERIFY(scontrol({QStringLiteral("show"), QStringLiteral("job"), QString::number(id)})
                        .out.contains(QLatin1String("Priority=4242")));

        // Placing a waiting Slurm job on a card names that card's node for it in Slurm.
        int wholeCard = -1;
        for (const Sched::CardState &c : s->state.cards()) {
            if (s->state.host(c.host).name == QLatin1String("zx-whole"))
                wholeCard = c.id.value();
        }
        QVERIFY(wholeCard >= 0);
        const Session::CommandResult placed
                = command([&](quint64 rq) { m_session->placeJob(rq, job, wholeCard, false); });
        QVERIFY2(placed.ok, qPrintable(placed.error));
        QVERIFY(scontrol({QStringLiteral("show"), QStringLiteral("job"), QString::number(id)})
                        .out.contains(QLatin1String("ReqNodeList=zx-whole")));

        const Session::CommandResult c
                = command([&](quint64 rq) { m_session->cancelJob(rq, job); });
        QVERIFY2(c.ok, qPrintable(c.error));
        QTRY_VERIFY_WITH_TIMEOUT(hasEvent(m_events, "slurm-job-ended", id), kWaitMs);
    }

    // What Slurm cannot do through Zhaoxi is refused with the reason, and nothing changes.
    void staticLayoutsAreRefused()
    {
        QSignalSpy previews(m_session.get(), &FleetSession::layoutPreviewReady);
        m_session->previewLayout(++m_request, 0, {});
        QCOMPARE(previews.size(), 1);
        const auto p = previews.first().at(0).value<Session::LayoutPreview>();
        QVERIFY(!p.ok);
        QCOMPARE(p.problem.code, Domain::Problem::Code::FleetStaticLayout);
        const Session::CommandResult bad = command([&](quint64 id) {
            m_session->submitWorkload(id, QJsonObject{{QStringLiteral("name"), 3}});
        });
        QVERIFY(!bad.ok);
        QVERIFY(!bad.field.isEmpty());
    }

    // The console's schedule on the fleet: previewed as the Slurm reservations it makes,
    // carried out once confirmed, and a second preview changes nothing.
    void theScheduleBecomesReservations()
    {
        const QDateTime now = QDateTime::currentDateTime();
        const QJsonObject night
                = QJsonDocument::fromJson(
                          QStringLiteral(R"({"prepareAhead": "10m", "windows": [
                    {"name": "night", "from": "%1", "to": "%2", "inferenceShare": 0.15}]})")
                                  .arg(now.addSecs(-3600).toString(QStringLiteral("HH:mm")),
                                       now.addSecs(3600).toString(QStringLiteral("HH:mm")))
                                  .toUtf8())
                          .object();
        QSignalSpy previews(m_session.get(), &FleetSession::schedulePreviewReady);
        m_session->previewSchedule(++m_request, night);
        QCOMPARE(previews.size(), 1);
        const auto p = previews.takeFirst().at(0).value<Session::SchedulePreview>();
        QVERIFY2(p.ok, qPrintable(p.error));
        QVERIFY(p.needsConfirmation());
        QStringList names;
        for (const Session::SchedulePreview::Reservation &r : p.reservations) {
            QCOMPARE(r.action, QStringLiteral("create"));
            QCOMPARE(r.partition, QStringLiteral("training"));
            names << r.name;
        }
        QVERIFY2(names.contains(QStringLiteral("zhaoxi-night")), qPrintable(names.join(',')));
        QVERIFY(names.contains(QStringLiteral("zhaoxi-night-now"))); // in force now
        const Session::CommandResult r
                = command([&](quint64 id) { m_session->setScheduleConfirmed(id, night, {}); });
        QVERIFY2(r.ok, qPrintable(r.error));
        const QString shown = scontrol({QStringLiteral("show"), QStringLiteral("res")}).out;
        QVERIFY2(shown.contains(QLatin1String("ReservationName=zhaoxi-night ")), qPrintable(shown));
        QVERIFY(shown.contains(QLatin1String("ReservationName=zhaoxi-night-now ")));
        QTRY_VERIFY_WITH_TIMEOUT(hasEvent(m_events, "fleet-windows-applied"), kWaitMs);
        // Read again, the same schedule asks for nothing.
        QTRY_VERIFY_WITH_TIMEOUT(m_session->fleet().snapshot.reservations.size() >= 2, kWaitMs);
        m_session->previewSchedule(++m_request, night);
        const auto again = previews.takeFirst().at(0).value<Session::SchedulePreview>();
        QVERIFY2(again.ok, qPrintable(again.error));
        QVERIFY(!again.needsConfirmation());
        // A schedule the policy's reader refuses names the field, and nothing is applied.
        QJsonObject bad = night;
        bad.insert(QStringLiteral("windows"),
                   QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("x")},
                                          {QStringLiteral("from"), QStringLiteral("22:00")},
                                          {QStringLiteral("to"), QStringLiteral("07:00")},
                                          {QStringLiteral("inferenceShare"), 1.5}}});
        const Session::CommandResult refused
                = command([&](quint64 id) { m_session->setSchedule(id, bad); });
        QVERIFY(!refused.ok);
        QCOMPARE(refused.field, QStringLiteral("windows[0].inferenceShare"));
        // The reservations go, so that the other cases' jobs run anywhere.
        scontrol({QStringLiteral("delete"), QStringLiteral("ReservationName=zhaoxi-night")});
        scontrol({QStringLiteral("delete"), QStringLiteral("ReservationName=zhaoxi-night-now")});
    }

    // slurmrestd stops answering mid-run: the picture stays, marked read-only with the reason,
    // changes are refused, and the session recovers by itself when Slurm answers again.
    void unreachableThenBack()
    {
        const pid_t restd = daemonPid(QStringLiteral("slurmrestd"));
        QVERIFY2(restd > 0, "slurm-local recorded no slurmrestd");
        QCOMPARE(::kill(restd, SIGSTOP), 0);
        const auto resume = qScopeGuard([restd] { ::kill(restd, SIGCONT); });
        QTRY_VERIFY_WITH_TIMEOUT(latest()->readOnly && !latest()->connected, kWaitMs);
        const SnapshotPtr s = latest();
        QCOMPARE(s->readOnlyProblem.code, Domain::Problem::Code::ReadOnlyFleetUnreachable);
        QCOMPARE(s->readOnlyProblem.arg(0), m_rest);
        QCOMPARE(s->state.hosts().size(), 4); // the last picture
        QVERIFY(hasEvent(m_events, "fleet-unreachable"));
        QVERIFY(m_session->failuresInARow() >= 1);
        const Session::CommandResult r
                = command([&](quint64 id) { m_session->submitWorkload(id, trainingSpec()); });
        QVERIFY(!r.ok);
        QCOMPARE(r.problem.code, Domain::Problem::Code::ReadOnlyFleetUnreachable);
        // Several tries, further and further apart (the back-off), while it stays down.
        QTRY_VERIFY_WITH_TIMEOUT(m_session->failuresInARow() >= 3, kWaitMs);
        QCOMPARE(::kill(restd, SIGCONT), 0);
        QTRY_VERIFY_WITH_TIMEOUT(!latest()->readOnly && latest()->connected, kWaitMs);
        QVERIFY(hasEvent(m_events, "fleet-reachable"));
        QCOMPARE(m_session->failuresInARow(), 0);
    }

    // A token about to expire is renewed before it does, with the command given; an expired one
    // (Slurm refuses it) is renewed at once and the session reads on.
    void tokensAreRenewed()
    {
        const QString token = m_tmp.filePath(QStringLiteral("short-token"));
        QVERIFY(writeToken(token, 60));
        Session::FleetOptions o = options(token);
        o.tokenCommand = {QStringLiteral("scontrol"),
                          QStringLiteral("token"),
                          QStringLiteral("username=root"),
                          QStringLiteral("lifespan=3600")};
        o.renewBeforeMs = 120'000; // 60 s left: renew now
        QList<Storage::Event> events;
        std::unique_ptr<FleetSession> s = open(o, &events);
        QVERIFY(s);
        s->start();
        QTRY_VERIFY_WITH_TIMEOUT(hasEvent(events, "fleet-token-renewed"), kWaitMs);
        QVERIFY(s->tokenExpiresAtMs() > QDateTime::currentMSecsSinceEpoch() + 3000'000);
        QTRY_VERIFY_WITH_TIMEOUT(s->latest()->state.hosts().size() == 4, kWaitMs);
        s.reset();

        // Expired before the session starts: renewed before the first request.
        QVERIFY(writeToken(token, 1));
        QTest::qWait(2500);
        o.renewBeforeMs = 0;
        QList<Storage::Event> later;
        s = open(o, &later);
        QVERIFY(s);
        s->start();
        QTRY_VERIFY_WITH_TIMEOUT(hasEvent(later, "fleet-token-renewed"), kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(s->latest()->state.hosts().size() == 4 && !s->latest()->readOnly,
                                 kWaitMs);
        QVERIFY(!hasEvent(later, "fleet-unreachable"));
        s.reset();

        // A token whose expiry cannot be read and that Slurm refuses (HTTP 500): renewed at once
        // after the refusal, and the session reads on.
        {
            QFile f(token);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write("SLURM_JWT=not.a.token\n");
        }
        QList<Storage::Event> refused;
        s = open(o, &refused);
        s->start();
        QTRY_VERIFY_WITH_TIMEOUT(hasEvent(refused, "fleet-unreachable"), kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(hasEvent(refused, "fleet-token-renewed"), kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(s->latest()->state.hosts().size() == 4 && !s->latest()->readOnly,
                                 kWaitMs);
        QVERIFY(hasEvent(refused, "fleet-reachable"));
        s.reset();

        // Without a command an expiring token is an event, and a failing command is one too.
        QVERIFY(writeToken(token, 60));
        o.tokenCommand = {QStringLiteral("/bin/false")};
        o.renewBeforeMs = 120'000;
        QList<Storage::Event> failed;
        s = open(o, &failed);
        s->start();
        QTRY_VERIFY_WITH_TIMEOUT(hasEvent(failed, "fleet-token-renew-failed"), kWaitMs);
        s.reset();
        o.tokenCommand.clear();
        QList<Storage::Event> warned;
        s = open(o, &warned);
        s->start();
        QTRY_VERIFY_WITH_TIMEOUT(hasEvent(warned, "fleet-token-expiring"), kWaitMs);
    }

    // zhaoxid --fleet: the service over the fleet, whose clients' changes go to Slurm and into the
    // audit trail with their actor.
    void theServiceServesTheFleet()
    {
        const QString db = m_tmp.filePath(QStringLiteral("service.db"));
        const QString socket = m_tmp.filePath(QStringLiteral("zhaoxid.sock"));
        QProcess service;
        service.setProcessChannelMode(QProcess::MergedChannels);
        service.start(QStringLiteral(ZHAOXID),
                      {QStringLiteral("--fleet"),
                       QStringLiteral("slurm"),
                       QStringLiteral("--rest"),
                       m_rest,
                       QStringLiteral("--token-file"),
                       m_tokenFile,
                       QStringLiteral("--user"),
                       QStringLiteral("root"),
                       QStringLiteral("--slurm-conf"),
                       m_slurmConf,
                       QStringLiteral("--poll-ms"),
                       QStringLiteral("300"),
                       QStringLiteral("--db"),
                       db,
                       QStringLiteral("--socket"),
                       socket,
                       QStringLiteral("--group"),
                       QStringLiteral("root")});
        QVERIFY(service.waitForStarted(10000));
        const auto stop = qScopeGuard([&service] {
            service.terminate();
            if (!service.waitForFinished(15000))
                service.kill();
        });
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(socket), kWaitMs);
        const auto ctl = [&](QStringList args) {
            args << QStringLiteral("--socket") << socket;
            return runProgram(QStringLiteral(ZHAOXICTL), args, 60000);
        };
        // The fleet's cards through the service.
        Run cards;
        QTRY_VERIFY_WITH_TIMEOUT((cards = ctl({QStringLiteral("cards"), QStringLiteral("--json")}),
                                  cards.rc == 0 && cards.out.contains(QLatin1String("zx-shard"))),
                                 kWaitMs);
        const qint64 id = sbatch({QStringLiteral("--hold"),
                                  QStringLiteral("--job-name=via-service"),
                                  QStringLiteral("--wrap=sleep 60")});
        QVERIFY(id > 0);
        // Its job id in Zhaoxi: the row whose name is the Slurm job's.
        int job = -1;
        QTRY_VERIFY_WITH_TIMEOUT(
                [&] {
                    const Run jobs = ctl({QStringLiteral("jobs"), QStringLiteral("--json")});
                    const QJsonDocument d = QJsonDocument::fromJson(jobs.out.toUtf8());
                    const QJsonArray rows
                            = d.isArray() ? d.array()
                                          : d.object().value(QStringLiteral("jobs")).toArray();
                    for (const QJsonValue &v : rows) {
                        const QJsonObject o = v.toObject();
                        if (o.value(QStringLiteral("name")).toString()
                            == QLatin1String("via-service"))
                            job = o.value(QStringLiteral("job")).toInt(-1);
                    }
                    return job >= 0;
                }(),
                kWaitMs);
        const Run cancel = ctl({QStringLiteral("cancel"), QString::number(job)});
        QVERIFY2(cancel.rc == 0, qPrintable(cancel.out + cancel.err));
        QTRY_VERIFY_WITH_TIMEOUT(
                scontrol({QStringLiteral("show"), QStringLiteral("job"), QString::number(id)})
                        .out.contains(QLatin1String("JobState=CANCELLED")),
                kWaitMs);
        const Run audit = ctl({QStringLiteral("events"),
                               QStringLiteral("tail"),
                               QStringLiteral("--last"),
                               QStringLiteral("500"),
                               QStringLiteral("--json")});
        QVERIFY2(audit.rc == 0, qPrintable(audit.err));
        QVERIFY2(audit.out.contains(QLatin1String("root"))
                         && audit.out.contains(QLatin1String("cancel")),
                 qPrintable(audit.out.left(3000)));
    }
};

QTEST_GUILESS_MAIN(TestFleetSession)
#include "tst_fleetsession.moc"
