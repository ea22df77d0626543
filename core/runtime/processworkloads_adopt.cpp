// SPDX-License-Identifier: GPL-3.0-or-later
// ProcessWorkloads' records: what a restarted console needs to take its jobs' processes back
// (records()), and the adoption of those still running (adopt()).
#include "processworkloads.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

#include <cerrno>
#include <csignal>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace Zhaoxi::Runtime {

using Domain::JobId;
using Domain::WorkloadKind;
using Sched::EventCode;

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
                pe.pid = info->pid;
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
    stopUnrecorded(nowMs);
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

std::optional<ProcessWorkloads::Holder> ProcessWorkloads::rankDirHolder(const QString &dir)
{
    // zhaoxi-shim holds DIR/lock for its whole life and writes "SHIM_PID JOB_PID" into it.
    const int fd = ::open(QFile::encodeName(dir + QStringLiteral("/lock")).constData(),
                          O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return std::nullopt;
    std::optional<Holder> held;
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
        ::flock(fd, LOCK_UN);
    } else {
        char buf[64] = {};
        const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
        const QList<QByteArray> words
                = QByteArray(buf, int(std::max<ssize_t>(0, n))).trimmed().split(' ');
        held = Holder{words.value(0).toLongLong(), words.value(1).toLongLong()};
    }
    ::close(fd);
    return held;
}

// A process its owner started but kept no record of (the owner was killed between the launch and
// the commit of its records, possibly before it wrote the process's info file) still runs: the
// lock its shim holds on the rank's directory says so. It is stopped (taken back through its info
// file when that names it, else by signalling the job's process group: its stop signal, SIGKILL
// once its grace is over), and nothing is launched in that directory until it has gone. Returns
// whether `dir` is free.
bool ProcessWorkloads::freeRankDir(const QString &dir, JobId job, qint64 nowMs)
{
    const std::optional<Holder> holder = rankDirHolder(dir);
    if (!holder) {
        m_unrecorded.remove(dir);
        return true;
    }
    for (const ProcessInfo &i : m_runner.processes()) {
        if (i.dir == dir)
            return false; // ours: it is being watched (and stopped, if it should not run)
    }
    // Its job has ended and the shim is writing the exit and leaving (an adopted process's end is
    // seen by its job's pid, a moment before its shim lets go): not an orphan, busy a moment.
    if (holder->jobPid > 0 && ::kill(pid_t(holder->jobPid), 0) != 0 && errno == ESRCH)
        return false;
    const Sched::ClusterState &state = m_sched.state();
    const bool known
            = job.isValid() && job.value() < state.jobs().size() && state.job(job).spec.run;
    const int sig = known ? signalNumber(state.job(job).spec.run->stopSignal) : SIGTERM;
    const qint64 graceMs = known ? state.job(job).spec.run->stopGraceMs : 10'000;
    auto it = m_unrecorded.find(dir);
    if (it == m_unrecorded.end()) {
        QFile f(dir + QStringLiteral("/info"));
        std::optional<ProcessInfo> info;
        QString error;
        if (f.open(QIODevice::ReadOnly))
            info = ProcessInfo::fromJson(QJsonDocument::fromJson(f.read(1 << 20)).object(), &error);
        ExitInfo gone;
        ProcessEvent pe;
        pe.atMs = nowMs;
        pe.code = ProcessEventCode::Stopping;
        pe.job = known ? job : JobId();
        pe.jobName = known ? state.job(job).spec.name : QFileInfo(QFileInfo(dir).path()).fileName();
        pe.graceMs = graceMs;
        pe.detail = QStringLiteral(
                            "running in %1 but in no record kept before the restart: stopped, so "
                            "that it never runs twice")
                            .arg(dir);
        if (info && info->pid == holder->jobPid && m_runner.adopt(*info, &gone)) {
            // Watched from now on: the runner escalates to SIGKILL after the grace.
            m_runner.stop(info->key, sig, graceMs);
            pe.key = info->key;
            pe.pid = info->pid;
            if (known) {
                Run &run = m_runs[job.value()];
                run.job = job;
                Proc p;
                p.key = info->key;
                p.rank = QFileInfo(dir).fileName().mid(1).toInt();
                p.running = true;
                p.stopping = true;
                run.procs.append(p);
            }
        } else {
            // Its info was never written: signal the job's group (or the shim, before the fork).
            pe.pid = holder->jobPid > 0 ? holder->jobPid : holder->shimPid;
            if (holder->jobPid > 0)
                ::kill(-pid_t(holder->jobPid), sig);
            m_unrecorded.insert(dir, wallNow());
        }
        emitEvent(pe);
        return false;
    }
    if (wallNow() - *it > graceMs && holder->jobPid > 0)
        ::kill(-pid_t(holder->jobPid), SIGKILL);
    else if (holder->jobPid <= 0 && wallNow() - *it > graceMs && holder->shimPid > 0)
        ::kill(pid_t(holder->shimPid), SIGKILL); // a shim that never forked its job
    return false;
}

// Every job directory's ranks at a restart: what runs there without a record is stopped.
void ProcessWorkloads::stopUnrecorded(qint64 nowMs)
{
    const QDir jobs(QDir(m_options.dataDir).filePath(QStringLiteral("jobs")));
    const Sched::ClusterState &state = m_sched.state();
    for (const QString &name : jobs.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        // The directory names its job: j<id>-<name>.
        const int id = name.startsWith(QLatin1Char('j'))
                               ? name.mid(1, name.indexOf(QLatin1Char('-')) - 1).toInt()
                               : -1;
        const bool known = id >= 0 && id < state.jobs().size()
                           && QDir(jobDir(JobId(id))) == QDir(jobs.filePath(name));
        const QDir jobDirectory(jobs.filePath(name));
        for (const QString &rank :
             jobDirectory.entryList({QStringLiteral("r*")}, QDir::Dirs | QDir::NoDotAndDotDot))
            freeRankDir(jobDirectory.filePath(rank), known ? JobId(id) : JobId(), nowMs);
    }
}

// Whether every rank directory of the job is free to launch into (none holds a live shim).
bool ProcessWorkloads::rankDirsFree(JobId job, qint64 nowMs)
{
    const QDir dir(jobDir(job));
    bool free = true;
    for (const QString &rank :
         dir.entryList({QStringLiteral("r*")}, QDir::Dirs | QDir::NoDotAndDotDot))
        free = freeRankDir(dir.filePath(rank), job, nowMs) && free;
    return free;
}

} // namespace Zhaoxi::Runtime
