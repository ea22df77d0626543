// SPDX-License-Identifier: GPL-3.0-or-later
#include "hardwaresession.h"

#include "eventbridge.h"
#include "runtimesession.h"

#include "core/catalogue/layoutrules.h"
#include "core/device/applianceevents.h"
#include "core/device/nvmlapply.h"
#include "core/domain/workloadspec.h"
#include "core/policy/timewindows.h"
#include "core/runtime/liverun.h"
#include "core/sched/scheduler.h"
#include "core/storage/recorder.h"
#include "core/storage/statecodec.h"
#include "core/storage/store.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QStandardPaths>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <limits>

namespace Zhaoxi::Session {

using Device::NvmlCardReport;
using Device::NvmlStepReport;
using Device::NvmlStepState;
using Domain::CardId;
using Domain::JobId;
using Domain::MigPlacement;
using Domain::PartitionMode;

namespace {

// The session's timer decides when the backend reads; the backend's own schedule never fires.
constexpr qint64 kNever = std::numeric_limits<qint64>::max() / 4;

Device::ActionReason actionReasonOf(Device::NvmlStatus status)
{
    switch (status) {
    case Device::NvmlStatus::Ok:
        return Device::ActionReason::None;
    case Device::NvmlStatus::InUse:
        return Device::ActionReason::DeviceInUse;
    case Device::NvmlStatus::GpuLost:
        return Device::ActionReason::GpuLost;
    default:
        return Device::ActionReason::InvalidOrder;
    }
}

} // namespace

QList<MigPlacement> HardwareSession::byStart(QList<MigPlacement> layout)
{
    std::sort(layout.begin(), layout.end(), [](const MigPlacement &a, const MigPlacement &b) {
        return a.start != b.start ? a.start < b.start : a.profile < b.profile;
    });
    return layout;
}

std::unique_ptr<HardwareSession> HardwareSession::open(const Device::NvmlBackendOptions &options,
                                                       HardwareOptions hardware,
                                                       QString *whyNot,
                                                       Device::NvmlOpenStatus *status)
{
    Device::NvmlBackendOptions o = options;
    // Safe by default: the backend itself refuses every change unless the setting allows them
    // (setAllowChanges re-opens it), besides the session's own check.
    o.applyEnabled = hardware.allowChanges;
    o.pollIntervalMs = 0;
    o.layoutRefreshMs = kNever;
    if (!hardware.clock)
        hardware.clock = [] { return QDateTime::currentMSecsSinceEpoch(); };
    Device::NvmlOpenResult r;
    std::unique_ptr<Device::NvmlBackend> backend
            = Device::NvmlBackend::open(o, &r, hardware.clock());
    if (status)
        *status = r.status;
    if (!backend) {
        if (whyNot) {
            const QString noDriver = QLatin1String(kNoDriver);
            *whyNot = r.status == Device::NvmlOpenStatus::NoDriver
                                      && !r.message.startsWith(noDriver)
                              ? QStringLiteral("%1 (%2)").arg(noDriver, r.message)
                              : r.message;
        }
        return nullptr;
    }
    if (whyNot)
        whyNot->clear();
    return std::unique_ptr<HardwareSession>(
            new HardwareSession(std::move(backend), o, std::move(hardware)));
}

HardwareSession::HardwareSession(std::unique_ptr<Device::NvmlBackend> backend,
                                 Device::NvmlBackendOptions backendOptions,
                                 HardwareOptions options)
    : m_backendOptions(std::move(backendOptions))
    , m_options(std::move(options))
    , m_backend(std::move(backend))
{
    registerMetaTypes();
    m_allowChanges = m_options.allowChanges;
    m_pollIntervalMs = std::clamp(m_options.pollIntervalMs, kMinPollMs, kMaxPollMs);
    m_options.layoutRefreshPolls = std::max(1, m_options.layoutRefreshPolls);
    m_startMs = now();
    m_lastPollMs = m_startMs;
    m_nextMetricMs = m_startMs;

    openStore(m_options.storePath, QStringLiteral("hardware.sqlite"), m_options.retention);
    setUnitMetricPeriodMs(m_options.metricPeriodMs);

    const QList<NvmlCardReport> &reports = m_backend->cardReports();
    for (const NvmlCardReport &rep : reports) {
        if (rep.model >= 0)
            m_nvmlIndex << rep.index;
    }
    m_seenXids.resize(reports.size());
    m_layoutProblems.resize(reports.size());
    replaceScheduler(stateFromBackend());
    for (const NvmlCardReport &rep : reports) {
        m_seenXids[rep.index] = m_backend->reading(rep.id).recentXids;
        if (rep.model < 0)
            recordDevice(
                    m_startMs,
                    "card-not-in-catalogue",
                    Storage::Severity::Warning,
                    {{QStringLiteral("gpu"), rep.index},
                     {QStringLiteral("name"), rep.name},
                     {QStringLiteral("uuid"), rep.uuid},
                     {QStringLiteral("pciDeviceId"), Device::formatPciDeviceId(rep.pciDeviceId)}},
                    -1);
    }
    followDriver(m_startMs); // reports the instances the catalogue cannot name
    publish();
}

HardwareSession::~HardwareSession()
{
    // The console's exit leaves the jobs running: the next start adopts them. The runtime's
    // own helpers (scrapes, timers) end here; the records it leaves say what runs.
    if (m_run) {
        persistRuntime();
        m_run->releaseProcesses();
    }
    // The recorder is a sink of the scheduler: the scheduler goes first.
    m_run.reset();
    m_scheduler.reset();
    closeStore();
    m_backend.reset();
}

qint64 HardwareSession::now() const
{
    return m_options.clock ? m_options.clock() : QDateTime::currentMSecsSinceEpoch();
}

bool HardwareSession::isPolling() const
{
    return m_timer && m_timer->isActive();
}

int HardwareSession::nvmlIndex(int card) const
{
    return card >= 0 && card < m_nvmlIndex.size() ? m_nvmlIndex[card] : -1;
}

// --- Reading ---------------------------------------------------------------------------------

Sched::ClusterState HardwareSession::stateFromBackend() const
{
    // The card order is m_nvmlIndex's (the catalogue's cards in NVML order), as here.
    return Device::clusterStateOf(*m_backend, nullptr);
}

Sched::Scheduler &HardwareSession::sched() const
{
    return m_run ? m_run->mutableScheduler() : *m_scheduler;
}

void HardwareSession::replaceScheduler(Sched::ClusterState state)
{
    if (m_run) {
        // Jobs run on the state: it is never thrown away under them. The driver shows what the
        // catalogue cannot name; the cards concerned stay as the state last had them.
        return;
    }
    Storage::Recorder *rec = recorder();
    if (rec)
        rec->setState(nullptr);
    m_scheduler = std::make_unique<Sched::Scheduler>(std::move(state));
    if (rec) {
        sched().addSink(rec);
        rec->setState(&sched().state());
    }
}

QList<MigPlacement> HardwareSession::driverLayout(int card) const
{
    QList<MigPlacement> out;
    const NvmlCardReport &rep = m_backend->cardReports()[m_nvmlIndex[card]];
    for (const Device::InstanceInfo &i : rep.layout.instances)
        out << MigPlacement{i.profile, i.start};
    return byStart(out);
}

void HardwareSession::followDriver(qint64 nowMs)
{
    // The scheduler's commands keep the state consistent and report partition and mode changes
    // as events; when the driver shows something they refuse (a layout the catalogue calls
    // invalid), the state is rebuilt from the driver instead: it must show what is there.
    bool rebuild = false;
    if (m_run)
        m_run->setFollowingDriver(true);
    for (int c = 0; c < m_nvmlIndex.size(); ++c) {
        const int index = m_nvmlIndex[c];
        const NvmlCardReport &rep = m_backend->cardReports()[index];
        const CardId id(c);
        if (rep.layout.lost || rep.readStatus == Device::NvmlStatus::GpuLost
            || m_backend->reading(rep.id).lost) {
            // Its last known layout stays: a lost card lists nothing, which is not a layout.
            sched().cardFailed(id, nowMs);
            continue;
        }
        sched().cardRecovered(id, nowMs);
        if (rep.layoutProblems != m_layoutProblems[index]) {
            m_layoutProblems[index] = rep.layoutProblems;
            if (!rep.layoutProblems.isEmpty())
                recordDevice(nowMs,
                             "layout-unmapped",
                             Storage::Severity::Warning,
                             {{QStringLiteral("gpu"), index},
                              {QStringLiteral("message"),
                               rep.layoutProblems.join(QStringLiteral("; "))}},
                             c);
        }
        const Domain::CardModel &model = m_backend->catalogue().models()[rep.model];
        const PartitionMode mode = rep.layout.mode == PartitionMode::Mig && model.supportsMig()
                                           ? PartitionMode::Mig
                                           : PartitionMode::Whole;
        if (sched().state().card(id).mode != mode && !sched().setCardMode(id, mode, nowMs)) {
            rebuild = true;
            continue;
        }
        if (mode != PartitionMode::Mig)
            continue;
        const QList<MigPlacement> want = driverLayout(c);
        if (byStart(sched().state().card(id).migLayout()) == want)
            continue;
        Domain::Problem why;
        if (m_run) {
            // Instances the driver does not have (a create that failed, one destroyed behind
            // our back): their jobs cannot run there and go back to the queue first.
            const Sched::CardState &cs = sched().state().card(id);
            for (const Sched::Unit &u : cs.units) {
                if (u.job.isValid() && u.profile >= 0
                    && !want.contains(MigPlacement{u.profile, u.start}))
                    sched().requeue(u.job, nowMs, false);
            }
        }
        if (!sched().applyLayout(id, want, nowMs, &why)) {
            recordDevice(
                    nowMs,
                    "layout-unmapped",
                    Storage::Severity::Warning,
                    {{QStringLiteral("gpu"), index}, {QStringLiteral("message"), why.english()}},
                    c);
            rebuild = true;
        }
    }
    if (m_run)
        m_run->setFollowingDriver(false);
    if (rebuild)
        replaceScheduler(stateFromBackend());
}

bool HardwareSession::takeFaultsAndRelayout(qint64 nowMs)
{
    bool relayout = false;
    for (const Device::DeviceFault &f : m_backend->takeFaults()) {
        const int index = f.card.value();
        const int card = int(m_nvmlIndex.indexOf(index));
        QByteArray code;
        Storage::Severity severity = Storage::Severity::Error;
        Device::ActionReason reason = Device::ActionReason::None;
        switch (f.kind) {
        case Device::FaultKind::CardLost:
            code = "fault-card-lost";
            reason = Device::ActionReason::GpuLost;
            relayout = true;
            break;
        case Device::FaultKind::MemoryError:
            code = "fault-memory-error";
            break;
        case Device::FaultKind::ThermalThrottle:
            code = "fault-thermal-throttle";
            severity = Storage::Severity::Warning;
            break;
        case Device::FaultKind::Recovered:
            code = "card-recovered";
            severity = Storage::Severity::Info;
            relayout = true;
            break;
        }
        const NvmlCardReport *rep = index >= 0 && index < m_backend->cardReports().size()
                                            ? &m_backend->cardReports()[index]
                                            : nullptr;
        recordDevice(f.atMs > 0 ? f.atMs : nowMs,
                     code,
                     severity,
                     {{QStringLiteral("reason"), QLatin1String(Device::toString(reason))},
                      {QStringLiteral("durationMs"), f.durationMs},
                      {QStringLiteral("gpu"), index},
                      {QStringLiteral("uuid"), rep ? rep->uuid : QString()}},
                     card);
    }
    if (relayout)
        m_backend->refreshLayouts();
    return relayout;
}

void HardwareSession::noteXids(qint64 nowMs)
{
    // The backend keeps the last few Xids per card; the new ones are what follows the longest
    // overlap of what was seen with what is there now (a repeat of an identical full window is
    // not told apart: the faults it stands for still come through takeFaults()).
    for (int index = 0; index < m_seenXids.size(); ++index) {
        const QList<quint64> cur = m_backend->reading(CardId(index)).recentXids;
        const QList<quint64> &old = m_seenXids[index];
        if (cur == old)
            continue;
        qsizetype keep = std::min(old.size(), cur.size());
        while (keep > 0 && old.mid(old.size() - keep) != cur.mid(0, keep))
            --keep;
        for (qsizetype k = keep; k < cur.size(); ++k)
            recordDevice(nowMs,
                         "xid",
                         Storage::Severity::Warning,
                         {{QStringLiteral("xid"), qint64(cur[k])},
                          {QStringLiteral("gpu"), index},
                          {QStringLiteral("uuid"), m_backend->cardReports()[index].uuid}},
                         int(m_nvmlIndex.indexOf(index)));
        m_seenXids[index] = cur;
    }
}

void HardwareSession::sampleMetrics(qint64 nowMs)
{
    Storage::Recorder *rec = recorder();
    if (!rec || nowMs < m_nextMetricMs)
        return;
    m_nextMetricMs = nowMs + std::max(1, m_options.metricPeriodMs);
    using Storage::Metric;
    for (int c = 0; c < m_nvmlIndex.size(); ++c) {
        const Device::NvmlReading r = m_backend->reading(CardId(m_nvmlIndex[c]));
        if (r.lost)
            continue;
        if (r.utilisation)
            rec->recordMetric(nowMs, {Metric::GpuUtil, c, -1, {}, -1}, 100.0 * *r.utilisation);
        if (r.memoryUsedMiB)
            rec->recordMetric(
                    nowMs, {Metric::MemoryUsedMiB, c, -1, {}, -1}, double(*r.memoryUsedMiB));
        if (r.temperatureC)
            rec->recordMetric(nowMs, {Metric::TemperatureC, c, -1, {}, -1}, *r.temperatureC);
        if (r.powerW)
            rec->recordMetric(nowMs, {Metric::PowerW, c, -1, {}, -1}, *r.powerW);
        if (r.memoryUsedMiB && r.memoryTotalMiB)
            rec->recordMetric(nowMs,
                              {Metric::MemoryFreeMiB, c, -1, {}, -1},
                              double(std::max<qint64>(0, *r.memoryTotalMiB - *r.memoryUsedMiB)));
        if (r.smClockMHz)
            rec->recordMetric(nowMs, {Metric::SmClockMHz, c, -1, {}, -1}, *r.smClockMHz);
    }
    // The services' requests, SLO attainment and service times: what the forecast learns from
    // and a replay reads.
    if (m_run)
        m_workloads.record(*rec, nowMs, serviceTallies(m_run->services(nowMs)), {});
}

void HardwareSession::poll()
{
    const qint64 t = std::max(m_lastPollMs, now());
    m_lastPollMs = t;
    ++m_polls;
    if (m_run) {
        // Orders the scheduler queued (instances for placements) run now, before the state is
        // compared with the driver again.
        m_backend->advance(t);
        for (const NvmlStepReport &rep : m_backend->takeStepReports()) {
            const int card = int(m_nvmlIndex.indexOf(rep.result.step.card.value()));
            recordStep(rep, card, t);
        }
        m_backend->takeResults();
    } else {
        m_backend->poll(t);
    }
    const bool relaid = takeFaultsAndRelayout(t);
    noteXids(t);
    if (!relaid && m_polls % quint64(m_options.layoutRefreshPolls) == 0)
        m_backend->refreshLayouts();
    followDriver(t);
    if (m_run) {
        m_run->stepNow();
        tryPendingLayouts(t);
    }
    sampleMetrics(t);
}

SnapshotPtr HardwareSession::pollNow()
{
    poll();
    return publish();
}

// --- Events ----------------------------------------------------------------------------------

void HardwareSession::recordDevice(qint64 atMs,
                                   const QByteArray &code,
                                   Storage::Severity severity,
                                   const QJsonObject &params,
                                   int card)
{
    if (Storage::Recorder *rec = recorder()) {
        rec->recordDevice(atMs, code, severity, params, Storage::Subject{card, -1, -1});
        return; // the observer hands it to the next snapshot
    }
    Storage::Event e;
    e.id = ++m_localEventId;
    e.atMs = atMs;
    e.severity = severity;
    e.source = Storage::Source::Device;
    e.code = code;
    e.card = card;
    e.params = QJsonDocument(params).toJson(QJsonDocument::Compact);
    noteEvent(e);
}

void HardwareSession::recordStep(const NvmlStepReport &report, int card, qint64 nowMs)
{
    const Device::DeviceStep &s = report.result.step;
    // The keys of Session::applianceEventParams for a step, and the driver's own words.
    QJsonObject p{{QStringLiteral("stepKind"), int(s.kind)},
                  {QStringLiteral("profileIndex"), s.profile},
                  {QStringLiteral("start"), s.start},
                  {QStringLiteral("durationMs"), report.result.doneMs - report.result.startedMs},
                  {QStringLiteral("state"), QLatin1String(Device::toString(report.state))},
                  {QStringLiteral("status"), QLatin1String(Device::toString(report.status))},
                  {QStringLiteral("message"), report.message},
                  {QStringLiteral("order"), qint64(report.result.order)},
                  {QStringLiteral("index"), report.result.index},
                  {QStringLiteral("gpu"), s.card.value()}};
    const int model = sched().state().cards().value(card).model;
    if (model >= 0 && s.profile >= 0
        && s.profile < m_backend->catalogue().models()[model].migProfiles.size())
        p.insert(QStringLiteral("profile"),
                 m_backend->catalogue().models()[model].migProfiles[s.profile].name);
    QByteArray code;
    Storage::Severity severity = Storage::Severity::Info;
    Device::ActionReason reason = actionReasonOf(report.status);
    switch (report.state) {
    case NvmlStepState::Done:
        code = "step-done";
        reason = Device::ActionReason::None;
        break;
    case NvmlStepState::Failed:
    case NvmlStepState::Refused:
        code = "step-failed";
        severity = Storage::Severity::Error;
        break;
    case NvmlStepState::Skipped:
        // Not attempted: an earlier step on the card failed (its reason is the failing step's).
        code = "step-skipped";
        severity = Storage::Severity::Warning;
        reason = actionReasonOf(Device::NvmlStatus::Other);
        break;
    }
    p.insert(QStringLiteral("reason"), QLatin1String(Device::toString(reason)));
    recordDevice(nowMs, code, severity, p, card);
}

// --- Snapshots -------------------------------------------------------------------------------

Domain::Problem HardwareSession::readOnlyProblem() const
{
    using Domain::Problem;
    if (!m_allowChanges)
        return Problem(Problem::Code::ReadOnlyDisabled);
    if (!m_reopenError.isEmpty())
        return Problem::text(m_reopenError);
    switch (m_backend->access()) {
    case Device::NvmlAccess::Writable:
        break;
    case Device::NvmlAccess::ReadOnlyBySetting:
        return Problem(Problem::Code::ReadOnlyDisabled);
    case Device::NvmlAccess::NoPrivileges:
        return Problem(Problem::Code::ReadOnlyNoPermission);
    case Device::NvmlAccess::NotSupported:
        return Problem::text(m_backend->accessMessage());
    }
    for (const Sched::CardState &c : sched().state().cards()) {
        if (c.mode == PartitionMode::Mig)
            return {};
    }
    return Problem(Problem::Code::ReadOnlyNoMig);
}

// What NVML lists on a card, by whose it is: a process in one of the jobs' sessions is that
// job's (a launcher's workers too), anything else is another's. Memory where the driver gives
// it; the utilisation split by the processes' own SM samples when the driver has them (not
// under MIG), else it stays the units' share.
void HardwareSession::splitByProcesses(const Device::NvmlReading &r,
                                       const QList<JobId> &jobs,
                                       const Sched::ClusterState &st,
                                       CardSample *cs)
{
    if (!r.processesListed || r.lost)
        return;
    qint64 memory[3] = {0, 0, 0}; // training, inference, other
    bool memoryKnown = true;
    double util[2] = {0, 0};
    bool utilKnown = !r.processes.isEmpty();
    for (qsizetype i = 0; i < r.processes.size(); ++i) {
        const Device::ProcessUse &p = r.processes[i];
        const JobId job = jobs.value(i);
        const int whose = !job.isValid() || job.value() >= st.jobs().size()          ? 2
                          : st.job(job).spec.kind == Domain::WorkloadKind::Inference ? 1
                                                                                     : 0;
        if (whose == 2)
            ++cs->otherProcesses;
        if (p.memoryMiB < 0)
            memoryKnown = false;
        else
            memory[whose] += p.memoryMiB;
        if (std::isnan(p.smUtilisation))
            utilKnown = false;
        else if (whose < 2)
            util[whose] += p.smUtilisation;
    }
    if (memoryKnown) {
        cs->trainingMemoryMiB = memory[0];
        cs->inferenceMemoryMiB = memory[1];
        cs->otherMemoryMiB = memory[2];
    }
    if (utilKnown && !std::isnan(cs->utilisation)) {
        cs->trainingUtilisation = std::min(1.0, util[0]);
        cs->inferenceUtilisation = std::min(1.0, util[1]);
        cs->utilisationMeasuredPerProcess = true;
    }
}

namespace {

// A process's command as the kernel names it; empty when it is gone or not readable.
QString readProcessName(quint32 pid)
{
    QFile f(QStringLiteral("/proc/%1/comm").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.read(64)).trimmed();
}

} // namespace

QString HardwareSession::processName(quint32 pid)
{
    // Read once while the process is listed; a pid no poll lists any more is forgotten (see
    // forgetProcessNames), so a reused pid is read afresh.
    m_namesSeen.insert(pid);
    const auto it = m_processNames.constFind(pid);
    if (it != m_processNames.cend())
        return *it;
    const QString name = readProcessName(pid);
    m_processNames.insert(pid, name);
    return name;
}

void HardwareSession::forgetProcessNames()
{
    for (auto it = m_processNames.begin(); it != m_processNames.end();) {
        if (m_namesSeen.contains(it.key()))
            ++it;
        else
            it = m_processNames.erase(it);
    }
    m_namesSeen.clear();
}

void HardwareSession::unitsByProcesses(const Device::NvmlReading &r,
                                       const Device::NvmlCardReport &report,
                                       const QList<JobId> &jobs,
                                       const Sched::ClusterState &st,
                                       const Sched::CardState &c,
                                       CardSample *cs)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const bool listed = r.processesListed && !r.lost;
    for (int k = 0; k < cs->units.size() && k < c.units.size(); ++k) {
        const Sched::Unit &u = c.units[k];
        UnitSample &us = cs->units[k];
        us.processes.clear();
        QString instance;
        if (u.profile >= 0) {
            for (const Device::InstanceInfo &i : report.layout.instances) {
                if (i.profile == u.profile && i.start == u.start)
                    instance = i.uuid;
            }
        }
        // Utilisation: the card's for the whole card; a share's from its processes' SM
        // samples below; never for a MIG instance.
        us.utilisation = c.mode == PartitionMode::Whole ? cs->utilisation : nan;
        us.memoryUsedMiB = listed ? 0 : -1;
        if (!listed)
            continue;
        double sm = 0;
        bool smKnown = c.mode != PartitionMode::Whole && u.profile < 0 && u.job.isValid();
        for (qsizetype i = 0; i < r.processes.size(); ++i) {
            const Device::ProcessUse &p = r.processes[i];
            const JobId job = jobs.value(i);
            bool here = false;
            if (u.profile >= 0)
                here = !instance.isEmpty() && p.instanceUuid == instance;
            else if (c.mode == PartitionMode::Whole)
                here = true;
            else
                here = job.isValid() && job == u.job; // a soft share: its job's processes
            if (!here)
                continue;
            us.processes.append(UnitProcess{
                    p.pid,
                    processName(p.pid),
                    p.memoryMiB,
                    job.isValid() && job.value() < st.jobs().size() ? job.value() : -1});
            if (p.memoryMiB < 0 || us.memoryUsedMiB < 0)
                us.memoryUsedMiB = -1;
            else
                us.memoryUsedMiB += p.memoryMiB;
            if (std::isnan(p.smUtilisation))
                smKnown = false;
            else
                sm += p.smUtilisation;
        }
        if (smKnown)
            us.utilisation = std::min(1.0, sm);
        if (u.profile >= 0 && instance.isEmpty())
            us.memoryUsedMiB = -1; // its MIG device is unknown: its processes cannot be told
    }
}

SnapshotPtr HardwareSession::publish()
{
    auto s = std::make_shared<Snapshot>();
    const Sched::Scheduler &sched = this->sched();
    const Sched::ClusterState &st = sched.state();
    s->nowMs = m_lastPollMs;
    s->startMs = m_startMs;
    s->endMs = -1;
    // The appliance's local time is this machine's (a time zone lookup, not a clock read).
    s->utcOffsetSeconds = QDateTime::fromMSecsSinceEpoch(m_lastPollMs).offsetFromUtc();
    s->speed = 1;
    s->paused = m_paused;
    s->finished = false;
    s->simulated = false;
    s->readOnlyProblem = readOnlyProblem();
    s->readOnly = !s->readOnlyProblem.isNone();
    s->applianceName = !m_options.applianceName.isEmpty()
                               ? m_options.applianceName
                               : (st.hosts().isEmpty() ? QString() : st.hosts().first().name);
    s->state = st;
    s->budget = sched.classBudget();
    s->queue = sched.queue();
    const auto &models = st.catalogue().models();
    const QHash<qint64, JobId> bySession
            = m_run ? m_run->workloads().jobsBySession() : QHash<qint64, JobId>();
    for (const Sched::CardState &c : st.cards()) {
        const int index = m_nvmlIndex[c.id.value()];
        const Device::NvmlReading r = m_backend->reading(CardId(index));
        const Device::CardMetrics m = m_backend->metrics(CardId(index));
        CardSample cs;
        cs.card = c.id.value();
        cs.lost = r.lost;
        cs.utilisation = m.utilisation; // NaN when the driver does not say (MIG on)
        cs.memoryUsedMiB = r.memoryUsedMiB.value_or(0);
        cs.memoryTotalMiB
                = r.memoryTotalMiB.value_or(m_backend->cardReports()[index].memoryTotalMiB);
        cs.temperatureC = r.temperatureC.value_or(0);
        cs.powerW = r.powerW.value_or(0);
        cs.powerLimitW = models[c.model].maxPowerW; // the model's nominal limit
        // The driver's own thresholds where it gives them, else the model's.
        cs.slowdownTempC = r.slowdownTempC.value_or(models[c.model].slowdownTempC);
        cs.shutdownTempC = r.shutdownTempC.value_or(models[c.model].shutdownTempC);
        cs.throttleReasons = r.throttleReasons.value_or(0);
        cs.throttled = (cs.throttleReasons & Device::ThrottleReason::Alarming) != 0;
        cs.xidErrors = r.xidCount;
        cs.eccUncorrected = qint64(r.eccUncorrected.value_or(0));
        // The SM clock over the model's full clock (so that clock x the catalogue's maximum, what
        // /metrics exports, is the driver's reading), or over the driver's maximum; NaN when
        // the driver gives no clock.
        const double fullMHz = models[c.model].maxSmClockMHz > 0
                                       ? double(models[c.model].maxSmClockMHz)
                                       : r.maxSmClockMHz.value_or(0);
        cs.clockFactor = r.smClockMHz && fullMHz > 0 ? *r.smClockMHz / fullMHz
                                                     : std::numeric_limits<double>::quiet_NaN();
        // Whose work it is: the card's share by the units its training and inference jobs
        // hold (NVML's own utilisation is the card's, not per process, under MIG).
        splitByUnits(st, c, m_run.get(), &cs);
        // Each listed process's job, found once for both splits.
        QList<JobId> jobs;
        jobs.reserve(r.processes.size());
        for (const Device::ProcessUse &p : r.processes)
            jobs.append(Runtime::ProcessWorkloads::jobOfPid(bySession, p.pid));
        splitByProcesses(r, jobs, st, &cs);
        unitsByProcesses(r, m_backend->cardReports()[index], jobs, st, c, &cs);
        s->cards.append(cs);
    }
    forgetProcessNames();
    if (m_run)
        addRuntimeSamples(*s, *m_run);
    return publishSnapshot(std::move(s), sched);
}

} // namespace Zhaoxi::Session
