// SPDX-License-Identifier: GPL-3.0-or-later
#include "consolecodec.h"

#include "protocol.h"

#include "core/catalogue/layoutrules.h"
#include "core/storage/statecodec.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>

namespace Zhaoxi::Service {

using Session::Snapshot;

namespace {

// NaN (not available) travels as null and comes back as NaN.
QJsonValue number(double v)
{
    return std::isfinite(v) ? QJsonValue(v) : QJsonValue();
}

double numberOr(const QJsonValue &v, double missing)
{
    return v.isDouble() ? v.toDouble() : missing;
}

qint64 int64(const QJsonValue &v, qint64 fallback = 0)
{
    return v.isDouble() ? qint64(v.toDouble()) : fallback;
}

} // namespace

QJsonObject unitSampleJson(const Session::UnitSample &u)
{
    QJsonArray processes;
    for (const Session::UnitProcess &p : u.processes)
        processes.append(QJsonObject{{QStringLiteral("pid"), qint64(p.pid)},
                                     {QStringLiteral("name"), p.name},
                                     {QStringLiteral("memory_mib"), p.memoryMiB},
                                     {QStringLiteral("job"), p.job}});
    return {{QStringLiteral("uid"), u.uid},
            {QStringLiteral("utilisation"), number(u.utilisation)},
            {QStringLiteral("memory_used_mib"), u.memoryUsedMiB},
            {QStringLiteral("processes"), processes}};
}

Session::UnitSample unitSampleFromJson(const QJsonObject &o)
{
    Session::UnitSample u;
    u.uid = o.value(QStringLiteral("uid")).toInt(-1);
    u.utilisation = numberOr(o.value(QStringLiteral("utilisation")), std::nan(""));
    u.memoryUsedMiB = int64(o.value(QStringLiteral("memory_used_mib")), -1);
    for (const QJsonValue &v : o.value(QStringLiteral("processes")).toArray()) {
        const QJsonObject p = v.toObject();
        u.processes.append(Session::UnitProcess{quint32(int64(p.value(QStringLiteral("pid")))),
                                                p.value(QStringLiteral("name")).toString(),
                                                int64(p.value(QStringLiteral("memory_mib")), -1),
                                                p.value(QStringLiteral("job")).toInt(-1)});
    }
    return u;
}

namespace {

QJsonObject sampleJson(const Session::CardSample &m)
{
    QJsonArray busy;
    for (int uid : m.busyUnits)
        busy.append(uid);
    QJsonArray units;
    for (const Session::UnitSample &u : m.units)
        units.append(unitSampleJson(u));
    return {{QStringLiteral("card"), m.card},
            {QStringLiteral("lost"), m.lost},
            {QStringLiteral("utilisation"), number(m.utilisation)},
            {QStringLiteral("training_utilisation"), number(m.trainingUtilisation)},
            {QStringLiteral("inference_utilisation"), number(m.inferenceUtilisation)},
            {QStringLiteral("memory_used_mib"), m.memoryUsedMiB},
            {QStringLiteral("memory_total_mib"), m.memoryTotalMiB},
            {QStringLiteral("training_memory_mib"), m.trainingMemoryMiB},
            {QStringLiteral("inference_memory_mib"), m.inferenceMemoryMiB},
            {QStringLiteral("other_memory_mib"), m.otherMemoryMiB},
            {QStringLiteral("other_processes"), m.otherProcesses},
            {QStringLiteral("measured_per_process"), m.utilisationMeasuredPerProcess},
            {QStringLiteral("temperature_c"), number(m.temperatureC)},
            {QStringLiteral("power_w"), number(m.powerW)},
            {QStringLiteral("power_limit_w"), number(m.powerLimitW)},
            {QStringLiteral("throttled"), m.throttled},
            {QStringLiteral("clock_factor"), number(m.clockFactor)},
            {QStringLiteral("busy_units"), busy},
            {QStringLiteral("units"), units}};
}

Session::CardSample sampleFromJson(const QJsonObject &o)
{
    const double nan = std::nan("");
    Session::CardSample m;
    m.card = o.value(QStringLiteral("card")).toInt(-1);
    m.lost = o.value(QStringLiteral("lost")).toBool();
    m.utilisation = numberOr(o.value(QStringLiteral("utilisation")), nan);
    m.trainingUtilisation = numberOr(o.value(QStringLiteral("training_utilisation")), nan);
    m.inferenceUtilisation = numberOr(o.value(QStringLiteral("inference_utilisation")), nan);
    m.memoryUsedMiB = int64(o.value(QStringLiteral("memory_used_mib")));
    m.memoryTotalMiB = int64(o.value(QStringLiteral("memory_total_mib")));
    m.trainingMemoryMiB = int64(o.value(QStringLiteral("training_memory_mib")), -1);
    m.inferenceMemoryMiB = int64(o.value(QStringLiteral("inference_memory_mib")), -1);
    m.otherMemoryMiB = int64(o.value(QStringLiteral("other_memory_mib")), -1);
    m.otherProcesses = o.value(QStringLiteral("other_processes")).toInt();
    m.utilisationMeasuredPerProcess = o.value(QStringLiteral("measured_per_process")).toBool();
    m.temperatureC = numberOr(o.value(QStringLiteral("temperature_c")), nan);
    m.powerW = numberOr(o.value(QStringLiteral("power_w")), nan);
    m.powerLimitW = numberOr(o.value(QStringLiteral("power_limit_w")), nan);
    m.throttled = o.value(QStringLiteral("throttled")).toBool();
    m.clockFactor = numberOr(o.value(QStringLiteral("clock_factor")), nan);
    for (const QJsonValue &v : o.value(QStringLiteral("busy_units")).toArray())
        m.busyUnits.append(v.toInt());
    for (const QJsonValue &v : o.value(QStringLiteral("units")).toArray())
        m.units.append(unitSampleFromJson(v.toObject()));
    return m;
}

QJsonObject serviceJson(const Session::ServiceSample &v)
{
    return {{QStringLiteral("index"), v.index},
            {QStringLiteral("name"), v.name},
            {QStringLiteral("slo_ms"), number(v.sloMs)},
            {QStringLiteral("p50_ms"), number(v.p50Ms)},
            {QStringLiteral("p99_ms"), number(v.p99Ms)},
            {QStringLiteral("rate_per_s"), number(v.ratePerS)},
            {QStringLiteral("attainment"), number(v.attainment)},
            {QStringLiteral("replicas"), v.replicas},
            {QStringLiteral("target_replicas"), v.targetReplicas},
            {QStringLiteral("min_replicas"), v.minReplicas},
            {QStringLiteral("max_replicas"), v.maxReplicas}};
}

Session::ServiceSample serviceFromJson(const QJsonObject &o)
{
    const double nan = std::nan("");
    Session::ServiceSample v;
    v.index = o.value(QStringLiteral("index")).toInt();
    v.name = o.value(QStringLiteral("name")).toString();
    v.sloMs = numberOr(o.value(QStringLiteral("slo_ms")), nan);
    v.p50Ms = numberOr(o.value(QStringLiteral("p50_ms")), nan);
    v.p99Ms = numberOr(o.value(QStringLiteral("p99_ms")), nan);
    v.ratePerS = numberOr(o.value(QStringLiteral("rate_per_s")), nan);
    v.attainment = numberOr(o.value(QStringLiteral("attainment")), nan);
    v.replicas = o.value(QStringLiteral("replicas")).toInt();
    v.targetReplicas = o.value(QStringLiteral("target_replicas")).toInt();
    v.minReplicas = o.value(QStringLiteral("min_replicas")).toInt();
    v.maxReplicas = o.value(QStringLiteral("max_replicas")).toInt();
    return v;
}

QJsonObject trainingJson(const Session::TrainingSample &t)
{
    return {{QStringLiteral("job"), t.job.value()},
            {QStringLiteral("name"), t.name},
            {QStringLiteral("speed"), number(t.speed)},
            {QStringLiteral("loss"), number(t.loss)},
            {QStringLiteral("progress"), number(t.progress)},
            {QStringLiteral("done_hours"), number(t.doneHours)},
            {QStringLiteral("work_hours"), number(t.workHours)},
            {QStringLiteral("lost_hours"), number(t.lostHours)},
            {QStringLiteral("completed"), t.completed}};
}

Session::TrainingSample trainingFromJson(const QJsonObject &o)
{
    const double nan = std::nan("");
    Session::TrainingSample t;
    t.job = Domain::JobId(o.value(QStringLiteral("job")).toInt(-1));
    t.name = o.value(QStringLiteral("name")).toString();
    t.speed = numberOr(o.value(QStringLiteral("speed")), nan);
    t.loss = numberOr(o.value(QStringLiteral("loss")), nan);
    t.progress = numberOr(o.value(QStringLiteral("progress")), nan);
    t.doneHours = numberOr(o.value(QStringLiteral("done_hours")), nan);
    t.workHours = numberOr(o.value(QStringLiteral("work_hours")), nan);
    t.lostHours = numberOr(o.value(QStringLiteral("lost_hours")), nan);
    t.completed = o.value(QStringLiteral("completed")).toBool();
    return t;
}

QJsonArray externalJobsJson(const QList<Session::ExternalJob> &jobs)
{
    QJsonArray out;
    for (const Session::ExternalJob &j : jobs) {
        out.append(QJsonObject{{QStringLiteral("job"), j.job},
                               {QStringLiteral("id"), j.id},
                               {QStringLiteral("state"), j.state},
                               {QStringLiteral("reason"), j.reason},
                               {QStringLiteral("user"), j.user},
                               {QStringLiteral("partition"), j.partition},
                               {QStringLiteral("qos"), j.qos},
                               {QStringLiteral("nodes"), QJsonArray::fromStringList(j.nodes)},
                               {QStringLiteral("restarts"), j.restarts}});
    }
    return out;
}

Session::ExternalJob externalJobFromJson(const QJsonObject &o)
{
    Session::ExternalJob j;
    j.job = o.value(QStringLiteral("job")).toInt(-1);
    j.id = o.value(QStringLiteral("id")).toInteger();
    j.state = o.value(QStringLiteral("state")).toString();
    j.reason = o.value(QStringLiteral("reason")).toString();
    j.user = o.value(QStringLiteral("user")).toString();
    j.partition = o.value(QStringLiteral("partition")).toString();
    j.qos = o.value(QStringLiteral("qos")).toString();
    for (const QJsonValue &v : o.value(QStringLiteral("nodes")).toArray())
        j.nodes << v.toString();
    j.restarts = o.value(QStringLiteral("restarts")).toInt();
    return j;
}

QJsonObject topologyJson(const Sched::ClusterState &state)
{
    QJsonArray hosts;
    for (const Sched::HostState &h : state.hosts()) {
        QJsonArray cards;
        for (int i = 0; i < h.cardCount; ++i) {
            const Sched::CardState &c = state.cards()[h.firstCard + i];
            cards.append(QJsonObject{{QStringLiteral("model"), state.model(c).name},
                                     {QStringLiteral("link_domain"), c.linkDomain}});
        }
        hosts.append(QJsonObject{{QStringLiteral("name"), h.name},
                                 {QStringLiteral("cpu_milli"), h.cpuMilli},
                                 {QStringLiteral("memory_mib"), h.memoryMiB},
                                 {QStringLiteral("cards"), cards}});
    }
    return {{QStringLiteral("hosts"), hosts}};
}

// The appliance's hosts and cards, each card in the mode its layout has (restoreState lays the
// units out on it).
bool stateFromTopology(const QJsonObject &topology,
                       const QJsonObject &layouts,
                       const Catalogue::Catalogue &catalogue,
                       Sched::ClusterState *state,
                       QString *error)
{
    *state = Sched::ClusterState(catalogue);
    const QJsonArray layoutCards = layouts.value(QStringLiteral("cards")).toArray();
    int card = 0;
    for (const QJsonValue &hv : topology.value(QStringLiteral("hosts")).toArray()) {
        const QJsonObject h = hv.toObject();
        const Sched::HostId host = state->addHost(h.value(QStringLiteral("name")).toString(),
                                                  int64(h.value(QStringLiteral("cpu_milli"))),
                                                  int64(h.value(QStringLiteral("memory_mib"))));
        for (const QJsonValue &cv : h.value(QStringLiteral("cards")).toArray()) {
            const QString model = cv[QStringLiteral("model")].toString();
            const int index = catalogue.indexOf(model);
            if (index < 0) {
                *error = QStringLiteral("topology: card %1 is a %2, a model this console does not "
                                        "know")
                                 .arg(card)
                                 .arg(model);
                return false;
            }
            Domain::PartitionMode mode = Domain::PartitionMode::Whole;
            Domain::partitionModeFromString(layoutCards.at(card)[QStringLiteral("mode")].toString(),
                                            &mode);
            state->addCard(host, index, mode, cv[QStringLiteral("link_domain")].toInt());
            ++card;
        }
    }
    if (card != layoutCards.size()) {
        *error = QStringLiteral("topology: %1 cards, the layouts %2")
                         .arg(card)
                         .arg(layoutCards.size());
        return false;
    }
    return true;
}

Sched::ClassBudget budgetFromJson(const QJsonValue &v)
{
    Sched::ClassBudget b;
    b.trainingMilli = int64(v[QStringLiteral("training_milli")], -1);
    b.inferenceMilli = int64(v[QStringLiteral("inference_milli")], -1);
    b.batchMilli = int64(v[QStringLiteral("batch_milli")], -1);
    return b;
}

} // namespace

QByteArray consolePicture(const Snapshot &s, PictureCache *cache)
{
    QJsonArray cordoned, queue, samples, services, training;
    for (const Sched::CardState &c : s.state.cards())
        if (c.heldForRepartition) // an operator's cordon travels in the layouts document
            cordoned.append(c.id.value());
    for (Domain::JobId j : s.queue)
        queue.append(j.value());
    for (const Session::CardSample &m : s.cards)
        samples.append(sampleJson(m));
    for (const Session::ServiceSample &v : s.services)
        services.append(serviceJson(v));
    for (const Session::TrainingSample &t : s.training)
        training.append(trainingJson(t));
    const QJsonObject o{{QStringLiteral("serial"), qint64(s.serial)},
                        {QStringLiteral("now_ms"), s.nowMs},
                        {QStringLiteral("start_ms"), s.startMs},
                        {QStringLiteral("end_ms"), s.endMs},
                        {QStringLiteral("utc_offset_s"), s.utcOffsetSeconds},
                        {QStringLiteral("speed"), s.speed},
                        {QStringLiteral("paused"), s.paused},
                        {QStringLiteral("finished"), s.finished},
                        {QStringLiteral("simulated"), s.simulated},
                        {QStringLiteral("read_only"), s.readOnly},
                        {QStringLiteral("read_only_reason"), s.readOnlyProblem.english()},
                        {QStringLiteral("read_only_problem"), problemJson(s.readOnlyProblem)},
                        {QStringLiteral("appliance"), s.applianceName},
                        {QStringLiteral("policy"), s.policy},
                        {QStringLiteral("window"), s.window},
                        {QStringLiteral("topology"), topologyJson(s.state)},
                        {QStringLiteral("cordoned"), cordoned},
                        {QStringLiteral("queue"), queue},
                        {QStringLiteral("budget"), budgetJson(s.budget)},
                        {QStringLiteral("samples"), samples},
                        {QStringLiteral("services"), services},
                        {QStringLiteral("training"), training},
                        {QStringLiteral("external_scheduler"), s.externalScheduler},
                        {QStringLiteral("external_jobs"), externalJobsJson(s.externalJobs)}};
    // The store's documents go in as the codec writes them: not parsed only to be written again.
    QByteArray text = QJsonDocument(o).toJson(QJsonDocument::Compact);
    text.chop(1); // the closing brace
    if (cache) {
        const bool sameCards = !cache->layouts.isEmpty()
                               && cache->cards.constData() == s.state.cards().constData()
                               && cache->hosts.constData() == s.state.hosts().constData();
        if (!sameCards) {
            cache->cards = s.state.cards();
            cache->hosts = s.state.hosts();
            cache->layouts = Storage::layoutsToJson(s.state);
        }
        if (cache->queue.isEmpty() || cache->jobs.constData() != s.state.jobs().constData()) {
            cache->jobs = s.state.jobs();
            cache->queue = Storage::queueToJson(s.state);
        }
        text += ",\"layouts\":" + cache->layouts;
        text += ",\"jobs\":" + cache->queue;
    } else {
        text += ",\"layouts\":" + Storage::layoutsToJson(s.state);
        text += ",\"jobs\":" + Storage::queueToJson(s.state);
    }
    text += '}';
    return text;
}

QByteArray consolePushLine(const QByteArray &picture,
                           const QList<Storage::Event> &events,
                           const QList<Sched::DecisionTrace> &traces)
{
    QJsonArray eventList;
    for (const Storage::Event &e : events)
        eventList.append(eventJson(e));
    QByteArray line = "{\"push\":\"console\",\"console\":";
    line += picture;
    line.chop(1);
    line += ",\"events\":" + QJsonDocument(eventList).toJson(QJsonDocument::Compact);
    line += ",\"traces\":[";
    for (qsizetype i = 0; i < traces.size(); ++i) {
        if (i > 0)
            line += ',';
        line += Storage::decisionTraceToJson(traces[i]);
    }
    line += "]}}\n";
    return line;
}

QJsonObject consoleJson(const Snapshot &s,
                        const QList<Storage::Event> &events,
                        const QList<Sched::DecisionTrace> &traces)
{
    const QByteArray line = consolePushLine(consolePicture(s), events, traces);
    return QJsonDocument::fromJson(line).object().value(QStringLiteral("console")).toObject();
}

std::optional<Snapshot> snapshotFromConsoleJson(const QJsonObject &o,
                                                const Catalogue::Catalogue &catalogue,
                                                QString *error)
{
    Snapshot s;
    s.serial = quint64(int64(o.value(QStringLiteral("serial"))));
    s.nowMs = int64(o.value(QStringLiteral("now_ms")));
    s.startMs = int64(o.value(QStringLiteral("start_ms")));
    s.endMs = int64(o.value(QStringLiteral("end_ms")), -1);
    s.utcOffsetSeconds = o.value(QStringLiteral("utc_offset_s")).toInt();
    s.speed = o.value(QStringLiteral("speed")).toDouble(1);
    s.paused = o.value(QStringLiteral("paused")).toBool();
    s.finished = o.value(QStringLiteral("finished")).toBool();
    s.simulated = o.value(QStringLiteral("simulated")).toBool(true);
    s.readOnly = o.value(QStringLiteral("read_only")).toBool();
    s.readOnlyProblem = problemFromJson(o.value(QStringLiteral("read_only_problem")),
                                        o.value(QStringLiteral("read_only_reason")).toString());
    s.applianceName = o.value(QStringLiteral("appliance")).toString();
    s.policy = o.value(QStringLiteral("policy")).toString();
    s.window = o.value(QStringLiteral("window")).toString();

    const QJsonObject layouts = o.value(QStringLiteral("layouts")).toObject();
    if (!stateFromTopology(o.value(QStringLiteral("topology")).toObject(),
                           layouts,
                           catalogue,
                           &s.state,
                           error))
        return std::nullopt;
    QString why;
    if (!Storage::restoreState(s.state,
                               QJsonDocument(layouts).toJson(QJsonDocument::Compact),
                               QJsonDocument(o.value(QStringLiteral("jobs")).toObject())
                                       .toJson(QJsonDocument::Compact),
                               &why)) {
        *error = why;
        return std::nullopt;
    }
    for (const QJsonValue &v : o.value(QStringLiteral("cordoned")).toArray()) {
        const int card = v.toInt(-1);
        if (card < 0 || card >= s.state.cards().size()) {
            *error = QStringLiteral("cordoned: no card %1").arg(card);
            return std::nullopt;
        }
        s.state.setCardCordoned(Domain::CardId(card), true);
    }
    for (const QJsonValue &v : o.value(QStringLiteral("queue")).toArray()) {
        const int job = v.toInt(-1);
        if (job < 0 || job >= s.state.jobs().size()) {
            *error = QStringLiteral("queue: no job %1").arg(job);
            return std::nullopt;
        }
        s.queue.append(Domain::JobId(job));
    }
    s.budget = budgetFromJson(o.value(QStringLiteral("budget")));
    for (const QJsonValue &v : o.value(QStringLiteral("samples")).toArray())
        s.cards.append(sampleFromJson(v.toObject()));
    if (s.cards.size() != s.state.cards().size()) {
        *error = QStringLiteral("samples: %1 for %2 cards")
                         .arg(s.cards.size())
                         .arg(s.state.cards().size());
        return std::nullopt;
    }
    for (const QJsonValue &v : o.value(QStringLiteral("services")).toArray())
        s.services.append(serviceFromJson(v.toObject()));
    for (const QJsonValue &v : o.value(QStringLiteral("training")).toArray())
        s.training.append(trainingFromJson(v.toObject()));
    s.externalScheduler = o.value(QStringLiteral("external_scheduler")).toString();
    for (const QJsonValue &v : o.value(QStringLiteral("external_jobs")).toArray()) {
        const Session::ExternalJob j = externalJobFromJson(v.toObject());
        if (j.job < 0 || j.job >= s.state.jobs().size()) {
            *error = QStringLiteral("external_jobs: no job %1").arg(j.job);
            return std::nullopt;
        }
        s.externalJobs.append(j);
    }
    for (const QJsonValue &v : o.value(QStringLiteral("events")).toArray()) {
        const auto e = eventFromJson(v.toObject(), &why);
        if (!e) {
            *error = QStringLiteral("events: %1").arg(why);
            return std::nullopt;
        }
        s.events.append(*e);
    }
    for (const QJsonValue &v : o.value(QStringLiteral("traces")).toArray()) {
        const auto t = Storage::decisionTraceFromJson(v.toObject(), &why);
        if (!t) {
            *error = QStringLiteral("traces: %1").arg(why);
            return std::nullopt;
        }
        s.traces.append(*t);
    }
    return s;
}

std::optional<Storage::Event> eventFromJson(const QJsonObject &o, QString *error)
{
    Storage::Event e;
    e.id = int64(o.value(QStringLiteral("id")));
    e.atMs = int64(o.value(QStringLiteral("at_ms")));
    const auto severity
            = Storage::severityFromString(o.value(QStringLiteral("severity")).toString());
    const auto source = Storage::sourceFromString(o.value(QStringLiteral("source")).toString());
    if (!severity || !source) {
        *error = QStringLiteral("event %1: unknown %2")
                         .arg(e.id)
                         .arg(severity ? QStringLiteral("source") : QStringLiteral("severity"));
        return std::nullopt;
    }
    e.severity = *severity;
    e.source = *source;
    e.code = o.value(QStringLiteral("code")).toString().toLatin1();
    e.card = o.value(QStringLiteral("card")).toInt(-1);
    e.partition = o.value(QStringLiteral("partition")).toInt(-1);
    e.job = o.value(QStringLiteral("job")).toInt(-1);
    e.actor = o.value(QStringLiteral("actor")).toString();
    const QJsonObject params = o.value(QStringLiteral("params")).toObject();
    if (!params.isEmpty())
        e.params = QJsonDocument(params).toJson(QJsonDocument::Compact);
    return e;
}

Session::CommandResult commandResultFromAnswer(const QJsonObject &answer)
{
    Session::CommandResult r;
    r.ok = answer.value(QStringLiteral("ok")).toBool();
    const QJsonObject body
            = answer.value(r.ok ? QStringLiteral("result") : QStringLiteral("error")).toObject();
    if (!r.ok) {
        // The service's own English as it came, beside its code.
        r.error = body.value(QStringLiteral("message")).toString();
        if (r.error.isEmpty())
            Session::setProblem(r, Domain::Problem(Domain::Problem::Code::ServiceGaveNoReason));
        else
            r.problem = problemFromJson(body.value(QStringLiteral("problem")), r.error);
    }
    r.field = body.value(QStringLiteral("field")).toString();
    r.job = Domain::JobId(body.value(QStringLiteral("job")).toInt(-1));
    r.planChanged = !r.ok && body.value(QStringLiteral("plan_changed")).toBool(false);
    QString why;
    if (const auto status
        = Storage::statusFromJson(body.value(QStringLiteral("status")).toObject(), &why))
        r.status = *status;
    return r;
}

namespace {

// An "outcome", "status" and "victims" of a placement preview (or of its "over_budget").
void readPlacementOption(const QJsonObject &o,
                         Session::PlacementPreview::Outcome *outcome,
                         Sched::Status *status,
                         QList<Sched::Victim> *victims,
                         QStringList *names)
{
    const QString text = o.value(QStringLiteral("outcome")).toString();
    *outcome = text == QLatin1String("direct") ? Session::PlacementPreview::Outcome::Direct
               : text == QLatin1String("needs-preemption")
                       ? Session::PlacementPreview::Outcome::NeedsPreemption
                       : Session::PlacementPreview::Outcome::Refused;
    QString why;
    if (const auto s = Storage::statusFromJson(o.value(QStringLiteral("status")).toObject(), &why))
        *status = *s;
    for (const QJsonValue &v : o.value(QStringLiteral("victims")).toArray()) {
        victims->append({Domain::JobId(v[QStringLiteral("job")].toInt(-1)),
                         v[QStringLiteral("priority")].toInt(),
                         int64(v[QStringLiteral("lost_work_ms")]),
                         int64(v[QStringLiteral("evict_at_ms")])});
        names->append(v[QStringLiteral("name")].toString());
    }
}

} // namespace

Session::PlacementPreview placementPreviewFromJson(const QJsonObject &o,
                                                   const Sched::ClusterState *state)
{
    Session::PlacementPreview p;
    p.job = Domain::JobId(o.value(QStringLiteral("job")).toInt(-1));
    p.card = Domain::CardId(o.value(QStringLiteral("card")).toInt(-1));
    readPlacementOption(o, &p.outcome, &p.status, &p.victims, &p.victimNames);
    if (o.value(QStringLiteral("over_budget")).isObject())
        readPlacementOption(o.value(QStringLiteral("over_budget")).toObject(),
                            &p.overBudget,
                            &p.overBudgetStatus,
                            &p.overBudgetVictims,
                            &p.overBudgetVictimNames);
    p.startsAtMs = int64(o.value(QStringLiteral("starts_at_ms")), -1);
    p.startsWithWindow = o.value(QStringLiteral("starts_with_window")).toString();
    // The layout that would let it run, read with that card's model (none without one: the
    // hint is left out rather than guessed).
    const QJsonObject fit = o.value(QStringLiteral("layout_fit")).toObject();
    const int layoutCard = fit.value(QStringLiteral("card")).toInt(-1);
    if (state && layoutCard >= 0 && layoutCard < state->cards().size()) {
        QString why;
        const auto target = layoutFromJson(fit.value(QStringLiteral("layout")).toArray(),
                                           state->model(state->card(Domain::CardId(layoutCard))),
                                           &why);
        if (target && !target->isEmpty()) {
            p.layoutCard = Domain::CardId(layoutCard);
            p.layoutTarget = *target;
        }
    }
    return p;
}

namespace {

Device::ActionReason actionReasonFromString(const QString &text)
{
    for (int r = 0; r <= int(Device::ActionReason::Drain); ++r) {
        if (text == QLatin1String(Device::toString(Device::ActionReason(r))))
            return Device::ActionReason(r);
    }
    return Device::ActionReason::None;
}

} // namespace

Session::SchedulePreview schedulePreviewFromJson(const QJsonObject &o)
{
    Session::SchedulePreview p;
    p.ok = o.value(QStringLiteral("ok")).toBool();
    p.error = o.value(QStringLiteral("error")).toString();
    p.problem = problemFromJson(o.value(QStringLiteral("problem")), p.error);
    p.field = o.value(QStringLiteral("field")).toString();
    p.nowMs = int64(o.value(QStringLiteral("now_ms")));
    p.policyBefore = o.value(QStringLiteral("policy_before")).toString();
    p.windowBefore = o.value(QStringLiteral("window_before")).toString();
    p.policyAfter = o.value(QStringLiteral("policy_after")).toString();
    p.windowAfter = o.value(QStringLiteral("window_after")).toString();
    p.budgetBefore = budgetFromJson(o.value(QStringLiteral("budget_before")));
    p.budgetAfter = budgetFromJson(o.value(QStringLiteral("budget_after")));
    for (const QJsonValue &v : o.value(QStringLiteral("evictions")).toArray()) {
        Policy::PolicyPlan::Eviction e;
        e.job = Domain::JobId(v[QStringLiteral("job")].toInt(-1));
        e.atCheckpoint = v[QStringLiteral("at_checkpoint")].toBool();
        e.leavesAtMs = int64(v[QStringLiteral("leaves_at_ms")]);
        e.lostMs = int64(v[QStringLiteral("lost_work_ms")]);
        e.why = actionReasonFromString(v[QStringLiteral("reason")].toString());
        p.evictions.append(e);
        p.evictionNames.append(v[QStringLiteral("name")].toString());
    }
    for (const QJsonValue &v : o.value(QStringLiteral("services")).toArray()) {
        Policy::PolicyPlan::ServiceChange c;
        c.service = v[QStringLiteral("service")].toInt();
        c.name = v[QStringLiteral("name")].toString();
        c.replicasBefore = v[QStringLiteral("replicas_before")].toInt();
        c.replicasAfter = v[QStringLiteral("replicas_after")].toInt();
        c.sloMs = v[QStringLiteral("slo_ms")].toDouble();
        c.observedRate = v[QStringLiteral("observed_rate")].toDouble();
        const QJsonValue p99 = v[QStringLiteral("p99_after_ms")];
        c.p99AfterMs = p99.isDouble() ? p99.toDouble() : INFINITY;
        c.atRisk = v[QStringLiteral("at_risk")].toBool();
        p.services.append(c);
    }
    for (const QJsonValue &v : o.value(QStringLiteral("moved_replicas")).toArray())
        p.movedReplicas.append(Domain::JobId(v.toInt(-1)));
    for (const QJsonValue &v : o.value(QStringLiteral("reservations")).toArray()) {
        Session::SchedulePreview::Reservation r;
        r.action = v[QStringLiteral("action")].toString();
        r.name = v[QStringLiteral("name")].toString();
        r.window = v[QStringLiteral("window")].toString();
        for (const QJsonValue &n : v[QStringLiteral("nodes")].toArray())
            r.nodes << n.toString();
        r.cards = v[QStringLiteral("cards")].toInt();
        r.startMs = int64(v[QStringLiteral("start_ms")]);
        r.durationS = int64(v[QStringLiteral("duration_s")]);
        for (const QJsonValue &f : v[QStringLiteral("flags")].toArray())
            r.flags << f.toString();
        r.partition = v[QStringLiteral("partition")].toString();
        p.reservations.append(r);
    }
    return p;
}

Session::LayoutPreview layoutPreviewFromJson(const QJsonObject &o, const Domain::CardModel *model)
{
    Session::LayoutPreview p;
    p.card = Domain::CardId(o.value(QStringLiteral("card")).toInt(-1));
    p.ok = o.value(QStringLiteral("ok")).toBool();
    p.error = o.value(QStringLiteral("error")).toString();
    p.problem = problemFromJson(o.value(QStringLiteral("problem")), p.error);
    for (const QJsonValue &v : o.value(QStringLiteral("layout")).toArray()) {
        QString why;
        const auto placement
                = model ? Catalogue::parsePlacement(*model, v.toString(), &why) : std::nullopt;
        if (placement)
            p.target.append(*placement);
    }
    p.destroys = o.value(QStringLiteral("destroys")).toInt();
    p.creates = o.value(QStringLiteral("creates")).toInt();
    for (const QJsonValue &v : o.value(QStringLiteral("affected_jobs")).toArray())
        p.affectedJobs.append(Domain::JobId(v.toInt(-1)));
    p.expectedMs = int64(o.value(QStringLiteral("expected_ms")));
    return p;
}

Session::JobLog jobLogFromJson(const QJsonObject &o)
{
    Session::JobLog l;
    l.job = Domain::JobId(o.value(QStringLiteral("job")).toInt(-1));
    l.ok = o.value(QStringLiteral("ok")).toBool();
    l.error = o.value(QStringLiteral("error")).toString();
    l.problem = problemFromJson(o.value(QStringLiteral("problem")), l.error);
    l.path = o.value(QStringLiteral("path")).toString();
    l.text = o.value(QStringLiteral("text")).toString();
    l.truncated = o.value(QStringLiteral("truncated")).toBool();
    return l;
}

} // namespace Zhaoxi::Service
