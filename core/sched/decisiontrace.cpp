// SPDX-License-Identifier: GPL-3.0-or-later
#include "decisiontrace.h"

#include <QStringBuilder>

namespace Zhaoxi::Sched {

const char *shapeVerdictCode(ShapeTrace::Verdict verdict)
{
    switch (verdict) {
    case ShapeTrace::Verdict::Chosen:
        return "chosen";
    case ShapeTrace::Verdict::Placeable:
        return "placeable";
    case ShapeTrace::Verdict::TooSlow:
        return "too-slow";
    case ShapeTrace::Verdict::NoRoom:
        return "no-room";
    }
    return "no-room";
}

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
    static const WorkloadSpec none;
    const WorkloadSpec &spec
            = job.isValid() && job.value() < state.jobs().size() ? state.job(job).spec : none;
    for (const ShapeTrace &sh : shapes) {
        const Domain::Demand &d = Domain::shapeDemand(spec, sh.shape);
        s += QStringLiteral("  shape %1 (%2, speed %3): %4")
                     .arg(sh.shape < 0 ? QStringLiteral("primary") : QString::number(sh.shape),
                          Domain::shapeText(d))
                     .arg(sh.speed)
                     .arg(QLatin1String(shapeVerdictCode(sh.verdict)));
        if (sh.verdict == ShapeTrace::Verdict::NoRoom)
            s += QStringLiteral(" (%1)").arg(sh.status.describe());
        else if (sh.verdict == ShapeTrace::Verdict::TooSlow)
            s += QStringLiteral(" (%1 ms a request)").arg(sh.serviceMs, 0, 'f', 1);
        else
            s += QStringLiteral(", %1 work per card").arg(sh.score, 0, 'f', 3);
        s += QStringLiteral("\n");
    }
    if (!note.isEmpty())
        s += note % QStringLiteral("\n");
    return s;
}

} // namespace Zhaoxi::Sched
