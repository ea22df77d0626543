// SPDX-License-Identifier: GPL-3.0-or-later
#include "nvmlparse.h"

#include "nvmlapi.h"

#include <algorithm>

namespace Zhaoxi::Device {

const char *toString(NvmlStatus status)
{
    switch (status) {
    case NvmlStatus::Ok:
        return "ok";
    case NvmlStatus::NotSupported:
        return "not-supported";
    case NvmlStatus::NoPermission:
        return "no-permission";
    case NvmlStatus::InUse:
        return "in-use";
    case NvmlStatus::NotFound:
        return "not-found";
    case NvmlStatus::InsufficientResources:
        return "insufficient-resources";
    case NvmlStatus::InvalidArgument:
        return "invalid-argument";
    case NvmlStatus::GpuLost:
        return "gpu-lost";
    case NvmlStatus::ResetRequired:
        return "reset-required";
    case NvmlStatus::DriverNotLoaded:
        return "driver-not-loaded";
    case NvmlStatus::VersionMismatch:
        return "version-mismatch";
    case NvmlStatus::Uninitialized:
        return "uninitialized";
    case NvmlStatus::Timeout:
        return "timeout";
    case NvmlStatus::ReadOnly:
        return "read-only";
    case NvmlStatus::Other:
        return "other";
    }
    return "unknown";
}

NvmlStatus classifyReturn(int code)
{
    switch (code) {
    case Nvml::kSuccess:
        return NvmlStatus::Ok;
    case Nvml::kErrorNotSupported:
    case Nvml::kErrorFunctionNotFound:
        return NvmlStatus::NotSupported;
    case Nvml::kErrorNoPermission:
        return NvmlStatus::NoPermission;
    case Nvml::kErrorInUse:
        return NvmlStatus::InUse;
    case Nvml::kErrorNotFound:
        return NvmlStatus::NotFound;
    case Nvml::kErrorInsufficientResources:
        return NvmlStatus::InsufficientResources;
    case Nvml::kErrorInvalidArgument:
        return NvmlStatus::InvalidArgument;
    case Nvml::kErrorGpuIsLost:
        return NvmlStatus::GpuLost;
    case Nvml::kErrorResetRequired:
        return NvmlStatus::ResetRequired;
    case Nvml::kErrorDriverNotLoaded:
    case Nvml::kErrorLibraryNotFound:
        return NvmlStatus::DriverNotLoaded;
    case Nvml::kErrorLibRmVersionMismatch:
        return NvmlStatus::VersionMismatch;
    case Nvml::kErrorUninitialized:
        return NvmlStatus::Uninitialized;
    case Nvml::kErrorTimeout:
        return NvmlStatus::Timeout;
    default:
        return NvmlStatus::Other;
    }
}

DeviceError toDeviceError(NvmlStatus status)
{
    switch (status) {
    case NvmlStatus::Ok:
        return DeviceError::None;
    case NvmlStatus::InUse:
        return DeviceError::InUse;
    case NvmlStatus::NotFound:
        return DeviceError::NotFound;
    case NvmlStatus::InsufficientResources:
        return DeviceError::InsufficientResources;
    case NvmlStatus::InvalidArgument:
        return DeviceError::InvalidPlacement;
    case NvmlStatus::GpuLost:
        return DeviceError::GpuLost;
    default:
        return DeviceError::NotSupported;
    }
}

PciId splitPciDeviceId(quint32 combined)
{
    return PciId{quint16(combined >> 16), quint16(combined & 0xFFFFu)};
}

QString formatPciDeviceId(quint32 combined)
{
    return QStringLiteral("0x")
           + QString::number(combined, 16).toUpper().rightJustified(8, QLatin1Char('0'));
}

QString fromCString(const char *buffer, int size)
{
    const char *end = std::find(buffer, buffer + size, '\0');
    return QString::fromUtf8(buffer, int(end - buffer));
}

QString normalizeProfileName(const QString &driverName)
{
    QString s = driverName.trimmed();
    if (s.startsWith(QLatin1String("MIG "), Qt::CaseInsensitive))
        s = s.mid(4).trimmed();
    return s;
}

int matchModel(const Catalogue::Catalogue &catalogue, quint32 pciDeviceId, const QString &name)
{
    const PciId id = splitPciDeviceId(pciDeviceId);
    const QList<Domain::CardModel> &models = catalogue.models();
    if (id.device != 0) {
        for (int i = 0; i < models.size(); ++i) {
            if (models[i].pciVendorId == id.vendor && models[i].pciDeviceIds.contains(id.device))
                return i;
        }
    }
    const QString trimmed = name.trimmed();
    if (trimmed.isEmpty())
        return -1;
    int i = catalogue.indexOf(trimmed);
    if (i < 0 && trimmed.startsWith(QLatin1String("NVIDIA "), Qt::CaseInsensitive))
        i = catalogue.indexOf(trimmed.mid(7));
    return i;
}

const char *toString(ProfileDifference::Kind kind)
{
    using K = ProfileDifference::Kind;
    switch (kind) {
    case K::MissingInDriver:
        return "missing-in-driver";
    case K::MissingInCatalogue:
        return "missing-in-catalogue";
    case K::Name:
        return "name";
    case K::ComputeSlices:
        return "compute-slices";
    case K::MemorySlices:
        return "memory-slices";
    case K::Memory:
        return "memory";
    case K::MaxInstances:
        return "max-instances";
    case K::Starts:
        return "starts";
    }
    return "unknown";
}

QString describe(const ProfileDifference &d)
{
    using K = ProfileDifference::Kind;
    const QString who = QStringLiteral("%1 (id %2)").arg(d.profile).arg(d.profileId);
    switch (d.kind) {
    case K::MissingInDriver:
        return QStringLiteral("%1: in the catalogue, not offered by the driver").arg(who);
    case K::MissingInCatalogue:
        return QStringLiteral("%1: offered by the driver, not in the catalogue (%2)")
                .arg(who, d.driverValue);
    default:
        return QStringLiteral("%1: %2: catalogue %3, driver %4")
                .arg(who, QLatin1String(toString(d.kind)), d.catalogueValue, d.driverValue);
    }
}

namespace {

QString joinInts(const QList<int> &v)
{
    QStringList parts;
    for (int x : v)
        parts << QString::number(x);
    return QLatin1Char('{') + parts.join(QLatin1Char(',')) + QLatin1Char('}');
}

} // namespace

QList<ProfileDifference> compareProfiles(const Domain::CardModel &model,
                                         const QList<DriverProfile> &driver)
{
    using K = ProfileDifference::Kind;
    QList<int> ids;
    for (const Domain::MigProfile &p : model.migProfiles)
        ids << p.profileId;
    for (const DriverProfile &p : driver) {
        if (!ids.contains(p.profileId))
            ids << p.profileId;
    }
    std::sort(ids.begin(), ids.end());

    QList<ProfileDifference> out;
    for (int id : ids) {
        const auto cat
                = std::find_if(model.migProfiles.cbegin(),
                               model.migProfiles.cend(),
                               [id](const Domain::MigProfile &p) { return p.profileId == id; });
        const auto drv = std::find_if(driver.cbegin(), driver.cend(), [id](const DriverProfile &p) {
            return p.profileId == id;
        });
        if (drv == driver.cend()) {
            out << ProfileDifference{K::MissingInDriver, id, cat->name, cat->name, {}};
            continue;
        }
        if (cat == model.migProfiles.cend()) {
            const QString shape = QStringLiteral("%1 compute slices, %2 MiB, %3 placements")
                                          .arg(drv->computeSlices)
                                          .arg(drv->memoryMiB)
                                          .arg(drv->starts.size());
            out << ProfileDifference{K::MissingInCatalogue,
                                     id,
                                     drv->name.isEmpty() ? QStringLiteral("?") : drv->name,
                                     {},
                                     shape};
            continue;
        }
        auto add = [&](K kind, const QString &c, const QString &d) {
            if (c != d)
                out << ProfileDifference{kind, id, cat->name, c, d};
        };
        if (!drv->name.isEmpty())
            add(K::Name, cat->name, drv->name);
        add(K::ComputeSlices,
            QString::number(cat->computeSlices),
            QString::number(drv->computeSlices));
        if (drv->span > 0)
            add(K::MemorySlices, QString::number(cat->span), QString::number(drv->span));
        add(K::Memory, QString::number(cat->memoryMiB), QString::number(drv->memoryMiB));
        add(K::MaxInstances,
            QString::number(cat->maxInstances),
            QString::number(drv->maxInstances));
        add(K::Starts, joinInts(cat->starts), joinInts(drv->starts));
    }
    return out;
}

QList<InstanceInfo> mapInstances(const Domain::CardModel &model,
                                 const QList<DriverInstance> &driver,
                                 QStringList *problems)
{
    QList<InstanceInfo> out;
    for (const DriverInstance &d : driver) {
        int index = -1;
        for (int i = 0; i < model.migProfiles.size(); ++i) {
            if (model.migProfiles[i].profileId == d.profileId) {
                index = i;
                break;
            }
        }
        if (index < 0) {
            if (problems)
                *problems << QStringLiteral(
                                     "GPU instance %1 has profile id %2, which %3 does not list")
                                     .arg(d.id)
                                     .arg(d.profileId)
                                     .arg(model.name);
            continue;
        }
        InstanceInfo info;
        info.profile = index;
        info.start = d.start;
        info.ready = true;
        info.uuid = d.uuid;
        out << info;
    }
    std::sort(out.begin(), out.end(), [](const InstanceInfo &a, const InstanceInfo &b) {
        return a.start != b.start ? a.start < b.start : a.profile < b.profile;
    });
    return out;
}

int computeInstanceProfileIndex(int computeSlices)
{
    switch (computeSlices) {
    case 1:
        return 0;
    case 2:
        return 1;
    case 3:
        return 2;
    case 4:
        return 3;
    case 7:
        return 4;
    case 8:
        return 5;
    case 6:
        return 6;
    default:
        return -1;
    }
}

double milliwattsToWatts(unsigned int milliwatts)
{
    return double(milliwatts) / 1000.0;
}

qint64 bytesToMiB(unsigned long long bytes)
{
    return qint64(bytes / (1024ull * 1024ull));
}

qint64 processMemoryMiB(unsigned long long usedGpuMemory)
{
    return usedGpuMemory == ~0ull ? -1 : bytesToMiB(usedGpuMemory);
}

std::optional<double> utilisationFrom(NvmlStatus status, unsigned int gpuPercent)
{
    if (status != NvmlStatus::Ok)
        return std::nullopt;
    return std::clamp(double(gpuPercent) / 100.0, 0.0, 1.0);
}

std::optional<FaultKind> faultForXid(unsigned long long xid)
{
    switch (xid) {
    case 79:
        return FaultKind::CardLost;
    case 48:
    case 64:
    case 94:
    case 95:
        return FaultKind::MemoryError;
    default:
        return std::nullopt;
    }
}

int parseCapabilityMinor(const QByteArray &text)
{
    for (const QByteArray &line : text.split('\n')) {
        const int colon = line.indexOf(':');
        if (colon < 0 || line.left(colon).trimmed() != "DeviceFileMinor")
            continue;
        bool ok = false;
        const int minor = line.mid(colon + 1).trimmed().toInt(&ok);
        return ok && minor >= 0 ? minor : -1;
    }
    return -1;
}

} // namespace Zhaoxi::Device
