// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Real job processes on this machine (Linux only): started, watched, signalled, and re-adopted
// after the console or service restarts.
//
// Each job runs under its own zhaoxi-shim (app/shim/main.cpp), after Nomad's executor: the shim
// is the job's parent, keeps its bounded log and writes its exit status to a file, so the job
// survives whoever started it and its status is never lost. The job has its own session and
// process group (pid = pgid); signals go to the group.
//
// Files in a process's directory: log and log.1 (its stdout+stderr, at most logLimitBytes in
// all, the newest kept; a relaunch into the same directory appends), exit (written by the shim
// when the job ends), info (the ProcessInfo JSON, written at launch), shim.err (the shim's own
// diagnostics and, under systemd, systemd-run's). A launch removes a previous exit file.
//
// Threading: a ProcessRunner lives on the thread that creates it and is used from that thread
// only; it polls with a QTimer every pollIntervalMs while it watches anything, so that thread
// needs an event loop. Its signals are emitted from that poll (never from inside a call to
// one of its methods), so a slot may call back into the runner (e.g. launch again). A process's
// end wakes the poll at once (Linux pidfds); progress lines are read every sweepIntervalMs, and
// every pollIntervalMs from a signal sent to it until its next checkpoint line.
//
// Identity: a process is (pid, startTicks), startTicks being field 22 of /proc/<pid>/stat. The
// runner never signals a pid whose start time no longer matches (the pid was reused); a zombie
// counts as gone.
//
// Host limits (memoryLimitMiB, cpuMilli):
// - when systemd runs (/run/systemd/system exists) and systemd-run is in the runner's PATH, the
//   shim is started as `systemd-run --scope --quiet --collect --unit=zhaoxi-<key>-<ms>
//   [-p MemoryMax=<bytes>] [-p CPUQuota=<cpuMilli/10>%] -- zhaoxi-shim ...` (with --user when
//   the runner is not root): the shim and the job share a transient scope whose cgroup enforces
//   both; limits = "systemd-scope";
// - otherwise memory is bounded by RLIMIT_DATA (heap and private mappings) set on the job by the
//   shim: limits = "rlimit". CPU is then NOT limited: cpuMilli stays a scheduling demand only;
// - limits = "none" when no limit was asked for, or when only CPU was asked for and systemd is
//   not there to apply it.

#include "progress.h"

#include <QElapsedTimer>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QMetaType>
#include <QObject>
#include <QSocketNotifier>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <map>
#include <memory>
#include <optional>

namespace Zhaoxi::Runtime {

struct LaunchRequest
{
    QString key;      // unique among the running processes: [A-Za-z0-9._-]+, not "." or ".."
    QString dir;      // absolute; created 0700 (with parents) if missing, and then given to
                      // `user` when that is another account (the shim, still root, writes the
                      // log and exit files there without following links)
    QStringList argv; // argv[0]: an absolute path, or a name looked up in the PATH given in env
    QString workdir;  // absolute; empty: dir
    // Added to (and overriding) a minimal base: PATH (the runner's), HOME, USER and LOGNAME (the
    // account's), LANG (the runner's, else C.UTF-8). Names are non-empty, without '=' or NUL.
    QMap<QString, QString> env;
    QString user; // account name; empty: the runner's own account. Another account needs root.
    qint64 logLimitBytes = 64 * 1024 * 1024; // >= 4096
    qint64 memoryLimitMiB = 0;               // host memory; 0 = no limit
    qint64 cpuMilli = 0;                     // host CPU in 1/1000 cores; 0 = no limit
    // A JSON-lines progress file to follow (progress.h); empty: none. Only lines appended after
    // the launch are reported (a resumed job may append to its earlier run's file).
    QString progressPath;
};

// What the caller stores to re-adopt the process after a restart (toJson / fromJson).
struct ProcessInfo
{
    QString key;
    QString dir;
    QStringList argv;
    QString progressPath;
    qint64 shimPid = 0;
    quint64 shimStartTicks = 0; // the shim's identity, as for the job
    qint64 pid = 0;             // the job; also its process group id
    quint64 startTicks = 0;     // field 22 of /proc/<pid>/stat: guards against pid reuse
    qint64 startedMs = 0;       // wall clock, UTC epoch ms
    QString limits;             // "systemd-scope" | "rlimit" | "none" (see above)

    // {"key","dir","argv":[...],"progress_path","shim_pid","shim_start_ticks","pid",
    //  "start_ticks" (a decimal string: it may exceed 2^53),"started_ms","limits"}
    QJsonObject toJson() const;
    // nullopt and *error (naming the field) when a field is missing or of the wrong type, the key
    // is malformed, a pid is not positive, or limits is not one of the three words.
    static std::optional<ProcessInfo> fromJson(const QJsonObject &object, QString *error);
    friend bool operator==(const ProcessInfo &, const ProcessInfo &) = default;
};

struct ExitInfo
{
    int code = -1;          // exit code; -1 when killed by a signal or unknown
    int signal = 0;         // the terminating signal; 0 when it exited
    bool requested = false; // stop() was called, or signal() sent SIGKILL, before it ended
    bool vanished = false;  // gone without an exit record (the shim died or was killed too)
    QStringList lastLines;  // the last 20 lines of its log
};

class ProcessRunner : public QObject
{
    Q_OBJECT

public:
    struct Options
    {
        QString shimPath; // the zhaoxi-shim executable (absolute)
        int pollIntervalMs = 100;
        // How long launch() waits for the shim's status line (clamped to at least 1 ms).
        int launchTimeoutMs = 30'000;
        // Every poll looks at the processes whose news is awaited: signalled ones until their
        // next checkpoint line (its acknowledgement), ended ones, kill deadlines. Every
        // sweep (at least one poll) looks at all: their progress lines and, for adopted
        // processes, their identity. A process's end is noticed at once (a pidfd; on a kernel
        // without pidfds every poll is a sweep).
        int sweepIntervalMs = 1000;
    };

    explicit ProcessRunner(const Options &options, QObject *parent = nullptr);
    // Stops watching; the processes keep running (their shims are not touched). A later runner
    // adopts them from their ProcessInfo.
    ~ProcessRunner() override;

    // Starts the process and returns once it runs or is known not to: nullopt and *error when the
    // request is invalid (naming the field), the key is in use, the user unknown, the directory
    // cannot be made, or the exec failed ("no such file", "not executable / permission denied",
    // a failed chdir or privilege drop, naming the step). On success it is watched and its
    // ProcessInfo is also written to <dir>/info. Blocks for as long as the shim takes to fork
    // and exec (milliseconds; seconds under a slow systemd), at most Options::launchTimeoutMs.
    // When the shim gives no status by then, or ends without one ("the shim gave no status
    // [within N ms]"), the launch is refused and nothing of it is left running: the shim runs in
    // a process group of its own (pgid = its pid), which is stopped, then killed together with
    // each of the shim's children and their groups (the job, if it had started), and the shim
    // is reaped. (Descendants that made sessions of their own below the job are out of reach, as
    // for stop().) No exited signal comes for a refused launch.
    std::optional<ProcessInfo> launch(const LaunchRequest &request, QString *error);

    // After a restart: true when the process still runs (same pid AND startTicks) and is now
    // watched: exited will come for it (also true for a job caught in the instant between its
    // end and its shim's exit record). Progress lines written while no runner watched are not
    // reported. False when it is gone: *ifGone then holds its exit (from the exit file when the
    // shim wrote one, else vanished = true) and no exited signal will come for it; also false
    // (with vanished = true) when the pid now belongs to another process, which is never
    // signalled. False with nothing filled when the key is already watched by this runner or
    // info.pid is not positive.
    bool adopt(const ProcessInfo &info, ExitInfo *ifGone);

    // Sends sig to the process's group. False when the key is not watched, it has exited, or its
    // identity no longer holds (then nothing is sent).
    bool signal(const QString &key, int sig);
    // Sends stopSignal now and SIGKILL to the group after graceMs unless the process has exited
    // by then (graceMs <= 0 or stopSignal == SIGKILL: SIGKILL at once). The exited signal comes
    // with requested = true. Nothing happens for an unknown or exited key, nor when the identity
    // no longer holds; a second stop() keeps the earlier SIGKILL deadline if it is sooner.
    void stop(const QString &key, int stopSignal, qint64 graceMs);

    bool isRunning(const QString &key) const;
    QList<ProcessInfo> processes() const; // the running ones, ordered by key
    // The last n lines of its log (log.1 then log), also after it exited: from the directory of
    // the last process launched or adopted under the key. Empty for an unknown key.
    QStringList lastLogLines(const QString &key, int n) const;

    // The session id of a process on this machine (field 6 of /proc/<pid>/stat), -1 when there
    // is no such process. A job's processes, its own launcher's children too, share the job's
    // session (the job's pid) unless they made one of their own.
    static qint64 sessionOf(qint64 pid);

    // The base environment a request's env is added to (for tests and diagnostics).
    static QMap<QString, QString> baseEnvironment(const QString &home, const QString &user);

Q_SIGNALS:
    // Once per launched or adopted process, when it ends.
    void exited(const QString &key, const Zhaoxi::Runtime::ExitInfo &exit);
    // Each line appended to its progress file (read every sweep, every poll from a signal sent
    // to it until its next checkpoint line, and once more before exited).
    void progressed(const QString &key, const Zhaoxi::Runtime::ProgressLine &line);
    void progressError(const QString &key, const QString &message); // "progress line 7: ..."

private:
    struct Watched;
    void poll();
    void ensureTimer();
    void watchExit(Watched &w); // its pidfd in the epoll set, when the kernel has pidfds
    void onEnded();             // the epoll set is readable: some processes ended
    void forget(Watched &w);    // closes its pidfd

    Options m_options;
    QTimer m_timer;
    QElapsedTimer m_clock; // monotonic: kill deadlines
    qint64 m_nextSweepMs = 0;
    int m_epoll = -1; // the pidfds of the processes watched
    std::unique_ptr<QSocketNotifier> m_epollWatch;
    QHash<int, Watched *> m_byPidfd;
    std::map<QString, std::unique_ptr<Watched>> m_watched;
    QList<qint64> m_unreaped;       // our shims whose job ended but that had not exited yet
    QHash<QString, QString> m_dirs; // key -> directory, kept after exit for lastLogLines
};

} // namespace Zhaoxi::Runtime

Q_DECLARE_METATYPE(Zhaoxi::Runtime::ExitInfo)
Q_DECLARE_METATYPE(Zhaoxi::Runtime::ProcessInfo)
