// SPDX-License-Identifier: GPL-3.0-or-later
#include "placebench.h"

#include "core/sched/plugins/hostview.h"
#include "core/sched/plugins/policies.h"

#include <QSet>

namespace Zhaoxi::Trace {

using namespace Zhaoxi::Sched;

Catalogue::Catalogue PlaceBench::catalogueFor(const QList<NodeRecord> &nodes)
{
    Catalogue::Catalogue cat;
    QSet<QString> seen;
    for (const NodeRecord &n : nodes) {
        if (n.gpus == 0 || seen.contains(n.model))
            continue;
        seen.insert(n.model);
        Domain::CardModel m;
        m.name = n.model;
        m.vendor = QStringLiteral("trace");
        m.memoryMiB = qint64(1) << 40; // the trace has no GPU memory: never binds
        Domain::SoftSlicing soft;
        soft.mode = PartitionMode::TimeSlicing;
        soft.maxClients = 0; // unlimited
        m.softModes.append(soft);
        cat.add(m);
    }
    return cat;
}

std::unique_ptr<PlaceBench> PlaceBench::prepare(const QList<NodeRecord> &nodes,
                                                const QList<PodRecord> &pods,
                                                const BenchOptions &options,
                                                QString *error)
{
    std::unique_ptr<PlaceBench> b(new PlaceBench);
    b->m_options = options;
    b->m_target = std::make_shared<const TargetWorkload>(targetWorkloadOf(pods));
    PolicyOptions po;
    po.target = b->m_target;
    po.seed = quint64(options.seed);
    std::optional<Profile> profile = placementPolicyProfile(options.policy, po);
    if (!profile) {
        if (error)
            *error = QStringLiteral("unknown policy '%1' (known: %2)")
                             .arg(options.policy,
                                  placementPolicyNames().join(QStringLiteral(", ")));
        return nullptr;
    }
    for (const NodeRecord &n : nodes) {
        if (n.gpus > kMaxCardsPerHost) {
            if (error)
                *error = QStringLiteral("host '%1' has %2 GPUs; at most %3 are supported")
                                 .arg(n.name)
                                 .arg(n.gpus)
                                 .arg(kMaxCardsPerHost);
            return nullptr;
        }
    }
    b->m_plan = planArrivals(nodes, pods, options.seed, options.tune);

    Catalogue::Catalogue cat = catalogueFor(nodes);
    b->m_state = ClusterState(cat);
    for (const NodeRecord &n : b->m_plan.nodes) {
        const HostId h = b->m_state.addHost(n.name, n.cpuMilli, n.memoryMiB);
        const int model = cat.indexOf(n.model);
        for (int g = 0; g < n.gpus; ++g)
            b->m_state.addCard(h, model, PartitionMode::TimeSlicing);
    }
    b->m_metric = ResolvedWorkload(*b->m_target, b->m_state.catalogue());
    b->m_framework = std::make_unique<Framework>(*profile);
    b->m_framework->setHostRanks(std::vector<int>(b->m_plan.ranks.begin(), b->m_plan.ranks.end()));
    b->m_specs.reserve(b->m_plan.pods.size());
    for (const PodRecord &p : b->m_plan.pods)
        b->m_specs.append(specOf(p));

    BenchResult &r = b->m_result;
    r.policy = options.policy;
    r.seed = options.seed;
    r.tune = options.tune;
    r.hosts = int(b->m_plan.nodes.size());
    r.gpus = int(b->m_plan.capacityMilli / 1000);
    r.arrivals = int(b->m_plan.arrivals.size());
    r.originals = b->m_plan.originals;
    r.targetShapes = int(b->m_target->shapes().size());
    r.targetCoverage = b->m_target->totalCount() > 0 ? double(b->m_target->keptCount())
                                                               / double(b->m_target->totalCount())
                                                     : 0;
    return b;
}

void PlaceBench::replay()
{
    BenchResult &r = m_result;
    const QList<HostState> &hosts = m_state.hosts();
    const int nHosts = int(hosts.size());
    // Fragmentation per host, refreshed for the one host a placement changes.
    // (The simulator sums the hosts in Go's map order, which is random: keeping a running total
    // changes nothing that its curves could show.)
    std::vector<double> hostFrag(size_t(nHosts), 0.0);
    std::vector<int> hostFree(size_t(nHosts), 0);
    double fragTotal = 0;
    qint64 freeTotal = 0;
    auto refresh = [&](int h) {
        const HostView v(m_state, hosts[h]);
        fragTotal -= hostFrag[size_t(h)];
        freeTotal -= hostFree[size_t(h)];
        hostFrag[size_t(h)] = m_metric.fragmentation(v.freeMilli, v.model, v.cardCount, v.cpuFree);
        hostFree[size_t(h)] = v.totalFree;
        fragTotal += hostFrag[size_t(h)];
        freeTotal += hostFree[size_t(h)];
    };
    for (int h = 0; h < nHosts; ++h)
        refresh(h);
    const double weightSum = m_metric.weightSum();

    DecideOptions opts;
    opts.trace = false;
    r.samples.reserve(m_plan.arrivals.size());
    for (const int podIndex : std::as_const(m_plan.arrivals)) {
        const Domain::WorkloadSpec &spec = m_specs[podIndex];
        const qint64 demand = m_plan.pods[podIndex].gpuDemand();
        r.arrivedMilli += demand;
        const JobId id = m_state.addJob(spec, 0);
        const Decision d = m_framework->decide(m_workspace, m_state, m_state.job(id), 0, opts);
        ++r.decisions;
        if (d.placement) {
            m_state.attachHost(id, d.placement->host);
            for (const UnitChoice &u : d.placement->units)
                m_state.bind(id, u);
            m_state.setJobState(id, JobState::Running);
            r.allocatedMilli += demand;
            ++r.placed;
            refresh(d.placement->host.value());
        } else {
            m_state.setJobState(id, JobState::Failed);
            ++r.failed;
        }
        Sample s;
        s.arrived = r.arrivedMilli;
        s.allocated = r.allocatedMilli;
        s.fragAmount = std::max(0.0, fragTotal);
        s.idle = double(freeTotal) * weightSum;
        r.samples.append(s);
    }
    r.curves = computeCurves(r.samples, r.gpus);
}

} // namespace Zhaoxi::Trace
