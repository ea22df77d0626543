// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/plugin.h"

namespace Zhaoxi::Sched {

// FGD protocol 4.5, "BestFit": the host left with the least free CPU and card compute wins:
// s = (cpuFree - c) / 128000 * 0.5 + (totalFree - d) / 8000 * 0.5, score = trunc(100 (1 - s)).
// Cards: best fit (the framework's picker).
class BestFitScore final : public ScorePlugin
{
public:
    static constexpr double kMaxCpu = 128000;
    static constexpr double kMaxGpu = 8000;
    const char *name() const override { return "BestFit"; }
    bool hostLocal() const override { return true; }
    double score(const CycleContext &ctx, const HostState &host, CardMask feasible) const override;
};

} // namespace Zhaoxi::Sched
