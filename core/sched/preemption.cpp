// SPDX-License-Identifier: GPL-3.0-or-later
#include "preemption.h"

#include "statement.h"

#include <QHash>

#include <algorithm>

namespace Zhaoxi::Sched {

using Domain::PreemptionTolerance;

namespace {

struct VictimInfo
{
    JobId job;
    int priority = 0;
    qint64 lost = 0;
    qint64 evictAt = 0;
    qint64 classMilli = 0; // compute it frees in the preemptor's class
};

struct Cost
{
    int maxPriority = INT_MIN;
    qint64 lost = 0;
    int count = 0;
    bool operator<(const Cost &o) const
    {
        if (maxPriority != o.maxPriority)
            return maxPriority < o.maxPriority;
        if (lost != o.lost)
            return lost < o.lost;
        return count < o.count;
    }
};

VictimInfo describeVictim(const ClusterState &state,
                          const Job &v,
                          const Job &preemptor,
                          qint64 nowMs,
                          const PreemptionOptions &o)
{
    VictimInfo info;
    info.job = v.id;
    info.priority = v.spec.priority;
    const qint64 done = v.workDoneMs + std::max<qint64>(0, nowMs - v.accountedAtMs);
    const qint64 interval = v.spec.checkpointIntervalMs;
    const qint64 saved = interval > 0 ? done - done % interval : v.checkpointMs;
    if (v.state == JobState::Preempting) {
        // Already leaving: costs nothing more.
        info.lost = 0;
        info.evictAt = v.evictAtMs;
    } else if (v.spec.preemption == PreemptionTolerance::AtCheckpoint && interval > 0
               && o.checkpointOnRequest) {
        // Asked to checkpoint now; it leaves when it acknowledges, at the latest by then.
        info.lost = 0;
        info.evictAt = nowMs + o.maxCheckpointWaitMs;
    } else if (v.spec.preemption == PreemptionTolerance::AtCheckpoint && interval > 0
               && interval - done % interval <= o.maxCheckpointWaitMs) {
        info.lost = 0;
        info.evictAt = nowMs + (done % interval == 0 ? 0 : interval - done % interval);
    } else {
        info.lost = done - saved;
        info.evictAt = nowMs + o.graceMs;
    }
    if (v.spec.kind == preemptor.spec.kind) {
        for (const Assignment &a : v.assignments) {
            const CardState &c = state.card(a.card);
            info.classMilli += state.unitMilli(c, *c.unit(a.unitUid));
        }
    }
    return info;
}

} // namespace

std::optional<PreemptionPlan> planPreemption(const Framework &framework,
                                             ClusterState &state,
                                             JobId preemptorId,
                                             qint64 nowMs,
                                             const PreemptionOptions &options)
{
    const Job preemptor = state.job(preemptorId);
    QHash<int, QList<VictimInfo>> byHost;
    for (const Job &j : state.jobs()) {
        if (!j.isActive() || !j.host.isValid() || j.spec.priority >= preemptor.spec.priority)
            continue;
        if (j.spec.preemption == PreemptionTolerance::Never)
            continue;
        if (options.onlyCard.isValid() && j.host != state.card(options.onlyCard).host)
            continue;
        byHost[j.host.value()].append(describeVictim(state, j, preemptor, nowMs, options));
    }
    QList<int> hosts = byHost.keys();
    std::sort(hosts.begin(), hosts.end()); // deterministic

    // Does the preemptor fit on `host` once `set` has left? (One host each time: no verdict to
    // reuse, one workspace for all the questions.)
    DecisionWorkspace workspace;
    auto fitsWithout = [&](int host, const QList<VictimInfo> &set, Placement *placement) {
        Statement st(state);
        qint64 budget = options.classBudgetLeft;
        for (const VictimInfo &v : set) {
            st.evict(v.job, nowMs);
            if (budget >= 0)
                budget += v.classMilli;
        }
        DecideOptions o;
        o.onlyHosts = {HostId(host)};
        o.onlyCard = options.onlyCard;
        o.trace = false;
        o.classBudgetLeft = budget;
        const Decision d = framework.decide(workspace, state, state.job(preemptorId), nowMs, o);
        if (d.placement && placement)
            *placement = *d.placement;
        st.discard();
        return d.status.isSuccess();
    };

    std::optional<PreemptionPlan> best;
    Cost bestCost;
    for (int host : hosts) {
        QList<VictimInfo> candidates = byHost.value(host);
        std::sort(
                candidates.begin(), candidates.end(), [](const VictimInfo &a, const VictimInfo &b) {
                    if (a.priority != b.priority)
                        return a.priority < b.priority;
                    if (a.lost != b.lost)
                        return a.lost < b.lost;
                    return a.job < b.job;
                });
        // Cheapest first until the preemptor fits.
        QList<VictimInfo> chosen;
        bool fits = false;
        for (const VictimInfo &v : candidates) {
            chosen.append(v);
            if (fitsWithout(host, chosen, nullptr)) {
                fits = true;
                break;
            }
        }
        if (!fits)
            continue;
        // Reprieve: keep the dearest victims whose eviction turns out unnecessary.
        for (qsizetype i = chosen.size() - 1; i >= 0 && chosen.size() > 1; --i) {
            QList<VictimInfo> without = chosen;
            without.removeAt(i);
            if (fitsWithout(host, without, nullptr))
                chosen = without;
        }
        Cost cost;
        for (const VictimInfo &v : chosen) {
            cost.maxPriority = std::max(cost.maxPriority, v.priority);
            cost.lost += v.lost;
            ++cost.count;
        }
        if (best && !(cost < bestCost))
            continue;
        PreemptionPlan plan;
        plan.host = HostId(host);
        fitsWithout(host, chosen, &plan.placement);
        plan.readyAtMs = nowMs;
        for (const VictimInfo &v : chosen) {
            plan.victims.append(Victim{v.job, v.priority, v.lost, v.evictAt});
            plan.readyAtMs = std::max(plan.readyAtMs, v.evictAt);
        }
        best = plan;
        bestCost = cost;
    }
    return best;
}

} // namespace Zhaoxi::Sched
