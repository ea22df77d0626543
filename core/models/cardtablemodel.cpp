// SPDX-License-Identifier: GPL-3.0-or-later
#include "cardtablemodel.h"

#include "changedruns.h"

#include "core/catalogue/layoutrules.h"

#include <QStringList>

#include <cmath>

namespace Zhaoxi::Models {

using Domain::PartitionMode;
using Sched::CardHealth;
using Sched::UnitState;

namespace {

// Separates a card's partitions in the layout column.
const QString kSeparator = QStringLiteral(" \u00b7 ");

} // namespace

CardTableModel::CardTableModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

CardTableModel::Row CardTableModel::makeRow(const Sched::ClusterState &state,
                                            const Sched::CardState &card)
{
    const Domain::CardModel &model = state.model(card);
    const Sched::HostState &host = state.host(card.host);
    Row r;
    r.card = card.id;
    r.hostId = card.host;
    r.host = host.name;
    r.hostUp = host.up;
    r.indexOnHost = card.indexOnHost;
    r.model = model.name;
    r.mode = card.mode;
    r.usedMilli = card.usedMilli;
    r.usedMemoryMiB = card.usedMemoryMiB;
    r.memoryMiB = model.memoryMiB;
    r.health = card.health;
    r.linkDomain = card.linkDomain;
    r.partitions.reserve(card.units.size());
    for (const Sched::Unit &u : card.units) {
        PartitionInfo p;
        p.uid = u.uid;
        if (u.profile >= 0 && u.profile < model.migProfiles.size()) {
            p.profile = model.migProfiles[u.profile].name;
            p.start = u.start;
            p.computeSlices = model.migProfiles[u.profile].computeSlices;
            p.totalSlices = model.migComputeSlices;
        }
        p.milli = state.unitMilli(card, u);
        p.memoryMiB = u.memoryMiB;
        p.job = u.job;
        if (u.job.isValid() && u.job.value() < state.jobs().size())
            p.jobName = state.job(u.job).spec.name;
        p.state = u.state;
        r.partitions.append(p);
    }
    return r;
}

void CardTableModel::setReadings(const QList<Session::CardSample> &samples)
{
    QList<Reading> readings(m_rows.size());
    for (qsizetype i = 0; i < readings.size() && i < samples.size(); ++i) {
        const Session::CardSample &s = samples[i];
        if (s.lost)
            continue;
        Reading &r = readings[i];
        r.present = true;
        r.utilisation = std::isnan(s.utilisation) ? -1 : s.utilisation;
        r.temperatureC = s.temperatureC;
        r.powerW = s.powerW;
        r.powerLimitW = s.powerLimitW;
        r.clockFactor = std::isnan(s.clockFactor) ? -1 : s.clockFactor;
        r.throttled = s.throttled;
        r.throttleReasons = s.throttleReasons;
        r.slowdownTempC = s.slowdownTempC;
        r.shutdownTempC = s.shutdownTempC;
        r.xidErrors = s.xidErrors;
        r.eccUncorrected = s.eccUncorrected;
        r.memoryUsedMiB = s.memoryUsedMiB;
        r.trainingMemoryMiB = s.trainingMemoryMiB;
        r.inferenceMemoryMiB = s.inferenceMemoryMiB;
        r.otherMemoryMiB = s.otherMemoryMiB;
        r.otherProcesses = s.otherProcesses;
        r.busyUnits = s.busyUnits;
        r.units = s.units;
    }
    m_readings.resize(readings.size());
    forEachChangedRun(
            readings.size(),
            [&](qsizetype i) {
                if (readings[i] == m_readings[i])
                    return false;
                m_readings[i] = readings[i];
                return true;
            },
            [&](int first, int last) {
                Q_EMIT dataChanged(index(first, UtilisationColumn), index(last, PowerColumn));
            });
}

QVariant CardTableModel::readingText(int row, int column) const
{
    if (row >= m_readings.size())
        return QString();
    const Reading &r = m_readings[row];
    switch (column) {
    case UtilisationColumn:
        return r.utilisation < 0 ? tr("n/a")
                                 : QStringLiteral("%1 %").arg(std::round(r.utilisation * 100));
    case TemperatureColumn:
        return !(r.temperatureC >= 0) ? QString() : tr("%1 °C").arg(std::round(r.temperatureC));
    case PowerColumn:
        return !(r.powerW >= 0) ? QString() : tr("%1 W").arg(std::round(r.powerW));
    default:
        return QVariant();
    }
}

QVariant CardTableModel::readingSort(int row, int column) const
{
    if (row >= m_readings.size())
        return -1.0;
    const Reading &r = m_readings[row];
    return column == UtilisationColumn   ? r.utilisation
           : column == TemperatureColumn ? r.temperatureC
                                         : r.powerW;
}

void CardTableModel::setState(const Sched::ClusterState &state)
{
    QList<Row> rows;
    rows.reserve(state.cards().size());
    int partitions = 0;
    for (const Sched::CardState &c : state.cards()) {
        rows.append(makeRow(state, c));
        partitions += int(c.units.size());
    }

    // Rows both snapshots have: one dataChanged per run of changed rows.
    const qsizetype oldCount = m_rows.size();
    const qsizetype common = std::min(rows.size(), m_rows.size());
    forEachChangedRun(
            common,
            [&](qsizetype i) {
                if (rows[i] == m_rows[i])
                    return false;
                m_rows[i] = rows[i];
                return true;
            },
            [&](int first, int last) {
                Q_EMIT dataChanged(index(first, 0), index(last, ColumnCount - 1));
            });
    if (rows.size() > m_rows.size()) {
        beginInsertRows(QModelIndex(), int(m_rows.size()), int(rows.size() - 1));
        m_rows.append(rows.mid(m_rows.size()));
        endInsertRows();
    } else if (rows.size() < m_rows.size()) {
        beginRemoveRows(QModelIndex(), int(rows.size()), int(m_rows.size() - 1));
        m_rows.resize(rows.size());
        endRemoveRows();
    }

    const int hosts = int(state.hosts().size());
    const bool summary
            = hosts != m_hostCount || partitions != m_partitionCount || rows.size() != oldCount;
    m_hostCount = hosts;
    m_partitionCount = partitions;
    if (summary)
        Q_EMIT summaryChanged();
}

void CardTableModel::retranslate()
{
    Q_EMIT headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
    if (!m_rows.isEmpty()) {
        Q_EMIT dataChanged(index(0, 0),
                           index(int(m_rows.size()) - 1, ColumnCount - 1),
                           {Qt::DisplayRole, Qt::ToolTipRole});
    }
}

int CardTableModel::rowOf(Domain::CardId card) const
{
    // Rows are in card-id order; the id is usually the row.
    const int guess = card.value();
    if (guess >= 0 && guess < m_rows.size() && m_rows[guess].card == card)
        return guess;
    for (int i = 0; i < m_rows.size(); ++i) {
        if (m_rows[i].card == card)
            return i;
    }
    return -1;
}

QString CardTableModel::modeText(PartitionMode mode)
{
    switch (mode) {
    case PartitionMode::Whole:
        return tr("Whole card");
    case PartitionMode::Mig:
        return tr("MIG");
    case PartitionMode::TimeSlicing:
        return tr("Time-slicing");
    case PartitionMode::Mps:
        return tr("MPS");
    }
    return QString();
}

QString CardTableModel::healthText(CardHealth health, bool hostUp)
{
    if (!hostUp)
        return tr("Host down");
    switch (health) {
    case CardHealth::Healthy:
        return tr("Healthy");
    case CardHealth::Throttled:
        return tr("Throttled");
    case CardHealth::Failed:
        return tr("Failed");
    }
    return QString();
}

QString CardTableModel::unitStateText(UnitState state)
{
    switch (state) {
    case UnitState::Ready:
        return tr("Ready");
    case UnitState::Creating:
        return tr("Creating");
    case UnitState::Destroying:
        return tr("Destroying");
    }
    return QString();
}

QString CardTableModel::percentText(int milli)
{
    return tr("%1%").arg(QString::number(milli / 10.0, 'f', 1));
}

QString CardTableModel::memoryText(qint64 memoryMiB)
{
    return tr("%1 GiB").arg(QString::number(memoryMiB / 1024.0, 'f', 1));
}

QString CardTableModel::idleText()
{
    return tr("idle");
}

QString CardTableModel::layoutText(const Row &row) const
{
    const auto jobText = [](const PartitionInfo &p) {
        QString text = p.job.isValid()
                               ? (p.jobName.isEmpty() ? tr("job %1").arg(p.job.value()) : p.jobName)
                               : idleText();
        if (p.state != UnitState::Ready)
            text += QStringLiteral(", ") + unitStateText(p.state).toLower();
        return text;
    };
    QStringList parts;
    switch (row.mode) {
    case PartitionMode::Mig:
        if (row.partitions.isEmpty())
            return tr("no partitions");
        for (const PartitionInfo &p : row.partitions) {
            parts << QStringLiteral("%1@%2 [%3]").arg(p.profile).arg(p.start).arg(jobText(p));
        }
        break;
    case PartitionMode::Whole:
        for (const PartitionInfo &p : row.partitions)
            parts << jobText(p);
        break;
    case PartitionMode::TimeSlicing:
    case PartitionMode::Mps:
        if (row.partitions.isEmpty())
            return tr("no clients");
        for (const PartitionInfo &p : row.partitions)
            parts << QStringLiteral("%1 (%2)").arg(jobText(p), percentText(p.milli));
        break;
    }
    return parts.join(kSeparator);
}

QVariant CardTableModel::displayData(const Row &row, int column) const
{
    switch (Column(column)) {
    case HostColumn:
        return row.host;
    case CardColumn:
        return tr("GPU %1").arg(row.indexOnHost);
    case ModelColumn:
        return row.model;
    case ModeColumn:
        return modeText(row.mode);
    case LayoutColumn:
        return layoutText(row);
    case AllocatedColumn:
        return percentText(row.usedMilli);
    case UtilisationColumn:
    case TemperatureColumn:
    case PowerColumn:
        return readingText(rowOf(row.card), column);
    case HealthColumn:
        return healthText(row.health, row.hostUp);
    case LinkDomainColumn:
        return row.linkDomain;
    case ColumnCount:
        break;
    }
    return QVariant();
}

QVariant CardTableModel::sortData(const Row &row, int column) const
{
    switch (Column(column)) {
    case HostColumn:
        return row.hostId.value();
    case CardColumn:
        return row.indexOnHost;
    case ModelColumn:
        return row.model;
    case ModeColumn:
        return int(row.mode);
    case LayoutColumn:
        return int(row.partitions.size());
    case AllocatedColumn:
        return row.usedMilli;
    case UtilisationColumn:
    case TemperatureColumn:
    case PowerColumn:
        return readingSort(rowOf(row.card), column);
    case HealthColumn:
        return row.hostUp ? int(row.health) : int(CardHealth::Failed) + 1;
    case LinkDomainColumn:
        return row.linkDomain;
    case ColumnCount:
        break;
    }
    return QVariant();
}

int CardTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int CardTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CardTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return QVariant();
    const Row &row = m_rows[index.row()];
    switch (role) {
    case Qt::DisplayRole:
        return displayData(row, index.column());
    case Qt::ToolTipRole:
        switch (index.column()) {
        case LayoutColumn:
            return layoutText(row);
        case AllocatedColumn:
            return tr("%1 of the compute and %2 of %3 memory bound to jobs")
                    .arg(percentText(row.usedMilli),
                         memoryText(row.usedMemoryMiB),
                         memoryText(row.memoryMiB));
        case LinkDomainColumn:
            return tr("Cards with the same link domain share a fast link (NVLink)");
        default:
            return QVariant();
        }
    case Qt::TextAlignmentRole:
        switch (index.column()) {
        case AllocatedColumn:
        case UtilisationColumn:
        case TemperatureColumn:
        case PowerColumn:
        case LinkDomainColumn:
            return int(Qt::AlignRight | Qt::AlignVCenter);
        default:
            return QVariant();
        }
    case CardIdRole:
        return row.card.value();
    case HostIdRole:
        return row.hostId.value();
    case HostRole:
        return row.host;
    case HostUpRole:
        return row.hostUp;
    case CardIndexRole:
        return row.indexOnHost;
    case ModelRole:
        return row.model;
    case ModeRole:
        return int(row.mode);
    case LayoutRole: {
        QStringList placements;
        for (const PartitionInfo &p : row.partitions) {
            if (!p.profile.isEmpty())
                placements << QStringLiteral("%1@%2").arg(p.profile).arg(p.start);
        }
        return placements;
    }
    case PartitionsRole:
        return QVariant::fromValue(row.partitions);
    case PartitionCountRole:
        return int(row.partitions.size());
    case AllocatedMilliRole:
        return row.usedMilli;
    case AllocatedMemoryMiBRole:
        return row.usedMemoryMiB;
    case MemoryMiBRole:
        return row.memoryMiB;
    case HealthRole:
        return int(row.health);
    case LinkDomainRole:
        return row.linkDomain;
    case SortRole:
        return sortData(row, index.column());
    case ReadingRole:
        return QVariant::fromValue(index.row() < m_readings.size() ? m_readings[index.row()]
                                                                   : CardReading());
    default:
        return QVariant();
    }
}

QVariant CardTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case HostColumn:
        return tr("Host");
    case CardColumn:
        return tr("Card");
    case ModelColumn:
        return tr("Model");
    case ModeColumn:
        return tr("Mode");
    case LayoutColumn:
        return tr("Layout");
    case AllocatedColumn:
        return tr("Allocated");
    case UtilisationColumn:
        return tr("Utilisation");
    case TemperatureColumn:
        return tr("Temperature");
    case PowerColumn:
        return tr("Power");
    case HealthColumn:
        return tr("Health");
    case LinkDomainColumn:
        return tr("Link domain");
    case ColumnCount:
        break;
    }
    return QVariant();
}

QHash<int, QByteArray> CardTableModel::roleNames() const
{
    QHash<int, QByteArray> names = QAbstractTableModel::roleNames();
    names.insert(CardIdRole, "cardId");
    names.insert(HostIdRole, "hostId");
    names.insert(HostRole, "host");
    names.insert(HostUpRole, "hostUp");
    names.insert(CardIndexRole, "cardIndex");
    names.insert(ModelRole, "model");
    names.insert(ModeRole, "mode");
    names.insert(LayoutRole, "layout");
    names.insert(PartitionsRole, "partitions");
    names.insert(PartitionCountRole, "partitionCount");
    names.insert(AllocatedMilliRole, "allocatedMilli");
    names.insert(AllocatedMemoryMiBRole, "allocatedMemoryMiB");
    names.insert(MemoryMiBRole, "memoryMiB");
    names.insert(HealthRole, "health");
    names.insert(LinkDomainRole, "linkDomain");
    names.insert(SortRole, "sortKey");
    names.insert(ReadingRole, "reading");
    return names;
}

} // namespace Zhaoxi::Models
