// SPDX-License-Identifier: GPL-3.0-or-later
// ProcessWorkloads' processes: a run's launch on its units, its stop (checkpoint signal, grace,
// kill), the exits and progress lines its runner reports, and readiness.
#include "processworkloads.h"

#include <QDir>
#include <QFile>

#include <csignal>

#include <pwd.h>
#include <unistd.h>

namespace Zhaoxi::Runtime {

using Domain::JobId;
using Domain::WorkloadKind;
using Sched::EventCode;

int signalNumber(const QString &name)
{
    static const QHash<QString, int> numbers = {
            {QStringLiteral("SIGTERM"), SIGTERM},
            {QStringLiteral("SIGINT"), SIGINT},
            {QStringLiteral("SIGHUP"), SIGHUP},
            {QStringLiteral("SIGQUIT"), SIGQUIT},
            {QStringLiteral("SIGUSR1"), SIGUSR1},
            {QStringLiteral("SIGUSR2"), SIGUSR2},
            {QStringLiteral("SIGKILL"), SIGKILL},
    };
    return numbers.value(name, SIGTERM);
}

namespace {

QString runnerAccount()
{
    const passwd *pw = getpwuid(geteuid());
    return pw ? QString::fromLocal8Bit(pw->pw_name) : QString::number(geteuid());
}

} // namespace

bool ProcessWorkloads::launch(Run &run, qint64 nowMs)
{
    const Sched::Job &job = m_sched.state().job(run.job);
    const Domain::RunSpec &spec = *job.spec.run;
    auto failLaunch = [&](const QString &why) {
        ProcessEvent pe;
        pe.atMs = nowMs;
        pe.code = ProcessEventCode::LaunchFailed;
        pe.job = run.job;
        pe.jobName = job.spec.name;
        pe.detail = why;
        emitEvent(pe);
        for (Proc &p : run.procs)
            if (p.running)
                m_runner.stop(p.key, SIGKILL, 0);
        run.wanted = false;
        run.ending = true;
        m_stats[run.job.value()].running = false;
        m_sched.fail(run.job, nowMs);
        Q_EMIT changed();
        return false;
    };

    QString error;
    const int masterPort = job.assignments.size() > 1 ? freePort() : 0;
    const auto bindings = bindJob(m_sched.state(), run.job, m_ids, masterPort, &error);
    if (!bindings)
        return failLaunch(error);

    const QString dir = jobDir(run.job);
    const QString checkpointDir = QDir(dir).filePath(QStringLiteral("checkpoint"));
    const QString progressPath = QDir(dir).filePath(QStringLiteral("progress.jsonl"));
    if (!QDir().mkpath(checkpointDir))
        return failLaunch(QStringLiteral("cannot create %1").arg(checkpointDir));
    // A new run of the job reads only the progress it writes from now on.
    QFile::remove(progressPath);

    // Clients of one MPS card run as one account: its daemon serves one user id at a time.
    const QString account = spec.user.isEmpty() ? runnerAccount() : spec.user;
    QList<Domain::CardId> mpsCards;
    for (const Sched::Assignment &a : job.assignments) {
        if (m_sched.state().card(a.card).mode != Domain::PartitionMode::Mps)
            continue;
        const QString serving = m_ids.mpsUser ? m_ids.mpsUser(a.card) : QString();
        if (!serving.isEmpty() && serving != account)
            return failLaunch(QStringLiteral("the MPS daemon of card %1 serves %2, not %3: the "
                                             "clients of one MPS card run as one account")
                                      .arg(a.card.value())
                                      .arg(serving, account));
        mpsCards << a.card;
    }

    JobStats &stats = m_stats[run.job.value()];
    const bool inference = job.spec.kind == WorkloadKind::Inference;
    if (inference)
        stats.port = spec.port.value_or(0) > 0 ? *spec.port : freePort();

    run.procs.clear();
    for (const ProcessBinding &b : *bindings) {
        LaunchRequest req;
        req.key = QStringLiteral("j%1-r%2").arg(run.job.value()).arg(b.rank);
        req.dir = QDir(dir).filePath(QStringLiteral("r%1").arg(b.rank));
        req.argv = spec.command;
        req.workdir = spec.workdir;
        req.env = spec.env;
        for (auto e = b.env.cbegin(); e != b.env.cend(); ++e)
            req.env.insert(e.key(), e.value());
        req.env.insert(QStringLiteral("ZHAOXI_CHECKPOINT_DIR"), checkpointDir);
        if (!inference) {
            req.env.insert(QStringLiteral("ZHAOXI_PROGRESS"), progressPath);
            if (b.rank == 0)
                req.progressPath = progressPath;
        } else {
            req.env.insert(QStringLiteral("ZHAOXI_PORT"), QString::number(stats.port));
        }
        req.user = spec.user;
        req.logLimitBytes = spec.logLimitBytes;
        req.memoryLimitMiB = job.spec.demand.hostMemoryMiB;
        req.cpuMilli = job.spec.demand.hostCpuMilli;
        const std::optional<ProcessInfo> info = m_runner.launch(req, &error);
        if (!info)
            return failLaunch(error);
        Proc p;
        p.key = req.key;
        p.rank = b.rank;
        p.units = b.units;
        p.running = true;
        run.procs.append(p);
        ProcessEvent pe;
        pe.atMs = nowMs;
        pe.code = ProcessEventCode::Started;
        pe.job = run.job;
        pe.jobName = job.spec.name;
        pe.key = req.key;
        pe.rank = b.rank;
        pe.pid = info->pid;
        pe.detail = b.visibleDevices;
        emitEvent(pe);
        if (info->limits == QLatin1String("rlimit") && !m_saidRlimit) {
            m_saidRlimit = true; // once: it holds for every process of this appliance
            pe.code = ProcessEventCode::LimitsByRlimit;
            pe.detail
                    = QStringLiteral("no systemd: host memory limited by rlimit, CPU not limited");
            emitEvent(pe);
        }
    }
    if (m_ids.mpsClient)
        for (const Domain::CardId c : std::as_const(mpsCards))
            m_ids.mpsClient(c, account, true);
    run.account = account;
    Q_EMIT recordsChanged();
    run.launched = true;
    run.startedMs = wallNow();
    run.lastAckMs = -1;
    run.lastProgressMs = run.startedMs;
    run.progressed = false;
    run.checkpointDeferred = false;
    run.readySinceMs = -1;
    run.restartAtMs = -1;
    ++stats.starts;
    stats.running = true;
    stats.ready = false;
    return true;
}

void ProcessWorkloads::stopProcesses(Run &run, qint64 nowMs)
{
    const Sched::Job &job = m_sched.state().job(run.job);
    if (!job.spec.run)
        return;
    const int sig = signalNumber(job.spec.run->stopSignal);
    bool any = false;
    for (Proc &p : run.procs) {
        if (p.running && !p.stopping) {
            p.stopping = true;
            m_runner.stop(p.key, sig, job.spec.run->stopGraceMs);
            any = true;
        }
    }
    run.launched = false;
    run.restartAtMs = -1;
    JobStats &stats = m_stats[run.job.value()];
    stats.ready = false;
    if (any) {
        ProcessEvent pe;
        pe.atMs = nowMs;
        pe.code = ProcessEventCode::Stopping;
        pe.job = run.job;
        pe.jobName = job.spec.name;
        pe.graceMs = job.spec.run->stopGraceMs;
        emitEvent(pe);
    }
}

ProcessWorkloads::Run *ProcessWorkloads::runOfKey(const QString &key, int *procIndex)
{
    // Keys are "j<job>-r<rank>".
    const int dash = key.indexOf(QLatin1String("-r"));
    if (!key.startsWith(QLatin1Char('j')) || dash < 0)
        return nullptr;
    const int job = key.mid(1, dash - 1).toInt();
    auto it = m_runs.find(job);
    if (it == m_runs.end())
        return nullptr;
    for (int i = 0; i < it->procs.size(); ++i) {
        if (it->procs[i].key == key) {
            if (procIndex)
                *procIndex = i;
            return &it.value();
        }
    }
    return nullptr;
}

void ProcessWorkloads::onExited(const QString &key, const ExitInfo &exit)
{
    int index = -1;
    Run *run = runOfKey(key, &index);
    if (!run)
        return;
    const qint64 now = m_options.clock();
    Proc &proc = run->procs[index];
    proc.running = false;
    if (m_ids.mpsClient)
        for (const Sched::Assignment &a : std::as_const(proc.units))
            if (m_sched.state().card(a.card).mode == Domain::PartitionMode::Mps)
                m_ids.mpsClient(a.card, run->account, false);
    proc.exitCode = exit.code;
    proc.exitSignal = exit.signal;
    JobStats &stats = m_stats[run->job.value()];
    stats.exitCode = exit.code;
    stats.exitSignal = exit.signal;
    bool anyRunning = false;
    for (const Proc &p : std::as_const(run->procs))
        anyRunning = anyRunning || p.running;
    stats.running = anyRunning;
    Q_EMIT recordsChanged();

    if (proc.stopping) {
        // Asked to stop: expected. The units may already serve the next job.
        if (!anyRunning)
            sync(now);
        Q_EMIT changed();
        return;
    }

    const Sched::Job &job = m_sched.state().job(run->job);
    const bool ok = exit.code == 0 && exit.signal == 0 && !exit.vanished;
    ProcessEvent pe;
    pe.atMs = now;
    pe.job = run->job;
    pe.jobName = job.spec.name;
    pe.key = key;
    pe.rank = proc.rank;
    pe.exitCode = exit.code;
    pe.signal = exit.signal;
    pe.lastLines = exit.lastLines;

    if (ok) {
        if (anyRunning)
            return; // the other ranks finish too
        pe.code = ProcessEventCode::Finished;
        emitEvent(pe);
        run->launched = false;
        run->wanted = false;
        run->ending = true;
        m_sched.finish(run->job, now);
        sync(now);
        Q_EMIT changed();
        return;
    }

    pe.code = ProcessEventCode::Failed;
    pe.detail = exit.vanished ? QStringLiteral("vanished")
                : exit.signal ? QStringLiteral("killed by signal %1").arg(exit.signal)
                              : QStringLiteral("exit status %1").arg(exit.code);
    emitEvent(pe);
    // The other ranks of a gang cannot go on without it.
    for (Proc &p : run->procs) {
        if (p.running && !p.stopping) {
            p.stopping = true;
            m_runner.stop(p.key, signalNumber(job.spec.run->stopSignal), job.spec.run->stopGraceMs);
        }
    }
    run->launched = false;

    if (job.spec.kind == WorkloadKind::Inference && job.isActive()) {
        const bool served = run->readySinceMs >= 0
                            && wallNow() - run->readySinceMs >= m_options.servedResetMs;
        run->crashes = served ? 1 : run->crashes + 1;
        if (run->crashes >= m_options.crashLoopLimit) {
            ProcessEvent cl = pe;
            cl.code = ProcessEventCode::CrashLoop;
            cl.crashes = run->crashes;
            cl.detail = QStringLiteral("crashed %1 times in a row; last: %2")
                                .arg(run->crashes)
                                .arg(pe.detail);
            emitEvent(cl);
            run->wanted = false;
            run->ending = true;
            m_sched.fail(run->job, now);
        } else {
            qint64 backoff = m_options.restartBackoffMs;
            for (int i = 1; i < run->crashes && backoff < m_options.maxRestartBackoffMs; ++i)
                backoff *= 2;
            backoff = std::min(backoff, m_options.maxRestartBackoffMs);
            run->restartAtMs = wallNow() + backoff;
            ProcessEvent rs = pe;
            rs.code = ProcessEventCode::Restarting;
            rs.backoffMs = backoff;
            emitEvent(rs);
        }
        stats.ready = false;
        sync(now);
        Q_EMIT changed();
        return;
    }

    stats.lostWorkMs += std::max<qint64>(0, wallNow() - std::max(run->startedMs, run->lastAckMs));
    run->wanted = false;
    run->ending = true;
    m_sched.fail(run->job, now);
    sync(now);
    Q_EMIT changed();
}

void ProcessWorkloads::signalCheckpoint(Run &run)
{
    const Domain::WorkloadSpec &spec = m_sched.state().job(run.job).spec;
    if (!spec.run)
        return;
    const int sig = signalNumber(spec.run->checkpointSignal);
    for (const Proc &p : std::as_const(run.procs))
        if (p.running)
            m_runner.signal(p.key, sig);
}

void ProcessWorkloads::onProgress(const QString &key, const ProgressLine &line)
{
    Run *run = runOfKey(key);
    if (!run)
        return;
    run->progressed = true;
    if (run->checkpointDeferred && !line.checkpoint) {
        run->checkpointDeferred = false;
        signalCheckpoint(*run);
    }
    const qint64 now = m_options.clock();
    run->lastProgressMs = wallNow();
    JobStats &stats = m_stats[run->job.value()];
    if (line.step >= 0)
        stats.lastStep = line.step;
    if (!std::isnan(line.loss))
        stats.lastLoss = line.loss;
    if (!std::isnan(line.samplesPerS))
        stats.samplesPerS = line.samplesPerS;
    if (!line.checkpoint)
        return;
    run->lastAckMs = wallNow();
    ++stats.checkpoints;
    ProcessEvent pe;
    pe.atMs = now;
    pe.code = ProcessEventCode::CheckpointAcknowledged;
    pe.job = run->job;
    pe.jobName = m_sched.state().job(run->job).spec.name;
    pe.key = key;
    pe.step = line.step;
    emitEvent(pe);
    if (m_sched.checkpointed(run->job, now)) {
        sync(now);
        Q_EMIT changed();
    }
}

void ProcessWorkloads::onProgressError(const QString &key, const QString &message)
{
    Run *run = runOfKey(key);
    if (!run)
        return;
    ProcessEvent pe;
    pe.atMs = m_options.clock();
    pe.code = ProcessEventCode::ProgressError;
    pe.job = run->job;
    pe.jobName = m_sched.state().job(run->job).spec.name;
    pe.key = key;
    pe.detail = message;
    emitEvent(pe);
}

void ProcessWorkloads::setReady(JobId job, bool ready, qint64 nowMs)
{
    auto it = m_runs.find(job.value());
    if (it == m_runs.end() || !it->launched)
        return;
    JobStats &stats = m_stats[job.value()];
    if (stats.ready == ready)
        return;
    stats.ready = ready;
    if (ready && it->readySinceMs < 0) {
        it->readySinceMs = wallNow();
        ProcessEvent pe;
        pe.atMs = nowMs;
        pe.code = ProcessEventCode::Ready;
        pe.job = job;
        pe.jobName = m_sched.state().job(job).spec.name;
        pe.port = stats.port;
        emitEvent(pe);
    }
}
} // namespace Zhaoxi::Runtime
