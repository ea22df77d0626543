// SPDX-License-Identifier: GPL-3.0-or-later
#include "nvmlapi.h"

#include <dlfcn.h>

namespace Zhaoxi::Device::Nvml {

namespace {

template<typename Fn>
bool resolve(void *handle, const char *name, Fn *&slot)
{
    // dlsym returns void*; POSIX guarantees the round trip to a function pointer.
    void *p = ::dlsym(handle, name);
    slot = reinterpret_cast<Fn *>(p);
    return p != nullptr;
}

} // namespace

Library::~Library()
{
    if (m_handle)
        ::dlclose(m_handle);
}

QString Library::resolvePath(const QString &explicitPath)
{
    if (!explicitPath.isEmpty())
        return explicitPath;
    const QString fromEnv = qEnvironmentVariable("ZHAOXI_NVML_LIBRARY");
    if (!fromEnv.isEmpty())
        return fromEnv;
    return QStringLiteral("libnvidia-ml.so.1");
}

bool Library::load(const QString &path, QString *error)
{
    m_path = path;
    // RTLD_LOCAL: NVML's symbols must not satisfy anything else in the process; RTLD_NOW: a
    // library that cannot bind shows now, not at the first MIG call.
    m_handle = ::dlopen(path.toLocal8Bit().constData(), RTLD_NOW | RTLD_LOCAL);
    if (!m_handle) {
        if (error) {
            const char *why = ::dlerror();
            *error = QStringLiteral("no NVIDIA driver found (%1 cannot be opened: %2)")
                             .arg(path, why ? QString::fromLocal8Bit(why) : QStringLiteral("?"));
        }
        return false;
    }

    // Versioned names first: the unversioned ones are the old ABI kept for old binaries.
    struct Required
    {
        const char *name;
        bool ok;
    };
    const Required required[] = {
            {"nvmlInit_v2", resolve(m_handle, "nvmlInit_v2", m_fn.init)},
            {"nvmlShutdown", resolve(m_handle, "nvmlShutdown", m_fn.shutdown)},
            {"nvmlDeviceGetCount_v2",
             resolve(m_handle, "nvmlDeviceGetCount_v2", m_fn.deviceGetCount)},
            {"nvmlDeviceGetHandleByIndex_v2",
             resolve(m_handle, "nvmlDeviceGetHandleByIndex_v2", m_fn.deviceGetHandleByIndex)},
            {"nvmlDeviceGetName", resolve(m_handle, "nvmlDeviceGetName", m_fn.deviceGetName)},
            {"nvmlDeviceGetUUID", resolve(m_handle, "nvmlDeviceGetUUID", m_fn.deviceGetUUID)},
            {"nvmlDeviceGetPciInfo_v3",
             resolve(m_handle, "nvmlDeviceGetPciInfo_v3", m_fn.deviceGetPciInfo)},
            {"nvmlDeviceGetMemoryInfo",
             resolve(m_handle, "nvmlDeviceGetMemoryInfo", m_fn.deviceGetMemoryInfo)},
    };
    QStringList missing;
    for (const Required &r : required) {
        if (!r.ok)
            missing << QLatin1String(r.name);
    }
    if (!missing.isEmpty()) {
        if (error)
            *error = QStringLiteral("%1 is not a usable NVML library (missing %2)")
                             .arg(path, missing.join(QStringLiteral(", ")));
        ::dlclose(m_handle);
        m_handle = nullptr;
        m_fn = {};
        return false;
    }

    auto optional = [this](const char *name, auto *&slot) {
        if (!resolve(m_handle, name, slot))
            m_missingOptional << QLatin1String(name);
    };
    optional("nvmlErrorString", m_fn.errorString);
    optional("nvmlSystemGetDriverVersion", m_fn.systemGetDriverVersion);
    optional("nvmlDeviceGetUtilizationRates", m_fn.deviceGetUtilizationRates);
    optional("nvmlDeviceGetTemperature", m_fn.deviceGetTemperature);
    optional("nvmlDeviceGetPowerUsage", m_fn.deviceGetPowerUsage);
    optional("nvmlDeviceGetClockInfo", m_fn.deviceGetClockInfo);
    optional("nvmlDeviceGetMaxClockInfo", m_fn.deviceGetMaxClockInfo);
    optional("nvmlDeviceGetTotalEccErrors", m_fn.deviceGetTotalEccErrors);
    optional("nvmlDeviceGetCurrentClocksThrottleReasons",
             m_fn.deviceGetCurrentClocksThrottleReasons);
    optional("nvmlDeviceGetTemperatureThreshold", m_fn.deviceGetTemperatureThreshold);
    optional("nvmlEventSetCreate", m_fn.eventSetCreate);
    optional("nvmlDeviceRegisterEvents", m_fn.deviceRegisterEvents);
    optional("nvmlEventSetWait_v2", m_fn.eventSetWait);
    optional("nvmlEventSetFree", m_fn.eventSetFree);
    optional("nvmlDeviceGetMigMode", m_fn.deviceGetMigMode);
    optional("nvmlDeviceGetGpuInstanceProfileInfo", m_fn.deviceGetGpuInstanceProfileInfo);
    optional("nvmlDeviceGetGpuInstanceProfileInfoV", m_fn.deviceGetGpuInstanceProfileInfoV);
    optional("nvmlDeviceGetGpuInstancePossiblePlacements_v2",
             m_fn.deviceGetGpuInstancePossiblePlacements);
    optional("nvmlDeviceGetGpuInstances", m_fn.deviceGetGpuInstances);
    optional("nvmlGpuInstanceGetInfo", m_fn.gpuInstanceGetInfo);
    optional("nvmlDeviceCreateGpuInstanceWithPlacement", m_fn.deviceCreateGpuInstanceWithPlacement);
    optional("nvmlGpuInstanceGetComputeInstanceProfileInfo",
             m_fn.gpuInstanceGetComputeInstanceProfileInfo);
    optional("nvmlGpuInstanceCreateComputeInstance", m_fn.gpuInstanceCreateComputeInstance);
    optional("nvmlGpuInstanceGetComputeInstances", m_fn.gpuInstanceGetComputeInstances);
    optional("nvmlComputeInstanceDestroy", m_fn.computeInstanceDestroy);
    optional("nvmlGpuInstanceDestroy", m_fn.gpuInstanceDestroy);
    optional("nvmlDeviceGetMaxMigDeviceCount", m_fn.deviceGetMaxMigDeviceCount);
    optional("nvmlDeviceGetMigDeviceHandleByIndex", m_fn.deviceGetMigDeviceHandleByIndex);
    optional("nvmlDeviceGetGpuInstanceId", m_fn.deviceGetGpuInstanceId);
    optional("nvmlDeviceGetComputeRunningProcesses_v2", m_fn.deviceGetComputeRunningProcesses);
    optional("nvmlDeviceGetProcessUtilization", m_fn.deviceGetProcessUtilization);
    return true;
}

} // namespace Zhaoxi::Device::Nvml
