// SPDX-License-Identifier: GPL-3.0-or-later
#include "cardtimeline.h"

#include <algorithm> // std::max

namespace Zhaoxi::Models {

namespace {

// The unit as a span would record it (times aside).
TimelineSpan spanOf(const Sched::ClusterState &state,
                    const Sched::CardState &card,
                    const Sched::Unit &u)
{
    TimelineSpan s;
    s.uid = u.uid;
    s.milli = u.milli;
    const Domain::CardModel &model = state.model(card);
    if (u.profile >= 0 && u.profile < model.migProfiles.size()) {
        s.profile = model.migProfiles[u.profile].name;
        s.start = u.start;
        s.span = model.migProfiles[u.profile].span;
    }
    if (u.job.isValid() && u.job.value() < state.jobs().size()) {
        const Sched::Job &j = state.job(u.job);
        s.job = u.job;
        s.jobName = j.spec.name;
        s.kind = j.spec.kind;
    }
    s.reconfiguring = u.state != Sched::UnitState::Ready;
    return s;
}

bool sameUnit(const TimelineSpan &a, const TimelineSpan &b)
{
    return a.uid == b.uid && a.profile == b.profile && a.start == b.start && a.milli == b.milli
           && a.job == b.job && a.reconfiguring == b.reconfiguring;
}

} // namespace

void CardTimeline::clear()
{
    m_cards.clear();
    m_firstMs = -1;
    m_lastMs = -1;
}

void CardTimeline::observe(const Sched::ClusterState &state, qint64 nowMs)
{
    if (m_lastMs >= 0 && nowMs < m_lastMs)
        clear(); // the clock went back: another day
    if (m_firstMs < 0)
        m_firstMs = nowMs;
    m_lastMs = nowMs;
    m_cards.resize(state.cards().size());
    for (const Sched::CardState &c : state.cards()) {
        Card &card = m_cards[c.id.value()];
        const Domain::CardModel &model = state.model(c);
        card.memorySlots = model.supportsMig() ? model.migMemorySlices : 0;
        QHash<int, qsizetype> open;
        for (const Sched::Unit &u : c.units) {
            TimelineSpan now = spanOf(state, c, u);
            const auto it = card.open.constFind(u.uid);
            if (it != card.open.cend() && sameUnit(card.spans[*it], now)) {
                card.spans[*it].toMs = nowMs;
                open.insert(u.uid, *it);
                continue;
            }
            if (it != card.open.cend()) {
                card.spans[*it].toMs = nowMs;
                card.spans[*it].open = false;
            }
            now.fromMs = nowMs;
            now.toMs = nowMs;
            now.open = true;
            card.spans.append(now);
            open.insert(u.uid, card.spans.size() - 1);
        }
        // Units that are gone: their spans end now.
        for (auto it = card.open.cbegin(); it != card.open.cend(); ++it) {
            if (!open.contains(it.key())) {
                card.spans[*it].toMs = nowMs;
                card.spans[*it].open = false;
            }
        }
        card.open = std::move(open);
    }
    trim();
}

void CardTimeline::trim()
{
    const qint64 horizon = m_lastMs - m_keepMs;
    if (m_firstMs >= horizon)
        return;
    m_firstMs = horizon;
    for (Card &card : m_cards) {
        // Closed spans wholly before the horizon go; open ones are never dropped.
        qsizetype kept = 0;
        QHash<int, qsizetype> open;
        for (qsizetype i = 0; i < card.spans.size(); ++i) {
            TimelineSpan &s = card.spans[i];
            if (!s.open && s.toMs < horizon)
                continue;
            s.fromMs = std::max(s.fromMs, horizon);
            if (s.open)
                open.insert(s.uid, kept);
            card.spans[kept++] = s;
        }
        card.spans.resize(kept);
        card.open = std::move(open);
    }
}

QList<TimelineSpan> CardTimeline::spans(Domain::CardId card) const
{
    if (!card.isValid() || card.value() >= m_cards.size())
        return {};
    return m_cards[card.value()].spans;
}

int CardTimeline::memorySlots(Domain::CardId card) const
{
    if (!card.isValid() || card.value() >= m_cards.size())
        return 0;
    return m_cards[card.value()].memorySlots;
}

} // namespace Zhaoxi::Models
