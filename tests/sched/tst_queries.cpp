// SPDX-License-Identifier: GPL-3.0-or-later
// The three questions: place now, could this ever run here, when could it start. And the
// policies' questions on a trial copy (issue 13): would a unit of this fit on this card once these
// jobs left, and which cards could ever serve it; each answer checked against what the scheduler
// then does on the same state.
#include "core/sched/scheduler.h"
#include "core/sched/trial.h"
#include "fixture.h"

#include <memory>

using namespace Zhaoxi;
using namespace Zhaoxi::Sched;
using namespace Zhaoxi::Sched::Test;

namespace {
constexpr qint64 kHour = 3600'000;

ClusterState mixedAppliance()
{
    ClusterState s(catalogue());
    addHost(s, QStringLiteral("dgx"), QStringLiteral("H100-SXM5-80GB"), 8, PartitionMode::Whole, 2);
    addHost(s, QStringLiteral("edge"), QStringLiteral("L40S-48GB"), 2, PartitionMode::TimeSlicing);
    return s;
}

const QString kH200 = QStringLiteral("H200-141GB");

// A replica as the demo day's image service asks for one: a 2g instance, hard isolation, above
// training in priority.
WorkloadSpec imageReplica()
{
    WorkloadSpec w = migProfile(QStringLiteral("image"), QStringLiteral("2g.35gb"), 500);
    w.demand.memoryMiB = 24 * 1024;
    w.demand.hostCpuMilli = 2000;
    return w;
}

// A small training job on MIG slices.
WorkloadSpec sliceJob(const QString &name, int slices)
{
    WorkloadSpec w = migSlices(name, slices, 12 * 1024);
    w.kind = WorkloadKind::Training;
    w.inference.reset();
    w.isolation = IsolationRequirement::HardOnly;
    w.priority = 70;
    return w;
}

// One card, some work on it, a question about it. Card 0 of host "h" is the card asked about.
struct Scene
{
    std::unique_ptr<Scheduler> s;
    WorkloadSpec probe;
    QList<JobId> leaving;
    bool viaTick = false; // the scheduler changes the card first: its cycle decides, not placeNow
};

// The job placed now on card 0, or a failed test.
JobId placeOn(Scheduler &s, const WorkloadSpec &w)
{
    const JobId j = s.submit(w, 0);
    if (!s.placeNow(j, 0, CardId(0)).status.isSuccess())
        qFatal("scene: %s does not fit card 0", qPrintable(w.name));
    return j;
}

// The job whose MIG instance starts at `start` on card 0.
JobId jobAtStart(const Scheduler &s, int start)
{
    for (const Unit &u : s.state().card(CardId(0)).units) {
        if (u.start == start)
            return u.job;
    }
    qFatal("scene: no instance at start %d", start);
    return JobId();
}

Scene scene(int which)
{
    Scene sc;
    ClusterState st(catalogue());
    sc.probe = imageReplica();
    switch (which) {
    case 0:  // MIG: an idle instance of the replica's profile
    case 1:  // MIG: free slots for a new instance
    case 2:  // MIG: the profile's slots taken
    case 3:  // MIG: free once a victim leaves (its instance taken over)
    case 4:  // MIG: free once victims leave and their idle instances make way
    case 10: // MIG: the host's CPU taken
        addHost(st,
                QStringLiteral("h"),
                kH200,
                1,
                PartitionMode::Mig,
                1,
                which == 10 ? 8000 : 128000);
        break;
    case 5: // whole card free
    case 6: // whole card busy
        addHost(st, QStringLiteral("h"), QStringLiteral("H100-SXM5-80GB"), 1, PartitionMode::Whole);
        break;
    default: // soft-sliced
        addHost(st,
                QStringLiteral("h"),
                QStringLiteral("L40S-48GB"),
                1,
                PartitionMode::TimeSlicing);
        break;
    }
    sc.s = std::make_unique<Scheduler>(st);
    Scheduler &s = *sc.s;
    switch (which) {
    case 0:
        if (!s.applyLayout(CardId(0), {{profileIndex(kH200, QStringLiteral("2g.35gb")), 4}}, 0))
            qFatal("scene: the 2g instance was refused");
        break;
    case 2:
    case 4:
        for (int i = 0; i < 7; ++i)
            placeOn(s, sliceJob(QStringLiteral("one-%1").arg(i), 1));
        if (which == 4)
            sc.leaving = {jobAtStart(s, 0), jobAtStart(s, 1)};
        sc.viaTick = which == 4;
        break;
    case 3: {
        const JobId two = placeOn(s, sliceJob(QStringLiteral("two"), 2));
        for (int i = 0; i < 5; ++i)
            placeOn(s, sliceJob(QStringLiteral("one-%1").arg(i), 1));
        sc.leaving = {two};
        break;
    }
    case 6:
        placeOn(s, wholeCards(QStringLiteral("busy"), 1));
        [[fallthrough]];
    case 5:
        sc.probe = wholeCards(QStringLiteral("whole"), 1, 50);
        break;
    case 7: // soft share: the card's compute taken
        for (int i = 0; i < 4; ++i)
            placeOn(s, fraction(QStringLiteral("q-%1").arg(i), 250, 4096));
        sc.probe = fraction(QStringLiteral("embed"), 250, 4096, 500);
        break;
    case 8: // soft share: the mode's client limit (16 on an L40S time-sliced)
        for (int i = 0; i < 16; ++i)
            placeOn(s, fraction(QStringLiteral("q-%1").arg(i), 50, 1024));
        sc.probe = fraction(QStringLiteral("embed"), 50, 1024, 500);
        break;
    case 9: // affinity excludes the model
        sc.probe = fraction(QStringLiteral("embed"), 250, 4096, 500);
        sc.probe.affinity.cardModels = {kH200};
        break;
    case 10: {
        WorkloadSpec cpu = sliceJob(QStringLiteral("cpu-bound"), 1);
        cpu.demand.hostCpuMilli = 7000;
        placeOn(s, cpu);
        break;
    }
    }
    return sc;
}
} // namespace

class TestQueries : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void couldEverRun_data()
    {
        QTest::addColumn<int>("which");
        QTest::addColumn<bool>("possible");
        QTest::addColumn<QString>("reason");
        QTest::newRow("4-card gang") << 6 << true << "none";
        QTest::newRow("8-card gang over two link domains")
                << 0 << false << "gang-not-in-one-link-domain";
        QTest::newRow("9-card gang") << 1 << false << "gang-too-wide";
        QTest::newRow("profile on no model") << 2 << false << "profile-not-on-model";
        QTest::newRow("MIG profile on cards now in whole mode") << 3 << true << "none";
        QTest::newRow("more memory than any card") << 4 << false << "card-memory-too-small";
        QTest::newRow("model not on the appliance") << 5 << false << "model-not-allowed";
    }

    void couldEverRun()
    {
        QFETCH(int, which);
        QFETCH(bool, possible);
        QFETCH(QString, reason);
        Scheduler s(mixedAppliance());
        // Fill the appliance: "ever" ignores what runs now.
        s.submit(wholeCards(QStringLiteral("fill"), 8), 0);
        s.tick(0);
        WorkloadSpec w;
        switch (which) {
        case 0:
            w = wholeCards(QStringLiteral("g8"), 8);
            break;
        case 1:
            w = wholeCards(QStringLiteral("g9"), 9);
            break;
        case 2:
            w = migProfile(QStringLiteral("p"), QStringLiteral("3g.71gb"));
            break;
        case 3:
            w = migProfile(QStringLiteral("p"), QStringLiteral("3g.40gb"));
            break;
        case 4:
            w = fraction(QStringLiteral("f"), 100, 200 * 1024);
            break;
        case 6:
            w = wholeCards(QStringLiteral("g4"), 4);
            break;
        case 5:
            w = wholeCards(QStringLiteral("t4"), 1);
            w.affinity.cardModels = {QStringLiteral("T4-16GB")};
            break;
        }
        const Feasibility f = s.couldEverRun(w);
        QCOMPARE(f.possible, possible);
        QCOMPARE(QString::fromLatin1(reasonCode(f.reason.reason)), reason);
    }

    void couldRunOnCard()
    {
        Scheduler s(mixedAppliance());
        const JobId busy = s.submit(wholeCards(QStringLiteral("busy"), 1), 0);
        s.placeNow(busy, 0, CardId(3));
        QCOMPARE(s.state().job(busy).assignments.first().card, CardId(3));
        const WorkloadSpec one = wholeCards(QStringLiteral("one"), 1);
        QVERIFY(s.couldRunOn(one, CardId(2), 0).isSuccess());
        QCOMPARE(s.couldRunOn(one, CardId(3), 0).reason, Reason::NoFreeUnit);
        WorkloadSpec hard = fraction(QStringLiteral("hard"), 300);
        hard.isolation = IsolationRequirement::HardOnly;
        hard.demand.compute.kind = ComputeDemand::Kind::MigSlices;
        hard.demand.compute.slices = 2;
        QCOMPARE(s.couldRunOn(hard, CardId(8), 0).reason, Reason::IsolationMismatch);
        const Status big = s.couldRunOn(fraction(QStringLiteral("big"), 100, 60000), CardId(8), 0);
        QCOMPARE(big.reason, Reason::CardMemoryTooSmall);
        QCOMPARE(big.need, qint64(60000));
        // The query changes nothing.
        QCOMPARE(s.state().jobs().size(), 1);
    }

    void earliestStartFromExpectedEnds()
    {
        ClusterState st(catalogue());
        addHost(st, QStringLiteral("h"), QStringLiteral("H100-SXM5-80GB"), 2, PartitionMode::Whole);
        SchedulerOptions o;
        o.preemptionEnabled = false;
        Scheduler s(st, defaultProfile(), o);
        WorkloadSpec a = wholeCards(QStringLiteral("a"), 1);
        a.time.expectedDurationMs = 1 * kHour;
        WorkloadSpec b = wholeCards(QStringLiteral("b"), 1);
        b.time.expectedDurationMs = 2 * kHour;
        s.submit(a, 0);
        s.submit(b, 0);
        s.tick(0);
        QCOMPARE(s.earliestStart(wholeCards(QStringLiteral("one"), 1), 0),
                 std::optional<qint64>(1 * kHour));
        QCOMPARE(s.earliestStart(wholeCards(QStringLiteral("two"), 2), 0),
                 std::optional<qint64>(2 * kHour));
        QCOMPARE(s.earliestStart(wholeCards(QStringLiteral("three"), 3), 0), std::nullopt);
        // A job queued ahead (higher priority, 3 h) takes the first free card.
        WorkloadSpec ahead = wholeCards(QStringLiteral("ahead"), 1, 50);
        ahead.time.expectedDurationMs = 3 * kHour;
        s.submit(ahead, 0);
        s.tick(0);
        QCOMPARE(s.earliestStart(wholeCards(QStringLiteral("one"), 1), 0),
                 std::optional<qint64>(2 * kHour));
        QCOMPARE(s.earliestStart(wholeCards(QStringLiteral("two"), 2), 0),
                 std::optional<qint64>(4 * kHour));
        // The query changes nothing.
        QCOMPARE(s.state().job(JobId(2)).state, JobState::Pending);
    }

    void earliestStartWaitsForWindow()
    {
        ClusterState st(catalogue());
        addHost(st, QStringLiteral("h"), QStringLiteral("H100-SXM5-80GB"), 2, PartitionMode::Whole);
        Scheduler s(st);
        ClassBudget day;
        day.trainingMilli = 0; // by day, no training
        s.setClassBudget(day, 0);
        ClassBudget night; // unlimited
        const qint64 at22 = 22 * kHour;
        QCOMPARE(s.earliestStart(wholeCards(QStringLiteral("t"), 2), 8 * kHour, {{at22, night}}),
                 std::optional<qint64>(at22));
        QCOMPARE(s.earliestStart(wholeCards(QStringLiteral("t"), 2), 8 * kHour), std::nullopt);
    }

    void placeNowOntoCard()
    {
        Scheduler s(mixedAppliance());
        const JobId j = s.submit(fraction(QStringLiteral("svc"), 250, 8192), 0);
        const Decision d = s.placeNow(j, 0, CardId(9));
        QVERIFY(d.status.isSuccess());
        QCOMPARE(s.state().job(j).assignments.first().card, CardId(9));
        // Dropping a running job again is refused.
        QCOMPARE(s.placeNow(j, 0, CardId(8)).status.code, Status::Code::Error);
    }

    void fitOnIsWhatTheSchedulerDoes_data()
    {
        QTest::addColumn<int>("which");
        QTest::addColumn<QString>("reason"); // "none": it fits
        QTest::addColumn<int>("kind");       // UnitChoice::Kind when it fits
        QTest::addColumn<bool>("reconfigures");
        const int existing = int(UnitChoice::Kind::Existing);
        const int partition = int(UnitChoice::Kind::NewPartition);
        QTest::newRow("MIG: idle instance of the profile") << 0 << "none" << existing << false;
        QTest::newRow("MIG: free slots for the profile") << 1 << "none" << partition << false;
        QTest::newRow("MIG: the profile's slots taken") << 2 << "needs-repartition" << -1 << false;
        QTest::newRow("MIG: free once a victim leaves") << 3 << "none" << existing << false;
        QTest::newRow("MIG: free once victims leave and their instances go")
                << 4 << "none" << partition << true;
        QTest::newRow("whole card free") << 5 << "none" << existing << false;
        QTest::newRow("whole card busy") << 6 << "no-free-unit" << -1 << false;
        QTest::newRow("soft share: compute full") << 7 << "card-compute-in-use" << -1 << false;
        QTest::newRow("soft share: clients full") << 8 << "too-many-clients" << -1 << false;
        QTest::newRow("affinity excludes the model") << 9 << "model-not-allowed" << -1 << false;
        QTest::newRow("MIG: host CPU taken") << 10 << "insufficient-host-cpu" << -1 << false;
    }

    void fitOnIsWhatTheSchedulerDoes()
    {
        QFETCH(int, which);
        QFETCH(QString, reason);
        QFETCH(int, kind);
        QFETCH(bool, reconfigures);
        Scene sc = scene(which);
        Scheduler &s = *sc.s;
        const ClusterState before = s.state();
        const CardFit fit = s.fitOn(sc.probe, CardId(0), 0, sc.leaving);
        QVERIFY(s.state() == before); // the question changes nothing
        QCOMPARE(fit.card, CardId(0));
        QCOMPARE(QString::fromLatin1(reasonCode(fit.status.reason)), reason);
        QCOMPARE(fit.isSuccess(), reason == QLatin1String("none"));
        QCOMPARE(fit.reconfigures(), reconfigures);
        if (fit.isSuccess()) {
            QCOMPARE(int(fit.unit.kind), kind);
            QCOMPARE(fit.unit.card, CardId(0));
        }

        // The scheduler, told the same, does the same.
        for (JobId j : std::as_const(sc.leaving))
            QVERIFY(s.requeue(j, 0, false) == 0);
        const JobId id = s.submit(sc.probe, 0);
        if (!sc.viaTick) {
            const Decision d = s.placeNow(id, 0, CardId(0));
            QCOMPARE(d.status.code, fit.status.code);
            QCOMPARE(d.status.reason, fit.status.reason);
            QCOMPARE(d.status.need, fit.status.need);
            QCOMPARE(d.status.have, fit.status.have);
            if (d.status.isSuccess())
                QCOMPARE(d.placement->units.first(), fit.unit);
        } else {
            // Nothing fits the card as laid out: the cycle changes it, then places.
            QVERIFY(!s.fitOn(sc.probe, CardId(0), 0, {}, FitOptions{false, false}).isSuccess());
            s.tick(0);
            const Job &j = s.state().job(id);
            QCOMPARE(j.isActive(), fit.isSuccess());
            QCOMPARE(j.assignments.size(), 1);
            const Unit *u = s.state().card(CardId(0)).unit(j.assignments.first().unitUid);
            QVERIFY(u);
            QCOMPARE(u->profile, fit.unit.profile);
            QCOMPARE(u->start, fit.unit.start);
            for (int uid : fit.destroyedUids)
                QVERIFY(!before.card(CardId(0)).unit(uid) || !s.state().card(CardId(0)).unit(uid));
        }
        ZX_CHECK_INVARIANTS(s.state());
    }

    void trialFollowsThePlan()
    {
        // Three 2g instances fit an H200 (starts 0, 2, 4); the trial takes them one by one and
        // refuses the fourth, as the scheduler then places three replicas and keeps one waiting.
        ClusterState st(catalogue());
        addHost(st, QStringLiteral("h"), kH200, 1, PartitionMode::Mig);
        Scheduler s(st);
        const ClusterState before = s.state();
        QList<CardFit> taken;
        {
            Trial trial(s, 0);
            for (int i = 0; i < 4; ++i) {
                const CardFit fit = trial.fitOn(imageReplica(), CardId(0));
                if (i < 3) {
                    QVERIFY2(fit.isSuccess(), qPrintable(fit.status.describe()));
                    QVERIFY(trial.take(imageReplica(), fit).isValid());
                    taken.append(fit);
                } else {
                    QCOMPARE(fit.status.code, Status::Code::Unschedulable);
                    QVERIFY(!trial.take(imageReplica(), fit).isValid());
                }
            }
            // A fit the trial has moved past is not taken again.
            QVERIFY(!trial.take(imageReplica(), taken.first()).isValid());
            QCOMPARE(trial.state().card(CardId(0)).clients, 3);
        }
        QVERIFY(s.state() == before);
        QList<JobId> ids;
        for (int i = 0; i < 4; ++i)
            ids.append(s.submit(imageReplica(), 0));
        s.tick(0);
        for (int i = 0; i < 3; ++i) {
            const Job &j = s.state().job(ids[i]);
            QVERIFY(j.isActive());
            const Unit *u = s.state().card(CardId(0)).unit(j.assignments.first().unitUid);
            QCOMPARE(u->profile, taken[i].unit.profile);
            QCOMPARE(u->start, taken[i].unit.start);
        }
        QCOMPARE(s.state().job(ids[3]).state, JobState::Pending);
    }

    void trialLeaveFreesTheUnit()
    {
        // A victim left in the trial frees its unit and its host resources there only.
        ClusterState st(catalogue());
        addHost(st, QStringLiteral("h"), QStringLiteral("H100-SXM5-80GB"), 1, PartitionMode::Whole);
        Scheduler s(st);
        const JobId busy = s.submit(wholeCards(QStringLiteral("busy"), 1), 0);
        s.tick(0);
        Trial trial(s, 0);
        const WorkloadSpec w = wholeCards(QStringLiteral("w"), 1, 50);
        QCOMPARE(trial.fitOn(w, CardId(0)).status.reason, Reason::NoFreeUnit);
        QVERIFY(trial.fitOn(w, CardId(0), {busy}).isSuccess()); // asked, not done
        QCOMPARE(trial.fitOn(w, CardId(0)).status.reason, Reason::NoFreeUnit);
        trial.leave(busy);
        QVERIFY(trial.fitOn(w, CardId(0)).isSuccess());
        QCOMPARE(s.state().job(busy).state, JobState::Running);
        QCOMPARE(trial.state().job(busy).state, JobState::Pending);
    }

    void trialRespectsTheBudgetWhenAsked()
    {
        ClusterState st(catalogue());
        addHost(st, QStringLiteral("h"), kH200, 1, PartitionMode::Mig);
        Scheduler s(st);
        ClassBudget b;
        b.inferenceMilli = 200; // less than a 2g instance (285)
        s.setClassBudget(b, 0);
        QVERIFY(s.fitOn(imageReplica(), CardId(0), 0).isSuccess());
        const CardFit within = s.fitOn(imageReplica(), CardId(0), 0, {}, FitOptions{true, true});
        QCOMPARE(within.status.reason, Reason::ClassBudgetExceeded);
        const JobId j = s.submit(imageReplica(), 0);
        QCOMPARE(s.placeNow(j, 0, CardId(0)).status.reason, Reason::ClassBudgetExceeded);
    }

    void cardsThatCouldServe_data()
    {
        QTest::addColumn<int>("which");
        QTest::addColumn<QList<int>>("cards");
        // The appliance: dgx (cards 0..3, H200 in whole mode now), edge (cards 4, 5: L40S).
        QTest::newRow("MIG profile: the models that have it") << 0 << QList<int>{0, 1, 2, 3};
        QTest::newRow("share pinned to a model by affinity") << 1 << QList<int>{4, 5};
        QTest::newRow("whole card too large for the L40S") << 2 << QList<int>{0, 1, 2, 3};
        QTest::newRow("whole card that fits any") << 3 << QList<int>{0, 1, 2, 3, 4, 5};
        QTest::newRow("gang wider than any host") << 4 << QList<int>{};
        QTest::newRow("hard isolation on slices: the L40S whole too")
                << 5 << QList<int>{0, 1, 2, 3, 4, 5};
        QTest::newRow("failed card left out") << 6 << QList<int>{0, 2, 3};
        QTest::newRow("more host CPU than the edge has") << 7 << QList<int>{0, 1, 2, 3};
    }

    void cardsThatCouldServe()
    {
        QFETCH(int, which);
        QFETCH(QList<int>, cards);
        ClusterState st(catalogue());
        addHost(st, QStringLiteral("dgx"), kH200, 4, PartitionMode::Whole, 1, 224000);
        addHost(st,
                QStringLiteral("edge"),
                QStringLiteral("L40S-48GB"),
                2,
                PartitionMode::Mps,
                1,
                64000);
        Scheduler s(st);
        // Busy cards count as they could be: "ever" looks past what runs now.
        s.submit(wholeCards(QStringLiteral("fill"), 4), 0);
        s.tick(0);
        WorkloadSpec w;
        switch (which) {
        case 0:
            w = imageReplica();
            break;
        case 1:
            w = fraction(QStringLiteral("embed"), 250, 8192);
            w.affinity.cardModels = {QStringLiteral("L40S-48GB")};
            break;
        case 2:
            w = wholeCards(QStringLiteral("big"), 1);
            w.demand.memoryMiB = 120 * 1024;
            break;
        case 3:
            w = wholeCards(QStringLiteral("lora"), 1);
            w.demand.memoryMiB = 30 * 1024;
            break;
        case 4:
            w = wholeCards(QStringLiteral("g5"), 5);
            break;
        case 5:
            w = sliceJob(QStringLiteral("sweep"), 1);
            break;
        case 6:
            s.cardFailed(CardId(1), 0);
            w = imageReplica();
            break;
        case 7:
            w = wholeCards(QStringLiteral("cpu"), 1);
            w.demand.hostCpuMilli = 100000;
            break;
        }
        QList<int> got;
        for (CardId c : s.cardsThatCouldServe(w))
            got.append(c.value());
        QCOMPARE(got, cards);
        // Agrees with couldEverRun.
        QCOMPARE(s.couldEverRun(w).possible, !cards.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestQueries)
#include "tst_queries.moc"
