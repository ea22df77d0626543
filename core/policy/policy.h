// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/device/applianceevents.h"
#include "core/sched/scheduler.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <memory>

namespace Zhaoxi::Policy {

using Device::ActionReason;
using Domain::JobId;

// What a policy sees of one inference service.
struct ServiceView
{
    int index = 0;
    QString name;
    double sloMs = 0;
    double serviceMs = 0; // mean service time of one request on one replica's unit, nominal
    // ... as the serving replicas take it now (their units' sharing, interference, clocks and
    // paths), averaged over them; the nominal one when none serves
    double currentServiceMs = 0;
    double cv = 0; // of the service time
    int minReplicas = 1;
    int maxReplicas = 1;
    int target = 0;          // replicas asked for (placed or waiting), not draining
    int serving = 0;         // ready and taking requests
    int pending = 0;         // asked for, not placed yet
    int leaving = 0;         // draining, or being replaced by one on another card (moveReplica)
    qint64 unitMilli = 0;    // compute one replica holds, milli-cards
    double observedRate = 0; // requests per second over the sliding window
    double windowP99Ms = 0;  // over the sliding window
    qint64 windowRequests = 0;
    qint64 windowOverSlo = 0; // of those, how many took longer than the SLO
    int queueDepth = 0;       // requests in flight or waiting
    qint64 arrivals = 0;      // since the start (for learning)
};

// What a policy sees of one training job that holds units.
struct TrainingView
{
    JobId job;
    Sched::JobState state = Sched::JobState::Running;
    qint64 milli = 0; // compute it holds
    int priority = 0;
    bool checkpoints = false; // saves checkpoints (a drain can wait for one)
    qint64 nextCheckpointMs = -1;
    qint64 finishEtaMs = -1; // when it will be done at its current speed (-1 unknown)
    qint64 placedMs = 0;
};

// One past local day of a service's traffic (PolicyContext::historyDays).
struct HistoryDay
{
    int weekday = 0;     // of the local day: 1 Monday .. 7 Sunday (Qt::DayOfWeek); 0 unknown
    QList<double> rates; // req/s per bucket of historyBucketMs() from local midnight; empty: no
                         // record of the day (or too little of one to count)
};

// A service's past before a run: one entry per local day, oldest first, the last one the day
// before the run's first; and whether the days' weekdays tell their shapes apart. True for days
// the appliance recorded (weekdays and weekends differ); false for a past drawn from one daily
// curve, whose days differ only by noise, so that the forecast pools them all.
struct HistoryDays
{
    QList<HistoryDay> days;
    bool byWeekday = false;
};

// The simulator (or the console) a policy acts through. Every change goes through here so that
// the owner sees it: the scheduler itself is only readable. Calls happen on the owner's thread,
// at the time given.
class PolicyContext
{
public:
    virtual ~PolicyContext() = default;

    virtual const Sched::Scheduler &scheduler() const = 0;
    // Local wall time of the appliance for `nowMs` (windows), in ms since a local Monday
    // 00:00; policies take it modulo a day or a week.
    virtual qint64 localWeekMs(qint64 nowMs) const = 0;
    virtual qint64 totalMilli() const = 0;

    virtual QList<ServiceView> services(qint64 nowMs) = 0;
    virtual QList<TrainingView> training(qint64 nowMs) = 0;

    // Elastic replicas, clamped to the service's range. More: new replica jobs are submitted;
    // fewer: waiting ones are withdrawn first, then the newest drain (finish what they hold).
    virtual void setReplicas(int service, int replicas, qint64 nowMs, ActionReason why) = 0;
    // Moves a serving replica of the service to another card: a new one is placed there now,
    // and the old one drains once the new one serves (the service keeps its replicas meanwhile).
    // False when the replica cannot move (not serving, already moving) or the new one does not
    // fit the card as it is. The simulator implements it; by default nothing moves.
    virtual bool moveReplica(
            int service, JobId replica, Domain::CardId card, qint64 nowMs, ActionReason why)
    {
        Q_UNUSED(service)
        Q_UNUSED(replica)
        Q_UNUSED(card)
        Q_UNUSED(nowMs)
        Q_UNUSED(why)
        return false;
    }
    virtual void setBudget(const Sched::ClassBudget &budget, qint64 nowMs, ActionReason why) = 0;
    // Scheduler::requeue with an event: at checkpoint (drain) or at once (preempt).
    virtual qint64 requeueTraining(JobId job, qint64 nowMs, bool atCheckpoint, ActionReason why)
            = 0;
    // Calls off a requeueTraining at checkpoint whose job has not left yet (Scheduler::keep),
    // with an event. False when there was none to call off.
    virtual bool keepTraining(JobId job, qint64 nowMs, ActionReason why) = 0;
    // Class QoS knobs: the training class's power cap (watts over all its cards, <= 0 none) and
    // its share of each host's shared paths (0..1; 1 = no quota).
    virtual void setTrainingPowerCapW(double watts, qint64 nowMs) = 0;
    virtual void setTrainingBandwidthShare(double share, qint64 nowMs) = 0;
    virtual void record(const Device::ApplianceEvent &event) = 0;

    // Observed history before the run: for each past local day (oldest first, the last one the
    // day before the run's first), the request rate per bucket (req/s), buckets of
    // historyBucketMs() from local midnight; a day without a record is empty.
    virtual QList<QList<double>> history(int service) const = 0;
    virtual qint64 historyBucketMs() const = 0;
    // The same days with their weekdays, asked at `nowMs` (the policy's start). By default
    // history()'s days, their weekdays counted back from the local day before `nowMs`'s, and
    // byWeekday false (the pooled mean of every day). A context whose days are recorded says so.
    virtual HistoryDays historyDays(int service, qint64 nowMs) const;
};

// The events a PolicyContext records for the policy's actions, the same for the twin and the
// real appliance.
Device::ApplianceEvent budgetSetEvent(const Sched::ClassBudget &budget,
                                      qint64 nowMs,
                                      ActionReason why);
Device::ApplianceEvent trainingRequeuedEvent(
        JobId job, qint64 nowMs, bool atCheckpoint, qint64 leavesAtMs, ActionReason why);
Device::ApplianceEvent trainingKeptEvent(JobId job, qint64 nowMs, ActionReason why);
Device::ApplianceEvent trainingPowerCapEvent(double watts, qint64 nowMs);
Device::ApplianceEvent trainingBandwidthEvent(double share, qint64 nowMs);

// Why a policy's parameters were refused: the field (JSON path under the policy's object) and
// why, in English.
struct PolicyError
{
    QString field;
    QString message;
};

// A class budget a policy will set at a time to come, and the window that opens then (empty:
// none), for "when could this start?".
struct PlannedBudget
{
    qint64 atMs = 0;
    Sched::ClassBudget budget;
    QString window;
};

// A colocation policy: sets class budgets, sizes inference replicas and requeues training,
// through the context. tick() is called at `start`, then whenever it asked to be woken (it
// returns the next time). Pure functions of what the context shows and the time given.
class Policy
{
public:
    virtual ~Policy() = default;
    virtual QString name() const = 0;
    virtual void start(PolicyContext &ctx, qint64 nowMs) = 0;
    virtual qint64 tick(PolicyContext &ctx, qint64 nowMs) = 0;
    // The budgets it will set by itself within `horizonMs` of `nowMs`, oldest first, as far as
    // the clock alone decides them (a schedule's windows); none for a policy that follows the
    // load.
    virtual QList<PlannedBudget> plannedBudgets(const PolicyContext &ctx,
                                                qint64 nowMs,
                                                qint64 horizonMs) const
    {
        Q_UNUSED(ctx)
        Q_UNUSED(nowMs)
        Q_UNUSED(horizonMs)
        return {};
    }
};

// The policies by name: "static", "windows", "guard", "forecast". `params` is the policy's
// object from the scenario (unknown keys are errors). nullptr with *error on a bad parameter or
// an unknown name.
std::unique_ptr<Policy> makePolicy(const QString &name,
                                   const QJsonObject &params,
                                   PolicyError *error);
QStringList policyNames();

} // namespace Zhaoxi::Policy
