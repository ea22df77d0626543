// SPDX-License-Identifier: GPL-3.0-or-later
#include "fleetjson.h"

#include <QJsonArray>

namespace Zhaoxi::Fleet {

namespace {

QJsonArray strings(const QStringList &list)
{
    return QJsonArray::fromStringList(list);
}

QString gresText(const QList<Gres> &list)
{
    QStringList parts;
    for (const Gres &g : list) {
        QString s = g.toString();
        if (!g.indices.isEmpty()) {
            QStringList idx;
            for (int i : g.indices)
                idx << QString::number(i);
            s += QStringLiteral("(IDX:") + idx.join(QLatin1Char(',')) + QLatin1Char(')');
        }
        parts << s;
    }
    return parts.join(QLatin1Char(','));
}

QJsonValue jobValue(qint64 id)
{
    return id > 0 ? QJsonValue(id) : QJsonValue(QJsonValue::Null);
}

QJsonObject cardJson(const FleetState &fleet, const Sched::CardState &c, const FleetCard &fc)
{
    const Sched::ClusterState &s = fleet.state;
    QJsonObject o{{QStringLiteral("index"), c.indexOnHost},
                  {QStringLiteral("model"), s.model(c).name},
                  {QStringLiteral("mode"), Domain::toString(c.mode)}};
    if (!fc.gpuType.isEmpty())
        o.insert(QStringLiteral("gpuType"), fc.gpuType);
    QJsonArray parts;
    for (const Sched::Unit &u : c.units) {
        QJsonObject p;
        if (u.profile >= 0) {
            p.insert(QStringLiteral("profile"), s.model(c).migProfiles[u.profile].name);
            p.insert(QStringLiteral("start"), u.start);
            p.insert(QStringLiteral("gresIndex"), fleet.gresIndexOf(c.id, u.uid));
        } else if (c.mode == Domain::PartitionMode::Whole) {
            p.insert(QStringLiteral("whole"), true);
            p.insert(QStringLiteral("gresIndex"), fleet.gresIndexOf(c.id, u.uid));
        } else {
            const bool mps = c.mode == Domain::PartitionMode::Mps;
            const int per = mps ? fc.mpsPerCard : fc.shardsPerCard;
            const int n = per > 0 ? (u.milli * per + 999) / 1000 : 0;
            p.insert(QStringLiteral("share"),
                     QString((mps ? QStringLiteral("mps:") : QStringLiteral("shard:"))
                             + QString::number(n)));
            p.insert(QStringLiteral("milli"), u.milli);
        }
        p.insert(QStringLiteral("job"), jobValue(fleet.slurmJobOn(c.id, u.uid)));
        parts.append(p);
    }
    o.insert(QStringLiteral("partitions"), parts);
    if (c.mode == Domain::PartitionMode::Mps || c.mode == Domain::PartitionMode::TimeSlicing) {
        const bool mps = c.mode == Domain::PartitionMode::Mps;
        o.insert(QStringLiteral("capacity"),
                 QString((mps ? QStringLiteral("mps:") : QStringLiteral("shard:"))
                         + QString::number(mps ? fc.mpsPerCard : fc.shardsPerCard)));
        o.insert(QStringLiteral("freeMilli"), 1000 - c.usedMilli);
    }
    return o;
}

} // namespace

QJsonObject fleetToJson(const FleetState &fleet)
{
    const Sched::ClusterState &s = fleet.state;
    QJsonArray nodes;
    for (qsizetype i = 0; i < fleet.snapshot.nodes.size(); ++i) {
        const FleetNode &n = fleet.snapshot.nodes[i];
        const NodeMap &nm = fleet.nodes[i];
        const Sched::HostState &h = s.host(nm.host);
        QJsonObject o{{QStringLiteral("name"), n.name},
                      {QStringLiteral("state"), n.state},
                      {QStringLiteral("up"), h.up},
                      {QStringLiteral("stateFlags"), strings(n.stateFlags)},
                      {QStringLiteral("reason"), n.reason},
                      {QStringLiteral("cpus"), n.cpus},
                      {QStringLiteral("allocCpus"), n.allocCpus},
                      {QStringLiteral("memoryMiB"), n.realMemoryMiB},
                      {QStringLiteral("allocMemoryMiB"), n.allocMemoryMiB},
                      {QStringLiteral("gres"), gresText(n.gres)},
                      {QStringLiteral("gresUsed"), gresText(n.gresUsed)},
                      {QStringLiteral("partitions"), strings(n.partitions)}};
        if (!nm.problem.isEmpty())
            o.insert(QStringLiteral("problem"), nm.problem);
        QJsonArray cards;
        for (int k = 0; k < h.cardCount; ++k)
            cards.append(cardJson(fleet, s.cards()[h.firstCard + k], nm.cards[k]));
        o.insert(QStringLiteral("cards"), cards);
        nodes.append(o);
    }
    QJsonArray jobs;
    for (const FleetJob &j : fleet.snapshot.jobs) {
        QStringList allocated;
        for (const QList<Gres> &perNode : j.gresAllocated)
            allocated << gresText(perNode);
        jobs.append(QJsonObject{{QStringLiteral("id"), j.id},
                                {QStringLiteral("name"), j.name},
                                {QStringLiteral("user"), j.user},
                                {QStringLiteral("partition"), j.partition},
                                {QStringLiteral("qos"), j.qos},
                                {QStringLiteral("state"), j.state},
                                {QStringLiteral("reason"), j.reason},
                                {QStringLiteral("nodes"), strings(j.nodes)},
                                {QStringLiteral("gres"), gresText(j.gresRequested)},
                                {QStringLiteral("allocated"), strings(allocated)},
                                {QStringLiteral("cpus"), j.cpus},
                                {QStringLiteral("memoryMiB"), j.memoryMiB},
                                {QStringLiteral("submitTime"), j.submitTime},
                                {QStringLiteral("startTime"), j.startTime},
                                {QStringLiteral("restarts"), j.restarts}});
    }
    QJsonArray partitions;
    for (const FleetPartition &p : fleet.snapshot.partitions) {
        partitions.append(QJsonObject{{QStringLiteral("name"), p.name},
                                      {QStringLiteral("nodes"), strings(p.nodes)},
                                      {QStringLiteral("priorityTier"), p.priorityTier},
                                      {QStringLiteral("preemptMode"), strings(p.preemptMode)},
                                      {QStringLiteral("state"), p.state},
                                      {QStringLiteral("default"), p.isDefault}});
    }
    QJsonArray reservations;
    for (const FleetReservation &r : fleet.snapshot.reservations) {
        reservations.append(QJsonObject{{QStringLiteral("name"), r.name},
                                        {QStringLiteral("nodes"), strings(r.nodes)},
                                        {QStringLiteral("startTime"), r.startTime},
                                        {QStringLiteral("endTime"), r.endTime},
                                        {QStringLiteral("flags"), strings(r.flags)},
                                        {QStringLiteral("partition"), r.partition},
                                        {QStringLiteral("users"), r.users}});
    }
    QJsonArray qos;
    for (const FleetQos &q : fleet.snapshot.qos) {
        qos.append(QJsonObject{{QStringLiteral("name"), q.name},
                               {QStringLiteral("priority"), q.priority},
                               {QStringLiteral("preempts"), strings(q.preempts)},
                               {QStringLiteral("preemptMode"), strings(q.preemptMode)},
                               {QStringLiteral("graceTimeS"), q.graceTimeS},
                               {QStringLiteral("groupTres"), strings(q.groupTres)}});
    }
    QJsonObject out{{QStringLiteral("nodes"), nodes},
                    {QStringLiteral("jobs"), jobs},
                    {QStringLiteral("partitions"), partitions},
                    {QStringLiteral("reservations"), reservations},
                    {QStringLiteral("qos"), qos},
                    {QStringLiteral("warnings"), strings(fleet.warnings)}};
    if (!fleet.snapshot.qosProblem.isEmpty())
        out.insert(QStringLiteral("qosProblem"), fleet.snapshot.qosProblem);
    return out;
}

} // namespace Zhaoxi::Fleet
