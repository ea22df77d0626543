// SPDX-License-Identifier: GPL-3.0-or-later
#include "repartitiontext.h"

#include <QLocale>
#include <QStringList>

#include <cmath>

namespace Zhaoxi::Widgets {

using Catalogue::LayoutProblem;
using Domain::MigPlacement;
using LayoutEdit::EditProblem;

namespace {

const Domain::MigProfile *profileAt(const Domain::CardModel &model,
                                    const LayoutEdit::Layout &layout,
                                    int index)
{
    if (index < 0 || index >= layout.size())
        return nullptr;
    const int p = layout[index].profile;
    if (p < 0 || p >= model.migProfiles.size())
        return nullptr;
    return &model.migProfiles[p];
}

QString placementAt(const Domain::CardModel &model, const LayoutEdit::Layout &layout, int index)
{
    if (index < 0 || index >= layout.size())
        return QStringLiteral("?");
    return Catalogue::formatPlacement(model, layout[index]);
}

} // namespace

QString RepartitionText::slotList(const QList<int> &slots)
{
    QStringList parts;
    for (int s : slots)
        parts << QLocale().toString(s);
    if (slots.size() == 1)
        return tr("slot %1").arg(parts.first());
    return tr("slots %1").arg(parts.join(tr(", ")));
}

QString RepartitionText::problem(const Domain::CardModel &model,
                                 const LayoutEdit::Layout &layout,
                                 const Catalogue::LayoutVerdict &v)
{
    const QString what = placementAt(model, layout, v.index);
    switch (v.problem) {
    case LayoutProblem::None:
        return tr("The layout is valid.");
    case LayoutProblem::NotMigCapable:
        return tr("%1 cards have no MIG partitions.").arg(model.name);
    case LayoutProblem::UnknownProfile:
        return tr("%1 cards have no such MIG profile.").arg(model.name);
    case LayoutProblem::StartNotAllowed: {
        const Domain::MigProfile *p = profileAt(model, layout, v.index);
        const int start = (v.index >= 0 && v.index < layout.size()) ? layout[v.index].start : -1;
        if (!p)
            return tr("This profile cannot start at slot %1.").arg(start);
        return tr("%1 cannot start at slot %2: it may start only at %3.")
                .arg(p->name)
                .arg(start)
                .arg(slotList(p->starts));
    }
    case LayoutProblem::Overlap: {
        QList<int> shared;
        if (v.index >= 0 && v.index < layout.size() && v.other >= 0 && v.other < layout.size()) {
            const quint32 m = Catalogue::occupancyMask(model, {layout[v.index]})
                              & Catalogue::occupancyMask(model, {layout[v.other]});
            for (int b = 0; b < 32; ++b) {
                if (m & (quint32(1) << b))
                    shared << b;
            }
        }
        return tr("%1 would overlap %2 on memory %3.")
                .arg(what, placementAt(model, layout, v.other), slotList(shared));
    }
    case LayoutProblem::InstanceLimit: {
        const Domain::MigProfile *p = profileAt(model, layout, v.index);
        const QString name = p ? p->name : what;
        if (v.limit == 1)
            return tr("A card can hold only one %1 instance.").arg(name);
        return tr("A card can hold at most %1 %2 instances.").arg(v.limit).arg(name);
    }
    case LayoutProblem::ComputeExhausted: {
        int used = 0;
        for (int i = 0; i <= v.index && i < layout.size(); ++i) {
            if (const Domain::MigProfile *p = profileAt(model, layout, i))
                used += p->computeSlices;
        }
        return tr("Not enough compute: %1 would bring the card to %2 of its %3 compute slices.")
                .arg(what)
                .arg(used)
                .arg(v.limit);
    }
    case LayoutProblem::MediaExtensionsTaken:
        return tr("%1 needs the card's media engines, which %2 already owns.")
                .arg(what, placementAt(model, layout, v.other));
    }
    return QString();
}

QString RepartitionText::editProblem(const Domain::CardModel &model,
                                     const LayoutEdit::Layout &subject,
                                     const LayoutEdit::EditResult &result)
{
    QStringList names;
    for (MigPlacement p : subject)
        names << Catalogue::formatPlacement(model, p);
    switch (result.problem) {
    case EditProblem::None:
        return QString();
    case EditProblem::LayoutRule:
        return problem(model, result.verdictLayout, result.verdict);
    case EditProblem::NoSmallerProfile:
        return tr("%1 cannot be split: no two smaller instances fit in its slots.")
                .arg(names.join(tr(", ")));
    case EditProblem::NotAdjacent:
        return tr("%1 cannot be merged: only two instances side by side can.")
                .arg(names.join(tr(" and ")));
    case EditProblem::NoCoveringProfile:
        return tr("%1 cannot be merged: no profile of this card covers exactly their slots.")
                .arg(names.join(tr(" and ")));
    case EditProblem::NoFreeStart:
        return tr("No room for another instance: %1")
                .arg(problem(model, result.verdictLayout, result.verdict));
    }
    return QString();
}

QString RepartitionText::step(const Domain::CardModel &model, const LayoutEdit::Step &s)
{
    const QString what = Catalogue::formatPlacement(model, s.placement);
    if (s.kind == LayoutEdit::Step::Kind::Create)
        return tr("create %1").arg(what);
    if (!s.jobName.isEmpty())
        return tr("destroy %1 (serves %2)").arg(what, s.jobName);
    return tr("destroy %1").arg(what);
}

QString RepartitionText::duration(qint64 ms)
{
    const qint64 seconds = qint64(std::llround(double(ms) / 1000.0));
    if (seconds < 90)
        return tr("about %1 s").arg(seconds);
    const qint64 minutes = qint64(std::llround(double(seconds) / 60.0));
    return tr("about %1 min").arg(minutes);
}

QString RepartitionText::unitState(Sched::UnitState state)
{
    switch (state) {
    case Sched::UnitState::Ready:
        return tr("ready");
    case Sched::UnitState::Creating:
        return tr("creating");
    case Sched::UnitState::Destroying:
        return tr("destroying");
    }
    return QString();
}

} // namespace Zhaoxi::Widgets
