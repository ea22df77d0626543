// SPDX-License-Identifier: GPL-3.0-or-later
#include "hardwaresession.h"

#include "core/catalogue/layoutrules.h"
#include "core/device/applianceevents.h"
#include "core/device/nvmlapply.h"
#include "core/sched/scheduler.h"
#include "core/storage/recorder.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QThread>
#include <QTimer>

#include <algorithm>
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

QList<MigPlacement> byStart(QList<MigPlacement> layout)
{
    std::sort(layout.begin(), layout.end(), [](const MigPlacement &a, const MigPlacement &b) {
        return a.start != b.start ? a.start < b.start : a.profile < b.profile;
    });
    return layout;
}

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

    openStore(m_options.storePath, QStringLiteral("hardware.sqlite"));

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
    // The recorder is a sink of the scheduler: the scheduler goes first.
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
    const Catalogue::Catalogue &cat = m_backend->catalogue();
    Sched::ClusterState st(cat);
    const QList<Device::HostInfo> hosts = m_backend->hosts();
    const QString hostName = hosts.isEmpty() ? QStringLiteral("localhost") : hosts.first().name;
    // The host's CPU and memory are not the scheduler's to hand out here (no jobs yet).
    const Domain::HostId host = st.addHost(hostName, qint64(QThread::idealThreadCount()) * 1000, 0);
    for (int index : m_nvmlIndex) {
        const NvmlCardReport &rep = m_backend->cardReports()[index];
        const Domain::CardModel &model = cat.models()[rep.model];
        const PartitionMode mode = rep.layout.mode == PartitionMode::Mig && model.supportsMig()
                                           ? PartitionMode::Mig
                                           : PartitionMode::Whole;
        const CardId c = st.addCard(host, rep.model, mode);
        if (mode == PartitionMode::Mig) {
            for (const Device::InstanceInfo &i : rep.layout.instances)
                st.createPartition(c, i.profile, i.start);
        }
        if (rep.layout.lost || rep.readStatus == Device::NvmlStatus::GpuLost)
            st.setCardHealth(c, Sched::CardHealth::Failed);
    }
    return st;
}

void HardwareSession::replaceScheduler(Sched::ClusterState state)
{
    Storage::Recorder *rec = recorder();
    if (rec)
        rec->setState(nullptr);
    m_scheduler = std::make_unique<Sched::Scheduler>(std::move(state));
    if (rec) {
        m_scheduler->addSink(rec);
        rec->setState(&m_scheduler->state());
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
    for (int c = 0; c < m_nvmlIndex.size(); ++c) {
        const int index = m_nvmlIndex[c];
        const NvmlCardReport &rep = m_backend->cardReports()[index];
        const CardId id(c);
        if (rep.layout.lost || rep.readStatus == Device::NvmlStatus::GpuLost
            || m_backend->reading(rep.id).lost) {
            // Its last known layout stays: a lost card lists nothing, which is not a layout.
            m_scheduler->cardFailed(id, nowMs);
            continue;
        }
        m_scheduler->cardRecovered(id, nowMs);
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
        if (m_scheduler->state().card(id).mode != mode
            && !m_scheduler->setCardMode(id, mode, nowMs)) {
            rebuild = true;
            continue;
        }
        if (mode != PartitionMode::Mig)
            continue;
        const QList<MigPlacement> want = driverLayout(c);
        if (byStart(m_scheduler->state().card(id).migLayout()) == want)
            continue;
        QString why;
        if (!m_scheduler->applyLayout(id, want, nowMs, &why)) {
            recordDevice(nowMs,
                         "layout-unmapped",
                         Storage::Severity::Warning,
                         {{QStringLiteral("gpu"), index}, {QStringLiteral("message"), why}},
                         c);
            rebuild = true;
        }
    }
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
                      {QStringLiteral("a"), -1},
                      {QStringLiteral("b"), -1},
                      {QStringLiteral("c"), -1},
                      {QStringLiteral("value"), f.durationMs},
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
                         {{QStringLiteral("value"), qint64(cur[k])},
                          {QStringLiteral("xid"), qint64(cur[k])},
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
    }
}

void HardwareSession::poll()
{
    const qint64 t = std::max(m_lastPollMs, now());
    m_lastPollMs = t;
    ++m_polls;
    m_backend->poll(t);
    const bool relaid = takeFaultsAndRelayout(t);
    noteXids(t);
    if (!relaid && m_polls % quint64(m_options.layoutRefreshPolls) == 0)
        m_backend->refreshLayouts();
    followDriver(t);
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
    QJsonObject p{{QStringLiteral("a"), int(s.kind)},
                  {QStringLiteral("b"), s.profile},
                  {QStringLiteral("c"), s.start},
                  {QStringLiteral("value"), report.result.doneMs - report.result.startedMs},
                  {QStringLiteral("state"), QLatin1String(Device::toString(report.state))},
                  {QStringLiteral("status"), QLatin1String(Device::toString(report.status))},
                  {QStringLiteral("message"), report.message},
                  {QStringLiteral("order"), qint64(report.result.order)},
                  {QStringLiteral("index"), report.result.index},
                  {QStringLiteral("gpu"), s.card.value()}};
    const int model = m_scheduler->state().cards().value(card).model;
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

QString HardwareSession::readOnlyReason() const
{
    if (!m_allowChanges)
        return QLatin1String(kReasonDisabled);
    if (!m_reopenError.isEmpty())
        return m_reopenError;
    switch (m_backend->access()) {
    case Device::NvmlAccess::Writable:
        break;
    case Device::NvmlAccess::ReadOnlyBySetting:
        return QLatin1String(kReasonDisabled);
    case Device::NvmlAccess::NoPrivileges:
        return QLatin1String(kReasonNoPermission);
    case Device::NvmlAccess::NotSupported:
        return m_backend->accessMessage();
    }
    for (const Sched::CardState &c : m_scheduler->state().cards()) {
        if (c.mode == PartitionMode::Mig)
            return {};
    }
    return QLatin1String(kReasonNoMig);
}

SnapshotPtr HardwareSession::publish()
{
    auto s = std::make_shared<Snapshot>();
    const Sched::Scheduler &sched = *m_scheduler;
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
    s->readOnlyReason = readOnlyReason();
    s->readOnly = !s->readOnlyReason.isEmpty();
    s->applianceName = !m_options.applianceName.isEmpty()
                               ? m_options.applianceName
                               : (st.hosts().isEmpty() ? QString() : st.hosts().first().name);
    s->state = st;
    s->budget = sched.classBudget();
    s->queue = sched.queue();
    const auto &models = st.catalogue().models();
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
        s->cards.append(cs);
    }
    return publishSnapshot(std::move(s), sched);
}

// --- Control ---------------------------------------------------------------------------------

void HardwareSession::start()
{
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

void HardwareSession::previewPlacement(quint64 request, int job, int card)
{
    PlacementPreview p;
    p.request = request;
    p.job = JobId(job);
    p.card = CardId(card);
    p.outcome = PlacementPreview::Outcome::Refused;
    // No scheduler-managed job exists on the real appliance: whatever id, it is not one.
    p.status = Sched::Status::error(Sched::Reason::None);
    Q_EMIT placementPreviewReady(p);
}

void HardwareSession::placeJob(quint64 request, int, int, bool)
{
    Q_EMIT commandFinished(CommandResult{
            request,
            false,
            QStringLiteral("the real appliance has no scheduler-managed jobs yet: nothing can be "
                           "placed from the console"),
            Sched::Status::error(Sched::Reason::None)});
}

void HardwareSession::requeueJob(quint64 request, int)
{
    Q_EMIT commandFinished(CommandResult{
            request,
            false,
            QStringLiteral("the real appliance has no scheduler-managed jobs yet: nothing can be "
                           "requeued from the console"),
            Sched::Status::error(Sched::Reason::None)});
}

void HardwareSession::setSchedule(quint64 request, QJsonObject)
{
    Q_EMIT commandFinished(CommandResult{
            request,
            false,
            QStringLiteral("the real appliance has no colocation policy yet: a schedule applies "
                           "to the simulated appliance only"),
            {}});
}

LayoutPreview HardwareSession::plan(int card, const QList<MigPlacement> &target) const
{
    // NVML's MIG API does not say which instances serve processes; the driver refuses to destroy
    // those ("in use"). Real driver timings are not known in advance: expectedMs stays 0.
    return previewLayoutChange(m_scheduler->state(), CardId(card), target);
}

void HardwareSession::previewLayout(quint64 request, int card, QList<MigPlacement> target)
{
    LayoutPreview p = plan(card, target);
    p.request = request;
    Q_EMIT layoutPreviewReady(p);
}

void HardwareSession::applyLayout(
        quint64 request, int card, QList<MigPlacement> target, ApplyMode, qint64)
{
    CommandResult r;
    r.request = request;
    const QString readOnly = readOnlyReason();
    if (!readOnly.isEmpty()) {
        r.error = readOnly;
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
        r.error = p.error;
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
            r.error = QStringLiteral("the %1 steps were carried out, but the card now has %2")
                              .arg(steps.size())
                              .arg(holds);
    } else {
        const auto failed = std::find_if(
                outcome.reports.cbegin(), outcome.reports.cend(), [](const NvmlStepReport &x) {
                    return x.state == NvmlStepState::Failed || x.state == NvmlStepState::Refused;
                });
        if (failed != outcome.reports.cend()) {
            r.error = QStringLiteral("stopped after %1 of %2 steps: %3 %4: %5; the card now has %6")
                              .arg(outcome.done)
                              .arg(steps.size())
                              .arg(Device::describeStep(cat, model, failed->result.step),
                                   failed->state == NvmlStepState::Refused
                                           ? QStringLiteral("refused")
                                           : QStringLiteral("failed"),
                                   failed->message.isEmpty()
                                           ? QString::fromLatin1(Device::toString(failed->status))
                                           : failed->message,
                                   holds);
        } else {
            r.error = QStringLiteral("stopped after %1 of %2 steps; the card now has %3")
                              .arg(outcome.done)
                              .arg(steps.size())
                              .arg(holds);
        }
    }
    Q_EMIT commandFinished(r);
    publish();
}

} // namespace Zhaoxi::Session
