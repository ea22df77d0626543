// SPDX-License-Identifier: GPL-3.0-or-later
// The scheduler's questions about a workload that change nothing: could it ever run, could it run
// on this card, when could it start, which cards could serve it, how would it fit on one.
#include "scheduler.h"

#include "trial.h"

#include <algorithm>
#include <map>

namespace Zhaoxi::Sched {

using Domain::ComputeDemand;
using Domain::WorkloadKind;

ClusterState Scheduler::idealFor(const WorkloadSpec &spec) const
{
    // The appliance empty, every healthy card in the mode that suits this demand best.
    ClusterState ideal = ClusterState::emptyLike(m_state);
    const ComputeDemand &d = spec.demand.compute;
    const bool soft = spec.isolation == Domain::IsolationRequirement::SoftAllowed;
    for (const HostState &h : m_state.hosts()) {
        const HostId nh = ideal.addHost(h.name, h.cpuMilli, h.memoryMiB);
        for (int i = 0; i < h.cardCount; ++i) {
            const CardState &c = m_state.cards()[h.firstCard + i];
            const CardModel &m = m_state.model(c);
            PartitionMode mode = PartitionMode::Whole;
            if ((d.kind == ComputeDemand::Kind::MigProfile
                 || d.kind == ComputeDemand::Kind::MigSlices)
                && m.supportsMig())
                mode = PartitionMode::Mig;
            else if (d.kind == ComputeDemand::Kind::Fraction && soft && !m.softModes.isEmpty())
                mode = m.softModes.first().mode;
            else if (d.kind == ComputeDemand::Kind::Fraction && m.supportsMig())
                mode = PartitionMode::Mig;
            const CardId nc = ideal.addCard(nh, c.model, mode, c.linkDomain);
            if (c.health == CardHealth::Failed)
                ideal.setCardHealth(nc, CardHealth::Failed);
        }
    }
    return ideal;
}

Feasibility Scheduler::couldEverRun(const WorkloadSpec &spec) const
{
    ClusterState ideal = idealFor(spec);
    const JobId probe = ideal.addJob(spec, 0);
    DecideOptions o;
    o.trace = false;
    const Decision dec = m_framework.decide(ideal, ideal.job(probe), 0, o);
    Feasibility f;
    f.possible = dec.status.isSuccess();
    f.reason = dec.status;
    return f;
}

Status Scheduler::couldRunOn(const WorkloadSpec &spec,
                             CardId card,
                             qint64 nowMs,
                             BudgetRule budget) const
{
    ClusterState probeState = m_state; // shallow: the lists are implicitly shared
    const JobId probe = probeState.addJob(spec, nowMs);
    DecideOptions o;
    o.allowCreatePartitions = m_options.allowCreatePartitions;
    o.classBudgetLeft = budget == BudgetRule::Exceed ? -1 : budgetLeft(spec.kind);
    o.onlyCard = card;
    o.trace = false;
    const Decision d = m_framework.decide(probeState, probeState.job(probe), nowMs, o);
    if (d.status.isSuccess() && d.placement) {
        for (const UnitChoice &u : d.placement->units) {
            if (u.card == card)
                return d.status;
        }
        return Status::unschedulable(Reason::NoFreeUnit);
    }
    return d.status;
}

std::optional<qint64> Scheduler::earliestStart(const WorkloadSpec &spec,
                                               qint64 nowMs,
                                               const QList<BudgetChange> &changes) const
{
    ClusterState sim = m_state;
    const JobId probe = sim.addJob(spec, nowMs);
    const QueueSortPlugin *sort = m_framework.profile().queueSort.get();
    // Jobs queued ahead of the probe start first, whenever they fit (Slurm's will-run).
    QList<JobId> ahead;
    for (JobId q : queue()) {
        if (!sort || sort->less(sim.job(q), sim.job(probe)))
            ahead.append(q);
    }
    std::multimap<qint64, JobId> ends;
    auto expectEnd = [&](const Job &j, qint64 t) {
        const qint64 total = j.spec.time.expectedDurationMs;
        if (total > 0 && j.spec.kind != WorkloadKind::Inference)
            ends.emplace(t + std::max<qint64>(0, total - j.workDoneMs), j.id);
    };
    for (const Job &j : sim.jobs()) {
        if (j.isActive())
            expectEnd(j, nowMs);
    }
    QList<BudgetChange> budgetChanges = changes;
    std::sort(budgetChanges.begin(),
              budgetChanges.end(),
              [](const BudgetChange &a, const BudgetChange &b) { return a.atMs < b.atMs; });
    ClassBudget budget = m_budget;
    auto leftFor = [&](WorkloadKind kind) {
        const qint64 b = budget.forKind(kind);
        return b < 0 ? qint64(-1) : std::max<qint64>(0, b - sim.classUsage()[kind]);
    };
    qint64 t = nowMs;
    qsizetype nextChange = 0;
    for (int guard = 0; guard < 100000; ++guard) {
        while (nextChange < budgetChanges.size() && budgetChanges[nextChange].atMs <= t)
            budget = budgetChanges[nextChange++].budget;
        for (qsizetype i = 0; i < ahead.size();) {
            DecideOptions o;
            o.trace = false;
            o.classBudgetLeft = leftFor(sim.job(ahead[i]).spec.kind);
            const Decision d = m_framework.decide(sim, sim.job(ahead[i]), t, o);
            if (d.status.isSuccess()) {
                Statement st(sim);
                st.place(ahead[i], *d.placement, t);
                st.commit();
                expectEnd(sim.job(ahead[i]), t);
                ahead.removeAt(i);
            } else {
                ++i;
            }
        }
        DecideOptions o;
        o.trace = false;
        o.classBudgetLeft = leftFor(spec.kind);
        if (m_framework.decide(sim, sim.job(probe), t, o).status.isSuccess())
            return t;
        qint64 next = -1;
        if (!ends.empty())
            next = ends.begin()->first;
        if (nextChange < budgetChanges.size()
            && (next < 0 || budgetChanges[nextChange].atMs < next))
            next = budgetChanges[nextChange].atMs;
        if (next < 0)
            return std::nullopt;
        t = std::max(t, next);
        Statement st(sim);
        while (!ends.empty() && ends.begin()->first <= t) {
            st.finish(ends.begin()->second, JobState::Finished, t);
            ends.erase(ends.begin());
        }
        st.commit();
    }
    return std::nullopt;
}

QList<CardId> Scheduler::cardsThatCouldServe(const WorkloadSpec &spec) const
{
    ClusterState ideal = idealFor(spec);
    const JobId probe = ideal.addJob(spec, 0);
    // The filters alone, host by host: the cards a placement could use are those they keep.
    CycleContext ctx;
    HostOptions options;
    DecideOptions o;
    o.trace = false;
    m_framework.prepare(ctx, ideal, ideal.job(probe), 0, o);
    QList<CardId> cards;
    if (ctx.unitsNeeded < 1)
        return cards;
    for (const HostState &h : ideal.hosts()) {
        // Empty and in the same mode, the healthy cards of one model on a host get the same
        // verdict: for a single card, one of each model is asked (creatable starts are dear to
        // work out on an empty MIG card). A gang's verdict depends on how many, so all are.
        CardMask mask = allCards(h) & ~h.failedCards;
        if (ctx.unitsNeeded == 1) {
            CardMask one = 0;
            quint64 seen = 0; // models
            for (int i = 0; i < h.cardCount; ++i) {
                const int model = ideal.cards()[h.firstCard + i].model;
                if ((mask >> i & 1) && (model >= 64 || !(seen >> model & 1))) {
                    one |= CardMask(1) << i;
                    if (model < 64)
                        seen |= quint64(1) << model;
                }
            }
            mask = one;
        }
        if (mask == 0 || !m_framework.filterHost(ctx, h, &mask, options).isSuccess())
            continue;
        for (int i = 0; i < h.cardCount; ++i) {
            const CardState &c = ideal.cards()[h.firstCard + i];
            bool kept = mask >> i & 1;
            for (int k = 0; !kept && ctx.unitsNeeded == 1 && k < h.cardCount; ++k)
                kept = (mask >> k & 1) && ideal.cards()[h.firstCard + k].model == c.model;
            if (kept && c.health != CardHealth::Failed)
                cards.append(c.id);
        }
    }
    return cards;
}

CardFit Scheduler::fitOn(const WorkloadSpec &spec,
                         CardId card,
                         qint64 nowMs,
                         const QList<JobId> &leaving,
                         const FitOptions &options) const
{
    Trial trial(*this, nowMs);
    return trial.fitOn(spec, card, leaving, options);
}

std::optional<LayoutFit> Scheduler::layoutToFit(const WorkloadSpec &spec,
                                                CardId preferred,
                                                qint64 nowMs) const
{
    if (spec.demand.cards != 1)
        return std::nullopt;
    ClusterState probeState = m_state; // shallow: the lists are implicitly shared
    const JobId probe = probeState.addJob(spec, nowMs);
    const Job &job = probeState.job(probe);
    DecideOptions o;
    o.classBudgetLeft = budgetLeft(spec.kind);
    o.trace = false;
    CycleContext ctx;
    m_framework.prepare(ctx, probeState, job, nowMs, o);
    o.allowCreatePartitions = false; // the target's instances exist when the job is placed

    // The layout that frees an instance `job` takes on card `c` with the least change, trying
    // its acceptable profiles best first; checked by the scheduler's own decision.
    auto fitOnCard = [&](const CardState &c) -> std::optional<LayoutFit> {
        if (c.mode != PartitionMode::Mig || c.health == CardHealth::Failed || c.cordoned
            || !probeState.host(c.host).up || !ctx.models[c.model].allowed)
            return std::nullopt;
        const CardModel &model = probeState.model(c);
        QList<PlannerInstance> current;
        for (const Unit &u : c.units)
            current.append(
                    {u.uid, u.profile, u.start, u.job.isValid() || u.state != UnitState::Ready});
        for (const int profile : ctx.models[c.model].profileOrder) {
            const RepartitionPlan plan = planRepartition(model, current, {profile});
            if (!plan.changed || plan.satisfied < 1 || !plan.destroyedBusy.isEmpty())
                continue;
            ClusterState trial = probeState;
            Statement st(trial);
            LayoutFit fit;
            fit.card = c.id;
            fit.target = plan.target;
            for (const RepartitionStep &s : plan.steps) {
                if (s.kind == RepartitionStep::Kind::Destroy) {
                    st.destroyPartition(c.id, s.uid);
                    ++fit.destroys;
                } else {
                    st.createPartition(c.id, s.profile, s.start);
                    ++fit.creates;
                }
            }
            o.onlyCard = c.id;
            const Decision d = m_framework.decide(trial, trial.job(probe), nowMs, o);
            if (d.status.isSuccess() && d.placement) {
                for (const UnitChoice &u : d.placement->units) {
                    if (u.card == c.id)
                        return fit;
                }
            }
        }
        return std::nullopt;
    };

    if (preferred.isValid() && preferred.value() < probeState.cards().size()) {
        if (std::optional<LayoutFit> fit = fitOnCard(probeState.card(preferred)))
            return fit;
    }
    std::optional<LayoutFit> best;
    for (const CardState &c : probeState.cards()) {
        if (c.id == preferred)
            continue;
        std::optional<LayoutFit> fit = fitOnCard(c);
        if (fit && (!best || fit->destroys + fit->creates < best->destroys + best->creates))
            best = std::move(fit);
    }
    return best;
}

} // namespace Zhaoxi::Sched
