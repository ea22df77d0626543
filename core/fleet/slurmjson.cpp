// SPDX-License-Identifier: GPL-3.0-or-later
#include "slurmjson.h"

#include <QJsonArray>
#include <QJsonValue>
#include <QRegularExpression>

#include <algorithm>
#include <functional>

namespace Zhaoxi::Fleet {

using Domain::jsonPath;
using Domain::JsonReader;
using Domain::JsonScope;

namespace {

constexpr qint64 kMaxCount = qint64(1) << 50;
constexpr int kMaxHosts = 100000;
constexpr qint64 kMaxTime = qint64(1) << 40;

bool failText(QString *error, const QString &text)
{
    if (error)
        *error = text;
    return false;
}

// "2-3,5" -> 2, 3, 5.
bool parseIndexList(const QString &text, QList<int> *out, QString *error)
{
    for (const QString &part : text.split(QLatin1Char(','))) {
        const qsizetype dash = part.indexOf(QLatin1Char('-'));
        bool ok1 = false, ok2 = false;
        const int lo = (dash < 0 ? part : part.left(dash)).toInt(&ok1);
        const int hi = dash < 0 ? lo : part.mid(dash + 1).toInt(&ok2);
        if (!ok1 || (dash >= 0 && !ok2) || lo < 0 || hi < lo || hi - lo > 4096)
            return failText(error, QStringLiteral("bad index list \"%1\"").arg(text));
        for (int i = lo; i <= hi; ++i)
            out->append(i);
    }
    std::sort(out->begin(), out->end());
    out->erase(std::unique(out->begin(), out->end()), out->end());
    return true;
}

// A count with Slurm's optional suffix: "8", "1K", "2M", "1G" (powers of 1024).
bool parseCount(const QString &text, qint64 *out)
{
    if (text.isEmpty())
        return false;
    qint64 mult = 1;
    QString digits = text;
    const QChar last = text.back().toUpper();
    if (last == QLatin1Char('K') || last == QLatin1Char('M') || last == QLatin1Char('G')) {
        mult = last == QLatin1Char('K')   ? 1024
               : last == QLatin1Char('M') ? 1024 * 1024
                                          : 1024 * 1024 * 1024;
        digits.chop(1);
    }
    for (QChar c : digits) {
        if (!c.isDigit())
            return false;
    }
    bool ok = false;
    const qint64 v = digits.toLongLong(&ok);
    if (!ok || v > kMaxCount / mult)
        return false;
    *out = v * mult;
    return true;
}

bool parseOneGres(const QString &entryIn, Gres *out, QString *error)
{
    QString entry = entryIn.trimmed();
    const auto bad = [&](const QString &why) {
        return failText(error, QStringLiteral("gres entry \"%1\": %2").arg(entryIn, why));
    };
    // Trailing "(IDX:2-3)" or "(S:0-1)" (socket binding, ignored).
    const qsizetype paren = entry.indexOf(QLatin1Char('('));
    if (paren >= 0) {
        if (!entry.endsWith(QLatin1Char(')')))
            return bad(QStringLiteral("unbalanced parenthesis"));
        const QString inner = entry.mid(paren + 1, entry.size() - paren - 2);
        entry = entry.left(paren);
        if (inner.startsWith(QLatin1String("IDX:"))) {
            const QString list = inner.mid(4);
            QString why;
            if (list != QLatin1String("N/A") && !parseIndexList(list, &out->indices, &why))
                return bad(why);
        } else if (!inner.startsWith(QLatin1String("S:"))) {
            return bad(QStringLiteral("unknown annotation \"(%1)\"").arg(inner));
        }
    }
    const QStringList parts = entry.split(QLatin1Char(':'));
    if (parts.size() > 3 || parts[0].isEmpty())
        return bad(QStringLiteral("expected name[:type][:count]"));
    for (const QString &p : parts) {
        if (p.isEmpty())
            return bad(QStringLiteral("empty field"));
    }
    out->name = parts[0];
    out->count = 1;
    if (parts.size() == 3) {
        out->type = parts[1];
        if (!parseCount(parts[2], &out->count))
            return bad(QStringLiteral("count \"%1\" is not a number").arg(parts[2]));
    } else if (parts.size() == 2) {
        // "gpu:4" (count) or "gpu:h200" (type, count 1): a type never is all digits.
        if (!parseCount(parts[1], &out->count))
            out->type = parts[1];
    }
    return true;
}

// Splits at commas outside parentheses: "gpu:a:2(IDX:0-1),mps:0".
QStringList splitTopLevel(const QString &text)
{
    QStringList out;
    int depth = 0;
    qsizetype from = 0;
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (text[i] == QLatin1Char('('))
            ++depth;
        else if (text[i] == QLatin1Char(')'))
            --depth;
        else if (text[i] == QLatin1Char(',') && depth == 0) {
            out << text.mid(from, i - from);
            from = i + 1;
        }
    }
    out << text.mid(from);
    return out;
}

// JsonReader for Slurm's answers: null counts as absent (Slurm writes null for unset numbers).
class SlurmReader : public JsonReader
{
public:
    bool str(const JsonScope &in, const QString &key, QString *out)
    {
        return in.at(key).isNull() || readString(in, key, out);
    }
    bool integer(const JsonScope &in, const QString &key, qint64 lo, qint64 hi, qint64 *out)
    {
        return in.at(key).isNull() || readInteger(in, key, lo, hi, out);
    }
    bool integer(const JsonScope &in, const QString &key, int lo, int hi, int *out)
    {
        return in.at(key).isNull() || readInt(in, key, lo, hi, out);
    }
    bool strings(const JsonScope &in, const QString &key, QStringList *out)
    {
        return in.at(key).isNull() || readStrings(in, key, out);
    }
    bool gres(const JsonScope &in, const QString &key, QList<Gres> *out)
    {
        QString text;
        if (!str(in, key, &text))
            return false;
        return gresText(in.field(key), text, out);
    }
    bool gresText(const QString &path, QString text, QList<Gres> *out)
    {
        if (text.startsWith(QLatin1String("gres:")))
            text = text.mid(5);
        // tres_per_node may list several "gres:..." terms separated by commas.
        text.replace(QLatin1String(",gres:"), QLatin1String(","));
        QString why;
        std::optional<QList<Gres>> list = parseGresList(text, &why);
        if (!list)
            return fail(path, why);
        *out = *list;
        return true;
    }
    bool hostList(const JsonScope &in, const QString &key, QStringList *out)
    {
        QString text;
        if (!str(in, key, &text))
            return false;
        QString why;
        std::optional<QStringList> hosts = expandHostList(text, &why);
        if (!hosts)
            return fail(in.field(key), why);
        *out = *hosts;
        return true;
    }

    // The answer's list under `key`, each element read by `readOne`.
    template<typename T>
    std::optional<QList<T>> readList(const QByteArray &json,
                                     const QString &key,
                                     const std::function<bool(const JsonScope &, T *)> &readOne,
                                     JsonError *error)
    {
        const std::optional<QJsonObject> root = Domain::parseJsonObject(json, error);
        if (!root)
            return std::nullopt;
        const JsonScope top{*root, QString()};
        QList<T> out;
        QJsonArray array;
        const QStringList errors = slurmErrors(*root);
        if (!errors.isEmpty()) {
            fail(QStringLiteral("errors"),
                 QStringLiteral("Slurm answered with errors: ")
                         + errors.join(QStringLiteral("; ")));
        } else if (readArray(top, key, &array, Presence::Required)) {
            out.reserve(array.size());
            for (qsizetype i = 0; i < array.size(); ++i) {
                JsonScope item;
                T value;
                if (!objectValue(array[i], jsonPath(key, i), &item) || !readOne(item, &value))
                    break;
                out.append(std::move(value));
            }
        }
        if (failed()) {
            if (error)
                *error = this->error();
            return std::nullopt;
        }
        return out;
    }

    bool node(const JsonScope &in, FleetNode *n)
    {
        if (!require(in, {QStringLiteral("name"), QStringLiteral("state")})
            || !readTrimmedName(in, QStringLiteral("name"), &n->name, Presence::Required))
            return false;
        // v0.0.38 writes the state as a string and its flags apart; later versions write one
        // array of which the first is the base state.
        const QJsonValue state = in.at(QStringLiteral("state"));
        if (state.isArray()) {
            QStringList all;
            if (!readStrings(in, QStringLiteral("state"), &all))
                return false;
            if (all.isEmpty())
                return fail(in.field(QStringLiteral("state")), QStringLiteral("is empty"));
            n->state = all.takeFirst().toLower();
            n->stateFlags = all;
        } else if (!readString(in, QStringLiteral("state"), &n->state, Presence::Required)) {
            return false;
        }
        n->state = n->state.toLower();
        QStringList flags;
        if (!strings(in, QStringLiteral("state_flags"), &flags))
            return false;
        n->stateFlags += flags;
        QString features;
        return integer(in, QStringLiteral("cpus"), 0, 1 << 24, &n->cpus)
               && integer(in, QStringLiteral("alloc_cpus"), 0, 1 << 24, &n->allocCpus)
               && integer(in, QStringLiteral("real_memory"), 0, kMaxCount, &n->realMemoryMiB)
               && integer(in, QStringLiteral("alloc_memory"), 0, kMaxCount, &n->allocMemoryMiB)
               && gres(in, QStringLiteral("gres"), &n->gres)
               && gres(in, QStringLiteral("gres_used"), &n->gresUsed)
               && str(in, QStringLiteral("reason"), &n->reason)
               && strings(in, QStringLiteral("partitions"), &n->partitions)
               && str(in, QStringLiteral("active_features"), &features)
               && (n->features = features.split(QLatin1Char(','), Qt::SkipEmptyParts), true);
    }

    bool job(const JsonScope &in, FleetJob *j)
    {
        if (!require(in, {QStringLiteral("job_id"), QStringLiteral("job_state")})
            || !integer(in, QStringLiteral("job_id"), qint64(0), kMaxCount, &j->id)
            || !str(in, QStringLiteral("name"), &j->name)
            || !str(in, QStringLiteral("user_name"), &j->user)
            || !str(in, QStringLiteral("partition"), &j->partition)
            || !str(in, QStringLiteral("qos"), &j->qos)
            || !readString(in, QStringLiteral("job_state"), &j->state, Presence::Required)
            || !str(in, QStringLiteral("state_reason"), &j->reason)
            || !hostList(in, QStringLiteral("nodes"), &j->nodes)
            || !gres(in, QStringLiteral("tres_per_node"), &j->gresRequested)
            || !integer(in, QStringLiteral("cpus"), 0, 1 << 24, &j->cpus)
            || !integer(in, QStringLiteral("submit_time"), qint64(0), kMaxTime, &j->submitTime)
            || !integer(in, QStringLiteral("start_time"), qint64(0), kMaxTime, &j->startTime)
            || !integer(in, QStringLiteral("restart_cnt"), 0, 1 << 30, &j->restarts))
            return false;
        j->state = j->state.toUpper();
        QJsonArray detail;
        if (!in.at(QStringLiteral("gres_detail")).isNull()
            && !readArray(in, QStringLiteral("gres_detail"), &detail))
            return false;
        for (qsizetype i = 0; i < detail.size(); ++i) {
            const QString path = jsonPath(in.field(QStringLiteral("gres_detail")), i);
            QString text;
            QList<Gres> list;
            if (!stringValue(detail[i], path, &text) || !gresText(path, text, &list))
                return false;
            j->gresAllocated.append(list);
        }
        // Memory per node: what the allocation holds, else what was asked.
        JsonScope resources;
        if (!in.at(QStringLiteral("job_resources")).isNull()
            && !readObject(in, QStringLiteral("job_resources"), &resources))
            return false;
        QJsonArray allocated;
        if (!resources.object.isEmpty() && !resources.at(QStringLiteral("allocated_nodes")).isNull()
            && !readArray(resources, QStringLiteral("allocated_nodes"), &allocated))
            return false;
        if (!allocated.isEmpty()) {
            JsonScope first;
            if (!objectValue(allocated[0],
                             jsonPath(resources.field(QStringLiteral("allocated_nodes")), 0),
                             &first)
                || !integer(first, QStringLiteral("memory_allocated"), 0, kMaxCount, &j->memoryMiB))
                return false;
        }
        if (j->memoryMiB == 0) {
            qint64 perNode = 0, perCpu = 0;
            if (!integer(in, QStringLiteral("memory_per_node"), 0, kMaxCount, &perNode)
                || !integer(in, QStringLiteral("memory_per_cpu"), 0, kMaxCount, &perCpu))
                return false;
            j->memoryMiB = perNode > 0 ? perNode : perCpu * std::max(1, j->cpus);
        }
        return true;
    }

    bool partition(const JsonScope &in, FleetPartition *p)
    {
        QStringList flags;
        if (!readTrimmedName(in, QStringLiteral("name"), &p->name, Presence::Required)
            || !hostList(in, QStringLiteral("nodes"), &p->nodes)
            || !integer(in, QStringLiteral("priority_tier"), 0, 1 << 30, &p->priorityTier)
            || !strings(in, QStringLiteral("preemption_mode"), &p->preemptMode)
            || !str(in, QStringLiteral("state"), &p->state)
            || !strings(in, QStringLiteral("flags"), &flags))
            return false;
        p->isDefault = flags.contains(QLatin1String("default"), Qt::CaseInsensitive);
        return true;
    }

    bool reservation(const JsonScope &in, FleetReservation *r)
    {
        return readTrimmedName(in, QStringLiteral("name"), &r->name, Presence::Required)
               && hostList(in, QStringLiteral("node_list"), &r->nodes)
               && integer(in, QStringLiteral("start_time"), qint64(0), kMaxTime, &r->startTime)
               && integer(in, QStringLiteral("end_time"), qint64(0), kMaxTime, &r->endTime)
               && strings(in, QStringLiteral("flags"), &r->flags)
               && str(in, QStringLiteral("partition"), &r->partition)
               && str(in, QStringLiteral("users"), &r->users);
    }
    bool qos(const JsonScope &in, FleetQos *q)
    {
        JsonScope preempt, limits, max, tres;
        QJsonArray total;
        if (!(readTrimmedName(in, QStringLiteral("name"), &q->name, Presence::Required)
              && integer(in, QStringLiteral("priority"), qint64(0), kMaxCount, &q->priority)
              && readObject(in, QStringLiteral("preempt"), &preempt)
              && strings(preempt, QStringLiteral("list"), &q->preempts)
              && strings(preempt, QStringLiteral("mode"), &q->preemptMode)
              && readObject(in, QStringLiteral("limits"), &limits)
              && integer(limits, QStringLiteral("grace_time"), qint64(0), kMaxTime, &q->graceTimeS)
              && readObject(limits, QStringLiteral("max"), &max)
              && readObject(max, QStringLiteral("tres"), &tres)
              && readArray(tres, QStringLiteral("total"), &total)))
            return false;
        for (qsizetype i = 0; i < total.size(); ++i) {
            JsonScope t;
            QString type, name;
            qint64 count = 0;
            if (!(objectValue(total[i], jsonPath(tres.field(QStringLiteral("total")), i), &t)
                  && str(t, QStringLiteral("type"), &type) && str(t, QStringLiteral("name"), &name)
                  && integer(t, QStringLiteral("count"), qint64(0), kMaxCount, &count)))
                return false;
            q->groupTres << (name.isEmpty() ? type : type + QLatin1Char('/') + name)
                                    + QLatin1Char('=') + QString::number(count);
        }
        return true;
    }
};

} // namespace

QString Gres::toString() const
{
    QString s = name;
    if (!type.isEmpty())
        s += QLatin1Char(':') + type;
    return s + QLatin1Char(':') + QString::number(count);
}

std::optional<QList<Gres>> parseGresList(const QString &text, QString *error)
{
    QList<Gres> out;
    const QString t = text.trimmed();
    if (t.isEmpty() || t == QLatin1String("(null)") || t == QLatin1String("N/A"))
        return out;
    for (const QString &entry : splitTopLevel(t)) {
        Gres g;
        if (!parseOneGres(entry, &g, error))
            return std::nullopt;
        out.append(g);
    }
    return out;
}

std::optional<QStringList> expandHostList(const QString &text, QString *error)
{
    QStringList out;
    const QString t = text.trimmed();
    if (t.isEmpty() || t == QLatin1String("(null)"))
        return out;
    const auto bad = [&](const QString &why) {
        failText(error, QStringLiteral("host list \"%1\": %2").arg(text, why));
        return std::nullopt;
    };
    for (const QString &item :
         splitTopLevel(QString(t)
                               .replace(QLatin1Char('['), QLatin1Char('('))
                               .replace(QLatin1Char(']'), QLatin1Char(')')))) {
        const qsizetype open = item.indexOf(QLatin1Char('('));
        if (item.isEmpty())
            return bad(QStringLiteral("empty host name"));
        if (open < 0) {
            if (item.contains(QLatin1Char(')')))
                return bad(QStringLiteral("unbalanced bracket"));
            out << item;
            continue;
        }
        const qsizetype close = item.indexOf(QLatin1Char(')'), open);
        if (close < 0 || item.indexOf(QLatin1Char('('), open + 1) >= 0)
            return bad(QStringLiteral("unbalanced or nested brackets"));
        const QString prefix = item.left(open);
        const QString suffix = item.mid(close + 1);
        if (suffix.contains(QLatin1Char('(')) || suffix.contains(QLatin1Char(')')))
            return bad(QStringLiteral("more than one range per name is not supported"));
        for (const QString &range : item.mid(open + 1, close - open - 1).split(QLatin1Char(','))) {
            const qsizetype dash = range.indexOf(QLatin1Char('-'));
            const QString loText = dash < 0 ? range : range.left(dash);
            const QString hiText = dash < 0 ? range : range.mid(dash + 1);
            bool ok1 = false, ok2 = false;
            const qint64 lo = loText.toLongLong(&ok1);
            const qint64 hi = hiText.toLongLong(&ok2);
            if (!ok1 || !ok2 || lo < 0 || hi < lo)
                return bad(QStringLiteral("bad range \"%1\"").arg(range));
            if (hi - lo + out.size() >= kMaxHosts)
                return bad(QStringLiteral("names more than %1 hosts").arg(kMaxHosts));
            const int width = loText.size();
            for (qint64 i = lo; i <= hi; ++i)
                out << prefix + QStringLiteral("%1").arg(i, width, 10, QLatin1Char('0')) + suffix;
        }
    }
    return out;
}

bool FleetNode::acceptsWork() const
{
    static const QStringList downStates = {QStringLiteral("down"),
                                           QStringLiteral("fail"),
                                           QStringLiteral("future"),
                                           QStringLiteral("unknown"),
                                           QStringLiteral("error")};
    static const QStringList downFlags = {QStringLiteral("DRAIN"),
                                          QStringLiteral("DRAINING"),
                                          QStringLiteral("DRAINED"),
                                          QStringLiteral("FAIL"),
                                          QStringLiteral("NOT_RESPONDING"),
                                          QStringLiteral("POWERED_DOWN"),
                                          QStringLiteral("POWER_DOWN"),
                                          QStringLiteral("MAINTENANCE")};
    if (downStates.contains(state))
        return false;
    for (const QString &f : stateFlags) {
        if (downFlags.contains(f.toUpper()))
            return false;
    }
    return true;
}

bool FleetJob::holdsResources() const
{
    static const QStringList holding = {QStringLiteral("RUNNING"),
                                        QStringLiteral("SUSPENDED"),
                                        QStringLiteral("COMPLETING"),
                                        QStringLiteral("CONFIGURING"),
                                        QStringLiteral("STOPPED")};
    return holding.contains(state);
}

QStringList slurmErrors(const QJsonObject &answer)
{
    QStringList out;
    for (const QJsonValue &v : answer.value(QStringLiteral("errors")).toArray()) {
        const QJsonObject e = v.toObject();
        QString text = e.value(QStringLiteral("description")).toString();
        if (text.isEmpty())
            text = e.value(QStringLiteral("error")).toString();
        if (text.isEmpty())
            text = QStringLiteral("an error without text");
        qint64 code = e.value(QStringLiteral("error_code")).toInteger();
        if (code == 0)
            code = e.value(QStringLiteral("error_number")).toInteger();
        if (code == 0)
            code = e.value(QStringLiteral("errno")).toInteger();
        if (code != 0)
            text += QStringLiteral(" (error %1)").arg(code);
        out << text;
    }
    return out;
}

std::optional<QList<FleetNode>> parseNodes(const QByteArray &json, JsonError *error)
{
    SlurmReader r;
    return r.readList<FleetNode>(
            json,
            QStringLiteral("nodes"),
            [&r](const JsonScope &in, FleetNode *n) { return r.node(in, n); },
            error);
}

std::optional<QList<FleetJob>> parseJobs(const QByteArray &json, JsonError *error)
{
    SlurmReader r;
    return r.readList<FleetJob>(
            json,
            QStringLiteral("jobs"),
            [&r](const JsonScope &in, FleetJob *j) { return r.job(in, j); },
            error);
}

std::optional<QList<FleetPartition>> parsePartitions(const QByteArray &json, JsonError *error)
{
    SlurmReader r;
    return r.readList<FleetPartition>(
            json,
            QStringLiteral("partitions"),
            [&r](const JsonScope &in, FleetPartition *p) { return r.partition(in, p); },
            error);
}

std::optional<QList<FleetReservation>> parseReservations(const QByteArray &json, JsonError *error)
{
    SlurmReader r;
    return r.readList<FleetReservation>(
            json,
            QStringLiteral("reservations"),
            [&r](const JsonScope &in, FleetReservation *v) { return r.reservation(in, v); },
            error);
}

std::optional<QList<FleetQos>> parseQos(const QByteArray &json, JsonError *error)
{
    SlurmReader r;
    return r.readList<FleetQos>(
            json,
            QStringLiteral("QOS"),
            [&r](const JsonScope &in, FleetQos *q) { return r.qos(in, q); },
            error);
}

std::optional<qint64> parseSubmitResponse(const QByteArray &json, JsonError *error)
{
    const std::optional<QJsonObject> root = Domain::parseJsonObject(json, error);
    if (!root)
        return std::nullopt;
    SlurmReader r;
    const QStringList errors = slurmErrors(*root);
    qint64 id = 0;
    if (!errors.isEmpty()) {
        r.fail(QStringLiteral("errors"),
               QStringLiteral("Slurm refused the job: ") + errors.join(QStringLiteral("; ")));
    } else {
        r.readInteger(JsonScope{*root, QString()},
                      QStringLiteral("job_id"),
                      1,
                      kMaxCount,
                      &id,
                      JsonReader::Presence::Required);
    }
    if (r.failed()) {
        if (error)
            *error = r.error();
        return std::nullopt;
    }
    return id;
}

} // namespace Zhaoxi::Fleet
