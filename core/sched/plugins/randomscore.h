// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/plugin.h"

namespace Zhaoxi::Sched {

// FGD protocol 4.1, "Random": every feasible host gets an independent uniform score in [0, 100),
// so the best one is a uniform pick; a fractional job takes a uniformly chosen feasible card;
// whole cards come from the framework's best-fit picker (the lowest-indexed free ones). Draws
// from its own generator, seeded at construction (the simulator's Random is not reproducible
// either: compare it by its mean).
class RandomScore final : public ScorePlugin
{
public:
    explicit RandomScore(quint64 seed);
    const char *name() const override { return "Random"; }
    double score(const CycleContext &ctx, const HostState &host, CardMask feasible) const override;
    bool picksCards() const override { return true; }
    bool pickCards(const CycleContext &ctx,
                   const HostState &host,
                   CardMask feasible,
                   const HostOptions &options,
                   Placement *out) const override;
    void beginCycle(const CycleContext &ctx) const override;

private:
    quint64 next() const;
    mutable quint64 m_state;
    mutable quint64 m_cycle = 0;
};

} // namespace Zhaoxi::Sched
