// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "event.h"
#include "metrics.h"

#include <QByteArray>
#include <QString>

#include <functional>
#include <memory>

namespace Zhaoxi::Storage {

class Reader;

// Well-known keys of the state table (JSON documents; see statecodec.h for their formats).
namespace StateKey {
inline constexpr char Layouts[] = "layouts";         // cards' modes, health and units
inline constexpr char Queue[] = "queue";             // every job with progress and checkpoint
inline constexpr char Windows[] = "window-schedule"; // the policy's time-window schedule
inline constexpr char Policy[] = "policy-settings";
inline constexpr char Appliance[] = "appliance"; // the appliance file the state grew from
// A run with real processes (zhaoxictl run, the service's --scenario): LiveRun::resumeState().
inline constexpr char LiveRun[] = "live-run";
} // namespace StateKey

struct StoreOptions
{
    Retention retention;
    // The wall clock, used only to name a corrupt file moved aside and to date the event that
    // says so. Tests pass their own.
    std::function<qint64()> nowMs;
    // Upper bound of operations one transaction takes; producers block when this many times 8
    // are queued (back-pressure instead of unbounded memory).
    int maxBatch = 50000;
};

// What open() found and did.
struct OpenReport
{
    bool created = false; // a new file
    int migratedFrom = 0; // the version migrated from, 0 when none was needed
    QString movedAsideTo; // non-empty when the old file was corrupt or unreadable
    QString problem;      // why it was moved aside (SQLite's words)
};

// The event, metrics and state store of one appliance: one SQLite file in WAL mode.
//
// Threads: append/appendMetric/putState/appendTrace/compact may be called from any thread; they
// queue the operation and return at once. One writer thread owned by the Store commits queued
// operations in batches, in order, one transaction per batch. A batch that holds anything
// durable (state, traces, operator events, compaction) commits with synchronous=FULL; a batch
// of telemetry alone commits with synchronous=NORMAL (in WAL mode this survives a process crash
// but not a power cut). Readers (reader()) have connections of their own and never block the
// writer.
//
// Acknowledgement: an operation is durable when flush() has returned true after it, or when the
// commit observer has reported an event id at or past it.
class Store
{
public:
    ~Store(); // commits what is queued, then stops the writer

    // <AppDataLocation>/<appliance>.zhaoxi.sqlite (the user's data directory).
    static QString defaultPath(const QString &applianceName);

    // Opens (creating when absent) the store at `path`: quick_check, forward migrations, WAL.
    // A corrupt or unreadable file is renamed to "<path>.corrupt-<UTC time>" (its -wal and -shm
    // too; never deleted), a fresh store is created, and a System/Error event "store-moved-aside"
    // with {"movedTo", "problem"} is its first event. Returns nullptr and an English *error only
    // when no store could be opened at all (e.g. an unwritable directory, a newer schema).
    static std::unique_ptr<Store> open(const QString &path,
                                       const StoreOptions &options,
                                       OpenReport *report,
                                       QString *error);
    static std::unique_ptr<Store> open(const QString &path, QString *error = nullptr)
    {
        return open(path, StoreOptions{}, nullptr, error);
    }

    QString path() const;

    // Queues an event and returns its id (ids increase in call order). event.id is ignored.
    qint64 append(Event event);
    void appendMetric(const MetricSample &sample);
    // Replaces a state document. Only the newest value per key in a batch is written.
    void putState(const QString &key, const QByteArray &json, qint64 atMs);
    // Replaces several state documents in one transaction: a crash leaves all of them new or
    // all of them old, never a mix (the layouts, the queue and the runtime's processes must
    // agree when a killed service restarts).
    void putStates(const QList<std::pair<QString, QByteArray>> &docs, qint64 atMs);
    void appendTrace(qint64 atMs, int job, const QByteArray &json);
    // Rolls raw samples up into the minute and quarter-hour tiers for every bucket closed by
    // `nowMs` and applies the retention limits relative to `nowMs`. The writer also does this by
    // itself whenever metric time passes a minute boundary.
    void compact(qint64 nowMs);

    // Waits until everything queued before the call is committed. False when a commit failed
    // since the previous flush() (or the open), whenever it was queued (lastError() says why);
    // what failed is not retried.
    bool flush();
    QString lastError() const;
    // The highest event id known committed.
    qint64 committedEventId() const;
    // Called on the writer thread after each commit with the highest committed event id.
    // Set it before appending; it must not call back into the Store's blocking functions.
    void setCommitObserver(std::function<void(qint64 lastEventId)> observer);

    // A new read connection to this store (one per thread that reads).
    std::unique_ptr<Reader> reader(QString *error = nullptr) const;

    struct Private;

private:
    Store();
    std::unique_ptr<Private> d;
};

// Guards for files the storage creates or replaces (stores and exports): why `path` must not be
// written, or empty when it may. A symbolic link at the final path is refused (never followed
// nor replaced: the classic attack on a shared directory), and so is a path that is, or links
// by a hard link to, `store` or its -wal / -shm file (an export over the store it reads).
QString refusedOutputReason(const QString &path, const QString &store = {});

// A read connection. Sees what was committed when each query starts (WAL snapshot); never
// blocks the writer. One thread at a time.
class Reader
{
public:
    ~Reader();
    enum class OpenMode { RequireCurrent, MigrateIfOlder };
    // Opens an existing store file. RequireCurrent refuses files of an earlier schema;
    // MigrateIfOlder migrates them first (briefly taking the write lock). Never moves or creates
    // files; a corrupt file is an error naming it.
    static std::unique_ptr<Reader> open(const QString &path, OpenMode mode, QString *error);
    QString path() const; // the store file, as opened

    // Calls `row` for each matching event in (at_ms, id) order until it returns false.
    bool forEachEvent(const EventFilter &filter,
                      const std::function<bool(const Event &)> &row,
                      QString *error = nullptr);
    QList<Event> events(const EventFilter &filter, QString *error = nullptr);
    qint64 countEvents(const EventFilter &filter, QString *error = nullptr);

    QList<MetricPoint> series(
            const SeriesKey &key, Tier tier, qint64 fromMs, qint64 toMs, QString *error = nullptr);
    // The newest point of every series (from the finest tier that has one).
    QList<LatestMetric> latestMetrics(QString *error = nullptr);
    std::optional<QByteArray> state(const QString &key, QString *error = nullptr);
    struct Trace
    {
        qint64 atMs = 0;
        int job = -1;
        QByteArray json;
    };
    // The newest `limit` traces (of one job when job >= 0), newest first.
    QList<Trace> traces(int job, int limit, QString *error = nullptr);
    // PRAGMA integrity_check: "ok" or the problems found.
    QString integrityCheck();
    // PRAGMA quick_check (the pages and records, not the indexes against their tables; linear
    // in the file): "ok" or the problems found, at most `maxLines` of them.
    QString quickCheck(int maxLines = 5);
    int schemaVersion();

    struct Private;

private:
    Reader();
    std::unique_ptr<Private> d;
};

} // namespace Zhaoxi::Storage
