// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/plugin.h"
#include "core/sched/plugins/hostview.h"
#include "core/sched/plugins/shapecache.h"
#include "core/sched/targetworkload.h"

#include <memory>

namespace Zhaoxi::Sched {

// FGD protocol 4.6, "FGD" (Weng et al., ATC'23): the host whose fragmentation, measured against
// the target workload, grows least (or shrinks most) when the job lands there:
// score = trunc(100 sigmoid((F(host) - F(host')) / 1000)). A fractional job is tried on each
// feasible card and takes the best one (lowest index on ties); whole cards come from the
// framework's best-fit picker (the lowest-indexed free ones). Scores are memoised per (host,
// job shape) on the host's version.
class FgdScore final : public ScorePlugin
{
public:
    explicit FgdScore(std::shared_ptr<const TargetWorkload> target);
    const char *name() const override { return "FGD"; }
    bool hostLocal() const override { return true; }
    double score(const CycleContext &ctx, const HostState &host, CardMask feasible) const override;
    bool picksCards() const override { return true; }
    bool pickCards(const CycleContext &ctx,
                   const HostState &host,
                   CardMask feasible,
                   const HostOptions &options,
                   Placement *out) const override;
    void beginCycle(const CycleContext &ctx) const override;

    struct Result
    {
        int score = 0;
        int card = -1; // fractional jobs: the card index on the host
    };
    // Uncached evaluation of one host (tests call it directly).
    static Result evaluate(const ResolvedWorkload &w,
                           const CycleContext &ctx,
                           const HostView &host,
                           CardMask feasible);

private:
    const Result &cached(const CycleContext &ctx, const HostState &host, CardMask feasible) const;
    std::shared_ptr<const TargetWorkload> m_target;
    mutable ResolvedWorkload m_resolved;
    mutable const Catalogue::Catalogue *m_catalogue = nullptr;
    mutable ShapeCache<Result> m_cache;
};

} // namespace Zhaoxi::Sched
