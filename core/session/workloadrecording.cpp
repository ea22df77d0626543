// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloadrecording.h"

#include "core/policy/policy.h"
#include "core/sim/engine.h"
#include "core/sim/scenario.h"
#include "core/storage/recorder.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace Zhaoxi::Session {

namespace {
constexpr double kHourMs = 3600'000.0;
}

QList<ServiceTally> serviceTallies(const Sim::Engine &engine)
{
    QList<ServiceTally> out;
    const Sim::Scenario &sc = engine.scenario();
    for (int i = 0; i < engine.serviceCount() && i < sc.services.size(); ++i) {
        const Sim::ServiceDef &def = sc.services[i];
        const Sim::InferenceService &s = engine.service(i);
        const Sim::ReplicaUnit unit = Sim::replicaUnit(sc, def);
        ServiceTally t;
        t.name = def.spec.inference ? def.spec.inference->service : def.spec.name;
        t.arrivals = s.arrivals();
        t.completed = s.requests();
        t.withinSlo = s.withinSlo();
        t.serviceMs = def.serviceMs / std::max(1e-6, unit.unitRef);
        t.unitMilli = unit.unitMilli;
        t.replicas = s.servingReplicas();
        if (s.window().count() > 0)
            t.p99Ms = s.window().quantileMs(0.99);
        out.append(t);
    }
    return out;
}

QList<TrainingTally> trainingTallies(const Sim::Engine &engine)
{
    QList<TrainingTally> out;
    for (int i = 0; i < engine.trainingCount(); ++i) {
        if (!engine.trainingJob(i).isValid())
            continue; // not submitted yet
        out.append({engine.trainingJob(i).value(), engine.trainingRun(i).doneMs() / kHourMs});
    }
    return out;
}

QList<ServiceTally> serviceTallies(const QList<Policy::ServiceView> &views)
{
    QList<ServiceTally> out;
    for (const Policy::ServiceView &v : views) {
        ServiceTally t;
        t.name = v.name;
        t.arrivals = v.arrivals;
        if (v.windowRequests > 0)
            t.attainment = 1.0 - double(v.windowOverSlo) / double(v.windowRequests);
        t.serviceMs = v.serviceMs;
        t.unitMilli = v.unitMilli;
        t.replicas = v.serving;
        if (v.windowRequests > 0)
            t.p99Ms = v.windowP99Ms;
        out.append(t);
    }
    return out;
}

void WorkloadRecording::record(Storage::Recorder &rec,
                               qint64 at,
                               const QList<ServiceTally> &services,
                               const QList<TrainingTally> &training)
{
    using Storage::Metric;
    if (m_lastMs >= 0 && at < m_lastMs)
        m_last.clear(); // the clock went back: a new run
    const bool first = m_lastMs < 0 || at < m_lastMs;
    const qint64 spanMs = first ? 0 : at - m_lastMs;
    for (const ServiceTally &t : services) {
        const Last before = m_last.value(t.name);
        if (!first && spanMs > 0) {
            const qint64 arrived = std::max<qint64>(0, t.arrivals - before.arrivals);
            rec.recordMetric(at,
                             {Metric::RequestRate, -1, -1, t.name, -1},
                             double(arrived) * 1000.0 / double(spanMs));
            double attainment = t.attainment;
            if (t.completed >= 0) {
                const qint64 done = t.completed - before.completed;
                attainment = done > 0 ? double(t.withinSlo - before.withinSlo) / double(done)
                                      : std::nan("");
            }
            if (!std::isnan(attainment))
                rec.recordMetric(at,
                                 {Metric::SloAttainment, -1, -1, t.name, -1},
                                 std::clamp(attainment, 0.0, 1.0));
        }
        if (t.serviceMs > 0 && t.unitMilli > 0)
            rec.recordMetric(
                    at, {Metric::ServiceTimeMs, -1, int(t.unitMilli), t.name, -1}, t.serviceMs);
        if (!std::isnan(t.p99Ms))
            rec.recordMetric(at, {Metric::LatencyP99Ms, -1, -1, t.name, -1}, t.p99Ms);
        rec.recordMetric(at, {Metric::Replicas, -1, -1, t.name, -1}, double(t.replicas));
        m_last.insert(t.name, {t.arrivals, std::max<qint64>(0, t.completed), t.withinSlo});
    }
    for (const TrainingTally &t : training)
        rec.recordMetric(at, {Metric::TrainingWorkH, -1, -1, {}, t.job}, t.doneHours);
    m_lastMs = at;
}

void recordRunBasis(Storage::Recorder &rec,
                    qint64 at,
                    const Sim::Scenario &scenario,
                    const QString &policy,
                    quint64 seed)
{
    const QJsonObject source = QJsonDocument::fromJson(scenario.source).object();
    rec.recordPolicy(
            at,
            "run-basis",
            Storage::Severity::Info,
            {{QStringLiteral("scenario"), source},
             {QStringLiteral("file"), scenario.file},
             {QStringLiteral("startMs"), scenario.startMs},
             {QStringLiteral("policy"), policy.isEmpty() ? scenario.defaultPolicy : policy},
             {QStringLiteral("seed"), QString::number(seed)}});
}

} // namespace Zhaoxi::Session
