// SPDX-License-Identifier: GPL-3.0-or-later
#include "nvmlbackend.h"

#include <QFile>
#include <QSysInfo>

#include <algorithm>
#include <cmath>
#include <limits>

#include <unistd.h>

namespace Zhaoxi::Device {

const char *toString(NvmlOpenStatus status)
{
    switch (status) {
    case NvmlOpenStatus::Ok:
        return "ok";
    case NvmlOpenStatus::NoDriver:
        return "no-driver";
    case NvmlOpenStatus::InitFailed:
        return "init-failed";
    }
    return "unknown";
}

const char *toString(NvmlAccess access)
{
    switch (access) {
    case NvmlAccess::Writable:
        return "writable";
    case NvmlAccess::ReadOnlyBySetting:
        return "read-only";
    case NvmlAccess::NoPrivileges:
        return "no-privileges";
    case NvmlAccess::NotSupported:
        return "not-supported";
    }
    return "unknown";
}

const char *toString(NvmlStepState state)
{
    switch (state) {
    case NvmlStepState::Done:
        return "done";
    case NvmlStepState::Failed:
        return "failed";
    case NvmlStepState::Skipped:
        return "skipped";
    case NvmlStepState::Refused:
        return "refused";
    }
    return "unknown";
}

namespace {

constexpr int kMaxInstancesPerProfile = 32; // more than any card offers (7)
constexpr int kMaxComputeInstances = 8;
constexpr int kRecentXids = 8;
constexpr int kMaxEventsPerPoll = 64;
constexpr unsigned int kMaxMigDevices = 64; // more than any card has (7 compute slices)
constexpr unsigned int kProcessBuffer = 32; // first guess; grown when the driver asks for more
constexpr int kListAttempts = 3;            // processes may start between the size and the read

} // namespace

NvmlBackend::NvmlBackend(const NvmlBackendOptions &options, Catalogue::Catalogue catalogue)
    : m_options(options)
    , m_catalogue(std::move(catalogue))
{}

NvmlBackend::~NvmlBackend()
{
    const Nvml::Functions &fn = m_lib.fn();
    if (m_events && fn.eventSetFree)
        fn.eventSetFree(m_events);
    if (m_initialised && fn.shutdown)
        fn.shutdown();
}

std::unique_ptr<NvmlBackend> NvmlBackend::open(const NvmlBackendOptions &options,
                                               NvmlOpenResult *result,
                                               qint64 nowMs)
{
    Catalogue::Catalogue cat
            = options.catalogue ? *options.catalogue : Catalogue::Catalogue::builtIn();
    std::unique_ptr<NvmlBackend> b(new NvmlBackend(options, std::move(cat)));
    NvmlOpenResult r;
    if (!b->initialise(&r, nowMs)) {
        if (result)
            *result = r;
        return nullptr;
    }
    if (result)
        *result = r;
    return b;
}

QString NvmlBackend::errorText(int code) const
{
    const Nvml::Functions &fn = m_lib.fn();
    if (fn.errorString) {
        if (const char *s = fn.errorString(code))
            return QString::fromUtf8(s);
    }
    return QStringLiteral("NVML error %1").arg(code);
}

bool NvmlBackend::initialise(NvmlOpenResult *result, qint64 nowMs)
{
    m_nowMs = nowMs;
    QString why;
    if (!m_lib.load(Nvml::Library::resolvePath(m_options.libraryPath), &why)) {
        // A library that is there but unusable is as good as none for the console.
        *result = {NvmlOpenStatus::NoDriver, why};
        return false;
    }
    const Nvml::Functions &fn = m_lib.fn();
    const int rc = fn.init();
    if (rc != Nvml::kSuccess) {
        const NvmlStatus st = classifyReturn(rc);
        const bool noDriver = st == NvmlStatus::DriverNotLoaded;
        *result = {noDriver ? NvmlOpenStatus::NoDriver : NvmlOpenStatus::InitFailed,
                   noDriver ? QStringLiteral("no NVIDIA driver found (NVML: %1)").arg(errorText(rc))
                            : QStringLiteral("NVML did not initialise: %1 (%2)")
                                      .arg(errorText(rc), QLatin1String(toString(st)))};
        return false;
    }
    m_initialised = true;
    if (fn.systemGetDriverVersion) {
        char buf[96] = {};
        if (fn.systemGetDriverVersion(buf, sizeof buf) == Nvml::kSuccess)
            m_driverVersion = fromCString(buf, sizeof buf);
    }
    unsigned int count = 0;
    const int crc = fn.deviceGetCount(&count);
    if (crc != Nvml::kSuccess) {
        *result = {NvmlOpenStatus::InitFailed,
                   QStringLiteral("NVML cannot count the cards: %1").arg(errorText(crc))};
        return false;
    }
    for (unsigned int i = 0; i < count; ++i) {
        nvmlDevice_t dev = nullptr;
        if (fn.deviceGetHandleByIndex(i, &dev) != Nvml::kSuccess)
            dev = nullptr; // kept as a lost card so indexes stay NVML's
        m_devices.push_back(dev);
        NvmlCardReport rep;
        rep.id = CardId(int(i));
        rep.index = int(i);
        m_reports << rep;
        m_readings << NvmlReading{};
        m_lastSampleUs.push_back(0);
    }
    if (fn.eventSetCreate && fn.deviceRegisterEvents && fn.eventSetWait
        && fn.eventSetCreate(&m_events) == Nvml::kSuccess) {
        for (nvmlDevice_t dev : m_devices) {
            // Not every card delivers Xid events (NOT_SUPPORTED): those are only polled.
            if (dev)
                fn.deviceRegisterEvents(dev, Nvml::kEventXidCritical, m_events);
        }
    } else {
        m_events = nullptr;
    }
    for (int i = 0; i < m_reports.size(); ++i) {
        readCard(i);
        readMig(i);
        readMetrics(i, nowMs);
    }
    m_faults.clear(); // what is already wrong at start is state, not news
    m_lastPollMs = nowMs;
    m_lastLayoutMs = nowMs;
    checkAccess();
    *result = {NvmlOpenStatus::Ok,
               QStringLiteral("NVML %1: %2 card(s)")
                       .arg(m_driverVersion.isEmpty() ? QStringLiteral("(driver version unknown)")
                                                      : m_driverVersion)
                       .arg(m_reports.size())};
    return true;
}

void NvmlBackend::checkAccess()
{
    if (!m_options.applyEnabled) {
        m_access = NvmlAccess::ReadOnlyBySetting;
        m_accessMessage = QStringLiteral("Applying changes is not enabled: read-only.");
        return;
    }
    if (!m_lib.fn().canChangeMig()) {
        m_access = NvmlAccess::NotSupported;
        m_accessMessage = QStringLiteral(
                "The NVIDIA library lacks the MIG management functions: read-only.");
        return;
    }
    if (m_options.checkPrivileges && ::geteuid() != 0) {
        bool capable = false;
        QFile proc(QStringLiteral("/proc/driver/nvidia/capabilities/mig/config"));
        if (proc.open(QIODevice::ReadOnly)) {
            const int minor = parseCapabilityMinor(proc.readAll());
            if (minor >= 0) {
                const QByteArray dev = "/dev/nvidia-caps/nvidia-cap" + QByteArray::number(minor);
                capable = ::access(dev.constData(), R_OK) == 0;
            }
        }
        if (!capable) {
            m_access = NvmlAccess::NoPrivileges;
            m_accessMessage = QStringLiteral(
                    "This process may not change MIG (it needs root or the MIG config capability): "
                    "read-only.");
            return;
        }
    }
    m_access = NvmlAccess::Writable;
    m_accessMessage = QStringLiteral("Applying changes is enabled.");
}

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

void NvmlBackend::poll(qint64 nowMs)
{
    m_nowMs = std::max(m_nowMs, nowMs);
    if (m_lastPollMs < 0 || nowMs - m_lastPollMs >= m_options.pollIntervalMs) {
        m_lastPollMs = nowMs;
        drainEvents(nowMs);
        for (int i = 0; i < m_reports.size(); ++i)
            readMetrics(i, nowMs);
    }
    if (m_lastLayoutMs < 0 || nowMs - m_lastLayoutMs >= m_options.layoutRefreshMs) {
        m_lastLayoutMs = nowMs;
        refreshLayouts();
    }
}

void NvmlBackend::refreshLayouts()
{
    for (int i = 0; i < m_reports.size(); ++i)
        readMig(i);
}

QList<HostInfo> NvmlBackend::hosts() const
{
    return {HostInfo{HostId(0), QSysInfo::machineHostName(), 0, int(m_reports.size())}};
}

QList<CardInfo> NvmlBackend::cards() const
{
    QList<CardInfo> out;
    for (const NvmlCardReport &r : m_reports)
        out << CardInfo{r.id, HostId(0), r.model, 0, r.uuid};
    return out;
}

CardLayout NvmlBackend::layout(CardId card) const
{
    if (card.value() < 0 || card.value() >= m_reports.size())
        return {};
    return m_reports[card.value()].layout;
}

NvmlReading NvmlBackend::reading(CardId card) const
{
    if (card.value() < 0 || card.value() >= m_readings.size())
        return {};
    return m_readings[card.value()];
}

QList<ProcessUse> NvmlBackend::processes(int nvmlIndex) const
{
    if (nvmlIndex < 0 || nvmlIndex >= m_readings.size())
        return {};
    return m_readings[nvmlIndex].processes;
}

CardMetrics NvmlBackend::metrics(CardId card) const
{
    CardMetrics m;
    if (card.value() < 0 || card.value() >= m_readings.size())
        return m;
    const NvmlReading &r = m_readings[card.value()];
    m.atMs = r.atMs;
    m.utilisation = r.utilisation ? *r.utilisation : std::numeric_limits<double>::quiet_NaN();
    m.memoryUsedMiB = r.memoryUsedMiB.value_or(0);
    m.temperatureC = r.temperatureC.value_or(0);
    m.powerW = r.powerW.value_or(0);
    m.lost = r.lost;
    return m;
}

CardId NvmlBackend::cardByUuid(const QString &uuid) const
{
    for (const NvmlCardReport &r : m_reports) {
        if (!uuid.isEmpty() && r.uuid.compare(uuid, Qt::CaseInsensitive) == 0)
            return r.id;
    }
    return CardId();
}

quint64 NvmlBackend::apply(const QList<DeviceStep> &steps, qint64 nowMs)
{
    const quint64 order = m_nextOrder++;
    m_nowMs = std::max(m_nowMs, nowMs);
    m_pending << Pending{order, steps, nowMs};
    return order;
}

void NvmlBackend::advance(qint64 nowMs)
{
    m_nowMs = std::max(m_nowMs, nowMs);
    while (!m_pending.isEmpty()) {
        const Pending p = m_pending.takeFirst();
        runOrder(p.order, p.steps, nowMs);
    }
    poll(nowMs);
}

qint64 NvmlBackend::nextEventMs() const
{
    if (!m_pending.isEmpty())
        return m_nowMs;
    return std::min(m_lastPollMs + m_options.pollIntervalMs,
                    m_lastLayoutMs + m_options.layoutRefreshMs);
}

QList<StepResult> NvmlBackend::takeResults()
{
    QList<StepResult> r;
    r.swap(m_results);
    return r;
}

QList<DeviceFault> NvmlBackend::takeFaults()
{
    QList<DeviceFault> f;
    f.swap(m_faults);
    return f;
}

QList<NvmlStepReport> NvmlBackend::takeStepReports()
{
    QList<NvmlStepReport> r;
    r.swap(m_stepReports);
    return r;
}

void NvmlBackend::runOrder(quint64 order, const QList<DeviceStep> &steps, qint64 nowMs)
{
    // Cards in the order they first appear; each card's steps in the order given.
    QList<int> cardOrder;
    for (const DeviceStep &s : steps) {
        if (!cardOrder.contains(s.card.value()))
            cardOrder << s.card.value();
    }
    QList<NvmlStepReport> reports(steps.size());
    for (int c : cardOrder) {
        const bool known = c >= 0 && c < m_reports.size();
        if (known)
            readMig(c); // decide on what is on the card now, not on the last poll
        bool stopped = false;
        DeviceError stopError = DeviceError::None;
        QString stopWhy;
        for (int k = 0; k < steps.size(); ++k) {
            const DeviceStep &s = steps[k];
            if (s.card.value() != c)
                continue;
            NvmlStepReport &rep = reports[k];
            rep.result = StepResult{order, k, s, DeviceError::None, nowMs, nowMs};
            auto refuse = [&](NvmlStatus st, const QString &why) {
                rep.state = NvmlStepState::Refused;
                rep.status = st;
                rep.message = why;
                rep.result.error = toDeviceError(st);
            };
            if (stopped) {
                rep.state = NvmlStepState::Skipped;
                rep.status = NvmlStatus::Ok;
                rep.message = QStringLiteral("not attempted: %1").arg(stopWhy);
                rep.result.error = stopError;
                continue;
            }
            if (!known) {
                refuse(NvmlStatus::NotFound, QStringLiteral("no card %1").arg(c));
                continue;
            }
            if (m_access != NvmlAccess::Writable) {
                refuse(m_access == NvmlAccess::NoPrivileges   ? NvmlStatus::NoPermission
                       : m_access == NvmlAccess::NotSupported ? NvmlStatus::NotSupported
                                                              : NvmlStatus::ReadOnly,
                       m_accessMessage);
                continue;
            }
            const NvmlCardReport &card = m_reports[c];
            if (card.layout.lost || card.readStatus == NvmlStatus::GpuLost) {
                refuse(NvmlStatus::GpuLost, QStringLiteral("the card does not answer"));
                continue;
            }
            const PartitionMode now
                    = card.migCurrent.value_or(false) ? PartitionMode::Mig : PartitionMode::Whole;
            if (s.kind == DeviceStep::Kind::SetMode) {
                if (s.mode == now) {
                    rep.state = NvmlStepState::Done;
                    rep.message = QStringLiteral("already in %1 mode").arg(Domain::toString(now));
                } else {
                    refuse(NvmlStatus::NotSupported,
                           QStringLiteral("changing to %1 mode needs a MIG mode change and a GPU "
                                          "reset, which Zhaoxi does not do on real cards")
                                   .arg(Domain::toString(s.mode)));
                }
                continue;
            }
            if (card.model < 0) {
                refuse(NvmlStatus::NotSupported,
                       QStringLiteral("the card (%1) is not in the catalogue").arg(card.name));
                continue;
            }
            const Domain::CardModel &model = m_catalogue.models()[card.model];
            if (s.profile < 0 || s.profile >= model.migProfiles.size()) {
                refuse(NvmlStatus::InvalidArgument,
                       QStringLiteral("%1 has no profile #%2").arg(model.name).arg(s.profile));
                continue;
            }
            if (!card.migCurrent.value_or(false)) {
                refuse(NvmlStatus::NotSupported,
                       card.migPending.value_or(false)
                               ? QStringLiteral("MIG mode is pending a GPU reset on this card")
                               : QStringLiteral("MIG mode is off on this card"));
                continue;
            }
            const Domain::MigProfile &profile = model.migProfiles[s.profile];
            QString msg;
            const NvmlStatus st = s.kind == DeviceStep::Kind::DestroyInstance
                                          ? doDestroy(c, profile, s.start, &msg)
                                          : doCreate(c, profile, s.start, &msg);
            rep.status = st;
            rep.message = msg;
            rep.result.error = toDeviceError(st);
            if (st == NvmlStatus::Ok) {
                rep.state = NvmlStepState::Done;
                continue;
            }
            rep.state = NvmlStepState::Failed;
            stopped = true;
            stopError = rep.result.error;
            stopWhy = QStringLiteral("step %1 failed (%2)").arg(k).arg(QLatin1String(toString(st)));
            if (st == NvmlStatus::NoPermission) {
                m_access = NvmlAccess::NoPrivileges;
                m_accessMessage = QStringLiteral(
                        "The driver refused a MIG change for lack of permission: read-only.");
            }
        }
        if (known)
            readMig(c); // the truth after the order, failed or not
    }
    for (const NvmlStepReport &r : reports) {
        m_results << r.result;
        m_stepReports << r;
    }
}

NvmlStatus NvmlBackend::destroyGpuInstance(nvmlGpuInstance_t gi, QString *message)
{
    const Nvml::Functions &fn = m_lib.fn();
    // Compute instances first: the driver refuses to destroy a GPU instance that still has any.
    for (unsigned int idx = 0; idx < Nvml::kComputeInstanceProfileIndexCount; ++idx) {
        nvmlComputeInstanceProfileInfo_t info = {};
        if (fn.gpuInstanceGetComputeInstanceProfileInfo(
                    gi, idx, Nvml::kComputeInstanceEngineProfileShared, &info)
            != Nvml::kSuccess)
            continue;
        nvmlComputeInstance_t cis[kMaxComputeInstances] = {};
        unsigned int n = kMaxComputeInstances;
        if (fn.gpuInstanceGetComputeInstances(gi, info.id, cis, &n) != Nvml::kSuccess)
            continue;
        for (unsigned int k = 0; k < n && k < unsigned(kMaxComputeInstances); ++k) {
            const int rc = fn.computeInstanceDestroy(cis[k]);
            if (rc != Nvml::kSuccess) {
                *message = QStringLiteral("destroying a compute instance: %1").arg(errorText(rc));
                return classifyReturn(rc);
            }
        }
    }
    const int rc = fn.gpuInstanceDestroy(gi);
    if (rc != Nvml::kSuccess) {
        *message = QStringLiteral("destroying the GPU instance: %1").arg(errorText(rc));
        return classifyReturn(rc);
    }
    return NvmlStatus::Ok;
}

NvmlStatus NvmlBackend::doDestroy(int c,
                                  const Domain::MigProfile &profile,
                                  int start,
                                  QString *message)
{
    const Nvml::Functions &fn = m_lib.fn();
    nvmlDevice_t dev = m_devices[size_t(c)];
    nvmlGpuInstance_t gis[kMaxInstancesPerProfile] = {};
    unsigned int n = kMaxInstancesPerProfile;
    const int rc = fn.deviceGetGpuInstances(dev, unsigned(profile.profileId), gis, &n);
    if (rc != Nvml::kSuccess) {
        *message = QStringLiteral("listing %1 instances: %2").arg(profile.name, errorText(rc));
        return classifyReturn(rc);
    }
    for (unsigned int k = 0; k < n && k < unsigned(kMaxInstancesPerProfile); ++k) {
        nvmlGpuInstanceInfo_t info = {};
        if (fn.gpuInstanceGetInfo(gis[k], &info) != Nvml::kSuccess)
            continue;
        if (int(info.placement.start) != start)
            continue;
        const NvmlStatus st = destroyGpuInstance(gis[k], message);
        if (st == NvmlStatus::Ok)
            *message = QStringLiteral("destroyed %1@%2").arg(profile.name).arg(start);
        return st;
    }
    *message = QStringLiteral("no %1 instance at slot %2").arg(profile.name).arg(start);
    return NvmlStatus::NotFound;
}

NvmlStatus NvmlBackend::doCreate(int c,
                                 const Domain::MigProfile &profile,
                                 int start,
                                 QString *message)
{
    const Nvml::Functions &fn = m_lib.fn();
    nvmlDevice_t dev = m_devices[size_t(c)];
    int span = profile.span > 0 ? profile.span : profile.memorySlices;
    for (const DriverProfile &d : m_reports[c].driverProfiles) {
        if (d.profileId == profile.profileId && d.span > 0)
            span = d.span; // the driver's word on the placement size
    }
    const nvmlGpuInstancePlacement_t placement{unsigned(start), unsigned(span)};
    nvmlGpuInstance_t gi = nullptr;
    int rc = fn.deviceCreateGpuInstanceWithPlacement(
            dev, unsigned(profile.profileId), &placement, &gi);
    if (rc != Nvml::kSuccess) {
        *message = QStringLiteral("creating %1@%2: %3")
                           .arg(profile.name)
                           .arg(start)
                           .arg(errorText(rc));
        return classifyReturn(rc);
    }
    const int ciIndex = computeInstanceProfileIndex(profile.computeSlices);
    nvmlComputeInstanceProfileInfo_t ci = {};
    rc = ciIndex < 0 ? Nvml::kErrorNotSupported
                     : fn.gpuInstanceGetComputeInstanceProfileInfo(
                             gi, unsigned(ciIndex), Nvml::kComputeInstanceEngineProfileShared, &ci);
    nvmlComputeInstance_t cih = nullptr;
    if (rc == Nvml::kSuccess)
        rc = fn.gpuInstanceCreateComputeInstance(gi, ci.id, &cih);
    if (rc != Nvml::kSuccess) {
        // A GPU instance without a compute instance serves nobody: take it away again so the
        // step is all or nothing. The re-read after the order shows what is there either way.
        QString undo;
        const NvmlStatus undone = destroyGpuInstance(gi, &undo);
        *message
                = QStringLiteral("creating the compute instance of %1@%2: %3%4")
                          .arg(profile.name)
                          .arg(start)
                          .arg(errorText(rc),
                               undone == NvmlStatus::Ok
                                       ? QStringLiteral(" (GPU instance removed again)")
                                       : QStringLiteral(" (the GPU instance stays: %1)").arg(undo));
        return classifyReturn(rc);
    }
    *message = QStringLiteral("created %1@%2").arg(profile.name).arg(start);
    return NvmlStatus::Ok;
}

} // namespace Zhaoxi::Device
