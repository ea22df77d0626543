// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fleetstate.h"

#include <QJsonObject>

namespace Zhaoxi::Fleet {

// The fleet as `zhaoxictl fleet show --json` prints it (docs/fleet.md lists every key):
//   nodes[]: name, state (Slurm's, lower case), up (takes new work), stateFlags, reason,
//            problem (present when its cards could not be mapped), cpus, allocCpus, memoryMiB,
//            allocMemoryMiB, gres, gresUsed (Slurm's text), partitions (Slurm's), cards[]:
//       index, model, mode ("whole" | "mig" | "mps" | "time-slicing"), gpuType (Slurm's type of
//       a whole or shared card), and partitions[]: a MIG instance {profile, start, gresIndex,
//       job}, a whole card {whole: true, gresIndex, job}, a soft share {share ("mps:50",
//       "shard:4"), milli, job}; job is the Slurm job id or null. A card in a soft mode also
//       has `capacity` ("mps:100", "shard:8") and `freeMilli`.
//   jobs[]: id, name, user, partition, qos, state, reason, nodes, gres (requested), allocated
//           (gres_detail), cpus, memoryMiB, submitTime, startTime (Unix seconds; 0 unset),
//           restarts
//   partitions[]: name, nodes, priorityTier, preemptMode, state, default
//   reservations[]: name, nodes, startTime, endTime, flags, partition, users
//   warnings[]: what could not be mapped, in English
// Pure; any thread.
QJsonObject fleetToJson(const FleetState &fleet);

} // namespace Zhaoxi::Fleet
