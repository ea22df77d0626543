// SPDX-License-Identifier: GPL-3.0-or-later
#include "topologyscore.h"

#include <bit>

namespace Zhaoxi::Sched {

double TopologyScore::score(const CycleContext &ctx, const HostState &host, CardMask feasible) const
{
    const int need = ctx.unitsNeeded;
    if (need == 0 || host.cardCount == 0)
        return 50;
    if (need > 1) {
        // The tightest domain that can hold the gang: need / feasible cards in it.
        int fewest = INT_MAX;
        for (int i = 0; i < host.cardCount; ++i) {
            if (!(feasible >> i & 1))
                continue;
            const int dom = ctx.card(host, i).linkDomain;
            int n = 0;
            for (int k = 0; k < host.cardCount; ++k)
                n += (feasible >> k & 1) && ctx.card(host, k).linkDomain == dom;
            if (n >= need)
                fewest = std::min(fewest, n);
        }
        return fewest == INT_MAX ? 0 : 100.0 * need / fewest;
    }
    // One card: best when a feasible card sits in a domain that already has work on it.
    for (int i = 0; i < host.cardCount; ++i) {
        if (!(feasible >> i & 1))
            continue;
        const int dom = ctx.card(host, i).linkDomain;
        for (int k = 0; k < host.cardCount; ++k) {
            const CardState &c = ctx.card(host, k);
            if (c.linkDomain == dom && c.clients > 0)
                return 100;
        }
    }
    return 50;
}

} // namespace Zhaoxi::Sched
