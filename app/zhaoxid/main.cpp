// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxid: the appliance's service (issue 15). The runtime without a display: scheduling goes on
// when the console closes. Clients (the console with --connect, zhaoxictl) talk to it over a Unix
// socket; each request's author is the socket's peer. docs/service.md.
#include "app/zhaoxictl/cli.h"

#include "core/catalogue/catalogue.h"
#include "core/device/nvmlbackend.h"
#include "core/domain/workloadspec.h"
#include "core/fleet/fleetsubmit.h"
#include "core/policy/policy.h"
#include "core/service/protocol.h"
#include "core/service/server.h"
#include "core/session/fleetsession.h"
#include "core/session/hardwaresession.h"
#include "core/session/livesession.h"
#include "core/sim/scenario.h"
#ifdef ZHAOXI_HAVE_METRICS_ENDPOINT
#include "core/service/exposition.h"
#include "core/service/metricsendpoint.h"
#endif

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QSocketNotifier>
#include <QTextStream>
#include <QUrl>

#include <csignal>

#include <sys/socket.h>
#include <unistd.h>

using namespace Zhaoxi;

namespace {

constexpr char kUsage[]
        = "usage: zhaoxid (--scenario FILE | --hardware | --fleet slurm --rest URL --token-file "
          "F)\n"
          "               --db FILE [--socket PATH] [--user NAME] [--token-command CMD]\n"
          "               [--slurm-conf FILE] [--poll-ms MS] [--qos K=Q,...] [--qos-never Q]\n"
          "               [--metrics-listen ADDR:PORT] [--socket-mode MODE] [--group NAME]\n"
          "               [--policy NAME|none] [--data-dir DIR] [--nvml-library PATH]\n"
          "               [--allow-changes] [--allow-root] [--retention SPEC]\n"
          "\n"
          "The appliance's service: the scheduler and the runtime with real processes, an API on\n"
          "a Unix socket, the operator audit trail in the store, /metrics for Prometheus.\n"
          "  --scenario FILE        the scenario's simulated cards, every workload a real process\n"
          "  --hardware             this machine's NVIDIA cards (NVML)\n"
          "  --fleet slurm          a Slurm cluster of appliances through slurmrestd "
          "(docs/fleet.md):\n"
          "    --rest URL           slurmrestd (http://HOST:PORT, JWT over TCP)\n"
          "    --token-file FILE    the JWT (scontrol token), read again before every request\n"
          "    --user NAME          the token's user (default $USER)\n"
          "    --token-command CMD  renews the token before it expires; its output replaces the "
          "file\n"
          "    --slurm-conf FILE    slurm.conf for scontrol (requeue, priority, node choice)\n"
          "    --poll-ms MS         how often the cluster is read (default 5000)\n"
          "    --qos KIND=QOS,...   with slurmdbd: each kind's QOS (e.g. inference=inference)\n"
          "    --qos-never QOS      the QOS nothing preempts (preemption \"never\")\n"
          "  --db FILE              the store (events, state, audit); kept across restarts\n"
          "  --socket PATH          the API socket (default /run/zhaoxi/zhaoxid.sock)\n"
          "  --socket-mode MODE     its mode, octal (default 0666: every local user may read;\n"
          "                         0660 hides the appliance from users outside the group)\n"
          "  --group NAME           members and root may change things (default zhaoxi)\n"
          "  --metrics-listen A:P   serve /metrics over HTTP there (off unless given)\n"
          "  --retention SPEC       how long the store keeps card metrics and decision traces:\n"
          "                         raw=DUR,minute=DUR,quarter-hour=DUR,traces=N, any of them\n"
          "                         (default raw=6h,minute=8d,quarter-hour=400d,traces=20000;\n"
          "                         events and the audit trail are kept whole)\n"
          "SIGTERM stops taking changes, leaves running workloads running (the next start adopts\n"
          "them), commits the store and exits 0.\n";

// --retention raw=6h,minute=8d,quarter-hour=400d,traces=20000 (any subset, any order).
std::optional<Storage::Retention> parseRetention(const QString &spec, QString *error)
{
    Storage::Retention r;
    for (const QString &term : spec.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const qsizetype eq = term.indexOf(QLatin1Char('='));
        const QString key = term.left(eq).trimmed();
        const QString value = eq < 0 ? QString() : term.mid(eq + 1).trimmed();
        if (key == QLatin1String("traces")) {
            bool ok = false;
            r.traces = value.toLongLong(&ok);
            if (!ok || r.traces < 1) {
                *error = QStringLiteral("traces: expected a count of at least 1, got \"%1\"")
                                 .arg(value);
                return std::nullopt;
            }
            continue;
        }
        qint64 *field = key == QLatin1String("raw")            ? &r.rawMs
                        : key == QLatin1String("minute")       ? &r.minuteMs
                        : key == QLatin1String("quarter-hour") ? &r.quarterHourMs
                                                               : nullptr;
        if (!field) {
            *error = QStringLiteral("unknown term \"%1\" (known: raw, minute, quarter-hour, "
                                    "traces)")
                             .arg(key);
            return std::nullopt;
        }
        const auto ms = Domain::durationMsFromString(value);
        if (!ms || *ms < 60'000) {
            *error = QStringLiteral("%1: expected a duration of at least 1m such as 6h or 8d, "
                                    "got \"%2\"")
                             .arg(key, value);
            return std::nullopt;
        }
        *field = *ms;
    }
    // A finer tier kept longer than a coarser one would be rolled into nothing.
    if (r.rawMs > r.minuteMs || r.minuteMs > r.quarterHourMs) {
        *error = QStringLiteral("raw <= minute <= quarter-hour is required");
        return std::nullopt;
    }
    return r;
}

int g_signalPipe[2] = {-1, -1};

void onTerminate(int)
{
    const char c = 1;
    [[maybe_unused]] const ssize_t n = ::write(g_signalPipe[1], &c, 1);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("zhaoxid"));
    QTextStream out(stdout);
    QTextStream err(stderr);
    const QStringList argList = app.arguments().mid(1);
    if (argList.contains(QLatin1String("--help")) || argList.contains(QLatin1String("-h"))) {
        out << kUsage;
        return 0;
    }
    Cli::Args args(argList);
    const auto scenarioPath = args.value(QStringLiteral("scenario"));
    const bool hardware = args.flag(QStringLiteral("hardware"));
    const auto db = args.value(QStringLiteral("db"));
    const QString socket
            = QFileInfo(args.value(QStringLiteral("socket"))
                                .value_or(QString::fromLatin1(Service::kDefaultSocket)))
                      .absoluteFilePath();
    const auto metricsListen = args.value(QStringLiteral("metrics-listen"));
    const auto modeText = args.value(QStringLiteral("socket-mode"));
    const auto group = args.value(QStringLiteral("group"));
    const auto policy = args.value(QStringLiteral("policy"));
    const auto dataDir = args.value(QStringLiteral("data-dir"));
    const auto nvmlLibrary = args.value(QStringLiteral("nvml-library"));
    const bool allowChanges = args.flag(QStringLiteral("allow-changes"));
    const bool allowRoot = args.flag(QStringLiteral("allow-root"));
    const auto retentionText = args.value(QStringLiteral("retention"));
    const auto fleetKind = args.value(QStringLiteral("fleet"));
    const auto rest = args.value(QStringLiteral("rest"));
    const auto tokenFile = args.value(QStringLiteral("token-file"));
    const auto fleetUser = args.value(QStringLiteral("user"));
    const auto tokenCommand = args.value(QStringLiteral("token-command"));
    const auto slurmConf = args.value(QStringLiteral("slurm-conf"));
    const auto pollMs = args.value(QStringLiteral("poll-ms"));
    const auto qos = args.value(QStringLiteral("qos"));
    const auto qosNever = args.value(QStringLiteral("qos-never"));
    auto usage = [&](const QString &why) {
        err << "zhaoxid: " << why << "\n" << kUsage;
        return 2;
    };
    if (!args.missingValueFor().isEmpty())
        return usage(args.missingValueFor() + QStringLiteral(" needs a value"));
    if (!args.unknownOptions().isEmpty() || !args.positional().isEmpty())
        return usage(QStringLiteral("unexpected argument(s): ")
                     + (args.unknownOptions() + args.positional()).join(QLatin1Char(' ')));
    if (int(bool(scenarioPath)) + int(hardware) + int(bool(fleetKind)) != 1)
        return usage(QStringLiteral("give one of --scenario FILE, --hardware and --fleet slurm"));
    if (fleetKind && *fleetKind != QLatin1String("slurm"))
        return usage(QStringLiteral("--fleet: the only kind is slurm, got \"%1\"").arg(*fleetKind));
    if (!fleetKind
        && (rest || tokenFile || fleetUser || tokenCommand || slurmConf || pollMs || qos
            || qosNever))
        return usage(QStringLiteral("--rest, --token-file, --user, --token-command, --slurm-conf, "
                                    "--poll-ms, --qos and --qos-never go with --fleet slurm"));
    if (fleetKind && (!rest || !tokenFile))
        return usage(QStringLiteral("--fleet slurm needs --rest URL and --token-file FILE"));
    if (fleetKind && (policy || dataDir || allowRoot))
        return usage(QStringLiteral("--policy, --data-dir and --allow-root do not go with --fleet: "
                                    "Slurm runs the fleet's jobs"));
    if (!db)
        return usage(QStringLiteral("--db FILE is required (the store is kept across restarts)"));
    if (!hardware && (nvmlLibrary || allowChanges))
        return usage(QStringLiteral("--nvml-library and --allow-changes go with --hardware"));
    Storage::Retention retention;
    if (retentionText) {
        QString why;
        const auto r = parseRetention(*retentionText, &why);
        if (!r)
            return usage(QStringLiteral("--retention: %1").arg(why));
        retention = *r;
    }
    Service::ServerOptions so;
    so.socketPath = socket;
    if (group)
        so.operatorGroup = *group;
    if (modeText) {
        bool ok = false;
        const int mode = modeText->toInt(&ok, 8);
        if (!ok || mode < 0 || mode > 0777)
            return usage(
                    QStringLiteral("--socket-mode expects an octal mode such as 0660, got \"%1\"")
                            .arg(*modeText));
        so.socketMode = mode;
    }
#ifdef ZHAOXI_HAVE_METRICS_ENDPOINT
    std::optional<Service::ListenAddress> metricsAt;
    if (metricsListen) {
        QString why;
        metricsAt = Service::parseListenAddress(*metricsListen, &why);
        if (!metricsAt)
            return usage(QStringLiteral("--metrics-listen: %1").arg(why));
    }
#else
    if (metricsListen)
        return usage(
                QStringLiteral("--metrics-listen: this build has no HTTP server (Qt HttpServer)"));
#endif
    const QString shim = Cli::findBeside(QStringLiteral("zhaoxi-shim"), QStringLiteral("shim"));
    if (shim.isEmpty() && !fleetKind) {
        err << "zhaoxid: zhaoxi-shim not found beside zhaoxid or in PATH\n";
        return 2;
    }
    // The shipped demo workloads are found by name, as scenarios name them.
    const QString demo = QFileInfo(Cli::findBeside(QStringLiteral("zhaoxi-demo-train"),
                                                   QStringLiteral("demo")))
                                 .absolutePath();
    if (!demo.isEmpty() && demo != QLatin1String("."))
        qputenv("PATH", (demo + QLatin1Char(':') + qEnvironmentVariable("PATH")).toLocal8Bit());
    if (!QDir().mkpath(QFileInfo(*db).absolutePath())) {
        err << "zhaoxid: cannot create the directory of " << *db << "\n";
        return 2;
    }

    Session::registerMetaTypes();
    std::unique_ptr<Session::ApplianceSession> session;
    Session::LiveSession *live = nullptr;
    QString why;
    if (scenarioPath) {
        const Catalogue::Catalogue catalogue = Catalogue::Catalogue::builtIn();
        Sim::ScenarioError serr;
        std::optional<Sim::Scenario> scenario
                = Sim::loadScenarioFile(*scenarioPath, catalogue, &serr);
        if (!scenario) {
            err << "zhaoxid: " << serr.toString() << "\n";
            return 2;
        }
        Session::LiveOptions o;
        o.storePath = *db;
        o.dataDir = dataDir.value_or(QString());
        o.shimPath = shim;
        o.loadPath = Cli::findBeside(QStringLiteral("zhaoxi-demo-load"), QStringLiteral("demo"));
        o.policy = policy ? Cli::knownName(*policy, Policy::policyNames() << QStringLiteral("none"))
                          : QString();
        if (policy && o.policy.isEmpty())
            return usage(QStringLiteral("--policy: unknown policy \"%1\"; known: %2")
                                 .arg(*policy,
                                      (Policy::policyNames() << QStringLiteral("none"))
                                              .join(QStringLiteral(", "))));
        o.allowRoot = allowRoot;
        o.snapshotIntervalMs = 100;
        o.retention = retention;
        auto s = Session::LiveSession::create(*scenario, o, &why);
        if (!s) {
            err << "zhaoxid: " << *scenarioPath << ": " << why << "\n";
            return 2;
        }
        live = s.get();
        session = std::move(s);
    } else if (fleetKind) {
        Session::FleetOptions f;
        f.restUrl = QUrl(*rest, QUrl::StrictMode);
        f.tokenFile = *tokenFile;
        f.user = fleetUser.value_or(qEnvironmentVariable("USER", qEnvironmentVariable("LOGNAME")));
        if (tokenCommand) {
            f.tokenCommand = QProcess::splitCommand(*tokenCommand);
            if (f.tokenCommand.isEmpty())
                return usage(
                        QStringLiteral("--token-command: no command in \"%1\"").arg(*tokenCommand));
        }
        f.slurmConf = slurmConf.value_or(QString());
        if (qos) {
            const auto byKind = Fleet::parseQosByKind(*qos, &why);
            if (!byKind)
                return usage(QStringLiteral("--qos: %1").arg(why));
            f.qosByKind = *byKind;
        }
        f.qosNever = qosNever.value_or(QString());
        if (pollMs) {
            bool ok = false;
            f.pollIntervalMs = pollMs->toInt(&ok);
            if (!ok || f.pollIntervalMs < 250 || f.pollIntervalMs > 600000)
                return usage(
                        QStringLiteral("--poll-ms: expected 250..600000, got \"%1\"").arg(*pollMs));
        }
        f.storePath = *db;
        f.retention = retention;
        f.submitWorkdir = QFileInfo(*db).absoluteDir().filePath(QStringLiteral("fleet-jobs"));
        QDir().mkpath(f.submitWorkdir);
        f.submitEnvironment.insert(QStringLiteral("PATH"),
                                   qEnvironmentVariable("PATH", QStringLiteral("/usr/bin:/bin")));
        auto s = Session::FleetSession::create(f, &why);
        if (!s)
            return usage(QStringLiteral("--fleet slurm: %1").arg(why));
        s->prepare();
        session = std::move(s);
    } else {
        Device::NvmlBackendOptions o;
        o.catalogue = Catalogue::Catalogue::builtIn();
        o.libraryPath = nvmlLibrary.value_or(QString());
        Session::HardwareOptions h;
        h.allowChanges = allowChanges;
        h.storePath = *db;
        h.dataDir = dataDir.value_or(QFileInfo(*db).absoluteDir().filePath(QStringLiteral("work")));
        h.shimPath = shim;
        h.allowRoot = allowRoot;
        h.retention = retention;
        auto s = Session::HardwareSession::open(o, h, &why);
        if (!s) {
            err << "zhaoxid: --hardware: " << why << "\n";
            return 2;
        }
        session = std::move(s);
    }

    Service::Server server(*session, so);
    if (!server.listen(&why)) {
        err << "zhaoxid: " << why << "\n";
        return 2;
    }
#ifdef ZHAOXI_HAVE_METRICS_ENDPOINT
    // It sees every snapshot: its counters come from each one's events.
    Service::MetricsExporter exporter;
    QObject::connect(session.get(),
                     &Session::ApplianceSession::snapshotReady,
                     &app,
                     [&exporter](Session::SnapshotPtr s) {
                         if (s)
                             exporter.observe(std::move(s));
                     });
    Service::MetricsEndpoint endpoint([&exporter] { return exporter.render(); });
    if (metricsAt && !endpoint.listen(metricsAt->address, metricsAt->port, &why)) {
        err << "zhaoxid: --metrics-listen " << *metricsListen << ": " << why << "\n";
        return 2;
    }
#endif
    QMetaObject::invokeMethod(session.get(), "start", Qt::DirectConnection);

    // SIGTERM and SIGINT: stop taking changes, leave the work running, commit, exit 0.
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, g_signalPipe) == 0) {
        std::signal(SIGTERM, onTerminate);
        std::signal(SIGINT, onTerminate);
    }
    std::signal(SIGPIPE, SIG_IGN);
    int rc = 0;
    QSocketNotifier notifier(g_signalPipe[0], QSocketNotifier::Read);
    QObject::connect(&notifier, &QSocketNotifier::activated, &app, [&] {
        char c;
        [[maybe_unused]] const ssize_t n = ::read(g_signalPipe[0], &c, 1);
        server.stopTakingChanges();
        QString e;
        bool ok = true;
        if (live) {
            ok = live->release(&e);
        } else {
            session->stop();
            ok = session->commitNow(&e);
        }
        if (!ok) {
            err << "zhaoxid: the store " << *db << " did not commit at exit: " << e << "\n";
            rc = 1;
        }
        app.quit();
    });
    err << "zhaoxid: serving "
        << (scenarioPath ? *scenarioPath
            : fleetKind  ? QStringLiteral("the Slurm fleet at %1").arg(*rest)
                         : QStringLiteral("this machine's cards"))
        << " at " << socket << " (store " << *db << ")\n";
    err.flush();
    app.exec();
    return rc;
}
