// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/plugin.h"

namespace Zhaoxi::Sched {

// Host level: the job's CPU and memory fit the host's free CPU and memory (Unresolvable when they exceed its capacity).
class HostResourcesFilter final : public FilterPlugin
{
public:
    const char *name() const override { return "HostResources"; }
    bool hostLocal() const override { return true; }
    Status filter(const CycleContext &ctx,
                  const HostState &host,
                  CardMask &cards,
                  HostOptions &options) const override;
};

} // namespace Zhaoxi::Sched
