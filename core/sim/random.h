// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QtGlobal>

#include <cmath>
#include <cstdint>

namespace Zhaoxi::Sim {

// A small, fast, seedable generator (xoshiro256**) with its own transforms, so a scenario and a
// seed give the same numbers on every platform and standard library (std::*_distribution is
// implementation-defined). Not thread-safe; one per stream.
class Random
{
public:
    explicit Random(quint64 seed = 0) { reseed(seed); }
    void reseed(quint64 seed)
    {
        quint64 z = seed;
        for (quint64 &s : m_s) {
            // splitmix64 expands the seed into the state
            z += 0x9e3779b97f4a7c15ULL;
            quint64 x = z;
            x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
            x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
            s = x ^ (x >> 31);
        }
    }
    quint64 next()
    {
        const quint64 result = rotl(m_s[1] * 5, 7) * 9;
        const quint64 t = m_s[1] << 17;
        m_s[2] ^= m_s[0];
        m_s[3] ^= m_s[1];
        m_s[1] ^= m_s[2];
        m_s[0] ^= m_s[3];
        m_s[2] ^= t;
        m_s[3] = rotl(m_s[3], 45);
        return result;
    }
    // Uniform in [0, 1).
    double uniform() { return double(next() >> 11) * 0x1.0p-53; }
    // Exponential with the given mean.
    double exponential(double mean) { return -std::log1p(-uniform()) * mean; }
    // Standard normal (Box-Muller; one of the pair is dropped, for a fixed consumption per call).
    double normal()
    {
        const double u1 = 1.0 - uniform(); // (0, 1]
        const double u2 = uniform();
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    }
    // Poisson count with the given mean (inversion for small means, normal approximation above).
    qint64 poisson(double mean)
    {
        if (mean <= 0)
            return 0;
        if (mean > 60)
            return std::max<qint64>(0, qint64(std::llround(mean + std::sqrt(mean) * normal())));
        const double l = std::exp(-mean);
        qint64 k = 0;
        double p = uniform();
        while (p > l) {
            ++k;
            p *= uniform();
        }
        return k;
    }
    // A stream seed derived from a base seed and a stream number (services, faults, history).
    static quint64 streamSeed(quint64 base, quint64 stream)
    {
        return base * 0x9e3779b97f4a7c15ULL + stream * 0xd1b54a32d192ed03ULL + 1;
    }

private:
    static quint64 rotl(quint64 x, int k) { return (x << k) | (x >> (64 - k)); }
    quint64 m_s[4];
};

} // namespace Zhaoxi::Sim
