// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "slurmjson.h"

#include "core/catalogue/catalogue.h"
#include "core/sched/clusterstate.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

namespace Zhaoxi::Fleet {

// A Slurm cluster as Zhaoxi's scheduler sees it: each node a host of a Sched::ClusterState with
// its cards and partitions worked out from its GRES, each Slurm job that holds GRES a job bound
// to the units it holds. Built by buildFleetState (pure; reentrant, any thread); a plain value.
//
// The rules (docs/fleet.md):
// - gpu GRES whose type is a MIG profile name ("3g.71gb") are MIG instances. The node's MIG
//   GRES fill cards in GRES order: an instance goes on the current card at the lowest start
//   its profile may take there (the catalogue's placement table), else a new card is begun
//   (2x3g.71gb then 7x1g.18gb: two H200 cards). The model is the one a node feature names
//   (active_features holding a catalogue model name or alias), else the first model in
//   catalogue order that has every MIG profile the node lists (H200-141GB before
//   H200-NVL-141GB, A100-SXM4-80GB before H100-SXM5-80GB).
// - other typed gpu GRES ("h200", "l40s") are whole cards: the type is a catalogue name or alias
//   (case-insensitive), else the only model whose name or an alias starts with it.
// - mps:N on a node puts its gpu cards in MPS mode (N/cards percent units per card); shard:N in
//   time-slicing (N/cards shards per card).
// - Slurm numbers a node's gpu devices in the order of its gpu GRES: device i is unit i in that
//   order (cards in order, instances by start on each card). A job's gres_detail indices (IDX)
//   name the units it holds; without them it takes the first free unit of its type.
// A node Zhaoxi cannot map (an untyped or unknown gpu type, MIG and MPS mixed, a MIG layout the
// catalogue refuses) is a host without cards that is down (it takes no placement), with
// NodeMap::problem saying why; the other nodes are unaffected. A job that cannot be matched
// (GRES the node lacks, an index out of range or taken) keeps its host CPU and memory and a
// warning names it.
struct FleetCard
{
    Domain::CardId card;
    QString gpuType; // Slurm's gpu type of the card ("h200"; a MIG card: "" )
    // Slurm's gpu device indices on the node: of each unit in `uids` (whole card, MIG instances
    // in GRES order); a card in a soft mode has one index and no uids (its shares come and go).
    QList<int> gresIndices;
    QList<int> uids;
    int mpsPerCard = 0;    // MPS mode: Slurm's mps count per card (100: percent)
    int shardsPerCard = 0; // time-slicing: Slurm's shards per card
};

struct NodeMap
{
    Domain::HostId host;
    QString problem; // why its cards could not be mapped; empty when they were
    QList<FleetCard> cards;
};

struct FleetState
{
    FleetSnapshot snapshot;
    Sched::ClusterState state;
    QList<NodeMap> nodes;                      // as snapshot.nodes
    QHash<qint64, Domain::JobId> jobBySlurmId; // the jobs in `state` (holding or pending)
    QHash<int, qint64> slurmIdByJob;           // JobId value -> Slurm job id
    QStringList warnings;                      // English, one per job or node not fully mapped

    // The Slurm GRES device index of a unit (whole card or MIG instance), or -1.
    int gresIndexOf(Domain::CardId card, int uid) const;
    const FleetCard *fleetCard(Domain::CardId card) const;
    // The Slurm job id bound to a unit, or 0 for a free one.
    qint64 slurmJobOn(Domain::CardId card, int uid) const;
};

// Which of the snapshot's jobs become jobs of the state, and in what order.
enum class JobOrder {
    // Jobs that hold resources, then pending ones; ended jobs are left out (one read: the
    // command line, a submission's plan).
    HoldingThenPending,
    // Every job in the list's order, ended ones as finished, cancelled or failed jobs: job id i
    // is snapshot.jobs[i]. A session that keeps every job it has seen in the order it first saw
    // them gets the same id for a job in every read (the console's rows, traces and events
    // follow a job by its id).
    EveryJobInListOrder,
};

// Builds the state from one read of the cluster. `nowMs` becomes the submit time of jobs without
// one (and the end of ended ones). Never fails: what cannot be mapped is a NodeMap::problem or a
// warning (above).
FleetState buildFleetState(const FleetSnapshot &snapshot,
                           const Catalogue::Catalogue &catalogue,
                           qint64 nowMs,
                           JobOrder order = JobOrder::HoldingThenPending);

// The catalogue model for a whole-card gpu GRES type ("h200" -> H200-141GB), or -1.
int modelForGpuType(const Catalogue::Catalogue &catalogue, const QString &type);

// The model for a node's MIG profile names (rule above), or -1 when no model has them all.
int modelForMigProfiles(const Catalogue::Catalogue &catalogue,
                        const QStringList &profiles,
                        const QStringList &features);

} // namespace Zhaoxi::Fleet
