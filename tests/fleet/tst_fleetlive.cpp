// SPDX-License-Identifier: GPL-3.0-or-later
// The fleet backend and `zhaoxictl fleet` against real Slurm daemons: the test starts its own
// local cluster with scripts/slurm-local (four nodes: zx-mig, zx-whole, zx-mps, zx-shard) and
// always stops it. Needs root (the daemons run as root); skips otherwise.
#include "core/catalogue/catalogue.h"
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
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

using namespace Zhaoxi;

namespace {

using namespace TestSlurm;

constexpr int kCliTimeoutMs = 60 * 1000;

QJsonObject nodeNamed(const QJsonObject &fleet, const QString &name)
{
    for (const QJsonValue &v : fleet.value(QStringLiteral("nodes")).toArray()) {
        if (v.toObject().value(QStringLiteral("name")).toString() == name)
            return v.toObject();
    }
    return {};
}

// "mig:3g.71gb,3g.71gb" per card of a node, for one comparison per node.
QStringList cardsOf(const QJsonObject &node)
{
    QStringList out;
    for (const QJsonValue &cv : node.value(QStringLiteral("cards")).toArray()) {
        const QJsonObject c = cv.toObject();
        QStringList parts;
        for (const QJsonValue &pv : c.value(QStringLiteral("partitions")).toArray())
            parts << pv.toObject().value(QStringLiteral("profile")).toString();
        out << c.value(QStringLiteral("model")).toString() + QLatin1Char('/')
                        + c.value(QStringLiteral("mode")).toString() + QLatin1Char(':')
                        + parts.join(QLatin1Char(','));
    }
    return out;
}

} // namespace

class TestFleetLive : public QObject
{
    Q_OBJECT

public:
    ~TestFleetLive() override { down(); }

private:
    QTemporaryDir m_tmp;
    QString m_clusterDir;
    QString m_rest;
    QString m_tokenFile;
    QString m_slurmConf;
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

    Run zhaoxictl(const QStringList &args, const QString &workdir = QString())
    {
        return runProgram(QStringLiteral(ZHAOXICTL), args, kCliTimeoutMs, workdir);
    }

    QStringList connection(const QString &tokenFile = QString()) const
    {
        return {QStringLiteral("--rest"),
                m_rest,
                QStringLiteral("--token-file"),
                tokenFile.isEmpty() ? m_tokenFile : tokenFile,
                QStringLiteral("--user"),
                QStringLiteral("root")};
    }

    Run scontrol(const QStringList &args)
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("SLURM_CONF"), m_slurmConf);
        return runProgram(QStringLiteral("scontrol"), args, 30000, QString(), env);
    }

    QString writeSpec(const QString &name, const QString &demand, const QString &command)
    {
        QJsonObject spec{
                {QStringLiteral("name"), name},
                {QStringLiteral("kind"), QStringLiteral("training")},
                {QStringLiteral("demand"), QJsonDocument::fromJson(demand.toUtf8()).object()},
                {QStringLiteral("time"), QJsonObject{{QStringLiteral("expectedDuration"), "5m"}}},
                {QStringLiteral("run"),
                 QJsonObject{
                         {QStringLiteral("command"),
                          QJsonArray{QStringLiteral("/bin/sh"), QStringLiteral("-c"), command}}}}};
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
        m_started = true; // down cleans up whatever a failed up left
        const ClusterUp up = bringUp(QStringLiteral(SLURM_LOCAL), m_tmp.path(), m_clusterDir, {});
        m_rest = up.rest;
        m_tokenFile = up.tokenFile;
        m_slurmConf = up.slurmConf;
        QVERIFY2(up.ok(), qPrintable(up.error));
    }

    void cleanupTestCase() { down(); }

    // The four emulated nodes as Zhaoxi's cards, through the command line.
    void showJson()
    {
        const Run r = zhaoxictl(QStringList{QStringLiteral("fleet"), QStringLiteral("show")}
                                + connection() + QStringList{QStringLiteral("--json")});
        QVERIFY2(r.rc == 0, qPrintable(r.err));
        const QJsonObject fleet = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(fleet.value(QStringLiteral("nodes")).toArray().size(), 4);
        QCOMPARE(fleet.value(QStringLiteral("warnings")).toArray().size(), 0);
        // No accounting: no QOS, and why (the rest of the read stands).
        QCOMPARE(fleet.value(QStringLiteral("qos")).toArray().size(), 0);
        QVERIFY2(fleet.value(QStringLiteral("qosProblem"))
                         .toString()
                         .contains(QLatin1String("/slurmdb/v0.0.38/qos")),
                 qPrintable(fleet.value(QStringLiteral("qosProblem")).toString()));
        QCOMPARE(cardsOf(nodeNamed(fleet, QStringLiteral("zx-mig"))),
                 (QStringList{"H200-141GB/mig:3g.71gb,3g.71gb",
                              "H200-141GB/mig:1g.18gb,1g.18gb,1g.18gb,1g.18gb,1g.18gb,1g.18gb,"
                              "1g.18gb"}));
        QCOMPARE(cardsOf(nodeNamed(fleet, QStringLiteral("zx-whole"))),
                 (QStringList{"H200-141GB/whole:",
                              "H200-141GB/whole:",
                              "H200-141GB/whole:",
                              "H200-141GB/whole:"}));
        QCOMPARE(cardsOf(nodeNamed(fleet, QStringLiteral("zx-mps"))),
                 QStringList{"L40S-48GB/mps:"});
        QCOMPARE(cardsOf(nodeNamed(fleet, QStringLiteral("zx-shard"))),
                 QStringList{"L40S-48GB/time-slicing:"});
        const QJsonObject mig = nodeNamed(fleet, QStringLiteral("zx-mig"));
        QCOMPARE(mig.value(QStringLiteral("state")).toString(), QStringLiteral("idle"));
        for (const QJsonValue &c : mig.value(QStringLiteral("cards")).toArray()) {
            for (const QJsonValue &p : c.toObject().value(QStringLiteral("partitions")).toArray())
                QVERIFY(p.toObject().value(QStringLiteral("job")).isNull());
        }
        QStringList partitions;
        for (const QJsonValue &p : fleet.value(QStringLiteral("partitions")).toArray())
            partitions << p.toObject().value(QStringLiteral("name")).toString();
        QCOMPARE(partitions, (QStringList{"inference", "training"}));
    }

    // A training unit asking one 1g.18gb runs on the node Zhaoxi chose, on one of its 1g
    // instances (Slurm's devices 2..8), and the fleet then shows it there.
    void submitRunsWhereZhaoxiChose()
    {
        const QString work = m_tmp.filePath(QStringLiteral("work"));
        QVERIFY(QDir().mkpath(work));
        const QString out = work + QStringLiteral("/seen.txt");
        const QString spec = writeSpec(
                QStringLiteral("mig-1g"),
                QStringLiteral("{\"compute\": {\"profile\": \"1g.18gb\"}, \"hostCpu\": 1}"),
                QStringLiteral("echo \"$CUDA_VISIBLE_DEVICES $SLURMD_NODENAME\" > %1.tmp && mv "
                               "%1.tmp %1; sleep 60")
                        .arg(out));
        const Run r = zhaoxictl(QStringList{QStringLiteral("fleet"), QStringLiteral("submit"), spec}
                                        + connection() + QStringList{QStringLiteral("--json")},
                                work);
        QVERIFY2(r.rc == 0, qPrintable(r.err));
        const QJsonObject answer = QJsonDocument::fromJson(r.out.toUtf8()).object();
        const qint64 jobId = answer.value(QStringLiteral("job_id")).toInteger();
        QVERIFY2(jobId > 0, qPrintable(r.out));
        QCOMPARE(answer.value(QStringLiteral("node")).toString(), QStringLiteral("zx-mig"));
        QCOMPARE(answer.value(QStringLiteral("gres")).toString(), QStringLiteral("gpu:1g.18gb:1"));

        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(out), 30000);
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QStringList seen = QString::fromUtf8(f.readAll()).trimmed().split(QLatin1Char(' '));
        QCOMPARE(seen.size(), 2);
        QCOMPARE(seen[1], QStringLiteral("zx-mig"));
        bool ok = false;
        const int device = seen[0].toInt(&ok);
        QVERIFY2(ok && device >= 2 && device <= 8, qPrintable(seen[0]));

        // The fleet shows the job on the instance Slurm gave it.
        const Run show = zhaoxictl(QStringList{QStringLiteral("fleet"), QStringLiteral("show")}
                                   + connection() + QStringList{QStringLiteral("--json")});
        QVERIFY2(show.rc == 0, qPrintable(show.err));
        const QJsonObject fleet = QJsonDocument::fromJson(show.out.toUtf8()).object();
        int holders = 0;
        for (const QJsonValue &c :
             nodeNamed(fleet, QStringLiteral("zx-mig")).value(QStringLiteral("cards")).toArray()) {
            for (const QJsonValue &pv :
                 c.toObject().value(QStringLiteral("partitions")).toArray()) {
                const QJsonObject p = pv.toObject();
                if (p.value(QStringLiteral("job")).toInteger() == jobId) {
                    ++holders;
                    QCOMPARE(p.value(QStringLiteral("profile")).toString(),
                             QStringLiteral("1g.18gb"));
                    QCOMPARE(p.value(QStringLiteral("gresIndex")).toInt(), device);
                }
            }
        }
        QCOMPARE(holders, 1);
    }

    // Slurm refuses a job (its partition drained): zhaoxictl exits non-zero with Slurm's reason.
    void slurmRefuses()
    {
        const Run drain = scontrol({QStringLiteral("update"),
                                    QStringLiteral("PartitionName=training"),
                                    QStringLiteral("State=DRAIN")});
        QVERIFY2(drain.rc == 0, qPrintable(drain.err));
        const QString spec = writeSpec(QStringLiteral("refused"),
                                       QStringLiteral("{\"compute\": {\"profile\": \"1g.18gb\"}}"),
                                       QStringLiteral("true"));
        const Run r = zhaoxictl(QStringList{QStringLiteral("fleet"), QStringLiteral("submit"), spec}
                                        + connection(),
                                m_tmp.path());
        const Run up = scontrol({QStringLiteral("update"),
                                 QStringLiteral("PartitionName=training"),
                                 QStringLiteral("State=UP")});
        QVERIFY2(up.rc == 0, qPrintable(up.err));
        QCOMPARE(r.rc, 1);
        QVERIFY2(r.err.contains(QLatin1String("Slurm refused the job for node zx-mig"))
                         && r.err.contains(QLatin1String("HTTP 500"))
                         && r.err.contains(QLatin1String("Required partition not available")),
                 qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
    }

    // An impossible demand: Zhaoxi refuses it itself, saying why; through the library, Slurm's
    // own refusal of an impossible GRES comes back as its error text.
    void impossibleGres()
    {
        const QString spec = writeSpec(QStringLiteral("impossible"),
                                       QStringLiteral("{\"compute\": {\"profile\": \"7g.141gb\"}}"),
                                       QStringLiteral("true"));
        const Run r = zhaoxictl(QStringList{QStringLiteral("fleet"), QStringLiteral("submit"), spec}
                                        + connection(),
                                m_tmp.path());
        QCOMPARE(r.rc, 1);
        QVERIFY2(r.err.contains(QLatin1String("no node can take it now")), qPrintable(r.err));

        Fleet::SlurmRestClient client(QUrl(m_rest), QStringLiteral("root"), m_tokenFile);
        Fleet::RestStatus status;
        const std::optional<Fleet::FleetSnapshot> snap = client.fetchFleetBlocking(&status);
        QVERIFY2(snap, qPrintable(status.message));
        const Fleet::FleetState fleet = Fleet::buildFleetState(
                *snap, Catalogue::Catalogue::builtIn(), QDateTime::currentMSecsSinceEpoch());
        Domain::WorkloadSpec w;
        w.name = QStringLiteral("impossible");
        w.kind = Domain::WorkloadKind::Training;
        w.demand.compute.kind = Domain::ComputeDemand::Kind::MigProfile;
        w.demand.compute.profile = QStringLiteral("1g.18gb");
        w.run = Domain::RunSpec{};
        w.run->command = {QStringLiteral("true")};
        Fleet::SubmitOptions options;
        options.workdir = m_tmp.path();
        QString why;
        std::optional<Fleet::SubmitPlan> plan = Fleet::planSubmission(fleet, w, 0, options, &why);
        QVERIFY2(plan, qPrintable(why));
        QJsonObject job = plan->request.value(QStringLiteral("job")).toObject();
        job.insert(QStringLiteral("gres"), QStringLiteral("gpu:7g.141gb:1"));
        plan->request.insert(QStringLiteral("job"), job);
        QVERIFY(!client.submitBlocking(plan->request, &status));
        QCOMPARE(int(status.code), int(Fleet::RestStatus::Code::Http));
        QCOMPARE(status.httpStatus, 500);
        QVERIFY2(status.message.contains(QLatin1String(
                         "Requested node configuration is not available (error 2014)")),
                 qPrintable(status.message));
    }

    // A wrong token (slurmrestd: HTTP 500 "Unspecified error") and a missing token file are
    // clear errors; a renewed token file is read by the next request of the same client.
    void tokens()
    {
        const QString bad = m_tmp.filePath(QStringLiteral("bad-token"));
        QVERIFY(writeFile(bad, "eyJhbGciOiJIUzI1NiJ9.e30.bm90LWEtc2lnbmF0dXJl\n"));
        Run r = zhaoxictl(QStringList{QStringLiteral("fleet"), QStringLiteral("show")}
                          + connection(bad));
        QCOMPARE(r.rc, 1);
        QVERIFY2(r.err.contains(QLatin1String("HTTP 500"))
                         && r.err.contains(QLatin1String("token is wrong or expired")),
                 qPrintable(r.err));

        r = zhaoxictl(QStringList{QStringLiteral("fleet"), QStringLiteral("show")}
                      + connection(m_tmp.filePath(QStringLiteral("no-such-token"))));
        QCOMPARE(r.rc, 1);
        QVERIFY2(r.err.contains(QLatin1String("cannot read the token file")), qPrintable(r.err));

        Fleet::SlurmRestClient client(QUrl(m_rest), QStringLiteral("root"), bad);
        Fleet::RestReply reply = client.getBlocking(QStringLiteral("/slurm/v0.0.38/ping"));
        QCOMPARE(int(reply.status.code), int(Fleet::RestStatus::Code::Http));
        QFile good(m_tokenFile);
        QVERIFY(good.open(QIODevice::ReadOnly));
        QVERIFY(writeFile(bad, good.readAll()));
        reply = client.getBlocking(QStringLiteral("/slurm/v0.0.38/ping"));
        QVERIFY2(reply.status.isOk(), qPrintable(reply.status.message));
    }

    // slurmrestd not there: unreachable, said so.
    void unreachable()
    {
        Fleet::SlurmRestClient client(
                QUrl(QStringLiteral("http://127.0.0.1:1")), QStringLiteral("root"), m_tokenFile);
        const Fleet::RestReply reply = client.getBlocking(QStringLiteral("/slurm/v0.0.38/ping"));
        QCOMPARE(int(reply.status.code), int(Fleet::RestStatus::Code::Unreachable));
        QVERIFY2(reply.status.message.contains(QLatin1String("slurmrestd is unreachable")),
                 qPrintable(reply.status.message));
    }
};

QTEST_GUILESS_MAIN(TestFleetLive)
#include "tst_fleetlive.moc"
