// SPDX-License-Identifier: GPL-3.0-or-later
// RepartitionEditor: the edits of the planned layout (drops, splits, merges, presets; each one
// undoable) and applying the plan to the card. The rest of the editor is in
// repartitioneditor.cpp.
#include "repartitioneditor.h"

#include "widgets/cardmap/commandtext.h"

#include "layoutstrip.h"
#include "profilepalette.h"
#include "repartitiontext.h"

#include "core/models/sessionclient.h"

#include <QAction>
#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QEvent>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTimeZone>
#include <QToolButton>
#include <QUndoCommand>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace Zhaoxi::Widgets {

using Domain::MigPlacement;
using LayoutEdit::Layout;
using Session::ApplyMode;

// One edit of the planned layout: the whole layout before and after, so undo and redo are exact
// whatever came between.
class LayoutCommand : public QUndoCommand
{
public:
    LayoutCommand(RepartitionEditor *editor, Layout before, Layout after, const QString &text)
        : QUndoCommand(text)
        , m_editor(editor)
        , m_before(std::move(before))
        , m_after(std::move(after))
    {}
    void redo() override { m_editor->setPending(m_after); }
    void undo() override { m_editor->setPending(m_before); }

private:
    RepartitionEditor *m_editor;
    Layout m_before;
    Layout m_after;
};

namespace {

QString placements(const Domain::CardModel &model, const Layout &layout, const QString &separator)
{
    QStringList parts;
    for (MigPlacement p : layout)
        parts << Catalogue::formatPlacement(model, p);
    return parts.join(separator);
}

} // namespace

void RepartitionEditor::setPending(const Layout &layout)
{
    m_pending = LayoutEdit::sorted(layout);
    refreshAll();
    requestPreview();
    Q_EMIT pendingLayoutChanged(m_pending);
}

bool RepartitionEditor::refuseLocked()
{
    return refuse(m_applyPending ? tr("Wait until the change being applied is done.")
                                 : cardBlockedReason());
}

bool RepartitionEditor::pushEdit(const Layout &layout, const QString &text)
{
    if (!isEditable())
        return refuseLocked();
    const Layout target = LayoutEdit::sorted(layout);
    const Catalogue::LayoutVerdict v = Catalogue::validateLayout(m_model, target);
    if (!v.isValid())
        return refuse(RepartitionText::problem(m_model, target, v));
    if (LayoutEdit::sameLayout(target, m_pending)) {
        setStatus(tr("The planned layout already is that."), false);
        return true;
    }
    m_undoStack->push(new LayoutCommand(this, m_pending, target, text));
    setStatus(tr("Planned: %1.").arg(text), false);
    return true;
}

bool RepartitionEditor::dropProfile(int profile, int slot)
{
    if (!isEditable())
        return refuseLocked();
    if (profile < 0 || profile >= m_model.migProfiles.size())
        return refuse(RepartitionText::problem(
                m_model,
                Layout{MigPlacement{profile, slot}},
                Catalogue::canAdd(m_model, {}, MigPlacement{profile, slot})));
    const LayoutEdit::DropTarget t = LayoutEdit::dropTarget(m_model, m_pending, profile, slot);
    if (!t.isLegal()) {
        Layout with = m_pending;
        with.append(t.candidate);
        return refuse(RepartitionText::problem(m_model, with, t.verdict));
    }
    Layout next = m_pending;
    next.append(t.candidate);
    return pushEdit(next, tr("add %1").arg(Catalogue::formatPlacement(m_model, t.candidate)));
}

bool RepartitionEditor::addPlacement(MigPlacement placement)
{
    if (!isEditable())
        return refuseLocked();
    const Catalogue::LayoutVerdict v = Catalogue::canAdd(m_model, m_pending, placement);
    Layout next = m_pending;
    next.append(placement);
    if (!v.isValid())
        return refuse(RepartitionText::problem(m_model, next, v));
    return pushEdit(next, tr("add %1").arg(Catalogue::formatPlacement(m_model, placement)));
}

bool RepartitionEditor::addProfile(int profile)
{
    if (!isEditable())
        return refuseLocked();
    const LayoutEdit::EditResult r = LayoutEdit::addAtFirstFreeStart(m_model, m_pending, profile);
    if (!r.isOk())
        return refuse(RepartitionText::editProblem(m_model, {}, r));
    return pushEdit(r.layout, tr("add %1").arg(Catalogue::formatPlacement(m_model, r.added)));
}

bool RepartitionEditor::removePlacement(int index)
{
    if (!isEditable())
        return refuseLocked();
    if (index < 0 || index >= m_pending.size())
        return refuse(tr("Select an instance on the planned row first."));
    Layout next = m_pending;
    next.removeAt(index);
    return pushEdit(next,
                    tr("remove %1").arg(Catalogue::formatPlacement(m_model, m_pending[index])));
}

bool RepartitionEditor::splitPlacement(int index)
{
    if (!isEditable())
        return refuseLocked();
    if (index < 0 || index >= m_pending.size())
        return refuse(tr("Select one instance on the planned row to split."));
    const LayoutEdit::EditResult r = LayoutEdit::split(m_model, m_pending, index);
    if (!r.isOk())
        return refuse(RepartitionText::editProblem(m_model, {m_pending[index]}, r));
    return pushEdit(r.layout,
                    tr("split %1").arg(Catalogue::formatPlacement(m_model, m_pending[index])));
}

bool RepartitionEditor::mergePlacements(int a, int b)
{
    if (!isEditable())
        return refuseLocked();
    if (a < 0 || b < 0 || a >= m_pending.size() || b >= m_pending.size() || a == b)
        return refuse(tr("Select two instances side by side to merge (Ctrl+click the second)."));
    const LayoutEdit::EditResult r = LayoutEdit::merge(m_model, m_pending, a, b);
    Layout subject{m_pending[a], m_pending[b]};
    subject = LayoutEdit::sorted(subject);
    if (!r.isOk())
        return refuse(RepartitionText::editProblem(m_model, subject, r));
    return pushEdit(r.layout,
                    tr("merge %1 and %2")
                            .arg(Catalogue::formatPlacement(m_model, subject[0]),
                                 Catalogue::formatPlacement(m_model, subject[1])));
}

bool RepartitionEditor::removeSelected()
{
    QList<int> selection = m_strip->selection();
    if (selection.isEmpty())
        return refuse(tr("Select an instance on the planned row first."));
    if (selection.size() == 1)
        return removePlacement(selection.first());
    if (!isEditable())
        return refuseLocked();
    std::sort(selection.begin(), selection.end());
    Layout removed, next = m_pending;
    for (auto it = selection.crbegin(); it != selection.crend(); ++it) {
        removed.prepend(m_pending[*it]);
        next.removeAt(*it);
    }
    return pushEdit(next, tr("remove %1").arg(placements(m_model, removed, tr(", "))));
}

bool RepartitionEditor::splitSelected()
{
    const QList<int> selection = m_strip->selection();
    if (selection.size() != 1)
        return refuse(tr("Select one instance on the planned row to split."));
    return splitPlacement(selection.first());
}

bool RepartitionEditor::mergeSelected()
{
    const QList<int> selection = m_strip->selection();
    if (selection.size() != 2)
        return refuse(tr("Select two instances side by side to merge (Ctrl+click the second)."));
    return mergePlacements(selection[0], selection[1]);
}

void RepartitionEditor::rebuildPresets()
{
    m_presets = hasModel() ? LayoutEdit::maximalPresets(m_model) : QList<LayoutEdit::Preset>();
    m_presetCombo->clear();
    m_presetCombo->addItem(tr("Choose a layout\u2026"));
    const QStringList names = presetNames();
    for (int i = 0; i < names.size(); ++i) {
        m_presetCombo->addItem(names[i]);
        if (i >= 2)
            m_presetCombo->setItemData(i + 1,
                                       LayoutEdit::placementList(m_model, m_presets[i - 2].layout),
                                       Qt::ToolTipRole);
    }
    m_presetCombo->setCurrentIndex(0);
}

QStringList RepartitionEditor::presetNames() const
{
    QStringList names{tr("Current layout"), tr("Empty")};
    for (const LayoutEdit::Preset &p : m_presets)
        names << p.name;
    return names;
}

bool RepartitionEditor::choosePreset(int index)
{
    if (!isEditable())
        return refuseLocked();
    if (index == 0)
        return pushEdit(currentLayout(), tr("preset: current layout"));
    if (index == 1)
        return pushEdit({}, tr("preset: empty"));
    if (index - 2 < 0 || index - 2 >= m_presets.size())
        return refuse(tr("There is no such preset."));
    const LayoutEdit::Preset &p = m_presets[index - 2];
    return pushEdit(p.layout, tr("preset %1").arg(p.name));
}

bool RepartitionEditor::choosePreset(const QString &name)
{
    const int index = int(presetNames().indexOf(name));
    if (index < 0)
        return refuse(tr("There is no preset named \u201C%1\u201D.").arg(name));
    return choosePreset(index);
}

bool RepartitionEditor::proposeLayout(const Layout &layout, const QString &why)
{
    return pushEdit(layout, why.isEmpty() ? tr("proposed layout") : why);
}

// --- Apply -------------------------------------------------------------------------------------

void RepartitionEditor::setApplyMode(ApplyMode mode, int drainDeadlineMinutes)
{
    (mode == ApplyMode::Immediate ? m_immediateRadio : m_drainRadio)->setChecked(true);
    m_deadlineSpin->setValue(drainDeadlineMinutes);
    refreshControls();
}

ApplyMode RepartitionEditor::applyMode() const
{
    return m_immediateRadio->isChecked() ? ApplyMode::Immediate : ApplyMode::Drain;
}

int RepartitionEditor::drainDeadlineMinutes() const
{
    return m_deadlineSpin->value();
}

bool RepartitionEditor::apply()
{
    const QString blocked = applyBlockedReason();
    if (!blocked.isEmpty())
        return refuse(blocked);
    const ApplyMode mode = applyMode();
    const qint64 deadlineMs = qint64(m_deadlineSpin->value()) * 60'000;
    const bool real = m_snapshot && !m_snapshot->simulated;
    if (real || (mode == ApplyMode::Immediate && !affectedJobNames().isEmpty())) {
        const QStringList steps = planSteps();
        const QStringList affected = affectedJobNames();
        bool go = false;
        if (m_confirm) {
            go = m_confirm(steps, affected);
        } else {
            QString text = real ? tr("Apply this layout to the real card now?")
                                : tr("Apply this layout now?");
            text += QStringLiteral("\n\n") + steps.join(QLatin1Char('\n'));
            if (!affected.isEmpty())
                text += QStringLiteral("\n\n")
                        + tr("These jobs go back to the queue and lose the work since their last "
                             "checkpoint: %1")
                                  .arg(QLocale().createSeparatedList(affected));
            go = QMessageBox::question(this, tr("Apply the layout"), text) == QMessageBox::Yes;
        }
        if (!go)
            return refuse(tr("Not applied."));
    }
    m_applyTarget = m_pending;
    m_applyPending = true;
    const QStringList jobs = affectedJobNames();
    const qint64 sentAtMs = m_snapshot ? m_snapshot->nowMs : 0;
    const int utcOffset = m_snapshot ? m_snapshot->utcOffsetSeconds : 0;
    setStatus(tr("Applying the planned layout\u2026"), false);
    refreshControls();
    // Pinned first: the cycle that follows the change cannot then undo it.
    const Sched::CardState *card = cardState();
    m_pinnedForApply = m_pinCheck->isChecked() && card && card->layoutPinnedUntilMs == 0;
    if (m_pinnedForApply)
        m_pinRequest = m_client->pinLayout(m_card, -1);
    m_applyRequest = m_client->applyLayout(m_card, m_pending, mode, deadlineMs);
    if (mode == ApplyMode::Drain && !jobs.isEmpty()) {
        const QDateTime at
                = QDateTime::fromMSecsSinceEpoch(sentAtMs + deadlineMs, QTimeZone(utcOffset));
        setStatus(tr("Draining: waiting for %1 to leave at a checkpoint; at %2 at the latest the "
                     "rest leave at once.")
                          .arg(jobs.join(tr(", ")),
                               QLocale().toString(at.time(), QLocale::ShortFormat)),
                  false);
    }
    refreshControls();
    return true;
}

void RepartitionEditor::onCommandFinished(const Session::CommandResult &result)
{
    if (m_pinRequest != 0 && result.request == m_pinRequest) {
        m_pinRequest = 0;
        if (!result.ok)
            setStatus(tr("The layout could not be pinned: %1")
                              .arg(problemText(Session::problemOf(result), result.status)),
                      true);
        refreshControls();
        return;
    }
    if (!m_applyPending || result.request != m_applyRequest)
        return;
    handleApplyResult(result);
}

void RepartitionEditor::setPinAfterApply(bool pin)
{
    m_pinCheck->setChecked(pin);
}

bool RepartitionEditor::pinAfterApply() const
{
    return m_pinCheck->isChecked();
}

bool RepartitionEditor::unpin()
{
    const Sched::CardState *card = cardState();
    if (!m_client || !card || card->layoutPinnedUntilMs == 0 || !m_snapshot || m_snapshot->readOnly
        || m_pinRequest != 0)
        return false;
    m_pinRequest = m_client->pinLayout(m_card, 0);
    setStatus(tr("Unpinned: the scheduler may change this card's layout again."), false);
    refreshControls();
    return true;
}

void RepartitionEditor::handleApplyResult(const Session::CommandResult &result)
{
    m_applyPending = false;
    m_applyRequest = 0;
    const bool pinned = std::exchange(m_pinnedForApply, false);
    if (!result.ok) {
        if (pinned && m_client) // the pin was for this change: taken back with it
            m_client->pinLayout(m_card, 0);
        setStatus(tr("The appliance refused the change: %1")
                          .arg(refusalText(Session::problemOf(result), result.status, m_pending)),
                  true);
        refreshAll();
        return;
    }
    // Applied edits are history, not something to undo.
    m_undoStack->clear();
    m_watching = true;
    m_watchSerial = m_snapshot ? m_snapshot->serial : 0;
    setStatus(tr("Applied: the card is being repartitioned\u2026"), false);
    refreshAll();
    Q_EMIT layoutApplied(m_card);
    // Already there (nothing to wait for)?
    if (!unitsChanging() && LayoutEdit::sameLayout(currentLayout(), m_applyTarget)) {
        m_watching = false;
        m_followed = m_pending;
        setStatus(tr("Done: the card has the planned layout now."), false);
    }
}

} // namespace Zhaoxi::Widgets
