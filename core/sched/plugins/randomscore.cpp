// SPDX-License-Identifier: GPL-3.0-or-later
#include "randomscore.h"

#include "hostview.h"

#include <bit>

namespace Zhaoxi::Sched {

namespace {

quint64 mix(quint64 z)
{
    // splitmix64's finaliser: a bijection that spreads every input bit over the output.
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

} // namespace

RandomScore::RandomScore(quint64 seed)
    : m_state(seed)
{}

quint64 RandomScore::next() const
{
    m_state += 0x9e3779b97f4a7c15ULL;
    return mix(m_state);
}

void RandomScore::beginCycle(const CycleContext &) const
{
    m_cycle = next();
}

double RandomScore::score(const CycleContext &, const HostState &host, CardMask) const
{
    // One draw per (decision, host), independent of the order hosts are visited in.
    const quint64 r = mix(m_cycle ^ (quint64(host.id.value()) * 0xd1b54a32d192ed03ULL));
    return double(r >> 11) * (100.0 / 9007199254740992.0);
}

bool RandomScore::pickCards(const CycleContext &ctx,
                            const HostState &host,
                            CardMask feasible,
                            const HostOptions &options,
                            Placement *out) const
{
    const JobDemand d(ctx);
    if (!d.isShare())
        return false; // whole cards: the framework's best-fit picker (lowest free cards, link domains)
    const int n = std::popcount(feasible);
    if (n == 0)
        return false;
    int pick = int(next() % quint64(n));
    for (int i = 0; i < host.cardCount; ++i) {
        if ((feasible >> i & 1) && pick-- == 0) {
            out->units.clear();
            out->units.append(options[i].choice);
            return true;
        }
    }
    return false;
}

} // namespace Zhaoxi::Sched
