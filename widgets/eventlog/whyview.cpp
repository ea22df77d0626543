// SPDX-License-Identifier: GPL-3.0-or-later
#include "whyview.h"

#include "eventtext.h"

#include "core/models/sessionclient.h"
#include "core/storage/exporter.h"
#include "widgets/cardmap/reasontext.h"

#include <QEvent>
#include <QLabel>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace Zhaoxi::Widgets {

using Domain::JobId;
using Sched::DecisionTrace;
using Sched::Reason;
using Session::Snapshot;

namespace {

QString esc(const QString &s)
{
    return s.toHtmlEscaped();
}

bool validJob(const Snapshot &s, int job)
{
    return job >= 0 && job < s.state.jobs().size();
}

QString jobName(const Snapshot &s, int job)
{
    return validJob(s, job) ? s.state.jobs()[job].spec.name : QStringLiteral("#%1").arg(job);
}

QString hostName(const Snapshot &s, Domain::HostId host)
{
    return host.isValid() && host.value() < s.state.hosts().size() ? s.state.host(host).name
                                                                   : QStringLiteral("?");
}

} // namespace

WhyView::WhyView(Models::SessionClient *client, QWidget *parent)
    : QWidget(parent)
    , m_client(client)
    , m_title(new QLabel(this))
    , m_text(new QTextBrowser(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_title->setTextFormat(Qt::PlainText);
    m_title->setWordWrap(true);
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_text->setOpenLinks(false);
    layout->addWidget(m_title);
    layout->addWidget(m_text, 1);
    if (m_client) {
        connect(m_client, &Models::SessionClient::snapshotChanged, this, &WhyView::onSnapshot);
        if (m_client->snapshot())
            onSnapshot(m_client->snapshot());
    }
    render();
}

const DecisionTrace *WhyView::trace(JobId job) const
{
    const auto it = m_traces.constFind(job.value());
    return it == m_traces.cend() ? nullptr : &it.value();
}

QString WhyView::text() const
{
    return m_title->text() + QLatin1Char('\n') + m_text->toPlainText();
}

void WhyView::setJob(JobId job)
{
    m_job = job;
    render();
}

void WhyView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        render();
    QWidget::changeEvent(event);
}

void WhyView::onSnapshot(const Session::SnapshotPtr &snapshot)
{
    if (!snapshot)
        return;
    for (const DecisionTrace &t : snapshot->traces)
        m_traces.insert(t.job.value(), t);
    // A preemption that evicts at once has no "job-preempting" event: its victims come from the
    // preemptor's trace (with the scheduler's estimate of their lost work).
    for (const DecisionTrace &t : snapshot->traces) {
        if (t.kind != Sched::DecisionKind::Preemption)
            continue;
        for (const Sched::Victim &v : t.victims) {
            const auto it = m_preempted.constFind(v.job.value());
            if (it != m_preempted.cend() && it->by == t.job.value())
                continue; // known from its events
            Preemption p;
            p.by = t.job.value();
            p.atMs = t.atMs;
            p.evictAtMs = v.evictAtMs;
            p.lostMs = v.evictAtMs <= t.atMs ? v.lostWorkMs : -1;
            m_preempted.insert(v.job.value(), p);
        }
    }
    for (const Storage::Event &e : snapshot->events) {
        if (e.source != Storage::Source::Scheduler || e.job < 0)
            continue;
        if (e.code == "job-preempting") {
            Preemption p;
            p.by = Storage::jsonParam(e.params, QLatin1StringView("other")).toInt();
            p.atMs = e.atMs;
            p.evictAtMs = Storage::eventParam(e, QLatin1StringView("evictionAtMs")).toLongLong();
            m_preempted.insert(e.job, p);
        } else if (e.code == "job-evicted") {
            // Evictions for other causes (a failed card, a requeue) are not preemptions.
            auto it = m_preempted.find(e.job);
            if (it != m_preempted.end() && it->lostMs < 0) {
                it->lostMs = Storage::eventParam(e, QLatin1StringView("workLostMs")).toLongLong();
                it->evictAtMs = e.atMs;
            }
        }
    }
    // The state changes with every snapshot (a job starts, leaves): the text follows it.
    if (m_job.isValid())
        render();
}

void WhyView::render()
{
    const Session::SnapshotPtr s = m_client ? m_client->snapshot() : nullptr;
    if (!m_job.isValid()) {
        m_title->setText(tr("Why?"));
        m_text->setHtml(
                esc(tr("Select a job to see why it waits, why it runs where it does, or why "
                       "it was preempted.")));
        m_html.clear(); // what is shown is no explanation: the next one draws
        return;
    }
    if (!s || !validJob(*s, m_job.value())) {
        m_title->setText(tr("Why? Job #%1").arg(m_job.value()));
        m_text->setHtml(esc(tr("The appliance does not know this job yet.")));
        m_html.clear();
        return;
    }
    const Sched::Job &j = s->state.job(m_job);
    QString state;
    switch (j.state) {
    case Sched::JobState::Pending:
        state = tr("waiting");
        break;
    case Sched::JobState::Running:
        state = tr("running");
        break;
    case Sched::JobState::Preempting:
        state = tr("being preempted");
        break;
    case Sched::JobState::Finished:
        state = tr("finished");
        break;
    case Sched::JobState::Cancelled:
        state = tr("cancelled");
        break;
    case Sched::JobState::Failed:
        state = tr("failed");
        break;
    }
    m_title->setText(tr("Why? Job %1 is %2").arg(j.spec.name, state));
    const QString html = explanation(*s);
    // Redraw only on a change: the view follows every snapshot, and a reset scrolls to the top.
    if (m_html != html) {
        m_html = html;
        m_text->setHtml(html);
    }
}

QString WhyView::explanation(const Snapshot &s) const
{
    const Sched::Job &j = s.state.job(m_job);
    const DecisionTrace *t = trace(m_job);
    const auto preempted = m_preempted.constFind(m_job.value());
    QString html;

    // What it asks for: the terms every reason below is about.
    const QString demand = demandText(j.spec.demand);
    html += QStringLiteral("<p>%1</p>")
                    .arg(esc(tr("It asks for %1 (priority %2).").arg(demand).arg(j.spec.priority)));
    if (j.isActive() && j.shape >= 0 && j.shape < j.spec.shapes.size())
        html += QStringLiteral("<p>%1</p>")
                        .arg(esc(tr("It runs in alternative shape %1 of its spec: %2, at %3 of its "
                                    "primary shape's speed.")
                                         .arg(j.shape + 1)
                                         .arg(demandText(j.spec.shapes[j.shape].demand),
                                              trimmedNumberText(j.spec.shapes[j.shape].speed, 2))));

    html += externalText(s);
    if (j.state == Sched::JobState::Pending) {
        if (preempted != m_preempted.cend())
            html += preemptedText(s, *preempted, false);
        if (t && t->result.isSuccess() && t->placement && !s.externalScheduler.isEmpty()) {
            // A fleet's scheduler (Slurm) starts its jobs: Zhaoxi's analysis found room.
            html += QStringLiteral("<p>%1</p>")
                            .arg(esc(tr("By Zhaoxi's analysis at %1 it fits on %2 now; Slurm "
                                        "keeps it waiting for its own reason above.")
                                             .arg(eventClockText(t->atMs, s.utcOffsetSeconds),
                                                  hostName(s, t->placement->host))));
            return html;
        }
        if (!t) {
            html += QStringLiteral("<p>%1</p>")
                            .arg(esc(
                                    tr("No decision about this job has been seen since the console "
                                       "started; the scheduler explains it at its next try.")));
        } else if (t->kind == Sched::DecisionKind::Preemption && !t->victims.isEmpty()) {
            // Nominated: it starts once its victims have left.
            html += placedText(s, t);
        } else {
            html += waitingText(s, *t);
        }
        return html;
    }
    if (j.state == Sched::JobState::Preempting && preempted != m_preempted.cend())
        html += preemptedText(s, *preempted, true);
    else if (j.state == Sched::JobState::Preempting && j.preemptedBy.isValid())
        html += preemptedText(s, Preemption{j.preemptedBy.value(), 0, j.evictAtMs, -1}, true);
    if (j.isTerminal()) {
        const QString at
                = j.endedMs >= 0 ? eventClockText(j.endedMs, s.utcOffsetSeconds) : QString();
        html += QStringLiteral("<p>%1</p>").arg(esc(tr("It ended at %1.").arg(at)));
    }
    html += placedText(s, t);
    if ((j.isTerminal() || j.state == Sched::JobState::Running) && preempted != m_preempted.cend())
        html += preemptedText(s, *preempted, false);
    return html;
}

QString WhyView::externalText(const Snapshot &s) const
{
    if (s.externalScheduler.isEmpty())
        return {};
    const auto it = std::find_if(
            s.externalJobs.cbegin(), s.externalJobs.cend(), [this](const Session::ExternalJob &e) {
                return e.job == m_job.value();
            });
    if (it == s.externalJobs.cend())
        return {};
    QString line = tr("Slurm job %1 (user %2, partition %3): %4.")
                           .arg(QString::number(it->id),
                                it->user,
                                it->partition.isEmpty() ? QStringLiteral("-") : it->partition,
                                it->state);
    if (!it->reason.isEmpty() && it->reason != QLatin1String("None"))
        line += QLatin1Char(' ') + tr("Slurm's reason: %1.").arg(it->reason);
    if (it->restarts > 0)
        line += QLatin1Char(' ') + tr("Slurm requeued it %n time(s).", nullptr, it->restarts);
    return QStringLiteral("<p>%1</p>").arg(esc(line));
}

QString WhyView::demandText(const Domain::Demand &d) const
{
    QString demand;
    switch (d.compute.kind) {
    case Domain::ComputeDemand::Kind::WholeCard:
        demand = tr("%n whole card(s)", nullptr, d.cards);
        break;
    case Domain::ComputeDemand::Kind::MigProfile:
        demand = tr("%n MIG partition(s) %1", nullptr, d.cards).arg(d.compute.profile);
        break;
    case Domain::ComputeDemand::Kind::MigSlices:
        demand = d.compute.slices == 1
                         ? tr("%n MIG partition(s) of at least one slice", nullptr, d.cards)
                         : tr("%n MIG partition(s) of at least %1 slices", nullptr, d.cards)
                                   .arg(d.compute.slices);
        break;
    case Domain::ComputeDemand::Kind::Fraction:
        demand = tr("%n share(s) of %1% of a card", nullptr, d.cards)
                         .arg(trimmedNumberText(d.compute.milli / 10.0, 1));
        break;
    }
    if (d.cards == 0)
        demand = tr("host CPU and memory only");
    return demand;
}

QString WhyView::shapesText(const Snapshot &s, const DecisionTrace &t) const
{
    if (t.shapes.isEmpty())
        return {};
    const Sched::Job &j = s.state.job(m_job);
    QString html = QStringLiteral("<p>%1</p><ul>")
                           .arg(esc(tr("The shapes it may run in, as the scheduler judged them at "
                                       "%1 (work per card: speed per card of compute it takes):")
                                            .arg(eventClockText(t.atMs, s.utcOffsetSeconds))));
    for (const Sched::ShapeTrace &sh : t.shapes) {
        const Domain::Demand &d = Domain::shapeDemand(j.spec, sh.shape);
        const QString name = sh.shape < 0 ? tr("%1 (its primary shape)").arg(demandText(d))
                                          : tr("%1 (shape %2, speed %3)")
                                                    .arg(demandText(d))
                                                    .arg(sh.shape + 1)
                                                    .arg(trimmedNumberText(sh.speed, 2));
        QString line;
        switch (sh.verdict) {
        case Sched::ShapeTrace::Verdict::Chosen:
            line = tr("%1: chosen, %2 work per card").arg(name, trimmedNumberText(sh.score, 2));
            break;
        case Sched::ShapeTrace::Verdict::Placeable:
            line = tr("%1: fits, %2 work per card").arg(name, trimmedNumberText(sh.score, 2));
            break;
        case Sched::ShapeTrace::Verdict::TooSlow:
            line = tr("%1: too slow for its SLO: %2 ms a request leaves too little room under "
                      "its p99 objective of %3 ms")
                           .arg(name,
                                trimmedNumberText(sh.serviceMs, 1),
                                trimmedNumberText(
                                        j.spec.inference ? j.spec.inference->sloP99Ms : 0.0, 0));
            break;
        case Sched::ShapeTrace::Verdict::NoRoom:
            line = tr("%1: no room now: %2").arg(name, reasonText(sh.status));
            break;
        }
        if (sh.gang < 1
            && (sh.verdict == Sched::ShapeTrace::Verdict::Chosen
                || sh.verdict == Sched::ShapeTrace::Verdict::Placeable))
            line += QLatin1Char(' ')
                    + tr("(the gang's communication counted: %1% kept)")
                              .arg(trimmedNumberText(100 * sh.gang, 1));
        html += QStringLiteral("<li>%1</li>").arg(esc(line));
    }
    html += QStringLiteral("</ul>");
    return html;
}

QString WhyView::waitingText(const Snapshot &s, const DecisionTrace &t) const
{
    QString html;
    html += QStringLiteral("<p>%1</p>")
                    .arg(esc(tr("At %1 the scheduler could not place it: %2")
                                     .arg(eventClockText(t.atMs, s.utcOffsetSeconds),
                                          reasonText(t.result))));
    const Sched::Job &j = s.state.job(m_job);
    if (t.result.reason == Reason::ClassBudgetExceeded) {
        QString kind;
        switch (j.spec.kind) {
        case Domain::WorkloadKind::Training:
            kind = tr("training");
            break;
        case Domain::WorkloadKind::Inference:
            kind = tr("inference");
            break;
        case Domain::WorkloadKind::Batch:
            kind = tr("batch");
            break;
        }
        const QString needs = trimmedNumberText(t.result.need / 1000.0, 2);
        const QString more = trimmedNumberText(std::max<qint64>(0, t.result.have) / 1000.0, 2);
        html += QStringLiteral("<p>%1</p>")
                        .arg(esc(
                                tr("The %1 class budget is the limit: it needs %2 cards, the class "
                                   "may use %3 more now. The budget follows the time windows "
                                   "and the load of the services.")
                                        .arg(kind, needs, more)));
    }
    if (t.hostsConsidered > 0)
        html += QStringLiteral("<p>%1</p>")
                        .arg(esc(tr("%n host(s) looked at", nullptr, t.hostsConsidered)
                                 + QStringLiteral("; ")
                                 + tr("%n could take it.", nullptr, t.hostsFeasible)));
    if (!t.rejected.isEmpty()) {
        html += QStringLiteral("<p>%1</p><ul>").arg(esc(tr("Why each host turned it down:")));
        for (const Sched::CandidateTrace &c : t.rejected) {
            QString line = tr("%1: %2").arg(hostName(s, c.host), reasonText(c.verdict));
            if (c.host.isValid() && c.host.value() < s.state.hosts().size()) {
                const int cards = s.state.host(c.host).cardCount;
                const int rejected = cards - c.feasibleCards;
                if (cards > 0 && rejected > 0 && c.verdict.reason >= Reason::CardFailed
                    && c.verdict.reason < Reason::GangTooWide)
                    line += QLatin1Char(' ') + tr("(%n card(s) rejected)", nullptr, rejected);
            }
            const int same = t.rejectedBy[std::size_t(c.verdict.reason)];
            if (same > 1)
                line += QLatin1Char(' ')
                        + tr("(and %n more host(s) for the same reason)", nullptr, same - 1);
            if (!c.filter.isEmpty())
                line += QLatin1Char(' ') + tr("[check: %1]").arg(c.filter);
            html += QStringLiteral("<li>%1</li>").arg(esc(line));
        }
        html += QStringLiteral("</ul>");
    }
    if (t.result.code == Sched::Status::Code::Unresolvable)
        html += QStringLiteral("<p>%1</p>")
                        .arg(esc(tr("Nothing on this appliance can change that: neither preemption "
                                    "nor repartitioning would help.")));
    html += shapesText(s, t);
    return html;
}

QString WhyView::placedText(const Snapshot &s, const DecisionTrace *t) const
{
    QString html;
    const Sched::Job &j = s.state.job(m_job);
    if (j.isActive()) {
        html += QStringLiteral("<p>%1</p><ul>")
                        .arg(esc(tr("It runs on %1 since %2:")
                                         .arg(hostName(s, j.host),
                                              eventClockText(j.startedMs, s.utcOffsetSeconds))));
        for (const Sched::Assignment &a : j.assignments) {
            const Sched::CardState &c = s.state.card(a.card);
            const Sched::Unit *u = c.unit(a.unitUid);
            const Domain::CardModel &m = s.state.model(c);
            QString unit;
            if (u && u->profile >= 0 && u->profile < m.migProfiles.size())
                unit = QStringLiteral("%1@%2").arg(m.migProfiles[u->profile].name).arg(u->start);
            else if (c.mode == Domain::PartitionMode::Whole)
                unit = tr("the whole card");
            else if (u)
                unit = tr("a %1% share").arg(trimmedNumberText(u->milli / 10.0, 1));
            html += QStringLiteral("<li>%1</li>")
                            .arg(esc(tr("%1 card %2 (%3): %4")
                                             .arg(hostName(s, c.host))
                                             .arg(c.indexOnHost)
                                             .arg(m.name, unit)));
        }
        html += QStringLiteral("</ul>");
    }
    if (!t)
        return html;
    const bool nominated = !j.isActive() && !j.isTerminal();
    if (nominated && t->placement)
        html += QStringLiteral("<p>%1</p>")
                        .arg(esc(tr("At %1 it was given %2; it starts there once the jobs it "
                                    "preempts have left.")
                                         .arg(eventClockText(t->atMs, s.utcOffsetSeconds),
                                              hostName(s, t->placement->host))));
    if (t->hostsConsidered > 0 && !t->best.isEmpty()) {
        html += QStringLiteral("<p>%1</p><ul>")
                        .arg(esc(tr("Why here: at %1, %2 of %n host(s) could take it; the best:",
                                    nullptr,
                                    t->hostsConsidered)
                                         .arg(eventClockText(t->atMs, s.utcOffsetSeconds))
                                         .arg(t->hostsFeasible)));
        for (const Sched::CandidateTrace &c : t->best) {
            QStringList parts;
            for (int i = 0; i < c.scores.size() && i < t->scorePlugins.size(); ++i)
                parts << tr("%1 %2").arg(t->scorePlugins[i], trimmedNumberText(c.scores[i], 1));
            QString line
                    = tr("%1: score %2").arg(hostName(s, c.host), trimmedNumberText(c.total, 1));
            if (!parts.isEmpty())
                line += QStringLiteral(" (") + parts.join(QStringLiteral(", ")) + QLatin1Char(')');
            if (t->placement && c.host == t->placement->host)
                line += QLatin1Char(' ') + tr("— chosen");
            html += QStringLiteral("<li>%1</li>").arg(esc(line));
        }
        html += QStringLiteral("</ul>");
        if (t->best.size() > 1 && t->best[0].total == t->best[1].total)
            html += QStringLiteral("<p>%1</p>")
                            .arg(esc(tr("The best scores were equal; the host's rank decided.")));
    } else if (t->hostsConsidered > 0 && t->result.isSuccess()) {
        html += QStringLiteral("<p>%1</p>")
                        .arg(esc(tr("%n host(s) looked at", nullptr, t->hostsConsidered)
                                 + QStringLiteral("; ")
                                 + tr("%n could take it.", nullptr, t->hostsFeasible)));
    }
    html += shapesText(s, *t);
    if (!t->victims.isEmpty()) {
        html += QStringLiteral("<p>%1</p><ul>").arg(esc(tr("To make room it preempted:")));
        for (const Sched::Victim &v : t->victims) {
            const QString leaves = eventClockText(v.evictAtMs, s.utcOffsetSeconds);
            const QString line = v.lostWorkMs > 0
                                         ? tr("%1 (priority %2): loses %3 of work, leaves at %4")
                                                   .arg(jobName(s, v.job.value()))
                                                   .arg(v.priority)
                                                   .arg(eventDurationText(v.lostWorkMs), leaves)
                                         : tr("%1 (priority %2): loses no work, leaves at %3")
                                                   .arg(jobName(s, v.job.value()))
                                                   .arg(v.priority)
                                                   .arg(leaves);
            html += QStringLiteral("<li>%1</li>").arg(esc(line));
        }
        html += QStringLiteral("</ul>");
    }
    return html;
}

QString WhyView::preemptedText(const Snapshot &s, const Preemption &p, bool leaving) const
{
    QString by = jobName(s, p.by);
    if (validJob(s, p.by))
        by = tr("%1 (priority %2)").arg(by).arg(s.state.jobs()[p.by].spec.priority);
    QString text;
    if (leaving)
        text = tr("It is being preempted by %1: it leaves at %2.")
                       .arg(by, eventClockText(p.evictAtMs, s.utcOffsetSeconds));
    else if (p.lostMs > 0)
        text = tr("It was preempted by %1 at %2 and lost %3 of work.")
                       .arg(by,
                            eventClockText(p.evictAtMs, s.utcOffsetSeconds),
                            eventDurationText(p.lostMs));
    else if (p.lostMs == 0)
        text = tr("It was preempted by %1 at %2 and lost no work.")
                       .arg(by, eventClockText(p.evictAtMs, s.utcOffsetSeconds));
    else
        text = tr("It was preempted by %1 at %2.")
                       .arg(by, eventClockText(p.atMs, s.utcOffsetSeconds));
    return QStringLiteral("<p>%1</p>").arg(esc(text));
}

} // namespace Zhaoxi::Widgets
