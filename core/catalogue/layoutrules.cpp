// SPDX-License-Identifier: GPL-3.0-or-later
#include "layoutrules.h"

#include <QStringList>

#include <algorithm>

namespace Zhaoxi::Catalogue {

using Domain::MigProfile;

namespace {

bool validProfile(const CardModel &model, int profile)
{
    return profile >= 0 && profile < model.migProfiles.size();
}

// Slots are bits of a quint32; the loader keeps migMemorySlices <= 32.
quint32 spanMask(int start, int span)
{
    if (start < 0 || span <= 0 || start >= 32)
        return 0;
    const int end = std::min(start + span, 32);
    const quint64 bits = (quint64(1) << end) - (quint64(1) << start);
    return quint32(bits);
}

quint32 placementMask(const CardModel &model, MigPlacement p)
{
    if (!validProfile(model, p.profile))
        return 0;
    return spanMask(p.start, model.migProfiles[p.profile].span);
}

bool startAllowed(const MigProfile &profile, int start)
{
    return profile.starts.contains(start);
}

// What a valid layout already uses, gathered in one pass so that checking a candidate is O(n).
struct Usage
{
    quint32 mask = 0;
    int computeSlices = 0;
};

Usage usageOf(const CardModel &model, const QList<MigPlacement> &layout)
{
    Usage u;
    for (const MigPlacement &p : layout) {
        if (!validProfile(model, p.profile))
            continue;
        u.mask |= placementMask(model, p);
        u.computeSlices += model.migProfiles[p.profile].computeSlices;
    }
    return u;
}

// Checks `candidate` as if it were placed after placements [0, count) of `layout`, which are
// assumed valid. `usage` is their combined usage. Allocation-free: canAdd and firstFreeStart
// run in the scheduler's hot path.
LayoutVerdict checkAgainst(const CardModel &model,
                           const QList<MigPlacement> &layout,
                           qsizetype count,
                           const Usage &usage,
                           MigPlacement candidate)
{
    LayoutVerdict v;
    const int index = int(count);
    if (!model.supportsMig()) {
        v.problem = LayoutProblem::NotMigCapable;
        v.index = index;
        return v;
    }
    if (!validProfile(model, candidate.profile)) {
        v.problem = LayoutProblem::UnknownProfile;
        v.index = index;
        return v;
    }
    const MigProfile &profile = model.migProfiles[candidate.profile];
    if (!startAllowed(profile, candidate.start)) {
        v.problem = LayoutProblem::StartNotAllowed;
        v.index = index;
        return v;
    }
    const quint32 mask = spanMask(candidate.start, profile.span);
    if (usage.mask & mask) {
        v.problem = LayoutProblem::Overlap;
        v.index = index;
        for (qsizetype j = 0; j < count; ++j) {
            if (placementMask(model, layout[j]) & mask) {
                v.other = int(j);
                break;
            }
        }
        return v;
    }
    int sameProfile = 0;
    for (qsizetype j = 0; j < count; ++j) {
        const MigPlacement &p = layout[j];
        if (!validProfile(model, p.profile))
            continue;
        if (profile.mediaExtensions && model.migProfiles[p.profile].mediaExtensions) {
            v.problem = LayoutProblem::MediaExtensionsTaken;
            v.index = index;
            v.other = int(j);
            return v;
        }
        if (p.profile == candidate.profile)
            ++sameProfile;
    }
    if (sameProfile >= profile.maxInstances) {
        v.problem = LayoutProblem::InstanceLimit;
        v.index = index;
        v.limit = profile.maxInstances;
        return v;
    }
    if (usage.computeSlices + profile.computeSlices > model.migComputeSlices) {
        v.problem = LayoutProblem::ComputeExhausted;
        v.index = index;
        v.limit = model.migComputeSlices;
        return v;
    }
    return v;
}

QString joinStarts(const QList<int> &starts)
{
    QStringList parts;
    parts.reserve(starts.size());
    for (int s : starts)
        parts << QString::number(s);
    return parts.join(QStringLiteral(", "));
}

bool placementLess(MigPlacement a, MigPlacement b)
{
    if (a.start != b.start)
        return a.start < b.start;
    return a.profile < b.profile;
}

bool layoutLess(const QList<MigPlacement> &a, const QList<MigPlacement> &b)
{
    return std::lexicographical_compare(a.cbegin(), a.cend(), b.cbegin(), b.cend(), placementLess);
}

// Depth-first over placements in increasing (start, profile) order: each valid layout is
// reached exactly once, because placements never share a start (they would overlap).
class MaximalLayoutSearch
{
public:
    MaximalLayoutSearch(const CardModel &model, const QList<int> &allowedProfiles)
        : m_model(model)
    {
        for (int p = 0; p < model.migProfiles.size(); ++p) {
            if (!allowedProfiles.isEmpty() && !allowedProfiles.contains(p))
                continue;
            for (int s : model.migProfiles[p].starts)
                m_candidates.append(MigPlacement{p, s});
        }
        std::sort(m_candidates.begin(), m_candidates.end(), placementLess);
    }

    QList<QList<MigPlacement>> run()
    {
        if (!m_candidates.isEmpty())
            visit(0);
        std::sort(m_result.begin(), m_result.end(), layoutLess);
        return m_result;
    }

private:
    bool fits(MigPlacement candidate) const
    {
        return checkAgainst(m_model, m_layout, m_layout.size(), m_usage, candidate).isValid();
    }

    void visit(qsizetype firstCandidate)
    {
        bool extended = false;
        for (qsizetype i = firstCandidate; i < m_candidates.size(); ++i) {
            const MigPlacement c = m_candidates[i];
            if (!fits(c))
                continue;
            extended = true;
            const Usage saved = m_usage;
            m_layout.append(c);
            m_usage.mask |= placementMask(m_model, c);
            m_usage.computeSlices += m_model.migProfiles[c.profile].computeSlices;
            visit(i + 1);
            m_layout.removeLast();
            m_usage = saved;
        }
        if (extended)
            return;
        // Nothing later in the order fits; the layout is maximal only if nothing earlier does
        // either (a smaller start can still be free, e.g. after skipping slot 0).
        for (qsizetype i = 0; i < firstCandidate; ++i) {
            if (fits(m_candidates[i]))
                return;
        }
        if (!m_layout.isEmpty())
            m_result.append(m_layout);
    }

    const CardModel &m_model;
    QList<MigPlacement> m_candidates;
    QList<MigPlacement> m_layout;
    Usage m_usage;
    QList<QList<MigPlacement>> m_result;
};

} // namespace

const char *toString(LayoutProblem problem)
{
    switch (problem) {
    case LayoutProblem::None:
        return "None";
    case LayoutProblem::NotMigCapable:
        return "NotMigCapable";
    case LayoutProblem::UnknownProfile:
        return "UnknownProfile";
    case LayoutProblem::StartNotAllowed:
        return "StartNotAllowed";
    case LayoutProblem::Overlap:
        return "Overlap";
    case LayoutProblem::InstanceLimit:
        return "InstanceLimit";
    case LayoutProblem::ComputeExhausted:
        return "ComputeExhausted";
    case LayoutProblem::MediaExtensionsTaken:
        return "MediaExtensionsTaken";
    }
    return "?";
}

Domain::Problem layoutRuleProblem(const LayoutVerdict &verdict,
                                  const CardModel &model,
                                  const QList<MigPlacement> &layout)
{
    return Domain::Problem(Domain::Problem::Code::LayoutRule,
                           {verdict.describe(model, layout),
                            QLatin1String(toString(verdict.problem)),
                            QString::number(verdict.index),
                            QString::number(verdict.other),
                            QString::number(verdict.limit)});
}

std::optional<LayoutVerdict> layoutVerdictOf(const Domain::Problem &problem)
{
    if (problem.code != Domain::Problem::Code::LayoutRule || problem.args.size() < 5)
        return std::nullopt;
    LayoutVerdict v;
    bool known = false;
    for (int p = int(LayoutProblem::NotMigCapable); p <= int(LayoutProblem::MediaExtensionsTaken);
         ++p) {
        if (problem.args[1] == QLatin1String(toString(LayoutProblem(p)))) {
            v.problem = LayoutProblem(p);
            known = true;
        }
    }
    bool ok[3] = {false, false, false};
    v.index = problem.args[2].toInt(&ok[0]);
    v.other = problem.args[3].toInt(&ok[1]);
    v.limit = problem.args[4].toInt(&ok[2]);
    if (!known || !ok[0] || !ok[1] || !ok[2])
        return std::nullopt;
    return v;
}

QString formatPlacement(const CardModel &model, MigPlacement placement)
{
    const QString name = validProfile(model, placement.profile)
                                 ? model.migProfiles[placement.profile].name
                                 : QStringLiteral("#%1").arg(placement.profile);
    return name + QLatin1Char('@') + QString::number(placement.start);
}

std::optional<MigPlacement> parsePlacement(const CardModel &model, QStringView text, QString *error)
{
    // Split at the last '@': profile names never contain one, but be exact about it.
    const qsizetype at = text.lastIndexOf(QLatin1Char('@'));
    bool ok = false;
    const QStringView startText = at > 0 ? text.mid(at + 1) : QStringView();
    const int start = at > 0 ? startText.toInt(&ok) : -1;
    if (at <= 0 || !ok || start < 0 || startText.trimmed() != startText) {
        *error = QStringLiteral("malformed placement '%1': expected PROFILE@START with START a "
                                "slot number, e.g. %2")
                         .arg(text,
                              model.migProfiles.isEmpty()
                                      ? QStringLiteral("1g.10gb@0")
                                      : formatPlacement(
                                              model,
                                              MigPlacement{0,
                                                           model.migProfiles[0].starts.value(0)}));
        return std::nullopt;
    }
    const QStringView name = text.left(at);
    int profile = model.profileIndex(name.toString());
    for (int i = 0; profile < 0 && i < model.migProfiles.size(); ++i) {
        if (model.migProfiles[i].name.compare(name, Qt::CaseInsensitive) == 0)
            profile = i;
    }
    if (profile < 0) {
        QStringList names;
        for (const auto &p : model.migProfiles)
            names << p.name;
        *error = QStringLiteral("unknown profile '%1' for %2; known profiles: %3")
                         .arg(name, model.name, names.join(QStringLiteral(", ")));
        return std::nullopt;
    }
    return MigPlacement{profile, start};
}

QString LayoutVerdict::describe(const CardModel &model, const QList<MigPlacement> &layout) const
{
    const auto at = [&](int i) -> QString {
        if (i < 0 || i >= layout.size())
            return QStringLiteral("placement %1").arg(i);
        return formatPlacement(model, layout[i]);
    };
    const auto profileOf = [&](int i) -> const MigProfile * {
        if (i < 0 || i >= layout.size() || !validProfile(model, layout[i].profile))
            return nullptr;
        return &model.migProfiles[layout[i].profile];
    };

    switch (problem) {
    case LayoutProblem::None:
        return QStringLiteral("The layout is valid.");
    case LayoutProblem::NotMigCapable:
        return QStringLiteral("%1 does not support MIG, so it cannot hold %2.")
                .arg(model.name, at(index));
    case LayoutProblem::UnknownProfile: {
        const int profile = (index >= 0 && index < layout.size()) ? layout[index].profile : -1;
        return QStringLiteral("Placement %1 names profile #%2, which %3 does not have.")
                .arg(QString::number(index), QString::number(profile), model.name);
    }
    case LayoutProblem::StartNotAllowed: {
        const MigProfile *p = profileOf(index);
        if (!p)
            return QStringLiteral("%1 starts at a slot its profile does not allow.").arg(at(index));
        return QStringLiteral("%1 is not an allowed placement: %2 may start only at slot%3 %4.")
                .arg(at(index),
                     p->name,
                     p->starts.size() == 1 ? QString() : QStringLiteral("s"),
                     joinStarts(p->starts));
    }
    case LayoutProblem::Overlap: {
        const quint32 shared
                = (index >= 0 && index < layout.size() && other >= 0 && other < layout.size())
                          ? placementMask(model, layout[index])
                                    & placementMask(model, layout[other])
                          : 0;
        QList<int> slots;
        for (int b = 0; b < 32; ++b) {
            if (shared & (quint32(1) << b))
                slots << b;
        }
        return QStringLiteral("%1 overlaps %2 on memory slot%3 %4.")
                .arg(at(index),
                     at(other),
                     slots.size() == 1 ? QString() : QStringLiteral("s"),
                     joinStarts(slots));
    }
    case LayoutProblem::InstanceLimit: {
        const MigProfile *p = profileOf(index);
        return QStringLiteral("%1 exceeds the limit of %2 %3 instance%4 per card.")
                .arg(at(index),
                     QString::number(limit),
                     p ? p->name : QStringLiteral("such"),
                     limit == 1 ? QString() : QStringLiteral("s"));
    }
    case LayoutProblem::ComputeExhausted: {
        int used = 0;
        for (int i = 0; i <= index && i < layout.size(); ++i) {
            if (const MigProfile *p = profileOf(i))
                used += p->computeSlices;
        }
        return QStringLiteral("%1 brings the layout to %2 compute slices, more than the %3 of %4.")
                .arg(at(index), QString::number(used), QString::number(limit), model.name);
    }
    case LayoutProblem::MediaExtensionsTaken:
        return QStringLiteral("%1 needs the card's media extensions, which %2 already owns.")
                .arg(at(index), at(other));
    }
    return QString();
}

LayoutVerdict validateLayout(const CardModel &model, const QList<MigPlacement> &layout)
{
    Usage usage;
    for (qsizetype i = 0; i < layout.size(); ++i) {
        const LayoutVerdict v = checkAgainst(model, layout, i, usage, layout[i]);
        if (!v.isValid())
            return v;
        usage.mask |= placementMask(model, layout[i]);
        usage.computeSlices += model.migProfiles[layout[i].profile].computeSlices;
    }
    return {};
}

LayoutVerdict canAdd(const CardModel &model,
                     const QList<MigPlacement> &layout,
                     MigPlacement candidate)
{
    return checkAgainst(model, layout, layout.size(), usageOf(model, layout), candidate);
}

quint32 occupancyMask(const CardModel &model, const QList<MigPlacement> &layout)
{
    return usageOf(model, layout).mask;
}

LayoutSteps layoutSteps(const CardModel &model,
                        const QList<MigPlacement> &current,
                        const QList<MigPlacement> &target)
{
    LayoutSteps steps;
    steps.create = target;
    for (qsizetype i = 0; i < current.size(); ++i) {
        if (!steps.create.removeOne(current[i]))
            steps.destroy.append(int(i));
    }
    auto span = [&](const MigPlacement &p) {
        return validProfile(model, p.profile) ? model.migProfiles[p.profile].span : 0;
    };
    std::sort(steps.create.begin(),
              steps.create.end(),
              [&](const MigPlacement &a, const MigPlacement &b) {
                  if (span(a) != span(b))
                      return span(a) > span(b);
                  return a.start < b.start;
              });
    return steps;
}

int firstFreeStart(const CardModel &model, const QList<MigPlacement> &layout, int profile)
{
    if (!validProfile(model, profile))
        return -1;
    const Usage usage = usageOf(model, layout);
    int best = -1;
    // Starts are ascending in catalogue files, but synthetic models need not be.
    for (int s : model.migProfiles[profile].starts) {
        if (best >= 0 && s >= best)
            continue;
        if (checkAgainst(model, layout, layout.size(), usage, MigPlacement{profile, s}).isValid())
            best = s;
    }
    return best;
}

QList<QList<MigPlacement>> enumerateMaximalLayouts(const CardModel &model,
                                                   const QList<int> &allowedProfiles)
{
    if (!model.supportsMig())
        return {};
    return MaximalLayoutSearch(model, allowedProfiles).run();
}

} // namespace Zhaoxi::Catalogue
