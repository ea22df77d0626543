// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "decisiontrace.h"
#include "framework.h"

#include <optional>

namespace Zhaoxi::Sched {

struct PreemptionOptions
{
    qint64 graceMs = 30'000;              // notice a victim gets before eviction
    qint64 maxCheckpointWaitMs = 600'000; // "at checkpoint" victims: wait at most this long
    // Checkpoints are taken when asked (a real process is signalled and acknowledges through
    // Scheduler::checkpointed) instead of every checkpointInterval of progress: an "at
    // checkpoint" victim is then given maxCheckpointWaitMs to acknowledge, and leaves as soon
    // as it does.
    bool checkpointOnRequest = false;
    qint64 classBudgetLeft = -1; // for the preemptor's class, after the victims leave
    CardId onlyCard;             // valid: the preemptor must land on this card (an operator's drop)
};

struct PreemptionPlan
{
    HostId host;
    QList<Victim> victims; // cheapest set that lets the preemptor fit on `host`
    Placement placement;   // where the preemptor goes once they have left
    qint64 readyAtMs = 0;  // when the last victim is evicted
};

// Finds the cheapest way to make room for `preemptor` by evicting lower-priority jobs, on the
// state as it is (all trial evictions happen in Statements that are discarded: `state` is left
// equal to how it came). Victims: active jobs of lower priority whose tolerance is not Never.
// Cost order per host: highest victim priority, then total work lost since checkpoints, then the
// number of victims; victims whose removal turns out unneeded are reprieved. "At checkpoint"
// victims are evicted at their next checkpoint (losing nothing) when that comes within
// maxCheckpointWaitMs, otherwise after the grace period like "restart" ones. With
// checkpointOnRequest their eviction time is the deadline now + maxCheckpointWaitMs.
std::optional<PreemptionPlan> planPreemption(const Framework &framework,
                                             ClusterState &state,
                                             JobId preemptor,
                                             qint64 nowMs,
                                             const PreemptionOptions &options);

} // namespace Zhaoxi::Sched
