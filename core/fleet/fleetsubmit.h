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
// - Preemption (a cluster with slurmdbd and preempt/qos, SubmitOptions::qosByKind set): the
//   kind's QOS ("qos"), e.g. inference -> "inference" (which preempts training), training ->
//   "training". preemption "never" -> SubmitOptions::qosNever (a QOS nothing preempts) and
//   requeue false; "checkpoint" and "restart" -> requeue true, so a preempted job goes back to
//   PENDING and starts again with SLURM_RESTART_COUNT one higher. Without qosByKind no "qos" is
//   sent (the account's default QOS) and only requeue follows the spec.
// - How a checkpointing unit learns that it is preempted, measured on Slurm 22.05.8
//   (docs/fleet.md, "Preemption and checkpoints"): Slurm sends SIGCONT and SIGTERM to every
//   process of the job when the victim's QOS GraceTime is over (at once with none), then SIGKILL
//   after KillWait; nothing is sent when the grace starts, and v0.0.38 refuses the batch-shell
//   form of "signal" ("B:USR1@60"). So the unit saves its checkpoint on SIGTERM. Zhaoxi tells
//   it so in its environment: ZHAOXI_CHECKPOINT_SIGNAL=SIGTERM (the signal that will come, not
//   run.checkpointSignal) and ZHAOXI_STOP_SIGNAL=SIGTERM.
// The node is named with "nodelist" (v0.0.38's "nodes" is a node count), the GRES with "gres"
// (v0.0.38 refuses "tres_per_node").
struct SubmitOptions
{
    QString workdir;                    // absolute; used when the spec has no run.workdir
    QMap<QString, QString> environment; // e.g. PATH; the spec's run.env wins
    int defaultTimeLimitMinutes = 60;
    // The QOS per kind, by the kind's spec spelling: {"inference": "inference", "training":
    // "training"}. Empty: the cluster has no QOS to choose (no slurmdbd), no "qos" key is sent.
    // A kind without an entry gets the account's default QOS.
    QMap<QString, QString> qosByKind;
    // The QOS that nothing preempts, for preemption "never" when qosByKind is set (a spec that
    // says "never" is refused without it: its kind's QOS might be preemptible, and a job that
    // may not be requeued is cancelled when it is preempted).
    QString qosNever;
    // Slurm picks the node: no "nodelist" is sent. Zhaoxi still plans, so that the GRES names
    // what would fit (its type) and a job nothing could take is refused here.
    bool slurmChooses = false;
    // Nodes the plan leaves out: those Slurm refused the job on (a re-plan after a refusal).
    QStringList avoidNodes;
};

struct SubmitPlan
{
    QString node;      // the node Zhaoxi chose (a gang over several nodes: the first)
    QStringList nodes; // every node of the job: one, or a gang's ("nodes" N, one task each)
    QString gres;      // "gpu:1g.18gb:1"; empty for a CPU-only job
    QString partition; // empty: the cluster's default
    QString qos;       // empty: none sent (the account's default QOS)
    // false only for preemption "never". slurmrestd 22.05 ignores "requeue": false (the job
    // keeps Requeue=1): the caller clears it after submitting with setSlurmJobRequeueable
    // (fleetactions.h); the QOS that nothing preempts is what keeps the job running.
    bool requeue = true;
    QString why;         // English: the decision's trace (candidates and scores)
    QJsonObject request; // the body of POST /slurm/v0.0.38/job/submit
};

// A gang no single node can hold (demand.cards > 1) is split into equal parts on as few nodes as
// take it: for k = 2, 3, ... dividing the cards, each part placed by the scheduler on a node the
// other parts do not use, every part with the same GRES (Slurm's "gres" is per node); the job
// then has "nodes" k, one task per node and the nodes in "nodelist".
// The plan, or nullopt with an English *error: a spec without run.command, run.user set (Slurm
// runs the job as the token's user), preemption "never" with qosByKind but no qosNever, or no
// node that could take it now (the scheduler's reason and trace).
std::optional<SubmitPlan> planSubmission(const FleetState &fleet,
                                         const Domain::WorkloadSpec &spec,
                                         qint64 nowMs,
                                         const SubmitOptions &options,
                                         QString *error);

// The QOS per kind as the front ends take it (--qos): "inference=inference,training=training".
// Each kind (training, inference, batch) at most once, each QOS a Slurm name; nullopt with an
// English *error naming the entry otherwise.
std::optional<QMap<QString, QString>> parseQosByKind(const QString &text, QString *error);

// "#!/bin/bash\nexec 'a' 'b c'\n": the words quoted so bash runs them as they are.
QString batchScript(const QStringList &command);

} // namespace Zhaoxi::Fleet
