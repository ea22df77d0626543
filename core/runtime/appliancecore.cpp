// SPDX-License-Identifier: GPL-3.0-or-later
#include "appliancecore.h"

namespace Zhaoxi::Runtime {

namespace {
constexpr qint64 kDayMs = 24 * 3600'000LL;
} // namespace

ApplianceCore::ApplianceCore(const Sched::ClusterState &state,
                             const Sched::SchedulerOptions &options,
                             qint64 utcOffsetMs)
    : m_sched(std::make_unique<Sched::Scheduler>(state, Sched::defaultProfile(), options))
    , m_utcOffsetMs(utcOffsetMs)
{
    m_sched->addSink(&m_schedEvents);
}

ApplianceCore::~ApplianceCore() = default;

qint64 ApplianceCore::localWeekMs(qint64 nowMs) const
{
    return nowMs + m_utcOffsetMs + 3 * kDayMs; // the epoch was a Thursday
}

qint64 ApplianceCore::totalMilli() const
{
    return m_sched->state().totalMilli();
}

void ApplianceCore::setBudget(const Sched::ClassBudget &budget,
                              qint64 nowMs,
                              Policy::ActionReason why)
{
    if (budget == m_sched->classBudget())
        return;
    m_sched->setClassBudget(budget, nowMs);
    record(Policy::budgetSetEvent(budget, nowMs, why));
    changed(nowMs);
}

qint64 ApplianceCore::requeueTraining(Domain::JobId job,
                                      qint64 nowMs,
                                      bool atCheckpoint,
                                      Policy::ActionReason why)
{
    const qint64 at = m_sched->requeue(job, nowMs, atCheckpoint);
    if (at < 0)
        return at;
    record(Policy::trainingRequeuedEvent(job, nowMs, atCheckpoint, at, why));
    requeued(job, at, nowMs);
    return at;
}

bool ApplianceCore::cordonCard(
        int card, bool cordoned, bool drain, qint64 nowMs, Domain::Problem *why)
{
    const Sched::ClusterState &st = m_sched->state();
    if (card < 0 || card >= st.cards().size())
        return Domain::refuse(
                why, Domain::Problem(Domain::Problem::Code::NoCard, {QString::number(card)}));
    const Domain::CardId id(card);
    const bool drainOnly = cordoned && drain && st.card(id).operatorCordoned;
    if (!drainOnly && !m_sched->setOperatorCordon(id, cordoned, nowMs, why))
        return false;
    if (!cordoned || !drain)
        return true;
    for (const DrainStep &step : drainPlan(st, id))
        requeueTraining(step.job, nowMs, step.atCheckpoint, Policy::ActionReason::Drain);
    return true;
}

QList<DrainStep> drainPlan(const Sched::ClusterState &state, Domain::CardId card)
{
    QList<DrainStep> plan;
    for (const Domain::JobId job : state.jobsOn(card)) {
        const Sched::Job &j = state.job(job);
        if (!j.isActive() || j.state == Sched::JobState::Preempting)
            continue; // already leaving
        plan.append({job,
                     j.spec.kind != Domain::WorkloadKind::Inference
                             && j.spec.preemption == Domain::PreemptionTolerance::AtCheckpoint
                             && j.spec.checkpointIntervalMs > 0});
    }
    return plan;
}

bool ApplianceCore::keepTraining(Domain::JobId job, qint64 nowMs, Policy::ActionReason why)
{
    if (!m_sched->keep(job, nowMs))
        return false;
    record(Policy::trainingKeptEvent(job, nowMs, why));
    kept(job, nowMs);
    return true;
}

void ApplianceCore::setTrainingPowerCapW(double watts, qint64 nowMs)
{
    qosChanged(Qos::PowerCap, watts, nowMs);
    record(Policy::trainingPowerCapEvent(watts, nowMs));
}

void ApplianceCore::setTrainingBandwidthShare(double share, qint64 nowMs)
{
    qosChanged(Qos::BandwidthShare, share, nowMs);
    record(Policy::trainingBandwidthEvent(share, nowMs));
}

void ApplianceCore::record(const Device::ApplianceEvent &event)
{
    m_events.record(event);
    recorded(event);
}

void ApplianceCore::requeued(Domain::JobId, qint64, qint64 nowMs)
{
    changed(nowMs);
}

void ApplianceCore::kept(Domain::JobId, qint64 nowMs)
{
    changed(nowMs);
}

void ApplianceCore::qosChanged(Qos, double, qint64) {}

void ApplianceCore::recorded(const Device::ApplianceEvent &) {}

} // namespace Zhaoxi::Runtime
