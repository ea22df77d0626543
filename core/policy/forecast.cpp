// SPDX-License-Identifier: GPL-3.0-or-later
#include "forecast.h"

#include <algorithm>
#include <cmath>

namespace Zhaoxi::Policy {

namespace {
constexpr qint64 kDayMs = 24 * 3600'000LL;

qint64 mod(qint64 a, qint64 b)
{
    const qint64 r = a % b;
    return r < 0 ? r + b : r;
}
} // namespace

std::unique_ptr<Policy> Forecast::create(const QJsonObject &params, PolicyError *error)
{
    auto p = std::make_unique<Forecast>();
    ParamReader r(params, QString(), error);
    p->m_leadMs = r.duration(QStringLiteral("lead"), p->m_leadMs, 0, 12 * 3600'000LL);
    p->m_learningRate = r.number(QStringLiteral("learningRate"), p->m_learningRate, 0, 1);
    p->m_levelMin = r.number(QStringLiteral("levelMin"), p->m_levelMin, 0, 10);
    p->m_levelMax = r.number(QStringLiteral("levelMax"), p->m_levelMax, 0, 10);
    p->m_levelTauMs = r.duration(QStringLiteral("levelTau"), p->m_levelTauMs, 0, 24 * 3600'000LL);
    if (r.ok() && p->m_levelMin > p->m_levelMax)
        r.fail(QStringLiteral("levelMin"), QStringLiteral("must not exceed levelMax"));
    if (!p->readGuard(r) || !r.finish())
        return nullptr;
    return p;
}

void Forecast::start(PolicyContext &ctx, qint64 nowMs)
{
    m_bucketMs = std::max<qint64>(60'000, ctx.historyBucketMs());
    const int buckets = int(kDayMs / m_bucketMs);
    const QList<ServiceView> views = ctx.services(nowMs);
    m_learned.clear();
    for (const ServiceView &s : views) {
        Learned l;
        l.shape = QList<double>(buckets, 0.0);
        // The history's mean per bucket, days weighted alike.
        const QList<QList<double>> days = ctx.history(s.index);
        int n = 0;
        for (const QList<double> &day : days) {
            if (day.size() != buckets)
                continue;
            for (int b = 0; b < buckets; ++b)
                l.shape[b] += day[b];
            ++n;
        }
        for (double &v : l.shape)
            v = n > 0 ? v / n : 0;
        m_learned.append(l);
    }
    LoadGuard::start(ctx, nowMs);
}

double Forecast::shapeAt(int service, qint64 localWeekMs) const
{
    const Learned &l = m_learned[service];
    if (l.shape.isEmpty())
        return 0;
    // Linear between bucket middles.
    const qint64 t = mod(localWeekMs - m_bucketMs / 2, kDayMs);
    const int b = int(t / m_bucketMs);
    const double f = double(t % m_bucketMs) / double(m_bucketMs);
    return l.shape[b] + (l.shape[(b + 1) % l.shape.size()] - l.shape[b]) * f;
}

double Forecast::forecastMax(int service, qint64 fromLocalMs, qint64 toLocalMs, double level) const
{
    double m = 0;
    const qint64 step = std::max<qint64>(60'000, m_bucketMs / 3);
    for (qint64 t = fromLocalMs;; t += step) {
        const qint64 at = std::min(t, toLocalMs);
        m = std::max(m, shapeAt(service, at));
        if (at >= toLocalMs)
            break;
    }
    return m * level;
}

double Forecast::peakRate(const ServiceView &s, double seenRps) const
{
    if (s.index >= m_learned.size())
        return seenRps;
    const Learned &l = m_learned[s.index];
    double peak = 0;
    for (double v : l.shape)
        peak = std::max(peak, v);
    return std::max(seenRps, peak * l.level);
}

double Forecast::plannedRate(PolicyContext &ctx, const ServiceView &s, qint64 nowMs)
{
    if (s.index >= m_learned.size())
        return s.observedRate;
    const Learned &l = m_learned[s.index];
    const qint64 local = ctx.localWeekMs(nowMs);
    const double ahead = forecastMax(s.index, local, local + m_leadMs, l.level);
    if (ahead > s.observedRate * 1.05) {
        Device::ApplianceEvent e;
        e.atMs = nowMs;
        e.code = Device::ApplianceEventCode::ForecastRamp;
        e.reason = ActionReason::ForecastRamp;
        e.service = s.index;
        e.forecastMilliRps = qint64(std::llround(ahead * 1000));
        ctx.record(e);
    }
    // What the window saw counts beyond the forecast only past its counting noise (a window of
    // n requests measures the rate to about rate / sqrt(n)): a low-rate service's window is
    // noisy, and taking the larger of two noisy figures would size for the noise.
    const double noise = s.observedRate / std::sqrt(double(std::max<qint64>(1, s.windowRequests)));
    return std::max(s.observedRate - 2 * noise, ahead);
}

qint64 Forecast::tick(PolicyContext &ctx, qint64 nowMs)
{
    // Learn: close the buckets that ended, and update today's level against the shape.
    const QList<ServiceView> views = ctx.services(nowMs);
    const qint64 local = ctx.localWeekMs(nowMs);
    const int bucket = int(mod(local, kDayMs) / m_bucketMs);
    for (const ServiceView &s : views) {
        if (s.index >= m_learned.size())
            continue;
        Learned &l = m_learned[s.index];
        if (l.bucket != bucket) {
            if (l.bucket >= 0 && nowMs > l.bucketStartMs) {
                const double observed = double(s.arrivals - l.arrivalsAtBucketStart) * 1000.0
                                        / double(nowMs - l.bucketStartMs);
                l.shape[l.bucket]
                        = (1 - m_learningRate) * l.shape[l.bucket] + m_learningRate * observed;
            }
            l.bucket = bucket;
            l.arrivalsAtBucketStart = s.arrivals;
            l.bucketStartMs = nowMs;
        }
        const double expected = shapeAt(s.index, local);
        if (expected > 0 && s.windowRequests >= 50) {
            // Smoothed over levelTau: one window's ratio carries its counting noise.
            const double ratio = std::clamp(s.observedRate / expected, m_levelMin, m_levelMax);
            const double weight
                    = l.levelAtMs < 0 || m_levelTauMs <= 0
                              ? 1.0
                              : std::min(1.0, double(nowMs - l.levelAtMs) / double(m_levelTauMs));
            l.level += weight * (ratio - l.level);
            l.levelAtMs = nowMs;
        }
    }
    return LoadGuard::tick(ctx, nowMs);
}

} // namespace Zhaoxi::Policy
