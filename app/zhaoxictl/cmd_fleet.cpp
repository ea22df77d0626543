// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxictl fleet show | submit: a Slurm cluster of appliances through slurmrestd (docs/fleet.md).
#include "commands.h"
#include "fleetcli.h"

#include "core/catalogue/catalogue.h"
#include "core/domain/workloadspec.h"
#include "core/fleet/fleetactions.h"
#include "core/fleet/fleetjson.h"
#include "core/fleet/fleetstate.h"
#include "core/fleet/fleetsubmit.h"
#include "core/fleet/slurmrest.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>

namespace Zhaoxi::Cli {

namespace {

constexpr qint64 kMaxSpecBytes = 1024 * 1024;

QString pad(const QString &s, int width)
{
    return s.leftJustified(width);
}

void printTable(const QJsonObject &fleet, Io &io)
{
    io.out << pad(QStringLiteral("NODE"), 12) << pad(QStringLiteral("STATE"), 10)
           << pad(QStringLiteral("CPUS"), 8) << pad(QStringLiteral("CARD"), 5)
           << pad(QStringLiteral("MODEL"), 16) << pad(QStringLiteral("MODE"), 13)
           << "PARTITIONS (job)\n";
    for (const QJsonValue &nv : fleet.value(QStringLiteral("nodes")).toArray()) {
        const QJsonObject n = nv.toObject();
        const QString state
                = n.value(QStringLiteral("state")).toString()
                  + (n.value(QStringLiteral("up")).toBool() ? QString() : QStringLiteral("!"));
        const QString cpus = QStringLiteral("%1/%2")
                                     .arg(n.value(QStringLiteral("allocCpus")).toInt())
                                     .arg(n.value(QStringLiteral("cpus")).toInt());
        const QJsonArray cards = n.value(QStringLiteral("cards")).toArray();
        const QString head = pad(n.value(QStringLiteral("name")).toString(), 12) + pad(state, 10)
                             + pad(cpus, 8);
        if (cards.isEmpty())
            io.out << head << "-    "
                   << n.value(QStringLiteral("problem")).toString(QStringLiteral("no cards"))
                   << "\n";
        for (qsizetype i = 0; i < cards.size(); ++i) {
            const QJsonObject c = cards[i].toObject();
            QStringList parts;
            for (const QJsonValue &pv : c.value(QStringLiteral("partitions")).toArray()) {
                const QJsonObject p = pv.toObject();
                QString what = p.contains(QStringLiteral("profile"))
                                       ? QStringLiteral("%1@%2")
                                                 .arg(p.value(QStringLiteral("profile")).toString())
                                                 .arg(p.value(QStringLiteral("start")).toInt())
                               : p.contains(QStringLiteral("share"))
                                       ? p.value(QStringLiteral("share")).toString()
                                       : QStringLiteral("whole");
                const QJsonValue job = p.value(QStringLiteral("job"));
                what += job.isNull() ? QStringLiteral(" (free)")
                                     : QStringLiteral(" (%1)").arg(job.toInteger());
                parts << what;
            }
            if (c.contains(QStringLiteral("capacity")))
                parts << QStringLiteral("of %1").arg(
                        c.value(QStringLiteral("capacity")).toString());
            io.out << (i == 0 ? head : QString(30, QLatin1Char(' ')))
                   << pad(QString::number(c.value(QStringLiteral("index")).toInt()), 5)
                   << pad(c.value(QStringLiteral("model")).toString(), 16)
                   << pad(c.value(QStringLiteral("mode")).toString(), 13)
                   << (parts.isEmpty() ? QStringLiteral("-") : parts.join(QStringLiteral(", ")))
                   << "\n";
        }
    }
    io.out << "\n"
           << pad(QStringLiteral("JOB"), 8) << pad(QStringLiteral("NAME"), 18)
           << pad(QStringLiteral("USER"), 10) << pad(QStringLiteral("PARTITION"), 11)
           << pad(QStringLiteral("STATE"), 11) << pad(QStringLiteral("REASON"), 14)
           << pad(QStringLiteral("NODE"), 12) << "GRES\n";
    for (const QJsonValue &jv : fleet.value(QStringLiteral("jobs")).toArray()) {
        const QJsonObject j = jv.toObject();
        QStringList nodes;
        for (const QJsonValue &v : j.value(QStringLiteral("nodes")).toArray())
            nodes << v.toString();
        QStringList held;
        for (const QJsonValue &v : j.value(QStringLiteral("allocated")).toArray())
            held << v.toString();
        io.out << pad(QString::number(j.value(QStringLiteral("id")).toInteger()), 8)
               << pad(j.value(QStringLiteral("name")).toString(), 18)
               << pad(j.value(QStringLiteral("user")).toString(), 10)
               << pad(j.value(QStringLiteral("partition")).toString(), 11)
               << pad(j.value(QStringLiteral("state")).toString(), 11)
               << pad(j.value(QStringLiteral("reason")).toString(), 14)
               << pad(nodes.isEmpty() ? QStringLiteral("-") : nodes.join(QLatin1Char(',')), 12)
               << (held.isEmpty() ? j.value(QStringLiteral("gres")).toString()
                                  : held.join(QLatin1Char(' ')))
               << "\n";
    }
    for (const QJsonValue &w : fleet.value(QStringLiteral("warnings")).toArray())
        io.out << "warning: " << w.toString() << "\n";
}

int runShow(Args &args, Io &io)
{
    const bool json = args.flag(QStringLiteral("json"));
    FleetConnection conn;
    if (!readFleetConnection(args, "show", io, &conn))
        return 2;
    if (args.positional().size() != 1) { // "show"
        io.err << "zhaoxictl fleet show: unexpected argument "
               << args.positional().mid(1).join(QStringLiteral(", ")) << "\n";
        return 2;
    }
    const auto client = fleetClient(conn);
    const std::optional<Fleet::FleetState> fleet = readFleet(*client, "show", io);
    if (!fleet)
        return 1;
    const QJsonObject o = Fleet::fleetToJson(*fleet);
    if (json)
        io.out << QJsonDocument(o).toJson(QJsonDocument::Indented);
    else
        printTable(o, io);
    return 0;
}

int runFleetSubmit(Args &args, Io &io)
{
    const bool json = args.flag(QStringLiteral("json"));
    const std::optional<QString> qos = args.value(QStringLiteral("qos"));
    const std::optional<QString> qosNever = args.value(QStringLiteral("qos-never"));
    const std::optional<QString> scontrolPath = args.value(QStringLiteral("scontrol"));
    const std::optional<QString> slurmConf = args.value(QStringLiteral("slurm-conf"));
    const bool slurmChooses = args.flag(QStringLiteral("slurm-chooses"));
    FleetConnection conn;
    if (!readFleetConnection(args, "submit", io, &conn))
        return 2;
    const QStringList pos = args.positional();
    if (pos.size() != 2) { // "submit" SPEC
        io.err << "zhaoxictl fleet submit: expected one SPEC.json (docs/workload-spec.md)\n";
        return 2;
    }
    QFile f(pos[1]);
    if (!f.open(QIODevice::ReadOnly)) {
        io.err << "zhaoxictl fleet submit: cannot read " << pos[1] << ": " << f.errorString()
               << "\n";
        return 2;
    }
    const QByteArray text = f.read(kMaxSpecBytes + 1);
    if (text.size() > kMaxSpecBytes) {
        io.err << "zhaoxictl fleet submit: " << pos[1] << " is over " << kMaxSpecBytes
               << " bytes\n";
        return 2;
    }
    Domain::SpecError specError;
    const std::optional<Domain::WorkloadSpec> spec = Domain::workloadSpecFromJson(text, &specError);
    if (!spec) {
        io.err << "zhaoxictl fleet submit: " << pos[1] << ": " << specError.toString() << "\n";
        return 2;
    }
    if (!spec->run || spec->run->command.isEmpty()) {
        io.err << "zhaoxictl fleet submit: " << pos[1]
               << ": run.command: required: a Slurm job needs something to run\n";
        return 2;
    }
    const auto client = fleetClient(conn);
    const std::optional<Fleet::FleetState> fleet = readFleet(*client, "submit", io);
    if (!fleet)
        return 1;
    Fleet::SubmitOptions options;
    if (qos) {
        QString why;
        const std::optional<QMap<QString, QString>> byKind = Fleet::parseQosByKind(*qos, &why);
        if (!byKind) {
            io.err << "zhaoxictl fleet submit: --qos " << why << "\n";
            return 2;
        }
        options.qosByKind = *byKind;
    }
    options.qosNever = qosNever.value_or(QString());
    options.slurmChooses = slurmChooses;
    options.workdir = QDir::currentPath();
    options.environment.insert(QStringLiteral("PATH"),
                               qEnvironmentVariable("PATH", QStringLiteral("/usr/bin:/bin")));
    QString why;
    std::optional<Fleet::SubmitPlan> plan = Fleet::planSubmission(
            *fleet, *spec, QDateTime::currentMSecsSinceEpoch(), options, &why);
    if (!plan) {
        io.err << "zhaoxictl fleet submit: " << pos[1] << ": " << why << "\n";
        return 1;
    }
    Fleet::RestStatus status;
    std::optional<qint64> id = client->submitBlocking(plan->request, &status);
    QString replanned;
    if (!id && status.code != Fleet::RestStatus::Code::Unreachable
        && status.code != Fleet::RestStatus::Code::TokenFile && !options.slurmChooses) {
        // Slurm refused the job where Zhaoxi put it: the node may have changed since the read
        // (drained, taken). Read again and plan once more without that node; say so.
        const QString first = status.message;
        const std::optional<Fleet::FleetState> again = readFleet(*client, "submit", io);
        if (!again)
            return 1;
        options.avoidNodes = plan->nodes;
        QString whyNot;
        const std::optional<Fleet::SubmitPlan> next = Fleet::planSubmission(
                *again, *spec, QDateTime::currentMSecsSinceEpoch(), options, &whyNot);
        if (!next) {
            io.err << "zhaoxictl fleet submit: Slurm refused the job for node "
                   << plan->nodes.join(QLatin1Char(',')) << " (" << plan->gres << "): " << first
                   << "; no other node can take it now: " << whyNot << "\n";
            return 1;
        }
        replanned = QStringLiteral("Slurm refused node %1 (%2); re-planned on %3")
                            .arg(plan->nodes.join(QLatin1Char(',')),
                                 first,
                                 next->nodes.join(QLatin1Char(',')));
        io.err << "zhaoxictl fleet submit: " << replanned << "\n";
        plan = next;
        id = client->submitBlocking(plan->request, &status);
    }
    if (!id) {
        io.err << "zhaoxictl fleet submit: Slurm refused the job for node "
               << plan->nodes.join(QLatin1Char(',')) << " (" << plan->gres
               << "): " << status.message << "\n";
        return 1;
    }
    if (!plan->requeue) {
        // slurmrestd 22.05 ignores "requeue": false: scontrol clears it (fleetactions.h).
        Fleet::ScontrolOptions so;
        so.scontrolPath = scontrolPath.value_or(so.scontrolPath);
        so.slurmConf = slurmConf.value_or(QString());
        const Fleet::JobActionResult a = Fleet::setSlurmJobRequeueableBlocking(so, *id, false);
        if (!a.ok) {
            io.err << "zhaoxictl fleet submit: job " << *id << " was submitted on " << plan->node
                   << ", but it may still be requeued: " << a.message << "\n";
            return 1;
        }
    }
    if (json) {
        const QJsonObject o{{QStringLiteral("job_id"), *id},
                            {QStringLiteral("node"), plan->node},
                            {QStringLiteral("gres"), plan->gres},
                            {QStringLiteral("partition"), plan->partition},
                            {QStringLiteral("qos"), plan->qos},
                            {QStringLiteral("requeue"), plan->requeue},
                            {QStringLiteral("nodes"), QJsonArray::fromStringList(plan->nodes)},
                            {QStringLiteral("slurm_chooses"), options.slurmChooses},
                            {QStringLiteral("replanned"), replanned},
                            {QStringLiteral("why"), plan->why}};
        io.out << QJsonDocument(o).toJson(QJsonDocument::Indented);
    } else {
        io.out << "job_id " << *id << "\nnode " << plan->node << "\ngres "
               << (plan->gres.isEmpty() ? QStringLiteral("-") : plan->gres) << "\n";
    }
    return 0;
}

} // namespace

int runFleet(const QStringList &argList, Io &io)
{
    Args args(argList);
    const QStringList pos = args.positional();
    const QString sub = pos.value(0);
    if (sub == QLatin1String("show"))
        return runShow(args, io);
    if (sub == QLatin1String("submit"))
        return runFleetSubmit(args, io);
    if (sub == QLatin1String("cancel") || sub == QLatin1String("requeue")
        || sub == QLatin1String("priority"))
        return runFleetJobAction(args, io);
    if (sub == QLatin1String("windows"))
        return runFleetWindows(args, io);
    if (sub == QLatin1String("repartition"))
        return runFleetRepartition(args, io);
    io.err << "zhaoxictl fleet: expected show, submit, cancel, requeue, priority, windows or "
              "repartition"
           << (sub.isEmpty() ? QString() : QStringLiteral(", got '%1'").arg(sub)) << "\n";
    return 2;
}

} // namespace Zhaoxi::Cli
