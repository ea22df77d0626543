// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Pure functions that turn what NVML returns into Zhaoxi's terms (HOUSE_STYLE 7): return codes
// into states, PCI ids and names into catalogue models, the driver's GPU-instance profiles into
// a comparison with the catalogue file, GPU instances into placements, raw readings into units.
// No library calls here: every function is reentrant, callable from any thread, and tested
// against recorded values in tests/device/tst_nvmlparse.cpp.

#include "devicebackend.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace Zhaoxi::Device {

// What an NVML return code means to the backend and to the console.
enum class NvmlStatus : std::uint8_t {
    Ok,
    NotSupported,          // the card or driver does not offer this (also: no MIG)
    NoPermission,          // the process lacks the privilege (root / MIG capability)
    InUse,                 // the instance or card serves work
    NotFound,              // no such instance / profile
    InsufficientResources, // slots taken or an instance limit reached
    InvalidArgument,       // e.g. a placement the profile does not allow
    GpuLost,               // the card stopped answering (Xid 79)
    ResetRequired,         // the card needs a reset first (e.g. a pending MIG mode change)
    DriverNotLoaded,       // libnvidia-ml is there but the kernel driver is not
    VersionMismatch,       // library and kernel driver of different versions
    Uninitialized,
    Timeout,
    ReadOnly, // not an NVML code: the backend refused (applying not enabled)
    Other,
};

const char *toString(NvmlStatus status);
NvmlStatus classifyReturn(int nvmlReturn);
// The base interface's code for a status (NoPermission becomes NotSupported there; the backend's
// own reports keep the exact status).
DeviceError toDeviceError(NvmlStatus status);

// nvmlPciInfo_t::pciDeviceId holds the device id in the high half and the vendor id in the low
// half; mig-parted writes it as "0x233510DE".
struct PciId
{
    quint16 device = 0;
    quint16 vendor = 0;
    friend bool operator==(const PciId &, const PciId &) = default;
};
PciId splitPciDeviceId(quint32 combined);
QString formatPciDeviceId(quint32 combined); // "0x233510DE"

// A NUL-terminated C string from a fixed buffer; stops at the buffer's end if there is no NUL.
QString fromCString(const char *buffer, int size);

// "MIG 1g.10gb" -> "1g.10gb"; also trims spaces. Empty stays empty.
QString normalizeProfileName(const QString &driverName);

// The catalogue model of a card: by PCI device id (and vendor) first, then by the name NVML
// reports (with and without the "NVIDIA " prefix) against names and aliases. -1 when unknown.
int matchModel(const Catalogue::Catalogue &catalogue, quint32 pciDeviceId, const QString &name);

// A GPU-instance profile as the driver reports it.
struct DriverProfile
{
    int profileId = -1;    // nvmlGpuInstanceProfileInfo_t::id
    QString name;          // normalised; empty when the driver has no name API
    int computeSlices = 0; // sliceCount
    int maxInstances = 0;  // instanceCount
    qint64 memoryMiB = 0;  // memorySizeMB
    QList<int> starts;     // from the possible placements, ascending
    int span = 0;          // the placements' size (memory slices); 0 when none were read
    friend bool operator==(const DriverProfile &, const DriverProfile &) = default;
};

// One way the driver's profiles differ from the catalogue file's.
struct ProfileDifference
{
    enum class Kind : std::uint8_t {
        MissingInDriver,    // the catalogue lists a profile id the driver does not offer
        MissingInCatalogue, // the driver offers a profile id the catalogue lacks
        Name,
        ComputeSlices,
        MemorySlices, // placement size vs memorySlices/span
        Memory,       // memoryMiB
        MaxInstances,
        Starts,
    };
    Kind kind = Kind::Name;
    int profileId = -1;
    QString profile;        // the catalogue's name, else the driver's
    QString catalogueValue; // empty for MissingInCatalogue
    QString driverValue;    // empty for MissingInDriver
    friend bool operator==(const ProfileDifference &, const ProfileDifference &) = default;
};
const char *toString(ProfileDifference::Kind kind);
// "3g.71gb (id 9): memory: catalogue 66560, driver 66048", for logs and the check tool.
QString describe(const ProfileDifference &difference);

// Every difference, ordered by profile id then kind. Profiles are matched by id.
QList<ProfileDifference> compareProfiles(const Domain::CardModel &model,
                                         const QList<DriverProfile> &driver);

// A GPU instance as the driver lists it.
struct DriverInstance
{
    unsigned int id = 0; // the GPU instance id on the device
    int profileId = -1;
    int start = -1;
    int size = 0;
    // "MIG-<uuid>" of its MIG device (its compute instance, the one CUDA sees), matched by GPU
    // instance id; empty when it has none yet or the driver cannot say.
    QString uuid = {};
    friend bool operator==(const DriverInstance &, const DriverInstance &) = default;
};

// The driver's instances as a layout in catalogue terms (profile index, start, uuid), sorted by
// start. An instance whose profile id the model lacks cannot be represented: it is left out and
// named in *problems, so the caller knows the layout is incomplete.
QList<InstanceInfo> mapInstances(const Domain::CardModel &model,
                                 const QList<DriverInstance> &driver,
                                 QStringList *problems);

// NVML_COMPUTE_INSTANCE_PROFILE_* index for a compute instance spanning a whole GPU instance of
// `computeSlices` slices; -1 when there is none.
int computeInstanceProfileIndex(int computeSlices);

double milliwattsToWatts(unsigned int milliwatts);
qint64 bytesToMiB(unsigned long long bytes);
// A process's used device memory (nvmlProcessInfo_v2_t::usedGpuMemory) in MiB; -1 for
// NVML_VALUE_NOT_AVAILABLE (the driver does not say), never a huge number.
qint64 processMemoryMiB(unsigned long long usedGpuMemory);
// Device utilisation: a value when the read succeeded, nothing when the card does not report it
// (MIG mode makes it NotSupported: "not available", never zero).
std::optional<double> utilisationFrom(NvmlStatus status, unsigned int gpuPercent);

// The fault an Xid (critical error event) stands for, if it is one we act on: 79 (fallen off
// the bus) -> CardLost; 48 (double-bit ECC), 64 (row remapping failed), 94 / 95 (contained /
// uncontained ECC error) -> MemoryError. Others are recorded, not acted on.
std::optional<FaultKind> faultForXid(unsigned long long xid);

// The device-file minor in /proc/driver/nvidia/capabilities/mig/config ("DeviceFileMinor: 1"):
// whoever may open /dev/nvidia-caps/nvidia-cap<minor> may change MIG without being root.
// -1 when the text does not say.
int parseCapabilityMinor(const QByteArray &procFileText);

} // namespace Zhaoxi::Device
