// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The part of NVIDIA's management library (NVML) that Zhaoxi uses, declared here rather than
// taken from nvml.h so the project builds without the CUDA toolkit. Only what we call is
// declared; every struct carries layout checks against the documented ABI (x86-64 / aarch64
// LP64), so a mistake shows at compile time, not as a corrupted reading on a customer's card.
//
// The library is opened at run time (dlopen "libnvidia-ml.so.1"); see NvmlLibrary. The test
// double in tests/device/fakenvml implements the same C functions.

#include <QString>
#include <QStringList>

#include <cstddef>

extern "C" {

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct nvmlGpuInstance_st *nvmlGpuInstance_t;
typedef struct nvmlComputeInstance_st *nvmlComputeInstance_t;
typedef struct nvmlEventSet_st *nvmlEventSet_t;

typedef struct nvmlPciInfo_st
{
    char busIdLegacy[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId; // device id << 16 | vendor id
    unsigned int pciSubSystemId;
    char busId[32]; // "00000000:3B:00.0"
} nvmlPciInfo_t;

typedef struct nvmlMemory_st
{
    unsigned long long total; // bytes
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_t;

typedef struct nvmlUtilization_st
{
    unsigned int gpu;    // percent
    unsigned int memory; // percent
} nvmlUtilization_t;

typedef struct nvmlGpuInstancePlacement_st
{
    unsigned int start; // first memory slice
    unsigned int size;  // memory slices
} nvmlGpuInstancePlacement_t;

typedef struct nvmlGpuInstanceProfileInfo_st
{
    unsigned int id; // the profile id (19 for 1g.*), what placements and creation take
    unsigned int isP2pSupported;
    unsigned int sliceCount; // compute slices
    unsigned int instanceCount;
    unsigned int multiprocessorCount;
    unsigned int copyEngineCount;
    unsigned int decoderCount;
    unsigned int encoderCount;
    unsigned int jpegCount;
    unsigned int ofaCount;
    unsigned long long memorySizeMB;
} nvmlGpuInstanceProfileInfo_t;

typedef struct nvmlGpuInstanceProfileInfo_v2_st
{
    unsigned int version; // sizeof | 2 << 24
    unsigned int id;
    unsigned int isP2pSupported;
    unsigned int sliceCount;
    unsigned int instanceCount;
    unsigned int multiprocessorCount;
    unsigned int copyEngineCount;
    unsigned int decoderCount;
    unsigned int encoderCount;
    unsigned int jpegCount;
    unsigned int ofaCount;
    unsigned long long memorySizeMB;
    char name[96]; // e.g. "MIG 1g.10gb"
} nvmlGpuInstanceProfileInfo_v2_t;

typedef struct nvmlGpuInstanceInfo_st
{
    nvmlDevice_t device;
    unsigned int id;
    unsigned int profileId;
    nvmlGpuInstancePlacement_t placement;
} nvmlGpuInstanceInfo_t;

typedef struct nvmlComputeInstanceProfileInfo_st
{
    unsigned int id;
    unsigned int sliceCount;
    unsigned int instanceCount;
    unsigned int multiprocessorCount;
    unsigned int sharedCopyEngineCount;
    unsigned int sharedDecoderCount;
    unsigned int sharedEncoderCount;
    unsigned int sharedJpegCount;
    unsigned int sharedOfaCount;
} nvmlComputeInstanceProfileInfo_t;

typedef struct nvmlEventData_st
{
    nvmlDevice_t device;
    unsigned long long eventType;
    unsigned long long eventData; // the Xid for critical-error events
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlEventData_t;

// What nvmlDeviceGetComputeRunningProcesses_v2 fills (nvmlProcessInfo_v2_t). The _v3 entry point
// is not used: R535 drivers wrote a longer entry through it (with usedGpuCcProtectedMemory)
// without a version bump, later ones this one again, so its stride depends on the driver.
typedef struct nvmlProcessInfo_v2_st
{
    unsigned int pid;
    unsigned long long usedGpuMemory; // bytes; NVML_VALUE_NOT_AVAILABLE when unknown
    unsigned int gpuInstanceId;       // MIG: the process's GPU instance; else 0xFFFFFFFF
    unsigned int computeInstanceId;
} nvmlProcessInfo_v2_t;

typedef struct nvmlProcessUtilizationSample_st
{
    unsigned int pid;
    unsigned long long timeStamp; // CPU time, microseconds
    unsigned int smUtil;          // percent
    unsigned int memUtil;
    unsigned int encUtil;
    unsigned int decUtil;
} nvmlProcessUtilizationSample_t;

} // extern "C"

static_assert(sizeof(nvmlPciInfo_t) == 68);
static_assert(offsetof(nvmlPciInfo_t, domain) == 16);
static_assert(offsetof(nvmlPciInfo_t, pciDeviceId) == 28);
static_assert(offsetof(nvmlPciInfo_t, busId) == 36);
static_assert(sizeof(nvmlMemory_t) == 24);
static_assert(offsetof(nvmlMemory_t, used) == 16);
static_assert(sizeof(nvmlUtilization_t) == 8);
static_assert(sizeof(nvmlGpuInstancePlacement_t) == 8);
static_assert(sizeof(nvmlGpuInstanceProfileInfo_t) == 48);
static_assert(offsetof(nvmlGpuInstanceProfileInfo_t, sliceCount) == 8);
static_assert(offsetof(nvmlGpuInstanceProfileInfo_t, instanceCount) == 12);
static_assert(offsetof(nvmlGpuInstanceProfileInfo_t, memorySizeMB) == 40);
// NVML's own version constant for this struct is 0x2000098 (sizeof 152, version 2).
static_assert(sizeof(nvmlGpuInstanceProfileInfo_v2_t) == 152);
static_assert(offsetof(nvmlGpuInstanceProfileInfo_v2_t, id) == 4);
static_assert(offsetof(nvmlGpuInstanceProfileInfo_v2_t, memorySizeMB) == 48);
static_assert(offsetof(nvmlGpuInstanceProfileInfo_v2_t, name) == 56);
static_assert(sizeof(nvmlGpuInstanceInfo_t) == 24);
static_assert(offsetof(nvmlGpuInstanceInfo_t, profileId) == 12);
static_assert(offsetof(nvmlGpuInstanceInfo_t, placement) == 16);
static_assert(sizeof(nvmlComputeInstanceProfileInfo_t) == 36);
static_assert(sizeof(nvmlEventData_t) == 32);
static_assert(offsetof(nvmlEventData_t, eventData) == 16);
static_assert(sizeof(nvmlProcessInfo_v2_t) == 24);
static_assert(offsetof(nvmlProcessInfo_v2_t, usedGpuMemory) == 8);
static_assert(offsetof(nvmlProcessInfo_v2_t, gpuInstanceId) == 16);
static_assert(sizeof(nvmlProcessUtilizationSample_t) == 32);
static_assert(offsetof(nvmlProcessUtilizationSample_t, timeStamp) == 8);
static_assert(offsetof(nvmlProcessUtilizationSample_t, smUtil) == 16);

namespace Zhaoxi::Device::Nvml {

// Return codes (nvmlReturn_t values) we tell apart.
enum : int {
    kSuccess = 0,
    kErrorUninitialized = 1,
    kErrorInvalidArgument = 2,
    kErrorNotSupported = 3,
    kErrorNoPermission = 4,
    kErrorNotFound = 6,
    kErrorInsufficientSize = 7,
    kErrorDriverNotLoaded = 9,
    kErrorTimeout = 10,
    kErrorLibraryNotFound = 12,
    kErrorFunctionNotFound = 13,
    kErrorGpuIsLost = 15,
    kErrorResetRequired = 16,
    kErrorLibRmVersionMismatch = 18,
    kErrorInUse = 19,
    kErrorInsufficientResources = 23,
    kErrorUnknown = 999,
};

constexpr unsigned int kGpuInstanceProfileInfoV2
        = unsigned(sizeof(nvmlGpuInstanceProfileInfo_v2_t)) | (2u << 24);
static_assert(kGpuInstanceProfileInfoV2 == 0x2000098u);

constexpr unsigned int kGpuInstanceProfileIndexCount = 17;    // NVML_GPU_INSTANCE_PROFILE_* 0..16
constexpr unsigned int kComputeInstanceProfileIndexCount = 8; // NVML_COMPUTE_INSTANCE_PROFILE_*
constexpr unsigned int kComputeInstanceEngineProfileShared = 0;
constexpr unsigned int kTemperatureGpu = 0;               // NVML_TEMPERATURE_GPU
constexpr unsigned int kTemperatureThresholdShutdown = 0; // NVML_TEMPERATURE_THRESHOLD_SHUTDOWN
constexpr unsigned int kTemperatureThresholdSlowdown = 1; // NVML_TEMPERATURE_THRESHOLD_SLOWDOWN
constexpr unsigned int kClockSm = 1;                      // NVML_CLOCK_SM (nvmlClockType_t)
constexpr unsigned int kMemoryErrorUncorrected = 1;       // NVML_MEMORY_ERROR_TYPE_UNCORRECTED
constexpr unsigned int kMemoryErrorCorrected = 0;
constexpr unsigned int kVolatileEcc = 0;                 // NVML_VOLATILE_ECC
constexpr unsigned long long kEventXidCritical = 0x8;    // nvmlEventTypeXidCriticalError
constexpr unsigned int kMigEnabled = 1;                  // NVML_DEVICE_MIG_ENABLE
constexpr unsigned int kNameBufferSize = 96;             // NVML_DEVICE_NAME_V2_BUFFER_SIZE
constexpr unsigned int kUuidBufferSize = 96;             // NVML_DEVICE_UUID_V2_BUFFER_SIZE
constexpr unsigned long long kValueNotAvailable = ~0ull; // NVML_VALUE_NOT_AVAILABLE

// The functions, resolved by versioned name. Required ones are non-null once load() succeeded;
// optional ones may be null (older drivers, or a test double without them).
struct Functions
{
    // required
    nvmlReturn_t (*init)() = nullptr;                         // nvmlInit_v2
    nvmlReturn_t (*shutdown)() = nullptr;                     // nvmlShutdown
    nvmlReturn_t (*deviceGetCount)(unsigned int *) = nullptr; // nvmlDeviceGetCount_v2
    nvmlReturn_t (*deviceGetHandleByIndex)(unsigned int, nvmlDevice_t *) = nullptr; // _v2
    nvmlReturn_t (*deviceGetName)(nvmlDevice_t, char *, unsigned int) = nullptr;
    nvmlReturn_t (*deviceGetUUID)(nvmlDevice_t, char *, unsigned int) = nullptr;
    nvmlReturn_t (*deviceGetPciInfo)(nvmlDevice_t, nvmlPciInfo_t *) = nullptr; // _v3
    nvmlReturn_t (*deviceGetMemoryInfo)(nvmlDevice_t, nvmlMemory_t *) = nullptr;
    // optional: readings
    const char *(*errorString)(nvmlReturn_t) = nullptr;
    nvmlReturn_t (*systemGetDriverVersion)(char *, unsigned int) = nullptr;
    nvmlReturn_t (*deviceGetUtilizationRates)(nvmlDevice_t, nvmlUtilization_t *) = nullptr;
    nvmlReturn_t (*deviceGetTemperature)(nvmlDevice_t, unsigned int, unsigned int *) = nullptr;
    nvmlReturn_t (*deviceGetPowerUsage)(nvmlDevice_t, unsigned int *) = nullptr; // mW
    // The current and the maximum clock of a domain (kClockSm), MHz.
    nvmlReturn_t (*deviceGetClockInfo)(nvmlDevice_t, unsigned int, unsigned int *) = nullptr;
    nvmlReturn_t (*deviceGetMaxClockInfo)(nvmlDevice_t, unsigned int, unsigned int *) = nullptr;
    // Why the clocks are down now (nvmlClocksThrottleReason* bits, Device::ThrottleReason).
    nvmlReturn_t (*deviceGetCurrentClocksThrottleReasons)(nvmlDevice_t, unsigned long long *)
            = nullptr;
    // The card's slowdown and shutdown temperatures (kTemperatureThreshold*), degrees C.
    nvmlReturn_t (*deviceGetTemperatureThreshold)(nvmlDevice_t, unsigned int, unsigned int *)
            = nullptr;
    nvmlReturn_t (*deviceGetTotalEccErrors)(nvmlDevice_t,
                                            unsigned int,
                                            unsigned int,
                                            unsigned long long *)
            = nullptr;
    // optional: Xid events
    nvmlReturn_t (*eventSetCreate)(nvmlEventSet_t *) = nullptr;
    nvmlReturn_t (*deviceRegisterEvents)(nvmlDevice_t, unsigned long long, nvmlEventSet_t)
            = nullptr;
    nvmlReturn_t (*eventSetWait)(nvmlEventSet_t, nvmlEventData_t *, unsigned int) = nullptr; // _v2
    nvmlReturn_t (*eventSetFree)(nvmlEventSet_t) = nullptr;
    // optional: MIG (absent on drivers before R450)
    nvmlReturn_t (*deviceGetMigMode)(nvmlDevice_t, unsigned int *, unsigned int *) = nullptr;
    nvmlReturn_t (*deviceGetGpuInstanceProfileInfo)(nvmlDevice_t,
                                                    unsigned int,
                                                    nvmlGpuInstanceProfileInfo_t *)
            = nullptr;
    nvmlReturn_t (*deviceGetGpuInstanceProfileInfoV)(nvmlDevice_t,
                                                     unsigned int,
                                                     nvmlGpuInstanceProfileInfo_v2_t *)
            = nullptr;
    nvmlReturn_t (*deviceGetGpuInstancePossiblePlacements)(nvmlDevice_t,
                                                           unsigned int,
                                                           nvmlGpuInstancePlacement_t *,
                                                           unsigned int *)
            = nullptr; // _v2
    nvmlReturn_t (*deviceGetGpuInstances)(nvmlDevice_t,
                                          unsigned int,
                                          nvmlGpuInstance_t *,
                                          unsigned int *)
            = nullptr;
    nvmlReturn_t (*gpuInstanceGetInfo)(nvmlGpuInstance_t, nvmlGpuInstanceInfo_t *) = nullptr;
    nvmlReturn_t (*deviceCreateGpuInstanceWithPlacement)(nvmlDevice_t,
                                                         unsigned int,
                                                         const nvmlGpuInstancePlacement_t *,
                                                         nvmlGpuInstance_t *)
            = nullptr;
    nvmlReturn_t (*gpuInstanceGetComputeInstanceProfileInfo)(nvmlGpuInstance_t,
                                                             unsigned int,
                                                             unsigned int,
                                                             nvmlComputeInstanceProfileInfo_t *)
            = nullptr;
    nvmlReturn_t (*gpuInstanceCreateComputeInstance)(nvmlGpuInstance_t,
                                                     unsigned int,
                                                     nvmlComputeInstance_t *)
            = nullptr;
    nvmlReturn_t (*gpuInstanceGetComputeInstances)(nvmlGpuInstance_t,
                                                   unsigned int,
                                                   nvmlComputeInstance_t *,
                                                   unsigned int *)
            = nullptr;
    nvmlReturn_t (*computeInstanceDestroy)(nvmlComputeInstance_t) = nullptr;
    nvmlReturn_t (*gpuInstanceDestroy)(nvmlGpuInstance_t) = nullptr;
    // optional: MIG devices (the compute instances CUDA sees) and their UUIDs (R470+)
    nvmlReturn_t (*deviceGetMaxMigDeviceCount)(nvmlDevice_t, unsigned int *) = nullptr;
    nvmlReturn_t (*deviceGetMigDeviceHandleByIndex)(nvmlDevice_t, unsigned int, nvmlDevice_t *)
            = nullptr;
    nvmlReturn_t (*deviceGetGpuInstanceId)(nvmlDevice_t, unsigned int *) = nullptr; // MIG handle
    // optional: processes
    nvmlReturn_t (*deviceGetComputeRunningProcesses)(nvmlDevice_t,
                                                     unsigned int *,
                                                     nvmlProcessInfo_v2_t *)
            = nullptr; // _v2
    nvmlReturn_t (*deviceGetProcessUtilization)(nvmlDevice_t,
                                                nvmlProcessUtilizationSample_t *,
                                                unsigned int *,
                                                unsigned long long)
            = nullptr;

    bool canReadMig() const
    {
        return deviceGetMigMode
               && (deviceGetGpuInstanceProfileInfo || deviceGetGpuInstanceProfileInfoV)
               && deviceGetGpuInstancePossiblePlacements && deviceGetGpuInstances
               && gpuInstanceGetInfo;
    }
    bool canChangeMig() const
    {
        return canReadMig() && deviceCreateGpuInstanceWithPlacement
               && gpuInstanceGetComputeInstanceProfileInfo && gpuInstanceCreateComputeInstance
               && gpuInstanceGetComputeInstances && computeInstanceDestroy && gpuInstanceDestroy;
    }
    bool canReadMigDevices() const
    {
        return deviceGetMaxMigDeviceCount && deviceGetMigDeviceHandleByIndex
               && deviceGetGpuInstanceId;
    }
};

// The library, opened with dlopen and closed on destruction. Not copyable. Opening does not
// initialise NVML (the backend calls init()).
class Library
{
public:
    Library() = default;
    ~Library();
    Library(const Library &) = delete;
    Library &operator=(const Library &) = delete;

    // The library to open: the constructor argument if not empty, else $ZHAOXI_NVML_LIBRARY if
    // set, else "libnvidia-ml.so.1" (the soname the driver package installs).
    static QString resolvePath(const QString &explicitPath);

    // Opens `path` and resolves the symbols. False when the file cannot be opened (no driver
    // installed: *error says so) or a required symbol is missing.
    bool load(const QString &path, QString *error);
    bool isLoaded() const { return m_handle != nullptr; }
    const Functions &fn() const { return m_fn; }
    QString path() const { return m_path; }
    // The optional symbols the library does not export, by name (for the check report).
    QStringList missingOptional() const { return m_missingOptional; }

private:
    void *m_handle = nullptr;
    Functions m_fn;
    QString m_path;
    QStringList m_missingOptional;
};

} // namespace Zhaoxi::Device::Nvml
