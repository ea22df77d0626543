// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/plugin.h"

namespace Zhaoxi::Sched {

// Card level: failed cards serve nothing.
class CardHealthFilter final : public FilterPlugin
{
public:
    const char *name() const override { return "CardHealth"; }
    bool hostLocal() const override { return true; }
    Status filter(const CycleContext &ctx,
                  const HostState &host,
                  CardMask &cards,
                  HostOptions &options) const override;
    bool cardScoped() const override { return true; }
};

} // namespace Zhaoxi::Sched
