// SPDX-License-Identifier: GPL-3.0-or-later
#include "schema.h"

#include "metrics.h"
#include "sqlite.h"

#include <QHash>

namespace Zhaoxi::Storage::Schema {

namespace {

const char kCreateV3[] = R"sql(
CREATE TABLE schema_version(version INTEGER NOT NULL);
INSERT INTO schema_version VALUES(3);
CREATE TABLE events(
    id INTEGER PRIMARY KEY,
    at_ms INTEGER NOT NULL,
    severity INTEGER NOT NULL,
    source INTEGER NOT NULL,
    code TEXT NOT NULL,
    card INTEGER,
    partition_uid INTEGER,
    job INTEGER,
    actor TEXT,
    params TEXT);
CREATE INDEX events_at ON events(at_ms);
CREATE INDEX events_job ON events(job, at_ms) WHERE job IS NOT NULL;
CREATE TABLE metric_series(
    id INTEGER PRIMARY KEY,
    metric INTEGER NOT NULL,
    card INTEGER NOT NULL DEFAULT -1,
    partition_uid INTEGER NOT NULL DEFAULT -1,
    service TEXT NOT NULL DEFAULT '',
    job INTEGER NOT NULL DEFAULT -1,
    labels TEXT,
    UNIQUE(metric, card, partition_uid, service, job));
CREATE TABLE metric_samples(
    series INTEGER NOT NULL,
    tier INTEGER NOT NULL,
    at_ms INTEGER NOT NULL,
    value REAL NOT NULL,
    min REAL NOT NULL,
    max REAL NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY(series, tier, at_ms)) WITHOUT ROWID;
CREATE INDEX metric_samples_tier ON metric_samples(tier, at_ms);
CREATE TABLE state(key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_ms INTEGER NOT NULL DEFAULT 0);
CREATE TABLE decision_traces(id INTEGER PRIMARY KEY, at_ms INTEGER NOT NULL, job INTEGER, trace TEXT NOT NULL);
CREATE INDEX traces_job ON decision_traces(job, at_ms);
CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);
)sql";

// v1 -> v2. The actor of an operator action used to live in its params.
const char kV1ToV2[] = R"sql(
ALTER TABLE events ADD COLUMN partition_uid INTEGER;
ALTER TABLE events ADD COLUMN actor TEXT;
UPDATE events SET actor = json_extract(params, '$.actor')
    WHERE source = 'operator' AND json_valid(params);
ALTER TABLE state ADD COLUMN updated_ms INTEGER NOT NULL DEFAULT 0;
CREATE TABLE decision_traces(id INTEGER PRIMARY KEY, at_ms INTEGER NOT NULL, job INTEGER, trace TEXT NOT NULL);
CREATE INDEX traces_job ON decision_traces(job, at_ms);
UPDATE schema_version SET version = 2;
)sql";

// v2 -> v3, events and the new tables; the metrics rows are moved by code (their series keys are
// text to parse).
const char kV2ToV3Events[] = R"sql(
CREATE TABLE events_v3(
    id INTEGER PRIMARY KEY,
    at_ms INTEGER NOT NULL,
    severity INTEGER NOT NULL,
    source INTEGER NOT NULL,
    code TEXT NOT NULL,
    card INTEGER,
    partition_uid INTEGER,
    job INTEGER,
    actor TEXT,
    params TEXT);
INSERT INTO events_v3(id, at_ms, severity, source, code, card, partition_uid, job, actor, params)
    SELECT id, at_ms,
        CASE severity WHEN 'warning' THEN 1 WHEN 'error' THEN 2 WHEN 'critical' THEN 3 ELSE 0 END,
        CASE source WHEN 'policy' THEN 1 WHEN 'device' THEN 2 WHEN 'operator' THEN 3
                    WHEN 'system' THEN 4 ELSE 0 END,
        code, card, partition_uid, job, actor, params
    FROM events;
DROP TABLE events;
ALTER TABLE events_v3 RENAME TO events;
CREATE INDEX events_at ON events(at_ms);
CREATE INDEX events_job ON events(job, at_ms) WHERE job IS NOT NULL;
CREATE TABLE metric_series(
    id INTEGER PRIMARY KEY,
    metric INTEGER NOT NULL,
    card INTEGER NOT NULL DEFAULT -1,
    partition_uid INTEGER NOT NULL DEFAULT -1,
    service TEXT NOT NULL DEFAULT '',
    job INTEGER NOT NULL DEFAULT -1,
    labels TEXT,
    UNIQUE(metric, card, partition_uid, service, job));
CREATE TABLE metric_samples(
    series INTEGER NOT NULL,
    tier INTEGER NOT NULL,
    at_ms INTEGER NOT NULL,
    value REAL NOT NULL,
    min REAL NOT NULL,
    max REAL NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY(series, tier, at_ms)) WITHOUT ROWID;
CREATE INDEX metric_samples_tier ON metric_samples(tier, at_ms);
CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);
)sql";

// v3 -> v4: operator events (source 3, the audit trail) are append-only: SQLite itself refuses to
// change or delete one, whoever writes to the file through SQL.
const char kV3ToV4[] = R"sql(
CREATE TRIGGER operator_events_no_update BEFORE UPDATE ON events WHEN old.source = 3
BEGIN SELECT RAISE(ABORT, 'operator events are append-only'); END;
CREATE TRIGGER operator_events_no_delete BEFORE DELETE ON events WHEN old.source = 3
BEGIN SELECT RAISE(ABORT, 'operator events are append-only'); END;
UPDATE schema_version SET version = 4;
)sql";

bool inTransaction(Sql::Connection &db, const std::function<bool(QString *)> &body, QString *error)
{
    if (!db.exec("BEGIN IMMEDIATE", error))
        return false;
    if (!body(error)) {
        db.exec("ROLLBACK");
        return false;
    }
    return db.exec("COMMIT", error);
}

// v1 metric series keys: "card/<n>/<metric>", "card/<n>/mig/<uid>/<metric>",
// "service/<name>/<metric>", "job/<n>/<metric>". Unknown shapes are dropped with the
// migration's count of skipped rows kept in meta (nothing silently vanishes without a trace).
std::optional<SeriesKey> parseV1Series(const QString &text)
{
    const QStringList parts = text.split(QLatin1Char('/'));
    if (parts.size() < 3)
        return std::nullopt;
    const auto metric = metricFromString(parts.last());
    if (!metric)
        return std::nullopt;
    SeriesKey k;
    k.metric = *metric;
    bool ok = false;
    if (parts[0] == QLatin1String("card")) {
        k.card = parts[1].toInt(&ok);
        if (!ok)
            return std::nullopt;
        if (parts.size() == 5 && parts[2] == QLatin1String("mig")) {
            k.partition = parts[3].toInt(&ok);
            if (!ok)
                return std::nullopt;
        } else if (parts.size() != 3) {
            return std::nullopt;
        }
    } else if (parts[0] == QLatin1String("service") && parts.size() == 3) {
        k.service = parts[1];
    } else if (parts[0] == QLatin1String("job") && parts.size() == 3) {
        k.job = parts[1].toInt(&ok);
        if (!ok)
            return std::nullopt;
    } else {
        return std::nullopt;
    }
    return k;
}

bool moveV2Metrics(Sql::Connection &db, QString *error)
{
    Sql::Statement names(db, "SELECT DISTINCT series FROM metrics");
    Sql::Statement addSeries(
            db,
            "INSERT OR IGNORE INTO metric_series(metric, card, partition_uid, service, job) "
            "VALUES(?, ?, ?, ?, ?)");
    Sql::Statement findSeries(db,
                              "SELECT id FROM metric_series WHERE metric = ? AND card = ? AND "
                              "partition_uid = ? AND service = ? AND job = ?");
    Sql::Statement copy(
            db,
            "INSERT OR REPLACE INTO metric_samples(series, tier, at_ms, value, min, max, count) "
            "SELECT ?, 0, at_ms, value, value, value, 1 FROM metrics WHERE series = ?");
    if (!names.isValid() || !addSeries.isValid() || !findSeries.isValid() || !copy.isValid()) {
        *error = db.errorMessage();
        return false;
    }
    qint64 skipped = 0;
    bool ok = true;
    while (names.step(&ok)) {
        const QString name = names.text(0);
        const auto key = parseV1Series(name);
        if (!key) {
            ++skipped;
            continue;
        }
        for (Sql::Statement *st : {&addSeries, &findSeries}) {
            st->reset();
            st->bind(1, qint64(key->metric));
            st->bind(2, qint64(key->card));
            st->bind(3, qint64(key->partition));
            st->bindText(4,
                         key->service.toUtf8().isNull() ? QByteArray("") : key->service.toUtf8());
            st->bind(5, qint64(key->job));
        }
        if (!addSeries.run() || !findSeries.step()) {
            *error = db.errorMessage();
            return false;
        }
        const qint64 id = findSeries.int64(0);
        copy.reset();
        copy.bind(1, id);
        copy.bindText(2, name);
        if (!copy.run()) {
            *error = db.errorMessage();
            return false;
        }
    }
    if (!ok) {
        *error = db.errorMessage();
        return false;
    }
    names = Sql::Statement();
    Sql::Statement note(
            db, "INSERT OR REPLACE INTO meta(key, value) VALUES('migration-v3-skipped-series', ?)");
    note.bind(1, skipped);
    if (!note.run()) {
        *error = db.errorMessage();
        return false;
    }
    return true;
}

} // namespace

int version(Sql::Connection &db, QString *error)
{
    QString err;
    const qint64 tables
            = db.scalar("SELECT count(*) FROM sqlite_schema WHERE type = 'table'", -1, &err);
    if (tables < 0) {
        if (error)
            *error = err;
        return -1;
    }
    if (tables == 0)
        return 0;
    const qint64 hasVersion = db.scalar(
            "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'schema_version'");
    if (hasVersion != 1) {
        if (error)
            *error = QStringLiteral(
                    "the file has tables but no schema_version: not a Zhaoxi store");
        return -1;
    }
    const qint64 v = db.scalar("SELECT max(version) FROM schema_version", -1, &err);
    if (v < 1) {
        if (error)
            *error = err.isEmpty() ? QStringLiteral("schema_version is empty") : err;
        return -1;
    }
    return int(v);
}

bool create(Sql::Connection &db, QString *error)
{
    return inTransaction(
            db, [&](QString *e) { return db.exec(kCreateV3, e) && db.exec(kV3ToV4, e); }, error);
}

bool migrate(Sql::Connection &db, QString *error)
{
    QString err;
    int v = version(db, &err);
    if (v < 0) {
        *error = err;
        return false;
    }
    if (v == 0)
        return create(db, error);
    if (v > kCurrentVersion) {
        *error = QStringLiteral("schema version %1 is newer than this build understands (%2)")
                         .arg(v)
                         .arg(kCurrentVersion);
        return false;
    }
    while (v < kCurrentVersion) {
        bool ok = false;
        if (v == 3) {
            ok = inTransaction(
                    db, [&](QString *e) { return db.exec(kV3ToV4, e); }, &err);
        } else if (v == 1) {
            ok = inTransaction(
                    db, [&](QString *e) { return db.exec(kV1ToV2, e); }, &err);
        } else if (v == 2) {
            ok = inTransaction(
                    db,
                    [&](QString *e) {
                        return db.exec(kV2ToV3Events, e) && moveV2Metrics(db, e)
                               && db.exec("DROP TABLE metrics; "
                                          "UPDATE schema_version SET version = 3;",
                                          e);
                    },
                    &err);
        }
        if (!ok) {
            *error = QStringLiteral("migration from schema v%1 to v%2 failed: %3")
                             .arg(v)
                             .arg(v + 1)
                             .arg(err);
            return false;
        }
        ++v;
    }
    return true;
}

} // namespace Zhaoxi::Storage::Schema
