// SPDX-License-Identifier: GPL-3.0-or-later
// The store's figures: sustained batched ingest, a 1,000,000-event CSV export, and one-day
// filtered queries over 1,000,000 events. Prints figures; asserts nothing.
//
//   bench_storage [--events N] [--dir DIR] [--ingest-only]
#include "core/storage/exporter.h"
#include "core/storage/store.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>

using namespace Zhaoxi::Storage;

namespace {

constexpr qint64 kT0 = Q_INT64_C(1714521600000);
constexpr qint64 kDay = 24 * 3600 * 1000;
const char *const kCodes[] = {"job-submitted",
                              "job-placed",
                              "job-waiting",
                              "job-preempting",
                              "job-evicted",
                              "job-finished",
                              "partition-created",
                              "partition-destroyed",
                              "card-mode-changed",
                              "card-failed",
                              "window-opened",
                              "operator-login"};

double medianMs(const std::function<void()> &f, int runs)
{
    std::vector<double> t;
    for (int i = 0; i < runs; ++i) {
        QElapsedTimer timer;
        timer.start();
        f();
        t.push_back(timer.nsecsElapsed() / 1e6);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    qint64 n = 1'000'000;
    QString dirPath;
    const QStringList args = app.arguments();
    const bool ingestOnly = args.contains(QStringLiteral("--ingest-only"));
    for (int i = 1; i + 1 < args.size(); ++i) {
        if (args[i] == QLatin1String("--events"))
            n = args[i + 1].toLongLong();
        else if (args[i] == QLatin1String("--dir"))
            dirPath = args[i + 1];
    }
    QTemporaryDir tmp(dirPath.isEmpty() ? QDir::tempPath() + QStringLiteral("/bench_storage-XXXXXX")
                                        : dirPath + QStringLiteral("/bench_storage-XXXXXX"));
    const QString path = tmp.filePath(QStringLiteral("bench.sqlite"));
    std::printf(
            "store: %s, %lld events over 30 days\n", qPrintable(path), static_cast<long long>(n));

    // --- ingest -------------------------------------------------------------------------------
    QString err;
    auto store = Store::open(path, &err);
    if (!store) {
        std::printf("cannot open: %s\n", qPrintable(err));
        return 1;
    }
    QRandomGenerator rng(42);
    const qint64 span = 30 * kDay;
    QElapsedTimer timer;
    timer.start();
    for (qint64 i = 0; i < n; ++i) {
        Event e;
        e.atMs = kT0 + i * span / n;
        const quint32 r = rng.generate();
        e.severity = Severity(r % 16 == 0 ? 2 : r % 5 == 0 ? 1 : 0);
        e.source = Source((r >> 4) % 3);
        e.code = kCodes[(r >> 8) % std::size(kCodes)];
        e.card = int((r >> 12) % 64);
        e.partition = (r >> 18) % 2 ? int((r >> 19) % 7) : -1;
        e.job = int((r >> 20) % 10000);
        e.params = R"({"host":)" + QByteArray::number((r >> 22) % 8) + R"(,"value":)"
                   + QByteArray::number(i) + "}";
        store->append(std::move(e));
    }
    const double enqueueS = timer.nsecsElapsed() / 1e9;
    store->flush();
    const double ingestS = timer.nsecsElapsed() / 1e9;
    std::printf(
            "ingest: %lld events in %.3f s = %.0f events/s sustained (producer done after %.3f s; "
            "batched, one writer thread, synchronous=NORMAL)\n",
            static_cast<long long>(n),
            ingestS,
            n / ingestS,
            enqueueS);
    store.reset(); // checkpoint the WAL
    std::printf("file: %.1f MiB\n", QFileInfo(path).size() / 1048576.0);

    if (ingestOnly)
        return 0;
    auto reader = Reader::open(path, Reader::OpenMode::RequireCurrent, &err);

    // --- export -------------------------------------------------------------------------------
    for (ExportFormat format : {ExportFormat::Csv, ExportFormat::JsonLines}) {
        const QString out = tmp.filePath(format == ExportFormat::Csv ? QStringLiteral("all.csv")
                                                                     : QStringLiteral("all.jsonl"));
        ExportOptions options;
        options.format = format;
        options.timeZone = QTimeZone("Asia/Shanghai");
        timer.restart();
        const ExportResult r = exportEventsToFile(*reader, {}, options, out);
        const double s = timer.nsecsElapsed() / 1e9;
        std::printf(
                "export %s: %lld events in %.3f s (%.1f MiB, English messages, +08:00 times)%s\n",
                format == ExportFormat::Csv ? "CSV  " : "JSONL",
                static_cast<long long>(r.rows),
                s,
                QFileInfo(out).size() / 1048576.0,
                r.ok ? "" : qPrintable(QStringLiteral(" FAILED: ") + r.error));
    }

    // --- one-day filtered queries -------------------------------------------------------------
    struct Q
    {
        const char *name;
        EventFilter filter;
    };
    EventFilter day;
    day.fromMs = kT0 + 12 * kDay;
    day.toMs = kT0 + 13 * kDay;
    QList<Q> queries;
    queries.append({"one day, all events", day});
    EventFilter f = day;
    f.severities = {Severity::Warning, Severity::Error, Severity::Critical};
    queries.append({"one day, warnings and errors", f});
    f = day;
    f.cards = {5};
    queries.append({"one day, card 5", f});
    f = day;
    f.jobs = {1234};
    queries.append({"one day, job 1234", f});
    f = day;
    f.codes = {"card-failed"};
    f.sources = {Source::Device, Source::Scheduler};
    queries.append({"one day, card-failed from device|scheduler", f});
    f = {};
    f.jobs = {1234};
    queries.append({"30 days, job 1234", f});
    for (const Q &q : queries) {
        qint64 rows = 0;
        const double ms = medianMs(
                [&] {
                    rows = 0;
                    reader->forEachEvent(q.filter, [&](const Event &) {
                        ++rows;
                        return true;
                    });
                },
                21);
        std::printf("query %-45s %6lld rows, median %.2f ms (rows materialised as Events)\n",
                    q.name,
                    static_cast<long long>(rows),
                    ms);
    }
    return 0;
}
