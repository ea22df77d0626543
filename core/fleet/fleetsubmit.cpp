// SPDX-License-Identifier: GPL-3.0-or-later
#include "fleetsubmit.h"

#include <QRegularExpression>

#include "core/sched/scheduler.h"

#include <QJsonArray>

#include <algorithm>

namespace Zhaoxi::Fleet {

using Sched::UnitChoice;

namespace {

QString quoted(const QString &word)
{
    QString q = word;
    q.replace(QLatin1Char('\''), QLatin1String("'\\''"));
    return QLatin1Char('\'') + q + QLatin1Char('\'');
}

// The GRES the picked units are, as Slurm asks them.
QString gresFor(const FleetState &fleet, const Sched::Placement &placement, QString *error)
{
    const Sched::ClusterState &s = fleet.state;
    QMap<QString, int> counts; // "gpu:1g.18gb" -> N, in a stable order
    QString soft;
    for (const UnitChoice &c : placement.units) {
        const Sched::CardState &card = s.card(c.card);
        const FleetCard *fc = fleet.fleetCard(c.card);
        if (!fc) {
            *error = QStringLiteral("card %1 is not one of the fleet's").arg(c.card.value());
            return {};
        }
        if (c.kind == UnitChoice::Kind::NewShare) {
            const bool mps = card.mode == Domain::PartitionMode::Mps;
            const int per = mps ? fc->mpsPerCard : fc->shardsPerCard;
            if (per <= 0) {
                *error = QStringLiteral("the chosen card has no %1 GRES")
                                 .arg(mps ? QStringLiteral("mps") : QStringLiteral("shard"));
                return {};
            }
            if (c.milli >= 1000 && !fc->gpuType.isEmpty()) {
                counts[QStringLiteral("gpu:") + fc->gpuType] += 1; // the whole card
                continue;
            }
            const int n = std::max(1, (c.milli * per + 999) / 1000);
            soft = (mps ? QStringLiteral("mps:") : QStringLiteral("shard:")) + QString::number(n);
            continue;
        }
        const Sched::Unit *u = card.unit(c.uid);
        const QString type
                = u && u->profile >= 0 ? s.model(card).migProfiles[u->profile].name : fc->gpuType;
        counts[QStringLiteral("gpu:") + type] += 1;
    }
    QStringList parts;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it)
        parts << it.key() + QLatin1Char(':') + QString::number(it.value());
    if (!soft.isEmpty())
        parts << soft;
    return parts.join(QLatin1Char(','));
}

// A gang no one node takes, as equal parts on distinct nodes (planSubmission's comment): true
// with plan->nodes, node, gres and why set.
bool planGangOverNodes(const FleetState &fleet,
                       const Sched::ClusterState &candidates,
                       const Domain::WorkloadSpec &spec,
                       qint64 nowMs,
                       SubmitPlan *plan)
{
    const int cards = spec.demand.cards;
    for (int k = 2; k <= cards; ++k) {
        if (cards % k != 0)
            continue;
        Domain::WorkloadSpec part = spec;
        part.demand.cards = cards / k;
        Sched::ClusterState state = candidates;
        QStringList nodes, whys;
        QString gres;
        bool placed = true;
        for (int i = 0; i < k && placed; ++i) {
            Sched::Scheduler scheduler(state);
            scheduler.setAllowRepartitioning(false);
            const Sched::Decision d = scheduler.placeNow(scheduler.submit(part, nowMs), nowMs);
            QString why;
            const QString g = d.placement ? gresFor(fleet, *d.placement, &why) : QString();
            placed = d.placement && why.isEmpty() && (i == 0 || g == gres);
            if (!placed)
                break;
            gres = g;
            nodes << fleet.state.host(d.placement->host).name;
            whys << QStringLiteral("part %1 of %2: %3")
                            .arg(i + 1)
                            .arg(k)
                            .arg(d.trace.describe(scheduler.state()));
            // The next part goes elsewhere: one task per node.
            state.setHostUp(d.placement->host, false);
        }
        if (placed) {
            plan->nodes = nodes;
            plan->node = nodes.first();
            plan->gres = gres;
            plan->why = QStringLiteral("no one node takes %1 cards now; %2 nodes take %3 each. %4")
                                .arg(cards)
                                .arg(k)
                                .arg(cards / k)
                                .arg(whys.join(QStringLiteral(" ")));
            return true;
        }
    }
    return false;
}

} // namespace

QString batchScript(const QStringList &command)
{
    QStringList words;
    for (const QString &w : command)
        words << quoted(w);
    return QStringLiteral("#!/bin/bash\nexec ") + words.join(QLatin1Char(' ')) + QLatin1Char('\n');
}

std::optional<SubmitPlan> planSubmission(const FleetState &fleet,
                                         const Domain::WorkloadSpec &spec,
                                         qint64 nowMs,
                                         const SubmitOptions &options,
                                         QString *error)
{
    const auto refuse = [&](const QString &why) {
        if (error)
            *error = why;
        return std::nullopt;
    };
    if (!spec.run || spec.run->command.isEmpty())
        return refuse(QStringLiteral("the spec has no run.command: a Slurm job needs something "
                                     "to run (docs/workload-spec.md, \"run\")"));
    if (!spec.run->user.isEmpty())
        return refuse(QStringLiteral("run.user is not supported on a fleet: Slurm runs the job as "
                                     "the user of the token"));
    const QString workdir = spec.run->workdir.isEmpty() ? options.workdir : spec.run->workdir;
    if (workdir.isEmpty())
        return refuse(QStringLiteral("no working directory: set run.workdir in the spec"));

    // The QOS before the node: a spec the cluster's QOS cannot honour is refused whatever the
    // fleet's state.
    QString qos;
    const bool never = spec.preemption == Domain::PreemptionTolerance::Never;
    if (!options.qosByKind.isEmpty()) {
        if (never && options.qosNever.isEmpty())
            return refuse(QStringLiteral(
                    "preemption \"never\": the cluster preempts by QOS, but no QOS that nothing "
                    "preempts is named (SubmitOptions::qosNever): with its kind's QOS the job "
                    "could be preempted, and a job that may not be requeued is then cancelled"));
        qos = never ? options.qosNever : options.qosByKind.value(Domain::toString(spec.kind));
    }

    QString partition;
    switch (spec.kind) {
    case Domain::WorkloadKind::Inference:
        partition = QStringLiteral("inference");
        break;
    case Domain::WorkloadKind::Training:
        partition = QStringLiteral("training");
        break;
    case Domain::WorkloadKind::Batch:
        break;
    }
    // The nodes the job may go to: its partition's, or the default partition's. A snapshot
    // without partitions (a test's) restricts nothing.
    const FleetPartition *member = nullptr;
    QStringList known;
    for (const FleetPartition &p : fleet.snapshot.partitions) {
        known << p.name;
        if (partition.isEmpty() ? p.isDefault : p.name == partition)
            member = &p;
    }
    if (!partition.isEmpty() && !fleet.snapshot.partitions.isEmpty() && !member) {
        return refuse(QStringLiteral("the cluster has no partition \"%1\" for %2 work (it has: %3)")
                              .arg(partition,
                                   Domain::toString(spec.kind),
                                   known.join(QStringLiteral(", "))));
    }

    // Zhaoxi's decision, on a copy of the fleet: Slurm's MIG is static, so no instance is made.
    // Nodes outside the partition are taken as down there (their jobs stay as they are).
    Sched::ClusterState state = fleet.state;
    for (const Sched::HostState &h : fleet.state.hosts()) {
        if (h.up
            && ((member && !member->nodes.contains(h.name)) || options.avoidNodes.contains(h.name)))
            state.setHostUp(h.id, false);
    }
    Sched::Scheduler scheduler(state);
    scheduler.setAllowRepartitioning(false);
    const Domain::JobId job = scheduler.submit(spec, nowMs);
    const Sched::Decision decision = scheduler.placeNow(job, nowMs);
    SubmitPlan plan;
    QString why;
    if (decision.placement) {
        plan.node = fleet.state.host(decision.placement->host).name;
        plan.nodes = {plan.node};
        plan.why = decision.trace.describe(scheduler.state());
        plan.gres = gresFor(fleet, *decision.placement, &why);
        if (!why.isEmpty())
            return refuse(why);
    } else if (!planGangOverNodes(fleet, state, spec, nowMs, &plan)) {
        return refuse(QStringLiteral("no node can take it now: %1 (%2)")
                              .arg(decision.status.describe(),
                                   decision.trace.describe(scheduler.state())));
    }
    plan.partition = partition;
    plan.qos = qos;
    plan.requeue = !never;

    QJsonObject env;
    for (auto it = options.environment.cbegin(); it != options.environment.cend(); ++it)
        env.insert(it.key(), it.value());
    for (auto it = spec.run->env.cbegin(); it != spec.run->env.cend(); ++it)
        env.insert(it.key(), it.value());
    env.insert(QStringLiteral("ZHAOXI_FLEET_NODE"), plan.nodes.join(QLatin1Char(',')));
    if (spec.preemption == Domain::PreemptionTolerance::AtCheckpoint) {
        // What Slurm sends a preempted, requeued or cancelled job (measured; see the header): the
        // unit checkpoints on this, not on run.checkpointSignal, which Slurm cannot deliver.
        env.insert(QStringLiteral("ZHAOXI_CHECKPOINT_SIGNAL"), QStringLiteral("SIGTERM"));
        env.insert(QStringLiteral("ZHAOXI_STOP_SIGNAL"), QStringLiteral("SIGTERM"));
    }

    const qint64 expected = spec.time.expectedDurationMs;
    const qint64 minutes
            = expected > 0 ? (expected + 59999) / 60000 : options.defaultTimeLimitMinutes;
    QJsonObject job_;
    job_.insert(QStringLiteral("name"), spec.name);
    if (!plan.partition.isEmpty())
        job_.insert(QStringLiteral("partition"), plan.partition);
    if (!plan.qos.isEmpty())
        job_.insert(QStringLiteral("qos"), plan.qos);
    job_.insert(QStringLiteral("nodes"), QString::number(plan.nodes.size()));
    if (!options.slurmChooses)
        job_.insert(QStringLiteral("nodelist"), plan.nodes.join(QLatin1Char(',')));
    job_.insert(QStringLiteral("tasks"), int(plan.nodes.size()));
    if (plan.nodes.size() > 1)
        job_.insert(QStringLiteral("tasks_per_node"), 1);
    job_.insert(QStringLiteral("cpus_per_task"),
                int(std::max<qint64>(1, (spec.demand.hostCpuMilli + 999) / 1000)));
    if (spec.demand.hostMemoryMiB > 0)
        job_.insert(QStringLiteral("memory_per_node"), spec.demand.hostMemoryMiB);
    if (!plan.gres.isEmpty())
        job_.insert(QStringLiteral("gres"), plan.gres);
    job_.insert(QStringLiteral("time_limit"), std::max<qint64>(1, minutes));
    job_.insert(QStringLiteral("current_working_directory"), workdir);
    job_.insert(QStringLiteral("standard_output"),
                QString(workdir + QStringLiteral("/slurm-%j.out")));
    job_.insert(QStringLiteral("environment"), env);
    job_.insert(QStringLiteral("requeue"), plan.requeue);
    plan.request = QJsonObject{{QStringLiteral("job"), job_},
                               {QStringLiteral("script"), batchScript(spec.run->command)}};
    return plan;
}

std::optional<QMap<QString, QString>> parseQosByKind(const QString &text, QString *error)
{
    static const QRegularExpression name(QStringLiteral("^[A-Za-z0-9_.+-]{1,64}$"));
    QMap<QString, QString> out;
    for (const QString &entry : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const qsizetype eq = entry.indexOf(QLatin1Char('='));
        const QString kind = entry.left(eq).trimmed();
        const QString qos = eq < 0 ? QString() : entry.mid(eq + 1).trimmed();
        if (kind != QLatin1String("training") && kind != QLatin1String("inference")
            && kind != QLatin1String("batch")) {
            *error = QStringLiteral("\"%1\": the kind must be training, inference or batch")
                             .arg(entry);
            return std::nullopt;
        }
        if (!name.match(qos).hasMatch()) {
            *error = QStringLiteral("\"%1\": expected KIND=QOS with a Slurm QOS name").arg(entry);
            return std::nullopt;
        }
        if (out.contains(kind)) {
            *error = QStringLiteral("\"%1\": %2 is given twice").arg(entry, kind);
            return std::nullopt;
        }
        out.insert(kind, qos);
    }
    if (out.isEmpty()) {
        *error = QStringLiteral("expected KIND=QOS[,KIND=QOS...], got \"%1\"").arg(text);
        return std::nullopt;
    }
    return out;
}

} // namespace Zhaoxi::Fleet
