// SPDX-License-Identifier: GPL-3.0-or-later
#include "scheduleconfirmdialog.h"

#include "widgets/cardmap/reasontext.h"

#include <QDateTime>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QTimeZone>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <cmath>

namespace Zhaoxi::Widgets {

namespace {

using Policy::PolicyPlan;

QString policyWindowText(const QString &policy, const QString &window)
{
    if (window.isEmpty())
        return policyNameText(policy);
    return ScheduleConfirmDialog::tr("%1 (window ‘%2’)")
            .arg(policyNameText(policy), windowNameText(window));
}

QString budgetText(qint64 milli)
{
    return milli < 0 ? ScheduleConfirmDialog::tr("no limit") : cardsText(milli);
}

QString jobName(const Session::SchedulePreview &p, int i)
{
    const QString name = p.evictionNames.value(i);
    return name.isEmpty() ? ScheduleConfirmDialog::tr("job %1").arg(p.evictions[i].job.value())
                          : name;
}

QString clockText(qint64 ms, int utcOffsetSeconds)
{
    return QDateTime::fromMSecsSinceEpoch(ms, QTimeZone(utcOffsetSeconds))
            .toString(QStringLiteral("HH:mm"));
}

QString leavesText(const PolicyPlan::Eviction &e, int utcOffsetSeconds)
{
    return e.atCheckpoint ? ScheduleConfirmDialog::tr("at its checkpoint, %1")
                                    .arg(clockText(e.leavesAtMs, utcOffsetSeconds))
                          : ScheduleConfirmDialog::tr("at once");
}

QString p99Text(double ms)
{
    return std::isfinite(ms) ? ScheduleConfirmDialog::tr("%1 ms").arg(qRound64(ms))
                             : ScheduleConfirmDialog::tr("cannot keep up");
}

} // namespace

qint64 ScheduleConfirmDialog::totalLostWorkMs(const Session::SchedulePreview &p)
{
    qint64 total = 0;
    for (const PolicyPlan::Eviction &e : p.evictions)
        total += std::max<qint64>(0, e.lostMs);
    return total;
}

QStringList ScheduleConfirmDialog::summaryLines(const Session::SchedulePreview &p, int utcOffset)
{
    QStringList lines;
    lines << tr("Policy: %1 → %2.")
                     .arg(policyWindowText(p.policyBefore, p.windowBefore),
                          policyWindowText(p.policyAfter, p.windowAfter));
    if (p.budgetAfter.trainingMilli != p.budgetBefore.trainingMilli
        || p.budgetAfter.inferenceMilli != p.budgetBefore.inferenceMilli)
        lines << tr("Training may hold %1 → %2; inference %3 → %4.")
                         .arg(budgetText(p.budgetBefore.trainingMilli),
                              budgetText(p.budgetAfter.trainingMilli),
                              budgetText(p.budgetBefore.inferenceMilli),
                              budgetText(p.budgetAfter.inferenceMilli));
    else
        lines << tr("What training and inference may hold stays as it is.");
    if (p.evictions.isEmpty()) {
        lines << tr("No running job is stopped.");
    } else {
        int atOnce = 0;
        for (const PolicyPlan::Eviction &e : p.evictions)
            atOnce += !e.atCheckpoint;
        lines << tr("%n training job(s) stop.", nullptr, int(p.evictions.size()));
        if (atOnce > 0)
            lines << tr("%n of them at once, losing %1 of work in all (h:mm).", nullptr, atOnce)
                             .arg(hoursMinutesText(totalLostWorkMs(p)));
        else
            lines << tr("Each leaves at its next checkpoint and loses nothing.");
        for (int i = 0; i < p.evictions.size(); ++i)
            lines << tr("%1 leaves %2.").arg(jobName(p, i), leavesText(p.evictions[i], utcOffset));
    }
    for (const PolicyPlan::ServiceChange &c : p.services) {
        if (c.replicasAfter != c.replicasBefore)
            lines << tr("%1: %2 → %3 replicas.")
                             .arg(c.name)
                             .arg(c.replicasBefore)
                             .arg(c.replicasAfter);
        if (c.atRisk)
            lines << tr("%1’s SLO is at risk: about %2 at p99 at today’s load, against %3.")
                             .arg(c.name, p99Text(c.p99AfterMs), p99Text(c.sloMs));
    }
    if (!p.movedReplicas.isEmpty())
        lines << tr("%n replica(s) move to another card.", nullptr, int(p.movedReplicas.size()));
    // A fleet through Slurm: the windows are Slurm's reservations.
    for (const Session::SchedulePreview::Reservation &r : p.reservations) {
        const QString nodes = r.nodes.join(QStringLiteral(", "));
        const QString start = QLocale().toString(
                QDateTime::fromMSecsSinceEpoch(r.startMs, QTimeZone(utcOffset)),
                QStringLiteral("ddd HH:mm"));
        const QString length = hoursMinutesText(r.durationS * 1000);
        const QString repeat = r.flags.join(QLatin1Char(','));
        if (r.action == QLatin1String("create"))
            lines << tr("Slurm reservation %1 is created: %2 (%n card(s)) for %3 from %4 for %5 "
                        "h:mm (%6).",
                        nullptr,
                        r.cards)
                             .arg(r.name, nodes, r.partition, start, length, repeat);
        else if (r.action == QLatin1String("update"))
            lines << tr("Slurm reservation %1 changes: %2 (%n card(s)) for %3 from %4 for %5 "
                        "h:mm (%6).",
                        nullptr,
                        r.cards)
                             .arg(r.name, nodes, r.partition, start, length, repeat);
        else if (r.action == QLatin1String("delete"))
            lines << tr("Slurm reservation %1 is deleted.").arg(r.name);
        else
            lines << tr("Slurm reservation %1 stays as it is.").arg(r.name);
    }
    return lines;
}

ScheduleConfirmDialog::ScheduleConfirmDialog(const Session::SchedulePreview &p,
                                             int utcOffsetSeconds,
                                             QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Apply this schedule?"));
    setObjectName(QStringLiteral("scheduleConfirmDialog"));
    setMinimumWidth(fontMetrics().averageCharWidth() * 80);
    auto *layout = new QVBoxLayout(this);

    auto *summary
            = new QLabel(summaryLines(p, utcOffsetSeconds).mid(0, 2).join(QLatin1Char('\n')), this);
    summary->setObjectName(QStringLiteral("summary"));
    summary->setWordWrap(true);
    layout->addWidget(summary);

    if (!p.evictions.isEmpty()) {
        layout->addWidget(new QLabel(tr("Training it stops:"), this));
        auto *jobs = new QTreeWidget(this);
        jobs->setObjectName(QStringLiteral("evictions"));
        jobs->setRootIsDecorated(false);
        jobs->setHeaderLabels({tr("Job"), tr("Leaves"), tr("Lost work (h:mm)")});
        for (int i = 0; i < p.evictions.size(); ++i) {
            auto *item = new QTreeWidgetItem(jobs);
            item->setText(0, jobName(p, i));
            item->setText(1, leavesText(p.evictions[i], utcOffsetSeconds));
            item->setText(2, hoursMinutesText(p.evictions[i].lostMs));
            item->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
        }
        jobs->header()->setStretchLastSection(false);
        jobs->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
        jobs->header()->setSectionResizeMode(0, QHeaderView::Stretch);
        layout->addWidget(jobs);
        layout->addWidget(new QLabel(
                tr("In all: %1 of work lost (h:mm).").arg(hoursMinutesText(totalLostWorkMs(p))),
                this));
    } else {
        layout->addWidget(new QLabel(tr("No running job is stopped."), this));
    }

    if (!p.services.isEmpty()) {
        layout->addWidget(new QLabel(tr("Inference services:"), this));
        auto *services = new QTreeWidget(this);
        services->setObjectName(QStringLiteral("services"));
        services->setRootIsDecorated(false);
        services->setHeaderLabels(
                {tr("Service"), tr("Replicas"), tr("p99 at today’s load"), tr("SLO"), QString()});
        for (const PolicyPlan::ServiceChange &c : p.services) {
            auto *item = new QTreeWidgetItem(services);
            item->setText(0, c.name);
            item->setText(1,
                          c.replicasAfter == c.replicasBefore
                                  ? QString::number(c.replicasAfter)
                                  : tr("%1 → %2").arg(c.replicasBefore).arg(c.replicasAfter));
            item->setText(2, p99Text(c.p99AfterMs));
            item->setText(3, p99Text(c.sloMs));
            if (c.atRisk) {
                item->setText(4, tr("SLO at risk"));
                for (int col = 0; col < 5; ++col)
                    item->setForeground(col, QColor(0xb0, 0x3a, 0x2e));
            }
            for (int col = 1; col < 4; ++col)
                item->setTextAlignment(col, Qt::AlignRight | Qt::AlignVCenter);
        }
        services->header()->setStretchLastSection(false);
        services->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
        services->header()->setSectionResizeMode(0, QHeaderView::Stretch);
        layout->addWidget(services);
    }
    if (!p.movedReplicas.isEmpty())
        layout->addWidget(new QLabel(
                tr("%n replica(s) move to another card.", nullptr, int(p.movedReplicas.size())),
                this));

    auto *buttons = new QDialogButtonBox(this);
    QPushButton *keep
            = buttons->addButton(tr("Keep the schedule in force"), QDialogButtonBox::RejectRole);
    QPushButton *go = buttons->addButton(tr("Apply schedule"), QDialogButtonBox::AcceptRole);
    go->setObjectName(QStringLiteral("applyConfirmed"));
    keep->setDefault(true);
    go->setDefault(false);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

} // namespace Zhaoxi::Widgets
