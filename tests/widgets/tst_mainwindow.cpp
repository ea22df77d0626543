// SPDX-License-Identifier: GPL-3.0-or-later
// The console's main window on the offscreen platform: it shows the demo appliance, follows the
// selection in its details pane, and switches language at run time.
#include "core/catalogue/catalogue.h"
#include "core/device/devicebackend.h"
#include "core/models/cardtablemodel.h"
#include "core/models/eventlogmodel.h"
#include "core/models/serieshistory.h"
#include "core/models/seriesstore.h"
#include "core/models/sessionclient.h"
#include "core/sched/appliancefile.h"
#include "core/session/simulationsession.h"
#include "core/sim/scenario.h"
#include "widgets/advise/advicepanel.h"
#include "widgets/carddetailsview.h"
#include "widgets/cardmap/cardmapview.h"
#include "widgets/cardmap/jobsview.h"
#include "widgets/cardmap/newworkloaddialog.h"
#include "widgets/cardtimelineview.h"
#include "widgets/catchup.h"
#include "widgets/charts/livecharts.h"
#include "widgets/charts/partitionchart.h"
#include "widgets/eventlog/eventlogview.h"
#include "widgets/languagecontroller.h"
#include "widgets/mainwindow.h"
#include "widgets/overviewview.h"
#include "widgets/repartition/repartitioneditor.h"
#include "widgets/schedule/scheduleeditor.h"

#include "tests/data/scenarios.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QPushButton>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimeZone>
#include <QTimer>
#include <QToolBar>
#include <QTreeWidget>
#include <QUndoStack>

using namespace Zhaoxi;
using Models::CardTableModel;
using Widgets::LanguageController;
using Widgets::MainWindow;

namespace {

Sched::Appliance demo()
{
    static const Catalogue::Catalogue catalogue = Catalogue::Catalogue::builtIn();
    Sched::ApplianceError error;
    const std::optional<Sched::Appliance> a = Sched::loadApplianceFile(
            QStringLiteral(ZHAOXI_SOURCE_DIR "/resources/appliances/demo.json"), catalogue, &error);
    if (!a)
        qFatal("demo appliance: %s", qPrintable(error.toString()));
    return *a;
}

QStringList menuTitles(const MainWindow &w)
{
    QStringList titles;
    for (const QAction *a : w.menuBar()->actions())
        titles << a->text();
    return titles;
}

QString header(const MainWindow &w, int column)
{
    return w.cardView()->model()->headerData(column, Qt::Horizontal).toString();
}

QAction *languageAction(const MainWindow &w, const QString &code)
{
    return w.findChild<QAction *>(QStringLiteral("language_") + code);
}

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void showsTheAppliance();
    void aMomentOnTheOverviewMovesTheChartsAndTheLog();
    void theDayCanBeRestarted();
    void detailsFollowTheSelection();
    void switchesLanguageAndBack();
    void noTextIsCutAfterALanguageSwitch();
    void aboutNamesTheLicence();
    void newSnapshotKeepsTheSelection();
    void detailsTellTheCardsHealth();
    void detailsShowTheCardsDay();
    void detailsShowEachPartitionsHistory();
    void aConsoleStartedAgainShowsTheStoresHistory();
    void aProposedLayoutOpensInTheRepartitionEditor();
    void initTestCase();
    void consoleFollowsTheSession();
    void adviceAppliesThroughTheScheduleEditor();
    void readOnlyBannerSaysWhy();
    void settingsAreRemembered();
    void consoleSwitchesLanguage();
    void theSpeedBoxShowsTheSpeedTheApplianceRunsAt();
    void spacePausesFromAnywhere();
    void startingLateShowsTheDayGoingBy();
    void fitsALaptopScreen_data();
    void fitsALaptopScreen();
    void newWorkloadFromTheFileMenu();
};

namespace {

using TestData::demoDay;

// A session that publishes what the test hands it: for states no simulated day reaches (a
// read-only real appliance).
class FakeSession final : public Session::ApplianceSession
{
public:
    Session::SnapshotPtr latest() const override { return m_latest; }
    void publish(Session::Snapshot s)
    {
        s.serial = ++m_serial;
        m_latest = std::make_shared<const Session::Snapshot>(std::move(s));
        Q_EMIT snapshotReady(m_latest);
    }
    void start() override {}
    void stop() override {}
    void setSpeed(double) override {}
    void setPaused(bool) override {}
    void setPollIntervalMs(int) override {}
    void previewPlacement(quint64, int, int) override {}
    void placeJob(quint64, int, int, bool) override {}
    void placeJobConfirmed(quint64, int, int, QList<int>, Sched::BudgetRule) override {}
    void requeueJob(quint64, int) override {}
    void previewLayout(quint64, int, QList<Domain::MigPlacement>) override {}
    void applyLayout(quint64, int, QList<Domain::MigPlacement>, Session::ApplyMode, qint64) override
    {}
    void setSchedule(quint64, QJsonObject) override {}
    void submitWorkload(quint64, QJsonObject) override {}
    void cancelJob(quint64, int) override {}
    void setJobPriority(quint64, int, int) override {}
    void pinLayout(quint64, int, qint64) override {}
    void requestJobLog(quint64, int, qint64) override {}

private:
    Session::SnapshotPtr m_latest;
    quint64 m_serial = 0;
};

} // namespace

void TestMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true); // settings go to a test location
    QSettings().clear();
}

// A suggestion applied from the advice panel goes through the schedule editor's preview and
// confirmation to the session: the windows schedule it carries becomes the policy in force.
void TestMainWindow::adviceAppliesThroughTheScheduleEditor()
{
    Session::SimulationSession session(demoDay(), QString(), 20260105);
    session.runTo(10 * 3600'000);
    Models::SessionClient client(&session);
    MainWindow w;
    w.setSession(&client, session.storePath());
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto *advice = w.findChild<Widgets::AdvicePanel *>(QStringLiteral("advicePanel"));
    QVERIFY(advice);
    int confirmations = 0;
    w.scheduleEditor()->setApplyConfirmation([&](const Session::SchedulePreview &) {
        ++confirmations;
        return true;
    });
    const QJsonObject windows = QJsonDocument::fromJson(R"({
        "prepareAhead": "20m", "mode": "drain",
        "windows": [
            {"name": "day", "from": "06:30", "to": "22:00", "inferenceShare": 0.65},
            {"name": "night", "from": "22:00", "to": "06:30", "inferenceShare": 0.15}]})")
                                        .object();
    Q_EMIT advice->applyScheduleRequested(windows, QJsonObject{});
    QCOMPARE(w.tabs()->currentWidget()->findChild<Widgets::ScheduleEditor *>(), w.scheduleEditor());
    QTRY_VERIFY(client.snapshot() && client.snapshot()->policy == QLatin1String("windows"));
    QCOMPARE(confirmations, 1); // forecast -> windows: the operator confirmed the switch
    QCOMPARE(w.scheduleEditor()->schedule().value(QStringLiteral("windows")).toArray().size(), 2);
}

void TestMainWindow::consoleFollowsTheSession()
{
    Session::SimulationSession session(demoDay(), QString(), 20260105);
    session.runTo(10 * 3600'000); // 10:00 on the demo day
    Models::SessionClient client(&session);
    MainWindow w;
    w.setSession(&client, session.storePath());
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.cardMap() && w.jobsView() && w.charts() && w.eventLog() && w.whyView()
            && w.scheduleEditor() && w.repartitionEditor());
    QCOMPARE(w.tabs()->count(), 6);        // overview, charts, events, schedule, advice, card table
    QCOMPARE(w.tabs()->currentIndex(), 0); // the overview is the landing view
    QVERIFY2(w.clockText().startsWith(QStringLiteral("Mon 10:00")), qPrintable(w.clockText()));
    QVERIFY(w.clockText().contains(QStringLiteral("forecast")));
    QVERIFY(w.bannerText().isEmpty());
    QVERIFY2(w.summaryText().contains(QStringLiteral("11 card")), qPrintable(w.summaryText()));
    QCOMPARE(w.cardView()->model()->rowCount(), 11);
    // Choosing a card on the map points the repartition editor and the charts at it.
    const QRect card2 = w.cardMap()->cardRect(Domain::CardId(2));
    QVERIFY(!card2.isEmpty());
    QTest::mouseClick(w.cardMap()->viewport(), Qt::LeftButton, {}, card2.topLeft() + QPoint(4, 4));
    QCOMPARE(w.repartitionEditor()->card(), Domain::CardId(2));
    QCOMPARE(w.charts()->card(), Domain::CardId(2));
    // The details page shows the chosen card above its mini-charts.
    auto *details = w.findChild<QWidget *>(QStringLiteral("cardDetails"));
    QVERIFY(details && details->isVisibleTo(&w));
    QVERIFY(details->height() > w.findChild<QWidget *>(QStringLiteral("sparkUtil"))->height());
    // Full-power training at a normal temperature is no alarm: of the demo day's busy cards
    // none needs attention at 10:00 for its power or heat alone (the catalogue's limits).
    for (const QString &line : w.cardsNeedingAttention())
        QVERIFY2(!line.endsWith(QStringLiteral(" W")) && !line.contains(QStringLiteral("°C")),
                 qPrintable(line));
    QVERIFY2(w.cardsNeedingAttention().size() < 3,
             qPrintable(w.cardsNeedingAttention().join('\n')));
    // The day goes on: a later snapshot moves the clock.
    session.runTo(10 * 3600'000 + 15 * 60'000);
    QVERIFY2(w.clockText().startsWith(QStringLiteral("Mon 10:15")), qPrintable(w.clockText()));
}

void TestMainWindow::readOnlyBannerSaysWhy()
{
    FakeSession session;
    Session::Snapshot s;
    s.applianceName = QStringLiteral("gpu-box");
    s.simulated = false;
    s.endMs = -1; // open-ended: this machine's cards
    s.readOnly = true;
    s.readOnlyProblem = Domain::Problem(Domain::Problem::Code::ReadOnlyDisabled);
    s.nowMs = 1'767'571'200'000;
    session.publish(s);
    Models::SessionClient client(&session);
    MainWindow w;
    w.setSession(&client, QString());
    QVERIFY2(w.bannerText().contains(QStringLiteral("Settings")), qPrintable(w.bannerText()));
    QVERIFY(w.clockText().contains(QStringLiteral("real hardware")));
    s.readOnlyProblem = Domain::Problem(Domain::Problem::Code::ReadOnlyNoPermission);
    session.publish(s);
    QVERIFY2(w.bannerText().contains(QStringLiteral("no permission")), qPrintable(w.bannerText()));
    // A backend's own words (no code for them) are said as they are.
    s.readOnlyProblem
            = Domain::Problem::text(QStringLiteral("MIG is managed by the vendor daemon"));
    session.publish(s);
    QVERIFY2(w.bannerText().contains(QStringLiteral("vendor daemon")), qPrintable(w.bannerText()));
    // The schedule editor's Apply says it in the same words, and its own once writable again.
    auto *apply = w.scheduleEditor()->findChild<QPushButton *>(QStringLiteral("applySchedule"));
    QVERIFY(apply);
    QCOMPARE(apply->toolTip(), w.bannerText());
    s.readOnly = false;
    session.publish(s);
    QVERIFY(w.bannerText().isEmpty());
    QCOMPARE(apply->toolTip(), QStringLiteral("Make this schedule the policy in force"));
}

void TestMainWindow::settingsAreRemembered()
{
    {
        MainWindow w;
        Widgets::ConsoleSettings s = w.settings();
        s.speed = 600;
        s.tempAmberC = 70;
        s.tempRedC = 80;
        s.allowHardwareChanges = true;
        s.pollIntervalMs = 1000;
        w.applySettings(s);
    }
    MainWindow again;
    QCOMPARE(again.settings().speed, 600.0);
    QCOMPARE(again.settings().tempAmberC, 70.0);
    QCOMPARE(again.settings().allowHardwareChanges, true);
    QCOMPARE(again.settings().pollIntervalMs, 1000);
    // The card map takes the thresholds.
    Session::SimulationSession session(demoDay(), QString(), 20260105);
    session.runTo(0);
    Models::SessionClient client(&session);
    again.setSession(&client, session.storePath());
    QCOMPARE(again.cardMap()->thresholds().temperatureAmberC, 70.0);
    QSettings().clear();
}

void TestMainWindow::consoleSwitchesLanguage()
{
    LanguageController languages;
    Session::SimulationSession session(demoDay(), QString(), 20260105);
    session.runTo(0);
    Models::SessionClient client(&session);
    MainWindow w(&languages);
    w.setSession(&client, session.storePath());
    QVERIFY(languages.setLanguage(QStringLiteral("zh_CN")));
    QCoreApplication::processEvents();
    QCOMPARE(w.tabs()->tabText(w.tabs()->indexOf(w.charts())), QStringLiteral("图表"));
    // The clock line whole: the policy and the window in words, no identifier left in English.
    QVERIFY2(w.clockText().contains(QStringLiteral("策略：预测驱动")), qPrintable(w.clockText()));
    QVERIFY2(w.clockText().startsWith(QStringLiteral("周一")), qPrintable(w.clockText()));
    QVERIFY2(!w.clockText().contains(QStringLiteral("forecast")), qPrintable(w.clockText()));
    // Qt's own texts too (qt6-translations-l10n): a dialog's standard buttons.
    {
        QDialogButtonBox box(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
        QCOMPARE(box.button(QDialogButtonBox::Cancel)->text(), QStringLiteral("取消"));
    }
    QVERIFY(languages.setLanguage(QStringLiteral("en")));
    QCoreApplication::processEvents();
    QCOMPARE(w.tabs()->tabText(w.tabs()->indexOf(w.charts())), QStringLiteral("Charts"));
    QDialogButtonBox box(QDialogButtonBox::Cancel);
    QCOMPARE(box.button(QDialogButtonBox::Cancel)->text(), QStringLiteral("Cancel"));
}

void TestMainWindow::theSpeedBoxShowsTheSpeedTheApplianceRunsAt()
{
    LanguageController languages;
    Session::SimulationSession session(demoDay(), QString(), 20260105);
    session.setSpeed(45); // not a preset (zhaoxi --speed 45)
    session.runTo(0);
    Models::SessionClient client(&session);
    MainWindow w(&languages);
    w.setSession(&client, session.storePath());
    QTRY_VERIFY(client.snapshot() && client.snapshot()->speed == 45);
    auto *combo = w.findChild<QComboBox *>(QStringLiteral("speed"));
    QVERIFY(combo);
    QTRY_COMPARE(combo->currentData().toDouble(), 45.0);
    QVERIFY(combo->currentText().contains(QLatin1String("45")));
    // In order among the presets, once.
    int found = 0;
    for (int i = 0; i < combo->count(); ++i) {
        const double v = combo->itemData(i).toDouble();
        found += v == 45.0;
        if (i > 0 && v > 0 && combo->itemData(i - 1).toDouble() > 0)
            QVERIFY(combo->itemData(i - 1).toDouble() < v);
    }
    QCOMPARE(found, 1);
}

// Space runs and pauses the appliance's clock whichever view has the focus (text fields keep
// their spaces).
void TestMainWindow::spacePausesFromAnywhere()
{
    Session::SimulationSession session(demoDay(), QString(), 20260105);
    session.runTo(10 * 3600'000);
    Models::SessionClient client(&session);
    MainWindow w;
    w.setSession(&client, session.storePath());
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTRY_VERIFY(client.snapshot());
    QStringList failed;
    const QList<QWidget *> targets{w.cardMap()->viewport(),
                                   w.cardMap(),
                                   w.jobsView()->findChild<QAbstractItemView *>(),
                                   w.eventLog()->findChild<QAbstractItemView *>(),
                                   w.cardView(),
                                   w.findChild<QComboBox *>(QStringLiteral("speed")),
                                   w.tabs()->tabBar(),
                                   static_cast<QWidget *>(w.repartitionEditor())};
    for (QWidget *target : targets) {
        QVERIFY(target);
        target->setFocus(Qt::OtherFocusReason);
        const bool paused = client.snapshot()->paused;
        QTest::keyClick(QApplication::focusWidget() ? QApplication::focusWidget() : &w,
                        Qt::Key_Space);
        if (!QTest::qWaitFor([&] { return client.snapshot()->paused != paused; }, 2000))
            failed << QString::fromLatin1(target->metaObject()->className()) + QLatin1Char('/')
                              + target->objectName();
    }
    // Also with the run bar hidden (its context menu hides toolbars).
    auto *runBar = w.findChild<QToolBar *>(QStringLiteral("runBar"));
    QVERIFY(runBar);
    runBar->hide();
    w.cardMap()->setFocus(Qt::OtherFocusReason);
    const bool paused = client.snapshot()->paused;
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Space);
    if (!QTest::qWaitFor([&] { return client.snapshot()->paused != paused; }, 2000))
        failed << QStringLiteral("with the run bar hidden");
    QVERIFY2(failed.isEmpty(), qPrintable(failed.join(QStringLiteral(", "))));
}

// zhaoxi --at 23:30: the window follows the day while it is run up to the moment (its clock
// moves during the catch-up), and shows 23:30 at the end.
void TestMainWindow::startingLateShowsTheDayGoingBy()
{
    Session::SimulationSession session(demoDay(), QString(), 20260105);
    session.runTo(0);
    Models::SessionClient client(&session);
    MainWindow w;
    w.setSession(&client, session.storePath());
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSet<QString> clocks;
    QTimer watch;
    connect(&watch, &QTimer::timeout, this, [&] { clocks.insert(w.clockText().left(9)); });
    watch.start(0);
    const qint64 localStart = (demoDay().startMs + demoDay().utcOffsetMs) % 86'400'000;
    Widgets::catchUp(session, (23 * 60 + 30) * 60'000 - localStart, &w);
    watch.stop();
    QTRY_VERIFY2(w.clockText().startsWith(QStringLiteral("Mon 23:30")), qPrintable(w.clockText()));
    QVERIFY2(clocks.size() > 3, qPrintable(QStringList(clocks.values()).join(QLatin1Char(' '))));
    // The progress dialog, when there was one, is gone.
    const auto *dialog = w.findChild<QWidget *>(QStringLiteral("catchUpProgress"));
    QVERIFY(!dialog || !dialog->isVisible());
}

void TestMainWindow::fitsALaptopScreen_data()
{
    QTest::addColumn<QString>("language");
    QTest::newRow("en") << QStringLiteral("en");
    QTest::newRow("zh_CN") << QStringLiteral("zh_CN");
}

// At 1280x720 (and so at 1366x768) the window fits: its minimum size is no larger, and every
// view can be brought up and is not squeezed to nothing.
void TestMainWindow::fitsALaptopScreen()
{
    QFETCH(QString, language);
    LanguageController languages;
    Session::SimulationSession session(demoDay(), QString(), 20260105);
    session.runTo(10 * 3600'000);
    Models::SessionClient client(&session);
    MainWindow w(&languages);
    languages.setLanguage(language);
    w.setSession(&client, session.storePath());
    w.resize(1280, 720);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCoreApplication::processEvents();
    const QSize min = w.minimumSizeHint().expandedTo(w.minimumSize());
    QStringList big;
    for (QWidget *child : w.findChildren<QWidget *>()) {
        if (!child->isVisibleTo(&w) || child->isWindow())
            continue;
        const QSize m = child->minimumSizeHint().expandedTo(child->minimumSize());
        if (m.width() > 500 || m.height() > 400)
            big << QStringLiteral("%1/%2 %3x%4")
                            .arg(QString::fromLatin1(child->metaObject()->className()),
                                 child->objectName())
                            .arg(m.width())
                            .arg(m.height());
    }
    QVERIFY2(min.width() <= 1280 && min.height() <= 720,
             qPrintable(QStringLiteral("minimum %1x%2; large parts: %3")
                                .arg(min.width())
                                .arg(min.height())
                                .arg(big.join(QStringLiteral(", ")))));
    QVERIFY2(w.width() <= 1280 && w.height() <= 720,
             qPrintable(QStringLiteral("shown at %1x%2").arg(w.width()).arg(w.height())));
    qInfo("%s: minimum %dx%d", qPrintable(language), min.width(), min.height());
    // One column of docks: the jobs and the details share it as tabs.
    auto *jobsDock = w.findChild<QDockWidget *>(QStringLiteral("jobsDock"));
    auto *detailsDock = w.findChild<QDockWidget *>(QStringLiteral("cardDetailsDock"));
    QVERIFY(jobsDock && detailsDock);
    QVERIFY(w.docksFolded());
    QVERIFY(w.tabifiedDockWidgets(jobsDock).contains(detailsDock));
    // Every view can be brought up and gets room: the card map, each tab, each side tab.
    QVERIFY2(w.cardMap()->height() >= 150, qPrintable(QString::number(w.cardMap()->height())));
    for (QTabWidget *tabs : {w.tabs(), w.findChild<QTabWidget *>(QStringLiteral("sideTabs"))}) {
        QVERIFY(tabs);
        for (int i = 0; i < tabs->count(); ++i) {
            tabs->setCurrentIndex(i);
            QCoreApplication::processEvents();
            const QWidget *page = tabs->currentWidget();
            QVERIFY2(page->isVisible() && page->width() >= 250 && page->height() >= 120,
                     qPrintable(QStringLiteral("%1: %2x%3")
                                        .arg(tabs->tabText(i))
                                        .arg(page->width())
                                        .arg(page->height())));
        }
    }
    // Wide again: two columns.
    w.resize(1800, 1000);
    QCoreApplication::processEvents();
    QVERIFY(!w.docksFolded());
    QVERIFY(!w.tabifiedDockWidgets(jobsDock).contains(detailsDock));
    QCOMPARE(w.dockWidgetArea(jobsDock), Qt::LeftDockWidgetArea);
}

void TestMainWindow::newWorkloadFromTheFileMenu()
{
    LanguageController languages;
    FakeSession session;
    Session::Snapshot s;
    s.applianceName = QStringLiteral("gpu-box");
    session.publish(s);
    Models::SessionClient client(&session);
    MainWindow w(&languages);
    QAction *action = w.newWorkloadAction();
    QVERIFY(action);
    QCOMPARE(action->shortcut(), QKeySequence(QKeySequence::New));
    QVERIFY(!action->isEnabled()); // nothing to submit to yet
    w.setSession(&client, QString());
    QVERIFY(action->isEnabled());
    QVERIFY(w.menuBar()->actions().first()->menu()->actions().contains(action));

    action->trigger();
    auto *dialog = w.jobsView()->findChild<Widgets::NewWorkloadDialog *>();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    QCOMPARE(dialog->windowTitle(), QStringLiteral("New workload"));
    // The jobs view's words reach the status bar.
    Q_EMIT w.jobsView()->statusMessage(QStringLiteral("Cancelled x."));
    QCOMPARE(w.statusBar()->currentMessage(), QStringLiteral("Cancelled x."));

    QVERIFY(languages.setLanguage(QStringLiteral("zh_CN")));
    QCoreApplication::processEvents();
    QCOMPARE(dialog->windowTitle(), QStringLiteral("新建工作负载"));
    QCOMPARE(action->text(), QStringLiteral("新建工作负载(&N)…"));
    QVERIFY(languages.setLanguage(QStringLiteral("en")));
    QCoreApplication::processEvents();
    QCOMPARE(dialog->windowTitle(), QStringLiteral("New workload"));
    dialog->reject();
}

void TestMainWindow::showsTheAppliance()
{
    LanguageController languages;
    MainWindow w(&languages);
    const Sched::Appliance a = demo();
    w.setAppliance(a.name, a.state);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));

    QCOMPARE(w.cardView()->model()->rowCount(), 12);
    QCOMPARE(w.summaryText(), QStringLiteral("2 hosts \u00b7 12 cards \u00b7 22 partitions"));
    const auto *status = w.findChild<QLabel *>(QStringLiteral("statusSummary"));
    QVERIFY(status);
    QCOMPARE(status->text(), w.summaryText());
    QVERIFY(w.windowTitle().contains(a.name));
    QCOMPARE(menuTitles(w), (QStringList{"&File", "&View", "&Language", "&Help"}));

    // Sorted by host, in the appliance's host order, each host's cards in order.
    const QAbstractItemModel *view = w.cardView()->model();
    QCOMPARE(view->index(0, CardTableModel::HostColumn).data().toString(),
             QStringLiteral("dgx-h200"));
    QCOMPARE(view->index(7, CardTableModel::CardColumn).data().toString(), QStringLiteral("GPU 7"));
    QCOMPARE(view->index(8, CardTableModel::HostColumn).data().toString(),
             QStringLiteral("ada-edge"));
    QCOMPARE(w.cardView()->horizontalHeader()->sortIndicatorSection(),
             int(CardTableModel::HostColumn));
}

void TestMainWindow::detailsFollowTheSelection()
{
    MainWindow w; // without a language controller: no Language menu
    QCOMPARE(menuTitles(w), (QStringList{"&File", "&View", "&Help"}));
    const Sched::Appliance a = demo();
    w.setAppliance(a.name, a.state);
    const auto *partitions
            = w.detailsView()->findChild<QTreeWidget *>(QStringLiteral("partitionList"));
    const auto *title = w.detailsView()->findChild<QLabel *>(QStringLiteral("cardTitle"));
    QVERIFY(partitions && title);

    // The first row is selected from the start: a whole card, one partition.
    QCOMPARE(title->text(), QStringLiteral("dgx-h200 \u00b7 GPU 0"));
    QCOMPARE(partitions->topLevelItemCount(), 1);
    QCOMPARE(partitions->topLevelItem(0)->text(0), QStringLiteral("Whole card"));

    w.selectCard(Domain::CardId(7)); // seven 1g.18gb instances
    QCOMPARE(title->text(), QStringLiteral("dgx-h200 \u00b7 GPU 7"));
    QCOMPARE(partitions->topLevelItemCount(), 7);
    QCOMPARE(partitions->topLevelItem(6)->text(0), QStringLiteral("1g.18gb at slot 6"));
    QCOMPARE(partitions->topLevelItem(6)->text(1), QStringLiteral("1 of 7 slices"));
    QCOMPARE(partitions->topLevelItem(6)->text(3), QStringLiteral("idle"));

    w.selectCard(Domain::CardId(9)); // time-slicing, no clients
    QCOMPARE(title->text(), QStringLiteral("ada-edge \u00b7 GPU 1"));
    QCOMPARE(partitions->topLevelItemCount(), 1);
    QCOMPARE(partitions->topLevelItem(0)->text(0), QStringLiteral("No clients"));
}

void TestMainWindow::switchesLanguageAndBack()
{
    LanguageController languages;
    MainWindow w(&languages);
    const Sched::Appliance a = demo();
    w.setAppliance(a.name, a.state);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(languageAction(w, QStringLiteral("en"))->isChecked());

    languageAction(w, QStringLiteral("zh_CN"))->trigger();
    QCOMPARE(languages.language(), QStringLiteral("zh_CN"));
    QVERIFY(languageAction(w, QStringLiteral("zh_CN"))->isChecked());
    QVERIFY(!languageAction(w, QStringLiteral("en"))->isChecked());
    // Qt posts QEvent::LanguageChange; the window retranslates when it arrives.
    QTRY_COMPARE(menuTitles(w).value(0), QStringLiteral("\u6587\u4ef6(&F)"));        // 文件(&F)
    QCOMPARE(header(w, CardTableModel::HostColumn), QStringLiteral("\u4e3b\u673a")); // 主机
    QCOMPARE(header(w, CardTableModel::LinkDomainColumn),
             QStringLiteral("\u94fe\u8def\u57df")); // 链路域
    QCOMPARE(w.summaryText(),
             QStringLiteral(
                     "2 \u53f0\u4e3b\u673a \u00b7 12 \u5f20\u5361 \u00b7 22 \u4e2a\u5206\u533a"));
    QVERIFY(w.windowTitle().contains(QStringLiteral("\u671d\u5915"))); // 朝夕
    QCOMPARE(w.cardView()->model()->index(0, CardTableModel::ModeColumn).data().toString(),
             QStringLiteral("\u6574\u5361")); // 整卡
    // The language names stay in their own language.
    QCOMPARE(languageAction(w, QStringLiteral("en"))->text(), QStringLiteral("English"));

    languageAction(w, QStringLiteral("en"))->trigger();
    QCOMPARE(languages.language(), QStringLiteral("en"));
    QTRY_COMPARE(menuTitles(w).value(0), QStringLiteral("&File"));
    QCOMPARE(header(w, CardTableModel::HostColumn), QStringLiteral("Host"));
    QCOMPARE(w.summaryText(), QStringLiteral("2 hosts \u00b7 12 cards \u00b7 22 partitions"));
    QCOMPARE(w.cardView()->model()->index(0, CardTableModel::ModeColumn).data().toString(),
             QStringLiteral("Whole card"));

    QVERIFY(!languages.setLanguage(QStringLiteral("fr")));
    QCOMPARE(languages.language(), QStringLiteral("en"));
}

// Texts on buttons, boxes and one-line labels whose widget is narrower than the text needs
// (a width fixed for the other language), with their widgets' names: none, in either language,
// after switching at run time.
static QStringList cutTexts(const QWidget &window)
{
    QStringList cut;
    for (QWidget *child : window.findChildren<QWidget *>()) {
        if (!child->isVisible() || child->width() <= 0)
            continue;
        QString text;
        int need = 0;
        if (auto *b = qobject_cast<QAbstractButton *>(child)) {
            if (b->text().isEmpty())
                continue;
            text = b->text();
            need = b->sizeHint().width();
        } else if (auto *l = qobject_cast<QLabel *>(child)) {
            if (l->wordWrap() || l->text().isEmpty() || l->textFormat() == Qt::RichText
                || l->text().contains(QLatin1Char('<')) || !l->pixmap().isNull())
                continue;
            text = l->text();
            need = l->minimumSizeHint().width();
        } else if (auto *c = qobject_cast<QComboBox *>(child)) {
            text = c->currentText();
            need = c->minimumSizeHint().width();
        } else if (auto *h = qobject_cast<QHeaderView *>(child)) {
            // A column sized for the other language's title.
            if (h->orientation() != Qt::Horizontal || !h->model())
                continue;
            for (int i = 0; i < h->count(); ++i) {
                if (h->isSectionHidden(i) || h->sectionSize(i) == 0
                    || h->sectionResizeMode(i) == QHeaderView::Stretch
                    || (h->stretchLastSection() && h->visualIndex(i) == h->count() - 1))
                    continue;
                const QString title = h->model()->headerData(i, Qt::Horizontal).toString();
                const int titleNeed = h->sectionSizeHint(i); // the title, its margins
                if (h->sectionSize(i) < titleNeed)
                    cut << QStringLiteral("column %1 of %2 \"%3\": %4 < %5 px")
                                    .arg(i)
                                    .arg(h->parentWidget() ? h->parentWidget()->objectName()
                                                           : QString())
                                    .arg(title)
                                    .arg(h->sectionSize(i))
                                    .arg(titleNeed);
            }
            continue;
        } else if (auto *t = qobject_cast<QTabBar *>(child)) {
            const QFontMetrics fm(t->font());
            for (int i = 0; i < t->count(); ++i) {
                const int tabNeed = fm.horizontalAdvance(t->tabText(i).remove(QLatin1Char('&')));
                if (t->tabRect(i).width() < tabNeed)
                    cut << QStringLiteral("tab \"%1\": %2 < %3 px")
                                    .arg(t->tabText(i))
                                    .arg(t->tabRect(i).width())
                                    .arg(tabNeed);
            }
            continue;
        } else
            continue;
        if (child->width() + 1 < need)
            cut << QStringLiteral("%1 %2 \"%3\": %4 < %5 px")
                            .arg(QString::fromLatin1(child->metaObject()->className()),
                                 child->objectName(),
                                 text.left(40))
                            .arg(child->width())
                            .arg(need);
    }
    return cut;
}

void TestMainWindow::noTextIsCutAfterALanguageSwitch()
{
    LanguageController languages;
    Session::SimulationSession session(demoDay(), QString(), 20260105);
    session.runTo(10 * 3600'000);
    Models::SessionClient client(&session);
    MainWindow w(&languages);
    w.setSession(&client, session.storePath());
    w.resize(1280, 720);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTRY_VERIFY(client.snapshot());
    {
        // The check sees a cut text: a button held narrower than its words.
        QPushButton narrow(QStringLiteral("A button with a long text"), &w);
        narrow.setObjectName(QStringLiteral("narrow"));
        narrow.setFixedWidth(30);
        narrow.show();
        QVERIFY(cutTexts(w).join(QLatin1Char(' ')).contains(QStringLiteral("narrow")));
    }
    QVERIFY2(cutTexts(w).isEmpty(), qPrintable(cutTexts(w).join(QLatin1Char('\n'))));
    // Ends in English, as the other tests expect.
    for (const QString &lang : {QStringLiteral("zh_CN"),
                                QStringLiteral("en"),
                                QStringLiteral("zh_CN"),
                                QStringLiteral("en")}) {
        QVERIFY(languages.setLanguage(lang));
        for (int i = 0; i < 5; ++i) {
            QCoreApplication::processEvents();
            QTest::qWait(20);
        }
        // Every page of every tab widget, each shown in turn.
        QStringList cut;
        for (QTabWidget *tabs : w.findChildren<QTabWidget *>()) {
            if (!tabs->isVisible())
                continue;
            const int was = tabs->currentIndex();
            for (int i = 0; i < tabs->count(); ++i) {
                tabs->setCurrentIndex(i);
                QCoreApplication::processEvents();
                for (const QString &c : cutTexts(w)) {
                    if (!cut.contains(c))
                        cut << c;
                }
            }
            tabs->setCurrentIndex(was);
        }
        QVERIFY2(cut.isEmpty(),
                 qPrintable(lang + QStringLiteral(":\n") + cut.join(QLatin1Char('\n'))));
    }
}

void TestMainWindow::aboutNamesTheLicence()
{
    MainWindow w;
    QVERIFY(w.aboutText().contains(QStringLiteral("GPL-3.0-or-later")));
    QVERIFY(w.aboutText().contains(QStringLiteral("Zhaoxi")));
}

void TestMainWindow::newSnapshotKeepsTheSelection()
{
    MainWindow w;
    Sched::Appliance a = demo();
    w.setAppliance(a.name, a.state);
    w.selectCard(Domain::CardId(5));
    const auto *partitions
            = w.detailsView()->findChild<QTreeWidget *>(QStringLiteral("partitionList"));
    QCOMPARE(partitions->topLevelItemCount(), 3);

    Domain::WorkloadSpec spec;
    spec.name = QStringLiteral("chat-7b");
    const Domain::JobId job = a.state.addJob(spec, 0);
    a.state.attachHost(job, Domain::HostId(0));
    Sched::UnitChoice choice;
    choice.card = Domain::CardId(5);
    choice.uid = a.state.card(Domain::CardId(5)).units[1].uid;
    a.state.bind(job, choice);
    w.setAppliance(a.name, a.state);

    QCOMPARE(w.cardView()->currentIndex().data(CardTableModel::CardIdRole).toInt(), 5);
    QTRY_COMPARE(partitions->topLevelItem(1)->text(3), QStringLiteral("chat-7b"));
}

// The card details say what nvidia-smi would: the clock against full with the throttle reasons,
// the temperature against the model's slowdown and shutdown points, power against its limit,
// errors, processes Zhaoxi did not start; and whether each partition's job works or idles.
void TestMainWindow::detailsTellTheCardsHealth()
{
    Sched::Appliance a = demo();
    Domain::WorkloadSpec spec;
    spec.name = QStringLiteral("chat-7b");
    const Domain::CardId card(7); // seven 1g.18gb instances
    QList<int> uids;
    for (int i = 0; i < 2; ++i) {
        const Domain::JobId job = a.state.addJob(spec, 0);
        a.state.attachHost(job, Domain::HostId(0));
        Sched::UnitChoice choice;
        choice.card = card;
        choice.uid = a.state.card(card).units[i].uid;
        a.state.bind(job, choice);
        uids << choice.uid;
    }
    Models::CardTableModel model;
    model.setState(a.state);
    QList<Session::CardSample> samples(model.rowCount());
    Session::CardSample &s = samples[card.value()];
    s.card = card.value();
    s.utilisation = 0.4;
    s.memoryUsedMiB = 20 * 1024;
    s.temperatureC = 88.4;
    s.slowdownTempC = 87;
    s.shutdownTempC = 92;
    s.powerW = 401;
    s.powerLimitW = 700;
    s.throttled = true;
    s.throttleReasons = Device::ThrottleReason::HwThermal;
    s.clockFactor = 0.62;
    s.xidErrors = 2;
    s.otherProcesses = 1;
    s.busyUnits = {uids[0]}; // the second job holds its unit and does nothing
    // As a hardware session reads them: NVML gives no utilisation per MIG instance, and lists
    // the processes on each.
    s.units = {
            Session::UnitSample{uids[0],
                                std::nan(""),
                                9 * 1024,
                                {Session::UnitProcess{4321, QStringLiteral("python3"), 8 * 1024, 0},
                                 Session::UnitProcess{4400, QString(), 1024, -1}}},
            Session::UnitSample{uids[1], std::nan(""), 0, {}}};
    model.setReadings(samples);

    Widgets::CardDetailsView view;
    view.setCard(model.index(model.rowOf(card), 0));
    const auto *readings = view.findChild<QLabel *>(QStringLiteral("cardReadings"));
    const auto *partitions = view.findChild<QTreeWidget *>(QStringLiteral("partitionList"));
    QVERIFY(readings && partitions);
    const QStringList lines = readings->text().split(QLatin1Char('\n'));
    QCOMPARE(lines.value(0), QStringLiteral("Utilisation 40 % \u00b7 memory in use 20.0 GiB"));
    QCOMPARE(lines.value(1), QStringLiteral("Clock at 62 % of full, throttled: thermal slowdown"));
    QCOMPARE(lines.value(2),
             QStringLiteral("Temperature 88 °C (slows down at 87 °C, shuts down at 92 °C)"));
    QCOMPARE(lines.value(3), QStringLiteral("Power 401 W of its 700 W limit"));
    QCOMPARE(lines.value(4),
             QStringLiteral(
                     "Since the session began: Xid errors 2 \u00b7 uncorrectable ECC errors 0"));
    QCOMPARE(lines.value(5), QStringLiteral("Processes Zhaoxi did not start: 1"));
    QCOMPARE(partitions->topLevelItem(0)->text(4), QStringLiteral("Working"));
    QCOMPARE(partitions->topLevelItem(1)->text(4), QStringLiteral("Allocated, idle"));
    QCOMPARE(partitions->topLevelItem(2)->text(4), QStringLiteral("Ready"));
    const QTreeWidgetItem *first = partitions->topLevelItem(0);
    QCOMPARE(first->text(5), QStringLiteral("not reported"));
    QCOMPARE(first->text(6), QStringLiteral("9.0 GiB"));
    QCOMPARE(first->childCount(), 2);
    QCOMPARE(first->child(0)->text(0), QStringLiteral("python3 (pid 4321)"));
    QCOMPARE(first->child(0)->text(3), QStringLiteral("job 0"));
    QCOMPARE(first->child(0)->text(6), QStringLiteral("8.0 GiB"));
    QCOMPARE(first->child(1)->text(0), QStringLiteral("process 4400"));
    QCOMPARE(first->child(1)->text(3), QStringLiteral("not started by Zhaoxi"));
    QCOMPARE(partitions->topLevelItem(1)->text(6), QStringLiteral("0.0 GiB"));
    QCOMPARE(partitions->topLevelItem(2)->text(6), QString()); // no reading for it

    // The card cools and its clock comes back: the view follows the model.
    s.temperatureC = 60;
    s.throttled = false;
    s.throttleReasons = 0;
    s.clockFactor = 1;
    model.setReadings(samples); // followed within a quarter of a second
    QTRY_COMPARE(readings->text().split(QLatin1Char('\n')).value(1),
                 QStringLiteral("Clock at 100 % of full, not throttled"));
    // A card with no reading (lost) says so.
    samples[0].lost = true;
    model.setReadings(samples);
    view.setCard(model.index(model.rowOf(Domain::CardId(0)), 0));
    QCOMPARE(readings->text(), QStringLiteral("No readings from this card now."));
}

// The details pane draws the selected card's day: its units over time with who held them,
// the time axis in local time, and a tooltip that names the holder and the times.
void TestMainWindow::detailsShowTheCardsDay()
{
    Session::SimulationSession session(demoDay(), QString(), 20260105);
    session.runTo(0);
    Models::SessionClient client(&session);
    MainWindow w;
    w.setSession(&client, session.storePath());
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    Widgets::catchUp(session, 4 * 3600'000, nullptr);
    QTRY_VERIFY(client.snapshot()
                && client.snapshot()->nowMs >= client.snapshot()->startMs + 4 * 3600'000);
    auto *timeline = w.findChild<Widgets::CardTimelineView *>(QStringLiteral("cardTimeline"));
    QVERIFY(timeline);
    // The card with the most held stretches.
    const Sched::ClusterState &st = client.snapshot()->state;
    Domain::CardId busiest;
    int most = -1;
    for (const Sched::CardState &c : st.cards()) {
        w.selectCard(c.id);
        int held = 0;
        for (const Models::TimelineSpan &span : timeline->spans())
            held += span.job.isValid();
        if (held > most) {
            most = held;
            busiest = c.id;
        }
    }
    QVERIFY(most > 0);
    w.selectCard(busiest);
    QCOMPARE(timeline->card(), busiest);
    timeline->resize(480, 200);
    QVERIFY(!timeline->timeLabels().isEmpty());
    for (const QString &label : timeline->timeLabels())
        QVERIFY2(label.endsWith(QStringLiteral(":00")), qPrintable(label)); // on the hour
    bool named = false;
    for (qsizetype i = 0; i < timeline->spans().size(); ++i) {
        const Models::TimelineSpan &span = timeline->spans()[i];
        const QRect r = timeline->spanRect(i);
        QVERIFY(timeline->rect().contains(r));
        if (!span.job.isValid() || r.width() < 3)
            continue;
        const QString text = timeline->describeAt(r.center());
        QVERIFY2(text.contains(QStringLiteral(" on ")), qPrintable(text));
        named |= text.startsWith(span.jobName);
    }
    QVERIFY(named);
    QVERIFY(timeline->describeAt(QPoint(1, 1)).isEmpty());
}

// "Open this layout" on a refused drop: the repartition editor shows that card with the layout
// planned (one undoable edit), and nothing is applied.
void TestMainWindow::aProposedLayoutOpensInTheRepartitionEditor()
{
    Session::SimulationSession session(demoDay(), QString(), 20260105);
    session.runTo(0);
    Models::SessionClient client(&session);
    MainWindow w;
    w.setSession(&client, session.storePath());
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTRY_VERIFY(client.snapshot());
    const Sched::ClusterState &st = client.snapshot()->state;
    const Domain::CardId card(6);
    const Domain::CardModel &model = st.model(st.card(card));
    const int g3 = model.profileIndex(QStringLiteral("3g.71gb"));
    const int g1 = model.profileIndex(QStringLiteral("1g.18gb"));
    const QList<Domain::MigPlacement> layout{{g3, 0}, {g1, 4}, {g1, 5}, {g1, 6}};
    const auto unitsBefore = st.card(card).units;
    session.setPaused(true);
    Q_EMIT w.cardMap()->layoutProposed(card, layout);
    Widgets::RepartitionEditor *editor = w.repartitionEditor();
    QCOMPARE(editor->card(), card);
    QVERIFY(editor->isVisible());
    QCOMPARE(editor->pendingLayout(), layout);
    QCOMPARE(editor->undoStack()->count(), 1);
    // Nothing changed on the card: it keeps the layout it had.
    QCoreApplication::processEvents();
    QVERIFY(editor->currentLayout() != layout);
    QCOMPARE(session.latest()->state.card(card).units, unitsBefore);
}

// A moment clicked on the overview's chart: the event log shows the first event from then on,
// selected, and stops following the newest; the charts show the half hour around it.
void TestMainWindow::aMomentOnTheOverviewMovesTheChartsAndTheLog()
{
    LanguageController languages;
    Session::SimulationSession session(demoDay(), QString(), 20260105);
    session.runTo(0);
    Models::SessionClient client(&session);
    MainWindow w(&languages);
    w.setSession(&client, session.storePath());
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    Widgets::catchUp(session, 3 * 3600'000, nullptr);
    QTRY_VERIFY(w.eventLog()->model()->rowCount() > 100);
    const qint64 moment = client.snapshot()->startMs + 90 * 60'000; // 01:30
    QSignalSpy range(w.charts(), &Widgets::LiveCharts::timeRangeChanged);
    Q_EMIT w.overview()->momentClicked(moment);
    QCOMPARE(w.tabs()->currentIndex(),
             w.tabs()->indexOf(w.eventLog()->parentWidget()->parentWidget()));
    QVERIFY(!w.eventLog()->isFollowingTail());
    const QModelIndexList rows = w.eventLog()->table()->selectionModel()->selectedRows();
    QCOMPARE(rows.size(), 1);
    const Models::EventFilterModel *filter = w.eventLog()->filterModel();
    const Storage::Event &e = w.eventLog()->model()->event(filter->mapToSource(rows.first()).row());
    QVERIFY(e.atMs >= moment);
    if (rows.first().row() > 0) {
        const Storage::Event &before = w.eventLog()->model()->event(
                filter->mapToSource(filter->index(rows.first().row() - 1, 0)).row());
        QVERIFY(before.atMs < moment);
    }
    QVERIFY(!range.isEmpty());
    const double mid = (range.last().at(0).toDouble() + range.last().at(1).toDouble()) / 2;
    QVERIFY(std::abs(mid - double(moment) / 1000.0) < 1);
}

// The run bar's "Restart day", asked first: declined, nothing; accepted, the clock is back at the
// day's beginning and the event log and the overview start again.
void TestMainWindow::theDayCanBeRestarted()
{
    LanguageController languages;
    Session::SimulationSession session(demoDay(), QString(), 20260105);
    session.runTo(0);
    Models::SessionClient client(&session);
    MainWindow w(&languages);
    w.setSession(&client, session.storePath());
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    Widgets::catchUp(session, 2 * 3600'000, nullptr);
    QTRY_VERIFY(w.eventLog()->model()->rowCount() > 100);
    QTRY_VERIFY(w.overview()->history().size() > 100);
    auto *restart = w.findChild<QAction *>(QStringLiteral("restartDay"));
    QVERIFY(restart && restart->isVisible() && restart->isEnabled());
    int asked = 0;
    bool accept = false;
    w.setRestartConfirmation([&] {
        ++asked;
        return accept;
    });
    restart->trigger();
    QCoreApplication::processEvents();
    QCOMPARE(asked, 1);
    QVERIFY(client.snapshot()->nowMs > client.snapshot()->startMs);
    accept = true;
    restart->trigger();
    QTRY_COMPARE(client.snapshot()->nowMs, client.snapshot()->startMs);
    QTRY_VERIFY(w.eventLog()->model()->rowCount() < 100);
    QTRY_VERIFY(w.overview()->history().size() <= 1);
    QVERIFY(w.clockText().startsWith(QLocale().toString(
            QDateTime::fromMSecsSinceEpoch(client.snapshot()->startMs,
                                           QTimeZone(client.snapshot()->utcOffsetSeconds)),
            QStringLiteral("ddd HH:mm"))));
}

QTEST_MAIN(TestMainWindow)
void TestMainWindow::aConsoleStartedAgainShowsTheStoresHistory()
{
    // A console ran the appliance's morning into its store, then exited.
    QTemporaryDir dir;
    const QString storePath = dir.filePath(QStringLiteral("appliance.sqlite"));
    Session::SnapshotPtr before;
    {
        Session::SimulationOptions options;
        options.storePath = storePath;
        Session::SimulationSession first(demoDay(), QString(), 20260105, options);
        first.runTo(0);
        Widgets::catchUp(first, 3 * 3600'000, nullptr);
        before = first.latest();
        QVERIFY(before && before->nowMs >= before->startMs + 3 * 3600'000);
    }
    // A MIG partition held by a job at 03:00.
    Domain::CardId card;
    int uid = -1;
    for (const Sched::CardState &c : before->state.cards()) {
        for (const Sched::Unit &u : c.units) {
            if (c.mode == Domain::PartitionMode::Mig && u.job.isValid() && uid < 0) {
                card = c.id;
                uid = u.uid;
            }
        }
    }
    QVERIFY(uid >= 0);

    // The appliance went on; a console started half an hour later shows what the store kept
    // before its first snapshot, in the charts and in the partition's own history.
    FakeSession session;
    Session::Snapshot now = *before;
    now.events.clear();
    now.nowMs += 30 * 60'000;
    session.publish(now);
    Models::SessionClient client(&session);
    MainWindow w;
    w.resize(1600, 1000);
    w.setSession(&client, storePath);
    QVERIFY(w.historyLoader());
    QSignalSpy loaded(w.historyLoader(), &Models::SeriesHistoryLoader::loaded);
    QVERIFY(loaded.wait(20'000));
    QCOMPARE(loaded.at(0).at(1).toString(), QString());
    auto *series = w.findChild<Models::SeriesStore *>();
    QVERIFY(series);
    const double start = double(before->startMs) / 1000.0;
    const double stopped = double(before->nowMs) / 1000.0;
    for (const QString &key :
         {Models::SeriesStore::partitionKey(card, uid, Models::SeriesMetric::MemoryUsed),
          Models::SeriesStore::partitionKey(card, uid, Models::SeriesMetric::Utilisation),
          Models::SeriesStore::cardKey(card, Models::SeriesMetric::Power),
          Models::SeriesStore::applianceKey(Models::SeriesMetric::Power)}) {
        const Models::TimeSeries *s = series->series(key);
        QVERIFY2(s, qPrintable(key));
        // About a point a simulated minute from the morning, then the live snapshot's.
        const qsizetype recorded = s->lowerBound(stopped + 1);
        QVERIFY2(recorded > 30, qPrintable(QStringLiteral("%1: %2").arg(key).arg(recorded)));
        if (key.endsWith(QLatin1String("power")))
            QVERIFY2(s->first().t <= start + 120 && recorded > 170, qPrintable(key));
        QCOMPARE(s->last().t, double(now.nowMs) / 1000.0);
    }
    const Models::TimeSeries *memory = series->series(
            Models::SeriesStore::partitionKey(card, uid, Models::SeriesMetric::MemoryUsed));
    QVERIFY(memory->at(memory->lowerBound(stopped - 60)).value > 0); // the job's memory

    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.selectCard(card);
    auto *chart = w.detailsView()->findChild<Widgets::PartitionChart *>(
            QStringLiteral("partitionChart"));
    QVERIFY(chart);
    auto *partitions = w.detailsView()->findChild<QTreeWidget *>(QStringLiteral("partitionList"));
    QVERIFY(partitions);
    QTRY_VERIFY(partitions->topLevelItemCount() > 0);
    for (int i = 0; i < partitions->topLevelItemCount(); ++i) {
        if (partitions->topLevelItem(i)->data(0, Qt::UserRole).toInt() == uid)
            partitions->setCurrentItem(partitions->topLevelItem(i));
    }
    QCOMPARE(chart->uid(), uid);
    chart->refresh();
    QVERIFY2(chart->memoryPoints() > 60, qPrintable(QString::number(chart->memoryPoints())));
    QVERIFY(chart->utilisationPoints() > 60);
}

#include "tst_mainwindow.moc"

// Each partition of the selected card has its history: the twin's partitions report how busy
// their jobs keep them and the memory they hold; the details list both and chart the selected
// partition over the last hours on labelled axes.
void TestMainWindow::detailsShowEachPartitionsHistory()
{
    Session::SimulationSession session(demoDay(), QString(), 20260105);
    session.runTo(0);
    Models::SessionClient client(&session);
    MainWindow w;
    w.setSession(&client, session.storePath());
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    Widgets::catchUp(session, 3 * 3600'000, nullptr);
    QTRY_VERIFY(client.snapshot()
                && client.snapshot()->nowMs >= client.snapshot()->startMs + 3 * 3600'000);
    // A card with at least two partitions held by jobs.
    const Session::Snapshot &snap = *client.snapshot();
    Domain::CardId card;
    QList<int> held;
    for (const Sched::CardState &c : snap.state.cards()) {
        QList<int> uids;
        for (const Sched::Unit &u : c.units) {
            if (u.job.isValid())
                uids << u.uid;
        }
        if (uids.size() >= 2) {
            card = c.id;
            held = uids;
            break;
        }
    }
    QVERIFY(card.isValid());
    const Session::CardSample &sample = snap.cards[card.value()];
    QCOMPARE(sample.units.size(), snap.state.card(card).units.size());
    w.selectCard(card);
    auto *chart = w.detailsView()->findChild<Widgets::PartitionChart *>(
            QStringLiteral("partitionChart"));
    QVERIFY(chart);
    // The first partition at work is chosen; its history has points on both axes.
    QCOMPARE(chart->card(), card);
    QVERIFY(held.contains(chart->uid()));
    chart->refresh();
    QVERIFY(chart->utilisationPoints() > 10);
    QVERIFY(chart->memoryPoints() > 10);
    QCOMPARE(chart->xAxis->label(), QStringLiteral("Local time"));
    QCOMPARE(chart->yAxis->label(), QStringLiteral("Utilisation (%)"));
    QCOMPARE(chart->yAxis2->label(), QStringLiteral("Memory in use (GiB)"));
    auto *partitions = w.detailsView()->findChild<QTreeWidget *>(QStringLiteral("partitionList"));
    QVERIFY(partitions);
    // The details follow the card's model, which follows the snapshots a few times a second.
    QTRY_COMPARE(partitions->topLevelItemCount(), int(snap.state.card(card).units.size()));
    QVERIFY(held.contains(chart->uid()));
    int busyShown = 0;
    for (int i = 0; i < partitions->topLevelItemCount(); ++i)
        busyShown += partitions->topLevelItem(i)->text(5).endsWith(QLatin1Char('%'));
    QCOMPARE(busyShown, partitions->topLevelItemCount());
    // Another partition clicked: its history instead.
    const int other = chart->uid() == held[0] ? held[1] : held[0];
    for (int i = 0; i < partitions->topLevelItemCount(); ++i) {
        if (partitions->topLevelItem(i)->data(0, Qt::UserRole).toInt() == other)
            partitions->setCurrentItem(partitions->topLevelItem(i));
    }
    QCOMPARE(chart->uid(), other);
    QCOMPARE(w.detailsView()->selectedPartition(), other);
    chart->refresh();
    QVERIFY(chart->memoryPoints() > 0);
}
