// SPDX-License-Identifier: GPL-3.0-or-later
#include "nvmlapply.h"

#include "nvmlbackend.h"

#include "core/catalogue/layoutrules.h"

#include <QThread>

#include <unistd.h>

#include <algorithm>

namespace Zhaoxi::Device {

using Domain::MigPlacement;

QString formatLayout(const Catalogue::Catalogue &catalogue,
                     int model,
                     const QList<InstanceInfo> &instances,
                     const QString &separator)
{
    if (model < 0 || model >= catalogue.models().size())
        return QStringLiteral("(model not in the catalogue)");
    QStringList parts;
    for (const InstanceInfo &i : instances)
        parts << Catalogue::formatPlacement(catalogue.models()[model],
                                            MigPlacement{i.profile, i.start});
    return parts.isEmpty() ? QStringLiteral("(no instances)") : parts.join(separator);
}

QString describeStep(const Catalogue::Catalogue &catalogue, int model, const DeviceStep &step)
{
    if (step.kind == DeviceStep::Kind::SetMode)
        return QStringLiteral("set mode %1").arg(Domain::toString(step.mode));
    const QString placement
            = model >= 0 && model < catalogue.models().size()
                      ? Catalogue::formatPlacement(catalogue.models()[model],
                                                   MigPlacement{step.profile, step.start})
                      : QStringLiteral("#%1@%2").arg(step.profile).arg(step.start);
    return (step.kind == DeviceStep::Kind::DestroyInstance ? QStringLiteral("destroy ")
                                                           : QStringLiteral("create "))
           + placement;
}

QList<DeviceStep> layoutSteps(const Domain::CardModel &model,
                              CardId card,
                              const QList<InstanceInfo> &current,
                              const QList<MigPlacement> &target)
{
    QList<MigPlacement> create = target;
    QList<MigPlacement> destroy;
    for (const InstanceInfo &i : current) {
        const MigPlacement p{i.profile, i.start};
        if (create.contains(p))
            create.removeOne(p);
        else
            destroy << p;
    }
    std::sort(destroy.begin(), destroy.end(), [](const MigPlacement &a, const MigPlacement &b) {
        return a.start < b.start;
    });
    // Larger instances first: with fixed placements, the order the driver accepts (as
    // Sched::planRepartition and Scheduler::applyLayout order them).
    std::sort(create.begin(), create.end(), [&](const MigPlacement &a, const MigPlacement &b) {
        const int sa = a.profile >= 0 && a.profile < model.migProfiles.size()
                               ? model.migProfiles[a.profile].span
                               : 0;
        const int sb = b.profile >= 0 && b.profile < model.migProfiles.size()
                               ? model.migProfiles[b.profile].span
                               : 0;
        if (sa != sb)
            return sa > sb;
        return a.start < b.start;
    });
    QList<DeviceStep> steps;
    for (const MigPlacement &p : std::as_const(destroy))
        steps << DeviceStep{DeviceStep::Kind::DestroyInstance, card, p.profile, p.start, {}};
    for (const MigPlacement &p : std::as_const(create))
        steps << DeviceStep{DeviceStep::Kind::CreateInstance, card, p.profile, p.start, {}};
    return steps;
}

NvmlApplyOutcome applyNow(NvmlBackend &backend, const QList<DeviceStep> &steps, qint64 nowMs)
{
    NvmlApplyOutcome out;
    backend.apply(steps, nowMs);
    backend.advance(nowMs);
    backend.takeResults();
    out.reports = backend.takeStepReports();
    for (const NvmlStepReport &r : std::as_const(out.reports)) {
        const CardId card = r.result.step.card;
        if (!out.cards.contains(card))
            out.cards << card;
        if (r.state == NvmlStepState::Done)
            ++out.done;
        else
            out.allDone = false;
    }
    return out;
}

} // namespace Zhaoxi::Device

namespace Zhaoxi::Device {

Sched::ClusterState clusterStateOf(const NvmlBackend &backend, QList<int> *nvmlIndex)
{
    const Catalogue::Catalogue &cat = backend.catalogue();
    Sched::ClusterState st(cat);
    const QList<HostInfo> hosts = backend.hosts();
    const QString hostName = hosts.isEmpty() ? QStringLiteral("localhost") : hosts.first().name;
    // This machine's CPUs and memory, which real jobs' host demands come out of.
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long pageSize = ::sysconf(_SC_PAGESIZE);
    const qint64 memoryMiB
            = pages > 0 && pageSize > 0 ? qint64(pages) * qint64(pageSize) / (1024 * 1024) : 0;
    const Domain::HostId host
            = st.addHost(hostName, qint64(QThread::idealThreadCount()) * 1000, memoryMiB);
    if (nvmlIndex)
        nvmlIndex->clear();
    for (const NvmlCardReport &rep : backend.cardReports()) {
        if (rep.model < 0)
            continue; // not in the catalogue: left out
        if (nvmlIndex)
            nvmlIndex->append(rep.index);
        const Domain::CardModel &model = cat.models()[rep.model];
        const Domain::PartitionMode mode
                = rep.layout.mode == Domain::PartitionMode::Mig && model.supportsMig()
                          ? Domain::PartitionMode::Mig
                          : Domain::PartitionMode::Whole;
        const CardId c = st.addCard(host, rep.model, mode);
        if (mode == Domain::PartitionMode::Mig) {
            for (const InstanceInfo &i : rep.layout.instances)
                st.createPartition(c, i.profile, i.start);
        }
        if (rep.layout.lost || rep.readStatus == NvmlStatus::GpuLost)
            st.setCardHealth(c, Sched::CardHealth::Failed);
    }
    return st;
}

} // namespace Zhaoxi::Device
