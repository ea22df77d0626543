// SPDX-License-Identifier: GPL-3.0-or-later
#include "partitionchart.h"

#include "chartstyle.h"

#include <QEvent>
#include <QTimer>

#include <algorithm>
#include <cmath>

namespace Zhaoxi::Widgets {

using Models::SeriesMetric;
using Models::SeriesStore;

PartitionChart::PartitionChart(SeriesStore *store, QWidget *parent)
    : QCustomPlot(parent)
    , m_store(store)
{
    setObjectName(QStringLiteral("partitionChart"));
    setAutoAddPlottableToLegend(false);
    setBackground(palette().brush(QPalette::Base));
    if (legend)
        legend->setVisible(false);
    plotLayout()->insertRow(0);
    m_heading = new QCPTextElement(this, QString());
    plotLayout()->addElement(0, 0, m_heading);
    yAxis2->setVisible(true);
    yAxis->setRange(0, 100);
    for (int i = 0; i < 2; ++i)
        ChartStyle::stylePairedGraph(addGraph(xAxis, i == 0 ? yAxis : yAxis2), i);
    m_timer = new QTimer(this);
    m_timer->setSingleShot(true);
    m_timer->setInterval(500);
    connect(m_timer, &QTimer::timeout, this, [this] {
        if (isVisible())
            updateChart(false);
    });
    connect(m_store, &SeriesStore::appended, this, &PartitionChart::scheduleReplot);
    connect(m_store, &SeriesStore::cleared, this, &PartitionChart::scheduleReplot);
    connect(m_store, &SeriesStore::rebuilt, this, &PartitionChart::scheduleReplot);
    retranslateUi();
}

QSize PartitionChart::sizeHint() const
{
    return QSize(360, 170);
}

QSize PartitionChart::minimumSizeHint() const
{
    return QSize(200, 120);
}

void PartitionChart::setPartition(Domain::CardId card, int uid, const QString &title)
{
    if (card == m_card && uid == m_uid && title == m_title)
        return; // the same partition: the store's appends replot it
    m_card = card;
    m_uid = uid;
    m_title = title;
    retranslateUi();
    scheduleReplot();
}

void PartitionChart::setSpanSeconds(double seconds)
{
    m_span = seconds;
    scheduleReplot();
}

void PartitionChart::retranslateUi()
{
    xAxis->setLabel(tr("Local time"));
    yAxis->setLabel(tr("Utilisation (%)"));
    yAxis2->setLabel(tr("Memory in use (GiB)"));
    graph(0)->setName(tr("Utilisation"));
    graph(1)->setName(tr("Memory in use"));
    m_heading->setText(m_card.isValid() ? tr("History of %1").arg(m_title)
                                        : tr("Select a partition to see its history."));
}

void PartitionChart::scheduleReplot()
{
    if (!m_timer->isActive())
        m_timer->start();
}

void PartitionChart::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange) {
        retranslateUi();
        scheduleReplot();
    }
    if (event->type() == QEvent::PaletteChange) {
        setBackground(palette().brush(QPalette::Base));
        scheduleReplot();
    }
    QCustomPlot::changeEvent(event);
}

void PartitionChart::showEvent(QShowEvent *event)
{
    QCustomPlot::showEvent(event);
    scheduleReplot();
}

void PartitionChart::refresh()
{
    updateChart(true);
}

int PartitionChart::utilisationPoints() const
{
    return graph(0)->data()->size();
}

int PartitionChart::memoryPoints() const
{
    return graph(1)->data()->size();
}

void PartitionChart::updateChart(bool immediate)
{
    const double now = m_store->latestTime();
    const double from = now - m_span;
    double memoryMax = 0;
    for (int i = 0; i < 2; ++i) {
        QCPGraph *g = graph(i);
        g->data()->clear();
        if (!m_card.isValid() || std::isnan(now))
            continue;
        const Models::TimeSeries *s = m_store->series(SeriesStore::partitionKey(
                m_card, m_uid, i == 0 ? SeriesMetric::Utilisation : SeriesMetric::MemoryUsed));
        if (!s)
            continue;
        const double scale = i == 0 ? 1.0 : 1.0 / 1024.0; // MiB drawn as GiB
        QVector<QCPGraphData> points;
        for (qsizetype k = s->lowerBound(from); k < s->size(); ++k) {
            const double v = s->at(k).value * scale; // NaN: a gap
            points.append(QCPGraphData(s->at(k).t, v));
            if (i == 1 && std::isfinite(v))
                memoryMax = std::max(memoryMax, v);
        }
        g->data()->set(points, true);
    }
    yAxis2->setRange(0, memoryMax > 0 ? memoryMax * 1.15 : 1);
    if (!std::isnan(now)) {
        ChartStyle::setTimeAxis(xAxis, m_store->utcOffsetSeconds(), m_span);
        xAxis->setRange(from, now);
    }
    replot(immediate ? rpImmediateRefresh : rpRefreshHint);
}

} // namespace Zhaoxi::Widgets
