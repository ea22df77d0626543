// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/session/session.h"

#include <QDialog>
#include <QStringList>

namespace Zhaoxi::Widgets {

// What the operator is asked before a drop that evicts running jobs, or one that goes over its
// class's budget ("place anyway").
struct PreemptionRequest
{
    // Outcome NeedsPreemption: victims and their names. Over the budget: refused for the class
    // budget (status: what it needs, what is left) with overBudget Direct or NeedsPreemption.
    Session::PlacementPreview preview;
    QString jobName;
    QString cardName; // e.g. "dgx-h200 GPU 3"
    bool overBudget = false;
};

// "Placing <job> on <card> preempts these jobs": the victims with their priority and the work
// each loses (hours:minutes since its last checkpoint, Sched::Victim::lostWorkMs), and the
// choice to go ahead ("Preempt and place") or cancel. Over the budget it first says what the
// job needs, what its class may still use and by how much it goes over, and the button is
// "Place over budget". Cancel is the default. GUI thread only.
class PreemptionDialog : public QDialog
{
    Q_OBJECT

public:
    explicit PreemptionDialog(const PreemptionRequest &request, QWidget *parent = nullptr);

    // One line per victim, "name: loses h:mm of work" (also the dialog's rows, for tests).
    static QStringList victimLines(const PreemptionRequest &request);
    // The work all victims lose together.
    static qint64 totalLostWorkMs(const PreemptionRequest &request);
    // Over the budget: what the job needs, what is left and by how much it goes over (empty
    // otherwise).
    static QString budgetLine(const PreemptionRequest &request);
};

} // namespace Zhaoxi::Widgets
