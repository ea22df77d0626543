// SPDX-License-Identifier: GPL-3.0-or-later
// Each placement policy's choice on hand-built clusters, through the real framework.
#include "core/sched/plugins/fgdscore.h"
#include "core/sched/plugins/fragmentationscore.h"
#include "core/sched/plugins/policies.h"
#include "core/trace/placebench.h"

#include <QTest>

#include <cmath>

using namespace Zhaoxi;
using namespace Zhaoxi::Sched;
using namespace Zhaoxi::Trace;

namespace {

// A host: CPU and memory capacity, CPU already taken, and the compute already bound per card.
struct HostDesc
{
    qint64 cpu = 64000;
    qint64 cpuUsed = 0;
    QList<int> used; // one entry per card
    QString model = QStringLiteral("G2");
};

struct PodDesc
{
    qint64 cpu = 4000;
    int cards = 1;
    int milli = 1000;
};

Domain::WorkloadSpec specFor(const PodDesc &p)
{
    PodRecord r;
    r.name = QStringLiteral("pod");
    r.cpuMilli = p.cpu;
    r.memoryMiB = 1024;
    r.numGpu = p.cards;
    r.gpuMilli = p.milli;
    return specOf(r);
}

// A filler job that holds exactly `cpu` and one share of `milli` (specOf would round CPU 0 up).
Domain::WorkloadSpec filler(qint64 cpu, int milli)
{
    Domain::WorkloadSpec s;
    s.name = QStringLiteral("filler");
    s.demand.hostCpuMilli = cpu;
    s.demand.cards = milli > 0 ? 1 : 0;
    s.demand.compute.kind = milli >= 1000 ? Domain::ComputeDemand::Kind::WholeCard
                                          : Domain::ComputeDemand::Kind::Fraction;
    s.demand.compute.milli = milli;
    return s;
}

ClusterState makeCluster(const QList<HostDesc> &hosts)
{
    QList<NodeRecord> nodes;
    for (const HostDesc &h : hosts)
        nodes << NodeRecord{QStringLiteral("n%1").arg(nodes.size()),
                            h.cpu,
                            1 << 20,
                            int(h.used.size()),
                            h.model};
    const Catalogue::Catalogue cat = PlaceBench::catalogueFor(nodes);
    ClusterState s(cat);
    for (int i = 0; i < hosts.size(); ++i) {
        const HostId h = s.addHost(nodes[i].name, hosts[i].cpu, 1 << 20);
        for (int k = 0; k < hosts[i].used.size(); ++k)
            s.addCard(h, cat.indexOf(hosts[i].model), PartitionMode::TimeSlicing);
    }
    // Filler jobs: the CPU already taken, and each card's bound share.
    for (int i = 0; i < hosts.size(); ++i) {
        const HostState &h = s.hosts()[i];
        if (hosts[i].cpuUsed > 0) {
            const JobId j = s.addJob(filler(hosts[i].cpuUsed, 0), 0);
            s.attachHost(j, h.id);
            s.setJobState(j, JobState::Running);
        }
        for (int k = 0; k < hosts[i].used.size(); ++k) {
            const int milli = hosts[i].used[k];
            if (milli == 0)
                continue;
            const JobId j = s.addJob(filler(0, milli), 0);
            s.attachHost(j, h.id);
            UnitChoice u;
            u.card = CardId(h.firstCard + k);
            u.kind = UnitChoice::Kind::NewShare;
            u.milli = milli;
            s.bind(j, u);
            s.setJobState(j, JobState::Running);
        }
    }
    return s;
}

std::shared_ptr<const TargetWorkload> target(const QList<QPair<WorkloadShape, int>> &shapes)
{
    TargetWorkload::Builder b;
    for (const auto &s : shapes)
        b.add(s.first, s.second);
    return std::make_shared<const TargetWorkload>(b.build(1.0));
}

struct Outcome
{
    int host = -1;
    QList<int> cards; // indices on the host
    double score = NAN;
};

Outcome decide(const QString &policy,
               ClusterState &state,
               const PodDesc &pod,
               const QList<int> &ranks,
               std::shared_ptr<const TargetWorkload> tw = {})
{
    PolicyOptions o;
    o.target = tw;
    o.seed = 1;
    const std::optional<Profile> p = placementPolicyProfile(policy, o);
    Q_ASSERT(p);
    Framework fw(*p);
    if (!ranks.isEmpty())
        fw.setHostRanks(std::vector<int>(ranks.begin(), ranks.end()));
    const JobId id = state.addJob(specFor(pod), 0);
    DecideOptions opts;
    opts.trace = true;
    const Decision d = fw.decide(state, state.job(id), 0, opts);
    Outcome out;
    if (!d.placement)
        return out;
    out.host = d.placement->host.value();
    const HostState &h = state.host(d.placement->host);
    for (const UnitChoice &u : d.placement->units)
        out.cards << u.card.value() - h.firstCard;
    if (!d.trace.best.isEmpty() && !d.trace.best.first().scores.isEmpty())
        out.score = d.trace.best.first().scores.first();
    return out;
}

} // namespace

class tst_PlacementScores : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void baselineChoices_data();
    void baselineChoices();
    void randomPicksEveryFeasibleHost();
    void fgdWorkedExample();
    void fgdSharingPodTakesBestCard();
    void defaultCapsFitsByCpu();
    void defaultOneCopyWhenCpuIsScarce();
    void defaultModel();
    void defaultWithoutTargetIsBestFit();
    void unknownPolicy();
};

void tst_PlacementScores::baselineChoices_data()
{
    QTest::addColumn<QString>("policy");
    QTest::addColumn<QList<HostDesc>>("hosts");
    QTest::addColumn<PodDesc>("pod");
    QTest::addColumn<QList<int>>("ranks");
    QTest::addColumn<int>("host");
    QTest::addColumn<QList<int>>("cards");

    const QList<int> idle8(8, 0);
    QTest::newRow("random: the only host with room")
            << "random" << QList<HostDesc>{{64000, 62000, {0, 0}}, {64000, 0, {0, 1000}}}
            << PodDesc{4000, 1, 1000} << QList<int>{} << 1 << QList<int>{0};
    // dot = (64000/128000)(4000/128000) + (8000/8000)(1000/8000) -> 92; the small host: 99.
    QTest::newRow("dotprod: the smaller free vector wins")
            << "dotprod" << QList<HostDesc>{{64000, 0, idle8}, {8000, 0, {1000, 0}}}
            << PodDesc{4000, 1, 1000} << QList<int>{0, 1} << 1 << QList<int>{1};
    QTest::newRow("dotprod: best fit card")
            << "dotprod" << QList<HostDesc>{{64000, 0, {0, 600, 300, 500}}} << PodDesc{4000, 1, 400}
            << QList<int>{} << 0 << QList<int>{1};
    // share host: base 1 + 75; idle: 0 + 25; a host running a whole-card job: 3 + 0.
    QTest::newRow("gpuclustering: with its own kind")
            << "gpuclustering"
            << QList<HostDesc>{{96000, 0, {500, 0, 0, 0, 0, 0, 0, 0}},
                               {96000, 0, idle8},
                               {96000, 0, {1000, 0, 0, 0, 0, 0, 0, 0}}}
            << PodDesc{4000, 1, 300} << QList<int>{2, 0, 1} << 0 << QList<int>{0};
    QTest::newRow("gpuclustering: whole card joins whole cards")
            << "gpuclustering"
            << QList<HostDesc>{{96000, 0, {500, 0, 0, 0, 0, 0, 0, 0}},
                               {96000, 0, idle8},
                               {96000, 0, {1000, 0, 0, 0, 0, 0, 0, 0}}}
            << PodDesc{4000, 1, 1000} << QList<int>{0, 1, 2} << 2 << QList<int>{1};
    // a used card that fits: 100 - (50 div 10) = 95; a free card on a used host: 49; idle: 25.
    QTest::newRow("gpupacking: a used card first")
            << "gpupacking"
            << QList<HostDesc>{{96000, 0, idle8},
                               {96000, 0, {0, 0, 500, 0, 0, 0, 0, 0}},
                               {96000, 0, {800, 0, 0, 0, 0, 0, 0, 0}}}
            << PodDesc{4000, 1, 300} << QList<int>{0, 1, 2} << 1 << QList<int>{2};
    QTest::newRow("gpupacking: then a used host")
            << "gpupacking"
            << QList<HostDesc>{{96000, 0, idle8}, {96000, 0, {800, 0, 0, 0, 0, 0, 0, 0}}}
            << PodDesc{4000, 1, 300} << QList<int>{0, 1} << 1 << QList<int>{1};
    QTest::newRow("gpupacking: idle hosts far from 33 cards")
            << "gpupacking" << QList<HostDesc>{{96000, 0, idle8}, {96000, 0, {0, 0}}}
            << PodDesc{4000, 1, 1000} << QList<int>{0, 1} << 1 << QList<int>{0};
    // s = (92000/128000)/2 + (7000/8000)/2 -> 20; the small host: 89.
    QTest::newRow("bestfit: the tightest host")
            << "bestfit" << QList<HostDesc>{{96000, 0, idle8}, {16000, 0, {0, 0}}}
            << PodDesc{4000, 1, 1000} << QList<int>{0, 1} << 1 << QList<int>{0};
    QTest::newRow("bestfit: ties go to the lowest rank")
            << "bestfit" << QList<HostDesc>{{16000, 0, {0, 0}}, {16000, 0, {0, 0}}}
            << PodDesc{4000, 1, 1000} << QList<int>{5, 2} << 1 << QList<int>{0};
    QTest::newRow("bestfit: gang takes the lowest free cards")
            << "bestfit" << QList<HostDesc>{{64000, 0, {0, 300, 0, 0}}} << PodDesc{8000, 2, 1000}
            << QList<int>{} << 0 << QList<int>{0, 2};
    QTest::newRow("fgd: gang takes the lowest free cards")
            << "fgd" << QList<HostDesc>{{64000, 0, {0, 300, 0, 0}}} << PodDesc{8000, 2, 1000}
            << QList<int>{} << 0 << QList<int>{0, 2};
    QTest::newRow("default: gang takes the lowest free cards")
            << "default" << QList<HostDesc>{{64000, 0, {0, 300, 0, 0}}} << PodDesc{8000, 2, 1000}
            << QList<int>{} << 0 << QList<int>{0, 2};
    QTest::newRow("default: fills a hole exactly")
            << "default" << QList<HostDesc>{{64000, 0, {0, 500, 0, 0}}} << PodDesc{4000, 1, 500}
            << QList<int>{} << 0 << QList<int>{1};
}

void tst_PlacementScores::baselineChoices()
{
    QFETCH(QString, policy);
    QFETCH(QList<HostDesc>, hosts);
    QFETCH(PodDesc, pod);
    QFETCH(QList<int>, ranks);
    ClusterState s = makeCluster(hosts);
    const auto tw
            = target({{WorkloadShape{4000, 1000, 1, {}}, 3}, {WorkloadShape{4000, 500, 1, {}}, 2}});
    const Outcome o = decide(policy, s, pod, ranks, tw);
    QTEST(o.host, "host");
    QTEST(o.cards, "cards");
}

void tst_PlacementScores::randomPicksEveryFeasibleHost()
{
    PolicyOptions o;
    o.seed = 7;
    Framework fw(*placementPolicyProfile(QStringLiteral("random"), o));
    ClusterState s = makeCluster({{64000, 0, {0, 0}}, {64000, 0, {0, 0}}, {64000, 63000, {0, 0}}});
    const JobId id = s.addJob(specFor({4000, 1, 250}), 0);
    DecideOptions opts;
    opts.trace = false;
    int counts[3] = {};
    QSet<int> cards;
    for (int i = 0; i < 400; ++i) {
        const Decision d = fw.decide(s, s.job(id), 0, opts);
        QVERIFY(d.placement);
        ++counts[d.placement->host.value()];
        cards.insert(d.placement->units.first().card.value());
    }
    QVERIFY(counts[0] > 140 && counts[1] > 140); // about 200 each
    QCOMPARE(counts[2], 0);                      // no CPU left there
    QCOMPARE(cards.size(), 4);                   // a share's card is drawn too
}

// FGD protocol 4.6, the worked example.
void tst_PlacementScores::fgdWorkedExample()
{
    const auto tw = target({{WorkloadShape{4000, 500, 1, {}}, 2},
                            {WorkloadShape{8000, 1000, 1, {}}, 2},
                            {WorkloadShape{16000, 0, 0, {}}, 1}});
    QCOMPARE(tw->shapes().size(), 3);
    QCOMPARE(tw->shapes()[0].weight, 0.4);
    QCOMPARE(tw->shapes()[2].weight, 0.2);
    // The host: 16000 CPU free, cards free [1000, 300].
    ClusterState s = makeCluster({{32000, 16000, {0, 700}}});
    const ResolvedWorkload w(*tw, s.catalogue());
    const HostView v(s, s.hosts()[0]);
    QCOMPARE(v.totalFree, 1300);
    QCOMPARE(w.fragmentation(v.freeMilli, v.model, v.cardCount, v.cpuFree), 500.0);
    const int after1[] = {500, 300};
    QCOMPARE(w.fragmentation(after1, v.model, 2, 14000), 600.0);
    const int after2[] = {0, 300};
    QCOMPARE(w.fragmentation(after2, v.model, 2, 8000), 300.0);

    Outcome o = decide(QStringLiteral("fgd"), s, {2000, 1, 500}, {}, tw);
    QCOMPARE(o.score, 47.0); // trunc(100 sigmoid(-0.1)); card 1 (300 free) is not eligible
    QCOMPARE(o.cards, QList<int>{0});
    o = decide(QStringLiteral("fgd"), s, {8000, 1, 1000}, {}, tw);
    QCOMPARE(o.score, 54.0);
    o = decide(QStringLiteral("fgd"), s, {4000, 0, 0}, {}, tw);
    QCOMPARE(o.score, 50.0);
    QVERIFY(o.cards.isEmpty());
}

void tst_PlacementScores::fgdSharingPodTakesBestCard()
{
    // Shapes of 500 and 1000: a 500 share on the half-used card closes it (no fragment); on a free
    // card it leaves 500 that the whole-card shape cannot use.
    const auto tw
            = target({{WorkloadShape{1000, 500, 1, {}}, 1}, {WorkloadShape{1000, 1000, 1, {}}, 1}});
    ClusterState s = makeCluster({{64000, 0, {0, 500, 0}}});
    const Outcome o = decide(QStringLiteral("fgd"), s, {1000, 1, 500}, {}, tw);
    QCOMPARE(o.cards, QList<int>{1});
}

void tst_PlacementScores::defaultCapsFitsByCpu()
{
    // The expected jobs take one card and 8 cores each. A CPU-only job of 8 cores on the host with
    // 33 cores free leaves CPU for 3 of its 4 free cards; on the host with 40 cores it strands
    // nothing. FGD sees both as "fits" (ties, the rank decides); ours sees the stranded card.
    const auto tw = target({{WorkloadShape{8000, 1000, 1, {}}, 1}});
    ClusterState s = makeCluster({{40000, 7000, {0, 0, 0, 0}}, {40000, 0, {0, 0, 0, 0}}});
    QCOMPARE(decide(QStringLiteral("fgd"), s, {8000, 0, 0}, {0, 1}, tw).host, 0);
    QCOMPARE(decide(QStringLiteral("default"), s, {8000, 0, 0}, {0, 1}, tw).host, 1);
}

void tst_PlacementScores::defaultOneCopyWhenCpuIsScarce()
{
    // The same hosts as above (80 cores for 8 cards: 10 CPU-milli per milli-card), but the mix also
    // expects CPU-only jobs of 16 cores: it asks (8000 + 16000) / 2 CPU per 500 milli, 24 per
    // milli-card, more than the cluster has. Then a shape's fitting cards count while one copy
    // fits: both hosts still fit one 8-core card job after the CPU-only job, so they tie and the
    // rank decides, as under FGD.
    const auto tw
            = target({{WorkloadShape{8000, 1000, 1, {}}, 1}, {WorkloadShape{16000, 0, 0, {}}, 1}});
    ClusterState s = makeCluster({{40000, 7000, {0, 0, 0, 0}}, {40000, 0, {0, 0, 0, 0}}});
    QCOMPARE(decide(QStringLiteral("default"), s, {8000, 0, 0}, {0, 1}, tw).host, 0);
    QCOMPARE(decide(QStringLiteral("default"), s, {8000, 0, 0}, {1, 0}, tw).host, 1);

    // The model itself: 9 cores free feed one copy of the 8-core shape. The copies rule leaves 3
    // of the 4 free cards unused by it; the one-copy rule counts all 4 as usable; with under 8
    // cores free, neither counts any.
    const FragmentationScore::Model m(*tw, s.catalogue());
    QCOMPARE(m.mixCpuPerMilli(), 24000.0 / 1000.0);
    ClusterState one = makeCluster({{9000, 0, {0, 0, 0, 0}}, {7000, 0, {0, 0, 0, 0}}});
    const HostView nine(one, one.hosts()[0]);
    const HostView seven(one, one.hosts()[1]);
    using Cap = FragmentationScore::Model::CpuCap;
    QCOMPARE(m.fragmentation(nine, Cap::Copies), 3000.0);
    QCOMPARE(m.fragmentation(nine, Cap::OneCopy), 0.0);
    QCOMPARE(m.fragmentation(seven, Cap::Copies), 4000.0);
    QCOMPARE(m.fragmentation(seven, Cap::OneCopy), 4000.0);
}

void tst_PlacementScores::defaultModel()
{
    const auto tw = target({{WorkloadShape{8000, 1000, 1, {}}, 1},
                            {WorkloadShape{2000, 400, 1, {}}, 1},
                            {WorkloadShape{16000, 0, 0, {}}, 2}});
    ClusterState s = makeCluster({{24000, 0, {0, 0, 0, 600}}});
    const FragmentationScore::Model m(*tw, s.catalogue());
    QVERIFY(m.hasCardShapes());
    // Holes: nothing fits 300, so it stays. w(f) = 0.7 * mean over fitting shapes of
    // w(f - m) + 0.3 * f: w(400) = 120, w(200) = 200, w(600) = 0.7 * 200 + 180 = 320,
    // w(1000) = 0.7 * (0 + 320) / 2 + 300 = 412.
    QCOMPARE(m.holeWaste(0), 0.0);
    QCOMPARE(m.holeWaste(300), 300.0);
    QVERIFY(std::abs(m.holeWaste(400) - 120) < 1e-9);
    QVERIFY(std::abs(m.holeWaste(600) - 320) < 1e-9);
    QVERIFY(std::abs(m.holeWaste(1000) - 412) < 1e-9);
    // CPU per milli of the card mix: (8000 + 2000) / (1000 + 400), weights 1/2 each.
    QCOMPARE(m.cpuPerMilli(), 10000.0 / 1400.0);
    const HostView v(s, s.hosts()[0]);
    QCOMPARE(v.totalFree, 3400);
    // 24000 CPU feeds 3360 milli of the mix: 40 milli stranded.
    QVERIFY2(std::abs(m.stranded(v) - 40.0) < 1e-6, qPrintable(QString::number(m.stranded(v))));
    // Fragmentation: the 1000-shape fits 3 cards (CPU for 3 copies): 400 of 3400 left for it;
    // the 400-shape fits all 4 cards: nothing. Weights renormalised over the card shapes (1/2).
    QCOMPARE(m.fragmentation(v, FragmentationScore::Model::CpuCap::Copies), 0.5 * 400);
}

void tst_PlacementScores::defaultWithoutTargetIsBestFit()
{
    ClusterState s = makeCluster({{96000, 0, QList<int>(8, 0)}, {16000, 0, {0, 0}}});
    QCOMPARE(decide(QStringLiteral("default"), s, {4000, 1, 1000}, {0, 1}).host, 1);
}

void tst_PlacementScores::unknownPolicy()
{
    QVERIFY(!placementPolicyProfile(QStringLiteral("tetris"), {}));
    QCOMPARE(placementPolicyNames().size(), 7);
    for (const QString &n : placementPolicyNames())
        QVERIFY(placementPolicyProfile(n, {}));
}

QTEST_GUILESS_MAIN(tst_PlacementScores)
#include "tst_placementscores.moc"
