// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/catalogue/catalogue.h"
#include "core/models/serieshistory.h"
#include "core/session/session.h"

#include <QHash>
#include <QJsonObject>
#include <QMutex>
#include <QTimer>

class QLocalSocket;

namespace Zhaoxi::Service {

// The console's side of a running service (`zhaoxi --connect PATH`): an ApplianceSession whose
// appliance is zhaoxid's, over its Unix socket (protocol.h). It subscribes to the whole picture
// ("console" pushes, consoleJson) and publishes each as a Snapshot, so every view works as with
// the embedded appliance; every command is the API's, answered by the same signals. The
// service's clock is its own: speed, pause and polling are not the console's to set.
//
// Read-only (Snapshot::readOnly, with a stable reason the console translates) while the service
// is unreachable — the last picture stays, marked `connected = false`, and it reconnects by
// itself every second or so — and when the service says this user may only read. A command sent
// while unreachable, or not answered before the service went away, is answered with an error.
//
// Thread: like any session, the one it is moved to (start() through a queued call).
class RemoteSession : public Session::ApplianceSession
{
    Q_OBJECT

public:
    RemoteSession(QString socketPath, Catalogue::Catalogue catalogue, QObject *parent = nullptr);
    ~RemoteSession() override;

    Session::SnapshotPtr latest() const override;
    QString socketPath() const { return m_socketPath; }
    // What the service said in "hello" (empty before): its event store's file, this user's login
    // and role ("operator" or "reader").
    QString storePath() const;
    QString user() const;
    QString role() const;
    // Milliseconds between reconnection attempts (default 1000); tests shorten it.
    void setRetryIntervalMs(int ms) { m_retry.setInterval(ms); }

public Q_SLOTS:
    void start() override;
    void stop() override;
    void setSpeed(double) override {}
    void setPaused(bool) override {}
    void setPollIntervalMs(int) override {}

    void previewPlacement(quint64 request, int job, int card) override;
    void placeJob(quint64 request, int job, int card, bool allowPreemption) override;
    void placeJobConfirmed(quint64 request,
                           int job,
                           int card,
                           QList<int> victims,
                           Sched::BudgetRule budget) override;
    void requeueJob(quint64 request, int job) override;
    void previewLayout(quint64 request, int card, QList<Domain::MigPlacement> target) override;
    void applyLayout(quint64 request,
                     int card,
                     QList<Domain::MigPlacement> target,
                     Zhaoxi::Session::ApplyMode mode,
                     qint64 drainDeadlineMs) override;
    void setSchedule(quint64 request, QJsonObject windowsParams) override;
    void previewSchedule(quint64 request, QJsonObject windowsParams) override;
    void setScheduleConfirmed(quint64 request,
                              QJsonObject windowsParams,
                              QList<int> evicted) override;
    void submitWorkload(quint64 request, QJsonObject spec) override;
    void cancelJob(quint64 request, int job) override;
    void setJobPriority(quint64 request, int job, int priority) override;
    void pinLayout(quint64 request, int card, qint64 untilMs) override;
    void cordonCard(quint64 request, int card, bool cordoned, bool drain) override;
    void requestJobLog(quint64 request, int job, qint64 maxBytes) override;

Q_SIGNALS:
    // The connection came up (after "hello" and the first picture) or went away.
    void connectionChanged(bool connected);
    // On each attach, the service's recorded card and partition series up to its first picture
    // (the "history" command): the charts' hours before the console attached
    // (Widgets::MainWindow::mergeHistory). Not emitted when the service cannot say.
    void historyReceived(const QList<Zhaoxi::Models::HistorySeries> &history);

private:
    enum class Answer : quint8 {
        Command,
        PlacementPreview,
        LayoutPreview,
        SchedulePreview,
        JobLog,
        Hello,
        Subscribe,
        History
    };
    struct Pending
    {
        quint64 request = 0;
        Answer answer = Answer::Command;
        int job = -1;
        int card = -1;
    };
    void connectNow();
    void onConnected();
    void onDisconnected();
    void onReadable();
    void onLine(const QByteArray &line);
    void onAnswer(const Pending &pending, const QJsonObject &answer);
    void onPicture(const QJsonObject &console);
    // Sends a request; answers it at once with an error when there is no connection.
    void send(QJsonObject request, const Pending &pending);
    void fail(const Pending &pending, const Domain::Problem &error);
    void publish(std::shared_ptr<Session::Snapshot> snapshot);
    void publishUnreachable();
    QJsonArray layoutJson(int card, const QList<Domain::MigPlacement> &target) const;
    const Domain::CardModel *modelOf(int card) const;
    Domain::Problem readOnlyProblem() const;

    QString m_socketPath;
    Catalogue::Catalogue m_catalogue;
    QLocalSocket *m_socket = nullptr;
    QTimer m_retry;
    QByteArray m_buffer;
    QHash<qint64, Pending> m_pending; // by request id on the wire
    qint64 m_nextId = 0;
    bool m_running = false;
    bool m_attached = false; // hello answered and a picture read on this connection
    QJsonObject m_hello;
    qint64 m_lastEventId = -1; // events already published (a reconnection resends the recent ones)
    QString m_eventsOf;        // ... of this store (another store restarts the count)
    quint64 m_serial = 0;
    mutable QMutex m_lock; // m_latest and m_hello, read from other threads
    Session::SnapshotPtr m_latest;
};

} // namespace Zhaoxi::Service
