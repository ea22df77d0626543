// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/domain/ids.h"

#include <QList>

#include <cstdint>

namespace Zhaoxi::Device {

using Domain::CardId;
using Domain::HostId;
using Domain::JobId;

// What the appliance did beside the scheduler (core/sched/events.h has the scheduler's own):
// device steps and faults, colocation policy actions, workload milestones. Codes with parameters;
// words belong to the UI (HOUSE_STYLE 4). Append only: codes are stored.
enum class ApplianceEventCode : std::uint8_t {
    // device
    StepStarted,          // card, stepKind, profile, start
    StepDone,             // card, stepKind, profile, start, durationMs
    StepFailed,           // card, stepKind, profile, start, reason, error
    FaultCardLost,        // card
    FaultMemoryError,     // card
    FaultThermalThrottle, // card, durationMs
    CardRecovered,        // card
    ThrottleStarted,      // card (temperature above its limit), temperatureMilliC
    ThrottleEnded,        // card, temperatureMilliC
    // policy
    WindowSwitch,      // windowIndex, opensAtMs (prepared ahead of the edge)
    WindowOpened,      // windowIndex
    BudgetSet,         // trainingMilli, inferenceMilli (-1 = unlimited)
    ReplicaAdded,      // service, job (card: where it was asked for, when one was)
    ReplicaRemoved,    // service, job
    TrainingRequeued,  // job, reason, leavesAtMs, atCheckpoint
    TrainingKept,      // job, reason: a requeue at checkpoint called off before it happened
    GuardPressure,     // service, p99Us, queueDepth
    GuardRelease,      // service, replicas: capacity returned to training
    ForecastRamp,      // service, forecastMilliRps
    PowerCapSet,       // workloadClass, watts (-1 = uncapped)
    BandwidthQuotaSet, // workloadClass, sharePermille
    // workload
    TrainingCheckpoint, // job, workSavedMs
    TrainingResumed,    // job, card, workSavedMs, workLostMs
    TrainingCompleted,  // job
    RequestsFailedOver, // service, job (the lost replica), requests
};

// Why a policy or the device acted.
enum class ActionReason : std::uint8_t {
    None,
    Window,       // a window edge
    SloAtRisk,    // window p99 above the SLO: act at once
    Pressure,     // p99 or queue depth approaching the limit: act at the next checkpoint
    LoadFell,     // hysteresis satisfied: return capacity
    ForecastRamp, // a forecast ramp ahead
    StaticShare,  // the static split
    DeviceInUse,  // "in use": the instance serves work
    InvalidOrder, // the driver refused the order
    GpuLost,      // the card is gone
    LoadRose,     // the observed (or forecast) load needs more replicas
    Consolidate,  // small training leaves a card a waiting whole-card job can use
    Drain,        // an operator drains the card the job runs on
};

const char *toString(ApplianceEventCode code);
const char *toString(ActionReason reason);

// One appliance event. Each code sets the members its comment above names; the others keep their
// defaults. A member means the same for every code that sets it. Work is counted in ms of
// reference-card time (Sim::TrainingRun), rates and budgets in thousandths.
struct ApplianceEvent
{
    qint64 atMs = 0;
    ApplianceEventCode code = ApplianceEventCode::StepDone;
    ActionReason reason = ActionReason::None;
    CardId card;
    JobId job;
    // Device steps: the order's kind (Device::DeviceStep::Kind), its MIG profile index in the
    // card model and its start slice (-1: none, e.g. a mode change).
    int stepKind = -1;
    int profile = -1;
    int start = -1;
    qint64 durationMs = 0;        // how long the step took, or a thermal fault lasts
    int error = 0;                // a failed step's Device::DeviceError
    qint64 temperatureMilliC = 0; // the card's temperature when throttling started or ended
    // Policy
    int windowIndex = -1;        // the time window (-1: none in force)
    qint64 opensAtMs = 0;        // when the window prepared for opens (UTC epoch ms)
    qint64 trainingMilli = -1;   // the training class's budget in milli-cards (-1: unlimited)
    qint64 inferenceMilli = -1;  // the inference class's budget in milli-cards (-1: unlimited)
    int service = -1;            // the inference service (its index in the scenario)
    qint64 leavesAtMs = 0;       // when a requeued training job leaves its cards
    bool atCheckpoint = false;   // it leaves at its next checkpoint (false: at once)
    qint64 p99Us = 0;            // the service's window p99 latency
    int queueDepth = 0;          // requests queued at the service
    int replicas = 0;            // the replicas the service keeps
    qint64 forecastMilliRps = 0; // the forecast request rate ahead (thousandths of a request/s)
    int workloadClass = -1;      // Domain::WorkloadKind
    qint64 watts = -1;           // a power cap (-1: uncapped)
    int sharePermille = 1000;    // a host bandwidth share (1000: unlimited)
    // Workload
    qint64 workSavedMs = 0; // the work a checkpoint holds (what a resumed job starts from)
    qint64 workLostMs = 0;  // the work done after the last checkpoint, lost by the eviction
    qint64 requests = 0;    // requests re-sent from a lost replica
};

// Receives every appliance event as it happens, on the simulation's (or console's) thread.
class ApplianceEventSink
{
public:
    virtual ~ApplianceEventSink() = default;
    virtual void record(const ApplianceEvent &event) = 0;
};

// Keeps appliance events in memory (tests, reports). Bounded when `capacity` > 0 (oldest go first).
class MemoryApplianceEventSink final : public ApplianceEventSink
{
public:
    explicit MemoryApplianceEventSink(qsizetype capacity = 0)
        : m_capacity(capacity)
    {}
    void record(const ApplianceEvent &event) override
    {
        if (m_capacity > 0 && m_events.size() >= m_capacity)
            m_events.removeFirst();
        m_events.append(event);
        ++m_total;
    }
    const QList<ApplianceEvent> &events() const { return m_events; }
    // Events recorded ever (the oldest beyond the capacity are no longer in events()).
    qint64 total() const { return m_total; }
    int count(ApplianceEventCode code) const
    {
        int n = 0;
        for (const ApplianceEvent &e : m_events)
            n += e.code == code;
        return n;
    }
    void clear() { m_events.clear(); }

private:
    qsizetype m_capacity;
    qint64 m_total = 0;
    QList<ApplianceEvent> m_events;
};

} // namespace Zhaoxi::Device
