// SPDX-License-Identifier: GPL-3.0-or-later
// Models::SessionClient in front of a session on the test's own thread that answers every command
// inside the call (as the simulated session does in tests and --screenshot): the caller has its
// request id before the answer arrives, and the answer carries that id.
#include "core/models/sessionclient.h"

#include <QSet>
#include <QSignalSpy>
#include <QTest>

#include <functional>
#include <memory>

using namespace Zhaoxi;
using Models::SessionClient;

namespace {

// Answers each command before returning from it, with the request id it was given, and publishes
// a snapshot inside setPaused (a command of the run that changes the state at once).
class AnsweringSession : public Session::ApplianceSession
{
    Q_OBJECT

public:
    Session::SnapshotPtr latest() const override { return m_latest; }

    void start() override {}
    void stop() override {}
    void setSpeed(double) override {}
    void setPaused(bool paused) override
    {
        auto s = std::make_shared<Session::Snapshot>();
        s->serial = m_latest ? m_latest->serial + 1 : 1;
        s->paused = paused;
        m_latest = s;
        Q_EMIT snapshotReady(m_latest);
    }
    void setPollIntervalMs(int) override {}

    void previewPlacement(quint64 request, int job, int card) override
    {
        Session::PlacementPreview p;
        p.request = request;
        p.job = Domain::JobId(job);
        p.card = Domain::CardId(card);
        p.outcome = Session::PlacementPreview::Outcome::Direct;
        Q_EMIT placementPreviewReady(p);
    }
    void placeJob(quint64 request, int job, int, bool) override { finish(request, job); }
    void placeJobConfirmed(quint64 request, int job, int, QList<int>, Sched::BudgetRule) override
    {
        finish(request, job);
    }
    void requeueJob(quint64 request, int job) override { finish(request, job); }
    void previewLayout(quint64 request, int card, QList<Domain::MigPlacement> target) override
    {
        Session::LayoutPreview p;
        p.request = request;
        p.card = Domain::CardId(card);
        p.ok = true;
        p.target = target;
        Q_EMIT layoutPreviewReady(p);
    }
    void applyLayout(
            quint64 request, int, QList<Domain::MigPlacement>, Session::ApplyMode, qint64) override
    {
        finish(request, -1);
    }
    void setSchedule(quint64 request, QJsonObject) override { finish(request, -1); }
    void submitWorkload(quint64 request, QJsonObject) override { finish(request, 7); }
    void cancelJob(quint64 request, int job) override { finish(request, job); }
    void setJobPriority(quint64 request, int job, int) override { finish(request, job); }
    void pinLayout(quint64 request, int, qint64) override { finish(request, -1); }
    void requestJobLog(quint64 request, int job, qint64) override
    {
        Session::JobLog log;
        log.request = request;
        log.job = Domain::JobId(job);
        log.ok = true;
        log.text = QStringLiteral("hello\n");
        Q_EMIT jobLogReady(log);
    }

private:
    void finish(quint64 request, int job)
    {
        Session::CommandResult r;
        r.request = request;
        r.ok = true;
        r.job = Domain::JobId(job);
        Q_EMIT commandFinished(r);
    }

    Session::SnapshotPtr m_latest;
};

using Call = std::function<quint64(SessionClient &)>;

enum class Answer { Placement, Layout, Command, Log };

// The answers a client has delivered so far, with the id each carries, in delivery order.
struct Answers
{
    explicit Answers(SessionClient &client)
    {
        QObject::connect(&client,
                         &SessionClient::placementPreviewReady,
                         &client,
                         [this](const Session::PlacementPreview &p) {
                             got.append({Answer::Placement, p.request});
                         });
        QObject::connect(&client,
                         &SessionClient::layoutPreviewReady,
                         &client,
                         [this](const Session::LayoutPreview &p) {
                             got.append({Answer::Layout, p.request});
                         });
        QObject::connect(&client,
                         &SessionClient::commandFinished,
                         &client,
                         [this](const Session::CommandResult &r) {
                             got.append({Answer::Command, r.request});
                         });
        QObject::connect(
                &client, &SessionClient::jobLogReady, &client, [this](const Session::JobLog &l) {
                    got.append({Answer::Log, l.request});
                });
    }
    QList<QPair<Answer, quint64>> got;
};

} // namespace

Q_DECLARE_METATYPE(Call)
Q_DECLARE_METATYPE(Answer)

class TestSessionClient : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void answerComesAfterTheCallWithItsId_data();
    void answerComesAfterTheCallWithItsId();
    void callerKnowsTheIdWhenTheAnswerArrives();
    void answersKeepTheSessionsOrder();
    void snapshotsStillArriveInsideTheCall();
    void noAnswerAfterTheClientIsGone();
};

void TestSessionClient::answerComesAfterTheCallWithItsId_data()
{
    QTest::addColumn<Call>("command");
    QTest::addColumn<Answer>("answer");
    using Domain::CardId;
    using Domain::JobId;
    QTest::newRow("previewPlacement")
            << Call([](SessionClient &c) { return c.previewPlacement(JobId(3), CardId(1)); })
            << Answer::Placement;
    QTest::newRow("placeJob") << Call([](SessionClient &c) {
        return c.placeJob(JobId(3), CardId(1), true);
    }) << Answer::Command;
    QTest::newRow("requeueJob") << Call([](SessionClient &c) { return c.requeueJob(JobId(3)); })
                                << Answer::Command;
    QTest::newRow("previewLayout")
            << Call([](SessionClient &c) { return c.previewLayout(CardId(0), {}); })
            << Answer::Layout;
    QTest::newRow("applyLayout") << Call([](SessionClient &c) {
        return c.applyLayout(CardId(0), {}, Session::ApplyMode::Drain, 60000);
    }) << Answer::Command;
    QTest::newRow("setSchedule") << Call([](SessionClient &c) {
        return c.setSchedule(QJsonObject());
    }) << Answer::Command;
    QTest::newRow("submitWorkload")
            << Call([](SessionClient &c) { return c.submitWorkload(QJsonObject()); })
            << Answer::Command;
    QTest::newRow("cancelJob") << Call([](SessionClient &c) { return c.cancelJob(JobId(3)); })
                               << Answer::Command;
    QTest::newRow("setJobPriority")
            << Call([](SessionClient &c) { return c.setJobPriority(JobId(3), 40); })
            << Answer::Command;
    QTest::newRow("requestJobLog")
            << Call([](SessionClient &c) { return c.requestJobLog(JobId(3)); }) << Answer::Log;
}

void TestSessionClient::answerComesAfterTheCallWithItsId()
{
    QFETCH(Call, command);
    QFETCH(Answer, answer);
    AnsweringSession session;
    SessionClient client(&session);
    Answers answers(client);

    // A first request, so that the id under test is not merely "the first one".
    const quint64 first = client.requestJobLog(Domain::JobId(0));
    QTRY_COMPARE(answers.got.size(), 1);
    answers.got.clear();

    const quint64 id = command(client);
    QVERIFY(id != 0);
    QVERIFY(id != first);
    QVERIFY2(answers.got.isEmpty(), "the answer was delivered inside the call");
    QTRY_COMPARE(answers.got.size(), 1);
    QCOMPARE(answers.got.first().first, answer);
    QCOMPARE(answers.got.first().second, id);
}

void TestSessionClient::callerKnowsTheIdWhenTheAnswerArrives()
{
    // The way a view uses the client: it stores the id the call returns and matches answers by
    // it, with no flag for "inside my own call".
    AnsweringSession session;
    SessionClient client(&session);
    quint64 pending = 0;
    QList<bool> matched;
    connect(&client, &SessionClient::commandFinished, this, [&](const Session::CommandResult &r) {
        matched.append(pending != 0 && r.request == pending);
    });
    pending = client.submitWorkload(QJsonObject());
    QVERIFY(pending != 0);
    QTRY_COMPARE(matched.size(), 1);
    QVERIFY(matched.first());
}

void TestSessionClient::answersKeepTheSessionsOrder()
{
    AnsweringSession session;
    SessionClient client(&session);
    Answers answers(client);
    const quint64 a = client.previewPlacement(Domain::JobId(1), Domain::CardId(0));
    const quint64 b = client.cancelJob(Domain::JobId(1));
    const quint64 c = client.previewLayout(Domain::CardId(0), {});
    const quint64 d = client.requestJobLog(Domain::JobId(1));
    QCOMPARE(QSet<quint64>({a, b, c, d}).size(), 4);
    QVERIFY(answers.got.isEmpty());
    QTRY_COMPARE(answers.got.size(), 4);
    const QList<QPair<Answer, quint64>> expected{
            {Answer::Placement, a}, {Answer::Command, b}, {Answer::Layout, c}, {Answer::Log, d}};
    QCOMPARE(answers.got, expected);
}

void TestSessionClient::snapshotsStillArriveInsideTheCall()
{
    // Not an answer: a model may read the state a command of this thread has just made.
    AnsweringSession session;
    SessionClient client(&session);
    QSignalSpy snapshots(&client, &SessionClient::snapshotChanged);
    client.setPaused(true);
    QCOMPARE(snapshots.size(), 1);
    QVERIFY(client.snapshot());
    QVERIFY(client.snapshot()->paused);
}

void TestSessionClient::noAnswerAfterTheClientIsGone()
{
    AnsweringSession session;
    bool delivered = false;
    {
        SessionClient client(&session);
        connect(&client, &SessionClient::commandFinished, this, [&] { delivered = true; });
        client.cancelJob(Domain::JobId(1));
    }
    // The queued answer went with its client: nothing is delivered to a dead one.
    QCoreApplication::sendPostedEvents();
    QVERIFY(!delivered);
}

QTEST_GUILESS_MAIN(TestSessionClient)
#include "tst_sessionclient.moc"
