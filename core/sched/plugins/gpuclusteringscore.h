// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/plugin.h"

#include <vector>

namespace Zhaoxi::Sched {

// FGD protocol 4.3, "GpuClustering": keeps jobs of one kind together. A card job's label is
// "share" (a fraction of one card) or "g cards"; a host's label set is the labels of the card
// jobs it runs. base = (25 (8000 - totalFree)) div 8000; score = base + 75 when the host runs
// only this label, + 50 when it runs this label among others, + 25 when it runs no card job,
// + 0 otherwise. CPU-only jobs score 0 everywhere. Cards: best fit.
class GpuClusteringScore final : public ScorePlugin
{
public:
    const char *name() const override { return "GpuClustering"; }
    bool hostLocal() const override { return true; }
    double score(const CycleContext &ctx, const HostState &host, CardMask feasible) const override;

    // Label bit of a job: bit 0 for a share, bit g for a g-card whole-card job; 0 for CPU-only.
    static quint64 labelOf(const Domain::WorkloadSpec &spec);

private:
    quint64 labelsOf(const ClusterState &state, const HostState &host) const;
    struct Labels
    {
        quint64 stamp = 0;
        quint64 mask = 0;
    };
    mutable const ClusterState *m_state = nullptr;
    mutable std::vector<Labels> m_labels; // per host, valid for one host version
};

} // namespace Zhaoxi::Sched
