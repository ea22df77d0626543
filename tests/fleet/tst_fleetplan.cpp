// SPDX-License-Identifier: GPL-3.0-or-later
// `zhaoxictl fleet windows` and `fleet repartition` against real Slurm daemons: the test starts
// its own local cluster with scripts/slurm-local (zx-mig, zx-whole, zx-mps, zx-shard) and always
// stops it. A night window in force now becomes reservations that Slurm honours; a preview
// changes nothing; a second apply keeps everything; a bad schedule names its field. zx-mig is
// repartitioned while a job runs on it (drained, the job requeued, the GRES changed, resumed, a
// job on the new instances runs); a failing GRES command leaves it drained with the reason.
// Needs root (the daemons run as root); skips otherwise.
#include "tests/fleet/slurmtestrun.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <unistd.h>

namespace {

using namespace Zhaoxi::TestSlurm;

constexpr int kCliTimeoutMs = 120 * 1000;
constexpr int kJobWaitMs = 60 * 1000;

} // namespace

class TestFleetPlan : public QObject
{
    Q_OBJECT

public:
    ~TestFleetPlan() override { down(); }

private:
    QTemporaryDir m_tmp;
    QString m_clusterDir;
    QString m_rest;
    QString m_tokenFile;
    QString m_slurmConf;
    bool m_started = false;
    QStringList m_reservedNodes;

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

    Run zhaoxictl(const QStringList &args)
    {
        return runProgram(QStringLiteral(ZHAOXICTL),
                          args
                                  + QStringList{QStringLiteral("--rest"),
                                                m_rest,
                                                QStringLiteral("--token-file"),
                                                m_tokenFile,
                                                QStringLiteral("--user"),
                                                QStringLiteral("root")},
                          kCliTimeoutMs,
                          slurmEnv());
    }

    Run slurm(const QString &program, const QStringList &args)
    {
        return runProgram(program, args, 30000, slurmEnv());
    }

    // A schedule with one window "night" in force now (from an hour ago to an hour ahead),
    // giving training 0.85 of the cards.
    QString nightSchedule()
    {
        const QDateTime now = QDateTime::currentDateTime();
        const QByteArray json = QStringLiteral(R"({"prepareAhead": "20m", "windows": [
            {"name": "night", "from": "%1", "to": "%2", "inferenceShare": 0.15}]})")
                                        .arg(now.addSecs(-3600).toString(QStringLiteral("HH:mm")),
                                             now.addSecs(3600).toString(QStringLiteral("HH:mm")))
                                        .toUtf8();
        const QString path = m_tmp.filePath(QStringLiteral("night.json"));
        writeFile(path, json);
        return path;
    }

    QStringList reservationNames()
    {
        const Run r = slurm(QStringLiteral("scontrol"),
                            {QStringLiteral("show"), QStringLiteral("res")});
        QStringList names;
        const QRegularExpression re(QStringLiteral("ReservationName=(\\S+)"));
        for (auto it = re.globalMatch(r.out); it.hasNext();)
            names << it.next().captured(1);
        std::sort(names.begin(), names.end());
        return names;
    }

    // squeue's state and reason of a job ("RUNNING None"); empty when it is gone.
    QString jobState(const QString &id)
    {
        return slurm(QStringLiteral("squeue"),
                     {QStringLiteral("-h"),
                      QStringLiteral("-j"),
                      id,
                      QStringLiteral("-o"),
                      QStringLiteral("%T %r")})
                .out.trimmed();
    }

    // Waits (bounded) until the job's state starts with `state`; the last state seen.
    QString waitForJob(const QString &id, const QString &state)
    {
        QElapsedTimer t;
        t.start();
        QString s;
        while (t.elapsed() < kJobWaitMs) {
            s = jobState(id);
            if (s.startsWith(state))
                break;
            QThread::msleep(200);
        }
        return s;
    }

    QString submit(const QStringList &args)
    {
        // Output under the test's directory, not in the directory the test runs in.
        const Run r = slurm(QStringLiteral("sbatch"),
                            QStringList{QStringLiteral("--parsable"),
                                        QStringLiteral("-o"),
                                        m_tmp.filePath(QStringLiteral("slurm-%j.out"))}
                                    + args);
        return r.rc == 0 ? r.out.trimmed() : QString();
    }

    // The node's state once it is not flagged not responding ('*'), waiting (bounded) for that:
    // a restarted controller flags its nodes until its first ping round.
    QString settledState(const QString &node)
    {
        QElapsedTimer t;
        t.start();
        QString s = sinfo(node, QStringLiteral("%T"));
        while (s.endsWith(QLatin1Char('*')) && t.elapsed() < kJobWaitMs) {
            QThread::msleep(200);
            s = sinfo(node, QStringLiteral("%T"));
        }
        return s;
    }

    QString sinfo(const QString &node, const QString &format)
    {
        return slurm(QStringLiteral("sinfo"),
                     {QStringLiteral("-h"),
                      QStringLiteral("-N"),
                      QStringLiteral("-n"),
                      node,
                      QStringLiteral("-o"),
                      format})
                .out.section(QLatin1Char('\n'), 0, 0)
                .trimmed();
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (::geteuid() != 0)
            QSKIP("the fleet tests start Slurm's daemons, which needs root");
        QVERIFY(m_tmp.isValid());
        m_clusterDir = m_tmp.filePath(QStringLiteral("cluster"));
        m_started = true; // down cleans up whatever a failed up left
        const ClusterUp up = bringUp(QStringLiteral(SLURM_LOCAL), m_tmp.path(), m_clusterDir, {});
        m_rest = up.rest;
        m_tokenFile = up.tokenFile;
        m_slurmConf = up.slurmConf;
        QVERIFY2(up.ok(), qPrintable(up.error));
    }

    void cleanupTestCase() { down(); }

    // A schedule the policy's reader refuses: exit code 2, the file and the field named.
    void windowsBadSchedule()
    {
        const QString path = m_tmp.filePath(QStringLiteral("bad.json"));
        writeFile(path, R"({"windows": [{"name": "night", "from": "22:00", "to": "07:00",
                           "inferenceShare": 1.5}]})");
        const Run r = zhaoxictl({QStringLiteral("fleet"), QStringLiteral("windows"), path});
        QCOMPARE(r.rc, 2);
        QVERIFY2(r.err.contains(QLatin1String("bad.json: windows[0].inferenceShare")),
                 qPrintable(r.err));
        writeFile(path, R"({"windows": [{"name": "night", "form": "22:00", "to": "07:00",
                           "inferenceShare": 0.1}]})");
        const Run typo = zhaoxictl({QStringLiteral("fleet"), QStringLiteral("windows"), path});
        QCOMPARE(typo.rc, 2);
        QVERIFY2(typo.err.contains(QLatin1String("windows[0]")), qPrintable(typo.err));
        QVERIFY(reservationNames().isEmpty());
    }

    // Without --apply: the plan, nothing created.
    void windowsPreview()
    {
        const Run r = zhaoxictl({QStringLiteral("fleet"),
                                 QStringLiteral("windows"),
                                 nightSchedule(),
                                 QStringLiteral("--json")});
        QVERIFY2(r.rc == 0, qPrintable(r.err));
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o.value(QStringLiteral("applied")).toBool(true), false);
        const QJsonArray rs = o.value(QStringLiteral("reservations")).toArray();
        QCOMPARE(rs.size(), 2);
        for (const QJsonValue &v : rs)
            QCOMPARE(v.toObject().value(QStringLiteral("action")).toString(),
                     QStringLiteral("create"));
        QVERIFY(reservationNames().isEmpty());
    }

    // --apply: a DAILY reservation from the next occurrence and one for the rest of this one,
    // which Slurm honours now: a training job without it waits on the reserved node, one with
    // it runs there.
    void windowsApply()
    {
        const Run r = zhaoxictl({QStringLiteral("fleet"),
                                 QStringLiteral("windows"),
                                 nightSchedule(),
                                 QStringLiteral("--apply"),
                                 QStringLiteral("--json")});
        QVERIFY2(r.rc == 0, qPrintable(r.err + r.out));
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o.value(QStringLiteral("applied")).toBool(), true);
        QCOMPARE(reservationNames(), (QStringList{"zhaoxi-night", "zhaoxi-night-now"}));
        const QJsonObject first
                = o.value(QStringLiteral("reservations")).toArray().at(0).toObject();
        m_reservedNodes.clear();
        for (const QJsonValue &n : first.value(QStringLiteral("nodes")).toArray())
            m_reservedNodes << n.toString();
        QVERIFY(!m_reservedNodes.isEmpty());
        QCOMPARE(first.value(QStringLiteral("partition")).toString(), QStringLiteral("training"));

        const Run show = slurm(
                QStringLiteral("scontrol"),
                {QStringLiteral("show"), QStringLiteral("res"), QStringLiteral("zhaoxi-night")});
        QVERIFY2(show.out.contains(QLatin1String("DAILY")), qPrintable(show.out));
        QVERIFY2(show.out.contains(QLatin1String("State=INACTIVE")), qPrintable(show.out));
        const Run now = slurm(QStringLiteral("scontrol"),
                              {QStringLiteral("show"),
                               QStringLiteral("res"),
                               QStringLiteral("zhaoxi-night-now")});
        QVERIFY2(now.out.contains(QLatin1String("State=ACTIVE")), qPrintable(now.out));
        QVERIFY2(now.out.contains(QLatin1String("PartitionName=training")), qPrintable(now.out));

        // A job in a reservation must end before the reservation does: a time limit.
        const QString node = m_reservedNodes.first();
        const QString outside = submit({QStringLiteral("-p"),
                                        QStringLiteral("training"),
                                        QStringLiteral("-w"),
                                        node,
                                        QStringLiteral("-t"),
                                        QStringLiteral("5"),
                                        QStringLiteral("--wrap"),
                                        QStringLiteral("sleep 120")});
        const QString inside = submit({QStringLiteral("-p"),
                                       QStringLiteral("training"),
                                       QStringLiteral("-w"),
                                       node,
                                       QStringLiteral("-t"),
                                       QStringLiteral("5"),
                                       QStringLiteral("--reservation=zhaoxi-night-now"),
                                       QStringLiteral("--wrap"),
                                       QStringLiteral("sleep 120")});
        QVERIFY(!outside.isEmpty() && !inside.isEmpty());
        const QString in = waitForJob(inside, QStringLiteral("RUNNING"));
        QVERIFY2(in.startsWith(QLatin1String("RUNNING")), qPrintable(in));
        const QString out = jobState(outside);
        QVERIFY2(out.startsWith(QLatin1String("PENDING"))
                         && (out.contains(QLatin1String("ReqNodeNotAvail"))
                             || out.contains(QLatin1String("Resources"))
                             || out.contains(QLatin1String("Reservation"))),
                 qPrintable(out));
        slurm(QStringLiteral("scancel"), {outside, inside});
    }

    // The same schedule again: everything is kept, nothing is run.
    void windowsSecondApplyKeeps()
    {
        const Run r = zhaoxictl({QStringLiteral("fleet"),
                                 QStringLiteral("windows"),
                                 nightSchedule(),
                                 QStringLiteral("--apply"),
                                 QStringLiteral("--json")});
        QVERIFY2(r.rc == 0, qPrintable(r.err));
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        const QJsonArray rs = o.value(QStringLiteral("reservations")).toArray();
        QCOMPARE(rs.size(), 2);
        for (const QJsonValue &v : rs)
            QCOMPARE(v.toObject().value(QStringLiteral("action")).toString(),
                     QStringLiteral("keep"));
        QCOMPARE(o.value(QStringLiteral("steps")).toArray().size(), 0);
    }

    // A step that fails undoes the ones done: an scontrol that refuses the second creation.
    void windowsFailedApplyUndoes()
    {
        const QString wrapper = m_tmp.filePath(QStringLiteral("scontrol-refusing"));
        writeFile(wrapper,
                  "#!/bin/sh\n"
                  "case \"$*\" in *zhaoxi-late-now*) echo 'Requested nodes are busy' >&2; exit 1 "
                  ";; esac\n"
                  "exec scontrol \"$@\"\n");
        QFile::setPermissions(wrapper, QFileDevice::ReadOwner | QFileDevice::ExeOwner);
        const QDateTime now = QDateTime::currentDateTime();
        const QString path = m_tmp.filePath(QStringLiteral("late.json"));
        // A window in force on nodes the night does not reserve: inference 0.8 of the cards.
        writeFile(path,
                  QStringLiteral(R"({"windows": [{"name": "late", "from": "%1", "to": "%2",
                                 "inferenceShare": 0.8}]})")
                          .arg(now.addSecs(-3600).toString(QStringLiteral("HH:mm")),
                               now.addSecs(3600).toString(QStringLiteral("HH:mm")))
                          .toUtf8());
        const Run r = zhaoxictl({QStringLiteral("fleet"),
                                 QStringLiteral("windows"),
                                 path,
                                 QStringLiteral("--apply"),
                                 QStringLiteral("--scontrol"),
                                 wrapper});
        QCOMPARE(r.rc, 1);
        QVERIFY2(r.err.contains(QLatin1String("create zhaoxi-late-now failed")), qPrintable(r.err));
        QVERIFY2(!r.err.contains(QLatin1String("NOT undone")), qPrintable(r.err));
        // The night's reservations were deleted and then created again; zhaoxi-late is gone.
        QCOMPARE(reservationNames(), (QStringList{"zhaoxi-night", "zhaoxi-night-now"}));
        // Leave no reservation for the repartition tests.
        for (const QString &n : reservationNames())
            slurm(QStringLiteral("scontrol"),
                  {QStringLiteral("delete"), QStringLiteral("ReservationName=") + n});
        QVERIFY(reservationNames().isEmpty());
    }

    // zx-mig from 2x3g.71gb + 7x1g.18gb to 7x1g.18gb on both cards while a job runs on it.
    void repartitionImmediate()
    {
        const QString job = submit({QStringLiteral("-p"),
                                    QStringLiteral("training"),
                                    QStringLiteral("-w"),
                                    QStringLiteral("zx-mig"),
                                    QStringLiteral("--gres=gpu:3g.71gb:1"),
                                    QStringLiteral("-t"),
                                    QStringLiteral("10"),
                                    QStringLiteral("--wrap"),
                                    QStringLiteral("sleep 300")});
        QVERIFY(!job.isEmpty());
        QVERIFY(waitForJob(job, QStringLiteral("RUNNING")).startsWith(QLatin1String("RUNNING")));

        const QString record = m_tmp.filePath(QStringLiteral("apply.log"));
        const QString apply = m_tmp.filePath(QStringLiteral("apply.sh"));
        writeFile(apply,
                  QStringLiteral("#!/bin/sh\necho \"$1|$2|$ZHAOXI_GRES\" >> %1\n")
                          .arg(record)
                          .toUtf8());
        QFile::setPermissions(apply, QFileDevice::ReadOwner | QFileDevice::ExeOwner);
        const Run r = zhaoxictl({QStringLiteral("fleet"),
                                 QStringLiteral("repartition"),
                                 QStringLiteral("zx-mig"),
                                 QStringLiteral("--layout"),
                                 QStringLiteral("0:7x1g.18gb;1:7x1g.18gb"),
                                 QStringLiteral("--immediate"),
                                 QStringLiteral("--apply-command"),
                                 apply,
                                 QStringLiteral("--gres-command"),
                                 QStringLiteral(SLURM_LOCAL " set-gres --dir ") + m_clusterDir,
                                 QStringLiteral("--no-reconfigure"),
                                 QStringLiteral("--json")});
        QVERIFY2(r.rc == 0, qPrintable(r.err + r.out));
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o.value(QStringLiteral("gres")).toString(), QStringLiteral("gpu:1g.18gb:14"));
        QStringList steps;
        QString jobsSeen;
        for (const QJsonValue &v : o.value(QStringLiteral("events")).toArray()) {
            const QJsonObject e = v.toObject();
            QVERIFY2(e.value(QStringLiteral("ok")).toBool(),
                     qPrintable(e.value(QStringLiteral("message")).toString()));
            if (steps.isEmpty() || steps.last() != e.value(QStringLiteral("step")).toString())
                steps << e.value(QStringLiteral("step")).toString();
            if (e.value(QStringLiteral("step")).toString() == QLatin1String("jobs"))
                jobsSeen += e.value(QStringLiteral("message")).toString() + QLatin1Char(' ');
        }
        QCOMPARE(steps,
                 (QStringList{"plan",
                              "drain",
                              "jobs",
                              "apply",
                              "gres",
                              "reconfigure",
                              "wait-gres",
                              "resume"}));
        // Drained while the job ran, which was then requeued.
        QVERIFY2(jobsSeen.contains(QStringLiteral("jobs on zx-mig: %1").arg(job)),
                 qPrintable(jobsSeen));
        QVERIFY2(jobsSeen.contains(QStringLiteral("requeued %1").arg(job)), qPrintable(jobsSeen));
        const Run show = slurm(QStringLiteral("scontrol"),
                               {QStringLiteral("show"), QStringLiteral("job"), job});
        QVERIFY2(show.out.contains(QLatin1String("Restarts=1")), qPrintable(show.out));
        QVERIFY2(!show.out.contains(QLatin1String("JobState=RUNNING")), qPrintable(show.out));
        // The apply command saw the node and the layout.
        QFile f(record);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(f.readAll()).trimmed(),
                 QStringLiteral("zx-mig|0:1g.18gb@0,1g.18gb@1,1g.18gb@2,1g.18gb@3,1g.18gb@4,"
                                "1g.18gb@5,1g.18gb@6;1:1g.18gb@0,1g.18gb@1,1g.18gb@2,1g.18gb@3,"
                                "1g.18gb@4,1g.18gb@5,1g.18gb@6|gpu:1g.18gb:14"));
        QCOMPARE(sinfo(QStringLiteral("zx-mig"), QStringLiteral("%G")),
                 QStringLiteral("gpu:1g.18gb:14"));
        const QString state = settledState(QStringLiteral("zx-mig"));
        QVERIFY2(state == QLatin1String("idle") || state == QLatin1String("mixed"),
                 qPrintable(state));
        slurm(QStringLiteral("scancel"), {job}); // it asks for a 3g.71gb that no longer exists

        // A job on ten of the new instances runs.
        const QString out = m_tmp.filePath(QStringLiteral("ten.out"));
        const Run ten
                = runProgram(QStringLiteral("sbatch"),
                             {QStringLiteral("--wait"),
                              QStringLiteral("-p"),
                              QStringLiteral("training"),
                              QStringLiteral("-w"),
                              QStringLiteral("zx-mig"),
                              QStringLiteral("-t"),
                              QStringLiteral("2"),
                              QStringLiteral("--gres=gpu:1g.18gb:10"),
                              QStringLiteral("-o"),
                              out,
                              QStringLiteral("--wrap"),
                              QStringLiteral("echo CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES")},
                             kJobWaitMs,
                             slurmEnv());
        QVERIFY2(ten.rc == 0, qPrintable(ten.err));
        QFile o2(out);
        QVERIFY(o2.open(QIODevice::ReadOnly));
        const QString cvd = QString::fromUtf8(o2.readAll()).trimmed().section(QLatin1Char('='), 1);
        QCOMPARE(cvd.split(QLatin1Char(',')).size(), 10);
    }

    // A GRES command that fails: exit code 1, the node left drained with the step and the reason.
    void repartitionFailingGres()
    {
        const Run r
                = zhaoxictl({QStringLiteral("fleet"),
                             QStringLiteral("repartition"),
                             QStringLiteral("zx-mig"),
                             QStringLiteral("--layout"),
                             QStringLiteral("0:3g.71gb@0,3g.71gb@4;1:7x1g.18gb"),
                             QStringLiteral("--immediate"),
                             QStringLiteral("--gres-command"),
                             QStringLiteral("/bin/sh -c \"echo no such node >&2; exit 3\" gres")});
        QCOMPARE(r.rc, 1);
        QVERIFY2(r.err.contains(QLatin1String("failed at gres")), qPrintable(r.err));
        QVERIFY2(r.out.contains(QLatin1String("apply       ok      skipped")), qPrintable(r.out));
        QCOMPARE(settledState(QStringLiteral("zx-mig")), QStringLiteral("drained"));
        const QString reason = sinfo(QStringLiteral("zx-mig"), QStringLiteral("%E"));
        QVERIFY2(reason.startsWith(QLatin1String("zhaoxi repartition failed at gres: "))
                         && reason.contains(QLatin1String("exit code 3"))
                         && reason.contains(QLatin1String("no such node")),
                 qPrintable(reason));
        // The GRES is untouched.
        QCOMPARE(sinfo(QStringLiteral("zx-mig"), QStringLiteral("%G")),
                 QStringLiteral("gpu:1g.18gb:14"));
    }

    // A layout the catalogue refuses: exit code 2 naming the card and the instance, node untouched.
    void repartitionBadLayout()
    {
        slurm(QStringLiteral("scontrol"),
              {QStringLiteral("update"),
               QStringLiteral("NodeName=zx-mig"),
               QStringLiteral("State=RESUME")});
        const Run r = zhaoxictl({QStringLiteral("fleet"),
                                 QStringLiteral("repartition"),
                                 QStringLiteral("zx-mig"),
                                 QStringLiteral("--layout"),
                                 QStringLiteral("0:3g.71gb@0,3g.71gb@2;1:7x1g.18gb"),
                                 QStringLiteral("--gres-command"),
                                 QStringLiteral("/bin/true")});
        QCOMPARE(r.rc, 2);
        QVERIFY2(r.err.contains(QLatin1String("card 0, instance 1 (3g.71gb@2)")),
                 qPrintable(r.err));
        QCOMPARE(settledState(QStringLiteral("zx-mig")), QStringLiteral("idle"));
    }
};

QTEST_GUILESS_MAIN(TestFleetPlan)
#include "tst_fleetplan.moc"
