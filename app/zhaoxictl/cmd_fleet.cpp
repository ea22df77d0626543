// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxictl fleet show | submit: a Slurm cluster of appliances through slurmrestd (docs/fleet.md).
#include "commands.h"

#include "core/catalogue/catalogue.h"
#include "core/domain/workloadspec.h"
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

#include <pwd.h>
#include <unistd.h>

namespace Zhaoxi::Cli {

namespace {

constexpr qint64 kMaxSpecBytes = 1024 * 1024;

struct Connection
{
    QUrl url;
    QString user;
    QString tokenFile;
    int timeoutMs = 10000;
};

// $USER, $LOGNAME, else the effective user's account name; empty when none is known.
QString currentUserName()
{
    QString name = qEnvironmentVariable("USER", qEnvironmentVariable("LOGNAME"));
    if (name.isEmpty()) {
        if (const passwd *pw = ::getpwuid(::geteuid()))
            name = QString::fromLocal8Bit(pw->pw_name);
    }
    return name;
}

// The options every fleet command takes; false (usage printed) when one is wrong or missing.
bool readConnection(Args &args, const char *command, Io &io, Connection *out)
{
    const std::optional<QString> rest = args.value(QStringLiteral("rest"));
    const std::optional<QString> token = args.value(QStringLiteral("token-file"));
    const std::optional<QString> user = args.value(QStringLiteral("user"));
    const std::optional<QString> timeout = args.value(QStringLiteral("timeout"));
    if (!args.missingValueFor().isEmpty()) {
        io.err << "zhaoxictl fleet " << command << ": option " << args.missingValueFor()
               << " needs a value\n";
        return false;
    }
    const QStringList unknown = args.unknownOptions();
    if (!unknown.isEmpty()) {
        io.err << "zhaoxictl fleet " << command << ": unknown option "
               << unknown.join(QStringLiteral(", ")) << "\n";
        return false;
    }
    if (!rest || !token) {
        io.err << "zhaoxictl fleet " << command
               << ": --rest URL and --token-file FILE are required (slurmrestd with JWT, e.g. "
                  "the REST_URL and TOKEN_FILE scripts/slurm-local up prints)\n";
        return false;
    }
    out->url = QUrl(*rest, QUrl::StrictMode);
    if (!out->url.isValid()
        || (out->url.scheme() != QLatin1String("http")
            && out->url.scheme() != QLatin1String("https"))
        || out->url.host().isEmpty()) {
        io.err << "zhaoxictl fleet " << command << ": --rest " << *rest
               << " is not an http:// or https:// URL\n";
        return false;
    }
    if (out->url.path().endsWith(QLatin1Char('/')))
        out->url.setPath(out->url.path().chopped(1));
    out->tokenFile = *token;
    out->user = user.value_or(currentUserName());
    if (out->user.isEmpty()) {
        io.err << "zhaoxictl fleet " << command
               << ": no user name: give --user NAME (the token's user)\n";
        return false;
    }
    if (timeout) {
        bool ok = false;
        out->timeoutMs = timeout->toInt(&ok);
        if (!ok || out->timeoutMs < 100 || out->timeoutMs > 600000) {
            io.err << "zhaoxictl fleet " << command
                   << ": --timeout must be milliseconds in 100..600000, got " << *timeout << "\n";
            return false;
        }
    }
    return true;
}

std::optional<Fleet::FleetState> readFleet(Fleet::SlurmRestClient &client,
                                           const char *command,
                                           Io &io)
{
    Fleet::RestStatus status;
    const std::optional<Fleet::FleetSnapshot> snapshot = client.fetchFleetBlocking(&status);
    if (!snapshot) {
        io.err << "zhaoxictl fleet " << command << ": " << status.message << "\n";
        return std::nullopt;
    }
    return Fleet::buildFleetState(
            *snapshot, Catalogue::Catalogue::builtIn(), QDateTime::currentMSecsSinceEpoch());
}

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
    Connection conn;
    if (!readConnection(args, "show", io, &conn))
        return 2;
    if (args.positional().size() != 1) { // "show"
        io.err << "zhaoxictl fleet show: unexpected argument "
               << args.positional().mid(1).join(QStringLiteral(", ")) << "\n";
        return 2;
    }
    Fleet::SlurmRestClient client(conn.url, conn.user, conn.tokenFile);
    client.setTimeoutMs(conn.timeoutMs);
    const std::optional<Fleet::FleetState> fleet = readFleet(client, "show", io);
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
    Connection conn;
    if (!readConnection(args, "submit", io, &conn))
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
    Fleet::SlurmRestClient client(conn.url, conn.user, conn.tokenFile);
    client.setTimeoutMs(conn.timeoutMs);
    const std::optional<Fleet::FleetState> fleet = readFleet(client, "submit", io);
    if (!fleet)
        return 1;
    Fleet::SubmitOptions options;
    options.workdir = QDir::currentPath();
    options.environment.insert(QStringLiteral("PATH"),
                               qEnvironmentVariable("PATH", QStringLiteral("/usr/bin:/bin")));
    QString why;
    const std::optional<Fleet::SubmitPlan> plan = Fleet::planSubmission(
            *fleet, *spec, QDateTime::currentMSecsSinceEpoch(), options, &why);
    if (!plan) {
        io.err << "zhaoxictl fleet submit: " << pos[1] << ": " << why << "\n";
        return 1;
    }
    Fleet::RestStatus status;
    const std::optional<qint64> id = client.submitBlocking(plan->request, &status);
    if (!id) {
        io.err << "zhaoxictl fleet submit: Slurm refused the job for node " << plan->node << " ("
               << plan->gres << "): " << status.message << "\n";
        return 1;
    }
    if (json) {
        const QJsonObject o{{QStringLiteral("job_id"), *id},
                            {QStringLiteral("node"), plan->node},
                            {QStringLiteral("gres"), plan->gres},
                            {QStringLiteral("partition"), plan->partition},
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
    io.err << "zhaoxictl fleet: expected show or submit"
           << (sub.isEmpty() ? QString() : QStringLiteral(", got '%1'").arg(sub)) << "\n";
    return 2;
}

} // namespace Zhaoxi::Cli
