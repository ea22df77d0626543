// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxictl run: scenarios run on the wall clock with real processes (issue 13). Each test runs
// the built binary on a small scenario and reads its JSON report and its store: a window switch
// drains training at a checkpoint and starts a replica; the guard adds a replica when the demo
// server's scraped p99 rises under a load step and gives it back after its hold; the shipped
// real demo checkpoints, preempts at a checkpoint and resumes training within its three minutes,
// every service measured from its own /metrics. No process outlives a run.
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

namespace {

struct Result
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    QJsonObject report;
};

Result zhaoxictl(const QStringList &args, int timeoutMs)
{
    Result r;
    QProcess p;
    p.start(QStringLiteral(ZHAOXICTL_PATH), args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    r.report = QJsonDocument::fromJson(r.out).object();
    return r;
}

QString scenario(const QString &name)
{
    return QStringLiteral(ZHAOXI_SOURCE_DIR) + QStringLiteral("/tests/app/data/") + name;
}

QJsonObject byName(const QJsonObject &report, const QString &list, const QString &name)
{
    for (const QJsonValue &v : report.value(list).toArray())
        if (v.toObject().value(QStringLiteral("name")).toString() == name)
            return v.toObject();
    return {};
}

// Processes whose command line names the run's directory (the shims and the jobs).
QStringList processesUnder(const QString &dir)
{
    QStringList found;
    const QStringList pids = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString &pid : pids) {
        bool ok = false;
        pid.toInt(&ok);
        if (!ok)
            continue;
        QFile f(QStringLiteral("/proc/%1/cmdline").arg(pid));
        if (!f.open(QIODevice::ReadOnly))
            continue;
        const QByteArray cmd = f.readAll();
        if (cmd.contains(dir.toUtf8()))
            found << pid + QLatin1Char(' ')
                             + QString::fromUtf8(cmd).replace(QChar(0), QLatin1Char(' '));
    }
    return found;
}

// The store's events, in (time, id) order.
QList<QJsonObject> events(const QString &db)
{
    QProcess p;
    p.start(QStringLiteral(ZHAOXICTL_PATH),
            {QStringLiteral("events"),
             QStringLiteral("export"),
             QStringLiteral("--db"),
             db,
             QStringLiteral("--format"),
             QStringLiteral("jsonl")});
    p.waitForFinished(60'000);
    QList<QJsonObject> out;
    for (const QByteArray &line : p.readAllStandardOutput().split('\n')) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (!o.isEmpty())
            out << o;
    }
    return out;
}

// The store's event codes, in (time, id) order.
QStringList eventCodes(const QString &db)
{
    QStringList codes;
    for (const QJsonObject &o : events(db))
        codes << o.value(QStringLiteral("code")).toString();
    return codes;
}

} // namespace

class TestCmdRun : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aWindowSwitchDrainsTrainingAtACheckpointAndStartsAReplica()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("live.sqlite"));
        const Result r = zhaoxictl({QStringLiteral("run"),
                                    QStringLiteral("--scenario"),
                                    scenario(QStringLiteral("live-window.json")),
                                    QStringLiteral("--db"),
                                    db,
                                    QStringLiteral("--json")},
                                   120'000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject train
                = byName(r.report, QStringLiteral("jobs"), QStringLiteral("train-a"));
        QVERIFY2(!train.isEmpty(), r.out.constData());
        QVERIFY2(train.value(QStringLiteral("checkpoints")).toInt() >= 1, r.out.constData());
        QCOMPARE(train.value(QStringLiteral("preemptions")).toInt(), 1);
        // It left at its acknowledged checkpoint: next to nothing lost (the ack's own latency).
        QVERIFY2(train.value(QStringLiteral("lost_work_s")).toDouble() < 1.0, r.out.constData());
        const QJsonObject chat
                = byName(r.report, QStringLiteral("services"), QStringLiteral("chat"));
        QCOMPARE(chat.value(QStringLiteral("replicas_max")).toInt(), 2);
        QVERIFY(chat.value(QStringLiteral("requests")).toInt() > 0);
        QVERIFY(chat.value(QStringLiteral("p99_ms")).isDouble());
        QCOMPARE(chat.value(QStringLiteral("source")).toString(), QStringLiteral("scraped"));
        QCOMPARE(r.report.value(QStringLiteral("orphans")).toArray().size(), 0);
        QVERIFY(processesUnder(dir.path()).isEmpty());

        // The store has the story: the switch, the drain, the checkpoint, the new replica.
        const QStringList codes = eventCodes(db);
        for (const char *code : {"window-switch",
                                 "training-requeued",
                                 "checkpoint-requested",
                                 "checkpoint-acknowledged",
                                 "replica-added",
                                 "replica-ready"})
            QVERIFY2(codes.contains(QLatin1String(code)), code);
        // The drain's checkpoint was acknowledged after it was asked for (the job also saves
        // on its own every 100 steps).
        QVERIFY(codes.indexOf(QStringLiteral("checkpoint-requested"))
                < codes.lastIndexOf(QStringLiteral("checkpoint-acknowledged")));
    }

    void theGuardAddsAReplicaUnderALoadStepAndGivesItBack()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("guard.sqlite"));
        const Result r = zhaoxictl({QStringLiteral("run"),
                                    QStringLiteral("--scenario"),
                                    scenario(QStringLiteral("live-guard.json")),
                                    QStringLiteral("--db"),
                                    db,
                                    QStringLiteral("--json")},
                                   240'000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject chat
                = byName(r.report, QStringLiteral("services"), QStringLiteral("chat"));
        QCOMPARE(chat.value(QStringLiteral("replicas_max")).toInt(), 2);
        const QJsonObject train
                = byName(r.report, QStringLiteral("jobs"), QStringLiteral("train-a"));
        QCOMPARE(train.value(QStringLiteral("preemptions")).toInt(), 1);
        QCOMPARE(train.value(QStringLiteral("starts")).toInt(), 2); // back once it was given back
        const QStringList codes = eventCodes(db);
        QVERIFY(codes.contains(QStringLiteral("replica-added")));
        QVERIFY(codes.contains(QStringLiteral("guard-release")));
        QVERIFY(codes.contains(QStringLiteral("replica-removed")));
        // The second replica came with the load and went after it.
        QVERIFY(codes.lastIndexOf(QStringLiteral("replica-added"))
                < codes.indexOf(QStringLiteral("replica-removed")));
        QCOMPARE(r.report.value(QStringLiteral("orphans")).toArray().size(), 0);
        QVERIFY(processesUnder(dir.path()).isEmpty());
    }

    void theRealDemoPreemptsAtACheckpointAndResumesWithinThreeMinutes()
    {
        QTemporaryDir dir;
        const Result r = zhaoxictl(
                {QStringLiteral("run"),
                 QStringLiteral("--scenario"),
                 QStringLiteral(ZHAOXI_SOURCE_DIR "/resources/scenarios/real-demo.json"),
                 QStringLiteral("--for"),
                 QStringLiteral("3m"),
                 QStringLiteral("--db"),
                 dir.filePath(QStringLiteral("demo.sqlite")),
                 QStringLiteral("--json")},
                400'000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        bool resumed = false;
        for (const QJsonValue &v : r.report.value(QStringLiteral("jobs")).toArray()) {
            const QJsonObject j = v.toObject();
            if (j.value(QStringLiteral("kind")).toString() != QLatin1String("training"))
                continue;
            resumed = resumed
                      || (j.value(QStringLiteral("checkpoints")).toInt() >= 1
                          && j.value(QStringLiteral("preemptions")).toInt() >= 1
                          && j.value(QStringLiteral("starts")).toInt() >= 2);
        }
        QVERIFY2(resumed, r.out.constData());
        const QJsonArray services = r.report.value(QStringLiteral("services")).toArray();
        QCOMPARE(services.size(), 3);
        for (const QJsonValue &v : services) {
            const QJsonObject s = v.toObject();
            QVERIFY2(s.value(QStringLiteral("requests")).toInt() > 0, r.out.constData());
            QVERIFY2(s.value(QStringLiteral("p99_ms")).isDouble(), r.out.constData());
            QVERIFY2(s.value(QStringLiteral("slo_attainment")).isDouble(), r.out.constData());
        }
        QCOMPARE(r.report.value(QStringLiteral("orphans")).toArray().size(), 0);
        QVERIFY(processesUnder(dir.path()).isEmpty());
    }

    void theTwinAndTheRealRunDecideAlike()
    {
        // The same scenario, once modelled and once with real processes: the policy takes the
        // same actions in the same order, and every job is placed and evicted the same way.
        // Times aside, and so is how a drain waits: the twin's checkpoint may fall on the edge
        // itself, the real job is asked and answers (job-preempting, its own checkpoints).
        QTemporaryDir dir;
        const QString twin = dir.filePath(QStringLiteral("twin.sqlite"));
        const QString real = dir.filePath(QStringLiteral("real.sqlite"));
        const QString file = scenario(QStringLiteral("live-twin.json"));
        QCOMPARE(zhaoxictl({QStringLiteral("simulate"),
                            QStringLiteral("--scenario"),
                            file,
                            QStringLiteral("--db"),
                            twin},
                           60'000)
                         .exitCode,
                 0);
        const Result r = zhaoxictl({QStringLiteral("run"),
                                    QStringLiteral("--scenario"),
                                    file,
                                    QStringLiteral("--db"),
                                    real,
                                    QStringLiteral("--json")},
                                   120'000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto decisions = [](const QString &db) {
            QStringList policy;
            QMap<int, QStringList> jobs;
            for (const QJsonObject &e : events(db)) {
                const QString code = e.value(QStringLiteral("code")).toString();
                const int job = e.value(QStringLiteral("job")).toInt(-1);
                // The twin's modelled milestones (training-checkpoint, -resumed, -completed)
                // are the real run's process events.
                const bool milestone = code == QLatin1String("training-checkpoint")
                                       || code == QLatin1String("training-resumed")
                                       || code == QLatin1String("training-completed");
                if (e.value(QStringLiteral("source")).toString() == QLatin1String("policy")
                    && !milestone)
                    policy << code + QLatin1Char(' ') + QString::number(job);
                else if (code == QLatin1String("job-placed") || code == QLatin1String("job-evicted")
                         || code == QLatin1String("job-finished"))
                    jobs[job] << code;
            }
            return std::make_pair(policy, jobs);
        };
        const auto [twinPolicy, twinJobs] = decisions(twin);
        const auto [realPolicy, realJobs] = decisions(real);
        QVERIFY(twinPolicy.contains(QStringLiteral("window-switch -1")));
        QVERIFY(twinPolicy.contains(QStringLiteral("training-requeued 0")));
        QCOMPARE(realPolicy, twinPolicy);
        QCOMPARE(realJobs, twinJobs);
        QCOMPARE(r.report.value(QStringLiteral("orphans")).toArray().size(), 0);
    }

    void aRunKilledMidwayIsResumedAdoptingItsProcesses()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("resume.sqlite"));
        const QStringList args{QStringLiteral("run"),
                               QStringLiteral("--scenario"),
                               scenario(QStringLiteral("live-window.json")),
                               QStringLiteral("--db"),
                               db,
                               QStringLiteral("--json")};
        QProcess first;
        first.start(QStringLiteral(ZHAOXICTL_PATH), args);
        QVERIFY(first.waitForStarted());
        // Past the window switch (10 min of scenario at 120x: 5 s), then the owner dies hard.
        QTRY_VERIFY_WITH_TIMEOUT(!processesUnder(dir.path() + QStringLiteral("/runs")).isEmpty(),
                                 30'000);
        QTest::qWait(8000);
        first.kill();
        QVERIFY(first.waitForFinished());
        QTest::qWait(500);
        // A job never dies because its owner did: the shims and their jobs run on.
        const QStringList orphaned = processesUnder(dir.path() + QStringLiteral("/runs/"));
        QVERIFY2(!orphaned.isEmpty(), "no process outlived the killed run");

        const Result r = zhaoxictl(args + QStringList{QStringLiteral("--resume")}, 120'000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.report.value(QStringLiteral("orphans")).toArray().size(), 0);
        QVERIFY(processesUnder(dir.path()).isEmpty());
        // Each process alive at the restart was adopted, and the first replica (alive all
        // along) was never started a second time.
        const QStringList codes = eventCodes(db);
        QCOMPARE(codes.count(QStringLiteral("process-adopted")), orphaned.size());
        const QJsonObject chat0
                = byName(r.report, QStringLiteral("jobs"), QStringLiteral("chat-0"));
        QCOMPARE(chat0.value(QStringLiteral("starts")).toInt(), 1);
        QCOMPARE(chat0.value(QStringLiteral("state")).toString(), QStringLiteral("running"));
        // Names are never given twice.
        QSet<QString> names;
        for (const QJsonValue &v : r.report.value(QStringLiteral("jobs")).toArray())
            names.insert(v.toObject().value(QStringLiteral("name")).toString());
        QCOMPARE(names.size(), r.report.value(QStringLiteral("jobs")).toArray().size());
    }

    // --hardware: the scenario's workloads on this machine's cards as NVML reports them (the
    // fake NVML library here: one H200 whose UUID the job must see), nothing left running.
    void aScenarioRunsOnTheMachinesCardsWithHardware()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QJsonObject gpu{{"name", "NVIDIA H200"},
                              {"uuid", "GPU-5a1e0000-0000-4000-8000-0000000000c1"},
                              {"busId", "00000000:C1:00.0"},
                              {"pciDeviceId", "0x233510DE"},
                              {"memoryTotalMiB", 143771},
                              {"memoryUsedMiB", 0},
                              {"utilisation", 0},
                              {"temperature", 35},
                              {"powerMw", 80000},
                              {"eccUncorrected", 0},
                              {"eccCorrected", 0},
                              {"instances", QJsonArray{}}};
        const QString fixture = dir.filePath(QStringLiteral("fixture.json"));
        QFile f(fixture);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QJsonDocument(
                        QJsonObject{{"driverVersion", "550.54.15"}, {"gpus", QJsonArray{gpu}}})
                        .toJson());
        f.close();
        qputenv("FAKENVML_FIXTURE", fixture.toLocal8Bit());
        const QString db = dir.filePath(QStringLiteral("run.sqlite"));
        const Result r = zhaoxictl({QStringLiteral("run"),
                                    QStringLiteral("--scenario"),
                                    scenario(QStringLiteral("live-twin.json")),
                                    QStringLiteral("--hardware"),
                                    QStringLiteral("--nvml-library"),
                                    QStringLiteral(FAKENVML_PATH),
                                    QStringLiteral("--for"),
                                    QStringLiteral("4s"),
                                    QStringLiteral("--db"),
                                    db,
                                    QStringLiteral("--json")},
                                   120'000);
        qunsetenv("FAKENVML_FIXTURE");
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.report.value(QStringLiteral("hardware")).toBool(), true);
        QCOMPARE(r.report.value(QStringLiteral("orphans")).toArray().size(), 0);
        // One card: the higher priority job runs on it, the other waits.
        const QJsonObject a = byName(r.report, QStringLiteral("jobs"), QStringLiteral("train-a"));
        QCOMPARE(a.value(QStringLiteral("starts")).toInt(), 1);
        QFile log(QDir(r.report.value(QStringLiteral("data_dir")).toString())
                          .filePath(QStringLiteral("jobs/j0-train-a/r0/log")));
        QVERIFY(log.open(QIODevice::ReadOnly));
        QVERIFY(log.readAll().contains(
                "CUDA_VISIBLE_DEVICES=GPU-5a1e0000-0000-4000-8000-0000000000c1"));
        QVERIFY(processesUnder(r.report.value(QStringLiteral("data_dir")).toString()).isEmpty());

        // A machine without the library is refused with the reason.
        const Result none = zhaoxictl({QStringLiteral("run"),
                                       QStringLiteral("--scenario"),
                                       scenario(QStringLiteral("live-twin.json")),
                                       QStringLiteral("--hardware"),
                                       QStringLiteral("--nvml-library"),
                                       dir.filePath(QStringLiteral("no-such-libnvml.so")),
                                       QStringLiteral("--db"),
                                       db},
                                      60'000);
        QCOMPARE(none.exitCode, 2);
        QVERIFY2(none.err.contains("--hardware"), none.err.constData());
    }

    void badInputIsRefusedNamingWhatIsWrong_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("no scenario")
                << QStringList{} << QStringLiteral("--scenario FILE is required");
        QTest::newRow("bad duration") << QStringList{QStringLiteral("--scenario"),
                                                     scenario(QStringLiteral("live-window.json")),
                                                     QStringLiteral("--for"),
                                                     QStringLiteral("soon")}
                                      << QStringLiteral("--for expects a duration");
        QTest::newRow("a workload with nothing to run")
                << QStringList{QStringLiteral("--scenario"),
                               QStringLiteral(ZHAOXI_SOURCE_DIR
                                              "/resources/scenarios/small-ramp.json")}
                << QStringLiteral("service chat: run: required on a real appliance");
        QTest::newRow("resume without a store")
                << QStringList{QStringLiteral("--scenario"),
                               scenario(QStringLiteral("live-window.json")),
                               QStringLiteral("--resume")}
                << QStringLiteral("holds no run to resume");
        QTest::newRow("unknown policy") << QStringList{QStringLiteral("--scenario"),
                                                       scenario(QStringLiteral("live-window.json")),
                                                       QStringLiteral("--policy"),
                                                       QStringLiteral("fastest")}
                                        << QStringLiteral("policy fastest");
    }

    void badInputIsRefusedNamingWhatIsWrong()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const Result r = zhaoxictl(QStringList{QStringLiteral("run")} + args
                                           + QStringList{QStringLiteral("--db"),
                                                         dir.filePath(QStringLiteral("x.sqlite"))},
                                   60'000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
        QVERIFY(processesUnder(dir.path()).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestCmdRun)
#include "tst_cmd_run.moc"
