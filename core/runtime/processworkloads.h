// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "binding.h"
#include "processrunner.h"
#include "progress.h"

#include "core/sched/scheduler.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <functional>

namespace Zhaoxi::Runtime {

// What happened to a job's processes, as codes with parameters (the UI words them). Append only:
// codes are stored.
enum class ProcessEventCode : std::uint8_t {
    Refused,                // a spec the real appliance cannot run; detail = why
    Started,                // key, rank, detail = CUDA_VISIBLE_DEVICES, pid
    LaunchFailed,           // detail = the cause (no such file, not executable, no such user...)
    CheckpointRequested,    // the checkpoint signal was sent; deadlineMs (UTC ms)
    CheckpointAcknowledged, // a progress line with "checkpoint": true; its step
    Stopping,               // the stop signal was sent; graceMs
    Finished,               // every process exited 0
    Failed,                 // a process exited non-zero or on a signal; exit code / signal,
                            // lastLines
    Restarting,             // an inference replica crashed and restarts; backoffMs
    CrashLoop,              // it kept crashing: failed with the reason; crashes
    Ready,                  // an inference replica answers its ready path (or its port); port
    ReadyTimeout,           // it never did within readyTimeout; timeoutMs
    ProgressStalled,        // no progress line within progressTimeout; timeoutMs
    ProgressError,          // a progress line it could not read; detail
    LimitsByRlimit,         // host limits applied by rlimits (no systemd): CPU not limited;
                            // said once, at the first process
    Adopted,                // a process found running after a restart, watched again; pid
    Vanished,               // a recorded process gone while nobody watched; requeued
    MpsDaemon,              // a card's MPS control daemon started or stopped; detail says which
    MpsDaemonFailed,        // it could not be started; detail says why
};

const char *toString(ProcessEventCode code);
// A spec's signal name ("SIGTERM", "SIGUSR1", ...) as its number; SIGTERM when unknown.
int signalNumber(const QString &name);

struct ProcessEvent
{
    qint64 atMs = 0;
    ProcessEventCode code = ProcessEventCode::Started;
    Domain::JobId job;
    QString jobName;
    QString key; // the process ("j12-r0")
    int rank = 0;
    int exitCode = -1;
    int signal = 0;
    // Each code sets the members its comment names (HOUSE_STYLE 4: codes with named parameters).
    qint64 pid = 0;        // Started, Adopted: the process
    qint64 deadlineMs = 0; // CheckpointRequested: when it must have left (UTC ms)
    qint64 step = 0;       // CheckpointAcknowledged: the step of the checkpoint line
    qint64 graceMs = 0;    // Stopping: how long before the kill
    qint64 backoffMs = 0;  // Restarting: how long before the restart
    int crashes = 0;       // CrashLoop: crashes counted
    int port = 0;          // Ready: the port it answers on
    qint64 timeoutMs = 0;  // ReadyTimeout, ProgressStalled: the limit it passed
    QString detail;
    QStringList lastLines;
};

// Real processes for the jobs a Scheduler places (HOUSE_STYLE 12: the workload runner of the
// real appliance; the twin models its workloads instead). It listens to the scheduler's events
// and, in sync(), makes the processes follow them:
// - a placed job whose units are ready and have UUIDs is launched, bound to its units
//   (bindJob): ZHAOXI_JOB, ZHAOXI_UNIT, CUDA_VISIBLE_DEVICES..., and for training and batch
//   ZHAOXI_PROGRESS (the progress file it appends JSON lines to) and ZHAOXI_CHECKPOINT_DIR (its
//   own directory, kept across evictions and restarts); for inference ZHAOXI_PORT (a free
//   loopback port per replica when `run.port` is "auto");
// - a job chosen to leave at its checkpoint (JobPreempting, tolerance checkpoint) gets its
//   checkpointSignal at once; the acknowledging progress line ("checkpoint": true) tells the
//   scheduler (Scheduler::checkpointed), which then evicts it; without an acknowledgement it is
//   evicted at the scheduler's deadline (preemption.maxCheckpointWaitMs: set
//   PreemptionOptions::checkpointOnRequest);
// - an evicted, cancelled or failed job's processes get stopSignal, then SIGKILL after
//   stopGrace; a job with tolerance "never" is never signalled by a preemption (the scheduler
//   never picks it);
// - a process that exits on its own: every process 0 → Scheduler::finish (its units go to the
//   next waiting job at the owner's next tick); otherwise → Scheduler::fail with the exit status
//   and the last log lines in the event. An inference replica is restarted on its units with
//   back-off (1 s, 2 s, ... 60 s) instead, and failed once it crashed crashLoopLimit times in a
//   row without serving for a minute in between.
// Everything runs on the thread that owns the scheduler; `clock` is the wall clock (UTC ms).
// The owner calls sync() after every scheduler command and tick, and ticks the scheduler when
// changed() is emitted.
class ProcessWorkloads final : public QObject, private Sched::EventSink
{
    Q_OBJECT

public:
    struct Options
    {
        QString dataDir;        // <dataDir>/jobs/<job>/: checkpoint/, progress.jsonl, r<rank>/
        bool allowRoot = false; // `run.user` "root" (or uid 0) allowed
        qint64 restartBackoffMs = 1000;
        qint64 maxRestartBackoffMs = 60'000;
        int crashLoopLimit = 5;
        qint64 servedResetMs = 60'000; // a replica that served this long is no longer crashing
        // The scheduler's clock (UTC ms; a run compressed in time passes faster than the wall's):
        // the time given to the scheduler and stamped on events. Empty: the wall clock.
        std::function<qint64()> clock;
        // Real elapsed ms (monotonic), for what real processes take: back-off, timeouts, lost
        // work. Empty: a monotonic clock from construction.
        std::function<qint64()> wallClock;
    };

    // What the closing report says of one job.
    struct JobStats
    {
        int starts = 0;
        int checkpoints = 0;   // acknowledged
        int preemptions = 0;   // left while running because the scheduler asked
        qint64 lostWorkMs = 0; // real running time since the last acknowledged checkpoint, at
                               // each eviction or failure
        int exitCode = -1;     // of the last process that ended (-1: none / a signal)
        int exitSignal = 0;
        qint64 lastStep = -1;
        double lastLoss = 0;
        double samplesPerS = 0;
        bool running = false;
        bool ready = false; // inference: answers its ready path
        int port = 0;       // inference: its port
    };

    ProcessWorkloads(Sched::Scheduler &scheduler,
                     ProcessRunner &runner,
                     UnitIds ids,
                     Options options,
                     QObject *parent = nullptr);
    ~ProcessWorkloads() override;

    // Whether the real appliance can run this spec: it needs `run`, and `run.user` root only
    // when allowed. *why is the reason, naming the field.
    static bool admissible(const Domain::WorkloadSpec &spec, bool allowRoot, QString *why);
    // Submits a spec to the scheduler, or refuses it (Refused event) when not admissible.
    Domain::JobId submit(const Domain::WorkloadSpec &spec, qint64 nowMs, QString *why);

    // Makes the processes follow what the scheduler did since the last call; launches what waited
    // for its units. Call after every scheduler command and tick.
    void sync(qint64 nowMs);

    // Marks an inference replica ready (the owner probes its ready path) or not.
    void setReady(Domain::JobId job, bool ready, qint64 nowMs);

    JobStats stats(Domain::JobId job) const { return m_stats.value(job.value()); }
    QString jobDir(Domain::JobId job) const;
    // The last bytes of a job's output: each rank's log.1 then log (ProcessRunner's bounded
    // pair), rank 0 alone as it is, several ranks each after a "==> r<rank> <==" line, at most
    // `maxBytes` in all (the newest kept; `truncated` when older output was left out). Not ok
    // when the job never started a process (`error` says so).
    struct LogTail
    {
        bool ok = false;
        QString error;
        QString path; // the job's directory
        QByteArray text;
        bool truncated = false;
    };
    LogTail logTail(Domain::JobId job, qint64 maxBytes) const;
    // The processes started for a job now running (empty when none).
    QStringList processKeys(Domain::JobId job) const;
    // Every process this object started or adopted that is still running.
    QList<ProcessInfo> liveProcesses() const;
    // The job whose process runs a process on this machine (it is in that process's session,
    // ProcessRunner::sessionOf); invalid when none of this object's jobs does. `bySession` is
    // jobsBySession(), taken once for many lookups.
    QHash<qint64, Domain::JobId> jobsBySession() const;
    static Domain::JobId jobOfPid(const QHash<qint64, Domain::JobId> &bySession, qint64 pid);
    // Stops everything (stopSignal, SIGKILL after grace) and waits at most `waitMs` for them to
    // exit; returns the keys of those still alive.
    QStringList stopAll(qint64 waitMs);

    const QList<ProcessEvent> &events() const { return m_events; }

    // --- Across a restart ---------------------------------------------------------------------
    // What runs now and every job's figures, for the store: {"jobs": [{"job", "name", "port",
    // "stats": {...}, "procs": [{"rank", "units": [{"card", "uid"}], "info":
    // ProcessInfo::toJson()}]}]} (procs empty for a job with nothing running).
    // recordsChanged() says when it changed (a process started or ended).
    QJsonObject records() const;
    // After a restart, on a scheduler restored to the state it had (storage's restoreState):
    // every recorded process still running is adopted and watched again (Adopted), never
    // launched a second time; a job whose processes are gone is requeued from its checkpoint
    // (Vanished; or finished when each exited 0 on its own); a process recorded for a job the
    // state no longer runs is stopped. Active jobs without a record are launched by the next
    // sync(). Call once, before the first sync().
    void adopt(const QJsonObject &records, qint64 nowMs);

Q_SIGNALS:
    void eventRecorded(const Zhaoxi::Runtime::ProcessEvent &event);
    // Something changed that the scheduler should look at (a job ended, a checkpoint was
    // acknowledged): tick it, then sync().
    void changed();
    // records() changed.
    void recordsChanged();

private:
    struct Proc
    {
        QString key;
        int rank = 0;
        QList<Sched::Assignment> units; // what it was bound to
        bool running = false;
        bool stopping = false;
        int exitCode = -1;
        int exitSignal = 0;
    };
    struct Run
    {
        Domain::JobId job;
        QList<Proc> procs;
        bool wanted = false; // placed: its processes should run
        bool launched = false;
        bool checkpointAsked = false;
        // Asked to checkpoint before its first progress line: the signal waits for that line
        // (a process still starting may not handle it yet, and the default action of SIGUSR1
        // is to die).
        bool checkpointDeferred = false;
        bool progressed = false; // a progress line since these processes started
        // Times on the wall clock (Options::wallClock), never the scheduler's.
        qint64 startedMs = 0;  // of the current processes
        qint64 lastAckMs = -1; // last acknowledged checkpoint (or resume point)
        qint64 lastProgressMs = 0;
        qint64 readySinceMs = -1;
        int crashes = 0;
        qint64 restartAtMs = -1; // inference: relaunch then
        bool ending = false;     // the scheduler ended it: exits are expected
        QString account;         // the account its processes run as
    };

    void record(const Sched::SchedEvent &event) override;
    void emitEvent(ProcessEvent e);
    bool launch(Run &run, qint64 nowMs);
    void stopProcesses(Run &run, qint64 nowMs);
    // Processes no record names (their owner died before committing them), found by the lock
    // each shim holds on its rank directory: stopped, and nothing launched there meanwhile.
    struct Holder
    {
        qint64 shimPid = 0;
        qint64 jobPid = 0; // 0: the shim has not forked the job yet
    };
    static std::optional<Holder> rankDirHolder(const QString &dir);
    bool freeRankDir(const QString &dir, Domain::JobId job, qint64 nowMs);
    bool rankDirsFree(Domain::JobId job, qint64 nowMs);
    void stopUnrecorded(qint64 nowMs);
    void onExited(const QString &key, const ExitInfo &exit);
    void onProgress(const QString &key, const ProgressLine &line);
    void signalCheckpoint(Run &run);
    void onProgressError(const QString &key, const QString &message);
    Run *runOfKey(const QString &key, int *procIndex = nullptr);
    bool unitsReady(Domain::JobId job) const;
    // A process of another job that has not exited yet still holds one of this job's units.
    bool unitsStillHeld(Domain::JobId job) const;
    int freePort() const;
    qint64 wallNow() const { return m_options.wallClock(); }

    Sched::Scheduler &m_sched;
    ProcessRunner &m_runner;
    UnitIds m_ids;
    Options m_options;
    QHash<int, Run> m_runs;              // by job id
    QHash<int, JobStats> m_stats;        // by job id
    QHash<QString, qint64> m_unrecorded; // rank dir -> when its unrecorded process was signalled
    QList<Sched::SchedEvent> m_pending;
    QList<ProcessEvent> m_events;
    bool m_inSync = false;
    bool m_saidRlimit = false;
};

} // namespace Zhaoxi::Runtime

Q_DECLARE_METATYPE(Zhaoxi::Runtime::ProcessEvent)
