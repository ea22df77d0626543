// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "devicebridge.h"

#include "core/device/applianceevents.h"
#include "core/policy/policy.h"
#include "core/sched/scheduler.h"

#include <memory>

namespace Zhaoxi::Runtime {

// What the digital twin (Sim::Engine) and the real appliance (LiveRun: zhaoxictl run and the
// console's hardware session) are alike: the Scheduler and its event log, the colocation policy
// in force, the device bridge, the appliance's events, and the part of the PolicyContext that
// acts on the scheduler itself (class budgets, training requeued at a checkpoint or at once, a
// requeue called off, the QoS knobs, events). What differs — the workloads the policy sees and
// sizes (modelled or real processes) and the clock that drives them (virtual or wall) — is the
// subclass's, told through the hooks below after each of those commands.
//
// Single-threaded: the owner's thread. Not copyable.
// What a drain of `card` does to each job on it (ApplianceCore::cordonCard, and the console's
// question before it): training and batch that checkpoint leave at their next checkpoint, the
// rest at once. Jobs already leaving are not in it.
struct DrainStep
{
    Domain::JobId job;
    bool atCheckpoint = false;
};
QList<DrainStep> drainPlan(const Sched::ClusterState &state, Domain::CardId card);

class ApplianceCore : public Policy::PolicyContext
{
public:
    ~ApplianceCore() override;
    ApplianceCore(const ApplianceCore &) = delete;
    ApplianceCore &operator=(const ApplianceCore &) = delete;

    const Sched::Scheduler &scheduler() const override { return *m_sched; }
    Sched::Scheduler &mutableScheduler() { return *m_sched; }
    const Sched::MemoryEventSink &schedulerEvents() const { return m_schedEvents; }
    const Device::MemoryApplianceEventSink &applianceEvents() const { return m_events; }
    Policy::Policy *policy() const { return m_policy.get(); }
    const QString &policyName() const { return m_policyName; }

    // --- PolicyContext: the scheduler's side -------------------------------------------------
    // Local time of the week from `nowMs` (UTC): the appliance's offset, weeks from Monday 00:00.
    qint64 localWeekMs(qint64 nowMs) const override;
    qint64 totalMilli() const override;
    // An unchanged budget does nothing; otherwise set, recorded (budget-set) and changed().
    void setBudget(const Sched::ClassBudget &budget,
                   qint64 nowMs,
                   Policy::ActionReason why) override;
    // Scheduler::requeue, recorded (training-requeued) and requeued(); -1: not running.
    qint64 requeueTraining(Domain::JobId job,
                           qint64 nowMs,
                           bool atCheckpoint,
                           Policy::ActionReason why) override;
    // Scheduler::keep, recorded (training-kept) and kept().
    bool keepTraining(Domain::JobId job, qint64 nowMs, Policy::ActionReason why) override;
    // Recorded; qosChanged() applies them (the twin's physics; a real card has no such knob).
    void setTrainingPowerCapW(double watts, qint64 nowMs) override;
    void setTrainingBandwidthShare(double share, qint64 nowMs) override;
    // Kept in applianceEvents(), then recorded().
    void record(const Device::ApplianceEvent &event) override;

    // --- The operator's --------------------------------------------------------------------
    // Cordons a card (Scheduler::setOperatorCordon) or uncordons it; with `drain`, every job on
    // it also goes back to the queue through requeueTraining (reason: drain): training and batch
    // that checkpoint at their next checkpoint, the rest at once. A drain of a card already
    // cordoned drains it. False with *why when refused (no such card, nothing to
    // change). The caller runs the cycle that follows.
    bool cordonCard(int card, bool cordoned, bool drain, qint64 nowMs, Domain::Problem *why);

protected:
    // The scheduler over `state` with `options`; its events go to schedulerEvents(). The
    // appliance's local time is UTC + utcOffsetMs.
    ApplianceCore(const Sched::ClusterState &state,
                  const Sched::SchedulerOptions &options,
                  qint64 utcOffsetMs);

    // After a command above changed the scheduler (a budget): the subclass runs what follows
    // from it (a scheduling cycle now, or at its next event).
    virtual void changed(qint64 nowMs) = 0;
    // A job was requeued, leaving at `atMs` (now, or at its checkpoint). Default: changed().
    virtual void requeued(Domain::JobId job, qint64 atMs, qint64 nowMs);
    // A requeue at a checkpoint was called off. Default: changed().
    virtual void kept(Domain::JobId job, qint64 nowMs);
    enum class Qos { PowerCap, BandwidthShare };
    virtual void qosChanged(Qos knob, double value, qint64 nowMs);
    virtual void recorded(const Device::ApplianceEvent &event);

    std::unique_ptr<Sched::Scheduler> m_sched;
    std::unique_ptr<Policy::Policy> m_policy;
    QString m_policyName;
    Device::MemoryApplianceEventSink m_events{200'000};
    Sched::MemoryEventSink m_schedEvents{200'000};
    qint64 m_utcOffsetMs = 0;
};

} // namespace Zhaoxi::Runtime
