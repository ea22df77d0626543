// SPDX-License-Identifier: GPL-3.0-or-later
#include "consoleaudit.h"

#include "protocol.h"

#include "core/models/sessionclient.h"
#include "core/storage/store.h"

#include <QDateTime>
#include <QJsonDocument>

#include <unistd.h>

namespace Zhaoxi::Service {

std::unique_ptr<ConsoleAudit> ConsoleAudit::attach(Models::SessionClient &client,
                                                   Storage::Store &store,
                                                   QString *error)
{
    const std::unique_ptr<Storage::Reader> reader = store.reader(error);
    QByteArray head;
    if (!reader || !AuditTrail::headOf(*reader, &head, error))
        return nullptr;
    return std::unique_ptr<ConsoleAudit>(new ConsoleAudit(client, store, head));
}

ConsoleAudit::ConsoleAudit(Models::SessionClient &client, Storage::Store &store, QByteArray head)
    : m_client(client)
    , m_trail(store, std::move(head))
{
    m_peer.pid = ::getpid();
    m_peer.uid = ::getuid();
    m_peer.gid = ::getgid();
    m_peer.login = loginOf(m_peer.uid);
    connect(&client, &Models::SessionClient::changeAsked, this, &ConsoleAudit::onAsked);
    connect(&client, &Models::SessionClient::commandFinished, this, &ConsoleAudit::onFinished);
}

ConsoleAudit::~ConsoleAudit() = default;

QJsonObject ConsoleAudit::scheduleInForce() const
{
    return scheduleInForceJson(m_schedule, m_client.snapshot().get());
}

void ConsoleAudit::onAsked(quint64 request, const QString &command, const QJsonObject &arguments)
{
    Asked a;
    a.command = command;
    a.arguments = arguments;
    a.card = arguments.value(QStringLiteral("card")).toInt(-1);
    a.job = arguments.value(QStringLiteral("job")).toInt(-1);
    if (command == QLatin1String("place"))
        a.card = -1; // the subject is the job; where it went is in "after"
    if (const Session::SnapshotPtr &s = m_client.snapshot())
        a.before = subjectStateJson(*s, command, a.card, a.job, scheduleInForce());
    m_asked.insert(request, a);
}

void ConsoleAudit::onFinished(const Session::CommandResult &r)
{
    const auto it = m_asked.find(r.request);
    if (it == m_asked.end())
        return; // not a change (or asked before this audit was attached)
    const Asked a = *it;
    m_asked.erase(it);
    const int job = r.job.isValid() ? r.job.value() : a.job;
    if (r.ok && a.command == QLatin1String("schedule-set"))
        m_schedule = a.arguments.value(QStringLiteral("schedule")).toObject();
    const Session::SnapshotPtr &s = m_client.snapshot();
    QJsonObject params = changeAuditParams(
            a.arguments,
            a.before,
            s ? subjectStateJson(*s, a.command, a.card, job, scheduleInForce()) : QJsonObject(),
            r);
    params.insert(QStringLiteral("uid"), m_peer.uid);
    params.insert(QStringLiteral("pid"), m_peer.pid);
    params.insert(QStringLiteral("wall_ms"), QDateTime::currentMSecsSinceEpoch());
    params.insert(QStringLiteral("via"), QStringLiteral("console"));
    // On the appliance's clock, like the session's own events.
    Storage::Event e;
    e.atMs = s ? s->nowMs : QDateTime::currentMSecsSinceEpoch();
    e.severity = r.ok ? Storage::Severity::Info : Storage::Severity::Warning;
    e.code = "operator-" + a.command.toLatin1();
    e.card = a.card;
    e.job = job;
    e.actor = m_peer.login;
    e.id = m_trail.record(e, params);
    e.source = Storage::Source::Operator;
    e.params = QJsonDocument(params).toJson(QJsonDocument::Compact);
    Q_EMIT recorded({e});
}

} // namespace Zhaoxi::Service
