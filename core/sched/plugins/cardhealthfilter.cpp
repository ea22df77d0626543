// SPDX-License-Identifier: GPL-3.0-or-later
#include "cardhealthfilter.h"

namespace Zhaoxi::Sched {

Status CardHealthFilter::filter(const CycleContext &ctx, const HostState &host, CardMask &cards) const
{
    Status st;
    for (int i = 0; i < host.cardCount; ++i) {
        if ((cards >> i & 1) && ctx.card(host, i).health == CardHealth::Failed) {
            cards &= ~(CardMask(1) << i);
            st = Status::unresolvable(Reason::CardFailed);
        }
    }
    return st;
}

} // namespace Zhaoxi::Sched
