// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Changing MIG layouts on real cards through the NVML backend, and saying in English what
// happened: shared by `zhaoxictl apply-plan` and the console's hardware session, so both order
// the steps, drive the backend and describe the outcome the same way. formatLayout, describeStep
// and layoutSteps are pure and reentrant; applyNow drives a backend and runs on its thread.

#include "devicebackend.h"

#include "core/domain/cardmodel.h"
#include "core/sched/clusterstate.h"

#include <QList>
#include <QString>

namespace Zhaoxi::Device {

class NvmlBackend;
struct NvmlStepReport;

// A card's MIG instances as "3g.20gb@0 1g.5gb@4" (in the order given, joined by `separator`);
// "(no instances)" when there are none; "(model not in the catalogue)" when `model` < 0.
QString formatLayout(const Catalogue::Catalogue &catalogue,
                     int model,
                     const QList<InstanceInfo> &instances,
                     const QString &separator = QStringLiteral(" "));

// "destroy 3g.20gb@0", "create 1g.5gb@6", "set mode mig" (for logs, the tool and the console's
// command results; `model` < 0 names the profile by its index).
QString describeStep(const Catalogue::Catalogue &catalogue, int model, const DeviceStep &step);

// The steps that turn one MIG card's `current` instances into `target`, in the repartition
// planner's order: every destroy (instances not in the target, by start) before any create, the
// creations larger profiles first, then by start, each at its explicit placement. Instances in
// both stay untouched. The target is not validated here (Catalogue::validateLayout first).
QList<DeviceStep> layoutSteps(const Domain::CardModel &model,
                              CardId card,
                              const QList<InstanceInfo> &current,
                              const QList<Domain::MigPlacement> &target);

// What applyNow() did.
struct NvmlApplyOutcome
{
    QList<NvmlStepReport> reports; // one per step, in the steps' order
    QList<CardId> cards;           // the cards the steps name, in order of first appearance
    int done = 0;                  // steps in state Done
    bool allDone = true;
};

// Queues `steps` on the backend and carries them out now (apply + advance at `nowMs`): each card
// stops at its first failed step and is re-read from the driver, so afterwards
// backend.layout(card) is what the card really holds. The base interface's StepResults are
// drained (the reports carry them); faults stay for takeFaults().
NvmlApplyOutcome applyNow(NvmlBackend &backend, const QList<DeviceStep> &steps, qint64 nowMs);

// The scheduler's picture of this machine as the driver shows it: one host (the backend's host
// name, this machine's CPUs and physical memory), the cards the catalogue knows in NVML order
// (*nvmlIndex: the NVML index of each state card), MIG cards with the instances the driver lists,
// lost cards failed. Shared by the console's hardware session and `zhaoxictl run --hardware`.
Sched::ClusterState clusterStateOf(const NvmlBackend &backend, QList<int> *nvmlIndex);

} // namespace Zhaoxi::Device
