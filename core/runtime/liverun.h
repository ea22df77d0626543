// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "appliancecore.h"
#include "devicebridge.h"
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
    // The hardware: empty, the scenario's cards as the simulated backend has them; otherwise
    // this backend (not owned; the NVML backend of a real appliance), whose cards the scenario's
    // appliance state must then describe, `backendCard` mapping the state's card ids to the
    // backend's (empty: the same). `ownsDevice` false: the owner advances the backend and takes
    // its results and faults (the hardware session polls the driver on its own schedule); the
    // run then only queues orders and says so with deviceOrdersQueued().
    Device::DeviceBackend *backend = nullptr;
    CardMap backendCard;
    bool ownsDevice = true;
};

// A job's log, its last bytes: the output of its processes (rank 0, or every rank with a header
// line each), oldest first.
struct JobLogTail
{
    bool ok = false;
    QString error;
    QString path;
    QByteArray text;
    bool truncated = false;
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
class LiveRun final : public QObject, public ApplianceCore
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
    // Ends the run's own work (its timer, scrapes, load generators) and leaves every job's
    // processes running, recorded in resumeState() for the next owner to adopt (the console
    // exiting). The destructor then stops nothing.
    void releaseProcesses();
    // Another backend for the same cards (the hardware session re-opened NVML); not owned.
    void setBackend(Device::DeviceBackend *backend);

    qint64 startedMs() const { return m_wallStartMs; }
    // While set, scheduler changes make no device orders: the owner makes the state follow
    // what the driver shows (DeviceBridge::setMuted).
    void setFollowingDriver(bool following) { m_bridge.setMuted(following); }
    // The scenario's clock now (UTC ms).
    qint64 now() const;
    ProcessWorkloads &workloads() { return *m_work; }
    const ProcessWorkloads &workloads() const { return *m_work; }
    const Device::DeviceBackend &backend() const { return *m_backend; }
    // mutableScheduler() (ApplianceCore) is for an owner that follows the driver (the hardware
    // session): its commands on it must be followed by stepNow().

    // --- The operator's commands (the console, the service) ------------------------------------
    // Submits a workload that needs `run` (refused otherwise, *error naming the field). Training
    // and batch: one job; inference: a new service (its spec's `inference.service`, which must
    // be new) started with its minimum replicas, sized by the policy from there; the job
    // returned is its first replica. Invalid with *error when refused.
    Domain::JobId submit(const Domain::WorkloadSpec &spec, QString *error, QString *field);
    // Ends a job; a replica so ended is not replaced (its service's target drops by one, within
    // its minimum). False with *error when it has ended or is unknown.
    bool cancel(Domain::JobId job, Domain::Problem *error);
    // Back to the queue: a job that checkpoints at its next checkpoint (it is signalled now),
    // any other at once.
    bool requeue(Domain::JobId job, Domain::Problem *error);
    bool setPriority(Domain::JobId job, int priority, Domain::Problem *error);
    // Places a waiting job now (on `card` when valid), preempting only when allowed; over its
    // class budget with BudgetRule::Exceed (an operator's confirmed "place anyway").
    Sched::Decision place(Domain::JobId job,
                          Domain::CardId card,
                          bool allowPreemption,
                          Sched::BudgetRule budget = Sched::BudgetRule::Keep);
    // Repartitions a MIG card through the scheduler (its statement's steps go to the backend).
    bool applyLayout(Domain::CardId card,
                     const QList<Domain::MigPlacement> &target,
                     Domain::Problem *error);
    // Pins a card's layout until `untilMs` on this run's clock (-1: until unpinned), or unpins it
    // (0): Scheduler::pinLayout. False with *error for an unknown or failed card, an end not
    // after now, or an unpin of a card that is not pinned.
    bool pinLayout(Domain::CardId card, qint64 untilMs, Domain::Problem *error);
    // Replaces the colocation policy in force ("none": none), from now.
    bool setPolicy(const QString &name, const QJsonObject &params, QString *error);
    // An operator's cordon or drain of a card (ApplianceCore::cordonCard), then a step.
    bool cordon(int card, bool cordoned, bool drain, Domain::Problem *error);
    JobLogTail jobLog(Domain::JobId job, qint64 maxBytes) const;
    // Every service's figures over the policy's window, as the policy sees them.
    QList<Policy::ServiceView> serviceViews() { return services(now()); }
    // The scheduler tick, device orders and processes, now.
    void stepNow() { step(now()); }

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

    // --- PolicyContext: the real workloads (the scheduler's side: ApplianceCore; the power and
    // path knobs are recorded only, as no real card here has them) ---------------------------
    QList<Policy::ServiceView> services(qint64 nowMs) override;
    QList<Policy::TrainingView> training(qint64 nowMs) override;
    void setReplicas(int service, int replicas, qint64 nowMs, Policy::ActionReason why) override;
    QList<QList<double>> history(int service) const override;
    Policy::HistoryDays historyDays(int service, qint64 nowMs) const override;
    qint64 historyBucketMs() const override { return 15 * 60'000; }

Q_SIGNALS:
    void processEvent(const Zhaoxi::Runtime::ProcessEvent &event);
    void applianceEvent(const Zhaoxi::Device::ApplianceEvent &event);
    // The state worth keeping changed (each control period, and when processes start or end).
    void stateChanged();
    // Orders for the backend were queued (ownsDevice false): the owner should advance it soon.
    void deviceOrdersQueued();

private:
    // ApplianceCore's hooks: a command is followed by a step now; events are also signalled.
    void changed(qint64 nowMs) override { step(nowMs); }
    void kept(Domain::JobId, qint64) override {}
    void recorded(const Device::ApplianceEvent &event) override;

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
        double observedMeanMs = 0;     // the replicas' mean latency, smoothed (0: none yet)
        bool operatorService = false;  // submitted by an operator, not the scenario's
        std::deque<WindowSlot> window; // the policy's sliding window
        WindowSlot current;            // this control period's, being gathered
        QProcess *load = nullptr;
    };

    qint64 wallNow() const { return m_options.clock(); }
    void step(qint64 nowMs); // scheduler tick, device steps, processes
    void flushDevice(qint64 nowMs);
    void modelLoad(qint64 nowMs); // the simulated backend's cards follow the real processes
    void onScraped(const QString &key, const Scrape &scrape);
    void onProbed(const QString &key, bool ok, const QString &error);
    void publishEndpoints();
    void startLoad(int service);
    void rebuildFromState(); // a resumed run: its replicas and training jobs
    void noteMps(const QStringList &changes);
    ReplicaRt *replicaOfKey(const QString &key, int *service);
    void addReplica(int service, qint64 nowMs, Policy::ActionReason why);
    int serviceOfReplica(Domain::JobId job) const;

    Sim::Scenario m_scenario;
    LiveRunOptions m_options;
    std::unique_ptr<Device::SimulatedBackend> m_ownBackend;
    Device::DeviceBackend *m_backend = nullptr;
    DeviceBridge m_bridge;
    std::unique_ptr<ProcessRunner> m_runner;
    std::unique_ptr<ProcessWorkloads> m_work;
    std::unique_ptr<Scraper> m_scraper;
    std::unique_ptr<EndpointPublisher> m_endpoints;
    std::unique_ptr<MpsDaemons> m_mps;
    QList<ServiceRt> m_services;
    // By scenario index (invalid until submitted), then the operator's, in submission order.
    QList<Domain::JobId> m_trainingJobs;
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
