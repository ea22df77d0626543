// SPDX-License-Identifier: GPL-3.0-or-later
#include "topologyscore.h"

namespace Zhaoxi::Sched {

double TopologyScore::score(const CycleContext &ctx, const HostState &host, CardMask feasible) const
{
    const int need = ctx.unitsNeeded;
    if (need == 0 || host.cardCount == 0)
        return 50;
    // One card: best when a feasible card sits in a domain that already has work on it.
    if (need == 1)
        return (feasible & host.busyDomainCards) ? 100 : 50;
    // A gang: the tightest domain that can hold it, need / feasible cards in it (domain ids are
    // small per host).
    constexpr int kDomains = 16;
    int feasibleIn[kDomains] = {};
    for (int i = 0; i < host.cardCount; ++i)
        feasibleIn[ctx.card(host, i).linkDomain & (kDomains - 1)] += int(feasible >> i & 1);
    int fewest = 0;
    for (int d = 0; d < kDomains; ++d) {
        if (feasibleIn[d] >= need && (fewest == 0 || feasibleIn[d] < fewest))
            fewest = feasibleIn[d];
    }
    return fewest == 0 ? 0 : 100.0 * need / fewest;
}

} // namespace Zhaoxi::Sched
