// SPDX-License-Identifier: GPL-3.0-or-later
#include "seriesstore.h"

#include "serieshistory.h"
#include "sessionclient.h"

#include "core/storage/exporter.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <utility>

namespace Zhaoxi::Models {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Trimmed points stay in place until they are this many and half the list: compaction then
// costs one move per point kept, amortised over the points dropped.
constexpr qsizetype kCompactAfter = 4096;

std::optional<MarkerKind> markerKind(const QByteArray &code)
{
    if (code == "window-opened")
        return MarkerKind::Window;
    if (code == "partition-created" || code == "partition-destroyed" || code == "card-mode-changed")
        return MarkerKind::Repartition;
    if (code == "job-preempting" || code == "job-evicted" || code == "training-requeued")
        return MarkerKind::Preemption;
    if (code == "card-failed" || code == "fault-card-lost" || code == "fault-memory-error"
        || code == "fault-thermal-throttle")
        return MarkerKind::Fault;
    return std::nullopt;
}

} // namespace

qsizetype TimeSeries::lowerBound(double t) const
{
    const auto begin = m_points.cbegin() + m_head;
    const auto it = std::lower_bound(
            begin, m_points.cend(), t, [](const SeriesPoint &p, double v) { return p.t < v; });
    return it - begin;
}

bool TimeSeries::append(double t, double value)
{
    if (!m_points.isEmpty() && !(t > m_points.last().t))
        return false;
    if (size() == 0 && m_head > 0) { // everything was trimmed: start the list afresh
        m_points.clear();
        m_head = 0;
    }
    m_points.append(SeriesPoint{t, value});
    ++m_appended;
    return true;
}

void TimeSeries::trimBefore(double t)
{
    const qsizetype n = lowerBound(t);
    if (n == 0)
        return;
    m_head += n;
    if (m_head >= kCompactAfter && m_head * 2 >= m_points.size()) {
        m_points.remove(0, m_head);
        m_head = 0;
    }
}

SeriesStore::SeriesStore(QObject *parent)
    : QObject(parent)
{}

SeriesStore::~SeriesStore()
{
    qDeleteAll(m_series);
}

QString SeriesStore::metricName(SeriesMetric metric)
{
    switch (metric) {
    case SeriesMetric::P50:
        return QStringLiteral("p50");
    case SeriesMetric::P99:
        return QStringLiteral("p99");
    case SeriesMetric::Rate:
        return QStringLiteral("rate");
    case SeriesMetric::Slo:
        return QStringLiteral("slo");
    case SeriesMetric::Speed:
        return QStringLiteral("speed");
    case SeriesMetric::Loss:
        return QStringLiteral("loss");
    case SeriesMetric::Utilisation:
        return QStringLiteral("util");
    case SeriesMetric::TrainingUtil:
        return QStringLiteral("util-training");
    case SeriesMetric::InferenceUtil:
        return QStringLiteral("util-inference");
    case SeriesMetric::MemoryUsed:
        return QStringLiteral("mem");
    case SeriesMetric::MemoryPercent:
        return QStringLiteral("mem-pct");
    case SeriesMetric::Temperature:
        return QStringLiteral("temp");
    case SeriesMetric::Power:
        return QStringLiteral("power");
    }
    return QStringLiteral("unknown");
}

QString SeriesStore::key(SeriesSubject subject, int id, const QString &name, SeriesMetric metric)
{
    switch (subject) {
    case SeriesSubject::Service:
        return QStringLiteral("svc/") + name + QLatin1Char('/') + metricName(metric);
    case SeriesSubject::Job:
        return QStringLiteral("job/") + QString::number(id) + QLatin1Char('/') + metricName(metric);
    case SeriesSubject::Card:
        return QStringLiteral("card/") + QString::number(id) + QLatin1Char('/')
               + metricName(metric);
    case SeriesSubject::Partition:
        return QStringLiteral("part/") + QString::number(id) + QLatin1Char('/') + name
               + QLatin1Char('/') + metricName(metric);
    case SeriesSubject::Appliance:
        break;
    }
    return QStringLiteral("all/") + metricName(metric);
}

QString SeriesStore::serviceKey(const QString &service, SeriesMetric metric)
{
    return key(SeriesSubject::Service, -1, service, metric);
}

QString SeriesStore::partitionKey(Domain::CardId card, int uid, SeriesMetric metric)
{
    return key(SeriesSubject::Partition, card.value(), QString::number(uid), metric);
}

QString SeriesStore::jobKey(Domain::JobId job, SeriesMetric metric)
{
    return key(SeriesSubject::Job, job.value(), QString(), metric);
}

QString SeriesStore::cardKey(Domain::CardId card, SeriesMetric metric)
{
    return key(SeriesSubject::Card, card.value(), QString(), metric);
}

QString SeriesStore::applianceKey(SeriesMetric metric)
{
    return key(SeriesSubject::Appliance, -1, QString(), metric);
}

void SeriesStore::follow(SessionClient *client)
{
    disconnect(m_following);
    m_following = {};
    if (!client)
        return;
    m_following = connect(client,
                          &SessionClient::snapshotChanged,
                          this,
                          qOverload<const Session::SnapshotPtr &>(&SeriesStore::append));
    append(client->snapshot());
}

void SeriesStore::setHorizonSeconds(double seconds)
{
    m_horizon = seconds;
    trim();
}

TimeSeries *SeriesStore::ensure(const SeriesInfo &info)
{
    TimeSeries *&s = m_series[info.key];
    if (!s) {
        s = new TimeSeries(info);
        m_order.append(info.key);
        m_pendingAdded.append(info.key);
    }
    return s;
}

bool SeriesStore::appendPoint(const SeriesInfo &info, double t, double value)
{
    const bool ok = ensure(info)->append(t, value);
    if (ok && !(t <= m_latest))
        m_latest = t;
    return ok;
}

void SeriesStore::notifyAppended()
{
    trim();
    const QStringList added = std::exchange(m_pendingAdded, {});
    for (const QString &k : added)
        Q_EMIT seriesAdded(k);
    Q_EMIT appended();
}

void SeriesStore::add(SeriesSubject subject,
                      int id,
                      const QString &name,
                      SeriesMetric metric,
                      double t,
                      double value)
{
    SeriesInfo info;
    info.key = key(subject, id, name, metric);
    info.subject = subject;
    info.metric = metric;
    info.id = id;
    info.name = name;
    appendPoint(info, t, value);
}

void SeriesStore::append(const Session::SnapshotPtr &snapshot)
{
    if (snapshot)
        append(*snapshot);
}

void SeriesStore::append(const Session::Snapshot &snap)
{
    const double t = double(snap.nowMs) / 1000.0;
    if (t < m_latest) // an earlier time than we have: another session (or its day restarted)
        clear();
    m_utcOffset = snap.utcOffsetSeconds;
    addMarkers(snap);
    if (t <= m_latest) { // the same moment again (a speed change, a pause): events only
        notifyAppended();
        return;
    }

    using S = SeriesSubject;
    using M = SeriesMetric;
    for (const Session::ServiceSample &s : snap.services) {
        add(S::Service, s.index, s.name, M::P99, t, s.p99Ms);
        add(S::Service, s.index, s.name, M::P50, t, s.p50Ms);
        add(S::Service, s.index, s.name, M::Slo, t, s.sloMs);
        add(S::Service, s.index, s.name, M::Rate, t, s.ratePerS);
    }
    for (const Session::TrainingSample &j : snap.training) {
        add(S::Job, j.job.value(), j.name, M::Speed, t, j.speed);
        add(S::Job, j.job.value(), j.name, M::Loss, t, j.loss);
    }

    // The appliance: the mean over the cards that answer, the hottest card, the total power.
    double util = 0, training = 0, inference = 0, temperature = kNaN, power = 0;
    int utilCards = 0, cards = 0;
    double memUsed = 0;
    qint64 memTotal = 0;
    for (const Session::CardSample &c : snap.cards) {
        const int id = c.card;
        if (c.lost) { // a gap in every series of the card
            for (M m : {M::Utilisation,
                        M::TrainingUtil,
                        M::InferenceUtil,
                        M::MemoryUsed,
                        M::MemoryPercent,
                        M::Temperature,
                        M::Power})
                add(S::Card, id, QString(), m, t, kNaN);
            for (const Session::UnitSample &u : c.units) {
                const QString uid = QString::number(u.uid);
                add(S::Partition, id, uid, M::Utilisation, t, kNaN);
                add(S::Partition, id, uid, M::MemoryUsed, t, kNaN);
            }
            continue;
        }
        // Each partition: its utilisation (a gap where the hardware cannot say) and memory.
        for (const Session::UnitSample &u : c.units) {
            const QString uid = QString::number(u.uid);
            add(S::Partition, id, uid, M::Utilisation, t, 100.0 * u.utilisation);
            add(S::Partition,
                id,
                uid,
                M::MemoryUsed,
                t,
                u.memoryUsedMiB < 0 ? kNaN : double(u.memoryUsedMiB));
        }
        // Memory use -1: not reported (a fleet's Slurm): a gap, like a NaN reading.
        const double memUsedMiB = c.memoryUsedMiB < 0 ? kNaN : double(c.memoryUsedMiB);
        const double memPct
                = c.memoryTotalMiB > 0 ? 100.0 * memUsedMiB / double(c.memoryTotalMiB) : kNaN;
        add(S::Card, id, QString(), M::Utilisation, t, 100.0 * c.utilisation);
        add(S::Card, id, QString(), M::TrainingUtil, t, 100.0 * c.trainingUtilisation);
        add(S::Card, id, QString(), M::InferenceUtil, t, 100.0 * c.inferenceUtilisation);
        add(S::Card, id, QString(), M::MemoryUsed, t, memUsedMiB);
        add(S::Card, id, QString(), M::MemoryPercent, t, memPct);
        add(S::Card, id, QString(), M::Temperature, t, c.temperatureC);
        add(S::Card, id, QString(), M::Power, t, c.powerW);
        ++cards;
        if (!std::isnan(c.utilisation)) {
            util += c.utilisation;
            ++utilCards;
        }
        training += c.trainingUtilisation;
        inference += c.inferenceUtilisation;
        memUsed += memUsedMiB;
        memTotal += c.memoryTotalMiB;
        if (std::isnan(temperature) || c.temperatureC > temperature)
            temperature = c.temperatureC;
        power += c.powerW;
    }
    if (!snap.cards.isEmpty()) {
        add(S::Appliance,
            -1,
            QString(),
            M::Utilisation,
            t,
            utilCards > 0 ? 100.0 * util / utilCards : kNaN);
        add(S::Appliance,
            -1,
            QString(),
            M::TrainingUtil,
            t,
            cards > 0 ? 100.0 * training / cards : kNaN);
        add(S::Appliance,
            -1,
            QString(),
            M::InferenceUtil,
            t,
            cards > 0 ? 100.0 * inference / cards : kNaN);
        add(S::Appliance, -1, QString(), M::MemoryUsed, t, memUsed);
        add(S::Appliance,
            -1,
            QString(),
            M::MemoryPercent,
            t,
            memTotal > 0 ? 100.0 * memUsed / double(memTotal) : kNaN);
        add(S::Appliance, -1, QString(), M::Temperature, t, temperature);
        add(S::Appliance, -1, QString(), M::Power, t, cards > 0 ? power : kNaN);
    }
    m_latest = t;
    notifyAppended();
}

void SeriesStore::addMarkers(const Session::Snapshot &snap)
{
    for (const Storage::Event &e : snap.events) {
        const std::optional<MarkerKind> kind = markerKind(e.code);
        if (!kind)
            continue;
        // A victim's eviction follows its choice after the grace or checkpoint wait (minutes):
        // one preemption, one marker, at the choice.
        if (e.code == "job-preempting" || e.code == "training-requeued") {
            m_preempting.insert(e.job);
        } else if (e.code == "job-evicted" && m_preempting.remove(e.job)) {
            continue;
        }
        const double t = double(e.atMs) / 1000.0;
        // Merge into the latest marker of its kind when that is close enough.
        EventMarker *into = nullptr;
        for (qsizetype i = m_markers.size() - 1; i >= 0; --i) {
            EventMarker &m = m_markers[i];
            if (t - m.t > m_markerMerge)
                break;
            if (m.kind == *kind && *kind != MarkerKind::Window) {
                into = &m;
                break;
            }
        }
        if (into) {
            ++into->count;
            if (into->card != e.card)
                into->card = -1;
            if (into->job != e.job)
                into->job = -1;
            continue;
        }
        EventMarker m;
        m.t = t;
        m.kind = *kind;
        m.code = e.code;
        m.card = e.card;
        m.job = e.job;
        if (*kind == MarkerKind::Window) {
            bool ok = false;
            const int window = Storage::eventParam(e, QLatin1StringView("windowIndex")).toInt(&ok);
            m.window = ok ? window : -1;
            m.windowName = snap.window;
        }
        // Events come in time order within a snapshot and snapshots in order; keep the list
        // sorted even if one does not.
        auto at = std::upper_bound(m_markers.begin(),
                                   m_markers.end(),
                                   t,
                                   [](double v, const EventMarker &x) { return v < x.t; });
        m_markers.insert(at, m);
        ++m_markerSequence;
    }
}

void SeriesStore::trim()
{
    if (std::isnan(m_latest))
        return;
    const double cutoff = m_latest - m_horizon;
    for (TimeSeries *s : std::as_const(m_series))
        s->trimBefore(cutoff);
    qsizetype n = 0;
    while (n < m_markers.size() && m_markers[n].t < cutoff)
        ++n;
    if (n > 0)
        m_markers.remove(0, n);
}

void SeriesStore::clear()
{
    qDeleteAll(m_series);
    m_series.clear();
    m_order.clear();
    m_markers.clear();
    m_preempting.clear();
    m_pendingAdded.clear();
    m_latest = kNaN;
    Q_EMIT cleared();
}

qsizetype SeriesStore::mergeHistory(const QList<HistorySeries> &history)
{
    qsizetype taken = 0;
    const double cutoff = std::isnan(m_latest) ? std::numeric_limits<double>::infinity() : m_latest;
    for (const HistorySeries &h : history) {
        TimeSeries *old = m_series.value(h.info.key);
        const double before = old && !old->isEmpty() ? std::min(old->first().t, cutoff) : cutoff;
        auto merged = std::make_unique<TimeSeries>(old ? old->info() : h.info);
        for (const SeriesPoint &p : h.points) {
            if (p.t >= before)
                break;
            if (merged->append(p.t, p.value))
                ++taken;
        }
        if (merged->isEmpty())
            continue;
        if (old) {
            for (qsizetype i = 0; i < old->size(); ++i)
                merged->append(old->at(i).t, old->at(i).value);
            delete old;
            m_series[h.info.key] = merged.release();
        } else {
            ensure(h.info);
            delete m_series[h.info.key];
            m_series[h.info.key] = merged.release();
        }
    }
    trim();
    const QStringList added = std::exchange(m_pendingAdded, {});
    for (const QString &k : added)
        Q_EMIT seriesAdded(k);
    if (taken > 0)
        Q_EMIT rebuilt();
    return taken;
}

QStringList SeriesStore::keys(QStringView prefix) const
{
    QStringList out;
    for (const QString &k : m_order) {
        if (k.startsWith(prefix))
            out.append(k);
    }
    return out;
}

const TimeSeries *SeriesStore::series(const QString &key) const
{
    return m_series.value(key);
}

SeriesStats SeriesStore::stats(const QString &key, double from, double to) const
{
    const TimeSeries *s = series(key);
    return s ? stats(*s, from, to) : SeriesStats{};
}

SeriesStats SeriesStore::stats(const TimeSeries &s, double from, double to)
{
    SeriesStats out;
    double sum = 0, max = -std::numeric_limits<double>::infinity();
    double min = std::numeric_limits<double>::infinity();
    const qsizetype n = s.size();
    for (qsizetype i = s.lowerBound(from); i < n; ++i) {
        const SeriesPoint &p = s.at(i);
        if (p.t > to)
            break;
        if (std::isnan(p.value))
            continue;
        sum += p.value;
        max = std::max(max, p.value);
        min = std::min(min, p.value);
        out.last = p.value;
        ++out.count;
    }
    if (out.count > 0) {
        out.mean = sum / double(out.count);
        out.max = max;
        out.min = min;
    }
    return out;
}

} // namespace Zhaoxi::Models
