// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/plugin.h"

namespace Zhaoxi::Sched {

// Card level: the job's affinity allows the card model, the model has the MIG profile asked for, and its memory is large enough.
class CardModelFilter final : public FilterPlugin
{
public:
    const char *name() const override { return "CardModel"; }
    bool hostLocal() const override { return true; }
    Status filter(const CycleContext &ctx,
                  const HostState &host,
                  CardMask &cards,
                  HostOptions &options) const override;
    bool cardScoped() const override { return true; }
    // Only when some catalogue model is not allowed for the job.
    bool appliesTo(const CycleContext &ctx) const override
    {
        const qsizetype n = ctx.models.size();
        return n > 32 || ctx.allowedModels != (n == 32 ? ~0u : (1u << n) - 1u);
    }
};

} // namespace Zhaoxi::Sched
