// SPDX-License-Identifier: GPL-3.0-or-later
#include "cardmodelfilter.h"

namespace Zhaoxi::Sched {

Status CardModelFilter::filter(const CycleContext &ctx,
                               const HostState &host,
                               CardMask &cards,
                               HostOptions &) const
{
    // Most hosts hold one model: when every model on the host is allowed, nothing to clear.
    if ((host.models & ctx.allowedModels) == host.models)
        return Status::success();
    if (host.soleModel >= 0) {
        // One model on every card: one verdict for all, without reading the cards.
        const ModelFit &mf = ctx.models[host.soleModel];
        if (mf.allowed || cards == 0)
            return Status::success();
        cards = 0;
        return Status::unresolvable(mf.whyNot,
                                    ctx.demandMemoryMiB,
                                    ctx.state->catalogue().models()[host.soleModel].memoryMiB);
    }
    Status st;
    for (int i = 0; i < host.cardCount; ++i) {
        if (!(cards >> i & 1))
            continue;
        const CardState &c = ctx.card(host, i);
        const ModelFit &mf = ctx.models[c.model];
        if (!mf.allowed) {
            cards &= ~(CardMask(1) << i);
            st = Status::unresolvable(
                    mf.whyNot, ctx.demandMemoryMiB, ctx.state->model(c).memoryMiB);
        }
    }
    return st;
}

} // namespace Zhaoxi::Sched
