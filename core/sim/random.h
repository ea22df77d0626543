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
    // Exponential with the given mean, and the standard normal: Marsaglia and Tsang's ziggurat
    // (exact; one draw, a table lookup and a comparison for about 99 % of the values, the
    // logarithm and exponential only in the rest). One 64-bit draw gives both the layer (its low
    // bits) and the uniform (its high 53 bits).
    double exponential(double mean) { return standardExponential() * mean; }
    double normal();
    double standardExponential();
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
    static double high53(quint64 bits) { return double(bits >> 11) * 0x1.0p-53; }
    quint64 m_s[4];
};

namespace Ziggurat {

// The layers of the ziggurats (Marsaglia and Tsang 2000; the normal as in Doornik 2005): x[i]
// the layers' right edges (x[1] the tail's start, x[0] the base strip's equivalent width),
// ratio[i] = x[i + 1] / x[i] (a point below it lies under the curve at once), f[i] the density
// at x[i]. Built once.
struct Tables
{
    static constexpr int kNormalLayers = 128;
    static constexpr int kExpLayers = 256;
    double normalX[kNormalLayers + 1];
    double normalRatio[kNormalLayers];
    double expX[kExpLayers + 1];
    double expRatio[kExpLayers];
    double expF[kExpLayers + 1];
    Tables();
};
const Tables &tables();

} // namespace Ziggurat

inline double Random::standardExponential()
{
    const Ziggurat::Tables &t = Ziggurat::tables();
    double shift = 0;
    for (;;) {
        const quint64 bits = next();
        const int i = int(bits & 0xff);
        const double u = high53(bits);
        if (u < t.expRatio[i])
            return shift + u * t.expX[i];
        if (i == 0) { // the tail beyond x[1]: memoryless, x[1] plus a fresh exponential
            shift += t.expX[1];
            continue;
        }
        const double x = u * t.expX[i];
        if (t.expF[i + 1] + uniform() * (t.expF[i] - t.expF[i + 1]) < std::exp(-x))
            return shift + x;
    }
}

inline double Random::normal()
{
    const Ziggurat::Tables &t = Ziggurat::tables();
    for (;;) {
        const quint64 bits = next();
        const int i = int(bits & 0x7f);
        const double u = 2.0 * high53(bits) - 1.0; // [-1, 1)
        if (std::abs(u) < t.normalRatio[i])
            return u * t.normalX[i];
        if (i == 0) { // the tail beyond x[1]
            const double r = t.normalX[1];
            double x, y;
            do {
                x = std::log(1.0 - uniform()) / r; // (0, 1] inside the logarithms
                y = std::log(1.0 - uniform());
            } while (-2.0 * y < x * x);
            return u < 0 ? x - r : r - x;
        }
        const double x = u * t.normalX[i];
        const double f0 = std::exp(-0.5 * (t.normalX[i] * t.normalX[i] - x * x));
        const double f1 = std::exp(-0.5 * (t.normalX[i + 1] * t.normalX[i + 1] - x * x));
        if (f1 + uniform() * (f0 - f1) < 1.0)
            return x;
    }
}

} // namespace Zhaoxi::Sim
