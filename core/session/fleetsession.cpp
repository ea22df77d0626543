// SPDX-License-Identifier: GPL-3.0-or-later
#include "fleetsession.h"

#include "core/catalogue/catalogue.h"
#include "core/fleet/fleetactions.h"
#include "core/fleet/fleetsubmit.h"
#include "core/fleet/slurmrest.h"
#include "core/policy/params.h"
#include "core/policy/timewindows.h"
#include "core/storage/recorder.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QSaveFile>
#include <QTimer>

#include <algorithm>
#include <cmath>

namespace Zhaoxi::Session {

namespace {

using Domain::Problem;
using Fleet::FleetJob;
using Fleet::RestStatus;

const QString kApi = QStringLiteral("/slurm/v0.0.38/");
constexpr qint64 kMaxTokenBytes = 64 * 1024;
// Jobs kept for the console (every one seen, ended ones too) before the oldest ended ones are
// dropped; waiting jobs Zhaoxi analyses per read (the queue's head).
constexpr int kMaxJobs = 20'000;
constexpr int kMaxAnalysed = 200;
constexpr int kScontrolTimeoutMs = 30'000;

bool isEnded(const FleetJob &j)
{
    return !j.isPending() && !j.holdsResources();
}

// A refusal of the token: slurmrestd 22.05 answers a wrong or expired one with HTTP 500
// "Unspecified error" and a missing one with 401 (FLEET_SLURM.md).
bool tokenRefused(const RestStatus &s)
{
    return s.code == RestStatus::Code::Http
           && (s.httpStatus == 401
               || (s.httpStatus == 500
                   && s.slurmErrors.join(QLatin1Char(' '))
                              .contains(QLatin1String("Unspecified error"))));
}

// The "exp" claim of a JWT (seconds), or -1.
qint64 jwtExpiry(QByteArray token)
{
    token = token.trimmed();
    if (token.startsWith("SLURM_JWT="))
        token = token.mid(10);
    const QList<QByteArray> parts = token.split('.');
    if (parts.size() != 3)
        return -1;
    const QByteArray payload = QByteArray::fromBase64(
            parts[1], QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
    const QJsonValue exp = QJsonDocument::fromJson(payload).object().value(QStringLiteral("exp"));
    return exp.isDouble() ? qint64(exp.toDouble()) : -1;
}

QJsonObject jobParams(const FleetJob &j)
{
    return {{QStringLiteral("slurmJob"), j.id},
            {QStringLiteral("name"), j.name},
            {QStringLiteral("user"), j.user},
            {QStringLiteral("partition"), j.partition},
            {QStringLiteral("state"), j.state},
            {QStringLiteral("reason"), j.reason},
            {QStringLiteral("nodes"), QJsonArray::fromStringList(j.nodes)}};
}

} // namespace

std::optional<QList<Fleet::ScheduleWindow>> fleetWindowsFromParams(const QJsonObject &params,
                                                                   qint64 *prepareAheadMs,
                                                                   QString *field,
                                                                   QString *error)
{
    Policy::PolicyError err;
    const std::unique_ptr<Policy::Policy> policy = Policy::TimeWindows::create(params, &err);
    if (!policy) {
        *field = err.field;
        *error = err.message;
        return std::nullopt;
    }
    // The policy keeps prepareAhead to itself; the same reader and bounds read it again.
    Policy::PolicyError ignored;
    Policy::ParamReader r(params, QString(), &ignored);
    *prepareAheadMs = r.duration(QStringLiteral("prepareAhead"), 20 * 60'000, 0, 12 * 3600'000LL);
    QList<Fleet::ScheduleWindow> out;
    for (const Policy::TimeWindows::Window &w :
         static_cast<const Policy::TimeWindows *>(policy.get())->windows())
        out.append({w.name, w.fromMs, w.toMs, w.days, w.inferenceShare});
    return out;
}

std::unique_ptr<FleetSession> FleetSession::create(FleetOptions options, QString *why)
{
    const QUrl &u = options.restUrl;
    if (!u.isValid()
        || (u.scheme() != QLatin1String("http") && u.scheme() != QLatin1String("https"))
        || u.host().isEmpty()) {
        *why = QStringLiteral("the Slurm REST URL %1 is not an http:// or https:// URL")
                       .arg(u.toString());
        return nullptr;
    }
    if (options.tokenFile.isEmpty()) {
        *why = QStringLiteral("no token file: slurmrestd needs a JWT (scontrol token)");
        return nullptr;
    }
    if (options.user.isEmpty()) {
        *why = QStringLiteral("no user name for the token");
        return nullptr;
    }
    options.pollIntervalMs = std::clamp(options.pollIntervalMs, 250, 600'000);
    options.maxRetryMs = std::max(options.maxRetryMs, options.pollIntervalMs);
    options.timeoutMs = std::clamp(options.timeoutMs, 100, 600'000);
    if (options.applianceName.isEmpty())
        options.applianceName = QStringLiteral("Slurm at %1").arg(u.authority());
    return std::unique_ptr<FleetSession>(new FleetSession(std::move(options)));
}

FleetSession::FleetSession(FleetOptions options)
    : m_options(std::move(options))
{
    m_fleet.state = Sched::ClusterState(Catalogue::Catalogue::builtIn());
    m_analysis = std::make_unique<Sched::Scheduler>(m_fleet.state);
}

FleetSession::~FleetSession()
{
    m_started = false;
    if (m_renewal) {
        m_renewal->disconnect(this);
        m_renewal->kill();
        m_renewal->waitForFinished(1000);
    }
}

qint64 FleetSession::now() const
{
    return m_options.clock ? m_options.clock() : QDateTime::currentMSecsSinceEpoch();
}

void FleetSession::prepare()
{
    if (m_prepared)
        return;
    m_prepared = true;
    openStore(m_options.storePath, QStringLiteral("fleet-events.db"), m_options.retention);
}

void FleetSession::start()
{
    if (m_started)
        return;
    prepare();
    m_client = new Fleet::SlurmRestClient(
            m_options.restUrl, m_options.user, m_options.tokenFile, this);
    m_client->setTimeoutMs(m_options.timeoutMs);
    m_timer = new QTimer(this);
    m_timer->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, &FleetSession::poll);
    m_started = true;
    m_startMs = now();
    publish();
    poll();
}

void FleetSession::stop()
{
    m_started = false;
    if (m_timer)
        m_timer->stop();
    delete m_client; // aborts a read in flight; its callback finds the session stopped
    m_client = nullptr;
    QString e;
    commitNow(&e);
}

void FleetSession::setPaused(bool paused)
{
    m_paused = paused;
    if (!paused && m_started && !m_inFlight)
        schedulePoll(0);
    publish();
}

void FleetSession::setPollIntervalMs(int ms)
{
    m_options.pollIntervalMs = std::clamp(ms, 250, 600'000);
    m_options.maxRetryMs = std::max(m_options.maxRetryMs, m_options.pollIntervalMs);
}

void FleetSession::pollNow()
{
    schedulePoll(0);
}

void FleetSession::schedulePoll(int inMs)
{
    if (!m_started || !m_timer)
        return;
    m_nextTryMs = now() + inMs;
    m_timer->start(inMs);
}

void FleetSession::poll()
{
    if (!m_started || m_paused)
        return;
    if (m_inFlight) {
        m_pollAgain = true;
        return;
    }
    checkToken();
    if (m_renewal)
        return; // the renewal reads again when it ends
    m_inFlight = true;
    m_client->fetchFleet([this](const RestStatus &status, const Fleet::FleetSnapshot &snapshot) {
        m_inFlight = false;
        if (!m_started)
            return;
        if (status.isOk())
            takeRead(snapshot);
        else
            onFailure(status);
        if (m_pollAgain) {
            m_pollAgain = false;
            schedulePoll(0);
        }
    });
}

Fleet::FleetSnapshot FleetSession::withEveryJob(const Fleet::FleetSnapshot &read)
{
    QSet<qint64> &listed = m_listed;
    listed.clear();
    for (const FleetJob &j : read.jobs) {
        listed.insert(j.id);
        const auto at = m_jobIndex.constFind(j.id);
        if (at != m_jobIndex.cend()) {
            m_jobs[*at] = j;
        } else {
            m_jobIndex.insert(j.id, int(m_jobs.size()));
            m_jobs.append(j);
        }
    }
    // A job Slurm no longer lists (it forgets ended jobs after MinJobAge) keeps its last state;
    // one that was still active then ended while nobody looked.
    for (FleetJob &j : m_jobs) {
        if (!listed.contains(j.id) && !isEnded(j)) {
            j.state = QStringLiteral("UNKNOWN");
            j.reason = QStringLiteral("no longer listed by Slurm");
        }
    }
    if (m_jobs.size() > kMaxJobs) {
        // Drop the oldest ended jobs: ids change, so this read reports no differences.
        QList<FleetJob> kept;
        qsizetype drop = m_jobs.size() - kMaxJobs * 9 / 10;
        for (const FleetJob &j : std::as_const(m_jobs)) {
            if (drop > 0 && isEnded(j) && !listed.contains(j.id)) {
                --drop;
                continue;
            }
            kept.append(j);
        }
        m_jobs = std::move(kept);
        m_jobIndex.clear();
        for (int i = 0; i < m_jobs.size(); ++i)
            m_jobIndex.insert(m_jobs[i].id, i);
        m_analysedReason.clear();
        m_fleet.snapshot.jobs.clear(); // nothing to compare with
    }
    Fleet::FleetSnapshot merged = read;
    merged.jobs = m_jobs;
    return merged;
}

void FleetSession::takeRead(const Fleet::FleetSnapshot &snapshot)
{
    prepare();
    const qint64 at = now();
    Fleet::FleetState next = Fleet::buildFleetState(withEveryJob(snapshot),
                                                    Catalogue::Catalogue::builtIn(),
                                                    at,
                                                    Fleet::JobOrder::EveryJobInListOrder);
    if (!m_reachable) {
        recordFleet(at,
                    "fleet-reachable",
                    Storage::Severity::Info,
                    {{QStringLiteral("url"), m_options.restUrl.toString()},
                     {QStringLiteral("downMs"), at - m_downSinceMs},
                     {QStringLiteral("failures"), m_failures}});
    } else if (!m_everRead) {
        recordFleet(at,
                    "fleet-read",
                    Storage::Severity::Info,
                    {{QStringLiteral("url"), m_options.restUrl.toString()},
                     {QStringLiteral("nodes"), int(snapshot.nodes.size())},
                     {QStringLiteral("jobs"), int(snapshot.jobs.size())},
                     {QStringLiteral("warnings"), QJsonArray::fromStringList(next.warnings)}});
    }
    m_reachable = true;
    m_failures = 0;
    m_downSinceMs = -1;
    m_lastFailure.clear();
    if (m_everRead)
        noteChanges(m_fleet, next, at);
    m_fleet = std::move(next);
    m_everRead = true;
    m_analysis = std::make_unique<Sched::Scheduler>(m_fleet.state);
    m_analysis->setAllowRepartitioning(false);
    analyseWaiting(at);
    publish();
    schedulePoll(m_options.pollIntervalMs);
}

void FleetSession::onFailure(const RestStatus &status)
{
    const qint64 at = now();
    ++m_failures;
    m_lastFailure = status.message;
    if (tokenRefused(status) && !m_options.tokenCommand.isEmpty() && m_failures == 1) {
        // Renew at once; the renewal reads again when it ends.
        renewToken(QStringLiteral("Slurm refused the token: %1").arg(status.message));
    }
    const int shift = std::min(m_failures - 1, 16);
    const qint64 delay
            = std::min<qint64>(m_options.maxRetryMs, qint64(m_options.pollIntervalMs) << shift);
    if (m_reachable) {
        m_reachable = false;
        m_downSinceMs = at;
        recordFleet(at,
                    "fleet-unreachable",
                    Storage::Severity::Error,
                    {{QStringLiteral("url"), m_options.restUrl.toString()},
                     {QStringLiteral("status"), QString::fromLatin1(Fleet::toString(status.code))},
                     {QStringLiteral("httpStatus"), status.httpStatus},
                     {QStringLiteral("message"), status.message},
                     {QStringLiteral("retryInMs"), delay}});
    }
    if (!m_renewal)
        schedulePoll(int(delay));
    else
        m_nextTryMs = at;
    publish();
}

void FleetSession::noteChanges(const Fleet::FleetState &before,
                               const Fleet::FleetState &after,
                               qint64 at)
{
    const QList<FleetJob> &was = before.snapshot.jobs;
    const QList<FleetJob> &is = after.snapshot.jobs;
    for (int i = 0; i < is.size(); ++i) {
        const FleetJob &j = is[i];
        if (i >= was.size() || was[i].id != j.id) {
            recordFleet(at, "slurm-job-seen", Storage::Severity::Info, jobParams(j), i);
            continue;
        }
        const FleetJob &o = was[i];
        QJsonObject p = jobParams(j);
        p.insert(QStringLiteral("previousState"), o.state);
        if (o.isPending() && j.holdsResources()) {
            recordFleet(at, "slurm-job-started", Storage::Severity::Info, p, i);
        } else if ((o.holdsResources() && j.isPending()) || j.restarts > o.restarts) {
            p.insert(QStringLiteral("restarts"), j.restarts);
            recordFleet(at, "slurm-job-requeued", Storage::Severity::Warning, p, i);
        } else if (!isEnded(o) && isEnded(j)) {
            const bool bad = j.state != QLatin1String("COMPLETED")
                             && j.state != QLatin1String("CANCELLED");
            recordFleet(at,
                        "slurm-job-ended",
                        bad ? Storage::Severity::Warning : Storage::Severity::Info,
                        p,
                        i);
        } else if (j.isPending() && o.reason != j.reason) {
            p.insert(QStringLiteral("previousReason"), o.reason);
            recordFleet(at, "slurm-job-waiting", Storage::Severity::Info, p, i);
        }
    }
    QHash<QString, const Fleet::FleetNode *> old;
    for (const Fleet::FleetNode &n : before.snapshot.nodes)
        old.insert(n.name, &n);
    for (const Fleet::FleetNode &n : after.snapshot.nodes) {
        const Fleet::FleetNode *o = old.value(n.name);
        if (o && o->state == n.state && o->stateFlags == n.stateFlags && o->reason == n.reason
            && o->gres == n.gres)
            continue;
        QJsonObject p{{QStringLiteral("node"), n.name},
                      {QStringLiteral("state"), n.state},
                      {QStringLiteral("flags"), QJsonArray::fromStringList(n.stateFlags)},
                      {QStringLiteral("reason"), n.reason},
                      {QStringLiteral("up"), n.acceptsWork()}};
        if (o) {
            p.insert(QStringLiteral("previousState"), o->state);
            p.insert(QStringLiteral("previousFlags"), QJsonArray::fromStringList(o->stateFlags));
            if (o->gres != n.gres) {
                QStringList before_, after_;
                for (const Fleet::Gres &g : o->gres)
                    before_ << g.toString();
                for (const Fleet::Gres &g : n.gres)
                    after_ << g.toString();
                p.insert(QStringLiteral("previousGres"), before_.join(QLatin1Char(',')));
                p.insert(QStringLiteral("gres"), after_.join(QLatin1Char(',')));
            }
        }
        recordFleet(at,
                    o ? "fleet-node-state" : "fleet-node-added",
                    n.acceptsWork() ? Storage::Severity::Info : Storage::Severity::Warning,
                    p);
    }
}

void FleetSession::analyseWaiting(qint64 at)
{
    // Zhaoxi's own view of each waiting job, per Slurm partition (only its nodes are
    // candidates), in submission order: the queue's head first takes what it would take.
    const Sched::ClusterState &state = m_fleet.state;
    const QList<FleetJob> &jobs = m_fleet.snapshot.jobs;
    QList<int> waiting;
    for (const Sched::Job &j : state.jobs()) {
        if (j.state == Sched::JobState::Pending)
            waiting.append(j.id.value());
    }
    std::stable_sort(waiting.begin(), waiting.end(), [&](int a, int b) {
        return state.job(Domain::JobId(a)).submittedMs < state.job(Domain::JobId(b)).submittedMs;
    });
    if (waiting.size() > kMaxAnalysed)
        waiting.resize(kMaxAnalysed);
    QMap<QString, QList<int>> byPartition;
    for (int j : std::as_const(waiting))
        byPartition[jobs.value(j).partition].append(j);
    for (auto it = byPartition.cbegin(); it != byPartition.cend(); ++it) {
        Sched::ClusterState copy = state;
        for (const Fleet::FleetPartition &p : m_fleet.snapshot.partitions) {
            if (p.name != it.key())
                continue;
            for (const Sched::HostState &h : state.hosts()) {
                if (h.up && !p.nodes.contains(h.name))
                    copy.setHostUp(h.id, false);
            }
        }
        Sched::Scheduler sched(std::move(copy));
        sched.setAllowRepartitioning(false);
        for (int j : it.value()) {
            Sched::Decision d = sched.placeNow(Domain::JobId(j), at);
            const FleetJob &fj = jobs[j];
            d.trace.note = QStringLiteral("Slurm: job %1 %2 (reason: %3)")
                                   .arg(fj.id)
                                   .arg(fj.state, fj.reason);
            const QString key = QStringLiteral("%1|%2|%3")
                                        .arg(int(d.trace.result.reason))
                                        .arg(d.placement ? d.placement->host.value() : -1)
                                        .arg(fj.reason);
            if (m_analysedReason.value(j) == key)
                continue;
            m_analysedReason.insert(j, key);
            m_newTraces.append(d.trace);
        }
    }
}

qint64 FleetSession::tokenExpiresAtMs() const
{
    QFile f(m_options.tokenFile);
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    const qint64 exp = jwtExpiry(f.read(kMaxTokenBytes));
    return exp < 0 ? -1 : exp * 1000;
}

void FleetSession::checkToken()
{
    const qint64 exp = tokenExpiresAtMs();
    if (exp < 0 || exp - now() > m_options.renewBeforeMs)
        return;
    if (!m_options.tokenCommand.isEmpty()) {
        if (m_renewTriedForExpiryMs != exp && !m_renewal)
            renewToken(QStringLiteral("the token expires at %1")
                               .arg(QDateTime::fromMSecsSinceEpoch(exp, Qt::UTC)
                                            .toString(Qt::ISODate)));
        return;
    }
    if (m_warnedExpiryMs != exp) {
        m_warnedExpiryMs = exp;
        recordFleet(now(),
                    "fleet-token-expiring",
                    Storage::Severity::Warning,
                    {{QStringLiteral("tokenFile"), m_options.tokenFile},
                     {QStringLiteral("expiresAtMs"), exp}});
    }
}

void FleetSession::renewToken(const QString &why)
{
    if (m_renewal || m_options.tokenCommand.isEmpty())
        return;
    m_renewTriedForExpiryMs = tokenExpiresAtMs();
    m_renewal = new QProcess(this);
    if (!m_options.slurmConf.isEmpty()) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("SLURM_CONF"), m_options.slurmConf);
        m_renewal->setProcessEnvironment(env);
    }
    const QStringList words = m_options.tokenCommand;
    const auto done = [this, words, why](bool started) {
        QProcess *p = m_renewal;
        m_renewal = nullptr;
        const QByteArray out = started ? p->readAllStandardOutput().trimmed() : QByteArray();
        const QString err = started ? QString::fromLocal8Bit(p->readAllStandardError()).trimmed()
                                    : p->errorString();
        const bool ok = started && p->exitStatus() == QProcess::NormalExit && p->exitCode() == 0
                        && jwtExpiry(out) > 0;
        QString failure;
        if (ok) {
            QSaveFile f(m_options.tokenFile);
            if (!f.open(QIODevice::WriteOnly) || f.write(out + '\n') < 0 || !f.commit())
                failure = QStringLiteral("cannot write %1: %2")
                                  .arg(m_options.tokenFile, f.errorString());
            else
                QFile::setPermissions(m_options.tokenFile,
                                      QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        } else if (started && p->exitCode() == 0) {
            failure = QStringLiteral("its output is not a token");
        } else {
            failure = err.isEmpty() ? QStringLiteral("exit code %1").arg(p->exitCode()) : err;
        }
        p->deleteLater();
        if (failure.isEmpty()) {
            recordFleet(now(),
                        "fleet-token-renewed",
                        Storage::Severity::Info,
                        {{QStringLiteral("why"), why},
                         {QStringLiteral("expiresAtMs"), jwtExpiry(out) * 1000}});
        } else {
            recordFleet(now(),
                        "fleet-token-renew-failed",
                        Storage::Severity::Error,
                        {{QStringLiteral("why"), why},
                         {QStringLiteral("command"), words.join(QLatin1Char(' '))},
                         {QStringLiteral("error"), failure}});
        }
        if (m_started && !m_inFlight)
            schedulePoll(0);
    };
    connect(m_renewal, &QProcess::finished, this, [done](int, QProcess::ExitStatus) {
        done(true);
    });
    connect(m_renewal, &QProcess::errorOccurred, this, [this, done](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart && m_renewal)
            done(false);
    });
    m_renewal->start(words.first(), words.mid(1));
    QTimer::singleShot(kScontrolTimeoutMs, m_renewal, [p = m_renewal] { p->kill(); });
}

void FleetSession::recordFleet(qint64 at,
                               const QByteArray &code,
                               Storage::Severity severity,
                               const QJsonObject &params,
                               int job)
{
    Storage::Subject subject;
    subject.job = job;
    if (recorder()) {
        recorder()->recordDevice(at, code, severity, params, subject);
        return;
    }
    Storage::Event e;
    e.atMs = at;
    e.severity = severity;
    e.source = Storage::Source::Device;
    e.code = code;
    e.job = job;
    e.params = QJsonDocument(params).toJson(QJsonDocument::Compact);
    noteEvent(e);
}

SnapshotPtr FleetSession::publish()
{
    auto s = std::make_shared<Snapshot>();
    s->nowMs = now();
    s->startMs = m_startMs;
    s->endMs = -1;
    s->speed = 1;
    s->paused = m_paused;
    s->simulated = false;
    s->applianceName = m_options.applianceName;
    s->externalScheduler = QStringLiteral("slurm");
    s->connected = m_reachable;
    if (!m_reachable) {
        s->readOnly = true;
        s->readOnlyProblem = unreachable();
    }
    s->state = m_fleet.state;
    const Sched::ClusterState &st = s->state;
    for (const Sched::Job &j : st.jobs()) {
        if (j.state == Sched::JobState::Pending)
            s->queue.append(j.id);
    }
    std::stable_sort(s->queue.begin(), s->queue.end(), [&](Domain::JobId a, Domain::JobId b) {
        return st.job(a).submittedMs < st.job(b).submittedMs;
    });
    const double nan = std::nan("");
    for (const Sched::CardState &card : st.cards()) {
        // Slurm says what holds each unit, not how busy the card is: no utilisation, memory or
        // temperature readings (a node running Zhaoxi's own service has them).
        CardSample c;
        c.card = card.id.value();
        c.utilisation = nan;
        c.trainingUtilisation = nan;
        c.inferenceUtilisation = nan;
        c.clockFactor = nan;
        c.temperatureC = nan;
        c.powerW = nan;
        c.memoryUsedMiB = -1;
        c.memoryTotalMiB = st.model(card).memoryMiB;
        for (const Sched::Unit &u : card.units) {
            UnitSample us;
            us.uid = u.uid;
            us.utilisation = nan;
            us.memoryUsedMiB = -1;
            c.units.append(us);
            if (u.job.isValid())
                c.busyUnits.append(u.uid);
        }
        s->cards.append(c);
    }
    for (const FleetJob &j : m_fleet.snapshot.jobs) {
        // What Slurm says now: its active jobs, and ended ones it still lists (MinJobAge).
        const int job = m_fleet.jobBySlurmId.value(j.id, Domain::JobId()).value();
        if (job < 0 || (isEnded(j) && !m_listed.contains(j.id)))
            continue;
        s->externalJobs.append(ExternalJob{
                job, j.id, j.state, j.reason, j.user, j.partition, j.qos, j.nodes, j.restarts});
    }
    s->traces = std::move(m_newTraces);
    m_newTraces.clear();
    return publishSnapshot(std::move(s), *m_analysis);
}

qint64 FleetSession::slurmJob(int job, CommandResult *r) const
{
    const qint64 id = m_fleet.slurmIdByJob.value(job, 0);
    if (id == 0) {
        setProblem(*r, Problem(Problem::Code::FleetNotSlurmJob, {QString::number(job)}));
        r->ok = false;
        return 0;
    }
    const FleetJob &j = m_fleet.snapshot.jobs.value(job);
    if (isEnded(j)) {
        setProblem(*r, Problem(Problem::Code::JobEnded, {QString::number(job)}));
        r->ok = false;
        return 0;
    }
    return id;
}

void FleetSession::refuse(quint64 request, Problem problem)
{
    Q_EMIT commandFinished(CommandResult::answer(request, std::move(problem)));
}

void FleetSession::finish(CommandResult r)
{
    Q_EMIT commandFinished(r);
    if (r.ok)
        schedulePoll(0);
}

void FleetSession::previewPlacement(quint64 request, int job, int card)
{
    PlacementPreview p
            = previewPlacementOn(*m_analysis, Domain::JobId(job), Domain::CardId(card), now());
    p.request = request;
    Q_EMIT placementPreviewReady(p);
}

void FleetSession::placeJob(quint64 request, int job, int card, bool allowPreemption)
{
    // A waiting Slurm job placed on a card: Zhaoxi names that card's node as the job's only node
    // (Slurm starts it there when it can). Preemption is Slurm's (by QOS), never Zhaoxi's.
    CommandResult r;
    r.request = request;
    const qint64 id = slurmJob(job, &r);
    if (id == 0) {
        finish(r);
        return;
    }
    const Sched::ClusterState &st = m_fleet.state;
    if (card < 0 || card >= st.cards().size()) {
        refuse(request, Problem(Problem::Code::NoCard, {QString::number(card)}));
        return;
    }
    if (st.job(Domain::JobId(job)).state != Sched::JobState::Pending) {
        refuse(request, Problem(Problem::Code::JobNotWaiting, {QString::number(job)}));
        return;
    }
    const PlacementPreview p
            = previewPlacementOn(*m_analysis, Domain::JobId(job), Domain::CardId(card), now());
    if (p.outcome == PlacementPreview::Outcome::Refused
        || (p.outcome == PlacementPreview::Outcome::NeedsPreemption && !allowPreemption)) {
        r.ok = false;
        r.status = p.status;
        setProblem(r, Problem(Problem::Code::Unschedulable, {p.status.describe()}));
        finish(r);
        return;
    }
    if (p.outcome == PlacementPreview::Outcome::NeedsPreemption) {
        refuse(request, Problem(Problem::Code::FleetStartsItsJobs));
        return;
    }
    const QString node = st.host(st.card(Domain::CardId(card)).host).name;
    Fleet::setSlurmJobNodes(
            scontrol(),
            id,
            node,
            [this, r](const Fleet::JobActionResult &a) { answerAction(r, a); },
            this);
}

void FleetSession::placeJobConfirmed(
        quint64 request, int job, int card, QList<int> victims, Sched::BudgetRule)
{
    if (!victims.isEmpty()) {
        refuse(request, Problem(Problem::Code::FleetStartsItsJobs));
        return;
    }
    placeJob(request, job, card, false);
}

void FleetSession::requeueJob(quint64 request, int job)
{
    CommandResult r;
    r.request = request;
    const qint64 id = slurmJob(job, &r);
    if (id == 0) {
        finish(r);
        return;
    }
    // slurmrestd 22.05 has no requeue: scontrol does it.
    Fleet::requeueSlurmJob(
            scontrol(),
            id,
            [this, r](const Fleet::JobActionResult &a) mutable { answerAction(r, a); },
            this);
}

Fleet::ScontrolOptions FleetSession::scontrol() const
{
    Fleet::ScontrolOptions o;
    if (!m_options.scontrolPath.isEmpty())
        o.scontrolPath = m_options.scontrolPath;
    o.slurmConf = m_options.slurmConf;
    o.timeoutMs = kScontrolTimeoutMs;
    return o;
}

void FleetSession::answerAction(CommandResult r, const Fleet::JobActionResult &a)
{
    if (!m_started && a.failure == Fleet::JobActionResult::Failure::Rest)
        return; // stopped: the client went with it
    r.ok = a.ok;
    if (!a.ok)
        setProblem(r, Problem(Problem::Code::FleetRefused, {a.message}));
    finish(r);
}

Problem FleetSession::unreachable() const
{
    const qint64 in = std::max<qint64>(0, m_nextTryMs - now());
    return Problem(Problem::Code::ReadOnlyFleetUnreachable,
                   {m_options.restUrl.toString(),
                    m_lastFailure.isEmpty() ? QStringLiteral("not read yet") : m_lastFailure,
                    QString::number((in + 999) / 1000)});
}

void FleetSession::previewLayout(quint64 request, int card, QList<Domain::MigPlacement> target)
{
    LayoutPreview p;
    p.request = request;
    p.card = Domain::CardId(card);
    p.target = std::move(target);
    setProblem(p, Problem(Problem::Code::FleetStaticLayout));
    Q_EMIT layoutPreviewReady(p);
}

void FleetSession::applyLayout(quint64 request, int, QList<Domain::MigPlacement>, ApplyMode, qint64)
{
    refuse(request, Problem(Problem::Code::FleetStaticLayout));
}

void FleetSession::pinLayout(quint64 request, int, qint64)
{
    refuse(request, Problem(Problem::Code::FleetStaticLayout));
}

std::optional<Fleet::WindowsPlan> FleetSession::planSchedule(const QJsonObject &params,
                                                             SchedulePreview *p)
{
    if (!m_reachable || !m_everRead) {
        setProblem(*p, unreachable());
        return std::nullopt;
    }
    qint64 leadMs = 0;
    QString field, why;
    const std::optional<QList<Fleet::ScheduleWindow>> windows
            = fleetWindowsFromParams(params, &leadMs, &field, &why);
    if (!windows) {
        p->field = field;
        setProblem(*p, Problem::text(field.isEmpty() ? why : field + QStringLiteral(": ") + why));
        return std::nullopt;
    }
    Fleet::WindowsPlanOptions o;
    o.leadMs = leadMs;
    o.users = m_options.user;
    o.trainingPartition = m_options.trainingPartition;
    o.inferencePartition = m_options.inferencePartition;
    // Reservations are in the controller's local time, which scontrol reads: this machine's.
    Fleet::WindowsPlan plan
            = Fleet::planWindows(*windows, m_fleet, QDateTime::fromMSecsSinceEpoch(now()), o);
    if (!plan.error.isEmpty()) {
        setProblem(*p, Problem(Problem::Code::FleetRefused, {plan.error}));
        return std::nullopt;
    }
    return plan;
}

SchedulePreview FleetSession::schedulePreview(const QJsonObject &params,
                                              std::optional<Fleet::WindowsPlan> *plan)
{
    SchedulePreview p;
    p.nowMs = now();
    p.policyBefore = p.policyAfter = QStringLiteral("slurm");
    *plan = planSchedule(params, &p);
    if (!*plan)
        return p;
    p.ok = true;
    for (const Fleet::PlannedReservation &r : (*plan)->reservations) {
        SchedulePreview::Reservation out;
        out.action = QString::fromLatin1(Fleet::toString(r.action));
        out.name = r.name;
        out.window = r.window;
        out.nodes = r.nodes;
        out.cards = r.cards;
        out.startMs = r.start.isValid() ? r.start.toMSecsSinceEpoch() : 0;
        out.durationS = r.durationS;
        out.flags = r.flags;
        out.partition = r.partition;
        p.reservations.append(out);
    }
    return p;
}

void FleetSession::previewSchedule(quint64 request, QJsonObject windowsParams)
{
    std::optional<Fleet::WindowsPlan> plan;
    SchedulePreview p = schedulePreview(windowsParams, &plan);
    p.request = request;
    m_confirmedReservations = p.reservations;
    Q_EMIT schedulePreviewReady(p);
}

void FleetSession::setSchedule(quint64 request, QJsonObject windowsParams)
{
    applySchedule(request, windowsParams, false);
}

void FleetSession::setScheduleConfirmed(quint64 request, QJsonObject windowsParams, QList<int>)
{
    applySchedule(request, windowsParams, true);
}

void FleetSession::applySchedule(quint64 request, const QJsonObject &params, bool confirmed)
{
    std::optional<Fleet::WindowsPlan> plan;
    const SchedulePreview p = schedulePreview(params, &plan);
    CommandResult r;
    r.request = request;
    if (!plan) {
        r.field = p.field;
        setProblem(r, p.problem);
        Q_EMIT commandFinished(r);
        return;
    }
    // What the operator confirmed is what is carried out: a plan that changed since (Slurm's
    // reservations or nodes moved meanwhile) is asked about again.
    if (confirmed && p.reservations != m_confirmedReservations) {
        r.planChanged = true;
        setProblem(r,
                   Problem(Problem::Code::FleetRefused,
                           {QStringLiteral("Slurm's reservations changed since the preview")}));
        Q_EMIT commandFinished(r);
        return;
    }
    const QString scontrol = m_options.scontrolPath.isEmpty() ? QStringLiteral("scontrol")
                                                              : m_options.scontrolPath;
    const QString conf = m_options.slurmConf;
    // A few scontrol calls, each answered by the controller in milliseconds: run here, in order,
    // so that a failure undoes what was done before anything else happens.
    const Fleet::ApplyReport report = Fleet::applyWindowsPlan(
            *plan, scontrol, [conf](const QString &program, const QStringList &args) {
                return Fleet::runCommand(program, args, kScontrolTimeoutMs, conf);
            });
    QJsonArray steps;
    for (const QString &line : report.done)
        steps.append(line);
    recordFleet(
            now(),
            report.ok ? "fleet-windows-applied" : "fleet-windows-failed",
            report.ok ? Storage::Severity::Info : Storage::Severity::Error,
            {{QStringLiteral("steps"), steps},
             {QStringLiteral("failedStep"), report.failedStep},
             {QStringLiteral("error"), report.error},
             {QStringLiteral("undoFailures"), QJsonArray::fromStringList(report.undoFailures)}});
    r.ok = report.ok;
    if (!report.ok)
        setProblem(r,
                   Problem(Problem::Code::FleetRefused,
                           {report.failedStep + QStringLiteral(": ") + report.error}));
    finish(r);
}

void FleetSession::requestJobLog(quint64 request, int job, qint64)
{
    JobLog log;
    log.request = request;
    log.job = Domain::JobId(job);
    const qint64 id = m_fleet.slurmIdByJob.value(job, 0);
    setProblem(log,
               id == 0 ? Problem(Problem::Code::FleetNotSlurmJob, {QString::number(job)})
                       : Problem(Problem::Code::FleetNoLogs,
                                 {QStringLiteral("slurm-%1.out").arg(id)}));
    Q_EMIT jobLogReady(log);
}

void FleetSession::submitWorkload(quint64 request, QJsonObject json)
{
    CommandResult r;
    r.request = request;
    const std::optional<Domain::WorkloadSpec> spec = specForSubmission(json, &r);
    if (!spec) {
        Q_EMIT commandFinished(r);
        return;
    }
    if (!m_reachable || !m_everRead) {
        refuse(request, unreachable());
        return;
    }
    Fleet::SubmitOptions o;
    o.workdir = m_options.submitWorkdir;
    o.environment = m_options.submitEnvironment;
    o.qosByKind = m_options.qosByKind;
    o.qosNever = m_options.qosNever;
    QString why;
    const qint64 at = now();
    const std::optional<Fleet::SubmitPlan> plan
            = Fleet::planSubmission(m_fleet, *spec, at, o, &why);
    if (!plan) {
        r.field = spec->run ? QString() : QStringLiteral("run.command");
        setProblem(r, Problem::text(why));
        Q_EMIT commandFinished(r);
        return;
    }
    postSubmission(r, *plan, *spec, o, false);
}

void FleetSession::postSubmission(CommandResult r,
                                  const Fleet::SubmitPlan &plan,
                                  const Domain::WorkloadSpec &spec,
                                  Fleet::SubmitOptions options,
                                  bool replanned)
{
    m_client->post(
            kApi + QStringLiteral("job/submit"),
            plan.request,
            [this, r, plan, spec, options, replanned](const Fleet::RestReply &reply) mutable {
                if (!m_started)
                    return;
                Domain::JsonError je;
                std::optional<qint64> id;
                if (reply.status.isOk())
                    id = Fleet::parseSubmitResponse(reply.body, &je);
                if (!id) {
                    const QString refusal
                            = reply.status.isOk() ? je.toString() : reply.status.message;
                    const bool answered = reply.status.code == Fleet::RestStatus::Code::Http
                                          || reply.status.code == Fleet::RestStatus::Code::Slurm;
                    if (answered && !replanned) {
                        // Slurm refused it where Zhaoxi put it (the node may have changed since
                        // the last read): plan once more without that node, and say so.
                        options.avoidNodes = plan.nodes;
                        QString whyNot;
                        const std::optional<Fleet::SubmitPlan> next
                                = Fleet::planSubmission(m_fleet, spec, now(), options, &whyNot);
                        if (next) {
                            recordFleet(now(),
                                        "slurm-job-replanned",
                                        Storage::Severity::Warning,
                                        {{QStringLiteral("name"), spec.name},
                                         {QStringLiteral("refusedNodes"),
                                          QJsonArray::fromStringList(plan.nodes)},
                                         {QStringLiteral("refusal"), refusal},
                                         {QStringLiteral("node"), next->node}});
                            postSubmission(r, *next, spec, options, true);
                            return;
                        }
                    }
                    setProblem(r, Problem(Problem::Code::FleetRefused, {refusal}));
                    r.ok = false;
                    finish(r);
                    return;
                }
                const QString name = spec.name;
                // Known at once (its row, its id), before the next read lists it.
                FleetJob j;
                j.id = *id;
                j.name = name;
                j.user = m_options.user;
                j.partition = plan.partition;
                j.state = QStringLiteral("PENDING");
                j.reason = QStringLiteral("None");
                j.submitTime = now() / 1000;
                if (!m_jobIndex.contains(j.id)) {
                    m_jobIndex.insert(j.id, int(m_jobs.size()));
                    m_jobs.append(j);
                }
                QJsonObject p = jobParams(j);
                p.insert(QStringLiteral("node"), plan.node);
                p.insert(QStringLiteral("gres"), plan.gres);
                p.insert(QStringLiteral("why"), plan.why);
                const int job = m_jobIndex.value(j.id);
                recordFleet(now(), "slurm-job-submitted", Storage::Severity::Info, p, job);
                r.ok = true;
                r.job = Domain::JobId(job);
                if (plan.requeue) {
                    finish(r);
                    return;
                }
                // slurmrestd ignores "requeue": false; scontrol clears it (fleetactions.h).
                Fleet::setSlurmJobRequeueable(
                        scontrol(),
                        j.id,
                        false,
                        [this, r](const Fleet::JobActionResult &a) mutable {
                            if (!a.ok)
                                setProblem(r,
                                           Problem(Problem::Code::FleetRefused,
                                                   {QStringLiteral("submitted, but: %1")
                                                            .arg(a.message)}));
                            r.ok = a.ok;
                            finish(r);
                        },
                        this);
            });
}

void FleetSession::cancelJob(quint64 request, int job)
{
    CommandResult r;
    r.request = request;
    const qint64 id = slurmJob(job, &r);
    if (id == 0) {
        finish(r);
        return;
    }
    Fleet::cancelSlurmJob(
            *m_client, id, [this, r](const Fleet::JobActionResult &a) { answerAction(r, a); });
}

void FleetSession::setJobPriority(quint64 request, int job, int priority)
{
    CommandResult r;
    r.request = request;
    const qint64 id = slurmJob(job, &r);
    if (id == 0) {
        finish(r);
        return;
    }
    // Slurm's priority is absolute and 0 would hold the job: at least 1.
    Fleet::setSlurmJobPriority(*m_client,
                               id,
                               std::max(1, priority),
                               [this, r](const Fleet::JobActionResult &a) { answerAction(r, a); });
}

} // namespace Zhaoxi::Session
