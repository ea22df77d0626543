// SPDX-License-Identifier: GPL-3.0-or-later
// The whole protocol on a small generated trace: every policy, through the real framework.
#include "core/sched/plugins/policies.h"
#include "core/trace/placebench.h"

#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace Zhaoxi;
using namespace Zhaoxi::Trace;

namespace {

// 24 hosts of three kinds and 90 pods: shares, whole cards, gangs, CPU-only, some pinned to a
// model. Deterministic.
void writeTrace(const QString &nodes, const QString &pods)
{
    QFile n(nodes);
    QVERIFY(n.open(QIODevice::WriteOnly));
    n.write("sn,cpu_milli,memory_mib,gpu,model\n");
    for (int i = 0; i < 24; ++i) {
        const int kind = i % 3;
        n.write(QStringLiteral("host-%1,%2,%3,%4,%5\n")
                        .arg(i, 2, 10, QLatin1Char('0'))
                        .arg(kind == 0   ? 96000
                             : kind == 1 ? 104000
                                         : 16000)
                        .arg(kind == 0 ? 393216 : 524288)
                        .arg(kind == 0 ? 8 : 2)
                        .arg(kind == 0   ? "G2"
                             : kind == 1 ? "T4"
                                         : "P100")
                        .toUtf8());
    }
    n.close();
    QFile p(pods);
    QVERIFY(p.open(QIODevice::WriteOnly));
    p.write("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos\n");
    QRandomGenerator rng(5);
    const int shares[] = {810, 470, 650, 320, 230, 160};
    for (int i = 0; i < 90; ++i) {
        const int r = int(rng.bounded(100));
        int g = 1, m = 1000;
        qint64 cpu = 4000 + 1000 * qint64(rng.bounded(12));
        QString spec;
        if (r < 40) {
            m = shares[rng.bounded(6)];
        } else if (r < 48) {
            g = r < 44 ? 2 : 8;
            cpu *= g;
        } else if (r < 60) {
            g = 0;
            m = 0;
            cpu = 8000 + 4000 * qint64(rng.bounded(6));
        } else if (r < 65) {
            spec = QStringLiteral("T4|P100");
        }
        p.write(QStringLiteral("pod-%1,%2,%3,%4,%5,%6,LS\n")
                        .arg(i, 3, 10, QLatin1Char('0'))
                        .arg(cpu)
                        .arg(4096 * (1 + rng.bounded(8)))
                        .arg(g)
                        .arg(m)
                        .arg(spec)
                        .toUtf8());
    }
    p.close();
}

} // namespace

class tst_PlaceBench : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void everyPolicyRuns_data();
    void everyPolicyRuns();
    void deterministic();
    void fgdBeatsRandomOnAverage();
    void unknownPolicy();

private:
    QTemporaryDir m_dir;
    QList<NodeRecord> m_nodes;
    QList<PodRecord> m_pods;
};

void tst_PlaceBench::initTestCase()
{
    QVERIFY(m_dir.isValid());
    const QString n = m_dir.filePath(QStringLiteral("nodes.csv")),
                  p = m_dir.filePath(QStringLiteral("pods.csv"));
    writeTrace(n, p);
    TraceError e;
    auto nodes = readNodes(n, &e);
    QVERIFY2(nodes, qPrintable(e.toString()));
    auto pods = readPods(p, &e);
    QVERIFY2(pods, qPrintable(e.toString()));
    m_nodes = *nodes;
    m_pods = *pods;
}

void tst_PlaceBench::everyPolicyRuns_data()
{
    QTest::addColumn<QString>("policy");
    for (const QString &p : Sched::placementPolicyNames())
        QTest::newRow(qPrintable(p)) << p;
}

void tst_PlaceBench::everyPolicyRuns()
{
    QFETCH(QString, policy);
    QString error;
    auto b = PlaceBench::prepare(m_nodes, m_pods, BenchOptions{policy, 42, 1.3}, &error);
    QVERIFY2(b, qPrintable(error));
    b->replay();
    const BenchResult &r = b->result();
    QCOMPARE(r.hosts, 24);
    QCOMPARE(r.gpus, 96);
    QCOMPARE(r.originals, 90);
    QVERIFY(r.arrivals > 90);
    QCOMPARE(r.decisions, qint64(r.arrivals));
    QCOMPARE(r.placed + r.failed, r.arrivals);
    QCOMPARE(r.samples.size(), r.arrivals);
    QVERIFY(r.arrivedMilli >= qint64(1.3 * 96000) - 1000);
    QVERIFY(r.allocatedMilli <= 96000);
    QCOMPARE(r.curves.alloc.size(), 131);
    QCOMPARE(r.curves.fragRatio.size(), 131);
    QVERIFY(r.allocPctAt(130) > 50 && r.allocPctAt(130) <= 100);
    QCOMPARE(b->state().checkInvariants(), QString());
    // Every bound share is the pod's per-card share, on a card of an allowed model.
    for (const Sched::Job &j : b->state().jobs()) {
        if (j.state != Sched::JobState::Running)
            continue;
        QCOMPARE(j.assignments.size(), j.spec.demand.cards);
        for (const Sched::Assignment &a : j.assignments) {
            const Sched::CardState &c = b->state().card(a.card);
            const Sched::Unit *u = c.unit(a.unitUid);
            QVERIFY(u);
            QCOMPARE(u->milli,
                     j.spec.demand.compute.kind == Domain::ComputeDemand::Kind::WholeCard
                             ? 1000
                             : j.spec.demand.compute.milli);
            if (!j.spec.affinity.cardModels.isEmpty())
                QVERIFY(j.spec.affinity.cardModels.contains(b->state().model(c).name));
        }
    }
}

void tst_PlaceBench::deterministic()
{
    for (const QString &p :
         {QStringLiteral("fgd"), QStringLiteral("default"), QStringLiteral("random")}) {
        auto a = PlaceBench::prepare(m_nodes, m_pods, BenchOptions{p, 43, 1.3}, nullptr);
        auto b = PlaceBench::prepare(m_nodes, m_pods, BenchOptions{p, 43, 1.3}, nullptr);
        a->replay();
        b->replay();
        QCOMPARE(a->result().allocatedMilli, b->result().allocatedMilli);
        QCOMPARE(a->state(), b->state());
    }
}

void tst_PlaceBench::fgdBeatsRandomOnAverage()
{
    double fgd = 0, random = 0;
    for (int seed = 42; seed < 46; ++seed) {
        for (const QString &p : {QStringLiteral("fgd"), QStringLiteral("random")}) {
            auto b = PlaceBench::prepare(m_nodes, m_pods, BenchOptions{p, seed, 1.3}, nullptr);
            b->replay();
            (p == QLatin1String("fgd") ? fgd : random) += b->result().allocPctAt(130);
        }
    }
    QVERIFY2(fgd > random,
             qPrintable(QStringLiteral("fgd %1, random %2").arg(fgd / 4).arg(random / 4)));
}

void tst_PlaceBench::unknownPolicy()
{
    QString error;
    QVERIFY(!PlaceBench::prepare(
            m_nodes, m_pods, BenchOptions{QStringLiteral("tetris"), 42, 1.3}, &error));
    QVERIFY(error.contains(QStringLiteral("tetris")));
    QVERIFY(error.contains(QStringLiteral("bestfit")));
}

QTEST_GUILESS_MAIN(tst_PlaceBench)
#include "tst_placebench.moc"
