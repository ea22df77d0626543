// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/models/seriesstore.h"

#include <QCoreApplication>
#include <QPen>
#include <QString>

class QCustomPlot;
class QCPAxis;
class QCPGraph;

namespace Zhaoxi::Widgets {

// How the charts look and what they say about a series: colours, line styles, units and the
// translated words, in one place for LiveCharts and SparkChart. A series is never told apart by
// colour alone: each has a line style and a legend text too. GUI thread.
class ChartStyle
{
    Q_DECLARE_TR_FUNCTIONS(Zhaoxi::Widgets::ChartStyle)

public:
    // The i-th colour of a colour-blind-safe palette (Okabe & Ito), cycling.
    static QColor colour(int i);
    // The i-th line style for a family of series of one colour, cycling (solid, dash, dot, ...).
    static Qt::PenStyle lineStyle(int i);
    // The pen of the series `info` in the charts (its colour from `index` of its subject).
    static QPen pen(const Models::SeriesInfo &info, int index);
    // A small two-series chart's look (the spark lines, a partition's history): the first series
    // solid over a light fill, the second dashed, in the palette's first two colours.
    static void stylePairedGraph(QCPGraph *graph, int index);

    // "chat p99", "pretrain-4x", "Training utilisation", ...
    static QString seriesName(const Models::SeriesInfo &info);
    // The series' value with its unit: "412 ms", "45 %", "3.2 req/s".
    static QString valueWithUnit(Models::SeriesMetric metric, double value);
    // The number alone, as precise as its size needs: 930, 38.4, 0.52.
    static QString number(double value);
    // "chat p99 — last 412 ms · mean 380 · max 930"; "chat p99 — no data" when empty.
    static QString legendText(const Models::SeriesInfo &info, const Models::SeriesStats &stats);
    // The short label of an event marker on the time axis: "Window day", "Repartition · card 3".
    static QString markerLabel(const Models::EventMarker &marker);
    static QPen markerPen(Models::MarkerKind kind);

    // Whether a metric is a percentage (its axis is 0..100).
    static bool isPercent(Models::SeriesMetric metric);

    // Makes `axis` a time axis in the local time `utcOffsetSeconds` east of UTC, with labels fit
    // for a range of `spanSeconds`.
    static void setTimeAxis(QCPAxis *axis, int utcOffsetSeconds, double spanSeconds);
};

// Adds to `graph` the points of `series` from the sequence number `next` on (those the store has
// trimmed since are skipped) and returns the sequence number to go on from next time.
// `gapAtZero`: a value not above zero is drawn as a gap (a log axis has no place for it).
// `collapseRuns`: a run of one value keeps its first and last point only, the last moved along:
// the line looks the same, and a flat series (an idle card, an SLO) costs two points.
quint64 appendNewPoints(QCPGraph *graph,
                        const Models::TimeSeries &series,
                        quint64 next,
                        bool gapAtZero,
                        bool collapseRuns);

} // namespace Zhaoxi::Widgets
