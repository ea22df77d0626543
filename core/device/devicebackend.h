// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/catalogue/catalogue.h"
#include "core/domain/ids.h"

#include <QList>
#include <QString>

#include <cstdint>

namespace Zhaoxi::Device {

using Domain::CardId;
using Domain::HostId;
using Domain::PartitionMode;

// How a driver refuses an order, as NVML / nvidia-smi report it.
enum class DeviceError : std::uint8_t {
    None,
    InUse,                 // "In use by another client": the instance or card serves work
    InvalidPlacement,      // the start is not an allowed placement of the profile
    InsufficientResources, // the slots are taken or a limit is reached
    NotFound,              // no such instance
    NotSupported,          // the model has no such profile or mode; MIG op on a non-MIG card
    GpuLost,               // "GPU is lost": the card no longer answers
};

const char *toString(DeviceError error);

// One step of a repartition plan. MIG instances are named by their placement (profile index into
// the card model, start slot), which is unique on a card at any time.
struct DeviceStep
{
    enum class Kind : std::uint8_t { CreateInstance, DestroyInstance, SetMode };
    Kind kind = Kind::CreateInstance;
    CardId card;
    int profile = -1;
    int start = -1;
    PartitionMode mode = PartitionMode::Whole; // SetMode
    friend bool operator==(const DeviceStep &, const DeviceStep &) = default;
};

const char *toString(DeviceStep::Kind kind);

// The outcome of one step, reported when the step completes (or is refused).
struct StepResult
{
    quint64 order = 0; // the id apply() returned
    int index = 0;     // the step's index in its order
    DeviceStep step;
    DeviceError error = DeviceError::None;
    qint64 startedMs = 0;
    qint64 doneMs = 0;
};

struct HostInfo
{
    HostId id;
    QString name;
    int firstCard = 0;
    int cardCount = 0;
};

struct CardInfo
{
    CardId id;
    HostId host;
    int model = -1; // index into catalogue().models()
    int linkDomain = 0;
    // The card's identity as the driver and CUDA know it, "GPU-<uuid>" (what a process bound to
    // the whole card gets in CUDA_VISIBLE_DEVICES); empty when unknown. Fixed for the card's life.
    QString uuid = {};
};

// One MIG instance, named by its placement (profile index, start slot).
struct InstanceInfo
{
    int profile = -1;
    int start = -1;
    bool ready = false; // false while being created or destroyed
    bool busy = false;  // serves work
    // "MIG-<uuid>" of the instance (what a process bound to it gets in CUDA_VISIBLE_DEVICES);
    // empty while it is being created, or when the backend cannot tell. An instance destroyed and
    // created again at the same placement gets a new one, as with real MIG.
    QString uuid = {};
    // Every field, the uuid too: "the same instance". To ask "the same placement", compare
    // (profile, start) as Domain::MigPlacement, which is what the layout code does.
    friend bool operator==(const InstanceInfo &, const InstanceInfo &) = default;
};

struct CardLayout
{
    PartitionMode mode = PartitionMode::Whole;
    QList<InstanceInfo> instances; // MIG only
    bool lost = false;
};

// A card's readings at one moment.
// Why a card's clocks are down, as NVML's nvmlClocksThrottleReason* bits say it (the same values,
// so a real card's mask passes through unchanged).
namespace ThrottleReason {
constexpr quint64 SwPowerCap = 0x4;    // held under its power limit (a cap)
constexpr quint64 HwSlowdown = 0x8;    // the board's hardware slowdown (heat or power brake)
constexpr quint64 SwThermal = 0x20;    // the driver keeps it under its thermal limit
constexpr quint64 HwThermal = 0x40;    // the hardware's thermal slowdown
constexpr quint64 HwPowerBrake = 0x80; // an external power brake
// The reasons that mean trouble (not idle clocks, application clocks, boost sync).
constexpr quint64 Alarming = SwPowerCap | HwSlowdown | SwThermal | HwThermal | HwPowerBrake;
} // namespace ThrottleReason

struct CardMetrics
{
    qint64 atMs = 0;
    double utilisation = 0; // 0..1, compute busy
    qint64 memoryUsedMiB = 0;
    double temperatureC = 0;
    double powerW = 0;
    bool throttled = false;      // clocks reduced (heat or an injected fault)
    quint64 throttleReasons = 0; // ThrottleReason bits while throttled
    double clockFactor = 1;      // throughput kept by the clocks (1 = full)
    bool lost = false;
};

enum class FaultKind : std::uint8_t {
    CardLost,        // the card disappears (Xid 79); back after durationMs if > 0
    MemoryError,     // uncorrectable ECC error: work on the card dies, the card resets (durationMs)
    ThermalThrottle, // clocks forced down for durationMs
    Recovered,       // the card is back (reported by the backend, not injected)
};

const char *toString(FaultKind kind);

struct DeviceFault
{
    qint64 atMs = 0;
    CardId card;
    FaultKind kind = FaultKind::CardLost;
    qint64 durationMs = 0; // 0: permanent (CardLost) / the backend's default (others)
};

// Everything the scheduler and the console need from hardware: the topology, the layouts, the
// repartition plan applied step by step (asynchronously: results come back as the steps finish),
// metrics and faults. The simulated backend and the NVML backend implement it.
//
// Time is an argument (HOUSE_STYLE 1): a backend never reads the clock on its own behalf;
// advance(now) brings it up to `now` and the caller collects what happened with takeResults() and
// takeFaults(). nextEventMs() says when something will happen next, so a caller can sleep until
// then. Single-threaded: one owner calls everything.
class DeviceBackend
{
public:
    virtual ~DeviceBackend() = default;

    virtual const Catalogue::Catalogue &catalogue() const = 0;
    virtual QList<HostInfo> hosts() const = 0;
    virtual QList<CardInfo> cards() const = 0;
    virtual CardLayout layout(CardId card) const = 0;

    // Queues a plan; steps of one card run one after another in order, cards in parallel. A step
    // that fails does not stop later steps (each reports its own result). Returns the order id.
    virtual quint64 apply(const QList<DeviceStep> &steps, qint64 nowMs) = 0;
    virtual void advance(qint64 nowMs) = 0;
    virtual QList<StepResult> takeResults() = 0;
    virtual QList<DeviceFault> takeFaults() = 0;
    virtual qint64 nextEventMs() const = 0; // -1: nothing pending

    virtual CardMetrics metrics(CardId card) const = 0;
};

} // namespace Zhaoxi::Device
