// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/plugin.h"

namespace Zhaoxi::Sched {

// Card level, last: a gang needs ctx.unitsNeeded feasible cards on the host, all in one fast-link domain when its affinity asks for that; keeps only cards in domains that can hold the whole gang.
class GangFilter final : public FilterPlugin
{
public:
    const char *name() const override { return "GangLinkDomain"; }
    bool hostLocal() const override { return true; }
    Status filter(const CycleContext &ctx,
                  const HostState &host,
                  CardMask &cards,
                  HostOptions &options) const override;
    bool cardScoped() const override { return true; }
    // Only a gang: one card needs no domain.
    bool appliesTo(const CycleContext &ctx) const override { return ctx.unitsNeeded > 1; }
};

} // namespace Zhaoxi::Sched
