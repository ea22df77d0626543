// SPDX-License-Identifier: GPL-3.0-or-later
// Replays scenarios (by default the demo day, then the fleet twin's 16 hosts) under every policy
// and prints each one's comparison table and the wall time per simulated day. Figures, not
// pass/fail.
//
//   bench_simulate [SCENARIO.json ...] [--seed N] [--repeat N]
#include "core/catalogue/catalogue.h"
#include "core/policy/policy.h"
#include "core/sim/engine.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTextStream>

#include <algorithm>
#include <vector>

using namespace Zhaoxi;

namespace {

int benchScenario(const QString &file, qint64 seed, int repeat, QTextStream &out)
{
    Sim::ScenarioError error;
    const auto scenario = Sim::loadScenarioFile(file, Catalogue::Catalogue::builtIn(), &error);
    if (!scenario) {
        QTextStream(stderr) << error.toString() << "\n";
        return 2;
    }
    const quint64 s = seed >= 0 ? quint64(seed) : scenario->seed;
    const double days = double(scenario->durationMs) / (24 * 3600'000.0);
    QList<Sim::Report> reports;
    QList<double> best;
    QList<double> median;
    for (const QString &p : Policy::policyNames()) {
        std::vector<double> walls;
        Sim::Report r;
        for (int k = 0; k < repeat; ++k) {
            Sim::Engine engine(*scenario, p, s);
            r = engine.run();
            walls.push_back(r.wallSeconds);
        }
        std::sort(walls.begin(), walls.end());
        r.wallSeconds = walls.front();
        reports.append(r);
        best.append(walls.front());
        // On a shared machine the best run is the code's own figure and the median the one to
        // quote; far apart, the machine was busy.
        const std::size_t n = walls.size();
        median.append(n % 2 ? walls[n / 2] : (walls[n / 2 - 1] + walls[n / 2]) / 2);
    }
    out << "scenario " << scenario->name << ", seed " << s << ", " << days << " simulated day(s), "
        << scenario->appliance.state.hosts().size() << " host(s), "
        << scenario->appliance.state.cards().size() << " card(s)\n\n";
    out << Sim::formatComparison(reports);
    out << "\nwall time per simulated day (s per simulated day; best and median of " << repeat
        << " run(s)):\n";
    double totalBest = 0;
    double totalMedian = 0;
    for (int i = 0; i < reports.size(); ++i) {
        out << "  " << reports[i].policy << ": " << QString::number(best[i] / days, 'f', 3)
            << " s, median " << QString::number(median[i] / days, 'f', 3) << " s ("
            << reports[i].requests << " requests)\n";
        totalBest += best[i];
        totalMedian += median[i];
    }
    out << "  all " << reports.size() << " policies: " << QString::number(totalBest, 'f', 3)
        << " s, median " << QString::number(totalMedian, 'f', 3) << " s\n";
    // Issue 18's yardstick: a week of this scenario under every policy, scaled from the day(s)
    // replayed. For the demo day it errs a little high: its training arrives on the first day,
    // and a 168 h copy of it, whose later days mostly serve requests, takes 5-10 % less.
    out << "  a week under all " << reports.size()
        << " policies (estimate): " << QString::number(totalBest / days * 7, 'f', 1)
        << " s, median " << QString::number(totalMedian / days * 7, 'f', 1) << " s\n";
    out.flush();
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QTextStream out(stdout);
    QStringList args = app.arguments().mid(1);
    QStringList files;
    qint64 seed = -1;
    int repeat = 1;
    for (int i = 0; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--seed") && i + 1 < args.size())
            seed = args[++i].toLongLong();
        else if (args[i] == QLatin1String("--repeat") && i + 1 < args.size())
            repeat = std::max(1, args[++i].toInt());
        else
            files.append(args[i]);
    }
    if (files.isEmpty())
        files = {QStringLiteral(ZHAOXI_SOURCE_DIR "/resources/scenarios/demo-day.json"),
                 QStringLiteral(ZHAOXI_SOURCE_DIR "/resources/scenarios/fleet-16.json")};
    for (int i = 0; i < files.size(); ++i) {
        if (i > 0)
            out << "\n";
        if (const int code = benchScenario(files[i], seed, repeat, out))
            return code;
    }
    return 0;
}
