// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The test double's state, shared by its parts: fakenvml_state.cpp makes it (from the fixture,
// then from the test control functions), fakenvml.cpp answers the NVML entry points over it.
// See fakenvml.cpp for the fixture and the control.

#include "core/device/nvmlapi.h"

#include <list>
#include <string>
#include <vector>

namespace FakeNvmlState {

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
    unsigned smClockMHz = 0, maxSmClockMHz = 0; // 0: the driver does not say
    unsigned long long throttleReasons = 0;
    unsigned slowdownTempC = 0, shutdownTempC = 0; // 0: the driver does not say
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

State &state();
Gpu *gpuAt(int i);
Gpu *asGpu(nvmlDevice_t d);
GpuInstance *asGi(nvmlGpuInstance_t h);
ComputeInstance *asCi(nvmlComputeInstance_t h);
// A MIG device handle is the compute instance's address, passed as an nvmlDevice_t.
ComputeInstance *asMigDevice(nvmlDevice_t d);
ComputeInstance *migDeviceAt(const Gpu &g, unsigned start);
ComputeInstance *addCi(GpuInstance &gi, unsigned profileId);
const Profile *profileById(const Gpu &g, unsigned id);
void logLine(const std::string &s);
GpuInstance *addGi(Gpu &g, const Profile &p, unsigned start, bool withCi);
// Resets the state to the fixture at $FAKENVML_FIXTURE (none or unreadable: no GPUs).
void loadFixture();
void copyString(const std::string &s, char *buf, unsigned len);

} // namespace FakeNvmlState

#define GPU_OR_RETURN(dev) \
    Gpu *g = asGpu(dev); \
    if (!g) \
        return Zhaoxi::Device::Nvml::kErrorInvalidArgument; \
    if (g->lost) \
        return Zhaoxi::Device::Nvml::kErrorGpuIsLost;

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))
