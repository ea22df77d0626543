// SPDX-License-Identifier: GPL-3.0-or-later
#include "protocol.h"

#include <algorithm>

namespace Zhaoxi::Trace {

ArrivalPlan planArrivals(const QList<NodeRecord> &nodes,
                         const QList<PodRecord> &pods,
                         qint64 seed,
                         double tune)
{
    ArrivalPlan plan;
    GoRand rng(seed);
    rng.int63(); // the simulator logs one random integer first

    plan.pods = pods;
    std::stable_sort(
            plan.pods.begin(), plan.pods.end(), [](const PodRecord &a, const PodRecord &b) {
                return a.name.toUtf8() < b.name.toUtf8();
            });
    plan.nodes = nodes;
    std::stable_sort(
            plan.nodes.begin(), plan.nodes.end(), [](const NodeRecord &a, const NodeRecord &b) {
                return a.name.toUtf8() < b.name.toUtf8();
            });
    for (const NodeRecord &n : plan.nodes)
        plan.capacityMilli += qint64(n.gpus) * 1000;

    const int n = int(plan.pods.size());
    plan.arrivals.resize(n);
    for (int i = 0; i < n; ++i)
        plan.arrivals[i] = i;
    rng.shuffle(n, [&](qint64 i, qint64 j) { std::swap(plan.arrivals[i], plan.arrivals[j]); });

    qint64 demand = 0;
    for (const PodRecord &p : plan.pods)
        demand += p.gpuDemand();
    plan.demandBefore = demand;
    plan.targetMilli = tune * double(plan.capacityMilli);
    const double target = plan.targetMilli;
    const bool anyGpu = std::any_of(plan.pods.begin(), plan.pods.end(), [](const PodRecord &p) {
        return p.milliPerCard() > 0;
    });
    if (double(demand) < target && anyGpu) { // without GPU pods the loop could never stop
        // Padding: the stop test uses the drawn pod's per-card share, the sum its full demand.
        for (;;) {
            const int k = int(rng.intn(n));
            const PodRecord &p = plan.pods[k];
            if (double(demand + p.milliPerCard()) > target)
                break;
            plan.arrivals.append(k);
            demand += p.gpuDemand();
        }
    } else if (double(demand) > target) {
        while (double(demand) > target && !plan.arrivals.isEmpty()) {
            const int at = int(rng.intn(plan.arrivals.size()));
            demand -= plan.pods[plan.arrivals[at]].gpuDemand();
            plan.arrivals.removeAt(at);
        }
    }
    plan.originals = std::min(n, int(plan.arrivals.size()));
    plan.demandAfter = demand;

    for (int i = 0; i < 10; ++i)
        rng.int63(); // ten informers start and each takes one draw
    plan.ranks = rng.perm(int(plan.nodes.size()));
    return plan;
}

Sched::WorkloadShape shapeOf(const PodRecord &pod)
{
    Sched::WorkloadShape s;
    s.cpuMilli = pod.cpuMilli == 0 ? 100 : pod.cpuMilli;
    s.milli = pod.milliPerCard();
    s.cards = pod.numGpu;
    if (pod.numGpu >= 1)
        s.models = pod.gpuSpec;
    return s;
}

Sched::TargetWorkload targetWorkloadOf(const QList<PodRecord> &pods)
{
    Sched::TargetWorkload::Builder b;
    for (const PodRecord &p : pods)
        b.add(shapeOf(p), 1, p.memoryMiB);
    return b.build();
}

Domain::WorkloadSpec specOf(const PodRecord &pod)
{
    using Domain::ComputeDemand;
    Domain::WorkloadSpec s;
    s.name = pod.name;
    s.kind = Domain::WorkloadKind::Batch;
    s.isolation = Domain::IsolationRequirement::SoftAllowed;
    s.demand.hostCpuMilli = pod.cpuMilli == 0 ? 100 : pod.cpuMilli;
    s.demand.hostMemoryMiB = pod.memoryMiB;
    s.affinity.sameLinkDomain = false; // the trace knows no link domains
    const int m = pod.milliPerCard();
    if (m == 0) {
        s.demand.cards = 0;
        return s;
    }
    s.demand.cards = pod.numGpu;
    if (m >= 1000) {
        s.demand.compute.kind = ComputeDemand::Kind::WholeCard;
    } else {
        s.demand.compute.kind = ComputeDemand::Kind::Fraction;
        s.demand.compute.milli = m;
    }
    s.affinity.cardModels = pod.models();
    return s;
}

} // namespace Zhaoxi::Trace
