// SPDX-License-Identifier: GPL-3.0-or-later
#include "repartitionplanner.h"

#include "core/catalogue/layoutrules.h"

#include <QStringList>
#include <QVarLengthArray>

#include <algorithm>
#include <tuple>

namespace Zhaoxi::Sched {

using Domain::MigProfile;

namespace {

using Counts = QVarLengthArray<int, 16>;

bool validProfile(const CardModel &model, int profile)
{
    return profile >= 0 && profile < model.migProfiles.size();
}

bool placementLess(MigPlacement a, MigPlacement b)
{
    return a.start != b.start ? a.start < b.start : a.profile < b.profile;
}

template<typename List>
int compareLists(const List &a, const List &b)
{
    for (qsizetype i = 0; i < std::min(a.size(), b.size()); ++i) {
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    }
    return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
}

int compareInts(int a, int b)
{
    return a == b ? 0 : (a < b ? -1 : 1);
}

// A wanted entry takes a free instance of exactly its profile, earlier entries first, so which
// entries a target satisfies follows from its free count per profile: the k-th entry asking for
// profile p (k from 0) is satisfied when the target holds more than k free instances of p.
class Wants
{
public:
    Wants(const CardModel &model, const QList<int> &wanted)
        : m_total(model.migProfiles.size(), 0)
    {
        m_entries.reserve(wanted.size());
        for (int p : wanted) {
            if (validProfile(model, p))
                m_entries.append(Entry{p, m_total[p]++});
            else
                m_entries.append(Entry{-1, 0});
        }
    }

    int wantedCount(int profile) const { return m_total[profile]; }

    bool satisfied(qsizetype entry, const Counts &free) const
    {
        const Entry &e = m_entries[entry];
        return e.profile >= 0 && e.rank < free[e.profile];
    }

    int satisfiedCount(const Counts &free) const
    {
        int n = 0;
        for (qsizetype i = 0; i < m_entries.size(); ++i)
            n += satisfied(i, free);
        return n;
    }

private:
    struct Entry
    {
        int profile; // -1: not a profile of the model
        int rank;    // earlier entries asking for the same profile
    };
    QList<Entry> m_entries;
    Counts m_total;
};

struct Candidate
{
    int busyDestroyed = 0;
    int idleDestroyed = 0;
    QList<int> destroyedStarts;  // ascending
    QList<MigPlacement> created; // ascending by start
    quint64 destroyedMask = 0;   // bit i: instance i of the start-sorted current list
};

// Two passes over the sets of destroyable instances to keep.
//
// First, which wanted entries can be served at all: destroying every instance that may go
// leaves the most room, and there an entry is served when it fits together with the earlier
// served ones. Greedy is exact for "earlier entries matter more" because what fits stays
// fitting when something is taken away; for the same reason the served entries of a profile
// are its first ones, so a count per profile says which they are.
//
// Then the keep sets from least to most disruptive: each must hold those free instances, which
// fixes what it creates, and the first placement found in (start, profile) order is the one at
// the lowest starts. Once keep sets cost more than the best plan found, none can beat it. The
// comparison is a strict total order over distinct plans, so the winner does not depend on the
// order in which they are met.
class Search
{
public:
    Search(const CardModel &model,
           const QList<PlannerInstance> &current,
           const QList<int> &wanted,
           const PlannerOptions &options)
        : m_model(model)
        , m_current(current)
        , m_wanted(wanted)
        , m_options(options)
        , m_need(model.migProfiles.size(), 0)
        , m_free(model.migProfiles.size(), 0)
        , m_toCreate(model.migProfiles.size(), 0)
    {
        std::stable_sort(m_current.begin(), m_current.end(), [](const auto &a, const auto &b) {
            return a.start < b.start;
        });
        QVarLengthArray<bool, 16> isWanted(model.migProfiles.size(), false);
        for (int p : wanted) {
            if (validProfile(model, p))
                isWanted[p] = true;
        }
        for (int p = 0; p < model.migProfiles.size(); ++p) {
            if (!isWanted[p])
                continue;
            for (int st : model.migProfiles[p].starts)
                m_candidates.append(MigPlacement{p, st});
        }
        std::sort(m_candidates.begin(), m_candidates.end(), placementLess);
    }

    static constexpr int maxRemovable = 16;

    const QList<PlannerInstance> &sortedCurrent() const { return m_current; }
    bool limited() const { return m_limited; }
    // Per profile: how many free instances the best target holds for the wanted list.
    const Counts &served() const { return m_need; }

    Candidate run()
    {
        QList<int> removable;
        for (int i = 0; i < m_current.size(); ++i) {
            if (!(m_current[i].busy ? m_options.mayDestroyBusy : !m_options.keepIdle))
                continue;
            // 2^n keep sets: n is at most 7 on every MIG card so far. A synthetic model with
            // many more small instances keeps the rest rather than hang.
            if (removable.size() == maxRemovable) {
                m_limited = true;
                break;
            }
            removable.append(i);
        }
        struct KeepSet
        {
            quint64 destroyed = 0;
            int busy = 0;
            int idle = 0;
        };
        QList<KeepSet> keepSets;
        keepSets.reserve(qsizetype(1) << removable.size());
        for (quint64 set = 0; set < (quint64(1) << removable.size()); ++set) {
            KeepSet k;
            for (int j = 0; j < removable.size(); ++j) {
                if (!(set & (quint64(1) << j)))
                    continue;
                k.destroyed |= quint64(1) << removable[j];
                ++(m_current[removable[j]].busy ? k.busy : k.idle);
            }
            keepSets.append(k);
        }

        load(keepSets.constLast().destroyed);
        for (int p : m_wanted) {
            if (!validProfile(m_model, p))
                continue;
            ++m_need[p];
            if (!placeNeeded())
                --m_need[p];
        }

        std::stable_sort(keepSets.begin(), keepSets.end(), [](const auto &a, const auto &b) {
            return std::tie(a.busy, a.idle) < std::tie(b.busy, b.idle);
        });
        for (const KeepSet &k : std::as_const(keepSets)) {
            if (m_found
                && std::tie(m_best.busyDestroyed, m_best.idleDestroyed) < std::tie(k.busy, k.idle))
                break;
            load(k.destroyed);
            if (placeNeeded())
                consider();
        }
        return m_best;
    }

private:
    // Makes the keep set the node: its destroys, and the kept instances as the layout.
    void load(quint64 destroyed)
    {
        m_node = Candidate();
        m_node.destroyedMask = destroyed;
        m_layout.clear();
        std::fill(m_free.begin(), m_free.end(), 0);
        for (int i = 0; i < m_current.size(); ++i) {
            const PlannerInstance &inst = m_current[i];
            if (destroyed & (quint64(1) << i)) {
                ++(inst.busy ? m_node.busyDestroyed : m_node.idleDestroyed);
                m_node.destroyedStarts.append(inst.start);
                continue;
            }
            m_layout.append(MigPlacement{inst.profile, inst.start});
            if (!inst.busy)
                ++m_free[inst.profile];
        }
    }

    // Whether the loaded keep set can hold m_need free; on success m_node.created is the
    // placement at the lowest starts. Leaves m_layout as load() made it.
    bool placeNeeded()
    {
        int remaining = 0, compute = 0, slots = 0;
        for (const MigPlacement &p : std::as_const(m_layout)) {
            compute += m_model.migProfiles[p.profile].computeSlices;
            slots += m_model.migProfiles[p.profile].span;
        }
        for (int p = 0; p < m_need.size(); ++p) {
            m_toCreate[p] = std::max(0, m_need[p] - m_free[p]);
            remaining += m_toCreate[p];
            compute += m_toCreate[p] * m_model.migProfiles[p].computeSlices;
            slots += m_toCreate[p] * m_model.migProfiles[p].span;
        }
        // Cheap refusals before the search: most failed greedy steps end here.
        if (compute > m_model.migComputeSlices || slots > m_model.migMemorySlices)
            return false;
        m_keptCount = m_layout.size();
        return place(0, remaining);
    }

    bool place(qsizetype firstCandidate, int remaining)
    {
        if (remaining == 0) {
            m_node.created = m_layout.mid(m_keptCount);
            return true;
        }
        for (qsizetype i = firstCandidate; i < m_candidates.size(); ++i) {
            const MigPlacement c = m_candidates[i];
            if (m_toCreate[c.profile] == 0 || !Catalogue::canAdd(m_model, m_layout, c).isValid())
                continue;
            m_layout.append(c);
            --m_toCreate[c.profile];
            const bool done = place(i + 1, remaining - 1);
            ++m_toCreate[c.profile];
            m_layout.removeLast();
            if (done)
                return true;
        }
        return false;
    }

    void consider()
    {
        if (!m_found || better(m_node, m_best)) {
            m_best = m_node;
            m_found = true;
        }
    }

    // Both serve the wanted list alike; the less disruptive one wins, then the lower starts.
    static bool better(const Candidate &a, const Candidate &b)
    {
        if (const int c = compareInts(b.busyDestroyed, a.busyDestroyed))
            return c > 0;
        if (const int c = compareInts(b.idleDestroyed, a.idleDestroyed))
            return c > 0;
        if (const int c = compareInts(int(b.created.size()), int(a.created.size())))
            return c > 0;
        for (qsizetype i = 0; i < a.created.size(); ++i) {
            if (a.created[i] != b.created[i])
                return placementLess(a.created[i], b.created[i]);
        }
        return compareLists(a.destroyedStarts, b.destroyedStarts) < 0;
    }

    const CardModel &m_model;
    QList<PlannerInstance> m_current;
    QList<int> m_wanted;
    PlannerOptions m_options;
    QList<MigPlacement> m_candidates; // placements of wanted profiles, by (start, profile)
    QList<MigPlacement> m_layout;     // kept instances, then the creations being tried
    qsizetype m_keptCount = 0;
    Counts m_need;     // per profile: free instances the wanted list gets
    Counts m_free;     // per profile: idle instances the loaded keep set holds
    Counts m_toCreate; // per profile: creations still to place
    Candidate m_node;
    Candidate m_best;
    bool m_found = false;
    bool m_limited = false;
};

// The order in which the driver is asked to create: larger instances first, so that a driver
// which ignores explicit starts still finds room; then by start.
bool createsBefore(const CardModel &model, const RepartitionStep &a, const RepartitionStep &b)
{
    const MigProfile &pa = model.migProfiles[a.profile];
    const MigProfile &pb = model.migProfiles[b.profile];
    if (pa.memorySlices != pb.memorySlices)
        return pa.memorySlices > pb.memorySlices;
    if (pa.computeSlices != pb.computeSlices)
        return pa.computeSlices > pb.computeSlices;
    if (a.start != b.start)
        return a.start < b.start;
    return a.profile < b.profile;
}

QList<MigPlacement> sortedPlacements(const QList<PlannerInstance> &instances)
{
    QList<MigPlacement> out;
    out.reserve(instances.size());
    for (const PlannerInstance &i : instances)
        out.append(MigPlacement{i.profile, i.start});
    std::stable_sort(out.begin(), out.end(), placementLess);
    return out;
}

Counts freeCounts(const CardModel &model, const QList<PlannerInstance> &instances)
{
    Counts free(model.migProfiles.size(), 0);
    for (const PlannerInstance &i : instances) {
        if (!i.busy && validProfile(model, i.profile))
            ++free[i.profile];
    }
    return free;
}

QString describeSteps(const CardModel &model,
                      const QList<PlannerInstance> &current,
                      const QList<RepartitionStep> &steps)
{
    QStringList parts;
    for (const RepartitionStep &s : steps) {
        const QString where = Catalogue::formatPlacement(model, MigPlacement{s.profile, s.start});
        if (s.kind == RepartitionStep::Kind::Create) {
            parts << QStringLiteral("create ") + where;
            continue;
        }
        const auto it = std::find_if(
                current.cbegin(), current.cend(), [&](const auto &i) { return i.uid == s.uid; });
        const bool busy = it != current.cend() && it->busy;
        parts << QStringLiteral("destroy %1 (uid %2, %3)")
                         .arg(where,
                              QString::number(s.uid),
                              busy ? QStringLiteral("busy") : QStringLiteral("idle"));
    }
    return parts.join(QStringLiteral(", "));
}

} // namespace

RepartitionPlan planRepartition(const CardModel &model,
                                const QList<PlannerInstance> &current,
                                const QList<int> &wanted,
                                const PlannerOptions &options)
{
    RepartitionPlan plan;
    const Wants wants(model, wanted);
    const QList<MigPlacement> currentLayout = sortedPlacements(current);

    const Catalogue::LayoutVerdict verdict = Catalogue::validateLayout(model, currentLayout);
    if (!verdict.isValid()) {
        plan.target = currentLayout;
        plan.satisfied = wants.satisfiedCount(freeCounts(model, current));
        plan.note = QStringLiteral("No plan: the current layout is not valid (%1)")
                            .arg(verdict.describe(model, currentLayout));
        return plan;
    }

    Search search(model, current, wanted, options);
    const Candidate best = search.run();
    const QList<PlannerInstance> &sorted = search.sortedCurrent();

    for (int i = 0; i < sorted.size(); ++i) {
        const PlannerInstance &inst = sorted[i];
        if (best.destroyedMask & (quint64(1) << i)) {
            plan.steps.append(RepartitionStep{
                    RepartitionStep::Kind::Destroy, inst.uid, inst.profile, inst.start});
            if (inst.busy)
                plan.destroyedBusy.append(inst.uid);
            else
                ++plan.destroyedIdle;
        } else {
            plan.target.append(MigPlacement{inst.profile, inst.start});
        }
    }
    QList<RepartitionStep> creates;
    for (const MigPlacement &c : best.created) {
        creates.append(RepartitionStep{RepartitionStep::Kind::Create, -1, c.profile, c.start});
        plan.target.append(c);
    }
    std::sort(creates.begin(), creates.end(), [&](const auto &a, const auto &b) {
        return createsBefore(model, a, b);
    });
    plan.steps += creates;
    std::sort(plan.target.begin(), plan.target.end(), placementLess);

    plan.changed = !plan.steps.isEmpty();
    plan.satisfied = wants.satisfiedCount(search.served());
    const QString held
            = QStringLiteral("%1 of %2 wanted profiles free")
                      .arg(QString::number(plan.satisfied), QString::number(wanted.size()));
    if (!plan.changed) {
        plan.note = QStringLiteral("No change: the current layout holds ") + held
                    + (plan.satisfied < wanted.size()
                               ? QStringLiteral(", and no allowed repartition holds more")
                               : QString());
    } else {
        plan.note = QStringLiteral("Holds ") + held + QStringLiteral(" after ")
                    + describeSteps(model, current, plan.steps);
    }
    if (search.limited()) {
        plan.note += QStringLiteral(" (the search only weighed destroying the %1 destroyable "
                                    "instances at the lowest starts)")
                             .arg(Search::maxRemovable);
    }
    return plan;
}

QList<MigPlacement> applySteps(const QList<PlannerInstance> &current,
                               const QList<RepartitionStep> &steps)
{
    QList<PlannerInstance> live = current;
    for (const RepartitionStep &s : steps) {
        if (s.kind == RepartitionStep::Kind::Create) {
            live.append(PlannerInstance{-1, s.profile, s.start, false});
            continue;
        }
        const auto it = std::find_if(live.begin(), live.end(), [&](const auto &i) {
            return i.uid == s.uid && i.uid >= 0;
        });
        if (it != live.end())
            live.erase(it);
    }
    return sortedPlacements(live);
}

} // namespace Zhaoxi::Sched
