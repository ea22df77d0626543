// SPDX-License-Identifier: GPL-3.0-or-later
#include "livesession.h"

#include "eventbridge.h"
#include "runtimesession.h"

#include "core/replay/storehistory.h"
#include "core/runtime/liverun.h"
#include "core/sched/scheduler.h"
#include "core/storage/recorder.h"
#include "core/storage/statecodec.h"
#include "core/storage/store.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QTimer>

#include <algorithm>

namespace Zhaoxi::Session {

using Domain::Problem;

using Domain::CardId;
using Domain::JobId;
using Domain::MigPlacement;

std::unique_ptr<LiveSession> LiveSession::create(const Sim::Scenario &scenario,
                                                 LiveOptions options,
                                                 QString *why)
{
    if (options.shimPath.isEmpty() || !QFileInfo(options.shimPath).isExecutable()) {
        *why = QStringLiteral("zhaoxi-shim not found (%1)")
                       .arg(options.shimPath.isEmpty() ? QStringLiteral("no path")
                                                       : options.shimPath);
        return nullptr;
    }
    if (!options.clock)
        options.clock = [] { return QDateTime::currentMSecsSinceEpoch(); };
    std::unique_ptr<LiveSession> s(new LiveSession(scenario, std::move(options)));
    if (!s->prepare(why))
        return nullptr;
    return s;
}

LiveSession::LiveSession(Sim::Scenario scenario, LiveOptions options)
    : m_scenario(std::move(scenario))
    , m_options(std::move(options))
{}

LiveSession::~LiveSession()
{
    // The runtime goes before the store its recorder writes to. Processes are left running
    // (recorded) unless stopAllWork() ended them: a service or console exit never kills work.
    if (m_run && !m_released) {
        m_run->releaseProcesses();
        persist();
    }
    m_run.reset();
    closeStore();
}

bool LiveSession::prepare(QString *why)
{
    openStore(m_options.storePath, QStringLiteral("live.zhaoxi.sqlite"), m_options.retention);
    if (!store()) {
        *why = QStringLiteral("cannot open the store: %1").arg(storeError());
        return false;
    }
    Runtime::LiveRunOptions o;
    QString dataDir = m_options.dataDir;
    // The run this store recorded, if any: its state, its clock and its processes.
    if (const std::unique_ptr<Storage::Reader> reader = store()->reader(why)) {
        const auto layouts = reader->state(QString::fromLatin1(Storage::StateKey::Layouts), why);
        const auto queue = reader->state(QString::fromLatin1(Storage::StateKey::Queue), why);
        const auto live = reader->state(QString::fromLatin1(Storage::StateKey::LiveRun), why);
        if (layouts && queue && live) {
            if (!Storage::restoreState(m_scenario.appliance.state, *layouts, *queue, why)) {
                *why = QStringLiteral("the run recorded in %1 does not fit the scenario: %2")
                               .arg(storePath(), *why);
                return false;
            }
            const QJsonObject saved = QJsonDocument::fromJson(*live).object();
            o.resumeAtMs = qint64(saved.value(QStringLiteral("scenario_ms")).toDouble());
            o.processRecords = saved.value(QStringLiteral("processes")).toObject();
            const QString dir = saved.value(QStringLiteral("data_dir")).toString();
            if (!dir.isEmpty())
                dataDir = dir;
            m_resumed = true;
        }
    } else {
        return false;
    }
    why->clear();
    if (dataDir.isEmpty())
        dataDir = QFileInfo(storePath()).absoluteDir().filePath(QStringLiteral("work"));
    o.dataDir = dataDir;
    o.shimPath = m_options.shimPath;
    o.loadPath = m_options.loadPath;
    o.mpsControlPath = m_options.mpsControlPath;
    o.controlPeriodMs = m_options.controlPeriodMs;
    o.allowRoot = m_options.allowRoot;
    o.policy = m_options.policy;
    o.clock = m_options.clock;
    // The store's past (days before the run's clock), if it has one, instead of the scenario's
    // synthetic days and nominal service times (docs/simulation.md "Learning from the store").
    const qint64 startMs = o.resumeAtMs.value_or(m_scenario.startMs);
    QList<Replay::LearnEvent> learnt;
    if (const std::unique_ptr<Storage::Reader> reader = store()->reader())
        learnt = Replay::learnScenario(*reader, m_scenario, startMs);
    m_run = std::make_unique<Runtime::LiveRun>(m_scenario, o);
    if (Storage::Recorder *rec = recorder()) {
        rec->setState(&m_run->scheduler().state());
        m_run->addSchedulerSink(rec);
        Replay::recordLearnEvents(*rec, startMs, learnt);
    }
    connect(m_run.get(),
            &Runtime::LiveRun::processEvent,
            this,
            [this](const Runtime::ProcessEvent &e) {
                if (Storage::Recorder *r = recorder())
                    recordProcessEvent(*r, e);
            });
    connect(m_run.get(),
            &Runtime::LiveRun::applianceEvent,
            this,
            [this](const Device::ApplianceEvent &e) {
                if (Storage::Recorder *r = recorder())
                    recordApplianceEvent(*r, e);
            });
    connect(m_run.get(), &Runtime::LiveRun::stateChanged, this, [this] { persist(); });
    return true;
}

void LiveSession::persist()
{
    Storage::Recorder *rec = recorder();
    if (!m_run || !rec || !store() || m_released)
        return;
    const qint64 t = m_options.clock();
    // One transaction: a kill at any moment leaves layouts, queue and processes that agree.
    rec->recordState(m_run->scheduler().state(),
                     t,
                     {{QString::fromLatin1(Storage::StateKey::LiveRun),
                       QJsonDocument(m_run->resumeState()).toJson(QJsonDocument::Compact)}});
}

void LiveSession::start()
{
    if (m_timer)
        return;
    QString why;
    if (!m_run->start(&why)) {
        qWarning("live session: the scenario cannot run: %s", qPrintable(why));
        m_run.reset();
        return;
    }
    m_startMs = m_run->now();
    if (Storage::Recorder *rec = recorder())
        recordRunBasis(*rec,
                       m_startMs,
                       m_scenario,
                       m_options.policy.isEmpty() ? m_scenario.defaultPolicy : m_options.policy,
                       m_scenario.seed);
    persist();
    m_timer = new QTimer(this);
    m_timer->setInterval(std::max(50, m_options.snapshotIntervalMs));
    connect(m_timer, &QTimer::timeout, this, [this] {
        if (m_run && !m_released)
            tryPendingLayouts(m_run->now());
        publish();
        // The cards' readings in the store every minute of the scenario's clock (zhaoxictl
        // metrics --db, the charts of a console attached later).
        Storage::Recorder *rec = recorder();
        if (m_run && rec && m_run->now() >= m_nextMetricMs) {
            m_nextMetricMs = m_run->now() + 60'000;
            recordCardMetrics(*rec, m_run->now(), m_run->scheduler().state(), m_run->backend());
            m_workloads.record(
                    *rec, m_run->now(), serviceTallies(m_run->services(m_run->now())), {});
        }
    });
    m_timer->start();
    publish();
}

void LiveSession::stop()
{
    if (m_timer)
        m_timer->stop();
    persist();
    flushStore();
}

QStringList LiveSession::stopAllWork(qint64 waitMs)
{
    if (!m_run)
        return {};
    const QStringList alive = m_run->stop(waitMs);
    persist();
    return alive;
}

bool LiveSession::release(QString *error)
{
    if (m_timer)
        m_timer->stop();
    if (m_run && !m_released) {
        m_run->releaseProcesses();
        persist();
        m_released = true;
    }
    if (store() && !store()->flush()) {
        *error = store()->lastError();
        return false;
    }
    return true;
}

void LiveSession::setSpeed(double)
{
    publish(); // the scenario's clock runs at its live.speed
}

void LiveSession::setPaused(bool)
{
    publish(); // real processes do not pause
}

bool LiveSession::readyForWork(CommandResult *r) const
{
    if (m_run && !m_released)
        return true;
    setProblem(
            *r,
            Problem(m_released ? Problem::Code::ShuttingDown : Problem::Code::RuntimeNotRunning));
    return false;
}

void LiveSession::previewPlacement(quint64 request, int job, int card)
{
    PlacementPreview p;
    if (m_run) {
        p = previewPlacementOn(m_run->scheduler(), JobId(job), CardId(card), m_run->now());
        addStartHint(&p, *m_run, m_run->now());
    } else {
        p.status = Sched::Status::error(Sched::Reason::None);
    }
    p.request = request;
    p.job = JobId(job);
    p.card = CardId(card);
    Q_EMIT placementPreviewReady(p);
}

void LiveSession::previewLayout(quint64 request, int card, QList<MigPlacement> target)
{
    LayoutPreview p;
    if (m_run) {
        p = previewLayoutChange(m_run->scheduler().state(), CardId(card), target);
    } else {
        p.card = CardId(card);
        setProblem(p, Problem(Problem::Code::RuntimeNotRunning));
    }
    p.request = request;
    Q_EMIT layoutPreviewReady(p);
}

void LiveSession::applyLayout(quint64 request,
                              int card,
                              QList<MigPlacement> target,
                              ApplyMode mode,
                              qint64 drainDeadlineMs)
{
    CommandResult r;
    r.request = request;
    if (!readyForWork(&r)) {
        Q_EMIT commandFinished(r);
        return;
    }
    const LayoutPreview p = previewLayoutChange(m_run->scheduler().state(), CardId(card), target);
    if (!p.ok || p.affectedJobs.isEmpty()) {
        applyLayoutNow(request, card, target);
        return;
    }
    drainThenApply(request, card, target, mode, drainDeadlineMs, p.affectedJobs, m_run->now());
}

QList<JobId> LiveSession::jobsInTheWay(int card, const QList<MigPlacement> &target) const
{
    return previewLayoutChange(m_run->scheduler().state(), CardId(card), target).affectedJobs;
}

void LiveSession::applyLayoutNow(quint64 request, int card, const QList<MigPlacement> &target)
{
    CommandResult r;
    r.request = request;
    if (readyForWork(&r))
        answerWith(r, [&](Problem *why) { return m_run->applyLayout(CardId(card), target, why); });
    Q_EMIT commandFinished(r);
    publish();
}

SnapshotPtr LiveSession::publish()
{
    if (!m_run)
        return latest(); // the runtime did not start (start() said why)
    auto s = std::make_shared<Snapshot>();
    const Sched::Scheduler &sched = m_run->scheduler();
    const Sched::ClusterState &st = sched.state();
    s->nowMs = m_run->now();
    s->startMs = m_scenario.startMs;
    s->endMs = m_scenario.startMs + m_scenario.durationMs;
    s->utcOffsetSeconds = int(m_scenario.utcOffsetMs / 1000);
    s->speed = m_scenario.liveSpeed;
    s->simulated = false; // simulated cards, real processes on the scenario's clock
    s->applianceName
            = m_scenario.appliance.name.isEmpty() ? m_scenario.name : m_scenario.appliance.name;
    s->state = st;
    s->budget = sched.classBudget();
    s->queue = sched.queue();
    const auto &models = st.catalogue().models();
    const Device::DeviceBackend &backend = m_run->backend();
    for (const Sched::CardState &c : st.cards()) {
        const Device::CardMetrics m = backend.metrics(c.id);
        CardSample cs;
        cs.card = c.id.value();
        cs.lost = m.lost;
        cs.utilisation = m.utilisation;
        cs.memoryUsedMiB = m.memoryUsedMiB;
        cs.memoryTotalMiB = models[c.model].memoryMiB;
        cs.temperatureC = m.temperatureC;
        cs.powerW = m.powerW;
        cs.powerLimitW = models[c.model].maxPowerW;
        cs.throttled = m.throttled;
        cs.throttleReasons = m.throttleReasons;
        cs.clockFactor = m.clockFactor;
        cs.slowdownTempC = models[c.model].slowdownTempC;
        cs.shutdownTempC = models[c.model].shutdownTempC;
        splitByUnits(st, c, m_run.get(), &cs);
        s->cards.append(cs);
    }
    addRuntimeSamples(*s, *m_run);
    return publishSnapshot(std::move(s), sched);
}

} // namespace Zhaoxi::Session
