// SPDX-License-Identifier: GPL-3.0-or-later
// The NVML backend against the test double of the library (tests/device/fakenvml): enumerate,
// read, no permission, no driver, faults, missing optional symbols. Orders and plan files are in
// tst_nvmlbackend_apply.cpp.
#include "tests/device/nvmlbackendtest.h"

class TestNvmlBackend : public QObject, protected NvmlBackendTest
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { loadDouble(); }

    void noDriverFound()
    {
        NvmlOpenResult r;
        auto b = open(false, &r, "/nonexistent/libnvidia-ml.so.1");
        QVERIFY(!b);
        QCOMPARE(name(r.status), name(NvmlOpenStatus::NoDriver));
        QVERIFY2(r.message.startsWith(QLatin1String("no NVIDIA driver found")),
                 qPrintable(r.message));
    }

    void kernelDriverNotLoaded()
    {
        useFixture(QJsonObject{{"init", "driver-not-loaded"}});
        NvmlOpenResult r;
        QVERIFY(!open(false, &r));
        QCOMPARE(name(r.status), name(NvmlOpenStatus::NoDriver));
        QVERIFY2(r.message.contains(QLatin1String("no NVIDIA driver found")),
                 qPrintable(r.message));
    }

    void initWithoutPermissionIsAnInitFailure()
    {
        useFixture(QJsonObject{{"init", "no-permission"}});
        NvmlOpenResult r;
        QVERIFY(!open(false, &r));
        QCOMPARE(name(r.status), name(NvmlOpenStatus::InitFailed));
        QVERIFY2(r.message.contains(QLatin1String("no-permission")), qPrintable(r.message));
    }

    void libraryPathFromEnvironment()
    {
        useFixture(twoCards());
        qputenv("ZHAOXI_NVML_LIBRARY", FAKENVML_PATH);
        NvmlBackendOptions o;
        o.catalogue = m_cat;
        NvmlOpenResult r;
        auto b = NvmlBackend::open(o, &r);
        qunsetenv("ZHAOXI_NVML_LIBRARY");
        QVERIFY2(b, qPrintable(r.message));
        QCOMPARE(b->libraryPath(), QStringLiteral(FAKENVML_PATH));
        QCOMPARE(Nvml::Library::resolvePath({}), QStringLiteral("libnvidia-ml.so.1"));
    }

    void enumeratesCardsAndMigState()
    {
        useFixture(twoCards());
        NvmlOpenResult r;
        auto b = open(false, &r);
        QVERIFY2(b, qPrintable(r.message));
        QCOMPARE(name(r.status), name(NvmlOpenStatus::Ok));
        QCOMPARE(b->driverVersion(), QStringLiteral("550.54.15"));
        QVERIFY(b->missingOptionalSymbols().isEmpty());

        QCOMPARE(b->hosts().size(), 1);
        QCOMPARE(b->hosts().first().cardCount, 2);
        const QList<CardInfo> cards = b->cards();
        QCOMPARE(cards.size(), 2);
        QCOMPARE(cards[0].model, modelIndex("A100-SXM4-40GB"));
        QCOMPARE(cards[1].model, modelIndex("H200-NVL-141GB")); // by PCI id 0x233B

        const NvmlCardReport &a = b->cardReports()[0];
        QCOMPARE(a.name, QStringLiteral("NVIDIA A100-SXM4-40GB"));
        QCOMPARE(a.uuid, QStringLiteral("GPU-a100-07"));
        QCOMPARE(a.busId, QStringLiteral("00000000:07:00.0"));
        QCOMPARE(a.pciDeviceId, 0x20B010DEu);
        QCOMPARE(a.memoryTotalMiB, 40960);
        QCOMPARE(a.migCurrent, std::optional<bool>(true));
        QCOMPARE(a.migPending, std::optional<bool>(true));
        QCOMPARE(a.driverProfiles.size(), model("A100-SXM4-40GB").migProfiles.size());
        QVERIFY2(a.differences.isEmpty(), qPrintable(describe(a.differences.value(0))));
        QCOMPARE(name(a.layout.mode), name(PartitionMode::Mig));
        QCOMPARE(layoutOf(*b, 0), (QStringList{"3g.20gb@0", "1g.5gb@4"}));
        QVERIFY(a.layoutProblems.isEmpty());

        const NvmlCardReport &h = b->cardReports()[1];
        QCOMPARE(h.migCurrent, std::optional<bool>(false));
        QCOMPARE(name(h.layout.mode), name(PartitionMode::Whole));
        QVERIFY(h.driverProfiles.isEmpty());
        QCOMPARE(b->cardByUuid(QStringLiteral("GPU-H200-3B")), CardId(1));
        QVERIFY(!b->cardByUuid(QStringLiteral("GPU-none")).isValid());
    }

    void cardAndInstanceUuids()
    {
        useFixture(twoCards());
        auto b = open(true);
        QVERIFY(b);
        QCOMPARE(b->cards()[0].uuid, QStringLiteral("GPU-a100-07"));
        QCOMPARE(b->cards()[1].uuid, QStringLiteral("GPU-h200-3b"));
        QVERIFY2(b->cardReports()[0].instanceUuidNote.isEmpty(),
                 qPrintable(b->cardReports()[0].instanceUuidNote));
        // The instances there at start, matched through their GPU instance ids.
        for (int start : {0, 4}) {
            QVERIFY(!fakeUuidAt(0, start).isEmpty());
            QCOMPARE(uuidAt(*b, 0, start), fakeUuidAt(0, start));
        }
        QVERIFY(uuidAt(*b, 0, 0) != uuidAt(*b, 0, 4));

        // Created through the driver: its UUID is there right after the order.
        b->apply({step(DeviceStep::Kind::CreateInstance, 0, "A100-SXM4-40GB", "1g.5gb", 6)}, 2000);
        b->advance(2000);
        QCOMPARE(name(b->takeStepReports().first().state), name(NvmlStepState::Done));
        const QString first = uuidAt(*b, 0, 6);
        QVERIFY2(first.startsWith(QLatin1String("MIG-")), qPrintable(first));
        QCOMPARE(first, fakeUuidAt(0, 6));

        // Destroyed and created again at the same placement: another instance, another UUID.
        b->apply({step(DeviceStep::Kind::DestroyInstance, 0, "A100-SXM4-40GB", "1g.5gb", 6),
                  step(DeviceStep::Kind::CreateInstance, 0, "A100-SXM4-40GB", "1g.5gb", 6)},
                 3000);
        b->advance(3000);
        for (const NvmlStepReport &r : b->takeStepReports())
            QCOMPARE(name(r.state), name(NvmlStepState::Done));
        const QString second = uuidAt(*b, 0, 6);
        QCOMPARE(second, fakeUuidAt(0, 6));
        QVERIFY(!second.isEmpty());
        QVERIFY(second != first);
        // A card without MIG has no instances, and its own UUID.
        QVERIFY(b->layout(CardId(1)).instances.isEmpty());
    }

    void processesAreReadAtEachPoll()
    {
        useFixture(twoCards());
        auto b = open(false);
        QVERIFY(b);
        QVERIFY(b->reading(CardId(1)).processesListed);
        QVERIFY(b->processes(1).isEmpty());
        m_control(R"({"processes": {"gpu": 1, "list": [
                        {"pid": 4242, "memoryMiB": 2048, "smUtil": 55},
                        {"pid": 4343, "smUtil": 0}]}})");
        m_control(R"({"processes": {"gpu": 0, "list": [
                        {"pid": 5000, "memoryMiB": 1000, "start": 4},
                        {"pid": 5001, "memoryMiB": 300, "start": 0}]}})");
        b->poll(1500); // not due yet: the readings are the last poll's
        QVERIFY(b->processes(1).isEmpty());
        b->poll(3000);

        const QList<ProcessUse> whole = b->processes(1);
        QCOMPARE(whole.size(), 2);
        const ProcessUse *busy = processOf(whole, 4242);
        QVERIFY(busy);
        QCOMPARE(busy->memoryMiB, 2048);
        QCOMPARE(busy->smUtilisation, 0.55);
        QVERIFY(busy->instanceUuid.isEmpty());
        const ProcessUse *idle = processOf(whole, 4343);
        QVERIFY(idle);
        QCOMPARE(idle->memoryMiB, -1);      // the driver did not say: not 0, not huge
        QCOMPARE(idle->smUtilisation, 0.0); // no sample: it did not use the SMs

        // With MIG on, read per MIG device, each process named by its instance's UUID.
        QVERIFY(b->reading(CardId(0)).processesListed);
        const QList<ProcessUse> mig = b->processes(0);
        QCOMPARE(mig.size(), 2);
        const ProcessUse *on4 = processOf(mig, 5000);
        const ProcessUse *on0 = processOf(mig, 5001);
        QVERIFY(on4 && on0);
        QCOMPARE(on4->instanceUuid, uuidAt(*b, 0, 4));
        QCOMPARE(on0->instanceUuid, uuidAt(*b, 0, 0));
        QCOMPARE(on0->memoryMiB, 300);
        QVERIFY(std::isnan(on4->smUtilisation)); // not offered for MIG instances

        QVERIFY(b->processes(2).isEmpty());
        QVERIFY(b->processes(-1).isEmpty());

        // Gone from the driver's list: gone at the next poll.
        m_control(R"({"processes": {"gpu": 1, "list": [{"pid": 4343, "memoryMiB": 10}]}})");
        b->poll(5000);
        QCOMPARE(b->processes(1).size(), 1);
        QCOMPARE(b->processes(1).first().pid, 4343u);
        QCOMPARE(b->processes(1).first().memoryMiB, 10);
    }

    void metricsWithMigAreNotAvailableNotZero()
    {
        useFixture(twoCards());
        auto b = open(false);
        QVERIFY(b);
        const NvmlReading mig = b->reading(CardId(0));
        QVERIFY(!mig.utilisation.has_value());
        QVERIFY(std::isnan(b->metrics(CardId(0)).utilisation));
        QCOMPARE(mig.memoryUsedMiB, std::optional<qint64>(1024));
        QCOMPARE(mig.powerW, std::optional<double>(63.5));
        QCOMPARE(mig.temperatureC, std::optional<double>(41));
        QCOMPARE(mig.smClockMHz, std::optional<double>(1410));
        QCOMPARE(mig.maxSmClockMHz, std::optional<double>(1980));
        QCOMPARE(mig.eccUncorrected, std::optional<quint64>(0));
        QCOMPARE(mig.eccCorrected, std::optional<quint64>(2));

        const CardMetrics whole = b->metrics(CardId(1));
        QCOMPARE(whole.utilisation, 0.37);
        QCOMPARE(whole.powerW, 63.5);
        QCOMPARE(whole.memoryUsedMiB, 1024);
        QCOMPARE(whole.atMs, 1000);
        QVERIFY(!whole.lost);
    }

    void reportsProfileDifferencesFromTheCatalogue()
    {
        QJsonObject root = twoCards();
        QJsonArray gpus = root.value("gpus").toArray();
        QJsonObject a = gpus[0].toObject();
        QJsonArray profiles = a.value("profiles").toArray();
        for (int i = 0; i < profiles.size(); ++i) {
            QJsonObject p = profiles[i].toObject();
            if (p.value("id").toInt() == 9) { // 3g.20gb: other memory, one start only
                p.insert("memoryMB", 19968);
                p.insert("starts", QJsonArray{0});
            }
            if (p.value("id").toInt() == 20) { // 1g.5gb+me: not offered by this driver
                profiles.removeAt(i--);
                continue;
            }
            profiles[i] = p;
        }
        profiles.append(QJsonObject{{"index", 10},
                                    {"id", 21},
                                    {"name", "MIG 1g.5gb+gfx"},
                                    {"slices", 1},
                                    {"instances", 7},
                                    {"memoryMB", 4864},
                                    {"size", 1},
                                    {"starts", QJsonArray{0, 1, 2, 3, 4, 5, 6}}});
        a.insert("profiles", profiles);
        gpus[0] = a;
        root.insert("gpus", gpus);
        useFixture(root);
        auto b = open(false);
        QVERIFY(b);
        QStringList got;
        for (const ProfileDifference &d : b->cardReports()[0].differences)
            got << QStringLiteral("%1 %2").arg(d.profileId).arg(name(d.kind));
        QCOMPARE(got,
                 (QStringList{"9 memory",
                              "9 starts",
                              "20 missing-in-driver",
                              "21 missing-in-catalogue"}));
        QCOMPARE(describe(b->cardReports()[0].differences[0]),
                 QStringLiteral("3g.20gb (id 9): memory: catalogue 20096, driver 19968"));
    }

    void faultsFromXidsEccAndLostCards()
    {
        useFixture(twoCards());
        auto b = open(false);
        QVERIFY(b);
        QVERIFY(b->takeFaults().isEmpty());
        m_control(R"({"xid": {"gpu": 1, "xid": 48}})");
        m_control(R"({"xid": {"gpu": 1, "xid": 13}})"); // recorded, not a fault
        m_control(R"({"eccUncorrected": {"gpu": 0, "count": 3}})");
        b->poll(1500); // too early: the poll interval has not passed
        QVERIFY(b->takeFaults().isEmpty());
        b->poll(3000);
        QList<DeviceFault> f = b->takeFaults();
        QCOMPARE(f.size(), 2);
        QCOMPARE(name(f[0].kind), name(FaultKind::MemoryError));
        QCOMPARE(f[0].card, CardId(1));
        QCOMPARE(name(f[1].kind), name(FaultKind::MemoryError));
        QCOMPARE(f[1].card, CardId(0));
        QCOMPARE(b->reading(CardId(1)).recentXids, (QList<quint64>{48, 13}));

        m_control(R"({"lost": {"gpu": 1, "lost": true}})");
        b->poll(5000);
        f = b->takeFaults();
        QCOMPARE(f.size(), 1);
        QCOMPARE(name(f[0].kind), name(FaultKind::CardLost));
        QVERIFY(b->metrics(CardId(1)).lost);
        QVERIFY(b->layout(CardId(1)).lost);
        m_control(R"({"lost": {"gpu": 1, "lost": false}})");
        b->poll(7000);
        f = b->takeFaults();
        QCOMPARE(f.size(), 1);
        QCOMPARE(name(f[0].kind), name(FaultKind::Recovered));
        QCOMPARE(b->nextEventMs(), 9000);
    }

    void pollReadsMetricsOnlyWhenDue()
    {
        useFixture(twoCards());
        auto b = open(false);
        QVERIFY(b);
        m_control(R"({"utilisation": {"gpu": 1, "value": 90}})");
        b->poll(1100);
        QCOMPARE(b->metrics(CardId(1)).utilisation, 0.37);
        b->advance(3000);
        QCOMPARE(b->metrics(CardId(1)).utilisation, 0.9);
    }

    void minimalLibraryWithoutOptionalSymbols()
    {
        QJsonObject root = twoCards();
        QJsonArray gpus = root.value("gpus").toArray();
        QJsonObject migGpu = gpus[0].toObject();
        migGpu.insert("processes",
                      QJsonArray{QJsonObject{{"pid", 77}, {"memoryMiB", 100}, {"start", 4}}});
        gpus[0] = migGpu;
        QJsonObject wholeGpu = gpus[1].toObject();
        wholeGpu.insert("processes", QJsonArray{QJsonObject{{"pid", 78}, {"smUtil", 40}}});
        gpus[1] = wholeGpu;
        root.insert("gpus", gpus);
        useFixture(root);
        NvmlOpenResult r;
        auto b = open(true, &r, FAKENVML_MINIMAL_PATH);
        QVERIFY2(b, qPrintable(r.message));
        const QStringList missing = b->missingOptionalSymbols();
        QVERIFY(missing.contains(QStringLiteral("nvmlEventSetWait_v2")));
        QVERIFY(missing.contains(QStringLiteral("nvmlDeviceGetPowerUsage")));
        QVERIFY(missing.contains(QStringLiteral("nvmlDeviceGetGpuInstanceProfileInfoV")));
        QVERIFY(missing.contains(QStringLiteral("nvmlDeviceCreateGpuInstanceWithPlacement")));
        // Reads what it can: MIG state and profiles through the old info call (no names).
        const NvmlCardReport &a = b->cardReports()[0];
        QCOMPARE(a.driverProfiles.size(), 7);
        QVERIFY(a.driverProfiles.first().name.isEmpty());
        QVERIFY(a.differences.isEmpty());
        QCOMPARE(layoutOf(*b, 0), (QStringList{"3g.20gb@0", "1g.5gb@4"}));
        const NvmlReading reading = b->reading(CardId(1));
        QVERIFY(!reading.powerW && !reading.temperatureC && !reading.utilisation);
        QCOMPARE(reading.memoryUsedMiB, std::optional<qint64>(1024));
        // No MIG device functions: the placements are known, their UUIDs are not, and it says so.
        QVERIFY(missing.contains(QStringLiteral("nvmlDeviceGetMigDeviceHandleByIndex")));
        QCOMPARE(b->cards()[0].uuid, QStringLiteral("GPU-a100-07"));
        for (const InstanceInfo &i : b->layout(CardId(0)).instances)
            QVERIFY(i.uuid.isEmpty());
        QVERIFY2(a.instanceUuidNote.contains(QLatin1String("nvmlDeviceGetMigDeviceHandleByIndex")),
                 qPrintable(a.instanceUuidNote));
        QVERIFY(a.layoutProblems.isEmpty()); // not a layout problem: plans still resolve
        QVERIFY(b->cardReports()[1].instanceUuidNote.isEmpty()); // MIG off: nothing to name
        // Processes through the card's handle: the MIG one without an instance UUID to name,
        // the whole card's without per-process utilisation.
        QVERIFY(b->reading(CardId(0)).processesListed);
        QCOMPARE(b->processes(0).size(), 1);
        QCOMPARE(b->processes(0).first().pid, 77u);
        QCOMPARE(b->processes(0).first().memoryMiB, 100);
        QVERIFY(b->processes(0).first().instanceUuid.isEmpty());
        QCOMPARE(b->processes(1).size(), 1);
        QVERIFY(std::isnan(b->processes(1).first().smUtilisation));
        // Cannot change MIG without the functions: read-only, and says why.
        QCOMPARE(name(b->access()), name(NvmlAccess::NotSupported));
        b->apply({step(DeviceStep::Kind::CreateInstance, 0, "A100-SXM4-40GB", "1g.5gb", 6)}, 2000);
        b->advance(2000);
        QCOMPARE(name(b->takeStepReports().first().status), name(NvmlStatus::NotSupported));
    }
};

QTEST_GUILESS_MAIN(TestNvmlBackend)
#include "tst_nvmlbackend.moc"
