// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "clusterstate.h"
#include "status.h"

#include <QVarLengthArray>

#include <array>
#include <bit>
#include <vector>

namespace Zhaoxi::Sched {

// Bit i = card (host.firstCard + i). A host has at most 64 cards.
using CardMask = quint64;
constexpr int kMaxCardsPerHost = 64;

inline CardMask allCards(const HostState &h)
{
    return h.cardCount >= 64 ? ~CardMask(0) : ((CardMask(1) << h.cardCount) - 1);
}

// Whether `mask` holds fewer than `need` cards. Most jobs need one card: that is a test against
// zero, not a population count (which is a library call on the baseline x86-64 target).
inline bool fewerCardsThan(CardMask mask, int need)
{
    if (need <= 0)
        return false;
    if (need == 1)
        return mask == 0;
    return std::popcount(mask) < need;
}

// How one catalogue model can serve the job's per-card demand, worked out once per cycle.
struct ModelFit
{
    bool allowed = true; // affinity allows the model
    Reason whyNot = Reason::None;
    quint32 profiles = 0;                 // acceptable MIG profile indices (bit = index)
    QVarLengthArray<int, 8> profileOrder; // acceptable profiles, best (smallest) first
    std::array<qint8, 32> profileRank{};  // position of a profile in profileOrder (-1: not there)
    int softMilli = 0;   // share asked on a soft-sliced card (0 = soft cards not acceptable)
    bool wholeOk = true; // a whole card (Whole mode) serves
};

// The way one card would serve one unit of the demand, found by the UnitFit filter.
struct CardOption
{
    UnitChoice choice;
    int leftoverMilli = 0;  // compute left on the card after the placement
    qint64 leftoverMiB = 0; // memory left on the card after the placement
    int rank = 0;           // lower is a tighter fit (profile order; creation costs 1 more)
};

// Everything a plugin sees while one job is placed: the job, its demand per card model, the
// budgets. Worked out once per decision (Framework::prepare) and read-only while hosts are judged.
struct CycleContext
{
    const ClusterState *state = nullptr;
    const Job *job = nullptr;
    const WorkloadSpec *spec = nullptr;
    qint64 nowMs = 0;
    int unitsNeeded = 1;               // demand.cards
    int demandMilli = 0;               // compute per unit, milli-cards (for budgets and scores)
    qint64 demandMemoryMiB = 0;        // per unit
    bool allowCreatePartitions = true; // may carve new MIG instances out of free slots
    qint64 classBudgetLeft = -1;       // milli-cards the job's class may still take; -1 = unlimited
    QVarLengthArray<ModelFit, 16> models; // indexed like the catalogue
    quint32 allowedModels = 0;            // bit m: models[m].allowed (models m < 32)
    // Bit i: the framework's filter i (host-scoped first, then card-scoped) applies to this job
    // (FilterPlugin::appliesTo); the others are skipped.
    quint64 activeFilters = ~quint64(0);

    const CardState &card(const HostState &h, int i) const
    {
        return state->cards()[h.firstCard + i];
    }
};

// What the filters write while they judge one host: the way each card they keep would serve one
// unit (UnitFit writes it; pickers read it). It holds for the host judged last, indexed by the
// card's place on that host: a few kilobytes that stay in cache, rewritten host after host.
struct HostOptions
{
    std::array<CardOption, kMaxCardsPerHost> cards;
    const CardOption &operator[](int indexOnHost) const { return cards[size_t(indexOnHost)]; }
    CardOption &operator[](int indexOnHost) { return cards[size_t(indexOnHost)]; }
};

} // namespace Zhaoxi::Sched
