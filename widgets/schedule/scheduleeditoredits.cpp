// SPDX-License-Identifier: GPL-3.0-or-later
// ScheduleEditor: loading and applying a schedule, and the edits of its windows (each one
// undoable). Its widgets and what they show are in scheduleeditor.cpp.
#include "scheduleeditor.h"

#include "widgets/cardmap/commandtext.h"

#include "scheduleconfirmdialog.h"
#include "scheduletimeline.h"

#include "core/models/sessionclient.h"
#include "widgets/appliedcommand.h"

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

} // namespace

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
    m_pending = m_model->toJson();
    askForPreview();
    return m_previewRequest;
}

void ScheduleEditor::askForPreview()
{
    setStatus(tr("Checking what this schedule will do…"));
    m_previewRequest = m_client->previewSchedule(m_pending);
    refreshActions();
}

void ScheduleEditor::onSchedulePreview(const Session::SchedulePreview &preview)
{
    if (m_previewRequest == 0 || preview.request != m_previewRequest)
        return;
    m_previewRequest = 0;
    if (!preview.ok) {
        setStatus(tr("The appliance refused the schedule: %1")
                          .arg(problemText(Session::problemOf(preview))));
        refreshActions();
        return;
    }
    if (preview.needsConfirmation()) {
        const int offset = m_client && m_client->snapshot() ? m_client->snapshot()->utcOffsetSeconds
                                                            : m_utcOffsetSeconds;
        bool go = false;
        if (m_confirm) {
            go = m_confirm(preview);
        } else {
            ScheduleConfirmDialog dialog(preview, offset, this);
            go = dialog.exec() == QDialog::Accepted;
        }
        if (!go) {
            setStatus(tr("Not applied: the schedule in force stays."));
            refreshActions();
            return;
        }
    }
    if (!m_client) {
        refreshActions();
        return;
    }
    setStatus(tr("Applying the schedule…"));
    m_applyRequest = m_client->setScheduleConfirmed(m_pending, preview.evictedIds());
    refreshActions();
}

void ScheduleEditor::onCommandFinished(const Session::CommandResult &result)
{
    if (m_applyRequest == 0 || result.request != m_applyRequest)
        return;
    m_applyRequest = 0;
    if (!result.ok && result.planChanged && m_client) {
        // What runs is what was confirmed: the plan no longer holds, so ask again with what the
        // schedule does now.
        askForPreview();
        setStatus(tr("The appliance changed since you confirmed; checking again…"));
        return;
    }
    if (result.ok) {
        m_revertPoint = m_pending;
        m_undo->setClean();
        setStatus(tr("Applied: this schedule is the policy in force."));
        Q_EMIT scheduleApplied(m_pending);
    } else {
        setStatus(tr("The appliance refused the schedule: %1")
                          .arg(problemText(Session::problemOf(result), result.status)));
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

} // namespace Zhaoxi::Widgets
