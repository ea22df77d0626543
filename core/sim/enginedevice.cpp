// SPDX-License-Identifier: GPL-3.0-or-later
// The engine's device side: step results and faults from the simulated backend, and the control
// tick (metrics, interference, paths, power, accounting). engine.cpp has the event loop.
#include "engine_p.h"

#include "core/runtime/devicebridge.h"

#include "core/policy/queueing.h"

#include <QElapsedTimer>
#include <QSet>

#include <algorithm>
#include <cmath>

namespace Zhaoxi::Sim {

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
        ev.stepKind = int(r.step.kind);
        ev.profile = r.step.profile;
        ev.start = r.step.start;
        if (r.error == Device::DeviceError::None) {
            ev.code = ApplianceEventCode::StepDone;
            ev.durationMs = r.doneMs - r.startedMs;
        } else {
            ev.code = ApplianceEventCode::StepFailed;
            ev.reason = r.error == Device::DeviceError::InUse     ? ActionReason::DeviceInUse
                        : r.error == Device::DeviceError::GpuLost ? ActionReason::GpuLost
                                                                  : ActionReason::InvalidOrder;
            ev.error = int(r.error);
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
        ev.durationMs = f.durationMs;
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
    return u.factor * unitSpeedOf(u, self);
}

double Engine::unitSpeedOf(const UnitRef &u, JobId self) const
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
        // A pinned layout is the operator's: it stays (applyLayout refuses it).
        if (m_sched->applyLayout(c.id, {}, now, nullptr, Sched::AutoChangeCause::ReclaimIdle))
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
            ev.temperatureMilliC = qint64(mt.temperatureC * 1000);
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

} // namespace Zhaoxi::Sim
