// SPDX-License-Identifier: GPL-3.0-or-later
// The live run as the policy's PolicyContext (services from their scraped metrics, training,
// replicas) and its report. liverun.cpp runs the loop, the endpoints and the commands.
#include "liverun.h"

#include "endpoints.h"
#include "mpsdaemons.h"
#include "scraper.h"

#include <QDateTime>
#include <QDir>
#include <QJsonArray>
#include <QUrl>

#include <algorithm>
#include <climits>
#include <cmath>
#include <csignal>

#include <sys/prctl.h>

namespace Zhaoxi::Runtime {

using Device::ApplianceEvent;
using Device::ApplianceEventCode;
using Domain::JobId;
using Policy::ActionReason;

namespace {

double quantileOf(const QMap<double, double> &buckets, double q)
{
    QList<Bucket> list;
    for (auto it = buckets.cbegin(); it != buckets.cend(); ++it)
        list.append(Bucket{it.key(), it.value()});
    return histogramQuantile(q, list);
}

} // namespace

// --- PolicyContext ---------------------------------------------------------------------------

QList<Policy::ServiceView> LiveRun::services(qint64 nowMs)
{
    Q_UNUSED(nowMs)
    QList<Policy::ServiceView> out;
    const Sched::ClusterState &st = m_sched->state();
    for (int i = 0; i < m_services.size(); ++i) {
        const ServiceRt &s = m_services[i];
        Policy::ServiceView v;
        v.index = i;
        v.name = s.def.spec.inference->service;
        v.sloMs = s.def.spec.inference->sloP99Ms;
        // An operator's service has no modelled service time: what its replicas measure, and a
        // quarter of its SLO until they have served.
        v.serviceMs = s.operatorService
                              ? (s.observedMeanMs > 0 ? s.observedMeanMs
                                                      : s.def.spec.inference->sloP99Ms / 4)
                              : s.def.serviceMs / std::max(1e-6, s.unit.unitRef);
        v.currentServiceMs = v.serviceMs;
        v.cv = s.def.cv;
        v.minReplicas = s.def.spec.inference->minReplicas;
        v.maxReplicas = s.def.spec.inference->maxReplicas;
        v.unitMilli = s.unit.unitMilli;
        double queue = 0;
        for (const ReplicaRt &r : s.replicas) {
            if (r.leaving) {
                ++v.leaving;
                continue;
            }
            ++v.target;
            const ProcessWorkloads::JobStats js = m_work->stats(r.job);
            if (st.job(r.job).state == Sched::JobState::Pending || !js.running)
                ++v.pending;
            if (js.ready) {
                ++v.serving;
                queue += r.queue.value_or(0);
            }
        }
        double seconds = 0, requests = 0, over = 0;
        QMap<double, double> buckets;
        for (const WindowSlot &w : s.window) {
            seconds += w.seconds;
            requests += w.requests;
            over += w.overSlo;
            for (auto it = w.buckets.cbegin(); it != w.buckets.cend(); ++it)
                buckets[it.key()] += it.value();
        }
        // Requests per real second, as the rate curve counts them.
        v.observedRate = seconds > 0 ? requests / seconds : 0;
        const double p99 = quantileOf(buckets, 0.99);
        v.windowP99Ms = std::isnan(p99) ? 0 : p99;
        v.windowRequests = qRound64(requests);
        v.windowOverSlo = qRound64(over);
        v.queueDepth = int(std::lround(queue));
        v.arrivals = qRound64(s.requests);
        out.append(v);
    }
    return out;
}

QList<Policy::TrainingView> LiveRun::training(qint64 nowMs)
{
    QList<Policy::TrainingView> out;
    const Sched::ClusterState &st = m_sched->state();
    for (const JobId job : std::as_const(m_trainingJobs)) {
        if (!job.isValid() || !st.job(job).isActive())
            continue;
        const Sched::Job &j = st.job(job);
        Policy::TrainingView v;
        v.job = job;
        v.state = j.state;
        for (const Sched::Assignment &a : j.assignments)
            v.milli += st.unitMilli(st.card(a.card), *st.card(a.card).unit(a.unitUid));
        v.priority = j.spec.priority;
        v.checkpoints = j.spec.checkpointIntervalMs > 0;
        // A real job checkpoints when asked: within about a control period.
        v.nextCheckpointMs
                = v.checkpoints ? nowMs + qint64(double(m_periodMs) * m_scenario.liveSpeed) : -1;
        v.finishEtaMs = -1;
        v.placedMs = j.startedMs;
        out.append(v);
    }
    return out;
}

void LiveRun::setReplicas(int service, int replicas, qint64 nowMs, ActionReason why)
{
    ServiceRt &s = m_services[service];
    const Domain::InferenceSpec &inf = *s.def.spec.inference;
    const int n = std::clamp(replicas, inf.minReplicas, inf.maxReplicas);
    int active = 0;
    for (const ReplicaRt &r : std::as_const(s.replicas))
        active += !r.leaving;
    while (active < n) {
        addReplica(service, nowMs, why);
        ++active;
    }
    while (active > n) {
        // Withdraw the newest: waiting ones first, then those still starting, then serving ones
        // (they get their stop signal and finish what they hold).
        int pick = -1, pickRank = -1;
        for (int i = s.replicas.size() - 1; i >= 0; --i) {
            const ReplicaRt &r = s.replicas[i];
            if (r.leaving)
                continue;
            const ProcessWorkloads::JobStats js = m_work->stats(r.job);
            const int rank = m_sched->state().job(r.job).state == Sched::JobState::Pending ? 3
                             : !js.ready                                                   ? 2
                                                                                           : 1;
            if (rank > pickRank) {
                pickRank = rank;
                pick = i;
            }
        }
        if (pick < 0)
            break;
        ReplicaRt &r = s.replicas[pick];
        ApplianceEvent ev;
        ev.atMs = nowMs;
        ev.code = ApplianceEventCode::ReplicaRemoved;
        ev.reason = why;
        ev.job = r.job;
        ev.service = service;
        record(ev);
        const JobId job = r.job;
        if (pickRank == 3)
            s.replicas.removeAt(pick);
        else
            r.leaving = true;
        m_sched->cancel(job, nowMs);
        --active;
    }
    step(nowMs);
}

void LiveRun::recorded(const ApplianceEvent &event)
{
    Q_EMIT applianceEvent(event);
}

QList<QList<double>> LiveRun::history(int service) const
{
    if (service < 0 || service >= m_scenario.services.size())
        return {}; // an operator's service has no recorded days yet
    return Sim::historyRates(historyDays(service, 0));
}

Policy::HistoryDays LiveRun::historyDays(int service, qint64 nowMs) const
{
    Q_UNUSED(nowMs) // the days are those before the scenario's start
    if (service < 0 || service >= m_scenario.services.size())
        return {};
    return Sim::scenarioHistoryDays(m_scenario, service, m_scenario.seed, historyBucketMs());
}

// --- The report ------------------------------------------------------------------------------

QJsonObject LiveRun::report() const
{
    QJsonArray jobs;
    for (const Sched::Job &j : m_sched->state().jobs()) {
        const ProcessWorkloads::JobStats st = m_work->stats(j.id);
        QJsonObject o{{QStringLiteral("name"), j.spec.name},
                      {QStringLiteral("kind"), Domain::toString(j.spec.kind)},
                      {QStringLiteral("state"), QString::fromLatin1(Sched::toString(j.state))},
                      {QStringLiteral("starts"), st.starts},
                      {QStringLiteral("checkpoints"), st.checkpoints},
                      {QStringLiteral("preemptions"), st.preemptions},
                      {QStringLiteral("lost_work_s"), st.lostWorkMs / 1000.0},
                      {QStringLiteral("exit_code"),
                       st.exitCode >= 0 ? QJsonValue(st.exitCode) : QJsonValue()}};
        if (st.exitSignal)
            o.insert(QStringLiteral("exit_signal"), st.exitSignal);
        if (st.lastStep >= 0)
            o.insert(QStringLiteral("last_step"), st.lastStep);
        jobs.append(o);
    }
    QJsonArray services;
    for (const ServiceRt &s : m_services) {
        double p99 = quantileOf(s.buckets, 0.99);
        if (std::isnan(p99) && s.requests > 0 && s.meanSumMs > 0)
            p99 = s.meanSumMs / s.requests; // a mean only (Triton)
        QJsonObject o{{QStringLiteral("name"), s.def.spec.inference->service},
                      {QStringLiteral("replicas_max"), s.maxServing},
                      {QStringLiteral("requests"), qRound64(s.requests)},
                      {QStringLiteral("p99_ms"), std::isnan(p99) ? QJsonValue() : QJsonValue(p99)},
                      {QStringLiteral("slo_p99_ms"), s.def.spec.inference->sloP99Ms},
                      {QStringLiteral("slo_attainment"),
                       s.requests > 0 ? QJsonValue(1.0 - s.overSlo / s.requests) : QJsonValue()},
                      {QStringLiteral("source"), QStringLiteral("scraped")}};
        services.append(o);
    }
    return QJsonObject{{QStringLiteral("jobs"), jobs},
                       {QStringLiteral("services"), services},
                       {QStringLiteral("policy"), m_policyName},
                       {QStringLiteral("speed"), m_scenario.liveSpeed}};
}

} // namespace Zhaoxi::Runtime
