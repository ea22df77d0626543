// SPDX-License-Identifier: GPL-3.0-or-later
#include "dryrun.h"

#include "queueing.h"

#include <QHash>

#include <algorithm>
#include <limits>

namespace Zhaoxi::Policy {

namespace {

// Reads go to the context underneath; changes are kept in the plan. What the policy reads back
// after a change of its own follows the plan where that is plain to see: training it requeued
// is leaving (at a checkpoint) or gone (at once), so a second pass does not take it twice.
class DryRunContext final : public PolicyContext
{
public:
    DryRunContext(PolicyContext &inner, PolicyPlan &plan)
        : m_inner(inner)
        , m_plan(plan)
    {}

    const Sched::Scheduler &scheduler() const override { return m_inner.scheduler(); }
    qint64 localWeekMs(qint64 nowMs) const override { return m_inner.localWeekMs(nowMs); }
    qint64 totalMilli() const override { return m_inner.totalMilli(); }
    QList<ServiceView> services(qint64 nowMs) override
    {
        QList<ServiceView> views = m_inner.services(nowMs);
        if (m_firstServices.isEmpty())
            m_firstServices = views;
        return views;
    }
    QList<TrainingView> training(qint64 nowMs) override
    {
        QList<TrainingView> views = m_inner.training(nowMs);
        for (const TrainingView &v : std::as_const(views))
            m_training.insert(v.job.value(), v);
        QList<TrainingView> out;
        for (TrainingView v : views) {
            const auto it = m_leaving.constFind(v.job.value());
            if (it != m_leaving.cend()) {
                if (!*it)
                    continue; // requeued at once: no longer holds anything
                v.state = Sched::JobState::Preempting;
            }
            out.append(v);
        }
        return out;
    }
    void setReplicas(int service, int replicas, qint64 nowMs, ActionReason why) override
    {
        Q_UNUSED(nowMs)
        Q_UNUSED(why)
        m_replicas.insert(service, replicas);
    }
    bool moveReplica(int service,
                     JobId replica,
                     Domain::CardId card,
                     qint64 nowMs,
                     ActionReason why) override
    {
        Q_UNUSED(service)
        Q_UNUSED(card)
        Q_UNUSED(nowMs)
        Q_UNUSED(why)
        if (!m_plan.movedReplicas.contains(replica))
            m_plan.movedReplicas.append(replica);
        return true;
    }
    void setBudget(const Sched::ClassBudget &budget, qint64 nowMs, ActionReason why) override
    {
        Q_UNUSED(nowMs)
        Q_UNUSED(why)
        m_plan.budget = budget;
    }
    qint64 requeueTraining(JobId job, qint64 nowMs, bool atCheckpoint, ActionReason why) override
    {
        if (m_leaving.contains(job.value()))
            return -1;
        const Sched::ClusterState &st = m_inner.scheduler().state();
        if (!job.isValid() || job.value() >= st.jobs().size() || !st.job(job).isActive())
            return -1;
        if (!m_training.contains(job.value()))
            training(nowMs); // the views the lost work is counted from
        const TrainingView v = m_training.value(job.value());
        const qint64 interval = st.job(job).spec.checkpointIntervalMs;
        PolicyPlan::Eviction e;
        e.job = job;
        e.why = why;
        e.atCheckpoint = atCheckpoint && v.nextCheckpointMs >= 0;
        e.leavesAtMs = e.atCheckpoint ? std::max(nowMs, v.nextCheckpointMs) : nowMs;
        if (!e.atCheckpoint) {
            // Since the last checkpoint: one interval before the next (never before it started).
            const qint64 since = v.checkpoints && v.nextCheckpointMs >= 0 && interval > 0
                                         ? std::max(v.placedMs, v.nextCheckpointMs - interval)
                                         : v.placedMs;
            e.lostMs = std::max<qint64>(0, nowMs - since);
        }
        m_plan.evictions.append(e);
        m_leaving.insert(job.value(), e.atCheckpoint);
        return e.leavesAtMs;
    }
    bool keepTraining(JobId job, qint64 nowMs, ActionReason why) override
    {
        Q_UNUSED(nowMs)
        Q_UNUSED(why)
        const Sched::ClusterState &st = m_inner.scheduler().state();
        if (!job.isValid() || job.value() >= st.jobs().size()
            || st.job(job).state != Sched::JobState::Preempting)
            return false;
        if (!m_plan.kept.contains(job))
            m_plan.kept.append(job);
        return true;
    }
    void setTrainingPowerCapW(double watts, qint64 nowMs) override
    {
        Q_UNUSED(nowMs)
        m_plan.trainingPowerCapW = watts;
    }
    void setTrainingBandwidthShare(double share, qint64 nowMs) override
    {
        Q_UNUSED(nowMs)
        m_plan.trainingBandwidthShare = share;
    }
    void record(const Device::ApplianceEvent &event) override { m_plan.events.append(event); }
    QList<QList<double>> history(int service) const override { return m_inner.history(service); }
    HistoryDays historyDays(int service, qint64 nowMs) const override
    {
        return m_inner.historyDays(service, nowMs);
    }
    qint64 historyBucketMs() const override { return m_inner.historyBucketMs(); }

    // Each service as it is and as the plan leaves it.
    void finish(qint64 nowMs)
    {
        const QList<ServiceView> views
                = m_firstServices.isEmpty() ? m_inner.services(nowMs) : m_firstServices;
        for (const ServiceView &s : views) {
            PolicyPlan::ServiceChange c;
            c.service = s.index;
            c.name = s.name;
            c.sloMs = s.sloMs;
            c.observedRate = s.observedRate;
            c.replicasBefore = s.target;
            c.replicasAfter
                    = std::clamp(m_replicas.value(s.index, s.target), s.minReplicas, s.maxReplicas);
            c.p99AfterMs = c.replicasAfter > 0 ? latencyQuantileMs(
                                   c.replicasAfter,
                                   s.observedRate / 1000.0,
                                   s.currentServiceMs > 0 ? s.currentServiceMs : s.serviceMs,
                                   s.cv,
                                   0.99)
                                               : std::numeric_limits<double>::infinity();
            c.atRisk = c.replicasAfter < c.replicasBefore && c.p99AfterMs > c.sloMs;
            m_plan.services.append(c);
        }
    }

private:
    PolicyContext &m_inner;
    PolicyPlan &m_plan;
    QList<ServiceView> m_firstServices;
    QHash<int, TrainingView> m_training; // by job id, as first seen
    QHash<int, bool> m_leaving;          // requeued: at a checkpoint (true) or at once
    QHash<int, int> m_replicas;          // by service: the last count asked for
};

} // namespace

PolicyPlan dryRun(Policy &policy, PolicyContext &ctx, qint64 nowMs)
{
    PolicyPlan plan;
    DryRunContext dry(ctx, plan);
    policy.start(dry, nowMs);
    dry.finish(nowMs);
    return plan;
}

} // namespace Zhaoxi::Policy
