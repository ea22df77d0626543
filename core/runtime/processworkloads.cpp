// SPDX-License-Identifier: GPL-3.0-or-later
#include "processworkloads.h"

#include <QFile>

#include <QFileInfo>

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonArray>
#include <QTcpServer>
#include <QThread>

#include <csignal>
#include <memory>

#include <pwd.h>
#include <unistd.h>

namespace Zhaoxi::Runtime {

using Domain::JobId;
using Domain::WorkloadKind;
using Sched::EventCode;

const char *toString(ProcessEventCode code)
{
    switch (code) {
    case ProcessEventCode::Refused:
        return "process-refused";
    case ProcessEventCode::Started:
        return "process-started";
    case ProcessEventCode::LaunchFailed:
        return "process-launch-failed";
    case ProcessEventCode::CheckpointRequested:
        return "checkpoint-requested";
    case ProcessEventCode::CheckpointAcknowledged:
        return "checkpoint-acknowledged";
    case ProcessEventCode::Stopping:
        return "process-stopping";
    case ProcessEventCode::Finished:
        return "process-finished";
    case ProcessEventCode::Failed:
        return "process-failed";
    case ProcessEventCode::Restarting:
        return "replica-restarting";
    case ProcessEventCode::CrashLoop:
        return "replica-crash-loop";
    case ProcessEventCode::Ready:
        return "replica-ready";
    case ProcessEventCode::ReadyTimeout:
        return "replica-ready-timeout";
    case ProcessEventCode::ProgressStalled:
        return "progress-stalled";
    case ProcessEventCode::ProgressError:
        return "progress-error";
    case ProcessEventCode::LimitsByRlimit:
        return "limits-by-rlimit";
    case ProcessEventCode::Adopted:
        return "process-adopted";
    case ProcessEventCode::Vanished:
        return "process-vanished";
    case ProcessEventCode::MpsDaemon:
        return "mps-daemon";
    case ProcessEventCode::MpsDaemonFailed:
        return "mps-daemon-failed";
    }
    return "?";
}

namespace {

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

// A job's directory name: its id first (unique), then a readable form of its name.
QString safeName(const QString &name)
{
    QString out;
    for (const QChar c : name)
        out += (c.isLetterOrNumber() && c.unicode() < 128) || c == QLatin1Char('-')
                               || c == QLatin1Char('_') || c == QLatin1Char('.')
                       ? c
                       : QLatin1Char('_');
    return out.left(64);
}

QString runnerAccount()
{
    const passwd *pw = getpwuid(geteuid());
    return pw ? QString::fromLocal8Bit(pw->pw_name) : QString::number(geteuid());
}

bool isRoot(const QString &user)
{
    if (user.isEmpty())
        return false;
    if (user == QLatin1String("root"))
        return true;
    const QByteArray u = user.toLocal8Bit();
    const passwd *pw = getpwnam(u.constData());
    return pw && pw->pw_uid == 0;
}

} // namespace

ProcessWorkloads::ProcessWorkloads(Sched::Scheduler &scheduler,
                                   ProcessRunner &runner,
                                   UnitIds ids,
                                   Options options,
                                   QObject *parent)
    : QObject(parent)
    , m_sched(scheduler)
    , m_runner(runner)
    , m_ids(std::move(ids))
    , m_options(std::move(options))
{
    qRegisterMetaType<Zhaoxi::Runtime::ProcessEvent>();
    if (!m_options.clock)
        m_options.clock = [] { return QDateTime::currentMSecsSinceEpoch(); };
    if (!m_options.wallClock) {
        auto started = std::make_shared<QElapsedTimer>();
        started->start();
        m_options.wallClock = [started] { return started->elapsed(); };
    }
    m_sched.addSink(this);
    connect(&m_runner, &ProcessRunner::exited, this, &ProcessWorkloads::onExited);
    connect(&m_runner, &ProcessRunner::progressed, this, &ProcessWorkloads::onProgress);
    connect(&m_runner, &ProcessRunner::progressError, this, &ProcessWorkloads::onProgressError);
}

ProcessWorkloads::~ProcessWorkloads() = default;

bool ProcessWorkloads::admissible(const Domain::WorkloadSpec &spec, bool allowRoot, QString *why)
{
    if (!spec.run) {
        if (why)
            *why = QStringLiteral("run: required on a real appliance (what to run: run.command)");
        return false;
    }
    if (!allowRoot && isRoot(spec.run->user)) {
        if (why)
            *why = QStringLiteral("run.user: %1 is root, which the appliance file does not allow")
                           .arg(spec.run->user);
        return false;
    }
    return true;
}

JobId ProcessWorkloads::submit(const Domain::WorkloadSpec &spec, qint64 nowMs, QString *why)
{
    QString reason;
    if (!admissible(spec, m_options.allowRoot, &reason)) {
        ProcessEvent e;
        e.atMs = nowMs;
        e.code = ProcessEventCode::Refused;
        e.jobName = spec.name;
        e.detail = reason;
        emitEvent(e);
        if (why)
            *why = reason;
        return JobId();
    }
    return m_sched.submit(spec, nowMs);
}

QString ProcessWorkloads::jobDir(JobId job) const
{
    const QString name = m_sched.state().job(job).spec.name;
    return QDir(m_options.dataDir)
            .filePath(QStringLiteral("jobs/j%1-%2").arg(job.value()).arg(safeName(name)));
}

ProcessWorkloads::LogTail ProcessWorkloads::logTail(JobId job, qint64 maxBytes) const
{
    LogTail out;
    out.path = jobDir(job);
    const QDir dir(out.path);
    QStringList ranks = dir.entryList({QStringLiteral("r*")}, QDir::Dirs | QDir::NoDotAndDotDot);
    std::sort(ranks.begin(), ranks.end(), [](const QString &a, const QString &b) {
        return a.mid(1).toInt() < b.mid(1).toInt();
    });
    auto readAll = [](const QString &path) {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    };
    QByteArray all;
    bool any = false;
    for (const QString &r : std::as_const(ranks)) {
        const QString rd = dir.filePath(r);
        const bool has = QFileInfo::exists(QDir(rd).filePath(QStringLiteral("log")))
                         || QFileInfo::exists(QDir(rd).filePath(QStringLiteral("log.1")));
        if (!has)
            continue;
        any = true;
        if (ranks.size() > 1)
            all += "==> " + r.toUtf8() + " <==\n";
        all += readAll(QDir(rd).filePath(QStringLiteral("log.1")));
        all += readAll(QDir(rd).filePath(QStringLiteral("log")));
    }
    if (!any) {
        out.error = QStringLiteral("job %1 has not started a process yet: no log").arg(job.value());
        return out;
    }
    out.ok = true;
    if (all.size() > maxBytes) {
        out.truncated = true;
        all = all.right(maxBytes);
        // Start at a line, not in the middle of one (or of a UTF-8 sequence).
        const qsizetype nl = all.indexOf('\n');
        if (nl >= 0 && nl + 1 < all.size())
            all = all.mid(nl + 1);
    }
    out.text = all;
    return out;
}

void ProcessWorkloads::record(const Sched::SchedEvent &event)
{
    switch (event.code) {
    case EventCode::JobPlaced:
    case EventCode::JobPreempting:
    case EventCode::JobEvicted:
    case EventCode::JobFinished:
    case EventCode::JobCancelled:
    case EventCode::JobFailed:
        m_pending.append(event);
        break;
    default:
        break;
    }
}

void ProcessWorkloads::emitEvent(ProcessEvent e)
{
    m_events.append(e);
    Q_EMIT eventRecorded(e);
}

bool ProcessWorkloads::unitsReady(JobId job) const
{
    const Sched::ClusterState &state = m_sched.state();
    // Ready in the scheduler's state and known to the driver: a MIG instance has its UUID only
    // once it exists.
    for (const Sched::Assignment &a : state.job(job).assignments) {
        const Sched::CardState &card = state.card(a.card);
        const Sched::Unit *u = card.unit(a.unitUid);
        if (!u || u->state != Sched::UnitState::Ready)
            return false;
        const bool mig = card.mode == Domain::PartitionMode::Mig && u->profile >= 0;
        const QString id
                = mig ? (m_ids.instanceUuid ? m_ids.instanceUuid(a.card, u->profile, u->start)
                                            : QString())
                      : (m_ids.cardUuid ? m_ids.cardUuid(a.card) : QString());
        if (id.isEmpty())
            return false;
    }
    return true;
}

bool ProcessWorkloads::unitsStillHeld(JobId job) const
{
    // The scheduler frees a unit when it evicts; the process on it may take its stop grace to
    // exit. A whole card or a MIG instance serves one process at a time: wait for it. Soft
    // shares of a card coexist by design.
    const Sched::ClusterState &state = m_sched.state();
    for (const Sched::Assignment &a : state.job(job).assignments) {
        const Domain::PartitionMode mode = state.card(a.card).mode;
        if (mode == Domain::PartitionMode::TimeSlicing || mode == Domain::PartitionMode::Mps)
            continue;
        for (auto it = m_runs.cbegin(); it != m_runs.cend(); ++it) {
            if (it.key() == job.value())
                continue;
            for (const Proc &p : it->procs) {
                if (!p.running)
                    continue;
                for (const Sched::Assignment &held : p.units)
                    if (held.card == a.card
                        && (mode == Domain::PartitionMode::Whole || held.unitUid == a.unitUid))
                        return true;
            }
        }
    }
    return false;
}

int ProcessWorkloads::freePort() const
{
    // The kernel's choice of a free loopback port; the replica binds it right after.
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 0;
    return probe.serverPort();
}

void ProcessWorkloads::sync(qint64 nowMs)
{
    if (m_inSync)
        return;
    m_inSync = true;
    while (!m_pending.isEmpty()) {
        QList<Sched::SchedEvent> batch;
        batch.swap(m_pending);
        for (const Sched::SchedEvent &e : std::as_const(batch)) {
            Run &run = m_runs[e.job.value()];
            run.job = e.job;
            JobStats &stats = m_stats[e.job.value()];
            switch (e.code) {
            case EventCode::JobPlaced:
                run.wanted = true;
                run.ending = false;
                run.checkpointAsked = false;
                run.crashes = 0;
                break;
            case EventCode::JobPreempting: {
                const Domain::WorkloadSpec &spec = m_sched.state().job(e.job).spec;
                if (run.launched && spec.preemption == Domain::PreemptionTolerance::AtCheckpoint
                    && spec.run && !run.checkpointAsked) {
                    run.checkpointAsked = true;
                    if (run.progressed)
                        signalCheckpoint(run);
                    else
                        run.checkpointDeferred = true;
                    ProcessEvent pe;
                    pe.atMs = nowMs;
                    pe.code = ProcessEventCode::CheckpointRequested;
                    pe.job = e.job;
                    pe.jobName = spec.name;
                    pe.value = e.value;
                    emitEvent(pe);
                }
                break;
            }
            case EventCode::JobEvicted:
                if (run.launched) {
                    ++stats.preemptions;
                    const qint64 since = std::max(run.startedMs, run.lastAckMs);
                    stats.lostWorkMs += std::max<qint64>(0, wallNow() - since);
                }
                run.wanted = false;
                stopProcesses(run, nowMs);
                break;
            case EventCode::JobFinished:
            case EventCode::JobCancelled:
            case EventCode::JobFailed:
                run.wanted = false;
                run.ending = true;
                stopProcesses(run, nowMs);
                break;
            default:
                break;
            }
        }
    }

    // Launch what is placed and ready; restart replicas whose back-off is over; look for stalls.
    for (auto it = m_runs.begin(); it != m_runs.end(); ++it) {
        Run &run = it.value();
        const Sched::Job &job = m_sched.state().job(run.job);
        if (!run.wanted || !job.isActive() || !job.spec.run)
            continue;
        if (!run.launched) {
            if (run.restartAtMs > wallNow())
                continue;
            bool anyRunning = false;
            for (const Proc &p : std::as_const(run.procs))
                anyRunning = anyRunning || p.running;
            if (anyRunning || !unitsReady(run.job) || unitsStillHeld(run.job))
                continue; // the last processes are still stopping, or the units being made
            launch(run, nowMs);
            continue;
        }
        const Domain::RunSpec &spec = *job.spec.run;
        if (job.spec.kind != WorkloadKind::Inference && spec.progressTimeoutMs > 0
            && wallNow() - std::max(run.startedMs, run.lastProgressMs) > spec.progressTimeoutMs) {
            ProcessEvent pe;
            pe.atMs = nowMs;
            pe.code = ProcessEventCode::ProgressStalled;
            pe.job = run.job;
            pe.jobName = job.spec.name;
            pe.value = spec.progressTimeoutMs;
            pe.detail = QStringLiteral("no progress line in %1 s")
                                .arg(spec.progressTimeoutMs / 1000.0);
            emitEvent(pe);
            m_stats[run.job.value()].lostWorkMs
                    += std::max<qint64>(0, wallNow() - std::max(run.startedMs, run.lastAckMs));
            run.wanted = false;
            run.ending = true;
            m_sched.fail(run.job, nowMs); // its events stop the processes below
        } else if (job.spec.kind == WorkloadKind::Inference && run.readySinceMs < 0
                   && wallNow() - run.startedMs > spec.readyTimeoutMs) {
            ProcessEvent pe;
            pe.atMs = nowMs;
            pe.code = ProcessEventCode::ReadyTimeout;
            pe.job = run.job;
            pe.jobName = job.spec.name;
            pe.value = spec.readyTimeoutMs;
            pe.detail = QStringLiteral("not ready after %1 s").arg(spec.readyTimeoutMs / 1000.0);
            emitEvent(pe);
            run.wanted = false;
            run.ending = true;
            m_sched.fail(run.job, nowMs);
        }
    }
    m_inSync = false;
    if (!m_pending.isEmpty())
        sync(nowMs); // what the failures above made the scheduler do
}

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
        pe.value = info->pid;
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
        pe.value = job.spec.run->stopGraceMs;
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
            cl.value = run->crashes;
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
            rs.value = backoff;
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
    pe.value = line.step;
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
        pe.value = stats.port;
        emitEvent(pe);
    }
}

QJsonObject ProcessWorkloads::records() const
{
    QJsonArray jobs;
    const QList<ProcessInfo> live = m_runner.processes();
    for (auto it = m_runs.cbegin(); it != m_runs.cend(); ++it) {
        QJsonArray procs;
        for (const Proc &p : it->procs) {
            if (!p.running)
                continue;
            const auto info = std::find_if(live.cbegin(), live.cend(), [&](const ProcessInfo &i) {
                return i.key == p.key;
            });
            if (info == live.cend())
                continue;
            QJsonArray units;
            for (const Sched::Assignment &a : p.units)
                units.append(QJsonObject{{QStringLiteral("card"), a.card.value()},
                                         {QStringLiteral("uid"), a.unitUid}});
            procs.append(QJsonObject{{QStringLiteral("rank"), p.rank},
                                     {QStringLiteral("units"), units},
                                     {QStringLiteral("info"), info->toJson()}});
        }
        const JobStats st = m_stats.value(it.key());
        jobs.append(
                QJsonObject{{QStringLiteral("job"), it.key()},
                            {QStringLiteral("name"), m_sched.state().job(it->job).spec.name},
                            {QStringLiteral("port"), st.port},
                            {QStringLiteral("stats"),
                             QJsonObject{{QStringLiteral("starts"), st.starts},
                                         {QStringLiteral("checkpoints"), st.checkpoints},
                                         {QStringLiteral("preemptions"), st.preemptions},
                                         {QStringLiteral("lost_work_ms"), double(st.lostWorkMs)},
                                         {QStringLiteral("last_step"), double(st.lastStep)}}},
                            {QStringLiteral("procs"), procs}});
    }
    return QJsonObject{{QStringLiteral("jobs"), jobs}};
}

void ProcessWorkloads::adopt(const QJsonObject &records, qint64 nowMs)
{
    const Sched::ClusterState &state = m_sched.state();
    for (const QJsonValue &jv : records.value(QStringLiteral("jobs")).toArray()) {
        const QJsonObject jr = jv.toObject();
        const int id = jr.value(QStringLiteral("job")).toInt(-1);
        const bool known
                = id >= 0 && id < state.jobs().size()
                  && state.job(JobId(id)).spec.name == jr.value(QStringLiteral("name")).toString();
        Run &run = m_runs[id];
        run.job = JobId(id);
        JobStats &stats = m_stats[id];
        const QJsonObject sj = jr.value(QStringLiteral("stats")).toObject();
        stats.starts = sj.value(QStringLiteral("starts")).toInt();
        stats.checkpoints = sj.value(QStringLiteral("checkpoints")).toInt();
        stats.preemptions = sj.value(QStringLiteral("preemptions")).toInt();
        stats.lostWorkMs = qint64(sj.value(QStringLiteral("lost_work_ms")).toDouble());
        stats.lastStep = qint64(sj.value(QStringLiteral("last_step")).toDouble(-1));
        stats.port = jr.value(QStringLiteral("port")).toInt();

        const QJsonArray procRecords = jr.value(QStringLiteral("procs")).toArray();
        if (procRecords.isEmpty()) {
            // Nothing ran for it at the restart: only its figures come back; if it is placed,
            // the next sync() launches it.
            if (!known) {
                m_runs.remove(id);
                m_stats.remove(id);
            } else {
                run.wanted = state.job(run.job).isActive();
            }
            continue;
        }
        int adopted = 0, gone = 0, goneOk = 0;
        for (const QJsonValue &pv : procRecords) {
            const QJsonObject pr = pv.toObject();
            QString error;
            const std::optional<ProcessInfo> info
                    = ProcessInfo::fromJson(pr.value(QStringLiteral("info")).toObject(), &error);
            if (!info)
                continue;
            Proc p;
            p.key = info->key;
            p.rank = pr.value(QStringLiteral("rank")).toInt();
            for (const QJsonValue &uv : pr.value(QStringLiteral("units")).toArray())
                p.units.append(Sched::Assignment{
                        Domain::CardId(uv.toObject().value(QStringLiteral("card")).toInt()),
                        uv.toObject().value(QStringLiteral("uid")).toInt()});
            ExitInfo exit;
            if (m_runner.adopt(*info, &exit)) {
                p.running = true;
                ++adopted;
                ProcessEvent pe;
                pe.atMs = nowMs;
                pe.code = ProcessEventCode::Adopted;
                pe.job = run.job;
                pe.jobName = jr.value(QStringLiteral("name")).toString();
                pe.key = p.key;
                pe.rank = p.rank;
                pe.value = info->pid;
                emitEvent(pe);
            } else {
                ++gone;
                goneOk += !exit.vanished && exit.code == 0 && exit.signal == 0;
                stats.exitCode = exit.code;
                stats.exitSignal = exit.signal;
            }
            run.procs.append(p);
        }
        if (!known || !state.job(JobId(id)).isActive()) {
            // The state no longer runs it (it ended or left before the restart): nothing of it
            // may keep a unit.
            if (known) {
                run.wanted = false;
                run.ending = true;
                stopProcesses(run, nowMs);
            } else {
                for (Proc &p : run.procs)
                    if (p.running)
                        m_runner.stop(p.key, SIGTERM, 30'000);
                m_runs.remove(id);
            }
            continue;
        }
        run.wanted = true;
        stats.running = adopted > 0;
        if (gone == 0) {
            run.launched = adopted > 0;
            run.startedMs = wallNow();
            run.lastProgressMs = run.startedMs;
            run.progressed = false;
            run.checkpointDeferred = false;
            continue;
        }
        const Sched::Job &job = state.job(run.job);
        if (adopted == 0 && gone == goneOk) {
            // It finished while nobody watched.
            ProcessEvent pe;
            pe.atMs = nowMs;
            pe.code = ProcessEventCode::Finished;
            pe.job = run.job;
            pe.jobName = job.spec.name;
            emitEvent(pe);
            run.wanted = false;
            run.ending = true;
            m_sched.finish(run.job, nowMs);
            continue;
        }
        ProcessEvent pe;
        pe.atMs = nowMs;
        pe.code = ProcessEventCode::Vanished;
        pe.job = run.job;
        pe.jobName = job.spec.name;
        pe.detail = QStringLiteral("%1 of its processes gone while nobody watched").arg(gone);
        emitEvent(pe);
        run.launched = true; // so that the eviction stops what is left of it
        m_sched.requeue(run.job, nowMs, false);
    }
    // Placed before the restart but never started: the next sync() launches them.
    for (const Sched::Job &j : state.jobs()) {
        if (j.isActive() && j.spec.run && !m_runs.contains(j.id.value())) {
            Run &run = m_runs[j.id.value()];
            run.job = j.id;
            run.wanted = true;
        }
    }
    sync(nowMs);
    Q_EMIT recordsChanged();
}

QStringList ProcessWorkloads::processKeys(JobId job) const
{
    QStringList keys;
    const auto it = m_runs.constFind(job.value());
    if (it == m_runs.cend())
        return keys;
    for (const Proc &p : it->procs)
        if (p.running)
            keys << p.key;
    return keys;
}

QList<ProcessInfo> ProcessWorkloads::liveProcesses() const
{
    QList<ProcessInfo> out;
    for (const ProcessInfo &p : m_runner.processes())
        if (m_runner.isRunning(p.key))
            out.append(p);
    return out;
}

QHash<qint64, Domain::JobId> ProcessWorkloads::jobsBySession() const
{
    QHash<QString, Domain::JobId> byKey;
    for (const Run &run : m_runs)
        for (const Proc &p : run.procs)
            byKey.insert(p.key, run.job);
    QHash<qint64, Domain::JobId> out;
    for (const ProcessInfo &p : m_runner.processes()) {
        const Domain::JobId job = byKey.value(p.key);
        if (job.isValid())
            out.insert(p.pid, job); // the job's pid is its session's id
    }
    return out;
}

Domain::JobId ProcessWorkloads::jobOfPid(const QHash<qint64, Domain::JobId> &bySession, qint64 pid)
{
    if (bySession.isEmpty())
        return {};
    if (const auto it = bySession.constFind(pid); it != bySession.cend())
        return *it;
    return bySession.value(ProcessRunner::sessionOf(pid));
}

QStringList ProcessWorkloads::stopAll(qint64 waitMs)
{
    const qint64 now = m_options.clock();
    for (auto it = m_runs.begin(); it != m_runs.end(); ++it) {
        it->wanted = false;
        it->ending = true;
        stopProcesses(it.value(), now);
    }
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < waitMs && !liveProcesses().isEmpty()) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        QThread::msleep(20);
    }
    QStringList alive;
    for (const ProcessInfo &p : liveProcesses())
        alive << p.key;
    return alive;
}

} // namespace Zhaoxi::Runtime
