// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "snapshot.h"

#include "core/domain/cardmodel.h"
#include "core/domain/workloadspec.h"
#include "core/policy/dryrun.h"
#include "core/sched/scheduler.h"
#include "core/sched/status.h"

#include <QJsonObject>
#include <QObject>

namespace Zhaoxi::Storage {
class Store;
}
namespace Zhaoxi::Runtime {
class ApplianceCore;
}

namespace Zhaoxi::Session {

// Sets an answer's problem and its English `error` (what logs, the command line and the
// service's "message" carry): CommandResult, LayoutPreview, SchedulePreview, JobLog.
template<typename Answer>
void setProblem(Answer &answer, Domain::Problem problem)
{
    answer.error = problem.english();
    answer.problem = std::move(problem);
}

// An answer's problem as a code, or as its English (Code::Text) where the part that answered has
// no code for it (a spec reader's message, a policy's, the runtime's).
template<typename Answer>
Domain::Problem problemOf(const Answer &answer)
{
    return answer.problem.isNone() ? Domain::Problem::text(answer.error) : answer.problem;
}

// How a repartition is carried out when it touches partitions that serve jobs.
enum class ApplyMode {
    Immediate, // the jobs go back to the queue at once (losing work since their checkpoint)
    Drain,     // the jobs leave at their next checkpoint or natural end; at the deadline, at once
};

// "Could this waiting job go onto this card now, and at what cost?" — the answer to a drop.
struct PlacementPreview
{
    enum class Outcome {
        Direct,          // it fits as the card is
        NeedsPreemption, // it fits once `victims` have left
        Refused,         // it cannot run there now; `status` says why
    };
    quint64 request = 0;
    Domain::JobId job;
    Domain::CardId card;
    Outcome outcome = Outcome::Refused;
    Sched::Status status;
    QList<Sched::Victim> victims;
    QStringList victimNames; // parallel to victims
    // Refused for the class budget: when it could start (on the card the scheduler picks), given
    // running work's expected ends and the budgets the policy will set (-1: not within a day),
    // and the window that opens then (empty: none).
    qint64 startsAtMs = -1;
    QString startsWithWindow;
    // Refused for the class budget: whether an operator may place it anyway, over the budget
    // (placeJobConfirmed with Sched::BudgetRule::Exceed): Direct, NeedsPreemption with
    // `overBudgetVictims` (lower-priority work the scheduler would take), or Refused with
    // `overBudgetStatus` saying why it would not fit on the card even then.
    Outcome overBudget = Outcome::Refused;
    Sched::Status overBudgetStatus;
    QList<Sched::Victim> overBudgetVictims;
    QStringList overBudgetVictimNames; // parallel to overBudgetVictims
    // Refused for the card's layout (or the card itself), not the budget: a MIG card (this one
    // when it can) that would take the job after the operator gives it `layoutTarget`, a
    // change that destroys only idle instances (invalid card: none). The console offers to open
    // that layout in the repartition editor; nothing changes until the operator applies it.
    Domain::CardId layoutCard;
    QList<Domain::MigPlacement> layoutTarget;
};

// A proposed layout for one MIG card, checked and planned by the session.
struct LayoutPreview
{
    quint64 request = 0;
    Domain::CardId card;
    bool ok = false;
    QString error; // English, from the layout rules or the card's state (problem.english())
    Domain::Problem problem; // why not ok, as a code
    QList<Domain::MigPlacement> target;
    int destroys = 0;
    int creates = 0;
    QList<Domain::JobId> affectedJobs; // jobs on partitions the change destroys
    qint64 expectedMs = 0;             // device time of the steps (simulated timings)
};

// The answer to any other command.
struct CommandResult
{
    quint64 request = 0;
    bool ok = false;
    QString error;           // English; empty on success (problem.english())
    Domain::Problem problem; // why not ok, as a code the console words
    Sched::Status status;
    // submitWorkload: the field of the spec that is wrong, as a JSON path ("demand.cards",
    // "run.command"; empty when the error is not one field's), and on success the new job (an
    // inference spec: its service's first replica).
    QString field = {};
    Domain::JobId job = {};
    // placeJobConfirmed: refused because a fresh plan differs from the one the operator
    // confirmed (the console asks again with the fresh preview).
    bool planChanged = false;

    // The answer to `request`: ok without a problem, else refused with it.
    static CommandResult answer(quint64 request, Domain::Problem problem = {})
    {
        CommandResult r;
        r.request = request;
        r.ok = problem.isNone();
        setProblem(r, std::move(problem));
        return r;
    }
};

// Carries out `command(Domain::Problem *why)` (true: done) into `r`: its ok, and why not.
template<typename Command>
void answerWith(CommandResult &r, Command &&command)
{
    Domain::Problem why;
    r.ok = command(&why);
    setProblem(r, std::move(why));
}

// What a windows schedule would do if it became the policy in force now (previewSchedule): the
// policy and window before and after, the class budget it would set, the training it would take
// off (and the work each loses), and each service's replicas with an estimate of its p99 at the
// load it sees. The first step of the new policy, worked out without changing anything
// (Policy::dryRun).
struct SchedulePreview
{
    quint64 request = 0;
    bool ok = false;
    QString error;           // English: why the schedule is refused, or why there is no preview
    Domain::Problem problem; // the same as a code
    QString field;           // the schedule's field that is wrong (a JSON path), when one is
    qint64 nowMs = 0;
    QString policyBefore;
    QString windowBefore; // empty: none (not a windows policy)
    QString policyAfter;
    QString windowAfter;
    Sched::ClassBudget budgetBefore;
    Sched::ClassBudget budgetAfter;
    QList<Policy::PolicyPlan::Eviction> evictions;
    QStringList evictionNames; // parallel to evictions
    QList<Policy::PolicyPlan::ServiceChange> services;
    QList<Domain::JobId> movedReplicas;
    // A fleet through Slurm: the Slurm reservations the windows become (Fleet::planWindows),
    // each with what would be done to it.
    struct Reservation
    {
        QString action; // "create", "update", "delete", "keep"
        QString name;   // zhaoxi-<window>...
        QString window;
        QStringList nodes;
        int cards = 0;
        qint64 startMs = 0; // UTC epoch ms
        qint64 durationS = 0;
        QStringList flags; // DAILY, IGNORE_JOBS, ...
        QString partition;
        friend bool operator==(const Reservation &, const Reservation &) = default;
    };
    QList<Reservation> reservations;

    // Whether it stops or moves work, switches the policy or changes Slurm's reservations: what
    // the console asks about.
    bool needsConfirmation() const;
    // The evicted jobs' ids: what a confirmation carries (setScheduleConfirmed).
    QList<int> evictedIds() const;
};

// The answer to requestJobLog: the last bytes of a job's output (stdout and stderr, as its
// process wrote them).
struct JobLog
{
    quint64 request = 0;
    Domain::JobId job;
    bool ok = false;
    QString error;           // English: why there is no log (no such job, a modelled workload, ...)
    Domain::Problem problem; // the same as a code
    QString path;            // the log file on the appliance
    QString text;            // its last bytes (at most the request's maxBytes), UTF-8 decoded
    bool truncated = false;  // older output exists beyond `text`
};

// The console's side of an appliance: owns the scheduler and its backend (the simulated appliance
// and its workload models, or real hardware), runs on its own thread, and publishes immutable
// Snapshots at most every `snapshotIntervalMs` of wall time. The GUI talks to it only through
// queued calls to the slots below (each with a request id it chooses) and the signals that
// answer them; no GUI thread ever waits for it.
//
// Thread: create it anywhere, then moveToThread() and call start() through a queued connection
// (or call everything on one thread, as tests and --screenshot do).
class ApplianceSession : public QObject
{
    Q_OBJECT

public:
    using QObject::QObject;
    ~ApplianceSession() override = default;

    // The latest snapshot published (thread-safe).
    virtual SnapshotPtr latest() const = 0;
    // The store the session records into (the service audits into it and reads events from
    // it); nullptr when there is none. On the session's thread.
    virtual Storage::Store *eventStore() const { return nullptr; }
    // Makes what the session has done so far durable before returning: its state documents and
    // every event queued, including ones others appended to eventStore(). The service answers a
    // change only after this. False with an English *error when the store did not commit.
    virtual bool commitNow(QString *error)
    {
        Q_UNUSED(error);
        return true;
    }

    // The latest decision trace of every job decided so far (what a console that attaches later
    // shows under "why"; snapshots carry only the new ones). On the session's thread.
    virtual QList<Sched::DecisionTrace> latestTraces() const { return {}; }

public Q_SLOTS:
    virtual void start() = 0;
    virtual void stop() = 0;
    // Simulated seconds per wall second (1 = real time); <= 0: as fast as the machine goes.
    // Hardware sessions: the polling interval follows `setPollIntervalMs` instead.
    virtual void setSpeed(double speed) = 0;
    virtual void setPaused(bool paused) = 0;
    virtual void setPollIntervalMs(int ms) = 0;
    // The console's setting "apply changes to the hardware"; only a hardware session heeds it.
    virtual void setAllowChanges(bool) {}
    // A simulated day starts again from its scenario's beginning (its own policy, its seed):
    // what was done to it is gone, the store keeps recording. Only the twin heeds it.
    virtual void restartDay() {}

    virtual void previewPlacement(quint64 request, int job, int card) = 0;
    // Places a waiting job on a card (preempting only when `allowPreemption`).
    virtual void placeJob(quint64 request, int job, int card, bool allowPreemption) = 0;
    // Places it preempting exactly the jobs the operator confirmed (`victims`, from a
    // placement preview): refused with CommandResult::planChanged and the reason when a plan made
    // now differs (other victims, none needed, or no room any more), so that what runs is what
    // was confirmed. With Sched::BudgetRule::Exceed it is the operator's "place anyway, over the
    // class budget" (the preview's overBudget plan; `victims` may then be empty): the job is
    // placed past its class's budget and marked Job::overBudget.
    virtual void placeJobConfirmed(
            quint64 request, int job, int card, QList<int> victims, Sched::BudgetRule budget)
            = 0;
    // Takes a running job back to the queue (an operator's undo of a placement).
    virtual void requeueJob(quint64 request, int job) = 0;
    virtual void previewLayout(quint64 request, int card, QList<Domain::MigPlacement> target) = 0;
    virtual void applyLayout(quint64 request,
                             int card,
                             QList<Domain::MigPlacement> target,
                             Zhaoxi::Session::ApplyMode mode,
                             qint64 drainDeadlineMs)
            = 0;
    // A weekly windows schedule (the `windows` policy's parameters, docs/simulation.md): checked
    // by the same reader as the headless tool; when valid it becomes the policy in force.
    virtual void setSchedule(quint64 request, QJsonObject windowsParams) = 0;
    // What setSchedule(windowsParams) would do now, answered by schedulePreviewReady; nothing
    // changes. The default (a session that cannot tell) answers not ok with the reason.
    virtual void previewSchedule(quint64 request, QJsonObject windowsParams);
    // setSchedule, carried out only while the plan the operator confirmed still holds: the
    // training it takes off is exactly `evicted` (job ids, from a schedule preview). Otherwise
    // refused with CommandResult::planChanged and what changed, and nothing is applied. The
    // default (a session without its own check) sets the schedule.
    virtual void setScheduleConfirmed(quint64 request,
                                      QJsonObject windowsParams,
                                      QList<int> evicted)
    {
        Q_UNUSED(evicted);
        setSchedule(request, windowsParams);
    }
    // A new workload from its spec (docs/workload-spec.md), read by the same reader as the
    // headless tool: an error names its field (CommandResult::field) and nothing is submitted.
    // The real appliance refuses a spec without `run`; the simulated one models training and
    // batch work from the spec and refuses inference (its services are the scenario's).
    virtual void submitWorkload(quint64 request, QJsonObject spec) = 0;
    // Ends a job that has not ended (its process gets its stop signal); an inference replica's
    // service is not resized by it.
    virtual void cancelJob(quint64 request, int job) = 0;
    // A waiting or running job's priority from now on (the queue's order, who may preempt whom).
    virtual void setJobPriority(quint64 request, int job, int priority) = 0;
    // The last `maxBytes` of a job's log, answered by jobLogReady.
    virtual void requestJobLog(quint64 request, int job, qint64 maxBytes) = 0;
    // Pins a card's layout until `untilMs` on the appliance's clock (Snapshot::nowMs; -1: until
    // unpinned), or unpins it (0): the scheduler then neither creates nor destroys instances on
    // it nor switches its mode by itself (Sched::Scheduler::pinLayout). Answered by
    // commandFinished; the pin outlives a restart (the layouts document keeps it).
    virtual void pinLayout(quint64 request, int card, qint64 untilMs) = 0;
    // Cordons a card: it takes no new work until uncordoned (Sched::Scheduler::setOperatorCordon);
    // with `drain`, what runs on it goes back to the queue too, training at its checkpoint when
    // it checkpoints, the rest at once, and starts elsewhere. `cordoned` false uncordons it
    // (`drain` is then ignored). Answered by commandFinished; the cordon outlives a restart. The
    // default (a session that cannot) refuses.
    virtual void cordonCard(quint64 request, int card, bool cordoned, bool drain);

Q_SIGNALS:
    void snapshotReady(Zhaoxi::Session::SnapshotPtr snapshot);
    void placementPreviewReady(Zhaoxi::Session::PlacementPreview preview);
    void layoutPreviewReady(Zhaoxi::Session::LayoutPreview preview);
    void commandFinished(Zhaoxi::Session::CommandResult result);
    void jobLogReady(Zhaoxi::Session::JobLog log);
    void schedulePreviewReady(Zhaoxi::Session::SchedulePreview preview);
};

// Checks a proposed layout for one card of `state` and counts what changing to it takes: the
// instances destroyed and created and the jobs on destroyed ones. Not ok (with its problem: a
// code, and its English) for an unknown or failed card, a card not in MIG mode, or a layout the rules refuse.
// Both sessions' previews; `expectedMs` is left to the caller (only a simulation knows it).
LayoutPreview previewLayoutChange(const Sched::ClusterState &state,
                                  Domain::CardId card,
                                  const QList<Domain::MigPlacement> &target);

// The answer to a drop of a waiting `job` on `card` (either session's previewPlacement): Direct
// when it fits as the card is, NeedsPreemption with the victims the scheduler would take,
// Refused with the reason otherwise (an error status for an unknown or not waiting job).
PlacementPreview previewPlacementOn(const Sched::Scheduler &scheduler,
                                    Domain::JobId job,
                                    Domain::CardId card,
                                    qint64 nowMs);

// What a windows schedule would do on `core` now (both runtime sessions' previewSchedule): not
// ok with the field and reason when the schedule is refused.
SchedulePreview previewScheduleOn(Runtime::ApplianceCore &core,
                                  const QJsonObject &windowsParams,
                                  qint64 nowMs);

// Whether the evictions the operator confirmed for a schedule are what it would do now; false
// with r->planChanged, r->status and r->problem (and its English r->error) saying what changed
// (or why the schedule is refused).
bool confirmedScheduleHolds(Runtime::ApplianceCore &core,
                            const QJsonObject &windowsParams,
                            qint64 nowMs,
                            const QList<int> &evicted,
                            CommandResult *r);

// For a preview refused by the class budget: when the job could start on `core` (its policy's
// planned budgets, Scheduler::earliestStart), into p->startsAtMs and p->startsWithWindow.
void addStartHint(PlacementPreview *p, const Runtime::ApplianceCore &core, qint64 nowMs);

// Whether the plan the operator confirmed (the victims' job ids; with BudgetRule::Exceed the
// preview's over-budget plan, which may have none) is the plan `scheduler` would carry out now;
// false with r->planChanged, r->status and r->problem (and its English r->error) saying what
// changed.
bool confirmedPlanHolds(const Sched::Scheduler &scheduler,
                        Domain::JobId job,
                        Domain::CardId card,
                        qint64 nowMs,
                        QList<int> victims,
                        Sched::BudgetRule budget,
                        CommandResult *r);

// Reads a spec for submitWorkload with the workload spec reader: nullopt with r->error and
// r->field (the spec error's message and JSON path) when it is not a valid spec.
std::optional<Domain::WorkloadSpec> specForSubmission(const QJsonObject &json, CommandResult *r);

// Registers the types above for queued connections. Call once before connecting across threads.
void registerMetaTypes();

} // namespace Zhaoxi::Session

Q_DECLARE_METATYPE(Zhaoxi::Session::PlacementPreview)
Q_DECLARE_METATYPE(Zhaoxi::Session::LayoutPreview)
Q_DECLARE_METATYPE(Zhaoxi::Session::CommandResult)
Q_DECLARE_METATYPE(Zhaoxi::Session::JobLog)
Q_DECLARE_METATYPE(Zhaoxi::Session::ApplyMode)
