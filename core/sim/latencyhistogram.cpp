// SPDX-License-Identifier: GPL-3.0-or-later
#include "latencyhistogram.h"

#include <cmath>

namespace Zhaoxi::Sim {

namespace {
constexpr double kMinMs = 0.01;
constexpr double kGrowth = 1.01;
const double kLogGrowth = std::log(kGrowth);
constexpr int kBuckets = 2100; // 0.01 ms * 1.01^2100 ~ 1.2e7 ms
} // namespace

LatencyHistogram::LatencyHistogram()
    : m_counts(kBuckets, 0)
{}

int LatencyHistogram::bucketCount()
{
    return kBuckets;
}

int LatencyHistogram::bucketOf(double ms)
{
    if (!(ms > kMinMs))
        return 0;
    const int b = int(std::log(ms / kMinMs) / kLogGrowth);
    return b >= kBuckets ? kBuckets - 1 : b;
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
    for (int i = 0; i < kBuckets; ++i)
        m_counts[std::size_t(i)] += o.m_counts[std::size_t(i)];
    m_count += o.m_count;
    m_sum += o.m_sum;
    if (o.m_max > m_max)
        m_max = o.m_max;
}

void LatencyHistogram::subtract(const LatencyHistogram &o)
{
    for (int i = 0; i < kBuckets; ++i)
        m_counts[std::size_t(i)] -= o.m_counts[std::size_t(i)];
    m_count -= o.m_count;
    m_sum -= o.m_sum;
}

void LatencyHistogram::clear()
{
    std::fill(m_counts.begin(), m_counts.end(), 0);
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
    for (int i = 0; i < kBuckets; ++i) {
        seen += m_counts[std::size_t(i)];
        if (seen >= rank)
            return std::min(bucketMiddleMs(i), m_max > 0 ? m_max : bucketMiddleMs(i));
    }
    return m_max;
}

qint64 LatencyHistogram::countAbove(double ms) const
{
    qint64 n = 0;
    for (int i = bucketOf(ms) + 1; i < kBuckets; ++i)
        n += m_counts[std::size_t(i)];
    return n;
}

} // namespace Zhaoxi::Sim
