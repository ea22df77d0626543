// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>

#include <cstdint>

namespace Zhaoxi::Trace {

// A bit-exact clone of the generator behind Go's math/rand (version 1) package functions after
// rand.Seed(seed): an additive lagged Fibonacci generator (lags 607 and 273) seeded through the
// Park-Miller generator, and the derived draws the FGD simulator uses (Int63, Int31n/Intn,
// Shuffle, Perm). The FGD protocol (section 6) needs this exact stream for per-seed identity with
// the published curves. Not thread-safe; cheap to copy.
class GoRand
{
public:
    explicit GoRand(std::int64_t seed = 1) { reseed(seed); }
    void reseed(std::int64_t seed);

    std::int64_t int63(); // [0, 2^63)
    std::uint32_t uint32() { return std::uint32_t(int63() >> 31); }
    std::int32_t int31() { return std::int32_t(int63() >> 32); }
    std::int32_t int31n(std::int32_t n); // Go's Int31n: rejection sampling, n > 0
    std::int64_t int63n(std::int64_t n); // Go's Int63n, n > 0
    std::int64_t intn(std::int64_t n);   // Go's Intn (64-bit int): Int31n when n fits 31 bits
    // Go's Shuffle: Fisher-Yates from the end, j drawn by Lemire's multiply-shift method.
    template<typename Swap>
    void shuffle(std::int64_t n, Swap swap)
    {
        std::int64_t i = n - 1;
        for (; i > (std::int64_t(1) << 31) - 2; --i)
            swap(i, int63n(i + 1));
        for (; i > 0; --i)
            swap(i, std::int64_t(int31nLemire(std::int32_t(i + 1))));
    }
    QList<int> perm(int n); // Go's Perm: m[i] = m[j], m[j] = i with j = Intn(i + 1)

private:
    std::int32_t int31nLemire(std::int32_t n); // Go's unexported int31n
    static constexpr int kLen = 607;
    static constexpr int kTap = 273;
    int m_tap = 0;
    int m_feed = 0;
    std::uint64_t m_vec[kLen];
};

} // namespace Zhaoxi::Trace
