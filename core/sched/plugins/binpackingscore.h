// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/plugin.h"

namespace Zhaoxi::Sched {

// Prefers hosts whose cards are already busy: the share of the host's compute that is allocated once the job lands (MostAllocated). Keeps whole hosts free for big gangs.
class BinPackingScore final : public ScorePlugin
{
public:
    const char *name() const override { return "BinPacking"; }
    bool hostLocal() const override { return true; }
    double score(const CycleContext &ctx, const HostState &host, CardMask feasible) const override;
};

} // namespace Zhaoxi::Sched
