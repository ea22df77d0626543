// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/clusterstate.h"
#include "core/sched/framework.h"
#include "core/trace/curves.h"
#include "core/trace/protocol.h"

#include <memory>
#include <optional>

namespace Zhaoxi::Trace {

struct BenchOptions
{
    QString policy = QStringLiteral("default"); // a name of Sched::placementPolicyNames()
    qint64 seed = 42;
    double tune = 1.3;
};

struct BenchResult
{
    QString policy;
    qint64 seed = 0;
    double tune = 0;
    int hosts = 0;
    int gpus = 0;
    int arrivals = 0; // pods replayed (originals and copies)
    int originals = 0;
    int placed = 0;
    int failed = 0;
    qint64 decisions = 0; // Framework::decide calls
    qint64 arrivedMilli = 0;
    qint64 allocatedMilli = 0;
    int targetShapes = 0;      // kept shapes of the target workload
    double targetCoverage = 0; // share of the pods they cover
    QList<Sample> samples;     // one per arrival
    Curves curves;
    double allocPctAt(int column) const { return curves.alloc.value(column); }
};

// One run of the FGD protocol through the real scheduling framework: the trace's hosts become a
// ClusterState of soft-sliced cards (one synthetic catalogue model per GPU model), each arrival a
// job that Framework::decide places and ClusterState::attachHost/bind commits, with the
// protocol's tie-break ranks set on the framework. prepare() does everything but the replay, so
// that callers can time replay() alone.
class PlaceBench
{
public:
    // nullopt, with *error, for an unknown policy or an unusable trace (a GPU model with no
    // card count, more than 64 GPUs on a host).
    static std::unique_ptr<PlaceBench> prepare(const QList<NodeRecord> &nodes,
                                               const QList<PodRecord> &pods,
                                               const BenchOptions &options,
                                               QString *error);
    // Replays every arrival once; call once.
    void replay();
    // ClusterState::checkInvariants() after the replay: empty when the state is consistent.
    QString verify() const { return m_state.checkInvariants(); }
    const BenchResult &result() const { return m_result; }
    const Sched::ClusterState &state() const { return m_state; }
    const ArrivalPlan &plan() const { return m_plan; }

    // The synthetic catalogue of a trace: one model per GPU model name, time-slicing with no
    // client limit and memory that never binds.
    static Catalogue::Catalogue catalogueFor(const QList<NodeRecord> &nodes);

private:
    PlaceBench() = default;
    BenchOptions m_options;
    ArrivalPlan m_plan;
    std::shared_ptr<const Sched::TargetWorkload> m_target;
    Sched::ResolvedWorkload m_metric;
    Sched::ClusterState m_state;
    std::unique_ptr<Sched::Framework> m_framework;
    Sched::DecisionWorkspace m_workspace;
    QList<Domain::WorkloadSpec> m_specs; // per plan pod
    BenchResult m_result;
};

} // namespace Zhaoxi::Trace
