// SPDX-License-Identifier: GPL-3.0-or-later
#include "carddetailsview.h"

#include "core/models/cardtablemodel.h"
#include "cardmap/cardtile.h"
#include "charts/partitionchart.h"

#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace Zhaoxi::Widgets {

using Models::CardReading;
using Models::CardTableModel;
using Models::PartitionInfo;

namespace {

enum PartitionColumn {
    PartitionNameColumn,
    ComputeColumn,
    MemoryColumn,
    JobColumn,
    StateColumn,
    BusyColumn,
    InUseColumn,
    PartitionColumnCount
};

} // namespace

CardDetailsView::CardDetailsView(QWidget *parent)
    : QWidget(parent)
    , m_title(new QLabel(this))
    , m_summary(new QLabel(this))
    , m_readings(new QLabel(this))
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
    m_readings->setObjectName(QStringLiteral("cardReadings"));
    m_readings->setWordWrap(true);
    m_readings->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_partitions->setObjectName(QStringLiteral("partitionList"));
    m_partitions->setColumnCount(PartitionColumnCount);
    m_partitions->setRootIsDecorated(false);
    m_partitions->setUniformRowHeights(true);
    m_partitions->setAlternatingRowColors(true);
    m_partitions->setSelectionMode(QAbstractItemView::SingleSelection);
    connect(m_partitions, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem *item) {
        if (m_filling || !item)
            return;
        while (item->parent())
            item = item->parent(); // a process row: its partition
        const QVariant uid = item->data(PartitionNameColumn, Qt::UserRole);
        if (!uid.isValid() || uid.toInt() == m_selectedUid)
            return;
        // The chart follows at once; the list keeps its rows (rebuilding it inside its own
        // signal would move the current row again).
        m_selectedUid = uid.toInt();
        if (m_chart && m_card.isValid())
            m_chart->setPartition(Domain::CardId(m_card.data(CardTableModel::CardIdRole).toInt()),
                                  m_selectedUid,
                                  partitionTitle(item));
    });
    m_partitions->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_partitions->header()->setStretchLastSection(true);

    m_refreshTimer = new QTimer(this);
    m_refreshTimer->setSingleShot(true);
    m_refreshTimer->setInterval(250);
    connect(m_refreshTimer, &QTimer::timeout, this, &CardDetailsView::refresh);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(m_summary);
    layout->addWidget(m_readings);
    layout->addWidget(m_partitions, 1);

    retranslateUi();
}

void CardDetailsView::setCard(const QModelIndex &index)
{
    watch(index.model());
    const QModelIndex card = index.siblingAtColumn(0);
    if (card == QModelIndex(m_card) && m_model) {
        requestRefresh(); // the same card again (a snapshot): with the next refresh
        return;
    }
    m_selectedUid = -1; // another card: its first partition at work
    m_card = card;
    refresh();
}

void CardDetailsView::requestRefresh()
{
    if (!m_refreshTimer->isActive())
        m_refreshTimer->start();
}

void CardDetailsView::setSeriesStore(Models::SeriesStore *store)
{
    delete m_chart;
    m_chart = store ? new PartitionChart(store, this) : nullptr;
    if (m_chart)
        layout()->addWidget(m_chart);
    refresh();
}

void CardDetailsView::selectPartition(int uid)
{
    m_selectedUid = uid;
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
                    requestRefresh();
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
    m_partitions->setHeaderLabels({tr("Partition"),
                                   tr("Compute"),
                                   tr("Memory"),
                                   tr("Job"),
                                   tr("State"),
                                   tr("Busy"),
                                   tr("In use")});
    refresh();
}

void CardDetailsView::refresh()
{
    m_refreshTimer->stop();
    m_filling = true;
    m_partitions->clear();
    m_filling = false;
    if (!m_model || !m_card.isValid()) {
        m_title->setText(tr("No card selected"));
        m_summary->setText(tr("Select a card to see its partitions."));
        m_readings->clear();
        if (m_chart)
            m_chart->setPartition(Domain::CardId(), -1, QString());
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

    const auto reading = role(CardTableModel::ReadingRole).value<CardReading>();
    m_readings->setText(hostUp && reading.present ? readingsText(reading)
                                                  : tr("No readings from this card now."));

    const auto partitions = role(CardTableModel::PartitionsRole).value<QList<PartitionInfo>>();
    if (m_selectedUid >= 0
        && std::none_of(partitions.cbegin(), partitions.cend(), [this](const PartitionInfo &p) {
               return p.uid == m_selectedUid;
           }))
        m_selectedUid = -1; // gone (a repartition): choose again
    if (m_selectedUid < 0 && !partitions.isEmpty()) {
        m_selectedUid = partitions.first().uid;
        for (const PartitionInfo &p : partitions) {
            if (p.job.isValid()) {
                m_selectedUid = p.uid;
                break;
            }
        }
    }
    QTreeWidgetItem *selected = nullptr;
    QString selectedTitle;
    m_filling = true;
    for (const PartitionInfo &p : partitions) {
        auto *item = new QTreeWidgetItem(m_partitions);
        item->setData(PartitionNameColumn, Qt::UserRole, p.uid);
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
        // Allocated but idle shows: the job holds the unit and does nothing with it now.
        QString state = CardTableModel::unitStateText(p.state);
        if (p.job.isValid() && p.state == Sched::UnitState::Ready && reading.present)
            state = reading.busyUnits.contains(p.uid) ? tr("Working") : tr("Allocated, idle");
        item->setText(StateColumn, state);
        item->setTextAlignment(ComputeColumn, Qt::AlignRight | Qt::AlignVCenter);
        item->setTextAlignment(MemoryColumn, Qt::AlignRight | Qt::AlignVCenter);
        const Session::UnitSample *unit = reading.present ? reading.unit(p.uid) : nullptr;
        if (unit) {
            item->setText(BusyColumn,
                          std::isnan(unit->utilisation)
                                  ? tr("not reported")
                                  : CardTableModel::percentText(
                                          int(std::lround(unit->utilisation * 1000))));
            item->setText(InUseColumn,
                          unit->memoryUsedMiB < 0
                                  ? tr("not reported")
                                  : CardTableModel::memoryText(unit->memoryUsedMiB));
            item->setTextAlignment(BusyColumn, Qt::AlignRight | Qt::AlignVCenter);
            item->setTextAlignment(InUseColumn, Qt::AlignRight | Qt::AlignVCenter);
            // The processes the driver lists on it, each with its memory and whose it is.
            for (const Session::UnitProcess &proc : unit->processes) {
                auto *child = new QTreeWidgetItem(item);
                child->setText(PartitionNameColumn,
                               proc.name.isEmpty()
                                       ? tr("process %1").arg(proc.pid)
                                       : tr("%1 (pid %2)").arg(proc.name).arg(proc.pid));
                child->setText(JobColumn,
                               proc.job >= 0 ? tr("job %1").arg(proc.job)
                                             : tr("not started by Zhaoxi"));
                child->setText(InUseColumn,
                               proc.memoryMiB < 0 ? tr("not reported")
                                                  : CardTableModel::memoryText(proc.memoryMiB));
                child->setTextAlignment(InUseColumn, Qt::AlignRight | Qt::AlignVCenter);
            }
            item->setExpanded(true);
        }
        if (p.uid == m_selectedUid) {
            selected = item;
            selectedTitle = partitionTitle(item);
        }
    }
    if (selected)
        m_partitions->setCurrentItem(selected);
    m_filling = false;
    if (m_chart) {
        m_chart->setPartition(selected ? Domain::CardId(role(CardTableModel::CardIdRole).toInt())
                                       : Domain::CardId(),
                              m_selectedUid,
                              selectedTitle);
    }
    if (partitions.isEmpty()) {
        auto *item = new QTreeWidgetItem(m_partitions);
        item->setText(PartitionNameColumn,
                      mode == Domain::PartitionMode::Mig ? tr("No MIG instances")
                                                         : tr("No clients"));
        item->setDisabled(true);
    }
}

QString CardDetailsView::partitionTitle(const QTreeWidgetItem *item)
{
    const QString name = item->text(PartitionNameColumn);
    const QString job = item->text(JobColumn);
    return job.isEmpty() ? name : tr("%1 · %2").arg(name, job);
}

QString CardDetailsView::readingsText(const CardReading &r)
{
    if (!r.present)
        return {};
    const auto whole = [](double v) { return QString::number(std::lround(v)); };
    QStringList lines;
    const QString utilisation = r.utilisation < 0 ? tr("not reported by the driver")
                                                  : tr("%1 %").arg(whole(r.utilisation * 100));
    QString memory = r.memoryUsedMiB < 0 ? tr("not reported")
                                         : CardTableModel::memoryText(r.memoryUsedMiB);
    if (r.trainingMemoryMiB >= 0 && r.inferenceMemoryMiB >= 0 && r.otherMemoryMiB >= 0)
        memory = tr("%1 (training %2, inference %3, other processes %4)")
                         .arg(memory,
                              CardTableModel::memoryText(r.trainingMemoryMiB),
                              CardTableModel::memoryText(r.inferenceMemoryMiB),
                              CardTableModel::memoryText(r.otherMemoryMiB));
    lines << tr("Utilisation %1 · memory in use %2").arg(utilisation, memory);

    QString clock = r.clockFactor < 0 ? tr("Clock not reported")
                                      : tr("Clock at %1 % of full").arg(whole(r.clockFactor * 100));
    if (r.throttled || r.throttleReasons != 0) {
        const QStringList reasons = CardTile::throttleReasonTexts(r.throttleReasons);
        clock = reasons.isEmpty() ? tr("%1, throttled").arg(clock)
                                  : tr("%1, throttled: %2").arg(clock, reasons.join(tr(", ")));
    } else
        clock = tr("%1, not throttled").arg(clock);
    lines << clock;

    if (r.temperatureC >= 0) {
        const QString t = whole(r.temperatureC);
        if (r.slowdownTempC > 0 && r.shutdownTempC > 0)
            lines << tr("Temperature %1 °C (slows down at %2 °C, shuts down at %3 °C)")
                             .arg(t)
                             .arg(r.slowdownTempC)
                             .arg(r.shutdownTempC);
        else if (r.slowdownTempC > 0)
            lines << tr("Temperature %1 °C (slows down at %2 °C)").arg(t).arg(r.slowdownTempC);
        else
            lines << tr("Temperature %1 °C").arg(t);
    }
    if (r.powerW >= 0)
        lines << (r.powerLimitW > 0 ? tr("Power %1 W of its %2 W limit")
                                              .arg(whole(r.powerW), whole(r.powerLimitW))
                                    : tr("Power %1 W").arg(whole(r.powerW)));
    lines << tr("Since the session began: Xid errors %1 · uncorrectable ECC errors %2")
                     .arg(r.xidErrors)
                     .arg(r.eccUncorrected);
    if (r.otherProcesses > 0)
        lines << tr("Processes Zhaoxi did not start: %1").arg(r.otherProcesses);
    return lines.join(QLatin1Char('\n'));
}

} // namespace Zhaoxi::Widgets
