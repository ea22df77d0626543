// SPDX-License-Identifier: GPL-3.0-or-later
// "Why is job X waiting?" and "why did it land on card 3?", answered from decision traces.
#include "core/sched/scheduler.h"
#include "fixture.h"

using namespace Zhaoxi;
using namespace Zhaoxi::Sched;
using namespace Zhaoxi::Sched::Test;

class TestDecisionTrace : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void whyWaiting()
    {
        ClusterState st(catalogue());
        addHost(st,
                QStringLiteral("soft"),
                QStringLiteral("L40S-48GB"),
                2,
                PartitionMode::TimeSlicing);
        addHost(st, QStringLiteral("mig"), QStringLiteral("H100-SXM5-80GB"), 2, PartitionMode::Mig);
        SchedulerOptions o;
        o.preemptionEnabled = false;
        o.allowReconfigure = false;
        Scheduler s(st, defaultProfile(), o);
        // Needs 60 GiB on one card: the L40S are too small, the H100 MIG cards need a 7g.
        const JobId j = s.submit(fraction(QStringLiteral("big"), 500, 60 * 1024), 0);
        s.tick(0);
        const DecisionTrace *t = s.lastTrace(j);
        QVERIFY(t);
        QCOMPARE(t->kind, DecisionKind::Placement);
        // It was placed on the H100 host by creating a 7g instance.
        QCOMPARE(t->placement->host, HostId(1));
        QCOMPARE(s.state().card(t->placement->units.first().card).units.first().profile,
                 profileIndex(QStringLiteral("H100-SXM5-80GB"), QStringLiteral("7g.80gb")));
        QCOMPARE(t->rejectedBy[size_t(Reason::CardMemoryTooSmall)], 1);
        // A second such job waits: explain why, per host.
        const JobId k = s.submit(fraction(QStringLiteral("big2"), 500, 60 * 1024), 1);
        const JobId l = s.submit(fraction(QStringLiteral("big3"), 500, 60 * 1024), 1);
        s.tick(1);
        QCOMPARE(s.state().job(k).state, JobState::Running);
        const DecisionTrace *w = s.lastTrace(l);
        QCOMPARE(w->kind, DecisionKind::Refusal);
        QCOMPARE(w->hostsConsidered, 2);
        QCOMPARE(w->hostsFeasible, 0);
        QCOMPARE(w->result.code, Status::Code::Unschedulable);
        QCOMPARE(w->rejected.size(), 2);
        QCOMPARE(w->rejected[0].host, HostId(0));
        QCOMPARE(w->rejected[0].filter, QStringLiteral("CardModel"));
        QCOMPARE(w->rejected[0].verdict.reason, Reason::CardMemoryTooSmall);
        QCOMPARE(w->rejected[1].filter, QStringLiteral("UnitFit"));
        QCOMPARE(w->rejected[1].verdict.reason, Reason::NoFreeUnit);
        const QString text = w->describe(s.state());
        QVERIFY2(text.contains(QLatin1String("big3 waits")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("rejected by CardModel")), qPrintable(text));
    }

    void whyHere()
    {
        ClusterState st(catalogue());
        addHost(st,
                QStringLiteral("empty"),
                QStringLiteral("H100-SXM5-80GB"),
                4,
                PartitionMode::Whole);
        addHost(st,
                QStringLiteral("busy"),
                QStringLiteral("H100-SXM5-80GB"),
                4,
                PartitionMode::Whole);
        Scheduler s(st);
        const JobId first = s.submit(wholeCards(QStringLiteral("first"), 1), 0);
        s.placeNow(first, 0, CardId(4)); // on host "busy"
        const JobId j = s.submit(wholeCards(QStringLiteral("second"), 1), 1);
        s.tick(1);
        const DecisionTrace *t = s.lastTrace(j);
        QCOMPARE(t->kind, DecisionKind::Placement);
        QCOMPARE(t->placement->host, HostId(1)); // bin packing: beside the running job
        QCOMPARE(t->best.size(), 2);
        QCOMPARE(t->best[0].host, HostId(1));
        QVERIFY(t->best[0].total > t->best[1].total);
        QCOMPARE(t->scorePlugins.indexOf(QStringLiteral("BinPacking")) >= 0, true);
        const int bp = int(t->scorePlugins.indexOf(QStringLiteral("BinPacking")));
        QVERIFY(t->best[0].scores[bp] > t->best[1].scores[bp]);
        QVERIFY(t->describe(s.state()).contains(QLatin1String("candidate busy")));
    }

    void ringIsBounded()
    {
        ClusterState st(catalogue());
        addHost(st, QStringLiteral("h"), QStringLiteral("H100-SXM5-80GB"), 1, PartitionMode::Whole);
        SchedulerOptions o;
        o.traceRingSize = 10;
        o.preemptionEnabled = false;
        Scheduler s(st, defaultProfile(), o);
        for (int i = 0; i < 30; ++i)
            s.submit(wholeCards(QStringLiteral("j%1").arg(i), 1), i);
        s.tick(100);
        s.tick(200);
        QCOMPARE(int(s.recentTraces().size()), 10);
        QVERIFY(s.lastTrace(JobId(29)));
    }
};

QTEST_GUILESS_MAIN(TestDecisionTrace)
#include "tst_decisiontrace.moc"
