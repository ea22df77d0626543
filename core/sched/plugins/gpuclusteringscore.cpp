// SPDX-License-Identifier: GPL-3.0-or-later
#include "gpuclusteringscore.h"

#include "hostview.h"

namespace Zhaoxi::Sched {

using Domain::ComputeDemand;

quint64 GpuClusteringScore::labelOf(const Domain::WorkloadSpec &spec)
{
    const int g = spec.demand.cards;
    if (g <= 0)
        return 0;
    const ComputeDemand &d = spec.demand.compute;
    const bool share = g == 1 && d.kind == ComputeDemand::Kind::Fraction && d.milli < 1000;
    if (share)
        return 1;
    return quint64(1) << std::min(g, 63);
}

quint64 GpuClusteringScore::labelsOf(const ClusterState &state, const HostState &host) const
{
    if (&state != m_state || m_labels.size() != size_t(state.hosts().size())) {
        m_state = &state;
        m_labels.assign(size_t(state.hosts().size()), Labels{});
    }
    Labels &l = m_labels[size_t(host.id.value())];
    if (l.stamp == host.version + 1)
        return l.mask;
    quint64 mask = 0;
    for (int i = 0; i < host.cardCount; ++i) {
        for (const Unit &u : state.cards()[host.firstCard + i].units) {
            if (u.job.isValid())
                mask |= labelOf(state.job(u.job).spec);
        }
    }
    l.stamp = host.version + 1;
    l.mask = mask;
    return mask;
}

double GpuClusteringScore::score(const CycleContext &ctx, const HostState &host, CardMask) const
{
    const quint64 label = labelOf(*ctx.spec);
    if (label == 0)
        return 0;
    const HostView v(*ctx.state, host);
    const int base = (25 * (8000 - v.totalFree)) / 8000;
    const quint64 labels = labelsOf(*ctx.state, host);
    if (labels == label)
        return base + 75;
    if (labels & label)
        return base + 50;
    if (labels == 0)
        return base + 25;
    return base;
}

} // namespace Zhaoxi::Sched
