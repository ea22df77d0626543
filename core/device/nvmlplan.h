// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The plan file: a repartition plan exported from the console, applied on the machine with
// `zhaoxictl apply-plan --plan FILE --yes` by an administrator who runs privileged steps
// separately. Pure functions (reading, writing, resolving against the cards read); reentrant.
//
// Format (JSON, every key checked, unknown keys are errors):
//
//   zhaoxiPlan   int, required, must be 1
//   note         string, optional (why the plan was made; shown, not used)
//   cards        [object], required, at least one
//     uuid       string: the card's NVML UUID ("GPU-..."), preferred
//     index      int >= 0: the card's NVML index; at least one of uuid / index; when both are
//                given they must name the same card
//     model      string, required: catalogue model name or alias; must be the card's model
//     expect     [string], optional: the MIG layout the plan was made for, "<profile>@<start>";
//                when given, the card's layout must be exactly this (order does not matter), or
//                nothing is applied to it
//     steps      [object], required, at least one, in the order to run them:
//       op       "destroy" | "create"
//       instance string, "<profile>@<start>", e.g. "3g.71gb@4"
//
// The planner's order (every destroy before any create, larger profiles first) is kept as
// written; the backend stops a card's steps at the first failure.

#include "devicebackend.h"

#include "core/sched/repartitionplanner.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace Zhaoxi::Device {

struct NvmlCardReport;

struct PlanStep
{
    DeviceStep::Kind kind = DeviceStep::Kind::CreateInstance;
    Domain::MigPlacement placement;
    friend bool operator==(const PlanStep &, const PlanStep &) = default;
};

struct PlanCard
{
    QString uuid;   // empty: by index
    int index = -1; // -1: by uuid
    int model = -1; // catalogue index
    std::optional<QList<Domain::MigPlacement>> expect;
    QList<PlanStep> steps;
    friend bool operator==(const PlanCard &, const PlanCard &) = default;
};

struct PlanFile
{
    static constexpr int kVersion = 1;
    QString note;
    QList<PlanCard> cards;
    friend bool operator==(const PlanFile &, const PlanFile &) = default;
};

// Parses a plan file; nullopt with *error ("cards[0].steps[2].instance: ...") on any problem,
// including a layout step that names a profile the model lacks or a start it does not allow.
std::optional<PlanFile> readPlanFile(const QByteArray &json,
                                     const Catalogue::Catalogue &catalogue,
                                     QString *error);
QByteArray writePlanFile(const PlanFile &plan, const Catalogue::Catalogue &catalogue);

// One card's part of a plan from the repartition planner's result; `current` is what the
// planner was given (its uids name the destroyed instances), and becomes `expect`.
PlanCard planCardFrom(int model,
                      const QString &uuid,
                      int index,
                      const QList<Sched::PlannerInstance> &current,
                      const Sched::RepartitionPlan &plan);

// The plan's steps for the cards as read, or the reasons it does not fit them (an unknown UUID,
// another model, a layout other than `expect`); a plan that does not fit is not applied at all.
struct ResolvedPlan
{
    QList<DeviceStep> steps;
    QStringList problems; // English, one per problem; empty = fits
};
ResolvedPlan resolvePlan(const PlanFile &plan,
                         const Catalogue::Catalogue &catalogue,
                         const QList<NvmlCardReport> &cards);

} // namespace Zhaoxi::Device
