// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/clusterstate.h"
#include "core/sched/decisiontrace.h"
#include "core/sched/scheduler.h"
#include "core/storage/event.h"

#include <QList>
#include <QMetaType>
#include <QString>

#include <memory>

namespace Zhaoxi::Session {

// A compute process on a partition, as the driver lists it (hardware only).
struct UnitProcess
{
    quint32 pid = 0;
    QString name;          // its command (/proc/<pid>/comm); empty when it could not be read
    qint64 memoryMiB = -1; // device memory it uses; -1 when the driver does not say
    int job = -1;          // the Zhaoxi job it belongs to; -1: a process Zhaoxi did not start
    friend bool operator==(const UnitProcess &, const UnitProcess &) = default;
};

// One partition of a card (a MIG instance, the whole card or a soft share), by its uid.
struct UnitSample
{
    int uid = -1;
    // The share of the partition its job keeps busy, 0..1; NaN when the hardware cannot say
    // (NVML reports no utilisation per MIG instance).
    double utilisation = 0;
    // Device memory in use on it; -1 when unknown (the driver did not list the processes).
    qint64 memoryUsedMiB = 0;
    QList<UnitProcess> processes; // on hardware, where the driver lists them
    friend bool operator==(const UnitSample &, const UnitSample &) = default;
};

// One card's readings at the snapshot's time.
struct CardSample
{
    int card = -1;
    bool lost = false;
    // 0..1; NaN when the hardware cannot say (a real MIG card: NVML reports no device
    // utilisation), shown as "not available", never as zero.
    double utilisation = 0;
    double trainingUtilisation = 0;  // the part of `utilisation` serving training jobs
    double inferenceUtilisation = 0; // ... and inference replicas
    qint64 memoryUsedMiB = 0;
    qint64 memoryTotalMiB = 0;
    // Whose the used memory is, where the hardware lists its processes (a real card: NVML's
    // compute processes matched to the jobs' process sessions); -1 where it does not (the twin,
    // a driver that gives no per-process memory). "Other": processes Zhaoxi did not start.
    qint64 trainingMemoryMiB = -1;
    qint64 inferenceMemoryMiB = -1;
    qint64 otherMemoryMiB = -1;
    int otherProcesses = 0; // compute processes on the card that are none of Zhaoxi's jobs'
    // Where the split of `utilisation` comes from: each process's own SM utilisation as the
    // driver samples it (true), or the share of the card's units each class holds (false).
    bool utilisationMeasuredPerProcess = false;
    double temperatureC = 0;
    double powerW = 0;
    double powerLimitW = 0;
    bool throttled = false;
    quint64 throttleReasons = 0; // Device::ThrottleReason bits (NVML's) while throttled
    // The model's (or, on a real card, the driver's) slowdown and shutdown temperatures; 0:
    // unknown.
    int slowdownTempC = 0;
    int shutdownTempC = 0;
    // Errors seen on the card since the session began: critical Xids (a real card's driver
    // events; the twin's lost-card faults) and uncorrectable ECC errors.
    int xidErrors = 0;
    qint64 eccUncorrected = 0;
    // The share of its full clock the card runs at (1: full; lower while throttled): the
    // simulated backend's model, or NVML's SM clock over its maximum; NaN when unknown.
    double clockFactor = 1;
    QList<int> busyUnits;    // uids of units whose job is working now (allocated but idle: absent)
    QList<UnitSample> units; // every partition of the card, in the card's unit order
};

// One inference service over the policies' sliding window.
struct ServiceSample
{
    int index = 0;
    QString name;
    double sloMs = 0;
    double p50Ms = 0;
    double p99Ms = 0;
    double ratePerS = 0;
    double attainment = 1; // 0..1, since the start of the day
    int replicas = 0;      // serving
    int targetReplicas = 0;
    int minReplicas = 0;
    int maxReplicas = 0;
};

// One training job of the scenario.
struct TrainingSample
{
    Domain::JobId job;
    QString name;
    double speed = 0;     // reference cards of work per second of time (0: not running)
    double loss = 0;      // on its loss curve at the work done so far
    double progress = 0;  // 0..1
    double doneHours = 0; // reference-card hours of work done
    double workHours = 0; // ... in all
    double lostHours = 0;
    bool completed = false;
};

// A job as the scheduler that runs it reports it: a fleet's Slurm (FleetSession). The console
// shows it beside Zhaoxi's own view ("Why?": Slurm's pending reason beside Zhaoxi's analysis).
struct ExternalJob
{
    int job = -1;      // the state's job id
    qint64 id = 0;     // Slurm's job id
    QString state;     // Slurm's job state: "PENDING", "RUNNING", "COMPLETED", ...
    QString reason;    // Slurm's state reason: "Resources", "Priority", "None", ...
    QString user;      // who submitted it
    QString partition; // Slurm's partition
    QString qos;       // empty without accounting
    QStringList nodes; // where it runs (empty while pending)
    int restarts = 0;  // times Slurm requeued it
    friend bool operator==(const ExternalJob &, const ExternalJob &) = default;
};

// What the console shows, at one simulated (or real) moment. Immutable once published: the
// session thread builds it, the GUI thread reads it through a shared pointer. ClusterState's lists
// are implicitly shared, so a snapshot costs little more than the samples.
struct Snapshot
{
    quint64 serial = 0;       // increases with every snapshot of one session
    qint64 nowMs = 0;         // UTC epoch ms
    qint64 startMs = 0;       // the day's start (simulation) or the session's (hardware)
    qint64 endMs = 0;         // the day's end; -1: open-ended (hardware)
    int utcOffsetSeconds = 0; // the appliance's local time (windows, the time axis)
    double speed = 1;         // simulated seconds per wall second; <= 0: as fast as it goes
    bool paused = false;
    bool finished = false; // the simulated day is over
    bool simulated = true;
    // Hardware: changes are refused (settings, or no privileges to change MIG). The banner words
    // `readOnlyProblem` (a code: ReadOnly*, or Text with the backend's own English); its
    // english() is the service's "read_only_reason".
    bool readOnly = false;
    Domain::Problem readOnlyProblem;
    // Attached to a service (zhaoxi --connect): its socket; empty when the console embeds the
    // appliance (its clock, speed and pause are then the service's, not the console's).
    // `connected` is false while the service is unreachable: the picture is the last one read.
    QString servicePath;
    bool connected = true;
    QString applianceName;
    // The scheduler that runs the jobs when it is not Zhaoxi's own: "slurm" for a fleet through
    // Slurm; empty otherwise. Its view of each job it runs is in `externalJobs`.
    QString externalScheduler;
    QList<ExternalJob> externalJobs; // in job id order
    QString policy;                  // the colocation policy in force
    QString window;                  // the time window in force (windows policy), empty otherwise
    Sched::ClusterState state;
    Sched::ClassBudget budget;
    QList<Domain::JobId> queue; // waiting jobs, in queue order
    QList<CardSample> cards;    // index = card id
    QList<ServiceSample> services;
    QList<TrainingSample> training;
    QList<Storage::Event> events; // stored since the previous snapshot, in order
    // Decision traces of jobs decided since the previous snapshot (the latest per job).
    QList<Sched::DecisionTrace> traces;
};

using SnapshotPtr = std::shared_ptr<const Snapshot>;

} // namespace Zhaoxi::Session

Q_DECLARE_METATYPE(Zhaoxi::Session::SnapshotPtr)
