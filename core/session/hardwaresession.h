// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runtimesession.h"
#include "workloadrecording.h"

#include "core/device/nvmlbackend.h"

#include <QHash>
#include <QSet>

#include <functional>
#include <memory>

class QTimer;

namespace Zhaoxi::Sched {
class Scheduler;
}
namespace Zhaoxi::Runtime {
class LiveRun;
}

namespace Zhaoxi::Session {

struct HardwareOptions
{
    // The console's setting "apply changes to the hardware" (off by default). Without it every
    // change is refused and the NVML backend itself is opened read-only.
    bool allowChanges = false;
    int pollIntervalMs = 2000;    // clamped to [kMinPollMs, kMaxPollMs]
    int layoutRefreshPolls = 5;   // MIG layouts are re-read from the driver every this many polls
    int metricPeriodMs = 60'000;  // card and partition metrics go to the store at most this often
    QString storePath;            // the event store; empty: a file in a temporary directory
    Storage::Retention retention; // how long the store keeps metrics and traces
    QString applianceName;        // empty: this machine's host name
    // The wall clock, UTC epoch ms (the composition root's real time). Empty:
    // QDateTime::currentMSecsSinceEpoch. Tests may pass a manual clock.
    std::function<qint64()> clock;
    // Real work (issue 13): where jobs keep their logs, progress and checkpoints (jobs/<job>/),
    // and the published endpoints (endpoints/). Empty: "hardware" in the user's data directory
    // (QStandardPaths::AppDataLocation), never a temporary one.
    QString dataDir;
    QString shimPath;       // zhaoxi-shim; empty: beside the running program, then PATH
    QString mpsControlPath; // nvidia-cuda-mps-control; empty: PATH (none: MPS cards refused)
    bool allowRoot = false; // the appliance file allows `run.user` root
};

// The console's real appliance: this machine's NVIDIA cards through the NVML backend, read-only
// unless changes are allowed in the settings AND the process may change MIG.
//
// It owns the backend and a Sched::Scheduler whose ClusterState mirrors what the driver reports
// (one host: this machine; its cards in NVML order, except cards whose model is not in the
// catalogue, which are left out: a snapshot's card id is the state's, `nvmlIndex()` maps it).
// A QTimer polls the backend every pollIntervalMs of wall time (metrics, Xid events, lost
// cards), re-reads the MIG layouts every layoutRefreshPolls polls, and publishes a Snapshot
// after each poll. The state's layouts are always the driver's: after a change, failed or not,
// the card is re-read and the state follows it (never what a plan intended).
//
// Snapshots: simulated = false, endMs = -1, speed 1, no services/training/queue; per card the
// backend's readings (utilisation NaN when the driver does not report it, as with MIG on);
// `readOnly`/`readOnlyProblem` (ReadOnlyDisabled, ReadOnlyNoPermission, ReadOnlyNoMig, or the
// backend's own message as Code::Text when its MIG functions are missing); events: device step reports ("step-done", "step-failed",
// "step-skipped"), faults ("fault-card-lost", "fault-memory-error", "card-recovered", "xid"),
// "layout-unmapped" when the driver lists instances the catalogue cannot name, "card-not-in-
// catalogue" once per such card, and the scheduler's own events (partition-created, ...) as the
// state follows the driver. Events are stored through a Storage::Recorder (Source::Device) when a
// store could be opened, else only handed to the snapshots.
//
// Real work: from start(), the scheduler is a Runtime::LiveRun's (the same runtime as
// `zhaoxictl run`) over this backend, on the wall clock, with real processes: submitWorkload
// (a spec with `run`), placeJob (with preemption when allowed), requeueJob (at the job's
// checkpoint when it checkpoints), cancelJob, setJobPriority, requestJobLog, and setSchedule (the
// windows policy in force from now). Placing needs no permission to change MIG: jobs go onto
// the instances and cards that exist; with changes allowed the scheduler may also create
// instances, which the backend carries out at once (the orders' results are device events, and
// the state follows the driver afterwards). Process events (launches, exits, checkpoints) are
// stored like the device's. The runtime's process records and the scheduler's state are kept in
// the store: a console started again adopts the processes still running (never launching them
// twice) and requeues those that vanished.
//
// Commands: previewLayout / applyLayout on MIG cards (applyLayout refused with the read-only
// reason when read-only; otherwise the steps run at once, each reported as an event, stopping at
// the first failure with the card's real layout in the answer). A layout that destroys instances
// jobs run on takes them off first: Immediate requeues them at once, Drain at their next
// checkpoint (the card takes no new work meanwhile); the change is applied once their processes
// have gone, at the latest at the deadline, and answered then. setSpeed has no effect (real time);
// setPaused stops polling.
//
// Threads: open() on any thread; then moveToThread() and start() through a queued call, like
// SimulationSession. The backend is used by one thread at a time: the opening thread until
// start(), the session's thread afterwards. latest() is thread-safe.
class HardwareSession final : public RuntimeSession
{
    Q_OBJECT

public:
    static constexpr int kMinPollMs = 250;
    static constexpr int kMaxPollMs = 60'000;
    // The message of open() when there is no driver: "no NVIDIA driver found", possibly followed
    // by NVML's words in parentheses; the console then offers the simulated appliance.
    static constexpr const char *kNoDriver = "no NVIDIA driver found";

    // Opens NVML (options.libraryPath; its applyEnabled, pollIntervalMs and layoutRefreshMs are
    // the session's to set and are ignored) and reads every card. nullptr with *whyNot (and
    // *status) when there is no driver (kNoDriver...) or NVML does not initialise (NVML's error).
    static std::unique_ptr<HardwareSession> open(const Device::NvmlBackendOptions &options,
                                                 HardwareOptions hardware,
                                                 QString *whyNot,
                                                 Device::NvmlOpenStatus *status = nullptr);
    ~HardwareSession() override;

    // On the session's thread (or before start()): polls the backend now, as the timer does, and
    // publishes a snapshot (tests, --screenshot).
    SnapshotPtr pollNow();
    // Publishes a snapshot of what was last read and returns it.
    SnapshotPtr publish() override;

    // State, on the session's thread.
    int pollIntervalMs() const { return m_pollIntervalMs; }
    bool isPolling() const; // the timer runs (started and not paused)
    bool allowChanges() const { return m_allowChanges; }
    Domain::Problem readOnlyProblem() const; // none: changes may be applied
    int nvmlIndex(int card) const;           // the NVML index of a state card; -1 when unknown
    const Device::NvmlBackend &backend() const { return *m_backend; }

public Q_SLOTS:
    void start() override;
    void stop() override;
    void setSpeed(double speed) override;
    void setPaused(bool paused) override;
    void setPollIntervalMs(int ms) override;
    // The console's setting "apply changes to the hardware": re-opens the backend with applying
    // enabled (or disabled) and publishes a snapshot with the new read-only state.
    void setAllowChanges(bool allow) override;

    void previewPlacement(quint64 request, int job, int card) override;
    void previewLayout(quint64 request, int card, QList<Domain::MigPlacement> target) override;
    void applyLayout(quint64 request,
                     int card,
                     QList<Domain::MigPlacement> target,
                     Zhaoxi::Session::ApplyMode mode,
                     qint64 drainDeadlineMs) override;

public:
    // runtime() (RuntimeSession): null before start(); tests and the composition root.
    // Stops every job's processes (stopSignal, SIGKILL after grace, at most waitMs): an
    // administrator shutting the appliance's work down. The console's exit does not: its jobs
    // run on and are adopted by the next start. Returns the keys of those still alive.
    QStringList stopAllWork(qint64 waitMs);

protected:
    void persistState() override { persistRuntime(); }
    bool readyForWork(CommandResult *r) const override;

private:
    // `jobs`: each of the reading's processes' job (invalid: not a job's), in its order.
    static void splitByProcesses(const Device::NvmlReading &reading,
                                 const QList<Domain::JobId> &jobs,
                                 const Sched::ClusterState &state,
                                 CardSample *card);
    // Each partition's processes, memory and utilisation from the driver's readings (replacing
    // the runtime's model of them): a MIG instance's are the processes on its MIG device (no
    // utilisation: NVML gives none per instance), the whole card's all of them, a soft share's
    // its job's.
    void unitsByProcesses(const Device::NvmlReading &reading,
                          const Device::NvmlCardReport &report,
                          const QList<Domain::JobId> &jobs,
                          const Sched::ClusterState &state,
                          const Sched::CardState &card,
                          CardSample *sample);
    // A listed process's /proc/<pid>/comm, read once while the process stays listed.
    QString processName(quint32 pid);
    void forgetProcessNames(); // after a poll: the names of pids it did not list
    Sched::Scheduler &sched() const;
    bool startRuntime(QString *why);
    void persistRuntime();
    QList<Domain::JobId> jobsInTheWay(int card,
                                      const QList<Domain::MigPlacement> &target) const override;
    void applyLayoutNow(quint64 request,
                        int card,
                        const QList<Domain::MigPlacement> &target) override;
    // A command on one job through the runtime; the answer and a snapshot follow.
    HardwareSession(std::unique_ptr<Device::NvmlBackend> backend,
                    Device::NvmlBackendOptions backendOptions,
                    HardwareOptions options);

    qint64 now() const;
    void poll();
    bool reopenBackend(bool applyEnabled, QString *why);
    Sched::ClusterState stateFromBackend() const;
    void replaceScheduler(Sched::ClusterState state);
    void followDriver(qint64 nowMs);
    bool takeFaultsAndRelayout(qint64 nowMs); // true: a card was lost or came back
    void noteXids(qint64 nowMs);
    void sampleMetrics(qint64 nowMs);
    void recordStep(const Device::NvmlStepReport &report, int card, qint64 nowMs);
    void recordDevice(qint64 atMs,
                      const QByteArray &code,
                      Storage::Severity severity,
                      const QJsonObject &params,
                      int card);
    LayoutPreview plan(int card, const QList<Domain::MigPlacement> &target) const;
    // The driver's layout of a card, by start (then profile), as byStart() orders a target.
    QList<Domain::MigPlacement> driverLayout(int card) const;
    static QList<Domain::MigPlacement> byStart(QList<Domain::MigPlacement> layout);
    // The store's state document of the runtime.
    static constexpr char kRuntimeKey[] = "hardware-runtime";

    Device::NvmlBackendOptions m_backendOptions;
    HardwareOptions m_options;
    std::unique_ptr<Device::NvmlBackend> m_backend;
    QList<int> m_nvmlIndex;                        // state card id -> NVML index
    std::unique_ptr<Sched::Scheduler> m_scheduler; // before start() (or without a runtime)
    QString m_runError; // why the runtime could not start (commands on work are refused)
    QTimer *m_timer = nullptr;
    int m_pollIntervalMs = 2000;
    bool m_paused = false;
    bool m_started = false;
    bool m_allowChanges = false;
    QString m_reopenError; // why the backend could not be re-opened for the current setting
    QHash<quint32, QString> m_processNames; // /proc/<pid>/comm of the processes listed
    QSet<quint32> m_namesSeen;              // the pids the current poll listed
    qint64 m_startMs = 0;
    qint64 m_lastPollMs = 0;
    qint64 m_nextMetricMs = 0;
    WorkloadRecording m_workloads; // the services' series in the store
    quint64 m_polls = 0;
    qint64 m_localEventId = 0;
    QList<QList<quint64>> m_seenXids;    // by NVML index: the readings' recent Xids last seen
    QList<QStringList> m_layoutProblems; // by NVML index: the problems last reported
};

} // namespace Zhaoxi::Session
