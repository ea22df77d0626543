// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QtGlobal>

#include <vector>

namespace Zhaoxi::Sim {

// Latency samples in bounded memory: logarithmic buckets 1 % wide from 10 µs to about 3 hours
// (under 2,100 counters), plus exact count, sum and maximum. A quantile is read to within 0.5 %
// of the true sample (the bucket's geometric middle); values outside the range go to the end
// buckets. Samples can be removed again (a request re-dispatched after its replica was lost).
class LatencyHistogram
{
public:
    LatencyHistogram();

    void add(double ms) { addInBucket(bucketOf(ms), ms); }
    // add() for a sample whose bucket is known: `bucket` must be bucketOf(ms). Lets a caller
    // that files one sample in several histograms find its bucket once.
    void addInBucket(int bucket, double ms)
    {
        ++m_counts[std::size_t(bucket)];
        ++m_count;
        m_sum += ms;
        if (ms > m_max)
            m_max = ms;
        if (bucket < m_lo)
            m_lo = bucket;
        if (bucket > m_hi)
            m_hi = bucket;
    }
    void remove(double ms);
    void merge(const LatencyHistogram &other);
    void subtract(const LatencyHistogram &other);
    void clear();

    qint64 count() const { return m_count; }
    double sumMs() const { return m_sum; }
    double meanMs() const { return m_count ? m_sum / double(m_count) : 0; }
    double maxMs() const { return m_max; }
    // The q-quantile (0 < q <= 1); 0 when empty.
    double quantileMs(double q) const;
    // Samples in the buckets above the one `ms` falls in (to within the buckets' 1 %).
    qint64 countAbove(double ms) const;

    // The bucket `ms` falls in: floor(log_1.01(ms / 0.01 ms)), clamped to [0, bucketCount()).
    // Read from a table (no logarithm per sample); bucketByDefinition computes the logarithm,
    // and the two agree on every double.
    static int bucketOf(double ms);
    static int bucketByDefinition(double ms);
    static double bucketMiddleMs(int bucket);
    static int bucketCount();

private:
    // Every non-zero counter lies in [m_lo, m_hi] (empty: m_lo > m_hi), so merging, subtracting,
    // clearing and reading walk the buckets in use, not all of them: a sliding window's slot
    // holds a few dozen buckets of a control period's latencies.
    void trimRange();
    std::vector<qint64> m_counts;
    int m_lo;
    int m_hi = -1;
    qint64 m_count = 0;
    double m_sum = 0;
    double m_max = 0;
};

} // namespace Zhaoxi::Sim
