// SPDX-License-Identifier: GPL-3.0-or-later
// The store's figures: sustained batched ingest, a 1,000,000-event CSV export, and one-day
// filtered queries over 1,000,000 events. Prints figures; asserts nothing.
//
//   bench_storage [--events N] [--dir DIR] [--ingest-only]
//                 [--store FILE] [--out DIR] [--export-runs N] [--exports-only] [--varied]
//
// --store FILE: the store to use, ingested into (and kept) only when FILE does not exist yet, so
// that two builds can export the same rows; --out DIR keeps the exports there (all.csv, all.jsonl) to compare builds;
// --export-runs N times each export N times; --exports-only skips the queries; --varied ingests
// events with every kind of text the exporter escapes, guards or parses (actors with quotes,
// commas, line breaks and CJK, formula starts, escaped and nested params, params that are not an
// object, absent ids, times before 1970), so that two builds' exports can be compared byte for
// byte on more than the plain rows.
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

const char *const kVariedTexts[] = {"",
                                    "plain",
                                    "a,b",
                                    "say \"hi\"",
                                    "two\r\nlines",
                                    "lf\nonly",
                                    "\xE5\x8D\xA1 3 \xE5\xB7\xB2\xE6\x95\x85\xE9\x9A\x9C",
                                    "=HYPERLINK(\"http://x\")",
                                    "+1",
                                    "-2+3",
                                    "@SUM(A1)",
                                    "\tTAB",
                                    "\rCR",
                                    "back\\slash",
                                    "ctrl\x01\x1f"};
const char *const kVariedParams[] = {
        "",
        "{}",
        R"({"host":3,"reason":"no \"room\", here","other":9})",
        R"({"profile":"3g.71gb","mode":"mig","value":12})",
        R"({"movedTo":"/d/\"x\".corrupt","problem":"file is not a database"})",
        R"({"nested":{"host":1,"list":[1,2]},"host":"\u4e3b\u673a"})",
        R"( {"host" : 5 , "reason" : "spaced"} )",
        R"(["not","an","object"])",
        "not json, at all",
        R"({"reason":"line\nbreak\ttab"})",
};

// Events that exercise every escaping and guard path, mixed with the plain kind.
Event variedEvent(qint64 i, quint32 r)
{
    Event e;
    e.atMs = (r % 97 == 0 ? -kDay : kT0) + i * 7919;
    e.severity = Severity(r % 4);
    e.source = Source((r >> 3) % 5);
    e.code = r % 11 == 0 ? QByteArray("=odd,code")
                         : QByteArray(kCodes[(r >> 5) % std::size(kCodes)]);
    e.card = (r >> 9) % 3 == 0 ? -1 : int((r >> 11) % 64);
    e.partition = (r >> 13) % 2 ? int((r >> 14) % 7) : -1;
    e.job = (r >> 17) % 4 == 0 ? -1 : int((r >> 18) % 10000);
    e.actor = QString::fromUtf8(kVariedTexts[(r >> 20) % std::size(kVariedTexts)]);
    e.params = kVariedParams[(r >> 24) % std::size(kVariedParams)];
    return e;
}

// Ingests `n` events into a new store at `path` and prints the figures.
bool ingest(const QString &path, qint64 n, bool varied)
{
    QString err;
    auto store = Store::open(path, &err);
    if (!store) {
        std::printf("cannot open: %s\n", qPrintable(err));
        return false;
    }
    QRandomGenerator rng(42);
    const qint64 span = 30 * kDay;
    QElapsedTimer timer;
    timer.start();
    for (qint64 i = 0; i < n; ++i) {
        const quint32 r = rng.generate();
        if (varied) {
            store->append(variedEvent(i, r));
            continue;
        }
        Event e;
        e.atMs = kT0 + i * span / n;
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

    return true;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    qint64 n = 1'000'000;
    QString dirPath;
    QString storePath;
    QString outPath;
    int exportRuns = 1;
    const QStringList args = app.arguments();
    const bool ingestOnly = args.contains(QStringLiteral("--ingest-only"));
    const bool exportsOnly = args.contains(QStringLiteral("--exports-only"));
    const bool varied = args.contains(QStringLiteral("--varied"));
    for (int i = 1; i + 1 < args.size(); ++i) {
        if (args[i] == QLatin1String("--events"))
            n = args[i + 1].toLongLong();
        else if (args[i] == QLatin1String("--dir"))
            dirPath = args[i + 1];
        else if (args[i] == QLatin1String("--store"))
            storePath = args[i + 1];
        else if (args[i] == QLatin1String("--out"))
            outPath = args[i + 1];
        else if (args[i] == QLatin1String("--export-runs"))
            exportRuns = std::max(1, args[i + 1].toInt());
    }
    QTemporaryDir tmp(dirPath.isEmpty() ? QDir::tempPath() + QStringLiteral("/bench_storage-XXXXXX")
                                        : dirPath + QStringLiteral("/bench_storage-XXXXXX"));
    const QString path
            = storePath.isEmpty() ? tmp.filePath(QStringLiteral("bench.sqlite")) : storePath;
    const QDir outDir(outPath.isEmpty() ? tmp.path() : outPath);
    QString err;
    if (!storePath.isEmpty() && QFileInfo::exists(storePath)) {
        std::printf("store: %s (existing, no ingest)\n", qPrintable(path));
    } else {
        std::printf("store: %s, %lld events over 30 days\n",
                    qPrintable(path),
                    static_cast<long long>(n));
        if (!ingest(path, n, varied))
            return 1;
    }
    if (ingestOnly)
        return 0;
    auto reader = Reader::open(path, Reader::OpenMode::RequireCurrent, &err);
    if (!reader) {
        std::printf("cannot read: %s\n", qPrintable(err));
        return 1;
    }

    // --- export -------------------------------------------------------------------------------
    for (ExportFormat format : {ExportFormat::Csv, ExportFormat::JsonLines}) {
        const QString out
                = outDir.filePath(format == ExportFormat::Csv ? QStringLiteral("all.csv")
                                                              : QStringLiteral("all.jsonl"));
        ExportOptions options;
        options.format = format;
        options.timeZone = QTimeZone("Asia/Shanghai");
        for (int run = 0; run < exportRuns; ++run) {
            QElapsedTimer timer;
            timer.start();
            const ExportResult r = exportEventsToFile(*reader, {}, options, out);
            const double s = timer.nsecsElapsed() / 1e9;
            std::printf("export %s: %lld events in %.3f s (%.1f MiB, English messages, +08:00 "
                        "times)%s\n",
                        format == ExportFormat::Csv ? "CSV  " : "JSONL",
                        static_cast<long long>(r.rows),
                        s,
                        QFileInfo(out).size() / 1048576.0,
                        r.ok ? "" : qPrintable(QStringLiteral(" FAILED: ") + r.error));
        }
    }
    if (exportsOnly)
        return 0;
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
