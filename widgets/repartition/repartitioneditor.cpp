// SPDX-License-Identifier: GPL-3.0-or-later
// RepartitionEditor: its widgets, the card it edits as snapshots come, and the plan shown (the
// edits and applying them are in repartitioneditoredits.cpp).
#include "repartitioneditor.h"

#include "widgets/cardmap/commandtext.h"
#include "widgets/cardmap/reasontext.h"

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

namespace Zhaoxi::Widgets {

using Domain::MigPlacement;
using LayoutEdit::Layout;
using Session::ApplyMode;

namespace {

QString modeName(Domain::PartitionMode mode)
{
    switch (mode) {
    case Domain::PartitionMode::Whole:
        return RepartitionEditor::tr("whole-card");
    case Domain::PartitionMode::Mig:
        return RepartitionEditor::tr("MIG");
    case Domain::PartitionMode::TimeSlicing:
        return RepartitionEditor::tr("time-slicing");
    case Domain::PartitionMode::Mps:
        return RepartitionEditor::tr("MPS");
    }
    return QString();
}

} // namespace

RepartitionEditor::RepartitionEditor(Models::SessionClient *client, QWidget *parent)
    : QWidget(parent)
    , m_client(client)
    , m_undoStack(new QUndoStack(this))
    , m_undoAction(new QAction(this))
    , m_redoAction(new QAction(this))
    , m_title(new QLabel(this))
    , m_banner(new QLabel(this))
    , m_palette(new ProfilePalette(this))
    , m_paletteHint(new QLabel(this))
    , m_strip(new LayoutStrip(this))
    , m_undoButton(new QToolButton(this))
    , m_redoButton(new QToolButton(this))
    , m_removeButton(new QPushButton(this))
    , m_splitButton(new QPushButton(this))
    , m_mergeButton(new QPushButton(this))
    , m_presetLabel(new QLabel(this))
    , m_presetCombo(new QComboBox(this))
    , m_statusLabel(new QLabel(this))
    , m_planBox(new QGroupBox(this))
    , m_planSummary(new QLabel(this))
    , m_stepList(new QListWidget(this))
    , m_affectedLabel(new QLabel(this))
    , m_timeLabel(new QLabel(this))
    , m_applyBox(new QGroupBox(this))
    , m_immediateRadio(new QRadioButton(this))
    , m_drainRadio(new QRadioButton(this))
    , m_modeGroup(new QButtonGroup(this))
    , m_deadlineLabel(new QLabel(this))
    , m_deadlineSpin(new QSpinBox(this))
    , m_applyButton(new QPushButton(this))
    , m_applyReason(new QLabel(this))
{
    m_pinCheck = new QCheckBox(this);
    m_pinCheck->setObjectName(QStringLiteral("pinAfterApply"));
    m_pinState = new QLabel(this);
    m_pinState->setObjectName(QStringLiteral("pinState"));
    m_pinState->setWordWrap(true);
    m_unpinButton = new QPushButton(this);
    m_unpinButton->setObjectName(QStringLiteral("unpinButton"));
    setObjectName(QStringLiteral("repartitionEditor"));
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.15);
    m_title->setFont(titleFont);
    m_title->setObjectName(QStringLiteral("repartitionTitle"));
    m_banner->setObjectName(QStringLiteral("repartitionBanner"));
    m_banner->setWordWrap(true);
    m_banner->setFrameShape(QFrame::StyledPanel);
    m_banner->setMargin(6);
    m_banner->hide();
    m_paletteHint->setWordWrap(true);
    m_statusLabel->setObjectName(QStringLiteral("repartitionStatus"));
    m_statusLabel->setWordWrap(true);
    m_statusLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_planSummary->setObjectName(QStringLiteral("planSummary"));
    m_planSummary->setWordWrap(true);
    m_stepList->setObjectName(QStringLiteral("planSteps"));
    m_stepList->setSelectionMode(QAbstractItemView::NoSelection);
    m_affectedLabel->setObjectName(QStringLiteral("planAffectedJobs"));
    m_affectedLabel->setWordWrap(true);
    m_timeLabel->setObjectName(QStringLiteral("planExpectedTime"));
    m_applyReason->setObjectName(QStringLiteral("applyReason"));
    m_applyReason->setWordWrap(true);
    m_applyButton->setObjectName(QStringLiteral("applyButton"));
    m_immediateRadio->setObjectName(QStringLiteral("applyImmediate"));
    m_drainRadio->setObjectName(QStringLiteral("applyDrain"));
    m_deadlineSpin->setObjectName(QStringLiteral("drainDeadline"));
    m_deadlineSpin->setRange(1, 24 * 60);
    m_deadlineSpin->setValue(30);
    m_presetCombo->setObjectName(QStringLiteral("presetCombo"));
    m_presetCombo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_presetCombo->setMinimumContentsLength(26);
    m_removeButton->setObjectName(QStringLiteral("removeButton"));
    m_splitButton->setObjectName(QStringLiteral("splitButton"));
    m_mergeButton->setObjectName(QStringLiteral("mergeButton"));
    m_modeGroup->addButton(m_immediateRadio, int(ApplyMode::Immediate));
    m_modeGroup->addButton(m_drainRadio, int(ApplyMode::Drain));
    m_drainRadio->setChecked(true);

    m_undoAction->setObjectName(QStringLiteral("repartitionUndo"));
    m_redoAction->setObjectName(QStringLiteral("repartitionRedo"));
    m_undoAction->setShortcut(QKeySequence::Undo);
    m_redoAction->setShortcut(QKeySequence::Redo);
    m_undoAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_redoAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(m_undoAction);
    addAction(m_redoAction);
    m_undoButton->setDefaultAction(m_undoAction);
    m_redoButton->setDefaultAction(m_redoAction);
    m_undoButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_redoButton->setToolButtonStyle(Qt::ToolButtonTextOnly);

    // Layout.
    auto *top = new QHBoxLayout;
    top->addWidget(m_title, 1);
    top->addWidget(m_undoButton);
    top->addWidget(m_redoButton);

    auto *paletteBox = new QWidget(this);
    auto *paletteLayout = new QVBoxLayout(paletteBox);
    paletteLayout->setContentsMargins(0, 0, 0, 0);
    paletteLayout->addWidget(m_paletteHint);
    paletteLayout->addWidget(m_palette, 1);

    auto *stripBox = new QWidget(this);
    auto *stripLayout = new QVBoxLayout(stripBox);
    stripLayout->setContentsMargins(0, 0, 0, 0);
    stripLayout->addWidget(m_strip);
    auto *editRow = new QHBoxLayout;
    editRow->addWidget(m_removeButton);
    editRow->addWidget(m_splitButton);
    editRow->addWidget(m_mergeButton);
    editRow->addStretch(1);
    editRow->addWidget(m_presetLabel);
    editRow->addWidget(m_presetCombo);
    stripLayout->addLayout(editRow);
    stripLayout->addWidget(m_statusLabel);
    stripLayout->addStretch(1);

    m_splitter = new QSplitter(Qt::Horizontal, this);
    m_splitter->addWidget(paletteBox);
    m_splitter->addWidget(stripBox);
    m_splitter->setStretchFactor(0, 0);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setChildrenCollapsible(false);

    auto *planLayout = new QVBoxLayout(m_planBox);
    planLayout->addWidget(m_planSummary);
    planLayout->addWidget(m_stepList, 1);
    planLayout->addWidget(m_affectedLabel);
    planLayout->addWidget(m_timeLabel);

    auto *applyLayout = new QVBoxLayout(m_applyBox);
    applyLayout->addWidget(m_immediateRadio);
    applyLayout->addWidget(m_drainRadio);
    auto *deadlineRow = new QHBoxLayout;
    deadlineRow->addSpacing(20);
    deadlineRow->addWidget(m_deadlineLabel);
    deadlineRow->addWidget(m_deadlineSpin);
    deadlineRow->addStretch(1);
    applyLayout->addLayout(deadlineRow);
    applyLayout->addWidget(m_applyReason);
    applyLayout->addWidget(m_pinCheck);
    auto *pinRow = new QHBoxLayout;
    pinRow->addWidget(m_pinState, 1);
    pinRow->addWidget(m_unpinButton);
    applyLayout->addLayout(pinRow);
    applyLayout->addStretch(1);
    applyLayout->addWidget(m_applyButton, 0, Qt::AlignRight);
    m_deadlineLabel->setBuddy(m_deadlineSpin);

    auto *bottom = new QHBoxLayout;
    bottom->addWidget(m_planBox, 3);
    bottom->addWidget(m_applyBox, 2);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_banner);
    layout->addWidget(m_splitter, 1);
    layout->addLayout(bottom);

    // Wiring.
    connect(m_undoAction, &QAction::triggered, this, [this] {
        if (isEditable())
            m_undoStack->undo();
    });
    connect(m_redoAction, &QAction::triggered, this, [this] {
        if (isEditable())
            m_undoStack->redo();
    });
    connect(m_undoStack, &QUndoStack::indexChanged, this, &RepartitionEditor::updateUndoActions);
    connect(m_undoStack, &QUndoStack::cleanChanged, this, &RepartitionEditor::updateUndoActions);
    connect(m_strip, &LayoutStrip::profileDropped, this, &RepartitionEditor::dropProfile);
    connect(m_strip, &LayoutStrip::selectionChanged, this, &RepartitionEditor::refreshControls);
    connect(m_strip, &LayoutStrip::removeRequested, this, &RepartitionEditor::removeSelected);
    connect(m_palette, &ProfilePalette::profileActivated, this, &RepartitionEditor::addProfile);
    connect(m_removeButton, &QPushButton::clicked, this, &RepartitionEditor::removeSelected);
    connect(m_splitButton, &QPushButton::clicked, this, &RepartitionEditor::splitSelected);
    connect(m_mergeButton, &QPushButton::clicked, this, &RepartitionEditor::mergeSelected);
    connect(m_presetCombo, &QComboBox::activated, this, [this](int index) {
        if (index > 0)
            choosePreset(index - 1);
        m_presetCombo->setCurrentIndex(0);
    });
    connect(m_modeGroup, &QButtonGroup::idToggled, this, [this](int, bool) { refreshControls(); });
    connect(m_applyButton, &QPushButton::clicked, this, &RepartitionEditor::apply);
    connect(m_unpinButton, &QPushButton::clicked, this, &RepartitionEditor::unpin);

    if (m_client) {
        connect(m_client,
                &Models::SessionClient::snapshotChanged,
                this,
                &RepartitionEditor::onSnapshot);
        connect(m_client,
                &Models::SessionClient::layoutPreviewReady,
                this,
                &RepartitionEditor::onLayoutPreview);
        connect(m_client,
                &Models::SessionClient::commandFinished,
                this,
                &RepartitionEditor::onCommandFinished);
        m_snapshot = m_client->snapshot();
    }
    retranslateUi();
}

RepartitionEditor::~RepartitionEditor()
{
    // The commands call back into the editor; let them go while it is whole.
    m_undoStack->clear();
}

// --- State -------------------------------------------------------------------------------------

const Sched::CardState *RepartitionEditor::cardState() const
{
    if (!m_snapshot || !m_card.isValid() || m_card.value() >= m_snapshot->state.cards().size())
        return nullptr;
    return &m_snapshot->state.card(m_card);
}

Layout RepartitionEditor::currentLayout() const
{
    return LayoutEdit::sorted(LayoutEdit::layoutOf(m_units));
}

bool RepartitionEditor::unitsChanging() const
{
    return std::any_of(m_units.cbegin(), m_units.cend(), [](const LayoutEdit::CurrentUnit &u) {
        return u.state != Sched::UnitState::Ready;
    });
}

QString RepartitionEditor::cardBlockedReason() const
{
    if (!m_card.isValid())
        return tr("Choose a card to repartition.");
    if (!m_snapshot)
        return tr("Waiting for the appliance's first snapshot.");
    const Sched::CardState *card = cardState();
    if (!card)
        return tr("The appliance has no such card.");
    const Domain::CardModel &model = m_snapshot->state.model(*card);
    if (!model.supportsMig())
        return tr("%1 cards have no MIG: this card cannot be partitioned here.").arg(model.name);
    if (card->mode != Domain::PartitionMode::Mig)
        return tr("This card runs in %1 mode, not MIG: its layout cannot be edited here.")
                .arg(modeName(card->mode));
    if (card->health == Sched::CardHealth::Failed)
        return tr("This card has failed: its layout cannot be changed until it recovers.");
    if (card->host.isValid() && card->host.value() < m_snapshot->state.hosts().size()
        && !m_snapshot->state.host(card->host).up)
        return tr("The card's host is down: its layout cannot be changed now.");
    return QString();
}

bool RepartitionEditor::isEditable() const
{
    return hasModel() && !m_applyPending && cardBlockedReason().isEmpty();
}

bool RepartitionEditor::canApply() const
{
    return applyBlockedReason().isEmpty();
}

QString RepartitionEditor::applyBlockedReason() const
{
    const QString blocked = cardBlockedReason();
    if (!blocked.isEmpty())
        return blocked;
    if (m_snapshot->readOnly)
        return readOnlyText(m_snapshot->readOnlyProblem);
    if (m_applyPending)
        return tr("A change of this card is being applied.");
    if (LayoutEdit::sameLayout(m_pending, currentLayout()))
        return tr("The planned layout is the card's current layout: nothing to apply.");
    // Until the appliance has answered, nobody knows which jobs the change would stop: no apply
    // without the confirmation that names them.
    if (!m_previewValid)
        return tr("The appliance is still planning this change.");
    if (!m_preview.ok)
        return tr("The appliance cannot plan this change: %1").arg(previewProblemText());
    return QString();
}

QString RepartitionEditor::previewProblemText() const
{
    return refusalText(Session::problemOf(m_preview), {}, m_preview.target);
}

QString RepartitionEditor::refusalText(const Domain::Problem &problem,
                                       const Sched::Status &status,
                                       const LayoutEdit::Layout &layout) const
{
    // A layout the rules refuse, worded against the layout it was about; anything else as the
    // console words the appliance's refusals.
    if (const auto verdict = Catalogue::layoutVerdictOf(problem))
        return RepartitionText::problem(m_model, layout, *verdict);
    return problemText(problem, status);
}

QString RepartitionEditor::statusText() const
{
    return m_status;
}

void RepartitionEditor::setStatus(const QString &text, bool problem)
{
    m_status = text;
    // A refusal is marked by a sign and bold type, not by colour alone.
    m_statusLabel->setText(text.isEmpty() ? QString()
                                          : (problem ? QStringLiteral("\u26A0 ") + text : text));
    QFont f = font();
    f.setBold(problem);
    m_statusLabel->setFont(f);
}

bool RepartitionEditor::refuse(const QString &reason)
{
    setStatus(reason, true);
    return false;
}

// --- The card ----------------------------------------------------------------------------------

void RepartitionEditor::setCard(Domain::CardId card)
{
    m_undoStack->clear();
    m_card = card;
    m_applyPending = false;
    m_applyRequest = 0;
    m_watching = false;
    m_previewValid = false;
    m_preview = Session::LayoutPreview();
    if (m_client)
        m_snapshot = m_client->snapshot();
    m_strip->setSelection({});

    const Sched::CardState *state = cardState();
    if (state && m_snapshot->state.model(*state).supportsMig()
        && state->mode == Domain::PartitionMode::Mig) {
        m_model = m_snapshot->state.model(*state);
        m_modelIndex = state->model;
        m_units = LayoutEdit::currentUnits(m_snapshot->state, m_card);
    } else {
        m_model = Domain::CardModel();
        m_modelIndex = -1;
        m_units.clear();
    }
    m_pending = currentLayout();
    m_followed = m_pending;
    m_palette->setCardModel(hasModel() ? &m_model : nullptr, m_modelIndex);
    m_strip->setCardModel(hasModel() ? &m_model : nullptr, m_modelIndex);
    rebuildPresets();
    if (m_shownOnce)
        fitPalette();
    setStatus(QString(), false);
    refreshTitle();
    refreshAll();
    requestPreview();
    Q_EMIT pendingLayoutChanged(m_pending);
}

void RepartitionEditor::onSnapshot()
{
    m_snapshot = m_client->snapshot();
    if (!m_card.isValid()) {
        refreshControls();
        return;
    }
    const Sched::CardState *state = cardState();
    const bool migNow = state && m_snapshot->state.model(*state).supportsMig()
                        && state->mode == Domain::PartitionMode::Mig;
    if (migNow != hasModel()) {
        // The card changed mode under us: start over from what it is.
        setCard(m_card);
        return;
    }
    const QList<LayoutEdit::CurrentUnit> units
            = hasModel() ? LayoutEdit::currentUnits(m_snapshot->state, m_card)
                         : QList<LayoutEdit::CurrentUnit>();
    // A watched change is judged on every later snapshot, also one where the units look as
    // before: the scheduler may have laid the card out again as it was within the same step.
    const bool watchedAndNewer = m_watching && m_snapshot->serial > m_watchSerial;
    if (units != m_units || watchedAndNewer) {
        m_units = units;
        const Layout current = currentLayout();
        if (m_watching && !unitsChanging()) {
            // The change has run its course.
            m_watching = false;
            if (LayoutEdit::sameLayout(current, m_applyTarget))
                setStatus(tr("Done: the card has the planned layout now."), false);
            else
                setStatus(tr("The change is done, but the card has changed since: it now holds %1.")
                                  .arg(current.isEmpty()
                                               ? tr("no instances")
                                               : LayoutEdit::layoutName(m_model, current)),
                          false);
            // The plan becomes what the card has, unless the operator has started a new one.
            if (LayoutEdit::sameLayout(m_pending, m_applyTarget))
                m_pending = current;
            m_followed = current;
        } else if (!m_watching && !m_applyPending
                   && LayoutEdit::sameLayout(m_pending, m_followed)) {
            // No edits of the operator's: the plan follows the card.
            m_pending = current;
            m_followed = current;
        }
        refreshAll();
        requestPreview();
        Q_EMIT pendingLayoutChanged(m_pending);
        return;
    }
    refreshTitle();
    refreshControls();
}

void RepartitionEditor::requestPreview()
{
    m_previewValid = false;
    if (!m_client || !hasModel() || !cardBlockedReason().isEmpty()) {
        refreshPlan();
        return;
    }
    refreshPlan();
    m_previewRequest = m_client->previewLayout(m_card, m_pending);
}

void RepartitionEditor::onLayoutPreview(const Session::LayoutPreview &preview)
{
    // Only the answer to the latest question counts, and only while it is still today's plan.
    if (preview.request != m_previewRequest || preview.card != m_card
        || !LayoutEdit::sameLayout(preview.target, m_pending))
        return;
    m_preview = preview;
    m_previewValid = true;
    refreshPlan();
    refreshControls();
}

// --- The plan ----------------------------------------------------------------------------------

QStringList RepartitionEditor::planSteps() const
{
    QStringList steps;
    if (!hasModel())
        return steps;
    for (const LayoutEdit::Step &s : LayoutEdit::planSteps(m_model, m_units, m_pending))
        steps << RepartitionText::step(m_model, s);
    return steps;
}

QStringList RepartitionEditor::affectedJobNames() const
{
    QStringList names;
    if (!m_previewValid || !m_preview.ok || !m_snapshot)
        return names;
    for (Domain::JobId j : m_preview.affectedJobs) {
        if (j.isValid() && j.value() < m_snapshot->state.jobs().size())
            names << m_snapshot->state.job(j).spec.name;
        else
            names << tr("job %1").arg(j.value());
    }
    return names;
}

QString RepartitionEditor::expectedTimeText() const
{
    if (!m_previewValid || !m_preview.ok)
        return QString();
    return RepartitionText::duration(m_preview.expectedMs);
}

void RepartitionEditor::refreshAll()
{
    m_strip->setLayouts(m_units, m_pending);
    m_palette->setPendingLayout(m_pending);
    refreshPlan();
    refreshControls();
}

void RepartitionEditor::refreshPlan()
{
    m_stepList->clear();
    if (!hasModel()) {
        m_planSummary->setText(tr("No plan: there is no MIG card to repartition."));
        m_affectedLabel->clear();
        m_timeLabel->clear();
        return;
    }
    const QList<LayoutEdit::Step> steps = LayoutEdit::planSteps(m_model, m_units, m_pending);
    int destroys = 0, creates = 0;
    for (const LayoutEdit::Step &s : steps) {
        auto *item = new QListWidgetItem(RepartitionText::step(m_model, s), m_stepList);
        (s.kind == LayoutEdit::Step::Kind::Destroy ? destroys : creates) += 1;
        QFont f = item->font();
        f.setItalic(s.kind == LayoutEdit::Step::Kind::Destroy);
        item->setFont(f);
    }
    if (m_previewValid && m_preview.ok) {
        destroys = m_preview.destroys;
        creates = m_preview.creates;
    }
    if (steps.isEmpty())
        m_planSummary->setText(tr("No change: the planned layout is the card's current layout."));
    else
        m_planSummary->setText(tr("Destroy %1, create %2.").arg(destroys).arg(creates));
    if (m_previewValid && !m_preview.ok) {
        m_affectedLabel->setText(
                tr("The appliance cannot plan this change: %1").arg(previewProblemText()));
        m_timeLabel->clear();
        return;
    }
    if (!m_previewValid) {
        m_affectedLabel->setText(tr("Affected jobs: asking the appliance\u2026"));
        m_timeLabel->setText(tr("Expected time: asking the appliance\u2026"));
        return;
    }
    const QStringList jobs = affectedJobNames();
    m_affectedLabel->setText(jobs.isEmpty() ? tr("Affected jobs: none")
                                            : tr("Affected jobs: %1").arg(jobs.join(tr(", "))));
    m_timeLabel->setText(tr("Expected time: %1").arg(expectedTimeText()));
}

void RepartitionEditor::refreshControls()
{
    const QString blocked = cardBlockedReason();
    const bool editable = isEditable();
    m_banner->setText(blocked.isEmpty() ? QString() : QStringLiteral("\u26A0 ") + blocked);
    m_banner->setVisible(!blocked.isEmpty() && m_card.isValid());
    if (!hasModel())
        m_strip->setPlaceholder(blocked);
    m_palette->setEditable(editable);
    m_strip->setEditable(editable);
    const QList<int> selection = m_strip->selection();
    m_removeButton->setEnabled(editable && !selection.isEmpty());
    m_splitButton->setEnabled(editable && selection.size() == 1);
    m_mergeButton->setEnabled(editable && selection.size() == 2);
    m_presetCombo->setEnabled(editable);
    updateUndoActions();

    const bool drain = applyMode() == ApplyMode::Drain;
    m_deadlineSpin->setEnabled(drain && !m_applyPending);
    m_deadlineLabel->setEnabled(drain && !m_applyPending);
    m_immediateRadio->setEnabled(!m_applyPending);
    m_drainRadio->setEnabled(!m_applyPending);
    // The pin: a line and Unpin while the card is pinned, else the choice to pin on Apply.
    const Sched::CardState *pinCard = cardState();
    const qint64 pinnedUntil = pinCard ? pinCard->layoutPinnedUntilMs : 0;
    const bool readOnly = !m_snapshot || m_snapshot->readOnly;
    m_pinCheck->setVisible(pinnedUntil == 0);
    m_pinCheck->setEnabled(!m_applyPending && !readOnly);
    m_pinState->setVisible(pinnedUntil != 0);
    m_unpinButton->setVisible(pinnedUntil != 0);
    m_unpinButton->setEnabled(!readOnly && m_pinRequest == 0);
    if (pinnedUntil == -1) {
        m_pinState->setText(tr("This layout is pinned until unpinned: the scheduler does not "
                               "change it."));
    } else if (pinnedUntil > 0) {
        const QDateTime at = QDateTime::fromMSecsSinceEpoch(
                pinnedUntil, QTimeZone(m_snapshot ? m_snapshot->utcOffsetSeconds : 0));
        m_pinState->setText(tr("This layout is pinned until %1: the scheduler does not change "
                               "it before then.")
                                    .arg(QLocale().toString(at.time(), QLocale::ShortFormat)));
    }
    const QString why = applyBlockedReason();
    m_applyButton->setEnabled(why.isEmpty());
    if (!why.isEmpty())
        m_applyReason->setText(why);
    else if (drain)
        m_applyReason->setText(tr("Jobs on destroyed instances leave at their next checkpoint; at "
                                  "the deadline the rest leave at once."));
    else
        m_applyReason->setText(tr("Jobs on destroyed instances go back to the queue at once and "
                                  "lose the work done since their last checkpoint."));
}

void RepartitionEditor::refreshTitle()
{
    const Sched::CardState *card = cardState();
    if (!card) {
        m_title->setText(tr("Repartition: no card"));
        return;
    }
    const QString host
            = card->host.isValid() && card->host.value() < m_snapshot->state.hosts().size()
                      ? m_snapshot->state.host(card->host).name
                      : QString();
    m_title->setText(tr("Repartition %1 GPU %2 (%3)")
                             .arg(host)
                             .arg(card->indexOnHost)
                             .arg(m_snapshot->state.model(*card).name));
}

void RepartitionEditor::updateUndoActions()
{
    const bool editable = isEditable();
    m_undoAction->setEnabled(editable && m_undoStack->canUndo());
    m_redoAction->setEnabled(editable && m_undoStack->canRedo());
    const QString undo = m_undoStack->undoText(), redo = m_undoStack->redoText();
    m_undoAction->setText(undo.isEmpty() ? tr("Undo") : tr("Undo %1").arg(undo));
    m_redoAction->setText(redo.isEmpty() ? tr("Redo") : tr("Redo %1").arg(redo));
    // The editor's own buttons stay short; menus show the whole text.
    m_undoAction->setIconText(tr("Undo"));
    m_redoAction->setIconText(tr("Redo"));
    m_undoAction->setToolTip(m_undoAction->text());
    m_redoAction->setToolTip(m_redoAction->text());
}

void RepartitionEditor::retranslateUi()
{
    m_paletteHint->setText(tr("Profiles: drag one onto the planned row, or double-click it."));
    m_removeButton->setText(tr("&Remove"));
    m_removeButton->setToolTip(tr("Remove the selected instances from the plan (Delete)"));
    m_splitButton->setText(tr("&Split"));
    m_splitButton->setToolTip(
            tr("Replace the selected instance by the largest smaller ones that fit"));
    m_mergeButton->setText(tr("&Merge"));
    m_mergeButton->setToolTip(tr("Replace two selected neighbours by one instance covering both"));
    m_presetLabel->setText(tr("Preset:"));
    m_planBox->setTitle(tr("Plan"));
    m_applyBox->setTitle(tr("Apply"));
    m_immediateRadio->setText(tr("&Immediate"));
    m_drainRadio->setText(tr("&Drain at checkpoints"));
    m_deadlineLabel->setText(tr("Deadline:"));
    m_deadlineSpin->setSuffix(tr(" min"));
    m_applyButton->setText(tr("&Apply"));
    m_pinCheck->setText(tr("&Pin this layout (the scheduler will not change it)"));
    m_pinCheck->setToolTip(tr("Until unpinned, the scheduler neither creates nor destroys "
                              "instances on this card; its instances still take work."));
    m_unpinButton->setText(tr("&Unpin"));
    rebuildPresets();
    refreshTitle();
    refreshPlan();
    refreshControls();
}

void RepartitionEditor::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_shownOnce)
        return;
    m_shownOnce = true;
    fitPalette();
}

void RepartitionEditor::fitPalette()
{
    // The palette's columns whole, the rest for the strip (once the operator moves the splitter
    // it stays where they put it, unless a wider model needs more).
    const QList<int> sizes = m_splitter->sizes();
    const int paletteWidth = m_palette->sizeHint().width();
    if (sizes.size() != 2 || sizes[0] >= paletteWidth)
        return;
    const int total = sizes[0] + sizes[1];
    m_splitter->setSizes({paletteWidth, std::max(1, total - paletteWidth)});
}

void RepartitionEditor::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

} // namespace Zhaoxi::Widgets
