// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace Zhaoxi::Policy {

// Closed-form queueing estimates the policies and the simulator's fluid bound share. Pure functions.

// M/D/1 mean waiting time (Pollaczek-Khinchine with a deterministic service time):
// W = rho * s / (2 (1 - rho)), rho = rate * s. Infinite when rho >= 1. Rates per ms.
double md1MeanWaitMs(double ratePerMs, double serviceMs);

// Erlang C: the probability that an arrival waits, c servers, offered load a = rate * s (< c).
double erlangC(int servers, double offeredLoad);

// The q-quantile of latency (wait + service) for `servers` replicas fed by one queue (join the
// least loaded replica behaves close to that), Poisson arrivals and service times with mean
// `serviceMs` and coefficient of variation `cv`: the service time's own quantile (lognormal)
// plus the wait's, whose tail is P(W > t) ~ C(c, a) exp(-2 (c/s - rate) t / (1 + cv^2)).
// Infinite when the load reaches the servers.
double latencyQuantileMs(int servers, double ratePerMs, double serviceMs, double cv, double q);

// The fewest replicas whose latency q-quantile stays within `targetMs` and whose utilisation
// stays within `maxUtilisation`, for a rate; 0 for a zero rate, `limit` + 1 when none up to
// `limit` will do.
int replicasFor(double ratePerMs,
                double serviceMs,
                double cv,
                double targetMs,
                double q,
                double maxUtilisation,
                int limit);

} // namespace Zhaoxi::Policy
