// SPDX-License-Identifier: GPL-3.0-or-later
// NvmlBackend's discovery and sampling: each card's identity, MIG mode and instances, its
// processes, readings and the driver's events (Xids, lost cards).
#include "nvmlbackend_p.h"

#include <algorithm>
#include <limits>

namespace Zhaoxi::Device {

using namespace NvmlDetail;

namespace {

constexpr int kRecentXids = 8;
constexpr int kMaxEventsPerPoll = 64;
constexpr unsigned int kMaxMigDevices = 64; // more than any card has (7 compute slices)
constexpr unsigned int kProcessBuffer = 32; // first guess; grown when the driver asks for more
constexpr int kListAttempts = 3;            // processes may start between the size and the read

} // namespace

void NvmlBackend::readCard(int i)
{
    const Nvml::Functions &fn = m_lib.fn();
    NvmlCardReport &rep = m_reports[i];
    nvmlDevice_t dev = m_devices[size_t(i)];
    if (!dev) {
        rep.readStatus = NvmlStatus::GpuLost;
        rep.layout.lost = true;
        return;
    }
    char buf[Nvml::kNameBufferSize] = {};
    if (fn.deviceGetName(dev, buf, sizeof buf) == Nvml::kSuccess)
        rep.name = fromCString(buf, sizeof buf);
    char ubuf[Nvml::kUuidBufferSize] = {};
    if (fn.deviceGetUUID(dev, ubuf, sizeof ubuf) == Nvml::kSuccess)
        rep.uuid = fromCString(ubuf, sizeof ubuf);
    nvmlPciInfo_t pci = {};
    if (fn.deviceGetPciInfo(dev, &pci) == Nvml::kSuccess) {
        rep.busId = fromCString(pci.busId, sizeof pci.busId);
        rep.pciDeviceId = pci.pciDeviceId;
    }
    nvmlMemory_t mem = {};
    if (fn.deviceGetMemoryInfo(dev, &mem) == Nvml::kSuccess)
        rep.memoryTotalMiB = bytesToMiB(mem.total);
    rep.model = matchModel(m_catalogue, rep.pciDeviceId, rep.name);
}

void NvmlBackend::readMig(int i)
{
    const Nvml::Functions &fn = m_lib.fn();
    NvmlCardReport &rep = m_reports[i];
    nvmlDevice_t dev = m_devices[size_t(i)];
    rep.driverProfiles.clear();
    rep.differences.clear();
    rep.driverInstances.clear();
    rep.layoutProblems.clear();
    rep.layout.instances.clear();
    rep.layout.mode = PartitionMode::Whole;
    rep.readStatus = NvmlStatus::Ok;
    rep.instanceUuidNote.clear();
    if (!dev) {
        rep.readStatus = NvmlStatus::GpuLost;
        rep.layout.lost = true;
        return;
    }
    if (!fn.canReadMig()) {
        rep.migCurrent.reset();
        rep.migPending.reset();
        return;
    }
    unsigned int current = 0;
    unsigned int pending = 0;
    const int rc = fn.deviceGetMigMode(dev, &current, &pending);
    const NvmlStatus st = classifyReturn(rc);
    if (st != NvmlStatus::Ok) {
        rep.migCurrent.reset();
        rep.migPending.reset();
        if (st != NvmlStatus::NotSupported)
            rep.readStatus = st;
        return;
    }
    rep.migCurrent = current == Nvml::kMigEnabled;
    rep.migPending = pending == Nvml::kMigEnabled;
    if (!*rep.migCurrent)
        return; // the driver lists no profiles with MIG off
    rep.layout.mode = PartitionMode::Mig;

    for (unsigned int idx = 0; idx < Nvml::kGpuInstanceProfileIndexCount; ++idx) {
        DriverProfile p;
        bool ok = false;
        if (fn.deviceGetGpuInstanceProfileInfoV) {
            nvmlGpuInstanceProfileInfo_v2_t info = {};
            info.version = Nvml::kGpuInstanceProfileInfoV2;
            if (fn.deviceGetGpuInstanceProfileInfoV(dev, idx, &info) == Nvml::kSuccess) {
                p = DriverProfile{int(info.id),
                                  normalizeProfileName(fromCString(info.name, sizeof info.name)),
                                  int(info.sliceCount),
                                  int(info.instanceCount),
                                  qint64(info.memorySizeMB),
                                  {},
                                  0};
                ok = true;
            }
        }
        if (!ok && fn.deviceGetGpuInstanceProfileInfo) {
            nvmlGpuInstanceProfileInfo_t info = {};
            if (fn.deviceGetGpuInstanceProfileInfo(dev, idx, &info) == Nvml::kSuccess) {
                p = DriverProfile{int(info.id),
                                  {},
                                  int(info.sliceCount),
                                  int(info.instanceCount),
                                  qint64(info.memorySizeMB),
                                  {},
                                  0};
                ok = true;
            }
        }
        if (!ok)
            continue; // this card does not offer the profile (NOT_SUPPORTED / INVALID_ARGUMENT)
        const bool seen
                = std::any_of(rep.driverProfiles.cbegin(),
                              rep.driverProfiles.cend(),
                              [&](const DriverProfile &q) { return q.profileId == p.profileId; });
        if (seen)
            continue;
        unsigned int n = 0;
        if (fn.deviceGetGpuInstancePossiblePlacements(dev, unsigned(p.profileId), nullptr, &n)
                    == Nvml::kSuccess
            && n > 0) {
            std::vector<nvmlGpuInstancePlacement_t> pl(n);
            if (fn.deviceGetGpuInstancePossiblePlacements(dev, unsigned(p.profileId), pl.data(), &n)
                == Nvml::kSuccess) {
                for (unsigned int k = 0; k < n && k < pl.size(); ++k) {
                    p.starts << int(pl[k].start);
                    p.span = int(pl[k].size);
                }
                std::sort(p.starts.begin(), p.starts.end());
            }
        }
        nvmlGpuInstance_t gis[kMaxInstancesPerProfile] = {};
        unsigned int gn = kMaxInstancesPerProfile;
        if (fn.deviceGetGpuInstances(dev, unsigned(p.profileId), gis, &gn) == Nvml::kSuccess) {
            for (unsigned int k = 0; k < gn && k < unsigned(kMaxInstancesPerProfile); ++k) {
                nvmlGpuInstanceInfo_t info = {};
                if (fn.gpuInstanceGetInfo(gis[k], &info) != Nvml::kSuccess)
                    continue;
                rep.driverInstances << DriverInstance{info.id,
                                                      int(info.profileId),
                                                      int(info.placement.start),
                                                      int(info.placement.size)};
            }
        }
        rep.driverProfiles << p;
    }
    std::sort(rep.driverProfiles.begin(),
              rep.driverProfiles.end(),
              [](const DriverProfile &a, const DriverProfile &b) {
                  return a.profileId < b.profileId;
              });
    std::sort(rep.driverInstances.begin(),
              rep.driverInstances.end(),
              [](const DriverInstance &a, const DriverInstance &b) { return a.start < b.start; });
    readInstanceUuids(i);
    if (rep.model >= 0) {
        const Domain::CardModel &model = m_catalogue.models()[rep.model];
        rep.differences = compareProfiles(model, rep.driverProfiles);
        rep.layout.instances = mapInstances(model, rep.driverInstances, &rep.layoutProblems);
    } else if (!rep.driverInstances.isEmpty()) {
        rep.layoutProblems << QStringLiteral("the card's model is not in the catalogue: %1 GPU "
                                             "instance(s) cannot be shown as a layout")
                                      .arg(rep.driverInstances.size());
    }
}

void NvmlBackend::readInstanceUuids(int i)
{
    const Nvml::Functions &fn = m_lib.fn();
    NvmlCardReport &rep = m_reports[i];
    nvmlDevice_t dev = m_devices[size_t(i)];
    if (!fn.canReadMigDevices()) {
        QStringList lacking;
        if (!fn.deviceGetMaxMigDeviceCount)
            lacking << QStringLiteral("nvmlDeviceGetMaxMigDeviceCount");
        if (!fn.deviceGetMigDeviceHandleByIndex)
            lacking << QStringLiteral("nvmlDeviceGetMigDeviceHandleByIndex");
        if (!fn.deviceGetGpuInstanceId)
            lacking << QStringLiteral("nvmlDeviceGetGpuInstanceId");
        rep.instanceUuidNote
                = QStringLiteral(
                          "the NVIDIA library lacks %1: the MIG instances' UUIDs are unknown")
                          .arg(lacking.join(QStringLiteral(", ")));
        return;
    }
    unsigned int max = 0;
    const int rc = fn.deviceGetMaxMigDeviceCount(dev, &max);
    if (rc != Nvml::kSuccess) {
        rep.instanceUuidNote = QStringLiteral("the driver does not list MIG devices (%1): the MIG "
                                              "instances' UUIDs are unknown")
                                       .arg(errorText(rc));
        return;
    }
    // The index space is sparse: an index without a MIG device answers NOT_FOUND.
    for (unsigned int k = 0; k < max && k < kMaxMigDevices; ++k) {
        nvmlDevice_t mig = nullptr;
        if (fn.deviceGetMigDeviceHandleByIndex(dev, k, &mig) != Nvml::kSuccess || !mig)
            continue;
        unsigned int gi = 0;
        if (fn.deviceGetGpuInstanceId(mig, &gi) != Nvml::kSuccess)
            continue;
        char buf[Nvml::kUuidBufferSize] = {};
        if (fn.deviceGetUUID(mig, buf, sizeof buf) != Nvml::kSuccess)
            continue;
        for (DriverInstance &d : rep.driverInstances) {
            if (d.id == gi && d.uuid.isEmpty())
                d.uuid = fromCString(buf, sizeof buf);
        }
    }
}

NvmlStatus NvmlBackend::listProcesses(nvmlDevice_t device,
                                      std::vector<nvmlProcessInfo_v2_t> *out,
                                      QString *message) const
{
    const Nvml::Functions &fn = m_lib.fn();
    out->assign(kProcessBuffer, nvmlProcessInfo_v2_t{});
    int rc = Nvml::kErrorInsufficientSize;
    for (int attempt = 0; attempt < kListAttempts && rc == Nvml::kErrorInsufficientSize;
         ++attempt) {
        unsigned int n = unsigned(out->size());
        rc = fn.deviceGetComputeRunningProcesses(device, &n, out->data());
        if (rc == Nvml::kSuccess)
            out->resize(std::min<size_t>(n, out->size()));
        else if (rc == Nvml::kErrorInsufficientSize)
            out->assign(std::max<size_t>(n, out->size() * 2) + 4, nvmlProcessInfo_v2_t{});
    }
    if (rc != Nvml::kSuccess) {
        out->clear();
        *message = QStringLiteral("listing processes: %1").arg(errorText(rc));
        return classifyReturn(rc);
    }
    return NvmlStatus::Ok;
}

void NvmlBackend::readProcesses(int i)
{
    const Nvml::Functions &fn = m_lib.fn();
    NvmlReading &r = m_readings[i];
    const NvmlCardReport &rep = m_reports[i];
    nvmlDevice_t dev = m_devices[size_t(i)];
    r.processes.clear();
    r.processesListed = false;
    r.processesNote.clear();
    if (!fn.deviceGetComputeRunningProcesses) {
        r.processesNote = QStringLiteral(
                "the NVIDIA library lacks nvmlDeviceGetComputeRunningProcesses_v2");
        return;
    }
    const bool mig = rep.migCurrent.value_or(false);
    std::vector<nvmlProcessInfo_v2_t> raw;
    QString why;
    QList<ProcessUse> found;
    if (mig && fn.canReadMigDevices()) {
        // Per MIG device: the card's handle gives the aggregate to privileged callers only.
        unsigned int max = 0;
        const int rc = fn.deviceGetMaxMigDeviceCount(dev, &max);
        if (rc != Nvml::kSuccess) {
            r.processesNote = QStringLiteral("listing MIG devices: %1").arg(errorText(rc));
            return;
        }
        for (unsigned int k = 0; k < max && k < kMaxMigDevices; ++k) {
            nvmlDevice_t migDev = nullptr;
            if (fn.deviceGetMigDeviceHandleByIndex(dev, k, &migDev) != Nvml::kSuccess || !migDev)
                continue;
            char buf[Nvml::kUuidBufferSize] = {};
            if (fn.deviceGetUUID(migDev, buf, sizeof buf) != Nvml::kSuccess)
                continue; // destroyed since it was listed
            if (listProcesses(migDev, &raw, &why) != NvmlStatus::Ok) {
                // A partial list would read as "these and no others": none at all instead.
                r.processesNote = QStringLiteral("MIG device %1: %2")
                                          .arg(fromCString(buf, sizeof buf), why);
                return;
            }
            for (const nvmlProcessInfo_v2_t &p : raw)
                found << ProcessUse{p.pid,
                                    processMemoryMiB(p.usedGpuMemory),
                                    std::numeric_limits<double>::quiet_NaN(),
                                    fromCString(buf, sizeof buf)};
        }
        r.processes = found;
        r.processesListed = true;
        return;
    }
    if (listProcesses(dev, &raw, &why) != NvmlStatus::Ok) {
        r.processesNote = why;
        return;
    }
    for (const nvmlProcessInfo_v2_t &p : raw) {
        ProcessUse u{p.pid,
                     processMemoryMiB(p.usedGpuMemory),
                     std::numeric_limits<double>::quiet_NaN(),
                     {}};
        if (mig) {
            // The library lists them on the card (aggregate) but has no MIG device functions:
            // the GPU instance id still names the placement; its UUID is unknown here.
            for (const DriverInstance &d : rep.driverInstances) {
                if (d.id == p.gpuInstanceId)
                    u.instanceUuid = d.uuid;
            }
        }
        found << u;
    }
    if (!mig && fn.deviceGetProcessUtilization && !found.isEmpty()) {
        std::vector<nvmlProcessUtilizationSample_t> samples(
                std::max<size_t>(size_t(found.size()) * 4, kProcessBuffer));
        unsigned int n = unsigned(samples.size());
        int rc = fn.deviceGetProcessUtilization(dev, samples.data(), &n, m_lastSampleUs[size_t(i)]);
        if (rc == Nvml::kErrorInsufficientSize) {
            samples.assign(size_t(n) + 4, nvmlProcessUtilizationSample_t{});
            n = unsigned(samples.size());
            rc = fn.deviceGetProcessUtilization(dev, samples.data(), &n, m_lastSampleUs[size_t(i)]);
        }
        // NVML samples only processes that used the SMs: NOT_FOUND (no sample since the last
        // read) and a process without a sample both mean 0, not "unknown".
        if (rc == Nvml::kSuccess || rc == Nvml::kErrorNotFound) {
            QHash<quint32, const nvmlProcessUtilizationSample_t *> newest;
            for (unsigned int k = 0; rc == Nvml::kSuccess && k < n && k < samples.size(); ++k) {
                const nvmlProcessUtilizationSample_t &sample = samples[k];
                const auto it = newest.constFind(sample.pid);
                if (it == newest.cend() || (*it)->timeStamp < sample.timeStamp)
                    newest.insert(sample.pid, &sample);
                m_lastSampleUs[size_t(i)] = std::max(m_lastSampleUs[size_t(i)], sample.timeStamp);
            }
            for (ProcessUse &u : found) {
                const auto it = newest.constFind(u.pid);
                u.smUtilisation = it == newest.cend() ? 0.0 : std::min(1.0, (*it)->smUtil / 100.0);
            }
        }
    }
    r.processes = found;
    r.processesListed = true;
}

void NvmlBackend::noteLost(int i, bool lost, qint64 nowMs)
{
    NvmlReading &r = m_readings[i];
    if (r.lost == lost)
        return;
    r.lost = lost;
    m_reports[i].layout.lost = lost;
    m_faults << DeviceFault{nowMs, CardId(i), lost ? FaultKind::CardLost : FaultKind::Recovered, 0};
}

void NvmlBackend::readMetrics(int i, qint64 nowMs)
{
    const Nvml::Functions &fn = m_lib.fn();
    nvmlDevice_t dev = m_devices[size_t(i)];
    NvmlReading &r = m_readings[i];
    r.atMs = nowMs;
    auto unknownProcesses = [&r] {
        r.processes.clear();
        r.processesListed = false;
        r.processesNote = QStringLiteral("the card does not answer");
    };
    if (!dev) {
        unknownProcesses();
        noteLost(i, true, nowMs);
        return;
    }
    nvmlMemory_t mem = {};
    const int mrc = fn.deviceGetMemoryInfo(dev, &mem);
    if (classifyReturn(mrc) == NvmlStatus::GpuLost) {
        r.utilisation.reset();
        r.memoryUsedMiB.reset();
        r.temperatureC.reset();
        r.powerW.reset();
        unknownProcesses();
        noteLost(i, true, nowMs);
        return;
    }
    noteLost(i, false, nowMs);
    if (mrc == Nvml::kSuccess) {
        r.memoryUsedMiB = bytesToMiB(mem.used);
        r.memoryTotalMiB = bytesToMiB(mem.total);
    } else {
        r.memoryUsedMiB.reset();
        r.memoryTotalMiB.reset();
    }
    r.utilisation.reset();
    if (fn.deviceGetUtilizationRates) {
        nvmlUtilization_t u = {};
        const NvmlStatus st = classifyReturn(fn.deviceGetUtilizationRates(dev, &u));
        r.utilisation = utilisationFrom(st, u.gpu);
    }
    r.temperatureC.reset();
    if (fn.deviceGetTemperature) {
        unsigned int t = 0;
        if (fn.deviceGetTemperature(dev, Nvml::kTemperatureGpu, &t) == Nvml::kSuccess)
            r.temperatureC = double(t);
    }
    r.powerW.reset();
    if (fn.deviceGetPowerUsage) {
        unsigned int mw = 0;
        if (fn.deviceGetPowerUsage(dev, &mw) == Nvml::kSuccess)
            r.powerW = milliwattsToWatts(mw);
    }
    r.smClockMHz.reset();
    if (fn.deviceGetClockInfo) {
        unsigned int mhz = 0;
        if (fn.deviceGetClockInfo(dev, Nvml::kClockSm, &mhz) == Nvml::kSuccess)
            r.smClockMHz = double(mhz);
    }
    if (fn.deviceGetMaxClockInfo && !r.maxSmClockMHz) { // fixed for the card: read once
        unsigned int mhz = 0;
        if (fn.deviceGetMaxClockInfo(dev, Nvml::kClockSm, &mhz) == Nvml::kSuccess && mhz > 0)
            r.maxSmClockMHz = double(mhz);
    }
    r.throttleReasons.reset();
    if (fn.deviceGetCurrentClocksThrottleReasons) {
        unsigned long long mask = 0;
        if (fn.deviceGetCurrentClocksThrottleReasons(dev, &mask) == Nvml::kSuccess)
            r.throttleReasons = quint64(mask);
    }
    if (fn.deviceGetTemperatureThreshold && !r.slowdownTempC) { // fixed for the card
        unsigned int slow = 0, shut = 0;
        if (fn.deviceGetTemperatureThreshold(dev, Nvml::kTemperatureThresholdSlowdown, &slow)
                    == Nvml::kSuccess
            && slow > 0)
            r.slowdownTempC = int(slow);
        if (fn.deviceGetTemperatureThreshold(dev, Nvml::kTemperatureThresholdShutdown, &shut)
                    == Nvml::kSuccess
            && shut > 0)
            r.shutdownTempC = int(shut);
    }
    if (fn.deviceGetTotalEccErrors) {
        unsigned long long n = 0;
        if (fn.deviceGetTotalEccErrors(dev, Nvml::kMemoryErrorUncorrected, Nvml::kVolatileEcc, &n)
            == Nvml::kSuccess) {
            if (r.eccUncorrected && n > *r.eccUncorrected)
                m_faults << DeviceFault{nowMs, CardId(i), FaultKind::MemoryError, 0};
            r.eccUncorrected = quint64(n);
        } else {
            r.eccUncorrected.reset();
        }
        unsigned long long c = 0;
        if (fn.deviceGetTotalEccErrors(dev, Nvml::kMemoryErrorCorrected, Nvml::kVolatileEcc, &c)
            == Nvml::kSuccess)
            r.eccCorrected = quint64(c);
        else
            r.eccCorrected.reset();
    }
    readProcesses(i);
}

void NvmlBackend::drainEvents(qint64 nowMs)
{
    if (!m_events)
        return;
    const Nvml::Functions &fn = m_lib.fn();
    for (int k = 0; k < kMaxEventsPerPoll; ++k) {
        nvmlEventData_t ev = {};
        // Timeout 0: take what is queued, never block the polling thread.
        if (fn.eventSetWait(m_events, &ev, 0) != Nvml::kSuccess)
            break;
        if (!(ev.eventType & Nvml::kEventXidCritical))
            continue;
        const auto it = std::find(m_devices.cbegin(), m_devices.cend(), ev.device);
        if (it == m_devices.cend())
            continue;
        const int i = int(it - m_devices.cbegin());
        QList<quint64> &xids = m_readings[i].recentXids;
        xids << quint64(ev.eventData);
        ++m_readings[i].xidCount;
        while (xids.size() > kRecentXids)
            xids.removeFirst();
        if (const std::optional<FaultKind> f = faultForXid(ev.eventData)) {
            if (*f == FaultKind::CardLost)
                noteLost(i, true, nowMs);
            else
                m_faults << DeviceFault{nowMs, CardId(i), *f, 0};
        }
    }
}
} // namespace Zhaoxi::Device
