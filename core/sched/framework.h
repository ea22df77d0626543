// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "decisiontrace.h"
#include "plugin.h"

#include <memory>
#include <vector>

namespace Zhaoxi::Sched {

// The plugins of one scheduling profile, in the order they run.
struct Profile
{
    QString name;
    std::shared_ptr<const QueueSortPlugin> queueSort;
    std::vector<std::shared_ptr<const FilterPlugin>> filters;
    struct WeightedScore
    {
        std::shared_ptr<const ScorePlugin> plugin;
        double weight = 1;
    };
    std::vector<WeightedScore> scores;
};

// The standard filters every profile starts with (health, affinity, isolation, unit fit, gang
// link domain, host resources). The class-budget check runs before any host is looked at.
std::vector<std::shared_ptr<const FilterPlugin>> standardFilters();
// The profile the console and the scheduler use by default.
Profile defaultProfile();

struct DecideOptions
{
    bool allowCreatePartitions = true;
    qint64 classBudgetLeft = -1; // milli-cards; -1 = unlimited
    bool trace = true;           // keep a DecisionTrace
    // Only these hosts (empty = all). Used by preemption and per-card queries.
    QList<HostId> onlyHosts;
    // Only this card (drag and drop onto a card): its host alone, and for single-card jobs only
    // this card is considered.
    CardId onlyCard;
};

struct Decision
{
    Status status;                      // success, or why no host can take the job
    std::optional<Placement> placement;
    DecisionTrace trace;
};

// One placement decision: queue-independent, state-independent (the state is an argument), and
// free of the wall clock. filter -> score -> pick; reserving and binding is the caller's job
// (through a Statement). Not thread-safe; one Framework per scheduling thread.
class Framework
{
public:
    explicit Framework(Profile profile);

    const Profile &profile() const { return m_profile; }
    // Tie-break ranks per host (lower wins); by default the host index.
    void setHostRanks(std::vector<int> ranks) { m_ranks = std::move(ranks); }
    const std::vector<int> &hostRanks() const { return m_ranks; }

    // Builds the per-decision context (demand per model, budgets).
    void prepare(CycleContext &ctx, const ClusterState &state, const Job &job, qint64 nowMs,
                 const DecideOptions &options) const;
    Decision decide(const ClusterState &state, const Job &job, qint64 nowMs,
                    const DecideOptions &options = {}) const;
    // Runs the filters on one host only, starting from the cards in *cards (allCards(host) for a
    // full check); *cards returns the feasible ones.
    Status filterHost(const CycleContext &ctx, const HostState &host, CardMask *cards,
                      QString *rejectingFilter = nullptr) const;
    // The default best-fit choice of cards on a feasible host.
    static bool pickBestFit(const CycleContext &ctx, const HostState &host, CardMask feasible,
                            Placement *out);

private:
    Profile m_profile;
    std::vector<int> m_ranks;
    mutable CycleContext m_ctx; // reused between decisions: no per-decision allocation
    mutable std::vector<double> m_scratch;
};

} // namespace Zhaoxi::Sched
