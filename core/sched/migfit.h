// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "clusterstate.h"

namespace Zhaoxi::Sched::MigFit {

// The lowest allowed start at which a MIG instance of `profile` can be created on the card's
// current layout without touching existing instances, or -1. Allocation-free: the hot path.
int creatableStart(const CardModel &model, const CardState &card, int profile);

} // namespace Zhaoxi::Sched::MigFit
