// SPDX-License-Identifier: GPL-3.0-or-later
// The NVML backend's orders against the test double of the library (tests/device/fakenvml):
// apply, failures half way, no permission, mode changes, plan files.
#include "tests/device/nvmlbackendtest.h"

class TestNvmlBackendApply : public QObject, protected NvmlBackendTest
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { loadDouble(); }

    void readOnlyByDefaultRefusesAndChangesNothing()
    {
        useFixture(twoCards());
        auto b = open(false);
        QVERIFY(b);
        QCOMPARE(name(b->access()), name(NvmlAccess::ReadOnlyBySetting));
        const QStringList before = logLines();
        b->apply({step(DeviceStep::Kind::DestroyInstance, 0, "A100-SXM4-40GB", "1g.5gb", 4)}, 2000);
        QCOMPARE(b->nextEventMs(), 2000);
        b->advance(2000);
        const QList<NvmlStepReport> reps = b->takeStepReports();
        QCOMPARE(reps.size(), 1);
        QCOMPARE(name(reps[0].state), name(NvmlStepState::Refused));
        QCOMPARE(name(reps[0].status), name(NvmlStatus::ReadOnly));
        QCOMPARE(name(b->takeResults().first().error), name(DeviceError::NotSupported));
        QCOMPARE(logLines(), before); // not a single changing call
        QCOMPARE(layoutOf(*b, 0), (QStringList{"3g.20gb@0", "1g.5gb@4"}));
    }

    void appliesThePlannersPlanInOrder()
    {
        useFixture(twoCards());
        auto b = open(true);
        QVERIFY(b);
        QCOMPARE(name(b->access()), name(NvmlAccess::Writable));
        const CardModel &m = model("A100-SXM4-40GB");
        // What the planner sees: the card as read. Wanted: a 4g.20gb and two 1g.5gb.
        QList<Sched::PlannerInstance> current;
        int uid = 0;
        for (const InstanceInfo &i : b->layout(CardId(0)).instances)
            current << Sched::PlannerInstance{uid++, i.profile, i.start, false};
        const Sched::RepartitionPlan plan = Sched::planRepartition(
                m,
                current,
                {m.profileIndex("4g.20gb"), m.profileIndex("1g.5gb"), m.profileIndex("2g.10gb")});
        QVERIFY(plan.changed);
        PlanFile file;
        file.cards << planCardFrom(
                modelIndex("A100-SXM4-40GB"), QStringLiteral("GPU-a100-07"), 0, current, plan);
        const ResolvedPlan resolved = resolvePlan(file, m_cat, b->cardReports());
        QVERIFY2(resolved.problems.isEmpty(), qPrintable(resolved.problems.join("; ")));

        const int logBefore = logLines().size();
        const quint64 order = b->apply(resolved.steps, 2000);
        b->advance(2000);
        const QList<NvmlStepReport> reps = b->takeStepReports();
        QCOMPARE(reps.size(), resolved.steps.size());
        for (const NvmlStepReport &r : reps) {
            QVERIFY2(r.state == NvmlStepState::Done, qPrintable(r.message));
            QCOMPARE(r.result.order, order);
        }
        // The card now holds exactly the planned target, read back from the driver.
        QStringList want;
        for (const MigPlacement &p : plan.target)
            want << Catalogue::formatPlacement(m, p);
        QCOMPARE(layoutOf(*b, 0), want);
        // Compute instances go before their GPU instance; creations follow the plan's order.
        const QStringList calls = logLines().mid(logBefore);
        QStringList kinds;
        for (const QString &c : calls)
            kinds << c.section(QLatin1Char(' '), 0, 0);
        int lastDestroy = -1;
        for (int i = 0; i < kinds.size(); ++i) {
            if (kinds[i] == QLatin1String("gi-destroy")) {
                QCOMPARE(kinds.value(i - 1), QStringLiteral("ci-destroy"));
                lastDestroy = i;
            }
        }
        QStringList creates;
        for (int i = 0; i < calls.size(); ++i) {
            if (kinds[i] == QLatin1String("gi-create")) {
                QVERIFY(i > lastDestroy);
                creates << calls[i].section(QLatin1Char(' '), 2);
            }
        }
        QStringList plannedCreates;
        for (const Sched::RepartitionStep &s : plan.steps) {
            if (s.kind == Sched::RepartitionStep::Kind::Create)
                plannedCreates << QStringLiteral("%1@%2")
                                          .arg(m.migProfiles[s.profile].profileId)
                                          .arg(s.start);
        }
        QCOMPARE(creates, plannedCreates);
    }

    void inUseStopsThePlanAndReportsTheRealLayout()
    {
        QJsonObject root = twoCards();
        useFixture(root);
        auto b = open(true);
        QVERIFY(b);
        m_control(R"({"busy": {"gpu": 0, "start": 0, "busy": true}})");
        const QList<DeviceStep> steps{
                step(DeviceStep::Kind::DestroyInstance, 0, "A100-SXM4-40GB", "1g.5gb", 4),
                step(DeviceStep::Kind::DestroyInstance, 0, "A100-SXM4-40GB", "3g.20gb", 0),
                step(DeviceStep::Kind::CreateInstance, 0, "A100-SXM4-40GB", "7g.40gb", 0),
        };
        b->apply(steps, 2000);
        b->advance(2000);
        const QList<NvmlStepReport> reps = b->takeStepReports();
        QCOMPARE(reps.size(), 3);
        QCOMPARE(name(reps[0].state), name(NvmlStepState::Done));
        QCOMPARE(name(reps[1].state), name(NvmlStepState::Failed));
        QCOMPARE(name(reps[1].status), name(NvmlStatus::InUse));
        QCOMPARE(name(reps[2].state), name(NvmlStepState::Skipped));
        const QList<StepResult> results = b->takeResults();
        QCOMPARE(results.size(), 3);
        QCOMPARE(name(results[0].error), name(DeviceError::None));
        QCOMPARE(name(results[1].error), name(DeviceError::InUse));
        QCOMPARE(name(results[2].error), name(DeviceError::InUse));
        QCOMPARE(results[2].index, 2);
        // The first destroy happened; the busy instance is still there; nothing was created.
        QCOMPARE(layoutOf(*b, 0), QStringList{"3g.20gb@0"});
    }

    void creationFailingHalfWayLeavesWhatIsThere()
    {
        QJsonObject root = twoCards();
        root.insert("failCreateAt", 1);
        useFixture(root);
        auto b = open(true);
        QVERIFY(b);
        const QList<DeviceStep> steps{
                step(DeviceStep::Kind::CreateInstance, 0, "A100-SXM4-40GB", "1g.5gb", 5),
                step(DeviceStep::Kind::CreateInstance, 0, "A100-SXM4-40GB", "1g.5gb", 6),
                step(DeviceStep::Kind::CreateInstance, 0, "A100-SXM4-40GB", "1g.5gb", 3),
        };
        b->apply(steps, 2000);
        b->advance(2000);
        const QList<NvmlStepReport> reps = b->takeStepReports();
        QCOMPARE(name(reps[0].state), name(NvmlStepState::Done));
        QCOMPARE(name(reps[1].state), name(NvmlStepState::Failed));
        QCOMPARE(name(reps[1].status), name(NvmlStatus::InsufficientResources));
        QCOMPARE(name(reps[2].state), name(NvmlStepState::Skipped));
        QCOMPARE(layoutOf(*b, 0), (QStringList{"3g.20gb@0", "1g.5gb@4", "1g.5gb@5"}));
    }

    void driverRefusesAPlacementTheSlotsDoNotAllow()
    {
        useFixture(twoCards());
        auto b = open(true);
        QVERIFY(b);
        b->apply({step(DeviceStep::Kind::CreateInstance, 0, "A100-SXM4-40GB", "2g.10gb", 4)}, 2000);
        b->advance(2000);
        const NvmlStepReport r = b->takeStepReports().first();
        QCOMPARE(name(r.state), name(NvmlStepState::Failed));
        QCOMPARE(name(r.status), name(NvmlStatus::InsufficientResources)); // 1g.5gb@4 is there
        QCOMPARE(name(r.result.error), name(DeviceError::InsufficientResources));
    }

    void computeInstanceFailureUndoesTheGpuInstance()
    {
        QJsonObject root = twoCards();
        root.insert("failComputeCreate", true);
        useFixture(root);
        auto b = open(true);
        QVERIFY(b);
        b->apply({step(DeviceStep::Kind::CreateInstance, 0, "A100-SXM4-40GB", "1g.5gb", 6)}, 2000);
        b->advance(2000);
        const NvmlStepReport r = b->takeStepReports().first();
        QCOMPARE(name(r.state), name(NvmlStepState::Failed));
        QVERIFY2(r.message.contains(QLatin1String("GPU instance removed again")),
                 qPrintable(r.message));
        QCOMPARE(layoutOf(*b, 0), (QStringList{"3g.20gb@0", "1g.5gb@4"}));
    }

    void noPermissionBecomesReadOnly()
    {
        QJsonObject root = twoCards();
        root.insert("permission", false);
        useFixture(root);
        auto b = open(true);
        QVERIFY(b);
        QCOMPARE(name(b->access()),
                 name(NvmlAccess::Writable)); // not known until the driver says so
        b->apply({step(DeviceStep::Kind::CreateInstance, 0, "A100-SXM4-40GB", "1g.5gb", 6),
                  step(DeviceStep::Kind::CreateInstance, 0, "A100-SXM4-40GB", "1g.5gb", 5)},
                 2000);
        b->advance(2000);
        QList<NvmlStepReport> reps = b->takeStepReports();
        QCOMPARE(name(reps[0].state), name(NvmlStepState::Failed));
        QCOMPARE(name(reps[0].status), name(NvmlStatus::NoPermission));
        QCOMPARE(name(reps[1].state), name(NvmlStepState::Skipped));
        QCOMPARE(name(b->access()), name(NvmlAccess::NoPrivileges));
        QVERIFY(b->accessMessage().contains(QLatin1String("permission")));
        // From now on the backend refuses before calling the driver.
        const int calls = logLines().size();
        b->apply({step(DeviceStep::Kind::CreateInstance, 0, "A100-SXM4-40GB", "1g.5gb", 6)}, 3000);
        b->advance(3000);
        reps = b->takeStepReports();
        QCOMPARE(name(reps[0].state), name(NvmlStepState::Refused));
        QCOMPARE(name(reps[0].status), name(NvmlStatus::NoPermission));
        QCOMPARE(logLines().size(), calls);
        QCOMPARE(layoutOf(*b, 0), (QStringList{"3g.20gb@0", "1g.5gb@4"}));
    }

    void privilegeCheckWithoutRoot()
    {
        if (::geteuid() == 0)
            QSKIP("running as root: the privilege check passes");
        useFixture(twoCards());
        NvmlBackendOptions o;
        o.libraryPath = QStringLiteral(FAKENVML_PATH);
        o.applyEnabled = true;
        o.catalogue = m_cat;
        auto b = NvmlBackend::open(o, nullptr);
        QVERIFY(b);
        // Unless this machine grants the MIG capability to everyone, the backend says so.
        if (b->access() == NvmlAccess::Writable)
            QSKIP("this machine grants the MIG config capability to this user");
        QCOMPARE(name(b->access()), name(NvmlAccess::NoPrivileges));
    }

    void modeChangesAreRefusedAndMigOffIsAState()
    {
        useFixture(twoCards());
        auto b = open(true);
        QVERIFY(b);
        DeviceStep toWhole;
        toWhole.kind = DeviceStep::Kind::SetMode;
        toWhole.card = CardId(0);
        toWhole.mode = PartitionMode::Whole;
        DeviceStep stayMig = toWhole;
        stayMig.mode = PartitionMode::Mig;
        b->apply({stayMig,
                  toWhole,
                  step(DeviceStep::Kind::CreateInstance, 1, "H200-NVL-141GB", "1g.18gb", 0)},
                 2000);
        b->advance(2000);
        const QList<NvmlStepReport> reps = b->takeStepReports();
        QCOMPARE(reps.size(), 3);
        QCOMPARE(name(reps[0].state), name(NvmlStepState::Done));
        QCOMPARE(name(reps[1].state), name(NvmlStepState::Refused));
        QCOMPARE(name(reps[1].status), name(NvmlStatus::NotSupported));
        QVERIFY(reps[1].message.contains(QLatin1String("reset")));
        QCOMPARE(name(reps[2].state), name(NvmlStepState::Refused));
        QCOMPARE(reps[2].message, QStringLiteral("MIG mode is off on this card"));
    }

    void planFileRoundTripAndResolution()
    {
        useFixture(twoCards());
        auto b = open(false);
        QVERIFY(b);
        const QByteArray json = R"({
            "zhaoxiPlan": 1,
            "note": "make room for a 4g",
            "cards": [{"uuid": "GPU-a100-07", "index": 0, "model": "A100-40GB",
                       "expect": ["1g.5gb@4", "3g.20gb@0"],
                       "steps": [{"op": "destroy", "instance": "3g.20gb@0"},
                                 {"op": "create", "instance": "4g.20gb@0"}]}]})";
        QString error;
        const auto plan = readPlanFile(json, m_cat, &error);
        QVERIFY2(plan, qPrintable(error));
        QCOMPARE(plan->cards.size(), 1);
        QCOMPARE(readPlanFile(writePlanFile(*plan, m_cat), m_cat, &error), plan);

        ResolvedPlan r = resolvePlan(*plan, m_cat, b->cardReports());
        QVERIFY2(r.problems.isEmpty(), qPrintable(r.problems.join("; ")));
        QCOMPARE(r.steps.size(), 2);
        QCOMPARE(name(r.steps[0].kind), name(DeviceStep::Kind::DestroyInstance));
        QCOMPARE(r.steps[1].profile, model("A100-SXM4-40GB").profileIndex("4g.20gb"));

        PlanFile stale = *plan;
        stale.cards[0].expect = QList<MigPlacement>{};
        r = resolvePlan(stale, m_cat, b->cardReports());
        QCOMPARE(r.problems.size(), 1);
        QVERIFY(r.steps.isEmpty());
        QVERIFY2(r.problems[0].contains(QLatin1String("the plan was made for []")),
                 qPrintable(r.problems[0]));

        PlanFile other = *plan;
        other.cards[0].uuid = QStringLiteral("GPU-elsewhere");
        QVERIFY(resolvePlan(other, m_cat, b->cardReports())
                        .problems[0]
                        .contains(QLatin1String("no such card")));
        PlanFile wrongModel = *plan;
        wrongModel.cards[0].uuid.clear();
        wrongModel.cards[0].index = 1;
        QVERIFY(resolvePlan(wrongModel, m_cat, b->cardReports())
                        .problems[0]
                        .contains(QLatin1String("H200-NVL")));
    }

    void planFileErrors_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("error");
        QTest::newRow("version") << QByteArray(R"({"zhaoxiPlan": 2, "cards": []})")
                                 << "zhaoxiPlan: must be 1";
        QTest::newRow("no card") << QByteArray(R"({"zhaoxiPlan": 1, "cards": []})")
                                 << "cards: at least one card is required";
        QTest::newRow("unknown key") << QByteArray(
                R"({"zhaoxiPlan": 1, "cards": [{"index": 0, "model": "A100-40GB", "step": []}]})")
                                     << "cards[0]: unknown key \"step\"";
        QTest::newRow("no card id") << QByteArray(
                R"({"zhaoxiPlan": 1, "cards": [{"model": "A100-40GB", "steps": []}]})")
                                    << "cards[0]: needs \"uuid\" or \"index\"";
        QTest::newRow("bad start")
                << QByteArray(R"({"zhaoxiPlan": 1, "cards": [{"index": 0, "model": "A100-40GB",
                   "steps": [{"op": "create", "instance": "3g.20gb@2"}]}]})")
                << "cards[0].steps[0].instance: 3g.20gb cannot start at \"2\"";
        QTest::newRow("bad op") << QByteArray(
                R"({"zhaoxiPlan": 1, "cards": [{"index": 0, "model": "A100-40GB",
                   "steps": [{"op": "reset", "instance": "3g.20gb@0"}]}]})")
                                << "cards[0].steps[0].op: must be \"destroy\" or \"create\"";
    }

    void planFileErrors()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, error);
        QString got;
        QVERIFY(!readPlanFile(json, m_cat, &got));
        QCOMPARE(got, error);
    }
};

QTEST_GUILESS_MAIN(TestNvmlBackendApply)
#include "tst_nvmlbackend_apply.moc"
