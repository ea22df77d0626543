// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/plugin.h"

namespace Zhaoxi::Sched {

// Card level: a job that needs hard isolation never lands on a time-sliced or MPS card.
class IsolationFilter final : public FilterPlugin
{
public:
    const char *name() const override { return "Isolation"; }
    bool hostLocal() const override { return true; }
    Status filter(const CycleContext &ctx,
                  const HostState &host,
                  CardMask &cards,
                  HostOptions &options) const override;
    bool cardScoped() const override { return true; }
    // Only a job that asks for hard isolation can be turned away.
    bool appliesTo(const CycleContext &ctx) const override
    {
        return ctx.spec->isolation == Domain::IsolationRequirement::HardOnly;
    }
};

} // namespace Zhaoxi::Sched
