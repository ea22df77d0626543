// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "clusterstate.h"
#include "status.h"

#include <QList>

namespace Zhaoxi::Sched {

// What the scheduler did, as codes with parameters (the UI words them; HOUSE_STYLE 4).
// Append only: codes are stored.
enum class EventCode : std::uint8_t {
    JobSubmitted,
    JobPlaced,     // host, units
    JobWaiting,    // reason, need, have (recorded when a job's waiting reason changes)
    JobPreempting, // job chosen as a victim of `other`; evictionAtMs
    JobEvicted,    // workLostMs
    JobFinished,
    JobCancelled,
    JobFailed,
    PartitionCreated,   // card, uid, profile, start
    PartitionDestroyed, // card, uid, profile, start
    CardModeChanged,    // card, mode
    CardFailed,
    CardRecovered,
    BudgetChanged,
    JobPriorityChanged, // priority (the new one), previousPriority (an operator's change)
    LayoutPinned,       // card, untilMs (-1: until unpinned): an operator's pin
    LayoutUnpinned,     // card; expired (its time came) or an operator's unpin
    // card, job (what it was for; none for a reclaim), cause, operatorAtMs: the scheduler or the
    // twin changed the layout or mode of a card an operator changed within the last 30 minutes
    CardChangedAfterOperator,
};

// Why the appliance changed a card's layout on its own (CardChangedAfterOperator).
enum class AutoChangeCause : std::uint8_t {
    WaitingJob,  // a waiting job needed another instance or mode (job: which)
    ReclaimIdle, // waiting training reclaimed an idle partitioned card as one whole instance
};
const char *autoChangeCauseName(AutoChangeCause cause);

const char *eventCodeName(EventCode code);

struct SchedEvent
{
    qint64 atMs = 0;
    EventCode code = EventCode::JobSubmitted;
    JobId job;
    JobId other;
    HostId host;
    CardId card;
    int uid = -1;
    int profile = -1;
    int start = -1;
    qint64 evictionAtMs = -1; // JobPreempting: when the victim is evicted
    qint64 workLostMs = 0;    // JobEvicted: work since its checkpoint
    Domain::PartitionMode mode = Domain::PartitionMode::Whole; // CardModeChanged
    int priority = 0;                                          // JobPriorityChanged
    int previousPriority = 0;                                  // JobPriorityChanged
    qint64 untilMs = -1;                                       // LayoutPinned
    bool expired = false;                                      // LayoutUnpinned
    AutoChangeCause cause = AutoChangeCause::WaitingJob;       // CardChangedAfterOperator
    qint64 operatorAtMs = -1;                                  // CardChangedAfterOperator
    Reason reason = Reason::None;
    qint64 need = 0; // JobWaiting: the reason's parameters (Status::need, Status::have)
    qint64 have = 0;
};

// Receives every event as it happens, on the scheduler's thread.
class EventSink
{
public:
    virtual ~EventSink() = default;
    virtual void record(const SchedEvent &event) = 0;
};

struct Step;

// Receives every committed Statement's steps, in order, as the statement commits and before the
// events they make are published; on the scheduler's thread. The device bridge turns them into
// the backend's orders (core/runtime/devicebridge.h).
class StepSink
{
public:
    virtual ~StepSink() = default;
    virtual void committed(const QList<Step> &steps, qint64 nowMs) = 0;
};

// Keeps events in memory (tests, the simulator's reports). Bounded when `capacity` > 0.
class MemoryEventSink final : public EventSink
{
public:
    explicit MemoryEventSink(qsizetype capacity = 0)
        : m_capacity(capacity)
    {}
    void record(const SchedEvent &event) override
    {
        if (m_capacity > 0 && m_events.size() >= m_capacity)
            m_events.removeFirst();
        m_events.append(event);
        ++m_total;
    }
    const QList<SchedEvent> &events() const { return m_events; }
    // Events recorded ever (the oldest beyond the capacity are no longer in events()).
    qint64 total() const { return m_total; }
    int count(EventCode code) const
    {
        int n = 0;
        for (const SchedEvent &e : m_events)
            n += e.code == code;
        return n;
    }
    void clear() { m_events.clear(); }

private:
    qsizetype m_capacity;
    qint64 m_total = 0;
    QList<SchedEvent> m_events;
};

} // namespace Zhaoxi::Sched
