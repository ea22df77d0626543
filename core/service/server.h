// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "consolecodec.h"
#include "peer.h"

#include "core/session/session.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QPointer>

#include <functional>
#include <memory>

class QLocalServer;
class QLocalSocket;

namespace Zhaoxi::Storage {
class Reader;
}

namespace Zhaoxi::Service {

class AuditTrail;

struct ServerOptions
{
    QString socketPath;
    // The socket file's mode: 0666 lets every local user read the appliance (changes still need
    // the group); 0660 hides it from users outside the group.
    int socketMode = 0666;
    QString operatorGroup = QStringLiteral("zhaoxi"); // members and root may change things
    // A client's unsent output beyond this: pushes to it are skipped; beyond four times this it
    // is disconnected (it stopped reading). Nobody else waits for it either way.
    qint64 maxQueuedBytes = 8 << 20;
    // The wall clock, UTC epoch ms (audit times). Empty: the system's.
    std::function<qint64()> clock;
};

// The appliance's API on a Unix socket (protocol.h, docs/service.md): every command the
// console's SessionClient sends, reads of the state and the event log, and subscriptions to
// snapshots and events. Each request's author is the socket's peer (SO_PEERCRED): root and
// members of the operator group may change things; anyone else who can open the socket may only
// read. Every change asked for (done or refused) is an operator event in the session's store with
// the actor, what was asked and the before/after, hash-chained (AuditTrail), and is answered only
// once it and the session's state are committed.
//
// Malformed, oversized (over kMaxMessageBytes) or unknown messages get an error answer naming
// the problem; the connection stays usable. A slow client's output is bounded (ServerOptions).
//
// Threads: the session's (the service runs both on its main thread).
class Server : public QObject
{
    Q_OBJECT

public:
    Server(Session::ApplianceSession &session, ServerOptions options, QObject *parent = nullptr);
    ~Server() override;

    // Listens at options.socketPath (a stale socket file is replaced; a live one, another
    // service's, is refused), with the configured mode. False with an English *error.
    bool listen(QString *error);
    // Stops taking changes (answers "unavailable") and new connections: the service's SIGTERM.
    // Reads still work until the server is destroyed.
    void stopTakingChanges();
    int clientCount() const { return int(m_clients.size()); }
    qint64 requestsAnswered() const { return m_answered; }
    QString socketPath() const { return m_options.socketPath; }

Q_SIGNALS:
    void clientCountChanged(int count);

private:
    struct Client;
    struct Pending
    {
        QPointer<QLocalSocket> socket;
        QJsonValue id;
        QString command;
        QJsonObject asked;
        QJsonObject before;
        Peer peer;
        int card = -1; // the subject, for the audit event
        int job = -1;
    };

    void onConnection();
    void onReadable(QLocalSocket *socket);
    void onLine(Client &client, const QByteArray &line);
    void dispatch(Client &client,
                  const QJsonValue &id,
                  const QString &command,
                  const QJsonObject &request);
    void reply(QLocalSocket *socket, const QJsonObject &answer);
    // False when it was not queued (a droppable push to a client that is behind).
    bool send(Client &client, const QByteArray &bytes, bool droppable);
    void onSnapshot(const Session::SnapshotPtr &snapshot);
    void pushConsole(Client &client, const QByteArray &picture);
    static constexpr qsizetype kMaxConsoleBacklog = 20'000; // events kept for a console
    PictureCache m_pictureCache; // the consoles' pictures' store documents

    // Changes: checked, audited when refused, then handed to the session.
    void change(Client &client,
                const QJsonValue &id,
                const QString &command,
                const QJsonObject &request);
    void refuse(Client &client,
                const QJsonValue &id,
                const QString &command,
                const QJsonObject &request,
                const char *code,
                const QString &why);
    void finish(quint64 request, const Session::CommandResult &result);
    QJsonObject subjectState(const QString &command, int card, int job) const;
    quint64 nextRequest() { return ++m_request; }
    void audit(const Peer &peer,
               const QString &command,
               Storage::Severity severity,
               int card,
               int job,
               QJsonObject params);
    Storage::Reader *reader(QString *error);
    QJsonObject scheduleInForce() const;

    Session::ApplianceSession &m_session;
    ServerOptions m_options;
    QLocalServer *m_server = nullptr;
    QHash<QLocalSocket *, std::shared_ptr<Client>> m_clients;
    QHash<quint64, Pending> m_pending;      // changes awaiting the session's answer
    QHash<quint64, Pending> m_pendingReads; // previews and logs awaiting theirs
    std::unique_ptr<AuditTrail> m_audit;
    std::unique_ptr<Storage::Reader> m_reader;
    QString m_auditError;   // why changes cannot be audited (then they are refused)
    QJsonObject m_schedule; // the windows schedule set through the API (and kept in the store)
    static constexpr int kRefusalBurst = 20; // refusals recorded per user and minute
    struct RefusalBudget
    {
        double tokens = kRefusalBurst;
        qint64 atMs = 0;
        qint64 suppressed = 0; // refusals not recorded since the last one that was
        bool announced = false;
    };
    QHash<qint64, RefusalBudget> m_refusals; // by uid
    quint64 m_request = 0;
    qint64 m_answered = 0;
    bool m_takingChanges = true;
};

} // namespace Zhaoxi::Service
