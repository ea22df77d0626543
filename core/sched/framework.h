// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "decisiontrace.h"
#include "plugin.h"

#include <QHash>

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
    bool reuseVerdicts = true;   // reuse card-scoped filter verdicts of unchanged hosts
    // Only these hosts (empty = all). Used by preemption and per-card queries.
    QList<HostId> onlyHosts;
    // Only this card (drag and drop onto a card): its host alone, and for single-card jobs only
    // this card is considered.
    CardId onlyCard;
};

struct Decision
{
    Status status; // success, or why no host can take the job
    std::optional<Placement> placement;
    DecisionTrace trace;
};

// What decisions write while they run and what the next one may reuse: the context the plugins
// see, the card options of the host being judged, and the card filters' verdicts per demand
// shape. Owned by whoever decides and passed to each decision (the scheduler keeps one; a
// one-off decision makes its own and reuses nothing). One thread at a time.
class DecisionWorkspace
{
public:
    // Forgets the kept verdicts (they are also dropped when more than 4,096 shapes are kept) and
    // the kept decisions per host.
    void clear()
    {
        m_verdicts.clear();
        m_memos.clear();
        m_memoSeen.clear();
        m_memoEntries = 0;
    }

private:
    friend class Framework;
    // What the card-scoped filters said of one host, for one per-card demand shape.
    struct CardVerdict
    {
        quint64 version = 0; // HostState::version it holds for; 0 = empty
        Status status;
        CardMask mask = 0;
        int filter = -1; // index into the framework's ordered filters of the rejecting one
    };
    struct ShapeKey
    {
        int kind = 0, milli = 0, slices = 0, cards = 0;
        qint64 memoryMiB = 0;
        bool hard = false, sameDomain = true, create = true;
        QString profile;
        QStringList models;
        friend bool operator==(const ShapeKey &, const ShapeKey &) = default;
        friend size_t qHash(const ShapeKey &k, size_t seed = 0)
        {
            return qHashMulti(seed,
                              k.kind,
                              k.milli,
                              k.slices,
                              k.cards,
                              k.memoryMiB,
                              k.hard,
                              k.sameDomain,
                              k.create,
                              k.profile,
                              k.models);
        }
    };
    // Everything a host-local plugin may read of a job (FilterPlugin::hostLocal).
    struct DecisionKey
    {
        ShapeKey shape;
        qint64 cpu = 0, mem = 0;
        QString pin, service;
        friend bool operator==(const DecisionKey &, const DecisionKey &) = default;
        friend size_t qHash(const DecisionKey &k, size_t seed = 0)
        {
            return qHashMulti(seed, k.shape, k.cpu, k.mem, k.pin, k.service);
        }
    };
    // What the whole filter chain and the scores said of each host for one decision key, kept
    // while the host's version is unchanged: a decision then judges only the hosts that changed
    // since the last one with this key. Arrays by host index.
    struct HostMemo
    {
        std::vector<quint64> version; // HostState::version judged at; 0 = not judged
        std::vector<Status> status;
        std::vector<double> total; // feasible hosts: the weighted score
        std::vector<CardMask> mask;
        std::vector<qint8> filter; // index of the rejecting filter, -1 = none
        void resize(size_t n)
        {
            version.resize(n, 0);
            status.resize(n);
            total.resize(n, 0);
            mask.resize(n, 0);
            filter.resize(n, -1);
        }
    };
    // Host entries kept over all keys: about 50 bytes each, so at most about 25 MB.
    static constexpr size_t kMaxMemoEntries = size_t(1) << 19;
    CycleContext m_ctx;
    HostOptions m_options;
    QHash<ShapeKey, std::vector<CardVerdict>> m_verdicts;
    QHash<DecisionKey, HostMemo> m_memos;
    static constexpr qsizetype kMaxSeenKeys = 1 << 16;
    QHash<DecisionKey, int> m_memoSeen; // decisions per key not memoised yet
    size_t m_memoEntries = 0;
    quint64 m_memoOwner = 0;      // the id of the Framework the memos are of
    quint64 m_memoGeneration = 0; // the sum of its score plugins' generations
};

// One placement decision: queue-independent, state-independent (the state is an argument), and
// free of the wall clock. filter -> score -> pick, then the trace; reserving and binding is the
// caller's job (through a Statement). The framework holds its profile only: what a decision
// writes lives in the DecisionWorkspace passed to it. Score plugins may keep caches keyed by host
// versions (ScorePlugin), so one thread decides at a time.
class Framework
{
public:
    explicit Framework(Profile profile);

    const Profile &profile() const { return m_profile; }
    // Tie-break ranks per host (lower wins); by default the host index.
    void setHostRanks(std::vector<int> ranks) { m_ranks = std::move(ranks); }
    const std::vector<int> &hostRanks() const { return m_ranks; }

    // Builds the per-decision context (demand per model, budgets).
    void prepare(CycleContext &ctx,
                 const ClusterState &state,
                 const Job &job,
                 qint64 nowMs,
                 const DecideOptions &options) const;
    Decision decide(DecisionWorkspace &workspace,
                    const ClusterState &state,
                    const Job &job,
                    qint64 nowMs,
                    const DecideOptions &options = {}) const;
    // A one-off decision: a workspace of its own, so no verdict is reused.
    Decision decide(const ClusterState &state,
                    const Job &job,
                    qint64 nowMs,
                    const DecideOptions &options = {}) const
    {
        DecisionWorkspace workspace;
        return decide(workspace, state, job, nowMs, options);
    }
    // Runs the filters on one host only, starting from the cards in *cards (allCards(host) for a
    // full check); *cards returns the feasible ones and `options` how each would serve.
    Status filterHost(const CycleContext &ctx,
                      const HostState &host,
                      CardMask *cards,
                      HostOptions &options,
                      QString *rejectingFilter = nullptr) const;
    // The default best-fit choice of cards on a feasible host.
    static bool pickBestFit(const CycleContext &ctx,
                            const HostState &host,
                            CardMask feasible,
                            const HostOptions &options,
                            Placement *out);

private:
    class Tally;
    using CardVerdict = DecisionWorkspace::CardVerdict;

    // Runs filters [begin, end) of m_ordered; returns the index of the rejecting one in *which.
    Status runFilters(const CycleContext &ctx,
                      const HostState &host,
                      CardMask *cards,
                      HostOptions &options,
                      size_t begin,
                      size_t end,
                      int *which) const;
    // What the card-scoped filters read of a job (with ctx.allowCreatePartitions).
    static DecisionWorkspace::ShapeKey shapeKeyOf(const CycleContext &ctx, const Job &job);
    // The decisions per host kept for this job's decision key, or null when none may be kept
    // (a plugin that is not host-local, verdicts not reused, only some hosts or one card asked,
    // a job that already holds units).
    DecisionWorkspace::HostMemo *memoFor(DecisionWorkspace &ws,
                                         const ClusterState &state,
                                         const Job &job,
                                         const DecideOptions &options) const;
    // The card filters' verdicts of the job's per-card demand shape in the workspace, or null
    // when none are kept for this decision.
    std::vector<CardVerdict> *verdictsFor(DecisionWorkspace &ws,
                                          const ClusterState &state,
                                          const Job &job,
                                          const DecideOptions &options) const;
    // filter: one host, host-scoped filters first, then the card-scoped ones (their verdict
    // taken from `verdicts` while the host is unchanged). *mask: the feasible cards.
    Status filterStep(DecisionWorkspace &ws,
                      std::vector<CardVerdict> *verdicts,
                      int hostIndex,
                      CardMask *mask,
                      int *which) const;
    // score: the weighted sum of the profile's scores for a feasible host.
    double scoreStep(const CycleContext &ctx, const HostState &host, CardMask mask) const;
    // pick: the cards of the chosen host; a score plugin that picks cards first, else best fit.
    Placement pickStep(DecisionWorkspace &ws, const HostState &host, CardMask mask) const;
    // trace: the best candidates' scores, the placement, and the result.
    void traceBest(const CycleContext &ctx, const Tally &tally, DecisionTrace &tr) const;
    int rankOf(int hostIndex) const
    {
        return hostIndex < int(m_ranks.size()) ? m_ranks[size_t(hostIndex)] : hostIndex;
    }

    Profile m_profile;
    std::vector<std::shared_ptr<const FilterPlugin>> m_ordered; // host-scoped, then card-scoped
    size_t m_firstCardFilter = 0;
    bool m_hostLocal = false; // every filter and score is host-local: decisions may be memoised
    quint64 m_id = 0;         // unique per framework built in this process (keys the memos)
    std::vector<int> m_ranks;
};

} // namespace Zhaoxi::Sched
