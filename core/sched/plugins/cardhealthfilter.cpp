// SPDX-License-Identifier: GPL-3.0-or-later
#include "cardhealthfilter.h"

namespace Zhaoxi::Sched {

Status CardHealthFilter::filter(const CycleContext &ctx,
                                const HostState &host,
                                CardMask &cards) const
{
    Q_UNUSED(ctx)
    if (!(cards & host.failedCards))
        return Status::success();
    cards &= ~host.failedCards;
    return Status::unresolvable(Reason::CardFailed);
}

} // namespace Zhaoxi::Sched
