// SPDX-License-Identifier: GPL-3.0-or-later
#include "remotesession.h"

#include "consolecodec.h"
#include "protocol.h"

#include "core/storage/statecodec.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLocalSocket>
#include <QMutexLocker>

namespace Zhaoxi::Service {

using Session::Snapshot;

namespace {

// What the console asks for: a picture four times a second, and the recent past on attaching.
constexpr int kPictureIntervalMs = 250;
constexpr int kHistoryEvents = 2000;

} // namespace

RemoteSession::RemoteSession(QString socketPath, Catalogue::Catalogue catalogue, QObject *parent)
    : ApplianceSession(parent)
    , m_socketPath(std::move(socketPath))
    , m_catalogue(std::move(catalogue))
{
    // historyReceived crosses from the session's thread to the GUI's.
    qRegisterMetaType<QList<Models::HistorySeries>>("QList<Zhaoxi::Models::HistorySeries>");
    m_retry.setParent(this);
    m_retry.setInterval(1000);
    m_retry.setSingleShot(true);
    connect(&m_retry, &QTimer::timeout, this, &RemoteSession::connectNow);
}

RemoteSession::~RemoteSession()
{
    if (m_socket)
        m_socket->abort();
}

Session::SnapshotPtr RemoteSession::latest() const
{
    QMutexLocker lock(&m_lock);
    return m_latest;
}

QString RemoteSession::storePath() const
{
    QMutexLocker lock(&m_lock);
    return m_hello.value(QStringLiteral("store")).toString();
}

QString RemoteSession::user() const
{
    QMutexLocker lock(&m_lock);
    return m_hello.value(QStringLiteral("user")).toString();
}

QString RemoteSession::role() const
{
    QMutexLocker lock(&m_lock);
    return m_hello.value(QStringLiteral("role")).toString();
}

void RemoteSession::start()
{
    if (m_running)
        return;
    m_running = true;
    if (!m_socket) {
        // Parented here: it moves with the session to the session's thread.
        m_socket = new QLocalSocket(this);
        connect(m_socket, &QLocalSocket::connected, this, &RemoteSession::onConnected);
        connect(m_socket, &QLocalSocket::disconnected, this, &RemoteSession::onDisconnected);
        connect(m_socket, &QLocalSocket::readyRead, this, &RemoteSession::onReadable);
        connect(m_socket,
                &QLocalSocket::errorOccurred,
                this,
                [this](QLocalSocket::LocalSocketError) {
                    // A refused or missing socket never connects, so there is no disconnected() to
                    // follow: go through the same path.
                    if (m_socket->state() == QLocalSocket::UnconnectedState)
                        onDisconnected();
                });
    }
    connectNow();
}

void RemoteSession::stop()
{
    m_running = false;
    m_retry.stop();
    if (m_socket) {
        m_socket->disconnect(this);
        m_socket->abort();
        m_socket->deleteLater();
        m_socket = nullptr;
    }
    const QList<Pending> pending = m_pending.values();
    m_pending.clear();
    for (const Pending &p : pending)
        fail(p, Domain::Problem(Domain::Problem::Code::ConsoleClosed));
}

void RemoteSession::connectNow()
{
    if (!m_running || !m_socket || m_socket->state() != QLocalSocket::UnconnectedState)
        return;
    m_buffer.clear();
    m_attached = false;
    m_socket->connectToServer(m_socketPath);
}

void RemoteSession::onConnected()
{
    send({{QStringLiteral("cmd"), QStringLiteral("hello")},
          {QStringLiteral("client"), QStringLiteral("zhaoxi console")}},
         {0, Answer::Hello, -1, -1});
    send({{QStringLiteral("cmd"), QStringLiteral("subscribe")},
          {QStringLiteral("console"), true},
          {QStringLiteral("interval_ms"), kPictureIntervalMs},
          {QStringLiteral("history"), kHistoryEvents}},
         {0, Answer::Subscribe, -1, -1});
}

void RemoteSession::onDisconnected()
{
    const bool was = m_attached;
    m_attached = false;
    const QList<Pending> pending = m_pending.values();
    m_pending.clear();
    for (const Pending &p : pending)
        fail(p, Domain::Problem(Domain::Problem::Code::ServiceWentAway));
    publishUnreachable();
    if (was)
        Q_EMIT connectionChanged(false);
    if (m_running && !m_retry.isActive())
        m_retry.start();
}

void RemoteSession::onReadable()
{
    m_buffer += m_socket->readAll();
    qsizetype from = 0;
    for (;;) {
        const qsizetype nl = m_buffer.indexOf('\n', from);
        if (nl < 0)
            break;
        onLine(m_buffer.mid(from, nl - from));
        if (!m_socket) // stopped by a slot connected to what that line published
            return;
        from = nl + 1;
    }
    m_buffer.remove(0, from);
}

void RemoteSession::onLine(const QByteArray &line)
{
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(line, &pe);
    if (!doc.isObject()) {
        qWarning("zhaoxi: the service at %s sent a line that is not JSON (%s)",
                 qPrintable(m_socketPath),
                 qPrintable(pe.errorString()));
        return;
    }
    const QJsonObject o = doc.object();
    if (o.contains(QStringLiteral("push"))) {
        if (o.value(QStringLiteral("push")).toString() == QLatin1String("console"))
            onPicture(o.value(QStringLiteral("console")).toObject());
        return;
    }
    const qint64 id = qint64(o.value(QStringLiteral("id")).toDouble(-1));
    const auto it = m_pending.find(id);
    if (it == m_pending.end())
        return;
    const Pending p = *it;
    m_pending.erase(it);
    onAnswer(p, o);
}

void RemoteSession::onAnswer(const Pending &p, const QJsonObject &answer)
{
    const bool ok = answer.value(QStringLiteral("ok")).toBool();
    const QJsonObject result = answer.value(QStringLiteral("result")).toObject();
    const QString error
            = answer.value(QStringLiteral("error"))[QStringLiteral("message")].toString();
    switch (p.answer) {
    case Answer::Hello: {
        QMutexLocker lock(&m_lock);
        m_hello = ok ? result : QJsonObject();
        break;
    }
    case Answer::Subscribe:
        if (!ok)
            qWarning("zhaoxi: the service at %s refused the subscription: %s",
                     qPrintable(m_socketPath),
                     qPrintable(error));
        break;
    case Answer::History: {
        // An older service has no "history": the charts start with the live points.
        QList<Models::HistorySeries> history;
        QString why = error;
        if (ok
            && Models::historyFromJson(
                    result.value(QStringLiteral("series")).toArray(), &history, &why))
            Q_EMIT historyReceived(history);
        else
            qInfo("zhaoxi: the charts start without the service's history: %s", qPrintable(why));
        break;
    }
    case Answer::Command: {
        Session::CommandResult r = commandResultFromAnswer(answer);
        r.request = p.request;
        Q_EMIT commandFinished(r);
        break;
    }
    case Answer::PlacementPreview:
    case Answer::LayoutPreview:
    case Answer::SchedulePreview:
    case Answer::JobLog:
        if (!ok) {
            // The same answer as when the service went away, with its reason.
            fail(p,
                 problemFromJson(answer.value(QStringLiteral("error"))[QStringLiteral("problem")],
                                 error));
            break;
        }
        if (p.answer == Answer::PlacementPreview) {
            const Session::SnapshotPtr s = latest();
            Session::PlacementPreview preview
                    = placementPreviewFromJson(result, s ? &s->state : nullptr);
            preview.request = p.request;
            Q_EMIT placementPreviewReady(preview);
        } else if (p.answer == Answer::SchedulePreview) {
            Session::SchedulePreview preview = schedulePreviewFromJson(result);
            preview.request = p.request;
            Q_EMIT schedulePreviewReady(preview);
        } else if (p.answer == Answer::LayoutPreview) {
            Session::LayoutPreview preview = layoutPreviewFromJson(result, modelOf(p.card));
            preview.request = p.request;
            Q_EMIT layoutPreviewReady(preview);
        } else {
            Session::JobLog log = jobLogFromJson(result);
            log.request = p.request;
            Q_EMIT jobLogReady(log);
        }
        break;
    }
}

void RemoteSession::onPicture(const QJsonObject &console)
{
    QString why;
    std::optional<Snapshot> s = snapshotFromConsoleJson(console, m_catalogue, &why);
    if (!s) {
        qWarning("zhaoxi: the service at %s sent a picture this console cannot read: %s",
                 qPrintable(m_socketPath),
                 qPrintable(why));
        return;
    }
    // A reconnection resends the recent past: what was published already is not again (unless
    // the service keeps another store now, whose ids start afresh).
    const QString store = storePath();
    if (store != m_eventsOf) {
        m_eventsOf = store;
        m_lastEventId = -1;
    }
    QList<Storage::Event> fresh;
    for (const Storage::Event &e : std::as_const(s->events)) {
        if (e.id > m_lastEventId)
            fresh.append(e);
    }
    for (const Storage::Event &e : std::as_const(fresh))
        m_lastEventId = std::max(m_lastEventId, e.id);
    s->events = std::move(fresh);
    auto snapshot = std::make_shared<Snapshot>(std::move(*s));
    snapshot->servicePath = m_socketPath;
    snapshot->connected = true;
    const Domain::Problem reason = readOnlyProblem();
    if (!reason.isNone() && !snapshot->readOnly) {
        snapshot->readOnly = true;
        snapshot->readOnlyProblem = reason;
    }
    const bool first = !m_attached;
    m_attached = true;
    const qint64 attachedAt = snapshot->nowMs;
    publish(std::move(snapshot));
    if (first) {
        Q_EMIT connectionChanged(true);
        // The hours before: the charts put them in front of what this picture starts.
        send({{QStringLiteral("cmd"), QStringLiteral("history")},
              {QStringLiteral("to_ms"), attachedAt}},
             Pending{0, Answer::History});
    }
}

Domain::Problem RemoteSession::readOnlyProblem() const
{
    using Domain::Problem;
    QMutexLocker lock(&m_lock);
    if (m_hello.isEmpty())
        return {};
    if (m_hello.value(QStringLiteral("role")).toString() != QLatin1String("operator"))
        return Problem(Problem::Code::ReadOnlyNotOperator,
                       {m_hello.value(QStringLiteral("user")).toString(),
                        m_hello.value(QStringLiteral("operator_group")).toString()});
    if (!m_hello.value(QStringLiteral("taking_changes")).toBool(true))
        return Problem(Problem::Code::ReadOnlyNotTakingChanges);
    return {};
}

void RemoteSession::publish(std::shared_ptr<Snapshot> snapshot)
{
    snapshot->serial = ++m_serial; // the console's own count: a restarted service starts afresh
    Session::SnapshotPtr out = std::move(snapshot);
    {
        QMutexLocker lock(&m_lock);
        m_latest = out;
    }
    Q_EMIT snapshotReady(out);
}

void RemoteSession::publishUnreachable()
{
    // The last picture, read-only, saying so; before any picture an empty appliance that says
    // the same (the window shows the banner instead of waiting without a word).
    const Session::SnapshotPtr last = latest();
    auto s = last ? std::make_shared<Snapshot>(*last) : std::make_shared<Snapshot>();
    if (last && !last->connected)
        return; // said already
    s->events.clear();
    s->traces.clear();
    s->servicePath = m_socketPath;
    s->connected = false;
    s->readOnly = true;
    s->readOnlyProblem
            = Domain::Problem(Domain::Problem::Code::ReadOnlyUnreachable, {m_socketPath});
    if (!last) {
        s->state = Sched::ClusterState(m_catalogue);
        s->endMs = -1;
        s->simulated = false;
    }
    publish(std::move(s));
}

void RemoteSession::send(QJsonObject request, const Pending &pending)
{
    if (!m_socket || m_socket->state() != QLocalSocket::ConnectedState
        || (pending.answer != Answer::Hello && pending.answer != Answer::Subscribe
            && !m_attached)) {
        fail(pending, Domain::Problem(Domain::Problem::Code::ServiceUnreachable, {m_socketPath}));
        return;
    }
    const qint64 id = ++m_nextId;
    request.insert(QStringLiteral("id"), id);
    m_pending.insert(id, pending);
    m_socket->write(encodeLine(request));
}

void RemoteSession::fail(const Pending &p, const Domain::Problem &error)
{
    switch (p.answer) {
    case Answer::Hello:
    case Answer::Subscribe:
    case Answer::History:
        return;
    case Answer::Command: {
        Session::CommandResult r;
        r.request = p.request;
        Session::setProblem(r, error);
        r.status = Sched::Status::error(Sched::Reason::None);
        Q_EMIT commandFinished(r);
        return;
    }
    case Answer::PlacementPreview: {
        Session::PlacementPreview preview;
        preview.request = p.request;
        preview.job = Domain::JobId(p.job);
        preview.card = Domain::CardId(p.card);
        preview.status = Sched::Status::error(Sched::Reason::None);
        Q_EMIT placementPreviewReady(preview);
        return;
    }
    case Answer::LayoutPreview: {
        Session::LayoutPreview preview;
        preview.request = p.request;
        preview.card = Domain::CardId(p.card);
        Session::setProblem(preview, error);
        Q_EMIT layoutPreviewReady(preview);
        return;
    }
    case Answer::SchedulePreview: {
        Session::SchedulePreview preview;
        preview.request = p.request;
        Session::setProblem(preview, error);
        Q_EMIT schedulePreviewReady(preview);
        return;
    }
    case Answer::JobLog: {
        Session::JobLog log;
        log.request = p.request;
        log.job = Domain::JobId(p.job);
        Session::setProblem(log, error);
        Q_EMIT jobLogReady(log);
        return;
    }
    }
}

const Domain::CardModel *RemoteSession::modelOf(int card) const
{
    const Session::SnapshotPtr s = latest();
    if (!s || card < 0 || card >= s->state.cards().size())
        return nullptr;
    return &s->state.catalogue().models()[s->state.card(Domain::CardId(card)).model];
}

QJsonArray RemoteSession::layoutJson(int card, const QList<Domain::MigPlacement> &target) const
{
    return Service::layoutJson(modelOf(card), target);
}

void RemoteSession::previewPlacement(quint64 request, int job, int card)
{
    send({{QStringLiteral("cmd"), QStringLiteral("preview-placement")},
          {QStringLiteral("job"), job},
          {QStringLiteral("card"), card}},
         {request, Answer::PlacementPreview, job, card});
}

void RemoteSession::placeJob(quint64 request, int job, int card, bool allowPreemption)
{
    send({{QStringLiteral("cmd"), QStringLiteral("place")},
          {QStringLiteral("job"), job},
          {QStringLiteral("card"), card},
          {QStringLiteral("preempt"), allowPreemption}},
         {request, Answer::Command, job, card});
}

void RemoteSession::placeJobConfirmed(
        quint64 request, int job, int card, QList<int> victims, Sched::BudgetRule budget)
{
    QJsonObject command{{QStringLiteral("cmd"), QStringLiteral("place")},
                        {QStringLiteral("job"), job},
                        {QStringLiteral("card"), card},
                        {QStringLiteral("preempt"), true},
                        {QStringLiteral("victims"), Storage::jobIdsToJson(victims)}};
    if (budget == Sched::BudgetRule::Exceed)
        command.insert(QStringLiteral("over_budget"), true);
    send(command, {request, Answer::Command, job, card});
}

void RemoteSession::requeueJob(quint64 request, int job)
{
    send({{QStringLiteral("cmd"), QStringLiteral("requeue")}, {QStringLiteral("job"), job}},
         {request, Answer::Command, job, -1});
}

void RemoteSession::previewLayout(quint64 request, int card, QList<Domain::MigPlacement> target)
{
    send({{QStringLiteral("cmd"), QStringLiteral("preview-layout")},
          {QStringLiteral("card"), card},
          {QStringLiteral("layout"), layoutJson(card, target)}},
         {request, Answer::LayoutPreview, -1, card});
}

void RemoteSession::applyLayout(quint64 request,
                                int card,
                                QList<Domain::MigPlacement> target,
                                Session::ApplyMode mode,
                                qint64 drainDeadlineMs)
{
    QJsonObject r{{QStringLiteral("cmd"), QStringLiteral("layout-apply")},
                  {QStringLiteral("card"), card},
                  {QStringLiteral("layout"), layoutJson(card, target)}};
    if (mode == Session::ApplyMode::Drain)
        r.insert(QStringLiteral("drain_deadline_ms"), std::max<qint64>(0, drainDeadlineMs));
    send(r, {request, Answer::Command, -1, card});
}

void RemoteSession::setSchedule(quint64 request, QJsonObject windowsParams)
{
    send({{QStringLiteral("cmd"), QStringLiteral("schedule-set")},
          {QStringLiteral("schedule"), windowsParams}},
         {request, Answer::Command, -1, -1});
}

void RemoteSession::cordonCard(quint64 request, int card, bool cordoned, bool drain)
{
    QJsonObject r{{QStringLiteral("cmd"),
                   cordoned ? QStringLiteral("card-cordon") : QStringLiteral("card-uncordon")},
                  {QStringLiteral("card"), card}};
    if (cordoned)
        r.insert(QStringLiteral("drain"), drain);
    send(r, {request, Answer::Command, -1, card});
}

void RemoteSession::previewSchedule(quint64 request, QJsonObject windowsParams)
{
    send({{QStringLiteral("cmd"), QStringLiteral("preview-schedule")},
          {QStringLiteral("schedule"), windowsParams}},
         {request, Answer::SchedulePreview, -1, -1});
}

void RemoteSession::setScheduleConfirmed(quint64 request,
                                         QJsonObject windowsParams,
                                         QList<int> evicted)
{
    send({{QStringLiteral("cmd"), QStringLiteral("schedule-set")},
          {QStringLiteral("schedule"), windowsParams},
          {QStringLiteral("victims"), Storage::jobIdsToJson(evicted)}},
         {request, Answer::Command, -1, -1});
}

void RemoteSession::submitWorkload(quint64 request, QJsonObject spec)
{
    send({{QStringLiteral("cmd"), QStringLiteral("submit")}, {QStringLiteral("spec"), spec}},
         {request, Answer::Command, -1, -1});
}

void RemoteSession::cancelJob(quint64 request, int job)
{
    send({{QStringLiteral("cmd"), QStringLiteral("cancel")}, {QStringLiteral("job"), job}},
         {request, Answer::Command, job, -1});
}

void RemoteSession::setJobPriority(quint64 request, int job, int priority)
{
    send({{QStringLiteral("cmd"), QStringLiteral("priority")},
          {QStringLiteral("job"), job},
          {QStringLiteral("priority"), priority}},
         {request, Answer::Command, job, -1});
}

void RemoteSession::pinLayout(quint64 request, int card, qint64 untilMs)
{
    if (untilMs == 0)
        send({{QStringLiteral("cmd"), QStringLiteral("layout-unpin")},
              {QStringLiteral("card"), card}},
             {request, Answer::Command, -1, card});
    else
        send({{QStringLiteral("cmd"), QStringLiteral("layout-pin")},
              {QStringLiteral("card"), card},
              {QStringLiteral("until_ms"), untilMs}},
             {request, Answer::Command, -1, card});
}

void RemoteSession::requestJobLog(quint64 request, int job, qint64 maxBytes)
{
    send({{QStringLiteral("cmd"), QStringLiteral("job-log")},
          {QStringLiteral("job"), job},
          {QStringLiteral("max_bytes"), maxBytes}},
         {request, Answer::JobLog, job, -1});
}

} // namespace Zhaoxi::Service
