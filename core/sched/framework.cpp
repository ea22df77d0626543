// SPDX-License-Identifier: GPL-3.0-or-later
#include "framework.h"

#include "core/domain/demand.h"

#include "plugins/cardhealthfilter.h"
#include "plugins/cardmodelfilter.h"
#include "plugins/gangfilter.h"
#include "plugins/hostfilter.h"
#include "plugins/hostresourcesfilter.h"
#include "plugins/isolationfilter.h"
#include "plugins/unitfitfilter.h"

#include <algorithm>
#include <bit>

namespace Zhaoxi::Sched {

using Domain::ComputeDemand;
using Domain::demandMilliOn;
using Domain::IsolationRequirement;

std::vector<std::shared_ptr<const FilterPlugin>> standardFilters()
{
    // Host checks first (cheap, reject whole hosts), then cards from cheap to dear, gang last.
    return {std::make_shared<HostFilter>(),
            std::make_shared<HostResourcesFilter>(),
            std::make_shared<CardHealthFilter>(),
            std::make_shared<CardModelFilter>(),
            std::make_shared<IsolationFilter>(),
            std::make_shared<UnitFitFilter>(),
            std::make_shared<GangFilter>()};
}

Framework::Framework(Profile profile)
    : m_profile(std::move(profile))
{
    for (const auto &f : m_profile.filters) {
        if (!f->cardScoped())
            m_ordered.push_back(f);
    }
    m_firstCardFilter = m_ordered.size();
    for (const auto &f : m_profile.filters) {
        if (f->cardScoped())
            m_ordered.push_back(f);
    }
}

void Framework::prepare(CycleContext &ctx,
                        const ClusterState &state,
                        const Job &job,
                        qint64 nowMs,
                        const DecideOptions &options) const
{
    const WorkloadSpec &spec = job.spec;
    const ComputeDemand &d = spec.demand.compute;
    ctx.state = &state;
    ctx.job = &job;
    ctx.spec = &spec;
    ctx.nowMs = nowMs;
    ctx.unitsNeeded = spec.demand.cards;
    ctx.demandMemoryMiB = spec.demand.memoryMiB;
    ctx.allowCreatePartitions = options.allowCreatePartitions;
    ctx.classBudgetLeft = options.classBudgetLeft;
    if (ctx.options.size() != size_t(state.cards().size()))
        ctx.options.resize(state.cards().size());
    const QList<CardModel> &models = state.catalogue().models();
    ctx.models.resize(models.size());
    ctx.demandMilli = 0;
    ctx.allowedModels = 0;
    for (int i = 0; i < models.size(); ++i) {
        const CardModel &m = models[i];
        ModelFit &mf = ctx.models[i];
        mf = ModelFit{};
        if (!spec.affinity.cardModels.isEmpty()) {
            mf.allowed = std::any_of(spec.affinity.cardModels.begin(),
                                     spec.affinity.cardModels.end(),
                                     [&](const QString &n) { return m.matchesName(n); });
            if (!mf.allowed)
                mf.whyNot = Reason::ModelNotAllowed;
        }
        const bool softOk = spec.isolation == IsolationRequirement::SoftAllowed;
        for (int p = 0; p < m.migProfiles.size(); ++p) {
            const Domain::MigProfile &prof = m.migProfiles[p];
            bool ok = false;
            switch (d.kind) {
            case ComputeDemand::Kind::WholeCard:
                ok = prof.computeSlices == m.migComputeSlices;
                break;
            case ComputeDemand::Kind::MigProfile:
                ok = prof.name == d.profile;
                break;
            case ComputeDemand::Kind::MigSlices:
                ok = prof.computeSlices >= d.slices;
                break;
            case ComputeDemand::Kind::Fraction:
                ok = prof.computeSlices * 1000 >= d.milli * m.migComputeSlices;
                break;
            }
            if (ok && prof.memoryMiB >= ctx.demandMemoryMiB) {
                mf.profiles |= 1u << p;
                mf.profileOrder.append(p);
            }
        }
        std::sort(mf.profileOrder.begin(), mf.profileOrder.end(), [&](int a, int b) {
            const Domain::MigProfile &x = m.migProfiles[a], &y = m.migProfiles[b];
            if (x.computeSlices != y.computeSlices)
                return x.computeSlices < y.computeSlices;
            if (x.memoryMiB != y.memoryMiB)
                return x.memoryMiB < y.memoryMiB;
            return !x.mediaExtensions && y.mediaExtensions;
        });
        mf.profileRank.fill(-1);
        for (int r = 0; r < mf.profileOrder.size() && mf.profileOrder[r] < 32; ++r)
            mf.profileRank[size_t(mf.profileOrder[r])] = qint8(r);
        switch (d.kind) {
        case ComputeDemand::Kind::WholeCard:
            mf.softMilli = softOk ? 1000 : 0;
            break;
        case ComputeDemand::Kind::MigProfile:
            mf.softMilli = 0;
            mf.wholeOk = false;
            if (mf.allowed && m.profileIndex(d.profile) < 0) {
                mf.allowed = false;
                mf.whyNot = Reason::ProfileNotOnModel;
            }
            break;
        case ComputeDemand::Kind::MigSlices:
            mf.softMilli = softOk ? demandMilliOn(m, d) : 0;
            break;
        case ComputeDemand::Kind::Fraction:
            mf.softMilli = softOk ? d.milli : 0;
            break;
        }
        // Part of a card does not take a whole one when the card can be shared: an idle card in
        // Whole mode is switched to MIG or to its sharing mode for it (Scheduler::tryRepartition)
        // rather than held whole by a slice's work.
        if (d.kind == ComputeDemand::Kind::MigSlices || d.kind == ComputeDemand::Kind::Fraction)
            mf.wholeOk = !((mf.softMilli > 0 && !m.softModes.isEmpty())
                           || (mf.profiles != 0 && m.supportsMig()));
        if (mf.allowed && m.memoryMiB < ctx.demandMemoryMiB) {
            mf.allowed = false;
            mf.whyNot = Reason::CardMemoryTooSmall;
        }
        if (mf.allowed && ctx.demandMilli == 0)
            ctx.demandMilli = demandMilliOn(m, d);
        if (mf.allowed && i < 32)
            ctx.allowedModels |= 1u << i;
    }
    if (ctx.demandMilli == 0)
        ctx.demandMilli = demandMilliOn(
                CardModel{}, d.kind == ComputeDemand::Kind::MigProfile ? ComputeDemand{} : d);
}

Status Framework::runFilters(const CycleContext &ctx,
                             const HostState &host,
                             CardMask *cards,
                             size_t begin,
                             size_t end,
                             int *which) const
{
    CardMask mask = *cards;
    const int need = ctx.unitsNeeded;
    for (size_t i = begin; i < end; ++i) {
        const CardMask before = mask;
        const Status st = m_ordered[i]->filter(ctx, host, mask);
        const bool tooFew = need > 0 && mask != before && std::popcount(mask) < need;
        // A failure rejects the host when it was about the host (the mask is untouched) or when
        // too few cards are left; a card filter that cleared some of many cards just narrows.
        if ((!st.isSuccess() && (mask == before || tooFew || need == 0)) || tooFew) {
            *which = int(i);
            *cards = mask;
            return st.isSuccess() ? Status::unschedulable(Reason::NoFreeUnit) : st;
        }
    }
    *cards = mask;
    return Status::success();
}

Status Framework::filterHost(const CycleContext &ctx,
                             const HostState &host,
                             CardMask *cards,
                             QString *rejectingFilter) const
{
    if (ctx.unitsNeeded == 0)
        *cards = 0;
    int which = -1;
    Status st = runFilters(ctx, host, cards, 0, m_ordered.size(), &which);
    if (st.isSuccess() && ctx.unitsNeeded > 0 && std::popcount(*cards) < ctx.unitsNeeded)
        st = Status::unschedulable(Reason::NoFreeUnit); // a profile without the gang filter
    if (!st.isSuccess() && rejectingFilter && which >= 0)
        *rejectingFilter = QLatin1String(m_ordered[size_t(which)]->name());
    return st;
}

Decision Framework::decide(const ClusterState &state,
                           const Job &job,
                           qint64 nowMs,
                           const DecideOptions &options) const
{
    CycleContext &ctx = m_ctx;
    prepare(ctx, state, job, nowMs, options);
    Decision out;
    DecisionTrace &tr = out.trace;
    tr.job = job.id;
    tr.atMs = nowMs;
    if (options.trace) {
        for (const auto &f : m_profile.filters)
            tr.filterPlugins << QLatin1String(f->name());
        for (const auto &s : m_profile.scores)
            tr.scorePlugins << QLatin1String(s.plugin->name());
    }
    if (state.hosts().isEmpty()) {
        out.status = tr.result = Status::unresolvable(Reason::NoHosts);
        return out;
    }
    const qint64 totalDemand = qint64(ctx.demandMilli) * ctx.unitsNeeded;
    if (ctx.classBudgetLeft >= 0 && totalDemand > ctx.classBudgetLeft) {
        out.status = tr.result = Status::unschedulable(
                Reason::ClassBudgetExceeded, totalDemand, ctx.classBudgetLeft);
        return out;
    }
    for (const auto &s : m_profile.scores)
        s.plugin->beginCycle(ctx);

    const int nScores = int(m_profile.scores.size());
    QList<HostId> only = options.onlyHosts;
    if (options.onlyCard.isValid())
        only = {state.card(options.onlyCard).host};
    const int nHosts = only.isEmpty() ? int(state.hosts().size()) : int(only.size());

    int feasible = 0;
    int bestHost = -1;
    double bestTotal = 0;
    CardMask bestMask = 0;
    Status failure; // the most hopeful failure seen
    std::array<int, kReasonCount> byReason{};
    QString filterName;
    // Keep the best few candidates for the trace (insertion into a tiny sorted list).
    struct Cand
    {
        int host;
        double total;
        CardMask mask;
    };
    Cand top[DecisionTrace::kKeepBest];
    int nTop = 0;
    m_scratch.resize(size_t(nScores) * (DecisionTrace::kKeepBest + 1));

    // The card-scoped filters' verdicts for this per-card demand shape, reused per host while the
    // host is unchanged: a waiting queue re-asks the same questions every cycle.
    std::vector<CardVerdict> *verdicts = nullptr;
    if (ctx.unitsNeeded > 0 && !options.onlyCard.isValid() && options.reuseVerdicts) {
        const Domain::Demand &dm = job.spec.demand;
        ShapeKey key;
        key.kind = int(dm.compute.kind);
        key.milli = dm.compute.kind == ComputeDemand::Kind::Fraction ? dm.compute.milli : 0;
        key.slices = dm.compute.kind == ComputeDemand::Kind::MigSlices ? dm.compute.slices : 0;
        key.profile = dm.compute.kind == ComputeDemand::Kind::MigProfile ? dm.compute.profile
                                                                         : QString();
        key.cards = dm.cards;
        key.memoryMiB = dm.memoryMiB;
        key.hard = job.spec.isolation == IsolationRequirement::HardOnly;
        key.sameDomain = job.spec.affinity.sameLinkDomain;
        key.create = ctx.allowCreatePartitions;
        key.models = job.spec.affinity.cardModels;
        if (m_cardVerdicts.size() > 4096)
            m_cardVerdicts.clear(); // bounded memory: start over
        verdicts = &m_cardVerdicts[key];
        if (verdicts->size() < size_t(state.hosts().size()))
            verdicts->resize(size_t(state.hosts().size()));
    }
    const int need = ctx.unitsNeeded;
    auto rankOf = [&](int h) { return h < int(m_ranks.size()) ? m_ranks[h] : h; };
    for (int k = 0; k < nHosts; ++k) {
        const int h = only.isEmpty() ? k : only[k].value();
        const HostState &host = state.hosts()[h];
        CardMask mask = need > 0 ? allCards(host) : 0;
        if (options.onlyCard.isValid() && need == 1)
            mask = CardMask(1) << (options.onlyCard.value() - host.firstCard);
        int which = -1;
        Status st = runFilters(ctx, host, &mask, 0, m_firstCardFilter, &which);
        if (st.isSuccess() && verdicts) {
            CardVerdict &v = (*verdicts)[size_t(h)];
            if (v.version != host.version) {
                v.version = host.version;
                v.status = runFilters(
                        ctx, host, &mask, m_firstCardFilter, m_ordered.size(), &v.filter);
                v.mask = mask;
            }
            st = v.status;
            mask = v.mask;
            which = v.filter;
        } else if (st.isSuccess()) {
            st = runFilters(ctx, host, &mask, m_firstCardFilter, m_ordered.size(), &which);
        }
        if (st.isSuccess() && need > 0 && std::popcount(mask) < need)
            st = Status::unschedulable(Reason::NoFreeUnit); // a profile without the gang filter
        if (options.trace && which >= 0)
            filterName = QLatin1String(m_ordered[size_t(which)]->name());
        if (!st.isSuccess()) {
            ++byReason[int(st.reason)];
            if (failure.isSuccess()
                || (st.code == Status::Code::Unschedulable
                    && failure.code != Status::Code::Unschedulable))
                failure = st;
            if (options.trace && byReason[int(st.reason)] == 1) {
                CandidateTrace c;
                c.host = host.id;
                c.verdict = st;
                c.filter = filterName;
                c.rank = rankOf(h);
                tr.rejected.append(c);
            }
            continue;
        }
        ++feasible;
        double total = 0;
        for (int i = 0; i < nScores; ++i) {
            const auto &ws = m_profile.scores[size_t(i)];
            total += ws.weight * ws.plugin->score(ctx, host, mask);
        }
        if (bestHost < 0 || total > bestTotal
            || (total == bestTotal && rankOf(h) < rankOf(bestHost))) {
            bestHost = h;
            bestTotal = total;
            bestMask = mask;
        }
        if (options.trace) {
            int at = nTop;
            while (at > 0
                   && (top[at - 1].total < total
                       || (top[at - 1].total == total && rankOf(top[at - 1].host) > rankOf(h))))
                --at;
            if (at < DecisionTrace::kKeepBest) {
                for (int j = std::min(nTop, DecisionTrace::kKeepBest - 1); j > at; --j)
                    top[j] = top[j - 1];
                top[at] = {h, total, mask};
                nTop = std::min(nTop + 1, DecisionTrace::kKeepBest);
            }
        }
    }
    tr.hostsConsidered = nHosts;
    tr.hostsFeasible = feasible;
    tr.rejectedBy = byReason;
    if (bestHost < 0) {
        // The reason most hosts gave, among those of the most hopeful kind.
        Reason common = failure.reason;
        int most = 0;
        for (const CandidateTrace &c : tr.rejected) {
            if (c.verdict.code == failure.code && byReason[int(c.verdict.reason)] > most) {
                most = byReason[int(c.verdict.reason)];
                common = c.verdict.reason;
            }
        }
        for (const CandidateTrace &c : tr.rejected) {
            if (c.verdict.reason == common)
                failure = c.verdict;
        }
        out.status = tr.result = failure;
        tr.kind = DecisionKind::Refusal;
        return out;
    }
    const HostState &host = state.hosts()[bestHost];
    if (verdicts) {
        // The verdict came from the cache: run the card filters once more on the chosen host so
        // ctx.options holds its cards' options for the pickers.
        CardMask again = allCards(host);
        int which = -1;
        runFilters(ctx, host, &again, m_firstCardFilter, m_ordered.size(), &which);
        Q_ASSERT(again == bestMask);
    }
    Placement p;
    p.host = host.id;
    bool picked = false;
    for (const auto &ws : m_profile.scores) {
        if (ws.plugin->picksCards() && ws.plugin->pickCards(ctx, host, bestMask, &p)) {
            picked = true;
            break;
        }
    }
    if (!picked)
        pickBestFit(ctx, host, bestMask, &p);
    if (options.trace) {
        for (int j = 0; j < nTop; ++j) {
            const HostState &th = state.hosts()[top[j].host];
            CandidateTrace c;
            c.host = th.id;
            c.total = top[j].total;
            c.rank = rankOf(top[j].host);
            c.feasibleCards = std::popcount(top[j].mask);
            for (const auto &ws : m_profile.scores)
                c.scores.append(ws.weight * ws.plugin->score(ctx, th, top[j].mask));
            tr.best.append(c);
        }
    }
    tr.kind = DecisionKind::Placement;
    tr.placement = p;
    out.placement = p;
    out.status = tr.result = Status::success();
    return out;
}

bool Framework::pickBestFit(const CycleContext &ctx,
                            const HostState &host,
                            CardMask feasible,
                            Placement *out)
{
    out->units.clear();
    const int need = ctx.unitsNeeded;
    if (need == 0)
        return true;
    auto better = [&](int a, int b) {
        const CardOption &x = ctx.options[size_t(host.firstCard + a)];
        const CardOption &y = ctx.options[size_t(host.firstCard + b)];
        if (x.rank != y.rank)
            return x.rank < y.rank;
        if (x.leftoverMilli != y.leftoverMilli)
            return x.leftoverMilli < y.leftoverMilli;
        if (x.leftoverMiB != y.leftoverMiB)
            return x.leftoverMiB < y.leftoverMiB;
        return a < b;
    };
    int idx[kMaxCardsPerHost];
    int n = 0;
    for (int i = 0; i < host.cardCount; ++i) {
        if (feasible >> i & 1)
            idx[n++] = i;
    }
    if (need == 1) {
        int best = idx[0];
        for (int k = 1; k < n; ++k) {
            if (better(idx[k], best))
                best = idx[k];
        }
        out->units.append(ctx.options[size_t(host.firstCard + best)].choice);
        return true;
    }
    // A gang: the tightest link domain that holds it (fewest feasible cards), then its best cards.
    int chosenDomain = 0;
    if (ctx.spec->affinity.sameLinkDomain) {
        int fewest = INT_MAX;
        for (int k = 0; k < n; ++k) {
            const int dom = ctx.card(host, idx[k]).linkDomain;
            int count = 0;
            for (int j = 0; j < n; ++j)
                count += ctx.card(host, idx[j]).linkDomain == dom;
            if (count >= need && count < fewest) {
                fewest = count;
                chosenDomain = dom;
            }
        }
        int m = 0;
        for (int k = 0; k < n; ++k) {
            if (ctx.card(host, idx[k]).linkDomain == chosenDomain)
                idx[m++] = idx[k];
        }
        n = m;
    }
    std::sort(idx, idx + n, better);
    for (int k = 0; k < need && k < n; ++k)
        out->units.append(ctx.options[size_t(host.firstCard + idx[k])].choice);
    return out->units.size() == need;
}

} // namespace Zhaoxi::Sched
