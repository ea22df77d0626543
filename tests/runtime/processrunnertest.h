// SPDX-License-Identifier: GPL-3.0-or-later
// What the process runner's tests share (tst_processrunner: launches, exits, refusals, logs,
// limits; tst_processrunner_watch: stops, signals, checkpoints, adoption): real processes under
// zhaoxi-shim in a fresh directory per test, each one killed by cleanUpProcesses() and checked
// gone (the test process is a child subreaper, so orphans come back to it and are reaped there).
#pragma once

#include "core/runtime/processrunner.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <memory>

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace Zhaoxi::Runtime;

namespace {

constexpr int kWaitMs = 60000; // a guard against a hung test only; the machine is shared

// Field 22 of /proc/<pid>/stat, 0 when the pid does not exist; *state gets field 3.
inline quint64 startTicksOf(qint64 pid, char *state = nullptr)
{
    QFile f(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray text = f.readAll();
    const int close = text.lastIndexOf(')');
    if (close < 0)
        return 0;
    const QList<QByteArray> fields = text.mid(close + 2).split(' ');
    if (fields.size() < 20)
        return 0;
    if (state)
        *state = fields[0].at(0);
    return fields[19].toULongLong();
}

inline bool runs(qint64 pid, quint64 ticks)
{
    char state = '?';
    return startTicksOf(pid, &state) == ticks && state != 'Z';
}

inline ExitInfo exitAt(const QSignalSpy &spy, int i)
{
    return qvariant_cast<ExitInfo>(spy.at(i).at(1));
}

inline QString shellQuote(const QString &s)
{
    QString q = s;
    q.replace(QLatin1Char('\''), QLatin1String("'\\''"));
    return QLatin1Char('\'') + q + QLatin1Char('\'');
}

} // namespace

class ProcessRunnerTest
{
protected:
    std::unique_ptr<QTemporaryDir> m_tmp;
    std::unique_ptr<ProcessRunner> m_runner;
    QList<ProcessInfo> m_started; // everything launched, for cleanup()

    static ProcessRunner::Options options()
    {
        ProcessRunner::Options o;
        o.shimPath = QStringLiteral(SHIM_PATH);
        o.pollIntervalMs = 20;
        return o;
    }

    QString dirOf(const QString &key) const { return m_tmp->filePath(key); }

    LaunchRequest request(const QString &key, const QStringList &argv) const
    {
        LaunchRequest r;
        r.key = key;
        r.dir = dirOf(key);
        r.argv = argv;
        return r;
    }

    LaunchRequest shell(const QString &key, const QString &script) const
    {
        return request(key, {QStringLiteral("/bin/sh"), QStringLiteral("-c"), script});
    }

    std::optional<ProcessInfo> launch(ProcessRunner &runner,
                                      const LaunchRequest &r,
                                      QString *error = nullptr)
    {
        QString e;
        auto info = runner.launch(r, &e);
        if (info)
            m_started << *info;
        if (error)
            *error = e;
        else if (!info)
            qWarning("launch %s: %s", qPrintable(r.key), qPrintable(e));
        return info;
    }

    bool logContains(const QString &key, const QString &text, ProcessRunner *runner = nullptr)
    {
        const QStringList lines = (runner ? runner : m_runner.get())->lastLogLines(key, 200);
        for (const QString &l : lines)
            if (l.contains(text))
                return true;
        return false;
    }

    // Each test case's initTestCase().
    void checkTools()
    {
        // Orphans (a job whose shim was killed) are reparented to us, so cleanup() can reap
        // them and check that they are gone.
        QCOMPARE(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
        QVERIFY(QFileInfo(QStringLiteral(SHIM_PATH)).isExecutable());
        QVERIFY(QFileInfo(QStringLiteral(DEMO_TRAIN_PATH)).isExecutable());
    }

    // Each test case's init(): a fresh directory and runner per test.
    void freshRunner()
    {
        m_tmp = std::make_unique<QTemporaryDir>();
        QVERIFY(m_tmp->isValid());
        m_runner = std::make_unique<ProcessRunner>(options());
        m_started.clear();
    }

    // Each test case's cleanup().
    void cleanUpProcesses()
    {
        m_runner.reset();
        for (const ProcessInfo &p : std::as_const(m_started)) {
            if (runs(p.pid, p.startTicks))
                ::kill(-pid_t(p.pid), SIGKILL);
            if (startTicksOf(p.shimPid) == p.shimStartTicks)
                ::kill(pid_t(p.shimPid), SIGKILL);
        }
        const auto allGone = [this] {
            while (::waitpid(-1, nullptr, WNOHANG) > 0) {
            }
            for (const ProcessInfo &p : std::as_const(m_started))
                if (::kill(pid_t(p.pid), 0) == 0 || ::kill(pid_t(p.shimPid), 0) == 0)
                    return false;
            return true;
        };
        QTRY_VERIFY_WITH_TIMEOUT(allGone(), kWaitMs);
        for (const ProcessInfo &p : std::as_const(m_started)) {
            QCOMPARE(::kill(pid_t(p.pid), 0), -1);
            QCOMPARE(errno, ESRCH);
            QCOMPARE(::kill(pid_t(p.shimPid), 0), -1);
        }
        m_started.clear();
        m_tmp.reset();
    }
};
