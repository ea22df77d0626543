// SPDX-License-Identifier: GPL-3.0-or-later
#include "storehistory.h"

#include "core/sim/scenario.h"
#include "core/storage/recorder.h"
#include "core/storage/store.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace Zhaoxi::Replay {

namespace {
constexpr qint64 kDayMs = 24 * 3600'000LL;

qint64 floorDiv(qint64 a, qint64 b)
{
    return a / b - ((a % b != 0 && (a < 0) != (b < 0)) ? 1 : 0);
}

// Per bucket of [fromMs, fromMs + n * bucketMs): the sum of value × count and the count, each
// bucket from the tier with the most samples in it (finer first on a tie). A raw bucket and its
// roll-ups hold the same samples until retention drops the finer ones, so the fullest tier is
// the one that still covers the bucket.
struct Buckets
{
    QList<double> sum;
    QList<qint64> count;
};

bool readBuckets(Storage::Reader &reader,
                 const Storage::SeriesKey &key,
                 qint64 fromMs,
                 qint64 bucketMs,
                 int n,
                 Buckets *out,
                 QString *error,
                 qint64 readFromMs = std::numeric_limits<qint64>::min(),
                 qint64 readToMs = std::numeric_limits<qint64>::max())
{
    out->sum = QList<double>(n, 0.0);
    out->count = QList<qint64>(n, 0);
    const qint64 toMs = std::min(fromMs + n * bucketMs, readToMs);
    const qint64 readFrom = std::max(fromMs, readFromMs);
    for (const Storage::Tier tier :
         {Storage::Tier::Raw, Storage::Tier::Minute, Storage::Tier::QuarterHour}) {
        QString err;
        const QList<Storage::MetricPoint> points = reader.series(key, tier, readFrom, toMs, &err);
        if (!err.isEmpty()) {
            if (error)
                *error = err;
            return false;
        }
        QList<double> sum(n, 0.0);
        QList<qint64> count(n, 0);
        for (const Storage::MetricPoint &p : points) {
            const qint64 b = (p.atMs - fromMs) / bucketMs;
            if (b < 0 || b >= n || p.count <= 0)
                continue;
            sum[b] += p.value * double(p.count);
            count[b] += p.count;
        }
        for (int b = 0; b < n; ++b) {
            if (count[b] > out->count[b]) {
                out->sum[b] = sum[b];
                out->count[b] = count[b];
            }
        }
    }
    return true;
}

// Empty buckets (NaN) from their nearest neighbours: linear between two, flat past the ends.
void fillGaps(QList<double> &day)
{
    const int n = int(day.size());
    int prev = -1;
    for (int b = 0; b < n; ++b) {
        if (std::isnan(day[b]))
            continue;
        if (prev < 0) {
            for (int i = 0; i < b; ++i)
                day[i] = day[b];
        } else {
            for (int i = prev + 1; i < b; ++i)
                day[i] = day[prev] + (day[b] - day[prev]) * double(i - prev) / double(b - prev);
        }
        prev = b;
    }
    if (prev >= 0)
        for (int i = prev + 1; i < n; ++i)
            day[i] = day[prev];
}

QString serviceName(const Sim::ServiceDef &def)
{
    return def.spec.inference ? def.spec.inference->service : def.spec.name;
}
} // namespace

const char *toString(HistoryShortfall shortfall)
{
    switch (shortfall) {
    case HistoryShortfall::None:
        return "none";
    case HistoryShortfall::NoSamples:
        return "no-samples";
    case HistoryShortfall::TooFewDays:
        return "too-few-days";
    case HistoryShortfall::ReadFailed:
        return "read-failed";
    }
    return "none";
}

QList<int> StoreHistory::weekdays() const
{
    QList<int> r;
    for (const Policy::HistoryDay &d : days)
        if (!d.rates.isEmpty())
            r.append(d.weekday);
    return r;
}

StoreHistory learnHistory(Storage::Reader &reader,
                          const QString &service,
                          qint64 nowMs,
                          qint64 utcOffsetMs,
                          int days,
                          qint64 bucketMs,
                          int minDays)
{
    StoreHistory h;
    h.minDays = minDays;
    bucketMs = std::max<qint64>(60'000, bucketMs);
    const int perDay = int(kDayMs / bucketMs);
    const qint64 today = floorDiv(nowMs + utcOffsetMs, kDayMs);  // local days since the epoch
    const qint64 fromMs = (today - days) * kDayMs - utcOffsetMs; // UTC of the first midnight
    Buckets b;
    const Storage::SeriesKey key{Storage::Metric::RequestRate, -1, -1, service, -1};
    if (days <= 0 || !readBuckets(reader, key, fromMs, bucketMs, days * perDay, &b, &h.error)) {
        h.shortfall = days <= 0 ? HistoryShortfall::NoSamples : HistoryShortfall::ReadFailed;
        return h;
    }
    bool any = false;
    for (int d = 0; d < days; ++d) {
        const qint64 localDay = today - days + d;
        Policy::HistoryDay day;
        day.weekday = int(((localDay + 3) % 7 + 7) % 7) + 1; // the epoch was a Thursday
        QList<double> rates(perDay, std::nan(""));
        int covered = 0;
        for (int i = 0; i < perDay; ++i) {
            const int at = d * perDay + i;
            if (b.count[at] > 0) {
                rates[i] = b.sum[at] / double(b.count[at]);
                ++covered;
            }
        }
        any |= covered > 0;
        if (covered > 0 && double(covered) >= kMinDayCoverage * perDay) {
            fillGaps(rates);
            day.rates = rates;
            ++h.counted;
        } else if (covered > 0) {
            ++h.partial;
        }
        h.days.append(day);
    }
    h.shortfall = h.counted >= minDays && h.counted > 0
                          ? HistoryShortfall::None
                          : (any ? HistoryShortfall::TooFewDays : HistoryShortfall::NoSamples);
    return h;
}

QMap<qint64, ServiceTime> learnServiceTimes(Storage::Reader &reader,
                                            const QString &service,
                                            qint64 fromMs,
                                            qint64 toMs,
                                            int minSamples,
                                            QString *error)
{
    QMap<qint64, ServiceTime> r;
    if (toMs <= fromMs)
        return r;
    // The unit sizes the store holds for the service: one series each.
    QString err;
    const QList<Storage::LatestMetric> latest = reader.latestMetrics(&err);
    if (!err.isEmpty()) {
        if (error)
            *error = err;
        return r;
    }
    // Quarter hours from the one holding fromMs, so that a rolled-up point falls in one bucket;
    // the reads themselves keep to [fromMs, toMs).
    const qint64 gridFrom = floorDiv(fromMs, kQuarterHourMs) * kQuarterHourMs;
    const int n = int(floorDiv(toMs - gridFrom + kQuarterHourMs - 1, kQuarterHourMs));
    for (const Storage::LatestMetric &m : latest) {
        if (m.key.metric != Storage::Metric::ServiceTimeMs || m.key.service != service
            || m.key.partition <= 0)
            continue;
        const Storage::SeriesKey &key = m.key;
        Buckets b;
        if (!readBuckets(reader, key, gridFrom, kQuarterHourMs, n, &b, error, fromMs, toMs))
            return {};
        double sum = 0;
        qint64 count = 0;
        for (int i = 0; i < n; ++i) {
            sum += b.sum[i];
            count += b.count[i];
        }
        if (count >= minSamples && count > 0)
            r.insert(qint64(key.partition), ServiceTime{sum / double(count), count});
    }
    return r;
}

QList<LearnEvent> learnScenario(Storage::Reader &reader,
                                Sim::Scenario &scenario,
                                qint64 nowMs,
                                const LearnOptions &options)
{
    struct Found
    {
        QString name;
        StoreHistory history;
        std::optional<std::pair<qint64, ServiceTime>> time;
    };
    QList<Found> found;
    bool past = false;
    const qint64 today = floorDiv(nowMs + scenario.utcOffsetMs, kDayMs);
    const qint64 fromMs = (today - options.days) * kDayMs - scenario.utcOffsetMs;
    for (int i = 0; i < scenario.services.size(); ++i) {
        const Sim::ServiceDef &def = scenario.services[i];
        Found f;
        f.name = serviceName(def);
        f.history = learnHistory(reader,
                                 f.name,
                                 nowMs,
                                 scenario.utcOffsetMs,
                                 options.days,
                                 kQuarterHourMs,
                                 options.minDays);
        const qint64 unit = Sim::replicaUnit(scenario, def).unitMilli;
        const QMap<qint64, ServiceTime> times
                = learnServiceTimes(reader, f.name, fromMs, nowMs, options.minSamples);
        if (times.contains(unit))
            f.time = std::make_pair(unit, times.value(unit));
        past |= f.history.shortfall != HistoryShortfall::NoSamples || f.time.has_value();
        found.append(f);
    }
    QList<LearnEvent> events;
    if (!past)
        return events;
    for (int i = 0; i < found.size(); ++i) {
        const Found &f = found[i];
        Sim::ServiceDef &def = scenario.services[i];
        Sim::LearnedService learned = scenario.learned.value(f.name);
        if (f.history.enough()) {
            learned.days = f.history.days;
            QJsonArray weekdays;
            for (int w : f.history.weekdays())
                weekdays.append(w);
            events.append({"forecast-history-learned",
                           Storage::Severity::Info,
                           {{QStringLiteral("service"), f.name},
                            {QStringLiteral("days"), f.history.counted},
                            {QStringLiteral("weekdays"), weekdays}}});
        } else {
            events.append({"forecast-history-short",
                           Storage::Severity::Warning,
                           {{QStringLiteral("service"), f.name},
                            {QStringLiteral("days"), f.history.counted},
                            {QStringLiteral("needed"), f.history.minDays},
                            {QStringLiteral("partial"), f.history.partial},
                            {QStringLiteral("reason"),
                             QString::fromLatin1(toString(f.history.shortfall))}}});
        }
        if (f.time) {
            // The unit is unitRef reference cards: a request takes unitRef times as long on
            // it as on a whole reference card.
            const double unitRef = Sim::replicaUnit(scenario, def).unitRef;
            learned.unitMilli = f.time->first;
            learned.unitMs = f.time->second.ms;
            learned.samples = f.time->second.samples;
            learned.serviceMs = f.time->second.ms * unitRef;
            def.serviceMs = learned.serviceMs;
            events.append({"service-time-learned",
                           Storage::Severity::Info,
                           {{QStringLiteral("service"), f.name},
                            {QStringLiteral("unitMilli"), double(f.time->first)},
                            {QStringLiteral("ms"), f.time->second.ms},
                            {QStringLiteral("refMs"), learned.serviceMs},
                            {QStringLiteral("samples"), double(f.time->second.samples)}}});
        }
        if (!learned.days.isEmpty() || learned.serviceMs >= 0)
            scenario.learned.insert(f.name, learned);
    }
    return events;
}

void recordLearnEvents(Storage::Recorder &recorder, qint64 atMs, const QList<LearnEvent> &events)
{
    for (const LearnEvent &e : events)
        recorder.recordPolicy(atMs, e.code, e.severity, e.params);
}

} // namespace Zhaoxi::Replay
