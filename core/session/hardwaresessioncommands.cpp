// SPDX-License-Identifier: GPL-3.0-or-later
// The hardware session's control (start, stop, the backend reopened) and the operator's commands
// (the runtime, jobs, workloads, schedules, layouts). hardwaresession.cpp reads the driver,
// records its events and publishes snapshots.
#include "hardwaresession.h"

#include "eventbridge.h"
#include "runtimesession.h"

#include "core/catalogue/layoutrules.h"
#include "core/device/applianceevents.h"
#include "core/device/nvmlapply.h"
#include "core/domain/workloadspec.h"
#include "core/runtime/liverun.h"
#include "core/sched/scheduler.h"
#include "core/storage/recorder.h"
#include "core/storage/statecodec.h"
#include "core/storage/store.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QStandardPaths>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <limits>

namespace Zhaoxi::Session {

using Domain::Problem;

using Device::NvmlCardReport;
using Device::NvmlStepReport;
using Device::NvmlStepState;
using Domain::CardId;
using Domain::JobId;
using Domain::MigPlacement;
using Domain::PartitionMode;

// --- Control ---------------------------------------------------------------------------------

void HardwareSession::start()
{
    if (!m_run && m_runError.isEmpty() && !startRuntime(&m_runError))
        qWarning("hardware session: no real work can run: %s", qPrintable(m_runError));
    if (!m_timer) {
        m_timer = new QTimer(this);
        m_timer->setInterval(m_pollIntervalMs);
        connect(m_timer, &QTimer::timeout, this, [this] {
            poll();
            publish();
        });
    }
    m_started = true;
    if (!m_paused)
        m_timer->start();
    publish();
}

void HardwareSession::stop()
{
    m_started = false;
    if (m_timer)
        m_timer->stop();
    flushStore();
}

void HardwareSession::setSpeed(double)
{
    publish(); // real time: the speed stays 1
}

void HardwareSession::setPaused(bool paused)
{
    m_paused = paused;
    if (m_timer && m_started) {
        if (paused)
            m_timer->stop();
        else
            m_timer->start();
    }
    publish();
}

void HardwareSession::setPollIntervalMs(int ms)
{
    m_pollIntervalMs = std::clamp(ms, kMinPollMs, kMaxPollMs);
    if (m_timer)
        m_timer->setInterval(m_pollIntervalMs); // restarts a running timer with the new interval
}

bool HardwareSession::reopenBackend(bool applyEnabled, QString *why)
{
    Device::NvmlBackendOptions o = m_backendOptions;
    o.applyEnabled = applyEnabled;
    Device::NvmlOpenResult r;
    const qint64 t = std::max(m_lastPollMs, now());
    // The new backend is opened before the old one shuts down, so NVML stays initialised.
    std::unique_ptr<Device::NvmlBackend> b = Device::NvmlBackend::open(o, &r, t);
    if (!b) {
        *why = r.message;
        return false;
    }
    QStringList before, after;
    for (const NvmlCardReport &rep : m_backend->cardReports())
        before << rep.uuid + QLatin1Char('/') + QString::number(rep.model);
    for (const NvmlCardReport &rep : b->cardReports())
        after << rep.uuid + QLatin1Char('/') + QString::number(rep.model);
    m_backend = std::move(b);
    m_backendOptions = o;
    m_seenXids = QList<QList<quint64>>(m_backend->cardReports().size());
    for (const NvmlCardReport &rep : m_backend->cardReports())
        m_seenXids[rep.index] = m_backend->reading(rep.id).recentXids;
    if (before != after) {
        // Other cards than before (a driver reload): the state starts again from the driver.
        m_nvmlIndex.clear();
        for (const NvmlCardReport &rep : m_backend->cardReports()) {
            if (rep.model >= 0)
                m_nvmlIndex << rep.index;
        }
        m_layoutProblems = QList<QStringList>(m_backend->cardReports().size());
        replaceScheduler(stateFromBackend());
    }
    m_lastPollMs = t;
    return true;
}

void HardwareSession::setAllowChanges(bool allow)
{
    m_allowChanges = allow;
    if (m_backendOptions.applyEnabled != allow || !m_reopenError.isEmpty()) {
        QString why;
        if (reopenBackend(allow, &why)) {
            m_reopenError.clear();
        } else {
            // Disallowing needs no new backend: the session refuses changes by itself.
            m_reopenError = allow ? why : QString();
            qWarning("hardware session: the NVML backend could not be re-opened: %s",
                     qPrintable(why));
        }
        followDriver(m_lastPollMs);
    }
    publish();
}

// --- Commands --------------------------------------------------------------------------------

bool HardwareSession::startRuntime(QString *why)
{
    const qint64 t = now();
    QString dataDir = m_options.dataDir;
    if (dataDir.isEmpty()) {
        const QString base = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
        if (base.isEmpty()) {
            *why = QStringLiteral("no data directory for the jobs (set one in the settings)");
            return false;
        }
        dataDir = QDir(base).filePath(QStringLiteral("hardware"));
    }
    QString shim = m_options.shimPath;
    if (shim.isEmpty()) {
        const QString beside = QDir(QCoreApplication::applicationDirPath())
                                       .filePath(QStringLiteral("zhaoxi-shim"));
        shim = QFileInfo(beside).isExecutable()
                       ? beside
                       : QStandardPaths::findExecutable(QStringLiteral("zhaoxi-shim"));
    }
    if (shim.isEmpty()) {
        *why = QStringLiteral("zhaoxi-shim not found beside the console or in PATH");
        return false;
    }

    // What the store says ran when the console last stopped: its state and processes.
    Sched::ClusterState state = sched().state();
    Runtime::LiveRunOptions o;
    if (Storage::Store *st = store()) {
        QString err;
        if (const std::unique_ptr<Storage::Reader> reader = st->reader(&err)) {
            const auto layouts
                    = reader->state(QString::fromLatin1(Storage::StateKey::Layouts), &err);
            const auto queue = reader->state(QString::fromLatin1(Storage::StateKey::Queue), &err);
            const auto saved = reader->state(QString::fromLatin1(kRuntimeKey), &err);
            if (layouts && queue && saved) {
                Sched::ClusterState restored = state;
                if (Storage::restoreState(restored, *layouts, *queue, &err)) {
                    state = restored;
                    const QJsonObject doc = QJsonDocument::fromJson(*saved).object();
                    o.resumeAtMs = t;
                    o.processRecords = doc.value(QStringLiteral("processes")).toObject();
                    const QString dir = doc.value(QStringLiteral("data_dir")).toString();
                    if (!dir.isEmpty())
                        dataDir = dir;
                } else {
                    recordDevice(t,
                                 "runtime-not-resumed",
                                 Storage::Severity::Warning,
                                 {{QStringLiteral("message"), err}},
                                 -1);
                }
            }
        }
    }

    Sim::Scenario sc;
    sc.name = QStringLiteral("hardware");
    sc.appliance.state = state;
    sc.startMs = t;
    sc.durationMs = 100LL * 365 * 24 * 3600'000; // open-ended
    sc.utcOffsetMs = qint64(QDateTime::fromMSecsSinceEpoch(t).offsetFromUtc()) * 1000;
    sc.liveSpeed = 1;
    sc.controlPeriodMs = std::clamp<qint64>(m_pollIntervalMs, 1000, 15'000);
    sc.defaultPolicy = QStringLiteral("none");
    sc.scheduler.allowCreatePartitions = readOnlyProblem().isNone();
    sc.scheduler.allowReconfigure = sc.scheduler.allowCreatePartitions;
    o.dataDir = dataDir;
    o.shimPath = shim;
    o.mpsControlPath
            = !m_options.mpsControlPath.isEmpty()
                      ? m_options.mpsControlPath
                      : QStandardPaths::findExecutable(QStringLiteral("nvidia-cuda-mps-control"));
    o.controlPeriodMs = std::clamp(m_pollIntervalMs, kMinPollMs, 2000);
    o.allowRoot = m_options.allowRoot;
    o.policy = QStringLiteral("none");
    o.clock = [this] { return now(); };
    o.backend = m_backend.get();
    o.backendCard = [this](Domain::CardId c) {
        return CardId(c.isValid() && c.value() < m_nvmlIndex.size() ? m_nvmlIndex[c.value()] : -1);
    };
    o.ownsDevice = false;

    auto run = std::make_unique<Runtime::LiveRun>(sc, o);
    Storage::Recorder *rec = recorder();
    if (rec) {
        rec->setState(nullptr);
        run->addSchedulerSink(rec);
        rec->setState(&run->scheduler().state());
    }
    connect(run.get(),
            &Runtime::LiveRun::processEvent,
            this,
            [this](const Runtime::ProcessEvent &e) {
                if (Storage::Recorder *r = recorder()) {
                    recordProcessEvent(*r, e);
                    return;
                }
                Storage::Event ev;
                ev.id = ++m_localEventId;
                ev.atMs = e.atMs;
                ev.severity = severityOf(e.code);
                ev.source = Storage::Source::Device;
                ev.code = QByteArray(Runtime::toString(e.code));
                ev.job = e.job.value();
                ev.params = QJsonDocument(processEventJson(e)).toJson(QJsonDocument::Compact);
                noteEvent(ev);
            });
    connect(run.get(),
            &Runtime::LiveRun::applianceEvent,
            this,
            [this](const Device::ApplianceEvent &e) {
                if (Storage::Recorder *r = recorder())
                    recordApplianceEvent(*r, e);
            });
    connect(run.get(), &Runtime::LiveRun::stateChanged, this, [this] { persistRuntime(); });
    connect(run.get(), &Runtime::LiveRun::deviceOrdersQueued, this, [this] {
        // The orders run on the next turn of the loop, not inside the scheduler's command.
        QTimer::singleShot(0, this, [this] {
            poll();
            publish();
        });
    });
    QString err;
    m_run = std::move(run);
    if (!m_run->start(&err)) {
        *why = err;
        m_run.reset();
        if (rec)
            rec->setState(&m_scheduler->state());
        return false;
    }
    m_scheduler.reset(); // the runtime's scheduler is the state from now on
    persistRuntime();
    return true;
}

void HardwareSession::persistRuntime()
{
    Storage::Recorder *rec = recorder();
    if (!m_run || !rec || !store())
        return;
    const qint64 t = now();
    // One transaction: a kill at any moment leaves layouts, queue and processes that agree.
    rec->recordState(m_run->scheduler().state(),
                     t,
                     {{QString::fromLatin1(kRuntimeKey),
                       QJsonDocument(m_run->resumeState()).toJson(QJsonDocument::Compact)}});
}

QStringList HardwareSession::stopAllWork(qint64 waitMs)
{
    if (!m_run)
        return {};
    const QStringList alive = m_run->stop(waitMs);
    persistRuntime();
    return alive;
}

bool HardwareSession::readyForWork(CommandResult *r) const
{
    if (m_run)
        return true;
    setProblem(*r,
               m_runError.isEmpty() ? Problem(Problem::Code::RuntimeNotStarted)
                                    : Problem(Problem::Code::NoRealWork, {m_runError}));
    return false;
}

void HardwareSession::previewPlacement(quint64 request, int job, int card)
{
    PlacementPreview p = previewPlacementOn(sched(), JobId(job), CardId(card), now());
    if (m_run)
        addStartHint(&p, *m_run, now());
    p.request = request;
    Q_EMIT placementPreviewReady(p);
}

LayoutPreview HardwareSession::plan(int card, const QList<MigPlacement> &target) const
{
    // NVML's MIG API does not say which instances serve processes; the driver refuses to destroy
    // those ("in use"). Real driver timings are not known in advance: expectedMs stays 0.
    return previewLayoutChange(sched().state(), CardId(card), target);
}

void HardwareSession::previewLayout(quint64 request, int card, QList<MigPlacement> target)
{
    LayoutPreview p = plan(card, target);
    p.request = request;
    Q_EMIT layoutPreviewReady(p);
}

QList<JobId> HardwareSession::jobsInTheWay(int card, const QList<MigPlacement> &target) const
{
    return plan(card, target).affectedJobs;
}

void HardwareSession::applyLayout(quint64 request,
                                  int card,
                                  QList<MigPlacement> target,
                                  ApplyMode mode,
                                  qint64 drainDeadlineMs)
{
    if (Problem readOnly = readOnlyProblem(); !readOnly.isNone()) {
        Q_EMIT commandFinished(CommandResult::answer(request, readOnly));
        return;
    }
    const LayoutPreview p = plan(card, target);
    if (!p.ok || !m_run || p.affectedJobs.isEmpty()) {
        applyLayoutNow(request, card, target);
        return;
    }
    drainThenApply(request,
                   card,
                   target,
                   mode,
                   drainDeadlineMs,
                   p.affectedJobs,
                   std::max(m_lastPollMs, now()));
}

void HardwareSession::applyLayoutNow(quint64 request, int card, const QList<MigPlacement> &target)
{
    CommandResult r;
    r.request = request;
    if (Problem readOnly = readOnlyProblem(); !readOnly.isNone()) {
        setProblem(r, readOnly);
        Q_EMIT commandFinished(r);
        return;
    }
    const qint64 t = std::max(m_lastPollMs, now());
    m_lastPollMs = t;
    // Decide on what is on the card now, not on the last poll.
    m_backend->refreshLayouts();
    followDriver(t);
    const LayoutPreview p = plan(card, target);
    if (!p.ok) {
        setProblem(r, p.problem);
        Q_EMIT commandFinished(r);
        publish();
        return;
    }
    const int index = m_nvmlIndex[card];
    const Catalogue::Catalogue &cat = m_backend->catalogue();
    const int model = m_backend->cardReports()[index].model;
    const QList<Device::DeviceStep> steps
            = Device::layoutSteps(cat.models()[model],
                                  CardId(index),
                                  m_backend->cardReports()[index].layout.instances,
                                  target);
    if (steps.isEmpty()) {
        r.ok = true;
        Q_EMIT commandFinished(r);
        publish();
        return;
    }
    const Device::NvmlApplyOutcome outcome = Device::applyNow(*m_backend, steps, t);
    for (const NvmlStepReport &rep : outcome.reports)
        recordStep(rep, card, t);
    takeFaultsAndRelayout(t);
    noteXids(t);
    followDriver(t); // the backend re-read the card after the steps: the state follows it
    const QString holds = Device::formatLayout(
            cat, model, m_backend->cardReports()[index].layout.instances, QStringLiteral(", "));
    if (outcome.allDone) {
        r.ok = driverLayout(card) == byStart(target);
        if (!r.ok)
            setProblem(
                    r,
                    Problem(Problem::Code::StepsLeftOther, {QString::number(steps.size()), holds}));
    } else {
        const auto failed = std::find_if(
                outcome.reports.cbegin(), outcome.reports.cend(), [](const NvmlStepReport &x) {
                    return x.state == NvmlStepState::Failed || x.state == NvmlStepState::Refused;
                });
        if (failed != outcome.reports.cend()) {
            setProblem(r,
                       Problem(Problem::Code::StepFailed,
                               {QString::number(outcome.done),
                                QString::number(steps.size()),
                                Device::describeStep(cat, model, failed->result.step),
                                failed->state == NvmlStepState::Refused ? QStringLiteral("refused")
                                                                        : QStringLiteral("failed"),
                                failed->message.isEmpty()
                                        ? QString::fromLatin1(Device::toString(failed->status))
                                        : failed->message,
                                holds}));
        } else {
            setProblem(
                    r,
                    Problem(Problem::Code::StepsStopped,
                            {QString::number(outcome.done), QString::number(steps.size()), holds}));
        }
    }
    Q_EMIT commandFinished(r);
    publish();
}

} // namespace Zhaoxi::Session
