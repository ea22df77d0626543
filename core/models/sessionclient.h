// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/session/session.h"

#include <QMetaObject>
#include <QObject>
#include <QPointer>

namespace Zhaoxi::Models {

// The GUI thread's handle on an ApplianceSession that lives on its own thread: every command is
// a queued call (the GUI never waits), answered by the signals below, which arrive on the thread
// this client lives in. Keeps the latest snapshot for models and views.
//
// The commands with an answer return the request id their answer will carry (ids start at 1 and
// are never reused by one client). The answer (placementPreviewReady, layoutPreviewReady,
// commandFinished, jobLogReady) is always delivered after the call has returned, from this
// client's event loop, even with a session on the client's own thread (tests, --screenshot)
// that answers inside the command: so a caller stores the id first and matches answers by it,
// and needs no guard against an answer arriving inside its own call. Answers come in the order
// the session gave them. A session on the client's own thread may still publish a snapshot
// inside the call (snapshotChanged is not an answer and is not deferred); a session on another
// thread never does.
class SessionClient : public QObject
{
    Q_OBJECT

public:
    explicit SessionClient(Session::ApplianceSession *session, QObject *parent = nullptr);

    // The latest snapshot received (nullptr before the first).
    const Session::SnapshotPtr &snapshot() const { return m_snapshot; }

    // The run and settings commands: no answer but the next snapshot.
    void setSpeed(double speed);
    void setPaused(bool paused);
    void setPollIntervalMs(int ms);
    void setAllowChanges(bool allow);
    // ApplianceSession::restartDay: the simulated day from its beginning.
    void restartDay();
    quint64 previewPlacement(Domain::JobId job, Domain::CardId card);
    quint64 placeJob(Domain::JobId job, Domain::CardId card, bool allowPreemption);
    // ApplianceSession::placeJobConfirmed: preempting exactly the confirmed `victims` (over the
    // class budget with BudgetRule::Exceed, the operator's "place anyway").
    quint64 placeJobConfirmed(Domain::JobId job,
                              Domain::CardId card,
                              const QList<int> &victims,
                              Sched::BudgetRule budget = Sched::BudgetRule::Keep);
    quint64 requeueJob(Domain::JobId job);
    quint64 previewLayout(Domain::CardId card, const QList<Domain::MigPlacement> &target);
    quint64 applyLayout(Domain::CardId card,
                        const QList<Domain::MigPlacement> &target,
                        Session::ApplyMode mode,
                        qint64 drainDeadlineMs);
    quint64 setSchedule(const QJsonObject &windowsParams);
    // ApplianceSession::previewSchedule / setScheduleConfirmed: what a schedule would do, and
    // setting it only while it takes off exactly the confirmed `evicted` jobs.
    quint64 previewSchedule(const QJsonObject &windowsParams);
    quint64 setScheduleConfirmed(const QJsonObject &windowsParams, const QList<int> &evicted);
    quint64 submitWorkload(const QJsonObject &spec);
    quint64 cancelJob(Domain::JobId job);
    quint64 setJobPriority(Domain::JobId job, int priority);
    // Pins a card's layout until `untilMs` on the appliance's clock (-1: until unpinned), or
    // unpins it (0): ApplianceSession::pinLayout.
    quint64 pinLayout(Domain::CardId card, qint64 untilMs);
    // ApplianceSession::cordonCard: cordon (and drain) a card, or uncordon it.
    quint64 cordonCard(Domain::CardId card, bool cordoned, bool drain);
    quint64 requestJobLog(Domain::JobId job, qint64 maxBytes = 256 * 1024);

Q_SIGNALS:
    // A new snapshot; `snapshot()` already returns it.
    void snapshotChanged(const Zhaoxi::Session::SnapshotPtr &snapshot);
    void placementPreviewReady(const Zhaoxi::Session::PlacementPreview &preview);
    void layoutPreviewReady(const Zhaoxi::Session::LayoutPreview &preview);
    void commandFinished(const Zhaoxi::Session::CommandResult &result);
    void jobLogReady(const Zhaoxi::Session::JobLog &log);
    void schedulePreviewReady(const Zhaoxi::Session::SchedulePreview &preview);
    // A change was asked for (before the session sees it): the command's name and arguments as
    // the service's API spells them ("place" {job, card, preempt}, "requeue" {job},
    // "layout-apply" {card, layout, drain_deadline_ms}, "schedule-set" {schedule}, "submit"
    // {spec}, "cancel" {job}, "priority" {job, priority}). Its answer is the commandFinished with
    // the same request id. What the embedded console's audit records (Service::ConsoleAudit).
    void changeAsked(quint64 request, const QString &command, const QJsonObject &arguments);

private:
    // Runs `command` on the session's thread: queued when that is another thread (the GUI never
    // waits), at once when it is ours (its answer is queued by the connections all the same).
    template<typename Command>
    void call(Command command)
    {
        Session::ApplianceSession *s = m_session.data();
        if (!s)
            return;
        if (s->thread() == thread())
            command(s);
        else
            QMetaObject::invokeMethod(
                    s, [s, command] { command(s); }, Qt::QueuedConnection);
    }
    void onSnapshot(const Session::SnapshotPtr &snapshot);

    QPointer<Session::ApplianceSession> m_session;
    Session::SnapshotPtr m_snapshot;
    quint64 m_nextRequest = 1;
};

} // namespace Zhaoxi::Models
