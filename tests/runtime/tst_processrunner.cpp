// SPDX-License-Identifier: GPL-3.0-or-later
// Real processes on this machine under zhaoxi-shim: started with their environment, their exit
// reported with their last words, refused synchronously when they cannot start, their log
// bounded, their host limits applied. Stops, signals, checkpoints and adoption are in
// tst_processrunner_watch.cpp; every process a test starts is killed in cleanup() and checked gone
// (processrunnertest.h).
#include "tests/runtime/processrunnertest.h"

class TestProcessRunner : public QObject, protected ProcessRunnerTest
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { checkTools(); }
    void init() { freshRunner(); }
    void cleanup() { cleanUpProcesses(); }

    void runsWithTheGivenEnvironment()
    {
        QSignalSpy exited(m_runner.get(), &ProcessRunner::exited);
        LaunchRequest r = shell(QStringLiteral("j1-r0"),
                                QStringLiteral("echo CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES; "
                                               "echo HOME=$HOME; echo PATH=$PATH; pwd"));
        r.env.insert(QStringLiteral("CUDA_VISIBLE_DEVICES"), QStringLiteral("MIG-1234-abcd"));
        r.env.insert(QStringLiteral("PATH"), QStringLiteral("/usr/bin:/bin"));
        const auto info = launch(*m_runner, r);
        QVERIFY(info);
        QCOMPARE(info->key, r.key);
        QVERIFY(info->pid > 0);
        QVERIFY(info->shimPid > 0);
        QVERIFY(info->pid != info->shimPid);
        QVERIFY(info->startTicks > 0);
        QCOMPARE(info->limits, QStringLiteral("none"));
        QVERIFY(QFileInfo(r.dir).isDir());
        QCOMPARE(QFileInfo(r.dir).permissions() & 0x0077, QFileDevice::Permissions());

        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 1, kWaitMs);
        QCOMPARE(exited.at(0).at(0).toString(), r.key);
        const ExitInfo e = exitAt(exited, 0);
        QCOMPARE(e.code, 0);
        QCOMPARE(e.signal, 0);
        QVERIFY(!e.requested);
        QVERIFY(!e.vanished);
        QVERIFY2(e.lastLines.contains(QStringLiteral("CUDA_VISIBLE_DEVICES=MIG-1234-abcd")),
                 qPrintable(e.lastLines.join(QLatin1Char('\n'))));
        QVERIFY(e.lastLines.contains(QStringLiteral("PATH=/usr/bin:/bin"))); // env overrides base
        QVERIFY(e.lastLines.contains(QDir(r.dir).canonicalPath())); // workdir defaults to dir
        QVERIFY(!m_runner->isRunning(r.key));
        QVERIFY(m_runner->processes().isEmpty());
        QCOMPARE(m_runner->lastLogLines(r.key, 1), QStringList{QDir(r.dir).canonicalPath()});

        // the info file holds what launch returned
        QFile infoFile(r.dir + QStringLiteral("/info"));
        QVERIFY(infoFile.open(QIODevice::ReadOnly));
        const auto stored = ProcessInfo::fromJson(
                QJsonDocument::fromJson(infoFile.readAll()).object(), nullptr);
        QVERIFY(stored);
        QCOMPARE(*stored, *info);
    }

    // One shim per directory, whoever asks: a second launch into a directory where a process
    // still runs (an owner restarted without its records would try) is refused by the shim's
    // lock, which names the first one; once it has gone, the directory takes a launch again.
    void oneProcessPerDirectoryWhoeverStartsIt()
    {
        QSignalSpy exited(m_runner.get(), &ProcessRunner::exited);
        const LaunchRequest first = shell(QStringLiteral("j7-r0"), QStringLiteral("sleep 30"));
        const auto info = launch(*m_runner, first);
        QVERIFY(info);
        QFile lock(first.dir + QStringLiteral("/lock"));
        QVERIFY(lock.open(QIODevice::ReadOnly));
        QCOMPARE(lock.readAll().trimmed(),
                 QByteArray::number(info->shimPid) + ' ' + QByteArray::number(info->pid));

        // Another runner (another owner) launching the same rank into the same directory.
        ProcessRunner other(options());
        LaunchRequest second = shell(QStringLiteral("j7-r0"), QStringLiteral("echo twice"));
        second.dir = first.dir;
        QString error;
        QVERIFY(!other.launch(second, &error));
        QVERIFY2(error.contains(QStringLiteral("another process of it still runs")),
                 qPrintable(error));

        m_runner->stop(first.key, SIGKILL, 0);
        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 1, kWaitMs);
        const auto again = other.launch(second, &error);
        QVERIFY2(again, qPrintable(error));
        m_started << *again;
    }

    void demoTrainRunsWithItsBinding()
    {
        QSignalSpy exited(m_runner.get(), &ProcessRunner::exited);
        QSignalSpy progressed(m_runner.get(), &ProcessRunner::progressed);
        LaunchRequest r = request(QStringLiteral("train-1"),
                                  {QStringLiteral(DEMO_TRAIN_PATH),
                                   QStringLiteral("--steps"),
                                   QStringLiteral("5"),
                                   QStringLiteral("--step-ms"),
                                   QStringLiteral("10")});
        r.env.insert(QStringLiteral("CUDA_VISIBLE_DEVICES"), QStringLiteral("GPU-5678"));
        r.env.insert(QStringLiteral("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"), QStringLiteral("50"));
        r.env.insert(QStringLiteral("ZHAOXI_PROGRESS"), m_tmp->filePath(QStringLiteral("p.jsonl")));
        r.progressPath = m_tmp->filePath(QStringLiteral("p.jsonl"));
        QVERIFY(launch(*m_runner, r));
        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 1, kWaitMs);
        const ExitInfo e = exitAt(exited, 0);
        QCOMPARE(e.code, 0);
        QVERIFY(e.lastLines.contains(QStringLiteral("CUDA_VISIBLE_DEVICES=GPU-5678")));
        QVERIFY(e.lastLines.contains(QStringLiteral("resuming from step 0")));
        QVERIFY(e.lastLines.contains(
                QStringLiteral("step time 20 ms"))); // half a share: twice as long
        // every line it wrote came before exited
        QCOMPARE(progressed.count(), 5);
        for (int i = 0; i < 5; ++i) {
            const auto line = qvariant_cast<ProgressLine>(progressed.at(i).at(1));
            QCOMPARE(line.step, qint64(i + 1));
            QVERIFY(line.loss > 0);
            QVERIFY(line.samplesPerS > 0);
            QVERIFY(line.readMs > 0);
        }
    }

    // A process's end and a signalled process's checkpoint line are noticed on the next poll,
    // not at the next sweep (here an hour away, beyond the test's wait: only the pidfd notice
    // and the signalled process's fast reads can pass).
    void endsAndAcknowledgementsDoNotWaitForTheSweep()
    {
        ProcessRunner::Options o = options();
        o.sweepIntervalMs = 3'600'000;
        ProcessRunner runner(o);
        QSignalSpy exited(&runner, &ProcessRunner::exited);
        QSignalSpy progressed(&runner, &ProcessRunner::progressed);
        QVERIFY(launch(runner, shell(QStringLiteral("ends"), QStringLiteral("sleep 0.3; exit 3"))));
        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 1, kWaitMs);
        QCOMPARE(exitAt(exited, 0).code, 3);

        const QString progress = m_tmp->filePath(QStringLiteral("ack.jsonl"));
        LaunchRequest r = shell(QStringLiteral("acks"),
                                QStringLiteral("trap 'echo \"{\\\"step\\\": 7, "
                                               "\\\"checkpoint\\\": true}\" >> %1' USR1; "
                                               "echo ready; while :; do sleep 0.05; done")
                                        .arg(progress));
        r.progressPath = progress;
        const auto info = launch(runner, r);
        QVERIFY(info);
        QTRY_VERIFY_WITH_TIMEOUT(
                logContains(QStringLiteral("acks"), QStringLiteral("ready"), &runner),
                kWaitMs); // its trap is set
        QVERIFY(runner.signal(QStringLiteral("acks"), SIGUSR1));
        QTRY_VERIFY_WITH_TIMEOUT(!progressed.isEmpty(), kWaitMs);
        const auto line = qvariant_cast<ProgressLine>(progressed.last().at(1));
        QCOMPARE(line.step, qint64(7));
        QVERIFY(line.checkpoint);
        runner.stop(QStringLiteral("acks"), SIGTERM, 0);
        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 2, kWaitMs);
    }

    void noProgressWritesNothing()
    {
        QSignalSpy exited(m_runner.get(), &ProcessRunner::exited);
        QSignalSpy progressed(m_runner.get(), &ProcessRunner::progressed);
        const QString progress = m_tmp->filePath(QStringLiteral("none.jsonl"));
        LaunchRequest r = request(QStringLiteral("train-np"),
                                  {QStringLiteral(DEMO_TRAIN_PATH),
                                   QStringLiteral("--steps=3"),
                                   QStringLiteral("--step-ms=5"),
                                   QStringLiteral("--no-progress")});
        r.env.insert(QStringLiteral("ZHAOXI_PROGRESS"), progress);
        r.progressPath = progress;
        QVERIFY(launch(*m_runner, r));
        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 1, kWaitMs);
        QCOMPARE(exitAt(exited, 0).code, 0);
        QCOMPARE(progressed.count(), 0);
        QVERIFY(!QFile::exists(progress));
    }

    void exitStatus_data()
    {
        QTest::addColumn<QString>("script");
        QTest::addColumn<int>("code");
        QTest::addColumn<int>("signal");
        QTest::addColumn<QString>("lastLine");

        QTest::newRow("exit 0") << QStringLiteral("echo fine") << 0 << 0 << QStringLiteral("fine");
        QTest::newRow("exit 3") << QStringLiteral("echo failing >&2; exit 3") << 3 << 0
                                << QStringLiteral("failing");
        QTest::newRow("exit 255") << QStringLiteral("echo a; echo b; exit 255") << 255 << 0
                                  << QStringLiteral("b");
        QTest::newRow("killed by SIGKILL") << QStringLiteral("echo about to die; kill -KILL $$")
                                           << -1 << int(SIGKILL) << QStringLiteral("about to die");
        QTest::newRow("killed by SIGTERM") << QStringLiteral("echo terminated; kill -TERM $$") << -1
                                           << int(SIGTERM) << QStringLiteral("terminated");
        QTest::newRow("no newline at the end") << QStringLiteral("printf 'partial'; exit 1") << 1
                                               << 0 << QStringLiteral("partial");
    }

    void exitStatus()
    {
        QFETCH(QString, script);
        QFETCH(int, code);
        QFETCH(int, signal);
        QFETCH(QString, lastLine);
        QSignalSpy exited(m_runner.get(), &ProcessRunner::exited);
        QVERIFY(launch(*m_runner, shell(QStringLiteral("exit-test"), script)));
        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 1, kWaitMs);
        const ExitInfo e = exitAt(exited, 0);
        QCOMPARE(e.code, code);
        QCOMPARE(e.signal, signal);
        QVERIFY(!e.requested);
        QVERIFY(!e.vanished);
        QVERIFY(!e.lastLines.isEmpty());
        QCOMPARE(e.lastLines.last(), lastLine);
    }

    void demoTrainFailAt()
    {
        QSignalSpy exited(m_runner.get(), &ProcessRunner::exited);
        QVERIFY(launch(*m_runner,
                       request(QStringLiteral("train-fail"),
                               {QStringLiteral(DEMO_TRAIN_PATH),
                                QStringLiteral("--steps=50"),
                                QStringLiteral("--step-ms=5"),
                                QStringLiteral("--fail-at=4")})));
        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 1, kWaitMs);
        const ExitInfo e = exitAt(exited, 0);
        QCOMPARE(e.code, 3);
        QCOMPARE(e.lastLines.last(), QStringLiteral("failing at step 4 as asked"));
    }

    void refusedSynchronously_data()
    {
        QTest::addColumn<QString>("program"); // relative to the temporary dir when it starts "@"
        QTest::addColumn<QString>("workdir");
        QTest::addColumn<QString>("user");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("error");

        QTest::newRow("missing binary")
                << QStringLiteral("/nonexistent/zhaoxi-prog") << QString() << QString()
                << QStringLiteral("k")
                << QStringLiteral("cannot start \"/nonexistent/zhaoxi-prog\": "
                                  "no such file");
        QTest::newRow("name not in PATH")
                << QStringLiteral("zhaoxi-no-such-program") << QString() << QString()
                << QStringLiteral("k")
                << QStringLiteral("cannot start \"zhaoxi-no-such-program\": no such file (not "
                                  "found in PATH)");
        QTest::newRow("not executable")
                << QStringLiteral("@plain.txt") << QString() << QString() << QStringLiteral("k")
                << QStringLiteral("not executable / permission denied");
        QTest::newRow("missing workdir")
                << QStringLiteral("/bin/true") << QStringLiteral("/nonexistent/work") << QString()
                << QStringLiteral("k")
                << QStringLiteral("cannot change to directory \"/nonexistent/work\"");
        QTest::newRow("unknown user")
                << QStringLiteral("/bin/true") << QString() << QStringLiteral("zhaoxi-no-such-user")
                << QStringLiteral("k") << QStringLiteral("no such user \"zhaoxi-no-such-user\"");
        QTest::newRow("bad key") << QStringLiteral("/bin/true") << QString() << QString()
                                 << QStringLiteral("a/b")
                                 << QStringLiteral("key \"a/b\" is not valid");
        QTest::newRow("dot-dot key") << QStringLiteral("/bin/true") << QString() << QString()
                                     << QStringLiteral("..") << QStringLiteral("is not valid");
    }

    void refusedSynchronously()
    {
        QFETCH(QString, program);
        QFETCH(QString, workdir);
        QFETCH(QString, user);
        QFETCH(QString, key);
        QFETCH(QString, error);
        if (program.startsWith(QLatin1Char('@'))) {
            program = m_tmp->filePath(program.mid(1));
            QFile f(program);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("#!/bin/sh\necho should not run\n");
            f.close();
            QVERIFY(f.setPermissions(QFile::ReadOwner | QFile::WriteOwner));
        }
        QSignalSpy exited(m_runner.get(), &ProcessRunner::exited);
        LaunchRequest r = request(key, {program});
        r.dir = m_tmp->filePath(QStringLiteral("refused"));
        r.workdir = workdir;
        r.user = user;
        QString message;
        const auto info = launch(*m_runner, r, &message);
        QVERIFY(!info);
        QVERIFY2(message.contains(error), qPrintable(message));
        QVERIFY(!m_runner->isRunning(key));
        QVERIFY(m_runner->processes().isEmpty());
        // the shim it may have started is already reaped: no child of ours is left
        QCOMPARE(::waitpid(-1, nullptr, WNOHANG), -1);
        QCOMPARE(errno, ECHILD);
        QTest::qWait(50); // give a stray exited signal the chance to show up
        QCOMPARE(exited.count(), 0);
    }

    void launchGivenUpLeavesNothing_data()
    {
        // The shim path is a wrapper script; @ stands for the temporary directory, SHIM for the
        // real shim. Every pid of the launch is written to {TMP}/pids: the wrapper's (the shim's
        // once it execs it), a sleeper it starts, and the job's (`job` below).
        QTest::addColumn<QString>("wrapper");
        QTest::addColumn<int>("pids");        // lines {TMP}/pids holds once the launch is given up
        QTest::addColumn<QString>("message"); // in the launch's error
        QTest::addColumn<bool>("timedOut");   // the launch timeout struck (not an end of file)
        QTest::newRow("the wrapper is slow to exec the shim")
                << QStringLiteral("sleep 1000 &\necho $! >> {TMP}/pids\nwait\nexec {SHIM} \"$@\"\n")
                << 2 << QStringLiteral("the shim gave no status within 2000 ms") << true;
        // The shim reports to /dev/null while a sleeper holds the runner's status pipe open: the
        // job runs, and the runner hears nothing until its timeout.
        QTest::newRow("the status never comes while the job runs")
                << QStringLiteral("sleep 1000 &\necho $! >> {TMP}/pids\nshift 2\n"
                                  "exec {SHIM} --status-fd 9 \"$@\" 9>/dev/null\n")
                << 3 << QStringLiteral("the shim gave no status within 2000 ms") << true;
        // The pipe is held until the job has started, then closed without a word.
        QTest::newRow("the status pipe closes without a word after the job started")
                << QStringLiteral("(while [ ! -s {TMP}/job ]; do sleep 0.01; done) &\n"
                                  "echo $! >> {TMP}/pids\nshift 2\n"
                                  "exec {SHIM} --status-fd 9 \"$@\" 9>/dev/null\n")
                << 3 << QStringLiteral("the shim gave no status") << false;
    }

    void launchGivenUpLeavesNothing()
    {
        QFETCH(QString, wrapper);
        QFETCH(int, pids);
        QFETCH(QString, message);
        QFETCH(bool, timedOut);
        const QString tmp = shellQuote(m_tmp->path());
        const QString script = m_tmp->filePath(QStringLiteral("wrapper.sh"));
        {
            QFile f(script);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QStringLiteral("#!/bin/sh\necho $$ >> {TMP}/pids\n")
                            .append(wrapper)
                            .replace(QLatin1String("{TMP}"), tmp)
                            .replace(QLatin1String("{SHIM}"), shellQuote(QStringLiteral(SHIM_PATH)))
                            .toLocal8Bit());
            f.close();
            QVERIFY(f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
        }
        // Whatever happens below, every pid the launch wrote down is killed and reaped.
        struct Killer
        {
            QString path;
            ~Killer()
            {
                QFile f(path);
                if (!f.open(QIODevice::ReadOnly))
                    return;
                for (const QByteArray &line : f.readAll().split('\n')) {
                    const qint64 pid = line.trimmed().toLongLong();
                    QFile comm(QStringLiteral("/proc/%1/comm").arg(pid));
                    // only what is still one of this test's (a sleep, the wrapper or the shim)
                    if (pid > 0 && comm.open(QIODevice::ReadOnly)) {
                        const QByteArray name = comm.readAll().trimmed();
                        if (name == "sleep" || name == "sh" || name == "wrapper.sh"
                            || name == "zhaoxi-shim")
                            ::kill(pid_t(pid), SIGKILL);
                    }
                }
                while (::waitpid(-1, nullptr, WNOHANG) > 0) {
                }
            }
        } killer{m_tmp->filePath(QStringLiteral("pids"))};

        ProcessRunner::Options o = options();
        o.shimPath = script;
        o.launchTimeoutMs = 2000;
        ProcessRunner runner(o);
        QSignalSpy exited(&runner, &ProcessRunner::exited);
        QString error;
        const auto info = launch(
                runner,
                shell(QStringLiteral("given-up"),
                      QStringLiteral("echo $$ >> %1/pids; echo $$ > %1/job; exec sleep 1000")
                              .arg(tmp)),
                &error);
        QVERIFY(!info);
        QVERIFY2(error.contains(message), qPrintable(error));
        QCOMPARE(error.contains(QLatin1String("within")), timedOut);
        QVERIFY(!runner.isRunning(QStringLiteral("given-up")));

        QFile f(killer.path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QList<qint64> written;
        for (const QByteArray &line : f.readAll().split('\n'))
            if (!line.trimmed().isEmpty())
                written << line.trimmed().toLongLong();
        // The premise: what the row starts had started when the launch was given up.
        const auto said = [this](const QString &name) {
            QFile file(dirOf(QStringLiteral("given-up")) + QLatin1Char('/') + name);
            return file.open(QIODevice::ReadOnly) ? QString::fromLocal8Bit(file.readAll())
                                                  : QString();
        };
        QVERIFY2(written.size() == pids,
                 qPrintable(QStringLiteral("%1 pids written, %2 expected; shim.err: %3; log: %4")
                                    .arg(written.size())
                                    .arg(pids)
                                    .arg(said(QStringLiteral("shim.err")),
                                         said(QStringLiteral("log")))));
        // Orphans come back to this test (a subreaper): reap them, then none may be left.
        const auto allGone = [&] {
            while (::waitpid(-1, nullptr, WNOHANG) > 0) {
            }
            for (const qint64 pid : std::as_const(written))
                if (::kill(pid_t(pid), 0) == 0 || errno != ESRCH)
                    return false;
            return true;
        };
        QTRY_VERIFY2_WITH_TIMEOUT(allGone(), "a process of the given-up launch is alive", 15000);
        QTest::qWait(50); // give a stray exited signal the chance to show up
        QCOMPARE(exited.count(), 0);
    }

    void keyInUseIsRefused()
    {
        QVERIFY(launch(*m_runner, shell(QStringLiteral("dup"), QStringLiteral("exec sleep 1000"))));
        QString message;
        QVERIFY(!launch(*m_runner, shell(QStringLiteral("dup"), QStringLiteral("true")), &message));
        QVERIFY2(message.contains(QStringLiteral("in use")), qPrintable(message));
        QCOMPARE(m_runner->processes().size(), 1);
    }

    void logIsBounded()
    {
        QSignalSpy exited(m_runner.get(), &ProcessRunner::exited);
        constexpr qint64 limit = 8192;
        LaunchRequest r = shell(QStringLiteral("chatty"),
                                QStringLiteral("i=0; while [ $i -lt 3000 ]; do "
                                               "echo \"line $i ..............................\"; "
                                               "i=$((i+1)); done"));
        r.logLimitBytes = limit;
        QVERIFY(launch(*m_runner, r));
        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 1, kWaitMs);
        const ExitInfo e = exitAt(exited, 0);
        QCOMPARE(e.code, 0);
        const qint64 kept = QFileInfo(r.dir + QStringLiteral("/log")).size()
                            + QFileInfo(r.dir + QStringLiteral("/log.1")).size();
        QVERIFY2(kept <= limit, qPrintable(QString::number(kept)));
        QVERIFY(kept >= limit / 2); // the newest half at least
        QCOMPARE(e.lastLines.size(), 20);
        for (int i = 0; i < 20; ++i)
            QCOMPARE(e.lastLines.at(i),
                     QStringLiteral("line %1 ..............................").arg(2980 + i));
        // the oldest are gone
        QFile log1(r.dir + QStringLiteral("/log.1"));
        QVERIFY(log1.open(QIODevice::ReadOnly));
        QVERIFY(!log1.readAll().contains("line 0 "));
    }

    void logLimitTooSmallIsRefused()
    {
        LaunchRequest r = shell(QStringLiteral("tiny"), QStringLiteral("true"));
        r.logLimitBytes = 100;
        QString message;
        QVERIFY(!launch(*m_runner, r, &message));
        QVERIFY2(message.contains(QStringLiteral("logLimitBytes")), qPrintable(message));
    }

    void runsAsAnotherUser()
    {
        if (::geteuid() != 0)
            QSKIP("switching accounts needs root");
        QSignalSpy exited(m_runner.get(), &ProcessRunner::exited);
        LaunchRequest r = shell(QStringLiteral("as-nobody"),
                                QStringLiteral("id -u; id -g; echo USER=$USER; touch x && echo "
                                               "wrote"));
        r.user = QStringLiteral("nobody");
        // Its own directory is given to the account, but the temporary dir above it is 0700.
        QVERIFY(QFile::setPermissions(m_tmp->path(),
                                      QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner
                                              | QFile::ExeGroup | QFile::ExeOther));
        QVERIFY(launch(*m_runner, r));
        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 1, kWaitMs);
        const ExitInfo e = exitAt(exited, 0);
        QCOMPARE(e.code, 0);
        QCOMPARE(e.lastLines,
                 (QStringList{QStringLiteral("65534"),
                              QString::number(QFileInfo(r.dir).groupId()),
                              QStringLiteral("USER=nobody"),
                              QStringLiteral("wrote")}));
        QCOMPARE(QFileInfo(r.dir).ownerId(), uint(65534));
        QCOMPARE(QFileInfo(r.dir + QStringLiteral("/x")).ownerId(), uint(65534));
    }

    void limits_data()
    {
        QTest::addColumn<qint64>("memoryMiB");
        QTest::addColumn<qint64>("cpuMilli");
        QTest::addColumn<QString>("limits");
        QTest::addColumn<QString>("ulimit"); // `ulimit -d`, in KiB

        QTest::newRow("memory") << qint64(64) << qint64(0) << QStringLiteral("rlimit")
                                << QStringLiteral("65536");
        QTest::newRow("memory and cpu") << qint64(128) << qint64(1500) << QStringLiteral("rlimit")
                                        << QStringLiteral("131072");
        QTest::newRow("cpu only: not applied")
                << qint64(0) << qint64(500) << QStringLiteral("none") << QString();
        QTest::newRow("nothing asked")
                << qint64(0) << qint64(0) << QStringLiteral("none") << QString();
    }

    void limits()
    {
        if (QFileInfo::exists(QStringLiteral("/run/systemd/system")))
            QSKIP("systemd runs here: limits go to a systemd scope, not to rlimits");
        QFETCH(qint64, memoryMiB);
        QFETCH(qint64, cpuMilli);
        QFETCH(QString, limits);
        QFETCH(QString, ulimit);
        QSignalSpy exited(m_runner.get(), &ProcessRunner::exited);
        LaunchRequest r = shell(QStringLiteral("limited"), QStringLiteral("ulimit -d"));
        r.memoryLimitMiB = memoryMiB;
        r.cpuMilli = cpuMilli;
        const auto info = launch(*m_runner, r);
        QVERIFY(info);
        QCOMPARE(info->limits, limits);
        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 1, kWaitMs);
        const ExitInfo e = exitAt(exited, 0);
        QCOMPARE(e.code, 0);
        struct rlimit own = {};
        ::getrlimit(RLIMIT_DATA, &own);
        const QString expected = !ulimit.isEmpty() ? ulimit
                                 : own.rlim_cur == RLIM_INFINITY
                                         ? QStringLiteral("unlimited")
                                         : QString::number(own.rlim_cur / 1024);
        QCOMPARE(e.lastLines.last(), expected);
    }

    void progressErrorsAreReported()
    {
        QSignalSpy exited(m_runner.get(), &ProcessRunner::exited);
        QSignalSpy progressed(m_runner.get(), &ProcessRunner::progressed);
        QSignalSpy errors(m_runner.get(), &ProcessRunner::progressError);
        const QString progress = m_tmp->filePath(QStringLiteral("bad.jsonl"));
        LaunchRequest r = shell(QStringLiteral("bad-progress"),
                                QStringLiteral("printf '{\"step\":\"x\"}\\n{\"step\":2}\\n' >> %1")
                                        .arg(shellQuote(progress)));
        r.progressPath = progress;
        QVERIFY(launch(*m_runner, r));
        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 1, kWaitMs);
        QCOMPARE(errors.count(), 1);
        QCOMPARE(errors.at(0).at(0).toString(), r.key);
        QVERIFY2(errors.at(0).at(1).toString().startsWith(
                         QLatin1String("progress line 1: field \"step\"")),
                 qPrintable(errors.at(0).at(1).toString()));
        QCOMPARE(progressed.count(), 1);
        QCOMPARE(qvariant_cast<ProgressLine>(progressed.at(0).at(1)).step, qint64(2));
    }

    void processInfoJson_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QJsonValue>("value"); // Undefined: removed
        QTest::addColumn<QString>("error");

        QTest::newRow("missing key") << QStringLiteral("key") << QJsonValue(QJsonValue::Undefined)
                                     << QStringLiteral("field \"key\" must be a string");
        QTest::newRow("bad key") << QStringLiteral("key") << QJsonValue(QStringLiteral("a b"))
                                 << QStringLiteral("field \"key\": \"a b\" is not a valid key");
        QTest::newRow("relative dir") << QStringLiteral("dir") << QJsonValue(QStringLiteral("x"))
                                      << QStringLiteral("field \"dir\" must be an absolute path");
        QTest::newRow("pid zero") << QStringLiteral("pid") << QJsonValue(0)
                                  << QStringLiteral("field \"pid\" must be an integer >= 1");
        QTest::newRow("pid as text") << QStringLiteral("pid") << QJsonValue(QStringLiteral("12"))
                                     << QStringLiteral("field \"pid\" must be an integer >= 1");
        QTest::newRow("ticks not decimal")
                << QStringLiteral("start_ticks") << QJsonValue(QStringLiteral("12x"))
                << QStringLiteral("field \"start_ticks\" must be a decimal number");
        QTest::newRow("unknown limits")
                << QStringLiteral("limits") << QJsonValue(QStringLiteral("cgroup"))
                << QStringLiteral("field \"limits\" must be");
        QTest::newRow("argv not strings") << QStringLiteral("argv") << QJsonValue(QJsonArray{1, 2})
                                          << QStringLiteral("field \"argv\" must be an array of "
                                                            "strings");
    }

    void processInfoJson()
    {
        QFETCH(QString, field);
        QFETCH(QJsonValue, value);
        QFETCH(QString, error);
        ProcessInfo info;
        info.key = QStringLiteral("j3-r1");
        info.dir = QStringLiteral("/var/lib/zhaoxi/j3-r1");
        info.argv = QStringList{QStringLiteral("/usr/bin/python3"), QStringLiteral("train.py")};
        info.progressPath = QStringLiteral("/var/lib/zhaoxi/j3-r1/progress.jsonl");
        info.shimPid = 4000;
        info.shimStartTicks = 123456789012345ULL;
        info.pid = 4001;
        info.startTicks = 18446744073709551615ULL; // beyond what a JSON number holds exactly
        info.startedMs = 1733040000000;
        info.limits = QStringLiteral("rlimit");
        const QJsonObject json = info.toJson();
        const auto back = ProcessInfo::fromJson(
                QJsonDocument::fromJson(QJsonDocument(json).toJson()).object(), nullptr);
        QVERIFY(back);
        QCOMPARE(*back, info);

        QJsonObject broken = json;
        if (value.isUndefined())
            broken.remove(field);
        else
            broken.insert(field, value);
        QString message;
        QVERIFY(!ProcessInfo::fromJson(broken, &message));
        QVERIFY2(message.startsWith(error), qPrintable(message));
    }
};

QTEST_GUILESS_MAIN(TestProcessRunner)
#include "tst_processrunner.moc"
