// SPDX-License-Identifier: GPL-3.0-or-later
// NvmlBackend's orders: the steps of an order carried out card by card, each GPU instance
// destroyed with its compute instances or created at its placement, a failure reported with
// what the card really holds.
#include "nvmlbackend_p.h"

namespace Zhaoxi::Device {

using namespace NvmlDetail;

namespace {

constexpr int kMaxComputeInstances = 8;

} // namespace

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
