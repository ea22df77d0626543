// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "layoutedit.h"

#include "core/catalogue/layoutrules.h"
#include "core/sched/clusterstate.h"

#include <QCoreApplication>
#include <QString>

namespace Zhaoxi::Widgets {

// The repartition editor's words: the one place where the layout rules' codes
// (Catalogue::LayoutProblem) and the editor's own refusals (LayoutEdit::EditProblem) become
// translated sentences (HOUSE_STYLE 4). English source; GUI thread (tr()).
class RepartitionText
{
    Q_DECLARE_TR_FUNCTIONS(Zhaoxi::Widgets::RepartitionText)

public:
    // Why `verdict` refuses `layout` (the layout its indexes point into), as one sentence; for a
    // valid verdict, "The layout is valid.".
    static QString problem(const Domain::CardModel &model,
                           const LayoutEdit::Layout &layout,
                           const Catalogue::LayoutVerdict &verdict);
    // Why an edit of `layout` cannot be made; `subject` is the placements it was about.
    static QString editProblem(const Domain::CardModel &model,
                               const LayoutEdit::Layout &subject,
                               const LayoutEdit::EditResult &result);
    // "destroy 3g.71gb@0", "destroy 3g.71gb@0 (serves chat)", "create 1g.18gb@4".
    static QString step(const Domain::CardModel &model, const LayoutEdit::Step &step);
    // "about 14 s", "about 3 min".
    static QString duration(qint64 ms);
    // "slot 4" / "slots 0, 4".
    static QString slotList(const QList<int> &slots);
    static QString unitState(Sched::UnitState state);
};

} // namespace Zhaoxi::Widgets
