// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the tst_workloadspec_* executables share: the minimal spec and its patches, the examples
// of docs/workload-spec.md, and random valid specs for round trips.

#include "core/domain/workloadspec.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QtGlobal>

namespace WorkloadSpecFixture {

using namespace Zhaoxi::Domain;

// The smallest valid spec; error rows replace or remove top-level keys of it.
inline constexpr const char *minimalSpec
        = R"({"name": "job", "kind": "batch", "demand": {"compute": {"wholeCard": true}}})";

inline QJsonObject parse(const QByteArray &json)
{
    QJsonParseError e;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &e);
    if (e.error != QJsonParseError::NoError)
        qFatal("bad JSON in a test row: %s", qPrintable(e.errorString()));
    return doc.object();
}

inline QByteArray text(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

// The minimal spec with the top-level keys of `changes` put in (replacing whole values).
inline QByteArray patch(const QByteArray &changes)
{
    QJsonObject base = parse(minimalSpec);
    const QJsonObject c = parse(changes);
    for (auto it = c.begin(); it != c.end(); ++it)
        base.insert(it.key(), it.value());
    return text(base);
}

inline QByteArray without(const char *key)
{
    QJsonObject base = parse(minimalSpec);
    base.remove(QLatin1String(key));
    return text(base);
}

// The minimal spec with these keys added to its demand (after a whole-card compute form).
inline QByteArray demandWith(const QByteArray &keys)
{
    return patch(R"({"demand": {"compute": {"wholeCard": true}, )" + keys + "}}");
}

// The minimal spec with this compute form.
inline QByteArray computeWith(const QByteArray &form)
{
    return patch(R"({"demand": {"compute": )" + form + "}}");
}

inline QByteArray inferenceWith(const QByteArray &inferenceBlock)
{
    return patch(R"({"kind": "inference", "inference": )" + inferenceBlock + "}");
}

// The minimal spec of this kind (an inference one with its block) with this run block.
inline QByteArray withRun(const QByteArray &kind, const QByteArray &run)
{
    if (kind == "inference") {
        return patch(R"({"kind": "inference", "inference": {"service": "s", "sloP99Ms": 100}, )"
                     R"("run": )"
                     + run + "}");
    }
    return patch(R"({"kind": ")" + kind + R"(", "run": )" + run + "}");
}

// A training run of `train` with these keys added to the run block.
inline QByteArray trainRun(const QByteArray &keys = {})
{
    return withRun("training",
                   R"({"command": ["train"])"
                           + (keys.isEmpty() ? QByteArray() : QByteArray(", ") + keys) + "}");
}

// An inference run of `serve` with these keys added to the run block.
inline QByteArray serveRun(const QByteArray &keys = {})
{
    return withRun("inference",
                   R"({"command": ["serve"])"
                           + (keys.isEmpty() ? QByteArray() : QByteArray(", ") + keys) + "}");
}

inline constexpr const char *trainingRunExample = R"({
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

inline constexpr const char *vllmRunExample = R"({
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

inline constexpr const char *trainingExample = R"({
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

inline constexpr const char *inferenceExample = R"({
  "name": "chat-frontend",
  "kind": "inference",
  "demand": {"compute": {"profile": "3g.40gb"}, "memoryMiB": 20480, "hostCpuMilli": 2500},
  "priority": 500,
  "preemption": "never",
  "inference": {"service": "chat", "sloP99Ms": 250, "requestRate": 40, "replicas": {"min": 1, "max": 4}}
})";

inline constexpr const char *batchExample = R"({
  "name": "nightly-embeddings",
  "kind": "batch",
  "demand": {"compute": {"fraction": 0.25}, "memoryGiB": 8.5, "hostMemoryMiB": 4096},
  "time": {"expectedDuration": 5400, "deadline": "2026-12-01T06:00:00+08:00"},
  "priority": -10
})";

// ---- random valid specs -----------------------------------------------------------------------

inline QString randomText(QRandomGenerator &rng, int maxLength)
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

inline qint64 randomBelow(QRandomGenerator &rng, qint64 max) // 0..max, often a round value
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

inline QString randomArgument(QRandomGenerator &rng)
{
    // Arguments may be empty and hold anything but NUL, newlines and quotes included.
    static const QString alphabet = QStringLiteral("abcXYZ019 -_=./$\"'\\\n\t训é");
    const int length = rng.bounded(0, 12);
    QString s;
    for (int i = 0; i < length; ++i)
        s += alphabet.at(rng.bounded(int(alphabet.size())));
    return s;
}

inline QString randomMetricName(QRandomGenerator &rng)
{
    static const QString first = QStringLiteral("abz_:ABZ");
    static const QString rest = QStringLiteral("abz_:ABZ0189");
    QString s = first.at(rng.bounded(int(first.size())));
    for (int i = rng.bounded(0, 20); i > 0; --i)
        s += rest.at(rng.bounded(int(rest.size())));
    return s;
}

inline RunSpec randomRun(QRandomGenerator &rng, WorkloadSpec &s)
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

inline WorkloadSpec randomSpec(QRandomGenerator &rng)
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

} // namespace WorkloadSpecFixture
