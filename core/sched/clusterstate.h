// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/catalogue/catalogue.h"
#include "core/domain/ids.h"
#include "core/domain/workloadspec.h"

#include <QList>
#include <QString>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace Zhaoxi::Sched {

using Domain::CardId;
using Domain::CardModel;
using Domain::HostId;
using Domain::JobId;
using Domain::PartitionMode;
using Domain::WorkloadSpec;

enum class CardHealth : std::uint8_t { Healthy, Throttled, Failed };
enum class UnitState : std::uint8_t { Ready, Creating, Destroying };
enum class JobState : std::uint8_t {
    Pending,    // in the queue
    Running,    // bound to units
    Preempting, // chosen as a victim, still running until its eviction time
    Finished,
    Cancelled,
    Failed,
};

const char *toString(CardHealth health);
const char *toString(JobState state);

// One logical unit of a card: the whole card, a MIG instance or a soft share. It serves one job.
struct Unit
{
    int uid = -1;         // stable within its card
    int profile = -1;     // MIG profile index into the model; -1 for whole cards and soft shares
    int start = -1;       // MIG start slot
    int milli = 1000;     // compute share of the card, in 1/1000
    qint64 memoryMiB = 0; // memory the unit owns (MIG instance size, MPS quota, whole card)
    JobId job;            // the job it serves; invalid = free (soft shares exist only while bound)
    UnitState state = UnitState::Ready;
    friend bool operator==(const Unit &, const Unit &) = default;
};

struct CardState
{
    CardId id;
    HostId host;
    int model = -1; // index into the catalogue's models
    int indexOnHost = 0;
    int linkDomain = 0; // cards of a host with the same value share a fast link (NVLink)
    CardHealth health = CardHealth::Healthy;
    // Takes no new work (its jobs keep running): held for a repartition the operator ordered,
    // or cordoned by an operator, or both.
    bool cordoned = false;
    bool heldForRepartition = false;
    // An operator's cordon (or drain): until uncordoned; outlives a restart (the layouts
    // document keeps it).
    bool operatorCordoned = false;
    // An operator's layout pinned: the scheduler neither creates nor destroys instances on it nor
    // switches its mode (its instances still take work). Until this appliance time; -1: until
    // unpinned; 0: not pinned.
    qint64 layoutPinnedUntilMs = 0;
    bool layoutPinned() const { return layoutPinnedUntilMs != 0; }
    PartitionMode mode = PartitionMode::Whole;
    QList<Unit> units; // Whole: exactly one; Mig: its instances; soft: one per bound share
    // Kept by ClusterState; derivable from `units`.
    int usedMilli = 0;           // compute bound to jobs
    qint64 usedMemoryMiB = 0;    // memory bound to jobs
    int clients = 0;             // bound units
    quint32 occupancy = 0;       // MIG slots taken by instances (free or busy)
    quint32 freeProfiles = 0;    // MIG: bit p = an idle, ready instance of profile p exists
    quint32 profilesPresent = 0; // MIG: bit p = an instance of profile p exists (idle or busy)
    bool wholeFree = false;      // Whole: its one unit is idle and ready
    quint32 creatable = 0;       // MIG: bit p = an instance of profile p can be added as laid out
    // MIG: for each creatable profile p (< 32), the start a new instance takes (MigFit::bestStart
    // on this layout); -1 for the others. Worked out when the layout changes, not per decision.
    std::array<qint8, 32> createStart = emptyStarts();
    int nextUid = 0;
    friend bool operator==(const CardState &, const CardState &) = default;

    const Unit *unit(int uid) const;
    Unit *unit(int uid);
    QList<Domain::MigPlacement> migLayout() const;

    static constexpr std::array<qint8, 32> emptyStarts()
    {
        std::array<qint8, 32> a{};
        a.fill(-1);
        return a;
    }
};

struct HostState
{
    HostId id;
    QString name;
    qint64 cpuMilli = 0;
    qint64 memoryMiB = 0;
    qint64 usedCpuMilli = 0;
    qint64 usedMemoryMiB = 0;
    int firstCard = 0; // cards of a host are contiguous: [firstCard, firstCard + cardCount)
    int cardCount = 0;
    bool up = true;
    // Kept by ClusterState; derivable from the cards (filters read them instead of looping).
    quint64 failedCards = 0;    // bit i: card firstCard + i has failed
    quint64 cordonedCards = 0;  // bit i: card firstCard + i is cordoned
    quint32 models = 0;         // bit m: the host has a card of catalogue model m (m < 32)
    int soleModel = -1;         // the model of every card, when they share one; else -1
    quint8 modes = 0;           // bit m: some card is in PartitionMode m
    quint64 wholeFreeCards = 0; // bit i: card firstCard + i is in Whole mode and unbound
    qint64 usedCardMilli = 0;   // compute bound to jobs over all its cards
    // Bit i: card firstCard + i shares a link domain with a card that has work bound to it.
    quint64 busyDomainCards = 0;
    // A new value on every change to the host or its cards, unique across every ClusterState of
    // the process (copies share it only while they are equal): plugins key caches on it.
    quint64 version = 0;
    // Equality ignores `version`: a discarded Statement restores the state, not the counter.
    friend bool operator==(const HostState &a, const HostState &b);
};

struct Assignment
{
    CardId card;
    int unitUid = -1;
    friend bool operator==(const Assignment &, const Assignment &) = default;
};

struct Job
{
    JobId id;
    WorkloadSpec spec;
    JobState state = JobState::Pending;
    qint64 submittedMs = 0;
    qint64 startedMs = -1; // last start
    qint64 endedMs = -1;
    qint64 workDoneMs = 0;    // progress, in ms of running time
    qint64 checkpointMs = 0;  // progress saved at the last checkpoint
    qint64 lostWorkMs = 0;    // total work lost to preemption and failures
    qint64 accountedAtMs = 0; // progress counted up to this time while running
    int preemptions = 0;
    qint64 evictAtMs = -1; // Preempting: when it will be evicted
    JobId preemptedBy;
    // Placed by an operator over its class's budget ("place anyway"): the colocation policies do
    // not evict it to bring the class back within the budget. Cleared when it leaves its units.
    bool overBudget = false;
    // The shape it holds its units in while active (issue 18): -1 the spec's primary demand,
    // else an index into spec.shapes (Domain::WorkloadShape). Set when it is placed, back to -1
    // when it leaves its units.
    int shape = -1;
    HostId host;
    QList<Assignment> assignments;
    friend bool operator==(const Job &a, const Job &b);

    // The demand of the shape it holds (or, pending, the primary's).
    const Domain::Demand &demand() const { return Domain::shapeDemand(spec, shape); }

    bool isActive() const { return state == JobState::Running || state == JobState::Preempting; }
    bool isTerminal() const
    {
        return state == JobState::Finished || state == JobState::Cancelled
               || state == JobState::Failed;
    }
};

// What a placement takes on one card.
struct UnitChoice
{
    enum class Kind : std::uint8_t {
        Existing,     // a free existing unit (whole card or MIG instance)
        NewShare,     // a new soft share of `milli` and `memoryMiB`
        NewPartition, // create MIG instance (profile, start), then bind it
    };
    CardId card;
    Kind kind = Kind::Existing;
    int uid = -1;
    int profile = -1;
    int start = -1;
    int milli = 0;
    qint64 memoryMiB = 0;
    friend bool operator==(const UnitChoice &, const UnitChoice &) = default;
};

// Usage per workload class, in milli-cards (1000 = one whole card's compute).
struct ClassUsage
{
    qint64 training = 0;
    qint64 inference = 0;
    qint64 batch = 0;
    qint64 &operator[](Domain::WorkloadKind k);
    qint64 operator[](Domain::WorkloadKind k) const;
    friend bool operator==(const ClassUsage &, const ClassUsage &) = default;
};

// The appliance as the scheduler sees it: hosts, cards with their layouts, and every job.
// A plain value: copyable, comparable. Mutations keep the derived fields of cards and hosts and
// the class usage consistent; checkInvariants() verifies all of it. Not thread-safe: one owner.
class ClusterState
{
public:
    ClusterState() = default;
    explicit ClusterState(Catalogue::Catalogue catalogue);
    // An empty state over the catalogue of `other`, sharing what was worked out from it
    // (placeableTable): for the copies a query builds, without redoing that per query.
    static ClusterState emptyLike(const ClusterState &other);

    const Catalogue::Catalogue &catalogue() const { return m_catalogue; }
    const CardModel &model(const CardState &card) const { return m_catalogue.models()[card.model]; }
    // For MIG model `model`: the compute slices still placeable for each occupancy of its memory
    // slots (MigFit::placeableCompute, indexed by the occupancy mask), worked out once when the
    // state is built; null for models without MIG or with more than 12 memory slots.
    const quint8 *placeableTable(int model) const;

    // Topology. Cards of a host must be added right after the host, before the next host.
    HostId addHost(const QString &name, qint64 cpuMilli, qint64 memoryMiB);
    CardId addCard(HostId host, int modelIndex, PartitionMode mode, int linkDomain = 0);

    const QList<HostState> &hosts() const { return m_hosts; }
    // HostState::version of every host, contiguous: a decision checks a thousand hosts in one pass.
    const std::vector<quint64> &hostVersions() const { return m_hostVersions; }
    const QList<CardState> &cards() const { return m_cards; }
    const QList<Job> &jobs() const { return m_jobs; }
    const HostState &host(HostId id) const { return m_hosts[id.value()]; }
    const CardState &card(CardId id) const { return m_cards[id.value()]; }
    const Job &job(JobId id) const { return m_jobs[id.value()]; }
    Job &jobRef(JobId id) { return m_jobs[id.value()]; }
    int hostIndexByName(const QString &name) const;
    const ClassUsage &classUsage() const { return m_usage; }
    // Compute capacity of all healthy cards, milli-cards.
    qint64 totalMilli() const;

    JobId addJob(const WorkloadSpec &spec, qint64 nowMs);
    void removeLastJob(); // undo of addJob

    // --- Low-level mutations (the Statement records their inverses) -------------------------
    // Charges the job's host CPU and memory to `host` (the whole job's, once); a job's units all
    // live on that host. CPU-only jobs (demand.cards == 0) hold just this.
    void attachHost(JobId job, HostId host);
    void detachHost(JobId job); // the job must hold no unit
    // Binds `job` to a unit per the choice; returns the unit's uid. The choice must be valid and
    // on the job's attached host. A new soft share takes `shareUid` when given (>= 0, free on
    // the card: a state rebuilt from its description keeps its uids), else the card's next uid.
    int bind(JobId job, const UnitChoice &choice, int shareUid = -1);
    // Frees one unit of a job (soft shares disappear; whole cards and MIG instances stay).
    void unbind(JobId job, CardId card, int uid);
    int createPartition(CardId card,
                        int profile,
                        int start,
                        UnitState state = UnitState::Ready,
                        int forcedUid = -1);
    void destroyPartition(CardId card, int uid);
    void setUnitState(CardId card, int uid, UnitState state);
    void setMode(CardId card, PartitionMode mode); // only on a card with no bound units
    // The uid the card's next new unit takes (a rebuilt state continues where its original
    // was); never below one past the uids in use.
    void setNextUid(CardId card, int nextUid);
    void setCardHealth(CardId card, CardHealth health);
    // Holds the card for a repartition, or releases it (an operator's cordon stays).
    void setCardCordoned(CardId card, bool cordoned);
    // An operator's cordon on or off (a repartition's hold stays).
    void setOperatorCordoned(CardId card, bool cordoned);
    // Pins the card's layout until `untilMs` (-1: until unpinned); 0 unpins it.
    void setLayoutPinned(CardId card, qint64 untilMs);
    void setHostUp(HostId host, bool up);
    void setJobState(JobId job, JobState state);
    void setHostCapacity(HostId host, qint64 cpuMilli, qint64 memoryMiB);

    // The jobs with a unit on the card, each once, in the order of its units.
    QList<JobId> jobsOn(CardId card) const;

    // Compute equivalent of a unit in milli-cards.
    int unitMilli(const CardState &card, const Unit &unit) const;

    // Every invariant: no card or host over-allocated, every MIG layout legal, derived fields
    // equal to their recomputation, job <-> unit links symmetric, every job in exactly one state.
    // Returns an empty string when all hold, else the first violation in English.
    QString checkInvariants() const;

    friend bool operator==(const ClusterState &a, const ClusterState &b)
    {
        return a.m_hosts == b.m_hosts && a.m_cards == b.m_cards && a.m_jobs == b.m_jobs
               && a.m_usage == b.m_usage;
    }

    // Counts a running job's progress up to `nowMs` and its checkpoints (every
    // checkpointIntervalMs of progress, when the spec sets one).
    void accountProgress(JobId job, qint64 nowMs);

private:
    friend class Statement;
    // After any change to a host or its cards: a new version, and the host's card summaries.
    void touch(HostId host);
    static quint64 nextVersion();
    void recount(CardState &card);
    void refreshMig(CardState &card) const;
    // cordoned = heldForRepartition || operatorCordoned, and the host's bit with it.
    void applyCordon(CardId card); // the summaries of its units: free*, creatable, ...

    Catalogue::Catalogue m_catalogue;
    // Per model (placeableTable); shared by copies of the state: it depends on the catalogue only.
    std::shared_ptr<const std::vector<std::vector<quint8>>> m_placeable;
    QList<HostState> m_hosts;
    std::vector<quint64> m_hostVersions; // m_hosts[i].version, kept by addHost and touch
    QList<CardState> m_cards;
    QList<Job> m_jobs;
    ClassUsage m_usage;
};

} // namespace Zhaoxi::Sched
