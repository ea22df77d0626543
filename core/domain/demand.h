// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cardmodel.h"
#include "workloadspec.h"

namespace Zhaoxi::Domain {

// The compute one unit of `demand` takes on a card of `model`, in 1/1000 of the card, with the
// model's own compute slice count (catalogue `migComputeSlices`), never a fixed 7:
//   WholeCard   1000
//   MigProfile  the profile's compute slices * 1000 / the model's slices (0: no such profile)
//   MigSlices   slices * 1000 / the model's slices, rounded up, at most 1000 (a model without
//               MIG counts its nominal slices, the catalogue's default 7: soft slicing serves)
//   Fraction    its milli
// Pure; any thread.
int demandMilliOn(const CardModel &model, const ComputeDemand &demand);

// The same share as a fraction of the card (1.0 for a whole card).
double demandShareOn(const CardModel &model, const ComputeDemand &demand);

} // namespace Zhaoxi::Domain
