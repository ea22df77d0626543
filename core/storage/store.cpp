// SPDX-License-Identifier: GPL-3.0-or-later
// The store's enums, its file (guards, the writer's lock, checks, moving a corrupt file aside,
// migrations) and opening it. The writer thread is in storewriter.cpp, readers in storereader.cpp.
#include "store.h"

#include "schema.h"
#include "store_p.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>

#include <cstring>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace Zhaoxi::Storage {

using Detail::describeFile;

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
    case Metric::MemoryFreeMiB:
        return "memory-free-mib";
    case Metric::SmClockMHz:
        return "sm-clock-mhz";
    case Metric::TensorActive:
        return "tensor-active";
    case Metric::ServiceTimeMs:
        return "service-time-ms";
    case Metric::SloAttainment:
        return "slo-attainment";
    case Metric::TrainingWorkH:
        return "training-work-h";
    case Metric::Replicas:
        return "replicas";
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

// --- the file ---------------------------------------------------------------------------------

namespace Detail {

QString describeFile(const QString &path)
{
    return QDir::toNativeSeparators(path);
}

bool onReadOnlyFilesystem(const QString &path)
{
    struct statvfs fs = {};
    return ::statvfs(QFile::encodeName(path).constData(), &fs) == 0 && (fs.f_flag & ST_RDONLY);
}

} // namespace Detail

namespace {

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
    // Fewer, larger checkpoints: index pages touched by many batches are copied back once. The
    // WAL file is cut back to 64 MiB after each checkpoint, so a long-running service's WAL stays
    // bounded (at most one checkpoint interval plus the batch in flight).
    p.db.exec("PRAGMA synchronous=NORMAL; PRAGMA temp_store=MEMORY; PRAGMA cache_size=-65536; "
              "PRAGMA wal_autocheckpoint=16384; PRAGMA journal_size_limit=67108864;");
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

} // namespace Zhaoxi::Storage
