// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/plugin.h"

namespace Zhaoxi::Sched {

// Host level: the host is up and the job's affinity allows it (Unresolvable when pinned elsewhere).
class HostFilter final : public FilterPlugin
{
public:
    const char *name() const override { return "Host"; }
    bool hostLocal() const override { return true; }
    Status filter(const CycleContext &ctx,
                  const HostState &host,
                  CardMask &cards,
                  HostOptions &options) const override;
};

} // namespace Zhaoxi::Sched
