// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/domain/ids.h"
#include "core/domain/workloadspec.h"
#include "core/session/session.h"

#include <QDialog>
#include <QHash>
#include <QJsonObject>
#include <QPointer>

#include <optional>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTabWidget;

namespace Zhaoxi::Models {
class SessionClient;
}

namespace Zhaoxi::Widgets {

// "New workload": a form for the common fields of a workload spec (docs/workload-spec.md) and a
// JSON tab with the whole spec, kept in sync both ways, and "Open spec file…". Every check is
// the project's reader, Domain::workloadSpecFromJson(): the form writes JSON, the reader reads
// it, and its SpecError is shown at the form widget of its field (red frame, tooltip, message
// below it) and in the JSON tab (with the line of a JSON syntax error); a field the form has no
// widget for is named below the tabs. Submit stays disabled while the reader refuses the spec.
//
// The form edits the keys it has widgets for and keeps every other key of a spec read from the
// JSON tab or a file (affinity, isolation, run.stopSignal, …). Editing the JSON updates the form
// when the reader accepts the text; while it does not, or when the form cannot show every value
// exactly (a line break in an argument or an environment value), the form is locked and says
// so, so that nothing typed in one place is silently lost in the other.
//
// Submit sends the spec, in the reader's canonical form (workloadSpecToJson), with
// SessionClient::submitWorkload() and waits for its commandFinished: a refusal is shown at the
// field the session names and the dialog stays open; on success the dialog emits
// workloadSubmitted() and closes (accept()). While it waits nothing can be edited, sent again or
// cancelled. GUI thread only.
class NewWorkloadDialog : public QDialog
{
    Q_OBJECT

public:
    // `client` not owned; null: the dialog edits and checks but cannot submit.
    explicit NewWorkloadDialog(Models::SessionClient *client, QWidget *parent = nullptr);

    // The JSON tab's text, and setting it as if typed there.
    QString specText() const;
    void setSpecText(const QString &text);
    // Reads a spec file into the JSON tab (it is then checked like typed text). False, with the
    // reason shown below the tabs, when the file cannot be read; the tab is then unchanged.
    bool loadSpecFile(const QString &path);

    // The spec as the reader accepted it; nullopt while it refuses it.
    const std::optional<Domain::WorkloadSpec> &spec() const { return m_spec; }
    // The problem shown now, the reader's or the session's (field empty when it is not one
    // field's); nullopt when there is none.
    const std::optional<Domain::SpecError> &problem() const { return m_problem; }
    // True while the form cannot follow the JSON tab (see above).
    bool isFormLocked() const { return m_formLocked; }

    // The form widget that shows problems of `field` (a JSON path such as "demand.cards",
    // "run.env.HOME", "inference.replicas.max"); nullptr when the form has none for it. The
    // widgets are named by their canonical path (objectName), their message labels path +
    // "/error".
    QWidget *fieldWidget(const QString &field) const;
    // The message shown at a form widget ("" when none).
    QString messageAt(const QWidget *widget) const;
    // The JSON tab's message, and the 1-based line it marks (0: none).
    QString jsonMessage() const;
    int jsonErrorLine() const { return m_jsonErrorLine; }
    // The message below the tabs ("" when hidden): problems without a form widget (not while the
    // JSON tab, which shows them, is current), file errors.
    QString generalMessage() const;

    QPushButton *submitButton() const { return m_submit; }
    QTabWidget *tabs() const { return m_tabs; }
    QWidget *formPage() const { return m_formPage; }
    // The job the session created (invalid until it accepted the spec).
    Domain::JobId submittedJob() const { return m_submitted; }

public Q_SLOTS:
    // Submits the spec; the dialog closes once the session accepted it.
    void accept() override;
    // Closes without submitting; ignored while a submission waits for its answer, which may
    // still create the job.
    void reject() override;

Q_SIGNALS:
    void workloadSubmitted(Zhaoxi::Domain::JobId job);

protected:
    void changeEvent(QEvent *event) override;

private:
    struct FormSpec
    {
        QJsonObject json;
        std::optional<Domain::SpecError> error; // the form's own syntax: a command line, env
    };

    QWidget *createForm();
    QWidget *createJsonPage();
    QWidget *addField(QFormLayout *form, QLabel *label, QWidget *field, const QString &path);
    void addAlias(const QString &alias, const QString &path);
    void retranslateUi();
    void updateComputeRows();
    void updateKindRows();

    FormSpec readForm() const;
    void fillForm(const Domain::WorkloadSpec &spec);
    void onFormEdited();
    void onJsonEdited();
    void setJsonText(const QString &text);
    void setFormLocked(bool locked, const QString &why);
    void showProblem(const std::optional<Domain::SpecError> &problem);
    void clearMarks();
    void updateSubmit();
    void setGeneral(const QString &text, bool repeatsJson);
    void updateGeneral();
    void openSpecFile();
    void onCommandFinished(const Session::CommandResult &result);
    void finishSubmission(const Session::CommandResult &result);

    QPointer<Models::SessionClient> m_client;
    QJsonObject m_base; // the keys of the last spec read from text that the form has no widget for
    std::optional<Domain::WorkloadSpec> m_spec;
    std::optional<Domain::SpecError> m_problem;
    bool m_formLocked = false;
    bool m_filling = false;
    bool m_settingText = false;
    int m_jsonErrorLine = 0;
    bool m_generalRepeatsJson = false;
    quint64 m_pending = 0;
    Domain::JobId m_submitted;

    QHash<QString, QWidget *> m_fields;          // canonical path (and aliases) -> widget
    QHash<const QWidget *, QLabel *> m_messages; // widget -> its message label
    QHash<const QWidget *, QString> m_hints;     // widget -> its tooltip when it has no error
    QWidget *m_marked = nullptr;

    QTabWidget *m_tabs = nullptr;
    QWidget *m_formPage = nullptr;
    QWidget *m_formBody = nullptr;
    QLabel *m_formLock = nullptr;
    QGroupBox *m_generalGroup = nullptr;
    QGroupBox *m_demandGroup = nullptr;
    QFormLayout *m_generalForm = nullptr;
    QFormLayout *m_demandForm = nullptr;
    QLineEdit *m_name = nullptr;
    QComboBox *m_kind = nullptr;
    QSpinBox *m_priority = nullptr;
    QComboBox *m_preemption = nullptr;
    QLineEdit *m_checkpoint = nullptr;
    QLineEdit *m_duration = nullptr;
    QLineEdit *m_deadline = nullptr;
    QComboBox *m_compute = nullptr;
    QComboBox *m_profile = nullptr;
    QSpinBox *m_slices = nullptr;
    QDoubleSpinBox *m_fraction = nullptr;
    QSpinBox *m_cards = nullptr;
    QSpinBox *m_memory = nullptr;
    QDoubleSpinBox *m_hostCpu = nullptr;
    QSpinBox *m_hostMemory = nullptr;
    QGroupBox *m_inference = nullptr;
    QLineEdit *m_service = nullptr;
    QDoubleSpinBox *m_slo = nullptr;
    QSpinBox *m_minReplicas = nullptr;
    QSpinBox *m_maxReplicas = nullptr;
    QGroupBox *m_run = nullptr;
    QComboBox *m_commandMode = nullptr;
    QWidget *m_commandBox = nullptr;
    QLineEdit *m_commandLine = nullptr;
    QPlainTextEdit *m_commandList = nullptr;
    QLineEdit *m_workdir = nullptr;
    QPlainTextEdit *m_env = nullptr;
    QLineEdit *m_user = nullptr;
    QPlainTextEdit *m_json = nullptr;
    QLabel *m_jsonError = nullptr;
    QLabel *m_general = nullptr;
    QPushButton *m_open = nullptr;
    QPushButton *m_submit = nullptr;
    QPushButton *m_cancel = nullptr;

    // Labels retranslated by retranslateUi().
    QHash<QString, QLabel *> m_labels;
};

} // namespace Zhaoxi::Widgets
