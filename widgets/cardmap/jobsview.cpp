// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobsview.h"

#include "core/models/jobtablemodel.h"
#include "core/models/sessionclient.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace Zhaoxi::Widgets {

using Models::JobTableModel;

namespace {

// Shows every job, or only the waiting ones.
class JobFilterModel : public QSortFilterProxyModel
{
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

    bool waitingOnly() const { return m_waitingOnly; }
    void setWaitingOnly(bool waitingOnly)
    {
        if (waitingOnly == m_waitingOnly)
            return;
        m_waitingOnly = waitingOnly;
        invalidateRowsFilter();
    }

protected:
    bool filterAcceptsRow(int row, const QModelIndex &parent) const override
    {
        if (!m_waitingOnly)
            return true;
        const QModelIndex i = sourceModel()->index(row, 0, parent);
        return i.data(JobTableModel::WaitingRole).toBool();
    }

private:
    bool m_waitingOnly = true;
};

} // namespace

JobsView::JobsView(Models::SessionClient *client, QWidget *parent)
    : QWidget(parent)
    , m_client(client)
{
    setObjectName(QStringLiteral("jobsView"));
    m_model = new JobTableModel(this);
    auto *proxy = new JobFilterModel(this);
    proxy->setSourceModel(m_model);
    proxy->setSortRole(JobTableModel::SortRole);
    // A job's state changes as snapshots come: the filter and the order follow.
    proxy->setDynamicSortFilter(true);
    m_proxy = proxy;

    m_filterLabel = new QLabel(this);
    m_filter = new QComboBox(this);
    m_filter->setObjectName(QStringLiteral("jobFilter"));
    m_filter->addItem(QString(), int(Filter::WaitingOnly));
    m_filter->addItem(QString(), int(Filter::All));
    m_filterLabel->setBuddy(m_filter);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("jobSummary"));

    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("jobTable"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    // Waiting jobs first, in queue order.
    m_table->sortByColumn(JobTableModel::StateColumn, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setDragEnabled(true);
    m_table->setDragDropMode(QAbstractItemView::DragOnly);
    m_table->setDefaultDropAction(Qt::MoveAction);
    // A drop elsewhere must not clear cells here (QTableView overwrites by default).
    m_table->setDragDropOverwriteMode(false);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSectionResizeMode(JobTableModel::NameColumn,
                                                      QHeaderView::Interactive);

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_filterLabel);
    bar->addWidget(m_filter);
    bar->addStretch(1);
    bar->addWidget(m_summary);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_table, 1);

    connect(m_filter, &QComboBox::currentIndexChanged, this, [this, proxy](int) {
        proxy->setWaitingOnly(filter() == Filter::WaitingOnly);
        updateSummary();
    });
    connect(m_model, &JobTableModel::summaryChanged, this, &JobsView::updateSummary);
    connect(m_table->selectionModel(),
            &QItemSelectionModel::currentRowChanged,
            this,
            [this](const QModelIndex &current) {
                Q_EMIT jobSelected(current.isValid() ? Domain::JobId(
                                           current.data(JobTableModel::JobIdRole).toInt())
                                                     : Domain::JobId());
            });

    retranslateUi();
    if (client) {
        connect(client, &Models::SessionClient::snapshotChanged, this, &JobsView::setSnapshot);
        if (client->snapshot())
            setSnapshot(client->snapshot());
    }
}

JobsView::Filter JobsView::filter() const
{
    return Filter(m_filter->currentData().toInt());
}

void JobsView::setFilter(Filter filter)
{
    m_filter->setCurrentIndex(m_filter->findData(int(filter)));
}

Domain::JobId JobsView::currentJob() const
{
    const QModelIndex i = m_table->currentIndex();
    return i.isValid() ? Domain::JobId(i.data(JobTableModel::JobIdRole).toInt()) : Domain::JobId();
}

void JobsView::setSnapshot(const Session::SnapshotPtr &snapshot)
{
    if (snapshot)
        m_model->setSnapshot(*snapshot);
}

void JobsView::updateSummary()
{
    m_summary->setText(tr("%n waiting", nullptr, m_model->waitingCount())
                       + QStringLiteral(" \u00b7 ")
                       + tr("%n job(s)", nullptr, m_model->rowCount()));
}

void JobsView::retranslateUi()
{
    m_filterLabel->setText(tr("&Show:"));
    m_filter->setItemText(m_filter->findData(int(Filter::WaitingOnly)), tr("Waiting only"));
    m_filter->setItemText(m_filter->findData(int(Filter::All)), tr("All jobs"));
    m_filter->setToolTip(tr("Waiting jobs can be dragged onto a card of the map"));
    m_model->retranslate();
    updateSummary();
}

void JobsView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

} // namespace Zhaoxi::Widgets
