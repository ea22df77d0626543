// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/plugin.h"

namespace Zhaoxi::Sched {

// FGD protocol 4.2, "DotProd": the dot product of the host's free CPU and card compute with the
// job's request, each normalised by a fixed maximum (128 cores, 8 cards); a smaller product
// scores higher: score = trunc(100 (1 - dot / 2)). Cards: best fit (the framework's picker).
class DotProdScore final : public ScorePlugin
{
public:
    static constexpr double kMaxCpu = 128000;
    static constexpr double kMaxGpu = 8000;
    const char *name() const override { return "DotProd"; }
    bool hostLocal() const override { return true; }
    double score(const CycleContext &ctx, const HostState &host, CardMask feasible) const override;
};

} // namespace Zhaoxi::Sched
