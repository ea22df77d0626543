// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "consolesettings.h"

#include "core/domain/ids.h"
#include "core/models/cardtimeline.h"
#include "core/session/snapshot.h"

#include <QJsonObject>
#include <QMainWindow>

#include <functional>

class QAction;
class QActionGroup;
class QComboBox;
class QDockWidget;
class QLabel;
class QMenu;
class QUndoStack;
class QTabWidget;
class QTableView;
class QToolBar;
class QUndoGroup;

namespace Zhaoxi::Sched {
class ClusterState;
}

namespace Zhaoxi::Models {
class CardSortModel;
class CardTableModel;
class SessionClient;
} // namespace Zhaoxi::Models

namespace Zhaoxi::Models {
struct HistorySeries;
class SeriesHistoryLoader;
class SeriesStore;
} // namespace Zhaoxi::Models

namespace Zhaoxi::Widgets {

class AdvicePanel;
class CardDetailsView;
class CardTimelineView;
class CardMapView;
class EventLogView;
class JobsView;
class LanguageController;
class LiveCharts;
class OverviewView;
class RepartitionEditor;
class ScheduleEditor;
class SparkChart;
class WhyView;

// The console's main window: the appliance's cards in a table sorted by host, the selected
// card's partitions in a details pane, a summary in the status bar, and the File, View, Language
// and Help menus. Every visible string goes through tr(); the window retranslates itself on
// QEvent::LanguageChange. GUI thread only.
class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    // `languages` drives the Language menu; nullptr leaves the menu out. Not owned; must outlive
    // the window.
    explicit MainWindow(LanguageController *languages = nullptr, QWidget *parent = nullptr);
    ~MainWindow() override;

    // Shows an appliance (or a new snapshot of the same one: rows update in place).
    void setAppliance(const QString &name, const Sched::ClusterState &state);

    // Follows a session: every snapshot updates the window; the run controls and the views'
    // commands go to it. `storePath`: the session's event store (the event log exports from it,
    // and the charts start with its recorded card and partition history: a console started again
    // on a real appliance shows the hours before). Not owned; must outlive the window.
    void setSession(Models::SessionClient *client, const QString &storePath);
    // Replaces the question before the run bar's "Restart day" (true: go ahead). Tests.
    void setRestartConfirmation(std::function<bool()> confirm)
    {
        m_confirmRestart = std::move(confirm);
    }
    // The event store exports read (an attached console learns it from the service); the charts
    // take its recorded history in front of what they have.
    void setStorePath(const QString &storePath);
    // Recorded history handed over by other means (an attached console: the service's
    // "history" answer, RemoteSession::historyReceived): put in front of the charts' points.
    void mergeHistory(const QList<Models::HistorySeries> &history);
    // The history reader (tests wait on its loaded()).
    Models::SeriesHistoryLoader *historyLoader() const { return m_history; }
    Models::SessionClient *session() const { return m_client; }
    // The schedule the session runs (the windows policy's parameters) and the expected load per
    // hour of the week (168 values), for the schedule editor.
    void setSchedule(const QJsonObject &windowsParams, const QList<double> &forecastPerHour);

    // File > New workload… (Ctrl+N): the jobs view's New workload dialog; enabled once a session
    // is set.
    QAction *newWorkloadAction() const { return m_newWorkloadAction; }

    // The views (created by setSession; nullptr before).
    CardMapView *cardMap() const { return m_cardMap; }
    JobsView *jobsView() const { return m_jobs; }
    LiveCharts *charts() const { return m_charts; }
    OverviewView *overview() const { return m_overview; }
    EventLogView *eventLog() const { return m_eventLog; }
    WhyView *whyView() const { return m_why; }
    ScheduleEditor *scheduleEditor() const { return m_schedule; }
    RepartitionEditor *repartitionEditor() const { return m_repartition; }
    QTabWidget *tabs() const { return m_tabs; }

    // The settings in force (loaded from QSettings at construction); applying them updates the
    // views, the session and QSettings.
    const ConsoleSettings &settings() const { return m_settings; }
    void applySettings(const ConsoleSettings &settings);

    // The run bar's texts, for tests: e.g. "Mon 10:00 · day · forecast", and the banner ("" when
    // hidden).
    QString clockText() const;
    QString bannerText() const;

    // Selects a card's row and shows it in the details pane.
    void selectCard(Domain::CardId card);

    Models::CardTableModel *cardModel() const { return m_cards; }
    QTableView *cardView() const { return m_cardView; }
    CardDetailsView *detailsView() const { return m_details; }
    // The status bar's summary, e.g. "2 hosts · 12 cards · 27 partitions".
    QString summaryText() const;
    // The cards that need the administrator now, one line each with the reasons (CardTile's
    // attention: throttled, hot against the model's own limits, errors, lost).
    QStringList cardsNeedingAttention() const;
    // The About box's text (version, purpose, licence).
    QString aboutText() const;
    // Below this width the jobs dock folds into a tab beside the details dock (one column of
    // docks instead of two), and unfolds above it.
    static constexpr int kFoldDocksBelowPx = 1600;
    bool docksFolded() const { return m_docksFolded; }

Q_SIGNALS:
    // After applySettings(): views re-read thresholds.
    void settingsApplied(const Zhaoxi::Widgets::ConsoleSettings &settings);

protected:
    void changeEvent(QEvent *event) override;
    void closeEvent(QCloseEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void createActions();
    void createMenus();
    void retranslateUi();
    void refitLayouts();
    // Reads the store's recorded card and partition series into the charts (setStorePath).
    void loadHistory();
    // The overview's "What if?": enabled with a store this console can read, else says why.
    void updateWhatIfAvailability();
    void openWhatIf(qint64 fromMs, qint64 toMs);
    void updateSummary();
    QString summaryText(const QStringList &attention) const;
    void updateLanguageActions();
    void showCurrentCard();
    void about();
    void createRunBar();
    void onSnapshot(const Session::SnapshotPtr &snapshot);
    void updateRunBar();
    void editSettings();
    void createViews();
    void showJob(Domain::JobId job);
    void showCard(Domain::CardId card);
    void applyThresholds();

    LanguageController *m_languages = nullptr;
    QString m_applianceName;
    Models::CardTableModel *m_cards = nullptr;
    Models::CardSortModel *m_sorted = nullptr;
    QTableView *m_cardView = nullptr;
    CardDetailsView *m_details = nullptr;
    QDockWidget *m_detailsDock = nullptr;
    QLabel *m_summary = nullptr;
    QLabel *m_banner = nullptr;

    QWidget *m_centralArea = nullptr;
    QTabWidget *m_tabs = nullptr;
    QTabWidget *m_sideTabs = nullptr;
    QDockWidget *m_jobsDock = nullptr;
    bool m_docksFolded = false;
    void foldDocks(bool fold);
    CardMapView *m_cardMap = nullptr;
    JobsView *m_jobs = nullptr;
    LiveCharts *m_charts = nullptr;
    OverviewView *m_overview = nullptr;
    EventLogView *m_eventLog = nullptr;
    WhyView *m_why = nullptr;
    ScheduleEditor *m_schedule = nullptr;
    AdvicePanel *m_advice = nullptr;
    RepartitionEditor *m_repartition = nullptr;
    SparkChart *m_sparkUtil = nullptr;
    SparkChart *m_sparkPower = nullptr;
    // Each card's layouts and holders over the day, learnt from the snapshots.
    Models::CardTimeline m_timeline;
    CardTimelineView *m_timelineView = nullptr;
    Models::SeriesStore *m_series = nullptr;
    Models::SeriesHistoryLoader *m_history = nullptr;
    QUndoGroup *m_undoGroup = nullptr;
    QUndoStack *m_placementUndo = nullptr;
    QMenu *m_editMenu = nullptr;
    QAction *m_undoAction = nullptr;
    QAction *m_redoAction = nullptr;
    Models::SessionClient *m_client = nullptr;
    Session::SnapshotPtr m_snapshot;
    QAction *m_speedAction = nullptr; // the tool bar's actions of the speed widgets
    QAction *m_speedLabelAction = nullptr;
    QString m_storePath;
    ConsoleSettings m_settings;
    QToolBar *m_runBar = nullptr;
    QAction *m_playAction = nullptr;
    QAction *m_restartAction = nullptr;
    std::function<bool()> m_confirmRestart;
    QComboBox *m_speedCombo = nullptr;
    QLabel *m_speedLabel = nullptr;
    QLabel *m_clock = nullptr;
    QAction *m_settingsAction = nullptr;

    QMenu *m_fileMenu = nullptr;
    QMenu *m_viewMenu = nullptr;
    QMenu *m_languageMenu = nullptr;
    QMenu *m_helpMenu = nullptr;
    QAction *m_newWorkloadAction = nullptr;
    QAction *m_quitAction = nullptr;
    QAction *m_statusBarAction = nullptr;
    QAction *m_sortByHostAction = nullptr;
    QAction *m_aboutAction = nullptr;
    QAction *m_aboutQtAction = nullptr;
    QActionGroup *m_languageGroup = nullptr;
};

} // namespace Zhaoxi::Widgets
