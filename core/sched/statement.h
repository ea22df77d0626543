// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "clusterstate.h"
#include "plugin.h"

#include <QList>

#include <optional>

namespace Zhaoxi::Sched {

// One change a Statement made, in order; the committed list is the plan the device backend and
// the event log see.
struct Step
{
    enum class Kind : std::uint8_t {
        Place,            // job bound to `units` on `host`
        Evict,            // job unbound, back to the queue with its checkpoint (lost = value)
        MarkPreempting,   // job chosen as a victim of `other`; evicted at `value`
        Finish,           // job ended (state in `jobState`)
        CreatePartition,  // MIG instance (profile, start) -> uid
        DestroyPartition, // MIG instance uid
        SetMode,          // card partition mode
        SetUnitState,
    };
    Kind kind = Kind::Place;
    JobId job;
    JobId other;
    HostId host;
    CardId card;
    int uid = -1;
    int profile = -1;
    int start = -1;
    qint64 value = 0;
    PartitionMode mode = PartitionMode::Whole;
    UnitState unitState = UnitState::Ready;
    JobState jobState = JobState::Pending;
    QList<UnitChoice> units;
    int shape = -1; // Place: the job's shape (Placement::shape)
};

// A transaction over a ClusterState (Volcano's Statement; Kubernetes Reserve/Unreserve).
// Every operation applies at once, so later operations and filters see its effect; discard()
// undoes them in reverse order and leaves the state equal (operator==) to where it began;
// commit() keeps them. Destroying an uncommitted Statement discards it. Calling commit() or
// discard() twice, or releasing a job twice, is harmless. Not thread-safe.
class Statement
{
public:
    explicit Statement(ClusterState &state);
    ~Statement();
    Statement(const Statement &) = delete;
    Statement &operator=(const Statement &) = delete;

    ClusterState &state() { return m_state; }

    // Binds a pending job per the placement: attaches its host, creates MIG instances it needs,
    // binds its units and marks it running from `nowMs` (over its class's budget: Job::overBudget)
    // in the placement's shape (Job::shape).
    void place(JobId job, const Placement &placement, qint64 nowMs, bool overBudget = false);
    // Takes a running (or preempting) job off its units: progress rolls back to the last
    // checkpoint (the rest counts as lost) and the job returns to the queue. No-op otherwise.
    void evict(JobId job, qint64 nowMs);
    void markPreempting(JobId victim, JobId by, qint64 evictAtMs);
    // Ends a job (Finished, Cancelled or Failed), freeing its units. No-op on an ended job.
    void finish(JobId job, JobState terminal, qint64 nowMs);
    int createPartition(CardId card, int profile, int start, UnitState state = UnitState::Ready);
    void destroyPartition(CardId card, int uid);
    void setUnitState(CardId card, int uid, UnitState state);
    void setMode(CardId card, PartitionMode mode);

    void commit();
    void discard();
    bool isOpen() const { return !m_closed; }
    const QList<Step> &steps() const { return m_steps; }

private:
    struct Undo
    {
        std::optional<CardState> card;
        std::optional<HostState> host;
        std::optional<Job> job;
        ClassUsage usage;
    };
    void save(std::optional<JobId> job, std::optional<CardId> card, std::optional<HostId> host);
    void release(JobId job, qint64 nowMs);

    ClusterState &m_state;
    QList<Undo> m_undo;
    QList<Step> m_steps;
    bool m_closed = false;
};

} // namespace Zhaoxi::Sched
