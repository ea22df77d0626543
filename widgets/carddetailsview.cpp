// SPDX-License-Identifier: GPL-3.0-or-later
#include "carddetailsview.h"

#include "core/models/cardtablemodel.h"

#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace Zhaoxi::Widgets {

using Models::CardTableModel;
using Models::PartitionInfo;

namespace {

enum PartitionColumn {
    PartitionNameColumn,
    ComputeColumn,
    MemoryColumn,
    JobColumn,
    StateColumn,
    PartitionColumnCount
};

} // namespace

CardDetailsView::CardDetailsView(QWidget *parent)
    : QWidget(parent)
    , m_title(new QLabel(this))
    , m_summary(new QLabel(this))
    , m_partitions(new QTreeWidget(this))
{
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.15);
    m_title->setFont(titleFont);
    m_title->setObjectName(QStringLiteral("cardTitle"));
    m_summary->setObjectName(QStringLiteral("cardSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_partitions->setObjectName(QStringLiteral("partitionList"));
    m_partitions->setColumnCount(PartitionColumnCount);
    m_partitions->setRootIsDecorated(false);
    m_partitions->setUniformRowHeights(true);
    m_partitions->setAlternatingRowColors(true);
    m_partitions->setSelectionMode(QAbstractItemView::NoSelection);
    m_partitions->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_partitions->header()->setStretchLastSection(true);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(m_summary);
    layout->addWidget(m_partitions, 1);

    retranslateUi();
}

void CardDetailsView::setCard(const QModelIndex &index)
{
    watch(index.model());
    m_card = index.siblingAtColumn(0);
    refresh();
}

void CardDetailsView::watch(const QAbstractItemModel *model)
{
    if (model == m_model)
        return;
    if (m_model)
        disconnect(m_model, nullptr, this, nullptr);
    m_model = model;
    if (!m_model)
        return;
    connect(m_model,
            &QAbstractItemModel::dataChanged,
            this,
            [this](const QModelIndex &topLeft, const QModelIndex &bottomRight) {
                if (m_card.isValid() && m_card.row() >= topLeft.row()
                    && m_card.row() <= bottomRight.row()) {
                    refresh();
                }
            });
    // A removed row or a reset leaves the persistent index invalid: show nothing.
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &CardDetailsView::refresh);
    connect(m_model, &QAbstractItemModel::modelReset, this, &CardDetailsView::refresh);
    connect(m_model, &QObject::destroyed, this, [this] {
        m_model = nullptr;
        refresh();
    });
}

void CardDetailsView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

void CardDetailsView::retranslateUi()
{
    m_partitions->setHeaderLabels(
            {tr("Partition"), tr("Compute"), tr("Memory"), tr("Job"), tr("State")});
    refresh();
}

void CardDetailsView::refresh()
{
    m_partitions->clear();
    if (!m_model || !m_card.isValid()) {
        m_title->setText(tr("No card selected"));
        m_summary->setText(tr("Select a card to see its partitions."));
        return;
    }
    const auto role = [this](int r) { return m_card.data(r); };
    const auto mode = Domain::PartitionMode(role(CardTableModel::ModeRole).toInt());
    const bool hostUp = role(CardTableModel::HostUpRole).toBool();
    const auto health = Sched::CardHealth(role(CardTableModel::HealthRole).toInt());

    m_title->setText(tr("%1 \u00b7 GPU %2")
                             .arg(role(CardTableModel::HostRole).toString())
                             .arg(role(CardTableModel::CardIndexRole).toInt()));
    m_summary->setText(
            tr("%1, %2 memory \u00b7 %3 \u00b7 link domain %4 \u00b7 %5 \u00b7 %6 allocated")
                    .arg(role(CardTableModel::ModelRole).toString(),
                         CardTableModel::memoryText(
                                 role(CardTableModel::MemoryMiBRole).toLongLong()),
                         CardTableModel::modeText(mode),
                         QString::number(role(CardTableModel::LinkDomainRole).toInt()),
                         CardTableModel::healthText(health, hostUp),
                         CardTableModel::percentText(
                                 role(CardTableModel::AllocatedMilliRole).toInt())));

    const auto partitions = role(CardTableModel::PartitionsRole).value<QList<PartitionInfo>>();
    for (const PartitionInfo &p : partitions) {
        auto *item = new QTreeWidgetItem(m_partitions);
        QString name;
        QString compute;
        if (!p.profile.isEmpty()) {
            name = tr("%1 at slot %2").arg(p.profile).arg(p.start);
            compute = tr("%1 of %2 slices").arg(p.computeSlices).arg(p.totalSlices);
        } else if (mode == Domain::PartitionMode::Whole) {
            name = tr("Whole card");
            compute = CardTableModel::percentText(p.milli);
        } else {
            name = tr("Share %1").arg(p.uid);
            compute = CardTableModel::percentText(p.milli);
        }
        item->setText(PartitionNameColumn, name);
        item->setText(ComputeColumn, compute);
        item->setText(MemoryColumn, CardTableModel::memoryText(p.memoryMiB));
        item->setText(JobColumn,
                      p.job.isValid()
                              ? (p.jobName.isEmpty() ? tr("job %1").arg(p.job.value()) : p.jobName)
                              : CardTableModel::idleText());
        item->setText(StateColumn, CardTableModel::unitStateText(p.state));
        item->setTextAlignment(ComputeColumn, Qt::AlignRight | Qt::AlignVCenter);
        item->setTextAlignment(MemoryColumn, Qt::AlignRight | Qt::AlignVCenter);
    }
    if (partitions.isEmpty()) {
        auto *item = new QTreeWidgetItem(m_partitions);
        item->setText(PartitionNameColumn,
                      mode == Domain::PartitionMode::Mig ? tr("No MIG instances")
                                                         : tr("No clients"));
        item->setDisabled(true);
    }
}

} // namespace Zhaoxi::Widgets
