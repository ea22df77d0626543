// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/replay/advise.h"

#include <QJsonObject>
#include <QList>
#include <QWidget>

#include <functional>
#include <memory>

class QGroupBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QVBoxLayout;

namespace Zhaoxi::Widgets {

// What a look for advice found: written by the worker thread before it signals, read by the GUI
// thread after the queued signal arrives (the signal orders the two).
struct AdviceOutcome
{
    enum class Status {
        Running,
        Done,
        StoreUnreadable, // no store, or it cannot be opened (detail: why, in English)
        NothingRecorded, // the store holds no recorded run ("run-basis" event)
        Failed,          // advise failed (detail: core's reason, in English)
    };
    Status status = Status::Running;
    QString detail;
    std::optional<Replay::Advice> advice;
};

// "Advice" (issue 18): the console's `zhaoxictl advise`. "Look for advice" runs Replay::advise
// on a thread of the global pool with its own Storage::Reader on the session's store file (never
// the session's objects), the panel staying responsive; a second click while it runs does
// nothing. Then the suggestions, each worded here from its codes and parameters (AdviceText):
// the change, its evidence, its proof; "Apply…" for the kinds whose change is a windows schedule
// asks for confirmation and emits applyScheduleRequested (the main window hands it to the
// schedule editor, whose preview-and-confirm path applies it and the console's audit records
// it). The other kinds say where to make the change. Core's notes, in English, under "Details".
// Closing the console while advise runs does not wait in the GUI: QCoreApplication waits for the
// global pool on exit. GUI thread only.
class AdvicePanel : public QWidget
{
    Q_OBJECT

public:
    explicit AdvicePanel(QWidget *parent = nullptr);
    ~AdvicePanel() override;

    // The session's store (the file the appliance records into). Empty: none.
    void setStorePath(const QString &storePath);
    QString storePath() const { return m_storePath; }
    void setOptions(const Replay::AdviseOptions &options) { m_options = options; }

    bool isRunning() const;
    AdviceOutcome::Status status() const;
    // The suggestions shown (empty while running, on errors, or when there is none).
    QList<Replay::Suggestion> suggestions() const;

    // Asked before a suggestion is applied, with the change in words: true to go ahead. Null: a
    // QMessageBox. Tests replace it.
    using ConfirmApply = std::function<bool(const QString &changeText)>;
    void setApplyConfirmation(ConfirmApply confirm) { m_confirm = std::move(confirm); }

    // The widgets and texts shown (tests).
    QPushButton *lookButton() const { return m_look; }
    QString statusText() const;
    QString detailsText() const;
    QString headlineText(int index) const;
    QString evidenceText(int index) const;
    QString proofText(int index) const;
    QString hintText(int index) const;         // how to apply it, for the kinds without "Apply…"
    QPushButton *applyButton(int index) const; // null: its kind is not applied from here

public Q_SLOTS:
    // Starts advise on the store; nothing when it runs already.
    void lookForAdvice();
    // Confirms, then emits applyScheduleRequested. False when refused, or not a schedule kind.
    bool applySuggestion(int index);

Q_SIGNALS:
    void adviceStarted();
    void adviceFinished();
    // A schedule suggestion the operator confirmed: `windowsParams` the complete windows
    // schedule (for ScheduleEditor::setSchedule + apply), `suggestion` its Suggestion::toJson().
    void applyScheduleRequested(const QJsonObject &windowsParams, const QJsonObject &suggestion);

protected:
    void changeEvent(QEvent *event) override;

private:
    struct Row
    {
        QWidget *frame = nullptr;
        QLabel *headline = nullptr;
        QLabel *evidence = nullptr;
        QLabel *proof = nullptr;
        QLabel *hint = nullptr;
        QPushButton *apply = nullptr;
    };
    void onFinished(const std::shared_ptr<AdviceOutcome> &outcome);
    void retranslateUi();
    void showOutcome(bool rebuild);
    void rebuildRows();
    void rewordRows();

    QString m_storePath;
    Replay::AdviseOptions m_options;
    ConfirmApply m_confirm;
    bool m_running = false;
    std::shared_ptr<const AdviceOutcome> m_outcome;

    QLabel *m_intro = nullptr;
    QPushButton *m_look = nullptr;
    QLabel *m_status = nullptr;
    QWidget *m_list = nullptr;
    QVBoxLayout *m_listLayout = nullptr;
    QList<Row> m_rows;
    QGroupBox *m_detailsBox = nullptr;
    QPlainTextEdit *m_details = nullptr;
};

} // namespace Zhaoxi::Widgets
