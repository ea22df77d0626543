// SPDX-License-Identifier: GPL-3.0-or-later
// CardMapView: drag and drop (asking the session whether a job could run on the card under the
// cursor, then placing it) and the placements' undo commands.
#include "cardmapview.h"

#include "reasontext.h"

#include "core/models/jobtablemodel.h"
#include "core/models/sessionclient.h"
#include "widgets/appliedcommand.h"

#include <QDateTime>
#include <QDragEnterEvent>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QTimeZone>
#include <QUndoCommand>
#include <QUndoStack>

#include <algorithm>

namespace Zhaoxi::Widgets {

using Domain::CardId;
using Domain::HostId;
using Domain::JobId;
using Domain::PartitionMode;
using Session::PlacementPreview;

// A placement made by a drop: undo takes the job back to the queue, redo places it again on
// the same card (preempting again when the original drop did: the operator agreed to that).
// The drop has already placed it when the command is pushed, so the first redo does nothing
// (AppliedCommand).
class PlacementCommand : public AppliedCommand
{
public:
    PlacementCommand(CardMapView *view,
                     JobId job,
                     CardId card,
                     bool allowPreemption,
                     bool overBudget,
                     const QString &text)
        : AppliedCommand(text)
        , m_view(view)
        , m_job(job)
        , m_card(card)
        , m_allowPreemption(allowPreemption)
        , m_overBudget(overBudget)
    {}

    void undo() override
    {
        if (m_view)
            m_view->issue({CardMapView::PendingCommand::Kind::UndoRequeue, m_job, m_card, false});
    }

protected:
    void replay() override
    {
        if (!m_view)
            return;
        CardMapView::PendingCommand c{
                CardMapView::PendingCommand::Kind::RedoPlace, m_job, m_card, m_allowPreemption};
        // Over the budget again only as confirmed: with no one to preempt, else asked anew
        // (the session refuses a plan that differs, and the map asks again).
        c.overBudget = m_overBudget;
        c.confirmed = m_overBudget;
        m_view->issue(c);
    }

private:
    QPointer<CardMapView> m_view;
    JobId m_job;
    CardId m_card;
    bool m_allowPreemption = false;
    bool m_overBudget = false;
};
void CardMapView::dragEnterEvent(QDragEnterEvent *event)
{
    const QList<JobId> jobs = Models::JobTableModel::jobIdsFromMimeData(event->mimeData());
    if (jobs.isEmpty() || !m_client || !m_snapshot) {
        event->ignore();
        return;
    }
    // One job per drop: the first the drag carries.
    m_drag = Drag();
    m_drag.active = true;
    m_drag.job = jobs.first();
    m_previews.clear();
    event->acceptProposedAction();
    updateDragTarget(event->position().toPoint());
}

void CardMapView::dragMoveEvent(QDragMoveEvent *event)
{
    if (!m_drag.active) {
        event->ignore();
        return;
    }
    updateDragTarget(event->position().toPoint());
    // "Checking" accepts: the drop waits for the answer rather than the cursor saying no; so
    // does a target where the job may go over its class budget (the drop asks first), and one
    // whose hint is a layout (the drop offers to open it).
    if (m_drag.state == DropState::None
        || (m_drag.state == DropState::Refused && !m_drag.anyway && !m_drag.layout))
        event->ignore();
    else
        event->acceptProposedAction();
}

void CardMapView::dragLeaveEvent(QDragLeaveEvent *event)
{
    clearDrag();
    event->accept();
}

void CardMapView::dropEvent(QDropEvent *event)
{
    if (!m_drag.active) {
        event->ignore();
        return;
    }
    updateDragTarget(event->position().toPoint());
    const JobId job = m_drag.job;
    const CardId card = m_drag.card;
    const Key key(job.value(), card.value());
    const auto cached = m_previews.constFind(key);
    const bool fresh = cached != m_previews.cend() && cached->serial == m_snapshot->serial;
    // Refused by a fresh answer, or the job is not waiting any more (no answer needed).
    const bool refused = m_drag.state == DropState::Refused && !m_drag.anyway && !m_drag.layout
                         && (fresh || cached == m_previews.cend());
    if (!card.isValid() || refused) {
        if (card.isValid()) {
            Q_EMIT statusMessage(
                    tr("%1 cannot go on %2: %3").arg(jobName(job), cardName(card), m_drag.text));
        }
        event->ignore();
        clearDrag();
        return;
    }
    event->acceptProposedAction();
    clearDrag();
    if (fresh) {
        const PlacementPreview preview = cached->preview;
        QMetaObject::invokeMethod(
                this, [this, preview] { actOnDrop(preview); }, Qt::QueuedConnection);
    } else {
        // No answer for this snapshot yet: act when it comes.
        m_pendingDrop = key;
        requestPreview(job, card);
    }
}

void CardMapView::clearDrag()
{
    const bool wasShown = m_drag.active && m_drag.card.isValid();
    m_drag = Drag();
    if (wasShown)
        viewport()->update();
}

void CardMapView::updateDragTarget(const QPoint &viewportPos)
{
    const CardId card = hitTest(viewportPos).card;
    if (card == m_drag.card && m_drag.state != DropState::None)
        return;
    m_drag.card = card;
    refreshDragState();
    viewport()->update();
}

void CardMapView::refreshDragState()
{
    const CardId card = m_drag.card;
    const JobId job = m_drag.job;
    if (!card.isValid() || !m_snapshot) {
        m_drag.state = DropState::None;
        m_drag.text.clear();
        return;
    }
    const Sched::ClusterState &st = m_snapshot->state;
    m_drag.anyway = false;
    m_drag.layout = false;
    if (!job.isValid() || job.value() >= st.jobs().size()
        || st.job(job).state != Sched::JobState::Pending) {
        m_drag.state = DropState::Refused;
        m_drag.text = tr("%1 is no longer waiting.").arg(jobName(job));
        return;
    }
    const Key key(job.value(), card.value());
    const auto cached = m_previews.constFind(key);
    if (cached == m_previews.cend() || cached->serial != m_snapshot->serial)
        requestPreview(job, card); // answered later: "checking" until then
    const auto answer = m_previews.constFind(key);
    if (answer == m_previews.cend()) {
        m_drag.state = DropState::Checking;
        m_drag.text
                = tr("Checking whether %1 can run on %2\u2026").arg(jobName(job), cardName(card));
        return;
    }
    // An answer of an older snapshot stays up until the fresh one comes (no flicker).
    const PlacementPreview &p = answer->preview;
    switch (p.outcome) {
    case PlacementPreview::Outcome::Direct:
        m_drag.state = DropState::Fits;
        m_drag.text = tr("%1 fits on %2.").arg(jobName(job), cardName(card));
        break;
    case PlacementPreview::Outcome::NeedsPreemption: {
        m_drag.state = DropState::NeedsPreemption;
        QStringList names = p.victimNames;
        names.removeAll(QString());
        m_drag.text
                = tr("Fits on %1 if %n job(s) are preempted: %2", nullptr, int(p.victims.size()))
                          .arg(cardName(card), names.join(QStringLiteral(", ")));
        break;
    }
    case PlacementPreview::Outcome::Refused:
        m_drag.state = DropState::Refused;
        m_drag.text = reasonText(p.status);
        if (const QString when = startHintText(p); !when.isEmpty())
            m_drag.text += QLatin1Char(' ') + when;
        m_drag.anyway = p.overBudget != PlacementPreview::Outcome::Refused;
        if (m_drag.anyway)
            m_drag.text += QLatin1Char(' ')
                           + tr("Drop to place it anyway, over the budget (you are asked "
                                "first).");
        if (const QString fit = layoutHintText(p); !fit.isEmpty() && !m_drag.anyway) {
            m_drag.layout = true;
            m_drag.text += QLatin1Char(' ') + fit + QLatin1Char(' ')
                           + tr("Drop to open that layout in the repartition editor.");
        }
        break;
    }
}

QString CardMapView::startHintText(const PlacementPreview &p) const
{
    if (p.startsAtMs < 0)
        return {};
    // Not before now, and not after a simulated day's end (it would never come).
    if (m_snapshot
        && (p.startsAtMs <= m_snapshot->nowMs
            || (m_snapshot->endMs >= 0 && p.startsAtMs > m_snapshot->endMs)))
        return {};
    const QTimeZone zone(m_snapshot ? m_snapshot->utcOffsetSeconds : 0);
    const QDateTime at = QDateTime::fromMSecsSinceEpoch(p.startsAtMs, zone);
    const QDateTime now = QDateTime::fromMSecsSinceEpoch(m_snapshot ? m_snapshot->nowMs : 0, zone);
    // Another day: its weekday too.
    const QString time = at.date() == now.date()
                                 ? at.toString(QStringLiteral("HH:mm"))
                                 : QLocale().toString(at, QStringLiteral("ddd HH:mm"));
    if (!p.startsWithWindow.isEmpty())
        return tr("It fits at %1, when ‘%2’ opens.").arg(time, windowNameText(p.startsWithWindow));
    return tr("It could start at about %1, as running work ends.").arg(time);
}

QString CardMapView::layoutHintText(const PlacementPreview &p) const
{
    if (!m_snapshot || !p.layoutCard.isValid()
        || p.layoutCard.value() >= m_snapshot->state.cards().size() || p.layoutTarget.isEmpty())
        return {};
    const Domain::CardModel &model = m_snapshot->state.model(m_snapshot->state.card(p.layoutCard));
    // Profiles as the layout holds them, largest first, each with its count: "3g.71gb + 3×1g.18gb".
    QList<int> order;
    QHash<int, int> counts;
    for (const Domain::MigPlacement &m : p.layoutTarget) {
        if (m.profile < 0 || m.profile >= model.migProfiles.size())
            return {};
        if (counts[m.profile]++ == 0)
            order.append(m.profile);
    }
    std::sort(order.begin(), order.end(), [&](int a, int b) {
        const auto &pa = model.migProfiles[a];
        const auto &pb = model.migProfiles[b];
        return pa.memorySlices != pb.memorySlices ? pa.memorySlices > pb.memorySlices : a < b;
    });
    QStringList parts;
    for (int profile : order) {
        const QString &name = model.migProfiles[profile].name;
        parts << (counts[profile] == 1 ? name
                                       : QStringLiteral("%1×%2").arg(counts[profile]).arg(name));
    }
    const QString layout = parts.join(QStringLiteral(" + "));
    if (p.layoutCard == p.card)
        return tr("It fits here as %1.").arg(layout);
    return tr("It fits on %1 as %2.").arg(cardName(p.layoutCard), layout);
}

bool CardMapView::confirmLayout(const PlacementPreview &p)
{
    const QString hint = layoutHintText(p);
    if (m_confirmLayout)
        return m_confirmLayout(p, hint);
    QMessageBox box(QMessageBox::Question,
                    tr("Open this layout?"),
                    tr("%1 cannot go on %2 as it is laid out: %3")
                            .arg(jobName(p.job), cardName(p.card), reasonText(p.status)),
                    QMessageBox::Cancel,
                    this);
    box.setInformativeText(
            hint + QLatin1Char(' ')
            + tr("The repartition editor opens with that layout planned; nothing changes until "
                 "you apply it there."));
    QPushButton *open = box.addButton(tr("Open this layout"), QMessageBox::AcceptRole);
    box.setDefaultButton(open);
    box.exec();
    return box.clickedButton() == open;
}

void CardMapView::requestPreview(JobId job, CardId card)
{
    if (!m_client || !m_snapshot)
        return;
    const Key key(job.value(), card.value());
    const quint64 serial = m_snapshot->serial;
    for (auto it = m_previewRequests.cbegin(); it != m_previewRequests.cend(); ++it) {
        if (it.value().first == key && it.value().second == serial)
            return; // asked already; the answer is on its way
    }
    m_previewRequests.insert(m_client->previewPlacement(job, card), qMakePair(key, serial));
}

void CardMapView::onPreviewReady(const PlacementPreview &preview)
{
    const Key key(preview.job.value(), preview.card.value());
    const auto it = m_previewRequests.find(preview.request);
    if (it == m_previewRequests.end() || it.value().first != key)
        return; // someone else's question
    const quint64 serial = it.value().second;
    m_previewRequests.erase(it);
    takePreview(preview, serial);
}

void CardMapView::takePreview(const PlacementPreview &preview, quint64 serial)
{
    const Key key(preview.job.value(), preview.card.value());
    const auto old = m_previews.constFind(key);
    if (old == m_previews.cend() || old->serial <= serial)
        m_previews.insert(key, CachedPreview{serial, preview});
    if (m_drag.active && m_drag.job == preview.job && m_drag.card == preview.card) {
        refreshDragState();
        viewport()->update();
    }
    if (m_pendingDrop && *m_pendingDrop == key) {
        m_pendingDrop.reset();
        QMetaObject::invokeMethod(
                this, [this, preview] { actOnDrop(preview); }, Qt::QueuedConnection);
    }
}

bool CardMapView::confirmPreemption(const PreemptionRequest &request)
{
    if (m_confirm)
        return m_confirm(request);
    PreemptionDialog dialog(request, this);
    return dialog.exec() == QDialog::Accepted;
}

void CardMapView::actOnDrop(const PlacementPreview &preview)
{
    if (!m_client)
        return;
    const QString job = jobName(preview.job);
    const QString card = cardName(preview.card);
    switch (preview.outcome) {
    case PlacementPreview::Outcome::Direct:
        issue({PendingCommand::Kind::Place, preview.job, preview.card, false});
        break;
    case PlacementPreview::Outcome::NeedsPreemption: {
        PreemptionRequest request;
        request.preview = preview;
        request.jobName = job;
        request.cardName = card;
        if (confirmPreemption(request)) {
            PendingCommand command{PendingCommand::Kind::Place, preview.job, preview.card, true};
            for (const Sched::Victim &v : preview.victims)
                command.confirmedVictims << v.job.value();
            command.confirmed = true;
            issue(command);
        } else
            Q_EMIT statusMessage(tr("%1 was not placed: preemption declined.").arg(job));
        break;
    }
    case PlacementPreview::Outcome::Refused: {
        if (preview.status.reason != Sched::Reason::ClassBudgetExceeded
            && !layoutHintText(preview).isEmpty()) {
            // It fits after a repartition: offered, never made here.
            if (confirmLayout(preview))
                Q_EMIT layoutProposed(preview.layoutCard, preview.layoutTarget);
            else
                Q_EMIT statusMessage(
                        tr("%1 was not placed: %2").arg(job, reasonText(preview.status)));
            break;
        }
        if (preview.overBudget == PlacementPreview::Outcome::Refused) {
            Q_EMIT statusMessage(
                    tr("%1 cannot go on %2: %3").arg(job, card, reasonText(preview.status)));
            break;
        }
        // Over its class's budget, the operator may place it anyway: asked first.
        PreemptionRequest request;
        request.preview = preview;
        request.jobName = job;
        request.cardName = card;
        request.overBudget = true;
        if (!confirmPreemption(request)) {
            Q_EMIT statusMessage(tr("%1 was not placed: over its class budget.").arg(job));
            break;
        }
        PendingCommand command{PendingCommand::Kind::Place,
                               preview.job,
                               preview.card,
                               preview.overBudget == PlacementPreview::Outcome::NeedsPreemption};
        for (const Sched::Victim &v : preview.overBudgetVictims)
            command.confirmedVictims << v.job.value();
        command.confirmed = true;
        command.overBudget = true;
        issue(command);
        break;
    }
    }
}

void CardMapView::issue(const PendingCommand &command)
{
    if (!m_client)
        return;
    const quint64 request
            = command.kind == PendingCommand::Kind::UndoRequeue ? m_client->requeueJob(command.job)
              : command.confirmed
                      ? m_client->placeJobConfirmed(command.job,
                                                    command.card,
                                                    command.confirmedVictims,
                                                    command.overBudget ? Sched::BudgetRule::Exceed
                                                                       : Sched::BudgetRule::Keep)
                      : m_client->placeJob(command.job, command.card, command.allowPreemption);
    m_commands.insert(request, command);
}

void CardMapView::onCommandFinished(const Session::CommandResult &result)
{
    const auto it = m_commands.find(result.request);
    if (it == m_commands.end())
        return; // someone else's command
    const PendingCommand command = it.value();
    m_commands.erase(it);
    finishCommand(command, result);
}

void CardMapView::finishCommand(const PendingCommand &command, const Session::CommandResult &result)
{
    const QString job = jobName(command.job);
    const QString card = cardName(command.card);
    switch (command.kind) {
    case PendingCommand::Kind::Place:
    case PendingCommand::Kind::RedoPlace:
        if (result.ok) {
            if (command.kind == PendingCommand::Kind::Place && m_undoStack) {
                m_undoStack->push(new PlacementCommand(this,
                                                       command.job,
                                                       command.card,
                                                       command.allowPreemption,
                                                       command.overBudget,
                                                       tr("Place %1 on %2").arg(job, card)));
            }
            Q_EMIT jobPlaced(command.job, command.card, command.allowPreemption);
            Q_EMIT statusMessage(
                    command.allowPreemption
                            ? tr("%1 goes on %2 once the preempted jobs have left.").arg(job, card)
                    : command.overBudget
                            ? tr("Placed %1 on %2, over its class budget.").arg(job, card)
                            : tr("Placed %1 on %2.").arg(job, card));
        } else if (result.planChanged) {
            // What was confirmed is not what would run now: a fresh preview, and the question
            // again with it (or the placement, when nobody need leave any more).
            Q_EMIT statusMessage(tr("The appliance changed since you confirmed placing %1 on %2: "
                                    "asking again.")
                                         .arg(job, card));
            const Key key(command.job.value(), command.card.value());
            m_previews.remove(key);
            m_pendingDrop = key;
            m_previewRequests.insert(m_client->previewPlacement(command.job, command.card),
                                     qMakePair(key, m_snapshot ? m_snapshot->serial : 0));
        } else {
            // A failure without a reason: the job was no longer waiting, or is gone.
            const Sched::Status why = result.status.isSuccess()
                                              ? Sched::Status::error(Sched::Reason::None)
                                              : result.status;
            Q_EMIT statusMessage(
                    tr("Could not place %1 on %2: %3").arg(job, card, reasonText(why)));
        }
        break;
    case PendingCommand::Kind::UndoRequeue:
        Q_EMIT statusMessage(
                result.ok ? tr("%1 went back to the queue.").arg(job)
                          : tr("Could not take %1 back to the queue: it is not running.").arg(job));
        break;
    }
}

} // namespace Zhaoxi::Widgets
