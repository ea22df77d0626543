// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/plugin.h"

#include <QHash>

#include <vector>

namespace Zhaoxi::Sched {

// Spreads one service's inference replicas: fewer replicas of the same service on the host score
// higher, so a lost host or card takes down as few replicas as possible. Neutral (100) for other
// jobs. Replica counts are memoised per service and host, keyed on HostState::version.
class ReplicaSpreadScore final : public ScorePlugin
{
public:
    const char *name() const override { return "ReplicaSpread"; }
    bool hostLocal() const override { return true; }
    double score(const CycleContext &ctx, const HostState &host, CardMask feasible) const override;
    void beginCycle(const CycleContext &ctx) const override;

private:
    struct Count
    {
        quint64 version = 0;
        int replicas = 0;
    };
    mutable QHash<QString, std::vector<Count>> m_counts;
    mutable std::vector<Count> *m_current = nullptr; // the counts of this cycle's service
};

} // namespace Zhaoxi::Sched
