// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>

#include <cmath>

namespace Zhaoxi::Trace {

// One sample per arrived pod (FGD protocol 5.1), placed or not.
struct Sample
{
    qint64 arrived = 0;    // GPU demand of every pod processed so far, milli
    qint64 allocated = 0;  // GPU demand of every pod placed so far, milli
    double fragAmount = 0; // sum over hosts of the FGD fragmentation, milli
    double idle = 0;       // sum over hosts of free GPU compute x the target weights' sum
};

// The published curves on the 0..130 % axis (protocol 5.2), rounded exactly as the authors'
// analysis does. A column with no sample (even among its neighbours) holds NaN.
struct Curves
{
    QList<double> alloc;     // allocation % (fgd_expected_analysis_allo_discrete.csv)
    QList<double> frag;      // fragmented GPUs, % of all GPUs
    QList<double> fragRatio; // fragmented share of the idle GPU compute, %
};

Curves computeCurves(const QList<Sample> &samples, int gpuCount, int lastColumn = 130);

// The rounding primitives, exposed for tests.
// Python's round(x, 2): the exact binary value rounded to 2 decimals, exact ties to even.
double roundDecimal2(double x);
// numpy's round(x, 2): scale by 100, round half to even, scale back.
double roundScaled2(double x);
// numpy's pairwise summation of n doubles (blocks of 8 accumulators up to 128 values).
double pairwiseSum(const double *values, qsizetype n);

} // namespace Zhaoxi::Trace
