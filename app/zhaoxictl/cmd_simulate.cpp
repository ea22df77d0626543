// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxictl simulate: replays a scenario on the simulated appliance under one policy, or under
// every policy side by side (--compare), and prints the report (docs/simulation.md).
#include "commands.h"

#include "core/catalogue/catalogue.h"
#include "core/policy/policy.h"
#include "core/sim/engine.h"
#include "core/sim/scenario.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace Zhaoxi::Cli {

int runSimulate(const QStringList &argList, Io &io)
{
    Args args(argList);
    const std::optional<QString> scenarioPath = args.value(QStringLiteral("scenario"));
    const std::optional<QString> policyName = args.value(QStringLiteral("policy"));
    const std::optional<QString> seedText = args.value(QStringLiteral("seed"));
    args.value(QStringLiteral("db")); // the store belongs to another command; accepted, unused here
    const bool compare = args.flag(QStringLiteral("compare"));
    const bool json = args.flag(QStringLiteral("json"));
    if (!args.missingValueFor().isEmpty()) {
        io.err << "simulate: " << args.missingValueFor() << " needs a value\n";
        return 2;
    }
    if (!args.unknownOptions().isEmpty() || !args.positional().isEmpty()) {
        io.err << "simulate: unexpected argument(s): " << (args.unknownOptions() + args.positional()).join(QLatin1Char(' ')) << "\n";
        return 2;
    }
    if (!scenarioPath) {
        io.err << "simulate: --scenario FILE is required\n";
        return 2;
    }
    if (compare && policyName) {
        io.err << "simulate: --compare runs every policy; leave out --policy\n";
        return 2;
    }
    if (policyName && !Policy::policyNames().contains(*policyName)) {
        io.err << "simulate: unknown policy \"" << *policyName << "\" (known: " << Policy::policyNames().join(QStringLiteral(", ")) << ")\n";
        return 2;
    }
    const Catalogue::Catalogue catalogue = Catalogue::Catalogue::builtIn();
    Sim::ScenarioError error;
    const std::optional<Sim::Scenario> scenario = Sim::loadScenarioFile(*scenarioPath, catalogue, &error);
    if (!scenario) {
        io.err << "simulate: " << error.toString() << "\n";
        return 2;
    }
    quint64 seed = scenario->seed;
    if (seedText) {
        bool ok = false;
        seed = seedText->toULongLong(&ok);
        if (!ok) {
            io.err << "simulate: --seed expects a non-negative integer, got \"" << *seedText << "\"\n";
            return 2;
        }
    }
    const QStringList policies = compare ? Policy::policyNames() : QStringList{policyName.value_or(scenario->defaultPolicy)};
    QList<Sim::Report> reports;
    for (const QString &p : policies) {
        Sim::Engine engine(*scenario, p, seed);
        reports.append(engine.run());
    }
    if (json) {
        if (compare) {
            QJsonArray a;
            for (const Sim::Report &r : reports)
                a.append(r.toJson());
            io.out << QJsonDocument(QJsonObject{{QStringLiteral("policies"), a}}).toJson(QJsonDocument::Indented);
        } else {
            io.out << QJsonDocument(reports.first().toJson()).toJson(QJsonDocument::Indented);
        }
        return 0;
    }
    if (compare)
        io.out << "scenario " << scenario->name << ", seed " << seed << "\n\n" << Sim::formatComparison(reports);
    else
        io.out << Sim::formatReport(reports.first());
    return 0;
}

} // namespace Zhaoxi::Cli
