// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/device/devicebackend.h"
#include "core/sched/events.h"
#include "core/sched/statement.h"

#include <QList>

#include <functional>

namespace Zhaoxi::Runtime {

// The device orders one committed statement's steps need, in the steps' order: a MIG instance
// created (also one a placement creates for its job) or destroyed, a card's mode set. A mode
// change first destroys the instances `backend` still lists on the card (the driver wants a
// MIG card empty before its mode changes). Jobs placed, evicted or ended need no order: the
// workloads follow those. `toBackend` maps the scheduler's card ids to the backend's (the NVML
// backend numbers every card the driver lists, the state only those in the catalogue); empty:
// the same ids. Pure apart from reading the backend's layout.
using CardMap = std::function<Domain::CardId(Domain::CardId)>;
QList<Device::DeviceStep> deviceStepsOf(const QList<Sched::Step> &steps,
                                        const Device::DeviceBackend &backend,
                                        const CardMap &toBackend = {});

// How many of `steps` change the hardware's layout (the reports' reconfigurations): each
// created or destroyed instance and each mode change, counted once.
int reconfigurationsOf(const QList<Sched::Step> &steps);

// The bridge from the scheduler to the hardware: a StepSink of the Scheduler that turns every
// committed statement into device orders (deviceStepsOf) and keeps them until flush() hands them
// to the backend as one order. Never rebuilt from events: a placement's new instance and a
// repartition's destroys come from the statement that made them.
//
// Single-threaded: the scheduler's thread. The backend is not owned; setBackend() swaps it (the
// hardware session re-opens NVML), orders not yet flushed go to the new one.
class DeviceBridge final : public Sched::StepSink
{
public:
    explicit DeviceBridge(Device::DeviceBackend *backend = nullptr)
        : m_backend(backend)
    {}

    void setBackend(Device::DeviceBackend *backend) { m_backend = backend; }
    void setCardMap(CardMap toBackend) { m_toBackend = std::move(toBackend); }
    // Muted: committed steps make no orders (the state is being made to follow what the driver
    // already shows, as the hardware session does after reading it).
    void setMuted(bool muted) { m_muted = muted; }
    Device::DeviceBackend *backend() const { return m_backend; }

    void committed(const QList<Sched::Step> &steps, qint64 nowMs) override;

    bool hasPending() const { return !m_pending.isEmpty(); }
    const QList<Device::DeviceStep> &pending() const { return m_pending; }
    // Applies what is pending as one order now; returns its id (0: nothing was pending, or no
    // backend).
    quint64 flush(qint64 nowMs);
    // Orders flushed so far, and layout changes (reconfigurationsOf) committed so far.
    quint64 orders() const { return m_orders; }
    qint64 reconfigurations() const { return m_reconfigurations; }

private:
    Device::DeviceBackend *m_backend = nullptr;
    CardMap m_toBackend;
    bool m_muted = false;
    QList<Device::DeviceStep> m_pending;
    quint64 m_orders = 0;
    qint64 m_reconfigurations = 0;
};

} // namespace Zhaoxi::Runtime
