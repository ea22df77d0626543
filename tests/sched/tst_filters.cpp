// SPDX-License-Identifier: GPL-3.0-or-later
// Each filter plugin as scenarios: "given this host and these cards, this job is refused with
// this reason" (or placed).
#include "core/sched/framework.h"
#include "core/sched/statement.h"
#include "fixture.h"

using namespace Zhaoxi;
using namespace Zhaoxi::Sched;
using namespace Zhaoxi::Sched::Test;

namespace {

// A compact spec language for table rows: "frac 300 mem 4096 hard cards 2 pin h model T4-16GB".
WorkloadSpec parseSpec(const QString &text)
{
    WorkloadSpec s = spec(QStringLiteral("job"), WorkloadKind::Batch);
    const QStringList t = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    for (qsizetype i = 0; i < t.size(); ++i) {
        const QString &k = t[i];
        auto next = [&] { return t.value(++i); };
        if (k == QLatin1String("whole"))
            s.demand.compute.kind = ComputeDemand::Kind::WholeCard;
        else if (k == QLatin1String("frac")) {
            s.demand.compute.kind = ComputeDemand::Kind::Fraction;
            s.demand.compute.milli = next().toInt();
        } else if (k == QLatin1String("profile")) {
            s.demand.compute.kind = ComputeDemand::Kind::MigProfile;
            s.demand.compute.profile = next();
        } else if (k == QLatin1String("slices")) {
            s.demand.compute.kind = ComputeDemand::Kind::MigSlices;
            s.demand.compute.slices = next().toInt();
        } else if (k == QLatin1String("mem"))
            s.demand.memoryMiB = next().toLongLong();
        else if (k == QLatin1String("cards"))
            s.demand.cards = next().toInt();
        else if (k == QLatin1String("cpu"))
            s.demand.hostCpuMilli = next().toLongLong();
        else if (k == QLatin1String("hostmem"))
            s.demand.hostMemoryMiB = next().toLongLong();
        else if (k == QLatin1String("hard"))
            s.isolation = IsolationRequirement::HardOnly;
        else if (k == QLatin1String("pin"))
            s.affinity.host = next();
        else if (k == QLatin1String("model"))
            s.affinity.cardModels << next();
        else if (k == QLatin1String("anydomain"))
            s.affinity.sameLinkDomain = false;
        else
            qFatal("bad spec token %s", qPrintable(k));
    }
    return s;
}

} // namespace

class TestFilters : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void refusals_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("mode");
        QTest::addColumn<int>("cards");
        QTest::addColumn<int>("domains");
        QTest::addColumn<QString>("prepare"); // what happens to the appliance first
        QTest::addColumn<QString>("demand");
        QTest::addColumn<QString>("expect"); // reason code, or "ok"
        QTest::addColumn<QString>("filter"); // the rejecting filter

        const int whole = int(PartitionMode::Whole), mig = int(PartitionMode::Mig),
                  ts = int(PartitionMode::TimeSlicing), mps = int(PartitionMode::Mps);
        const QString h100 = QStringLiteral("H100-SXM5-80GB"), l40s = QStringLiteral("L40S-48GB"),
                      h200 = QStringLiteral("H200-141GB");
        // Host
        QTest::newRow("pinned elsewhere") << h100 << whole << 1 << 1 << ""
                                          << "whole pin other"
                                          << "host-not-allowed"
                                          << "Host";
        QTest::newRow("pinned here") << h100 << whole << 1 << 1 << ""
                                     << "whole pin h0"
                                     << "ok"
                                     << "";
        QTest::newRow("host down") << h100 << whole << 1 << 1 << "down"
                                   << "whole"
                                   << "host-down"
                                   << "Host";
        // HostResources
        QTest::newRow("cpu over capacity") << h100 << whole << 1 << 1 << ""
                                           << "whole cpu 200000"
                                           << "host-cpu-too-small"
                                           << "HostResources";
        QTest::newRow("cpu in use") << h100 << whole << 2 << 1 << "hog-cpu"
                                    << "whole cpu 64000"
                                    << "insufficient-host-cpu"
                                    << "HostResources";
        QTest::newRow("memory over capacity") << h100 << whole << 1 << 1 << ""
                                              << "whole hostmem 99999999"
                                              << "host-memory-too-small"
                                              << "HostResources";
        QTest::newRow("cpu-only job fits") << h100 << whole << 1 << 1 << ""
                                           << "cards 0 cpu 1000"
                                           << "ok"
                                           << "";
        // CardHealth
        QTest::newRow("failed card") << h100 << whole << 1 << 1 << "fail0"
                                     << "whole"
                                     << "card-failed"
                                     << "CardHealth";
        QTest::newRow("one of two failed") << h100 << whole << 2 << 1 << "fail0"
                                           << "whole"
                                           << "ok"
                                           << "";
        // CardModel
        QTest::newRow("model not allowed") << h100 << whole << 1 << 1 << ""
                                           << "whole model T4-16GB"
                                           << "model-not-allowed"
                                           << "CardModel";
        QTest::newRow("model allowed by alias") << h100 << whole << 1 << 1 << ""
                                                << "whole model H100"
                                                << "ok"
                                                << "";
        QTest::newRow("profile not on model") << h100 << mig << 1 << 1 << ""
                                              << "profile 3g.71gb"
                                              << "profile-not-on-model"
                                              << "CardModel";
        QTest::newRow("memory larger than card") << l40s << ts << 1 << 1 << ""
                                                 << "frac 100 mem 60000"
                                                 << "card-memory-too-small"
                                                 << "CardModel";
        // Isolation
        QTest::newRow("hard on time-sliced") << l40s << ts << 1 << 1 << ""
                                             << "slices 2 hard"
                                             << "isolation-mismatch"
                                             << "Isolation";
        QTest::newRow("hard on MPS") << l40s << mps << 1 << 1 << ""
                                     << "whole hard"
                                     << "isolation-mismatch"
                                     << "Isolation";
        QTest::newRow("hard on whole") << l40s << whole << 1 << 1 << ""
                                       << "whole hard"
                                       << "ok"
                                       << "";
        // UnitFit
        QTest::newRow("share compute in use") << l40s << ts << 1 << 1 << "share800"
                                              << "frac 300"
                                              << "card-compute-in-use"
                                              << "UnitFit";
        QTest::newRow("share fits beside") << l40s << ts << 1 << 1 << "share800"
                                           << "frac 200"
                                           << "ok"
                                           << "";
        QTest::newRow("share memory in use") << l40s << mps << 1 << 1 << "share800"
                                             << "frac 100 mem 40000"
                                             << "card-memory-in-use"
                                             << "UnitFit";
        QTest::newRow("whole card busy") << h100 << whole << 1 << 1 << "busy-whole"
                                         << "whole"
                                         << "no-free-unit"
                                         << "UnitFit";
        QTest::newRow("mig: creates 3g") << h100 << mig << 1 << 1 << ""
                                         << "profile 3g.40gb"
                                         << "ok"
                                         << "";
        QTest::newRow("mig: 7g blocks 3g") << h100 << mig << 1 << 1 << "busy-7g"
                                           << "profile 3g.40gb"
                                           << "needs-repartition"
                                           << "UnitFit";
        QTest::newRow("mig: busy 3g") << h100 << mig << 1 << 1 << "busy-3g-3g"
                                      << "profile 3g.40gb"
                                      << "no-free-unit"
                                      << "UnitFit";
        // Part of a card does not take a whole one that MIG could share: the scheduler
        // switches the idle card to MIG for it (tst_scheduler partOfACardDoesNotTakeAWholeOne).
        QTest::newRow("mig: slices on whole-mode MIG card") << h100 << whole << 1 << 1 << ""
                                                            << "slices 2"
                                                            << "needs-repartition"
                                                            << "UnitFit";
        QTest::newRow("mig: profile on whole card") << h100 << whole << 1 << 1 << ""
                                                    << "profile 2g.20gb"
                                                    << "needs-repartition"
                                                    << "UnitFit";
        QTest::newRow("frac on MIG card") << h200 << mig << 1 << 1 << ""
                                          << "frac 100 mem 10000"
                                          << "ok"
                                          << "";
        // Gang
        QTest::newRow("gang wider than host") << h100 << whole << 4 << 1 << ""
                                              << "whole cards 8"
                                              << "gang-too-wide"
                                              << "GangLinkDomain";
        QTest::newRow("gang split over domains") << h100 << whole << 8 << 2 << "busy-whole"
                                                 << "whole cards 4"
                                                 << "ok"
                                                 << "";
        QTest::newRow("gang needs one domain") << h100 << whole << 8 << 2 << "busy-whole"
                                               << "whole cards 5"
                                               << "gang-not-in-one-link-domain"
                                               << "GangLinkDomain";
        QTest::newRow("gang any domain") << h100 << whole << 8 << 2 << "busy-whole"
                                         << "whole cards 5 anydomain"
                                         << "ok"
                                         << "";
    }

    void refusals()
    {
        QFETCH(QString, model);
        QFETCH(int, mode);
        QFETCH(int, cards);
        QFETCH(int, domains);
        QFETCH(QString, prepare);
        QFETCH(QString, demand);
        QFETCH(QString, expect);
        QFETCH(QString, filter);

        ClusterState s(catalogue());
        const HostId h = addHost(s,
                                 QStringLiteral("h0"),
                                 model,
                                 cards,
                                 PartitionMode(mode),
                                 domains,
                                 128000,
                                 512 * 1024);
        Framework fw(defaultProfile());
        auto occupy = [&](const WorkloadSpec &w, CardId only = CardId()) {
            const JobId j = s.addJob(w, 0);
            DecideOptions o;
            o.onlyCard = only;
            const Decision d = fw.decide(s, s.job(j), 0, o);
            QVERIFY2(d.status.isSuccess(), qPrintable(d.status.describe()));
            Statement st(s);
            st.place(j, *d.placement, 0);
            st.commit();
        };
        if (prepare == QLatin1String("down"))
            s.setHostUp(h, false);
        else if (prepare == QLatin1String("fail0"))
            s.setCardHealth(CardId(0), CardHealth::Failed);
        else if (prepare == QLatin1String("hog-cpu"))
            occupy(parseSpec(QStringLiteral("whole cpu 100000")));
        else if (prepare == QLatin1String("share800"))
            occupy(parseSpec(QStringLiteral("frac 800 mem 20000")));
        else if (prepare == QLatin1String("busy-whole"))
            occupy(parseSpec(QStringLiteral("whole")), CardId(0));
        else if (prepare == QLatin1String("busy-7g"))
            occupy(parseSpec(QStringLiteral("profile 7g.80gb")));
        else if (prepare == QLatin1String("busy-3g-3g")) {
            occupy(parseSpec(QStringLiteral("profile 3g.40gb")));
            occupy(parseSpec(QStringLiteral("profile 3g.40gb")));
        }
        ZX_CHECK_INVARIANTS(s);

        const JobId job = s.addJob(parseSpec(demand), 0);
        const Decision d = fw.decide(s, s.job(job), 0);
        if (expect == QLatin1String("ok")) {
            QVERIFY2(d.status.isSuccess(), qPrintable(d.status.describe()));
            QCOMPARE(d.placement->units.size(), s.job(job).spec.demand.cards);
            Statement st(s);
            st.place(job, *d.placement, 0);
            st.commit();
            ZX_CHECK_INVARIANTS(s);
            return;
        }
        QVERIFY(!d.status.isSuccess());
        QCOMPARE(QString::fromLatin1(reasonCode(d.status.reason)), expect);
        QCOMPARE(d.trace.rejected.size() >= 1, true);
        QCOMPARE(d.trace.rejected.first().filter, filter);
        QCOMPARE(d.trace.rejectedBy[size_t(d.status.reason)], 1);
    }

    // A host whose cards share one model and one mode is judged from its summaries, without
    // reading the cards: the verdict must be the one the cards give. Host b holds the same three
    // cards plus a cordoned card of another model (so the cards are read); both must agree.
    void hostSummariesMatchTheCards_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("mode");
        QTest::addColumn<bool>("busy"); // every card holds work first
        const int modes[] = {int(PartitionMode::Whole),
                             int(PartitionMode::Mig),
                             int(PartitionMode::TimeSlicing),
                             int(PartitionMode::Mps)};
        for (const QString &model :
             {QStringLiteral("H100-SXM5-80GB"), QStringLiteral("L40S-48GB")}) {
            for (const int mode : modes) {
                if (!catalogue().models()[modelIndex(model)].supports(PartitionMode(mode)))
                    continue;
                for (const bool busy : {false, true})
                    QTest::newRow(qPrintable(QStringLiteral("%1 %2%3").arg(
                            model,
                            toString(PartitionMode(mode)),
                            busy ? QStringLiteral(" busy") : QString())))
                            << model << mode << busy;
            }
        }
    }

    void hostSummariesMatchTheCards()
    {
        QFETCH(QString, model);
        QFETCH(int, mode);
        QFETCH(bool, busy);
        ClusterState s(catalogue());
        const HostId a = addHost(s, QStringLiteral("a"), model, 3, PartitionMode(mode));
        const HostId b = addHost(s, QStringLiteral("b"), model, 3, PartitionMode(mode));
        const CardId odd
                = s.addCard(b, modelIndex(QStringLiteral("L20-48GB")), PartitionMode::Whole);
        s.setCardCordoned(odd, true);
        QCOMPARE(s.host(a).soleModel, modelIndex(model));
        QCOMPARE(s.host(b).soleModel, -1);
        Framework fw(defaultProfile());
        if (busy) {
            for (const CardState &c : s.cards()) {
                if (c.id == odd)
                    continue;
                const JobId j = s.addJob(
                        parseSpec(c.mode == PartitionMode::Whole ? QStringLiteral("whole")
                                  : c.mode == PartitionMode::Mig ? QStringLiteral("profile 7g.80gb")
                                                                 : QStringLiteral("frac 1000")),
                        0);
                DecideOptions o;
                o.onlyCard = c.id;
                const Decision d = fw.decide(s, s.job(j), 0, o);
                QVERIFY2(d.status.isSuccess(), qPrintable(d.status.describe()));
                Statement st(s);
                st.place(j, *d.placement, 0);
                st.commit();
            }
        }
        ZX_CHECK_INVARIANTS(s);
        for (const QString &demand : {QStringLiteral("whole"),
                                      QStringLiteral("frac 300"),
                                      QStringLiteral("frac 100 mem 60000"),
                                      QStringLiteral("frac 300 mem 900000"),
                                      QStringLiteral("slices 2"),
                                      QStringLiteral("slices 8"),
                                      QStringLiteral("slices 1 mem 79000"),
                                      QStringLiteral("profile 3g.40gb"),
                                      QStringLiteral("profile 3g.71gb"),
                                      QStringLiteral("whole model T4-16GB"),
                                      QStringLiteral("whole cards 2")}) {
            const JobId job = s.addJob(parseSpec(demand), 0);
            CycleContext ctx;
            fw.prepare(ctx, s, s.job(job), 0, DecideOptions{});
            HostOptions options;
            CardMask ma = allCards(s.host(a)), mb = allCards(s.host(b));
            QString fa, fb;
            const Status sa = fw.filterHost(ctx, s.host(a), &ma, options, &fa);
            const Status sb = fw.filterHost(ctx, s.host(b), &mb, options, &fb);
            const QString what = demand + QStringLiteral(": ") + sa.describe()
                                 + QStringLiteral(" vs ") + sb.describe();
            QVERIFY2(sa.code == sb.code && sa.reason == sb.reason && sa.need == sb.need
                             && sa.have == sb.have,
                     qPrintable(what));
            QVERIFY2(fa == fb,
                     qPrintable(what + QStringLiteral(": ") + fa + QStringLiteral(" vs ") + fb));
            QCOMPARE(ma, mb & 7);
        }
    }

    void unresolvableVsUnschedulable()
    {
        ClusterState s(catalogue());
        addHost(s,
                QStringLiteral("h0"),
                QStringLiteral("L40S-48GB"),
                1,
                PartitionMode::TimeSlicing);
        Framework fw(defaultProfile());
        const JobId a = s.addJob(parseSpec(QStringLiteral("frac 100 mem 60000")), 0);
        QCOMPARE(fw.decide(s, s.job(a), 0).status.code, Status::Code::Unresolvable);
        const JobId b = s.addJob(parseSpec(QStringLiteral("frac 600")), 0);
        Statement st(s);
        st.place(b, *fw.decide(s, s.job(b), 0).placement, 0);
        st.commit();
        const JobId c = s.addJob(parseSpec(QStringLiteral("frac 600")), 0);
        QCOMPARE(fw.decide(s, s.job(c), 0).status.code, Status::Code::Unschedulable);
    }

    void classBudget()
    {
        ClusterState s(catalogue());
        addHost(s, QStringLiteral("h0"), QStringLiteral("H100-SXM5-80GB"), 4, PartitionMode::Whole);
        Framework fw(defaultProfile());
        const JobId j = s.addJob(parseSpec(QStringLiteral("whole cards 2")), 0);
        DecideOptions o;
        o.classBudgetLeft = 1500;
        const Decision d = fw.decide(s, s.job(j), 0, o);
        QCOMPARE(d.status.reason, Reason::ClassBudgetExceeded);
        QCOMPARE(d.status.need, qint64(2000));
        QCOMPARE(d.status.have, qint64(1500));
        o.classBudgetLeft = 2000;
        QVERIFY(fw.decide(s, s.job(j), 0, o).status.isSuccess());
    }

    void bestFitPicksTightestCard()
    {
        // Two soft cards: one with 600 used, one empty. A 300 share goes beside the 600.
        ClusterState s(catalogue());
        addHost(s,
                QStringLiteral("h0"),
                QStringLiteral("L40S-48GB"),
                2,
                PartitionMode::TimeSlicing);
        Framework fw(defaultProfile());
        const JobId a = s.addJob(parseSpec(QStringLiteral("frac 600")), 0);
        Statement st(s);
        DecideOptions o;
        o.onlyCard = CardId(1);
        st.place(a, *fw.decide(s, s.job(a), 0, o).placement, 0);
        st.commit();
        const JobId b = s.addJob(parseSpec(QStringLiteral("frac 300")), 0);
        const Decision d = fw.decide(s, s.job(b), 0);
        QCOMPARE(d.placement->units.first().card, CardId(1));
    }

    void migPrefersExistingInstance()
    {
        ClusterState s(catalogue());
        addHost(s, QStringLiteral("h0"), QStringLiteral("H100-SXM5-80GB"), 1, PartitionMode::Mig);
        const int p2g = profileIndex(QStringLiteral("H100-SXM5-80GB"), QStringLiteral("2g.20gb"));
        s.createPartition(CardId(0), p2g, 4);
        Framework fw(defaultProfile());
        const JobId j = s.addJob(parseSpec(QStringLiteral("slices 2")), 0);
        const Decision d = fw.decide(s, s.job(j), 0);
        QVERIFY(d.status.isSuccess());
        QCOMPARE(d.placement->units.first().kind, UnitChoice::Kind::Existing);
        // A 1-slice demand creates a 1g rather than waste the idle 2g's second slice.
        const JobId k = s.addJob(parseSpec(QStringLiteral("slices 1")), 0);
        const Decision d2 = fw.decide(s, s.job(k), 0);
        QCOMPARE(d2.placement->units.first().kind, UnitChoice::Kind::NewPartition);
        QCOMPARE(s.model(s.card(CardId(0)))
                         .migProfiles[d2.placement->units.first().profile]
                         .computeSlices,
                 1);
    }
};

QTEST_GUILESS_MAIN(TestFilters)
#include "tst_filters.moc"
