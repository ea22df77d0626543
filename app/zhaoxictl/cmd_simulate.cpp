// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxictl simulate: replays a scenario on the simulated appliance under one policy, or under
// every policy side by side (--compare), and prints the report (docs/simulation.md).
#include "commands.h"

#include "core/catalogue/catalogue.h"
#include "core/policy/policy.h"
#include "core/session/eventbridge.h"
#include "core/session/recordingsession.h"
#include "core/session/workloadrecording.h"
#include "core/sim/engine.h"
#include "core/sim/scenario.h"
#include "core/storage/recorder.h"
#include "core/storage/store.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <optional>

namespace Zhaoxi::Cli {

namespace {

// The events the sink recorded since `*seen` of them were taken (all it still holds of them).
template<typename Sink>
auto newEvents(const Sink &sink, qint64 *seen)
{
    const auto &all = sink.events();
    const qint64 fresh = std::min<qint64>(sink.total() - *seen, all.size());
    *seen = sink.total();
    return all.mid(all.size() - fresh);
}

// Replays the run minute by minute so the store gets each card's metrics over the day and the
// run's scheduler, policy and device events as they happen (committed as it goes: a run killed
// midway keeps what was committed), then its final state (issue 5: simulate --db). Every hour
// of the run the store is asked whether all was written; the first failure ends the replay
// (nullopt, *error naming the file and the cause).
std::optional<Sim::Report> recordRun(Sim::Engine &engine,
                                     const Sim::Scenario &scenario,
                                     const QString &policy,
                                     quint64 seed,
                                     Storage::Store &store,
                                     QString *error)
{
    Storage::Recorder rec(store);
    QElapsedTimer wall;
    wall.start();
    engine.start();
    rec.setState(&engine.scheduler().state());
    Session::recordRunBasis(rec, engine.nowMs(), scenario, policy, seed);
    Session::WorkloadRecording workloads;
    workloads.record(rec, engine.nowMs(), Session::serviceTallies(engine), {});
    qint64 schedSeen = 0, applianceSeen = 0;
    const auto recordEvents = [&] {
        for (const Sched::SchedEvent &e : newEvents(engine.schedulerEvents(), &schedSeen))
            rec.record(e);
        for (const Device::ApplianceEvent &e : newEvents(engine.applianceEvents(), &applianceSeen))
            Session::recordApplianceEvent(rec, e);
    };
    const auto written = [&] {
        if (store.flush())
            return true;
        *error = QStringLiteral("cannot write the store %1: %2")
                         .arg(store.path(), store.lastError());
        return false;
    };
    constexpr qint64 kStepMs = 60'000;
    int step = 0;
    for (qint64 t = kStepMs; t <= scenario.durationMs; t += kStepMs) {
        engine.advanceTo(t);
        const qint64 at = engine.nowMs();
        Session::recordCardMetrics(rec, at, engine.scheduler().state(), engine.backend());
        workloads.record(
                rec, at, Session::serviceTallies(engine), Session::trainingTallies(engine));
        recordEvents();
        if (++step % 60 == 0 && !written())
            return std::nullopt;
    }
    Sim::Report report = engine.finish();
    recordEvents();
    rec.recordState(engine.scheduler().state(), engine.nowMs());
    if (!written())
        return std::nullopt;
    report.wallSeconds = double(wall.nsecsElapsed()) / 1e9; // the replay and its recording
    return report;
}

} // namespace

int runSimulate(const QStringList &argList, Io &io)
{
    Args args(argList);
    const std::optional<QString> scenarioPath = args.value(QStringLiteral("scenario"));
    std::optional<QString> policyName = args.value(QStringLiteral("policy"));
    const std::optional<QString> seedText = args.value(QStringLiteral("seed"));
    const std::optional<QString> dbPath = args.value(QStringLiteral("db"));
    const bool compare = args.flag(QStringLiteral("compare"));
    const bool json = args.flag(QStringLiteral("json"));
    if (!args.missingValueFor().isEmpty()) {
        io.err << "simulate: " << args.missingValueFor() << " needs a value\n";
        return 2;
    }
    if (!args.unknownOptions().isEmpty() || !args.positional().isEmpty()) {
        io.err << "simulate: unexpected argument(s): "
               << (args.unknownOptions() + args.positional()).join(QLatin1Char(' ')) << "\n";
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
    if (compare && dbPath) {
        io.err << "simulate: --db records one run; leave out --compare\n";
        return 2;
    }
    if (const QString known
        = policyName ? knownName(*policyName, Policy::policyNames()) : QString();
        !known.isEmpty())
        policyName = known;
    if (policyName && !Policy::policyNames().contains(*policyName)) {
        io.err << "simulate: unknown policy \"" << *policyName
               << "\" (known: " << Policy::policyNames().join(QStringLiteral(", ")) << ")\n";
        return 2;
    }
    const Catalogue::Catalogue catalogue = Catalogue::Catalogue::builtIn();
    Sim::ScenarioError error;
    const std::optional<Sim::Scenario> scenario
            = Sim::loadScenarioFile(*scenarioPath, catalogue, &error);
    if (!scenario) {
        io.err << "simulate: " << error.toString() << "\n";
        return 2;
    }
    quint64 seed = scenario->seed;
    if (seedText) {
        bool ok = false;
        seed = seedText->toULongLong(&ok);
        if (!ok) {
            io.err << "simulate: --seed expects a non-negative integer, got \"" << *seedText
                   << "\"\n";
            return 2;
        }
    }
    const QStringList policies
            = compare ? Policy::policyNames()
                      : QStringList{policyName.value_or(scenario->defaultPolicy)};
    QList<Sim::Report> reports;
    if (dbPath) {
        QString storeError;
        const std::unique_ptr<Storage::Store> store = Storage::Store::open(*dbPath, &storeError);
        if (!store) {
            io.err << "simulate: cannot open the store " << *dbPath << ": " << storeError << "\n";
            return 2;
        }
        Sim::Engine engine(*scenario, policies.first(), seed);
        QString why;
        const std::optional<Sim::Report> report
                = recordRun(engine, *scenario, policies.first(), seed, *store, &why);
        if (!report) {
            io.err << "simulate: " << why << "\n";
            return 2;
        }
        reports.append(*report);
    } else {
        for (const QString &p : policies) {
            Sim::Engine engine(*scenario, p, seed);
            reports.append(engine.run());
        }
    }
    if (json) {
        if (compare) {
            QJsonArray a;
            for (const Sim::Report &r : reports)
                a.append(r.toJson());
            io.out << QJsonDocument(QJsonObject{{QStringLiteral("policies"), a}})
                              .toJson(QJsonDocument::Indented);
        } else {
            io.out << QJsonDocument(reports.first().toJson()).toJson(QJsonDocument::Indented);
        }
        return 0;
    }
    if (compare)
        io.out << "scenario " << scenario->name << ", seed " << seed << "\n\n"
               << Sim::formatComparison(reports);
    else
        io.out << Sim::formatReport(reports.first());
    return 0;
}

} // namespace Zhaoxi::Cli
