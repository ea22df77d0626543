// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/clusterstate.h"
#include "core/sched/decisiontrace.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace Zhaoxi::Storage {

// The scheduler's state as the store keeps it (StateKey::Layouts and StateKey::Queue), so a
// restart comes back to the same layouts and queue. Pure functions; any thread.
//
// layouts: {"cards": [{"card", "model", "mode", "health", "nextUid",
//                      "units": [{"uid", "profile" (MIG name, or absent), "start", "milli",
//                                 "memoryMiB", "state", "job" (or absent)}]}],
//           "hosts": [{"host", "name", "up"}]}
// queue:   {"jobs": [{"id", "spec" (workloadSpecToJson), "state", "submittedMs", "startedMs",
//                     "endedMs", "workDoneMs", "checkpointMs", "lostWorkMs", "accountedAtMs",
//                     "preemptions", "evictAtMs", "preemptedBy", "host",
//                     "assignments": [{"card", "uid"}]}]}
QByteArray layoutsToJson(const Sched::ClusterState &state);
QByteArray queueToJson(const Sched::ClusterState &state);

// Rebuilds layouts and jobs onto `state`, which must hold the appliance's topology (hosts and
// cards, e.g. from its appliance file) and no jobs. MIG instances come back with their uids;
// running jobs are bound again to the same units (soft shares too keep their uids; a card's next
// new unit continues its numbering, "nextUid"). On failure returns
// false with an English *error naming the card or job, and `state` is unspecified.
bool restoreState(Sched::ClusterState &state,
                  const QByteArray &layouts,
                  const QByteArray &queue,
                  QString *error);

// A decision trace as JSON (reasons by their stable codes), and back: nullopt with an English
// *error naming the member that is wrong. decisionTraceFromJson(decisionTraceToJson(t)) == t's
// members, for every trace.
QByteArray decisionTraceToJson(const Sched::DecisionTrace &trace);
std::optional<Sched::DecisionTrace> decisionTraceFromJson(const QJsonObject &json, QString *error);

// Job ids as a JSON array ([3, 5]): a confirmed plan's victims as the service's API spells them.
QJsonArray jobIdsToJson(const QList<int> &jobs);

// A scheduling status as {"code", "reason", "need", "have"}, and back (an unknown code or reason
// is an error naming it).
QJsonObject statusToJson(const Sched::Status &status);
std::optional<Sched::Status> statusFromJson(const QJsonObject &json, QString *error);

} // namespace Zhaoxi::Storage
