// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ratecurve.h"
#include "trainingrun.h"

#include "core/device/simulatedbackend.h"
#include "core/policy/policy.h"
#include "core/sched/appliancefile.h"
#include "core/sched/scheduler.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace Zhaoxi::Sim {

// One inference service: the replica's workload spec and the request model.
struct ServiceDef
{
    Domain::WorkloadSpec spec; // kind inference; the unit one replica takes
    double serviceMs = 10;     // per request on a whole reference card
    double cv = 0;             // of the service time
    double requestMB = 0;      // host-path traffic per request
    qint64 loadMs = 20'000;    // a new replica loads its model before it serves
    RateCurve curve;
    QString curveSource;     // for the report: file, trace or formula
    int initialReplicas = 0; // a replay: replicas serving at its start (0: the policy's choice)
};

struct TrainingDef
{
    Domain::WorkloadSpec spec; // kind training (or batch)
    qint64 submitAtMs = 0;     // after the start
    double workMs = 0;         // reference-card ms at full speed
    qint64 restartCostMs = 120'000;
    double dataGBps = 0.5;   // host-path input per card at full speed
    double checkpointGB = 0; // written over the network at each checkpoint
    TrainingRun::Loss loss;
};

struct FaultDef
{
    qint64 atMs = 0; // after the start
    Domain::CardId card;
    Device::FaultKind kind = Device::FaultKind::CardLost;
    qint64 durationMs = 0;
};

// What a run learnt of one service from the appliance's store before it started
// (core/replay/storehistory.h, docs/simulation.md "Learning from the store").
struct LearnedService
{
    // The recorded past, one entry per local day before the start (oldest first, the last one
    // the day before; a day not covered enough is empty), with weekdays: the forecast's history
    // instead of the synthetic one. Empty: the synthetic past (too little was recorded).
    QList<Policy::HistoryDay> days;
    // Whether the days' weekdays tell their shapes apart (recorded days); false for a past
    // drawn from one daily curve (a replay's synthetic past), which the forecast pools.
    bool byWeekday = true;
    // The measured mean time of one request on the service's own unit, and the same in
    // reference-card ms (what ServiceDef::serviceMs became); < 0: not measured, the scenario's.
    double unitMs = -1;
    double serviceMs = -1;
    qint64 unitMilli = 0; // the unit it was measured on
    qint64 samples = 0;   // how many samples the mean took
};

struct HostPaths
{
    double pcieGBps = 64;    // host memory <-> cards
    double networkGBps = 25; // to storage and other hosts
};

// A scenario file (docs/simulation.md): the appliance, its physics, the workloads, faults and
// the policies' parameters. A plain value.
struct Scenario
{
    QString file;
    QByteArray source; // the JSON it was read from (a recording's replay basis)
    QString name;
    qint64 startMs = 0;     // UTC epoch ms of the simulation's start
    qint64 utcOffsetMs = 0; // local time = UTC + this (windows, rate curves)
    qint64 durationMs = 0;
    quint64 seed = 1;
    int referenceModel = -1; // catalogue index: the card serviceMs and work are measured on
    Sched::Appliance appliance;
    Device::SimulatedBackendOptions device;
    Sched::SchedulerOptions scheduler;
    qint64 controlPeriodMs = 5000;
    int windowSlots = 12;         // the policies' sliding window = windowSlots * controlPeriodMs
    QList<HostPaths> paths;       // per host, in appliance order
    double powerBudgetW = -1;     // the appliance's total; -1 none
    double gangEfficiency = 0.98; // throughput kept per doubling of a gang in one link domain
    double crossDomainEfficiency = 0.9; // per doubling across link domains
    bool reclaimIdlePartitions = true;
    // zhaoxictl run (real processes on the wall clock): scenario seconds per wall second, so a
    // day's shape can pass in minutes; and whether each service is driven by zhaoxi-demo-load
    // along its rate curve.
    double liveSpeed = 1;
    bool liveLoad = false;
    int historyDays = 7;
    double historyNoise = 0.1;
    // Per service name: what the run learnt from its store at the start (empty: nothing, the
    // synthetic past and the scenario's service times). Not read from the file.
    QHash<QString, LearnedService> learned;
    QList<ServiceDef> services;
    QList<TrainingDef> training;
    QList<FaultDef> faults;
    QString defaultPolicy = QStringLiteral("forecast");
    QJsonObject policyParams; // by policy name
};

// Why a scenario was refused: the file, the field (a JSON path such as
// "services[1].rate.peak"; empty for the file as a whole) and why. Syntax errors and repeated keys
// give the line and column.
struct ScenarioError
{
    QString file;
    QString field;
    QString message;
    int line = 0;
    int column = 0;
    QString toString() const;
};

// Reads a scenario. All-or-nothing: the first problem is reported and nothing is returned half
// made. A key given twice in one object is refused, and so is a name (or any string the scenario
// itself reads) holding a NUL, a control character or a lone UTF-16 surrogate. Relative paths (rate curves, traces) are resolved against `baseDir`. Every policy's
// parameters are checked too.
std::optional<Scenario> readScenario(const QByteArray &json,
                                     const QString &fileName,
                                     const QString &baseDir,
                                     const Catalogue::Catalogue &catalogue,
                                     ScenarioError *error);
// What one replica of a service holds: its compute in milli-cards and its speed in reference
// cards, on the first card model of the appliance that can serve it (1 and 1000 when none can).
struct ReplicaUnit
{
    double unitRef = 1;
    qint64 unitMilli = 1000;
};
ReplicaUnit replicaUnit(const Scenario &scenario, const ServiceDef &def);

// The service's request rate on each of the scenario's history days before its start, as the
// appliance would have recorded them (req/s per bucket of `bucketMs` from local midnight, oldest
// day first): the same daily shape, each day a little busier or quieter, Poisson counts. Its own
// random stream of `seed`. The twin and the real run give their forecasts the same past.
QList<QList<double>> syntheticHistory(const Scenario &scenario,
                                      int service,
                                      quint64 seed,
                                      qint64 bucketMs);

// The same days with their weekdays (those of the days before the scenario's start, in its
// local time), byWeekday only for a weekly curve: a daily curve's days differ only by noise.
Policy::HistoryDays syntheticHistoryDays(const Scenario &scenario,
                                         int service,
                                         quint64 seed,
                                         qint64 bucketMs);
// The past the twin and the real run give their forecasts: the days learnt from the store
// (Scenario::learned, byWeekday) when there are, else syntheticHistoryDays.
Policy::HistoryDays scenarioHistoryDays(const Scenario &scenario,
                                        int service,
                                        quint64 seed,
                                        qint64 bucketMs);
// Only the days' rates, for PolicyContext::history.
QList<QList<double>> historyRates(const Policy::HistoryDays &history);

std::optional<Scenario> loadScenarioFile(const QString &path,
                                         const Catalogue::Catalogue &catalogue,
                                         ScenarioError *error);

} // namespace Zhaoxi::Sim
