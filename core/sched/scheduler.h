// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "events.h"
#include "framework.h"
#include "preemption.h"
#include "repartitionplanner.h"
#include "statement.h"
#include "trial.h"

#include "core/domain/problem.h"

#include <QHash>
#include <QList>

#include <deque>
#include <optional>

namespace Zhaoxi::Sched {

using Domain::Problem;

// The most compute (milli-cards) each class may hold at this moment; -1 = no limit. Set by the
// colocation policy in force (day/night windows, the load-aware guard).
struct ClassBudget
{
    qint64 trainingMilli = -1;
    qint64 inferenceMilli = -1;
    qint64 batchMilli = -1;
    qint64 forKind(Domain::WorkloadKind kind) const;
    friend bool operator==(const ClassBudget &, const ClassBudget &) = default;
};

// A budget that takes effect at a time (a window opening), for "when could it start?".
struct BudgetChange
{
    qint64 atMs = 0;
    ClassBudget budget;
};

// Whether an operator's placement keeps to its class's budget or goes over it ("place anyway",
// asked and confirmed first). A job placed over the budget is marked Job::overBudget.
enum class BudgetRule : std::uint8_t { Keep, Exceed };

// How the scheduler chooses among a job's alternative shapes (WorkloadSpec::shapes, issue 18;
// docs/workload-spec.md, "How the scheduler picks a shape").
struct ShapeOptions
{
    // Training and batch gangs: the throughput a gang keeps per doubling of its width (the
    // twin's gangEfficiency), counted on top of the spec's speed so that wider gangs of smaller
    // units pay for their communication.
    double gangEfficiency = 0.98;
    // Inference: an alternative shape is taken only when its mean service time
    // (serviceTimeMs / speed) times this is at most sloP99Ms. 5: the p99 of an exponential
    // service time alone is ln(100) ~ 4.6 times its mean, before any queueing.
    double sloHeadroom = 5.0;
};

struct SchedulerOptions
{
    PreemptionOptions preemption;
    bool preemptionEnabled = true;
    bool allowCreatePartitions = true; // carve new MIG instances out of free slots
    bool allowReconfigure = true;      // destroy idle instances / switch idle cards' modes
    int traceRingSize = 2000;          // decision traces kept besides each job's latest
    // While a preemptor waits for its victims to leave, jobs after it in the queue are not placed
    // on its host (its victims' units stay reserved for it; without this, victims leaving at
    // different checkpoints hand their units to lower-priority jobs and the preemption repeats).
    bool reserveNominatedHosts = true;
    ShapeOptions shapes;
};

// Could this workload ever run on this appliance (forms, drag targets)? If not, why not.
struct Feasibility
{
    bool possible = false;
    Status reason;
};

// A layout an operator could give one MIG card so that a waiting job runs there: the card and
// its whole target layout (sorted by start). Only idle instances go; busy ones stay.
struct LayoutFit
{
    CardId card;
    QList<MigPlacement> target;
    int destroys = 0; // idle instances the change destroys
    int creates = 0;
};

// The scheduler: a queue, the framework, preemption with fallback and reconfiguration, over one
// ClusterState it owns. A function of (state, now): it never reads the clock; callers pass `now`
// (the console's timer, the simulator's virtual clock, a test's manual clock) and ask tick() when
// to call again. Single-threaded: the console runs it on its scheduling thread.
class Scheduler
{
public:
    explicit Scheduler(ClusterState state,
                       Profile profile = defaultProfile(),
                       SchedulerOptions options = {});

    const ClusterState &state() const { return m_state; }
    const Framework &framework() const { return m_framework; }
    const SchedulerOptions &options() const { return m_options; }
    // Whether placements may create MIG instances and change idle layouts (a real appliance only
    // when its settings allow changing MIG), from the next cycle.
    void setAllowRepartitioning(bool allow)
    {
        m_options.allowCreatePartitions = allow;
        m_options.allowReconfigure = allow;
    }
    void setShapeOptions(const ShapeOptions &shapes) { m_options.shapes = shapes; }
    void addSink(EventSink *sink) { m_sinks.append(sink); }
    // Every committed statement's steps, before their events (the device bridge). Not owned.
    void addStepSink(StepSink *sink) { m_stepSinks.append(sink); }

    // --- Commands -------------------------------------------------------------------------
    JobId submit(const WorkloadSpec &spec, qint64 nowMs);
    bool cancel(JobId job, qint64 nowMs); // false when already ended
    bool finish(JobId job, qint64 nowMs); // the job completed its work
    bool fail(JobId job, qint64 nowMs);   // the job crashed on its own
    // Takes a running job off its units and back to the queue (a colocation policy shrinking or
    // pausing training, an operator). `atCheckpoint`: it keeps running until its next checkpoint
    // (at most maxCheckpointWaitMs away) and loses nothing; otherwise it goes at once, losing the
    // work since its last checkpoint. A job already preempting goes at once when asked to (its
    // eviction brought forward) and is left as it is otherwise. Returns when it will be off (-1:
    // not running).
    qint64 requeue(JobId job, qint64 nowMs, bool atCheckpoint);
    // The job saved its progress now (a real process acknowledged a checkpoint): nothing done
    // so far is lost when it leaves. A job that is leaving (Preempting) goes at once. Returns
    // true when it left.
    bool checkpointed(JobId job, qint64 nowMs);
    // Calls off a requeue at checkpoint that has not happened yet: the job keeps its units and
    // runs on. Only for a job that leaves on its own account (not as the victim of a waiting
    // job, which counts on its room). False when there is nothing to call off.
    bool keep(JobId job, qint64 nowMs);
    // An operator's new priority for a job that has not ended: the queue's order and who may
    // preempt whom follow it from the next cycle (a running job is not moved by it). False when
    // the job has ended or does not exist.
    bool setPriority(JobId job, int priority, qint64 nowMs);
    // A card failed: its jobs return to the queue from their checkpoints; the card takes no work.
    void cardFailed(CardId card, qint64 nowMs);
    void cardRecovered(CardId card, qint64 nowMs);
    void setHostUp(HostId host, bool up, qint64 nowMs);
    void setClassBudget(const ClassBudget &budget, qint64 nowMs);
    const ClassBudget &classBudget() const { return m_budget; }
    // Repartitions a MIG card: the plan's steps apply in one Statement. Refused (false) when a
    // step would destroy a busy instance.
    // An operator's change (the default) counts as the card's latest operator change; an
    // automatic one (the twin's reclaim of idle cards) is refused on a pinned layout and is an
    // event when an operator changed the card within kOperatorChangeWindowMs.
    bool applyLayout(CardId card,
                     const QList<Domain::MigPlacement> &target,
                     qint64 nowMs,
                     Problem *why = nullptr,
                     std::optional<AutoChangeCause> automatic = std::nullopt);
    bool setCardMode(CardId card, PartitionMode mode, qint64 nowMs, Problem *why = nullptr);
    // An operator's pin on a card's layout, until `untilMs` (-1: until unpinned): the scheduler
    // neither creates nor destroys instances on it nor switches its mode; its instances still
    // take work. False (with *why) for an unknown or failed card or a time already
    // past. A pin that expires is an event (LayoutUnpinned, expired) at the first tick after.
    bool pinLayout(CardId card, qint64 untilMs, qint64 nowMs, Problem *why = nullptr);
    // False when the card was not pinned.
    bool unpinLayout(CardId card, qint64 nowMs);
    // 0: not pinned; -1: until unpinned; else the appliance time the pin ends.
    qint64 layoutPinnedUntil(CardId card) const;
    // When an operator last changed the card's layout or mode (-1: never).
    qint64 operatorChangedAt(CardId card) const;
    static constexpr qint64 kOperatorChangeWindowMs = 30 * 60 * 1000;
    // Holds a card out of placement while the operator repartitions it (jobs on it keep running
    // until they are requeued), or releases it.
    void setCardCordoned(CardId card, bool cordoned, qint64 nowMs);
    // An operator's cordon: the card takes no new work until uncordoned (what runs on it stays;
    // a drain also requeues it, the session's part). False (with *why) for an
    // unknown card, or a change to what already is.
    bool setOperatorCordon(CardId card, bool cordoned, qint64 nowMs, Problem *why = nullptr);

    // --- The cycle ------------------------------------------------------------------------
    struct TickResult
    {
        int placed = 0;
        int evicted = 0;
        int waiting = 0;
        qint64 nextWakeMs = -1; // -1: only a new command needs another tick
    };
    TickResult tick(qint64 nowMs);

    // --- The three questions (HOUSE_STYLE 6) -----------------------------------------------
    // Place one pending job now (drag and drop: optionally onto one card), committing it. With
    // BudgetRule::Exceed its class's budget is not checked and the job is marked overBudget.
    // A job with alternative shapes is placed in the shape that serves the most work per
    // compute slice among those that fit now (tick() does the same; chooseShape); preemption,
    // reconfiguration and the queries below use the primary shape only.
    Decision placeNow(JobId job,
                      qint64 nowMs,
                      CardId onCard = CardId(),
                      BudgetRule budget = BudgetRule::Keep);
    // An operator's drop of a pending job onto a card that needs room: the victims that would
    // make it fit there (nullopt: none would). Changes nothing.
    std::optional<PreemptionPlan> planPreemptionOn(JobId job,
                                                   CardId card,
                                                   qint64 nowMs,
                                                   BudgetRule budget = BudgetRule::Keep) const;
    // Places a pending job on a card, preempting the plan's victims when it does not fit as the
    // card is. The decision's trace lists the victims; the job starts once they have left (over
    // the budget too, with BudgetRule::Exceed).
    Decision placeWithPreemption(JobId job,
                                 qint64 nowMs,
                                 CardId onCard,
                                 BudgetRule budget = BudgetRule::Keep);
    // Could it ever run here, on an empty appliance with every card in its best mode?
    Feasibility couldEverRun(const WorkloadSpec &spec) const;
    // Could it run on this card right now (drag targets), and if not, why not (its class's
    // budget unchecked with BudgetRule::Exceed).
    Status couldRunOn(const WorkloadSpec &spec,
                      CardId card,
                      qint64 nowMs,
                      BudgetRule budget = BudgetRule::Keep) const;
    // When could it start, given running work's expected ends, the jobs queued ahead of it and
    // the budget changes to come. nullopt: not within the known horizon.
    std::optional<qint64> earliestStart(const WorkloadSpec &spec,
                                        qint64 nowMs,
                                        const QList<BudgetChange> &changes = {}) const;
    // Which MIG card could take it after an operator's repartition ("fits on GPU 6 as 3g +
    // 3x1g"): `preferred` when a layout there would do, else the card whose change destroys
    // and creates least (then the lowest id). Pinned layouts count (the operator changes them);
    // cordoned, failed or changing cards do not, and a layout is offered only when the
    // scheduler's own decision places the job on it (within its class budget). Single-card
    // jobs only. Changes nothing.
    std::optional<LayoutFit> layoutToFit(const WorkloadSpec &spec,
                                         CardId preferred,
                                         qint64 nowMs) const;

    // --- Queries on a trial copy (issue 13; for the policies, see trial.h) ------------------
    // Could one unit of `spec` go on `card` now if `leaving` had left? The unit the scheduler
    // would give it there (by its filters, its MIG planning and, with options.reconfigure, the
    // change its cycle makes to an idle card), or why not. One Trial, one Trial::fitOn; changes
    // nothing. Policies that weigh many cases build one Trial and ask it.
    CardFit fitOn(const WorkloadSpec &spec,
                  CardId card,
                  qint64 nowMs,
                  const QList<JobId> &leaving = {},
                  const FitOptions &options = {}) const;
    // The cards that could ever hold `spec` (one of its cards, for a gang): on the empty
    // appliance couldEverRun imagines (every card in the mode that suits the demand best), the
    // ones the filters keep: model and affinity, card memory, isolation, the host's size and
    // pin, a gang's width and link domain. Failed cards are not among them. In card order.
    QList<CardId> cardsThatCouldServe(const WorkloadSpec &spec) const;

    // The shape choice (issue 18): decides for `job` in its primary shape and each alternative
    // on the state as it is, and returns the decision of the shape that serves the most work per
    // compute slice among those placeable now (its placement's `shape` set, its trace listing
    // every shape with its verdict and figure; ties keep the primary). When none is placeable,
    // the primary's decision (with the shapes in its trace). A job without alternatives gets
    // the framework's decision as it is. Changes nothing.
    Decision chooseShape(const Job &job, qint64 nowMs, const DecideOptions &options);

    // --- Explanations ----------------------------------------------------------------------
    const DecisionTrace *lastTrace(JobId job) const;
    const std::deque<DecisionTrace> &recentTraces() const { return m_ring; }
    QList<JobId> queue() const; // pending jobs, in queue order

private:
    friend class Trial;
    // The change tryReconfigure would make to one idle card so that `job` fits it, with its cost
    // (idle instances destroyed, 1 for a mode switch); nullopt: none. `ctx` is prepared for the
    // job. Shared with Trial so that its prediction is the cycle's decision.
    struct Reconfiguration
    {
        CardId card;
        int cost = 0;
        std::optional<PartitionMode> mode;
        RepartitionPlan plan;
    };
    static std::optional<Reconfiguration> reconfiguration(const ClusterState &state,
                                                          const CycleContext &ctx,
                                                          const Job &job,
                                                          const CardState &card);
    // Applies its mode switch, or its destroys (the placement then creates what it needs);
    // returns the uids destroyed.
    static QList<int> applyReconfiguration(Statement &st, const Reconfiguration &r);
    // The empty appliance couldEverRun asks about: each card in the mode that suits `spec`.
    ClusterState idealFor(const WorkloadSpec &spec) const;
    bool end(JobId job, JobState terminal, qint64 nowMs);
    void publish(const SchedEvent &e);
    void publishSteps(const QList<Step> &steps, qint64 nowMs);
    // After an automatic commit: one CardChangedAfterOperator per card whose layout or mode the
    // steps changed and that an operator changed within kOperatorChangeWindowMs.
    void noteAutomaticChanges(const QList<Step> &steps,
                              JobId forJob,
                              AutoChangeCause cause,
                              qint64 nowMs);
    void expirePins(qint64 nowMs);
    void keepTrace(DecisionTrace trace);
    qint64 budgetLeft(Domain::WorkloadKind kind) const;
    bool tryReconfigure(JobId job, qint64 nowMs, const QList<HostId> &skipHosts = {});
    bool tryPreempt(JobId job,
                    qint64 nowMs,
                    Decision &decision,
                    CardId onCard = CardId(),
                    BudgetRule budget = BudgetRule::Keep);
    void evictDue(qint64 nowMs, TickResult &r);

    ClusterState m_state;
    Framework m_framework;
    DecisionWorkspace m_workspace; // the tick's and placements' decisions: verdicts reused
    SchedulerOptions m_options;
    ClassBudget m_budget;
    QList<EventSink *> m_sinks;
    QList<StepSink *> m_stepSinks;
    QHash<int, DecisionTrace> m_lastTrace; // by job id
    std::deque<DecisionTrace> m_ring;
    QHash<int, Reason> m_waitingReason;     // by job id, to record changes only
    QHash<int, qint64> m_operatorChangedAt; // by card id: an operator's latest layout/mode change
    struct Nomination
    {
        HostId host;
        QList<Victim> victims;
        BudgetRule budget = BudgetRule::Keep; // placed over its class's budget once they left
    };
    QHash<int, Nomination> m_nominated; // preemptors waiting for their victims
};

// An operator's pin command as every session takes it: `untilMs` -1 pins until unpinned, a time
// pins until then, 0 unpins. False with *why (an unpin of a card not pinned too).
bool changeLayoutPin(Scheduler &scheduler, CardId card, qint64 untilMs, qint64 nowMs, Problem *why);

} // namespace Zhaoxi::Sched
