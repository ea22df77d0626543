// SPDX-License-Identifier: GPL-3.0-or-later
#include "curves.h"

#include <cfenv>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

namespace Zhaoxi::Trace {

double roundDecimal2(double x)
{
    // glibc's printf converts the exact binary value and rounds it in the current rounding
    // mode (to nearest, ties to even): the same digits as Python's correctly rounded repr.
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f", x);
    return std::strtod(buf, nullptr);
}

double roundScaled2(double x)
{
    return std::nearbyint(x * 100.0) / 100.0;
}

double pairwiseSum(const double *a, qsizetype n)
{
    if (n < 8) {
        double res = -0.0;
        for (qsizetype i = 0; i < n; ++i)
            res += a[i];
        return res;
    }
    if (n <= 128) {
        double r[8];
        for (int j = 0; j < 8; ++j)
            r[j] = a[j];
        qsizetype i = 8;
        for (; i < n - (n % 8); i += 8) {
            for (int j = 0; j < 8; ++j)
                r[j] += a[i + j];
        }
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; ++i)
            res += a[i];
        return res;
    }
    qsizetype n2 = n / 2;
    n2 -= n2 % 8;
    return pairwiseSum(a, n2) + pairwiseSum(a + n2, n - n2);
}

Curves computeCurves(const QList<Sample> &samples, int gpuCount, int lastColumn)
{
    std::fesetround(FE_TONEAREST);
    const double scale = double(gpuCount) * 10.0;
    const qsizetype n = samples.size();
    std::vector<int> x(static_cast<size_t>(n));
    const auto sz = static_cast<size_t>(n);
    std::vector<double> a(sz), frag(sz), ratio(sz);
    for (qsizetype i = 0; i < n; ++i) {
        const Sample &s = samples[i];
        x[size_t(i)] = int(std::nearbyint(double(s.arrived) / scale));
        a[size_t(i)] = roundDecimal2(double(s.allocated) / scale);
        frag[size_t(i)] = roundDecimal2(s.fragAmount);
        ratio[size_t(i)] = roundDecimal2(s.idle > 0 ? 100.0 * s.fragAmount / s.idle : 0.0);
    }
    Curves c;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> va, vf, vr;
    for (int X = 0; X <= lastColumn; ++X) {
        va.clear();
        vf.clear();
        vr.clear();
        for (int pass = 0; pass < 2 && va.empty(); ++pass) {
            const int lo = pass == 0 ? X : X - 1, hi = pass == 0 ? X : X + 1;
            for (qsizetype i = 0; i < n; ++i) {
                if (x[size_t(i)] >= lo && x[size_t(i)] <= hi) {
                    va.push_back(a[size_t(i)]);
                    vf.push_back(frag[size_t(i)]);
                    vr.push_back(ratio[size_t(i)]);
                }
            }
        }
        if (va.empty()) {
            c.alloc.append(nan);
            c.frag.append(nan);
            c.fragRatio.append(nan);
            continue;
        }
        const double k = double(va.size());
        c.alloc.append(roundScaled2(pairwiseSum(va.data(), qsizetype(va.size())) / k));
        const double meanFrag = pairwiseSum(vf.data(), qsizetype(vf.size())) / k;
        c.frag.append(roundScaled2(100.0 * meanFrag / 1000.0 / double(gpuCount)));
        c.fragRatio.append(pairwiseSum(vr.data(), qsizetype(vr.size())) / k);
    }
    return c;
}

} // namespace Zhaoxi::Trace
