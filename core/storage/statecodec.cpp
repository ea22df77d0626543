// SPDX-License-Identifier: GPL-3.0-or-later
#include "statecodec.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace Zhaoxi::Storage {

using namespace Sched;

QJsonArray jobIdsToJson(const QList<int> &jobs)
{
    QJsonArray out;
    for (int j : jobs)
        out.append(j);
    return out;
}

QJsonObject statusToJson(const Status &s)
{
    return QJsonObject{{QStringLiteral("code"), QLatin1String(statusCodeName(s.code))},
                       {QStringLiteral("reason"), QLatin1String(reasonCode(s.reason))},
                       {QStringLiteral("need"), s.need},
                       {QStringLiteral("have"), s.have}};
}

namespace {

const char *unitStateName(UnitState s)
{
    switch (s) {
    case UnitState::Ready:
        return "ready";
    case UnitState::Creating:
        return "creating";
    case UnitState::Destroying:
        return "destroying";
    }
    return "ready";
}

template<typename E, size_t N>
bool fromName(const QString &text, const E (&values)[N], const char *(*name)(E), E *out)
{
    for (E v : values) {
        if (text == QLatin1String(name(v))) {
            *out = v;
            return true;
        }
    }
    return false;
}

const char *healthName(CardHealth h)
{
    return toString(h);
}
const char *jobStateName(JobState s)
{
    return toString(s);
}

QJsonValue optionalMs(qint64 v)
{
    return v < 0 ? QJsonValue(qint64(-1)) : QJsonValue(v);
}

QJsonObject candidateJson(const CandidateTrace &c)
{
    QJsonArray scores;
    for (double s : c.scores)
        scores.append(s);
    QJsonObject o{{QStringLiteral("host"), c.host.value()},
                  {QStringLiteral("verdict"), statusToJson(c.verdict)},
                  {QStringLiteral("total"), c.total},
                  {QStringLiteral("rank"), c.rank},
                  {QStringLiteral("feasibleCards"), c.feasibleCards},
                  {QStringLiteral("scores"), scores}};
    if (!c.filter.isEmpty())
        o.insert(QStringLiteral("filter"), c.filter);
    return o;
}

} // namespace

QByteArray layoutsToJson(const ClusterState &state)
{
    QJsonArray cards;
    for (const CardState &c : state.cards()) {
        const CardModel &m = state.model(c);
        QJsonArray units;
        for (const Unit &u : c.units) {
            QJsonObject uo{{QStringLiteral("uid"), u.uid},
                           {QStringLiteral("start"), u.start},
                           {QStringLiteral("milli"), u.milli},
                           {QStringLiteral("memoryMiB"), u.memoryMiB},
                           {QStringLiteral("state"), QLatin1String(unitStateName(u.state))}};
            if (u.profile >= 0)
                uo.insert(QStringLiteral("profile"), m.migProfiles[u.profile].name);
            if (u.job.isValid())
                uo.insert(QStringLiteral("job"), u.job.value());
            units.append(uo);
        }
        QJsonObject co{{QStringLiteral("card"), c.id.value()},
                       {QStringLiteral("model"), m.name},
                       {QStringLiteral("mode"), Domain::toString(c.mode)},
                       {QStringLiteral("health"), QLatin1String(toString(c.health))},
                       {QStringLiteral("nextUid"), c.nextUid},
                       {QStringLiteral("units"), units}};
        if (c.layoutPinned())
            co.insert(QStringLiteral("pinnedUntilMs"), c.layoutPinnedUntilMs);
        if (c.operatorCordoned)
            co.insert(QStringLiteral("cordoned"), true);
        cards.append(co);
    }
    QJsonArray hosts;
    for (const HostState &h : state.hosts()) {
        hosts.append(QJsonObject{{QStringLiteral("host"), h.id.value()},
                                 {QStringLiteral("name"), h.name},
                                 {QStringLiteral("up"), h.up}});
    }
    return QJsonDocument(
                   QJsonObject{{QStringLiteral("cards"), cards}, {QStringLiteral("hosts"), hosts}})
            .toJson(QJsonDocument::Compact);
}

QByteArray queueToJson(const ClusterState &state)
{
    QJsonArray jobs;
    for (const Job &j : state.jobs()) {
        QJsonArray as;
        for (const Assignment &a : j.assignments)
            as.append(QJsonObject{{QStringLiteral("card"), a.card.value()},
                                  {QStringLiteral("uid"), a.unitUid}});
        QJsonObject jo{{QStringLiteral("id"), j.id.value()},
                       {QStringLiteral("spec"), Domain::workloadSpecToJson(j.spec)},
                       {QStringLiteral("state"), QLatin1String(toString(j.state))},
                       {QStringLiteral("submittedMs"), j.submittedMs},
                       {QStringLiteral("startedMs"), optionalMs(j.startedMs)},
                       {QStringLiteral("endedMs"), optionalMs(j.endedMs)},
                       {QStringLiteral("workDoneMs"), j.workDoneMs},
                       {QStringLiteral("checkpointMs"), j.checkpointMs},
                       {QStringLiteral("lostWorkMs"), j.lostWorkMs},
                       {QStringLiteral("accountedAtMs"), j.accountedAtMs},
                       {QStringLiteral("preemptions"), j.preemptions},
                       {QStringLiteral("evictAtMs"), optionalMs(j.evictAtMs)},
                       {QStringLiteral("preemptedBy"), j.preemptedBy.value()},
                       {QStringLiteral("overBudget"), j.overBudget},
                       {QStringLiteral("host"), j.host.value()},
                       {QStringLiteral("assignments"), as}};
        // An alternative shape only (issue 18): documents of jobs in their primary stay as they were.
        if (j.shape >= 0)
            jo.insert(QStringLiteral("shape"), j.shape);
        jobs.append(jo);
    }
    return QJsonDocument(QJsonObject{{QStringLiteral("jobs"), jobs}})
            .toJson(QJsonDocument::Compact);
}

bool restoreState(ClusterState &state,
                  const QByteArray &layouts,
                  const QByteArray &queue,
                  QString *error)
{
    auto fail = [&](const QString &msg) {
        if (error)
            *error = msg;
        return false;
    };
    QJsonParseError pe;
    const QJsonDocument ld = QJsonDocument::fromJson(layouts, &pe);
    if (!ld.isObject())
        return fail(QStringLiteral("layouts: not a JSON object (%1)").arg(pe.errorString()));
    const QJsonDocument qd = QJsonDocument::fromJson(queue, &pe);
    if (!qd.isObject())
        return fail(QStringLiteral("queue: not a JSON object (%1)").arg(pe.errorString()));
    if (!state.jobs().isEmpty())
        return fail(QStringLiteral("the state to restore onto already has jobs"));

    // Soft shares, by (card, recorded uid), so running jobs get their shares back.
    QHash<QPair<int, int>, QPair<int, qint64>> shares;
    static const CardHealth healths[]
            = {CardHealth::Healthy, CardHealth::Throttled, CardHealth::Failed};
    static const UnitState unitStates[]
            = {UnitState::Ready, UnitState::Creating, UnitState::Destroying};
    for (const QJsonValue &cv : ld.object().value(QStringLiteral("cards")).toArray()) {
        const QJsonObject co = cv.toObject();
        const int ci = co.value(QStringLiteral("card")).toInt(-1);
        if (ci < 0 || ci >= state.cards().size())
            return fail(QStringLiteral("layouts: card %1 is not in the appliance").arg(ci));
        const CardId card(ci);
        const CardState &cs = state.card(card);
        const CardModel &model = state.model(cs);
        if (co.value(QStringLiteral("model")).toString() != model.name)
            return fail(QStringLiteral("layouts: card %1 was a %2, the appliance has a %3")
                                .arg(ci)
                                .arg(co.value(QStringLiteral("model")).toString(), model.name));
        PartitionMode mode = PartitionMode::Whole;
        if (!Domain::partitionModeFromString(co.value(QStringLiteral("mode")).toString(), &mode))
            return fail(QStringLiteral("layouts: card %1 has an unknown mode").arg(ci));
        CardHealth health = CardHealth::Healthy;
        if (!fromName(co.value(QStringLiteral("health")).toString(), healths, healthName, &health))
            return fail(QStringLiteral("layouts: card %1 has an unknown health").arg(ci));
        if (cs.clients != 0)
            return fail(QStringLiteral("layouts: card %1 is in use").arg(ci));
        if (cs.mode == PartitionMode::Mig) {
            const QList<Unit> existing = cs.units;
            for (const Unit &u : existing)
                state.destroyPartition(card, u.uid);
        }
        if (cs.mode != mode)
            state.setMode(card, mode);
        // A whole card's one unit keeps its uid too (a card switched back to whole has a later
        // one): made again with the recorded number.
        const QJsonArray recorded = co.value(QStringLiteral("units")).toArray();
        if (mode == PartitionMode::Whole && recorded.size() == 1) {
            const int uid = recorded[0][QStringLiteral("uid")].toInt(-1);
            if (uid >= 0 && state.card(card).units.value(0).uid != uid) {
                state.setMode(card, PartitionMode::TimeSlicing); // no units for a moment
                state.setNextUid(card, uid);
                state.setMode(card, PartitionMode::Whole);
            }
        }
        for (const QJsonValue &uv : co.value(QStringLiteral("units")).toArray()) {
            const QJsonObject uo = uv.toObject();
            const int uid = uo.value(QStringLiteral("uid")).toInt(-1);
            if (mode == PartitionMode::Mig) {
                const int profile
                        = model.profileIndex(uo.value(QStringLiteral("profile")).toString());
                const int start = uo.value(QStringLiteral("start")).toInt(-1);
                UnitState us = UnitState::Ready;
                fromName(uo.value(QStringLiteral("state")).toString(),
                         unitStates,
                         unitStateName,
                         &us);
                if (profile < 0 || start < 0 || uid < 0)
                    return fail(QStringLiteral("layouts: card %1 has a bad MIG instance").arg(ci));
                state.createPartition(card, profile, start, us, uid);
            } else if (mode == PartitionMode::TimeSlicing || mode == PartitionMode::Mps) {
                shares.insert({ci, uid},
                              {uo.value(QStringLiteral("milli")).toInt(),
                               qint64(uo.value(QStringLiteral("memoryMiB")).toDouble())});
            }
        }
        if (state.card(card).health != health)
            state.setCardHealth(card, health);
        // Units made later continue the card's numbering (older documents: one past the last).
        state.setNextUid(card, co.value(QStringLiteral("nextUid")).toInt(0));
        // An operator's pin outlives a restart (-1: until unpinned; absent: none).
        const qint64 pinned = qint64(co.value(QStringLiteral("pinnedUntilMs")).toDouble(0));
        if (pinned == -1 || pinned > 0)
            state.setLayoutPinned(card, pinned);
        // And an operator's cordon.
        if (co.value(QStringLiteral("cordoned")).toBool(false))
            state.setOperatorCordoned(card, true);
    }
    for (const QJsonValue &hv : ld.object().value(QStringLiteral("hosts")).toArray()) {
        const QJsonObject ho = hv.toObject();
        const int hi = ho.value(QStringLiteral("host")).toInt(-1);
        if (hi < 0 || hi >= state.hosts().size())
            return fail(QStringLiteral("layouts: host %1 is not in the appliance").arg(hi));
        const bool up = ho.value(QStringLiteral("up")).toBool(true);
        if (state.host(HostId(hi)).up != up)
            state.setHostUp(HostId(hi), up);
    }

    static const JobState jobStates[] = {JobState::Pending,
                                         JobState::Running,
                                         JobState::Preempting,
                                         JobState::Finished,
                                         JobState::Cancelled,
                                         JobState::Failed};
    for (const QJsonValue &jv : qd.object().value(QStringLiteral("jobs")).toArray()) {
        const QJsonObject jo = jv.toObject();
        const int id = jo.value(QStringLiteral("id")).toInt(-1);
        Domain::SpecError se;
        const auto spec
                = Domain::workloadSpecFromJson(jo.value(QStringLiteral("spec")).toObject(), &se);
        if (!spec)
            return fail(QStringLiteral("queue: job %1: %2").arg(id).arg(se.toString()));
        JobState js = JobState::Pending;
        if (!fromName(jo.value(QStringLiteral("state")).toString(), jobStates, jobStateName, &js))
            return fail(QStringLiteral("queue: job %1 has an unknown state").arg(id));
        const JobId job
                = state.addJob(*spec, qint64(jo.value(QStringLiteral("submittedMs")).toDouble()));
        if (job.value() != id)
            return fail(QStringLiteral("queue: job %1 out of order (expected %2)")
                                .arg(id)
                                .arg(job.value()));
        const bool active = js == JobState::Running || js == JobState::Preempting;
        if (active) {
            const int shape = jo.value(QStringLiteral("shape")).toInt(-1);
            if (shape < -1 || shape >= spec->shapes.size())
                return fail(
                        QStringLiteral("queue: job %1 holds unknown shape %2").arg(id).arg(shape));
            state.jobRef(job).shape = shape;
            const int hi = jo.value(QStringLiteral("host")).toInt(-1);
            if (hi < 0 || hi >= state.hosts().size())
                return fail(QStringLiteral("queue: job %1 runs on an unknown host").arg(id));
            state.attachHost(job, HostId(hi));
            for (const QJsonValue &av : jo.value(QStringLiteral("assignments")).toArray()) {
                const QJsonObject ao = av.toObject();
                const int ci = ao.value(QStringLiteral("card")).toInt(-1);
                const int uid = ao.value(QStringLiteral("uid")).toInt(-1);
                if (ci < 0 || ci >= state.cards().size())
                    return fail(
                            QStringLiteral("queue: job %1 holds unknown card %2").arg(id).arg(ci));
                const CardState &cs = state.card(CardId(ci));
                if (cs.host.value() != hi)
                    return fail(QStringLiteral("queue: job %1 holds card %2 of another host")
                                        .arg(id)
                                        .arg(ci));
                UnitChoice choice;
                choice.card = CardId(ci);
                if (cs.mode == PartitionMode::Whole) {
                    choice.uid = cs.units.value(0).uid;
                    if (cs.units.size() != 1 || cs.units[0].job.isValid())
                        return fail(QStringLiteral("queue: job %1: card %2 is not free")
                                            .arg(id)
                                            .arg(ci));
                } else if (cs.mode == PartitionMode::Mig) {
                    const Unit *u = cs.unit(uid);
                    if (!u || u->job.isValid())
                        return fail(QStringLiteral("queue: job %1: card %2 has no free instance %3")
                                            .arg(id)
                                            .arg(ci)
                                            .arg(uid));
                    choice.uid = uid;
                } else {
                    const auto share = shares.value({ci, uid}, {-1, 0});
                    if (share.first <= 0)
                        return fail(QStringLiteral(
                                            "queue: job %1: card %2 share %3 is not in the layouts")
                                            .arg(id)
                                            .arg(ci)
                                            .arg(uid));
                    choice.kind = UnitChoice::Kind::NewShare;
                    choice.milli = share.first;
                    choice.memoryMiB = share.second;
                    if (cs.unit(uid))
                        return fail(QStringLiteral("queue: job %1: card %2 share %3 is held twice")
                                            .arg(id)
                                            .arg(ci)
                                            .arg(uid));
                }
                state.bind(job, choice, choice.kind == UnitChoice::Kind::NewShare ? uid : -1);
            }
        }
        state.setJobState(job, js);
        Job &j = state.jobRef(job);
        j.startedMs = qint64(jo.value(QStringLiteral("startedMs")).toDouble(-1));
        j.endedMs = qint64(jo.value(QStringLiteral("endedMs")).toDouble(-1));
        j.workDoneMs = qint64(jo.value(QStringLiteral("workDoneMs")).toDouble());
        j.checkpointMs = qint64(jo.value(QStringLiteral("checkpointMs")).toDouble());
        j.lostWorkMs = qint64(jo.value(QStringLiteral("lostWorkMs")).toDouble());
        j.accountedAtMs = qint64(jo.value(QStringLiteral("accountedAtMs")).toDouble());
        j.preemptions = jo.value(QStringLiteral("preemptions")).toInt();
        j.evictAtMs = qint64(jo.value(QStringLiteral("evictAtMs")).toDouble(-1));
        j.preemptedBy = JobId(jo.value(QStringLiteral("preemptedBy")).toInt(-1));
        j.overBudget = jo.value(QStringLiteral("overBudget")).toBool(false);
    }
    const QString problem = state.checkInvariants();
    if (!problem.isEmpty())
        return fail(QStringLiteral("the restored state is inconsistent: %1").arg(problem));
    return true;
}

QByteArray decisionTraceToJson(const DecisionTrace &t)
{
    static const char *const kinds[] = {"placement", "preemption", "repartition", "refusal"};
    QJsonObject o{{QStringLiteral("job"), t.job.value()},
                  {QStringLiteral("atMs"), t.atMs},
                  {QStringLiteral("kind"), QLatin1String(kinds[int(t.kind)])},
                  {QStringLiteral("result"), statusToJson(t.result)},
                  {QStringLiteral("hostsConsidered"), t.hostsConsidered},
                  {QStringLiteral("hostsFeasible"), t.hostsFeasible},
                  {QStringLiteral("filterPlugins"), QJsonArray::fromStringList(t.filterPlugins)},
                  {QStringLiteral("scorePlugins"), QJsonArray::fromStringList(t.scorePlugins)}};
    QJsonObject rejectedBy;
    for (int r = 0; r < kReasonCount; ++r) {
        if (t.rejectedBy[size_t(r)] > 0)
            rejectedBy.insert(QLatin1String(reasonCode(Reason(r))), t.rejectedBy[size_t(r)]);
    }
    o.insert(QStringLiteral("rejectedBy"), rejectedBy);
    if (t.placement) {
        QJsonArray units;
        for (const UnitChoice &u : t.placement->units) {
            units.append(QJsonObject{{QStringLiteral("card"), u.card.value()},
                                     {QStringLiteral("kind"), int(u.kind)},
                                     {QStringLiteral("uid"), u.uid},
                                     {QStringLiteral("profile"), u.profile},
                                     {QStringLiteral("start"), u.start},
                                     {QStringLiteral("milli"), u.milli},
                                     {QStringLiteral("memoryMiB"), u.memoryMiB}});
        }
        QJsonObject po{{QStringLiteral("host"), t.placement->host.value()},
                       {QStringLiteral("units"), units}};
        if (t.placement->shape >= 0)
            po.insert(QStringLiteral("shape"), t.placement->shape);
        o.insert(QStringLiteral("placement"), po);
    }
    if (!t.shapes.isEmpty()) {
        // The shape choice (issue 18); left out for jobs without alternatives.
        QJsonArray shapes;
        for (const ShapeTrace &sh : t.shapes) {
            QJsonObject so{{QStringLiteral("shape"), sh.shape},
                           {QStringLiteral("verdict"), QLatin1String(shapeVerdictCode(sh.verdict))},
                           {QStringLiteral("speed"), sh.speed},
                           {QStringLiteral("milli"), sh.milli},
                           {QStringLiteral("gang"), sh.gang},
                           {QStringLiteral("score"), sh.score}};
            if (sh.serviceMs > 0)
                so.insert(QStringLiteral("serviceMs"), sh.serviceMs);
            if (!sh.status.isSuccess())
                so.insert(QStringLiteral("status"), statusToJson(sh.status));
            shapes.append(so);
        }
        o.insert(QStringLiteral("shapes"), shapes);
    }
    QJsonArray best, rejected, victims;
    for (const CandidateTrace &c : t.best)
        best.append(candidateJson(c));
    for (const CandidateTrace &c : t.rejected)
        rejected.append(candidateJson(c));
    for (const Victim &v : t.victims) {
        victims.append(QJsonObject{{QStringLiteral("job"), v.job.value()},
                                   {QStringLiteral("priority"), v.priority},
                                   {QStringLiteral("lostWorkMs"), v.lostWorkMs},
                                   {QStringLiteral("evictAtMs"), v.evictAtMs}});
    }
    o.insert(QStringLiteral("best"), best);
    o.insert(QStringLiteral("rejected"), rejected);
    o.insert(QStringLiteral("victims"), victims);
    if (!t.note.isEmpty())
        o.insert(QStringLiteral("note"), t.note);
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

std::optional<Status> statusFromJson(const QJsonObject &json, QString *error)
{
    static const Status::Code codes[] = {Status::Code::Success,
                                         Status::Code::Unschedulable,
                                         Status::Code::Unresolvable,
                                         Status::Code::Error};
    Status s;
    const QString code = json.value(QStringLiteral("code")).toString(QStringLiteral("success"));
    if (!fromName(code, codes, statusCodeName, &s.code)) {
        *error = QStringLiteral("unknown status code \"%1\"").arg(code);
        return std::nullopt;
    }
    const QString reason = json.value(QStringLiteral("reason")).toString(QStringLiteral("none"));
    int r = 0;
    while (r < kReasonCount && reason != QLatin1String(reasonCode(Reason(r))))
        ++r;
    if (r == kReasonCount) {
        *error = QStringLiteral("unknown reason \"%1\"").arg(reason);
        return std::nullopt;
    }
    s.reason = Reason(r);
    s.need = qint64(json.value(QStringLiteral("need")).toDouble());
    s.have = qint64(json.value(QStringLiteral("have")).toDouble());
    return s;
}

namespace {

std::optional<CandidateTrace> candidateFromJson(const QJsonObject &o, QString *error)
{
    CandidateTrace c;
    c.host = HostId(o.value(QStringLiteral("host")).toInt(-1));
    const auto verdict = statusFromJson(o.value(QStringLiteral("verdict")).toObject(), error);
    if (!verdict)
        return std::nullopt;
    c.verdict = *verdict;
    c.filter = o.value(QStringLiteral("filter")).toString();
    for (const QJsonValue &v : o.value(QStringLiteral("scores")).toArray())
        c.scores.append(v.toDouble());
    c.total = o.value(QStringLiteral("total")).toDouble();
    c.rank = o.value(QStringLiteral("rank")).toInt();
    c.feasibleCards = o.value(QStringLiteral("feasibleCards")).toInt();
    return c;
}

QStringList stringList(const QJsonValue &v)
{
    QStringList out;
    for (const QJsonValue &s : v.toArray())
        out.append(s.toString());
    return out;
}

} // namespace

std::optional<DecisionTrace> decisionTraceFromJson(const QJsonObject &o, QString *error)
{
    static const DecisionKind kinds[] = {DecisionKind::Placement,
                                         DecisionKind::Preemption,
                                         DecisionKind::Repartition,
                                         DecisionKind::Refusal};
    static const char *const names[] = {"placement", "preemption", "repartition", "refusal"};
    DecisionTrace t;
    t.job = JobId(o.value(QStringLiteral("job")).toInt(-1));
    t.atMs = qint64(o.value(QStringLiteral("atMs")).toDouble());
    const QString kind = o.value(QStringLiteral("kind")).toString();
    int k = 0;
    while (k < 4 && kind != QLatin1String(names[k]))
        ++k;
    if (k == 4) {
        *error = QStringLiteral("trace of job %1: unknown kind \"%2\"")
                         .arg(t.job.value())
                         .arg(kind);
        return std::nullopt;
    }
    t.kind = kinds[k];
    QString why;
    const auto result = statusFromJson(o.value(QStringLiteral("result")).toObject(), &why);
    if (!result) {
        *error = QStringLiteral("trace of job %1: result: %2").arg(t.job.value()).arg(why);
        return std::nullopt;
    }
    t.result = *result;
    t.hostsConsidered = o.value(QStringLiteral("hostsConsidered")).toInt();
    t.hostsFeasible = o.value(QStringLiteral("hostsFeasible")).toInt();
    t.filterPlugins = stringList(o.value(QStringLiteral("filterPlugins")));
    t.scorePlugins = stringList(o.value(QStringLiteral("scorePlugins")));
    const QJsonObject rejectedBy = o.value(QStringLiteral("rejectedBy")).toObject();
    for (int r = 0; r < kReasonCount; ++r)
        t.rejectedBy[size_t(r)] = rejectedBy.value(QLatin1String(reasonCode(Reason(r)))).toInt();
    if (o.contains(QStringLiteral("placement"))) {
        const QJsonObject po = o.value(QStringLiteral("placement")).toObject();
        Placement p;
        p.host = HostId(po.value(QStringLiteral("host")).toInt(-1));
        for (const QJsonValue &uv : po.value(QStringLiteral("units")).toArray()) {
            const QJsonObject u = uv.toObject();
            const int kindValue = u.value(QStringLiteral("kind")).toInt(-1);
            if (kindValue < 0 || kindValue > int(UnitChoice::Kind::NewPartition)) {
                *error = QStringLiteral("trace of job %1: placement: unknown unit kind %2")
                                 .arg(t.job.value())
                                 .arg(kindValue);
                return std::nullopt;
            }
            UnitChoice c;
            c.card = CardId(u.value(QStringLiteral("card")).toInt(-1));
            c.kind = UnitChoice::Kind(kindValue);
            c.uid = u.value(QStringLiteral("uid")).toInt(-1);
            c.profile = u.value(QStringLiteral("profile")).toInt(-1);
            c.start = u.value(QStringLiteral("start")).toInt(-1);
            c.milli = u.value(QStringLiteral("milli")).toInt();
            c.memoryMiB = qint64(u.value(QStringLiteral("memoryMiB")).toDouble());
            p.units.append(c);
        }
        p.shape = po.value(QStringLiteral("shape")).toInt(-1);
        t.placement = p;
    }
    static const ShapeTrace::Verdict verdicts[] = {ShapeTrace::Verdict::Chosen,
                                                   ShapeTrace::Verdict::Placeable,
                                                   ShapeTrace::Verdict::TooSlow,
                                                   ShapeTrace::Verdict::NoRoom};
    for (const QJsonValue &sv : o.value(QStringLiteral("shapes")).toArray()) {
        const QJsonObject so = sv.toObject();
        ShapeTrace sh;
        sh.shape = so.value(QStringLiteral("shape")).toInt(-1);
        const QString verdict = so.value(QStringLiteral("verdict")).toString();
        if (!fromName(verdict, verdicts, shapeVerdictCode, &sh.verdict)) {
            *error = QStringLiteral("trace of job %1: shapes: unknown verdict \"%2\"")
                             .arg(t.job.value())
                             .arg(verdict);
            return std::nullopt;
        }
        sh.speed = so.value(QStringLiteral("speed")).toDouble(1);
        sh.milli = qint64(so.value(QStringLiteral("milli")).toDouble());
        sh.gang = so.value(QStringLiteral("gang")).toDouble(1);
        sh.score = so.value(QStringLiteral("score")).toDouble();
        sh.serviceMs = so.value(QStringLiteral("serviceMs")).toDouble();
        if (so.contains(QStringLiteral("status"))) {
            const auto status = statusFromJson(so.value(QStringLiteral("status")).toObject(), &why);
            if (!status) {
                *error = QStringLiteral("trace of job %1: shapes: %2").arg(t.job.value()).arg(why);
                return std::nullopt;
            }
            sh.status = *status;
        }
        t.shapes.append(sh);
    }
    for (const auto &[key, list] : {std::pair{QStringLiteral("best"), &t.best},
                                    std::pair{QStringLiteral("rejected"), &t.rejected}}) {
        for (const QJsonValue &cv : o.value(key).toArray()) {
            const auto c = candidateFromJson(cv.toObject(), &why);
            if (!c) {
                *error = QStringLiteral("trace of job %1: %2: %3").arg(t.job.value()).arg(key, why);
                return std::nullopt;
            }
            list->append(*c);
        }
    }
    for (const QJsonValue &vv : o.value(QStringLiteral("victims")).toArray()) {
        const QJsonObject v = vv.toObject();
        t.victims.append({JobId(v.value(QStringLiteral("job")).toInt(-1)),
                          v.value(QStringLiteral("priority")).toInt(),
                          qint64(v.value(QStringLiteral("lostWorkMs")).toDouble()),
                          qint64(v.value(QStringLiteral("evictAtMs")).toDouble())});
    }
    t.note = o.value(QStringLiteral("note")).toString();
    return t;
}

} // namespace Zhaoxi::Storage
