// SPDX-License-Identifier: GPL-3.0-or-later
#include "scheduleeditor.h"

#include "scheduletimeline.h"

#include "core/models/sessionclient.h"
#include "widgets/appliedcommand.h"
#include "widgets/cardmap/reasontext.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTimeEdit>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>

#include <cmath>

namespace Zhaoxi::Widgets {

using Models::ScheduleModel;
using Models::ScheduleWindow;

namespace {

constexpr int kDay = ScheduleModel::kMinutesPerDay;
constexpr int kWeek = ScheduleModel::kMinutesPerWeek;
constexpr int kHoursPerWeek = 7 * 24;
constexpr int kSwitchesShown = 6;
constexpr int kBandwidthDefault = -5; // the bandwidth spin box's "policy default"
constexpr int kPowerDefault = -100;   // the power cap spin box's "policy default"

// Undo commands. The edit is applied (and checked) before the command is pushed, so the first
// redo() does nothing (AppliedCommand); later ones replay a state that was valid when it was left.
class WindowCommand : public AppliedCommand
{
public:
    WindowCommand(ScheduleModel *model,
                  int row,
                  ScheduleWindow before,
                  ScheduleWindow after,
                  const QString &text,
                  int mergeField)
        : AppliedCommand(text)
        , m_model(model)
        , m_row(row)
        , m_before(std::move(before))
        , m_after(std::move(after))
        , m_mergeField(mergeField)
    {}
    void undo() override { m_model->setWindow(m_row, m_before); }
    // Consecutive changes of one numeric field of one window (a slider being dragged) are one
    // step of undo.
    int id() const override { return m_mergeField >= 0 ? 1000 + m_mergeField : -1; }
    bool mergeWith(const QUndoCommand *other) override
    {
        const auto *o = static_cast<const WindowCommand *>(other);
        if (o->m_row != m_row || o->m_mergeField != m_mergeField)
            return false;
        m_after = o->m_after;
        setObsolete(m_after == m_before);
        return true;
    }

protected:
    void replay() override { m_model->setWindow(m_row, m_after); }

private:
    ScheduleModel *m_model;
    int m_row;
    ScheduleWindow m_before;
    ScheduleWindow m_after;
    int m_mergeField;
};

// A window added (Insert) or taken away (Remove) at `row`; undo does the other.
class WindowRowCommand : public AppliedCommand
{
public:
    enum Kind { Insert, Remove };

    WindowRowCommand(
            Kind kind, ScheduleModel *model, int row, ScheduleWindow window, const QString &text)
        : AppliedCommand(text)
        , m_kind(kind)
        , m_model(model)
        , m_row(row)
        , m_window(std::move(window))
    {}
    void undo() override { edit(m_kind == Remove); }

protected:
    void replay() override { edit(m_kind == Insert); }

private:
    void edit(bool insert)
    {
        if (insert)
            m_model->insertWindow(m_row, m_window);
        else
            m_model->removeWindow(m_row);
    }

    Kind m_kind;
    ScheduleModel *m_model;
    int m_row;
    ScheduleWindow m_window;
};

class ModeCommand : public AppliedCommand
{
public:
    ModeCommand(ScheduleModel *model, QString before, QString after, const QString &text)
        : AppliedCommand(text)
        , m_model(model)
        , m_before(std::move(before))
        , m_after(std::move(after))
    {}
    void undo() override { m_model->setMode(m_before); }

protected:
    void replay() override { m_model->setMode(m_after); }

private:
    ScheduleModel *m_model;
    QString m_before;
    QString m_after;
};

int minuteOf(const QTime &t)
{
    return t.hour() * 60 + t.minute();
}

QTime timeOf(int minute)
{
    return QTime((minute % kDay) / 60, minute % 60);
}

} // namespace

ScheduleEditor::ScheduleEditor(Models::SessionClient *client, QWidget *parent)
    : QWidget(parent)
    , m_client(client)
    , m_model(new ScheduleModel(this))
    , m_undo(new QUndoStack(this))
{
    m_observedSum.fill(0, kHoursPerWeek);
    m_observedCount.fill(0, kHoursPerWeek);
    buildUi();
    retranslateUi();

    connect(m_model, &ScheduleModel::scheduleChanged, this, [this] {
        if (m_row >= m_model->rowCount())
            setCurrentRow(m_model->rowCount() - 1);
        refreshForm();
        refreshSwitches();
        refreshActions();
    });
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        m_row = -1;
        setCurrentRow(m_model->rowCount() > 0 ? 0 : -1);
    });
    connect(m_timeline, &ScheduleTimeline::windowClicked, this, &ScheduleEditor::setCurrentRow);
    connect(m_timeline, &ScheduleTimeline::moveRequested, this, &ScheduleEditor::moveWindow);
    connect(m_timeline, &ScheduleTimeline::resizeRequested, this, &ScheduleEditor::resizeWindow);
    connect(m_timeline, &ScheduleTimeline::dragFeedback, this, [this](const QString &problem) {
        setStatus(problem.isEmpty() ? QString() : tr("Cannot go here: %1").arg(problem));
    });
    connect(m_undo, &QUndoStack::cleanChanged, this, &ScheduleEditor::refreshActions);

    if (m_client) {
        connect(m_client,
                &Models::SessionClient::snapshotChanged,
                this,
                &ScheduleEditor::onSnapshot);
        connect(m_client,
                &Models::SessionClient::commandFinished,
                this,
                &ScheduleEditor::onCommandFinished);
        if (m_client->snapshot())
            onSnapshot(m_client->snapshot());
    }
    refreshForm();
    refreshSwitches();
    refreshActions();
}

ScheduleEditor::~ScheduleEditor()
{
    // The stack announces its clearing while it is destroyed: not to a half-destroyed editor.
    m_undo->disconnect(this);
    delete m_undo;
}

// ---- the widgets -----------------------------------------------------------------------------

void ScheduleEditor::buildUi()
{
    m_timeline = new ScheduleTimeline(m_model, this);
    m_timeline->setObjectName(QStringLiteral("scheduleTimeline"));

    m_timeZone = new QLabel(this);
    m_timeZone->setObjectName(QStringLiteral("timeZone"));
    m_inForce = new QLabel(this);
    m_inForce->setObjectName(QStringLiteral("policyInForce"));

    m_undoAction = m_undo->createUndoAction(this);
    m_redoAction = m_undo->createRedoAction(this);
    m_undoAction->setShortcut(QKeySequence::Undo);
    m_redoAction->setShortcut(QKeySequence::Redo);
    m_undoAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_redoAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(m_undoAction);
    addAction(m_redoAction);
    m_undoButton = new QToolButton(this);
    m_undoButton->setDefaultAction(m_undoAction);
    m_redoButton = new QToolButton(this);
    m_redoButton->setDefaultAction(m_redoAction);
    m_add = new QPushButton(this);
    m_add->setObjectName(QStringLiteral("addWindow"));
    m_remove = new QPushButton(this);
    m_remove->setObjectName(QStringLiteral("removeWindow"));
    connect(m_add, &QPushButton::clicked, this, &ScheduleEditor::addWindow);
    connect(m_remove, &QPushButton::clicked, this, [this] { removeWindow(m_row); });

    auto *top = new QHBoxLayout;
    top->addWidget(m_timeZone);
    top->addSpacing(12);
    top->addWidget(m_inForce);
    top->addStretch(1);
    top->addWidget(m_undoButton);
    top->addWidget(m_redoButton);
    top->addSpacing(12);
    top->addWidget(m_add);
    top->addWidget(m_remove);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("scheduleStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    // The selected window.
    m_windowBox = new QGroupBox(this);
    m_name = new QLineEdit(m_windowBox);
    m_name->setObjectName(QStringLiteral("windowName"));
    connect(m_name, &QLineEdit::editingFinished, this, [this] { commitField(NameField); });
    auto *daysRow = new QHBoxLayout;
    for (int d = 0; d < 7; ++d) {
        auto *box = new QCheckBox(m_windowBox);
        box->setObjectName(QStringLiteral("day%1").arg(d));
        connect(box, &QCheckBox::toggled, this, [this] { commitField(DaysField); });
        m_days.append(box);
        daysRow->addWidget(box);
    }
    daysRow->addStretch(1);
    m_from = new QTimeEdit(m_windowBox);
    m_from->setObjectName(QStringLiteral("windowFrom"));
    m_from->setDisplayFormat(QStringLiteral("HH:mm"));
    connect(m_from, &QTimeEdit::editingFinished, this, [this] { commitField(FromField); });
    m_to = new QTimeEdit(m_windowBox);
    m_to->setObjectName(QStringLiteral("windowTo"));
    m_to->setDisplayFormat(QStringLiteral("HH:mm"));
    connect(m_to, &QTimeEdit::editingFinished, this, [this] { commitField(ToField); });
    m_toLabel = new QLabel(m_windowBox);
    auto *timesRow = new QHBoxLayout;
    timesRow->addWidget(m_from);
    timesRow->addWidget(m_toLabel);
    timesRow->addWidget(m_to);
    timesRow->addStretch(1);

    m_shareSlider = new QSlider(Qt::Horizontal, m_windowBox);
    m_shareSlider->setRange(0, 100);
    m_shareSlider->setPageStep(5);
    m_share = new QSpinBox(m_windowBox);
    m_share->setObjectName(QStringLiteral("inferenceShare"));
    m_share->setRange(0, 100);
    connect(m_shareSlider, &QSlider::valueChanged, m_share, &QSpinBox::setValue);
    connect(m_share, &QSpinBox::valueChanged, this, [this](int v) {
        const QSignalBlocker block(m_shareSlider);
        m_shareSlider->setValue(v);
        commitField(ShareField);
    });
    auto *shareRow = new QHBoxLayout;
    shareRow->addWidget(m_shareSlider, 1);
    shareRow->addWidget(m_share);

    m_bandwidth = new QDoubleSpinBox(m_windowBox);
    m_bandwidth->setObjectName(QStringLiteral("trainingBandwidthShare"));
    m_bandwidth->setDecimals(0);
    m_bandwidth->setRange(kBandwidthDefault, 100);
    m_bandwidth->setSingleStep(5);
    connect(m_bandwidth, &QDoubleSpinBox::valueChanged, this, [this] {
        commitField(BandwidthField);
    });
    m_power = new QSpinBox(m_windowBox);
    m_power->setObjectName(QStringLiteral("trainingPowerCap"));
    m_power->setRange(kPowerDefault, 100'000);
    m_power->setSingleStep(100);
    connect(m_power, &QSpinBox::valueChanged, this, [this] { commitField(PowerField); });

    m_nameLabel = new QLabel(m_windowBox);
    m_daysLabel = new QLabel(m_windowBox);
    m_fromLabel = new QLabel(m_windowBox);
    m_shareLabel = new QLabel(m_windowBox);
    m_bandwidthLabel = new QLabel(m_windowBox);
    m_powerLabel = new QLabel(m_windowBox);
    m_nameLabel->setBuddy(m_name);
    m_fromLabel->setBuddy(m_from);
    m_toLabel->setBuddy(m_to);
    m_shareLabel->setBuddy(m_share);
    m_bandwidthLabel->setBuddy(m_bandwidth);
    m_powerLabel->setBuddy(m_power);
    auto *form = new QFormLayout(m_windowBox);
    form->addRow(m_nameLabel, m_name);
    form->addRow(m_daysLabel, daysRow);
    form->addRow(m_fromLabel, timesRow);
    form->addRow(m_shareLabel, shareRow);
    form->addRow(m_bandwidthLabel, m_bandwidth);
    form->addRow(m_powerLabel, m_power);

    // The schedule as a whole.
    m_scheduleBox = new QGroupBox(this);
    m_mode = new QComboBox(m_scheduleBox);
    m_mode->setObjectName(QStringLiteral("scheduleMode"));
    m_mode->addItem(QString(), QStringLiteral("drain"));
    m_mode->addItem(QString(), QStringLiteral("immediate"));
    connect(m_mode, &QComboBox::activated, this, [this](int i) {
        if (!setMode(m_mode->itemData(i).toString()))
            refreshForm();
    });
    m_modeLabel = new QLabel(m_scheduleBox);
    m_modeLabel->setBuddy(m_mode);
    auto *scheduleForm = new QFormLayout(m_scheduleBox);
    scheduleForm->addRow(m_modeLabel, m_mode);

    m_switchesBox = new QGroupBox(this);
    m_switches = new QListWidget(m_switchesBox);
    m_switches->setObjectName(QStringLiteral("nextSwitches"));
    m_switches->setSelectionMode(QAbstractItemView::NoSelection);
    m_switches->setFocusPolicy(Qt::NoFocus);
    auto *switchesLayout = new QVBoxLayout(m_switchesBox);
    switchesLayout->addWidget(m_switches);

    auto *right = new QVBoxLayout;
    right->addWidget(m_scheduleBox);
    right->addWidget(m_switchesBox, 1);
    auto *lower = new QHBoxLayout;
    lower->addWidget(m_windowBox, 3);
    lower->addLayout(right, 2);

    m_applyButton = new QPushButton(this);
    m_applyButton->setObjectName(QStringLiteral("applySchedule"));
    m_applyButton->setDefault(true);
    connect(m_applyButton, &QPushButton::clicked, this, &ScheduleEditor::apply);
    m_revertButton = new QPushButton(this);
    m_revertButton->setObjectName(QStringLiteral("revertSchedule"));
    connect(m_revertButton, &QPushButton::clicked, this, &ScheduleEditor::revert);
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_revertButton);
    buttons->addWidget(m_applyButton);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_timeline);
    layout->addWidget(m_status);
    layout->addLayout(lower, 1);
    layout->addLayout(buttons);
}

void ScheduleEditor::retranslateUi()
{
    m_add->setText(tr("Add window"));
    m_add->setToolTip(tr("A new window in the week's first free time"));
    m_remove->setText(tr("Remove window"));
    m_windowBox->setTitle(tr("Window"));
    m_nameLabel->setText(tr("&Name:"));
    m_daysLabel->setText(tr("Days:"));
    for (int d = 0; d < m_days.size(); ++d)
        m_days[d]->setText(ScheduleModel::dayName(d));
    m_fromLabel->setText(tr("&From:"));
    m_toLabel->setText(tr("&to"));
    m_from->setToolTip(tr("When the window opens, local time"));
    m_to->setToolTip(tr("When it closes: before the opening time, the next day; the same time, "
                        "the whole day"));
    m_shareLabel->setText(tr("&Inference share:"));
    m_shareSlider->setAccessibleName(tr("Inference share"));
    m_share->setSuffix(tr(" %"));
    m_bandwidthLabel->setText(tr("Training &bandwidth:"));
    m_bandwidth->setSuffix(tr(" %"));
    m_bandwidth->setSpecialValueText(tr("policy default"));
    m_bandwidth->setToolTip(tr("The training class's share of each host's PCIe and network paths"));
    m_powerLabel->setText(tr("Training &power cap:"));
    m_power->setSuffix(tr(" W"));
    m_power->setSpecialValueText(tr("policy default"));
    m_power->setToolTip(tr("The training class's power over all its cards; 0 W: no cap"));
    m_scheduleBox->setTitle(tr("Schedule"));
    m_modeLabel->setText(tr("&Switch mode:"));
    m_mode->setItemText(0, tr("drain (training leaves at its checkpoints)"));
    m_mode->setItemText(1, tr("immediate (training leaves at the edge)"));
    m_switchesBox->setTitle(tr("Next switches"));
    m_applyButton->setText(tr("&Apply"));
    m_applyButton->setToolTip(tr("Make this schedule the policy in force"));
    m_revertButton->setText(tr("&Revert"));
    m_revertButton->setToolTip(tr("Back to the schedule last loaded or applied"));
    m_model->retranslate();
    refreshHeader(m_client ? m_client->snapshot().get() : nullptr, true);
    refreshSwitches();
}

void ScheduleEditor::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

// ---- loading, applying -----------------------------------------------------------------------

bool ScheduleEditor::setSchedule(const QJsonObject &windowsParams, QString *error)
{
    QString why;
    if (!m_model->fromJson(windowsParams, &why)) {
        setStatus(tr("This schedule cannot be edited: %1").arg(why));
        if (error)
            *error = why;
        return false;
    }
    m_revertPoint = m_model->toJson();
    m_undo->clear();
    setStatus(QString());
    refreshActions();
    return true;
}

QJsonObject ScheduleEditor::schedule() const
{
    return m_model->toJson();
}

quint64 ScheduleEditor::apply()
{
    if (!m_client) {
        setStatus(tr("Not applied: no appliance is connected."));
        return 0;
    }
    if (m_client->snapshot() && m_client->snapshot()->readOnly) {
        setStatus(tr("Not applied: the appliance is read-only."));
        return 0;
    }
    const Models::ScheduleProblem problem = m_model->validate();
    if (!problem.ok()) {
        setStatus(tr("Not applied: %1").arg(problem.text));
        return 0;
    }
    // With a session on this thread the answer comes before setSchedule() returns: be ready for
    // it before the id is known.
    m_pending = m_model->toJson();
    m_applying = true;
    m_applyRequest = 0;
    setStatus(tr("Applying the schedule…"));
    const quint64 id = m_client->setSchedule(m_pending);
    if (m_applying)
        m_applyRequest = id;
    refreshActions();
    return id;
}

void ScheduleEditor::onCommandFinished(const Session::CommandResult &result)
{
    if (!m_applying || (m_applyRequest != 0 && result.request != m_applyRequest))
        return;
    m_applying = false;
    m_applyRequest = 0;
    if (result.ok) {
        m_revertPoint = m_pending;
        m_undo->setClean();
        setStatus(tr("Applied: this schedule is the policy in force."));
        Q_EMIT scheduleApplied(m_pending);
    } else {
        setStatus(tr("The appliance refused the schedule: %1").arg(result.error));
    }
    refreshActions();
}

void ScheduleEditor::revert()
{
    if (m_revertPoint.isEmpty())
        return;
    const int row = m_row;
    const QJsonObject point = m_revertPoint;
    if (setSchedule(point)) {
        setCurrentRow(std::min(row, m_model->rowCount() - 1));
        setStatus(tr("Reverted to the schedule last loaded or applied."));
    }
}

// ---- edits -----------------------------------------------------------------------------------

namespace {

QString windowSummary(const ScheduleWindow &w)
{
    const QString times
            = w.lengthMinutes() >= kDay && w.effectiveFrom() == 0
                      ? ScheduleEditor::tr("all day")
                      : ScheduleEditor::tr("%1–%2").arg(ScheduleModel::timeText(w.fromMinute),
                                                        ScheduleModel::timeText(w.toMinute));
    return ScheduleEditor::tr("‘%1’: %2 %3, inference %4.")
            .arg(w.name,
                 ScheduleModel::daysText(w.days),
                 times,
                 ScheduleModel::shareText(w.inferenceShare));
}

} // namespace

bool ScheduleEditor::pushWindowEdit(int row,
                                    const ScheduleWindow &after,
                                    const QString &what,
                                    int mergeField,
                                    const QString &refusedPrefix)
{
    if (row < 0 || row >= m_model->rowCount())
        return false;
    const ScheduleWindow before = m_model->window(row);
    if (before == after)
        return true;
    QString why;
    if (!m_model->setWindow(row, after, &why)) {
        setStatus(refusedPrefix.arg(why));
        refreshForm(); // the fields show the window as it still is
        return false;
    }
    m_undo->push(new WindowCommand(m_model, row, before, after, what, mergeField));
    setStatus(windowSummary(after));
    return true;
}

bool ScheduleEditor::moveWindow(int row, int occurrenceDay, int newFromMinuteOfWeek)
{
    if (row < 0 || row >= m_model->rowCount())
        return false;
    const ScheduleWindow w = m_model->window(row);
    return pushWindowEdit(row,
                          ScheduleModel::moved(w, newFromMinuteOfWeek, occurrenceDay),
                          tr("move ‘%1’").arg(w.name),
                          -1,
                          tr("Not moved: %1"));
}

bool ScheduleEditor::resizeWindow(int row, int fromMinute, int toMinute)
{
    if (row < 0 || row >= m_model->rowCount())
        return false;
    ScheduleWindow w = m_model->window(row);
    w.fromMinute = fromMinute;
    w.toMinute = toMinute;
    return pushWindowEdit(row, w, tr("resize ‘%1’").arg(w.name), -1, tr("Not resized: %1"));
}

bool ScheduleEditor::addWindow()
{
    // The week's first free quarter hour, and up to two hours of free time from there.
    int start = -1;
    int length = 0;
    auto freeFor = [this](int from, int minutes) {
        for (int m = from; m < from + minutes; ++m) {
            if (m_model->windowAtMinute(m % kWeek) >= 0)
                return false;
        }
        return true;
    };
    for (int m = 0; m < kWeek && start < 0; m += ScheduleTimeline::kSnapMinutes) {
        if (!freeFor(m, ScheduleTimeline::kSnapMinutes))
            continue;
        start = m;
        length = ScheduleTimeline::kSnapMinutes;
        while (length < 120 && freeFor(start + length, ScheduleTimeline::kSnapMinutes))
            length += ScheduleTimeline::kSnapMinutes;
    }
    if (start < 0) {
        setStatus(tr("Not added: the week has no free time; shorten a window first."));
        return false;
    }
    ScheduleWindow w;
    for (int n = m_model->rowCount() + 1;; ++n) {
        w.name = tr("window %1").arg(n);
        if (m_model->rowOfName(w.name) < 0)
            break;
    }
    w.days = quint8(1u << (start / kDay));
    w.fromMinute = start % kDay;
    w.toMinute = w.fromMinute + length;
    if (w.toMinute > kDay)
        w.toMinute -= kDay;
    w.inferenceShare = m_model->defaultInferenceShare();
    const int row = m_model->rowCount();
    QString why;
    if (!m_model->insertWindow(row, w, &why)) {
        setStatus(tr("Not added: %1").arg(why));
        return false;
    }
    m_undo->push(new WindowRowCommand(
            WindowRowCommand::Insert, m_model, row, w, tr("add ‘%1’").arg(w.name)));
    setCurrentRow(row);
    setStatus(windowSummary(w));
    return true;
}

bool ScheduleEditor::removeWindow(int row)
{
    if (row < 0 || row >= m_model->rowCount())
        return false;
    const ScheduleWindow w = m_model->window(row);
    QString why;
    if (!m_model->removeWindow(row, &why)) {
        setStatus(tr("Not removed: %1").arg(why));
        return false;
    }
    m_undo->push(new WindowRowCommand(
            WindowRowCommand::Remove, m_model, row, w, tr("remove ‘%1’").arg(w.name)));
    setStatus(tr("Removed ‘%1’.").arg(w.name));
    return true;
}

bool ScheduleEditor::setMode(const QString &mode)
{
    const QString before = m_model->mode();
    if (before == mode)
        return true;
    QString why;
    if (!m_model->setMode(mode, &why)) {
        setStatus(tr("Not changed: %1").arg(why));
        return false;
    }
    m_undo->push(new ModeCommand(m_model, before, mode, tr("set the switch mode")));
    return true;
}

void ScheduleEditor::commitField(Field field)
{
    if (m_refreshing || m_row < 0 || m_row >= m_model->rowCount())
        return;
    ScheduleWindow w = m_model->window(m_row);
    int merge = -1;
    switch (field) {
    case NameField:
        w.name = m_name->text().trimmed();
        break;
    case DaysField:
        w.days = 0;
        for (int d = 0; d < m_days.size(); ++d) {
            if (m_days[d]->isChecked())
                w.days |= quint8(1u << d);
        }
        break;
    case FromField: {
        const int m = minuteOf(m_from->time());
        if (m == w.fromMinute % kDay)
            return; // "24:00" shows as 00:00
        w.fromMinute = m;
        break;
    }
    case ToField: {
        const int m = minuteOf(m_to->time());
        if (m == w.toMinute % kDay)
            return;
        w.toMinute = m;
        break;
    }
    case ShareField:
        w.inferenceShare = m_share->value() / 100.0;
        merge = ShareField;
        break;
    case BandwidthField:
        if (m_bandwidth->value() < 0)
            w.bandwidthShare.reset();
        else
            w.bandwidthShare = m_bandwidth->value() / 100.0;
        merge = BandwidthField;
        break;
    case PowerField:
        if (m_power->value() < 0)
            w.powerCapW.reset();
        else
            w.powerCapW = double(m_power->value());
        merge = PowerField;
        break;
    }
    pushWindowEdit(m_row,
                   w,
                   tr("edit ‘%1’").arg(m_model->window(m_row).name),
                   merge,
                   tr("Not changed: %1"));
}

// ---- what is shown ---------------------------------------------------------------------------

void ScheduleEditor::setCurrentRow(int row)
{
    if (row < -1 || row >= m_model->rowCount())
        row = -1;
    m_row = row;
    m_timeline->setSelectedRow(row);
    refreshForm();
    refreshActions();
}

void ScheduleEditor::setStatus(const QString &text)
{
    if (m_status->text() == text)
        return;
    m_status->setText(text);
    Q_EMIT statusChanged(text);
}

QString ScheduleEditor::statusText() const
{
    return m_status->text();
}

QString ScheduleEditor::timeZoneText() const
{
    return m_timeZone->text();
}

QStringList ScheduleEditor::nextSwitchTexts() const
{
    QStringList out;
    for (int i = 0; i < m_switches->count(); ++i)
        out << m_switches->item(i)->text();
    return out;
}

QString ScheduleEditor::utcOffsetText(int utcOffsetSeconds)
{
    const int minutes = std::abs(utcOffsetSeconds) / 60;
    return QStringLiteral("UTC%1%2:%3")
            .arg(utcOffsetSeconds < 0 ? QLatin1Char('-') : QLatin1Char('+'))
            .arg(minutes / 60, 2, 10, QLatin1Char('0'))
            .arg(minutes % 60, 2, 10, QLatin1Char('0'));
}

void ScheduleEditor::refreshHeader(const Session::Snapshot *snapshot, bool timeZone)
{
    if (timeZone) {
        if (m_haveClock)
            m_timeZone->setText(tr("Time zone: %1").arg(utcOffsetText(m_utcOffsetSeconds)));
        else
            m_timeZone->setText(tr("Time zone: not known yet"));
    }
    if (snapshot) {
        m_inForce->setText(
                snapshot->window.isEmpty()
                        ? tr("Policy in force: %1").arg(snapshot->policy)
                        : tr("Policy in force: %1 (‘%2’)").arg(snapshot->policy, snapshot->window));
    }
}

void ScheduleEditor::refreshForm()
{
    m_refreshing = true;
    const bool have = m_row >= 0 && m_row < m_model->rowCount();
    const ScheduleWindow w = have ? m_model->window(m_row) : ScheduleWindow();
    {
        const QSignalBlocker b1(m_name), b2(m_from), b3(m_to), b4(m_shareSlider), b5(m_share),
                b6(m_bandwidth), b7(m_power), b8(m_mode);
        if (m_name->text() != w.name)
            m_name->setText(w.name);
        for (int d = 0; d < m_days.size(); ++d) {
            const QSignalBlocker b(m_days[d]);
            m_days[d]->setChecked(have && (w.days >> d & 1));
        }
        m_from->setTime(timeOf(w.fromMinute));
        m_to->setTime(timeOf(w.toMinute));
        const int share = int(std::lround(w.inferenceShare * 100));
        m_share->setValue(share);
        m_shareSlider->setValue(share);
        m_bandwidth->setValue(w.bandwidthShare ? std::round(*w.bandwidthShare * 100)
                                               : kBandwidthDefault);
        m_power->setValue(w.powerCapW ? std::max(0, int(std::lround(*w.powerCapW)))
                                      : kPowerDefault);
        m_mode->setCurrentIndex(m_model->mode() == QLatin1String("immediate") ? 1 : 0);
    }
    m_windowBox->setEnabled(have);
    m_refreshing = false;
}

void ScheduleEditor::refreshSwitches()
{
    QStringList texts;
    if (!m_haveClock) {
        texts << tr("The appliance's clock is not known yet.");
    } else if (m_model->rowCount() > 0) {
        const QList<Models::ScheduleSwitch> switches
                = m_model->nextSwitches(m_nowUtcMs, m_utcOffsetSeconds, kSwitchesShown);
        for (const Models::ScheduleSwitch &s : switches) {
            const QString day = ScheduleModel::dayName(s.minuteOfWeek / kDay);
            const QString time = ScheduleModel::timeText(s.minuteOfWeek % kDay);
            if (s.toRow >= 0) {
                const ScheduleWindow w = m_model->window(s.toRow);
                texts << tr("%1 %2 → %3 (inference %4)")
                                 .arg(day,
                                      time,
                                      w.name,
                                      ScheduleModel::shareText(w.inferenceShare));
            } else {
                texts << tr("%1 %2 → no window (inference %3, the default)")
                                 .arg(day,
                                      time,
                                      ScheduleModel::shareText(m_model->defaultInferenceShare()));
            }
        }
        if (switches.isEmpty())
            texts << tr("No switches: the same all week.");
    }
    if (texts == nextSwitchTexts())
        return;
    m_switches->clear();
    m_switches->addItems(texts);
}

void ScheduleEditor::refreshActions()
{
    const bool readOnly = m_client && m_client->snapshot() && m_client->snapshot()->readOnly;
    const bool canApply = m_client && !readOnly && !m_applying && m_model->rowCount() > 0;
    m_applyButton->setEnabled(canApply);
    m_applyButton->setToolTip(readOnly ? readOnlyText(m_client->snapshot()->readOnlyReason)
                                       : tr("Make this schedule the policy in force"));
    const bool canRevert = !m_revertPoint.isEmpty() && !m_applying;
    m_revertButton->setEnabled(canRevert);
    m_remove->setEnabled(m_row >= 0 && m_model->rowCount() > 1);
    m_add->setEnabled(m_model->rowCount() > 0);
}

// ---- snapshots and the load ------------------------------------------------------------------

void ScheduleEditor::onSnapshot(const Session::SnapshotPtr &snapshot)
{
    if (!snapshot)
        return;
    const bool zoneChanged = !m_haveClock || snapshot->utcOffsetSeconds != m_utcOffsetSeconds;
    m_haveClock = true;
    m_nowUtcMs = snapshot->nowMs;
    m_utcOffsetSeconds = snapshot->utcOffsetSeconds;
    refreshHeader(snapshot.get(), zoneChanged);
    const int minute = ScheduleModel::minuteOfWeek(m_nowUtcMs, m_utcOffsetSeconds);
    m_timeline->setNowMinute(minute);

    // The observed inference load, per hour of the week, for the area under the windows until
    // (or besides) a forecast is given.
    if (snapshot->serial > m_lastSerial && !snapshot->services.isEmpty()) {
        m_lastSerial = snapshot->serial;
        double rate = 0;
        for (const Session::ServiceSample &s : snapshot->services)
            rate += s.ratePerS;
        const int hour = minute / 60;
        m_observedSum[hour] += rate;
        ++m_observedCount[hour];
        refreshLoad();
    }
    refreshSwitches();
    refreshActions();
}

void ScheduleEditor::setForecast(const QList<double> &perHourOfWeek)
{
    if (!perHourOfWeek.isEmpty() && perHourOfWeek.size() != kHoursPerWeek)
        return;
    m_forecast = perHourOfWeek;
    refreshLoad();
}

QList<double> ScheduleEditor::observedLoad() const
{
    QList<double> out(kHoursPerWeek, qQNaN());
    for (int h = 0; h < kHoursPerWeek; ++h) {
        if (m_observedCount[h] > 0)
            out[h] = m_observedSum[h] / m_observedCount[h];
    }
    return out;
}

QList<double> ScheduleEditor::forecastLoad() const
{
    return m_forecast.isEmpty() ? observedLoad() : m_forecast;
}

void ScheduleEditor::refreshLoad()
{
    if (m_forecast.isEmpty())
        m_timeline->setLoad(observedLoad(), {});
    else
        m_timeline->setLoad(m_forecast, observedLoad());
}

} // namespace Zhaoxi::Widgets
