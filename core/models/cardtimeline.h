// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/domain/ids.h"
#include "core/domain/workloadspec.h"
#include "core/sched/clusterstate.h"

#include <QHash>
#include <QList>
#include <QString>

namespace Zhaoxi::Models {

// One stretch of a card's history: a unit as it was (its MIG profile and start slot, or its
// share), and who held it, from `fromMs` to `toMs` (appliance time, UTC ms). A unit that changes
// hands, is being created or destroyed, or is given another size starts a new span.
struct TimelineSpan
{
    int uid = -1;
    QString profile;   // the MIG profile's name; empty for whole cards and soft shares
    int start = -1;    // MIG: the first memory slot; -1 otherwise
    int span = 0;      // MIG: memory slots it covers; 0 otherwise
    int milli = 0;     // its compute share of the card, in 1/1000
    Domain::JobId job; // invalid: nobody held it
    QString jobName;
    Domain::WorkloadKind kind = Domain::WorkloadKind::Batch; // the holder's class
    bool reconfiguring = false;                              // being created or destroyed
    qint64 fromMs = 0;
    qint64 toMs = 0; // still open: the last time it was seen so
    bool open = false;
    friend bool operator==(const TimelineSpan &, const TimelineSpan &) = default;
};

// Each card's layouts and occupants over the last `keepMs` (a day by default), learnt from the
// states the console is shown: observe() each snapshot's state and time; spans close where a
// unit changed and open for what it became. A clock that goes back (the day restarted) starts
// the history again. Pure: no clock, no Qt GUI.
class CardTimeline
{
public:
    explicit CardTimeline(qint64 keepMs = 24 * 3600'000LL)
        : m_keepMs(keepMs)
    {}

    void observe(const Sched::ClusterState &state, qint64 nowMs);
    void clear();

    // The card's spans, oldest first (open ones last seen at lastMs()); empty for an unknown card.
    QList<TimelineSpan> spans(Domain::CardId card) const;
    // The card model's MIG memory slots (8 on H200), the axis MIG spans sit on; 0 for a model
    // without MIG.
    int memorySlots(Domain::CardId card) const;
    qint64 firstMs() const { return m_firstMs; } // -1: nothing observed
    qint64 lastMs() const { return m_lastMs; }
    qint64 keepMs() const { return m_keepMs; }

private:
    struct Card
    {
        QList<TimelineSpan> spans;  // in opening order: oldest first, as spans() gives them
        QHash<int, qsizetype> open; // uid -> index of its open span
        int memorySlots = 0;
    };
    void trim();

    qint64 m_keepMs;
    qint64 m_firstMs = -1;
    qint64 m_lastMs = -1;
    QList<Card> m_cards; // by card id
};

} // namespace Zhaoxi::Models
