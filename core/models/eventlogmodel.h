// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/session/snapshot.h"
#include "core/storage/event.h"
#include "core/storage/exporter.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QList>
#include <QObject>
#include <QSortFilterProxyModel>
#include <QString>
#include <QStringList>

#include <deque>
#include <functional>
#include <memory>
#include <optional>

class QThread;

namespace Zhaoxi::Models {

// The names the event log's words use (hosts, cards, jobs, services, windows), as the snapshots
// fed to the EventLogModel knew them. A plain value: the model replaces its copy rather than
// changing it (names()), so an export thread may keep one while the model goes on.
struct EventNames
{
    struct Card
    {
        int host = -1;
        int indexOnHost = 0;
        QString model;
        QStringList migProfiles; // the model's MIG profile names, by profile index
    };
    // What a placement took: the stored "job-placed" event carries only its host and first card.
    struct Placed
    {
        QList<int> cards;  // card ids, in the placement's order
        QStringList units; // MIG instances as "3g.71gb@4"; empty for whole cards and shares
    };
    QStringList hosts;                // index = host id
    QList<Card> cards;                // index = card id
    QStringList jobs;                 // index = job id
    QStringList services;             // index = service index
    QHash<int, QString> windows;      // time window index -> name, learnt as windows open
    QHash<qint64, Placed> placements; // by the "job-placed" event's id, while the log holds it
    int utcOffsetSeconds = 0;         // the appliance's local time

    QString host(int id) const { return id >= 0 && id < hosts.size() ? hosts[id] : QString(); }
    QString job(int id) const { return id >= 0 && id < jobs.size() ? jobs[id] : QString(); }
    QString service(int index) const
    {
        return index >= 0 && index < services.size() ? services[index] : QString();
    }
    const Card *card(int id) const { return id >= 0 && id < cards.size() ? &cards[id] : nullptr; }
};

// Words for an event given the names known (the console's translated eventMessage()).
using NamedMessageFn = std::function<QString(const Storage::Event &, const EventNames &)>;

// The appliance's events as a table, oldest first: the events of each snapshot are appended in
// one beginInsertRows (HOUSE_STYLE 8), in the order the session stored them, with the ids the
// store gave them. Bounded: past capacity() rows the oldest leave (one beginRemoveRows per
// batch); they remain in the store.
//
// Times show in the appliance's local time (the snapshot's utcOffsetSeconds). The message column's
// words come from the message function (the widgets layer sets a translated one; the default is
// Storage::englishMessage); every other text is translated with tr() when asked for. Semantic
// values come through the roles below, for every column; no colours or icons.
// GUI thread (the thread the model lives in) only.
class EventLogModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        TimeColumn,
        SeverityColumn,
        SourceColumn,
        CodeColumn,
        CardColumn,
        JobColumn,
        MessageColumn,
        ColumnCount
    };
    Q_ENUM(Column)

    enum Role {
        EventIdRole = Qt::UserRole + 1, // qint64: the store's id
        AtMsRole,                       // qint64: UTC epoch ms
        SeverityRole,                   // int: Storage::Severity
        SourceRole,                     // int: Storage::Source
        CodeRole,                       // QString: the stable code, e.g. "job-placed"
        CardRole,                       // int: card id, -1 none
        PartitionRole,                  // int: unit uid on the card, -1 none
        JobRole,                        // int: job id, -1 none
        ActorRole,                      // QString: the operator (Source::Operator), else empty
        ParamsRole,                     // QByteArray: the params, a JSON object
        MessageRole,                    // QString: the words (the message function's)
        SortRole,                       // the column's natural sort key
    };
    Q_ENUM(Role)

    static constexpr qsizetype kDefaultCapacity = 100'000;

    explicit EventLogModel(QObject *parent = nullptr);
    ~EventLogModel() override;

    // Appends the snapshot's new events (Snapshot::events) and takes its names and time offset.
    void appendSnapshot(const Session::Snapshot &snapshot);
    // Appends events as they are (for tests and replays); names stay as they are.
    void appendEvents(const QList<Storage::Event> &events);
    void clear();

    qsizetype capacity() const { return m_capacity; }
    // At least 1; drops the oldest rows at once when there are more.
    void setCapacity(qsizetype rows);
    // Rows dropped by the bound since the model was made (or cleared).
    qint64 droppedCount() const { return m_dropped; }

    // The words of the message column. Setting one re-announces the column.
    void setMessageFunction(NamedMessageFn message);
    void setMessageFunction(const Storage::MessageFn &message);
    // The message function bound to a copy of the names known now: safe to call on any thread
    // (the export's).
    Storage::MessageFn boundMessageFunction() const;
    // Re-announces headers and texts after the application's language changed.
    void retranslate();

    // The file the events came from (SimulationSession::storePath()): exports read it.
    QString storePath() const { return m_storePath; }
    void setStorePath(const QString &path) { m_storePath = path; }

    std::shared_ptr<const EventNames> names() const { return m_names; }
    int utcOffsetSeconds() const { return m_names->utcOffsetSeconds; }
    qint64 latestNowMs() const { return m_nowMs; } // the last snapshot's time (0: none yet)

    const Storage::Event &event(int row) const { return m_rows[std::size_t(row)].event; }
    QString message(int row) const;
    // The smallest and largest event ids held, and the time span; nullopt when empty.
    std::optional<std::pair<qint64, qint64>> idRange() const;
    std::optional<std::pair<qint64, qint64>> timeRange() const;

    // Texts shared with the views.
    static QString severityText(Storage::Severity severity);
    static QString sourceText(Storage::Source source);
    QString timeText(qint64 atMs) const; // "2026-01-05 09:12:03" in the appliance's time
    QString cardText(int card) const;    // "dgx-h200 card 3"; empty for -1
    QString jobText(int job) const;      // the job's name, or "#7" when unknown; empty for -1

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section,
                        Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

Q_SIGNALS:
    // The names or the time offset changed (filter bars refresh their card lists).
    void namesChanged();

private:
    struct Row
    {
        Storage::Event event;
        mutable QString message;
        mutable bool hasMessage = false;
    };

    void updateNames(const Session::Snapshot &snapshot);
    void trim(qsizetype incoming);
    void invalidateMessages();
    QVariant displayData(const Row &row, int column) const;
    QVariant sortData(const Row &row, int column) const;

    std::deque<Row> m_rows;
    qsizetype m_capacity = kDefaultCapacity;
    qint64 m_dropped = 0;
    NamedMessageFn m_message;
    std::shared_ptr<const EventNames> m_names; // also holds the time offset
    qint64 m_nowMs = 0;
    QString m_storePath;
};

// What the event log shows, as a value: the filter bar's fields. Lists are ORed within, fields
// ANDed across; an empty list or an unset field selects everything. Any thread.
struct EventCriteria
{
    enum class CodeMatch { Exact, Prefix };

    std::optional<qint64> fromMs; // inclusive, UTC epoch ms
    std::optional<qint64> toMs;   // exclusive
    QList<Storage::Severity> severities;
    QList<Storage::Source> sources;
    int card = -1; // -1: any
    int job = -1;  // -1: any; -2: none (an unknown job was asked for)
    QString code;
    CodeMatch codeMatch = CodeMatch::Exact;
    QString text; // case-insensitive, over the message and the code
    // Routine events (isRoutineCode: the forecast's ramps, most of a day's events) unless a code
    // is asked for; the console's log hides them by default.
    bool showRoutine = true;
    // Bounds on the store's ids: exports set them to the rows the model holds.
    std::optional<qint64> minId;
    std::optional<qint64> maxId;

    bool needsMessage() const { return !text.isEmpty(); }
    // High-rate informational codes the log folds away unless asked: "forecast-ramp".
    static bool isRoutineCode(const QByteArray &code);
    // `message` is read only when needsMessage().
    bool accepts(const Storage::Event &event, const QString &message) const;
    // The part the store can select itself (time, severities, sources, card, job, exact code);
    // accepts() decides the rest.
    Storage::EventFilter toStoreFilter() const;
    friend bool operator==(const EventCriteria &, const EventCriteria &) = default;
};

// One export of the event log: the store to read, the file to write, and what to select.
struct EventExportRequest
{
    QString storePath;
    QString path;
    EventCriteria criteria;
    Storage::ExportOptions options; // format, BOM, time zone, words; `accept` is set by the run
    // The newest event shown: the export first waits (at most `waitMs`) until the store has
    // committed it, since the session stores asynchronously.
    qint64 newestId = -1;
    qint64 newestAtMs = 0;
    int waitMs = 10'000;
};

struct EventExportResult
{
    bool ok = false;
    qint64 rows = 0;
    QString path;
    QString error; // English; names the file
};

// The filter bar's side of the event log: a proxy over an EventLogModel that shows the rows its
// criteria accept, in the source's order. toStoreFilter() and accepts() are the same criteria
// for the store, so an export writes exactly the rows shown (exportRequest()).
// GUI thread only.
class EventFilterModel : public QSortFilterProxyModel
{
    Q_OBJECT

public:
    explicit EventFilterModel(QObject *parent = nullptr);

    // Must be an EventLogModel.
    void setSourceModel(QAbstractItemModel *source) override;
    EventLogModel *eventLog() const { return m_log; }

    const EventCriteria &criteria() const { return m_criteria; }
    void setCriteria(const EventCriteria &criteria);
    void setTimeRange(std::optional<qint64> fromMs, std::optional<qint64> toMs);
    void setSeverities(const QList<Storage::Severity> &severities);
    void setSources(const QList<Storage::Source> &sources);
    void setCard(int card);
    void setJob(int job);
    void setCode(const QString &code,
                 EventCriteria::CodeMatch match = EventCriteria::CodeMatch::Exact);
    void setText(const QString &text);

    Storage::EventFilter toStoreFilter() const { return m_criteria.toStoreFilter(); }
    bool accepts(const Storage::Event &event, const QString &message) const
    {
        return m_criteria.accepts(event, message);
    }

    // An export of the rows shown now to `path`: these criteria, bounded to the ids the log holds,
    // the log's words (bound to its names) and the appliance's time offset.
    EventExportRequest exportRequest(const QString &path,
                                     Storage::ExportFormat format,
                                     bool bom = false) const;

Q_SIGNALS:
    void criteriaChanged();

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    void apply(const EventCriteria &criteria);

    EventLogModel *m_log = nullptr;
    EventCriteria m_criteria;
};

// Runs an export on a thread of its own (the store is read through a Reader opened there) and
// reports on the thread the job lives in. One export at a time; destroying the job waits for
// the one running.
class EventExportJob : public QObject
{
    Q_OBJECT

public:
    explicit EventExportJob(QObject *parent = nullptr);
    ~EventExportJob() override;

    // False (and nothing starts) while an export runs or when the request names no store.
    bool start(const EventExportRequest &request);
    bool isRunning() const { return m_thread != nullptr; }

    // The export itself, synchronously on the calling thread.
    static EventExportResult run(const EventExportRequest &request);

Q_SIGNALS:
    void finished(const Zhaoxi::Models::EventExportResult &result);

private:
    QThread *m_thread = nullptr;
    std::shared_ptr<EventExportResult> m_result;
};

} // namespace Zhaoxi::Models

Q_DECLARE_METATYPE(Zhaoxi::Models::EventExportResult)
