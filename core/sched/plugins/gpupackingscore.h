// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/plugin.h"

namespace Zhaoxi::Sched {

// FGD protocol 4.4, "GpuPacking": prefers cards already in use, then hosts with some cards in
// use, then idle hosts (the smaller or the larger, whichever is further from 33 cards).
// CPU-only jobs score 0 everywhere. Cards: best fit (the same card the walk below picks).
class GpuPackingScore final : public ScorePlugin
{
public:
    const char *name() const override { return "GpuPacking"; }
    bool hostLocal() const override { return true; }
    double score(const CycleContext &ctx, const HostState &host, CardMask feasible) const override;
};

} // namespace Zhaoxi::Sched
