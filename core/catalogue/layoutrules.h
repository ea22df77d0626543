// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/domain/cardmodel.h"
#include "core/domain/problem.h"

#include <QList>
#include <QString>
#include <QStringView>

#include <optional>

namespace Zhaoxi::Catalogue {

using Domain::CardModel;
using Domain::MigPlacement;

// Why a MIG layout is not valid. Codes with parameters; words belong to the UI.
enum class LayoutProblem {
    None,
    NotMigCapable,        // the model has no MIG profiles
    UnknownProfile,       // placement `index` names a profile index the model lacks
    StartNotAllowed,      // placement `index`: start not among the profile's allowed starts
    Overlap,              // placement `index` overlaps placement `other`
    InstanceLimit,        // placement `index` exceeds the profile's maxInstances (limit in `limit`)
    ComputeExhausted,     // compute slices over the model's migComputeSlices (`limit`)
    MediaExtensionsTaken, // placement `index`: a second "+me" instance (first is `other`)
};

struct LayoutVerdict
{
    LayoutProblem problem = LayoutProblem::None;
    int index = -1; // offending placement
    int other = -1; // the placement it conflicts with, where there is one
    int limit = 0;
    bool isValid() const { return problem == LayoutProblem::None; }
    // One English sentence naming profiles and starts, for logs and the headless tool
    // ("The layout is valid." for a valid verdict).
    QString describe(const CardModel &model, const QList<MigPlacement> &layout) const;
};

// A layout is a list of placements on one card; the functions below are pure, reentrant and
// callable from any thread.
//
// The rules (HOUSE_STYLE 11: the facts themselves come from the catalogue files): a placement
// occupies memory slots [start, start + span) of the model's migMemorySlices-slot axis and
// computeSlices of its migComputeSlices compute slices; its start must be one of the profile's
// allowed starts; placements must not overlap; a profile has at most maxInstances instances; the
// compute slices of all placements must fit the card; at most one placement may own the media
// extensions ("+me"). An empty layout is valid on every model, MIG-capable or not.

// The code's name, e.g. "StartNotAllowed", for logs and test output.
const char *toString(LayoutProblem problem);

// A refused layout as a Domain::Problem (Code::LayoutRule): its English sentence (describe),
// then the verdict's code name, index, other and limit, so that a console can word it again
// against the layout it asked for (layoutVerdictOf).
Domain::Problem layoutRuleProblem(const LayoutVerdict &verdict,
                                  const CardModel &model,
                                  const QList<MigPlacement> &layout);
// The verdict a LayoutRule problem carries; nullopt for another problem or unknown parameters.
std::optional<LayoutVerdict> layoutVerdictOf(const Domain::Problem &problem);

// "3g.40gb@0"; "#7@0" when the profile index is not the model's.
QString formatPlacement(const CardModel &model, MigPlacement placement);
// The inverse: "3g.40gb@0" (the profile name in any case, the start a slot number). nullopt with
// an English *error naming the text: malformed (with an example), or an unknown profile (with
// the model's profiles). Whether the start is allowed is validateLayout's to say.
std::optional<MigPlacement> parsePlacement(const CardModel &model,
                                           QStringView text,
                                           QString *error);

// Checks a whole layout, placements in the given order; the first problem found is reported.
// For each placement the checks run in this order: NotMigCapable, UnknownProfile,
// StartNotAllowed, Overlap (with the earliest earlier placement it overlaps),
// MediaExtensionsTaken, InstanceLimit, ComputeExhausted.
LayoutVerdict validateLayout(const CardModel &model, const QList<MigPlacement> &layout);

// Whether `candidate` can be added to a layout that is already valid. Cheap: used per card in
// the scheduler's hot path. The verdict's `index` is layout.size() (where the candidate would
// go); to describe it, pass describe() the layout with the candidate appended.
// Does not allocate.
LayoutVerdict canAdd(const CardModel &model,
                     const QList<MigPlacement> &layout,
                     MigPlacement candidate);

// The memory slots a layout occupies, bit i = slot i.
quint32 occupancyMask(const CardModel &model, const QList<MigPlacement> &layout);

// The lowest allowed start at which `profile` can be added to a valid layout, or -1 (also for a
// profile index the model lacks). Does not allocate.
int firstFreeStart(const CardModel &model, const QList<MigPlacement> &layout, int profile);

// The steps from the `current` layout to `target`: the current placements the target lacks
// (`destroy`, indexes into `current`, in its order) and the target's placements to create, larger
// spans first (the order the driver accepts for fixed placements), then by start. Placements in
// both stay.
struct LayoutSteps
{
    QList<int> destroy;
    QList<MigPlacement> create;
};
LayoutSteps layoutSteps(const CardModel &model,
                        const QList<MigPlacement> &current,
                        const QList<MigPlacement> &target);

// Every maximal valid layout (no further placement of an allowed profile fits), each sorted by
// (start, profile), the list sorted lexicographically. `allowedProfiles` empty = all profiles;
// indexes the model lacks are ignored. Empty for a model without MIG.
QList<QList<MigPlacement>> enumerateMaximalLayouts(const CardModel &model,
                                                   const QList<int> &allowedProfiles = {});

} // namespace Zhaoxi::Catalogue
