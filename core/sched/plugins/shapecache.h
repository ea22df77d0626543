// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/cycle.h"
#include "core/sched/plugins/hostview.h"

#include <QHash>

#include <cstring>
#include <vector>

namespace Zhaoxi::Sched {

// What a score may depend on in a job: host CPU and memory, compute per card, card count, and
// the card models it accepts (as a mask over catalogue models).
struct DemandShapeKey
{
    qint64 cpu = 0;
    qint64 mem = 0;
    int perCard = 0;
    int cards = 0;
    quint64 models = 0;
    friend bool operator==(const DemandShapeKey &, const DemandShapeKey &) = default;
};

inline size_t qHash(const DemandShapeKey &k, size_t seed = 0) noexcept
{
    return qHashMulti(seed, k.cpu, k.mem, k.perCard, k.cards, k.models);
}

inline DemandShapeKey demandShapeKey(const CycleContext &ctx)
{
    DemandShapeKey k;
    k.cpu = ctx.spec->demand.hostCpuMilli;
    k.mem = ctx.spec->demand.hostMemoryMiB;
    k.cards = ctx.unitsNeeded;
    k.perCard = ctx.unitsNeeded > 0 ? ctx.demandMilli : 0;
    for (qsizetype i = 0; i < ctx.models.size() && i < 64; ++i) {
        if (ctx.models[i].allowed)
            k.models |= quint64(1) << i;
    }
    return k;
}

// Everything a host-level score reads of a host: free CPU and memory, the cards' free compute
// and models, and which cards the filters left. Two hosts with equal contents score the same
// for the same job shape (a fresh cluster has a handful of distinct hosts, not a thousand).
// Hosts with more than 16 cards or odd values are not memoised by content.
struct HostContent
{
    static constexpr int kMaxCards = 16;
    qint64 cpuFree;
    qint64 memFree;
    quint64 feasible;
    qint32 shape;
    qint32 cards;
    qint16 free[kMaxCards];
    qint8 model[kMaxCards];

    // False when the host cannot be described (then compute without the memo).
    bool assign(const HostView &v, CardMask mask, int shapeIndex)
    {
        std::memset(this, 0, sizeof *this); // hashed and compared bytewise: no stray padding
        if (v.cardCount > kMaxCards)
            return false;
        cpuFree = v.cpuFree;
        memFree = v.memFree;
        feasible = mask;
        shape = shapeIndex;
        cards = v.cardCount;
        for (int i = 0; i < v.cardCount; ++i) {
            if (v.model[i] < 0 || v.model[i] > 127)
                return false;
            free[i] = qint16(v.freeMilli[i]);
            model[i] = qint8(v.model[i]);
        }
        return true;
    }
    friend bool operator==(const HostContent &a, const HostContent &b)
    {
        return std::memcmp(&a, &b, sizeof a) == 0;
    }
};

inline size_t qHash(const HostContent &c, size_t seed = 0) noexcept
{
    return qHashBits(&c, sizeof c, seed);
}

// Memoises one value per (host, demand shape), valid while the host's version is unchanged: a
// decision changes one host, so the next decision recomputes only that host's entries. Behind it
// a memo by content shares the work between identical idle hosts. begin() runs once per decision
// (from ScorePlugin::beginCycle) and allocates only for a shape never seen before; a hit
// allocates nothing. A different ClusterState object (or host count) clears both. Versions only
// order the changes of one state object: a caller that scores diverging copies of a state in turn
// should give each copy its own plugin instance (the entry also checks the host's used CPU and
// memory, which catches most such mix-ups, not all). Not thread-safe: one instance per Framework.
template<typename Value>
class ShapeCache
{
public:
    void begin(const CycleContext &ctx)
    {
        const int hosts = int(ctx.state->hosts().size());
        if (ctx.state != m_state || hosts != m_hosts) {
            m_state = ctx.state;
            m_hosts = hosts;
            m_index.clear();
            m_entries.clear();
            m_byContent.clear();
        }
        const DemandShapeKey key = demandShapeKey(ctx);
        auto it = m_index.constFind(key);
        if (it == m_index.constEnd()) {
            it = m_index.insert(key, int(m_index.size()));
            m_entries.resize(m_entries.size() + size_t(hosts));
        }
        m_shape = *it;
        m_base = size_t(m_shape) * size_t(m_hosts);
        if (m_byContent.size() > kMaxContentEntries)
            m_byContent.clear(); // a bound on memory over long runs
    }

    // The memoised value of `host` under the current shape, or null: the hot path, inline.
    const Value *find(const HostState &host) const
    {
        const Entry &e = m_entries[m_base + size_t(host.id.value())];
        const bool hit = e.stamp == host.version + 1 && e.cpu == host.usedCpuMilli
                         && e.mem == host.usedMemoryMiB;
        return hit ? &e.value : nullptr;
    }

    // The value for `host` under the current shape; `compute(view)` runs on a miss.
    template<typename Compute>
    const Value &get(const CycleContext &ctx,
                     const HostState &host,
                     CardMask feasible,
                     Compute compute)
    {
        Entry &e = m_entries[m_base + size_t(host.id.value())];
        if (e.stamp == host.version + 1 && e.cpu == host.usedCpuMilli
            && e.mem == host.usedMemoryMiB)
            return e.value;
        const HostView view(*ctx.state, host);
        HostContent content;
        // Only idle hosts share contents often (a fresh cluster has a handful of host kinds);
        // a used host is nearly always unique, so it is computed without the memo, unallocated.
        const bool idle = host.usedCpuMilli == 0 && host.usedMemoryMiB == 0
                          && view.totalFree == 1000 * view.cardCount;
        if (idle && content.assign(view, feasible, m_shape)) {
            auto it = m_byContent.constFind(content);
            if (it == m_byContent.constEnd())
                it = m_byContent.insert(content, compute(view));
            e.value = *it;
        } else {
            e.value = compute(view);
        }
        e.stamp = host.version + 1;
        e.cpu = host.usedCpuMilli;
        e.mem = host.usedMemoryMiB;
        return e.value;
    }
    int shapes() const { return int(m_index.size()); }

private:
    static constexpr qsizetype kMaxContentEntries = 1 << 20;
    struct Entry
    {
        quint64 stamp = 0; // host version + 1; 0 = empty
        qint64 cpu = 0;    // with the version: a cheap guard against a diverged copy of the state
        qint64 mem = 0;
        Value value{};
    };
    const ClusterState *m_state = nullptr;
    int m_hosts = 0;
    QHash<DemandShapeKey, int> m_index;
    std::vector<Entry> m_entries; // shape-major: one run of m_hosts entries per shape
    QHash<HostContent, Value> m_byContent;
    size_t m_base = 0;
    int m_shape = 0;
};

} // namespace Zhaoxi::Sched
