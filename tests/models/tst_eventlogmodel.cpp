// SPDX-License-Identifier: GPL-3.0-or-later
// The event log's models fed by a real session on the demo day: every snapshot's events arrive in
// one insert, the rows are the store's (same ids, same order), the filters select what they say,
// and the bound drops the oldest. QAbstractItemModelTester watches both models throughout.
#include "core/catalogue/catalogue.h"
#include "core/models/eventlogmodel.h"
#include "core/models/sessionclient.h"
#include "core/session/simulationsession.h"
#include "core/sim/scenario.h"
#include "core/storage/store.h"

#include "tests/data/scenarios.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace Zhaoxi;
using Models::EventCriteria;
using Models::EventFilterModel;
using Models::EventLogModel;
using Storage::Event;
using Storage::Severity;
using Storage::Source;

namespace {

constexpr qint64 kHour = 3'600'000;

using TestData::demoDay;

QList<qint64> ids(const QAbstractItemModel &model)
{
    QList<qint64> r;
    for (int row = 0; row < model.rowCount(); ++row)
        r << model.index(row, 0).data(EventLogModel::EventIdRole).toLongLong();
    return r;
}

// The words a console might use: not the English ones, so a test can tell them apart.
QString testWords(const Event &e, const Models::EventNames &names)
{
    if (e.code == "job-placed")
        return QStringLiteral("作业 %1 已放置").arg(names.job(e.job));
    return QStringLiteral("事件 ") + QString::fromLatin1(e.code);
}

} // namespace

class TestEventLogModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void eachSnapshotIsOneInsertAndTheRowsAreTheStores();
    void filters_data();
    void filters();
    void textSearchesTheShownWordsAndTheCode();
    void storeFilterAndAcceptsAgreeWithTheProxy();
    void boundDropsTheOldest();
    void namesComeFromTheSnapshots();

private:
    // Feeds the recorded day into `model`, one snapshot at a time.
    void replay(EventLogModel &model) const
    {
        for (const Session::SnapshotPtr &s : m_snapshots)
            model.appendSnapshot(*s);
    }

    std::unique_ptr<Session::SimulationSession> m_session;
    QList<Session::SnapshotPtr> m_snapshots;
    QList<Event> m_stored; // the store's events, after the day
};

void TestEventLogModel::initTestCase()
{
    const Sim::Scenario scenario = demoDay();
    m_session = std::make_unique<Session::SimulationSession>(scenario, QString(), scenario.seed);
    QVERIFY2(!m_session->storePath().isEmpty(), qPrintable(m_session->storeError()));
    Models::SessionClient client(m_session.get());
    connect(&client,
            &Models::SessionClient::snapshotChanged,
            this,
            [this](const Session::SnapshotPtr &s) { m_snapshots << s; });
    // A snapshot every half hour of the day, the way a running console gets them (more often).
    for (qint64 t = kHour / 2; t <= 24 * kHour; t += kHour / 2)
        m_session->runTo(t);
    QVERIFY(m_snapshots.size() >= 48);
    m_session->stop(); // flushes the store
    QString err;
    auto reader = Storage::Reader::open(
            m_session->storePath(), Storage::Reader::OpenMode::RequireCurrent, &err);
    QVERIFY2(reader, qPrintable(err));
    m_stored = reader->events({}, &err);
    QVERIFY2(err.isEmpty(), qPrintable(err));
    QVERIFY(m_stored.size() > 500);
}

void TestEventLogModel::eachSnapshotIsOneInsertAndTheRowsAreTheStores()
{
    EventLogModel log;
    EventFilterModel shown;
    shown.setSourceModel(&log);
    shown.setSeverities({Severity::Warning, Severity::Error});
    QAbstractItemModelTester logTester(&log,
                                       QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester shownTester(&shown,
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy inserts(&log, &QAbstractItemModel::rowsInserted);
    int nonEmpty = 0;
    int expectedRows = 0;
    for (const Session::SnapshotPtr &s : std::as_const(m_snapshots)) {
        const int before = log.rowCount();
        log.appendSnapshot(*s);
        if (s->events.isEmpty())
            continue;
        ++nonEmpty;
        expectedRows += int(s->events.size());
        QCOMPARE(inserts.size(), nonEmpty);
        QCOMPARE(inserts.last().at(1).toInt(), before);
        QCOMPARE(inserts.last().at(2).toInt(), before + int(s->events.size()) - 1);
    }
    QCOMPARE(log.rowCount(), expectedRows);
    // The same events as the store, with its ids, in its (time, id) order.
    QList<qint64> stored;
    for (const Event &e : std::as_const(m_stored))
        stored << e.id;
    QCOMPARE(ids(log), stored);
    for (int row = 0; row < log.rowCount(); row += 97)
        QCOMPARE(log.event(row), m_stored[row]);
    QVERIFY(shown.rowCount() > 0);
    QVERIFY(shown.rowCount() < log.rowCount());
    // Changing the filter while the tester watches.
    shown.setSeverities({});
    QCOMPARE(shown.rowCount(), log.rowCount());
    shown.setSources({Source::Device});
    QVERIFY(shown.rowCount() > 0);
    // Free text reads the words, which change with the message function (one dataChanged).
    shown.setSources({});
    shown.setText(QStringLiteral("已放置"));
    QCOMPARE(shown.rowCount(), 0);
    log.setMessageFunction(testWords);
    QVERIFY(shown.rowCount() > 0);
    log.clear();
    QCOMPARE(shown.rowCount(), 0);
}

void TestEventLogModel::filters_data()
{
    QTest::addColumn<QList<int>>("severities");
    QTest::addColumn<int>("source");
    QTest::addColumn<int>("card");
    QTest::addColumn<QString>("jobName");
    QTest::addColumn<QString>("code");
    QTest::addColumn<bool>("prefix");
    QTest::addColumn<QString>("text");
    QTest::addColumn<double>("fromHour");
    QTest::addColumn<double>("toHour");

    const QList<int> none;
    QTest::newRow("warnings and errors")
            << QList<int>{int(Severity::Warning), int(Severity::Error)} << -1 << -1 << QString()
            << QString() << false << QString() << -1.0 << -1.0;
    QTest::newRow("the devices") << none << int(Source::Device) << -1 << QString() << QString()
                                 << false << QString() << -1.0 << -1.0;
    QTest::newRow("the policies") << none << int(Source::Policy) << -1 << QString() << QString()
                                  << false << QString() << -1.0 << -1.0;
    QTest::newRow("card 6, lost at 14:20")
            << none << -1 << 6 << QString() << QString() << false << QString() << -1.0 << -1.0;
    QTest::newRow("one training job") << none << -1 << -1 << QStringLiteral("ft-70b-a") << QString()
                                      << false << QString() << -1.0 << -1.0;
    QTest::newRow("placements, exactly")
            << none << -1 << -1 << QString() << QStringLiteral("job-placed") << false << QString()
            << -1.0 << -1.0;
    QTest::newRow("every job code, by prefix")
            << none << -1 << -1 << QString() << QStringLiteral("job-") << true << QString() << -1.0
            << -1.0;
    QTest::newRow("a prefix is no exact code")
            << none << -1 << -1 << QString() << QStringLiteral("job-") << false << QString() << -1.0
            << -1.0;
    QTest::newRow("text in the message") << none << -1 << -1 << QString() << QString() << false
                                         << QStringLiteral("已放置") << -1.0 << -1.0;
    QTest::newRow("text in the code, any case")
            << none << -1 << -1 << QString() << QString() << false << QStringLiteral("THROTTLE")
            << -1.0 << -1.0;
    QTest::newRow("09:00 to 10:30")
            << none << -1 << -1 << QString() << QString() << false << QString() << 9.0 << 10.5;
    QTest::newRow("device errors on ada-edge card 1 (9) in the night")
            << QList<int>{int(Severity::Error)} << int(Source::Device) << 9 << QString()
            << QString() << false << QString() << 0.0 << 6.0;
}

void TestEventLogModel::filters()
{
    QFETCH(QList<int>, severities);
    QFETCH(int, source);
    QFETCH(int, card);
    QFETCH(QString, jobName);
    QFETCH(QString, code);
    QFETCH(bool, prefix);
    QFETCH(QString, text);
    QFETCH(double, fromHour);
    QFETCH(double, toHour);

    // (The testers watch the whole day in eachSnapshotIsOneInsertAndTheRowsAreTheStores; here
    // they would only repeat it twelve times.)
    EventLogModel log;
    log.setMessageFunction(testWords);
    EventFilterModel shown;
    shown.setSourceModel(&log);
    replay(log);
    const qint64 start = m_snapshots.first()->startMs;
    const int job = jobName.isEmpty() ? -1 : int(log.names()->jobs.indexOf(jobName));
    QVERIFY(jobName.isEmpty() || job >= 0);

    EventCriteria c;
    for (int s : severities)
        c.severities << Severity(s);
    if (source >= 0)
        c.sources << Source(source);
    c.card = card;
    c.job = job;
    c.code = code;
    c.codeMatch = prefix ? EventCriteria::CodeMatch::Prefix : EventCriteria::CodeMatch::Exact;
    c.text = text;
    if (fromHour >= 0)
        c.fromMs = start + qint64(fromHour * kHour);
    if (toHour >= 0)
        c.toMs = start + qint64(toHour * kHour);
    shown.setCriteria(c);

    // What each field means, said once more here, independently of EventCriteria.
    QList<qint64> expected;
    for (int row = 0; row < log.rowCount(); ++row) {
        const Event &e = log.event(row);
        const QString message = testWords(e, *log.names());
        const QString eventCode = QString::fromLatin1(e.code);
        const bool ok
                = (severities.isEmpty() || severities.contains(int(e.severity)))
                  && (source < 0 || int(e.source) == source) && (card < 0 || e.card == card)
                  && (job < 0 || e.job == job)
                  && (code.isEmpty() || (prefix ? eventCode.startsWith(code) : eventCode == code))
                  && (text.isEmpty() || message.contains(text, Qt::CaseInsensitive)
                      || eventCode.contains(text, Qt::CaseInsensitive))
                  && (fromHour < 0 || e.atMs >= start + qint64(fromHour * kHour))
                  && (toHour < 0 || e.atMs < start + qint64(toHour * kHour));
        if (ok)
            expected << e.id;
    }
    if (QByteArray(QTest::currentDataTag()) == "a prefix is no exact code")
        QVERIFY(expected.isEmpty());
    else
        QVERIFY2(!expected.isEmpty(), "the demo day has such events");
    QCOMPARE(ids(shown), expected);
}

void TestEventLogModel::textSearchesTheShownWordsAndTheCode()
{
    EventLogModel log;
    EventFilterModel shown;
    shown.setSourceModel(&log);
    replay(log);
    // English words (the core's default) until the console sets its own.
    shown.setText(QStringLiteral("placed on host"));
    const int english = shown.rowCount();
    QVERIFY(english > 0);
    log.setMessageFunction(testWords);
    QCOMPARE(shown.rowCount(), 0); // the words changed: the filter follows them
    shown.setText(QStringLiteral("已放置"));
    QCOMPARE(shown.rowCount(), english);
    for (int row = 0; row < shown.rowCount(); ++row) {
        QCOMPARE(shown.index(row, 0).data(EventLogModel::CodeRole).toString(),
                 QStringLiteral("job-placed"));
        QVERIFY(shown.index(row, EventLogModel::MessageColumn)
                        .data()
                        .toString()
                        .startsWith(QStringLiteral("作业 ")));
    }
}

void TestEventLogModel::storeFilterAndAcceptsAgreeWithTheProxy()
{
    EventLogModel log;
    log.setMessageFunction(testWords);
    EventFilterModel shown;
    shown.setSourceModel(&log);
    replay(log);
    EventCriteria c;
    c.severities = {Severity::Info, Severity::Warning};
    c.sources = {Source::Scheduler, Source::Policy};
    c.code = QStringLiteral("job-");
    c.codeMatch = EventCriteria::CodeMatch::Prefix;
    c.text = QStringLiteral("作业");
    c.fromMs = m_snapshots.first()->startMs + 6 * kHour;
    shown.setCriteria(c);
    QVERIFY(shown.rowCount() > 0);

    // The store selects a superset by the fields it knows; accepts() narrows it to the rows shown.
    QString err;
    auto reader = Storage::Reader::open(
            m_session->storePath(), Storage::Reader::OpenMode::RequireCurrent, &err);
    QVERIFY2(reader, qPrintable(err));
    const Storage::EventFilter f = shown.toStoreFilter();
    QCOMPARE(f.codes.size(), 0); // a prefix is not the store's
    QVERIFY(f.severities == c.severities);
    QList<qint64> selected;
    const Storage::MessageFn words = log.boundMessageFunction();
    for (const Event &e : reader->events(f)) {
        if (shown.accepts(e, words(e)))
            selected << e.id;
    }
    QCOMPARE(selected, ids(shown));

    // An exact code goes to the store.
    shown.setCode(QStringLiteral("job-placed"));
    QCOMPARE(shown.toStoreFilter().codes, QList<QByteArray>{"job-placed"});
    shown.setCard(3);
    shown.setJob(7);
    QCOMPARE(shown.toStoreFilter().cards, QList<int>{3});
    QCOMPARE(shown.toStoreFilter().jobs, QList<int>{7});
}

void TestEventLogModel::boundDropsTheOldest()
{
    EventLogModel log;
    log.setCapacity(300);
    EventFilterModel shown;
    shown.setSourceModel(&log);
    shown.setSources({Source::Scheduler});
    QAbstractItemModelTester logTester(&log,
                                       QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester shownTester(&shown,
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy removes(&log, &QAbstractItemModel::rowsRemoved);
    int snapshotsThatDropped = 0;
    for (const Session::SnapshotPtr &s : std::as_const(m_snapshots)) {
        const qint64 before = log.droppedCount();
        const int removesBefore = int(removes.size());
        log.appendSnapshot(*s);
        QVERIFY(removes.size() - removesBefore <= 1); // one remove per batch at most
        snapshotsThatDropped += log.droppedCount() > before;
        QVERIFY(log.rowCount() <= 300);
    }
    QVERIFY(snapshotsThatDropped > 1);
    QCOMPARE(log.rowCount(), 300);
    QCOMPARE(log.droppedCount(), m_stored.size() - 300);
    QList<qint64> newest;
    for (qsizetype i = m_stored.size() - 300; i < m_stored.size(); ++i)
        newest << m_stored[i].id;
    QCOMPARE(ids(log), newest);
    QCOMPARE(log.idRange()->first, newest.first());
    QCOMPARE(log.idRange()->second, newest.last());

    // A lower bound drops at once; a batch larger than the bound keeps its newest.
    log.setCapacity(10);
    QCOMPARE(log.rowCount(), 10);
    QCOMPARE(ids(log), newest.mid(290));
    QList<Event> burst;
    for (int i = 0; i < 25; ++i) {
        Event e;
        e.id = newest.last() + 1 + i;
        e.atMs = m_stored.last().atMs + i;
        e.code = "burst";
        burst << e;
    }
    log.appendEvents(burst);
    QCOMPARE(log.rowCount(), 10);
    QCOMPARE(log.event(0).id, burst[15].id);
    QCOMPARE(log.event(9).id, burst[24].id);
}

void TestEventLogModel::namesComeFromTheSnapshots()
{
    EventLogModel log;
    replay(log);
    const Session::Snapshot &last = *m_snapshots.last();
    QCOMPARE(log.utcOffsetSeconds(), 8 * 3600);
    QCOMPARE(log.latestNowMs(), last.nowMs);
    const auto names = log.names();
    QCOMPARE(names->hosts, (QStringList{QStringLiteral("dgx-h200"), QStringLiteral("ada-edge")}));
    QCOMPARE(names->cards.size(), last.state.cards().size());
    QCOMPARE(names->jobs.size(), last.state.jobs().size());
    QCOMPARE(names->cards[3].host, 0);
    QCOMPARE(names->cards[3].indexOnHost, 3);
    QVERIFY(names->cards[3].migProfiles.contains(QStringLiteral("3g.71gb")));
    QCOMPARE(log.cardText(3), QStringLiteral("dgx-h200 card 3"));
    QCOMPARE(log.cardText(-1), QString());
    // Placements were seen while their jobs ran: MIG ones carry their instances.
    int migPlacements = 0;
    for (const Models::EventNames::Placed &p : std::as_const(names->placements))
        migPlacements += !p.units.isEmpty();
    QVERIFY(migPlacements > 0);
    // The time column is the appliance's local time.
    const int row = 0;
    const qint64 at = log.event(row).atMs;
    const QString expected = QDateTime::fromMSecsSinceEpoch(at, Qt::OffsetFromUTC, 8 * 3600)
                                     .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    QCOMPARE(log.index(row, EventLogModel::TimeColumn).data().toString(), expected);
}

QTEST_GUILESS_MAIN(TestEventLogModel)
#include "tst_eventlogmodel.moc"
