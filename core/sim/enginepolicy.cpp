// SPDX-License-Identifier: GPL-3.0-or-later
// The engine as the policy's PolicyContext (services, training, replicas) and its final report.
// engine.cpp has the event loop.
#include "engine_p.h"

#include "core/runtime/devicebridge.h"

#include "core/policy/queueing.h"

#include <QElapsedTimer>
#include <QSet>

#include <algorithm>
#include <cmath>

namespace Zhaoxi::Sim {

// --- PolicyContext ----------------------------------------------------------------------------

QList<Policy::ServiceView> Engine::services(qint64 nowMs)
{
    QList<Policy::ServiceView> out;
    const Sched::ClusterState &st = m_sched->state();
    const double span = std::min(double(m_scenario.windowSlots * m_scenario.controlPeriodMs),
                                 double(std::max<qint64>(1, nowMs - m_scenario.startMs)));
    for (int i = 0; i < int(m_services.size()); ++i) {
        ServiceRt &s = m_services[std::size_t(i)];
        Policy::ServiceView v;
        v.index = i;
        v.name = s.def.spec.inference->service;
        v.sloMs = s.def.spec.inference->sloP99Ms;
        v.serviceMs = s.def.serviceMs * s.nominalSlowdown;
        v.cv = s.def.cv;
        v.minReplicas = s.def.spec.inference->minReplicas;
        v.maxReplicas = s.def.spec.inference->maxReplicas;
        for (const Replica &r : s.replicas) {
            if (r.leaving()) {
                ++v.leaving;
                continue;
            }
            ++v.target;
            if (st.job(r.job).state == JobState::Pending)
                ++v.pending;
        }
        v.serving = s.model->servingReplicas();
        double slowdown = 0;
        int serving = 0;
        for (const Replica &r : s.replicas) {
            if (r.handle >= 0 && r.ready && !r.draining) {
                slowdown += s.model->slowdown(r.handle);
                ++serving;
            }
        }
        v.currentServiceMs = serving ? s.def.serviceMs * slowdown / serving : v.serviceMs;
        v.unitMilli = s.unitMilli;
        v.observedRate = double(s.model->windowArrivals()) * 1000.0 / span;
        v.windowP99Ms = s.model->window().quantileMs(0.99);
        v.windowRequests = s.model->window().count();
        v.windowOverSlo = s.model->window().countAbove(v.sloMs);
        v.queueDepth = s.model->queueDepth(double(nowMs));
        v.arrivals = s.model->arrivals();
        out.append(v);
    }
    return out;
}

QList<Policy::TrainingView> Engine::training(qint64 nowMs)
{
    QList<Policy::TrainingView> out;
    const Sched::ClusterState &st = m_sched->state();
    for (const TrainingRt &tr : m_training) {
        if (!tr.job.isValid() || !st.job(tr.job).isActive())
            continue;
        const Sched::Job &j = st.job(tr.job);
        Policy::TrainingView v;
        v.job = tr.job;
        v.state = j.state;
        for (const Sched::Assignment &a : j.assignments)
            v.milli += st.unitMilli(st.card(a.card), *st.card(a.card).unit(a.unitUid));
        v.priority = j.spec.priority;
        v.checkpoints = j.spec.checkpointIntervalMs > 0;
        v.nextCheckpointMs = tr.run.nextCheckpointMs(nowMs);
        v.finishEtaMs = tr.run.finishEtaMs(nowMs);
        v.placedMs = j.startedMs;
        out.append(v);
    }
    return out;
}

void Engine::setReplicas(int service, int replicas, qint64 nowMs, ActionReason why)
{
    ServiceRt &s = m_services[std::size_t(service)];
    const Domain::InferenceSpec &inf = *s.def.spec.inference;
    const int n = std::clamp(replicas, inf.minReplicas, inf.maxReplicas);
    int active = 0;
    for (const Replica &r : s.replicas)
        active += !r.leaving();
    auto event = [&](ApplianceEventCode code, JobId job) {
        ApplianceEvent ev;
        ev.atMs = nowMs;
        ev.code = code;
        ev.reason = why;
        ev.job = job;
        ev.service = service;
        m_events.record(ev);
    };
    const Sched::ClusterState &st = m_sched->state();
    while (active < n) {
        // A draining replica that still serves comes back first.
        bool revived = false;
        for (Replica &r : s.replicas) {
            if (r.draining && r.handle >= 0) {
                r.draining = false;
                if (r.ready) {
                    s.model->removeReplica(r.handle, double(nowMs)); // restart its queue cleanly
                    r.handle = s.model->addReplica(s.nominalSlowdown);
                    s.model->setReady(r.handle, double(nowMs));
                }
                revived = true;
                break;
            }
        }
        if (!revived) {
            Domain::WorkloadSpec spec = s.def.spec;
            spec.name = QStringLiteral("%1#%2").arg(inf.service).arg(s.nextName++);
            const JobId job = m_sched->submit(spec, nowMs);
            m_roles.insert(job.value(), Role{true, service});
            Replica r;
            r.job = job;
            s.replicas.append(r);
            event(ApplianceEventCode::ReplicaAdded, job);
        }
        ++active;
        m_dirty = true;
    }
    while (active > n) {
        // Withdraw the newest: waiting ones first, then those still starting, then serving ones
        // drain, chosen so that cards free up whole (drainOrder).
        int pick = -1;
        int pickRank = -1;
        for (int i = s.replicas.size() - 1; i >= 0; --i) {
            const Replica &r = s.replicas[i];
            if (r.leaving())
                continue;
            const int rank = st.job(r.job).state == JobState::Pending ? 3 : (!r.ready ? 2 : 1);
            if (rank > pickRank) {
                pickRank = rank;
                pick = i;
            }
        }
        if (pick < 0)
            break;
        if (pickRank == 1)
            pick = drainOrder(service, active - n).value(0, pick);
        Replica &r = s.replicas[pick];
        event(ApplianceEventCode::ReplicaRemoved, r.job);
        if (pickRank >= 2) {
            const JobId job = r.job;
            if (pickRank == 3)
                s.replicas.removeAt(pick);
            m_sched->cancel(job, nowMs);
        } else {
            r.draining = true;
            s.model->drain(r.handle);
        }
        --active;
        m_dirty = true;
    }
    drainScheduler(nowMs);
    if (m_dirty)
        tickScheduler(nowMs);
}

bool Engine::moveReplica(int service, JobId replica, CardId card, qint64 nowMs, ActionReason why)
{
    if (service < 0 || service >= int(m_services.size()))
        return false;
    ServiceRt &s = m_services[std::size_t(service)];
    const auto old = std::find_if(s.replicas.begin(), s.replicas.end(), [&](const Replica &r) {
        return r.job == replica;
    });
    if (old == s.replicas.end() || old->leaving() || !old->ready || old->handle < 0)
        return false;
    const Domain::InferenceSpec &inf = *s.def.spec.inference;
    Domain::WorkloadSpec spec = s.def.spec;
    spec.name = QStringLiteral("%1#%2").arg(inf.service).arg(s.nextName++);
    const JobId job = m_sched->submit(spec, nowMs);
    m_roles.insert(job.value(), Role{true, service});
    Replica added;
    added.job = job;
    s.replicas.append(added);
    const Sched::Decision d = m_sched->placeNow(job, nowMs, card);
    if (!d.status.isSuccess()) {
        m_sched->cancel(job, nowMs); // withdrawn: onReleased drops it
        drainScheduler(nowMs);
        return false;
    }
    // The list may have moved: find the old one again.
    for (Replica &r : s.replicas) {
        if (r.job == replica)
            r.successor = job;
    }
    ApplianceEvent ev;
    ev.atMs = nowMs;
    ev.code = ApplianceEventCode::ReplicaAdded;
    ev.reason = why;
    ev.job = job;
    ev.service = service;
    ev.card = card;
    m_events.record(ev);
    m_dirty = true;
    drainScheduler(nowMs);
    return true;
}

void Engine::handOver(int service, JobId successor, qint64 nowMs)
{
    ServiceRt &s = m_services[std::size_t(service)];
    for (Replica &r : s.replicas) {
        if (r.successor != successor)
            continue;
        r.successor = JobId();
        r.draining = true;
        if (r.handle >= 0 && r.ready)
            s.model->drain(r.handle);
        ApplianceEvent ev;
        ev.atMs = nowMs;
        ev.code = ApplianceEventCode::ReplicaRemoved;
        ev.reason = ActionReason::Consolidate;
        ev.job = r.job;
        ev.service = service;
        m_events.record(ev);
    }
}

QList<int> Engine::drainOrder(int service, int count) const
{
    // Serving replicas of the service by card, and the inference that stays on each card
    // whatever this service does (other services' replicas that are not draining).
    const Sched::ClusterState &st = m_sched->state();
    const ServiceRt &s = m_services[std::size_t(service)];
    QSet<int> draining;
    for (const ServiceRt &o : m_services) {
        for (const Replica &r : o.replicas) {
            if (r.leaving())
                draining.insert(r.job.value());
        }
    }
    struct CardPlan
    {
        int card = -1;
        QList<int> replicas; // indexes into s.replicas, newest first
        qint64 others = 0;   // inference milli that stays
        int used = 0;
    };
    QList<CardPlan> cards;
    for (int i = s.replicas.size() - 1; i >= 0; --i) {
        const Replica &r = s.replicas[i];
        const QList<UnitRef> units = m_units.value(r.job.value());
        if (r.leaving() || !r.ready || units.isEmpty())
            continue;
        const int card = units.first().card.value();
        auto it = std::find_if(
                cards.begin(), cards.end(), [&](const CardPlan &c) { return c.card == card; });
        if (it == cards.end()) {
            CardPlan c;
            c.card = card;
            const Sched::CardState &cs = st.card(units.first().card);
            c.used = cs.usedMilli;
            for (const Sched::Unit &u : cs.units) {
                if (!u.job.isValid() || draining.contains(u.job.value()))
                    continue;
                const Role role = m_roles.value(u.job.value(), Role{});
                if (role.replica && role.index != service)
                    c.others += st.unitMilli(cs, u);
            }
            cards.append(c);
            it = cards.end() - 1;
        }
        it->replicas.append(i);
    }
    // First the cards this service alone holds for inference and that `count` can empty, fewest
    // replicas first; then one at a time from the card left with the least inference.
    QList<int> order;
    while (order.size() < count) {
        int best = -1;
        for (int c = 0; c < cards.size(); ++c) {
            const CardPlan &p = cards[c];
            if (p.replicas.isEmpty() || p.others > 0 || p.replicas.size() > count - order.size())
                continue;
            if (best < 0 || p.replicas.size() < cards[best].replicas.size()
                || (p.replicas.size() == cards[best].replicas.size() && p.used < cards[best].used))
                best = c;
        }
        if (best >= 0) {
            order += cards[best].replicas;
            cards[best].replicas.clear();
            continue;
        }
        qint64 bestLeft = LLONG_MAX;
        for (int c = 0; c < cards.size(); ++c) {
            const CardPlan &p = cards[c];
            if (p.replicas.isEmpty())
                continue;
            const qint64 left = p.others + (p.replicas.size() - 1) * s.unitMilli;
            if (left < bestLeft || (left == bestLeft && p.used < cards[best].used)) {
                best = c;
                bestLeft = left;
            }
        }
        if (best < 0)
            break;
        order.append(cards[best].replicas.takeFirst());
    }
    return order;
}

Policy::HistoryDays Engine::historyDays(int service, qint64 nowMs) const
{
    Q_UNUSED(nowMs)
    return scenarioHistoryDays(m_scenario, service, m_seed, historyBucketMs());
}

QList<QList<double>> Engine::history(int service) const
{
    // The days learnt from the store when the run was given them, else the synthetic past.
    // (Their weekdays and byWeekday need Engine::historyDays: see PolicyContext.)
    return historyRates(scenarioHistoryDays(m_scenario, service, m_seed, historyBucketMs()));
}

// --- The end ----------------------------------------------------------------------------------

Report Engine::finish()
{
    start();
    step(m_end);
    const qint64 end = m_end;
    if (end > m_lastControl)
        control(end);
    Report r;
    r.scenario = m_scenario.name;
    r.policy = m_policyName;
    r.seed = m_seed;
    r.durationH = double(m_scenario.durationMs) / kHourMs;
    LatencyHistogram all;
    qint64 good = 0;
    for (ServiceRt &s : m_services) {
        s.model->finish(double(end));
        const InferenceService &m = *s.model;
        ServiceReport sr;
        sr.name = s.def.spec.inference->service;
        sr.sloMs = s.def.spec.inference->sloP99Ms;
        sr.requests = m.requests();
        sr.sloAttainment = m.requests() ? double(m.withinSlo()) / double(m.requests()) : 1.0;
        sr.p50Ms = m.latencies().quantileMs(0.50);
        sr.p95Ms = m.latencies().quantileMs(0.95);
        sr.p99Ms = m.latencies().quantileMs(0.99);
        sr.meanWaitMs = m.requests() ? m.totalWaitMs() / double(m.requests()) : 0;
        sr.maxReplicas = s.maxServing;
        sr.replicaHours = s.replicaMs / kHourMs;
        sr.failedOver = m.failedOver();
        r.services.append(sr);
        all.merge(m.latencies());
        good += m.withinSlo();
        r.requests += m.requests();
    }
    r.sloAttainment = r.requests ? double(good) / double(r.requests) : 1.0;
    r.p50Ms = all.quantileMs(0.50);
    r.p95Ms = all.quantileMs(0.95);
    r.p99Ms = all.quantileMs(0.99);
    for (TrainingRt &tr : m_training) {
        tr.run.advance(end);
        TrainingJobReport j;
        j.name = tr.def.spec.name;
        j.workHours = tr.def.workMs / kHourMs;
        j.doneHours = tr.run.doneMs() / kHourMs;
        j.lostHours = tr.run.lostMs() / kHourMs;
        j.evictions = tr.run.evictions();
        j.completedAtH = tr.completed ? double(tr.completedMs - m_scenario.startMs) / kHourMs : -1;
        j.finalLoss = tr.run.loss();
        j.lossCurve = tr.lossCurve;
        r.workDone += j.doneHours;
        r.lostWork += j.lostHours;
        r.jobsCompleted += tr.completed;
        r.jobs.append(j);
    }
    r.workBound = m_bound.workMs() / kHourMs;
    r.efficiency = r.workBound > 0 ? r.workDone / r.workBound : 0;
    r.capacity = m_capacityHours;
    r.allocated = m_capacityMs > 0 ? m_allocatedMs / m_capacityMs : 0;
    r.busy = m_capacityMs > 0 ? m_busyMs / m_capacityMs : 0;
    r.reconfigurations = m_reconfigurations;
    r.preemptions = m_preemptions;
    r.faults = m_faults;
    double joules = 0;
    for (int i = 0; i < m_backend->cardCount(); ++i)
        joules += m_backend->energyJ(CardId(i));
    r.energyKwh = joules / 3.6e6;
    r.peakPowerW = m_peakPowerW;
    r.trainingGB = m_trainingGB;
    r.inferenceGB = m_inferenceGB;
    r.trainingPathShare = m_trainingPathShare;
    r.schedulerEvents = int(m_schedEvents.events().size());
    r.applianceEvents = int(m_events.events().size());
    r.shapeChoices = shapeChoices();
    return r;
}

int Engine::serviceIndexOfJob(JobId job) const
{
    const Role r = m_roles.value(job.value(), Role{});
    return r.replica ? r.index : -1;
}

} // namespace Zhaoxi::Sim
