// SPDX-License-Identifier: GPL-3.0-or-later
// The service's API in one process: a LiveSession (simulated cards, real processes under the
// shim) behind a Server on a real Unix socket, and clients on that socket. Commands are audited
// with their author and before/after; bad input of every kind is answered, never crashes or
// stalls the service; a client that stops reading holds nobody up.
#include "servicetest.h"

#include "core/models/serieshistory.h"
#include "core/runtime/liverun.h"
#include "core/service/audit.h"
#include "core/service/server.h"
#include "core/session/livesession.h"
#include "core/storage/store.h"

#include <QRandomGenerator>
#include <QSet>
#include <QTemporaryDir>

using namespace Zhaoxi;
using namespace Zhaoxi::TestService;

class TestServer : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void helloSaysWhoYouAre();
    void aSubmittedJobRunsAndIsAudited();
    void priorityRecordsBeforeAndAfter();
    void layoutsAreAppliedOnMigCards();
    void aLayoutIsPinnedAndUnpinnedAndAudited();
    void aDrainedLayoutWaitsForTheJobsProcessToEnd();
    void schedulesAreCheckedSetAndRead();
    void aJobIsPlacedOverItsClassBudget();
    void aDrainedCardSendsItsWorkAwayUntilUncordoned();
    void badInputGetsAnErrorNamingIt_data();
    void badInputGetsAnErrorNamingIt();
    void aLineOverTheLimitIsRefusedAndTheConnectionLivesOn();
    void fuzzedMessagesAreAllAnswered();
    void aClientThatStopsReadingHoldsNobodyUp();
    void subscribersGetSnapshotsAndEvents();
    void historyAnswersTheStoredCardAndPartitionSeries();
    void afterShutdownChangesAreRefusedAndAudited();

private:
    QList<Storage::Event> operatorEvents();
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Session::LiveSession> m_session;
    std::unique_ptr<Service::Server> m_server;
    QString m_socket;
};

void TestServer::initTestCase()
{
    Session::registerMetaTypes();
    putDemoOnPath();
}

void TestServer::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    Session::LiveOptions o;
    o.storePath = m_dir->filePath(QStringLiteral("zhaoxi.sqlite"));
    o.shimPath = QStringLiteral(SHIM_PATH);
    o.policy = QStringLiteral("none");
    o.snapshotIntervalMs = 100;
    o.controlPeriodMs = 250;
    QString why;
    m_session = Session::LiveSession::create(scenario(), o, &why);
    QVERIFY2(m_session, qPrintable(why));
    Service::ServerOptions so;
    m_socket = m_dir->filePath(QStringLiteral("zhaoxid.sock"));
    so.socketPath = m_socket;
    so.maxQueuedBytes = 256 * 1024;
    m_server = std::make_unique<Service::Server>(*m_session, so);
    QVERIFY2(m_server->listen(&why), qPrintable(why));
    m_session->start();
    QVERIFY(m_session->latest());
}

void TestServer::cleanup()
{
    m_server.reset();
    if (m_session)
        QCOMPARE(m_session->stopAllWork(10'000), QStringList());
    m_session.reset();
}

QList<Storage::Event> TestServer::operatorEvents()
{
    QString err;
    auto reader = Storage::Reader::open(m_dir->filePath(QStringLiteral("zhaoxi.sqlite")),
                                        Storage::Reader::OpenMode::RequireCurrent,
                                        &err);
    if (!reader)
        qFatal("%s", qPrintable(err));
    Storage::EventFilter f;
    f.sources = {Storage::Source::Operator};
    return reader->events(f);
}

void TestServer::helloSaysWhoYouAre()
{
    Client c;
    QVERIFY(c.connectTo(m_socket));
    const QJsonObject a = c.call({{QStringLiteral("cmd"), QStringLiteral("hello")}});
    QVERIFY(a.value(QStringLiteral("ok")).toBool());
    const QJsonObject r = a.value(QStringLiteral("result")).toObject();
    QCOMPARE(r.value(QStringLiteral("service")).toString(), QStringLiteral("zhaoxid"));
    QCOMPARE(r.value(QStringLiteral("protocol")).toInt(), Service::kProtocolVersion);
    // The kernel's word, not the client's: this test runs as root.
    QCOMPARE(r.value(QStringLiteral("uid")).toInteger(), qint64(::getuid()));
    QCOMPARE(r.value(QStringLiteral("role")).toString(),
             ::getuid() == 0 ? QStringLiteral("operator") : QStringLiteral("reader"));
    QCOMPARE(r.value(QStringLiteral("appliance")).toString(), QStringLiteral("service-box"));
    const QJsonObject help = c.call({{QStringLiteral("cmd"), QStringLiteral("help")}});
    QCOMPARE(help.value(QStringLiteral("result"))[QStringLiteral("commands")].toArray().size(),
             Service::commands().size());
}

void TestServer::aSubmittedJobRunsAndIsAudited()
{
    if (::getuid() != 0)
        QSKIP("changes need root or the operator group");
    Client c;
    QVERIFY(c.connectTo(m_socket));
    const QJsonObject a = c.call({{QStringLiteral("cmd"), QStringLiteral("submit")},
                                  {QStringLiteral("spec"), trainSpec()}});
    QVERIFY2(a.value(QStringLiteral("ok")).toBool(), qPrintable(errorMessage(a)));
    const int job = a.value(QStringLiteral("result"))[QStringLiteral("job")].toInt(-1);
    QVERIFY(job >= 0);
    // The answer came after the audit event was committed: it is in the store now.
    QList<Storage::Event> ops = operatorEvents();
    QCOMPARE(ops.size(), 1);
    QCOMPARE(ops[0].code, QByteArray("operator-submit"));
    QCOMPARE(ops[0].actor, Service::loginOf(::getuid()));
    QCOMPARE(ops[0].job, job);
    const QJsonObject p = QJsonDocument::fromJson(ops[0].params).object();
    QCOMPARE(p.value(QStringLiteral("asked"))[QStringLiteral("spec")][QStringLiteral("name")]
                     .toString(),
             QStringLiteral("finetune"));
    QVERIFY(p.value(QStringLiteral("ok")).toBool());
    QCOMPARE(p.value(QStringLiteral("after"))[QStringLiteral("job")].toInt(), job);

    // A real process runs it on the H200 (card 1), seen through the API.
    QJsonObject running;
    QVERIFY(QTest::qWaitFor(
            [&] {
                const QJsonObject j = c.call({{QStringLiteral("cmd"), QStringLiteral("jobs")}});
                for (const QJsonValue &v :
                     j.value(QStringLiteral("result"))[QStringLiteral("jobs")].toArray()) {
                    if (v[QStringLiteral("job")].toInt() == job
                        && v[QStringLiteral("state")].toString() == QLatin1String("running"))
                        running = v.toObject();
                }
                return !running.isEmpty();
            },
            20000));
    QCOMPARE(running.value(QStringLiteral("units"))
                     .toArray()
                     .first()[QStringLiteral("card")]
                     .toInt(),
             1);
    QVERIFY(QTest::qWaitFor(
            [&] { return m_session->runtime()->workloads().stats(Domain::JobId(job)).running; },
            20000));
    // The simulated card shows the real process's load.
    QVERIFY(QTest::qWaitFor(
            [&] {
                const QJsonObject cards
                        = c.call({{QStringLiteral("cmd"), QStringLiteral("cards")}});
                return cards.value(QStringLiteral(
                               "result"))[QStringLiteral("cards")][1][QStringLiteral("utilisation")]
                               .toDouble()
                       > 0.5;
            },
            20000));

    const QJsonObject cancel = c.call(
            {{QStringLiteral("cmd"), QStringLiteral("cancel")}, {QStringLiteral("job"), job}});
    QVERIFY2(cancel.value(QStringLiteral("ok")).toBool(), qPrintable(errorMessage(cancel)));
    const QJsonObject again = c.call(
            {{QStringLiteral("cmd"), QStringLiteral("cancel")}, {QStringLiteral("job"), job}});
    QCOMPARE(errorCode(again), QStringLiteral("refused"));
    ops = operatorEvents();
    QCOMPARE(ops.size(), 3);
    QCOMPARE(ops[2].severity, Storage::Severity::Warning);
    QVERIFY(!QJsonDocument::fromJson(ops[2].params)
                     .object()
                     .value(QStringLiteral("refused"))
                     .toString()
                     .isEmpty());

    const QJsonObject verify = c.call({{QStringLiteral("cmd"), QStringLiteral("audit-verify")}});
    QVERIFY(verify.value(QStringLiteral("result"))[QStringLiteral("intact")].toBool());
    QCOMPARE(verify.value(QStringLiteral("result"))[QStringLiteral("events")].toInt(), 3);
}

void TestServer::priorityRecordsBeforeAndAfter()
{
    if (::getuid() != 0)
        QSKIP("changes need root or the operator group");
    Client c;
    QVERIFY(c.connectTo(m_socket));
    // Two jobs want the one H200: the second waits, and its priority can change.
    QJsonObject spec = trainSpec(QStringLiteral("first"));
    QVERIFY(c.call({{QStringLiteral("cmd"), QStringLiteral("submit")},
                    {QStringLiteral("spec"), spec}})
                    .value(QStringLiteral("ok"))
                    .toBool());
    spec = trainSpec(QStringLiteral("second"));
    const QJsonObject a = c.call(
            {{QStringLiteral("cmd"), QStringLiteral("submit")}, {QStringLiteral("spec"), spec}});
    const int job = a.value(QStringLiteral("result"))[QStringLiteral("job")].toInt(-1);
    QVERIFY(job >= 0);
    const QJsonObject p = c.call({{QStringLiteral("cmd"), QStringLiteral("priority")},
                                  {QStringLiteral("job"), job},
                                  {QStringLiteral("priority"), 7}});
    QVERIFY2(p.value(QStringLiteral("ok")).toBool(), qPrintable(errorMessage(p)));
    const QList<Storage::Event> ops = operatorEvents();
    QCOMPARE(ops.last().code, QByteArray("operator-priority"));
    const QJsonObject params = QJsonDocument::fromJson(ops.last().params).object();
    QCOMPARE(params.value(QStringLiteral("before"))[QStringLiteral("priority")].toInt(), 100);
    QCOMPARE(params.value(QStringLiteral("after"))[QStringLiteral("priority")].toInt(), 7);
    QCOMPARE(params.value(QStringLiteral("asked"))[QStringLiteral("priority")].toInt(), 7);
}

void TestServer::layoutsAreAppliedOnMigCards()
{
    if (::getuid() != 0)
        QSKIP("changes need root or the operator group");
    Client c;
    QVERIFY(c.connectTo(m_socket));
    const QJsonObject preview
            = c.call({{QStringLiteral("cmd"), QStringLiteral("preview-layout")},
                      {QStringLiteral("card"), 0},
                      {QStringLiteral("layout"),
                       QJsonArray{QStringLiteral("3g.20gb@0"), QStringLiteral("3G.20GB@4")}}});
    QVERIFY2(preview.value(QStringLiteral("result"))[QStringLiteral("ok")].toBool(),
             qPrintable(QJsonDocument(preview).toJson()));
    QCOMPARE(preview.value(QStringLiteral("result"))[QStringLiteral("creates")].toInt(), 2);
    const QJsonObject bad
            = c.call({{QStringLiteral("cmd"), QStringLiteral("layout-apply")},
                      {QStringLiteral("card"), 0},
                      {QStringLiteral("layout"), QJsonArray{QStringLiteral("9g.90gb@0")}}});
    QCOMPARE(errorCode(bad), QStringLiteral("bad-argument"));
    QVERIFY2(errorMessage(bad).contains(QStringLiteral("unknown profile '9g.90gb'")),
             qPrintable(errorMessage(bad)));
    const QJsonObject apply
            = c.call({{QStringLiteral("cmd"), QStringLiteral("layout-apply")},
                      {QStringLiteral("card"), 0},
                      {QStringLiteral("layout"),
                       QJsonArray{QStringLiteral("3g.20gb@0"), QStringLiteral("3g.20gb@4")}}});
    QVERIFY2(apply.value(QStringLiteral("ok")).toBool(), qPrintable(errorMessage(apply)));
    QVERIFY(QTest::qWaitFor(
            [&] {
                const QJsonObject cards
                        = c.call({{QStringLiteral("cmd"), QStringLiteral("cards")}});
                return cards.value(QStringLiteral(
                               "result"))[QStringLiteral("cards")][0][QStringLiteral("units")]
                               .toArray()
                               .size()
                       == 2;
            },
            20000));
    const QList<Storage::Event> ops = operatorEvents();
    QCOMPARE(ops.size(), 2); // the refused one too
    QCOMPARE(ops[0].severity, Storage::Severity::Warning);
    const QJsonObject params = QJsonDocument::fromJson(ops[1].params).object();
    QCOMPARE(params.value(QStringLiteral("before"))[QStringLiteral("layout")].toArray(),
             QJsonArray());
    QCOMPARE(params.value(QStringLiteral("after"))[QStringLiteral("layout")].toArray(),
             (QJsonArray{QStringLiteral("3g.20gb@0"), QStringLiteral("3g.20gb@4")}));
}

void TestServer::aLayoutIsPinnedAndUnpinnedAndAudited()
{
    if (::getuid() != 0)
        QSKIP("changes need root or the operator group");
    Client c;
    QVERIFY(c.connectTo(m_socket));
    const auto pinnedUntil = [&] {
        return qint64(c.call({{QStringLiteral("cmd"), QStringLiteral("cards")}})
                              .value(QStringLiteral("result"))[QStringLiteral("cards")][0]
                                                              [QStringLiteral("pinned_until_ms")]
                              .toDouble(-2));
    };
    QCOMPARE(pinnedUntil(), 0);
    const QJsonObject pin = c.call({{QStringLiteral("cmd"), QStringLiteral("layout-pin")},
                                    {QStringLiteral("card"), 0},
                                    {QStringLiteral("for_ms"), 3600'000}});
    QVERIFY2(pin.value(QStringLiteral("ok")).toBool(), qPrintable(errorMessage(pin)));
    const qint64 until = pinnedUntil();
    QVERIFY2(until > 0, qPrintable(QString::number(until)));
    // Until unpinned, then unpinned; a second unpin is refused with the card named.
    const QJsonObject forever = c.call(
            {{QStringLiteral("cmd"), QStringLiteral("layout-pin")}, {QStringLiteral("card"), 0}});
    QVERIFY2(forever.value(QStringLiteral("ok")).toBool(), qPrintable(errorMessage(forever)));
    QCOMPARE(pinnedUntil(), -1);
    const QJsonObject unpin = c.call(
            {{QStringLiteral("cmd"), QStringLiteral("layout-unpin")}, {QStringLiteral("card"), 0}});
    QVERIFY2(unpin.value(QStringLiteral("ok")).toBool(), qPrintable(errorMessage(unpin)));
    QCOMPARE(pinnedUntil(), 0);
    const QJsonObject again = c.call(
            {{QStringLiteral("cmd"), QStringLiteral("layout-unpin")}, {QStringLiteral("card"), 0}});
    QVERIFY(!again.value(QStringLiteral("ok")).toBool(true));
    QVERIFY2(errorMessage(again).contains(QStringLiteral("card 0")),
             qPrintable(errorMessage(again)));

    // Each one audited with the pin before and after.
    const QList<Storage::Event> ops = operatorEvents();
    QCOMPARE(ops.size(), 4);
    QCOMPARE(ops[0].code, QByteArray("operator-layout-pin"));
    const QJsonObject first = QJsonDocument::fromJson(ops[0].params).object();
    QCOMPARE(first.value(QStringLiteral("before"))[QStringLiteral("pinned_until_ms")].toInt(-2), 0);
    QCOMPARE(qint64(first.value(QStringLiteral("after"))[QStringLiteral("pinned_until_ms")]
                            .toDouble()),
             until);
    QCOMPARE(ops[2].code, QByteArray("operator-layout-unpin"));
    QCOMPARE(QJsonDocument::fromJson(ops[2].params)
                     .object()
                     .value(QStringLiteral("before"))[QStringLiteral("pinned_until_ms")]
                     .toInt(-2),
             -1);
    QCOMPARE(ops[3].severity, Storage::Severity::Warning);
}

// A drained repartition of a partition a real process serves: the job leaves at its checkpoint,
// and the change is made (and answered) only once its process has gone.
void TestServer::aDrainedLayoutWaitsForTheJobsProcessToEnd()
{
    if (::getuid() != 0)
        QSKIP("changes need root or the operator group");
    Client c;
    QVERIFY(c.connectTo(m_socket));
    const QJsonObject halves
            = c.call({{QStringLiteral("cmd"), QStringLiteral("layout-apply")},
                      {QStringLiteral("card"), 0},
                      {QStringLiteral("layout"),
                       QJsonArray{QStringLiteral("3g.20gb@0"), QStringLiteral("3g.20gb@4")}}});
    QVERIFY2(halves.value(QStringLiteral("ok")).toBool(), qPrintable(errorMessage(halves)));
    QJsonObject spec = trainSpec(QStringLiteral("on-a-half"));
    spec.insert(QStringLiteral("demand"),
                QJsonObject{{QStringLiteral("compute"),
                             QJsonObject{{QStringLiteral("profile"), QStringLiteral("3g.20gb")}}},
                            {QStringLiteral("memoryGiB"), 10}});
    spec.insert(QStringLiteral("affinity"),
                QJsonObject{{QStringLiteral("cardModels"),
                             QJsonArray{QStringLiteral("A100-SXM4-40GB")}}});
    // A process that takes two seconds to go after its stop signal; restarted, not checkpointed.
    spec.insert(QStringLiteral("preemption"), QStringLiteral("restart"));
    spec.remove(QStringLiteral("checkpointInterval"));
    spec.insert(QStringLiteral("run"),
                QJsonObject{{QStringLiteral("command"),
                             QJsonArray{QStringLiteral("sh"),
                                        QStringLiteral("-c"),
                                        QStringLiteral("trap 'sleep 2; exit 0' TERM; "
                                                       "while :; do sleep 0.1; done")}},
                            {QStringLiteral("stopGrace"), QStringLiteral("10s")},
                            {QStringLiteral("progressTimeout"), QStringLiteral("0s")}});
    const QJsonObject submitted = c.call(
            {{QStringLiteral("cmd"), QStringLiteral("submit")}, {QStringLiteral("spec"), spec}});
    QVERIFY2(submitted.value(QStringLiteral("ok")).toBool(), qPrintable(errorMessage(submitted)));
    const Domain::JobId job(
            submitted.value(QStringLiteral("result"))[QStringLiteral("job")].toInt());
    QVERIFY(QTest::qWaitFor([&] { return m_session->runtime()->workloads().stats(job).running; },
                            20000));

    // Watched at every turn of the event loop until the answer: the halves stay while the job's
    // process, evicted, is still going.
    const Sched::ClusterState &st = m_session->runtime()->scheduler().state();
    const int asked = c.send({{QStringLiteral("cmd"), QStringLiteral("layout-apply")},
                              {QStringLiteral("card"), 0},
                              {QStringLiteral("layout"), QJsonArray{QStringLiteral("7g.40gb@0")}},
                              {QStringLiteral("drain_deadline_ms"), 60'000}});
    bool changedUnderTheProcess = false, cordoned = false;
    QJsonObject whole;
    QVERIFY(QTest::qWaitFor(
            [&] {
                const bool halves = st.card(Domain::CardId(0)).units.size() == 2;
                changedUnderTheProcess
                        = changedUnderTheProcess
                          || (!halves && m_session->runtime()->workloads().stats(job).running
                              && st.job(job).state != Sched::JobState::Running);
                cordoned = cordoned || st.card(Domain::CardId(0)).cordoned;
                whole = c.answer(asked, 1);
                return !whole.isEmpty();
            },
            60'000));
    QVERIFY2(whole.value(QStringLiteral("ok")).toBool(), qPrintable(errorMessage(whole)));
    QVERIFY(cordoned); // no new work on the card while it drained
    QVERIFY(!changedUnderTheProcess);
    QVERIFY(!st.card(Domain::CardId(0)).cordoned);
    QVERIFY(st.job(job).preemptions >= 1);
    QVERIFY(!m_session->runtime()->workloads().stats(job).running
            || st.job(job).state == Sched::JobState::Running);
    const QList<Storage::Event> ops = operatorEvents();
    QCOMPARE(QJsonDocument::fromJson(ops.last().params)
                     .object()
                     .value(QStringLiteral("asked"))[QStringLiteral("drain_deadline_ms")]
                     .toInt(),
             60'000);
}

void TestServer::schedulesAreCheckedSetAndRead()
{
    if (::getuid() != 0)
        QSKIP("changes need root or the operator group");
    Client c;
    QVERIFY(c.connectTo(m_socket));
    QVERIFY(c.call({{QStringLiteral("cmd"), QStringLiteral("schedule-get")}})
                    .value(QStringLiteral("result"))[QStringLiteral("schedule")]
                    .isNull());
    const QJsonObject schedule{
            {QStringLiteral("windows"),
             QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("day")},
                                    {QStringLiteral("from"), QStringLiteral("07:00")},
                                    {QStringLiteral("to"), QStringLiteral("22:00")},
                                    {QStringLiteral("inferenceShare"), 0.6}},
                        QJsonObject{{QStringLiteral("name"), QStringLiteral("night")},
                                    {QStringLiteral("from"), QStringLiteral("22:00")},
                                    {QStringLiteral("to"), QStringLiteral("07:00")},
                                    {QStringLiteral("inferenceShare"), 0.2}}}}};
    // What it would do, changing nothing.
    const QJsonObject preview = c.call({{QStringLiteral("cmd"), QStringLiteral("preview-schedule")},
                                        {QStringLiteral("schedule"), schedule}})
                                        .value(QStringLiteral("result"))
                                        .toObject();
    QVERIFY2(preview.value(QStringLiteral("ok")).toBool(),
             qPrintable(preview.value(QStringLiteral("error")).toString()));
    QCOMPARE(preview.value(QStringLiteral("policy_after")).toString(), QStringLiteral("windows"));
    QVERIFY(preview.value(QStringLiteral("policy_before")).toString() != QLatin1String("windows"));
    QVERIFY(preview.value(QStringLiteral("evictions")).isArray());
    QVERIFY(preview.value(QStringLiteral("budget_after"))[QStringLiteral("training_milli")]
                    .isDouble());
    QVERIFY(preview.value(QStringLiteral("needs_confirmation")).toBool()); // a policy switch
    QVERIFY(operatorEvents().isEmpty());
    // Confirmed with evictions it would not make: refused as a changed plan, nothing set.
    const QJsonObject stale = c.call({{QStringLiteral("cmd"), QStringLiteral("schedule-set")},
                                      {QStringLiteral("schedule"), schedule},
                                      {QStringLiteral("victims"), QJsonArray{9999}}});
    QCOMPARE(errorCode(stale), QStringLiteral("refused"));
    QVERIFY(stale.value(QStringLiteral("error"))[QStringLiteral("plan_changed")].toBool());
    QVERIFY(c.call({{QStringLiteral("cmd"), QStringLiteral("schedule-get")}})
                    .value(QStringLiteral("result"))[QStringLiteral("schedule")]
                    .isNull());
    const QJsonObject bad = c.call({{QStringLiteral("cmd"), QStringLiteral("preview-schedule")},
                                    {QStringLiteral("schedule"), 3}});
    QCOMPARE(errorCode(bad), QStringLiteral("bad-argument"));
    QJsonArray confirmed;
    for (const QJsonValue &e : preview.value(QStringLiteral("evictions")).toArray())
        confirmed.append(e[QStringLiteral("job")].toInt());
    const QJsonObject set = c.call({{QStringLiteral("cmd"), QStringLiteral("schedule-set")},
                                    {QStringLiteral("schedule"), schedule},
                                    {QStringLiteral("victims"), confirmed}});
    QVERIFY2(set.value(QStringLiteral("ok")).toBool(), qPrintable(errorMessage(set)));
    const QJsonObject got = c.call({{QStringLiteral("cmd"), QStringLiteral("schedule-get")}})
                                    .value(QStringLiteral("result"))
                                    .toObject();
    QCOMPARE(got.value(QStringLiteral("schedule")).toObject(), schedule);
    QCOMPARE(got.value(QStringLiteral("policy")).toString(), QStringLiteral("windows"));
    QJsonObject wrong = schedule;
    wrong.insert(QStringLiteral("prepareAhed"), QStringLiteral("5m"));
    const QJsonObject refused = c.call({{QStringLiteral("cmd"), QStringLiteral("schedule-set")},
                                        {QStringLiteral("schedule"), wrong}});
    QCOMPARE(errorCode(refused), QStringLiteral("refused"));
    QVERIFY2(errorMessage(refused).contains(QStringLiteral("prepareAhed")),
             qPrintable(errorMessage(refused)));
    // Before and after of the one that was taken (the refused one is audited too, first).
    const QJsonObject params = QJsonDocument::fromJson(operatorEvents().at(1).params).object();
    QVERIFY(params.value(QStringLiteral("before"))[QStringLiteral("schedule")].isNull());
    QCOMPARE(params.value(QStringLiteral("after"))[QStringLiteral("schedule")].toObject(),
             schedule);
}

// A real process on the H200 (card 1): the card is drained, the job's process ends and the job
// waits (the A100's instances are too small for it), the card stays cordoned; uncordoned, the
// job runs there again. Each change is audited with the card's state before and after.
// "Place anyway, over the class budget" through the API: with training's budget at nothing, a
// submitted job waits; its preview is refused for the budget and offers the over-budget plan;
// "place" with "over_budget" runs it as a real process, marked over budget, and is audited.
void TestServer::aJobIsPlacedOverItsClassBudget()
{
    if (::getuid() != 0)
        QSKIP("changes need root or the operator group");
    Client c;
    QVERIFY(c.connectTo(m_socket));
    const QJsonObject schedule{
            {QStringLiteral("windows"),
             QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("serving")},
                                    {QStringLiteral("from"), QStringLiteral("00:00")},
                                    {QStringLiteral("to"), QStringLiteral("24:00")},
                                    {QStringLiteral("inferenceShare"), 1.0}}}}};
    const QJsonObject set = c.call({{QStringLiteral("cmd"), QStringLiteral("schedule-set")},
                                    {QStringLiteral("schedule"), schedule}});
    QVERIFY2(set.value(QStringLiteral("ok")).toBool(), qPrintable(errorMessage(set)));
    const QJsonObject a = c.call({{QStringLiteral("cmd"), QStringLiteral("submit")},
                                  {QStringLiteral("spec"), trainSpec()}});
    QVERIFY2(a.value(QStringLiteral("ok")).toBool(), qPrintable(errorMessage(a)));
    const int job = a.value(QStringLiteral("result"))[QStringLiteral("job")].toInt(-1);
    QJsonObject preview;
    QVERIFY(QTest::qWaitFor(
            [&] {
                preview = c.call({{QStringLiteral("cmd"), QStringLiteral("preview-placement")},
                                  {QStringLiteral("job"), job},
                                  {QStringLiteral("card"), 1}})
                                  .value(QStringLiteral("result"))
                                  .toObject();
                return preview.value(QStringLiteral("reason")).toString()
                       == QLatin1String("class-budget-exceeded");
            },
            20000));
    QCOMPARE(preview.value(QStringLiteral("outcome")).toString(), QStringLiteral("refused"));
    QCOMPARE(preview.value(QStringLiteral("over_budget"))[QStringLiteral("outcome")].toString(),
             QStringLiteral("direct"));
    // Without "over_budget" the placement is refused for the budget; a non-boolean is a bad
    // argument.
    const QJsonObject plain = c.call({{QStringLiteral("cmd"), QStringLiteral("place")},
                                      {QStringLiteral("job"), job},
                                      {QStringLiteral("card"), 1}});
    QCOMPARE(errorCode(plain), QStringLiteral("refused"));
    const QJsonObject bad = c.call({{QStringLiteral("cmd"), QStringLiteral("place")},
                                    {QStringLiteral("job"), job},
                                    {QStringLiteral("card"), 1},
                                    {QStringLiteral("over_budget"), QStringLiteral("yes")}});
    QCOMPARE(errorCode(bad), QStringLiteral("bad-argument"));
    const QJsonObject placed = c.call({{QStringLiteral("cmd"), QStringLiteral("place")},
                                       {QStringLiteral("job"), job},
                                       {QStringLiteral("card"), 1},
                                       {QStringLiteral("over_budget"), true},
                                       {QStringLiteral("victims"), QJsonArray()}});
    QVERIFY2(placed.value(QStringLiteral("ok")).toBool(), qPrintable(errorMessage(placed)));
    QJsonObject running;
    QVERIFY(QTest::qWaitFor(
            [&] {
                const QJsonObject j = c.call({{QStringLiteral("cmd"), QStringLiteral("jobs")}});
                for (const QJsonValue &v :
                     j.value(QStringLiteral("result"))[QStringLiteral("jobs")].toArray()) {
                    if (v[QStringLiteral("job")].toInt() == job
                        && v[QStringLiteral("state")].toString() == QLatin1String("running"))
                        running = v.toObject();
                }
                return !running.isEmpty();
            },
            20000));
    QVERIFY(running.value(QStringLiteral("over_budget")).toBool());
    QVERIFY(QTest::qWaitFor(
            [&] { return m_session->runtime()->workloads().stats(Domain::JobId(job)).running; },
            20000));
    const QList<Storage::Event> ops = operatorEvents();
    const QJsonObject last = QJsonDocument::fromJson(ops.last().params).object();
    QCOMPARE(ops.last().code, QByteArray("operator-place"));
    QVERIFY(last.value(QStringLiteral("ok")).toBool());
    QVERIFY(last.value(QStringLiteral("asked"))[QStringLiteral("over_budget")].toBool());
}

void TestServer::aDrainedCardSendsItsWorkAwayUntilUncordoned()
{
    if (::getuid() != 0)
        QSKIP("changes need root or the operator group");
    Client c;
    QVERIFY(c.connectTo(m_socket));
    const QJsonObject a = c.call({{QStringLiteral("cmd"), QStringLiteral("submit")},
                                  {QStringLiteral("spec"), trainSpec()}});
    QVERIFY2(a.value(QStringLiteral("ok")).toBool(), qPrintable(errorMessage(a)));
    const Domain::JobId job(a.value(QStringLiteral("result"))[QStringLiteral("job")].toInt(-1));
    const auto state = [&] { return m_session->runtime()->scheduler().state().job(job).state; };
    QVERIFY(QTest::qWaitFor([&] { return m_session->runtime()->workloads().stats(job).running; },
                            20000));
    const QJsonObject bad = c.call({{QStringLiteral("cmd"), QStringLiteral("card-cordon")},
                                    {QStringLiteral("card"), 1},
                                    {QStringLiteral("drain"), QStringLiteral("yes")}});
    QCOMPARE(errorCode(bad), QStringLiteral("bad-argument"));
    const QJsonObject drain = c.call({{QStringLiteral("cmd"), QStringLiteral("card-cordon")},
                                      {QStringLiteral("card"), 1},
                                      {QStringLiteral("drain"), true}});
    QVERIFY2(drain.value(QStringLiteral("ok")).toBool(), qPrintable(errorMessage(drain)));
    QVERIFY(QTest::qWaitFor(
            [&] {
                return state() == Sched::JobState::Pending
                       && !m_session->runtime()->workloads().stats(job).running;
            },
            30000));
    const QJsonObject cards = c.call({{QStringLiteral("cmd"), QStringLiteral("cards")}});
    QVERIFY(cards.value(QStringLiteral(
            "result"))[QStringLiteral("cards")][1][QStringLiteral("cordoned_by_operator")]
                    .toBool());
    QTest::qWait(1500); // a few cycles: it stays waiting
    QCOMPARE(state(), Sched::JobState::Pending);
    const QJsonObject again = c.call(
            {{QStringLiteral("cmd"), QStringLiteral("card-cordon")}, {QStringLiteral("card"), 1}});
    QCOMPARE(errorCode(again), QStringLiteral("refused"));
    const QJsonObject lift = c.call({{QStringLiteral("cmd"), QStringLiteral("card-uncordon")},
                                     {QStringLiteral("card"), 1}});
    QVERIFY2(lift.value(QStringLiteral("ok")).toBool(), qPrintable(errorMessage(lift)));
    QVERIFY(QTest::qWaitFor(
            [&] {
                return state() == Sched::JobState::Running
                       && m_session->runtime()->workloads().stats(job).running;
            },
            30000));
    // Audited: before, the job on the card and no cordon; after, the cordon.
    const QList<Storage::Event> ops = operatorEvents();
    const auto params = [&](int i) { return QJsonDocument::fromJson(ops[i].params).object(); };
    QCOMPARE(ops[2].code, QByteArray("operator-card-cordon"));
    QVERIFY(!params(2)[QStringLiteral("before")][QStringLiteral("cordoned")].toBool());
    QCOMPARE(params(2)[QStringLiteral("before")][QStringLiteral("jobs")].toArray(),
             QJsonArray{job.value()});
    QVERIFY(params(2)[QStringLiteral("after")][QStringLiteral("cordoned")].toBool());
    QCOMPARE(ops.last().code, QByteArray("operator-card-uncordon"));
    QVERIFY(!params(int(ops.size()) - 1)[QStringLiteral("after")][QStringLiteral("cordoned")]
                     .toBool());
}

void TestServer::historyAnswersTheStoredCardAndPartitionSeries()
{
    // The session records its cards (each minute of its clock) and partitions (as it publishes);
    // "history" answers them under the charts' keys, readable by a console of any role.
    Client c;
    QVERIFY(c.connectTo(m_socket));
    QJsonArray series;
    QStringList keys;
    QVERIFY(QTest::qWaitFor(
            [&] {
                const QJsonObject a = c.call({{QStringLiteral("cmd"), QStringLiteral("history")}});
                if (!a.value(QStringLiteral("ok")).toBool())
                    return false;
                series = a.value(QStringLiteral("result"))[QStringLiteral("series")].toArray();
                keys.clear();
                for (const QJsonValue &v : std::as_const(series))
                    keys << v[QStringLiteral("key")].toString();
                return keys.contains(QStringLiteral("all/power"))
                       && std::any_of(keys.cbegin(), keys.cend(), [](const QString &k) {
                              return k.startsWith(QLatin1String("part/"));
                          });
            },
            10000));
    QList<Models::HistorySeries> history;
    QString why;
    QVERIFY2(Models::historyFromJson(series, &history, &why), qPrintable(why));
    const qint64 now = m_session->latest()->nowMs;
    for (const Models::HistorySeries &h : std::as_const(history)) {
        QVERIFY(!h.points.isEmpty());
        QVERIFY2(h.points.last().t <= double(now) / 1000.0, qPrintable(h.info.key));
    }
    // A range before anything was recorded is empty, not an error.
    const QJsonObject before = c.call({{QStringLiteral("cmd"), QStringLiteral("history")},
                                       {QStringLiteral("from_ms"), 0},
                                       {QStringLiteral("to_ms"), 1000}});
    QVERIFY(before.value(QStringLiteral("ok")).toBool());
    QVERIFY(before.value(QStringLiteral("result"))[QStringLiteral("series")].toArray().isEmpty());
}

void TestServer::badInputGetsAnErrorNamingIt_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("words");
    QTest::newRow("not JSON") << QByteArray("{\"cmd\": hello}\n") << "malformed"
                              << "not JSON";
    QTest::newRow("not an object") << QByteArray("[1, 2]\n") << "malformed"
                                   << "JSON object";
    QTest::newRow("no cmd") << QByteArray("{\"id\": 1}\n") << "bad-argument"
                            << "\"cmd\"";
    QTest::newRow("cmd not a string") << QByteArray("{\"id\": 1, \"cmd\": 5}\n") << "bad-argument"
                                      << "\"cmd\"";
    QTest::newRow("a misspelt command")
            << QByteArray("{\"id\": 1, \"cmd\": \"sumbit\"}\n") << "unknown-command"
            << "did you mean \"submit\"";
    QTest::newRow("a job that is not a number")
            << QByteArray("{\"id\": 1, \"cmd\": \"job-log\", \"job\": \"x\"}\n") << "bad-argument"
            << "\"job\" must be an integer";
    QTest::newRow("a job missing")
            << QByteArray("{\"id\": 1, \"cmd\": \"cancel\"}\n") << "bad-argument"
            << "\"job\" is required";
    QTest::newRow("a fractional priority")
            << QByteArray("{\"id\": 1, \"cmd\": \"priority\", \"job\": 0, \"priority\": 1.5}\n")
            << "bad-argument"
            << "priority";
    QTest::newRow("a spec that is not an object")
            << QByteArray("{\"id\": 1, \"cmd\": \"submit\", \"spec\": []}\n") << "bad-argument"
            << "spec";
    QTest::newRow("a spec with a wrong field")
            << QByteArray("{\"id\": 1, \"cmd\": \"submit\", \"spec\": {\"name\": \"x\", \"kind\": "
                          "\"training\", \"demand\": {\"cards\": -1}}}\n")
            << "refused"
            << "demand";
    QTest::newRow("a history that ends before it starts")
            << QByteArray("{\"id\": 1, \"cmd\": \"history\", \"from_ms\": 2000, "
                          "\"to_ms\": 1000}\n")
            << "bad-argument"
            << "\"from_ms\" is later than \"to_ms\"";
    QTest::newRow("a history end that is not a time")
            << QByteArray("{\"id\": 1, \"cmd\": \"history\", \"to_ms\": \"soon\"}\n")
            << "bad-argument"
            << "\"to_ms\" must be an integer";
    QTest::newRow("no such card") << QByteArray(
            "{\"id\": 1, \"cmd\": \"layout-apply\", \"card\": 99, \"layout\": []}\n")
                                  << "bad-argument"
                                  << "no card 99";
    QTest::newRow("victims that are not job ids")
            << QByteArray("{\"id\": 1, \"cmd\": \"place\", \"job\": 0, \"card\": 0, "
                          "\"victims\": [\"x\"]}\n")
            << "bad-argument"
            << "victims";
    QTest::newRow("a pin that ends in the past")
            << QByteArray("{\"id\": 1, \"cmd\": \"layout-pin\", \"card\": 0, \"until_ms\": 5}\n")
            << "bad-argument"
            << "until_ms";
    QTest::newRow("a pin with two ends")
            << QByteArray("{\"id\": 1, \"cmd\": \"layout-pin\", \"card\": 0, \"until_ms\": -1, "
                          "\"for_ms\": 60000}\n")
            << "bad-argument"
            << "not both";
    QTest::newRow("a pin on no card")
            << QByteArray("{\"id\": 1, \"cmd\": \"layout-unpin\", \"card\": 42}\n")
            << "bad-argument"
            << "no card 42";
    QTest::newRow("invalid UTF-8")
            << QByteArray("{\"id\": 1, \"cmd\": \"\xff\xfe\"}\n") << "malformed"
            << "not JSON";
    QTest::newRow("a NUL byte") << QByteArray("{\"id\": 1, \"cmd\": \"hel\0lo\"}\n", 27)
                                << "unknown-command"
                                << "unknown command";
}

void TestServer::badInputGetsAnErrorNamingIt()
{
    QFETCH(QByteArray, line);
    QFETCH(QString, code);
    QFETCH(QString, words);
    Client c;
    QVERIFY(c.connectTo(m_socket));
    c.sendRaw(line);
    QJsonObject a;
    QVERIFY(QTest::qWaitFor(
            [&] {
                const QList<QJsonObject> got = c.take();
                if (!got.isEmpty())
                    a = got.first();
                return !a.isEmpty();
            },
            10000));
    QVERIFY(!a.value(QStringLiteral("ok")).toBool(true));
    QCOMPARE(errorCode(a), code);
    QVERIFY2(errorMessage(a).contains(words)
                     || a.value(QStringLiteral("error"))[QStringLiteral("field")]
                                .toString()
                                .contains(words),
             qPrintable(QJsonDocument(a).toJson()));
    // The same connection still works.
    QVERIFY(c.call({{QStringLiteral("cmd"), QStringLiteral("hello")}})
                    .value(QStringLiteral("ok"))
                    .toBool());
}

void TestServer::aLineOverTheLimitIsRefusedAndTheConnectionLivesOn()
{
    Client c;
    QVERIFY(c.connectTo(m_socket));
    QByteArray big = "{\"id\": 1, \"cmd\": \"hello\", \"pad\": \"";
    big += QByteArray(Service::kMaxMessageBytes, 'x');
    big += "\"}\n";
    c.sendRaw(big);
    const QJsonObject after = c.call({{QStringLiteral("cmd"), QStringLiteral("hello")}});
    QVERIFY(after.value(QStringLiteral("ok")).toBool());
    const QList<QJsonObject> rest = c.take();
    // Exactly one error for the oversized line, naming the limit; nothing of it was run.
    QCOMPARE(c.answers(), 2);
    QCOMPARE(rest.size(), 1);
    QCOMPARE(errorCode(rest.first()), QStringLiteral("malformed"));
    QVERIFY(errorMessage(rest.first()).contains(QString::number(Service::kMaxMessageBytes)));
}

void TestServer::fuzzedMessagesAreAllAnswered()
{
    // Reads, changes and garbage, mutated: every line gets exactly one answer and the service
    // goes on answering. Changes from root are audited like any other.
    QRandomGenerator rng(15);
    const QList<QByteArray> seeds
            = {R"({"id":1,"cmd":"hello","client":"fuzz"})",
               R"({"id":2,"cmd":"jobs"})",
               R"({"id":3,"cmd":"cards"})",
               R"({"id":4,"cmd":"events","last":5})",
               R"({"id":5,"cmd":"preview-placement","job":0,"card":1})",
               R"({"id":6,"cmd":"preview-layout","card":0,"layout":["1g.5gb@0"]})",
               R"({"id":7,"cmd":"job-log","job":0,"max_bytes":100})",
               R"({"id":8,"cmd":"priority","job":0,"priority":3})",
               R"({"id":9,"cmd":"schedule-get"})",
               R"({"id":10,"cmd":"snapshot","state":true})",
               R"({"id":11,"cmd":"subscribe","snapshots":false})",
               R"({"id":12,"cmd":"requeue","job":12345})",
               R"({"id":13,"cmd":"layout-apply","card":0,"layout":["7g.40gb@0"]})"};
    const QList<QByteArray> values = {"null",
                                      "true",
                                      "-1",
                                      "1e308",
                                      "-0",
                                      "\"\"",
                                      "[]",
                                      "{}",
                                      "\"\xe4\xb8\xad\"",
                                      "9007199254740993",
                                      "[[[[[[[[[[]]]]]]]]]]",
                                      "\"\\ud800\"",
                                      "0.5",
                                      "\"7g.40gb@99\""};
    QByteArray stream;
    int expected = 0;
    for (int i = 0; i < 10000; ++i) {
        QByteArray m = seeds[int(rng.bounded(seeds.size()))];
        switch (rng.bounded(6)) {
        case 0: // a value replaced
        {
            const qsizetype colon = m.indexOf(':', rng.bounded(int(m.size())));
            if (colon > 0) {
                const qsizetype end
                        = m.indexOf(',', colon) > 0 ? m.indexOf(',', colon) : m.size() - 1;
                m = m.left(colon + 1) + values[int(rng.bounded(values.size()))] + m.mid(end);
            }
            break;
        }
        case 1: // truncated
            m.truncate(rng.bounded(int(m.size())));
            break;
        case 2: // bytes flipped
            for (int k = 0; k < 3; ++k)
                m[rng.bounded(int(m.size()))] = char(rng.bounded(256));
            break;
        case 3: // random bytes
            m = QByteArray(int(rng.bounded(200)), Qt::Uninitialized);
            for (char &ch : m)
                ch = char(rng.bounded(256));
            break;
        case 4: // deep nesting
            m = QByteArray(int(rng.bounded(2000)), '[') + "1"
                + QByteArray(int(rng.bounded(2000)), ']');
            break;
        default:
            break; // as it is
        }
        // What the server will see as lines: the stream split at '\n', blank lines skipped.
        for (const QByteArray &part : m.split('\n')) {
            if (!part.trimmed().isEmpty())
                ++expected;
        }
        stream += m + '\n';
    }
    Client c;
    QVERIFY(c.connectTo(m_socket));
    const qint64 before = m_server->requestsAnswered();
    for (qsizetype at = 0; at < stream.size(); at += 64 * 1024) {
        c.sendRaw(stream.mid(at, 64 * 1024));
        QTest::qWait(1); // as a client writes: in pieces, not one write
    }
    QVERIFY2(QTest::qWaitFor(
                     [&] {
                         c.take();
                         return c.answers() >= expected;
                     },
                     120000),
             qPrintable(QStringLiteral("%1 of %2 answered").arg(c.answers()).arg(expected)));
    QCOMPARE(c.answers(), expected);
    QCOMPARE(m_server->requestsAnswered() - before, qint64(expected));
    QVERIFY(c.call({{QStringLiteral("cmd"), QStringLiteral("hello")}})
                    .value(QStringLiteral("ok"))
                    .toBool());
    // Whatever the fuzz changed was audited, and the chain holds.
    const QJsonObject verify = c.call({{QStringLiteral("cmd"), QStringLiteral("audit-verify")}});
    QVERIFY(verify.value(QStringLiteral("result"))[QStringLiteral("intact")].toBool());
}

void TestServer::aClientThatStopsReadingHoldsNobodyUp()
{
    QLocalSocket slow;
    slow.connectToServer(m_socket);
    QVERIFY(QTest::qWaitFor([&] { return slow.state() == QLocalSocket::ConnectedState; }, 5000));
    // It asks for far more than the bound (each answer is a whole snapshot) and reads nothing.
    QByteArray flood;
    for (int i = 0; i < 4000; ++i)
        flood += "{\"id\":" + QByteArray::number(i) + ",\"cmd\":\"snapshot\",\"state\":true}\n";
    slow.write(flood);
    Client fast;
    QVERIFY(fast.connectTo(m_socket));
    for (int i = 0; i < 20; ++i)
        QVERIFY(fast.call({{QStringLiteral("cmd"), QStringLiteral("jobs")}})
                        .value(QStringLiteral("ok"))
                        .toBool());
    // Its output grew past four times the bound: the service let it go.
    QVERIFY(QTest::qWaitFor([&] { return m_server->clientCount() == 1; }, 30000));
    QVERIFY(fast.call({{QStringLiteral("cmd"), QStringLiteral("hello")}})
                    .value(QStringLiteral("ok"))
                    .toBool());
}

void TestServer::subscribersGetSnapshotsAndEvents()
{
    Client c;
    QVERIFY(c.connectTo(m_socket));
    const QJsonObject sub = c.call({{QStringLiteral("cmd"), QStringLiteral("subscribe")},
                                    {QStringLiteral("events"), true},
                                    {QStringLiteral("interval_ms"), 100}});
    QCOMPARE(sub.value(QStringLiteral("result"))[QStringLiteral("interval_ms")].toInt(), 100);
    const QJsonObject first = c.push([](const QJsonObject &m) {
        return m.value(QStringLiteral("push")) == QLatin1String("snapshot");
    });
    QVERIFY(!first.isEmpty());
    const qint64 serial
            = first.value(QStringLiteral("snapshot"))[QStringLiteral("serial")].toInteger();
    QCOMPARE(first.value(QStringLiteral("snapshot"))[QStringLiteral("cards")].toArray().size(), 2);
    const QJsonObject next = c.push([&](const QJsonObject &m) {
        return m.value(QStringLiteral("push")) == QLatin1String("snapshot")
               && m.value(QStringLiteral("snapshot"))[QStringLiteral("serial")].toInteger()
                          > serial;
    });
    QVERIFY(!next.isEmpty());
    if (::getuid() != 0)
        return;
    Client op;
    QVERIFY(op.connectTo(m_socket));
    QVERIFY(op.call({{QStringLiteral("cmd"), QStringLiteral("submit")},
                     {QStringLiteral("spec"), trainSpec()}})
                    .value(QStringLiteral("ok"))
                    .toBool());
    // The audit event and the scheduler's reach the subscriber (in whichever order they come).
    QSet<QString> codes;
    QVERIFY(QTest::qWaitFor(
            [&] {
                for (const QJsonObject &m : c.take()) {
                    if (m.value(QStringLiteral("push")) == QLatin1String("event"))
                        codes.insert(m.value(QStringLiteral("event"))[QStringLiteral("code")]
                                             .toString());
                }
                return codes.contains(QStringLiteral("operator-submit"))
                       && codes.contains(QStringLiteral("job-placed"));
            },
            20000));
}

void TestServer::afterShutdownChangesAreRefusedAndAudited()
{
    Client c;
    QVERIFY(c.connectTo(m_socket));
    QVERIFY(c.call({{QStringLiteral("cmd"), QStringLiteral("hello")}})
                    .value(QStringLiteral("ok"))
                    .toBool());
    m_server->stopTakingChanges();
    const QJsonObject a = c.call({{QStringLiteral("cmd"), QStringLiteral("submit")},
                                  {QStringLiteral("spec"), trainSpec()}});
    QCOMPARE(errorCode(a),
             ::getuid() == 0 ? QStringLiteral("unavailable") : QStringLiteral("forbidden"));
    QVERIFY(c.call({{QStringLiteral("cmd"), QStringLiteral("jobs")}})
                    .value(QStringLiteral("ok"))
                    .toBool());
    const QList<Storage::Event> ops = operatorEvents();
    QCOMPARE(ops.size(), 1);
    QCOMPARE(ops[0].severity, Storage::Severity::Warning);
    // No new connection is taken.
    QLocalSocket late;
    late.connectToServer(m_socket);
    QVERIFY(!late.waitForConnected(500));
}

QTEST_GUILESS_MAIN(TestServer)
#include "tst_server.moc"
