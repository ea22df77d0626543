// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runtimesession.h"
#include "workloadrecording.h"

#include "core/sim/scenario.h"

#include <functional>
#include <memory>

class QTimer;

namespace Zhaoxi::Runtime {
class LiveRun;
}

namespace Zhaoxi::Session {

struct LiveOptions
{
    // The store (persistent: the service's --db). Empty: a file in a temporary directory.
    QString storePath;
    // Where jobs keep their logs, progress and checkpoints. Empty: "work" beside the store; a
    // resumed run keeps the directory it had.
    QString dataDir;
    QString shimPath;       // zhaoxi-shim (required)
    QString loadPath;       // zhaoxi-demo-load, for scenarios with live.load; empty: none
    QString mpsControlPath; // empty: MPS cards are simulated
    QString policy;         // empty: the scenario's default; "none": no policy
    bool allowRoot = false;
    int snapshotIntervalMs = 500; // wall time between published snapshots
    Storage::Retention retention; // how long the store keeps metrics and traces
    qint64 controlPeriodMs = 1000;
    // The wall clock, UTC epoch ms. Empty: the system's.
    std::function<qint64()> clock;
};

// The simulated cards of a scenario with real work: a Runtime::LiveRun (the runtime of
// `zhaoxictl run` and of the real appliance) served as an appliance session, so the service and
// the console drive real processes bound to the simulated backend's partitions. The service's
// `--scenario` (its demo and its tests).
//
// The run's state (layouts, queue, process records, where its clock was) is kept in the store
// as it changes: a session started again on the same store resumes it, adopting the processes
// still running and never launching one twice (LiveRun's resume). Its scenario clock goes on
// from where it was recorded.
//
// Commands act through the runtime: submitWorkload (a spec with `run`), placeJob (preempting
// only when allowed), requeueJob (at the job's checkpoint when it checkpoints), cancelJob,
// setJobPriority, requestJobLog, setSchedule (the windows policy from now), previewLayout /
// applyLayout on MIG cards (Immediate: jobs on destroyed instances go back to the queue at once;
// Drain: at their next checkpoint, the card cordoned meanwhile, applied when their processes
// have gone or at the deadline, and answered then). setSpeed and setPaused have no effect: the
// scenario's clock runs at its live.speed and real processes do not pause.
//
// Threads: create on any thread, then start() on the one that owns it (with an event loop).
class LiveSession final : public RuntimeSession
{
    Q_OBJECT

public:
    // nullptr with *why when the scenario cannot run for real (a workload without `run`, an
    // unknown policy), the shim is missing, or the recorded run does not fit the scenario.
    static std::unique_ptr<LiveSession> create(const Sim::Scenario &scenario,
                                               LiveOptions options,
                                               QString *why);
    ~LiveSession() override;

    SnapshotPtr publish() override;
    // True when this session continued a run recorded in its store.
    bool resumed() const { return m_resumed; }
    // Stops every job's processes (an administrator ending the appliance's work); the keys of
    // those still alive after waitMs.
    QStringList stopAllWork(qint64 waitMs);
    // Leaves every job's processes running, recorded for the next start to adopt, and commits
    // the store (the service's SIGTERM). The session takes no more commands on work afterwards.
    bool release(QString *error);

public Q_SLOTS:
    void start() override;
    void stop() override;
    void setSpeed(double) override;
    void setPaused(bool) override;
    void setPollIntervalMs(int) override {}
    void previewPlacement(quint64 request, int job, int card) override;
    void previewLayout(quint64 request, int card, QList<Domain::MigPlacement> target) override;
    void applyLayout(quint64 request,
                     int card,
                     QList<Domain::MigPlacement> target,
                     Zhaoxi::Session::ApplyMode mode,
                     qint64 drainDeadlineMs) override;

protected:
    void persistState() override { persist(); }
    bool readyForWork(CommandResult *r) const override;

private:
    LiveSession(Sim::Scenario scenario, LiveOptions options);
    bool prepare(QString *why);
    void persist();
    QList<Domain::JobId> jobsInTheWay(int card,
                                      const QList<Domain::MigPlacement> &target) const override;
    void applyLayoutNow(quint64 request,
                        int card,
                        const QList<Domain::MigPlacement> &target) override;

    Sim::Scenario m_scenario;
    LiveOptions m_options;
    QTimer *m_timer = nullptr;
    bool m_resumed = false;
    bool m_released = false;
    qint64 m_startMs = 0;
    qint64 m_nextMetricMs = 0;     // the scenario clock's next card-metrics sample for the store
    WorkloadRecording m_workloads; // what a replay and the forecast read back
};

} // namespace Zhaoxi::Session
