// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/plugin.h"
#include "core/sched/plugins/hostview.h"
#include "core/sched/plugins/shapecache.h"
#include "core/sched/targetworkload.h"

#include <memory>
#include <vector>

namespace Zhaoxi::Sched {

// Our default placement score: FGD's idea (place where the host's expected waste, measured
// against the workload we expect, grows least), with a waste model that also sees what FGD
// misses. A host's expected waste, in milli-cards, is the sum of
//  1. fragmentation: for each expected card-job shape (weights renormalised over the card
//     shapes), the free compute it could not use; a shape uses the cards it fits on, but only
//     as many copies as the host's free CPU and memory allow (FGD counts every fitting card
//     however little CPU is left, so it strands cards behind exhausted hosts). When the whole
//     mix, CPU-only jobs included, asks more CPU per milli-card than the cluster has, CPU is
//     the scarcer resource and FGD's rule is the better one: a shape counts every fitting card
//     while one copy fits (CpuCap::OneCopy; measured in fragmentationscore.cpp);
//  2. balance: free compute beyond what the host's free CPU and memory can feed at the expected
//     mix's CPU and memory per milli-card (charged to card jobs only), weighted up: compute left
//     without CPU is lost for certain, fragmentation only probably;
//  3. holes: per card, the expected leftover once later jobs of the mix fill it
//     (a small dynamic programme over 0..1000 milli), which tells a hole that later jobs will
//     close from one that stays dead.
// score = 2 * floor(50 * sigmoid((waste before - waste after) / 1000)): coarse steps on purpose,
// so that near-equal placements tie and the framework's stable host order decides (packing
// hosts in a fixed order beats chasing tiny differences, as the bench shows). A fractional job
// tries every feasible card and takes the best, the fullest on ties; whole cards come from the
// framework's best-fit picker. Memoised per (host version, job shape) and by host content.
// With an empty target workload (nothing observed yet) it scores like best fit.
class FragmentationScore final : public ScorePlugin
{
public:
    explicit FragmentationScore(std::shared_ptr<const TargetWorkload> target);
    // Swaps the workload to prepare for (e.g. rebuilt from recent submissions); takes effect at
    // the next decision. Call between decisions, from the scheduling thread.
    void setTarget(std::shared_ptr<const TargetWorkload> target);
    const char *name() const override { return "Fragmentation"; }
    bool hostLocal() const override { return true; }
    quint64 generation() const override { return m_generation; }
    double score(const CycleContext &ctx, const HostState &host, CardMask feasible) const override;
    bool picksCards() const override { return true; }
    bool pickCards(const CycleContext &ctx,
                   const HostState &host,
                   CardMask feasible,
                   const HostOptions &options,
                   Placement *out) const override;
    void beginCycle(const CycleContext &ctx) const override;

    // The waste model, resolved against one catalogue. Exposed for tests.
    class Model
    {
    public:
        static constexpr double kBalanceWeight = 4;    // stranded compute counts 4x
        static constexpr double kHoleFillChance = 0.7; // a later fitting job lands in a given hole
        Model() = default;
        Model(const TargetWorkload &target, const Catalogue::Catalogue &catalogue);
        bool hasCardShapes() const { return !m_milli.empty(); }
        // How term 1 lets free CPU and memory limit a shape: `Copies` counts only the copies
        // they can feed; `OneCopy` counts every fitting card while one copy fits (FGD's rule).
        enum class CpuCap { Copies, OneCopy };
        // Expected waste of a host, milli-cards. `balance`: include term 2.
        double waste(const HostView &v, bool balance, CpuCap cap) const;
        double fragmentation(const HostView &v, CpuCap cap) const; // term 1
        double stranded(const HostView &v) const;                  // term 2, unweighted
        double holeWaste(int freeMilli) const
        {
            return m_hole[size_t(std::clamp(freeMilli, 0, 1000))];
        }
        double cpuPerMilli() const { return m_cpuPerMilli; }
        // CPU per milli-card of the whole mix, CPU-only shapes included.
        double mixCpuPerMilli() const { return m_mixCpuPerMilli; }

    private:
        std::vector<qint64> m_cpu, m_mem;
        std::vector<int> m_milli, m_cards;
        std::vector<double> m_weight;
        std::vector<char> m_anyModel, m_accept;
        int m_models = 0;
        double m_cpuPerMilli = 0, m_memPerMilli = 0, m_mixCpuPerMilli = 0;
        std::vector<double> m_hole; // 0..1000
    };

    struct Result
    {
        double score = 0;
        int card = -1; // fractional jobs: the chosen card's index on the host
    };
    // `before`: the host's waste as it is (balance term as the job needs), when known.
    Result evaluate(const CycleContext &ctx,
                    const HostView &host,
                    CardMask feasible,
                    const double *before = nullptr) const;
    const Model &model() const { return m_model; }

private:
    std::shared_ptr<const TargetWorkload> m_target;
    quint64 m_generation = 0;
    mutable Model m_model;
    mutable const Catalogue::Catalogue *m_catalogue = nullptr;
    mutable int m_catalogueSize = -1;
    mutable ShapeCache<Result> m_cache;
    // Whether the mix asks more CPU per milli-card than the cluster has (kept per cluster).
    mutable bool m_cpuBound = false;
    Model::CpuCap cap() const
    {
        return m_cpuBound ? Model::CpuCap::OneCopy : Model::CpuCap::Copies;
    }
    mutable const ClusterState *m_pressureState = nullptr;
    mutable qsizetype m_pressureHosts = -1;
    // A host's waste as it is does not depend on the job: kept per host version for both kinds.
    struct Before
    {
        quint64 stamp = 0; // host version + 1
        qint64 cpu = 0, mem = 0;
        double waste[2] = {0, 0};
        bool known[2] = {false, false};
    };
    double wasteNow(const CycleContext &ctx,
                    const HostState &host,
                    const HostView &v,
                    bool balance) const;
    const Result &cached(const CycleContext &ctx, const HostState &host, CardMask feasible) const;
    mutable std::vector<Before> m_before;
    mutable const ClusterState *m_beforeState = nullptr;
};

} // namespace Zhaoxi::Sched
