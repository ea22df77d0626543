// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/session/session.h"

#include <QDialog>
#include <QStringList>

namespace Zhaoxi::Widgets {

// What the operator is asked before a drop that evicts running jobs.
struct PreemptionRequest
{
    Session::PlacementPreview preview; // outcome NeedsPreemption: victims and their names
    QString jobName;
    QString cardName; // e.g. "dgx-h200 GPU 3"
};

// "Placing <job> on <card> preempts these jobs": the victims with their priority and the work
// each loses (hours:minutes since its last checkpoint, Sched::Victim::lostWorkMs), and the
// choice to go ahead ("Preempt and place") or cancel. GUI thread only.
class PreemptionDialog : public QDialog
{
    Q_OBJECT

public:
    explicit PreemptionDialog(const PreemptionRequest &request, QWidget *parent = nullptr);

    // One line per victim, "name: loses h:mm of work" (also the dialog's rows, for tests).
    static QStringList victimLines(const PreemptionRequest &request);
    // The work all victims lose together.
    static qint64 totalLostWorkMs(const PreemptionRequest &request);
};

} // namespace Zhaoxi::Widgets
