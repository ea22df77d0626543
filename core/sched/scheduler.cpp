// SPDX-License-Identifier: GPL-3.0-or-later
#include "scheduler.h"

#include "core/catalogue/layoutrules.h"
#include "repartitionplanner.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace Zhaoxi::Sched {

using Domain::ComputeDemand;
using Domain::WorkloadKind;

const char *eventCodeName(EventCode code)
{
    switch (code) {
    case EventCode::JobSubmitted:
        return "job-submitted";
    case EventCode::JobPlaced:
        return "job-placed";
    case EventCode::JobWaiting:
        return "job-waiting";
    case EventCode::JobPreempting:
        return "job-preempting";
    case EventCode::JobEvicted:
        return "job-evicted";
    case EventCode::JobFinished:
        return "job-finished";
    case EventCode::JobCancelled:
        return "job-cancelled";
    case EventCode::JobFailed:
        return "job-failed";
    case EventCode::PartitionCreated:
        return "partition-created";
    case EventCode::PartitionDestroyed:
        return "partition-destroyed";
    case EventCode::CardModeChanged:
        return "card-mode-changed";
    case EventCode::CardFailed:
        return "card-failed";
    case EventCode::CardRecovered:
        return "card-recovered";
    case EventCode::BudgetChanged:
        return "budget-changed";
    case EventCode::JobPriorityChanged:
        return "job-priority-changed";
    case EventCode::LayoutPinned:
        return "layout-pinned";
    case EventCode::LayoutUnpinned:
        return "layout-unpinned";
    case EventCode::CardChangedAfterOperator:
        return "card-changed-after-operator";
    }
    return "unknown";
}

const char *autoChangeCauseName(AutoChangeCause cause)
{
    switch (cause) {
    case AutoChangeCause::WaitingJob:
        return "waiting-job";
    case AutoChangeCause::ReclaimIdle:
        return "reclaim-idle";
    }
    return "unknown";
}

qint64 ClassBudget::forKind(WorkloadKind kind) const
{
    switch (kind) {
    case WorkloadKind::Training:
        return trainingMilli;
    case WorkloadKind::Inference:
        return inferenceMilli;
    case WorkloadKind::Batch:
        break;
    }
    return batchMilli;
}

Scheduler::Scheduler(ClusterState state, Profile profile, SchedulerOptions options)
    : m_state(std::move(state))
    , m_framework(std::move(profile))
    , m_options(options)
{}

void Scheduler::publish(const SchedEvent &e)
{
    for (EventSink *s : std::as_const(m_sinks))
        s->record(e);
}

void Scheduler::publishSteps(const QList<Step> &steps, qint64 nowMs)
{
    if (!steps.isEmpty())
        for (StepSink *sink : std::as_const(m_stepSinks))
            sink->committed(steps, nowMs);
    for (const Step &s : steps) {
        SchedEvent e;
        e.atMs = nowMs;
        e.job = s.job;
        e.other = s.other;
        e.host = s.host;
        e.card = s.card;
        e.uid = s.uid;
        e.profile = s.profile;
        e.start = s.start;
        switch (s.kind) {
        case Step::Kind::Place:
            e.code = EventCode::JobPlaced;
            for (const UnitChoice &u : s.units) {
                if (u.kind == UnitChoice::Kind::NewPartition) {
                    SchedEvent c = e;
                    c.code = EventCode::PartitionCreated;
                    c.card = u.card;
                    c.host = m_state.card(u.card).host;
                    c.profile = u.profile;
                    c.start = u.start;
                    c.uid = -1;
                    // The instance's uid: the job's unit on that card at that start (a later
                    // step of the same statement may have moved the job on).
                    if (s.job.isValid()) {
                        const CardState &card = m_state.card(u.card);
                        for (const Assignment &a : m_state.job(s.job).assignments) {
                            const Unit *unit = a.card == u.card ? card.unit(a.unitUid) : nullptr;
                            if (unit && unit->start == u.start && unit->profile == u.profile)
                                c.uid = a.unitUid;
                        }
                    }
                    publish(c);
                }
            }
            if (!s.units.isEmpty())
                e.card = s.units.first().card;
            break;
        case Step::Kind::Evict:
            e.code = EventCode::JobEvicted;
            e.workLostMs = s.value;
            break;
        case Step::Kind::MarkPreempting:
            e.code = EventCode::JobPreempting;
            e.evictionAtMs = s.value;
            break;
        case Step::Kind::Finish:
            e.code = s.jobState == JobState::Finished    ? EventCode::JobFinished
                     : s.jobState == JobState::Cancelled ? EventCode::JobCancelled
                                                         : EventCode::JobFailed;
            break;
        case Step::Kind::CreatePartition:
            e.code = EventCode::PartitionCreated;
            break;
        case Step::Kind::DestroyPartition:
            e.code = EventCode::PartitionDestroyed;
            break;
        case Step::Kind::SetMode:
            e.code = EventCode::CardModeChanged;
            e.mode = s.mode;
            break;
        case Step::Kind::SetUnitState:
            continue;
        }
        publish(e);
    }
}

void Scheduler::keepTrace(DecisionTrace trace)
{
    m_lastTrace.insert(trace.job.value(), trace);
    m_ring.push_back(std::move(trace));
    while (int(m_ring.size()) > m_options.traceRingSize)
        m_ring.pop_front();
}

const DecisionTrace *Scheduler::lastTrace(JobId job) const
{
    const auto it = m_lastTrace.constFind(job.value());
    return it == m_lastTrace.cend() ? nullptr : &it.value();
}

qint64 Scheduler::budgetLeft(WorkloadKind kind) const
{
    const qint64 b = m_budget.forKind(kind);
    return b < 0 ? -1 : std::max<qint64>(0, b - m_state.classUsage()[kind]);
}

JobId Scheduler::submit(const WorkloadSpec &spec, qint64 nowMs)
{
    const JobId id = m_state.addJob(spec, nowMs);
    SchedEvent e;
    e.atMs = nowMs;
    e.code = EventCode::JobSubmitted;
    e.job = id;
    publish(e);
    return id;
}

bool Scheduler::end(JobId job, JobState terminal, qint64 nowMs)
{
    if (!job.isValid() || job.value() >= m_state.jobs().size())
        return false;
    const Job &j = m_state.job(job);
    // A job finishes only once it ran; it can be cancelled or fail while still waiting.
    if (terminal == JobState::Finished ? !j.isActive() : j.isTerminal())
        return false;
    Statement st(m_state);
    st.finish(job, terminal, nowMs);
    st.commit();
    m_nominated.remove(job.value());
    publishSteps(st.steps(), nowMs);
    return true;
}

bool Scheduler::cancel(JobId job, qint64 nowMs)
{
    return end(job, JobState::Cancelled, nowMs);
}

bool Scheduler::finish(JobId job, qint64 nowMs)
{
    return end(job, JobState::Finished, nowMs);
}

bool Scheduler::fail(JobId job, qint64 nowMs)
{
    return end(job, JobState::Failed, nowMs);
}

qint64 Scheduler::requeue(JobId job, qint64 nowMs, bool atCheckpoint)
{
    if (!job.isValid() || job.value() >= m_state.jobs().size() || !m_state.job(job).isActive())
        return -1;
    m_state.accountProgress(job, nowMs);
    const Job &j = m_state.job(job);
    if (j.state == JobState::Preempting) {
        // Already leaving: at once brings its eviction forward; at checkpoint changes nothing.
        if (atCheckpoint || j.evictAtMs <= nowMs)
            return j.evictAtMs;
        Statement st(m_state);
        st.evict(job, nowMs);
        st.commit();
        publishSteps(st.steps(), nowMs);
        return nowMs;
    }
    const qint64 interval = j.spec.checkpointIntervalMs;
    qint64 at = nowMs;
    if (atCheckpoint && interval > 0 && m_options.preemption.checkpointOnRequest) {
        at = nowMs + m_options.preemption.maxCheckpointWaitMs;
    } else if (atCheckpoint && interval > 0 && j.workDoneMs % interval != 0) {
        const qint64 wait = interval - j.workDoneMs % interval;
        if (wait <= m_options.preemption.maxCheckpointWaitMs)
            at = nowMs + wait;
    }
    Statement st(m_state);
    if (at <= nowMs)
        st.evict(job, nowMs);
    else
        st.markPreempting(job, JobId(), at);
    st.commit();
    publishSteps(st.steps(), nowMs);
    return at;
}

bool Scheduler::checkpointed(JobId job, qint64 nowMs)
{
    if (!job.isValid() || job.value() >= m_state.jobs().size() || !m_state.job(job).isActive())
        return false;
    m_state.accountProgress(job, nowMs);
    Job &j = m_state.jobRef(job);
    j.checkpointMs = j.workDoneMs;
    if (j.state != JobState::Preempting || j.evictAtMs <= nowMs)
        return false;
    // Leaving anyway: with its progress saved it goes now, so its room is free sooner.
    Statement st(m_state);
    st.evict(job, nowMs);
    st.commit();
    publishSteps(st.steps(), nowMs);
    return true;
}

bool Scheduler::setPriority(JobId job, int priority, qint64 nowMs)
{
    if (!job.isValid() || job.value() >= m_state.jobs().size() || m_state.job(job).isTerminal())
        return false;
    Job &j = m_state.jobRef(job);
    if (j.spec.priority == priority)
        return true;
    SchedEvent e;
    e.atMs = nowMs;
    e.code = EventCode::JobPriorityChanged;
    e.job = job;
    e.previousPriority = j.spec.priority;
    e.priority = priority;
    j.spec.priority = priority;
    publish(e);
    return true;
}

bool Scheduler::keep(JobId job, qint64 nowMs)
{
    if (!job.isValid() || job.value() >= m_state.jobs().size())
        return false;
    Job &j = m_state.jobRef(job);
    if (j.state != JobState::Preempting || j.preemptedBy.isValid() || j.evictAtMs <= nowMs)
        return false;
    j.state = JobState::Running;
    j.evictAtMs = -1;
    return true;
}

void Scheduler::setCardCordoned(CardId card, bool cordoned, qint64 nowMs)
{
    Q_UNUSED(nowMs)
    if (m_state.card(card).cordoned == cordoned)
        return;
    m_state.setCardCordoned(card, cordoned);
}

bool Scheduler::setOperatorCordon(CardId card, bool cordoned, qint64 nowMs, Problem *why)
{
    Q_UNUSED(nowMs)
    if (!card.isValid() || card.value() >= m_state.cards().size())
        return refuse(why, Problem(Problem::Code::NoCard, {QString::number(card.value())}));
    if (m_state.card(card).operatorCordoned == cordoned)
        return refuse(
                why,
                Problem(cordoned ? Problem::Code::CardCordoned : Problem::Code::CardNotCordoned,
                        {QString::number(card.value())}));
    m_state.setOperatorCordoned(card, cordoned);
    return true;
}

void Scheduler::cardFailed(CardId card, qint64 nowMs)
{
    if (m_state.card(card).health == CardHealth::Failed)
        return;
    Statement st(m_state);
    // Every job with a unit on the card goes back to the queue from its checkpoint (a gang as a
    // whole: its other cards are freed too).
    for (JobId j : m_state.jobsOn(card))
        st.evict(j, nowMs);
    st.commit();
    m_state.setCardHealth(card, CardHealth::Failed);
    SchedEvent e;
    e.atMs = nowMs;
    e.code = EventCode::CardFailed;
    e.card = card;
    e.host = m_state.card(card).host;
    publish(e);
    publishSteps(st.steps(), nowMs);
}

void Scheduler::cardRecovered(CardId card, qint64 nowMs)
{
    if (m_state.card(card).health != CardHealth::Failed)
        return;
    m_state.setCardHealth(card, CardHealth::Healthy);
    SchedEvent e;
    e.atMs = nowMs;
    e.code = EventCode::CardRecovered;
    e.card = card;
    e.host = m_state.card(card).host;
    publish(e);
}

void Scheduler::setHostUp(HostId host, bool up, qint64 nowMs)
{
    if (m_state.host(host).up == up)
        return;
    if (!up) {
        Statement st(m_state);
        for (const Job &j : m_state.jobs()) {
            if (j.isActive() && j.host == host)
                st.evict(j.id, nowMs);
        }
        st.commit();
        publishSteps(st.steps(), nowMs);
    }
    m_state.setHostUp(host, up);
}

void Scheduler::setClassBudget(const ClassBudget &budget, qint64 nowMs)
{
    if (budget == m_budget)
        return;
    m_budget = budget;
    SchedEvent e;
    e.atMs = nowMs;
    e.code = EventCode::BudgetChanged;
    publish(e);
}

bool Scheduler::applyLayout(CardId cardId,
                            const QList<Domain::MigPlacement> &target,
                            qint64 nowMs,
                            Problem *why,
                            std::optional<AutoChangeCause> automatic)
{
    const CardState &card = m_state.card(cardId);
    const CardModel &model = m_state.model(card);
    if (automatic && card.layoutPinned())
        return refuse(why, Problem(Problem::Code::LayoutPinned));
    if (card.mode != PartitionMode::Mig)
        return refuse(why, Problem(Problem::Code::CardNotMig, {QString::number(cardId.value())}));
    const Catalogue::LayoutVerdict v = Catalogue::validateLayout(model, target);
    if (!v.isValid())
        return refuse(why, Catalogue::layoutRuleProblem(v, model, target));
    const Catalogue::LayoutSteps steps = Catalogue::layoutSteps(model, card.migLayout(), target);
    QList<int> destroy;
    for (int i : steps.destroy) {
        const Unit &u = card.units[i];
        if (u.job.isValid()) {
            return refuse(why,
                          Problem(Problem::Code::InstanceBusy,
                                  {QStringLiteral("%1@%2")
                                           .arg(model.migProfiles[u.profile].name)
                                           .arg(u.start),
                                   m_state.job(u.job).spec.name}));
        }
        destroy.append(u.uid);
    }
    Statement st(m_state);
    for (int uid : destroy)
        st.destroyPartition(cardId, uid);
    for (const Domain::MigPlacement &p : steps.create)
        st.createPartition(cardId, p.profile, p.start);
    st.commit();
    publishSteps(st.steps(), nowMs);
    if (automatic)
        noteAutomaticChanges(st.steps(), JobId(), *automatic, nowMs);
    else
        m_operatorChangedAt.insert(cardId.value(), nowMs);
    return true;
}

bool Scheduler::setCardMode(CardId cardId, PartitionMode mode, qint64 nowMs, Problem *why)
{
    const CardState &card = m_state.card(cardId);
    if (!m_state.model(card).supports(mode))
        return refuse(why,
                      Problem(Problem::Code::ModeNotOnModel,
                              {m_state.model(card).name, Domain::toString(mode)}));
    if (card.clients > 0)
        return refuse(why, Problem(Problem::Code::CardServesJobs, {QString::number(card.clients)}));
    if (card.mode == mode)
        return true;
    Statement st(m_state);
    st.setMode(cardId, mode);
    st.commit();
    publishSteps(st.steps(), nowMs);
    m_operatorChangedAt.insert(cardId.value(), nowMs);
    return true;
}

namespace {
// An event about one card (its host filled in), for the pin events and the automatic changes.
SchedEvent cardEvent(const ClusterState &state, EventCode code, CardId card, qint64 nowMs)
{
    SchedEvent e;
    e.atMs = nowMs;
    e.code = code;
    e.card = card;
    e.host = state.card(card).host;
    return e;
}

SchedEvent unpinnedEvent(const ClusterState &state, CardId card, qint64 nowMs, bool expired)
{
    SchedEvent e = cardEvent(state, EventCode::LayoutUnpinned, card, nowMs);
    e.expired = expired;
    return e;
}
} // namespace

bool Scheduler::pinLayout(CardId card, qint64 untilMs, qint64 nowMs, Problem *why)
{
    if (!card.isValid() || card.value() >= m_state.cards().size())
        return refuse(why, Problem(Problem::Code::NoCard, {QString::number(card.value())}));
    if (m_state.card(card).health == CardHealth::Failed)
        return refuse(why, Problem(Problem::Code::CardFailed, {QString::number(card.value())}));
    if (untilMs != -1 && untilMs <= nowMs)
        return refuse(why,
                      Problem(Problem::Code::PinNotAfterNow,
                              {QString::number(untilMs), QString::number(nowMs)}));
    if (m_state.card(card).layoutPinnedUntilMs == untilMs)
        return true;
    m_state.setLayoutPinned(card, untilMs);
    SchedEvent e = cardEvent(m_state, EventCode::LayoutPinned, card, nowMs);
    e.untilMs = untilMs;
    publish(e);
    return true;
}

bool Scheduler::unpinLayout(CardId card, qint64 nowMs)
{
    if (!card.isValid() || card.value() >= m_state.cards().size()
        || !m_state.card(card).layoutPinned())
        return false;
    m_state.setLayoutPinned(card, 0);
    publish(unpinnedEvent(m_state, card, nowMs, false));
    return true;
}

qint64 Scheduler::layoutPinnedUntil(CardId card) const
{
    if (!card.isValid() || card.value() >= m_state.cards().size())
        return 0;
    return m_state.card(card).layoutPinnedUntilMs;
}

qint64 Scheduler::operatorChangedAt(CardId card) const
{
    return m_operatorChangedAt.value(card.value(), -1);
}

void Scheduler::expirePins(qint64 nowMs)
{
    for (const CardState &c : m_state.cards()) {
        if (c.layoutPinnedUntilMs > 0 && c.layoutPinnedUntilMs <= nowMs) {
            const CardId card = c.id;
            m_state.setLayoutPinned(card, 0);
            publish(unpinnedEvent(m_state, card, nowMs, true));
        }
    }
}

void Scheduler::noteAutomaticChanges(const QList<Step> &steps,
                                     JobId forJob,
                                     AutoChangeCause cause,
                                     qint64 nowMs)
{
    QList<int> cards;
    for (const Step &s : steps) {
        switch (s.kind) {
        case Step::Kind::CreatePartition:
        case Step::Kind::DestroyPartition:
        case Step::Kind::SetMode:
            if (!cards.contains(s.card.value()))
                cards.append(s.card.value());
            break;
        case Step::Kind::Place:
            for (const UnitChoice &u : s.units) {
                if (u.kind == UnitChoice::Kind::NewPartition && !cards.contains(u.card.value()))
                    cards.append(u.card.value());
            }
            break;
        default:
            break;
        }
    }
    for (int card : std::as_const(cards)) {
        const qint64 at = m_operatorChangedAt.value(card, -1);
        if (at < 0 || nowMs - at >= kOperatorChangeWindowMs)
            continue;
        SchedEvent e = cardEvent(m_state, EventCode::CardChangedAfterOperator, CardId(card), nowMs);
        e.job = forJob;
        e.cause = cause;
        e.operatorAtMs = at;
        publish(e);
    }
}

QList<JobId> Scheduler::queue() const
{
    QList<JobId> q;
    for (const Job &j : m_state.jobs()) {
        if (j.state == JobState::Pending)
            q.append(j.id);
    }
    const QueueSortPlugin *sort = m_framework.profile().queueSort.get();
    if (sort) {
        std::stable_sort(q.begin(), q.end(), [&](JobId a, JobId b) {
            return sort->less(m_state.job(a), m_state.job(b));
        });
    }
    return q;
}

void Scheduler::evictDue(qint64 nowMs, TickResult &r)
{
    Statement st(m_state);
    for (const Job &j : m_state.jobs()) {
        if (j.state == JobState::Preempting && j.evictAtMs <= nowMs) {
            st.evict(j.id, nowMs);
            ++r.evicted;
        }
    }
    st.commit();
    publishSteps(st.steps(), nowMs);
}

Scheduler::TickResult Scheduler::tick(qint64 nowMs)
{
    TickResult r;
    for (const Job &j : m_state.jobs()) {
        if (j.isActive())
            m_state.accountProgress(j.id, nowMs);
    }
    evictDue(nowMs, r);
    expirePins(nowMs);
    const QList<JobId> pending = queue();
    QList<HostId> reserved; // hosts whose victims are leaving for a nominated preemptor
    for (JobId id : pending) {
        const Job &job = m_state.job(id);
        DecideOptions o;
        o.allowCreatePartitions = m_options.allowCreatePartitions;
        o.classBudgetLeft = budgetLeft(job.spec.kind);
        if (!reserved.isEmpty()) {
            for (const HostState &h : m_state.hosts()) {
                if (!reserved.contains(h.id))
                    o.onlyHosts.append(h.id);
            }
            if (o.onlyHosts.isEmpty()) {
                ++r.waiting;
                continue;
            }
        }
        const auto nominated = m_nominated.constFind(id.value());
        QList<Victim> victims;
        bool overBudget = false;
        if (nominated != m_nominated.cend()) {
            victims = nominated->victims;
            overBudget = nominated->budget == BudgetRule::Exceed;
            if (overBudget)
                o.classBudgetLeft = -1; // the operator's "place anyway", confirmed
            // Waiting for its victims: try only the host they are leaving.
            bool victimsLeft = false;
            for (const Job &v : m_state.jobs())
                victimsLeft |= v.state == JobState::Preempting && v.preemptedBy == id;
            if (victimsLeft) {
                if (m_options.reserveNominatedHosts && !reserved.contains(nominated->host))
                    reserved.append(nominated->host);
                ++r.waiting;
                continue;
            }
            m_nominated.remove(id.value());
        }
        // A preemptor whose victims have left takes the room they made, in its primary shape
        // (preemption plans for that shape only); everyone else gets the shape choice.
        Decision d = victims.isEmpty() ? chooseShape(job, nowMs, o)
                                       : m_framework.decide(m_workspace, m_state, job, nowMs, o);
        if (d.status.isSuccess()) {
            Statement st(m_state);
            st.place(id, *d.placement, nowMs, overBudget);
            st.commit();
            publishSteps(st.steps(), nowMs);
            if (!m_operatorChangedAt.isEmpty())
                noteAutomaticChanges(st.steps(), id, AutoChangeCause::WaitingJob, nowMs);
            if (!victims.isEmpty()) {
                // Placed where its victims made room: the explanation keeps them.
                d.trace.kind = DecisionKind::Preemption;
                d.trace.victims = victims;
            }
            keepTrace(std::move(d.trace));
            m_waitingReason.remove(id.value());
            ++r.placed;
            continue;
        }
        if (d.status.code == Status::Code::Unschedulable) {
            // Hosts reserved for a waiting preemptor are not reconfigured for others; the rest
            // are.
            if (m_options.allowReconfigure && d.status.reason != Reason::ClassBudgetExceeded
                && tryReconfigure(id, nowMs, reserved)) {
                m_waitingReason.remove(id.value());
                ++r.placed;
                continue;
            }
            if (reserved.isEmpty() && m_options.preemptionEnabled && tryPreempt(id, nowMs, d)) {
                if (m_state.job(id).isActive()) {
                    ++r.placed;
                    continue;
                }
                // Nominated: its host is held from now on, this cycle included (jobs after it
                // would otherwise take the units its victims just left, and the preemption
                // would start over at their next checkpoints).
                const auto nom = m_nominated.constFind(id.value());
                if (m_options.reserveNominatedHosts && nom != m_nominated.cend()
                    && !reserved.contains(nom->host))
                    reserved.append(nom->host);
            }
        }
        ++r.waiting;
        const Reason reason = d.status.reason;
        if (m_waitingReason.value(id.value(), Reason::None) != reason) {
            m_waitingReason.insert(id.value(), reason);
            SchedEvent e;
            e.atMs = nowMs;
            e.code = EventCode::JobWaiting;
            e.job = id;
            e.reason = reason;
            e.need = d.status.need;
            e.have = d.status.have;
            publish(e);
        }
        keepTrace(std::move(d.trace));
    }
    for (const Job &j : m_state.jobs()) {
        if (j.state == JobState::Preempting && (r.nextWakeMs < 0 || j.evictAtMs < r.nextWakeMs))
            r.nextWakeMs = j.evictAtMs;
    }
    return r;
}

bool Scheduler::tryPreempt(JobId id, qint64 nowMs, Decision &d, CardId onCard, BudgetRule budget)
{
    PreemptionOptions po = m_options.preemption;
    po.classBudgetLeft = budget == BudgetRule::Exceed ? -1 : budgetLeft(m_state.job(id).spec.kind);
    po.onlyCard = onCard;
    const std::optional<PreemptionPlan> plan = planPreemption(m_framework, m_state, id, nowMs, po);
    if (!plan)
        return false;
    Statement st(m_state);
    for (const Victim &v : plan->victims) {
        if (v.evictAtMs <= nowMs)
            st.evict(v.job, nowMs);
        else
            st.markPreempting(v.job, id, v.evictAtMs);
    }
    if (plan->readyAtMs <= nowMs)
        st.place(id, plan->placement, nowMs, budget == BudgetRule::Exceed);
    else
        m_nominated.insert(id.value(), Nomination{plan->host, plan->victims, budget});
    st.commit();
    publishSteps(st.steps(), nowMs);
    if (!onCard.isValid() && !m_operatorChangedAt.isEmpty())
        noteAutomaticChanges(st.steps(), id, AutoChangeCause::WaitingJob, nowMs);
    d.trace.kind = DecisionKind::Preemption;
    d.trace.victims = plan->victims;
    d.trace.placement = plan->placement;
    d.trace.note = QStringLiteral("preempts %1 job(s) on host %2; ready at %3 ms")
                           .arg(plan->victims.size())
                           .arg(m_state.host(plan->host).name)
                           .arg(plan->readyAtMs);
    if (plan->readyAtMs <= nowMs)
        d.trace.result = Status::success();
    keepTrace(d.trace);
    return true;
}

std::optional<Scheduler::Reconfiguration> Scheduler::reconfiguration(const ClusterState &state,
                                                                     const CycleContext &ctx,
                                                                     const Job &job,
                                                                     const CardState &c)
{
    const HostState &h = state.host(c.host);
    if (c.health == CardHealth::Failed || c.cordoned || c.layoutPinned() || !h.up)
        return std::nullopt;
    const ModelFit &mf = ctx.models[c.model];
    if (!mf.allowed)
        return std::nullopt;
    if (!job.spec.affinity.host.isEmpty() && job.spec.affinity.host != h.name)
        return std::nullopt;
    if (h.cpuMilli - h.usedCpuMilli < job.spec.demand.hostCpuMilli
        || h.memoryMiB - h.usedMemoryMiB < job.spec.demand.hostMemoryMiB)
        return std::nullopt;
    const ComputeDemand &d = job.spec.demand.compute;
    const bool wantsMig = d.kind == ComputeDemand::Kind::MigProfile
                          || d.kind == ComputeDemand::Kind::MigSlices
                          || job.spec.isolation == Domain::IsolationRequirement::HardOnly;
    const CardModel &m = state.model(c);
    Reconfiguration opt;
    opt.card = c.id;
    if (c.mode == PartitionMode::Mig) {
        if (mf.profileOrder.isEmpty())
            return std::nullopt;
        QList<PlannerInstance> cur;
        for (const Unit &u : c.units)
            cur.append({u.uid, u.profile, u.start, u.job.isValid() || u.state != UnitState::Ready});
        opt.plan = planRepartition(m, cur, {mf.profileOrder.first()});
        if (opt.plan.satisfied < 1 || !opt.plan.destroyedBusy.isEmpty() || !opt.plan.changed)
            return std::nullopt;
        opt.cost = opt.plan.destroyedIdle;
    } else if (c.clients == 0) {
        // An idle card in the wrong mode: switch it.
        if (wantsMig && m.supportsMig())
            opt.mode = PartitionMode::Mig;
        else if (job.spec.isolation == Domain::IsolationRequirement::HardOnly
                 && c.mode != PartitionMode::Whole && mf.wholeOk)
            opt.mode = PartitionMode::Whole;
        else if (!mf.wholeOk && d.kind != ComputeDemand::Kind::MigProfile && mf.softMilli > 0
                 && !m.softModes.isEmpty())
            opt.mode = m.softModes.first().mode;
        else
            return std::nullopt;
        opt.cost = 1;
    } else {
        return std::nullopt;
    }
    return opt;
}

QList<int> Scheduler::applyReconfiguration(Statement &st, const Reconfiguration &r)
{
    QList<int> destroyed;
    if (r.mode) {
        st.setMode(r.card, *r.mode);
        return destroyed;
    }
    // The plan's destroys make the room; the placement creates the instance where it strands
    // least (MigFit::creatableStart) rather than at the plan's lowest start.
    for (const RepartitionStep &s : r.plan.steps) {
        if (s.kind == RepartitionStep::Kind::Destroy) {
            st.destroyPartition(r.card, s.uid);
            destroyed.append(s.uid);
        }
    }
    return destroyed;
}

// When no card can take the job as the cards are laid out, change the layout of one idle card:
// switch an idle card to the mode the demand needs, or repartition a MIG card by destroying idle
// instances (never busy ones). Single-card jobs only; gangs wait for whole cards to free up.
bool Scheduler::tryReconfigure(JobId id, qint64 nowMs, const QList<HostId> &skipHosts)
{
    const Job &job = m_state.job(id);
    if (job.spec.demand.cards != 1)
        return false;
    CycleContext ctx;
    DecideOptions o;
    o.classBudgetLeft = budgetLeft(job.spec.kind);
    m_framework.prepare(ctx, m_state, job, nowMs, o);
    std::optional<Reconfiguration> best;
    for (const CardState &c : m_state.cards()) {
        if (skipHosts.contains(c.host))
            continue;
        std::optional<Reconfiguration> opt = reconfiguration(m_state, ctx, job, c);
        if (opt && (!best || opt->cost < best->cost))
            best = std::move(opt);
    }
    if (!best)
        return false;
    Statement st(m_state);
    applyReconfiguration(st, *best);
    o.onlyCard = best->card;
    o.allowCreatePartitions = true;
    Decision dec = m_framework.decide(m_workspace, m_state, job, nowMs, o);
    if (!dec.status.isSuccess()) {
        st.discard();
        return false;
    }
    st.place(id, *dec.placement, nowMs);
    st.commit();
    publishSteps(st.steps(), nowMs);
    if (!m_operatorChangedAt.isEmpty())
        noteAutomaticChanges(st.steps(), id, AutoChangeCause::WaitingJob, nowMs);
    dec.trace.kind = DecisionKind::Repartition;
    dec.trace.note = best->mode ? QStringLiteral("switched card %1 to %2 mode")
                                          .arg(best->card.value())
                                          .arg(Domain::toString(*best->mode))
                                : QStringLiteral("repartitioned card %1: %2")
                                          .arg(best->card.value())
                                          .arg(best->plan.note);
    keepTrace(std::move(dec.trace));
    return true;
}

Decision Scheduler::placeNow(JobId id, qint64 nowMs, CardId onCard, BudgetRule budget)
{
    const Job &job = m_state.job(id);
    DecideOptions o;
    o.allowCreatePartitions = m_options.allowCreatePartitions;
    o.classBudgetLeft = budget == BudgetRule::Exceed ? -1 : budgetLeft(job.spec.kind);
    o.onlyCard = onCard;
    if (job.state != JobState::Pending) {
        Decision d;
        d.status = Status::error(Reason::None);
        return d;
    }
    Decision d = chooseShape(job, nowMs, o);
    if (d.status.isSuccess()) {
        Statement st(m_state);
        st.place(id, *d.placement, nowMs, budget == BudgetRule::Exceed);
        st.commit();
        publishSteps(st.steps(), nowMs);
        m_waitingReason.remove(id.value());
    }
    keepTrace(d.trace);
    return d;
}

std::optional<PreemptionPlan> Scheduler::planPreemptionOn(JobId job,
                                                          CardId card,
                                                          qint64 nowMs,
                                                          BudgetRule budget) const
{
    if (!job.isValid() || job.value() >= m_state.jobs().size()
        || m_state.job(job).state != JobState::Pending)
        return std::nullopt;
    ClusterState trial = m_state; // planPreemption leaves it as it came; this keeps us const
    PreemptionOptions po = m_options.preemption;
    po.classBudgetLeft = budget == BudgetRule::Exceed ? -1 : budgetLeft(m_state.job(job).spec.kind);
    po.onlyCard = card;
    return planPreemption(m_framework, trial, job, nowMs, po);
}

Decision Scheduler::placeWithPreemption(JobId id, qint64 nowMs, CardId onCard, BudgetRule budget)
{
    Decision d = placeNow(id, nowMs, onCard, budget);
    if (d.status.isSuccess() || d.status.code != Status::Code::Unschedulable)
        return d;
    if (tryPreempt(id, nowMs, d, onCard, budget))
        d.status = Status::success(); // placed now, or nominated: it starts once they have left
    return d;
}

namespace {

// The compute a placement takes, in milli-cards of the cards it lands on.
qint64 placementMilli(const ClusterState &state, const Placement &p)
{
    qint64 milli = 0;
    for (const UnitChoice &u : p.units) {
        const CardState &c = state.card(u.card);
        switch (u.kind) {
        case UnitChoice::Kind::Existing:
            if (const Unit *unit = c.unit(u.uid))
                milli += state.unitMilli(c, *unit);
            break;
        case UnitChoice::Kind::NewShare:
            milli += u.milli;
            break;
        case UnitChoice::Kind::NewPartition: {
            const CardModel &m = state.model(c);
            milli += m.migProfiles[u.profile].computeSlices * 1000 / m.migComputeSlices;
            break;
        }
        }
    }
    return milli;
}

} // namespace

Decision Scheduler::chooseShape(const Job &job, qint64 nowMs, const DecideOptions &options)
{
    const WorkloadSpec &spec = job.spec;
    if (spec.shapes.isEmpty())
        return m_framework.decide(m_workspace, m_state, job, nowMs, options);
    const bool inference = spec.kind == Domain::WorkloadKind::Inference && spec.inference;
    const bool gangs = spec.kind != Domain::WorkloadKind::Inference;
    const ShapeOptions &so = m_options.shapes;
    std::optional<Decision> primary;
    std::optional<Decision> best;
    double bestScore = 0;
    int bestTrace = -1;
    QList<ShapeTrace> traces;
    Job probe = job;
    for (int k = -1; k < spec.shapes.size(); ++k) {
        ShapeTrace t;
        t.shape = k;
        t.speed = Domain::shapeSpeed(spec, k);
        const Domain::Demand &demand = Domain::shapeDemand(spec, k);
        if (gangs && demand.cards > 1)
            t.gang = std::pow(so.gangEfficiency, std::log2(double(demand.cards)));
        if (inference && spec.inference->serviceTimeMs > 0) {
            t.serviceMs = spec.inference->serviceTimeMs / t.speed;
            // The primary is the spec's own unit: only the alternatives must prove their speed.
            if (k >= 0 && t.serviceMs * so.sloHeadroom > spec.inference->sloP99Ms) {
                t.verdict = ShapeTrace::Verdict::TooSlow;
                traces.append(t);
                continue;
            }
        }
        probe.spec.demand = demand;
        Decision d = m_framework.decide(m_workspace, m_state, probe, nowMs, options);
        d.trace.job = job.id;
        if (!d.status.isSuccess()) {
            t.verdict = ShapeTrace::Verdict::NoRoom;
            t.status = d.status;
        } else {
            t.verdict = ShapeTrace::Verdict::Placeable;
            t.milli = placementMilli(m_state, *d.placement);
            t.score = t.milli > 0 ? t.speed * t.gang / (double(t.milli) / 1000.0) : 0;
            d.placement->shape = k;
            d.trace.placement = d.placement;
            // Strictly more, with a margin for rounding: equal figures keep the earlier shape,
            // the primary first.
            if (!best || t.score > bestScore * (1 + 1e-9)) {
                best = d;
                bestScore = t.score;
                bestTrace = int(traces.size());
            }
        }
        if (k < 0)
            primary = std::move(d);
        traces.append(t);
    }
    Decision out;
    if (best) {
        traces[bestTrace].verdict = ShapeTrace::Verdict::Chosen;
        out = std::move(*best);
    } else if (primary) {
        out = std::move(*primary);
    } else {
        // Only when the primary was never decided, which the loop does not allow; kept safe.
        out = m_framework.decide(m_workspace, m_state, job, nowMs, options);
    }
    out.trace.shapes = traces;
    return out;
}

bool changeLayoutPin(Scheduler &scheduler, CardId card, qint64 untilMs, qint64 nowMs, Problem *why)
{
    if (untilMs != 0)
        return scheduler.pinLayout(card, untilMs, nowMs, why);
    if (scheduler.unpinLayout(card, nowMs))
        return true;
    return refuse(why, Problem(Problem::Code::NoPin, {QString::number(card.value())}));
}

} // namespace Zhaoxi::Sched
