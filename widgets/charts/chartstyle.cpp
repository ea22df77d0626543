// SPDX-License-Identifier: GPL-3.0-or-later
#include "chartstyle.h"

#include <QLocale>
#include <QTimeZone>

#include "qcp.h"

#include <cmath>
#include <limits>

namespace Zhaoxi::Widgets {

using Models::EventMarker;
using Models::MarkerKind;
using Models::SeriesInfo;
using Models::SeriesMetric;
using Models::SeriesStats;
using Models::SeriesSubject;

void ChartStyle::stylePairedGraph(QCPGraph *graph, int index)
{
    QPen pen(colour(index));
    pen.setWidthF(1.5);
    pen.setStyle(index == 0 ? Qt::SolidLine : Qt::DashLine);
    graph->setPen(pen);
    if (index == 0)
        graph->setBrush(QColor(pen.color().red(), pen.color().green(), pen.color().blue(), 40));
}

QColor ChartStyle::colour(int i)
{
    // Okabe & Ito's palette without its yellow (too pale on white).
    static const QRgb kColours[]
            = {0x0072B2, 0xE69F00, 0x009E73, 0xD55E00, 0xCC79A7, 0x56B4E9, 0x000000};
    constexpr int n = int(std::size(kColours));
    return QColor::fromRgb(kColours[((i % n) + n) % n]);
}

Qt::PenStyle ChartStyle::lineStyle(int i)
{
    static const Qt::PenStyle kStyles[]
            = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine, Qt::DashDotDotLine};
    constexpr int n = int(std::size(kStyles));
    return kStyles[((i % n) + n) % n];
}

QPen ChartStyle::pen(const SeriesInfo &info, int index)
{
    QPen p(colour(index));
    p.setWidthF(1);
    switch (info.metric) {
    case SeriesMetric::P99:
    case SeriesMetric::Rate:
        p.setWidthF(1.5);
        break;
    case SeriesMetric::P50:
        p.setStyle(Qt::DashLine);
        break;
    case SeriesMetric::Slo:
        // Long dashes, thicker than the p50's, so the objective reads as a limit.
        p.setWidthF(2);
        p.setDashPattern({6, 3});
        break;
    case SeriesMetric::Speed:
    case SeriesMetric::Loss:
        // Jobs are many: colour and line style both cycle, so no two of 35 look alike.
        p.setColor(colour(index % 7));
        p.setStyle(lineStyle(index / 7));
        break;
    case SeriesMetric::TrainingUtil:
        p.setColor(colour(0));
        p.setWidthF(1.5);
        break;
    case SeriesMetric::InferenceUtil:
        p.setColor(colour(1));
        p.setWidthF(1.5);
        p.setStyle(Qt::DashLine);
        break;
    case SeriesMetric::Utilisation:
        p.setColor(colour(6));
        p.setStyle(Qt::DashDotLine);
        break;
    case SeriesMetric::MemoryPercent:
    case SeriesMetric::MemoryUsed:
        p.setColor(colour(2));
        p.setStyle(Qt::DotLine);
        p.setWidthF(1.5);
        break;
    case SeriesMetric::Temperature:
        p.setColor(colour(3));
        break;
    case SeriesMetric::Power:
        p.setColor(colour(4));
        p.setStyle(Qt::DashLine);
        break;
    }
    return p;
}

QString ChartStyle::seriesName(const SeriesInfo &info)
{
    const bool appliance = info.subject == SeriesSubject::Appliance;
    switch (info.metric) {
    case SeriesMetric::P50:
        return tr("%1 p50").arg(info.name);
    case SeriesMetric::P99:
        return tr("%1 p99").arg(info.name);
    case SeriesMetric::Rate:
        return tr("%1 requests").arg(info.name);
    case SeriesMetric::Slo:
        return tr("%1 SLO").arg(info.name);
    case SeriesMetric::Speed:
        return info.name.isEmpty() ? tr("Job %1").arg(info.id) : info.name;
    case SeriesMetric::Loss:
        return info.name.isEmpty() ? tr("Job %1 loss").arg(info.id) : tr("%1 loss").arg(info.name);
    case SeriesMetric::Utilisation:
        return appliance ? tr("Utilisation (mean)") : tr("Utilisation");
    case SeriesMetric::TrainingUtil:
        return appliance ? tr("Training (mean)") : tr("Training");
    case SeriesMetric::InferenceUtil:
        return appliance ? tr("Inference (mean)") : tr("Inference");
    case SeriesMetric::MemoryUsed:
    case SeriesMetric::MemoryPercent:
        return appliance ? tr("Memory (all cards)") : tr("Memory");
    case SeriesMetric::Temperature:
        return appliance ? tr("Temperature (hottest card)") : tr("Temperature");
    case SeriesMetric::Power:
        return appliance ? tr("Power (all cards)") : tr("Power");
    }
    return info.key;
}

QString ChartStyle::number(double value)
{
    if (std::isnan(value))
        return tr("n/a");
    const double a = std::abs(value);
    const int decimals = a >= 100 || a == 0 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
    // No group separators: legends are dense, and "1000 ms" reads as well as "1,000 ms".
    QLocale locale;
    locale.setNumberOptions(locale.numberOptions() | QLocale::OmitGroupSeparator);
    return locale.toString(value, 'f', decimals);
}

QString ChartStyle::valueWithUnit(SeriesMetric metric, double value)
{
    const QString n = number(value);
    if (std::isnan(value))
        return n;
    switch (metric) {
    case SeriesMetric::P50:
    case SeriesMetric::P99:
    case SeriesMetric::Slo:
        return tr("%1 ms").arg(n);
    case SeriesMetric::Rate:
        return tr("%1 req/s").arg(n);
    case SeriesMetric::Speed:
        return tr("%1 cards").arg(n);
    case SeriesMetric::Loss:
        return n;
    case SeriesMetric::Utilisation:
    case SeriesMetric::TrainingUtil:
    case SeriesMetric::InferenceUtil:
    case SeriesMetric::MemoryPercent:
        return tr("%1 %").arg(n);
    case SeriesMetric::MemoryUsed:
        return tr("%1 MiB").arg(n);
    case SeriesMetric::Temperature:
        return tr("%1 °C").arg(n);
    case SeriesMetric::Power:
        return tr("%1 W").arg(n);
    }
    return n;
}

QString ChartStyle::legendText(const SeriesInfo &info, const SeriesStats &stats)
{
    const QString name = seriesName(info);
    if (info.metric == SeriesMetric::Slo) // a limit, not a measurement: its value says it all
        return stats.count > 0 ? tr("%1 %2").arg(name, valueWithUnit(info.metric, stats.last))
                               : name;
    if (stats.count == 0)
        return tr("%1 — no data").arg(name);
    return tr("%1 — last %2 · mean %3 · max %4")
            .arg(name,
                 valueWithUnit(info.metric, stats.last),
                 number(stats.mean),
                 number(stats.max));
}

QString ChartStyle::markerLabel(const EventMarker &m)
{
    switch (m.kind) {
    case MarkerKind::Window:
        if (!m.windowName.isEmpty())
            return tr("Window: %1").arg(m.windowName);
        return tr("Window %1").arg(m.window);
    case MarkerKind::Repartition:
        if (m.card >= 0)
            return tr("Repartition · card %1").arg(m.card);
        return tr("Repartition");
    case MarkerKind::Preemption:
        if (m.job >= 0)
            return tr("Preemption · job %1").arg(m.job);
        return tr("Preemption");
    case MarkerKind::Fault:
        if (m.card >= 0)
            return tr("Fault · card %1").arg(m.card);
        return tr("Fault");
    }
    return QString();
}

QPen ChartStyle::markerPen(MarkerKind kind)
{
    QPen p;
    p.setWidthF(1);
    switch (kind) {
    case MarkerKind::Window:
        p.setColor(QColor(0x44, 0x44, 0x44));
        p.setWidthF(1.5);
        break;
    case MarkerKind::Repartition:
        p.setColor(colour(0));
        p.setStyle(Qt::DashLine);
        break;
    case MarkerKind::Preemption:
        p.setColor(colour(3));
        p.setStyle(Qt::DashDotLine);
        break;
    case MarkerKind::Fault:
        p.setColor(colour(4));
        p.setStyle(Qt::DotLine);
        p.setWidthF(2);
        break;
    }
    return p;
}

bool ChartStyle::isPercent(SeriesMetric metric)
{
    switch (metric) {
    case SeriesMetric::Utilisation:
    case SeriesMetric::TrainingUtil:
    case SeriesMetric::InferenceUtil:
    case SeriesMetric::MemoryPercent:
        return true;
    default:
        return false;
    }
}

void ChartStyle::setTimeAxis(QCPAxis *axis, int utcOffsetSeconds, double spanSeconds)
{
    auto ticker = qSharedPointerDynamicCast<QCPAxisTickerDateTime>(axis->ticker());
    if (!ticker) {
        ticker.reset(new QCPAxisTickerDateTime);
        ticker->setTickCount(6);
        axis->setTicker(ticker);
    }
    // A fixed offset, as the snapshot gives it: the appliance's local time, not the console's.
    const QTimeZone zone(utcOffsetSeconds);
    if (ticker->timeZone() != zone)
        ticker->setTimeZone(zone);
    const QString format
            = spanSeconds <= 20 * 60 ? QStringLiteral("HH:mm:ss") : QStringLiteral("HH:mm");
    if (ticker->dateTimeFormat() != format)
        ticker->setDateTimeFormat(format);
}

quint64 appendNewPoints(QCPGraph *graph,
                        const Models::TimeSeries &series,
                        quint64 next,
                        bool gapAtZero,
                        bool collapseRuns)
{
    QSharedPointer<QCPGraphDataContainer> points = graph->data();
    const quint64 first = series.firstSequence();
    const qsizetype n = series.size();
    for (qsizetype i = next > first ? qsizetype(next - first) : 0; i < n; ++i) {
        const Models::SeriesPoint &p = series.at(i);
        const double value
                = gapAtZero && !(p.value > 0) ? std::numeric_limits<double>::quiet_NaN() : p.value;
        if (collapseRuns && points->size() >= 2) {
            const auto last = points->end() - 1;
            if (last->value == value && (last - 1)->value == value) {
                last->key = p.t;
                continue;
            }
        }
        points->add(QCPGraphData(p.t, value));
    }
    return series.nextSequence();
}

} // namespace Zhaoxi::Widgets
