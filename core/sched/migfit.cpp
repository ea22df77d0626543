// SPDX-License-Identifier: GPL-3.0-or-later
#include "migfit.h"

namespace Zhaoxi::Sched::MigFit {

int creatableStart(const CardModel &model, const CardState &card, int profile)
{
    // CardState::creatable already accounts for instance limits, compute slices and the media
    // engines; only the start remains to be found.
    if (profile >= 32 || !(card.creatable >> profile & 1))
        return -1;
    const Domain::MigProfile &p = model.migProfiles[profile];
    const quint32 span = (1u << p.span) - 1u;
    for (int start : p.starts) {
        if (!(card.occupancy & (span << start)))
            return start;
    }
    return -1;
}

} // namespace Zhaoxi::Sched::MigFit
