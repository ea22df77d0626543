// SPDX-License-Identifier: GPL-3.0-or-later
#include "forecast.h"

#include <QHash>

#include <algorithm>
#include <cmath>

namespace Zhaoxi::Policy {

namespace {
constexpr qint64 kDayMs = 24 * 3600'000LL;
constexpr qint64 kWeekMs = 7 * kDayMs;

qint64 mod(qint64 a, qint64 b)
{
    const qint64 r = a % b;
    return r < 0 ? r + b : r;
}

// Monday 0 .. Sunday 6.
int dayOfWeek(qint64 localWeekMs)
{
    return int(mod(localWeekMs, kWeekMs) / kDayMs);
}

// The days of `days` that `take` accepts, their mean per bucket (days weighted alike), in order:
// over every day this is the same sum, in the same order, as before weekdays counted.
template<typename Take>
QList<double> meanShape(const QList<HistoryDay> &days, int buckets, Take take)
{
    QList<double> shape(buckets, 0.0);
    int n = 0;
    for (const HistoryDay &day : days) {
        if (day.rates.size() != buckets || !take(day))
            continue;
        for (int b = 0; b < buckets; ++b)
            shape[b] += day.rates[b];
        ++n;
    }
    for (double &v : shape)
        v = n > 0 ? v / n : 0;
    return shape;
}
} // namespace

// Defined here, beside its only reader: history()'s days taken as the days just before nowMs's.
HistoryDays PolicyContext::historyDays(int service, qint64 nowMs) const
{
    HistoryDays h;
    const QList<QList<double>> days = history(service);
    const int today = dayOfWeek(localWeekMs(nowMs));
    for (int i = 0; i < days.size(); ++i) {
        const qint64 back = days.size() - i;
        h.days.append(HistoryDay{int(mod(today - back, 7)) + 1, days[i]});
    }
    return h;
}

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
    m_today = dayOfWeek(ctx.localWeekMs(nowMs));
    m_learned.clear();
    for (const ServiceView &s : views) {
        Learned l;
        const HistoryDays h = ctx.historyDays(s.index, nowMs);
        auto full = [&](auto take) {
            int n = 0;
            for (const HistoryDay &d : h.days)
                n += d.rates.size() == buckets && take(d) ? 1 : 0;
            return n;
        };
        QHash<QString, int> shapeFrom; // source -> index in l.shapes
        for (int w = 0; w < 7; ++w) {
            const int weekday = w + 1;
            const bool weekend = weekday >= 6;
            auto same = [weekday](const HistoryDay &d) { return d.weekday == weekday; };
            auto sameClass = [weekend](const HistoryDay &d) {
                return d.weekday >= 1 && d.weekday <= 7 && (d.weekday >= 6) == weekend;
            };
            auto any = [](const HistoryDay &) { return true; };
            QString source = QStringLiteral("all");
            if (h.byWeekday && full(same) >= 2)
                source = QString::number(weekday);
            else if (h.byWeekday && full(sameClass) >= 2)
                source = weekend ? QStringLiteral("weekend") : QStringLiteral("weekdays");
            int index = shapeFrom.value(source, -1);
            if (index < 0) {
                index = int(l.shapes.size());
                shapeFrom.insert(source, index);
                if (source == QLatin1String("all"))
                    l.shapes.append(meanShape(h.days, buckets, any));
                else if (source.size() == 1)
                    l.shapes.append(meanShape(h.days, buckets, same));
                else
                    l.shapes.append(meanShape(h.days, buckets, sameClass));
            }
            l.shapeOf[w] = index;
            l.sourceOf[w] = source;
        }
        m_learned.append(l);
    }
    LoadGuard::start(ctx, nowMs);
}

QString Forecast::shapeSource(int service, int weekday) const
{
    if (service < 0 || service >= m_learned.size() || weekday < 1 || weekday > 7)
        return {};
    return m_learned[service].sourceOf[weekday - 1];
}

double Forecast::shapeAt(int service, qint64 localWeekMs) const
{
    const Learned &l = m_learned[service];
    if (l.shapes.isEmpty())
        return 0;
    // Linear between bucket middles; past the day's last one, toward the next day's first.
    const qint64 t = mod(localWeekMs - m_bucketMs / 2, kWeekMs);
    const int day = int(t / kDayMs);
    const qint64 inDay = t % kDayMs;
    const QList<double> &shape = shapeOn(l, day);
    const int b = int(inDay / m_bucketMs);
    const double f = double(inDay % m_bucketMs) / double(m_bucketMs);
    const double next = b + 1 < shape.size() ? shape[b + 1] : shapeOn(l, (day + 1) % 7).first();
    return shape[b] + (next - shape[b]) * f;
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
    for (double v : shapeOn(l, m_today))
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
    const int day = dayOfWeek(local);
    m_today = day;
    for (const ServiceView &s : views) {
        if (s.index >= m_learned.size())
            continue;
        Learned &l = m_learned[s.index];
        if (l.bucket != bucket || l.bucketDay != day) {
            if (l.bucket >= 0 && nowMs > l.bucketStartMs) {
                const double observed = double(s.arrivals - l.arrivalsAtBucketStart) * 1000.0
                                        / double(nowMs - l.bucketStartMs);
                QList<double> &shape = l.shapes[l.shapeOf[l.bucketDay]];
                shape[l.bucket]
                        = (1 - m_learningRate) * shape[l.bucket] + m_learningRate * observed;
            }
            l.bucket = bucket;
            l.bucketDay = day;
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
