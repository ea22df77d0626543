// SPDX-License-Identifier: GPL-3.0-or-later
#include "hostresourcesfilter.h"

namespace Zhaoxi::Sched {

Status HostResourcesFilter::filter(const CycleContext &ctx,
                                   const HostState &host,
                                   CardMask &,
                                   HostOptions &) const
{
    const qint64 cpu = ctx.spec->demand.hostCpuMilli;
    const qint64 mem = ctx.spec->demand.hostMemoryMiB;
    if (cpu > host.cpuMilli)
        return Status::unresolvable(Reason::HostCpuTooSmall, cpu, host.cpuMilli);
    if (mem > host.memoryMiB)
        return Status::unresolvable(Reason::HostMemoryTooSmall, mem, host.memoryMiB);
    if (cpu > host.cpuMilli - host.usedCpuMilli)
        return Status::unschedulable(
                Reason::InsufficientHostCpu, cpu, host.cpuMilli - host.usedCpuMilli);
    if (mem > host.memoryMiB - host.usedMemoryMiB)
        return Status::unschedulable(
                Reason::InsufficientHostMemory, mem, host.memoryMiB - host.usedMemoryMiB);
    return Status::success();
}

} // namespace Zhaoxi::Sched
