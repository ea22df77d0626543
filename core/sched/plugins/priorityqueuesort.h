// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/plugin.h"

namespace Zhaoxi::Sched {

// Higher priority first; then the job waiting longest; then the lower id (stable, total order).
class PriorityQueueSort final : public QueueSortPlugin
{
public:
    const char *name() const override { return "PrioritySort"; }
    bool less(const Job &a, const Job &b) const override
    {
        if (a.spec.priority != b.spec.priority)
            return a.spec.priority > b.spec.priority;
        if (a.submittedMs != b.submittedMs)
            return a.submittedMs < b.submittedMs;
        return a.id < b.id;
    }
};

} // namespace Zhaoxi::Sched
