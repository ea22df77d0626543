// SPDX-License-Identifier: GPL-3.0-or-later
#include "livecharts.h"

#include "chartstyle.h"
#include "markerlayer.h"

#include "core/models/sessionclient.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>
#include <limits>

namespace Zhaoxi::Widgets {

using Models::EventMarker;
using Models::SeriesInfo;
using Models::SeriesMetric;
using Models::SeriesStats;
using Models::SeriesStore;
using Models::SeriesSubject;
using Models::TimeSeries;

namespace {

constexpr int kReplotIntervalMs = 200; // at most five replots a second
// Graphs with at least this many visible points are drawn without antialiasing, one pixel wide:
// at a point or more per pixel that only costs time.
constexpr qsizetype kDenseFrom = 2000;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const LiveCharts::Preset kPresets[] = {LiveCharts::Preset::FiveMinutes,
                                       LiveCharts::Preset::FifteenMinutes,
                                       LiveCharts::Preset::OneHour,
                                       LiveCharts::Preset::SixHours,
                                       LiveCharts::Preset::OneDay};

bool onLogAxis(SeriesMetric m)
{
    return m == SeriesMetric::P50 || m == SeriesMetric::P99 || m == SeriesMetric::Slo;
}

bool startsAtZero(SeriesMetric m)
{
    switch (m) {
    case SeriesMetric::Rate:
    case SeriesMetric::Speed:
    case SeriesMetric::Power:
    case SeriesMetric::MemoryUsed:
        return true;
    default:
        return false;
    }
}

QCPLegend *makeLegend(QCustomPlot *plot, int row)
{
    // The legend at the top of its cell, as tall as its entries: a spacer below takes the rest.
    auto *side = new QCPLayoutGrid;
    plot->plotLayout()->addElement(row, 1, side);
    auto *legend = new QCPLegend;
    side->addElement(0, 0, legend);
    side->addElement(1, 0, new QCPLayoutElement(plot)); // an empty grid would have no height
    side->setRowStretchFactor(0, 0.001);
    side->setRowStretchFactor(1, 1);
    legend->setLayer(QStringLiteral("legend"));
    legend->setBorderPen(Qt::NoPen);
    legend->setBrush(Qt::NoBrush);
    legend->setRowSpacing(0);
    legend->setMargins(QMargins(4, 4, 4, 4));
    QFont f = plot->font();
    f.setPointSizeF(f.pointSizeF() * 0.9);
    legend->setFont(f);
    return legend;
}

QCPAxisRect *makeRect(QCustomPlot *plot, int row, QCPMarginGroup *group)
{
    auto *rect = new QCPAxisRect(plot, true);
    plot->plotLayout()->addElement(row, 0, rect);
    rect->setMarginGroup(QCP::msLeft | QCP::msRight, group);
    rect->setRangeDrag(Qt::Horizontal);
    rect->setRangeZoom(Qt::Horizontal);
    rect->setRangeDragAxes(rect->axis(QCPAxis::atBottom), nullptr);
    rect->setRangeZoomAxes(rect->axis(QCPAxis::atBottom), nullptr);
    for (QCPAxis *a : rect->axes())
        a->setLayer(QStringLiteral("axes"));
    for (QCPAxis *a : rect->axes())
        a->grid()->setLayer(QStringLiteral("grid"));
    return rect;
}

} // namespace

LiveCharts::LiveCharts(Models::SessionClient *client, SeriesStore *store, QWidget *parent)
    : QWidget(parent)
    , m_client(client)
    , m_store(store)
{
    if (!m_store) {
        m_store = new SeriesStore(this);
        m_ownsStore = true;
    }
    m_replotTimer = new QTimer(this);
    m_replotTimer->setSingleShot(true);
    m_replotTimer->setInterval(kReplotIntervalMs);
    connect(m_replotTimer, &QTimer::timeout, this, &LiveCharts::replotVisible);

    buildUi();
    connect(m_store, &SeriesStore::seriesAdded, this, [this] {
        for (bool &dirty : m_structureDirty)
            dirty = true;
    });
    connect(m_store, &SeriesStore::appended, this, &LiveCharts::scheduleReplot);
    connect(m_store, &SeriesStore::cleared, this, &LiveCharts::onStoreCleared);
    connect(m_store, &SeriesStore::rebuilt, this, &LiveCharts::onStoreCleared);
    if (client)
        connect(client,
                &Models::SessionClient::snapshotChanged,
                this,
                &LiveCharts::updateCardChooser);
    if (m_ownsStore)
        m_store->follow(client);

    const double now = m_store->latestTime();
    const double end = !std::isnan(now)               ? now
                       : client && client->snapshot() ? double(client->snapshot()->nowMs) / 1000.0
                                                      : 0.0;
    m_range = QCPRange(end - m_span, end);
    updateCardChooser();
    applyRange();
    syncPresetButtons();
    retranslate();
}

LiveCharts::~LiveCharts() = default;

double LiveCharts::presetSeconds(Preset preset)
{
    switch (preset) {
    case Preset::FiveMinutes:
        return 5 * 60;
    case Preset::FifteenMinutes:
        return 15 * 60;
    case Preset::OneHour:
        return 3600;
    case Preset::SixHours:
        return 6 * 3600;
    case Preset::OneDay:
        break;
    }
    return 24 * 3600;
}

void LiveCharts::buildUi()
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *bar = new QHBoxLayout;
    layout->addLayout(bar);

    m_presetGroup = new QButtonGroup(this);
    static const char *const kNames[]
            = {"preset5m", "preset15m", "preset1h", "preset6h", "preset24h"};
    for (int i = 0; i < int(std::size(kPresets)); ++i) {
        auto *b = new QToolButton(this);
        b->setObjectName(QLatin1String(kNames[i]));
        b->setCheckable(true);
        b->setAutoRaise(true);
        m_presetGroup->addButton(b, i);
        m_presetButtons.append(b);
        bar->addWidget(b);
    }
    connect(m_presetGroup, &QButtonGroup::idClicked, this, [this](int id) {
        setPreset(kPresets[id]);
    });
    m_liveButton = new QToolButton(this);
    m_liveButton->setObjectName(QStringLiteral("liveButton"));
    m_liveButton->setCheckable(true);
    m_liveButton->setChecked(m_live);
    connect(m_liveButton, &QToolButton::toggled, this, &LiveCharts::setLive);
    bar->addSpacing(8);
    bar->addWidget(m_liveButton);
    bar->addStretch(1);
    m_cardLabel = new QLabel(this);
    m_cardChooser = new QComboBox(this);
    m_cardChooser->setObjectName(QStringLiteral("cardChooser"));
    m_cardChooser->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_cardLabel->setBuddy(m_cardChooser);
    connect(m_cardChooser, &QComboBox::activated, this, [this](int index) {
        setCard(Domain::CardId(m_cardChooser->itemData(index).toInt()));
    });
    bar->addWidget(m_cardLabel);
    bar->addWidget(m_cardChooser);

    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("chartTabs"));
    m_tabs->setDocumentMode(true);
    layout->addWidget(m_tabs, 1);
    for (Page p : {Page::Inference, Page::Training, Page::Cards}) {
        buildPage(p);
        m_tabs->addTab(view(p).plot, QString());
    }
    connect(m_tabs, &QTabWidget::currentChanged, this, [this](int index) {
        const bool cards = Page(index) == Page::Cards;
        m_cardLabel->setEnabled(cards);
        m_cardChooser->setEnabled(cards);
        if (isVisible())
            updatePage(Page(index), false);
        Q_EMIT pageChanged(Page(index));
    });
    m_cardLabel->setEnabled(false);
    m_cardChooser->setEnabled(false);
}

void LiveCharts::buildPage(Page page)
{
    PageView &v = view(page);
    auto *plot = new QCustomPlot(this);
    static const char *const kNames[] = {"inferencePlot", "trainingPlot", "cardsPlot"};
    plot->setObjectName(QLatin1String(kNames[int(page)]));
    v.plot = plot;
    plot->setAutoAddPlottableToLegend(false);
    plot->setNoAntialiasingOnDrag(true);
    // One polyline per graph rather than a segment at a time: the big series' cost.
    plot->setPlottingHint(QCP::phFastPolylines, true);
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    // One paint buffer, not two: the overlay layer (selection rectangles) is unused here, and a
    // buffer more is a full-size clear and blend more on every replot.
    plot->layer(QStringLiteral("overlay"))->setMode(QCPLayer::lmLogical);
    plot->setMinimumHeight(240);

    plot->plotLayout()->clear(); // the default axis rect and legend: ours are two of each
    plot->addLayer(
            QStringLiteral("markers"), plot->layer(QStringLiteral("grid")), QCustomPlot::limAbove);
    auto *group = new QCPMarginGroup(plot);
    v.top = makeRect(plot, 0, group);
    v.bottom = makeRect(plot, 1, group);
    v.topLegend = makeLegend(plot, 0);
    v.bottomLegend = makeLegend(plot, 1);
    plot->plotLayout()->setColumnStretchFactor(0, 1);
    plot->plotLayout()->setColumnStretchFactor(1, 0.01); // the legends take what they need
    v.top->axis(QCPAxis::atBottom)->setTickLabels(false);
    v.topMarkers = new MarkerLayer(v.top, true);
    v.bottomMarkers = new MarkerLayer(v.bottom, false);

    if (page == Page::Inference) {
        QCPAxis *latency = v.top->axis(QCPAxis::atLeft);
        latency->setScaleType(QCPAxis::stLogarithmic);
        latency->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
        latency->setNumberFormat(QStringLiteral("gb"));
        latency->setRange(10, 10000);
    }
    if (page == Page::Cards) {
        v.bottom->axis(QCPAxis::atRight)->setVisible(true);
        v.top->axis(QCPAxis::atLeft)->setRange(-2, 102);
    }
    for (QCPAxisRect *r : {v.top, v.bottom})
        connect(r->axis(QCPAxis::atBottom),
                qOverload<const QCPRange &>(&QCPAxis::rangeChanged),
                this,
                &LiveCharts::onUserRange);
}

void LiveCharts::retranslate()
{
    m_tabs->setTabText(int(Page::Inference), tr("Inference"));
    m_tabs->setTabText(int(Page::Training), tr("Training"));
    m_tabs->setTabText(int(Page::Cards), tr("Cards"));
    const QString presetTexts[] = {tr("5 min"), tr("15 min"), tr("1 h"), tr("6 h"), tr("24 h")};
    for (int i = 0; i < m_presetButtons.size(); ++i) {
        m_presetButtons[i]->setText(presetTexts[i]);
        m_presetButtons[i]->setToolTip(tr("Show the last %1").arg(presetTexts[i]));
    }
    m_liveButton->setText(tr("Live"));
    m_liveButton->setToolTip(
            tr("Follow the latest time. Panning or zooming the time axis stops following; "
               "press Live to follow again."));
    m_cardLabel->setText(tr("&Card:"));
    m_chooserCards = -1; // rebuild the chooser's texts
    updateCardChooser();

    auto axisLabel = [this](Page p, bool bottom, QCPAxis::AxisType type, const QString &text) {
        PageView &v = view(p);
        (bottom ? v.bottom : v.top)->axis(type)->setLabel(text);
    };
    axisLabel(Page::Inference, false, QCPAxis::atLeft, tr("Latency (ms, log scale)"));
    axisLabel(Page::Inference, true, QCPAxis::atLeft, tr("Requests per second"));
    axisLabel(Page::Training, false, QCPAxis::atLeft, tr("Throughput (reference cards)"));
    axisLabel(Page::Training, true, QCPAxis::atLeft, tr("Loss"));
    axisLabel(Page::Cards, false, QCPAxis::atLeft, tr("Utilisation, memory (%)"));
    axisLabel(Page::Cards, true, QCPAxis::atLeft, tr("Temperature (°C)"));
    axisLabel(Page::Cards, true, QCPAxis::atRight, tr("Power (W)"));
    for (PageView &v : m_pages) {
        for (Entry &e : v.entries)
            e.graph->setName(ChartStyle::seriesName(e.info));
    }
}

void LiveCharts::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange) {
        retranslate();
        scheduleReplot();
    }
    QWidget::changeEvent(event);
}

void LiveCharts::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    scheduleReplot();
}

LiveCharts::Page LiveCharts::page() const
{
    return Page(m_tabs->currentIndex());
}

void LiveCharts::setPage(Page page)
{
    m_tabs->setCurrentIndex(int(page));
}

void LiveCharts::setCard(Domain::CardId card)
{
    if (!card.isValid())
        card = Domain::CardId();
    if (card == m_card)
        return;
    m_card = card;
    clearPage(Page::Cards);
    const int at = m_cardChooser->findData(card.isValid() ? card.value() : -1);
    if (at >= 0)
        m_cardChooser->setCurrentIndex(at);
    if (page() == Page::Cards)
        scheduleReplot();
    Q_EMIT cardChanged(m_card);
}

void LiveCharts::setPreset(Preset preset)
{
    m_preset = preset;
    m_span = presetSeconds(preset);
    if (m_live)
        followNow();
    else
        m_range = QCPRange(m_range.upper - m_span, m_range.upper);
    applyRange();
    syncPresetButtons();
    scheduleReplot();
}

void LiveCharts::setLive(bool live)
{
    if (live == m_live) {
        m_liveButton->setChecked(live);
        return;
    }
    m_live = live;
    {
        const QSignalBlocker block(m_liveButton);
        m_liveButton->setChecked(live);
    }
    if (live) { // keep the span the user chose, end it now
        m_span = m_range.size();
        followNow();
        applyRange();
        scheduleReplot();
    }
    Q_EMIT liveChanged(live);
}

void LiveCharts::setTimeRange(double lower, double upper)
{
    onUserRange(QCPRange(lower, upper));
}

QCustomPlot *LiveCharts::plot(Page page) const
{
    return view(page).plot;
}

QCPGraph *LiveCharts::graph(const QString &key) const
{
    for (const PageView &v : m_pages) {
        const auto it = v.byKey.constFind(key);
        if (it != v.byKey.cend())
            return v.entries[*it].graph;
    }
    return nullptr;
}

QList<EventMarker> LiveCharts::visibleMarkers() const
{
    QList<EventMarker> out;
    for (const EventMarker &m : m_store->markers()) {
        if (m.t >= m_range.lower && m.t <= m_range.upper)
            out.append(m);
    }
    return out;
}

QStringList LiveCharts::visibleMarkerLabels() const
{
    QStringList out;
    for (const EventMarker &m : visibleMarkers())
        out.append(ChartStyle::markerLabel(m));
    return out;
}

void LiveCharts::scheduleReplot()
{
    if (!m_replotTimer->isActive())
        m_replotTimer->start();
}

void LiveCharts::replotVisible()
{
    if (!isVisible())
        return; // showEvent brings it up to date
    updatePage(page(), false);
}

void LiveCharts::refresh()
{
    updatePage(page(), true);
}

bool LiveCharts::replotPending() const
{
    return m_replotTimer->isActive();
}

void LiveCharts::updatePage(Page page, bool immediate)
{
    PageView &v = view(page);
    if (m_structureDirty[int(page)])
        addMissingEntries(page);
    for (Entry &e : v.entries)
        syncData(e);
    if (!m_client)
        updateCardChooser();
    m_utcOffset = m_store->utcOffsetSeconds();
    followNow();
    applyRange();
    updateLegendsAndAxes(v);
    updateMarkers(v);
    v.plot->replot(immediate ? QCustomPlot::rpImmediateRefresh : QCustomPlot::rpRefreshHint);
}

bool LiveCharts::wants(Page page, const SeriesInfo &info, bool *bottom) const
{
    using M = SeriesMetric;
    switch (page) {
    case Page::Inference:
        if (info.subject != SeriesSubject::Service)
            return false;
        *bottom = info.metric == M::Rate;
        return info.metric == M::P50 || info.metric == M::P99 || info.metric == M::Slo
               || info.metric == M::Rate;
    case Page::Training:
        if (info.subject != SeriesSubject::Job)
            return false;
        *bottom = info.metric == M::Loss;
        return true;
    case Page::Cards:
        if (m_card.isValid() ? info.subject != SeriesSubject::Card || info.id != m_card.value()
                             : info.subject != SeriesSubject::Appliance)
            return false;
        *bottom = info.metric == M::Temperature || info.metric == M::Power;
        return info.metric == M::TrainingUtil || info.metric == M::InferenceUtil
               || info.metric == M::MemoryPercent || *bottom;
    }
    return false;
}

void LiveCharts::addMissingEntries(Page page)
{
    m_structureDirty[int(page)] = false;
    PageView &v = view(page);
    for (const QString &key : m_store->keys()) {
        if (v.byKey.contains(key))
            continue;
        const TimeSeries *s = m_store->series(key);
        bool bottom = false;
        if (s && wants(page, s->info(), &bottom))
            addEntry(page, *s, bottom);
    }
}

void LiveCharts::addEntry(Page page, const TimeSeries &series, bool bottom)
{
    PageView &v = view(page);
    Entry e;
    e.key = series.key();
    e.info = series.info();
    e.bottom = bottom;
    QCPAxisRect *rect = bottom ? v.bottom : v.top;
    QCPAxis *valueAxis
            = rect->axis(e.info.metric == SeriesMetric::Power ? QCPAxis::atRight : QCPAxis::atLeft);
    e.graph = v.plot->addGraph(rect->axis(QCPAxis::atBottom), valueAxis);
    int index = 0;
    if (e.info.subject == SeriesSubject::Service) {
        index = e.info.id;
    } else if (e.info.subject == SeriesSubject::Job) {
        auto it = v.jobIndex.constFind(e.info.id);
        if (it == v.jobIndex.cend())
            it = v.jobIndex.insert(e.info.id, int(v.jobIndex.size()));
        index = *it;
    }
    e.pen = ChartStyle::pen(e.info, index);
    e.graph->setPen(e.pen);
    e.graph->setAdaptiveSampling(true);
    e.graph->setAntialiased(false);
    e.graph->setName(ChartStyle::seriesName(e.info));
    e.graph->addToLegend(bottom ? v.bottomLegend : v.topLegend);
    v.byKey.insert(e.key, v.entries.size());
    v.entries.append(e);
}

void LiveCharts::syncData(Entry &entry) const
{
    const TimeSeries *s = m_store->series(entry.key);
    if (!s)
        return;
    // A log axis has no place for zero (no requests in the window): a gap. Runs of one value
    // keep their first and last point only.
    entry.next = appendNewPoints(entry.graph,
                                 *s,
                                 entry.next,
                                 /*gapAtZero=*/onLogAxis(entry.info.metric),
                                 /*collapseRuns=*/true);
    QSharedPointer<QCPGraphDataContainer> points = entry.graph->data();
    const qsizetype n = s->size();

    // Trimmed in the store: trim here, but keep a run that started before the cut starting at it.
    if (n > 0 && !points->isEmpty() && points->constBegin()->key < s->first().t) {
        const double cut = s->first().t;
        const auto it = points->findBegin(cut, false);
        const double carried = it != points->constBegin() ? (it - 1)->value : kNaN;
        points->removeBefore(cut);
        if (!points->isEmpty() && points->constBegin()->key > cut && !std::isnan(carried))
            points->add(QCPGraphData(cut, carried));
    }
}

void LiveCharts::clearPage(Page page)
{
    PageView &v = view(page);
    for (const Entry &e : std::as_const(v.entries)) {
        // removeGraph only knows the plot's default legend: ours are two others.
        e.graph->removeFromLegend(e.bottom ? v.bottomLegend : v.topLegend);
        v.plot->removeGraph(e.graph);
    }
    v.entries.clear();
    v.byKey.clear();
    v.jobIndex.clear();
    m_structureDirty[int(page)] = true;
}

void LiveCharts::onStoreCleared()
{
    for (Page p : {Page::Inference, Page::Training, Page::Cards})
        clearPage(p);
    scheduleReplot();
}

void LiveCharts::updateLegendsAndAxes(PageView &v)
{
    // Jobs that did not run in the visible range are left out: of a day's many jobs, few run
    // at once.
    QHash<int, bool> ran;
    QList<SeriesStats> stats;
    stats.reserve(v.entries.size());
    for (const Entry &e : std::as_const(v.entries)) {
        stats.append(m_store->stats(e.key, m_range.lower, m_range.upper));
        if (e.info.metric == SeriesMetric::Speed)
            ran[e.info.id] = stats.last().count > 0 && stats.last().max > 0;
    }
    for (qsizetype i = 0; i < v.entries.size(); ++i) {
        Entry &e = v.entries[i];
        const SeriesStats &st = stats[i];
        const bool show = e.info.subject != SeriesSubject::Job || ran.value(e.info.id, false);
        QCPLegend *legend = e.bottom ? v.bottomLegend : v.topLegend;
        if (show != e.graph->visible()) {
            e.graph->setVisible(show);
            if (show)
                e.graph->addToLegend(legend);
            else
                e.graph->removeFromLegend(legend);
        }
        e.graph->setName(ChartStyle::legendText(e.info, st));
        // Dense graphs: no antialiasing and a one-pixel (cosmetic) pen, the raster engine's
        // fast path; the style stays (dashes, colour) and so does the legend's sample.
        const bool dense = st.count >= kDenseFrom;
        e.graph->setAntialiased(!dense);
        QPen pen = e.pen;
        if (dense)
            pen.setWidth(0);
        if (pen != e.graph->pen())
            e.graph->setPen(pen);
    }

    // Value axes fit what is visible.
    for (QCPAxisRect *rect : {v.top, v.bottom}) {
        for (QCPAxis *axis : {rect->axis(QCPAxis::atLeft), rect->axis(QCPAxis::atRight)}) {
            const Entry *firstOnAxis = nullptr;
            QCPRange range;
            bool found = false;
            const bool log = axis->scaleType() == QCPAxis::stLogarithmic;
            for (qsizetype i = 0; i < v.entries.size(); ++i) {
                const Entry &e = v.entries[i];
                if (e.graph->valueAxis() != axis || !e.graph->visible())
                    continue;
                if (!firstOnAxis)
                    firstOnAxis = &e;
                // The stats have the range already; a log axis leaves out what is not positive,
                // which only the graph can say.
                const SeriesStats &st = stats[i];
                if (st.count == 0)
                    continue;
                QCPRange r(st.min, st.max);
                if (log && !(st.min > 0)) {
                    bool ok = false;
                    r = e.graph->getValueRange(ok, QCP::sdPositive, m_range);
                    if (!ok)
                        continue;
                }
                range = found ? QCPRange(std::min(range.lower, r.lower),
                                         std::max(range.upper, r.upper))
                              : r;
                found = true;
            }
            if (!firstOnAxis)
                continue;
            const SeriesMetric metric = firstOnAxis->info.metric;
            if (ChartStyle::isPercent(metric)) {
                axis->setRange(-2, 102);
            } else if (log) {
                axis->setRange(found ? QCPRange(range.lower / 1.5, range.upper * 1.5)
                                     : QCPRange(10, 10000));
            } else if (!found) {
                axis->setRange(0, 1);
            } else {
                if (startsAtZero(metric))
                    range.lower = std::min(0.0, range.lower);
                const double pad = range.size() > 0 ? range.size() * 0.08
                                                    : std::max(1.0, std::abs(range.upper) * 0.1);
                axis->setRange(range.lower - (startsAtZero(metric) ? 0 : pad), range.upper + pad);
            }
        }
    }
}

void LiveCharts::updateMarkers(PageView &v)
{
    QList<MarkerLayer::Line> lines;
    for (const EventMarker &m : m_store->markers()) {
        if (m.t < m_range.lower || m.t > m_range.upper)
            continue;
        lines.append({m.t, ChartStyle::markerPen(m.kind), ChartStyle::markerLabel(m)});
    }
    v.topMarkers->setLines(lines);
    v.bottomMarkers->setLines(lines);
}

void LiveCharts::followNow()
{
    if (!m_live)
        return;
    const double now = m_store->latestTime();
    if (std::isnan(now))
        return;
    m_range = QCPRange(now - m_span, now);
}

void LiveCharts::applyRange()
{
    m_applyingRange = true;
    for (PageView &v : m_pages) {
        for (QCPAxisRect *r : {v.top, v.bottom}) {
            QCPAxis *x = r->axis(QCPAxis::atBottom);
            ChartStyle::setTimeAxis(x, m_utcOffset, m_range.size());
            x->setRange(m_range);
        }
    }
    m_applyingRange = false;
    if (m_range != m_emittedRange) {
        m_emittedRange = m_range;
        Q_EMIT timeRangeChanged(m_range.lower, m_range.upper);
    }
}

void LiveCharts::onUserRange(const QCPRange &range)
{
    if (m_applyingRange)
        return;
    m_range = range;
    m_span = range.size();
    setLive(false);
    applyRange();
    syncPresetButtons();
    scheduleReplot();
}

void LiveCharts::syncPresetButtons()
{
    int checked = -1;
    for (int i = 0; i < int(std::size(kPresets)); ++i) {
        if (std::abs(presetSeconds(kPresets[i]) - m_span) < 0.5)
            checked = i;
    }
    m_presetGroup->setExclusive(false);
    for (int i = 0; i < m_presetButtons.size(); ++i)
        m_presetButtons[i]->setChecked(i == checked);
    m_presetGroup->setExclusive(true);
}

void LiveCharts::updateCardChooser()
{
    // The cards by name from the client's cluster state; without a client, by id from the store.
    QList<QPair<int, QString>> cards;
    if (m_client && m_client->snapshot()) {
        const Sched::ClusterState &st = m_client->snapshot()->state;
        for (const Sched::CardState &c : st.cards())
            cards.append(
                    {c.id.value(), tr("%1 · GPU %2").arg(st.host(c.host).name).arg(c.indexOnHost)});
    } else {
        for (const QString &key : m_store->keys(u"card/")) {
            const TimeSeries *s = m_store->series(key);
            if (s && s->info().metric == SeriesMetric::Utilisation)
                cards.append({s->info().id, tr("Card %1").arg(s->info().id)});
        }
    }
    if (cards.size() == m_chooserCards)
        return;
    m_chooserCards = int(cards.size());
    const QSignalBlocker block(m_cardChooser);
    m_cardChooser->clear();
    m_cardChooser->addItem(tr("All cards"), -1);
    for (const auto &[id, name] : std::as_const(cards))
        m_cardChooser->addItem(name, id);
    const int at = m_cardChooser->findData(m_card.isValid() ? m_card.value() : -1);
    m_cardChooser->setCurrentIndex(std::max(0, at));
}

} // namespace Zhaoxi::Widgets
