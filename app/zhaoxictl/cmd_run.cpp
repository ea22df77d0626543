// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxictl run: a scenario on the wall clock with real processes (issue 13). The scenario's
// cards are the simulated backend's; every workload runs its spec's `run` command, bound to its
// unit, and services are measured from their own /metrics.
#include "commands.h"

#include "core/catalogue/catalogue.h"
#include "core/device/nvmlapply.h"
#include "core/device/nvmlbackend.h"
#include "core/policy/policy.h"
#include "core/replay/storehistory.h"
#include "core/runtime/liverun.h"
#include "core/session/eventbridge.h"
#include "core/session/workloadrecording.h"
#include "core/sim/scenario.h"
#include "core/storage/recorder.h"
#include "core/storage/statecodec.h"
#include "core/storage/store.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSocketNotifier>
#include <QStandardPaths>
#include <QTimer>

#include <cmath>
#include <csignal>

#include <sys/socket.h>
#include <unistd.h>

namespace Zhaoxi::Cli {

namespace {

// The store's state document of a run in progress (LiveRun::resumeState).
constexpr const char *kLiveRunKey = Storage::StateKey::LiveRun;

int g_signalPipe[2] = {-1, -1};

void onTerminate(int)
{
    const char c = 1;
    [[maybe_unused]] const ssize_t n = ::write(g_signalPipe[1], &c, 1);
}

} // namespace

int runRun(const QStringList &argList, Io &io)
{
    Args args(argList);
    const std::optional<QString> scenarioPath = args.value(QStringLiteral("scenario"));
    const std::optional<QString> forText = args.value(QStringLiteral("for"));
    const std::optional<QString> dbPath = args.value(QStringLiteral("db"));
    const std::optional<QString> policyName = args.value(QStringLiteral("policy"));
    const bool json = args.flag(QStringLiteral("json"));
    const bool resume = args.flag(QStringLiteral("resume"));
    const bool hardware = args.flag(QStringLiteral("hardware"));
    const bool allowChanges = args.flag(QStringLiteral("allow-changes"));
    const std::optional<QString> nvmlLibrary = args.value(QStringLiteral("nvml-library"));
    if (!args.missingValueFor().isEmpty()) {
        io.err << "run: " << args.missingValueFor() << " needs a value\n";
        return 2;
    }
    if (!args.unknownOptions().isEmpty() || !args.positional().isEmpty()) {
        io.err << "run: unexpected argument(s): "
               << (args.unknownOptions() + args.positional()).join(QLatin1Char(' ')) << "\n";
        return 2;
    }
    if (!scenarioPath) {
        io.err << "run: --scenario FILE is required\n";
        return 2;
    }
    const Catalogue::Catalogue catalogue = Catalogue::Catalogue::builtIn();
    Sim::ScenarioError error;
    std::optional<Sim::Scenario> scenario = Sim::loadScenarioFile(*scenarioPath, catalogue, &error);
    if (!scenario) {
        io.err << "run: " << error.toString() << "\n";
        return 2;
    }
    if (!hardware && (nvmlLibrary || allowChanges)) {
        io.err << "run: --nvml-library and --allow-changes go with --hardware\n";
        return 2;
    }
    // --hardware: this machine's cards through NVML instead of the scenario's simulated ones;
    // the scenario's workloads run on them. MIG is left as it is unless --allow-changes (the
    // scheduler then also creates instances for placements).
    std::unique_ptr<Device::NvmlBackend> nvml;
    QList<int> nvmlIndex;
    if (hardware) {
        Device::NvmlBackendOptions o;
        o.catalogue = catalogue;
        o.libraryPath = nvmlLibrary.value_or(QString());
        o.applyEnabled = allowChanges;
        o.pollIntervalMs = 1000;
        Device::NvmlOpenResult r;
        nvml = Device::NvmlBackend::open(o, &r, QDateTime::currentMSecsSinceEpoch());
        if (!nvml) {
            io.err << "run: --hardware: " << r.message << "\n";
            return 2;
        }
        scenario->appliance.state = Device::clusterStateOf(*nvml, &nvmlIndex);
        if (scenario->appliance.state.cards().isEmpty()) {
            io.err << "run: --hardware: no card of this machine is in the catalogue\n";
            return 2;
        }
        const bool writable = allowChanges && nvml->access() == Device::NvmlAccess::Writable;
        if (allowChanges && !writable)
            io.err << "run: --allow-changes: MIG stays as it is: " << nvml->accessMessage() << "\n";
        scenario->scheduler.allowCreatePartitions = writable;
        scenario->scheduler.allowReconfigure = writable;
    }
    if (resume && !dbPath) {
        io.err << "run: --resume continues the run recorded in --db FILE; give it\n";
        return 2;
    }
    // The scenario's duration passes in duration / live.speed of wall time.
    qint64 forMs = qint64(std::ceil(double(scenario->durationMs) / scenario->liveSpeed));
    if (forText) {
        const std::optional<qint64> ms = Domain::durationMsFromString(*forText);
        if (!ms || *ms <= 0) {
            io.err << "run: --for expects a duration such as 90s or 5m, got \"" << *forText
                   << "\"\n";
            return 2;
        }
        forMs = *ms;
    }

    // The store and the jobs' directories (logs, checkpoints, progress) persist: by default in
    // the user's data directory, never a temporary one.
    const QString db = dbPath.value_or(
            QDir(QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation))
                    .filePath(QStringLiteral("zhaoxi/zhaoxi.sqlite")));
    const QFileInfo dbInfo(db);
    if (!QDir().mkpath(dbInfo.absolutePath())) {
        io.err << "run: cannot create the directory " << dbInfo.absolutePath() << "\n";
        return 2;
    }
    QString storeError;
    const std::unique_ptr<Storage::Store> store = Storage::Store::open(db, &storeError);
    if (!store) {
        io.err << "run: cannot open the store " << db << ": " << storeError << "\n";
        return 2;
    }

    Runtime::LiveRunOptions options;
    if (resume) {
        // The run this store recorded: its state (layouts and queue), where its clock was, its
        // directory and its processes, which are adopted, not started again.
        QString why;
        const std::unique_ptr<Storage::Reader> reader = store->reader(&why);
        std::optional<QByteArray> layouts, queue, live;
        if (reader) {
            layouts = reader->state(QString::fromLatin1(Storage::StateKey::Layouts), &why);
            queue = reader->state(QString::fromLatin1(Storage::StateKey::Queue), &why);
            live = reader->state(QString::fromLatin1(kLiveRunKey), &why);
        }
        if (!layouts || !queue || !live) {
            io.err << "run: " << db << " holds no run to resume"
                   << (why.isEmpty() ? QString() : QStringLiteral(" (") + why + QLatin1Char(')'))
                   << "\n";
            return 2;
        }
        if (!Storage::restoreState(scenario->appliance.state, *layouts, *queue, &why)) {
            io.err << "run: " << db << ": the recorded state does not fit " << *scenarioPath << ": "
                   << why << "\n";
            return 2;
        }
        const QJsonObject saved = QJsonDocument::fromJson(*live).object();
        options.resumeAtMs = qint64(saved.value(QStringLiteral("scenario_ms")).toDouble());
        options.processRecords = saved.value(QStringLiteral("processes")).toObject();
        options.dataDir = saved.value(QStringLiteral("data_dir")).toString();
        if (!forText)
            forMs = qint64(std::ceil(
                    double(std::max<qint64>(
                            0, scenario->startMs + scenario->durationMs - *options.resumeAtMs))
                    / scenario->liveSpeed));
    }
    options.shimPath = findBeside(QStringLiteral("zhaoxi-shim"), QStringLiteral("shim"));
    if (options.shimPath.isEmpty()) {
        io.err << "run: zhaoxi-shim not found beside zhaoxictl or in PATH\n";
        return 2;
    }
    // One directory per run: the scenario file's name and when it started.
    if (!resume)
        options.dataDir
                = QDir(dbInfo.absolutePath())
                          .filePath(QStringLiteral("runs/%1-%2")
                                            .arg(QFileInfo(*scenarioPath).completeBaseName(),
                                                 QDateTime::currentDateTimeUtc().toString(
                                                         QStringLiteral("yyyyMMdd-HHmmss-zzz"))));
    options.controlPeriodMs = 1000;
    if (nvml) {
        options.backend = nvml.get();
        options.backendCard = [&nvmlIndex](Domain::CardId c) {
            return Domain::CardId(c.isValid() && c.value() < nvmlIndex.size() ? nvmlIndex[c.value()]
                                                                              : -1);
        };
    }
    // Names as the twin's: letters' case aside ("none" too).
    options.policy = policyName.value_or(QString());
    if (const QString known
        = knownName(options.policy, Policy::policyNames() << QStringLiteral("none"));
        !known.isEmpty())
        options.policy = known;
    options.loadPath = findBeside(QStringLiteral("zhaoxi-demo-load"), QStringLiteral("demo"));
    // The shipped demo workloads are found by name, as a scenario names them.
    const QString demo
            = QFileInfo(findBeside(QStringLiteral("zhaoxi-demo-train"), QStringLiteral("demo")))
                      .absolutePath();
    if (!demo.isEmpty() && demo != QLatin1String("."))
        qputenv("PATH", (demo + QLatin1Char(':') + qEnvironmentVariable("PATH")).toLocal8Bit());

    // The store's past (days before the run's clock), if it has one, instead of the scenario's
    // synthetic days and nominal service times (docs/simulation.md "Learning from the store").
    const qint64 learnAtMs = options.resumeAtMs.value_or(scenario->startMs);
    QList<Replay::LearnEvent> learnt;
    if (const std::unique_ptr<Storage::Reader> reader = store->reader())
        learnt = Replay::learnScenario(*reader, *scenario, learnAtMs);
    Runtime::LiveRun live(*scenario, options);
    Storage::Recorder rec(*store);
    rec.setState(&live.scheduler().state());
    live.addSchedulerSink(&rec);
    Replay::recordLearnEvents(rec, learnAtMs, learnt);
    // What a resumed run needs, kept as it changes (durably: state documents).
    QObject::connect(&live, &Runtime::LiveRun::stateChanged, &live, [&] {
        const qint64 at = QDateTime::currentMSecsSinceEpoch();
        rec.recordState(live.scheduler().state(),
                        at,
                        {{QString::fromLatin1(kLiveRunKey),
                          QJsonDocument(live.resumeState()).toJson(QJsonDocument::Compact)}});
    });
    QObject::connect(&live,
                     &Runtime::LiveRun::processEvent,
                     &live,
                     [&rec, &io, json](const Runtime::ProcessEvent &e) {
                         Session::recordProcessEvent(rec, e);
                         if (!json && Session::severityOf(e.code) != Storage::Severity::Info)
                             io.err << Runtime::toString(e.code) << " " << e.jobName << ": "
                                    << e.detail << "\n";
                     });

    QObject::connect(
            &live,
            &Runtime::LiveRun::applianceEvent,
            &live,
            [&rec](const Device::ApplianceEvent &e) { Session::recordApplianceEvent(rec, e); });

    // The run's basis for a replay, before anything it does (docs/replay.md).
    if (!options.resumeAtMs)
        Session::recordRunBasis(rec, scenario->startMs, *scenario, options.policy, scenario->seed);
    QString why;
    if (!live.start(&why)) {
        io.err << "run: " << *scenarioPath << ": " << why << "\n";
        return 2;
    }
    if (!json)
        io.out << "running " << scenario->name << " for " << forMs / 1000.0 << " s, jobs in "
               << options.dataDir << "\n";
    io.out.flush();
    // What a replay and the forecast read back (docs/replay.md): the services' requests, SLO
    // attainment and service times every minute of the run's clock.
    Session::WorkloadRecording workloads;
    QTimer minute;
    minute.setInterval(int(std::clamp(60'000.0 / scenario->liveSpeed, 50.0, 60'000.0)));
    QObject::connect(&minute, &QTimer::timeout, &live, [&] {
        workloads.record(rec, live.now(), Session::serviceTallies(live.services(live.now())), {});
    });
    minute.start();

    // SIGINT/SIGTERM end the run early but cleanly: every process is stopped, the report printed.
    QEventLoop loop;
    bool interrupted = false;
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, g_signalPipe) == 0) {
        std::signal(SIGINT, onTerminate);
        std::signal(SIGTERM, onTerminate);
    }
    QSocketNotifier *notifier = nullptr;
    if (g_signalPipe[0] >= 0) {
        notifier = new QSocketNotifier(g_signalPipe[0], QSocketNotifier::Read, &loop);
        QObject::connect(notifier, &QSocketNotifier::activated, &loop, [&] {
            char c;
            [[maybe_unused]] const ssize_t n = ::read(g_signalPipe[0], &c, 1);
            interrupted = true;
            loop.quit();
        });
    }
    QTimer::singleShot(int(std::min<qint64>(forMs, INT_MAX)), &loop, &QEventLoop::quit);
    loop.exec();

    const QStringList orphans = live.stop(30'000);
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    rec.recordState(live.scheduler().state(), QDateTime::currentMSecsSinceEpoch());
    const bool flushed = store->flush();

    QJsonObject report = live.report();
    report.insert(QStringLiteral("scenario"), scenario->name);
    report.insert(QStringLiteral("hardware"), hardware);
    report.insert(QStringLiteral("seconds"),
                  (QDateTime::currentMSecsSinceEpoch() - live.startedMs()) / 1000.0);
    report.insert(QStringLiteral("interrupted"), interrupted);
    report.insert(QStringLiteral("orphans"), QJsonArray::fromStringList(orphans));
    report.insert(QStringLiteral("db"), db);
    report.insert(QStringLiteral("data_dir"), options.dataDir);
    if (json) {
        io.out << QJsonDocument(report).toJson(QJsonDocument::Indented);
    } else {
        io.out << "job                      state      starts ckpts preempt lost s exit\n";
        for (const QJsonValue &v : report.value(QStringLiteral("jobs")).toArray()) {
            const QJsonObject j = v.toObject();
            io.out << QStringLiteral("%1 %2 %3 %4 %5 %6 %7\n")
                              .arg(j.value(QStringLiteral("name")).toString(), -24)
                              .arg(j.value(QStringLiteral("state")).toString(), -10)
                              .arg(j.value(QStringLiteral("starts")).toInt(), 6)
                              .arg(j.value(QStringLiteral("checkpoints")).toInt(), 5)
                              .arg(j.value(QStringLiteral("preemptions")).toInt(), 7)
                              .arg(j.value(QStringLiteral("lost_work_s")).toDouble(), 6, 'f', 1)
                              .arg(j.value(QStringLiteral("exit_code")).isNull()
                                           ? QStringLiteral("-")
                                           : QString::number(
                                                   j.value(QStringLiteral("exit_code")).toInt()));
        }
        io.out << "\nservice   replicas  requests  p99 ms  SLO %\n";
        for (const QJsonValue &v : report.value(QStringLiteral("services")).toArray()) {
            const QJsonObject s = v.toObject();
            io.out << QStringLiteral("%1 %2 %3 %4 %5\n")
                              .arg(s.value(QStringLiteral("name")).toString(), -9)
                              .arg(s.value(QStringLiteral("replicas_max")).toInt(), 8)
                              .arg(s.value(QStringLiteral("requests")).toInt(), 9)
                              .arg(s.value(QStringLiteral("p99_ms")).toDouble(), 7, 'f', 1)
                              .arg(100 * s.value(QStringLiteral("slo_attainment")).toDouble(),
                                   6,
                                   'f',
                                   2);
        }
        if (!orphans.isEmpty())
            io.out << "\norphans (still alive): " << orphans.join(QLatin1Char(' ')) << "\n";
    }
    if (!flushed) {
        io.err << "run: the store " << db << " did not commit the run\n";
        return 2;
    }
    return orphans.isEmpty() ? 0 : 1;
}

} // namespace Zhaoxi::Cli
