// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"
#include "overviewview.h"

#include "advise/advicepanel.h"
#include "carddetailsview.h"
#include "cardtimelineview.h"
#include "languagecontroller.h"
#include "settingsdialog.h"

#include "cardmap/cardmapview.h"
#include "cardmap/cardtile.h"
#include "cardmap/jobsview.h"
#include "cardmap/reasontext.h"
#include "charts/livecharts.h"
#include "charts/sparkchart.h"
#include "eventlog/eventlogview.h"
#include "eventlog/whyview.h"
#include "repartition/repartitioneditor.h"
#include "schedule/scheduleeditor.h"
#include "whatif/whatifdialog.h"

#include "core/models/cardsortmodel.h"
#include "core/models/cardtablemodel.h"
#include "core/models/serieshistory.h"
#include "core/models/seriesstore.h"
#include "core/models/sessionclient.h"
#include "core/sched/clusterstate.h"

#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QFileInfo>
#include <QLocale>
#include <QResizeEvent>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>
#include <QTimeZone>
#include <QToolBar>
#include <QUndoGroup>
#include <QUndoStack>
#include <QVBoxLayout>

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDockWidget>
#include <QEvent>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMenu>

#include <memory>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTableView>

#ifndef ZHAOXI_VERSION
#define ZHAOXI_VERSION "0"
#endif

namespace Zhaoxi::Widgets {

namespace {

// A view in a scroll area of its own: the tab it sits in may then be smaller than the view's
// minimum (a laptop's screen), and the view scrolls instead of widening the window.
QScrollArea *scrollable(QWidget *view, QWidget *parent)
{
    auto *area = new QScrollArea(parent);
    area->setObjectName(view->objectName() + QStringLiteral("Scroll"));
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    area->setWidget(view);
    return area;
}

// The tab that shows `view` (itself, or the scroll area around it); -1: none.
int tabOf(const QTabWidget *tabs, const QWidget *view)
{
    for (int i = 0; view && i < tabs->count(); ++i) {
        if (tabs->widget(i) == view || tabs->widget(i)->isAncestorOf(view))
            return i;
    }
    return -1;
}

} // namespace

using Models::CardTableModel;

MainWindow::MainWindow(LanguageController *languages, QWidget *parent)
    : QMainWindow(parent)
    , m_languages(languages)
    , m_cards(new CardTableModel(this))
    , m_sorted(new Models::CardSortModel(this))
    , m_cardView(new QTableView(this))
    , m_details(new CardDetailsView(this))
    , m_detailsDock(new QDockWidget(this))
    , m_summary(new QLabel(this))
{
    m_sorted->setSourceModel(m_cards);

    m_cardView->setObjectName(QStringLiteral("cardView"));
    m_cardView->setModel(m_sorted);
    m_cardView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_cardView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_cardView->setAlternatingRowColors(true);
    m_cardView->setWordWrap(false);
    m_cardView->setSortingEnabled(true);
    m_cardView->sortByColumn(CardTableModel::HostColumn, Qt::AscendingOrder);
    m_cardView->verticalHeader()->hide();
    m_cardView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_cardView->horizontalHeader()->setSectionResizeMode(CardTableModel::LayoutColumn,
                                                         QHeaderView::Stretch);
    m_cardView->horizontalHeader()->setHighlightSections(false);

    // The banner says when the appliance is read-only (and why) above everything else.
    m_banner = new QLabel(this);
    m_banner->setObjectName(QStringLiteral("readOnlyBanner"));
    m_banner->setWordWrap(true);
    m_banner->setStyleSheet(QStringLiteral(
            "QLabel { background: #fff4ce; color: #4a3b00; border-bottom: 1px solid #d9b600;"
            " padding: 6px; }"));
    m_banner->hide();
    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("mainTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_cardView, QString());
    m_centralArea = new QWidget(this);
    auto *centralLayout = new QVBoxLayout(m_centralArea);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->setSpacing(0);
    centralLayout->addWidget(m_banner);
    centralLayout->addWidget(m_tabs, 1);
    setCentralWidget(m_centralArea);

    m_details->setObjectName(QStringLiteral("cardDetails"));
    m_detailsDock->setObjectName(QStringLiteral("cardDetailsDock"));
    m_sideTabs = new QTabWidget(this);
    m_sideTabs->setObjectName(QStringLiteral("sideTabs"));
    m_sideTabs->setDocumentMode(true);
    m_sideTabs->addTab(m_details, QString());
    m_detailsDock->setWidget(m_sideTabs);
    m_detailsDock->setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable);
    addDockWidget(Qt::BottomDockWidgetArea, m_detailsDock);
    // The card table is the main view; the details pane gets what a MIG card's list needs.
    resizeDocks({m_detailsDock}, {240}, Qt::Vertical);

    m_summary->setObjectName(QStringLiteral("statusSummary"));
    statusBar()->addWidget(m_summary, 1);

    connect(m_cardView->selectionModel(),
            &QItemSelectionModel::currentRowChanged,
            this,
            &MainWindow::showCurrentCard);
    connect(m_cards, &CardTableModel::summaryChanged, this, &MainWindow::updateSummary);

    m_settings = ConsoleSettings::load(QSettings());
    createActions();
    createRunBar();
    createMenus();
    if (m_languages) {
        connect(m_languages,
                &LanguageController::languageChanged,
                this,
                &MainWindow::updateLanguageActions);
    }
    retranslateUi();
    resize(1280, 800);
}

MainWindow::~MainWindow() = default;

void MainWindow::createActions()
{
    m_newWorkloadAction = new QAction(this);
    m_newWorkloadAction->setObjectName(QStringLiteral("newWorkload"));
    m_newWorkloadAction->setShortcut(QKeySequence::New);
    m_newWorkloadAction->setEnabled(false); // until a session is set
    connect(m_newWorkloadAction, &QAction::triggered, this, [this] {
        if (m_jobs)
            m_jobs->newWorkload();
    });

    m_quitAction = new QAction(this);
    m_quitAction->setShortcut(QKeySequence::Quit);
    m_quitAction->setMenuRole(QAction::QuitRole);
    connect(m_quitAction, &QAction::triggered, this, &QWidget::close);

    m_statusBarAction = new QAction(this);
    m_statusBarAction->setCheckable(true);
    m_statusBarAction->setChecked(true);
    connect(m_statusBarAction, &QAction::toggled, statusBar(), &QWidget::setVisible);

    m_sortByHostAction = new QAction(this);
    connect(m_sortByHostAction, &QAction::triggered, this, [this] {
        m_cardView->sortByColumn(CardTableModel::HostColumn, Qt::AscendingOrder);
    });

    m_aboutAction = new QAction(this);
    m_aboutAction->setMenuRole(QAction::AboutRole);
    connect(m_aboutAction, &QAction::triggered, this, &MainWindow::about);
    m_aboutQtAction = new QAction(this);
    m_aboutQtAction->setMenuRole(QAction::AboutQtRole);
    connect(m_aboutQtAction, &QAction::triggered, qApp, &QApplication::aboutQt);

    if (m_languages) {
        m_languageGroup = new QActionGroup(this);
        m_languageGroup->setExclusive(true);
        for (const QString &code : LanguageController::languages()) {
            // Each language is listed by its own name, so it is not translated.
            auto *action = new QAction(LanguageController::nativeName(code), m_languageGroup);
            action->setCheckable(true);
            action->setData(code);
            action->setObjectName(QStringLiteral("language_") + code);
            connect(action, &QAction::triggered, this, [this, code] {
                if (!m_languages->setLanguage(code))
                    updateLanguageActions();
            });
        }
        updateLanguageActions();
    }
}

void MainWindow::createRunBar()
{
    m_runBar = addToolBar(QString());
    m_runBar->setObjectName(QStringLiteral("runBar"));
    m_runBar->setMovable(false);
    m_playAction = m_runBar->addAction(QString());
    m_playAction->setObjectName(QStringLiteral("playPause"));
    m_playAction->setCheckable(true);
    m_playAction->setShortcut(Qt::Key_Space);
    // The window carries it too: Space pauses from any view, also with the run bar hidden.
    addAction(m_playAction);
    connect(m_playAction, &QAction::triggered, this, [this](bool running) {
        if (m_client)
            m_client->setPaused(!running);
    });
    m_restartAction = m_runBar->addAction(QString());
    m_restartAction->setObjectName(QStringLiteral("restartDay"));
    connect(m_restartAction, &QAction::triggered, this, [this] {
        if (!m_client)
            return;
        const bool go = m_confirmRestart
                                ? m_confirmRestart()
                                : QMessageBox::question(this,
                                                        tr("Restart the day?"),
                                                        tr("The simulated day starts again from "
                                                           "its beginning: what was done to it "
                                                           "(placements, layouts, schedules) is "
                                                           "undone. The event store keeps what "
                                                           "happened so far."),
                                                        QMessageBox::Yes | QMessageBox::Cancel,
                                                        QMessageBox::Cancel)
                                          == QMessageBox::Yes;
        if (go)
            m_client->restartDay();
    });
    m_speedLabel = new QLabel(this);
    m_speedLabelAction = m_runBar->addWidget(m_speedLabel);
    m_speedCombo = new QComboBox(this);
    m_speedCombo->setObjectName(QStringLiteral("speed"));
    for (double s : consoleSpeeds())
        m_speedCombo->addItem(speedName(s), s);
    connect(m_speedCombo, &QComboBox::activated, this, [this](int index) {
        ConsoleSettings s = m_settings;
        s.speed = m_speedCombo->itemData(index).toDouble();
        applySettings(s);
    });
    m_speedAction = m_runBar->addWidget(m_speedCombo);
    m_runBar->addSeparator();
    m_clock = new QLabel(this);
    m_clock->setObjectName(QStringLiteral("clock"));
    m_runBar->addWidget(m_clock);

    m_settingsAction = new QAction(this);
    m_settingsAction->setObjectName(QStringLiteral("settings"));
    m_settingsAction->setMenuRole(QAction::PreferencesRole);
    m_settingsAction->setShortcut(QKeySequence::Preferences);
    connect(m_settingsAction, &QAction::triggered, this, &MainWindow::editSettings);
}

void MainWindow::createMenus()
{
    m_fileMenu = menuBar()->addMenu(QString());
    m_fileMenu->addAction(m_newWorkloadAction);
    m_fileMenu->addSeparator();
    m_fileMenu->addAction(m_settingsAction);
    m_fileMenu->addSeparator();
    m_fileMenu->addAction(m_quitAction);

    m_viewMenu = menuBar()->addMenu(QString());
    m_viewMenu->addAction(m_detailsDock->toggleViewAction());
    m_viewMenu->addAction(m_statusBarAction);
    m_viewMenu->addSeparator();
    m_viewMenu->addAction(m_sortByHostAction);

    if (m_languageGroup) {
        m_languageMenu = menuBar()->addMenu(QString());
        m_languageMenu->addActions(m_languageGroup->actions());
    }

    m_helpMenu = menuBar()->addMenu(QString());
    m_helpMenu->addAction(m_aboutAction);
    m_helpMenu->addAction(m_aboutQtAction);
}

void MainWindow::retranslateUi()
{
    setWindowTitle(m_applianceName.isEmpty() ? tr("Zhaoxi")
                                             : tr("%1 \u2014 Zhaoxi").arg(m_applianceName));
    m_fileMenu->setTitle(tr("&File"));
    m_newWorkloadAction->setText(tr("&New Workload…"));
    m_newWorkloadAction->setToolTip(tr("Submit a workload from a form or a spec file"));
    m_quitAction->setText(tr("&Quit"));
    m_viewMenu->setTitle(tr("&View"));
    m_detailsDock->setWindowTitle(tr("Details"));
    m_detailsDock->toggleViewAction()->setText(tr("Card &Details"));
    m_statusBarAction->setText(tr("&Status Bar"));
    m_sortByHostAction->setText(tr("Sort by &Host"));
    updateWhatIfAvailability();
    if (m_languageMenu)
        m_languageMenu->setTitle(tr("&Language"));
    m_helpMenu->setTitle(tr("&Help"));
    m_aboutAction->setText(tr("&About Zhaoxi"));
    m_aboutQtAction->setText(tr("About &Qt"));
    m_settingsAction->setText(tr("&Settings…"));
    m_runBar->setWindowTitle(tr("Run"));
    m_tabs->setTabText(m_tabs->indexOf(m_cardView), tr("Card table"));
    m_sideTabs->setTabText(0, tr("Details"));
    if (m_cardMap) {
        m_tabs->setTabText(tabOf(m_tabs, m_overview), tr("Overview"));
        m_tabs->setTabText(tabOf(m_tabs, m_charts), tr("Charts"));
        m_tabs->setTabText(tabOf(m_tabs, m_eventLog), tr("Events"));
        m_tabs->setTabText(tabOf(m_tabs, m_schedule), tr("Schedule"));
        m_tabs->setTabText(tabOf(m_tabs, m_advice), tr("Advice"));
        m_sideTabs->setTabText(tabOf(m_sideTabs, m_why), tr("Why?"));
        m_sideTabs->setTabText(tabOf(m_sideTabs, m_repartition), tr("Repartition"));
        m_jobsDock->setWindowTitle(tr("Jobs"));
        m_jobsDock->toggleViewAction()->setText(tr("&Jobs"));
        m_editMenu->setTitle(tr("&Edit"));
        m_undoAction->setText(tr("&Undo"));
        m_redoAction->setText(tr("&Redo"));
    }
    m_speedLabel->setText(tr(" Speed: "));
    m_restartAction->setText(tr("Restart day"));
    m_restartAction->setToolTip(tr("Start the simulated day again from its beginning"));
    for (int i = 0; i < m_speedCombo->count(); ++i)
        m_speedCombo->setItemText(i, speedName(m_speedCombo->itemData(i).toDouble()));
    updateRunBar();
    m_cards->retranslate();
    updateSummary();
}

void MainWindow::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange) {
        retranslateUi();
        // After every view has taken its new words (each gets its own LanguageChange).
        QMetaObject::invokeMethod(this, &MainWindow::refitLayouts, Qt::QueuedConnection);
    }
    QMainWindow::changeEvent(event);
}

void MainWindow::refitLayouts()
{
    // The new language's texts have other widths. A page that was hidden when its texts changed
    // keeps its layout's old sizes (Qt does not recompute a hidden widget's geometry by itself),
    // so it would show its words cut off: every layout is asked again.
    for (QLayout *l : findChildren<QLayout *>())
        l->invalidate();
    for (QWidget *w : findChildren<QWidget *>())
        w->updateGeometry();
    // A column the operator may size (Interactive) is widened to its title where the title
    // needs more; the last, stretched column follows the view anyway.
    for (QHeaderView *h : findChildren<QHeaderView *>()) {
        if (h->orientation() != Qt::Horizontal)
            continue;
        for (int i = 0; i < h->count(); ++i) {
            if (h->isSectionHidden(i) || h->sectionResizeMode(i) != QHeaderView::Interactive
                || (h->stretchLastSection() && h->visualIndex(i) == h->count() - 1))
                continue;
            if (const int need = h->sectionSizeHint(i); h->sectionSize(i) < need)
                h->resizeSection(i, need);
        }
    }
}

void MainWindow::setAppliance(const QString &name, const Sched::ClusterState &state)
{
    m_applianceName = name;
    m_cards->setState(state);
    if (!m_cardView->currentIndex().isValid() && m_sorted->rowCount() > 0)
        m_cardView->selectRow(0);
    retranslateUi();
}

void MainWindow::setSession(Models::SessionClient *client, const QString &storePath)
{
    m_client = client;
    m_storePath = storePath;
    createViews();
    // Once the views have their first texts: no column starts narrower than its title.
    QMetaObject::invokeMethod(this, &MainWindow::refitLayouts, Qt::QueuedConnection);
    connect(client, &Models::SessionClient::snapshotChanged, this, &MainWindow::onSnapshot);
    if (client->snapshot())
        onSnapshot(client->snapshot());
    // Start with the first card chosen, so the details pane and its mini-charts show something.
    if (client->snapshot() && !client->snapshot()->state.cards().isEmpty()) {
        m_cardMap->select(Domain::CardId(0));
        showCard(Domain::CardId(0));
    }
    retranslateUi();
    loadHistory();
}

void MainWindow::setStorePath(const QString &storePath)
{
    m_storePath = storePath;
    if (m_eventLog)
        m_eventLog->setStorePath(storePath);
    if (m_advice)
        m_advice->setStorePath(storePath);
    updateWhatIfAvailability();
    loadHistory();
}

// "What if?" replays what the store recorded, so it needs a store this console can read: the
// embedded session's, or a service's where this user may read it.
void MainWindow::updateWhatIfAvailability()
{
    if (!m_overview)
        return;
    if (m_storePath.isEmpty())
        m_overview->setWhatIfAvailable(
                false,
                tr("What if? replays what the appliance's store recorded, and this console has "
                   "no store to read"));
    else if (!QFileInfo(m_storePath).isReadable())
        m_overview->setWhatIfAvailable(
                false,
                tr("What if? replays what the appliance's store recorded, and this console "
                   "may not read %1")
                        .arg(m_storePath));
    else
        m_overview->setWhatIfAvailable(true);
}

void MainWindow::openWhatIf(qint64 fromMs, qint64 toMs)
{
    auto *dialog = new WhatIfDialog(
            m_storePath, fromMs, toMs, m_snapshot ? m_snapshot->utcOffsetSeconds : 0, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show(); // not modal: the appliance runs on while the policies replay
}

void MainWindow::mergeHistory(const QList<Models::HistorySeries> &history)
{
    if (m_series)
        m_series->mergeHistory(history);
}

void MainWindow::loadHistory()
{
    if (!m_series || m_storePath.isEmpty())
        return;
    if (!m_history) {
        m_history = new Models::SeriesHistoryLoader(this);
        connect(m_history,
                &Models::SeriesHistoryLoader::loaded,
                this,
                [this](const QList<Models::HistorySeries> &history, const QString &error) {
                    if (!error.isEmpty()) // e.g. a service's store this user may not read
                        qInfo("zhaoxi: the charts start without the store's history: %s",
                              qPrintable(error));
                    m_series->mergeHistory(history);
                });
    }
    // The charts' horizon before the appliance's present (the wall clock before the first
    // snapshot); a whole card's one unit is drawn from the card's series.
    const Session::SnapshotPtr snap = m_client ? m_client->snapshot() : nullptr;
    const qint64 now = snap ? snap->nowMs : QDateTime::currentMSecsSinceEpoch();
    const QHash<int, int> wholeUnits = snap ? Models::wholeUnitsOf(snap->state) : QHash<int, int>{};
    m_history->load(
            m_storePath, now - qint64(m_series->horizonSeconds() * 1000.0), now, wholeUnits);
}

// The console proper: the card map over the tabs (charts, events, schedule, card table), the
// jobs on the left, details / why / repartition on the right. Every view talks to the session
// client only; selection is wired here.
void MainWindow::createViews()
{
    if (m_cardMap)
        return;
    m_placementUndo = new QUndoStack(this);
    m_cardMap = new CardMapView(m_client, this);
    m_cardMap->setObjectName(QStringLiteral("cardMap"));
    m_cardMap->setUndoStack(m_placementUndo);
    m_cardMap->setMinimumHeight(260);
    m_series = new Models::SeriesStore(this); // shared by the charts and the mini-charts
    m_series->follow(m_client);
    m_charts = new LiveCharts(m_client, m_series, this);
    m_charts->setObjectName(QStringLiteral("charts"));
    m_eventLog = new EventLogView(m_client, this);
    m_eventLog->setObjectName(QStringLiteral("eventLog"));
    m_eventLog->setStorePath(m_storePath);
    m_schedule = new ScheduleEditor(m_client, this);
    m_schedule->setObjectName(QStringLiteral("scheduleEditor"));
    m_why = new WhyView(m_client, this);
    m_why->setObjectName(QStringLiteral("whyView"));
    m_repartition = new RepartitionEditor(m_client, this);
    m_repartition->setObjectName(QStringLiteral("repartitionEditor"));
    m_jobs = new JobsView(m_client, this);
    m_jobs->setObjectName(QStringLiteral("jobsView"));

    // Card map above, the tabs below.
    auto *split = new QSplitter(Qt::Vertical, this);
    split->setObjectName(QStringLiteral("mainSplit"));
    split->addWidget(m_cardMap);
    split->addWidget(m_tabs);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({480, 320});
    m_centralArea->layout()->addWidget(split);
    m_overview = new OverviewView(m_client, this);
    // A moment clicked on the overview's chart: the charts and the event log go there.
    connect(m_overview, &OverviewView::momentClicked, this, [this](qint64 atMs) {
        const double t = double(atMs) / 1000.0;
        m_charts->setTimeRange(t - 15 * 60, t + 15 * 60);
        m_eventLog->showMoment(atMs);
        m_tabs->setCurrentIndex(tabOf(m_tabs, m_eventLog));
        const QDateTime local = QDateTime::fromMSecsSinceEpoch(
                atMs, QTimeZone(m_snapshot ? m_snapshot->utcOffsetSeconds : 0));
        statusBar()->showMessage(tr("The charts and the event log show %1.")
                                         .arg(local.toString(QStringLiteral("HH:mm"))),
                                 8000);
    });
    // A period dragged on it: "What if?" replays it from the store under every policy.
    connect(m_overview, &OverviewView::whatIfRequested, this, &MainWindow::openWhatIf);
    updateWhatIfAvailability();
    m_tabs->insertTab(0, scrollable(m_overview, this), QString());
    m_tabs->insertTab(1, m_charts, QString());
    m_tabs->insertTab(2, scrollable(m_eventLog, this), QString());
    m_tabs->insertTab(3, scrollable(m_schedule, this), QString());
    // Advice: suggestions proven by replaying the recorded days; a schedule change goes through
    // the schedule editor's preview and confirmation (and the console's audit).
    m_advice = new AdvicePanel(this);
    m_advice->setObjectName(QStringLiteral("advicePanel"));
    m_advice->setStorePath(m_storePath);
    m_tabs->insertTab(4, scrollable(m_advice, this), QString());
    connect(m_advice,
            &AdvicePanel::applyScheduleRequested,
            this,
            [this](const QJsonObject &windowsParams, const QJsonObject &) {
                m_tabs->setCurrentIndex(tabOf(m_tabs, m_schedule));
                if (m_schedule->setSchedule(windowsParams)) // refused: its status line says why
                    m_schedule->apply();
            });
    m_tabs->setCurrentIndex(0);

    // Details with the card's mini-charts, Why?, Repartition.
    auto *details = new QWidget(this);
    auto *dl = new QVBoxLayout(details);
    dl->setContentsMargins(0, 0, 0, 0);
    m_sideTabs->removeTab(m_sideTabs->indexOf(m_details));
    dl->addWidget(m_details, 1);
    m_details->show(); // the tab widget hid it as a page that was not current
    m_sparkUtil = new SparkChart(m_series, details);
    m_sparkUtil->setObjectName(QStringLiteral("sparkUtil"));
    m_sparkPower = new SparkChart(m_series, details);
    m_sparkPower->setObjectName(QStringLiteral("sparkPower"));
    dl->addWidget(m_sparkUtil);
    dl->addWidget(m_sparkPower);
    m_details->setSeriesStore(m_series);
    m_timelineView = new CardTimelineView(&m_timeline, details);
    dl->addWidget(m_timelineView);
    details->setObjectName(QStringLiteral("detailsPage"));
    m_sideTabs->insertTab(0, scrollable(details, this), QString());
    m_sideTabs->addTab(scrollable(m_why, this), QString());
    m_sideTabs->addTab(scrollable(m_repartition, this), QString());
    removeDockWidget(m_detailsDock);
    addDockWidget(Qt::RightDockWidgetArea, m_detailsDock);
    m_detailsDock->show();
    resizeDocks({m_detailsDock}, {420}, Qt::Horizontal);

    m_jobsDock = new QDockWidget(this);
    m_jobsDock->setObjectName(QStringLiteral("jobsDock"));
    m_jobsDock->setWidget(m_jobs);
    m_jobsDock->setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable);
    addDockWidget(Qt::LeftDockWidgetArea, m_jobsDock);
    resizeDocks({m_jobsDock}, {340}, Qt::Horizontal);
    m_viewMenu->insertAction(m_statusBarAction, m_jobsDock->toggleViewAction());
    m_viewMenu->addSeparator();
    for (QAction *zoom :
         {m_cardMap->zoomInAction(), m_cardMap->zoomOutAction(), m_cardMap->fitAction()}) {
        if (zoom)
            m_viewMenu->addAction(zoom);
    }

    // One Edit menu for the placements' and the repartition editor's undo stacks: the active
    // one follows where the operator works.
    m_undoGroup = new QUndoGroup(this);
    m_undoGroup->addStack(m_placementUndo);
    m_undoGroup->addStack(m_repartition->undoStack());
    m_undoGroup->addStack(m_schedule->undoStack());
    m_undoGroup->setActiveStack(m_placementUndo);
    m_undoAction = m_undoGroup->createUndoAction(this);
    m_undoAction->setShortcut(QKeySequence::Undo);
    m_redoAction = m_undoGroup->createRedoAction(this);
    m_redoAction->setShortcut(QKeySequence::Redo);
    m_editMenu = new QMenu(this);
    m_editMenu->addAction(m_undoAction);
    m_editMenu->addAction(m_redoAction);
    menuBar()->insertMenu(m_viewMenu->menuAction(), m_editMenu);
    connect(qApp, &QApplication::focusChanged, this, [this](QWidget *, QWidget *now) {
        for (QWidget *w = now; w; w = w->parentWidget()) {
            if (w == m_repartition)
                return m_undoGroup->setActiveStack(m_repartition->undoStack());
            if (w == m_schedule)
                return m_undoGroup->setActiveStack(m_schedule->undoStack());
            if (w == m_cardMap || w == m_jobs)
                return m_undoGroup->setActiveStack(m_placementUndo);
        }
    });

    connect(m_cardMap, &CardMapView::cardSelected, this, &MainWindow::showCard);
    connect(m_cardMap, &CardMapView::partitionSelected, this, [this](Domain::CardId card, int) {
        showCard(card);
    });
    connect(m_cardMap, &CardMapView::jobSelected, this, &MainWindow::showJob);
    connect(m_cardMap,
            &CardMapView::jobMenuRequested,
            this,
            [this](Domain::JobId job, const QPoint &at) {
                const std::unique_ptr<QMenu> menu(m_jobs->createContextMenu(job, this));
                menu->exec(at);
            });
    connect(m_cardMap, &CardMapView::repartitionRequested, this, [this](Domain::CardId card) {
        showCard(card);
        m_sideTabs->setCurrentIndex(tabOf(m_sideTabs, m_repartition));
    });
    connect(m_cardMap,
            &CardMapView::layoutProposed,
            this,
            [this](Domain::CardId card, const QList<Domain::MigPlacement> &layout) {
                showCard(card);
                m_sideTabs->setCurrentIndex(tabOf(m_sideTabs, m_repartition));
                m_repartition->proposeLayout(layout, tr("the layout the drop proposed"));
            });
    connect(m_cardMap, &CardMapView::statusMessage, this, [this](const QString &text) {
        statusBar()->showMessage(text, 6000);
    });
    connect(m_jobs, &JobsView::jobSelected, this, &MainWindow::showJob);
    connect(m_jobs, &JobsView::statusMessage, this, [this](const QString &text) {
        statusBar()->showMessage(text, 6000);
    });
    m_newWorkloadAction->setEnabled(true);
    connect(m_jobs, &JobsView::jobSelected, m_cardMap, &CardMapView::selectJob);
    connect(m_eventLog, &EventLogView::jobSelected, this, &MainWindow::showJob);
    connect(m_repartition, &RepartitionEditor::layoutApplied, this, [this](Domain::CardId card) {
        statusBar()->showMessage(tr("New layout applied to card %1.").arg(card.value()), 6000);
    });

    QSettings q;
    m_eventLog->setFilterState(q.value(QStringLiteral("eventlog/filter")).toMap());
    applyThresholds();
    connect(this, &MainWindow::settingsApplied, this, &MainWindow::applyThresholds);
    restoreGeometry(q.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(q.value(QStringLiteral("window/state")).toByteArray());
}

void MainWindow::resizeEvent(QResizeEvent *event)
{
    QMainWindow::resizeEvent(event);
    foldDocks(width() < kFoldDocksBelowPx);
}

void MainWindow::foldDocks(bool fold)
{
    if (!m_jobsDock || !m_detailsDock || fold == m_docksFolded)
        return;
    m_docksFolded = fold;
    if (fold) {
        // One column: the jobs in front (the drags start there), details a tab away.
        tabifyDockWidget(m_detailsDock, m_jobsDock);
        m_jobsDock->raise();
        return;
    }
    const bool shown = m_jobsDock->isVisible();
    removeDockWidget(m_jobsDock);
    addDockWidget(Qt::LeftDockWidgetArea, m_jobsDock);
    m_jobsDock->setVisible(shown);
    resizeDocks({m_jobsDock, m_detailsDock}, {340, 420}, Qt::Horizontal);
}

void MainWindow::applyThresholds()
{
    if (!m_cardMap)
        return;
    CardMapThresholds t;
    t.temperatureAmberC = m_settings.tempAmberC;
    t.temperatureRedC = m_settings.tempRedC;
    t.powerAmber = m_settings.powerAmberPct / 100.0;
    t.powerRed = m_settings.powerRedPct / 100.0;
    m_cardMap->setThresholds(t);
}

void MainWindow::showCard(Domain::CardId card)
{
    selectCard(card);
    if (m_repartition)
        m_repartition->setCard(card);
    if (m_charts)
        m_charts->setCard(card);
    if (m_sparkUtil) {
        m_sparkUtil->setSeries(QStringLiteral("card/%1/util").arg(card.value()));
        m_sparkPower->setSeries(QStringLiteral("card/%1/power").arg(card.value()));
    }
}

void MainWindow::showJob(Domain::JobId job)
{
    if (!m_why || !job.isValid())
        return;
    m_why->setJob(job);
    m_sideTabs->setCurrentIndex(tabOf(m_sideTabs, m_why));
}

void MainWindow::setSchedule(const QJsonObject &windowsParams, const QList<double> &forecastPerHour)
{
    if (!m_schedule)
        return;
    if (!windowsParams.isEmpty())
        m_schedule->setSchedule(windowsParams);
    m_schedule->setForecast(forecastPerHour);
}

void MainWindow::onSnapshot(const Session::SnapshotPtr &snapshot)
{
    if (!snapshot)
        return;
    m_snapshot = snapshot;
    const bool named = m_applianceName == snapshot->applianceName;
    m_applianceName = snapshot->applianceName;
    m_cards->setState(snapshot->state);
    m_cards->setReadings(snapshot->cards);
    m_timeline.observe(snapshot->state, snapshot->nowMs);
    if (m_timelineView) {
        m_timelineView->setUtcOffset(snapshot->utcOffsetSeconds);
        m_timelineView->timelineGrew();
    }
    if (!m_cardView->currentIndex().isValid() && m_sorted->rowCount() > 0)
        m_cardView->selectRow(0);
    else
        showCurrentCard();
    if (!named)
        retranslateUi();
    updateRunBar();
    updateSummary();
}

// A policy's name in words ("forecast" → "forecast-driven"); an unknown one as it is.
QString MainWindow::clockText() const
{
    if (!m_snapshot)
        return {};
    const Session::Snapshot &s = *m_snapshot;
    const QDateTime local = QDateTime::fromMSecsSinceEpoch(s.nowMs, QTimeZone(s.utcOffsetSeconds));
    QString text = QLocale().toString(local, QStringLiteral("ddd HH:mm"));
    if (!s.window.isEmpty())
        text += QStringLiteral(" \u00b7 ") + tr("window %1").arg(windowNameText(s.window));
    if (!s.policy.isEmpty())
        text += QStringLiteral(" \u00b7 ") + tr("policy: %1").arg(policyNameText(s.policy));
    if (s.finished)
        text += QStringLiteral(" \u00b7 ") + tr("the day is over");
    else if (s.paused)
        text += QStringLiteral(" \u00b7 ") + tr("paused");
    // Not the twin's clock: this machine's cards (open-ended), or a scenario's simulated cards
    // with every workload a real process (the service's --scenario).
    if (!s.externalScheduler.isEmpty())
        text += QStringLiteral(" \u00b7 ") + tr("fleet: %1").arg(s.applianceName);
    else if (!s.simulated)
        text += QStringLiteral(" \u00b7 ")
                + (s.endMs < 0 ? tr("real hardware") : tr("simulated cards, real processes"));
    if (!s.servicePath.isEmpty())
        text += QStringLiteral(" \u00b7 ") + tr("service %1").arg(s.servicePath);
    return text;
}

QString MainWindow::bannerText() const
{
    return m_banner->isVisible() || !m_banner->isHidden() ? m_banner->text() : QString();
}

void MainWindow::updateRunBar()
{
    const bool have = m_snapshot != nullptr;
    // Attached to a service, the clock is the service's: nothing here runs or pauses it.
    const bool attached = have && !m_snapshot->servicePath.isEmpty();
    const bool simulated = have && m_snapshot->simulated && !attached;
    m_playAction->setEnabled(have && !m_snapshot->finished && !attached);
    m_playAction->setChecked(have && !m_snapshot->paused && !m_snapshot->finished);
    m_playAction->setText(m_playAction->isChecked() ? tr("Pause") : tr("Run"));
    m_playAction->setToolTip(m_playAction->isChecked() ? tr("Pause the appliance's clock (Space)")
                                                       : tr("Run the appliance's clock (Space)"));
    m_speedCombo->setEnabled(simulated);
    m_restartAction->setVisible(!have || (simulated && m_snapshot->endMs >= 0));
    m_restartAction->setEnabled(simulated);
    // A widget in a tool bar is shown and hidden through its action.
    m_speedAction->setVisible(!have || simulated);
    m_speedLabelAction->setVisible(!have || simulated);
    // The speed the appliance runs at (`--speed 45` shows 45×), a preset or not.
    const double speed = simulated ? m_snapshot->speed : m_settings.speed;
    const double key = speed <= 0 ? -1.0 : speed;
    int at = m_speedCombo->findData(key);
    if (at < 0) {
        at = 0;
        while (at < m_speedCombo->count() && m_speedCombo->itemData(at).toDouble() > 0
               && m_speedCombo->itemData(at).toDouble() < key)
            ++at;
        m_speedCombo->insertItem(at, speedName(key), key);
    }
    m_speedCombo->setCurrentIndex(at);
    m_clock->setText(clockText());
    const bool readOnly = have && m_snapshot->readOnly;
    m_banner->setText(readOnly ? readOnlyText(m_snapshot->readOnlyProblem) : QString());
    m_banner->setHidden(!readOnly);
}

void MainWindow::applySettings(const ConsoleSettings &settings)
{
    const ConsoleSettings old = m_settings;
    m_settings = settings;
    QSettings q;
    settings.save(q);
    if (m_client) {
        if (old.speed != settings.speed || !m_snapshot || m_snapshot->speed != settings.speed)
            m_client->setSpeed(settings.speed);
        if (old.pollIntervalMs != settings.pollIntervalMs)
            m_client->setPollIntervalMs(settings.pollIntervalMs);
        // Every time, as a hardware session retries re-opening its backend when that failed.
        m_client->setAllowChanges(settings.allowHardwareChanges);
    }
    if (m_languages && !settings.language.isEmpty() && settings.language != m_languages->language())
        m_languages->setLanguage(settings.language);
    Q_EMIT settingsApplied(m_settings);
    updateRunBar();
}

void MainWindow::editSettings()
{
    SettingsDialog dialog(m_settings, this);
    if (dialog.exec() == QDialog::Accepted)
        applySettings(dialog.settings());
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    QSettings q;
    if (m_eventLog)
        q.setValue(QStringLiteral("eventlog/filter"), m_eventLog->filterState());
    q.setValue(QStringLiteral("window/geometry"), saveGeometry());
    q.setValue(QStringLiteral("window/state"), saveState());
    QMainWindow::closeEvent(event);
}

void MainWindow::selectCard(Domain::CardId card)
{
    const int row = m_cards->rowOf(card);
    if (row < 0)
        return;
    const QModelIndex index = m_sorted->mapFromSource(m_cards->index(row, 0));
    m_cardView->selectRow(index.row());
    m_cardView->scrollTo(index);
}

QStringList MainWindow::cardsNeedingAttention() const
{
    QStringList out;
    if (!m_snapshot)
        return out;
    const CardMapThresholds t = m_cardMap ? m_cardMap->thresholds() : CardMapThresholds();
    const Sched::ClusterState &st = m_snapshot->state;
    for (const Sched::CardState &c : st.cards()) {
        const CardTile::Data d = CardTile::makeData(*m_snapshot, c);
        const CardTile::Level level = CardTile::attentionLevel(d, t);
        if (level != CardTile::Level::Amber && level != CardTile::Level::Red)
            continue;
        const CardTile::Attention a = CardTile::attention(d, t); // the words, for these only
        out << tr("%1 GPU %2: %3")
                        .arg(st.host(c.host).name)
                        .arg(c.indexOnHost)
                        .arg(a.reasons.join(tr("; ")));
    }
    return out;
}

QString MainWindow::summaryText() const
{
    return summaryText(cardsNeedingAttention());
}

QString MainWindow::summaryText(const QStringList &attention) const
{
    QString text = tr("%n host(s)", nullptr, m_cards->hostCount()) + QStringLiteral(" \u00b7 ")
                   + tr("%n card(s)", nullptr, m_cards->cardCount()) + QStringLiteral(" \u00b7 ")
                   + tr("%n partition(s)", nullptr, m_cards->partitionCount());
    // One line for the cards that need the administrator, not a chip per reading.
    if (!attention.isEmpty())
        text += QStringLiteral(" \u00b7 ")
                + tr("%n card(s) need attention", nullptr, int(attention.size()));
    return text;
}

void MainWindow::updateSummary()
{
    const QStringList attention = cardsNeedingAttention();
    m_summary->setText(summaryText(attention));
    m_summary->setToolTip(attention.join(QLatin1Char('\n')));
}

void MainWindow::updateLanguageActions()
{
    if (!m_languageGroup)
        return;
    for (QAction *action : m_languageGroup->actions())
        action->setChecked(action->data().toString() == m_languages->language());
}

void MainWindow::showCurrentCard()
{
    const QModelIndex card = m_sorted->mapToSource(m_cardView->currentIndex());
    m_details->setCard(card);
    if (m_timelineView)
        m_timelineView->setCard(
                card.isValid() ? Domain::CardId(card.data(CardTableModel::CardIdRole).toInt())
                               : Domain::CardId());
}

QString MainWindow::aboutText() const
{
    return tr("<h3>Zhaoxi %1</h3>"
              "<p>The admin console of a GPU appliance that serves inference by day and trains "
              "models by night.</p>"
              "<p>This program is free software: you can redistribute it and/or modify it under "
              "the terms of the GNU General Public License as published by the Free Software "
              "Foundation, either version 3 of the License, or (at your option) any later "
              "version (GPL-3.0-or-later).</p>"
              "<p>It is distributed in the hope that it will be useful, but WITHOUT ANY "
              "WARRANTY; see the GNU General Public License for details.</p>")
            .arg(QStringLiteral(ZHAOXI_VERSION));
}

void MainWindow::about()
{
    QMessageBox::about(this, tr("About Zhaoxi"), aboutText());
}

} // namespace Zhaoxi::Widgets
