// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "audit.h"
#include "peer.h"

#include "core/session/session.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>

#include <memory>

namespace Zhaoxi::Models {
class SessionClient;
}

namespace Zhaoxi::Service {

// The embedded console's operator audit (a console without a service: the demo, a console on a
// box with no zhaoxid). Every change its user asks for through `client` (SessionClient's
// changeAsked), done or refused, becomes the same operator event the service records for a
// client of its API: source operator, the actor (this process's user), what was asked, the
// before/after, hash-chained in the session's store (AuditTrail). A console attached to a
// service needs none: the service audits what it is asked.
//
// Threads: the client's (the GUI's). The store's appends are thread-safe; nothing else of the
// session is touched.
class ConsoleAudit : public QObject
{
    Q_OBJECT

public:
    // Continues the chain of `store` (the session's eventStore(), which must outlive this).
    // nullptr with an English *error when the store's chain cannot be read.
    static std::unique_ptr<ConsoleAudit> attach(Models::SessionClient &client,
                                                Storage::Store &store,
                                                QString *error);
    ~ConsoleAudit() override;

    // Who the events name; by default this process's user.
    void setActor(const Peer &peer) { m_peer = peer; }

Q_SIGNALS:
    // An operator event was recorded (the console's event log shows it at once).
    void recorded(const QList<Zhaoxi::Storage::Event> &events);

private:
    ConsoleAudit(Models::SessionClient &client, Storage::Store &store, QByteArray head);
    struct Asked
    {
        QString command;
        QJsonObject arguments;
        QJsonObject before;
        int card = -1;
        int job = -1;
    };
    void onAsked(quint64 request, const QString &command, const QJsonObject &arguments);
    void onFinished(const Session::CommandResult &result);
    QJsonObject scheduleInForce() const;

    Models::SessionClient &m_client;
    AuditTrail m_trail;
    Peer m_peer;
    QHash<quint64, Asked> m_asked;
    QJsonObject m_schedule; // the last schedule set that was taken
};

} // namespace Zhaoxi::Service
