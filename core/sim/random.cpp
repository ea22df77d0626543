// SPDX-License-Identifier: GPL-3.0-or-later
#include "random.h"

namespace Zhaoxi::Sim::Ziggurat {

namespace {
// Where the tails start and each layer's area, for 128 normal and 256 exponential layers
// (Doornik 2005, table 1; Marsaglia and Tsang 2000).
constexpr double kNormalR = 3.442619855899;
constexpr double kNormalV = 9.91256303526217e-3;
constexpr double kExpR = 7.69711747013104972;
constexpr double kExpV = 3.9496598225815571993e-3;
} // namespace

Tables::Tables()
{
    // Normal, f(x) = exp(-x^2 / 2) (unnormalised: the layers only compare heights).
    double f = std::exp(-0.5 * kNormalR * kNormalR);
    normalX[0] = kNormalV / f;
    normalX[1] = kNormalR;
    normalX[kNormalLayers] = 0;
    for (int i = 2; i < kNormalLayers; ++i) {
        normalX[i] = std::sqrt(-2.0 * std::log(kNormalV / normalX[i - 1] + f));
        f = std::exp(-0.5 * normalX[i] * normalX[i]);
    }
    for (int i = 0; i < kNormalLayers; ++i)
        normalRatio[i] = normalX[i + 1] / normalX[i];

    // Exponential, f(x) = exp(-x).
    f = std::exp(-kExpR);
    expX[0] = kExpV / f;
    expX[1] = kExpR;
    expX[kExpLayers] = 0;
    for (int i = 2; i < kExpLayers; ++i) {
        expX[i] = -std::log(kExpV / expX[i - 1] + f);
        f = std::exp(-expX[i]);
    }
    for (int i = 0; i < kExpLayers; ++i)
        expRatio[i] = expX[i + 1] / expX[i];
    for (int i = 0; i <= kExpLayers; ++i)
        expF[i] = std::exp(-expX[i]);
}

const Tables &tables()
{
    static const Tables t;
    return t;
}

} // namespace Zhaoxi::Sim::Ziggurat
