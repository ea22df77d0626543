// SPDX-License-Identifier: GPL-3.0-or-later
#include "sessionclient.h"

#include "core/catalogue/layoutrules.h"

#include "core/storage/statecodec.h"

#include <QJsonArray>

#include <QMetaObject>

namespace Zhaoxi::Models {

using Session::ApplianceSession;

SessionClient::SessionClient(ApplianceSession *session, QObject *parent)
    : QObject(parent)
    , m_session(session)
{
    Session::registerMetaTypes();
    // Snapshots: queued when the session lives on another thread, direct otherwise (a model
    // may read the state a command of this thread has just made).
    connect(session, &ApplianceSession::snapshotReady, this, &SessionClient::onSnapshot);
    // Answers: always queued, even from a session on this thread that answers inside the
    // command, so that the caller has its request id before any answer to it can arrive. One
    // queue for all four keeps them in the session's order.
    connect(session,
            &ApplianceSession::placementPreviewReady,
            this,
            &SessionClient::placementPreviewReady,
            Qt::QueuedConnection);
    connect(session,
            &ApplianceSession::layoutPreviewReady,
            this,
            &SessionClient::layoutPreviewReady,
            Qt::QueuedConnection);
    connect(session,
            &ApplianceSession::commandFinished,
            this,
            &SessionClient::commandFinished,
            Qt::QueuedConnection);
    connect(session,
            &ApplianceSession::jobLogReady,
            this,
            &SessionClient::jobLogReady,
            Qt::QueuedConnection);
    connect(session,
            &ApplianceSession::schedulePreviewReady,
            this,
            &SessionClient::schedulePreviewReady,
            Qt::QueuedConnection);
    m_snapshot = session->latest();
}

void SessionClient::onSnapshot(const Session::SnapshotPtr &snapshot)
{
    // Queued snapshots can overtake nothing, but a direct publish from a command may arrive
    // while an older one is still queued: keep the newest.
    if (!snapshot || (m_snapshot && snapshot->serial <= m_snapshot->serial))
        return;
    m_snapshot = snapshot;
    Q_EMIT snapshotChanged(m_snapshot);
}

void SessionClient::setSpeed(double speed)
{
    call([speed](ApplianceSession *s) { s->setSpeed(speed); });
}

void SessionClient::setPaused(bool paused)
{
    call([paused](ApplianceSession *s) { s->setPaused(paused); });
}

void SessionClient::setPollIntervalMs(int ms)
{
    call([ms](ApplianceSession *s) { s->setPollIntervalMs(ms); });
}

void SessionClient::setAllowChanges(bool allow)
{
    call([allow](ApplianceSession *s) { s->setAllowChanges(allow); });
}

quint64 SessionClient::previewPlacement(Domain::JobId job, Domain::CardId card)
{
    const quint64 id = m_nextRequest++;
    call([=](ApplianceSession *s) { s->previewPlacement(id, job.value(), card.value()); });
    return id;
}

quint64 SessionClient::placeJob(Domain::JobId job, Domain::CardId card, bool allowPreemption)
{
    const quint64 id = m_nextRequest++;
    Q_EMIT changeAsked(id,
                       QStringLiteral("place"),
                       {{QStringLiteral("job"), job.value()},
                        {QStringLiteral("card"), card.value()},
                        {QStringLiteral("preempt"), allowPreemption}});
    call([=](ApplianceSession *s) { s->placeJob(id, job.value(), card.value(), allowPreemption); });
    return id;
}

quint64 SessionClient::placeJobConfirmed(Domain::JobId job,
                                         Domain::CardId card,
                                         const QList<int> &victims,
                                         Sched::BudgetRule budget)
{
    const quint64 id = m_nextRequest++;
    QJsonObject args{{QStringLiteral("job"), job.value()},
                     {QStringLiteral("card"), card.value()},
                     {QStringLiteral("preempt"), true},
                     {QStringLiteral("victims"), Storage::jobIdsToJson(victims)}};
    if (budget == Sched::BudgetRule::Exceed)
        args.insert(QStringLiteral("over_budget"), true);
    Q_EMIT changeAsked(id, QStringLiteral("place"), args);
    call([=](ApplianceSession *s) {
        s->placeJobConfirmed(id, job.value(), card.value(), victims, budget);
    });
    return id;
}

quint64 SessionClient::requeueJob(Domain::JobId job)
{
    const quint64 id = m_nextRequest++;
    Q_EMIT changeAsked(id, QStringLiteral("requeue"), {{QStringLiteral("job"), job.value()}});
    call([=](ApplianceSession *s) { s->requeueJob(id, job.value()); });
    return id;
}

quint64 SessionClient::previewLayout(Domain::CardId card, const QList<Domain::MigPlacement> &target)
{
    const quint64 id = m_nextRequest++;
    call([=](ApplianceSession *s) { s->previewLayout(id, card.value(), target); });
    return id;
}

quint64 SessionClient::applyLayout(Domain::CardId card,
                                   const QList<Domain::MigPlacement> &target,
                                   Session::ApplyMode mode,
                                   qint64 drainDeadlineMs)
{
    const quint64 id = m_nextRequest++;
    QJsonArray layout;
    if (m_snapshot && card.value() >= 0 && card.value() < m_snapshot->state.cards().size()) {
        const Sched::ClusterState &st = m_snapshot->state;
        for (const Domain::MigPlacement &p : target)
            layout.append(Catalogue::formatPlacement(st.model(st.card(card)), p));
    }
    QJsonObject asked{{QStringLiteral("card"), card.value()}, {QStringLiteral("layout"), layout}};
    if (mode == Session::ApplyMode::Drain)
        asked.insert(QStringLiteral("drain_deadline_ms"), drainDeadlineMs);
    Q_EMIT changeAsked(id, QStringLiteral("layout-apply"), asked);
    call([=](ApplianceSession *s) {
        s->applyLayout(id, card.value(), target, mode, drainDeadlineMs);
    });
    return id;
}

quint64 SessionClient::setSchedule(const QJsonObject &windowsParams)
{
    const quint64 id = m_nextRequest++;
    Q_EMIT changeAsked(
            id, QStringLiteral("schedule-set"), {{QStringLiteral("schedule"), windowsParams}});
    call([=](ApplianceSession *s) { s->setSchedule(id, windowsParams); });
    return id;
}

void SessionClient::restartDay()
{
    call([](ApplianceSession *s) { s->restartDay(); });
}

quint64 SessionClient::cordonCard(Domain::CardId card, bool cordoned, bool drain)
{
    const quint64 id = m_nextRequest++;
    QJsonObject args{{QStringLiteral("card"), card.value()}};
    if (cordoned)
        args.insert(QStringLiteral("drain"), drain);
    Q_EMIT changeAsked(
            id, cordoned ? QStringLiteral("card-cordon") : QStringLiteral("card-uncordon"), args);
    call([=](ApplianceSession *s) { s->cordonCard(id, card.value(), cordoned, drain); });
    return id;
}

quint64 SessionClient::previewSchedule(const QJsonObject &windowsParams)
{
    const quint64 id = m_nextRequest++;
    call([=](ApplianceSession *s) { s->previewSchedule(id, windowsParams); });
    return id;
}

quint64 SessionClient::setScheduleConfirmed(const QJsonObject &windowsParams,
                                            const QList<int> &evicted)
{
    const quint64 id = m_nextRequest++;
    Q_EMIT changeAsked(id,
                       QStringLiteral("schedule-set"),
                       {{QStringLiteral("schedule"), windowsParams},
                        {QStringLiteral("victims"), Storage::jobIdsToJson(evicted)}});
    call([=](ApplianceSession *s) { s->setScheduleConfirmed(id, windowsParams, evicted); });
    return id;
}

quint64 SessionClient::submitWorkload(const QJsonObject &spec)
{
    const quint64 id = m_nextRequest++;
    Q_EMIT changeAsked(id, QStringLiteral("submit"), {{QStringLiteral("spec"), spec}});
    call([=](ApplianceSession *s) { s->submitWorkload(id, spec); });
    return id;
}

quint64 SessionClient::cancelJob(Domain::JobId job)
{
    const quint64 id = m_nextRequest++;
    Q_EMIT changeAsked(id, QStringLiteral("cancel"), {{QStringLiteral("job"), job.value()}});
    call([=](ApplianceSession *s) { s->cancelJob(id, job.value()); });
    return id;
}

quint64 SessionClient::setJobPriority(Domain::JobId job, int priority)
{
    const quint64 id = m_nextRequest++;
    Q_EMIT changeAsked(
            id,
            QStringLiteral("priority"),
            {{QStringLiteral("job"), job.value()}, {QStringLiteral("priority"), priority}});
    call([=](ApplianceSession *s) { s->setJobPriority(id, job.value(), priority); });
    return id;
}

quint64 SessionClient::pinLayout(Domain::CardId card, qint64 untilMs)
{
    const quint64 id = m_nextRequest++;
    if (untilMs == 0)
        Q_EMIT changeAsked(
                id, QStringLiteral("layout-unpin"), {{QStringLiteral("card"), card.value()}});
    else
        Q_EMIT changeAsked(
                id,
                QStringLiteral("layout-pin"),
                {{QStringLiteral("card"), card.value()}, {QStringLiteral("until_ms"), untilMs}});
    call([=](ApplianceSession *s) { s->pinLayout(id, card.value(), untilMs); });
    return id;
}

quint64 SessionClient::requestJobLog(Domain::JobId job, qint64 maxBytes)
{
    const quint64 id = m_nextRequest++;
    call([=](ApplianceSession *s) { s->requestJobLog(id, job.value(), maxBytes); });
    return id;
}

} // namespace Zhaoxi::Models
