// SPDX-License-Identifier: GPL-3.0-or-later
#include "simulationsession.h"

#include "eventbridge.h"

#include "core/catalogue/layoutrules.h"
#include "core/domain/workloadspec.h"
#include "core/policy/timewindows.h"
#include "core/sim/engine.h"
#include "core/storage/recorder.h"
#include "core/storage/store.h"

#include <QTimer>

#include <algorithm>
#include <cmath>

namespace Zhaoxi::Session {

using Domain::Problem;

using Domain::CardId;
using Domain::JobId;
using Domain::MigPlacement;

SimulationSession::SimulationSession(Sim::Scenario scenario,
                                     QString policy,
                                     quint64 seed,
                                     SimulationOptions options,
                                     QObject *parent)
    : RecordingSession(parent)
    , m_scenario(std::move(scenario))
    , m_policy(std::move(policy))
    , m_seed(seed)
    , m_options(std::move(options))
{
    registerMetaTypes();
    openStore(m_options.storePath, QStringLiteral("simulated-day.sqlite"));
    // The store's past, if it has one, instead of the scenario's synthetic days and nominal
    // service times (docs/simulation.md "Learning from the store"); said at each start.
    if (Storage::Store *st = store())
        if (const std::unique_ptr<Storage::Reader> reader = st->reader())
            m_learnEvents = Replay::learnScenario(*reader, m_scenario, m_scenario.startMs);
    makeEngine();
}

void SimulationSession::makeEngine()
{
    // The recorder reads the state it records: never an old engine's once that is gone.
    Storage::Recorder *rec = recorder();
    if (rec)
        rec->setState(nullptr);
    m_engine = std::make_unique<Sim::Engine>(m_scenario, m_policy, m_seed);
    if (rec)
        m_engine->mutableScheduler().addSink(rec);
}

void SimulationSession::startEngine()
{
    if (Storage::Recorder *rec = recorder())
        rec->setState(&m_engine->scheduler().state());
    m_engine->start();
    m_started = true;
    m_nextMetricMs = m_engine->nowMs();
    if (Storage::Recorder *rec = recorder())
        recordRunBasis(*rec, m_engine->nowMs(), m_scenario, m_policy, m_seed);
    if (Storage::Recorder *rec = recorder())
        Replay::recordLearnEvents(*rec, m_engine->nowMs(), m_learnEvents);
}

SimulationSession::~SimulationSession()
{
    // The recorder is a sink of the engine's scheduler: the engine goes first.
    m_engine.reset();
    closeStore();
}

void SimulationSession::start()
{
    if (!m_timer) {
        m_timer = new QTimer(this);
        m_timer->setInterval(m_options.frameMs);
        connect(m_timer, &QTimer::timeout, this, &SimulationSession::frame);
    }
    if (!m_started) {
        startEngine();
        collectEvents();
        sampleMetrics();
    }
    m_wall.start();
    m_lastFrameNs = 0;
    m_lastPublishNs = -1;
    m_timer->start();
    publish();
}

void SimulationSession::stop()
{
    if (m_timer)
        m_timer->stop();
    flushStore();
}

void SimulationSession::setSpeed(double speed)
{
    m_speed = speed;
    publish();
}

void SimulationSession::setPaused(bool paused)
{
    m_paused = paused;
    m_lastFrameNs = m_wall.isValid() ? m_wall.nsecsElapsed() : 0;
    publish();
}

void SimulationSession::restartDay()
{
    for (const PendingLayout &p : std::as_const(m_pendingLayouts))
        Q_EMIT commandFinished(
                CommandResult::answer(p.request, Problem(Problem::Code::DayRestarted)));
    m_pendingLayouts.clear();
    flushStore();
    makeEngine();
    m_xidErrors.clear();
    m_eccErrors.clear();
    m_applianceSeen = 0;
    startEngine();
    collectEvents();
    sampleMetrics();
    m_lastFrameNs = m_wall.isValid() ? m_wall.nsecsElapsed() : 0;
    publish();
}

void SimulationSession::runTo(qint64 sinceStartMs)
{
    if (!m_started)
        startEngine();
    const qint64 until = std::min(m_engine->endMs(), m_scenario.startMs + sinceStartMs);
    while (m_engine->nowMs() < until)
        advance(std::min(until, m_engine->nowMs() + m_options.maxStepMs));
    collectEvents();
    publish();
}

void SimulationSession::frame()
{
    const qint64 nowNs = m_wall.nsecsElapsed();
    const qint64 wallDeltaNs = nowNs - m_lastFrameNs;
    m_lastFrameNs = nowNs;
    const bool finished = m_engine->nowMs() >= m_engine->endMs();
    if (!m_paused && !finished) {
        if (m_speed > 0) {
            const qint64 simDelta = qint64(std::llround(double(wallDeltaNs) / 1e6 * m_speed));
            qint64 until = std::min(m_engine->endMs(),
                                    m_engine->nowMs() + std::max<qint64>(1, simDelta));
            // Never compute longer than a frame's budget, whatever the speed asks.
            while (m_engine->nowMs() < until
                   && m_wall.nsecsElapsed() - nowNs < qint64(m_options.maxFrameWorkMs) * 1'000'000)
                advance(std::min(until, m_engine->nowMs() + m_options.maxStepMs));
        } else {
            while (m_engine->nowMs() < m_engine->endMs()
                   && m_wall.nsecsElapsed() - nowNs < qint64(m_options.maxFrameWorkMs) * 1'000'000)
                advance(std::min(m_engine->endMs(), m_engine->nowMs() + m_options.maxStepMs));
        }
    }
    const qint64 sincePublish = m_wall.nsecsElapsed() - m_lastPublishNs;
    if (m_lastPublishNs < 0 || sincePublish >= qint64(m_options.snapshotIntervalMs) * 1'000'000
        || (m_engine->nowMs() >= m_engine->endMs() && !finished))
        publish();
}

void SimulationSession::advance(qint64 untilAbsMs)
{
    m_engine->advanceTo(untilAbsMs - m_scenario.startMs);
    collectEvents();
    tryPendingLayouts();
    if (m_engine->nowMs() >= m_nextMetricMs)
        sampleMetrics();
}

void SimulationSession::collectEvents()
{
    const QList<Device::ApplianceEvent> &all = m_engine->applianceEvents().events();
    if (m_applianceSeen > all.size()) // the bounded sink dropped its oldest
        m_applianceSeen = all.size();
    Storage::Recorder *rec = recorder();
    for (qsizetype i = m_applianceSeen; i < all.size(); ++i) {
        const Device::ApplianceEvent &ev = all[i];
        if (ev.code == Device::ApplianceEventCode::FaultCardLost)
            ++m_xidErrors[ev.card.value()];
        else if (ev.code == Device::ApplianceEventCode::FaultMemoryError)
            ++m_eccErrors[ev.card.value()];
        else if (ev.code == Device::ApplianceEventCode::CardRecovered) {
            // The card was reset: its volatile counters start again, as a real one's do.
            m_xidErrors.remove(ev.card.value());
            m_eccErrors.remove(ev.card.value());
        }
        if (rec)
            recordApplianceEvent(*rec, ev);
    }
    m_applianceSeen = all.size();
}

void SimulationSession::sampleMetrics()
{
    constexpr qint64 kMetricPeriodMs = 60'000;
    const qint64 at = m_engine->nowMs();
    m_nextMetricMs = at + kMetricPeriodMs;
    Storage::Recorder *rec = recorder();
    if (!rec)
        return;
    recordCardMetrics(*rec, at, m_engine->scheduler().state(), m_engine->backend());
    m_workloads.record(*rec, at, serviceTallies(*m_engine), trainingTallies(*m_engine));
}

SnapshotPtr SimulationSession::publish()
{
    auto s = std::make_shared<Snapshot>();
    const Sim::Engine &e = *m_engine;
    const Sched::Scheduler &sched = e.scheduler();
    const Sched::ClusterState &st = sched.state();
    s->nowMs = e.nowMs();
    s->startMs = m_scenario.startMs;
    s->endMs = e.endMs();
    s->utcOffsetSeconds = int(m_scenario.utcOffsetMs / 1000);
    s->speed = m_speed;
    s->paused = m_paused;
    s->finished = e.nowMs() >= e.endMs();
    s->simulated = true;
    s->applianceName
            = m_scenario.appliance.name.isEmpty() ? m_scenario.name : m_scenario.appliance.name;
    s->policy = e.policyName();
    s->window = Policy::TimeWindows::windowNameAt(e.policy(), e.localWeekMs(e.nowMs()));
    s->state = st;
    s->budget = sched.classBudget();
    s->queue = sched.queue();

    const auto &models = st.catalogue().models();
    for (const Sched::CardState &c : st.cards()) {
        CardSample cs;
        cs.card = c.id.value();
        if (c.id.value() < e.backend().cardCount()) {
            const Device::CardMetrics m = e.backend().metrics(c.id);
            cs.lost = m.lost;
            cs.utilisation = m.utilisation;
            cs.memoryUsedMiB = m.memoryUsedMiB;
            cs.temperatureC = m.temperatureC;
            cs.powerW = m.powerW;
            cs.throttled = m.throttled;
            cs.throttleReasons = m.throttleReasons;
            cs.clockFactor = m.clockFactor;
        }
        const Domain::CardModel &model = models[c.model];
        cs.slowdownTempC = model.slowdownTempC;
        cs.shutdownTempC = model.shutdownTempC;
        cs.xidErrors = m_xidErrors.value(c.id.value());
        cs.eccUncorrected = m_eccErrors.value(c.id.value());
        cs.memoryTotalMiB = model.memoryMiB;
        cs.powerLimitW = model.maxPowerW;
        // The card's measured busy time, split by the class of the jobs whose units it was.
        double training = 0, inference = 0;
        for (const Sched::Unit &u : c.units) {
            if (!u.job.isValid()) {
                cs.units.append(UnitSample{u.uid, 0.0, 0, {}});
                continue;
            }
            const double busy = e.busyShare(u.job);
            const double share = busy * double(st.unitMilli(c, u)) / 1000.0;
            if (share > 0)
                cs.busyUnits.append(u.uid);
            // The twin holds a bound unit's memory in full (what the card's figure adds up).
            cs.units.append(UnitSample{u.uid, cs.lost ? 0.0 : busy, cs.lost ? 0 : u.memoryMiB, {}});
            if (st.job(u.job).spec.kind == Domain::WorkloadKind::Inference)
                inference += share;
            else
                training += share;
        }
        const double sum = training + inference;
        const double util = std::isnan(cs.utilisation) ? sum : cs.utilisation;
        cs.trainingUtilisation = sum > 0 ? util * training / sum : 0;
        cs.inferenceUtilisation = sum > 0 ? util * inference / sum : 0;
        s->cards.append(cs);
    }

    // services() is the policies' read-only view (non-const only as their context's interface).
    const QList<Policy::ServiceView> views = m_engine->services(e.nowMs());
    for (int i = 0; i < e.serviceCount(); ++i) {
        const Sim::InferenceService &svc = e.service(i);
        const Sim::ServiceDef &def = m_scenario.services[i];
        ServiceSample ss;
        ss.index = i;
        ss.name = def.spec.name;
        ss.sloMs = def.spec.inference ? def.spec.inference->sloP99Ms : 0;
        ss.p50Ms = svc.window().quantileMs(0.5);
        ss.p99Ms = svc.window().quantileMs(0.99);
        ss.attainment = svc.requests() > 0 ? double(svc.withinSlo()) / double(svc.requests()) : 1;
        if (i < views.size()) {
            ss.ratePerS = views[i].observedRate;
            ss.replicas = views[i].serving;
            ss.targetReplicas = views[i].target;
            ss.minReplicas = views[i].minReplicas;
            ss.maxReplicas = views[i].maxReplicas;
        }
        s->services.append(ss);
    }
    for (int i = 0; i < e.trainingCount(); ++i) {
        const Sim::TrainingRun &run = e.trainingRun(i);
        TrainingSample ts;
        ts.job = e.trainingJob(i);
        ts.name = e.trainingDef(i).spec.name;
        ts.speed = run.isProgressing(e.nowMs()) ? run.speed() : 0;
        ts.loss = run.loss();
        ts.workHours = run.params().workMs / 3.6e6;
        ts.doneHours = run.doneMs() / 3.6e6;
        ts.lostHours = run.lostMs() / 3.6e6;
        ts.progress
                = run.params().workMs > 0 ? std::min(1.0, run.doneMs() / run.params().workMs) : 0;
        ts.completed = e.trainingCompleted(i);
        s->training.append(ts);
    }

    m_lastPublishNs = m_wall.isValid() ? m_wall.nsecsElapsed() : 0;
    return publishSnapshot(std::move(s), sched);
}

bool SimulationSession::validJob(int job) const
{
    return job >= 0 && job < m_engine->scheduler().state().jobs().size();
}

bool SimulationSession::validCard(int card) const
{
    return card >= 0 && card < m_engine->scheduler().state().cards().size();
}

void SimulationSession::previewPlacement(quint64 request, int job, int card)
{
    PlacementPreview p = previewPlacementOn(
            m_engine->scheduler(), JobId(job), CardId(card), m_engine->nowMs());
    addStartHint(&p, *m_engine, m_engine->nowMs());
    p.request = request;
    Q_EMIT placementPreviewReady(p);
}

void SimulationSession::placeJob(quint64 request, int job, int card, bool allowPreemption)
{
    place(request, job, card, allowPreemption, Sched::BudgetRule::Keep);
}

void SimulationSession::place(
        quint64 request, int job, int card, bool allowPreemption, Sched::BudgetRule budget)
{
    CommandResult r;
    r.request = request;
    if (!validJob(job) || !validCard(card)) {
        setProblem(
                r,
                Problem(Problem::Code::NoJobOrCard, {QString::number(job), QString::number(card)}));
        Q_EMIT commandFinished(r);
        return;
    }
    if (m_engine->scheduler().state().job(JobId(job)).state != Sched::JobState::Pending) {
        setProblem(r, Problem(Problem::Code::JobNotWaiting, {QString::number(job)}));
        Q_EMIT commandFinished(r);
        return;
    }
    Sched::Decision d;
    m_engine->operate([&](Sched::Scheduler &s, qint64 now) {
        d = allowPreemption ? s.placeWithPreemption(JobId(job), now, CardId(card), budget)
                            : s.placeNow(JobId(job), now, CardId(card), budget);
    });
    r.ok = d.status.isSuccess();
    r.status = d.status;
    if (!r.ok)
        setProblem(r, Problem(Problem::Code::Unschedulable, {d.status.describe()}));
    collectEvents();
    Q_EMIT commandFinished(r);
    publish();
}

void SimulationSession::placeJobConfirmed(
        quint64 request, int job, int card, QList<int> victims, Sched::BudgetRule budget)
{
    CommandResult r;
    r.request = request;
    if (validJob(job) && validCard(card)
        && !confirmedPlanHolds(m_engine->scheduler(),
                               JobId(job),
                               CardId(card),
                               m_engine->nowMs(),
                               victims,
                               budget,
                               &r)) {
        Q_EMIT commandFinished(r);
        return;
    }
    place(request, job, card, true, budget);
}

void SimulationSession::requeueJob(quint64 request, int job)
{
    CommandResult r;
    r.request = request;
    if (!validJob(job) || !m_engine->scheduler().state().job(JobId(job)).isActive()) {
        setProblem(r, Problem(Problem::Code::JobNotRunning, {QString::number(job)}));
        Q_EMIT commandFinished(r);
        return;
    }
    m_engine->operate([&](Sched::Scheduler &s, qint64 now) { s.requeue(JobId(job), now, false); });
    r.ok = true;
    collectEvents();
    Q_EMIT commandFinished(r);
    publish();
}

void SimulationSession::submitWorkload(quint64 request, QJsonObject json)
{
    CommandResult r;
    r.request = request;
    const std::optional<Domain::WorkloadSpec> spec = specForSubmission(json, &r);
    if (!spec) {
        Q_EMIT commandFinished(r);
        return;
    }
    if (spec->kind == Domain::WorkloadKind::Inference) {
        r.field = QStringLiteral("kind");
        setProblem(r, Problem(Problem::Code::TwinServicesFromScenario));
        Q_EMIT commandFinished(r);
        return;
    }
    const Sched::Feasibility f = m_engine->scheduler().couldEverRun(*spec);
    if (!f.possible) {
        r.field = QStringLiteral("demand");
        r.status = f.reason;
        setProblem(r, Problem(Problem::Code::NeverRuns, {f.reason.describe()}));
        Q_EMIT commandFinished(r);
        return;
    }
    if (spec->time.expectedDurationMs <= 0) {
        r.field = QStringLiteral("time.expectedDuration");
        setProblem(r, Problem(Problem::Code::TwinNeedsDuration));
        Q_EMIT commandFinished(r);
        return;
    }
    Sim::TrainingDef def;
    def.spec = *spec;
    def.workMs = double(spec->time.expectedDurationMs) * std::max(1, spec->demand.cards);
    r.job = m_engine->submitTraining(def);
    r.ok = r.job.isValid();
    collectEvents();
    Q_EMIT commandFinished(r);
    publish();
}

void SimulationSession::cancelJob(quint64 request, int job)
{
    onActiveJob(request, job, [&](Sched::Scheduler &s, qint64 now) {
        return s.cancel(JobId(job), now);
    });
}

void SimulationSession::setJobPriority(quint64 request, int job, int priority)
{
    onActiveJob(request, job, [&](Sched::Scheduler &s, qint64 now) {
        return s.setPriority(JobId(job), priority, now);
    });
}

void SimulationSession::pinLayout(quint64 request, int card, qint64 untilMs)
{
    CommandResult r;
    r.request = request;
    m_engine->operate([&](Sched::Scheduler &s, qint64 now) {
        answerWith(r, [&](Problem *why) {
            return Sched::changeLayoutPin(s, CardId(card), untilMs, now, why);
        });
    });
    collectEvents();
    Q_EMIT commandFinished(r);
    publish();
}

void SimulationSession::cordonCard(quint64 request, int card, bool cordoned, bool drain)
{
    CommandResult r;
    r.request = request;
    m_engine->operate([&](Sched::Scheduler &, qint64 now) {
        answerWith(r, [&](Problem *why) {
            return m_engine->cordonCard(card, cordoned, drain, now, why);
        });
    });
    collectEvents();
    Q_EMIT commandFinished(r);
    publish();
}

void SimulationSession::onActiveJob(quint64 request,
                                    int job,
                                    const std::function<bool(Sched::Scheduler &, qint64)> &command)
{
    CommandResult r;
    r.request = request;
    r.job = JobId(job);
    if (!validJob(job) || m_engine->scheduler().state().job(JobId(job)).isTerminal()) {
        setProblem(r, Problem(Problem::Code::JobEnded, {QString::number(job)}));
        Q_EMIT commandFinished(r);
        return;
    }
    m_engine->operate([&](Sched::Scheduler &s, qint64 now) { r.ok = command(s, now); });
    collectEvents();
    Q_EMIT commandFinished(r);
    publish();
}

void SimulationSession::requestJobLog(quint64 request, int job, qint64)
{
    JobLog log;
    log.request = request;
    log.job = JobId(job);
    setProblem(log,
               validJob(job) ? Problem(Problem::Code::TwinHasNoLogs)
                             : Problem(Problem::Code::NoJob, {QString::number(job)}));
    Q_EMIT jobLogReady(log);
}

LayoutPreview SimulationSession::plan(int card, const QList<MigPlacement> &target) const
{
    LayoutPreview p = previewLayoutChange(m_engine->scheduler().state(), CardId(card), target);
    if (p.ok) {
        const Device::SimulatedBackendOptions &dev = m_scenario.device;
        p.expectedMs = qint64(p.destroys) * dev.destroyMs + qint64(p.creates) * dev.createMs;
    }
    return p;
}

void SimulationSession::previewLayout(quint64 request, int card, QList<MigPlacement> target)
{
    LayoutPreview p = plan(card, target);
    p.request = request;
    Q_EMIT layoutPreviewReady(p);
}

bool SimulationSession::applyNow(const PendingLayout &p, bool evictRest, Problem *why)
{
    // One command: what still runs there leaves (when asked), the layout changes and the card is
    // released, with no scheduling cycle in between to hand the freed partitions out again.
    bool ok = false;
    m_engine->operate([&](Sched::Scheduler &s, qint64 now) {
        if (evictRest) {
            for (JobId j : plan(p.card.value(), p.target).affectedJobs)
                s.requeue(j, now, false);
        }
        ok = s.applyLayout(p.card, p.target, now, why);
        if (ok || evictRest)
            s.setCardCordoned(p.card, false, now);
    });
    collectEvents();
    return ok;
}

void SimulationSession::applyLayout(quint64 request,
                                    int card,
                                    QList<MigPlacement> target,
                                    ApplyMode mode,
                                    qint64 drainDeadlineMs)
{
    const LayoutPreview p = plan(card, target);
    if (!p.ok) {
        Q_EMIT commandFinished(CommandResult::answer(request, p.problem));
        return;
    }
    const PendingLayout pending{request,
                                CardId(card),
                                target,
                                m_engine->nowMs() + std::max<qint64>(0, drainDeadlineMs)};
    if (mode == ApplyMode::Immediate || p.affectedJobs.isEmpty()) {
        Problem why;
        applyNow(pending, true, &why);
        Q_EMIT commandFinished(CommandResult::answer(request, why));
        publish();
        return;
    }
    // Drain: the card takes no new work; its jobs leave at their next checkpoint (or natural
    // end); the layout changes when the last has left, at the latest at the deadline.
    m_engine->operate([&](Sched::Scheduler &s, qint64 now) {
        s.setCardCordoned(CardId(card), true, now);
        for (JobId j : p.affectedJobs)
            s.requeue(j, now, true);
    });
    collectEvents();
    m_pendingLayouts.append(pending);
    tryPendingLayouts();
    publish();
}

void SimulationSession::tryPendingLayouts()
{
    for (qsizetype i = 0; i < m_pendingLayouts.size();) {
        const PendingLayout p = m_pendingLayouts[i];
        const bool due = m_engine->nowMs() >= p.deadlineMs;
        if (!due && !plan(p.card.value(), p.target).affectedJobs.isEmpty()) {
            ++i;
            continue;
        }
        Problem why;
        applyNow(p, due, &why);
        m_pendingLayouts.removeAt(i);
        Q_EMIT commandFinished(CommandResult::answer(p.request, why));
    }
}

void SimulationSession::setSchedule(quint64 request, QJsonObject windowsParams)
{
    Policy::PolicyError err;
    std::unique_ptr<Policy::Policy> policy = Policy::TimeWindows::create(windowsParams, &err);
    if (!policy) {
        Q_EMIT commandFinished(CommandResult::answer(
                request,
                Problem::text(err.field.isEmpty()
                                      ? err.message
                                      : err.field + QStringLiteral(": ") + err.message)));
        return;
    }
    m_engine->setPolicy(std::move(policy), QStringLiteral("windows"));
    collectEvents();
    Q_EMIT commandFinished(CommandResult::answer(request));
    publish();
}

void SimulationSession::previewSchedule(quint64 request, QJsonObject windowsParams)
{
    m_engine->start();
    SchedulePreview p = previewScheduleOn(*m_engine, windowsParams, m_engine->nowMs());
    p.request = request;
    Q_EMIT schedulePreviewReady(p);
}

void SimulationSession::setScheduleConfirmed(quint64 request,
                                             QJsonObject windowsParams,
                                             QList<int> evicted)
{
    m_engine->start();
    CommandResult r;
    r.request = request;
    if (!confirmedScheduleHolds(*m_engine, windowsParams, m_engine->nowMs(), evicted, &r)) {
        Q_EMIT commandFinished(r);
        return;
    }
    setSchedule(request, windowsParams);
}

} // namespace Zhaoxi::Session
