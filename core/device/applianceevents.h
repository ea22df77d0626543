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
    StepStarted,          // card, step kind in `a`, profile/start in b/c
    StepDone,             // card, step kind in `a`, profile/start in b/c, duration ms in `value`
    StepFailed,           // card, step kind in `a`, `reason`
    FaultCardLost,        // card
    FaultMemoryError,     // card
    FaultThermalThrottle, // card, value = duration ms
    CardRecovered,        // card
    ThrottleStarted,      // card (temperature above its limit), value = temperature (m°C)
    ThrottleEnded,        // card
    // policy
    WindowSwitch,      // a = window index, value = when it opens (prepared ahead of the edge)
    WindowOpened,      // a = window index
    BudgetSet,         // value = training milli, a = inference milli (-1 = unlimited)
    ReplicaAdded,      // service in `a`, job
    ReplicaRemoved,    // service in `a`, job
    TrainingRequeued,  // job, reason, value = when it leaves, a = 1 at checkpoint / 0 at once
    TrainingKept,      // job, reason: a requeue at checkpoint called off before it happened
    GuardPressure,     // service in `a`, value = window p99 (µs), b = queue depth
    GuardRelease,      // service in `a`: capacity returned to training
    ForecastRamp,      // service in `a`, value = forecast replicas
    PowerCapSet,       // a = class (WorkloadKind), value = watts (-1 = uncapped)
    BandwidthQuotaSet, // a = class, value = share in 1/1000
    // workload
    TrainingCheckpoint, // job, value = work saved (ms of reference-card time)
    TrainingResumed,    // job, value = work lost since its checkpoint (ms)
    TrainingCompleted,  // job
    RequestsFailedOver, // service in `a`, value = requests re-dispatched from a lost replica
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
};

const char *toString(ApplianceEventCode code);
const char *toString(ActionReason reason);

struct ApplianceEvent
{
    qint64 atMs = 0;
    ApplianceEventCode code = ApplianceEventCode::StepDone;
    ActionReason reason = ActionReason::None;
    CardId card;
    JobId job;
    int a = -1;
    int b = -1;
    int c = -1;
    qint64 value = 0;
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
