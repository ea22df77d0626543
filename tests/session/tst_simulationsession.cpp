// SPDX-License-Identifier: GPL-3.0-or-later
// The console's simulated session: snapshots of the day at chosen times, the same seed giving the
// same appliance, events stored with their ids, the operator's commands (a refused placement
// with its reason, a repartition in immediate and drain mode, a schedule checked like the
// headless tool checks it), and the session running on its own thread behind a SessionClient.
#include "core/catalogue/catalogue.h"
#include "core/catalogue/layoutrules.h"
#include "core/models/jobtablemodel.h"
#include "core/models/sessionclient.h"
#include "core/runtime/processworkloads.h"
#include "core/session/eventbridge.h"
#include "core/session/simulationsession.h"
#include "core/sim/scenario.h"
#include "core/storage/store.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

using namespace Zhaoxi;

namespace {

const Catalogue::Catalogue &catalogue()
{
    static const Catalogue::Catalogue c = Catalogue::Catalogue::builtIn();
    return c;
}

// Two H200 cards in MIG mode, one small service, two training jobs: a static split that lets
// training hold one card's compute, so the second job waits on the class budget.
const char kSmall[] = R"({
    "name": "session test",
    "start": "2026-01-05T09:00:00+08:00",
    "duration": "4h",
    "seed": 3,
    "appliance": {"name": "two cards", "hosts": [
        {"name": "h", "cpu": 64, "memoryGiB": 512,
         "cards": [{"model": "H200-141GB", "mode": "mig", "count": 2}]}]},
    "history": {"days": 1, "noise": 0},
    "services": [{
        "spec": {"name": "chat", "kind": "inference",
                 "demand": {"compute": {"profile": "3g.71gb"}, "memoryGiB": 40},
                 "priority": 500, "preemption": "never", "isolation": "hard",
                 "inference": {"service": "chat", "sloP99Ms": 1000, "replicas": {"min": 1, "max": 1}}},
        "serviceTimeMs": 50, "rate": {"constant": 2}}],
    "training": [
        {"spec": {"name": "big", "kind": "training", "demand": {"compute": {"profile": "7g.141gb"}},
                  "time": {"expectedDuration": "10h"}, "priority": 100, "preemption": "checkpoint",
                  "checkpointInterval": "10m"}},
        {"spec": {"name": "small", "kind": "training", "demand": {"compute": {"profile": "1g.18gb"}},
                  "time": {"expectedDuration": "10h"}, "priority": 100, "preemption": "checkpoint",
                  "checkpointInterval": "10m"}, "submitAt": "10m"}],
    "policy": {"default": "static", "static": {"inferenceShare": 0.5}}
})";

Sim::Scenario smallScenario()
{
    Sim::ScenarioError err;
    auto s = Sim::readScenario(QByteArray(kSmall),
                               QStringLiteral("small.json"),
                               QString::fromUtf8(ZHAOXI_SOURCE_DIR)
                                       + QStringLiteral("/resources/scenarios"),
                               catalogue(),
                               &err);
    if (!s)
        qFatal("%s", qPrintable(err.toString()));
    return *s;
}

Domain::JobId jobNamed(const Session::Snapshot &s, const QString &name)
{
    for (const Sched::Job &j : s.state.jobs()) {
        if (j.spec.name == name)
            return j.id;
    }
    return {};
}

int cardOf(const Session::Snapshot &s, Domain::JobId job)
{
    const Sched::Job &j = s.state.job(job);
    return j.assignments.isEmpty() ? -1 : j.assignments.first().card.value();
}

} // namespace

class TestSimulationSession : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void snapshotsAtChosenTimes()
    {
        Session::SimulationSession session(smallScenario(), QString(), 3);
        QSignalSpy spy(&session, &Session::ApplianceSession::snapshotReady);
        session.runTo(30 * 60'000);
        QCOMPARE(spy.count(), 1);
        const Session::SnapshotPtr s = session.latest();
        QVERIFY(s);
        QCOMPARE(s->nowMs - s->startMs, 30 * 60'000);
        QCOMPARE(s->utcOffsetSeconds, 8 * 3600);
        QCOMPARE(s->cards.size(), 2);
        QCOMPARE(s->services.size(), 1);
        QCOMPARE(s->services[0].name, QStringLiteral("chat"));
        QCOMPARE(s->training.size(), 2);
        QCOMPARE(s->policy, QStringLiteral("static"));
        QVERIFY(!s->events.isEmpty());
        // Ids come from the store, in order; each snapshot carries only the new ones.
        for (qsizetype i = 1; i < s->events.size(); ++i)
            QVERIFY(s->events[i].atMs >= s->events[i - 1].atMs);
        session.runTo(60 * 60'000);
        const Session::SnapshotPtr later = session.latest();
        QVERIFY(later->serial > s->serial);
        for (const Storage::Event &e : later->events)
            QVERIFY(e.atMs >= s->nowMs - 1);
        // "small" waits on the training budget; "big" runs.
        const Domain::JobId small = jobNamed(*later, QStringLiteral("small"));
        QVERIFY(small.isValid());
        QVERIFY(later->queue.contains(small));
        QVERIFY(cardOf(*later, jobNamed(*later, QStringLiteral("big"))) >= 0);
    }

    void sameSeedSameAppliance()
    {
        Session::SimulationSession a(smallScenario(), QString(), 3);
        Session::SimulationSession b(smallScenario(), QString(), 3);
        a.runTo(90 * 60'000);
        b.runTo(90 * 60'000);
        QVERIFY(a.latest()->state == b.latest()->state);
        QCOMPARE(a.latest()->training[0].doneHours, b.latest()->training[0].doneHours);
    }

    void eventsAreStored()
    {
        Session::SimulationSession session(smallScenario(), QString(), 3);
        session.runTo(20 * 60'000);
        const qsizetype shown = session.latest()->events.size();
        session.stop(); // flushes
        QString err;
        auto reader = Storage::Reader::open(
                session.storePath(), Storage::Reader::OpenMode::RequireCurrent, &err);
        QVERIFY2(reader, qPrintable(err));
        QCOMPARE(reader->countEvents({}), qint64(shown));
    }

    // What a replay and the forecast read back (docs/replay.md): the run's basis, each
    // service's requests, SLO attainment and service time minute by minute, the training jobs'
    // specs and the work they did.
    void workloadsAreStoredForAReplay()
    {
        Session::SimulationSession session(smallScenario(), QString(), 3);
        session.runTo(30 * 60'000);
        const qint64 start = session.latest()->startMs;
        session.stop();
        QString err;
        auto reader = Storage::Reader::open(
                session.storePath(), Storage::Reader::OpenMode::RequireCurrent, &err);
        QVERIFY2(reader, qPrintable(err));
        Storage::EventFilter basis;
        basis.codes = {QByteArrayLiteral("run-basis")};
        const QList<Storage::Event> b = reader->events(basis);
        QCOMPARE(b.size(), 1);
        QCOMPARE(b.first().atMs, start);
        const QJsonObject p = QJsonDocument::fromJson(b.first().params).object();
        QCOMPARE(p.value(QStringLiteral("scenario")).toObject().value(QStringLiteral("name")),
                 QJsonValue(QStringLiteral("session test")));
        QCOMPARE(p.value(QStringLiteral("policy")).toString(), QStringLiteral("static"));
        QCOMPARE(p.value(QStringLiteral("seed")).toString(), QStringLiteral("3"));

        using Storage::Metric;
        const QList<Storage::MetricPoint> rate
                = reader->series({Metric::RequestRate, -1, -1, QStringLiteral("chat"), -1},
                                 Storage::Tier::Raw,
                                 start,
                                 start + 30 * 60'000);
        QVERIFY2(rate.size() >= 25 && rate.size() <= 30, // about one a minute
                 qPrintable(QString::number(rate.size())));
        double mean = 0;
        for (const Storage::MetricPoint &m : rate)
            mean += m.value / rate.size();
        QVERIFY2(mean > 1.7 && mean < 2.3, qPrintable(QString::number(mean))); // constant 2/s
        const QList<Storage::MetricPoint> slo
                = reader->series({Metric::SloAttainment, -1, -1, QStringLiteral("chat"), -1},
                                 Storage::Tier::Raw,
                                 start,
                                 start + 30 * 60'000);
        QVERIFY(slo.size() >= 25);
        for (const Storage::MetricPoint &m : slo)
            QVERIFY(m.value >= 0 && m.value <= 1);
        // Service time per unit size: 3g of 7 slices on an H200 is 428 milli-cards; the
        // scenario's 50 ms on a whole reference card takes 50 / (3/7) ms on it.
        bool serviceTime = false;
        for (const Storage::LatestMetric &l : reader->latestMetrics()) {
            if (l.key.metric == Metric::ServiceTimeMs && l.key.service == QLatin1String("chat")) {
                serviceTime = true;
                QCOMPARE(l.key.partition, 428);
                QVERIFY2(std::abs(l.point.value - 50.0 * 7 / 3) < 1,
                         qPrintable(QString::number(l.point.value)));
            }
        }
        QVERIFY(serviceTime);
        // The training jobs' specs ride on job-submitted; a replica's does not.
        Storage::EventFilter submitted;
        submitted.codes = {QByteArrayLiteral("job-submitted")};
        int withSpec = 0, replicas = 0;
        int big = -1;
        for (const Storage::Event &e : reader->events(submitted)) {
            const QJsonObject ep = QJsonDocument::fromJson(e.params).object();
            if (ep.contains(QStringLiteral("spec"))) {
                ++withSpec;
                const QString name = ep.value(QStringLiteral("spec"))
                                             .toObject()
                                             .value(QStringLiteral("name"))
                                             .toString();
                QVERIFY(name == QLatin1String("big") || name == QLatin1String("small"));
                if (name == QLatin1String("big"))
                    big = e.job;
            } else {
                ++replicas;
            }
        }
        QCOMPARE(withSpec, 2);
        QVERIFY(replicas >= 1);
        QVERIFY(big >= 0);
        const QList<Storage::MetricPoint> work
                = reader->series({Metric::TrainingWorkH, -1, -1, {}, big},
                                 Storage::Tier::Raw,
                                 start,
                                 start + 30 * 60'000);
        QVERIFY(work.size() >= 20);
        QVERIFY(work.last().value > work.first().value);
    }

    void applianceEventsAreStoredByName_data()
    {
        using C = Device::ApplianceEventCode;
        QTest::addColumn<Device::ApplianceEvent>("event");
        QTest::addColumn<QByteArray>("params");
        Device::ApplianceEvent e;
        e.code = C::TrainingResumed;
        e.workSavedMs = 1'740'000;
        e.workLostMs = 300'000;
        QTest::newRow("a resume says the work lost")
                << e
                << QByteArray(R"({"reason":"none","workLostMs":300000,"workSavedMs":1740000})");
        e = {};
        e.code = C::StepDone;
        e.stepKind = 0;
        e.profile = 4;
        e.start = 0;
        e.durationMs = 2100;
        QTest::newRow("a step")
                << e
                << QByteArray(
                           R"({"durationMs":2100,"profileIndex":4,"reason":"none","start":0,"stepKind":0})");
        e = {};
        e.code = C::GuardPressure;
        e.reason = Device::ActionReason::SloAtRisk;
        e.service = 1;
        e.p99Us = 1'250'400;
        e.queueDepth = 14;
        QTest::newRow("guard pressure")
                << e
                << QByteArray(
                           R"({"p99Us":1250400,"queueDepth":14,"reason":"slo-at-risk","service":1})");
        e = {};
        e.code = C::BudgetSet;
        e.trainingMilli = 3000;
        QTest::newRow("a budget")
                << e << QByteArray(R"({"inferenceMilli":-1,"reason":"none","trainingMilli":3000})");
        e = {};
        e.code = C::FaultCardLost;
        e.durationMs = 5; // not a parameter of this code
        QTest::newRow("only the code's own") << e << QByteArray(R"({"reason":"none"})");
    }

    // Each code stores the members it sets under their names, nothing else (no a, b, c, value).
    void applianceEventsAreStoredByName()
    {
        QFETCH(Device::ApplianceEvent, event);
        QFETCH(QByteArray, params);
        QCOMPARE(QJsonDocument(Session::applianceEventParams(event)).toJson(QJsonDocument::Compact),
                 params);
    }

    void processEventsAreStoredByName_data()
    {
        using C = Runtime::ProcessEventCode;
        QTest::addColumn<Runtime::ProcessEvent>("event");
        QTest::addColumn<QByteArray>("params");
        Runtime::ProcessEvent e;
        e.jobName = QStringLiteral("llm");
        e.key = QStringLiteral("j3-r0");
        e.code = C::Started;
        e.pid = 4242;
        e.backoffMs = 7; // not a parameter of this code
        QTest::newRow("started: its pid")
                << e << QByteArray(R"({"job":"llm","pid":4242,"process":"j3-r0","rank":0})");
        e = {};
        e.code = C::Restarting;
        e.backoffMs = 2000;
        QTest::newRow("restarting: its back-off")
                << e << QByteArray(R"({"backoffMs":2000,"job":"","process":"","rank":0})");
        e = {};
        e.code = C::CheckpointRequested;
        e.deadlineMs = 1'767'594'000'000;
        QTest::newRow("checkpoint requested: its deadline")
                << e
                << QByteArray(R"({"deadlineMs":1767594000000,"job":"","process":"","rank":0})");
        e = {};
        e.code = C::Ready;
        e.port = 40123;
        QTest::newRow("ready: its port")
                << e << QByteArray(R"({"job":"","port":40123,"process":"","rank":0})");
        e = {};
        e.code = C::Finished;
        e.pid = 1;
        QTest::newRow("finished: nothing of its own")
                << e << QByteArray(R"({"job":"","process":"","rank":0})");
    }

    // A process event stores its code's parameter under its name, never as "value".
    void processEventsAreStoredByName()
    {
        QFETCH(Runtime::ProcessEvent, event);
        QFETCH(QByteArray, params);
        QCOMPARE(QJsonDocument(Session::processEventJson(event)).toJson(QJsonDocument::Compact),
                 params);
    }

    void refusedPlacementSaysWhy()
    {
        Session::SimulationSession session(smallScenario(), QString(), 3);
        session.runTo(30 * 60'000);
        const Session::SnapshotPtr s = session.latest();
        const Domain::JobId small = jobNamed(*s, QStringLiteral("small"));
        const int free = 1 - cardOf(*s, jobNamed(*s, QStringLiteral("big")));
        QSignalSpy spy(&session, &Session::ApplianceSession::placementPreviewReady);
        session.previewPlacement(7, small.value(), free);
        QCOMPARE(spy.count(), 1);
        const auto p = spy.first().first().value<Session::PlacementPreview>();
        QCOMPARE(p.request, quint64(7));
        QCOMPARE(p.outcome, Session::PlacementPreview::Outcome::Refused);
        QCOMPARE(p.status.reason, Sched::Reason::ClassBudgetExceeded);
        QSignalSpy done(&session, &Session::ApplianceSession::commandFinished);
        session.placeJob(8, small.value(), free, false);
        QCOMPARE(done.count(), 1);
        const auto r = done.first().first().value<Session::CommandResult>();
        QVERIFY(!r.ok);
        QVERIFY(!r.error.isEmpty());
        QCOMPARE(session.latest()->state.job(small).state, Sched::JobState::Pending);
    }

    // The operator's workloads in the twin: a training spec is modelled and scheduled; an
    // inference spec, a bad field and a twin's "log" are refused with the reason; cancel and
    // priority act on the scheduler.
    void operatorWorkloadsInTheTwin()
    {
        Session::SimulationSession session(smallScenario(), QString(), 3);
        session.runTo(60 * 60'000);
        QSignalSpy done(&session, &Session::ApplianceSession::commandFinished);
        auto last = [&] { return done.last().first().value<Session::CommandResult>(); };
        const QJsonObject spec{
                {"name", "extra"},
                {"kind", "training"},
                {"demand", QJsonObject{{"compute", QJsonObject{{"profile", "1g.18gb"}}}}},
                {"time", QJsonObject{{"expectedDuration", "2h"}}},
                {"priority", 150},
                {"preemption", "checkpoint"},
                {"checkpointInterval", "10m"}};
        session.submitWorkload(1, spec);
        QVERIFY2(last().ok, qPrintable(last().error));
        const Domain::JobId extra = last().job;
        QCOMPARE(session.latest()->state.job(extra).spec.name, QStringLiteral("extra"));

        QJsonObject bad = spec;
        bad.insert(QStringLiteral("priority"), QStringLiteral("high"));
        session.submitWorkload(2, bad);
        QVERIFY(!last().ok);
        QCOMPARE(last().field, QStringLiteral("priority"));
        QJsonObject service = spec;
        service.insert(QStringLiteral("kind"), QStringLiteral("inference"));
        service.insert(QStringLiteral("inference"),
                       QJsonObject{{"service", "new"},
                                   {"sloP99Ms", 500},
                                   {"replicas", QJsonObject{{"min", 1}, {"max", 2}}}});
        service.remove(QStringLiteral("time"));
        service.insert(QStringLiteral("preemption"), QStringLiteral("never"));
        service.remove(QStringLiteral("checkpointInterval"));
        session.submitWorkload(3, service);
        QVERIFY2(!last().ok && last().field == QLatin1String("kind"), qPrintable(last().error));

        session.setJobPriority(4, extra.value(), 7);
        QVERIFY(last().ok);
        QCOMPARE(session.latest()->state.job(extra).spec.priority, 7);
        session.cancelJob(5, extra.value());
        QVERIFY(last().ok);
        QCOMPARE(session.latest()->state.job(extra).state, Sched::JobState::Cancelled);
        session.cancelJob(6, extra.value());
        QVERIFY(!last().ok);

        QSignalSpy logs(&session, &Session::ApplianceSession::jobLogReady);
        session.requestJobLog(7, extra.value(), 4096);
        QCOMPARE(logs.size(), 1);
        const auto log = logs.first().first().value<Session::JobLog>();
        QVERIFY(!log.ok);
        QVERIFY(log.error.contains(QLatin1String("no log")));
    }

    void repartitionImmediateAndDrain()
    {
        Session::SimulationSession session(smallScenario(), QString(), 3);
        session.runTo(35 * 60'000); // between two checkpoints
        Session::SnapshotPtr s = session.latest();
        const Domain::JobId big = jobNamed(*s, QStringLiteral("big"));
        const int card = cardOf(*s, big);
        QVERIFY(card >= 0);
        const QList<Domain::MigPlacement> halves{{4, 0}, {4, 4}}; // 3g.71gb @0, @4
        // Preview: the running job is affected.
        QSignalSpy previews(&session, &Session::ApplianceSession::layoutPreviewReady);
        session.previewLayout(1, card, halves);
        const auto lp = previews.first().first().value<Session::LayoutPreview>();
        QVERIFY2(lp.ok, qPrintable(lp.error));
        QCOMPARE(lp.affectedJobs, QList<Domain::JobId>{big});
        QCOMPARE(lp.destroys, 1);
        QCOMPARE(lp.creates, 2);
        // An illegal layout is refused with the rules' words and changes nothing.
        QSignalSpy done(&session, &Session::ApplianceSession::commandFinished);
        session.applyLayout(2, card, {{4, 0}, {4, 2}}, Session::ApplyMode::Immediate, 0);
        QCOMPARE(done.count(), 1);
        QVERIFY(!done.takeFirst().first().value<Session::CommandResult>().ok);
        QCOMPARE(session.latest()->state.card(Domain::CardId(card)).units.size(), 1);
        // Drain: waits for its next checkpoint (every 10 min of work), then applies.
        session.applyLayout(3, card, halves, Session::ApplyMode::Drain, 3600'000);
        QCOMPARE(done.count(), 0);
        QVERIFY(session.latest()->state.job(big).state == Sched::JobState::Preempting);
        for (int minute = 36; minute <= 55 && done.isEmpty(); ++minute)
            session.runTo(qint64(minute) * 60'000);
        QCOMPARE(done.count(), 1);
        const auto applied = done.first().first().value<Session::CommandResult>();
        QVERIFY2(applied.ok, qPrintable(applied.error));
        s = session.latest();
        QCOMPARE(s->state.card(Domain::CardId(card)).migLayout().size(), 2);
        // Drained at its checkpoint: nothing lost.
        QCOMPARE(s->state.job(big).lostWorkMs, 0);
    }

    // An operator's layout, pinned, is the card's layout at the end of the run; unpinned, the twin
    // changes it for waiting work (and says that it did).
    void aPinnedLayoutSurvivesTheRun_data()
    {
        QTest::addColumn<bool>("pinned");
        QTest::newRow("pinned") << true;
        QTest::newRow("not pinned") << false;
    }
    void aPinnedLayoutSurvivesTheRun()
    {
        QFETCH(bool, pinned);
        Session::SimulationSession session(smallScenario(), QString(), 3);
        session.runTo(5 * 60'000);
        Session::SnapshotPtr s = session.latest();
        const int busy = cardOf(*s, jobNamed(*s, QStringLiteral("big")));
        const int card = busy == 0 ? 1 : 0;
        const Domain::CardModel &model = s->state.model(s->state.card(Domain::CardId(card)));
        // Seven 1g instances: the service's replica (3g.71gb) that was there must wait for a 3g.
        const int g1 = model.profileIndex(QStringLiteral("1g.18gb"));
        QVERIFY(g1 >= 0);
        QList<Domain::MigPlacement> mine;
        for (int start = 0; start < 7; ++start)
            mine.append({g1, start});
        QSignalSpy done(&session, &Session::ApplianceSession::commandFinished);
        // Pinned first, then changed: the cycle that follows the change must not undo it.
        if (pinned) {
            session.pinLayout(2, card, -1);
            const auto r = done.takeFirst().first().value<Session::CommandResult>();
            QVERIFY2(r.ok, qPrintable(r.error));
            QCOMPARE(session.latest()->state.card(Domain::CardId(card)).layoutPinnedUntilMs, -1);
            // Unpinning a card that is not pinned is refused with the card named.
            session.pinLayout(3, busy, 0);
            const auto no = done.takeFirst().first().value<Session::CommandResult>();
            QVERIFY(!no.ok);
            QVERIFY2(no.error.contains(QString::number(busy)), qPrintable(no.error));
        }
        session.applyLayout(1, card, mine, Session::ApplyMode::Immediate, 0);
        QVERIFY(done.takeFirst().first().value<Session::CommandResult>().ok);
        // Unpinned, the twin reconfigures the card for the waiting replica.
        session.runTo(4 * 3600'000);
        s = session.latest();
        session.stop();
        QString err;
        auto reader = Storage::Reader::open(
                session.storePath(), Storage::Reader::OpenMode::RequireCurrent, &err);
        QVERIFY2(reader, qPrintable(err));
        Storage::EventFilter onCard;
        onCard.cards = {card};
        QByteArrayList codes;
        for (const Storage::Event &e : reader->events(onCard))
            codes << e.code;
        QList<Domain::MigPlacement> now = s->state.card(Domain::CardId(card)).migLayout();
        std::sort(now.begin(), now.end(), [](const auto &a, const auto &b) {
            return a.start < b.start;
        });
        if (pinned) {
            QVERIFY2(now == mine, codes.join(' ').constData());
            QVERIFY(codes.contains("layout-pinned"));
            QVERIFY2(!codes.contains("card-changed-after-operator"), codes.join(' ').constData());
        } else {
            QVERIFY(now != mine);
            QVERIFY2(codes.contains("card-changed-after-operator"), codes.join(' ').constData());
        }
    }

    // A drop refused as the cards are laid out names the layout that would let the job run:
    // the pinned card of seven idle 1g instances, as 3g.71gb and what stays. Nothing changes
    // until the operator applies it; applied, the waiting replica runs there.
    void aRefusedDropNamesTheLayoutThatFits()
    {
        using Outcome = Session::PlacementPreview::Outcome;
        Session::SimulationSession session(smallScenario(), QString(), 3);
        session.runTo(5 * 60'000);
        Session::SnapshotPtr s = session.latest();
        const int busy = cardOf(*s, jobNamed(*s, QStringLiteral("big")));
        const int card = busy == 0 ? 1 : 0;
        const Domain::CardModel &model = s->state.model(s->state.card(Domain::CardId(card)));
        const int g1 = model.profileIndex(QStringLiteral("1g.18gb"));
        const int g3 = model.profileIndex(QStringLiteral("3g.71gb"));
        QList<Domain::MigPlacement> sevenSmall;
        for (int start = 0; start < 7; ++start)
            sevenSmall.append({g1, start});
        QSignalSpy done(&session, &Session::ApplianceSession::commandFinished);
        session.pinLayout(1, card, -1);
        QVERIFY(done.takeFirst().first().value<Session::CommandResult>().ok);
        session.applyLayout(2, card, sevenSmall, Session::ApplyMode::Immediate, 0);
        QVERIFY(done.takeFirst().first().value<Session::CommandResult>().ok);
        session.runTo(6 * 60'000);
        session.setPaused(true);
        s = session.latest();
        Domain::JobId replica;
        for (const Sched::Job &j : s->state.jobs()) {
            if (j.spec.kind == Domain::WorkloadKind::Inference
                && j.state == Sched::JobState::Pending)
                replica = j.id;
        }
        QVERIFY(replica.isValid());

        QSignalSpy previews(&session, &Session::ApplianceSession::placementPreviewReady);
        for (const int target : {card, busy}) {
            session.previewPlacement(3, replica.value(), target);
            const auto p = previews.takeFirst().first().value<Session::PlacementPreview>();
            QCOMPARE(p.outcome, Outcome::Refused);
            QVERIFY(p.status.reason != Sched::Reason::ClassBudgetExceeded);
            // Dropped on the pinned card or on the busy one: the pinned card is the one to change.
            QCOMPARE(p.layoutCard, Domain::CardId(card));
            QVERIFY(Catalogue::validateLayout(model, p.layoutTarget).isValid());
            QCOMPARE(std::count_if(p.layoutTarget.cbegin(),
                                   p.layoutTarget.cend(),
                                   [&](const Domain::MigPlacement &m) { return m.profile == g3; }),
                     1);
            // Only the instances the 3g needs go: the other 1g instances stay where they are.
            int kept = 0;
            for (const Domain::MigPlacement &m : p.layoutTarget)
                kept += m.profile == g1 && sevenSmall.contains(m) ? 1 : 0;
            QCOMPARE(kept, int(p.layoutTarget.size()) - 1);
            QVERIFY(kept >= 3);
        }
        QCOMPARE(session.latest()->state.card(Domain::CardId(card)).migLayout().size(), 7);

        // The layout as hinted, applied by the operator: the replica runs there.
        session.previewPlacement(4, replica.value(), card);
        const auto hint = previews.takeFirst().first().value<Session::PlacementPreview>();
        session.applyLayout(5, card, hint.layoutTarget, Session::ApplyMode::Immediate, 0);
        QVERIFY(done.takeFirst().first().value<Session::CommandResult>().ok);
        session.setPaused(false);
        session.runTo(10 * 60'000);
        s = session.latest();
        QCOMPARE(s->state.job(replica).state, Sched::JobState::Running);
        QCOMPARE(cardOf(*s, replica), card);
    }

    // Paused, a card freed by a command reads idle at once (not its old utilisation and power).
    void aFreedCardReadsIdleAtOnce()
    {
        Session::SimulationSession session(smallScenario(), QString(), 3);
        session.runTo(35 * 60'000);
        session.setPaused(true);
        Session::SnapshotPtr s = session.latest();
        const Domain::JobId big = jobNamed(*s, QStringLiteral("big"));
        const int card = cardOf(*s, big);
        QVERIFY(card >= 0);
        QVERIFY(s->cards[card].utilisation > 0.5);
        const double idleW = s->state.model(s->state.card(Domain::CardId(card))).idlePowerW;
        QVERIFY(s->cards[card].powerW > idleW + 100);
        QSignalSpy done(&session, &Session::ApplianceSession::commandFinished);
        session.cancelJob(1, big.value());
        QVERIFY(done.first().first().value<Session::CommandResult>().ok);
        s = session.latest();
        QCOMPARE(s->nowMs, session.latest()->nowMs); // no time went by
        QCOMPARE(s->cards[card].utilisation, 0.0);
        QCOMPARE(s->cards[card].powerW, idleW);
    }

    void scheduleCheckedLikeTheHeadlessTool()
    {
        Session::SimulationSession session(smallScenario(), QString(), 3);
        session.runTo(10 * 60'000);
        QSignalSpy done(&session, &Session::ApplianceSession::commandFinished);
        const QJsonObject bad
                = QJsonDocument::fromJson(
                          R"({"windows": [{"name": "day", "from": "25:00", "to": "20:00", "inferenceShare": 0.6}]})")
                          .object();
        session.setSchedule(1, bad);
        auto r = done.takeFirst().first().value<Session::CommandResult>();
        QVERIFY(!r.ok);
        QVERIFY2(r.error.contains(QStringLiteral("from")), qPrintable(r.error));
        QCOMPARE(session.latest()->policy, QStringLiteral("static"));
        const QJsonObject good
                = QJsonDocument::fromJson(
                          R"({"windows": [{"name": "day", "from": "08:00", "to": "20:00", "inferenceShare": 0.6}, {"name": "night", "from": "20:00", "to": "08:00", "inferenceShare": 0.2}]})")
                          .object();
        session.setSchedule(2, good);
        r = done.takeFirst().first().value<Session::CommandResult>();
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(session.latest()->policy, QStringLiteral("windows"));
        QCOMPARE(session.latest()->window, QStringLiteral("day"));
    }

    // A schedule that gives the day wholly to inference: the preview says what it will do (the
    // policy and budget before and after, the training it takes off and the work lost) and
    // changes nothing; setting it carries the confirmed evictions and is refused when they no
    // longer hold.
    void schedulePreviewedThenConfirmed()
    {
        Session::SimulationSession session(smallScenario(), QString(), 3);
        session.runTo(35 * 60'000);
        session.setPaused(true);
        Session::SnapshotPtr s = session.latest();
        const Domain::JobId big = jobNamed(*s, QStringLiteral("big"));
        QCOMPARE(s->state.job(big).state, Sched::JobState::Running);
        const Sched::ClassBudget budgetBefore = s->budget;
        const QJsonObject allInference = QJsonDocument::fromJson(R"({"mode": "immediate",
            "windows": [{"name": "day", "from": "00:00", "to": "24:00", "inferenceShare": 1.0}]})")
                                                 .object();
        QSignalSpy previews(&session, &Session::ApplianceSession::schedulePreviewReady);
        session.previewSchedule(7, allInference);
        QCOMPARE(previews.count(), 1);
        Session::SchedulePreview p = previews.takeFirst().first().value<Session::SchedulePreview>();
        QCOMPARE(p.request, quint64(7));
        QVERIFY2(p.ok, qPrintable(p.error));
        QCOMPARE(p.policyBefore, QStringLiteral("static"));
        QCOMPARE(p.policyAfter, QStringLiteral("windows"));
        QCOMPARE(p.windowAfter, QStringLiteral("day"));
        QCOMPARE(p.budgetBefore, budgetBefore);
        QCOMPARE(p.budgetAfter.trainingMilli, 0);
        QCOMPARE(p.evictedIds(), QList<int>{big.value()});
        QCOMPARE(p.evictionNames, QStringList{QStringLiteral("big")});
        QVERIFY(!p.evictions[0].atCheckpoint);
        // Placed at 09:00 and checkpointing every 10 minutes: 35 minutes in, it loses the 5
        // since its last checkpoint (at most one interval).
        QVERIFY2(p.evictions[0].lostMs > 0 && p.evictions[0].lostMs <= 10 * 60'000,
                 qPrintable(QString::number(p.evictions[0].lostMs)));
        QCOMPARE(p.services.size(), 1);
        QCOMPARE(p.services[0].name, QStringLiteral("chat"));
        QVERIFY(p.needsConfirmation());
        // Nothing changed.
        s = session.latest();
        QCOMPARE(s->policy, QStringLiteral("static"));
        QCOMPARE(s->state.job(big).state, Sched::JobState::Running);

        // Drained ahead of a window that opens at 10:00 (it is 09:35 there): the same job leaves
        // at its next checkpoint, before the edge, and loses nothing.
        const QJsonObject drained = QJsonDocument::fromJson(R"({"mode": "drain",
            "prepareAhead": "1h", "windows": [
                {"name": "morning", "from": "00:00", "to": "10:00", "inferenceShare": 0.5},
                {"name": "day", "from": "10:00", "to": "24:00", "inferenceShare": 1.0}]})")
                                            .object();
        session.previewSchedule(8, drained);
        p = previews.takeFirst().first().value<Session::SchedulePreview>();
        QCOMPARE(p.evictedIds(), QList<int>{big.value()});
        QVERIFY(p.evictions[0].atCheckpoint);
        QCOMPARE(p.evictions[0].lostMs, 0);
        QVERIFY(p.evictions[0].leavesAtMs > s->nowMs);
        QVERIFY(p.evictions[0].leavesAtMs <= s->nowMs + 25 * 60'000);
        QCOMPARE(p.windowAfter, QStringLiteral("morning"));

        // A bad schedule: not ok, with its field.
        session.previewSchedule(9, QJsonObject{{QStringLiteral("windows"), 3}});
        p = previews.takeFirst().first().value<Session::SchedulePreview>();
        QVERIFY(!p.ok);
        QCOMPARE(p.field, QStringLiteral("windows"));

        // Confirmed with other evictions than it would make: refused, nothing applied.
        QSignalSpy done(&session, &Session::ApplianceSession::commandFinished);
        session.setScheduleConfirmed(10, allInference, {});
        auto r = done.takeFirst().first().value<Session::CommandResult>();
        QVERIFY(!r.ok);
        QVERIFY(r.planChanged);
        QVERIFY2(r.error.contains(QString::number(big.value())), qPrintable(r.error));
        QCOMPARE(session.latest()->policy, QStringLiteral("static"));
        QCOMPARE(session.latest()->state.job(big).state, Sched::JobState::Running);
        // As confirmed: applied, and the job the preview named has left.
        session.setScheduleConfirmed(11, allInference, {big.value()});
        r = done.takeFirst().first().value<Session::CommandResult>();
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(session.latest()->policy, QStringLiteral("windows"));
        QVERIFY(!session.latest()->state.job(big).isActive()
                || session.latest()->state.job(big).state != Sched::JobState::Running);
    }

    // Cordoned, a card keeps its work but takes none; drained, its training leaves at its
    // checkpoint and waits elsewhere; uncordoned, it takes work again.
    void aCardIsCordonedDrainedAndUncordoned()
    {
        Session::SimulationSession session(smallScenario(), QString(), 3);
        session.runTo(35 * 60'000);
        session.setPaused(true);
        Session::SnapshotPtr s = session.latest();
        const Domain::JobId big = jobNamed(*s, QStringLiteral("big"));
        const int card = cardOf(*s, big);
        QVERIFY(card >= 0);
        QSignalSpy done(&session, &Session::ApplianceSession::commandFinished);
        session.cordonCard(1, card, true, false);
        auto r = done.takeFirst().first().value<Session::CommandResult>();
        QVERIFY2(r.ok, qPrintable(r.error));
        s = session.latest();
        QVERIFY(s->state.card(Domain::CardId(card)).operatorCordoned);
        QVERIFY(s->state.card(Domain::CardId(card)).cordoned);
        QCOMPARE(s->state.job(big).state, Sched::JobState::Running); // its work stays
        session.cordonCard(2, card, true, false);
        r = done.takeFirst().first().value<Session::CommandResult>();
        QVERIFY(!r.ok);
        QVERIFY2(r.error.contains(QStringLiteral("already")), qPrintable(r.error));
        session.cordonCard(3, 99, true, false);
        QVERIFY(!done.takeFirst().first().value<Session::CommandResult>().ok);

        // Drained: it leaves at its checkpoint (10-minute interval), then cannot come back.
        session.cordonCard(4, card, true, true);
        r = done.takeFirst().first().value<Session::CommandResult>();
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(session.latest()->state.job(big).state, Sched::JobState::Preempting);
        session.setPaused(false);
        session.runTo(50 * 60'000);
        s = session.latest();
        QVERIFY(cardOf(*s, big) != card);
        QVERIFY(s->state.card(Domain::CardId(card)).cordoned);

        // (The small job that started meanwhile holds the training budget: it goes, so that
        // only the cordon keeps the big one waiting.)
        session.cancelJob(50, jobNamed(*s, QStringLiteral("small")).value());
        QVERIFY(done.takeFirst().first().value<Session::CommandResult>().ok);
        QCOMPARE(session.latest()->state.job(big).state, Sched::JobState::Pending);
        session.cordonCard(5, card, false, false);
        r = done.takeFirst().first().value<Session::CommandResult>();
        QVERIFY2(r.ok, qPrintable(r.error));
        QVERIFY(!session.latest()->state.card(Domain::CardId(card)).cordoned);
        session.runTo(55 * 60'000);
        QCOMPARE(session.latest()->state.job(big).state, Sched::JobState::Running);
        QCOMPARE(cardOf(*session.latest(), big), card);
        session.cordonCard(6, card, false, false);
        QVERIFY(!done.takeFirst().first().value<Session::CommandResult>().ok);
    }

    // A drop refused for the class budget says when the job could start: under a schedule whose
    // window at 12:00 gives training the second card, at 12:00 with that window's name; under the
    // static split, when the running job is expected to end.
    void aRefusedDropSaysWhenItCouldStart()
    {
        Session::SimulationSession session(smallScenario(), QString(), 3);
        session.runTo(35 * 60'000); // 09:35 local
        session.setPaused(true);
        Session::SnapshotPtr s = session.latest();
        const Domain::JobId small = jobNamed(*s, QStringLiteral("small"));
        const Domain::JobId big = jobNamed(*s, QStringLiteral("big"));
        QCOMPARE(s->state.job(small).state, Sched::JobState::Pending);
        const int other = 1 - cardOf(*s, big);
        QSignalSpy previews(&session, &Session::ApplianceSession::placementPreviewReady);
        session.previewPlacement(1, small.value(), other);
        Session::PlacementPreview p
                = previews.takeFirst().first().value<Session::PlacementPreview>();
        QCOMPARE(p.outcome, Session::PlacementPreview::Outcome::Refused);
        QCOMPARE(p.status.reason, Sched::Reason::ClassBudgetExceeded);
        // Static: when "big" (10 h, placed at 09:00) is expected to end.
        QVERIFY2(p.startsAtMs > s->nowMs + 8 * 3600'000LL,
                 qPrintable(QString::number(p.startsAtMs - s->nowMs)));
        QVERIFY(p.startsWithWindow.isEmpty());

        QSignalSpy done(&session, &Session::ApplianceSession::commandFinished);
        session.setSchedule(2,
                            QJsonDocument::fromJson(R"({"prepareAhead": "0s", "windows": [
            {"name": "morning", "from": "00:00", "to": "12:00", "inferenceShare": 0.5},
            {"name": "noon", "from": "12:00", "to": "24:00", "inferenceShare": 0.0}]})")
                                    .object());
        QVERIFY(done.takeFirst().first().value<Session::CommandResult>().ok);
        s = session.latest();
        session.previewPlacement(3, small.value(), other);
        p = previews.takeFirst().first().value<Session::PlacementPreview>();
        QCOMPARE(p.outcome, Session::PlacementPreview::Outcome::Refused);
        QCOMPARE(p.status.reason, Sched::Reason::ClassBudgetExceeded);
        const qint64 noon = s->startMs + 3 * 3600'000LL; // the scenario starts at 09:00 local
        QCOMPARE(p.startsAtMs, noon);
        QCOMPARE(p.startsWithWindow, QStringLiteral("noon"));
    }

    // "Place anyway, over the class budget": the refused preview offers it; a confirmation with
    // another plan is refused and places nothing; the confirmed one places the job marked over
    // the budget; a schedule that shrinks training does not evict it for the budget; requeued,
    // it is an ordinary waiting job again.
    void placeAnywayOverTheClassBudget()
    {
        using Outcome = Session::PlacementPreview::Outcome;
        Session::SimulationSession session(smallScenario(), QString(), 3);
        session.runTo(35 * 60'000);
        session.setPaused(true);
        Session::SnapshotPtr s = session.latest();
        const Domain::JobId small = jobNamed(*s, QStringLiteral("small"));
        const Domain::JobId big = jobNamed(*s, QStringLiteral("big"));
        const int other = 1 - cardOf(*s, big);
        QSignalSpy previews(&session, &Session::ApplianceSession::placementPreviewReady);
        session.previewPlacement(1, small.value(), other);
        const auto p = previews.takeFirst().first().value<Session::PlacementPreview>();
        QCOMPARE(p.outcome, Outcome::Refused);
        QCOMPARE(p.status.reason, Sched::Reason::ClassBudgetExceeded);
        QCOMPARE(p.overBudget, Outcome::Direct);
        QVERIFY(p.overBudgetVictims.isEmpty());
        // Over the budget with the budget waived, nothing else changes on the card.
        QVERIFY(p.overBudgetStatus.isSuccess());

        QSignalSpy done(&session, &Session::ApplianceSession::commandFinished);
        session.placeJobConfirmed(
                2, small.value(), other, {big.value()}, Sched::BudgetRule::Exceed);
        auto r = done.takeFirst().first().value<Session::CommandResult>();
        QVERIFY(!r.ok);
        QVERIFY(r.planChanged);
        QVERIFY2(r.error.contains(QLatin1String("would now preempt jobs none")),
                 qPrintable(r.error));
        QCOMPARE(session.latest()->state.job(small).state, Sched::JobState::Pending);
        QCOMPARE(session.latest()->state.job(big).state, Sched::JobState::Running);

        session.placeJobConfirmed(3, small.value(), other, {}, Sched::BudgetRule::Exceed);
        r = done.takeFirst().first().value<Session::CommandResult>();
        QVERIFY2(r.ok, qPrintable(r.error));
        s = session.latest();
        QCOMPARE(s->state.job(small).state, Sched::JobState::Running);
        QCOMPARE(cardOf(*s, small), other);
        QVERIFY(s->state.job(small).overBudget);
        QVERIFY(!s->state.job(big).overBudget);
        QVERIFY(s->state.classUsage().training > s->budget.trainingMilli);
        // The jobs table marks it, in its state and a role of its own.
        Models::JobTableModel table;
        table.setSnapshot(*s);
        int marked = 0;
        for (int row = 0; row < table.rowCount(); ++row) {
            const QModelIndex state = table.index(row, Models::JobTableModel::StateColumn);
            const bool over = state.data(Models::JobTableModel::OverBudgetRole).toBool();
            marked += over ? 1 : 0;
            QCOMPARE(over, state.data(Models::JobTableModel::JobIdRole).toInt() == small.value());
            QCOMPARE(state.data().toString().endsWith(QLatin1String(", over budget")), over);
        }
        QCOMPARE(marked, 1);

        // A schedule that gives training half the appliance: the excused job is not evicted to
        // bring training within its budget (neither is "big": the over-budget share is excused).
        session.setSchedule(4,
                            QJsonDocument::fromJson(R"({"prepareAhead": "0s", "windows": [
            {"name": "half", "from": "00:00", "to": "24:00", "inferenceShare": 0.5}]})")
                                    .object());
        QVERIFY(done.takeFirst().first().value<Session::CommandResult>().ok);
        session.runTo(95 * 60'000);
        s = session.latest();
        QCOMPARE(s->policy, QStringLiteral("windows"));
        QCOMPARE(s->budget.trainingMilli, 1000);
        QCOMPARE(s->state.job(big).state, Sched::JobState::Running);
        QCOMPARE(s->state.job(big).preemptions, 0);
        QCOMPARE(s->state.job(small).state, Sched::JobState::Running);
        QVERIFY(s->state.job(small).overBudget);
        QCOMPARE(s->state.job(small).preemptions, 0);

        // Back in the queue it is an ordinary waiting job: its drop is refused for the budget.
        session.requeueJob(5, small.value());
        QVERIFY(done.takeFirst().first().value<Session::CommandResult>().ok);
        s = session.latest();
        QCOMPARE(s->state.job(small).state, Sched::JobState::Pending);
        QVERIFY(!s->state.job(small).overBudget);
        session.placeJob(6, small.value(), other, false);
        r = done.takeFirst().first().value<Session::CommandResult>();
        QVERIFY(!r.ok);
        QCOMPARE(r.status.reason, Sched::Reason::ClassBudgetExceeded);
    }

    // Restarted, the day is the scenario's again from its beginning: what the operator did is
    // gone, and an hour later it is where a fresh session is an hour in (the same seed).
    void theDayRestartsFromItsBeginning()
    {
        Session::SimulationSession session(smallScenario(), QString(), 3);
        session.runTo(35 * 60'000);
        const Domain::JobId big = jobNamed(*session.latest(), QStringLiteral("big"));
        QSignalSpy done(&session, &Session::ApplianceSession::commandFinished);
        session.cancelJob(1, big.value());
        QVERIFY(done.takeFirst().first().value<Session::CommandResult>().ok);
        session.cordonCard(2, 0, true, false);
        QVERIFY(done.takeFirst().first().value<Session::CommandResult>().ok);
        const quint64 serial = session.latest()->serial;
        session.restartDay();
        Session::SnapshotPtr s = session.latest();
        QCOMPARE(s->nowMs, s->startMs);
        QVERIFY(s->serial > serial); // the console sees a new picture
        QVERIFY(!s->state.card(Domain::CardId(0)).cordoned);
        QVERIFY(s->state.job(big).state != Sched::JobState::Cancelled);
        session.runTo(60 * 60'000);
        Session::SimulationSession fresh(smallScenario(), QString(), 3);
        fresh.runTo(60 * 60'000);
        QCOMPARE(session.latest()->nowMs, fresh.latest()->nowMs);
        QVERIFY(session.latest()->state == fresh.latest()->state);
    }

    void runsOnItsOwnThread()
    {
        QThread thread;
        auto *session = new Session::SimulationSession(smallScenario(), QString(), 3);
        session->moveToThread(&thread);
        QObject::connect(&thread, &QThread::finished, session, &QObject::deleteLater);
        thread.start();
        Models::SessionClient client(session);
        QSignalSpy snapshots(&client, &Models::SessionClient::snapshotChanged);
        client.setSpeed(-1); // as fast as it goes
        QMetaObject::invokeMethod(session, &Session::ApplianceSession::start, Qt::QueuedConnection);
        QTRY_VERIFY_WITH_TIMEOUT(client.snapshot() && client.snapshot()->finished, 60'000);
        QVERIFY(snapshots.count() >= 2);
        // Commands are queued to the session's thread and answered on ours.
        QSignalSpy done(&client, &Models::SessionClient::commandFinished);
        const quint64 id = client.requeueJob(Domain::JobId(9999));
        QTRY_COMPARE(done.count(), 1);
        const auto r = done.first().first().value<Session::CommandResult>();
        QCOMPARE(r.request, id);
        QVERIFY(!r.ok);
        QMetaObject::invokeMethod(
                session, &Session::ApplianceSession::stop, Qt::BlockingQueuedConnection);
        thread.quit();
        thread.wait();
    }
};

QTEST_GUILESS_MAIN(TestSimulationSession)
#include "tst_simulationsession.moc"
