// SPDX-License-Identifier: GPL-3.0-or-later
// The store as the console uses it: events in and out with filters, readers beside the writer,
// state across restarts, metrics roll-ups and retention, the Recorder and the state codec.
#include "core/catalogue/catalogue.h"
#include "core/storage/recorder.h"
#include "core/storage/statecodec.h"
#include "core/storage/store.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>
#include <sys/stat.h>

using namespace Zhaoxi;
using namespace Zhaoxi::Storage;

namespace {

constexpr qint64 kDay = 24 * 3600 * 1000;
constexpr qint64 kT0 = Q_INT64_C(1714521600000); // 2024-05-01T00:00:00Z

Event makeEvent(int i)
{
    Event e;
    e.atMs = kT0 + qint64(i) * 3600 * 1000 / 7; // about 7 an hour, spanning days
    e.severity = Severity(i % 4);
    e.source = Source(i % 5 == 4 ? 3 : i % 3);
    e.code = i % 2 ? QByteArray("job-placed") : QByteArray("card-failed");
    e.card = i % 6 == 0 ? -1 : i % 8;
    e.partition = i % 3 == 0 ? i % 7 : -1;
    e.job = i % 5 == 0 ? -1 : i % 40;
    if (e.source == Source::Operator)
        e.actor = QStringLiteral("张伟");
    e.params = R"({"host":)" + QByteArray::number(i % 3) + R"(,"note":"第)" + QByteArray::number(i)
               + R"(条"})";
    return e;
}

bool matches(const Event &e, const EventFilter &f)
{
    return (!f.fromMs || e.atMs >= *f.fromMs) && (!f.toMs || e.atMs < *f.toMs)
           && (f.severities.isEmpty() || f.severities.contains(e.severity))
           && (f.sources.isEmpty() || f.sources.contains(e.source))
           && (f.cards.isEmpty() || f.cards.contains(e.card))
           && (f.jobs.isEmpty() || f.jobs.contains(e.job))
           && (f.codes.isEmpty() || f.codes.contains(e.code));
}

const Catalogue::Catalogue &catalogue()
{
    static const Catalogue::Catalogue c = Catalogue::Catalogue::builtIn();
    return c;
}

} // namespace

class TestStore : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void createsAWalStoreAtTheGivenPath();
    void storesAreTheOwnersOnlyAndNeverOpenedThroughALink();
    void oneWriterAtATime();
    void flushReportsFailuresOfEarlierBatches();
    void defaultPathIsInTheUserDataDirectory();
    void eventsComeBackAsAppended();
    void filters_data();
    void filters();
    void readersNeverBlockTheWriter();
    void stateSurvivesARestart();
    void metricsRollUpIntoMinutesAndQuarterHours();
    void lateSamplesAreRolledUpAgain();
    void retentionKeepsOnlyRolledUpData();
    void recorderMapsSchedulerEvents();
    void recorderNamesSchedulerParams_data();
    void recorderNamesSchedulerParams();
    void recorderLabelsDeviceSeries();
    void stateCodecRestoresLayoutsAndQueue();
    void decisionTracesAreKept();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    QString path(const QString &name) const { return m_dir->filePath(name); }
};

void TestStore::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

void TestStore::createsAWalStoreAtTheGivenPath()
{
    OpenReport report;
    QString err;
    auto store = Store::open(path(QStringLiteral("sub/dir/a.sqlite")), {}, &report, &err);
    QVERIFY2(store, qPrintable(err));
    QVERIFY(report.created);
    QVERIFY(report.movedAsideTo.isEmpty());
    store->append(makeEvent(1));
    QVERIFY(store->flush());
    QVERIFY(QFile::exists(path(QStringLiteral("sub/dir/a.sqlite-wal"))));
    auto reader = store->reader(&err);
    QVERIFY2(reader, qPrintable(err));
    QCOMPARE(reader->schemaVersion(), 4);
}

// Issue 14: a store is created 0600 (its -wal too) and never through a symbolic link at its
// path (the classic attack on a shared directory): the link's target is left untouched.
void TestStore::storesAreTheOwnersOnlyAndNeverOpenedThroughALink()
{
    const auto mode = [](const QString &file) {
        struct stat st = {};
        return ::stat(QFile::encodeName(file).constData(), &st) == 0 ? int(st.st_mode & 0777) : -1;
    };
    QString err;
    {
        auto store = Store::open(path(QStringLiteral("private.sqlite")), &err);
        QVERIFY2(store, qPrintable(err));
        store->append(makeEvent(1));
        QVERIFY(store->flush());
        QCOMPARE(mode(path(QStringLiteral("private.sqlite"))), 0600);
        QCOMPARE(mode(path(QStringLiteral("private.sqlite-wal"))), 0600);
    }

    const QString victim = path(QStringLiteral("victim.txt"));
    QFile v(victim);
    QVERIFY(v.open(QIODevice::WriteOnly));
    v.write("not a store\n");
    v.close();
    const QString link = path(QStringLiteral("link.sqlite"));
    QVERIFY(QFile::link(victim, link));
    QVERIFY(!Store::open(link, &err));
    QVERIFY2(err.contains(QStringLiteral("symbolic link")) && err.contains(link), qPrintable(err));
    QVERIFY(!Reader::open(link, Reader::OpenMode::RequireCurrent, &err));
    QVERIFY2(err.contains(QStringLiteral("symbolic link")), qPrintable(err));
    // A dangling link is no better: it would create the store where it points.
    const QString dangling = path(QStringLiteral("dangling.sqlite"));
    QVERIFY(QFile::link(path(QStringLiteral("elsewhere.sqlite")), dangling));
    QVERIFY(!Store::open(dangling, &err));
    QVERIFY(!QFile::exists(path(QStringLiteral("elsewhere.sqlite"))));
    QVERIFY(v.open(QIODevice::ReadOnly));
    QCOMPARE(v.readAll(), QByteArray("not a store\n"));
    QVERIFY(!QFile::exists(victim + QStringLiteral("-wal")));
}

// Issue 14: a second writer on one store is refused at once, naming the holder; never two
// writers each believing their run stored. Readers are not writers.
void TestStore::oneWriterAtATime()
{
    const QString p = path(QStringLiteral("shared.sqlite"));
    QString err;
    auto first = Store::open(p, &err);
    QVERIFY2(first, qPrintable(err));
    QVERIFY(!Store::open(p, &err));
    QVERIFY2(err.contains(QStringLiteral("another process (pid %1) has it open for writing")
                                  .arg(QCoreApplication::applicationPid())),
             qPrintable(err));
    first->append(makeEvent(1));
    QVERIFY(first->flush());
    auto reader = Reader::open(p, Reader::OpenMode::RequireCurrent, &err);
    QVERIFY2(reader, qPrintable(err));
    QCOMPARE(reader->countEvents({}), qint64(1));
    first.reset();
    auto second = Store::open(p, &err);
    QVERIFY2(second, qPrintable(err));
}

// Issue 14: a commit that failed before flush() was called still makes it false (a writer that
// flushes once at its end exited 0 with events lost).
void TestStore::flushReportsFailuresOfEarlierBatches()
{
    QString err;
    auto store = Store::open(path(QStringLiteral("fail.sqlite")), &err);
    QVERIFY2(store, qPrintable(err));
    // Another hand drops a table under the writer: the next batch that writes to it fails.
    sqlite3 *raw = nullptr;
    QCOMPARE(sqlite3_open(QFile::encodeName(path(QStringLiteral("fail.sqlite"))).constData(), &raw),
             SQLITE_OK);
    QCOMPARE(sqlite3_exec(raw, "DROP TABLE decision_traces", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(raw);
    store->appendTrace(1, 1, QByteArray("{}"));
    QTRY_VERIFY(!store->lastError().isEmpty()); // its batch has failed by now
    store->append(makeEvent(2));
    QVERIFY(!store->flush()); // it reports the earlier failure
    QVERIFY(store->flush());  // once
}

void TestStore::defaultPathIsInTheUserDataDirectory()
{
    QStandardPaths::setTestModeEnabled(true);
    const QString p = Store::defaultPath(QStringLiteral("lab 1/朝夕"));
    QVERIFY(p.startsWith(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)));
    QVERIFY(p.endsWith(QStringLiteral("lab_1_朝夕.zhaoxi.sqlite")));
}

void TestStore::eventsComeBackAsAppended()
{
    QString err;
    auto store = Store::open(path(QStringLiteral("e.sqlite")), &err);
    QVERIFY2(store, qPrintable(err));
    QList<Event> written;
    for (int i = 0; i < 500; ++i) {
        Event e = makeEvent(i);
        e.id = store->append(e);
        written << e;
    }
    QCOMPARE(written.first().id, 1);
    QCOMPARE(written.last().id, 500);
    QVERIFY(store->flush());
    QCOMPARE(store->committedEventId(), 500);
    auto reader = store->reader();
    const QList<Event> read = reader->events({}, &err);
    QVERIFY2(err.isEmpty(), qPrintable(err));
    QCOMPARE(read.size(), written.size());
    for (int i = 0; i < read.size(); ++i)
        QCOMPARE(read[i], written[i]);
    // Ids continue after a restart.
    store.reset();
    store = Store::open(path(QStringLiteral("e.sqlite")), &err);
    QCOMPARE(store->append(makeEvent(1)), 501);
}

void TestStore::filters_data()
{
    QTest::addColumn<EventFilter>("filter");
    auto f = [](auto fill) {
        EventFilter x;
        fill(x);
        return x;
    };
    QTest::newRow("everything") << EventFilter{};
    QTest::newRow("one day") << f([](EventFilter &x) {
        x.fromMs = kT0 + kDay;
        x.toMs = kT0 + 2 * kDay;
    });
    QTest::newRow("from only") << f([](EventFilter &x) { x.fromMs = kT0 + 3 * kDay; });
    QTest::newRow("errors and criticals") << f([](EventFilter &x) {
        x.severities = {Severity::Error, Severity::Critical};
    });
    QTest::newRow("operator actions") << f([](EventFilter &x) { x.sources = {Source::Operator}; });
    QTest::newRow("cards 2 and 5") << f([](EventFilter &x) { x.cards = {2, 5}; });
    QTest::newRow("job 7") << f([](EventFilter &x) { x.jobs = {7}; });
    QTest::newRow("a code") << f([](EventFilter &x) { x.codes = {"card-failed"}; });
    QTest::newRow("a day of one card's warnings from the scheduler") << f([](EventFilter &x) {
        x.fromMs = kT0 + kDay;
        x.toMs = kT0 + 2 * kDay;
        x.cards = {1, 3};
        x.severities = {Severity::Warning};
        x.sources = {Source::Scheduler, Source::Device};
    });
    QTest::newRow("nothing matches") << f([](EventFilter &x) { x.jobs = {12345}; });
    QTest::newRow("limit") << f([](EventFilter &x) { x.limit = 10; });
}

void TestStore::filters()
{
    QFETCH(EventFilter, filter);
    QString err;
    auto store = Store::open(path(QStringLiteral("f.sqlite")), &err);
    QList<Event> all;
    for (int i = 0; i < 1000; ++i) {
        Event e = makeEvent(i);
        e.id = store->append(e);
        all << e;
    }
    QVERIFY(store->flush());
    QList<Event> expected;
    for (const Event &e : all) {
        if (matches(e, filter) && (filter.limit < 0 || expected.size() < filter.limit))
            expected << e;
    }
    auto reader = store->reader();
    QCOMPARE(reader->events(filter, &err), expected);
    QVERIFY2(err.isEmpty(), qPrintable(err));
    EventFilter unlimited = filter;
    unlimited.limit = -1;
    qint64 n = 0;
    for (const Event &e : all)
        n += matches(e, unlimited);
    QCOMPARE(reader->countEvents(unlimited), n);
}

void TestStore::readersNeverBlockTheWriter()
{
    QString err;
    auto store = Store::open(path(QStringLiteral("r.sqlite")), &err);
    for (int i = 0; i < 100; ++i)
        store->append(makeEvent(i));
    QVERIFY(store->flush());
    auto reader = store->reader();
    int seen = 0;
    bool flushed = false;
    // In the middle of a read, the writer commits more; the reader keeps its snapshot.
    QVERIFY(reader->forEachEvent({}, [&](const Event &) {
        if (++seen == 1) {
            for (int i = 0; i < 1000; ++i)
                store->append(makeEvent(i));
            flushed = store->flush();
        }
        return true;
    }));
    QVERIFY(flushed);
    QCOMPARE(seen, 100);
    QCOMPARE(reader->countEvents({}), 1100);
}

void TestStore::stateSurvivesARestart()
{
    QString err;
    const QString p = path(QStringLiteral("s.sqlite"));
    {
        auto store = Store::open(p, &err);
        store->putState(QLatin1String(StateKey::Windows), R"({"windows":[1]})", kT0);
        store->putState(QLatin1String(StateKey::Windows), R"({"windows":[1,2]})", kT0 + 1);
        store->putState(QLatin1String(StateKey::Policy), R"({"policy":"load-aware"})", kT0);
    } // closing commits what is queued
    auto store = Store::open(p, &err);
    QVERIFY2(store, qPrintable(err));
    auto reader = store->reader();
    QCOMPARE(reader->state(QLatin1String(StateKey::Windows)).value(),
             QByteArray(R"({"windows":[1,2]})"));
    QCOMPARE(reader->state(QLatin1String(StateKey::Policy)).value(),
             QByteArray(R"({"policy":"load-aware"})"));
    QVERIFY(!reader->state(QStringLiteral("absent")));
}

void TestStore::metricsRollUpIntoMinutesAndQuarterHours()
{
    QString err;
    auto store = Store::open(path(QStringLiteral("m.sqlite")), &err);
    const SeriesKey key{Metric::GpuUtil, 0, -1, {}, -1};
    // Two hours of 1 s samples: value = the minute's index, so each minute's mean is known.
    for (qint64 s = 0; s < 7200; ++s)
        store->appendMetric(MetricSample{key, kT0 + s * 1000, double(s / 60), {}});
    store->compact(kT0 + 7200 * 1000);
    QVERIFY(store->flush());
    auto reader = store->reader();
    const auto minutes = reader->series(key, Tier::Minute, kT0, kT0 + 7200 * 1000);
    QCOMPARE(minutes.size(), 120);
    for (int m = 0; m < 120; ++m) {
        QCOMPARE(minutes[m].atMs, kT0 + m * 60000);
        QCOMPARE(minutes[m].value, double(m));
        QCOMPARE(minutes[m].count, 60);
        QCOMPARE(minutes[m].min, double(m));
    }
    const auto quarters = reader->series(key, Tier::QuarterHour, kT0, kT0 + 7200 * 1000);
    QCOMPARE(quarters.size(), 8);
    for (int q = 0; q < 8; ++q) {
        QCOMPARE(quarters[q].count, 900);
        QCOMPARE(quarters[q].value, q * 15 + 7.0); // mean of 15 minutes q*15 .. q*15+14
        QCOMPARE(quarters[q].min, double(q * 15));
        QCOMPARE(quarters[q].max, double(q * 15 + 14));
    }
}

void TestStore::lateSamplesAreRolledUpAgain()
{
    QString err;
    auto store = Store::open(path(QStringLiteral("late.sqlite")), &err);
    const SeriesKey key{Metric::PowerW, 1, -1, {}, -1};
    for (qint64 s = 0; s < 180; ++s)
        store->appendMetric(MetricSample{key, kT0 + s * 1000, 100, {}});
    store->compact(kT0 + 180 * 1000);
    // A sample that arrives late, for the first minute.
    store->appendMetric(MetricSample{key, kT0 + 500, 160, {}});
    store->compact(kT0 + 181 * 1000);
    QVERIFY(store->flush());
    const auto minutes = store->reader()->series(key, Tier::Minute, kT0, kT0 + 180 * 1000);
    QCOMPARE(minutes.size(), 3);
    QCOMPARE(minutes[0].count, 61);
    QCOMPARE(minutes[0].max, 160.0);
    QCOMPARE(minutes[0].value, (60 * 100 + 160) / 61.0);
    QCOMPARE(minutes[1].count, 60);
}

void TestStore::retentionKeepsOnlyRolledUpData()
{
    QString err;
    StoreOptions options;
    options.retention.rawMs = 3600 * 1000;        // an hour of raw samples
    options.retention.minuteMs = 2 * 3600 * 1000; // two hours of minutes
    auto store = Store::open(path(QStringLiteral("ret.sqlite")), options, nullptr, &err);
    const SeriesKey key{Metric::TemperatureC, 2, -1, {}, -1};
    const qint64 hours = 5;
    for (qint64 s = 0; s < hours * 3600; s += 10)
        store->appendMetric(MetricSample{key, kT0 + s * 1000, 50, {}});
    const qint64 now = kT0 + hours * 3600 * 1000;
    store->compact(now);
    QVERIFY(store->flush());
    auto reader = store->reader();
    const auto raw = reader->series(key, Tier::Raw, 0, now);
    QVERIFY(!raw.isEmpty());
    QVERIFY(raw.first().atMs >= now - 3600 * 1000);
    const auto minutes = reader->series(key, Tier::Minute, 0, now);
    QVERIFY(minutes.first().atMs >= now - 2 * 3600 * 1000);
    const auto quarters = reader->series(key, Tier::QuarterHour, 0, now);
    QCOMPARE(quarters.size(), 20); // all five hours survive at 15 min
    QCOMPARE(quarters.first().atMs, kT0);
}

void TestStore::recorderMapsSchedulerEvents()
{
    QString err;
    auto store = Store::open(path(QStringLiteral("rec.sqlite")), &err);
    Recorder recorder(*store);
    Sched::EventSink &sink = recorder;
    Sched::SchedEvent placed;
    placed.atMs = kT0;
    placed.code = Sched::EventCode::JobPlaced;
    placed.job = Domain::JobId(7);
    placed.host = Domain::HostId(2);
    placed.card = Domain::CardId(3);
    placed.uid = 1;
    sink.record(placed);
    Sched::SchedEvent waiting;
    waiting.atMs = kT0 + 1;
    waiting.code = Sched::EventCode::JobWaiting;
    waiting.job = Domain::JobId(8);
    waiting.reason = Sched::Reason::CardMemoryInUse;
    sink.record(waiting);
    Sched::SchedEvent failed;
    failed.atMs = kT0 + 2;
    failed.code = Sched::EventCode::CardFailed;
    failed.card = Domain::CardId(1);
    sink.record(failed);
    recorder.recordOperator(kT0 + 3,
                            QStringLiteral("李娜"),
                            "card-drained",
                            QJsonObject{{QStringLiteral("card"), 1}},
                            Subject{1, -1, -1});
    recorder.recordPolicy(kT0 + 4,
                          "window-opened",
                          Severity::Info,
                          QJsonObject{{QStringLiteral("window"), QStringLiteral("night")}});
    QVERIFY(store->flush());
    const QList<Event> ev = store->reader()->events({});
    QCOMPARE(ev.size(), 5);
    QCOMPARE(ev[0].code, QByteArray("job-placed"));
    QCOMPARE(ev[0].source, Source::Scheduler);
    QCOMPARE(ev[0].job, 7);
    QCOMPARE(ev[0].card, 3);
    QCOMPARE(ev[0].partition, 1);
    QCOMPARE(QJsonDocument::fromJson(ev[0].params).object().value(QStringLiteral("host")).toInt(),
             2);
    QCOMPARE(QJsonDocument::fromJson(ev[1].params)
                     .object()
                     .value(QStringLiteral("reason"))
                     .toString(),
             QString::fromLatin1(Sched::reasonCode(Sched::Reason::CardMemoryInUse)));
    QCOMPARE(ev[2].severity, Severity::Error);
    QCOMPARE(ev[3].source, Source::Operator);
    QCOMPARE(ev[3].actor, QStringLiteral("李娜"));
    QCOMPARE(ev[4].source, Source::Policy);
}

void TestStore::recorderNamesSchedulerParams_data()
{
    QTest::addColumn<int>("code");
    QTest::addColumn<QByteArray>("params");

    QTest::newRow("waiting")
            << int(Sched::EventCode::JobWaiting)
            << QByteArray(R"({"have":1500,"need":2000,"reason":"card-compute-in-use"})");
    QTest::newRow("preempting") << int(Sched::EventCode::JobPreempting)
                                << QByteArray(R"({"evictionAtMs":90000,"other":4})");
    QTest::newRow("evicted") << int(Sched::EventCode::JobEvicted)
                             << QByteArray(R"({"workLostMs":300000})");
    QTest::newRow("mode") << int(Sched::EventCode::CardModeChanged)
                          << QByteArray(R"({"mode":"mps"})");
    QTest::newRow("priority") << int(Sched::EventCode::JobPriorityChanged)
                              << QByteArray(R"({"previousPriority":1,"priority":5})");
}

// Each scheduler event's parameters under their own names, no "value" whatever the code.
void TestStore::recorderNamesSchedulerParams()
{
    QFETCH(int, code);
    QFETCH(QByteArray, params);
    auto store = Store::open(path(QStringLiteral("n.sqlite")));
    QVERIFY(store);
    Recorder recorder(*store);
    Sched::SchedEvent e;
    e.atMs = kT0;
    e.code = Sched::EventCode(code);
    e.job = Domain::JobId(2);
    switch (e.code) {
    case Sched::EventCode::JobWaiting:
        e.reason = Sched::Reason::CardComputeInUse;
        e.need = 2000;
        e.have = 1500;
        break;
    case Sched::EventCode::JobPreempting:
        e.other = Domain::JobId(4);
        e.evictionAtMs = 90000;
        break;
    case Sched::EventCode::JobEvicted:
        e.workLostMs = 300000;
        break;
    case Sched::EventCode::CardModeChanged:
        e.mode = Domain::PartitionMode::Mps;
        break;
    default:
        e.priority = 5;
        e.previousPriority = 1;
    }
    recorder.record(e);
    QVERIFY(store->flush());
    const QList<Event> ev = store->reader()->events({});
    QCOMPARE(ev.size(), 1);
    QCOMPARE(QJsonDocument::fromJson(ev[0].params).toJson(QJsonDocument::Compact), params);
}

void TestStore::recorderLabelsDeviceSeries()
{
    Sched::ClusterState state(catalogue());
    const int a100 = catalogue().indexOf(QStringLiteral("A100-SXM4-40GB"));
    QVERIFY(a100 >= 0);
    const Domain::HostId h = state.addHost(QStringLiteral("node-a"), 64000, 512 * 1024);
    const Domain::CardId c = state.addCard(h, a100, Domain::PartitionMode::Mig);
    const int uid = state.createPartition(
            c, catalogue().models()[a100].profileIndex(QStringLiteral("3g.20gb")), 0);
    QString err;
    auto store = Store::open(path(QStringLiteral("labels.sqlite")), &err);
    Recorder recorder(*store);
    recorder.setState(&state);
    recorder.recordMetric(kT0, {Metric::GrEngineActive, c.value(), uid, {}, -1}, 0.5);
    recorder.recordMetric(kT0 + 1000, {Metric::GrEngineActive, c.value(), uid, {}, -1}, 0.75);
    QVERIFY(store->flush());
    const auto latest = store->reader()->latestMetrics();
    QCOMPARE(latest.size(), 1);
    QCOMPARE(latest[0].point.value, 0.75);
    QCOMPARE(latest[0].labels.value(QStringLiteral("Hostname")), QStringLiteral("node-a"));
    QCOMPARE(latest[0].labels.value(QStringLiteral("modelName")), QStringLiteral("A100-SXM4-40GB"));
    QCOMPARE(latest[0].labels.value(QStringLiteral("GPU_I_PROFILE")), QStringLiteral("3g.20gb"));
    QCOMPARE(latest[0].labels.value(QStringLiteral("GPU_I_ID")), QString::number(uid));
}

void TestStore::stateCodecRestoresLayoutsAndQueue()
{
    // Given node-a with an A100 in MIG mode (two instances, one serving a job), a second card
    // time-sliced with a soft share, a pending job, a finished job and a preempting one.
    const int a100 = catalogue().indexOf(QStringLiteral("A100-SXM4-40GB"));
    int softModel = -1;
    for (int m = 0; m < catalogue().models().size(); ++m) {
        if (catalogue().models()[m].supports(Domain::PartitionMode::TimeSlicing)) {
            softModel = m;
            break;
        }
    }
    QVERIFY(a100 >= 0 && softModel >= 0);
    auto topology = [&] {
        Sched::ClusterState s(catalogue());
        const Domain::HostId h = s.addHost(QStringLiteral("node-a"), 64000, 512 * 1024);
        s.addCard(h, a100, Domain::PartitionMode::Whole);
        s.addCard(h, softModel, Domain::PartitionMode::TimeSlicing);
        s.addCard(h, a100, Domain::PartitionMode::Whole);
        return s;
    };
    Sched::ClusterState state = topology();
    const Domain::CardId mig(0), soft(1), whole(2);
    state.setMode(mig, Domain::PartitionMode::Mig);
    const auto &model = catalogue().models()[a100];
    const int i3g = state.createPartition(mig, model.profileIndex(QStringLiteral("3g.20gb")), 4);
    const int i2g = state.createPartition(mig, model.profileIndex(QStringLiteral("2g.10gb")), 0);
    Domain::WorkloadSpec spec;
    spec.name = QStringLiteral("chat");
    spec.kind = Domain::WorkloadKind::Batch;
    spec.demand.cards = 1;
    spec.demand.hostCpuMilli = 2000;
    spec.checkpointIntervalMs = 60000;
    spec.preemption = Domain::PreemptionTolerance::AtCheckpoint;
    auto run = [&](const QString &name, Sched::UnitChoice choice) {
        Domain::WorkloadSpec s = spec;
        s.name = name;
        const Domain::JobId j = state.addJob(s, kT0);
        state.attachHost(j, Domain::HostId(0));
        state.bind(j, choice);
        state.setJobState(j, Sched::JobState::Running);
        state.jobRef(j).startedMs = kT0 + 10;
        state.jobRef(j).workDoneMs = 123456;
        state.jobRef(j).checkpointMs = 120000;
        return j;
    };
    run(QStringLiteral("on-mig"), Sched::UnitChoice{mig, Sched::UnitChoice::Kind::Existing, i3g});
    Sched::UnitChoice share{soft, Sched::UnitChoice::Kind::NewShare};
    share.milli = 250;
    share.memoryMiB = 4096;
    run(QStringLiteral("on-share"), share);
    const Domain::JobId victim = run(QStringLiteral("on-whole"),
                                     Sched::UnitChoice{whole,
                                                       Sched::UnitChoice::Kind::Existing,
                                                       state.card(whole).units[0].uid});
    state.setJobState(victim, Sched::JobState::Preempting);
    state.jobRef(victim).evictAtMs = kT0 + 5000;
    state.jobRef(victim).preemptedBy = Domain::JobId(4);
    const Domain::JobId done = state.addJob(spec, kT0 + 1);
    state.setJobState(done, Sched::JobState::Finished);
    state.jobRef(done).endedMs = kT0 + 100;
    state.addJob(spec, kT0 + 2); // pending
    state.setCardHealth(whole, Sched::CardHealth::Throttled);
    state.setLayoutPinned(mig, -1);               // until unpinned
    state.setLayoutPinned(whole, kT0 + 3600'000); // for an hour
    state.setOperatorCordoned(soft, true);        // an operator's cordon
    state.setCardCordoned(whole, true);           // a repartition's hold (not kept)
    QCOMPARE(state.checkInvariants(), QString());

    // Stored, and restored onto the appliance's topology after a restart.
    QString err;
    {
        auto store = Store::open(path(QStringLiteral("state.sqlite")), &err);
        Recorder recorder(*store);
        recorder.recordState(state, kT0 + 200);
    }
    auto reader = Reader::open(
            path(QStringLiteral("state.sqlite")), Reader::OpenMode::RequireCurrent, &err);
    QVERIFY2(reader, qPrintable(err));
    Sched::ClusterState restored = topology();
    QVERIFY2(restoreState(restored,
                          reader->state(QLatin1String(StateKey::Layouts)).value(),
                          reader->state(QLatin1String(StateKey::Queue)).value(),
                          &err),
             qPrintable(err));

    // Then the layouts, the units' owners and every job (progress, checkpoint) are back.
    QCOMPARE(restored.jobs().size(), state.jobs().size());
    for (int j = 0; j < state.jobs().size(); ++j) {
        Sched::Job expected = state.jobs()[j];
        Sched::Job actual = restored.jobs()[j];
        if (expected.assignments.value(0).card == soft) // soft shares get new uids
            expected.assignments[0].unitUid = actual.assignments.value(0).unitUid;
        QCOMPARE(actual, expected);
    }
    QCOMPARE(restored.card(mig).units, state.card(mig).units);
    QVERIFY(restored.card(mig).mode == Domain::PartitionMode::Mig);
    QCOMPARE(restored.card(soft).units.size(), 1);
    QCOMPARE(restored.card(soft).units[0].milli, 250);
    QVERIFY(restored.card(whole).health == Sched::CardHealth::Throttled);
    // An operator's pins outlive the restart.
    QCOMPARE(restored.card(mig).layoutPinnedUntilMs, -1);
    QVERIFY(restored.card(mig).layoutPinned());
    QCOMPARE(restored.card(whole).layoutPinnedUntilMs, kT0 + 3600'000);
    QCOMPARE(restored.card(soft).layoutPinnedUntilMs, 0);
    QVERIFY(!restored.card(soft).layoutPinned());
    // So does an operator's cordon; a repartition's hold ends with the repartition it was for.
    QVERIFY(restored.card(soft).operatorCordoned && restored.card(soft).cordoned);
    QVERIFY(!restored.card(whole).cordoned && !restored.card(mig).cordoned);
    QCOMPARE(restored.classUsage(), state.classUsage());
    QCOMPARE(restored.host(Domain::HostId(0)).usedCpuMilli,
             state.host(Domain::HostId(0)).usedCpuMilli);
    Q_UNUSED(i2g);

    // A layout for another appliance is refused with the card named.
    Sched::ClusterState other(catalogue());
    const Domain::HostId h = other.addHost(QStringLiteral("node-b"), 64000, 512 * 1024);
    other.addCard(h, catalogue().indexOf(QStringLiteral("T4-16GB")), Domain::PartitionMode::Whole);
    QVERIFY(!restoreState(other, layoutsToJson(state), queueToJson(state), &err));
    QVERIFY2(err.contains(QStringLiteral("card 0")), qPrintable(err));
}

void TestStore::decisionTracesAreKept()
{
    QString err;
    StoreOptions options;
    options.retention.traces = 5;
    auto store = Store::open(path(QStringLiteral("tr.sqlite")), options, nullptr, &err);
    Recorder recorder(*store);
    for (int i = 0; i < 8; ++i) {
        Sched::DecisionTrace t;
        t.job = Domain::JobId(i % 2);
        t.atMs = kT0 + i;
        t.result = Sched::Status::unschedulable(Sched::Reason::NoFreeUnit);
        t.rejectedBy[size_t(Sched::Reason::NoFreeUnit)] = 3;
        recorder.recordTrace(t);
    }
    store->compact(kT0 + 10);
    QVERIFY(store->flush());
    auto reader = store->reader();
    QCOMPARE(reader->traces(-1, 100).size(), 5);
    const auto job1 = reader->traces(1, 10);
    QCOMPARE(job1.first().atMs, kT0 + 7);
    const QJsonObject o = QJsonDocument::fromJson(job1.first().json).object();
    QCOMPARE(
            o.value(QStringLiteral("result")).toObject().value(QStringLiteral("reason")).toString(),
            QString::fromLatin1(Sched::reasonCode(Sched::Reason::NoFreeUnit)));
}

QTEST_GUILESS_MAIN(TestStore)
#include "tst_store.moc"
