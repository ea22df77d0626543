// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobsview.h"

#include "commandtext.h"
#include "joblogdialog.h"
#include "newworkloaddialog.h"
#include "reasontext.h"

#include "core/domain/workloadspec.h"
#include "core/models/jobtablemodel.h"
#include "core/models/sessionclient.h"

#include <QAction>
#include <QComboBox>
#include <QDrag>
#include <QEvent>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QPainter>
#include <QPixmap>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include <memory>

namespace Zhaoxi::Widgets {

using Models::JobTableModel;
using Sched::JobState;

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

// The jobs table, with a small drag image: a chip with the job's name beside the pointer,
// never a picture of the whole row over the card it is dropped on.
class JobTable : public QTableView
{
public:
    using QTableView::QTableView;

protected:
    void startDrag(Qt::DropActions actions) override
    {
        QModelIndexList rows;
        for (const QModelIndex &i : selectionModel()->selectedRows(JobTableModel::NameColumn))
            rows << i;
        if (rows.isEmpty())
            return;
        QMimeData *data = model()->mimeData(rows);
        if (!data)
            return;
        QStringList names;
        for (const QModelIndex &i : rows)
            names << i.data().toString();
        auto *drag = new QDrag(this);
        drag->setMimeData(data);
        drag->setPixmap(JobsView::dragImage(names, devicePixelRatioF(), font()));
        drag->setHotSpot(JobsView::kDragHotSpot);
        drag->exec(actions, defaultDropAction());
    }
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
    m_new = new QPushButton(this);
    m_new->setObjectName(QStringLiteral("newWorkload"));
    m_new->setEnabled(client != nullptr);
    connect(m_new, &QPushButton::clicked, this, [this] { newWorkload(); });

    m_table = new JobTable(this);
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
    bar->addWidget(m_new);
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

    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_table, &QWidget::customContextMenuRequested, this, [this](const QPoint &at) {
        const QModelIndex index = m_table->indexAt(at);
        if (index.isValid())
            m_table->selectRow(index.row());
        const Domain::JobId job
                = index.isValid() ? Domain::JobId(index.data(JobTableModel::JobIdRole).toInt())
                                  : Domain::JobId();
        const std::unique_ptr<QMenu> menu(createContextMenu(job, this));
        menu->exec(m_table->viewport()->mapToGlobal(at));
    });
    // A job selected before its first snapshot (a new submission) is selected when it comes.
    connect(m_model, &QAbstractItemModel::rowsInserted, this, [this] {
        if (m_selectWhenSeen.isValid() && trySelect(m_selectWhenSeen))
            m_selectWhenSeen = {};
    });

    retranslateUi();
    if (client) {
        connect(client, &Models::SessionClient::snapshotChanged, this, &JobsView::setSnapshot);
        connect(client,
                &Models::SessionClient::commandFinished,
                this,
                &JobsView::onCommandFinished);
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

void JobsView::selectJob(Domain::JobId job)
{
    m_selectWhenSeen = {};
    if (job.isValid() && !trySelect(job))
        m_selectWhenSeen = job;
}

bool JobsView::trySelect(Domain::JobId job)
{
    const auto find = [&]() -> QModelIndex {
        for (int row = 0; row < m_model->rowCount(); ++row) {
            const QModelIndex i = m_model->index(row, 0);
            if (i.data(JobTableModel::JobIdRole).toInt() == job.value())
                return i;
        }
        return {};
    };
    const QModelIndex source = find();
    if (!source.isValid())
        return false;
    QModelIndex index = m_proxy->mapFromSource(source);
    if (!index.isValid()) {
        // Filtered out (no longer waiting): show every job rather than select nothing.
        setFilter(Filter::All);
        index = m_proxy->mapFromSource(source);
    }
    m_table->setCurrentIndex(index);
    m_table->selectRow(index.row());
    m_table->scrollTo(index);
    return true;
}

std::optional<JobsView::JobFacts> JobsView::facts(Domain::JobId job) const
{
    for (int row = 0; row < m_model->rowCount(); ++row) {
        const QModelIndex i = m_model->index(row, 0);
        if (i.data(JobTableModel::JobIdRole).toInt() == job.value()) {
            return JobFacts{i.data(JobTableModel::NameRole).toString(),
                            i.data(JobTableModel::StateRole).toInt(),
                            i.data(JobTableModel::PriorityRole).toInt()};
        }
    }
    return std::nullopt;
}

QString JobsView::jobName(Domain::JobId job) const
{
    const std::optional<JobFacts> f = facts(job);
    return f && !f->name.isEmpty() ? f->name : tr("job %1").arg(job.value());
}

namespace {

bool hasEnded(JobState state)
{
    return state == JobState::Finished || state == JobState::Cancelled || state == JobState::Failed;
}

} // namespace

QMenu *JobsView::createContextMenu(Domain::JobId job, QWidget *parent)
{
    auto *menu = new QMenu(parent);
    menu->setObjectName(QStringLiteral("jobMenu"));
    const std::optional<JobFacts> f = job.isValid() ? facts(job) : std::nullopt;
    const bool live = m_client != nullptr;
    if (f) {
        const auto state = JobState(f->state);
        const bool ended = hasEnded(state);
        QAction *cancel = menu->addAction(tr("&Cancel job…"));
        cancel->setObjectName(QStringLiteral("cancelJob"));
        cancel->setEnabled(live && !ended);
        connect(cancel, &QAction::triggered, this, [this, job] { cancelJob(job); });
        QAction *requeue = menu->addAction(tr("&Requeue"));
        requeue->setObjectName(QStringLiteral("requeueJob"));
        requeue->setToolTip(tr("Take the job off its cards and back to the queue"));
        requeue->setEnabled(live && state == JobState::Running);
        connect(requeue, &QAction::triggered, this, [this, job] { requeueJob(job); });
        QAction *priority = menu->addAction(tr("Change &priority…"));
        priority->setObjectName(QStringLiteral("changePriority"));
        priority->setEnabled(live && !ended);
        connect(priority, &QAction::triggered, this, [this, job] { changePriority(job); });
        menu->addSeparator();
        QAction *why = menu->addAction(tr("&Why?"));
        why->setObjectName(QStringLiteral("whyJob"));
        why->setToolTip(tr("Why the job runs where it runs, or why it waits"));
        why->setEnabled(live);
        connect(why, &QAction::triggered, this, [this, job] { Q_EMIT jobSelected(job); });
        QAction *log = menu->addAction(tr("View &log…"));
        log->setObjectName(QStringLiteral("viewLog"));
        log->setEnabled(live);
        connect(log, &QAction::triggered, this, [this, job] { showLog(job); });
        menu->addSeparator();
    }
    QAction *create = menu->addAction(tr("&New workload…"));
    create->setObjectName(QStringLiteral("newWorkload"));
    create->setEnabled(live);
    connect(create, &QAction::triggered, this, [this] { newWorkload(); });
    return menu;
}

quint64 JobsView::cancelJob(Domain::JobId job)
{
    const std::optional<JobFacts> f = facts(job);
    if (!m_client || !f || hasEnded(JobState(f->state)))
        return 0;
    QMessageBox box(QMessageBox::Question,
                    tr("Cancel job"),
                    tr("Cancel %1?").arg(jobName(job)),
                    QMessageBox::NoButton,
                    this);
    box.setObjectName(QStringLiteral("confirmCancel"));
    box.setInformativeText(tr("Its process gets its stop signal and the job ends; work since its "
                              "last checkpoint is lost. This cannot be undone."));
    QPushButton *yes = box.addButton(tr("Cancel the job"), QMessageBox::DestructiveRole);
    yes->setObjectName(QStringLiteral("confirm"));
    QPushButton *no = box.addButton(tr("Keep it"), QMessageBox::RejectRole);
    no->setObjectName(QStringLiteral("keep"));
    box.setDefaultButton(no);
    box.exec();
    if (box.clickedButton() != yes)
        return 0;
    return issue({PendingCommand::Kind::Cancel, job, 0});
}

quint64 JobsView::requeueJob(Domain::JobId job)
{
    const std::optional<JobFacts> f = facts(job);
    if (!m_client || !f || JobState(f->state) != JobState::Running)
        return 0;
    return issue({PendingCommand::Kind::Requeue, job, 0});
}

quint64 JobsView::changePriority(Domain::JobId job)
{
    const std::optional<JobFacts> f = facts(job);
    if (!m_client || !f || hasEnded(JobState(f->state)))
        return 0;
    QInputDialog dialog(this);
    dialog.setObjectName(QStringLiteral("priorityDialog"));
    dialog.setWindowTitle(tr("Change priority"));
    dialog.setLabelText(
            tr("Priority of %1 (higher runs first and may preempt lower):").arg(jobName(job)));
    dialog.setInputMode(QInputDialog::IntInput);
    dialog.setIntRange(Domain::WorkloadSpecLimits::minPriority,
                       Domain::WorkloadSpecLimits::maxPriority);
    dialog.setIntValue(f->priority);
    if (dialog.exec() != QDialog::Accepted || dialog.intValue() == f->priority)
        return 0;
    return setJobPriority(job, dialog.intValue());
}

quint64 JobsView::setJobPriority(Domain::JobId job, int priority)
{
    const std::optional<JobFacts> f = facts(job);
    if (!m_client || !f || hasEnded(JobState(f->state)))
        return 0;
    return issue({PendingCommand::Kind::Priority, job, priority});
}

quint64 JobsView::issue(const PendingCommand &command)
{
    quint64 request = 0;
    switch (command.kind) {
    case PendingCommand::Kind::Cancel:
        request = m_client->cancelJob(command.job);
        break;
    case PendingCommand::Kind::Requeue:
        request = m_client->requeueJob(command.job);
        break;
    case PendingCommand::Kind::Priority:
        request = m_client->setJobPriority(command.job, command.priority);
        break;
    }
    m_commands.insert(request, command);
    return request;
}

void JobsView::onCommandFinished(const Session::CommandResult &result)
{
    const auto it = m_commands.find(result.request);
    if (it == m_commands.end())
        return;
    const PendingCommand command = it.value();
    m_commands.erase(it);
    finishCommand(command, result);
}

void JobsView::finishCommand(const PendingCommand &command, const Session::CommandResult &result)
{
    const QString job = jobName(command.job);
    QString why;
    if (!result.ok) {
        if (!result.problem.isNone() || !result.error.isEmpty())
            why = problemText(Session::problemOf(result), result.status);
        else if (!result.status.isSuccess())
            why = reasonText(result.status);
        else
            why = problemText({});
    }
    switch (command.kind) {
    case PendingCommand::Kind::Cancel:
        Q_EMIT statusMessage(result.ok ? tr("Cancelled %1.").arg(job)
                                       : tr("Could not cancel %1: %2").arg(job, why));
        break;
    case PendingCommand::Kind::Requeue:
        Q_EMIT statusMessage(result.ok
                                     ? tr("%1 went back to the queue.").arg(job)
                                     : tr("Could not take %1 back to the queue: %2").arg(job, why));
        break;
    case PendingCommand::Kind::Priority:
        Q_EMIT statusMessage(
                result.ok
                        ? tr("%1 now has priority %2.").arg(job, QString::number(command.priority))
                        : tr("Could not change the priority of %1: %2").arg(job, why));
        break;
    }
}

JobLogDialog *JobsView::showLog(Domain::JobId job)
{
    if (!m_client || !job.isValid())
        return nullptr;
    JobLogDialog *dialog = m_logs.value(job);
    if (!dialog) {
        dialog = new JobLogDialog(m_client, job, jobName(job), this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        m_logs.insert(job, dialog);
    }
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
    return dialog;
}

NewWorkloadDialog *JobsView::newWorkload()
{
    if (!m_client)
        return nullptr;
    auto *dialog = new NewWorkloadDialog(m_client, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &NewWorkloadDialog::workloadSubmitted, this, [this, dialog](Domain::JobId job) {
        const QString name = dialog->spec() ? dialog->spec()->name : QString();
        Q_EMIT statusMessage(tr("Submitted %1 as job %2.").arg(name, QString::number(job.value())));
        selectJob(job);
    });
    dialog->open();
    return dialog;
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
    m_new->setText(tr("&New workload…"));
    m_new->setToolTip(tr("Submit a workload from a form or a spec file (Ctrl+N)"));
    m_model->retranslate();
    updateSummary();
}

void JobsView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

QPixmap JobsView::dragImage(const QStringList &names, qreal devicePixelRatio, const QFont &font)
{
    const QString text
            = names.size() == 1 ? names.first() : tr("%n job(s)", nullptr, int(names.size()));
    QFontMetrics fm(font);
    const QString shown = fm.elidedText(text, Qt::ElideRight, 200);
    const QSize size(fm.horizontalAdvance(shown) + 16, fm.height() + 8);
    QPixmap pixmap(size * devicePixelRatio);
    pixmap.setDevicePixelRatio(devicePixelRatio);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(QColor(0x2f, 0x6f, 0xc0));
    p.setBrush(QColor(0xe8, 0xf0, 0xfb, 230));
    p.drawRoundedRect(QRectF(0.5, 0.5, size.width() - 1, size.height() - 1), 6, 6);
    p.setFont(font);
    p.setPen(QColor(0x20, 0x20, 0x20));
    p.drawText(QRect(QPoint(0, 0), size), Qt::AlignCenter, shown);
    return pixmap;
}

} // namespace Zhaoxi::Widgets
