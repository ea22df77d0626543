// SPDX-License-Identifier: GPL-3.0-or-later
#include "server.h"
#include "server_p.h"

#include "audit.h"
#include "consolecodec.h"
#include "protocol.h"

#include "core/catalogue/layoutrules.h"
#include "core/domain/jsonreader.h"
#include "core/models/serieshistory.h"
#include "core/storage/store.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocalServer>
#include <QLocalSocket>
#include <QTimer>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include <sys/stat.h>
#include <unistd.h>

namespace Zhaoxi::Service {

using Session::CommandResult;
using Session::SnapshotPtr;

namespace {

constexpr qint64 kMaxLogBytes = 512 * 1024; // a job-log answer stays well inside one message
constexpr int kMaxEvents = 10000;

} // namespace

Server::Server(Session::ApplianceSession &session, ServerOptions options, QObject *parent)
    : QObject(parent)
    , m_session(session)
    , m_options(std::move(options))
{
    if (!m_options.clock)
        m_options.clock = [] { return QDateTime::currentMSecsSinceEpoch(); };
    connect(&m_session, &Session::ApplianceSession::snapshotReady, this, &Server::onSnapshot);
    connect(&m_session,
            &Session::ApplianceSession::commandFinished,
            this,
            [this](const CommandResult &r) {
                if (!m_pending.contains(r.request))
                    return; // another client's (the embedded console's) command
                // After the session has published what the command did: the audit's "after".
                QTimer::singleShot(0, this, [this, r] { finish(r.request, r); });
            });
    connect(&m_session,
            &Session::ApplianceSession::placementPreviewReady,
            this,
            [this](const Session::PlacementPreview &p) {
                const Pending q = m_pendingReads.take(p.request);
                if (q.socket) {
                    const SnapshotPtr s = m_session.latest();
                    reply(q.socket,
                          okAnswer(q.id, placementPreviewJson(p, s ? &s->state : nullptr)));
                }
            });
    connect(&m_session,
            &Session::ApplianceSession::layoutPreviewReady,
            this,
            [this](const Session::LayoutPreview &p) {
                const Pending q = m_pendingReads.take(p.request);
                if (!q.socket)
                    return;
                const SnapshotPtr s = m_session.latest();
                const Domain::CardModel *model = nullptr;
                if (s && p.card.isValid() && p.card.value() < s->state.cards().size())
                    model = &s->state.catalogue().models()[s->state.card(p.card).model];
                reply(q.socket, okAnswer(q.id, layoutPreviewJson(p, model)));
            });
    connect(&m_session,
            &Session::ApplianceSession::schedulePreviewReady,
            this,
            [this](const Session::SchedulePreview &p) {
                const Pending q = m_pendingReads.take(p.request);
                if (q.socket)
                    reply(q.socket, okAnswer(q.id, schedulePreviewJson(p)));
            });
    connect(&m_session,
            &Session::ApplianceSession::jobLogReady,
            this,
            [this](const Session::JobLog &l) {
                const Pending q = m_pendingReads.take(l.request);
                if (q.socket)
                    reply(q.socket, okAnswer(q.id, jobLogJson(l)));
            });
}

Server::~Server()
{
    for (const auto &c : std::as_const(m_clients)) {
        c->socket->disconnect(this);
        c->socket->abort();
    }
}

bool Server::listen(QString *error)
{
    const QString path = m_options.socketPath;
    if (path.isEmpty()) {
        *error = QStringLiteral("no socket path");
        return false;
    }
    const QFileInfo fi(path);
    if (!QDir().mkpath(fi.absolutePath())) {
        *error = QStringLiteral("cannot create the directory %1").arg(fi.absolutePath());
        return false;
    }
    struct stat st
    {};
    if (::lstat(QFile::encodeName(path).constData(), &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            *error = QStringLiteral("%1 exists and is not a socket: not replacing it").arg(path);
            return false;
        }
        QLocalSocket probe;
        probe.connectToServer(path);
        if (probe.waitForConnected(500)) {
            *error = QStringLiteral("another service is listening at %1").arg(path);
            return false;
        }
        QLocalServer::removeServer(path); // a stale socket of a service that died
    }

    // The audit trail continues the store's chain; without a store no change can be audited,
    // so none is taken.
    if (Storage::Store *store = m_session.eventStore()) {
        QString why;
        QByteArray head;
        if (Storage::Reader *r = reader(&why); r && AuditTrail::headOf(*r, &head, &why)) {
            m_audit = std::make_unique<AuditTrail>(*store, head);
            if (const auto doc = r->state(QString::fromLatin1(Storage::StateKey::Windows), &why))
                m_schedule = QJsonDocument::fromJson(*doc).object();
        } else {
            m_auditError = QStringLiteral("the audit trail cannot be read: %1").arg(why);
        }
    } else {
        m_auditError = QStringLiteral("the appliance has no store to audit changes into");
    }

    m_server = new QLocalServer(this);
    m_server->setSocketOptions(QLocalServer::UserAccessOption);
    if (!m_server->listen(path)) {
        *error = QStringLiteral("cannot listen at %1: %2").arg(path, m_server->errorString());
        return false;
    }
    const QByteArray native = QFile::encodeName(m_server->fullServerName());
    if (const std::optional<qint64> gid = groupId(m_options.operatorGroup)) {
        if (::chown(native.constData(), uid_t(-1), gid_t(*gid)) != 0
            && (m_options.socketMode & 070))
            qWarning("zhaoxid: cannot give the socket to group %s: %s",
                     qPrintable(m_options.operatorGroup),
                     std::strerror(errno));
    }
    if (::chmod(native.constData(), mode_t(m_options.socketMode)) != 0) {
        *error = QStringLiteral("cannot set the mode of %1: %2")
                         .arg(path, QString::fromLocal8Bit(std::strerror(errno)));
        m_server->close();
        return false;
    }
    connect(m_server, &QLocalServer::newConnection, this, &Server::onConnection);
    return true;
}

void Server::stopTakingChanges()
{
    m_takingChanges = false;
    if (m_server)
        m_server->close();
}

Storage::Reader *Server::reader(QString *error)
{
    if (!m_reader) {
        Storage::Store *store = m_session.eventStore();
        if (!store) {
            *error = QStringLiteral("the appliance has no store");
            return nullptr;
        }
        m_reader = store->reader(error);
    }
    return m_reader.get();
}

void Server::onConnection()
{
    while (QLocalSocket *socket = m_server->nextPendingConnection()) {
        QString why;
        const std::optional<Peer> peer = peerOf(socket->socketDescriptor(), &why);
        if (!peer) {
            qWarning("zhaoxid: refusing a connection: %s", qPrintable(why));
            socket->abort();
            socket->deleteLater();
            continue;
        }
        auto c = std::make_shared<Client>();
        c->socket = socket;
        c->peer = *peer;
        c->role = roleOf(*peer, m_options.operatorGroup);
        m_clients.insert(socket, c);
        connect(socket, &QLocalSocket::readyRead, this, [this, socket] { onReadable(socket); });
        connect(socket, &QLocalSocket::disconnected, this, [this, socket] {
            m_clients.remove(socket);
            socket->deleteLater();
            Q_EMIT clientCountChanged(clientCount());
        });
        Q_EMIT clientCountChanged(clientCount());
        if (socket->bytesAvailable() > 0)
            onReadable(socket);
    }
}

void Server::onReadable(QLocalSocket *socket)
{
    const auto it = m_clients.find(socket);
    if (it == m_clients.end())
        return;
    const std::shared_ptr<Client> client = *it; // kept alive while its lines are handled
    const QByteArray data = socket->readAll();
    qsizetype from = 0;
    while (from < data.size()) {
        const qsizetype nl = data.indexOf('\n', from);
        const qsizetype end = nl < 0 ? data.size() : nl;
        if (client->discarding) {
            if (nl >= 0)
                client->discarding = false; // the oversized line ends here
        } else {
            client->buffer.append(data.constData() + from, end - from);
            if (client->buffer.size() > kMaxMessageBytes) {
                client->buffer.clear();
                client->discarding = nl < 0;
                reply(socket,
                      errorAnswer(QJsonValue(),
                                  Code::Malformed,
                                  QStringLiteral("a message is over %1 bytes; it was dropped")
                                          .arg(kMaxMessageBytes)));
            } else if (nl >= 0) {
                const QByteArray line = std::exchange(client->buffer, {});
                onLine(*client, line);
                if (!m_clients.contains(socket))
                    return; // disconnected while answering
            }
        }
        from = end + 1;
    }
}

void Server::onLine(Client &client, const QByteArray &line)
{
    if (line.trimmed().isEmpty())
        return;
    QJsonParseError perr{};
    const QJsonDocument doc = QJsonDocument::fromJson(line, &perr);
    if (perr.error != QJsonParseError::NoError) {
        reply(client.socket,
              errorAnswer(QJsonValue(),
                          Code::Malformed,
                          QStringLiteral("not JSON: %1 at byte %2")
                                  .arg(perr.errorString())
                                  .arg(perr.offset)));
        return;
    }
    if (!doc.isObject()) {
        reply(client.socket,
              errorAnswer(QJsonValue(),
                          Code::Malformed,
                          QStringLiteral("a message must be a JSON object")));
        return;
    }
    const QJsonObject request = doc.object();
    const QJsonValue id = request.value(QStringLiteral("id"));
    const QJsonValue cmd = request.value(QStringLiteral("cmd"));
    if (!cmd.isString()) {
        reply(client.socket,
              errorAnswer(id,
                          Code::BadArgument,
                          QStringLiteral("\"cmd\" must be a command name"),
                          QStringLiteral("cmd")));
        return;
    }
    const CommandInfo *info = findCommand(cmd.toString());
    if (!info) {
        QStringList names;
        for (const CommandInfo &c : commands())
            names << QLatin1String(c.name);
        const QString near = Domain::closestKey(cmd.toString(), names);
        reply(client.socket,
              errorAnswer(
                      id,
                      Code::UnknownCommand,
                      QStringLiteral("unknown command \"%1\"%2")
                              .arg(cmd.toString().left(64),
                                   near.isEmpty()
                                           ? QString()
                                           : QStringLiteral(" (did you mean \"%1\"?)").arg(near)),
                      QStringLiteral("cmd")));
        return;
    }
    if (info->changes)
        change(client, id, cmd.toString(), request);
    else
        dispatch(client, id, cmd.toString(), request);
}

void Server::reply(QLocalSocket *socket, const QJsonObject &answer)
{
    const auto it = m_clients.find(socket);
    if (it == m_clients.end())
        return;
    ++m_answered;
    send(**it, encodeLine(answer), false);
}

bool Server::send(Client &client, const QByteArray &bytes, bool droppable)
{
    const qint64 queued = client.socket->bytesToWrite();
    if (droppable && queued > m_options.maxQueuedBytes)
        return false; // it reads slower than pushes come: it gets the next one it can take
    if (queued > 4 * m_options.maxQueuedBytes) {
        // It stopped reading: its buffer would grow without bound. Others never wait for it.
        qWarning("zhaoxid: disconnecting %s (pid %lld): it stopped reading its answers",
                 qPrintable(client.peer.login),
                 client.peer.pid);
        client.socket->abort();
        return false;
    }
    client.socket->write(bytes);
    return true;
}

QJsonObject Server::scheduleInForce() const
{
    return scheduleInForceJson(m_schedule, m_session.latest().get());
}

void Server::dispatch(Client &client,
                      const QJsonValue &id,
                      const QString &command,
                      const QJsonObject &request)
{
    QString why;
    const SnapshotPtr s = m_session.latest();
    auto needSnapshot = [&]() {
        if (!s)
            reply(client.socket,
                  errorAnswer(id,
                              Code::Unavailable,
                              QStringLiteral("the appliance has not published its state yet")));
        return bool(s);
    };
    auto bad = [&](const QString &field) {
        reply(client.socket, errorAnswer(id, Code::BadArgument, why, field));
    };

    if (command == QLatin1String("hello")) {
        if (request.value(QStringLiteral("client")).isString())
            client.name = request.value(QStringLiteral("client")).toString().left(64);
        reply(client.socket,
              okAnswer(
                      id,
                      {{QStringLiteral("service"), QStringLiteral("zhaoxid")},
                       {QStringLiteral("protocol"), kProtocolVersion},
                       {QStringLiteral("user"), client.peer.login},
                       {QStringLiteral("uid"), client.peer.uid},
                       {QStringLiteral("role"), QLatin1String(toString(client.role))},
                       {QStringLiteral("operator_group"), m_options.operatorGroup},
                       {QStringLiteral("appliance"), s ? s->applianceName : QString()},
                       // The event store, for clients on this machine that may read it (exports).
                       {QStringLiteral("store"),
                        m_session.eventStore() ? m_session.eventStore()->path() : QString()},
                       {QStringLiteral("taking_changes"), m_takingChanges && m_audit != nullptr}}));
    } else if (command == QLatin1String("help")) {
        QJsonArray list;
        for (const CommandInfo &c : commands())
            list.append(QJsonObject{{QStringLiteral("cmd"), QLatin1String(c.name)},
                                    {QStringLiteral("changes"), c.changes},
                                    {QStringLiteral("arguments"), QLatin1String(c.synopsis)}});
        reply(client.socket, okAnswer(id, {{QStringLiteral("commands"), list}}));
    } else if (command == QLatin1String("snapshot")) {
        if (needSnapshot())
            reply(client.socket,
                  okAnswer(id, snapshotJson(*s, request.value(QStringLiteral("state")).toBool())));
    } else if (command == QLatin1String("cards")) {
        if (needSnapshot())
            reply(client.socket,
                  okAnswer(id,
                           {{QStringLiteral("now_ms"), s->nowMs},
                            {QStringLiteral("cards"), cardsJson(*s)}}));
    } else if (command == QLatin1String("jobs")) {
        if (needSnapshot()) {
            QJsonArray queue;
            for (Domain::JobId j : s->queue)
                queue.append(j.value());
            reply(client.socket,
                  okAnswer(id,
                           {{QStringLiteral("now_ms"), s->nowMs},
                            {QStringLiteral("jobs"), jobsJson(*s)},
                            {QStringLiteral("queue"), queue}}));
        }
    } else if (command == QLatin1String("events")) {
        Storage::EventFilter f;
        const auto after = intArgument(request, QStringLiteral("after_id"), &why, -1);
        if (!after)
            return bad(QStringLiteral("after_id"));
        const auto last = intArgument(request, QStringLiteral("last"), &why, -1);
        if (!last)
            return bad(QStringLiteral("last"));
        const auto limit = intArgument(request, QStringLiteral("limit"), &why, 1000);
        if (!limit || *limit < 0) {
            why = why.isEmpty() ? QStringLiteral("\"limit\" must not be negative") : why;
            return bad(QStringLiteral("limit"));
        }
        if (*after >= 0)
            f.afterId = *after;
        f.newestFirst = *last >= 0;
        f.limit = std::min<qint64>(*last >= 0 ? *last : *limit, kMaxEvents);
        Storage::Reader *r = reader(&why);
        QList<Storage::Event> events;
        if (!r
            || !r->forEachEvent(
                    f,
                    [&](const Storage::Event &e) {
                        events.append(e);
                        return true;
                    },
                    &why)) {
            reply(client.socket,
                  errorAnswer(id,
                              Code::Unavailable,
                              QStringLiteral("the event log cannot be read: %1").arg(why)));
            return;
        }
        if (f.newestFirst)
            std::reverse(events.begin(), events.end());
        QJsonArray list;
        qint64 lastId = *after;
        for (const Storage::Event &e : events) {
            list.append(eventJson(e));
            lastId = std::max(lastId, e.id);
        }
        reply(client.socket,
              okAnswer(id,
                       {{QStringLiteral("events"), list}, {QStringLiteral("last_id"), lastId}}));
    } else if (command == QLatin1String("history")) {
        if (!needSnapshot())
            return;
        const auto to = intArgument(request, QStringLiteral("to_ms"), &why, s->nowMs);
        if (!to)
            return bad(QStringLiteral("to_ms"));
        const qint64 horizonMs = qint64(Models::SeriesStore::kDefaultHorizonSeconds * 1000.0);
        const auto from = intArgument(request, QStringLiteral("from_ms"), &why, *to - horizonMs);
        if (!from)
            return bad(QStringLiteral("from_ms"));
        if (*from > *to) {
            why = QStringLiteral("\"from_ms\" is later than \"to_ms\"");
            return bad(QStringLiteral("from_ms"));
        }
        Storage::Reader *r = reader(&why);
        QList<Models::HistorySeries> history;
        if (!r
            || !Models::readSeriesHistory(
                    *r, *from, *to, Models::wholeUnitsOf(s->state), &history, &why)) {
            reply(client.socket,
                  errorAnswer(id,
                              Code::Unavailable,
                              QStringLiteral("the stored series cannot be read: %1").arg(why)));
            return;
        }
        reply(client.socket,
              okAnswer(id,
                       {{QStringLiteral("from_ms"), *from},
                        {QStringLiteral("to_ms"), *to},
                        {QStringLiteral("series"), Models::historyJson(history)}}));
    } else if (command == QLatin1String("subscribe")) {
        const auto interval = intArgument(request, QStringLiteral("interval_ms"), &why, 100);
        if (!interval)
            return bad(QStringLiteral("interval_ms"));
        client.snapshots = request.value(QStringLiteral("snapshots")).toBool(true);
        client.events = request.value(QStringLiteral("events")).toBool(false);
        client.withState = request.value(QStringLiteral("state")).toBool(false);
        client.console = request.value(QStringLiteral("console")).toBool(false);
        client.intervalMs = int(std::clamp<qint64>(*interval, 50, 60'000));
        client.lastPushMs = 0;
        reply(client.socket, okAnswer(id, {{QStringLiteral("interval_ms"), client.intervalMs}}));
        if (client.console) {
            // The first picture carries the recent past: the last stored events and every job's
            // latest decision, so the console's log and "why" are not empty on attaching.
            client.snapshots = true;
            client.consoleEvents.clear();
            client.consoleTraces.clear();
            const auto history = intArgument(request, QStringLiteral("history"), &why, 2000);
            if (!history || *history < 0) {
                why = why.isEmpty() ? QStringLiteral("\"history\" must not be negative") : why;
                return bad(QStringLiteral("history"));
            }
            Storage::EventFilter f;
            f.newestFirst = true;
            f.limit = std::min<qint64>(*history, kMaxEvents);
            if (Storage::Reader *r = f.limit > 0 ? reader(&why) : nullptr) {
                r->forEachEvent(
                        f,
                        [&](const Storage::Event &e) {
                            client.consoleEvents.prepend(e);
                            return true;
                        },
                        &why);
            }
            for (const Sched::DecisionTrace &t : m_session.latestTraces())
                client.consoleTraces.insert(t.job.value(), t);
            if (s)
                pushConsole(client, consolePicture(*s, &m_pictureCache));
        } else if (client.snapshots && s) {
            client.lastPushMs = m_options.clock();
            send(client,
                 encodeLine({{QStringLiteral("push"), QStringLiteral("snapshot")},
                             {QStringLiteral("snapshot"), snapshotJson(*s, client.withState)}}),
                 false);
        }
    } else if (command == QLatin1String("unsubscribe")) {
        client.snapshots = client.events = false;
        reply(client.socket, okAnswer(id, {}));
    } else if (command == QLatin1String("schedule-get")) {
        reply(client.socket, okAnswer(id, scheduleInForce()));
    } else if (command == QLatin1String("audit-verify")) {
        Storage::Reader *r = reader(&why);
        AuditTrail::Verdict v;
        if (!r || !AuditTrail::verify(*r, &v, &why)) {
            reply(client.socket,
                  errorAnswer(id,
                              Code::Unavailable,
                              QStringLiteral("the audit trail cannot be read: %1").arg(why)));
            return;
        }
        reply(client.socket,
              okAnswer(id,
                       {{QStringLiteral("intact"), v.intact},
                        {QStringLiteral("events"), v.events},
                        {QStringLiteral("broken_at"),
                         v.brokenAt >= 0 ? QJsonValue(v.brokenAt) : QJsonValue()},
                        {QStringLiteral("problem"), v.problem}}));
    } else if (command == QLatin1String("preview-schedule")) {
        const QJsonValue schedule = request.value(QStringLiteral("schedule"));
        if (!schedule.isObject()) {
            why = QStringLiteral("must be the windows policy's parameters (a JSON object)");
            return bad(QStringLiteral("schedule"));
        }
        Pending p;
        p.socket = client.socket;
        p.id = id;
        p.command = command;
        const quint64 req = nextRequest();
        m_pendingReads.insert(req, p);
        m_session.previewSchedule(req, schedule.toObject());
    } else {
        // Reads the session answers by a signal: job-log, preview-placement, preview-layout.
        const auto job
                = intArgument(request,
                              QStringLiteral("job"),
                              &why,
                              command == QLatin1String("preview-layout") ? std::optional<qint64>(-1)
                                                                         : std::nullopt);
        if (!job)
            return bad(QStringLiteral("job"));
        const quint64 req = nextRequest();
        Pending p;
        p.socket = client.socket;
        p.id = id;
        p.command = command;
        if (command == QLatin1String("job-log")) {
            const auto bytes = intArgument(request, QStringLiteral("max_bytes"), &why, 64 * 1024);
            if (!bytes || *bytes <= 0) {
                why = why.isEmpty() ? QStringLiteral("\"max_bytes\" must be positive") : why;
                return bad(QStringLiteral("max_bytes"));
            }
            m_pendingReads.insert(req, p);
            m_session.requestJobLog(req, int(*job), std::min(*bytes, kMaxLogBytes));
            return;
        }
        const auto card = intArgument(request, QStringLiteral("card"), &why);
        if (!card)
            return bad(QStringLiteral("card"));
        if (command == QLatin1String("preview-placement")) {
            m_pendingReads.insert(req, p);
            m_session.previewPlacement(req, int(*job), int(*card));
            return;
        }
        int which = -1;
        QList<Domain::MigPlacement> layout;
        QString field;
        if (!cardLayoutArguments(request, s.get(), &which, &layout, &why, &field))
            return bad(field);
        m_pendingReads.insert(req, p);
        m_session.previewLayout(req, which, layout);
    }
}

void Server::onSnapshot(const SnapshotPtr &s)
{
    if (!s)
        return;
    const qint64 now = m_options.clock();
    QByteArray lines[2];
    QByteArray events;
    QByteArray picture; // written once, for every console due
    for (const auto &c : std::as_const(m_clients)) {
        if (c->console) {
            c->consoleEvents += s->events;
            for (const Sched::DecisionTrace &t : s->traces)
                c->consoleTraces.insert(t.job.value(), t);
            // A console that stops reading keeps a bounded backlog: the oldest events go.
            if (c->consoleEvents.size() > kMaxConsoleBacklog)
                c->consoleEvents.remove(0, c->consoleEvents.size() - kMaxConsoleBacklog);
            if (now - c->lastPushMs >= c->intervalMs - c->intervalMs / 10) {
                c->lastPushMs = now;
                if (picture.isEmpty())
                    picture = consolePicture(*s, &m_pictureCache);
                pushConsole(*c, picture);
            }
            continue;
        }
        if (c->events && !s->events.isEmpty()) {
            if (events.isEmpty()) {
                for (const Storage::Event &e : s->events)
                    events += encodeLine({{QStringLiteral("push"), QStringLiteral("event")},
                                          {QStringLiteral("event"), eventJson(e)}});
            }
            send(*c, events, true);
        }
        // Snapshots come about every publishing interval, a little early or late: one within a
        // tenth of the client's interval of being due goes out, so 10 Hz asked is 10 Hz taken.
        if (!c->snapshots || now - c->lastPushMs < c->intervalMs - c->intervalMs / 10)
            continue;
        // One encoding per snapshot, whoever many clients take it.
        QByteArray &line = lines[c->withState ? 1 : 0];
        if (line.isEmpty())
            line = encodeLine({{QStringLiteral("push"), QStringLiteral("snapshot")},
                               {QStringLiteral("snapshot"), snapshotJson(*s, c->withState)}});
        c->lastPushMs = now;
        send(*c, line, true);
    }
}

void Server::pushConsole(Client &client, const QByteArray &picture)
{
    QList<Sched::DecisionTrace> traces = client.consoleTraces.values();
    std::sort(traces.begin(), traces.end(), [](const auto &a, const auto &b) {
        return a.job.value() < b.job.value();
    });
    const QByteArray line = consolePushLine(picture, client.consoleEvents, traces);
    // Sent whole or not at all (a droppable push over a full queue waits for the next one, the
    // backlog kept); what went out is not sent again.
    if (send(client, line, true)) {
        client.consoleEvents.clear();
        client.consoleTraces.clear();
    }
}

} // namespace Zhaoxi::Service
