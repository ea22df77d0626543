// SPDX-License-Identifier: GPL-3.0-or-later
#include "trainingrun.h"

#include <algorithm>
#include <cmath>

namespace Zhaoxi::Sim {

void TrainingRun::place(qint64 nowMs, qint64 unitsReadyMs, qint64 runBaseMs)
{
    m_placed = true;
    m_placedMs = nowMs;
    m_runBaseMs = runBaseMs;
    m_restartUntilMs = nowMs + m_params.restartCostMs;
    m_readyMs = unitsReadyMs;
    m_accountedMs = nowMs;
}

void TrainingRun::unitsReady(qint64 atMs)
{
    advance(atMs);
    if (m_readyMs < 0)
        m_readyMs = atMs;
}

qint64 TrainingRun::progressFromMs() const
{
    if (m_readyMs < 0)
        return -1;
    return std::max(m_restartUntilMs, m_readyMs);
}

bool TrainingRun::isProgressing(qint64 nowMs) const
{
    const qint64 from = progressFromMs();
    return m_placed && from >= 0 && nowMs >= from && m_speed > 0 && !isDone();
}

void TrainingRun::advance(qint64 nowMs)
{
    if (!m_placed || nowMs <= m_accountedMs)
        return;
    const qint64 from = progressFromMs();
    if (from >= 0) {
        const qint64 a = std::max(m_accountedMs, from);
        if (nowMs > a)
            m_done = std::min(m_params.workMs, m_done + double(nowMs - a) * m_speed);
    }
    m_accountedMs = nowMs;
}

void TrainingRun::setSpeed(qint64 nowMs, double speed)
{
    advance(nowMs);
    m_speed = speed;
}

qint64 TrainingRun::nextCheckpointMs(qint64 afterMs) const
{
    const qint64 interval = m_params.checkpointIntervalMs;
    if (!m_placed || interval <= 0)
        return -1;
    // Running time at t is runBase + (t - placed); checkpoints at its multiples.
    const qint64 run = m_runBaseMs + (afterMs - m_placedMs);
    const qint64 next = (run / interval + 1) * interval;
    return m_placedMs + (next - m_runBaseMs);
}

void TrainingRun::checkpoint(qint64 nowMs)
{
    advance(nowMs);
    m_saved = m_done;
}

double TrainingRun::evict(qint64 nowMs)
{
    advance(nowMs);
    const double lost = m_done - m_saved;
    m_lost += lost;
    m_done = m_saved;
    m_placed = false;
    m_speed = 0;
    ++m_evictions;
    return lost;
}

void TrainingRun::stop(qint64 nowMs)
{
    advance(nowMs);
    m_placed = false;
    m_speed = 0;
}

qint64 TrainingRun::finishEtaMs(qint64 nowMs) const
{
    const qint64 from = progressFromMs();
    if (!m_placed || from < 0 || m_speed <= 0)
        return -1;
    const double left = std::max(0.0, m_params.workMs - m_done);
    return std::max(nowMs, from) + qint64(std::ceil(left / m_speed));
}

double TrainingRun::lossAt(double workMs) const
{
    return m_loss.floor
           + (m_loss.start - m_loss.floor) * std::pow(1.0 + workMs / m_loss.scaleMs, -m_loss.alpha);
}

} // namespace Zhaoxi::Sim
