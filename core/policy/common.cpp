// SPDX-License-Identifier: GPL-3.0-or-later
#include "common.h"

#include "queueing.h"

#include "core/catalogue/layoutrules.h"
#include "core/sched/migfit.h"

#include <QSet>

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

namespace {
bool cardServes(const Sched::ClusterState &st,
                const Sched::CardState &c,
                const Domain::WorkloadSpec &spec)
{
    const Domain::CardModel &m = st.model(c);
    if (!spec.affinity.cardModels.isEmpty()) {
        bool ok = false;
        for (const QString &n : spec.affinity.cardModels)
            ok |= m.matchesName(n);
        if (!ok)
            return false;
    }
    switch (spec.demand.compute.kind) {
    case ComputeDemand::Kind::MigProfile:
        return m.profileIndex(spec.demand.compute.profile) >= 0;
    case ComputeDemand::Kind::MigSlices:
        return m.supportsMig();
    case ComputeDemand::Kind::Fraction:
        return !m.softModes.isEmpty() || m.supportsMig();
    case ComputeDemand::Kind::WholeCard:
        return true;
    }
    return true;
}
} // namespace

qint64 freeTraining(PolicyContext &ctx,
                    qint64 nowMs,
                    qint64 milli,
                    bool drain,
                    qint64 deadlineMs,
                    ActionReason why,
                    int forService)
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
    QList<TrainingView> views = ctx.training(nowMs);
    qint64 freed = 0;
    QList<TrainingView> candidates;
    for (const TrainingView &v : views) {
        const Sched::Job &j = st.job(v.job);
        if (serviceSpec) {
            bool fits = false;
            for (const Sched::Assignment &a : j.assignments)
                fits |= cardServes(st, st.card(a.card), *serviceSpec);
            if (!fits)
                continue;
        }
        if (v.state == Sched::JobState::Preempting)
            freed += v.milli;
        else if (v.state == Sched::JobState::Running)
            candidates.append(v);
    }
    std::sort(candidates.begin(),
              candidates.end(),
              [&](const TrainingView &a, const TrainingView &b) {
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

// The MIG profile a replica of this demand takes on this model (-1: none).
int replicaProfile(const Domain::CardModel &m, const Domain::ComputeDemand &d)
{
    if (d.kind == ComputeDemand::Kind::MigProfile)
        return m.profileIndex(d.profile);
    int best = -1;
    for (int p = 0; p < m.migProfiles.size(); ++p) {
        const int slices = m.migProfiles[p].computeSlices;
        const bool ok = d.kind == ComputeDemand::Kind::MigSlices ? slices >= d.slices
                        : d.kind == ComputeDemand::Kind::Fraction
                                ? slices * 1000 >= d.milli * m.migComputeSlices
                                : slices == m.migComputeSlices;
        if (ok && !m.migProfiles[p].mediaExtensions
            && (best < 0 || slices < m.migProfiles[best].computeSlices))
            best = p;
    }
    return best;
}

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
    const Sched::ClusterState &st = ctx.scheduler().state();
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
    const Domain::ComputeDemand &d = spec->demand.compute;
    QHash<int, QList<Domain::MigPlacement>> added; // by card: replicas already planned there
    QHash<int, int> addedMilli;
    QSet<int> leaving; // jobs planned to leave in this call
    QHash<int, TrainingView> views;
    for (const TrainingView &v : ctx.training(nowMs))
        views.insert(v.job.value(), v);
    // Training already leaving makes room for free when it leaves in time: by the deadline when
    // draining, at once otherwise (one the scheduler set to leave at a far checkpoint for a
    // waiting replica is a victim like any other: asked at once, it goes at once).
    const qint64 leaveBy = drain ? deadlineMs : nowMs;
    auto goesBy = [&](JobId j) {
        const Sched::Job &job = st.job(j);
        return leaving.contains(j.value())
               || (job.state == Sched::JobState::Preempting && job.evictAtMs <= leaveBy);
    };
    int placed = 0;
    for (int k = 0; k < replicas; ++k) {
        struct Option
        {
            Sched::CardId card;
            QList<JobId> victims;
            double cost = 0;
            int profile = -1;
            int start = -1;
        };
        std::optional<Option> best;
        for (const Sched::CardState &c : st.cards()) {
            if (c.health == Sched::CardHealth::Failed || !st.host(c.host).up
                || !cardServes(st, c, *spec))
                continue;
            const Domain::CardModel &m = st.model(c);
            // Which jobs hold the card: those staying whatever happens, and training that could go.
            QList<JobId> trainingHere;
            bool otherWork = false;
            for (const Sched::Unit &u : c.units) {
                if (!u.job.isValid())
                    continue;
                const Sched::Job &j = st.job(u.job);
                if (isTraining(j)
                    && (j.state == Sched::JobState::Running
                        || j.state == Sched::JobState::Preempting)) {
                    if (!trainingHere.contains(u.job))
                        trainingHere.append(u.job);
                } else {
                    otherWork = true;
                }
            }
            // Try first with only the training already leaving in time gone; then with the
            // cheapest set of the rest gone that makes it fit (by the cost below, every set
            // tried: a card holds a handful of training jobs), not all of it.
            QList<JobId> could;
            for (JobId j : trainingHere) {
                if (!goesBy(j))
                    could.append(j);
            }
            auto tryVictims = [&](const QList<JobId> &victims) -> std::optional<Option> {
                auto stays = [&](const Sched::Unit &u) {
                    if (!u.job.isValid())
                        return false;
                    const Sched::Job &j = st.job(u.job);
                    if (!isTraining(j) || goesBy(u.job))
                        return !isTraining(j);
                    return !victims.contains(u.job);
                };
                Option opt;
                opt.card = c.id;
                bool fits = false;
                if (c.mode == Domain::PartitionMode::Mig) {
                    const int p = replicaProfile(m, d);
                    if (p < 0)
                        return std::nullopt;
                    QList<Domain::MigPlacement> layout = added.value(c.id.value());
                    for (const Sched::Unit &u : c.units) {
                        if (stays(u))
                            layout.append({u.profile, u.start});
                    }
                    // Where the scheduler will create it.
                    const int start = Sched::MigFit::plannedStart(m, layout, p);
                    fits = start >= 0;
                    opt.profile = p;
                    opt.start = start;
                } else if (c.mode == Domain::PartitionMode::Whole) {
                    bool busy = false;
                    for (const Sched::Unit &u : c.units)
                        busy |= stays(u);
                    fits = !busy && !added.contains(c.id.value())
                           && (d.kind == ComputeDemand::Kind::WholeCard || !otherWork);
                } else {
                    int used = addedMilli.value(c.id.value());
                    for (const Sched::Unit &u : c.units) {
                        if (stays(u))
                            used += u.milli;
                    }
                    const int need = d.kind == ComputeDemand::Kind::Fraction ? d.milli : 1000;
                    fits = used + need <= 1000;
                }
                if (!fits)
                    return std::nullopt;
                opt.victims = victims;
                for (JobId v : victims) {
                    const TrainingView tv = views.value(v.value());
                    const double lost = tv.nextCheckpointMs > nowMs
                                                ? double(st.job(v).spec.checkpointIntervalMs
                                                         - (tv.nextCheckpointMs - nowMs))
                                                : 0;
                    opt.cost += double(tv.milli) * 1e6 + std::max(0.0, lost)
                                + (st.job(v).spec.priority + 1000) * 1e3;
                }
                return opt;
            };
            std::optional<Option> here = tryVictims({});
            if (!here && !could.isEmpty()) {
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
        if (best->profile >= 0)
            added[best->card.value()].append({best->profile, best->start});
        addedMilli[best->card.value()] += d.kind == ComputeDemand::Kind::Fraction ? d.milli : 1000;
        for (JobId v : best->victims) {
            leaving.insert(v.value());
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
        for (const Sched::CardState &c : st.cards()) {
            if (c.health == Sched::CardHealth::Failed || !st.host(c.host).up
                || !cardServes(st, c, waiting.spec) || c.mode != Domain::PartitionMode::Mig)
                continue;
            Candidate cand;
            cand.card = c.id;
            bool blocked = false;
            bool leaving = true;
            for (const Sched::Unit &u : c.units) {
                if (!u.job.isValid())
                    continue;
                const Sched::Job &j = st.job(u.job);
                if (!isTraining(j) || j.spec.priority >= waiting.spec.priority
                    || j.spec.demand.compute.kind == ComputeDemand::Kind::WholeCard) {
                    blocked = true;
                    break;
                }
                leaving &= j.state == Sched::JobState::Preempting;
                if (!cand.jobs.contains(u.job)) {
                    cand.jobs.append(u.job);
                    cand.milli += st.unitMilli(c, u);
                }
            }
            if (blocked)
                continue;
            if (cand.jobs.isEmpty() || leaving)
                ++free;
            else
                candidates.append(cand);
        }
        if (free >= need)
            return 0; // it will be placed (or waits for its budget), nothing to move
        if (free + candidates.size() < need)
            continue;
        std::sort(candidates.begin(), candidates.end(), [](const Candidate &a, const Candidate &b) {
            return a.milli != b.milli ? a.milli < b.milli : a.card < b.card;
        });
        candidates = candidates.mid(0, need - free);
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
        int profile = -1;
    };
    struct CardPlan
    {
        Sched::CardId card;
        QList<Move> moves;
        bool movable = true;
    };
    QList<CardPlan> donors;
    QList<int> receivers; // cards serving inference
    for (const Sched::CardState &c : st.cards()) {
        if (c.health == Sched::CardHealth::Failed || !st.host(c.host).up
            || c.mode != Domain::PartitionMode::Mig || !cardServes(st, c, waiting->spec))
            continue;
        CardPlan plan;
        plan.card = c.id;
        for (const Sched::Unit &u : c.units) {
            if (!u.job.isValid())
                continue;
            const Sched::Job &j = st.job(u.job);
            if (j.spec.inference) {
                if (serviceOf.contains(j.spec.inference->service))
                    plan.moves.append(
                            Move{serviceOf.value(j.spec.inference->service), u.job, u.profile});
                else
                    plan.movable = false;
            } else if (!isTraining(j) || j.spec.priority >= waiting->spec.priority
                       || j.spec.demand.compute.kind == ComputeDemand::Kind::WholeCard) {
                plan.movable = false;
            }
        }
        if (plan.moves.isEmpty())
            continue;
        receivers.append(c.id.value());
        if (plan.movable)
            donors.append(plan);
    }
    std::sort(donors.begin(), donors.end(), [](const CardPlan &a, const CardPlan &b) {
        return a.moves.size() != b.moves.size() ? a.moves.size() < b.moves.size() : a.card < b.card;
    });
    for (const CardPlan &donor : std::as_const(donors)) {
        // Room for each of its replicas on the other inference cards, as they are laid out
        // (idle instances of the profile, or slots free for a new one), fullest card first.
        QHash<int, QList<Domain::MigPlacement>> layouts;
        QHash<int, QList<int>> idle; // by card: idle instances' profiles still unclaimed
        for (int r : std::as_const(receivers)) {
            if (r == donor.card.value())
                continue;
            const Sched::CardState &c = st.cards()[r];
            for (const Sched::Unit &u : c.units) {
                layouts[r].append({u.profile, u.start});
                if (!u.job.isValid() && u.state == Sched::UnitState::Ready)
                    idle[r].append(u.profile);
            }
        }
        QList<QPair<Move, int>> plan;
        for (const Move &m : donor.moves) {
            int best = -1;
            int bestFree = INT_MAX;
            for (auto it = layouts.cbegin(); it != layouts.cend(); ++it) {
                const Sched::CardState &c = st.cards()[it.key()];
                const Domain::CardModel &model = st.model(c);
                int used = 0;
                for (const Domain::MigPlacement &l : it.value())
                    used += model.migProfiles[l.profile].computeSlices;
                const bool fits = idle.value(it.key()).contains(m.profile)
                                  || Catalogue::firstFreeStart(model, it.value(), m.profile) >= 0;
                const int free = model.migComputeSlices - used;
                if (fits && (free < bestFree || (free == bestFree && it.key() < best))) {
                    best = it.key();
                    bestFree = free;
                }
            }
            if (best < 0)
                break;
            if (idle[best].contains(m.profile)) {
                idle[best].removeOne(m.profile); // already in the layout
            } else {
                const Domain::CardModel &model = st.model(st.cards()[best]);
                layouts[best].append(
                        {m.profile, Sched::MigFit::plannedStart(model, layouts[best], m.profile)});
            }
            plan.append({m, best});
        }
        if (plan.size() != donor.moves.size())
            continue;
        int moved = 0;
        for (const auto &p : std::as_const(plan)) {
            moved += ctx.moveReplica(p.first.service,
                                     p.first.job,
                                     Sched::CardId(p.second),
                                     nowMs,
                                     ActionReason::Consolidate);
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
