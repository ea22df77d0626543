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
#include <atomic>
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
    static std::atomic<quint64> lastId{0};
    m_id = ++lastId;
    m_hostLocal = m_ordered.size() < 128;
    for (const auto &f : m_ordered)
        m_hostLocal = m_hostLocal && f->hostLocal();
    for (const Profile::WeightedScore &ws : m_profile.scores)
        m_hostLocal = m_hostLocal && ws.plugin->hostLocal();
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
    ctx.activeFilters = 0;
    for (size_t i = 0; i < m_ordered.size() && i < 64; ++i) {
        if (m_ordered[i]->appliesTo(ctx))
            ctx.activeFilters |= quint64(1) << i;
    }
}

Status Framework::runFilters(const CycleContext &ctx,
                             const HostState &host,
                             CardMask *cards,
                             HostOptions &options,
                             size_t begin,
                             size_t end,
                             int *which) const
{
    CardMask mask = *cards;
    const int need = ctx.unitsNeeded;
    for (size_t i = begin; i < end; ++i) {
        if (i < 64 && !(ctx.activeFilters >> i & 1))
            continue;
        const CardMask before = mask;
        const Status st = m_ordered[i]->filter(ctx, host, mask, options);
        const bool tooFew = mask != before && fewerCardsThan(mask, need);
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
                             HostOptions &options,
                             QString *rejectingFilter) const
{
    if (ctx.unitsNeeded == 0)
        *cards = 0;
    int which = -1;
    Status st = runFilters(ctx, host, cards, options, 0, m_ordered.size(), &which);
    if (st.isSuccess() && fewerCardsThan(*cards, ctx.unitsNeeded))
        st = Status::unschedulable(Reason::NoFreeUnit); // a profile without the gang filter
    if (!st.isSuccess() && rejectingFilter && which >= 0)
        *rejectingFilter = QLatin1String(m_ordered[size_t(which)]->name());
    return st;
}

// What one decision learns host by host: the best feasible host so far, the most hopeful failure,
// the rejections by reason and, with a trace, the first rejected host per reason and the best
// few feasible ones.
class Framework::Tally
{
public:
    struct Candidate
    {
        int host = -1;
        double total = 0;
        CardMask mask = 0;
    };

    Tally(const Framework &fw, DecisionTrace *trace)
        : m_fw(fw)
        , m_trace(trace)
    {}

    [[gnu::always_inline]] void reject(const HostState &host, int h, const Status &st, int filter)
    {
        ++m_byReason[int(st.reason)];
        if (m_failure.isSuccess()
            || (st.code == Status::Code::Unschedulable
                && m_failure.code != Status::Code::Unschedulable))
            m_failure = st;
        if (m_trace && m_byReason[int(st.reason)] == 1) {
            CandidateTrace c;
            c.host = host.id;
            c.verdict = st;
            if (filter >= 0)
                c.filter = QLatin1String(m_fw.m_ordered[size_t(filter)]->name());
            c.rank = m_fw.rankOf(h);
            m_trace->rejected.append(c);
        }
    }

    [[gnu::always_inline]] void offer(int h, double total, CardMask mask)
    {
        ++m_feasible;
        const int rank = m_fw.rankOf(h);
        if (m_best.host < 0 || total > m_best.total
            || (total == m_best.total && rank < m_fw.rankOf(m_best.host)))
            m_best = {h, total, mask};
        if (!m_trace)
            return;
        int at = m_nTop;
        while (at > 0
               && (m_top[at - 1].total < total
                   || (m_top[at - 1].total == total && m_fw.rankOf(m_top[at - 1].host) > rank)))
            --at;
        if (at < DecisionTrace::kKeepBest) {
            for (int j = std::min(m_nTop, DecisionTrace::kKeepBest - 1); j > at; --j)
                m_top[j] = m_top[j - 1];
            m_top[at] = {h, total, mask};
            m_nTop = std::min(m_nTop + 1, DecisionTrace::kKeepBest);
        }
    }

    const Candidate &best() const { return m_best; }
    int feasible() const { return m_feasible; }
    const std::array<int, kReasonCount> &byReason() const { return m_byReason; }
    const Candidate *top() const { return m_top; }
    int topCount() const { return m_nTop; }

    // Why no host could take the job: the reason most hosts gave, among those of the most
    // hopeful kind (with its parameters from the first host that gave it).
    Status refusal() const
    {
        Status failure = m_failure;
        if (!m_trace)
            return failure;
        Reason common = failure.reason;
        int most = 0;
        for (const CandidateTrace &c : std::as_const(m_trace->rejected)) {
            if (c.verdict.code == failure.code && m_byReason[int(c.verdict.reason)] > most) {
                most = m_byReason[int(c.verdict.reason)];
                common = c.verdict.reason;
            }
        }
        for (const CandidateTrace &c : std::as_const(m_trace->rejected)) {
            if (c.verdict.reason == common)
                failure = c.verdict;
        }
        return failure;
    }

private:
    const Framework &m_fw;
    DecisionTrace *m_trace;
    Candidate m_best;
    int m_feasible = 0;
    Status m_failure;
    std::array<int, kReasonCount> m_byReason{};
    Candidate m_top[DecisionTrace::kKeepBest];
    int m_nTop = 0;
};

DecisionWorkspace::ShapeKey Framework::shapeKeyOf(const CycleContext &ctx, const Job &job)
{
    const Domain::Demand &dm = job.spec.demand;
    DecisionWorkspace::ShapeKey key;
    key.kind = int(dm.compute.kind);
    key.milli = dm.compute.kind == ComputeDemand::Kind::Fraction ? dm.compute.milli : 0;
    key.slices = dm.compute.kind == ComputeDemand::Kind::MigSlices ? dm.compute.slices : 0;
    key.profile
            = dm.compute.kind == ComputeDemand::Kind::MigProfile ? dm.compute.profile : QString();
    key.cards = dm.cards;
    key.memoryMiB = dm.memoryMiB;
    key.hard = job.spec.isolation == IsolationRequirement::HardOnly;
    key.sameDomain = job.spec.affinity.sameLinkDomain;
    key.create = ctx.allowCreatePartitions;
    key.models = job.spec.affinity.cardModels;
    return key;
}

DecisionWorkspace::HostMemo *Framework::memoFor(DecisionWorkspace &ws,
                                                const ClusterState &state,
                                                const Job &job,
                                                const DecideOptions &options) const
{
    if (!m_hostLocal || !options.reuseVerdicts || !options.onlyHosts.isEmpty()
        || options.onlyCard.isValid() || !job.assignments.isEmpty() || job.host.isValid())
        return nullptr;
    quint64 generation = 0;
    for (const Profile::WeightedScore &s : m_profile.scores)
        generation += s.plugin->generation();
    const size_t hosts = size_t(state.hosts().size());
    auto startOver = [&] {
        ws.m_memos.clear();
        ws.m_memoSeen.clear();
        ws.m_memoEntries = 0;
        ws.m_memoOwner = m_id;
        ws.m_memoGeneration = generation;
    };
    if (ws.m_memoOwner != m_id || ws.m_memoGeneration != generation)
        startOver(); // another framework, or scores that changed
    DecisionWorkspace::DecisionKey key;
    key.shape = shapeKeyOf(ws.m_ctx, job);
    key.cpu = job.spec.demand.hostCpuMilli;
    key.mem = job.spec.demand.hostMemoryMiB;
    key.pin = job.spec.affinity.host;
    if (job.spec.inference)
        key.service = job.spec.inference->service;
    auto it = ws.m_memos.find(key);
    if (it == ws.m_memos.end()) {
        // Kept from a key's second decision on: a one-off job would pay for a memo never read.
        if (ws.m_memoSeen.size() > DecisionWorkspace::kMaxSeenKeys)
            ws.m_memoSeen.clear();
        if (++ws.m_memoSeen[key] < 2)
            return nullptr;
        if (ws.m_memoEntries + hosts > DecisionWorkspace::kMaxMemoEntries)
            startOver(); // bounded memory: only a new key's memo can pass the bound
        it = ws.m_memos.insert(key, {});
    }
    DecisionWorkspace::HostMemo &memo = *it;
    if (memo.version.size() < hosts) {
        ws.m_memoEntries += hosts - memo.version.size();
        memo.resize(hosts);
    }
    return &memo;
}

std::vector<Framework::CardVerdict> *Framework::verdictsFor(DecisionWorkspace &ws,
                                                            const ClusterState &state,
                                                            const Job &job,
                                                            const DecideOptions &options) const
{
    const CycleContext &ctx = ws.m_ctx;
    if (ctx.unitsNeeded == 0 || options.onlyCard.isValid() || !options.reuseVerdicts)
        return nullptr;
    // The card-scoped filters' verdicts for this per-card demand shape, reused per host while the
    // host is unchanged: a waiting queue re-asks the same questions every cycle.
    const DecisionWorkspace::ShapeKey key = shapeKeyOf(ctx, job);
    if (ws.m_verdicts.size() > 4096)
        ws.m_verdicts.clear(); // bounded memory: start over
    std::vector<CardVerdict> *verdicts = &ws.m_verdicts[key];
    if (verdicts->size() < size_t(state.hosts().size()))
        verdicts->resize(size_t(state.hosts().size()));
    return verdicts;
}

Status Framework::filterStep(DecisionWorkspace &ws,
                             std::vector<CardVerdict> *verdicts,
                             int h,
                             CardMask *mask,
                             int *which) const
{
    const CycleContext &ctx = ws.m_ctx;
    const HostState &host = ctx.state->hosts()[h];
    Status st = runFilters(ctx, host, mask, ws.m_options, 0, m_firstCardFilter, which);
    if (st.isSuccess() && verdicts) {
        CardVerdict &v = (*verdicts)[size_t(h)];
        if (v.version != host.version) {
            v.version = host.version;
            v.status = runFilters(
                    ctx, host, mask, ws.m_options, m_firstCardFilter, m_ordered.size(), &v.filter);
            v.mask = *mask;
        }
        st = v.status;
        *mask = v.mask;
        *which = v.filter;
    } else if (st.isSuccess()) {
        st = runFilters(ctx, host, mask, ws.m_options, m_firstCardFilter, m_ordered.size(), which);
    }
    const int need = ctx.unitsNeeded;
    if (st.isSuccess() && fewerCardsThan(*mask, need))
        st = Status::unschedulable(Reason::NoFreeUnit); // a profile without the gang filter
    return st;
}

double Framework::scoreStep(const CycleContext &ctx, const HostState &host, CardMask mask) const
{
    double total = 0;
    for (const Profile::WeightedScore &ws : m_profile.scores)
        total += ws.weight * ws.plugin->score(ctx, host, mask);
    return total;
}

Placement Framework::pickStep(DecisionWorkspace &ws, const HostState &host, CardMask mask) const
{
    const CycleContext &ctx = ws.m_ctx;
    // The options hold the host judged last: run the card filters once more on the chosen one's
    // feasible cards (a fixed point of the filters).
    CardMask again = mask;
    int which = -1;
    runFilters(ctx, host, &again, ws.m_options, m_firstCardFilter, m_ordered.size(), &which);
    Q_ASSERT(ctx.unitsNeeded == 0 || again == mask);
    Placement p;
    p.host = host.id;
    for (const Profile::WeightedScore &s : m_profile.scores) {
        if (s.plugin->picksCards() && s.plugin->pickCards(ctx, host, mask, ws.m_options, &p))
            return p;
    }
    pickBestFit(ctx, host, mask, ws.m_options, &p);
    return p;
}

void Framework::traceBest(const CycleContext &ctx, const Tally &tally, DecisionTrace &tr) const
{
    for (int j = 0; j < tally.topCount(); ++j) {
        const Tally::Candidate &t = tally.top()[j];
        const HostState &th = ctx.state->hosts()[t.host];
        CandidateTrace c;
        c.host = th.id;
        c.total = t.total;
        c.rank = rankOf(t.host);
        c.feasibleCards = std::popcount(t.mask);
        for (const Profile::WeightedScore &ws : m_profile.scores)
            c.scores.append(ws.weight * ws.plugin->score(ctx, th, t.mask));
        tr.best.append(c);
    }
}

Decision Framework::decide(DecisionWorkspace &ws,
                           const ClusterState &state,
                           const Job &job,
                           qint64 nowMs,
                           const DecideOptions &options) const
{
    CycleContext &ctx = ws.m_ctx;
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

    QList<HostId> only = options.onlyHosts;
    if (options.onlyCard.isValid())
        only = {state.card(options.onlyCard).host};
    const int nHosts = only.isEmpty() ? int(state.hosts().size()) : int(only.size());
    std::vector<CardVerdict> *verdicts = verdictsFor(ws, state, job, options);
    Tally tally(*this, options.trace ? &tr : nullptr);
    const int need = ctx.unitsNeeded;
    // With a memo, an unchanged host's verdict and score are read back instead of worked out;
    // the walk and its order are the same either way.
    DecisionWorkspace::HostMemo *memo = memoFor(ws, state, job, options);
    const quint64 *versions = state.hostVersions().data();
    for (int k = 0; k < nHosts; ++k) {
        const int h = only.isEmpty() ? k : only[k].value();
        const HostState &host = state.hosts()[h];
        const size_t m = size_t(h);
        if (memo && memo->version[m] == versions[h]) {
            if (!memo->status[m].isSuccess())
                tally.reject(host, h, memo->status[m], memo->filter[m]);
            else
                tally.offer(h, memo->total[m], memo->mask[m]);
            continue;
        }
        CardMask mask = need > 0 ? allCards(host) : 0;
        if (options.onlyCard.isValid() && need == 1)
            mask = CardMask(1) << (options.onlyCard.value() - host.firstCard);
        int which = -1;
        const Status st = filterStep(ws, verdicts, h, &mask, &which);
        const double total = st.isSuccess() ? scoreStep(ctx, host, mask) : 0;
        if (memo) {
            memo->version[m] = versions[h];
            memo->status[m] = st;
            memo->filter[m] = qint8(which);
            memo->mask[m] = mask;
            memo->total[m] = total;
        }
        if (!st.isSuccess())
            tally.reject(host, h, st, which);
        else
            tally.offer(h, total, mask);
    }
    tr.hostsConsidered = nHosts;
    tr.hostsFeasible = tally.feasible();
    tr.rejectedBy = tally.byReason();
    if (tally.best().host < 0) {
        out.status = tr.result = tally.refusal();
        tr.kind = DecisionKind::Refusal;
        return out;
    }
    const Placement p = pickStep(ws, state.hosts()[tally.best().host], tally.best().mask);
    if (options.trace)
        traceBest(ctx, tally, tr);
    tr.kind = DecisionKind::Placement;
    tr.placement = p;
    out.placement = p;
    out.status = tr.result = Status::success();
    return out;
}

bool Framework::pickBestFit(const CycleContext &ctx,
                            const HostState &host,
                            CardMask feasible,
                            const HostOptions &options,
                            Placement *out)
{
    out->units.clear();
    const int need = ctx.unitsNeeded;
    if (need == 0)
        return true;
    auto better = [&](int a, int b) {
        const CardOption &x = options[a];
        const CardOption &y = options[b];
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
        out->units.append(options[best].choice);
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
        out->units.append(options[idx[k]].choice);
    return out->units.size() == need;
}

} // namespace Zhaoxi::Sched
