// SPDX-License-Identifier: GPL-3.0-or-later
#include "simulatedbackend.h"

#include "core/catalogue/layoutrules.h"

#include <QCryptographicHash>

#include <algorithm>
#include <cmath>

namespace Zhaoxi::Device {

using Domain::CardModel;

namespace {

// "<prefix>-00000000-" and 24 hex digits of SHA-1(seed): the shape of a real UUID, marked fake.
QString fakeUuid(QLatin1String prefix, const QByteArray &seed)
{
    const QByteArray h = QCryptographicHash::hash(seed, QCryptographicHash::Sha1).toHex();
    return QStringLiteral("%1-00000000-%2-%3-%4-%5")
            .arg(prefix,
                 QLatin1String(h.mid(0, 4)),
                 QLatin1String(h.mid(4, 4)),
                 QLatin1String(h.mid(8, 4)),
                 QLatin1String(h.mid(12, 12)));
}

} // namespace

const char *toString(DeviceError error)
{
    switch (error) {
    case DeviceError::None:
        return "ok";
    case DeviceError::InUse:
        return "in-use";
    case DeviceError::InvalidPlacement:
        return "invalid-placement";
    case DeviceError::InsufficientResources:
        return "insufficient-resources";
    case DeviceError::NotFound:
        return "not-found";
    case DeviceError::NotSupported:
        return "not-supported";
    case DeviceError::GpuLost:
        return "gpu-lost";
    }
    return "unknown";
}

const char *toString(DeviceStep::Kind kind)
{
    switch (kind) {
    case DeviceStep::Kind::CreateInstance:
        return "create-instance";
    case DeviceStep::Kind::DestroyInstance:
        return "destroy-instance";
    case DeviceStep::Kind::SetMode:
        return "set-mode";
    }
    return "unknown";
}

const char *toString(FaultKind kind)
{
    switch (kind) {
    case FaultKind::CardLost:
        return "card-lost";
    case FaultKind::MemoryError:
        return "memory-error";
    case FaultKind::ThermalThrottle:
        return "thermal-throttle";
    case FaultKind::Recovered:
        return "recovered";
    }
    return "unknown";
}

SimulatedBackend::SimulatedBackend(const Sched::ClusterState &state,
                                   SimulatedBackendOptions options)
    : m_catalogue(state.catalogue())
    , m_options(options)
{
    for (const Sched::HostState &h : state.hosts())
        m_hosts.append(HostInfo{h.id, h.name, h.firstCard, h.cardCount});
    m_cards.reserve(state.cards().size());
    for (const Sched::CardState &c : state.cards()) {
        const Sched::HostState &host = state.host(c.host);
        Card card;
        // The index on the host, not the card's id: the same host keeps its UUIDs when hosts
        // before it in the file change.
        const QByteArray seed = "zhaoxi simulated card\n" + host.name.toUtf8() + '\n'
                                + QByteArray::number(c.id.value() - host.firstCard);
        card.info = CardInfo{
                c.id, c.host, c.model, c.linkDomain, fakeUuid(QLatin1String("GPU"), seed)};
        card.mode = c.mode;
        for (const Sched::Unit &u : c.units) {
            if (u.profile >= 0) {
                Instance i{u.profile, u.start, true, u.job.isValid(), {}};
                i.uuid = nextInstanceUuid(card, u.profile, u.start);
                card.instances.append(i);
            }
        }
        card.temperatureC = m_options.ambientC
                            + m_options.riseAtMaxPowerC * state.model(c).idlePowerW
                                      / std::max(1, state.model(c).maxPowerW);
        m_cards.push_back(std::move(card));
    }
}

void SimulatedBackend::startAt(qint64 nowMs)
{
    m_nowMs = nowMs;
    for (Card &c : m_cards)
        c.updatedMs = nowMs;
}

QList<CardInfo> SimulatedBackend::cards() const
{
    QList<CardInfo> out;
    out.reserve(qsizetype(m_cards.size()));
    for (const Card &c : m_cards)
        out.append(c.info);
    return out;
}

CardLayout SimulatedBackend::layout(CardId card) const
{
    const Card &c = m_cards[card.value()];
    CardLayout l;
    l.mode = c.mode;
    l.lost = c.lost;
    for (const Instance &i : c.instances)
        l.instances.append(InstanceInfo{i.profile, i.start, i.ready, i.busy, i.uuid});
    return l;
}

QString SimulatedBackend::nextInstanceUuid(Card &c, int profile, int start) const
{
    ++c.created;
    const QByteArray seed = "zhaoxi simulated instance\n" + c.info.uuid.toLatin1() + '\n'
                            + m_catalogue.models()[c.info.model].migProfiles[profile].name.toUtf8()
                            + '@' + QByteArray::number(start) + '#' + QByteArray::number(c.created);
    return fakeUuid(QLatin1String("MIG"), seed);
}

quint64 SimulatedBackend::apply(const QList<DeviceStep> &steps, qint64 nowMs)
{
    advance(nowMs);
    const quint64 order = m_nextOrder++;
    for (int i = 0; i < steps.size(); ++i) {
        Card &c = m_cards[steps[i].card.value()];
        c.queue.push_back(Pending{order, i, steps[i]});
        if (!c.running)
            startNext(c, nowMs);
    }
    return order;
}

int SimulatedBackend::findInstance(const Card &c, int profile, int start) const
{
    for (int i = 0; i < c.instances.size(); ++i) {
        if (c.instances[i].profile == profile && c.instances[i].start == start)
            return i;
    }
    return -1;
}

QList<Domain::MigPlacement> SimulatedBackend::placements(const Card &c) const
{
    QList<Domain::MigPlacement> out;
    for (const Instance &i : c.instances)
        out.append({i.profile, i.start});
    return out;
}

DeviceError SimulatedBackend::check(const Card &c, const DeviceStep &s) const
{
    if (c.lost)
        return DeviceError::GpuLost;
    const CardModel &m = m_catalogue.models()[c.info.model];
    switch (s.kind) {
    case DeviceStep::Kind::CreateInstance: {
        if (c.mode != PartitionMode::Mig || s.profile < 0 || s.profile >= m.migProfiles.size())
            return DeviceError::NotSupported;
        if (!m.migProfiles[s.profile].starts.contains(s.start))
            return DeviceError::InvalidPlacement;
        const Catalogue::LayoutVerdict v
                = Catalogue::canAdd(m, placements(c), {s.profile, s.start});
        return v.isValid() ? DeviceError::None : DeviceError::InsufficientResources;
    }
    case DeviceStep::Kind::DestroyInstance: {
        if (c.mode != PartitionMode::Mig)
            return DeviceError::NotSupported;
        const int i = findInstance(c, s.profile, s.start);
        if (i < 0 || !c.instances[i].ready)
            return DeviceError::NotFound;
        return c.instances[i].busy ? DeviceError::InUse : DeviceError::None;
    }
    case DeviceStep::Kind::SetMode:
        if (!m.supports(s.mode))
            return DeviceError::NotSupported;
        if (c.busy || !c.instances.isEmpty())
            return DeviceError::InUse;
        return DeviceError::None;
    }
    return DeviceError::NotSupported;
}

void SimulatedBackend::startNext(Card &c, qint64 nowMs)
{
    c.running = false;
    while (!c.queue.empty()) {
        const Pending &p = c.queue.front();
        const DeviceError e = check(c, p.step);
        if (e != DeviceError::None) {
            m_results.append(StepResult{p.order, p.index, p.step, e, nowMs, nowMs});
            c.queue.pop_front();
            continue;
        }
        c.running = true;
        c.stepStartMs = nowMs;
        switch (p.step.kind) {
        case DeviceStep::Kind::CreateInstance:
            c.instances.append(Instance{p.step.profile, p.step.start, false, false, {}});
            c.stepEndMs = nowMs + m_options.createMs;
            break;
        case DeviceStep::Kind::DestroyInstance:
            c.instances[findInstance(c, p.step.profile, p.step.start)].ready = false;
            c.stepEndMs = nowMs + m_options.destroyMs;
            break;
        case DeviceStep::Kind::SetMode:
            c.stepEndMs = nowMs + m_options.modeSwitchMs;
            break;
        }
        return;
    }
}

void SimulatedBackend::finishStep(Card &c)
{
    const Pending p = c.queue.front();
    c.queue.pop_front();
    c.running = false;
    switch (p.step.kind) {
    case DeviceStep::Kind::CreateInstance: {
        Instance &i = c.instances[findInstance(c, p.step.profile, p.step.start)];
        i.ready = true;
        i.uuid = nextInstanceUuid(c, i.profile, i.start);
        break;
    }
    case DeviceStep::Kind::DestroyInstance:
        c.instances.removeAt(findInstance(c, p.step.profile, p.step.start));
        break;
    case DeviceStep::Kind::SetMode:
        c.mode = p.step.mode;
        break;
    }
    m_results.append(
            StepResult{p.order, p.index, p.step, DeviceError::None, c.stepStartMs, c.stepEndMs});
}

bool SimulatedBackend::faultThrottled(const Card &c) const
{
    return c.faultThrottleUntilMs > m_nowMs || c.faultThrottleUntilMs > c.updatedMs;
}

double SimulatedBackend::clockFactor(const Card &c) const
{
    if (c.lost)
        return 0;
    double f = 1;
    if (c.hot)
        f = std::min(f, m_options.heatThrottleFactor);
    if (faultThrottled(c))
        f = std::min(f, m_options.faultThrottleFactor);
    const CardModel &m = m_catalogue.models()[c.info.model];
    if (c.powerCapW > 0 && c.utilisation > 0) {
        const double dyn = (m.maxPowerW - m.idlePowerW) * c.utilisation;
        const double room = std::max(0.0, c.powerCapW - m.idlePowerW);
        if (dyn * f > room)
            f = dyn > 0 ? room / dyn : f;
    }
    return f;
}

double SimulatedBackend::power(const Card &c) const
{
    if (c.lost)
        return 0;
    const CardModel &m = m_catalogue.models()[c.info.model];
    return m.idlePowerW + (m.maxPowerW - m.idlePowerW) * c.utilisation * clockFactor(c);
}

void SimulatedBackend::integrate(Card &c, qint64 toMs)
{
    if (toMs <= c.updatedMs)
        return;
    const CardModel &m = m_catalogue.models()[c.info.model];
    const double p = power(c);
    const double dt = double(toMs - c.updatedMs) / 1000.0;
    c.energyJ += p * dt;
    const double target
            = m_options.ambientC + m_options.riseAtMaxPowerC * p / std::max(1, m.maxPowerW);
    c.temperatureC = target + (c.temperatureC - target) * std::exp(-dt / m_options.thermalTauS);
    if (!c.hot && c.temperatureC > m_options.throttleAtC)
        c.hot = true;
    else if (c.hot && c.temperatureC < m_options.resumeBelowC)
        c.hot = false;
    c.updatedMs = toMs;
}

void SimulatedBackend::advance(qint64 nowMs)
{
    for (;;) {
        // The earliest thing due: a step ending, a fault, a lost card coming back.
        qint64 t = -1;
        auto consider = [&](qint64 at) {
            if (at >= 0 && at <= nowMs && (t < 0 || at < t))
                t = at;
        };
        for (const Card &c : m_cards) {
            if (c.running)
                consider(c.stepEndMs);
            if (c.lost && c.lostUntilMs >= 0)
                consider(c.lostUntilMs);
        }
        if (!m_faults.empty())
            consider(m_faults.front().atMs);
        if (t < 0)
            break;
        m_nowMs = t;
        for (Card &c : m_cards) {
            if (c.running && c.stepEndMs == t) {
                integrate(c, t);
                finishStep(c);
                startNext(c, t);
            }
            if (c.lost && c.lostUntilMs == t) {
                integrate(c, t);
                c.lost = false;
                c.lostUntilMs = -1;
                m_reported.append(DeviceFault{t, c.info.id, FaultKind::Recovered, 0});
                startNext(c, t);
            }
        }
        while (!m_faults.empty() && m_faults.front().atMs == t) {
            const DeviceFault f = m_faults.front();
            m_faults.erase(m_faults.begin());
            Card &c = m_cards[f.card.value()];
            integrate(c, t);
            const qint64 dur = f.durationMs > 0 ? f.durationMs : m_options.defaultFaultMs;
            switch (f.kind) {
            case FaultKind::CardLost:
                c.lost = true;
                c.lostUntilMs = f.durationMs > 0 ? t + f.durationMs : -1;
                for (Instance &i : c.instances)
                    i.busy = false;
                c.busy = false;
                c.utilisation = 0;
                // Steps in progress or queued fail with the card.
                if (c.running) {
                    const Pending p = c.queue.front();
                    c.queue.pop_front();
                    c.running = false;
                    if (p.step.kind == DeviceStep::Kind::CreateInstance)
                        c.instances.removeAt(findInstance(c, p.step.profile, p.step.start));
                    else if (p.step.kind == DeviceStep::Kind::DestroyInstance)
                        c.instances[findInstance(c, p.step.profile, p.step.start)].ready = true;
                    m_results.append(StepResult{
                            p.order, p.index, p.step, DeviceError::GpuLost, c.stepStartMs, t});
                }
                startNext(c, t);
                break;
            case FaultKind::MemoryError:
                // The work on the card dies; the card resets and is back after the reset.
                c.lost = true;
                c.lostUntilMs = t + dur;
                c.utilisation = 0;
                break;
            case FaultKind::ThermalThrottle:
                c.faultThrottleUntilMs = t + dur;
                break;
            case FaultKind::Recovered:
                break;
            }
            DeviceFault reported = f;
            reported.durationMs = f.kind == FaultKind::CardLost ? f.durationMs : dur;
            m_reported.append(reported);
        }
    }
    m_nowMs = std::max(m_nowMs, nowMs);
    for (Card &c : m_cards)
        integrate(c, nowMs);
}

QList<StepResult> SimulatedBackend::takeResults()
{
    QList<StepResult> r;
    r.swap(m_results);
    return r;
}

QList<DeviceFault> SimulatedBackend::takeFaults()
{
    QList<DeviceFault> r;
    r.swap(m_reported);
    return r;
}

qint64 SimulatedBackend::nextEventMs() const
{
    qint64 t = -1;
    auto consider = [&](qint64 at) {
        if (at >= 0 && (t < 0 || at < t))
            t = at;
    };
    for (const Card &c : m_cards) {
        if (c.running)
            consider(c.stepEndMs);
        if (c.lost && c.lostUntilMs >= 0)
            consider(c.lostUntilMs);
    }
    if (!m_faults.empty())
        consider(m_faults.front().atMs);
    return t;
}

CardMetrics SimulatedBackend::metrics(CardId card) const
{
    const Card &c = m_cards[card.value()];
    CardMetrics m;
    m.atMs = c.updatedMs;
    m.utilisation = c.lost ? 0 : c.utilisation;
    m.memoryUsedMiB = c.lost ? 0 : c.memoryMiB;
    m.temperatureC = c.temperatureC;
    m.powerW = power(c);
    m.clockFactor = clockFactor(c);
    m.throttled = !c.lost && m.clockFactor < 1;
    if (m.throttled) {
        if (c.hot)
            m.throttleReasons |= ThrottleReason::HwThermal;
        if (faultThrottled(c))
            m.throttleReasons |= ThrottleReason::HwSlowdown;
        if (m.throttleReasons == 0) // neither: the power cap
            m.throttleReasons = ThrottleReason::SwPowerCap;
    }
    m.lost = c.lost;
    return m;
}

void SimulatedBackend::setLoad(CardId card, double utilisation, qint64 memoryMiB, qint64 nowMs)
{
    Card &c = m_cards[card.value()];
    integrate(c, nowMs);
    c.utilisation = c.lost ? 0 : std::clamp(utilisation, 0.0, 1.0);
    c.memoryMiB = memoryMiB;
}

void SimulatedBackend::setInstanceBusy(CardId card, int profile, int start, bool busy)
{
    Card &c = m_cards[card.value()];
    const int i = findInstance(c, profile, start);
    if (i >= 0)
        c.instances[i].busy = busy;
}

void SimulatedBackend::setCardBusy(CardId card, bool busy)
{
    m_cards[card.value()].busy = busy;
}

void SimulatedBackend::setPowerCapW(CardId card, double watts, qint64 nowMs)
{
    Card &c = m_cards[card.value()];
    integrate(c, nowMs);
    c.powerCapW = watts;
}

void SimulatedBackend::injectFault(const DeviceFault &fault)
{
    auto it = std::upper_bound(
            m_faults.begin(),
            m_faults.end(),
            fault,
            [](const DeviceFault &a, const DeviceFault &b) { return a.atMs < b.atMs; });
    m_faults.insert(it, fault);
}

} // namespace Zhaoxi::Device
