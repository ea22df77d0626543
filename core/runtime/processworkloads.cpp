// SPDX-License-Identifier: GPL-3.0-or-later
// ProcessWorkloads: admission and submission, the sync with the scheduler's events, the units a
// job's processes are bound to, logs and queries, the final stop. Launching, stopping and
// following the processes is in processworkloads_processes.cpp; the records that survive a
// restart and their adoption in processworkloads_adopt.cpp.
#include "processworkloads.h"

#include <QFile>

#include <QFileInfo>

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTcpServer>
#include <QThread>

#include <memory>

#include <pwd.h>

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
                    pe.deadlineMs = e.evictionAtMs;
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
            if (!rankDirsFree(run.job, nowMs))
                continue; // a process of it no record names still runs: being stopped
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
            pe.timeoutMs = spec.progressTimeoutMs;
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
            pe.timeoutMs = spec.readyTimeoutMs;
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
