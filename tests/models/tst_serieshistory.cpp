// SPDX-License-Identifier: GPL-3.0-or-later
// A console started after the appliance ran: the store's recorded card and partition series
// become the charts' series (rolled-up minutes where the raw samples are gone, then the raw
// ones), and go in front of the live points without disturbing them.
#include "core/models/serieshistory.h"
#include "core/models/seriesstore.h"
#include "core/storage/store.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace Zhaoxi;
using Models::HistorySeries;
using Models::SeriesHistoryLoader;
using Models::SeriesStore;
using Storage::Metric;

namespace {

constexpr qint64 kT0 = 1'767'600'000'000; // a minute boundary, UTC epoch ms
constexpr qint64 kHours3 = 3 * 3600'000;
constexpr qint64 kStepMs = 10'000;          // a sample every 10 s
constexpr int kMigCard = 0, kWholeCard = 1; // card 1's one unit has uid 9
constexpr int kPartition = 4;

// Three hours of both cards (MIG card 0 with its partition uid 4, whole card 1), rolled up at
// the end with an hour of raw samples kept.
QString writeStore(const QTemporaryDir &dir)
{
    const QString path = dir.filePath(QStringLiteral("history.sqlite"));
    Storage::StoreOptions options;
    options.retention.rawMs = 3600'000;
    QString error;
    auto store = Storage::Store::open(path, options, nullptr, &error);
    if (!store)
        qFatal("open: %s", qPrintable(error));
    for (qint64 t = kT0; t <= kT0 + kHours3; t += kStepMs) {
        const double minute = double(t - kT0) / 60'000.0;
        auto put = [&](Metric m, int card, int partition, double value) {
            store->appendMetric({{m, card, partition, {}, -1}, t, value, {}});
        };
        put(Metric::MemoryUsedMiB, kMigCard, -1, 30'000);
        put(Metric::MemoryFreeMiB, kMigCard, -1, 10'000);
        put(Metric::TemperatureC, kMigCard, -1, 50 + minute / 60.0);
        put(Metric::PowerW, kMigCard, -1, 300);
        put(Metric::MemoryUsedMiB, kMigCard, kPartition, 12'000);
        put(Metric::GrEngineActive, kMigCard, kPartition, 0.5);
        put(Metric::GpuUtil, kWholeCard, -1, 80);
        put(Metric::MemoryUsedMiB, kWholeCard, -1, 10'000);
        put(Metric::MemoryFreeMiB, kWholeCard, -1, 30'000);
        put(Metric::TemperatureC, kWholeCard, -1, 70);
        put(Metric::PowerW, kWholeCard, -1, 500);
    }
    store->compact(kT0 + kHours3);
    if (!store->flush())
        qFatal("flush: %s", qPrintable(store->lastError()));
    return path;
}

// The three hours of writeStore() as the charts' series (card 1's unit 9 a whole card's).
QList<HistorySeries> recordedHistory(const QTemporaryDir &dir)
{
    QString error;
    auto reader = Storage::Reader::open(
            writeStore(dir), Storage::Reader::OpenMode::RequireCurrent, &error);
    QList<HistorySeries> history;
    if (!reader
        || !Models::readSeriesHistory(
                *reader, kT0, kT0 + kHours3, {{kWholeCard, 9}}, &history, &error))
        qWarning("recordedHistory: %s", qPrintable(error));
    return history;
}

const HistorySeries *find(const QList<HistorySeries> &history, const QString &key)
{
    for (const HistorySeries &h : history) {
        if (h.info.key == key)
            return &h;
    }
    return nullptr;
}

} // namespace

class TestSeriesHistory : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void theStoresSeriesBecomeTheChartsSeries();
    void historyGoesInFrontOfTheLivePoints();
    void theLoaderReadsOnAThreadOfItsOwn();
    void anUnreadableStoreIsAnErrorNotAHang();
    void historyCrossesTheWireAndBadInputIsNamed();
};

void TestSeriesHistory::theStoresSeriesBecomeTheChartsSeries()
{
    QTemporaryDir dir;
    const QString path = writeStore(dir);
    QString error;
    auto reader = Storage::Reader::open(path, Storage::Reader::OpenMode::RequireCurrent, &error);
    QVERIFY2(reader, qPrintable(error));
    QList<HistorySeries> history;
    QVERIFY2(Models::readSeriesHistory(
                     *reader, kT0, kT0 + kHours3, {{kWholeCard, 9}}, &history, &error),
             qPrintable(error));

    QStringList keys;
    for (const HistorySeries &h : history)
        keys << h.info.key;
    for (const char *k : {"card/0/mem",
                          "card/0/mem-pct",
                          "card/0/temp",
                          "card/0/power",
                          "part/0/4/mem",
                          "part/0/4/util",
                          "card/1/util",
                          "card/1/mem",
                          "part/1/9/util",
                          "part/1/9/mem",
                          "all/util",
                          "all/mem",
                          "all/mem-pct",
                          "all/temp",
                          "all/power"})
        QVERIFY2(keys.contains(QLatin1String(k)), k);
    QVERIFY(!keys.contains(QStringLiteral("card/0/util"))); // a MIG card: never recorded
    QVERIFY(!keys.contains(QStringLiteral("part/0/-1/mem")));

    // Minutes where the raw samples are gone, each at its middle; the raw hour after them.
    const HistorySeries *mem = find(history, QStringLiteral("part/0/4/mem"));
    QVERIFY(mem);
    QCOMPARE(mem->info.subject, Models::SeriesSubject::Partition);
    QCOMPARE(mem->info.id, kMigCard);
    QCOMPARE(mem->info.name, QStringLiteral("4"));
    QCOMPARE(mem->points.first().t, double(kT0 + 30'000) / 1000.0);
    QCOMPARE(mem->points.last().t, double(kT0 + kHours3) / 1000.0);
    for (qsizetype i = 1; i < mem->points.size(); ++i)
        QVERIFY(mem->points[i].t > mem->points[i - 1].t);
    const qsizetype minutes = 180, rawAfterTheLastMinute = 1; // kT0+3h itself
    QCOMPARE(mem->points.size(), minutes + rawAfterTheLastMinute);
    for (const Models::SeriesPoint &p : mem->points)
        QCOMPARE(p.value, 12'000.0);
    for (const Models::SeriesPoint &p : find(history, QStringLiteral("part/0/4/util"))->points)
        QCOMPARE(p.value, 50.0); // GrEngineActive 0.5 as a percentage

    // Memory in per cent from used and free at the same moment; the appliance from every card.
    QCOMPARE(find(history, QStringLiteral("card/0/mem-pct"))->points.first().value, 75.0);
    const HistorySeries *all = find(history, QStringLiteral("all/mem-pct"));
    QCOMPARE(all->points.first().value, 100.0 * 40'000 / 80'000);
    QCOMPARE(find(history, QStringLiteral("all/util"))->points.first().value, 80.0);
    QCOMPARE(find(history, QStringLiteral("all/power"))->points.first().value, 800.0);
    QCOMPARE(find(history, QStringLiteral("all/temp"))->points.first().value, 70.0);
    QCOMPARE(find(history, QStringLiteral("part/1/9/util"))->points.first().value, 80.0);

    // A range after the recording has nothing.
    history.clear();
    QVERIFY(Models::readSeriesHistory(
            *reader, kT0 + 2 * kHours3, kT0 + 3 * kHours3, {}, &history, &error));
    QVERIFY(history.isEmpty());
}

void TestSeriesHistory::historyGoesInFrontOfTheLivePoints()
{
    QTemporaryDir dir;
    const QList<HistorySeries> history = recordedHistory(dir);
    QVERIFY(!history.isEmpty());

    // Live points from two hours in: the history before them is taken, the rest is not.
    SeriesStore store;
    const double liveFrom = double(kT0 + 2 * 3600'000) / 1000.0;
    Models::SeriesInfo temp;
    temp.key = QStringLiteral("card/0/temp");
    temp.subject = Models::SeriesSubject::Card;
    temp.metric = Models::SeriesMetric::Temperature;
    temp.id = 0;
    for (int i = 0; i < 10; ++i)
        QVERIFY(store.appendPoint(temp, liveFrom + i * 60, 99));
    store.notifyAppended();

    QSignalSpy added(&store, &SeriesStore::seriesAdded);
    QSignalSpy rebuilt(&store, &SeriesStore::rebuilt);
    const qsizetype taken = store.mergeHistory(history);
    QVERIFY(taken > 0);
    QCOMPARE(rebuilt.size(), 1);
    QVERIFY(added.size() > 10); // the other series are new
    QVERIFY(!store.keys().isEmpty() && store.keys().first() == temp.key); // the live order first

    const Models::TimeSeries *t = store.series(temp.key);
    QVERIFY(t);
    QCOMPARE(t->first().t, double(kT0 + 30'000) / 1000.0);
    const qsizetype live = t->lowerBound(liveFrom);
    QCOMPARE(t->size() - live, 10); // the live points, untouched
    for (qsizetype i = live; i < t->size(); ++i)
        QCOMPARE(t->at(i).value, 99.0);
    QVERIFY(t->at(live - 1).value < 99); // the recorded temperature just before
    for (qsizetype i = 1; i < t->size(); ++i)
        QVERIFY(t->at(i).t > t->at(i - 1).t);

    // Nothing at or after the latest time appended: the next snapshot stays "later".
    const Models::TimeSeries *mem = store.series(QStringLiteral("part/0/4/mem"));
    QVERIFY(mem);
    QVERIFY(mem->last().t < store.latestTime());

    // Merging again takes nothing and rebuilds nothing.
    QCOMPARE(store.mergeHistory(history), 0);
    QCOMPARE(rebuilt.size(), 1);
}

void TestSeriesHistory::theLoaderReadsOnAThreadOfItsOwn()
{
    QTemporaryDir dir;
    const QString path = writeStore(dir);
    SeriesHistoryLoader loader;
    QSignalSpy loaded(&loader, &SeriesHistoryLoader::loaded);
    loader.load(path, kT0, kT0 + kHours3, {});
    loader.load(path, kT0 + 2 * kHours3, kT0 + 3 * kHours3, {}); // queued behind the first
    QVERIFY(loaded.wait(10'000));
    if (loaded.size() < 2)
        QVERIFY(loaded.wait(10'000));
    QCOMPARE(loaded.size(), 2);
    const auto first = loaded.at(0).at(0).value<QList<HistorySeries>>();
    QCOMPARE(loaded.at(0).at(1).toString(), QString());
    QVERIFY(find(first, QStringLiteral("part/0/4/util")));
    QVERIFY(loaded.at(1).at(0).value<QList<HistorySeries>>().isEmpty());
    QVERIFY(!loader.isLoading());
}

void TestSeriesHistory::anUnreadableStoreIsAnErrorNotAHang()
{
    QTemporaryDir dir;
    SeriesHistoryLoader loader;
    QSignalSpy loaded(&loader, &SeriesHistoryLoader::loaded);
    const QString missing = dir.filePath(QStringLiteral("none.sqlite"));
    loader.load(missing, kT0, kT0 + kHours3, {});
    QVERIFY(loaded.wait(10'000));
    QVERIFY(loaded.at(0).at(0).value<QList<HistorySeries>>().isEmpty());
    const QString error = loaded.at(0).at(1).toString();
    QVERIFY2(error.contains(QStringLiteral("none.sqlite")), qPrintable(error));
    QVERIFY(!QFile::exists(missing)); // a reader never creates the file
}

void TestSeriesHistory::historyCrossesTheWireAndBadInputIsNamed()
{
    QTemporaryDir dir;
    QList<HistorySeries> history = recordedHistory(dir);
    QVERIFY(!history.isEmpty());
    QString error;
    // A gap survives as a gap.
    history.first().points[1].value = std::numeric_limits<double>::quiet_NaN();

    const QJsonArray json = Models::historyJson(history);
    QList<HistorySeries> back;
    QVERIFY2(Models::historyFromJson(json, &back, &error), qPrintable(error));
    QCOMPARE(back.size(), history.size());
    for (qsizetype i = 0; i < back.size(); ++i) {
        QCOMPARE(back[i].info.key, history[i].info.key);
        QCOMPARE(back[i].info.subject, history[i].info.subject);
        QCOMPARE(back[i].info.metric, history[i].info.metric);
        QCOMPARE(back[i].info.id, history[i].info.id);
        QCOMPARE(back[i].info.name, history[i].info.name);
        QCOMPARE(back[i].points.size(), history[i].points.size());
        for (qsizetype k = 0; k < back[i].points.size(); ++k) {
            QCOMPARE(back[i].points[k].t, history[i].points[k].t);
            const double a = back[i].points[k].value, b = history[i].points[k].value;
            QVERIFY(std::isnan(a) ? std::isnan(b) : a == b);
        }
    }

    auto refused = [&](QJsonObject series, const char *expected) {
        QList<HistorySeries> out{HistorySeries{}};
        QString why;
        const bool ok = Models::historyFromJson(QJsonArray{json.first(), series}, &out, &why);
        QVERIFY2(!ok && why.contains(QLatin1String(expected)), qPrintable(why));
        QCOMPARE(out.size(), 1); // untouched
    };
    QJsonObject bad = json.first().toObject();
    bad.insert(QStringLiteral("metric"), QStringLiteral("watts"));
    refused(bad, "series[1]: unknown metric \"watts\"");
    bad = json.first().toObject();
    bad.insert(QStringLiteral("subject"), QStringLiteral("rack"));
    refused(bad, "series[1]: unknown subject");
    bad = json.first().toObject();
    bad.insert(QStringLiteral("values"), QJsonArray{1.0});
    refused(bad, "differ in length");
    bad = json.first().toObject();
    bad.insert(QStringLiteral("t_ms"), QJsonArray{2000, 1000});
    bad.insert(QStringLiteral("values"), QJsonArray{1.0, 2.0});
    refused(bad, "point 1 is not after");
    bad = json.first().toObject();
    bad.insert(QStringLiteral("t_ms"), QJsonArray{1000});
    bad.insert(QStringLiteral("values"), QJsonArray{QStringLiteral("hot")});
    refused(bad, "point 0 is not a time and a number");
}

QTEST_GUILESS_MAIN(TestSeriesHistory)
#include "tst_serieshistory.moc"
