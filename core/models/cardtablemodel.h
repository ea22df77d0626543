// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/clusterstate.h"
#include "core/session/snapshot.h"

#include <QAbstractTableModel>
#include <QList>
#include <QMetaType>
#include <QString>

namespace Zhaoxi::Models {

// One unit of a card (a whole card, a MIG instance or a bound soft share) as views show it.
struct PartitionInfo
{
    int uid = -1;
    QString profile;       // MIG profile name, e.g. "3g.71gb"; empty for whole cards and shares
    int start = -1;        // MIG start slot; -1 otherwise
    int computeSlices = 0; // MIG: the profile's compute slices; 0 otherwise
    int totalSlices = 0;   // MIG: the model's compute slices (7); 0 otherwise
    int milli = 0;         // compute share of the card, in 1/1000
    qint64 memoryMiB = 0;
    Domain::JobId job; // invalid: free
    QString jobName;   // the job's name; empty when free
    Sched::UnitState state = Sched::UnitState::Ready;
    friend bool operator==(const PartitionInfo &, const PartitionInfo &) = default;
};

// A card's latest readings in full, for the views that show them all (the card details).
struct CardReading
{
    bool present = false;    // a sample came for the card, and it is not lost
    double utilisation = -1; // 0..1; -1: not available (a real MIG card)
    double temperatureC = -1;
    double powerW = -1;
    double powerLimitW = 0;  // 0: unknown
    double clockFactor = -1; // the share of its full clock the card runs at; -1: unknown
    bool throttled = false;
    quint64 throttleReasons = 0; // Device::ThrottleReason bits while throttled
    int slowdownTempC = 0;       // 0: unknown
    int shutdownTempC = 0;
    int xidErrors = 0; // since the session began
    qint64 eccUncorrected = 0;
    qint64 memoryUsedMiB = -1;
    qint64 trainingMemoryMiB = -1; // -1 where the hardware lists no processes (the twin)
    qint64 inferenceMemoryMiB = -1;
    qint64 otherMemoryMiB = -1;
    int otherProcesses = 0; // compute processes none of Zhaoxi's jobs started
    QList<int> busyUnits;   // uids of units whose job is working now
    // Each partition's utilisation, memory in use and (on hardware) processes, by uid.
    QList<Session::UnitSample> units;
    const Session::UnitSample *unit(int uid) const
    {
        for (const Session::UnitSample &u : units) {
            if (u.uid == uid)
                return &u;
        }
        return nullptr;
    }
    friend bool operator==(const CardReading &, const CardReading &) = default;
};

// The appliance's cards as a table, one row per card in card-id order (hosts' cards are
// contiguous, so rows come grouped by host). Fed snapshots of the cluster state by setState(),
// which turns the differences into one dataChanged per run of changed rows, plus row inserts or
// removals when the number of cards changes (HOUSE_STYLE 8; the feeder decides how often).
//
// Display texts are translated with tr() when asked for; after a language change call
// retranslate(). Semantic values come through the roles below; there are no colours or icons
// here: views decide how a role looks. GUI thread (the thread the model lives in) only.
class CardTableModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        HostColumn,
        CardColumn,
        ModelColumn,
        ModeColumn,
        LayoutColumn,
        AllocatedColumn,
        UtilisationColumn, // the latest readings (setReadings)
        TemperatureColumn,
        PowerColumn,
        HealthColumn,
        LinkDomainColumn,
        ColumnCount
    };
    Q_ENUM(Column)

    // Every role answers for every column of a row.
    enum Role {
        CardIdRole = Qt::UserRole + 1, // int: the card's id (Domain::CardId value)
        HostIdRole,                    // int: the host's id
        HostRole,                      // QString: the host's name
        HostUpRole,                    // bool
        CardIndexRole,                 // int: the card's index on its host
        ModelRole,                     // QString: the catalogue model's name
        ModeRole,                      // int: Domain::PartitionMode
        LayoutRole,                    // QStringList: MIG placements, e.g. "3g.71gb@0"
        PartitionsRole,                // QList<PartitionInfo>: the card's units, by start slot
        PartitionCountRole,            // int
        AllocatedMilliRole,            // int: compute bound to jobs, in 1/1000 of the card
        AllocatedMemoryMiBRole,        // qint64: memory bound to jobs
        MemoryMiBRole,                 // qint64: the card's memory
        HealthRole,                    // int: Sched::CardHealth
        LinkDomainRole,                // int
        SortRole,                      // the column's natural sort key (CardSortModel uses it)
        ReadingRole,                   // CardReading: the latest readings in full (setReadings)
    };
    Q_ENUM(Role)

    explicit CardTableModel(QObject *parent = nullptr);

    // Takes a snapshot of `state`'s cards (the state is not kept).
    void setState(const Sched::ClusterState &state);
    // The cards' latest readings (a snapshot's samples, index = card id): utilisation,
    // temperature and power as columns, the rest (clock, throttling, errors, memory in use, busy
    // units) through ReadingRole; a change is announced on the reading columns. Cards without a
    // sample show none.
    void setReadings(const QList<Session::CardSample> &samples);
    // Re-announces headers and display texts after the application's language changed.
    void retranslate();

    int hostCount() const { return m_hostCount; }
    int cardCount() const { return int(m_rows.size()); }
    // Units over all cards: MIG instances, whole cards and bound soft shares.
    int partitionCount() const { return m_partitionCount; }
    int rowOf(Domain::CardId card) const; // -1 when unknown

    // The words for the core's codes, shared with the views that show the same facts.
    static QString modeText(Domain::PartitionMode mode);
    static QString healthText(Sched::CardHealth health, bool hostUp = true);
    static QString unitStateText(Sched::UnitState state);
    static QString percentText(int milli);
    static QString memoryText(qint64 memoryMiB);
    static QString idleText();

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section,
                        Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

Q_SIGNALS:
    // The host, card or partition count changed.
    void summaryChanged();

private:
    struct Row
    {
        Domain::CardId card;
        Domain::HostId hostId;
        QString host;
        bool hostUp = true;
        int indexOnHost = 0;
        QString model;
        Domain::PartitionMode mode = Domain::PartitionMode::Whole;
        QList<PartitionInfo> partitions;
        int usedMilli = 0;
        qint64 usedMemoryMiB = 0;
        qint64 memoryMiB = 0;
        Sched::CardHealth health = Sched::CardHealth::Healthy;
        int linkDomain = 0;
        friend bool operator==(const Row &, const Row &) = default;
    };

    static Row makeRow(const Sched::ClusterState &state, const Sched::CardState &card);
    QString layoutText(const Row &row) const;
    QVariant displayData(const Row &row, int column) const;
    QVariant sortData(const Row &row, int column) const;

    using Reading = CardReading;
    QVariant readingText(int row, int column) const;
    QVariant readingSort(int row, int column) const;

    QList<Row> m_rows;
    QList<Reading> m_readings; // by row (card id); may be shorter
    int m_hostCount = 0;
    int m_partitionCount = 0;
};

} // namespace Zhaoxi::Models

Q_DECLARE_METATYPE(Zhaoxi::Models::PartitionInfo)
Q_DECLARE_METATYPE(Zhaoxi::Models::CardReading)
