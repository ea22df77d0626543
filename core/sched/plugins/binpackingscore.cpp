// SPDX-License-Identifier: GPL-3.0-or-later
#include "binpackingscore.h"

namespace Zhaoxi::Sched {

double BinPackingScore::score(const CycleContext &ctx, const HostState &host, CardMask) const
{
    if (host.cardCount == 0) {
        // CPU-only work: pack by CPU instead.
        return host.cpuMilli > 0 ? 100.0 * double(host.usedCpuMilli + ctx.spec->demand.hostCpuMilli)
                                           / double(host.cpuMilli)
                                 : 0;
    }
    const qint64 used = host.usedCardMilli + qint64(ctx.demandMilli) * ctx.unitsNeeded;
    return std::min(100.0, 100.0 * double(used) / (1000.0 * host.cardCount));
}

} // namespace Zhaoxi::Sched
