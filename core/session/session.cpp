// SPDX-License-Identifier: GPL-3.0-or-later
#include "session.h"

#include "core/catalogue/layoutrules.h"
#include "core/policy/timewindows.h"
#include "core/runtime/appliancecore.h"

#include <QMetaType>

#include <algorithm>

namespace Zhaoxi::Session {

using Domain::Problem;

LayoutPreview previewLayoutChange(const Sched::ClusterState &st,
                                  Domain::CardId card,
                                  const QList<Domain::MigPlacement> &target)
{
    LayoutPreview p;
    p.card = card;
    p.target = target;
    if (!card.isValid() || card.value() >= st.cards().size()) {
        setProblem(p, Problem(Problem::Code::NoCard, {QString::number(card.value())}));
        return p;
    }
    const Sched::CardState &c = st.card(card);
    const Domain::CardModel &model = st.model(c);
    if (c.health == Sched::CardHealth::Failed) {
        setProblem(p, Problem(Problem::Code::CardFailed, {QString::number(card.value())}));
        return p;
    }
    if (c.mode != Domain::PartitionMode::Mig) {
        setProblem(p, Problem(Problem::Code::CardNotMig, {QString::number(card.value())}));
        return p;
    }
    const Catalogue::LayoutVerdict v = Catalogue::validateLayout(model, target);
    if (!v.isValid()) {
        setProblem(p, Catalogue::layoutRuleProblem(v, model, target));
        return p;
    }
    const Catalogue::LayoutSteps steps = Catalogue::layoutSteps(model, c.migLayout(), target);
    for (int i : steps.destroy) {
        const Sched::Unit &u = c.units[i];
        if (u.job.isValid() && !p.affectedJobs.contains(u.job))
            p.affectedJobs.append(u.job);
    }
    p.destroys = int(steps.destroy.size());
    p.creates = int(steps.create.size());
    p.ok = true;
    return p;
}

PlacementPreview previewPlacementOn(const Sched::Scheduler &sched,
                                    Domain::JobId job,
                                    Domain::CardId card,
                                    qint64 nowMs)
{
    PlacementPreview p;
    p.job = job;
    p.card = card;
    const Sched::ClusterState &st = sched.state();
    if (!job.isValid() || job.value() >= st.jobs().size() || !card.isValid()
        || card.value() >= st.cards().size() || st.job(job).state != Sched::JobState::Pending) {
        p.status = Sched::Status::error(Sched::Reason::None);
        return p;
    }
    // What the scheduler would do under a budget rule: fits, fits once victims left, or not.
    auto ask = [&](Sched::BudgetRule rule,
                   PlacementPreview::Outcome *outcome,
                   Sched::Status *status,
                   QList<Sched::Victim> *victims,
                   QStringList *names) {
        *status = sched.couldRunOn(st.job(job).spec, card, nowMs, rule);
        if (status->isSuccess()) {
            *outcome = PlacementPreview::Outcome::Direct;
        } else if (status->code == Sched::Status::Code::Unschedulable) {
            if (const auto plan = sched.planPreemptionOn(job, card, nowMs, rule)) {
                *outcome = PlacementPreview::Outcome::NeedsPreemption;
                *victims = plan->victims;
                for (const Sched::Victim &v : plan->victims)
                    names->append(st.job(v.job).spec.name);
            }
        }
    };
    ask(Sched::BudgetRule::Keep, &p.outcome, &p.status, &p.victims, &p.victimNames);
    if (p.outcome == PlacementPreview::Outcome::Refused
        && p.status.reason == Sched::Reason::ClassBudgetExceeded)
        ask(Sched::BudgetRule::Exceed,
            &p.overBudget,
            &p.overBudgetStatus,
            &p.overBudgetVictims,
            &p.overBudgetVictimNames);
    if (p.outcome == PlacementPreview::Outcome::Refused
        && p.status.code != Sched::Status::Code::Error
        && p.status.reason != Sched::Reason::ClassBudgetExceeded) {
        if (const auto fit = sched.layoutToFit(st.job(job).spec, card, nowMs)) {
            p.layoutCard = fit->card;
            p.layoutTarget = fit->target;
        }
    }
    return p;
}

namespace {

// Job ids as people read them in a refusal: "3, 5" ("none" for no jobs).
QString jobIdsText(const QList<int> &jobs)
{
    QStringList out;
    for (int j : jobs)
        out << QString::number(j);
    return out.isEmpty() ? QStringLiteral("none") : out.join(QStringLiteral(", "));
}

// An id as a problem's parameter.
template<typename Id>
QString ids(Id id)
{
    return QString::number(id.value());
}

// The same jobs, in any order.
bool sameJobs(QList<int> a, QList<int> b)
{
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    return a == b;
}

} // namespace

bool confirmedPlanHolds(const Sched::Scheduler &scheduler,
                        Domain::JobId job,
                        Domain::CardId card,
                        qint64 nowMs,
                        QList<int> victims,
                        Sched::BudgetRule budget,
                        CommandResult *r)
{
    const PlacementPreview fresh = previewPlacementOn(scheduler, job, card, nowMs);
    const bool over = budget == Sched::BudgetRule::Exceed;
    QList<int> now;
    for (const Sched::Victim &v : over ? fresh.overBudgetVictims : fresh.victims)
        now << v.job.value();
    const PlacementPreview::Outcome outcome = over ? fresh.overBudget : fresh.outcome;
    if (outcome == PlacementPreview::Outcome::NeedsPreemption && sameJobs(now, victims))
        return true;
    if (over && outcome == PlacementPreview::Outcome::Direct && victims.isEmpty())
        return true;
    r->ok = false;
    r->planChanged = true;
    r->status = over ? fresh.overBudgetStatus : fresh.status;
    if (over && fresh.outcome != PlacementPreview::Outcome::Refused) {
        // Within the budget now: the operator asked for something else.
        r->status = fresh.status;
        setProblem(*r, Problem(Problem::Code::NowFitsInBudget, {ids(job), ids(card)}));
        return false;
    }
    if (over && fresh.status.reason != Sched::Reason::ClassBudgetExceeded) {
        r->status = fresh.status;
        setProblem(*r, Problem(Problem::Code::NowRefused, {fresh.status.describe()}));
        return false;
    }
    if (over && outcome != PlacementPreview::Outcome::Refused) {
        setProblem(*r,
                   Problem(Problem::Code::NowPreemptsOthersOverBudget,
                           {ids(job), ids(card), jobIdsText(now), jobIdsText(victims)}));
        return false;
    }
    switch (outcome) {
    case PlacementPreview::Outcome::Direct:
        setProblem(*r, Problem(Problem::Code::NowFitsAlone, {ids(job), ids(card)}));
        break;
    case PlacementPreview::Outcome::NeedsPreemption:
        setProblem(*r,
                   Problem(Problem::Code::NowPreemptsOthers,
                           {ids(job), ids(card), jobIdsText(now), jobIdsText(victims)}));
        break;
    case PlacementPreview::Outcome::Refused:
        setProblem(*r, Problem(Problem::Code::NowRefused, {r->status.describe()}));
        break;
    }
    return false;
}

void addStartHint(PlacementPreview *p, const Runtime::ApplianceCore &core, qint64 nowMs)
{
    const Sched::ClusterState &st = core.scheduler().state();
    if (p->outcome != PlacementPreview::Outcome::Refused
        || p->status.reason != Sched::Reason::ClassBudgetExceeded || !p->job.isValid()
        || p->job.value() >= st.jobs().size())
        return;
    constexpr qint64 kHorizonMs = 24 * 3600'000LL;
    const QList<Policy::PlannedBudget> planned
            = core.policy() ? core.policy()->plannedBudgets(core, nowMs, kHorizonMs)
                            : QList<Policy::PlannedBudget>();
    QList<Sched::BudgetChange> changes;
    for (const Policy::PlannedBudget &b : planned)
        changes.append(Sched::BudgetChange{b.atMs, b.budget});
    const std::optional<qint64> at
            = core.scheduler().earliestStart(st.job(p->job).spec, nowMs, changes);
    if (!at || *at > nowMs + kHorizonMs)
        return;
    p->startsAtMs = *at;
    for (const Policy::PlannedBudget &b : planned) {
        if (b.atMs == *at)
            p->startsWithWindow = b.window;
    }
}

bool SchedulePreview::needsConfirmation() const
{
    if (!ok)
        return false;
    if (policyBefore != policyAfter || !evictions.isEmpty() || !movedReplicas.isEmpty())
        return true;
    for (const Reservation &r : reservations) {
        if (r.action != QLatin1String("keep"))
            return true;
    }
    for (const Policy::PolicyPlan::ServiceChange &c : services) {
        if (c.replicasAfter != c.replicasBefore)
            return true;
    }
    return false;
}

QList<int> SchedulePreview::evictedIds() const
{
    QList<int> out;
    for (const Policy::PolicyPlan::Eviction &e : evictions)
        out << e.job.value();
    return out;
}

SchedulePreview previewScheduleOn(Runtime::ApplianceCore &core,
                                  const QJsonObject &windowsParams,
                                  qint64 nowMs)
{
    SchedulePreview p;
    p.nowMs = nowMs;
    p.policyBefore = core.policyName();
    p.windowBefore = Policy::TimeWindows::windowNameAt(core.policy(), core.localWeekMs(nowMs));
    p.budgetBefore = core.scheduler().classBudget();
    Policy::PolicyError err;
    const std::unique_ptr<Policy::Policy> candidate
            = Policy::TimeWindows::create(windowsParams, &err);
    if (!candidate) {
        p.field = err.field;
        setProblem(p,
                   Problem::text(err.field.isEmpty()
                                         ? err.message
                                         : err.field + QStringLiteral(": ") + err.message));
        return p;
    }
    const Policy::PolicyPlan plan = Policy::dryRun(*candidate, core, nowMs);
    p.ok = true;
    p.policyAfter = candidate->name();
    p.windowAfter = Policy::TimeWindows::windowNameAt(candidate.get(), core.localWeekMs(nowMs));
    p.budgetAfter = plan.budget.value_or(p.budgetBefore);
    p.evictions = plan.evictions;
    const Sched::ClusterState &st = core.scheduler().state();
    for (const Policy::PolicyPlan::Eviction &e : plan.evictions)
        p.evictionNames << st.job(e.job).spec.name;
    p.services = plan.services;
    p.movedReplicas = plan.movedReplicas;
    return p;
}

bool confirmedScheduleHolds(Runtime::ApplianceCore &core,
                            const QJsonObject &windowsParams,
                            qint64 nowMs,
                            const QList<int> &evicted,
                            CommandResult *r)
{
    const SchedulePreview fresh = previewScheduleOn(core, windowsParams, nowMs);
    if (!fresh.ok) {
        r->ok = false;
        r->field = fresh.field;
        setProblem(*r, fresh.problem);
        return false;
    }
    if (sameJobs(fresh.evictedIds(), evicted))
        return true;
    r->ok = false;
    r->planChanged = true;
    r->status = Sched::Status::error(Sched::Reason::None);
    setProblem(*r,
               Problem(Problem::Code::ScheduleNowTakesOthers,
                       {jobIdsText(fresh.evictedIds()), jobIdsText(evicted)}));
    return false;
}

std::optional<Domain::WorkloadSpec> specForSubmission(const QJsonObject &json, CommandResult *r)
{
    Domain::SpecError err;
    std::optional<Domain::WorkloadSpec> spec = Domain::workloadSpecFromJson(json, &err);
    if (!spec) {
        setProblem(*r, Problem::text(err.message));
        r->field = err.field;
    }
    return spec;
}

void registerMetaTypes()
{
    qRegisterMetaType<SnapshotPtr>("Zhaoxi::Session::SnapshotPtr");
    qRegisterMetaType<PlacementPreview>("Zhaoxi::Session::PlacementPreview");
    qRegisterMetaType<LayoutPreview>("Zhaoxi::Session::LayoutPreview");
    qRegisterMetaType<CommandResult>("Zhaoxi::Session::CommandResult");
    qRegisterMetaType<JobLog>("Zhaoxi::Session::JobLog");
    qRegisterMetaType<SchedulePreview>("Zhaoxi::Session::SchedulePreview");
    qRegisterMetaType<ApplyMode>("Zhaoxi::Session::ApplyMode");
    qRegisterMetaType<QList<Domain::MigPlacement>>("QList<Zhaoxi::Domain::MigPlacement>");
}

void ApplianceSession::cordonCard(quint64 request, int card, bool cordoned, bool drain)
{
    Q_UNUSED(card);
    Q_UNUSED(cordoned);
    Q_UNUSED(drain);
    CommandResult r;
    r.request = request;
    setProblem(r, Problem(Problem::Code::CannotCordon));
    Q_EMIT commandFinished(r);
}

void ApplianceSession::previewSchedule(quint64 request, QJsonObject windowsParams)
{
    Q_UNUSED(windowsParams);
    SchedulePreview p;
    p.request = request;
    setProblem(p, Problem(Problem::Code::CannotPreviewSchedule));
    Q_EMIT schedulePreviewReady(p);
}

} // namespace Zhaoxi::Session
