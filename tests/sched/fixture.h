// SPDX-License-Identifier: GPL-3.0-or-later
// Builders shared by the scheduler tests: appliances from the built-in catalogue, and specs.
#pragma once

#include "core/catalogue/catalogue.h"
#include "core/sched/clusterstate.h"

#include <QtTest>

namespace Zhaoxi::Sched::Test {

using namespace Domain;

inline const Catalogue::Catalogue &catalogue()
{
    static const Catalogue::Catalogue c = Catalogue::Catalogue::builtIn();
    return c;
}

inline int modelIndex(const QString &name)
{
    const int i = catalogue().indexOf(name);
    if (i < 0)
        qFatal("model %s missing from the built-in catalogue", qPrintable(name));
    return i;
}

inline int profileIndex(const QString &model, const QString &profile)
{
    return catalogue().models()[modelIndex(model)].profileIndex(profile);
}

// A host with `cards` cards of one model in one mode; `domains` link domains of equal size.
inline HostId addHost(ClusterState &s,
                      const QString &name,
                      const QString &model,
                      int cards,
                      PartitionMode mode,
                      int domains = 1,
                      qint64 cpuMilli = 128000,
                      qint64 memMiB = 1024 * 1024)
{
    const HostId h = s.addHost(name, cpuMilli, memMiB);
    for (int i = 0; i < cards; ++i)
        s.addCard(h, modelIndex(model), mode, i * domains / std::max(1, cards));
    return h;
}

inline WorkloadSpec spec(const QString &name,
                         WorkloadKind kind = WorkloadKind::Batch,
                         int priority = 0)
{
    WorkloadSpec s;
    s.name = name;
    s.kind = kind;
    s.priority = priority;
    s.demand.cards = 1;
    s.time.expectedDurationMs = 3600'000;
    if (kind == WorkloadKind::Inference) {
        s.inference = InferenceSpec{};
        s.inference->service = name;
        s.inference->sloP99Ms = 100;
    }
    return s;
}

inline WorkloadSpec wholeCards(const QString &name, int cards, int priority = 0)
{
    WorkloadSpec s = spec(name, WorkloadKind::Training, priority);
    s.demand.compute.kind = ComputeDemand::Kind::WholeCard;
    s.demand.cards = cards;
    return s;
}

inline WorkloadSpec migProfile(const QString &name, const QString &profile, int priority = 0)
{
    WorkloadSpec s = spec(name, WorkloadKind::Inference, priority);
    s.demand.compute.kind = ComputeDemand::Kind::MigProfile;
    s.demand.compute.profile = profile;
    s.isolation = IsolationRequirement::HardOnly;
    return s;
}

inline WorkloadSpec migSlices(const QString &name, int slices, qint64 memMiB = 0, int priority = 0)
{
    WorkloadSpec s = spec(name, WorkloadKind::Inference, priority);
    s.demand.compute.kind = ComputeDemand::Kind::MigSlices;
    s.demand.compute.slices = slices;
    s.demand.memoryMiB = memMiB;
    return s;
}

inline WorkloadSpec fraction(const QString &name, int milli, qint64 memMiB = 0, int priority = 0)
{
    WorkloadSpec s = spec(name, WorkloadKind::Inference, priority);
    s.demand.compute.kind = ComputeDemand::Kind::Fraction;
    s.demand.compute.milli = milli;
    s.demand.memoryMiB = memMiB;
    return s;
}

#define ZX_CHECK_INVARIANTS(state) \
    do { \
        const QString _why = (state).checkInvariants(); \
        QVERIFY2(_why.isEmpty(), qPrintable(_why)); \
    } while (false)

} // namespace Zhaoxi::Sched::Test
