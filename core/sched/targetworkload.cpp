// SPDX-License-Identifier: GPL-3.0-or-later
#include "targetworkload.h"

#include "core/domain/demand.h"

#include <algorithm>
#include <numeric>

namespace Zhaoxi::Sched {

using Domain::ComputeDemand;
using Domain::WorkloadSpec;

QStringList WorkloadShape::modelList() const
{
    return models.split(QLatin1Char('|'), Qt::SkipEmptyParts);
}

size_t qHash(const WorkloadShape &s, size_t seed) noexcept
{
    return qHashMulti(seed, s.cpuMilli, s.milli, s.cards, s.models);
}

void TargetWorkload::Builder::add(const WorkloadShape &shape, qint64 count, qint64 memoryMiB)
{
    auto it = m_index.constFind(shape);
    if (it == m_index.constEnd()) {
        it = m_index.insert(shape, int(m_shapes.size()));
        m_shapes.append(shape);
        m_counts.append(0);
        m_memory.append(0);
    }
    m_counts[*it] += count;
    m_memory[*it] += double(memoryMiB) * double(count);
    m_total += count;
}

TargetWorkload TargetWorkload::Builder::build(double coverage) const
{
    TargetWorkload t;
    t.m_total = m_total;
    t.m_distinct = int(m_shapes.size());
    if (m_total <= 0)
        return t;
    std::vector<int> order(size_t(m_shapes.size()));
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int a, int b) {
        const WorkloadShape &x = m_shapes[a], &y = m_shapes[b];
        if (m_counts[a] != m_counts[b])
            return m_counts[a] > m_counts[b];
        if (x.cpuMilli != y.cpuMilli)
            return x.cpuMilli > y.cpuMilli;
        if (x.milli != y.milli)
            return x.milli > y.milli;
        if (x.cards != y.cards)
            return x.cards > y.cards;
        return x.models.toUtf8() > y.models.toUtf8(); // byte-wise, descending
    });
    // The simulator compares a running count with coverage * N (as doubles) and keeps taking
    // shapes while the count is below it.
    const double N = double(m_total);
    const double expected = coverage * 100.0 * N / 100.0;
    double kept = 0;
    size_t n = 0;
    while (n < order.size() && kept < expected) {
        kept += double(m_counts[order[n]]);
        ++n;
    }
    t.m_kept = qint64(kept);
    const double keptShare = kept / N;
    for (size_t i = 0; i < n; ++i) {
        const int s = order[i];
        WeightedShape w;
        w.shape = m_shapes[s];
        w.count = m_counts[s];
        w.weight = (double(m_counts[s]) / N) / keptShare;
        w.memoryMiB = m_counts[s] > 0 ? qint64(m_memory[s] / double(m_counts[s])) : 0;
        t.m_shapes.append(w);
    }
    return t;
}

WorkloadShape TargetWorkload::shapeOf(const WorkloadSpec &spec, const Domain::CardModel &model)
{
    WorkloadShape s;
    s.cpuMilli = spec.demand.hostCpuMilli;
    s.cards = spec.demand.cards;
    if (spec.demand.cards > 0) {
        s.milli = Domain::demandMilliOn(model, spec.demand.compute);
        s.models = spec.affinity.cardModels.join(QLatin1Char('|'));
    }
    return s;
}

ResolvedWorkload::ResolvedWorkload(const TargetWorkload &target,
                                   const Catalogue::Catalogue &catalogue)
{
    const QList<Domain::CardModel> &models = catalogue.models();
    m_models = int(models.size());
    const size_t n = size_t(target.shapes().size());
    m_cpu.reserve(n);
    m_milli.reserve(n);
    m_cards.reserve(n);
    m_memory.reserve(n);
    m_weight.reserve(n);
    m_anyModel.reserve(n);
    m_accept.assign(n * size_t(m_models), 0);
    for (size_t t = 0; t < n; ++t) {
        const WeightedShape &w = target.shapes()[qsizetype(t)];
        m_cpu.push_back(w.shape.cpuMilli);
        m_milli.push_back(w.shape.milli);
        m_cards.push_back(w.shape.cards);
        m_memory.push_back(w.memoryMiB);
        m_weight.push_back(w.weight);
        const QStringList names = w.shape.modelList();
        m_anyModel.push_back(names.isEmpty());
        for (int m = 0; m < m_models; ++m) {
            for (const QString &name : names) {
                if (models[m].matchesName(name))
                    m_accept[t * size_t(m_models) + size_t(m)] = 1;
            }
        }
        m_weightSum += w.weight;
    }
}

double ResolvedWorkload::fragmentation(const int *freeMilli,
                                       const int *model,
                                       int cardCount,
                                       qint64 cpuFree) const
{
    // The simulator's buckets: lack both, lack GPU, satisfied, lack CPU, CPU-only fits, CPU-only
    // does not fit, wrong model. Summed in that order without "satisfied".
    double lackBoth = 0, lackGpu = 0, lackCpu = 0, cpuOnlyFits = 0, cpuOnlyNot = 0, wrongModel = 0;
    qint64 totalFree = 0;
    for (int k = 0; k < cardCount; ++k)
        totalFree += freeMilli[k];
    if (totalFree == 0)
        return 0;
    const double total = double(totalFree);
    const int n = size();
    for (int t = 0; t < n; ++t) {
        const double p = m_weight[size_t(t)];
        const qint64 c = m_cpu[size_t(t)];
        const int m = m_milli[size_t(t)];
        if (m == 0) {
            (cpuFree >= c ? cpuOnlyFits : cpuOnlyNot) += p * total;
            continue;
        }
        int fitting = 0;
        int accepted = 0;
        qint64 small = 0; // free compute the shape cannot use: too small a piece or wrong model
        const bool any = m_anyModel[size_t(t)];
        for (int k = 0; k < cardCount; ++k) {
            const bool ok = any || accepts(t, model[k]);
            accepted += ok;
            if (ok && freeMilli[k] >= m)
                ++fitting;
            else
                small += freeMilli[k];
        }
        if (accepted == 0) {
            wrongModel += p * total;
            continue;
        }
        const bool gpuOk = fitting >= m_cards[size_t(t)];
        const bool cpuOk = cpuFree >= c;
        if (gpuOk && cpuOk)
            lackGpu += p * double(small);
        else if (!gpuOk && !cpuOk)
            lackBoth += p * total;
        else if (!gpuOk)
            lackGpu += p * total;
        else
            lackCpu += p * total;
    }
    return lackBoth + lackGpu + lackCpu + cpuOnlyFits + cpuOnlyNot + wrongModel;
}

} // namespace Zhaoxi::Sched
