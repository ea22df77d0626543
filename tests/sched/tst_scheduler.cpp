// SPDX-License-Identifier: GPL-3.0-or-later
// The scheduler's cycle as scenarios: queue order, events, reconfiguration of idle cards,
// card failures, class budgets, where MIG instances go, preemptors holding their host.
#include "core/catalogue/layoutrules.h"
#include "core/sched/migfit.h"
#include "core/sched/scheduler.h"
#include "fixture.h"

using namespace Zhaoxi;
using namespace Zhaoxi::Sched;
using namespace Zhaoxi::Sched::Test;

namespace {
constexpr qint64 kMin = 60'000;

// `cards` H100s in whole mode.
ClusterState h100s(int cards)
{
    ClusterState st(catalogue());
    addHost(st, QStringLiteral("h"), QStringLiteral("H100-SXM5-80GB"), cards, PartitionMode::Whole);
    return st;
}

// `n` one-card jobs that checkpoint every 10 minutes, submitted and placed at 0.
QList<JobId> runCheckpointing(Scheduler &s, int n)
{
    WorkloadSpec w = wholeCards(QStringLiteral("t"), 1);
    w.checkpointIntervalMs = 10 * kMin;
    QList<JobId> jobs;
    for (int i = 0; i < n; ++i)
        jobs.append(s.submit(w, 0));
    s.tick(0);
    return jobs;
}
} // namespace

class TestScheduler : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void queueOrderIsPriorityThenAge()
    {
        ClusterState st(catalogue());
        addHost(st, QStringLiteral("h"), QStringLiteral("H100-SXM5-80GB"), 1, PartitionMode::Whole);
        SchedulerOptions o;
        o.preemptionEnabled = false;
        Scheduler s(st, defaultProfile(), o);
        const JobId old = s.submit(wholeCards(QStringLiteral("old"), 1, 0), 0);
        const JobId young = s.submit(wholeCards(QStringLiteral("young"), 1, 0), 10);
        const JobId vip = s.submit(wholeCards(QStringLiteral("vip"), 1, 5), 20);
        QCOMPARE(s.queue(), (QList<JobId>{vip, old, young}));
        s.tick(30);
        QCOMPARE(s.state().job(vip).state, JobState::Running);
        QCOMPARE(s.queue(), (QList<JobId>{old, young}));
        // When the card frees, it goes to the next waiting job at once.
        s.finish(vip, 40);
        s.tick(40);
        QCOMPARE(s.state().job(old).state, JobState::Running);
    }

    void eventsTellTheStory()
    {
        ClusterState st(catalogue());
        addHost(st, QStringLiteral("h"), QStringLiteral("H100-SXM5-80GB"), 1, PartitionMode::Mig);
        Scheduler s(st);
        MemoryEventSink sink;
        s.addSink(&sink);
        const JobId j = s.submit(migProfile(QStringLiteral("svc"), QStringLiteral("3g.40gb")), 0);
        s.tick(0);
        s.finish(j, 5 * kMin);
        const QList<SchedEvent> &e = sink.events();
        QCOMPARE(e.size(), 4);
        QCOMPARE(e[0].code, EventCode::JobSubmitted);
        QCOMPARE(e[1].code, EventCode::PartitionCreated);
        // At 4, not 0: 3g.40gb@4 leaves 4g.40gb@0 placeable, 3g.40gb@0 would not.
        QCOMPARE(e[1].start, 4);
        QCOMPARE(e[2].code, EventCode::JobPlaced);
        QCOMPARE(e[2].card, CardId(0));
        QCOMPARE(e[3].code, EventCode::JobFinished);
        QCOMPARE(e[3].atMs, 5 * kMin);
    }

    void waitingReasonRecordedOncePerChange()
    {
        ClusterState st(catalogue());
        addHost(st, QStringLiteral("h"), QStringLiteral("H100-SXM5-80GB"), 1, PartitionMode::Whole);
        SchedulerOptions o;
        o.preemptionEnabled = false;
        Scheduler s(st, defaultProfile(), o);
        MemoryEventSink sink;
        s.addSink(&sink);
        s.submit(wholeCards(QStringLiteral("a"), 1), 0);
        s.submit(wholeCards(QStringLiteral("b"), 1), 0);
        for (int i = 0; i < 5; ++i)
            s.tick(i * 1000);
        QCOMPARE(sink.count(EventCode::JobWaiting), 1);
    }

    void switchesIdleCardMode()
    {
        // A MIG profile demand on an appliance whose MIG-capable card is in whole mode and idle.
        ClusterState st(catalogue());
        addHost(st, QStringLiteral("h"), QStringLiteral("H200-141GB"), 1, PartitionMode::Whole);
        Scheduler s(st);
        MemoryEventSink sink;
        s.addSink(&sink);
        const JobId j = s.submit(migProfile(QStringLiteral("svc"), QStringLiteral("2g.35gb")), 0);
        s.tick(0);
        QCOMPARE(s.state().job(j).state, JobState::Running);
        QVERIFY(s.state().card(CardId(0)).mode == PartitionMode::Mig);
        QCOMPARE(sink.count(EventCode::CardModeChanged), 1);
        QCOMPARE(s.lastTrace(j)->kind, DecisionKind::Repartition);
        ZX_CHECK_INVARIANTS(s.state());
    }

    void partOfACardDoesNotTakeAWholeOne()
    {
        // A quarter-card demand that may share, on an idle L40S in whole mode: the card is
        // switched to its sharing mode and the job holds its quarter, not the whole card. A
        // one-slice demand on an idle H200 in whole mode gets a MIG slice the same way.
        ClusterState st(catalogue());
        addHost(st, QStringLiteral("ada"), QStringLiteral("L40S-48GB"), 1, PartitionMode::Whole);
        addHost(st, QStringLiteral("dgx"), QStringLiteral("H200-141GB"), 1, PartitionMode::Whole);
        Scheduler s(st);
        WorkloadSpec quarter = fraction(QStringLiteral("embed"), 250, 8 * 1024);
        quarter.affinity.cardModels = {QStringLiteral("L40S-48GB")};
        const JobId q = s.submit(quarter, 0);
        WorkloadSpec slice = migSlices(QStringLiteral("sweep"), 1, 12 * 1024);
        slice.isolation = IsolationRequirement::HardOnly;
        const JobId m = s.submit(slice, 0);
        s.tick(0);
        QCOMPARE(s.state().job(q).state, JobState::Running);
        const CardState &l40s = s.state().card(CardId(0));
        QVERIFY(l40s.mode == PartitionMode::TimeSlicing || l40s.mode == PartitionMode::Mps);
        QCOMPARE(l40s.usedMilli, 250);
        QCOMPARE(s.state().job(m).state, JobState::Running);
        const CardState &h200 = s.state().card(CardId(1));
        QVERIFY(h200.mode == PartitionMode::Mig);
        QVERIFY(h200.usedMilli < 1000);
        ZX_CHECK_INVARIANTS(s.state());
    }

    void aRequeueAtCheckpointCanBeCalledOff()
    {
        // Asked to leave at its checkpoint, then kept before it came: it runs on past the
        // checkpoint and loses nothing. Nothing to call off once it has left, nor for a job
        // that was not leaving.
        Scheduler s(h100s(2));
        const QList<JobId> jobs = runCheckpointing(s, 2);
        const JobId a = jobs[0], b = jobs[1];
        QVERIFY(!s.keep(a, 21 * kMin)); // not leaving
        QCOMPARE(s.requeue(a, 25 * kMin, true), 30 * kMin);
        QVERIFY(s.keep(a, 26 * kMin));
        QCOMPARE(s.state().job(a).state, JobState::Running);
        s.tick(30 * kMin);
        s.tick(31 * kMin);
        QCOMPARE(s.state().job(a).state, JobState::Running);
        QCOMPARE(s.state().job(a).lostWorkMs, qint64(0));
        QVERIFY(!s.keep(a, 32 * kMin));
        QCOMPARE(s.requeue(b, 35 * kMin, true), 40 * kMin);
        s.tick(40 * kMin);
        QVERIFY(s.state().job(b).state != JobState::Preempting); // it left (and may be back)
        QVERIFY(!s.keep(b, 41 * kMin));
        ZX_CHECK_INVARIANTS(s.state());
    }

    void repartitionsAroundBusyInstances()
    {
        // Busy 3g@0, idle 1g@4,5,6: a 3g demand destroys the idle 1g's and creates 3g@4; the
        // busy instance survives.
        ClusterState st(catalogue());
        addHost(st, QStringLiteral("h"), QStringLiteral("H100-SXM5-80GB"), 1, PartitionMode::Mig);
        const QString m = QStringLiteral("H100-SXM5-80GB");
        st.createPartition(CardId(0), profileIndex(m, QStringLiteral("3g.40gb")), 0);
        for (int start : {4, 5, 6})
            st.createPartition(CardId(0), profileIndex(m, QStringLiteral("1g.10gb")), start);
        Scheduler s(st);
        MemoryEventSink sink;
        s.addSink(&sink);
        const JobId first
                = s.submit(migProfile(QStringLiteral("first"), QStringLiteral("3g.40gb")), 0);
        s.tick(0);
        QCOMPARE(s.state().job(first).state, JobState::Running);
        const JobId second
                = s.submit(migProfile(QStringLiteral("second"), QStringLiteral("3g.40gb")), 1000);
        s.tick(1000);
        QCOMPARE(s.state().job(second).state, JobState::Running);
        QCOMPARE(sink.count(EventCode::PartitionDestroyed), 3);
        const QList<MigPlacement> layout = s.state().card(CardId(0)).migLayout();
        QCOMPARE(layout.size(), 2);
        QCOMPARE(layout[0].start, 0);
        QCOMPARE(layout[1].start, 4);
        QVERIFY(s.lastTrace(second)->note.contains(QLatin1String("repartitioned")));
        ZX_CHECK_INVARIANTS(s.state());
    }

    void lostCardWorkResumesElsewhereFromCheckpoint()
    {
        ClusterState st(catalogue());
        addHost(st, QStringLiteral("a"), QStringLiteral("H100-SXM5-80GB"), 1, PartitionMode::Whole);
        addHost(st, QStringLiteral("b"), QStringLiteral("H100-SXM5-80GB"), 1, PartitionMode::Whole);
        Scheduler s(st);
        MemoryEventSink sink;
        s.addSink(&sink);
        WorkloadSpec w = wholeCards(QStringLiteral("train"), 1);
        w.checkpointIntervalMs = 15 * kMin;
        w.affinity.host.clear();
        const JobId j = s.submit(w, 0);
        const JobId other = s.submit(wholeCards(QStringLiteral("other"), 1), 0);
        s.tick(0);
        const CardId card = s.state().job(j).assignments.first().card;
        s.finish(other, 10 * kMin);
        s.tick(10 * kMin);
        s.cardFailed(card, 40 * kMin); // 40 min of work, checkpoint at 30
        QCOMPARE(s.state().job(j).state, JobState::Pending);
        QCOMPARE(s.state().job(j).workDoneMs, 30 * kMin);
        QCOMPARE(s.state().job(j).lostWorkMs, 10 * kMin);
        s.tick(40 * kMin);
        QCOMPARE(s.state().job(j).state, JobState::Running);
        QVERIFY(s.state().job(j).assignments.first().card != card);
        QCOMPARE(sink.count(EventCode::CardFailed), 1);
        QCOMPARE(sink.count(EventCode::JobEvicted), 1);
        ZX_CHECK_INVARIANTS(s.state());
        // Nothing lands on the failed card until it recovers.
        QCOMPARE(s.couldRunOn(wholeCards(QStringLiteral("x"), 1), card, 40 * kMin).reason,
                 Reason::CardFailed);
        s.cardRecovered(card, 50 * kMin);
        QVERIFY(s.couldRunOn(wholeCards(QStringLiteral("x"), 1), card, 50 * kMin).isSuccess());
    }

    void classBudgetHoldsTrainingBack()
    {
        ClusterState st(catalogue());
        addHost(st, QStringLiteral("h"), QStringLiteral("H100-SXM5-80GB"), 4, PartitionMode::Whole);
        Scheduler s(st);
        ClassBudget day;
        day.trainingMilli = 1000; // by day training may hold one card
        s.setClassBudget(day, 0);
        const JobId a = s.submit(wholeCards(QStringLiteral("a"), 1), 0);
        const JobId b = s.submit(wholeCards(QStringLiteral("b"), 1), 0);
        const JobId inf = s.submit(fraction(QStringLiteral("svc"), 500), 0);
        s.tick(0);
        QCOMPARE(s.state().job(a).state, JobState::Running);
        QCOMPARE(s.state().job(b).state, JobState::Pending);
        QCOMPARE(s.state().job(inf).state, JobState::Running);
        QCOMPARE(s.lastTrace(b)->result.reason, Reason::ClassBudgetExceeded);
        s.setClassBudget(ClassBudget{}, 22 * 60 * kMin); // night: no limit
        s.tick(22 * 60 * kMin);
        QCOMPARE(s.state().job(b).state, JobState::Running);
    }

    void requeueAtCheckpointOrAtOnce()
    {
        Scheduler s(h100s(2));
        const QList<JobId> jobs = runCheckpointing(s, 2);
        const JobId a = jobs[0], b = jobs[1];
        // Paused at its next checkpoint (30 min): nothing lost.
        QCOMPARE(s.requeue(a, 25 * kMin, true), 30 * kMin);
        QCOMPARE(s.state().job(a).state, JobState::Preempting);
        s.tick(30 * kMin);
        QCOMPARE(s.state().job(a).lostWorkMs, qint64(0));
        QCOMPARE(s.state().job(a).workDoneMs, 30 * kMin);
        // At once: the 5 minutes since its checkpoint are lost.
        QCOMPARE(s.requeue(b, 35 * kMin, false), 35 * kMin);
        QCOMPARE(s.state().job(b).lostWorkMs, 5 * kMin);
        QCOMPARE(s.requeue(b, 36 * kMin, false), qint64(-1)); // not running: nothing to do
        ZX_CHECK_INVARIANTS(s.state());
    }

    void withCheckpointsOnRequestAJobLeavesWhenItAcknowledges()
    {
        // A real job checkpoints when it is signalled: it gets maxCheckpointWaitMs to say it has,
        // and leaves the moment it does, losing nothing.
        SchedulerOptions o;
        o.preemption.checkpointOnRequest = true;
        o.preemption.maxCheckpointWaitMs = 5 * kMin;
        Scheduler s(h100s(1), defaultProfile(), o);
        const JobId a = runCheckpointing(s, 1).first();
        QCOMPARE(s.requeue(a, 25 * kMin, true), 30 * kMin); // the deadline, not the modelled grid
        QCOMPARE(s.state().job(a).state, JobState::Preempting);
        QVERIFY(s.checkpointed(a, 26 * kMin));
        QCOMPARE(s.state().job(a).state, JobState::Pending);
        QCOMPARE(s.state().job(a).lostWorkMs, qint64(0));
        QCOMPARE(s.state().job(a).workDoneMs, 26 * kMin);
        // A running job that checkpoints stays; one that was never placed has nothing to save.
        s.tick(27 * kMin);
        QCOMPARE(s.state().job(a).state, JobState::Running);
        QVERIFY(!s.checkpointed(a, 28 * kMin));
        QCOMPARE(s.state().job(a).state, JobState::Running);
        QCOMPARE(s.state().job(a).checkpointMs, 27 * kMin);
        ZX_CHECK_INVARIANTS(s.state());
    }

    void withCheckpointsOnRequestAVictimWaitsForItsAcknowledgement()
    {
        SchedulerOptions o;
        o.preemption.checkpointOnRequest = true;
        o.preemption.maxCheckpointWaitMs = 5 * kMin;
        Scheduler s(h100s(1), defaultProfile(), o);
        WorkloadSpec w = wholeCards(QStringLiteral("t"), 1);
        w.preemption = PreemptionTolerance::AtCheckpoint;
        w.checkpointIntervalMs = 10 * kMin;
        const JobId victim = s.submit(w, 0);
        s.tick(0);
        const JobId urgent = s.submit(wholeCards(QStringLiteral("urgent"), 1, 10), 3 * kMin);
        s.tick(3 * kMin);
        QCOMPARE(s.state().job(victim).state, JobState::Preempting);
        QCOMPARE(s.state().job(victim).evictAtMs, 8 * kMin); // now + the wait, its deadline
        QVERIFY(s.checkpointed(victim, 4 * kMin));
        s.tick(4 * kMin);
        QCOMPARE(s.state().job(urgent).state, JobState::Running);
        QCOMPARE(s.state().job(victim).lostWorkMs, qint64(0));
        ZX_CHECK_INVARIANTS(s.state());
    }

    void requeueBringsALeavingJobForward()
    {
        // Asked to leave at its checkpoint, then asked again: at its checkpoint changes nothing,
        // at once evicts it now (the 7 minutes since its checkpoint are lost).
        Scheduler s(h100s(1));
        const JobId a = runCheckpointing(s, 1).first();
        QCOMPARE(s.requeue(a, 25 * kMin, true), 30 * kMin);
        QCOMPARE(s.requeue(a, 26 * kMin, true), 30 * kMin);
        QCOMPARE(s.state().job(a).state, JobState::Preempting);
        QCOMPARE(s.requeue(a, 27 * kMin, false), 27 * kMin);
        QCOMPARE(s.state().job(a).state, JobState::Pending);
        QCOMPARE(s.state().job(a).lostWorkMs, 7 * kMin);
        ZX_CHECK_INVARIANTS(s.state());
    }

    void a3gInstanceLeavesTheLowSlotsToSmallerOnes()
    {
        // On an empty H200 a 3g instance goes to start 4: at 0 it would leave slots 4-7, where a
        // 2g and a 1g fill three of the four compute slices left and slot 7 stays stranded. At
        // 4, two 2g instances fill the card.
        const QString m = QStringLiteral("H200-141GB");
        const Domain::CardModel &model = catalogue().models()[modelIndex(m)];
        const int p3 = profileIndex(m, QStringLiteral("3g.71gb"));
        QCOMPARE(MigFit::bestStart(model, 0, 0, p3), 4);
        QCOMPARE(MigFit::bestStart(model, 0xF0, 3, p3), 0); // 4-7 taken: only 0 is left
        QCOMPARE(MigFit::placeableCompute(model, 0), 7);

        ClusterState st(catalogue());
        addHost(st, QStringLiteral("h"), m, 1, PartitionMode::Mig);
        Scheduler s(st);
        const JobId chat
                = s.submit(migProfile(QStringLiteral("chat"), QStringLiteral("3g.71gb")), 0);
        const JobId a = s.submit(migProfile(QStringLiteral("a"), QStringLiteral("2g.35gb")), 0);
        const JobId b = s.submit(migProfile(QStringLiteral("b"), QStringLiteral("2g.35gb")), 0);
        s.tick(0);
        for (JobId j : {chat, a, b})
            QCOMPARE(s.state().job(j).state, JobState::Running);
        QList<MigPlacement> layout = s.state().card(CardId(0)).migLayout();
        std::sort(layout.begin(), layout.end(), [](const MigPlacement &x, const MigPlacement &y) {
            return x.start < y.start;
        });
        const QList<MigPlacement> expected{{profileIndex(m, QStringLiteral("2g.35gb")), 0},
                                           {profileIndex(m, QStringLiteral("2g.35gb")), 2},
                                           {p3, 4}};
        QCOMPARE(layout, expected);
        ZX_CHECK_INVARIANTS(s.state());
    }

    void aNominatedPreemptorHoldsItsHostAtOnce()
    {
        // Two cards, one free and one with a low-priority job that checkpoints at 10 min. A
        // two-card job of higher priority preempts it and waits for that checkpoint; a small job
        // queued behind it must not take the free card meanwhile (the preemption would start
        // over once its victim has left), from the cycle that nominated it on.
        ClusterState st(catalogue());
        addHost(st, QStringLiteral("h"), QStringLiteral("H100-SXM5-80GB"), 2, PartitionMode::Whole);
        Scheduler s(st);
        WorkloadSpec low = wholeCards(QStringLiteral("low"), 1, 10);
        low.checkpointIntervalMs = 10 * kMin;
        low.preemption = PreemptionTolerance::AtCheckpoint;
        const JobId victim = s.submit(low, 0);
        s.tick(0);
        const JobId gang = s.submit(wholeCards(QStringLiteral("gang"), 2, 100), 2 * kMin);
        const JobId small = s.submit(wholeCards(QStringLiteral("small"), 1, 5), 2 * kMin);
        s.tick(2 * kMin);
        QCOMPARE(s.state().job(victim).state, JobState::Preempting);
        QCOMPARE(s.state().job(victim).evictAtMs, 10 * kMin);
        QCOMPARE(s.state().job(gang).state, JobState::Pending);
        QCOMPARE(s.state().job(small).state, JobState::Pending);
        s.tick(10 * kMin);
        QCOMPARE(s.state().job(gang).state, JobState::Running);
        QCOMPARE(s.state().job(small).state, JobState::Pending);
        ZX_CHECK_INVARIANTS(s.state());
    }

    void reconfiguresElsewhereWhileAPreemptorWaits()
    {
        // Host a: a preemptor waits for its victim's checkpoint. Host b: an H200 whose only
        // instance, a 7g, is idle. A 3g job queued behind the preemptor is placed on b at once
        // (the idle 7g destroyed, a 3g created): the reservation holds host a only.
        ClusterState st(catalogue());
        const QString h100 = QStringLiteral("H100-SXM5-80GB"), h200 = QStringLiteral("H200-141GB");
        addHost(st, QStringLiteral("a"), h100, 1, PartitionMode::Whole);
        addHost(st, QStringLiteral("b"), h200, 1, PartitionMode::Mig);
        st.createPartition(CardId(1), profileIndex(h200, QStringLiteral("7g.141gb")), 0);
        Scheduler s(st);
        WorkloadSpec low = wholeCards(QStringLiteral("low"), 1, 10);
        low.checkpointIntervalMs = 10 * kMin;
        low.preemption = PreemptionTolerance::AtCheckpoint;
        low.affinity.cardModels = {h100};
        const JobId victim = s.submit(low, 0);
        s.tick(0);
        WorkloadSpec high = wholeCards(QStringLiteral("high"), 1, 100);
        high.affinity.cardModels = {h100};
        const JobId preemptor = s.submit(high, 2 * kMin);
        const JobId svc = s.submit(migProfile(QStringLiteral("svc"), QStringLiteral("3g.71gb"), 1),
                                   2 * kMin);
        s.tick(2 * kMin);
        QCOMPARE(s.state().job(victim).state, JobState::Preempting);
        QCOMPARE(s.state().job(preemptor).state, JobState::Pending);
        QCOMPARE(s.state().job(svc).state, JobState::Running);
        QCOMPARE(s.state().job(svc).assignments.first().card, CardId(1));
        ZX_CHECK_INVARIANTS(s.state());
    }

    void applyLayoutRefusesBusyAndIllegal()
    {
        ClusterState st(catalogue());
        addHost(st, QStringLiteral("h"), QStringLiteral("H100-SXM5-80GB"), 1, PartitionMode::Mig);
        Scheduler s(st);
        const QString m = QStringLiteral("H100-SXM5-80GB");
        const int p3 = profileIndex(m, QStringLiteral("3g.40gb")),
                  p7 = profileIndex(m, QStringLiteral("7g.80gb"));
        Problem why;
        QVERIFY(!s.applyLayout(CardId(0), {{p3, 1}}, 0, &why));
        QCOMPARE(why.code, Problem::Code::LayoutRule);
        // The verdict travels with it, for a console to word against the layout it asked for.
        const auto verdict = Catalogue::layoutVerdictOf(why);
        QVERIFY(verdict);
        QCOMPARE(verdict->problem, Catalogue::LayoutProblem::StartNotAllowed);
        QCOMPARE(verdict->index, 0);
        QVERIFY2(why.english().contains(QLatin1String("start")), qPrintable(why.english()));
        QVERIFY(s.applyLayout(CardId(0), {{p3, 0}, {p3, 4}}, 0, &why));
        const JobId j = s.submit(migProfile(QStringLiteral("svc"), QStringLiteral("3g.40gb")), 0);
        s.tick(0);
        QCOMPARE(s.state().job(j).state, JobState::Running);
        const ClusterState before = s.state();
        QVERIFY(!s.applyLayout(CardId(0), {{p7, 0}}, 0, &why));
        QCOMPARE(why,
                 Problem(Problem::Code::InstanceBusy,
                         {QStringLiteral("3g.40gb@0"), QStringLiteral("svc")}));
        QCOMPARE(why.english(), QStringLiteral("instance 3g.40gb@0 serves job svc"));
        QVERIFY(s.state() == before);
    }

    // An operator's 7g layout with a 3g job waiting (the case tst_server saw undone at once):
    // unpinned, the cycle repartitions it and says so; pinned, the layout holds until the pin
    // ends, and the 7g instance still takes work that fits it.
    void aPinnedLayoutIsNeverRepartitioned_data()
    {
        QTest::addColumn<bool>("pinned");
        QTest::newRow("unpinned: changed, with an event") << false;
        QTest::newRow("pinned: held") << true;
    }
    void aPinnedLayoutIsNeverRepartitioned()
    {
        QFETCH(bool, pinned);
        ClusterState st(catalogue());
        addHost(st, QStringLiteral("h"), QStringLiteral("H100-SXM5-80GB"), 1, PartitionMode::Mig);
        const QString m = QStringLiteral("H100-SXM5-80GB");
        const int p7 = profileIndex(m, QStringLiteral("7g.80gb"));
        Scheduler s(st);
        MemoryEventSink sink;
        s.addSink(&sink);
        QVERIFY(s.applyLayout(CardId(0), {{p7, 0}}, 0));
        QCOMPARE(s.operatorChangedAt(CardId(0)), 0);
        if (pinned) {
            QVERIFY(s.pinLayout(CardId(0), 60 * kMin, kMin));
            QCOMPARE(sink.count(EventCode::LayoutPinned), 1);
            QCOMPARE(s.layoutPinnedUntil(CardId(0)), 60 * kMin);
        }
        const JobId small
                = s.submit(migProfile(QStringLiteral("small"), QStringLiteral("3g.40gb")), kMin);
        for (qint64 t = kMin; t < 60 * kMin; t += kMin)
            s.tick(t);
        const QList<MigPlacement> layout = s.state().card(CardId(0)).migLayout();
        if (pinned) {
            QCOMPARE(layout.size(), 1);
            QCOMPARE(layout.first().profile, p7);
            QCOMPARE(s.state().job(small).state, JobState::Pending);
            QCOMPARE(sink.count(EventCode::PartitionDestroyed), 0);
            QCOMPARE(sink.count(EventCode::CardChangedAfterOperator), 0);
            // A job that fits the pinned instance takes it.
            const JobId big = s.submit(migProfile(QStringLiteral("big"), QStringLiteral("7g.80gb")),
                                       30 * kMin);
            s.tick(30 * kMin);
            QCOMPARE(s.state().job(big).state, JobState::Running);
            s.cancel(big, 31 * kMin);
            // The pin ends at 60 min: the next cycle unpins (an event) and repartitions.
            s.tick(60 * kMin);
            QCOMPARE(s.layoutPinnedUntil(CardId(0)), 0);
            QCOMPARE(sink.count(EventCode::LayoutUnpinned), 1);
            QCOMPARE(s.state().job(small).state, JobState::Running);
            // An hour after the operator's change: no longer "just changed by an operator".
            QCOMPARE(sink.count(EventCode::CardChangedAfterOperator), 0);
        } else {
            QCOMPARE(s.state().job(small).state, JobState::Running);
            QCOMPARE(sink.count(EventCode::CardChangedAfterOperator), 1);
            const SchedEvent *e = nullptr;
            for (const SchedEvent &x : sink.events())
                e = x.code == EventCode::CardChangedAfterOperator ? &x : e;
            QVERIFY(e);
            QCOMPARE(e->card, CardId(0));
            QCOMPARE(e->job, small);
            QCOMPARE(e->cause, AutoChangeCause::WaitingJob);
            QCOMPARE(e->operatorAtMs, 0);
            QCOMPARE(e->atMs, kMin);
        }
        ZX_CHECK_INVARIANTS(s.state());
    }

    void aPinnedCardTakesNoNewInstanceAndNoModeSwitch()
    {
        // Pinned with free slots: a job that would be carved a new instance waits instead; a
        // pinned idle whole card is not switched to MIG either. Unpinned, both run.
        ClusterState st(catalogue());
        addHost(st, QStringLiteral("h"), QStringLiteral("H100-SXM5-80GB"), 2, PartitionMode::Mig);
        const QString m = QStringLiteral("H100-SXM5-80GB");
        st.setMode(CardId(1), PartitionMode::Whole);
        const int p3 = profileIndex(m, QStringLiteral("3g.40gb"));
        st.createPartition(CardId(0), p3, 0);
        Scheduler s(st);
        Problem why;
        QVERIFY(s.pinLayout(CardId(0), -1, 0, &why));
        QVERIFY(s.pinLayout(CardId(1), -1, 0, &why));
        QVERIFY(!s.pinLayout(CardId(1), 0, 0, &why)); // an end that is not after now
        QCOMPARE(
                why,
                Problem(Problem::Code::PinNotAfterNow, {QStringLiteral("0"), QStringLiteral("0")}));
        QVERIFY2(why.english().contains(QLatin1String("not after")), qPrintable(why.english()));
        QVERIFY(!s.pinLayout(CardId(7), -1, 0, &why));
        QCOMPARE(why, Problem(Problem::Code::NoCard, {QStringLiteral("7")}));
        const JobId a = s.submit(migProfile(QStringLiteral("a"), QStringLiteral("3g.40gb")), 0);
        const JobId b = s.submit(migProfile(QStringLiteral("b"), QStringLiteral("3g.40gb")), 0);
        s.tick(0);
        QCOMPARE(s.state().job(a).state, JobState::Running); // the pinned 3g instance
        QCOMPARE(s.state().job(b).state, JobState::Pending);
        QCOMPARE(s.state().card(CardId(0)).units.size(), 1);
        QVERIFY(s.state().card(CardId(1)).mode == PartitionMode::Whole);
        // The automatic reclaim of an idle card is refused on a pinned layout.
        QVERIFY(!s.applyLayout(CardId(0), {}, 0, &why, AutoChangeCause::ReclaimIdle));
        QVERIFY(s.unpinLayout(CardId(0), 1000));
        QVERIFY(!s.unpinLayout(CardId(0), 1000));
        s.tick(1000);
        QCOMPARE(s.state().job(b).state, JobState::Running);
        QCOMPARE(s.state().card(CardId(0)).units.size(), 2);
        ZX_CHECK_INVARIANTS(s.state());
    }
};

QTEST_GUILESS_MAIN(TestScheduler)
#include "tst_scheduler.moc"
