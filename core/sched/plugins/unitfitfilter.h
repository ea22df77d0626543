// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/plugin.h"

namespace Zhaoxi::Sched {

// Card level: the card has a unit that fits the demand's compute and memory now (a free MIG instance of an acceptable profile, room to create one, a free whole card, or a soft share), and records that option in ctx.options.
class UnitFitFilter final : public FilterPlugin
{
public:
    const char *name() const override { return "UnitFit"; }
    bool hostLocal() const override { return true; }
    Status filter(const CycleContext &ctx,
                  const HostState &host,
                  CardMask &cards,
                  HostOptions &options) const override;
    bool cardScoped() const override { return true; }
};

} // namespace Zhaoxi::Sched
