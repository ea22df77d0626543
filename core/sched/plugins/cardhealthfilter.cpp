// SPDX-License-Identifier: GPL-3.0-or-later
#include "cardhealthfilter.h"

namespace Zhaoxi::Sched {

Status CardHealthFilter::filter(const CycleContext &ctx,
                                const HostState &host,
                                CardMask &cards,
                                HostOptions &) const
{
    Q_UNUSED(ctx)
    Status status = Status::success();
    if (cards & host.failedCards) {
        cards &= ~host.failedCards;
        status = Status::unresolvable(Reason::CardFailed);
    }
    // A cordoned card waits for its repartition: it may take work again afterwards.
    if (cards & host.cordonedCards) {
        cards &= ~host.cordonedCards;
        if (status.isSuccess())
            status = Status::unschedulable(Reason::CardReconfiguring);
    }
    return status;
}

} // namespace Zhaoxi::Sched
