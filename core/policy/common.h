// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "params.h"
#include "policy.h"

#include <QHash>

#include <optional>

namespace Zhaoxi::Policy {

// Parameters every policy takes.
struct CommonParams
{
    qint64 periodMs = 15'000;          // how often the policy looks
    double targetUtilisation = 0.7;    // replicas are sized to stay under this busy share ...
    double sloSafety = 0.7;            // ... and to plan the p99 at this share of the SLO
    double sloSafetyAtRest = 0.8;      // ... at no load (-1: sloSafety); see replicasForRate
    double trainingBandwidthShare = 1; // the training class's share of each host's paths
    double trainingPowerCapW = -1;     // the training class's power cap (<= 0: none)
    void read(ParamReader &r);
};

// Replicas for a rate (req/s) by the queueing estimate, within the service's range. The p99 is
// planned at sloSafety of the SLO at the service's peak rate `peakRps` and closer to
// sloSafetyAtRest as the rate falls below it (by the square of the rate's shortfall): the day's
// attainment counts requests, and a quiet hour's misses are few, while the replica it saves is
// as large as a busy hour's (peakRps <= 0: sloSafety throughout). `modelError` (>= 1): how much
// the service's observed p99 runs above the estimate; the planned p99 is divided by it.
int replicasForRate(const ServiceView &s,
                    double rateRps,
                    const CommonParams &p,
                    double modelError = 1,
                    double peakRps = 0);

// Compute the service's replicas would hold, milli-cards.
inline qint64 inferenceMilli(const ServiceView &s, int replicas)
{
    return s.unitMilli * replicas;
}

// Takes training off at least `milli` of compute (counting jobs already leaving), cheapest
// first: `drain` waits for each job's next checkpoint (or its natural end) when that comes by
// `deadlineMs`, and takes the rest at once; otherwise all go at once, those that lose least
// first. Lower priority goes first. When `forService` >= 0, only jobs on cards that could ever
// hold one of that service's replicas count (Scheduler::cardsThatCouldServe). Training an
// operator placed over its budget (Job::overBudget) is never taken to bring the class within
// its budget (its share is excused from `milli`), and is taken last for a service. When `kind`
// is given, only jobs of that class count and go (a class over its own budget: the others have
// theirs, and a job of another class taken off would be placed straight back). Returns the
// compute freed or being freed.
qint64 freeTraining(PolicyContext &ctx,
                    qint64 nowMs,
                    qint64 milli,
                    bool drain,
                    qint64 deadlineMs,
                    ActionReason why,
                    int forService = -1,
                    std::optional<Domain::WorkloadKind> kind = std::nullopt);

// Makes room for `replicas` waiting replicas of one service: for each, the card that can take
// one at least cost: a card where training already leaving makes room costs nothing; otherwise
// the training on the card that would then fit it leaves (whole gangs), cheapest card first
// (compute taken, then work lost). Whether a card takes a replica once some jobs left is the
// scheduler's answer on a trial copy that follows the plan (Sched::Trial: its filters, its MIG
// planning, host resources); which victims, at what cost, is this function's. `drain`: at the
// next checkpoint when it comes by `deadlineMs`, else at once. Returns how many replicas have
// room (now or once training left).
int makeRoomForService(PolicyContext &ctx,
                       qint64 nowMs,
                       int service,
                       int replicas,
                       bool drain,
                       qint64 deadlineMs,
                       ActionReason why);

// Replicas that wait get room, for every service, while the inference class stays within
// `inferenceBudgetMilli` (-1: no limit).
void makeRoomForReplicas(PolicyContext &ctx,
                         qint64 nowMs,
                         qint64 inferenceBudgetMilli,
                         bool immediate,
                         qint64 deadlineMs,
                         ActionReason why);

// What consolidateTraining remembers between calls: when it last moved jobs for each waiting
// job, so that it does not move them again while that job waits for another reason.
struct ConsolidationMemo
{
    QHash<int, qint64> askedFor; // waiting job id -> when
    qint64 retryMs = 10 * 60'000;
};

// Small training jobs left alone on cards that a waiting whole-card training job of higher
// priority could use (inference scaled down around them) leave, when that gives the waiting job
// all the cards it needs and its class budget allows it: a lone job on the one card needed at
// its next checkpoint (by `deadlineMs`), otherwise all of them at once, so that the cards are
// empty together. A card counts when the scheduler would give the waiting job a unit of it once
// those jobs (or those already leaving) had left (Sched::Trial::fitOn). One waiting job per
// call, and not the same one again within memo->retryMs while it still waits; returns how many
// jobs were asked to leave.
int consolidateTraining(PolicyContext &ctx,
                        qint64 nowMs,
                        qint64 deadlineMs,
                        ConsolidationMemo *memo = nullptr);

// What defragmentInference remembers between calls.
struct DefragMemo
{
    qint64 lastMs = -1;           // when it last moved replicas
    qint64 settleMs = 5 * 60'000; // and how long it lets things settle after that
};

// Inference replicas spread over more cards than they need while whole-card training waits:
// moves the replicas off one MIG card into room on the other cards that already serve inference,
// so that the card can go to training whole. Only when every service is steady (nothing waits,
// loads or drains), a whole-card training job waits and its class budget has a card's worth
// left; the card chosen holds only replicas and small training of lower priority (which
// consolidateTraining then moves), and is the one with the fewest replicas to move. Room for a
// replica on another card is the scheduler's answer for that card as it is laid out, with the
// moves planned before it taken (Sched::Trial::fitOn, no reconfiguration, within the class
// budget, as moveReplica places it). Needs PolicyContext::moveReplica. Returns how many replicas
// it moved.
int defragmentInference(PolicyContext &ctx, qint64 nowMs, DefragMemo *memo);

// Applies the QoS knobs when they change (remembers the last values).
class QosKnobs
{
public:
    void apply(PolicyContext &ctx, qint64 nowMs, double bandwidthShare, double powerCapW);

private:
    double m_share = -2;
    double m_cap = -2;
};

} // namespace Zhaoxi::Policy
