// SPDX-License-Identifier: GPL-3.0-or-later
// The simulated backend behaves like the hardware: repartition steps take time and fail as the
// driver does, temperature follows power with inertia, faults come at their time.
#include "core/catalogue/catalogue.h"
#include "core/device/simulatedbackend.h"

#include <QRegularExpression>
#include <QtTest>

#include <cmath>

using namespace Zhaoxi;
using namespace Zhaoxi::Device;

namespace {

const Catalogue::Catalogue &catalogue()
{
    static const Catalogue::Catalogue c = Catalogue::Catalogue::builtIn();
    return c;
}

int profile(const QString &name)
{
    return catalogue().find(QStringLiteral("H200-141GB"))->profileIndex(name);
}

Sched::ClusterState twoCards(PartitionMode mode)
{
    Sched::ClusterState s(catalogue());
    const HostId h = s.addHost(QStringLiteral("h"), 64000, 512 * 1024);
    for (int i = 0; i < 2; ++i)
        s.addCard(h, catalogue().indexOf(QStringLiteral("H200-141GB")), mode);
    return s;
}

DeviceStep create(int card, const QString &p, int start)
{
    return DeviceStep{DeviceStep::Kind::CreateInstance, CardId(card), profile(p), start};
}

DeviceStep destroy(int card, const QString &p, int start)
{
    return DeviceStep{DeviceStep::Kind::DestroyInstance, CardId(card), profile(p), start};
}

// Hosts of two H200s each; the first card of each in MIG mode with a 3g.71gb at 0.
Sched::ClusterState hostsNamed(const QStringList &names)
{
    Sched::ClusterState s(catalogue());
    for (const QString &name : names) {
        const HostId h = s.addHost(name, 64000, 512 * 1024);
        const CardId mig = s.addCard(
                h, catalogue().indexOf(QStringLiteral("H200-141GB")), PartitionMode::Mig);
        s.createPartition(mig, profile(QStringLiteral("3g.71gb")), 0);
        s.addCard(h, catalogue().indexOf(QStringLiteral("H200-141GB")), PartitionMode::Whole);
    }
    return s;
}

QString uuidOf(const SimulatedBackend &b, int card, int start)
{
    for (const InstanceInfo &i : b.layout(CardId(card)).instances) {
        if (i.start == start)
            return i.uuid;
    }
    return QStringLiteral("(no instance at %1)").arg(start);
}

// A real UUID's shape, with the first group all zeros: what marks a simulated one.
bool isSimulatedUuid(const QString &uuid, const char *prefix)
{
    static const QRegularExpression shape(QStringLiteral(
            "^(GPU|MIG)-00000000-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"));
    return uuid.startsWith(QLatin1String(prefix)) && shape.match(uuid).hasMatch();
}

} // namespace

class TestSimulatedBackend : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void createTakesTime()
    {
        SimulatedBackend b(twoCards(PartitionMode::Mig));
        b.startAt(0);
        b.apply({create(0, QStringLiteral("3g.71gb"), 0), create(0, QStringLiteral("3g.71gb"), 4)},
                0);
        QCOMPARE(b.nextEventMs(), 4000);
        b.advance(3999);
        QVERIFY(b.takeResults().isEmpty());
        QCOMPARE(b.layout(CardId(0)).instances.size(), 1);
        QVERIFY(!b.layout(CardId(0)).instances.first().ready); // occupies its slots, not ready
        b.advance(4000);
        QList<StepResult> r = b.takeResults();
        QCOMPARE(r.size(), 1);
        QCOMPARE(r.first().error, DeviceError::None);
        QCOMPARE(r.first().doneMs, 4000);
        // The second step of the card starts when the first ends.
        b.advance(8000);
        r = b.takeResults();
        QCOMPARE(r.size(), 1);
        QCOMPARE(r.first().startedMs, 4000);
        QCOMPARE(b.layout(CardId(0)).instances.size(), 2);
    }

    void refusesAsTheDriverDoes_data()
    {
        QTest::addColumn<int>("busyStart"); // an instance at 0 serves work when >= 0
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("profileName");
        QTest::addColumn<int>("start");
        QTest::addColumn<int>("error");
        QTest::newRow("destroy an instance that serves work: in use")
                << 0 << int(DeviceStep::Kind::DestroyInstance) << QStringLiteral("3g.71gb") << 0
                << int(DeviceError::InUse);
        QTest::newRow("destroy an idle instance")
                << -1 << int(DeviceStep::Kind::DestroyInstance) << QStringLiteral("3g.71gb") << 0
                << int(DeviceError::None);
        QTest::newRow("destroy what is not there")
                << -1 << int(DeviceStep::Kind::DestroyInstance) << QStringLiteral("3g.71gb") << 4
                << int(DeviceError::NotFound);
        QTest::newRow("a start the profile does not allow")
                << -1 << int(DeviceStep::Kind::CreateInstance) << QStringLiteral("3g.71gb") << 2
                << int(DeviceError::InvalidPlacement);
        QTest::newRow("slots taken")
                << -1 << int(DeviceStep::Kind::CreateInstance) << QStringLiteral("2g.35gb") << 2
                << int(DeviceError::InsufficientResources);
        QTest::newRow("mode change with instances: in use")
                << -1 << int(DeviceStep::Kind::SetMode) << QString() << -1
                << int(DeviceError::InUse);
    }
    void refusesAsTheDriverDoes()
    {
        QFETCH(int, busyStart);
        QFETCH(int, kind);
        QFETCH(QString, profileName);
        QFETCH(int, start);
        QFETCH(int, error);
        SimulatedBackend b(twoCards(PartitionMode::Mig));
        b.startAt(0);
        b.apply({create(0, QStringLiteral("3g.71gb"), 0)}, 0);
        b.advance(10'000);
        b.takeResults();
        if (busyStart >= 0)
            b.setInstanceBusy(CardId(0), profile(QStringLiteral("3g.71gb")), busyStart, true);
        DeviceStep s{DeviceStep::Kind(kind),
                     CardId(0),
                     profileName.isEmpty() ? -1 : profile(profileName),
                     start};
        s.mode = PartitionMode::Whole;
        b.apply({s}, 10'000);
        b.advance(30'000);
        const QList<StepResult> r = b.takeResults();
        QCOMPARE(r.size(), 1);
        QCOMPARE(int(r.first().error), error);
    }

    void temperatureFollowsPowerWithInertia()
    {
        SimulatedBackendOptions o;
        o.thermalTauS = 100;
        SimulatedBackend b(twoCards(PartitionMode::Whole), o);
        b.startAt(0);
        const double t0 = b.metrics(CardId(0)).temperatureC;
        b.setLoad(CardId(0), 1.0, 1000, 0);
        QCOMPARE(b.metrics(CardId(0)).powerW, 700.0); // the H200's board limit
        b.advance(100'000);                           // one time constant
        const double target = o.ambientC + o.riseAtMaxPowerC;
        const double expected = target + (t0 - target) * std::exp(-1.0);
        QVERIFY(std::abs(b.metrics(CardId(0)).temperatureC - expected) < 1e-9);
        // The same end point in one step or in many: the lag is solved exactly.
        SimulatedBackend c(twoCards(PartitionMode::Whole), o);
        c.startAt(0);
        c.setLoad(CardId(0), 1.0, 1000, 0);
        for (qint64 t = 1000; t <= 100'000; t += 1000)
            c.advance(t);
        QVERIFY(std::abs(c.metrics(CardId(0)).temperatureC - expected) < 1e-9);
        // Energy: idle card for 100 s at 75 W, loaded one at 700 W.
        QCOMPARE(std::round(b.energyJ(CardId(1))), 7500.0);
        QCOMPARE(std::round(b.energyJ(CardId(0))), 70000.0);
    }

    void hotCardThrottles()
    {
        SimulatedBackendOptions o;
        o.riseAtMaxPowerC = 70; // steady 100 °C at full load: above the limit
        SimulatedBackend b(twoCards(PartitionMode::Whole), o);
        b.startAt(0);
        b.setLoad(CardId(0), 1.0, 0, 0);
        b.advance(600'000);
        QVERIFY(b.metrics(CardId(0)).throttled);
        QCOMPARE(b.metrics(CardId(0)).clockFactor, o.heatThrottleFactor);
        b.setLoad(CardId(0), 0.0, 0, 600'000);
        b.advance(1'800'000);
        QVERIFY(!b.metrics(CardId(0)).throttled);
    }

    void uuidsAreStableAcrossBackends()
    {
        const Sched::ClusterState state = hostsNamed({"gpu-a", "gpu-b"});
        SimulatedBackend a(state);
        SimulatedBackend b(state);
        QSet<QString> seen;
        for (int c = 0; c < 4; ++c) {
            const QString u = a.cards()[c].uuid;
            QVERIFY2(isSimulatedUuid(u, "GPU-"), qPrintable(u));
            QCOMPARE(b.cards()[c].uuid, u);
            seen.insert(u);
        }
        QCOMPARE(seen.size(), 4); // by host name and index: the same index on two hosts differs
        // The instances the state starts with have theirs at once, the same in both backends.
        for (int c : {0, 2}) {
            const QString u = uuidOf(a, c, 0);
            QVERIFY2(isSimulatedUuid(u, "MIG-"), qPrintable(u));
            QCOMPARE(uuidOf(b, c, 0), u);
            QVERIFY(!seen.contains(u));
            seen.insert(u);
        }
        QCOMPARE(seen.size(), 6);
        // Fixed by the scheme, so the same in every run and process: a change here renames every
        // simulated card and instance of every saved appliance.
        QCOMPARE(a.cards()[0].uuid, QStringLiteral("GPU-00000000-3daa-1c5c-b7b5-fe4ff291e7bd"));
        QCOMPARE(uuidOf(a, 0, 0), QStringLiteral("MIG-00000000-cef9-8af8-1657-9a098349e19a"));
        // A host's cards keep their UUIDs when the hosts before it change.
        SimulatedBackend alone(hostsNamed({"gpu-b"}));
        QCOMPARE(alone.cards()[0].uuid, a.cards()[2].uuid);
        QCOMPARE(alone.cards()[1].uuid, a.cards()[3].uuid);
    }

    void instanceUuidIsSetWhenReadyAndNewWhenCreatedAgain()
    {
        const Sched::ClusterState state = twoCards(PartitionMode::Mig);
        auto run = [&state](QStringList *uuids) {
            SimulatedBackend b(state);
            b.startAt(0);
            b.apply({create(0, QStringLiteral("1g.18gb"), 6)}, 0);
            b.advance(1000);
            // Being created: it holds its slots, and has no identity a process could bind to.
            QCOMPARE(b.layout(CardId(0)).instances.size(), 1);
            QVERIFY(!b.layout(CardId(0)).instances.first().ready);
            QVERIFY(b.layout(CardId(0)).instances.first().uuid.isEmpty());
            b.advance(10'000);
            QVERIFY(b.layout(CardId(0)).instances.first().ready);
            *uuids << uuidOf(b, 0, 6);
            b.apply({destroy(0, QStringLiteral("1g.18gb"), 6)}, 10'000);
            b.advance(11'000);
            // Being destroyed: still the same instance.
            QVERIFY(!b.layout(CardId(0)).instances.first().ready);
            QCOMPARE(uuidOf(b, 0, 6), uuids->last());
            b.advance(20'000);
            QVERIFY(b.layout(CardId(0)).instances.isEmpty());
            b.apply({create(0, QStringLiteral("1g.18gb"), 6),
                     create(1, QStringLiteral("1g.18gb"), 6)},
                    20'000);
            b.advance(30'000);
            *uuids << uuidOf(b, 0, 6) << uuidOf(b, 1, 6);
            QCOMPARE(b.takeResults().size(), 4);
        };
        QStringList first, second;
        run(&first);
        run(&second);
        for (const QString &u : first)
            QVERIFY2(isSimulatedUuid(u, "MIG-"), qPrintable(u));
        QVERIFY(first[0] != first[1]); // created again at the same placement: a new instance
        QVERIFY(first[1] != first[2]); // the same placement on another card
        QCOMPARE(second, first);       // and the same sequence every time
    }

    void faultsComeAtTheirTime()
    {
        SimulatedBackend b(twoCards(PartitionMode::Mig));
        b.startAt(0);
        b.injectFault(DeviceFault{60'000, CardId(1), FaultKind::CardLost, 120'000});
        b.injectFault(DeviceFault{30'000, CardId(0), FaultKind::ThermalThrottle, 10'000});
        QCOMPARE(b.nextEventMs(), 30'000);
        b.advance(30'000);
        QList<DeviceFault> f = b.takeFaults();
        QCOMPARE(f.size(), 1);
        QCOMPARE(f.first().kind, FaultKind::ThermalThrottle);
        b.setLoad(CardId(0), 0.5, 0, 30'000);
        QCOMPARE(b.metrics(CardId(0)).clockFactor, b.options().faultThrottleFactor);
        // A step on a lost card fails as the driver reports it.
        b.advance(60'000);
        f = b.takeFaults();
        QCOMPARE(f.size(), 1);
        QCOMPARE(f.first().kind, FaultKind::CardLost);
        QVERIFY(b.metrics(CardId(1)).lost);
        b.apply({create(1, QStringLiteral("1g.18gb"), 0)}, 61'000);
        const QList<StepResult> r = b.takeResults();
        QCOMPARE(r.size(), 1);
        QCOMPARE(r.first().error, DeviceError::GpuLost);
        b.advance(180'000);
        f = b.takeFaults();
        QCOMPARE(f.size(), 1);
        QCOMPARE(f.first().kind, FaultKind::Recovered);
        QVERIFY(!b.metrics(CardId(1)).lost);
    }
};

QTEST_GUILESS_MAIN(TestSimulatedBackend)
#include "tst_simulatedbackend.moc"
