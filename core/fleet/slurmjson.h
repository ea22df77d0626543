// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/domain/jsonreader.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace Zhaoxi::Fleet {

using Domain::JsonError;

// What Slurm 22.05's REST API (openapi/v0.0.38) says about a cluster, as plain values. The same
// readers take `sinfo --json` (its "nodes") and `squeue --json` (its "jobs"), which have the
// v0.0.38 shape. Only the keys listed below are read; Slurm adds many more and they are ignored.
// Times are Unix seconds as Slurm gives them (0: unset). Pure functions: reentrant, any thread.

// One generic resource: "gpu:3g.71gb:2", "gpu:h200:4", "mps:100", "shard:l40s:8", with the
// indices of the devices when Slurm names them ("gpu:1g.18gb:2(IDX:2-3)"; "(IDX:N/A)": none).
struct Gres
{
    QString name;             // "gpu", "mps", "shard", ...
    QString type;             // "3g.71gb", "h200", "l40s"; empty when untyped
    qint64 count = 0;         // with Slurm's K/M/G suffixes expanded (1K = 1024)
    QList<int> indices;       // device indices of the node (IDX), ascending; empty when not given
    QString toString() const; // "gpu:3g.71gb:2", "mps:50" (no indices)
    friend bool operator==(const Gres &, const Gres &) = default;
};

// Parses a GRES list as Slurm writes it in node "gres" / "gres_used", job "tres_per_node"
// ("gres:gpu:1g.18gb:2", the "gres:" prefix is dropped), job "gres_detail" entries and sbatch
// --gres: comma-separated name[:type][:count][(IDX:list)|(S:sockets)]. "", "(null)" and "N/A"
// are the empty list; a missing count is 1. Socket bindings "(S:0-1)" are ignored. On a
// malformed entry returns nullopt and sets *error to a sentence naming the entry.
std::optional<QList<Gres>> parseGresList(const QString &text, QString *error);

// Expands a Slurm host list: "zx-mig,zx-[1-3,7],n[01-02]" -> zx-mig, zx-1, zx-2, zx-3, zx-7,
// n01, n02 (zero padding kept). nullopt with *error on a malformed expression or one naming
// more than 100,000 hosts.
std::optional<QStringList> expandHostList(const QString &text, QString *error);

struct FleetNode
{
    QString name;
    QString state;          // Slurm's base state, lower case: "idle", "mixed", "down", ...
    QStringList stateFlags; // "DRAIN", "NOT_RESPONDING", ...
    int cpus = 0;
    int allocCpus = 0;
    qint64 realMemoryMiB = 0; // Slurm's MB are MiB
    qint64 allocMemoryMiB = 0;
    QList<Gres> gres;     // configured, in the node's order (which is Slurm's index order)
    QList<Gres> gresUsed; // in use, with IDX where Slurm gives it
    QString reason;       // why it is down or drained; empty when none
    QStringList partitions;
    QStringList features; // active features
    // Up for new work: not down, failed, future, unknown, powered off, drained or draining.
    bool acceptsWork() const;
};

struct FleetJob
{
    qint64 id = 0;
    QString name;
    QString user;
    QString partition;
    QString qos;
    QString state;             // Slurm's job state: "PENDING", "RUNNING", "COMPLETED", ...
    QString reason;            // Slurm's state_reason ("Resources", "Priority", "None", ...)
    QStringList nodes;         // allocated nodes, expanded; empty while pending
    QList<Gres> gresRequested; // per node (tres_per_node)
    // Per allocated node, in `nodes` order: what it holds there with indices (gres_detail).
    QList<QList<Gres>> gresAllocated;
    int cpus = 0;         // allocated CPUs (requested while pending)
    qint64 memoryMiB = 0; // memory per node: allocated, else requested; 0 when unknown
    qint64 submitTime = 0;
    qint64 startTime = 0; // expected start while pending
    int restarts = 0;
    // Holds resources now: RUNNING, SUSPENDED, COMPLETING, CONFIGURING, STOPPED.
    bool holdsResources() const;
    bool isPending() const { return state == QLatin1String("PENDING"); }
};

struct FleetPartition
{
    QString name;
    QStringList nodes; // expanded
    int priorityTier = 0;
    QStringList preemptMode; // "requeue", "disabled", "suspend", ...
    QString state;           // "UP", "DOWN", ...
    bool isDefault = false;
};

struct FleetReservation
{
    QString name;
    QStringList nodes; // expanded
    qint64 startTime = 0;
    qint64 endTime = 0;
    QStringList flags; // "DAILY", "IGNORE_JOBS", ...
    QString partition;
    QString users;
};

// A QOS as slurmdbd has it (GET /slurmdb/v0.0.38/qos; only with accounting).
struct FleetQos
{
    QString name;
    qint64 priority = 0;
    QStringList preempts;    // the QOS it may preempt
    QStringList preemptMode; // "REQUEUE", "CANCEL", ...; empty: the cluster's
    qint64 graceTimeS = 0;   // before a preempted job is signalled
    // GrpTRES: the QOS's limit over all its jobs, as "gres/gpu=4", "cpu=64" (limits.max.tres.total)
    QStringList groupTres;
};

// The text of each entry of an answer's "errors" array: its "description" (else "error"), with
// Slurm's error number when there is one ("Requested node configuration is not available
// (error 2014)"). Empty when the array is missing or empty.
QStringList slurmErrors(const QJsonObject &answer);

// Readers of whole answers. Each parses the bytes as one JSON object, refuses an answer whose
// "errors" array is not empty (path "errors", Slurm's texts), then reads its list. Every error
// names the JSON path of the value and what is wrong ("nodes[2].cpus: expected a number, got a
// string"; "jobs[0].tres_per_node: gres entry "gpu::x": ...").
std::optional<QList<FleetNode>> parseNodes(const QByteArray &json, JsonError *error);
std::optional<QList<FleetJob>> parseJobs(const QByteArray &json, JsonError *error);
std::optional<QList<FleetPartition>> parsePartitions(const QByteArray &json, JsonError *error);
std::optional<QList<FleetReservation>> parseReservations(const QByteArray &json, JsonError *error);
// GET /slurmdb/v0.0.38/qos: its "QOS" list.
std::optional<QList<FleetQos>> parseQos(const QByteArray &json, JsonError *error);
// The answer to POST /slurm/v0.0.38/job/submit: its job_id (Slurm's errors refused as above).
std::optional<qint64> parseSubmitResponse(const QByteArray &json, JsonError *error);

// What one read of the cluster gives.
struct FleetSnapshot
{
    QList<FleetNode> nodes;
    QList<FleetJob> jobs;
    QList<FleetPartition> partitions;
    QList<FleetReservation> reservations;
    // With slurmdbd: the cluster's QOS. `qosProblem` says why they could not be read (no
    // accounting: slurmrestd serves no /slurmdb/ path); the rest of the read stands.
    QList<FleetQos> qos;
    QString qosProblem;
};

} // namespace Zhaoxi::Fleet
