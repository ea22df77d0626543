// SPDX-License-Identifier: GPL-3.0-or-later
// The Store's writer: queueing with back-pressure, the writer thread, one transaction per batch
// (events many rows per statement), metric series, roll-ups and retention.
#include "store.h"

#include "store_p.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace Zhaoxi::Storage {

using Detail::CompactOp;
using Detail::labelsJson;
using Detail::Op;
using Detail::StateOp;
using Detail::TraceOp;

QByteArray Detail::labelsJson(const QMap<QString, QString> &labels)
{
    if (labels.isEmpty())
        return {};
    QJsonObject o;
    for (auto it = labels.begin(); it != labels.end(); ++it)
        o.insert(it.key(), it.value());
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

void Store::Private::enqueue(Op &&op, qint64 *eventId)
{
    std::unique_lock lock(mutex);
    // Back-pressure: a producer far ahead of the disk waits instead of growing memory forever.
    const size_t cap = size_t(options.maxBatch) * 8;
    done.wait(lock, [&] { return queue.size() < cap || stopping; });
    if (eventId) {
        Event &e = std::get<Event>(op);
        e.id = nextEventId++;
        *eventId = e.id;
    }
    queue.push_back(std::move(op));
    ++enqueued;
    if (queue.size() == 1)
        workReady.notify_one();
}

qint64 Store::append(Event event)
{
    qint64 id = 0;
    d->enqueue(Op(std::move(event)), &id);
    return id;
}

void Store::appendMetric(const MetricSample &sample)
{
    d->enqueue(Op(sample));
}

void Store::putState(const QString &key, const QByteArray &json, qint64 atMs)
{
    d->enqueue(Op(StateOp{{{key, json}}, atMs}));
}

void Store::putStates(const QList<std::pair<QString, QByteArray>> &docs, qint64 atMs)
{
    if (!docs.isEmpty())
        d->enqueue(Op(StateOp{docs, atMs}));
}

void Store::appendTrace(qint64 atMs, int job, const QByteArray &json)
{
    d->enqueue(Op(TraceOp{atMs, job, json}));
}

void Store::compact(qint64 nowMs)
{
    d->enqueue(Op(CompactOp{nowMs}));
}

bool Store::flush()
{
    std::unique_lock lock(d->mutex);
    const qint64 target = d->enqueued;
    d->workReady.notify_one();
    d->done.wait(lock, [&] { return d->committed >= target || !d->thread.joinable(); });
    // Every failure since the previous flush counts, also those of batches committed before
    // this call: a writer that flushes once at the end must hear of them.
    const bool ok = d->failures == d->reportedFailures && d->committed >= target;
    d->reportedFailures = d->failures;
    return ok;
}

QString Store::lastError() const
{
    std::lock_guard lock(d->mutex);
    return d->lastError;
}

qint64 Store::committedEventId() const
{
    return d->committedEventId.load();
}

void Store::setCommitObserver(std::function<void(qint64)> observer)
{
    std::lock_guard lock(d->mutex);
    d->observer = std::move(observer);
}

void Store::Private::run()
{
    std::vector<Op> batch;
    for (;;) {
        std::function<void(qint64)> obs;
        {
            std::unique_lock lock(mutex);
            workReady.wait(lock, [&] { return !queue.empty() || stopping; });
            if (queue.empty() && stopping)
                return;
            if (queue.size() <= size_t(options.maxBatch)) {
                batch.swap(queue);
            } else {
                auto mid = queue.begin() + options.maxBatch;
                batch.assign(std::make_move_iterator(queue.begin()), std::make_move_iterator(mid));
                queue.erase(queue.begin(), mid);
            }
            obs = observer;
        }
        done.notify_all(); // room in the queue again
        qint64 lastEventId = 0;
        QString err;
        const bool ok = apply(batch, &lastEventId, &err);
        const qint64 n = qint64(batch.size());
        batch.clear();
        if (ok && lastEventId > 0) {
            committedEventId = lastEventId;
            if (obs)
                obs(lastEventId);
        }
        {
            std::lock_guard lock(mutex);
            committed += n;
            if (!ok) {
                ++failures;
                lastError = err;
            }
        }
        done.notify_all();
    }
}

qint64 Store::Private::meta(const char *key, qint64 fallback)
{
    Sql::Statement st(db, "SELECT value FROM meta WHERE key = ?");
    st.bindText(1, QByteArray(key));
    return st.step() ? st.int64(0) : fallback;
}

bool Store::Private::setMeta(const char *key, qint64 value)
{
    Sql::Statement st(db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)");
    st.bindText(1, QByteArray(key));
    st.bind(2, value);
    return st.run();
}

bool Store::Private::apply(std::vector<Op> &batch, qint64 *lastEventId, QString *error)
{
    bool durable = false;
    QHash<QString, qsizetype> lastState; // key -> index of its newest value in the batch
    for (qsizetype i = 0; i < qsizetype(batch.size()); ++i) {
        const Op &op = batch[size_t(i)];
        if (const Event *e = std::get_if<Event>(&op)) {
            durable |= e->source == Source::Operator || e->source == Source::System;
        } else if (const StateOp *s = std::get_if<StateOp>(&op)) {
            durable = true;
            for (const auto &[key, json] : s->docs)
                lastState.insert(key, i);
        } else if (!std::holds_alternative<MetricSample>(op)) {
            durable = true;
        }
    }
    const int wantSync = durable ? 2 : 1;
    if (sync != wantSync) {
        // Must be set outside a transaction.
        if (!db.exec(durable ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL", error))
            return false;
        sync = wantSync;
    }
    if (!db.exec("BEGIN IMMEDIATE", error))
        return false;
    auto fail = [&](const QString &what) {
        *error = what + QStringLiteral(": ") + db.errorMessage();
        db.exec("ROLLBACK");
        return false;
    };
    qint64 maxMetricAt = -1;
    qint64 lastId = 0;
    for (qsizetype i = 0; i < qsizetype(batch.size()); ++i) {
        Op &op = batch[size_t(i)];
        if (Event *e = std::get_if<Event>(&op)) {
            // A run of events: as many full multi-row inserts as fit, then single rows.
            qsizetype runEnd = i;
            while (runEnd < qsizetype(batch.size()) && runEnd - i < kRowsPerInsert
                   && std::holds_alternative<Event>(batch[size_t(runEnd)]))
                ++runEnd;
            QByteArray actors[kRowsPerInsert];
            if (runEnd - i == kRowsPerInsert) {
                for (int r = 0; r < kRowsPerInsert; ++r)
                    bindEvent(*insEvents,
                              r * 10 + 1,
                              std::get<Event>(batch[size_t(i + r)]),
                              actors[r]);
                if (!insEvents->run())
                    return fail(QStringLiteral("cannot insert events %1..").arg(e->id));
                lastId = std::get<Event>(batch[size_t(runEnd - 1)]).id;
                i = runEnd - 1;
                continue;
            }
            bindEvent(*insEvent, 1, *e, actors[0]);
            if (!insEvent->run())
                return fail(QStringLiteral("cannot insert event %1").arg(e->id));
            lastId = e->id;
        } else if (const MetricSample *m = std::get_if<MetricSample>(&op)) {
            if (!insertSample(*m, error)) {
                db.exec("ROLLBACK");
                return false;
            }
            maxMetricAt = std::max(maxMetricAt, m->atMs);
        } else if (const StateOp *s = std::get_if<StateOp>(&op)) {
            for (const auto &[key, json] : s->docs) {
                if (lastState.value(key) != i)
                    continue; // a newer value of this key follows in the batch
                Sql::Statement &st = *putState;
                st.bindText(1, key);
                st.bindText(2, json.isNull() ? QByteArray("") : json);
                st.bind(3, s->atMs);
                if (!st.run())
                    return fail(QStringLiteral("cannot write state %1").arg(key));
            }
        } else if (const TraceOp *t = std::get_if<TraceOp>(&op)) {
            Sql::Statement &st = *insTrace;
            st.bind(1, t->atMs);
            st.bindOptional(2, t->job);
            st.bindText(3, t->json.isNull() ? QByteArray("{}") : t->json);
            if (!st.run())
                return fail(QStringLiteral("cannot insert a decision trace"));
        } else if (const CompactOp *c = std::get_if<CompactOp>(&op)) {
            if (!compactNow(c->nowMs, error)) {
                db.exec("ROLLBACK");
                return false;
            }
        }
    }
    // Roll up by metric time, not the wall clock: a replayed day compacts like a live one.
    if (maxMetricAt >= 0) {
        const qint64 bucket = maxMetricAt / kTierBucketMs[1];
        if (bucket > lastAutoCompactBucket) {
            if (lastAutoCompactBucket >= 0 && !compactNow(maxMetricAt, error)) {
                db.exec("ROLLBACK");
                return false;
            }
            lastAutoCompactBucket = bucket;
        }
    }
    if (!db.exec("COMMIT", error)) {
        db.exec("ROLLBACK");
        return false;
    }
    *lastEventId = lastId;
    return true;
}

void Store::Private::bindEvent(Sql::Statement &st, int f, const Event &e, QByteArray &actorBuf)
{
    st.bind(f, e.id);
    st.bind(f + 1, e.atMs);
    st.bind(f + 2, qint64(e.severity));
    st.bind(f + 3, qint64(e.source));
    st.bindTextStatic(f + 4, e.code.constData(), int(e.code.size()));
    st.bindOptional(f + 5, e.card);
    st.bindOptional(f + 6, e.partition);
    st.bindOptional(f + 7, e.job);
    if (e.actor.isEmpty()) {
        st.bindNull(f + 8);
    } else {
        actorBuf = e.actor.toUtf8();
        st.bindTextStatic(f + 8, actorBuf.constData(), int(actorBuf.size()));
    }
    if (e.params.isEmpty())
        st.bindNull(f + 9);
    else
        st.bindTextStatic(f + 9, e.params.constData(), int(e.params.size()));
}

bool Store::Private::insertSample(const MetricSample &s, QString *error)
{
    qint64 id = seriesIds.value(s.key, -1);
    if (id < 0) {
        const QByteArray service = s.key.service.toUtf8();
        for (Sql::Statement *st : {insSeries.get(), findSeries.get()}) {
            st->reset();
            st->bind(1, qint64(s.key.metric));
            st->bind(2, qint64(s.key.card));
            st->bind(3, qint64(s.key.partition));
            st->bindText(4, service.isNull() ? QByteArray("") : service);
            st->bind(5, qint64(s.key.job));
        }
        if (!insSeries->run() || !findSeries->step()) {
            *error = QStringLiteral("cannot add a metric series: ") + db.errorMessage();
            return false;
        }
        id = findSeries->int64(0);
        seriesLabels.insert(id, findSeries->bytes(1));
        findSeries->reset();
        seriesIds.insert(s.key, id);
    }
    if (!s.labels.isEmpty()) {
        const QByteArray json = labelsJson(s.labels);
        if (seriesLabels.value(id) != json) {
            setLabels->bindText(1, json);
            setLabels->bind(2, id);
            if (!setLabels->run()) {
                *error = QStringLiteral("cannot label a metric series: ") + db.errorMessage();
                return false;
            }
            seriesLabels.insert(id, json);
        }
    }
    Sql::Statement &st = *insSample;
    st.bind(1, id);
    st.bind(2, s.atMs);
    st.bind(3, s.value);
    st.bind(4, s.value);
    st.bind(5, s.value);
    if (!st.run()) {
        *error = QStringLiteral("cannot insert a metric sample: ") + db.errorMessage();
        return false;
    }
    dirtyRawMin = std::min(dirtyRawMin, s.atMs);
    return true;
}

// Rolls tier `from` into tier `from + 1` for every bucket closed by `nowMs`, starting at the
// watermark (or earlier, when late samples landed in buckets already rolled). Returns the
// earliest bucket rewritten (for the next tier's dirtiness) or max when none.
bool Store::Private::compactNow(qint64 nowMs, QString *error)
{
    qint64 dirty = dirtyRawMin;
    for (int to = 1; to <= 2; ++to) {
        const int from = to - 1;
        const qint64 b = kTierBucketMs[to];
        const QByteArray wmKey = "rolled-" + QByteArray::number(to);
        qint64 wm = meta(wmKey.constData(), -1);
        if (wm < 0) {
            Sql::Statement first(db, "SELECT min(at_ms) FROM metric_samples WHERE tier = ?");
            first.bind(1, qint64(from));
            if (!first.step() || first.isNull(0))
                break; // nothing at this tier yet
            wm = first.int64(0) / b * b;
        }
        qint64 start = wm;
        if (dirty < start)
            start = dirty / b * b;
        const qint64 end = nowMs / b * b;
        qint64 rewritten = std::numeric_limits<qint64>::max();
        if (end > start) {
            Sql::Statement roll(
                    db,
                    "INSERT OR REPLACE INTO metric_samples(series, tier, at_ms, value, min, max, "
                    "count) "
                    "SELECT series, ?1, (at_ms / ?2) * ?2 AS bucket, "
                    "sum(value * count) / sum(count), min(min), max(max), sum(count) "
                    "FROM metric_samples WHERE tier = ?3 AND at_ms >= ?4 AND at_ms < ?5 "
                    "GROUP BY series, bucket");
            roll.bind(1, qint64(to));
            roll.bind(2, b);
            roll.bind(3, qint64(from));
            roll.bind(4, start);
            roll.bind(5, end);
            if (!roll.run() || !setMeta(wmKey.constData(), std::max(end, wm))) {
                *error = QStringLiteral("cannot roll metrics up: ") + db.errorMessage();
                return false;
            }
            rewritten = start;
        }
        dirty = rewritten;
    }
    dirtyRawMin = std::numeric_limits<qint64>::max();
    // Retention: never drop a finer bucket before it has been rolled into the next tier.
    const qint64 rolled1 = meta("rolled-1", -1);
    const qint64 rolled2 = meta("rolled-2", -1);
    const struct
    {
        int tier;
        qint64 keepMs;
        qint64 rolled;
    } rules[] = {{0, options.retention.rawMs, rolled1},
                 {1, options.retention.minuteMs, rolled2},
                 {2, options.retention.quarterHourMs, std::numeric_limits<qint64>::max()}};
    for (const auto &r : rules) {
        if (r.keepMs <= 0 || r.rolled < 0)
            continue;
        const qint64 cutoff = std::min(nowMs - r.keepMs, r.rolled);
        Sql::Statement del(db, "DELETE FROM metric_samples WHERE tier = ? AND at_ms < ?");
        del.bind(1, qint64(r.tier));
        del.bind(2, cutoff);
        if (!del.run()) {
            *error = QStringLiteral("cannot apply metric retention: ") + db.errorMessage();
            return false;
        }
    }
    if (options.retention.traces > 0) {
        Sql::Statement del(db,
                           "DELETE FROM decision_traces WHERE id <= (SELECT max(id) FROM "
                           "decision_traces) - ?");
        del.bind(1, options.retention.traces);
        if (!del.run()) {
            *error = QStringLiteral("cannot apply trace retention: ") + db.errorMessage();
            return false;
        }
    }
    return true;
}

} // namespace Zhaoxi::Storage
