// SPDX-License-Identifier: GPL-3.0-or-later
#include "gangfilter.h"

#include <bit>

namespace Zhaoxi::Sched {

Status GangFilter::filter(const CycleContext &ctx,
                          const HostState &host,
                          CardMask &cards,
                          HostOptions &) const
{
    const int need = ctx.unitsNeeded;
    if (need <= 1)
        return Status::success();
    if (need > host.cardCount)
        return Status::unresolvable(Reason::GangTooWide, need, host.cardCount);
    if (!ctx.spec->affinity.sameLinkDomain) {
        const int have = std::popcount(cards);
        return have >= need ? Status::success()
                            : Status::unschedulable(Reason::GangNotInOneLinkDomain, need, have);
    }
    // Count feasible cards per link domain; keep the cards of domains that hold the whole gang.
    CardMask keep = 0;
    int best = 0;
    CardMask seen = 0;
    for (int i = 0; i < host.cardCount; ++i) {
        if (!(cards >> i & 1) || (seen >> i & 1))
            continue;
        const int domain = ctx.card(host, i).linkDomain;
        CardMask inDomain = 0;
        for (int k = i; k < host.cardCount; ++k) {
            if ((cards >> k & 1) && ctx.card(host, k).linkDomain == domain)
                inDomain |= CardMask(1) << k;
        }
        seen |= inDomain;
        const int n = std::popcount(inDomain);
        best = std::max(best, n);
        if (n >= need)
            keep |= inDomain;
    }
    if (keep == cards)
        return Status::success();
    cards = keep;
    return Status::unschedulable(Reason::GangNotInOneLinkDomain, need, best);
}

} // namespace Zhaoxi::Sched
