// SPDX-License-Identifier: GPL-3.0-or-later
#include "topologyscore.h"

namespace Zhaoxi::Sched {

double TopologyScore::score(const CycleContext &ctx, const HostState &host, CardMask feasible) const
{
    const int need = ctx.unitsNeeded;
    if (need == 0 || host.cardCount == 0)
        return 50;
    // One pass: feasible and busy cards per link domain (domain ids are small per host).
    constexpr int kDomains = 16;
    int feasibleIn[kDomains] = {};
    bool busyIn[kDomains] = {};
    for (int i = 0; i < host.cardCount; ++i) {
        const CardState &c = ctx.card(host, i);
        const int dom = c.linkDomain & (kDomains - 1);
        feasibleIn[dom] += int(feasible >> i & 1);
        busyIn[dom] |= c.clients > 0;
    }
    if (need > 1) {
        // The tightest domain that can hold the gang: need / feasible cards in it.
        int fewest = 0;
        for (int d = 0; d < kDomains; ++d) {
            if (feasibleIn[d] >= need && (fewest == 0 || feasibleIn[d] < fewest))
                fewest = feasibleIn[d];
        }
        return fewest == 0 ? 0 : 100.0 * need / fewest;
    }
    // One card: best when a feasible card sits in a domain that already has work on it.
    for (int d = 0; d < kDomains; ++d) {
        if (feasibleIn[d] > 0 && busyIn[d])
            return 100;
    }
    return 50;
}

} // namespace Zhaoxi::Sched
