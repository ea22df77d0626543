// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/plugin.h"

namespace Zhaoxi::Sched {

// Spreads one service's inference replicas: fewer replicas of the same service on the host score higher, so a lost host or card takes down as few replicas as possible. Neutral (100) for other jobs.
class ReplicaSpreadScore final : public ScorePlugin
{
public:
    const char *name() const override { return "ReplicaSpread"; }
    double score(const CycleContext &ctx, const HostState &host, CardMask feasible) const override;
};

} // namespace Zhaoxi::Sched
