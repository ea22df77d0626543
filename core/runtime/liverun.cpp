// SPDX-License-Identifier: GPL-3.0-or-later
#include "liverun.h"

#include "endpoints.h"
#include "mpsdaemons.h"
#include "scraper.h"

#include <QDateTime>
#include <QDir>
#include <QJsonArray>
#include <QUrl>

#include <algorithm>
#include <climits>
#include <cmath>
#include <csignal>

#include <sys/prctl.h>

namespace Zhaoxi::Runtime {

using Device::ApplianceEvent;
using Device::ApplianceEventCode;
using Domain::JobId;
using Policy::ActionReason;

namespace {

MetricNames namesFor(const Domain::RunSpec &run)
{
    const Domain::MetricNames d = Domain::metricNamesFor(run);
    MetricNames m;
    m.latency = d.latency;
    m.queue = d.queue;
    m.kind = d.latencyKind == Domain::MetricNames::LatencyKind::CounterPair
                     ? MetricNames::LatencyKind::CounterSum
                     : MetricNames::LatencyKind::Histogram;
    m.countMetric = d.latencyCount;
    m.toMs = Domain::secondsPer(d.latencyUnit) * 1000.0;
    return m;
}

QString replicaKey(JobId job)
{
    return QStringLiteral("j%1").arg(job.value());
}

} // namespace

namespace {
// Real jobs checkpoint when signalled.
Sched::SchedulerOptions liveOptions(Sched::SchedulerOptions o)
{
    o.preemption.checkpointOnRequest = true;
    return o;
}
} // namespace

LiveRun::LiveRun(const Sim::Scenario &scenario, LiveRunOptions options, QObject *parent)
    : QObject(parent)
    , ApplianceCore(scenario.appliance.state, liveOptions(scenario.scheduler), scenario.utcOffsetMs)
    , m_scenario(scenario)
    , m_options(std::move(options))
{
    qRegisterMetaType<Zhaoxi::Device::ApplianceEvent>();
    if (!m_options.clock)
        m_options.clock = [] { return QDateTime::currentMSecsSinceEpoch(); };
    m_policyName = m_options.policy.isEmpty() ? m_scenario.defaultPolicy : m_options.policy;
    if (m_options.backend) {
        m_backend = m_options.backend;
    } else {
        m_ownBackend = std::make_unique<Device::SimulatedBackend>(m_scenario.appliance.state,
                                                                  m_scenario.device);
        m_backend = m_ownBackend.get();
    }
    m_bridge.setBackend(m_backend);
    m_bridge.setCardMap(m_options.backendCard);
    m_sched->addStepSink(&m_bridge);
    m_runner = std::make_unique<ProcessRunner>(ProcessRunner::Options{m_options.shimPath, 100});

    UnitIds ids;
    // Through this object: the backend may be swapped (setBackend).
    ids.cardUuid = [this](Domain::CardId card) {
        const Domain::CardId c = m_options.backendCard ? m_options.backendCard(card) : card;
        for (const Device::CardInfo &info : m_backend->cards())
            if (info.id == c)
                return info.uuid;
        return QString();
    };
    ids.instanceUuid = [this](Domain::CardId card, int profile, int start) {
        const Domain::CardId c = m_options.backendCard ? m_options.backendCard(card) : card;
        for (const Device::InstanceInfo &i : m_backend->layout(c).instances)
            if (i.profile == profile && i.start == start && i.ready)
                return i.uuid;
        return QString();
    };
    m_mps = std::make_unique<MpsDaemons>(
            MpsDaemons::Options{QDir(m_options.dataDir).filePath(QStringLiteral("mps")),
                                m_options.mpsControlPath,
                                ids.cardUuid});
    MpsDaemons *mps = m_mps.get();
    ids.mpsDirs = [mps](Domain::CardId card) { return mps->dirs(card); };
    ids.mpsUser = [mps](Domain::CardId card) { return mps->clientUser(card); };
    ids.mpsClient = [mps](Domain::CardId card, const QString &user, bool coming) {
        if (coming)
            mps->addClient(card, user);
        else
            mps->removeClient(card, user);
    };
    ProcessWorkloads::Options wo;
    wo.dataDir = m_options.dataDir;
    wo.allowRoot = m_options.allowRoot;
    wo.clock = [this] { return now(); };
    m_work = std::make_unique<ProcessWorkloads>(*m_sched, *m_runner, ids, wo);
    connect(m_work.get(), &ProcessWorkloads::eventRecorded, this, &LiveRun::processEvent);
    connect(m_work.get(), &ProcessWorkloads::changed, this, [this] { step(now()); });
    connect(m_work.get(), &ProcessWorkloads::recordsChanged, this, &LiveRun::stateChanged);

    m_scraper = std::make_unique<Scraper>();
    connect(m_scraper.get(), &Scraper::scraped, this, &LiveRun::onScraped);
    connect(m_scraper.get(), &Scraper::probed, this, &LiveRun::onProbed);
    m_endpoints = std::make_unique<EndpointPublisher>(
            QDir(m_options.dataDir).filePath(QStringLiteral("endpoints")));

    for (const Sim::ServiceDef &def : m_scenario.services) {
        ServiceRt s;
        s.def = def;
        if (def.spec.run)
            s.names = namesFor(*def.spec.run);
        s.unit = Sim::replicaUnit(m_scenario, def);
        m_services.append(s);
    }
    m_trainingJobs.fill(JobId(), m_scenario.training.size());
    // The control period: the scenario's, in wall time, within [250 ms, controlPeriodMs]. The
    // policy's window spans the scenario's window, but at least 2 s of real traffic: rates are
    // real requests per second however fast the scenario's clock runs.
    m_periodMs
            = std::clamp<qint64>(qint64(double(m_scenario.controlPeriodMs) / m_scenario.liveSpeed),
                                 std::min<qint64>(250, m_options.controlPeriodMs),
                                 m_options.controlPeriodMs);
    const double windowMs = double(m_scenario.windowSlots) * double(m_scenario.controlPeriodMs);
    m_windowSlots = std::max(int(std::ceil(windowMs / (double(m_periodMs) * m_scenario.liveSpeed))),
                             int(std::ceil(2000.0 / double(m_periodMs))));
    m_timer.setInterval(int(m_periodMs));
    connect(&m_timer, &QTimer::timeout, this, &LiveRun::control);
}

LiveRun::~LiveRun()
{
    // Processes outlive this object only when stop() was not called: stop them.
    if (m_started)
        stop(5000);
}

qint64 LiveRun::now() const
{
    if (!m_started && m_wallStartMs == 0)
        return m_options.resumeAtMs.value_or(m_scenario.startMs);
    return m_clockStartMs
           + qint64(std::llround(double(wallNow() - m_wallStartMs) * m_scenario.liveSpeed));
}

QJsonObject LiveRun::resumeState() const
{
    return QJsonObject{{QStringLiteral("scenario_ms"), double(now())},
                       {QStringLiteral("data_dir"), m_options.dataDir},
                       {QStringLiteral("processes"), m_work->records()}};
}

void LiveRun::rebuildFromState()
{
    const Sched::ClusterState &st = m_sched->state();
    for (const Sched::Job &j : st.jobs()) {
        if (j.spec.kind == Domain::WorkloadKind::Inference && j.spec.inference) {
            bool known = false;
            for (const ServiceRt &s : std::as_const(m_services))
                known |= s.def.spec.inference->service == j.spec.inference->service;
            if (!known && !j.isTerminal() && j.spec.run) {
                // An operator's service: its replicas carry its spec.
                ServiceRt s;
                s.def.spec = j.spec;
                s.def.spec.name = j.spec.inference->service;
                s.def.serviceMs = 0;
                s.names = namesFor(*j.spec.run);
                s.unit = Sim::replicaUnit(m_scenario, s.def);
                s.operatorService = true;
                m_services.append(s);
            }
            for (ServiceRt &s : m_services) {
                if (s.def.spec.inference->service != j.spec.inference->service)
                    continue;
                // Names are never given twice, also after the replica ended.
                const int dash = j.spec.name.lastIndexOf(QLatin1Char('-'));
                s.nextName = std::max(s.nextName, j.spec.name.mid(dash + 1).toInt() + 1);
                if (!j.isTerminal())
                    s.replicas.append(ReplicaRt{j.id, std::nullopt, std::nullopt, false});
            }
            continue;
        }
        if (j.isTerminal())
            continue;
        for (int i = 0; i < m_scenario.training.size(); ++i)
            if (m_scenario.training[i].spec.name == j.spec.name && !m_trainingJobs[i].isValid())
                m_trainingJobs[i] = j.id;
    }
    // Training that had ended keeps its slot, so that it is not submitted again.
    for (const Sched::Job &j : st.jobs())
        for (int i = 0; i < m_scenario.training.size(); ++i)
            if (m_scenario.training[i].spec.name == j.spec.name && !m_trainingJobs[i].isValid())
                m_trainingJobs[i] = j.id;
    // The operator's training and batch jobs that have not ended.
    for (const Sched::Job &j : st.jobs())
        if (j.spec.kind != Domain::WorkloadKind::Inference && !j.isTerminal()
            && !m_trainingJobs.contains(j.id))
            m_trainingJobs.append(j.id);
}

bool LiveRun::start(QString *error)
{
    auto fail = [&](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    for (const Sim::ServiceDef &def : m_scenario.services) {
        QString why;
        if (!ProcessWorkloads::admissible(def.spec, m_options.allowRoot, &why))
            return fail(QStringLiteral("service %1: %2").arg(def.spec.inference->service, why));
    }
    for (const Sim::TrainingDef &def : m_scenario.training) {
        QString why;
        if (!ProcessWorkloads::admissible(def.spec, m_options.allowRoot, &why))
            return fail(QStringLiteral("training %1: %2").arg(def.spec.name, why));
    }
    if (m_policyName != QLatin1String("none")) {
        Policy::PolicyError perr;
        m_policy = Policy::makePolicy(
                m_policyName, m_scenario.policyParams.value(m_policyName).toObject(), &perr);
        if (!m_policy)
            return fail(QStringLiteral("policy %1: %2%3")
                                .arg(m_policyName,
                                     perr.field.isEmpty() ? QString()
                                                          : perr.field + QStringLiteral(": "),
                                     perr.message));
    }
    if (!QDir().mkpath(m_options.dataDir))
        return fail(QStringLiteral("cannot create the data directory %1").arg(m_options.dataDir));
    m_clockStartMs = m_options.resumeAtMs.value_or(m_scenario.startMs);
    m_wallStartMs = wallNow();
    m_started = true;
    const qint64 t = now();
    if (m_options.resumeAtMs) {
        rebuildFromState();
        m_work->adopt(m_options.processRecords, t);
    }
    for (int i = 0; i < m_services.size(); ++i) {
        int active = 0;
        for (const ReplicaRt &r : std::as_const(m_services[i].replicas))
            active += !r.leaving;
        for (int r = active; r < m_services[i].def.spec.inference->minReplicas; ++r)
            addReplica(i, t, ActionReason::None);
    }
    if (m_policy) {
        m_policy->start(*this, t);
        m_policyWakeMs = t;
    }
    if (m_scenario.liveLoad && !m_options.loadPath.isEmpty())
        for (int i = 0; i < m_services.size(); ++i)
            startLoad(i);
    control();
    m_timer.start();
    return true;
}

void LiveRun::startLoad(int service)
{
    ServiceRt &s = m_services[service];
    // The service's rate curve over the run, in real requests per second at wall offsets.
    const qint64 from = m_clockStartMs;
    const qint64 runMs = std::max<qint64>(1000, m_scenario.startMs + m_scenario.durationMs - from);
    const int points = 96;
    QStringList rate;
    for (int i = 0; i <= points; ++i) {
        const qint64 at = runMs * i / points;
        const double r = s.def.curve.rate(localWeekMs(from + at));
        rate << QStringLiteral("%1s:%2")
                        .arg(double(at) / m_scenario.liveSpeed / 1000.0, 0, 'f', 3)
                        .arg(r, 0, 'f', 3);
    }
    s.load = new QProcess(this);
    s.load->setProgram(m_options.loadPath);
    s.load->setArguments(
            {QStringLiteral("--endpoints"),
             QDir(m_options.dataDir).filePath(QStringLiteral("endpoints/endpoints.json")),
             QStringLiteral("--service"),
             s.def.spec.inference->service,
             QStringLiteral("--rate"),
             rate.join(QLatin1Char(',')),
             QStringLiteral("--for"),
             QStringLiteral("%1s").arg(double(runMs) / m_scenario.liveSpeed / 1000.0, 0, 'f', 3),
             QStringLiteral("--seed"),
             QString::number(m_scenario.seed + quint64(service))});
    s.load->setStandardOutputFile(
            QDir(m_options.dataDir)
                    .filePath(QStringLiteral("load-%1.json").arg(s.def.spec.inference->service)));
    s.load->setStandardErrorFile(QProcess::nullDevice());
    // A load generator is the run's own helper, not a workload: it dies with the run.
    s.load->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
    s.load->start();
}

void LiveRun::addReplica(int service, qint64 nowMs, ActionReason why)
{
    ServiceRt &s = m_services[service];
    Domain::WorkloadSpec spec = s.def.spec;
    spec.name = QStringLiteral("%1-%2").arg(s.def.spec.inference->service).arg(s.nextName++);
    const JobId job = m_work->submit(spec, nowMs, nullptr);
    if (!job.isValid())
        return;
    s.replicas.append(ReplicaRt{job, std::nullopt, std::nullopt, false});
    ApplianceEvent ev;
    ev.atMs = nowMs;
    ev.code = ApplianceEventCode::ReplicaAdded;
    ev.reason = why;
    ev.job = job;
    ev.service = service;
    record(ev);
}

void LiveRun::flushDevice(qint64 nowMs)
{
    if (m_bridge.flush(nowMs) != 0 && !m_options.ownsDevice)
        Q_EMIT deviceOrdersQueued();
}

void LiveRun::step(qint64 t)
{
    if (m_stepping)
        return;
    m_stepping = true;
    for (int round = 0; round < 4; ++round) {
        if (m_options.ownsDevice) {
            m_backend->advance(t);
            m_backend->takeResults();
            m_backend->takeFaults();
        }
        const Sched::Scheduler::TickResult r = m_sched->tick(t);
        m_schedWakeMs = r.nextWakeMs;
        const bool stepsQueued = m_bridge.hasPending();
        flushDevice(t);
        // A card that entered MPS mode gets its daemon before its clients start.
        noteMps(m_mps->follow(m_sched->state()));
        m_work->sync(t);
        if (!stepsQueued)
            break;
    }
    m_stepping = false;
    if (m_ownBackend)
        modelLoad(t);
    // Wake up for what comes before the next period: a deadline or a device step finishing.
    qint64 next = m_schedWakeMs;
    const qint64 dev = m_options.ownsDevice ? m_backend->nextEventMs() : -1;
    if (dev > 0 && (next < 0 || dev < next))
        next = dev;
    if (next > t && m_started) {
        const double wallMs = double(next - t) / m_scenario.liveSpeed;
        if (wallMs < double(m_periodMs))
            QTimer::singleShot(int(std::ceil(wallMs)) + 1, this, [this] {
                if (m_started)
                    step(now());
            });
    }
}

void LiveRun::control()
{
    const qint64 t = now();
    const qint64 since = t - m_scenario.startMs;
    for (int i = 0; i < m_scenario.training.size(); ++i) {
        if (!m_trainingJobs[i].isValid() && since >= m_scenario.training[i].submitAtMs)
            m_trainingJobs[i] = m_work->submit(m_scenario.training[i].spec, t, nullptr);
    }
    step(t);

    // Close this period's scrape window.
    for (ServiceRt &s : m_services) {
        s.window.push_back(s.current);
        s.current = WindowSlot{};
        while (int(s.window.size()) > m_windowSlots)
            s.window.pop_front();
        // Withdrawn replicas whose process has gone are forgotten.
        s.replicas.erase(std::remove_if(s.replicas.begin(),
                                        s.replicas.end(),
                                        [this](const ReplicaRt &r) {
                                            return r.leaving && !m_work->stats(r.job).running;
                                        }),
                         s.replicas.end());
    }

    if (m_policy && m_policyWakeMs >= 0 && t >= m_policyWakeMs) {
        const qint64 next = m_policy->tick(*this, t);
        m_policyWakeMs = std::max(next, t + 1);
        step(t);
    }

    // Replicas: probe until ready, then scrape each period.
    for (ServiceRt &s : m_services) {
        int serving = 0;
        for (ReplicaRt &r : s.replicas) {
            const ProcessWorkloads::JobStats st = m_work->stats(r.job);
            if (!st.running || st.port <= 0 || r.leaving) {
                r.last.reset();
                continue;
            }
            const QString base = QStringLiteral("http://127.0.0.1:%1").arg(st.port);
            if (!st.ready) {
                const QString path = s.def.spec.run->ready.isEmpty() ? s.def.spec.run->metrics
                                                                     : s.def.spec.run->ready;
                m_scraper->probe(replicaKey(r.job), QUrl(base + path));
                continue;
            }
            ++serving;
            m_scraper->scrape(replicaKey(r.job), QUrl(base + s.def.spec.run->metrics));
        }
        s.maxServing = std::max(s.maxServing, serving);
    }
    publishEndpoints();
    Q_EMIT stateChanged();
}

LiveRun::ReplicaRt *LiveRun::replicaOfKey(const QString &key, int *service)
{
    for (int i = 0; i < m_services.size(); ++i) {
        for (ReplicaRt &r : m_services[i].replicas) {
            if (replicaKey(r.job) == key) {
                if (service)
                    *service = i;
                return &r;
            }
        }
    }
    return nullptr;
}

void LiveRun::onProbed(const QString &key, bool ok, const QString &error)
{
    Q_UNUSED(error)
    ReplicaRt *r = replicaOfKey(key, nullptr);
    if (!r || !ok || r->leaving)
        return;
    m_work->setReady(r->job, true, now());
    publishEndpoints();
}

void LiveRun::onScraped(const QString &key, const Scrape &scrape)
{
    int si = -1;
    ReplicaRt *r = replicaOfKey(key, &si);
    if (!r || !scrape.ok())
        return;
    ServiceRt &s = m_services[si];
    if (r->last) {
        const ServiceWindow w = windowBetween(*r->last, scrape, s.names);
        if (w.ok()) {
            r->queue = w.queue;
            s.current.seconds = std::max(s.current.seconds, w.seconds);
            if (w.requests > 0) {
                const double slo = s.def.spec.inference->sloP99Ms;
                double over = w.overSlo(slo);
                if (std::isnan(over)) {
                    // A mean only (Triton): the window counts as over when its mean is.
                    over = w.meanMs > slo ? w.requests : 0;
                    s.meanSumMs += w.meanMs * w.requests;
                }
                if (!std::isnan(w.meanMs) && w.meanMs > 0)
                    s.observedMeanMs = s.observedMeanMs > 0
                                               ? 0.8 * s.observedMeanMs + 0.2 * w.meanMs
                                               : w.meanMs;
                s.requests += w.requests;
                s.overSlo += over;
                s.current.requests += w.requests;
                s.current.overSlo += over;
                for (const Bucket &b : w.bucketsMs) {
                    s.buckets[b.upperBound] += b.count;
                    s.current.buckets[b.upperBound] += b.count;
                }
            }
        }
    }
    r->last = scrape;
}

void LiveRun::publishEndpoints()
{
    ServiceEndpoints all;
    for (const ServiceRt &s : std::as_const(m_services)) {
        QList<ReplicaEndpoint> &list = all[s.def.spec.inference->service];
        for (const ReplicaRt &r : s.replicas) {
            const ProcessWorkloads::JobStats st = m_work->stats(r.job);
            if (!st.running || st.port <= 0)
                continue;
            ReplicaEndpoint e;
            e.replica = m_sched->state().job(r.job).spec.name;
            e.address = QStringLiteral("127.0.0.1");
            e.port = st.port;
            e.ready = st.ready && !r.leaving;
            list.append(e);
        }
    }
    const EndpointPublisher::Result r = m_endpoints->publish(all, wallNow());
    if (!r.ok && r.error != m_endpointError)
        qWarning("endpoints: %s", qPrintable(r.error));
    m_endpointError = r.ok ? QString() : r.error;
}

void LiveRun::noteMps(const QStringList &changes)
{
    for (const QString &c : changes) {
        ProcessEvent e;
        e.atMs = now();
        e.code = c.startsWith(QLatin1String("failed")) ? ProcessEventCode::MpsDaemonFailed
                                                       : ProcessEventCode::MpsDaemon;
        e.detail = c;
        Q_EMIT processEvent(e);
    }
}

void LiveRun::releaseProcesses()
{
    m_timer.stop();
    for (ServiceRt &s : m_services) {
        if (s.load && s.load->state() != QProcess::NotRunning) {
            s.load->terminate();
            if (!s.load->waitForFinished(3000))
                s.load->kill();
        }
    }
    m_started = false;
}

void LiveRun::setBackend(Device::DeviceBackend *backend)
{
    m_backend = backend;
    m_bridge.setBackend(backend);
}

QStringList LiveRun::stop(qint64 waitMs)
{
    releaseProcesses(); // the run's own helpers; then the jobs themselves
    const QStringList alive = m_work->stopAll(waitMs);
    noteMps(m_mps->stopAll());
    m_started = false;
    return alive;
}

// --- The operator's commands ---------------------------------------------------------------

int LiveRun::serviceOfReplica(JobId job) const
{
    for (int i = 0; i < m_services.size(); ++i)
        for (const ReplicaRt &r : m_services[i].replicas)
            if (r.job == job)
                return i;
    return -1;
}

JobId LiveRun::submit(const Domain::WorkloadSpec &spec, QString *error, QString *field)
{
    auto refuse = [&](const QString &f, const QString &why) {
        if (error)
            *error = why;
        if (field)
            *field = f;
        return JobId();
    };
    QString why;
    if (!ProcessWorkloads::admissible(spec, m_options.allowRoot, &why))
        return refuse(spec.run ? QStringLiteral("run.user") : QStringLiteral("run"), why);
    const Sched::Feasibility f = m_sched->couldEverRun(spec);
    if (!f.possible)
        return refuse(QStringLiteral("demand"),
                      QStringLiteral("it could never run on this appliance: %1")
                              .arg(f.reason.describe()));
    const qint64 t = now();
    if (spec.kind != Domain::WorkloadKind::Inference) {
        const JobId job = m_work->submit(spec, t, &why);
        if (!job.isValid())
            return refuse(QString(), why);
        m_trainingJobs.append(job);
        step(t);
        return job;
    }
    for (const ServiceRt &s : std::as_const(m_services))
        if (s.def.spec.inference->service == spec.inference->service)
            return refuse(
                    QStringLiteral("inference.service"),
                    QStringLiteral("a service named %1 runs already").arg(spec.inference->service));
    ServiceRt s;
    s.def.spec = spec;
    s.def.serviceMs = 0;
    s.names = namesFor(*spec.run);
    s.unit = Sim::replicaUnit(m_scenario, s.def);
    s.operatorService = true;
    m_services.append(s);
    const int index = int(m_services.size()) - 1;
    for (int r = 0; r < std::max(1, spec.inference->minReplicas); ++r)
        addReplica(index, t, ActionReason::None);
    step(t);
    const QList<ReplicaRt> &replicas = m_services[index].replicas;
    return replicas.isEmpty() ? JobId() : replicas.first().job;
}

bool LiveRun::cancel(JobId job, Domain::Problem *error)
{
    const Sched::ClusterState &st = m_sched->state();
    if (!job.isValid() || job.value() >= st.jobs().size() || st.job(job).isTerminal())
        return Domain::refuse(
                error,
                Domain::Problem(Domain::Problem::Code::JobEnded, {QString::number(job.value())}));
    const int service = serviceOfReplica(job);
    if (service >= 0) {
        for (ReplicaRt &r : m_services[service].replicas)
            if (r.job == job)
                r.leaving = true;
    }
    const qint64 t = now();
    m_sched->cancel(job, t);
    step(t);
    return true;
}

bool LiveRun::requeue(JobId job, Domain::Problem *error)
{
    const Sched::ClusterState &st = m_sched->state();
    if (!job.isValid() || job.value() >= st.jobs().size() || !st.job(job).isActive())
        return Domain::refuse(error,
                              Domain::Problem(Domain::Problem::Code::JobNotRunning,
                                              {QString::number(job.value())}));
    const qint64 t = now();
    const bool atCheckpoint
            = st.job(job).spec.preemption == Domain::PreemptionTolerance::AtCheckpoint;
    m_sched->requeue(job, t, atCheckpoint);
    step(t);
    return true;
}

bool LiveRun::setPriority(JobId job, int priority, Domain::Problem *error)
{
    const qint64 t = now();
    if (!m_sched->setPriority(job, priority, t))
        return Domain::refuse(
                error,
                Domain::Problem(Domain::Problem::Code::JobEnded, {QString::number(job.value())}));
    step(t);
    return true;
}

Sched::Decision LiveRun::place(JobId job,
                               Domain::CardId card,
                               bool allowPreemption,
                               Sched::BudgetRule budget)
{
    const qint64 t = now();
    Sched::Decision d = allowPreemption && card.isValid()
                                ? m_sched->placeWithPreemption(job, t, card, budget)
                                : m_sched->placeNow(job, t, card, budget);
    step(t);
    return d;
}

bool LiveRun::applyLayout(Domain::CardId card,
                          const QList<Domain::MigPlacement> &target,
                          Domain::Problem *error)
{
    const qint64 t = now();
    if (!m_sched->applyLayout(card, target, t, error))
        return false;
    step(t);
    return true;
}

bool LiveRun::pinLayout(Domain::CardId card, qint64 untilMs, Domain::Problem *error)
{
    const qint64 t = now();
    if (!Sched::changeLayoutPin(*m_sched, card, untilMs, t, error))
        return false;
    step(t);
    return true;
}

bool LiveRun::cordon(int card, bool cordoned, bool drain, Domain::Problem *error)
{
    const qint64 t = now();
    if (!cordonCard(card, cordoned, drain, t, error))
        return false;
    step(t);
    return true;
}

bool LiveRun::setPolicy(const QString &name, const QJsonObject &params, QString *error)
{
    std::unique_ptr<Policy::Policy> p;
    if (name != QLatin1String("none")) {
        Policy::PolicyError perr;
        p = Policy::makePolicy(name, params, &perr);
        if (!p) {
            if (error)
                *error = perr.field.isEmpty() ? perr.message
                                              : perr.field + QStringLiteral(": ") + perr.message;
            return false;
        }
    }
    m_policy = std::move(p);
    m_policyName = name;
    const qint64 t = now();
    if (m_policy) {
        m_policy->start(*this, t);
        m_policyWakeMs = t;
    } else {
        m_policyWakeMs = -1;
    }
    step(t);
    return true;
}

JobLogTail LiveRun::jobLog(JobId job, qint64 maxBytes) const
{
    JobLogTail out;
    const Sched::ClusterState &st = m_sched->state();
    if (!job.isValid() || job.value() >= st.jobs().size()) {
        out.error = QStringLiteral("no job %1").arg(job.value());
        return out;
    }
    const ProcessWorkloads::LogTail tail = m_work->logTail(job, std::max<qint64>(1024, maxBytes));
    out.ok = tail.ok;
    out.error = tail.error;
    out.path = tail.path;
    out.text = tail.text;
    out.truncated = tail.truncated;
    return out;
}

// The scenario's simulated cards show the load of the real processes bound to them: a unit whose
// job's process runs is busy (its compute share of the card, and the memory its job asked for,
// within the unit's), so the backend's utilisation, memory, temperature and power follow the
// real work. The processes' own GPU use is not measured (there is no GPU).
void LiveRun::modelLoad(qint64 t)
{
    const Sched::ClusterState &st = m_sched->state();
    for (const Sched::CardState &c : st.cards()) {
        if (c.id.value() >= m_ownBackend->cardCount())
            continue;
        double util = 0;
        qint64 memory = 0;
        bool anyBusy = false;
        for (const Sched::Unit &u : c.units) {
            const bool busy = u.job.isValid() && m_work->stats(u.job).running;
            if (u.profile >= 0)
                m_ownBackend->setInstanceBusy(c.id, u.profile, u.start, busy);
            if (!busy)
                continue;
            anyBusy = true;
            util += double(st.unitMilli(c, u)) / 1000.0;
            const qint64 asked = st.job(u.job).demand().memoryMiB;
            memory += asked > 0 ? std::min(asked, u.memoryMiB) : u.memoryMiB;
        }
        if (c.mode != Domain::PartitionMode::Mig)
            m_ownBackend->setCardBusy(c.id, anyBusy);
        m_ownBackend->setLoad(c.id, std::min(1.0, util), memory, t);
    }
}

} // namespace Zhaoxi::Runtime
