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
    static constexpr int kKeepBest = 5;

    // English, several lines; the console renders its own translated text from the fields.
    QString describe(const ClusterState &state) const;
};

} // namespace Zhaoxi::Sched
