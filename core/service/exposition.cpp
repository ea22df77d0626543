// SPDX-License-Identifier: GPL-3.0-or-later
#include "exposition.h"

#include "core/storage/prometheus.h"
#include "core/storage/recorder.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

namespace Zhaoxi::Service {

using Domain::PartitionMode;
using Domain::WorkloadKind;
using Session::CardSample;
using Session::Snapshot;
using Storage::appendLabelValue;
using Storage::appendSampleValue;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// The DCGM families, in the order they are written.
enum Dcgm : int {
    GpuUtil,
    FbUsed,
    FbFree,
    GpuTemp,
    PowerUsage,
    SmClock,
    GrEngineActive,
    PipeTensorActive,
    DcgmCount
};

struct FamilyText
{
    const char *name;
    const char *help;
};

// HELP says what is modelled, so that a dashboard's reader can find out from the text itself.
constexpr std::array<FamilyText, DcgmCount> kDcgm = {{
        {"DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %); cards not in MIG mode."},
        {"DCGM_FI_DEV_FB_USED",
         "Framebuffer memory used (in MiB); per MIG instance: the card's used memory shared "
         "over the bound instances by their size (modelled)."},
        {"DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB)."},
        {"DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C)."},
        {"DCGM_FI_DEV_POWER_USAGE", "Power draw (in W)."},
        {"DCGM_FI_DEV_SM_CLOCK",
         "SM clock frequency (in MHz); modelled: the model's maximum SM clock times the card's "
         "clock factor."},
        {"DCGM_FI_PROF_GR_ENGINE_ACTIVE",
         "Ratio of time the graphics engine is active; per MIG instance: the card's "
         "utilisation shared over its busy instances (modelled)."},
        {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
         "Ratio of cycles the tensor (HMMA) pipe is active; modelled from the training and "
         "inference utilisation (docs/metrics.md)."},
}};

void header(QByteArray &out, const char *name, const char *help, const char *type)
{
    out += "# HELP ";
    out += name;
    out += ' ';
    out += help;
    out += "\n# TYPE ";
    out += name;
    out += ' ';
    out += type;
    out += '\n';
}

void sample(QByteArray &out, const char *name, const QByteArray &labels, double value)
{
    out += name;
    out += labels;
    out += ' ';
    appendSampleValue(out, value);
    out += '\n';
}

// `{a="x",b="y"}` from name/value pairs (values escaped).
QByteArray labelBlock(std::initializer_list<std::pair<const char *, QStringView>> labels)
{
    QByteArray r;
    r += '{';
    bool first = true;
    for (const auto &[name, value] : labels) {
        if (!first)
            r += ',';
        first = false;
        r += name;
        r += "=\"";
        appendLabelValue(r, value);
        r += '"';
    }
    r += '}';
    return r;
}

double tensorShare(WorkloadKind kind)
{
    return kind == WorkloadKind::Inference ? MetricsModel::kTensorActiveInference
                                           : MetricsModel::kTensorActiveTraining;
}

// One device series set: a card or one of its MIG instances.
struct Entity
{
    QByteArray labels; // shared with the cache (implicitly shared)
    std::array<double, DcgmCount> value;
};

} // namespace

// Device label sets by card and unit, kept while what they are made of stays the same.
struct ExpositionLabels
{
    struct Entry
    {
        int uid = -2; // -1: the card itself
        QString host;
        int model = -1;
        int indexOnHost = -1;
        int profile = -2;
        QString uuid;
        QByteArray text;
    };
    std::vector<QList<Entry>> cards; // index = card id

    QByteArray labels(const Sched::ClusterState &state,
                      const Sched::CardState &card,
                      const Sched::Unit *unit,
                      const QStringList &uuids)
    {
        const int id = card.id.value();
        if (cards.size() <= std::size_t(id))
            cards.resize(std::size_t(id) + 1);
        const int uid = unit ? unit->uid : -1;
        const int profile = unit ? unit->profile : -1;
        const QString &host = state.host(card.host).name;
        const QString uuid = id < uuids.size() ? uuids[id] : QString();
        QList<Entry> &entries = cards[std::size_t(id)];
        Entry *e = nullptr;
        for (Entry &candidate : entries) {
            if (candidate.uid == uid) {
                e = &candidate;
                break;
            }
        }
        if (e && e->host == host && e->model == card.model && e->indexOnHost == card.indexOnHost
            && e->profile == profile && e->uuid == uuid) {
            return e->text;
        }
        if (!e) {
            entries.append(Entry{});
            e = &entries.last();
        }
        e->uid = uid;
        e->host = host;
        e->model = card.model;
        e->indexOnHost = card.indexOnHost;
        e->profile = profile;
        e->uuid = uuid;
        // The store's labels for the same device (one made-up UUID scheme), in the order
        // dcgm-exporter writes them.
        const QMap<QString, QString> l = Storage::Recorder::deviceLabels(
                state, id, unit ? unit->uid : -1, uuid.isEmpty() ? QStringList() : uuids);
        QByteArray r = "{";
        bool first = true;
        for (const char *name :
             {"gpu", "UUID", "device", "modelName", "GPU_I_PROFILE", "GPU_I_ID", "Hostname"}) {
            const auto it = l.constFind(QLatin1String(name));
            if (it == l.cend())
                continue;
            if (!first)
                r += ',';
            first = false;
            r += name;
            r += "=\"";
            appendLabelValue(r, *it);
            r += '"';
        }
        r += '}';
        e->text = r;
        return e->text;
    }
};

namespace {

// The card's readings as one series set (no MIG instances to report).
Entity cardEntity(const Sched::ClusterState &st,
                  const Sched::CardState &c,
                  const CardSample &cs,
                  const QByteArray &labels)
{
    Entity e;
    e.labels = labels;
    const Domain::CardModel &m = st.model(c);
    const double util = cs.utilisation;
    e.value[GpuUtil] = c.mode == PartitionMode::Mig ? kNaN : 100.0 * util;
    e.value[FbUsed] = double(cs.memoryUsedMiB);
    e.value[FbFree] = double(std::max<qint64>(0, cs.memoryTotalMiB - cs.memoryUsedMiB));
    e.value[GpuTemp] = cs.temperatureC;
    e.value[PowerUsage] = cs.powerW;
    e.value[SmClock] = m.maxSmClockMHz > 0 && !std::isnan(cs.clockFactor)
                               ? std::round(m.maxSmClockMHz * cs.clockFactor)
                               : kNaN;
    e.value[GrEngineActive] = util;
    // Busy time of no class (processes Zhaoxi did not start) counts as no tensor work.
    e.value[PipeTensorActive]
            = std::isnan(util)
                      ? kNaN
                      : MetricsModel::kTensorActiveTraining * cs.trainingUtilisation
                                + MetricsModel::kTensorActiveInference * cs.inferenceUtilisation;
    return e;
}

// Appends one series set per MIG instance of `c` (skipping those still being created: the
// driver does not have them yet).
void instanceEntities(const Sched::ClusterState &st,
                      const Sched::CardState &c,
                      const CardSample &cs,
                      const std::vector<QByteArray> &labels,
                      std::vector<Entity> *out)
{
    const Domain::CardModel &m = st.model(c);
    // The card's busy time is shared over its busy instances by compute size, each capped at
    // fully busy: on the twin that is each busy instance's own busy share. A real MIG card has
    // no utilisation (NaN) unless its processes' were measured, which the class split holds.
    double util = cs.utilisation;
    if (std::isnan(util) && cs.utilisationMeasuredPerProcess)
        util = cs.trainingUtilisation + cs.inferenceUtilisation;
    double busyCompute = 0;
    qint64 boundMemory = 0;
    for (const Sched::Unit &u : c.units) {
        if (u.profile < 0 || u.state == Sched::UnitState::Creating)
            continue;
        if (cs.busyUnits.contains(u.uid))
            busyCompute += st.unitMilli(c, u) / 1000.0;
        if (u.job.isValid())
            boundMemory += u.memoryMiB;
    }
    const double activity = busyCompute > 0 ? std::min(1.0, util / busyCompute) : 0.0;
    const double clock = m.maxSmClockMHz > 0 && !std::isnan(cs.clockFactor)
                                 ? std::round(m.maxSmClockMHz * cs.clockFactor)
                                 : kNaN;
    std::size_t k = 0;
    for (const Sched::Unit &u : c.units) {
        if (u.profile < 0 || u.state == Sched::UnitState::Creating)
            continue;
        Entity e;
        e.labels = labels[k++];
        const qint64 size = m.migProfiles[u.profile].memoryMiB;
        // The card's used memory over the bound instances by size (the twin's used memory is
        // exactly what they hold); an idle instance holds none.
        const double used
                = u.job.isValid() && boundMemory > 0
                          ? std::min(double(size),
                                     std::round(double(cs.memoryUsedMiB) * double(u.memoryMiB)
                                                / double(boundMemory)))
                          : 0.0;
        const bool busy = cs.busyUnits.contains(u.uid);
        const double gr = std::isnan(util) ? kNaN : (busy ? activity : 0.0);
        e.value[GpuUtil] = kNaN; // not available per MIG instance on real hardware either
        e.value[FbUsed] = used;
        e.value[FbFree] = double(size) - used;
        e.value[GpuTemp] = cs.temperatureC;
        e.value[PowerUsage] = cs.powerW;
        e.value[SmClock] = clock;
        e.value[GrEngineActive] = gr;
        e.value[PipeTensorActive] = std::isnan(gr) || !u.job.isValid()
                                            ? gr
                                            : gr * tensorShare(st.job(u.job).spec.kind);
        out->push_back(e);
    }
}

const char *className(WorkloadKind k)
{
    switch (k) {
    case WorkloadKind::Training:
        return "training";
    case WorkloadKind::Inference:
        return "inference";
    case WorkloadKind::Batch:
        return "batch";
    }
    return "batch";
}

double cardsOf(qint64 milli)
{
    return milli < 0 ? kInf : double(milli) / 1000.0;
}

void renderZhaoxi(QByteArray &out, const Snapshot *s, const MetricCounters &counters)
{
    header(out,
           "zhaoxi_snapshots_total",
           "Snapshots of the appliance the exporter has observed.",
           "counter");
    sample(out, "zhaoxi_snapshots_total", {}, double(counters.snapshots));
    header(out,
           "zhaoxi_preemptions_total",
           "Jobs chosen as victims of a preempting job (job-preempting events).",
           "counter");
    sample(out, "zhaoxi_preemptions_total", {}, double(counters.preemptions));
    header(out,
           "zhaoxi_evictions_total",
           "Jobs taken off their units before their end, for any reason (job-evicted events).",
           "counter");
    sample(out, "zhaoxi_evictions_total", {}, double(counters.evictions));
    header(out,
           "zhaoxi_reconfigurations_total",
           "Reconfiguration steps: MIG instances created and destroyed, card mode changes.",
           "counter");
    sample(out,
           "zhaoxi_reconfigurations_total",
           "{step=\"create\"}",
           double(counters.partitionsCreated));
    sample(out,
           "zhaoxi_reconfigurations_total",
           "{step=\"destroy\"}",
           double(counters.partitionsDestroyed));
    sample(out, "zhaoxi_reconfigurations_total", "{step=\"mode\"}", double(counters.modeChanges));
    header(out,
           "zhaoxi_window_switches_total",
           "Changes of the time window in force (window-opened events).",
           "counter");
    sample(out, "zhaoxi_window_switches_total", {}, double(counters.windowSwitches));
    if (!s)
        return;

    header(out,
           "zhaoxi_appliance_info",
           "The appliance, the colocation policy and the time window in force (always 1).",
           "gauge");
    sample(out,
           "zhaoxi_appliance_info",
           labelBlock({{"appliance", s->applianceName},
                       {"policy", s->policy},
                       {"window", s->window},
                       {"simulated", s->simulated ? u"true" : u"false"}}),
           1);
    header(out,
           "zhaoxi_snapshot_timestamp_seconds",
           "The appliance's time of the latest snapshot (virtual in the digital twin).",
           "gauge");
    sample(out, "zhaoxi_snapshot_timestamp_seconds", {}, double(s->nowMs) / 1000.0);
    header(out, "zhaoxi_capacity_cards", "Compute of all healthy cards, in cards.", "gauge");
    sample(out, "zhaoxi_capacity_cards", {}, cardsOf(s->state.totalMilli()));

    const Sched::ClassUsage &usage = s->state.classUsage();
    header(out,
           "zhaoxi_class_allocated_cards",
           "Compute bound to each class's jobs, in cards.",
           "gauge");
    for (WorkloadKind k : {WorkloadKind::Training, WorkloadKind::Inference, WorkloadKind::Batch}) {
        sample(out,
               "zhaoxi_class_allocated_cards",
               "{class=\"" + QByteArray(className(k)) + "\"}",
               cardsOf(usage[k]));
    }
    header(out,
           "zhaoxi_class_budget_cards",
           "Compute the colocation policy lets each class hold, in cards (+Inf: no limit).",
           "gauge");
    for (WorkloadKind k : {WorkloadKind::Training, WorkloadKind::Inference, WorkloadKind::Batch}) {
        sample(out,
               "zhaoxi_class_budget_cards",
               "{class=\"" + QByteArray(className(k)) + "\"}",
               cardsOf(s->budget.forKind(k)));
    }
    double busyTraining = 0, busyInference = 0;
    for (const CardSample &cs : s->cards) {
        if (cs.lost)
            continue;
        if (!std::isnan(cs.trainingUtilisation))
            busyTraining += cs.trainingUtilisation;
        if (!std::isnan(cs.inferenceUtilisation))
            busyInference += cs.inferenceUtilisation;
    }
    header(out,
           "zhaoxi_class_busy_cards",
           "Cards' worth of compute busy with each class's work (batch counts as training).",
           "gauge");
    sample(out, "zhaoxi_class_busy_cards", "{class=\"training\"}", busyTraining);
    sample(out, "zhaoxi_class_busy_cards", "{class=\"inference\"}", busyInference);
    header(out, "zhaoxi_queue_length", "Jobs waiting in the scheduler's queue.", "gauge");
    sample(out, "zhaoxi_queue_length", {}, double(s->queue.size()));

    // Services. A quantile of 0 or NaN is one the session does not have (a real appliance's
    // p50, an empty window): left out rather than shown as 0.
    std::vector<QByteArray> serviceLabels;
    serviceLabels.reserve(std::size_t(s->services.size()));
    for (const Session::ServiceSample &v : s->services)
        serviceLabels.push_back(labelBlock({{"service", v.name}}));
    const auto perService = [&](const char *name,
                                const char *help,
                                const std::function<double(const Session::ServiceSample &)> &f) {
        header(out, name, help, "gauge");
        for (qsizetype i = 0; i < s->services.size(); ++i) {
            const double v = f(s->services[i]);
            if (!std::isnan(v))
                sample(out, name, serviceLabels[std::size_t(i)], v);
        }
    };
    header(out,
           "zhaoxi_inference_latency_seconds",
           "Inference request latency quantiles over the policies' sliding window (in s).",
           "gauge");
    for (qsizetype i = 0; i < s->services.size(); ++i) {
        const Session::ServiceSample &v = s->services[i];
        QByteArray l = serviceLabels[std::size_t(i)];
        l.chop(1);
        if (v.p50Ms > 0)
            sample(out,
                   "zhaoxi_inference_latency_seconds",
                   l + ",quantile=\"0.5\"}",
                   v.p50Ms / 1000.0);
        if (v.p99Ms > 0)
            sample(out,
                   "zhaoxi_inference_latency_seconds",
                   l + ",quantile=\"0.99\"}",
                   v.p99Ms / 1000.0);
    }
    perService(
            "zhaoxi_inference_slo_seconds",
            "The service's p99 latency objective (in s).",
            [](const Session::ServiceSample &v) { return v.sloMs > 0 ? v.sloMs / 1000.0 : kNaN; });
    perService("zhaoxi_inference_slo_attainment_ratio",
               "Share of the service's requests within its SLO.",
               [](const Session::ServiceSample &v) { return v.attainment; });
    perService("zhaoxi_inference_requests_per_second",
               "Inference requests served per second.",
               [](const Session::ServiceSample &v) { return v.ratePerS; });
    perService("zhaoxi_inference_replicas",
               "Replicas serving.",
               [](const Session::ServiceSample &v) { return double(v.replicas); });
    perService("zhaoxi_inference_replicas_target",
               "Replicas the policy wants.",
               [](const Session::ServiceSample &v) { return double(v.targetReplicas); });

    // Training jobs: the twin measures speed in reference cards of work, a real job reports
    // samples per second; each goes under the name of its unit.
    std::vector<QByteArray> jobLabels;
    jobLabels.reserve(std::size_t(s->training.size()));
    for (const Session::TrainingSample &t : s->training) {
        jobLabels.push_back(
                labelBlock({{"job_id", QString::number(t.job.value())}, {"name", t.name}}));
    }
    const auto perJob = [&](const char *name,
                            const char *help,
                            const std::function<double(const Session::TrainingSample &)> &f) {
        header(out, name, help, "gauge");
        for (qsizetype i = 0; i < s->training.size(); ++i) {
            const double v = f(s->training[i]);
            if (std::isfinite(v))
                sample(out, name, jobLabels[std::size_t(i)], v);
        }
    };
    if (s->simulated) {
        perJob("zhaoxi_training_speed_reference_cards",
               "Training speed in reference cards of work per second of time (0: not running).",
               [](const Session::TrainingSample &t) { return t.speed; });
    } else {
        perJob("zhaoxi_training_throughput_samples_per_second",
               "Training throughput as the job reports it (samples/s; 0: not running).",
               [](const Session::TrainingSample &t) { return t.speed; });
    }
    perJob("zhaoxi_training_progress_ratio",
           "Share of the job's work done.",
           [](const Session::TrainingSample &t) { return t.workHours > 0 ? t.progress : kNaN; });
    perJob("zhaoxi_training_loss",
           "Training loss, as last reported.",
           [](const Session::TrainingSample &t) { return t.loss; });
}

QByteArray render(const Snapshot *s,
                  const MetricCounters &counters,
                  const QStringList &uuids,
                  ExpositionLabels &labels)
{
    QByteArray out;
    if (!s) {
        renderZhaoxi(out, nullptr, counters);
        return out;
    }
    const Sched::ClusterState &st = s->state;
    std::vector<Entity> entities;
    entities.reserve(std::size_t(s->cards.size()) * 8);
    std::vector<QByteArray> unitLabels;
    for (const CardSample &cs : s->cards) {
        if (cs.lost || cs.card < 0 || cs.card >= st.cards().size())
            continue;
        const Sched::CardState &c = st.card(Domain::CardId(cs.card));
        unitLabels.clear();
        if (c.mode == PartitionMode::Mig) {
            for (const Sched::Unit &u : c.units) {
                if (u.profile >= 0 && u.state != Sched::UnitState::Creating)
                    unitLabels.push_back(labels.labels(st, c, &u, uuids));
            }
        }
        if (unitLabels.empty())
            entities.push_back(cardEntity(st, c, cs, labels.labels(st, c, nullptr, uuids)));
        else
            instanceEntities(st, c, cs, unitLabels, &entities);
    }
    // About 200 bytes a sample: a label set is most of it.
    out.reserve(qsizetype(entities.size()) * DcgmCount * 200 + 8192);
    for (int f = 0; f < DcgmCount; ++f) {
        header(out, kDcgm[f].name, kDcgm[f].help, "gauge");
        for (const Entity &e : entities) {
            if (!std::isnan(e.value[f]))
                sample(out, kDcgm[f].name, e.labels, e.value[f]);
        }
    }
    renderZhaoxi(out, s, counters);
    return out;
}

} // namespace

namespace {

void countEvent(const Storage::Event &e, MetricCounters *counters)
{
    const QByteArray &code = e.code;
    if (code == "job-preempting") {
        // A requeue at a checkpoint marks its job leaving too, with no preemptor: that is the
        // policy's or the operator's doing, not a preemption.
        if (QJsonDocument::fromJson(e.params).object().contains(QLatin1String("other")))
            ++counters->preemptions;
    } else if (code == "job-evicted") {
        ++counters->evictions;
    } else if (code == "partition-created") {
        ++counters->partitionsCreated;
    } else if (code == "partition-destroyed") {
        ++counters->partitionsDestroyed;
    } else if (code == "card-mode-changed") {
        ++counters->modeChanges;
    } else if (code == "window-opened") {
        // Not "window-switch": that one announces the next window ahead of its edge.
        ++counters->windowSwitches;
    }
}

} // namespace

void countEvents(const QList<Storage::Event> &events, MetricCounters *counters)
{
    for (const Storage::Event &e : events)
        countEvent(e, counters);
}

QByteArray renderExposition(const Snapshot &snapshot,
                            const MetricCounters &counters,
                            const QStringList &cardUuids)
{
    ExpositionLabels labels;
    return render(&snapshot, counters, cardUuids, labels);
}

MetricsExporter::MetricsExporter()
    : m_labels(std::make_unique<ExpositionLabels>())
{}

MetricsExporter::~MetricsExporter() = default;

void MetricsExporter::setCardUuids(QStringList uuids)
{
    m_uuids = std::move(uuids);
}

void MetricsExporter::observe(Session::SnapshotPtr snapshot)
{
    if (!snapshot)
        return;
    count(*snapshot);
    m_latest = std::move(snapshot);
}

void MetricsExporter::observe(const Snapshot &snapshot)
{
    observe(std::make_shared<const Snapshot>(snapshot));
}

void MetricsExporter::count(const Snapshot &snapshot)
{
    // A session that starts again numbers its snapshots (and its store its events) anew.
    if (m_counters.snapshots > 0 && snapshot.serial < m_lastSerial)
        m_lastEventId = 0;
    if (m_counters.snapshots == 0 || snapshot.serial != m_lastSerial)
        ++m_counters.snapshots;
    m_lastSerial = snapshot.serial;
    for (const Storage::Event &e : snapshot.events) {
        // Id 0: an event no store numbered (counted whenever seen).
        if (e.id != 0 && e.id <= m_lastEventId)
            continue;
        countEvent(e, &m_counters);
        m_lastEventId = std::max(m_lastEventId, e.id);
    }
}

QByteArray MetricsExporter::render() const
{
    return Service::render(m_latest.get(), m_counters, m_uuids, *m_labels);
}

} // namespace Zhaoxi::Service
