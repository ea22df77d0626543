// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "recordingsession.h"

#include "core/fleet/fleetstate.h"
#include "core/fleet/fleetsubmit.h"
#include "core/fleet/fleetwindows.h"
#include "core/storage/metrics.h"

#include <QHash>
#include <QMap>
#include <QSet>
#include <QStringList>
#include <QUrl>

#include <functional>
#include <memory>

class QTimer;
class QProcess;

namespace Zhaoxi::Fleet {
class SlurmRestClient;
struct RestStatus;
struct JobActionResult;
struct ScontrolOptions;
} // namespace Zhaoxi::Fleet

namespace Zhaoxi::Session {

// The windows policy's parameters (the console's schedule, docs/simulation.md) as a fleet's
// windows, read by the policy's own reader so that what the console accepts is accepted here and
// an error names the same field (*field, a JSON path; *error, English). *prepareAheadMs is the
// schedule's prepareAhead (20 min when it has none): how far ahead of a window its capacity
// moves.
std::optional<QList<Fleet::ScheduleWindow>> fleetWindowsFromParams(const QJsonObject &params,
                                                                   qint64 *prepareAheadMs,
                                                                   QString *field,
                                                                   QString *error);

struct FleetOptions
{
    QUrl restUrl;      // slurmrestd, e.g. http://127.0.0.1:6820 (TCP with JWT)
    QString user;      // the token's user (X-SLURM-USER-NAME)
    QString tokenFile; // the JWT, as `scontrol token` prints it; read again for every request
    int pollIntervalMs = 5000; // a read of the whole cluster this often while it answers
    int timeoutMs = 10'000;    // per request
    int maxRetryMs = 60'000;   // the back-off's ceiling while Slurm does not answer
    // Renews the token: run with these words (argv) when the token's expiry is less than
    // renewBeforeMs away, or at once when Slurm refuses the token; its standard output (a token,
    // with or without SLURM_JWT=) replaces the token file. Empty: tokens are renewed by someone
    // else (the file is re-read), and an expiring one is an event.
    QStringList tokenCommand;
    qint64 renewBeforeMs = 5 * 60'000;
    // For requeue, which slurmrestd 22.05 cannot do: scontrol and the cluster's slurm.conf
    // (empty: scontrol from PATH, SLURM_CONF from the environment).
    QString scontrolPath;
    QString slurmConf;
    // The day/night windows as Slurm reservations (setSchedule): the partitions they reserve.
    QString trainingPartition = QStringLiteral("training");
    QString inferencePartition = QStringLiteral("inference");
    // Submissions: the batch script's working directory when a spec has no run.workdir, and
    // environment every job gets (the spec's run.env wins).
    QString submitWorkdir;
    QMap<QString, QString> submitEnvironment;
    // With slurmdbd: the QOS per kind and the one nothing preempts (Fleet::SubmitOptions).
    QMap<QString, QString> qosByKind;
    QString qosNever;
    QString storePath; // the event store; empty: a file in a temporary directory
    Storage::Retention retention;
    QString applianceName;         // empty: "Slurm at <url>"
    std::function<qint64()> clock; // UTC epoch ms; empty: the system's
};

// A Slurm cluster of appliances as the console's appliance (issue 17): every node a host, its
// GRES its cards and partitions, every Slurm job a job of the state (Fleet::buildFleetState),
// read through slurmrestd every pollIntervalMs.
//
// Jobs keep their id for the session's life: the session keeps every Slurm job it has seen in
// the order it first saw it (Fleet::JobOrder::EveryJobInListOrder), so rows, traces and events
// follow a job from read to read; a job Slurm stops listing keeps its last state.
//
// What changes between two reads is an event (Source::Device, job set where one is named):
// slurm-job-seen, slurm-job-started, slurm-job-requeued, slurm-job-ended (with Slurm's state),
// slurm-job-waiting (its pending reason changed), fleet-node-state (a node's state or drain
// reason); fleet-unreachable / fleet-reachable as Slurm stops and starts answering;
// fleet-token-renewed, fleet-token-renew-failed, fleet-token-expiring.
//
// Slurm unreachable (no answer, refused, a token Slurm refuses, an answer that cannot be read):
// the last picture stays, marked read-only with ReadOnlyFleetUnreachable (the URL, why, and
// when the next try is), and the session retries with a back-off that doubles from
// pollIntervalMs up to maxRetryMs. The first good read ends it.
//
// "Why?": for every waiting Slurm job the snapshot carries Zhaoxi's own analysis (its scheduler
// deciding on a copy of the fleet's state, repartitioning off: Slurm's layouts are static) as the
// job's decision trace, and Slurm's view (state, pending reason, user, partition, nodes) in
// Snapshot::externalJobs.
//
// Commands go to Slurm: submitWorkload (Zhaoxi picks the node, Fleet::planSubmission, and
// submits it named), cancelJob (DELETE job), setJobPriority, requeueJob (scontrol requeue).
// Layout changes are refused (FleetStaticLayout), and so are placing a waiting job
// (FleetStartsItsJobs), logs (FleetNoLogs) and cordons.
//
// Threads: create anywhere, moveToThread(), start() through a queued call; everything else on
// that thread. latest() is thread-safe.
class FleetSession final : public RecordingSession
{
    Q_OBJECT

public:
    // nullptr with *why when the options cannot work (no URL, no token file, no user).
    static std::unique_ptr<FleetSession> create(FleetOptions options, QString *why);
    ~FleetSession() override;

    // Opens the event store (start() does it when not done yet): the console audits into it
    // before the session's thread starts.
    void prepare();
    // Publishes a snapshot of what was last read and returns it.
    SnapshotPtr publish();
    // One good read of the cluster, as a poll gives it: the state, the events of what changed
    // since the last read, Zhaoxi's analysis of the waiting jobs and a snapshot. The poll calls
    // it; tests feed it recorded answers (without daemons, before or instead of start()).
    void takeRead(const Fleet::FleetSnapshot &read);
    // Reads the cluster now (tests; the timer does it otherwise). The answer arrives through the
    // event loop as a new snapshot.
    void pollNow();
    const Fleet::FleetState &fleet() const { return m_fleet; }
    bool reachable() const { return m_reachable; }
    int failuresInARow() const { return m_failures; }
    // The token's expiry (UTC epoch ms) as the token file says; -1 when it cannot be read.
    qint64 tokenExpiresAtMs() const;

public Q_SLOTS:
    void start() override;
    void stop() override;
    void setSpeed(double) override {}
    void setPaused(bool paused) override;
    void setPollIntervalMs(int ms) override;

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
    // The console's schedule becomes Slurm reservations (Fleet::planWindows, applied with
    // scontrol, all or nothing): previewed as SchedulePreview::reservations and carried out
    // after the operator confirms. A plan that changed between the preview and the confirmation
    // is refused with planChanged.
    void previewSchedule(quint64 request, QJsonObject windowsParams) override;
    void setSchedule(quint64 request, QJsonObject windowsParams) override;
    void setScheduleConfirmed(quint64 request,
                              QJsonObject windowsParams,
                              QList<int> evicted) override;
    void submitWorkload(quint64 request, QJsonObject spec) override;
    void cancelJob(quint64 request, int job) override;
    void setJobPriority(quint64 request, int job, int priority) override;
    void requestJobLog(quint64 request, int job, qint64 maxBytes) override;
    void pinLayout(quint64 request, int card, qint64 untilMs) override;

private:
    explicit FleetSession(FleetOptions options);
    qint64 now() const;
    void schedulePoll(int inMs);
    void poll();
    void onFailure(const Fleet::RestStatus &status);
    // The read's jobs merged into every job seen so far, in first-seen order.
    Fleet::FleetSnapshot withEveryJob(const Fleet::FleetSnapshot &read);
    void noteChanges(const Fleet::FleetState &before, const Fleet::FleetState &after, qint64 at);
    void analyseWaiting(qint64 at);
    void checkToken();
    void renewToken(const QString &why);
    void recordFleet(qint64 at,
                     const QByteArray &code,
                     Storage::Severity severity,
                     const QJsonObject &params,
                     int job = -1);
    // The Slurm id of a state job that Slurm still runs or queues; 0 with r's problem otherwise.
    qint64 slurmJob(int job, CommandResult *r) const;
    // Answers `r` and reads the cluster again at once (what the command changed shows sooner).
    void finish(CommandResult r);
    void refuse(quint64 request, Domain::Problem problem);
    // Why a command waits for Slurm: its URL, the last failure, the seconds to the next try.
    Domain::Problem unreachable() const;
    Fleet::ScontrolOptions scontrol() const;
    // Answers `r` with a Slurm action's outcome.
    void answerAction(CommandResult r, const Fleet::JobActionResult &a);
    // The reservations `params` would make now, or nullopt with p's problem and field.
    std::optional<Fleet::WindowsPlan> planSchedule(const QJsonObject &params, SchedulePreview *p);
    SchedulePreview schedulePreview(const QJsonObject &params,
                                    std::optional<Fleet::WindowsPlan> *plan);
    void applySchedule(quint64 request, const QJsonObject &params, bool confirmed);
    // Posts a planned submission; a refusal by Slurm is planned once more without the refused
    // node (`replanned`: this is that second try), an event says so.
    void postSubmission(CommandResult r,
                        const Fleet::SubmitPlan &plan,
                        const Domain::WorkloadSpec &spec,
                        Fleet::SubmitOptions options,
                        bool replanned);
    QList<SchedulePreview::Reservation> m_confirmedReservations; // the last preview's

    FleetOptions m_options;
    Fleet::SlurmRestClient *m_client = nullptr; // a child: it moves with the session's thread
    bool m_prepared = false;
    QTimer *m_timer = nullptr;
    bool m_started = false;
    bool m_paused = false;
    bool m_inFlight = false;
    bool m_pollAgain = false; // a command asked for a read while one was in flight
    bool m_reachable = true;  // until a read fails
    bool m_everRead = false;
    int m_failures = 0;
    qint64 m_nextTryMs = 0;
    qint64 m_downSinceMs = -1;
    QString m_lastFailure;
    QProcess *m_renewal = nullptr;
    qint64 m_warnedExpiryMs = -1; // the expiry an expiring-token event was last given for
    qint64 m_renewTriedForExpiryMs = -1;
    Fleet::FleetState m_fleet;
    QList<Fleet::FleetJob> m_jobs;        // every job seen, first-seen order
    QHash<qint64, int> m_jobIndex;        // Slurm id -> index in m_jobs
    QSet<qint64> m_listed;                // the Slurm ids the last read listed
    QHash<int, QString> m_analysedReason; // job -> the Slurm reason its trace was made for
    std::unique_ptr<Sched::Scheduler> m_analysis;
    QList<Sched::DecisionTrace> m_newTraces;
    qint64 m_startMs = 0;
};

} // namespace Zhaoxi::Session
