// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace Zhaoxi::Domain {

// How a card is split into logical units. Every model supports Whole; MIG needs a MIG-capable
// model; TimeSlicing and Mps are the software modes a model lists in its catalogue file.
enum class PartitionMode { Whole, Mig, TimeSlicing, Mps };

// How strongly sharers of a card are isolated from each other.
enum class IsolationLevel { None, Weak, Strong };

QString toString(PartitionMode mode);
bool partitionModeFromString(const QString &text, PartitionMode *mode);
QString toString(IsolationLevel level);
bool isolationLevelFromString(const QString &text, IsolationLevel *level);

// One MIG GPU-instance profile of a card model, as the NVIDIA MIG user guide lists it.
// Placements live on the 8-slot memory axis: the instance occupies [start, start + span).
struct MigProfile
{
    QString name;                 // e.g. "3g.71gb", "1g.18gb+me"
    int profileId = -1;           // the driver's GPU instance profile id (e.g. 9 for 3g)
    int computeSlices = 0;        // of the model's migComputeSlices (7)
    int memorySlices = 0;         // of the model's migMemorySlices (8)
    qint64 memoryMiB = 0;         // usable framebuffer of one instance
    int maxInstances = 0;         // how many instances of this profile one card can hold
    QList<int> starts;            // allowed start slots
    int span = 0;                 // slots one placement occupies
    bool mediaExtensions = false; // "+me": owns the card's media engines (at most one)
};

// One MIG instance in a layout: a profile (index into CardModel::migProfiles) at a start slot.
struct MigPlacement
{
    int profile = -1;
    int start = -1;
    friend bool operator==(const MigPlacement &, const MigPlacement &) = default;
};

// A software slicing mode of a card model and its limits.
struct SoftSlicing
{
    PartitionMode mode = PartitionMode::TimeSlicing; // TimeSlicing or Mps
    int maxClients = 0;                              // e.g. 48 for MPS
    bool memoryIsolation = false; // MPS enforces a per-client memory quota; time-slicing does not
    IsolationLevel isolation = IsolationLevel::None;
    double overheadFactor = 1.0; // throughput kept when shared (0..1]
};

// A card model from the catalogue: hardware facts as data (HOUSE_STYLE 11).
struct CardModel
{
    QString name;        // canonical name, e.g. "H100-SXM5-80GB"
    QStringList aliases; // other names trace files or drivers use
    QString vendor = QStringLiteral("NVIDIA");
    quint16 pciVendorId = 0x10DE;
    QList<quint16> pciDeviceIds;
    qint64 memoryMiB = 0;
    double fp16Tflops = 0; // dense tensor throughput, for the simulator's speed model
    int idlePowerW = 0;
    int maxPowerW = 0;
    // The highest SM clock the model runs at (NVML's maximum SM clock, NVIDIA's published boost
    // clock), for the exported SM clock (core/service/exposition.h); 0: unknown.
    int maxSmClockMHz = 0;
    // The GPU temperatures at which the card slows its clocks and shuts down (nvidia-smi -q's
    // "GPU Slowdown Temp" / "GPU Shutdown Temp"): a card is "hot" against its own model, not one
    // global number. 0: unknown (a real card's driver may still say, NVML thresholds).
    int slowdownTempC = 0;
    int shutdownTempC = 0;
    int migComputeSlices = 7;
    int migMemorySlices = 8;
    QList<MigProfile> migProfiles; // empty: the model has no MIG
    QList<SoftSlicing> softModes;

    bool supportsMig() const { return !migProfiles.isEmpty(); }
    bool supports(PartitionMode mode) const;
    int profileIndex(const QString &profileName) const; // -1 when unknown
    const SoftSlicing *softMode(PartitionMode mode) const;
    bool matchesName(const QString &modelName) const; // name or alias, case-insensitive
};

} // namespace Zhaoxi::Domain
