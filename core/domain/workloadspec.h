// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <optional>

namespace Zhaoxi::Domain {

enum class WorkloadKind { Training, Inference, Batch };
enum class PreemptionTolerance { Never, AtCheckpoint, Restart };
// HardOnly: only a MIG partition or a whole card will do. SoftAllowed: a time-slicing or MPS
// share is acceptable too.
enum class IsolationRequirement { HardOnly, SoftAllowed };

// The JSON spellings: "training" | "inference" | "batch"; "never" | "checkpoint" | "restart";
// "hard" | "soft". The fromString helpers accept exactly these (case-sensitive) and leave the
// output untouched when they return false.
QString toString(WorkloadKind kind);
QString toString(PreemptionTolerance tolerance);
QString toString(IsolationRequirement requirement);
bool workloadKindFromString(const QString &text, WorkloadKind *kind);
bool preemptionToleranceFromString(const QString &text, PreemptionTolerance *tolerance);
bool isolationRequirementFromString(const QString &text, IsolationRequirement *requirement);

// Durations as a spec writes them: one or more <number><unit> terms, units d, h, m, s in that
// order, each at most once, numbers may have decimals: "90m", "1h30m", "1.5h", "2d12h", "0.5s".
// Returns milliseconds (rounded to the nearest; saturating at the qint64 maximum), or nullopt when
// the text is malformed. Range checks are the caller's.
std::optional<qint64> durationMsFromString(const QString &text);
// The canonical text for a duration >= 0: e.g. 5400000 -> "1h30m", 1500 -> "1.5s", 0 -> "0s".
// durationMsFromString(durationToString(ms)) == ms for 0 <= ms <= 2^53.
QString durationToString(qint64 ms);

// The ranges validateWorkloadSpec enforces, for forms that want to bound their inputs.
struct WorkloadSpecLimits
{
    static constexpr int maxNameLength = 128;
    static constexpr int minPriority = -1000;
    static constexpr int maxPriority = 1000;
    static constexpr int maxMigSlices = 7;
    static constexpr int maxCards = 64;
    static constexpr qint64 maxMemoryMiB = qint64(1024) * 1024;             // 1 TiB per card
    static constexpr qint64 maxHostCpuMilli = qint64(1024) * 1000;          // 1024 cores
    static constexpr qint64 maxHostMemoryMiB = qint64(16) * 1024 * 1024;    // 16 TiB
    static constexpr qint64 maxDurationMs = qint64(365) * 24 * 3600 * 1000; // one year
    // 9999-12-31T23:59:59.999Z, the last instant ISO-8601 writes with a four-digit year
    static constexpr qint64 maxDeadlineMs = Q_INT64_C(253402300799999);
    static constexpr double maxSloP99Ms = 3600.0 * 1000; // one hour
    static constexpr double maxRequestRate = 1e6;        // per second
    static constexpr int maxReplicas = 1024;
    // shapes
    static constexpr int maxShapes = 8;            // alternatives besides the primary demand
    static constexpr double maxShapeSpeed = 100.0; // relative to the primary shape's 1
    // run
    static constexpr qint64 maxStopGraceMs = qint64(3600) * 1000;               // one hour
    static constexpr qint64 minLogLimitBytes = qint64(64) * 1024;               // 64 KiB
    static constexpr qint64 maxLogLimitBytes = qint64(64) * 1024 * 1024 * 1024; // 64 GiB
    static constexpr qint64 maxProgressTimeoutMs = qint64(24) * 3600 * 1000;    // one day
    static constexpr qint64 minReadyTimeoutMs = 1000;                           // one second
    static constexpr qint64 maxReadyTimeoutMs = qint64(24) * 3600 * 1000;       // one day
    static constexpr int maxPort = 65535;
    static constexpr int maxUserNameLength = 32; // what useradd and utmp accept
};

// What one unit of the workload needs from one card. A gang asks for `cards` such units.
struct ComputeDemand
{
    enum class Kind {
        WholeCard, // a whole card (Whole mode, an empty soft card, or a free full-size MIG instance)
        MigProfile, // a named MIG profile, e.g. "3g.40gb" (restricts to models that have it)
        MigSlices,  // at least this many of the 7 compute slices, on any MIG model
        Fraction,   // a share of one card in 1/1000 (soft slicing; a hard partition also serves)
    };
    Kind kind = Kind::WholeCard;
    QString profile;  // MigProfile
    int slices = 0;   // MigSlices: 1..7
    int milli = 1000; // Fraction: 1..1000
};

struct Demand
{
    ComputeDemand compute;
    qint64 memoryMiB = 0;     // card memory per unit; 0 = whatever the unit has
    int cards = 1;            // gang width: units on distinct cards of one host, bound together;
                              // 0 = a CPU-only job (host CPU and memory alone)
    qint64 hostCpuMilli = 0;  // for the whole job, on the host its cards are on
    qint64 hostMemoryMiB = 0; // for the whole job
};

struct TimeBudget
{
    qint64 expectedDurationMs = 0;    // 0 = unknown / open-ended (services)
    std::optional<qint64> deadlineMs; // UTC epoch ms
};

struct Affinity
{
    QStringList cardModels;     // allowed models (names or aliases); empty = any
    bool sameLinkDomain = true; // gangs: all cards in one fast-link domain
    QString host;               // pinned host name; empty = any
};

struct InferenceSpec
{
    QString service; // service name; replicas of one service share it
    double sloP99Ms = 0;
    double requestRate = 0; // expected requests per second
    int minReplicas = 1;
    int maxReplicas = 1;
    // Mean service time of one request on one replica of the primary shape (`demand`), in ms;
    // 0 = not given. Required when the spec lists shapes: the scheduler takes a shape only when
    // its service time (serviceTimeMs / speed) leaves room under sloP99Ms (WorkloadShape).
    double serviceTimeMs = 0;
};

// Where an inference server publishes its latency and queue length (run.metricsPreset); JSON
// spellings "vllm" | "triton" | "tgi" | "custom".
enum class MetricsPreset { Vllm, Triton, Tgi, Custom };
// The unit a latency metric counts in; JSON spellings "s" | "ms" | "us".
enum class LatencyUnit { Seconds, Milliseconds, Microseconds };
QString toString(MetricsPreset preset);
QString toString(LatencyUnit unit);
bool metricsPresetFromString(const QString &text, MetricsPreset *preset);
bool latencyUnitFromString(const QString &text, LatencyUnit *unit);
// Seconds per unit: 1, 0.001, 0.000001.
double secondsPer(LatencyUnit unit);

// What to run for one unit of a workload: the process the appliance starts, its environment, how
// it is stopped, and for inference how it is reached and measured. The appliance starts
// `command` directly (no shell), once per unit. Signals are kept by name (portable); mapping
// them to numbers is the runtime's job.
struct RunSpec
{
    QStringList command;        // program (absolute path or a name looked up in PATH) and arguments
    QString workdir;            // absolute; empty = unset (the appliance's choice)
    QMap<QString, QString> env; // on top of what the appliance sets; never one of its names
    QString user;               // account to run as; empty = unset (the appliance's default)
    QString stopSignal = QStringLiteral("SIGTERM");
    QString checkpointSignal = QStringLiteral("SIGUSR1");
    qint64 stopGraceMs = 30 * 1000;            // stopSignal to SIGKILL
    qint64 logLimitBytes = qint64(64) << 20;   // output kept per unit
    qint64 progressTimeoutMs = 10 * 60 * 1000; // training and batch only; 0 = never stuck

    // Inference only; for other kinds these must keep their defaults.
    std::optional<int> port; // nullopt = "auto": a free loopback port per replica (ZHAOXI_PORT)
    QString ready;           // HTTP path answering 200 once serving; empty = port accepts
    qint64 readyTimeoutMs = 5 * 60 * 1000;
    QString metrics = QStringLiteral("/metrics"); // Prometheus text endpoint
    MetricsPreset metricsPreset = MetricsPreset::Vllm;
    QString latencyMetric;                  // empty = the preset's
    QString queueMetric;                    // empty = the preset's
    std::optional<LatencyUnit> latencyUnit; // only with latencyMetric; nullopt = the preset's
};

// The metric names a scraper reads for an inference run, with the preset's values filled in.
struct MetricNames
{
    enum class LatencyKind {
        // `latency` names a Prometheus histogram: <latency>_bucket{le=...}, _sum and _count
        // (vLLM, TGI, custom): percentiles can be estimated.
        Histogram,
        // `latency` is a cumulative counter of time spent and `latencyCount` the counter of
        // requests it covers (Triton): only their ratio, a mean latency, is known.
        CounterPair,
    };
    QString latency;
    LatencyKind latencyKind = LatencyKind::Histogram;
    QString latencyCount; // CounterPair only
    LatencyUnit latencyUnit = LatencyUnit::Seconds;
    QString queue; // a gauge: requests waiting
};

// The effective names for `run`: its explicit latencyMetric / queueMetric / latencyUnit where
// given, the preset's otherwise (vllm: vllm:e2e_request_latency_seconds histogram in s,
// vllm:num_requests_waiting; triton: nv_inference_request_duration_us counter in us over
// nv_inference_request_success, nv_inference_pending_request_count; tgi: tgi_request_duration
// histogram in s, tgi_queue_size; custom: histogram in s). The latency kind follows the preset.
// Meaningful for a valid run of an inference spec (for "custom" both names are then given).
// Pure; any thread.
MetricNames metricNamesFor(const RunSpec &run);

// The signal names run.stopSignal (which also takes SIGKILL) and run.checkpointSignal accept.
QStringList stopSignalNames();
QStringList checkpointSignalNames();
// True for the environment names the appliance sets itself (ZHAOXI_*, the CUDA/NVIDIA device
// and MPS variables), which run.env may not set.
bool isApplianceEnvironmentName(const QString &name);

// An alternative shape the workload may run in instead of its primary `demand` (issue 18):
// another unit size for an inference replica (1g, 2g, 3g), another gang for training (1 × 7g,
// 2 × 3g, 4 × whole card). `speed` is relative to the primary shape, whose speed is 1: for
// inference the throughput of one replica on this unit, for training and batch the throughput of
// the whole gang. Only compute, card memory and cards differ from the primary: the host CPU and
// memory are the whole job's and the same for every shape (the reader copies them from
// `demand`, the writer leaves them out, validation insists they are equal). How the scheduler
// picks a shape: docs/workload-spec.md, "shapes".
struct WorkloadShape
{
    Demand demand;
    double speed = 1;
};

// One workload unit: the single spec for training, inference and batch work.
struct WorkloadSpec
{
    QString name;
    WorkloadKind kind = WorkloadKind::Batch;
    Demand demand;               // the primary shape (speed 1)
    QList<WorkloadShape> shapes; // alternatives to `demand`; empty = the primary only
    TimeBudget time;
    int priority = 0; // higher runs first and may preempt lower
    PreemptionTolerance preemption = PreemptionTolerance::Restart;
    qint64 checkpointIntervalMs = 0; // AtCheckpoint: progress is saved this often
    Affinity affinity;
    IsolationRequirement isolation = IsolationRequirement::SoftAllowed;
    std::optional<InferenceSpec> inference; // required for Inference, absent otherwise
    // What to run. Optional here: the digital twin models workloads without one; the real
    // appliance refuses a spec without it when it is submitted.
    std::optional<RunSpec> run;
};

// An error from reading a spec: which field (a JSON path such as "demand.cards") and why.
struct SpecError
{
    QString field;
    QString message;
    QString toString() const
    {
        return field.isEmpty() ? message : field + QStringLiteral(": ") + message;
    }
};

// The demand and speed of shape `shape` of `spec`: -1 (or any index out of range) is the
// primary (`spec.demand`, speed 1), 0..shapes.size()-1 an alternative.
const Demand &shapeDemand(const WorkloadSpec &spec, int shape);
double shapeSpeed(const WorkloadSpec &spec, int shape);
// A short English text of a shape for logs and reports: "1g.18gb", "2 × 3g.71gb",
// "4 × whole card", "1 × 2 slices", "0.25 of a card".
QString shapeText(const Demand &demand);

// Reads a spec from JSON (the format is docs/workload-spec.md). On any error returns nullopt and
// fills *error (when not null) with the first problem found; nothing is half-made. Unknown keys,
// wrong types and out-of-range values are errors, and so are names (name, inference.service,
// affinity.cardModels, affinity.host) holding a NUL, a control character or a lone UTF-16
// surrogate. The bytes overload (core/domain/jsonreader.h's parseJsonObject) also reports
// malformed JSON as "line L, column C: JSON syntax error: ..." (field empty) and repeated keys,
// which Qt's parser would silently collapse, as "line L, column C: repeated key; ..." with the
// key's path as the field. Pure functions: callable from any thread.
std::optional<WorkloadSpec> workloadSpecFromJson(const QJsonObject &json, SpecError *error);
std::optional<WorkloadSpec> workloadSpecFromJson(const QByteArray &utf8, SpecError *error);
// Writes a spec in canonical form: memoryMiB, hostCpuMilli, hostMemoryMiB, durations in seconds,
// the deadline as ISO-8601 UTC, run.logLimit in bytes, run.port as "auto" or a number; every key
// with its value, defaults included, except the optional ones that are unset (time.deadline,
// affinity.host, a zero checkpointInterval, empty shapes, a zero inference.serviceTimeMs,
// inference, run, run.workdir, run.user, run.ready, run.latencyMetric, run.queueMetric,
// run.latencyUnit), demand.compute for a CPU-only job (cards 0), run's inference-only keys for
// other kinds, run.progressTimeout for inference, and each shape's host CPU and memory (the
// spec's own). A shape's demand is written as memoryMiB, cards and compute.
// workloadSpecFromJson(workloadSpecToJson(s)) == s for every valid s.
QJsonObject workloadSpecToJson(const WorkloadSpec &spec);
// Checks ranges and cross-field rules; the readers call it too. Fields in *error are the
// canonical JSON paths ("demand.memoryMiB", "inference.replicas.max").
bool validateWorkloadSpec(const WorkloadSpec &spec, SpecError *error);

// Equality is by meaning: two ComputeDemands of the same kind compare only the field that kind
// uses (a WholeCard demand ignores a stray `slices`), and two CPU-only Demands (cards 0) ignore
// their compute demands, so a spec equals its JSON round trip.
bool operator==(const ComputeDemand &a, const ComputeDemand &b);
bool operator==(const Demand &a, const Demand &b);
bool operator==(const TimeBudget &a, const TimeBudget &b);
bool operator==(const Affinity &a, const Affinity &b);
bool operator==(const InferenceSpec &a, const InferenceSpec &b);
bool operator==(const WorkloadShape &a, const WorkloadShape &b);
bool operator==(const RunSpec &a, const RunSpec &b);
bool operator==(const WorkloadSpec &a, const WorkloadSpec &b);

} // namespace Zhaoxi::Domain
