// SPDX-License-Identifier: GPL-3.0-or-later
#include "protocol.h"

#include "consolecodec.h"

#include "core/catalogue/layoutrules.h"
#include "core/storage/statecodec.h"

#include <QJsonDocument>

#include <cmath>

namespace Zhaoxi::Service {

using Session::Snapshot;

const QList<CommandInfo> &commands()
{
    static const QList<CommandInfo> list = {
            {"hello", false, "{\"client\": NAME}: the service, the protocol, who you are"},
            {"help", false, "the commands"},
            {"snapshot", false, "{\"state\": BOOL}: the appliance now"},
            {"cards", false, "every card, its units and readings"},
            {"jobs", false, "every job"},
            {"events", false, "{\"after_id\": N, \"limit\": N}: stored events, oldest first"},
            {"history",
             false,
             "{\"from_ms\": T, \"to_ms\": T}: the store's card and partition series (the "
             "charts' last 25 h by default)"},
            {"subscribe",
             false,
             "{\"snapshots\": BOOL, \"events\": BOOL, \"interval_ms\": N, "
             "\"state\": BOOL, \"console\": BOOL, \"history\": N}: pushes from now on"},
            {"unsubscribe", false, "no more pushes"},
            {"schedule-get", false, "the windows schedule in force"},
            {"job-log", false, "{\"job\": N, \"max_bytes\": N}: the last bytes of a job's log"},
            {"preview-placement",
             false,
             "{\"job\": N, \"card\": N}: could it go there, at what cost"},
            {"preview-layout", false, "{\"card\": N, \"layout\": [\"3g.40gb@0\", ...]}"},
            {"preview-schedule",
             false,
             "{\"schedule\": {...}}: what setting it would do now (policy, budget, evictions, "
             "replicas)"},
            {"audit-verify", false, "is the operator audit chain intact"},
            {"submit", true, "{\"spec\": {...}}: a workload (docs/workload-spec.md)"},
            {"cancel", true, "{\"job\": N}"},
            {"requeue", true, "{\"job\": N}"},
            {"priority", true, "{\"job\": N, \"priority\": N}"},
            {"place",
             true,
             "{\"job\": N, \"card\": N, \"preempt\": BOOL, \"victims\": [N, ...]}: with "
             "victims, refused (plan_changed) unless the appliance would preempt exactly those"},
            {"layout-apply",
             true,
             "{\"card\": N, \"layout\": [...], \"drain_deadline_ms\": N}: "
             "immediate without a deadline, drained with one"},
            {"schedule-set",
             true,
             "{\"schedule\": {...}, \"victims\": [N, ...]}: the windows policy's parameters; "
             "with victims, refused (plan_changed) unless it would take off exactly those jobs"},
            {"layout-pin",
             true,
             "{\"card\": N, \"until_ms\": N | \"for_ms\": N}: the scheduler never changes the "
             "card's layout by itself; until unpinned without either"},
            {"layout-unpin", true, "{\"card\": N}"},
            {"card-cordon",
             true,
             "{\"card\": N, \"drain\": BOOL}: the card takes no new work; with drain, what "
             "runs on it goes back to the queue (training at its checkpoint)"},
            {"card-uncordon", true, "{\"card\": N}"},
    };
    return list;
}

const CommandInfo *findCommand(QStringView name)
{
    for (const CommandInfo &c : commands()) {
        if (name == QLatin1String(c.name))
            return &c;
    }
    return nullptr;
}

QJsonObject okAnswer(const QJsonValue &id, const QJsonObject &result)
{
    return {{QStringLiteral("id"), id},
            {QStringLiteral("ok"), true},
            {QStringLiteral("result"), result}};
}

QJsonObject errorAnswer(const QJsonValue &id,
                        const char *code,
                        const QString &message,
                        const QString &field)
{
    QJsonObject e{{QStringLiteral("code"), QLatin1String(code)},
                  {QStringLiteral("message"), message}};
    if (!field.isEmpty())
        e.insert(QStringLiteral("field"), field);
    return {{QStringLiteral("id"), id},
            {QStringLiteral("ok"), false},
            {QStringLiteral("error"), e}};
}

QByteArray encodeLine(const QJsonObject &message)
{
    QByteArray line = QJsonDocument(message).toJson(QJsonDocument::Compact);
    line += '\n';
    return line;
}

namespace {

// NaN and infinities are not JSON: "not available" is null.
QJsonValue number(double v)
{
    return std::isfinite(v) ? QJsonValue(v) : QJsonValue();
}

QJsonValue jobValue(Domain::JobId job)
{
    return job.isValid() ? QJsonValue(job.value()) : QJsonValue();
}

} // namespace

QJsonArray cardsJson(const Snapshot &s)
{
    QJsonArray out;
    const Sched::ClusterState &st = s.state;
    const auto &models = st.catalogue().models();
    for (const Sched::CardState &c : st.cards()) {
        const Domain::CardModel &model = models[c.model];
        QJsonArray units;
        for (const Sched::Unit &u : c.units) {
            QJsonObject uo{{QStringLiteral("uid"), u.uid},
                           {QStringLiteral("milli"), u.milli},
                           {QStringLiteral("memory_mib"), u.memoryMiB},
                           {QStringLiteral("job"), jobValue(u.job)},
                           {QStringLiteral("ready"), u.state == Sched::UnitState::Ready}};
            if (u.profile >= 0) {
                uo.insert(QStringLiteral("profile"), model.migProfiles[u.profile].name);
                uo.insert(QStringLiteral("start"), u.start);
            }
            units.append(uo);
        }
        QJsonObject co{{QStringLiteral("card"), c.id.value()},
                       {QStringLiteral("host"), st.hosts()[c.host.value()].name},
                       {QStringLiteral("index_on_host"), c.indexOnHost},
                       {QStringLiteral("model"), model.name},
                       {QStringLiteral("mode"), Domain::toString(c.mode)},
                       {QStringLiteral("health"), QLatin1String(Sched::toString(c.health))},
                       {QStringLiteral("cordoned"), c.cordoned},
                       {QStringLiteral("cordoned_by_operator"), c.operatorCordoned},
                       // 0: not pinned; -1: until unpinned; else the appliance time it ends
                       {QStringLiteral("pinned_until_ms"), c.layoutPinnedUntilMs},
                       {QStringLiteral("units"), units}};
        if (c.id.value() < s.cards.size()) {
            const Session::CardSample &m = s.cards[c.id.value()];
            co.insert(QStringLiteral("lost"), m.lost);
            co.insert(QStringLiteral("utilisation"), number(m.utilisation));
            co.insert(QStringLiteral("training_utilisation"), number(m.trainingUtilisation));
            co.insert(QStringLiteral("inference_utilisation"), number(m.inferenceUtilisation));
            co.insert(QStringLiteral("memory_used_mib"), m.memoryUsedMiB);
            co.insert(QStringLiteral("memory_total_mib"), m.memoryTotalMiB);
            co.insert(QStringLiteral("temperature_c"), number(m.temperatureC));
            co.insert(QStringLiteral("power_w"), number(m.powerW));
            co.insert(QStringLiteral("power_limit_w"), number(m.powerLimitW));
            co.insert(QStringLiteral("clock_factor"), number(m.clockFactor));
            co.insert(QStringLiteral("throttled"), m.throttled);
            QJsonArray busy;
            for (int uid : m.busyUnits)
                busy.append(uid);
            co.insert(QStringLiteral("busy_units"), busy);
            // Each unit's readings beside its layout entry (the sample lists the card's units
            // in the same order).
            QJsonArray withReadings;
            for (qsizetype k = 0; k < units.size(); ++k) {
                QJsonObject uo = units[k].toObject();
                if (k < m.units.size() && m.units[k].uid == c.units[k].uid) {
                    const QJsonObject reading = unitSampleJson(m.units[k]);
                    for (auto it = reading.begin(); it != reading.end(); ++it)
                        uo.insert(it.key(), it.value());
                }
                withReadings.append(uo);
            }
            co.insert(QStringLiteral("units"), withReadings);
        }
        out.append(co);
    }
    return out;
}

QJsonArray jobsJson(const Snapshot &s)
{
    QJsonArray out;
    for (const Sched::Job &j : s.state.jobs()) {
        QJsonArray units;
        for (const Sched::Assignment &a : j.assignments)
            units.append(QJsonObject{{QStringLiteral("card"), a.card.value()},
                                     {QStringLiteral("uid"), a.unitUid}});
        QJsonObject jo{{QStringLiteral("job"), j.id.value()},
                       {QStringLiteral("name"), j.spec.name},
                       {QStringLiteral("kind"), Domain::toString(j.spec.kind)},
                       {QStringLiteral("state"), QLatin1String(Sched::toString(j.state))},
                       {QStringLiteral("priority"), j.spec.priority},
                       {QStringLiteral("submitted_ms"), j.submittedMs},
                       {QStringLiteral("started_ms"), j.startedMs},
                       {QStringLiteral("ended_ms"), j.endedMs},
                       {QStringLiteral("work_done_ms"), j.workDoneMs},
                       {QStringLiteral("lost_work_ms"), j.lostWorkMs},
                       {QStringLiteral("preemptions"), j.preemptions},
                       {QStringLiteral("over_budget"), j.overBudget},
                       {QStringLiteral("units"), units}};
        if (j.spec.inference)
            jo.insert(QStringLiteral("service"), j.spec.inference->service);
        out.append(jo);
    }
    return out;
}

QJsonObject snapshotJson(const Snapshot &s, bool withState)
{
    QJsonArray queue;
    for (Domain::JobId j : s.queue)
        queue.append(j.value());
    QJsonArray services;
    for (const Session::ServiceSample &v : s.services)
        services.append(QJsonObject{{QStringLiteral("service"), v.name},
                                    {QStringLiteral("slo_ms"), number(v.sloMs)},
                                    {QStringLiteral("p50_ms"), number(v.p50Ms)},
                                    {QStringLiteral("p99_ms"), number(v.p99Ms)},
                                    {QStringLiteral("rate_per_s"), number(v.ratePerS)},
                                    {QStringLiteral("attainment"), number(v.attainment)},
                                    {QStringLiteral("replicas"), v.replicas},
                                    {QStringLiteral("target_replicas"), v.targetReplicas},
                                    {QStringLiteral("min_replicas"), v.minReplicas},
                                    {QStringLiteral("max_replicas"), v.maxReplicas}});
    QJsonArray training;
    for (const Session::TrainingSample &t : s.training)
        training.append(QJsonObject{{QStringLiteral("job"), jobValue(t.job)},
                                    {QStringLiteral("name"), t.name},
                                    {QStringLiteral("speed"), number(t.speed)},
                                    {QStringLiteral("loss"), number(t.loss)},
                                    {QStringLiteral("progress"), number(t.progress)},
                                    {QStringLiteral("lost_hours"), number(t.lostHours)},
                                    {QStringLiteral("completed"), t.completed}});
    QJsonObject o{{QStringLiteral("serial"), qint64(s.serial)},
                  {QStringLiteral("now_ms"), s.nowMs},
                  {QStringLiteral("start_ms"), s.startMs},
                  {QStringLiteral("end_ms"), s.endMs},
                  {QStringLiteral("utc_offset_s"), s.utcOffsetSeconds},
                  {QStringLiteral("appliance"), s.applianceName},
                  {QStringLiteral("simulated"), s.simulated},
                  {QStringLiteral("read_only"), s.readOnly},
                  {QStringLiteral("read_only_reason"), s.readOnlyProblem.english()},
                  {QStringLiteral("read_only_problem"), problemJson(s.readOnlyProblem)},
                  {QStringLiteral("policy"), s.policy},
                  {QStringLiteral("window"), s.window},
                  {QStringLiteral("cards"), cardsJson(s)},
                  {QStringLiteral("jobs"), jobsJson(s)},
                  {QStringLiteral("queue"), queue},
                  {QStringLiteral("services"), services},
                  {QStringLiteral("training"), training},
                  {QStringLiteral("budget"), budgetJson(s.budget)}};
    if (withState)
        o.insert(QStringLiteral("state"),
                 QJsonObject{{QStringLiteral("layouts"),
                              QJsonDocument::fromJson(Storage::layoutsToJson(s.state)).object()},
                             {QStringLiteral("queue"),
                              QJsonDocument::fromJson(Storage::queueToJson(s.state)).object()}});
    return o;
}

QJsonObject eventJson(const Storage::Event &e)
{
    QJsonObject o{
            {QStringLiteral("id"), e.id},
            {QStringLiteral("at_ms"), e.atMs},
            {QStringLiteral("severity"), QLatin1String(Storage::toString(e.severity))},
            {QStringLiteral("source"), QLatin1String(Storage::toString(e.source))},
            {QStringLiteral("code"), QString::fromLatin1(e.code)},
            {QStringLiteral("card"), e.card >= 0 ? QJsonValue(e.card) : QJsonValue()},
            {QStringLiteral("partition"),
             e.partition >= 0 ? QJsonValue(e.partition) : QJsonValue()},
            {QStringLiteral("job"), e.job >= 0 ? QJsonValue(e.job) : QJsonValue()},
            {QStringLiteral("params"),
             e.params.isEmpty() ? QJsonObject() : QJsonDocument::fromJson(e.params).object()}};
    if (!e.actor.isEmpty())
        o.insert(QStringLiteral("actor"), e.actor);
    return o;
}

QJsonObject problemJson(const Domain::Problem &problem)
{
    QJsonObject o{{QStringLiteral("code"), QLatin1String(Domain::problemCodeName(problem.code))}};
    if (!problem.args.isEmpty())
        o.insert(QStringLiteral("args"), QJsonArray::fromStringList(problem.args));
    return o;
}

Domain::Problem problemFromJson(const QJsonValue &json, const QString &english)
{
    const QJsonObject o = json.toObject();
    const Domain::Problem::Code code
            = Domain::problemCodeFromName(o.value(QStringLiteral("code")).toString());
    if (code == Domain::Problem::Code::Count || code == Domain::Problem::Code::None)
        return Domain::Problem::text(english);
    QStringList args;
    for (const QJsonValue &a : o.value(QStringLiteral("args")).toArray())
        args.append(a.toString());
    return Domain::Problem(code, args);
}

QJsonObject commandResultJson(const Session::CommandResult &r)
{
    QJsonObject o{{QStringLiteral("ok"), r.ok}};
    if (!r.error.isEmpty())
        o.insert(QStringLiteral("error"), r.error);
    if (!r.problem.isNone())
        o.insert(QStringLiteral("problem"), problemJson(r.problem));
    if (!r.field.isEmpty())
        o.insert(QStringLiteral("field"), r.field);
    if (r.job.isValid())
        o.insert(QStringLiteral("job"), r.job.value());
    if (!r.status.isSuccess())
        o.insert(QStringLiteral("reason"), QLatin1String(Sched::reasonCode(r.status.reason)));
    o.insert(QStringLiteral("status"), Storage::statusToJson(r.status));
    return o;
}

namespace {

QLatin1String outcomeName(Session::PlacementPreview::Outcome outcome)
{
    switch (outcome) {
    case Session::PlacementPreview::Outcome::Direct:
        return QLatin1String("direct");
    case Session::PlacementPreview::Outcome::NeedsPreemption:
        return QLatin1String("needs-preemption");
    case Session::PlacementPreview::Outcome::Refused:
        break;
    }
    return QLatin1String("refused");
}

QJsonArray victimsJson(const QList<Sched::Victim> &victims, const QStringList &names)
{
    QJsonArray out;
    for (qsizetype i = 0; i < victims.size(); ++i)
        out.append(QJsonObject{{QStringLiteral("job"), victims[i].job.value()},
                               {QStringLiteral("name"), names.value(i)},
                               {QStringLiteral("priority"), victims[i].priority},
                               {QStringLiteral("lost_work_ms"), victims[i].lostWorkMs},
                               {QStringLiteral("evict_at_ms"), victims[i].evictAtMs}});
    return out;
}

} // namespace

QJsonObject placementPreviewJson(const Session::PlacementPreview &p,
                                 const Sched::ClusterState *state)
{
    QJsonObject o{{QStringLiteral("job"), jobValue(p.job)},
                  {QStringLiteral("card"), p.card.value()},
                  {QStringLiteral("outcome"), outcomeName(p.outcome)},
                  {QStringLiteral("status"), Storage::statusToJson(p.status)},
                  {QStringLiteral("victims"), victimsJson(p.victims, p.victimNames)}};
    if (p.outcome == Session::PlacementPreview::Outcome::Refused) {
        o.insert(QStringLiteral("reason"), QLatin1String(Sched::reasonCode(p.status.reason)));
        o.insert(QStringLiteral("message"), p.status.describe());
        if (p.startsAtMs >= 0) {
            o.insert(QStringLiteral("starts_at_ms"), p.startsAtMs);
            o.insert(QStringLiteral("starts_with_window"), p.startsWithWindow);
        }
        if (p.status.reason == Sched::Reason::ClassBudgetExceeded)
            o.insert(QStringLiteral("over_budget"),
                     QJsonObject{
                             {QStringLiteral("outcome"), outcomeName(p.overBudget)},
                             {QStringLiteral("status"), Storage::statusToJson(p.overBudgetStatus)},
                             {QStringLiteral("victims"),
                              victimsJson(p.overBudgetVictims, p.overBudgetVictimNames)}});
        if (p.layoutCard.isValid() && state && p.layoutCard.value() < state->cards().size()) {
            const Domain::CardModel &model = state->model(state->card(p.layoutCard));
            o.insert(QStringLiteral("layout_fit"),
                     QJsonObject{{QStringLiteral("card"), p.layoutCard.value()},
                                 {QStringLiteral("layout"), layoutJson(&model, p.layoutTarget)}});
        }
    }
    return o;
}

QJsonObject budgetJson(const Sched::ClassBudget &b)
{
    return {{QStringLiteral("training_milli"), b.trainingMilli},
            {QStringLiteral("inference_milli"), b.inferenceMilli},
            {QStringLiteral("batch_milli"), b.batchMilli}};
}

QJsonObject schedulePreviewJson(const Session::SchedulePreview &p)
{
    QJsonArray evictions, services, moved;
    for (qsizetype i = 0; i < p.evictions.size(); ++i) {
        const Policy::PolicyPlan::Eviction &e = p.evictions[i];
        evictions.append(QJsonObject{{QStringLiteral("job"), e.job.value()},
                                     {QStringLiteral("name"), p.evictionNames.value(i)},
                                     {QStringLiteral("at_checkpoint"), e.atCheckpoint},
                                     {QStringLiteral("leaves_at_ms"), e.leavesAtMs},
                                     {QStringLiteral("lost_work_ms"), e.lostMs},
                                     {QStringLiteral("reason"), QLatin1String(toString(e.why))}});
    }
    for (const Policy::PolicyPlan::ServiceChange &c : p.services)
        services.append(
                QJsonObject{{QStringLiteral("service"), c.service},
                            {QStringLiteral("name"), c.name},
                            {QStringLiteral("replicas_before"), c.replicasBefore},
                            {QStringLiteral("replicas_after"), c.replicasAfter},
                            {QStringLiteral("slo_ms"), c.sloMs},
                            {QStringLiteral("observed_rate"), c.observedRate},
                            {QStringLiteral("p99_after_ms"),
                             std::isfinite(c.p99AfterMs) ? QJsonValue(c.p99AfterMs) : QJsonValue()},
                            {QStringLiteral("at_risk"), c.atRisk}});
    for (Domain::JobId j : p.movedReplicas)
        moved.append(j.value());
    QJsonObject o{{QStringLiteral("ok"), p.ok},
                  {QStringLiteral("now_ms"), p.nowMs},
                  {QStringLiteral("policy_before"), p.policyBefore},
                  {QStringLiteral("window_before"), p.windowBefore},
                  {QStringLiteral("budget_before"), budgetJson(p.budgetBefore)}};
    if (!p.ok) {
        o.insert(QStringLiteral("error"), p.error);
        if (!p.problem.isNone())
            o.insert(QStringLiteral("problem"), problemJson(p.problem));
        if (!p.field.isEmpty())
            o.insert(QStringLiteral("field"), p.field);
        return o;
    }
    o.insert(QStringLiteral("policy_after"), p.policyAfter);
    o.insert(QStringLiteral("window_after"), p.windowAfter);
    if (!p.reservations.isEmpty()) {
        QJsonArray reservations;
        for (const Session::SchedulePreview::Reservation &r : p.reservations)
            reservations.append(
                    QJsonObject{{QStringLiteral("action"), r.action},
                                {QStringLiteral("name"), r.name},
                                {QStringLiteral("window"), r.window},
                                {QStringLiteral("nodes"), QJsonArray::fromStringList(r.nodes)},
                                {QStringLiteral("cards"), r.cards},
                                {QStringLiteral("start_ms"), r.startMs},
                                {QStringLiteral("duration_s"), r.durationS},
                                {QStringLiteral("flags"), QJsonArray::fromStringList(r.flags)},
                                {QStringLiteral("partition"), r.partition}});
        o.insert(QStringLiteral("reservations"), reservations);
    }
    o.insert(QStringLiteral("budget_after"), budgetJson(p.budgetAfter));
    o.insert(QStringLiteral("evictions"), evictions);
    o.insert(QStringLiteral("services"), services);
    o.insert(QStringLiteral("moved_replicas"), moved);
    o.insert(QStringLiteral("needs_confirmation"), p.needsConfirmation());
    return o;
}

QJsonArray layoutJson(const Domain::CardModel *model, const QList<Domain::MigPlacement> &layout)
{
    QJsonArray out;
    for (const Domain::MigPlacement &m : layout)
        out.append(model ? Catalogue::formatPlacement(*model, m)
                         : QStringLiteral("#%1@%2").arg(m.profile).arg(m.start));
    return out;
}

std::optional<QList<Domain::MigPlacement>> layoutFromJson(const QJsonArray &layout,
                                                          const Domain::CardModel &model,
                                                          QString *error)
{
    QList<Domain::MigPlacement> out;
    for (const QJsonValue &p : layout) {
        if (!p.isString()) {
            *error = QStringLiteral("\"layout\" must be an array of PROFILE@START strings");
            return std::nullopt;
        }
        QString why;
        const auto placement = Catalogue::parsePlacement(model, p.toString(), &why);
        if (!placement) {
            *error = why;
            return std::nullopt;
        }
        out.append(*placement);
    }
    return out;
}

QJsonObject layoutPreviewJson(const Session::LayoutPreview &p, const Domain::CardModel *model)
{
    QJsonArray affected;
    const QJsonArray target = layoutJson(model, p.target);
    for (Domain::JobId j : p.affectedJobs)
        affected.append(j.value());
    QJsonObject o{{QStringLiteral("card"), p.card.value()},
                  {QStringLiteral("ok"), p.ok},
                  {QStringLiteral("layout"), target},
                  {QStringLiteral("destroys"), p.destroys},
                  {QStringLiteral("creates"), p.creates},
                  {QStringLiteral("affected_jobs"), affected},
                  {QStringLiteral("expected_ms"), p.expectedMs}};
    if (!p.error.isEmpty())
        o.insert(QStringLiteral("error"), p.error);
    if (!p.problem.isNone())
        o.insert(QStringLiteral("problem"), problemJson(p.problem));
    return o;
}

QJsonObject jobLogJson(const Session::JobLog &l)
{
    QJsonObject o{{QStringLiteral("job"), jobValue(l.job)},
                  {QStringLiteral("ok"), l.ok},
                  {QStringLiteral("path"), l.path},
                  {QStringLiteral("text"), l.text},
                  {QStringLiteral("truncated"), l.truncated}};
    if (!l.error.isEmpty())
        o.insert(QStringLiteral("error"), l.error);
    if (!l.problem.isNone())
        o.insert(QStringLiteral("problem"), problemJson(l.problem));
    return o;
}

std::optional<qint64> intArgument(const QJsonObject &request,
                                  const QString &name,
                                  QString *error,
                                  std::optional<qint64> fallback)
{
    const QJsonValue v = request.value(name);
    if (v.isUndefined() && fallback)
        return fallback;
    if (v.isUndefined()) {
        *error = QStringLiteral("\"%1\" is required").arg(name);
        return std::nullopt;
    }
    const double d = v.toDouble(std::nan(""));
    if (!v.isDouble() || !std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9.0e15) {
        *error = QStringLiteral("\"%1\" must be an integer").arg(name);
        return std::nullopt;
    }
    return qint64(d);
}

std::optional<QList<Domain::MigPlacement>> layoutArgument(const QJsonObject &request,
                                                          const Domain::CardModel &model,
                                                          QString *error)
{
    const QJsonValue v = request.value(QStringLiteral("layout"));
    if (!v.isArray()) {
        *error = QStringLiteral("\"layout\" must be an array of PROFILE@START strings");
        return std::nullopt;
    }
    return layoutFromJson(v.toArray(), model, error);
}

bool cardLayoutArguments(const QJsonObject &request,
                         const Session::Snapshot *snapshot,
                         int *card,
                         QList<Domain::MigPlacement> *layout,
                         QString *error,
                         QString *field)
{
    *field = QStringLiteral("card");
    const auto c = intArgument(request, QStringLiteral("card"), error);
    if (!c)
        return false;
    if (!snapshot || *c < 0 || *c >= snapshot->state.cards().size()) {
        *error = QStringLiteral("no card %1").arg(*c);
        return false;
    }
    *card = int(*c);
    const auto &model = snapshot->state.catalogue()
                                .models()[snapshot->state.card(Domain::CardId(*card)).model];
    *field = QStringLiteral("layout");
    const auto l = layoutArgument(request, model, error);
    if (!l)
        return false;
    *layout = *l;
    return true;
}

namespace {

QJsonObject jobBrief(const Session::Snapshot &s, int job)
{
    if (job < 0 || job >= s.state.jobs().size())
        return {};
    const Sched::Job &j = s.state.job(Domain::JobId(job));
    QJsonArray units;
    for (const Sched::Assignment &a : j.assignments)
        units.append(QJsonObject{{QStringLiteral("card"), a.card.value()},
                                 {QStringLiteral("uid"), a.unitUid}});
    return {{QStringLiteral("job"), job},
            {QStringLiteral("name"), j.spec.name},
            {QStringLiteral("state"), QLatin1String(Sched::toString(j.state))},
            {QStringLiteral("priority"), j.spec.priority},
            {QStringLiteral("units"), units}};
}

QJsonArray layoutOf(const Session::Snapshot &s, int card)
{
    if (card < 0 || card >= s.state.cards().size())
        return {};
    const Sched::CardState &c = s.state.card(Domain::CardId(card));
    QList<Domain::MigPlacement> layout;
    for (const Sched::Unit &u : c.units) {
        if (u.profile >= 0)
            layout.append({u.profile, u.start});
    }
    return layoutJson(&s.state.model(c), layout);
}

} // namespace

QJsonObject subjectStateJson(
        const Snapshot &s, const QString &command, int card, int job, const QJsonObject &schedule)
{
    if (command == QLatin1String("layout-apply"))
        return {{QStringLiteral("card"), card}, {QStringLiteral("layout"), layoutOf(s, card)}};
    if (command == QLatin1String("layout-pin") || command == QLatin1String("layout-unpin")) {
        const bool known = card >= 0 && card < s.state.cards().size();
        return {{QStringLiteral("card"), card},
                {QStringLiteral("layout"), layoutOf(s, card)},
                {QStringLiteral("pinned_until_ms"),
                 known ? s.state.card(Domain::CardId(card)).layoutPinnedUntilMs : 0}};
    }
    if (command == QLatin1String("card-cordon") || command == QLatin1String("card-uncordon")) {
        const bool known = card >= 0 && card < s.state.cards().size();
        QJsonArray jobs;
        if (known) {
            for (const Domain::JobId j : s.state.jobsOn(Domain::CardId(card)))
                jobs.append(j.value());
        }
        return {{QStringLiteral("card"), card},
                {QStringLiteral("cordoned"),
                 known && s.state.card(Domain::CardId(card)).operatorCordoned},
                {QStringLiteral("jobs"), jobs}};
    }
    if (command == QLatin1String("schedule-set"))
        return schedule;
    return jobBrief(s, job);
}

QJsonObject scheduleInForceJson(const QJsonObject &schedule, const Snapshot *s)
{
    return {{QStringLiteral("schedule"), schedule.isEmpty() ? QJsonValue() : QJsonValue(schedule)},
            {QStringLiteral("policy"), s ? s->policy : QString()},
            {QStringLiteral("window"), s ? s->window : QString()}};
}

QJsonObject changeAuditParams(const QJsonObject &asked,
                              const QJsonObject &before,
                              const QJsonObject &after,
                              const Session::CommandResult &r)
{
    QJsonObject params{{QStringLiteral("asked"), asked},
                       {QStringLiteral("ok"), r.ok},
                       {QStringLiteral("before"), before},
                       {QStringLiteral("after"), after}};
    if (!r.ok) {
        params.insert(QStringLiteral("refused"), r.error);
        if (!r.field.isEmpty())
            params.insert(QStringLiteral("field"), r.field);
    }
    return params;
}

} // namespace Zhaoxi::Service
