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
//              "memoryUsedMiB", "utilisation", "temperature", "powerMw", "eccUncorrected",
//              "eccCorrected", "mig": {"current": bool, "pending": bool} | absent (no MIG),
//              "profiles": [{"index", "id", "name", "slices", "instances", "memoryMB", "size",
//                            "starts": [..]}],
//              "instances": [{"profileId", "start", "busy"}], "lost": false,
//              "processes": [as in the control below]}]}
// Control (tests): fakenvml_control(json) with one of {"busy": {"gpu", "start", "busy"}},
// {"lost": {"gpu", "lost"}}, {"xid": {"gpu", "xid"}}, {"eccUncorrected": {"gpu", "count"}},
// {"permission": bool}, {"failCreateAt": n}, {"utilisation": {"gpu", "value"}},
// {"processes": {"gpu", "list": [{"pid", "memoryMiB" (absent or -1: not available),
//                                 "start" (the MIG instance's; absent: the whole card),
//                                 "smUtil" (percent)}]}} (replaces the card's list);
// fakenvml_log() returns the changing calls made so far, one per line; fakenvml_mig_uuid(gpu,
// start) the UUID of the MIG device at that start ("" if none).

#include "core/device/nvmlapi.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <list>
#include <string>
#include <vector>

namespace {

struct Profile
{
    unsigned index = 0;
    unsigned id = 0;
    std::string name;
    unsigned slices = 0;
    unsigned instances = 0;
    unsigned long long memoryMB = 0;
    unsigned size = 0;
    std::vector<unsigned> starts;
};

struct ComputeInstance
{
    bool alive = true;
    unsigned id = 0;
    unsigned profileId = 0;
    struct GpuInstance *parent = nullptr;
    std::string uuid; // its MIG device's
};

struct Process
{
    unsigned pid = 0;
    long long memoryMiB = -1; // -1: NVML_VALUE_NOT_AVAILABLE
    int start = -1;           // the MIG instance it runs on; -1: the whole card
    unsigned smUtil = 0;
};

struct Gpu;

struct GpuInstance
{
    bool alive = true;
    unsigned id = 0;
    unsigned profileId = 0;
    unsigned start = 0;
    unsigned size = 0;
    unsigned slices = 0;
    bool busy = false;
    Gpu *gpu = nullptr;
    std::vector<ComputeInstance *> cis;
};

struct Gpu
{
    std::string name, uuid, busId;
    unsigned pciDeviceId = 0;
    unsigned long long memTotalMiB = 0, memUsedMiB = 0;
    unsigned utilisation = 0, temperature = 0, powerMw = 0;
    unsigned long long eccUncorrected = 0, eccCorrected = 0;
    bool hasMig = false, migCurrent = false, migPending = false;
    bool lost = false;
    std::vector<Profile> profiles;
    unsigned nextGiId = 1;
    int index = 0;
    std::vector<Process> processes;
};

struct Event
{
    Gpu *gpu;
    unsigned long long xid;
};

struct State
{
    int initCount = 0;
    std::string driverVersion = "550.00";
    bool permission = true;
    int failCreateAt = -1; // the n-th GPU-instance creation fails (0-based)
    int creates = 0;
    bool failComputeCreate = false;
    std::list<Gpu> gpus; // stable addresses: handles are pointers
    std::list<GpuInstance> gis;
    std::list<ComputeInstance> cis;
    std::vector<Event> events;
    std::string log;
    int eventSet = 0;
    unsigned migDevicesMade = 0;
    unsigned long long sampleClock = 0; // process samples' timestamps (microseconds, made up)
};

State &state()
{
    static State s;
    return s;
}

Gpu *gpuAt(int i)
{
    int k = 0;
    for (Gpu &g : state().gpus) {
        if (k++ == i)
            return &g;
    }
    return nullptr;
}

Gpu *asGpu(nvmlDevice_t d)
{
    for (Gpu &g : state().gpus) {
        if (reinterpret_cast<nvmlDevice_t>(&g) == d)
            return &g;
    }
    return nullptr;
}

GpuInstance *asGi(nvmlGpuInstance_t h)
{
    for (GpuInstance &g : state().gis) {
        if (reinterpret_cast<nvmlGpuInstance_t>(&g) == h)
            return g.alive ? &g : nullptr;
    }
    return nullptr;
}

ComputeInstance *asCi(nvmlComputeInstance_t h)
{
    for (ComputeInstance &c : state().cis) {
        if (reinterpret_cast<nvmlComputeInstance_t>(&c) == h)
            return c.alive ? &c : nullptr;
    }
    return nullptr;
}

// A MIG device handle is the compute instance's address, passed as an nvmlDevice_t.
ComputeInstance *asMigDevice(nvmlDevice_t d)
{
    ComputeInstance *ci = asCi(reinterpret_cast<nvmlComputeInstance_t>(d));
    return ci && ci->parent->alive ? ci : nullptr;
}

ComputeInstance *migDeviceAt(const Gpu &g, unsigned start)
{
    for (ComputeInstance &c : state().cis) {
        if (c.alive && c.parent->alive && c.parent->gpu == &g && c.parent->start == start)
            return &c;
    }
    return nullptr;
}

ComputeInstance *addCi(GpuInstance &gi, unsigned profileId)
{
    State &s = state();
    char uuid[64];
    std::snprintf(uuid,
                  sizeof uuid,
                  "MIG-%08x-0000-4000-8000-%012x",
                  unsigned(gi.gpu->index),
                  ++s.migDevicesMade);
    s.cis.push_back(ComputeInstance{true, unsigned(gi.cis.size()), profileId, &gi, uuid});
    gi.cis.push_back(&s.cis.back());
    return &s.cis.back();
}

const Profile *profileById(const Gpu &g, unsigned id)
{
    for (const Profile &p : g.profiles) {
        if (p.id == id)
            return &p;
    }
    return nullptr;
}

void logLine(const std::string &s)
{
    state().log += s + "\n";
}

GpuInstance *addGi(Gpu &g, const Profile &p, unsigned start, bool withCi)
{
    State &s = state();
    s.gis.push_back(GpuInstance{});
    GpuInstance &gi = s.gis.back();
    gi.id = g.nextGiId++;
    gi.profileId = p.id;
    gi.start = start;
    gi.size = p.size;
    gi.slices = p.slices;
    gi.gpu = &g;
    if (withCi)
        addCi(gi, 0);
    return &gi;
}

std::vector<Process> processesFrom(const QJsonArray &list)
{
    std::vector<Process> out;
    for (const QJsonValue &pv : list) {
        const QJsonObject po = pv.toObject();
        out.push_back(Process{unsigned(po.value(QLatin1String("pid")).toInteger()),
                              po.value(QLatin1String("memoryMiB")).toInteger(-1),
                              po.value(QLatin1String("start")).toInt(-1),
                              unsigned(po.value(QLatin1String("smUtil")).toInt())});
    }
    return out;
}

void loadFixture()
{
    State &s = state();
    s = State{};
    s.initCount = 0;
    QFile f(qEnvironmentVariable("FAKENVML_FIXTURE"));
    if (!f.open(QIODevice::ReadOnly))
        return;
    const QJsonObject root = QJsonDocument::fromJson(f.readAll()).object();
    s.driverVersion = root.value(QLatin1String("driverVersion"))
                              .toString(QStringLiteral("550.00"))
                              .toStdString();
    s.permission = root.value(QLatin1String("permission")).toBool(true);
    s.failCreateAt = root.value(QLatin1String("failCreateAt")).toInt(-1);
    s.failComputeCreate = root.value(QLatin1String("failComputeCreate")).toBool(false);
    for (const QJsonValue &gv : root.value(QLatin1String("gpus")).toArray()) {
        const QJsonObject o = gv.toObject();
        s.gpus.push_back(Gpu{});
        Gpu &g = s.gpus.back();
        g.index = int(s.gpus.size()) - 1;
        g.name = o.value(QLatin1String("name")).toString().toStdString();
        g.uuid = o.value(QLatin1String("uuid")).toString().toStdString();
        g.busId = o.value(QLatin1String("busId")).toString().toStdString();
        g.pciDeviceId = o.value(QLatin1String("pciDeviceId")).toString().mid(2).toUInt(nullptr, 16);
        g.memTotalMiB = o.value(QLatin1String("memoryTotalMiB")).toInteger();
        g.memUsedMiB = o.value(QLatin1String("memoryUsedMiB")).toInteger();
        g.utilisation = unsigned(o.value(QLatin1String("utilisation")).toInt());
        g.temperature = unsigned(o.value(QLatin1String("temperature")).toInt());
        g.powerMw = unsigned(o.value(QLatin1String("powerMw")).toInt());
        g.eccUncorrected = o.value(QLatin1String("eccUncorrected")).toInteger();
        g.eccCorrected = o.value(QLatin1String("eccCorrected")).toInteger();
        g.lost = o.value(QLatin1String("lost")).toBool();
        g.processes = processesFrom(o.value(QLatin1String("processes")).toArray());
        if (o.contains(QLatin1String("mig"))) {
            g.hasMig = true;
            g.migCurrent = o.value(QLatin1String("mig"))
                                   .toObject()
                                   .value(QLatin1String("current"))
                                   .toBool();
            g.migPending = o.value(QLatin1String("mig"))
                                   .toObject()
                                   .value(QLatin1String("pending"))
                                   .toBool();
        }
        for (const QJsonValue &pv : o.value(QLatin1String("profiles")).toArray()) {
            const QJsonObject po = pv.toObject();
            Profile p;
            p.index = unsigned(po.value(QLatin1String("index")).toInt());
            p.id = unsigned(po.value(QLatin1String("id")).toInt());
            p.name = po.value(QLatin1String("name")).toString().toStdString();
            p.slices = unsigned(po.value(QLatin1String("slices")).toInt());
            p.instances = unsigned(po.value(QLatin1String("instances")).toInt());
            p.memoryMB = po.value(QLatin1String("memoryMB")).toInteger();
            p.size = unsigned(po.value(QLatin1String("size")).toInt());
            for (const QJsonValue &sv : po.value(QLatin1String("starts")).toArray())
                p.starts.push_back(unsigned(sv.toInt()));
            g.profiles.push_back(p);
        }
        for (const QJsonValue &iv : o.value(QLatin1String("instances")).toArray()) {
            const QJsonObject io = iv.toObject();
            const Profile *p
                    = profileById(g, unsigned(io.value(QLatin1String("profileId")).toInt()));
            if (!p)
                continue;
            GpuInstance *gi
                    = addGi(g, *p, unsigned(io.value(QLatin1String("start")).toInt()), true);
            gi->busy = io.value(QLatin1String("busy")).toBool();
        }
    }
}

void copyString(const std::string &s, char *buf, unsigned len)
{
    if (len == 0)
        return;
    const size_t n = std::min<size_t>(s.size(), len - 1);
    std::memcpy(buf, s.data(), n);
    buf[n] = '\0';
}

#define GPU_OR_RETURN(dev) \
    Gpu *g = asGpu(dev); \
    if (!g) \
        return Zhaoxi::Device::Nvml::kErrorInvalidArgument; \
    if (g->lost) \
        return Zhaoxi::Device::Nvml::kErrorGpuIsLost;

using namespace Zhaoxi::Device::Nvml;

} // namespace

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

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

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t dev, unsigned int *mw)
{
    GPU_OR_RETURN(dev)
    *mw = g->powerMw;
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

// --- test control ------------------------------------------------------------------------------

FAKE_EXPORT int fakenvml_control(const char *json)
{
    State &s = state();
    const QJsonObject o = QJsonDocument::fromJson(QByteArray(json)).object();
    if (o.contains(QLatin1String("busy"))) {
        const QJsonObject b = o.value(QLatin1String("busy")).toObject();
        Gpu *g = gpuAt(b.value(QLatin1String("gpu")).toInt());
        for (GpuInstance &gi : s.gis) {
            if (gi.alive && gi.gpu == g && int(gi.start) == b.value(QLatin1String("start")).toInt())
                gi.busy = b.value(QLatin1String("busy")).toBool(true);
        }
    }
    if (o.contains(QLatin1String("lost"))) {
        const QJsonObject b = o.value(QLatin1String("lost")).toObject();
        if (Gpu *g = gpuAt(b.value(QLatin1String("gpu")).toInt()))
            g->lost = b.value(QLatin1String("lost")).toBool(true);
    }
    if (o.contains(QLatin1String("xid"))) {
        const QJsonObject b = o.value(QLatin1String("xid")).toObject();
        if (Gpu *g = gpuAt(b.value(QLatin1String("gpu")).toInt()))
            s.events.push_back(
                    Event{g, (unsigned long long)b.value(QLatin1String("xid")).toInteger()});
    }
    if (o.contains(QLatin1String("eccUncorrected"))) {
        const QJsonObject b = o.value(QLatin1String("eccUncorrected")).toObject();
        if (Gpu *g = gpuAt(b.value(QLatin1String("gpu")).toInt()))
            g->eccUncorrected = b.value(QLatin1String("count")).toInteger();
    }
    if (o.contains(QLatin1String("utilisation"))) {
        const QJsonObject b = o.value(QLatin1String("utilisation")).toObject();
        if (Gpu *g = gpuAt(b.value(QLatin1String("gpu")).toInt()))
            g->utilisation = unsigned(b.value(QLatin1String("value")).toInt());
    }
    if (o.contains(QLatin1String("processes"))) {
        const QJsonObject b = o.value(QLatin1String("processes")).toObject();
        if (Gpu *g = gpuAt(b.value(QLatin1String("gpu")).toInt()))
            g->processes = processesFrom(b.value(QLatin1String("list")).toArray());
    }
    if (o.contains(QLatin1String("permission")))
        s.permission = o.value(QLatin1String("permission")).toBool();
    if (o.contains(QLatin1String("failCreateAt"))) {
        s.failCreateAt = o.value(QLatin1String("failCreateAt")).toInt();
        s.creates = 0;
    }
    return 0;
}

FAKE_EXPORT const char *fakenvml_log()
{
    return state().log.c_str();
}

FAKE_EXPORT const char *fakenvml_mig_uuid(int gpu, int start)
{
    const Gpu *g = gpuAt(gpu);
    const ComputeInstance *ci = g && start >= 0 ? migDeviceAt(*g, unsigned(start)) : nullptr;
    return ci ? ci->uuid.c_str() : "";
}
