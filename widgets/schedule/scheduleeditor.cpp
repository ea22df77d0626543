// SPDX-License-Identifier: GPL-3.0-or-later
// ScheduleEditor: its widgets, what they show (the form, the next switches, the load) and the
// snapshots that feed them. Loading, applying and editing are in scheduleeditoredits.cpp.
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
constexpr int kHoursPerWeek = 7 * 24;
constexpr int kSwitchesShown = 6;
constexpr int kBandwidthDefault = -5; // the bandwidth spin box's "policy default"
constexpr int kPowerDefault = -100;   // the power cap spin box's "policy default"

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
        connect(m_client,
                &Models::SessionClient::schedulePreviewReady,
                this,
                &ScheduleEditor::onSchedulePreview);
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
        m_inForce->setText(snapshot->window.isEmpty()
                                   ? tr("Policy in force: %1").arg(policyNameText(snapshot->policy))
                                   : tr("Policy in force: %1 (‘%2’)")
                                             .arg(policyNameText(snapshot->policy),
                                                  windowNameText(snapshot->window)));
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
    const bool busy = m_applyRequest != 0 || m_previewRequest != 0;
    const bool canApply = m_client && !readOnly && !busy && m_model->rowCount() > 0;
    m_applyButton->setEnabled(canApply);
    m_applyButton->setToolTip(readOnly ? readOnlyText(m_client->snapshot()->readOnlyProblem)
                                       : tr("Make this schedule the policy in force"));
    const bool canRevert = !m_revertPoint.isEmpty() && !busy;
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
