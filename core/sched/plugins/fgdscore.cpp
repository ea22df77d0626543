// SPDX-License-Identifier: GPL-3.0-or-later
#include "fgdscore.h"

#include "hostview.h"

#include <cmath>

namespace Zhaoxi::Sched {

namespace {

int sigmoidScore(double delta)
{
    const double s = 1.0 / (1.0 + std::exp(-(delta / 1000.0)));
    return int(qint64(s * 100.0));
}

} // namespace

FgdScore::FgdScore(std::shared_ptr<const TargetWorkload> target)
    : m_target(std::move(target))
{}

void FgdScore::beginCycle(const CycleContext &ctx) const
{
    const Catalogue::Catalogue *cat = &ctx.state->catalogue();
    if (cat != m_catalogue || m_resolved.modelCount() != cat->models().size()) {
        m_catalogue = cat;
        m_resolved = ResolvedWorkload(*m_target, *cat);
    }
    m_cache.begin(ctx);
}

FgdScore::Result FgdScore::evaluate(const ResolvedWorkload &w,
                                    const CycleContext &ctx,
                                    const HostView &host,
                                    CardMask feasible)
{
    HostView v = host;
    const JobDemand d(ctx);
    const double before = w.fragmentation(v.freeMilli, v.model, v.cardCount, v.cpuFree);
    v.cpuFree -= d.cpu;
    Result r;
    if (d.isShare()) {
        for (int k = 0; k < v.cardCount; ++k) {
            if (!(feasible >> k & 1) || v.freeMilli[k] < d.perCard)
                continue;
            v.freeMilli[k] -= d.perCard;
            const int s = sigmoidScore(
                    before - w.fragmentation(v.freeMilli, v.model, v.cardCount, v.cpuFree));
            v.freeMilli[k] += d.perCard;
            if (r.card < 0 || s > r.score) {
                r.score = s;
                r.card = k;
            }
        }
        return r;
    }
    int left = d.isCpuOnly() ? 0 : d.cards;
    for (int k = 0; k < v.cardCount && left > 0; ++k) {
        if (feasible >> k & 1) {
            v.freeMilli[k] = std::max(0, v.freeMilli[k] - d.perCard);
            --left;
        }
    }
    r.score = sigmoidScore(before - w.fragmentation(v.freeMilli, v.model, v.cardCount, v.cpuFree));
    return r;
}

const FgdScore::Result &FgdScore::cached(const CycleContext &ctx,
                                         const HostState &host,
                                         CardMask feasible) const
{
    return m_cache.get(ctx, host, feasible, [&](const HostView &v) {
        return evaluate(m_resolved, ctx, v, feasible);
    });
}

double FgdScore::score(const CycleContext &ctx, const HostState &host, CardMask feasible) const
{
    if (const Result *r = m_cache.find(host))
        return r->score;
    return cached(ctx, host, feasible).score;
}

bool FgdScore::pickCards(const CycleContext &ctx,
                         const HostState &host,
                         CardMask feasible,
                         const HostOptions &options,
                         Placement *out) const
{
    return pickSharedCard(ctx, options, out, [&] { return cached(ctx, host, feasible).card; });
}

} // namespace Zhaoxi::Sched
