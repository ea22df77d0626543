// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine_p.h"

#include "core/runtime/devicebridge.h"

#include "core/policy/queueing.h"

#include <QElapsedTimer>
#include <QSet>

#include "core/domain/demand.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace Zhaoxi::Sim {

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
        s.primaryRef = s.unitRef;
        s.primaryMilli = s.unitMilli;
        s.primarySlowdown = s.nominalSlowdown;
        m_services.push_back(std::move(s));
    }
    // The scheduler's shape choice counts a gang's communication as the twin does.
    Sched::ShapeOptions shapes = m_sched->options().shapes;
    shapes.gangEfficiency = m_scenario.gangEfficiency;
    m_sched->setShapeOptions(shapes);
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
        // A replay starts with the replicas that were serving (the policy may take them back).
        const QList<Policy::ServiceView> views = services(m_now);
        for (int i = 0; i < int(m_services.size()); ++i) {
            const int initial = m_services[std::size_t(i)].def.initialReplicas;
            if (initial > views[i].target)
                setReplicas(i, initial, m_now, ActionReason::None);
        }
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
    // A card the command left without work is idle now, not at the next control step: paused,
    // a freed card must not keep showing its old utilisation and power.
    const Sched::ClusterState &st = m_sched->state();
    for (const Sched::CardState &c : st.cards()) {
        const bool held = std::any_of(c.units.cbegin(), c.units.cend(), [](const Sched::Unit &u) {
            return u.job.isValid();
        });
        if (!held && c.id.value() < m_backend->cardCount())
            m_backend->setLoad(c.id, 0, 0, m_now);
    }
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
        ev.workSavedMs = qint64(tr.run.savedMs());
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
    const double factor
            = j.shape >= 0 && !j.assignments.isEmpty()
                      ? shapeFactor(j.spec, j.shape, st.card(j.assignments.first().card).model)
                      : 1.0;
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
        r.factor = factor;
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
    countShape(role, j.spec, j.shape);
    if (role.replica) {
        ServiceRt &s = m_services[std::size_t(role.index)];
        if (!j.spec.shapes.isEmpty()) {
            // The policies size the service by what its replicas are placed in: the latest one's
            // shape (its speed, its compute).
            const double speed = Domain::shapeSpeed(j.spec, j.shape);
            const qint64 milli = std::accumulate(
                    units.cbegin(), units.cend(), qint64(0), [](qint64 sum, const UnitRef &u) {
                        return sum + u.milli;
                    });
            s.nominalSlowdown = s.primarySlowdown / speed;
            s.unitMilli = milli > 0 ? milli : s.primaryMilli;
            s.unitRef = s.primaryRef * double(s.unitMilli)
                        / double(std::max<qint64>(1, s.primaryMilli));
        }
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
        ev.workSavedMs = qint64(tr.run.savedMs());
        ev.workLostMs = qint64(tr.lastLostMs);
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
                    ev.service = role.index;
                    ev.requests = resent;
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
        tr.lastLostMs = tr.run.evict(now);
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

double Engine::shapeFactor(const Domain::WorkloadSpec &spec, int shape, int model) const
{
    if (shape < 0 || shape >= spec.shapes.size())
        return 1.0;
    const QList<Domain::CardModel> &models = m_sched->state().catalogue().models();
    const double refTflops = models[m_scenario.referenceModel].fp16Tflops;
    // A demand's speed at full clocks on one model, in reference cards; 0 when the model cannot
    // serve it.
    const auto nominal = [&](const Domain::Demand &d, int m) {
        if (m < 0 || m >= models.size() || Domain::demandMilliOn(models[m], d.compute) <= 0)
            return 0.0;
        const double gang
                = d.cards > 1 ? std::pow(m_scenario.gangEfficiency, std::log2(d.cards)) : 1.0;
        return models[m].fp16Tflops / refTflops * Domain::demandShareOn(models[m], d.compute)
               * d.cards * gang;
    };
    const Domain::WorkloadShape &alt = spec.shapes[shape];
    const double here = nominal(alt.demand, model);
    if (here <= 0)
        return alt.speed;
    // The primary as it would run on the same model, else on the reference model (its profile
    // may not exist on this one), else the shape's own: the speed alone then scales.
    double primary = nominal(spec.demand, model);
    if (primary <= 0)
        primary = nominal(spec.demand, m_scenario.referenceModel);
    if (primary <= 0)
        primary = here;
    return alt.speed * primary / here;
}

void Engine::countShape(const Role &role, const Domain::WorkloadSpec &spec, int shape)
{
    if (spec.shapes.isEmpty() || role.index < 0)
        return;
    ++m_shapeCounts[{role.replica ? 0 : 1, role.index}][shape];
}

QList<ShapeChoiceReport> Engine::shapeChoices() const
{
    QList<ShapeChoiceReport> out;
    const auto add
            = [&](const Domain::WorkloadSpec &spec, bool service, const QString &name, int index) {
                  if (spec.shapes.isEmpty())
                      return;
                  const QMap<int, int> counts = m_shapeCounts.value({service ? 0 : 1, index});
                  for (int k = -1; k < spec.shapes.size(); ++k) {
                      ShapeChoiceReport c;
                      c.workload = name;
                      c.service = service;
                      c.shape = k;
                      c.demand = Domain::shapeText(Domain::shapeDemand(spec, k));
                      c.speed = Domain::shapeSpeed(spec, k);
                      c.count = counts.value(k, 0);
                      out.append(c);
                  }
              };
    for (int i = 0; i < int(m_services.size()); ++i) {
        const ServiceDef &def = m_services[std::size_t(i)].def;
        add(def.spec, true, def.spec.inference->service, i);
    }
    for (int i = 0; i < int(m_training.size()); ++i) {
        const TrainingDef &def = m_training[std::size_t(i)].def;
        add(def.spec, false, def.spec.name, i);
    }
    return out;
}

void Engine::scheduleFinish(int index, qint64 now)
{
    TrainingRt &tr = m_training[std::size_t(index)];
    ++tr.finishEpoch;
    const qint64 eta = tr.run.finishEtaMs(now);
    if (eta >= 0)
        push(std::max(eta, now), Kind::TrainingDone, index, tr.finishEpoch);
}

} // namespace Zhaoxi::Sim
