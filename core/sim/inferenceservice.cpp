// SPDX-License-Identifier: GPL-3.0-or-later
#include "inferenceservice.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace Zhaoxi::Sim {

namespace {
constexpr double kHourMs = 3600'000.0;
}

InferenceService::InferenceService(Params params)
    : m_params(std::move(params))
    , m_arrivalRng(Random::streamSeed(m_params.seed, 1))
    , m_serviceRng(Random::streamSeed(m_params.seed, 2))
    , m_slots(std::size_t(std::max(1, m_params.windowSlots)))
    , m_slotArrivals(std::size_t(std::max(1, m_params.windowSlots)), 0)
{
    if (m_params.cv > 0) {
        m_sigma = std::sqrt(std::log1p(m_params.cv * m_params.cv));
        m_mu = -m_sigma * m_sigma / 2;
    }
    // A curve that is zero all the time (a zero rate or peak) has no request ever; the search
    // for the next one would otherwise walk from hour to hour for ever.
    const qint64 period = qint64((m_params.curve.isWeekly() ? 168 : 24) * kHourMs);
    m_silent = !(m_params.curve.maxRate(0, period) > 0);
    m_nextArrivalMs = m_params.startMs;
    m_nextArrivalMs = nextArrival();
}

double InferenceService::nextArrival()
{
    // Thinning per hour of local time: candidates at the hour's highest rate, each kept with
    // probability rate(t) / max. Exact for a Poisson process with this rate function.
    double t = m_nextArrivalMs;
    if (m_silent)
        return std::numeric_limits<double>::infinity();
    for (;;) {
        if (t >= m_segmentEndMs) {
            const double local = t + double(m_params.localOffsetMs);
            const double hourEndLocal = (std::floor(local / kHourMs) + 1) * kHourMs;
            m_segmentEndMs = hourEndLocal - double(m_params.localOffsetMs);
            const qint64 from = qint64(std::floor(local));
            const qint64 to = qint64(std::ceil(hourEndLocal));
            m_segmentMax = m_params.curve.maxRate(from, to);
            m_segmentMin = m_params.curve.minRate(from, to);
        }
        if (m_segmentMax <= 0) {
            t = m_segmentEndMs;
            continue;
        }
        const double gap = m_arrivalRng.exponential(1000.0 / m_segmentMax);
        if (t + gap >= m_segmentEndMs) {
            t = m_segmentEndMs;
            continue;
        }
        t += gap;
        // Below the hour's lowest rate a candidate is kept without reading the curve (the same
        // decision: the rate at t is at least that).
        const double u = m_arrivalRng.uniform() * m_segmentMax;
        if (u < m_segmentMin || u < m_params.curve.rate(qint64(t) + m_params.localOffsetMs))
            return t;
    }
}

void InferenceService::runUntil(double untilMs)
{
    while (m_nextArrivalMs < untilMs) {
        const double a = m_nextArrivalMs;
        ++m_arrivals;
        ++m_slotArrivals[std::size_t(m_slot)];
        if (m_serving.empty())
            m_waiting.push_back(a);
        else
            dispatch(a, a);
        m_nextArrivalMs = nextArrival();
    }
}

void InferenceService::record(double latencyMs, double waitMs)
{
    const int bucket = LatencyHistogram::bucketOf(latencyMs);
    m_total.addInBucket(bucket, latencyMs);
    m_slots[std::size_t(m_slot)].addInBucket(bucket, latencyMs);
    m_window.addInBucket(bucket, latencyMs);
    m_waitSum += waitMs;
    if (latencyMs <= m_params.sloMs)
        ++m_good;
}

void InferenceService::unrecord(double latencyMs, double waitMs)
{
    // Only the totals: the sliding window may keep the sample (it may sit in an older slot).
    m_total.remove(latencyMs);
    m_waitSum -= waitMs;
    if (latencyMs <= m_params.sloMs)
        --m_good;
}

void InferenceService::dispatch(double arrivalMs, double nowMs)
{
    // The replica free first; ties go to the lowest handle (deterministic).
    std::size_t bestAt = 0;
    for (std::size_t i = 1; i < m_servingFreeAt.size(); ++i) {
        if (m_servingFreeAt[i] < m_servingFreeAt[bestAt])
            bestAt = i;
    }
    Replica &rep = m_replicas[std::size_t(m_serving[bestAt])];
    double service = m_params.serviceMs * rep.slowdown;
    if (m_sigma > 0)
        service *= std::exp(m_mu + m_sigma * m_serviceRng.normal());
    const double start = std::max({arrivalMs, nowMs, rep.freeAtMs});
    const double finish = start + service;
    rep.freeAtMs = finish;
    m_servingFreeAt[bestAt] = finish;
    rep.busyMs += service;
    while (!rep.inflight.empty() && rep.inflight.front().finishMs <= nowMs)
        rep.inflight.pop_front();
    rep.inflight.push_back(InFlight{arrivalMs, finish});
    record(finish - arrivalMs, start - arrivalMs);
}

int InferenceService::addReplica(double slowdown)
{
    Replica r;
    r.slowdown = slowdown;
    m_replicas.push_back(std::move(r));
    return int(m_replicas.size()) - 1;
}

void InferenceService::setReady(int replica, double nowMs)
{
    Replica &r = m_replicas[std::size_t(replica)];
    if (r.ready || r.removed)
        return;
    r.ready = true;
    r.freeAtMs = nowMs;
    if (!r.draining) {
        m_serving.push_back(replica);
        std::sort(m_serving.begin(), m_serving.end());
        servingChanged();
    }
    while (!m_waiting.empty() && !m_serving.empty()) {
        const double a = m_waiting.front();
        m_waiting.pop_front();
        dispatch(a, nowMs);
    }
}

void InferenceService::setSlowdown(int replica, double slowdown)
{
    m_replicas[std::size_t(replica)].slowdown = slowdown;
}

void InferenceService::drain(int replica)
{
    Replica &r = m_replicas[std::size_t(replica)];
    r.draining = true;
    m_serving.erase(std::remove(m_serving.begin(), m_serving.end(), replica), m_serving.end());
    servingChanged();
}

void InferenceService::servingChanged()
{
    m_servingFreeAt.clear();
    for (int r : m_serving)
        m_servingFreeAt.push_back(m_replicas[std::size_t(r)].freeAtMs);
}

bool InferenceService::isDrained(int replica, double nowMs)
{
    const Replica &r = m_replicas[std::size_t(replica)];
    return r.draining && r.freeAtMs <= nowMs;
}

int InferenceService::removeReplica(int replica, double nowMs)
{
    Replica &r = m_replicas[std::size_t(replica)];
    if (r.removed)
        return 0;
    m_serving.erase(std::remove(m_serving.begin(), m_serving.end(), replica), m_serving.end());
    servingChanged();
    r.removed = true;
    r.ready = false;
    std::deque<InFlight> left;
    left.swap(r.inflight);
    int resent = 0;
    for (const InFlight &f : left) {
        if (f.finishMs <= nowMs)
            continue;
        unrecord(f.finishMs - f.arrivalMs, 0);
        ++resent;
        if (m_serving.empty())
            m_waiting.push_back(f.arrivalMs);
        else
            dispatch(f.arrivalMs, nowMs);
    }
    // The waits of re-sent requests were counted once at first dispatch; keep the sum simple:
    // it is a diagnostic, the latencies are exact.
    if (!m_waiting.empty())
        std::sort(m_waiting.begin(), m_waiting.end());
    m_failedOver += resent;
    return resent;
}

int InferenceService::servingReplicas() const
{
    return int(m_serving.size());
}

void InferenceService::rotate()
{
    m_slot = (m_slot + 1) % int(m_slots.size());
    m_window.subtract(m_slots[std::size_t(m_slot)]);
    m_slots[std::size_t(m_slot)].clear();
    m_slotArrivals[std::size_t(m_slot)] = 0;
}

qint64 InferenceService::windowArrivals() const
{
    qint64 n = 0;
    for (qint64 a : m_slotArrivals)
        n += a;
    return n;
}

void InferenceService::finish(double endMs)
{
    while (!m_waiting.empty()) {
        const double a = m_waiting.front();
        m_waiting.pop_front();
        record(endMs - a, endMs - a);
    }
}

int InferenceService::queueDepth(double nowMs)
{
    int n = int(m_waiting.size());
    for (Replica &r : m_replicas) {
        if (r.removed)
            continue;
        while (!r.inflight.empty() && r.inflight.front().finishMs <= nowMs)
            r.inflight.pop_front();
        n += int(r.inflight.size());
    }
    return n;
}

double InferenceService::takeBusyMs(int replica)
{
    Replica &r = m_replicas[std::size_t(replica)];
    const double b = r.busyMs;
    r.busyMs = 0;
    return b;
}

} // namespace Zhaoxi::Sim
