// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common.h"

namespace Zhaoxi::Policy {

// A weekly schedule of named windows, each with a class budget and QoS. Switches are prepared
// ahead of the edge: training beyond the next window's share drains (at its checkpoint, or at
// once when the checkpoint would come after the edge) so the capacity is free when the window
// opens. Only training jobs leave to bring training within its budget: batch jobs answer to the
// batch budget (which the windows leave open), and one taken off would be placed straight back.
// Replicas follow the observed load within the window's inference share.
//
//   windows            [object], required, at least one; the first that matches a time wins
//     name             string, required
//     from, to         "HH:MM", required; to < from wraps past midnight; from == to: all day
//     days             ["mon", ...], optional (default every day): the day the window starts
//     inferenceShare   number 0..1, required
//     trainingBandwidthShare, trainingPowerCapW   optional, default the policy's
//   prepareAhead       duration, default 20m
//   mode               "drain" | "immediate", default "drain"
//   defaultInferenceShare  number 0..1, default 0.5: when no window matches
//   + the common parameters (common.h)
class TimeWindows final : public Policy
{
public:
    struct Window
    {
        QString name;
        qint64 fromMs = 0;
        qint64 toMs = 0;
        quint8 days = 0x7f; // bit 0 = Monday
        double inferenceShare = 0.5;
        double bandwidthShare = 1;
        double powerCapW = -1;
    };

    static std::unique_ptr<Policy> create(const QJsonObject &params, PolicyError *error);
    QString name() const override { return QStringLiteral("windows"); }
    void start(PolicyContext &ctx, qint64 nowMs) override;
    qint64 tick(PolicyContext &ctx, qint64 nowMs) override;
    // Each edge's budget (training held to the next window's share from prepareAhead before an
    // edge that gives it less, as tick does).
    QList<PlannedBudget> plannedBudgets(const PolicyContext &ctx,
                                        qint64 nowMs,
                                        qint64 horizonMs) const override;

    // The window in force at a local week time (-1: none).
    int windowAt(qint64 localWeekMs) const;
    // Its name, for any policy: empty when `policy` is not a windows policy or no window is in
    // force.
    static QString windowNameAt(const Policy *policy, qint64 localWeekMs);
    // The next time after `localWeekMs` at which the window in force changes, as a delta (ms),
    // and the window then (`nextWindow`, -1: none); -1 when it never changes.
    qint64 nextEdgeIn(qint64 localWeekMs, int *nextWindow) const;
    const QList<Window> &windows() const { return m_windows; }
    // The words of `days`, by bit: "mon" (bit 0) .. "sun" (bit 6).
    static const QStringList &dayKeys();

private:
    double shareOf(int window) const;

    CommonParams m_common;
    QList<Window> m_windows;
    qint64 m_prepareMs = 20 * 60'000;
    bool m_drain = true;
    double m_defaultShare = 0.5;
    int m_current = -2;
    qint64 m_preparedFor = -1;
    QosKnobs m_qos;
    ConsolidationMemo m_consolidation;
};

} // namespace Zhaoxi::Policy
