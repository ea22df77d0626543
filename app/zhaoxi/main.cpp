// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxi: the console. The composition root: reads the command line, loads the appliance, builds
// the language controller and the main window, and runs the event loop (or renders one frame to
// a PNG for --screenshot). Command-line output is English, like zhaoxictl's; the window is
// translated.
#include "core/catalogue/catalogue.h"
#include "core/fleet/fleetsubmit.h"
#include "core/models/eventlogmodel.h"
#include "core/models/sessionclient.h"
#include "core/policy/policy.h"
#include "core/sched/appliancefile.h"
#include "core/service/consoleaudit.h"
#include "core/service/protocol.h"
#include "core/service/remotesession.h"
#include "core/session/fleetsession.h"
#include "core/session/hardwaresession.h"
#include "core/session/simulationsession.h"
#include "core/sim/scenario.h"
#include "core/storage/store.h"
#include "widgets/catchup.h"
#include "widgets/eventlog/eventlogview.h"
#include "widgets/languagecontroller.h"
#include "widgets/mainwindow.h"

#include <QApplication>
#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMessageBox>
#include <QPixmap>
#include <QProcess>
#include <QRegularExpression>
#include <QSettings>
#include <QSize>
#include <QTextStream>
#include <QThread>

#include <cstdio>
#include <cstdlib>
#include <optional>

namespace {

using namespace Zhaoxi;

const char kDefaultScenario[] = ":/scenarios/demo-day.json";

enum ExitCode { Ok = 0, Failure = 1, UsageError = 2 };

struct Options
{
    QString scenario = QString::fromLatin1(kDefaultScenario);
    QString appliance;     // set: show this appliance, with no workload
    QString policy;        // empty: the scenario's default
    double speed = -2;     // simulated seconds per second; -2: the saved setting; <= 0 max
    qint64 atMs = -1;      // start the day at this local time (ms after midnight)
    bool hardware = false; // the real cards through NVML
    QString connect;       // set: attach to the service listening on this socket
    bool fleet = false;    // a Slurm cluster of appliances (--fleet slurm)
    Session::FleetOptions fleetOptions;
    QString language;            // empty: follow the system locale
    QString screenshot;          // empty: run interactively
    QSize size;                  // --size; invalid: the last one used
    bool platformChosen = false; // QT_QPA_PLATFORM or -platform
    bool displayGiven = false;   // -display
};

void printUsage(QTextStream &s)
{
    s << "usage: zhaoxi [--scenario FILE | --appliance FILE] [--policy NAME] [--speed X]\n"
         "              [--at HH:MM] [--lang en|zh_CN] [--size WxH] [--screenshot FILE.png]\n"
         "       zhaoxi --connect [SOCKET] [--lang en|zh_CN] [--screenshot FILE.png]\n"
         "       zhaoxi --fleet slurm --rest URL --token-file FILE [--user NAME]\n"
         "              [--token-command CMD] [--slurm-conf FILE] [--qos K=Q,...]\n"
         "              [--qos-never QOS] [--lang ...] [--screenshot ...]\n"
         "\n"
         "The Zhaoxi console: runs a GPU appliance's day (by default the embedded simulated\n"
         "appliance's demo day, faster than real time) and shows its cards, partitions, jobs,\n"
         "charts and events.\n"
         "\n"
         "options:\n"
         "  --scenario FILE      the simulated day to run (docs/simulation.md);\n"
         "                       default: the built-in demo day (8x H200 + 3 L40S)\n"
         "  --appliance FILE     show this appliance description (JSON) with no workload\n"
         "  --policy NAME        the colocation policy: static, windows, guard or forecast;\n"
         "                       default: the scenario's\n"
         "  --speed X            simulated seconds per second (1 = real time, 0 = as fast as\n"
         "                       it goes); default: the last one used, else 60\n"
         "  --at HH:MM           start the day at this local time (the console runs the\n"
         "                       simulation up to it first)\n"
         "  --hardware           this machine's NVIDIA cards through NVML (read-only unless\n"
         "                       applying changes is enabled in Settings); without a driver\n"
         "                       the console offers the simulated appliance instead\n"
         "  --connect [SOCKET]   attach to the appliance's service (zhaoxid) instead of\n"
         "                       embedding one: every change goes through its API; default\n"
         "                       socket: $ZHAOXI_SOCKET, else /run/zhaoxi/zhaoxid.sock\n"
         "  --fleet slurm        a Slurm cluster of appliances through slurmrestd: its nodes\n"
         "                       as hosts, their GRES as cards and partitions, its jobs\n"
         "                       (docs/fleet.md); with:\n"
         "  --rest URL           slurmrestd's URL (http://HOST:PORT, JWT over TCP)\n"
         "  --token-file FILE    the JWT (scontrol token); read again before every request\n"
         "  --user NAME          the token's user; default: $USER\n"
         "  --token-command CMD  renews the token before it expires (its output replaces the\n"
         "                       file), e.g. \"scontrol token lifespan=3600\"\n"
         "  --slurm-conf FILE    the cluster's slurm.conf for scontrol (requeue, a job's node)\n"
         "  --qos KIND=QOS,...   with slurmdbd: each kind's QOS, e.g.\n"
         "                       inference=inference,training=training\n"
         "  --qos-never QOS      the QOS nothing preempts (preemption \"never\")\n"
         "  --lang LANG          the display language: en or zh_CN;\n"
         "                       default: zh_CN on a Chinese system locale, else en\n"
         "  --size WxH           the window's size in pixels, e.g. 1366x768 (640x480 and\n"
         "                       up); default: the last one used\n"
         "  --screenshot FILE    render the main window to a PNG file and exit; uses the\n"
         "                       offscreen platform unless QT_QPA_PLATFORM chooses another\n"
         "  -h, --help           show this help and exit\n"
         "\n"
         "Qt's own options (-platform NAME, -display DISPLAY, ...) are accepted too.\n"
         "Exit status: 0 on success, 1 when the screenshot cannot be written, 2 for a usage\n"
         "error, an appliance file that cannot be read, or no display to show the window on.\n";
}

// Reads the command line before any application object exists: whether there is a display to
// connect to decides whether one can be created at all.
std::optional<Options> parseArguments(
        int argc, char **argv, QTextStream &out, QTextStream &err, int *exitCode)
{
    QStringList args;
    for (int i = 0; i < argc; ++i)
        args << QString::fromLocal8Bit(argv[i]);

    QCommandLineParser parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption help({QStringLiteral("h"), QStringLiteral("help")},
                                  QStringLiteral("help"));
    const QCommandLineOption appliance(
            QStringLiteral("appliance"), QStringLiteral("appliance"), QStringLiteral("FILE"));
    const QCommandLineOption lang(
            QStringLiteral("lang"), QStringLiteral("lang"), QStringLiteral("LANG"));
    const QCommandLineOption scenario(
            QStringLiteral("scenario"), QStringLiteral("scenario"), QStringLiteral("FILE"));
    const QCommandLineOption policy(
            QStringLiteral("policy"), QStringLiteral("policy"), QStringLiteral("NAME"));
    const QCommandLineOption speed(
            QStringLiteral("speed"), QStringLiteral("speed"), QStringLiteral("X"));
    const QCommandLineOption at(
            QStringLiteral("at"), QStringLiteral("at"), QStringLiteral("HH:MM"));
    const QCommandLineOption hardware(QStringLiteral("hardware"), QStringLiteral("hardware"));
    const QCommandLineOption connectTo(QStringLiteral("connect"), QStringLiteral("connect"));
    const QCommandLineOption fleet(
            QStringLiteral("fleet"), QStringLiteral("fleet"), QStringLiteral("KIND"));
    const QCommandLineOption rest(
            QStringLiteral("rest"), QStringLiteral("rest"), QStringLiteral("URL"));
    const QCommandLineOption tokenFile(
            QStringLiteral("token-file"), QStringLiteral("token-file"), QStringLiteral("FILE"));
    const QCommandLineOption user(
            QStringLiteral("user"), QStringLiteral("user"), QStringLiteral("NAME"));
    const QCommandLineOption tokenCommand(QStringLiteral("token-command"),
                                          QStringLiteral("token-command"),
                                          QStringLiteral("CMD"));
    const QCommandLineOption slurmConf(
            QStringLiteral("slurm-conf"), QStringLiteral("slurm-conf"), QStringLiteral("FILE"));
    const QCommandLineOption qos(
            QStringLiteral("qos"), QStringLiteral("qos"), QStringLiteral("KIND=QOS,..."));
    const QCommandLineOption qosNever(
            QStringLiteral("qos-never"), QStringLiteral("qos-never"), QStringLiteral("QOS"));
    const QCommandLineOption screenshot(
            QStringLiteral("screenshot"), QStringLiteral("screenshot"), QStringLiteral("FILE"));
    const QCommandLineOption size(
            QStringLiteral("size"), QStringLiteral("size"), QStringLiteral("WxH"));
    // QGuiApplication's own options that take a value; QApplication consumes them later.
    QList<QCommandLineOption> qtOptions;
    for (const char *name : {"platform",
                             "platformpluginpath",
                             "platformtheme",
                             "display",
                             "geometry",
                             "qwindowgeometry",
                             "qwindowtitle",
                             "qwindowicon",
                             "plugin",
                             "style",
                             "stylesheet"}) {
        qtOptions.append(
                QCommandLineOption(QString::fromLatin1(name), QString(), QStringLiteral("VALUE")));
    }
    for (const char *name : {"reverse", "widgetcount", "nograb", "dograb", "sync"})
        qtOptions.append(QCommandLineOption(QString::fromLatin1(name), QString()));
    parser.addOptions({help,
                       appliance,
                       lang,
                       screenshot,
                       size,
                       scenario,
                       policy,
                       speed,
                       at,
                       hardware,
                       connectTo,
                       fleet,
                       rest,
                       tokenFile,
                       user,
                       tokenCommand,
                       slurmConf,
                       qos,
                       qosNever});
    parser.addOptions(qtOptions);

    if (!parser.parse(args)) {
        err << "zhaoxi: " << parser.errorText() << "\n";
        printUsage(err);
        *exitCode = UsageError;
        return std::nullopt;
    }
    if (parser.isSet(help)) {
        printUsage(out);
        *exitCode = Ok;
        return std::nullopt;
    }
    // --connect takes an optional socket: the positional argument right after it, if any.
    QStringList positional = parser.positionalArguments();
    QString socket;
    if (parser.isSet(connectTo) && !positional.isEmpty()) {
        const qsizetype at = args.indexOf(QStringLiteral("--connect"));
        if (at >= 0 && at + 1 < args.size() && args[at + 1] == positional.constFirst())
            socket = positional.takeFirst();
    }
    if (!positional.isEmpty()) {
        err << "zhaoxi: unexpected argument '" << positional.constFirst() << "'\n";
        printUsage(err);
        *exitCode = UsageError;
        return std::nullopt;
    }

    Options o;
    auto fail = [&](const QString &message) {
        err << "zhaoxi: " << message << "\n";
        *exitCode = UsageError;
        return std::nullopt;
    };
    if (parser.isSet(appliance) && parser.isSet(scenario))
        return fail(QStringLiteral("--appliance and --scenario exclude each other"));
    o.hardware = parser.isSet(hardware);
    if (o.hardware && (parser.isSet(appliance) || parser.isSet(scenario) || parser.isSet(at)))
        return fail(QStringLiteral("--hardware shows the real cards; leave out --appliance, "
                                   "--scenario and --at"));
    if (parser.isSet(connectTo)) {
        if (o.hardware || parser.isSet(appliance) || parser.isSet(scenario) || parser.isSet(at)
            || parser.isSet(policy) || parser.isSet(speed))
            return fail(QStringLiteral("--connect shows the service's appliance; leave out "
                                       "--hardware, --appliance, --scenario, --policy, --speed "
                                       "and --at"));
        o.connect = !socket.isEmpty() ? socket
                    : !qEnvironmentVariableIsEmpty("ZHAOXI_SOCKET")
                            ? qEnvironmentVariable("ZHAOXI_SOCKET")
                            : QString::fromLatin1(Service::kDefaultSocket);
    }
    const bool fleetOption = parser.isSet(rest) || parser.isSet(tokenFile) || parser.isSet(user)
                             || parser.isSet(tokenCommand) || parser.isSet(slurmConf)
                             || parser.isSet(qos) || parser.isSet(qosNever);
    if (parser.isSet(fleet)) {
        if (parser.value(fleet) != QLatin1String("slurm"))
            return fail(QStringLiteral("--fleet: the only kind is slurm, got '%1'")
                                .arg(parser.value(fleet)));
        if (o.hardware || parser.isSet(connectTo) || parser.isSet(appliance)
            || parser.isSet(scenario) || parser.isSet(at) || parser.isSet(policy)
            || parser.isSet(speed))
            return fail(QStringLiteral("--fleet shows a Slurm cluster; leave out --hardware, "
                                       "--connect, --appliance, --scenario, --policy, --speed and "
                                       "--at"));
        if (!parser.isSet(rest) || !parser.isSet(tokenFile))
            return fail(QStringLiteral("--fleet slurm needs --rest URL and --token-file FILE"));
        o.fleet = true;
        Session::FleetOptions &f = o.fleetOptions;
        f.restUrl = QUrl(parser.value(rest), QUrl::StrictMode);
        f.tokenFile = parser.value(tokenFile);
        f.user = parser.isSet(user) ? parser.value(user)
                                    : qEnvironmentVariable("USER", qEnvironmentVariable("LOGNAME"));
        if (parser.isSet(tokenCommand)) {
            f.tokenCommand = QProcess::splitCommand(parser.value(tokenCommand));
            if (f.tokenCommand.isEmpty())
                return fail(QStringLiteral("--token-command: no command in '%1'")
                                    .arg(parser.value(tokenCommand)));
        }
        if (parser.isSet(slurmConf))
            f.slurmConf = parser.value(slurmConf);
        if (parser.isSet(qos)) {
            QString why;
            const auto byKind = Fleet::parseQosByKind(parser.value(qos), &why);
            if (!byKind)
                return fail(QStringLiteral("--qos: %1").arg(why));
            f.qosByKind = *byKind;
        }
        if (parser.isSet(qosNever))
            f.qosNever = parser.value(qosNever);
        f.submitWorkdir = QDir::currentPath();
        f.submitEnvironment.insert(QStringLiteral("PATH"),
                                   qEnvironmentVariable("PATH", QStringLiteral("/usr/bin:/bin")));
        QString why;
        if (!Session::FleetSession::create(f, &why))
            return fail(QStringLiteral("--fleet slurm: %1").arg(why));
    } else if (fleetOption) {
        return fail(QStringLiteral("--rest, --token-file, --user, --token-command, --slurm-conf, "
                                   "--qos and --qos-never go with --fleet slurm"));
    }
    if (parser.isSet(appliance))
        o.appliance = parser.value(appliance);
    if (parser.isSet(scenario))
        o.scenario = parser.value(scenario);
    if (parser.isSet(policy)) {
        o.policy = parser.value(policy);
        if (!Policy::policyNames().contains(o.policy))
            return fail(QStringLiteral("unknown policy '%1' (known: %2)")
                                .arg(o.policy, Policy::policyNames().join(QStringLiteral(", "))));
    }
    if (parser.isSet(speed)) {
        bool ok = false;
        o.speed = parser.value(speed).toDouble(&ok);
        if (!ok || o.speed < 0 || o.speed > 1e6)
            return fail(QStringLiteral("--speed: expected a number 0..1000000, got '%1'")
                                .arg(parser.value(speed)));
        if (o.speed == 0)
            o.speed = -1;
    }
    if (parser.isSet(at)) {
        static const QRegularExpression hhmm(QStringLiteral("^([01]?\\d|2[0-3]):([0-5]\\d)$"));
        const QRegularExpressionMatch m = hhmm.match(parser.value(at));
        if (!m.hasMatch())
            return fail(QStringLiteral("--at: expected HH:MM (00:00..23:59), got '%1'")
                                .arg(parser.value(at)));
        o.atMs = (m.captured(1).toLongLong() * 60 + m.captured(2).toLongLong()) * 60'000;
    }
    if (parser.isSet(size)) {
        static const QRegularExpression wxh(QStringLiteral("^(\\d{3,5})x(\\d{3,5})$"));
        const QRegularExpressionMatch m = wxh.match(parser.value(size));
        const int w = m.hasMatch() ? m.captured(1).toInt() : 0;
        const int h = m.hasMatch() ? m.captured(2).toInt() : 0;
        if (w < 640 || h < 480 || w > 16384 || h > 16384)
            return fail(QStringLiteral("--size: expected WIDTHxHEIGHT in pixels, at least 640x480 "
                                       "(e.g. 1366x768), got '%1'")
                                .arg(parser.value(size)));
        o.size = QSize(w, h);
    }
    if (parser.isSet(lang)) {
        o.language = parser.value(lang);
        if (!Widgets::LanguageController::languages().contains(o.language)) {
            err << "zhaoxi: unknown language '" << o.language << "' (known: "
                << Widgets::LanguageController::languages().join(QStringLiteral(", ")) << ")\n";
            *exitCode = UsageError;
            return std::nullopt;
        }
    }
    if (parser.isSet(screenshot)) {
        o.screenshot = parser.value(screenshot);
        if (o.screenshot.isEmpty()) {
            err << "zhaoxi: --screenshot needs a file name\n";
            *exitCode = UsageError;
            return std::nullopt;
        }
    }
    o.platformChosen = !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")
                       || parser.isSet(QStringLiteral("platform"));
    o.displayGiven = parser.isSet(QStringLiteral("display"));
    return o;
}

bool hasDisplay()
{
    return !qEnvironmentVariableIsEmpty("DISPLAY")
           || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
}

// A display that is named but cannot be reached (a stale DISPLAY, a plugin that will not load)
// makes QGuiApplication call qFatal(), which aborts. While the application object is being
// built, turn that into the same clear message and exit status as having no display at all.
QtMessageHandler g_previousHandler = nullptr;

void platformStartupHandler(QtMsgType type, const QMessageLogContext &context, const QString &msg)
{
    if (type != QtFatalMsg) {
        if (g_previousHandler)
            g_previousHandler(type, context, msg);
        return;
    }
    std::fprintf(stderr,
                 "%s\nzhaoxi: cannot open a window; run under X11/Wayland, set "
                 "QT_QPA_PLATFORM=offscreen, or use --screenshot FILE\n",
                 qPrintable(msg));
    std::fflush(stderr);
    std::_Exit(UsageError);
}

// The day to run: a scenario file, or an appliance file shown with no workload (a day of its
// own, no policy, layouts left as they are).
std::optional<Sim::Scenario> loadScenario(const Options &o,
                                          const Catalogue::Catalogue &catalogue,
                                          QString *problem)
{
    Sim::ScenarioError error;
    if (o.appliance.isEmpty()) {
        auto s = Sim::loadScenarioFile(o.scenario, catalogue, &error);
        if (!s)
            *problem = error.toString();
        return s;
    }
    Sched::ApplianceError applianceError;
    if (!Sched::loadApplianceFile(o.appliance, catalogue, &applianceError)) {
        *problem = applianceError.toString();
        return std::nullopt;
    }
    QFile f(o.appliance);
    if (!f.open(QIODevice::ReadOnly)) {
        *problem = QStringLiteral("%1: %2").arg(o.appliance, f.errorString());
        return std::nullopt;
    }
    const QJsonObject appliance = QJsonDocument::fromJson(f.readAll()).object();
    const QJsonObject doc{
            {QStringLiteral("name"), appliance.value(QStringLiteral("name"))},
            {QStringLiteral("duration"), QStringLiteral("24h")},
            {QStringLiteral("appliance"), appliance},
            {QStringLiteral("reclaimIdlePartitions"), false},
            {QStringLiteral("services"), QJsonArray()},
    };
    auto s = Sim::readScenario(QJsonDocument(doc).toJson(),
                               o.appliance,
                               QFileInfo(o.appliance).absolutePath(),
                               catalogue,
                               &error);
    if (!s) {
        *problem = error.toString();
        return s;
    }
    s->defaultPolicy = QStringLiteral("none"); // no policy: nothing moves but the operator
    return s;
}

// The load the scenario's services expect per hour of the week (Monday 00:00 local first), in
// reference cards kept busy (requests per second x seconds per request): what the schedule
// editor draws under the windows.
QList<double> expectedLoad(const Sim::Scenario &scenario)
{
    QList<double> load(168, 0.0);
    for (int h = 0; h < 168; ++h) {
        const qint64 at = qint64(h) * 3'600'000 + 1'800'000; // mid-hour
        for (const Sim::ServiceDef &s : scenario.services)
            load[h] += s.curve.rate(at) * s.serviceMs / 1000.0;
    }
    return load;
}

} // namespace

int main(int argc, char **argv)
{
    QTextStream out(stdout);
    QTextStream err(stderr);

    int exitCode = Ok;
    const std::optional<Options> options = parseArguments(argc, argv, out, err, &exitCode);
    if (!options)
        return exitCode;

    // The day is read before the window exists, so that a bad file costs no window.
    const Catalogue::Catalogue catalogue = Catalogue::Catalogue::builtIn();
    QString problem;
    std::optional<Sim::Scenario> scenario = loadScenario(*options, catalogue, &problem);
    if (!scenario) {
        err << "zhaoxi: " << problem << "\n";
        return UsageError;
    }

    // Without a display QApplication would abort in the platform plugin: say so instead.
    if (!options->screenshot.isEmpty() && !options->platformChosen) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    } else if (options->screenshot.isEmpty() && !options->platformChosen && !options->displayGiven
               && !hasDisplay()) {
        err << "zhaoxi: no display found; run under X11/Wayland, set QT_QPA_PLATFORM=offscreen, "
               "or use --screenshot FILE\n";
        return UsageError;
    }

    g_previousHandler = qInstallMessageHandler(platformStartupHandler);
    QApplication app(argc, argv);
    qInstallMessageHandler(g_previousHandler);
    QApplication::setApplicationName(QStringLiteral("zhaoxi"));
    QApplication::setApplicationVersion(QStringLiteral(ZHAOXI_VERSION));
    QApplication::setOrganizationName(QStringLiteral("Zhaoxi"));

    const Widgets::ConsoleSettings settings = Widgets::ConsoleSettings::load(QSettings());
    Widgets::LanguageController languages;
    QString language = options->language;
    if (language.isEmpty() && Widgets::LanguageController::languages().contains(settings.language))
        language = settings.language;
    if (language.isEmpty())
        language = Widgets::LanguageController::systemLanguage();
    if (!languages.setLanguage(language))
        err << "zhaoxi: the " << language << " translation is missing; showing English\n";

    double speed = options->speed;
    if (speed == -2)
        speed = settings.speed;

    // The session owns the appliance and runs on its own thread; the window only sees its
    // snapshots and sends it commands. Real hardware when asked for and present; otherwise the
    // embedded simulated appliance.
    std::unique_ptr<Session::ApplianceSession> owned;
    Session::SimulationSession *simulation = nullptr;
    QString storePath;
    Service::RemoteSession *remote = nullptr;
    Session::FleetSession *fleet = nullptr;
    if (options->fleet) {
        QString why;
        std::unique_ptr<Session::FleetSession> f
                = Session::FleetSession::create(options->fleetOptions, &why);
        if (!f) {
            err << "zhaoxi: --fleet slurm: " << why << "\n";
            return UsageError;
        }
        fleet = f.get();
        owned = std::move(f);
    } else if (!options->connect.isEmpty()) {
        auto r = std::make_unique<Service::RemoteSession>(options->connect, catalogue);
        remote = r.get();
        owned = std::move(r);
    } else if (options->hardware) {
        Session::HardwareOptions ho;
        ho.allowChanges = settings.allowHardwareChanges;
        ho.pollIntervalMs = settings.pollIntervalMs;
        QString whyNot;
        std::unique_ptr<Session::HardwareSession> hw
                = Session::HardwareSession::open(Device::NvmlBackendOptions{}, ho, &whyNot);
        if (hw) {
            storePath = hw->storePath();
            owned = std::move(hw);
        } else {
            err << "zhaoxi: " << whyNot << "\n";
            const bool offer = options->screenshot.isEmpty();
            if (offer
                && QMessageBox::question(
                           nullptr,
                           QCoreApplication::translate("main", "Zhaoxi"),
                           QCoreApplication::translate(
                                   "main",
                                   "No NVIDIA driver found (%1).\n\nOpen the simulated "
                                   "appliance instead?")
                                   .arg(whyNot))
                           != QMessageBox::Yes)
                return UsageError;
            err << "zhaoxi: showing the simulated appliance\n";
        }
    }
    if (!owned) {
        auto sim = std::make_unique<Session::SimulationSession>(
                *scenario, options->policy, scenario->seed);
        sim->setSpeed(speed);
        sim->runTo(0);
        storePath = sim->storePath();
        simulation = sim.get();
        owned = std::move(sim);
    }
    Session::ApplianceSession *session = owned.get();
    Models::SessionClient client(session);

    Widgets::MainWindow window(&languages);
    window.setSession(&client, storePath);
    if (options->size.isValid())
        window.resize(options->size); // after the views restored the last geometry
    // The operator's changes are audited: by the service when attached to one, else here, into
    // the session's store (a fleet's opens when it starts).
    if (fleet) {
        fleet->prepare();
        window.setStorePath(fleet->storePath());
    }
    std::unique_ptr<Service::ConsoleAudit> audit;
    if (!remote) {
        if (Storage::Store *store = session->eventStore()) {
            QString why;
            audit = Service::ConsoleAudit::attach(client, *store, &why);
            if (audit)
                QObject::connect(audit.get(),
                                 &Service::ConsoleAudit::recorded,
                                 window.eventLog()->model(),
                                 &Models::EventLogModel::appendEvents);
            else
                err << "zhaoxi: the operator audit is off: " << why << "\n";
        }
    }
    if (remote) {
        // The charts start with the service's recorded hours, read over the socket (so the
        // service's store need not be readable by this user).
        QObject::connect(remote,
                         &Service::RemoteSession::historyReceived,
                         &window,
                         &Widgets::MainWindow::mergeHistory,
                         Qt::QueuedConnection);
        // Exports read the service's store, where this user may read it.
        QObject::connect(
                remote,
                &Service::RemoteSession::connectionChanged,
                &window,
                [&window, remote](bool up) {
                    if (up)
                        window.setStorePath(remote->storePath());
                },
                Qt::QueuedConnection);
    }
    if (simulation)
        window.setSchedule(scenario->policyParams.value(QStringLiteral("windows")).toObject(),
                           expectedLoad(*scenario));
    if (simulation && options->atMs > 0) {
        // --at is local time on the day's first date. The day runs up to it here, before the
        // session gets its own thread, a snapshot every simulated minute, so that the charts and
        // the event log have the morning behind them.
        const qint64 localStart = (scenario->startMs + scenario->utcOffsetMs) % 86'400'000;
        const qint64 until = std::max<qint64>(0, options->atMs - localStart);
        if (options->screenshot.isEmpty())
            window.show(); // the day's progress is seen
        Widgets::catchUp(*simulation, until, options->screenshot.isEmpty() ? &window : nullptr);
    }

    if (!options->screenshot.isEmpty()) {
        if (remote) {
            // The service's picture first (or its absence, said by the banner).
            remote->start();
            QElapsedTimer wait;
            wait.start();
            while (wait.elapsed() < 5000 && !(remote->latest() && remote->latest()->connected))
                QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        }
        if (fleet) {
            // The cluster's first read (or the banner saying why there is none).
            fleet->start();
            QElapsedTimer wait;
            wait.start();
            while (wait.elapsed() < 15000 && fleet->latest()
                   && fleet->latest()->state.hosts().isEmpty() && fleet->failuresInARow() == 0)
                QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        }
        window.show();
        // Let the window lay itself out, handle the posted language change and let the views'
        // coalesced repaints (charts replot on a short timer) happen before rendering.
        QElapsedTimer settle;
        settle.start();
        while (settle.elapsed() < 600)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        const QPixmap frame = window.grab();
        owned.reset();
        if (frame.isNull() || !frame.save(options->screenshot, "PNG")) {
            err << "zhaoxi: cannot write the screenshot to " << options->screenshot << "\n";
            return Failure;
        }
        out << "zhaoxi: wrote " << options->screenshot << " (" << frame.width() << "x"
            << frame.height() << ")\n";
        return Ok;
    }

    QThread sessionThread;
    sessionThread.setObjectName(QStringLiteral("session"));
    owned.release()->moveToThread(&sessionThread);
    QObject::connect(&sessionThread, &QThread::finished, session, &QObject::deleteLater);
    sessionThread.start();
    QMetaObject::invokeMethod(session, &Session::ApplianceSession::start, Qt::QueuedConnection);

    window.show();
    const int status = app.exec();
    audit.reset();
    QMetaObject::invokeMethod(
            session, &Session::ApplianceSession::stop, Qt::BlockingQueuedConnection);
    sessionThread.quit();
    sessionThread.wait();
    return status;
}
