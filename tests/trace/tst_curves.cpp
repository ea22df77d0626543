// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/trace/curves.h"

#include <QTest>

#include <cmath>
#include <numeric>

using namespace Zhaoxi::Trace;

class tst_Curves : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void decimalRounding_data();
    void decimalRounding();
    void scaledRoundingDiffersAtTies();
    void pairwiseSummation();
    void columnsAndNeighbours();
    void fragmentationColumns();
};

void tst_Curves::decimalRounding_data()
{
    QTest::addColumn<double>("x");
    QTest::addColumn<double>("rounded");
    // Python's round(x, 2) works on the exact binary value: 2.675 is 2.67499999..., 0.125 is an
    // exact tie and goes to even.
    QTest::newRow("2.675") << 2.675 << 2.67;
    QTest::newRow("0.125 tie to even") << 0.125 << 0.12;
    QTest::newRow("0.375 tie to even") << 0.375 << 0.38;
    QTest::newRow("1.005") << 1.005 << 1.0;
    QTest::newRow("95.29") << 95.29 << 95.29;
    QTest::newRow("negative tie") << -0.125 << -0.12;
}

void tst_Curves::decimalRounding()
{
    QFETCH(double, x);
    QTEST(roundDecimal2(x), "rounded");
}

void tst_Curves::scaledRoundingDiffersAtTies()
{
    // numpy's round(x, 2) scales first: 1.115 * 100 is exactly 111.5, which goes to even (112),
    // while the decimal rounding of 1.11499999... gives 1.11.
    QCOMPARE(roundScaled2(1.115), 1.12);
    QCOMPARE(roundDecimal2(1.115), 1.11);
    QCOMPARE(roundScaled2(0.125), 0.12);
    QCOMPARE(roundScaled2(95.394999), 95.39);
}

void tst_Curves::pairwiseSummation()
{
    // Fewer than 8 values: left to right.
    const double small[] = {1e16, 1, 1, -1e16};
    QCOMPARE(pairwiseSum(small, 4), 0.0);
    // 8 accumulators: 1e16 and -1e16 meet in accumulator 0, the ones survive in the others.
    double v[16];
    for (double &x : v)
        x = 1;
    v[0] = 1e16;
    v[8] = -1e16;
    QCOMPARE(pairwiseSum(v, 16), 14.0);
    QCOMPARE(std::accumulate(v, v + 16, 0.0), 7.0); // the plain loop loses the halves
    // Above 128 values the sum splits at half the count, rounded down to a multiple of 8.
    double w[200];
    for (int i = 0; i < 200; ++i)
        w[i] = 1.0 / (i + 1) + (i % 3 == 0 ? 1e15 : 0);
    QCOMPARE(pairwiseSum(w, 200), pairwiseSum(w, 96) + pairwiseSum(w + 96, 104));
    QCOMPARE(pairwiseSum(w, 0), 0.0);
}

void tst_Curves::columnsAndNeighbours()
{
    // 10 GPUs: x = round(arrived / 100), half to even; allocation in % to 2 decimals.
    QList<Sample> s;
    for (qint64 arrived : {100, 150, 250, 350, 500})
        s << Sample{arrived, arrived, 0, 1};
    const Curves c = computeCurves(s, 10, 10);
    QCOMPARE(c.alloc.size(), 11);
    QCOMPARE(c.alloc[0], 1.0); // no sample at 0: its neighbours (x = 1)
    QCOMPARE(c.alloc[1], 1.0);
    QCOMPARE(c.alloc[2], 2.0); // 1.5 -> 2 and 2.5 -> 2: mean of 1.5 and 2.5
    QCOMPARE(c.alloc[3], 2.5); // neighbours 2..4
    QCOMPARE(c.alloc[4], 3.5);
    QCOMPARE(c.alloc[5], 5.0);
    QCOMPARE(c.alloc[6], 5.0);
    QVERIFY(std::isnan(c.alloc[7])); // no sample within one column
    QVERIFY(std::isnan(c.frag[10]));
}

void tst_Curves::fragmentationColumns()
{
    // fragAmount is logged with 2 decimals; frag % = 100 * mean / 1000 / GPUs; the ratio is the
    // mean of the per-sample ratios (each rounded to 2 decimals), not rounded itself.
    QList<Sample> s;
    s << Sample{1000, 1000, 1234.567, 3000} << Sample{1000, 1000, 1000.0, 3000};
    const Curves c = computeCurves(s, 10, 10);
    QCOMPARE(c.frag[10], 11.17);                    // 100 * 1117.285 / 1000 / 10
    QCOMPARE(c.fragRatio[10], (41.15 + 33.33) / 2); // 41.1522.. and 33.333..
    QCOMPARE(c.alloc[10], 10.0);
}

QTEST_GUILESS_MAIN(tst_Curves)
#include "tst_curves.moc"
