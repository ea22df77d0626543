// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/domain/workloadspec.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTest>

using namespace Zhaoxi::Domain;

namespace {

// The smallest valid spec; error rows replace or remove top-level keys of it.
const char *const minimalSpec
        = R"({"name": "job", "kind": "batch", "demand": {"compute": {"wholeCard": true}}})";

QJsonObject parse(const QByteArray &json)
{
    QJsonParseError e;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &e);
    if (e.error != QJsonParseError::NoError)
        qFatal("bad JSON in a test row: %s", qPrintable(e.errorString()));
    return doc.object();
}

QByteArray text(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

// The minimal spec with the top-level keys of `changes` put in (replacing whole values).
QByteArray patch(const QByteArray &changes)
{
    QJsonObject base = parse(minimalSpec);
    const QJsonObject c = parse(changes);
    for (auto it = c.begin(); it != c.end(); ++it)
        base.insert(it.key(), it.value());
    return text(base);
}

QByteArray without(const char *key)
{
    QJsonObject base = parse(minimalSpec);
    base.remove(QLatin1String(key));
    return text(base);
}

// The minimal spec with these keys added to its demand (after a whole-card compute form).
QByteArray demandWith(const QByteArray &keys)
{
    return patch(R"({"demand": {"compute": {"wholeCard": true}, )" + keys + "}}");
}

// The minimal spec with this compute form.
QByteArray computeWith(const QByteArray &form)
{
    return patch(R"({"demand": {"compute": )" + form + "}}");
}

QByteArray inferenceWith(const QByteArray &inferenceBlock)
{
    return patch(R"({"kind": "inference", "inference": )" + inferenceBlock + "}");
}

// The minimal spec of this kind (an inference one with its block) with this run block.
QByteArray withRun(const QByteArray &kind, const QByteArray &run)
{
    if (kind == "inference") {
        return patch(R"({"kind": "inference", "inference": {"service": "s", "sloP99Ms": 100}, )"
                     R"("run": )"
                     + run + "}");
    }
    return patch(R"({"kind": ")" + kind + R"(", "run": )" + run + "}");
}

// A training run of `train` with these keys added to the run block.
QByteArray trainRun(const QByteArray &keys = {})
{
    return withRun("training",
                   R"({"command": ["train"])"
                           + (keys.isEmpty() ? QByteArray() : QByteArray(", ") + keys) + "}");
}

// An inference run of `serve` with these keys added to the run block.
QByteArray serveRun(const QByteArray &keys = {})
{
    return withRun("inference",
                   R"({"command": ["serve"])"
                           + (keys.isEmpty() ? QByteArray() : QByteArray(", ") + keys) + "}");
}

const char *const trainingRunExample = R"({
  "name": "resnet-demo",
  "kind": "training",
  "demand": {"compute": {"slices": 1}},
  "preemption": "checkpoint",
  "checkpointInterval": "10m",
  "run": {
    "command": ["zhaoxi-demo-train", "--steps", "20000"],
    "workdir": "/srv/jobs/resnet",
    "env": {"OMP_NUM_THREADS": "4", "PYTHONUNBUFFERED": "1"},
    "user": "trainer",
    "stopSignal": "SIGINT",
    "checkpointSignal": "SIGUSR2",
    "stopGrace": "2m",
    "logLimit": "512MiB",
    "progressTimeout": "15m"
  }
})";

const char *const vllmRunExample = R"({
  "name": "llama-chat",
  "kind": "inference",
  "demand": {"compute": {"profile": "3g.40gb"}},
  "preemption": "never",
  "inference": {"service": "chat", "sloP99Ms": 2000, "replicas": {"min": 1, "max": 3}},
  "run": {
    "command": ["/bin/sh", "-c", "exec vllm serve model --port \"$ZHAOXI_PORT\""],
    "env": {"HF_HUB_OFFLINE": "1"},
    "ready": "/health",
    "readyTimeout": "15m"
  }
})";

const char *const trainingExample = R"({
  "name": "llama-ft-7b",
  "kind": "training",
  "demand": {
    "compute": {"wholeCard": true},
    "memoryGiB": 35,
    "cards": 4,
    "hostCpu": 8,
    "hostMemoryGiB": 64
  },
  "time": {"expectedDuration": "6h", "deadline": "2026-12-01T08:00:00Z"},
  "priority": 100,
  "preemption": "checkpoint",
  "checkpointInterval": "30m",
  "affinity": {"cardModels": ["H100-SXM5-80GB"], "sameLinkDomain": true, "host": "node-a"},
  "isolation": "hard"
})";

const char *const inferenceExample = R"({
  "name": "chat-frontend",
  "kind": "inference",
  "demand": {"compute": {"profile": "3g.40gb"}, "memoryMiB": 20480, "hostCpuMilli": 2500},
  "priority": 500,
  "preemption": "never",
  "inference": {"service": "chat", "sloP99Ms": 250, "requestRate": 40, "replicas": {"min": 1, "max": 4}}
})";

const char *const batchExample = R"({
  "name": "nightly-embeddings",
  "kind": "batch",
  "demand": {"compute": {"fraction": 0.25}, "memoryGiB": 8.5, "hostMemoryMiB": 4096},
  "time": {"expectedDuration": 5400, "deadline": "2026-12-01T06:00:00+08:00"},
  "priority": -10
})";

// ---- random valid specs -----------------------------------------------------------------------

QString randomText(QRandomGenerator &rng, int maxLength)
{
    static const QString alphabet
            = QStringLiteral("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                             "0123456789-_.:/ 训练推理批量é\"\\");
    const int length = rng.bounded(1, maxLength + 1);
    QString s;
    for (int i = 0; i < length; ++i)
        s += alphabet.at(rng.bounded(int(alphabet.size())));
    if (s.trimmed().isEmpty())
        s[0] = u'x';
    return s;
}

qint64 randomBelow(QRandomGenerator &rng, qint64 max) // 0..max, often a round value
{
    switch (rng.bounded(4)) {
    case 0:
        return 0;
    case 1:
        return max;
    default:
        return qint64(rng.bounded(quint64(max) + 1));
    }
}

QString randomArgument(QRandomGenerator &rng)
{
    // Arguments may be empty and hold anything but NUL, newlines and quotes included.
    static const QString alphabet = QStringLiteral("abcXYZ019 -_=./$\"'\\\n\t训é");
    const int length = rng.bounded(0, 12);
    QString s;
    for (int i = 0; i < length; ++i)
        s += alphabet.at(rng.bounded(int(alphabet.size())));
    return s;
}

QString randomMetricName(QRandomGenerator &rng)
{
    static const QString first = QStringLiteral("abz_:ABZ");
    static const QString rest = QStringLiteral("abz_:ABZ0189");
    QString s = first.at(rng.bounded(int(first.size())));
    for (int i = rng.bounded(0, 20); i > 0; --i)
        s += rest.at(rng.bounded(int(rest.size())));
    return s;
}

RunSpec randomRun(QRandomGenerator &rng, WorkloadSpec &s)
{
    using L = WorkloadSpecLimits;
    RunSpec r;
    r.command = {rng.bounded(2) ? QStringLiteral("/opt/bin/job") : QStringLiteral("job.py")};
    for (int i = rng.bounded(0, 5); i > 0; --i)
        r.command.append(randomArgument(rng));
    if (rng.bounded(2))
        r.workdir = QStringLiteral("/srv/") + randomArgument(rng);
    for (int i = rng.bounded(0, 4); i > 0; --i)
        r.env.insert(QStringLiteral("V_%1").arg(rng.bounded(100)), randomArgument(rng));
    if (rng.bounded(2))
        r.user = std::array{QStringLiteral("alice"),
                            QStringLiteral("_svc.ai-1"),
                            QStringLiteral("machine$"),
                            QString(32, u'u')}[rng.bounded(4)];
    const QStringList stops = stopSignalNames();
    const QStringList checkpoints = checkpointSignalNames();
    r.stopSignal = stops.at(rng.bounded(int(stops.size())));
    r.checkpointSignal = checkpoints.at(rng.bounded(int(checkpoints.size())));
    r.stopGraceMs = randomBelow(rng, L::maxStopGraceMs);
    r.logLimitBytes
            = L::minLogLimitBytes + randomBelow(rng, L::maxLogLimitBytes - L::minLogLimitBytes);
    if (s.kind != WorkloadKind::Inference) {
        r.progressTimeoutMs = randomBelow(rng, L::maxProgressTimeoutMs);
        return r;
    }
    if (rng.bounded(3) == 0) {
        r.port = rng.bounded(1, L::maxPort + 1);
        s.inference->minReplicas = s.inference->maxReplicas = 1;
    }
    if (rng.bounded(2))
        r.ready = QStringLiteral("/ready/") + randomMetricName(rng);
    r.readyTimeoutMs
            = L::minReadyTimeoutMs + randomBelow(rng, L::maxReadyTimeoutMs - L::minReadyTimeoutMs);
    if (rng.bounded(2))
        r.metrics = QStringLiteral("/m?x=") + randomMetricName(rng);
    r.metricsPreset = MetricsPreset(rng.bounded(4));
    const bool custom = r.metricsPreset == MetricsPreset::Custom;
    if (custom || rng.bounded(2))
        r.latencyMetric = randomMetricName(rng);
    if (custom || rng.bounded(2))
        r.queueMetric = randomMetricName(rng);
    if (!r.latencyMetric.isEmpty() && rng.bounded(2))
        r.latencyUnit = LatencyUnit(rng.bounded(3));
    return r;
}

WorkloadSpec randomSpec(QRandomGenerator &rng)
{
    using L = WorkloadSpecLimits;
    WorkloadSpec s;
    s.name = randomText(rng, L::maxNameLength);
    s.kind = std::array{
            WorkloadKind::Training, WorkloadKind::Inference, WorkloadKind::Batch}[rng.bounded(3)];

    ComputeDemand &c = s.demand.compute;
    c.kind = ComputeDemand::Kind(rng.bounded(4));
    // Leftovers in the fields the kind does not use must not matter.
    c.slices = rng.bounded(100);
    c.profile = QStringLiteral("junk");
    c.milli = rng.bounded(5000);
    switch (c.kind) {
    case ComputeDemand::Kind::WholeCard:
        break;
    case ComputeDemand::Kind::MigProfile:
        c.profile = std::array{QStringLiteral("1g.10gb"),
                               QStringLiteral("3g.40gb"),
                               QStringLiteral("7g.80gb"),
                               QStringLiteral("1g.18gb+me"),
                               QStringLiteral("1g.24gb+gfx")}[rng.bounded(5)];
        break;
    case ComputeDemand::Kind::MigSlices:
        c.slices = rng.bounded(1, 8);
        break;
    case ComputeDemand::Kind::Fraction:
        c.milli = rng.bounded(1, 1001);
        break;
    }
    const bool fraction = c.kind == ComputeDemand::Kind::Fraction;
    // One in eight is a CPU-only job; its compute demand keeps whatever was drawn, unused.
    const bool cpuOnly = rng.bounded(8) == 0;
    s.demand.memoryMiB = cpuOnly ? 0 : randomBelow(rng, L::maxMemoryMiB);
    s.demand.cards = cpuOnly ? 0 : fraction ? 1 : rng.bounded(1, L::maxCards + 1);
    s.demand.hostCpuMilli = randomBelow(rng, L::maxHostCpuMilli);
    s.demand.hostMemoryMiB = randomBelow(rng, L::maxHostMemoryMiB);

    s.time.expectedDurationMs = rng.bounded(2) ? randomBelow(rng, L::maxDurationMs)
                                               : randomBelow(rng, L::maxDurationMs / 1000) * 1000;
    if (rng.bounded(2))
        s.time.deadlineMs = randomBelow(rng, L::maxDeadlineMs);
    s.priority = rng.bounded(L::minPriority, L::maxPriority + 1);
    s.preemption = std::array{PreemptionTolerance::Never,
                              PreemptionTolerance::AtCheckpoint,
                              PreemptionTolerance::Restart}[rng.bounded(3)];
    if (s.preemption == PreemptionTolerance::AtCheckpoint)
        s.checkpointIntervalMs = 1 + randomBelow(rng, L::maxDurationMs - 1);
    else if (rng.bounded(2))
        s.checkpointIntervalMs = randomBelow(rng, L::maxDurationMs);

    const int models = cpuOnly ? 0 : rng.bounded(4);
    for (int i = 0; i < models; ++i)
        s.affinity.cardModels.append(QStringLiteral("model-%1-").arg(i) + randomText(rng, 20));
    s.affinity.sameLinkDomain = rng.bounded(2);
    if (rng.bounded(2))
        s.affinity.host = randomText(rng, 40);
    s.isolation = fraction || rng.bounded(2) ? IsolationRequirement::SoftAllowed
                                             : IsolationRequirement::HardOnly;
    if (s.kind == WorkloadKind::Inference) {
        InferenceSpec i;
        i.service = randomText(rng, 30);
        i.sloP99Ms = rng.bounded(2) ? double(rng.bounded(1, 10000))
                                    : (1.0 - rng.generateDouble()) * L::maxSloP99Ms;
        i.requestRate = rng.bounded(2) ? double(rng.bounded(1000))
                                       : rng.generateDouble() * L::maxRequestRate;
        i.minReplicas = rng.bounded(1, L::maxReplicas + 1);
        i.maxReplicas = rng.bounded(i.minReplicas, L::maxReplicas + 1);
        s.inference = i;
    }
    if (rng.bounded(2))
        s.run = randomRun(rng, s);
    return s;
}

} // namespace

class tst_WorkloadSpec : public QObject
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

    void errors_data();
    void errors();
    void malformedBytes_data();
    void malformedBytes();
    void duplicateKeys_data();
    void duplicateKeys();
    void validateStruct_data();
    void validateStruct();
    void nullErrorPointerIsAllowed();

    void runExampleFields();
    void runDefaults();
    void runCanonicalForm();
    void logLimitSizes_data();
    void logLimitSizes();
    void metricNames_data();
    void metricNames();
    void runErrors_data();
    void runErrors();
    void runValidateStruct_data();
    void runValidateStruct();
    void applianceEnvironmentNames();

    void cpuOnlyJob();
    void equalityIsByMeaning();
    void randomSpecsRoundTrip();
    void docExamplesAreValid();
};

void tst_WorkloadSpec::enumStrings()
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

void tst_WorkloadSpec::durations_data()
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

void tst_WorkloadSpec::durations()
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

void tst_WorkloadSpec::durationText_data()
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

void tst_WorkloadSpec::durationText()
{
    QFETCH(qint64, ms);
    QFETCH(QString, text);
    QCOMPARE(durationToString(ms), text);
    QCOMPARE(durationMsFromString(text), std::optional<qint64>(ms));
}

void tst_WorkloadSpec::examplesRoundTrip_data()
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

void tst_WorkloadSpec::examplesRoundTrip()
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

void tst_WorkloadSpec::trainingExampleFields()
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

void tst_WorkloadSpec::inferenceExampleFields()
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

void tst_WorkloadSpec::batchExampleFields()
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

void tst_WorkloadSpec::defaults()
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

void tst_WorkloadSpec::conversions_data()
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

void tst_WorkloadSpec::conversions()
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

void tst_WorkloadSpec::canonicalForm()
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

void tst_WorkloadSpec::errors_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("message"); // a part of the message

    // required keys and names
    QTest::newRow("name missing") << without("name") << "name"
                                  << "required";
    QTest::newRow("name empty") << patch(R"({"name": ""})") << "name"
                                << "must not be empty";
    QTest::newRow("name blank") << patch(R"({"name": "   "})") << "name"
                                << "must not be empty";
    QTest::newRow("name too long")
            << patch("{\"name\": \"" + QByteArray(129, 'a') + "\"}") << "name"
            << "at most 128 characters, got 129";
    QTest::newRow("name with newline") << patch(R"({"name": "a\nb"})") << "name"
                                       << "control characters";
    // Issue 14: NUL and lone surrogates, as JSON can spell them.
    QTest::newRow("name with NUL") << patch(R"({"name": "a\u0000b"})") << "name"
                                   << "control characters";
    QTest::newRow("name with a lone surrogate")
            << patch(R"({"name": "a\ud800b"})") << "name"
            << "must be valid Unicode (it has a lone surrogate)";
    QTest::newRow("service with a lone low surrogate")
            << patch(R"({"kind": "inference", "inference": {"service": "s\udc00",
                     "sloP99Ms": 100, "replicas": {"min": 1, "max": 2}}})")
            << "inference.service"
            << "lone surrogate";
    QTest::newRow("name not a string") << patch(R"({"name": 7})") << "name"
                                       << "expected a string, got number";
    QTest::newRow("kind missing") << without("kind") << "kind"
                                  << "required";
    QTest::newRow("kind unknown") << patch(R"({"kind": "train"})") << "kind"
                                  << R"(must be one of training, inference, batch, got "train")";
    QTest::newRow("kind is case-sensitive") << patch(R"({"kind": "Batch"})") << "kind"
                                            << "must be one of";
    QTest::newRow("demand missing") << without("demand") << "demand"
                                    << "required";
    QTest::newRow("demand not an object") << patch(R"({"demand": [1]})") << "demand"
                                          << "expected an object, got array";

    // compute forms
    QTest::newRow("compute missing") << patch(R"({"demand": {"cards": 2}})") << "demand.compute"
                                     << "required";
    QTest::newRow("no compute form") << computeWith(R"({})") << "demand.compute"
                                     << "needs one of wholeCard, profile, slices, fraction";
    QTest::newRow("two compute forms")
            << computeWith(R"({"profile": "3g.40gb", "slices": 3})") << "demand.compute"
            << "got profile and slices";
    QTest::newRow("wholeCard false")
            << computeWith(R"({"wholeCard": false})") << "demand.compute.wholeCard"
            << "must be true";
    QTest::newRow("wholeCard string")
            << computeWith(R"({"wholeCard": "yes"})") << "demand.compute.wholeCard"
            << "expected true or false, got string";
    QTest::newRow("slices too many") << computeWith(R"({"slices": 9})") << "demand.compute.slices"
                                     << "must be 1..7, got 9";
    QTest::newRow("slices zero") << computeWith(R"({"slices": 0})") << "demand.compute.slices"
                                 << "must be 1..7, got 0";
    QTest::newRow("slices not integral")
            << computeWith(R"({"slices": 2.5})") << "demand.compute.slices"
            << "expected an integer, got 2.5";
    QTest::newRow("profile malformed")
            << computeWith(R"({"profile": "3G.40GB"})") << "demand.compute.profile"
            << "expected a MIG profile name";
    QTest::newRow("profile empty") << computeWith(R"({"profile": ""})") << "demand.compute.profile"
                                   << "expected a MIG profile name";
    QTest::newRow("fraction zero") << computeWith(R"({"fraction": 0})") << "demand.compute.fraction"
                                   << "must be in (0, 1], got 0";
    QTest::newRow("fraction above one")
            << computeWith(R"({"fraction": 1.5})") << "demand.compute.fraction"
            << "must be in (0, 1], got 1.5";
    QTest::newRow("fraction below granularity")
            << computeWith(R"({"fraction": 0.0001})") << "demand.compute.fraction"
            << "at least 0.001";
    QTest::newRow("fraction as text")
            << computeWith(R"({"fraction": "25%"})") << "demand.compute.fraction"
            << "expected a number, got string";

    // quantities
    QTest::newRow("memory both units") << patch(
            R"({"demand": {"compute": {"wholeCard": true}, "memoryGiB": 1, "memoryMiB": 1024}})")
                                       << "demand.memoryGiB"
                                       << "give memoryGiB or memoryMiB, not both";
    QTest::newRow("memoryGiB negative") << demandWith(R"("memoryGiB": -1)") << "demand.memoryGiB"
                                        << "must be 0..1024, got -1";
    QTest::newRow("memoryMiB meant as GiB")
            << demandWith(R"("memoryGiB": 35840)") << "demand.memoryGiB"
            << "must be 0..1024, got 35840";
    QTest::newRow("memoryMiB fractional") << demandWith(R"("memoryMiB": 1.5)") << "demand.memoryMiB"
                                          << "expected an integer, got 1.5";
    QTest::newRow("cards negative") << demandWith(R"("cards": -1)") << "demand.cards"
                                    << "must be 0..64, got -1";
    QTest::newRow("cards too many") << demandWith(R"("cards": 65)") << "demand.cards"
                                    << "must be 0..64, got 65";
    QTest::newRow("cards huge") << demandWith(R"("cards": 1e30)") << "demand.cards"
                                << "must be 0..64, got 1e+30";
    QTest::newRow("CPU-only job with a compute form")
            << demandWith(R"("cards": 0)") << "demand.compute"
            << "not allowed when cards is 0";
    QTest::newRow("CPU-only job with card memory")
            << patch(R"({"demand": {"cards": 0, "memoryGiB": 4}})") << "demand.memoryGiB"
            << "must be 0 when cards is 0";
    QTest::newRow("CPU-only job with card models")
            << patch(R"({"demand": {"cards": 0}, "affinity": {"cardModels": ["A100"]}})")
            << "affinity.cardModels"
            << "must be empty when demand.cards is 0";
    QTest::newRow("cards as text") << demandWith(R"("cards": "4")") << "demand.cards"
                                   << "expected an integer, got string";
    QTest::newRow("hostCpu both units") << patch(
            R"({"demand": {"compute": {"wholeCard": true}, "hostCpu": 1, "hostCpuMilli": 1000}})")
                                        << "demand.hostCpu"
                                        << "not both";
    QTest::newRow("hostCpu too many") << demandWith(R"("hostCpu": 4096)") << "demand.hostCpu"
                                      << "must be 0..1024, got 4096";
    QTest::newRow("hostMemoryMiB negative")
            << demandWith(R"("hostMemoryMiB": -5)") << "demand.hostMemoryMiB"
            << "must be 0..16777216, got -5";
    QTest::newRow("fraction ganged")
            << patch(R"({"demand": {"compute": {"fraction": 0.5}, "cards": 2}})") << "demand.cards"
            << "must be 1 for a fraction demand";

    // time
    QTest::newRow("time not an object") << patch(R"({"time": "6h"})") << "time"
                                        << "expected an object, got string";
    QTest::newRow("duration malformed")
            << patch(R"({"time": {"expectedDuration": "6 hours"}})") << "time.expectedDuration"
            << R"(got "6 hours")";
    QTest::newRow("duration negative")
            << patch(R"({"time": {"expectedDuration": -60}})") << "time.expectedDuration"
            << "must not be negative, got -60";
    QTest::newRow("duration too long")
            << patch(R"({"time": {"expectedDuration": "400d"}})") << "time.expectedDuration"
            << "must be at most 365d, got 400d";
    QTest::newRow("duration wrong type")
            << patch(R"({"time": {"expectedDuration": true}})") << "time.expectedDuration"
            << "expected a number of seconds or a duration string, got boolean";
    QTest::newRow("deadline without offset")
            << patch(R"({"time": {"deadline": "2026-12-01T08:00:00"}})") << "time.deadline"
            << "needs a UTC offset";
    QTest::newRow("deadline date only")
            << patch(R"({"time": {"deadline": "2026-12-01"}})") << "time.deadline"
            << "needs a UTC offset";
    QTest::newRow("deadline garbage")
            << patch(R"({"time": {"deadline": "next tuesday"}})") << "time.deadline"
            << "expected an ISO-8601 date and time";
    QTest::newRow("deadline as number")
            << patch(R"({"time": {"deadline": 1796112000}})") << "time.deadline"
            << "expected a string, got number";
    QTest::newRow("deadline null") << patch(R"({"time": {"deadline": null}})") << "time.deadline"
                                   << "expected a string, got null";
    QTest::newRow("deadline before 1970")
            << patch(R"({"time": {"deadline": "1969-12-31T23:59:59Z"}})") << "time.deadline"
            << "between 1970 and 9999";

    // priority and preemption
    QTest::newRow("priority as text") << patch(R"({"priority": "high"})") << "priority"
                                      << "expected an integer, got string";
    QTest::newRow("priority too high") << patch(R"({"priority": 1001})") << "priority"
                                       << "must be -1000..1000, got 1001";
    QTest::newRow("priority too low") << patch(R"({"priority": -1001})") << "priority"
                                      << "must be -1000..1000, got -1001";
    QTest::newRow("priority fractional") << patch(R"({"priority": 1.5})") << "priority"
                                         << "expected an integer, got 1.5";
    QTest::newRow("preemption unknown")
            << patch(R"({"preemption": "always"})") << "preemption"
            << R"(must be one of never, checkpoint, restart, got "always")";
    QTest::newRow("checkpoint without interval")
            << patch(R"({"preemption": "checkpoint"})") << "checkpointInterval"
            << R"(required when preemption is "checkpoint")";
    QTest::newRow("checkpoint interval zero")
            << patch(R"({"preemption": "checkpoint", "checkpointInterval": 0})")
            << "checkpointInterval"
            << "required when preemption";
    QTest::newRow("checkpoint interval zero text")
            << patch(R"({"preemption": "checkpoint", "checkpointInterval": "0s"})")
            << "checkpointInterval"
            << "required when preemption";
    QTest::newRow("checkpoint interval negative")
            << patch(R"({"preemption": "never", "checkpointInterval": -5})") << "checkpointInterval"
            << "must not be negative, got -5";
    QTest::newRow("checkpoint interval too long")
            << patch(R"({"checkpointInterval": "366d"})") << "checkpointInterval"
            << "must be at most 365d";

    // affinity and isolation
    QTest::newRow("cardModels not an array")
            << patch(R"({"affinity": {"cardModels": "H100"}})") << "affinity.cardModels"
            << "expected an array, got string";
    QTest::newRow("cardModels element not a string")
            << patch(R"({"affinity": {"cardModels": ["H100", 3]}})") << "affinity.cardModels[1]"
            << "expected a string, got number";
    QTest::newRow("cardModels empty name")
            << patch(R"({"affinity": {"cardModels": [""]}})") << "affinity.cardModels[0]"
            << "must not be empty";
    QTest::newRow("cardModels repeated")
            << patch(R"({"affinity": {"cardModels": ["H100", "h100"]}})")
            << "affinity.cardModels[1]"
            << "repeats";
    QTest::newRow("sameLinkDomain as text")
            << patch(R"({"affinity": {"sameLinkDomain": "yes"}})") << "affinity.sameLinkDomain"
            << "expected true or false";
    QTest::newRow("host empty") << patch(R"({"affinity": {"host": ""}})") << "affinity.host"
                                << "leave the key out";
    QTest::newRow("isolation unknown") << patch(R"({"isolation": "strict"})") << "isolation"
                                       << R"(must be one of hard, soft, got "strict")";
    QTest::newRow("hard fraction")
            << patch(R"({"isolation": "hard", "demand": {"compute": {"fraction": 0.5}}})")
            << "isolation"
            << "cannot be met by a fraction";

    // inference
    QTest::newRow("inference block missing") << patch(R"({"kind": "inference"})") << "inference"
                                             << R"(required when kind is "inference")";
    QTest::newRow("inference block on batch")
            << patch(R"({"inference": {"service": "s", "sloP99Ms": 100}})") << "inference"
            << R"(only allowed when kind is "inference", but it is "batch")";
    QTest::newRow("service missing") << inferenceWith(R"({"sloP99Ms": 100})") << "inference.service"
                                     << "required";
    QTest::newRow("service empty")
            << inferenceWith(R"({"service": "", "sloP99Ms": 100})") << "inference.service"
            << "must not be empty";
    QTest::newRow("slo missing") << inferenceWith(R"({"service": "s"})") << "inference.sloP99Ms"
                                 << "required";
    QTest::newRow("slo zero") << inferenceWith(R"({"service": "s", "sloP99Ms": 0})")
                              << "inference.sloP99Ms"
                              << "must be greater than 0";
    QTest::newRow("slo as text") << inferenceWith(R"({"service": "s", "sloP99Ms": "250ms"})")
                                 << "inference.sloP99Ms"
                                 << "expected a number, got string";
    QTest::newRow("request rate negative")
            << inferenceWith(R"({"service": "s", "sloP99Ms": 100, "requestRate": -1})")
            << "inference.requestRate"
            << "must be 0..";
    QTest::newRow("replicas min zero") << inferenceWith(
            R"({"service": "s", "sloP99Ms": 100, "replicas": {"min": 0, "max": 2}})")
                                       << "inference.replicas.min"
                                       << "must be 1..1024, got 0";
    QTest::newRow("replicas max below min") << inferenceWith(
            R"({"service": "s", "sloP99Ms": 100, "replicas": {"min": 4, "max": 2}})")
                                            << "inference.replicas.max"
                                            << "must be at least min (4), got 2";
    QTest::newRow("replicas max too many")
            << inferenceWith(R"({"service": "s", "sloP99Ms": 100, "replicas": {"max": 2000}})")
            << "inference.replicas.max"
            << "must be 1..1024, got 2000";
    QTest::newRow("replicas as number")
            << inferenceWith(R"({"service": "s", "sloP99Ms": 100, "replicas": 3})")
            << "inference.replicas"
            << "expected an object, got number";

    // unknown keys at every level
    QTest::newRow("unknown top-level key") << patch(R"({"prority": 5})") << "prority"
                                           << R"(unknown key (did you mean "priority"?))";
    QTest::newRow("unknown key without suggestion") << patch(R"({"owner": "ops"})") << "owner"
                                                    << "unknown key";
    QTest::newRow("unknown demand key") << demandWith(R"("gpus": 2)") << "demand.gpus"
                                        << "unknown key";
    QTest::newRow("unknown demand key, case typo")
            << demandWith(R"("memoryGib": 2)") << "demand.memoryGib"
            << R"(did you mean "memoryGiB"?)";
    QTest::newRow("unknown compute key") << computeWith(R"({"slice": 2})") << "demand.compute.slice"
                                         << R"(did you mean "slices"?)";
    QTest::newRow("unknown time key") << patch(R"({"time": {"duration": 60}})") << "time.duration"
                                      << "unknown key";
    QTest::newRow("unknown affinity key")
            << patch(R"({"affinity": {"hosts": ["a"]}})") << "affinity.hosts"
            << R"(did you mean "host"?)";
    QTest::newRow("unknown inference key")
            << inferenceWith(R"({"service": "s", "sloP99Ms": 100, "sloP95Ms": 50})")
            << "inference.sloP95Ms"
            << "unknown key";
    QTest::newRow("unknown replicas key")
            << inferenceWith(R"({"service": "s", "sloP99Ms": 100, "replicas": {"minimum": 1}})")
            << "inference.replicas.minimum"
            << "unknown key";
    // A misspelt required key is reported as the typo, not as the missing key.
    QTest::newRow("typo before missing") << QByteArray(
            R"({"nmae": "x", "kind": "batch", "demand": {"compute": {"wholeCard": true}}})")
                                         << "nmae"
                                         << R"(did you mean "name"?)";
}

void tst_WorkloadSpec::errors()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, field);
    QFETCH(QString, message);
    SpecError error;
    const std::optional<WorkloadSpec> spec = workloadSpecFromJson(json, &error);
    QVERIFY2(!spec, json.constData());
    QCOMPARE(error.field, field);
    QVERIFY2(error.message.contains(message), qPrintable(error.toString()));
    QVERIFY(error.toString().startsWith(field + QStringLiteral(": ")));
}

void tst_WorkloadSpec::malformedBytes_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");

    QTest::newRow("missing colon") << QByteArray("{\n  \"name\": \"x\",\n  \"kind\" \"batch\"\n}")
                                   << "line 3, column 10: missing name separator";
    // Qt stops reading at the "e" it expected; the bad literal ends at column 13.
    QTest::newRow("bad literal") << QByteArray("{\n  \"name\": tru\n}")
                                 << "line 2, column 13: illegal value";
    QTest::newRow("trailing comma") << QByteArray("{\"name\": \"x\",\n}")
                                    << "line 2, column 1: object is missing after a comma";
    QTest::newRow("cut short") << QByteArray("{\"name\": \"x\"\n") << "line 1, column 12:";
    QTest::newRow("garbage after the object")
            << QByteArray("{\"name\": \"x\"} x")
            << "line 1, column 15: garbage at the end of the document";
    QTest::newRow("columns count characters")
            << QByteArray("{\"name\": \"训练\" \"kind\": 1}") << "line 1, column 15:";
    QTest::newRow("byte-order mark is not a column")
            << QByteArray("\xEF\xBB\xBF{\"a\" 1}") << "line 1, column 6:";
    QTest::newRow("empty") << QByteArray("") << "empty document";
    QTest::newRow("whitespace only") << QByteArray(" \n ") << "empty document";
    QTest::newRow("array") << QByteArray("[1, 2]") << "expected a JSON object at the top level";
}

void tst_WorkloadSpec::malformedBytes()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, message);
    SpecError error;
    QVERIFY(!workloadSpecFromJson(json, &error));
    QCOMPARE(error.field, QString());
    QVERIFY2(error.message.startsWith(message), qPrintable(error.message));
}

void tst_WorkloadSpec::duplicateKeys_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("message");

    QTest::newRow("top level") << QByteArray(R"({"name": "a", "kind": "batch", "priority": 1,
"priority": 2, "demand": {"compute": {"wholeCard": true}}})")
                               << "priority"
                               << "repeated key (line 2, column 1)";
    QTest::newRow("nested") << QByteArray(R"({"name": "a", "kind": "batch",
 "demand": {"cards": 1, "compute": {"wholeCard": true}, "cards": 2}})")
                            << "demand.cards"
                            << "repeated key (line 2, column 57)";
    QTest::newRow("escaped spelling")
            << QByteArray(R"({"name": "a", "n\u0061me": "b", "kind": "batch"})") << "name"
            << "repeated key";
    QTest::newRow("run key") << QByteArray(R"({"name": "a", "kind": "batch",
 "demand": {"compute": {"wholeCard": true}},
 "run": {"command": ["a"], "logLimit": 65536, "logLimit": 65537}})")
                             << "run.logLimit"
                             << "repeated key (line 3, column 47)";
    QTest::newRow("environment name") << QByteArray(R"({"name": "a", "kind": "batch",
 "demand": {"compute": {"wholeCard": true}},
 "run": {"command": ["a"], "env": {"PATH": "/bin", "HOME": "/", "PATH": "/usr/bin"}}})")
                                      << "run.env.PATH"
                                      << "repeated key (line 3, column 65)";
}

void tst_WorkloadSpec::duplicateKeys()
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

void tst_WorkloadSpec::validateStruct_data()
{
    QTest::addColumn<int>("mutation");
    QTest::addColumn<QString>("field");

    QTest::newRow("empty name") << 0 << "name";
    QTest::newRow("fraction zero") << 1 << "demand.compute.fraction";
    QTest::newRow("fraction above one") << 2 << "demand.compute.fraction";
    QTest::newRow("slices eight") << 3 << "demand.compute.slices";
    QTest::newRow("bad profile") << 4 << "demand.compute.profile";
    QTest::newRow("negative memory") << 5 << "demand.memoryMiB";
    QTest::newRow("negative duration") << 6 << "time.expectedDuration";
    QTest::newRow("deadline past 9999") << 7 << "time.deadline";
    QTest::newRow("checkpoint without interval") << 8 << "checkpointInterval";
    QTest::newRow("negative checkpoint interval") << 9 << "checkpointInterval";
    QTest::newRow("inference without block") << 10 << "inference";
    QTest::newRow("unknown kind value") << 11 << "kind";
    QTest::newRow("nan slo") << 12 << "inference.sloP99Ms";
    QTest::newRow("fraction ganged") << 13 << "demand.cards";
    QTest::newRow("CPU-only with card memory") << 14 << "demand.memoryMiB";
    QTest::newRow("CPU-only with card models") << 15 << "affinity.cardModels";
    QTest::newRow("negative cards") << 16 << "demand.cards";
}

void tst_WorkloadSpec::validateStruct()
{
    QFETCH(int, mutation);
    QFETCH(QString, field);
    WorkloadSpec s;
    s.name = QStringLiteral("job");
    SpecError error;
    QVERIFY2(validateWorkloadSpec(s, &error), qPrintable(error.toString()));
    switch (mutation) {
    case 0:
        s.name.clear();
        break;
    case 1:
        s.demand.compute = {ComputeDemand::Kind::Fraction, {}, 0, 0};
        break;
    case 2:
        s.demand.compute = {ComputeDemand::Kind::Fraction, {}, 0, 1001};
        break;
    case 3:
        s.demand.compute = {ComputeDemand::Kind::MigSlices, {}, 8, 1000};
        break;
    case 4:
        s.demand.compute = {ComputeDemand::Kind::MigProfile, QStringLiteral("big"), 0, 1000};
        break;
    case 5:
        s.demand.memoryMiB = -1;
        break;
    case 6:
        s.time.expectedDurationMs = -1;
        break;
    case 7:
        s.time.deadlineMs = WorkloadSpecLimits::maxDeadlineMs + 1;
        break;
    case 8:
        s.preemption = PreemptionTolerance::AtCheckpoint;
        break;
    case 9:
        s.preemption = PreemptionTolerance::AtCheckpoint;
        s.checkpointIntervalMs = -1000;
        break;
    case 10:
        s.kind = WorkloadKind::Inference;
        break;
    case 11:
        s.kind = WorkloadKind(42);
        break;
    case 12:
        s.kind = WorkloadKind::Inference;
        s.inference = InferenceSpec{QStringLiteral("s"), std::nan(""), 0, 1, 1};
        break;
    case 13:
        s.demand.compute = {ComputeDemand::Kind::Fraction, {}, 0, 500};
        s.demand.cards = 2;
        break;
    case 14:
        s.demand.cards = 0;
        s.demand.memoryMiB = 1024;
        break;
    case 15:
        s.demand.cards = 0;
        s.affinity.cardModels = {QStringLiteral("A100")};
        break;
    case 16:
        s.demand.cards = -1;
        break;
    }
    QVERIFY(!validateWorkloadSpec(s, &error));
    QCOMPARE(error.field, field);
}

void tst_WorkloadSpec::nullErrorPointerIsAllowed()
{
    QVERIFY(!workloadSpecFromJson(QByteArray("{"), nullptr));
    QVERIFY(!workloadSpecFromJson(patch(R"({"priority": "x"})"), nullptr));
    QVERIFY(workloadSpecFromJson(QByteArray(minimalSpec), nullptr));
    QVERIFY(!validateWorkloadSpec(WorkloadSpec{}, nullptr));
}

void tst_WorkloadSpec::runExampleFields()
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

void tst_WorkloadSpec::runDefaults()
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

void tst_WorkloadSpec::runCanonicalForm()
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

void tst_WorkloadSpec::logLimitSizes_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<qint64>("bytes");
    QTest::newRow("bytes") << QByteArray("1000000") << qint64(1'000'000);
    QTest::newRow("bytes as a float") << QByteArray("1e6") << qint64(1'000'000);
    QTest::newRow("smallest") << QByteArray("65536") << qint64(65536);
    QTest::newRow("largest") << QByteArray("68719476736") << qint64(68'719'476'736);
    QTest::newRow("KiB") << QByteArray(R"("512KiB")") << qint64(512 * 1024);
    QTest::newRow("MiB") << QByteArray(R"("64MiB")") << qint64(64 << 20);
    QTest::newRow("GiB") << QByteArray(R"("2GiB")") << (qint64(2) << 30);
    QTest::newRow("leading zeros") << QByteArray(R"("0064KiB")") << qint64(64 * 1024);
    QTest::newRow("64 GiB in KiB") << QByteArray(R"("67108864KiB")") << qint64(64) * (1 << 30);
}

void tst_WorkloadSpec::logLimitSizes()
{
    QFETCH(QByteArray, value);
    QFETCH(qint64, bytes);
    SpecError error;
    const auto spec = workloadSpecFromJson(trainRun(R"("logLimit": )" + value), &error);
    QVERIFY2(spec, qPrintable(error.toString()));
    QCOMPARE(spec->run->logLimitBytes, bytes);
}

void tst_WorkloadSpec::metricNames_data()
{
    QTest::addColumn<QByteArray>("keys"); // added to an inference run block
    QTest::addColumn<QString>("latency");
    QTest::addColumn<bool>("histogram");
    QTest::addColumn<QString>("count");
    QTest::addColumn<QString>("unit");
    QTest::addColumn<QString>("queue");

    QTest::newRow("default is vllm")
            << QByteArray() << "vllm:e2e_request_latency_seconds" << true << ""
            << "s"
            << "vllm:num_requests_waiting";
    QTest::newRow("triton") << QByteArray(R"("metricsPreset": "triton")")
                            << "nv_inference_request_duration_us" << false
                            << "nv_inference_request_success"
                            << "us"
                            << "nv_inference_pending_request_count";
    QTest::newRow("tgi") << QByteArray(R"("metricsPreset": "tgi")") << "tgi_request_duration"
                         << true << ""
                         << "s"
                         << "tgi_queue_size";
    QTest::newRow("custom") << QByteArray(R"("metricsPreset": "custom", "latencyMetric": "a:lat",
                                              "queueMetric": "q_len")")
                            << "a:lat" << true << ""
                            << "s"
                            << "q_len";
    QTest::newRow("custom in ms") << QByteArray(
            R"("metricsPreset": "custom", "latencyMetric": "lat_ms",
                             "queueMetric": "q", "latencyUnit": "ms")")
                                  << "lat_ms" << true << ""
                                  << "ms"
                                  << "q";
    QTest::newRow("vllm, queue overridden")
            << QByteArray(R"("queueMetric": "vllm:num_requests_running")")
            << "vllm:e2e_request_latency_seconds" << true << ""
            << "s"
            << "vllm:num_requests_running";
    QTest::newRow("triton, latency overridden, unit kept")
            << QByteArray(R"("metricsPreset": "triton",
                             "latencyMetric": "nv_inference_compute_infer_duration_us")")
            << "nv_inference_compute_infer_duration_us" << false << "nv_inference_request_success"
            << "us"
            << "nv_inference_pending_request_count";
    QTest::newRow("tgi, latency overridden in ms")
            << QByteArray(R"("metricsPreset": "tgi", "latencyMetric": "tgi_x_ms",
                             "latencyUnit": "ms")")
            << "tgi_x_ms" << true << ""
            << "ms"
            << "tgi_queue_size";
}

void tst_WorkloadSpec::metricNames()
{
    QFETCH(QByteArray, keys);
    QFETCH(QString, latency);
    QFETCH(bool, histogram);
    QFETCH(QString, count);
    QFETCH(QString, unit);
    QFETCH(QString, queue);
    SpecError error;
    const auto spec = workloadSpecFromJson(serveRun(keys), &error);
    QVERIFY2(spec, qPrintable(error.toString()));
    const MetricNames names = metricNamesFor(*spec->run);
    QCOMPARE(names.latency, latency);
    QCOMPARE(names.latencyKind == MetricNames::LatencyKind::Histogram, histogram);
    QCOMPARE(names.latencyCount, count);
    QCOMPARE(toString(names.latencyUnit), unit);
    QCOMPARE(names.queue, queue);

    QCOMPARE(secondsPer(LatencyUnit::Seconds), 1.0);
    QCOMPARE(secondsPer(LatencyUnit::Milliseconds), 1e-3);
    QCOMPARE(secondsPer(LatencyUnit::Microseconds), 1e-6);
    for (MetricsPreset p :
         {MetricsPreset::Vllm, MetricsPreset::Triton, MetricsPreset::Tgi, MetricsPreset::Custom}) {
        MetricsPreset back = MetricsPreset::Custom;
        QVERIFY(metricsPresetFromString(toString(p), &back));
        QCOMPARE(toString(back), toString(p));
    }
    LatencyUnit u = LatencyUnit::Seconds;
    QVERIFY(latencyUnitFromString(QStringLiteral("us"), &u));
    QCOMPARE(toString(u), QStringLiteral("us"));
    QVERIFY(!latencyUnitFromString(QStringLiteral("µs"), &u));
    QCOMPARE(toString(u), QStringLiteral("us"));
}

void tst_WorkloadSpec::runErrors_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("error"); // the whole of SpecError::toString()

    const QString signals = QStringLiteral("SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2");
    const QString logRange = QStringLiteral("must be 64KiB..64GiB (65536..68719476736 bytes)");

    // the block and its keys
    QTest::newRow("run not an object")
            << patch(R"({"run": ["train"]})") << "run: expected an object, got array";
    QTest::newRow("run null") << patch(R"({"run": null})") << "run: expected an object, got null";
    QTest::newRow("unknown key") << trainRun(R"("cwd": "/")") << "run.cwd: unknown key";
    QTest::newRow("unknown key, suggestion")
            << trainRun(R"("stopgrace": 5)")
            << R"(run.stopgrace: unknown key (did you mean "stopGrace"?))";
    QTest::newRow("unknown key, suggestion among inference keys")
            << serveRun(R"("readyTimout": 5)")
            << R"(run.readyTimout: unknown key (did you mean "readyTimeout"?))";
    QTest::newRow("typo before missing command")
            << withRun("batch", R"({"comand": ["x"]})")
            << R"(run.comand: unknown key (did you mean "command"?))";

    // command
    QTest::newRow("command missing") << withRun("batch", "{}") << "run.command: required";
    QTest::newRow("command a string") << withRun("batch", R"({"command": "train --fast"})")
                                      << "run.command: expected an array, got string";
    QTest::newRow("command empty") << withRun("batch", R"({"command": []})")
                                   << "run.command: must not be empty; give the program and its "
                                      "arguments";
    QTest::newRow("command element a number")
            << withRun("batch", R"({"command": ["train", "--steps", 20000]})")
            << "run.command[2]: expected a string, got number";
    QTest::newRow("command element null") << withRun("batch", R"({"command": ["train", null]})")
                                          << "run.command[1]: expected a string, got null";
    QTest::newRow("program empty") << withRun("batch", R"({"command": ["", "x"]})")
                                   << "run.command[0]: must not be empty; it is the program to run";
    QTest::newRow("program relative path")
            << withRun("batch", R"({"command": ["bin/train"]})")
            << R"(run.command[0]: must be an absolute path or a program name looked up in PATH, got "bin/train")";
    QTest::newRow("program dot slash")
            << withRun("batch", R"({"command": ["./train.sh"]})")
            << R"(run.command[0]: must be an absolute path or a program name looked up in PATH, got "./train.sh")";
    QTest::newRow("NUL in an argument")
            << withRun("batch", R"({"command": ["train", "a", "b\u0000c"]})")
            << "run.command[2]: must not contain a NUL character";
    QTest::newRow("NUL in the program") << withRun("batch", R"({"command": ["tr\u0000ain"]})")
                                        << "run.command[0]: must not contain a NUL character";

    // workdir and user
    QTest::newRow("workdir relative")
            << trainRun(R"("workdir": "data")")
            << R"(run.workdir: must be an absolute path (starting with "/"), got "data")";
    QTest::newRow("workdir empty")
            << trainRun(R"("workdir": "")")
            << R"(run.workdir: must be an absolute path (starting with "/"), got "")";
    QTest::newRow("workdir a number")
            << trainRun(R"("workdir": 1)") << "run.workdir: expected a string, got number";
    QTest::newRow("workdir with NUL") << trainRun(R"("workdir": "/a\u0000b")")
                                      << "run.workdir: must not contain a NUL character";
    const QString userRule = QStringLiteral(
            R"(must be a POSIX user name (lower-case letters, digits, "_", "." and "-", not starting with a digit, "." or "-", optionally ending in "$"))");
    QTest::newRow("user empty") << trainRun(R"("user": "")")
                                << "run.user: must not be empty; leave the key out to run as the "
                                   "appliance's default account";
    QTest::newRow("user upper case")
            << trainRun(R"("user": "Alice")") << "run.user: " + userRule + R"(, got "Alice")";
    QTest::newRow("user starts with a digit")
            << trainRun(R"("user": "1ab")") << "run.user: " + userRule + R"(, got "1ab")";
    QTest::newRow("user starts with a dash")
            << trainRun(R"("user": "-x")") << "run.user: " + userRule + R"(, got "-x")";
    QTest::newRow("user with a space")
            << trainRun(R"("user": "a b")") << "run.user: " + userRule + R"(, got "a b")";
    QTest::newRow("user dollar inside")
            << trainRun(R"("user": "a$b")") << "run.user: " + userRule + R"(, got "a$b")";
    QTest::newRow("user too long") << trainRun(R"("user": ")" + QByteArray(33, 'u') + R"(")")
                                   << "run.user: must be at most 32 characters, got 33";
    QTest::newRow("user a number")
            << trainRun(R"("user": 0)") << "run.user: expected a string, got number";

    // env
    QTest::newRow("env not an object")
            << trainRun(R"("env": ["A=1"])") << "run.env: expected an object, got array";
    QTest::newRow("env value a number") << trainRun(R"("env": {"THREADS": 4})")
                                        << "run.env.THREADS: expected a string, got number";
    QTest::newRow("env value null")
            << trainRun(R"("env": {"X": null})") << "run.env.X: expected a string, got null";
    const QString badName = QStringLiteral(
            R"(not a valid environment variable name (letters, digits and "_", not starting with a digit))");
    QTest::newRow("env name starts with a digit")
            << trainRun(R"("env": {"2PATH": "x"})") << "run.env.2PATH: " + badName;
    QTest::newRow("env name with a dash")
            << trainRun(R"("env": {"MY-VAR": "x"})") << "run.env.MY-VAR: " + badName;
    QTest::newRow("env name with =")
            << trainRun(R"("env": {"A=B": "x"})") << "run.env.A=B: " + badName;
    QTest::newRow("env name empty") << trainRun(R"("env": {"": "x"})") << "run.env.: " + badName;
    QTest::newRow("env name non-ASCII")
            << trainRun(R"("env": {"É": "x"})") << "run.env.É: " + badName;
    QTest::newRow("env value with NUL") << trainRun(R"("env": {"PATH2x": "a\u0000"})")
                                        << "run.env.PATH2x: must not contain a NUL character";
    const QString zhaoxi
            = QStringLiteral("names starting with ZHAOXI_ are set by the appliance; leave it out");
    QTest::newRow("env ZHAOXI_PORT")
            << serveRun(R"("env": {"ZHAOXI_PORT": "80"})") << "run.env.ZHAOXI_PORT: " + zhaoxi;
    QTest::newRow("env ZHAOXI_ anything")
            << trainRun(R"("env": {"ZHAOXI_FOO": ""})") << "run.env.ZHAOXI_FOO: " + zhaoxi;
    const QString device = QStringLiteral(
            "set by the appliance, from the card, partition or share it gives each unit; leave "
            "it out");
    for (const char *name : {"CUDA_VISIBLE_DEVICES",
                             "NVIDIA_VISIBLE_DEVICES",
                             "CUDA_MPS_PIPE_DIRECTORY",
                             "CUDA_MPS_LOG_DIRECTORY",
                             "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
                             "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"}) {
        QTest::addRow("env %s", name) << trainRun(R"("env": {")" + QByteArray(name) + R"(": "0"})")
                                      << "run.env." + QLatin1String(name) + ": " + device;
    }

    // signals
    QTest::newRow("stopSignal unknown")
            << trainRun(R"("stopSignal": "SIGSTOP")")
            << R"(run.stopSignal: must be one of )" + signals + R"(, SIGKILL, got "SIGSTOP")";
    QTest::newRow("stopSignal without SIG")
            << trainRun(R"("stopSignal": "TERM")")
            << R"(run.stopSignal: must be one of )" + signals
                       + R"(, SIGKILL, got "TERM" (did you mean "SIGTERM"?))";
    QTest::newRow("stopSignal lower case")
            << trainRun(R"("stopSignal": "sigint")")
            << R"(run.stopSignal: must be one of )" + signals
                       + R"(, SIGKILL, got "sigint" (did you mean "SIGINT"?))";
    QTest::newRow("stopSignal as a number")
            << trainRun(R"("stopSignal": 15)") << "run.stopSignal: expected a string, got number";
    QTest::newRow("checkpointSignal SIGKILL")
            << trainRun(R"("checkpointSignal": "SIGKILL")")
            << R"(run.checkpointSignal: must be one of )" + signals
                       + R"(, got "SIGKILL" (SIGKILL cannot be caught, so it cannot ask for anything))";
    QTest::newRow("checkpointSignal unknown")
            << trainRun(R"("checkpointSignal": "SIGUSR3")")
            << R"(run.checkpointSignal: must be one of )" + signals + R"(, got "SIGUSR3")";

    // durations and sizes
    QTest::newRow("stopGrace too long")
            << trainRun(R"("stopGrace": "2h")") << "run.stopGrace: must be 0s..1h, got 2h";
    QTest::newRow("stopGrace negative")
            << trainRun(R"("stopGrace": -1)") << "run.stopGrace: must not be negative, got -1";
    QTest::newRow("stopGrace malformed")
            << trainRun(R"("stopGrace": "30 s")")
            << R"(run.stopGrace: expected a duration such as "90m" or "1h30m" (units d, h, m, s, largest first), got "30 s")";
    QTest::newRow("stopGrace boolean")
            << trainRun(R"("stopGrace": true)")
            << "run.stopGrace: expected a number of seconds or a duration string, got boolean";
    QTest::newRow("progressTimeout too long") << trainRun(R"("progressTimeout": "1d1s")")
                                              << "run.progressTimeout: must be 0s..1d, got 1d1s";
    QTest::newRow("progressTimeout on inference")
            << serveRun(R"("progressTimeout": "5m")")
            << R"(run.progressTimeout: only allowed when kind is "training" or "batch", but it is "inference")";
    QTest::newRow("logLimit too small")
            << trainRun(R"("logLimit": 1000)") << "run.logLimit: " + logRange + ", got 1000";
    QTest::newRow("logLimit too small as text") << trainRun(R"("logLimit": "63KiB")")
                                                << "run.logLimit: " + logRange + R"(, got "63KiB")";
    QTest::newRow("logLimit too large") << trainRun(R"("logLimit": "65GiB")")
                                        << "run.logLimit: " + logRange + R"(, got "65GiB")";
    QTest::newRow("logLimit overflowing")
            << trainRun(R"("logLimit": "99999999999999999999GiB")")
            << "run.logLimit: " + logRange + R"(, got "99999999999999999999GiB")";
    QTest::newRow("logLimit huge number")
            << trainRun(R"("logLimit": 1e30)") << "run.logLimit: " + logRange + ", got 1e+30";
    QTest::newRow("logLimit negative")
            << trainRun(R"("logLimit": -65536)") << "run.logLimit: " + logRange + ", got -65536";
    QTest::newRow("logLimit fractional")
            << trainRun(R"("logLimit": 65536.5)")
            << "run.logLimit: expected an integer number of bytes, got 65536.5";
    const QString sizeSyntax = QStringLiteral(
            R"(run.logLimit: expected a number of bytes or a size such as "512KiB", "64MiB" or "2GiB" (a whole number and KiB, MiB or GiB), got )");
    QTest::newRow("logLimit decimal unit")
            << trainRun(R"("logLimit": "64MB")") << sizeSyntax + R"("64MB")";
    QTest::newRow("logLimit fractional text")
            << trainRun(R"("logLimit": "1.5GiB")") << sizeSyntax + R"("1.5GiB")";
    QTest::newRow("logLimit with a space")
            << trainRun(R"("logLimit": "64 MiB")") << sizeSyntax + R"("64 MiB")";
    QTest::newRow("logLimit digits as text")
            << trainRun(R"("logLimit": "65536")") << sizeSyntax + R"("65536")";
    QTest::newRow("logLimit lower-case unit")
            << trainRun(R"("logLimit": "64mib")") << sizeSyntax + R"("64mib")";
    QTest::newRow("logLimit TiB") << trainRun(R"("logLimit": "1TiB")") << sizeSyntax + R"("1TiB")";
    QTest::newRow("logLimit boolean")
            << trainRun(R"("logLimit": false)")
            << R"(run.logLimit: expected a number of bytes or a size such as "64MiB", got boolean)";

    // inference-only keys on other kinds
    for (const char *key : {"port",
                            "ready",
                            "readyTimeout",
                            "metrics",
                            "metricsPreset",
                            "latencyMetric",
                            "queueMetric",
                            "latencyUnit"}) {
        QTest::addRow("%s on training", key)
                << trainRun(R"(")" + QByteArray(key) + R"(": "x")")
                << "run." + QLatin1String(key)
                           + R"(: only allowed when kind is "inference", but it is "training")";
    }
    QTest::newRow("port on batch")
            << withRun("batch", R"({"command": ["x"], "port": 80})")
            << R"(run.port: only allowed when kind is "inference", but it is "batch")";

    // port
    QTest::newRow("port too large")
            << serveRun(R"("port": 70000)") << R"(run.port: must be "auto" or 1..65535, got 70000)";
    QTest::newRow("port zero") << serveRun(R"("port": 0)")
                               << R"(run.port: must be "auto" or 1..65535, got 0)";
    QTest::newRow("port fractional")
            << serveRun(R"("port": 80.5)") << R"(run.port: must be "auto" or 1..65535, got 80.5)";
    QTest::newRow("port as text") << serveRun(R"("port": "8000")")
                                  << R"(run.port: must be "auto" or 1..65535, got "8000")";
    QTest::newRow("port Auto") << serveRun(R"("port": "Auto")")
                               << R"(run.port: must be "auto" or 1..65535, got "Auto")";
    QTest::newRow("port boolean") << serveRun(R"("port": true)")
                                  << R"(run.port: expected "auto" or an integer, got boolean)";
    QTest::newRow("fixed port with replicas")
            << patch(R"({"kind": "inference",
                         "inference": {"service": "s", "sloP99Ms": 100, "replicas": {"min": 1, "max": 4}},
                         "run": {"command": ["serve"], "port": 8000}})")
            << R"(inference.replicas.max: must be 1 when run.port is fixed (8000): two replicas on one host cannot listen on the same port; use "port": "auto" to scale, got 4)";
    QTest::newRow("fixed port with a fixed count of two")
            << patch(R"({"kind": "inference",
                         "inference": {"service": "s", "sloP99Ms": 100, "replicas": {"min": 2}},
                         "run": {"command": ["serve"], "port": 443}})")
            << R"(inference.replicas.max: must be 1 when run.port is fixed (443): two replicas on one host cannot listen on the same port; use "port": "auto" to scale, got 2)";

    // readiness and metrics
    QTest::newRow("ready without slash")
            << serveRun(R"("ready": "health")")
            << R"(run.ready: must be an HTTP path starting with "/", got "health")";
    QTest::newRow("ready empty") << serveRun(R"("ready": "")")
                                 << R"(run.ready: must be an HTTP path starting with "/", got "")";
    QTest::newRow("ready a URL")
            << serveRun(R"("ready": "http://localhost/health")")
            << R"(run.ready: must be an HTTP path starting with "/", got "http://localhost/health")";
    QTest::newRow("ready with a space")
            << serveRun(R"("ready": "/a b")")
            << "run.ready: must not contain spaces or control characters";
    QTest::newRow("ready boolean")
            << serveRun(R"("ready": true)") << "run.ready: expected a string, got boolean";
    QTest::newRow("readyTimeout zero")
            << serveRun(R"("readyTimeout": 0)") << "run.readyTimeout: must be 1s..1d, got 0s";
    QTest::newRow("readyTimeout too short") << serveRun(R"("readyTimeout": "0.5s")")
                                            << "run.readyTimeout: must be 1s..1d, got 0.5s";
    QTest::newRow("readyTimeout too long")
            << serveRun(R"("readyTimeout": "2d")") << "run.readyTimeout: must be 1s..1d, got 2d";
    QTest::newRow("metrics without slash")
            << serveRun(R"("metrics": "metrics")")
            << R"(run.metrics: must be an HTTP path starting with "/", got "metrics")";
    QTest::newRow("metrics empty")
            << serveRun(R"("metrics": "")")
            << R"(run.metrics: must be an HTTP path starting with "/", got "")";
    QTest::newRow("metrics with a newline")
            << serveRun(R"("metrics": "/m\n")")
            << "run.metrics: must not contain spaces or control characters";
    QTest::newRow("metricsPreset unknown")
            << serveRun(R"("metricsPreset": "sglang")")
            << R"(run.metricsPreset: must be one of vllm, triton, tgi, custom, got "sglang")";
    QTest::newRow("metricsPreset is case-sensitive")
            << serveRun(R"("metricsPreset": "vLLM")")
            << R"(run.metricsPreset: must be one of vllm, triton, tgi, custom, got "vLLM")";
    const QString metricRule
            = QStringLiteral("must be a Prometheus metric name ([a-zA-Z_:][a-zA-Z0-9_:]*), got ");
    QTest::newRow("latencyMetric with a dash")
            << serveRun(R"("latencyMetric": "req-latency")")
            << "run.latencyMetric: " + metricRule + R"("req-latency")";
    QTest::newRow("latencyMetric starts with a digit")
            << serveRun(R"("latencyMetric": "9lat")")
            << "run.latencyMetric: " + metricRule + R"("9lat")";
    QTest::newRow("latencyMetric empty")
            << serveRun(R"("latencyMetric": "")") << "run.latencyMetric: " + metricRule + R"("")";
    QTest::newRow("latencyMetric with labels")
            << serveRun(R"("latencyMetric": "lat{model=\"x\"}")")
            << "run.latencyMetric: " + metricRule + R"("lat{model="x"}")";
    QTest::newRow("queueMetric with a dot") << serveRun(R"("queueMetric": "queue.size")")
                                            << "run.queueMetric: " + metricRule + R"("queue.size")";
    QTest::newRow("queueMetric a number")
            << serveRun(R"("queueMetric": 1)") << "run.queueMetric: expected a string, got number";
    const QString customWhy = QStringLiteral(
            R"(required when metricsPreset is "custom" (there are no preset names to fall back on))");
    QTest::newRow("custom without metrics")
            << serveRun(R"("metricsPreset": "custom")") << "run.latencyMetric: " + customWhy;
    QTest::newRow("custom without queue")
            << serveRun(R"("metricsPreset": "custom", "latencyMetric": "lat")")
            << "run.queueMetric: " + customWhy;
    QTest::newRow("custom without latency")
            << serveRun(R"("metricsPreset": "custom", "queueMetric": "q")")
            << "run.latencyMetric: " + customWhy;
    QTest::newRow("latencyUnit without latencyMetric")
            << serveRun(R"("latencyUnit": "ms")")
            << R"(run.latencyUnit: only allowed with run.latencyMetric; the preset "vllm" fixes the unit of its own metric (s))";
    QTest::newRow("latencyUnit with triton preset only")
            << serveRun(R"("metricsPreset": "triton", "queueMetric": "q", "latencyUnit": "s")")
            << R"(run.latencyUnit: only allowed with run.latencyMetric; the preset "triton" fixes the unit of its own metric (us))";
    QTest::newRow("latencyUnit unknown")
            << serveRun(R"("latencyMetric": "lat", "latencyUnit": "ns")")
            << R"(run.latencyUnit: must be one of s, ms, us, got "ns")";
    QTest::newRow("latencyUnit µs") << serveRun(R"("latencyMetric": "lat", "latencyUnit": "µs")")
                                    << R"(run.latencyUnit: must be one of s, ms, us, got "µs")";
}

void tst_WorkloadSpec::runErrors()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, error);
    SpecError e;
    QVERIFY2(!workloadSpecFromJson(json, &e), json.constData());
    QCOMPARE(e.toString(), error);
    // The object overload says the same.
    SpecError fromObject;
    QVERIFY(!workloadSpecFromJson(parse(json), &fromObject));
    QCOMPARE(fromObject.toString(), error);
}

void tst_WorkloadSpec::runValidateStruct_data()
{
    QTest::addColumn<int>("mutation");
    QTest::addColumn<QString>("field");

    QTest::newRow("no command") << 0 << "run.command";
    QTest::newRow("empty program") << 1 << "run.command[0]";
    QTest::newRow("NUL in an argument") << 2 << "run.command[1]";
    QTest::newRow("relative workdir") << 3 << "run.workdir";
    QTest::newRow("reserved environment name") << 4 << "run.env.CUDA_VISIBLE_DEVICES";
    QTest::newRow("bad environment name") << 5 << "run.env.A B";
    QTest::newRow("bad user") << 6 << "run.user";
    QTest::newRow("stop signal by number") << 7 << "run.stopSignal";
    QTest::newRow("checkpoint with SIGKILL") << 8 << "run.checkpointSignal";
    QTest::newRow("negative grace") << 9 << "run.stopGrace";
    QTest::newRow("log limit too small") << 10 << "run.logLimit";
    QTest::newRow("progress timeout too long") << 11 << "run.progressTimeout";
    QTest::newRow("port on training") << 12 << "run.port";
    QTest::newRow("ready on training") << 13 << "run.ready";
    QTest::newRow("preset on training") << 14 << "run.metricsPreset";
    QTest::newRow("ready timeout on training") << 15 << "run.readyTimeout";
    QTest::newRow("progress timeout on inference") << 16 << "run.progressTimeout";
    QTest::newRow("port out of range") << 17 << "run.port";
    QTest::newRow("fixed port, two replicas") << 18 << "inference.replicas.max";
    QTest::newRow("custom without names") << 19 << "run.latencyMetric";
    QTest::newRow("unit without metric") << 20 << "run.latencyUnit";
    QTest::newRow("unknown preset value") << 21 << "run.metricsPreset";
    QTest::newRow("bad metrics path") << 22 << "run.metrics";
    QTest::newRow("ready timeout zero") << 23 << "run.readyTimeout";
    QTest::newRow("bad queue metric") << 24 << "run.queueMetric";
}

void tst_WorkloadSpec::runValidateStruct()
{
    QFETCH(int, mutation);
    QFETCH(QString, field);
    WorkloadSpec s;
    s.name = QStringLiteral("job");
    s.kind = WorkloadKind::Training;
    s.run = RunSpec{};
    s.run->command = {QStringLiteral("train")};
    SpecError error;
    QVERIFY2(validateWorkloadSpec(s, &error), qPrintable(error.toString()));
    WorkloadSpec service = s;
    service.kind = WorkloadKind::Inference;
    service.inference = InferenceSpec{QStringLiteral("s"), 100, 0, 1, 1};
    QVERIFY2(validateWorkloadSpec(service, &error), qPrintable(error.toString()));

    RunSpec &r = *s.run;
    RunSpec &sr = *service.run;
    bool serving = false;
    switch (mutation) {
    case 0:
        r.command.clear();
        break;
    case 1:
        r.command = {QString(), QStringLiteral("x")};
        break;
    case 2:
        r.command.append(QStringLiteral("a") + QChar(0));
        break;
    case 3:
        r.workdir = QStringLiteral("tmp");
        break;
    case 4:
        r.env.insert(QStringLiteral("CUDA_VISIBLE_DEVICES"), QStringLiteral("0"));
        break;
    case 5:
        r.env.insert(QStringLiteral("A B"), QStringLiteral("0"));
        break;
    case 6:
        r.user = QStringLiteral("Root");
        break;
    case 7:
        r.stopSignal = QStringLiteral("15");
        break;
    case 8:
        r.checkpointSignal = QStringLiteral("SIGKILL");
        break;
    case 9:
        r.stopGraceMs = -1;
        break;
    case 10:
        r.logLimitBytes = 65535;
        break;
    case 11:
        r.progressTimeoutMs = WorkloadSpecLimits::maxProgressTimeoutMs + 1;
        break;
    case 12:
        r.port = 8000;
        break;
    case 13:
        r.ready = QStringLiteral("/health");
        break;
    case 14:
        r.metricsPreset = MetricsPreset::Tgi;
        break;
    case 15:
        r.readyTimeoutMs = 1000;
        break;
    case 16:
        serving = true;
        sr.progressTimeoutMs = 0;
        break;
    case 17:
        serving = true;
        sr.port = 0;
        break;
    case 18:
        serving = true;
        sr.port = 8000;
        service.inference->maxReplicas = 2;
        break;
    case 19:
        serving = true;
        sr.metricsPreset = MetricsPreset::Custom;
        break;
    case 20:
        serving = true;
        sr.latencyUnit = LatencyUnit::Milliseconds;
        break;
    case 21:
        serving = true;
        sr.metricsPreset = MetricsPreset(9);
        break;
    case 22:
        serving = true;
        sr.metrics.clear();
        break;
    case 23:
        serving = true;
        sr.readyTimeoutMs = 0;
        break;
    case 24:
        serving = true;
        sr.queueMetric = QStringLiteral("a-b");
        break;
    }
    QVERIFY(!validateWorkloadSpec(serving ? service : s, &error));
    QCOMPARE(error.field, field);
}

void tst_WorkloadSpec::applianceEnvironmentNames()
{
    for (const char *name : {"ZHAOXI_JOB",
                             "ZHAOXI_",
                             "ZHAOXI_ANYTHING",
                             "CUDA_VISIBLE_DEVICES",
                             "NVIDIA_VISIBLE_DEVICES",
                             "CUDA_MPS_PIPE_DIRECTORY",
                             "CUDA_MPS_LOG_DIRECTORY",
                             "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
                             "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"}) {
        QVERIFY2(isApplianceEnvironmentName(QLatin1String(name)), name);
    }
    for (const char *name : {"ZHAOXI",
                             "zhaoxi_job",
                             "CUDA_HOME",
                             "CUDA_DEVICE_ORDER",
                             "NVIDIA_DRIVER_CAPABILITIES",
                             "PATH"}) {
        QVERIFY2(!isApplianceEnvironmentName(QLatin1String(name)), name);
    }
    QCOMPARE(stopSignalNames().size(), checkpointSignalNames().size() + 1);
    QVERIFY(stopSignalNames().contains(QStringLiteral("SIGKILL")));
    QVERIFY(!checkpointSignalNames().contains(QStringLiteral("SIGKILL")));
}

void tst_WorkloadSpec::cpuOnlyJob()
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

void tst_WorkloadSpec::equalityIsByMeaning()
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

void tst_WorkloadSpec::randomSpecsRoundTrip()
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
void tst_WorkloadSpec::docExamplesAreValid()
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
    // training, inference, CPU-only, batch, vLLM service, demo training, canonical
    QCOMPARE(specs.size(), 7);
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

QTEST_GUILESS_MAIN(tst_WorkloadSpec)
#include "tst_workloadspec.moc"
