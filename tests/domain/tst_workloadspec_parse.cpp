// SPDX-License-Identifier: GPL-3.0-or-later
// Reading and writing workload specs: the vocabulary, the examples, canonical form, malformed
// bytes and repeated keys, and round trips.
#include "workloadspecfixture.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTest>

using namespace Zhaoxi::Domain;
using namespace WorkloadSpecFixture;

class tst_WorkloadSpecParse : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void enumStrings();
    void durations_data();
    void durations();
    void durationText_data();
    void durationText();
    void examplesRoundTrip_data();
    void examplesRoundTrip();
    void trainingExampleFields();
    void inferenceExampleFields();
    void batchExampleFields();
    void defaults();
    void conversions_data();
    void conversions();
    void canonicalForm();
    void malformedBytes_data();
    void malformedBytes();
    void duplicateKeys_data();
    void duplicateKeys();
    void runExampleFields();
    void runDefaults();
    void runCanonicalForm();
    void cpuOnlyJob();
    void equalityIsByMeaning();
    void randomSpecsRoundTrip();
    void docExamplesAreValid();
};

void tst_WorkloadSpecParse::enumStrings()
{
    for (WorkloadKind k : {WorkloadKind::Training, WorkloadKind::Inference, WorkloadKind::Batch}) {
        WorkloadKind back = WorkloadKind::Batch;
        QVERIFY(workloadKindFromString(toString(k), &back));
        QCOMPARE(toString(back), toString(k));
    }
    for (PreemptionTolerance p : {PreemptionTolerance::Never,
                                  PreemptionTolerance::AtCheckpoint,
                                  PreemptionTolerance::Restart}) {
        PreemptionTolerance back = PreemptionTolerance::Never;
        QVERIFY(preemptionToleranceFromString(toString(p), &back));
        QCOMPARE(toString(back), toString(p));
    }
    for (IsolationRequirement i :
         {IsolationRequirement::HardOnly, IsolationRequirement::SoftAllowed}) {
        IsolationRequirement back = IsolationRequirement::HardOnly;
        QVERIFY(isolationRequirementFromString(toString(i), &back));
        QCOMPARE(toString(back), toString(i));
    }
    QCOMPARE(toString(PreemptionTolerance::AtCheckpoint), QStringLiteral("checkpoint"));
    QCOMPARE(toString(IsolationRequirement::HardOnly), QStringLiteral("hard"));
    WorkloadKind untouched = WorkloadKind::Training;
    QVERIFY(!workloadKindFromString(QStringLiteral("Training"), &untouched));
    QCOMPARE(toString(untouched), toString(WorkloadKind::Training));
}

void tst_WorkloadSpecParse::durations_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("ms"); // -1: malformed

    QTest::newRow("seconds") << "45s" << qint64(45'000);
    QTest::newRow("minutes") << "90m" << qint64(5'400'000);
    QTest::newRow("hours and minutes") << "1h30m" << qint64(5'400'000);
    QTest::newRow("decimal hours") << "1.5h" << qint64(5'400'000);
    QTest::newRow("all units") << "1d2h3m4s" << qint64(93'784'000);
    QTest::newRow("half a second") << "0.5s" << qint64(500);
    QTest::newRow("milliseconds as decimals") << "1.001s" << qint64(1001);
    QTest::newRow("zero") << "0s" << qint64(0);
    QTest::newRow("empty") << "" << qint64(-1);
    QTest::newRow("no unit") << "3600" << qint64(-1);
    QTest::newRow("unknown unit") << "2w" << qint64(-1);
    QTest::newRow("ms is not a unit") << "500ms" << qint64(-1);
    QTest::newRow("units out of order") << "30m1h" << qint64(-1);
    QTest::newRow("unit twice") << "1h1h" << qint64(-1);
    QTest::newRow("space") << "1h 30m" << qint64(-1);
    QTest::newRow("negative") << "-5m" << qint64(-1);
    QTest::newRow("upper case") << "5M" << qint64(-1);
    QTest::newRow("bare dot") << ".5h" << qint64(-1);
}

void tst_WorkloadSpecParse::durations()
{
    QFETCH(QString, text);
    QFETCH(qint64, ms);
    const std::optional<qint64> parsed = durationMsFromString(text);
    if (ms < 0) {
        QVERIFY(!parsed);
    } else {
        QVERIFY(parsed);
        QCOMPARE(*parsed, ms);
    }
}

void tst_WorkloadSpecParse::durationText_data()
{
    QTest::addColumn<qint64>("ms");
    QTest::addColumn<QString>("text");
    QTest::newRow("zero") << qint64(0) << "0s";
    QTest::newRow("ninety minutes") << qint64(5'400'000) << "1h30m";
    QTest::newRow("one and a half seconds") << qint64(1500) << "1.5s";
    QTest::newRow("one millisecond") << qint64(1) << "0.001s";
    QTest::newRow("a day and a bit") << qint64(86'400'000 + 61'010) << "1d1m1.01s";
    QTest::newRow("a year") << WorkloadSpecLimits::maxDurationMs << "365d";
}

void tst_WorkloadSpecParse::durationText()
{
    QFETCH(qint64, ms);
    QFETCH(QString, text);
    QCOMPARE(durationToString(ms), text);
    QCOMPARE(durationMsFromString(text), std::optional<qint64>(ms));
}

void tst_WorkloadSpecParse::examplesRoundTrip_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::newRow("training") << QByteArray(trainingExample);
    QTest::newRow("inference") << QByteArray(inferenceExample);
    QTest::newRow("batch") << QByteArray(batchExample);
    QTest::newRow("minimal") << QByteArray(minimalSpec);
    QTest::newRow("slices") << patch(R"({"demand": {"compute": {"slices": 3}, "cards": 2}})");
    QTest::newRow("fraction of one") << computeWith(R"({"fraction": 1})");
    QTest::newRow("deadline with milliseconds")
            << patch(R"({"time": {"deadline": "2030-01-02T03:04:05.678+05:30"}})");
    QTest::newRow("restart with checkpoints")
            << patch(R"({"preemption": "restart", "checkpointInterval": "10m"})");
    QTest::newRow("CPU-only job") << patch(
            R"({"demand": {"cards": 0, "hostCpu": 4, "hostMemoryGiB": 16}})");
    QTest::newRow("CPU-only job, hard isolation")
            << patch(R"({"demand": {"cards": 0, "memoryMiB": 0}, "isolation": "hard"})");
    QTest::newRow("sub-second checkpoint")
            << patch(R"({"preemption": "checkpoint", "checkpointInterval": 0.25})");
    QTest::newRow("unicode name") << patch(R"({"name": "训练任务 #1"})");
    QTest::newRow("no link domain")
            << patch(R"({"affinity": {"sameLinkDomain": false, "cardModels": []}})");

    // run blocks
    QTest::newRow("training with run") << QByteArray(trainingRunExample);
    QTest::newRow("vLLM service") << QByteArray(vllmRunExample);
    QTest::newRow("batch, minimal run") << withRun("batch", R"({"command": ["/usr/bin/true"]})");
    QTest::newRow("batch, never stuck, no grace")
            << withRun("batch",
                       R"({"command": ["job", ""], "progressTimeout": 0, "stopGrace": 0,
                           "stopSignal": "SIGKILL", "logLimit": 65536})");
    QTest::newRow("training, limits at their top")
            << trainRun(R"("progressTimeout": "1d", "stopGrace": "1h", "logLimit": "64GiB")");
    QTest::newRow("inference, vllm preset") << serveRun(R"("metricsPreset": "vllm")");
    QTest::newRow("inference, triton preset") << serveRun(
            R"("metricsPreset": "triton", "metrics": "/metrics", "ready": "/v2/health/ready")");
    QTest::newRow("inference, tgi preset")
            << serveRun(R"("metricsPreset": "tgi", "ready": "/health")");
    QTest::newRow("inference, custom metrics")
            << serveRun(R"("metricsPreset": "custom", "latencyMetric": "app:latency_ms",
                           "queueMetric": "app_queue_depth", "latencyUnit": "ms")");
    QTest::newRow("inference, preset with an override")
            << serveRun(R"("metricsPreset": "triton", "queueMetric": "my_queue")");
    QTest::newRow("inference, fixed port") << patch(R"({"kind": "inference",
                         "inference": {"service": "s", "sloP99Ms": 100, "replicas": {"min": 1, "max": 1}},
                         "run": {"command": ["serve"], "port": 8000, "readyTimeout": "1s"}})");
    QTest::newRow("inference, port auto") << serveRun(R"("port": "auto", "readyTimeout": "1d")");
    QTest::newRow("env with odd values") << trainRun(
            R"("env": {"_X": "", "A1": "a=b c\n\"d\"", "LD_LIBRARY_PATH": "/opt/lib"})");
    QTest::newRow("user with dot, dash and dollar") << trainRun(R"("user": "svc.ai-1$")");
    QTest::newRow("workdir root, sub-second grace")
            << trainRun(R"("workdir": "/", "stopGrace": 0.5)");
}

void tst_WorkloadSpecParse::examplesRoundTrip()
{
    QFETCH(QByteArray, json);
    SpecError error;
    const std::optional<WorkloadSpec> spec = workloadSpecFromJson(json, &error);
    QVERIFY2(spec, qPrintable(error.toString()));
    QVERIFY2(validateWorkloadSpec(*spec, &error), qPrintable(error.toString()));

    const QJsonObject canonical = workloadSpecToJson(*spec);
    const std::optional<WorkloadSpec> fromObject = workloadSpecFromJson(canonical, &error);
    QVERIFY2(fromObject, qPrintable(error.toString()));
    QVERIFY(*fromObject == *spec);

    const QByteArray indented = QJsonDocument(canonical).toJson(QJsonDocument::Indented);
    const std::optional<WorkloadSpec> fromBytes = workloadSpecFromJson(indented, &error);
    QVERIFY2(fromBytes, qPrintable(error.toString()));
    QVERIFY(*fromBytes == *spec);
    QCOMPARE(workloadSpecToJson(*fromBytes), canonical);
}

void tst_WorkloadSpecParse::trainingExampleFields()
{
    SpecError error;
    const auto spec = workloadSpecFromJson(QByteArray(trainingExample), &error);
    QVERIFY2(spec, qPrintable(error.toString()));
    QCOMPARE(spec->name, QStringLiteral("llama-ft-7b"));
    QCOMPARE(toString(spec->kind), toString(WorkloadKind::Training));
    QCOMPARE(spec->demand.compute.kind, ComputeDemand::Kind::WholeCard);
    QCOMPARE(spec->demand.memoryMiB, 35 * 1024);
    QCOMPARE(spec->demand.cards, 4);
    QCOMPARE(spec->demand.hostCpuMilli, 8000);
    QCOMPARE(spec->demand.hostMemoryMiB, 64 * 1024);
    QCOMPARE(spec->time.expectedDurationMs, 6 * 3600 * 1000);
    QCOMPARE(spec->time.deadlineMs, std::optional<qint64>(1796112000000)); // 2026-12-01T08:00:00Z
    QCOMPARE(spec->priority, 100);
    QCOMPARE(toString(spec->preemption), toString(PreemptionTolerance::AtCheckpoint));
    QCOMPARE(spec->checkpointIntervalMs, 30 * 60 * 1000);
    QCOMPARE(spec->affinity.cardModels, QStringList{QStringLiteral("H100-SXM5-80GB")});
    QVERIFY(spec->affinity.sameLinkDomain);
    QCOMPARE(spec->affinity.host, QStringLiteral("node-a"));
    QCOMPARE(toString(spec->isolation), toString(IsolationRequirement::HardOnly));
    QVERIFY(!spec->inference);
}

void tst_WorkloadSpecParse::inferenceExampleFields()
{
    SpecError error;
    const auto spec = workloadSpecFromJson(QByteArray(inferenceExample), &error);
    QVERIFY2(spec, qPrintable(error.toString()));
    QCOMPARE(toString(spec->kind), toString(WorkloadKind::Inference));
    QCOMPARE(spec->demand.compute.kind, ComputeDemand::Kind::MigProfile);
    QCOMPARE(spec->demand.compute.profile, QStringLiteral("3g.40gb"));
    QCOMPARE(spec->demand.memoryMiB, 20480);
    QCOMPARE(spec->demand.hostCpuMilli, 2500);
    QCOMPARE(toString(spec->preemption), toString(PreemptionTolerance::Never));
    QCOMPARE(spec->time.expectedDurationMs, 0);
    QVERIFY(!spec->time.deadlineMs);
    QVERIFY(spec->inference);
    QCOMPARE(spec->inference->service, QStringLiteral("chat"));
    QCOMPARE(spec->inference->sloP99Ms, 250.0);
    QCOMPARE(spec->inference->requestRate, 40.0);
    QCOMPARE(spec->inference->minReplicas, 1);
    QCOMPARE(spec->inference->maxReplicas, 4);
}

void tst_WorkloadSpecParse::batchExampleFields()
{
    SpecError error;
    const auto spec = workloadSpecFromJson(QByteArray(batchExample), &error);
    QVERIFY2(spec, qPrintable(error.toString()));
    QCOMPARE(spec->demand.compute.kind, ComputeDemand::Kind::Fraction);
    QCOMPARE(spec->demand.compute.milli, 250);
    QCOMPARE(spec->demand.memoryMiB, 8704); // 8.5 GiB
    QCOMPARE(spec->demand.hostMemoryMiB, 4096);
    QCOMPARE(spec->time.expectedDurationMs, 5400 * 1000);
    QCOMPARE(spec->time.deadlineMs, std::optional<qint64>(1796076000000)); // 2026-11-30T22:00:00Z
    QCOMPARE(spec->priority, -10);
}

void tst_WorkloadSpecParse::defaults()
{
    SpecError error;
    const auto spec = workloadSpecFromJson(QByteArray(minimalSpec), &error);
    QVERIFY2(spec, qPrintable(error.toString()));
    WorkloadSpec expected;
    expected.name = QStringLiteral("job");
    expected.kind = WorkloadKind::Batch;
    QVERIFY(*spec == expected);
    QCOMPARE(spec->demand.cards, 1);
    QCOMPARE(spec->priority, 0);
    QCOMPARE(toString(spec->preemption), toString(PreemptionTolerance::Restart));
    QCOMPARE(toString(spec->isolation), toString(IsolationRequirement::SoftAllowed));
    QVERIFY(spec->affinity.sameLinkDomain);

    // A lone replicas.min fixes the count; a lone max scales up from one.
    auto inf = workloadSpecFromJson(
            inferenceWith(R"({"service": "s", "sloP99Ms": 100, "replicas": {"min": 3}})"), &error);
    QVERIFY2(inf, qPrintable(error.toString()));
    QCOMPARE(inf->inference->minReplicas, 3);
    QCOMPARE(inf->inference->maxReplicas, 3);
    QCOMPARE(inf->inference->requestRate, 0.0);
    inf = workloadSpecFromJson(
            inferenceWith(R"({"service": "s", "sloP99Ms": 100, "replicas": {"max": 5}})"), &error);
    QVERIFY2(inf, qPrintable(error.toString()));
    QCOMPARE(inf->inference->minReplicas, 1);
    QCOMPARE(inf->inference->maxReplicas, 5);
}

void tst_WorkloadSpecParse::conversions_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("field");
    QTest::addColumn<qint64>("expected");

    QTest::newRow("memoryGiB") << patch(
            R"({"demand": {"compute": {"wholeCard": true}, "memoryGiB": 40}})")
                               << "memoryMiB" << qint64(40960);
    QTest::newRow("fractional memoryGiB")
            << demandWith(R"("memoryGiB": 0.5)") << "memoryMiB" << qint64(512);
    QTest::newRow("memoryMiB") << patch(
            R"({"demand": {"compute": {"wholeCard": true}, "memoryMiB": 1000}})")
                               << "memoryMiB" << qint64(1000);
    QTest::newRow("hostCpu cores")
            << demandWith(R"("hostCpu": 0.25)") << "hostCpuMilli" << qint64(250);
    QTest::newRow("hostCpuMilli") << patch(
            R"({"demand": {"compute": {"wholeCard": true}, "hostCpuMilli": 1500}})")
                                  << "hostCpuMilli" << qint64(1500);
    QTest::newRow("hostMemoryGiB")
            << demandWith(R"("hostMemoryGiB": 2)") << "hostMemoryMiB" << qint64(2048);
    QTest::newRow("fraction rounds to thousandths")
            << computeWith(R"({"fraction": 0.3333})") << "milli" << qint64(333);
    QTest::newRow("integral fraction written as float")
            << computeWith(R"({"slices": 2.0})") << "slices" << qint64(2);
    QTest::newRow("duration seconds") << patch(R"({"time": {"expectedDuration": 90}})")
                                      << "expectedDurationMs" << qint64(90'000);
    QTest::newRow("duration fractional seconds") << patch(R"({"time": {"expectedDuration": 1.5}})")
                                                 << "expectedDurationMs" << qint64(1500);
    QTest::newRow("duration text") << patch(R"({"time": {"expectedDuration": "2d"}})")
                                   << "expectedDurationMs" << qint64(172'800'000);
    QTest::newRow("deadline Z") << patch(R"({"time": {"deadline": "1970-01-01T00:00:01Z"}})")
                                << "deadlineMs" << qint64(1000);
    QTest::newRow("deadline offset")
            << patch(R"({"time": {"deadline": "1970-01-01T08:00:01+08:00"}})") << "deadlineMs"
            << qint64(1000);
    QTest::newRow("deadline negative offset")
            << patch(R"({"time": {"deadline": "2026-01-01T00:00:00-05:00"}})") << "deadlineMs"
            << qint64(1767243600000);
    QTest::newRow("checkpoint interval")
            << patch(R"({"preemption": "checkpoint", "checkpointInterval": "1h30m"})")
            << "checkpointIntervalMs" << qint64(5'400'000);
}

void tst_WorkloadSpecParse::conversions()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, field);
    QFETCH(qint64, expected);
    SpecError error;
    const auto spec = workloadSpecFromJson(json, &error);
    QVERIFY2(spec, qPrintable(error.toString()));
    const QHash<QString, qint64> values{
            {QStringLiteral("memoryMiB"), spec->demand.memoryMiB},
            {QStringLiteral("hostCpuMilli"), spec->demand.hostCpuMilli},
            {QStringLiteral("hostMemoryMiB"), spec->demand.hostMemoryMiB},
            {QStringLiteral("milli"), spec->demand.compute.milli},
            {QStringLiteral("slices"), spec->demand.compute.slices},
            {QStringLiteral("expectedDurationMs"), spec->time.expectedDurationMs},
            {QStringLiteral("deadlineMs"), spec->time.deadlineMs.value_or(-1)},
            {QStringLiteral("checkpointIntervalMs"), spec->checkpointIntervalMs},
    };
    QVERIFY(values.contains(field));
    QCOMPARE(values.value(field), expected);
}

void tst_WorkloadSpecParse::canonicalForm()
{
    SpecError error;
    const auto spec = workloadSpecFromJson(QByteArray(trainingExample), &error);
    QVERIFY2(spec, qPrintable(error.toString()));
    const QJsonObject json = workloadSpecToJson(*spec);
    const QJsonObject demand = json.value(QLatin1String("demand")).toObject();
    QCOMPARE(demand.keys(),
             (QStringList{"cards", "compute", "hostCpuMilli", "hostMemoryMiB", "memoryMiB"}));
    QCOMPARE(demand.value(QLatin1String("memoryMiB")).toInteger(), 35840);
    QCOMPARE(demand.value(QLatin1String("hostCpuMilli")).toInteger(), 8000);
    const QJsonObject time = json.value(QLatin1String("time")).toObject();
    QCOMPARE(time.value(QLatin1String("expectedDuration")).toInteger(), 21600);
    QCOMPARE(time.value(QLatin1String("deadline")).toString(),
             QStringLiteral("2026-12-01T08:00:00Z"));
    QCOMPARE(json.value(QLatin1String("checkpointInterval")).toInteger(), 1800);
    QCOMPARE(json.value(QLatin1String("preemption")).toString(), QStringLiteral("checkpoint"));
    QVERIFY(!json.contains(QLatin1String("inference")));

    // An offset deadline comes out in UTC.
    const auto batch = workloadSpecFromJson(QByteArray(batchExample), &error);
    QVERIFY2(batch, qPrintable(error.toString()));
    QCOMPARE(workloadSpecToJson(*batch)
                     .value(QLatin1String("time"))
                     .toObject()
                     .value(QLatin1String("deadline")),
             QJsonValue(QStringLiteral("2026-11-30T22:00:00Z")));
    QCOMPARE(workloadSpecToJson(*batch)
                     .value(QLatin1String("demand"))
                     .toObject()
                     .value(QLatin1String("compute"))
                     .toObject(),
             QJsonObject({{QLatin1String("fraction"), 0.25}}));
}

void tst_WorkloadSpecParse::malformedBytes_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");

    QTest::newRow("missing colon")
            << QByteArray("{\n  \"name\": \"x\",\n  \"kind\" \"batch\"\n}")
            << "line 3, column 10: JSON syntax error: missing name separator";
    // Qt stops reading at the "e" it expected; the bad literal ends at column 13.
    QTest::newRow("bad literal") << QByteArray("{\n  \"name\": tru\n}")
                                 << "line 2, column 13: JSON syntax error: illegal value";
    QTest::newRow("trailing comma")
            << QByteArray("{\"name\": \"x\",\n}")
            << "line 2, column 1: JSON syntax error: object is missing after a comma";
    QTest::newRow("cut short") << QByteArray("{\"name\": \"x\"\n") << "line 1, column 12:";
    QTest::newRow("garbage after the object")
            << QByteArray("{\"name\": \"x\"} x")
            << "line 1, column 15: JSON syntax error: garbage at the end of the document";
    QTest::newRow("columns count characters")
            << QByteArray("{\"name\": \"训练\" \"kind\": 1}") << "line 1, column 15:";
    QTest::newRow("byte-order mark is not a column")
            << QByteArray("\xEF\xBB\xBF{\"a\" 1}") << "line 1, column 6:";
    QTest::newRow("empty") << QByteArray("") << "empty document";
    QTest::newRow("whitespace only") << QByteArray(" \n ") << "empty document";
    QTest::newRow("array") << QByteArray("[1, 2]") << "expected a JSON object at the top level";
}

void tst_WorkloadSpecParse::malformedBytes()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, message);
    SpecError error;
    QVERIFY(!workloadSpecFromJson(json, &error));
    QCOMPARE(error.field, QString());
    QVERIFY2(error.message.startsWith(message), qPrintable(error.message));
}

void tst_WorkloadSpecParse::duplicateKeys_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("message");

    QTest::newRow("top level") << QByteArray(R"({"name": "a", "kind": "batch", "priority": 1,
"priority": 2, "demand": {"compute": {"wholeCard": true}}})")
                               << "priority"
                               << "line 2, column 1: repeated key; each key may appear once";
    QTest::newRow("nested") << QByteArray(R"({"name": "a", "kind": "batch",
 "demand": {"cards": 1, "compute": {"wholeCard": true}, "cards": 2}})")
                            << "demand.cards"
                            << "line 2, column 57: repeated key";
    QTest::newRow("escaped spelling")
            << QByteArray(R"({"name": "a", "n\u0061me": "b", "kind": "batch"})") << "name"
            << "line 1, column 15: repeated key";
    QTest::newRow("run key") << QByteArray(R"({"name": "a", "kind": "batch",
 "demand": {"compute": {"wholeCard": true}},
 "run": {"command": ["a"], "logLimit": 65536, "logLimit": 65537}})")
                             << "run.logLimit"
                             << "line 3, column 47: repeated key";
    QTest::newRow("environment name") << QByteArray(R"({"name": "a", "kind": "batch",
 "demand": {"compute": {"wholeCard": true}},
 "run": {"command": ["a"], "env": {"PATH": "/bin", "HOME": "/", "PATH": "/usr/bin"}}})")
                                      << "run.env.PATH"
                                      << "line 3, column 65: repeated key";
}

void tst_WorkloadSpecParse::duplicateKeys()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, field);
    QFETCH(QString, message);
    SpecError error;
    QVERIFY(!workloadSpecFromJson(json, &error));
    QCOMPARE(error.field, field);
    QVERIFY2(error.message.startsWith(message), qPrintable(error.message));

    // Equal keys in different objects are not repeats.
    QVERIFY2(workloadSpecFromJson(QByteArray(R"({"name": "a", "kind": "inference",
        "demand": {"compute": {"slices": 1}},
        "inference": {"service": "s", "sloP99Ms": 1, "replicas": {"min": 1, "max": 1}}})"),
                                  &error),
             qPrintable(error.toString()));
}

void tst_WorkloadSpecParse::runExampleFields()
{
    SpecError error;
    const auto spec = workloadSpecFromJson(QByteArray(trainingRunExample), &error);
    QVERIFY2(spec, qPrintable(error.toString()));
    QVERIFY(spec->run);
    const RunSpec &run = *spec->run;
    QCOMPARE(run.command, (QStringList{"zhaoxi-demo-train", "--steps", "20000"}));
    QCOMPARE(run.workdir, QStringLiteral("/srv/jobs/resnet"));
    QCOMPARE(run.env,
             (QMap<QString, QString>{{"OMP_NUM_THREADS", "4"}, {"PYTHONUNBUFFERED", "1"}}));
    QCOMPARE(run.user, QStringLiteral("trainer"));
    QCOMPARE(run.stopSignal, QStringLiteral("SIGINT"));
    QCOMPARE(run.checkpointSignal, QStringLiteral("SIGUSR2"));
    QCOMPARE(run.stopGraceMs, 120'000);
    QCOMPARE(run.logLimitBytes, qint64(512) << 20);
    QCOMPARE(run.progressTimeoutMs, 15 * 60'000);

    const auto service = workloadSpecFromJson(QByteArray(vllmRunExample), &error);
    QVERIFY2(service, qPrintable(error.toString()));
    QVERIFY(service->run);
    QCOMPARE(service->run->command.size(), 3);
    QCOMPARE(service->run->command.at(2),
             QStringLiteral("exec vllm serve model --port \"$ZHAOXI_PORT\""));
    QVERIFY(!service->run->port); // auto
    QCOMPARE(service->run->ready, QStringLiteral("/health"));
    QCOMPARE(service->run->readyTimeoutMs, 15 * 60'000);
    QCOMPARE(toString(service->run->metricsPreset), QStringLiteral("vllm"));
}

void tst_WorkloadSpecParse::runDefaults()
{
    SpecError error;
    auto spec = workloadSpecFromJson(trainRun(), &error);
    QVERIFY2(spec, qPrintable(error.toString()));
    QVERIFY(spec->run);
    RunSpec expected;
    expected.command = {QStringLiteral("train")};
    QVERIFY(*spec->run == expected);
    QCOMPARE(spec->run->workdir, QString());
    QVERIFY(spec->run->env.isEmpty());
    QCOMPARE(spec->run->user, QString());
    QCOMPARE(spec->run->stopSignal, QStringLiteral("SIGTERM"));
    QCOMPARE(spec->run->checkpointSignal, QStringLiteral("SIGUSR1"));
    QCOMPARE(spec->run->stopGraceMs, 30'000);
    QCOMPARE(spec->run->logLimitBytes, 67'108'864);
    QCOMPARE(spec->run->progressTimeoutMs, 600'000);

    spec = workloadSpecFromJson(serveRun(), &error);
    QVERIFY2(spec, qPrintable(error.toString()));
    QVERIFY(spec->run);
    expected.command = {QStringLiteral("serve")};
    QVERIFY(*spec->run == expected);
    QVERIFY(!spec->run->port);
    QCOMPARE(spec->run->ready, QString());
    QCOMPARE(spec->run->readyTimeoutMs, 300'000);
    QCOMPARE(spec->run->metrics, QStringLiteral("/metrics"));
    QCOMPARE(toString(spec->run->metricsPreset), QStringLiteral("vllm"));
    QCOMPARE(spec->run->latencyMetric, QString());
    QCOMPARE(spec->run->queueMetric, QString());
    QVERIFY(!spec->run->latencyUnit);

    // A spec without a run block stays valid and has none.
    spec = workloadSpecFromJson(QByteArray(minimalSpec), &error);
    QVERIFY2(spec, qPrintable(error.toString()));
    QVERIFY(!spec->run);
    QVERIFY(!workloadSpecToJson(*spec).contains(QLatin1String("run")));
}

void tst_WorkloadSpecParse::runCanonicalForm()
{
    SpecError error;
    auto spec
            = workloadSpecFromJson(trainRun(R"("logLimit": "1GiB", "stopGrace": "1m30s")"), &error);
    QVERIFY2(spec, qPrintable(error.toString()));
    QCOMPARE(workloadSpecToJson(*spec).value(QLatin1String("run")).toObject(),
             parse(R"({"command": ["train"], "env": {}, "stopSignal": "SIGTERM",
                       "checkpointSignal": "SIGUSR1", "stopGrace": 90, "logLimit": 1073741824,
                       "progressTimeout": 600})"));

    spec = workloadSpecFromJson(serveRun(), &error);
    QVERIFY2(spec, qPrintable(error.toString()));
    QCOMPARE(workloadSpecToJson(*spec).value(QLatin1String("run")).toObject(),
             parse(R"({"command": ["serve"], "env": {}, "stopSignal": "SIGTERM",
                       "checkpointSignal": "SIGUSR1", "stopGrace": 30, "logLimit": 67108864,
                       "port": "auto", "readyTimeout": 300, "metrics": "/metrics",
                       "metricsPreset": "vllm"})"));

    // Optional keys come out when set; a fixed port as a number.
    spec = workloadSpecFromJson(
            patch(R"({"kind": "inference", "inference": {"service": "s", "sloP99Ms": 100},
                      "run": {"command": ["serve", "-v"], "workdir": "/w", "user": "svc",
                              "env": {"B": "2", "A": "1"}, "port": 9000, "ready": "/ok",
                              "readyTimeout": 0.25e4, "metricsPreset": "tgi",
                              "latencyMetric": "lat", "queueMetric": "q", "latencyUnit": "us"}})"),
            &error);
    QVERIFY2(spec, qPrintable(error.toString()));
    QCOMPARE(workloadSpecToJson(*spec).value(QLatin1String("run")).toObject(),
             parse(R"({"command": ["serve", "-v"], "workdir": "/w", "user": "svc",
                       "env": {"A": "1", "B": "2"}, "stopSignal": "SIGTERM",
                       "checkpointSignal": "SIGUSR1", "stopGrace": 30, "logLimit": 67108864,
                       "port": 9000, "ready": "/ok", "readyTimeout": 2500, "metrics": "/metrics",
                       "metricsPreset": "tgi", "latencyMetric": "lat", "queueMetric": "q",
                       "latencyUnit": "us"})"));
}

void tst_WorkloadSpecParse::cpuOnlyJob()
{
    SpecError error;
    const auto spec = workloadSpecFromJson(
            patch(R"({"demand": {"cards": 0, "hostCpu": 2, "hostMemoryGiB": 8}})"), &error);
    QVERIFY2(spec, qPrintable(error.toString()));
    QCOMPARE(spec->demand.cards, 0);
    QCOMPARE(spec->demand.hostCpuMilli, 2000);
    QCOMPARE(spec->demand.hostMemoryMiB, 8192);
    QVERIFY(!workloadSpecToJson(*spec)
                     .value(QLatin1String("demand"))
                     .toObject()
                     .contains(QLatin1String("compute")));

    // Built in code (as the trace importer does), a CPU-only job's compute demand is left over
    // and ignored: by validation, by the writer and by equality.
    WorkloadSpec s;
    s.name = QStringLiteral("etl");
    s.demand.cards = 0;
    s.demand.compute = {ComputeDemand::Kind::Fraction, {}, 0, 0};
    s.isolation = IsolationRequirement::HardOnly;
    QVERIFY2(validateWorkloadSpec(s, &error), qPrintable(error.toString()));
    const auto back = workloadSpecFromJson(workloadSpecToJson(s), &error);
    QVERIFY2(back, qPrintable(error.toString()));
    QVERIFY(*back == s);
}

void tst_WorkloadSpecParse::equalityIsByMeaning()
{
    ComputeDemand a{ComputeDemand::Kind::WholeCard, QStringLiteral("3g.40gb"), 3, 250};
    ComputeDemand b;
    QVERIFY(a == b);
    a.kind = b.kind = ComputeDemand::Kind::MigSlices;
    b.slices = 3;
    QVERIFY(a == b);
    b.slices = 4;
    QVERIFY(!(a == b));
    a.kind = b.kind = ComputeDemand::Kind::Fraction;
    QVERIFY(!(a == b)); // 250 vs 1000
    b.milli = 250;
    QVERIFY(a == b);
    a.kind = ComputeDemand::Kind::MigProfile;
    QVERIFY(!(a == b));

    WorkloadSpec x;
    WorkloadSpec y;
    QVERIFY(x == y);
    y.time.deadlineMs = 0;
    QVERIFY(!(x == y));
    y = x;
    y.inference = InferenceSpec{};
    QVERIFY(!(x == y));
    y = x;
    y.affinity.cardModels = {QStringLiteral("A100")};
    QVERIFY(!(x == y));

    // run is compared, each of its fields.
    y = x;
    y.run = RunSpec{};
    QVERIFY(!(x == y));
    x.run = RunSpec{};
    QVERIFY(x == y);
    const auto differs = [&](auto change) {
        WorkloadSpec z = x;
        change(*z.run);
        return !(z == x);
    };
    QVERIFY(differs([](RunSpec &r) { r.command = {QStringLiteral("a")}; }));
    QVERIFY(differs([](RunSpec &r) { r.workdir = QStringLiteral("/"); }));
    QVERIFY(differs([](RunSpec &r) { r.env.insert(QStringLiteral("A"), QString()); }));
    QVERIFY(differs([](RunSpec &r) { r.user = QStringLiteral("u"); }));
    QVERIFY(differs([](RunSpec &r) { r.stopSignal = QStringLiteral("SIGINT"); }));
    QVERIFY(differs([](RunSpec &r) { r.checkpointSignal = QStringLiteral("SIGINT"); }));
    QVERIFY(differs([](RunSpec &r) { r.stopGraceMs = 1; }));
    QVERIFY(differs([](RunSpec &r) { r.logLimitBytes = 1 << 20; }));
    QVERIFY(differs([](RunSpec &r) { r.progressTimeoutMs = 0; }));
    QVERIFY(differs([](RunSpec &r) { r.port = 80; }));
    QVERIFY(differs([](RunSpec &r) { r.ready = QStringLiteral("/"); }));
    QVERIFY(differs([](RunSpec &r) { r.readyTimeoutMs = 1000; }));
    QVERIFY(differs([](RunSpec &r) { r.metrics = QStringLiteral("/m"); }));
    QVERIFY(differs([](RunSpec &r) { r.metricsPreset = MetricsPreset::Tgi; }));
    QVERIFY(differs([](RunSpec &r) { r.latencyMetric = QStringLiteral("l"); }));
    QVERIFY(differs([](RunSpec &r) { r.queueMetric = QStringLiteral("q"); }));
    QVERIFY(differs([](RunSpec &r) { r.latencyUnit = LatencyUnit::Seconds; }));
}

void tst_WorkloadSpecParse::randomSpecsRoundTrip()
{
    QRandomGenerator rng(20240607);
    for (int n = 0; n < 3000; ++n) {
        const WorkloadSpec spec = randomSpec(rng);
        const QString which = QStringLiteral("random spec %1: ").arg(n);
        SpecError error;
        if (!validateWorkloadSpec(spec, &error))
            QFAIL(qPrintable(which + error.toString()));

        const QJsonObject json = workloadSpecToJson(spec);
        const std::optional<WorkloadSpec> back = workloadSpecFromJson(json, &error);
        if (!back)
            QFAIL(qPrintable(which + error.toString() + u' ' + QString::fromUtf8(text(json))));
        if (!(*back == spec))
            QFAIL(qPrintable(which + QStringLiteral("differs after a round trip: ")
                             + QString::fromUtf8(text(json))));

        const QByteArray bytes = QJsonDocument(json).toJson(n % 2 ? QJsonDocument::Compact
                                                                  : QJsonDocument::Indented);
        const std::optional<WorkloadSpec> fromBytes = workloadSpecFromJson(bytes, &error);
        if (!fromBytes)
            QFAIL(qPrintable(which + error.toString()));
        if (!(*fromBytes == spec))
            QFAIL(qPrintable(which + QStringLiteral("differs after a round trip through bytes: ")
                             + QString::fromUtf8(bytes)));

        // Durations written as text read back the same.
        if (durationMsFromString(durationToString(spec.time.expectedDurationMs))
            != spec.time.expectedDurationMs) {
            QFAIL(qPrintable(which + durationToString(spec.time.expectedDurationMs)));
        }
    }
}

// docs/workload-spec.md stays true: every JSON example in it reads, and the canonical form it shows
// is what the writer makes of the first example.

void tst_WorkloadSpecParse::docExamplesAreValid()
{
    const QString sourceDir = qEnvironmentVariable("ZHAOXI_SOURCE_DIR");
    if (sourceDir.isEmpty())
        QSKIP("ZHAOXI_SOURCE_DIR is not set (ctest sets it)");
    QFile file(sourceDir + QStringLiteral("/docs/workload-spec.md"));
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.fileName()));
    const QString doc = QString::fromUtf8(file.readAll());

    static const QRegularExpression block(QStringLiteral("```json\\n(.*?)```"),
                                          QRegularExpression::DotMatchesEverythingOption);
    QList<WorkloadSpec> specs;
    for (auto it = block.globalMatch(doc); it.hasNext();) {
        const QByteArray json = it.next().captured(1).toUtf8();
        SpecError error;
        const std::optional<WorkloadSpec> spec = workloadSpecFromJson(json, &error);
        QVERIFY2(spec,
                 qPrintable(error.toString() + QStringLiteral(" in\n") + QString::fromUtf8(json)));
        specs.append(*spec);
    }
    // training, inference, CPU-only, batch, vLLM service, demo training, alternative shapes,
    // canonical
    QCOMPARE(specs.size(), 8);
    QCOMPARE(specs.at(6).shapes.size(), 2);
    QVERIFY(specs.last() == specs.first());
    QCOMPARE(toString(specs.at(1).kind), QStringLiteral("inference"));

    const WorkloadSpec &vllm = specs.at(4);
    QCOMPARE(toString(vllm.kind), QStringLiteral("inference"));
    QVERIFY(vllm.run);
    QCOMPARE(vllm.run->command.first(), QStringLiteral("/bin/sh"));
    QVERIFY(vllm.run->command.last().contains(QLatin1String("--port \"$ZHAOXI_PORT\"")));
    QVERIFY(!vllm.run->port);
    QCOMPARE(metricNamesFor(*vllm.run).latency, QStringLiteral("vllm:e2e_request_latency_seconds"));

    const WorkloadSpec &train = specs.at(5);
    QCOMPARE(toString(train.kind), QStringLiteral("training"));
    QVERIFY(train.run);
    QCOMPARE(train.run->command,
             (QStringList{QStringLiteral("zhaoxi-demo-train"),
                          QStringLiteral("--steps"),
                          QStringLiteral("20000")}));
}

QTEST_GUILESS_MAIN(tst_WorkloadSpecParse)
#include "tst_workloadspec_parse.moc"
