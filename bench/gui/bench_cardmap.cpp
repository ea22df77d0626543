// SPDX-License-Identifier: GPL-3.0-or-later
// Repaint time of the card map: a synthetic appliance of 8 hosts x 8 H200 cards in MIG mode
// (the demo day's layouts, most partitions serving jobs, half of those busy) drawn at
// 1600x1000 in fit mode, rendered again and again into an image.
//
//   warm:  the same snapshot again (tiles come from their pixmaps: what a scroll, a drag
//          highlight or an unrelated repaint costs)
//   cold:  every card's readings changed (every tile is painted anew: the worst snapshot)
//   feed:  setSnapshot() alone (building the tiles' data from a snapshot)
//
// Prints median and p99 per repaint; the goal is under 8 ms for the warm and cold repaints.
// Usage: bench_cardmap [--repeat N] [--png FILE (the last repaint)]
#include "core/catalogue/catalogue.h"
#include "core/session/snapshot.h"
#include "widgets/cardmap/cardmapview.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <cstdio>
#include <vector>

#include <time.h>

using namespace Zhaoxi;

namespace {

// This thread's CPU time, ms: on a loaded machine the wall clock also counts other processes.
double cpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

struct Figures
{
    double median = 0;
    double p99 = 0;
};

Figures figures(std::vector<double> ms)
{
    std::sort(ms.begin(), ms.end());
    Figures f;
    f.median = ms[ms.size() / 2];
    f.p99 = ms[std::min(ms.size() - 1, size_t(double(ms.size()) * 0.99))];
    return f;
}

Sched::ClusterState appliance()
{
    Sched::ClusterState st(Catalogue::Catalogue::builtIn());
    const int model = st.catalogue().indexOf(QStringLiteral("H200-141GB"));
    if (model < 0)
        qFatal("no H200 in the catalogue");
    const Domain::CardModel &m = st.catalogue().models()[model];
    const QList<QStringList> layouts{
            {QStringLiteral("3g.71gb@0"), QStringLiteral("3g.71gb@4")},
            {QStringLiteral("3g.71gb@0"), QStringLiteral("2g.35gb@4"), QStringLiteral("1g.18gb@6")},
            {QStringLiteral("2g.35gb@0"),
             QStringLiteral("2g.35gb@2"),
             QStringLiteral("2g.35gb@4"),
             QStringLiteral("1g.18gb@6")},
            {QStringLiteral("1g.18gb@0"),
             QStringLiteral("1g.18gb@1"),
             QStringLiteral("1g.18gb@2"),
             QStringLiteral("1g.18gb@3"),
             QStringLiteral("1g.18gb@4"),
             QStringLiteral("1g.18gb@5"),
             QStringLiteral("1g.18gb@6")},
            {QStringLiteral("7g.141gb@0")},
            {QStringLiteral("4g.71gb@0"), QStringLiteral("2g.35gb@4")},
    };
    int n = 0;
    for (int h = 0; h < 8; ++h) {
        const Domain::HostId host
                = st.addHost(QStringLiteral("node-%1").arg(h), 1'024'000, qint64(16) * 1024 * 1024);
        for (int c = 0; c < 8; ++c) {
            const Domain::CardId card = st.addCard(host, model, Domain::PartitionMode::Mig, c / 4);
            for (const QString &p : layouts[(h + c) % layouts.size()]) {
                const QStringList parts = p.split(QLatin1Char('@'));
                st.createPartition(card, m.profileIndex(parts[0]), parts[1].toInt());
            }
            // Most partitions serve a job: inference and training alternate.
            const QList<Sched::Unit> units = st.card(card).units;
            for (const Sched::Unit &u : units) {
                if (++n % 5 == 0)
                    continue;
                Domain::WorkloadSpec spec;
                spec.name = QStringLiteral("job-%1").arg(n);
                spec.kind
                        = n % 2 ? Domain::WorkloadKind::Inference : Domain::WorkloadKind::Training;
                spec.demand.compute.kind = Domain::ComputeDemand::Kind::MigProfile;
                spec.demand.compute.profile = m.migProfiles[u.profile].name;
                if (spec.kind == Domain::WorkloadKind::Inference) {
                    Domain::InferenceSpec inf;
                    inf.service = QStringLiteral("svc");
                    spec.inference = inf;
                }
                const Domain::JobId job = st.addJob(spec, 0);
                st.attachHost(job, host);
                Sched::UnitChoice choice;
                choice.card = card;
                choice.kind = Sched::UnitChoice::Kind::Existing;
                choice.uid = u.uid;
                st.bind(job, choice);
                st.setJobState(job, Sched::JobState::Running);
            }
        }
    }
    return st;
}

Session::SnapshotPtr snapshot(const Sched::ClusterState &st, quint64 serial)
{
    auto s = std::make_shared<Session::Snapshot>();
    s->serial = serial;
    s->state = st;
    for (const Sched::CardState &c : st.cards()) {
        Session::CardSample sample;
        sample.card = c.id.value();
        const int k = int((c.id.value() * 7 + serial * 3) % 40);
        sample.utilisation = 0.3 + k / 80.0;
        sample.temperatureC = 55 + k;
        sample.powerW = 250 + 10 * k;
        sample.powerLimitW = 700;
        sample.memoryTotalMiB = st.model(c).memoryMiB;
        sample.memoryUsedMiB = c.usedMemoryMiB;
        for (const Sched::Unit &u : c.units) {
            if (u.job.isValid() && (u.uid + serial) % 2 == 0)
                sample.busyUnits.append(u.uid);
        }
        s->cards.append(sample);
    }
    return s;
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    int repeat = 200;
    const QStringList args = app.arguments();
    const int r = int(args.indexOf(QStringLiteral("--repeat")));
    if (r >= 0 && r + 1 < args.size())
        repeat = std::max(10, args[r + 1].toInt());

    const Sched::ClusterState st = appliance();
    Widgets::CardMapView map(nullptr);
    map.resize(1600, 1000);
    map.show();
    QCoreApplication::processEvents();
    quint64 serial = 1;
    map.setSnapshot(snapshot(st, serial));
    QImage image(map.size(), QImage::Format_ARGB32_Premultiplied);
    map.render(&image); // first paint: fonts, glyph caches

    std::vector<double> warm, cold, feed, warmCpu, coldCpu;
    QElapsedTimer t;
    for (int i = 0; i < repeat; ++i) {
        const double c0 = cpuMs();
        t.start();
        map.render(&image);
        warm.push_back(double(t.nsecsElapsed()) / 1e6);
        warmCpu.push_back(cpuMs() - c0);
    }
    // Snapshots made before timing: the session builds them, not the map.
    std::vector<Session::SnapshotPtr> next;
    for (int i = 0; i < repeat; ++i)
        next.push_back(snapshot(st, ++serial));
    for (int i = 0; i < repeat; ++i) {
        t.start();
        map.setSnapshot(next[size_t(i)]);
        feed.push_back(double(t.nsecsElapsed()) / 1e6);
        const double c0 = cpuMs();
        t.start();
        map.render(&image);
        cold.push_back(double(t.nsecsElapsed()) / 1e6);
        coldCpu.push_back(cpuMs() - c0);
    }

    const int png = int(args.indexOf(QStringLiteral("--png")));
    if (png >= 0 && png + 1 < args.size())
        image.save(args[png + 1]);

    const Figures w = figures(warm);
    const Figures wc = figures(warmCpu);
    const Figures c = figures(cold);
    const Figures cc = figures(coldCpu);
    const Figures f = figures(feed);
    std::printf("card map: %lld cards on %lld hosts, %dx%d, zoom %.2f (fit), %d repaints each\n",
                qlonglong(st.cards().size()),
                qlonglong(st.hosts().size()),
                map.width(),
                map.height(),
                map.zoom(),
                repeat);
    std::printf("                                      wall clock              CPU time (this "
                "thread)\n");
    std::printf("warm repaint (same snapshot):       median %5.2f p99 %5.2f ms  median %5.2f p99 "
                "%5.2f ms\n",
                w.median,
                w.p99,
                wc.median,
                wc.p99);
    std::printf("cold repaint (every tile changed):  median %5.2f p99 %5.2f ms  median %5.2f p99 "
                "%5.2f ms\n",
                c.median,
                c.p99,
                cc.median,
                cc.p99);
    std::printf("setSnapshot (tiles' data):          median %5.2f p99 %5.2f ms\n", f.median, f.p99);
    std::printf("goal: repaint under 8 ms (p99 CPU time): warm %s, cold %s\n",
                wc.p99 < 8 ? "met" : "missed",
                cc.p99 < 8 ? "met" : "missed");
    return 0;
}
