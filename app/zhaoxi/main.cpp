// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxi: the console. The composition root: reads the command line, loads the appliance, builds
// the language controller and the main window, and runs the event loop (or renders one frame to
// a PNG for --screenshot). Command-line output is English, like zhaoxictl's; the window is
// translated.
#include "core/catalogue/catalogue.h"
#include "core/sched/appliancefile.h"
#include "widgets/languagecontroller.h"
#include "widgets/mainwindow.h"

#include <QApplication>
#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QPixmap>
#include <QTextStream>

#include <cstdio>
#include <cstdlib>
#include <optional>

namespace {

using namespace Zhaoxi;

const char kDefaultAppliance[] = ":/appliances/demo.json";

enum ExitCode { Ok = 0, Failure = 1, UsageError = 2 };

struct Options
{
    QString appliance = QString::fromLatin1(kDefaultAppliance);
    QString language;            // empty: follow the system locale
    QString screenshot;          // empty: run interactively
    bool platformChosen = false; // QT_QPA_PLATFORM or -platform
    bool displayGiven = false;   // -display
};

void printUsage(QTextStream &s)
{
    s << "usage: zhaoxi [--appliance FILE] [--lang en|zh_CN] [--screenshot FILE.png]\n"
         "\n"
         "The Zhaoxi console: shows a GPU appliance's hosts, cards and partitions.\n"
         "\n"
         "options:\n"
         "  --appliance FILE     the appliance description (JSON) to show;\n"
         "                       default: the built-in demo appliance\n"
         "  --lang LANG          the display language: en or zh_CN;\n"
         "                       default: zh_CN on a Chinese system locale, else en\n"
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
    const QCommandLineOption screenshot(
            QStringLiteral("screenshot"), QStringLiteral("screenshot"), QStringLiteral("FILE"));
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
    parser.addOptions({help, appliance, lang, screenshot});
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
    if (!parser.positionalArguments().isEmpty()) {
        err << "zhaoxi: unexpected argument '" << parser.positionalArguments().constFirst()
            << "'\n";
        printUsage(err);
        *exitCode = UsageError;
        return std::nullopt;
    }

    Options o;
    if (parser.isSet(appliance))
        o.appliance = parser.value(appliance);
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

} // namespace

int main(int argc, char **argv)
{
    QTextStream out(stdout);
    QTextStream err(stderr);

    int exitCode = Ok;
    const std::optional<Options> options = parseArguments(argc, argv, out, err, &exitCode);
    if (!options)
        return exitCode;

    // The appliance is read before the window exists, so that a bad file costs no window.
    const Catalogue::Catalogue catalogue = Catalogue::Catalogue::builtIn();
    Sched::ApplianceError error;
    const std::optional<Sched::Appliance> appliance
            = Sched::loadApplianceFile(options->appliance, catalogue, &error);
    if (!appliance) {
        err << "zhaoxi: " << error.toString() << "\n";
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

    Widgets::LanguageController languages;
    const QString language = options->language.isEmpty()
                                     ? Widgets::LanguageController::systemLanguage()
                                     : options->language;
    if (!languages.setLanguage(language))
        err << "zhaoxi: the " << language << " translation is missing; showing English\n";

    Widgets::MainWindow window(&languages);
    window.setAppliance(appliance->name, appliance->state);

    if (!options->screenshot.isEmpty()) {
        window.show();
        // Let the window lay itself out and handle the posted language change before rendering.
        QCoreApplication::processEvents();
        QCoreApplication::processEvents();
        const QPixmap frame = window.grab();
        if (frame.isNull() || !frame.save(options->screenshot, "PNG")) {
            err << "zhaoxi: cannot write the screenshot to " << options->screenshot << "\n";
            return Failure;
        }
        out << "zhaoxi: wrote " << options->screenshot << " (" << frame.width() << "x"
            << frame.height() << ")\n";
        return Ok;
    }

    window.show();
    return app.exec();
}
