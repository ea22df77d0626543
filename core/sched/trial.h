// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "framework.h"
#include "statement.h"

#include <QList>

#include <optional>

namespace Zhaoxi::Sched {

class Scheduler;

// How one unit of a workload would land on one card: the scheduler's own answer, from its
// filter plugins and its MIG planning.
struct CardFit
{
    // Success, or why the card cannot take it: Unschedulable when evicting more, or the
    // repartitioning the query was told not to count, could help; Unresolvable when nothing
    // could (the model, the card's memory, its health, the host's size).
    Status status = Status::unschedulable(Reason::NoFreeUnit);
    CardId card;
    // Success: the unit it takes. Existing: a free whole card or idle MIG instance (uid);
    // NewPartition: a MIG instance the scheduler creates at (profile, start); NewShare: a soft
    // share of milli and memoryMiB.
    UnitChoice unit;
    // Success only once the scheduler changed the idle card first, as its cycle does when no
    // card fits as laid out: the idle MIG instances it destroys, or the mode it switches to.
    QList<int> destroyedUids;
    std::optional<PartitionMode> newMode;

    bool isSuccess() const { return status.isSuccess(); }
    bool reconfigures() const { return newMode.has_value() || !destroyedUids.isEmpty(); }
};

struct FitOptions
{
    // Count the change to an idle card the scheduler's cycle makes when nothing fits as laid out
    // (destroying idle MIG instances, switching an idle card's mode): single-card workloads only,
    // and only when SchedulerOptions::allowReconfigure. false: the card as it is, like
    // Scheduler::placeNow onto a card.
    bool reconfigure = true;
    // Also require the workload's class budget (the scheduler's, less what the trial's own
    // placements and departures changed). Off by default: a policy that asks sets the budgets
    // itself.
    bool classBudget = false;
};

// A what-if copy of the scheduler's state for the policies (issue 13): jobs leave and planned
// units are taken on the copy, and every question is answered by the scheduler's own framework
// on it, so that a policy's prediction is the decision the scheduler then makes. Each query runs
// in a Statement on the copy that is always discarded; the copy itself is thrown away with the
// trial. Nothing reaches the scheduler, its caches or its score plugins: only the filters run
// (the unit one card offers is the UnitFit filter's choice, whichever scorer picks the card).
//
// Built on the scheduler's thread from its state at that moment; it does not follow later
// changes to the scheduler and must not outlive it. Not thread-safe. Cheap to build (the state
// is shared until the first change).
class Trial
{
public:
    Trial(const Scheduler &scheduler, qint64 nowMs);
    Trial(const Trial &) = delete;
    Trial &operator=(const Trial &) = delete;

    const ClusterState &state() const { return m_state; }
    qint64 nowMs() const { return m_nowMs; }

    // The job is off its units from now on in the trial, as if evicted now (its host resources
    // and class usage freed too). Nothing for a job that holds no units.
    void leave(JobId job);

    // Could one unit of `spec` go on `card` once `alsoLeaving` had left too (the trial's own
    // changes already counted)? The placement the scheduler would make there, or why not.
    // Host-wide checks (the host up, its CPU and memory for the whole job) count; a gang's link
    // domain does not (one card is asked about). Leaves the trial as it was.
    CardFit fitOn(const WorkloadSpec &spec,
                  CardId card,
                  const QList<JobId> &alsoLeaving = {},
                  const FitOptions &options = {});

    // Takes a successful fit of a single-card `spec` in the trial: a job of `spec` holds that
    // unit from now on (the reconfiguration it needed applied first), so later queries see the
    // card as it would be. Returns the trial job's id; an invalid id, with the trial unchanged,
    // when `fit` failed, no longer gives the same unit, or `spec` wants more than one card.
    JobId take(const WorkloadSpec &spec, const CardFit &fit);

private:
    const Job &probeFor(const WorkloadSpec &spec);
    CardFit evaluate(const Job &probe, CardId card, const FitOptions &options, Statement &st);
    Status check(const Job &probe, CardId card, const DecideOptions &options, UnitChoice *unit);
    qint64 budgetLeft(Domain::WorkloadKind kind) const;

    const Scheduler &m_scheduler;
    qint64 m_nowMs = 0;
    ClusterState m_state; // the copy
    // The job asked about: beside the state, not in it, so that a question copies no job list.
    std::optional<Job> m_probe;
    HostOptions m_options; // what the filters found on the card last checked
    CycleContext m_ctx;    // reused between queries; prepared for m_probe with these options:
    bool m_prepared = false;
    bool m_preparedCreate = false;
    qint64 m_preparedBudget = -1;
};

} // namespace Zhaoxi::Sched
