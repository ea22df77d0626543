// SPDX-License-Identifier: GPL-3.0-or-later
// Placement decision latency on a large appliance: 1,000 hosts x 8 cards (MIG, whole and
// soft-sliced), half full, with a few thousand queued units. Prints figures; asserts nothing.
//
//   bench_placement [--hosts N] [--queue N] [--seed N]
#include "core/catalogue/catalogue.h"
#include "core/sched/scheduler.h"
#include "core/sched/statement.h"

#include <QCoreApplication>
#include <QRandomGenerator>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <vector>

using namespace Zhaoxi;
using namespace Zhaoxi::Sched;
using Domain::ComputeDemand;

namespace {

WorkloadSpec randomSpec(QRandomGenerator &rng, int n)
{
    WorkloadSpec w;
    w.name = QStringLiteral("u%1").arg(n);
    w.priority = rng.bounded(4) * 10;
    w.demand.cards = 1;
    w.demand.hostCpuMilli = 2000 * (1 + rng.bounded(8));
    w.demand.hostMemoryMiB = 8192 * (1 + rng.bounded(8));
    switch (rng.bounded(6)) {
    case 0:
        w.kind = Domain::WorkloadKind::Training;
        w.demand.compute.kind = ComputeDemand::Kind::WholeCard;
        w.demand.cards = QList<int>{1, 2, 4, 8}[rng.bounded(4)];
        break;
    case 1:
        w.kind = Domain::WorkloadKind::Inference;
        w.demand.compute.kind = ComputeDemand::Kind::MigSlices;
        w.demand.compute.slices = QList<int>{1, 2, 3}[rng.bounded(3)];
        w.demand.memoryMiB = 8000 * w.demand.compute.slices;
        break;
    case 2:
        w.kind = Domain::WorkloadKind::Inference;
        w.demand.compute.kind = ComputeDemand::Kind::MigProfile;
        w.demand.compute.profile
                = rng.bounded(2) ? QStringLiteral("1g.10gb") : QStringLiteral("2g.35gb");
        w.isolation = Domain::IsolationRequirement::HardOnly;
        break;
    default:
        w.kind = Domain::WorkloadKind::Inference;
        w.demand.compute.kind = ComputeDemand::Kind::Fraction;
        w.demand.compute.milli = 100 * (1 + rng.bounded(6));
        w.demand.memoryMiB = 2048 * (1 + rng.bounded(8));
        break;
    }
    if (w.kind == Domain::WorkloadKind::Inference) {
        w.inference = Domain::InferenceSpec{};
        w.inference->service = QStringLiteral("svc%1").arg(rng.bounded(50));
        w.inference->sloP99Ms = 200;
    }
    return w;
}

// Thread CPU time: on a shared 2-core machine it is steadier than wall time.
double cpuMicros()
{
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e6 + double(ts.tv_nsec) / 1e3;
}

double percentile(std::vector<double> v, double p)
{
    std::sort(v.begin(), v.end());
    return v[size_t(p * double(v.size() - 1))];
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    int hosts = 1000, queue = 3000;
    quint32 seed = 1;
    const QStringList a = app.arguments();
    for (int i = 1; i + 1 < a.size(); ++i) {
        if (a[i] == QLatin1String("--hosts"))
            hosts = a[i + 1].toInt();
        else if (a[i] == QLatin1String("--queue"))
            queue = a[i + 1].toInt();
        else if (a[i] == QLatin1String("--seed"))
            seed = a[i + 1].toUInt();
    }
    const Catalogue::Catalogue cat = Catalogue::Catalogue::builtIn();
    ClusterState st(cat);
    const int h100 = cat.indexOf(QStringLiteral("H100-SXM5-80GB"));
    const int h200 = cat.indexOf(QStringLiteral("H200-141GB"));
    const int l40s = cat.indexOf(QStringLiteral("L40S-48GB"));
    for (int h = 0; h < hosts; ++h) {
        const HostId id = st.addHost(
                QStringLiteral("node-%1").arg(h, 4, 10, QLatin1Char('0')), 192000, 2048 * 1024);
        const int kind = h % 10;
        for (int c = 0; c < 8; ++c) {
            if (kind < 4)
                st.addCard(id, h100, Domain::PartitionMode::Mig, 0);
            else if (kind < 7)
                st.addCard(id, h200, Domain::PartitionMode::Whole, c / 4);
            else
                st.addCard(id, l40s, Domain::PartitionMode::Mps, 0);
        }
    }
    QRandomGenerator rng(seed);
    Framework fw(defaultProfile());
    DecisionWorkspace ws;
    // Fill to about half the cards' compute with placed work.
    int n = 0;
    qint64 placedMilli = 0;
    const qint64 target = st.totalMilli() / 2;
    for (int tries = 0; placedMilli < target && tries < 200000; ++tries) {
        const JobId j = st.addJob(randomSpec(rng, n++), 0);
        DecideOptions o;
        o.trace = false;
        const Decision d = fw.decide(ws, st, st.job(j), 0, o);
        if (!d.status.isSuccess())
            continue;
        Statement s(st);
        s.place(j, *d.placement, 0);
        s.commit();
        placedMilli = st.classUsage().training + st.classUsage().inference + st.classUsage().batch;
    }
    // Queue a few thousand more (they stay pending: the latency of a decision is measured
    // against the full queue's state, decisions are not committed).
    std::vector<JobId> pending;
    for (int i = 0; i < queue; ++i)
        pending.push_back(st.addJob(randomSpec(rng, n++), 0));

    struct Mode
    {
        bool trace, reuse;
        const char *name;
    };
    for (const Mode mode : {Mode{false, false, "cold: no verdict reuse, no trace"},
                            Mode{false, true, "warm: verdicts reused, no trace"},
                            Mode{true, true, "warm, with decision traces"}}) {
        const bool trace = mode.trace;
        std::vector<double> us, cpu;
        us.reserve(pending.size());
        cpu.reserve(pending.size());
        int ok = 0;
        DecideOptions o;
        o.trace = trace;
        o.reuseVerdicts = mode.reuse;
        for (JobId j : pending) {
            const double c0 = cpuMicros();
            const auto t0 = std::chrono::steady_clock::now();
            const Decision d = fw.decide(ws, st, st.job(j), 0, o);
            const auto t1 = std::chrono::steady_clock::now();
            cpu.push_back(cpuMicros() - c0);
            us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
            ok += d.status.isSuccess();
        }
        std::printf("decide (%s): %d hosts x 8 cards, %zu queued, %d feasible; "
                    "per decision wall median %.1f us, p90 %.1f us, p99 %.1f us; "
                    "cpu median %.1f us, p99 %.1f us\n",
                    mode.name,
                    hosts,
                    pending.size(),
                    ok,
                    percentile(us, 0.5),
                    percentile(us, 0.9),
                    percentile(us, 0.99),
                    percentile(cpu, 0.5),
                    percentile(cpu, 0.99));
    }
    // A whole scheduling cycle over the queue, committing placements (each one changes a host, so
    // later decisions see fresh verdicts there), traces and events on.
    Scheduler sched(st, defaultProfile());
    const double c0 = cpuMicros();
    const auto t0 = std::chrono::steady_clock::now();
    const Scheduler::TickResult r = sched.tick(1000);
    const double ms
            = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                      .count();
    const double cpuMs = (cpuMicros() - c0) / 1000.0;
    std::printf("tick: %d placed, %d evicted, %d waiting in %.1f ms wall, %.1f ms cpu "
                "(%.1f us cpu per placed unit)\n",
                r.placed,
                r.evicted,
                r.waiting,
                ms,
                cpuMs,
                r.placed > 0 ? 1000.0 * cpuMs / double(r.placed) : 0.0);
    return 0;
}
