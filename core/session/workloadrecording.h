// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QHash>
#include <QList>
#include <QString>

#include <cmath>

namespace Zhaoxi::Sim {
class Engine;
struct Scenario;
} // namespace Zhaoxi::Sim
namespace Zhaoxi::Policy {
struct ServiceView;
}
namespace Zhaoxi::Storage {
class Recorder;
}

namespace Zhaoxi::Session {

// What the store keeps of the workloads so that a period can be replayed and the forecast can
// learn the day (docs/storage.md, "What a replay reads"): per service the requests that arrived,
// the share served within the SLO and the time one request takes on one replica's unit; per
// training job the work done so far.
struct ServiceTally
{
    QString name;
    qint64 arrivals = 0;              // since the run started
    qint64 completed = -1;            // finished since the start; -1: unknown (use `attainment`)
    qint64 withinSlo = 0;             // of those, within the SLO
    double attainment = std::nan(""); // over the period just ended, when `completed` is unknown
    double serviceMs = 0;             // one request on one replica's unit
    qint64 unitMilli = 0;             // that unit's compute, milli-cards
    double p99Ms = std::nan("");      // over the policies' sliding window
    int replicas = 0;                 // serving now
};

struct TrainingTally
{
    int job = -1;
    double doneHours = 0; // reference card-hours done since it was submitted
};

// The twin's tallies (cumulative counts: exact per period).
QList<ServiceTally> serviceTallies(const Sim::Engine &engine);
QList<TrainingTally> trainingTallies(const Sim::Engine &engine);
// The real run's (a service's views as its policy sees them: SLO attainment over the window).
QList<ServiceTally> serviceTallies(const QList<Policy::ServiceView> &views);

// Turns tallies taken once a period into the store's series: Metric::RequestRate (arrivals per
// second over the period), SloAttainment, ServiceTimeMs (partition = the unit's milli-cards),
// LatencyP99Ms, Replicas, and TrainingWorkH per job. A clock that goes back (the twin's day
// restarted) starts the counting again.
class WorkloadRecording
{
public:
    void record(Storage::Recorder &recorder,
                qint64 atMs,
                const QList<ServiceTally> &services,
                const QList<TrainingTally> &training);

private:
    struct Last
    {
        qint64 arrivals = 0;
        qint64 completed = 0;
        qint64 withinSlo = 0;
    };
    qint64 m_lastMs = -1;
    QHash<QString, Last> m_last;
};

// The run's basis for a replay: a policy event "run-basis" with the scenario it was read from
// (its JSON), the policy in force and the seed. Written when a run starts recording.
void recordRunBasis(Storage::Recorder &recorder,
                    qint64 atMs,
                    const Sim::Scenario &scenario,
                    const QString &policy,
                    quint64 seed);

} // namespace Zhaoxi::Session
