// SPDX-License-Identifier: GPL-3.0-or-later
// The hardware session running real work on the test double of NVIDIA's library: processes bound
// to the driver's units, the card's use split by whose processes run there, a repartition that
// drains real work and gives the new instances their UUIDs.
#include "tests/session/hardwaresessiontest.h"

#include "core/storage/store.h"

class TestHardwareSessionWork : public QObject, protected HardwareSessionTest
{
    Q_OBJECT

private Q_SLOTS:
    void cleanup() { stopEverythingStarted(); }
    void initTestCase() { openTheFake(); }

    // Issue 13: on NVML cards, each card's use split by whose processes run there: the
    // driver's compute processes matched to the jobs' process sessions, memory per process, the
    // utilisation split by the processes' own samples where the driver has them (not MIG).
    void nvmlProcessesSayWhoseTheCardIs()
    {
        useFixture(threeCards());
        // Metrics to the store at every poll (the partitions' history, below).
        auto s = openForWork(false, m_dir.filePath(QStringLiteral("whose.sqlite")), 1);
        QVERIFY(s);
        s->start();
        QVERIFY(s->runtime());
        QSignalSpy results(s.get(), &HardwareSession::commandFinished);
        s->submitWorkload(1, trainSpec(QStringLiteral("whole"), {{"wholeCard", true}}));
        const Session::CommandResult whole = lastResult(results);
        QVERIFY2(whole.ok, qPrintable(whole.error));
        s->submitWorkload(2, trainSpec(QStringLiteral("slice"), {{"profile", "1g.5gb"}}));
        const Session::CommandResult slice = lastResult(results);
        QVERIFY2(slice.ok, qPrintable(slice.error));
        QTRY_VERIFY_WITH_TIMEOUT(s->runtime()->workloads().liveProcesses().size() == 2, 20000);
        QHash<int, qint64> pidOf;
        for (const Runtime::ProcessInfo &p : s->runtime()->workloads().liveProcesses()) {
            m_spawned << p.pid << p.shimPid;
            const QHash<qint64, Domain::JobId> by = s->runtime()->workloads().jobsBySession();
            pidOf.insert(Runtime::ProcessWorkloads::jobOfPid(by, p.pid).value(), p.pid);
        }
        QVERIFY(pidOf.contains(whole.job.value()) && pidOf.contains(slice.job.value()));
        const qint64 self = QCoreApplication::applicationPid(); // a process Zhaoxi did not start

        // The H200 (NVML index 2): the job's process and this test's, with SM samples.
        QCOMPARE(m_control(QStringLiteral(R"({"utilisation": {"gpu": 2, "value": 80},
                 "processes": {"gpu": 2, "list": [{"pid": %1, "memoryMiB": 30000, "smUtil": 70},
                                                  {"pid": %2, "memoryMiB": 1000, "smUtil": 6}]}})")
                                   .arg(pidOf[whole.job.value()])
                                   .arg(self)
                                   .toUtf8()
                                   .constData()),
                 0);
        // The A100 in MIG mode: the slice's process on its instance (start 4); NVML gives no
        // per-process utilisation under MIG.
        QCOMPARE(m_control(QStringLiteral(R"({"processes": {"gpu": 0, "list":
                 [{"pid": %1, "memoryMiB": 2000, "start": 4}]}})")
                                   .arg(pidOf[slice.job.value()])
                                   .toUtf8()
                                   .constData()),
                 0);
        const Session::SnapshotPtr snap = s->pollNow();
        QVERIFY(snap);
        QCOMPARE(snap->cards.size(), 2);
        const Session::CardSample &h200 = snap->cards[1];
        QCOMPARE(h200.trainingMemoryMiB, 30000);
        QCOMPARE(h200.inferenceMemoryMiB, 0);
        QCOMPARE(h200.otherMemoryMiB, 1000);
        QCOMPARE(h200.otherProcesses, 1);
        QVERIFY(h200.utilisationMeasuredPerProcess);
        QCOMPARE(h200.trainingUtilisation, 0.70);
        QCOMPARE(h200.inferenceUtilisation, 0.0);
        const Session::CardSample &a100 = snap->cards[0];
        QCOMPARE(a100.trainingMemoryMiB, 2000);
        QCOMPARE(a100.otherMemoryMiB, 0);
        QCOMPARE(a100.otherProcesses, 0);
        QVERIFY(!a100.utilisationMeasuredPerProcess);
        // Per partition: the whole H200's processes with the card's utilisation; the A100's
        // slice's process on its own MIG instance, with no utilisation (NVML gives none per
        // instance), and the other instances empty.
        QCOMPARE(h200.units.size(), 1);
        QCOMPARE(h200.units[0].utilisation, 0.80);
        QCOMPARE(h200.units[0].memoryUsedMiB, 31000);
        QCOMPARE(h200.units[0].processes.size(), 2);
        QCOMPARE(h200.units[0].processes[0].job, whole.job.value());
        QCOMPARE(h200.units[0].processes[1].job, -1);
        QCOMPARE(h200.units[0].processes[1].pid, quint32(self));
        QVERIFY(!h200.units[0].processes[1].name.isEmpty()); // this test's command
        int onInstances = 0;
        for (const Session::UnitSample &u : a100.units) {
            QVERIFY(std::isnan(u.utilisation));
            onInstances += int(u.processes.size());
            const Sched::Unit *unit = nullptr;
            for (const Sched::Unit &x : snap->state.cards()[0].units)
                unit = x.uid == u.uid ? &x : unit;
            QVERIFY(unit);
            if (unit->job == slice.job) {
                QCOMPARE(u.memoryUsedMiB, 2000);
                QCOMPARE(u.processes.size(), 1);
                QCOMPARE(qint64(u.processes[0].pid), pidOf[slice.job.value()]);
                QCOMPARE(u.processes[0].job, slice.job.value());
            } else {
                QCOMPARE(u.memoryUsedMiB, 0);
            }
        }
        QCOMPARE(onInstances, 1);

        // A driver that does not say a process's memory: the split is unknown, not zero.
        QCOMPARE(m_control(QStringLiteral(R"({"processes": {"gpu": 2, "list":
                 [{"pid": %1, "memoryMiB": -1, "smUtil": 50}]}})")
                                   .arg(pidOf[whole.job.value()])
                                   .toUtf8()
                                   .constData()),
                 0);
        const Session::SnapshotPtr later = s->pollNow();
        QCOMPARE(later->cards[1].trainingMemoryMiB, -1);
        QCOMPARE(later->cards[1].otherProcesses, 0);
        QCOMPARE(later->cards[1].trainingUtilisation, 0.50);

        // Each partition's readings go to the store once per metric period (a console started
        // again draws them as the partition's history): the slice's instance with its process's
        // memory and no utilisation; the whole H200 has none of its own (its card's series are it).
        QString error;
        QVERIFY2(s->commitNow(&error), qPrintable(error));
        int sliceUid = -1;
        for (const Sched::Unit &u : later->state.cards()[0].units)
            sliceUid = u.job == slice.job ? u.uid : sliceUid;
        QVERIFY(sliceUid >= 0);
        auto reader = Storage::Reader::open(
                s->storePath(), Storage::Reader::OpenMode::RequireCurrent, &error);
        QVERIFY2(reader, qPrintable(error));
        int sliceSeries = 0;
        for (const Storage::LatestMetric &m : reader->latestMetrics()) {
            QVERIFY(!(m.key.card == 1 && m.key.partition >= 0));
            QVERIFY(!(m.key.partition >= 0 && m.key.metric == Storage::Metric::GrEngineActive));
            if (m.key.card == 0 && m.key.partition == sliceUid) {
                ++sliceSeries;
                QCOMPARE(m.key.metric, Storage::Metric::MemoryUsedMiB);
                QCOMPARE(m.point.atMs, later->nowMs);
                QCOMPARE(m.point.value, 2000.0);
                QCOMPARE(m.labels.value(QStringLiteral("GPU_I_PROFILE")), QStringLiteral("1g.5gb"));
            }
        }
        QCOMPARE(sliceSeries, 1);
        s->stop();
    }

    // Issue 13: the console's real appliance runs real work. Processes bound to the driver's
    // units, controlled from the session's commands; read-only MIG does not stop placing on the
    // instances that exist.
    void realWorkRunsBoundToTheDriversUnits()
    {
        useFixture(threeCards());
        const QString store = m_dir.filePath(QStringLiteral("work.sqlite"));
        auto s = openForWork(false, store);
        QVERIFY(s);
        s->start();
        QVERIFY(s->runtime());
        QSignalSpy results(s.get(), &HardwareSession::commandFinished);
        QList<Storage::Event> events;
        connect(s.get(), &HardwareSession::snapshotReady, this, [&](Session::SnapshotPtr snap) {
            events += snap->events;
        });

        // A spec the real appliance cannot run is refused at its field; nothing is submitted.
        QJsonObject noRun = trainSpec(QStringLiteral("no-run"), {{"wholeCard", true}});
        noRun.remove(QStringLiteral("run"));
        s->submitWorkload(1, noRun);
        QCOMPARE(lastResult(results).field, QStringLiteral("run"));
        QVERIFY(!lastResult(results).ok);
        QJsonObject bad = trainSpec(QStringLiteral("bad"), {{"wholeCard", true}});
        bad.insert(QStringLiteral("priority"), QStringLiteral("high"));
        s->submitWorkload(2, bad);
        QCOMPARE(lastResult(results).field, QStringLiteral("priority"));
        QCOMPARE(s->runtime()->scheduler().state().jobs().size(), 0);

        // A whole card: the H200 (state card 1, NVML index 2).
        s->submitWorkload(3, trainSpec(QStringLiteral("whole"), {{"wholeCard", true}}));
        const Session::CommandResult whole = lastResult(results);
        QVERIFY2(whole.ok, qPrintable(whole.error));
        // A MIG slice on the instance that exists (1g.5gb@4): read-only creates nothing.
        s->submitWorkload(4, trainSpec(QStringLiteral("slice"), {{"profile", "1g.5gb"}}));
        const Session::CommandResult slice = lastResult(results);
        QVERIFY2(slice.ok, qPrintable(slice.error));
        const QString migUuid = [&] {
            for (const Device::InstanceInfo &i : s->backend().layout(Domain::CardId(0)).instances)
                if (m_cat.models()[s->backend().cardReports()[0].model].migProfiles[i.profile].name
                    == QLatin1String("1g.5gb"))
                    return i.uuid;
            return QString();
        }();
        QVERIFY(migUuid.startsWith(QLatin1String("MIG-")));
        QTRY_VERIFY_WITH_TIMEOUT(
                logOf(*s, whole.job).contains(QLatin1String("CUDA_VISIBLE_DEVICES=GPU-h200-3b")),
                20000);
        QTRY_VERIFY_WITH_TIMEOUT(
                logOf(*s, slice.job).contains(QStringLiteral("CUDA_VISIBLE_DEVICES=") + migUuid),
                20000);
        QCOMPARE(fakeLayout(*s, 0), QStringList({"3g.20gb@0", "1g.5gb@4"}));
        for (const Runtime::ProcessInfo &p : s->runtime()->workloads().liveProcesses())
            m_spawned << p.pid << p.shimPid;

        // Priority, requeue at the checkpoint (acknowledged, then placed again), cancel.
        s->setJobPriority(5, whole.job.value(), 42);
        QVERIFY(lastResult(results).ok);
        QCOMPARE(s->runtime()->scheduler().state().job(whole.job).spec.priority, 42);
        s->requeueJob(6, whole.job.value());
        QVERIFY(lastResult(results).ok);
        QTRY_VERIFY_WITH_TIMEOUT(s->runtime()->workloads().stats(whole.job).starts == 2, 30000);
        for (const Runtime::ProcessInfo &p : s->runtime()->workloads().liveProcesses())
            m_spawned << p.pid << p.shimPid;
        QVERIFY(s->runtime()->workloads().stats(whole.job).checkpoints >= 1);
        QTRY_VERIFY_WITH_TIMEOUT(
                logOf(*s, whole.job)
                        .contains(QRegularExpression(QStringLiteral("resuming from step [1-9]"))),
                20000);
        s->cancelJob(7, slice.job.value());
        QVERIFY(lastResult(results).ok);
        QTRY_VERIFY_WITH_TIMEOUT(!s->runtime()->workloads().stats(slice.job).running, 20000);
        QCOMPARE(s->runtime()->scheduler().state().job(slice.job).state,
                 Sched::JobState::Cancelled);
        s->cancelJob(8, slice.job.value());
        QVERIFY(!lastResult(results).ok);
        QTRY_VERIFY(countCode(events, "job-priority-changed", whole.job.value()) == 1);
        QVERIFY(countCode(events, "process-started", whole.job.value()) >= 2);
        QVERIFY(countCode(events, "checkpoint-acknowledged", whole.job.value()) >= 1);

        // The console exits: the job runs on; started again, it is adopted, not launched twice.
        const QList<Runtime::ProcessInfo> before = s->runtime()->workloads().liveProcesses();
        for (const Runtime::ProcessInfo &p : before)
            m_spawned << p.pid << p.shimPid;
        QCOMPARE(before.size(), 1);
        s->stop();
        s.reset();
        QVERIFY(::kill(pid_t(before.first().pid), 0) == 0);
        auto again = openForWork(false, store);
        QVERIFY(again);
        again->start();
        QVERIFY(again->runtime());
        const Sched::Job &j = again->runtime()->scheduler().state().job(whole.job);
        QCOMPARE(j.spec.name, QStringLiteral("whole"));
        QVERIFY(j.isActive());
        const QList<Runtime::ProcessInfo> after = again->runtime()->workloads().liveProcesses();
        QCOMPARE(after.size(), 1);
        QCOMPARE(after.first().pid, before.first().pid);
        QCOMPARE(again->runtime()->workloads().stats(whole.job).starts, 2);

        // An administrator's stop ends the work; nothing is left behind.
        QVERIFY(again->stopAllWork(20000).isEmpty());
        QVERIFY(::kill(pid_t(before.first().pid), 0) != 0);
    }

    // A repartition that destroys the instance a job runs on drains it at its checkpoint, then
    // changes the card; the job waits for room and the scheduler creates a new instance for it,
    // which the driver carries out: the job's CUDA_VISIBLE_DEVICES is that instance's UUID as
    // read after its creation. A schedule becomes the policy in force.
    void repartitionDrainsRealWorkAndNewInstancesCarryTheirUuid()
    {
        useFixture(threeCards());
        auto s = openForWork(true, m_dir.filePath(QStringLiteral("drain.sqlite")));
        QVERIFY(s);
        s->start();
        QVERIFY(s->runtime());
        QVERIFY(s->readOnlyProblem().isNone());
        QSignalSpy results(s.get(), &HardwareSession::commandFinished);
        s->submitWorkload(1, trainSpec(QStringLiteral("slice"), {{"profile", "1g.5gb"}}));
        const Session::CommandResult slice = lastResult(results);
        QVERIFY2(slice.ok, qPrintable(slice.error));
        QTRY_VERIFY_WITH_TIMEOUT(s->runtime()->workloads().stats(slice.job).running, 20000);
        for (const Runtime::ProcessInfo &p : s->runtime()->workloads().liveProcesses())
            m_spawned << p.pid << p.shimPid;

        const int before = int(results.size());
        s->applyLayout(2,
                       0,
                       placements("A100-SXM4-40GB", {"3g.20gb@0", "2g.10gb@4"}),
                       Session::ApplyMode::Drain,
                       60'000);
        // Not at once: the job leaves at its checkpoint first.
        QTRY_VERIFY_WITH_TIMEOUT(results.size() > before, 30000);
        const Session::CommandResult applied = lastResult(results);
        QCOMPARE(applied.request, 2u);
        QVERIFY2(applied.ok, qPrintable(applied.error));
        QVERIFY(s->runtime()->workloads().stats(slice.job).checkpoints >= 1);
        QVERIFY(s->runtime()->workloads().stats(slice.job).preemptions >= 1);
        // The job comes back on a new 1g.5gb the scheduler creates in the free slot.
        QTRY_VERIFY_WITH_TIMEOUT(s->runtime()->workloads().stats(slice.job).starts == 2, 30000);
        for (const Runtime::ProcessInfo &p : s->runtime()->workloads().liveProcesses())
            m_spawned << p.pid << p.shimPid;
        QCOMPARE(fakeLayout(*s, 0), QStringList({"3g.20gb@0", "2g.10gb@4", "1g.5gb@6"}));
        QString created;
        for (const Device::InstanceInfo &i : s->backend().layout(Domain::CardId(0)).instances)
            if (i.start == 6)
                created = i.uuid;
        QVERIFY(created.startsWith(QLatin1String("MIG-")));
        QTRY_VERIFY_WITH_TIMEOUT(
                logOf(*s, slice.job).contains(QStringLiteral("CUDA_VISIBLE_DEVICES=") + created),
                20000);

        // The day/night schedule applies to the real appliance too.
        s->setSchedule(3,
                       QJsonObject{{"windows",
                                    QJsonArray{QJsonObject{{"name", "day"},
                                                           {"from", "07:00"},
                                                           {"to", "22:00"},
                                                           {"inferenceShare", 0.5}},
                                               QJsonObject{{"name", "night"},
                                                           {"from", "22:00"},
                                                           {"to", "07:00"},
                                                           {"inferenceShare", 0.1}}}}});
        QVERIFY2(lastResult(results).ok, qPrintable(lastResult(results).error));
        QCOMPARE(s->pollNow()->policy, QStringLiteral("windows"));
        QVERIFY(s->stopAllWork(20000).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestHardwareSessionWork)
#include "tst_hardwaresession_work.moc"
