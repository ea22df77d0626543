// SPDX-License-Identifier: GPL-3.0-or-later
#include "fleetstate.h"

#include "core/catalogue/layoutrules.h"

#include <algorithm>

namespace Zhaoxi::Fleet {

using Domain::CardId;
using Domain::HostId;
using Domain::JobId;
using Domain::MigPlacement;
using Domain::PartitionMode;
using Sched::UnitChoice;

namespace {

constexpr int kMaxCardsPerHost = 64; // Sched::HostState keeps one bit per card

// A gpu device of a node, in Slurm's index order.
struct Slot
{
    CardId card;
    int uid = -1; // -1: a card in a soft mode (its shares are made when bound)
    QString type;
};

struct PlannedCard
{
    int model = -1;
    PartitionMode mode = PartitionMode::Whole;
    QString gpuType;               // whole cards
    QList<MigPlacement> layout;    // MIG cards, in GRES order
    QList<QString> placementTypes; // the GRES type of each placement
};

int profileOf(const Domain::CardModel &m, const QString &type)
{
    for (int i = 0; i < m.migProfiles.size(); ++i) {
        if (m.migProfiles[i].name.compare(type, Qt::CaseInsensitive) == 0)
            return i;
    }
    return -1;
}

bool isMigType(const Catalogue::Catalogue &catalogue, const QString &type)
{
    return std::any_of(catalogue.models().cbegin(), catalogue.models().cend(), [&](const auto &m) {
        return profileOf(m, type) >= 0;
    });
}

// Plans the cards of one node from its GRES; an empty string, or why it cannot.
QString planCards(const FleetNode &node,
                  const Catalogue::Catalogue &catalogue,
                  QList<PlannedCard> *cards,
                  qint64 *mpsTotal,
                  qint64 *shardTotal)
{
    QList<const Gres *> gpus;
    QStringList migTypes;
    for (const Gres &g : node.gres) {
        if (g.name == QLatin1String("mps"))
            *mpsTotal += g.count;
        else if (g.name == QLatin1String("shard"))
            *shardTotal += g.count;
        else if (g.name == QLatin1String("gpu")) {
            if (g.type.isEmpty()) {
                return QStringLiteral("gpu GRES \"%1\" has no type: Zhaoxi needs a model name "
                                      "(gpu:h200:4) or a MIG profile (gpu:3g.71gb:2) to know "
                                      "the cards")
                        .arg(g.toString());
            }
            gpus << &g;
            if (isMigType(catalogue, g.type) && !migTypes.contains(g.type.toLower()))
                migTypes << g.type.toLower();
        }
    }
    if (*mpsTotal > 0 && *shardTotal > 0)
        return QStringLiteral("the node has both mps and shard GRES; a card has one mode");
    if (!migTypes.isEmpty() && (*mpsTotal > 0 || *shardTotal > 0))
        return QStringLiteral("the node has MIG instances and %1 GRES; MIG cards are not shared")
                .arg(*mpsTotal > 0 ? QStringLiteral("mps") : QStringLiteral("shard"));
    if ((*mpsTotal > 0 || *shardTotal > 0) && gpus.isEmpty())
        return QStringLiteral("the node has %1 GRES but no gpu GRES to share")
                .arg(*mpsTotal > 0 ? QStringLiteral("mps") : QStringLiteral("shard"));
    const PartitionMode softMode = *mpsTotal > 0     ? PartitionMode::Mps
                                   : *shardTotal > 0 ? PartitionMode::TimeSlicing
                                                     : PartitionMode::Whole;
    const int migModel
            = migTypes.isEmpty() ? -1 : modelForMigProfiles(catalogue, migTypes, node.features);
    if (!migTypes.isEmpty() && migModel < 0) {
        return QStringLiteral("no card model of the catalogue has all of the MIG profiles %1")
                .arg(migTypes.join(QStringLiteral(", ")));
    }
    qint64 total = 0;
    for (const Gres *g : std::as_const(gpus)) {
        total += g->count;
        if (total > kMaxCardsPerHost * 8)
            return QStringLiteral("more gpu devices than Zhaoxi plans on one host");
        if (isMigType(catalogue, g->type)) {
            const Domain::CardModel &m = catalogue.models()[migModel];
            const int profile = profileOf(m, g->type);
            for (qint64 k = 0; k < g->count; ++k) {
                PlannedCard *c = cards->isEmpty() || cards->last().mode != PartitionMode::Mig
                                         ? nullptr
                                         : &cards->last();
                int start = c ? Catalogue::firstFreeStart(m, c->layout, profile) : -1;
                if (start < 0 || !Catalogue::canAdd(m, c->layout, {profile, start}).isValid()) {
                    cards->append(PlannedCard{migModel, PartitionMode::Mig, QString(), {}, {}});
                    c = &cards->last();
                    start = Catalogue::firstFreeStart(m, c->layout, profile);
                    if (start < 0)
                        return QStringLiteral("%1 cannot hold a %2 instance").arg(m.name, g->type);
                }
                c->layout.append({profile, start});
                c->placementTypes.append(g->type);
            }
        } else {
            const int model = modelForGpuType(catalogue, g->type);
            if (model < 0) {
                return QStringLiteral("gpu type \"%1\" is neither a card model nor a MIG "
                                      "profile of the catalogue (known models: %2)")
                        .arg(g->type, catalogue.names().join(QStringLiteral(", ")));
            }
            const Domain::CardModel &m = catalogue.models()[model];
            if (!m.supports(softMode)) {
                return QStringLiteral("%1 does not support %2")
                        .arg(m.name, Domain::toString(softMode));
            }
            for (qint64 k = 0; k < g->count; ++k)
                cards->append(PlannedCard{model, softMode, g->type, {}, {}});
        }
        if (cards->size() > kMaxCardsPerHost)
            return QStringLiteral("more than %1 cards").arg(kMaxCardsPerHost);
    }
    return QString();
}

Domain::WorkloadKind kindOfPartition(const QString &partition)
{
    if (partition.compare(QLatin1String("inference"), Qt::CaseInsensitive) == 0)
        return Domain::WorkloadKind::Inference;
    if (partition.compare(QLatin1String("training"), Qt::CaseInsensitive) == 0)
        return Domain::WorkloadKind::Training;
    return Domain::WorkloadKind::Batch;
}

// The job as a spec: enough for the state (kind, host resources, what it holds).
Domain::WorkloadSpec specOf(const FleetJob &job, int nodes)
{
    Domain::WorkloadSpec spec;
    spec.name = job.name.isEmpty() ? QStringLiteral("slurm-%1").arg(job.id) : job.name;
    spec.kind = kindOfPartition(job.partition);
    if (spec.kind == Domain::WorkloadKind::Inference) {
        // Slurm knows no service or latency objective: the job's name is its service (replicas
        // submitted under one name spread like a service's), and the objective is the loosest a
        // spec may state, so that nothing tightens for it (the readers require one).
        spec.inference = Domain::InferenceSpec{};
        spec.inference->service = spec.name;
        spec.inference->sloP99Ms = Domain::WorkloadSpecLimits::maxSloP99Ms;
    }
    spec.demand.hostCpuMilli = qint64(std::max(1, job.cpus / std::max(1, nodes))) * 1000;
    spec.demand.hostMemoryMiB = job.memoryMiB;
    spec.demand.cards = 0;
    for (const Gres &g : job.gresRequested) {
        if (g.name == QLatin1String("gpu")) {
            spec.demand.cards += int(g.count);
            if (!g.type.isEmpty()
                && spec.demand.compute.kind == Domain::ComputeDemand::Kind::WholeCard) {
                // A MIG type becomes the demand's profile below when it is one (buildFleetState).
                spec.demand.compute.profile = g.type;
            }
        } else if (g.name == QLatin1String("mps") || g.name == QLatin1String("shard")) {
            spec.demand.cards = std::max(spec.demand.cards, 1);
        }
    }
    return spec;
}

// The state of a job Slurm no longer runs: COMPLETED finished, CANCELLED cancelled, anything
// else (FAILED, TIMEOUT, NODE_FAIL, PREEMPTED, OUT_OF_MEMORY, BOOT_FAIL, DEADLINE) failed.
Sched::JobState endedState(const QString &slurmState)
{
    if (slurmState == QLatin1String("COMPLETED"))
        return Sched::JobState::Finished;
    if (slurmState == QLatin1String("CANCELLED"))
        return Sched::JobState::Cancelled;
    return Sched::JobState::Failed;
}

class Builder
{
public:
    Builder(const Catalogue::Catalogue &catalogue, FleetState &out)
        : m_catalogue(catalogue)
        , m_out(out)
    {}

    void addNode(const FleetNode &node)
    {
        NodeMap nm;
        QList<PlannedCard> planned;
        qint64 mps = 0, shards = 0;
        nm.problem = planCards(node, m_catalogue, &planned, &mps, &shards);
        Sched::ClusterState &s = m_out.state;
        nm.host = s.addHost(node.name,
                            qint64(std::max(node.cpus, 1)) * 1000,
                            std::max<qint64>(node.realMemoryMiB, 1));
        QList<Slot> slots;
        if (nm.problem.isEmpty()) {
            const int n = int(planned.size());
            for (const PlannedCard &p : std::as_const(planned)) {
                FleetCard fc;
                fc.card = s.addCard(nm.host, p.model, p.mode);
                fc.gpuType = p.gpuType;
                fc.mpsPerCard = n > 0 ? int(mps / n) : 0;
                fc.shardsPerCard = n > 0 ? int(shards / n) : 0;
                if (p.mode == PartitionMode::Mig) {
                    for (qsizetype i = 0; i < p.layout.size(); ++i) {
                        const int uid = s.createPartition(
                                fc.card, p.layout[i].profile, p.layout[i].start);
                        fc.gresIndices.append(int(slots.size()));
                        fc.uids.append(uid);
                        slots.append(Slot{fc.card, uid, p.placementTypes[i]});
                    }
                } else {
                    const int uid
                            = p.mode == PartitionMode::Whole ? s.card(fc.card).units[0].uid : -1;
                    fc.gresIndices.append(int(slots.size()));
                    if (uid >= 0)
                        fc.uids.append(uid);
                    slots.append(Slot{fc.card, uid, p.gpuType});
                }
                nm.cards.append(fc);
            }
        } else {
            m_out.warnings << QStringLiteral("node %1: %2").arg(node.name, nm.problem);
        }
        s.setHostUp(nm.host, nm.problem.isEmpty() && node.acceptsWork());
        m_slots.append(slots);
        m_out.nodes.append(nm);
    }

    // With `everyJob`, every job of the list becomes one job of the state, in list order (an
    // ended job an ended one; one that cannot be placed a pending one), so that the state's
    // job ids are the list's indices.
    void addJob(const FleetJob &job, qint64 nowMs, bool everyJob = false)
    {
        const bool holds = job.holdsResources() && !job.nodes.isEmpty();
        Sched::ClusterState &s = m_out.state;
        if (!holds && !job.isPending()) {
            if (!everyJob)
                return; // ended: not part of the state
            const JobId id = s.addJob(specOf(job, std::max(1, int(job.nodes.size()))),
                                      job.submitTime > 0 ? job.submitTime * 1000 : nowMs);
            s.setJobState(id, endedState(job.state));
            s.jobRef(id).endedMs = nowMs;
            note(job.id, id);
            return;
        }
        Domain::WorkloadSpec spec = specOf(job, int(job.nodes.size()));
        // A MIG type asked for is a profile demand; a model type or none, a whole card; a
        // share, a fraction.
        if (!spec.demand.compute.profile.isEmpty()
            && isMigType(m_catalogue, spec.demand.compute.profile)) {
            spec.demand.compute.kind = Domain::ComputeDemand::Kind::MigProfile;
            spec.demand.compute.profile = spec.demand.compute.profile.toLower();
        } else {
            // A model type ("gpu:h200:1") is a whole card of that model only.
            const int model = spec.demand.compute.profile.isEmpty()
                                      ? -1
                                      : modelForGpuType(m_catalogue, spec.demand.compute.profile);
            if (model >= 0)
                spec.affinity.cardModels = {m_catalogue.models().at(model).name};
            spec.demand.compute.profile.clear();
        }
        if (!holds) {
            const JobId id = s.addJob(spec, job.submitTime > 0 ? job.submitTime * 1000 : nowMs);
            note(job.id, id);
            return;
        }
        const int nodeIndex = m_nodeByName.value(job.nodes.first(), -1);
        if (nodeIndex < 0) {
            m_out.warnings << QStringLiteral("job %1: runs on %2, which Slurm did not list")
                                      .arg(job.id)
                                      .arg(job.nodes.first());
            if (everyJob)
                note(job.id, s.addJob(spec, job.submitTime > 0 ? job.submitTime * 1000 : nowMs));
            return;
        }
        if (job.nodes.size() > 1) {
            m_out.warnings << QStringLiteral("job %1 spans %2 nodes; Zhaoxi shows it on %3 only")
                                      .arg(job.id)
                                      .arg(job.nodes.size())
                                      .arg(job.nodes.first());
        }
        const NodeMap &nm = m_out.nodes[nodeIndex];
        const QList<Gres> &held
                = job.gresAllocated.isEmpty() ? job.gresRequested : job.gresAllocated.first();
        QList<UnitChoice> choices;
        QString why;
        if (nm.problem.isEmpty())
            why = chooseUnits(nodeIndex, held, &choices);
        else if (std::any_of(held.cbegin(), held.cend(), [](const Gres &g) { return g.count > 0; }))
            why = QStringLiteral("its node's cards could not be mapped");
        if (!why.isEmpty()) {
            m_out.warnings << QStringLiteral("job %1 on %2: %3; shown holding CPU and memory only")
                                      .arg(job.id)
                                      .arg(job.nodes.first(), why);
            choices.clear();
        }
        spec.demand.cards = int(choices.size());
        if (!choices.isEmpty() && choices.first().kind == UnitChoice::Kind::NewShare) {
            spec.demand.compute.kind = Domain::ComputeDemand::Kind::Fraction;
            spec.demand.compute.milli = choices.first().milli;
        }
        // Host resources beyond what is free would break the state's accounting (Slurm may
        // oversubscribe): clamp them, and say so.
        const Sched::HostState &h = s.host(nm.host);
        const qint64 freeCpu = h.cpuMilli - h.usedCpuMilli;
        const qint64 freeMem = h.memoryMiB - h.usedMemoryMiB;
        if (spec.demand.hostCpuMilli > freeCpu || spec.demand.hostMemoryMiB > freeMem) {
            m_out.warnings << QStringLiteral("job %1 on %2: holds more CPU or memory than the node "
                                             "has free; counted up to what is free")
                                      .arg(job.id)
                                      .arg(job.nodes.first());
            spec.demand.hostCpuMilli
                    = std::max<qint64>(0, std::min(spec.demand.hostCpuMilli, freeCpu));
            spec.demand.hostMemoryMiB
                    = std::max<qint64>(0, std::min(spec.demand.hostMemoryMiB, freeMem));
        }
        const JobId id = s.addJob(spec, job.submitTime > 0 ? job.submitTime * 1000 : nowMs);
        s.attachHost(id, nm.host);
        for (const UnitChoice &c : std::as_const(choices))
            s.bind(id, c);
        s.setJobState(id, Sched::JobState::Running);
        s.jobRef(id).startedMs = job.startTime > 0 ? job.startTime * 1000 : nowMs;
        note(job.id, id);
    }

    void indexNodes()
    {
        for (int i = 0; i < m_out.snapshot.nodes.size(); ++i)
            m_nodeByName.insert(m_out.snapshot.nodes[i].name, i);
    }

private:
    void note(qint64 slurmId, JobId id)
    {
        m_out.jobBySlurmId.insert(slurmId, id);
        m_out.slurmIdByJob.insert(id.value(), slurmId);
    }

    // The units `held` names on node `nodeIndex`; an empty string, or why not. Nothing is bound
    // here: the choices are checked against each other and the state first.
    QString chooseUnits(int nodeIndex, const QList<Gres> &held, QList<UnitChoice> *out)
    {
        const Sched::ClusterState &s = m_out.state;
        const QList<Slot> &slots = m_slots[nodeIndex];
        const NodeMap &nm = m_out.nodes[nodeIndex];
        QList<int> taken; // slot indices chosen for this job
        const auto slotFree = [&](int i) {
            if (taken.contains(i))
                return false;
            const Slot &sl = slots[i];
            const Sched::CardState &c = s.card(sl.card);
            if (sl.uid < 0) // a soft card serves a whole gpu only when nothing shares it
                return c.units.isEmpty();
            const Sched::Unit *u = c.unit(sl.uid);
            return u && !u->job.isValid();
        };
        for (const Gres &g : held) {
            if (g.count <= 0)
                continue;
            if (g.name == QLatin1String("gpu")) {
                QList<int> picks;
                if (!g.indices.isEmpty()) {
                    if (g.indices.size() != g.count)
                        return QStringLiteral("%1 names %2 indices")
                                .arg(g.toString())
                                .arg(g.indices.size());
                    for (int i : g.indices) {
                        if (i < 0 || i >= slots.size())
                            return QStringLiteral("gpu index %1 is not on the node (it has %2)")
                                    .arg(i)
                                    .arg(slots.size());
                        if (!slotFree(i))
                            return QStringLiteral("gpu index %1 is held by another job").arg(i);
                        picks << i;
                        taken << i;
                    }
                } else {
                    for (int i = 0; i < slots.size() && picks.size() < g.count; ++i) {
                        if ((g.type.isEmpty()
                             || slots[i].type.compare(g.type, Qt::CaseInsensitive) == 0)
                            && slotFree(i)) {
                            picks << i;
                            taken << i;
                        }
                    }
                    if (picks.size() < g.count)
                        return QStringLiteral("no %1 free units for %2")
                                .arg(g.count)
                                .arg(g.toString());
                }
                for (int i : std::as_const(picks)) {
                    UnitChoice c;
                    c.card = slots[i].card;
                    if (slots[i].uid >= 0) {
                        c.kind = UnitChoice::Kind::Existing;
                        c.uid = slots[i].uid;
                    } else {
                        c.kind = UnitChoice::Kind::NewShare;
                        c.milli = 1000;
                    }
                    out->append(c);
                }
            } else if (g.name == QLatin1String("mps") || g.name == QLatin1String("shard")) {
                const bool mps = g.name == QLatin1String("mps");
                // The card it is on: the index Slurm gives, else the first with room.
                int cardPos = -1;
                for (int k = 0; k < nm.cards.size(); ++k) {
                    const FleetCard &fc = nm.cards[k];
                    const int per = mps ? fc.mpsPerCard : fc.shardsPerCard;
                    if (per <= 0)
                        continue;
                    const int milli = int(std::min<qint64>(1000, (g.count * 1000 + per - 1) / per));
                    const bool indexOk
                            = g.indices.isEmpty() || g.indices.contains(fc.gresIndices.first());
                    if (indexOk
                        && 1000 - s.card(fc.card).usedMilli - pendingMilli(*out, fc.card)
                                   >= milli) {
                        cardPos = k;
                        UnitChoice c;
                        c.card = fc.card;
                        c.kind = UnitChoice::Kind::NewShare;
                        c.milli = milli;
                        out->append(c);
                        break;
                    }
                }
                if (cardPos < 0)
                    return QStringLiteral("no card of the node has room for %1").arg(g.toString());
            }
        }
        return QString();
    }

    static int pendingMilli(const QList<UnitChoice> &choices, CardId card)
    {
        int sum = 0;
        for (const UnitChoice &c : choices) {
            if (c.card == card && c.kind == UnitChoice::Kind::NewShare)
                sum += c.milli;
        }
        return sum;
    }

    const Catalogue::Catalogue &m_catalogue;
    FleetState &m_out;
    QList<QList<Slot>> m_slots; // per node
    QHash<QString, int> m_nodeByName;
};

} // namespace

int modelForGpuType(const Catalogue::Catalogue &catalogue, const QString &type)
{
    const int exact = catalogue.indexOf(type);
    if (exact >= 0 || type.isEmpty())
        return exact;
    int found = -1;
    for (int i = 0; i < catalogue.models().size(); ++i) {
        const Domain::CardModel &m = catalogue.models()[i];
        bool match = m.name.startsWith(type, Qt::CaseInsensitive);
        for (const QString &a : m.aliases)
            match = match || a.startsWith(type, Qt::CaseInsensitive);
        if (match) {
            if (found >= 0)
                return -1; // ambiguous: "a100" is two models
            found = i;
        }
    }
    return found;
}

int modelForMigProfiles(const Catalogue::Catalogue &catalogue,
                        const QStringList &profiles,
                        const QStringList &features)
{
    const auto hasAll = [&](const Domain::CardModel &m) {
        return std::all_of(profiles.cbegin(), profiles.cend(), [&](const QString &p) {
            return profileOf(m, p) >= 0;
        });
    };
    for (const QString &f : features) {
        const int i = catalogue.indexOf(f.trimmed());
        if (i >= 0 && hasAll(catalogue.models()[i]))
            return i;
    }
    for (int i = 0; i < catalogue.models().size(); ++i) {
        if (hasAll(catalogue.models()[i]))
            return i;
    }
    return -1;
}

int FleetState::gresIndexOf(CardId card, int uid) const
{
    const FleetCard *fc = fleetCard(card);
    const qsizetype at = fc ? fc->uids.indexOf(uid) : -1;
    return at >= 0 ? fc->gresIndices.value(at, -1) : -1;
}

const FleetCard *FleetState::fleetCard(CardId card) const
{
    if (!card.isValid() || card.value() >= state.cards().size())
        return nullptr;
    const Sched::CardState &c = state.card(card);
    const NodeMap &nm = nodes[c.host.value()];
    return c.indexOnHost < nm.cards.size() ? &nm.cards[c.indexOnHost] : nullptr;
}

qint64 FleetState::slurmJobOn(CardId card, int uid) const
{
    const Sched::Unit *u = state.card(card).unit(uid);
    return u && u->job.isValid() ? slurmIdByJob.value(u->job.value(), 0) : 0;
}

FleetState buildFleetState(const FleetSnapshot &snapshot,
                           const Catalogue::Catalogue &catalogue,
                           qint64 nowMs,
                           JobOrder order)
{
    FleetState out;
    out.snapshot = snapshot;
    out.state = Sched::ClusterState(catalogue);
    Builder b(catalogue, out);
    b.indexNodes();
    for (const FleetNode &n : snapshot.nodes)
        b.addNode(n);
    if (order == JobOrder::EveryJobInListOrder) {
        for (const FleetJob &j : snapshot.jobs)
            b.addJob(j, nowMs, true);
        return out;
    }
    // Jobs that hold resources first, so that pending ones never take their units.
    for (const FleetJob &j : snapshot.jobs) {
        if (j.holdsResources())
            b.addJob(j, nowMs);
    }
    for (const FleetJob &j : snapshot.jobs) {
        if (!j.holdsResources())
            b.addJob(j, nowMs);
    }
    return out;
}

} // namespace Zhaoxi::Fleet
