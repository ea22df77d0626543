// SPDX-License-Identifier: GPL-3.0-or-later
// The engine: the same scenario and seed give the same report bit for bit; a lost card's job
// resumes elsewhere from its checkpoint; everything that happens is an event with a time;
// replicas leave so that cards empty whole, and move to another card without a gap; a lone
// time-slicing sharer keeps its card; the power budget is cut where a watt does least; a drain
// can be called off; the capacity breakdown accounts for every card-hour.
#include "core/catalogue/catalogue.h"
#include "core/sim/engine.h"

#include <QJsonDocument>
#include <QtTest>

using namespace Zhaoxi;
using namespace Zhaoxi::Sim;

namespace {

const Catalogue::Catalogue &catalogue()
{
    static const Catalogue::Catalogue c = Catalogue::Catalogue::builtIn();
    return c;
}

Scenario load(const QString &file)
{
    ScenarioError e;
    const auto s = loadScenarioFile(qEnvironmentVariable("ZHAOXI_SOURCE_DIR")
                                            + QStringLiteral("/resources/scenarios/") + file,
                                    catalogue(),
                                    &e);
    if (!s)
        qFatal("%s", qPrintable(e.toString()));
    return *s;
}

constexpr qint64 kMin = 60'000;

// Two H200s in MIG mode serving chat (3g) and image (2g) at a steady, light load; no training
// unless `training` adds some. Driven by hand: no policy.
Scenario twoCards(const QByteArray &training = "[]")
{
    const QByteArray json = R"({
        "name": "two H200s, chat and image", "duration": "2h", "seed": 3,
        "appliance": {"name": "pair", "hosts": [{"name": "h", "cpu": 128, "memoryGiB": 1024,
            "cards": [{"model": "H200-141GB", "mode": "mig", "count": 2}]}]},
        "history": {"days": 1, "noise": 0},
        "services": [
            {"spec": {"name": "chat", "kind": "inference",
                      "demand": {"compute": {"profile": "3g.71gb"}, "memoryGiB": 40},
                      "priority": 500, "preemption": "never", "isolation": "hard",
                      "inference": {"service": "chat", "sloP99Ms": 1000,
                                    "replicas": {"min": 1, "max": 4}}},
             "serviceTimeMs": 60, "loadTime": "20s", "rate": {"constant": 2}},
            {"spec": {"name": "image", "kind": "inference",
                      "demand": {"compute": {"profile": "2g.35gb"}, "memoryGiB": 24},
                      "priority": 500, "preemption": "never", "isolation": "hard",
                      "inference": {"service": "image", "sloP99Ms": 8000,
                                    "replicas": {"min": 1, "max": 4}}},
             "serviceTimeMs": 400, "loadTime": "20s", "rate": {"constant": 0.2}}
        ],
        "training": )" + training
                            + R"(,
        "policy": {"default": "guard"}
    })";
    ScenarioError e;
    const auto s = readScenario(json, QStringLiteral("two-cards.json"), QString(), catalogue(), &e);
    if (!s)
        qFatal("%s", qPrintable(e.toString()));
    return *s;
}

// Cards of `cards` (the scenario's "cards" array) on one host, no services, the training given,
// for an hour; driven without a policy. `extra`: more top-level keys (a leading comma).
Scenario trainingOnly(const QByteArray &cards,
                      const QByteArray &training,
                      const QByteArray &extra = QByteArray())
{
    const QByteArray json = R"({
        "name": "training only", "duration": "1h", "seed": 1,
        "appliance": {"name": "box", "hosts": [{"name": "h", "cpu": 128, "memoryGiB": 1024,
            "cards": )" + cards
                            + R"(}]},
        "services": [],
        "training": )" + training
                            + extra + R"(
    })";
    ScenarioError e;
    const auto s
            = readScenario(json, QStringLiteral("training-only.json"), QString(), catalogue(), &e);
    if (!s)
        qFatal("%s", qPrintable(e.toString()));
    return *s;
}

// One training job's entry: `demand` is its spec's demand object.
QByteArray trainingJob(const char *name, const char *demand, const char *affinity = "{}")
{
    return QByteArray(R"({"spec": {"name": ")") + name + R"(", "kind": "training", "demand": )"
           + demand + R"(, "priority": 90,
              "preemption": "checkpoint", "checkpointInterval": "10m", "affinity": )"
           + affinity + R"(}, "restartCost": "0s", "workHours": 100})";
}

double referenceShare(const QString &model)
{
    const auto &m = catalogue().models();
    return m[catalogue().indexOf(model)].fp16Tflops
           / m[catalogue().indexOf(QStringLiteral("H200-141GB"))].fp16Tflops;
}

// The cards a service's running replicas are on.
QList<int> replicaCards(const Engine &e, const QString &service)
{
    QList<int> cards;
    for (const Sched::Job &j : e.scheduler().state().jobs()) {
        if (j.spec.inference && j.spec.inference->service == service && j.isActive())
            cards.append(j.assignments.first().card.value());
    }
    std::sort(cards.begin(), cards.end());
    return cards;
}

bool cardHoldsWork(const Engine &e, int card)
{
    for (const Sched::Unit &u : e.scheduler().state().cards()[card].units) {
        if (u.job.isValid())
            return true;
    }
    return false;
}

} // namespace

class TestEngine : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sameScenarioAndSeedSameReport_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("policy");
        QTest::newRow("small ramp, forecast")
                << QStringLiteral("small-ramp.json") << QStringLiteral("forecast");
        QTest::newRow("small ramp, windows")
                << QStringLiteral("small-ramp.json") << QStringLiteral("windows");
        QTest::newRow("demo day, guard")
                << QStringLiteral("demo-day.json") << QStringLiteral("guard");
    }
    void sameScenarioAndSeedSameReport()
    {
        QFETCH(QString, file);
        QFETCH(QString, policy);
        const Scenario s = load(file);
        const QByteArray a = QJsonDocument(Engine(s, policy, s.seed).run().toJson(false)).toJson();
        const QByteArray b = QJsonDocument(Engine(s, policy, s.seed).run().toJson(false)).toJson();
        QCOMPARE(a, b);
        // Another seed is another day.
        const QByteArray c
                = QJsonDocument(Engine(s, policy, s.seed + 1).run().toJson(false)).toJson();
        QVERIFY(a != c);
    }

    void lostCardWorkResumesElsewhereFromItsCheckpoint()
    {
        // One 2 h job on card 0, checkpoints every 10 min of running time, 1 min to restart;
        // card 0 is lost at 35 min. Saved at 30 min of running time: 29 min of work.
        const Scenario s = load(QStringLiteral("small-fault.json"));
        Engine e(s, QString(), s.seed);
        e.advanceTo(34 * kMin);
        const Domain::JobId job = e.trainingJob(0);
        QCOMPARE(e.scheduler().state().job(job).assignments.first().card, Domain::CardId(0));
        QCOMPARE(e.trainingRun(0).savedMs(), double(29 * kMin));
        e.advanceTo(36 * kMin);
        // Resumed on card 1 at once, from its checkpoint.
        QCOMPARE(e.scheduler().state().job(job).state, Sched::JobState::Running);
        QCOMPARE(e.scheduler().state().job(job).assignments.first().card, Domain::CardId(1));
        QCOMPARE(e.trainingRun(0).doneMs(), double(29 * kMin));
        int resumed = 0;
        for (const Device::ApplianceEvent &ev : e.applianceEvents().events()) {
            if (ev.code == Device::ApplianceEventCode::TrainingResumed) {
                ++resumed;
                QCOMPARE(ev.atMs, s.startMs + 35 * kMin);
                QCOMPARE(ev.card, Domain::CardId(1));
                // It starts from the 29 min its checkpoint kept; the 5 min done since were lost.
                QCOMPARE(ev.workSavedMs, 29 * kMin);
                QCOMPARE(ev.workLostMs, 5 * kMin);
                QCOMPARE(double(ev.workLostMs), e.trainingRun(0).lostMs());
            }
        }
        QCOMPARE(resumed, 1);
        const Report r = e.finish();
        // Nothing of the saved work is lost: it completes its 2 h of work, 91 min after it
        // restarted: 36 + 91 = 127 min; only the 5 min since the checkpoint were redone.
        QCOMPARE(r.jobsCompleted, 1);
        QCOMPARE(r.jobs.first().doneHours, 2.0);
        QCOMPARE(r.jobs.first().completedAtH * 60, 127.0);
        QCOMPARE(r.jobs.first().lostHours * 60, 5.0);
        QCOMPARE(r.faults, 1);
        QCOMPARE(r.preemptions, 0); // a fault is not a preemption
    }

    void everythingIsAnEventWithATime()
    {
        const Scenario s = load(QStringLiteral("small-ramp.json"));
        Engine e(s, QStringLiteral("guard"), s.seed);
        const Report r = e.run();
        const auto &sched = e.schedulerEvents();
        const auto &app = e.applianceEvents();
        QVERIFY(sched.count(Sched::EventCode::JobPlaced) > 0);
        QVERIFY(sched.count(Sched::EventCode::PartitionCreated) > 0);
        QVERIFY(app.count(Device::ApplianceEventCode::StepDone) > 0);
        QVERIFY(app.count(Device::ApplianceEventCode::ReplicaAdded) > 0);
        QCOMPARE(sched.count(Sched::EventCode::JobEvicted), r.preemptions);
        qint64 last = 0;
        for (const Device::ApplianceEvent &ev : app.events()) {
            QVERIFY(ev.atMs >= s.startMs && ev.atMs <= s.startMs + s.durationMs);
            if (ev.code != Device::ApplianceEventCode::StepDone
                && ev.code != Device::ApplianceEventCode::StepFailed) {
                QVERIFY(ev.atMs >= last); // in time order (device steps carry their own end time)
                last = ev.atMs;
            }
        }
        // A reconfiguration step takes the device's time.
        for (const Device::ApplianceEvent &ev : app.events()) {
            if (ev.code == Device::ApplianceEventCode::StepDone
                && ev.stepKind == int(Device::DeviceStep::Kind::CreateInstance))
                QCOMPARE(ev.durationMs, s.device.createMs);
        }
        QVERIFY(r.reconfigurations > 0);
        QVERIFY(r.energyKwh > 0);
        QVERIFY(r.peakPowerW > 0);
        QVERIFY(r.workBound >= r.workDone);
    }

    void scalingDownEmptiesACard()
    {
        // Chat and image start on card 0 (3g@4, 2g@0); two more chat replicas do not fit the 2g
        // slots left there and go to card 1. Back to one chat replica: the two that leave are
        // those of card 1, which then holds nothing, rather than the one next to image.
        const Scenario s = twoCards();
        Engine e(s, QStringLiteral("none"), s.seed);
        e.start();
        QCOMPARE(replicaCards(e, QStringLiteral("chat")), QList<int>{0});
        QCOMPARE(replicaCards(e, QStringLiteral("image")), QList<int>{0});
        e.advanceTo(kMin);
        e.setReplicas(0, 3, e.nowMs(), Device::ActionReason::LoadRose);
        e.advanceTo(2 * kMin);
        QCOMPARE(replicaCards(e, QStringLiteral("chat")), (QList<int>{0, 1, 1}));
        QCOMPARE(e.services(e.nowMs()).first().serving, 3);
        e.setReplicas(0, 1, e.nowMs(), Device::ActionReason::LoadFell);
        e.advanceTo(3 * kMin);
        QCOMPARE(replicaCards(e, QStringLiteral("chat")), QList<int>{0});
        QVERIFY(!cardHoldsWork(e, 1));
    }

    void aMovedReplicaTakesOverBeforeTheOldOneDrains()
    {
        const Scenario s = twoCards();
        Engine e(s, QStringLiteral("none"), s.seed);
        e.advanceTo(kMin);
        Domain::JobId chat;
        for (const Sched::Job &j : e.scheduler().state().jobs()) {
            if (j.spec.inference && j.spec.inference->service == QLatin1String("chat"))
                chat = j.id;
        }
        QVERIFY(e.moveReplica(
                0, chat, Domain::CardId(1), e.nowMs(), Device::ActionReason::Consolidate));
        QVERIFY(!e.moveReplica(
                0, chat, Domain::CardId(1), e.nowMs(), Device::ActionReason::Consolidate));
        // Both hold a unit; the service counts one replica, and the old one serves meanwhile.
        Policy::ServiceView v = e.services(e.nowMs()).first();
        QCOMPARE(v.target, 1);
        QCOMPARE(v.leaving, 1);
        QCOMPARE(v.serving, 1);
        QCOMPARE(replicaCards(e, QStringLiteral("chat")), (QList<int>{0, 1}));
        e.advanceTo(2 * kMin);
        v = e.services(e.nowMs()).first();
        QCOMPARE(v.target, 1);
        QCOMPARE(v.leaving, 0);
        QCOMPARE(v.serving, 1);
        QCOMPARE(replicaCards(e, QStringLiteral("chat")), QList<int>{1});
        QCOMPARE(e.service(0).requests(), e.service(0).withinSlo()); // nobody waited for it
    }

    void aLoneTimeSliceSharerKeepsTheCard()
    {
        // Time-slicing costs its context switches (the catalogue's overhead factor, 0.9 on the
        // L40S) only while another sharer is busy: alone, a job does a whole card's work; two
        // busy halves share the card's time and pay the overhead.
        const double rel = referenceShare(QStringLiteral("L40S-48GB"));
        const QByteArray card = R"([{"model": "L40S-48GB", "mode": "time-slicing"}])";
        const Scenario alone = trainingOnly(
                card, "[" + trainingJob("solo", R"({"compute": {"wholeCard": true}})") + "]");
        const Report a = Engine(alone, QStringLiteral("none"), alone.seed).run();
        QCOMPARE(a.jobs.size(), 1);
        QVERIFY2(a.jobs.first().doneHours > 0.97 * rel && a.jobs.first().doneHours <= rel + 1e-9,
                 qPrintable(QString::number(a.jobs.first().doneHours / rel)));
        const Scenario pair = trainingOnly(
                card,
                "[" + trainingJob("a", R"({"compute": {"fraction": 0.5}})") + ","
                        + trainingJob("b", R"({"compute": {"fraction": 0.5}})") + "]");
        const Report p = Engine(pair, QStringLiteral("none"), pair.seed).run();
        const double both = p.jobs.at(0).doneHours + p.jobs.at(1).doneHours;
        QVERIFY2(std::abs(both / rel - 0.9) < 0.02, qPrintable(QString::number(both / rel)));
    }

    void thePowerBudgetCutsWhereAWattDoesLeast()
    {
        // An H200 and an L40S, each training flat out: 110 W idle and 940 W of load, against a
        // 950 W budget. The 100 W come off the L40S (fewer TFLOPS per watt): its job runs at
        // about 1 - 100/315 of its clocks, the H200's at full speed.
        const QByteArray cards = R"([{"model": "H200-141GB", "mode": "whole"},
                                     {"model": "L40S-48GB", "mode": "whole"}])";
        const Scenario s = trainingOnly(cards,
                                        "["
                                                + trainingJob("big",
                                                              R"({"compute": {"wholeCard": true}})",
                                                              R"({"cardModels": ["H200-141GB"]})")
                                                + ","
                                                + trainingJob("small",
                                                              R"({"compute": {"wholeCard": true}})",
                                                              R"({"cardModels": ["L40S-48GB"]})")
                                                + "]",
                                        R"(, "power": {"budgetW": 950})");
        const Report r = Engine(s, QStringLiteral("none"), s.seed).run();
        QVERIFY2(r.peakPowerW <= 950 + 1e-6, qPrintable(QString::number(r.peakPowerW)));
        const double rel = referenceShare(QStringLiteral("L40S-48GB"));
        const double big = r.jobs.at(0).doneHours;
        const double small = r.jobs.at(1).doneHours / rel;
        QVERIFY2(big > 0.97, qPrintable(QString::number(big)));
        QVERIFY2(std::abs(small - (1 - 100.0 / 315)) < 0.03, qPrintable(QString::number(small)));
    }

    void aDrainCalledOffLeavesTheJobRunning()
    {
        // Asked to leave at its next checkpoint, then kept: it runs past the checkpoint, is
        // never evicted, and the call-off is an event.
        const Scenario s
                = twoCards("[" + trainingJob("ft", R"({"compute": {"wholeCard": true}})") + "]");
        Engine e(s, QStringLiteral("none"), s.seed);
        e.advanceTo(2 * kMin);
        const Domain::JobId job = e.trainingJob(0);
        QCOMPARE(e.scheduler().state().job(job).state, Sched::JobState::Running);
        const qint64 at = e.requeueTraining(job, e.nowMs(), true, Device::ActionReason::Pressure);
        QVERIFY(at > e.nowMs());
        QVERIFY(e.keepTraining(job, e.nowMs(), Device::ActionReason::LoadFell));
        QVERIFY(!e.keepTraining(job, e.nowMs(), Device::ActionReason::LoadFell));
        e.advanceTo(at - s.startMs + 5 * kMin);
        QCOMPARE(e.scheduler().state().job(job).state, Sched::JobState::Running);
        int kept = 0;
        for (const Device::ApplianceEvent &ev : e.applianceEvents().events())
            kept += ev.code == Device::ApplianceEventCode::TrainingKept && ev.job == job;
        QCOMPARE(kept, 1);
        const Report r = e.finish();
        QCOMPARE(r.jobs.first().evictions, 0);
        QCOMPARE(r.jobs.first().lostHours, 0.0);
    }

    void capacityHoursAccountForEveryCardHour()
    {
        const Scenario s = load(QStringLiteral("small-ramp.json"));
        const Report r = Engine(s, QStringLiteral("forecast"), s.seed).run();
        const CapacityBreakdown &c = r.capacity;
        QCOMPARE(c.capacity, 3.0 * 5); // three reference cards for five hours
        const double parts = c.inference + c.trainingWork + c.trainingSlowdown + c.trainingStarting
                             + c.idleReconfiguring + c.idleTrainingWaits + c.idle;
        QVERIFY2(std::abs(parts - c.capacity) < 1e-6, qPrintable(QString::number(parts)));
        QVERIFY(c.inferenceNeed > 0 && c.inferenceNeed <= c.inference);
        // Work as progress saw it: what was done and what was rolled back.
        QVERIFY(std::abs(c.trainingWork - (r.workDone + r.lostWork)) < 0.05);
        QVERIFY(c.trainingSlowdownGang + c.trainingSlowdownPower <= c.trainingSlowdown + 1e-9);
        const QJsonObject j = r.toJson().value(QStringLiteral("capacity_hours")).toObject();
        for (const char *k : {"capacity",
                              "inference_need",
                              "inference",
                              "training_work",
                              "training_slowdown",
                              "training_starting",
                              "idle_training_waits"})
            QVERIFY2(j.contains(QLatin1String(k)), k);
    }

    void reportHasTheContractKeys()
    {
        const Scenario s = load(QStringLiteral("small-fault.json"));
        const QJsonObject j = Engine(s, QString(), s.seed).run().toJson();
        for (const char *k : {"policy",
                              "reconfigurations",
                              "preemptions",
                              "energy_kwh",
                              "peak_power_w",
                              "wall_seconds"})
            QVERIFY2(j.contains(QLatin1String(k)), k);
        for (const char *k : {"requests", "slo_attainment", "p99_ms", "services"})
            QVERIFY2(j.value(QStringLiteral("inference")).toObject().contains(QLatin1String(k)), k);
        for (const char *k : {"work_done", "work_bound", "efficiency", "lost_work"})
            QVERIFY2(j.value(QStringLiteral("training")).toObject().contains(QLatin1String(k)), k);
        for (const char *k : {"allocated", "busy"})
            QVERIFY2(j.value(QStringLiteral("utilization")).toObject().contains(QLatin1String(k)),
                     k);
    }
};

QTEST_GUILESS_MAIN(TestEngine)
#include "tst_engine.moc"
