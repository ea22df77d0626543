// SPDX-License-Identifier: GPL-3.0-or-later
#include "sparkchart.h"

#include "chartstyle.h"

#include <QEvent>
#include <QTimer>

#include <cmath>

namespace Zhaoxi::Widgets {

using Models::SeriesMetric;
using Models::SeriesStats;
using Models::TimeSeries;

SparkChart::SparkChart(Models::SeriesStore *store, QWidget *parent)
    : QCustomPlot(parent)
    , m_store(store)
{
    setObjectName(QStringLiteral("sparkChart"));
    setAutoAddPlottableToLegend(false);
    setPlottingHint(QCP::phFastPolylines, true);
    // Opaque: a QCustomPlot paints its whole rect from its buffer, so a transparent background
    // comes out black.
    setBackground(palette().brush(QPalette::Base));
    QCPAxisRect *rect = axisRect();
    rect->setAutoMargins(QCP::msNone);
    rect->setMargins(QMargins(1, 2, 1, 2));
    for (QCPAxis *a : rect->axes())
        a->setVisible(false);
    if (legend)
        legend->setVisible(false);

    m_timer = new QTimer(this);
    m_timer->setSingleShot(true);
    m_timer->setInterval(200); // at most five replots a second
    connect(m_timer, &QTimer::timeout, this, [this] {
        if (isVisible())
            updateChart(false);
    });
    connect(m_store, &Models::SeriesStore::appended, this, &SparkChart::scheduleReplot);
    connect(m_store, &Models::SeriesStore::seriesAdded, this, &SparkChart::scheduleReplot);
    connect(m_store, &Models::SeriesStore::cleared, this, &SparkChart::rebuild);
    connect(m_store, &Models::SeriesStore::rebuilt, this, &SparkChart::rebuild);
}

QSize SparkChart::sizeHint() const
{
    return QSize(160, 36);
}

QSize SparkChart::minimumSizeHint() const
{
    return QSize(60, 20);
}

void SparkChart::setSeries(const QString &key, const QString &secondKey)
{
    m_keys = QStringList{key};
    if (!secondKey.isEmpty())
        m_keys.append(secondKey);
    rebuild();
}

void SparkChart::setSpanSeconds(double seconds)
{
    m_span = seconds;
    scheduleReplot();
}

void SparkChart::rebuild()
{
    clearGraphs();
    m_next = QList<quint64>(m_keys.size(), 0);
    for (int i = 0; i < m_keys.size(); ++i) {
        QCPGraph *g = addGraph(xAxis, i == 0 ? yAxis : yAxis2);
        ChartStyle::stylePairedGraph(g, i);
        g->setAdaptiveSampling(true);
    }
    scheduleReplot();
}

void SparkChart::scheduleReplot()
{
    if (!m_timer->isActive())
        m_timer->start();
}

void SparkChart::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange) {
        setBackground(palette().brush(QPalette::Base));
        scheduleReplot();
    }
    if (event->type() == QEvent::LanguageChange)
        scheduleReplot();
    QCustomPlot::changeEvent(event);
}

void SparkChart::showEvent(QShowEvent *event)
{
    QCustomPlot::showEvent(event);
    scheduleReplot();
}

void SparkChart::refresh()
{
    updateChart(true);
}

void SparkChart::updateChart(bool immediate)
{
    const double now = m_store->latestTime();
    QStringList lines;
    for (int i = 0; i < m_keys.size() && i < graphCount(); ++i) {
        const TimeSeries *s = m_store->series(m_keys[i]);
        QCPGraph *g = graph(i);
        if (!s)
            continue;
        m_next[i] = appendNewPoints(g, *s, m_next[i], /*gapAtZero=*/false, /*collapseRuns=*/false);
        // A spark chart shows minutes: keep a little more than its span, not the store's day.
        g->data()->removeBefore(now - 2 * m_span);

        const SeriesStats st = Models::SeriesStore::stats(*s, now - m_span, now);
        QCPAxis *axis = g->valueAxis();
        if (ChartStyle::isPercent(s->info().metric)) {
            axis->setRange(0, 100);
        } else if (st.count > 0) {
            const double lo = std::min(0.0, st.min);
            axis->setRange(lo, st.max > lo ? st.max * 1.1 : lo + 1);
        }
        const Models::SeriesInfo &info = s->info();
        lines.append(ChartStyle::tr("%1: last %2 · max %3")
                             .arg(ChartStyle::seriesName(info),
                                  ChartStyle::valueWithUnit(info.metric, st.last),
                                  ChartStyle::valueWithUnit(info.metric, st.max)));
    }
    if (!std::isnan(now))
        xAxis->setRange(now - m_span, now);
    setToolTip(lines.join(QLatin1Char('\n')));
    replot(immediate ? rpImmediateRefresh : rpRefreshHint);
}

} // namespace Zhaoxi::Widgets
