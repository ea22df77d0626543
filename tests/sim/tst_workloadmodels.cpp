// SPDX-License-Identifier: GPL-3.0-or-later
// The workload models against hand-computed cases: an M/D/1 queue's mean wait, a training job's
// finish time with one preemption, rate curves, latency quantiles.
#include "core/policy/queueing.h"
#include "core/sim/fluidbound.h"
#include "core/sim/inferenceservice.h"
#include "core/sim/latencyhistogram.h"
#include "core/sim/random.h"
#include "core/sim/ratecurve.h"
#include "core/sim/trainingrun.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace Zhaoxi;
using namespace Zhaoxi::Sim;

namespace {
constexpr qint64 kMin = 60'000;
constexpr qint64 kHour = 3600'000;
} // namespace

Q_DECLARE_METATYPE(Zhaoxi::Sim::RateCurve)

class TestWorkloadModels : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void md1MeanWaitMatchesPollaczekKhinchine_data()
    {
        QTest::addColumn<double>("rate");    // req/s
        QTest::addColumn<double>("service"); // ms
        QTest::newRow("rho 0.5") << 5.0 << 100.0;
        QTest::newRow("rho 0.8") << 8.0 << 100.0;
    }
    void md1MeanWaitMatchesPollaczekKhinchine()
    {
        QFETCH(double, rate);
        QFETCH(double, service);
        InferenceService::Params p;
        p.name = QStringLiteral("q");
        p.serviceMs = service;
        p.cv = 0; // deterministic service: M/D/1
        p.sloMs = 1e9;
        p.curve = RateCurve::constant(rate);
        p.seed = 42;
        InferenceService s(p);
        const int r = s.addReplica(1.0);
        s.setReady(r, 0);
        s.runUntil(double(24 * kHour));
        // W = rho s / (2 (1 - rho)): 50 ms at rho 0.5, 200 ms at rho 0.8.
        const double expected = Policy::md1MeanWaitMs(rate / 1000.0, service);
        const double measured = s.totalWaitMs() / double(s.requests());
        QVERIFY2(std::abs(measured - expected) / expected < 0.05,
                 qPrintable(QStringLiteral("mean wait %1 ms, expected %2 ms")
                                    .arg(measured)
                                    .arg(expected)));
        // Latency = wait + service, per request.
        QVERIFY(std::abs(s.latencies().meanMs() - (measured + service)) < 0.5);
        QVERIFY(std::abs(double(s.requests()) / (24 * 3600.0) - rate) / rate < 0.01);
    }

    void twoReplicasShareTheLoad()
    {
        // Join-the-least-loaded with FIFO replicas is one M/D/2 queue: P(wait) = Erlang C.
        InferenceService::Params p;
        p.serviceMs = 100;
        p.sloMs = 1e9;
        p.curve = RateCurve::constant(10); // a = 1 Erlang on 2 servers: C = 1/3
        p.seed = 3;
        InferenceService s(p);
        s.setReady(s.addReplica(1.0), 0);
        s.setReady(s.addReplica(1.0), 0);
        s.runUntil(double(12 * kHour));
        QCOMPARE(Policy::erlangC(2, 1.0), 1.0 / 3.0);
        const double meanWait = s.totalWaitMs() / double(s.requests());
        // M/D/2 waits are shorter than M/M/2's (C s / (c - a) = 33 ms); about half of it.
        QVERIFY2(meanWait > 10 && meanWait < 25, qPrintable(QString::number(meanWait)));
    }

    void lostReplicaResendsItsRequests()
    {
        InferenceService::Params p;
        p.serviceMs = 1000;
        p.sloMs = 1e9;
        p.curve = RateCurve::constant(5); // far more than one replica can take
        InferenceService s(p);
        const int a = s.addReplica(1.0);
        const int b = s.addReplica(1.0);
        s.setReady(a, 0);
        s.setReady(b, 0);
        s.runUntil(10'000);
        const qint64 before = s.requests();
        const int resent = s.removeReplica(a, 10'000);
        QVERIFY(resent > 0);
        QCOMPARE(s.requests(), before); // taken back and sent again: counted once
        QCOMPARE(s.servingReplicas(), 1);
        QCOMPARE(s.failedOver(), resent);
    }

    void trainingFinishWithOnePreemption()
    {
        // 10 h of work at full speed, a checkpoint every 30 min of running time, 5 min to restart.
        TrainingRun run(TrainingRun::Params{10.0 * kHour, 30 * kMin, 5 * kMin});
        run.place(0, 0, 0);
        run.setSpeed(0, 1.0);
        QCOMPARE(run.nextCheckpointMs(0), 30 * kMin);
        for (qint64 t = 30 * kMin; t <= 120 * kMin; t += 30 * kMin)
            run.checkpoint(t);
        // Preempted at 130 min: progress since the 120-min checkpoint (10 min) is lost.
        const double lost = run.evict(130 * kMin);
        QCOMPARE(lost, double(10 * kMin));
        QCOMPARE(run.doneMs(), double(115 * kMin)); // 120 min running - 5 min restart
        // Back at 180 min on the scheduler's checkpoint grid (120 min of running time).
        run.place(180 * kMin, 180 * kMin, 120 * kMin);
        run.setSpeed(180 * kMin, 1.0);
        QCOMPARE(run.nextCheckpointMs(180 * kMin), 210 * kMin);
        // It restarts until 185 min and has 600 - 115 = 485 min to go: done at 670 min.
        QCOMPARE(run.finishEtaMs(180 * kMin), 670 * kMin);
        run.advance(670 * kMin);
        QVERIFY(run.isDone());
        QCOMPARE(run.lostMs(), double(10 * kMin));
        QCOMPARE(run.evictions(), 1);
    }

    void lossDecaysWithWork()
    {
        TrainingRun run(TrainingRun::Params{kHour, 0, 0}, LossCurve{3.0, 1.0, 1.0, double(kHour)});
        QCOMPARE(run.lossAt(0), 3.0);
        QCOMPARE(run.lossAt(double(kHour)), 2.0); // 1 + 2 / (1 + 1)
        QVERIFY(run.lossAt(1e12) < 1.001);
    }

    void rateCurveInterpolatesBetweenHourMiddles()
    {
        QList<double> pts(24, 1.0);
        pts[10] = 3.0;
        const RateCurve c(pts, 30.0, 0, 0);
        QCOMPARE(c.rate(10 * kHour + 30 * kMin), 30.0); // the middle of hour 10: the peak
        QCOMPARE(c.rate(10 * kHour), 20.0);             // halfway from 10 to 30
        QCOMPARE(c.rate(12 * kHour), 10.0);
        QCOMPARE(c.maxRate(8 * kHour, 10 * kHour), 20.0);
        QCOMPARE(c.maxRate(8 * kHour, 12 * kHour), 30.0);
        QCOMPARE(c.minRate(10 * kHour, 11 * kHour), 20.0); // the ends, below the peak between
        QCOMPARE(c.minRate(9 * kHour, 12 * kHour), 10.0);
        QCOMPARE(c.minRate(10 * kHour + 30 * kMin, 10 * kHour + 30 * kMin), 30.0);
        // Days later, the same values (the period is taken off exactly).
        QCOMPARE(c.rate(10 * kHour + 3 * 24 * kHour), 20.0);
        QCOMPARE(c.rate(10 * kHour - 24 * kHour), 20.0);
        QCOMPARE(c.rate(10 * kHour + 40000 * 24 * kHour), 20.0);
        // With a floor the lowest rate is the floor.
        const RateCurve withFloor(pts, 30.0, 0, 0.5);
        QCOMPARE(withFloor.minRate(0, 24 * kHour), 15.0);
        QCOMPARE(withFloor.maxRate(0, 24 * kHour), 30.0);
        const RateCurve shifted(pts, 30.0, 2, 0);
        QCOMPARE(shifted.rate(12 * kHour + 30 * kMin), 30.0);
        const RateCurve floored(QList<double>(24, 0.0) << 0, 10, 0, 0.5); // all zero: the floor
        Q_UNUSED(floored);
    }

    // Issue 14: a curve or trace file is whatever a scenario names; its errors show a cell only
    // as far as it could be a value (never, e.g., a line of /etc/shadow).
    void curveErrorsNeverPrintTheFilesContent()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto write = [&](const QString &name, const QByteArray &text) {
            QFile f(dir.filePath(name));
            if (f.open(QIODevice::WriteOnly))
                f.write(text);
            return dir.filePath(name);
        };
        const QString shadow = write(QStringLiteral("shadow"),
                                     "root:$y$j9T$SECRETHASH0:19700:0:99999:7:::\n"
                                     "daemon:*:19700:0:99999:7:::\n"
                                     "alice:$6$salt$SECRETHASH1:19700:0:99999:7:::\n");
        QString why;
        QVERIFY(!readHourlyCurve(shadow, &why));
        QVERIFY2(why.startsWith(QStringLiteral("line 2: expected a number")), qPrintable(why));
        QVERIFY2(!why.contains(QStringLiteral("daemon")) && !why.contains(QStringLiteral("SECRET")),
                 qPrintable(why));
        QVERIFY(!hourlyShapeFromTrace(shadow, QStringLiteral("x"), 0, false, &why));
        QVERIFY2(!why.contains(QStringLiteral("SECRET")), qPrintable(why));
        const QString trace = write(QStringLiteral("trace.csv"),
                                    "t,x\n2024-05-01 08:00:00,1\n$6$salt$SECRETHASH2,2\n");
        QVERIFY(!hourlyShapeFromTrace(trace, QStringLiteral("t"), 0, false, &why));
        QVERIFY2(why.startsWith(QStringLiteral("line 3: cannot read time")), qPrintable(why));
        QVERIFY2(!why.contains(QStringLiteral("SECRET")), qPrintable(why));
        // A short cell that could have been a value is still quoted, to be fixed.
        const QString typo = write(QStringLiteral("typo.csv"), "0,1\n1,1O0\n");
        QVERIFY(!readHourlyCurve(typo, &why));
        QCOMPARE(why, QStringLiteral("line 2: expected a number, got \"1O0\""));
    }

    void shippedCurveReads()
    {
        QString why;
        const auto pts = readHourlyCurve(
                qEnvironmentVariable("ZHAOXI_SOURCE_DIR")
                        + QStringLiteral("/resources/scenarios/lora-daily-shape.csv"),
                &why);
        QVERIFY2(pts, qPrintable(why));
        QCOMPARE(pts->size(), 24);
        QCOMPARE(*std::max_element(pts->cbegin(), pts->cend()), 1.0);
    }

    void histogramQuantilesWithinHalfAPercent()
    {
        LatencyHistogram h;
        for (int i = 1; i <= 100000; ++i)
            h.add(double(i) / 10.0); // 0.1 .. 10000 ms, uniform
        QVERIFY(std::abs(h.quantileMs(0.5) - 5000) / 5000 < 0.006);
        QVERIFY(std::abs(h.quantileMs(0.99) - 9900) / 9900 < 0.006);
        // Past 9000 ms: a tenth of the samples, to within the bucket 9000 ms falls in (1 %
        // wide: 90 ms, 900 samples here), which is not counted.
        const qint64 above = h.countAbove(9000);
        QVERIFY(above <= 10000 && above >= 10000 - 910);
        QCOMPARE(h.countAbove(20000), qint64(0));
        h.remove(10000.0);
        QCOMPARE(h.count(), 99999);
    }

    // The table behind bucketOf gives the logarithm's bucket for every double: either side of
    // each bucket's edge, across the range at random, and at the odd values.
    void histogramBucketTableMatchesTheLogarithm()
    {
        const auto next = [](double x, int ulps) {
            for (; ulps > 0; --ulps)
                x = std::nextafter(x, HUGE_VAL);
            for (; ulps < 0; ++ulps)
                x = std::nextafter(x, -HUGE_VAL);
            return x;
        };
        int checked = 0;
        for (int b = 1; b < LatencyHistogram::bucketCount(); ++b) {
            const double edge = 0.01 * std::pow(1.01, b);
            for (int u = -40; u <= 40; ++u) {
                const double x = next(edge, u * 25);
                QCOMPARE(LatencyHistogram::bucketOf(x), LatencyHistogram::bucketByDefinition(x));
                ++checked;
            }
        }
        Random rng(7);
        for (int i = 0; i < 1'000'000; ++i) {
            const double x = 0.005 * std::exp(rng.uniform() * 18.0); // 0.005 ms .. 5.5e5 s
            QCOMPARE(LatencyHistogram::bucketOf(x), LatencyHistogram::bucketByDefinition(x));
        }
        for (double x : {0.0, -1.0, 0.01, 0.0100000001, 1.0, 1e7, 1.2e7, 1e9, 1e300}) {
            QCOMPARE(LatencyHistogram::bucketOf(x), LatencyHistogram::bucketByDefinition(x));
        }
        QCOMPARE(LatencyHistogram::bucketOf(std::nan("")), 0);
        QCOMPARE(LatencyHistogram::bucketOf(HUGE_VAL), LatencyHistogram::bucketCount() - 1);
        QVERIFY(checked > 100'000);
    }

    // The ziggurats draw what they claim: the exponential's and the normal's distribution
    // functions within a few standard errors at every probe, their tails (the slow paths beyond
    // the first layer) in proportion, mean and variance. Fixed seeds: the figures are always the
    // same, and a broken layer table moves them far beyond the bounds.
    void zigguratsDrawTheirDistributions()
    {
        constexpr int n = 2'000'000;
        Random rng(11);
        std::vector<double> e(n), z(n);
        for (int i = 0; i < n; ++i) {
            e[size_t(i)] = rng.exponential(1.0);
            z[size_t(i)] = rng.normal();
        }
        std::sort(e.begin(), e.end());
        std::sort(z.begin(), z.end());
        const auto below = [&](const std::vector<double> &v, double x) {
            return double(std::lower_bound(v.begin(), v.end(), x) - v.begin()) / n;
        };
        // The empirical distribution function's standard error is at most 0.00035 here.
        for (double x : {0.01, 0.1, 0.5, 1.0, 2.0, 4.0, 7.0, 7.7, 9.0}) {
            const double want = 1 - std::exp(-x);
            QVERIFY2(std::abs(below(e, x) - want) < 0.002, qPrintable(QString::number(x)));
        }
        for (double x : {-3.5, -2.0, -1.0, -0.3, 0.0, 0.3, 1.0, 2.0, 3.44, 4.0}) {
            const double want = 0.5 * std::erfc(-x / std::sqrt(2.0));
            QVERIFY2(std::abs(below(z, x) - want) < 0.002, qPrintable(QString::number(x)));
        }
        // Tails: P(X > 8) = 3.35e-4 (about 671 of them), P(Z > 3.5) = 2.33e-4 (about 465).
        const double expTail = (1 - below(e, 8.0)) * n;
        const double normTail = (1 - below(z, 3.5)) * n;
        QVERIFY2(std::abs(expTail - n * std::exp(-8.0)) < 130,
                 qPrintable(QString::number(expTail)));
        QVERIFY2(std::abs(normTail - n * 0.5 * std::erfc(3.5 / std::sqrt(2.0))) < 110,
                 qPrintable(QString::number(normTail)));
        double sum = 0, sq = 0, esum = 0;
        for (int i = 0; i < n; ++i) {
            sum += z[size_t(i)];
            sq += z[size_t(i)] * z[size_t(i)];
            esum += e[size_t(i)];
        }
        QVERIFY(std::abs(sum / n) < 0.004);
        QVERIFY(std::abs(sq / n - 1) < 0.006);
        QVERIFY(std::abs(esum / n - 1) < 0.004);
        QVERIFY(e.front() >= 0);
    }

    // Reading a quantile or a tail walks the buckets in use; after samples leave (a window's
    // old slot), the answers are those of the samples left.
    void histogramRangeFollowsSubtraction()
    {
        LatencyHistogram window;
        LatencyHistogram old;
        LatencyHistogram recent;
        for (int i = 0; i < 100; ++i) {
            old.add(5000.0 + i); // a slow period
            recent.add(10.0 + i * 0.1);
        }
        window.merge(old);
        window.merge(recent);
        QVERIFY(window.quantileMs(0.99) > 4900);
        QCOMPARE(window.countAbove(1000), qint64(100));
        window.subtract(old);
        QCOMPARE(window.count(), qint64(100));
        QVERIFY(window.quantileMs(0.99) < 21);
        QCOMPARE(window.countAbove(1000), qint64(0));
        window.subtract(recent);
        QCOMPARE(window.count(), qint64(0));
        QCOMPARE(window.quantileMs(0.5), 0.0);
        old.clear();
        QCOMPARE(old.countAbove(0), qint64(0));
        old.add(3.0);
        QCOMPARE(old.countAbove(1.0), qint64(1));
        QVERIFY(std::abs(old.quantileMs(0.5) - 3.0) / 3.0 < 0.006);
    }

    void fluidBoundDrainsInArrivalOrder()
    {
        FluidBound b;
        b.addJob(0, 2.0 * kHour, 1.0); // 2 card-hours, one card wide
        b.addJob(kHour, 10.0 * kHour, 4.0);
        b.step(0, kHour, 3.0); // only the first has arrived: 1 card-hour
        QCOMPARE(b.workMs(), double(kHour));
        b.step(kHour, 2 * kHour, 3.0); // 1 + 2
        QCOMPARE(b.workMs(), double(4 * kHour));
    }

    void replicasForMeetsTheTarget()
    {
        // 30 req/s of 140 ms requests: 4.2 Erlangs.
        const int n = Policy::replicasFor(0.030, 140, 0.3, 700, 0.99, 0.7, 20);
        QVERIFY(n >= 6);
        QVERIFY(Policy::latencyQuantileMs(n, 0.030, 140, 0.3, 0.99) <= 700);
        QVERIFY(Policy::latencyQuantileMs(n - 1, 0.030, 140, 0.3, 0.99) > 700
                || (n - 1) * 0.7 < 4.2);
        QCOMPARE(Policy::replicasFor(0, 140, 0.3, 700, 0.99, 0.7, 20), 0);
    }

    // Issue 14: a target below one request's own service time is out of reach at once (it
    // used to try every count up to the limit, each at O(count)); a large answer is found
    // without scanning up to it, and is the count a scan finds.
    void replicasForGivesUpOrFindsLargeCountsQuickly_data()
    {
        QTest::addColumn<double>("rate"); // req/ms
        QTest::addColumn<double>("serviceMs");
        QTest::addColumn<double>("cv");
        QTest::addColumn<double>("targetMs");
        QTest::newRow("small") << 0.03 << 140.0 << 0.3 << 700.0;
        QTest::newRow("tight") << 0.03 << 140.0 << 0.0 << 150.0;
        QTest::newRow("large") << 20.0 << 100.0 << 0.3 << 400.0;
        QTest::newRow("huge, just above service") << 50.0 << 100.0 << 0.0 << 100.5;
    }
    void replicasForGivesUpOrFindsLargeCountsQuickly()
    {
        QFETCH(double, rate);
        QFETCH(double, serviceMs);
        QFETCH(double, cv);
        QFETCH(double, targetMs);
        const int limit = 100000;
        const int n = Policy::replicasFor(rate, serviceMs, cv, targetMs, 0.99, 1.0, limit);
        QVERIFY(n >= 1 && n <= limit);
        QVERIFY(Policy::latencyQuantileMs(n, rate, serviceMs, cv, 0.99) <= targetMs);
        QVERIFY(Policy::latencyQuantileMs(n - 1, rate, serviceMs, cv, 0.99) > targetMs);
        // Below the service time (or its 99th percentile with cv > 0): none will do.
        QCOMPARE(Policy::replicasFor(rate, serviceMs, cv, serviceMs * 0.5, 0.99, 1.0, limit),
                 limit + 1);
        QCOMPARE(Policy::replicasFor(rate, serviceMs, 0.3, serviceMs * 1.2, 0.99, 1.0, limit),
                 limit + 1); // the lognormal's p99 is about 1.9 times its mean
        // A load the limit cannot carry at all.
        QCOMPARE(Policy::replicasFor(rate, serviceMs, cv, targetMs, 0.99, 1.0, int(rate)),
                 int(rate) + 1);
    }

    // Issue 14: a service whose rate is zero everywhere has no request and ends its day (the
    // next-arrival search used to walk forward from hour to hour for ever).
    void aServiceWithoutRequestsEndsItsDay_data()
    {
        QTest::addColumn<RateCurve>("curve");
        QTest::newRow("constant 0") << RateCurve::constant(0);
        QTest::newRow("peak 0") << RateCurve(QList<double>(24, 1.0), 0);
        QTest::newRow("peak -0") << RateCurve(QList<double>(24, 1.0), -0.0);
        QTest::newRow("weekly, peak 0") << RateCurve(QList<double>(168, 2.0), 0, 3);
    }
    void aServiceWithoutRequestsEndsItsDay()
    {
        QFETCH(RateCurve, curve);
        InferenceService::Params p;
        p.name = QStringLiteral("idle");
        p.serviceMs = 100;
        p.sloMs = 500;
        p.curve = curve;
        p.seed = 7;
        InferenceService s(p);
        s.setReady(s.addReplica(1.0), 0);
        s.runUntil(double(7 * 24 * kHour));
        QCOMPARE(s.requests(), qint64(0));
    }
};

QTEST_GUILESS_MAIN(TestWorkloadModels)
#include "tst_workloadmodels.moc"
