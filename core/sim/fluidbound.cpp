// SPDX-License-Identifier: GPL-3.0-or-later
#include "fluidbound.h"

#include <algorithm>

namespace Zhaoxi::Sim {

void FluidBound::addJob(qint64 arrivalMs, double workMs, double maxRate)
{
    Job j{arrivalMs, workMs, maxRate};
    auto it = std::upper_bound(m_jobs.begin(), m_jobs.end(), j, [](const Job &a, const Job &b) {
        return a.arrivalMs < b.arrivalMs;
    });
    m_jobs.insert(it, j);
}

void FluidBound::step(qint64 fromMs, qint64 toMs, double freeRefCards)
{
    if (toMs <= fromMs || freeRefCards <= 0)
        return;
    const double dt = double(toMs - fromMs);
    double cap = freeRefCards;
    for (Job &j : m_jobs) {
        if (cap <= 0 || j.arrivalMs > fromMs)
            break;
        if (j.remaining <= 0)
            continue;
        const double rate = std::min(cap, j.maxRate);
        const double w = std::min(j.remaining, rate * dt);
        j.remaining -= w;
        m_done += w;
        cap -= rate;
    }
}

} // namespace Zhaoxi::Sim
