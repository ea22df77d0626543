// SPDX-License-Identifier: GPL-3.0-or-later
#include "ratecurve.h"

#include <QDateTime>
#include <QFile>
#include <QTimeZone>

#include <algorithm>
#include <cmath>

namespace Zhaoxi::Sim {

namespace {
constexpr qint64 kHourMs = 3600'000;

qint64 floorMod(qint64 a, qint64 b)
{
    const qint64 r = a % b;
    return r < 0 ? r + b : r;
}
// How an error shows a cell it could not read. The file is whatever path a scenario names (any
// file the reader may open), so its content is shown only as far as it could be a value: a short
// cell of the characters numbers and times are written with. Anything else is described, not
// quoted.
QString shownCell(const QString &cell)
{
    static const QString kPlausible = QStringLiteral("0123456789+-.:eETZ _/");
    bool plausible = cell.size() <= 24;
    for (const QChar c : cell)
        plausible = plausible && (kPlausible.contains(c) || (c.isLetter() && c.unicode() < 128));
    if (plausible)
        return QStringLiteral("\"%1\"").arg(cell);
    return QStringLiteral("a value of %1 characters that is not shown").arg(cell.size());
}

} // namespace

RateCurve::RateCurve(QList<double> points, double peak, double shiftHours, double floor)
    : m_peak(peak)
    , m_floor(floor * peak)
    , m_shiftMs(qint64(std::llround(shiftHours * kHourMs)))
{
    const double top = points.isEmpty() ? 0 : *std::max_element(points.cbegin(), points.cend());
    for (double p : points)
        m_points.append(top > 0 ? p / top * peak : 0);
    m_periodMs = qint64(m_points.size()) * kHourMs;
    if (m_periodMs == 0)
        m_periodMs = 24 * kHourMs;
}

RateCurve RateCurve::constant(double rate)
{
    return RateCurve(QList<double>(24, 1.0), rate);
}

RateCurve RateCurve::diurnal(double base, double peak, double peakHour)
{
    QList<double> p;
    for (int h = 0; h < 24; ++h)
        p.append(base
                 + (peak - base) * (1 + std::cos(6.283185307179586 * (h + 0.5 - peakHour) / 24))
                           / 2);
    RateCurve c(p, 1.0);
    c.m_points = p; // absolute values: keep them unscaled
    c.m_peak = *std::max_element(p.cbegin(), p.cend());
    return c;
}

RateCurve RateCurve::recorded(QList<double> rates, qint64 bucketMs, qint64 firstLocalMs)
{
    RateCurve c;
    c.m_stepMs = std::max<qint64>(1, bucketMs);
    c.m_flatEnds = true;
    c.m_shiftMs = firstLocalMs;
    for (double &r : rates)
        r = std::max(0.0, std::isfinite(r) ? r : 0.0);
    c.m_points = std::move(rates);
    c.m_peak = c.m_points.isEmpty() ? 0 : *std::max_element(c.m_points.cbegin(), c.m_points.cend());
    c.m_periodMs = std::max<qint64>(1, qint64(c.m_points.size()) * c.m_stepMs);
    return c;
}

double RateCurve::atRecorded(qint64 localMs) const
{
    const qsizetype n = m_points.size();
    // Before the recording nothing runs; the bounds asked there (is it silent for ever, an
    // hour's highest rate for thinning) may only overestimate: the peak.
    if (localMs < m_shiftMs)
        return m_peak;
    const qint64 t = localMs - m_shiftMs - m_stepMs / 2;
    if (t <= 0)
        return m_points.first();
    const qint64 i = t / m_stepMs;
    if (i >= n - 1)
        return m_points.last();
    const double f = double(t % m_stepMs) / double(m_stepMs);
    return m_points[i] + (m_points[i + 1] - m_points[i]) * f;
}

double RateCurve::at(qint64 localMs) const
{
    if (m_points.isEmpty())
        return 0;
    if (m_flatEnds)
        return atRecorded(localMs);
    // Points sit at the middle of their hour; interpolate between neighbours, wrapping around.
    qint64 t = localMs - m_shiftMs - kHourMs / 2;
    if (t < 0 || t >= m_periodMs) {
        // The period by a floating-point quotient (a 64-bit integer division costs several
        // times more, once per request), corrected to the exact remainder.
        t -= qint64(double(t) / double(m_periodMs)) * m_periodMs;
        if (t < 0)
            t += m_periodMs;
        else if (t >= m_periodMs)
            t -= m_periodMs;
        if (t < 0 || t >= m_periodMs) // beyond a double's integers
            t = floorMod(localMs - m_shiftMs - kHourMs / 2, m_periodMs);
    }
    const qsizetype n = m_points.size();
    const qsizetype i = qsizetype(t / kHourMs);
    const double f = double(t % kHourMs) / double(kHourMs);
    const double v = m_points[i] + (m_points[i + 1 == n ? 0 : i + 1] - m_points[i]) * f;
    return std::max(v, m_floor);
}

double RateCurve::rate(qint64 localMs) const
{
    return at(localMs);
}

template<typename Pick>
double RateCurve::extremeRate(qint64 fromMs, qint64 toMs, Pick pick) const
{
    // Linear between knots (hour middles) and clamped below by the floor: the extremes lie at
    // the ends or on a knot inside the interval.
    double m = pick(at(fromMs), at(toMs));
    const qint64 phase = m_shiftMs + m_stepMs / 2;
    qint64 k = fromMs - floorMod(fromMs - phase, m_stepMs);
    if (k < fromMs)
        k += m_stepMs;
    for (; k <= toMs; k += m_stepMs)
        m = pick(m, at(k));
    return m;
}

double RateCurve::maxRate(qint64 fromMs, qint64 toMs) const
{
    return extremeRate(fromMs, toMs, [](double a, double b) { return std::max(a, b); });
}

double RateCurve::minRate(qint64 fromMs, qint64 toMs) const
{
    return extremeRate(fromMs, toMs, [](double a, double b) { return std::min(a, b); });
}

std::optional<QList<double>> readHourlyCurve(const QString &path, QString *error)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) {
        if (error)
            *error = QStringLiteral("cannot open: %1").arg(f.errorString());
        return std::nullopt;
    }
    QList<double> values;
    int lineNo = 0;
    bool headerSeen = false;
    while (!f.atEnd()) {
        ++lineNo;
        QString line = QString::fromUtf8(f.readLine());
        const qsizetype hash = line.indexOf(QLatin1Char('#'));
        if (hash >= 0)
            line.truncate(hash);
        line = line.trimmed();
        if (line.isEmpty())
            continue;
        const QStringList parts = line.split(QLatin1Char(','));
        bool ok = false;
        const double v = parts.last().trimmed().toDouble(&ok);
        if (!ok) {
            if (!headerSeen && values.isEmpty()) {
                headerSeen = true;
                continue;
            }
            if (error)
                *error = QStringLiteral("line %1: expected a number, got %2")
                                 .arg(lineNo)
                                 .arg(shownCell(parts.last().trimmed()));
            return std::nullopt;
        }
        if (!(v >= 0) || !std::isfinite(v)) {
            if (error)
                *error = QStringLiteral("line %1: rate must be >= 0").arg(lineNo);
            return std::nullopt;
        }
        values.append(v);
    }
    if (values.size() != 24 && values.size() != 168) {
        if (error)
            *error = QStringLiteral("expected 24 or 168 hourly values, got %1").arg(values.size());
        return std::nullopt;
    }
    if (*std::max_element(values.cbegin(), values.cend()) <= 0) {
        if (error)
            *error = QStringLiteral("every value is zero");
        return std::nullopt;
    }
    return values;
}

std::optional<QList<double>> hourlyShapeFromTrace(const QString &path,
                                                  const QString &column,
                                                  double utcOffsetHours,
                                                  bool weekly,
                                                  QString *error)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) {
        if (error)
            *error = QStringLiteral("cannot open: %1").arg(f.errorString());
        return std::nullopt;
    }
    const QStringList header = QString::fromUtf8(f.readLine()).trimmed().split(QLatin1Char(','));
    const qsizetype col = header.indexOf(column);
    if (col < 0) {
        if (error)
            *error = QStringLiteral("no column \"%1\" in the header").arg(column);
        return std::nullopt;
    }
    QList<double> counts(weekly ? 168 : 24, 0.0);
    const qint64 offsetMs = qint64(std::llround(utcOffsetHours * kHourMs));
    int lineNo = 1;
    while (!f.atEnd()) {
        ++lineNo;
        const QString line = QString::fromUtf8(f.readLine()).trimmed();
        if (line.isEmpty())
            continue;
        const QStringList parts = line.split(QLatin1Char(','));
        if (parts.size() <= col)
            continue;
        const QString cell = parts[col].trimmed();
        qint64 ms = 0;
        bool ok = false;
        const double secs = cell.toDouble(&ok);
        if (ok) {
            ms = qint64(std::llround(secs * 1000));
        } else {
            QDateTime dt = QDateTime::fromString(cell, QStringLiteral("yyyy-MM-dd HH:mm:ss"));
            if (!dt.isValid()) {
                if (error)
                    *error = QStringLiteral("line %1: cannot read time %2")
                                     .arg(lineNo)
                                     .arg(shownCell(cell));
                return std::nullopt;
            }
            dt.setTimeZone(QTimeZone::utc());
            ms = dt.toMSecsSinceEpoch();
        }
        const qint64 local = ms + offsetMs;
        // 1970-01-01 was a Thursday: day index 3 counting from Monday.
        const qint64 hourOfEpoch = local >= 0 ? local / kHourMs : (local - kHourMs + 1) / kHourMs;
        const qint64 idx = weekly ? floorMod(hourOfEpoch + 3 * 24, 168) : floorMod(hourOfEpoch, 24);
        counts[idx] += 1;
    }
    if (*std::max_element(counts.cbegin(), counts.cend()) <= 0) {
        if (error)
            *error = QStringLiteral("no rows");
        return std::nullopt;
    }
    return counts;
}

} // namespace Zhaoxi::Sim
