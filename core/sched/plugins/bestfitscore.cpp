// SPDX-License-Identifier: GPL-3.0-or-later
#include "bestfitscore.h"

#include "hostview.h"

namespace Zhaoxi::Sched {

double BestFitScore::score(const CycleContext &ctx, const HostState &host, CardMask) const
{
    const HostView v(*ctx.state, host);
    const JobDemand d(ctx);
    double s = 0;
    s += double(v.cpuFree - d.cpu) / kMaxCpu * 0.5;
    s += double(v.totalFree - d.total()) / kMaxGpu * 0.5;
    // The simulator then stretches the scores to 0..100; they already lie there, and the
    // stretch keeps order and ties, so it is left out (protocol 4.5).
    return double(qint64((1.0 - s) * 100.0));
}

} // namespace Zhaoxi::Sched
