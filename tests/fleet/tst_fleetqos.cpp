// SPDX-License-Identifier: GPL-3.0-or-later
// QOS preemption with checkpoints, and an operator's job actions (zhaoxictl fleet cancel,
// requeue, priority, audited with --db), against real Slurm daemons with accounting: the test
// starts its own cluster with `scripts/slurm-local up --accounting` (QOS inference preempts QOS
// training, PreemptMode=requeue) and always stops it. Needs root (the daemons run as root);
// skips otherwise.
#include "core/catalogue/catalogue.h"
#include "core/domain/workloadspec.h"
#include "core/fleet/fleetactions.h"
#include "core/fleet/fleetstate.h"
#include "core/fleet/fleetsubmit.h"
#include "core/fleet/slurmrest.h"

#include "tests/fleet/slurmtestrun.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

using namespace Zhaoxi;

namespace {

using namespace TestSlurm;

constexpr int kCliTimeoutMs = 60 * 1000;
// Bounded waits for Slurm (never asserted as durations): a requeued job waits the credential
// lifetime (10 s in slurm-local) after KillWait (10 s) before it can start again.
constexpr int kJobWaitMs = 120 * 1000;

QString readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

// A training unit that checkpoints on SIGTERM (what Slurm sends a preempted or requeued job) or
// on its checkpoint signal: it counts steps, saves the count on the signal and exits; started
// again it resumes from the saved count. On its first run it never ends by itself; once
// restarted it does 10 more steps and completes. Every event is a line in DIR/log.
constexpr char kTrainer[] = R"(#!/bin/bash
dir=$1
restart=${SLURM_RESTART_COUNT:-0}
n=0
[ -f "$dir/ckpt" ] && n=$(cat "$dir/ckpt")
from=$n
echo "start restart=$restart from=$from job=$SLURM_JOB_ID ckptsig=$ZHAOXI_CHECKPOINT_SIGNAL" >> "$dir/log"
save() {
    echo "$n" > "$dir/ckpt.tmp" && mv "$dir/ckpt.tmp" "$dir/ckpt"
    echo "signal $1 saved=$n restart=$restart" >> "$dir/log"
    exit 0
}
trap 'save TERM' TERM
trap 'save USR1' USR1
while :; do
    n=$((n + 1))
    if [ "$restart" -ge 1 ] && [ "$n" -ge $((from + 10)) ]; then
        echo "done from=$from at=$n restart=$restart" >> "$dir/log"
        exit 0
    fi
    sleep 0.2 &
    wait $!
done
)";

} // namespace

class TestFleetQos : public QObject
{
    Q_OBJECT

public:
    ~TestFleetQos() override { down(); }

private:
    QTemporaryDir m_tmp;
    QString m_clusterDir;
    QString m_rest;
    QString m_tokenFile;
    QString m_slurmConf;
    QString m_db;
    bool m_started = false;

    void down()
    {
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

    Run zhaoxictl(const QStringList &args, const QString &workdir = QString())
    {
        return runProgram(QStringLiteral(ZHAOXICTL), args, kCliTimeoutMs, workdir, slurmEnv());
    }

    Run slurm(const QString &program, const QStringList &args)
    {
        return runProgram(program, args, 30000, m_tmp.path(), slurmEnv());
    }

    QStringList connection() const
    {
        return {QStringLiteral("--rest"),
                m_rest,
                QStringLiteral("--token-file"),
                m_tokenFile,
                QStringLiteral("--user"),
                QStringLiteral("root")};
    }

    // "zhaoxictl fleet ACTION ARGS... --rest ... --db DB [EXTRA]".
    Run fleetAction(const QStringList &args, const QStringList &extra = {})
    {
        return zhaoxictl(QStringList{QStringLiteral("fleet")} + args + connection()
                         + QStringList{QStringLiteral("--db"), m_db} + extra);
    }

    // One field of `scontrol show job ID` ("JobState", "Priority", "Restarts"); empty when the
    // job is unknown.
    QString jobField(qint64 id, const QString &field)
    {
        const Run r = slurm(QStringLiteral("scontrol"),
                            {QStringLiteral("show"), QStringLiteral("job"), QString::number(id)});
        const QRegularExpression re(QStringLiteral("(?:^|\\s)%1=(\\S*)").arg(field));
        const QRegularExpressionMatch m = re.match(r.out);
        return m.hasMatch() ? m.captured(1) : QString();
    }

    qint64 sbatch(const QStringList &args)
    {
        const Run r
                = slurm(QStringLiteral("sbatch"), QStringList{QStringLiteral("--parsable")} + args);
        return r.rc == 0 ? r.out.trimmed().section(QLatin1Char(';'), 0, 0).toLongLong() : -1;
    }

    // The operator events of the store with `code`, as `zhaoxictl events export` writes them.
    QList<QJsonObject> auditEvents(const QString &code)
    {
        const Run r = zhaoxictl({QStringLiteral("events"),
                                 QStringLiteral("export"),
                                 QStringLiteral("--db"),
                                 m_db,
                                 QStringLiteral("--format"),
                                 QStringLiteral("jsonl"),
                                 QStringLiteral("--code"),
                                 code});
        QList<QJsonObject> out;
        for (const QString &line : r.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
            out << QJsonDocument::fromJson(line.toUtf8()).object();
        return out;
    }

    // The last audit event for `code` names the actor, the token's user and the Slurm job.
    void checkAudited(const QString &code, qint64 job, bool ok)
    {
        const QList<QJsonObject> events = auditEvents(code);
        QVERIFY2(!events.isEmpty(), qPrintable(code));
        const QJsonObject e = events.last();
        QCOMPARE(e.value(QStringLiteral("source")).toString(), QStringLiteral("operator"));
        QCOMPARE(e.value(QStringLiteral("actor")).toString(), QStringLiteral("root"));
        const QJsonObject params = e.value(QStringLiteral("params")).toObject();
        QCOMPARE(params.value(QStringLiteral("slurm_job")).toInteger(), job);
        QCOMPARE(params.value(QStringLiteral("slurm_user")).toString(), QStringLiteral("root"));
        QCOMPARE(params.value(QStringLiteral("ok")).toBool(!ok), ok);
        QVERIFY(!params.value(QStringLiteral("hash")).toString().isEmpty());
    }

    QString writeSpec(const QString &name, const QJsonObject &spec)
    {
        const QString path = m_tmp.filePath(name + QStringLiteral(".json"));
        writeFile(path, QJsonDocument(spec).toJson());
        return path;
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (::geteuid() != 0)
            QSKIP("the fleet tests start Slurm's daemons, which needs root");
        QVERIFY(m_tmp.isValid());
        m_clusterDir = m_tmp.filePath(QStringLiteral("cluster"));
        m_db = m_tmp.filePath(QStringLiteral("audit.zhaoxi.sqlite"));
        m_started = true; // down cleans up whatever a failed up left
        const ClusterUp up = bringUp(QStringLiteral(SLURM_LOCAL),
                                     m_tmp.path(),
                                     m_clusterDir,
                                     {QStringLiteral("--accounting")});
        m_rest = up.rest;
        m_tokenFile = up.tokenFile;
        m_slurmConf = up.slurmConf;
        QVERIFY2(up.ok(), qPrintable(up.error));
    }

    // With slurmdbd the fleet's QOS are read too: who preempts whom, and how.
    void theQosAreRead()
    {
        const Run r = zhaoxictl(QStringList{QStringLiteral("fleet"), QStringLiteral("show")}
                                + connection() + QStringList{QStringLiteral("--json")});
        QVERIFY2(r.rc == 0, qPrintable(r.err));
        const QJsonObject fleet = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QVERIFY(!fleet.contains(QStringLiteral("qosProblem")));
        QJsonObject inference;
        for (const QJsonValue &v : fleet.value(QStringLiteral("qos")).toArray()) {
            if (v[QStringLiteral("name")].toString() == QLatin1String("inference"))
                inference = v.toObject();
        }
        QCOMPARE(inference.value(QStringLiteral("preempts")).toArray(),
                 QJsonArray{QStringLiteral("training")});
        QCOMPARE(inference.value(QStringLiteral("preemptMode")).toArray(),
                 QJsonArray{QStringLiteral("REQUEUE")});
    }

    void cleanupTestCase() { down(); }

    // A checkpointing training unit submitted with `zhaoxictl fleet submit` (the account's default
    // QOS, training) holds every CPU of zx-whole. An inference unit planned by Zhaoxi with the
    // kind's QOS (inference) needs a CPU there, so Slurm preempts the training job: it gets
    // SIGTERM, saves its checkpoint, is requeued, starts again with SLURM_RESTART_COUNT=1 from
    // its checkpoint and completes.
    void qosPreemptionResumesFromCheckpoint()
    {
        const QString dir = m_tmp.filePath(QStringLiteral("trainer"));
        QVERIFY(QDir().mkpath(dir));
        const QString script = dir + QStringLiteral("/train.sh");
        QVERIFY(writeFile(script, kTrainer));
        const QString log = dir + QStringLiteral("/log");
        const QJsonObject victim{
                {QStringLiteral("name"), QStringLiteral("trainer")},
                {QStringLiteral("kind"), QStringLiteral("training")},
                {QStringLiteral("preemption"), QStringLiteral("checkpoint")},
                {QStringLiteral("checkpointInterval"), QStringLiteral("1m")},
                {QStringLiteral("demand"),
                 QJsonObject{{QStringLiteral("cards"), 1},
                             {QStringLiteral("compute"),
                              QJsonObject{{QStringLiteral("wholeCard"), true}}},
                             {QStringLiteral("hostCpu"), 32}}},
                {QStringLiteral("affinity"), QJsonObject{{QStringLiteral("host"), "zx-whole"}}},
                {QStringLiteral("time"), QJsonObject{{QStringLiteral("expectedDuration"), "10m"}}},
                {QStringLiteral("run"),
                 QJsonObject{{QStringLiteral("command"),
                              QJsonArray{QStringLiteral("/bin/bash"), script, dir}}}}};
        const Run submitted = zhaoxictl(QStringList{QStringLiteral("fleet"),
                                                    QStringLiteral("submit"),
                                                    writeSpec(QStringLiteral("trainer"), victim)}
                                                + connection() + QStringList{"--json"},
                                        dir);
        QVERIFY2(submitted.rc == 0, qPrintable(submitted.err));
        const QJsonObject answer = QJsonDocument::fromJson(submitted.out.toUtf8()).object();
        const qint64 victimId = answer.value(QStringLiteral("job_id")).toInteger();
        QVERIFY2(victimId > 0, qPrintable(submitted.out));
        QCOMPARE(answer.value(QStringLiteral("node")).toString(), QStringLiteral("zx-whole"));
        QTRY_VERIFY_WITH_TIMEOUT(readFile(log).contains(QLatin1String("start restart=0")),
                                 kJobWaitMs);
        QCOMPARE(jobField(victimId, QStringLiteral("QOS")), QStringLiteral("training"));
        QVERIFY2(readFile(log).contains(QLatin1String("ckptsig=SIGTERM")),
                 qPrintable(readFile(log)));

        // The preemptor, through the library with the cluster's QOS per kind.
        Fleet::SlurmRestClient client(QUrl(m_rest), QStringLiteral("root"), m_tokenFile);
        Fleet::RestStatus status;
        const std::optional<Fleet::FleetSnapshot> snapshot = client.fetchFleetBlocking(&status);
        QVERIFY2(snapshot, qPrintable(status.message));
        const Fleet::FleetState fleet = Fleet::buildFleetState(
                *snapshot, Catalogue::Catalogue::builtIn(), QDateTime::currentMSecsSinceEpoch());
        Domain::WorkloadSpec infer;
        infer.name = QStringLiteral("server");
        infer.kind = Domain::WorkloadKind::Inference;
        infer.inference = Domain::InferenceSpec{};
        infer.inference->service = QStringLiteral("server");
        infer.inference->sloP99Ms = 100;
        infer.demand.compute.kind = Domain::ComputeDemand::Kind::WholeCard;
        infer.affinity.host = QStringLiteral("zx-whole");
        infer.run = Domain::RunSpec{};
        infer.run->command = QStringList{QStringLiteral("/bin/sleep"), QStringLiteral("3")};
        Fleet::SubmitOptions options;
        options.workdir = dir;
        options.environment.insert(QStringLiteral("PATH"), QStringLiteral("/usr/bin:/bin"));
        options.qosByKind.insert(QStringLiteral("inference"), QStringLiteral("inference"));
        options.qosByKind.insert(QStringLiteral("training"), QStringLiteral("training"));
        options.qosNever = QStringLiteral("normal");
        QString why;
        const std::optional<Fleet::SubmitPlan> plan = Fleet::planSubmission(
                fleet, infer, QDateTime::currentMSecsSinceEpoch(), options, &why);
        QVERIFY2(plan, qPrintable(why));
        QCOMPARE(plan->node, QStringLiteral("zx-whole"));
        QCOMPARE(plan->qos, QStringLiteral("inference"));
        const std::optional<qint64> preemptor = client.submitBlocking(plan->request, &status);
        QVERIFY2(preemptor, qPrintable(status.message));

        // The victim got SIGTERM, saved, went back to the queue, resumed from its checkpoint.
        QTRY_VERIFY2_WITH_TIMEOUT(readFile(log).contains(QLatin1String("done from=")),
                                  qPrintable(readFile(log)),
                                  kJobWaitMs);
        const QString text = readFile(log);
        const QRegularExpressionMatch saved
                = QRegularExpression(QStringLiteral("signal TERM saved=(\\d+) restart=0"))
                          .match(text);
        QVERIFY2(saved.hasMatch(), qPrintable(text));
        QVERIFY(saved.captured(1).toInt() > 0);
        QVERIFY2(text.contains(QStringLiteral("start restart=1 from=%1 ").arg(saved.captured(1))),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("done from=%1 ").arg(saved.captured(1))),
                 qPrintable(text));
        QVERIFY2(!text.contains(QLatin1String("signal USR1")), qPrintable(text));
        QTRY_COMPARE_WITH_TIMEOUT(jobField(victimId, QStringLiteral("JobState")),
                                  QStringLiteral("COMPLETED"),
                                  kJobWaitMs);
        QCOMPARE(jobField(victimId, QStringLiteral("Restarts")), QStringLiteral("1"));
        QCOMPARE(jobField(*preemptor, QStringLiteral("QOS")), QStringLiteral("inference"));
    }

    // preemption "never" goes to the QOS nothing preempts (qosNever) with requeue off: the same
    // inference unit as above then waits instead of preempting it.
    void neverIsNotPreempted()
    {
        Fleet::SlurmRestClient client(QUrl(m_rest), QStringLiteral("root"), m_tokenFile);
        Fleet::SubmitOptions options;
        options.workdir = m_tmp.path();
        options.environment.insert(QStringLiteral("PATH"), QStringLiteral("/usr/bin:/bin"));
        options.qosByKind.insert(QStringLiteral("inference"), QStringLiteral("inference"));
        options.qosByKind.insert(QStringLiteral("training"), QStringLiteral("training"));
        options.qosNever = QStringLiteral("normal");
        const auto submit = [&](const Domain::WorkloadSpec &spec, Fleet::SubmitPlan *plan) {
            Fleet::RestStatus status;
            const std::optional<Fleet::FleetSnapshot> snapshot = client.fetchFleetBlocking(&status);
            if (!snapshot)
                return qint64(-1);
            const Fleet::FleetState fleet
                    = Fleet::buildFleetState(*snapshot,
                                             Catalogue::Catalogue::builtIn(),
                                             QDateTime::currentMSecsSinceEpoch());
            QString why;
            const std::optional<Fleet::SubmitPlan> p = Fleet::planSubmission(
                    fleet, spec, QDateTime::currentMSecsSinceEpoch(), options, &why);
            if (!p) {
                qWarning("%s", qPrintable(why));
                return qint64(-1);
            }
            *plan = *p;
            return client.submitBlocking(p->request, &status).value_or(-1);
        };
        Domain::WorkloadSpec keep;
        keep.name = QStringLiteral("keep");
        keep.kind = Domain::WorkloadKind::Training;
        keep.preemption = Domain::PreemptionTolerance::Never;
        keep.demand.compute.kind = Domain::ComputeDemand::Kind::WholeCard;
        keep.demand.hostCpuMilli = 32000;
        keep.affinity.host = QStringLiteral("zx-whole");
        keep.run = Domain::RunSpec{};
        keep.run->command = QStringList{QStringLiteral("/bin/sleep"), QStringLiteral("300")};
        Fleet::SubmitPlan keepPlan;
        const qint64 kept = submit(keep, &keepPlan);
        QVERIFY(kept > 0);
        QCOMPARE(keepPlan.qos, QStringLiteral("normal"));
        QCOMPARE(keepPlan.requeue, false);
        // slurmrestd ignores "requeue": false (the job shows Requeue=1): scontrol clears it.
        Fleet::ScontrolOptions scontrol;
        scontrol.slurmConf = m_slurmConf;
        const Fleet::JobActionResult cleared
                = Fleet::setSlurmJobRequeueableBlocking(scontrol, kept, false);
        QVERIFY2(cleared.ok, qPrintable(cleared.message));
        QTRY_COMPARE_WITH_TIMEOUT(
                jobField(kept, QStringLiteral("JobState")), QStringLiteral("RUNNING"), kJobWaitMs);
        QCOMPARE(jobField(kept, QStringLiteral("QOS")), QStringLiteral("normal"));
        QCOMPARE(jobField(kept, QStringLiteral("Requeue")), QStringLiteral("0"));

        Domain::WorkloadSpec infer;
        infer.name = QStringLiteral("server2");
        infer.kind = Domain::WorkloadKind::Inference;
        infer.inference = Domain::InferenceSpec{};
        infer.inference->service = QStringLiteral("server2");
        infer.inference->sloP99Ms = 100;
        infer.demand.compute.kind = Domain::ComputeDemand::Kind::WholeCard;
        infer.affinity.host = QStringLiteral("zx-whole");
        infer.run = Domain::RunSpec{};
        infer.run->command = QStringList{QStringLiteral("/bin/sleep"), QStringLiteral("3")};
        Fleet::SubmitPlan inferPlan;
        const qint64 waiting = submit(infer, &inferPlan);
        QVERIFY(waiting > 0);
        QCOMPARE(inferPlan.qos, QStringLiteral("inference"));
        // Once the scheduler has looked at it and found no room, it waits for resources; a
        // preemption would have been started in that same pass (measured: within 3 s).
        QTRY_COMPARE_WITH_TIMEOUT(jobField(waiting, QStringLiteral("Reason")),
                                  QStringLiteral("Resources"),
                                  kJobWaitMs);
        QTest::qWait(5000);
        QCOMPARE(jobField(kept, QStringLiteral("JobState")), QStringLiteral("RUNNING"));
        QCOMPARE(jobField(kept, QStringLiteral("Restarts")), QStringLiteral("0"));
        QCOMPARE(jobField(waiting, QStringLiteral("JobState")), QStringLiteral("PENDING"));
        // Ending the kept job lets it run.
        QVERIFY(fleetAction({QStringLiteral("cancel"), QString::number(kept)}).rc == 0);
        QTRY_COMPARE_WITH_TIMEOUT(jobField(waiting, QStringLiteral("JobState")),
                                  QStringLiteral("COMPLETED"),
                                  kJobWaitMs);
    }

    // fleet priority on a pending job: Slurm shows the new priority; audited.
    void priority()
    {
        const qint64 id = sbatch({QStringLiteral("--begin=now+1hour"),
                                  QStringLiteral("--wrap"),
                                  QStringLiteral("sleep 100")});
        QVERIFY(id > 0);
        const Run r = fleetAction(
                {QStringLiteral("priority"), QString::number(id), QStringLiteral("4242")},
                {QStringLiteral("--json")});
        QVERIFY2(r.rc == 0, qPrintable(r.err));
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o.value(QStringLiteral("priority")).toInteger(), 4242);
        QCOMPARE(jobField(id, QStringLiteral("Priority")), QStringLiteral("4242"));
        checkAudited(QStringLiteral("operator-priority"), id, true);
        const QJsonObject params = auditEvents(QStringLiteral("operator-priority"))
                                           .last()
                                           .value("params")
                                           .toObject();
        QCOMPARE(params.value(QStringLiteral("after")).toObject().value("priority").toInteger(),
                 4242);

        // fleet cancel ends it; audited.
        const Run c = fleetAction({QStringLiteral("cancel"), QString::number(id)});
        QVERIFY2(c.rc == 0, qPrintable(c.err));
        QTRY_COMPARE_WITH_TIMEOUT(
                jobField(id, QStringLiteral("JobState")), QStringLiteral("CANCELLED"), kJobWaitMs);
        checkAudited(QStringLiteral("operator-cancel"), id, true);
    }

    // fleet requeue of a running job: back to PENDING, then running again with one restart.
    void requeue()
    {
        const qint64 id = sbatch({QStringLiteral("--wrap"), QStringLiteral("sleep 300")});
        QVERIFY(id > 0);
        QTRY_COMPARE_WITH_TIMEOUT(
                jobField(id, QStringLiteral("JobState")), QStringLiteral("RUNNING"), kJobWaitMs);
        const Run r = fleetAction({QStringLiteral("requeue"), QString::number(id)},
                                  {QStringLiteral("--slurm-conf"), m_slurmConf});
        QVERIFY2(r.rc == 0, qPrintable(r.err));
        QCOMPARE(jobField(id, QStringLiteral("Restarts")), QStringLiteral("1"));
        QTRY_VERIFY_WITH_TIMEOUT(
                jobField(id, QStringLiteral("JobState")) != QLatin1String("RUNNING"), kJobWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(
                jobField(id, QStringLiteral("JobState")), QStringLiteral("RUNNING"), kJobWaitMs);
        checkAudited(QStringLiteral("operator-requeue"), id, true);
        const QJsonObject params
                = auditEvents(QStringLiteral("operator-requeue")).last().value("params").toObject();
        QCOMPARE(params.value(QStringLiteral("before")).toObject().value("job_state").toString(),
                 QStringLiteral("RUNNING"));
        QVERIFY(fleetAction({QStringLiteral("cancel"), QString::number(id)}).rc == 0);
    }

    // Wrong input: an unknown job is Slurm's refusal (exit 1, its words, audited as refused); a
    // job id that is not a number is a usage error (exit 2, nothing asked nor audited).
    void badInput()
    {
        const QString unknown = QStringLiteral("999999");
        for (const QStringList &args : {QStringList{QStringLiteral("cancel"), unknown},
                                        QStringList{QStringLiteral("priority"), unknown, "5"},
                                        QStringList{QStringLiteral("requeue"), unknown}}) {
            const Run r = fleetAction(args);
            QVERIFY2(r.rc == 1, qPrintable(QString::number(r.rc) + QLatin1Char(' ') + r.err));
            QVERIFY2(r.err.contains(QLatin1String("Invalid job id specified")), qPrintable(r.err));
            checkAudited(QStringLiteral("operator-") + args.first(), 999999, false);
        }
        const qsizetype audited = auditEvents(QStringLiteral("operator-cancel")).size();
        for (const QStringList &args : {QStringList{QStringLiteral("cancel"), "12x"},
                                        QStringList{QStringLiteral("requeue"), "-3"},
                                        QStringList{QStringLiteral("priority"), "7", "high"},
                                        QStringList{QStringLiteral("cancel")}}) {
            const Run r = fleetAction(args);
            QVERIFY2(r.rc == 2, qPrintable(QString::number(r.rc) + QLatin1Char(' ') + r.err));
            QVERIFY2(r.err.startsWith(QLatin1String("zhaoxictl fleet ")), qPrintable(r.err));
        }
        QCOMPARE(auditEvents(QStringLiteral("operator-cancel")).size(), audited);
        // scontrol that cannot start is the command's failure (1); a slurm.conf that cannot be
        // read is refused before scontrol would hang on a configless look-up (2).
        const Run noScontrol = fleetAction(
                {QStringLiteral("requeue"), QStringLiteral("5")},
                {QStringLiteral("--scontrol"), QStringLiteral("/nonexistent/scontrol")});
        QCOMPARE(noScontrol.rc, 1);
        QVERIFY2(noScontrol.err.contains(QLatin1String("could not start /nonexistent/scontrol")),
                 qPrintable(noScontrol.err));
        const Run noConf = fleetAction(
                {QStringLiteral("requeue"), QStringLiteral("5")},
                {QStringLiteral("--slurm-conf"), QStringLiteral("/nonexistent/slurm.conf")});
        QCOMPARE(noConf.rc, 2);
        QVERIFY2(noConf.err.contains(QLatin1String("/nonexistent/slurm.conf (SLURM_CONF) cannot "
                                                   "be read")),
                 qPrintable(noConf.err));

        // The library answers even a refused argument from the event loop, never inside the call.
        Fleet::SlurmRestClient client(QUrl(m_rest), QStringLiteral("root"), m_tokenFile);
        std::optional<Fleet::JobActionResult> answered;
        Fleet::cancelSlurmJob(client, 0, [&](const Fleet::JobActionResult &r) { answered = r; });
        QVERIFY(!answered);
        QTRY_VERIFY(answered);
        QCOMPARE(answered->failure, Fleet::JobActionResult::Failure::BadArgument);
        answered.reset();
        Fleet::setSlurmJobPriority(
                client, 999999, 5, [&](const Fleet::JobActionResult &r) { answered = r; });
        QVERIFY(!answered);
        QTRY_VERIFY_WITH_TIMEOUT(answered, kCliTimeoutMs);
        QCOMPARE(answered->failure, Fleet::JobActionResult::Failure::Rest);
        QVERIFY2(answered->message.contains(QLatin1String("Invalid job id specified")),
                 qPrintable(answered->message));
        // Every event above is one link of an intact chain.
        const Run v = zhaoxictl(
                {QStringLiteral("audit"), QStringLiteral("verify"), QStringLiteral("--db"), m_db});
        QVERIFY2(v.rc == 0, qPrintable(v.out + v.err));
    }
};

QTEST_GUILESS_MAIN(TestFleetQos)
#include "tst_fleetqos.moc"
