// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/domain/workloadspec.h"
#include "core/sched/targetworkload.h"
#include "core/trace/gorand.h"
#include "core/trace/openbtrace.h"

#include <QList>

namespace Zhaoxi::Trace {

// The FGD evaluation protocol's preparation of one run (FGD_PROTOCOL.md 3.1-3.5): the arrival
// order, the demand tuned to `tune` x capacity, and the hosts' tie-break ranks, all drawn from one
// Go math/rand stream seeded with the run's seed, in the simulator's order.
struct ArrivalPlan
{
    QList<PodRecord> pods;    // the trace sorted by name (byte-wise); arrivals index into it
    QList<int> arrivals;      // pod indices in arrival order (shuffled originals, then copies)
    int originals = 0;        // how many arrivals are original pods (copies follow them)
    QList<NodeRecord> nodes;  // the hosts sorted by name
    QList<int> ranks;         // tie-break rank of nodes[i]; lower wins
    qint64 capacityMilli = 0; // sum over hosts of gpus x 1000
    double targetMilli = 0;   // tune x capacity
    qint64 demandBefore = 0;  // GPU demand of the trace
    qint64 demandAfter = 0;   // GPU demand of the arrivals
};

// Steps, from a generator seeded with `seed`: one draw discarded; sort and Shuffle the pods;
// pad by drawing pods with Intn(trace length) until the next one's per-card share would pass the
// target (copies appended at the end), or thin by removing random positions while above it; ten
// draws discarded; node ranks from Perm(host count). A trace without any GPU demand is not padded
// (nothing could ever reach the target).
ArrivalPlan planArrivals(const QList<NodeRecord> &nodes,
                         const QList<PodRecord> &pods,
                         qint64 seed,
                         double tune = 1.3);

// The shape of a pod for the target workload (protocol 3.5): CPU, per-card share, num_gpu and
// gpu_spec as written (empty when the pod asks for no GPU).
Sched::WorkloadShape shapeOf(const PodRecord &pod);
// The target workload of a trace (3.5): every pod counted, the 95 % popularity cut.
Sched::TargetWorkload targetWorkloadOf(const QList<PodRecord> &pods);

// A pod as a job spec (protocol 2.2): batch; cards = num_gpu with a per-card share (a whole
// card at 1000), or a CPU-only job when it asks for no GPU share; gpu_spec as allowed models;
// host CPU (0 becomes 100) and memory for the whole pod; soft sharing allowed.
Domain::WorkloadSpec specOf(const PodRecord &pod);

} // namespace Zhaoxi::Trace
