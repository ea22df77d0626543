// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "seriesstore.h"

#include <QHash>
#include <QJsonArray>
#include <QList>
#include <QObject>
#include <QString>

namespace Zhaoxi::Sched {
class ClusterState;
}
namespace Zhaoxi::Storage {
class Reader;
}

namespace Zhaoxi::Models {

// One chart series as the store recorded it: the points of `info.key`, in increasing time.
struct HistorySeries
{
    SeriesInfo info;
    QList<SeriesPoint> points;
};

// What a console shows of the hours before it started (or attached to a service): the store's
// recorded card and partition series between `fromMs` and `toMs` (UTC epoch ms), under the keys
// SeriesStore gives the live snapshots' readings:
//   card/<c>/util (GpuUtil), card/<c>/mem (MemoryUsedMiB), card/<c>/mem-pct (from used and free
//   at the same moment), card/<c>/temp, card/<c>/power;
//   part/<c>/<uid>/mem (a partition's MemoryUsedMiB), part/<c>/<uid>/util (its GrEngineActive,
//   as a percentage); a whole card's one unit (`wholeUnits`: card -> uid) is its card's series;
//   all/util, all/mem, all/mem-pct, all/temp, all/power: the mean, sum, hottest and total power
//   of the cards recorded at each moment (a lost card has none), as SeriesStore::append makes
//   them.
// Rolled-up minutes are read where the raw samples are gone (each minute's mean at its middle),
// the raw samples after the last minute rolled up. Series the live readings have and the store
// does not (the utilisation split by class, services, jobs) are left out.
// Returns false with an English *error when the store cannot be read.
bool readSeriesHistory(Storage::Reader &reader,
                       qint64 fromMs,
                       qint64 toMs,
                       const QHash<int, int> &wholeUnits,
                       QList<HistorySeries> *out,
                       QString *error);

// Each whole-mode card's one unit (card -> uid): its history is the card's series.
QHash<int, int> wholeUnitsOf(const Sched::ClusterState &state);

// The history on the service's wire (the "history" command, docs/service.md): per series
// {"key", "subject" ("card", "partition", "appliance", "service", "job"), "metric" (the key's
// metric part: "util", "mem", ...), "id", "name", "t_ms": [...], "values": [... null: a gap]}.
QJsonArray historyJson(const QList<HistorySeries> &history);
// Reads it back; false with an English *error naming the series and member that is wrong.
bool historyFromJson(const QJsonArray &json, QList<HistorySeries> *out, QString *error);

// Reads the history of the store at `path` on a thread of its own (opening its own Reader, which
// never blocks the store's writer) and hands it to the thread the loader lives in with
// loaded(). One read at a time: a load() while one runs is queued behind it.
//
// Lives in the GUI thread; the reading thread is joined before the loader is destroyed.
class SeriesHistoryLoader : public QObject
{
    Q_OBJECT

public:
    explicit SeriesHistoryLoader(QObject *parent = nullptr);
    ~SeriesHistoryLoader() override;

    void load(const QString &path, qint64 fromMs, qint64 toMs, const QHash<int, int> &wholeUnits);
    bool isLoading() const { return m_thread != nullptr; }

Q_SIGNALS:
    // `error` is empty when the store was read (the history may still be empty).
    void loaded(const QList<Zhaoxi::Models::HistorySeries> &history, const QString &error);

private:
    struct Request
    {
        QString path;
        qint64 fromMs = 0;
        qint64 toMs = 0;
        QHash<int, int> wholeUnits;
    };
    void startNext();

    QThread *m_thread = nullptr;
    QList<Request> m_waiting;
};

} // namespace Zhaoxi::Models
