// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "clusterstate.h"

namespace Zhaoxi::Sched::MigFit {

// The allowed start at which a MIG instance of `profile` can be created on the card's current
// layout without touching existing instances, or -1: of the free starts, the one that leaves the
// most compute slices placeable afterwards (bestStart), so that a 3g instance on an H100 or H200
// goes where it does not strand the last memory slot. A lookup: ClusterState works the starts out
// when a card's layout changes (CardState::createStart). The hot path.
inline int creatableStart(const CardState &card, int profile)
{
    return profile >= 0 && profile < 32 && (card.creatable >> profile & 1)
                   ? card.createStart[size_t(profile)]
                   : -1;
}

// The same for a planned layout rather than a card's state (a policy weighing where replicas
// would go): the start creatableStart would choose once the layout rules allow an instance of
// `profile` at all (Catalogue::firstFreeStart), or -1.
int plannedStart(const CardModel &model, const QList<Domain::MigPlacement> &layout, int profile);

// Of the allowed starts of `profile` free in `occupancy` (bit i = memory slot i taken), the one
// after which the most compute slices can still be placed (at most the model's compute slices
// left once `usedCompute` and the new instance are counted); the lowest such start on a tie, -1
// when none is free. Ignores instance limits and media extensions. Pure; does not allocate.
// `placeable`: the model's ClusterState::placeableTable, or null to search.
int bestStart(const CardModel &model,
              quint32 occupancy,
              int usedCompute,
              int profile,
              const quint8 *placeable = nullptr);

// How many compute slices instances could still add in the free slots of `occupancy` (not
// counting instance limits or the compute slices left).
int placeableCompute(const CardModel &model, quint32 occupancy);

} // namespace Zhaoxi::Sched::MigFit
