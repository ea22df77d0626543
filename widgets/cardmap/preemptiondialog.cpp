// SPDX-License-Identifier: GPL-3.0-or-later
#include "preemptiondialog.h"

#include "reasontext.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace Zhaoxi::Widgets {

namespace {

// The jobs that leave: the preemption's, or the over-budget plan's.
const QList<Sched::Victim> &victimsOf(const PreemptionRequest &request)
{
    return request.overBudget ? request.preview.overBudgetVictims : request.preview.victims;
}

QString victimName(const PreemptionRequest &request, int i)
{
    const QString name = (request.overBudget ? request.preview.overBudgetVictimNames
                                             : request.preview.victimNames)
                                 .value(i);
    return name.isEmpty() ? PreemptionDialog::tr("job %1").arg(victimsOf(request)[i].job.value())
                          : name;
}

} // namespace

PreemptionDialog::PreemptionDialog(const PreemptionRequest &request, QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(request.overBudget ? tr("Place over the class budget?")
                                      : tr("Preempt running jobs?"));
    setObjectName(QStringLiteral("preemptionDialog"));
    auto *layout = new QVBoxLayout(this);

    if (request.overBudget) {
        auto *budget = new QLabel(budgetLine(request), this);
        budget->setObjectName(QStringLiteral("budgetLine"));
        budget->setWordWrap(true);
        layout->addWidget(budget);
    }
    const QList<Sched::Victim> &victims = victimsOf(request);
    const int n = int(victims.size());
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    QPushButton *go = buttons->addButton(request.overBudget ? tr("Place over budget")
                                                            : tr("Preempt and place"),
                                         QDialogButtonBox::AcceptRole);
    buttons->button(QDialogButtonBox::Cancel)->setDefault(true);
    go->setDefault(false);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    if (n == 0) {
        layout->addWidget(buttons);
        return;
    }
    auto *text = new QLabel(tr("Placing %1 on %2 preempts %n job(s). Each loses the work it has "
                               "done since its last checkpoint:",
                               nullptr,
                               n)
                                    .arg(request.jobName, request.cardName),
                            this);
    text->setWordWrap(true);
    layout->addWidget(text);

    auto *list = new QTreeWidget(this);
    list->setObjectName(QStringLiteral("victims"));
    list->setRootIsDecorated(false);
    list->setHeaderLabels({tr("Job"), tr("Priority"), tr("Lost work (h:mm)")});
    for (int i = 0; i < n; ++i) {
        const Sched::Victim &v = victims[i];
        auto *item = new QTreeWidgetItem(list);
        item->setText(0, victimName(request, i));
        item->setText(1, QString::number(v.priority));
        item->setText(2, hoursMinutesText(v.lostWorkMs));
        item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
        item->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
    }
    list->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    layout->addWidget(list);

    layout->addWidget(new QLabel(
            tr("In all: %1 of work lost (h:mm).").arg(hoursMinutesText(totalLostWorkMs(request))),
            this));
    layout->addWidget(buttons);
}

QStringList PreemptionDialog::victimLines(const PreemptionRequest &request)
{
    QStringList lines;
    const QList<Sched::Victim> &victims = victimsOf(request);
    for (int i = 0; i < victims.size(); ++i) {
        lines << tr("%1: loses %2 of work")
                         .arg(victimName(request, i), hoursMinutesText(victims[i].lostWorkMs));
    }
    return lines;
}

QString PreemptionDialog::budgetLine(const PreemptionRequest &request)
{
    if (!request.overBudget)
        return {};
    const Sched::Status &s = request.preview.status; // ClassBudgetExceeded: need, have
    // What its class would hold beyond the budget once it runs (the victims of its own class
    // leaving are not counted: the line errs on the side of more).
    const qint64 over = std::max<qint64>(0, s.need - std::max<qint64>(0, s.have));
    return tidyCjkSpacing(
            tr("%1 needs %2 of compute; its class may use only %3 more now. Placed anyway, the "
               "class goes over its budget by up to %4, and the policies will not move %1 to "
               "bring it back within the budget.")
                    .arg(request.jobName,
                         cardsText(s.need),
                         cardsText(std::max<qint64>(0, s.have)),
                         cardsText(over)));
}

qint64 PreemptionDialog::totalLostWorkMs(const PreemptionRequest &request)
{
    qint64 total = 0;
    for (const Sched::Victim &v : victimsOf(request))
        total += std::max<qint64>(0, v.lostWorkMs);
    return total;
}

} // namespace Zhaoxi::Widgets
