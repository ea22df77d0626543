// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QtGlobal>

#include <vector>

namespace Zhaoxi::Sim {

// The fluid upper bound on training work: at each moment the least capacity that meets every
// service's SLO at its load goes to inference, and all the rest is training capacity, moved
// freely and instantly (no partitions, no restarts, no lost work). Training jobs drain that
// capacity in arrival order, each at most at its own full speed (its gang width in reference
// cards). No real policy can do more; reports divide by it.
class FluidBound
{
public:
    void addJob(qint64 arrivalMs, double workMs, double maxRate);
    // Training capacity over [fromMs, toMs), in reference cards.
    void step(qint64 fromMs, qint64 toMs, double freeRefCards);
    double workMs() const { return m_done; }

private:
    struct Job
    {
        qint64 arrivalMs;
        double remaining;
        double maxRate;
    };
    std::vector<Job> m_jobs;
    double m_done = 0;
};

} // namespace Zhaoxi::Sim
