// SPDX-License-Identifier: GPL-3.0-or-later
#include "gpupackingscore.h"

#include "hostview.h"

#include <algorithm>

namespace Zhaoxi::Sched {

double GpuPackingScore::score(const CycleContext &ctx, const HostState &host, CardMask) const
{
    const JobDemand d(ctx);
    if (d.isCpuOnly())
        return 0;
    const HostView v(*ctx.state, host);
    if (v.cardCount > 0 && v.fullFree == v.cardCount)
        return std::max(33 - v.fullFree, v.fullFree);
    int idx[kMaxCardsPerHost];
    for (int i = 0; i < v.cardCount; ++i)
        idx[i] = i;
    std::stable_sort(
            idx, idx + v.cardCount, [&](int a, int b) { return v.freeMilli[a] < v.freeMilli[b]; });
    int taken = 0, freeTaken = 0, r = 0;
    for (int k = 0; k < v.cardCount && taken < d.cards; ++k) {
        const int f = v.freeMilli[idx[k]];
        if (f < d.perCard)
            continue;
        ++taken;
        if (f == 1000)
            ++freeTaken;
        r += (f * 100) / 1000;
    }
    if (freeTaken > 0)
        return std::max(50 - freeTaken, 33);
    return std::max(100 - r / 10, 50);
}

} // namespace Zhaoxi::Sched
