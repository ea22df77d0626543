// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sched/framework.h"
#include "core/sched/statement.h"
#include "fixture.h"

using namespace Zhaoxi;
using namespace Zhaoxi::Sched;
using namespace Zhaoxi::Sched::Test;

class TestStatement : public QObject
{
    Q_OBJECT

private:
    ClusterState appliance()
    {
        ClusterState s(catalogue());
        addHost(s,
                QStringLiteral("mig-host"),
                QStringLiteral("H100-SXM5-80GB"),
                4,
                PartitionMode::Mig);
        addHost(s,
                QStringLiteral("soft-host"),
                QStringLiteral("L40S-48GB"),
                2,
                PartitionMode::TimeSlicing);
        addHost(s,
                QStringLiteral("whole-host"),
                QStringLiteral("H200-141GB"),
                8,
                PartitionMode::Whole,
                2);
        return s;
    }

private Q_SLOTS:
    void discardRestoresExactly_data()
    {
        QTest::addColumn<int>("which");
        QTest::newRow("new MIG instance") << 0;
        QTest::newRow("soft share") << 1;
        QTest::newRow("whole-card gang") << 2;
    }

    void discardRestoresExactly()
    {
        QFETCH(int, which);
        ClusterState s = appliance();
        const WorkloadSpec specs[] = {migProfile(QStringLiteral("a"), QStringLiteral("3g.40gb")),
                                      fraction(QStringLiteral("b"), 300, 4096),
                                      wholeCards(QStringLiteral("c"), 4)};
        const JobId job = s.addJob(specs[which], 0);
        const ClusterState before = s;
        Framework fw(defaultProfile());
        const Decision d = fw.decide(s, s.job(job), 0);
        QVERIFY2(d.status.isSuccess(), qPrintable(d.status.describe()));
        {
            Statement st(s);
            st.place(job, *d.placement, 0);
            QCOMPARE(s.job(job).state, JobState::Running);
            ZX_CHECK_INVARIANTS(s);
            QVERIFY(!(s == before));
            st.discard();
        }
        QVERIFY(s == before);
        ZX_CHECK_INVARIANTS(s);
    }

    void destructorDiscards()
    {
        ClusterState s = appliance();
        const ClusterState before = s;
        {
            Statement st(s);
            st.createPartition(
                    CardId(0),
                    profileIndex(QStringLiteral("H100-SXM5-80GB"), QStringLiteral("7g.80gb")),
                    0);
            st.setMode(CardId(1), PartitionMode::Whole);
        }
        QVERIFY(s == before);
    }

    void commitKeepsAndReleaseTwiceIsHarmless()
    {
        ClusterState s = appliance();
        const JobId job = s.addJob(fraction(QStringLiteral("svc"), 250, 1024), 0);
        Framework fw(defaultProfile());
        const Decision d = fw.decide(s, s.job(job), 0);
        QVERIFY(d.status.isSuccess());
        Statement st(s);
        st.place(job, *d.placement, 0);
        st.commit();
        st.commit();
        st.discard(); // after commit: no effect
        QCOMPARE(s.job(job).state, JobState::Running);
        Statement st2(s);
        st2.evict(job, 1000);
        st2.evict(job, 1000); // releasing twice is harmless
        st2.commit();
        QCOMPARE(s.job(job).state, JobState::Pending);
        QCOMPARE(s.job(job).preemptions, 1);
        ZX_CHECK_INVARIANTS(s);
        Statement st3(s);
        st3.finish(job, JobState::Cancelled, 2000);
        st3.finish(job, JobState::Cancelled, 2000);
        st3.commit();
        QCOMPARE(s.job(job).state, JobState::Cancelled);
        ZX_CHECK_INVARIANTS(s);
    }

    void evictionRollsBackToCheckpoint()
    {
        ClusterState s = appliance();
        WorkloadSpec w = wholeCards(QStringLiteral("train"), 1);
        w.preemption = PreemptionTolerance::AtCheckpoint;
        w.checkpointIntervalMs = 600'000; // 10 min
        const JobId job = s.addJob(w, 0);
        Framework fw(defaultProfile());
        Statement st(s);
        st.place(job, *fw.decide(s, s.job(job), 0).placement, 0);
        st.evict(job, 25 * 60'000); // 25 min of work: checkpoint at 20, 5 lost
        st.commit();
        QCOMPARE(s.job(job).workDoneMs, qint64(20 * 60'000));
        QCOMPARE(s.job(job).lostWorkMs, qint64(5 * 60'000));
        QCOMPARE(st.steps().last().kind, Step::Kind::Evict);
        QCOMPARE(st.steps().last().value, qint64(5 * 60'000));
    }

    void stepsListTheTransaction()
    {
        ClusterState s = appliance();
        const int p1g = profileIndex(QStringLiteral("H100-SXM5-80GB"), QStringLiteral("1g.10gb"));
        Statement st(s);
        const int uid = st.createPartition(CardId(0), p1g, 3);
        st.destroyPartition(CardId(0), uid);
        st.commit();
        QCOMPARE(st.steps().size(), 2);
        QCOMPARE(st.steps()[0].kind, Step::Kind::CreatePartition);
        QCOMPARE(st.steps()[0].start, 3);
        QCOMPARE(st.steps()[1].kind, Step::Kind::DestroyPartition);
        QCOMPARE(st.steps()[1].uid, uid);
        QVERIFY(s.card(CardId(0)).units.isEmpty());
        ZX_CHECK_INVARIANTS(s);
    }
};

QTEST_GUILESS_MAIN(TestStatement)
#include "tst_statement.moc"
