// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fleetstate.h"

#include "core/domain/workloadspec.h"

#include <QJsonObject>
#include <QMap>
#include <QString>

#include <optional>

namespace Zhaoxi::Fleet {

// How a workload spec becomes a Slurm batch job on the node Zhaoxi picks. Pure: the caller
// reads the fleet and posts the request (slurmrest.h). Reentrant, any thread.
//
// - The node: Zhaoxi's own scheduler (Sched::Scheduler::placeNow on a copy of the fleet's state,
//   the default profile's filters and scores, the highest-scoring feasible host) with
//   repartitioning off: Slurm's MIG layouts are static, so only instances that exist count.
// - The GRES, from the units the decision picked: a MIG instance -> gpu:<profile>:N, a whole
//   card -> gpu:<the node's type>:N, a share of an MPS card -> mps:<units>, of a time-sliced
//   card -> shard:<shards> (rounded up from the share the demand asks).
// - The partition from the kind: inference -> "inference", training -> "training", batch ->
//   the cluster's default (none named). Only the partition's nodes are candidates (a partition
//   the cluster lacks is refused here); its state (UP, DRAIN, ...) is Slurm's to judge.
// - CPUs (cpus_per_task, whole CPUs rounded up, at least 1) and memory (memory_per_node) from
//   demand.hostCpuMilli / hostMemoryMiB; memory 0 leaves Slurm's default.
// - run.command -> the batch script "#!/bin/bash\nexec <the words, quoted for bash>\n"; run.env
//   and SubmitOptions::environment -> the job's environment; run.workdir, else
//   SubmitOptions::workdir, -> current_working_directory (and slurm-%j.out there).
// - time_limit: time.expectedDuration rounded up to whole minutes, else
//   SubmitOptions::defaultTimeLimitMinutes.
// The node is named with "nodelist" (v0.0.38's "nodes" is a node count), the GRES with "gres"
// (v0.0.38 refuses "tres_per_node").
struct SubmitOptions
{
    QString workdir;                    // absolute; used when the spec has no run.workdir
    QMap<QString, QString> environment; // e.g. PATH; the spec's run.env wins
    int defaultTimeLimitMinutes = 60;
};

struct SubmitPlan
{
    QString node;        // the node Zhaoxi chose
    QString gres;        // "gpu:1g.18gb:1"; empty for a CPU-only job
    QString partition;   // empty: the cluster's default
    QString why;         // English: the decision's trace (candidates and scores)
    QJsonObject request; // the body of POST /slurm/v0.0.38/job/submit
};

// The plan, or nullopt with an English *error: a spec without run.command, run.user set (Slurm
// runs the job as the token's user), or no node that could take it now (the scheduler's reason
// and trace).
std::optional<SubmitPlan> planSubmission(const FleetState &fleet,
                                         const Domain::WorkloadSpec &spec,
                                         qint64 nowMs,
                                         const SubmitOptions &options,
                                         QString *error);

// "#!/bin/bash\nexec 'a' 'b c'\n": the words quoted so bash runs them as they are.
QString batchScript(const QStringList &command);

} // namespace Zhaoxi::Fleet
