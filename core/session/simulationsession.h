// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "recordingsession.h"
#include "workloadrecording.h"

#include "core/replay/storehistory.h"
#include "core/sim/scenario.h"

#include <QElapsedTimer>

#include <functional>
#include <memory>

class QTimer;

namespace Zhaoxi::Sim {
class Engine;
}

namespace Zhaoxi::Session {

struct SimulationOptions
{
    int frameMs = 20;             // wall time between advances of the virtual clock
    int snapshotIntervalMs = 100; // at most this often a snapshot is published
    int maxFrameWorkMs = 25;      // "as fast as it goes": wall time one frame may compute
    qint64 maxStepMs = 60'000;    // ... in simulated steps of at most this
    QString storePath;            // the event store; empty: a file in a temporary directory
};

// The embedded simulated appliance: a scenario's day replayed by Sim::Engine under its policy,
// faster than real time, with the operator's commands applied at the virtual now. Events go to a
// Store (Storage::Recorder) and to the snapshots; card metrics are sampled into the store once
// a simulated minute.
class SimulationSession final : public RecordingSession
{
    Q_OBJECT

public:
    SimulationSession(Sim::Scenario scenario,
                      QString policy,
                      quint64 seed,
                      SimulationOptions options = {},
                      QObject *parent = nullptr);
    ~SimulationSession() override;

    // Synchronously, on the calling thread (tests, --screenshot --at): runs the day up to
    // `sinceStartMs` and publishes a snapshot.
    void runTo(qint64 sinceStartMs);
    // Publishes a snapshot now and returns it.
    SnapshotPtr publish();

public Q_SLOTS:
    void start() override;
    void stop() override;
    void setSpeed(double speed) override;
    void setPaused(bool paused) override;
    void setPollIntervalMs(int) override {}
    // A fresh engine from the scenario; pending repartitions are answered as refused. Running or
    // paused as before.
    void restartDay() override;
    void previewPlacement(quint64 request, int job, int card) override;
    void placeJob(quint64 request, int job, int card, bool allowPreemption) override;
    void placeJobConfirmed(quint64 request,
                           int job,
                           int card,
                           QList<int> victims,
                           Sched::BudgetRule budget) override;
    void requeueJob(quint64 request, int job) override;
    void previewLayout(quint64 request, int card, QList<Domain::MigPlacement> target) override;
    void applyLayout(quint64 request,
                     int card,
                     QList<Domain::MigPlacement> target,
                     Zhaoxi::Session::ApplyMode mode,
                     qint64 drainDeadlineMs) override;
    void setSchedule(quint64 request, QJsonObject windowsParams) override;
    void previewSchedule(quint64 request, QJsonObject windowsParams) override;
    void setScheduleConfirmed(quint64 request,
                              QJsonObject windowsParams,
                              QList<int> evicted) override;
    void submitWorkload(quint64 request, QJsonObject spec) override;
    void cancelJob(quint64 request, int job) override;
    void setJobPriority(quint64 request, int job, int priority) override;
    void pinLayout(quint64 request, int card, qint64 untilMs) override;
    void cordonCard(quint64 request, int card, bool cordoned, bool drain) override;
    // The twin's workloads are models, not processes: answered with an error saying so.
    void requestJobLog(quint64 request, int job, qint64 maxBytes) override;

private:
    // placeJob and placeJobConfirmed, once the plan is checked.
    void place(quint64 request, int job, int card, bool allowPreemption, Sched::BudgetRule budget);
    struct PendingLayout
    {
        quint64 request = 0;
        Domain::CardId card;
        QList<Domain::MigPlacement> target;
        qint64 deadlineMs = 0; // absolute simulated time; then the rest leave at once
    };

    // A fresh engine from the scenario, its scheduler recorded into the store.
    void makeEngine();
    // Starts it (the recorder reads its state from then on) at the scenario's start.
    void startEngine();
    void frame();
    void advance(qint64 untilAbsMs);
    void collectEvents();
    void sampleMetrics();
    void tryPendingLayouts();
    bool applyNow(const PendingLayout &p, bool evictRest, Domain::Problem *why);
    LayoutPreview plan(int card, const QList<Domain::MigPlacement> &target) const;
    bool validJob(int job) const;
    // A command on a job that has not ended, at the engine's now; answered, then a snapshot.
    void onActiveJob(quint64 request,
                     int job,
                     const std::function<bool(Sched::Scheduler &, qint64)> &command);
    bool validCard(int card) const;

    Sim::Scenario m_scenario;
    QString m_policy;
    quint64 m_seed;
    SimulationOptions m_options;
    std::unique_ptr<Sim::Engine> m_engine;
    QTimer *m_timer = nullptr;
    QElapsedTimer m_wall;
    qint64 m_lastFrameNs = 0;
    qint64 m_lastPublishNs = -1;
    double m_speed = 60;
    bool m_paused = false;
    bool m_started = false;
    qsizetype m_applianceSeen = 0;
    // Per card id: the twin's lost-card faults (a real card's Xid 79) and memory errors (an
    // uncorrectable ECC error), counted as their events come.
    QHash<int, int> m_xidErrors;
    QHash<int, int> m_eccErrors;
    qint64 m_nextMetricMs = 0;
    WorkloadRecording m_workloads; // what a replay and the forecast read back
    QList<PendingLayout> m_pendingLayouts;
    QList<Replay::LearnEvent> m_learnEvents; // what the start learnt from the store
};

} // namespace Zhaoxi::Session
