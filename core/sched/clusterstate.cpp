// SPDX-License-Identifier: GPL-3.0-or-later
#include "clusterstate.h"

#include "migfit.h"

#include "core/catalogue/layoutrules.h"

#include <QStringBuilder>

#include <atomic>

namespace Zhaoxi::Sched {

using Domain::WorkloadKind;

const char *toString(CardHealth health)
{
    switch (health) {
    case CardHealth::Healthy:
        return "healthy";
    case CardHealth::Throttled:
        return "throttled";
    case CardHealth::Failed:
        return "failed";
    }
    return "?";
}

const char *toString(JobState state)
{
    switch (state) {
    case JobState::Pending:
        return "pending";
    case JobState::Running:
        return "running";
    case JobState::Preempting:
        return "preempting";
    case JobState::Finished:
        return "finished";
    case JobState::Cancelled:
        return "cancelled";
    case JobState::Failed:
        return "failed";
    }
    return "?";
}

bool operator==(const HostState &a, const HostState &b)
{
    return a.id == b.id && a.name == b.name && a.cpuMilli == b.cpuMilli
           && a.memoryMiB == b.memoryMiB && a.usedCpuMilli == b.usedCpuMilli
           && a.usedMemoryMiB == b.usedMemoryMiB && a.firstCard == b.firstCard
           && a.cardCount == b.cardCount && a.up == b.up && a.failedCards == b.failedCards
           && a.cordonedCards == b.cordonedCards && a.models == b.models
           && a.usedCardMilli == b.usedCardMilli && a.busyDomainCards == b.busyDomainCards;
}

namespace {

quint64 busyDomainCardsOf(const HostState &h, const QList<CardState> &cards)
{
    quint64 busy = 0;
    for (int i = 0; i < h.cardCount; ++i) {
        const CardState &c = cards[h.firstCard + i];
        if (c.clients == 0)
            continue;
        for (int k = 0; k < h.cardCount; ++k)
            busy |= quint64(cards[h.firstCard + k].linkDomain == c.linkDomain) << k;
    }
    return busy;
}

} // namespace

void ClusterState::touch(HostId host)
{
    HostState &h = m_hosts[host.value()];
    h.version = nextVersion();
    m_hostVersions[size_t(host.value())] = h.version;
    h.busyDomainCards = busyDomainCardsOf(h, m_cards);
    h.modes = 0;
    h.wholeFreeCards = 0;
    for (int i = 0; i < h.cardCount; ++i) {
        const CardState &c = m_cards[h.firstCard + i];
        h.modes |= quint8(1u << int(c.mode));
        h.wholeFreeCards |= quint64(c.mode == PartitionMode::Whole && c.wholeFree) << i;
    }
}

bool operator==(const Job &a, const Job &b)
{
    return a.id == b.id && a.spec == b.spec && a.state == b.state && a.submittedMs == b.submittedMs
           && a.startedMs == b.startedMs && a.endedMs == b.endedMs && a.workDoneMs == b.workDoneMs
           && a.checkpointMs == b.checkpointMs && a.lostWorkMs == b.lostWorkMs
           && a.accountedAtMs == b.accountedAtMs && a.preemptions == b.preemptions
           && a.evictAtMs == b.evictAtMs && a.preemptedBy == b.preemptedBy
           && a.overBudget == b.overBudget && a.shape == b.shape && a.host == b.host
           && a.assignments == b.assignments;
}

const Unit *CardState::unit(int uid) const
{
    for (const Unit &u : units) {
        if (u.uid == uid)
            return &u;
    }
    return nullptr;
}

Unit *CardState::unit(int uid)
{
    for (Unit &u : units) {
        if (u.uid == uid)
            return &u;
    }
    return nullptr;
}

QList<Domain::MigPlacement> CardState::migLayout() const
{
    QList<Domain::MigPlacement> r;
    if (mode != PartitionMode::Mig)
        return r;
    r.reserve(units.size());
    for (const Unit &u : units)
        r.append({u.profile, u.start});
    return r;
}

qint64 &ClassUsage::operator[](WorkloadKind k)
{
    switch (k) {
    case WorkloadKind::Training:
        return training;
    case WorkloadKind::Inference:
        return inference;
    case WorkloadKind::Batch:
        break;
    }
    return batch;
}

qint64 ClassUsage::operator[](WorkloadKind k) const
{
    return const_cast<ClassUsage &>(*this)[k];
}

quint64 ClusterState::nextVersion()
{
    static std::atomic<quint64> counter{0};
    return ++counter;
}

ClusterState::ClusterState(Catalogue::Catalogue catalogue)
    : m_catalogue(std::move(catalogue))
{
    auto tables = std::make_shared<std::vector<std::vector<quint8>>>();
    for (const CardModel &m : m_catalogue.models()) {
        std::vector<quint8> t;
        if (m.supportsMig() && m.migMemorySlices > 0 && m.migMemorySlices <= 12) {
            t.resize(size_t(1) << m.migMemorySlices);
            for (quint32 occ = 0; occ < t.size(); ++occ)
                t[occ] = quint8(std::min(255, MigFit::placeableCompute(m, occ)));
        }
        tables->push_back(std::move(t));
    }
    m_placeable = std::move(tables);
}

ClusterState ClusterState::emptyLike(const ClusterState &other)
{
    ClusterState s;
    s.m_catalogue = other.m_catalogue;
    s.m_placeable = other.m_placeable;
    return s;
}

const quint8 *ClusterState::placeableTable(int model) const
{
    if (!m_placeable || model < 0 || size_t(model) >= m_placeable->size())
        return nullptr;
    const std::vector<quint8> &t = (*m_placeable)[size_t(model)];
    return t.empty() ? nullptr : t.data();
}

HostId ClusterState::addHost(const QString &name, qint64 cpuMilli, qint64 memoryMiB)
{
    HostState h;
    h.id = HostId(int(m_hosts.size()));
    h.name = name;
    h.cpuMilli = cpuMilli;
    h.memoryMiB = memoryMiB;
    h.firstCard = int(m_cards.size());
    h.version = nextVersion();
    m_hosts.append(h);
    m_hostVersions.push_back(h.version);
    return h.id;
}

CardId ClusterState::addCard(HostId host, int modelIndex, PartitionMode mode, int linkDomain)
{
    Q_ASSERT(host.value() == m_hosts.size() - 1); // cards follow their host
    HostState &h = m_hosts[host.value()];
    CardState c;
    c.id = CardId(int(m_cards.size()));
    c.host = host;
    c.model = modelIndex;
    c.indexOnHost = h.cardCount;
    c.linkDomain = linkDomain;
    c.mode = mode;
    if (mode == PartitionMode::Whole) {
        Unit u;
        u.uid = c.nextUid++;
        u.milli = 1000;
        u.memoryMiB = m_catalogue.models()[modelIndex].memoryMiB;
        c.units.append(u);
    }
    refreshMig(c);
    ++h.cardCount;
    if (modelIndex < 32)
        h.models |= 1u << modelIndex;
    h.soleModel = h.cardCount == 1 || h.soleModel == modelIndex ? modelIndex : -1;
    m_cards.append(c);
    touch(host);
    return c.id;
}

int ClusterState::hostIndexByName(const QString &name) const
{
    for (const HostState &h : m_hosts) {
        if (h.name == name)
            return h.id.value();
    }
    return -1;
}

qint64 ClusterState::totalMilli() const
{
    qint64 t = 0;
    for (const CardState &c : m_cards) {
        if (c.health != CardHealth::Failed && m_hosts[c.host.value()].up)
            t += 1000;
    }
    return t;
}

JobId ClusterState::addJob(const WorkloadSpec &spec, qint64 nowMs)
{
    Job j;
    j.id = JobId(int(m_jobs.size()));
    j.spec = spec;
    j.submittedMs = nowMs;
    j.accountedAtMs = nowMs;
    m_jobs.append(j);
    return j.id;
}

void ClusterState::removeLastJob()
{
    Q_ASSERT(!m_jobs.isEmpty() && m_jobs.last().assignments.isEmpty());
    m_jobs.removeLast();
}

int ClusterState::unitMilli(const CardState &card, const Unit &unit) const
{
    if (unit.profile >= 0) {
        const CardModel &m = model(card);
        return m.migProfiles[unit.profile].computeSlices * 1000 / m.migComputeSlices;
    }
    return unit.milli;
}

int ClusterState::bind(JobId jobId, const UnitChoice &choice, int shareUid)
{
    CardState &c = m_cards[choice.card.value()];
    Job &j = m_jobs[jobId.value()];
    int uid = choice.uid;
    switch (choice.kind) {
    case UnitChoice::Kind::Existing:
        break;
    case UnitChoice::Kind::NewShare: {
        Unit u;
        Q_ASSERT(shareUid < 0 || !c.unit(shareUid));
        u.uid = shareUid >= 0 ? shareUid : c.nextUid++;
        c.nextUid = std::max(c.nextUid, u.uid + 1);
        u.milli = choice.milli;
        u.memoryMiB = choice.memoryMiB;
        c.units.append(u);
        uid = u.uid;
        break;
    }
    case UnitChoice::Kind::NewPartition:
        uid = createPartition(choice.card, choice.profile, choice.start);
        break;
    }
    Unit *u = c.unit(uid);
    Q_ASSERT(u && !u->job.isValid());
    u->job = jobId;
    c.usedMilli += unitMilli(c, *u);
    c.usedMemoryMiB += u->memoryMiB;
    ++c.clients;
    Q_ASSERT(j.host == c.host);
    m_usage[j.spec.kind] += unitMilli(c, *u);
    m_hosts[c.host.value()].usedCardMilli += unitMilli(c, *u);
    j.assignments.append({choice.card, uid});
    refreshMig(c);
    touch(c.host);
    return uid;
}

void ClusterState::unbind(JobId jobId, CardId cardId, int uid)
{
    CardState &c = m_cards[cardId.value()];
    Job &j = m_jobs[jobId.value()];
    Unit *u = c.unit(uid);
    Q_ASSERT(u && u->job == jobId);
    const int milli = unitMilli(c, *u);
    c.usedMilli -= milli;
    c.usedMemoryMiB -= u->memoryMiB;
    --c.clients;
    m_usage[j.spec.kind] -= milli;
    m_hosts[c.host.value()].usedCardMilli -= milli;
    u->job = JobId();
    if (c.mode == PartitionMode::TimeSlicing || c.mode == PartitionMode::Mps) {
        for (qsizetype i = 0; i < c.units.size(); ++i) {
            if (c.units[i].uid == uid) {
                c.units.removeAt(i);
                break;
            }
        }
    }
    j.assignments.removeOne(Assignment{cardId, uid});
    refreshMig(c);
    touch(c.host);
}

void ClusterState::attachHost(JobId jobId, HostId hostId)
{
    Job &j = m_jobs[jobId.value()];
    Q_ASSERT(!j.host.isValid());
    HostState &h = m_hosts[hostId.value()];
    h.usedCpuMilli += j.spec.demand.hostCpuMilli;
    h.usedMemoryMiB += j.spec.demand.hostMemoryMiB;
    j.host = hostId;
    touch(hostId);
}

void ClusterState::detachHost(JobId jobId)
{
    Job &j = m_jobs[jobId.value()];
    Q_ASSERT(j.host.isValid() && j.assignments.isEmpty());
    HostState &h = m_hosts[j.host.value()];
    h.usedCpuMilli -= j.spec.demand.hostCpuMilli;
    h.usedMemoryMiB -= j.spec.demand.hostMemoryMiB;
    touch(j.host);
    j.host = HostId();
}

int ClusterState::createPartition(
        CardId cardId, int profile, int start, UnitState state, int forcedUid)
{
    CardState &c = m_cards[cardId.value()];
    Q_ASSERT(c.mode == PartitionMode::Mig);
    const CardModel &m = model(c);
    const Domain::MigProfile &p = m.migProfiles[profile];
    Unit u;
    u.uid = forcedUid >= 0 ? forcedUid : c.nextUid++;
    c.nextUid = std::max(c.nextUid, u.uid + 1); // a forced uid is never handed out again
    u.profile = profile;
    u.start = start;
    u.milli = p.computeSlices * 1000 / m.migComputeSlices;
    u.memoryMiB = p.memoryMiB;
    u.state = state;
    // Keep instances sorted by start so layouts compare equal after undo/redo.
    qsizetype at = 0;
    while (at < c.units.size() && c.units[at].start < start)
        ++at;
    c.units.insert(at, u);
    c.occupancy |= ((1u << p.span) - 1u) << start;
    refreshMig(c);
    touch(c.host);
    return u.uid;
}

void ClusterState::destroyPartition(CardId cardId, int uid)
{
    CardState &c = m_cards[cardId.value()];
    for (qsizetype i = 0; i < c.units.size(); ++i) {
        if (c.units[i].uid == uid) {
            Q_ASSERT(!c.units[i].job.isValid());
            c.units.removeAt(i);
            break;
        }
    }
    recount(c);
    touch(c.host);
}

void ClusterState::setUnitState(CardId cardId, int uid, UnitState state)
{
    CardState &c = m_cards[cardId.value()];
    if (Unit *u = c.unit(uid))
        u->state = state;
    refreshMig(c);
    touch(c.host);
}

void ClusterState::setNextUid(CardId cardId, int nextUid)
{
    CardState &c = m_cards[cardId.value()];
    int least = 0;
    for (const Unit &u : std::as_const(c.units))
        least = std::max(least, u.uid + 1);
    c.nextUid = std::max(nextUid, least);
}

void ClusterState::setMode(CardId cardId, PartitionMode mode)
{
    CardState &c = m_cards[cardId.value()];
    Q_ASSERT(c.clients == 0);
    c.units.clear();
    c.mode = mode;
    if (mode == PartitionMode::Whole) {
        Unit u;
        u.uid = c.nextUid++;
        u.memoryMiB = model(c).memoryMiB;
        c.units.append(u);
    }
    recount(c);
    touch(c.host);
}

void ClusterState::setCardHealth(CardId cardId, CardHealth health)
{
    CardState &c = m_cards[cardId.value()];
    c.health = health;
    HostState &h = m_hosts[c.host.value()];
    const quint64 bit = quint64(1) << c.indexOnHost;
    h.failedCards = health == CardHealth::Failed ? (h.failedCards | bit) : (h.failedCards & ~bit);
    touch(c.host);
}

QList<JobId> ClusterState::jobsOn(CardId cardId) const
{
    QList<JobId> jobs;
    for (const Unit &u : m_cards[cardId.value()].units) {
        if (u.job.isValid() && !jobs.contains(u.job))
            jobs.append(u.job);
    }
    return jobs;
}

void ClusterState::setCardCordoned(CardId cardId, bool cordoned)
{
    m_cards[cardId.value()].heldForRepartition = cordoned;
    applyCordon(cardId);
}

void ClusterState::setOperatorCordoned(CardId cardId, bool cordoned)
{
    m_cards[cardId.value()].operatorCordoned = cordoned;
    applyCordon(cardId);
}

void ClusterState::applyCordon(CardId cardId)
{
    CardState &c = m_cards[cardId.value()];
    const bool cordoned = c.heldForRepartition || c.operatorCordoned;
    c.cordoned = cordoned;
    HostState &h = m_hosts[c.host.value()];
    const quint64 bit = quint64(1) << c.indexOnHost;
    h.cordonedCards = cordoned ? (h.cordonedCards | bit) : (h.cordonedCards & ~bit);
    touch(c.host);
}

void ClusterState::setLayoutPinned(CardId cardId, qint64 untilMs)
{
    CardState &c = m_cards[cardId.value()];
    c.layoutPinnedUntilMs = untilMs;
    refreshMig(c);
    touch(c.host);
}

void ClusterState::setHostUp(HostId host, bool up)
{
    m_hosts[host.value()].up = up;
    touch(host);
}

void ClusterState::setJobState(JobId job, JobState state)
{
    m_jobs[job.value()].state = state;
}

void ClusterState::setHostCapacity(HostId host, qint64 cpuMilli, qint64 memoryMiB)
{
    m_hosts[host.value()].cpuMilli = cpuMilli;
    m_hosts[host.value()].memoryMiB = memoryMiB;
    touch(host);
}

void ClusterState::accountProgress(JobId jobId, qint64 nowMs)
{
    Job &j = m_jobs[jobId.value()];
    if (j.isActive() && nowMs > j.accountedAtMs)
        j.workDoneMs += nowMs - j.accountedAtMs;
    j.accountedAtMs = std::max(j.accountedAtMs, nowMs);
    const qint64 interval = j.spec.checkpointIntervalMs;
    if (interval > 0)
        j.checkpointMs = std::max(j.checkpointMs, j.workDoneMs - j.workDoneMs % interval);
}

void ClusterState::recount(CardState &c)
{
    c.usedMilli = 0;
    c.usedMemoryMiB = 0;
    c.clients = 0;
    c.occupancy = 0;
    const CardModel &m = model(c);
    for (const Unit &u : c.units) {
        if (u.profile >= 0)
            c.occupancy |= ((1u << m.migProfiles[u.profile].span) - 1u) << u.start;
        if (u.job.isValid()) {
            c.usedMilli += unitMilli(c, u);
            c.usedMemoryMiB += u.memoryMiB;
            ++c.clients;
        }
    }
    refreshMig(c);
}

void ClusterState::refreshMig(CardState &c) const
{
    c.freeProfiles = 0;
    c.profilesPresent = 0;
    c.creatable = 0;
    c.createStart = CardState::emptyStarts();
    c.wholeFree = c.mode == PartitionMode::Whole && c.units.size() == 1
                  && !c.units.first().job.isValid() && c.units.first().state == UnitState::Ready;
    if (c.mode != PartitionMode::Mig)
        return;
    const CardModel &m = model(c);
    int slices = 0;
    bool media = false;
    int count[32] = {};
    for (const Unit &u : c.units) {
        const Domain::MigProfile &p = m.migProfiles[u.profile];
        slices += p.computeSlices;
        media |= p.mediaExtensions;
        if (u.profile < 32) {
            ++count[u.profile];
            c.profilesPresent |= 1u << u.profile;
        }
        if (!u.job.isValid() && u.state == UnitState::Ready && u.profile < 32)
            c.freeProfiles |= 1u << u.profile;
    }
    for (int i = 0; !c.layoutPinned() && i < m.migProfiles.size() && i < 32; ++i) {
        const Domain::MigProfile &p = m.migProfiles[i];
        if (count[i] >= p.maxInstances || slices + p.computeSlices > m.migComputeSlices
            || (p.mediaExtensions && media))
            continue;
        const quint32 span = (1u << p.span) - 1u;
        for (int start : p.starts) {
            if (!(c.occupancy & (span << start))) {
                c.creatable |= 1u << i;
                break;
            }
        }
        if (c.creatable >> i & 1)
            c.createStart[size_t(i)]
                    = qint8(MigFit::bestStart(m, c.occupancy, slices, i, placeableTable(c.model)));
    }
}

QString ClusterState::checkInvariants() const
{
    ClassUsage usage;
    QList<qint64> hostCpu(m_hosts.size(), 0), hostMem(m_hosts.size(), 0);
    for (const CardState &c : m_cards) {
        const CardModel &m = model(c);
        const QString where = QStringLiteral("card ") + QString::number(c.id.value());
        int milli = 0, clients = 0;
        qint64 mem = 0;
        quint32 occ = 0;
        for (const Unit &u : c.units) {
            if (u.profile >= 0)
                occ |= ((1u << m.migProfiles[u.profile].span) - 1u) << u.start;
            if (u.job.isValid()) {
                if (u.job.value() >= m_jobs.size())
                    return where % QStringLiteral(": unit bound to unknown job");
                const Job &j = m_jobs[u.job.value()];
                if (!j.isActive())
                    return where % QStringLiteral(": unit bound to job ")
                           % QString::number(j.id.value()) % QStringLiteral(" which is ")
                           % QLatin1String(toString(j.state));
                if (!j.assignments.contains(Assignment{c.id, u.uid}))
                    return where % QStringLiteral(": unit not in its job's assignments");
                milli += unitMilli(c, u);
                mem += u.memoryMiB;
                ++clients;
                usage[j.spec.kind] += unitMilli(c, u);
            } else if (c.mode == PartitionMode::TimeSlicing || c.mode == PartitionMode::Mps) {
                return where % QStringLiteral(": unbound soft share");
            }
        }
        if (milli != c.usedMilli || mem != c.usedMemoryMiB || clients != c.clients
            || occ != c.occupancy)
            return where % QStringLiteral(": derived counters differ from its units");
        CardState fresh = c;
        refreshMig(fresh);
        if (fresh.freeProfiles != c.freeProfiles || fresh.creatable != c.creatable
            || fresh.createStart != c.createStart || fresh.profilesPresent != c.profilesPresent
            || fresh.wholeFree != c.wholeFree)
            return where % QStringLiteral(": MIG summaries differ from its instances");
        switch (c.mode) {
        case PartitionMode::Whole:
            if (c.units.size() != 1)
                return where % QStringLiteral(": whole card must have exactly one unit");
            break;
        case PartitionMode::Mig: {
            if (!m.supportsMig())
                return where % QStringLiteral(": MIG mode on a model without MIG");
            const QList<Domain::MigPlacement> layout = c.migLayout();
            const Catalogue::LayoutVerdict v = Catalogue::validateLayout(m, layout);
            if (!v.isValid())
                return where % QStringLiteral(": illegal layout: ") % v.describe(m, layout);
            break;
        }
        case PartitionMode::TimeSlicing:
        case PartitionMode::Mps: {
            const Domain::SoftSlicing *s = m.softMode(c.mode);
            if (!s)
                return where % QStringLiteral(": soft mode the model lacks");
            if (c.usedMilli > 1000)
                return where % QStringLiteral(": compute over-allocated");
            if (s->maxClients > 0 && c.clients > s->maxClients)
                return where % QStringLiteral(": more clients than the mode allows");
            break;
        }
        }
        if (c.usedMemoryMiB > m.memoryMiB)
            return where % QStringLiteral(": memory over-allocated");
    }
    for (const Job &j : m_jobs) {
        const QString where = QStringLiteral("job ") + QString::number(j.id.value());
        if (j.isActive()) {
            if (j.assignments.size() != j.demand().cards)
                return where % QStringLiteral(": active with ")
                       % QString::number(j.assignments.size()) % QStringLiteral(" units, needs ")
                       % QString::number(j.demand().cards);
            for (const Assignment &a : j.assignments) {
                const CardState &c = m_cards[a.card.value()];
                const Unit *u = c.unit(a.unitUid);
                if (!u || u->job != j.id)
                    return where % QStringLiteral(": assignment points at a unit it does not hold");
                if (c.host != j.host)
                    return where % QStringLiteral(": units on more than one host");
            }
            if (!j.host.isValid())
                return where % QStringLiteral(": active without a host");
            hostCpu[j.host.value()] += j.spec.demand.hostCpuMilli;
            hostMem[j.host.value()] += j.spec.demand.hostMemoryMiB;
        } else if (!j.assignments.isEmpty() || j.host.isValid()) {
            return where % QStringLiteral(": holds units while ")
                   % QLatin1String(toString(j.state));
        }
    }
    for (const HostState &h : m_hosts) {
        const QString where = QStringLiteral("host ") + h.name;
        quint64 failed = 0, cordoned = 0, wholeFree = 0;
        quint32 models = 0;
        quint8 modes = 0;
        int sole = h.cardCount > 0 ? m_cards[h.firstCard].model : -1;
        qint64 cardMilli = 0;
        for (int i = 0; i < h.cardCount; ++i) {
            const CardState &c = m_cards[h.firstCard + i];
            failed |= quint64(c.health == CardHealth::Failed) << i;
            cordoned |= quint64(c.cordoned) << i;
            models |= c.model < 32 ? 1u << c.model : 0u;
            modes |= quint8(1u << int(c.mode));
            wholeFree |= quint64(c.mode == PartitionMode::Whole && c.wholeFree) << i;
            sole = c.model == sole ? sole : -1;
            cardMilli += c.usedMilli;
        }
        if (failed != h.failedCards || cordoned != h.cordonedCards || models != h.models
            || modes != h.modes || wholeFree != h.wholeFreeCards || sole != h.soleModel
            || cardMilli != h.usedCardMilli || busyDomainCardsOf(h, m_cards) != h.busyDomainCards)
            return where % QStringLiteral(": derived card summaries differ from its cards");
        if (hostCpu[h.id.value()] != h.usedCpuMilli || hostMem[h.id.value()] != h.usedMemoryMiB)
            return where % QStringLiteral(": used CPU/memory differ from its jobs");
        if (h.usedCpuMilli > h.cpuMilli || h.usedMemoryMiB > h.memoryMiB)
            return where % QStringLiteral(": CPU or memory over-allocated");
        if (size_t(h.id.value()) >= m_hostVersions.size()
            || m_hostVersions[size_t(h.id.value())] != h.version)
            return where % QStringLiteral(": version differs from the versions array");
    }
    if (usage != m_usage)
        return QStringLiteral("class usage differs from the bound units");
    return {};
}

} // namespace Zhaoxi::Sched
