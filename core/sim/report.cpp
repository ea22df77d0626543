// SPDX-License-Identifier: GPL-3.0-or-later
#include "report.h"

#include <QJsonArray>

#include <cmath>

namespace Zhaoxi::Sim {

namespace {
QJsonValue num(double v)
{
    return std::isfinite(v) ? QJsonValue(v) : QJsonValue(QJsonValue::Null);
}
QString f(double v, int d)
{
    return QString::number(v, 'f', d);
}
} // namespace

QJsonObject Report::toJson(bool withWallTime) const
{
    QJsonObject inf;
    inf[QStringLiteral("requests")] = requests;
    inf[QStringLiteral("slo_attainment")] = num(sloAttainment);
    inf[QStringLiteral("p50_ms")] = num(p50Ms);
    inf[QStringLiteral("p95_ms")] = num(p95Ms);
    inf[QStringLiteral("p99_ms")] = num(p99Ms);
    QJsonObject per;
    for (const ServiceReport &s : services) {
        QJsonObject o;
        o[QStringLiteral("slo_ms")] = num(s.sloMs);
        o[QStringLiteral("requests")] = s.requests;
        o[QStringLiteral("slo_attainment")] = num(s.sloAttainment);
        o[QStringLiteral("p50_ms")] = num(s.p50Ms);
        o[QStringLiteral("p95_ms")] = num(s.p95Ms);
        o[QStringLiteral("p99_ms")] = num(s.p99Ms);
        o[QStringLiteral("mean_wait_ms")] = num(s.meanWaitMs);
        o[QStringLiteral("max_replicas")] = s.maxReplicas;
        o[QStringLiteral("replica_hours")] = num(s.replicaHours);
        o[QStringLiteral("failed_over")] = s.failedOver;
        per[s.name] = o;
    }
    inf[QStringLiteral("services")] = per;

    QJsonObject tr;
    tr[QStringLiteral("unit")] = QStringLiteral("reference card-hours");
    tr[QStringLiteral("work_done")] = num(workDone);
    tr[QStringLiteral("work_bound")] = num(workBound);
    tr[QStringLiteral("efficiency")] = num(efficiency);
    tr[QStringLiteral("lost_work")] = num(lostWork);
    tr[QStringLiteral("jobs_completed")] = jobsCompleted;
    QJsonArray jobsJson;
    for (const TrainingJobReport &j : jobs) {
        QJsonObject o;
        o[QStringLiteral("name")] = j.name;
        o[QStringLiteral("work")] = num(j.workHours);
        o[QStringLiteral("done")] = num(j.doneHours);
        o[QStringLiteral("lost")] = num(j.lostHours);
        o[QStringLiteral("evictions")] = j.evictions;
        o[QStringLiteral("completed_at_h")]
                = j.completedAtH >= 0 ? QJsonValue(j.completedAtH) : QJsonValue(QJsonValue::Null);
        o[QStringLiteral("final_loss")] = num(j.finalLoss);
        QJsonArray curve;
        for (const auto &p : j.lossCurve)
            curve.append(QJsonArray{num(p.first), num(p.second)});
        o[QStringLiteral("loss_curve")] = curve;
        jobsJson.append(o);
    }
    tr[QStringLiteral("jobs")] = jobsJson;

    QJsonObject cap;
    cap[QStringLiteral("unit")] = QStringLiteral("reference card-hours");
    cap[QStringLiteral("capacity")] = num(capacity.capacity);
    cap[QStringLiteral("inference_need")] = num(capacity.inferenceNeed);
    cap[QStringLiteral("inference")] = num(capacity.inference);
    cap[QStringLiteral("training_work")] = num(capacity.trainingWork);
    cap[QStringLiteral("training_slowdown")] = num(capacity.trainingSlowdown);
    cap[QStringLiteral("training_slowdown_gang")] = num(capacity.trainingSlowdownGang);
    cap[QStringLiteral("training_slowdown_power")] = num(capacity.trainingSlowdownPower);
    cap[QStringLiteral("training_starting")] = num(capacity.trainingStarting);
    cap[QStringLiteral("idle_reconfiguring")] = num(capacity.idleReconfiguring);
    cap[QStringLiteral("idle_training_waits")] = num(capacity.idleTrainingWaits);
    cap[QStringLiteral("idle")] = num(capacity.idle);

    QJsonObject util;
    util[QStringLiteral("allocated")] = num(allocated);
    util[QStringLiteral("busy")] = num(busy);

    QJsonObject bw;
    bw[QStringLiteral("training_gb")] = num(trainingGB);
    bw[QStringLiteral("inference_gb")] = num(inferenceGB);
    bw[QStringLiteral("training_peak_path_share")] = num(trainingPathShare);

    QJsonObject r;
    r[QStringLiteral("scenario")] = scenario;
    r[QStringLiteral("policy")] = policy;
    r[QStringLiteral("seed")] = QString::number(seed);
    r[QStringLiteral("duration_h")] = num(durationH);
    r[QStringLiteral("inference")] = inf;
    r[QStringLiteral("training")] = tr;
    r[QStringLiteral("utilization")] = util;
    r[QStringLiteral("capacity_hours")] = cap;
    r[QStringLiteral("bandwidth")] = bw;
    r[QStringLiteral("reconfigurations")] = reconfigurations;
    r[QStringLiteral("preemptions")] = preemptions;
    r[QStringLiteral("faults")] = faults;
    r[QStringLiteral("energy_kwh")] = num(energyKwh);
    r[QStringLiteral("peak_power_w")] = num(peakPowerW);
    r[QStringLiteral("events")] = QJsonObject{{QStringLiteral("scheduler"), schedulerEvents},
                                              {QStringLiteral("appliance"), applianceEvents}};
    if (!shapeChoices.isEmpty()) {
        // Only with shapes (issue 18): the reports of other scenarios keep their keys.
        QJsonArray choices;
        for (const ShapeChoiceReport &c : shapeChoices) {
            QJsonObject o;
            o[QStringLiteral("workload")] = c.workload;
            o[QStringLiteral("kind")]
                    = c.service ? QStringLiteral("service") : QStringLiteral("job");
            o[QStringLiteral("shape")] = c.shape;
            o[QStringLiteral("demand")] = c.demand;
            o[QStringLiteral("speed")] = num(c.speed);
            o[QStringLiteral("count")] = c.count;
            choices.append(o);
        }
        r[QStringLiteral("shape_choices")] = choices;
    }
    if (withWallTime)
        r[QStringLiteral("wall_seconds")] = num(wallSeconds);
    return r;
}

namespace {

QString shapeLabel(const ShapeChoiceReport &c)
{
    return c.shape < 0 ? QStringLiteral("%1 (primary)").arg(c.demand)
                       : QStringLiteral("%1 (shape %2, speed %3)")
                                 .arg(c.demand)
                                 .arg(c.shape)
                                 .arg(QString::number(c.speed));
}

} // namespace

QString formatComparison(const QList<Report> &reports)
{
    QString s;
    s += QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9 %10 %11 %12\n")
                 .arg(QStringLiteral("policy"), -9)
                 .arg(QStringLiteral("SLO%"), 8)
                 .arg(QStringLiteral("p99 ms"), 9)
                 .arg(QStringLiteral("work h"), 8)
                 .arg(QStringLiteral("bound h"), 8)
                 .arg(QStringLiteral("eff%"), 6)
                 .arg(QStringLiteral("lost h"), 7)
                 .arg(QStringLiteral("reconf"), 6)
                 .arg(QStringLiteral("preempt"), 7)
                 .arg(QStringLiteral("alloc%"), 6)
                 .arg(QStringLiteral("kWh"), 7)
                 .arg(QStringLiteral("wall s"), 7);
    for (const Report &r : reports) {
        s += QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9 %10 %11 %12\n")
                     .arg(r.policy, -9)
                     .arg(f(100 * r.sloAttainment, 3), 8)
                     .arg(f(r.p99Ms, 1), 9)
                     .arg(f(r.workDone, 1), 8)
                     .arg(f(r.workBound, 1), 8)
                     .arg(f(100 * r.efficiency, 1), 6)
                     .arg(f(r.lostWork, 2), 7)
                     .arg(r.reconfigurations, 6)
                     .arg(r.preemptions, 7)
                     .arg(f(100 * r.allocated, 1), 6)
                     .arg(f(r.energyKwh, 1), 7)
                     .arg(f(r.wallSeconds, 2), 7);
    }
    if (!reports.isEmpty()) {
        s += QStringLiteral("\nper service p99 ms / SLO attainment %:\n");
        for (int i = 0; i < reports.first().services.size(); ++i) {
            const ServiceReport &first = reports.first().services[i];
            s += QStringLiteral("  %1 (SLO %2 ms)").arg(first.name, -10).arg(f(first.sloMs, 0));
            for (const Report &r : reports) {
                const ServiceReport &sr = r.services[i];
                s += QStringLiteral("  %1: %2 / %3")
                             .arg(r.policy, f(sr.p99Ms, 1), f(100 * sr.sloAttainment, 3));
            }
            s += QLatin1Char('\n');
        }
        // The shape choices, when the scenario has shapes: placements per shape per policy.
        const QList<ShapeChoiceReport> &first = reports.first().shapeChoices;
        if (!first.isEmpty()) {
            s += QStringLiteral("\nplacements per shape:\n");
            for (int i = 0; i < first.size(); ++i) {
                s += QStringLiteral("  %1 %2")
                             .arg(first[i].workload, -10)
                             .arg(shapeLabel(first[i]), -36);
                for (const Report &r : reports) {
                    const int n = i < r.shapeChoices.size() ? r.shapeChoices[i].count : 0;
                    s += QStringLiteral("  %1: %2").arg(r.policy).arg(n);
                }
                s += QLatin1Char('\n');
            }
        }
    }
    return s;
}

QString formatReport(const Report &r)
{
    QString s;
    s += QStringLiteral("scenario %1, policy %2, seed %3, %4 h\n")
                 .arg(r.scenario, r.policy)
                 .arg(r.seed)
                 .arg(f(r.durationH, 1));
    s += QStringLiteral(
                 "inference: %1 requests, SLO attainment %2 %, p50 %3 ms, p95 %4 ms, p99 %5 ms\n")
                 .arg(r.requests)
                 .arg(f(100 * r.sloAttainment, 3), f(r.p50Ms, 1), f(r.p95Ms, 1), f(r.p99Ms, 1));
    for (const ServiceReport &sr : r.services)
        s += QStringLiteral("  %1: %2 requests, SLO %3 ms, attainment %4 %, p99 %5 ms, up to %6 "
                            "replicas, %7 replica-h\n")
                     .arg(sr.name)
                     .arg(sr.requests)
                     .arg(f(sr.sloMs, 0), f(100 * sr.sloAttainment, 3), f(sr.p99Ms, 1))
                     .arg(sr.maxReplicas)
                     .arg(f(sr.replicaHours, 1));
    s += QStringLiteral("training: %1 of a fluid bound of %2 card-h (%3 %), %4 card-h lost, %5 "
                        "job(s) completed\n")
                 .arg(f(r.workDone, 2),
                      f(r.workBound, 2),
                      f(100 * r.efficiency, 1),
                      f(r.lostWork, 2))
                 .arg(r.jobsCompleted);
    const CapacityBreakdown &c = r.capacity;
    s += QStringLiteral("capacity: %1 card-h; inference %2 (the bound's %3); training work %4, "
                        "slowdown %5 (gangs %6, power %7), starting %8; idle %9 reconfiguring, "
                        "%10 while training waits, %11 with nothing waiting\n")
                 .arg(f(c.capacity, 1), f(c.inference, 1), f(c.inferenceNeed, 1))
                 .arg(f(c.trainingWork, 1),
                      f(c.trainingSlowdown, 1),
                      f(c.trainingSlowdownGang, 1),
                      f(c.trainingSlowdownPower, 1),
                      f(c.trainingStarting, 1))
                 .arg(f(c.idleReconfiguring, 1), f(c.idleTrainingWaits, 1), f(c.idle, 1));
    s += QStringLiteral("utilisation: allocated %1 %, busy %2 %; %3 reconfiguration step(s), %4 "
                        "preemption(s), %5 fault(s)\n")
                 .arg(f(100 * r.allocated, 1), f(100 * r.busy, 1))
                 .arg(r.reconfigurations)
                 .arg(r.preemptions)
                 .arg(r.faults);
    s += QStringLiteral("energy %1 kWh, peak %2 W; host paths: training %3 GB, inference %4 GB\n")
                 .arg(f(r.energyKwh, 2),
                      f(r.peakPowerW, 0),
                      f(r.trainingGB, 0),
                      f(r.inferenceGB, 1));
    if (!r.shapeChoices.isEmpty()) {
        s += QStringLiteral("placements per shape:\n");
        for (const ShapeChoiceReport &c : r.shapeChoices)
            s += QStringLiteral("  %1 %2: %3\n").arg(c.workload, shapeLabel(c)).arg(c.count);
    }
    s += QStringLiteral("wall time %1 s\n").arg(f(r.wallSeconds, 3));
    return s;
}

} // namespace Zhaoxi::Sim
