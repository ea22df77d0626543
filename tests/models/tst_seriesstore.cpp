// SPDX-License-Identifier: GPL-3.0-or-later
// The charts' data: snapshots become named series (one point each per snapshot), old points go
// past the horizon, stats cover a time range, and events become markers on the time axis.
#include "core/models/seriesstore.h"

#include <QSignalSpy>
#include <QTest>

#include <cmath>

using namespace Zhaoxi;
using Models::EventMarker;
using Models::MarkerKind;
using Models::SeriesInfo;
using Models::SeriesMetric;
using Models::SeriesStats;
using Models::SeriesStore;
using Models::TimeSeries;

namespace {

constexpr qint64 kDayStartMs = 1'767'542'400'000; // 2026-01-05T00:00+08:00

// A snapshot at `minute` of the day: two services, one training job, two cards (the second lost
// when `lostCard`), with readings that depend on the minute so points can be told apart.
Session::Snapshot snapshot(int minute, bool lostCard = false)
{
    Session::Snapshot s;
    s.nowMs = kDayStartMs + qint64(minute) * 60'000;
    s.startMs = kDayStartMs;
    s.utcOffsetSeconds = 8 * 3600;
    Session::ServiceSample chat;
    chat.index = 0;
    chat.name = QStringLiteral("chat");
    chat.sloMs = 1000;
    chat.p50Ms = 100 + minute;
    chat.p99Ms = 400 + minute;
    chat.ratePerS = 20;
    Session::ServiceSample embed = chat;
    embed.index = 1;
    embed.name = QStringLiteral("embed");
    embed.sloMs = 150;
    s.services = {chat, embed};
    Session::TrainingSample job;
    job.job = Domain::JobId(12);
    job.name = QStringLiteral("pretrain-4x");
    job.speed = 3.5;
    job.loss = 2.0 - minute * 0.01;
    s.training = {job};
    Session::CardSample c0;
    c0.card = 0;
    c0.utilisation = 0.5;
    c0.trainingUtilisation = 0.3;
    c0.inferenceUtilisation = 0.2;
    c0.memoryUsedMiB = 70'000;
    c0.memoryTotalMiB = 140'000;
    c0.temperatureC = 60;
    c0.powerW = 400;
    Session::CardSample c1 = c0;
    c1.card = 1;
    c1.utilisation = std::numeric_limits<double>::quiet_NaN(); // a MIG card: NVML cannot say
    c1.temperatureC = 70;
    c1.powerW = 300;
    c1.lost = lostCard;
    s.cards = {c0, c1};
    return s;
}

Storage::Event storedEvent(
        int minute, const char *code, int card = -1, int job = -1, QByteArray params = {})
{
    Storage::Event e;
    e.atMs = kDayStartMs + qint64(minute) * 60'000;
    e.code = code;
    e.card = card;
    e.job = job;
    e.params = params;
    return e;
}

double seconds(int minute)
{
    return double(kDayStartMs) / 1000.0 + minute * 60.0;
}

} // namespace

class TestSeriesStore : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aSnapshotIsOnePointOfEverySeries();
    void keysAreStable();
    void aLostCardIsAGapNotAZero();
    void theSameMomentAgainAddsNoPoints();
    void anEarlierSnapshotStartsAfresh();
    void readersPickUpOnlyNewPoints();
    void pointsOlderThanTheHorizonGo();
    void trimmingALongRunKeepsTheRing();
    void statsCoverTheRange();
    void eventsBecomeMarkers_data();
    void eventsBecomeMarkers();
    void markersOfOneChangeMerge();
    void aVictimsEvictionIsPartOfItsPreemption();
    void windowMarkersNameTheWindow();
    void markersGoPastTheHorizonToo();
};

void TestSeriesStore::aSnapshotIsOnePointOfEverySeries()
{
    SeriesStore store;
    QSignalSpy added(&store, &SeriesStore::seriesAdded);
    QSignalSpy appended(&store, &SeriesStore::appended);
    store.append(snapshot(0));

    // 2 services x 4, 1 job x 2, 2 cards x 7, the appliance x 7.
    QCOMPARE(store.keys().size(), 8 + 2 + 14 + 7);
    QCOMPARE(added.size(), store.keys().size());
    QCOMPARE(appended.size(), 1);
    QCOMPARE(store.latestTime(), seconds(0));
    QCOMPARE(store.utcOffsetSeconds(), 8 * 3600);

    const TimeSeries *p99 = store.series(QStringLiteral("svc/chat/p99"));
    QVERIFY(p99);
    QCOMPARE(p99->size(), 1);
    QCOMPARE(p99->last().value, 400.0);
    QCOMPARE(p99->info().name, QStringLiteral("chat"));
    QCOMPARE(p99->info().metric, SeriesMetric::P99);
    QCOMPARE(store.series(QStringLiteral("svc/embed/slo"))->last().value, 150.0);
    QCOMPARE(store.series(QStringLiteral("job/12/loss"))->last().value, 2.0);
    QCOMPARE(store.series(QStringLiteral("job/12/speed"))->info().name,
             QStringLiteral("pretrain-4x"));
    // Utilisation in percent; memory in MiB and in percent of the card.
    QCOMPARE(store.series(QStringLiteral("card/0/util"))->last().value, 50.0);
    QCOMPARE(store.series(QStringLiteral("card/0/util-training"))->last().value, 30.0);
    QCOMPARE(store.series(QStringLiteral("card/0/util-inference"))->last().value, 20.0);
    QCOMPARE(store.series(QStringLiteral("card/0/mem"))->last().value, 70000.0);
    QCOMPARE(store.series(QStringLiteral("card/0/mem-pct"))->last().value, 50.0);
    QVERIFY(std::isnan(store.series(QStringLiteral("card/1/util"))->last().value));
    // The appliance: the mean of the cards that answer, the hottest card, the total power.
    QCOMPARE(store.series(QStringLiteral("all/util"))->last().value, 50.0);
    QCOMPARE(store.series(QStringLiteral("all/util-training"))->last().value, 30.0);
    QCOMPARE(store.series(QStringLiteral("all/temp"))->last().value, 70.0);
    QCOMPARE(store.series(QStringLiteral("all/power"))->last().value, 700.0);

    store.append(snapshot(1));
    QCOMPARE(added.size(), store.keys().size()); // no new series
    QCOMPARE(appended.size(), 2);
    QCOMPARE(p99->size(), 2);
    QCOMPARE(p99->last().t, seconds(1));
    QCOMPARE(p99->last().value, 401.0);
}

void TestSeriesStore::keysAreStable()
{
    QCOMPARE(SeriesStore::serviceKey(QStringLiteral("chat"), SeriesMetric::P99),
             QStringLiteral("svc/chat/p99"));
    QCOMPARE(SeriesStore::cardKey(Domain::CardId(3), SeriesMetric::Utilisation),
             QStringLiteral("card/3/util"));
    QCOMPARE(SeriesStore::cardKey(Domain::CardId(3), SeriesMetric::TrainingUtil),
             QStringLiteral("card/3/util-training"));
    QCOMPARE(SeriesStore::jobKey(Domain::JobId(12), SeriesMetric::Loss),
             QStringLiteral("job/12/loss"));
    QCOMPARE(SeriesStore::applianceKey(SeriesMetric::Power), QStringLiteral("all/power"));
    SeriesStore store;
    store.append(snapshot(0));
    QCOMPARE(store.keys(u"svc/chat/"),
             (QStringList{"svc/chat/p99", "svc/chat/p50", "svc/chat/slo", "svc/chat/rate"}));
}

void TestSeriesStore::aLostCardIsAGapNotAZero()
{
    SeriesStore store;
    store.append(snapshot(0));
    store.append(snapshot(1, true));
    const TimeSeries *temp = store.series(QStringLiteral("card/1/temp"));
    QCOMPARE(temp->size(), 2);
    QVERIFY(std::isnan(temp->last().value));
    const SeriesStats st = store.stats(QStringLiteral("card/1/temp"), seconds(0), seconds(1));
    QCOMPARE(st.count, 1); // the gap does not count
    QCOMPARE(st.last, 70.0);
    // The appliance goes on without it.
    QCOMPARE(store.series(QStringLiteral("all/power"))->last().value, 400.0);
}

void TestSeriesStore::theSameMomentAgainAddsNoPoints()
{
    SeriesStore store;
    store.append(snapshot(5));
    Session::Snapshot again = snapshot(5); // a speed change publishes at the same time
    again.events = {storedEvent(5, "partition-created", 2)};
    QSignalSpy appended(&store, &SeriesStore::appended);
    store.append(again);
    QCOMPARE(appended.size(), 1);
    QCOMPARE(store.series(QStringLiteral("svc/chat/p99"))->size(), 1);
    QCOMPARE(store.markers().size(), 1); // but its events count
}

void TestSeriesStore::anEarlierSnapshotStartsAfresh()
{
    SeriesStore store;
    store.append(snapshot(10));
    store.append(snapshot(11));
    QSignalSpy cleared(&store, &SeriesStore::cleared);
    store.append(snapshot(0)); // another session, or the day restarted
    QCOMPARE(cleared.size(), 1);
    QCOMPARE(store.series(QStringLiteral("svc/chat/p99"))->size(), 1);
    QCOMPARE(store.latestTime(), seconds(0));
}

void TestSeriesStore::readersPickUpOnlyNewPoints()
{
    SeriesStore store;
    store.setHorizonSeconds(5 * 60);
    for (int m = 0; m < 3; ++m)
        store.append(snapshot(m));
    const TimeSeries *s = store.series(QStringLiteral("svc/chat/p50"));
    quint64 next = s->nextSequence();
    QCOMPARE(next, quint64(3));
    for (int m = 3; m < 10; ++m)
        store.append(snapshot(m));
    // Points 3..9 are new; 0..3 have gone past the 5 min horizon.
    QCOMPARE(s->firstSequence(), quint64(4));
    QCOMPARE(s->size(), 6);
    const qsizetype from = qsizetype(next - s->firstSequence()); // negative: some were trimmed
    QList<double> fresh;
    for (qsizetype i = std::max<qsizetype>(0, from); i < s->size(); ++i)
        fresh.append(s->at(i).value);
    QCOMPARE(fresh, (QList<double>{104, 105, 106, 107, 108, 109}));
}

void TestSeriesStore::pointsOlderThanTheHorizonGo()
{
    SeriesStore store;
    QCOMPARE(store.horizonSeconds(), 25 * 3600.0); // a day and a margin
    store.setHorizonSeconds(60 * 60);
    for (int m = 0; m <= 180; m += 5)
        store.append(snapshot(m));
    const TimeSeries *s = store.series(QStringLiteral("card/0/power"));
    QCOMPARE(s->first().t, seconds(120));
    QCOMPARE(s->last().t, seconds(180));
    QCOMPARE(s->size(), 13);
    QCOMPARE(s->lowerBound(seconds(150)), 6);
    QCOMPARE(s->lowerBound(seconds(151)), 7);
    QCOMPARE(s->lowerBound(seconds(999)), s->size());

    // A shorter horizon trims at once.
    store.setHorizonSeconds(10 * 60);
    QCOMPARE(s->first().t, seconds(170));
}

void TestSeriesStore::trimmingALongRunKeepsTheRing()
{
    SeriesStore store;
    store.setHorizonSeconds(100);
    SeriesInfo info;
    info.key = QStringLiteral("bench/a");
    for (int i = 0; i < 20'000; ++i)
        QVERIFY(store.appendPoint(info, i, i * 2.0));
    QVERIFY(!store.appendPoint(info, 5, 1)); // not after the last point: refused
    store.notifyAppended();
    const TimeSeries *s = store.series(info.key);
    QCOMPARE(s->size(), 101);
    QCOMPARE(s->firstSequence(), quint64(19'899));
    QCOMPARE(s->nextSequence(), quint64(20'000));
    QCOMPARE(s->first().t, 19'899.0);
    QCOMPARE(s->at(100).value, 39'998.0);
}

void TestSeriesStore::statsCoverTheRange()
{
    SeriesStore store;
    SeriesInfo info;
    info.key = QStringLiteral("svc/chat/p99");
    const double values[] = {400, 930, std::numeric_limits<double>::quiet_NaN(), 380, 412};
    for (int i = 0; i < 5; ++i)
        store.appendPoint(info, 100 + i, values[i]);
    store.notifyAppended();

    SeriesStats all = store.stats(info.key, 0, 1000);
    QCOMPARE(all.count, 4);
    QCOMPARE(all.last, 412.0);
    QCOMPARE(all.max, 930.0);
    QCOMPARE(all.min, 380.0);
    QCOMPARE(all.mean, (400.0 + 930 + 380 + 412) / 4);

    // Both ends inclusive.
    SeriesStats part = store.stats(info.key, 102, 103);
    QCOMPARE(part.count, 1);
    QCOMPARE(part.last, 380.0);
    QCOMPARE(part.mean, 380.0);

    SeriesStats none = store.stats(info.key, 200, 300);
    QCOMPARE(none.count, 0);
    QVERIFY(std::isnan(none.last) && std::isnan(none.mean) && std::isnan(none.max));
    QCOMPARE(store.stats(QStringLiteral("no/such/key"), 0, 1000).count, 0);
}

void TestSeriesStore::eventsBecomeMarkers_data()
{
    QTest::addColumn<QByteArray>("code");
    QTest::addColumn<int>("kind"); // -1: no marker

    QTest::newRow("a window opens") << QByteArray("window-opened") << int(MarkerKind::Window);
    QTest::newRow("a partition is created")
            << QByteArray("partition-created") << int(MarkerKind::Repartition);
    QTest::newRow("a partition is destroyed")
            << QByteArray("partition-destroyed") << int(MarkerKind::Repartition);
    QTest::newRow("a card changes mode")
            << QByteArray("card-mode-changed") << int(MarkerKind::Repartition);
    QTest::newRow("a job is chosen as a victim")
            << QByteArray("job-preempting") << int(MarkerKind::Preemption);
    QTest::newRow("a job is evicted") << QByteArray("job-evicted") << int(MarkerKind::Preemption);
    QTest::newRow("a policy requeues training")
            << QByteArray("training-requeued") << int(MarkerKind::Preemption);
    QTest::newRow("a card is lost") << QByteArray("fault-card-lost") << int(MarkerKind::Fault);
    QTest::newRow("a card fails") << QByteArray("card-failed") << int(MarkerKind::Fault);
    QTest::newRow("a job is placed: no marker") << QByteArray("job-placed") << -1;
    QTest::newRow("a replica is added: no marker") << QByteArray("replica-added") << -1;
    QTest::newRow("the window is prepared: no marker") << QByteArray("window-switch") << -1;
}

void TestSeriesStore::eventsBecomeMarkers()
{
    QFETCH(QByteArray, code);
    QFETCH(int, kind);
    SeriesStore store;
    Session::Snapshot s = snapshot(30);
    s.events = {storedEvent(29, code.constData(), 4, 12)};
    store.append(s);
    if (kind < 0) {
        QVERIFY(store.markers().isEmpty());
        return;
    }
    QCOMPARE(store.markers().size(), 1);
    const EventMarker &m = store.markers().first();
    QCOMPARE(int(m.kind), kind);
    QCOMPARE(m.t, seconds(29));
    QCOMPARE(m.code, code);
    QCOMPARE(m.card, 4);
    QCOMPARE(m.job, 12);
    QCOMPARE(m.count, 1);
    QCOMPARE(store.markerSequence(), quint64(1));
}

void TestSeriesStore::markersOfOneChangeMerge()
{
    SeriesStore store;
    Session::Snapshot s = snapshot(30);
    // A repartition of card 3 in steps over 20 s, then one of card 5 30 s later; a preemption in
    // between is its own marker.
    s.events = {storedEvent(10, "partition-destroyed", 3),
                storedEvent(10, "partition-created", 3),
                storedEvent(10, "job-preempting", -1, 7),
                storedEvent(11, "partition-created", 5),
                storedEvent(20, "partition-created", 5)};
    s.events[1].atMs += 20'000;
    store.append(s);
    QCOMPARE(store.markers().size(), 3);
    const EventMarker &repartition = store.markers()[0];
    QCOMPARE(repartition.kind, MarkerKind::Repartition);
    QCOMPARE(repartition.count, 3);
    QCOMPARE(repartition.card, -1); // cards 3 and 5: no single card
    QCOMPARE(store.markers()[1].kind, MarkerKind::Preemption);
    QCOMPARE(store.markers()[1].job, 7);
    // Nine minutes later: a marker of its own.
    QCOMPARE(store.markers()[2].t, seconds(20));
    QCOMPARE(store.markers()[2].card, 5);

    store.setMarkerMergeSeconds(0);
    Session::Snapshot next = snapshot(31);
    next.events
            = {storedEvent(31, "partition-created", 5), storedEvent(31, "partition-created", 5)};
    next.events[1].atMs += 1;
    store.append(next);
    QCOMPARE(store.markers().size(), 5);
}

void TestSeriesStore::aVictimsEvictionIsPartOfItsPreemption()
{
    SeriesStore store;
    Session::Snapshot s = snapshot(30);
    // Job 7 is chosen at 10:00 and leaves at its checkpoint at 10:12; job 8 is evicted when its
    // card fails, with no preemption before.
    s.events = {storedEvent(10, "job-preempting", -1, 7),
                storedEvent(22, "job-evicted", -1, 7),
                storedEvent(25, "job-evicted", 2, 8)};
    store.append(s);
    QCOMPARE(store.markers().size(), 2);
    QCOMPARE(store.markers()[0].t, seconds(10));
    QCOMPARE(store.markers()[0].job, 7);
    QCOMPARE(store.markers()[0].count, 1);
    QCOMPARE(store.markers()[1].t, seconds(25));
    QCOMPARE(store.markers()[1].job, 8);
}

void TestSeriesStore::windowMarkersNameTheWindow()
{
    SeriesStore store;
    Session::Snapshot s = snapshot(7 * 60);
    s.window = QStringLiteral("day");
    s.events = {storedEvent(7 * 60, "window-opened", -1, -1, R"({"a":0,"reason":"window"})")};
    store.append(s);
    QCOMPARE(store.markers().size(), 1);
    QCOMPARE(store.markers().first().kind, MarkerKind::Window);
    QCOMPARE(store.markers().first().window, 0);
    QCOMPARE(store.markers().first().windowName, QStringLiteral("day"));
}

void TestSeriesStore::markersGoPastTheHorizonToo()
{
    SeriesStore store;
    store.setHorizonSeconds(3600);
    Session::Snapshot s = snapshot(10);
    s.events = {storedEvent(10, "fault-card-lost", 6)};
    store.append(s);
    QCOMPARE(store.markers().size(), 1);
    store.append(snapshot(60));
    QCOMPARE(store.markers().size(), 1); // 50 min old
    store.append(snapshot(71));
    QVERIFY(store.markers().isEmpty());
}

QTEST_GUILESS_MAIN(TestSeriesStore)
#include "tst_seriesstore.moc"
