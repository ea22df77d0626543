// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/plugin.h"

namespace Zhaoxi::Sched {

// Gangs prefer the link domain they fill most exactly (a 4-card job on a free 4-card domain rather than breaking an 8-card one). Single-card jobs prefer domains that are already partly used, leaving whole domains for gangs.
class TopologyScore final : public ScorePlugin
{
public:
    const char *name() const override { return "Topology"; }
    bool hostLocal() const override { return true; }
    double score(const CycleContext &ctx, const HostState &host, CardMask feasible) const override;
};

} // namespace Zhaoxi::Sched
