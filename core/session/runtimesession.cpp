// SPDX-License-Identifier: GPL-3.0-or-later
#include "runtimesession.h"

#include "core/policy/timewindows.h"
#include "core/runtime/liverun.h"
#include "core/runtime/processworkloads.h"

#include <cmath>

namespace Zhaoxi::Session {

using Domain::Problem;

void addRuntimeSamples(Snapshot &s, Runtime::LiveRun &run)
{
    s.policy = run.policyName();
    for (const Policy::ServiceView &v : run.serviceViews()) {
        ServiceSample ss;
        ss.index = v.index;
        ss.name = v.name;
        ss.sloMs = v.sloMs;
        ss.p99Ms = v.windowP99Ms;
        ss.ratePerS = v.observedRate;
        ss.attainment = v.windowRequests > 0
                                ? 1.0 - double(v.windowOverSlo) / double(v.windowRequests)
                                : 1.0;
        ss.replicas = v.serving;
        ss.targetReplicas = v.target;
        ss.minReplicas = v.minReplicas;
        ss.maxReplicas = v.maxReplicas;
        s.services.append(ss);
    }
    for (const Sched::Job &j : s.state.jobs()) {
        if (j.spec.kind == Domain::WorkloadKind::Inference)
            continue;
        const Runtime::ProcessWorkloads::JobStats js = run.workloads().stats(j.id);
        if (js.starts == 0 && j.state == Sched::JobState::Pending)
            continue;
        TrainingSample ts;
        ts.job = j.id;
        ts.name = j.spec.name;
        // Real jobs report samples per second, not reference-card work: the chart's unit.
        ts.speed = js.running ? js.samplesPerS : 0;
        ts.loss = js.lastLoss;
        ts.completed = j.state == Sched::JobState::Finished;
        ts.lostHours = double(js.lostWorkMs) / 3600'000.0;
        s.training.append(ts);
    }
}

void splitByUnits(const Sched::ClusterState &st,
                  const Sched::CardState &c,
                  const Runtime::LiveRun *run,
                  CardSample *cs)
{
    double train = 0, infer = 0, held = 0;
    cs->units.clear();
    for (const Sched::Unit &u : c.units) {
        // Each partition as LiveRun::modelLoad loads the simulated cards: busy while its job's
        // process runs, with the memory the job asked for within the unit's. A hardware session
        // replaces these with the driver's readings.
        UnitSample us;
        us.uid = u.uid;
        const bool running = run && u.job.isValid() && run->workloads().stats(u.job).running;
        us.utilisation = running ? 1.0 : 0.0;
        if (running) {
            const qint64 asked = st.job(u.job).spec.demand.memoryMiB;
            us.memoryUsedMiB = asked > 0 ? std::min(asked, u.memoryMiB) : u.memoryMiB;
        }
        cs->units.append(us);
        if (!u.job.isValid())
            continue;
        const double share = double(st.unitMilli(c, u)) / 1000.0;
        held += share;
        if (st.job(u.job).spec.kind == Domain::WorkloadKind::Inference)
            infer += share;
        else
            train += share;
        if (run && run->workloads().stats(u.job).running)
            cs->busyUnits.append(u.uid);
    }
    if (held > 0 && !std::isnan(cs->utilisation)) {
        cs->trainingUtilisation = cs->utilisation * train / held;
        cs->inferenceUtilisation = cs->utilisation * infer / held;
    }
}

RuntimeSession::RuntimeSession(QObject *parent)
    : RecordingSession(parent)
{}

RuntimeSession::~RuntimeSession() = default;

void RuntimeSession::placeJob(quint64 request, int job, int card, bool allowPreemption)
{
    place(request, job, card, allowPreemption, Sched::BudgetRule::Keep);
}

void RuntimeSession::place(
        quint64 request, int job, int card, bool allowPreemption, Sched::BudgetRule budget)
{
    CommandResult r;
    r.request = request;
    r.job = Domain::JobId(job);
    if (readyForWork(&r)) {
        const Sched::ClusterState &st = m_run->scheduler().state();
        if (job < 0 || job >= st.jobs().size() || card < 0 || card >= st.cards().size()) {
            setProblem(r,
                       Problem(Problem::Code::NoJobOrCard,
                               {QString::number(job), QString::number(card)}));
        } else if (st.job(Domain::JobId(job)).state != Sched::JobState::Pending) {
            setProblem(r, Problem(Problem::Code::JobNotWaiting, {QString::number(job)}));
        } else {
            const Sched::Decision d = m_run->place(
                    Domain::JobId(job), Domain::CardId(card), allowPreemption, budget);
            r.ok = d.status.isSuccess();
            r.status = d.status;
            if (!r.ok)
                setProblem(r, Problem(Problem::Code::Unschedulable, {d.status.describe()}));
        }
    }
    Q_EMIT commandFinished(r);
    publish();
}

void RuntimeSession::placeJobConfirmed(
        quint64 request, int job, int card, QList<int> victims, Sched::BudgetRule budget)
{
    CommandResult r;
    r.request = request;
    if (readyForWork(&r)) {
        const Sched::ClusterState &st = m_run->scheduler().state();
        if (job >= 0 && job < st.jobs().size() && card >= 0 && card < st.cards().size()
            && !confirmedPlanHolds(m_run->scheduler(),
                                   Domain::JobId(job),
                                   Domain::CardId(card),
                                   m_run->now(),
                                   victims,
                                   budget,
                                   &r)) {
            Q_EMIT commandFinished(r);
            return;
        }
    }
    place(request, job, card, true, budget);
}

void RuntimeSession::jobCommand(quint64 request,
                                int job,
                                const std::function<bool(Problem *)> &command)
{
    CommandResult r;
    r.request = request;
    r.job = Domain::JobId(job);
    if (readyForWork(&r))
        answerWith(r, command);
    Q_EMIT commandFinished(r);
    publish();
}

void RuntimeSession::requeueJob(quint64 request, int job)
{
    jobCommand(request, job, [&](Problem *why) { return m_run->requeue(Domain::JobId(job), why); });
}

void RuntimeSession::cancelJob(quint64 request, int job)
{
    jobCommand(request, job, [&](Problem *why) { return m_run->cancel(Domain::JobId(job), why); });
}

void RuntimeSession::setJobPriority(quint64 request, int job, int priority)
{
    jobCommand(request, job, [&](Problem *why) {
        return m_run->setPriority(Domain::JobId(job), priority, why);
    });
}

void RuntimeSession::pinLayout(quint64 request, int card, qint64 untilMs)
{
    CommandResult r;
    r.request = request;
    if (readyForWork(&r))
        answerWith(r, [&](Problem *why) {
            return m_run->pinLayout(Domain::CardId(card), untilMs, why);
        });
    Q_EMIT commandFinished(r);
    publish();
}

void RuntimeSession::cordonCard(quint64 request, int card, bool cordoned, bool drain)
{
    CommandResult r;
    r.request = request;
    if (readyForWork(&r))
        answerWith(r, [&](Problem *why) { return m_run->cordon(card, cordoned, drain, why); });
    Q_EMIT commandFinished(r);
    publish();
}

void RuntimeSession::submitWorkload(quint64 request, QJsonObject json)
{
    CommandResult r;
    r.request = request;
    const std::optional<Domain::WorkloadSpec> spec = specForSubmission(json, &r);
    if (spec && readyForWork(&r)) {
        r.job = m_run->submit(*spec, &r.error, &r.field);
        r.ok = r.job.isValid();
    }
    Q_EMIT commandFinished(r);
    publish();
}

void RuntimeSession::requestJobLog(quint64 request, int job, qint64 maxBytes)
{
    JobLog log;
    log.request = request;
    log.job = Domain::JobId(job);
    CommandResult r;
    if (readyForWork(&r)) {
        const Runtime::JobLogTail t = m_run->jobLog(Domain::JobId(job), maxBytes);
        log.ok = t.ok;
        log.error = t.error;
        log.path = t.path;
        log.text = QString::fromUtf8(t.text);
        log.truncated = t.truncated;
    } else {
        setProblem(log, r.problem);
    }
    Q_EMIT jobLogReady(log);
}

void RuntimeSession::setSchedule(quint64 request, QJsonObject windowsParams)
{
    CommandResult r;
    r.request = request;
    Policy::PolicyError perr;
    if (!Policy::TimeWindows::create(windowsParams, &perr)) {
        r.field = perr.field;
        setProblem(r,
                   Problem::text(perr.field.isEmpty()
                                         ? perr.message
                                         : perr.field + QStringLiteral(": ") + perr.message));
    } else if (readyForWork(&r)) {
        r.ok = m_run->setPolicy(QStringLiteral("windows"), windowsParams, &r.error);
    }
    Q_EMIT commandFinished(r);
    publish();
}

void RuntimeSession::previewSchedule(quint64 request, QJsonObject windowsParams)
{
    SchedulePreview p;
    CommandResult r;
    if (m_run) {
        p = previewScheduleOn(*m_run, windowsParams, m_run->now());
    } else {
        readyForWork(&r);
        setProblem(p, r.problem.isNone() ? Problem(Problem::Code::RuntimeNotRunning) : r.problem);
    }
    p.request = request;
    Q_EMIT schedulePreviewReady(p);
}

void RuntimeSession::setScheduleConfirmed(quint64 request,
                                          QJsonObject windowsParams,
                                          QList<int> evicted)
{
    CommandResult r;
    r.request = request;
    if (readyForWork(&r)
        && !confirmedScheduleHolds(*m_run, windowsParams, m_run->now(), evicted, &r)) {
        Q_EMIT commandFinished(r);
        return;
    }
    setSchedule(request, windowsParams);
}

void RuntimeSession::drainThenApply(quint64 request,
                                    int card,
                                    const QList<Domain::MigPlacement> &target,
                                    ApplyMode mode,
                                    qint64 drainDeadlineMs,
                                    const QList<Domain::JobId> &affected,
                                    qint64 nowMs)
{
    Sched::Scheduler &sched = m_run->mutableScheduler();
    sched.setCardCordoned(Domain::CardId(card), true, nowMs);
    for (Domain::JobId j : affected) {
        if (mode == ApplyMode::Immediate)
            sched.requeue(j, nowMs, false);
        else
            m_run->requeue(j, nullptr);
    }
    m_run->stepNow();
    m_pendingLayouts.append(PendingLayout{
            request,
            card,
            target,
            mode == ApplyMode::Immediate ? nowMs : nowMs + std::max<qint64>(0, drainDeadlineMs),
            affected});
    tryPendingLayouts(nowMs);
    publish();
}

bool RuntimeSession::cardHasWork(const PendingLayout &p) const
{
    if (!jobsInTheWay(p.card, p.target).isEmpty())
        return true;
    // The scheduler has let go; a process may still be stopping (its stop grace).
    for (Domain::JobId j : p.jobs)
        if (m_run->workloads().stats(j).running)
            return true;
    return false;
}

void RuntimeSession::tryPendingLayouts(qint64 nowMs)
{
    if (!m_run)
        return;
    for (qsizetype i = 0; i < m_pendingLayouts.size();) {
        const PendingLayout p = m_pendingLayouts[i];
        if (nowMs >= p.deadlineMs) {
            const QList<Domain::JobId> affected = jobsInTheWay(p.card, p.target);
            for (Domain::JobId j : affected)
                m_run->mutableScheduler().requeue(j, nowMs, false); // the deadline: at once
            if (!affected.isEmpty())
                m_run->stepNow();
        }
        if (cardHasWork(p)) {
            ++i;
            continue;
        }
        m_pendingLayouts.removeAt(i);
        applyLayoutNow(p.request, p.card, p.target);
        m_run->mutableScheduler().setCardCordoned(Domain::CardId(p.card), false, nowMs);
        m_run->stepNow();
    }
}

} // namespace Zhaoxi::Session
