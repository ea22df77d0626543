// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/domain/ids.h"
#include "core/models/seriesstore.h"

#include <QHash>
#include <QList>
#include <QPointer>
#include <QWidget>

#include "qcp.h"

class QButtonGroup;
class QComboBox;
class QLabel;
class QTabWidget;
class QTimer;
class QToolButton;

namespace Zhaoxi::Models {
class SessionClient;
}

namespace Zhaoxi::Widgets {

class MarkerLayer;

// The console's live charts, one tab per page, each page one QCustomPlot of two stacked charts on
// a shared time axis in the appliance's local time:
//   Inference  per service p99 (solid), p50 (dashed) and its SLO (long dashes), log scale;
//              below, the request rate per service
//   Training   throughput per job (jobs that did not run in the visible range are hidden);
//              below, each job's loss
//   Cards      one card (setCard) or the whole appliance: training and inference utilisation,
//              memory in percent; below, temperature (left axis) and power (right axis)
// Legends read "chat p99 — last 412 ms · mean 380 · max 930" over the visible range; vertical
// lines with a short label mark window switches, repartitions, preemptions and faults.
//
// Time range: presets (5 min to 24 h) and Live, which follows the latest snapshot. Panning or
// zooming the time axis (mouse drag, wheel, or setTimeRange) turns Live off; the range then stays
// where it is until Live is turned on again, which keeps the span and follows again.
//
// Data comes from a Models::SeriesStore. Snapshots arrive at any rate; the charts replot at most
// five times a second, and only the page on show (a hidden page catches up when shown). GUI thread.
class LiveCharts : public QWidget
{
    Q_OBJECT

public:
    enum class Page { Inference, Training, Cards };
    Q_ENUM(Page)
    enum class Preset { FiveMinutes, FifteenMinutes, OneHour, SixHours, OneDay };
    Q_ENUM(Preset)

    // With `store` null the charts own a store that follows `client`'s snapshots. With a store,
    // they only read it: whoever owns it feeds it (SeriesStore::follow), so that the main
    // window's spark charts can share it; it must outlive the charts. `client` (may be null) names the cards in the card
    // chooser from its snapshot's cluster state.
    explicit LiveCharts(Models::SessionClient *client,
                        Models::SeriesStore *store = nullptr,
                        QWidget *parent = nullptr);
    ~LiveCharts() override;

    Models::SeriesStore *store() const { return m_store; }

    Page page() const;
    void setPage(Page page);
    // The card the Cards page shows; an invalid id: the whole appliance.
    Domain::CardId card() const { return m_card; }
    void setCard(Domain::CardId card);

    // The visible span of a preset, in seconds.
    static double presetSeconds(Preset preset);
    // The latest preset chosen (the span may differ since the user zoomed).
    Preset preset() const { return m_preset; }
    void setPreset(Preset preset);
    bool isLive() const { return m_live; }
    void setLive(bool live);

    // The visible time range, in seconds since the UTC epoch.
    QCPRange timeRange() const { return m_range; }
    // Shows [lower, upper] as a user pan or zoom would: Live goes off.
    void setTimeRange(double lower, double upper);

    // Syncs the page on show with the store and replots it now (tests, benchmarks; the charts
    // do this on their own at most five times a second).
    void refresh();
    // A replot is scheduled and has not run yet (the one that coalesces snapshots, at most five
    // a second). Tests wait for it to be false instead of sleeping.
    bool replotPending() const;

    // For tests, benchmarks and the main window's layout.
    QCustomPlot *plot(Page page) const;
    // The graph drawing the series `key` (null when none on any page).
    QCPGraph *graph(const QString &key) const;
    // Markers within the visible range, and their labels as drawn.
    QList<Models::EventMarker> visibleMarkers() const;
    QStringList visibleMarkerLabels() const;

Q_SIGNALS:
    void liveChanged(bool live);
    void timeRangeChanged(double lower, double upper);
    void pageChanged(Zhaoxi::Widgets::LiveCharts::Page page);
    void cardChanged(Zhaoxi::Domain::CardId card);

protected:
    void changeEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    struct Entry
    {
        QString key;
        Models::SeriesInfo info;
        QCPGraph *graph = nullptr;
        quint64 next = 0; // the next sequence number of the store's series to draw
        bool bottom = false;
        QPen pen; // as styled; drawn one pixel wide while the graph is dense
    };
    struct PageView
    {
        QCustomPlot *plot = nullptr;
        QCPAxisRect *top = nullptr;
        QCPAxisRect *bottom = nullptr;
        QCPLegend *topLegend = nullptr;
        QCPLegend *bottomLegend = nullptr;
        MarkerLayer *topMarkers = nullptr;
        MarkerLayer *bottomMarkers = nullptr;
        QList<Entry> entries;
        QHash<QString, qsizetype> byKey;
        QHash<int, int> jobIndex; // Training: a job's colour and line style, by job id
    };

    void buildUi();
    void buildPage(Page page);
    void retranslate();
    void scheduleReplot();
    void replotVisible();
    void updatePage(Page page, bool immediate);
    void addMissingEntries(Page page);
    bool wants(Page page, const Models::SeriesInfo &info, bool *bottom) const;
    void addEntry(Page page, const Models::TimeSeries &series, bool bottom);
    void syncData(Entry &entry) const;
    void clearPage(Page page);
    void updateLegendsAndAxes(PageView &view);
    void updateMarkers(PageView &view);
    void followNow();
    void applyRange();
    void onUserRange(const QCPRange &range);
    void onStoreCleared();
    void updateCardChooser();
    void syncPresetButtons();
    PageView &view(Page page) { return m_pages[int(page)]; }
    const PageView &view(Page page) const { return m_pages[int(page)]; }

    QPointer<Models::SessionClient> m_client;
    Models::SeriesStore *m_store = nullptr;
    bool m_ownsStore = false;
    Domain::CardId m_card;
    Preset m_preset = Preset::OneHour;
    double m_span = 3600;
    bool m_live = true;
    QCPRange m_range;
    QCPRange m_emittedRange;
    bool m_applyingRange = false;
    int m_utcOffset = 0;
    PageView m_pages[3];
    bool m_structureDirty[3] = {true, true, true}; // the store has series a page may lack
    QTimer *m_replotTimer = nullptr;

    QTabWidget *m_tabs = nullptr;
    QButtonGroup *m_presetGroup = nullptr;
    QList<QToolButton *> m_presetButtons;
    QToolButton *m_liveButton = nullptr;
    QLabel *m_cardLabel = nullptr;
    QComboBox *m_cardChooser = nullptr;
    int m_chooserCards = -1;
};

} // namespace Zhaoxi::Widgets
