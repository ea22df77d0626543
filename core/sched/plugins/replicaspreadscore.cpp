// SPDX-License-Identifier: GPL-3.0-or-later
#include "replicaspreadscore.h"

namespace Zhaoxi::Sched {

void ReplicaSpreadScore::beginCycle(const CycleContext &ctx) const
{
    m_current = nullptr;
    if (!ctx.spec->inference || ctx.spec->inference->service.isEmpty())
        return;
    // Bounded: forget every service's counts rather than grow without limit.
    if (m_counts.size() > 4096)
        m_counts.clear();
    std::vector<Count> &v = m_counts[ctx.spec->inference->service];
    if (v.size() < size_t(ctx.state->hosts().size()))
        v.resize(size_t(ctx.state->hosts().size()));
    m_current = &v;
}

double ReplicaSpreadScore::score(const CycleContext &ctx, const HostState &host, CardMask) const
{
    if (!m_current)
        return 100;
    Count &c = (*m_current)[size_t(host.id.value())];
    if (c.version != host.version) {
        const QString &service = ctx.spec->inference->service;
        int replicas = 0;
        for (int i = 0; i < host.cardCount; ++i) {
            for (const Unit &u : ctx.card(host, i).units) {
                if (!u.job.isValid() || u.job == ctx.job->id)
                    continue;
                const WorkloadSpec &other = ctx.state->job(u.job).spec;
                replicas += other.inference && other.inference->service == service;
            }
        }
        c = {host.version, replicas};
    }
    return 100.0 / (1 + c.replicas);
}

} // namespace Zhaoxi::Sched
