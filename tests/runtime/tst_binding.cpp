// SPDX-License-Identifier: GPL-3.0-or-later
// Which devices a job's processes are bound to: one row per kind of unit.
#include "core/runtime/binding.h"
#include "core/sched/scheduler.h"

#include "tests/sched/fixture.h"

#include <QtTest>

using namespace Zhaoxi;
using namespace Zhaoxi::Sched::Test;

namespace {

QString gpuUuid(Domain::CardId c)
{
    return QStringLiteral("GPU-0000000%1-aaaa-bbbb-cccc-000000000000").arg(c.value());
}

Runtime::UnitIds ids()
{
    Runtime::UnitIds u;
    u.cardUuid = gpuUuid;
    u.instanceUuid = [](Domain::CardId c, int profile, int start) {
        return QStringLiteral("MIG-%1-%2-%3").arg(c.value()).arg(profile).arg(start);
    };
    u.mpsDirs = [](Domain::CardId c) {
        return Runtime::MpsDirs{QStringLiteral("/run/zx/mps/%1/pipe").arg(c.value()),
                                QStringLiteral("/run/zx/mps/%1/log").arg(c.value())};
    };
    return u;
}

// Places one job with the real scheduler and returns its bindings.
QList<Runtime::ProcessBinding> placeAndBind(Sched::ClusterState state,
                                            const Domain::WorkloadSpec &spec,
                                            const Runtime::UnitIds &unitIds,
                                            QString *error)
{
    Sched::Scheduler sched(std::move(state));
    const Domain::JobId job = sched.submit(spec, 0);
    sched.tick(0);
    if (!sched.state().job(job).isActive()) {
        *error = QStringLiteral("not placed");
        return {};
    }
    return Runtime::bindJob(sched.state(), job, unitIds, 29500, error)
            .value_or(QList<Runtime::ProcessBinding>{});
}

} // namespace

class TestBinding : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void wholeCard()
    {
        Sched::ClusterState s(catalogue());
        addHost(s, QStringLiteral("h"), QStringLiteral("H100-SXM5-80GB"), 2, PartitionMode::Whole);
        QString error;
        const auto b = placeAndBind(s, wholeCards(QStringLiteral("train"), 1), ids(), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(b.size(), 1);
        const QString dev = b[0].env.value(QStringLiteral("CUDA_VISIBLE_DEVICES"));
        QVERIFY(dev.startsWith(QLatin1String("GPU-")));
        QVERIFY(!dev.contains(QLatin1Char(',')));
        QCOMPARE(b[0].env.value(QStringLiteral("NVIDIA_VISIBLE_DEVICES")), dev);
        QCOMPARE(b[0].env.value(QStringLiteral("ZHAOXI_JOB")), QStringLiteral("train"));
        QVERIFY(b[0].env.value(QStringLiteral("ZHAOXI_UNIT")).startsWith(QLatin1String("card")));
        QVERIFY(!b[0].env.contains(QStringLiteral("ZHAOXI_RANK")));
    }

    void gangOfWholeCardsIsOneProcess()
    {
        Sched::ClusterState s(catalogue());
        addHost(s, QStringLiteral("h"), QStringLiteral("H100-SXM5-80GB"), 4, PartitionMode::Whole);
        QString error;
        const auto b = placeAndBind(s, wholeCards(QStringLiteral("gang"), 3), ids(), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(b.size(), 1);
        const QStringList devs
                = b[0].env.value(QStringLiteral("CUDA_VISIBLE_DEVICES")).split(QLatin1Char(','));
        QCOMPARE(devs.size(), 3);
        QCOMPARE(QSet<QString>(devs.begin(), devs.end()).size(), 3);
        for (const QString &d : devs)
            QVERIFY(d.startsWith(QLatin1String("GPU-")));
        QCOMPARE(b[0].units.size(), 3);
    }

    void migInstance()
    {
        Sched::ClusterState s(catalogue());
        addHost(s, QStringLiteral("h"), QStringLiteral("H100-SXM5-80GB"), 1, PartitionMode::Mig);
        QString error;
        const auto b = placeAndBind(
                s, migProfile(QStringLiteral("chat"), QStringLiteral("3g.40gb")), ids(), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(b.size(), 1);
        QVERIFY(b[0].env.value(QStringLiteral("CUDA_VISIBLE_DEVICES"))
                        .startsWith(QLatin1String("MIG-0-")));
    }

    void gangOfMigInstancesIsOneProcessPerInstance()
    {
        Sched::ClusterState s(catalogue());
        addHost(s, QStringLiteral("h"), QStringLiteral("H100-SXM5-80GB"), 2, PartitionMode::Mig);
        Domain::WorkloadSpec spec = migProfile(QStringLiteral("ddp"), QStringLiteral("3g.40gb"));
        spec.kind = Domain::WorkloadKind::Training;
        spec.inference.reset();
        spec.demand.cards = 2;
        QString error;
        const auto b = placeAndBind(s, spec, ids(), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(b.size(), 2);
        for (int rank = 0; rank < 2; ++rank) {
            QCOMPARE(b[rank].rank, rank);
            QCOMPARE(b[rank].units.size(), 1);
            QCOMPARE(b[rank].env.value(QStringLiteral("ZHAOXI_RANK")), QString::number(rank));
            QCOMPARE(b[rank].env.value(QStringLiteral("ZHAOXI_WORLD_SIZE")), QStringLiteral("2"));
            QCOMPARE(b[rank].env.value(QStringLiteral("ZHAOXI_MASTER_ADDR")),
                     QStringLiteral("127.0.0.1"));
            QCOMPARE(b[rank].env.value(QStringLiteral("ZHAOXI_MASTER_PORT")),
                     QStringLiteral("29500"));
            QVERIFY(b[rank].visibleDevices.startsWith(QLatin1String("MIG-")));
        }
        QVERIFY(b[0].visibleDevices != b[1].visibleDevices);
    }

    void timeSlicingShareGetsTheCard()
    {
        Sched::ClusterState s(catalogue());
        addHost(s, QStringLiteral("h"), QStringLiteral("L40S-48GB"), 1, PartitionMode::TimeSlicing);
        QString error;
        const auto b = placeAndBind(s, fraction(QStringLiteral("embed"), 250), ids(), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(b.size(), 1);
        QCOMPARE(b[0].visibleDevices, gpuUuid(Domain::CardId(0)));
        QVERIFY(!b[0].env.contains(QStringLiteral("CUDA_MPS_PIPE_DIRECTORY")));
    }

    void mpsShareGetsItsDaemonAndLimits()
    {
        Sched::ClusterState s(catalogue());
        addHost(s, QStringLiteral("h"), QStringLiteral("L40S-48GB"), 1, PartitionMode::Mps);
        QString error;
        const auto b = placeAndBind(s, fraction(QStringLiteral("embed"), 333, 4096), ids(), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(b.size(), 1);
        QCOMPARE(b[0].visibleDevices, gpuUuid(Domain::CardId(0)));
        QCOMPARE(b[0].env.value(QStringLiteral("CUDA_MPS_PIPE_DIRECTORY")),
                 QStringLiteral("/run/zx/mps/0/pipe"));
        QCOMPARE(b[0].env.value(QStringLiteral("CUDA_MPS_LOG_DIRECTORY")),
                 QStringLiteral("/run/zx/mps/0/log"));
        QCOMPARE(b[0].env.value(QStringLiteral("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE")),
                 QStringLiteral("34"));
        QCOMPARE(b[0].env.value(QStringLiteral("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT")),
                 QStringLiteral("0=4096M"));
    }

    void cpuOnlyJobSeesNoDevice()
    {
        Sched::ClusterState s(catalogue());
        addHost(s, QStringLiteral("h"), QStringLiteral("L40S-48GB"), 1, PartitionMode::Whole);
        Domain::WorkloadSpec spec = wholeCards(QStringLiteral("etl"), 0);
        spec.demand.hostCpuMilli = 1000;
        QString error;
        const auto b = placeAndBind(s, spec, ids(), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(b.size(), 1);
        QVERIFY(b[0].env.contains(QStringLiteral("CUDA_VISIBLE_DEVICES")));
        QCOMPARE(b[0].env.value(QStringLiteral("CUDA_VISIBLE_DEVICES")), QString());
        QCOMPARE(b[0].env.value(QStringLiteral("NVIDIA_VISIBLE_DEVICES")), QStringLiteral("void"));
    }

    void aMissingUuidIsAnErrorNamingTheUnit()
    {
        Sched::ClusterState s(catalogue());
        addHost(s, QStringLiteral("h"), QStringLiteral("H100-SXM5-80GB"), 1, PartitionMode::Mig);
        Runtime::UnitIds noMig = ids();
        noMig.instanceUuid = [](Domain::CardId, int, int) { return QString(); };
        QString error;
        const auto b = placeAndBind(
                s, migProfile(QStringLiteral("chat"), QStringLiteral("3g.40gb")), noMig, &error);
        QVERIFY(b.isEmpty());
        QVERIFY2(error.contains(QLatin1String("3g.40gb")) && error.contains(QLatin1String("UUID")),
                 qPrintable(error));
    }

    void aPendingJobHasNoBinding()
    {
        Sched::ClusterState s(catalogue());
        addHost(s, QStringLiteral("h"), QStringLiteral("L40S-48GB"), 1, PartitionMode::Whole);
        const Domain::JobId job = s.addJob(wholeCards(QStringLiteral("later"), 1), 0);
        QString error;
        QVERIFY(!Runtime::bindJob(s, job, ids(), 0, &error));
        QVERIFY(error.contains(QLatin1String("holds no units")));
    }
};

QTEST_GUILESS_MAIN(TestBinding)
#include "tst_binding.moc"
