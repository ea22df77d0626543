// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/domain/cardmodel.h"

#include <QList>
#include <QString>

namespace Zhaoxi::Sched {

using Domain::CardModel;
using Domain::MigPlacement;

// One MIG instance as the planner sees it.
struct PlannerInstance
{
    int uid = -1;
    int profile = -1;
    int start = -1;
    bool busy = false; // serves a job: destroying it disrupts that job
    friend bool operator==(const PlannerInstance &, const PlannerInstance &) = default;
};

struct RepartitionStep
{
    enum class Kind { Destroy, Create };
    Kind kind = Kind::Create;
    int uid = -1; // Destroy: the instance; Create: -1
    int profile = -1;
    int start = -1;
    friend bool operator==(const RepartitionStep &, const RepartitionStep &) = default;
};

struct PlannerOptions
{
    bool mayDestroyBusy = false; // immediate mode with preemption; drain mode keeps busy ones
    bool keepIdle = false;       // never destroy idle instances either (pure additions only)
};

struct RepartitionPlan
{
    bool changed = false;         // false: the current layout already serves
    int satisfied = 0;            // how many of the wanted profiles the target holds free
    QList<MigPlacement> target;   // the whole target layout, sorted by start
    QList<RepartitionStep> steps; // in an order the hardware accepts
    QList<int> destroyedBusy;     // uids of busy instances the plan destroys
    int destroyedIdle = 0;
    QString note; // English, for logs and traces
};

// Finds a valid target layout for a MIG card that holds, free, as many as possible of the
// `wanted` profiles (in the order given: earlier ones matter more), with the least disruption:
// first fewest busy instances destroyed, then fewest idle ones destroyed, then fewest creations.
// Busy instances survive unless options allow otherwise. Steps: every destroy before any create
// (a GPU instance's compute instances go with it), creates larger profiles first, each create at
// an explicit start. Pure function: no state, no clock; reentrant, callable from any thread.
//
// A wanted entry is satisfied by its own free instance of exactly that profile: an idle instance
// kept from `current` or a created one (busy ones are never free). Indexes the model lacks are
// never satisfied. `current` must be a valid layout (Catalogue::validateLayout); when it is not,
// nothing is planned: changed is false, target is `current` as it is, and the note says why.
// Deterministic and independent of the order of `current`: among equally good plans the one
// whose creations, then destroys, sit at the lowest starts wins. The search enumerates which
// destroyable instances to keep (2^n, n <= 7 on every card sold so far) and, for each, the
// placements of the wanted profiles in what is left.
RepartitionPlan planRepartition(const CardModel &model,
                                const QList<PlannerInstance> &current,
                                const QList<int> &wanted,
                                const PlannerOptions &options = {});

// The target layout of a plan applied to `current` (for tests and previews), sorted by start;
// a destroy of a uid that `current` lacks changes nothing.
QList<MigPlacement> applySteps(const QList<PlannerInstance> &current,
                               const QList<RepartitionStep> &steps);

} // namespace Zhaoxi::Sched
