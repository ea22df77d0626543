// SPDX-License-Identifier: GPL-3.0-or-later
// A child for tst_crashsafety: writes to a store as fast as it can and reports on stdout what
// the store has acknowledged, until the test kills it with SIGKILL.
//
//   storage_crash_writer DB events|state|metrics SEED
//
// Output lines: "moved <path>" when open() had to move a corrupt file aside (a failure for the
// test), "ready", then "<id>" for each event id once committed and "state <n>" once state
// version n is committed.
#include "core/storage/store.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

using namespace Zhaoxi::Storage;

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    if (argc != 4) {
        std::fprintf(stderr, "usage: storage_crash_writer DB events|state|metrics SEED\n");
        return 2;
    }
    const QString path = QString::fromLocal8Bit(argv[1]);
    const QByteArray mode = argv[2];
    QRandomGenerator rng(quint32(QByteArray(argv[3]).toUInt()));

    OpenReport report;
    QString error;
    StoreOptions options;
    options.maxBatch = 1 + int(rng.bounded(4000));
    auto store = Store::open(path, options, &report, &error);
    if (!store) {
        std::fprintf(stdout, "error %s\n", qPrintable(error));
        return 1;
    }
    if (!report.movedAsideTo.isEmpty())
        std::fprintf(stdout, "moved %s\n", qPrintable(report.movedAsideTo));

    // State versions waiting for their marker event to commit: (marker id, version).
    std::mutex pendingMutex;
    std::vector<std::pair<qint64, int>> pendingStates;
    qint64 printed = store->committedEventId();
    store->setCommitObserver([&](qint64 last) {
        // Ids are committed in order, so everything up to `last` from this run is durable.
        for (qint64 id = printed + 1; id <= last; ++id)
            std::fprintf(stdout, "%lld\n", static_cast<long long>(id));
        printed = last;
        std::lock_guard lock(pendingMutex);
        while (!pendingStates.empty() && pendingStates.front().first <= last) {
            std::fprintf(stdout, "state %d\n", pendingStates.front().second);
            pendingStates.erase(pendingStates.begin());
        }
        std::fflush(stdout);
    });
    std::fprintf(stdout, "ready\n");
    std::fflush(stdout);

    qint64 t = QDateTime::currentMSecsSinceEpoch();
    int stateVersion = 0;
    // Continue from the state a previous (killed) run left.
    if (auto reader = store->reader()) {
        if (auto s = reader->state(QStringLiteral("crash-test")))
            stateVersion
                    = QJsonDocument::fromJson(*s).object().value(QStringLiteral("version")).toInt();
    }
    qint64 metricT = t / 1000 * 1000;
    for (;;) {
        const int burst = 1 + int(rng.bounded(600));
        for (int i = 0; i < burst; ++i) {
            Event e;
            e.atMs = t++;
            e.severity = Severity(rng.bounded(4));
            e.source = Source(rng.bounded(4));
            e.code = "crash-test";
            e.card = int(rng.bounded(16));
            e.job = int(rng.bounded(1000));
            if (e.source == Source::Operator)
                e.actor = QStringLiteral("运维-admin");
            e.params = R"({"n":)" + QByteArray::number(i) + R"(,"text":"朝夕, \"quoted\""})";
            store->append(std::move(e));
            if (mode == "metrics") {
                for (int card = 0; card < 4; ++card)
                    store->appendMetric(MetricSample{{Metric::GpuUtil, card, -1, {}, -1},
                                                     metricT,
                                                     double(rng.bounded(100)),
                                                     {}});
                metricT += 1000; // a minute of samples every 60 events: roll-ups happen often
            }
        }
        if (mode == "state") {
            ++stateVersion;
            QByteArray doc = R"({"version":)" + QByteArray::number(stateVersion) + R"(,"pad":")"
                             + QByteArray(int(rng.bounded(20000)), 'x') + "\"}";
            // Two documents that must agree (as the layouts and the queue must).
            store->putStates({{QStringLiteral("crash-test"), doc},
                              {QStringLiteral("crash-test-pair"),
                               R"({"version":)" + QByteArray::number(stateVersion) + "}"}},
                             t);
            Event marker;
            marker.atMs = t++;
            marker.source = Source::Operator;
            marker.actor = QStringLiteral("crash-test");
            marker.code = "state-written";
            std::lock_guard lock(pendingMutex);
            pendingStates.emplace_back(store->append(std::move(marker)), stateVersion);
        }
        if (rng.bounded(4) == 0)
            std::this_thread::sleep_for(std::chrono::microseconds(rng.bounded(3000)));
    }
}
