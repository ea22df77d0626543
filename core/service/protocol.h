// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/session/session.h"
#include "core/session/snapshot.h"
#include "core/storage/event.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>

#include <optional>

namespace Zhaoxi::Service {

// The service's wire format (docs/service.md): one JSON object per line (UTF-8, '\n'), at most
// kMaxMessageBytes a line, both ways.
//
//   request  {"id": ID, "cmd": NAME, ...arguments}          ID: any JSON value, echoed
//   answer   {"id": ID, "ok": true, "result": {...}}
//            {"id": ID, "ok": false, "error": {"code": CODE, "message": TEXT, "field": PATH}}
//   push     {"push": "snapshot", "snapshot": {...}} | {"push": "event", "event": {...}}
//            (after "subscribe")
//
// Error codes (stable): malformed (not JSON, not an object, a line too long), unknown-command,
// bad-argument (the field names it), forbidden (the peer may only read), refused (the appliance
// said no: the message says why), unavailable (shutting down), internal.
inline constexpr qint64 kMaxMessageBytes = 1 << 20;
// Where the packaged service listens (packaging/zhaoxid.service) and clients look by default.
inline constexpr char kDefaultSocket[] = "/run/zhaoxi/zhaoxid.sock";
inline constexpr int kProtocolVersion = 1;

namespace Code {
inline constexpr char Malformed[] = "malformed";
inline constexpr char UnknownCommand[] = "unknown-command";
inline constexpr char BadArgument[] = "bad-argument";
inline constexpr char Forbidden[] = "forbidden";
inline constexpr char Refused[] = "refused";
inline constexpr char Unavailable[] = "unavailable";
} // namespace Code

// The commands, and whether each changes the appliance (an operator's right, audited).
struct CommandInfo
{
    const char *name;
    bool changes;
    const char *synopsis; // the arguments, for "help"
};
const QList<CommandInfo> &commands();
const CommandInfo *findCommand(QStringView name);

// The answers' and pushes' JSON.
QJsonObject okAnswer(const QJsonValue &id, const QJsonObject &result);
QJsonObject errorAnswer(const QJsonValue &id,
                        const char *code,
                        const QString &message,
                        const QString &field = {});
QByteArray encodeLine(const QJsonObject &message); // compact JSON + '\n'

// What a snapshot says, for clients (snake_case keys). With `withState`, also "state": the
// store's layouts and queue documents (statecodec.h), from which a console rebuilds the state.
QJsonObject snapshotJson(const Session::Snapshot &snapshot, bool withState);
QJsonArray cardsJson(const Session::Snapshot &snapshot);
QJsonArray jobsJson(const Session::Snapshot &snapshot);
QJsonObject eventJson(const Storage::Event &event);
QJsonObject commandResultJson(const Session::CommandResult &result);
// Why something was refused, as a code beside its English "message" / "error" (a console words
// it in its own language): {"code": "no-job", "args": ["3"]}. Decoded back, an unknown code or
// none is the English text as it came.
QJsonObject problemJson(const Domain::Problem &problem);
Domain::Problem problemFromJson(const QJsonValue &json, const QString &english);
// A refused drop's "layout_fit" names the target's profiles by the model of its card in `state`
// (left out without one).
QJsonObject placementPreviewJson(const Session::PlacementPreview &preview,
                                 const Sched::ClusterState *state = nullptr);
// "schedule-preview": policy_before/after, window_before/after, budget_before/after
// ({training,inference,batch}_milli), evictions [{job, name, at_checkpoint, leaves_at_ms,
// lost_work_ms, reason}], services [{service, name, replicas_before, replicas_after, slo_ms,
// observed_rate, p99_after_ms (null: cannot keep up), at_risk}], moved_replicas,
// needs_confirmation, now_ms.
QJsonObject schedulePreviewJson(const Session::SchedulePreview &preview);
// A MIG layout on the wire, ["3g.71gb@0", ...], by the card's model ("#7@0" without one).
QJsonArray layoutJson(const Domain::CardModel *model, const QList<Domain::MigPlacement> &layout);
// The inverse, all or nothing: nullopt with *error (English) at the first entry that is not a
// PROFILE@START string of `model`.
std::optional<QList<Domain::MigPlacement>> layoutFromJson(const QJsonArray &layout,
                                                          const Domain::CardModel &model,
                                                          QString *error);
QJsonObject budgetJson(const Sched::ClassBudget &budget);
QJsonObject layoutPreviewJson(const Session::LayoutPreview &preview,
                              const Domain::CardModel *model);
QJsonObject jobLogJson(const Session::JobLog &log);
// What a change touches, as its audit event records it before and after: a job's name, state,
// priority and units; a card's MIG layout (layout-apply); `schedule` (schedule-set: the schedule
// and policy in force).
QJsonObject subjectStateJson(const Session::Snapshot &snapshot,
                             const QString &command,
                             int card,
                             int job,
                             const QJsonObject &schedule);
// The schedule in force as schedule-get answers it: the windows schedule set (null when none was)
// and the snapshot's policy and window.
QJsonObject scheduleInForceJson(const QJsonObject &schedule, const Session::Snapshot *snapshot);
// An answered change's audit params: asked, ok, before, after, and for a refusal why ("refused")
// and the spec's field. The service and the embedded console record the same.
QJsonObject changeAuditParams(const QJsonObject &asked,
                              const QJsonObject &before,
                              const QJsonObject &after,
                              const Session::CommandResult &result);

// Arguments. Each returns nullopt with *error (English) naming the argument when it is missing
// or of the wrong type.
std::optional<qint64> intArgument(const QJsonObject &request,
                                  const QString &name,
                                  QString *error,
                                  std::optional<qint64> fallback = std::nullopt);
// A layout as ["3g.40gb@0", ...] for the card's model.
std::optional<QList<Domain::MigPlacement>> layoutArgument(const QJsonObject &request,
                                                          const Domain::CardModel &model,
                                                          QString *error);
// "card" (one of `snapshot`'s) and "layout" (for that card's model) of a request about one card;
// false with *error and *field ("card" or "layout") when either is wrong.
bool cardLayoutArguments(const QJsonObject &request,
                         const Session::Snapshot *snapshot,
                         int *card,
                         QList<Domain::MigPlacement> *layout,
                         QString *error,
                         QString *field);

} // namespace Zhaoxi::Service
