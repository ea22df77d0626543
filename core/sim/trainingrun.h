// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QtGlobal>

namespace Zhaoxi::Sim {

// What a training run is asked to do, and how it restarts.
struct TrainingParams
{
    double workMs = 0;               // total work
    qint64 checkpointIntervalMs = 0; // 0: never saves (an eviction loses everything)
    qint64 restartCostMs = 0;        // after every placement
};

// The loss a run reports for the convergence chart: a power law in the work done.
struct LossCurve
{
    double start = 3.0;              // loss at no work
    double floor = 1.5;              // loss it tends to
    double alpha = 0.5;              // power-law exponent
    double scaleMs = 3600'000.0 * 4; // work at which the excess has fallen by 2^-alpha
};

// A training job's progress, in work units: milliseconds of one reference card at full speed
// (a 4-card gang at full speed does 4 ms of work per ms). Pure bookkeeping on a clock it is given.
//
// Placed at time p, the job first restarts (loads its checkpoint, restartCostMs) and waits for
// its units to be ready on the device; then it progresses at `speed` work-ms per ms. It saves a
// checkpoint every checkpointIntervalMs of running time, counted as the scheduler counts it
// (running time carried over from earlier placements is a multiple of the interval, since an
// eviction rolls back to a checkpoint). An eviction rolls progress back to the last checkpoint;
// what is rolled back is lost work.
class TrainingRun
{
public:
    using Params = TrainingParams;
    using Loss = LossCurve;

    TrainingRun() = default;
    explicit TrainingRun(Params params, Loss loss = {})
        : m_params(params)
        , m_loss(loss)
    {}

    const Params &params() const { return m_params; }
    bool isPlaced() const { return m_placed; }
    bool isDone() const { return m_done >= m_params.workMs - 1e-6; }

    // Placed at `nowMs`; it can progress from max(now + restart cost, unitsReadyMs) (unitsReadyMs
    // < 0: the device has not said yet; call unitsReady() later). `runBaseMs`: the scheduler's
    // running time at placement (its checkpoint grid).
    void place(qint64 nowMs, qint64 unitsReadyMs, qint64 runBaseMs);
    void unitsReady(qint64 atMs);
    // New speed from `nowMs` (progress is counted up to now first).
    void setSpeed(qint64 nowMs, double speed);
    void advance(qint64 nowMs);
    // The next checkpoint after `afterMs` (-1 when not placed or no interval).
    qint64 nextCheckpointMs(qint64 afterMs) const;
    void checkpoint(qint64 nowMs);
    // Evicted at `nowMs`: rolls back to the checkpoint; returns the work lost.
    double evict(qint64 nowMs);
    // Ended (finished or cancelled): counts progress up to now and unplaces.
    void stop(qint64 nowMs);
    // When the work will be done at the current speed (-1: not progressing).
    qint64 finishEtaMs(qint64 nowMs) const;
    // Whether it is progressing at `nowMs` (placed, restarted, units ready).
    bool isProgressing(qint64 nowMs) const;

    double doneMs() const { return m_done; }
    double savedMs() const { return m_saved; }
    double lostMs() const { return m_lost; }
    double speed() const { return m_speed; }
    int evictions() const { return m_evictions; }
    double loss() const { return lossAt(m_done); }
    double lossAt(double workMs) const;

private:
    qint64 progressFromMs() const;

    Params m_params;
    Loss m_loss;
    bool m_placed = false;
    qint64 m_placedMs = 0;
    qint64 m_runBaseMs = 0;
    qint64 m_restartUntilMs = 0;
    qint64 m_readyMs = -1;
    qint64 m_accountedMs = 0;
    double m_speed = 0;
    double m_done = 0;
    double m_saved = 0;
    double m_lost = 0;
    int m_evictions = 0;
};

} // namespace Zhaoxi::Sim
