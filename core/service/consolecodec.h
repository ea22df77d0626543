// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/catalogue/catalogue.h"
#include "core/session/session.h"
#include "core/session/snapshot.h"

#include <QJsonObject>

#include <optional>

namespace Zhaoxi::Service {

// The console's picture of the appliance, whole, as one JSON object: what a console attached to
// the service (`zhaoxi --connect`, RemoteSession) rebuilds its Snapshot from, so that every view
// reads the same values an embedded console would. Pushed as {"push": "console", "console": ...}
// to clients that subscribed with "console": true (docs/service.md).
//
//   {"serial", "now_ms", "start_ms", "end_ms", "utc_offset_s", "speed", "paused", "finished",
//    "simulated", "read_only", "read_only_reason", "appliance", "policy", "window",
//    "topology": {"hosts": [{"name", "cpu_milli", "memory_mib",
//                            "cards": [{"model", "link_domain"}]}]},
//    "layouts": statecodec's layouts document, "jobs": its queue document,
//    "cordoned": [card, ...], "queue": [job, ...], "budget": {...},
//    "samples": [every CardSample member, "units": [unitSampleJson]], "services": [...], "training": [...],
//    "events": [eventJson, ...], "traces": [decisionTraceToJson, ...]}
//
// `events` and `traces` are the ones since the previous push to that client (a snapshot's own
// lists are since the previous snapshot, and a client may take one in several).
QJsonObject consoleJson(const Session::Snapshot &snapshot,
                        const QList<Storage::Event> &events,
                        const QList<Sched::DecisionTrace> &traces);

// One partition's sample (CardSample::units, and a card's "units" in the service's cards):
// {"uid", "utilisation" (0..1, null: not available), "memory_used_mib" (-1: unknown),
//  "processes": [{"pid", "name", "memory_mib", "job" (-1: not Zhaoxi's)}]}
QJsonObject unitSampleJson(const Session::UnitSample &unit);
Session::UnitSample unitSampleFromJson(const QJsonObject &json);

// The same in the two parts the service sends: the picture without events and traces (compact
// JSON text, written once per snapshot whoever many consoles take it), and one client's push line
// ({"push": "console", "console": ...} and '\n') with its events and traces added.
//
// With a cache (one per writer), the store's documents are written again only when the state's
// cards or jobs changed: the cache holds a shallow copy of each list, so a change to the
// scheduler's state detaches it and the shared data differs.
struct PictureCache
{
    QList<Sched::CardState> cards;
    QList<Sched::HostState> hosts;
    QList<Sched::Job> jobs;
    QByteArray layouts;
    QByteArray queue;
};
QByteArray consolePicture(const Session::Snapshot &snapshot, PictureCache *cache = nullptr);
QByteArray consolePushLine(const QByteArray &picture,
                           const QList<Storage::Event> &events,
                           const QList<Sched::DecisionTrace> &traces);

// Rebuilds a snapshot from consoleJson over `catalogue` (the console's: a card model it does not
// know is an error). nullopt with an English *error naming the member that is wrong; the
// snapshot's state passes checkInvariants().
std::optional<Session::Snapshot> snapshotFromConsoleJson(const QJsonObject &json,
                                                         const Catalogue::Catalogue &catalogue,
                                                         QString *error);

// A stored event as the API writes it (protocol.h eventJson) read back.
std::optional<Storage::Event> eventFromJson(const QJsonObject &json, QString *error);

// The answers of the API's commands read back into the session's types (RemoteSession): the
// result of a change (an ok answer's result, or an error answer's error object), a placement
// preview, a layout preview (for a card of `model`), a job's log.
Session::CommandResult commandResultFromAnswer(const QJsonObject &answer);
Session::PlacementPreview placementPreviewFromJson(const QJsonObject &result,
                                                   const Sched::ClusterState *state = nullptr);
Session::SchedulePreview schedulePreviewFromJson(const QJsonObject &result);
Session::LayoutPreview layoutPreviewFromJson(const QJsonObject &result,
                                             const Domain::CardModel *model);
Session::JobLog jobLogFromJson(const QJsonObject &result);

} // namespace Zhaoxi::Service
