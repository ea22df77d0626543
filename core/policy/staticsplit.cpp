// SPDX-License-Identifier: GPL-3.0-or-later
#include "staticsplit.h"

#include <cmath>

namespace Zhaoxi::Policy {

std::unique_ptr<Policy> StaticSplit::create(const QJsonObject &params, PolicyError *error)
{
    auto p = std::make_unique<StaticSplit>();
    ParamReader r(params, QString(), error);
    p->m_share = r.number(QStringLiteral("inferenceShare"), 0.4, 0, 1);
    p->m_common.read(r);
    if (!r.finish())
        return nullptr;
    return p;
}

void StaticSplit::start(PolicyContext &ctx, qint64 nowMs)
{
    tick(ctx, nowMs);
}

qint64 StaticSplit::tick(PolicyContext &ctx, qint64 nowMs)
{
    const qint64 total = ctx.totalMilli();
    Sched::ClassBudget b;
    b.inferenceMilli = qint64(std::llround(m_share * double(total)));
    b.trainingMilli = total - b.inferenceMilli;
    ctx.setBudget(b, nowMs, ActionReason::StaticShare);
    m_qos.apply(ctx, nowMs, m_common.trainingBandwidthShare, m_common.trainingPowerCapW);

    // Replicas for the observed load, cut back (largest first) to what the share holds.
    const QList<ServiceView> views = ctx.services(nowMs);
    QList<int> want;
    qint64 need = 0;
    for (const ServiceView &s : views) {
        want.append(replicasForRate(s, s.observedRate, m_common));
        need += inferenceMilli(s, want.last());
    }
    while (need > b.inferenceMilli) {
        int cut = -1;
        for (int i = 0; i < views.size(); ++i) {
            if (want[i] > views[i].minReplicas
                && (cut < 0 || views[i].unitMilli * want[i] > views[cut].unitMilli * want[cut]))
                cut = i;
        }
        if (cut < 0)
            break;
        --want[cut];
        need -= views[cut].unitMilli;
    }
    for (int i = 0; i < views.size(); ++i)
        ctx.setReplicas(i, want[i], nowMs, ActionReason::StaticShare);
    // The share is inference's: replicas that wait for room within it get it (at checkpoints).
    makeRoomForReplicas(ctx,
                        nowMs,
                        b.inferenceMilli,
                        false,
                        nowMs + m_common.periodMs * 20,
                        ActionReason::StaticShare);
    consolidateTraining(ctx, nowMs, nowMs + 10 * 60'000, &m_consolidation);
    return nowMs + m_common.periodMs;
}

} // namespace Zhaoxi::Policy
