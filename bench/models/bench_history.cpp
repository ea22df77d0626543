// SPDX-License-Identifier: GPL-3.0-or-later
// What a console started on a real appliance's store pays for the charts' history: a day of
// 8 H200 cards in MIG mode with seven instances each (the card series and each instance's
// memory and activity, one sample a metric period), rolled up as the store does, then read back
// for the charts' 25-hour horizon (Models::readSeriesHistory, on the loader's thread in the
// console) and merged in front of a live point (SeriesStore::mergeHistory, on the GUI thread).
// Prints figures; asserts nothing.
//
//   bench_history [--period-ms MS] [--hours H] [--cards N] [--runs N]
#include "core/models/serieshistory.h"
#include "core/models/seriesstore.h"
#include "core/storage/store.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>

using namespace Zhaoxi;
using Storage::Metric;

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    qint64 periodMs = 60'000; // HardwareOptions::metricPeriodMs
    int hours = 24, cards = 8, runs = 5;
    const QStringList args = app.arguments();
    for (int i = 1; i + 1 < args.size(); i += 2) {
        if (args[i] == QLatin1String("--period-ms"))
            periodMs = std::max<qint64>(1000, args[i + 1].toLongLong());
        else if (args[i] == QLatin1String("--hours"))
            hours = std::max(1, args[i + 1].toInt());
        else if (args[i] == QLatin1String("--cards"))
            cards = std::max(1, args[i + 1].toInt());
        else if (args[i] == QLatin1String("--runs"))
            runs = std::max(1, args[i + 1].toInt());
        else {
            std::fprintf(stderr, "bench_history: unknown option %s\n", qPrintable(args[i]));
            return 2;
        }
    }
    constexpr int kInstances = 7;
    constexpr qint64 kT0 = 1'767'600'000'000;
    const qint64 end = kT0 + qint64(hours) * 3600'000;

    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("history.sqlite"));
    QString error;
    auto store = Storage::Store::open(path, &error);
    if (!store) {
        std::printf("cannot open: %s\n", qPrintable(error));
        return 1;
    }
    QElapsedTimer timer;
    timer.start();
    qint64 samples = 0;
    for (qint64 t = kT0; t <= end; t += periodMs) {
        const double phase = double((t - kT0) % 86'400'000) / 86'400'000.0;
        for (int c = 0; c < cards; ++c) {
            auto put = [&](Metric m, int partition, double value) {
                store->appendMetric({{m, c, partition, {}, -1}, t, value, {}});
                ++samples;
            };
            put(Metric::MemoryUsedMiB, -1, 60'000 + 40'000 * phase);
            put(Metric::MemoryFreeMiB, -1, 81'000 - 40'000 * phase);
            put(Metric::TemperatureC, -1, 45 + 20 * phase);
            put(Metric::PowerW, -1, 250 + 300 * phase);
            put(Metric::SmClockMHz, -1, 1980);
            for (int u = 0; u < kInstances; ++u) {
                put(Metric::MemoryUsedMiB, u, 8'000 + 1'000 * u * phase);
                put(Metric::GrEngineActive, u, phase);
            }
        }
    }
    store->compact(end);
    if (!store->flush()) {
        std::printf("cannot write: %s\n", qPrintable(store->lastError()));
        return 1;
    }
    std::printf("store: %d cards x %d instances, %d h at one sample every %lld s: %lld samples, "
                "written in %.2f s, %.1f MiB\n",
                cards,
                kInstances,
                hours,
                periodMs / 1000,
                samples,
                timer.nsecsElapsed() / 1e9,
                (QFileInfo(path).size() + QFileInfo(path + QStringLiteral("-wal")).size())
                        / 1048576.0);
    store.reset();

    const qint64 from = end - qint64(Models::SeriesStore::kDefaultHorizonSeconds * 1000.0);
    QList<double> readMs, mergeMs;
    qsizetype series = 0, points = 0;
    for (int r = 0; r < runs; ++r) {
        timer.restart();
        auto reader
                = Storage::Reader::open(path, Storage::Reader::OpenMode::RequireCurrent, &error);
        QList<Models::HistorySeries> history;
        if (!reader || !Models::readSeriesHistory(*reader, from, end, {}, &history, &error)) {
            std::printf("cannot read: %s\n", qPrintable(error));
            return 1;
        }
        readMs.append(timer.nsecsElapsed() / 1e6);
        series = history.size();
        points = 0;
        for (const Models::HistorySeries &h : history)
            points += h.points.size();

        Models::SeriesStore charts;
        Models::SeriesInfo live;
        live.key = Models::SeriesStore::cardKey(Domain::CardId(0), Models::SeriesMetric::Power);
        live.subject = Models::SeriesSubject::Card;
        live.metric = Models::SeriesMetric::Power;
        live.id = 0;
        charts.appendPoint(live, double(end + 1000) / 1000.0, 300);
        charts.notifyAppended();
        timer.restart();
        charts.mergeHistory(history);
        mergeMs.append(timer.nsecsElapsed() / 1e6);
    }
    std::sort(readMs.begin(), readMs.end());
    std::sort(mergeMs.begin(), mergeMs.end());
    std::printf("history for the charts' %.0f h: %lld series, %lld points\n",
                Models::SeriesStore::kDefaultHorizonSeconds / 3600.0,
                qlonglong(series),
                qlonglong(points));
    std::printf("read (loader thread): median %.1f ms, best %.1f ms, worst %.1f ms over %d runs\n",
                readMs[readMs.size() / 2],
                readMs.first(),
                readMs.last(),
                runs);
    std::printf("merge (GUI thread):   median %.2f ms, worst %.2f ms\n",
                mergeMs[mergeMs.size() / 2],
                mergeMs.last());
    return 0;
}
