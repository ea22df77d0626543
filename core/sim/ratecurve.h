// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QString>

#include <optional>

namespace Zhaoxi::Sim {

// A request rate over local time: hourly points of a daily (24) or weekly (168) shape, linear in
// between (each point sits in the middle of its hour), scaled so the largest point is `peak`
// requests per second, shifted by `shiftHours`, and never below floor * peak. Immutable after
// construction; pure.
class RateCurve
{
public:
    RateCurve() = default;
    // `points`: 24 or 168 non-negative values, not all zero. Their unit does not matter.
    RateCurve(QList<double> points, double peak, double shiftHours = 0, double floor = 0);
    static RateCurve constant(double rate);
    // A synthetic day: base + (peak - base) * (1 + cos(2π (h - peakHour) / 24)) / 2.
    static RateCurve diurnal(double base, double peak, double peakHour);
    // A recorded period (a replay): `rates` in requests per second, one per bucket of `bucketMs`
    // from local time `firstLocalMs` on, each at the middle of its bucket, linear in between and
    // flat before the first middle and after the last (no wrapping). Before `firstLocalMs` it
    // reads as its peak, an upper bound for whoever asks there.
    static RateCurve recorded(QList<double> rates, qint64 bucketMs, qint64 firstLocalMs);

    // Requests per second at local time `localMs` (ms since a local midnight that starts a
    // Monday for weekly shapes).
    double rate(qint64 localMs) const;
    // The largest rate within [fromMs, toMs] (exact: the curve is piecewise linear).
    double maxRate(qint64 fromMs, qint64 toMs) const;
    // The smallest rate within [fromMs, toMs] (exact, as maxRate).
    double minRate(qint64 fromMs, qint64 toMs) const;
    double peak() const { return m_peak; }
    bool isWeekly() const { return m_points.size() == 168; }
    const QList<double> &points() const { return m_points; } // scaled, per hour

private:
    double at(qint64 localMs) const;
    double atRecorded(qint64 localMs) const;
    template<typename Pick>
    double extremeRate(qint64 fromMs, qint64 toMs, Pick pick) const;
    QList<double> m_points; // req/s at the middle of each hour (after scaling, before shift)
    double m_peak = 0;
    double m_floor = 0; // req/s
    qint64 m_shiftMs = 0;
    qint64 m_periodMs = 24 * 3600'000LL;
    qint64 m_stepMs = 3600'000LL; // between points: an hour, or a recorded bucket
    bool m_flatEnds = false;      // recorded: no wrapping around
};

// Reads an hourly curve file: one value per line ("hour,value" or just "value"); '#' starts a
// comment; a header line of non-numbers is skipped. 24 or 168 values. On error returns nullopt
// and says why in *error ("line N: ...").
std::optional<QList<double>> readHourlyCurve(const QString &path, QString *error);

// Derives the hourly shape of a raw trace (e.g. lora_request_trace.csv): counts the rows per
// hour of day (24) or of week (168, Monday first) of the timestamp in column `column` (by header
// name), written "yyyy-MM-dd HH:mm:ss" or as epoch seconds; `utcOffsetHours` moves the
// timestamps to local time. On error returns nullopt with *error.
std::optional<QList<double>> hourlyShapeFromTrace(const QString &path,
                                                  const QString &column,
                                                  double utcOffsetHours,
                                                  bool weekly,
                                                  QString *error);

} // namespace Zhaoxi::Sim
