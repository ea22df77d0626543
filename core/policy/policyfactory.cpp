// SPDX-License-Identifier: GPL-3.0-or-later
#include "forecast.h"
#include "loadguard.h"
#include "staticsplit.h"
#include "timewindows.h"

#include <algorithm>
#include <cmath>

namespace Zhaoxi::Policy {

QStringList policyNames()
{
    return {QStringLiteral("static"),
            QStringLiteral("windows"),
            QStringLiteral("guard"),
            QStringLiteral("forecast")};
}

std::unique_ptr<Policy> makePolicy(const QString &name,
                                   const QJsonObject &params,
                                   PolicyError *error)
{
    if (name == QLatin1String("static"))
        return StaticSplit::create(params, error);
    if (name == QLatin1String("windows"))
        return TimeWindows::create(params, error);
    if (name == QLatin1String("guard"))
        return LoadGuard::create(params, error);
    if (name == QLatin1String("forecast"))
        return Forecast::create(params, error);
    if (error)
        *error = PolicyError{QString(),
                             QStringLiteral("unknown policy \"%1\" (known: %2)")
                                     .arg(name, policyNames().join(QStringLiteral(", ")))};
    return nullptr;
}

Device::ApplianceEvent budgetSetEvent(const Sched::ClassBudget &budget,
                                      qint64 nowMs,
                                      ActionReason why)
{
    Device::ApplianceEvent ev;
    ev.atMs = nowMs;
    ev.code = Device::ApplianceEventCode::BudgetSet;
    ev.reason = why;
    ev.inferenceMilli = budget.inferenceMilli;
    ev.trainingMilli = budget.trainingMilli;
    return ev;
}

Device::ApplianceEvent trainingRequeuedEvent(
        JobId job, qint64 nowMs, bool atCheckpoint, qint64 leavesAtMs, ActionReason why)
{
    Device::ApplianceEvent ev;
    ev.atMs = nowMs;
    ev.code = Device::ApplianceEventCode::TrainingRequeued;
    ev.reason = why;
    ev.job = job;
    ev.atCheckpoint = atCheckpoint;
    ev.leavesAtMs = leavesAtMs;
    return ev;
}

Device::ApplianceEvent trainingKeptEvent(JobId job, qint64 nowMs, ActionReason why)
{
    Device::ApplianceEvent ev;
    ev.atMs = nowMs;
    ev.code = Device::ApplianceEventCode::TrainingKept;
    ev.reason = why;
    ev.job = job;
    return ev;
}

Device::ApplianceEvent trainingPowerCapEvent(double watts, qint64 nowMs)
{
    Device::ApplianceEvent ev;
    ev.atMs = nowMs;
    ev.code = Device::ApplianceEventCode::PowerCapSet;
    ev.workloadClass = int(Domain::WorkloadKind::Training);
    ev.watts = qint64(watts);
    return ev;
}

Device::ApplianceEvent trainingBandwidthEvent(double share, qint64 nowMs)
{
    Device::ApplianceEvent ev;
    ev.atMs = nowMs;
    ev.code = Device::ApplianceEventCode::BandwidthQuotaSet;
    ev.workloadClass = int(Domain::WorkloadKind::Training);
    ev.sharePermille = int(std::llround(share * 1000));
    return ev;
}

} // namespace Zhaoxi::Policy
