// SPDX-License-Identifier: GPL-3.0-or-later
#include "devicebridge.h"

namespace Zhaoxi::Runtime {

using Device::DeviceStep;
using Sched::Step;

QList<DeviceStep> deviceStepsOf(const QList<Step> &steps,
                                const Device::DeviceBackend &backend,
                                const CardMap &toBackend)
{
    auto map = [&](Domain::CardId c) { return toBackend ? toBackend(c) : c; };
    QList<DeviceStep> out;
    for (const Step &s : steps) {
        switch (s.kind) {
        case Step::Kind::Place:
            for (const Sched::UnitChoice &u : s.units) {
                if (u.kind == Sched::UnitChoice::Kind::NewPartition)
                    out.append(DeviceStep{
                            DeviceStep::Kind::CreateInstance, map(u.card), u.profile, u.start});
            }
            break;
        case Step::Kind::CreatePartition:
            out.append(
                    DeviceStep{DeviceStep::Kind::CreateInstance, map(s.card), s.profile, s.start});
            break;
        case Step::Kind::DestroyPartition:
            out.append(
                    DeviceStep{DeviceStep::Kind::DestroyInstance, map(s.card), s.profile, s.start});
            break;
        case Step::Kind::SetMode: {
            const Domain::CardId card = map(s.card);
            for (const Device::InstanceInfo &i : backend.layout(card).instances)
                out.append(DeviceStep{DeviceStep::Kind::DestroyInstance, card, i.profile, i.start});
            DeviceStep m{DeviceStep::Kind::SetMode, card};
            m.mode = s.mode;
            out.append(m);
            break;
        }
        case Step::Kind::Evict:
        case Step::Kind::MarkPreempting:
        case Step::Kind::Finish:
        case Step::Kind::SetUnitState:
            break;
        }
    }
    return out;
}

int reconfigurationsOf(const QList<Step> &steps)
{
    int n = 0;
    for (const Step &s : steps) {
        switch (s.kind) {
        case Step::Kind::Place:
            for (const Sched::UnitChoice &u : s.units)
                n += u.kind == Sched::UnitChoice::Kind::NewPartition;
            break;
        case Step::Kind::CreatePartition:
        case Step::Kind::DestroyPartition:
        case Step::Kind::SetMode:
            ++n;
            break;
        default:
            break;
        }
    }
    return n;
}

void DeviceBridge::committed(const QList<Step> &steps, qint64 nowMs)
{
    Q_UNUSED(nowMs)
    if (m_muted)
        return;
    m_reconfigurations += reconfigurationsOf(steps);
    if (m_backend)
        m_pending.append(deviceStepsOf(steps, *m_backend, m_toBackend));
}

quint64 DeviceBridge::flush(qint64 nowMs)
{
    if (m_pending.isEmpty() || !m_backend)
        return 0;
    QList<DeviceStep> steps;
    steps.swap(m_pending);
    ++m_orders;
    return m_backend->apply(steps, nowMs);
}

} // namespace Zhaoxi::Runtime
