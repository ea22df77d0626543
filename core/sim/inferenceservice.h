// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "latencyhistogram.h"
#include "random.h"
#include "ratecurve.h"

#include <QString>

#include <deque>
#include <vector>

namespace Zhaoxi::Sim {

// One inference service as discrete events: Poisson arrivals whose rate follows a curve, replicas
// with their own FIFO queues, each request sent to the replica that will be free first (join the
// least loaded), latency = waiting + service per request.
//
// A replica serves one request at a time; a request's service time is the service's base time
// (on a whole reference card) times the replica's slowdown (its unit's share of the card, soft
// slicing overhead and interference, clocks, shared-path congestion), times a lognormal factor
// with mean 1 and coefficient of variation `cv` (0: deterministic). Because a replica is FIFO and
// its slowdown is read when the request is dispatched, the request's finish time is known at
// arrival; the latency is recorded then, and taken back if the replica is lost before the
// request finishes (the request is then sent again, keeping its arrival time).
//
// Arrivals when no replica serves wait in the service's own queue. Time is in milliseconds of
// the simulation's clock (doubles inside, so requests are not rounded to whole milliseconds).
// Memory is bounded by the histograms and the requests in flight. Single-threaded.
class InferenceService
{
public:
    struct Params
    {
        QString name;
        double serviceMs = 10; // on a whole reference card
        double cv = 0;
        double sloMs = 100; // p99 objective; attainment counts requests within it
        RateCurve curve;
        qint64 localOffsetMs = 0; // local time = simulation time + this (curve lookups)
        double startMs = 0;       // the first arrival comes after this
        quint64 seed = 1;
        int windowSlots = 12; // the sliding window of recent latencies, in rotate() periods
    };

    explicit InferenceService(Params params);

    const Params &params() const { return m_params; }

    // --- Replicas (handles are stable ids within the service) ------------------------------------
    int addReplica(double slowdown);          // not serving until setReady()
    void setReady(int replica, double nowMs); // starts serving; takes the waiting requests
    void setSlowdown(int replica, double slowdown);
    void drain(int replica);                   // takes no new requests; finishes its queue
    bool isDrained(int replica, double nowMs); // a draining replica with nothing left
    // The replica is gone (cancelled, evicted or its card lost): unfinished requests are sent
    // again from their arrival time. Returns how many were re-sent.
    int removeReplica(int replica, double nowMs);
    int servingReplicas() const; // ready and not draining
    double slowdown(int replica) const { return m_replicas[std::size_t(replica)].slowdown; }

    // --- Time ---------------------------------------------------------------------------------
    // Generates and dispatches every arrival before `untilMs`.
    void runUntil(double untilMs);
    // Closes the current slot of the sliding window (call once per control period).
    void rotate();
    // Requests still waiting for a replica at the end count as misses with their waiting time.
    void finish(double endMs);

    // --- Observations -------------------------------------------------------------------------
    qint64 requests() const { return m_total.count(); }
    qint64 withinSlo() const { return m_good; }
    const LatencyHistogram &latencies() const { return m_total; }
    const LatencyHistogram &window() const { return m_window; }
    double totalWaitMs() const { return m_waitSum; }
    qint64 arrivals() const { return m_arrivals; } // generated so far
    qint64 windowArrivals() const;                 // in the sliding window
    double windowSpanMs(double periodMs) const { return periodMs * m_params.windowSlots; }
    // Requests dispatched and not yet finished, plus those waiting for a replica.
    int queueDepth(double nowMs);
    // Service time handed to the replica since the last call (its busy time), then resets.
    double takeBusyMs(int replica);
    int failedOver() const { return m_failedOver; }

private:
    struct InFlight
    {
        double arrivalMs;
        double finishMs;
    };
    struct Replica
    {
        bool ready = false;
        bool draining = false;
        bool removed = false;
        double slowdown = 1;
        double freeAtMs = 0;
        double busyMs = 0;
        std::deque<InFlight> inflight;
    };
    void dispatch(double arrivalMs, double nowMs);
    void record(double latencyMs, double waitMs);
    void unrecord(double latencyMs, double waitMs);
    double nextArrival();

    Params m_params;
    Random m_arrivalRng;
    Random m_serviceRng;
    std::vector<Replica> m_replicas;
    void servingChanged();
    std::vector<int> m_serving; // indexes of ready, non-draining replicas, ascending
    // m_serving's free-at times side by side, so the per-request search for the replica free
    // first reads one short array, not a replica each.
    std::vector<double> m_servingFreeAt;
    std::deque<double> m_waiting; // arrival times of requests with no replica yet
    double m_nextArrivalMs = 0;
    double m_segmentEndMs = -1;
    double m_segmentMax = 0;
    double m_segmentMin = 0; // the lowest rate in the segment: candidates below it are kept
    bool m_silent = false;   // the curve is zero everywhere: no arrival ever
    LatencyHistogram m_total;
    LatencyHistogram m_window;
    std::vector<LatencyHistogram> m_slots;
    std::vector<qint64> m_slotArrivals;
    int m_slot = 0;
    qint64 m_good = 0;
    double m_waitSum = 0;
    qint64 m_arrivals = 0;
    int m_failedOver = 0;
    double m_sigma = 0;
    double m_mu = 0;
};

} // namespace Zhaoxi::Sim
