// SPDX-License-Identifier: GPL-3.0-or-later
#include "common.h"

#include "queueing.h"

#include "core/sched/trial.h"

#include <optional>

#include <algorithm>

namespace Zhaoxi::Policy {

using Domain::ComputeDemand;

void CommonParams::read(ParamReader &r)
{
    periodMs = r.duration(QStringLiteral("period"), periodMs, 1000, 3600'000);
    targetUtilisation = r.number(QStringLiteral("targetUtilisation"), targetUtilisation, 0.05, 1);
    sloSafety = r.number(QStringLiteral("sloSafety"), sloSafety, 0.05, 1);
    sloSafetyAtRest = r.number(QStringLiteral("sloSafetyAtRest"), sloSafetyAtRest, -1, 1);
    trainingBandwidthShare
            = r.number(QStringLiteral("trainingBandwidthShare"), trainingBandwidthShare, 0, 1);
    trainingPowerCapW = r.number(QStringLiteral("trainingPowerCapW"), trainingPowerCapW, -1, 1e7);
}

int replicasForRate(const ServiceView &s,
                    double rateRps,
                    const CommonParams &p,
                    double modelError,
                    double peakRps)
{
    double safety = p.sloSafety;
    if (peakRps > 0 && p.sloSafetyAtRest >= 0) {
        const double shortfall = 1 - std::clamp(rateRps / peakRps, 0.0, 1.0);
        safety += (p.sloSafetyAtRest - p.sloSafety) * shortfall * shortfall;
    }
    // Sized for the service time the replicas take now when that is slower than nominal (soft
    // slicing and interference on shared cards, throttled clocks).
    const int n = replicasFor(rateRps / 1000.0,
                              std::max(s.serviceMs, s.currentServiceMs),
                              s.cv,
                              safety * s.sloMs / std::max(1.0, modelError),
                              0.99,
                              p.targetUtilisation,
                              s.maxReplicas);
    return std::clamp(n, s.minReplicas, s.maxReplicas);
}

qint64 freeTraining(PolicyContext &ctx,
                    qint64 nowMs,
                    qint64 milli,
                    bool drain,
                    qint64 deadlineMs,
                    ActionReason why,
                    int forService,
                    std::optional<Domain::WorkloadKind> kind)
{
    if (milli <= 0)
        return 0;
    const Sched::ClusterState &st = ctx.scheduler().state();
    const Domain::WorkloadSpec *serviceSpec = nullptr;
    if (forService >= 0) {
        // Any replica job of the service carries its spec.
        const QString name = ctx.services(nowMs).value(forService).name;
        for (const Sched::Job &j : st.jobs()) {
            if (j.spec.inference && j.spec.inference->service == name) {
                serviceSpec = &j.spec;
                break;
            }
        }
    }
    // The cards the scheduler could ever put one of its replicas on.
    const QList<Sched::CardId> serving = serviceSpec
                                                 ? ctx.scheduler().cardsThatCouldServe(*serviceSpec)
                                                 : QList<Sched::CardId>();
    QList<TrainingView> views = ctx.training(nowMs);
    qint64 freed = 0;
    QList<TrainingView> candidates;
    for (const TrainingView &v : views) {
        const Sched::Job &j = st.job(v.job);
        if (kind && j.spec.kind != *kind)
            continue;
        if (serviceSpec) {
            bool fits = false;
            for (const Sched::Assignment &a : j.assignments)
                fits |= serving.contains(a.card);
            if (!fits)
                continue;
        }
        if (v.state == Sched::JobState::Preempting)
            freed += v.milli;
        else if (v.state == Sched::JobState::Running && j.overBudget && !serviceSpec)
            milli -= v.milli; // an operator placed it over the budget: its share is excused
        else if (v.state == Sched::JobState::Running)
            candidates.append(v);
    }
    // For a service, training an operator placed over the budget goes last.
    std::sort(candidates.begin(),
              candidates.end(),
              [&](const TrainingView &a, const TrainingView &b) {
                  const bool oa = st.job(a.job).overBudget, ob = st.job(b.job).overBudget;
                  if (oa != ob)
                      return ob;
                  if (a.priority != b.priority)
                      return a.priority < b.priority;
                  // Drain: the one whose checkpoint comes first; at once: the one that loses least (its
                  // checkpoint was the most recent, so its next one is the furthest).
                  const qint64 ka = a.nextCheckpointMs < 0 ? (drain ? LLONG_MAX : LLONG_MIN)
                                                           : a.nextCheckpointMs;
                  const qint64 kb = b.nextCheckpointMs < 0 ? (drain ? LLONG_MAX : LLONG_MIN)
                                                           : b.nextCheckpointMs;
                  if (ka != kb)
                      return drain ? ka < kb : ka > kb;
                  return a.job < b.job;
              });
    for (const TrainingView &v : candidates) {
        if (freed >= milli)
            break;
        if (drain && v.finishEtaMs >= 0 && v.finishEtaMs <= deadlineMs) {
            freed += v.milli; // it ends by itself in time
            continue;
        }
        const bool atCheckpoint = drain && v.checkpoints && v.nextCheckpointMs >= 0
                                  && v.nextCheckpointMs <= deadlineMs;
        ctx.requeueTraining(v.job, nowMs, atCheckpoint, why);
        freed += v.milli;
    }
    return freed;
}

namespace {

bool isTraining(const Sched::Job &j)
{
    return j.spec.kind != Domain::WorkloadKind::Inference;
}

} // namespace

int makeRoomForService(PolicyContext &ctx,
                       qint64 nowMs,
                       int service,
                       int replicas,
                       bool drain,
                       qint64 deadlineMs,
                       ActionReason why)
{
    if (replicas <= 0)
        return 0;
    const Sched::Scheduler &sched = ctx.scheduler();
    const Sched::ClusterState &st = sched.state();
    const Domain::WorkloadSpec *spec = nullptr;
    const QString name = ctx.services(nowMs).value(service).name;
    for (const Sched::Job &j : st.jobs()) {
        if (j.spec.inference && j.spec.inference->service == name) {
            spec = &j.spec;
            break;
        }
    }
    if (!spec)
        return 0;
    QHash<int, TrainingView> views;
    for (const TrainingView &v : ctx.training(nowMs))
        views.insert(v.job.value(), v);
    // Whether a replica fits once some training has left is the scheduler's answer, on a trial
    // copy of its state that follows this call's plan: each replica planned takes its unit there
    // and its victims leave there. Training already leaving makes room for free when it leaves
    // in time: by the deadline when draining, at once otherwise (one the scheduler set to leave
    // at a far checkpoint for a waiting replica is a victim like any other: asked at once, it
    // goes at once).
    Sched::Trial trial(sched, nowMs);
    const qint64 leaveBy = drain ? deadlineMs : nowMs;
    for (const Sched::Job &j : st.jobs()) {
        if (isTraining(j) && j.state == Sched::JobState::Preempting && j.evictAtMs <= leaveBy)
            trial.leave(j.id);
    }
    const QList<Sched::CardId> serving = sched.cardsThatCouldServe(*spec);
    int placed = 0;
    for (int k = 0; k < replicas; ++k) {
        struct Option
        {
            Sched::CardFit fit;
            QList<JobId> victims;
            double cost = 0;
        };
        std::optional<Option> best;
        for (Sched::CardId card : serving) {
            const Sched::ClusterState &ts = trial.state();
            // The training that could go from the card (what already leaves in time is gone).
            QList<JobId> could;
            for (const Sched::Unit &u : ts.card(card).units) {
                if (u.job.isValid() && isTraining(ts.job(u.job)) && ts.job(u.job).isActive()
                    && !could.contains(u.job))
                    could.append(u.job);
            }
            bool hopeless = false;
            auto tryVictims = [&](const QList<JobId> &victims) -> std::optional<Option> {
                Option opt;
                opt.fit = trial.fitOn(*spec, card, victims);
                if (!opt.fit.isSuccess()) {
                    hopeless |= opt.fit.status.code != Sched::Status::Code::Unschedulable;
                    return std::nullopt;
                }
                opt.victims = victims;
                for (JobId v : victims) {
                    const TrainingView tv = views.value(v.value());
                    const double lost = tv.nextCheckpointMs > nowMs
                                                ? double(st.job(v).spec.checkpointIntervalMs
                                                         - (tv.nextCheckpointMs - nowMs))
                                                : 0;
                    // Training an operator placed over the budget goes last.
                    opt.cost += double(tv.milli) * 1e6 + std::max(0.0, lost)
                                + (st.job(v).spec.priority + 1000) * 1e3
                                + (st.job(v).overBudget ? 1e12 : 0);
                }
                return opt;
            };
            // Try first with only the training already leaving in time gone; then with the
            // cheapest set of the rest gone that makes it fit (by the cost above, every set
            // tried: a card holds a handful of training jobs), not all of it. Nothing to try
            // where no eviction could help.
            std::optional<Option> here = tryVictims({});
            if (!here && !hopeless && !could.isEmpty()) {
                // Beyond a handful, all of them (the sets would be too many to try).
                const int n = int(could.size());
                const quint32 all = n <= 8 ? (1u << n) - 1 : 0;
                for (quint32 mask = all ? 1 : 0; mask <= all; ++mask) {
                    QList<JobId> victims;
                    for (int i = 0; i < n; ++i) {
                        if (!all || (mask >> i & 1))
                            victims.append(could[i]);
                    }
                    std::optional<Option> o = tryVictims(victims);
                    if (o && (!here || o->cost < here->cost))
                        here = o;
                    if (!all)
                        break;
                }
            }
            if (here && (!best || here->cost < best->cost))
                best = here;
            if (best && best->cost == 0)
                break;
        }
        if (!best)
            break;
        ++placed;
        for (JobId v : best->victims)
            trial.leave(v);
        trial.take(*spec, best->fit);
        for (JobId v : best->victims) {
            const TrainingView tv = views.value(v.value());
            if (drain && tv.finishEtaMs >= 0 && tv.finishEtaMs <= deadlineMs)
                continue; // it ends by itself in time
            const bool atCheckpoint = drain && tv.checkpoints && tv.nextCheckpointMs >= 0
                                      && tv.nextCheckpointMs <= deadlineMs;
            ctx.requeueTraining(v, nowMs, atCheckpoint, why);
        }
    }
    return placed;
}

void makeRoomForReplicas(PolicyContext &ctx,
                         qint64 nowMs,
                         qint64 inferenceBudgetMilli,
                         bool immediate,
                         qint64 deadlineMs,
                         ActionReason why)
{
    const QList<ServiceView> views = ctx.services(nowMs);
    qint64 room = inferenceBudgetMilli < 0
                          ? LLONG_MAX
                          : inferenceBudgetMilli - ctx.scheduler().state().classUsage().inference;
    for (const ServiceView &s : views) {
        if (s.pending <= 0 || room <= 0)
            continue;
        const int n = int(std::min<qint64>(s.pending, room / std::max<qint64>(1, s.unitMilli)));
        makeRoomForService(ctx, nowMs, s.index, n, !immediate, deadlineMs, why);
        room -= inferenceMilli(s, n);
    }
}

int consolidateTraining(PolicyContext &ctx,
                        qint64 nowMs,
                        qint64 deadlineMs,
                        ConsolidationMemo *memo)
{
    const Sched::ClusterState &st = ctx.scheduler().state();
    const Sched::ClassBudget &budget = ctx.scheduler().classBudget();
    const qint64 budgetLeft = budget.trainingMilli < 0
                                      ? LLONG_MAX
                                      : budget.trainingMilli - st.classUsage().training;
    struct Candidate
    {
        Sched::CardId card;
        QList<JobId> jobs;
        qint64 milli = 0;
    };
    if (memo) {
        // Forget the jobs that no longer wait.
        for (auto it = memo->askedFor.begin(); it != memo->askedFor.end();) {
            if (st.job(JobId(it.key())).state != Sched::JobState::Pending)
                it = memo->askedFor.erase(it);
            else
                ++it;
        }
    }
    Sched::Trial trial(ctx.scheduler(), nowMs); // queries only: it stays as the state is
    // The first waiting whole-card training job, in queue order, that this can help.
    for (JobId id : ctx.scheduler().queue()) {
        const Sched::Job &waiting = st.job(id);
        if (!isTraining(waiting) || waiting.spec.demand.cards < 1
            || waiting.spec.demand.compute.kind != ComputeDemand::Kind::WholeCard)
            continue;
        // Cards freed for it earlier and taken by something else: it waits for another reason
        // (host resources, a reservation); try again later rather than moving the same jobs
        // over and over.
        if (memo && memo->askedFor.contains(id.value())
            && nowMs < memo->askedFor.value(id.value()) + memo->retryMs)
            continue;
        const int need = waiting.spec.demand.cards;
        int free = 0;
        QList<Candidate> candidates;
        // Whether the waiting job could have a card is the scheduler's answer on the trial:
        // once what already leaves has left (free), or once the small jobs on it left too (a
        // candidate); a card that could never serve it (its model, its memory) is neither.
        // Which jobs may be moved for it is this policy's rule.
        for (const Sched::CardState &c : st.cards()) {
            if (c.mode != Domain::PartitionMode::Mig)
                continue;
            const Sched::CardId card = c.id;
            Candidate cand;
            cand.card = c.id;
            bool blocked = false;
            QList<JobId> leaving; // already on their way out
            for (const Sched::Unit &u : c.units) {
                if (!u.job.isValid())
                    continue;
                const Sched::Job &j = st.job(u.job);
                if (!isTraining(j) || j.spec.priority >= waiting.spec.priority || j.overBudget
                    || j.demand().compute.kind == ComputeDemand::Kind::WholeCard) {
                    blocked = true;
                    break;
                }
                if (!cand.jobs.contains(u.job)) {
                    cand.jobs.append(u.job);
                    cand.milli += st.unitMilli(c, u);
                    if (j.state == Sched::JobState::Preempting)
                        leaving.append(u.job);
                }
            }
            if (blocked)
                continue;
            if (trial.fitOn(waiting.spec, card, leaving).isSuccess())
                ++free;
            else if (leaving.size() < cand.jobs.size())
                candidates.append(cand); // if the card would do once they left (below)
        }
        if (free >= need)
            return 0; // it will be placed (or waits for its budget), nothing to move
        if (free + candidates.size() < need)
            continue;
        std::sort(candidates.begin(), candidates.end(), [](const Candidate &a, const Candidate &b) {
            return a.milli != b.milli ? a.milli < b.milli : a.card < b.card;
        });
        // The cheapest cards that would do once their jobs left, as many as are needed.
        QList<Candidate> chosen;
        for (const Candidate &c : std::as_const(candidates)) {
            if (chosen.size() + free >= need)
                break;
            if (trial.fitOn(waiting.spec, c.card, c.jobs).isSuccess())
                chosen.append(c);
        }
        if (free + chosen.size() < need)
            continue;
        candidates = chosen;
        qint64 freed = 0;
        for (const Candidate &c : candidates)
            freed += c.milli;
        if (budgetLeft + freed < qint64(need) * 1000)
            continue;
        QHash<int, TrainingView> views;
        for (const TrainingView &v : ctx.training(nowMs))
            views.insert(v.job.value(), v);
        // The cards must be empty at the same moment: a job that left alone goes back to its
        // own partition before the waiting job can have the card. So a lone job on the one card
        // needed may leave at its checkpoint; otherwise all leave at once (they are small).
        const bool together = need > 1 || candidates.first().jobs.size() > 1;
        int asked = 0;
        for (const Candidate &c : candidates) {
            for (JobId j : c.jobs) {
                const TrainingView v = views.value(j.value());
                const bool atCheckpoint = !together && v.checkpoints && v.nextCheckpointMs >= 0
                                          && v.nextCheckpointMs <= deadlineMs;
                ctx.requeueTraining(j, nowMs, atCheckpoint, ActionReason::Consolidate);
                ++asked;
            }
        }
        if (memo)
            memo->askedFor.insert(id.value(), nowMs);
        return asked;
    }
    return 0;
}

int defragmentInference(PolicyContext &ctx, qint64 nowMs, DefragMemo *memo)
{
    if (memo->lastMs >= 0 && nowMs < memo->lastMs + memo->settleMs)
        return 0;
    const QList<ServiceView> views = ctx.services(nowMs);
    QHash<QString, int> serviceOf;
    for (const ServiceView &v : views) {
        if (v.pending > 0)
            return 0; // room is being made: not now
        if (v.leaving == 0 && v.serving == v.target)
            serviceOf.insert(v.name, v.index); // steady: its replicas may move
    }
    const Sched::ClusterState &st = ctx.scheduler().state();
    // The waiting whole-card training job it would be for, and room for it in its budget.
    const Sched::Job *waiting = nullptr;
    for (JobId id : ctx.scheduler().queue()) {
        const Sched::Job &j = st.job(id);
        if (isTraining(j) && j.spec.demand.cards >= 1
            && j.spec.demand.compute.kind == ComputeDemand::Kind::WholeCard) {
            waiting = &j;
            break;
        }
    }
    if (!waiting)
        return 0;
    const qint64 budget = ctx.scheduler().classBudget().trainingMilli;
    if (budget >= 0 && budget - st.classUsage().training < 1000)
        return 0;

    struct Move
    {
        int service = -1;
        JobId job;
    };
    struct CardPlan
    {
        Sched::CardId card;
        QList<Move> moves;
        bool movable = true;
    };
    QList<CardPlan> donors;
    QList<Sched::CardId> receivers; // cards serving inference
    for (Sched::CardId card : ctx.scheduler().cardsThatCouldServe(waiting->spec)) {
        const Sched::CardState &c = st.card(card);
        if (!st.host(c.host).up || c.mode != Domain::PartitionMode::Mig)
            continue;
        CardPlan plan;
        plan.card = c.id;
        for (const Sched::Unit &u : c.units) {
            if (!u.job.isValid())
                continue;
            const Sched::Job &j = st.job(u.job);
            if (j.spec.inference) {
                if (serviceOf.contains(j.spec.inference->service))
                    plan.moves.append(Move{serviceOf.value(j.spec.inference->service), u.job});
                else
                    plan.movable = false;
            } else if (!isTraining(j) || j.spec.priority >= waiting->spec.priority
                       || j.demand().compute.kind == ComputeDemand::Kind::WholeCard) {
                plan.movable = false;
            }
        }
        if (plan.moves.isEmpty())
            continue;
        receivers.append(c.id);
        if (plan.movable)
            donors.append(plan);
    }
    std::sort(donors.begin(), donors.end(), [](const CardPlan &a, const CardPlan &b) {
        return a.moves.size() != b.moves.size() ? a.moves.size() < b.moves.size() : a.card < b.card;
    });
    for (const CardPlan &donor : std::as_const(donors)) {
        // Room for each of its replicas on the other inference cards as they are laid out
        // (moveReplica places the new replica there now, beside the old one): the scheduler's
        // answer on a trial where the replicas planned before it already took theirs. Of the
        // cards with room, the fullest first.
        Sched::Trial trial(ctx.scheduler(), nowMs);
        Sched::FitOptions asLaidOut;
        asLaidOut.reconfigure = false;
        asLaidOut.classBudget = true;
        QList<QPair<Move, Sched::CardId>> plan;
        for (const Move &m : donor.moves) {
            const Domain::WorkloadSpec &spec = st.job(m.job).spec;
            std::optional<Sched::CardFit> best;
            int bestFree = INT_MAX;
            for (Sched::CardId r : std::as_const(receivers)) {
                if (r == donor.card)
                    continue;
                const Sched::CardFit fit = trial.fitOn(spec, r, {}, asLaidOut);
                if (!fit.isSuccess())
                    continue;
                const Sched::CardState &c = trial.state().card(r);
                const Domain::CardModel &model = trial.state().model(c);
                int free = model.migComputeSlices;
                for (const Sched::Unit &u : c.units)
                    free -= model.migProfiles[u.profile].computeSlices;
                if (!best || free < bestFree) {
                    best = fit;
                    bestFree = free;
                }
            }
            if (!best || !trial.take(spec, *best).isValid())
                break;
            plan.append({m, best->card});
        }
        if (plan.size() != donor.moves.size())
            continue;
        int moved = 0;
        for (const auto &p : std::as_const(plan)) {
            moved += ctx.moveReplica(
                    p.first.service, p.first.job, p.second, nowMs, ActionReason::Consolidate);
        }
        memo->lastMs = nowMs;
        return moved;
    }
    return 0;
}

void QosKnobs::apply(PolicyContext &ctx, qint64 nowMs, double bandwidthShare, double powerCapW)
{
    if (bandwidthShare != m_share) {
        m_share = bandwidthShare;
        ctx.setTrainingBandwidthShare(bandwidthShare, nowMs);
    }
    if (powerCapW != m_cap) {
        m_cap = powerCapW;
        ctx.setTrainingPowerCapW(powerCapW, nowMs);
    }
}

} // namespace Zhaoxi::Policy
