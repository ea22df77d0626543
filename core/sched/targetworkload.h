// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/catalogue/catalogue.h"
#include "core/domain/workloadspec.h"

#include <QHashFunctions>
#include <QList>
#include <QString>

#include <vector>

namespace Zhaoxi::Sched {

// One kind of job the cluster expects (the FGD paper's "task shape"): host CPU, the compute it
// asks of each card, how many cards, and which card models it accepts. Memory is not part of a
// shape.
struct WorkloadShape
{
    qint64 cpuMilli = 0; // host CPU of the whole job
    int milli = 0;       // compute per card, milli-cards; 0 = the job uses no card
    int cards = 0;       // cards per job (the trace's num_gpu; 0 for CPU-only jobs)
    QString models;      // accepted models, '|'-separated as a trace writes them; empty = any

    bool isCpuOnly() const { return milli == 0; }
    QStringList modelList() const; // `models` split on '|', empty parts dropped
    friend bool operator==(const WorkloadShape &, const WorkloadShape &) = default;
};

size_t qHash(const WorkloadShape &shape, size_t seed = 0) noexcept;

struct WeightedShape
{
    WorkloadShape shape;
    qint64 count = 0;     // jobs of this shape that were counted
    double weight = 0;    // the shape's share among the kept shapes; the weights sum to 1
    qint64 memoryMiB = 0; // mean host memory of its jobs (not part of the shape: FGD ignores it)
};

// The workload a placement policy should keep the cluster ready for: the most popular shapes and
// their weights. The bench builds it from a trace (FGD protocol 3.5); the console can build it
// from the jobs it has seen. A plain value, immutable once built; any thread may read it.
class TargetWorkload
{
public:
    static constexpr double kDefaultCoverage = 0.95;

    // Counts jobs per shape, then keeps the most popular shapes until they cover `coverage` of
    // all jobs (the shape that crosses the line is kept). Order: count, then CPU, per-card
    // compute, cards and the model string, each descending. Weight of a kept shape:
    // (count / N) / (kept / N), bit for bit as the FGD simulator computes it.
    class Builder
    {
    public:
        // `memoryMiB`: host memory of one such job (summed into the shape's mean).
        void add(const WorkloadShape &shape, qint64 count = 1, qint64 memoryMiB = 0);
        // A job spec, its per-card compute measured on `model` (the card model it would run on).
        void add(const Domain::WorkloadSpec &spec, const Domain::CardModel &model, qint64 count = 1)
        {
            add(shapeOf(spec, model), count, spec.demand.hostMemoryMiB);
        }
        TargetWorkload build(double coverage = kDefaultCoverage) const;
        qint64 total() const { return m_total; }

    private:
        QList<WorkloadShape> m_shapes;
        QList<qint64> m_counts;
        QList<double> m_memory; // summed over the jobs
        QHash<WorkloadShape, int> m_index;
        qint64 m_total = 0;
    };

    // The shape of a job spec on a card of `model`: CPU-only specs (demand.cards == 0) get milli
    // 0; the rest the compute one unit takes on that model (Domain::demandMilliOn: whole cards
    // 1000, MIG demands their share of the model's compute slices).
    static WorkloadShape shapeOf(const Domain::WorkloadSpec &spec, const Domain::CardModel &model);

    const QList<WeightedShape> &shapes() const { return m_shapes; }
    bool isEmpty() const { return m_shapes.isEmpty(); }
    qint64 totalCount() const { return m_total; } // N: every job counted, kept or not
    qint64 keptCount() const { return m_kept; }   // jobs of the kept shapes
    int distinctShapes() const { return m_distinct; }

private:
    QList<WeightedShape> m_shapes;
    qint64 m_total = 0;
    qint64 m_kept = 0;
    int m_distinct = 0;
};

// A target workload laid out for the hot path: flat arrays, card models resolved against one
// catalogue. Evaluating a host allocates nothing. Built once per catalogue by the plugins that
// use it.
class ResolvedWorkload
{
public:
    ResolvedWorkload() = default;
    ResolvedWorkload(const TargetWorkload &target, const Catalogue::Catalogue &catalogue);

    int size() const { return int(m_weight.size()); }
    bool isEmpty() const { return m_weight.empty(); }
    int modelCount() const { return m_models; }
    double weightSum() const { return m_weightSum; }
    qint64 cpu(int t) const { return m_cpu[size_t(t)]; }
    int milli(int t) const { return m_milli[size_t(t)]; }
    int cards(int t) const { return m_cards[size_t(t)]; }
    qint64 memory(int t) const { return m_memory[size_t(t)]; }
    double weight(int t) const { return m_weight[size_t(t)]; }
    // Whether shape t accepts catalogue model `model`.
    bool accepts(int t, int model) const
    {
        return m_anyModel[size_t(t)]
               || (model >= 0 && model < m_models
                   && m_accept[size_t(t) * size_t(m_models) + size_t(model)]);
    }

    // FGD's fragmentation of one host (FGD protocol 4.6), in milli-cards: the free card compute
    // that each shape could not use, weighted by the shapes' weights. `freeMilli[k]` and
    // `model[k]` describe card k; `cpuFree` is the host's free CPU. Summed in the simulator's
    // seven buckets so the result is bit-identical to it.
    double fragmentation(const int *freeMilli,
                         const int *model,
                         int cardCount,
                         qint64 cpuFree) const;

private:
    std::vector<qint64> m_cpu;
    std::vector<int> m_milli;
    std::vector<int> m_cards;
    std::vector<qint64> m_memory;
    std::vector<double> m_weight;
    std::vector<char> m_anyModel;
    std::vector<char> m_accept; // shape-major, m_models per shape
    int m_models = 0;
    double m_weightSum = 0;
};

} // namespace Zhaoxi::Sched
