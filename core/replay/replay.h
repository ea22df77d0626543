// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sim/report.h"
#include "core/sim/scenario.h"
#include "core/storage/metrics.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace Zhaoxi::Catalogue {
class Catalogue;
}
namespace Zhaoxi::Storage {
class Reader;
struct Event;
} // namespace Zhaoxi::Storage

namespace Zhaoxi::Replay {

// A recorded period of a store, made into a scenario the twin can replay (docs/replay.md):
// the run's basis (the appliance, its physics and its policies' parameters, from the "run-basis"
// event at or before the period), each service's recorded request rate minute by minute and its
// measured service time, the training and batch jobs submitted with their specs at their times
// (those still running at the start with the work they had left), and the faults.
struct RecordedPeriod
{
    Sim::Scenario scenario; // starts at `fromMs`, lasts until `toMs`
    qint64 fromMs = 0;
    qint64 toMs = 0;
    QString basisPolicy; // the policy in force when the recording started
    quint64 seed = 1;
    qint64 basisAtMs = 0;     // when that run started
    QStringList notes;        // what the replay had to approximate, in English
    Sim::Report actual;       // what happened, in a replay's columns (policy "recorded")
    int recordedServices = 0; // services with a recorded rate
    int recordedJobs = 0;     // training and batch jobs resubmitted
    int recordedFaults = 0;
};

// A series' points over [fromMs, toMs] as a replay reads them: the raw samples where they are
// still kept, the minute buckets before them (raw samples live 6 hours, minutes 8 days), the
// quarter hours before those. Each point's atMs is when it was taken (raw) or its bucket's start.
QList<Storage::MetricPoint> recordedPoints(Storage::Reader &reader,
                                           const Storage::SeriesKey &key,
                                           qint64 fromMs,
                                           qint64 toMs,
                                           QString *error = nullptr);

// A recorded event's parameters ({} when it has none).
QJsonObject eventParams(const Storage::Event &event);
// A service's name, as its replicas' series and events carry it.
QString serviceName(const Sim::ServiceDef &def);

// A service's recorded minutes over (fromMs, toMs]: at each `request-rate` point, the requests
// that arrived since the point before (rate × span, the first span from fromMs, each at most a
// quarter hour) and the share of them within the SLO (`slo-attainment` at that point; NaN when
// none was recorded).
struct RecordedRequests
{
    qint64 atMs = 0;
    double requests = 0;
    double attainment = 0;
};
QList<RecordedRequests> recordedRequests(Storage::Reader &reader,
                                         const QString &service,
                                         qint64 fromMs,
                                         qint64 toMs,
                                         QString *error = nullptr);

// Reads [fromMs, toMs) of the store. nullopt with *error naming what is missing or wrong (the
// period, the store, the basis). The period is cut to the recording's extent (from the run's
// basis to the last sample), said in `notes`.
std::optional<RecordedPeriod> readRecordedPeriod(Storage::Reader &reader,
                                                 qint64 fromMs,
                                                 qint64 toMs,
                                                 const Catalogue::Catalogue &catalogue,
                                                 QString *error);

// Replays the period under `policy` (empty: the one that ran) with the recording's seed.
Sim::Report replay(const RecordedPeriod &period, const QString &policy);

// What actually happened first (its work bound taken from the replays, the same arrivals), then
// every policy's replay: the rows of `zhaoxictl replay --compare`.
// `before`, when given, is called before each policy's replay (its index from 0, its name);
// returning false stops there and the result is empty (a cancelled comparison).
QList<Sim::Report> replayCompare(const RecordedPeriod &period,
                                 const std::function<bool(int index, const QString &policy)> &before
                                 = {});

// The JSON of a replay (`zhaoxictl replay --json`): the period, notes, and the reports.
QJsonObject replayJson(const RecordedPeriod &period, const QList<Sim::Report> &reports);

} // namespace Zhaoxi::Replay
