// SPDX-License-Identifier: GPL-3.0-or-later
#include "unitfitfilter.h"

#include "core/sched/migfit.h"

#include <bit>

namespace Zhaoxi::Sched {

namespace {

// The best way `card` serves one unit of the demand now, or why it cannot.
Status fitCard(const CycleContext &ctx, const CardState &c, CardOption *opt)
{
    const CardModel &m = ctx.state->model(c);
    const ModelFit &mf = ctx.models[c.model];
    const qint64 needMem = ctx.demandMemoryMiB;
    opt->choice = UnitChoice{};
    opt->choice.card = c.id;
    switch (c.mode) {
    case PartitionMode::Whole: {
        if (!mf.wholeOk)
            return Status::unschedulable(Reason::NeedsRepartition);
        if (!c.wholeFree) // read from the card, not its unit list: no cache miss per busy card
            return Status::unschedulable(Reason::NoFreeUnit);
        opt->choice.kind = UnitChoice::Kind::Existing;
        opt->choice.uid = c.units.first().uid;
        opt->leftoverMilli = 1000 - ctx.demandMilli; // what a whole card wastes on a smaller demand
        opt->leftoverMiB = m.memoryMiB - needMem;
        opt->rank = mf.profileOrder.size() + 1;
        return Status::success();
    }
    case PartitionMode::Mig: {
        if (mf.profiles == 0)
            return Status::unresolvable(Reason::CardMemoryTooSmall, needMem, m.memoryMiB);
        int bestRank = INT_MAX;
        const Unit *best = nullptr;
        if (c.freeProfiles & mf.profiles) {
            for (const Unit &u : c.units) {
                if (!(mf.profiles >> u.profile & 1) || u.job.isValid()
                    || u.state != UnitState::Ready)
                    continue;
                const int r = mf.profileRank[size_t(u.profile)];
                if (r < bestRank) {
                    bestRank = r;
                    best = &u;
                }
            }
        }
        // An idle instance, or a new one carved from free slots: whichever fits tighter (a new
        // instance costs one rank for the reconfiguration; ties keep the existing one).
        int createRank = INT_MAX, createProfile = -1, createStart = -1;
        if (ctx.allowCreatePartitions) {
            for (int r = 0;
                 (c.creatable & mf.profiles) && r < mf.profileOrder.size() && r + 1 < bestRank;
                 ++r) {
                const int start = MigFit::creatableStart(c, mf.profileOrder[r]);
                if (start >= 0) {
                    createRank = r + 1;
                    createProfile = mf.profileOrder[r];
                    createStart = start;
                    break;
                }
            }
        }
        if (best && bestRank <= createRank) {
            opt->choice.kind = UnitChoice::Kind::Existing;
            opt->choice.uid = best->uid;
            opt->rank = bestRank;
            opt->leftoverMilli = 1000 - c.usedMilli - ctx.state->unitMilli(c, *best);
            opt->leftoverMiB = m.memoryMiB - c.usedMemoryMiB - best->memoryMiB;
            return Status::success();
        }
        if (createProfile >= 0) {
            const Domain::MigProfile &prof = m.migProfiles[createProfile];
            opt->choice.kind = UnitChoice::Kind::NewPartition;
            opt->choice.profile = createProfile;
            opt->choice.start = createStart;
            opt->rank = createRank;
            opt->leftoverMilli
                    = 1000 - c.usedMilli - prof.computeSlices * 1000 / m.migComputeSlices;
            opt->leftoverMiB = m.memoryMiB - c.usedMemoryMiB - prof.memoryMiB;
            return Status::success();
        }
        // Busy or blocking instances: destroying idle ones, or evicting, could make room.
        return Status::unschedulable((c.profilesPresent & mf.profiles) ? Reason::NoFreeUnit
                                                                       : Reason::NeedsRepartition);
    }
    case PartitionMode::TimeSlicing:
    case PartitionMode::Mps: {
        if (mf.softMilli == 0)
            return Status::unschedulable(Reason::NeedsRepartition);
        const int freeMilli = 1000 - c.usedMilli;
        if (mf.softMilli > freeMilli)
            return Status::unschedulable(Reason::CardComputeInUse, mf.softMilli, freeMilli);
        const qint64 freeMem = m.memoryMiB - c.usedMemoryMiB;
        if (needMem > freeMem)
            return Status::unschedulable(Reason::CardMemoryInUse, needMem, freeMem);
        const Domain::SoftSlicing *soft = m.softMode(c.mode);
        if (soft && soft->maxClients > 0 && c.clients >= soft->maxClients)
            return Status::unschedulable(Reason::TooManyClients, 1, soft->maxClients);
        opt->choice.kind = UnitChoice::Kind::NewShare;
        opt->choice.milli = mf.softMilli;
        opt->choice.memoryMiB = needMem;
        opt->rank = 0;
        opt->leftoverMilli = freeMilli - mf.softMilli;
        opt->leftoverMiB = freeMem - needMem;
        return Status::success();
    }
    }
    return Status::error(Reason::None);
}

// When every card of the host has one model and one mode (the usual host), some verdicts hold
// for all its cards alike and come from the host's summaries without reading a card: the same
// status and mask the card loop gives. Returns false when the cards must be read.
bool fitHost(const CycleContext &ctx, const HostState &host, CardMask &cards, Status *st)
{
    if (host.soleModel < 0 || !std::has_single_bit(unsigned(host.modes)) || cards == 0)
        return false;
    const ModelFit &mf = ctx.models[host.soleModel];
    Status all;
    switch (PartitionMode(std::countr_zero(unsigned(host.modes)))) {
    case PartitionMode::Whole:
        if (!mf.wholeOk)
            all = Status::unschedulable(Reason::NeedsRepartition);
        else if ((cards & host.wholeFreeCards) == 0)
            all = Status::unschedulable(Reason::NoFreeUnit);
        break;
    case PartitionMode::Mig:
        if (mf.profiles == 0)
            all = Status::unresolvable(Reason::CardMemoryTooSmall,
                                       ctx.demandMemoryMiB,
                                       ctx.state->catalogue().models()[host.soleModel].memoryMiB);
        break;
    case PartitionMode::TimeSlicing:
    case PartitionMode::Mps:
        if (mf.softMilli == 0)
            all = Status::unschedulable(Reason::NeedsRepartition);
        break;
    }
    if (all.isSuccess())
        return false;
    cards = 0;
    *st = all;
    return true;
}

} // namespace

Status UnitFitFilter::filter(const CycleContext &ctx,
                             const HostState &host,
                             CardMask &cards,
                             HostOptions &options) const
{
    Status st;
    if (fitHost(ctx, host, cards, &st))
        return st;
    for (int i = 0; i < host.cardCount; ++i) {
        if (!(cards >> i & 1))
            continue;
        const CardState &c = ctx.card(host, i);
        const Status s = fitCard(ctx, c, &options[i]);
        if (!s.isSuccess()) {
            cards &= ~(CardMask(1) << i);
            // Report the most hopeful reason: one preemption or repartitioning could fix.
            if (st.isSuccess() || s.code == Status::Code::Unschedulable)
                st = s;
        }
    }
    return st;
}

} // namespace Zhaoxi::Sched
