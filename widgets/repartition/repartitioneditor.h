// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <functional>

#include "layoutedit.h"

#include "core/domain/ids.h"
#include "core/session/session.h"

#include <QWidget>

class QAction;
class QButtonGroup;
class QComboBox;
class QGroupBox;
class QCheckBox;
class QLabel;
class QListWidget;
class QPushButton;
class QRadioButton;
class QSpinBox;
class QSplitter;
class QToolButton;
class QUndoStack;

namespace Zhaoxi::Models {
class SessionClient;
}

namespace Zhaoxi::Widgets {

class LayoutStrip;
class ProfilePalette;

// Visual repartitioning of one MIG card. Shows the card's memory slots with the layout it has
// now and a planned layout the operator edits: drag a profile from the palette onto free slots,
// remove, split or merge instances, or pick a preset (the model's maximal layouts of its common
// profiles, "empty" or "current"). The planned layout is always valid: an edit the layout rules
// refuse is not made, and the status line says why. Every edit is a command on the editor's own
// undo stack.
//
// The pending change is shown as a plan: the steps in the order the appliance carries them out
// (destroys first, then creates, larger first), the jobs it affects and the expected time (the
// session's LayoutPreview). Apply sends it with a mode (immediate, or drain with a deadline);
// the answer shows in the status line, the undo stack is cleared once it is applied, and the strip
// follows the card through later snapshots until it has the planned layout.
//
// Talks only to the SessionClient (snapshots, previewLayout, applyLayout). A card that is not in
// MIG mode or has failed cannot be edited; a read-only snapshot disables Apply (with the reason).
// GUI thread only.
class RepartitionEditor : public QWidget
{
    Q_OBJECT

public:
    explicit RepartitionEditor(Models::SessionClient *client, QWidget *parent = nullptr);
    ~RepartitionEditor() override;

    // The card to edit (invalid: none). Starts the planned layout from the card's current one
    // and clears the undo stack.
    void setCard(Domain::CardId card);
    Domain::CardId card() const { return m_card; }

    // The planned layout (sorted by start) and the card's current one.
    const LayoutEdit::Layout &pendingLayout() const { return m_pending; }
    LayoutEdit::Layout currentLayout() const;
    // Whether the card can be edited now (a healthy MIG card, no change being applied).
    bool isEditable() const;
    // Whether Apply would send the planned layout now; applyBlockedReason() says why not.
    bool canApply() const;
    QString applyBlockedReason() const;
    // Why the appliance could not plan the pending layout, in the console's words.
    QString previewProblemText() const;
    // Why the appliance refused something about `layout`, in the console's words.
    QString refusalText(const Domain::Problem &problem,
                        const Sched::Status &status,
                        const LayoutEdit::Layout &layout) const;
    // The status line: the last edit's refusal, the apply's answer, the progress of a change.
    QString statusText() const;

    QUndoStack *undoStack() const { return m_undoStack; }
    // Undo and Redo for the main window's menus or toolbar (shortcuts active within the editor).
    QAction *undoAction() const { return m_undoAction; }
    QAction *redoAction() const { return m_redoAction; }

    LayoutStrip *strip() const { return m_strip; }
    ProfilePalette *profilePalette() const { return m_palette; }

    // --- Edits: each is one undoable command; false (and the reason in the status line) when
    // refused. Indexes are into pendingLayout().
    // A profile dropped over memory slot `slot`: placed at the nearest legal start whose span
    // covers the slot (what a drop on the strip does).
    bool dropProfile(int profile, int slot);
    // Exactly this placement.
    bool addPlacement(Domain::MigPlacement placement);
    // The profile at its first free start (what double-clicking it in the palette does).
    bool addProfile(int profile);
    bool removePlacement(int index);
    bool splitPlacement(int index);
    bool mergePlacements(int a, int b);
    // The selected instances on the strip (remove: all of them; split: one; merge: two).
    bool removeSelected();
    bool splitSelected();
    bool mergeSelected();
    // Presets as listed in the combo box: "Current layout", "Empty", then the maximal layouts.
    QStringList presetNames() const;
    bool choosePreset(int index);
    bool choosePreset(const QString &name);
    // A whole layout proposed from elsewhere (a refused drop's "fits here as 3g + 3×1g"), as one
    // undoable edit described by `why` ("layout for train-7"); refused like any edit.
    bool proposeLayout(const LayoutEdit::Layout &layout, const QString &why = {});

    // --- Apply.
    void setApplyMode(Session::ApplyMode mode, int drainDeadlineMinutes = 30);
    Session::ApplyMode applyMode() const;
    int drainDeadlineMinutes() const;
    // Sends the planned layout (what the Apply button does); false when canApply() is false.
    bool apply();
    // Asked before every apply on real hardware (and before an immediate apply that evicts jobs
    // in a simulation); returns true to go ahead. Null: a question box listing the steps and the
    // affected jobs. Tests replace it.
    using ConfirmApply = std::function<bool(const QStringList &steps, const QStringList &jobs)>;
    void setApplyConfirmation(ConfirmApply confirm) { m_confirm = std::move(confirm); }
    // A change sent and not yet answered (a drain waits for its jobs).
    bool isApplying() const { return m_applyPending; }
    // "Pin this layout": Apply pins the card's layout (until unpinned) before it changes it, so
    // that the scheduler cannot undo the change the moment it is made; a refused apply takes
    // the pin back. A card already pinned stays pinned.
    void setPinAfterApply(bool pin);
    bool pinAfterApply() const;
    // Unpins the chosen card (the "Unpin" button); false when it is not pinned or read-only.
    bool unpin();

    // The plan as shown: steps ("destroy 3g.71gb@0", "create 1g.18gb@4"), affected jobs' names
    // (from the session's preview) and its time ("about 14 s"; empty before the preview arrives).
    QStringList planSteps() const;
    QStringList affectedJobNames() const;
    QString expectedTimeText() const;

Q_SIGNALS:
    // The appliance accepted and carried out a change of `card`'s layout from this editor.
    void layoutApplied(Domain::CardId card);
    void pendingLayoutChanged(const QList<Domain::MigPlacement> &layout);

protected:
    void changeEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    friend class LayoutCommand;

    void onSnapshot();
    void onLayoutPreview(const Session::LayoutPreview &preview);
    void onCommandFinished(const Session::CommandResult &result);
    void handleApplyResult(const Session::CommandResult &result);
    // Sets the planned layout (from a command's redo/undo).
    void setPending(const LayoutEdit::Layout &layout);
    bool pushEdit(const LayoutEdit::Layout &layout, const QString &text);
    bool refuse(const QString &reason);
    // Refuses an edit while the card cannot be edited, saying why.
    bool refuseLocked();
    void setStatus(const QString &text, bool problem);
    // The chosen card's state in the latest snapshot (nullptr: none).
    const Sched::CardState *cardState() const;
    // Whether the chosen card is a MIG card in MIG mode (m_model is its model).
    bool hasModel() const { return m_model.supportsMig(); }
    // Whether any of the card's instances is being created or destroyed.
    bool unitsChanging() const;
    QString cardBlockedReason() const;
    void requestPreview();
    void rebuildPresets();
    void refreshAll();
    void refreshPlan();
    void refreshControls();
    void refreshTitle();
    void updateUndoActions();
    void fitPalette();
    void retranslateUi();

    Models::SessionClient *m_client = nullptr;
    Domain::CardId m_card;
    Session::SnapshotPtr m_snapshot;
    QList<LayoutEdit::CurrentUnit> m_units;
    LayoutEdit::Layout m_pending;
    LayoutEdit::Layout m_followed; // the current layout the planned one last followed
    // A copy of the card's model: the palette and the strip keep pointers to it, and snapshots
    // come and go.
    // Empty (no MIG profiles) unless the card is a MIG card in MIG mode: see hasModel().
    Domain::CardModel m_model;
    int m_modelIndex = -1;
    QList<LayoutEdit::Preset> m_presets;

    Session::LayoutPreview m_preview; // the latest one for m_pending (ok false: none yet)
    bool m_previewValid = false;
    quint64 m_previewRequest = 0; // the latest preview asked for; older answers are stale

    bool m_applyPending = false;
    quint64 m_applyRequest = 0;
    quint64 m_pinRequest = 0;      // a pin or unpin sent from here, not yet answered
    bool m_pinnedForApply = false; // the pending apply pinned the card first
    ConfirmApply m_confirm;
    LayoutEdit::Layout m_applyTarget;
    bool m_watching = false;   // following the card until it has m_applyTarget
    quint64 m_watchSerial = 0; // the snapshot the applied change was answered on

    QString m_status;

    QUndoStack *m_undoStack = nullptr;
    QAction *m_undoAction = nullptr;
    QAction *m_redoAction = nullptr;

    QCheckBox *m_pinCheck = nullptr;
    QLabel *m_pinState = nullptr;
    QPushButton *m_unpinButton = nullptr;
    QLabel *m_title = nullptr;
    QLabel *m_banner = nullptr;
    ProfilePalette *m_palette = nullptr;
    QLabel *m_paletteHint = nullptr;
    QSplitter *m_splitter = nullptr;
    bool m_shownOnce = false;
    LayoutStrip *m_strip = nullptr;
    QToolButton *m_undoButton = nullptr;
    QToolButton *m_redoButton = nullptr;
    QPushButton *m_removeButton = nullptr;
    QPushButton *m_splitButton = nullptr;
    QPushButton *m_mergeButton = nullptr;
    QLabel *m_presetLabel = nullptr;
    QComboBox *m_presetCombo = nullptr;
    QLabel *m_statusLabel = nullptr;
    QGroupBox *m_planBox = nullptr;
    QLabel *m_planSummary = nullptr;
    QListWidget *m_stepList = nullptr;
    QLabel *m_affectedLabel = nullptr;
    QLabel *m_timeLabel = nullptr;
    QGroupBox *m_applyBox = nullptr;
    QRadioButton *m_immediateRadio = nullptr;
    QRadioButton *m_drainRadio = nullptr;
    QButtonGroup *m_modeGroup = nullptr;
    QLabel *m_deadlineLabel = nullptr;
    QSpinBox *m_deadlineSpin = nullptr;
    QPushButton *m_applyButton = nullptr;
    QLabel *m_applyReason = nullptr;
};

} // namespace Zhaoxi::Widgets
