// SPDX-License-Identifier: GPL-3.0-or-later
// What the tests against a real local Slurm cluster (scripts/slurm-local) share: running a
// program with a bound on its time, and the bounds on bringing a cluster up and down.
#pragma once

#include <QFile>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace Zhaoxi::TestSlurm {

constexpr int kUpTimeoutMs = 240 * 1000; // a fresh machine installs the Debian packages first
constexpr int kDownTimeoutMs = 90 * 1000;

struct Run
{
    int rc = -1; // -1: it did not exit by itself (could not start, timed out, crashed)
    QString out;
    QString err;
};

// Runs `program` with stdin from /dev/null, for at most `timeoutMs` (then killed).
inline Run runProgram(const QString &program,
                      const QStringList &args,
                      int timeoutMs,
                      const QString &workdir,
                      const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    if (!workdir.isEmpty())
        p.setWorkingDirectory(workdir);
    p.setStandardInputFile(QProcess::nullDevice());
    p.start(program, args);
    Run r;
    if (!p.waitForStarted(10000)) {
        r.err = QStringLiteral("cannot start %1: %2").arg(program, p.errorString());
        return r;
    }
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished(5000);
        r.err = QStringLiteral("%1 %2 did not finish within %3 ms")
                        .arg(program, args.join(QLatin1Char(' ')))
                        .arg(timeoutMs);
    }
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err += QString::fromUtf8(p.readAllStandardError());
    if (p.exitStatus() == QProcess::NormalExit && r.rc == -1)
        r.rc = p.exitCode();
    return r;
}

inline Run runProgram(const QString &program,
                      const QStringList &args,
                      int timeoutMs,
                      const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    return runProgram(program, args, timeoutMs, QString(), env);
}

// What `scripts/slurm-local up` printed, or why it failed (its exit code and the tail of stderr).
struct ClusterUp
{
    QString rest;
    QString tokenFile;
    QString slurmConf;
    QString error;
    bool ok() const { return error.isEmpty(); }
};

// Lets slurmrestd (it runs as nobody and reads the cluster's files) into `dir`, then brings a
// cluster up in `clusterDir` (under `dir`) with `extra` options such as --accounting.
inline ClusterUp bringUp(const QString &slurmLocal,
                         const QString &dir,
                         const QString &clusterDir,
                         const QStringList &extra = {})
{
    ClusterUp up;
    if (!QFile::setPermissions(dir,
                               QFileDevice::ReadOwner | QFileDevice::WriteOwner
                                       | QFileDevice::ExeOwner | QFileDevice::ReadGroup
                                       | QFileDevice::ExeGroup | QFileDevice::ReadOther
                                       | QFileDevice::ExeOther)) {
        up.error = QStringLiteral("cannot let others into %1").arg(dir);
        return up;
    }
    const Run r = runProgram(slurmLocal,
                             QStringList{QStringLiteral("up")} + extra
                                     + QStringList{QStringLiteral("--dir"), clusterDir},
                             kUpTimeoutMs);
    for (const QString &line : r.out.split(QLatin1Char('\n'))) {
        if (line.startsWith(QLatin1String("REST_URL=")))
            up.rest = line.mid(9);
        else if (line.startsWith(QLatin1String("TOKEN_FILE=")))
            up.tokenFile = line.mid(11);
        else if (line.startsWith(QLatin1String("SLURM_CONF=")))
            up.slurmConf = line.mid(11);
    }
    if (r.rc != 0 || up.rest.isEmpty() || up.tokenFile.isEmpty() || up.slurmConf.isEmpty())
        up.error
                = QStringLiteral("slurm-local up failed (%1): %2").arg(r.rc).arg(r.err.right(3000));
    return up;
}

inline bool writeFile(const QString &path, const QByteArray &data)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(data) == data.size();
}

} // namespace Zhaoxi::TestSlurm
