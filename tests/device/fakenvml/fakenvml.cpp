// SPDX-License-Identifier: GPL-3.0-or-later
// A test double of NVIDIA's management library: the C functions the NVML backend calls, over GPUs
// described by a JSON fixture ($FAKENVML_FIXTURE, read when NVML is first initialised), with the
// MIG placement rules the fixture's profiles give, "in use" on busy instances, permission errors
// and injected failures. Built twice: complete, and with FAKENVML_MINIMAL (no optional symbols:
// no events, ECC, power, temperature, utilisation, named profile info, instance creation, MIG
// device handles or per-process utilisation; it keeps the running-processes call, on the card's
// handle only).
//
// MIG devices: every compute instance is one, with its own UUID ("MIG-<gpu>-...-<n>", n counting
// every compute instance made since the fixture was loaded, so one made again gets a new UUID).
// nvmlDeviceGetMigDeviceHandleByIndex numbers them by their GPU instance's start slot: the index
// space is sparse (NOT_FOUND between them), as the driver's may be.
//
// Fixture:
//   {"init": "ok" | "driver-not-loaded" | "no-permission", "driverVersion": "...",
//    "permission": true, "failCreateAt": -1, "failComputeCreate": false,
//    "gpus": [{"name", "uuid", "busId", "pciDeviceId": "0x20B010DE", "memoryTotalMiB",
//              "memoryUsedMiB", "utilisation", "temperature", "powerMw", "smClockMHz",
//              "maxSmClockMHz" (absent or 0: not supported), "throttleReasons" (NVML's
//              bits), "slowdownTempC", "shutdownTempC" (absent or 0: not supported),
//              "eccUncorrected",
//              "eccCorrected", "mig": {"current": bool, "pending": bool} | absent (no MIG),
//              "profiles": [{"index", "id", "name", "slices", "instances", "memoryMB", "size",
//                            "starts": [..]}],
//              "instances": [{"profileId", "start", "busy"}], "lost": false,
//              "processes": [as in the control below]}]}
// Control (tests): fakenvml_control(json) with one of {"busy": {"gpu", "start", "busy"}},
// {"lost": {"gpu", "lost"}}, {"xid": {"gpu", "xid"}}, {"eccUncorrected": {"gpu", "count"}},
// {"permission": bool}, {"failCreateAt": n}, {"utilisation": {"gpu", "value"}},
// {"throttle": {"gpu", "reasons", "temperature" (optional)}},
// {"processes": {"gpu", "list": [{"pid", "memoryMiB" (absent or -1: not available),
//                                 "start" (the MIG instance's; absent: the whole card),
//                                 "smUtil" (percent)}]}} (replaces the card's list);
// fakenvml_log() returns the changing calls made so far, one per line; fakenvml_mig_uuid(gpu,
// start) the UUID of the MIG device at that start ("" if none).

// The state and the fixture: fakenvml_state.h/.cpp; here the entry points over them.

#include "tests/device/fakenvml/fakenvml_state.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cstring>

using namespace FakeNvmlState;
using namespace Zhaoxi::Device::Nvml;

FAKE_EXPORT nvmlReturn_t nvmlInit_v2()
{
    if (state().initCount == 0)
        loadFixture();
    QFile f(qEnvironmentVariable("FAKENVML_FIXTURE"));
    if (f.open(QIODevice::ReadOnly)) {
        const QString init = QJsonDocument::fromJson(f.readAll())
                                     .object()
                                     .value(QLatin1String("init"))
                                     .toString();
        if (init == QLatin1String("driver-not-loaded"))
            return kErrorDriverNotLoaded;
        if (init == QLatin1String("no-permission"))
            return kErrorNoPermission;
    }
    ++state().initCount;
    return kSuccess;
}

FAKE_EXPORT nvmlReturn_t nvmlShutdown()
{
    if (state().initCount > 0)
        --state().initCount;
    return kSuccess;
}

FAKE_EXPORT const char *nvmlErrorString(nvmlReturn_t r)
{
    switch (r) {
    case kSuccess:
        return "Success";
    case kErrorNotSupported:
        return "Not Supported";
    case kErrorNoPermission:
        return "Insufficient Permissions";
    case kErrorInUse:
        return "In use by another client";
    case kErrorNotFound:
        return "Not Found";
    case kErrorInsufficientResources:
        return "Insufficient resources";
    case kErrorInvalidArgument:
        return "Invalid Argument";
    case kErrorGpuIsLost:
        return "GPU is lost";
    case kErrorDriverNotLoaded:
        return "Driver Not Loaded";
    default:
        return "Unknown Error";
    }
}

FAKE_EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *buf, unsigned int len)
{
    copyString(state().driverVersion, buf, len);
    return kSuccess;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
    if (state().initCount == 0)
        return kErrorUninitialized;
    *count = unsigned(state().gpus.size());
    return kSuccess;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *dev)
{
    Gpu *g = gpuAt(int(index));
    if (!g)
        return kErrorInvalidArgument;
    *dev = reinterpret_cast<nvmlDevice_t>(g);
    return kSuccess;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t dev, char *buf, unsigned int len)
{
    GPU_OR_RETURN(dev)
    copyString(g->name, buf, len);
    return kSuccess;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t dev, char *buf, unsigned int len)
{
    if (const ComputeInstance *ci = asMigDevice(dev)) {
        copyString(ci->uuid, buf, len);
        return kSuccess;
    }
    GPU_OR_RETURN(dev)
    copyString(g->uuid, buf, len);
    return kSuccess;
}

namespace {

unsigned gpuInstanceIdAt(const Gpu &g, int start)
{
    for (const GpuInstance &gi : state().gis) {
        if (gi.alive && gi.gpu == &g && int(gi.start) == start)
            return gi.id;
    }
    return 0xFFFFFFFFu;
}

} // namespace

// The card's handle lists every process (with MIG on, the aggregate, as the driver gives it to
// privileged callers only); a MIG device's handle those on its instance.
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t dev,
                                                                 unsigned int *count,
                                                                 nvmlProcessInfo_v2_t *infos)
{
    std::vector<nvmlProcessInfo_v2_t> out;
    auto entry = [](const Process &p, unsigned gi, unsigned ci) {
        return nvmlProcessInfo_v2_t{p.pid,
                                    p.memoryMiB < 0 ? kValueNotAvailable
                                                    : (unsigned long long)p.memoryMiB << 20,
                                    gi,
                                    ci};
    };
    if (const ComputeInstance *ci = asMigDevice(dev)) {
        for (const Process &p : ci->parent->gpu->processes) {
            if (p.start == int(ci->parent->start))
                out.push_back(entry(p, ci->parent->id, ci->id));
        }
    } else {
        GPU_OR_RETURN(dev)
        if (g->migCurrent && !state().permission)
            return kErrorNoPermission;
        for (const Process &p : g->processes)
            out.push_back(entry(p,
                                g->migCurrent ? gpuInstanceIdAt(*g, p.start) : 0xFFFFFFFFu,
                                g->migCurrent ? 0 : 0xFFFFFFFFu));
    }
    if (*count < out.size()) {
        *count = unsigned(out.size());
        return kErrorInsufficientSize;
    }
    std::copy(out.begin(), out.end(), infos);
    *count = unsigned(out.size());
    return kSuccess;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t dev, nvmlPciInfo_t *pci)
{
    GPU_OR_RETURN(dev)
    std::memset(pci, 0, sizeof *pci);
    copyString(g->busId, pci->busId, sizeof pci->busId);
    copyString(g->busId.size() > 4 ? g->busId.substr(4) : g->busId,
               pci->busIdLegacy,
               sizeof pci->busIdLegacy);
    pci->pciDeviceId = g->pciDeviceId;
    return kSuccess;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t dev, nvmlMemory_t *mem)
{
    GPU_OR_RETURN(dev)
    mem->total = g->memTotalMiB << 20;
    mem->used = g->memUsedMiB << 20;
    mem->free = mem->total - mem->used;
    return kSuccess;
}

#ifndef FAKENVML_MINIMAL
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t dev, nvmlUtilization_t *u)
{
    GPU_OR_RETURN(dev)
    if (g->migCurrent)
        return kErrorNotSupported; // as the driver does with MIG on
    u->gpu = g->utilisation;
    u->memory = 0;
    return kSuccess;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t dev,
                                                  unsigned int sensor,
                                                  unsigned int *t)
{
    GPU_OR_RETURN(dev)
    if (sensor != kTemperatureGpu)
        return kErrorInvalidArgument;
    *t = g->temperature;
    return kSuccess;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t dev,
                                                                   unsigned long long *mask)
{
    GPU_OR_RETURN(dev)
    *mask = g->throttleReasons;
    return kSuccess;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t dev,
                                                           unsigned int type,
                                                           unsigned int *t)
{
    GPU_OR_RETURN(dev)
    const unsigned v = type == 0 ? g->shutdownTempC : type == 1 ? g->slowdownTempC : 0;
    if (type > 1)
        return kErrorInvalidArgument;
    if (v == 0)
        return kErrorNotSupported;
    *t = v;
    return kSuccess;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t dev, unsigned int *mw)
{
    GPU_OR_RETURN(dev)
    *mw = g->powerMw;
    return kSuccess;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t dev,
                                                unsigned int type,
                                                unsigned int *mhz)
{
    GPU_OR_RETURN(dev)
    if (type != kClockSm || g->smClockMHz == 0)
        return kErrorNotSupported;
    *mhz = g->smClockMHz;
    return kSuccess;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t dev,
                                                   unsigned int type,
                                                   unsigned int *mhz)
{
    GPU_OR_RETURN(dev)
    if (type != kClockSm || g->maxSmClockMHz == 0)
        return kErrorNotSupported;
    *mhz = g->maxSmClockMHz;
    return kSuccess;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t dev,
                                                     unsigned int type,
                                                     unsigned int counter,
                                                     unsigned long long *n)
{
    GPU_OR_RETURN(dev)
    if (counter != kVolatileEcc)
        return kErrorNotSupported;
    *n = type == kMemoryErrorUncorrected ? g->eccUncorrected : g->eccCorrected;
    return kSuccess;
}

FAKE_EXPORT nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set)
{
    *set = reinterpret_cast<nvmlEventSet_t>(&state().eventSet);
    return kSuccess;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t dev,
                                                  unsigned long long,
                                                  nvmlEventSet_t)
{
    GPU_OR_RETURN(dev)
    return kSuccess;
}

FAKE_EXPORT nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t, nvmlEventData_t *data, unsigned int)
{
    State &s = state();
    if (s.events.empty())
        return kErrorTimeout;
    const Event e = s.events.front();
    s.events.erase(s.events.begin());
    std::memset(data, 0, sizeof *data);
    data->device = reinterpret_cast<nvmlDevice_t>(e.gpu);
    data->eventType = kEventXidCritical;
    data->eventData = e.xid;
    return kSuccess;
}

FAKE_EXPORT nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t)
{
    return kSuccess;
}
#endif

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t dev,
                                              unsigned int *current,
                                              unsigned int *pending)
{
    GPU_OR_RETURN(dev)
    if (!g->hasMig)
        return kErrorNotSupported;
    *current = g->migCurrent ? 1 : 0;
    *pending = g->migPending ? 1 : 0;
    return kSuccess;
}

#ifndef FAKENVML_MINIMAL
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t dev, unsigned int *count)
{
    GPU_OR_RETURN(dev)
    *count = g->hasMig && g->migCurrent ? 7 : 0; // zero when MIG is off or not supported
    return kSuccess;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t dev,
                                                             unsigned int index,
                                                             nvmlDevice_t *mig)
{
    GPU_OR_RETURN(dev)
    if (!g->migCurrent)
        return kErrorNotSupported;
    if (index >= 7)
        return kErrorInvalidArgument;
    ComputeInstance *ci = migDeviceAt(*g, index);
    if (!ci)
        return kErrorNotFound;
    *mig = reinterpret_cast<nvmlDevice_t>(ci);
    return kSuccess;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t dev, unsigned int *id)
{
    const ComputeInstance *ci = asMigDevice(dev);
    if (!ci)
        return kErrorInvalidArgument; // not a MIG device handle
    *id = ci->parent->id;
    return kSuccess;
}

// One fresh sample per process that used the SMs; NOT_FOUND when none did, as the driver says.
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t dev,
                                                         nvmlProcessUtilizationSample_t *samples,
                                                         unsigned int *count,
                                                         unsigned long long lastSeen)
{
    GPU_OR_RETURN(dev)
    if (g->migCurrent)
        return kErrorNotSupported;
    State &s = state();
    std::vector<nvmlProcessUtilizationSample_t> out;
    for (const Process &p : g->processes) {
        if (p.smUtil > 0)
            out.push_back(nvmlProcessUtilizationSample_t{
                    p.pid, std::max(lastSeen, s.sampleClock) + 1, p.smUtil, 0, 0, 0});
    }
    if (out.empty())
        return kErrorNotFound;
    if (!samples || *count < out.size()) {
        *count = unsigned(out.size());
        return kErrorInsufficientSize;
    }
    s.sampleClock = out.front().timeStamp;
    std::copy(out.begin(), out.end(), samples);
    *count = unsigned(out.size());
    return kSuccess;
}
#endif

namespace {

nvmlReturn_t profileByIndex(nvmlDevice_t dev, unsigned int index, const Profile **out)
{
    GPU_OR_RETURN(dev)
    if (!g->hasMig || !g->migCurrent)
        return kErrorNotSupported;
    if (index >= kGpuInstanceProfileIndexCount)
        return kErrorInvalidArgument;
    for (const Profile &p : g->profiles) {
        if (p.index == index) {
            *out = &p;
            return kSuccess;
        }
    }
    return kErrorNotSupported;
}

} // namespace

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t dev,
                                                             unsigned int index,
                                                             nvmlGpuInstanceProfileInfo_t *info)
{
    const Profile *p = nullptr;
    const nvmlReturn_t rc = profileByIndex(dev, index, &p);
    if (rc != kSuccess)
        return rc;
    std::memset(info, 0, sizeof *info);
    info->id = p->id;
    info->sliceCount = p->slices;
    info->instanceCount = p->instances;
    info->memorySizeMB = p->memoryMB;
    return kSuccess;
}

#ifndef FAKENVML_MINIMAL
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfoV(nvmlDevice_t dev,
                                                              unsigned int index,
                                                              nvmlGpuInstanceProfileInfo_v2_t *info)
{
    if (info->version != kGpuInstanceProfileInfoV2)
        return 25; // NVML_ERROR_ARGUMENT_VERSION_MISMATCH
    const Profile *p = nullptr;
    const nvmlReturn_t rc = profileByIndex(dev, index, &p);
    if (rc != kSuccess)
        return rc;
    const unsigned int version = info->version;
    std::memset(info, 0, sizeof *info);
    info->version = version;
    info->id = p->id;
    info->sliceCount = p->slices;
    info->instanceCount = p->instances;
    info->memorySizeMB = p->memoryMB;
    copyString(p->name, info->name, sizeof info->name);
    return kSuccess;
}
#endif

FAKE_EXPORT nvmlReturn_t
nvmlDeviceGetGpuInstancePossiblePlacements_v2(nvmlDevice_t dev,
                                              unsigned int profileId,
                                              nvmlGpuInstancePlacement_t *pl,
                                              unsigned int *count)
{
    GPU_OR_RETURN(dev)
    if (!g->migCurrent)
        return kErrorNotSupported;
    const Profile *p = profileById(*g, profileId);
    if (!p)
        return kErrorInvalidArgument;
    if (!pl) {
        *count = unsigned(p->starts.size());
        return kSuccess;
    }
    if (*count < p->starts.size())
        return kErrorInsufficientSize;
    for (size_t i = 0; i < p->starts.size(); ++i)
        pl[i] = nvmlGpuInstancePlacement_t{p->starts[i], p->size};
    *count = unsigned(p->starts.size());
    return kSuccess;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstances(nvmlDevice_t dev,
                                                   unsigned int profileId,
                                                   nvmlGpuInstance_t *out,
                                                   unsigned int *count)
{
    GPU_OR_RETURN(dev)
    if (!g->migCurrent)
        return kErrorNotSupported;
    if (!profileById(*g, profileId))
        return kErrorInvalidArgument;
    unsigned n = 0;
    for (GpuInstance &gi : state().gis) {
        if (!gi.alive || gi.gpu != g || gi.profileId != profileId)
            continue;
        if (n >= *count)
            return kErrorInsufficientSize;
        out[n++] = reinterpret_cast<nvmlGpuInstance_t>(&gi);
    }
    *count = n;
    return kSuccess;
}

FAKE_EXPORT nvmlReturn_t nvmlGpuInstanceGetInfo(nvmlGpuInstance_t h, nvmlGpuInstanceInfo_t *info)
{
    GpuInstance *gi = asGi(h);
    if (!gi)
        return kErrorInvalidArgument;
    info->device = reinterpret_cast<nvmlDevice_t>(gi->gpu);
    info->id = gi->id;
    info->profileId = gi->profileId;
    info->placement = nvmlGpuInstancePlacement_t{gi->start, gi->size};
    return kSuccess;
}

#ifndef FAKENVML_MINIMAL
FAKE_EXPORT nvmlReturn_t
nvmlDeviceCreateGpuInstanceWithPlacement(nvmlDevice_t dev,
                                         unsigned int profileId,
                                         const nvmlGpuInstancePlacement_t *pl,
                                         nvmlGpuInstance_t *out)
{
    GPU_OR_RETURN(dev)
    State &s = state();
    logLine("gi-create " + g->uuid + " " + std::to_string(profileId) + "@"
            + std::to_string(pl->start));
    if (!s.permission)
        return kErrorNoPermission;
    if (!g->migCurrent)
        return kErrorNotSupported;
    const Profile *p = profileById(*g, profileId);
    if (!p)
        return kErrorInvalidArgument;
    if (pl->size != p->size
        || std::find(p->starts.begin(), p->starts.end(), pl->start) == p->starts.end())
        return kErrorInvalidArgument;
    if (s.failCreateAt >= 0 && s.creates++ == s.failCreateAt)
        return kErrorInsufficientResources;
    unsigned sameProfile = 0;
    unsigned slices = 0;
    for (const GpuInstance &gi : s.gis) {
        if (!gi.alive || gi.gpu != g)
            continue;
        if (pl->start < gi.start + gi.size && gi.start < pl->start + pl->size)
            return kErrorInsufficientResources; // the slots are taken
        if (gi.profileId == profileId)
            ++sameProfile;
        slices += gi.slices;
    }
    if (sameProfile >= p->instances || slices + p->slices > 7)
        return kErrorInsufficientResources;
    *out = reinterpret_cast<nvmlGpuInstance_t>(addGi(*g, *p, pl->start, false));
    return kSuccess;
}
#endif

FAKE_EXPORT nvmlReturn_t
nvmlGpuInstanceGetComputeInstanceProfileInfo(nvmlGpuInstance_t h,
                                             unsigned int index,
                                             unsigned int engine,
                                             nvmlComputeInstanceProfileInfo_t *info)
{
    GpuInstance *gi = asGi(h);
    if (!gi || engine != kComputeInstanceEngineProfileShared)
        return kErrorInvalidArgument;
    static const unsigned slicesOf[] = {1, 2, 3, 4, 7, 8, 6, 1};
    if (index >= kComputeInstanceProfileIndexCount)
        return kErrorInvalidArgument;
    if (slicesOf[index] > gi->slices || index == 5 || index == 7)
        return kErrorNotSupported;
    std::memset(info, 0, sizeof *info);
    info->id = index;
    info->sliceCount = slicesOf[index];
    info->instanceCount = gi->slices / slicesOf[index];
    return kSuccess;
}

FAKE_EXPORT nvmlReturn_t nvmlGpuInstanceCreateComputeInstance(nvmlGpuInstance_t h,
                                                              unsigned int profileId,
                                                              nvmlComputeInstance_t *out)
{
    GpuInstance *gi = asGi(h);
    if (!gi)
        return kErrorInvalidArgument;
    State &s = state();
    logLine("ci-create " + gi->gpu->uuid + " gi" + std::to_string(gi->id));
    if (!s.permission)
        return kErrorNoPermission;
    if (s.failComputeCreate)
        return kErrorInsufficientResources;
    *out = reinterpret_cast<nvmlComputeInstance_t>(addCi(*gi, profileId));
    return kSuccess;
}

FAKE_EXPORT nvmlReturn_t nvmlGpuInstanceGetComputeInstances(nvmlGpuInstance_t h,
                                                            unsigned int profileId,
                                                            nvmlComputeInstance_t *out,
                                                            unsigned int *count)
{
    GpuInstance *gi = asGi(h);
    if (!gi)
        return kErrorInvalidArgument;
    unsigned n = 0;
    for (ComputeInstance *ci : gi->cis) {
        if (!ci->alive || ci->profileId != profileId)
            continue;
        if (n >= *count)
            return kErrorInsufficientSize;
        out[n++] = reinterpret_cast<nvmlComputeInstance_t>(ci);
    }
    *count = n;
    return kSuccess;
}

FAKE_EXPORT nvmlReturn_t nvmlComputeInstanceDestroy(nvmlComputeInstance_t h)
{
    ComputeInstance *ci = asCi(h);
    if (!ci)
        return kErrorInvalidArgument;
    State &s = state();
    logLine("ci-destroy " + ci->parent->gpu->uuid + " gi" + std::to_string(ci->parent->id));
    if (!s.permission)
        return kErrorNoPermission;
    if (ci->parent->busy)
        return kErrorInUse;
    ci->alive = false;
    return kSuccess;
}

FAKE_EXPORT nvmlReturn_t nvmlGpuInstanceDestroy(nvmlGpuInstance_t h)
{
    GpuInstance *gi = asGi(h);
    if (!gi)
        return kErrorInvalidArgument;
    State &s = state();
    logLine("gi-destroy " + gi->gpu->uuid + " gi" + std::to_string(gi->id));
    if (!s.permission)
        return kErrorNoPermission;
    if (gi->busy)
        return kErrorInUse;
    for (ComputeInstance *ci : gi->cis) {
        if (ci->alive)
            return kErrorInUse; // compute instances first, as the driver insists
    }
    gi->alive = false;
    return kSuccess;
}
