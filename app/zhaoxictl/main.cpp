// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxictl: the headless tool. Shares the core with the console.
#include "commands.h"

#include <QCoreApplication>

#include <cstring>

using namespace Zhaoxi::Cli;

static void printUsage(QTextStream &s)
{
    s << "usage: zhaoxictl [--socket PATH] COMMAND [OPTIONS]\n\ncommands:\n";
    for (const Command &c : kCommands)
        s << "  " << c.synopsis << "\n";
}

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("zhaoxictl"));
    QTextStream out(stdout);
    QTextStream err(stderr);
    QStringList args = app.arguments().mid(1);
    // "zhaoxictl --socket PATH COMMAND ...": the service's socket for the command (as if given
    // after it, or in $ZHAOXI_SOCKET).
    if (args.size() >= 2 && args.first() == QLatin1String("--socket")) {
        qputenv("ZHAOXI_SOCKET", args.at(1).toLocal8Bit());
        args = args.mid(2);
    } else if (!args.isEmpty() && args.first().startsWith(QLatin1String("--socket="))) {
        qputenv("ZHAOXI_SOCKET", args.first().mid(9).toLocal8Bit());
        args = args.mid(1);
    }
    if (args.isEmpty() || args.first() == QLatin1String("--help")
        || args.first() == QLatin1String("help")) {
        printUsage(args.isEmpty() ? err : out);
        return args.isEmpty() ? 2 : 0;
    }
    const QString name = args.takeFirst();
    for (const Command &c : kCommands) {
        if (name == QLatin1String(c.name)) {
            // Every command answers --help (or -h) alone or among its options, before it
            // reads any of them.
            if (args.contains(QLatin1String("--help")) || args.contains(QLatin1String("-h"))) {
                out << "usage: zhaoxictl " << c.synopsis << "\n";
                return 0;
            }
            Io io{out, err};
            const int rc = c.run(args, io);
            out.flush();
            err.flush();
            return rc;
        }
    }
    err << "zhaoxictl: unknown command '" << name << "'\n";
    printUsage(err);
    return 2;
}
