// SPDX-License-Identifier: GPL-3.0-or-later
#include "queueing.h"

#include <cmath>
#include <limits>

namespace Zhaoxi::Policy {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

// The standard normal quantile (Acklam's rational approximation), enough for planning.
double normalQuantile(double p)
{
    static const double a[] = {-3.969683028665376e+01,
                               2.209460984245205e+02,
                               -2.759285104469687e+02,
                               1.383577518672690e+02,
                               -3.066479806614716e+01,
                               2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01,
                               1.615858368580409e+02,
                               -1.556989798598866e+02,
                               6.680131188771972e+01,
                               -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03,
                               -3.223964580411365e-01,
                               -2.400758277161838e+00,
                               -2.549671010319250e+00,
                               4.374664141464968e+00,
                               2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03,
                               3.224671290700398e-01,
                               2.445134137142996e+00,
                               3.754408661907416e+00};
    if (p < 0.02425) {
        const double q = std::sqrt(-2 * std::log(p));
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
               / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
    if (p > 1 - 0.02425)
        return -normalQuantile(1 - p);
    const double q = p - 0.5, r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
           / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}
} // namespace

double md1MeanWaitMs(double ratePerMs, double serviceMs)
{
    const double rho = ratePerMs * serviceMs;
    if (rho >= 1)
        return kInf;
    return rho * serviceMs / (2 * (1 - rho));
}

double erlangC(int servers, double a)
{
    if (servers <= 0 || a >= servers)
        return 1;
    if (a <= 0)
        return 0;
    // Erlang B by recursion, then C from B: stable for large c.
    double b = 1;
    for (int k = 1; k <= servers; ++k)
        b = a * b / (k + a * b);
    const double rho = a / servers;
    return b / (1 - rho + rho * b);
}

double latencyQuantileMs(int servers, double ratePerMs, double serviceMs, double cv, double q)
{
    if (servers <= 0)
        return ratePerMs > 0 ? kInf : 0;
    const double a = ratePerMs * serviceMs;
    if (a >= servers)
        return kInf;
    // The service time's own quantile: a lognormal with this mean and cv.
    double service = serviceMs;
    if (cv > 0) {
        const double s2 = std::log1p(cv * cv);
        const double mu = std::log(serviceMs) - s2 / 2;
        service = std::exp(mu + std::sqrt(s2) * normalQuantile(q));
    }
    const double c = erlangC(servers, a);
    const double tail = 1 - q;
    double wait = 0;
    if (c > tail) {
        const double decay = 2 * (servers / serviceMs - ratePerMs) / (1 + cv * cv);
        wait = std::log(c / tail) / decay;
    }
    return std::max(service, serviceMs + wait);
}

int replicasFor(double ratePerMs,
                double serviceMs,
                double cv,
                double targetMs,
                double q,
                double maxUtilisation,
                int limit)
{
    if (ratePerMs <= 0)
        return 0;
    const double a = ratePerMs * serviceMs;
    const double first = std::ceil(a / std::max(0.01, maxUtilisation));
    if (!(first <= double(limit)))
        return limit + 1;
    // No count of replicas answers faster than one request's own service time: a target below
    // it is out of reach (the search would otherwise try every count up to the limit, each at
    // O(count)).
    if (latencyQuantileMs(std::numeric_limits<int>::max(), 0, serviceMs, cv, q) > targetMs)
        return limit + 1;
    const auto fits
            = [&](int n) { return latencyQuantileMs(n, ratePerMs, serviceMs, cv, q) <= targetMs; };
    // The quantile falls as replicas are added: the first few counts one by one (the common
    // case, and the answer exactly as a scan gives it), then doubling and bisection.
    int n = std::max(1, int(first));
    for (const int scanEnd = std::min<long long>(limit, (long long)n + 32); n <= scanEnd; ++n) {
        if (fits(n))
            return n;
    }
    int low = n - 1; // does not fit
    int step = 1;
    while (n <= limit && !fits(n)) {
        low = n;
        step = std::min(step * 2, 1 << 20);
        n = int(std::min<long long>((long long)limit + 1, (long long)n + step));
    }
    if (n > limit)
        return limit + 1;
    int high = n; // fits
    while (high - low > 1) {
        const int mid = low + (high - low) / 2;
        (fits(mid) ? high : low) = mid;
    }
    return high;
}

} // namespace Zhaoxi::Policy
