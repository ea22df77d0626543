// SPDX-License-Identifier: GPL-3.0-or-later
#include "loadguard.h"

#include "queueing.h"

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
    m_riskAfterMs = r.duration(QStringLiteral("riskAfter"), m_riskAfterMs, 0, 24 * 3600'000LL);
    m_defragment = r.boolean(QStringLiteral("defragment"), m_defragment);
    m_calibrationTauMs
            = r.duration(QStringLiteral("calibrationTau"), m_calibrationTauMs, 0, 24 * 3600'000LL);
    m_recoveryGrowth = r.number(QStringLiteral("recoveryGrowth"), m_recoveryGrowth, 0, 100);
    return r.ok();
}

double LoadGuard::plannedRate(PolicyContext &, const ServiceView &s, qint64)
{
    return s.observedRate;
}

void LoadGuard::start(PolicyContext &ctx, qint64 nowMs)
{
    m_state.assign(std::size_t(ctx.services(nowMs).size()), ServiceState{});
    m_leavingForRoom.clear();
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
        // How far the queueing estimate is off for this service: the window's p99 against the
        // estimate for the replicas serving and the load seen, smoothed over calibrationTau.
        if (m_calibrationTauMs > 0 && s.serving > 0 && s.windowRequests >= 100) {
            const double model = latencyQuantileMs(s.serving,
                                                   s.observedRate / 1000.0,
                                                   std::max(s.serviceMs, s.currentServiceMs),
                                                   s.cv,
                                                   0.99);
            if (std::isfinite(model) && model > 0) {
                const double ratio = std::clamp(s.windowP99Ms / model, 0.5, 3.0);
                const double w = st.calibratedAtMs < 0
                                         ? 0.0
                                         : std::min(1.0,
                                                    double(nowMs - st.calibratedAtMs)
                                                            / double(m_calibrationTauMs));
                st.modelError += w * (ratio - st.modelError);
                st.calibratedAtMs = nowMs;
            }
        }
        st.peakRps = std::max(st.peakRps, s.observedRate);
        int desired = replicasForRate(
                s, plannedRate(ctx, s, nowMs), m_common, st.modelError, peakRate(s, st.peakRps));
        const bool judged = s.windowRequests >= m_minWindowRequests;
        const double p99 = judged ? s.windowP99Ms : 0;
        const bool depth = s.queueDepth > m_depthPerReplica * std::max(1, s.serving);
        // Past the SLO itself, the window's tail counts only when it is more than counting noise:
        // a window at its p99 target has 1 % of its requests past the SLO, give or take
        // sqrt(1 %) of them (a low-rate service's window holds a handful of tail requests).
        const double tail = 0.01 * double(s.windowRequests);
        const bool tailOver = judged && double(s.windowOverSlo) > tail + 2 * std::sqrt(tail) + 1;
        const bool pressure
                = (p99 > m_pressureP99 * s.sloMs && (m_pressureP99 < 1 || tailOver)) || depth;
        // The SLO is at risk (act at once) when the window p99 is past it and the queue backs
        // up, or when it stays past it longer than riskAfter. A burst of slow requests keeps a
        // window's p99 high for as long as the window lasts while the replicas have long caught
        // up: that is pressure, not a reason to throw training off mid-checkpoint.
        const bool over = p99 > m_riskP99 * s.sloMs && (m_riskP99 > 1 || tailOver);
        if (!over)
            st.overSinceMs = -1;
        else if (st.overSinceMs < 0)
            st.overSinceMs = nowMs;
        risk[std::size_t(s.index)] = over && (depth || nowMs - st.overSinceMs >= m_riskAfterMs);
        if (pressure) {
            // Grow from what serves: replicas already asked for and still starting (placing,
            // loading) count towards the step, so a window p99 that lags behind them does not
            // add more on every tick.
            const double step = risk[std::size_t(s.index)] ? 2 * m_stepUp : m_stepUp;
            desired = std::max(
                    {desired, s.serving + std::max(1, int(std::ceil(s.serving * step))), s.target});
            Device::ApplianceEvent e;
            e.atMs = nowMs;
            e.code = Device::ApplianceEventCode::GuardPressure;
            e.reason
                    = risk[std::size_t(s.index)] ? ActionReason::SloAtRisk : ActionReason::Pressure;
            e.service = s.index;
            e.queueDepth = s.queueDepth;
            e.p99Us = qint64(p99 * 1000);
            ctx.record(e);
        }
        // Replicas lost with their card: the ones left may not carry the load until the
        // replacements serve, and the queue that builds meanwhile is what misses the SLO (it
        // keeps missing after they serve, until it has drained). So besides the replacements,
        // replicas for recoveryGrowth times the shortfall come at once too: the backlog then
        // drains in about that share of the time it took to build (their loading overlaps the
        // replacements'). They go again after `hold`, as any replica does.
        st.recoveryExtra = 0;
        const int lost = std::max(0, std::min(st.placedBefore, s.target) - (s.target - s.pending));
        if (lost > 0 && m_recoveryGrowth > 0) {
            const double serviceS = std::max(s.serviceMs, s.currentServiceMs) / 1000.0;
            const double shortfall = s.observedRate - double(s.serving) / serviceS;
            if (shortfall > 0) {
                st.recoveryExtra = int(std::ceil(m_recoveryGrowth * shortfall * serviceS));
                desired = std::max(desired, s.target + st.recoveryExtra);
            }
        }
        desired = std::clamp(desired, s.minReplicas, s.maxReplicas);
        st.recoveryExtra = std::clamp(desired - s.target, 0, st.recoveryExtra);
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
                e.service = s.index;
                e.replicas = desired;
                ctx.record(e);
                st.belowSinceMs = nowMs; // the next step down waits another hold
            } else if (!pressure && s.pending > 0 && nowMs - st.belowSinceMs >= m_common.periodMs) {
                // Replicas still waiting for room serve nobody: once two looks in a row need
                // fewer, those not needed go without the hold (which is for serving replicas), and
                // the drains that were making room for them are called off (keepUnneededDrains).
                n = std::max(desired, s.target - s.pending);
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
    keepUnneededDrains(ctx, nowMs, b.trainingMilli);

    // Replicas that still wait need room: training leaves at its checkpoint, by the deadline. At
    // once only for the replicas without which those placed cannot meet the SLO at the load seen
    // now (a card lost with replicas on it), and for one when the SLO is at risk and none is on
    // its way yet: a replica is what relieves a backed-up queue, the rest of the step can wait.
    views = ctx.services(nowMs);
    const QList<JobId> leavingBefore = leavingTraining(ctx, nowMs);
    for (const ServiceView &s : views) {
        if (s.pending <= 0)
            continue;
        const int placed = s.target - s.pending;
        const int least = std::min(s.maxReplicas,
                                   replicasFor(s.observedRate / 1000.0,
                                               std::max(s.serviceMs, s.currentServiceMs),
                                               s.cv,
                                               s.sloMs,
                                               0.99,
                                               1.0,
                                               s.maxReplicas));
        const bool atRisk = risk[std::size_t(s.index)] || s.serving == 0;
        const bool coming = placed > s.serving; // placed and still loading
        // Replicas that were placed at the last look and are waiting again were lost with
        // their card: they served the load, so they come back at once.
        ServiceState &st = m_state[std::size_t(s.index)];
        const int lost = std::max(0, std::min(st.placedBefore, s.target) - placed);
        const int urgent = std::clamp(
                std::max({least - placed, lost + st.recoveryExtra, atRisk && !coming ? 1 : 0}),
                0,
                s.pending);
        if (urgent > 0)
            makeRoomForService(ctx, nowMs, s.index, urgent, false, nowMs, ActionReason::SloAtRisk);
        if (s.pending > urgent)
            makeRoomForService(ctx,
                               nowMs,
                               s.index,
                               s.pending,
                               m_drain,
                               roomDeadlineMs(nowMs),
                               ActionReason::Pressure);
    }
    for (JobId j : leavingTraining(ctx, nowMs)) {
        if (!leavingBefore.contains(j) && !m_leavingForRoom.contains(j))
            m_leavingForRoom.append(j);
    }
    for (const ServiceView &s : ctx.services(nowMs))
        m_state[std::size_t(s.index)].placedBefore = s.target - s.pending;
    consolidateTraining(ctx, nowMs, nowMs + m_drainDeadlineMs, &m_consolidation);
    if (m_defragment)
        defragmentInference(ctx, nowMs, &m_defrag);
    return nowMs + m_common.periodMs;
}

QList<JobId> LoadGuard::leavingTraining(PolicyContext &ctx, qint64 nowMs)
{
    QList<JobId> out;
    const Sched::ClusterState &st = ctx.scheduler().state();
    for (const TrainingView &t : ctx.training(nowMs)) {
        if (t.state == Sched::JobState::Preempting && !st.job(t.job).preemptedBy.isValid())
            out.append(t.job);
    }
    return out;
}

void LoadGuard::keepUnneededDrains(PolicyContext &ctx, qint64 nowMs, qint64 trainingBudgetMilli)
{
    if (m_leavingForRoom.isEmpty())
        return;
    const QList<JobId> leaving = leavingTraining(ctx, nowMs);
    m_leavingForRoom.removeIf([&](JobId j) { return !leaving.contains(j); });
    const QList<ServiceView> services = ctx.services(nowMs);
    if (std::any_of(services.begin(), services.end(), [](const ServiceView &s) {
            return s.pending > 0;
        }))
        return; // the room is still wanted
    // What the training class keeps: those staying, then each one kept, within the budget.
    const QList<TrainingView> views = ctx.training(nowMs);
    qint64 staying = 0;
    for (const TrainingView &t : views) {
        if (!leaving.contains(t.job))
            staying += t.milli;
    }
    for (const TrainingView &t : views) {
        if (!m_leavingForRoom.contains(t.job) || staying + t.milli > trainingBudgetMilli)
            continue;
        if (ctx.keepTraining(t.job, nowMs, ActionReason::LoadFell)) {
            staying += t.milli;
            m_leavingForRoom.removeAll(t.job);
        }
    }
}

} // namespace Zhaoxi::Policy
