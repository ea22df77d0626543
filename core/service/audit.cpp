// SPDX-License-Identifier: GPL-3.0-or-later
#include "audit.h"

#include "core/storage/store.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QJsonParseError>

#include <algorithm>

namespace Zhaoxi::Service {

namespace {

constexpr char kVersion[] = "zhaoxi-audit-1";

Storage::EventFilter operatorEvents()
{
    Storage::EventFilter f;
    f.sources = {Storage::Source::Operator};
    return f;
}

} // namespace

QByteArray AuditTrail::hashOf(const Storage::Event &e, const QJsonObject &params)
{
    QByteArray line = kVersion;
    line += '\n' + QByteArray::number(e.atMs) + '\n' + QByteArray::number(int(e.severity)) + '\n'
            + e.code + '\n' + QByteArray::number(e.card) + '\n' + QByteArray::number(e.partition)
            + '\n' + QByteArray::number(e.job) + '\n' + e.actor.toUtf8() + '\n'
            + QJsonDocument(params).toJson(QJsonDocument::Compact);
    return QCryptographicHash::hash(line, QCryptographicHash::Sha256).toHex();
}

bool AuditTrail::headOf(Storage::Reader &reader, QByteArray *head, QString *error)
{
    // The newest by id: operator events are few next to the others, so all are read.
    qint64 lastId = -1;
    QByteArray last;
    const bool ok = reader.forEachEvent(
            operatorEvents(),
            [&](const Storage::Event &e) {
                if (e.id > lastId) {
                    lastId = e.id;
                    last = e.params;
                }
                return true;
            },
            error);
    if (!ok)
        return false;
    *head = lastId < 0 ? QByteArray()
                       : QJsonDocument::fromJson(last)
                                 .object()
                                 .value(QStringLiteral("hash"))
                                 .toString()
                                 .toLatin1();
    return true;
}

AuditTrail::AuditTrail(Storage::Store &store, QByteArray head)
    : m_store(store)
    , m_head(std::move(head))
{}

qint64 AuditTrail::record(Storage::Event event, QJsonObject params)
{
    event.source = Storage::Source::Operator;
    params.remove(QStringLiteral("hash"));
    params.insert(QStringLiteral("prev"), QString::fromLatin1(m_head));
    const QByteArray hash = hashOf(event, params);
    params.insert(QStringLiteral("hash"), QString::fromLatin1(hash));
    event.params = QJsonDocument(params).toJson(QJsonDocument::Compact);
    m_head = hash;
    return m_store.append(std::move(event));
}

bool AuditTrail::verify(Storage::Reader &reader, Verdict *verdict, QString *error)
{
    QList<Storage::Event> events;
    if (!reader.forEachEvent(
                operatorEvents(),
                [&](const Storage::Event &e) {
                    events.append(e);
                    return true;
                },
                error))
        return false;
    // Append order is id order (the rows come by time; a clock set back must not look broken).
    std::sort(events.begin(), events.end(), [](const Storage::Event &a, const Storage::Event &b) {
        return a.id < b.id;
    });
    *verdict = Verdict{};
    QByteArray prev;
    for (const Storage::Event &e : events) {
        ++verdict->events;
        QJsonParseError perr{};
        const QJsonDocument doc = QJsonDocument::fromJson(e.params, &perr);
        QString problem;
        QJsonObject params = doc.object();
        const QByteArray hash = params.value(QStringLiteral("hash")).toString().toLatin1();
        params.remove(QStringLiteral("hash"));
        const QByteArray link = params.value(QStringLiteral("prev")).toString().toLatin1();
        if (perr.error != QJsonParseError::NoError || !doc.isObject())
            problem = QStringLiteral("its parameters are not a JSON object");
        else if (hash.isEmpty())
            problem = QStringLiteral("it carries no hash");
        else if (link != prev)
            problem = QStringLiteral("it does not follow the event before it (an event was "
                                     "removed or inserted before it)");
        else if (hashOf(e, params) != hash)
            problem = QStringLiteral("its content does not match its hash (it was changed)");
        if (!problem.isEmpty()) {
            verdict->intact = false;
            verdict->brokenAt = e.id;
            verdict->problem = problem;
            return true;
        }
        prev = hash;
    }
    return true;
}

} // namespace Zhaoxi::Service
