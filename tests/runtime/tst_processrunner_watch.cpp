// SPDX-License-Identifier: GPL-3.0-or-later
// Real processes under zhaoxi-shim, watched: stopped (with SIGKILL after the grace), signalled as a
// group, checkpointed and resumed, and re-adopted by a second runner as after a console restart,
// never when their pid was reused. Every process a test starts is killed in cleanup() and checked
// gone (processrunnertest.h).
#include "tests/runtime/processrunnertest.h"

class TestProcessRunnerWatch : public QObject, protected ProcessRunnerTest
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { checkTools(); }
    void init() { freshRunner(); }
    void cleanup() { cleanUpProcesses(); }

    void stopCooperative()
    {
        QSignalSpy exited(m_runner.get(), &ProcessRunner::exited);
        const auto info = launch(*m_runner,
                                 shell(QStringLiteral("coop"), QStringLiteral("exec sleep 1000")));
        QVERIFY(info);
        QVERIFY(m_runner->isRunning(QStringLiteral("coop")));
        QCOMPARE(m_runner->processes().size(), 1);
        m_runner->stop(QStringLiteral("coop"), SIGTERM, 60000);
        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 1, kWaitMs);
        const ExitInfo e = exitAt(exited, 0);
        QCOMPARE(e.signal, int(SIGTERM));
        QVERIFY(e.requested);
        QVERIFY(!m_runner->isRunning(QStringLiteral("coop")));
        QVERIFY(!m_runner->signal(QStringLiteral("coop"), SIGTERM)); // exited: nothing sent
    }

    void stopEscalatesToKill()
    {
        QSignalSpy exited(m_runner.get(), &ProcessRunner::exited);
        // It ignores SIGTERM, and so does the sleep it runs (an ignored signal stays ignored).
        const auto info = launch(*m_runner,
                                 shell(QStringLiteral("stubborn"),
                                       QStringLiteral("trap '' TERM; echo ready; "
                                                      "while :; do sleep 1; done")));
        QVERIFY(info);
        QTRY_VERIFY_WITH_TIMEOUT(logContains(QStringLiteral("stubborn"), QStringLiteral("ready")),
                                 kWaitMs);
        m_runner->stop(QStringLiteral("stubborn"), SIGTERM, 300);
        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 1, kWaitMs);
        const ExitInfo e = exitAt(exited, 0);
        QCOMPARE(e.signal, int(SIGKILL)); // not SIGTERM: the grace ran out
        QVERIFY(e.requested);
        QVERIFY(!e.vanished);
    }

    void signalReachesTheGroup()
    {
        QSignalSpy exited(m_runner.get(), &ProcessRunner::exited);
        // The shell waits on a child; SIGKILL to the group takes both.
        const auto info = launch(
                *m_runner,
                shell(QStringLiteral("group"), QStringLiteral("sleep 1000 & echo child $!; wait")));
        QVERIFY(info);
        QTRY_VERIFY_WITH_TIMEOUT(logContains(QStringLiteral("group"), QStringLiteral("child ")),
                                 kWaitMs);
        const QString line = m_runner->lastLogLines(QStringLiteral("group"), 1).value(0);
        const qint64 child = line.mid(6).toLongLong();
        QVERIFY(child > 0);
        QCOMPARE(::getpgid(pid_t(child)), pid_t(info->pid));
        QVERIFY(m_runner->signal(QStringLiteral("group"), SIGKILL));
        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 1, kWaitMs);
        QCOMPARE(exitAt(exited, 0).signal, int(SIGKILL));
        QVERIFY(exitAt(exited, 0).requested);
        const auto childGone = [child] {
            char state = '?';
            return startTicksOf(child, &state) == 0 || state == 'Z';
        };
        QTRY_VERIFY_WITH_TIMEOUT(childGone(), kWaitMs);
    }

    void checkpointOnSignalThenResume()
    {
        QSignalSpy exited(m_runner.get(), &ProcessRunner::exited);
        QSignalSpy progressed(m_runner.get(), &ProcessRunner::progressed);
        const QString progress = m_tmp->filePath(QStringLiteral("train.jsonl"));
        const QString ckpt = m_tmp->filePath(QStringLiteral("ckpt"));
        QVERIFY(QDir().mkpath(ckpt));
        const auto trainRequest = [&](qint64 steps) {
            LaunchRequest r = request(QStringLiteral("train-ck"),
                                      {QStringLiteral(DEMO_TRAIN_PATH),
                                       QStringLiteral("--steps=%1").arg(steps),
                                       QStringLiteral("--step-ms=20")});
            r.env.insert(QStringLiteral("ZHAOXI_PROGRESS"), progress);
            r.env.insert(QStringLiteral("ZHAOXI_CHECKPOINT_DIR"), ckpt);
            r.progressPath = progress;
            return r;
        };
        QVERIFY(launch(*m_runner, trainRequest(1000000)));
        QTRY_VERIFY_WITH_TIMEOUT(progressed.count() >= 3, kWaitMs);
        QVERIFY(m_runner->signal(QStringLiteral("train-ck"), SIGUSR1));

        const auto checkpointStep = [&]() -> qint64 {
            for (const QList<QVariant> &args : std::as_const(progressed)) {
                const auto line = qvariant_cast<ProgressLine>(args.at(1));
                if (line.checkpoint)
                    return line.step;
            }
            return -1;
        };
        QTRY_VERIFY_WITH_TIMEOUT(checkpointStep() > 0, kWaitMs);
        const qint64 saved = checkpointStep();
        QTRY_VERIFY_WITH_TIMEOUT(
                logContains(QStringLiteral("train-ck"),
                            QStringLiteral("checkpoint saved at step %1").arg(saved)),
                kWaitMs);
        // a few more steps after the checkpoint, lost when it is stopped
        QTRY_VERIFY_WITH_TIMEOUT(
                qvariant_cast<ProgressLine>(progressed.last().at(1)).step >= saved + 2, kWaitMs);
        m_runner->stop(QStringLiteral("train-ck"), SIGTERM, 60000);
        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 1, kWaitMs);
        ExitInfo e = exitAt(exited, 0);
        QCOMPARE(e.code, 143); // it handles SIGTERM: stops at once, without saving
        QVERIFY(e.requested);
        QVERIFY(e.lastLines.last().contains(QStringLiteral("not saved")));

        QFile state(ckpt + QStringLiteral("/state.json"));
        QVERIFY(state.open(QIODevice::ReadOnly));
        QCOMPARE(QJsonDocument::fromJson(state.readAll())
                         .object()
                         .value(QStringLiteral("step"))
                         .toInteger(),
                 saved);
        state.close();

        // Relaunched under the same key: resumes from the checkpoint, finishes 3 more steps.
        progressed.clear();
        exited.clear();
        QVERIFY(launch(*m_runner, trainRequest(saved + 3)));
        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 1, kWaitMs);
        e = exitAt(exited, 0);
        QCOMPARE(e.code, 0);
        QVERIFY(e.lastLines.contains(QStringLiteral("resuming from step %1").arg(saved)));
        // only the new run's lines are reported, though they share the file with the first run
        QCOMPARE(progressed.count(), 3);
        for (int i = 0; i < 3; ++i)
            QCOMPARE(qvariant_cast<ProgressLine>(progressed.at(i).at(1)).step, saved + 1 + i);
        QVERIFY(qvariant_cast<ProgressLine>(progressed.last().at(1))
                        .checkpoint); // saved at the end
    }

    void periodicCheckpointsBoundLostWork()
    {
        QSignalSpy exited(m_runner.get(), &ProcessRunner::exited);
        QSignalSpy progressed(m_runner.get(), &ProcessRunner::progressed);
        const QString progress = m_tmp->filePath(QStringLiteral("periodic.jsonl"));
        const QString ckpt = m_tmp->filePath(QStringLiteral("ckpt"));
        QVERIFY(QDir().mkpath(ckpt));
        constexpr int every = 5;
        LaunchRequest r = request(QStringLiteral("train-p"),
                                  {QStringLiteral(DEMO_TRAIN_PATH),
                                   QStringLiteral("--steps=1000000"),
                                   QStringLiteral("--step-ms=10"),
                                   QStringLiteral("--checkpoint-every=%1").arg(every)});
        r.env.insert(QStringLiteral("ZHAOXI_PROGRESS"), progress);
        r.env.insert(QStringLiteral("ZHAOXI_CHECKPOINT_DIR"), ckpt);
        r.progressPath = progress;
        QVERIFY(launch(*m_runner, r));
        QTRY_VERIFY_WITH_TIMEOUT(progressed.count() >= 3 * every, kWaitMs);
        m_runner->stop(r.key, SIGTERM, 60000);
        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 1, kWaitMs);
        qint64 lastStep = -1;
        int checkpoints = 0;
        for (const QList<QVariant> &args : std::as_const(progressed)) {
            const auto line = qvariant_cast<ProgressLine>(args.at(1));
            lastStep = line.step;
            if (line.checkpoint) {
                ++checkpoints;
                QCOMPARE(line.step % every, qint64(0));
            }
        }
        QVERIFY(checkpoints >= 2);

        progressed.clear();
        exited.clear();
        r.argv = QStringList{QStringLiteral(DEMO_TRAIN_PATH), QStringLiteral("--steps=1")};
        QVERIFY(launch(*m_runner, r)); // resumes past its --steps: done at once
        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 1, kWaitMs);
        QString resumed;
        for (const QString &l : exitAt(exited, 0).lastLines)
            if (l.startsWith(QLatin1String("resuming from step ")))
                resumed = l;
        const qint64 from = resumed.mid(19).toLongLong();
        QVERIFY2(from > 0 && from % every == 0, qPrintable(resumed));
        QVERIFY2(lastStep - from < every,
                 qPrintable(QStringLiteral("last %1, resumed %2").arg(lastStep).arg(from)));
        QVERIFY(lastStep >= from);
    }

    void adoptAfterRestart()
    {
        const QString key = QStringLiteral("survivor");
        const QString go = m_tmp->filePath(QStringLiteral("go"));
        const auto info = launch(*m_runner,
                                 shell(key,
                                       QStringLiteral("echo up; while [ ! -e %1 ]; do sleep 0.05; "
                                                      "done; echo bye; exit 4")
                                               .arg(shellQuote(go))));
        QVERIFY(info);
        QTRY_VERIFY_WITH_TIMEOUT(logContains(key, QStringLiteral("up")), kWaitMs);
        const QByteArray stored = QJsonDocument(info->toJson()).toJson();

        // The console restarts: its runner goes away without stopping anything.
        m_runner.reset();
        QTest::qWait(100);
        QVERIFY(runs(info->pid, info->startTicks));

        ProcessRunner second(options());
        QSignalSpy exited(&second, &ProcessRunner::exited);
        QString error;
        const auto restored
                = ProcessInfo::fromJson(QJsonDocument::fromJson(stored).object(), &error);
        QVERIFY2(restored, qPrintable(error));
        QCOMPARE(*restored, *info);
        ExitInfo gone;
        QVERIFY(second.adopt(*restored, &gone));
        QVERIFY(second.isRunning(key));
        QCOMPARE(second.processes().size(), 1);
        QCOMPARE(second.processes().first(), *info);
        QVERIFY(!second.adopt(*restored, &gone)); // already watched
        QVERIFY(second.signal(key, 0));           // the identity holds

        QFile(go).open(QIODevice::WriteOnly);
        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 1, kWaitMs);
        const ExitInfo e = exitAt(exited, 0);
        QCOMPARE(e.code, 4);
        QVERIFY(!e.vanished);
        QVERIFY(!e.requested);
        QCOMPARE(e.lastLines.last(), QStringLiteral("bye"));
        QCOMPARE(second.lastLogLines(key, 2),
                 (QStringList{QStringLiteral("up"), QStringLiteral("bye")}));
    }

    void adoptExitedWhileNobodyWatched()
    {
        const QString key = QStringLiteral("ended");
        const QString go = m_tmp->filePath(QStringLiteral("go"));
        const auto info = launch(*m_runner,
                                 shell(key,
                                       QStringLiteral("while [ ! -e %1 ]; do sleep 0.05; done; "
                                                      "echo finished alone; exit 6")
                                               .arg(shellQuote(go))));
        QVERIFY(info);
        m_runner.reset();
        QFile(go).open(QIODevice::WriteOnly);
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(info->dir + QStringLiteral("/exit")), kWaitMs);

        ProcessRunner second(options());
        QSignalSpy exited(&second, &ProcessRunner::exited);
        ExitInfo gone;
        QVERIFY(!second.adopt(*info, &gone));
        QCOMPARE(gone.code, 6);
        QVERIFY(!gone.vanished);
        QCOMPARE(gone.lastLines.last(), QStringLiteral("finished alone"));
        QVERIFY(!second.isRunning(key));
        QTest::qWait(100);
        QCOMPARE(exited.count(), 0); // reported through ifGone, not again
    }

    void adoptVanished()
    {
        // Shim and job both killed while no runner watched: no exit record.
        const QString key = QStringLiteral("lost");
        const auto info
                = launch(*m_runner, shell(key, QStringLiteral("echo here; exec sleep 1000")));
        QVERIFY(info);
        QTRY_VERIFY_WITH_TIMEOUT(logContains(key, QStringLiteral("here")), kWaitMs);
        m_runner.reset();
        QCOMPARE(::kill(pid_t(info->shimPid), SIGKILL), 0);
        QCOMPARE(::waitpid(pid_t(info->shimPid), nullptr, 0), pid_t(info->shimPid));
        QCOMPARE(::kill(pid_t(info->pid), SIGKILL), 0);
        QTRY_VERIFY_WITH_TIMEOUT(!runs(info->pid, info->startTicks), kWaitMs);

        ProcessRunner second(options());
        ExitInfo gone;
        QVERIFY(!second.adopt(*info, &gone));
        QVERIFY(gone.vanished);
        QCOMPARE(gone.code, -1);
        QCOMPARE(gone.lastLines, QStringList{QStringLiteral("here")});
    }

    void adoptedThenVanishes()
    {
        const QString key = QStringLiteral("orphan");
        const auto info = launch(*m_runner, shell(key, QStringLiteral("exec sleep 1000")));
        QVERIFY(info);
        m_runner.reset();
        ProcessRunner second(options());
        QSignalSpy exited(&second, &ProcessRunner::exited);
        ExitInfo gone;
        QVERIFY(second.adopt(*info, &gone));
        // The shim dies first, then the job: nobody writes an exit record.
        QCOMPARE(::kill(pid_t(info->shimPid), SIGKILL), 0);
        // (the runner or we reap it: this process was its parent)
        const auto shimGone = [&] {
            ::waitpid(pid_t(info->shimPid), nullptr, WNOHANG);
            return ::kill(pid_t(info->shimPid), 0) != 0;
        };
        QTRY_VERIFY_WITH_TIMEOUT(shimGone(), kWaitMs);
        QTest::qWait(200);           // several polls
        QCOMPARE(exited.count(), 0); // the job still runs
        QVERIFY(second.isRunning(key));
        QCOMPARE(::kill(pid_t(info->pid), SIGKILL), 0);
        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 1, kWaitMs);
        QVERIFY(exitAt(exited, 0).vanished);
        QVERIFY(!exitAt(exited, 0).requested);
    }

    void pidReusedIsNeitherAdoptedNorSignalled()
    {
        const QString key = QStringLiteral("reused");
        const auto info = launch(*m_runner,
                                 shell(key,
                                       QStringLiteral("trap 'echo got TERM; exit 9' TERM; echo "
                                                      "ready; while :; do sleep 0.05; done")));
        QVERIFY(info);
        QTRY_VERIFY_WITH_TIMEOUT(logContains(key, QStringLiteral("ready")), kWaitMs);
        m_runner.reset();

        // The stored record names this pid, but another process start: the pid was reused.
        ProcessInfo stale = *info;
        stale.startTicks = info->startTicks + 1;
        ProcessRunner second(options());
        ExitInfo gone;
        QVERIFY(!second.adopt(stale, &gone));
        QVERIFY(gone.vanished);
        QVERIFY(!second.isRunning(key));
        QVERIFY(!second.signal(key, SIGTERM));
        second.stop(key, SIGTERM, 0);
        QTest::qWait(300);
        QVERIFY(runs(info->pid, info->startTicks)); // untouched
        QVERIFY(!logContains(key, QStringLiteral("got TERM"), &second));

        // A record naming this very test process with another start time is refused too.
        ProcessInfo other = *info;
        other.key = QStringLiteral("self");
        other.pid = ::getpid();
        other.startTicks = startTicksOf(::getpid()) + 7;
        QVERIFY(!second.adopt(other, &gone));
        QVERIFY(gone.vanished);
    }
};

QTEST_GUILESS_MAIN(TestProcessRunnerWatch)
#include "tst_processrunner_watch.moc"
