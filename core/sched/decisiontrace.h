// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plugin.h"
#include "status.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <array>

namespace Zhaoxi::Sched {

// One host as a decision saw it: the filter that rejected it (and why), or its scores.
struct CandidateTrace
{
    HostId host;
    Status verdict;       // success = feasible
    QString filter;       // the rejecting filter's name; empty when feasible
    QList<double> scores; // per score plugin (DecisionTrace::scorePlugins order), weighted
    double total = 0;
    int rank = 0; // tie-break rank of the host
    int feasibleCards = 0;
};

struct Victim
{
    JobId job;
    int priority = 0;
    qint64 lostWorkMs = 0;
    qint64 evictAtMs = 0;
    friend bool operator==(const Victim &, const Victim &) = default;
};

enum class DecisionKind : std::uint8_t { Placement, Preemption, Repartition, Refusal };

// One shape of a job that lists alternatives (WorkloadSpec::shapes, issue 18) as the scheduler's
// shape choice judged it. Append only: the verdicts are stored in traces.
struct ShapeTrace
{
    enum class Verdict : std::uint8_t {
        Chosen,    // placeable, and it serves the most work per slice (ties: the primary)
        Placeable, // placeable, but another serves more per slice
        TooSlow,   // inference: its service time leaves too little room under the SLO
        NoRoom,    // the framework found no host for it now (`status` says why)
    };
    int shape = -1; // -1 the primary demand, else the index into spec.shapes
    Verdict verdict = Verdict::NoRoom;
    Status status;        // NoRoom: the framework's reason; success otherwise
    double speed = 1;     // as the spec gives it (the primary's is 1)
    qint64 milli = 0;     // compute the placement would take, milli-cards (0: none found)
    double gang = 1;      // training: the communication a gang of this width keeps, counted
    double score = 0;     // work per slice: speed * gang / (milli / 1000); 0 when not placeable
    double serviceMs = 0; // inference: the service time on this shape, serviceTimeMs / speed
};
const char *shapeVerdictCode(ShapeTrace::Verdict verdict); // "chosen", "placeable", ...

// Why a job is where it is, or why it waits: what one decision looked at and what it concluded.
// Kept per job (the latest) and in a bounded ring, and queryable afterwards (HOUSE_STYLE 5).
struct DecisionTrace
{
    JobId job;
    qint64 atMs = 0;
    DecisionKind kind = DecisionKind::Refusal;
    Status result; // success, or the job's reason for waiting
    std::optional<Placement> placement;
    QStringList filterPlugins;
    QStringList scorePlugins;
    int hostsConsidered = 0;
    int hostsFeasible = 0;
    std::array<int, kReasonCount> rejectedBy{}; // hosts rejected, by reason
    QList<CandidateTrace> best;     // the best feasible hosts, best first (at most kKeepBest)
    QList<CandidateTrace> rejected; // a sample of rejected hosts: the first per reason
    QList<Victim> victims;          // preemption: who is evicted
    QString note;                   // English detail for logs (planner steps, etc.)
    // A job with alternative shapes: each shape as the choice judged it, the primary first;
    // the placement's `shape` is the one chosen. Empty for a job without alternatives and for
    // repartition decisions. Preemption and repartitioning use the primary shape only: a
    // preemption's trace keeps the shapes the choice saw before it (none could be placed).
    QList<ShapeTrace> shapes;
    static constexpr int kKeepBest = 5;

    // English, several lines; the console renders its own translated text from the fields.
    QString describe(const ClusterState &state) const;
};

} // namespace Zhaoxi::Sched
