// SPDX-License-Identifier: GPL-3.0-or-later
// Long random sequences of submit / cancel / finish / repartition / card failure / time advance;
// after every step: no card or host over-allocated, every partition legal, every unit in exactly
// one state, nothing lost.
#include "core/catalogue/layoutrules.h"
#include "core/sched/scheduler.h"
#include "fixture.h"

#include <QRandomGenerator>

using namespace Zhaoxi;
using namespace Zhaoxi::Sched;
using namespace Zhaoxi::Sched::Test;

class TestInvariants : public QObject
{
    Q_OBJECT

private:
    static WorkloadSpec randomSpec(QRandomGenerator &rng, int n)
    {
        WorkloadSpec w;
        const int shape = rng.bounded(7);
        const QString name = QStringLiteral("job%1").arg(n);
        switch (shape) {
        case 0:
            w = wholeCards(name, 1 + rng.bounded(4));
            break;
        case 1:
            w = migProfile(name,
                           rng.bounded(2) ? QStringLiteral("3g.40gb") : QStringLiteral("1g.18gb"));
            break;
        case 2:
            w = migSlices(name, 1 + rng.bounded(4), rng.bounded(2) * 15000);
            break;
        case 3:
            w = fraction(name, 100 * (1 + rng.bounded(9)), rng.bounded(3) * 4096);
            break;
        case 4:
            w = wholeCards(name, 8);
            break;
        case 5:
            w = fraction(name, 250);
            w.isolation = IsolationRequirement::HardOnly;
            w.demand.compute.kind = ComputeDemand::Kind::MigSlices;
            w.demand.compute.slices = 2;
            break;
        default:
            w = spec(name, WorkloadKind::Batch);
            w.demand.cards = 0;
            break;
        }
        w.priority = rng.bounded(5) * 10;
        w.demand.hostCpuMilli = rng.bounded(8) * 4000;
        w.demand.hostMemoryMiB = rng.bounded(8) * 16 * 1024;
        const int tol = rng.bounded(3);
        w.preemption = PreemptionTolerance(tol);
        w.checkpointIntervalMs = tol == 1 || rng.bounded(2) ? 60'000 * (1 + rng.bounded(30)) : 0;
        w.time.expectedDurationMs = 60'000 * (1 + rng.bounded(240));
        return w;
    }

    // Two decisions are the same: status, placement, and every part of the explanation.
    static void compareDecisions(const Decision &a, const Decision &b)
    {
        QCOMPARE(a.status.code, b.status.code);
        QCOMPARE(a.status.reason, b.status.reason);
        QCOMPARE(a.status.need, b.status.need);
        QCOMPARE(a.status.have, b.status.have);
        QVERIFY(a.placement == b.placement);
        QCOMPARE(a.trace.kind, b.trace.kind);
        QCOMPARE(a.trace.hostsConsidered, b.trace.hostsConsidered);
        QCOMPARE(a.trace.hostsFeasible, b.trace.hostsFeasible);
        QCOMPARE(a.trace.rejectedBy, b.trace.rejectedBy);
        QCOMPARE(a.trace.best.size(), b.trace.best.size());
        for (qsizetype i = 0; i < a.trace.best.size(); ++i) {
            QCOMPARE(a.trace.best[i].host, b.trace.best[i].host);
            QCOMPARE(a.trace.best[i].total, b.trace.best[i].total);
            QCOMPARE(a.trace.best[i].scores, b.trace.best[i].scores);
            QCOMPARE(a.trace.best[i].feasibleCards, b.trace.best[i].feasibleCards);
        }
        QCOMPARE(a.trace.rejected.size(), b.trace.rejected.size());
        for (qsizetype i = 0; i < a.trace.rejected.size(); ++i) {
            const CandidateTrace &x = a.trace.rejected[i], &y = b.trace.rejected[i];
            QCOMPARE(x.host, y.host);
            QCOMPARE(x.filter, y.filter);
            QCOMPARE(x.verdict.reason, y.verdict.reason);
            QCOMPARE(x.verdict.need, y.verdict.need);
            QCOMPARE(x.verdict.have, y.verdict.have);
        }
    }

private Q_SLOTS:
    void randomSequences_data()
    {
        QTest::addColumn<quint32>("seed");
        for (quint32 seed : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u})
            QTest::newRow(qPrintable(QStringLiteral("seed %1").arg(seed))) << seed;
    }

    void randomSequences()
    {
        QFETCH(quint32, seed);
        QRandomGenerator rng(seed);
        ClusterState st(catalogue());
        addHost(st,
                QStringLiteral("h200"),
                QStringLiteral("H200-141GB"),
                8,
                PartitionMode::Mig,
                2,
                192000,
                2048 * 1024);
        addHost(st,
                QStringLiteral("h100"),
                QStringLiteral("H100-SXM5-80GB"),
                8,
                PartitionMode::Whole,
                1,
                192000,
                2048 * 1024);
        addHost(st,
                QStringLiteral("l40s"),
                QStringLiteral("L40S-48GB"),
                4,
                PartitionMode::Mps,
                1,
                64000,
                512 * 1024);
        addHost(st,
                QStringLiteral("l20"),
                QStringLiteral("L20-48GB"),
                2,
                PartitionMode::TimeSlicing,
                1,
                64000,
                512 * 1024);
        SchedulerOptions o;
        o.preemption.graceMs = 20'000;
        Scheduler s(st, defaultProfile(), o);
        MemoryEventSink sink(10000);
        s.addSink(&sink);
        qint64 now = 0;
        int submitted = 0;
        const int steps = 1500;
        // Kept across steps, as the scheduler keeps its own: verdicts and per-key decisions of
        // unchanged hosts are reused from the second decision of a key on.
        DecisionWorkspace kept;
        for (int step = 0; step < steps; ++step) {
            const int op = rng.bounded(100);
            const auto &jobs = s.state().jobs();
            if (op < 35) {
                s.submit(randomSpec(rng, submitted++), now);
            } else if (op < 45 && !jobs.isEmpty()) {
                s.cancel(JobId(rng.bounded(int(jobs.size()))), now);
            } else if (op < 65 && !jobs.isEmpty()) {
                s.finish(JobId(rng.bounded(int(jobs.size()))), now);
            } else if (op < 70) {
                const CardId c(rng.bounded(int(s.state().cards().size())));
                if (rng.bounded(2))
                    s.cardFailed(c, now);
                else
                    s.cardRecovered(c, now);
            } else if (op < 75) {
                // An operator repartitions a MIG card to a random maximal layout (refused when busy).
                const CardId c(rng.bounded(8));
                const auto &m = s.state().model(s.state().card(c));
                const auto layouts = Catalogue::enumerateMaximalLayouts(m);
                const ClusterState before = s.state();
                Problem why;
                if (!s.applyLayout(c, layouts[rng.bounded(int(layouts.size()))], now, &why))
                    QVERIFY2(s.state() == before, "a refused repartition changed the state");
            } else if (op < 78) {
                const CardId c(rng.bounded(int(s.state().cards().size())));
                const auto &m = s.state().model(s.state().card(c));
                const PartitionMode modes[] = {PartitionMode::Whole,
                                               PartitionMode::Mig,
                                               PartitionMode::TimeSlicing,
                                               PartitionMode::Mps};
                const PartitionMode mode = modes[rng.bounded(4)];
                const ClusterState before = s.state();
                if (!s.setCardMode(c, mode, now))
                    QVERIFY(s.state() == before);
                else
                    QVERIFY(m.supports(mode));
            } else if (op < 80) {
                ClassBudget b;
                b.trainingMilli = rng.bounded(3) == 0 ? -1 : rng.bounded(16) * 1000;
                s.setClassBudget(b, now);
            } else {
                now += rng.bounded(600'000);
                s.tick(now);
            }
            // Reusing what earlier decisions said of unchanged hosts never changes a decision
            // or its explanation (the first queued jobs: their keys recur step after step).
            for (qsizetype q = 0; q < std::min<qsizetype>(3, s.queue().size()); ++q) {
                const Job &j = s.state().job(s.queue()[q]);
                DecideOptions fresh, reused;
                fresh.reuseVerdicts = false;
                reused.trace = fresh.trace = step % 2 == 0;
                const Decision a = s.framework().decide(kept, s.state(), j, now, reused);
                const Decision b = s.framework().decide(s.state(), j, now, fresh);
                compareDecisions(a, b);
                if (QTest::currentTestFailed())
                    QFAIL(qPrintable(QStringLiteral("step %1, queued job %2").arg(step).arg(q)));
            }
            const QString why = s.state().checkInvariants();
            QVERIFY2(why.isEmpty(), qPrintable(QStringLiteral("step %1: %2").arg(step).arg(why)));
            // Nothing lost: every submitted job still exists, in exactly one state.
            QCOMPARE(s.state().jobs().size(), qsizetype(submitted));
            for (const Job &j : s.state().jobs()) {
                QVERIFY(j.workDoneMs >= 0 && j.checkpointMs <= j.workDoneMs + 1);
                if (j.state == JobState::Pending)
                    QVERIFY(j.assignments.isEmpty() && !j.host.isValid());
            }
            // Budgets hold for what was placed while they were in force.
        }
        // The run did real work.
        QVERIFY(sink.count(EventCode::JobPlaced) > 50);
    }
};

QTEST_GUILESS_MAIN(TestInvariants)
#include "tst_invariants.moc"
