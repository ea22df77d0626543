// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/models/schedulemodel.h"
#include "core/session/snapshot.h"

#include <QJsonObject>
#include <QList>
#include <QPointer>
#include <QWidget>

#include <functional>

class QAction;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSlider;
class QSpinBox;
class QTimeEdit;
class QToolButton;
class QUndoStack;

namespace Zhaoxi::Session {
struct CommandResult;
struct SchedulePreview;
} // namespace Zhaoxi::Session
namespace Zhaoxi::Models {
class SessionClient;
}

namespace Zhaoxi::Widgets {

class ScheduleTimeline;

// The schedule editor: the `windows` colocation policy's weekly schedule as a timeline of
// blocks to drag and resize, a form for the selected window (name, days, times, inference
// share, training bandwidth share and power cap) and for the schedule's mode, the appliance's
// time zone, the next switch times, and the forecast load under the windows.
//
// Every edit goes through the ScheduleModel's checks (no two windows on the same minute; the
// headless tool's reader) and, when accepted, onto the undo stack; a refused edit changes
// nothing and the status line says why. Apply sends the schedule to the session
// (SessionClient::setSchedule), which checks it again and makes it the policy in force; Revert
// goes back to the schedule last loaded or applied. Talks only to the SessionClient and the
// model. GUI thread.
class ScheduleEditor : public QWidget
{
    Q_OBJECT

public:
    explicit ScheduleEditor(Models::SessionClient *client, QWidget *parent = nullptr);
    ~ScheduleEditor() override;

    // Loads a schedule (the `windows` policy's parameters, e.g. a scenario's
    // `policy.windows`); it becomes what Revert returns to, and the undo history starts afresh.
    // False (with the reason, in the status line too) when it cannot be edited as it is.
    bool setSchedule(const QJsonObject &windowsParams, QString *error = nullptr);
    // The schedule as edited (what Apply sends).
    QJsonObject schedule() const;
    // The expected inference load per hour of the week (168 values from Monday 00:00 local,
    // any unit; NaN: unknown), drawn under the windows. Empty: the observed rate instead.
    void setForecast(const QList<double> &perHourOfWeek);
    // What is drawn as the forecast area: the forecast given, else the request rate observed in
    // snapshots, averaged per hour of the week (NaN where none was seen).
    QList<double> forecastLoad() const;
    QList<double> observedLoad() const;

    Models::ScheduleModel *model() const { return m_model; }
    QUndoStack *undoStack() const { return m_undo; }
    ScheduleTimeline *timeline() const { return m_timeline; }
    QAction *undoAction() const { return m_undoAction; }
    QAction *redoAction() const { return m_redoAction; }

    int currentRow() const { return m_row; }
    void setCurrentRow(int row);
    QString statusText() const;
    QString timeZoneText() const;
    QStringList nextSwitchTexts() const;
    // "UTC+08:00".
    static QString utcOffsetText(int utcOffsetSeconds);

    // Asked before a schedule that stops or moves work, or switches the policy, is applied:
    // returns true to go ahead. Null: ScheduleConfirmDialog. Tests replace it.
    using ConfirmApply = std::function<bool(const Session::SchedulePreview &preview)>;
    void setApplyConfirmation(ConfirmApply confirm) { m_confirm = std::move(confirm); }

    // Edits, through the undo stack. False (nothing changed, the reason in the status line)
    // when refused.
    bool moveWindow(int row, int occurrenceDay, int newFromMinuteOfWeek);
    bool resizeWindow(int row, int fromMinute, int toMinute);
    bool addWindow(); // a new window in the week's first free time
    bool removeWindow(int row);
    bool setMode(const QString &mode);

public Q_SLOTS:
    // Asks the session what the schedule would do (SessionClient::previewSchedule); when it stops
    // or moves work or switches the policy, the operator confirms that plan first. Then sends
    // it with the confirmed evictions (setScheduleConfirmed): when the appliance has changed in
    // between, the session refuses it and the editor asks again with a fresh preview. Every
    // answer shows in the status line. Returns the preview's request id (0 when nothing was
    // sent).
    quint64 apply();
    void revert();

Q_SIGNALS:
    // The session accepted `params`: it is the policy in force.
    void scheduleApplied(const QJsonObject &params);
    void statusChanged(const QString &text);

protected:
    void changeEvent(QEvent *event) override;

private:
    enum Field { NameField, DaysField, FromField, ToField, ShareField, BandwidthField, PowerField };

    void buildUi();
    void retranslateUi();
    void setStatus(const QString &text);
    // The time zone line (when `timeZone`) and, given a snapshot, the policy in force.
    void refreshHeader(const Session::Snapshot *snapshot, bool timeZone);
    void refreshForm();
    void refreshSwitches();
    void refreshLoad();
    void refreshActions();
    void onSnapshot(const Session::SnapshotPtr &snapshot);
    void onCommandFinished(const Session::CommandResult &result);
    void onSchedulePreview(const Session::SchedulePreview &preview);
    void askForPreview();
    void commitField(Field field);
    bool pushWindowEdit(int row,
                        const Models::ScheduleWindow &after,
                        const QString &what,
                        int mergeField,
                        const QString &refusedPrefix);

    QPointer<Models::SessionClient> m_client;
    Models::ScheduleModel *m_model = nullptr;
    QUndoStack *m_undo = nullptr;
    QJsonObject m_revertPoint;
    QJsonObject m_pending;        // sent, not answered yet
    quint64 m_applyRequest = 0;   // its request; 0: none is being applied
    quint64 m_previewRequest = 0; // what m_pending would do, asked and not answered yet
    ConfirmApply m_confirm;
    int m_row = -1;
    bool m_refreshing = false;
    int m_utcOffsetSeconds = 0;
    bool m_haveClock = false;
    qint64 m_nowUtcMs = 0;
    quint64 m_lastSerial = 0;
    QList<double> m_forecast;
    QList<double> m_observedSum;
    QList<int> m_observedCount;

    ScheduleTimeline *m_timeline = nullptr;
    QLabel *m_timeZone = nullptr;
    QLabel *m_inForce = nullptr;
    QLabel *m_status = nullptr;
    QGroupBox *m_windowBox = nullptr;
    QLabel *m_nameLabel = nullptr;
    QLineEdit *m_name = nullptr;
    QLabel *m_daysLabel = nullptr;
    QList<QCheckBox *> m_days;
    QLabel *m_fromLabel = nullptr;
    QTimeEdit *m_from = nullptr;
    QLabel *m_toLabel = nullptr;
    QTimeEdit *m_to = nullptr;
    QLabel *m_shareLabel = nullptr;
    QSlider *m_shareSlider = nullptr;
    QSpinBox *m_share = nullptr;
    QLabel *m_bandwidthLabel = nullptr;
    QDoubleSpinBox *m_bandwidth = nullptr;
    QLabel *m_powerLabel = nullptr;
    QSpinBox *m_power = nullptr;
    QGroupBox *m_scheduleBox = nullptr;
    QLabel *m_modeLabel = nullptr;
    QComboBox *m_mode = nullptr;
    QGroupBox *m_switchesBox = nullptr;
    QListWidget *m_switches = nullptr;
    QToolButton *m_undoButton = nullptr;
    QToolButton *m_redoButton = nullptr;
    QPushButton *m_add = nullptr;
    QPushButton *m_remove = nullptr;
    QPushButton *m_applyButton = nullptr;
    QPushButton *m_revertButton = nullptr;
    QAction *m_undoAction = nullptr;
    QAction *m_redoAction = nullptr;
};

} // namespace Zhaoxi::Widgets
