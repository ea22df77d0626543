// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/domain/cardmodel.h"

#include <QList>

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
    // One English sentence naming profiles and starts, for logs and the headless tool.
    QString describe(const CardModel &model, const QList<MigPlacement> &layout) const;
};

// Checks a whole layout, placements in the given order; the first problem found is reported.
LayoutVerdict validateLayout(const CardModel &model, const QList<MigPlacement> &layout);

// Whether `candidate` can be added to a layout that is already valid. Cheap: used per card in
// the scheduler's hot path.
LayoutVerdict canAdd(const CardModel &model, const QList<MigPlacement> &layout, MigPlacement candidate);

// The memory slots a layout occupies, bit i = slot i.
quint32 occupancyMask(const CardModel &model, const QList<MigPlacement> &layout);

// The lowest allowed start at which `profile` can be added to a valid layout, or -1.
int firstFreeStart(const CardModel &model, const QList<MigPlacement> &layout, int profile);

// Every maximal valid layout (no further placement of an allowed profile fits), each sorted by
// (start, profile), the list sorted lexicographically. `allowedProfiles` empty = all profiles.
QList<QList<MigPlacement>> enumerateMaximalLayouts(const CardModel &model,
                                                   const QList<int> &allowedProfiles = {});

} // namespace Zhaoxi::Catalogue
