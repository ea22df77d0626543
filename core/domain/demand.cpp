// SPDX-License-Identifier: GPL-3.0-or-later
#include "demand.h"

#include <algorithm>

namespace Zhaoxi::Domain {

namespace {

int slicesOf(const CardModel &model)
{
    return std::max(1, model.migComputeSlices);
}

} // namespace

int demandMilliOn(const CardModel &model, const ComputeDemand &demand)
{
    switch (demand.kind) {
    case ComputeDemand::Kind::WholeCard:
        return 1000;
    case ComputeDemand::Kind::MigProfile: {
        const int p = model.profileIndex(demand.profile);
        return p < 0 ? 0 : model.migProfiles[p].computeSlices * 1000 / slicesOf(model);
    }
    case ComputeDemand::Kind::MigSlices: {
        const int n = slicesOf(model);
        // Rounded up: a unit of N slices never reads as less compute than it holds.
        return std::min(1000, (demand.slices * 1000 + n - 1) / n);
    }
    case ComputeDemand::Kind::Fraction:
        return demand.milli;
    }
    return 0;
}

double demandShareOn(const CardModel &model, const ComputeDemand &demand)
{
    switch (demand.kind) {
    case ComputeDemand::Kind::WholeCard:
        return 1.0;
    case ComputeDemand::Kind::MigProfile: {
        const int p = model.profileIndex(demand.profile);
        return p < 0 ? 0.0 : double(model.migProfiles[p].computeSlices) / slicesOf(model);
    }
    case ComputeDemand::Kind::MigSlices:
        return std::min(1.0, double(demand.slices) / slicesOf(model));
    case ComputeDemand::Kind::Fraction:
        return demand.milli / 1000.0;
    }
    return 0.0;
}

} // namespace Zhaoxi::Domain
