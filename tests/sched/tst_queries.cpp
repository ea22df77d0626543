// SPDX-License-Identifier: GPL-3.0-or-later
// The three questions: place now, could this ever run here, when could it start.
#include "core/sched/scheduler.h"
#include "fixture.h"

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
        QCOMPARE(big.a, qint64(60000));
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
};

QTEST_GUILESS_MAIN(TestQueries)
#include "tst_queries.moc"
