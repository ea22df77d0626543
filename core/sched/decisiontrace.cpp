// SPDX-License-Identifier: GPL-3.0-or-later
#include "decisiontrace.h"

#include <QStringBuilder>

namespace Zhaoxi::Sched {

QString DecisionTrace::describe(const ClusterState &state) const
{
    QString s;
    const QString jobName = job.isValid() && job.value() < state.jobs().size()
                                    ? state.job(job).spec.name
                                    : QStringLiteral("?");
    auto hostName
            = [&](HostId h) { return h.isValid() ? state.host(h).name : QStringLiteral("?"); };
    if (result.isSuccess() && placement) {
        s += QStringLiteral("job %1 placed on host %2").arg(jobName, hostName(placement->host));
        for (const UnitChoice &u : placement->units)
            s += QStringLiteral(" card %1").arg(u.card.value());
        s += QStringLiteral("\n");
    } else {
        s += QStringLiteral("job %1 waits: %2 (%3)\n")
                     .arg(jobName, result.describe(), QLatin1String(statusCodeName(result.code)));
    }
    s += QStringLiteral("%1 of %2 hosts feasible\n").arg(hostsFeasible).arg(hostsConsidered);
    for (int r = 0; r < kReasonCount; ++r) {
        if (rejectedBy[size_t(r)] > 0)
            s += QStringLiteral("  %1 hosts: %2\n")
                         .arg(rejectedBy[size_t(r)])
                         .arg(QLatin1String(reasonCode(Reason(r))));
    }
    for (const CandidateTrace &c : rejected)
        s += QStringLiteral("  e.g. %1 rejected by %2: %3\n")
                     .arg(hostName(c.host), c.filter, c.verdict.describe());
    for (const CandidateTrace &c : best) {
        s += QStringLiteral("  candidate %1 total %2:")
                     .arg(hostName(c.host))
                     .arg(c.total, 0, 'f', 2);
        for (int i = 0; i < c.scores.size() && i < scorePlugins.size(); ++i)
            s += QStringLiteral(" %1=%2").arg(scorePlugins[i]).arg(c.scores[i], 0, 'f', 2);
        s += QStringLiteral("\n");
    }
    for (const Victim &v : victims)
        s += QStringLiteral("  evicts job %1 (priority %2, loses %3 s of work)\n")
                     .arg(state.job(v.job).spec.name)
                     .arg(v.priority)
                     .arg(v.lostWorkMs / 1000.0, 0, 'f', 1);
    if (!note.isEmpty())
        s += note % QStringLiteral("\n");
    return s;
}

} // namespace Zhaoxi::Sched
