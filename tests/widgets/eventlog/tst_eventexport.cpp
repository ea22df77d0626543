// SPDX-License-Identifier: GPL-3.0-or-later
// Export of the event log: the rows written are exactly the rows the filtered table shows (same
// ids, same order, same words), in CSV and in JSON Lines, read from the session's store on a
// thread of the export's own.
#include "widgets/eventlog/eventlogview.h"
#include "widgets/eventlog/eventtext.h"
#include "widgets/eventlog/whyview.h"

#include "core/catalogue/catalogue.h"
#include "core/models/sessionclient.h"
#include "core/session/simulationsession.h"
#include "core/sim/scenario.h"

#include "tests/data/scenarios.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace Zhaoxi;
using Models::EventExportResult;
using Models::EventLogModel;
using Widgets::EventLogView;

namespace {

constexpr qint64 kHour = 3'600'000;

using TestData::demoDay;

// RFC 4180 as the exporter writes it (CRLF records, quoted fields with doubled quotes).
QList<QStringList> parseCsv(QByteArray data)
{
    if (data.startsWith("\xEF\xBB\xBF"))
        data.remove(0, 3);
    QList<QStringList> rows;
    QStringList row;
    QByteArray field;
    bool quoted = false;
    for (qsizetype i = 0; i < data.size(); ++i) {
        const char c = data[i];
        if (quoted) {
            if (c == '"' && i + 1 < data.size() && data[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            row << QString::fromUtf8(field);
            field.clear();
        } else if (c == '\r' && i + 1 < data.size() && data[i + 1] == '\n') {
            row << QString::fromUtf8(field);
            field.clear();
            rows << row;
            row.clear();
            ++i;
        } else {
            field += c;
        }
    }
    return rows;
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

struct Shown
{
    QList<qint64> ids;
    QStringList messages;
};

Shown shown(const EventLogView &view)
{
    Shown s;
    const QAbstractItemModel *m = view.filterModel();
    for (int row = 0; row < m->rowCount(); ++row) {
        s.ids << m->index(row, 0).data(EventLogModel::EventIdRole).toLongLong();
        s.messages << m->index(row, EventLogModel::MessageColumn).data().toString();
    }
    return s;
}

// The rows of the log whose code is routine (forecast ramps).
int routineRows(const QAbstractItemModel &log)
{
    int n = 0;
    for (int r = 0; r < log.rowCount(); ++r)
        n += log.index(r, 0).data(EventLogModel::CodeRole).toString()
             == QLatin1String("forecast-ramp");
    return n;
}

} // namespace

class TestEventExport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void exportsExactlyTheRowsShown_data();
    void exportsExactlyTheRowsShown();
    void exportHoldsToTheRowsTheLogHolds();
    void exportWaitsForTheStore();
    void noStoreNoExport();
    void filterStateRoundTrips();
    void routineEventsAreHiddenUntilAsked();
    void noMessageSaysNoJobOrNoCard();
    void followsTheNewestRowOnlyAtTheBottom();
    void whyFollowsTheSelectedJob();
    void theClickThatOpensTheSeverityFilterTogglesNothing();

private:
    EventExportResult exportAndWait(EventLogView &view,
                                    const QString &path,
                                    Storage::ExportFormat format);

    QTemporaryDir m_dir;
    std::unique_ptr<Session::SimulationSession> m_session;
    std::unique_ptr<Models::SessionClient> m_client;
    std::unique_ptr<EventLogView> m_view;
};

void TestEventExport::initTestCase()
{
    QVERIFY(m_dir.isValid());
    const Sim::Scenario scenario = demoDay();
    m_session = std::make_unique<Session::SimulationSession>(scenario, QString(), scenario.seed);
    QVERIFY2(!m_session->storePath().isEmpty(), qPrintable(m_session->storeError()));
    m_client = std::make_unique<Models::SessionClient>(m_session.get());
    m_view = std::make_unique<EventLogView>(m_client.get());
    m_view->setStorePath(m_session->storePath());
    m_view->resize(1200, 700);
    m_view->show();
    for (qint64 t = kHour; t <= 18 * kHour; t += kHour)
        m_session->runTo(t);
    m_session->stop(); // flushes the store (the session writes it asynchronously)
    QVERIFY(m_view->model()->rowCount() > 500);
}

EventExportResult TestEventExport::exportAndWait(EventLogView &view,
                                                 const QString &path,
                                                 Storage::ExportFormat format)
{
    QSignalSpy done(&view, &EventLogView::exportFinished);
    if (!view.exportTo(path, format))
        return EventExportResult{false, 0, path, QStringLiteral("the export did not start")};
    if (!view.isExporting() && done.isEmpty())
        return EventExportResult{false, 0, path, QStringLiteral("no export running")};
    // The export runs on its own thread; its answer comes through the event loop.
    if (!done.wait(60'000))
        return EventExportResult{false, 0, path, QStringLiteral("no answer")};
    return done.first().first().value<EventExportResult>();
}

void TestEventExport::exportsExactlyTheRowsShown_data()
{
    QTest::addColumn<QVariantMap>("filter");
    QTest::addColumn<bool>("json");

    const QVariantMap all;
    QTest::newRow("everything, CSV") << all << false;
    QTest::newRow("everything, JSON Lines") << all << true;
    const QVariantMap warnings{{QStringLiteral("severities"),
                                QStringList{QStringLiteral("warning"), QStringLiteral("error")}}};
    QTest::newRow("warnings and errors, CSV") << warnings << false;
    // Free text is not the store's: the export's accept hook applies it, on the translated words.
    const QVariantMap text{{QStringLiteral("text"), QStringLiteral("dgx-h200 card 3")}};
    QTest::newRow("free text, CSV") << text << false;
    QTest::newRow("free text, JSON Lines") << text << true;
    const QVariantMap mixed{{QStringLiteral("sources"), QStringList{QStringLiteral("scheduler")}},
                            {QStringLiteral("code"), QStringLiteral("job-*")},
                            {QStringLiteral("text"), QStringLiteral("ft-70b")},
                            {QStringLiteral("timePreset"), QStringLiteral("custom")},
                            {QStringLiteral("fromMs"), demoDay().startMs + 2 * kHour},
                            {QStringLiteral("toMs"), demoDay().startMs + 16 * kHour}};
    QTest::newRow("source, code prefix, job text and a time range, JSON Lines") << mixed << true;
    const QVariantMap card{{QStringLiteral("card"), 6}};
    QTest::newRow("one card, CSV") << card << false;
}

void TestEventExport::exportsExactlyTheRowsShown()
{
    QFETCH(QVariantMap, filter);
    QFETCH(bool, json);
    m_view->setFilterState(filter);
    const Shown rows = shown(*m_view);
    QVERIFY2(!rows.ids.isEmpty(), "the demo day has such events");
    const QString path
            = m_dir.filePath(QStringLiteral("%1.%2")
                                     .arg(QString::fromLatin1(QTest::currentDataTag())
                                                  .replace(QLatin1Char(' '), QLatin1Char('_'))
                                                  .remove(QLatin1Char(',')))
                                     .arg(json ? QStringLiteral("jsonl") : QStringLiteral("csv")));
    const EventExportResult r = exportAndWait(
            *m_view, path, json ? Storage::ExportFormat::JsonLines : Storage::ExportFormat::Csv);
    QVERIFY2(r.ok, qPrintable(r.error));
    QCOMPARE(r.rows, rows.ids.size());
    QCOMPARE(r.path, path);

    const QByteArray data = readAll(path);
    QList<qint64> exported;
    QStringList messages;
    if (json) {
        QVERIFY(!data.startsWith("\xEF\xBB\xBF"));
        for (const QByteArray &line : data.chopped(1).split('\n')) {
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            exported << o.value(QStringLiteral("id")).toInteger();
            messages << o.value(QStringLiteral("message")).toString();
            // The appliance's local time, as the table shows it.
            QVERIFY(o.value(QStringLiteral("time")).toString().endsWith(QStringLiteral("+08:00")));
        }
    } else {
        QVERIFY(data.startsWith("\xEF\xBB\xBF")); // for Excel, by default
        const QList<QStringList> table = parseCsv(data);
        QCOMPARE(table.first().first(), QStringLiteral("id"));
        for (qsizetype i = 1; i < table.size(); ++i) {
            exported << table[i][0].toLongLong();
            messages << table[i][10];
            QVERIFY(table[i][1].endsWith(QStringLiteral("+08:00")));
        }
    }
    QCOMPARE(exported, rows.ids);
    // The same words as the table (the console's, not the core's English templates).
    QCOMPARE(messages, rows.messages);
    m_view->clearFilter();
}

void TestEventExport::exportHoldsToTheRowsTheLogHolds()
{
    // A log that dropped its oldest rows exports what it shows, not the whole store.
    const Sim::Scenario scenario = demoDay();
    Session::SimulationSession session(scenario, QString(), scenario.seed);
    Models::SessionClient own(&session);
    EventLogView small(&own);
    small.setStorePath(session.storePath());
    small.model()->setCapacity(200);
    session.runTo(8 * kHour);
    session.stop();
    QCOMPARE(small.model()->rowCount(), 200);
    QVERIFY(small.model()->droppedCount() > 0);
    const QString path = m_dir.filePath(QStringLiteral("bounded.csv"));
    const EventExportResult r = exportAndWait(small, path, Storage::ExportFormat::Csv);
    QVERIFY2(r.ok, qPrintable(r.error));
    QCOMPARE(r.rows, small.filterModel()->rowCount()); // routine events hidden, as shown
    QList<qint64> exported;
    const QList<QStringList> table = parseCsv(readAll(path));
    for (qsizetype i = 1; i < table.size(); ++i)
        exported << table[i][0].toLongLong();
    QCOMPARE(exported, shown(small).ids);
}

void TestEventExport::exportWaitsForTheStore()
{
    // Without stop(): the session's store commits on its own thread. The export waits until the
    // newest row shown is committed before it reads.
    const Sim::Scenario scenario = demoDay();
    Session::SimulationSession session(scenario, QString(), scenario.seed);
    Models::SessionClient client(&session);
    EventLogView view(&client);
    view.setStorePath(session.storePath());
    session.runTo(12 * kHour);
    const QString path = m_dir.filePath(QStringLiteral("unflushed.jsonl"));
    const EventExportResult r = exportAndWait(view, path, Storage::ExportFormat::JsonLines);
    QVERIFY2(r.ok, qPrintable(r.error));
    QCOMPARE(r.rows, view.filterModel()->rowCount());
    session.stop();
}

void TestEventExport::noStoreNoExport()
{
    Models::SessionClient client(m_session.get());
    EventLogView view(&client);
    QSignalSpy done(&view, &EventLogView::exportFinished);
    QVERIFY(!view.exportTo(m_dir.filePath(QStringLiteral("none.csv")), Storage::ExportFormat::Csv));
    QVERIFY(done.isEmpty());
    QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("none.csv"))));
}

void TestEventExport::filterStateRoundTrips()
{
    const QVariantMap state{{QStringLiteral("timePreset"), QStringLiteral("custom")},
                            {QStringLiteral("fromMs"), demoDay().startMs + 3 * kHour},
                            {QStringLiteral("toMs"), demoDay().startMs + 9 * kHour},
                            {QStringLiteral("severities"),
                             QStringList{QStringLiteral("warning"), QStringLiteral("error")}},
                            {QStringLiteral("sources"), QStringList{QStringLiteral("device")}},
                            {QStringLiteral("card"), 9},
                            {QStringLiteral("job"), QString()},
                            {QStringLiteral("code"), QStringLiteral("fault-*")},
                            {QStringLiteral("text"), QStringLiteral("memory")},
                            {QStringLiteral("routine"), true}};
    m_view->setFilterState(state);
    QCOMPARE(m_view->filterState(), state);
    const Models::EventCriteria &c = m_view->filterModel()->criteria();
    QCOMPARE(c.fromMs, demoDay().startMs + 3 * kHour);
    QCOMPARE(c.toMs, demoDay().startMs + 9 * kHour);
    QVERIFY(c.severities
            == (QList<Storage::Severity>{Storage::Severity::Warning, Storage::Severity::Error}));
    QVERIFY(c.sources == QList<Storage::Source>{Storage::Source::Device});
    QCOMPARE(c.card, 9);
    QCOMPARE(c.code, QStringLiteral("fault-"));
    QVERIFY(c.codeMatch == Models::EventCriteria::CodeMatch::Prefix);
    QCOMPARE(c.text, QStringLiteral("memory"));
    // The memory error on ada-edge card 1 at 03:00, and nothing else.
    QCOMPARE(m_view->filterModel()->rowCount(), 1);
    QCOMPARE(m_view->filterModel()->index(0, 0).data(EventLogModel::CodeRole).toString(),
             QStringLiteral("fault-memory-error"));

    // A job by name; a relative preset moves with the appliance's clock.
    m_view->setFilterState({{QStringLiteral("timePreset"), QStringLiteral("1h")},
                            {QStringLiteral("job"), QStringLiteral("ft-70b-a")}});
    QCOMPARE(m_view->filterModel()->criteria().job,
             int(m_view->model()->names()->jobs.indexOf(QStringLiteral("ft-70b-a"))));
    QCOMPARE(m_view->filterModel()->criteria().fromMs, m_view->model()->latestNowMs() - kHour);
    QVERIFY(!m_view->filterModel()->criteria().toMs);
    m_view->setFilterState({{QStringLiteral("job"), QStringLiteral("no-such-job")}});
    QCOMPARE(m_view->filterModel()->rowCount(), 0);
    m_view->clearFilter();
    QCOMPARE(m_view->filterModel()->rowCount(),
             m_view->model()->rowCount() - routineRows(*m_view->model()));
    QCOMPARE(m_view->filterState().value(QStringLiteral("timePreset")).toString(),
             QStringLiteral("all"));
}

// The forecast's ramps, most of the day's events, are hidden until asked for: by the Routine
// box, or by their code.
void TestEventExport::routineEventsAreHiddenUntilAsked()
{
    m_view->clearFilter();
    const int routine = routineRows(*m_view->model());
    QVERIFY2(routine > 0, "the demo day's forecast ramps");
    auto *box = m_view->findChild<QCheckBox *>(QStringLiteral("showRoutine"));
    QVERIFY(box && !box->isChecked());
    const int all = m_view->model()->rowCount();
    QCOMPARE(m_view->filterModel()->rowCount(), all - routine);
    for (int r = 0; r < m_view->filterModel()->rowCount(); ++r)
        QVERIFY(m_view->filterModel()->index(r, 0).data(EventLogModel::CodeRole).toString()
                != QLatin1String("forecast-ramp"));
    box->click();
    QCOMPARE(m_view->filterModel()->rowCount(), all);
    box->click();
    m_view->setFilterState({{QStringLiteral("code"), QStringLiteral("forecast-ramp")}});
    QCOMPARE(m_view->filterModel()->rowCount(), routine);
    m_view->clearFilter();
}

// Every message of the demo day names what it is about: none says "(no job)" or "(no card)".
void TestEventExport::noMessageSaysNoJobOrNoCard()
{
    m_view->setFilterState({{QStringLiteral("routine"), true}});
    const Shown rows = shown(*m_view);
    QVERIFY(rows.messages.size() > 500);
    QStringList bad;
    for (const QString &m : rows.messages) {
        if ((m.contains(QStringLiteral("(no job)")) || m.contains(QStringLiteral("(no card)")))
            && bad.size() < 10)
            bad << m;
    }
    QVERIFY2(bad.isEmpty(), qPrintable(bad.join(QLatin1Char('\n'))));
    m_view->clearFilter();
}

void TestEventExport::followsTheNewestRowOnlyAtTheBottom()
{
    const Sim::Scenario scenario = demoDay();
    Session::SimulationSession session(scenario, QString(), scenario.seed);
    Models::SessionClient client(&session);
    EventLogView view(&client);
    view.resize(900, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    auto lastVisible = [&view] {
        QTableView *t = view.table();
        const QModelIndex last = t->model()->index(t->model()->rowCount() - 1, 0);
        return t->viewport()->rect().intersects(t->visualRect(last));
    };
    session.runTo(kHour);
    QCoreApplication::processEvents();
    QVERIFY(view.isFollowingTail());
    QVERIFY(lastVisible());
    session.runTo(2 * kHour);
    QCoreApplication::processEvents();
    QVERIFY(lastVisible());
    // Scrolled up to read: new rows do not pull the table away.
    view.table()->scrollToTop();
    QCoreApplication::processEvents();
    QVERIFY(!view.isFollowingTail());
    session.runTo(3 * kHour);
    QCoreApplication::processEvents();
    QVERIFY(!lastVisible());
    QCOMPARE(view.table()->indexAt(QPoint(1, 1)).row(), 0);
    // Back at the bottom, it follows again.
    view.table()->scrollToBottom();
    QCoreApplication::processEvents();
    QVERIFY(view.isFollowingTail());
    session.runTo(4 * kHour);
    QCoreApplication::processEvents();
    QVERIFY(lastVisible());
}

void TestEventExport::whyFollowsTheSelectedJob()
{
    m_view->clearFilter();
    m_view->setFilterState({{QStringLiteral("code"), QStringLiteral("job-placed")}});
    QVERIFY(m_view->filterModel()->rowCount() > 1);
    QSignalSpy selected(m_view.get(), &EventLogView::jobSelected);
    m_view->table()->setCurrentIndex(m_view->filterModel()->index(0, 0));
    QCOMPARE(selected.size(), 1);
    const int job = m_view->filterModel()->index(0, 0).data(EventLogModel::JobRole).toInt();
    QCOMPARE(selected.first().first().value<Domain::JobId>(), Domain::JobId(job));
    QCOMPARE(m_view->selectedJob(), Domain::JobId(job));
    m_view->explainJob(m_view->selectedJob());
    QVERIFY(m_view->whyView()->isVisible());
    QCOMPARE(m_view->whyView()->job(), Domain::JobId(job));
    const QString name = m_view->model()->names()->jobs.at(job);
    QVERIFY2(m_view->whyView()->text().contains(name), qPrintable(m_view->whyView()->text()));
    // With the panel open, it follows the selection.
    m_view->table()->setCurrentIndex(m_view->filterModel()->index(1, 0));
    const int next = m_view->filterModel()->index(1, 0).data(EventLogModel::JobRole).toInt();
    QCOMPARE(m_view->whyView()->job(), Domain::JobId(next));
    m_view->clearFilter();
}

void TestEventExport::theClickThatOpensTheSeverityFilterTogglesNothing()
{
    auto *combo = m_view->findChild<QComboBox *>(QStringLiteral("severity"));
    QVERIFY(combo);
    const auto states = [combo] {
        QList<int> r;
        for (int i = 0; i < combo->model()->rowCount(); ++i)
            r << combo->model()->index(i, 0).data(Qt::CheckStateRole).toInt();
        return r;
    };
    QVERIFY(combo->model()->rowCount() >= 3);
    QVERIFY(combo->model()->flags(combo->model()->index(0, 0)) & Qt::ItemIsUserCheckable);
    const QList<int> before = states();
    combo->showPopup();
    QWidget *viewport = combo->view()->viewport();
    const QPoint onFirst = combo->view()->visualRect(combo->model()->index(0, 0)).center();
    // The release of the opening click, over the first item: no press was made in the popup.
    QTest::mouseRelease(viewport, Qt::LeftButton, {}, onFirst);
    QCOMPARE(states(), before);
    // A click inside the open popup toggles the item under it, and the popup stays open.
    QTest::mouseClick(viewport, Qt::LeftButton, {}, onFirst);
    QVERIFY(states() != before);
    QTest::mouseClick(viewport, Qt::LeftButton, {}, onFirst);
    QCOMPARE(states(), before);
    combo->hidePopup();
    // The time column holds the whole stamp, seconds included.
    auto *table = m_view->findChild<QTableView *>();
    QVERIFY(table);
    QVERIFY(table->columnWidth(Models::EventLogModel::TimeColumn)
            >= table->fontMetrics().horizontalAdvance(QStringLiteral("0000-00-00 00:00:00")));
}

QTEST_MAIN(TestEventExport)
#include "tst_eventexport.moc"
