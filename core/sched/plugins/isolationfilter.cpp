// SPDX-License-Identifier: GPL-3.0-or-later
#include "isolationfilter.h"

namespace Zhaoxi::Sched {

Status IsolationFilter::filter(const CycleContext &ctx,
                               const HostState &host,
                               CardMask &cards,
                               HostOptions &) const
{
    if (ctx.spec->isolation != Domain::IsolationRequirement::HardOnly)
        return Status::success();
    Status st;
    for (int i = 0; i < host.cardCount; ++i) {
        if (!(cards >> i & 1))
            continue;
        const PartitionMode mode = ctx.card(host, i).mode;
        if (mode == PartitionMode::TimeSlicing || mode == PartitionMode::Mps) {
            cards &= ~(CardMask(1) << i);
            // Every model has a whole-card mode, so a mode switch could make the card usable.
            st = Status::unschedulable(Reason::IsolationMismatch);
        }
    }
    return st;
}

} // namespace Zhaoxi::Sched
