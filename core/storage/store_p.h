// SPDX-License-Identifier: GPL-3.0-or-later
// The Store's and the Reader's insides, shared by store.cpp (open, lock, check, migrate),
// storewriter.cpp (the writer thread and its batches) and storereader.cpp (read connections).
// Not part of the library's interface.
#pragma once

#include "store.h"

#include "sqlite.h"

#include <QHash>
#include <QMap>

#include <atomic>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <thread>
#include <variant>
#include <vector>

namespace Zhaoxi::Storage {

namespace Detail {

// State documents written together: one op is never split across transactions.
struct StateOp
{
    QList<std::pair<QString, QByteArray>> docs; // key -> json
    qint64 atMs = 0;
};
struct TraceOp
{
    qint64 atMs = 0;
    int job = -1;
    QByteArray json;
};
struct CompactOp
{
    qint64 nowMs = 0;
};
using Op = std::variant<Event, MetricSample, StateOp, TraceOp, CompactOp>;

// A path as the messages name it.
QString describeFile(const QString &path);
// A series' labels as the metric_series.labels column holds them (empty when none), and back.
QByteArray labelsJson(const QMap<QString, QString> &labels);
QMap<QString, QString> labelsFromJson(const QByteArray &json);
bool onReadOnlyFilesystem(const QString &path);

} // namespace Detail

struct Store::Private
{
    using Op = Detail::Op;

    QString path;
    StoreOptions options;
    Sql::Connection db; // the writer's; used by the writer thread only once it runs

    std::mutex mutex;
    std::condition_variable workReady;
    std::condition_variable done;
    std::vector<Op> queue;
    qint64 nextEventId = 1;
    qint64 enqueued = 0;  // operations queued, ever
    qint64 committed = 0; // operations processed (committed or failed), ever
    qint64 failures = 0;
    qint64 reportedFailures = 0; // by flush()
    int lockFd = -1;             // <path>.lock, flock()ed for as long as this writer lives
    bool stopping = false;
    QString lastError;
    std::atomic<qint64> committedEventId{0};
    std::function<void(qint64)> observer;
    std::thread thread;

    // Writer-thread state.
    std::unique_ptr<Sql::Statement> insEvent, insEvents, insSample, insSeries, findSeries,
            setLabels, putState, insTrace;
    QHash<SeriesKey, qint64> seriesIds;
    QHash<qint64, QByteArray> seriesLabels;
    int sync = -1; // 1 NORMAL, 2 FULL
    qint64 lastAutoCompactBucket = -1;
    qint64 dirtyRawMin = std::numeric_limits<qint64>::max(); // earliest raw sample written
    qint64 rolledMinute = -1;                                // cached meta watermarks

    void enqueue(Op &&op, qint64 *eventId = nullptr);
    void run();
    bool prepare(QString *error);
    bool apply(std::vector<Op> &batch, qint64 *lastEventId, QString *error);
    bool insertSample(const MetricSample &s, QString *error);
    static constexpr int kRowsPerInsert = 64;
    void bindEvent(Sql::Statement &st, int first, const Event &e, QByteArray &actorBuf);
    bool compactNow(qint64 nowMs, QString *error);
    qint64 meta(const char *key, qint64 fallback);
    bool setMeta(const char *key, qint64 value);
};

struct Reader::Private
{
    Sql::Connection db;
    QString path;
};

} // namespace Zhaoxi::Storage
