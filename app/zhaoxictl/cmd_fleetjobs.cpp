// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxictl fleet cancel JOB | requeue JOB | priority JOB N: an operator's actions on one Slurm
// job of a fleet (docs/fleet.md), each optionally recorded in a store's audit trail.
#include "fleetcli.h"

#include "core/fleet/fleetactions.h"
#include "core/service/audit.h"
#include "core/service/peer.h"
#include "core/storage/store.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <unistd.h>

namespace Zhaoxi::Cli {

namespace {

// A Slurm job id or priority as the operator typed it: digits only (no sign, no spaces).
std::optional<qint64> number(const QString &text, qint64 max)
{
    if (text.isEmpty() || text.size() > 10)
        return std::nullopt;
    for (const QChar c : text) {
        if (!c.isDigit() || c.unicode() > 127)
            return std::nullopt;
    }
    const qint64 n = text.toLongLong();
    if (n < 1 || n > max)
        return std::nullopt;
    return n;
}

// What the audit event keeps of the job before and after: its state as slurmrestd reads it, or
// null when it cannot be read (an unknown id, Slurm unreachable).
QJsonValue jobState(Fleet::SlurmRestClient &client, qint64 id)
{
    const Fleet::RestReply r
            = client.getBlocking(QStringLiteral("/slurm/v0.0.38/job/") + QString::number(id));
    if (!r.status.isOk())
        return QJsonValue::Null;
    const QJsonArray jobs
            = QJsonDocument::fromJson(r.body).object().value(QStringLiteral("jobs")).toArray();
    if (jobs.isEmpty())
        return QJsonValue::Null;
    const QJsonObject j = jobs.first().toObject();
    QJsonObject out;
    for (const char *key : {"job_state",
                            "state_reason",
                            "priority",
                            "restart_cnt",
                            "qos",
                            "partition",
                            "nodes",
                            "name",
                            "user_name"}) {
        const QString k = QString::fromLatin1(key);
        if (j.contains(k))
            out.insert(k, j.value(k));
    }
    return out;
}

struct Audit
{
    std::unique_ptr<Storage::Store> store;
    std::unique_ptr<Service::AuditTrail> trail;
};

bool openAudit(const QString &path, const char *command, Io &io, Audit *out)
{
    if (const QString refused = Storage::refusedOutputReason(path); !refused.isEmpty()) {
        io.err << "zhaoxictl fleet " << command << ": --db " << path << ": " << refused << "\n";
        return false;
    }
    QString why;
    out->store = Storage::Store::open(path, &why);
    if (!out->store) {
        io.err << "zhaoxictl fleet " << command << ": --db " << path << ": " << why << "\n";
        return false;
    }
    const std::unique_ptr<Storage::Reader> reader = out->store->reader(&why);
    QByteArray head;
    if (!reader || !Service::AuditTrail::headOf(*reader, &head, &why)) {
        io.err << "zhaoxictl fleet " << command << ": --db " << path
               << ": cannot read its audit trail: " << why << "\n";
        return false;
    }
    out->trail = std::make_unique<Service::AuditTrail>(*out->store, head);
    return true;
}

} // namespace

int runFleetJobAction(Args &args, Io &io)
{
    const QStringList pos0 = args.positional();
    const QString sub = pos0.value(0);
    const QByteArray subLatin = sub.toLatin1();
    const char *command = subLatin.constData();
    // The command's own options first: readFleetConnection refuses any option not read yet.
    const bool json = args.flag(QStringLiteral("json"));
    const std::optional<QString> db = args.value(QStringLiteral("db"));
    const std::optional<QString> scontrol = args.value(QStringLiteral("scontrol"));
    const std::optional<QString> slurmConf = args.value(QStringLiteral("slurm-conf"));
    const std::optional<QString> signal = args.value(QStringLiteral("signal"));
    FleetConnection conn;
    if (!readFleetConnection(args, command, io, &conn))
        return 2;

    const QStringList pos = args.positional();
    const bool priority = sub == QLatin1String("priority");
    const qsizetype want = priority ? 3 : 2;
    if (pos.size() != want) {
        io.err << "zhaoxictl fleet " << command << ": expected "
               << (priority ? "a Slurm job id and a priority (fleet priority JOB N)"
                            : "one Slurm job id (fleet CMD JOB)")
               << (pos.size() > want ? QStringLiteral(", got also %1")
                                               .arg(pos.mid(want).join(QStringLiteral(" ")))
                                     : QString())
               << "\n";
        return 2;
    }
    const std::optional<qint64> id = number(pos[1], Fleet::kMaxSlurmJobId);
    if (!id) {
        io.err << "zhaoxictl fleet " << command << ": JOB must be a Slurm job id (1.."
               << Fleet::kMaxSlurmJobId << "), got '" << pos[1] << "'\n";
        return 2;
    }
    std::optional<qint64> newPriority;
    if (priority) {
        newPriority = number(pos[2], Fleet::kMaxSlurmPriority);
        if (!newPriority) {
            io.err << "zhaoxictl fleet priority: N must be a Slurm priority (1.."
                   << Fleet::kMaxSlurmPriority << "; 0 would hold the job), got '" << pos[2]
                   << "'\n";
            return 2;
        }
    }
    if (signal && sub != QLatin1String("cancel")) {
        io.err << "zhaoxictl fleet " << command << ": --signal is an option of fleet cancel\n";
        return 2;
    }
    if ((scontrol || slurmConf) && sub != QLatin1String("requeue")) {
        io.err << "zhaoxictl fleet " << command
               << ": --scontrol and --slurm-conf are options of fleet requeue\n";
        return 2;
    }
    Fleet::ScontrolOptions scontrolOptions;
    scontrolOptions.scontrolPath = scontrol.value_or(QStringLiteral("scontrol"));
    scontrolOptions.slurmConf = slurmConf.value_or(qEnvironmentVariable("SLURM_CONF"));
    scontrolOptions.timeoutMs = conn.timeoutMs;

    Audit audit;
    if (db && !openAudit(*db, command, io, &audit))
        return 2;

    const auto client = fleetClient(conn);
    const QJsonValue before = db ? jobState(*client, *id) : QJsonValue();
    Fleet::JobActionResult r;
    if (sub == QLatin1String("cancel"))
        r = Fleet::cancelSlurmJobBlocking(*client, *id, signal.value_or(QString()));
    else if (priority)
        r = Fleet::setSlurmJobPriorityBlocking(*client, *id, *newPriority);
    else
        r = Fleet::requeueSlurmJobBlocking(scontrolOptions, *id);

    qint64 eventId = -1;
    if (db) {
        // The service's audit format (server_changes.cpp): code operator-<command>, the actor,
        // asked/ok/before/after (and why when refused), uid, pid and the wall time. The Slurm job
        // is named in params, not in the event's job column, which holds the appliance's own
        // job ids.
        QJsonObject asked{{QStringLiteral("cmd"), sub},
                          {QStringLiteral("slurm_job"), *id},
                          {QStringLiteral("fleet"), conn.url.toString()}};
        if (newPriority)
            asked.insert(QStringLiteral("priority"), *newPriority);
        if (signal)
            asked.insert(QStringLiteral("signal"), *signal);
        QJsonObject params{{QStringLiteral("asked"), asked},
                           {QStringLiteral("ok"), r.ok},
                           {QStringLiteral("before"), before},
                           {QStringLiteral("after"), jobState(*client, *id)},
                           {QStringLiteral("slurm_job"), *id},
                           {QStringLiteral("slurm_user"), conn.user},
                           {QStringLiteral("uid"), qint64(::getuid())},
                           {QStringLiteral("pid"), qint64(::getpid())},
                           {QStringLiteral("wall_ms"), QDateTime::currentMSecsSinceEpoch()}};
        if (!r.ok)
            params.insert(QStringLiteral("refused"), r.message);
        Storage::Event e;
        e.atMs = QDateTime::currentMSecsSinceEpoch();
        e.severity = r.ok ? Storage::Severity::Info : Storage::Severity::Warning;
        e.code = "operator-" + subLatin;
        e.actor = Service::loginOf(::getuid());
        eventId = audit.trail->record(e, params);
        if (!audit.store->flush()) {
            io.err << "zhaoxictl fleet " << command << ": " << r.message
                   << "; but its audit event could not be written to " << *db << ": "
                   << audit.store->lastError() << "\n";
            return 1;
        }
    }

    if (!r.ok) {
        // The library names the action in its refusals ("cancel: ..."); the prefix here does.
        const QString own = sub + QStringLiteral(": ");
        io.err << "zhaoxictl fleet " << command << ": "
               << (r.message.startsWith(own) ? r.message.mid(own.size()) : r.message) << "\n";
        return r.failure == Fleet::JobActionResult::Failure::BadArgument ? 2 : 1;
    }
    if (json) {
        QJsonObject o{{QStringLiteral("action"), sub},
                      {QStringLiteral("job_id"), *id},
                      {QStringLiteral("ok"), true},
                      {QStringLiteral("message"), r.message}};
        if (newPriority)
            o.insert(QStringLiteral("priority"), *newPriority);
        if (eventId >= 0)
            o.insert(QStringLiteral("audit_event"), eventId);
        io.out << QJsonDocument(o).toJson(QJsonDocument::Indented);
    } else {
        io.out << r.message << "\n";
    }
    return 0;
}

} // namespace Zhaoxi::Cli
