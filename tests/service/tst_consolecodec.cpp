// SPDX-License-Identifier: GPL-3.0-or-later
// The console's picture over the wire (consoleJson): a snapshot of the demo day in the afternoon
// (MIG cards with instances, soft-sliced cards with shares, waiting and preempted jobs, events,
// decision traces) written, sent as a line and read back equals the original in everything the
// console shows; a model the console does not know, a broken document and the API's answers.
#include "core/catalogue/catalogue.h"
#include "core/service/consolecodec.h"
#include "core/service/protocol.h"
#include "core/session/simulationsession.h"
#include "core/sim/scenario.h"
#include "core/storage/statecodec.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

#include <cmath>

using namespace Zhaoxi;

namespace {

const Catalogue::Catalogue &catalogue()
{
    static const Catalogue::Catalogue c = Catalogue::Catalogue::builtIn();
    return c;
}

bool same(double a, double b)
{
    return (std::isnan(a) && std::isnan(b)) || a == b;
}

// The demo day (MIG and soft-sliced cards, services, training); nullopt only if it is broken.
std::optional<Sim::Scenario> demoDay()
{
    Sim::ScenarioError err;
    auto s = Sim::loadScenarioFile(
            QStringLiteral(ZHAOXI_SOURCE_DIR "/resources/scenarios/demo-day.json"),
            catalogue(),
            &err);
    if (!s)
        qWarning("demo-day.json: %s", qPrintable(err.toString()));
    return s;
}

// Through the socket's framing: compact JSON, one line, parsed again.
QJsonObject overTheWire(const QJsonObject &o)
{
    const QByteArray line = Service::encodeLine(o);
    return QJsonDocument::fromJson(line.chopped(1)).object();
}

} // namespace

class TestConsoleCodec : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void theAfternoonComesBackWhole()
    {
        const auto scenario = demoDay();
        QVERIFY(scenario);
        Session::SimulationSession session(*scenario, QStringLiteral("guard"), scenario->seed);
        QList<Storage::Event> events;
        connect(&session,
                &Session::ApplianceSession::snapshotReady,
                this,
                [&](const Session::SnapshotPtr &s) { events += s->events; });
        for (qint64 t = 0; t <= 7 * 3'600'000; t += 10 * 60'000)
            session.runTo(t);
        const Session::SnapshotPtr original = session.latest();
        QVERIFY(original);
        const QList<Sched::DecisionTrace> traces = session.latestTraces();
        QVERIFY(!traces.isEmpty());
        QVERIFY(events.size() > 100);

        // What this picture holds, so the comparison below means something.
        int instances = 0, shares = 0, busy = 0;
        for (const Sched::CardState &c : original->state.cards()) {
            for (const Sched::Unit &u : c.units) {
                instances += u.profile >= 0;
                shares += c.mode == Domain::PartitionMode::TimeSlicing
                          || c.mode == Domain::PartitionMode::Mps;
            }
        }
        for (const Session::CardSample &m : original->cards)
            busy += int(m.busyUnits.size());
        QVERIFY(instances > 0);
        QVERIFY(shares > 0);
        QVERIFY(busy > 0);
        QVERIFY(!original->queue.isEmpty() || !original->training.isEmpty());

        const QJsonObject wire = overTheWire(Service::consoleJson(*original, events, traces));
        QString why;
        const auto back = Service::snapshotFromConsoleJson(wire, catalogue(), &why);
        QVERIFY2(back, qPrintable(why));
        QCOMPARE(back->state.checkInvariants(), QString());

        // The state: equal as the scheduler compares states (hosts, cards with every unit and
        // its uid, jobs with their specs, progress and assignments, class usage).
        QCOMPARE(Storage::layoutsToJson(back->state), Storage::layoutsToJson(original->state));
        QCOMPARE(Storage::queueToJson(back->state), Storage::queueToJson(original->state));
        QVERIFY(back->state == original->state);
        QCOMPARE(back->queue, original->queue);
        QCOMPARE(back->budget, original->budget);

        QCOMPARE(back->nowMs, original->nowMs);
        QCOMPARE(back->startMs, original->startMs);
        QCOMPARE(back->endMs, original->endMs);
        QCOMPARE(back->utcOffsetSeconds, original->utcOffsetSeconds);
        QCOMPARE(back->applianceName, original->applianceName);
        QCOMPARE(back->policy, original->policy);
        QCOMPARE(back->window, original->window);
        QCOMPARE(back->simulated, original->simulated);
        QCOMPARE(back->finished, original->finished);
        {
            // Read-only, with its reason as a code and as English.
            Session::Snapshot ro = *original;
            ro.readOnly = true;
            ro.readOnlyProblem = Domain::Problem(Domain::Problem::Code::ReadOnlyNotOperator,
                                                 {QStringLiteral("ana"), QStringLiteral("zhaoxi")});
            const auto roBack = Service::snapshotFromConsoleJson(
                    overTheWire(Service::consoleJson(ro, events, traces)), catalogue(), &why);
            QVERIFY2(roBack, qPrintable(why));
            QVERIFY(roBack->readOnly);
            QCOMPARE(roBack->readOnlyProblem, ro.readOnlyProblem);
            QCOMPARE(roBack->readOnlyProblem.english(),
                     QStringLiteral("not an operator: ana is not in zhaoxi"));
        }

        QCOMPARE(back->cards.size(), original->cards.size());
        for (qsizetype i = 0; i < original->cards.size(); ++i) {
            const Session::CardSample &a = original->cards[i], &b = back->cards[i];
            QCOMPARE(b.card, a.card);
            QVERIFY(same(b.utilisation, a.utilisation));
            QVERIFY(same(b.trainingUtilisation, a.trainingUtilisation));
            QVERIFY(same(b.inferenceUtilisation, a.inferenceUtilisation));
            QCOMPARE(b.memoryUsedMiB, a.memoryUsedMiB);
            QCOMPARE(b.memoryTotalMiB, a.memoryTotalMiB);
            QCOMPARE(b.trainingMemoryMiB, a.trainingMemoryMiB);
            QCOMPARE(b.otherMemoryMiB, a.otherMemoryMiB);
            QVERIFY(same(b.temperatureC, a.temperatureC));
            QVERIFY(same(b.powerW, a.powerW));
            QVERIFY(same(b.clockFactor, a.clockFactor));
            QCOMPARE(b.throttled, a.throttled);
            QCOMPARE(b.busyUnits, a.busyUnits);
            QCOMPARE(b.units.size(), a.units.size());
            for (qsizetype k = 0; k < a.units.size(); ++k) {
                QCOMPARE(b.units[k].uid, a.units[k].uid);
                QVERIFY(same(b.units[k].utilisation, a.units[k].utilisation));
                QCOMPARE(b.units[k].memoryUsedMiB, a.units[k].memoryUsedMiB);
                QCOMPARE(b.units[k].processes, a.units[k].processes);
            }
        }
        // A hardware partition: no utilisation, its processes, one of them not Zhaoxi's.
        const Session::UnitSample mig{3,
                                      std::nan(""),
                                      2500,
                                      {Session::UnitProcess{77, QStringLiteral("vllm"), 2000, 4},
                                       Session::UnitProcess{78, QString(), -1, -1}}};
        const Session::UnitSample migBack = Service::unitSampleFromJson(
                QJsonDocument::fromJson(QJsonDocument(Service::unitSampleJson(mig)).toJson())
                        .object());
        QCOMPARE(migBack.uid, 3);
        QVERIFY(std::isnan(migBack.utilisation));
        QCOMPARE(migBack.memoryUsedMiB, 2500);
        QCOMPARE(migBack.processes, mig.processes);
        QCOMPARE(back->services.size(), original->services.size());
        for (qsizetype i = 0; i < original->services.size(); ++i) {
            QCOMPARE(back->services[i].name, original->services[i].name);
            QVERIFY(same(back->services[i].p99Ms, original->services[i].p99Ms));
            QVERIFY(same(back->services[i].attainment, original->services[i].attainment));
            QCOMPARE(back->services[i].replicas, original->services[i].replicas);
            QCOMPARE(back->services[i].targetReplicas, original->services[i].targetReplicas);
        }
        QCOMPARE(back->training.size(), original->training.size());
        for (qsizetype i = 0; i < original->training.size(); ++i) {
            QCOMPARE(back->training[i].job, original->training[i].job);
            QVERIFY(same(back->training[i].loss, original->training[i].loss));
            QVERIFY(same(back->training[i].progress, original->training[i].progress));
            QVERIFY(same(back->training[i].workHours, original->training[i].workHours));
        }
        QCOMPARE(back->events, events);
        QCOMPARE(back->traces.size(), traces.size());
        for (qsizetype i = 0; i < traces.size(); ++i)
            QCOMPARE(Storage::decisionTraceToJson(back->traces[i]),
                     Storage::decisionTraceToJson(traces[i]));
    }

    void aModelTheConsoleDoesNotKnowIsNamed()
    {
        const auto scenario = demoDay();
        QVERIFY(scenario);
        Session::SimulationSession session(*scenario, QString(), scenario->seed);
        session.runTo(60'000);
        QJsonObject wire = Service::consoleJson(*session.latest(), {}, {});
        QJsonObject topology = wire.value(QStringLiteral("topology")).toObject();
        QJsonArray hosts = topology.value(QStringLiteral("hosts")).toArray();
        QJsonObject host = hosts[0].toObject();
        QJsonArray cards = host.value(QStringLiteral("cards")).toArray();
        QJsonObject card = cards[0].toObject();
        card.insert(QStringLiteral("model"), QStringLiteral("B300-288GB"));
        cards[0] = card;
        host.insert(QStringLiteral("cards"), cards);
        hosts[0] = host;
        topology.insert(QStringLiteral("hosts"), hosts);
        wire.insert(QStringLiteral("topology"), topology);
        QString why;
        QVERIFY(!Service::snapshotFromConsoleJson(wire, catalogue(), &why));
        QVERIFY2(why.contains(QStringLiteral("card 0"))
                         && why.contains(QStringLiteral("B300-288GB")),
                 qPrintable(why));

        // A job's assignment to a card that is not there: the job is named.
        wire = Service::consoleJson(*session.latest(), {}, {});
        QJsonObject jobs = wire.value(QStringLiteral("jobs")).toObject();
        QJsonArray list = jobs.value(QStringLiteral("jobs")).toArray();
        int at = -1;
        for (int i = 0; i < list.size() && at < 0; ++i)
            if (list[i][QStringLiteral("state")].toString() == QLatin1String("running"))
                at = i;
        QVERIFY(at >= 0);
        QJsonObject job = list[at].toObject();
        job.insert(
                QStringLiteral("assignments"),
                QJsonArray{QJsonObject{{QStringLiteral("card"), 999}, {QStringLiteral("uid"), 0}}});
        list[at] = job;
        jobs.insert(QStringLiteral("jobs"), list);
        wire.insert(QStringLiteral("jobs"), jobs);
        QVERIFY(!Service::snapshotFromConsoleJson(wire, catalogue(), &why));
        QVERIFY2(why.contains(QStringLiteral("job %1").arg(job[QStringLiteral("id")].toInt()))
                         && why.contains(QStringLiteral("999")),
                 qPrintable(why));
    }

    // The service's cache of the store documents: the same picture as without it, before and
    // after the state changed (the cache then written again), and while it did not.
    void theCachedPictureIsTheFreshOne()
    {
        const auto scenario = demoDay();
        QVERIFY(scenario);
        Session::SimulationSession session(*scenario, QString(), scenario->seed);
        Service::PictureCache cache;
        for (qint64 t = 60'000; t <= 4 * 3'600'000; t += 20 * 60'000) {
            session.runTo(t);
            const Session::SnapshotPtr s = session.latest();
            QCOMPARE(Service::consolePicture(*s, &cache), Service::consolePicture(*s));
            QCOMPARE(Service::consolePicture(*s, &cache), Service::consolePicture(*s));
        }
    }

    // The answers a console turns back into the session's types keep what it shows: a
    // refusal's reason and numbers, the victims of a preemption.
    // Refusals travel as codes with their parameters beside the English, so that a console
    // words them in its own language: a command's, a preview's, a log's and the read-only
    // reason of a picture.
    void problemsTravelAsCodes()
    {
        using Domain::Problem;
        const Problem notWaiting(Problem::Code::JobNotWaiting, {QStringLiteral("7")});
        QJsonObject error = Service::errorAnswer(1, Service::Code::Refused, notWaiting.english())
                                    .value(QStringLiteral("error"))
                                    .toObject();
        error.insert(QStringLiteral("problem"), Service::problemJson(notWaiting));
        const Session::CommandResult back
                = Service::commandResultFromAnswer(overTheWire({{QStringLiteral("id"), 1},
                                                                {QStringLiteral("ok"), false},
                                                                {QStringLiteral("error"), error}}));
        QCOMPARE(back.problem, notWaiting);
        QCOMPARE(back.error, QStringLiteral("job 7 is not waiting"));

        Session::LayoutPreview lp;
        lp.card = Domain::CardId(3);
        Session::setProblem(lp, Problem(Problem::Code::CardNotMig, {QStringLiteral("3")}));
        const Session::LayoutPreview lb = Service::layoutPreviewFromJson(
                overTheWire(Service::layoutPreviewJson(lp, nullptr)), nullptr);
        QCOMPARE(lb.problem, lp.problem);
        QCOMPARE(lb.error, QStringLiteral("card 3 is not in MIG mode"));

        Session::JobLog log;
        log.job = Domain::JobId(2);
        Session::setProblem(log, Problem(Problem::Code::TwinHasNoLogs));
        QCOMPARE(Service::jobLogFromJson(overTheWire(Service::jobLogJson(log))).problem,
                 log.problem);

        // A code this console does not know reads as the English that came with it.
        QCOMPARE(Service::problemFromJson(
                         QJsonObject{{QStringLiteral("code"), QStringLiteral("from-the-future")}},
                         QStringLiteral("something new")),
                 Problem::text(QStringLiteral("something new")));
    }

    void answersKeepTheirReasonsAndVictims()
    {
        Session::CommandResult r;
        r.ok = false;
        r.error = QStringLiteral("no free unit");
        r.status = Sched::Status::unschedulable(Sched::Reason::CardMemoryInUse, 40960, 1024);
        QJsonObject error = Service::errorAnswer(1, Service::Code::Refused, r.error)
                                    .value(QStringLiteral("error"))
                                    .toObject();
        error.insert(QStringLiteral("status"), Storage::statusToJson(r.status));
        const Session::CommandResult back
                = Service::commandResultFromAnswer(overTheWire({{QStringLiteral("id"), 1},
                                                                {QStringLiteral("ok"), false},
                                                                {QStringLiteral("error"), error}}));
        QVERIFY(!back.ok);
        QCOMPARE(back.error, r.error);
        // An answer without a code (an older service) keeps its English as the problem.
        QCOMPARE(back.problem, Domain::Problem::text(r.error));
        QCOMPARE(back.status.reason, Sched::Reason::CardMemoryInUse);
        QCOMPARE(back.status.need, 40960);
        QCOMPARE(back.status.have, 1024);

        Session::PlacementPreview p;
        p.job = Domain::JobId(7);
        p.card = Domain::CardId(2);
        p.outcome = Session::PlacementPreview::Outcome::NeedsPreemption;
        p.victims = {{Domain::JobId(3), 100, 120'000, 1'700'000'000'000}};
        p.victimNames = {QStringLiteral("finetune")};
        const Session::PlacementPreview pb
                = Service::placementPreviewFromJson(overTheWire(Service::placementPreviewJson(p)));
        QCOMPARE(pb.outcome, p.outcome);
        QCOMPARE(pb.job, p.job);
        QCOMPARE(pb.card, p.card);
        QCOMPARE(pb.victims, p.victims);
        QCOMPARE(pb.victimNames, p.victimNames);

        // A refused drop's layout hint, named by the card's model and read back with it; a
        // console without the card (no state) leaves the hint out rather than guess it.
        const auto scenario = demoDay();
        QVERIFY(scenario);
        Session::SimulationSession demo(*scenario, QString(), scenario->seed);
        demo.runTo(60'000);
        const Sched::ClusterState &st = demo.latest()->state;
        Domain::CardId mig;
        for (const Sched::CardState &c : st.cards()) {
            if (c.mode == Domain::PartitionMode::Mig && !mig.isValid())
                mig = c.id;
        }
        QVERIFY(mig.isValid());
        const Domain::CardModel &model = st.model(st.card(mig));
        Session::PlacementPreview refused;
        refused.job = Domain::JobId(7);
        refused.card = Domain::CardId(0);
        refused.outcome = Session::PlacementPreview::Outcome::Refused;
        refused.status = Sched::Status::unschedulable(Sched::Reason::NoFreeUnit);
        refused.layoutCard = mig;
        refused.layoutTarget = {{model.profileIndex(QStringLiteral("3g.71gb")), 0},
                                {model.profileIndex(QStringLiteral("1g.18gb")), 4}};
        const QJsonObject wire = overTheWire(Service::placementPreviewJson(refused, &st));
        QCOMPARE(wire.value(QStringLiteral("layout_fit"))
                         .toObject()
                         .value(QStringLiteral("layout"))
                         .toArray()
                         .first()
                         .toString(),
                 QStringLiteral("3g.71gb@0"));
        const Session::PlacementPreview hint = Service::placementPreviewFromJson(wire, &st);
        QCOMPARE(hint.layoutCard, mig);
        QCOMPARE(hint.layoutTarget, refused.layoutTarget);
        QVERIFY(!Service::placementPreviewFromJson(wire).layoutCard.isValid());

        // A schedule preview: every field the console's dialog reads comes back.
        Session::SchedulePreview sp;
        sp.ok = true;
        sp.nowMs = 1'700'000'000'000;
        sp.policyBefore = QStringLiteral("forecast");
        sp.policyAfter = QStringLiteral("windows");
        sp.windowAfter = QStringLiteral("night");
        sp.budgetBefore = {2000, 6000, -1};
        sp.budgetAfter = {6000, 2000, -1};
        Policy::PolicyPlan::Eviction e;
        e.job = Domain::JobId(4);
        e.atCheckpoint = true;
        e.leavesAtMs = sp.nowMs + 60'000;
        e.why = Device::ActionReason::Window;
        sp.evictions = {e};
        sp.evictionNames = {QStringLiteral("pretrain-4x")};
        Policy::PolicyPlan::ServiceChange c;
        c.name = QStringLiteral("chat");
        c.replicasBefore = 4;
        c.replicasAfter = 2;
        c.sloMs = 300;
        c.observedRate = 40;
        c.p99AfterMs = INFINITY;
        c.atRisk = true;
        sp.services = {c};
        sp.movedReplicas = {Domain::JobId(9)};
        const Session::SchedulePreview sb
                = Service::schedulePreviewFromJson(overTheWire(Service::schedulePreviewJson(sp)));
        QVERIFY(sb.ok);
        QCOMPARE(sb.nowMs, sp.nowMs);
        QCOMPARE(sb.policyBefore, sp.policyBefore);
        QCOMPARE(sb.policyAfter, sp.policyAfter);
        QCOMPARE(sb.windowAfter, sp.windowAfter);
        QCOMPARE(sb.budgetBefore, sp.budgetBefore);
        QCOMPARE(sb.budgetAfter, sp.budgetAfter);
        QCOMPARE(sb.evictedIds(), sp.evictedIds());
        QCOMPARE(sb.evictionNames, sp.evictionNames);
        QCOMPARE(sb.evictions[0].atCheckpoint, true);
        QCOMPARE(sb.evictions[0].leavesAtMs, e.leavesAtMs);
        QCOMPARE(sb.evictions[0].why, Device::ActionReason::Window);
        QCOMPARE(sb.services.size(), 1);
        QCOMPARE(sb.services[0].replicasAfter, 2);
        QVERIFY(std::isinf(sb.services[0].p99AfterMs));
        QVERIFY(sb.services[0].atRisk);
        QCOMPARE(sb.movedReplicas, sp.movedReplicas);
        QCOMPARE(sb.needsConfirmation(), true);

        QString why;
        QVERIFY(!Storage::statusFromJson({{QStringLiteral("reason"), QStringLiteral("bogus")}},
                                         &why));
        QVERIFY2(why.contains(QStringLiteral("bogus")), qPrintable(why));
    }
};

QTEST_GUILESS_MAIN(TestConsoleCodec)
#include "tst_consolecodec.moc"
