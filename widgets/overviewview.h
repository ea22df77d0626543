// SPDX-License-Identifier: GPL-3.0-or-later
// The console's landing view: the appliance read in five seconds. Headline figures (each
// service's SLO now and today, each training job's progress and what training delivered, the
// cards by holder right now, the waiting jobs with the oldest wait and its reason, the window
// and policy in force), and below them who held the cards over the last 24 hours as a stacked
// area (inference, training, batch, reconfiguring, idle, lost) with the measured utilisation
// drawn over the allocation.
#pragma once

#include "core/sched/status.h"
#include "core/session/snapshot.h"

#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QPointer>
#include <QWidget>

class QAction;
class QCustomPlot;
class QCPAbstractItem;
class QCPItemRect;
class QLabel;
class QToolButton;
class QTimer;

namespace Zhaoxi::Models {
class SessionClient;
}

namespace Zhaoxi::Widgets {

// The cards of the appliance by what holds them now, in cards (a MIG instance or a share counts
// its part of its card); they add up to the number of cards.
struct CardHolders
{
    double inference = 0;
    double training = 0;
    double batch = 0;
    double reconfiguring = 0; // instances being created or destroyed
    double idle = 0;          // free capacity, and units no job holds
    double lost = 0;          // lost or failed cards, cards of a host that is down
    double utilised = 0;      // the cards' measured utilisation, summed (NaN readings: none)
    double total() const { return inference + training + batch + reconfiguring + idle + lost; }
};

struct OverviewFigures
{
    struct Service
    {
        QString name;
        double sloMs = 0;
        double p99Ms = 0;   // now, over the policies' window
        double today = 1;   // SLO attainment since the start of the day, 0..1
        bool metNow = true; // p99 within the SLO now
        int replicas = 0;
        int targetReplicas = 0;
    };
    struct Training
    {
        QString name;
        double progress = 0; // 0..1
        double speed = 0;    // reference cards of work per second (0: not running)
        bool completed = false;
    };
    QList<Service> services;
    QList<Training> training;
    double trainingDoneHours = 0; // reference-card hours delivered so far
    double trainingWorkHours = 0; // ... of the scenario's training in all
    CardHolders holders;
    int cards = 0;
    int waiting = 0;
    // The longest waiting job (invalid: none waits), waiting since its submission or since it
    // last left its cards.
    Domain::JobId oldest;
    QString oldestName;
    qint64 oldestWaitMs = 0;
    Sched::Status oldestReason; // its latest decision (success: not decided yet)
    QString window;             // the window in force (windows policy), empty otherwise
    QString policy;
};

// The figures of one snapshot; `reasons` are the latest decisions by job id (from the snapshots'
// traces). Pure.
CardHolders cardHoldersOf(const Session::Snapshot &snapshot);
OverviewFigures overviewFiguresOf(const Session::Snapshot &snapshot,
                                  const QHash<int, Sched::Status> &reasons);

class OverviewView : public QWidget
{
    Q_OBJECT

public:
    explicit OverviewView(Models::SessionClient *client, QWidget *parent = nullptr);
    ~OverviewView() override;

    const OverviewFigures &figures() const { return m_figures; }
    // The headline as shown (for tests and the status line).
    QString headlineText() const;
    // The holders' history: one point per simulated (or real) minute seen, the last 24 h.
    struct Point
    {
        qint64 atMs = 0;
        CardHolders holders;
        QString window; // the time window in force then (empty: none)
    };
    const QList<Point> &history() const { return m_history; }

    // The shaded bands behind the chart: one per stretch of the same time window, oldest first.
    struct Band
    {
        qint64 fromMs = 0;
        qint64 toMs = 0;
        QString window;
    };
    QList<Band> windowBands() const;
    // The moment (appliance time, UTC ms) under a point of the chart (its pixel); -1 off the
    // history.
    qint64 momentAt(const QPoint &chartPos) const;

    // A period chosen on the chart by dragging across it (appliance time, UTC ms), kept after
    // the drag and shaded until Esc, a click on the chart or on the view clears it.
    struct Period
    {
        qint64 fromMs = -1;
        qint64 toMs = -1;
        bool isValid() const { return fromMs >= 0 && toMs > fromMs; }
    };
    Period selection() const { return m_selection; }
    // Selects a period (cut to the history shown); an invalid one clears the selection.
    void setSelection(qint64 fromMs, qint64 toMs);
    void clearSelection();
    // "What if?…": the button beside the chart and the chart's context menu; enabled with a
    // selection of at least 15 minutes inside the history and while What if? is available.
    QAction *whatIfAction() const { return m_whatIfAction; }
    // Whether the console can replay what its store recorded (a console attached to a service
    // whose store it cannot read cannot); `why` is the tooltip that says why not.
    void setWhatIfAvailable(bool available, const QString &why = QString());

public Q_SLOTS:
    void setSnapshot(const Zhaoxi::Session::SnapshotPtr &snapshot);

Q_SIGNALS:
    // A click on the chart: the charts and the event log move to that moment.
    void momentClicked(qint64 atMs);
    // The selection changed (an invalid period: cleared).
    void selectionChanged(qint64 fromMs, qint64 toMs);
    // "What if?…" for the selected period.
    void whatIfRequested(qint64 fromMs, qint64 toMs);

protected:
    void changeEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;

private:
    void refreshText();
    void refreshChart();
    void retranslateUi();
    // The moment under a pixel column, held to the history's extent (-1: no history).
    qint64 clampedMomentAt(int x) const;
    void onChartPress(QMouseEvent *event);
    void onChartMove(QMouseEvent *event);
    void onChartRelease(QMouseEvent *event);
    void onChartContextMenu(const QPoint &pos);
    void drawSelection();
    void updateWhatIf();

    QPointer<Models::SessionClient> m_client;
    Session::SnapshotPtr m_snapshot;
    QHash<int, Sched::Status> m_reasons;
    OverviewFigures m_figures;
    QList<Point> m_history;
    QLabel *m_services = nullptr;
    QLabel *m_training = nullptr;
    QLabel *m_cards = nullptr;
    QLabel *m_waiting = nullptr;
    QLabel *m_chartTitle = nullptr;
    QCustomPlot *m_plot = nullptr;
    QList<QCPAbstractItem *> m_bandItems;
    Period m_selection;
    QCPItemRect *m_selectionItem = nullptr;
    bool m_pressed = false;  // the left button went down on the chart's axis rect
    bool m_dragging = false; // ... and moved far enough to be a drag
    QPoint m_pressPos;
    qint64 m_pressMs = -1;
    QLabel *m_selectionLabel = nullptr;
    QToolButton *m_whatIfButton = nullptr;
    QAction *m_whatIfAction = nullptr;
    bool m_whatIfAvailable = true;
    QString m_whatIfUnavailable;
    // Snapshots come up to every simulated minute of a catch-up: the text and the chart are
    // redrawn once per turn of the event loop, not once per snapshot.
    QTimer *m_refresh = nullptr;
    bool m_textDirty = false;
    bool m_chartDirty = false;
    QElapsedTimer m_chartDrawn; // the chart is redrawn at most four times a second
    void scheduleRefresh();
    void refreshNow();
};

} // namespace Zhaoxi::Widgets
