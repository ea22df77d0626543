// SPDX-License-Identifier: GPL-3.0-or-later
#include "dotprodscore.h"

#include "hostview.h"

namespace Zhaoxi::Sched {

double DotProdScore::score(const CycleContext &ctx, const HostState &host, CardMask) const
{
    const HostView v(*ctx.state, host);
    const JobDemand d(ctx);
    // The simulator's order of operations: products summed, divided by the dimension count.
    double dot = (double(v.cpuFree) / kMaxCpu) * (double(d.cpu) / kMaxCpu);
    dot += (double(v.totalFree) / kMaxGpu) * (double(d.total()) / kMaxGpu);
    dot /= 2.0;
    return double(qint64(100.0 * (1.0 - dot)));
}

} // namespace Zhaoxi::Sched
