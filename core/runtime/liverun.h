// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "processworkloads.h"
#include "promtext.h"

#include "core/device/applianceevents.h"
#include "core/device/simulatedbackend.h"
#include "core/policy/policy.h"
#include "core/sim/scenario.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QObject>
#include <QProcess>
#include <QTimer>

#include <deque>
#include <memory>

namespace Zhaoxi::Runtime {

class Scraper;
class EndpointPublisher;
class MpsDaemons;

struct LiveRunOptions
{
    QString dataDir;  // jobs/, endpoints/ (created)
    QString shimPath; // the zhaoxi-shim executable
    QString loadPath; // zhaoxi-demo-load, for scenarios with live.load; empty: none
    // nvidia-cuda-mps-control for cards in MPS mode; empty: the cards are simulated (the
    // daemons' lifecycle runs without the binary).
    QString mpsControlPath;
    // The longest control period, wall ms (scheduler tick, probes, scrapes): the scenario's
    // period at its speed, within [250 ms, this].
    qint64 controlPeriodMs = 1000;
    bool allowRoot = false;
    QString policy; // empty: the scenario's default; "none": no policy
    // The wall clock, UTC epoch ms. Empty: the system's.
    std::function<qint64()> clock;
    // Resuming a run whose owner died: the scenario time it had reached (its clock goes on from
    // there) and its process records (ProcessWorkloads::records()). The scenario's state must
    // then be the one restored from the store.
    std::optional<qint64> resumeAtMs;
    QJsonObject processRecords;
};

// A scenario run with real processes (zhaoxictl run): the scenario's cards as the simulated
// backend has them (their partitions take the backend's time to appear, their UUIDs are its
// stable fake ones), the same Scheduler as the twin with checkpoints on request, the same
// colocation policy acting through this object (the real appliance's PolicyContext), and every
// workload a real process from its spec's `run` (ProcessWorkloads).
//
// Time: the scheduler and the policy run on the scenario's clock, which starts at the scenario's
// start and passes `live.speed` times faster than the wall's, so a day's traffic shape can pass
// in minutes; what processes take (back-off, stop grace, timeouts, lost work) is real time.
// Training is submitted at its `submitAt` (scenario time); each service starts with its minimum
// replicas and the policy sizes it from there. With `live.load`, each service is driven by a
// zhaoxi-demo-load process along its rate curve (in real requests per second), sent to the
// replicas' published endpoints.
//
// Every control period (wall time): device steps advance, the scheduler ticks, replicas are
// probed until ready and then scraped (their Prometheus text); the service windows the policy
// sees are the last `control.window` of scrapes; endpoints of the ready replicas are published
// (endpoints/endpoints.json, upstreams.conf); the policy is woken when it asked to be.
//
// Single thread: the one that creates it, with an event loop.
class LiveRun final : public QObject, public Policy::PolicyContext
{
    Q_OBJECT

public:
    LiveRun(const Sim::Scenario &scenario, LiveRunOptions options, QObject *parent = nullptr);
    ~LiveRun() override;

    // Checks every workload can run for real (each needs `run`) and the policy exists; false
    // with *error naming the workload and the field. Then starts the clock.
    bool start(QString *error);
    // Stops every process (stopSignal, SIGKILL after its grace, waiting at most waitMs) and the
    // load generators; returns the keys of those still alive (the report's orphans).
    QStringList stop(qint64 waitMs);

    qint64 startedMs() const { return m_wallStartMs; }
    // The scenario's clock now (UTC ms).
    qint64 now() const;
    ProcessWorkloads &workloads() { return *m_work; }
    const Device::SimulatedBackend &backend() const { return *m_backend; }
    const Sched::MemoryEventSink &schedulerEvents() const { return m_schedEvents; }
    const Device::MemoryApplianceEventSink &applianceEvents() const { return m_applianceEvents; }
    const QString &policyName() const { return m_policyName; }

    // {"jobs":[{name,kind,state,starts,checkpoints,preemptions,lost_work_s,exit_code,...}],
    //  "services":[{name,replicas_max,requests,p99_ms,slo_p99_ms,slo_attainment,source}],
    //  "policy", "speed"} — measured, not modelled: service figures come from the replicas' own
    // metrics (p99 estimated from their histogram buckets, as Prometheus does).
    QJsonObject report() const;

    // One control period now (tests may drive it by hand as well).
    void control();

    // Receives every scheduler event as it happens (the store's recorder).
    void addSchedulerSink(Sched::EventSink *sink) { m_sched->addSink(sink); }
    // What a resumed run needs, for the store: {"scenario_ms", "data_dir", "processes"}.
    QJsonObject resumeState() const;

    // --- PolicyContext -----------------------------------------------------------------------
    const Sched::Scheduler &scheduler() const override { return *m_sched; }
    qint64 localWeekMs(qint64 nowMs) const override;
    qint64 totalMilli() const override;
    QList<Policy::ServiceView> services(qint64 nowMs) override;
    QList<Policy::TrainingView> training(qint64 nowMs) override;
    void setReplicas(int service, int replicas, qint64 nowMs, Policy::ActionReason why) override;
    void setBudget(const Sched::ClassBudget &budget,
                   qint64 nowMs,
                   Policy::ActionReason why) override;
    qint64 requeueTraining(Domain::JobId job,
                           qint64 nowMs,
                           bool atCheckpoint,
                           Policy::ActionReason why) override;
    bool keepTraining(Domain::JobId job, qint64 nowMs, Policy::ActionReason why) override;
    // Simulated cards have no power or path knobs to turn: recorded as events only.
    void setTrainingPowerCapW(double watts, qint64 nowMs) override;
    void setTrainingBandwidthShare(double share, qint64 nowMs) override;
    void record(const Device::ApplianceEvent &event) override;
    QList<QList<double>> history(int service) const override;
    qint64 historyBucketMs() const override { return 15 * 60'000; }

Q_SIGNALS:
    void processEvent(const Zhaoxi::Runtime::ProcessEvent &event);
    void applianceEvent(const Zhaoxi::Device::ApplianceEvent &event);
    // The state worth keeping changed (each control period, and when processes start or end).
    void stateChanged();

private:
    struct ReplicaRt
    {
        Domain::JobId job;
        std::optional<Scrape> last;
        std::optional<double> queue; // the last scrape's queue gauge
        bool leaving = false;        // withdrawn: stopping
    };
    struct WindowSlot // one scrape window of one service, summed over its replicas
    {
        double seconds = 0;
        double requests = 0;
        double overSlo = 0;
        QMap<double, double> buckets;
    };
    struct ServiceRt
    {
        Sim::ServiceDef def;
        MetricNames names;
        Sim::ReplicaUnit unit;
        QList<ReplicaRt> replicas;
        int nextName = 0;
        int maxServing = 0;
        double requests = 0;
        double overSlo = 0;
        QMap<double, double> buckets;  // the run's requests by bound (ms), cumulative
        double meanSumMs = 0;          // CounterSum kind: mean * requests
        std::deque<WindowSlot> window; // the policy's sliding window
        WindowSlot current;            // this control period's, being gathered
        QProcess *load = nullptr;
    };

    qint64 wallNow() const { return m_options.clock(); }
    void step(qint64 nowMs); // scheduler tick, device steps, processes
    void flushDevice(qint64 nowMs);
    void onScraped(const QString &key, const Scrape &scrape);
    void onProbed(const QString &key, bool ok, const QString &error);
    void publishEndpoints();
    void startLoad(int service);
    void rebuildFromState(); // a resumed run: its replicas and training jobs
    void noteMps(const QStringList &changes);
    ReplicaRt *replicaOfKey(const QString &key, int *service);
    void addReplica(int service, qint64 nowMs, Policy::ActionReason why);

    Sim::Scenario m_scenario;
    LiveRunOptions m_options;
    QString m_policyName;
    std::unique_ptr<Sched::Scheduler> m_sched;
    std::unique_ptr<Device::SimulatedBackend> m_backend;
    std::unique_ptr<ProcessRunner> m_runner;
    std::unique_ptr<ProcessWorkloads> m_work;
    std::unique_ptr<Scraper> m_scraper;
    std::unique_ptr<EndpointPublisher> m_endpoints;
    std::unique_ptr<MpsDaemons> m_mps;
    std::unique_ptr<Policy::Policy> m_policy;
    Sched::MemoryEventSink m_schedEvents{200'000};
    Device::MemoryApplianceEventSink m_applianceEvents{200'000};
    QList<Sched::SchedEvent> m_deviceEvents;
    struct DeviceSink : Sched::EventSink
    {
        QList<Sched::SchedEvent> *out = nullptr;
        void record(const Sched::SchedEvent &e) override
        {
            if (e.code == Sched::EventCode::PartitionCreated
                || e.code == Sched::EventCode::PartitionDestroyed
                || e.code == Sched::EventCode::CardModeChanged)
                out->append(e);
        }
    } m_deviceSink;
    QList<ServiceRt> m_services;
    QList<Domain::JobId> m_trainingJobs; // by scenario index (invalid until submitted)
    QTimer m_timer;
    qint64 m_wallStartMs = 0;
    qint64 m_clockStartMs = 0;  // the scenario time at m_wallStartMs
    qint64 m_periodMs = 1000;   // the control period, wall ms
    int m_windowSlots = 12;     // control periods in the policy's window
    qint64 m_policyWakeMs = -1; // scenario time
    qint64 m_schedWakeMs = -1;
    bool m_started = false;
    bool m_stepping = false;
    QString m_endpointError; // the last one reported
};

} // namespace Zhaoxi::Runtime
