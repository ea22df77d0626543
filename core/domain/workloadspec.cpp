// SPDX-License-Identifier: GPL-3.0-or-later
// The spec's vocabulary (enum spellings, durations, metric presets), its writer and equality.
// Reading is workloadspecread.cpp's, validation workloadspecvalidate.cpp's.
#include "workloadspec.h"

#include "workloadspec_p.h"

#include <QDateTime>
#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>

#include <cmath>
#include <limits>

namespace Zhaoxi::Domain {

using namespace SpecDetail;

QString toString(WorkloadKind kind)
{
    switch (kind) {
    case WorkloadKind::Training:
        return QStringLiteral("training");
    case WorkloadKind::Inference:
        return QStringLiteral("inference");
    case WorkloadKind::Batch:
        return QStringLiteral("batch");
    }
    return {};
}

QString toString(PreemptionTolerance tolerance)
{
    switch (tolerance) {
    case PreemptionTolerance::Never:
        return QStringLiteral("never");
    case PreemptionTolerance::AtCheckpoint:
        return QStringLiteral("checkpoint");
    case PreemptionTolerance::Restart:
        return QStringLiteral("restart");
    }
    return {};
}

QString toString(IsolationRequirement requirement)
{
    switch (requirement) {
    case IsolationRequirement::HardOnly:
        return QStringLiteral("hard");
    case IsolationRequirement::SoftAllowed:
        return QStringLiteral("soft");
    }
    return {};
}

QString toString(MetricsPreset preset)
{
    switch (preset) {
    case MetricsPreset::Vllm:
        return QStringLiteral("vllm");
    case MetricsPreset::Triton:
        return QStringLiteral("triton");
    case MetricsPreset::Tgi:
        return QStringLiteral("tgi");
    case MetricsPreset::Custom:
        return QStringLiteral("custom");
    }
    return {};
}

QString toString(LatencyUnit unit)
{
    switch (unit) {
    case LatencyUnit::Seconds:
        return QStringLiteral("s");
    case LatencyUnit::Milliseconds:
        return QStringLiteral("ms");
    case LatencyUnit::Microseconds:
        return QStringLiteral("us");
    }
    return {};
}

bool workloadKindFromString(const QString &text, WorkloadKind *kind)
{
    return enumFromString(text, allKinds, kind);
}

bool preemptionToleranceFromString(const QString &text, PreemptionTolerance *tolerance)
{
    return enumFromString(text, allTolerances, tolerance);
}

bool isolationRequirementFromString(const QString &text, IsolationRequirement *requirement)
{
    return enumFromString(text, allRequirements, requirement);
}

bool metricsPresetFromString(const QString &text, MetricsPreset *preset)
{
    return enumFromString(text, allPresets, preset);
}

bool latencyUnitFromString(const QString &text, LatencyUnit *unit)
{
    return enumFromString(text, allLatencyUnits, unit);
}

double secondsPer(LatencyUnit unit)
{
    switch (unit) {
    case LatencyUnit::Seconds:
        return 1.0;
    case LatencyUnit::Milliseconds:
        return 1e-3;
    case LatencyUnit::Microseconds:
        return 1e-6;
    }
    return 1.0;
}

MetricNames metricNamesFor(const RunSpec &run)
{
    MetricNames names;
    switch (run.metricsPreset) {
    case MetricsPreset::Vllm:
        names.latency = QStringLiteral("vllm:e2e_request_latency_seconds");
        names.queue = QStringLiteral("vllm:num_requests_waiting");
        break;
    case MetricsPreset::Triton:
        // Triton exports no latency histogram by default, only the time spent and the requests
        // served, both cumulative.
        names.latency = QStringLiteral("nv_inference_request_duration_us");
        names.latencyKind = MetricNames::LatencyKind::CounterPair;
        names.latencyCount = QStringLiteral("nv_inference_request_success");
        names.latencyUnit = LatencyUnit::Microseconds;
        names.queue = QStringLiteral("nv_inference_pending_request_count");
        break;
    case MetricsPreset::Tgi:
        names.latency = QStringLiteral("tgi_request_duration");
        names.queue = QStringLiteral("tgi_queue_size");
        break;
    case MetricsPreset::Custom:
        break;
    }
    if (!run.latencyMetric.isEmpty())
        names.latency = run.latencyMetric;
    if (!run.queueMetric.isEmpty())
        names.queue = run.queueMetric;
    if (run.latencyUnit)
        names.latencyUnit = *run.latencyUnit;
    return names;
}

QStringList checkpointSignalNames()
{
    return {QStringLiteral("SIGTERM"),
            QStringLiteral("SIGINT"),
            QStringLiteral("SIGHUP"),
            QStringLiteral("SIGQUIT"),
            QStringLiteral("SIGUSR1"),
            QStringLiteral("SIGUSR2")};
}

QStringList stopSignalNames()
{
    return checkpointSignalNames() << QStringLiteral("SIGKILL");
}

bool isApplianceEnvironmentName(const QString &name)
{
    static const QSet<QString> names{QStringLiteral("CUDA_VISIBLE_DEVICES"),
                                     QStringLiteral("NVIDIA_VISIBLE_DEVICES"),
                                     QStringLiteral("CUDA_MPS_PIPE_DIRECTORY"),
                                     QStringLiteral("CUDA_MPS_LOG_DIRECTORY"),
                                     QStringLiteral("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"),
                                     QStringLiteral("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT")};
    return name.startsWith(QLatin1String("ZHAOXI_")) || names.contains(name);
}

// ---- durations --------------------------------------------------------------------------------

namespace {

constexpr qint64 secondMs = 1000;
constexpr qint64 minuteMs = 60 * secondMs;
constexpr qint64 hourMs = 60 * minuteMs;
constexpr qint64 dayMs = 24 * hourMs;

} // namespace

std::optional<qint64> durationMsFromString(const QString &text)
{
    // [0-9] rather than \d: only ASCII digits may ever count.
    static const QRegularExpression re(QStringLiteral("^(?:([0-9]+(?:\\.[0-9]+)?)d)?"
                                                      "(?:([0-9]+(?:\\.[0-9]+)?)h)?"
                                                      "(?:([0-9]+(?:\\.[0-9]+)?)m)?"
                                                      "(?:([0-9]+(?:\\.[0-9]+)?)s)?$"));
    if (text.isEmpty())
        return std::nullopt;
    const QRegularExpressionMatch match = re.match(text);
    if (!match.hasMatch())
        return std::nullopt;
    static constexpr qint64 unitMs[] = {dayMs, hourMs, minuteMs, secondMs};
    double total = 0;
    for (int i = 0; i < 4; ++i) {
        const QString term = match.captured(i + 1);
        if (!term.isEmpty())
            total += term.toDouble() * double(unitMs[i]);
    }
    // Saturate rather than overflow: the caller's range check then reports a clear "too long".
    if (!(total < 9.2e18))
        return std::numeric_limits<qint64>::max();
    return std::llround(total);
}

QString durationToString(qint64 ms)
{
    if (ms <= 0)
        return QStringLiteral("0s");
    QString text;
    const auto term = [&](qint64 unit, QChar suffix) {
        if (ms >= unit) {
            text += QString::number(ms / unit) + suffix;
            ms %= unit;
        }
    };
    term(dayMs, u'd');
    term(hourMs, u'h');
    term(minuteMs, u'm');
    if (ms > 0) {
        text += QString::number(ms / secondMs);
        if (const qint64 frac = ms % secondMs) {
            QString digits = QString::number(frac).rightJustified(3, u'0');
            while (digits.endsWith(u'0'))
                digits.chop(1);
            text += u'.' + digits;
        }
        text += u's';
    }
    return text;
}

QString SpecDetail::deadlineText(qint64 ms)
{
    const QDateTime t = QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC);
    return t.toString(ms % 1000 == 0 ? Qt::ISODate : Qt::ISODateWithMs);
}

namespace {

// ---- writing ----------------------------------------------------------------------------------

QJsonValue durationValue(qint64 ms)
{
    if (ms % 1000 == 0)
        return QJsonValue(ms / 1000);
    return QJsonValue(double(ms) / 1000.0);
}

QJsonObject runToJson(WorkloadKind kind, const RunSpec &run)
{
    QJsonObject env;
    for (auto it = run.env.begin(); it != run.env.end(); ++it)
        env.insert(it.key(), it.value());
    QJsonObject json{
            {QLatin1String("command"), QJsonArray::fromStringList(run.command)},
            {QLatin1String("env"), env},
            {QLatin1String("stopSignal"), run.stopSignal},
            {QLatin1String("checkpointSignal"), run.checkpointSignal},
            {QLatin1String("stopGrace"), durationValue(run.stopGraceMs)},
            {QLatin1String("logLimit"), run.logLimitBytes},
    };
    if (!run.workdir.isEmpty())
        json.insert(QLatin1String("workdir"), run.workdir);
    if (!run.user.isEmpty())
        json.insert(QLatin1String("user"), run.user);
    if (kind != WorkloadKind::Inference) {
        json.insert(QLatin1String("progressTimeout"), durationValue(run.progressTimeoutMs));
        return json;
    }
    json.insert(QLatin1String("port"),
                run.port ? QJsonValue(*run.port) : QJsonValue(QLatin1String("auto")));
    if (!run.ready.isEmpty())
        json.insert(QLatin1String("ready"), run.ready);
    json.insert(QLatin1String("readyTimeout"), durationValue(run.readyTimeoutMs));
    json.insert(QLatin1String("metrics"), run.metrics);
    json.insert(QLatin1String("metricsPreset"), toString(run.metricsPreset));
    if (!run.latencyMetric.isEmpty())
        json.insert(QLatin1String("latencyMetric"), run.latencyMetric);
    if (!run.queueMetric.isEmpty())
        json.insert(QLatin1String("queueMetric"), run.queueMetric);
    if (run.latencyUnit)
        json.insert(QLatin1String("latencyUnit"), toString(*run.latencyUnit));
    return json;
}

QJsonObject computeToJson(const ComputeDemand &c)
{
    QJsonObject compute;
    switch (c.kind) {
    case ComputeDemand::Kind::WholeCard:
        compute.insert(QLatin1String("wholeCard"), true);
        break;
    case ComputeDemand::Kind::MigProfile:
        compute.insert(QLatin1String("profile"), c.profile);
        break;
    case ComputeDemand::Kind::MigSlices:
        compute.insert(QLatin1String("slices"), c.slices);
        break;
    case ComputeDemand::Kind::Fraction:
        compute.insert(QLatin1String("fraction"), c.milli / 1000.0);
        break;
    }
    return compute;
}

// A shape's host CPU and memory are the spec's own: not written.
QJsonArray shapesToJson(const QList<WorkloadShape> &shapes)
{
    QJsonArray out;
    for (const WorkloadShape &shape : shapes) {
        const QJsonObject demand{
                {QLatin1String("compute"), computeToJson(shape.demand.compute)},
                {QLatin1String("memoryMiB"), shape.demand.memoryMiB},
                {QLatin1String("cards"), shape.demand.cards},
        };
        out.append(QJsonObject{{QLatin1String("demand"), demand},
                               {QLatin1String("speed"), shape.speed}});
    }
    return out;
}

} // namespace

const Demand &shapeDemand(const WorkloadSpec &spec, int shape)
{
    return shape >= 0 && shape < spec.shapes.size() ? spec.shapes[shape].demand : spec.demand;
}

double shapeSpeed(const WorkloadSpec &spec, int shape)
{
    return shape >= 0 && shape < spec.shapes.size() ? spec.shapes[shape].speed : 1.0;
}

QString shapeText(const Demand &d)
{
    QString unit;
    switch (d.compute.kind) {
    case ComputeDemand::Kind::WholeCard:
        unit = QStringLiteral("whole card");
        break;
    case ComputeDemand::Kind::MigProfile:
        unit = d.compute.profile;
        break;
    case ComputeDemand::Kind::MigSlices:
        unit = d.compute.slices == 1 ? QStringLiteral("1 slice")
                                     : QStringLiteral("%1 slices").arg(d.compute.slices);
        break;
    case ComputeDemand::Kind::Fraction:
        unit = QStringLiteral("%1 of a card").arg(numberText(d.compute.milli / 1000.0));
        break;
    }
    if (d.cards == 0)
        return QStringLiteral("CPU only");
    if (d.cards == 1 && d.compute.kind != ComputeDemand::Kind::WholeCard)
        return unit;
    return QStringLiteral("%1 \u00d7 %2").arg(d.cards).arg(unit);
}

QJsonObject workloadSpecToJson(const WorkloadSpec &spec)
{
    const QJsonObject compute = computeToJson(spec.demand.compute);
    QJsonObject demand{
            {QLatin1String("memoryMiB"), spec.demand.memoryMiB},
            {QLatin1String("cards"), spec.demand.cards},
            {QLatin1String("hostCpuMilli"), spec.demand.hostCpuMilli},
            {QLatin1String("hostMemoryMiB"), spec.demand.hostMemoryMiB},
    };
    if (spec.demand.cards > 0) // a CPU-only job has no compute form
        demand.insert(QLatin1String("compute"), compute);
    QJsonObject time{
            {QLatin1String("expectedDuration"), durationValue(spec.time.expectedDurationMs)}};
    if (spec.time.deadlineMs)
        time.insert(QLatin1String("deadline"), deadlineText(*spec.time.deadlineMs));
    QJsonObject affinity{
            {QLatin1String("cardModels"), QJsonArray::fromStringList(spec.affinity.cardModels)},
            {QLatin1String("sameLinkDomain"), spec.affinity.sameLinkDomain},
    };
    if (!spec.affinity.host.isEmpty())
        affinity.insert(QLatin1String("host"), spec.affinity.host);

    QJsonObject json{
            {QLatin1String("name"), spec.name},
            {QLatin1String("kind"), toString(spec.kind)},
            {QLatin1String("demand"), demand},
            {QLatin1String("time"), time},
            {QLatin1String("priority"), spec.priority},
            {QLatin1String("preemption"), toString(spec.preemption)},
            {QLatin1String("affinity"), affinity},
            {QLatin1String("isolation"), toString(spec.isolation)},
    };
    if (spec.checkpointIntervalMs != 0)
        json.insert(QLatin1String("checkpointInterval"), durationValue(spec.checkpointIntervalMs));
    if (!spec.shapes.isEmpty())
        json.insert(QLatin1String("shapes"), shapesToJson(spec.shapes));
    if (spec.inference) {
        const InferenceSpec &i = *spec.inference;
        QJsonObject inference{
                {QLatin1String("service"), i.service},
                {QLatin1String("sloP99Ms"), i.sloP99Ms},
                {QLatin1String("requestRate"), i.requestRate},
                {QLatin1String("replicas"),
                 QJsonObject{{QLatin1String("min"), i.minReplicas},
                             {QLatin1String("max"), i.maxReplicas}}},
        };
        if (i.serviceTimeMs > 0)
            inference.insert(QLatin1String("serviceTimeMs"), i.serviceTimeMs);
        json.insert(QLatin1String("inference"), inference);
    }
    if (spec.run)
        json.insert(QLatin1String("run"), runToJson(spec.kind, *spec.run));
    return json;
}

bool operator==(const ComputeDemand &a, const ComputeDemand &b)
{
    if (a.kind != b.kind)
        return false;
    switch (a.kind) {
    case ComputeDemand::Kind::WholeCard:
        return true;
    case ComputeDemand::Kind::MigProfile:
        return a.profile == b.profile;
    case ComputeDemand::Kind::MigSlices:
        return a.slices == b.slices;
    case ComputeDemand::Kind::Fraction:
        return a.milli == b.milli;
    }
    return a.profile == b.profile && a.slices == b.slices && a.milli == b.milli;
}

bool operator==(const Demand &a, const Demand &b)
{
    // A CPU-only job's compute demand means nothing (see operator== for ComputeDemand).
    return a.cards == b.cards && (a.cards == 0 || a.compute == b.compute)
           && a.memoryMiB == b.memoryMiB && a.hostCpuMilli == b.hostCpuMilli
           && a.hostMemoryMiB == b.hostMemoryMiB;
}

bool operator==(const TimeBudget &a, const TimeBudget &b)
{
    return a.expectedDurationMs == b.expectedDurationMs && a.deadlineMs == b.deadlineMs;
}

bool operator==(const Affinity &a, const Affinity &b)
{
    return a.cardModels == b.cardModels && a.sameLinkDomain == b.sameLinkDomain && a.host == b.host;
}

bool operator==(const InferenceSpec &a, const InferenceSpec &b)
{
    return a.service == b.service && a.sloP99Ms == b.sloP99Ms && a.requestRate == b.requestRate
           && a.minReplicas == b.minReplicas && a.maxReplicas == b.maxReplicas
           && a.serviceTimeMs == b.serviceTimeMs;
}

bool operator==(const WorkloadShape &a, const WorkloadShape &b)
{
    return a.demand == b.demand && a.speed == b.speed;
}

bool operator==(const RunSpec &a, const RunSpec &b)
{
    return a.command == b.command && a.workdir == b.workdir && a.env == b.env && a.user == b.user
           && a.stopSignal == b.stopSignal && a.checkpointSignal == b.checkpointSignal
           && a.stopGraceMs == b.stopGraceMs && a.logLimitBytes == b.logLimitBytes
           && a.progressTimeoutMs == b.progressTimeoutMs && a.port == b.port && a.ready == b.ready
           && a.readyTimeoutMs == b.readyTimeoutMs && a.metrics == b.metrics
           && a.metricsPreset == b.metricsPreset && a.latencyMetric == b.latencyMetric
           && a.queueMetric == b.queueMetric && a.latencyUnit == b.latencyUnit;
}

bool operator==(const WorkloadSpec &a, const WorkloadSpec &b)
{
    return a.name == b.name && a.kind == b.kind && a.demand == b.demand && a.shapes == b.shapes
           && a.time == b.time && a.priority == b.priority && a.preemption == b.preemption
           && a.checkpointIntervalMs == b.checkpointIntervalMs && a.affinity == b.affinity
           && a.isolation == b.isolation && a.inference == b.inference && a.run == b.run;
}

} // namespace Zhaoxi::Domain
