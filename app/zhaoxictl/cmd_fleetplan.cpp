// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxictl fleet windows | repartition: the console's day/night windows as Slurm reservations,
// and one node's MIG layout changed through Slurm (drain, apply, GRES, resume).
#include "fleetcli.h"

#include "core/catalogue/catalogue.h"
#include "core/fleet/fleetrepartition.h"
#include "core/fleet/fleetwindows.h"
#include "core/policy/params.h"
#include "core/session/fleetsession.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QThread>

#include <algorithm>

namespace Zhaoxi::Cli {

namespace {

constexpr qint64 kMaxScheduleBytes = 1024 * 1024;
constexpr int kScontrolTimeoutMs = 30'000;

// The schedule file: the windows policy's parameters, read by the policy's own reader so that
// a file the console accepts is accepted here and the errors name the same fields.
std::optional<QList<Fleet::ScheduleWindow>> readSchedule(const QString &path,
                                                         qint64 *prepareAheadMs,
                                                         QString *error)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("%1: cannot read: %2").arg(path, f.errorString());
        return std::nullopt;
    }
    if (f.size() > kMaxScheduleBytes) {
        *error = QStringLiteral("%1: larger than %2 bytes").arg(path).arg(kMaxScheduleBytes);
        return std::nullopt;
    }
    Policy::PolicyError err;
    const std::optional<QJsonObject> params = Policy::policyParamsFromJson(f.readAll(), &err);
    QString field = err.field, why = err.message;
    std::optional<QList<Fleet::ScheduleWindow>> windows;
    if (params)
        windows = Session::fleetWindowsFromParams(*params, prepareAheadMs, &field, &why);
    if (!windows) {
        *error = QStringLiteral("%1: %2%3")
                         .arg(QFileInfo(path).fileName(),
                              field.isEmpty() ? QString() : field + QStringLiteral(": "),
                              why);
        return std::nullopt;
    }
    return windows;
}

QJsonObject reservationJson(const Fleet::PlannedReservation &r)
{
    QJsonObject o{{QStringLiteral("name"), r.name},
                  {QStringLiteral("action"), QLatin1String(Fleet::toString(r.action))},
                  {QStringLiteral("window"), r.window},
                  {QStringLiteral("nodes"), QJsonArray::fromStringList(r.nodes)},
                  {QStringLiteral("cards"), r.cards},
                  {QStringLiteral("start"), Fleet::slurmTime(r.start)},
                  {QStringLiteral("duration"), r.durationS},
                  {QStringLiteral("flags"), QJsonArray::fromStringList(r.flags)},
                  {QStringLiteral("partition"), r.partition},
                  {QStringLiteral("users"), r.users}};
    if (!r.why.isEmpty())
        o.insert(QStringLiteral("why"), r.why);
    return o;
}

} // namespace

int runFleetWindows(Args &args, Io &io)
{
    const bool apply = args.flag(QStringLiteral("apply"));
    const bool json = args.flag(QStringLiteral("json"));
    const QString scontrol
            = args.value(QStringLiteral("scontrol")).value_or(QStringLiteral("scontrol"));
    const std::optional<QString> leadText = args.value(QStringLiteral("lead"));
    FleetConnection conn;
    if (!readFleetConnection(args, "windows", io, &conn))
        return 2;
    const QStringList pos = args.positional();
    if (pos.size() != 2) {
        io.err << "zhaoxictl fleet windows: expected one SCHEDULE.json (the windows policy's "
                  "parameters), got "
               << (pos.size() < 2 ? QStringLiteral("none") : pos.mid(1).join(QLatin1Char(' ')))
               << "\n";
        return 2;
    }
    QString error;
    qint64 prepareMs = 0;
    const std::optional<QList<Fleet::ScheduleWindow>> windows
            = readSchedule(pos[1], &prepareMs, &error);
    if (!windows) {
        io.err << "zhaoxictl fleet windows: " << error << "\n";
        return 2;
    }
    Fleet::WindowsPlanOptions options;
    options.leadMs = prepareMs;
    if (leadText) {
        bool ok = false;
        const int minutes = leadText->toInt(&ok);
        if (!ok || minutes < 0 || minutes > 720) {
            io.err << "zhaoxictl fleet windows: --lead must be minutes in 0..720, got " << *leadText
                   << "\n";
            return 2;
        }
        options.leadMs = qint64(minutes) * 60'000;
    }
    options.users = conn.user;

    const auto client = fleetClient(conn);
    const std::optional<Fleet::FleetState> fleet = readFleet(*client, "windows", io);
    if (!fleet)
        return 1;
    const Fleet::WindowsPlan plan
            = Fleet::planWindows(*windows, *fleet, QDateTime::currentDateTime(), options);
    if (!plan.error.isEmpty()) {
        io.err << "zhaoxictl fleet windows: " << plan.error << "\n";
        return 1;
    }
    Fleet::ApplyReport report;
    if (apply && plan.changes()) {
        report = Fleet::applyWindowsPlan(
                plan, scontrol, [](const QString &p, const QStringList &a) {
                    return Fleet::runCommand(p, a, kScontrolTimeoutMs);
                });
    }
    const bool applied = apply && report.ok;

    if (json) {
        QJsonArray rs;
        for (const Fleet::PlannedReservation &r : plan.reservations)
            rs.append(reservationJson(r));
        QJsonObject o{{QStringLiteral("reservations"), rs},
                      {QStringLiteral("applied"), applied},
                      {QStringLiteral("fleetCards"), plan.fleetCards},
                      {QStringLiteral("leadMinutes"), options.leadMs / 60'000},
                      {QStringLiteral("warnings"), QJsonArray::fromStringList(plan.warnings)}};
        if (apply) {
            o.insert(QStringLiteral("steps"), QJsonArray::fromStringList(report.done));
            if (!report.ok) {
                o.insert(QStringLiteral("failedStep"), report.failedStep);
                o.insert(QStringLiteral("error"), report.error);
                o.insert(QStringLiteral("undoFailures"),
                         QJsonArray::fromStringList(report.undoFailures));
            }
        }
        io.out << QJsonDocument(o).toJson(QJsonDocument::Indented);
    } else {
        io.out << "fleet of " << plan.fleetCards << " cards, lead " << options.leadMs / 60'000
               << " min\n";
        for (const Fleet::PlannedReservation &r : plan.reservations) {
            io.out << QString::fromLatin1(Fleet::toString(r.action)).leftJustified(7) << r.name
                   << "  nodes " << r.nodes.join(QLatin1Char(',')) << " (" << r.cards << " of "
                   << plan.fleetCards << " cards)  start " << Fleet::slurmTime(r.start)
                   << "  duration " << Fleet::slurmDuration(r.durationS) << "  flags "
                   << r.flags.join(QLatin1Char(',')) << "  partition " << r.partition
                   << (r.why.isEmpty() ? QString() : QStringLiteral("  (%1)").arg(r.why)) << "\n";
        }
        for (const QString &w : plan.warnings)
            io.out << "warning: " << w << "\n";
        for (const QString &d : std::as_const(report.done))
            io.out << "done: " << d << "\n";
        if (!apply)
            io.out << (plan.changes() ? "preview: nothing changed; --apply carries it out\n"
                                      : "nothing to change\n");
        else if (applied)
            io.out << (plan.changes() ? "applied\n" : "nothing to change\n");
    }
    if (apply && !report.ok) {
        io.err << "zhaoxictl fleet windows: " << report.failedStep << " failed: " << report.error
               << (report.done.isEmpty() ? QString()
                                         : QStringLiteral("; the steps done before were undone"))
               << "\n";
        for (const QString &u : std::as_const(report.undoFailures))
            io.err << "zhaoxictl fleet windows: NOT undone: " << u << "\n";
        return 1;
    }
    return 0;
}

namespace {

// The cycle's world: scontrol and the node's commands as processes, the node read through
// slurmrestd, the wall clock.
class CliRepartitionIo final : public Fleet::RepartitionIo
{
public:
    explicit CliRepartitionIo(Fleet::SlurmRestClient &client)
        : m_client(client)
    {
        m_clock.start();
    }

    Fleet::CommandResult run(const QString &program,
                             const QStringList &args,
                             const QStringList &env) override
    {
        QProcess p;
        QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
        for (const QString &kv : env)
            e.insert(kv.section(QLatin1Char('='), 0, 0), kv.section(QLatin1Char('='), 1));
        p.setProcessEnvironment(e);
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.setStandardInputFile(QProcess::nullDevice());
        p.start(program, args);
        Fleet::CommandResult r;
        if (!p.waitForStarted(10000)) {
            r.output = QStringLiteral("cannot start %1: %2").arg(program, p.errorString());
            return r;
        }
        // The GRES command may restart Slurm's daemons and wait for them.
        if (!p.waitForFinished(kCommandTimeoutMs)) {
            p.kill();
            p.waitForFinished(5000);
            r.output = QStringLiteral("did not finish within %1 ms").arg(kCommandTimeoutMs);
            return r;
        }
        r.output = QString::fromLocal8Bit(p.readAll()).trimmed();
        r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
        return r;
    }

    std::optional<Fleet::NodeView> readNode(const QString &node, QString *error) override
    {
        Fleet::RestStatus status;
        const std::optional<Fleet::FleetSnapshot> s = m_client.fetchFleetBlocking(&status);
        if (!s) {
            *error = status.message;
            return std::nullopt;
        }
        for (const Fleet::FleetNode &n : s->nodes) {
            if (n.name != node)
                continue;
            Fleet::NodeView v;
            v.gres = Fleet::gresText(n.gres);
            v.state = n.state;
            v.stateFlags = n.stateFlags;
            v.reason = n.reason;
            for (const Fleet::FleetJob &j : s->jobs) {
                if (j.holdsResources() && j.nodes.contains(node))
                    v.jobsHolding.append(j.id);
            }
            std::sort(v.jobsHolding.begin(), v.jobsHolding.end());
            return v;
        }
        *error = QStringLiteral("slurmrestd does not list node %1").arg(node);
        return std::nullopt;
    }

    qint64 nowMs() override { return m_clock.elapsed(); }
    void sleepMs(int ms) override { QThread::msleep(ulong(ms)); }

private:
    static constexpr int kCommandTimeoutMs = 300'000;
    Fleet::SlurmRestClient &m_client;
    QElapsedTimer m_clock;
};

std::optional<QStringList> commandWords(const std::optional<QString> &text,
                                        const char *option,
                                        Io &io)
{
    if (!text)
        return QStringList();
    const QStringList words = QProcess::splitCommand(*text);
    if (words.isEmpty()) {
        io.err << "zhaoxictl fleet repartition: " << option << " is empty\n";
        return std::nullopt;
    }
    return words;
}

} // namespace

int runFleetRepartition(Args &args, Io &io)
{
    const bool json = args.flag(QStringLiteral("json"));
    const bool immediate = args.flag(QStringLiteral("immediate"));
    const bool noReconfigure = args.flag(QStringLiteral("no-reconfigure"));
    const std::optional<QString> layoutText = args.value(QStringLiteral("layout"));
    const std::optional<QString> deadline = args.value(QStringLiteral("deadline"));
    const std::optional<QString> applyCommand = args.value(QStringLiteral("apply-command"));
    const std::optional<QString> gresCommand = args.value(QStringLiteral("gres-command"));
    const std::optional<QString> gresTimeout = args.value(QStringLiteral("gres-timeout"));
    const QString scontrol
            = args.value(QStringLiteral("scontrol")).value_or(QStringLiteral("scontrol"));
    FleetConnection conn;
    if (!readFleetConnection(args, "repartition", io, &conn))
        return 2;
    const QStringList pos = args.positional();
    if (pos.size() != 2) {
        io.err << "zhaoxictl fleet repartition: expected one NODE, got "
               << (pos.size() < 2 ? QStringLiteral("none") : pos.mid(1).join(QLatin1Char(' ')))
               << "\n";
        return 2;
    }
    const QString node = pos[1];
    if (!layoutText || !gresCommand) {
        io.err << "zhaoxictl fleet repartition: --layout LAYOUT and --gres-command CMD are "
                  "required\n";
        return 2;
    }
    Fleet::RepartitionOptions options;
    options.scontrol = scontrol;
    options.reconfigure = !noReconfigure;
    if (immediate && deadline) {
        io.err << "zhaoxictl fleet repartition: --immediate and --deadline exclude each other\n";
        return 2;
    }
    if (immediate)
        options.jobs = Fleet::JobPolicy::Immediate;
    if (deadline) {
        bool ok = false;
        const int s = deadline->toInt(&ok);
        if (!ok || s < 0 || s > 7 * 86400) {
            io.err << "zhaoxictl fleet repartition: --deadline must be seconds in 0..604800, got "
                   << *deadline << "\n";
            return 2;
        }
        options.jobs = Fleet::JobPolicy::Deadline;
        options.deadlineMs = qint64(s) * 1000;
    }
    if (gresTimeout) {
        bool ok = false;
        const int s = gresTimeout->toInt(&ok);
        if (!ok || s < 1 || s > 3600) {
            io.err << "zhaoxictl fleet repartition: --gres-timeout must be seconds in 1..3600, got "
                   << *gresTimeout << "\n";
            return 2;
        }
        options.gresTimeoutMs = qint64(s) * 1000;
    }
    const std::optional<QStringList> apply = commandWords(applyCommand, "--apply-command", io);
    const std::optional<QStringList> gresWords = commandWords(gresCommand, "--gres-command", io);
    if (!apply || !gresWords)
        return 2;
    options.applyCommand = *apply;
    options.gresCommand = *gresWords;

    const auto client = fleetClient(conn);
    const std::optional<Fleet::FleetState> fleet = readFleet(*client, "repartition", io);
    if (!fleet)
        return 1;
    const Catalogue::Catalogue catalogue = Catalogue::Catalogue::builtIn();
    QString error;
    const std::optional<Fleet::RepartitionTarget> target
            = Fleet::repartitionTarget(*fleet, catalogue, node, &error);
    if (!target) {
        io.err << "zhaoxictl fleet repartition: " << error << "\n";
        return 2;
    }
    const std::optional<Fleet::NodeLayout> layout
            = Fleet::parseNodeLayout(*layoutText, catalogue, target->model, target->cards, &error);
    if (!layout) {
        io.err << "zhaoxictl fleet repartition: --layout: " << error << "\n";
        return 2;
    }
    if (!Fleet::gresRoundTrips(catalogue, *target, *layout, &error)) {
        io.err << "zhaoxictl fleet repartition: --layout: " << error << "\n";
        return 2;
    }

    CliRepartitionIo cycleIo(*client);
    const auto print = [&](const Fleet::RepartitionEvent &e) {
        if (json)
            return;
        io.out << QStringLiteral("%1 ms").arg(e.atMs).rightJustified(9) << "  "
               << QString::fromLatin1(Fleet::toString(e.step)).leftJustified(12)
               << (e.ok ? "ok    " : "FAILED") << "  " << e.message << "\n";
        io.out.flush();
    };
    const Fleet::RepartitionResult result
            = Fleet::runRepartition(*target, *layout, catalogue, options, cycleIo, print);
    const QString gres = Fleet::gresText(Fleet::gresForLayout(catalogue, *layout));
    if (json) {
        QJsonArray events;
        for (const Fleet::RepartitionEvent &e : result.events)
            events.append(
                    QJsonObject{{QStringLiteral("step"), QLatin1String(Fleet::toString(e.step))},
                                {QStringLiteral("atMs"), e.atMs},
                                {QStringLiteral("ok"), e.ok},
                                {QStringLiteral("message"), e.message}});
        QJsonObject o{{QStringLiteral("node"), node},
                      {QStringLiteral("layout"), Fleet::formatNodeLayout(catalogue, *layout)},
                      {QStringLiteral("model"), catalogue.models()[layout->model].name},
                      {QStringLiteral("previousGres"), target->gres},
                      {QStringLiteral("gres"), gres},
                      {QStringLiteral("ok"), result.ok},
                      {QStringLiteral("cycleMs"),
                       result.events.isEmpty() ? 0 : result.events.last().atMs},
                      {QStringLiteral("events"), events}};
        if (!result.ok)
            o.insert(QStringLiteral("failedStep"),
                     QLatin1String(Fleet::toString(result.failedStep)));
        io.out << QJsonDocument(o).toJson(QJsonDocument::Indented);
    }
    if (!result.ok) {
        io.err << "zhaoxictl fleet repartition: failed at " << Fleet::toString(result.failedStep)
               << "; node " << node << " is left drained\n";
        return 1;
    }
    return 0;
}

} // namespace Zhaoxi::Cli
