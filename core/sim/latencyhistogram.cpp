// SPDX-License-Identifier: GPL-3.0-or-later
#include "latencyhistogram.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace Zhaoxi::Sim {

namespace {
constexpr double kMinMs = 0.01;
constexpr double kGrowth = 1.01;
const double kLogGrowth = std::log(kGrowth);
constexpr int kBuckets = 2100; // 0.01 ms * 1.01^2100 ~ 1.2e7 ms
} // namespace

LatencyHistogram::LatencyHistogram()
    : m_counts(kBuckets, 0)
    , m_lo(kBuckets)
{}

int LatencyHistogram::bucketCount()
{
    return kBuckets;
}

namespace {

// The bucket by definition: floor(log_1.01(ms / 0.01 ms)), clamped to the range.
int bucketByLogarithm(double ms)
{
    if (!(ms > kMinMs))
        return 0;
    const double b = std::log(ms / kMinMs) / kLogGrowth;
    return b >= kBuckets - 1 ? kBuckets - 1 : int(b);
}

quint64 bitsOf(double x)
{
    quint64 u;
    std::memcpy(&u, &x, sizeof u);
    return u;
}

double fromBits(quint64 u)
{
    double x;
    std::memcpy(&x, &u, sizeof x);
    return x;
}

// bucketOf without a logarithm per sample, giving exactly bucketByLogarithm's answer: the
// smallest double of each bucket (found once, by searching the doubles around 0.01 × 1.01^b
// with the definition itself), and per cell of a double's exponent and top 8 fraction bits
// (at most 0.4 % wide, so a cell meets at most one bucket edge) the bucket its first double
// falls in. A lookup is one table read and one comparison.
class BucketTable
{
public:
    BucketTable()
        : m_first(std::size_t(kBuckets), 0)
    {
        for (int b = 1; b < kBuckets; ++b)
            m_first[std::size_t(b)] = firstOf(b);
        m_keyLo = bitsOf(kMinMs) >> kCellShift;
        m_keyHi = (bitsOf(m_first[std::size_t(kBuckets - 1)]) >> kCellShift) + 1;
        m_cellStart.resize(std::size_t(m_keyHi - m_keyLo));
        for (quint64 k = m_keyLo; k < m_keyHi; ++k)
            m_cellStart[std::size_t(k - m_keyLo)]
                    = quint16(bucketByLogarithm(fromBits(k << kCellShift)));
    }

    int bucketOf(double ms) const
    {
        if (!(ms > kMinMs))
            return 0;
        const quint64 key = bitsOf(ms) >> kCellShift;
        if (key >= m_keyHi)
            return kBuckets - 1; // beyond the last bucket's first value (and +inf)
        int b = m_cellStart[std::size_t(key - m_keyLo)];
        while (b + 1 < kBuckets && ms >= m_first[std::size_t(b + 1)])
            ++b;
        return b;
    }

private:
    static constexpr int kCellShift = 52 - 8;

    // The smallest double whose bucket is at least b (the definition is monotonic).
    static double firstOf(int b)
    {
        const qint64 guess = qint64(bitsOf(kMinMs * std::pow(kGrowth, b)));
        qint64 lo = guess; // lo: bucket < b; hi: bucket >= b
        qint64 hi = guess;
        for (qint64 step = 1; bucketByLogarithm(fromBits(quint64(lo))) >= b; step *= 2)
            lo = guess - step;
        for (qint64 step = 1; bucketByLogarithm(fromBits(quint64(hi))) < b; step *= 2)
            hi = guess + step;
        while (hi - lo > 1) {
            const qint64 mid = lo + (hi - lo) / 2;
            (bucketByLogarithm(fromBits(quint64(mid))) >= b ? hi : lo) = mid;
        }
        return fromBits(quint64(hi));
    }

    std::vector<double> m_first; // m_first[b]: the smallest double in bucket b (b >= 1)
    std::vector<quint16> m_cellStart;
    quint64 m_keyLo = 0;
    quint64 m_keyHi = 0;
};

const BucketTable &bucketTable()
{
    static const BucketTable table;
    return table;
}

} // namespace

int LatencyHistogram::bucketOf(double ms)
{
    return bucketTable().bucketOf(ms);
}

int LatencyHistogram::bucketByDefinition(double ms)
{
    return bucketByLogarithm(ms);
}

double LatencyHistogram::bucketMiddleMs(int bucket)
{
    return kMinMs * std::pow(kGrowth, bucket + 0.5);
}

void LatencyHistogram::remove(double ms)
{
    const int b = bucketOf(ms);
    if (m_counts[std::size_t(b)] == 0)
        return;
    --m_counts[std::size_t(b)];
    --m_count;
    m_sum -= ms;
}

void LatencyHistogram::merge(const LatencyHistogram &o)
{
    for (int i = o.m_lo; i <= o.m_hi; ++i)
        m_counts[std::size_t(i)] += o.m_counts[std::size_t(i)];
    if (o.m_lo <= o.m_hi) {
        m_lo = std::min(m_lo, o.m_lo);
        m_hi = std::max(m_hi, o.m_hi);
    }
    m_count += o.m_count;
    m_sum += o.m_sum;
    if (o.m_max > m_max)
        m_max = o.m_max;
}

void LatencyHistogram::subtract(const LatencyHistogram &o)
{
    for (int i = o.m_lo; i <= o.m_hi; ++i)
        m_counts[std::size_t(i)] -= o.m_counts[std::size_t(i)];
    m_count -= o.m_count;
    m_sum -= o.m_sum;
    trimRange();
}

void LatencyHistogram::trimRange()
{
    while (m_lo <= m_hi && m_counts[std::size_t(m_lo)] == 0)
        ++m_lo;
    while (m_hi >= m_lo && m_counts[std::size_t(m_hi)] == 0)
        --m_hi;
    if (m_lo > m_hi) {
        m_lo = kBuckets;
        m_hi = -1;
    }
}

void LatencyHistogram::clear()
{
    if (m_lo <= m_hi)
        std::fill(m_counts.begin() + m_lo, m_counts.begin() + m_hi + 1, 0);
    m_lo = kBuckets;
    m_hi = -1;
    m_count = 0;
    m_sum = 0;
    m_max = 0;
}

double LatencyHistogram::quantileMs(double q) const
{
    if (m_count == 0)
        return 0;
    qint64 rank = qint64(std::ceil(q * double(m_count)));
    if (rank < 1)
        rank = 1;
    qint64 seen = 0;
    for (int i = m_lo; i <= m_hi; ++i) {
        seen += m_counts[std::size_t(i)];
        if (seen >= rank)
            return std::min(bucketMiddleMs(i), m_max > 0 ? m_max : bucketMiddleMs(i));
    }
    return m_max;
}

qint64 LatencyHistogram::countAbove(double ms) const
{
    qint64 n = 0;
    for (int i = std::max(bucketOf(ms) + 1, m_lo); i <= m_hi; ++i)
        n += m_counts[std::size_t(i)];
    return n;
}

} // namespace Zhaoxi::Sim
