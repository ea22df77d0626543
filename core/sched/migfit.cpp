// SPDX-License-Identifier: GPL-3.0-or-later
#include "migfit.h"

namespace Zhaoxi::Sched::MigFit {

int creatableStart(const CardModel &model, const CardState &card, int profile)
{
    const Domain::MigProfile &p = model.migProfiles[profile];
    int sameProfile = 0, slices = 0;
    bool mediaTaken = false;
    for (const Unit &u : card.units) {
        const Domain::MigProfile &q = model.migProfiles[u.profile];
        slices += q.computeSlices;
        sameProfile += u.profile == profile;
        mediaTaken |= q.mediaExtensions;
    }
    if (sameProfile >= p.maxInstances || slices + p.computeSlices > model.migComputeSlices)
        return -1;
    if (p.mediaExtensions && mediaTaken)
        return -1;
    const quint32 span = (1u << p.span) - 1u;
    for (int start : p.starts) {
        if (!(card.occupancy & (span << start)))
            return start;
    }
    return -1;
}

} // namespace Zhaoxi::Sched::MigFit
