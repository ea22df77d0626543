// SPDX-License-Identifier: GPL-3.0-or-later
#include "serieshistory.h"

#include "core/sched/clusterstate.h"
#include "core/storage/store.h"

#include <QJsonObject>
#include <QJsonValue>

#include <QMap>
#include <QThread>

#include <cmath>
#include <memory>
#include <optional>

namespace Zhaoxi::Models {

namespace {

using Storage::Metric;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr qint64 kMinuteMs = Storage::kTierBucketMs[int(Storage::Tier::Minute)];

// The chart metric a stored card series is drawn as, and the factor its values take.
std::optional<std::pair<SeriesMetric, double>> cardMetric(Metric m)
{
    switch (m) {
    case Metric::GpuUtil:
        return std::pair{SeriesMetric::Utilisation, 1.0};
    case Metric::MemoryUsedMiB:
        return std::pair{SeriesMetric::MemoryUsed, 1.0};
    case Metric::TemperatureC:
        return std::pair{SeriesMetric::Temperature, 1.0};
    case Metric::PowerW:
        return std::pair{SeriesMetric::Power, 1.0};
    default:
        return std::nullopt;
    }
}

std::optional<std::pair<SeriesMetric, double>> partitionMetric(Metric m)
{
    switch (m) {
    case Metric::MemoryUsedMiB:
        return std::pair{SeriesMetric::MemoryUsed, 1.0};
    case Metric::GrEngineActive:
        return std::pair{SeriesMetric::Utilisation, 100.0};
    default:
        return std::nullopt;
    }
}

// The stored points of `key` within [from, to]: the minutes rolled up (at each minute's middle),
// then the raw samples after the last of them.
bool readPoints(Storage::Reader &reader,
                const Storage::SeriesKey &key,
                qint64 fromMs,
                qint64 toMs,
                QMap<qint64, double> *out,
                QString *error)
{
    QString err;
    const QList<Storage::MetricPoint> minutes
            = reader.series(key, Storage::Tier::Minute, fromMs - kMinuteMs, toMs + 1, &err);
    if (!err.isEmpty()) {
        *error = err;
        return false;
    }
    qint64 rawFrom = fromMs;
    for (const Storage::MetricPoint &p : minutes) {
        const qint64 mid = p.atMs + kMinuteMs / 2;
        if (mid >= fromMs && mid <= toMs)
            out->insert(mid, p.value);
        rawFrom = std::max(rawFrom, p.atMs + kMinuteMs);
    }
    const QList<Storage::MetricPoint> raw
            = reader.series(key, Storage::Tier::Raw, rawFrom, toMs + 1, &err);
    if (!err.isEmpty()) {
        *error = err;
        return false;
    }
    for (const Storage::MetricPoint &p : raw)
        out->insert(p.atMs, p.value);
    return true;
}

HistorySeries toHistory(SeriesSubject subject,
                        int id,
                        const QString &name,
                        SeriesMetric metric,
                        const QMap<qint64, double> &points,
                        double factor = 1.0)
{
    HistorySeries h;
    h.info.key = SeriesStore::key(subject, id, name, metric);
    h.info.subject = subject;
    h.info.metric = metric;
    h.info.id = id;
    h.info.name = name;
    h.points.reserve(points.size());
    for (auto it = points.cbegin(); it != points.cend(); ++it)
        h.points.append(SeriesPoint{double(it.key()) / 1000.0, it.value() * factor});
    return h;
}

} // namespace

bool readSeriesHistory(Storage::Reader &reader,
                       qint64 fromMs,
                       qint64 toMs,
                       const QHash<int, int> &wholeUnits,
                       QList<HistorySeries> *out,
                       QString *error)
{
    QString err;
    const QList<Storage::LatestMetric> all = reader.latestMetrics(&err);
    if (!err.isEmpty()) {
        *error = err;
        return false;
    }
    // Per card and metric, the points read (the appliance's series are made from them).
    QMap<int, QMap<Metric, QMap<qint64, double>>> cards;
    for (const Storage::LatestMetric &m : all) {
        const Storage::SeriesKey &k = m.key;
        if (k.card < 0 || k.job >= 0 || !k.service.isEmpty() || m.point.atMs < fromMs - kMinuteMs)
            continue; // not a card's, or nothing in the range
        const bool partition = k.partition >= 0;
        const auto chart = partition ? partitionMetric(k.metric) : cardMetric(k.metric);
        if (!chart && !(!partition && k.metric == Metric::MemoryFreeMiB))
            continue;
        QMap<qint64, double> points;
        if (!readPoints(reader, k, fromMs, toMs, &points, error))
            return false;
        if (points.isEmpty())
            continue;
        if (partition) {
            out->append(toHistory(SeriesSubject::Partition,
                                  k.card,
                                  QString::number(k.partition),
                                  chart->first,
                                  points,
                                  chart->second));
            continue;
        }
        cards[k.card][k.metric] = points;
    }

    // The cards' own series, a whole card's unit, and the appliance's over the cards recorded at
    // each moment (a lost card has no readings, as in the live snapshots).
    struct Moment
    {
        int cards = 0, utilCards = 0;
        double util = 0, mem = 0, memTotal = 0, power = 0, temperature = kNaN;
    };
    QMap<qint64, Moment> moments;
    for (auto c = cards.cbegin(); c != cards.cend(); ++c) {
        const QMap<Metric, QMap<qint64, double>> &series = c.value();
        for (auto s = series.cbegin(); s != series.cend(); ++s) {
            const auto chart = cardMetric(s.key());
            if (!chart)
                continue;
            out->append(toHistory(SeriesSubject::Card, c.key(), {}, chart->first, s.value()));
            if (const auto uid = wholeUnits.constFind(c.key());
                uid != wholeUnits.cend()
                && (s.key() == Metric::GpuUtil || s.key() == Metric::MemoryUsedMiB))
                out->append(toHistory(SeriesSubject::Partition,
                                      c.key(),
                                      QString::number(*uid),
                                      chart->first,
                                      s.value()));
        }
        const QMap<qint64, double> used = series.value(Metric::MemoryUsedMiB);
        const QMap<qint64, double> free = series.value(Metric::MemoryFreeMiB);
        QMap<qint64, double> percent;
        for (auto u = used.cbegin(); u != used.cend(); ++u) {
            const auto f = free.constFind(u.key());
            if (f != free.cend() && u.value() + f.value() > 0)
                percent.insert(u.key(), 100.0 * u.value() / (u.value() + f.value()));
        }
        if (!percent.isEmpty())
            out->append(toHistory(
                    SeriesSubject::Card, c.key(), {}, SeriesMetric::MemoryPercent, percent));

        // A moment counts a card once, by its memory reading (every recorded card has one).
        for (auto u = used.cbegin(); u != used.cend(); ++u) {
            Moment &m = moments[u.key()];
            ++m.cards;
            m.mem += u.value();
            if (const auto f = free.constFind(u.key()); f != free.cend())
                m.memTotal += u.value() + f.value();
            const auto util = series.value(Metric::GpuUtil).constFind(u.key());
            if (util != series.value(Metric::GpuUtil).cend() && !std::isnan(*util)) {
                m.util += *util;
                ++m.utilCards;
            }
            const double power = series.value(Metric::PowerW).value(u.key(), kNaN);
            if (!std::isnan(power))
                m.power += power;
            const double temperature = series.value(Metric::TemperatureC).value(u.key(), kNaN);
            if (!std::isnan(temperature)
                && (std::isnan(m.temperature) || temperature > m.temperature))
                m.temperature = temperature;
        }
    }
    QMap<qint64, double> util, mem, memPct, temperature, power;
    for (auto m = moments.cbegin(); m != moments.cend(); ++m) {
        util.insert(m.key(), m->utilCards > 0 ? m->util / m->utilCards : kNaN);
        mem.insert(m.key(), m->mem);
        memPct.insert(m.key(), m->memTotal > 0 ? 100.0 * m->mem / m->memTotal : kNaN);
        temperature.insert(m.key(), m->temperature);
        power.insert(m.key(), m->power);
    }
    if (!mem.isEmpty()) {
        const SeriesSubject appliance = SeriesSubject::Appliance;
        out->append(toHistory(appliance, -1, {}, SeriesMetric::Utilisation, util));
        out->append(toHistory(appliance, -1, {}, SeriesMetric::MemoryUsed, mem));
        out->append(toHistory(appliance, -1, {}, SeriesMetric::MemoryPercent, memPct));
        out->append(toHistory(appliance, -1, {}, SeriesMetric::Temperature, temperature));
        out->append(toHistory(appliance, -1, {}, SeriesMetric::Power, power));
    }
    return true;
}

QHash<int, int> wholeUnitsOf(const Sched::ClusterState &state)
{
    QHash<int, int> out;
    for (const Sched::CardState &c : state.cards()) {
        if (c.mode == Domain::PartitionMode::Whole && c.units.size() == 1)
            out.insert(c.id.value(), c.units.first().uid);
    }
    return out;
}

namespace {

constexpr std::pair<SeriesSubject, const char *> kSubjects[] = {
        {SeriesSubject::Card, "card"},
        {SeriesSubject::Partition, "partition"},
        {SeriesSubject::Appliance, "appliance"},
        {SeriesSubject::Service, "service"},
        {SeriesSubject::Job, "job"},
};

constexpr SeriesMetric kMetrics[] = {SeriesMetric::P50,
                                     SeriesMetric::P99,
                                     SeriesMetric::Rate,
                                     SeriesMetric::Slo,
                                     SeriesMetric::Speed,
                                     SeriesMetric::Loss,
                                     SeriesMetric::Utilisation,
                                     SeriesMetric::TrainingUtil,
                                     SeriesMetric::InferenceUtil,
                                     SeriesMetric::MemoryUsed,
                                     SeriesMetric::MemoryPercent,
                                     SeriesMetric::Temperature,
                                     SeriesMetric::Power};

} // namespace

QJsonArray historyJson(const QList<HistorySeries> &history)
{
    QJsonArray out;
    for (const HistorySeries &h : history) {
        QJsonArray times, values;
        for (const SeriesPoint &p : h.points) {
            times.append(qint64(std::llround(p.t * 1000.0)));
            values.append(std::isfinite(p.value) ? QJsonValue(p.value) : QJsonValue());
        }
        const char *subject = "card";
        for (const auto &[s, name] : kSubjects) {
            if (s == h.info.subject)
                subject = name;
        }
        out.append(QJsonObject{{QStringLiteral("key"), h.info.key},
                               {QStringLiteral("subject"), QLatin1String(subject)},
                               {QStringLiteral("metric"), SeriesStore::metricName(h.info.metric)},
                               {QStringLiteral("id"), h.info.id},
                               {QStringLiteral("name"), h.info.name},
                               {QStringLiteral("t_ms"), times},
                               {QStringLiteral("values"), values}});
    }
    return out;
}

bool historyFromJson(const QJsonArray &json, QList<HistorySeries> *out, QString *error)
{
    QList<HistorySeries> read;
    for (qsizetype i = 0; i < json.size(); ++i) {
        const QJsonObject o = json.at(i).toObject();
        auto fail = [&](const QString &what) {
            *error = QStringLiteral("series[%1]: %2").arg(i).arg(what);
            return false;
        };
        if (!json.at(i).isObject())
            return fail(QStringLiteral("expected an object"));
        HistorySeries h;
        const QString subject = o.value(QStringLiteral("subject")).toString();
        bool known = false;
        for (const auto &[s, name] : kSubjects) {
            if (subject == QLatin1String(name)) {
                h.info.subject = s;
                known = true;
            }
        }
        if (!known)
            return fail(QStringLiteral("unknown subject \"%1\"").arg(subject));
        const QString metric = o.value(QStringLiteral("metric")).toString();
        known = false;
        for (SeriesMetric m : kMetrics) {
            if (metric == SeriesStore::metricName(m)) {
                h.info.metric = m;
                known = true;
            }
        }
        if (!known)
            return fail(QStringLiteral("unknown metric \"%1\"").arg(metric));
        if (!o.value(QStringLiteral("id")).isDouble())
            return fail(QStringLiteral("\"id\" must be a number"));
        h.info.id = o.value(QStringLiteral("id")).toInt();
        h.info.name = o.value(QStringLiteral("name")).toString();
        h.info.key = SeriesStore::key(h.info.subject, h.info.id, h.info.name, h.info.metric);
        const QJsonArray times = o.value(QStringLiteral("t_ms")).toArray();
        const QJsonArray values = o.value(QStringLiteral("values")).toArray();
        if (times.size() != values.size())
            return fail(QStringLiteral("\"t_ms\" and \"values\" differ in length"));
        h.points.reserve(times.size());
        for (qsizetype k = 0; k < times.size(); ++k) {
            if (!times.at(k).isDouble() || !(values.at(k).isDouble() || values.at(k).isNull()))
                return fail(QStringLiteral("point %1 is not a time and a number").arg(k));
            const double t = double(times.at(k).toInteger()) / 1000.0;
            if (!h.points.isEmpty() && !(t > h.points.last().t))
                return fail(QStringLiteral("point %1 is not after the one before it").arg(k));
            h.points.append(SeriesPoint{t, values.at(k).isNull() ? kNaN : values.at(k).toDouble()});
        }
        read.append(std::move(h));
    }
    *out = std::move(read);
    return true;
}

SeriesHistoryLoader::SeriesHistoryLoader(QObject *parent)
    : QObject(parent)
{}

SeriesHistoryLoader::~SeriesHistoryLoader()
{
    if (m_thread) {
        m_thread->wait();
        delete m_thread;
    }
}

void SeriesHistoryLoader::load(const QString &path,
                               qint64 fromMs,
                               qint64 toMs,
                               const QHash<int, int> &wholeUnits)
{
    m_waiting.append(Request{path, fromMs, toMs, wholeUnits});
    if (!m_thread)
        startNext();
}

void SeriesHistoryLoader::startNext()
{
    if (m_waiting.isEmpty())
        return;
    const Request request = m_waiting.takeFirst();
    struct Result
    {
        QList<HistorySeries> history;
        QString error;
    };
    auto result = std::make_shared<Result>();
    m_thread = QThread::create([request, result] {
        std::unique_ptr<Storage::Reader> reader = Storage::Reader::open(
                request.path, Storage::Reader::OpenMode::RequireCurrent, &result->error);
        if (!reader) {
            if (result->error.isEmpty())
                result->error = QStringLiteral("cannot open %1").arg(request.path);
            return;
        }
        if (!readSeriesHistory(*reader,
                               request.fromMs,
                               request.toMs,
                               request.wholeUnits,
                               &result->history,
                               &result->error)) {
            result->history.clear();
            result->error = QStringLiteral("%1: %2").arg(request.path, result->error);
        }
    });
    connect(m_thread, &QThread::finished, this, [this, result] {
        QThread *t = std::exchange(m_thread, nullptr);
        t->deleteLater();
        Q_EMIT loaded(result->history, result->error);
        startNext();
    });
    m_thread->start();
}

} // namespace Zhaoxi::Models
