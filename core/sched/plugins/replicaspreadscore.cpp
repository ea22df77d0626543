// SPDX-License-Identifier: GPL-3.0-or-later
#include "replicaspreadscore.h"

namespace Zhaoxi::Sched {

double ReplicaSpreadScore::score(const CycleContext &ctx, const HostState &host, CardMask) const
{
    if (!ctx.spec->inference || ctx.spec->inference->service.isEmpty())
        return 100;
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
    return 100.0 / (1 + replicas);
}

} // namespace Zhaoxi::Sched
