// SPDX-License-Identifier: GPL-3.0-or-later
// Replays a scenario (the demo day by default) under every policy and prints the comparison
// table and the wall time per simulated day. Figures, not pass/fail.
//
//   bench_simulate [SCENARIO.json] [--seed N] [--repeat N]
#include "core/catalogue/catalogue.h"
#include "core/policy/policy.h"
#include "core/sim/engine.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTextStream>

#include <algorithm>

using namespace Zhaoxi;

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QTextStream out(stdout);
    QStringList args = app.arguments().mid(1);
    QString file = QStringLiteral(ZHAOXI_SOURCE_DIR "/resources/scenarios/demo-day.json");
    qint64 seed = -1;
    int repeat = 1;
    for (int i = 0; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--seed") && i + 1 < args.size())
            seed = args[++i].toLongLong();
        else if (args[i] == QLatin1String("--repeat") && i + 1 < args.size())
            repeat = std::max(1, args[++i].toInt());
        else
            file = args[i];
    }
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
    for (const QString &p : Policy::policyNames()) {
        double fastest = 1e100;
        Sim::Report r;
        for (int k = 0; k < repeat; ++k) {
            Sim::Engine engine(*scenario, p, s);
            r = engine.run();
            fastest = std::min(fastest, r.wallSeconds);
        }
        r.wallSeconds = fastest;
        reports.append(r);
        best.append(fastest);
    }
    out << "scenario " << scenario->name << ", seed " << s << ", " << days
        << " simulated day(s)\n\n";
    out << Sim::formatComparison(reports);
    out << "\nwall time per simulated day (best of " << repeat << "):\n";
    for (int i = 0; i < reports.size(); ++i)
        out << "  " << reports[i].policy << ": " << QString::number(best[i] / days, 'f', 3)
            << " s (" << reports[i].requests << " requests)\n";
    return 0;
}
