// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine.h"

#include "core/runtime/devicebridge.h"

#include "core/policy/queueing.h"

#include <QElapsedTimer>
#include <QSet>

#include <algorithm>
#include <cmath>

namespace Zhaoxi::Sim {

using Device::ActionReason;
using Device::ApplianceEvent;
using Device::ApplianceEventCode;
using Domain::CardId;
using Domain::JobId;
using Domain::PartitionMode;
using Sched::EventCode;
using Sched::JobState;

namespace {
constexpr qint64 kDayMs = 24 * 3600'000LL;
constexpr double kHourMs = 3600'000.0;
} // namespace

Engine::Engine(const Scenario &scenario, const QString &policy, quint64 seed)
    : Runtime::ApplianceCore(scenario.appliance.state, scenario.scheduler, scenario.utcOffsetMs)
    , m_scenario(scenario)
    , m_seed(seed)
{
    m_policyName = policy.isEmpty() ? scenario.defaultPolicy : policy;
    const Sched::ClusterState &state = m_scenario.appliance.state;
    m_sched->addSink(this);
    m_sched->addStepSink(this);
    m_backend = std::make_unique<Device::SimulatedBackend>(state, m_scenario.device);
    for (const FaultDef &f : m_scenario.faults)
        m_backend->injectFault(
                Device::DeviceFault{m_scenario.startMs + f.atMs, f.card, f.kind, f.durationMs});
    const int cards = int(state.cards().size());
    m_clock.assign(std::size_t(cards), 1.0);
    m_throttled.assign(std::size_t(cards), false);
    m_pendingSteps.assign(std::size_t(cards), 0);

    for (int i = 0; i < m_scenario.services.size(); ++i) {
        const ServiceDef &def = m_scenario.services[i];
        ServiceRt s;
        s.def = def;
        InferenceService::Params p;
        p.name = def.spec.inference->service;
        p.serviceMs = def.serviceMs;
        p.cv = def.cv;
        p.sloMs = def.spec.inference->sloP99Ms;
        p.curve = def.curve;
        p.localOffsetMs = m_scenario.utcOffsetMs + 3 * kDayMs;
        p.startMs = double(m_scenario.startMs);
        p.seed = Random::streamSeed(m_seed, 100 + quint64(i));
        p.windowSlots = m_scenario.windowSlots;
        s.model = std::make_unique<InferenceService>(p);
        const ReplicaUnit unit = replicaUnit(m_scenario, def);
        s.unitRef = unit.unitRef;
        s.unitMilli = unit.unitMilli;
        s.nominalSlowdown = 1.0 / std::max(1e-6, s.unitRef);
        m_services.push_back(std::move(s));
    }
    for (const TrainingDef &def : m_scenario.training) {
        m_training.push_back(trainingRt(def));
        m_bound.addJob(m_scenario.startMs + def.submitAtMs, def.workMs, def.spec.demand.cards);
    }
    Policy::PolicyError err;
    m_policy = Policy::makePolicy(
            m_policyName, m_scenario.policyParams.value(m_policyName).toObject(), &err);
}

Engine::~Engine() = default;

void Engine::push(qint64 t, Kind kind, int a, qint64 epoch)
{
    m_queue.push(Ev{t, kind, a, epoch, m_seq++});
}

void Engine::record(const Sched::SchedEvent &event)
{
    Pending p;
    p.event = event;
    m_pending.append(p);
}

// --- The loop ---------------------------------------------------------------------------------

void Engine::start()
{
    if (m_started)
        return;
    m_started = true;
    m_now = m_scenario.startMs;
    m_end = m_scenario.startMs + m_scenario.durationMs;
    m_lastControl = m_now;
    m_nextLossSample = m_now;
    m_backend->startAt(m_now);
    for (int i = 0; i < int(m_training.size()); ++i)
        push(m_scenario.startMs + m_training[std::size_t(i)].def.submitAtMs, Kind::Submit, i);
    push(m_now + m_scenario.controlPeriodMs, Kind::Control);
    // The appliance was serving before the replay starts: the policy sizes the services first,
    // and what is placed at the start is ready at once (warm).
    m_warm = true;
    if (m_policy) {
        m_policy->start(*this, m_now);
        push(m_now + 1000, Kind::PolicyWake, 0, 1);
    } else {
        for (int i = 0; i < int(m_services.size()); ++i)
            setReplicas(i,
                        m_services[std::size_t(i)].def.spec.inference->minReplicas,
                        m_now,
                        ActionReason::None);
    }
    tickScheduler(m_now);
    m_warm = false;
    m_dirty = true;
}

Report Engine::run()
{
    QElapsedTimer timer;
    timer.start();
    start();
    step(m_end);
    Report r = finish();
    r.wallSeconds = double(timer.nsecsElapsed()) / 1e9;
    return r;
}

void Engine::advanceTo(qint64 sinceStartMs)
{
    start();
    step(std::min(m_end, m_scenario.startMs + sinceStartMs));
}

void Engine::operate(const std::function<void(Sched::Scheduler &, qint64)> &command)
{
    start();
    command(*m_sched, m_now);
    m_dirty = true;
    tickScheduler(m_now);
    flushSteps(m_now);
}

Engine::TrainingRt Engine::trainingRt(const TrainingDef &def)
{
    TrainingRt t;
    t.def = def;
    t.run = TrainingRun(
            TrainingRun::Params{def.workMs, def.spec.checkpointIntervalMs, def.restartCostMs},
            def.loss);
    return t;
}

JobId Engine::submitTraining(const TrainingDef &def)
{
    start();
    m_training.push_back(trainingRt(def));
    const int i = int(m_training.size()) - 1;
    m_training.back().def.submitAtMs = m_now - m_scenario.startMs;
    m_bound.addJob(m_now, def.workMs, def.spec.demand.cards);
    JobId job;
    operate([&](Sched::Scheduler &sched, qint64 now) {
        job = sched.submit(def.spec, now);
        m_training[std::size_t(i)].job = job;
        m_roles.insert(job.value(), Role{false, i});
    });
    return job;
}

void Engine::setPolicy(std::unique_ptr<Policy::Policy> policy, const QString &name)
{
    start();
    const bool chained = m_policy != nullptr; // a PolicyWake is already queued
    m_policy = std::move(policy);
    m_policyName = name;
    if (!m_policy)
        return;
    m_policy->start(*this, m_now);
    if (!chained)
        push(m_now + 1000, Kind::PolicyWake, 0, 1);
    m_dirty = true;
}

void Engine::step(qint64 until)
{
    for (;;) {
        qint64 t = until;
        if (!m_queue.empty())
            t = std::min(t, m_queue.top().t);
        const qint64 dev = m_backend->nextEventMs();
        if (dev >= 0)
            t = std::min(t, dev);
        t = std::max(t, m_now);
        for (ServiceRt &s : m_services)
            s.model->runUntil(double(t));
        m_now = t;
        handleDevice(t);
        while (!m_queue.empty() && m_queue.top().t <= t) {
            const Ev e = m_queue.top();
            m_queue.pop();
            handle(e);
        }
        if (m_dirty)
            tickScheduler(t);
        flushSteps(t);
        const qint64 nextDev = m_backend->nextEventMs();
        if (t >= until && (m_queue.empty() || m_queue.top().t > until)
            && (nextDev < 0 || nextDev > until))
            break;
    }
}

void Engine::handle(const Ev &e)
{
    switch (e.kind) {
    case Kind::Checkpoint: {
        TrainingRt &tr = m_training[std::size_t(e.a)];
        if (tr.placement != e.epoch || !tr.run.isPlaced())
            return;
        tr.run.checkpoint(e.t);
        ApplianceEvent ev;
        ev.atMs = e.t;
        ev.code = ApplianceEventCode::TrainingCheckpoint;
        ev.job = tr.job;
        ev.value = qint64(tr.run.savedMs());
        m_events.record(ev);
        const qint64 next = tr.run.nextCheckpointMs(e.t);
        if (next > e.t)
            push(next, Kind::Checkpoint, e.a, tr.placement);
        return;
    }
    case Kind::TrainingDone: {
        TrainingRt &tr = m_training[std::size_t(e.a)];
        if (tr.finishEpoch != e.epoch || !tr.run.isPlaced())
            return;
        tr.run.advance(e.t);
        if (tr.run.isDone()) {
            m_sched->finish(tr.job, e.t);
            m_dirty = true;
            drainScheduler(e.t);
        } else {
            scheduleFinish(e.a, e.t);
        }
        return;
    }
    case Kind::ReplicaReady: {
        ServiceRt &s = m_services[std::size_t(e.a)];
        for (Replica &r : s.replicas) {
            if (r.epoch == e.epoch && r.handle >= 0 && !r.ready) {
                r.ready = true;
                s.model->setReady(r.handle, double(e.t));
                if (r.draining)
                    s.model->drain(r.handle);
                handOver(e.a, r.job, e.t);
            }
        }
        return;
    }
    case Kind::Submit: {
        TrainingRt &tr = m_training[std::size_t(e.a)];
        tr.job = m_sched->submit(tr.def.spec, e.t);
        m_roles.insert(tr.job.value(), Role{false, e.a});
        m_dirty = true;
        drainScheduler(e.t);
        return;
    }
    case Kind::Control:
        control(e.t);
        push(e.t + m_scenario.controlPeriodMs, Kind::Control);
        return;
    case Kind::PolicyWake: {
        if (!m_policy)
            return;
        if (m_dirty)
            tickScheduler(e.t);
        const qint64 next = m_policy->tick(*this, e.t);
        if (e.epoch == 1) // the policy's own chain; 2: an extra look (a card lost)
            push(std::max(next, e.t + 1), Kind::PolicyWake, 0, 1);
        return;
    }
    case Kind::SchedWake:
        m_dirty = true;
        return;
    }
}

void Engine::tickScheduler(qint64 now)
{
    for (int round = 0; round < 8 && m_dirty; ++round) {
        m_dirty = false;
        drainScheduler(now);
        const Sched::Scheduler::TickResult r = m_sched->tick(now);
        drainScheduler(now);
        if (r.nextWakeMs > now)
            push(r.nextWakeMs, Kind::SchedWake);
    }
    m_dirty = false;
}

void Engine::changed(qint64)
{
    m_dirty = true;
}

void Engine::requeued(JobId, qint64 atMs, qint64 nowMs)
{
    if (atMs > nowMs)
        push(atMs, Kind::SchedWake);
    m_dirty = true;
    drainScheduler(nowMs);
}

void Engine::qosChanged(Qos knob, double value, qint64)
{
    if (knob == Qos::PowerCap)
        m_trainingPowerCapW = value;
    else
        m_trainingBandwidthShare = value;
}

void Engine::committed(const QList<Sched::Step> &steps, qint64 nowMs)
{
    Q_UNUSED(nowMs)
    Pending p;
    p.orders = true;
    p.steps = Runtime::deviceStepsOf(steps, *m_backend);
    p.reconfigurations = Runtime::reconfigurationsOf(steps);
    if (!p.steps.isEmpty() || p.reconfigurations > 0)
        m_pending.append(p);
}

void Engine::drainScheduler(qint64 now)
{
    while (!m_pending.isEmpty()) {
        QList<Pending> batch;
        batch.swap(m_pending);
        for (const Pending &p : std::as_const(batch)) {
            if (p.orders) {
                m_steps.append(p.steps);
                m_reconfigurations += p.reconfigurations;
                continue;
            }
            const Sched::SchedEvent &e = p.event;
            switch (e.code) {
            case EventCode::JobPlaced:
                flushSteps(now);
                onPlaced(e.job, now);
                break;
            case EventCode::JobEvicted:
                if (!m_inFault && m_roles.value(e.job.value()).index >= 0
                    && !m_roles.value(e.job.value()).replica)
                    ++m_preemptions;
                onReleased(e.job, now, true);
                m_dirty = true;
                break;
            case EventCode::JobFinished:
            case EventCode::JobCancelled:
            case EventCode::JobFailed:
                onReleased(e.job, now, false);
                m_dirty = true;
                break;
            default:
                break;
            }
        }
    }
    flushSteps(now);
}

void Engine::flushSteps(qint64 now)
{
    if (m_steps.isEmpty())
        return;
    for (const Device::DeviceStep &s : std::as_const(m_steps))
        ++m_pendingSteps[std::size_t(s.card.value())];
    m_backend->apply(m_steps, now);
    m_steps.clear();
}

// --- Jobs on units ----------------------------------------------------------------------------

bool Engine::unitsReady(JobId job) const
{
    for (const UnitRef &u : m_units.value(job.value())) {
        if (u.profile >= 0) {
            bool ready = false;
            for (const Device::InstanceInfo &i : m_backend->layout(u.card).instances)
                ready |= i.profile == u.profile && i.start == u.start && i.ready;
            if (!ready)
                return false;
        } else if (m_pendingSteps[std::size_t(u.card.value())] > 0) {
            return false; // a mode switch in progress
        }
    }
    return true;
}

void Engine::onPlaced(JobId job, qint64 now)
{
    const Sched::ClusterState &st = m_sched->state();
    const Sched::Job &j = st.job(job);
    QList<UnitRef> units;
    for (const Sched::Assignment &a : j.assignments) {
        const Sched::CardState &c = st.card(a.card);
        const Sched::Unit *u = c.unit(a.unitUid);
        UnitRef r;
        r.card = a.card;
        r.profile = u->profile;
        r.start = u->start;
        r.milli = st.unitMilli(c, *u);
        r.soft = c.mode == PartitionMode::TimeSlicing || c.mode == PartitionMode::Mps;
        units.append(r);
        if (r.profile >= 0)
            m_backend->setInstanceBusy(r.card, r.profile, r.start, true);
        else
            m_backend->setCardBusy(r.card, true);
    }
    m_units.insert(job.value(), units);
    const bool ready = m_warm || unitsReady(job);
    if (!ready)
        m_waitingDevice.append(job.value());
    const Role role = m_roles.value(job.value(), Role{});
    if (role.index < 0)
        return;
    if (role.replica) {
        ServiceRt &s = m_services[std::size_t(role.index)];
        for (Replica &r : s.replicas) {
            if (r.job != job)
                continue;
            r.handle = s.model->addReplica(s.nominalSlowdown);
            r.ready = false;
            r.epoch = ++m_seq;
            if (ready)
                push(now + (m_warm ? 0 : s.def.loadMs), Kind::ReplicaReady, role.index, r.epoch);
        }
        return;
    }
    TrainingRt &tr = m_training[std::size_t(role.index)];
    ++tr.placement;
    if (tr.run.evictions() > 0) {
        ApplianceEvent ev;
        ev.atMs = now;
        ev.code = ApplianceEventCode::TrainingResumed;
        ev.job = job;
        ev.card = units.isEmpty() ? CardId() : units.first().card;
        ev.value = qint64(tr.run.savedMs());
        m_events.record(ev);
    }
    tr.run.place(now, ready ? now : -1, j.workDoneMs);
    double speed = 0;
    for (const UnitRef &u : units)
        speed += unitSpeed(u, job) * m_clock[std::size_t(u.card.value())];
    tr.run.setSpeed(now, speed);
    const qint64 cp = tr.run.nextCheckpointMs(now);
    if (cp > now)
        push(cp, Kind::Checkpoint, role.index, tr.placement);
    scheduleFinish(role.index, now);
}

void Engine::onUnitsReady(JobId job, qint64 now)
{
    const Role role = m_roles.value(job.value(), Role{});
    if (role.index < 0)
        return;
    if (role.replica) {
        ServiceRt &s = m_services[std::size_t(role.index)];
        for (Replica &r : s.replicas) {
            if (r.job == job && r.handle >= 0 && !r.ready)
                push(now + s.def.loadMs, Kind::ReplicaReady, role.index, r.epoch);
        }
        return;
    }
    TrainingRt &tr = m_training[std::size_t(role.index)];
    tr.run.unitsReady(now);
    scheduleFinish(role.index, now);
}

void Engine::onReleased(JobId job, qint64 now, bool evicted)
{
    const QList<UnitRef> units = m_units.take(job.value());
    const Sched::ClusterState &st = m_sched->state();
    for (const UnitRef &u : units) {
        if (u.profile >= 0)
            m_backend->setInstanceBusy(u.card, u.profile, u.start, false);
        else
            m_backend->setCardBusy(u.card, st.card(u.card).clients > 0);
    }
    m_waitingDevice.removeAll(job.value());
    m_unitBusy.remove(job.value());
    const Role role = m_roles.value(job.value(), Role{});
    if (role.index < 0)
        return;
    if (role.replica) {
        ServiceRt &s = m_services[std::size_t(role.index)];
        for (Replica &r : s.replicas) {
            if (r.successor == job)
                r.successor = JobId(); // it stays: what was to replace it is gone
        }
        for (int i = 0; i < s.replicas.size(); ++i) {
            Replica &r = s.replicas[i];
            if (r.job != job)
                continue;
            if (r.handle >= 0) {
                const int resent = s.model->removeReplica(r.handle, double(now));
                if (resent > 0) {
                    ApplianceEvent ev;
                    ev.atMs = now;
                    ev.code = ApplianceEventCode::RequestsFailedOver;
                    ev.job = job;
                    ev.a = role.index;
                    ev.value = resent;
                    m_events.record(ev);
                }
            }
            r.handle = -1;
            r.ready = false;
            if (!evicted) {
                s.replicas.removeAt(i);
            } else if (r.draining) {
                s.replicas.removeAt(i);
                m_sched->cancel(job, now);
            }
            break;
        }
        return;
    }
    TrainingRt &tr = m_training[std::size_t(role.index)];
    ++tr.placement;
    ++tr.finishEpoch;
    if (evicted) {
        tr.run.evict(now);
    } else {
        tr.run.stop(now);
        if (st.job(job).state == JobState::Finished) {
            tr.completed = true;
            tr.completedMs = now;
            ApplianceEvent ev;
            ev.atMs = now;
            ev.code = ApplianceEventCode::TrainingCompleted;
            ev.job = job;
            m_events.record(ev);
        }
    }
}

void Engine::scheduleFinish(int index, qint64 now)
{
    TrainingRt &tr = m_training[std::size_t(index)];
    ++tr.finishEpoch;
    const qint64 eta = tr.run.finishEtaMs(now);
    if (eta >= 0)
        push(std::max(eta, now), Kind::TrainingDone, index, tr.finishEpoch);
}

// --- The device -------------------------------------------------------------------------------

void Engine::handleDevice(qint64 now)
{
    m_backend->advance(now);
    const QList<Device::StepResult> results = m_backend->takeResults();
    for (const Device::StepResult &r : results) {
        --m_pendingSteps[std::size_t(r.step.card.value())];
        ApplianceEvent ev;
        ev.atMs = r.doneMs;
        ev.card = r.step.card;
        ev.a = int(r.step.kind);
        ev.b = r.step.profile;
        ev.c = r.step.start;
        if (r.error == Device::DeviceError::None) {
            ev.code = ApplianceEventCode::StepDone;
            ev.value = r.doneMs - r.startedMs;
        } else {
            ev.code = ApplianceEventCode::StepFailed;
            ev.reason = r.error == Device::DeviceError::InUse     ? ActionReason::DeviceInUse
                        : r.error == Device::DeviceError::GpuLost ? ActionReason::GpuLost
                                                                  : ActionReason::InvalidOrder;
            ev.value = qint64(r.error);
        }
        m_events.record(ev);
    }
    if (!results.isEmpty() && !m_waitingDevice.isEmpty()) {
        const QList<int> waiting = m_waitingDevice;
        for (int id : waiting) {
            const JobId job(id);
            for (const UnitRef &u : m_units.value(id)) {
                if (u.profile >= 0)
                    m_backend->setInstanceBusy(u.card, u.profile, u.start, true);
            }
            if (unitsReady(job)) {
                m_waitingDevice.removeAll(id);
                onUnitsReady(job, now);
            } else {
                // A step it needed failed: it goes back to the queue.
                bool failed = false;
                for (const Device::StepResult &r : results) {
                    if (r.error == Device::DeviceError::None
                        || r.step.kind != Device::DeviceStep::Kind::CreateInstance)
                        continue;
                    for (const UnitRef &u : m_units.value(id))
                        failed |= u.card == r.step.card && u.profile == r.step.profile
                                  && u.start == r.step.start;
                }
                if (failed && m_sched->state().job(job).state == JobState::Running) {
                    m_sched->requeue(job, now, false);
                    m_dirty = true;
                }
            }
        }
    }
    const QList<Device::DeviceFault> faults = m_backend->takeFaults();
    for (const Device::DeviceFault &f : faults) {
        ApplianceEvent ev;
        ev.atMs = f.atMs;
        ev.card = f.card;
        ev.value = f.durationMs;
        switch (f.kind) {
        case Device::FaultKind::CardLost:
        case Device::FaultKind::MemoryError:
            ++m_faults;
            ev.code = f.kind == Device::FaultKind::CardLost ? ApplianceEventCode::FaultCardLost
                                                            : ApplianceEventCode::FaultMemoryError;
            m_events.record(ev);
            m_inFault = true;
            m_sched->cardFailed(f.card, now);
            drainScheduler(now);
            m_inFault = false;
            m_dirty = true;
            // What ran there is back in the queue: the policy looks at once rather than at its
            // next period (replicas lost at a peak cannot wait).
            if (m_policy)
                push(now, Kind::PolicyWake, 0, 2);
            break;
        case Device::FaultKind::ThermalThrottle:
            ++m_faults;
            ev.code = ApplianceEventCode::FaultThermalThrottle;
            m_events.record(ev);
            break;
        case Device::FaultKind::Recovered:
            ev.code = ApplianceEventCode::CardRecovered;
            m_events.record(ev);
            m_sched->cardRecovered(f.card, now);
            m_dirty = true;
            break;
        }
    }
    if (m_dirty && !faults.isEmpty())
        tickScheduler(now);
}

double Engine::unitSpeed(const UnitRef &u, JobId self) const
{
    const Sched::ClusterState &st = m_sched->state();
    const Sched::CardState &c = st.card(u.card);
    const Domain::CardModel &m = st.model(c);
    const double rel = m.fp16Tflops / st.catalogue().models()[m_scenario.referenceModel].fp16Tflops;
    if (u.profile >= 0)
        return rel * double(m.migProfiles[u.profile].computeSlices) / m.migComputeSlices;
    if (!u.soft)
        return rel;
    // Soft sharing: time-slicing shares the card's time with whoever is busy; MPS holds its
    // quota, less interference through memory bandwidth from the busy sharers.
    const Domain::SoftSlicing *soft = m.softMode(c.mode);
    const double overhead = soft ? soft->overheadFactor : 1.0;
    double others = 0;
    double othersWeighted = 0;
    for (const Sched::Unit &o : c.units) {
        if (!o.job.isValid() || o.job == self)
            continue;
        const double b = m_unitBusy.value(o.job.value(), 0.0);
        others += b;
        othersWeighted += b * o.milli / 1000.0;
    }
    // Time-slicing costs its context switches only while another sharer is busy: a process
    // alone on the card keeps it to itself.
    if (c.mode == PartitionMode::TimeSlicing)
        return rel * (1.0 - (1.0 - overhead) * std::min(1.0, others)) / (1.0 + others);
    return rel * overhead * (u.milli / 1000.0) * (1.0 - 0.15 * std::min(1.0, othersWeighted));
}

void Engine::reclaimIdle(qint64 now)
{
    const Sched::ClusterState &st = m_sched->state();
    bool trainingWaits = false;
    for (const TrainingRt &tr : m_training)
        trainingWaits |= tr.job.isValid() && st.job(tr.job).state == JobState::Pending;
    if (!trainingWaits)
        return;
    for (const Sched::CardState &c : st.cards()) {
        if (c.mode != PartitionMode::Mig || c.clients > 0 || c.units.isEmpty()
            || c.health == Sched::CardHealth::Failed
            || m_pendingSteps[std::size_t(c.id.value())] > 0)
            continue;
        const Domain::CardModel &m = st.model(c);
        if (c.units.size() == 1
            && m.migProfiles[c.units.first().profile].computeSlices == m.migComputeSlices)
            continue; // a full-card instance already serves whole-card work
        m_sched->applyLayout(c.id, {}, now);
        m_dirty = true;
    }
    drainScheduler(now);
}

// --- The control tick: metrics, interference, paths, power, accounting -------------------------

double Engine::gangFactor(const QList<UnitRef> &units) const
{
    if (units.size() < 2)
        return 1;
    const Sched::ClusterState &st = m_sched->state();
    int domains = 0;
    for (const UnitRef &u : units)
        domains |= 1 << std::min(30, st.card(u.card).linkDomain);
    return std::pow((domains & (domains - 1)) ? m_scenario.crossDomainEfficiency
                                              : m_scenario.gangEfficiency,
                    std::log2(double(units.size())));
}

double Engine::jobPowerFactor(const QList<UnitRef> &units) const
{
    double f = 1;
    for (const UnitRef &u : units) {
        if (!m_cardPowerFactor.empty())
            f = std::min(f, m_cardPowerFactor[std::size_t(u.card.value())]);
    }
    return f;
}

void Engine::sampleCapacity(qint64 now, double dtd)
{
    const Sched::ClusterState &st = m_sched->state();
    const double refTflops = st.catalogue().models()[m_scenario.referenceModel].fp16Tflops;
    const double h = dtd / kHourMs;
    bool trainingWaits = false;
    for (const TrainingRt &tr : m_training)
        trainingWaits |= tr.job.isValid() && st.job(tr.job).state == JobState::Pending;
    CapacityBreakdown &b = m_capacityHours;
    for (const Sched::CardState &c : st.cards()) {
        if (c.health == Sched::CardHealth::Failed)
            continue;
        const double rel = st.model(c).fp16Tflops / refTflops;
        b.capacity += rel * h;
        double held = 0;
        for (const Sched::Unit &u : c.units) {
            if (!u.job.isValid())
                continue;
            const double share = rel * std::min(1000, st.unitMilli(c, u)) / 1000.0;
            held += share;
            const Role role = m_roles.value(u.job.value(), Role{});
            if (role.index < 0 || role.replica)
                b.inference += share * h;
        }
        const double free = std::max(0.0, rel - held);
        if (m_pendingSteps[std::size_t(c.id.value())] > 0)
            b.idleReconfiguring += free * h;
        else if (trainingWaits)
            b.idleTrainingWaits += free * h;
        else
            b.idle += free * h;
    }
    // Training: what it holds, split by what it did with it.
    for (const TrainingRt &tr : m_training) {
        if (!tr.job.isValid() || !st.job(tr.job).isActive())
            continue;
        const Sched::Job &j = st.job(tr.job);
        double held = 0;
        for (const Sched::Assignment &a : j.assignments) {
            const Sched::CardState &c = st.card(a.card);
            held += st.model(c).fp16Tflops / refTflops
                    * std::min(1000, st.unitMilli(c, *c.unit(a.unitUid))) / 1000.0;
        }
        if (tr.run.isProgressing(now)) {
            const double work = std::min(held, tr.run.speed());
            b.trainingWork += work * h;
            b.trainingSlowdown += (held - work) * h;
            // Of the slowdown: what a gang loses by its width whatever is done, and what the
            // training power cap or the appliance's power budget took.
            const QList<UnitRef> units = m_units.value(tr.job.value());
            const double gang = gangFactor(units);
            b.trainingSlowdownGang += held * (1 - gang) * h;
            b.trainingSlowdownPower += held * gang * (1 - jobPowerFactor(units)) * h;
        } else {
            b.trainingStarting += held * h;
        }
    }
}

void Engine::control(qint64 now)
{
    const qint64 dt = now - m_lastControl;
    if (dt <= 0)
        return;
    const double dtd = double(dt);
    const Sched::ClusterState &st = m_sched->state();
    const int cards = int(st.cards().size());

    // Inference: busy share per replica, drained replicas leave.
    for (std::size_t si = 0; si < m_services.size(); ++si) {
        ServiceRt &s = m_services[si];
        QList<JobId> drained;
        for (const Replica &r : s.replicas) {
            if (r.handle < 0)
                continue;
            m_unitBusy.insert(r.job.value(), std::min(1.0, s.model->takeBusyMs(r.handle) / dtd));
            s.replicaMs += dtd;
            if (r.draining && (!r.ready || s.model->isDrained(r.handle, double(now))))
                drained.append(r.job);
        }
        s.maxServing = std::max(s.maxServing, s.model->servingReplicas());
        s.model->rotate();
        for (JobId j : drained) {
            m_sched->cancel(j, now);
            m_dirty = true;
        }
    }
    drainScheduler(now);
    // Training: progress so far; busy while it progresses.
    for (TrainingRt &tr : m_training) {
        if (!tr.run.isPlaced())
            continue;
        tr.run.advance(now);
        m_unitBusy.insert(tr.job.value(), tr.run.isProgressing(now) ? 1.0 : 0.0);
    }
    sampleCapacity(now, dtd);

    // Per card: utilisation by class and memory.
    std::vector<double> utilInf(std::size_t(cards), 0.0), utilTr(std::size_t(cards), 0.0);
    std::vector<qint64> mem(std::size_t(cards), 0);
    for (auto it = m_units.cbegin(); it != m_units.cend(); ++it) {
        const double busy = m_unitBusy.value(it.key(), 0.0);
        const bool replica = m_roles.value(it.key()).replica;
        for (const UnitRef &u : it.value()) {
            const std::size_t c = std::size_t(u.card.value());
            const double share = u.soft ? (st.card(u.card).mode == PartitionMode::TimeSlicing
                                                   ? 1.0
                                                   : u.milli / 1000.0)
                                        : u.milli / 1000.0;
            (replica ? utilInf : utilTr)[c] += share * busy;
        }
    }
    for (const Sched::CardState &c : st.cards()) {
        const std::size_t i = std::size_t(c.id.value());
        mem[i] = c.usedMemoryMiB;
        const double sum = utilInf[i] + utilTr[i];
        if (sum > 1) {
            utilInf[i] /= sum;
            utilTr[i] /= sum;
        }
    }
    // Power: the training class's cap and the appliance's budget slow training down.
    double idle = 0, dynInf = 0, dynTr = 0;
    for (const Sched::CardState &c : st.cards()) {
        if (c.health == Sched::CardHealth::Failed)
            continue;
        const Domain::CardModel &m = st.model(c);
        const std::size_t i = std::size_t(c.id.value());
        idle += m.idlePowerW;
        dynInf += (m.maxPowerW - m.idlePowerW) * utilInf[i]; // at full clocks: an upper bound
        dynTr += (m.maxPowerW - m.idlePowerW) * utilTr[i];
    }
    double powerFactor = 1;
    if (m_trainingPowerCapW > 0 && dynTr > m_trainingPowerCapW)
        powerFactor = m_trainingPowerCapW / dynTr;
    // Over the appliance's budget, the cut comes from training where a watt does the least work
    // (the card's TFLOPS per watt of load), down to kMinClock of its clocks, then from all
    // training alike.
    m_cardPowerFactor.assign(std::size_t(cards), powerFactor);
    double excess = m_scenario.powerBudgetW > 0 && dynTr > 0
                            ? idle + dynInf + dynTr * powerFactor - m_scenario.powerBudgetW
                            : 0;
    if (excess > 0) {
        constexpr double kMinClock = 0.5;
        std::vector<int> order;
        for (int i = 0; i < cards; ++i) {
            if (utilTr[std::size_t(i)] > 0 && st.cards()[i].health != Sched::CardHealth::Failed)
                order.push_back(i);
        }
        auto perWatt = [&](int i) {
            const Domain::CardModel &m = st.model(st.cards()[i]);
            return m.fp16Tflops / std::max(1.0, double(m.maxPowerW - m.idlePowerW));
        };
        std::stable_sort(
                order.begin(), order.end(), [&](int a, int b) { return perWatt(a) < perWatt(b); });
        for (std::size_t g = 0; g < order.size() && excess > 0;) {
            // One group of cards alike in work per watt gives up to its floor together.
            std::size_t e = g;
            double groupW = 0;
            while (e < order.size() && perWatt(order[e]) == perWatt(order[g])) {
                const Domain::CardModel &m = st.model(st.cards()[order[e]]);
                groupW += (m.maxPowerW - m.idlePowerW) * utilTr[std::size_t(order[e])];
                ++e;
            }
            const double give = std::min(excess, groupW * powerFactor * (1 - kMinClock));
            if (groupW > 0) {
                for (std::size_t k = g; k < e; ++k)
                    m_cardPowerFactor[std::size_t(order[k])] = powerFactor - give / groupW;
            }
            excess -= give;
            g = e;
        }
        if (excess > 0) {
            // Still over: every card's training down alike, by what is left of its power.
            double left = 0;
            for (int i : order) {
                const Domain::CardModel &m = st.model(st.cards()[i]);
                left += (m.maxPowerW - m.idlePowerW) * utilTr[std::size_t(i)]
                        * m_cardPowerFactor[std::size_t(i)];
            }
            const double scale = left > 0 ? std::max(0.0, 1 - excess / left) : 0;
            for (int i : order)
                m_cardPowerFactor[std::size_t(i)] *= scale;
        }
    }
    double totalPower = 0;
    double busySum = 0;
    for (int i = 0; i < cards; ++i) {
        const std::size_t k = std::size_t(i);
        const double util = utilInf[k] + utilTr[k] * m_cardPowerFactor[k];
        busySum += st.cards()[i].health == Sched::CardHealth::Failed ? 0 : util;
        m_backend->setLoad(CardId(i), util, mem[k], now);
        const Device::CardMetrics mt = m_backend->metrics(CardId(i));
        m_clock[k] = mt.lost ? 0.0 : mt.clockFactor;
        totalPower += mt.powerW;
        if (mt.throttled != m_throttled[k]) {
            m_throttled[k] = mt.throttled;
            ApplianceEvent ev;
            ev.atMs = now;
            ev.code = mt.throttled ? ApplianceEventCode::ThrottleStarted
                                   : ApplianceEventCode::ThrottleEnded;
            ev.card = CardId(i);
            ev.value = qint64(mt.temperatureC * 1000);
            m_events.record(ev);
        }
    }
    m_peakPowerW = std::max(m_peakPowerW, totalPower);

    // Shared host paths: inference first, training within its quota and what is left.
    const int hosts = int(st.hosts().size());
    std::vector<double> infGBps(std::size_t(hosts), 0.0), trPcie(std::size_t(hosts), 0.0),
            trNet(std::size_t(hosts), 0.0);
    for (const ServiceRt &s : m_services) {
        for (const Replica &r : s.replicas) {
            const QList<UnitRef> units = m_units.value(r.job.value());
            if (r.handle < 0 || units.isEmpty())
                continue;
            const double perSecond
                    = m_unitBusy.value(r.job.value(), 0.0) * 1000.0
                      / std::max(1e-6, s.def.serviceMs * s.model->slowdown(r.handle));
            infGBps[std::size_t(st.card(units.first().card).host.value())]
                    += perSecond * s.def.requestMB / 1000.0;
        }
    }
    for (const TrainingRt &tr : m_training) {
        const QList<UnitRef> units = m_units.value(tr.job.value());
        if (!tr.run.isPlaced() || units.isEmpty() || !tr.run.isProgressing(now))
            continue;
        const std::size_t h = std::size_t(st.card(units.first().card).host.value());
        trPcie[h] += tr.def.dataGBps * units.size() * jobPowerFactor(units);
        if (tr.def.spec.checkpointIntervalMs > 0)
            trNet[h] += tr.def.checkpointGB / (tr.def.spec.checkpointIntervalMs / 1000.0);
    }
    std::vector<double> bwFactor(std::size_t(hosts), 1.0), inflate(std::size_t(hosts), 1.0);
    for (int h = 0; h < hosts; ++h) {
        const std::size_t k = std::size_t(h);
        const HostPaths &p = m_scenario.paths.value(h);
        auto share = [&](double demand, double cap, double inf, double *allowed) {
            *allowed = std::min({demand, m_trainingBandwidthShare * cap, std::max(0.0, cap - inf)});
            return demand > 0 ? *allowed / demand : 1.0;
        };
        double allowedP = 0, allowedN = 0;
        const double fp = share(trPcie[k], p.pcieGBps, infGBps[k], &allowedP);
        const double fn = share(trNet[k], p.networkGBps, infGBps[k], &allowedN);
        bwFactor[k] = std::min(fp, fn);
        const double util = std::max((infGBps[k] + allowedP) / p.pcieGBps,
                                     (infGBps[k] + allowedN) / p.networkGBps);
        inflate[k] = 1.0 + 3.0 * std::max(0.0, util - 0.85);
        m_trainingGB += (allowedP + allowedN) * dtd / 1000.0;
        m_inferenceGB += 2 * infGBps[k] * dtd / 1000.0;
        m_trainingPathShare = std::max(m_trainingPathShare,
                                       std::max(allowedP / p.pcieGBps, allowedN / p.networkGBps));
    }

    // New speeds: training (clocks, gang scaling, paths, power) and replicas (clocks, paths).
    for (int i = 0; i < int(m_training.size()); ++i) {
        TrainingRt &tr = m_training[std::size_t(i)];
        const QList<UnitRef> units = m_units.value(tr.job.value());
        if (!tr.run.isPlaced() || units.isEmpty())
            continue;
        double speed = 0;
        for (const UnitRef &u : units)
            speed += unitSpeed(u, tr.job) * m_clock[std::size_t(u.card.value())];
        speed *= gangFactor(units);
        speed *= bwFactor[std::size_t(st.card(units.first().card).host.value())]
                 * jobPowerFactor(units);
        if (std::abs(speed - tr.run.speed()) > 1e-12) {
            tr.run.setSpeed(now, speed);
            scheduleFinish(i, now);
        }
    }
    for (ServiceRt &s : m_services) {
        for (const Replica &r : s.replicas) {
            const QList<UnitRef> units = m_units.value(r.job.value());
            if (r.handle < 0 || units.isEmpty())
                continue;
            const UnitRef &u = units.first();
            const double speed
                    = std::max(1e-6, unitSpeed(u, r.job) * m_clock[std::size_t(u.card.value())]);
            s.model->setSlowdown(r.handle,
                                 inflate[std::size_t(st.card(u.card).host.value())] / speed);
        }
    }

    // Accounting, and the fluid bound over the same interval.
    double capacityRef = 0;
    int healthy = 0;
    double allocated = 0;
    const double refTflops = st.catalogue().models()[m_scenario.referenceModel].fp16Tflops;
    for (const Sched::CardState &c : st.cards()) {
        if (c.health == Sched::CardHealth::Failed)
            continue;
        ++healthy;
        allocated += c.usedMilli / 1000.0;
        capacityRef += st.model(c).fp16Tflops / refTflops;
    }
    m_capacityMs += healthy * dtd;
    m_allocatedMs += allocated * dtd;
    m_busyMs += busySum * dtd;
    double needRef = 0;
    const qint64 mid = localWeekMs(m_lastControl + dt / 2);
    for (const ServiceRt &s : m_services) {
        const double rate = s.def.curve.rate(mid);
        const int n = Policy::replicasFor(rate / 1000.0,
                                          s.def.serviceMs * s.nominalSlowdown,
                                          s.def.cv,
                                          s.def.spec.inference->sloP99Ms,
                                          0.99,
                                          1.0,
                                          100000);
        needRef += n * s.unitRef;
    }
    m_bound.step(m_lastControl, now, capacityRef - needRef);
    m_capacityHours.inferenceNeed += std::min(capacityRef, needRef) * dtd / kHourMs;

    if (m_scenario.reclaimIdlePartitions)
        reclaimIdle(now);
    if (now >= m_nextLossSample) {
        m_nextLossSample += 15 * 60'000;
        for (TrainingRt &tr : m_training) {
            if (tr.job.isValid())
                tr.lossCurve.append({double(now - m_scenario.startMs) / kHourMs, tr.run.loss()});
        }
    }
    m_lastControl = now;
}

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
        ev.a = service;
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
    ev.a = service;
    ev.b = card.value();
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
        ev.a = service;
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

QList<QList<double>> Engine::history(int service) const
{
    return syntheticHistory(m_scenario, service, m_seed, historyBucketMs());
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
    return r;
}

int Engine::serviceIndexOfJob(JobId job) const
{
    const Role r = m_roles.value(job.value(), Role{});
    return r.replica ? r.index : -1;
}

} // namespace Zhaoxi::Sim
