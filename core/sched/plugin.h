// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cycle.h"

#include <QList>

namespace Zhaoxi::Sched {

// The placement chosen for a job: its host and one unit choice per card (empty for CPU-only).
struct Placement
{
    HostId host;
    QList<UnitChoice> units;
    // The job's shape the units are for: -1 its primary demand, else an index into spec.shapes
    // (the scheduler's shape choice, issue 18). The framework always decides for the demand it is
    // handed and leaves this -1.
    int shape = -1;
    friend bool operator==(const Placement &, const Placement &) = default;
};

// Orders the queue. Called from the scheduler's thread only.
class QueueSortPlugin
{
public:
    virtual ~QueueSortPlugin() = default;
    virtual const char *name() const = 0;
    virtual bool less(const Job &a, const Job &b) const = 0; // true: a goes first
};

// A filter judges one host for the job in ctx. Host-level filters return a failure status to
// reject the host. Card-level filters clear the bits of `cards` they reject and return the status
// of the cards they cleared (Unschedulable where any could become usable, else Unresolvable), or
// success when they cleared none; the framework fails the host only once fewer cards remain than
// the job needs, with the status of the filter that cleared the last needed card. A filter that
// works out how a card would serve the job writes it to `options` (at the card's place on the
// host) for the cards it keeps. Contract: const, no allocation, no I/O, called for every host on
// every decision.
class FilterPlugin
{
public:
    virtual ~FilterPlugin() = default;
    virtual const char *name() const = 0;
    virtual Status filter(const CycleContext &ctx,
                          const HostState &host,
                          CardMask &cards,
                          HostOptions &options) const = 0;
    // True when the verdict depends only on the job's per-card demand (compute, card memory, gang
    // width, model affinity, isolation, link-domain wish, whether partitions may be created) and
    // on the host's cards: the framework then reuses it while HostState::version is unchanged.
    // The framework runs host-scoped filters first, then card-scoped ones, each in profile order.
    virtual bool cardScoped() const { return false; }
    // False when the filter can neither reject a host nor clear a card for the job in ctx (e.g.
    // isolation for a job that accepts soft slices): the framework then skips it for the whole
    // decision. Asked once per decision, after the context is prepared.
    virtual bool appliesTo(const CycleContext &ctx) const
    {
        Q_UNUSED(ctx)
        return true;
    }
    // True when the verdict depends only on the host (its state while HostState::version is
    // unchanged) and on what DecisionWorkspace keys a decision by (the demand shape, host CPU
    // and memory, the pinned host, the service): the framework may then reuse it across
    // decisions. False (the default) makes every decision judge every host afresh.
    virtual bool hostLocal() const { return false; }
};

// A score plugin rates a feasible host, 0..100, higher better. The framework adds the weighted
// scores; ties go to the host with the lowest rank (Framework::setHostRanks). A plugin that
// `picksCards` also decides which of the host's feasible cards the job takes; otherwise the
// framework's best-fit picker does. Plugins may keep caches keyed by HostState::version.
class ScorePlugin
{
public:
    virtual ~ScorePlugin() = default;
    virtual const char *name() const = 0;
    virtual double score(const CycleContext &ctx,
                         const HostState &host,
                         CardMask feasible) const = 0;
    virtual bool picksCards() const { return false; }
    // Fills out->units with ctx.unitsNeeded choices from `feasible` (`options` hold each card's
    // option, by its place on the host). Returns false to leave the choice to the default picker.
    virtual bool pickCards(const CycleContext &ctx,
                           const HostState &host,
                           CardMask feasible,
                           const HostOptions &options,
                           Placement *out) const
    {
        Q_UNUSED(ctx)
        Q_UNUSED(host)
        Q_UNUSED(feasible)
        Q_UNUSED(options)
        Q_UNUSED(out)
        return false;
    }
    // Called once at the start of each decision (e.g. to draw a random number).
    virtual void beginCycle(const CycleContext &ctx) const { Q_UNUSED(ctx) }
    // As FilterPlugin::hostLocal: the score of a host depends on nothing else (a random draw per
    // decision does). A plugin whose scores change for other reasons (a new target workload)
    // says so by a new generation().
    virtual bool hostLocal() const { return false; }
    virtual quint64 generation() const { return 0; }
};

} // namespace Zhaoxi::Sched
