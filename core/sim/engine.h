// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fluidbound.h"
#include "inferenceservice.h"
#include "report.h"
#include "scenario.h"
#include "trainingrun.h"

#include "core/device/applianceevents.h"
#include "core/device/simulatedbackend.h"
#include "core/policy/policy.h"
#include "core/runtime/appliancecore.h"
#include "core/sched/scheduler.h"

#include <QHash>
#include <QMap>

#include <functional>

#include <memory>
#include <vector>
#include <queue>

namespace Zhaoxi::Sim {

// The digital twin: replays a scenario under one policy on a virtual clock. Drives the Scheduler
// (which owns placement), the SimulatedBackend (which owns the hardware's timing and physics) and
// the workload models, and is the PolicyContext the policy acts through.
//
// The loop is discrete-event: requests of each service are generated up to the next event and
// dispatched at once (a replica is FIFO, so each request's finish is known when it arrives);
// everything else is an event in one queue ordered by (time, kind, sequence): checkpoints,
// training ends, replicas becoming ready, submissions, control ticks (metrics, interference,
// shared paths, power, the fluid bound), policy wake-ups and scheduler wake-ups; device steps and
// faults come from the backend when their time comes. Nothing reads the wall clock except the
// report's wall_seconds. Same scenario, policy and seed: the same report, bit for bit.
class Engine final : public Runtime::ApplianceCore,
                     private Sched::EventSink,
                     private Sched::StepSink
{
public:
    // `policy` empty: the scenario's default. Check policy names first (makePolicy); an unknown
    // name here runs no policy at all.
    Engine(const Scenario &scenario, const QString &policy, quint64 seed);
    ~Engine() override;

    // Runs to the end and reports. Or step by step: start(), advanceTo(), finish().
    Report run();
    void start();
    void advanceTo(qint64 sinceStartMs);
    Report finish();
    qint64 nowMs() const { return m_now; } // absolute
    qint64 endMs() const { return m_scenario.startMs + m_scenario.durationMs; }
    const Scenario &scenario() const { return m_scenario; }

    // The console: an operator's command on the scheduler at the engine's current time (placing a
    // waiting job on a card, requeueing one, a new layout). What it changes is handled at once,
    // as the policy's actions are.
    void operate(const std::function<void(Sched::Scheduler &, qint64 nowMs)> &command);
    // An operator's new training or batch job, modelled from its spec (`def.workMs`, its
    // checkpoints and restart cost), submitted at the engine's current time. Returns its job.
    // Not part of the scenario: a report counts it with the scenario's own training.
    Domain::JobId submitTraining(const TrainingDef &def);
    // Replaces the policy in force (the console's schedule editor); it starts at the current
    // time. nullptr: no policy from now on.
    void setPolicy(std::unique_ptr<Policy::Policy> policy, const QString &name);
    qint64 startMs() const { return m_scenario.startMs; }

    // For tests and the console (the scheduler, its events, the policy: ApplianceCore).
    const Device::SimulatedBackend &backend() const { return *m_backend; }
    const InferenceService &service(int i) const { return *m_services[std::size_t(i)].model; }
    const TrainingRun &trainingRun(int i) const { return m_training[std::size_t(i)].run; }
    Domain::JobId trainingJob(int i) const { return m_training[std::size_t(i)].job; }
    // The scenario's training, then the operator's (submitTraining), by index.
    const TrainingDef &trainingDef(int i) const { return m_training[std::size_t(i)].def; }
    // Where capacity went so far (the report's capacity_hours), up to the last control period.
    const CapacityBreakdown &capacityHours() const { return m_capacityHours; }
    // How busy a job's units were over the last control period, 0..1 (0: idle or not placed).
    double busyShare(Domain::JobId job) const { return m_unitBusy.value(job.value(), 0.0); }
    int serviceCount() const { return int(m_services.size()); }
    int trainingCount() const { return int(m_training.size()); }
    bool trainingCompleted(int i) const { return m_training[std::size_t(i)].completed; }
    // Placements so far per shape of each workload whose spec lists alternative shapes (issue
    // 18): the services' in scenario order, then the training's; every shape listed, the primary
    // first, chosen or not. Empty when no spec has shapes. Report::shapeChoices.
    QList<ShapeChoiceReport> shapeChoices() const;

    // --- PolicyContext: the twin's workloads (the scheduler's side: ApplianceCore) -----------
    QList<Policy::ServiceView> services(qint64 nowMs) override;
    QList<Policy::TrainingView> training(qint64 nowMs) override;
    void setReplicas(int service, int replicas, qint64 nowMs, Policy::ActionReason why) override;
    bool moveReplica(int service,
                     Domain::JobId replica,
                     Domain::CardId card,
                     qint64 nowMs,
                     Policy::ActionReason why) override;
    QList<QList<double>> history(int service) const override;
    Policy::HistoryDays historyDays(int service, qint64 nowMs) const override;
    qint64 historyBucketMs() const override { return 15 * 60'000; }

private:
    // ApplianceCore's hooks: a policy command is handled at the next event (requeue: at once,
    // and a wake-up when it leaves at a checkpoint); the QoS knobs set the physics.
    void changed(qint64 nowMs) override;
    void requeued(Domain::JobId job, qint64 atMs, qint64 nowMs) override;
    void qosChanged(Qos knob, double value, qint64 nowMs) override;

    enum class Kind : int {
        Checkpoint,
        TrainingDone,
        ReplicaReady,
        Submit,
        Control,
        PolicyWake,
        SchedWake
    };
    struct Ev
    {
        qint64 t;
        Kind kind;
        int a;
        qint64 epoch;
        quint64 seq;
        bool operator>(const Ev &o) const
        {
            if (t != o.t)
                return t > o.t;
            if (kind != o.kind)
                return int(kind) > int(o.kind);
            return seq > o.seq;
        }
    };
    struct UnitRef
    {
        Domain::CardId card;
        int profile = -1;
        int start = -1;
        int milli = 1000;
        bool soft = false;
        // A job placed in an alternative shape: what its spec's speed makes of the unit's own
        // (shapeFactor); 1 in the primary shape.
        double factor = 1;
    };
    struct Replica
    {
        Domain::JobId job;
        int handle = -1; // in the service model while placed
        bool draining = false;
        bool ready = false;
        qint64 epoch = 0;
        Domain::JobId successor; // moving: the replica that takes over (this one then drains)
        bool leaving() const { return draining || successor.isValid(); }
    };
    struct ServiceRt
    {
        ServiceDef def;
        std::unique_ptr<InferenceService> model;
        QList<Replica> replicas;
        int nextName = 0;
        double nominalSlowdown = 1; // on its preferred unit
        qint64 unitMilli = 1000;
        double unitRef = 1; // reference cards one replica holds
        // The primary shape's (replicaUnit); the three above follow the shape the latest
        // replica was placed in when the spec lists alternatives.
        double primarySlowdown = 1;
        qint64 primaryMilli = 1000;
        double primaryRef = 1;
        int maxServing = 0;
        double replicaMs = 0; // replica-ms held
    };
    struct TrainingRt
    {
        TrainingDef def;
        Domain::JobId job;
        TrainingRun run;
        bool completed = false;
        qint64 completedMs = -1;
        qint64 placement = 0; // epoch of the current placement
        qint64 finishEpoch = 0;
        double lastLostMs = 0; // the work its last eviction rolled back (TrainingResumed)
        QList<QPair<double, double>> lossCurve;
    };
    struct Role
    {
        bool replica = false;
        int index = -1;
    };

    using ApplianceCore::record;
    static TrainingRt trainingRt(const TrainingDef &def); // its model, not yet submitted
    void record(const Sched::SchedEvent &event) override; // EventSink
    // StepSink: a committed statement's device orders (Runtime::deviceStepsOf), queued in line
    // with its events so that they reach the backend where the events put them.
    void committed(const QList<Sched::Step> &steps, qint64 nowMs) override;
    void push(qint64 t, Kind kind, int a = 0, qint64 epoch = 0);
    void step(qint64 untilAbs);
    void handle(const Ev &e);
    void drainScheduler(qint64 now);
    void tickScheduler(qint64 now);
    void flushSteps(qint64 now);
    void onPlaced(Domain::JobId job, qint64 now);
    void onReleased(Domain::JobId job, qint64 now, bool evicted);
    bool unitsReady(Domain::JobId job) const;
    void onUnitsReady(Domain::JobId job, qint64 now);
    void handleDevice(qint64 now);
    void control(qint64 now);
    void scheduleFinish(int training, qint64 now);
    double unitSpeed(const UnitRef &u, Domain::JobId self) const; // reference cards, before clocks
    double unitSpeedOf(const UnitRef &u, Domain::JobId self) const; // ... of the unit alone
    // For a job placed in alternative shape `shape` on units of card model `model`: the factor
    // that makes its nominal speed (units' compute share x fp16 throughput x in-domain gang
    // scaling) the spec's speed times the primary shape's nominal speed. 1 for the primary.
    double shapeFactor(const Domain::WorkloadSpec &spec, int shape, int model) const;
    // A placement in a shape of a workload that lists alternatives: counted for the report.
    void countShape(const Role &role, const Domain::WorkloadSpec &spec, int shape);
    void reclaimIdle(qint64 now);
    void sampleCapacity(qint64 now, double dtd);
    // What a gang keeps of its cards' speed by its width: gangEfficiency per doubling,
    // crossDomainEfficiency when it spans fast-link domains (1 for one unit).
    double gangFactor(const QList<UnitRef> &units) const;
    // The clocks the training power cap and the power budget leave a job: its slowest card's (a
    // gang steps together); 1 before the first control tick.
    double jobPowerFactor(const QList<UnitRef> &units) const;
    // Serving replicas of a service to drain, in order, so that cards free up whole.
    QList<int> drainOrder(int service, int count) const;
    // A replica that took over from another (moveReplica) serves: the other drains.
    void handOver(int service, Domain::JobId successor, qint64 nowMs);
    int serviceIndexOfJob(Domain::JobId job) const;

    Scenario m_scenario;
    quint64 m_seed;
    std::unique_ptr<Device::SimulatedBackend> m_backend;
    std::vector<ServiceRt> m_services;
    std::vector<TrainingRt> m_training;
    QHash<int, Role> m_roles;
    // By job: what it holds on the device. Ordered: the control tick sums over it, and a QHash's
    // order changes from process to process (its seed), which moved the sums' last bits.
    QMap<int, QList<UnitRef>> m_units;
    QHash<int, double> m_unitBusy; // by job: busy share over the last control period
    QList<int> m_waitingDevice;    // jobs placed whose units are not ready yet
    std::priority_queue<Ev, std::vector<Ev>, std::greater<Ev>> m_queue;
    quint64 m_seq = 0;
    // Scheduler events not handled yet, and the device orders of committed statements in line
    // with them (an entry with `orders`: steps, not an event).
    struct Pending
    {
        Sched::SchedEvent event;
        bool orders = false;
        QList<Device::DeviceStep> steps;
        int reconfigurations = 0;
    };
    QList<Pending> m_pending;
    QList<Device::DeviceStep> m_steps; // device steps not applied yet
    bool m_dirty = false;
    bool m_inFault = false;
    bool m_started = false;
    bool m_warm = false; // placing what was running before the start
    qint64 m_now = 0;
    qint64 m_end = 0;
    qint64 m_lastControl = 0;
    qint64 m_nextLossSample = 0;
    FluidBound m_bound;
    std::vector<double> m_clock; // per card, from the backend
    std::vector<bool> m_throttled;
    std::vector<int> m_pendingSteps; // per card: device steps not done
    double m_trainingPowerCapW = -1;
    double m_trainingBandwidthShare = 1;
    // Per card: training's clocks under its class cap and the appliance's budget, last period.
    std::vector<double> m_cardPowerFactor;
    // accounting
    double m_allocatedMs = 0, m_busyMs = 0, m_capacityMs = 0;
    CapacityBreakdown m_capacityHours;
    double m_peakPowerW = 0;
    double m_trainingGB = 0, m_inferenceGB = 0, m_trainingPathShare = 0;
    int m_reconfigurations = 0;
    // Placements per (services first, then training) workload and shape + 1; see shapeChoices.
    QMap<std::pair<int, int>, QMap<int, int>> m_shapeCounts;
    int m_preemptions = 0;
    int m_faults = 0;
    double m_wallSeconds = 0;
};

} // namespace Zhaoxi::Sim
