// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QMap>
#include <QString>

#include <cstdint>
#include <optional>

namespace Zhaoxi::Storage {

// What a series measures. Stored as integers: append only.
enum class Metric : std::uint8_t {
    GpuUtil = 0,        // %, per card                    (DCGM_FI_DEV_GPU_UTIL)
    MemoryUsedMiB = 1,  // MiB, per card or MIG instance  (DCGM_FI_DEV_FB_USED)
    TemperatureC = 2,   // deg C, per card                (DCGM_FI_DEV_GPU_TEMP)
    PowerW = 3,         // W, per card                    (DCGM_FI_DEV_POWER_USAGE)
    GrEngineActive = 4, // ratio 0..1, per MIG instance or card (DCGM_FI_PROF_GR_ENGINE_ACTIVE)
    LatencyP50Ms = 5,   // per service
    LatencyP95Ms = 6,
    LatencyP99Ms = 7,
    RequestRate = 8,        // requests/s, per service
    TrainingThroughput = 9, // samples/s, per job
    TrainingLoss = 10,      // per job
    MemoryFreeMiB = 11,     // MiB, per card                  (DCGM_FI_DEV_FB_FREE)
    SmClockMHz = 12,        // MHz, per card                  (DCGM_FI_DEV_SM_CLOCK)
    TensorActive = 13,      // ratio 0..1, per card (DCGM_FI_PROF_PIPE_TENSOR_ACTIVE, modelled)
    // What a replay and the forecast learn from (docs/storage.md "What a replay reads"):
    ServiceTimeMs = 14, // ms, per service and unit size: the mean time one request takes on one
                        // replica's unit; SeriesKey::partition holds the unit's milli-cards
    SloAttainment = 15, // ratio 0..1, per service: requests within the SLO over the period
    TrainingWorkH = 16, // reference card-hours of work done so far, per job (cumulative)
    Replicas = 17,      // replicas serving, per service
    Count
};

// The modelled values' constants, documented in docs/metrics.md.
namespace MetricsModel {
// The share of a busy second a class's kernels keep the tensor pipe active: the model FLOPs
// utilisation such work reaches on these cards. Published LLM training runs report 40-55 % MFU;
// LLM serving is mostly memory-bound decoding at a few to 20 %. Planning estimates, not
// measurements; batch work counts as training (the snapshot's split does the same).
constexpr double kTensorActiveTraining = 0.45;
constexpr double kTensorActiveInference = 0.15;
} // namespace MetricsModel

// A card's (or MIG instance's) reading, exported with dcgm-exporter's names and labels.
constexpr bool isDeviceMetric(Metric m)
{
    return m <= Metric::GrEngineActive || m == Metric::MemoryFreeMiB || m == Metric::SmClockMHz
           || m == Metric::TensorActive;
}

const char *toString(Metric metric); // stable: "gpu-util", "latency-p99-ms", ...
std::optional<Metric> metricFromString(QStringView text);

// Which series a sample belongs to. Unset parts are -1 / empty.
struct SeriesKey
{
    Metric metric = Metric::GpuUtil;
    int card = -1;
    int partition = -1; // unit uid on the card
    QString service;
    int job = -1;
    friend bool operator==(const SeriesKey &, const SeriesKey &) = default;
};
size_t qHash(const SeriesKey &key, size_t seed = 0) noexcept;

struct MetricSample
{
    SeriesKey key;
    qint64 atMs = 0;
    double value = 0;
    // Identity labels for exporters (e.g. Hostname, UUID, modelName, gpu, device, GPU_I_PROFILE,
    // GPU_I_ID). Stored with the series the first time they are given; later samples may leave
    // them empty.
    QMap<QString, QString> labels;
};

// Downsampling tiers: raw samples (nominally 1 s) are rolled up into 1 min and 15 min buckets
// (mean, min, max, count). Each tier keeps its own retention.
enum class Tier : std::uint8_t { Raw = 0, Minute = 1, QuarterHour = 2 };
constexpr qint64 kTierBucketMs[3] = {0, 60'000, 900'000};

struct Retention
{
    qint64 rawMs = qint64(6) * 3600 * 1000;                // 6 hours of 1 s samples
    qint64 minuteMs = qint64(8) * 24 * 3600 * 1000;        // 8 days of 1 min buckets
    qint64 quarterHourMs = qint64(400) * 24 * 3600 * 1000; // 400 days of 15 min buckets
    qint64 traces = 20000;                                 // decision traces kept (newest)
};

struct MetricPoint
{
    qint64 atMs = 0;  // the bucket's start for rolled-up tiers
    double value = 0; // mean over the bucket
    double min = 0;
    double max = 0;
    qint64 count = 1;
};

// The newest point of a series, with its labels (for exporters).
struct LatestMetric
{
    SeriesKey key;
    QMap<QString, QString> labels;
    MetricPoint point;
    Tier tier = Tier::Raw;
};

} // namespace Zhaoxi::Storage
