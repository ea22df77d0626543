// SPDX-License-Identifier: GPL-3.0-or-later
#include "store.h"

#include "schema.h"
#include "sqlite.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <variant>
#include <vector>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace Zhaoxi::Storage {

// --- enums ------------------------------------------------------------------------------------

const char *toString(Severity severity)
{
    switch (severity) {
    case Severity::Info:
        return "info";
    case Severity::Warning:
        return "warning";
    case Severity::Error:
        return "error";
    case Severity::Critical:
        return "critical";
    }
    return "info";
}

const char *toString(Source source)
{
    switch (source) {
    case Source::Scheduler:
        return "scheduler";
    case Source::Policy:
        return "policy";
    case Source::Device:
        return "device";
    case Source::Operator:
        return "operator";
    case Source::System:
        return "system";
    }
    return "scheduler";
}

std::optional<Severity> severityFromString(QStringView text)
{
    for (Severity s : {Severity::Info, Severity::Warning, Severity::Error, Severity::Critical}) {
        if (text == QLatin1String(toString(s)))
            return s;
    }
    return std::nullopt;
}

std::optional<Source> sourceFromString(QStringView text)
{
    for (Source s :
         {Source::Scheduler, Source::Policy, Source::Device, Source::Operator, Source::System}) {
        if (text == QLatin1String(toString(s)))
            return s;
    }
    return std::nullopt;
}

const char *toString(Metric metric)
{
    switch (metric) {
    case Metric::GpuUtil:
        return "gpu-util";
    case Metric::MemoryUsedMiB:
        return "memory-used-mib";
    case Metric::TemperatureC:
        return "temperature-c";
    case Metric::PowerW:
        return "power-w";
    case Metric::GrEngineActive:
        return "gr-engine-active";
    case Metric::LatencyP50Ms:
        return "latency-p50-ms";
    case Metric::LatencyP95Ms:
        return "latency-p95-ms";
    case Metric::LatencyP99Ms:
        return "latency-p99-ms";
    case Metric::RequestRate:
        return "request-rate";
    case Metric::TrainingThroughput:
        return "training-throughput";
    case Metric::TrainingLoss:
        return "training-loss";
    case Metric::Count:
        break;
    }
    return "unknown";
}

std::optional<Metric> metricFromString(QStringView text)
{
    for (int i = 0; i < int(Metric::Count); ++i) {
        if (text == QLatin1String(toString(Metric(i))))
            return Metric(i);
    }
    return std::nullopt;
}

size_t qHash(const SeriesKey &key, size_t seed) noexcept
{
    return qHashMulti(seed, int(key.metric), key.card, key.partition, key.service, key.job);
}

// --- the writer -------------------------------------------------------------------------------

namespace {

struct StateOp
{
    QString key;
    QByteArray json;
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

QByteArray labelsJson(const QMap<QString, QString> &labels)
{
    if (labels.isEmpty())
        return {};
    QJsonObject o;
    for (auto it = labels.begin(); it != labels.end(); ++it)
        o.insert(it.key(), it.value());
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

QMap<QString, QString> labelsFromJson(const QByteArray &json)
{
    QMap<QString, QString> r;
    if (json.isEmpty())
        return r;
    const QJsonObject o = QJsonDocument::fromJson(json).object();
    for (auto it = o.begin(); it != o.end(); ++it)
        r.insert(it.key(), it.value().toString());
    return r;
}

QString describeFile(const QString &path)
{
    return QDir::toNativeSeparators(path);
}

// A new store file, made by us with the owner's permissions only and never through a link
// (O_EXCL with O_NOFOLLOW): SQLite would create it 0644, and gives its -wal and -shm files the
// same mode as the store's. Empty, it is a new database to SQLite.
QString createPrivateFile(const QString &path)
{
    const int fd = ::open(QFile::encodeName(path).constData(),
                          O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                          0600);
    if (fd < 0)
        return QString::fromLocal8Bit(std::strerror(errno));
    ::close(fd);
    return {};
}

} // namespace

namespace {

// One writer per store: an exclusive flock on "<path>.lock", taken before the file is looked at
// (two writers migrating one new file at once collided on its schema) and held until the Store
// is destroyed; the kernel drops it when the process dies, so a killed writer leaves no stale
// lock. The holder's pid is written into the file for the refusal's message. Readers take none.
int lockStore(const QString &path, QString *error)
{
    const QString lockPath = path + QStringLiteral(".lock");
    const QByteArray native = QFile::encodeName(lockPath);
    const int fd = ::open(native.constData(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        *error = QStringLiteral("cannot open its lock file %1: %2")
                         .arg(describeFile(lockPath), QString::fromLocal8Bit(std::strerror(errno)));
        return -1;
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        char buf[32] = {};
        const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
        const qint64 pid = n > 0 ? QByteArray(buf, int(n)).trimmed().toLongLong() : 0;
        ::close(fd);
        *error = QStringLiteral("another process%1 has it open for writing (one writer at a time; "
                                "its lock is %2)")
                         .arg(pid > 0 ? QStringLiteral(" (pid %1)").arg(pid) : QString(),
                              describeFile(lockPath));
        return -1;
    }
    const QByteArray pid = QByteArray::number(qint64(::getpid())) + '\n';
    if (::ftruncate(fd, 0) == 0)
        (void)!::pwrite(fd, pid.constData(), size_t(pid.size()), 0);
    return fd;
}

bool onReadOnlyFilesystem(const QString &path)
{
    struct statvfs fs = {};
    return ::statvfs(QFile::encodeName(path).constData(), &fs) == 0 && (fs.f_flag & ST_RDONLY);
}

} // namespace

QString refusedOutputReason(const QString &path, const QString &store)
{
    struct stat target = {};
    if (::lstat(QFile::encodeName(path).constData(), &target) != 0)
        return {}; // not there: it will be created
    if (S_ISLNK(target.st_mode))
        return QStringLiteral("%1 is a symbolic link; refusing to write through or over it")
                .arg(describeFile(path));
    if (store.isEmpty())
        return {};
    for (const char *suffix : {"", "-wal", "-shm"}) {
        struct stat s = {};
        const QString file = store + QString::fromLatin1(suffix);
        if (::stat(QFile::encodeName(file).constData(), &s) == 0 && s.st_dev == target.st_dev
            && s.st_ino == target.st_ino)
            return QStringLiteral("%1 is the store being read (%2); refusing to overwrite it")
                    .arg(describeFile(path), describeFile(file));
    }
    return {};
}

struct Store::Private
{
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

Store::Store()
    : d(std::make_unique<Private>())
{}

Store::~Store()
{
    {
        std::lock_guard lock(d->mutex);
        d->stopping = true;
    }
    d->workReady.notify_all();
    if (d->thread.joinable())
        d->thread.join();
    d->insEvent.reset();
    d->insEvents.reset();
    d->insSample.reset();
    d->insSeries.reset();
    d->findSeries.reset();
    d->setLabels.reset();
    d->putState.reset();
    d->insTrace.reset();
    // A clean close checkpoints the WAL into the main file.
    d->db.close();
    if (d->lockFd >= 0)
        ::close(d->lockFd); // releases the writer's lock
}

QString Store::defaultPath(const QString &applianceName)
{
    QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    if (dir.isEmpty())
        dir = QDir::homePath() + QStringLiteral("/.local/share/zhaoxi");
    QString name = applianceName;
    for (QChar &c : name) {
        if (!(c.isLetterOrNumber() || c == QLatin1Char('-') || c == QLatin1Char('_')
              || c == QLatin1Char('.')))
            c = QLatin1Char('_');
    }
    if (name.isEmpty())
        name = QStringLiteral("appliance");
    return dir + QLatin1Char('/') + name + QStringLiteral(".zhaoxi.sqlite");
}

QString Store::path() const
{
    return d->path;
}

namespace {

// quick_check, version and WAL on an opened connection. Returns an empty string when the file
// is usable; else the problem. *fatal: a problem moving the file would not solve.
QString checkFile(Sql::Connection &db, bool *fatal, int *fromVersion)
{
    *fatal = false;
    QStringList problems;
    {
        Sql::Statement qc(db, "PRAGMA quick_check");
        if (!qc.isValid())
            return db.errorMessage();
        bool ok = true;
        while (qc.step(&ok)) {
            const QString line = qc.text(0);
            if (line != QLatin1String("ok"))
                problems << line;
            if (problems.size() >= 5)
                break;
        }
        if (!ok)
            return db.errorMessage();
    }
    if (!problems.isEmpty())
        return QStringLiteral("quick_check: ") + problems.join(QStringLiteral("; "));
    QString err;
    const int v = Schema::version(db, &err);
    if (v < 0)
        return err;
    if (v > Schema::kCurrentVersion) {
        *fatal = true;
        return QStringLiteral("schema version %1 is newer than this build understands (%2)")
                .arg(v)
                .arg(Schema::kCurrentVersion);
    }
    *fromVersion = v;
    Sql::Statement wal(db, "PRAGMA journal_mode=WAL");
    if (!wal.isValid() || !wal.step() || wal.text(0) != QLatin1String("wal"))
        return QStringLiteral("cannot switch to WAL: ") + db.errorMessage();
    return {};
}

QString moveAside(const QString &path, qint64 nowMs, QString *error)
{
    const QString stamp = QDateTime::fromMSecsSinceEpoch(nowMs, Qt::UTC)
                                  .toString(QStringLiteral("yyyyMMdd'T'HHmmss'Z'"));
    QString target = path + QStringLiteral(".corrupt-") + stamp;
    for (int n = 2; QFile::exists(target) || QFile::exists(target + QStringLiteral("-wal")); ++n)
        target = path + QStringLiteral(".corrupt-") + stamp + QLatin1Char('-') + QString::number(n);
    if (!QFile::rename(path, target)) {
        *error = QStringLiteral("cannot move the unreadable store %1 aside to %2")
                         .arg(describeFile(path), describeFile(target));
        return {};
    }
    // The WAL belongs to the old file: keep the pair together so nothing is lost for forensics.
    for (const char *suffix : {"-wal", "-shm"}) {
        const QString s = QString::fromLatin1(suffix);
        if (QFile::exists(path + s))
            QFile::rename(path + s, target + s);
    }
    return target;
}

} // namespace

std::unique_ptr<Store> Store::open(const QString &path,
                                   const StoreOptions &options,
                                   OpenReport *report,
                                   QString *error)
{
    OpenReport localReport;
    OpenReport &rep = report ? *report : localReport;
    rep = OpenReport{};
    QString err;
    std::unique_ptr<Store> store(new Store);
    Private &p = *store->d;
    p.path = path;
    p.options = options;
    if (!p.options.nowMs)
        p.options.nowMs = [] { return QDateTime::currentMSecsSinceEpoch(); };
    if (p.options.maxBatch < 1)
        p.options.maxBatch = 1;

    const QFileInfo info(path);
    if (!QDir().mkpath(info.absolutePath())) {
        if (error)
            *error = QStringLiteral("cannot create the directory %1")
                             .arg(describeFile(info.absolutePath()));
        return nullptr;
    }
    if (const QString why = refusedOutputReason(path); !why.isEmpty()) {
        if (error)
            *error = QStringLiteral("cannot open the store: %1").arg(why);
        return nullptr;
    }
    p.lockFd = lockStore(path, &err);
    if (p.lockFd < 0) {
        if (error)
            *error = QStringLiteral("cannot open the store %1: %2").arg(describeFile(path), err);
        return nullptr;
    }
    const bool existed = info.exists();
    if (!existed) {
        if (const QString why = createPrivateFile(path); !why.isEmpty()) {
            if (error)
                *error = QStringLiteral("cannot create the store %1: %2")
                                 .arg(describeFile(path), why);
            return nullptr;
        }
    }
    QString problem;
    int fromVersion = 0;
    if (!p.db.open(path, Sql::Connection::Mode::ReadWriteCreate, &err)) {
        if (!existed) {
            if (error)
                *error = QStringLiteral("cannot create the store %1: %2")
                                 .arg(describeFile(path), err);
            return nullptr;
        }
        problem = err;
    } else {
        bool fatal = false;
        problem = checkFile(p.db, &fatal, &fromVersion);
        if (fatal) {
            if (error)
                *error = QStringLiteral("cannot open the store %1: %2")
                                 .arg(describeFile(path), problem);
            return nullptr;
        }
    }
    if (!problem.isEmpty()) {
        p.db.close();
        const QString moved = moveAside(path, p.options.nowMs(), &err);
        if (moved.isEmpty()) {
            if (error)
                *error = QStringLiteral("%1 (%2)").arg(err, problem);
            return nullptr;
        }
        rep.movedAsideTo = moved;
        rep.problem = problem;
        bool fatal = false;
        fromVersion = 0;
        if (!p.db.open(path, Sql::Connection::Mode::ReadWriteCreate, &err)
            || !(problem = checkFile(p.db, &fatal, &fromVersion)).isEmpty()) {
            if (error)
                *error = QStringLiteral("cannot create a fresh store %1: %2")
                                 .arg(describeFile(path), err.isEmpty() ? problem : err);
            return nullptr;
        }
    }
    rep.created = fromVersion == 0;
    if (fromVersion > 0 && fromVersion < Schema::kCurrentVersion)
        rep.migratedFrom = fromVersion;
    if (!Schema::migrate(p.db, &err)) {
        if (error)
            *error = QStringLiteral("cannot open the store %1: %2").arg(describeFile(path), err);
        return nullptr;
    }
    // Fewer, larger checkpoints: index pages touched by many batches are copied back once.
    p.db.exec("PRAGMA synchronous=NORMAL; PRAGMA temp_store=MEMORY; PRAGMA cache_size=-65536; "
              "PRAGMA wal_autocheckpoint=16384;");
    p.sync = 1;
    if (!p.prepare(&err)) {
        if (error)
            *error = QStringLiteral("cannot prepare the store %1: %2").arg(describeFile(path), err);
        return nullptr;
    }
    p.nextEventId = p.db.scalar("SELECT max(id) FROM events", 0) + 1;
    p.committedEventId = p.nextEventId - 1;
    p.rolledMinute = p.meta("rolled-1", -1);
    p.thread = std::thread([&p] { p.run(); });

    if (!rep.movedAsideTo.isEmpty()) {
        Event e;
        e.atMs = p.options.nowMs();
        e.severity = Severity::Error;
        e.source = Source::System;
        e.code = "store-moved-aside";
        QJsonObject params{{QStringLiteral("movedTo"), rep.movedAsideTo},
                           {QStringLiteral("problem"), rep.problem}};
        e.params = QJsonDocument(params).toJson(QJsonDocument::Compact);
        store->append(std::move(e));
        store->flush();
    }
    return store;
}

bool Store::Private::prepare(QString *error)
{
    auto make = [&](std::unique_ptr<Sql::Statement> &st, const char *sql) {
        st = std::make_unique<Sql::Statement>(db, sql);
        if (!st->isValid()) {
            *error = db.errorMessage();
            return false;
        }
        return true;
    };
    // Many rows per statement: one statement start/halt per 64 events instead of per event.
    QByteArray multi
            = "INSERT INTO events(id, at_ms, severity, source, code, card, partition_uid, job, "
              "actor, params) VALUES";
    for (int r = 0; r < kRowsPerInsert; ++r)
        multi += r ? ",(?,?,?,?,?,?,?,?,?,?)" : "(?,?,?,?,?,?,?,?,?,?)";
    return make(insEvent,
                "INSERT INTO events(id, at_ms, severity, source, code, card, partition_uid, "
                "job, actor, params) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
           && make(insEvents, multi.constData())
           && make(insSample,
                   "INSERT OR REPLACE INTO metric_samples(series, tier, at_ms, value, min, max, "
                   "count) VALUES(?, 0, ?, ?, ?, ?, 1)")
           && make(insSeries,
                   "INSERT OR IGNORE INTO metric_series(metric, card, partition_uid, service, "
                   "job) VALUES(?, ?, ?, ?, ?)")
           && make(findSeries,
                   "SELECT id, labels FROM metric_series WHERE metric = ? AND card = ? AND "
                   "partition_uid = ? AND service = ? AND job = ?")
           && make(setLabels, "UPDATE metric_series SET labels = ? WHERE id = ?")
           && make(putState, "INSERT OR REPLACE INTO state(key, value, updated_ms) VALUES(?, ?, ?)")
           && make(insTrace, "INSERT INTO decision_traces(at_ms, job, trace) VALUES(?, ?, ?)");
}

void Store::Private::enqueue(Op &&op, qint64 *eventId)
{
    std::unique_lock lock(mutex);
    // Back-pressure: a producer far ahead of the disk waits instead of growing memory forever.
    const size_t cap = size_t(options.maxBatch) * 8;
    done.wait(lock, [&] { return queue.size() < cap || stopping; });
    if (eventId) {
        Event &e = std::get<Event>(op);
        e.id = nextEventId++;
        *eventId = e.id;
    }
    queue.push_back(std::move(op));
    ++enqueued;
    if (queue.size() == 1)
        workReady.notify_one();
}

qint64 Store::append(Event event)
{
    qint64 id = 0;
    d->enqueue(Op(std::move(event)), &id);
    return id;
}

void Store::appendMetric(const MetricSample &sample)
{
    d->enqueue(Op(sample));
}

void Store::putState(const QString &key, const QByteArray &json, qint64 atMs)
{
    d->enqueue(Op(StateOp{key, json, atMs}));
}

void Store::appendTrace(qint64 atMs, int job, const QByteArray &json)
{
    d->enqueue(Op(TraceOp{atMs, job, json}));
}

void Store::compact(qint64 nowMs)
{
    d->enqueue(Op(CompactOp{nowMs}));
}

bool Store::flush()
{
    std::unique_lock lock(d->mutex);
    const qint64 target = d->enqueued;
    d->workReady.notify_one();
    d->done.wait(lock, [&] { return d->committed >= target || !d->thread.joinable(); });
    // Every failure since the previous flush counts, also those of batches committed before
    // this call: a writer that flushes once at the end must hear of them.
    const bool ok = d->failures == d->reportedFailures && d->committed >= target;
    d->reportedFailures = d->failures;
    return ok;
}

QString Store::lastError() const
{
    std::lock_guard lock(d->mutex);
    return d->lastError;
}

qint64 Store::committedEventId() const
{
    return d->committedEventId.load();
}

void Store::setCommitObserver(std::function<void(qint64)> observer)
{
    std::lock_guard lock(d->mutex);
    d->observer = std::move(observer);
}

void Store::Private::run()
{
    std::vector<Op> batch;
    for (;;) {
        std::function<void(qint64)> obs;
        {
            std::unique_lock lock(mutex);
            workReady.wait(lock, [&] { return !queue.empty() || stopping; });
            if (queue.empty() && stopping)
                return;
            if (queue.size() <= size_t(options.maxBatch)) {
                batch.swap(queue);
            } else {
                auto mid = queue.begin() + options.maxBatch;
                batch.assign(std::make_move_iterator(queue.begin()), std::make_move_iterator(mid));
                queue.erase(queue.begin(), mid);
            }
            obs = observer;
        }
        done.notify_all(); // room in the queue again
        qint64 lastEventId = 0;
        QString err;
        const bool ok = apply(batch, &lastEventId, &err);
        const qint64 n = qint64(batch.size());
        batch.clear();
        if (ok && lastEventId > 0) {
            committedEventId = lastEventId;
            if (obs)
                obs(lastEventId);
        }
        {
            std::lock_guard lock(mutex);
            committed += n;
            if (!ok) {
                ++failures;
                lastError = err;
            }
        }
        done.notify_all();
    }
}

qint64 Store::Private::meta(const char *key, qint64 fallback)
{
    Sql::Statement st(db, "SELECT value FROM meta WHERE key = ?");
    st.bindText(1, QByteArray(key));
    return st.step() ? st.int64(0) : fallback;
}

bool Store::Private::setMeta(const char *key, qint64 value)
{
    Sql::Statement st(db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)");
    st.bindText(1, QByteArray(key));
    st.bind(2, value);
    return st.run();
}

bool Store::Private::apply(std::vector<Op> &batch, qint64 *lastEventId, QString *error)
{
    bool durable = false;
    QHash<QString, qsizetype> lastState; // key -> index of its newest value in the batch
    for (qsizetype i = 0; i < qsizetype(batch.size()); ++i) {
        const Op &op = batch[size_t(i)];
        if (const Event *e = std::get_if<Event>(&op)) {
            durable |= e->source == Source::Operator || e->source == Source::System;
        } else if (const StateOp *s = std::get_if<StateOp>(&op)) {
            durable = true;
            lastState.insert(s->key, i);
        } else if (!std::holds_alternative<MetricSample>(op)) {
            durable = true;
        }
    }
    const int wantSync = durable ? 2 : 1;
    if (sync != wantSync) {
        // Must be set outside a transaction.
        if (!db.exec(durable ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL", error))
            return false;
        sync = wantSync;
    }
    if (!db.exec("BEGIN IMMEDIATE", error))
        return false;
    auto fail = [&](const QString &what) {
        *error = what + QStringLiteral(": ") + db.errorMessage();
        db.exec("ROLLBACK");
        return false;
    };
    qint64 maxMetricAt = -1;
    qint64 lastId = 0;
    for (qsizetype i = 0; i < qsizetype(batch.size()); ++i) {
        Op &op = batch[size_t(i)];
        if (Event *e = std::get_if<Event>(&op)) {
            // A run of events: as many full multi-row inserts as fit, then single rows.
            qsizetype runEnd = i;
            while (runEnd < qsizetype(batch.size()) && runEnd - i < kRowsPerInsert
                   && std::holds_alternative<Event>(batch[size_t(runEnd)]))
                ++runEnd;
            QByteArray actors[kRowsPerInsert];
            if (runEnd - i == kRowsPerInsert) {
                for (int r = 0; r < kRowsPerInsert; ++r)
                    bindEvent(*insEvents,
                              r * 10 + 1,
                              std::get<Event>(batch[size_t(i + r)]),
                              actors[r]);
                if (!insEvents->run())
                    return fail(QStringLiteral("cannot insert events %1..").arg(e->id));
                lastId = std::get<Event>(batch[size_t(runEnd - 1)]).id;
                i = runEnd - 1;
                continue;
            }
            bindEvent(*insEvent, 1, *e, actors[0]);
            if (!insEvent->run())
                return fail(QStringLiteral("cannot insert event %1").arg(e->id));
            lastId = e->id;
        } else if (const MetricSample *m = std::get_if<MetricSample>(&op)) {
            if (!insertSample(*m, error)) {
                db.exec("ROLLBACK");
                return false;
            }
            maxMetricAt = std::max(maxMetricAt, m->atMs);
        } else if (const StateOp *s = std::get_if<StateOp>(&op)) {
            if (lastState.value(s->key) != i)
                continue; // a newer value of this key follows in the batch
            Sql::Statement &st = *putState;
            st.bindText(1, s->key);
            st.bindText(2, s->json.isNull() ? QByteArray("") : s->json);
            st.bind(3, s->atMs);
            if (!st.run())
                return fail(QStringLiteral("cannot write state %1").arg(s->key));
        } else if (const TraceOp *t = std::get_if<TraceOp>(&op)) {
            Sql::Statement &st = *insTrace;
            st.bind(1, t->atMs);
            st.bindOptional(2, t->job);
            st.bindText(3, t->json.isNull() ? QByteArray("{}") : t->json);
            if (!st.run())
                return fail(QStringLiteral("cannot insert a decision trace"));
        } else if (const CompactOp *c = std::get_if<CompactOp>(&op)) {
            if (!compactNow(c->nowMs, error)) {
                db.exec("ROLLBACK");
                return false;
            }
        }
    }
    // Roll up by metric time, not the wall clock: a replayed day compacts like a live one.
    if (maxMetricAt >= 0) {
        const qint64 bucket = maxMetricAt / kTierBucketMs[1];
        if (bucket > lastAutoCompactBucket) {
            if (lastAutoCompactBucket >= 0 && !compactNow(maxMetricAt, error)) {
                db.exec("ROLLBACK");
                return false;
            }
            lastAutoCompactBucket = bucket;
        }
    }
    if (!db.exec("COMMIT", error)) {
        db.exec("ROLLBACK");
        return false;
    }
    *lastEventId = lastId;
    return true;
}

void Store::Private::bindEvent(Sql::Statement &st, int f, const Event &e, QByteArray &actorBuf)
{
    st.bind(f, e.id);
    st.bind(f + 1, e.atMs);
    st.bind(f + 2, qint64(e.severity));
    st.bind(f + 3, qint64(e.source));
    st.bindTextStatic(f + 4, e.code.constData(), int(e.code.size()));
    st.bindOptional(f + 5, e.card);
    st.bindOptional(f + 6, e.partition);
    st.bindOptional(f + 7, e.job);
    if (e.actor.isEmpty()) {
        st.bindNull(f + 8);
    } else {
        actorBuf = e.actor.toUtf8();
        st.bindTextStatic(f + 8, actorBuf.constData(), int(actorBuf.size()));
    }
    if (e.params.isEmpty())
        st.bindNull(f + 9);
    else
        st.bindTextStatic(f + 9, e.params.constData(), int(e.params.size()));
}

bool Store::Private::insertSample(const MetricSample &s, QString *error)
{
    qint64 id = seriesIds.value(s.key, -1);
    if (id < 0) {
        const QByteArray service = s.key.service.toUtf8();
        for (Sql::Statement *st : {insSeries.get(), findSeries.get()}) {
            st->reset();
            st->bind(1, qint64(s.key.metric));
            st->bind(2, qint64(s.key.card));
            st->bind(3, qint64(s.key.partition));
            st->bindText(4, service.isNull() ? QByteArray("") : service);
            st->bind(5, qint64(s.key.job));
        }
        if (!insSeries->run() || !findSeries->step()) {
            *error = QStringLiteral("cannot add a metric series: ") + db.errorMessage();
            return false;
        }
        id = findSeries->int64(0);
        seriesLabels.insert(id, findSeries->bytes(1));
        findSeries->reset();
        seriesIds.insert(s.key, id);
    }
    if (!s.labels.isEmpty()) {
        const QByteArray json = labelsJson(s.labels);
        if (seriesLabels.value(id) != json) {
            setLabels->bindText(1, json);
            setLabels->bind(2, id);
            if (!setLabels->run()) {
                *error = QStringLiteral("cannot label a metric series: ") + db.errorMessage();
                return false;
            }
            seriesLabels.insert(id, json);
        }
    }
    Sql::Statement &st = *insSample;
    st.bind(1, id);
    st.bind(2, s.atMs);
    st.bind(3, s.value);
    st.bind(4, s.value);
    st.bind(5, s.value);
    if (!st.run()) {
        *error = QStringLiteral("cannot insert a metric sample: ") + db.errorMessage();
        return false;
    }
    dirtyRawMin = std::min(dirtyRawMin, s.atMs);
    return true;
}

// Rolls tier `from` into tier `from + 1` for every bucket closed by `nowMs`, starting at the
// watermark (or earlier, when late samples landed in buckets already rolled). Returns the
// earliest bucket rewritten (for the next tier's dirtiness) or max when none.
bool Store::Private::compactNow(qint64 nowMs, QString *error)
{
    qint64 dirty = dirtyRawMin;
    for (int to = 1; to <= 2; ++to) {
        const int from = to - 1;
        const qint64 b = kTierBucketMs[to];
        const QByteArray wmKey = "rolled-" + QByteArray::number(to);
        qint64 wm = meta(wmKey.constData(), -1);
        if (wm < 0) {
            Sql::Statement first(db, "SELECT min(at_ms) FROM metric_samples WHERE tier = ?");
            first.bind(1, qint64(from));
            if (!first.step() || first.isNull(0))
                break; // nothing at this tier yet
            wm = first.int64(0) / b * b;
        }
        qint64 start = wm;
        if (dirty < start)
            start = dirty / b * b;
        const qint64 end = nowMs / b * b;
        qint64 rewritten = std::numeric_limits<qint64>::max();
        if (end > start) {
            Sql::Statement roll(
                    db,
                    "INSERT OR REPLACE INTO metric_samples(series, tier, at_ms, value, min, max, "
                    "count) "
                    "SELECT series, ?1, (at_ms / ?2) * ?2 AS bucket, "
                    "sum(value * count) / sum(count), min(min), max(max), sum(count) "
                    "FROM metric_samples WHERE tier = ?3 AND at_ms >= ?4 AND at_ms < ?5 "
                    "GROUP BY series, bucket");
            roll.bind(1, qint64(to));
            roll.bind(2, b);
            roll.bind(3, qint64(from));
            roll.bind(4, start);
            roll.bind(5, end);
            if (!roll.run() || !setMeta(wmKey.constData(), std::max(end, wm))) {
                *error = QStringLiteral("cannot roll metrics up: ") + db.errorMessage();
                return false;
            }
            rewritten = start;
        }
        dirty = rewritten;
    }
    dirtyRawMin = std::numeric_limits<qint64>::max();
    // Retention: never drop a finer bucket before it has been rolled into the next tier.
    const qint64 rolled1 = meta("rolled-1", -1);
    const qint64 rolled2 = meta("rolled-2", -1);
    const struct
    {
        int tier;
        qint64 keepMs;
        qint64 rolled;
    } rules[] = {{0, options.retention.rawMs, rolled1},
                 {1, options.retention.minuteMs, rolled2},
                 {2, options.retention.quarterHourMs, std::numeric_limits<qint64>::max()}};
    for (const auto &r : rules) {
        if (r.keepMs <= 0 || r.rolled < 0)
            continue;
        const qint64 cutoff = std::min(nowMs - r.keepMs, r.rolled);
        Sql::Statement del(db, "DELETE FROM metric_samples WHERE tier = ? AND at_ms < ?");
        del.bind(1, qint64(r.tier));
        del.bind(2, cutoff);
        if (!del.run()) {
            *error = QStringLiteral("cannot apply metric retention: ") + db.errorMessage();
            return false;
        }
    }
    if (options.retention.traces > 0) {
        Sql::Statement del(db,
                           "DELETE FROM decision_traces WHERE id <= (SELECT max(id) FROM "
                           "decision_traces) - ?");
        del.bind(1, options.retention.traces);
        if (!del.run()) {
            *error = QStringLiteral("cannot apply trace retention: ") + db.errorMessage();
            return false;
        }
    }
    return true;
}

// --- readers ----------------------------------------------------------------------------------

struct Reader::Private
{
    Sql::Connection db;
    QString path;
};

Reader::Reader()
    : d(std::make_unique<Private>())
{}

Reader::~Reader() = default;

std::unique_ptr<Reader> Store::reader(QString *error) const
{
    return Reader::open(d->path, Reader::OpenMode::RequireCurrent, error);
}

QString Reader::path() const
{
    return d->path;
}

std::unique_ptr<Reader> Reader::open(const QString &path, OpenMode mode, QString *error)
{
    if (!QFileInfo::exists(path)) {
        if (error)
            *error = QStringLiteral("%1: no such file").arg(describeFile(path));
        return nullptr;
    }
    if (const QString why = refusedOutputReason(path); !why.isEmpty()) {
        if (error)
            *error = why;
        return nullptr;
    }
    std::unique_ptr<Reader> r(new Reader);
    r->d->path = path;
    QString err;
    // Read-write without create, then query_only: a read-only SQLite connection cannot always
    // use a WAL file another process owns.
    if (!r->d->db.open(path, Sql::Connection::Mode::ReadWrite, &err)
        && !r->d->db.open(path, Sql::Connection::Mode::ReadOnly, &err)) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(describeFile(path), err);
        return nullptr;
    }
    int v = Schema::version(r->d->db, &err);
    if (v < 0 && onReadOnlyFilesystem(path)) {
        // A WAL store needs its -shm file, which cannot be made on a read-only filesystem; as
        // nothing can write the file there either, it is read as immutable.
        r->d->db.close();
        QString again;
        if (r->d->db.open(path, Sql::Connection::Mode::Immutable, &again))
            v = Schema::version(r->d->db, &again);
        if (v < 0)
            err += QStringLiteral("; read as immutable on its read-only filesystem: ") + again;
    }
    if (v < 0) {
        if (error)
            *error = QStringLiteral("%1: not a readable Zhaoxi store (%2)")
                             .arg(describeFile(path), err);
        return nullptr;
    }
    if (v == 0) {
        if (error)
            *error = QStringLiteral("%1: an empty database, not a Zhaoxi store")
                             .arg(describeFile(path));
        return nullptr;
    }
    if (v != Schema::kCurrentVersion) {
        if (mode == OpenMode::RequireCurrent || v > Schema::kCurrentVersion) {
            if (error)
                *error = QStringLiteral("%1: schema version %2, this build reads version %3")
                                 .arg(describeFile(path))
                                 .arg(v)
                                 .arg(Schema::kCurrentVersion);
            return nullptr;
        }
        if (!Schema::migrate(r->d->db, &err)) {
            if (error)
                *error = QStringLiteral("%1: %2").arg(describeFile(path), err);
            return nullptr;
        }
    }
    r->d->db.exec("PRAGMA query_only=1; PRAGMA cache_size=-32768;");
    return r;
}

int Reader::schemaVersion()
{
    return Schema::version(d->db, nullptr);
}

namespace {

// A check pragma's findings, one per line: "ok" when there are none.
QString checkFindings(Sql::Connection &db, const QByteArray &pragma)
{
    Sql::Statement st(db, pragma.constData());
    if (!st.isValid())
        return db.errorMessage();
    QStringList lines;
    bool ok = true;
    while (st.step(&ok))
        lines << st.text(0);
    if (!ok)
        lines << db.errorMessage();
    return lines.join(QLatin1Char('\n'));
}

} // namespace

QString Reader::quickCheck(int maxLines)
{
    return checkFindings(d->db,
                         "PRAGMA quick_check(" + QByteArray::number(std::max(1, maxLines)) + ")");
}

QString Reader::integrityCheck()
{
    return checkFindings(d->db, "PRAGMA integrity_check");
}

namespace {

QByteArray whereClause(const EventFilter &f)
{
    QByteArray sql = " WHERE 1";
    auto list = [&](const char *column, qsizetype n) {
        sql += " AND ";
        sql += column;
        sql += " IN (";
        for (qsizetype i = 0; i < n; ++i)
            sql += i ? ",?" : "?";
        sql += ')';
    };
    if (f.fromMs)
        sql += " AND at_ms >= ?";
    if (f.toMs)
        sql += " AND at_ms < ?";
    if (!f.severities.isEmpty())
        list("severity", f.severities.size());
    if (!f.sources.isEmpty())
        list("source", f.sources.size());
    if (!f.cards.isEmpty())
        list("card", f.cards.size());
    if (!f.jobs.isEmpty()) {
        sql += " AND job IS NOT NULL";
        list("job", f.jobs.size());
    }
    if (!f.codes.isEmpty())
        list("code", f.codes.size());
    return sql;
}

void bindFilter(Sql::Statement &st, const EventFilter &f)
{
    int i = 1;
    if (f.fromMs)
        st.bind(i++, *f.fromMs);
    if (f.toMs)
        st.bind(i++, *f.toMs);
    for (Severity s : f.severities)
        st.bind(i++, qint64(s));
    for (Source s : f.sources)
        st.bind(i++, qint64(s));
    for (int c : f.cards)
        st.bind(i++, qint64(c));
    for (int j : f.jobs)
        st.bind(i++, qint64(j));
    for (const QByteArray &c : f.codes)
        st.bindText(i++, c);
}

void assignIfDifferent(QByteArray &target, const char *p, int n)
{
    // Most rows repeat a handful of codes: keep the buffer when it already holds the text.
    if (target.size() == n && (n == 0 || memcmp(target.constData(), p, size_t(n)) == 0))
        return;
    target = QByteArray(p, n);
}

} // namespace

bool Reader::forEachEvent(const EventFilter &filter,
                          const std::function<bool(const Event &)> &row,
                          QString *error)
{
    QByteArray sql
            = "SELECT id, at_ms, severity, source, code, card, partition_uid, job, actor, params "
              "FROM events";
    sql += whereClause(filter);
    sql += " ORDER BY at_ms, id";
    if (filter.limit >= 0)
        sql += " LIMIT " + QByteArray::number(filter.limit);
    Sql::Statement st(d->db, sql.constData());
    if (!st.isValid()) {
        if (error)
            *error = d->db.errorMessage();
        return false;
    }
    bindFilter(st, filter);
    Event e;
    bool ok = true;
    while (st.step(&ok)) {
        e.id = st.int64(0);
        e.atMs = st.int64(1);
        e.severity = Severity(st.int64(2));
        e.source = Source(st.int64(3));
        int n = 0;
        const char *p = st.rawText(4, &n);
        assignIfDifferent(e.code, p, n);
        e.card = st.isNull(5) ? -1 : int(st.int64(5));
        e.partition = st.isNull(6) ? -1 : int(st.int64(6));
        e.job = st.isNull(7) ? -1 : int(st.int64(7));
        p = st.rawText(8, &n);
        e.actor = p ? QString::fromUtf8(p, n) : QString();
        p = st.rawText(9, &n);
        if (p)
            e.params = QByteArray(p, n);
        else
            e.params.clear();
        if (!row(e))
            return true;
    }
    if (!ok) {
        if (error)
            *error = d->db.errorMessage();
        return false;
    }
    return true;
}

QList<Event> Reader::events(const EventFilter &filter, QString *error)
{
    QList<Event> r;
    forEachEvent(
            filter,
            [&](const Event &e) {
                r.append(e);
                return true;
            },
            error);
    return r;
}

qint64 Reader::countEvents(const EventFilter &filter, QString *error)
{
    const QByteArray sql = "SELECT count(*) FROM events" + whereClause(filter);
    Sql::Statement st(d->db, sql.constData());
    if (!st.isValid()) {
        if (error)
            *error = d->db.errorMessage();
        return -1;
    }
    bindFilter(st, filter);
    bool ok = true;
    if (st.step(&ok))
        return st.int64(0);
    if (error)
        *error = d->db.errorMessage();
    return -1;
}

QList<MetricPoint> Reader::series(
        const SeriesKey &key, Tier tier, qint64 fromMs, qint64 toMs, QString *error)
{
    QList<MetricPoint> r;
    Sql::Statement st(
            d->db,
            "SELECT m.at_ms, m.value, m.min, m.max, m.count FROM metric_series s "
            "JOIN metric_samples m ON m.series = s.id "
            "WHERE s.metric = ? AND s.card = ? AND s.partition_uid = ? AND s.service = ? "
            "AND s.job = ? AND m.tier = ? AND m.at_ms >= ? AND m.at_ms < ? ORDER BY m.at_ms");
    if (!st.isValid()) {
        if (error)
            *error = d->db.errorMessage();
        return r;
    }
    st.bind(1, qint64(key.metric));
    st.bind(2, qint64(key.card));
    st.bind(3, qint64(key.partition));
    const QByteArray service = key.service.toUtf8();
    st.bindText(4, service.isNull() ? QByteArray("") : service);
    st.bind(5, qint64(key.job));
    st.bind(6, qint64(tier));
    st.bind(7, fromMs);
    st.bind(8, toMs);
    bool ok = true;
    while (st.step(&ok))
        r.append(MetricPoint{st.int64(0), st.real(1), st.real(2), st.real(3), st.int64(4)});
    if (!ok && error)
        *error = d->db.errorMessage();
    return r;
}

QList<LatestMetric> Reader::latestMetrics(QString *error)
{
    QList<LatestMetric> r;
    Sql::Statement series(d->db,
                          "SELECT id, metric, card, partition_uid, service, job, labels "
                          "FROM metric_series ORDER BY metric, card, partition_uid, service, job");
    Sql::Statement newest(d->db,
                          "SELECT tier, at_ms, value, min, max, count FROM metric_samples "
                          "WHERE series = ? ORDER BY tier, at_ms DESC LIMIT 1");
    if (!series.isValid() || !newest.isValid()) {
        if (error)
            *error = d->db.errorMessage();
        return r;
    }
    bool ok = true;
    while (series.step(&ok)) {
        newest.reset();
        newest.bind(1, series.int64(0));
        if (!newest.step())
            continue;
        LatestMetric m;
        m.key.metric = Metric(series.int64(1));
        m.key.card = int(series.int64(2));
        m.key.partition = int(series.int64(3));
        m.key.service = series.text(4);
        m.key.job = int(series.int64(5));
        m.labels = labelsFromJson(series.bytes(6));
        m.tier = Tier(newest.int64(0));
        m.point = MetricPoint{
                newest.int64(1), newest.real(2), newest.real(3), newest.real(4), newest.int64(5)};
        r.append(m);
    }
    if (!ok && error)
        *error = d->db.errorMessage();
    return r;
}

std::optional<QByteArray> Reader::state(const QString &key, QString *error)
{
    Sql::Statement st(d->db, "SELECT value FROM state WHERE key = ?");
    st.bindText(1, key);
    bool ok = true;
    if (st.step(&ok))
        return st.bytes(0);
    if (!ok && error)
        *error = d->db.errorMessage();
    return std::nullopt;
}

QList<Reader::Trace> Reader::traces(int job, int limit, QString *error)
{
    QList<Trace> r;
    Sql::Statement st(d->db,
                      job >= 0 ? "SELECT at_ms, job, trace FROM decision_traces WHERE job = ? "
                                 "ORDER BY at_ms DESC, id DESC LIMIT ?"
                               : "SELECT at_ms, job, trace FROM decision_traces "
                                 "ORDER BY id DESC LIMIT ?");
    int i = 1;
    if (job >= 0)
        st.bind(i++, qint64(job));
    st.bind(i, qint64(limit));
    bool ok = true;
    while (st.step(&ok))
        r.append(Trace{st.int64(0), st.isNull(1) ? -1 : int(st.int64(1)), st.bytes(2)});
    if (!ok && error)
        *error = d->db.errorMessage();
    return r;
}

} // namespace Zhaoxi::Storage
