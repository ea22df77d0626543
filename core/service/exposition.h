// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The appliance's metrics in the Prometheus text exposition format 0.0.4, for the service's
// /metrics (metricsendpoint.h) and NVIDIA's dcgm-exporter Grafana dashboard (docs/metrics.md).
//
// Per card and MIG instance, dcgm-exporter's names, units and labels (gpu, UUID, device,
// modelName, GPU_I_PROFILE, GPU_I_ID, Hostname; the labels Storage::Recorder::deviceLabels gives
// the store's series, so both name a device alike). As dcgm-exporter does in its default
// ("flexible") mode, a card with MIG instances is reported per instance, each series carrying
// GPU_I_PROFILE and GPU_I_ID and the card-wide readings (temperature, power, SM clock) repeated
// as DCGM reports them for every instance; any other card is reported once, without GPU_I_*.
//
//   DCGM_FI_DEV_GPU_UTIL             %     cards not in MIG mode only (the driver has none under MIG)
//   DCGM_FI_DEV_FB_USED / _FB_FREE   MiB   per card or instance
//   DCGM_FI_DEV_GPU_TEMP             C
//   DCGM_FI_DEV_POWER_USAGE          W
//   DCGM_FI_DEV_SM_CLOCK             MHz   modelled: maxSmClockMHz x the card's clock factor
//   DCGM_FI_PROF_GR_ENGINE_ACTIVE    0..1  per card or instance
//   DCGM_FI_PROF_PIPE_TENSOR_ACTIVE  0..1  modelled from the classes' utilisation (below)
//
// A reading the snapshot does not have (NaN utilisation on a real MIG card, an unknown clock, a
// model without maxSmClockMHz) leaves its series out, as dcgm-exporter leaves out a blank
// field: an absent series is "not available", never a zero. Lost cards have no series.
//
// The rest is zhaoxi_*: the appliance and policy in force, compute allocated, busy and allowed
// per class, per service latency quantiles, SLO attainment, replicas and request rate, per job
// throughput, progress and loss, the queue, and counters of preemptions, evictions,
// reconfiguration steps and window switches counted from the snapshots' events. No sample has
// a timestamp: the twin's clock is virtual, and Prometheus stamps a scrape with its own time.
//
// Threads: a MetricsExporter is used from one thread (observe and render alike); the free
// function is pure and reentrant.

#include "core/session/snapshot.h"
#include "core/storage/metrics.h"

#include <QByteArray>
#include <QStringList>

#include <memory>

namespace Zhaoxi::Service {

struct ExpositionLabels; // device label sets kept between renders (exposition.cpp)

// The modelled values' constants (the store's recorder uses the same ones).
namespace MetricsModel = Storage::MetricsModel;

// What the counters have seen since the exporter was made (Prometheus counters: they start at
// 0 with the process; rate() and increase() handle the reset).
struct MetricCounters
{
    quint64 snapshots = 0;           // snapshots observed
    quint64 preemptions = 0;         // "job-preempting" with a preemptor ("other")
    quint64 evictions = 0;           // "job-evicted": a job taken off its units before its end
    quint64 partitionsCreated = 0;   // "partition-created"
    quint64 partitionsDestroyed = 0; // "partition-destroyed"
    quint64 modeChanges = 0;         // "card-mode-changed"
    quint64 windowSwitches = 0;      // "window-opened": the window in force changed
    friend bool operator==(const MetricCounters &, const MetricCounters &) = default;
};

// Adds what `events` tell to `counters` (the codes above; others are ignored).
void countEvents(const QList<Storage::Event> &events, MetricCounters *counters);

// The exposition of one snapshot with those counters. `cardUuids` (index = card id) are the
// driver's UUIDs where known; others get Recorder::deviceLabels' stable made-up ones.
QByteArray renderExposition(const Session::Snapshot &snapshot,
                            const MetricCounters &counters,
                            const QStringList &cardUuids = {});

// Fed every snapshot the session publishes, renders the latest on request. Counters accumulate
// from each snapshot's events, which a snapshot carries once ("since the previous snapshot"):
// feed it every snapshot (the session's snapshotReady), not only the latest() at scrape time.
// An event already counted (its store id not above the highest counted) is not counted again,
// so observing one snapshot twice changes nothing.
class MetricsExporter
{
public:
    MetricsExporter();
    ~MetricsExporter();
    MetricsExporter(const MetricsExporter &) = delete;
    MetricsExporter &operator=(const MetricsExporter &) = delete;

    // The driver's UUIDs by card id (a real appliance's; empty entries: made-up ones).
    void setCardUuids(QStringList uuids);

    void observe(Session::SnapshotPtr snapshot);     // keeps the pointer
    void observe(const Session::Snapshot &snapshot); // keeps a copy (implicitly shared lists)

    const MetricCounters &counters() const { return m_counters; }
    Session::SnapshotPtr latest() const { return m_latest; }

    // The text for the latest snapshot; before any, only the counters and
    // zhaoxi_snapshots_total 0. Device label sets are kept between calls, rebuilt only for a
    // card or instance whose host, model, position, profile or UUID changed.
    QByteArray render() const;

private:
    void count(const Session::Snapshot &snapshot);

    Session::SnapshotPtr m_latest;
    MetricCounters m_counters;
    QStringList m_uuids;
    qint64 m_lastEventId = 0;
    quint64 m_lastSerial = 0;
    std::unique_ptr<ExpositionLabels> m_labels; // a cache: render() stays const
};

} // namespace Zhaoxi::Service
