// SPDX-License-Identifier: GPL-3.0-or-later
#include "hostfilter.h"

namespace Zhaoxi::Sched {

Status HostFilter::filter(const CycleContext &ctx,
                          const HostState &host,
                          CardMask &,
                          HostOptions &) const
{
    const QString &pin = ctx.spec->affinity.host;
    if (!pin.isEmpty() && pin != host.name)
        return Status::unresolvable(Reason::HostNotAllowed);
    if (!host.up)
        return Status::unschedulable(Reason::HostDown);
    return Status::success();
}

} // namespace Zhaoxi::Sched
