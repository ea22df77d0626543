// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/cycle.h"
#include "core/sched/plugin.h"

namespace Zhaoxi::Sched {

// Free compute of a card in milli-cards, as the packing scores see it: a soft-sliced or MIG card
// has what is not bound; a whole card is all free or all taken; a failed card has nothing.
inline int freeMilliOf(const CardState &c)
{
    if (c.health == CardHealth::Failed)
        return 0;
    if (c.mode == PartitionMode::Whole)
        return c.clients == 0 ? 1000 : 0;
    return c.usedMilli >= 1000 ? 0 : 1000 - c.usedMilli;
}

// A host reduced to what the packing and fragmentation scores read: free CPU, and free compute
// and model per card. Lives on the stack; no allocation.
struct HostView
{
    qint64 cpuFree = 0;
    qint64 memFree = 0;
    int cardCount = 0;
    int totalFree = 0;
    int fullFree = 0; // cards with nothing bound
    int freeMilli[kMaxCardsPerHost];
    int model[kMaxCardsPerHost];

    HostView(const ClusterState &state, const HostState &host)
    {
        cpuFree = host.cpuMilli - host.usedCpuMilli;
        memFree = host.memoryMiB - host.usedMemoryMiB;
        cardCount = host.cardCount;
        for (int i = 0; i < cardCount; ++i) {
            const CardState &c = state.cards()[host.firstCard + i];
            freeMilli[i] = freeMilliOf(c);
            model[i] = c.model;
            totalFree += freeMilli[i];
            fullFree += freeMilli[i] == 1000;
        }
    }
};

// The per-card compute and host CPU a job asks for, as the trace's pods do: `perCard` on each of
// `cards` cards (0 cards: a CPU-only job).
struct JobDemand
{
    qint64 cpu = 0;
    qint64 mem = 0;
    int perCard = 0;
    int cards = 0;
    qint64 total() const { return qint64(perCard) * cards; }
    bool isCpuOnly() const { return cards == 0 || perCard == 0; }
    bool isShare() const { return cards == 1 && perCard > 0 && perCard < 1000; }

    explicit JobDemand(const CycleContext &ctx)
        : cpu(ctx.spec->demand.hostCpuMilli)
        , mem(ctx.spec->demand.hostMemoryMiB)
        , perCard(ctx.unitsNeeded > 0 ? ctx.demandMilli : 0)
        , cards(ctx.unitsNeeded)
    {}
};

// The card choice of a score plugin that picks the GPU of a sharing pod itself (FGD, ours): a
// sharing job takes the card `chosenCard()` names; whole cards and CPU-only jobs are left to the
// framework's best-fit picker (lowest free cards, link domains).
template<typename ChosenCard>
bool pickSharedCard(const CycleContext &ctx,
                    const HostOptions &options,
                    Placement *out,
                    ChosenCard chosenCard)
{
    if (!JobDemand(ctx).isShare())
        return false;
    const int card = chosenCard();
    if (card < 0)
        return false;
    out->units = {options[card].choice};
    return true;
}

} // namespace Zhaoxi::Sched
