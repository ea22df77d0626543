// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/session/snapshot.h"

#include <QAbstractTableModel>
#include <QList>
#include <QString>

class QMimeData;

namespace Zhaoxi::Models {

// Every job of a snapshot's cluster state as a table, one row per job in job-id order (ids are
// dense and jobs are never removed within a session, so new jobs append rows). Fed snapshots by
// setSnapshot(), which turns the differences into one dataChanged per run of changed rows and one
// row insert for the new jobs (HOUSE_STYLE 8; the feeder decides how often). A snapshot of another
// appliance (fewer jobs than rows) resets the model.
//
// Drag and drop (HOUSE_STYLE 9): only waiting (Pending) jobs are drag-enabled; mimeData() carries
// their ids in the custom MIME type `mimeType()` and the drop target asks the scheduler before it
// acts. Semantic values come through the roles below; no colours or icons. Display texts are
// translated with tr() when asked for; after a language change call retranslate().
// GUI thread (the thread the model lives in) only.
class JobTableModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        NameColumn,
        KindColumn,
        StateColumn,
        PriorityColumn,
        DemandColumn,
        MemoryColumn,
        PlacementColumn,
        SubmittedColumn,
        ProgressColumn,
        ColumnCount
    };
    Q_ENUM(Column)

    // Every role answers for every column of a row.
    enum Role {
        JobIdRole = Qt::UserRole + 1, // int: the job's id (Domain::JobId value)
        NameRole,                     // QString
        KindRole,                     // int: Domain::WorkloadKind
        StateRole,                    // int: Sched::JobState
        WaitingRole,                  // bool: Pending (in the queue; draggable)
        QueuePositionRole,            // int: 0-based place in the queue; -1 when not waiting
        PriorityRole,                 // int
        DemandKindRole,               // int: Domain::ComputeDemand::Kind
        ProfileRole,                  // QString: the MIG profile asked for (MigProfile demands)
        SlicesRole,                   // int: MIG compute slices asked for (MigSlices demands)
        MilliRole,                    // int: share of a card per unit, 1/1000 (Fraction: asked)
        CardsRole,                    // int: gang width (units on distinct cards; 0 = CPU only)
        MemoryMiBRole,                // qint64: card memory per unit; 0 = whatever the unit has
        HostIdRole,                   // int: the host it runs on; -1 when not placed
        HostRole,                     // QString: that host's name; empty when not placed
        CardIdsRole,                  // QList<int>: the cards it is bound to (card ids)
        SubmittedMsRole,              // qint64: UTC epoch ms
        StartedMsRole,                // qint64: UTC epoch ms of the last start; -1 never started
        ProgressRole,                 // double 0..1; an invalid QVariant when it cannot be told
        ServiceRole,                  // QString: the inference service of a replica; else empty
        PreemptionsRole,              // int
        LostWorkMsRole,               // qint64: work lost to preemptions and failures
        SortRole,                     // the column's natural sort key
        OverBudgetRole,               // bool: placed by an operator over its class budget
    };
    Q_ENUM(Role)

    explicit JobTableModel(QObject *parent = nullptr);

    // The MIME type of dragged job ids: the ids as ASCII decimal numbers separated by commas.
    static QString mimeType();
    static QByteArray encodeJobIds(const QList<Domain::JobId> &jobs);
    // The job ids a drag carries (empty when it carries none or is not ours).
    static QList<Domain::JobId> jobIdsFromMimeData(const QMimeData *data);

    // Takes the jobs of `snapshot` (the snapshot is not kept).
    void setSnapshot(const Session::Snapshot &snapshot);
    // Re-announces headers and display texts after the application's language changed.
    void retranslate();

    int waitingCount() const { return m_waiting; }

    // The words for the core's codes, shared with the views that show the same facts.
    static QString kindText(Domain::WorkloadKind kind);
    static QString stateText(Sched::JobState state);
    static QString demandText(const Domain::Demand &demand);
    static QString memoryText(qint64 memoryMiB);

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section,
                        Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QStringList mimeTypes() const override;
    QMimeData *mimeData(const QModelIndexList &indexes) const override;
    Qt::DropActions supportedDragActions() const override;

Q_SIGNALS:
    // The number of jobs or of waiting jobs changed.
    void summaryChanged();

private:
    struct Row
    {
        Domain::JobId id;
        QString name;
        Domain::WorkloadKind kind = Domain::WorkloadKind::Batch;
        Sched::JobState state = Sched::JobState::Pending;
        int queuePosition = -1;
        int priority = 0;
        Domain::Demand demand;
        Domain::HostId host;
        QString hostName;
        QList<int> cards;       // card ids
        QList<int> cardIndexes; // the same cards' indexes on their host (for display)
        qint64 submittedMs = 0;
        qint64 startedMs = -1;
        double progress = -1; // -1: cannot be told
        QString service;
        int preemptions = 0;
        qint64 lostWorkMs = 0;
        bool overBudget = false;
        friend bool operator==(const Row &, const Row &) = default;
    };

    static Row makeRow(const Session::Snapshot &snapshot,
                       const Sched::Job &job,
                       const QHash<int, double> &progress,
                       const QHash<int, int> &queuePositions);
    QVariant displayData(const Row &row, int column) const;
    QVariant sortData(const Row &row, int column) const;
    QString placementText(const Row &row) const;

    QList<Row> m_rows;
    int m_waiting = 0;
    int m_utcOffsetSeconds = 0;
};

} // namespace Zhaoxi::Models
