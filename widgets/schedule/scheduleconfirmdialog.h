// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/session/session.h"

#include <QDialog>
#include <QStringList>

namespace Zhaoxi::Widgets {

// "Apply this schedule?": what a schedule will do if it becomes the policy in force now (a
// Session::SchedulePreview): the policy and window before and after, what training and
// inference may hold, the training it stops with the work each loses (at once) or when it
// leaves (at its checkpoint), each service's replicas with the p99 they would give at today's
// load, and the services whose SLO it puts at risk. The choice: apply or keep the schedule in
// force (the default). GUI thread.
class ScheduleConfirmDialog : public QDialog
{
    Q_OBJECT

public:
    ScheduleConfirmDialog(const Session::SchedulePreview &preview,
                          int utcOffsetSeconds,
                          QWidget *parent = nullptr);

    // The dialog's summary, one sentence a line (the policy, the budgets, the work that stops,
    // the services at risk): also what tests read.
    static QStringList summaryLines(const Session::SchedulePreview &preview, int utcOffsetSeconds);
    // The work all jobs stopped at once lose together.
    static qint64 totalLostWorkMs(const Session::SchedulePreview &preview);
};

} // namespace Zhaoxi::Widgets
