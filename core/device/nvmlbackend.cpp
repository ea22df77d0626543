// SPDX-License-Identifier: GPL-3.0-or-later
// NvmlBackend: opening the library, the access check, the poll, and the DeviceBackend queries.
// Discovery and sampling are in nvmlbackend_read.cpp, orders in nvmlbackend_apply.cpp.
#include "nvmlbackend_p.h"

#include <QFile>
#include <QSysInfo>

#include <algorithm>
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
} // namespace Zhaoxi::Device
