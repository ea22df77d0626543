// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "policy.h"

#include <optional>

namespace Zhaoxi::Policy {

// What a policy would do at once if it took over now: the answer to "what will this switch do?"
// before an operator confirms it. Found by starting the policy against a context that passes
// every read through and keeps every change instead of making it, so nothing on the appliance
// moves. Its first step only: what follows from the changes (the replicas that would then be
// placed, a later window) is not played.
struct PolicyPlan
{
    struct Eviction
    {
        JobId job;
        bool atCheckpoint = false; // leaves at its next checkpoint, losing nothing
        qint64 leavesAtMs = 0;
        // Work it loses: since its last checkpoint (or its start when it has none); 0 at a
        // checkpoint.
        qint64 lostMs = 0;
        ActionReason why = ActionReason::None;
    };
    struct ServiceChange
    {
        int service = 0;
        QString name;
        int replicasBefore = 0; // asked for now (placed or waiting, not draining)
        int replicasAfter = 0;  // what the policy asks for, clamped to the service's range
        double sloMs = 0;
        double observedRate = 0; // req/s over the sliding window
        // The p99 latency the replicas after would give at the observed rate (queueing
        // estimate; infinite when they cannot keep up).
        double p99AfterMs = 0;
        // Fewer replicas than now, and the estimate above the SLO.
        bool atRisk = false;
    };

    std::optional<Sched::ClassBudget> budget; // the class budget it would set
    QList<Eviction> evictions;                // training it would requeue
    QList<JobId> kept;                        // requeues at a checkpoint it would call off
    QList<JobId> movedReplicas;               // replicas it would move to another card
    QList<ServiceChange> services;            // every service, changed or not
    std::optional<double> trainingPowerCapW;
    std::optional<double> trainingBandwidthShare;
    QList<Device::ApplianceEvent> events; // what it would record (a window switch ahead, ...)
};

// Starts `policy` (a fresh one: the candidate, not the one in force) against `ctx` at `nowMs`
// and returns what it asked for. `ctx` is only read.
PolicyPlan dryRun(Policy &policy, PolicyContext &ctx, qint64 nowMs);

} // namespace Zhaoxi::Policy
