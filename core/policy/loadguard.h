// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common.h"

#include <vector>

namespace Zhaoxi::Policy {

// Load-aware guard: inference gets what its load needs now, training the rest. It watches each
// service's window p99 and queue depth; on pressure it adds replicas and makes room by taking
// training off at its next checkpoint (drain, within `drainDeadline`); at once only for the
// replicas the load seen now cannot do without (lost with their card, or fewer placed than the
// SLO needs), and for one when the SLO is at risk. It gives capacity back only after the load has
// stayed low for `hold` and the p99 is well inside the SLO (hysteresis); a replica still waiting
// for room is withdrawn without the hold once two looks in a row need fewer (it serves nobody,
// and the drains that were making room for it are called off). Replicas are sized for
// the service time they take now and the queueing estimate's observed error, nearer the SLO when
// the load is far below its peak (common.h). Small training and stranded replicas are moved
// when that gives waiting whole-card training a card (consolidateTraining, defragmentInference).
// docs/simulation.md walks through it.
//
//   pressureP99      number, default 0.9: pressure when the window p99 passes this share of the SLO
//   riskP99          number, default 1.0: the SLO at risk: act at once, when the queue also backs
//                    up (depthPerReplica) or the p99 stays past it for riskAfter
//   riskAfter        duration, default 2m
//   defragment       boolean, default true: move replicas off a card into room on the other
//                    inference cards when that gives waiting whole-card training the card
//                    (defragmentInference)
//   calibrationTau   duration, default 15m: how long the measure of the queueing estimate's
//                    error for a service takes to follow (0: plan with the estimate as it is)
//   recoveryGrowth   number, default 4: when replicas are lost with their card and those left
//                    cannot carry the load, replicas for this many times the shortfall come at once
//                    besides the replacements, so that the queue built meanwhile drains (0: none)
//   releaseP99       number, default 0.5: give back only under this share of the SLO
//   depthPerReplica  number, default 10: pressure when more requests than this per serving replica
//   hold             duration, default 10m: how long the load stays low before a serving replica
//                    goes
//   stepUp           number, default 0.25: on pressure, grow by this share of the replicas (>= 1;
//                    twice that when the SLO is at risk)
//   headroomMilli    number, default 0: compute kept free of training besides the replicas
//   mode             "drain" | "immediate", default "drain": how room is made under pressure
//   drainDeadline    duration, default 5m
//   minWindowRequests number, default 20: fewer requests in the window: no p99 judgement
//   + the common parameters (common.h)
class LoadGuard : public Policy
{
public:
    static std::unique_ptr<Policy> create(const QJsonObject &params, PolicyError *error);
    QString name() const override { return QStringLiteral("guard"); }
    void start(PolicyContext &ctx, qint64 nowMs) override;
    qint64 tick(PolicyContext &ctx, qint64 nowMs) override;

protected:
    // Reads the guard's and the common parameters (subclasses add theirs before finish()).
    bool readGuard(ParamReader &r);
    // The rate (req/s) replicas are sized for; the guard uses what it observes.
    virtual double plannedRate(PolicyContext &ctx, const ServiceView &s, qint64 nowMs);
    // The rate the service peaks at (for sloSafetyAtRest): the guard takes the highest it has
    // seen so far.
    virtual double peakRate(const ServiceView &, double seenRps) const { return seenRps; }
    // How far ahead room is made for replicas that wait (the guard: drainDeadline).
    virtual qint64 roomDeadlineMs(qint64 nowMs) const { return nowMs + m_drainDeadlineMs; }

    CommonParams m_common;

private:
    // Training leaving at its checkpoint on its own account (not as a waiting job's victim).
    static QList<JobId> leavingTraining(PolicyContext &ctx, qint64 nowMs);
    // The drains asked for replicas that no longer wait are called off, while the training
    // class stays within `trainingBudgetMilli`.
    void keepUnneededDrains(PolicyContext &ctx, qint64 nowMs, qint64 trainingBudgetMilli);

    struct ServiceState
    {
        qint64 belowSinceMs = -1;
        qint64 overSinceMs = -1; // window p99 past the risk threshold since
        double modelError = 1;   // observed p99 / the queueing estimate's, smoothed
        qint64 calibratedAtMs = -1;
        int placedBefore = 0;  // replicas placed at the end of the last look
        int recoveryExtra = 0; // replicas asked for at once this look beyond those lost
        double peakRps = 0;    // the highest window rate seen
    };
    double m_pressureP99 = 0.9;
    double m_riskP99 = 1.0;
    double m_releaseP99 = 0.5;
    double m_depthPerReplica = 10;
    qint64 m_holdMs = 10 * 60'000;
    double m_stepUp = 0.25;
    qint64 m_headroomMilli = 0;
    bool m_drain = true;
    qint64 m_drainDeadlineMs = 5 * 60'000;
    qint64 m_minWindowRequests = 20;
    qint64 m_riskAfterMs = 2 * 60'000;
    qint64 m_calibrationTauMs = 15 * 60'000;
    double m_recoveryGrowth = 4;
    std::vector<ServiceState> m_state;
    QosKnobs m_qos;
    ConsolidationMemo m_consolidation;
    // Training asked to leave at its checkpoint to make room for waiting replicas: called off
    // (PolicyContext::keepTraining) when no replica waits any more before it has left.
    QList<JobId> m_leavingForRoom;
    bool m_defragment = true;
    DefragMemo m_defrag;
};

} // namespace Zhaoxi::Policy
