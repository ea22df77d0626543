// SPDX-License-Identifier: GPL-3.0-or-later
// The server's changes: checked, refused (and audited) when the peer may only read or the
// arguments are wrong, handed to the session, audited with before and after, and answered only
// once the audit event and the session's state are committed. server.cpp has the transport and
// the reads.
#include "server.h"
#include "server_p.h"

#include "audit.h"
#include "protocol.h"

#include "core/catalogue/layoutrules.h"
#include "core/storage/statecodec.h"
#include "core/storage/store.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLocalSocket>

#include <algorithm>
#include <climits>
#include <cmath>

namespace Zhaoxi::Service {

using Session::CommandResult;
using Session::SnapshotPtr;

namespace {

// A confirmed plan's job ids ("victims"): false with *why when it is not an array of them.
bool jobIdList(const QJsonValue &value, QList<int> *ids, QString *why)
{
    if (!value.isArray()) {
        *why = QStringLiteral("must be the confirmed victims' job ids (an array)");
        return false;
    }
    for (const QJsonValue &v : value.toArray()) {
        if (!v.isDouble() || v.toDouble() != std::floor(v.toDouble()) || v.toDouble() < 0
            || v.toDouble() > INT_MAX) {
            *why = QStringLiteral("must hold job ids (integers)");
            return false;
        }
        ids->append(v.toInt());
    }
    return true;
}

} // namespace

QJsonObject Server::subjectState(const QString &command, int card, int job) const
{
    const SnapshotPtr s = m_session.latest();
    return s ? subjectStateJson(*s, command, card, job, scheduleInForce()) : QJsonObject();
}

void Server::audit(const Peer &peer,
                   const QString &command,
                   Storage::Severity severity,
                   int card,
                   int job,
                   QJsonObject params)
{
    if (!m_audit)
        return;
    // On the appliance's clock, like every other event in its store (a scenario's clock may run
    // ahead of the wall's); the wall time is kept beside it.
    const SnapshotPtr s = m_session.latest();
    Storage::Event e;
    e.atMs = s ? s->nowMs : m_options.clock();
    e.severity = severity;
    e.code = "operator-" + command.toLatin1();
    e.card = card;
    e.job = job;
    e.actor = peer.login;
    params.insert(QStringLiteral("uid"), peer.uid);
    params.insert(QStringLiteral("pid"), peer.pid);
    params.insert(QStringLiteral("wall_ms"), m_options.clock());
    e.id = m_audit->record(e, params);
    // Event subscribers see the audit trail as it grows, like every other event.
    e.source = Storage::Source::Operator;
    const QByteArray line = encodeLine({{QStringLiteral("push"), QStringLiteral("event")},
                                        {QStringLiteral("event"), eventJson(e)}});
    for (const auto &c : std::as_const(m_clients)) {
        if (c->console) // in its next picture, with the appliance's own events
            c->consoleEvents.append(e);
        if (c->events)
            send(*c, line, true);
    }
}

void Server::refuse(Client &client,
                    const QJsonValue &id,
                    const QString &command,
                    const QJsonObject &request,
                    const char *code,
                    const QString &why)
{
    // Each user's refusals are recorded up to a budget (kRefusalBurst, refilled over a minute):
    // a local user who may only read must not grow the store (nor cost an fsync) per message.
    // The first refusal past it says so once; the next one recorded counts those left out.
    RefusalBudget &b = m_refusals[client.peer.uid];
    const qint64 now = m_options.clock();
    b.tokens = std::min(double(kRefusalBurst),
                        b.tokens + double(now - b.atMs) * kRefusalBurst / 60'000.0);
    b.atMs = now;
    QJsonObject asked = request;
    asked.remove(QStringLiteral("id"));
    const int card = request.value(QStringLiteral("card")).toInt(-1);
    const int job = request.value(QStringLiteral("job")).toInt(-1);
    if (b.tokens < 1) {
        ++b.suppressed;
        if (b.announced) {
            reply(client.socket, errorAnswer(id, code, why));
            return;
        }
        b.announced = true;
        audit(client.peer,
              QStringLiteral("refusals-throttled"),
              Storage::Severity::Warning,
              -1,
              -1,
              {{QStringLiteral("limit_per_minute"), kRefusalBurst},
               {QStringLiteral("last_refused"), command},
               {QStringLiteral("role"), QLatin1String(toString(client.role))}});
    } else {
        b.tokens -= 1;
        QJsonObject params{{QStringLiteral("asked"), asked},
                           {QStringLiteral("ok"), false},
                           {QStringLiteral("refused"), why},
                           {QStringLiteral("role"), QLatin1String(toString(client.role))}};
        if (b.suppressed > 0)
            params.insert(QStringLiteral("not_recorded_before"), b.suppressed);
        b.suppressed = 0;
        b.announced = false;
        audit(client.peer, command, Storage::Severity::Warning, card, job, params);
    }
    QString err;
    if (m_audit && !m_session.commitNow(&err))
        qWarning("zhaoxid: a refusal's audit event was not committed: %s", qPrintable(err));
    reply(client.socket, errorAnswer(id, code, why));
}

void Server::change(Client &client,
                    const QJsonValue &id,
                    const QString &command,
                    const QJsonObject &request)
{
    if (client.role != Role::Operator) {
        refuse(client,
               id,
               command,
               request,
               Code::Forbidden,
               QStringLiteral(
                       "%1 may only read: changes need root or membership of the group \"%2\"")
                       .arg(client.peer.login, m_options.operatorGroup));
        return;
    }
    if (!m_takingChanges) {
        refuse(client,
               id,
               command,
               request,
               Code::Unavailable,
               QStringLiteral("the service is shutting down"));
        return;
    }
    if (!m_audit) {
        reply(client.socket,
              errorAnswer(id,
                          Code::Unavailable,
                          QStringLiteral("changes are not taken: %1").arg(m_auditError)));
        return;
    }
    QString why;
    const SnapshotPtr s = m_session.latest();
    Pending p;
    p.socket = client.socket;
    p.id = id;
    p.command = command;
    p.peer = client.peer;
    p.asked = request;
    p.asked.remove(QStringLiteral("id"));
    auto bad = [&](const QString &field) {
        refuse(client, id, command, request, Code::BadArgument, field + QStringLiteral(": ") + why);
    };
    const quint64 req = nextRequest();
    if (command == QLatin1String("submit")) {
        const QJsonValue spec = request.value(QStringLiteral("spec"));
        if (!spec.isObject()) {
            why = QStringLiteral("must be a workload spec (a JSON object)");
            return bad(QStringLiteral("spec"));
        }
        m_pending.insert(req, p);
        m_session.submitWorkload(req, spec.toObject());
        return;
    }
    if (command == QLatin1String("schedule-set")) {
        const QJsonValue schedule = request.value(QStringLiteral("schedule"));
        if (!schedule.isObject()) {
            why = QStringLiteral("must be the windows policy's parameters (a JSON object)");
            return bad(QStringLiteral("schedule"));
        }
        QList<int> confirmed;
        const QJsonValue victims = request.value(QStringLiteral("victims"));
        if (!victims.isUndefined() && !jobIdList(victims, &confirmed, &why))
            return bad(QStringLiteral("victims"));
        p.before = subjectState(command, -1, -1);
        m_pending.insert(req, p);
        if (victims.isUndefined())
            m_session.setSchedule(req, schedule.toObject());
        else
            m_session.setScheduleConfirmed(req, schedule.toObject(), confirmed);
        return;
    }
    if (command == QLatin1String("layout-apply")) {
        int card = -1;
        QList<Domain::MigPlacement> layout;
        QString field;
        if (!cardLayoutArguments(request, s.get(), &card, &layout, &why, &field))
            return bad(field);
        const auto deadline = intArgument(request, QStringLiteral("drain_deadline_ms"), &why, -1);
        if (!deadline)
            return bad(QStringLiteral("drain_deadline_ms"));
        p.card = card;
        p.before = subjectState(command, p.card, -1);
        m_pending.insert(req, p);
        m_session.applyLayout(req,
                              p.card,
                              layout,
                              *deadline >= 0 ? Session::ApplyMode::Drain
                                             : Session::ApplyMode::Immediate,
                              std::max<qint64>(0, *deadline));
        return;
    }
    if (command == QLatin1String("card-cordon") || command == QLatin1String("card-uncordon")) {
        const auto card = intArgument(request, QStringLiteral("card"), &why);
        if (!card)
            return bad(QStringLiteral("card"));
        if (!s || *card < 0 || *card >= s->state.cards().size()) {
            why = QStringLiteral("no card %1 on this appliance").arg(*card);
            return bad(QStringLiteral("card"));
        }
        const QJsonValue drain = request.value(QStringLiteral("drain"));
        if (!drain.isUndefined() && !drain.isBool()) {
            why = QStringLiteral("must be true or false");
            return bad(QStringLiteral("drain"));
        }
        p.card = int(*card);
        p.before = subjectState(command, p.card, -1);
        m_pending.insert(req, p);
        m_session.cordonCard(
                req, p.card, command == QLatin1String("card-cordon"), drain.toBool(false));
        return;
    }
    if (command == QLatin1String("layout-pin") || command == QLatin1String("layout-unpin")) {
        const auto card = intArgument(request, QStringLiteral("card"), &why);
        if (!card)
            return bad(QStringLiteral("card"));
        if (!s || *card < 0 || *card >= s->state.cards().size()) {
            why = QStringLiteral("no card %1 on this appliance").arg(*card);
            return bad(QStringLiteral("card"));
        }
        qint64 until = 0; // unpin
        if (command == QLatin1String("layout-pin")) {
            const bool hasUntil = request.contains(QStringLiteral("until_ms"));
            const bool hasFor = request.contains(QStringLiteral("for_ms"));
            if (hasUntil && hasFor) {
                why = QStringLiteral("give \"until_ms\" or \"for_ms\", not both");
                return bad(QStringLiteral("for_ms"));
            }
            if (hasFor) {
                const auto forMs = intArgument(request, QStringLiteral("for_ms"), &why);
                if (!forMs)
                    return bad(QStringLiteral("for_ms"));
                if (*forMs <= 0) {
                    why = QStringLiteral("must be more than 0 (a duration in ms)");
                    return bad(QStringLiteral("for_ms"));
                }
                until = s->nowMs + *forMs;
            } else {
                const auto untilMs = intArgument(request, QStringLiteral("until_ms"), &why, -1);
                if (!untilMs)
                    return bad(QStringLiteral("until_ms"));
                if (*untilMs != -1 && *untilMs <= s->nowMs) {
                    why = QStringLiteral("must be -1 (until unpinned) or after the appliance's now "
                                         "(%1)")
                                  .arg(s->nowMs);
                    return bad(QStringLiteral("until_ms"));
                }
                until = *untilMs;
            }
        }
        p.card = int(*card);
        p.before = subjectState(command, p.card, -1);
        m_pending.insert(req, p);
        m_session.pinLayout(req, p.card, until);
        return;
    }
    // The job commands.
    const auto job = intArgument(request, QStringLiteral("job"), &why);
    if (!job)
        return bad(QStringLiteral("job"));
    p.job = int(std::clamp<qint64>(*job, -1, INT_MAX));
    if (command == QLatin1String("priority")) {
        const auto priority = intArgument(request, QStringLiteral("priority"), &why);
        if (!priority || *priority < INT_MIN || *priority > INT_MAX) {
            why = why.isEmpty() ? QStringLiteral("out of range") : why;
            return bad(QStringLiteral("priority"));
        }
        p.before = subjectState(command, -1, p.job);
        m_pending.insert(req, p);
        m_session.setJobPriority(req, p.job, int(*priority));
        return;
    }
    if (command == QLatin1String("place")) {
        const auto card = intArgument(request, QStringLiteral("card"), &why);
        if (!card)
            return bad(QStringLiteral("card"));
        p.card = int(std::clamp<qint64>(*card, -1, INT_MAX));
        // "victims": the plan the operator confirmed; refused when the appliance would now
        // preempt others (or none, or cannot place it).
        // "over_budget": true, the operator's "place anyway, over the class budget", carries the
        // preview's over-budget plan ("victims", [] or absent when it needs none).
        const QJsonValue victims = request.value(QStringLiteral("victims"));
        QList<int> confirmed;
        if (!victims.isUndefined() && !jobIdList(victims, &confirmed, &why))
            return bad(QStringLiteral("victims"));
        const QJsonValue overBudget = request.value(QStringLiteral("over_budget"));
        if (!overBudget.isUndefined() && !overBudget.isBool()) {
            why = QStringLiteral("must be true or false");
            return bad(QStringLiteral("over_budget"));
        }
        p.before = subjectState(command, -1, p.job);
        m_pending.insert(req, p);
        if (overBudget.toBool(false))
            m_session.placeJobConfirmed(req, p.job, p.card, confirmed, Sched::BudgetRule::Exceed);
        else if (!victims.isUndefined())
            m_session.placeJobConfirmed(req, p.job, p.card, confirmed, Sched::BudgetRule::Keep);
        else
            m_session.placeJob(
                    req, p.job, p.card, request.value(QStringLiteral("preempt")).toBool(false));
        return;
    }
    p.before = subjectState(command, -1, p.job);
    m_pending.insert(req, p);
    if (command == QLatin1String("cancel"))
        m_session.cancelJob(req, p.job);
    else
        m_session.requeueJob(req, p.job);
}

void Server::finish(quint64 request, const CommandResult &r)
{
    const auto it = m_pending.find(request);
    if (it == m_pending.end())
        return;
    const Pending p = *it;
    m_pending.erase(it);
    const int job = r.job.isValid() ? r.job.value() : p.job;
    if (r.ok && p.command == QLatin1String("schedule-set")) {
        m_schedule = p.asked.value(QStringLiteral("schedule")).toObject();
        if (Storage::Store *store = m_session.eventStore())
            store->putState(QString::fromLatin1(Storage::StateKey::Windows),
                            QJsonDocument(m_schedule).toJson(QJsonDocument::Compact),
                            m_options.clock());
    }
    const QJsonObject params
            = changeAuditParams(p.asked, p.before, subjectState(p.command, p.card, job), r);
    audit(p.peer,
          p.command,
          r.ok ? Storage::Severity::Info : Storage::Severity::Warning,
          p.card,
          job,
          params);
    QString err;
    if (!m_session.commitNow(&err)) {
        // Done, but not durable: the operator must know the store failed.
        reply(p.socket,
              errorAnswer(p.id,
                          "internal",
                          QStringLiteral("%1 %2, but the store did not commit it: %3")
                                  .arg(p.command,
                                       r.ok ? QStringLiteral("was done")
                                            : QStringLiteral("was refused"),
                                       err)));
        return;
    }
    if (r.ok)
        reply(p.socket, okAnswer(p.id, commandResultJson(r)));
    else {
        // The scheduler's status too, so that a console says why in its own language.
        QJsonObject answer = errorAnswer(p.id, Code::Refused, r.error, r.field);
        QJsonObject error = answer.value(QStringLiteral("error")).toObject();
        error.insert(QStringLiteral("status"), Storage::statusToJson(r.status));
        if (!r.problem.isNone())
            error.insert(QStringLiteral("problem"), problemJson(r.problem));
        if (r.planChanged)
            error.insert(QStringLiteral("plan_changed"), true);
        answer.insert(QStringLiteral("error"), error);
        reply(p.socket, answer);
    }
}

} // namespace Zhaoxi::Service
