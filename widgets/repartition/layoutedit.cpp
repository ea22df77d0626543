// SPDX-License-Identifier: GPL-3.0-or-later
#include "layoutedit.h"

#include <QHash>
#include <QMap>
#include <QStringList>

#include <algorithm>
#include <cstdlib>

namespace Zhaoxi::Widgets::LayoutEdit {

using Catalogue::LayoutVerdict;

namespace {

bool validProfile(const CardModel &model, int profile)
{
    return profile >= 0 && profile < model.migProfiles.size();
}

// Larger instances first: the order the driver accepts for fixed placements, and the order names
// list profiles in.
bool largerFirst(const CardModel &model, int a, int b)
{
    const Domain::MigProfile &x = model.migProfiles[a], &y = model.migProfiles[b];
    if (x.span != y.span)
        return x.span > y.span;
    if (x.computeSlices != y.computeSlices)
        return x.computeSlices > y.computeSlices;
    return a < b;
}

} // namespace

QList<CurrentUnit> currentUnits(const Sched::ClusterState &state, Domain::CardId card)
{
    QList<CurrentUnit> units;
    if (!card.isValid() || card.value() >= state.cards().size())
        return units;
    const Sched::CardState &c = state.card(card);
    if (c.mode != Domain::PartitionMode::Mig)
        return units;
    for (const Sched::Unit &u : c.units) {
        if (u.profile < 0)
            continue;
        CurrentUnit cu;
        cu.uid = u.uid;
        cu.placement = MigPlacement{u.profile, u.start};
        cu.job = u.job;
        if (u.job.isValid() && u.job.value() < state.jobs().size())
            cu.jobName = state.job(u.job).spec.name;
        cu.state = u.state;
        units.append(cu);
    }
    std::stable_sort(units.begin(), units.end(), [](const CurrentUnit &a, const CurrentUnit &b) {
        if (a.placement.start != b.placement.start)
            return a.placement.start < b.placement.start;
        return a.uid < b.uid;
    });
    return units;
}

Layout layoutOf(const QList<CurrentUnit> &units)
{
    Layout layout;
    layout.reserve(units.size());
    for (const CurrentUnit &u : units)
        layout.append(u.placement);
    return layout;
}

Layout sorted(Layout layout)
{
    std::sort(layout.begin(), layout.end(), [](MigPlacement a, MigPlacement b) {
        if (a.start != b.start)
            return a.start < b.start;
        return a.profile < b.profile;
    });
    return layout;
}

bool sameLayout(const Layout &a, const Layout &b)
{
    return a.size() == b.size() && sorted(a) == sorted(b);
}

Diff diff(const QList<CurrentUnit> &units, const Layout &pending)
{
    Diff d;
    d.unitKept.fill(false, units.size());
    d.placementCreated.fill(true, pending.size());
    d.unitOf.fill(-1, pending.size());
    for (qsizetype u = 0; u < units.size(); ++u) {
        for (qsizetype p = 0; p < pending.size(); ++p) {
            if (d.placementCreated[p] && pending[p] == units[u].placement) {
                d.placementCreated[p] = false;
                d.unitOf[p] = int(u);
                d.unitKept[u] = true;
                break;
            }
        }
    }
    return d;
}

QList<Step> planSteps(const CardModel &model,
                      const QList<CurrentUnit> &units,
                      const Layout &pending)
{
    Layout current;
    for (const CurrentUnit &u : units)
        current.append(u.placement);
    const Catalogue::LayoutSteps plan = Catalogue::layoutSteps(model, current, pending);
    QList<Step> steps;
    for (int u : plan.destroy)
        steps.append(Step{Step::Kind::Destroy, units[u].placement, units[u].jobName});
    for (MigPlacement p : plan.create)
        steps.append(Step{Step::Kind::Create, p, QString()});
    return steps;
}

QList<int> legalStarts(const CardModel &model, const Layout &layout, int profile)
{
    QList<int> starts;
    if (!validProfile(model, profile))
        return starts;
    for (int s : model.migProfiles[profile].starts) {
        if (Catalogue::canAdd(model, layout, MigPlacement{profile, s}).isValid())
            starts.append(s);
    }
    std::sort(starts.begin(), starts.end());
    return starts;
}

DropTarget dropTarget(const CardModel &model, const Layout &layout, int profile, int slot)
{
    DropTarget t;
    t.candidate = MigPlacement{profile, slot};
    if (!validProfile(model, profile)) {
        t.verdict = Catalogue::canAdd(model, layout, t.candidate);
        return t;
    }
    const Domain::MigProfile &p = model.migProfiles[profile];
    QList<int> covering;
    for (int s : p.starts) {
        if (s <= slot && slot < s + p.span)
            covering.append(s);
    }
    std::sort(covering.begin(), covering.end(), [slot](int a, int b) {
        const int da = std::abs(a - slot), db = std::abs(b - slot);
        return da != db ? da < db : a < b;
    });
    for (int s : covering) {
        const LayoutVerdict v = Catalogue::canAdd(model, layout, MigPlacement{profile, s});
        if (v.isValid()) {
            t.start = s;
            t.candidate = MigPlacement{profile, s};
            t.verdict = v;
            return t;
        }
    }
    if (!covering.isEmpty())
        t.candidate = MigPlacement{profile, covering.first()};
    t.verdict = Catalogue::canAdd(model, layout, t.candidate);
    return t;
}

EditResult split(const CardModel &model, const Layout &layout, int index)
{
    EditResult r;
    if (index < 0 || index >= layout.size() || !validProfile(model, layout[index].profile)) {
        r.problem = EditProblem::NoSmallerProfile;
        return r;
    }
    const MigPlacement whole = layout[index];
    const Domain::MigProfile &wp = model.migProfiles[whole.profile];
    const int begin = whole.start, end = whole.start + wp.span;

    QList<int> smaller;
    for (int i = 0; i < model.migProfiles.size(); ++i) {
        const Domain::MigProfile &p = model.migProfiles[i];
        if (p.span < wp.span && !p.mediaExtensions)
            smaller.append(i);
    }
    std::sort(
            smaller.begin(), smaller.end(), [&](int a, int b) { return largerFirst(model, a, b); });

    Layout work = layout;
    work.removeAt(index);
    Layout pieces;
    for (int profile : smaller) {
        QList<int> starts = model.migProfiles[profile].starts;
        std::sort(starts.begin(), starts.end());
        for (int s : starts) {
            if (s < begin || s + model.migProfiles[profile].span > end)
                continue;
            const MigPlacement candidate{profile, s};
            if (Catalogue::canAdd(model, work, candidate).isValid()) {
                work.append(candidate);
                pieces.append(candidate);
            }
        }
    }
    if (pieces.size() < 2) {
        r.problem = EditProblem::NoSmallerProfile;
        return r;
    }
    r.layout = sorted(work);
    return r;
}

EditResult merge(const CardModel &model, const Layout &layout, int a, int b)
{
    EditResult r;
    if (a < 0 || b < 0 || a >= layout.size() || b >= layout.size() || a == b
        || !validProfile(model, layout[a].profile) || !validProfile(model, layout[b].profile)) {
        r.problem = EditProblem::NotAdjacent;
        return r;
    }
    MigPlacement first = layout[a], second = layout[b];
    if (second.start < first.start)
        std::swap(first, second);
    const Domain::MigProfile &fp = model.migProfiles[first.profile];
    const Domain::MigProfile &sp = model.migProfiles[second.profile];
    if (first.start + fp.span != second.start) {
        r.problem = EditProblem::NotAdjacent;
        return r;
    }
    const int begin = first.start, span = fp.span + sp.span;
    const int compute = fp.computeSlices + sp.computeSlices;
    const bool media = fp.mediaExtensions || sp.mediaExtensions;

    QList<int> covering;
    for (int i = 0; i < model.migProfiles.size(); ++i) {
        const Domain::MigProfile &p = model.migProfiles[i];
        if (p.span == span && p.starts.contains(begin) && (media || !p.mediaExtensions))
            covering.append(i);
    }
    if (covering.isEmpty()) {
        r.problem = EditProblem::NoCoveringProfile;
        return r;
    }
    std::sort(covering.begin(), covering.end(), [&](int x, int y) {
        const Domain::MigProfile &px = model.migProfiles[x], &py = model.migProfiles[y];
        const bool ex = px.computeSlices == compute, ey = py.computeSlices == compute;
        if (ex != ey)
            return ex;
        if (px.computeSlices != py.computeSlices)
            return px.computeSlices > py.computeSlices;
        return x < y;
    });

    Layout rest = layout;
    rest.removeAt(std::max(a, b));
    rest.removeAt(std::min(a, b));
    for (int profile : covering) {
        const MigPlacement candidate{profile, begin};
        const LayoutVerdict v = Catalogue::canAdd(model, rest, candidate);
        if (v.isValid()) {
            rest.append(candidate);
            r.layout = sorted(rest);
            return r;
        }
        if (r.problem == EditProblem::None) {
            r.problem = EditProblem::LayoutRule;
            r.verdict = v;
            r.verdictLayout = rest;
            r.verdictLayout.append(candidate);
        }
    }
    return r;
}

EditResult addAtFirstFreeStart(const CardModel &model, const Layout &layout, int profile)
{
    EditResult r;
    const int start = Catalogue::firstFreeStart(model, layout, profile);
    if (start < 0) {
        r.problem = EditProblem::NoFreeStart;
        MigPlacement candidate{profile, -1};
        if (validProfile(model, profile) && !model.migProfiles[profile].starts.isEmpty())
            candidate.start = model.migProfiles[profile].starts.first();
        r.verdict = Catalogue::canAdd(model, layout, candidate);
        r.verdictLayout = layout;
        r.verdictLayout.append(candidate);
        return r;
    }
    r.added = MigPlacement{profile, start};
    r.layout = layout;
    r.layout.append(r.added);
    r.layout = sorted(r.layout);
    return r;
}

QList<int> commonProfiles(const CardModel &model)
{
    QMap<int, int> byCompute; // compute slices -> profile with the least memory
    for (int i = 0; i < model.migProfiles.size(); ++i) {
        const Domain::MigProfile &p = model.migProfiles[i];
        if (p.mediaExtensions)
            continue;
        const auto it = byCompute.constFind(p.computeSlices);
        if (it == byCompute.cend() || p.memoryMiB < model.migProfiles[*it].memoryMiB)
            byCompute.insert(p.computeSlices, i);
    }
    QList<int> profiles = byCompute.values();
    std::sort(profiles.begin(), profiles.end());
    return profiles;
}

QString layoutName(const CardModel &model, const Layout &layout)
{
    QMap<int, int> counts;
    for (MigPlacement p : layout)
        ++counts[p.profile];
    QList<int> profiles = counts.keys();
    std::sort(profiles.begin(), profiles.end(), [&](int a, int b) {
        if (validProfile(model, a) && validProfile(model, b))
            return largerFirst(model, a, b);
        return a < b;
    });
    QStringList parts;
    for (int profile : profiles) {
        const QString name = validProfile(model, profile) ? model.migProfiles[profile].name
                                                          : QStringLiteral("#%1").arg(profile);
        const int n = counts.value(profile);
        parts << (n > 1 ? QStringLiteral("%1x %2").arg(n).arg(name) : name);
    }
    return parts.join(QStringLiteral(" + "));
}

QString placementList(const CardModel &model, const Layout &layout)
{
    QStringList parts;
    for (MigPlacement p : sorted(layout))
        parts << Catalogue::formatPlacement(model, p);
    return parts.join(QLatin1Char(' '));
}

QList<Preset> maximalPresets(const CardModel &model)
{
    QList<Preset> presets;
    const QList<Layout> layouts = Catalogue::enumerateMaximalLayouts(model, commonProfiles(model));
    QHash<QString, int> uses;
    for (const Layout &layout : layouts)
        ++uses[layoutName(model, layout)];
    for (const Layout &layout : layouts) {
        Preset p;
        p.name = layoutName(model, layout);
        if (uses.value(p.name) > 1)
            p.name += QStringLiteral(" (%1)").arg(placementList(model, layout));
        p.layout = sorted(layout);
        presets.append(p);
    }
    std::stable_sort(presets.begin(), presets.end(), [](const Preset &a, const Preset &b) {
        if (a.layout.size() != b.layout.size())
            return a.layout.size() < b.layout.size();
        return a.name < b.name;
    });
    return presets;
}

} // namespace Zhaoxi::Widgets::LayoutEdit
