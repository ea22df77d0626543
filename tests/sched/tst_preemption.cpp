// SPDX-License-Identifier: GPL-3.0-or-later
// Preemption with fallback, as scenarios on a small appliance driven through the Scheduler.
#include "core/sched/scheduler.h"
#include "fixture.h"

using namespace Zhaoxi;
using namespace Zhaoxi::Sched;
using namespace Zhaoxi::Sched::Test;

namespace {

constexpr qint64 kMin = 60'000;

Scheduler twoCardAppliance(qint64 graceMs = 0)
{
    ClusterState s(catalogue());
    addHost(s, QStringLiteral("h0"), QStringLiteral("H100-SXM5-80GB"), 2, PartitionMode::Whole);
    SchedulerOptions o;
    o.preemption.graceMs = graceMs;
    o.allowReconfigure = false;
    return Scheduler(s, defaultProfile(), o);
}

WorkloadSpec trainer(const QString &name,
                     int priority,
                     PreemptionTolerance tol,
                     qint64 intervalMs = 0)
{
    WorkloadSpec w = wholeCards(name, 1, priority);
    w.preemption = tol;
    w.checkpointIntervalMs = intervalMs;
    return w;
}

} // namespace

class TestPreemption : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void victimsCheapestFirst_data()
    {
        QTest::addColumn<int>("prioA");
        QTest::addColumn<int>("prioB");
        QTest::addColumn<int>("tolA");
        QTest::addColumn<int>("tolB");
        QTest::addColumn<QString>("victim"); // "a", "b" or "none"
        const int never = int(PreemptionTolerance::Never),
                  ckpt = int(PreemptionTolerance::AtCheckpoint),
                  restart = int(PreemptionTolerance::Restart);
        QTest::newRow("lower priority goes") << 1 << 5 << restart << restart << "a";
        QTest::newRow("lower priority goes (b)") << 5 << 1 << restart << restart << "b";
        QTest::newRow("never is spared") << 1 << 5 << never << restart << "b";
        QTest::newRow("both never: nobody") << 1 << 5 << never << never << "none";
        QTest::newRow("equal priority: less work lost") << 3 << 3 << restart << ckpt << "b";
        QTest::newRow("higher than preemptor: nobody") << 20 << 20 << restart << restart << "none";
    }

    void victimsCheapestFirst()
    {
        QFETCH(int, prioA);
        QFETCH(int, prioB);
        QFETCH(int, tolA);
        QFETCH(int, tolB);
        QFETCH(QString, victim);
        Scheduler s = twoCardAppliance();
        MemoryEventSink sink;
        s.addSink(&sink);
        const JobId a = s.submit(
                trainer(QStringLiteral("a"), prioA, PreemptionTolerance(tolA), 10 * kMin), 0);
        const JobId b = s.submit(
                trainer(QStringLiteral("b"), prioB, PreemptionTolerance(tolB), 10 * kMin), 0);
        QCOMPARE(s.tick(0).placed, 2);
        // 25 minutes in, an urgent job needs a card.
        const JobId u = s.submit(wholeCards(QStringLiteral("urgent"), 1, 10), 25 * kMin);
        s.tick(25 * kMin);
        ZX_CHECK_INVARIANTS(s.state());
        if (victim == QLatin1String("none")) {
            QCOMPARE(s.state().job(u).state, JobState::Pending);
            QCOMPARE(sink.count(EventCode::JobEvicted), 0);
            QCOMPARE(sink.count(EventCode::JobPreempting), 0);
            return;
        }
        const JobId v = victim == QLatin1String("a") ? a : b;
        // An "at checkpoint" victim is evicted at its next checkpoint (30 min), losing nothing.
        const bool atCheckpoint
                = s.state().job(v).spec.preemption == PreemptionTolerance::AtCheckpoint;
        if (atCheckpoint) {
            QCOMPARE(s.state().job(v).state, JobState::Preempting);
            QCOMPARE(s.state().job(v).evictAtMs, 30 * kMin);
            QCOMPARE(s.state().job(u).state, JobState::Pending);
            const Scheduler::TickResult r = s.tick(30 * kMin);
            QCOMPARE(r.evicted, 1);
            QCOMPARE(s.state().job(v).lostWorkMs, qint64(0));
        } else {
            // Restart: evicted at once, resuming from its last checkpoint (20 min): 5 min lost.
            QCOMPARE(s.state().job(v).lostWorkMs, 5 * kMin);
        }
        QCOMPARE(s.state().job(v).state, JobState::Pending);
        QCOMPARE(s.state().job(u).state, JobState::Running);
        QCOMPARE(s.state().job(v).preemptions, 1);
        const DecisionTrace *t = s.lastTrace(u);
        QVERIFY(t);
        QCOMPARE(t->kind, DecisionKind::Preemption);
        QCOMPARE(t->victims.size(), 1);
        QCOMPARE(t->victims.first().job, v);
        ZX_CHECK_INVARIANTS(s.state());
    }

    void checkpointProgressIsKept()
    {
        Scheduler s = twoCardAppliance();
        const JobId a = s.submit(
                trainer(QStringLiteral("a"), 1, PreemptionTolerance::Restart, 10 * kMin), 0);
        const JobId b = s.submit(
                trainer(QStringLiteral("b"), 1, PreemptionTolerance::Restart, 10 * kMin), 0);
        s.tick(0);
        s.submit(wholeCards(QStringLiteral("u"), 1, 9), 37 * kMin);
        s.tick(37 * kMin);
        // One of them lost the 7 minutes since its checkpoint at 30 and goes on from 30.
        const Job &va = s.state().job(a);
        const Job &vb = s.state().job(b);
        const Job &victim = va.state == JobState::Pending ? va : vb;
        QCOMPARE(victim.workDoneMs, 30 * kMin);
        QCOMPARE(victim.lostWorkMs, 7 * kMin);
        // It resumes from its checkpoint when the card frees up.
        s.finish(JobId(2), 40 * kMin);
        s.tick(40 * kMin);
        QCOMPARE(s.state().job(victim.id).state, JobState::Running);
        QCOMPARE(s.state().job(victim.id).workDoneMs, 30 * kMin);
    }

    void gracePeriodDelaysEviction()
    {
        Scheduler s = twoCardAppliance(30'000);
        MemoryEventSink sink;
        s.addSink(&sink);
        s.submit(trainer(QStringLiteral("a"), 1, PreemptionTolerance::Restart), 0);
        s.submit(trainer(QStringLiteral("b"), 2, PreemptionTolerance::Restart), 0);
        s.tick(0);
        const JobId u = s.submit(wholeCards(QStringLiteral("u"), 1, 9), 1000);
        const Scheduler::TickResult r = s.tick(1000);
        QCOMPARE(r.nextWakeMs, qint64(31'000));
        QCOMPARE(s.state().job(JobId(0)).state, JobState::Preempting);
        QCOMPARE(sink.count(EventCode::JobPreempting), 1);
        // A job of middling priority arriving meanwhile does not steal the card.
        const JobId mid = s.submit(wholeCards(QStringLiteral("mid"), 1, 5), 2000);
        s.tick(2000);
        s.tick(31'000);
        QCOMPARE(s.state().job(u).state, JobState::Running);
        QCOMPARE(s.state().job(mid).state, JobState::Pending);
        QCOMPARE(sink.count(EventCode::JobEvicted), 1);
        ZX_CHECK_INVARIANTS(s.state());
    }

    void reprieveKeepsUnneededVictims()
    {
        // Four 1/4 shares on one soft card; a 1/2 share needs only two of them gone.
        ClusterState st(catalogue());
        addHost(st,
                QStringLiteral("h0"),
                QStringLiteral("L40S-48GB"),
                1,
                PartitionMode::TimeSlicing);
        SchedulerOptions o;
        o.preemption.graceMs = 0;
        Scheduler s(st, defaultProfile(), o);
        for (int i = 0; i < 4; ++i)
            s.submit(fraction(QStringLiteral("s%1").arg(i), 250, 0, i), 0);
        QCOMPARE(s.tick(0).placed, 4);
        const JobId u = s.submit(fraction(QStringLiteral("big"), 500, 0, 10), 1000);
        s.tick(1000);
        QCOMPARE(s.state().job(u).state, JobState::Running);
        // The two lowest-priority shares went; the other two stayed.
        QCOMPARE(s.state().job(JobId(0)).state, JobState::Pending);
        QCOMPARE(s.state().job(JobId(1)).state, JobState::Pending);
        QCOMPARE(s.state().job(JobId(2)).state, JobState::Running);
        QCOMPARE(s.state().job(JobId(3)).state, JobState::Running);
    }

    void preemptionPlanLeavesStateUntouched()
    {
        Scheduler s = twoCardAppliance();
        s.submit(trainer(QStringLiteral("a"), 1, PreemptionTolerance::Restart), 0);
        s.submit(trainer(QStringLiteral("b"), 2, PreemptionTolerance::Restart), 0);
        s.tick(0);
        ClusterState copy = s.state();
        const JobId u = copy.addJob(wholeCards(QStringLiteral("u"), 1, 9), 0);
        const ClusterState before = copy;
        const auto plan = planPreemption(s.framework(), copy, u, 0, {});
        QVERIFY(plan);
        QVERIFY(copy == before);
        QCOMPARE(plan->victims.size(), 1);
        QCOMPARE(plan->victims.first().job, JobId(0));
    }

    void gangPreemptsWholeDomain()
    {
        ClusterState st(catalogue());
        addHost(st,
                QStringLiteral("h0"),
                QStringLiteral("H100-SXM5-80GB"),
                4,
                PartitionMode::Whole);
        SchedulerOptions o;
        o.preemption.graceMs = 0;
        Scheduler s(st, defaultProfile(), o);
        for (int i = 0; i < 4; ++i)
            s.submit(trainer(QStringLiteral("t%1").arg(i), i, PreemptionTolerance::Restart), 0);
        s.tick(0);
        const JobId g = s.submit(wholeCards(QStringLiteral("gang"), 3, 10), 10);
        s.tick(10);
        QCOMPARE(s.state().job(g).state, JobState::Running);
        QCOMPARE(s.state().job(g).assignments.size(), 3);
        QCOMPARE(s.state().job(JobId(3)).state, JobState::Running); // the dearest survives
        ZX_CHECK_INVARIANTS(s.state());
    }
};

QTEST_GUILESS_MAIN(TestPreemption)
#include "tst_preemption.moc"
