// SPDX-License-Identifier: GPL-3.0-or-later
#include "eventlogmodel.h"

#include "core/catalogue/layoutrules.h"
#include "core/storage/exporter.h"
#include "core/storage/store.h"

#include <QThread>
#include <QTimeZone>

#include <algorithm>
#include <limits>

namespace Zhaoxi::Models {

using Storage::Event;
using Storage::Severity;
using Storage::Source;

// --- EventLogModel --------------------------------------------------------------------------

EventLogModel::EventLogModel(QObject *parent)
    : QAbstractTableModel(parent)
    , m_names(std::make_shared<EventNames>())
{
    qRegisterMetaType<EventExportResult>();
}

EventLogModel::~EventLogModel() = default;

void EventLogModel::updateNames(const Session::Snapshot &snapshot)
{
    const Sched::ClusterState &st = snapshot.state;
    const EventNames &old = *m_names;
    std::shared_ptr<EventNames> next;
    auto edit = [&]() -> EventNames & {
        if (!next)
            next = std::make_shared<EventNames>(old);
        return *next;
    };
    if (old.hosts.size() != st.hosts().size() || old.cards.size() != st.cards().size()) {
        EventNames &n = edit();
        n.hosts.clear();
        for (const Sched::HostState &h : st.hosts())
            n.hosts.append(h.name);
        n.cards.clear();
        for (const Sched::CardState &c : st.cards()) {
            const Domain::CardModel &m = st.model(c);
            QStringList profiles;
            for (const Domain::MigProfile &p : m.migProfiles)
                profiles.append(p.name);
            n.cards.append({c.host.value(), c.indexOnHost, m.name, profiles});
        }
    }
    if (old.jobs.size() != st.jobs().size()) {
        // Jobs are only ever appended and never renamed; fewer is another appliance.
        EventNames &n = edit();
        if (n.jobs.size() > st.jobs().size())
            n.jobs.clear();
        for (qsizetype i = n.jobs.size(); i < st.jobs().size(); ++i)
            n.jobs.append(st.jobs()[i].spec.name);
    }
    if (old.services.size() != snapshot.services.size()) {
        EventNames &n = edit();
        n.services.clear();
        for (const Session::ServiceSample &s : snapshot.services)
            n.services.append(s.name);
    }
    // The stored events carry a window's index only; the snapshot names the window in force,
    // which is the one that opened last.
    for (auto it = snapshot.events.crbegin(); it != snapshot.events.crend(); ++it) {
        if (it->code != "window-opened")
            continue;
        const int index = Storage::eventParam(*it, QLatin1StringView("windowIndex")).toInt();
        if (!snapshot.window.isEmpty() && old.windows.value(index) != snapshot.window)
            edit().windows.insert(index, snapshot.window);
        break;
    }
    // What a placement took, while the state still shows it: the event has the host and card.
    for (const Event &e : snapshot.events) {
        if (e.code != "job-placed" || e.job < 0 || e.job >= st.jobs().size())
            continue;
        const Sched::Job &j = st.jobs()[e.job];
        if (!j.isActive() || j.startedMs != e.atMs)
            continue;
        EventNames::Placed placed;
        for (const Sched::Assignment &a : j.assignments) {
            placed.cards.append(a.card.value());
            const Sched::CardState &c = st.card(a.card);
            const Sched::Unit *u = c.unit(a.unitUid);
            const Domain::CardModel &m = st.model(c);
            if (u && u->profile >= 0 && u->profile < m.migProfiles.size())
                placed.units.append(Catalogue::formatPlacement(m, {u->profile, u->start}));
        }
        if (!placed.cards.isEmpty())
            edit().placements.insert(e.id, placed);
    }
    if (old.utcOffsetSeconds != snapshot.utcOffsetSeconds)
        edit().utcOffsetSeconds = snapshot.utcOffsetSeconds;
    if (next) {
        m_names = std::move(next);
        // Names learnt now can improve words not yet shown; cached ones stay as they were.
        Q_EMIT namesChanged();
    }
}

void EventLogModel::appendSnapshot(const Session::Snapshot &snapshot)
{
    // A clock that went back (the day restarted, another session): the log starts again.
    if (snapshot.nowMs < m_nowMs)
        clear();
    m_nowMs = snapshot.nowMs;
    const bool offsetChanged = snapshot.utcOffsetSeconds != m_names->utcOffsetSeconds;
    // Takes the new offset with the names (one namesChanged for both).
    updateNames(snapshot);
    if (offsetChanged && !m_rows.empty())
        Q_EMIT dataChanged(index(0, TimeColumn), index(rowCount() - 1, TimeColumn));
    appendEvents(snapshot.events);
}

void EventLogModel::trim(qsizetype incoming)
{
    const qsizetype excess = qsizetype(m_rows.size()) + incoming - m_capacity;
    const qsizetype drop = std::min<qsizetype>(excess, qsizetype(m_rows.size()));
    if (drop <= 0)
        return;
    beginRemoveRows({}, 0, int(drop) - 1);
    m_rows.erase(m_rows.begin(), m_rows.begin() + drop);
    m_dropped += drop;
    endRemoveRows();
    // The placements of dropped events are no longer needed. Look before copying: once the log
    // is full every append drops rows, most of them without a placement.
    const QHash<qint64, EventNames::Placed> &placements = m_names->placements;
    const qint64 oldest
            = m_rows.empty() ? std::numeric_limits<qint64>::max() : m_rows.front().event.id;
    const auto gone = [oldest](qint64 id) { return id < oldest; };
    if (std::any_of(placements.keyBegin(), placements.keyEnd(), gone)) {
        auto next = std::make_shared<EventNames>(*m_names);
        next->placements.removeIf([&gone](const auto &it) { return gone(it.key()); });
        m_names = std::move(next);
    }
}

void EventLogModel::appendEvents(const QList<Event> &events)
{
    if (events.isEmpty())
        return;
    // A batch larger than the bound keeps its newest rows only.
    const qsizetype skip = std::max<qsizetype>(0, events.size() - m_capacity);
    const qsizetype incoming = events.size() - skip;
    m_dropped += skip;
    trim(incoming);
    const int first = rowCount();
    beginInsertRows({}, first, first + int(incoming) - 1);
    for (qsizetype i = skip; i < events.size(); ++i)
        m_rows.push_back(Row{events[i], {}, false});
    endInsertRows();
}

void EventLogModel::clear()
{
    beginResetModel();
    m_rows.clear();
    m_dropped = 0;
    endResetModel();
}

void EventLogModel::setCapacity(qsizetype rows)
{
    m_capacity = std::max<qsizetype>(1, rows);
    trim(0);
}

void EventLogModel::setMessageFunction(NamedMessageFn message)
{
    m_message = std::move(message);
    invalidateMessages();
}

void EventLogModel::setMessageFunction(const Storage::MessageFn &message)
{
    if (!message) {
        setMessageFunction(NamedMessageFn());
        return;
    }
    setMessageFunction([message](const Event &e, const EventNames &) { return message(e); });
}

Storage::MessageFn EventLogModel::boundMessageFunction() const
{
    if (!m_message)
        return Storage::englishMessage;
    return [message = m_message, names = m_names](const Event &e) { return message(e, *names); };
}

void EventLogModel::invalidateMessages()
{
    for (const Row &r : m_rows)
        r.hasMessage = false;
    if (!m_rows.empty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

void EventLogModel::retranslate()
{
    Q_EMIT headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
    invalidateMessages();
}

QString EventLogModel::message(int row) const
{
    const Row &r = m_rows[std::size_t(row)];
    if (!r.hasMessage) {
        r.message = m_message ? m_message(r.event, *m_names) : Storage::englishMessage(r.event);
        r.hasMessage = true;
    }
    return r.message;
}

std::optional<std::pair<qint64, qint64>> EventLogModel::idRange() const
{
    if (m_rows.empty())
        return std::nullopt;
    // Rows come in time order; ids increase in store order, which is nearly the same: scan.
    qint64 lo = m_rows.front().event.id, hi = lo;
    for (const Row &r : m_rows) {
        lo = std::min(lo, r.event.id);
        hi = std::max(hi, r.event.id);
    }
    return std::pair{lo, hi};
}

std::optional<std::pair<qint64, qint64>> EventLogModel::timeRange() const
{
    if (m_rows.empty())
        return std::nullopt;
    qint64 lo = m_rows.front().event.atMs, hi = lo;
    for (const Row &r : m_rows) {
        lo = std::min(lo, r.event.atMs);
        hi = std::max(hi, r.event.atMs);
    }
    return std::pair{lo, hi};
}

QString EventLogModel::severityText(Severity severity)
{
    switch (severity) {
    case Severity::Info:
        return tr("Info");
    case Severity::Warning:
        return tr("Warning");
    case Severity::Error:
        return tr("Error");
    case Severity::Critical:
        return tr("Critical");
    }
    return QString::fromLatin1(Storage::toString(severity));
}

QString EventLogModel::sourceText(Source source)
{
    switch (source) {
    case Source::Scheduler:
        return tr("Scheduler");
    case Source::Policy:
        return tr("Policy");
    case Source::Device:
        return tr("Device");
    case Source::Operator:
        return tr("Operator");
    case Source::System:
        return tr("System");
    }
    return QString::fromLatin1(Storage::toString(source));
}

QString EventLogModel::timeText(qint64 atMs) const
{
    // "2026-01-05T09:12:03.123+08:00" -> "2026-01-05 09:12:03"; no QDateTime per row.
    QByteArray iso = Storage::isoTime(atMs, m_names->utcOffsetSeconds);
    const qsizetype t = iso.indexOf('T');
    if (t < 0)
        return QString::fromLatin1(iso);
    iso[t] = ' ';
    return QString::fromLatin1(iso.left(t + 9));
}

QString EventLogModel::cardText(int card) const
{
    if (card < 0)
        return {};
    if (const EventNames::Card *c = m_names->card(card))
        return tr("%1 card %2").arg(m_names->host(c->host)).arg(c->indexOnHost);
    return tr("card %1").arg(card);
}

QString EventLogModel::jobText(int job) const
{
    if (job < 0)
        return {};
    const QString name = m_names->job(job);
    return name.isEmpty() ? QStringLiteral("#%1").arg(job) : name;
}

int EventLogModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int EventLogModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant EventLogModel::displayData(const Row &row, int column) const
{
    const Event &e = row.event;
    switch (column) {
    case TimeColumn:
        return timeText(e.atMs);
    case SeverityColumn:
        return severityText(e.severity);
    case SourceColumn:
        return sourceText(e.source);
    case CodeColumn:
        return QString::fromLatin1(e.code);
    case CardColumn:
        return cardText(e.card);
    case JobColumn:
        return jobText(e.job);
    }
    return {};
}

QVariant EventLogModel::sortData(const Row &row, int column) const
{
    const Event &e = row.event;
    switch (column) {
    case TimeColumn:
        return e.atMs;
    case SeverityColumn:
        return int(e.severity);
    case SourceColumn:
        return int(e.source);
    case CodeColumn:
        return QString::fromLatin1(e.code);
    case CardColumn:
        return e.card;
    case JobColumn:
        return e.job;
    }
    return {};
}

QVariant EventLogModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int r = index.row();
    const Row &row = m_rows[std::size_t(r)];
    const Event &e = row.event;
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == MessageColumn)
            return message(r);
        return displayData(row, index.column());
    case Qt::ToolTipRole:
        if (index.column() == TimeColumn)
            return QString::fromLatin1(Storage::isoTime(e.atMs, m_names->utcOffsetSeconds));
        if (index.column() == MessageColumn)
            return message(r);
        return {};
    case EventIdRole:
        return e.id;
    case AtMsRole:
        return e.atMs;
    case SeverityRole:
        return int(e.severity);
    case SourceRole:
        return int(e.source);
    case CodeRole:
        return QString::fromLatin1(e.code);
    case CardRole:
        return e.card;
    case PartitionRole:
        return e.partition;
    case JobRole:
        return e.job;
    case ActorRole:
        return e.actor;
    case ParamsRole:
        return e.params.isEmpty() ? QByteArray("{}") : e.params;
    case MessageRole:
        return message(r);
    case SortRole:
        if (index.column() == MessageColumn)
            return message(r);
        return sortData(row, index.column());
    }
    return {};
}

QVariant EventLogModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0
        || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case TimeColumn:
        return tr("Time");
    case SeverityColumn:
        return tr("Severity");
    case SourceColumn:
        return tr("Source");
    case CodeColumn:
        return tr("Code");
    case CardColumn:
        return tr("Card");
    case JobColumn:
        return tr("Job");
    case MessageColumn:
        return tr("Message");
    }
    return {};
}

QHash<int, QByteArray> EventLogModel::roleNames() const
{
    QHash<int, QByteArray> r = QAbstractTableModel::roleNames();
    r.insert(EventIdRole, "eventId");
    r.insert(AtMsRole, "atMs");
    r.insert(SeverityRole, "severity");
    r.insert(SourceRole, "source");
    r.insert(CodeRole, "code");
    r.insert(CardRole, "card");
    r.insert(PartitionRole, "partition");
    r.insert(JobRole, "job");
    r.insert(ActorRole, "actor");
    r.insert(ParamsRole, "params");
    r.insert(MessageRole, "message");
    r.insert(SortRole, "sort");
    return r;
}

// --- EventCriteria --------------------------------------------------------------------------

bool EventCriteria::isRoutineCode(const QByteArray &code)
{
    return code == "forecast-ramp";
}

bool EventCriteria::accepts(const Event &e, const QString &message) const
{
    if (!showRoutine && code.isEmpty() && isRoutineCode(e.code))
        return false;
    if (minId && e.id < *minId)
        return false;
    if (maxId && e.id > *maxId)
        return false;
    if (fromMs && e.atMs < *fromMs)
        return false;
    if (toMs && e.atMs >= *toMs)
        return false;
    if (!severities.isEmpty() && !severities.contains(e.severity))
        return false;
    if (!sources.isEmpty() && !sources.contains(e.source))
        return false;
    if (card != -1 && e.card != card)
        return false;
    if (job != -1 && e.job != job)
        return false;
    if (!code.isEmpty()) {
        const QLatin1StringView c(e.code.constData(), e.code.size());
        if (codeMatch == CodeMatch::Exact ? c != code : !c.startsWith(code))
            return false;
    }
    if (!text.isEmpty()) {
        const QLatin1StringView c(e.code.constData(), e.code.size());
        if (!message.contains(text, Qt::CaseInsensitive) && !c.contains(text, Qt::CaseInsensitive))
            return false;
    }
    return true;
}

Storage::EventFilter EventCriteria::toStoreFilter() const
{
    Storage::EventFilter f;
    f.fromMs = fromMs;
    f.toMs = toMs;
    f.severities = severities;
    f.sources = sources;
    if (card != -1)
        f.cards = {card};
    if (job != -1)
        f.jobs = {job};
    if (!code.isEmpty() && codeMatch == CodeMatch::Exact)
        f.codes = {code.toLatin1()};
    return f;
}

// --- EventFilterModel -----------------------------------------------------------------------

EventFilterModel::EventFilterModel(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(EventLogModel::SortRole);
}

void EventFilterModel::setSourceModel(QAbstractItemModel *source)
{
    m_log = qobject_cast<EventLogModel *>(source);
    Q_ASSERT_X(!source || m_log, "EventFilterModel", "the source must be an EventLogModel");
    QSortFilterProxyModel::setSourceModel(m_log);
}

void EventFilterModel::apply(const EventCriteria &criteria)
{
    if (criteria == m_criteria)
        return;
    m_criteria = criteria;
    invalidateFilter();
    Q_EMIT criteriaChanged();
}

void EventFilterModel::setCriteria(const EventCriteria &criteria)
{
    EventCriteria c = criteria;
    // The export bounds belong to exportRequest(), not to what the table shows.
    c.minId.reset();
    c.maxId.reset();
    apply(c);
}

void EventFilterModel::setTimeRange(std::optional<qint64> fromMs, std::optional<qint64> toMs)
{
    EventCriteria c = m_criteria;
    c.fromMs = fromMs;
    c.toMs = toMs;
    apply(c);
}

void EventFilterModel::setSeverities(const QList<Storage::Severity> &severities)
{
    EventCriteria c = m_criteria;
    c.severities = severities;
    apply(c);
}

void EventFilterModel::setSources(const QList<Storage::Source> &sources)
{
    EventCriteria c = m_criteria;
    c.sources = sources;
    apply(c);
}

void EventFilterModel::setCard(int card)
{
    EventCriteria c = m_criteria;
    c.card = card;
    apply(c);
}

void EventFilterModel::setJob(int job)
{
    EventCriteria c = m_criteria;
    c.job = job;
    apply(c);
}

void EventFilterModel::setCode(const QString &code, EventCriteria::CodeMatch match)
{
    EventCriteria c = m_criteria;
    c.code = code;
    c.codeMatch = match;
    apply(c);
}

void EventFilterModel::setText(const QString &text)
{
    EventCriteria c = m_criteria;
    c.text = text;
    apply(c);
}

bool EventFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (!m_log || sourceParent.isValid())
        return false;
    const Event &e = m_log->event(sourceRow);
    return m_criteria.accepts(e, m_criteria.needsMessage() ? m_log->message(sourceRow) : QString());
}

EventExportRequest EventFilterModel::exportRequest(const QString &path,
                                                   Storage::ExportFormat format,
                                                   bool bom) const
{
    EventExportRequest r;
    r.path = path;
    r.criteria = m_criteria;
    r.options.format = format;
    r.options.bom = bom;
    if (!m_log) {
        r.criteria.minId = 1;
        r.criteria.maxId = 0;
        return r;
    }
    r.storePath = m_log->storePath();
    r.options.timeZone = QTimeZone(m_log->utcOffsetSeconds());
    r.options.message = m_log->boundMessageFunction();
    // Exactly the rows the log holds: the store may hold older ones (dropped by the bound, or
    // from before the console started) and newer ones (committed, not yet in a snapshot).
    if (const auto ids = m_log->idRange()) {
        r.criteria.minId = ids->first;
        r.criteria.maxId = ids->second;
        const auto times = m_log->timeRange();
        // The same bound in time lets the store's index do the work.
        if (!r.criteria.fromMs || *r.criteria.fromMs < times->first)
            r.criteria.fromMs = times->first;
        if (!r.criteria.toMs || *r.criteria.toMs > times->second + 1)
            r.criteria.toMs = times->second + 1;
        for (int row = m_log->rowCount() - 1; row >= 0; --row) {
            if (m_log->event(row).id == ids->second) {
                r.newestId = ids->second;
                r.newestAtMs = m_log->event(row).atMs;
                break;
            }
        }
    } else {
        r.criteria.minId = 1;
        r.criteria.maxId = 0;
    }
    return r;
}

// --- EventExportJob -------------------------------------------------------------------------

EventExportJob::EventExportJob(QObject *parent)
    : QObject(parent)
{
    qRegisterMetaType<EventExportResult>();
}

EventExportJob::~EventExportJob()
{
    if (m_thread) {
        m_thread->wait();
        delete m_thread;
    }
}

EventExportResult EventExportJob::run(const EventExportRequest &request)
{
    EventExportResult result;
    result.path = request.path;
    if (request.storePath.isEmpty()) {
        result.error = QStringLiteral("no event store to export from");
        return result;
    }
    QString err;
    std::unique_ptr<Storage::Reader> reader = Storage::Reader::open(
            request.storePath, Storage::Reader::OpenMode::RequireCurrent, &err);
    if (!reader) {
        result.error = err;
        return result;
    }
    // The session commits asynchronously: wait (bounded) until the newest row shown is there.
    if (request.newestId >= 0) {
        Storage::EventFilter probe;
        probe.fromMs = request.newestAtMs;
        probe.toMs = request.newestAtMs + 1;
        for (int waited = 0;; waited += 20) {
            bool found = false;
            reader->forEachEvent(probe, [&](const Event &e) {
                found = e.id == request.newestId;
                return !found;
            });
            if (found || waited >= request.waitMs)
                break;
            QThread::msleep(20);
        }
    }
    const EventCriteria criteria = request.criteria;
    Storage::ExportOptions options = request.options;
    const Storage::MessageFn message
            = options.message ? options.message : Storage::MessageFn(Storage::englishMessage);
    options.accept = [criteria, message](const Event &e) {
        return criteria.accepts(e, criteria.needsMessage() ? message(e) : QString());
    };
    const Storage::ExportResult r
            = Storage::exportEventsToFile(*reader, criteria.toStoreFilter(), options, request.path);
    result.ok = r.ok;
    result.rows = r.rows;
    result.error = r.error;
    return result;
}

bool EventExportJob::start(const EventExportRequest &request)
{
    if (m_thread || request.storePath.isEmpty())
        return false;
    auto result = std::make_shared<EventExportResult>();
    m_result = result;
    m_thread = QThread::create([request, result] { *result = run(request); });
    connect(m_thread, &QThread::finished, this, [this] {
        QThread *t = m_thread;
        m_thread = nullptr;
        t->deleteLater();
        const EventExportResult r = *m_result;
        m_result.reset();
        Q_EMIT finished(r);
    });
    m_thread->start();
    return true;
}

} // namespace Zhaoxi::Models
