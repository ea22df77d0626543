// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/trace/protocol.h"

#include <QSet>
#include <QTest>

using namespace Zhaoxi;
using namespace Zhaoxi::Trace;

namespace {

NodeRecord node(const QString &name,
                int gpus,
                qint64 cpu = 64000,
                const QString &model = QStringLiteral("G2"))
{
    return NodeRecord{name, cpu, 262144, gpus, gpus > 0 ? model : QString()};
}

PodRecord pod(
        const QString &name, int numGpu, int gpuMilli, qint64 cpu = 4000, const QString &spec = {})
{
    PodRecord p;
    p.name = name;
    p.cpuMilli = cpu;
    p.memoryMiB = 1024;
    p.numGpu = numGpu;
    p.gpuMilli = gpuMilli;
    p.gpuSpec = spec;
    return p;
}

// A small trace in scrambled name order: shares, whole cards, a gang and CPU-only pods.
QList<PodRecord> smallTrace()
{
    QList<PodRecord> pods;
    const int milli[] = {500, 1000, 250, 0, 1000, 800, 300, 1000, 0, 460};
    for (int i = 0; i < 10; ++i) {
        const int k = (i * 7) % 10; // names out of order
        pods << pod(QStringLiteral("pod-%1").arg(k, 2, 10, QLatin1Char('0')),
                    milli[k] ? 1 : 0,
                    milli[k]);
    }
    pods << pod(QStringLiteral("pod-gang"), 2, 1000, 16000);
    return pods;
}

QList<NodeRecord> smallCluster()
{
    return {node(QStringLiteral("n-c"), 2),
            node(QStringLiteral("n-a"), 4),
            node(QStringLiteral("n-b"), 1),
            node(QStringLiteral("n-cpu"), 0)};
}

// The protocol's text (3.2-3.4) re-done step by step with the generator, for comparison.
ArrivalPlan byTheText(QList<NodeRecord> nodes, QList<PodRecord> pods, qint64 seed, double tune)
{
    ArrivalPlan p;
    GoRand r(seed);
    r.int63();
    std::sort(pods.begin(), pods.end(), [](auto &a, auto &b) {
        return a.name.toUtf8() < b.name.toUtf8();
    });
    std::sort(nodes.begin(), nodes.end(), [](auto &a, auto &b) {
        return a.name.toUtf8() < b.name.toUtf8();
    });
    for (int i = 0; i < pods.size(); ++i)
        p.arrivals << i;
    for (int i = int(pods.size()) - 1; i > 0; --i) {
        const quint32 n = quint32(i + 1);
        quint64 prod = quint64(r.uint32()) * n;
        while (quint32(prod) < quint32(-qint32(n)) % n)
            prod = quint64(r.uint32()) * n;
        p.arrivals.swapItemsAt(i, int(prod >> 32));
    }
    qint64 cap = 0, d = 0;
    for (auto &n : nodes)
        cap += n.gpus * 1000;
    for (auto &x : pods)
        d += x.gpuDemand();
    const double t = tune * double(cap);
    if (d < t) {
        for (;;) {
            const int k = int(r.intn(pods.size()));
            if (double(d + pods[k].milliPerCard()) > t)
                break;
            p.arrivals << k;
            d += pods[k].gpuDemand();
        }
    } else {
        while (double(d) > t) {
            const int at = int(r.intn(p.arrivals.size()));
            d -= pods[p.arrivals[at]].gpuDemand();
            p.arrivals.removeAt(at);
        }
    }
    for (int i = 0; i < 10; ++i)
        r.int63();
    p.ranks = r.perm(int(nodes.size()));
    p.demandAfter = d;
    return p;
}

} // namespace

class tst_Protocol : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sortsByName();
    void padsUpToTheTarget_data();
    void padsUpToTheTarget();
    void thinsDownToTheTarget();
    void cpuOnlyTraceIsNotPadded();
    void planIsDeterministicPerSeed();
    void targetWorkloadOrderAndCut();
    void targetWorkloadWeights();
    void podsBecomeSpecs();
};

void tst_Protocol::sortsByName()
{
    const ArrivalPlan p = planArrivals(smallCluster(), smallTrace(), 42);
    for (int i = 1; i < p.pods.size(); ++i)
        QVERIFY(p.pods[i - 1].name.toUtf8() < p.pods[i].name.toUtf8());
    QCOMPARE(p.nodes.first().name, QStringLiteral("n-a"));
    QCOMPARE(p.nodes.last().name, QStringLiteral("n-cpu"));
    QCOMPARE(p.capacityMilli, 7000);
}

void tst_Protocol::padsUpToTheTarget_data()
{
    QTest::addColumn<qint64>("seed");
    QTest::addColumn<double>("tune");
    for (qint64 seed : {42, 43, 51, 7})
        for (double tune : {1.3, 2.0})
            QTest::addRow("seed %lld tune %.1f", seed, tune) << seed << tune;
}

void tst_Protocol::padsUpToTheTarget()
{
    QFETCH(qint64, seed);
    QFETCH(double, tune);
    const ArrivalPlan p = planArrivals(smallCluster(), smallTrace(), seed, tune);
    const ArrivalPlan text = byTheText(smallCluster(), smallTrace(), seed, tune);
    QCOMPARE(p.arrivals, text.arrivals);
    QCOMPARE(p.ranks, text.ranks);
    QCOMPARE(p.demandAfter, text.demandAfter);
    // The originals come first, each once; the copies follow.
    QCOMPARE(p.originals, 11);
    const QList<int> firsts = p.arrivals.mid(0, 11);
    QCOMPARE(QSet<int>(firsts.begin(), firsts.end()).size(), 11);
    QVERIFY(p.arrivals.size() > 11);
    QCOMPARE(p.demandBefore, 7310);
    QVERIFY(double(p.demandAfter) <= p.targetMilli + 1000); // a gang copy may overshoot
    qint64 sum = 0;
    for (int i : p.arrivals)
        sum += p.pods[i].gpuDemand();
    QCOMPARE(sum, p.demandAfter);
    // It stopped because a drawn pod's per-card share (at most 1000) would have passed the target.
    QVERIFY(double(p.demandAfter) + 1000 > p.targetMilli);
    QCOMPARE(QSet<int>(p.ranks.begin(), p.ranks.end()).size(), 4);
}

void tst_Protocol::thinsDownToTheTarget()
{
    // 7000 milli of capacity at tune 0.5 is 3500: the trace's 7310 must be thinned.
    const ArrivalPlan p = planArrivals(smallCluster(), smallTrace(), 44, 0.5);
    const ArrivalPlan text = byTheText(smallCluster(), smallTrace(), 44, 0.5);
    QCOMPARE(p.arrivals, text.arrivals);
    QVERIFY(p.arrivals.size() < 11);
    QVERIFY(p.demandAfter <= 3500);
    QCOMPARE(p.originals, int(p.arrivals.size()));
    QCOMPARE(p.ranks, text.ranks);
}

void tst_Protocol::cpuOnlyTraceIsNotPadded()
{
    const QList<PodRecord> pods{pod(QStringLiteral("a"), 0, 0), pod(QStringLiteral("b"), 0, 0)};
    const ArrivalPlan p = planArrivals(smallCluster(), pods, 1);
    QCOMPARE(p.arrivals.size(), 2);
}

void tst_Protocol::planIsDeterministicPerSeed()
{
    const ArrivalPlan a = planArrivals(smallCluster(), smallTrace(), 45);
    const ArrivalPlan b = planArrivals(smallCluster(), smallTrace(), 45);
    const ArrivalPlan c = planArrivals(smallCluster(), smallTrace(), 46);
    QCOMPARE(a.arrivals, b.arrivals);
    QCOMPARE(a.ranks, b.ranks);
    QVERIFY(a.arrivals != c.arrivals || a.ranks != c.ranks);
}

void tst_Protocol::targetWorkloadOrderAndCut()
{
    // 20 pods: shape A x8, B x5, C x3 (CPU-only), D x2, E x1, F x1. 95 % of 20 is 19: A..E are kept
    // (running 8, 13, 16, 18, 19) and F dropped. D and E/F tie-break on CPU, then share, ...
    QList<PodRecord> pods;
    auto add = [&](int n, int numGpu, int milli, qint64 cpu, const QString &spec = {}) {
        for (int i = 0; i < n; ++i)
            pods << pod(QStringLiteral("p%1").arg(pods.size()), numGpu, milli, cpu, spec);
    };
    add(8, 1, 1000, 8000);
    add(5, 1, 500, 4000);
    add(3, 0, 0, 16000);
    add(2, 1, 250, 2000);
    add(1, 1, 300, 2000, QStringLiteral("T4"));
    add(1, 1, 300, 2000, QStringLiteral("G2"));
    const Sched::TargetWorkload t = targetWorkloadOf(pods);
    QCOMPARE(t.totalCount(), 20);
    QCOMPARE(t.distinctShapes(), 6);
    QCOMPARE(t.keptCount(), 19);
    QCOMPARE(t.shapes().size(), 5);
    QCOMPARE(t.shapes()[0].shape.milli, 1000);
    QCOMPARE(t.shapes()[2].shape.cpuMilli, 16000);
    QVERIFY(t.shapes()[2].shape.isCpuOnly());
    QCOMPARE(t.shapes()[3].shape.milli, 250);
    // count 1 each: same CPU and share; the model string decides, descending: "T4" > "G2".
    QCOMPARE(t.shapes()[4].shape.models, QStringLiteral("T4"));
    QCOMPARE(t.shapes()[0].memoryMiB, 1024);
}

void tst_Protocol::targetWorkloadWeights()
{
    QList<PodRecord> pods;
    for (int i = 0; i < 3; ++i)
        pods << pod(QStringLiteral("a%1").arg(i), 1, 500);
    pods << pod(QStringLiteral("b"), 1, 1000);
    const Sched::TargetWorkload t = targetWorkloadOf(pods);
    QCOMPARE(t.shapes().size(), 2);
    QCOMPARE(t.shapes()[0].weight, (3.0 / 4.0) / (4.0 / 4.0));
    QCOMPARE(t.shapes()[1].weight, (1.0 / 4.0) / (4.0 / 4.0));
}

void tst_Protocol::podsBecomeSpecs()
{
    using Domain::ComputeDemand;
    const Domain::WorkloadSpec share
            = specOf(pod(QStringLiteral("s"), 1, 460, 6000, QStringLiteral("V100M16|V100M32")));
    QCOMPARE(share.demand.cards, 1);
    QVERIFY(share.demand.compute.kind == ComputeDemand::Kind::Fraction);
    QCOMPARE(share.demand.compute.milli, 460);
    QCOMPARE(share.demand.hostCpuMilli, 6000);
    QCOMPARE(share.demand.hostMemoryMiB, 1024);
    QCOMPARE(share.affinity.cardModels,
             (QStringList{QStringLiteral("V100M16"), QStringLiteral("V100M32")}));
    QVERIFY(share.isolation == Domain::IsolationRequirement::SoftAllowed);
    const Domain::WorkloadSpec gang = specOf(pod(QStringLiteral("g"), 8, 1000));
    QCOMPARE(gang.demand.cards, 8);
    QVERIFY(gang.demand.compute.kind == ComputeDemand::Kind::WholeCard);
    const Domain::WorkloadSpec cpu
            = specOf(pod(QStringLiteral("c"), 0, 0, 0, QStringLiteral("T4")));
    QCOMPARE(cpu.demand.cards, 0);
    QCOMPARE(cpu.demand.hostCpuMilli, 100); // a CPU of 0 becomes 100
    QVERIFY(cpu.affinity.cardModels.isEmpty());
}

QTEST_GUILESS_MAIN(tst_Protocol)
#include "tst_protocol.moc"
