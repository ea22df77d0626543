// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/clusterstate.h"

#include <QList>
#include <QMap>
#include <QString>

#include <functional>
#include <optional>

namespace Zhaoxi::Runtime {

// Where a card's MPS control daemon listens: its own pipe and log directories (one daemon per
// card in MPS mode, started with the card's UUID in its CUDA_VISIBLE_DEVICES).
struct MpsDirs
{
    QString pipe;
    QString log;
};

// The identities the driver gives the units, as a CUDA process is bound by them. Asked only for
// the cards and instances a job holds.
struct UnitIds
{
    // "GPU-<uuid>" of a card; empty when unknown.
    std::function<QString(Domain::CardId)> cardUuid;
    // "MIG-<uuid>" of the ready MIG instance at (profile, start) on a card; empty when unknown
    // (for instance while it is being created).
    std::function<QString(Domain::CardId, int profile, int start)> instanceUuid;
    // The MPS daemon of a card in MPS mode.
    std::function<MpsDirs(Domain::CardId)> mpsDirs;
    // The account the card's MPS daemon serves now (empty: no clients), and a client of that
    // account coming (true) or going (false). An MPS daemon serves one user id at a time.
    std::function<QString(Domain::CardId)> mpsUser;
    std::function<void(Domain::CardId, const QString &user, bool coming)> mpsClient;
};

// One process of a job and what binds it to its units. A job is one process, except a gang of
// MIG instances: a CUDA process sees only one MIG instance, so each instance gets its own
// process, told its rank.
struct ProcessBinding
{
    int rank = 0;
    QList<Sched::Assignment> units; // the units this process uses
    QMap<QString, QString> env;     // the variables that bind it (see bindJob)
    QString visibleDevices;         // CUDA_VISIBLE_DEVICES, for events and logs
};

// The binding of a job's processes to its units, from the state that placed it:
// - whole cards: CUDA_VISIBLE_DEVICES=GPU-<uuid>, a gang's comma-separated in one process (its
//   own launcher spreads over them);
// - MIG instances: MIG-<uuid>; a gang of them one process per instance with ZHAOXI_RANK,
//   ZHAOXI_WORLD_SIZE, ZHAOXI_MASTER_ADDR and ZHAOXI_MASTER_PORT (rank 0 listens);
// - a time-slicing share: the card's GPU-<uuid>;
// - an MPS share: the card's GPU-<uuid> and its daemon's CUDA_MPS_PIPE_DIRECTORY and
//   CUDA_MPS_LOG_DIRECTORY, CUDA_MPS_ACTIVE_THREAD_PERCENTAGE from the share (rounded up, at
//   least 1) and CUDA_MPS_PINNED_DEVICE_MEM_LIMIT ("0=<MiB>M": the one device it sees) from the
//   share's memory quota when it has one;
// - a CPU-only job: CUDA_VISIBLE_DEVICES empty (no device) and NVIDIA_VISIBLE_DEVICES=void.
// Every process also gets NVIDIA_VISIBLE_DEVICES (the same value, for container runtimes),
// ZHAOXI_JOB (the job's name) and ZHAOXI_UNIT (its units, "card<id>/<uid>" comma-separated).
// nullopt with *error (English) when the job holds no units while it needs some, or a unit has
// no UUID yet. Pure: callable from any thread.
std::optional<QList<ProcessBinding>> bindJob(const Sched::ClusterState &state,
                                             Domain::JobId job,
                                             const UnitIds &ids,
                                             int masterPort,
                                             QString *error);

} // namespace Zhaoxi::Runtime
