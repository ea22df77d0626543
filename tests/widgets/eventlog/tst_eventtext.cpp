// SPDX-License-Identifier: GPL-3.0-or-later
// The console's words for events: every code the scheduler, the policies and the devices emit
// has a sentence of its own (never the bare code), built from the params each carries and the
// names the log knows; unknown codes fall back to the core's English.
#include "widgets/cardmap/reasontext.h"
#include "widgets/eventlog/eventtext.h"

#include "core/device/applianceevents.h"
#include "core/sched/events.h"
#include "core/session/eventbridge.h"
#include "core/storage/exporter.h"

#include <QJsonDocument>
#include <QTest>

using namespace Zhaoxi;
using Models::EventNames;
using Storage::Event;
using Widgets::eventMessage;

namespace {

EventNames names()
{
    EventNames n;
    n.hosts = {QStringLiteral("dgx-h200"), QStringLiteral("ada-edge")};
    const QStringList h200 = {QStringLiteral("1g.18gb"),
                              QStringLiteral("1g.18gb+me"),
                              QStringLiteral("1g.35gb"),
                              QStringLiteral("2g.35gb"),
                              QStringLiteral("3g.71gb"),
                              QStringLiteral("4g.71gb"),
                              QStringLiteral("7g.141gb")};
    for (int i = 0; i < 8; ++i)
        n.cards.append({0, i, QStringLiteral("H200-141GB"), h200});
    for (int i = 0; i < 3; ++i)
        n.cards.append({1, i, QStringLiteral("L40S-48GB"), {}});
    n.jobs = {QStringLiteral("chat#0"), QStringLiteral("llama-70b"), QStringLiteral("lora-2")};
    n.services = {QStringLiteral("chat"), QStringLiteral("image")};
    n.windows = {{0, QStringLiteral("day")}, {1, QStringLiteral("night")}};
    n.utcOffsetSeconds = 8 * 3600;
    return n;
}

// 2026-01-05 14:20 at +08:00
constexpr qint64 kAt = Q_INT64_C(1767594000000);

} // namespace

class TestEventText : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everySchedulerCodeHasWords();
    void everyApplianceCodeHasWords();
    void sentences_data();
    void sentences();
    void unknownCodesFallBackToEnglish();
    void chineseSentencesHaveNoSpaceBetweenChineseWords_data();
    void chineseSentencesHaveNoSpaceBetweenChineseWords();
};

void TestEventText::everySchedulerCodeHasWords()
{
    for (int c = 0; c <= int(Sched::EventCode::BudgetChanged); ++c) {
        Event e;
        e.source = Storage::Source::Scheduler;
        e.code = Sched::eventCodeName(Sched::EventCode(c));
        e.job = 1;
        e.card = 3;
        e.params = R"({"host":0,"other":2,"profile":"3g.71gb","profileIndex":4,"start":4,)"
                   R"("reason":"no-free-unit","mode":"mig","evictionAtMs":600000,)"
                   R"("workLostMs":600000,"need":2000,"have":0,"priority":3,"previousPriority":1})";
        const QString text = eventMessage(e, names());
        QVERIFY2(!text.isEmpty() && text != QString::fromLatin1(e.code), e.code.constData());
    }
}

void TestEventText::everyApplianceCodeHasWords()
{
    for (int c = 0; c <= int(Device::ApplianceEventCode::RequestsFailedOver); ++c) {
        const auto code = Device::ApplianceEventCode(c);
        Event e;
        e.source = Session::isDeviceEvent(code) ? Storage::Source::Device : Storage::Source::Policy;
        e.code = Device::toString(code);
        e.job = 1;
        e.card = 2;
        // As the console stores it: every member the code sets, under its name. The values are
        // those the old row below held in a, b, c and value.
        Device::ApplianceEvent ev;
        ev.code = code;
        ev.reason = Device::ActionReason::Window;
        ev.stepKind = ev.windowIndex = ev.service = ev.workloadClass = 0;
        ev.inferenceMilli = 0;
        ev.profile = ev.start = ev.queueDepth = 4;
        constexpr qint64 kValue = 1200000;
        ev.durationMs = ev.temperatureMilliC = ev.opensAtMs = ev.trainingMilli = kValue;
        ev.leavesAtMs = ev.p99Us = ev.forecastMilliRps = ev.watts = ev.workSavedMs = kValue;
        ev.workLostMs = ev.requests = kValue;
        ev.replicas = ev.sharePermille = int(kValue);
        e.params = QJsonDocument(Session::applianceEventParams(ev)).toJson(QJsonDocument::Compact);
        const QString text = eventMessage(e, names());
        QVERIFY2(!text.isEmpty() && text != QString::fromLatin1(e.code), e.code.constData());
        QVERIFY2(!text.contains(QLatin1Char('?')), qPrintable(text));
        // A store written before the params were named has the same words.
        e.params = R"({"a":0,"b":4,"c":4,"reason":"window","value":1200000})";
        const QString legacy = eventMessage(e, names());
        QVERIFY2(!legacy.isEmpty() && legacy != QString::fromLatin1(e.code), e.code.constData());
        QVERIFY2(!legacy.contains(QLatin1Char('?')), qPrintable(legacy));
        if (code != Device::ApplianceEventCode::TrainingResumed) // its old row kept other work
            QCOMPARE(legacy, text);
    }
}

void TestEventText::sentences_data()
{
    QTest::addColumn<int>("source");
    QTest::addColumn<QByteArray>("code");
    QTest::addColumn<int>("card");
    QTest::addColumn<int>("job");
    QTest::addColumn<QByteArray>("params");
    QTest::addColumn<QString>("words");

    const int sched = int(Storage::Source::Scheduler);
    const int policy = int(Storage::Source::Policy);
    const int device = int(Storage::Source::Device);
    QTest::newRow("a MIG placement")
            << sched << QByteArray("job-placed") << 3 << 1 << QByteArray(R"({"host":0})")
            << QStringLiteral("Job llama-70b placed on dgx-h200 card 3 (3g.71gb@4)");
    QTest::newRow("a partition")
            << sched << QByteArray("partition-created") << 2 << -1
            << QByteArray(R"({"host":0,"profile":"1g.18gb","profileIndex":0,"start":6})")
            << QStringLiteral("Partition 1g.18gb@6 created on dgx-h200 card 2");
    QTest::newRow("a pin without an end")
            << sched << QByteArray("layout-pinned") << 2 << -1
            << QByteArray(R"({"host":0,"untilMs":-1})")
            << QStringLiteral("Layout of dgx-h200 card 2 pinned until unpinned");
    QTest::newRow("a pin that expired") << sched << QByteArray("layout-unpinned") << 2 << -1
                                        << QByteArray(R"({"expired":true,"host":0})")
                                        << QStringLiteral("Layout pin of dgx-h200 card 2 expired");
    QTest::newRow("an operator's unpin") << sched << QByteArray("layout-unpinned") << 2 << -1
                                         << QByteArray(R"({"expired":false,"host":0})")
                                         << QStringLiteral("Layout of dgx-h200 card 2 unpinned");
    QTest::newRow("a change soon after an operator's")
            << sched << QByteArray("card-changed-after-operator") << 2 << 1
            << QByteArray(R"({"cause":"waiting-job","host":0,"operatorAtMs":)")
                       + QByteArray::number(kAt - 12 * 60'000) + "}"
            << QStringLiteral("dgx-h200 card 2 was reconfigured for job llama-70b, 12 min after "
                              "an operator changed it");
    QTest::newRow("a partition named before the cards were known")
            << sched << QByteArray("partition-created") << 0 << -1
            << QByteArray(R"({"host":0,"profile":"4","profileIndex":4,"start":0})")
            << QStringLiteral("Partition 3g.71gb@0 created on dgx-h200 card 0");
    QTest::newRow("a window") << policy << QByteArray("window-opened") << -1 << -1
                              << QByteArray(R"({"windowIndex":0,"reason":"window"})")
                              << QStringLiteral("Window ‘day’ opened");
    QTest::newRow("a window (old store)")
            << policy << QByteArray("window-opened") << -1 << -1
            << QByteArray(R"({"a":0,"reason":"window"})") << QStringLiteral("Window ‘day’ opened");
    QTest::newRow("the end of the windows")
            << policy << QByteArray("window-switch") << -1 << -1
            << QByteArray(R"({"windowIndex":-1,"opensAtMs":1767594000000,"reason":"window"})")
            << QStringLiteral("Preparing for the end of the time windows at 14:20");
    QTest::newRow("a budget") << policy << QByteArray("budget-set") << -1 << -1
                              << QByteArray(R"({"inferenceMilli":7000,"reason":"window",)"
                                            R"("trainingMilli":3000})")
                              << QStringLiteral(
                                         "Class budgets set: inference 70 %, training 30 % (time "
                                         "window)");
    QTest::newRow("a budget (old store)")
            << policy << QByteArray("budget-set") << -1 << -1
            << QByteArray(R"({"a":7000,"b":-1,"c":-1,"reason":"window","value":3000})")
            << QStringLiteral("Class budgets set: inference 70 %, training 30 % (time window)");
    QTest::newRow("a requeue at checkpoint")
            << policy << QByteArray("training-requeued") << -1 << 2
            << QByteArray(R"({"atCheckpoint":true,"leavesAtMs":1767594000000,"reason":"window"})")
            << QStringLiteral("Job lora-2 goes back to the queue at its checkpoint at 14:20 (time "
                              "window)");
    QTest::newRow("a requeue at checkpoint (old store)")
            << policy << QByteArray("training-requeued") << -1 << 2
            << QByteArray(R"({"a":1,"b":-1,"c":-1,"reason":"window","value":1767594000000})")
            << QStringLiteral("Job lora-2 goes back to the queue at its checkpoint at 14:20 (time "
                              "window)");
    QTest::newRow("a requeue now") << policy << QByteArray("training-requeued") << -1 << 2
                                   << QByteArray(R"({"atCheckpoint":false,"leavesAtMs":0,)"
                                                 R"("reason":"slo-at-risk"})")
                                   << QStringLiteral("Job lora-2 goes back to the queue now (SLO "
                                                     "at risk)");
    QTest::newRow("a resume")
            << policy << QByteArray("training-resumed") << 2 << 2
            << QByteArray(R"({"reason":"none","workSavedMs":1740000,"workLostMs":300000})")
            << QStringLiteral("Job lora-2 resumed from its checkpoint; 5 min of work lost");
    QTest::newRow("a resume that lost nothing")
            << policy << QByteArray("training-resumed") << 2 << 2
            << QByteArray(R"({"reason":"none","workSavedMs":1740000,"workLostMs":0})")
            << QStringLiteral("Job lora-2 resumed from its checkpoint; no work lost");
    // The old rows held the work the checkpoint kept, worded as such.
    QTest::newRow("a resume (old store)")
            << policy << QByteArray("training-resumed") << 2 << 2
            << QByteArray(R"({"a":-1,"b":-1,"c":-1,"reason":"none","value":1740000})")
            << QStringLiteral("Job lora-2 resumed from its checkpoint (29 min of work kept)");
    QTest::newRow("a drain called off")
            << policy << QByteArray("training-kept") << -1 << 2
            << QByteArray(R"({"reason":"load-fell"})")
            << QStringLiteral("Job lora-2 stays: the room it was leaving for is not needed (load "
                              "fell)");
    QTest::newRow("waiting") << sched << QByteArray("job-waiting") << -1 << 1
                             << QByteArray(R"({"reason":"class-budget-exceeded","need":2000,)"
                                           R"("have":0})")
                             << QStringLiteral("Job llama-70b is waiting: its class budget is "
                                               "used up");
    QTest::newRow("preempting") << sched << QByteArray("job-preempting") << -1 << 2
                                << QByteArray(R"({"other":0,"evictionAtMs":1767594000000})")
                                << QStringLiteral("Job lora-2 will be preempted for job chat#0 at "
                                                  "14:20");
    QTest::newRow("preempting (old store)")
            << sched << QByteArray("job-preempting") << -1 << 2
            << QByteArray(R"({"other":0,"value":1767594000000})")
            << QStringLiteral("Job lora-2 will be preempted for job chat#0 at 14:20");
    QTest::newRow("evicted") << sched << QByteArray("job-evicted") << -1 << 2
                             << QByteArray(R"({"workLostMs":450000})")
                             << QStringLiteral("Job lora-2 evicted; 7.5 min of work lost");
    QTest::newRow("evicted (old store)")
            << sched << QByteArray("job-evicted") << -1 << 2 << QByteArray(R"({"value":450000})")
            << QStringLiteral("Job lora-2 evicted; 7.5 min of work "
                              "lost");
    QTest::newRow("a device step")
            << device << QByteArray("step-done") << 2 << -1
            << QByteArray(R"({"stepKind":1,"profileIndex":4,"start":4,"durationMs":2100})")
            << QStringLiteral("Driver destroyed partition 3g.71gb@4 on dgx-h200 card 2 in 2.1 s");
    QTest::newRow("a device step (old store)")
            << device << QByteArray("step-done") << 2 << -1
            << QByteArray(R"({"a":1,"b":4,"c":4,"value":2100})")
            << QStringLiteral("Driver destroyed partition 3g.71gb@4 on dgx-h200 card 2 in 2.1 s");
    QTest::newRow("a refused step")
            << device << QByteArray("step-failed") << 2 << -1
            << QByteArray(R"({"stepKind":0,"profileIndex":4,"start":0,"reason":"device-in-use",)"
                          R"("error":1})")
            << QStringLiteral("Driver could not create partition 3g.71gb@0 on dgx-h200 card 2: "
                              "the instance is in use");
    QTest::newRow("a service under pressure")
            << policy << QByteArray("guard-pressure") << -1 << -1
            << QByteArray(R"({"service":0,"queueDepth":14,"reason":"slo-at-risk","p99Us":1250400})")
            << QStringLiteral("Service chat under pressure: p99 1250.4 ms, 14 requests queued (SLO "
                              "at risk)");
    QTest::newRow("a service under pressure (old store)")
            << policy << QByteArray("guard-pressure") << -1 << -1
            << QByteArray(R"({"a":0,"b":14,"reason":"slo-at-risk","value":1250400})")
            << QStringLiteral("Service chat under pressure: p99 1250.4 ms, 14 requests queued (SLO "
                              "at risk)");
    QTest::newRow("requests failed over")
            << policy << QByteArray("requests-failed-over") << -1 << 2
            << QByteArray(R"({"service":0,"requests":3,"reason":"none"})")
            << QStringLiteral("Service chat: 3 request(s) re-sent from replica lora-2");
    QTest::newRow("a thermal fault") << device << QByteArray("fault-thermal-throttle") << 9 << -1
                                     << QByteArray(R"({"durationMs":120000})")
                                     << QStringLiteral("ada-edge card 1 is thermally throttled "
                                                       "for 2 min");
    QTest::newRow("a soft card") << device << QByteArray("fault-memory-error") << 9 << -1
                                 << QByteArray(R"({"durationMs":0})")
                                 << QStringLiteral("Memory error on ada-edge card 1");
    // An operator's actions (the audit trail; the actor is "ops").
    const int op = int(Storage::Source::Operator);
    QTest::newRow("a drop placed")
            << op << QByteArray("operator-place") << -1 << 1
            << QByteArray(R"({"asked":{"job":1,"card":3,"preempt":true},)"
                          R"("ok":true,"after":{"units":[{"card":3,"uid":5}]}})")
            << QStringLiteral("ops placed llama-70b on dgx-h200 card 3");
    QTest::newRow("a priority") << op << QByteArray("operator-priority") << -1 << 2
                                << QByteArray(R"({"asked":{"job":2,"priority":7},"ok":true})")
                                << QStringLiteral("ops set the priority of lora-2 to 7");
    QTest::newRow("a repartition")
            << op << QByteArray("operator-layout-apply") << 2 << -1
            << QByteArray(R"({"asked":{"card":2,"layout":["3g.71gb@0","3g.71gb@4"]},"ok":true})")
            << QStringLiteral("ops repartitioned dgx-h200 card 2: 3g.71gb@0, 3g.71gb@4");
    QTest::newRow("a refused cancel")
            << op << QByteArray("operator-cancel") << -1 << 17
            << QByteArray(R"({"asked":{"job":17},"ok":false,"refused":"no job 17"})")
            << QStringLiteral("ops asked to cancel #17; refused: no job 17");
    QTest::newRow("an unknown job and card")
            << sched << QByteArray("job-placed") << 40 << 17 << QByteArray(R"({"host":0})")
            << QStringLiteral("Job #17 placed on card 40");
}

void TestEventText::sentences()
{
    QFETCH(int, source);
    QFETCH(QByteArray, code);
    QFETCH(int, card);
    QFETCH(int, job);
    QFETCH(QByteArray, params);
    QFETCH(QString, words);
    Event e;
    e.id = 42;
    e.atMs = kAt;
    e.source = Storage::Source(source);
    e.code = code;
    e.card = card;
    e.job = job;
    e.params = params;
    if (e.source == Storage::Source::Operator)
        e.actor = QStringLiteral("ops");
    EventNames n = names();
    // What the log saw of the MIG placement while it ran.
    if (code == "job-placed" && card == 3)
        n.placements.insert(42, {{3}, {QStringLiteral("3g.71gb@4")}});
    QCOMPARE(eventMessage(e, n), words);
}

void TestEventText::unknownCodesFallBackToEnglish()
{
    Event e;
    e.source = Storage::Source::Operator;
    e.code = "operator-note";
    e.actor = QStringLiteral("ops");
    QCOMPARE(eventMessage(e), Storage::englishMessage(e));
    QCOMPARE(eventMessage(e), QStringLiteral("ops: operator-note"));
}

void TestEventText::chineseSentencesHaveNoSpaceBetweenChineseWords_data()
{
    QTest::addColumn<QString>("in");
    QTest::addColumn<QString>("out");
    QTest::newRow("parts joined") << QStringLiteral("需要 一张卡 的算力")
                                  << QStringLiteral("需要一张卡的算力");
    QTest::newRow("numbers keep their spaces")
            << QStringLiteral("需要 0.5 张卡 的算力") << QStringLiteral("需要 0.5 张卡的算力");
    QTest::newRow("Latin words too")
            << QStringLiteral("dgx-h200 卡 2 已固定") << QStringLiteral("dgx-h200 卡 2 已固定");
    QTest::newRow("after punctuation")
            << QStringLiteral("作业 A， 等待中") << QStringLiteral("作业 A，等待中");
    QTest::newRow("English untouched") << QStringLiteral("Needs one card of compute")
                                       << QStringLiteral("Needs one card of compute");
    QTest::newRow("edges") << QStringLiteral(" 卡 ") << QStringLiteral(" 卡 ");
}

void TestEventText::chineseSentencesHaveNoSpaceBetweenChineseWords()
{
    QFETCH(QString, in);
    QFETCH(QString, out);
    QCOMPARE(Widgets::tidyCjkSpacing(in), out);
}

QTEST_GUILESS_MAIN(TestEventText)
#include "tst_eventtext.moc"
