// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobtablemodel.h"

#include "changedruns.h"

#include <QDateTime>
#include <QMimeData>
#include <QStringList>

#include <algorithm>

namespace Zhaoxi::Models {

using Domain::ComputeDemand;
using Domain::JobId;
using Domain::WorkloadKind;
using Sched::JobState;

namespace {

const QString kSeparator = QStringLiteral(", ");

} // namespace

JobTableModel::JobTableModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

QString JobTableModel::mimeType()
{
    return QStringLiteral("application/x-zhaoxi-job-ids");
}

QByteArray JobTableModel::encodeJobIds(const QList<JobId> &jobs)
{
    QByteArray bytes;
    for (JobId j : jobs) {
        if (!bytes.isEmpty())
            bytes += ',';
        bytes += QByteArray::number(j.value());
    }
    return bytes;
}

QList<JobId> JobTableModel::jobIdsFromMimeData(const QMimeData *data)
{
    QList<JobId> jobs;
    if (!data || !data->hasFormat(mimeType()))
        return jobs;
    const QList<QByteArray> parts = data->data(mimeType()).split(',');
    for (const QByteArray &p : parts) {
        bool ok = false;
        const int id = p.trimmed().toInt(&ok);
        if (ok && id >= 0)
            jobs.append(JobId(id));
    }
    return jobs;
}

JobTableModel::Row JobTableModel::makeRow(const Session::Snapshot &snapshot,
                                          const Sched::Job &job,
                                          const QHash<int, double> &progress,
                                          const QHash<int, int> &queuePositions)
{
    const Sched::ClusterState &st = snapshot.state;
    Row r;
    r.id = job.id;
    r.name = job.spec.name;
    r.kind = job.spec.kind;
    r.state = job.state;
    r.queuePosition = queuePositions.value(job.id.value(), -1);
    r.priority = job.spec.priority;
    r.demand = job.spec.demand;
    if (job.isActive() && job.host.isValid() && job.host.value() < st.hosts().size()) {
        r.host = job.host;
        r.hostName = st.host(job.host).name;
        for (const Sched::Assignment &a : job.assignments) {
            if (!a.card.isValid() || a.card.value() >= st.cards().size())
                continue;
            r.cards.append(a.card.value());
            r.cardIndexes.append(st.card(a.card).indexOnHost);
        }
    }
    r.submittedMs = job.submittedMs;
    r.startedMs = job.startedMs;
    // The training model knows real progress (work, not wall time); otherwise the expected
    // duration tells how far a batch job is. Services run open-ended: no progress.
    const auto p = progress.constFind(job.id.value());
    if (p != progress.cend()) {
        r.progress = std::clamp(*p, 0.0, 1.0);
    } else if (job.state == JobState::Finished) {
        r.progress = 1;
    } else if (job.spec.kind != WorkloadKind::Inference && job.spec.time.expectedDurationMs > 0) {
        r.progress = std::clamp(
                double(job.workDoneMs) / double(job.spec.time.expectedDurationMs), 0.0, 1.0);
    }
    if (job.spec.inference)
        r.service = job.spec.inference->service;
    r.preemptions = job.preemptions;
    r.overBudget = job.overBudget;
    r.lostWorkMs = job.lostWorkMs;
    return r;
}

void JobTableModel::setSnapshot(const Session::Snapshot &snapshot)
{
    const QList<Sched::Job> &jobs = snapshot.state.jobs();
    m_utcOffsetSeconds = snapshot.utcOffsetSeconds;

    // Another appliance (or session): its jobs are not ours, start over.
    const bool reset = jobs.size() < m_rows.size()
                       || (!m_rows.isEmpty() && !jobs.isEmpty()
                           && jobs.first().spec.name != m_rows.first().name);

    QHash<int, double> progress;
    for (const Session::TrainingSample &t : snapshot.training)
        progress.insert(t.job.value(), t.progress);
    QHash<int, int> queuePositions;
    for (int i = 0; i < snapshot.queue.size(); ++i)
        queuePositions.insert(snapshot.queue[i].value(), i);

    const int oldWaiting = m_waiting;
    const qsizetype oldCount = reset ? 0 : m_rows.size();
    if (reset) {
        beginResetModel();
        m_rows.clear();
        endResetModel();
    }

    // Rows both snapshots have: one dataChanged per run of changed rows. A job that had ended
    // cannot change again, so it is not rebuilt.
    const qsizetype common = std::min(jobs.size(), m_rows.size());
    forEachChangedRun(
            common,
            [&](qsizetype i) {
                if (jobs[i].isTerminal() && jobs[i].state == m_rows[i].state)
                    return false;
                Row row = makeRow(snapshot, jobs[i], progress, queuePositions);
                if (row == m_rows[i])
                    return false;
                m_rows[i] = std::move(row);
                return true;
            },
            [&](int first, int last) {
                Q_EMIT dataChanged(index(first, 0), index(last, ColumnCount - 1));
            });
    if (jobs.size() > m_rows.size()) {
        QList<Row> added;
        added.reserve(jobs.size() - m_rows.size());
        for (qsizetype i = m_rows.size(); i < jobs.size(); ++i)
            added.append(makeRow(snapshot, jobs[i], progress, queuePositions));
        beginInsertRows(QModelIndex(), int(m_rows.size()), int(jobs.size() - 1));
        m_rows.append(added);
        endInsertRows();
    }

    m_waiting = 0;
    for (const Row &r : std::as_const(m_rows))
        m_waiting += r.state == JobState::Pending ? 1 : 0;
    if (m_waiting != oldWaiting || m_rows.size() != oldCount)
        Q_EMIT summaryChanged();
}

void JobTableModel::retranslate()
{
    Q_EMIT headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
    if (!m_rows.isEmpty()) {
        Q_EMIT dataChanged(index(0, 0),
                           index(int(m_rows.size()) - 1, ColumnCount - 1),
                           {Qt::DisplayRole, Qt::ToolTipRole});
    }
}

QString JobTableModel::kindText(WorkloadKind kind)
{
    switch (kind) {
    case WorkloadKind::Training:
        return tr("Training");
    case WorkloadKind::Inference:
        return tr("Inference");
    case WorkloadKind::Batch:
        return tr("Batch");
    }
    return QString();
}

QString JobTableModel::stateText(JobState state)
{
    switch (state) {
    case JobState::Pending:
        return tr("Waiting");
    case JobState::Running:
        return tr("Running");
    case JobState::Preempting:
        return tr("Draining");
    case JobState::Finished:
        return tr("Finished");
    case JobState::Cancelled:
        return tr("Cancelled");
    case JobState::Failed:
        return tr("Failed");
    }
    return QString();
}

QString JobTableModel::memoryText(qint64 memoryMiB)
{
    if (memoryMiB < 1024)
        return tr("%1 MiB").arg(memoryMiB);
    const double gib = double(memoryMiB) / 1024.0;
    const bool whole = memoryMiB % 1024 == 0;
    return tr("%1 GiB").arg(QString::number(gib, 'f', whole ? 0 : 1));
}

QString JobTableModel::demandText(const Domain::Demand &demand)
{
    if (demand.cards == 0)
        return tr("CPU only");
    QString unit;
    switch (demand.compute.kind) {
    case ComputeDemand::Kind::WholeCard:
        unit = tr("whole card");
        break;
    case ComputeDemand::Kind::MigProfile:
        unit = demand.compute.profile;
        break;
    case ComputeDemand::Kind::MigSlices:
        unit = tr("%n MIG slice(s)", nullptr, demand.compute.slices);
        break;
    case ComputeDemand::Kind::Fraction:
        unit = tr("%1% of a card").arg(QString::number(demand.compute.milli / 10.0, 'g', 4));
        break;
    }
    if (demand.cards == 1)
        return unit;
    return tr("%1 \u00d7 %2").arg(demand.cards).arg(unit);
}

QString JobTableModel::placementText(const Row &row) const
{
    if (!row.host.isValid())
        return QString();
    QStringList cards;
    for (int i : row.cardIndexes)
        cards << QString::number(i);
    if (cards.isEmpty())
        return row.hostName;
    return tr("%1: GPU %2").arg(row.hostName, cards.join(kSeparator));
}

QVariant JobTableModel::displayData(const Row &row, int column) const
{
    switch (Column(column)) {
    case NameColumn:
        return row.name;
    case KindColumn:
        return kindText(row.kind);
    case StateColumn:
        return row.overBudget ? tr("%1, over budget").arg(stateText(row.state))
                              : stateText(row.state);
    case PriorityColumn:
        return row.priority;
    case DemandColumn:
        return demandText(row.demand);
    case MemoryColumn:
        return row.demand.cards == 0 || row.demand.memoryMiB <= 0
                       ? QVariant()
                       : QVariant(memoryText(row.demand.memoryMiB));
    case PlacementColumn:
        return placementText(row);
    case SubmittedColumn: {
        const QDateTime t = QDateTime::fromMSecsSinceEpoch(
                row.submittedMs, Qt::OffsetFromUTC, m_utcOffsetSeconds);
        return t.toString(QStringLiteral("HH:mm"));
    }
    case ProgressColumn:
        if (row.progress < 0)
            return QVariant();
        return tr("%1%").arg(QString::number(row.progress * 100.0, 'f', 0));
    case ColumnCount:
        break;
    }
    return QVariant();
}

QVariant JobTableModel::sortData(const Row &row, int column) const
{
    switch (Column(column)) {
    case NameColumn:
        return row.name;
    case KindColumn:
        return int(row.kind);
    case StateColumn:
        // Waiting jobs in queue order first, then by state.
        return qint64(row.state) * 1'000'000 + std::max(0, row.queuePosition);
    case PriorityColumn:
        return row.priority;
    case DemandColumn:
        return row.demand.cards * qint64(row.demand.compute.milli);
    case MemoryColumn:
        return row.demand.memoryMiB;
    case PlacementColumn:
        return row.host.isValid() ? row.cards.value(0, -1) : -1;
    case SubmittedColumn:
        return row.submittedMs;
    case ProgressColumn:
        return row.progress;
    case ColumnCount:
        break;
    }
    return QVariant();
}

int JobTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int JobTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant JobTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid()
        || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return QVariant();
    const Row &row = m_rows[index.row()];
    switch (role) {
    case Qt::DisplayRole:
        return displayData(row, index.column());
    case Qt::ToolTipRole:
        switch (index.column()) {
        case StateColumn:
            if (row.state == JobState::Pending && row.queuePosition >= 0)
                return tr("Waiting, number %1 in the queue").arg(row.queuePosition + 1);
            if (row.overBudget)
                return tr("Placed by an operator over its class budget: the policies do not "
                          "move it to bring the class back within its budget");
            if (row.preemptions > 0)
                return tr("Preempted %n time(s)", nullptr, row.preemptions);
            return QVariant();
        case NameColumn:
            if (row.state == JobState::Pending)
                return tr("Drag onto a card of the map to place it there");
            return QVariant();
        default:
            return QVariant();
        }
    case Qt::TextAlignmentRole:
        switch (index.column()) {
        case PriorityColumn:
        case MemoryColumn:
        case ProgressColumn:
            return int(Qt::AlignRight | Qt::AlignVCenter);
        default:
            return QVariant();
        }
    case JobIdRole:
        return row.id.value();
    case NameRole:
        return row.name;
    case KindRole:
        return int(row.kind);
    case StateRole:
        return int(row.state);
    case WaitingRole:
        return row.state == JobState::Pending;
    case QueuePositionRole:
        return row.queuePosition;
    case PriorityRole:
        return row.priority;
    case DemandKindRole:
        return int(row.demand.compute.kind);
    case ProfileRole:
        return row.demand.compute.kind == ComputeDemand::Kind::MigProfile
                       ? row.demand.compute.profile
                       : QString();
    case SlicesRole:
        return row.demand.compute.kind == ComputeDemand::Kind::MigSlices ? row.demand.compute.slices
                                                                         : 0;
    case MilliRole:
        return row.demand.compute.kind == ComputeDemand::Kind::Fraction ? row.demand.compute.milli
                                                                        : 1000;
    case CardsRole:
        return row.demand.cards;
    case MemoryMiBRole:
        return row.demand.memoryMiB;
    case HostIdRole:
        return row.host.value();
    case HostRole:
        return row.hostName;
    case CardIdsRole:
        return QVariant::fromValue(row.cards);
    case SubmittedMsRole:
        return row.submittedMs;
    case StartedMsRole:
        return row.startedMs;
    case ProgressRole:
        return row.progress < 0 ? QVariant() : QVariant(row.progress);
    case ServiceRole:
        return row.service;
    case PreemptionsRole:
        return row.preemptions;
    case LostWorkMsRole:
        return row.lostWorkMs;
    case SortRole:
        return sortData(row, index.column());
    case OverBudgetRole:
        return row.overBudget;
    default:
        return QVariant();
    }
}

QVariant JobTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0
        || section >= ColumnCount)
        return QVariant();
    switch (Column(section)) {
    case NameColumn:
        return tr("Job");
    case KindColumn:
        return tr("Kind");
    case StateColumn:
        return tr("State");
    case PriorityColumn:
        return tr("Priority");
    case DemandColumn:
        return tr("Demand");
    case MemoryColumn:
        return tr("Memory");
    case PlacementColumn:
        return tr("Host / cards");
    case SubmittedColumn:
        return tr("Submitted");
    case ProgressColumn:
        return tr("Progress");
    case ColumnCount:
        break;
    }
    return QVariant();
}

QHash<int, QByteArray> JobTableModel::roleNames() const
{
    QHash<int, QByteArray> names = QAbstractTableModel::roleNames();
    names.insert(JobIdRole, "jobId");
    names.insert(NameRole, "name");
    names.insert(KindRole, "kind");
    names.insert(StateRole, "state");
    names.insert(WaitingRole, "waiting");
    names.insert(QueuePositionRole, "queuePosition");
    names.insert(PriorityRole, "priority");
    names.insert(DemandKindRole, "demandKind");
    names.insert(ProfileRole, "profile");
    names.insert(SlicesRole, "slices");
    names.insert(MilliRole, "milli");
    names.insert(CardsRole, "cards");
    names.insert(MemoryMiBRole, "memoryMiB");
    names.insert(HostIdRole, "hostId");
    names.insert(HostRole, "host");
    names.insert(CardIdsRole, "cardIds");
    names.insert(SubmittedMsRole, "submittedMs");
    names.insert(StartedMsRole, "startedMs");
    names.insert(ProgressRole, "progress");
    names.insert(ServiceRole, "service");
    names.insert(PreemptionsRole, "preemptions");
    names.insert(LostWorkMsRole, "lostWorkMs");
    names.insert(SortRole, "sort");
    names.insert(OverBudgetRole, "overBudget");
    return names;
}

Qt::ItemFlags JobTableModel::flags(const QModelIndex &index) const
{
    if (!index.isValid()
        || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
    if (m_rows[index.row()].state == JobState::Pending)
        f |= Qt::ItemIsDragEnabled;
    return f;
}

QStringList JobTableModel::mimeTypes() const
{
    return {mimeType()};
}

QMimeData *JobTableModel::mimeData(const QModelIndexList &indexes) const
{
    QList<JobId> jobs;
    for (const QModelIndex &i : indexes) {
        if (!checkIndex(i, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
            continue;
        const Row &row = m_rows[i.row()];
        if (row.state == JobState::Pending && !jobs.contains(row.id))
            jobs.append(row.id);
    }
    if (jobs.isEmpty())
        return nullptr;
    auto *data = new QMimeData;
    data->setData(mimeType(), encodeJobIds(jobs));
    return data;
}

Qt::DropActions JobTableModel::supportedDragActions() const
{
    // The drop asks the scheduler to move the job from the queue onto a card; the model itself
    // removes nothing (removeRows is not implemented), the next snapshot shows the new state.
    return Qt::MoveAction;
}

} // namespace Zhaoxi::Models
