// SPDX-License-Identifier: GPL-3.0-or-later
// The shape choice (issue 18): given a job with alternative shapes and these cards, expect this
// shape to be placed, with every shape's verdict and figure in the trace; the trace and the job's
// shape survive their JSON.
#include "fixture.h"

#include "core/sched/scheduler.h"
#include "core/storage/statecodec.h"

#include <QJsonDocument>

using namespace Zhaoxi;
using namespace Zhaoxi::Sched;
using namespace Zhaoxi::Sched::Test;

namespace {

using Verdict = ShapeTrace::Verdict;

WorkloadShape shape(ComputeDemand::Kind kind, const QString &profile, int cards, double speed)
{
    WorkloadShape s;
    s.demand.compute.kind = kind;
    s.demand.compute.profile = profile;
    s.demand.compute.slices = kind == ComputeDemand::Kind::MigSlices ? profile.toInt() : 0;
    s.demand.cards = cards;
    s.speed = speed;
    return s;
}

WorkloadShape profileShape(const QString &profile, double speed, int cards = 1)
{
    return shape(ComputeDemand::Kind::MigProfile, profile, cards, speed);
}

// chat: 3g primary; 1g (0.45) and 2g (0.75) alternatives; SLO 1000 ms.
WorkloadSpec chat(double serviceTimeMs)
{
    WorkloadSpec s = migProfile(QStringLiteral("chat"), QStringLiteral("3g.71gb"));
    s.inference->sloP99Ms = 1000;
    s.inference->serviceTimeMs = serviceTimeMs;
    s.shapes = {profileShape(QStringLiteral("1g.18gb"), 0.45),
                profileShape(QStringLiteral("2g.35gb"), 0.75)};
    return s;
}

// A gang: 2 x 3g primary; 1 x 7g (1.25) and 4 whole cards (0.9) alternatives.
WorkloadSpec gang()
{
    WorkloadSpec s = wholeCards(QStringLiteral("ft"), 2);
    s.demand.compute.kind = ComputeDemand::Kind::MigProfile;
    s.demand.compute.profile = QStringLiteral("3g.71gb");
    s.isolation = IsolationRequirement::HardOnly;
    s.shapes = {profileShape(QStringLiteral("7g.141gb"), 1.25),
                shape(ComputeDemand::Kind::WholeCard, QString(), 4, 0.9)};
    return s;
}

enum class Case { SmallWins, SloRulesOutSmallest, GangLargeWins, TieKeepsPrimary, NoRoomSkipped };

struct Given
{
    ClusterState state;
    WorkloadSpec spec;
    SchedulerOptions options;
};

Given given(Case c)
{
    Given g{ClusterState(catalogue()), {}, {}};
    switch (c) {
    case Case::SmallWins:
        addHost(g.state, QStringLiteral("h"), QStringLiteral("H200-141GB"), 1, PartitionMode::Mig);
        g.spec = chat(20); // 1g: 44 ms a request, well within 1000 / 5
        break;
    case Case::SloRulesOutSmallest:
        addHost(g.state, QStringLiteral("h"), QStringLiteral("H200-141GB"), 1, PartitionMode::Mig);
        g.spec = chat(140); // 1g: 311 ms > 1000 / 5; 2g: 187 ms fits
        break;
    case Case::GangLargeWins:
        // Two cards: the 4-card shape cannot be placed at all.
        addHost(g.state, QStringLiteral("h"), QStringLiteral("H200-141GB"), 2, PartitionMode::Mig);
        g.spec = gang();
        break;
    case Case::TieKeepsPrimary:
        addHost(g.state, QStringLiteral("h"), QStringLiteral("H200-141GB"), 1, PartitionMode::Mig);
        g.spec = chat(20);
        // 3 slices is the 3g again: the same work per slice as the primary.
        g.spec.shapes = {shape(ComputeDemand::Kind::MigSlices, QStringLiteral("3"), 1, 1.0)};
        break;
    case Case::NoRoomSkipped: {
        // One idle 3g instance and no room to create: the small shapes find no unit.
        const HostId h = addHost(
                g.state, QStringLiteral("h"), QStringLiteral("H200-141GB"), 1, PartitionMode::Mig);
        g.state.createPartition(
                CardId(g.state.host(h).firstCard),
                profileIndex(QStringLiteral("H200-141GB"), QStringLiteral("3g.71gb")),
                4);
        g.spec = chat(20);
        g.options.allowCreatePartitions = false;
        g.options.allowReconfigure = false;
        break;
    }
    }
    return g;
}

QString verdictText(const QList<ShapeTrace> &shapes)
{
    QStringList out;
    for (const ShapeTrace &s : shapes)
        out << QLatin1String(shapeVerdictCode(s.verdict));
    return out.join(u' ');
}

} // namespace

class TestShapes : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void chooses_data()
    {
        QTest::addColumn<int>("which");
        QTest::addColumn<bool>("viaPlaceNow");
        QTest::addColumn<int>("shape");        // expected Job::shape
        QTest::addColumn<QString>("unit");     // the profile it got
        QTest::addColumn<QString>("verdicts"); // primary first
        QTest::addColumn<int>("noRoomReason"); // a NoRoom shape's reason, -1 none
        const auto row = [](const char *name,
                            Case c,
                            bool placeNow,
                            int shape,
                            const char *unit,
                            const char *verdicts,
                            int reason = -1) {
            QTest::newRow(name) << int(c) << placeNow << shape << unit << verdicts << reason;
        };
        row("inference: the smallest unit serves most per slice",
            Case::SmallWins,
            false,
            0,
            "1g.18gb",
            "placeable chosen placeable");
        row("inference, placeNow: the same",
            Case::SmallWins,
            true,
            0,
            "1g.18gb",
            "placeable chosen placeable");
        row("inference: 1g too slow for the SLO, 2g taken",
            Case::SloRulesOutSmallest,
            false,
            1,
            "2g.35gb",
            "placeable too-slow chosen");
        row("training: one 7g beats two 3g, four cards do not fit",
            Case::GangLargeWins,
            false,
            0,
            "7g.141gb",
            "placeable chosen no-room",
            int(Reason::GangTooWide));
        row("tie: the primary is kept",
            Case::TieKeepsPrimary,
            false,
            -1,
            "3g.71gb",
            "chosen placeable");
        row("a shape with no room is skipped",
            Case::NoRoomSkipped,
            false,
            -1,
            "3g.71gb",
            "chosen no-room no-room");
    }
    void chooses()
    {
        QFETCH(int, which);
        QFETCH(bool, viaPlaceNow);
        QFETCH(int, shape);
        QFETCH(QString, unit);
        QFETCH(QString, verdicts);
        QFETCH(int, noRoomReason);
        Given g = given(Case(which));
        Scheduler sched(g.state, defaultProfile(), g.options);
        const JobId id = sched.submit(g.spec, 0);
        if (viaPlaceNow)
            QVERIFY(sched.placeNow(id, 0).status.isSuccess());
        else
            QCOMPARE(sched.tick(0).placed, 1);
        const Job &job = sched.state().job(id);
        QCOMPARE(job.state, JobState::Running);
        QCOMPARE(job.shape, shape);
        QCOMPARE(job.demand(), shapeDemand(job.spec, shape));
        QCOMPARE(job.assignments.size(), job.demand().cards);
        for (const Assignment &a : job.assignments) {
            const CardState &c = sched.state().card(a.card);
            QCOMPARE(sched.state().model(c).migProfiles[c.unit(a.unitUid)->profile].name, unit);
        }
        ZX_CHECK_INVARIANTS(sched.state());

        const DecisionTrace *t = sched.lastTrace(id);
        QVERIFY(t);
        QVERIFY(t->placement);
        QCOMPARE(t->placement->shape, shape);
        QCOMPARE(t->job, id);
        QCOMPARE(verdictText(t->shapes), verdicts);
        QCOMPARE(t->shapes.first().shape, -1);
        double chosen = 0;
        for (const ShapeTrace &s : t->shapes) {
            QCOMPARE(s.speed, shapeSpeed(g.spec, s.shape));
            if (s.verdict == Verdict::Chosen) {
                QCOMPARE(s.shape, shape);
                chosen = s.score;
            }
            if (s.verdict == Verdict::Chosen || s.verdict == Verdict::Placeable) {
                QVERIFY(s.milli > 0);
                QVERIFY(qFuzzyCompare(s.score, s.speed * s.gang / (s.milli / 1000.0)));
            } else {
                QCOMPARE(s.score, 0.0);
            }
            if (s.verdict == Verdict::NoRoom) {
                QVERIFY(!s.status.isSuccess());
                QVERIFY(s.status.reason != Reason::None);
                if (noRoomReason >= 0)
                    QCOMPARE(int(s.status.reason), noRoomReason);
            }
            if (s.verdict == Verdict::TooSlow)
                QVERIFY(s.serviceMs * sched.options().shapes.sloHeadroom
                        > g.spec.inference->sloP99Ms);
        }
        for (const ShapeTrace &s : t->shapes) {
            if (s.verdict == Verdict::Placeable)
                QVERIFY(s.score <= chosen);
        }
        QVERIFY(t->describe(sched.state()).contains(QLatin1String("chosen")));
    }

    // Training counts its gang's communication: two 3g keep 0.98 of their speed.
    void gangCommunicationCounted()
    {
        Given g = given(Case::GangLargeWins);
        Scheduler sched(g.state, defaultProfile(), g.options);
        ShapeOptions o;
        o.gangEfficiency = 0.5;
        sched.setShapeOptions(o);
        const JobId id = sched.submit(g.spec, 0);
        sched.tick(0);
        const DecisionTrace *t = sched.lastTrace(id);
        QVERIFY(t);
        QCOMPARE(t->shapes[0].gang, 0.5); // 2 cards: one doubling
        QCOMPARE(t->shapes[1].gang, 1.0);
    }

    // A job without shapes decides as before: no shape list in its trace, primary shape.
    void withoutShapesUnchanged()
    {
        Given g = given(Case::SmallWins);
        g.spec.shapes.clear();
        Scheduler sched(g.state, defaultProfile(), g.options);
        const JobId id = sched.submit(g.spec, 0);
        sched.tick(0);
        QCOMPARE(sched.state().job(id).shape, -1);
        QVERIFY(sched.lastTrace(id)->shapes.isEmpty());
        QCOMPARE(sched.lastTrace(id)->placement->shape, -1);
        const QJsonObject json
                = QJsonDocument::fromJson(Storage::decisionTraceToJson(*sched.lastTrace(id)))
                          .object();
        QVERIFY(!json.contains(QLatin1String("shapes")));
        QVERIFY(!json.value(QLatin1String("placement"))
                         .toObject()
                         .contains(QLatin1String("shape")));
    }

    // A placement binds the job in its shape, a discarded one leaves the state as it was, and
    // leaving its units takes a job back to its primary shape.
    void shapeFollowsTheUnits()
    {
        Given g = given(Case::SmallWins);
        Scheduler sched(g.state, defaultProfile(), g.options);
        const JobId id = sched.submit(g.spec, 0);
        const Decision d = sched.chooseShape(sched.state().job(id), 0, DecideOptions{});
        QVERIFY(d.status.isSuccess());
        QCOMPARE(d.placement->shape, 0);
        QCOMPARE(sched.state().job(id).shape, -1); // chooseShape changes nothing
        {
            ClusterState state = sched.state();
            const ClusterState before = state;
            Statement st(state);
            st.place(id, *d.placement, 0);
            QCOMPARE(state.job(id).shape, 0);
            QCOMPARE(st.steps().first().shape, 0);
            ZX_CHECK_INVARIANTS(state);
            st.discard();
            QVERIFY(state == before);
        }
        sched.tick(0);
        QCOMPARE(sched.state().job(id).shape, 0);
        QVERIFY(sched.requeue(id, 1000, false) >= 0);
        QCOMPARE(sched.state().job(id).state, JobState::Pending);
        QCOMPARE(sched.state().job(id).shape, -1);
        ZX_CHECK_INVARIANTS(sched.state());
    }

    void traceJsonRoundTrip_data()
    {
        QTest::addColumn<int>("which");
        QTest::newRow("small wins") << int(Case::SmallWins);
        QTest::newRow("too slow") << int(Case::SloRulesOutSmallest);
        QTest::newRow("no room") << int(Case::GangLargeWins);
    }
    void traceJsonRoundTrip()
    {
        QFETCH(int, which);
        Given g = given(Case(which));
        Scheduler sched(g.state, defaultProfile(), g.options);
        const JobId id = sched.submit(g.spec, 0);
        sched.tick(0);
        const DecisionTrace &t = *sched.lastTrace(id);
        QString error;
        const auto back = Storage::decisionTraceFromJson(
                QJsonDocument::fromJson(Storage::decisionTraceToJson(t)).object(), &error);
        QVERIFY2(back, qPrintable(error));
        QVERIFY(back->placement);
        QCOMPARE(*back->placement, *t.placement);
        QCOMPARE(back->shapes.size(), t.shapes.size());
        for (int i = 0; i < t.shapes.size(); ++i) {
            const ShapeTrace &a = t.shapes[i], &b = back->shapes[i];
            QCOMPARE(b.shape, a.shape);
            QCOMPARE(b.verdict, a.verdict);
            QCOMPARE(b.speed, a.speed);
            QCOMPARE(b.milli, a.milli);
            QCOMPARE(b.gang, a.gang);
            QCOMPARE(b.score, a.score);
            QCOMPARE(b.serviceMs, a.serviceMs);
            QCOMPARE(b.status.code, a.status.code);
            QCOMPARE(b.status.reason, a.status.reason);
            QCOMPARE(b.status.need, a.status.need);
            QCOMPARE(b.status.have, a.status.have);
        }
        // An unknown verdict is refused, naming it.
        QJsonObject bad = QJsonDocument::fromJson(Storage::decisionTraceToJson(t)).object();
        QJsonArray shapes = bad.value(QLatin1String("shapes")).toArray();
        QJsonObject first = shapes[0].toObject();
        first.insert(QLatin1String("verdict"), QLatin1String("maybe"));
        shapes[0] = first;
        bad.insert(QLatin1String("shapes"), shapes);
        QVERIFY(!Storage::decisionTraceFromJson(bad, &error));
        QVERIFY2(error.contains(QLatin1String("maybe")), qPrintable(error));
    }

    // The queue document keeps a running job's shape, and a restart binds it in that shape.
    void queueDocumentKeepsTheShape()
    {
        Given g = given(Case::GangLargeWins);
        Scheduler sched(g.state, defaultProfile(), g.options);
        const JobId id = sched.submit(g.spec, 0);
        sched.tick(0);
        QCOMPARE(sched.state().job(id).shape, 0);
        ClusterState restored = ClusterState::emptyLike(sched.state());
        addHost(restored, QStringLiteral("h"), QStringLiteral("H200-141GB"), 2, PartitionMode::Mig);
        QString error;
        QVERIFY2(Storage::restoreState(restored,
                                       Storage::layoutsToJson(sched.state()),
                                       Storage::queueToJson(sched.state()),
                                       &error),
                 qPrintable(error));
        QCOMPARE(restored.job(id).shape, 0);
        QCOMPARE(restored.job(id).assignments.size(), 1);
        ZX_CHECK_INVARIANTS(restored);
    }
};

QTEST_APPLESS_MAIN(TestShapes)
#include "tst_shapes.moc"
