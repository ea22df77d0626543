// SPDX-License-Identifier: GPL-3.0-or-later
// Read connections: opening a store file for reading (migrating it when asked), checks, and the
// event, metric, state and trace queries.
#include "store.h"

#include "schema.h"
#include "store_p.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cstring>

namespace Zhaoxi::Storage {

using Detail::describeFile;
using Detail::onReadOnlyFilesystem;

QMap<QString, QString> Detail::labelsFromJson(const QByteArray &json)
{
    QMap<QString, QString> r;
    if (json.isEmpty())
        return r;
    const QJsonObject o = QJsonDocument::fromJson(json).object();
    for (auto it = o.begin(); it != o.end(); ++it)
        r.insert(it.key(), it.value().toString());
    return r;
}

Reader::Reader()
    : d(std::make_unique<Private>())
{}

Reader::~Reader() = default;

std::unique_ptr<Reader> Store::reader(QString *error) const
{
    return Reader::open(d->path, Reader::OpenMode::RequireCurrent, error);
}

QString Reader::path() const
{
    return d->path;
}

std::unique_ptr<Reader> Reader::open(const QString &path, OpenMode mode, QString *error)
{
    if (!QFileInfo::exists(path)) {
        if (error)
            *error = QStringLiteral("%1: no such file").arg(describeFile(path));
        return nullptr;
    }
    if (const QString why = refusedOutputReason(path); !why.isEmpty()) {
        if (error)
            *error = why;
        return nullptr;
    }
    std::unique_ptr<Reader> r(new Reader);
    r->d->path = path;
    QString err;
    // Read-write without create, then query_only: a read-only SQLite connection cannot always
    // use a WAL file another process owns.
    if (!r->d->db.open(path, Sql::Connection::Mode::ReadWrite, &err)
        && !r->d->db.open(path, Sql::Connection::Mode::ReadOnly, &err)) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(describeFile(path), err);
        return nullptr;
    }
    int v = Schema::version(r->d->db, &err);
    if (v < 0 && onReadOnlyFilesystem(path)) {
        // A WAL store needs its -shm file, which cannot be made on a read-only filesystem; as
        // nothing can write the file there either, it is read as immutable.
        r->d->db.close();
        QString again;
        if (r->d->db.open(path, Sql::Connection::Mode::Immutable, &again))
            v = Schema::version(r->d->db, &again);
        if (v < 0)
            err += QStringLiteral("; read as immutable on its read-only filesystem: ") + again;
    }
    if (v < 0) {
        if (error)
            *error = QStringLiteral("%1: not a readable Zhaoxi store (%2)")
                             .arg(describeFile(path), err);
        return nullptr;
    }
    if (v == 0) {
        if (error)
            *error = QStringLiteral("%1: an empty database, not a Zhaoxi store")
                             .arg(describeFile(path));
        return nullptr;
    }
    if (v != Schema::kCurrentVersion) {
        if (mode == OpenMode::RequireCurrent || v > Schema::kCurrentVersion) {
            if (error)
                *error = QStringLiteral("%1: schema version %2, this build reads version %3")
                                 .arg(describeFile(path))
                                 .arg(v)
                                 .arg(Schema::kCurrentVersion);
            return nullptr;
        }
        if (!Schema::migrate(r->d->db, &err)) {
            if (error)
                *error = QStringLiteral("%1: %2").arg(describeFile(path), err);
            return nullptr;
        }
    }
    r->d->db.exec("PRAGMA query_only=1; PRAGMA cache_size=-32768;");
    return r;
}

int Reader::schemaVersion()
{
    return Schema::version(d->db, nullptr);
}

namespace {

// A check pragma's findings, one per line: "ok" when there are none.
QString checkFindings(Sql::Connection &db, const QByteArray &pragma)
{
    Sql::Statement st(db, pragma.constData());
    if (!st.isValid())
        return db.errorMessage();
    QStringList lines;
    bool ok = true;
    while (st.step(&ok))
        lines << st.text(0);
    if (!ok)
        lines << db.errorMessage();
    return lines.join(QLatin1Char('\n'));
}

} // namespace

QString Reader::quickCheck(int maxLines)
{
    return checkFindings(d->db,
                         "PRAGMA quick_check(" + QByteArray::number(std::max(1, maxLines)) + ")");
}

QString Reader::integrityCheck()
{
    return checkFindings(d->db, "PRAGMA integrity_check");
}

namespace {

QByteArray whereClause(const EventFilter &f)
{
    QByteArray sql = " WHERE 1";
    auto list = [&](const char *column, qsizetype n) {
        sql += " AND ";
        sql += column;
        sql += " IN (";
        for (qsizetype i = 0; i < n; ++i)
            sql += i ? ",?" : "?";
        sql += ')';
    };
    if (f.fromMs)
        sql += " AND at_ms >= ?";
    if (f.toMs)
        sql += " AND at_ms < ?";
    if (!f.severities.isEmpty())
        list("severity", f.severities.size());
    if (!f.sources.isEmpty())
        list("source", f.sources.size());
    if (!f.cards.isEmpty())
        list("card", f.cards.size());
    if (!f.jobs.isEmpty()) {
        sql += " AND job IS NOT NULL";
        list("job", f.jobs.size());
    }
    if (!f.codes.isEmpty())
        list("code", f.codes.size());
    if (f.afterId)
        sql += " AND id > ?";
    return sql;
}

void bindFilter(Sql::Statement &st, const EventFilter &f)
{
    int i = 1;
    if (f.fromMs)
        st.bind(i++, *f.fromMs);
    if (f.toMs)
        st.bind(i++, *f.toMs);
    for (Severity s : f.severities)
        st.bind(i++, qint64(s));
    for (Source s : f.sources)
        st.bind(i++, qint64(s));
    for (int c : f.cards)
        st.bind(i++, qint64(c));
    for (int j : f.jobs)
        st.bind(i++, qint64(j));
    for (const QByteArray &c : f.codes)
        st.bindText(i++, c);
    if (f.afterId)
        st.bind(i++, *f.afterId);
}

void assignIfDifferent(QByteArray &target, const char *p, int n)
{
    // Most rows repeat a handful of codes: keep the buffer when it already holds the text.
    if (target.size() == n && (n == 0 || memcmp(target.constData(), p, size_t(n)) == 0))
        return;
    target = QByteArray(p, n);
}

} // namespace

bool Reader::forEachEvent(const EventFilter &filter,
                          const std::function<bool(const Event &)> &row,
                          QString *error)
{
    QByteArray sql
            = "SELECT id, at_ms, severity, source, code, card, partition_uid, job, actor, params "
              "FROM events";
    sql += whereClause(filter);
    sql += filter.newestFirst ? " ORDER BY id DESC"
           : filter.afterId   ? " ORDER BY id"
                              : " ORDER BY at_ms, id";
    if (filter.limit >= 0)
        sql += " LIMIT " + QByteArray::number(filter.limit);
    Sql::Statement st(d->db, sql.constData());
    if (!st.isValid()) {
        if (error)
            *error = d->db.errorMessage();
        return false;
    }
    bindFilter(st, filter);
    Event e;
    bool ok = true;
    while (st.step(&ok)) {
        e.id = st.int64(0);
        e.atMs = st.int64(1);
        e.severity = Severity(st.int64(2));
        e.source = Source(st.int64(3));
        int n = 0;
        const char *p = st.rawText(4, &n);
        assignIfDifferent(e.code, p, n);
        e.card = st.isNull(5) ? -1 : int(st.int64(5));
        e.partition = st.isNull(6) ? -1 : int(st.int64(6));
        e.job = st.isNull(7) ? -1 : int(st.int64(7));
        p = st.rawText(8, &n);
        e.actor = p ? QString::fromUtf8(p, n) : QString();
        p = st.rawText(9, &n);
        if (p) {
            // Into the previous row's buffer when `row` kept no copy of it: no allocation per row.
            e.params.resize(n);
            std::memcpy(e.params.data(), p, size_t(n));
        } else {
            e.params.clear();
        }
        if (!row(e))
            return true;
    }
    if (!ok) {
        if (error)
            *error = d->db.errorMessage();
        return false;
    }
    return true;
}

QList<Event> Reader::events(const EventFilter &filter, QString *error)
{
    QList<Event> r;
    forEachEvent(
            filter,
            [&](const Event &e) {
                r.append(e);
                return true;
            },
            error);
    return r;
}

qint64 Reader::countEvents(const EventFilter &filter, QString *error)
{
    const QByteArray sql = "SELECT count(*) FROM events" + whereClause(filter);
    Sql::Statement st(d->db, sql.constData());
    if (!st.isValid()) {
        if (error)
            *error = d->db.errorMessage();
        return -1;
    }
    bindFilter(st, filter);
    bool ok = true;
    if (st.step(&ok))
        return st.int64(0);
    if (error)
        *error = d->db.errorMessage();
    return -1;
}

QList<MetricPoint> Reader::series(
        const SeriesKey &key, Tier tier, qint64 fromMs, qint64 toMs, QString *error)
{
    QList<MetricPoint> r;
    Sql::Statement st(
            d->db,
            "SELECT m.at_ms, m.value, m.min, m.max, m.count FROM metric_series s "
            "JOIN metric_samples m ON m.series = s.id "
            "WHERE s.metric = ? AND s.card = ? AND s.partition_uid = ? AND s.service = ? "
            "AND s.job = ? AND m.tier = ? AND m.at_ms >= ? AND m.at_ms < ? ORDER BY m.at_ms");
    if (!st.isValid()) {
        if (error)
            *error = d->db.errorMessage();
        return r;
    }
    st.bind(1, qint64(key.metric));
    st.bind(2, qint64(key.card));
    st.bind(3, qint64(key.partition));
    const QByteArray service = key.service.toUtf8();
    st.bindText(4, service.isNull() ? QByteArray("") : service);
    st.bind(5, qint64(key.job));
    st.bind(6, qint64(tier));
    st.bind(7, fromMs);
    st.bind(8, toMs);
    bool ok = true;
    while (st.step(&ok))
        r.append(MetricPoint{st.int64(0), st.real(1), st.real(2), st.real(3), st.int64(4)});
    if (!ok && error)
        *error = d->db.errorMessage();
    return r;
}

QList<LatestMetric> Reader::latestMetrics(QString *error)
{
    QList<LatestMetric> r;
    Sql::Statement series(d->db,
                          "SELECT id, metric, card, partition_uid, service, job, labels "
                          "FROM metric_series ORDER BY metric, card, partition_uid, service, job");
    Sql::Statement newest(d->db,
                          "SELECT tier, at_ms, value, min, max, count FROM metric_samples "
                          "WHERE series = ? ORDER BY tier, at_ms DESC LIMIT 1");
    if (!series.isValid() || !newest.isValid()) {
        if (error)
            *error = d->db.errorMessage();
        return r;
    }
    bool ok = true;
    while (series.step(&ok)) {
        newest.reset();
        newest.bind(1, series.int64(0));
        if (!newest.step())
            continue;
        LatestMetric m;
        m.key.metric = Metric(series.int64(1));
        m.key.card = int(series.int64(2));
        m.key.partition = int(series.int64(3));
        m.key.service = series.text(4);
        m.key.job = int(series.int64(5));
        m.labels = Detail::labelsFromJson(series.bytes(6));
        m.tier = Tier(newest.int64(0));
        m.point = MetricPoint{
                newest.int64(1), newest.real(2), newest.real(3), newest.real(4), newest.int64(5)};
        r.append(m);
    }
    if (!ok && error)
        *error = d->db.errorMessage();
    return r;
}

std::optional<QByteArray> Reader::state(const QString &key, QString *error)
{
    Sql::Statement st(d->db, "SELECT value FROM state WHERE key = ?");
    st.bindText(1, key);
    bool ok = true;
    if (st.step(&ok))
        return st.bytes(0);
    if (!ok && error)
        *error = d->db.errorMessage();
    return std::nullopt;
}

QList<Reader::Trace> Reader::traces(int job, int limit, QString *error)
{
    QList<Trace> r;
    Sql::Statement st(d->db,
                      job >= 0 ? "SELECT at_ms, job, trace FROM decision_traces WHERE job = ? "
                                 "ORDER BY at_ms DESC, id DESC LIMIT ?"
                               : "SELECT at_ms, job, trace FROM decision_traces "
                                 "ORDER BY id DESC LIMIT ?");
    int i = 1;
    if (job >= 0)
        st.bind(i++, qint64(job));
    st.bind(i, qint64(limit));
    bool ok = true;
    while (st.step(&ok))
        r.append(Trace{st.int64(0), st.isNull(1) ? -1 : int(st.int64(1)), st.bytes(2)});
    if (!ok && error)
        *error = d->db.errorMessage();
    return r;
}

} // namespace Zhaoxi::Storage
