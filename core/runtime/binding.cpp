// SPDX-License-Identifier: GPL-3.0-or-later
#include "binding.h"

#include <cmath>

namespace Zhaoxi::Runtime {

using Domain::PartitionMode;

namespace {

QString unitName(const Sched::Assignment &a)
{
    return QStringLiteral("card%1/%2").arg(a.card.value()).arg(a.unitUid);
}

struct Resolved
{
    Sched::Assignment assignment;
    QString device; // GPU-... or MIG-...
    bool mig = false;
    bool mps = false;
    int milli = 1000;
    qint64 memoryMiB = 0;
};

} // namespace

std::optional<QList<ProcessBinding>> bindJob(const Sched::ClusterState &state,
                                             Domain::JobId job,
                                             const UnitIds &ids,
                                             int masterPort,
                                             QString *error)
{
    auto fail = [&](const QString &why) -> std::optional<QList<ProcessBinding>> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    if (!job.isValid() || job.value() >= state.jobs().size())
        return fail(QStringLiteral("no such job %1").arg(job.value()));
    const Sched::Job &j = state.job(job);
    const QString name = j.spec.name;

    if (j.spec.demand.cards == 0) {
        ProcessBinding b;
        b.env.insert(QStringLiteral("CUDA_VISIBLE_DEVICES"), QString());
        b.env.insert(QStringLiteral("NVIDIA_VISIBLE_DEVICES"), QStringLiteral("void"));
        b.env.insert(QStringLiteral("ZHAOXI_JOB"), name);
        b.env.insert(QStringLiteral("ZHAOXI_UNIT"), QString());
        return QList<ProcessBinding>{b};
    }
    if (j.assignments.isEmpty())
        return fail(QStringLiteral("job %1 holds no units").arg(name));

    QList<Resolved> units;
    for (const Sched::Assignment &a : j.assignments) {
        const Sched::CardState &card = state.card(a.card);
        const Sched::Unit *u = card.unit(a.unitUid);
        if (!u)
            return fail(QStringLiteral("job %1: card %2 has no unit %3")
                                .arg(name)
                                .arg(a.card.value())
                                .arg(a.unitUid));
        Resolved r;
        r.assignment = a;
        r.milli = u->milli;
        r.memoryMiB = u->memoryMiB;
        const QString gpu = ids.cardUuid ? ids.cardUuid(a.card) : QString();
        if (card.mode == PartitionMode::Mig && u->profile >= 0) {
            r.mig = true;
            r.device
                    = ids.instanceUuid ? ids.instanceUuid(a.card, u->profile, u->start) : QString();
            if (r.device.isEmpty())
                return fail(QStringLiteral("job %1: the MIG instance %2 at slot %3 of card %4 "
                                           "has no UUID yet")
                                    .arg(name, state.model(card).migProfiles.value(u->profile).name)
                                    .arg(u->start)
                                    .arg(a.card.value()));
        } else {
            r.mps = card.mode == PartitionMode::Mps;
            r.device = gpu;
            if (r.device.isEmpty())
                return fail(QStringLiteral("job %1: card %2 has no UUID")
                                    .arg(name)
                                    .arg(a.card.value()));
        }
        units.append(r);
    }

    auto common = [&](ProcessBinding &b, const QStringList &devices) {
        b.visibleDevices = devices.join(QLatin1Char(','));
        b.env.insert(QStringLiteral("CUDA_VISIBLE_DEVICES"), b.visibleDevices);
        b.env.insert(QStringLiteral("NVIDIA_VISIBLE_DEVICES"), b.visibleDevices);
        b.env.insert(QStringLiteral("ZHAOXI_JOB"), name);
        QStringList names;
        for (const Sched::Assignment &a : std::as_const(b.units))
            names << unitName(a);
        b.env.insert(QStringLiteral("ZHAOXI_UNIT"), names.join(QLatin1Char(',')));
    };

    bool anyMig = false;
    for (const Resolved &r : std::as_const(units))
        anyMig = anyMig || r.mig;

    QList<ProcessBinding> out;
    if (anyMig && units.size() > 1) {
        // A CUDA process sees one MIG instance: one process per unit, told its place in the gang.
        for (int rank = 0; rank < units.size(); ++rank) {
            ProcessBinding b;
            b.rank = rank;
            b.units = {units[rank].assignment};
            common(b, {units[rank].device});
            b.env.insert(QStringLiteral("ZHAOXI_RANK"), QString::number(rank));
            b.env.insert(QStringLiteral("ZHAOXI_WORLD_SIZE"), QString::number(units.size()));
            b.env.insert(QStringLiteral("ZHAOXI_MASTER_ADDR"), QStringLiteral("127.0.0.1"));
            b.env.insert(QStringLiteral("ZHAOXI_MASTER_PORT"), QString::number(masterPort));
            out.append(b);
        }
        return out;
    }

    ProcessBinding b;
    QStringList devices;
    for (const Resolved &r : std::as_const(units)) {
        b.units.append(r.assignment);
        devices << r.device;
    }
    common(b, devices);
    if (units.size() == 1 && units.first().mps) {
        const Resolved &r = units.first();
        const MpsDirs dirs = ids.mpsDirs ? ids.mpsDirs(r.assignment.card) : MpsDirs{};
        if (dirs.pipe.isEmpty())
            return fail(QStringLiteral("job %1: card %2 is in MPS mode but its MPS daemon has no "
                                       "pipe directory")
                                .arg(name)
                                .arg(r.assignment.card.value()));
        b.env.insert(QStringLiteral("CUDA_MPS_PIPE_DIRECTORY"), dirs.pipe);
        b.env.insert(QStringLiteral("CUDA_MPS_LOG_DIRECTORY"), dirs.log);
        const int percent = std::max(1, int(std::ceil(r.milli / 10.0)));
        b.env.insert(QStringLiteral("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"),
                     QString::number(std::min(100, percent)));
        if (r.memoryMiB > 0)
            b.env.insert(QStringLiteral("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"),
                         QStringLiteral("0=%1M").arg(r.memoryMiB));
    }
    out.append(b);
    return out;
}

} // namespace Zhaoxi::Runtime
