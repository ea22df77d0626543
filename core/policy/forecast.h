// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "loadguard.h"

namespace Zhaoxi::Policy {

// Forecast-driven: learns each service's daily shape (the rate per bucket of the day, from the
// history before the run, then from what it observes) and sizes replicas for the highest rate
// forecast within `lead`, so capacity moves ahead of ramps; the load-aware guard stays on as the
// safety net. The forecast is the learned shape scaled by how today compares with it so far
// (clamped to [levelMin, levelMax]).
//
// Weekdays: when the history's days tell weekdays apart (HistoryDays::byWeekday), a day's shape
// is the mean of the history's days of the same weekday when there are at least two, else of
// its class (Monday to Friday, or Saturday and Sunday) when that has at least two, else of every
// day; otherwise every day's. Days that share their source share one shape, and what is
// observed updates the shape of the day it was observed on (so of every day that shares it).
//
//   lead          duration, default 20m
//   learningRate  number 0..1, default 0.2: weight of today's bucket in the shape
//   levelMin, levelMax  numbers, default 0.8, 1.5
//   levelTau      duration, default 10m: how long the level takes to follow a change (0: at once)
//   + the guard's parameters (loadguard.h)
class Forecast final : public LoadGuard
{
public:
    static std::unique_ptr<Policy> create(const QJsonObject &params, PolicyError *error);
    QString name() const override { return QStringLiteral("forecast"); }
    void start(PolicyContext &ctx, qint64 nowMs) override;
    qint64 tick(PolicyContext &ctx, qint64 nowMs) override;

    // The learned rate (req/s) of a service at a local time (ms since a local Monday 00:00: its
    // weekday's shape), before the level correction.
    double shapeAt(int service, qint64 localWeekMs) const;
    // Which days a weekday's shape (1 Monday .. 7 Sunday) was learnt from: the weekday itself,
    // "weekdays", "weekend" or "all"; empty for an unknown service.
    QString shapeSource(int service, int weekday) const;
    double forecastMax(int service, qint64 fromLocalMs, qint64 toLocalMs, double level) const;

protected:
    double plannedRate(PolicyContext &ctx, const ServiceView &s, qint64 nowMs) override;
    qint64 roomDeadlineMs(qint64 nowMs) const override { return nowMs + m_leadMs; }
    // The learned day's highest rate at today's level (or the highest seen, if more).
    double peakRate(const ServiceView &s, double seenRps) const override;

private:
    struct Learned
    {
        QList<QList<double>> shapes; // req/s per bucket of the day, one per source of days
        int shapeOf[7] = {0, 0, 0, 0, 0, 0, 0}; // per weekday (Monday first): its shape
        QString sourceOf[7];                    // ... and which days it came from
        int bucket = -1;                        // the bucket being observed
        int bucketDay = -1;                     // ... on this weekday (Monday 0)
        qint64 arrivalsAtBucketStart = 0;
        qint64 bucketStartMs = 0;
        double level = 1;
        qint64 levelAtMs = -1;
    };
    qint64 m_leadMs = 20 * 60'000;
    double m_learningRate = 0.2;
    double m_levelMin = 0.8;
    double m_levelMax = 1.5;
    qint64 m_levelTauMs = 10 * 60'000;
    qint64 m_bucketMs = 15 * 60'000;
    const QList<double> &shapeOn(const Learned &l, int day) const
    {
        return l.shapes[l.shapeOf[day]];
    }
    int m_today = 0; // the weekday (Monday 0) at the last start or tick, for peakRate
    QList<Learned> m_learned;
};

} // namespace Zhaoxi::Policy
