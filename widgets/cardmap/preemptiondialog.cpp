// SPDX-License-Identifier: GPL-3.0-or-later
#include "preemptiondialog.h"

#include "reasontext.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace Zhaoxi::Widgets {

namespace {

QString victimName(const PreemptionRequest &request, int i)
{
    const QString name = request.preview.victimNames.value(i);
    return name.isEmpty()
                   ? PreemptionDialog::tr("job %1").arg(request.preview.victims[i].job.value())
                   : name;
}

} // namespace

PreemptionDialog::PreemptionDialog(const PreemptionRequest &request, QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Preempt running jobs?"));
    setObjectName(QStringLiteral("preemptionDialog"));
    auto *layout = new QVBoxLayout(this);

    const int n = int(request.preview.victims.size());
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
        const Sched::Victim &v = request.preview.victims[i];
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

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    QPushButton *go = buttons->addButton(tr("Preempt and place"), QDialogButtonBox::AcceptRole);
    buttons->button(QDialogButtonBox::Cancel)->setDefault(true);
    go->setDefault(false);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

QStringList PreemptionDialog::victimLines(const PreemptionRequest &request)
{
    QStringList lines;
    for (int i = 0; i < request.preview.victims.size(); ++i) {
        lines << tr("%1: loses %2 of work")
                         .arg(victimName(request, i),
                              hoursMinutesText(request.preview.victims[i].lostWorkMs));
    }
    return lines;
}

qint64 PreemptionDialog::totalLostWorkMs(const PreemptionRequest &request)
{
    qint64 total = 0;
    for (const Sched::Victim &v : request.preview.victims)
        total += std::max<qint64>(0, v.lostWorkMs);
    return total;
}

} // namespace Zhaoxi::Widgets
