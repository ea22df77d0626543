// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/domain/ids.h"
#include "core/session/snapshot.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>

#include <limits>

namespace Zhaoxi::Models {

class SessionClient;
struct HistorySeries;

// One reading of a series: `t` in seconds since the UTC epoch (fractions allowed), `value` in the
// series' unit. A NaN value is a gap ("not available"), never a zero.
struct SeriesPoint
{
    double t = 0;
    double value = 0;
};

// What a series measures; with its subject (a service, a job, a card or the whole appliance)
// it makes the series' key.
enum class SeriesMetric {
    P50,           // ms, the service's p50 latency over the policies' window
    P99,           // ms
    Rate,          // requests per second
    Slo,           // ms, the service's p99 objective
    Speed,         // reference cards of work per second of time (0: not running)
    Loss,          // on the job's loss curve
    Utilisation,   // percent of the card (NaN when the hardware cannot say)
    TrainingUtil,  // percent of the card serving training jobs
    InferenceUtil, // ... inference replicas
    MemoryUsed,    // MiB
    MemoryPercent, // percent of the card's memory
    Temperature,   // degrees Celsius
    Power,         // watts
};

// A series' subject. Keys are stable strings built from it:
//   "svc/<service name>/<metric>"  e.g. "svc/chat/p99"
//   "job/<job id>/<metric>"        e.g. "job/12/loss"
//   "card/<card id>/<metric>"      e.g. "card/3/util"
//   "part/<card id>/<uid>/<metric>" one partition of a card (its utilisation and memory in use),
//                                  e.g. "part/6/4/mem"; the info's name is the uid
//   "all/<metric>"                 the appliance: utilisation split and memory as the mean over
//                                  its cards, temperature as the hottest card, power as the sum
enum class SeriesSubject { Service, Job, Card, Appliance, Partition };

struct SeriesInfo
{
    QString key;
    SeriesSubject subject = SeriesSubject::Service;
    SeriesMetric metric = SeriesMetric::P99;
    int id = -1;  // the job's or the card's id; the service's index; -1 for the appliance
    QString name; // the service's or the job's name; empty for cards and the appliance
};

// An append-only ring of points in increasing time. Each point appended gets a sequence number
// (0, 1, 2, ... since the series was created); trimming drops the oldest, so a reader that
// remembers the next sequence number it wants can pick up exactly the points it has not seen.
class TimeSeries
{
public:
    explicit TimeSeries(SeriesInfo info = {})
        : m_info(std::move(info))
    {}

    const SeriesInfo &info() const { return m_info; }
    const QString &key() const { return m_info.key; }
    qsizetype size() const { return m_points.size() - m_head; }
    bool isEmpty() const { return size() == 0; }
    const SeriesPoint &at(qsizetype i) const { return m_points[m_head + i]; }
    const SeriesPoint &first() const { return at(0); }
    const SeriesPoint &last() const { return m_points.last(); }
    // The sequence number of at(0), and the one the next point appended will get.
    quint64 firstSequence() const { return m_appended - quint64(size()); }
    quint64 nextSequence() const { return m_appended; }
    // The index of the first point at or after `t` (size() when none).
    qsizetype lowerBound(double t) const;

    // Appends when `t` is after the last point's; returns false (and keeps nothing) otherwise.
    bool append(double t, double value);
    // Drops the points before `t`.
    void trimBefore(double t);

private:
    SeriesInfo m_info;
    QList<SeriesPoint> m_points;
    qsizetype m_head = 0; // points before it are trimmed, awaiting compaction
    quint64 m_appended = 0;
};

// last / mean / max of a series' points within a time range. Gaps (NaN) are left out; `count` is
// the number of points that count, 0 when none (then the others are NaN). The mean is the mean of
// the samples, as the chart draws them.
struct SeriesStats
{
    double last = std::numeric_limits<double>::quiet_NaN();
    double mean = std::numeric_limits<double>::quiet_NaN();
    double max = std::numeric_limits<double>::quiet_NaN();
    double min = std::numeric_limits<double>::quiet_NaN();
    qsizetype count = 0;
};

// Something the appliance did that the charts mark on their time axis.
enum class MarkerKind {
    Window,      // a time window opened ("window-opened")
    Repartition, // partitions created or destroyed, a card's mode changed
    Preemption,  // a job chosen as a victim, evicted, or requeued by a policy
    Fault,       // a card lost or failed, a memory error, thermal throttling
};

struct EventMarker
{
    double t = 0; // seconds since the UTC epoch: the first event's time
    MarkerKind kind = MarkerKind::Repartition;
    QByteArray code;    // the first event's code
    int card = -1;      // -1: none (or events of several cards)
    int job = -1;       // -1: none (or events of several jobs)
    int window = -1;    // Window: the window's index in the policy
    QString windowName; // Window: the window in force after it, when the snapshot names it
    int count = 1;      // events merged into this marker
};

// The charts' data: named time series taken from the session's snapshots, each kept for a horizon
// of simulated time (24 h plus a margin by default), and the markers of what happened. The views
// only read it; it knows nothing of how they draw.
//
// `append(snapshot)` takes one reading of every series at the snapshot's time (a snapshot at the
// time of the previous one adds no readings but still its events; one before it means a new
// session: the store clears itself first) and turns the snapshot's events into markers: events of
// one kind within `markerMergeSeconds` of a marker make it count one more rather than adding
// another (so a repartition of several steps is one marker; its card is -1 when the events were of
// several cards), and a victim's eviction adds nothing to the marker of its preemption.
//
// GUI thread (the thread it lives in) only.
class SeriesStore : public QObject
{
    Q_OBJECT

public:
    static constexpr double kDefaultHorizonSeconds = 25 * 3600.0; // 24 h plus a margin

    explicit SeriesStore(QObject *parent = nullptr);
    ~SeriesStore() override;

    static QString key(SeriesSubject subject, int id, const QString &name, SeriesMetric metric);
    static QString serviceKey(const QString &service, SeriesMetric metric);
    static QString jobKey(Domain::JobId job, SeriesMetric metric);
    static QString cardKey(Domain::CardId card, SeriesMetric metric);
    static QString partitionKey(Domain::CardId card, int uid, SeriesMetric metric);
    static QString applianceKey(SeriesMetric metric);
    // The metric's part of a key ("p99", "util-training", ...).
    static QString metricName(SeriesMetric metric);

    // Points older than the latest time appended minus this are dropped (markers too).
    void setHorizonSeconds(double seconds);
    double horizonSeconds() const { return m_horizon; }
    void setMarkerMergeSeconds(double seconds) { m_markerMerge = seconds; }
    double markerMergeSeconds() const { return m_markerMerge; }

    // Appends every snapshot `client` receives from now on, and its current one if any. The
    // store follows one client at a time; nullptr stops following.
    void follow(SessionClient *client);

    // Takes the snapshot's readings and events (see above); emits seriesAdded for each new key,
    // then appended once.
    void append(const Session::SnapshotPtr &snapshot);
    void append(const Session::Snapshot &snapshot);
    // Appends one point to `info.key`, creating the series when new (benchmarks, other feeders);
    // call notifyAppended() after a batch. Returns false when `t` is not after the series' last.
    bool appendPoint(const SeriesInfo &info, double t, double value);
    void notifyAppended();
    // Forgets everything; emits cleared().
    void clear();
    // Puts recorded points in front of the live ones (a console started, or attached, after the
    // appliance ran: its store's history; see Models::readSeriesHistory). For each series only
    // the points before its first live point are taken, and none at or after the latest time
    // appended (the next snapshot must not look like a new session); new keys are added. Emits
    // seriesAdded for them and then rebuilt(): the series were replaced, views read them again
    // from the start. Returns the number of points taken.
    qsizetype mergeHistory(const QList<HistorySeries> &history);

    QStringList keys() const { return m_order; }
    // Keys starting with `prefix`, in the order they were added.
    QStringList keys(QStringView prefix) const;
    const TimeSeries *series(const QString &key) const;
    bool contains(const QString &key) const { return m_series.contains(key); }
    SeriesStats stats(const QString &key, double from, double to) const;
    static SeriesStats stats(const TimeSeries &series, double from, double to);

    // Markers in time order (within the horizon).
    const QList<EventMarker> &markers() const { return m_markers; }
    // The number of markers ever added: a view that remembers it knows which are new.
    quint64 markerSequence() const { return m_markerSequence; }

    // The latest time appended (seconds since the epoch); NaN before the first.
    double latestTime() const { return m_latest; }
    // The latest snapshot's local-time offset (the time axis); 0 before the first.
    int utcOffsetSeconds() const { return m_utcOffset; }

Q_SIGNALS:
    void seriesAdded(const QString &key);
    // New points (and maybe markers) were appended, old ones trimmed.
    void appended();
    void cleared();
    // Series were replaced by longer ones (mergeHistory): read every series again.
    void rebuilt();

private:
    TimeSeries *ensure(const SeriesInfo &info);
    void add(SeriesSubject subject,
             int id,
             const QString &name,
             SeriesMetric metric,
             double t,
             double value);
    void addMarkers(const Session::Snapshot &snapshot);
    void trim();

    QMetaObject::Connection m_following;
    QHash<QString, TimeSeries *> m_series;
    QStringList m_order;
    QList<EventMarker> m_markers;
    QSet<int> m_preempting; // jobs chosen as victims, not evicted yet
    quint64 m_markerSequence = 0;
    double m_horizon = kDefaultHorizonSeconds;
    double m_markerMerge = 60;
    double m_latest = std::numeric_limits<double>::quiet_NaN();
    int m_utcOffset = 0;
    QStringList m_pendingAdded;
};

} // namespace Zhaoxi::Models
