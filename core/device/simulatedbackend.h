// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "devicebackend.h"

#include "core/sched/clusterstate.h"

#include <deque>
#include <vector>

namespace Zhaoxi::Device {

// The simulated appliance's physics. Defaults are planning figures, not measurements.
struct SimulatedBackendOptions
{
    qint64 createMs = 4000;           // one MIG instance created (GPU + compute instance)
    qint64 destroyMs = 2000;          // one MIG instance destroyed
    qint64 modeSwitchMs = 8000;       // whole <-> MIG <-> soft (MIG mode needs a GPU reset)
    double ambientC = 30;             // inlet temperature
    double riseAtMaxPowerC = 55;      // steady temperature rise at the board power limit
    double thermalTauS = 90;          // first-order thermal time constant
    double throttleAtC = 87;          // clocks drop above this ...
    double resumeBelowC = 82;         // ... and recover below this (hysteresis)
    double heatThrottleFactor = 0.75; // throughput kept while hot
    double faultThrottleFactor = 0.6; // throughput kept during an injected throttling fault
    qint64 defaultFaultMs = 60'000;   // memory-error reset / throttling fault, when unspecified
};

// A DeviceBackend that behaves like the hardware, on a virtual clock.
//
// Repartition steps take time (options) and run one after another per card; they are checked
// when they start, as the driver would: destroying an instance that serves work fails InUse,
// creating one where the slots are taken fails InsufficientResources, a start the profile does
// not allow fails InvalidPlacement, anything on a lost card fails GpuLost. An instance being
// created occupies its slots (not ready) until the step is done.
//
// Each card's temperature follows its power with thermal inertia (the exact solution of a
// first-order lag between updates, so the result does not depend on how often the caller
// advances); power goes from idle to the board limit with load and clocks; above throttleAtC the
// clocks drop until the card cools below resumeBelowC. A power cap lowers clocks so the card
// stays under it. Faults injected at given times are reported by advance() when their time comes.
//
// Identities, so the twin binds processes as the appliance does: every card has a UUID shaped
// like a real one, "GPU-00000000-xxxx-xxxx-xxxx-xxxxxxxxxxxx", and every MIG instance a
// "MIG-00000000-..." one. The first group is eight zeros, which NVIDIA's random UUIDs do not
// have in practice: a person sees a simulated unit at a glance. The rest is SHA-1 of the host's
// name and the card's index on its host (a card), or of the card's UUID, the profile's name, the
// start and the card's creation counter (an instance), so the same appliance gets the same
// UUIDs in every run and process, and an instance created again at the same placement gets a new
// one, as with real MIG. An instance's UUID is set when its creation completes (ready); the
// instances the state starts with count as created at construction, in unit order.
//
// The load (utilisation, memory) and which instances or cards serve work are set by the owner
// (the simulator), at the time given. Single-threaded.
class SimulatedBackend final : public DeviceBackend
{
public:
    // Topology and initial layouts from the state (jobs are ignored).
    explicit SimulatedBackend(const Sched::ClusterState &state,
                              SimulatedBackendOptions options = {});

    // Sets the clock's origin (energy and temperature start counting here). Call once, first.
    void startAt(qint64 nowMs);

    const SimulatedBackendOptions &options() const { return m_options; }

    // --- DeviceBackend -----------------------------------------------------------------------
    const Catalogue::Catalogue &catalogue() const override { return m_catalogue; }
    QList<HostInfo> hosts() const override { return m_hosts; }
    QList<CardInfo> cards() const override;
    CardLayout layout(CardId card) const override;
    quint64 apply(const QList<DeviceStep> &steps, qint64 nowMs) override;
    void advance(qint64 nowMs) override;
    QList<StepResult> takeResults() override;
    QList<DeviceFault> takeFaults() override;
    qint64 nextEventMs() const override;
    CardMetrics metrics(CardId card) const override;

    // --- The simulation's side ----------------------------------------------------------------
    // Load from `nowMs` on (the card is first brought up to nowMs with its previous load).
    void setLoad(CardId card, double utilisation, qint64 memoryMiB, qint64 nowMs);
    // Whether a MIG instance (by placement) or a whole / soft-sliced card serves work.
    void setInstanceBusy(CardId card, int profile, int start, bool busy);
    void setCardBusy(CardId card, bool busy);
    // Board power limit in watts (<= 0: the model's maximum).
    void setPowerCapW(CardId card, double watts, qint64 nowMs);
    void injectFault(const DeviceFault &fault);
    // Energy used by the card since the start, in joules, up to its last update.
    double energyJ(CardId card) const { return m_cards[card.value()].energyJ; }
    int cardCount() const { return int(m_cards.size()); }

private:
    struct Instance
    {
        int profile = -1;
        int start = -1;
        bool ready = true;
        bool busy = false;
        QString uuid = {}; // empty until created
    };
    struct Pending
    {
        quint64 order = 0;
        int index = 0;
        DeviceStep step;
    };
    struct Card
    {
        CardInfo info;
        PartitionMode mode = PartitionMode::Whole;
        QList<Instance> instances;
        int created = 0;   // MIG instances created on the card so far (their UUIDs' counter)
        bool busy = false; // whole / soft card serves work
        bool lost = false;
        qint64 lostUntilMs = -1; // -1: permanent or not lost
        std::deque<Pending> queue;
        bool running = false; // queue.front() in progress
        qint64 stepStartMs = 0;
        qint64 stepEndMs = 0;
        // physics
        double utilisation = 0;
        qint64 memoryMiB = 0;
        double temperatureC = 0;
        double powerCapW = 0;
        double energyJ = 0;
        bool hot = false; // heat throttling
        qint64 faultThrottleUntilMs = -1;
        qint64 updatedMs = 0;
    };

    void integrate(Card &c, qint64 toMs);
    double clockFactor(const Card &c) const;
    // An injected thermal-throttle fault holds the card's clocks down now.
    bool faultThrottled(const Card &c) const;
    double power(const Card &c) const;
    void startNext(Card &c, qint64 nowMs);
    DeviceError check(const Card &c, const DeviceStep &s) const;
    void finishStep(Card &c);
    int findInstance(const Card &c, int profile, int start) const;
    QList<Domain::MigPlacement> placements(const Card &c) const;
    QString nextInstanceUuid(Card &c, int profile, int start) const;

    Catalogue::Catalogue m_catalogue;
    SimulatedBackendOptions m_options;
    QList<HostInfo> m_hosts;
    std::vector<Card> m_cards;
    std::vector<DeviceFault> m_faults; // pending, sorted by time then injection order
    QList<StepResult> m_results;
    QList<DeviceFault> m_reported;
    quint64 m_nextOrder = 1;
    qint64 m_nowMs = 0;
};

} // namespace Zhaoxi::Device
