// SPDX-License-Identifier: GPL-3.0-or-later
// Files written by every earlier schema open as the current one, and unreadable files are moved
// aside (never deleted) for a fresh store that says where they went.
#include "core/storage/store.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

using namespace Zhaoxi::Storage;

namespace {

constexpr qint64 kT0 = Q_INT64_C(1714521600000);

// The schemas as they shipped, frozen here: fixtures must not follow the library's changes.
const char kSchemaV1[] = R"sql(
CREATE TABLE schema_version(version INTEGER NOT NULL);
INSERT INTO schema_version VALUES(1);
CREATE TABLE events(id INTEGER PRIMARY KEY, at_ms INTEGER NOT NULL, severity TEXT NOT NULL,
                    source TEXT NOT NULL, code TEXT NOT NULL, card INTEGER, job INTEGER, params TEXT);
CREATE INDEX events_at ON events(at_ms);
CREATE TABLE metrics(at_ms INTEGER NOT NULL, series TEXT NOT NULL, value REAL NOT NULL);
CREATE INDEX metrics_series ON metrics(series, at_ms);
CREATE TABLE state(key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO events VALUES(1, 1714521600000, 'info', 'scheduler', 'job-placed', 3, 7, '{"host":1}');
INSERT INTO events VALUES(2, 1714521601000, 'warning', 'policy', 'window-closing', NULL, NULL, NULL);
INSERT INTO events VALUES(3, 1714521602000, 'error', 'device', 'card-failed', 3, NULL, '{}');
INSERT INTO events VALUES(4, 1714521603000, 'info', 'operator', 'card-drained', 3, NULL,
                          '{"actor":"王芳","reason":"维护"}');
INSERT INTO events VALUES(5, 1714521604000, 'critical', 'device', 'card-lost', 4, NULL, 'not json');
INSERT INTO metrics VALUES(1714521600000, 'card/0/gpu-util', 40);
INSERT INTO metrics VALUES(1714521601000, 'card/0/gpu-util', 60);
INSERT INTO metrics VALUES(1714521600000, 'card/1/mig/3/memory-used-mib', 5120);
INSERT INTO metrics VALUES(1714521600000, 'service/chat/latency-p99-ms', 85.5);
INSERT INTO metrics VALUES(1714521600000, 'job/4/training-loss', 0.25);
INSERT INTO metrics VALUES(1714521600000, 'bogus/series', 1);
INSERT INTO state VALUES('queue', '{"jobs":[]}');
)sql";

const char kSchemaV2[] = R"sql(
CREATE TABLE schema_version(version INTEGER NOT NULL);
INSERT INTO schema_version VALUES(2);
CREATE TABLE events(id INTEGER PRIMARY KEY, at_ms INTEGER NOT NULL, severity TEXT NOT NULL,
                    source TEXT NOT NULL, code TEXT NOT NULL, card INTEGER, job INTEGER, params TEXT,
                    partition_uid INTEGER, actor TEXT);
CREATE INDEX events_at ON events(at_ms);
CREATE TABLE metrics(at_ms INTEGER NOT NULL, series TEXT NOT NULL, value REAL NOT NULL);
CREATE INDEX metrics_series ON metrics(series, at_ms);
CREATE TABLE state(key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_ms INTEGER NOT NULL DEFAULT 0);
CREATE TABLE decision_traces(id INTEGER PRIMARY KEY, at_ms INTEGER NOT NULL, job INTEGER, trace TEXT NOT NULL);
CREATE INDEX traces_job ON decision_traces(job, at_ms);
INSERT INTO events VALUES(1, 1714521600000, 'info', 'scheduler', 'job-placed', 3, 7, '{"host":1}', 2, NULL);
INSERT INTO events VALUES(2, 1714521601000, 'warning', 'policy', 'window-closing', NULL, NULL, NULL, NULL, NULL);
INSERT INTO events VALUES(3, 1714521602000, 'error', 'device', 'card-failed', 3, NULL, '{}', NULL, NULL);
INSERT INTO events VALUES(4, 1714521603000, 'info', 'operator', 'card-drained', 3, NULL,
                          '{"reason":"维护"}', NULL, '王芳');
INSERT INTO events VALUES(5, 1714521604000, 'critical', 'device', 'card-lost', 4, NULL, 'not json', NULL, NULL);
INSERT INTO metrics VALUES(1714521600000, 'card/0/gpu-util', 40);
INSERT INTO metrics VALUES(1714521601000, 'card/0/gpu-util', 60);
INSERT INTO metrics VALUES(1714521600000, 'card/1/mig/3/memory-used-mib', 5120);
INSERT INTO metrics VALUES(1714521600000, 'service/chat/latency-p99-ms', 85.5);
INSERT INTO metrics VALUES(1714521600000, 'job/4/training-loss', 0.25);
INSERT INTO metrics VALUES(1714521600000, 'bogus/series', 1);
INSERT INTO state VALUES('queue', '{"jobs":[]}', 1714521600000);
INSERT INTO decision_traces VALUES(1, 1714521600000, 7, '{"job":7}');
)sql";

bool writeFixture(const QString &path, const char *sql)
{
    sqlite3 *db = nullptr;
    if (sqlite3_open(path.toUtf8().constData(), &db) != SQLITE_OK)
        return false;
    char *msg = nullptr;
    const bool ok = sqlite3_exec(db, sql, nullptr, nullptr, &msg) == SQLITE_OK;
    if (!ok)
        qWarning("fixture: %s", msg);
    sqlite3_free(msg);
    sqlite3_close(db);
    return ok;
}

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestMigrations : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void everyEarlierVersionMigrates_data();
    void everyEarlierVersionMigrates();
    void readersMigrateOnlyWhenAsked();
    void aNewerSchemaIsRefusedAndLeftAlone();
    void unreadableFilesAreMovedAside_data();
    void unreadableFilesAreMovedAside();
    void readersNeverMoveAFile();
    void operatorEventsAreAppendOnly_data();
    void operatorEventsAreAppendOnly();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
};

void TestMigrations::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

void TestMigrations::everyEarlierVersionMigrates_data()
{
    QTest::addColumn<int>("version");
    QTest::newRow("v1") << 1;
    QTest::newRow("v2") << 2;
}

void TestMigrations::everyEarlierVersionMigrates()
{
    QFETCH(int, version);
    const QString path = m_dir->filePath(QStringLiteral("old.sqlite"));
    QVERIFY(writeFixture(path, version == 1 ? kSchemaV1 : kSchemaV2));

    OpenReport report;
    QString err;
    auto store = Store::open(path, {}, &report, &err);
    QVERIFY2(store, qPrintable(err));
    QCOMPARE(report.migratedFrom, version);
    QVERIFY(report.movedAsideTo.isEmpty());
    auto reader = store->reader(&err);
    QVERIFY2(reader, qPrintable(err));
    QCOMPARE(reader->schemaVersion(), 4);
    QCOMPARE(reader->integrityCheck(), QStringLiteral("ok"));

    // Events: severities and sources as enums, the actor out of the params (v1), ids kept.
    const QList<Event> ev = reader->events({});
    QCOMPARE(ev.size(), 5);
    QCOMPARE(ev[0].id, 1);
    QCOMPARE(ev[0].code, QByteArray("job-placed"));
    QCOMPARE(ev[0].card, 3);
    QCOMPARE(ev[0].job, 7);
    QCOMPARE(ev[0].partition, version == 2 ? 2 : -1);
    QCOMPARE(ev[1].severity, Severity::Warning);
    QCOMPARE(ev[1].source, Source::Policy);
    QCOMPARE(ev[2].severity, Severity::Error);
    QCOMPARE(ev[2].source, Source::Device);
    QCOMPARE(ev[3].source, Source::Operator);
    QCOMPARE(ev[3].actor, QStringLiteral("王芳"));
    QCOMPARE(ev[4].severity, Severity::Critical);
    QCOMPARE(ev[4].params, QByteArray("not json")); // carried, not dropped
    // Filters work on migrated rows (the indexes exist).
    EventFilter f;
    f.cards = {3};
    f.severities = {Severity::Error};
    QCOMPARE(reader->countEvents(f), 1);

    // Metrics: text series parsed into keyed series, raw tier.
    const auto util = reader->series({Metric::GpuUtil, 0, -1, {}, -1}, Tier::Raw, 0, kT0 + 10000);
    QCOMPARE(util.size(), 2);
    QCOMPARE(util[1].value, 60.0);
    QCOMPARE(reader->series({Metric::MemoryUsedMiB, 1, 3, {}, -1}, Tier::Raw, 0, kT0 + 1)
                     .value(0)
                     .value,
             5120.0);
    QCOMPARE(reader->series({Metric::LatencyP99Ms, -1, -1, QStringLiteral("chat"), -1},
                            Tier::Raw,
                            0,
                            kT0 + 1)
                     .size(),
             1);
    QCOMPARE(reader->series({Metric::TrainingLoss, -1, -1, {}, 4}, Tier::Raw, 0, kT0 + 1).size(),
             1);
    QCOMPARE(reader->latestMetrics().size(), 4); // the unparseable series is counted, not kept

    // State and traces.
    QCOMPARE(reader->state(QStringLiteral("queue")).value(), QByteArray(R"({"jobs":[]})"));
    QCOMPARE(reader->traces(7, 10).size(), version == 2 ? 1 : 0);

    // New writes continue after the migrated ids.
    Event e;
    e.atMs = kT0 + 10000;
    e.code = "after-migration";
    QCOMPARE(store->append(e), 6);
    QVERIFY(store->flush());

    // Reopening does not migrate again.
    store.reset();
    store = Store::open(path, {}, &report, &err);
    QVERIFY(store);
    QCOMPARE(report.migratedFrom, 0);
}

void TestMigrations::readersMigrateOnlyWhenAsked()
{
    const QString path = m_dir->filePath(QStringLiteral("old.sqlite"));
    QVERIFY(writeFixture(path, kSchemaV1));
    QString err;
    QVERIFY(!Reader::open(path, Reader::OpenMode::RequireCurrent, &err));
    QVERIFY2(err.contains(QStringLiteral("schema version 1")), qPrintable(err));
    auto reader = Reader::open(path, Reader::OpenMode::MigrateIfOlder, &err);
    QVERIFY2(reader, qPrintable(err));
    QCOMPARE(reader->schemaVersion(), 4);
    QCOMPARE(reader->countEvents({}), 5);
}

void TestMigrations::aNewerSchemaIsRefusedAndLeftAlone()
{
    const QString path = m_dir->filePath(QStringLiteral("future.sqlite"));
    QVERIFY(writeFixture(path,
                         "CREATE TABLE schema_version(version INTEGER NOT NULL);"
                         "INSERT INTO schema_version VALUES(99);"));
    const QByteArray before = readFile(path);
    QString err;
    QVERIFY(!Store::open(path, &err));
    QVERIFY2(err.contains(QStringLiteral("99")) && err.contains(path), qPrintable(err));
    QCOMPARE(readFile(path), before);
    QCOMPARE(QDir(m_dir->path()).entryList({QStringLiteral("*.corrupt-*")}), QStringList());
}

void TestMigrations::unreadableFilesAreMovedAside_data()
{
    QTest::addColumn<QString>("damage");
    QTest::newRow("garbage bytes") << QStringLiteral("garbage");
    QTest::newRow("a page overwritten") << QStringLiteral("page");
    QTest::newRow("truncated") << QStringLiteral("truncated");
    QTest::newRow("another program's database") << QStringLiteral("foreign");
}

void TestMigrations::unreadableFilesAreMovedAside()
{
    QFETCH(QString, damage);
    const QString path = m_dir->filePath(QStringLiteral("store.sqlite"));
    if (damage == QLatin1String("foreign")) {
        QVERIFY(writeFixture(path, "CREATE TABLE photos(id INTEGER PRIMARY KEY, name TEXT);"));
    } else if (damage == QLatin1String("garbage")) {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(64 * 1024, 'Z'));
    } else {
        // A real store with data, closed cleanly, then damaged.
        QString err;
        {
            auto store = Store::open(path, &err);
            QVERIFY(store);
            for (int i = 0; i < 20000; ++i) {
                Event e;
                e.atMs = kT0 + i;
                e.code = "filler";
                e.card = i % 8;
                e.job = i;
                e.params
                        = R"({"pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"})";
                store->append(e);
            }
            QVERIFY(store->flush());
        }
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadWrite));
        const qint64 size = f.size();
        QVERIFY(size > 64 * 4096);
        if (damage == QLatin1String("truncated")) {
            QVERIFY(f.resize(size / 2 + 1234));
        } else {
            // Overwrite several b-tree pages in the middle (not the header).
            f.seek(size / 3 / 4096 * 4096);
            f.write(QByteArray(8 * 4096, '\x5a'));
        }
    }
    const QByteArray damaged = readFile(path);

    OpenReport report;
    QString err;
    StoreOptions options;
    options.nowMs = [] { return kT0 + 9 * 3600 * 1000 + 12 * 60 * 1000; }; // 09:12
    auto store = Store::open(path, options, &report, &err);
    QVERIFY2(store, qPrintable(err));
    QVERIFY2(!report.movedAsideTo.isEmpty(), "the damaged file was not noticed");
    QVERIFY(!report.problem.isEmpty());
    QCOMPARE(report.movedAsideTo, path + QStringLiteral(".corrupt-20240501T091200Z"));
    // Moved, never deleted: the old bytes are all there.
    QCOMPARE(readFile(report.movedAsideTo), damaged);

    // The fresh store's first event says where the old file went, durably.
    auto reader = store->reader(&err);
    QVERIFY2(reader, qPrintable(err));
    const QList<Event> ev = reader->events({});
    QCOMPARE(ev.size(), 1);
    QCOMPARE(ev[0].code, QByteArray("store-moved-aside"));
    QCOMPARE(ev[0].source, Source::System);
    QCOMPARE(ev[0].severity, Severity::Error);
    const QJsonObject params = QJsonDocument::fromJson(ev[0].params).object();
    QCOMPARE(params.value(QStringLiteral("movedTo")).toString(), report.movedAsideTo);
    QCOMPARE(params.value(QStringLiteral("problem")).toString(), report.problem);

    // A second damaged file on the same second gets its own name.
    reader.reset();
    store.reset();
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(QByteArray(8192, 'Q'));
    f.close();
    store = Store::open(path, options, &report, &err);
    QVERIFY(store);
    QCOMPARE(report.movedAsideTo, path + QStringLiteral(".corrupt-20240501T091200Z-2"));
}

void TestMigrations::readersNeverMoveAFile()
{
    const QString path = m_dir->filePath(QStringLiteral("bad.sqlite"));
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(8192, 'Z'));
    }
    QString err;
    QVERIFY(!Reader::open(path, Reader::OpenMode::MigrateIfOlder, &err));
    QVERIFY2(err.contains(path), qPrintable(err));
    QVERIFY(QFile::exists(path));
    QCOMPARE(QDir(m_dir->path()).entryList({QStringLiteral("*.corrupt-*")}), QStringList());
    QVERIFY(!Reader::open(m_dir->filePath(QStringLiteral("absent.sqlite")),
                          Reader::OpenMode::RequireCurrent,
                          &err));
    QVERIFY(err.contains(QStringLiteral("no such file")));
    QVERIFY(!QFile::exists(m_dir->filePath(QStringLiteral("absent.sqlite"))));
}

void TestMigrations::operatorEventsAreAppendOnly_data()
{
    QTest::addColumn<bool>("migrated");
    QTest::newRow("a new store") << false;
    QTest::newRow("migrated from v2") << true;
}

// The audit trail (operator events) cannot be changed or deleted through SQL, on a new store and
// on one migrated from an earlier schema; other events can (nothing else relies on that, but the
// triggers must name only the operator's).
void TestMigrations::operatorEventsAreAppendOnly()
{
    QFETCH(bool, migrated);
    const QString path = m_dir->filePath(QStringLiteral("audit.sqlite"));
    if (migrated)
        QVERIFY(writeFixture(path, kSchemaV2));
    QString err;
    {
        auto store = Store::open(path, &err);
        QVERIFY2(store, qPrintable(err));
        Event op;
        op.atMs = 1000;
        op.source = Source::Operator;
        op.code = "operator-priority";
        op.actor = QStringLiteral("alice");
        store->append(op);
        Event sched;
        sched.atMs = 1001;
        sched.code = "job-placed";
        store->append(sched);
        QVERIFY(store->flush());
    }
    QVERIFY(!writeFixture(path, "UPDATE events SET actor = 'mallory' WHERE source = 3;"));
    QVERIFY(!writeFixture(path, "DELETE FROM events WHERE source = 3;"));
    QVERIFY(writeFixture(path, "UPDATE events SET code = 'job-started' WHERE source = 0;"));
    auto reader = Reader::open(path, Reader::OpenMode::RequireCurrent, &err);
    QVERIFY2(reader, qPrintable(err));
    EventFilter f;
    f.sources = {Source::Operator};
    const QList<Event> ops = reader->events(f);
    QCOMPARE(ops.size(), migrated ? 2 : 1); // the fixture's own operator event, and alice's
    QCOMPARE(ops.first().actor, QStringLiteral("alice")); // by time: hers is the earlier
    QCOMPARE(reader->countEvents({}), migrated ? 7 : 2);
}

QTEST_GUILESS_MAIN(TestMigrations)
#include "tst_migrations.moc"
