// SPDX-License-Identifier: GPL-3.0-or-later
// "What if?" in the console (issue 18): the twin's console records a few hours of the small ramp
// into its store; a drag across the overview's chart selects a period and enables "What if?…",
// which opens the dialog on the console's own store; the dialog replays the period under every
// policy on a thread of its own and shows what happened first, then each policy, with a column
// per service, the policy that ran marked and the best of each column in bold. A period before
// anything was recorded, and a store that is not one, are said in words; Cancel does not wait.
#include "core/catalogue/catalogue.h"
#include "core/models/sessionclient.h"
#include "core/policy/policy.h"
#include "core/session/simulationsession.h"
#include "core/sim/scenario.h"
#include "core/storage/store.h"
#include "widgets/catchup.h"
#include "widgets/charts/qcp.h"
#include "widgets/languagecontroller.h"
#include "widgets/mainwindow.h"
#include "widgets/overviewview.h"
#include "widgets/whatif/whatifdialog.h"
#include "widgets/whatif/whatifmodel.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QFile>
#include <QHeaderView>
#include <QMenu>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <memory>

using namespace Zhaoxi;
using Widgets::OverviewView;
using Widgets::WhatIfDialog;
using Widgets::WhatIfModel;
using Status = Widgets::WhatIfOutcome::Status;

namespace {

Sim::Scenario scenario(const QString &file)
{
    static const Catalogue::Catalogue catalogue = Catalogue::Catalogue::builtIn();
    Sim::ScenarioError error;
    const std::optional<Sim::Scenario> s = Sim::loadScenarioFile(
            QStringLiteral(ZHAOXI_SOURCE_DIR "/resources/scenarios/") + file, catalogue, &error);
    if (!s)
        qFatal("%s: %s", qPrintable(file), qPrintable(error.toString()));
    return *s;
}

// The chart's pixel of a moment (appliance time, UTC ms), halfway up.
QPoint pixelOf(QCustomPlot *plot, qint64 atMs, int utcOffsetSeconds)
{
    return QPoint(qRound(plot->xAxis->coordToPixel(double(atMs) / 1000.0 + utcOffsetSeconds)),
                  plot->axisRect()->center().y());
}

// A drag with the left button, as a hand would do it: press, a few moves, release.
void drag(QWidget *w, QPoint from, QPoint to)
{
    QTest::mousePress(w, Qt::LeftButton, {}, from);
    for (int i = 1; i <= 4; ++i) {
        const QPoint at = from + (to - from) * i / 4;
        QMouseEvent move(QEvent::MouseMove,
                         QPointF(at),
                         QPointF(w->mapToGlobal(at)),
                         Qt::NoButton,
                         Qt::LeftButton,
                         Qt::NoModifier);
        QApplication::sendEvent(w, &move);
    }
    QTest::mouseRelease(w, Qt::LeftButton, {}, to);
}

} // namespace

class TestWhatIf : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<Session::SimulationSession> m_session;
    std::unique_ptr<Models::SessionClient> m_client;
    std::unique_ptr<Widgets::MainWindow> m_window;
    QTemporaryDir m_dir;
    qint64 m_startMs = 0; // the small ramp's start, 05:00 local
    int m_offset = 0;     // its UTC offset, seconds
    quint64 m_seed = 0;
    QList<Sim::Report> m_reports;
    QString m_ran;

    QCustomPlot *plot() const
    {
        return m_window->overview()->findChild<QCustomPlot *>(QStringLiteral("overviewHolders"));
    }
    static qint64 hours(double h) { return qint64(h * 3'600'000.0); }

private Q_SLOTS:
    void initTestCase();
    void aDragSelectsAPeriodAndEnablesWhatIf();
    void whatIfComparesThePoliciesOnTheConsolesStore();
    void theModelPassesTheTester();
    void nothingRecordedIsSaidInWords();
    void anUnreadableStoreIsSaidInWords();
    void cancelDoesNotWait();
    void itSpeaksChinese();
    void screenshot();
    void cleanupTestCase();
};

// The console on the small ramp (05:00 to 10:00), caught up to 09:30 with the overview shown.
void TestWhatIf::initTestCase()
{
    QVERIFY(m_dir.isValid());
    const Sim::Scenario ramp = scenario(QStringLiteral("small-ramp.json"));
    m_startMs = ramp.startMs;
    m_offset = int(ramp.utcOffsetMs / 1000);
    m_seed = ramp.seed;
    Session::SimulationOptions options;
    options.storePath = m_dir.filePath(QStringLiteral("console.sqlite"));
    m_session = std::make_unique<Session::SimulationSession>(ramp, QString(), ramp.seed, options);
    m_session->runTo(0);
    m_client = std::make_unique<Models::SessionClient>(m_session.get());
    m_window = std::make_unique<Widgets::MainWindow>();
    m_window->setSession(m_client.get(), m_session->storePath());
    m_window->resize(1400, 900);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    QCOMPARE(m_window->tabs()->currentIndex(), 0); // the overview
    Widgets::catchUp(*m_session, hours(4.5), nullptr);
    QVERIFY(m_session->eventStore());
    QVERIFY(m_session->eventStore()->flush());
    OverviewView *overview = m_window->overview();
    QTRY_VERIFY(overview->history().size() >= 250);
    QTRY_COMPARE(plot()->graph(5)->data()->size(), overview->history().size()); // drawn
    plot()->replot();
}

// A drag from 06:00 to 08:00 selects that period (within a minute or two: a pixel is about a
// minute) and enables "What if?…"; a five-minute drag selects too short a period; Esc clears the
// selection; a plain click still names a moment, and clears the selection.
void TestWhatIf::aDragSelectsAPeriodAndEnablesWhatIf()
{
    OverviewView *overview = m_window->overview();
    QCustomPlot *p = plot();
    QAction *whatIf = overview->whatIfAction();
    QVERIFY(whatIf);
    QVERIFY(!whatIf->isEnabled());
    QVERIFY(!whatIf->toolTip().isEmpty());
    const qint64 six = m_startMs + hours(1);
    const qint64 eight = m_startMs + hours(3);
    QSignalSpy selected(overview, &OverviewView::selectionChanged);
    QSignalSpy clicked(overview, &OverviewView::momentClicked);
    drag(p, pixelOf(p, six, m_offset), pixelOf(p, eight, m_offset));
    QCOMPARE(clicked.size(), 0); // a drag names no moment
    QCOMPARE(selected.size(), 1);
    OverviewView::Period sel = overview->selection();
    QVERIFY(sel.isValid());
    QVERIFY2(std::abs(sel.fromMs - six) <= 3 * 60'000,
             qPrintable(QString::number(sel.fromMs - six)));
    QVERIFY2(std::abs(sel.toMs - eight) <= 3 * 60'000,
             qPrintable(QString::number(sel.toMs - eight)));
    QVERIFY(whatIf->isEnabled());
    // The band is drawn over the chart and kept after the drag.
    bool shaded = false;
    for (int i = 0; i < p->itemCount(); ++i) {
        if (auto *r = qobject_cast<QCPItemRect *>(p->item(i)))
            shaded = shaded || r->layer()->name() != QLatin1String("background");
    }
    QVERIFY(shaded);

    // The chart's context menu offers it too.
    QContextMenuEvent menuEvent(QContextMenuEvent::Mouse,
                                pixelOf(p, m_startMs + hours(2), m_offset),
                                p->mapToGlobal(pixelOf(p, m_startMs + hours(2), m_offset)));
    QApplication::sendEvent(p, &menuEvent);
    QMenu *menu = overview->findChild<QMenu *>();
    QVERIFY(menu);
    QVERIFY(menu->actions().contains(whatIf));
    menu->close();
    // A console that cannot read the store (attached to a service whose store this user may not
    // read) says why instead.
    m_window->setStorePath(m_dir.filePath(QStringLiteral("missing.sqlite")));
    QVERIFY(!whatIf->isEnabled());
    QVERIFY2(whatIf->toolTip().contains(QStringLiteral("may not read")),
             qPrintable(whatIf->toolTip()));
    m_window->setStorePath(m_session->storePath());
    QVERIFY(whatIf->isEnabled());

    // Too short: five minutes.
    drag(p, pixelOf(p, six, m_offset), pixelOf(p, six + 5 * 60'000, m_offset));
    QVERIFY(overview->selection().isValid());
    QVERIFY(!whatIf->isEnabled());
    QVERIFY2(whatIf->toolTip().contains(QStringLiteral("15 minutes")),
             qPrintable(whatIf->toolTip()));

    // Esc lets it go.
    drag(p, pixelOf(p, six, m_offset), pixelOf(p, eight, m_offset));
    QVERIFY(whatIf->isEnabled());
    p->setFocus();
    QTest::keyClick(p, Qt::Key_Escape);
    QVERIFY(!overview->selection().isValid());
    QVERIFY(!whatIf->isEnabled());

    // A click names a moment, as before, and clears a selection.
    drag(p, pixelOf(p, six, m_offset), pixelOf(p, eight, m_offset));
    QVERIFY(overview->selection().isValid());
    QTest::mouseClick(p, Qt::LeftButton, {}, pixelOf(p, m_startMs + hours(2), m_offset));
    QCOMPARE(clicked.size(), 1);
    QVERIFY(std::abs(clicked.first().first().toLongLong() - (m_startMs + hours(2))) <= 3 * 60'000);
    QVERIFY(!overview->selection().isValid());
    m_window->tabs()->setCurrentIndex(0); // the click went to the event log
}

// "What if?…" on 06:00–08:00 opens the dialog on the console's own store; it replays the period
// under every policy and shows what happened first.
void TestWhatIf::whatIfComparesThePoliciesOnTheConsolesStore()
{
    OverviewView *overview = m_window->overview();
    QTRY_VERIFY(plot()->isVisible());
    plot()->replot();
    const qint64 six = m_startMs + hours(1);
    const qint64 eight = m_startMs + hours(3);
    drag(plot(), pixelOf(plot(), six, m_offset), pixelOf(plot(), eight, m_offset));
    QVERIFY(overview->whatIfAction()->isEnabled());
    overview->whatIfAction()->trigger();
    auto *dialog = m_window->findChild<WhatIfDialog *>();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    QVERIFY(!dialog->isModal());
    QSignalSpy finished(dialog, &WhatIfDialog::replayFinished);
    if (dialog->isRunning())
        QVERIFY(finished.wait(60'000));
    QVERIFY2(dialog->status() == Status::Done,
             qPrintable(dialog->statusText() + dialog->detailsText()));
    QVERIFY(dialog->table()->isVisible());

    // What happened, then each policy.
    WhatIfModel *model = dialog->model();
    const QStringList policies = Policy::policyNames();
    QCOMPARE(model->rowCount(), 1 + policies.size());
    QVERIFY(model->index(0, 0).data(WhatIfModel::RecordedRole).toBool());
    QCOMPARE(model->index(0, 0).data(WhatIfModel::ValueRole).toString(),
             QStringLiteral("recorded"));
    QCOMPARE(model->index(0, 0).data().toString(), QStringLiteral("recorded"));
    for (int i = 0; i < policies.size(); ++i)
        QCOMPARE(model->index(1 + i, 0).data(WhatIfModel::ValueRole).toString(), policies[i]);
    // The policy that ran is the session's, marked in words on its row only.
    const QString ran = m_client->snapshot()->policy;
    QCOMPARE(model->ranPolicy(), ran);
    int ranRows = 0;
    for (int r = 0; r < model->rowCount(); ++r) {
        const bool isRan = model->index(r, 0).data(WhatIfModel::RanRole).toBool();
        ranRows += isRan;
        QCOMPARE(isRan, model->index(r, 0).data(WhatIfModel::ValueRole).toString() == ran);
        QCOMPARE(model->index(r, 0).data().toString().contains(QStringLiteral("(ran)")), isRan);
    }
    QCOMPARE(ranRows, 1);
    // The CLI's columns, then one per service: the ramp's "chat".
    QCOMPARE(model->services(), QStringList{QStringLiteral("chat")});
    QCOMPARE(model->columnCount(), WhatIfModel::FirstServiceColumn + 1);
    QVERIFY(model->headerData(WhatIfModel::FirstServiceColumn, Qt::Horizontal, Qt::DisplayRole)
                    .toString()
                    .contains(QStringLiteral("chat")));
    QCOMPARE(model->headerData(WhatIfModel::SloColumn, Qt::Horizontal, Qt::DisplayRole).toString(),
             QStringLiteral("SLO %"));
    // Every figure is shown; each column has a best value, in bold, and it is the best.
    for (int c = 1; c < model->columnCount(); ++c) {
        int best = 0;
        for (int r = 0; r < model->rowCount(); ++r) {
            const QModelIndex i = model->index(r, c);
            QVERIFY(i.data(WhatIfModel::ValueRole).isValid());
            if (i.data(WhatIfModel::BestRole).toBool()) {
                ++best;
                QVERIFY(i.data(Qt::FontRole).value<QFont>().bold());
            }
        }
        QVERIFY2(best >= 1, qPrintable(QString::number(c)));
    }
    double bestP99 = 1e300;
    for (int r = 0; r < model->rowCount(); ++r)
        bestP99 = std::min(
                bestP99,
                model->index(r, WhatIfModel::P99Column).data(WhatIfModel::ValueRole).toDouble());
    for (int r = 0; r < model->rowCount(); ++r) {
        const QModelIndex i = model->index(r, WhatIfModel::P99Column);
        QCOMPARE(i.data(WhatIfModel::BestRole).toBool(),
                 i.data(WhatIfModel::ValueRole).toDouble() == bestP99);
    }
    // The figures are the replay's: the recorded row's SLO attainment, as shown.
    const Sim::Report &recorded = model->reports().first();
    QCOMPARE(model->index(0, WhatIfModel::SloColumn).data(WhatIfModel::ValueRole).toDouble(),
             std::round(recorded.sloAttainment * 100.0 * 100.0) / 100.0);
    // The period in the appliance's local time; the basis in the details.
    QVERIFY2(dialog->periodText().contains(QStringLiteral("06:00 – 08:00"))
                     && dialog->periodText().contains(QStringLiteral("UTC+08:00")),
             qPrintable(dialog->periodText()));
    QVERIFY2(dialog->detailsText().contains(QStringLiteral("seed %1").arg(m_seed)),
             qPrintable(dialog->detailsText()));
    m_reports = model->reports();
    m_ran = model->ranPolicy();
    dialog->close();
    QTRY_VERIFY(!m_window->findChild<WhatIfDialog *>()); // closed, deleted
}

void TestWhatIf::theModelPassesTheTester()
{
    QVERIFY(!m_reports.isEmpty());
    WhatIfModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setReports(m_reports, m_ran);
    QCOMPARE(model.rowCount(), m_reports.size());
    model.clear();
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.columnCount(), int(WhatIfModel::FirstServiceColumn));
    model.setReports(m_reports, m_ran);
}

// The day before the ramp: nothing was recorded then, and the dialog says so.
void TestWhatIf::nothingRecordedIsSaidInWords()
{
    const qint64 from = m_startMs - hours(24);
    WhatIfDialog dialog(m_session->storePath(), from, from + hours(2), m_offset);
    dialog.show();
    QSignalSpy finished(&dialog, &WhatIfDialog::replayFinished);
    if (dialog.isRunning())
        QVERIFY(finished.wait(30'000));
    QCOMPARE(dialog.status(), Status::NothingRecorded);
    QVERIFY2(dialog.statusText().startsWith(QStringLiteral("Nothing was recorded in this period")),
             qPrintable(dialog.statusText()));
    QVERIFY(!dialog.table()->isVisible());
    QCOMPARE(dialog.model()->rowCount(), 0);
}

void TestWhatIf::anUnreadableStoreIsSaidInWords()
{
    const QString bad = m_dir.filePath(QStringLiteral("not-a-store.sqlite"));
    {
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is not a store\n");
    }
    for (const QString &path : {bad, m_dir.filePath(QStringLiteral("missing.sqlite"))}) {
        WhatIfDialog dialog(path, m_startMs + hours(1), m_startMs + hours(2), m_offset);
        QSignalSpy finished(&dialog, &WhatIfDialog::replayFinished);
        if (dialog.isRunning())
            QVERIFY(finished.wait(30'000));
        QCOMPARE(dialog.status(), Status::StoreUnreadable);
        QVERIFY2(dialog.statusText().contains(QStringLiteral("cannot be read")),
                 qPrintable(dialog.statusText()));
        QVERIFY(!dialog.detailsText().isEmpty()); // why, in the store's words
    }
}

// Cancel closes the dialog at once; the replay is told to stop and still ends (cancelled, or
// done when it was quicker).
void TestWhatIf::cancelDoesNotWait()
{
    WhatIfDialog dialog(
            m_session->storePath(), m_startMs + hours(1), m_startMs + hours(4), m_offset);
    QSignalSpy finished(&dialog, &WhatIfDialog::replayFinished);
    dialog.show();
    QVERIFY(dialog.isRunning()); // nothing came back yet: the replay runs on its own thread
    dialog.reject();
    QVERIFY(!dialog.isVisible());
    if (dialog.isRunning())
        QVERIFY(finished.wait(60'000));
    QVERIFY(dialog.status() == Status::Cancelled || dialog.status() == Status::Done);
}

void TestWhatIf::itSpeaksChinese()
{
    Widgets::LanguageController languages;
    QVERIFY(languages.setLanguage(QStringLiteral("zh_CN")));
    QCoreApplication::processEvents();
    OverviewView *overview = m_window->overview();
    QVERIFY2(overview->whatIfAction()->text().contains(QStringLiteral("假如")),
             qPrintable(overview->whatIfAction()->text()));
    WhatIfDialog dialog(
            m_session->storePath(), m_startMs + hours(1), m_startMs + hours(2), m_offset);
    QSignalSpy finished(&dialog, &WhatIfDialog::replayFinished);
    if (dialog.isRunning())
        QVERIFY(finished.wait(60'000));
    QCOMPARE(dialog.status(), Status::Done);
    QCOMPARE(dialog.model()->headerData(0, Qt::Horizontal, Qt::DisplayRole).toString(),
             QStringLiteral("策略"));
    QCOMPARE(dialog.model()->index(0, 0).data().toString(), QStringLiteral("已记录"));
    QVERIFY2(!dialog.statusText().contains(QStringLiteral("Ran under")),
             qPrintable(dialog.statusText()));
    QVERIFY(!dialog.windowTitle().contains(QStringLiteral("What if")));
    languages.setLanguage(QStringLiteral("en"));
    QCoreApplication::processEvents();
}

// The README's pictures (docs/screenshots/console-whatif-*.png): the demo day recorded up to noon,
// "What if?" on 07:00–11:00. Only when ZHAOXI_WHATIF_SCREENSHOTS names a directory.
void TestWhatIf::screenshot()
{
    const QString dir = qEnvironmentVariable("ZHAOXI_WHATIF_SCREENSHOTS");
    if (dir.isEmpty())
        QSKIP("set ZHAOXI_WHATIF_SCREENSHOTS=DIR to write the README's pictures");
    const Sim::Scenario day = scenario(QStringLiteral("demo-day.json"));
    Session::SimulationOptions options;
    options.storePath = m_dir.filePath(QStringLiteral("demo-day.sqlite"));
    Session::SimulationSession session(day, QString(), day.seed, options);
    session.runTo(0);
    Widgets::catchUp(session, hours(12), nullptr);
    QVERIFY(session.eventStore()->flush());
    const qint64 localMidnight = day.startMs; // the demo day starts at 00:00 local
    Widgets::LanguageController languages;
    for (const QString &lang : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
        QVERIFY(languages.setLanguage(lang));
        QCoreApplication::processEvents();
        WhatIfDialog dialog(session.storePath(),
                            localMidnight + hours(7),
                            localMidnight + hours(11),
                            int(day.utcOffsetMs / 1000));
        dialog.resize(1100, 440);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QSignalSpy finished(&dialog, &WhatIfDialog::replayFinished);
        if (dialog.isRunning())
            QVERIFY(finished.wait(120'000));
        QCOMPARE(dialog.status(), Status::Done);
        QTest::qWait(200);
        const QString file = dir + QStringLiteral("/console-whatif-")
                             + (lang == QLatin1String("en") ? QStringLiteral("en") : lang)
                             + QStringLiteral(".png");
        QVERIFY(dialog.grab().save(file, "PNG"));
        qInfo("wrote %s", qPrintable(file));
    }
    languages.setLanguage(QStringLiteral("en"));
}

void TestWhatIf::cleanupTestCase()
{
    m_window.reset();
    m_client.reset();
    m_session.reset();
}

QTEST_MAIN(TestWhatIf)
#include "tst_whatif.moc"
