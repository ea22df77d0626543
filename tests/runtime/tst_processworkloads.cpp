// SPDX-License-Identifier: GPL-3.0-or-later
// Real processes for the jobs the scheduler places: launched bound to their units, signalled at
// a checkpoint when preempted, finished or failed by their exit, restarted with back-off when
// they serve. Every process a test starts is gone when it ends.
#include "core/runtime/mpsdaemons.h"
#include "core/runtime/processworkloads.h"
#include "core/sched/scheduler.h"

#include "tests/sched/fixture.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

#include <unistd.h>

using namespace Zhaoxi;
using namespace Zhaoxi::Sched::Test;
using Runtime::ProcessEventCode;

namespace {

Runtime::UnitIds fakeIds()
{
    Runtime::UnitIds ids;
    ids.cardUuid = [](Domain::CardId c) {
        return QStringLiteral("GPU-7e570000-0000-4000-8000-%1")
                .arg(c.value(), 12, 10, QLatin1Char('0'));
    };
    ids.instanceUuid = [](Domain::CardId c, int profile, int start) {
        return QStringLiteral("MIG-%1-%2-%3").arg(c.value()).arg(profile).arg(start);
    };
    return ids;
}

Domain::RunSpec runOf(const QStringList &command)
{
    Domain::RunSpec r;
    r.command = command;
    r.stopGraceMs = 2000;
    return r;
}

// A training job of the shipped demo: checkpoints on SIGUSR1 and every `every` steps.
Domain::WorkloadSpec demoTraining(const QString &name, int priority, int every = 100000)
{
    Domain::WorkloadSpec s = wholeCards(name, 1, priority);
    s.preemption = Domain::PreemptionTolerance::AtCheckpoint;
    s.checkpointIntervalMs = 60'000;
    s.run = runOf({QStringLiteral(DEMO_TRAIN_PATH),
                   QStringLiteral("--steps"),
                   QStringLiteral("1000000"),
                   QStringLiteral("--step-ms"),
                   QStringLiteral("10"),
                   QStringLiteral("--checkpoint-every"),
                   QString::number(every)});
    return s;
}

Domain::WorkloadSpec shellJob(const QString &name, const QString &script, int priority = 0)
{
    Domain::WorkloadSpec s = wholeCards(name, 1, priority);
    s.run = runOf({QStringLiteral("/bin/sh"), QStringLiteral("-c"), script});
    return s;
}

// The scheduler, the runner and the workloads, wired as an appliance wires them.
struct Rig
{
    QTemporaryDir dir;
    Sched::Scheduler sched;
    Runtime::ProcessRunner runner;
    Runtime::ProcessWorkloads work;

    static Sched::ClusterState cards(int n)
    {
        Sched::ClusterState s(catalogue());
        addHost(s,
                QStringLiteral("box"),
                QStringLiteral("H100-SXM5-80GB"),
                n,
                PartitionMode::Whole);
        return s;
    }
    static Runtime::ProcessWorkloads::Options options(const QString &dataDir)
    {
        Runtime::ProcessWorkloads::Options o;
        o.dataDir = dataDir;
        o.restartBackoffMs = 50;
        o.maxRestartBackoffMs = 200;
        o.crashLoopLimit = 3;
        return o;
    }
    static Sched::SchedulerOptions schedOptions()
    {
        Sched::SchedulerOptions o;
        o.preemption.checkpointOnRequest = true;
        o.preemption.maxCheckpointWaitMs = 20'000;
        o.preemption.graceMs = 2000;
        return o;
    }

    explicit Rig(int n = 1)
        : Rig(cards(n), QString())
    {}
    // An appliance come back after a restart: the state it had, its data directory.
    Rig(Sched::ClusterState state, const QString &dataDir, Runtime::UnitIds ids = fakeIds())
        : sched(std::move(state), Sched::defaultProfile(), schedOptions())
        , runner(Runtime::ProcessRunner::Options{QStringLiteral(SHIM_PATH), 20})
        , work(sched, runner, std::move(ids), options(dataDir.isEmpty() ? dir.path() : dataDir))
    {
        QObject::connect(&work, &Runtime::ProcessWorkloads::changed, &work, [this] { tick(); });
    }
    bool abandon = false; // the owner dies: its processes must go on
    ~Rig()
    {
        if (abandon)
            return;
        const QStringList alive = work.stopAll(10'000);
        if (!alive.isEmpty())
            qWarning("processes left alive: %s", qPrintable(alive.join(QLatin1Char(' '))));
    }
    static qint64 now() { return QDateTime::currentMSecsSinceEpoch(); }
    void tick()
    {
        const qint64 t = now();
        sched.tick(t);
        work.sync(t);
    }
    Domain::JobId submit(const Domain::WorkloadSpec &spec)
    {
        const Domain::JobId id = work.submit(spec, now(), nullptr);
        tick();
        return id;
    }
    int count(ProcessEventCode code, Domain::JobId job = {}) const
    {
        int n = 0;
        for (const Runtime::ProcessEvent &e : work.events())
            n += e.code == code && (!job.isValid() || e.job == job);
        return n;
    }
    const Runtime::ProcessEvent *last(ProcessEventCode code, Domain::JobId job = {}) const
    {
        for (qsizetype i = work.events().size() - 1; i >= 0; --i) {
            const Runtime::ProcessEvent &e = work.events()[i];
            if (e.code == code && (!job.isValid() || e.job == job))
                return &e;
        }
        return nullptr;
    }
    // Runs the event loop (the runner's polls), ticking now and then as an appliance does.
    bool waitFor(const std::function<bool()> &done, int ms = 20'000)
    {
        QElapsedTimer t;
        t.start();
        while (!done()) {
            if (t.elapsed() > ms)
                return false;
            QTest::qWait(20);
            tick();
        }
        return true;
    }
    Sched::JobState state(Domain::JobId job) const { return sched.state().job(job).state; }
    QString log(Domain::JobId job, int rank = 0) const
    {
        QFile f(work.jobDir(job) + QStringLiteral("/r%1/log").arg(rank));
        return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
    }
};

bool alive(qint64 pid)
{
    return pid > 0 && ::kill(pid_t(pid), 0) == 0;
}

} // namespace

class TestProcessWorkloads : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aPlacedJobRunsBoundToItsCard()
    {
        Rig rig;
        const Domain::JobId job = rig.submit(demoTraining(QStringLiteral("train"), 0));
        QCOMPARE(rig.count(ProcessEventCode::Started, job), 1);
        const Runtime::ProcessEvent *started = rig.last(ProcessEventCode::Started, job);
        QCOMPARE(started->detail, fakeIds().cardUuid(Domain::CardId(0)));
        QVERIFY(alive(started->pid));
        // The process says what it sees, and reports progress.
        QVERIFY(rig.waitFor([&] { return rig.work.stats(job).lastStep > 0; }));
        QVERIFY2(rig.log(job).contains(QStringLiteral("CUDA_VISIBLE_DEVICES=")
                                       + fakeIds().cardUuid(Domain::CardId(0))),
                 qPrintable(rig.log(job)));
    }

    void preemptedAtACheckpointItResumesFromIt()
    {
        Rig rig;
        const Domain::JobId train = rig.submit(demoTraining(QStringLiteral("train"), 0));
        QVERIFY(rig.waitFor([&] { return rig.work.stats(train).lastStep >= 50; }));

        // A higher-priority job needs the only card: the trainer is asked to checkpoint, leaves
        // once it has, and the card goes to the newcomer.
        const Domain::JobId urgent
                = rig.submit(shellJob(QStringLiteral("urgent"), QStringLiteral("sleep 30"), 10));
        QCOMPARE(rig.state(train), Sched::JobState::Preempting);
        QCOMPARE(rig.count(ProcessEventCode::CheckpointRequested, train), 1);
        QVERIFY(rig.waitFor([&] { return rig.count(ProcessEventCode::Started, urgent) == 1; }));
        QCOMPARE(rig.count(ProcessEventCode::CheckpointAcknowledged, train), 1);
        const qint64 savedStep = rig.last(ProcessEventCode::CheckpointAcknowledged, train)->step;
        QVERIFY(savedStep >= 50);
        QCOMPARE(rig.state(train), Sched::JobState::Pending);
        QCOMPARE(rig.work.stats(train).preemptions, 1);
        QVERIFY(rig.work.processKeys(train).isEmpty());

        // The newcomer goes; the trainer comes back from its checkpoint, losing nothing saved.
        rig.sched.cancel(urgent, Rig::now());
        rig.tick();
        QVERIFY(rig.waitFor([&] { return rig.count(ProcessEventCode::Started, train) == 2; }));
        QVERIFY(rig.waitFor([&] { return rig.work.stats(train).lastStep > savedStep; }));
        QVERIFY2(rig.log(train).contains(QStringLiteral("resum")), qPrintable(rig.log(train)));
        QVERIFY(rig.work.stats(train).lastStep >= savedStep);
        QCOMPARE(rig.work.stats(train).starts, 2);
    }

    // Asked to checkpoint the moment it started (before it could set up its handler, whose
    // default action is to die): the signal waits for its first progress line, and it saves.
    void aCheckpointAskedBeforeTheFirstProgressWaitsForIt()
    {
        Rig rig;
        const Domain::JobId train = rig.submit(demoTraining(QStringLiteral("train"), 0));
        QCOMPARE(rig.count(ProcessEventCode::Started, train), 1);
        rig.sched.requeue(train, Rig::now(), true);
        rig.tick();
        QCOMPARE(rig.count(ProcessEventCode::CheckpointRequested, train), 1);
        QVERIFY(rig.waitFor(
                [&] { return rig.count(ProcessEventCode::CheckpointAcknowledged, train) == 1; }));
        QVERIFY(rig.waitFor([&] {
            return rig.state(train) == Sched::JobState::Running
                   && rig.count(ProcessEventCode::Started, train) == 2;
        }));
        QCOMPARE(rig.count(ProcessEventCode::Failed, train), 0);
    }

    void aNeverJobIsNeverSignalled()
    {
        Rig rig;
        Domain::WorkloadSpec steady = demoTraining(QStringLiteral("steady"), 0);
        steady.preemption = Domain::PreemptionTolerance::Never;
        const Domain::JobId job = rig.submit(steady);
        QVERIFY(rig.waitFor([&] { return rig.work.stats(job).lastStep > 0; }));
        const Domain::JobId urgent
                = rig.submit(shellJob(QStringLiteral("urgent"), QStringLiteral("sleep 30"), 10));
        QTest::qWait(500);
        rig.tick();
        QCOMPARE(rig.state(job), Sched::JobState::Running);
        QCOMPARE(rig.state(urgent), Sched::JobState::Pending);
        QCOMPARE(rig.count(ProcessEventCode::CheckpointRequested, job), 0);
        QCOMPARE(rig.count(ProcessEventCode::Stopping, job), 0);
        QCOMPARE(rig.work.stats(job).checkpoints, 0);
    }

    void anExitZeroFinishesAndTheCardGoesToTheNext()
    {
        Rig rig;
        const Domain::JobId first
                = rig.submit(shellJob(QStringLiteral("first"), QStringLiteral("sleep 0.3")));
        const Domain::JobId next
                = rig.submit(shellJob(QStringLiteral("next"), QStringLiteral("sleep 30")));
        QCOMPARE(rig.state(next), Sched::JobState::Pending);
        QVERIFY(rig.waitFor([&] { return rig.state(first) == Sched::JobState::Finished; }));
        QCOMPARE(rig.count(ProcessEventCode::Finished, first), 1);
        // Placed at once on the exit, not at some later period.
        QCOMPARE(rig.state(next), Sched::JobState::Running);
        QCOMPARE(rig.count(ProcessEventCode::Started, next), 1);
        QCOMPARE(rig.work.stats(first).exitCode, 0);
    }

    void badCommands_data()
    {
        QTest::addColumn<QStringList>("command");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("detail");
        QTest::newRow("missing binary")
                << QStringList{QStringLiteral("/nonexistent/zhaoxi-no-such-program")}
                << int(ProcessEventCode::LaunchFailed) << QStringLiteral("no such file");
        QTest::newRow("not executable")
                << QStringList{QStringLiteral(ZHAOXI_SOURCE_DIR "/README.md")}
                << int(ProcessEventCode::LaunchFailed) << QStringLiteral("not executable");
        QTest::newRow("exits at once")
                << QStringList{QStringLiteral("/bin/sh"),
                               QStringLiteral("-c"),
                               QStringLiteral("echo cannot open dataset >&2; exit 3")}
                << int(ProcessEventCode::Failed) << QStringLiteral("exit status 3");
        QTest::newRow("killed by a signal")
                << QStringList{QStringLiteral("/bin/sh"),
                               QStringLiteral("-c"),
                               QStringLiteral("kill -SEGV $$")}
                << int(ProcessEventCode::Failed) << QStringLiteral("signal 11");
        QTest::newRow("never writes progress")
                << QStringList{QStringLiteral(DEMO_TRAIN_PATH),
                               QStringLiteral("--steps"),
                               QStringLiteral("100000"),
                               QStringLiteral("--no-progress")}
                << int(ProcessEventCode::ProgressStalled) << QStringLiteral("no progress");
    }

    void badCommands()
    {
        QFETCH(QStringList, command);
        QFETCH(int, code);
        QFETCH(QString, detail);
        Rig rig(2);
        // A healthy neighbour on the other card is not disturbed.
        const Domain::JobId neighbour
                = rig.submit(shellJob(QStringLiteral("neighbour"), QStringLiteral("sleep 30")));
        Domain::WorkloadSpec bad = shellJob(QStringLiteral("bad"), QString());
        bad.run->command = command;
        bad.run->progressTimeoutMs = 1000;
        const Domain::JobId job = rig.submit(bad);
        QVERIFY(rig.waitFor([&] { return rig.state(job) == Sched::JobState::Failed; }));
        const Runtime::ProcessEvent *e = rig.last(ProcessEventCode(code), job);
        QVERIFY2(e, "no event of the expected kind");
        QCOMPARE(e->jobName, QStringLiteral("bad"));
        QVERIFY2(e->detail.contains(detail, Qt::CaseInsensitive), qPrintable(e->detail));
        if (QTest::currentDataTag() == QLatin1String("exits at once"))
            QVERIFY2(e->lastLines.join(QLatin1Char('\n'))
                             .contains(QLatin1String("cannot open dataset")),
                     qPrintable(e->lastLines.join(QLatin1Char('|'))));
        QCOMPARE(rig.state(neighbour), Sched::JobState::Running);
        QCOMPARE(rig.count(ProcessEventCode::Stopping, neighbour), 0);
        QCOMPARE(rig.work.processKeys(neighbour).size(), 1);
    }

    void aCrashingReplicaRestartsWithBackOffThenFails()
    {
        Rig rig;
        Domain::WorkloadSpec replica
                = spec(QStringLiteral("chat-0"), Domain::WorkloadKind::Inference);
        replica.demand.compute.kind = Domain::ComputeDemand::Kind::WholeCard;
        replica.run = runOf(
                {QStringLiteral("/bin/sh"), QStringLiteral("-c"), QStringLiteral("exit 1")});
        const Domain::JobId job = rig.submit(replica);
        QVERIFY(rig.waitFor([&] { return rig.state(job) == Sched::JobState::Failed; }));
        QCOMPARE(rig.count(ProcessEventCode::Restarting, job), 2);
        QCOMPARE(rig.count(ProcessEventCode::CrashLoop, job), 1);
        QCOMPARE(rig.work.stats(job).starts, 3);
        // Each restart waits longer than the one before.
        QList<qint64> backoffs;
        for (const Runtime::ProcessEvent &e : rig.work.events())
            if (e.code == ProcessEventCode::Restarting)
                backoffs << e.backoffMs;
        QCOMPARE(backoffs, (QList<qint64>{50, 100}));
    }

    void afterARestartEveryProcessIsAdoptedNotLaunchedAgain()
    {
        QTemporaryDir data;
        auto first = std::make_unique<Rig>(Rig::cards(3), data.path());
        const Domain::JobId train = first->submit(demoTraining(QStringLiteral("train"), 0, 20));
        const Domain::JobId server
                = first->submit(shellJob(QStringLiteral("server"), QStringLiteral("sleep 60")));
        const Domain::JobId doomed
                = first->submit(shellJob(QStringLiteral("doomed"), QStringLiteral("sleep 60")));
        QVERIFY(first->waitFor([&] { return first->work.stats(train).checkpoints >= 1; }));
        const qint64 trainPid = first->last(ProcessEventCode::Started, train)->pid;
        const qint64 serverPid = first->last(ProcessEventCode::Started, server)->pid;
        const qint64 doomedPid = first->last(ProcessEventCode::Started, doomed)->pid;
        const QJsonObject records = first->work.records();
        QCOMPARE(records.value(QStringLiteral("jobs")).toArray().size(), 3);
        const Sched::ClusterState state = first->sched.state();
        // The owner dies without stopping anything; one job dies while nobody watches.
        first->abandon = true;
        first.reset();
        QVERIFY(alive(trainPid) && alive(serverPid));
        ::kill(-pid_t(doomedPid), SIGKILL);
        QTRY_VERIFY(!alive(doomedPid));

        Rig second(state, data.path());
        second.work.adopt(records, Rig::now());
        second.tick();
        QCOMPARE(second.count(ProcessEventCode::Adopted, train), 1);
        QCOMPARE(second.count(ProcessEventCode::Adopted, server), 1);
        QCOMPARE(second.count(ProcessEventCode::Started, train), 0); // never two copies
        QCOMPARE(second.count(ProcessEventCode::Started, server), 0);
        QCOMPARE(second.state(train), Sched::JobState::Running);
        QCOMPARE(second.state(server), Sched::JobState::Running);
        // The one that vanished goes back to the queue from its checkpoint and starts again.
        QCOMPARE(second.count(ProcessEventCode::Vanished, doomed), 1);
        QVERIFY(second.waitFor(
                [&] { return second.count(ProcessEventCode::Started, doomed) == 1; }));
        // The adopted trainer is watched: its progress goes on, and it still obeys a drain.
        const qint64 step = second.work.stats(train).lastStep;
        QVERIFY(second.waitFor([&] { return second.work.stats(train).lastStep > step; }));
        QCOMPARE(second.work.stats(train).starts, 1);
        second.sched.requeue(train, Rig::now(), true);
        second.tick();
        QCOMPARE(second.count(ProcessEventCode::CheckpointRequested, train), 1);
        QVERIFY(second.waitFor([&] { return !alive(trainPid); }));
        QVERIFY(second.count(ProcessEventCode::CheckpointAcknowledged, train) >= 1);
    }

    void theClientsOfAnMpsCardRunAsOneAccount()
    {
        if (::geteuid() != 0)
            QSKIP("needs root to run a job as another account");
        QTemporaryDir data;
        Runtime::MpsDaemons mps(
                {data.filePath(QStringLiteral("mps")), QString(), fakeIds().cardUuid});
        Runtime::UnitIds ids = fakeIds();
        ids.mpsDirs = [&](Domain::CardId c) { return mps.dirs(c); };
        ids.mpsUser = [&](Domain::CardId c) { return mps.clientUser(c); };
        ids.mpsClient = [&](Domain::CardId c, const QString &user, bool coming) {
            coming ? mps.addClient(c, user) : mps.removeClient(c, user);
        };
        Sched::ClusterState state(catalogue());
        addHost(state, QStringLiteral("edge"), QStringLiteral("L40S-48GB"), 1, PartitionMode::Mps);
        mps.follow(state);
        Rig rig(state, data.path(), ids);
        Domain::WorkloadSpec a = fraction(QStringLiteral("embed-a"), 250);
        a.run = runOf({QStringLiteral("/bin/sh"),
                       QStringLiteral("-c"),
                       QStringLiteral("echo share=$CUDA_MPS_ACTIVE_THREAD_PERCENTAGE "
                                      "pipe=$CUDA_MPS_PIPE_DIRECTORY; sleep 30")});
        const Domain::JobId first = rig.submit(a);
        QCOMPARE(rig.count(ProcessEventCode::Started, first), 1);
        QCOMPARE(mps.clientUser(Domain::CardId(0)), QStringLiteral("root"));
        // The MPS variables reach the client.
        QVERIFY(rig.waitFor([&] { return rig.log(first).contains(QLatin1String("share=25 ")); }));
        QVERIFY2(
                rig.log(first).contains(QStringLiteral("pipe=") + mps.dirs(Domain::CardId(0)).pipe),
                qPrintable(rig.log(first)));
        Domain::WorkloadSpec b = a;
        b.name = QStringLiteral("embed-b");
        b.run->user = QStringLiteral("nobody");
        const Domain::JobId other = rig.submit(b);
        QCOMPARE(rig.state(other), Sched::JobState::Failed);
        QVERIFY2(rig.last(ProcessEventCode::LaunchFailed, other)
                         ->detail.contains(QLatin1String("serves root")),
                 qPrintable(rig.last(ProcessEventCode::LaunchFailed, other)->detail));
        Domain::WorkloadSpec c = a;
        c.name = QStringLiteral("embed-c");
        const Domain::JobId same = rig.submit(c);
        QCOMPARE(rig.count(ProcessEventCode::Started, same), 1);
        QCOMPARE(rig.state(first), Sched::JobState::Running);
        // When its last client goes, the daemon serves nobody.
        rig.sched.cancel(first, Rig::now());
        rig.sched.cancel(same, Rig::now());
        rig.tick();
        QVERIFY(rig.waitFor([&] { return mps.clientUser(Domain::CardId(0)).isEmpty(); }));
    }

    void aSpecWithoutRunIsRefusedOnTheRealAppliance()
    {
        Rig rig;
        QString why;
        Domain::WorkloadSpec modelled = wholeCards(QStringLiteral("modelled"), 1);
        QVERIFY(!rig.work.submit(modelled, Rig::now(), &why).isValid());
        QVERIFY2(why.startsWith(QLatin1String("run:")), qPrintable(why));
        QCOMPARE(rig.count(ProcessEventCode::Refused), 1);
        Domain::WorkloadSpec asRoot = shellJob(QStringLiteral("root"), QStringLiteral("true"));
        asRoot.run->user = QStringLiteral("root");
        QVERIFY(!rig.work.submit(asRoot, Rig::now(), &why).isValid());
        QVERIFY2(why.startsWith(QLatin1String("run.user:")), qPrintable(why));
        QCOMPARE(rig.sched.state().jobs().size(), 0);
    }
};

QTEST_GUILESS_MAIN(TestProcessWorkloads)
#include "tst_processworkloads.moc"
