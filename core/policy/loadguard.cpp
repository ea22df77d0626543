// SPDX-License-Identifier: GPL-3.0-or-later
#include "loadguard.h"

#include <algorithm>
#include <cmath>

namespace Zhaoxi::Policy {

std::unique_ptr<Policy> LoadGuard::create(const QJsonObject &params, PolicyError *error)
{
    auto p = std::make_unique<LoadGuard>();
    ParamReader r(params, QString(), error);
    if (!p->readGuard(r) || !r.finish())
        return nullptr;
    return p;
}

bool LoadGuard::readGuard(ParamReader &r)
{
    m_common.read(r);
    m_pressureP99 = r.number(QStringLiteral("pressureP99"), m_pressureP99, 0.05, 10);
    m_riskP99 = r.number(QStringLiteral("riskP99"), m_riskP99, 0.05, 10);
    m_releaseP99 = r.number(QStringLiteral("releaseP99"), m_releaseP99, 0, 10);
    m_depthPerReplica = r.number(QStringLiteral("depthPerReplica"), m_depthPerReplica, 0.1, 1e6);
    m_holdMs = r.duration(QStringLiteral("hold"), m_holdMs, 0, 24 * 3600'000LL);
    m_stepUp = r.number(QStringLiteral("stepUp"), m_stepUp, 0, 10);
    m_headroomMilli = qint64(r.number(QStringLiteral("headroomMilli"), 0, 0, 1e9));
    m_drain = r.string(QStringLiteral("mode"),
                       QStringLiteral("drain"),
                       {QStringLiteral("drain"), QStringLiteral("immediate")})
              == QLatin1String("drain");
    m_drainDeadlineMs
            = r.duration(QStringLiteral("drainDeadline"), m_drainDeadlineMs, 0, 24 * 3600'000LL);
    m_minWindowRequests = qint64(r.number(QStringLiteral("minWindowRequests"), 20, 0, 1e9));
    return r.ok();
}

double LoadGuard::plannedRate(PolicyContext &, const ServiceView &s, qint64)
{
    return s.observedRate;
}

void LoadGuard::start(PolicyContext &ctx, qint64 nowMs)
{
    m_state.assign(std::size_t(ctx.services(nowMs).size()), ServiceState{});
    tick(ctx, nowMs);
}

qint64 LoadGuard::tick(PolicyContext &ctx, qint64 nowMs)
{
    m_qos.apply(ctx, nowMs, m_common.trainingBandwidthShare, m_common.trainingPowerCapW);
    QList<ServiceView> views = ctx.services(nowMs);
    if (m_state.size() != std::size_t(views.size()))
        m_state.resize(std::size_t(views.size()));
    qint64 need = 0;
    std::vector<bool> risk(std::size_t(views.size()), false);
    for (const ServiceView &s : views) {
        ServiceState &st = m_state[std::size_t(s.index)];
        int desired = replicasForRate(s, plannedRate(ctx, s, nowMs), m_common);
        const bool judged = s.windowRequests >= m_minWindowRequests;
        const double p99 = judged ? s.windowP99Ms : 0;
        const bool depth = s.queueDepth > m_depthPerReplica * std::max(1, s.serving);
        const bool pressure = p99 > m_pressureP99 * s.sloMs || depth;
        risk[std::size_t(s.index)] = p99 > m_riskP99 * s.sloMs;
        if (pressure) {
            desired = std::max(
                    desired,
                    s.target
                            + std::max(1,
                                       int(std::ceil(s.target
                                                     * (risk[std::size_t(s.index)] ? 2 * m_stepUp
                                                                                   : m_stepUp)))));
            Device::ApplianceEvent e;
            e.atMs = nowMs;
            e.code = Device::ApplianceEventCode::GuardPressure;
            e.reason
                    = risk[std::size_t(s.index)] ? ActionReason::SloAtRisk : ActionReason::Pressure;
            e.a = s.index;
            e.b = s.queueDepth;
            e.value = qint64(p99 * 1000);
            ctx.record(e);
        }
        desired = std::clamp(desired, s.minReplicas, s.maxReplicas);
        int n = desired;
        if (desired >= s.target) {
            st.belowSinceMs = -1;
        } else {
            if (st.belowSinceMs < 0)
                st.belowSinceMs = nowMs;
            if (nowMs - st.belowSinceMs >= m_holdMs && p99 <= m_releaseP99 * s.sloMs) {
                Device::ApplianceEvent e;
                e.atMs = nowMs;
                e.code = Device::ApplianceEventCode::GuardRelease;
                e.reason = ActionReason::LoadFell;
                e.a = s.index;
                e.value = desired;
                ctx.record(e);
                st.belowSinceMs = nowMs; // the next step down waits another hold
            } else {
                n = s.target;
            }
        }
        const ActionReason why = pressure ? (risk[std::size_t(s.index)] ? ActionReason::SloAtRisk
                                                                        : ActionReason::Pressure)
                                 : n < s.target ? ActionReason::LoadFell
                                                : ActionReason::LoadRose;
        ctx.setReplicas(s.index, n, nowMs, why);
        need += inferenceMilli(s, n);
    }
    Sched::ClassBudget b;
    b.trainingMilli = std::max<qint64>(0, ctx.totalMilli() - need - m_headroomMilli);
    ctx.setBudget(b, nowMs, ActionReason::Pressure);

    // Replicas that still wait need room: training leaves at its checkpoint, or at once when the
    // SLO is at risk.
    views = ctx.services(nowMs);
    for (const ServiceView &s : views) {
        if (s.pending <= 0)
            continue;
        const bool atRisk = risk[std::size_t(s.index)] || s.serving == 0;
        makeRoomForService(ctx,
                           nowMs,
                           s.index,
                           s.pending,
                           m_drain && !atRisk,
                           roomDeadlineMs(nowMs),
                           atRisk ? ActionReason::SloAtRisk : ActionReason::Pressure);
    }
    consolidateTraining(ctx, nowMs, nowMs + m_drainDeadlineMs);
    return nowMs + m_common.periodMs;
}

} // namespace Zhaoxi::Policy
