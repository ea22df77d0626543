// SPDX-License-Identifier: GPL-3.0-or-later
#include "statement.h"

namespace Zhaoxi::Sched {

Statement::Statement(ClusterState &state)
    : m_state(state)
{}

Statement::~Statement()
{
    discard();
}

// Snapshot what the next mutation touches. Cards and jobs are small and their lists are
// implicitly shared, so a snapshot is cheap; restoring snapshots in reverse is an exact undo.
void Statement::save(std::optional<JobId> job,
                     std::optional<CardId> card,
                     std::optional<HostId> host)
{
    Undo u;
    if (job)
        u.job = m_state.m_jobs[job->value()];
    if (card)
        u.card = m_state.m_cards[card->value()];
    if (host)
        u.host = m_state.m_hosts[host->value()];
    u.usage = m_state.m_usage;
    m_undo.append(std::move(u));
}

void Statement::place(JobId jobId, const Placement &placement, qint64 nowMs, bool overBudget)
{
    Q_ASSERT(!m_closed);
    const Job &j = m_state.job(jobId);
    if (j.state != JobState::Pending)
        return;
    save(jobId, std::nullopt, placement.host);
    // The shape first: the invariants count the units it needs from it.
    m_state.jobRef(jobId).shape = placement.shape;
    m_state.attachHost(jobId, placement.host);
    for (const UnitChoice &c : placement.units) {
        save(jobId, c.card, placement.host);
        m_state.bind(jobId, c);
    }
    save(jobId, std::nullopt, std::nullopt);
    Job &jm = m_state.jobRef(jobId);
    jm.state = JobState::Running;
    jm.startedMs = nowMs;
    jm.accountedAtMs = nowMs;
    jm.overBudget = overBudget;
    Step s;
    s.kind = Step::Kind::Place;
    s.job = jobId;
    s.host = placement.host;
    s.units = placement.units;
    s.shape = placement.shape;
    m_steps.append(s);
}

void Statement::release(JobId jobId, qint64 nowMs)
{
    m_state.accountProgress(jobId, nowMs);
    const Job &j = m_state.job(jobId);
    const QList<Assignment> held = j.assignments;
    for (const Assignment &a : held) {
        save(jobId, a.card, j.host);
        m_state.unbind(jobId, a.card, a.unitUid);
    }
    if (m_state.job(jobId).host.isValid()) {
        save(jobId, std::nullopt, m_state.job(jobId).host);
        m_state.detachHost(jobId);
    }
    m_state.jobRef(jobId).shape = -1;
}

void Statement::evict(JobId jobId, qint64 nowMs)
{
    Q_ASSERT(!m_closed);
    if (!m_state.job(jobId).isActive())
        return;
    save(jobId, std::nullopt, std::nullopt);
    release(jobId, nowMs);
    Job &j = m_state.jobRef(jobId);
    const qint64 lost = j.workDoneMs - j.checkpointMs;
    j.lostWorkMs += lost;
    j.workDoneMs = j.checkpointMs;
    j.state = JobState::Pending;
    j.evictAtMs = -1;
    j.preemptedBy = JobId();
    j.overBudget = false;
    ++j.preemptions;
    Step s;
    s.kind = Step::Kind::Evict;
    s.job = jobId;
    s.value = lost;
    m_steps.append(s);
}

void Statement::markPreempting(JobId victim, JobId by, qint64 evictAtMs)
{
    Q_ASSERT(!m_closed);
    if (m_state.job(victim).state != JobState::Running)
        return;
    save(victim, std::nullopt, std::nullopt);
    Job &j = m_state.jobRef(victim);
    j.state = JobState::Preempting;
    j.evictAtMs = evictAtMs;
    j.preemptedBy = by;
    Step s;
    s.kind = Step::Kind::MarkPreempting;
    s.job = victim;
    s.other = by;
    s.value = evictAtMs;
    m_steps.append(s);
}

void Statement::finish(JobId jobId, JobState terminal, qint64 nowMs)
{
    Q_ASSERT(!m_closed);
    if (m_state.job(jobId).isTerminal())
        return;
    save(jobId, std::nullopt, std::nullopt);
    if (m_state.job(jobId).isActive())
        release(jobId, nowMs);
    Job &j = m_state.jobRef(jobId);
    j.state = terminal;
    j.endedMs = nowMs;
    Step s;
    s.kind = Step::Kind::Finish;
    s.job = jobId;
    s.jobState = terminal;
    m_steps.append(s);
}

int Statement::createPartition(CardId card, int profile, int start, UnitState state)
{
    Q_ASSERT(!m_closed);
    save(std::nullopt, card, m_state.card(card).host);
    const int uid = m_state.createPartition(card, profile, start, state);
    Step s;
    s.kind = Step::Kind::CreatePartition;
    s.card = card;
    s.host = m_state.card(card).host;
    s.uid = uid;
    s.profile = profile;
    s.start = start;
    m_steps.append(s);
    return uid;
}

void Statement::destroyPartition(CardId card, int uid)
{
    Q_ASSERT(!m_closed);
    const Unit *u = m_state.card(card).unit(uid);
    if (!u)
        return;
    Step s;
    s.kind = Step::Kind::DestroyPartition;
    s.card = card;
    s.host = m_state.card(card).host;
    s.uid = uid;
    s.profile = u->profile;
    s.start = u->start;
    save(std::nullopt, card, s.host);
    m_state.destroyPartition(card, uid);
    m_steps.append(s);
}

void Statement::setUnitState(CardId card, int uid, UnitState state)
{
    Q_ASSERT(!m_closed);
    save(std::nullopt, card, m_state.card(card).host);
    m_state.setUnitState(card, uid, state);
    Step s;
    s.kind = Step::Kind::SetUnitState;
    s.card = card;
    s.uid = uid;
    s.unitState = state;
    m_steps.append(s);
}

void Statement::setMode(CardId card, PartitionMode mode)
{
    Q_ASSERT(!m_closed);
    save(std::nullopt, card, m_state.card(card).host);
    m_state.setMode(card, mode);
    Step s;
    s.kind = Step::Kind::SetMode;
    s.card = card;
    s.mode = mode;
    m_steps.append(s);
}

void Statement::commit()
{
    m_closed = true;
    m_undo.clear();
}

void Statement::discard()
{
    if (m_closed)
        return;
    for (qsizetype i = m_undo.size() - 1; i >= 0; --i) {
        Undo &u = m_undo[i];
        if (u.card)
            m_state.m_cards[u.card->id.value()] = *u.card;
        if (u.host) {
            m_state.m_hosts[u.host->id.value()] = *u.host;
            // The host changed twice: caches keyed on the version must miss.
            m_state.touch(u.host->id);
        }
        if (u.job)
            m_state.m_jobs[u.job->id.value()] = *u.job;
        m_state.m_usage = u.usage;
    }
    m_undo.clear();
    m_steps.clear();
    m_closed = true;
}

} // namespace Zhaoxi::Sched
