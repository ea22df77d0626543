// SPDX-License-Identifier: GPL-3.0-or-later
#include "migfit.h"

#include "core/catalogue/layoutrules.h"

#include <algorithm>

namespace Zhaoxi::Sched::MigFit {

namespace {
// The most compute slices placeable in the free slots from `slot` on: each free slot is either
// left empty or starts an instance of a profile allowed there. Eight memory slots on every MIG
// card so far: a few hundred steps at most.
int fill(const CardModel &model, quint32 occupancy, int slot)
{
    const int slots = model.migMemorySlices;
    while (slot < slots && (occupancy >> slot & 1u))
        ++slot;
    if (slot >= slots)
        return 0;
    int best = fill(model, occupancy | (1u << slot), slot + 1);
    for (const Domain::MigProfile &p : model.migProfiles) {
        if (p.mediaExtensions || slot + p.span > slots
            || std::find(p.starts.begin(), p.starts.end(), slot) == p.starts.end())
            continue;
        const quint32 span = ((1u << p.span) - 1u) << slot;
        if (occupancy & span)
            continue;
        best = std::max(best, p.computeSlices + fill(model, occupancy | span, slot + p.span));
    }
    return best;
}
} // namespace

int placeableCompute(const CardModel &model, quint32 occupancy)
{
    return fill(model, occupancy, 0);
}

int bestStart(const CardModel &model,
              quint32 occupancy,
              int usedCompute,
              int profile,
              const quint8 *placeable)
{
    if (profile < 0 || profile >= model.migProfiles.size())
        return -1;
    const Domain::MigProfile &p = model.migProfiles[profile];
    const quint32 span = (1u << p.span) - 1u;
    const int computeLeft = model.migComputeSlices - usedCompute - p.computeSlices;
    int best = -1;
    int free = 0;
    for (int start : p.starts) {
        if (!(occupancy & (span << start)) && ++free == 1)
            best = start;
    }
    if (free < 2)
        return best; // nothing to weigh
    int bestValue = -1;
    for (int start : p.starts) {
        if (occupancy & (span << start))
            continue;
        const quint32 after = occupancy | (span << start);
        const int value = std::min(
                computeLeft, placeable ? int(placeable[after]) : placeableCompute(model, after));
        if (value > bestValue) {
            bestValue = value;
            best = start;
        }
    }
    return best;
}

int plannedStart(const CardModel &model, const QList<Domain::MigPlacement> &layout, int profile)
{
    if (Catalogue::firstFreeStart(model, layout, profile) < 0)
        return -1;
    int used = 0;
    for (const Domain::MigPlacement &l : layout)
        used += model.migProfiles[l.profile].computeSlices;
    return bestStart(model, Catalogue::occupancyMask(model, layout), used, profile);
}

} // namespace Zhaoxi::Sched::MigFit
