// SPDX-License-Identifier: GPL-3.0-or-later
#include "trial.h"

#include "scheduler.h"

namespace Zhaoxi::Sched {

Trial::Trial(const Scheduler &scheduler, qint64 nowMs)
    : m_scheduler(scheduler)
    , m_nowMs(nowMs)
    , m_state(scheduler.state())
{}

qint64 Trial::budgetLeft(Domain::WorkloadKind kind) const
{
    // The trial's usage, not the scheduler's: what left and what was taken here counts.
    const qint64 b = m_scheduler.classBudget().forKind(kind);
    return b < 0 ? -1 : std::max<qint64>(0, b - m_state.classUsage()[kind]);
}

const Job &Trial::probeFor(const WorkloadSpec &spec)
{
    const JobId id(int(m_state.jobs().size())); // the id addJob would give it
    if (!m_probe || m_probe->id != id || !(m_probe->spec == spec)) {
        Job j;
        j.id = id;
        j.spec = spec;
        j.submittedMs = m_nowMs;
        j.accountedAtMs = m_nowMs;
        m_probe = std::move(j);
        m_prepared = false;
    }
    return *m_probe;
}

void Trial::leave(JobId job)
{
    if (!job.isValid() || job.value() >= m_state.jobs().size() || !m_state.job(job).isActive())
        return;
    Statement st(m_state);
    st.evict(job, m_nowMs);
    st.commit(); // on the copy only
}

// The question Framework::decide asks of one card for a single-card job (onlyCard), without its
// scoring: the host filters, then the card filters on that card alone. A gang is asked about one
// of its cards, so the filters run for one unit; the class budget is the whole job's, as decide
// checks it.
Status Trial::check(const Job &probe, CardId card, const DecideOptions &options, UnitChoice *unit)
{
    const Framework &fw = m_scheduler.framework();
    // What prepare works out depends on the job and the options, not on what the state holds:
    // once per probe while a policy walks the cards with it.
    if (!m_prepared || m_preparedCreate != options.allowCreatePartitions
        || m_preparedBudget != options.classBudgetLeft || m_ctx.job != &probe) {
        fw.prepare(m_ctx, m_state, probe, m_nowMs, options);
        m_prepared = true;
        m_preparedCreate = options.allowCreatePartitions;
        m_preparedBudget = options.classBudgetLeft;
    }
    const int cards = probe.spec.demand.cards;
    const qint64 demand = qint64(m_ctx.demandMilli) * cards;
    if (m_ctx.classBudgetLeft >= 0 && demand > m_ctx.classBudgetLeft)
        return Status::unschedulable(Reason::ClassBudgetExceeded, demand, m_ctx.classBudgetLeft);
    if (cards < 1)
        return Status::unresolvable(Reason::NoFreeUnit); // CPU-only: it takes no card
    m_ctx.unitsNeeded = 1;
    const CardState &c = m_state.card(card);
    const HostState &host = m_state.host(c.host);
    CardMask mask = CardMask(1) << (card.value() - host.firstCard);
    const Status st = fw.filterHost(m_ctx, host, &mask, m_options);
    if (st.isSuccess())
        *unit = m_options[card.value() - host.firstCard].choice;
    return st;
}

CardFit Trial::evaluate(const Job &probe, CardId card, const FitOptions &options, Statement &st)
{
    const SchedulerOptions &so = m_scheduler.options();
    const WorkloadSpec &spec = probe.spec;
    DecideOptions o;
    o.trace = false;
    o.allowCreatePartitions = so.allowCreatePartitions;
    o.classBudgetLeft = options.classBudget ? budgetLeft(spec.kind) : -1;
    CardFit fit;
    fit.card = card;
    fit.status = check(probe, card, o, &fit.unit);
    // Scheduler::tick reconfigures only what preemption or a repartition could help, within the
    // budget, for single-card jobs.
    if (fit.isSuccess() || !options.reconfigure || !so.allowReconfigure
        || fit.status.code != Status::Code::Unschedulable
        || fit.status.reason == Reason::ClassBudgetExceeded || spec.demand.cards != 1)
        return fit;
    CycleContext ctx;
    DecideOptions ro;
    ro.classBudgetLeft = o.classBudgetLeft;
    m_scheduler.framework().prepare(ctx, m_state, probe, m_nowMs, ro);
    const std::optional<Scheduler::Reconfiguration> r
            = Scheduler::reconfiguration(m_state, ctx, probe, m_state.card(card));
    if (!r)
        return fit;
    const QList<int> destroyed = Scheduler::applyReconfiguration(st, *r);
    o.allowCreatePartitions = true; // as tryReconfigure places after its change
    UnitChoice unit;
    const Status after = check(probe, card, o, &unit);
    if (!after.isSuccess())
        return fit; // the scheduler would undo its change: the first verdict stands
    fit.status = after;
    fit.unit = unit;
    fit.destroyedUids = destroyed;
    fit.newMode = r->mode;
    return fit;
}

CardFit Trial::fitOn(const WorkloadSpec &spec,
                     CardId card,
                     const QList<JobId> &alsoLeaving,
                     const FitOptions &options)
{
    if (!card.isValid() || card.value() >= m_state.cards().size()) {
        CardFit fit;
        fit.card = card;
        fit.status = Status::error(Reason::None);
        return fit;
    }
    Statement st(m_state);
    for (JobId j : alsoLeaving) {
        if (j.isValid() && j.value() < m_state.jobs().size())
            st.evict(j, m_nowMs);
    }
    // The filters read the job, not the state's list of jobs: a probe beside the state keeps
    // the copy's job list shared with the scheduler's while nothing leaves.
    const CardFit fit = evaluate(probeFor(spec), card, options, st);
    st.discard();
    return fit;
}

JobId Trial::take(const WorkloadSpec &spec, const CardFit &fit)
{
    if (!fit.isSuccess() || spec.demand.cards != 1 || !fit.card.isValid()
        || fit.card.value() >= m_state.cards().size())
        return JobId();
    // The same change, then the same unit: anything else means the trial moved on since the fit
    // was found, and nothing is taken.
    Statement st(m_state);
    bool ok = true;
    if (fit.newMode) {
        const CardState &c = m_state.card(fit.card);
        ok = c.clients == 0 && m_state.model(c).supports(*fit.newMode);
        if (ok)
            st.setMode(fit.card, *fit.newMode);
    }
    for (int uid : fit.destroyedUids) {
        const Unit *u = m_state.card(fit.card).unit(uid);
        ok = ok && u && !u->job.isValid();
        if (ok)
            st.destroyPartition(fit.card, uid);
    }
    if (ok) {
        DecideOptions o;
        o.trace = false;
        o.allowCreatePartitions = m_scheduler.options().allowCreatePartitions || fit.reconfigures();
        UnitChoice unit;
        ok = check(probeFor(spec), fit.card, o, &unit).isSuccess() && unit == fit.unit;
    }
    if (!ok) {
        st.discard();
        return JobId();
    }
    const JobId job = m_state.addJob(spec, m_nowMs);
    Placement p;
    p.host = m_state.card(fit.card).host;
    p.units = {fit.unit};
    st.place(job, p, m_nowMs);
    st.commit(); // on the copy only
    return job;
}

} // namespace Zhaoxi::Sched
