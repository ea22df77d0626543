// SPDX-License-Identifier: GPL-3.0-or-later
// NewWorkloadDialog: reading the form and the JSON into one spec, showing its problems at their
// fields, and submitting it (the form itself is built in newworkloaddialog.cpp).
#include "newworkloaddialog.h"
#include "newworkloaddialog_p.h"

#include "commandline.h"
#include "commandtext.h"

#include "core/models/jobtablemodel.h"
#include "core/models/sessionclient.h"

#include <QColor>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSpinBox>
#include <QTabWidget>
#include <QTextBlock>
#include <QVBoxLayout>

#include <cmath>

namespace Zhaoxi::Widgets {

using Domain::SpecError;
using Domain::WorkloadKind;
using Domain::WorkloadSpec;
using Limits = Domain::WorkloadSpecLimits;

using namespace NewWorkloadText;

namespace {

// A spec file is a page of JSON; anything much larger is not one.
constexpr qint64 maxSpecFileBytes = 1024 * 1024;

const QString errorStyle = QStringLiteral("border: 2px solid #d32f2f;");

// The keys of `run` that only inference takes, and the one only training and batch take.
const QStringList inferenceOnlyRunKeys = {QStringLiteral("port"),
                                          QStringLiteral("ready"),
                                          QStringLiteral("readyTimeout"),
                                          QStringLiteral("metrics"),
                                          QStringLiteral("metricsPreset"),
                                          QStringLiteral("latencyMetric"),
                                          QStringLiteral("queueMetric"),
                                          QStringLiteral("latencyUnit")};
const QString progressTimeoutKey = QStringLiteral("progressTimeout");

// A duration field: empty leaves the key out (its default); a bare number is seconds, which
// the spec writes as a JSON number; anything else goes to the reader as the string it is.
void setDuration(QJsonObject &json, const QString &key, const QString &typed)
{
    static const QRegularExpression seconds(QStringLiteral("^[0-9]+(?:\\.[0-9]+)?$"));
    const QString text = typed.trimmed();
    if (text.isEmpty())
        json.remove(key);
    else if (seconds.match(text).hasMatch())
        json.insert(key, text.toDouble());
    else
        json.insert(key, text);
}

void setOptionalString(QJsonObject &json, const QString &key, const QString &text)
{
    if (text.isEmpty())
        json.remove(key);
    else
        json.insert(key, text);
}

QString durationText(qint64 ms)
{
    return ms > 0 ? Domain::durationToString(ms) : QString();
}

// "line 4, column 3" in a reader's message: the bytes reader says where JSON went wrong.
int lineOf(const QString &message)
{
    static const QRegularExpression re(QStringLiteral("\\bline (\\d+), column (\\d+)"));
    const QRegularExpressionMatch m = re.match(message);
    return m.hasMatch() ? m.captured(1).toInt() : 0;
}

// The session repeats the field in its English error ("run.user: ..."); the dialog shows the
// message at the field already.
QString withoutField(const QString &error, const QString &field)
{
    const QString prefix = field + QStringLiteral(": ");
    return !field.isEmpty() && error.startsWith(prefix) ? error.mid(prefix.size()) : error;
}

} // namespace

// ---- the form and the JSON --------------------------------------------------------------------

NewWorkloadDialog::FormSpec NewWorkloadDialog::readForm() const
{
    FormSpec out;
    QJsonObject &json = out.json;
    json = m_base;
    const QString kind = m_kind->currentData().toString();
    const bool inference = kind == Domain::toString(WorkloadKind::Inference);
    json.insert(QLatin1String("name"), m_name->text());
    json.insert(QLatin1String("kind"), kind);
    json.insert(QLatin1String("priority"), m_priority->value());
    json.insert(QLatin1String("preemption"), m_preemption->currentData().toString());
    setDuration(json, QStringLiteral("checkpointInterval"), m_checkpoint->text());

    QJsonObject demand = json.value(QLatin1String("demand")).toObject();
    // The form writes the canonical units; a spec read from text is already canonical, this
    // only keeps a stray alias from making the reader see both.
    for (const char *alias : {"memoryGiB", "hostCpu", "hostMemoryGiB"})
        demand.remove(QLatin1String(alias));
    const QString form = m_compute->currentData().toString();
    if (form == computeNone) {
        demand.remove(QLatin1String("compute"));
    } else if (form == computeProfile) {
        demand.insert(QLatin1String("compute"),
                      QJsonObject{{QLatin1String("profile"), m_profile->currentText().trimmed()}});
    } else if (form == computeSlices) {
        demand.insert(QLatin1String("compute"),
                      QJsonObject{{QLatin1String("slices"), m_slices->value()}});
    } else if (form == computeFraction) {
        demand.insert(QLatin1String("compute"),
                      QJsonObject{{QLatin1String("fraction"), m_fraction->value()}});
    } else {
        demand.insert(QLatin1String("compute"), QJsonObject{{QLatin1String("wholeCard"), true}});
    }
    demand.insert(QLatin1String("cards"), m_cards->value());
    demand.insert(QLatin1String("memoryMiB"), m_memory->value());
    demand.insert(QLatin1String("hostCpuMilli"), qint64(std::llround(m_hostCpu->value() * 1000)));
    demand.insert(QLatin1String("hostMemoryMiB"), m_hostMemory->value());
    json.insert(QLatin1String("demand"), demand);

    QJsonObject time = json.value(QLatin1String("time")).toObject();
    setDuration(time, QStringLiteral("expectedDuration"), m_duration->text());
    setOptionalString(time, QStringLiteral("deadline"), m_deadline->text().trimmed());
    if (time.isEmpty())
        json.remove(QLatin1String("time"));
    else
        json.insert(QLatin1String("time"), time);

    if (inference) {
        QJsonObject block = json.value(QLatin1String("inference")).toObject();
        block.insert(QLatin1String("service"), m_service->text());
        block.insert(QLatin1String("sloP99Ms"), m_slo->value());
        block.insert(QLatin1String("replicas"),
                     QJsonObject{{QLatin1String("min"), m_minReplicas->value()},
                                 {QLatin1String("max"), m_maxReplicas->value()}});
        json.insert(QLatin1String("inference"), block);
    } else {
        json.remove(QLatin1String("inference"));
    }

    if (!m_run->isChecked()) {
        json.remove(QLatin1String("run"));
        return out;
    }
    QJsonObject run = json.value(QLatin1String("run")).toObject();
    // The kind decides which of run's keys apply: a kind changed on the form takes the keys of
    // the other kinds away with it instead of leaving the reader to refuse them.
    if (inference) {
        run.remove(progressTimeoutKey);
    } else {
        for (const QString &key : inferenceOnlyRunKeys)
            run.remove(key);
    }
    QStringList command;
    if (m_commandMode->currentIndex() == 0) {
        QString why;
        const std::optional<QStringList> args = splitCommandLine(m_commandLine->text(), &why);
        if (args)
            command = *args;
        else
            out.error = SpecError{QStringLiteral("run.command"), why};
    } else {
        command = argumentsFromLines(m_commandList->toPlainText());
    }
    run.insert(QLatin1String("command"), QJsonArray::fromStringList(command));
    setOptionalString(run, QStringLiteral("workdir"), m_workdir->text());
    setOptionalString(run, QStringLiteral("user"), m_user->text());

    QJsonObject env;
    const QStringList lines = m_env->toPlainText().split(u'\n');
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const QString &line = lines[i];
        if (line.trimmed().isEmpty())
            continue;
        const qsizetype eq = line.indexOf(u'=');
        if (eq < 0) {
            if (!out.error)
                out.error = SpecError{QStringLiteral("run.env"),
                                      tr("Line %1 is not NAME=VALUE.").arg(i + 1)};
            continue;
        }
        const QString name = line.left(eq);
        if (env.contains(name)) {
            if (!out.error)
                out.error
                        = SpecError{QStringLiteral("run.env"),
                                    tr("Line %1 sets %2 again.").arg(QString::number(i + 1), name)};
            continue;
        }
        env.insert(name, line.mid(eq + 1));
    }
    run.insert(QLatin1String("env"), env);
    json.insert(QLatin1String("run"), run);
    return out;
}

void NewWorkloadDialog::fillForm(const WorkloadSpec &spec)
{
    m_filling = true;
    m_name->setText(spec.name);
    m_kind->setCurrentIndex(m_kind->findData(Domain::toString(spec.kind)));
    m_priority->setValue(spec.priority);
    m_preemption->setCurrentIndex(m_preemption->findData(Domain::toString(spec.preemption)));
    m_checkpoint->setText(durationText(spec.checkpointIntervalMs));
    m_duration->setText(durationText(spec.time.expectedDurationMs));
    m_deadline->setText(spec.time.deadlineMs ? workloadSpecToJson(spec)
                                                       .value(QLatin1String("time"))
                                                       .toObject()
                                                       .value(QLatin1String("deadline"))
                                                       .toString()
                                             : QString());

    const Domain::ComputeDemand &c = spec.demand.compute;
    QString form = computeWhole;
    if (spec.demand.cards == 0) {
        form = computeNone;
    } else if (c.kind == Domain::ComputeDemand::Kind::MigProfile) {
        form = computeProfile;
        m_profile->setCurrentText(c.profile);
    } else if (c.kind == Domain::ComputeDemand::Kind::MigSlices) {
        form = computeSlices;
        m_slices->setValue(c.slices);
    } else if (c.kind == Domain::ComputeDemand::Kind::Fraction) {
        form = computeFraction;
        m_fraction->setValue(c.milli / 1000.0);
    }
    m_compute->setCurrentIndex(m_compute->findData(form));
    m_cards->setValue(spec.demand.cards);
    m_memory->setValue(int(spec.demand.memoryMiB));
    m_hostCpu->setValue(double(spec.demand.hostCpuMilli) / 1000.0);
    m_hostMemory->setValue(int(spec.demand.hostMemoryMiB));

    if (spec.inference) {
        m_service->setText(spec.inference->service);
        m_slo->setValue(spec.inference->sloP99Ms);
        m_minReplicas->setValue(spec.inference->minReplicas);
        m_maxReplicas->setValue(spec.inference->maxReplicas);
    }

    m_run->setChecked(spec.run.has_value());
    if (spec.run) {
        const Domain::RunSpec &run = *spec.run;
        // Both editors, so that switching between them keeps the arguments.
        m_commandLine->setText(joinCommandLine(run.command));
        m_commandList->setPlainText(linesFromArguments(run.command));
        m_workdir->setText(run.workdir);
        QStringList env;
        for (auto it = run.env.begin(); it != run.env.end(); ++it)
            env.append(it.key() + u'=' + it.value());
        m_env->setPlainText(env.join(u'\n'));
        m_user->setText(run.user);
    }
    m_filling = false;
    updateComputeRows();
    updateKindRows();
}

void NewWorkloadDialog::onFormEdited()
{
    if (m_filling || m_formLocked)
        return;
    const FormSpec form = readForm();
    setJsonText(QString::fromUtf8(QJsonDocument(form.json).toJson(QJsonDocument::Indented)));
    if (form.error) {
        m_spec.reset();
        showProblem(form.error);
        return;
    }
    SpecError error;
    m_spec = Domain::workloadSpecFromJson(form.json, &error);
    showProblem(m_spec ? std::nullopt : std::optional<SpecError>(error));
}

void NewWorkloadDialog::onJsonEdited()
{
    if (m_settingText)
        return;
    const QByteArray utf8 = m_json->toPlainText().toUtf8();
    SpecError error;
    m_spec = Domain::workloadSpecFromJson(utf8, &error);
    if (!m_spec) {
        setFormLocked(true,
                      tr("The JSON tab has a problem, so the form cannot show it. Fix it "
                         "there to use the form again."));
        showProblem(error);
        return;
    }
    // The canonical form: the form's keys are overwritten from the widgets, the rest are kept.
    m_base = Domain::workloadSpecToJson(*m_spec);
    fillForm(*m_spec);
    // The form must give back exactly this spec, or editing it would change values unseen.
    const FormSpec form = readForm();
    const std::optional<WorkloadSpec> back
            = form.error ? std::nullopt : Domain::workloadSpecFromJson(form.json, nullptr);
    if (!back || !(*back == *m_spec)) {
        setFormLocked(true,
                      tr("The form cannot show every value of this spec exactly (for example a "
                         "line break in an argument or an environment value); edit it in the "
                         "JSON tab."));
    } else {
        setFormLocked(false, QString());
    }
    showProblem(std::nullopt);
}

void NewWorkloadDialog::setJsonText(const QString &text)
{
    if (m_json->toPlainText() == text)
        return;
    m_settingText = true;
    m_json->setPlainText(text);
    m_settingText = false;
}

void NewWorkloadDialog::setFormLocked(bool locked, const QString &why)
{
    m_formLocked = locked;
    m_formBody->setEnabled(!locked);
    m_formLock->setText(why);
    m_formLock->setHidden(!locked);
}

QString NewWorkloadDialog::specText() const
{
    return m_json->toPlainText();
}

void NewWorkloadDialog::setSpecText(const QString &text)
{
    // As typed: onJsonEdited() reads it.
    m_json->setPlainText(text);
}

bool NewWorkloadDialog::loadSpecFile(const QString &path)
{
    QFile file(path);
    QString why;
    QByteArray bytes;
    if (!file.open(QIODevice::ReadOnly)) {
        why = file.errorString();
    } else if (file.size() > maxSpecFileBytes) {
        why = tr("it is larger than %1 KiB, too large for a spec").arg(maxSpecFileBytes / 1024);
    } else {
        bytes = file.readAll();
        if (file.error() != QFileDevice::NoError)
            why = file.errorString();
    }
    if (!why.isEmpty()) {
        setGeneral(tr("Could not read %1: %2").arg(QDir::toNativeSeparators(path), why), false);
        return false;
    }
    setSpecText(QString::fromUtf8(bytes));
    // A file the reader refuses is shown where its problem can be seen.
    if (!m_spec)
        m_tabs->setCurrentIndex(1);
    return true;
}

void NewWorkloadDialog::openSpecFile()
{
    const QString path = QFileDialog::getOpenFileName(this,
                                                      tr("Open workload spec"),
                                                      QString(),
                                                      tr("Workload specs (*.json);;All files (*)"));
    if (!path.isEmpty())
        loadSpecFile(path);
}

// ---- problems ---------------------------------------------------------------------------------

QWidget *NewWorkloadDialog::fieldWidget(const QString &field) const
{
    // "run.env.HOME" is shown at run.env, "run.command[0]" at run.command, "demand.compute.
    // wholeCard" at demand.compute: the nearest enclosing path the form has a widget for.
    static const QRegularExpression last(QStringLiteral("(?:\\.[^.\\[]*|\\[\\d+\\])$"));
    QString path = field;
    while (!path.isEmpty()) {
        if (QWidget *w = m_fields.value(path)) {
            if (w == m_commandLine && m_commandMode->currentIndex() == 1)
                return m_commandList;
            return w;
        }
        const QRegularExpressionMatch m = last.match(path);
        if (!m.hasMatch())
            break;
        path.chop(m.capturedLength());
    }
    return nullptr;
}

QString NewWorkloadDialog::messageAt(const QWidget *widget) const
{
    const QLabel *label = m_messages.value(widget);
    return widget == m_marked && label && !label->isHidden() ? label->text() : QString();
}

QString NewWorkloadDialog::jsonMessage() const
{
    return m_jsonError->isHidden() ? QString() : m_jsonError->text();
}

QString NewWorkloadDialog::generalMessage() const
{
    return m_general->isHidden() ? QString() : m_general->text();
}

void NewWorkloadDialog::clearMarks()
{
    if (m_marked) {
        m_marked->setStyleSheet(QString());
        m_marked->setToolTip(m_hints.value(m_marked));
        if (QLabel *label = m_messages.value(m_marked))
            label->hide();
        m_marked = nullptr;
    }
    m_jsonError->hide();
    m_json->setExtraSelections({});
    m_jsonErrorLine = 0;
    setGeneral(QString(), false);
}

void NewWorkloadDialog::showProblem(const std::optional<SpecError> &problem)
{
    clearMarks();
    m_problem = problem;
    if (problem) {
        const QString field = problem->field;
        QWidget *widget = m_formLocked ? nullptr : fieldWidget(field);
        if (widget) {
            m_marked = widget;
            widget->setStyleSheet(errorStyle);
            widget->setToolTip(specProblemText(problem->message));
            QLabel *label = m_messages.value(widget);
            label->setText(specProblemText(problem->message));
            label->show();
        } else {
            setGeneral(problem->toString(), true);
        }
        m_jsonError->setText(problem->toString());
        m_jsonError->show();
        m_jsonErrorLine = lineOf(problem->message);
        if (m_jsonErrorLine > 0) {
            const QTextBlock block = m_json->document()->findBlockByNumber(m_jsonErrorLine - 1);
            if (block.isValid()) {
                QTextEdit::ExtraSelection mark;
                mark.cursor = QTextCursor(block);
                mark.format.setBackground(QColor(0xff, 0xcd, 0xd2));
                mark.format.setProperty(QTextFormat::FullWidthSelection, true);
                m_json->setExtraSelections({mark});
            }
        }
    }
    updateSubmit();
}

void NewWorkloadDialog::setGeneral(const QString &text, bool repeatsJson)
{
    m_general->setText(text);
    m_generalRepeatsJson = repeatsJson;
    updateGeneral();
}

void NewWorkloadDialog::updateGeneral()
{
    // The JSON tab says a spec's problem itself; below it the same words would only repeat it.
    const bool repeats = m_generalRepeatsJson && m_tabs->currentIndex() == 1;
    m_general->setHidden(m_general->text().isEmpty() || repeats);
}

void NewWorkloadDialog::updateSubmit()
{
    m_submit->setEnabled(m_client && m_spec && !m_problem && m_pending == 0);
}

// ---- submitting -------------------------------------------------------------------------------

void NewWorkloadDialog::accept()
{
    if (!m_client || !m_spec || m_problem || m_pending != 0)
        return;
    const QJsonObject spec = Domain::workloadSpecToJson(*m_spec);
    m_pending = m_client->submitWorkload(spec);
    m_tabs->setEnabled(false);
    m_open->setEnabled(false);
    m_cancel->setEnabled(false);
    setGeneral(tr("Submitting…"), false);
    m_general->setStyleSheet(QString());
    updateSubmit();
}

void NewWorkloadDialog::reject()
{
    if (m_pending != 0)
        return;
    QDialog::reject();
}

void NewWorkloadDialog::onCommandFinished(const Session::CommandResult &result)
{
    if (m_pending == 0 || result.request != m_pending)
        return;
    m_pending = 0;
    m_tabs->setEnabled(true);
    m_open->setEnabled(true);
    m_cancel->setEnabled(true);
    m_general->setStyleSheet(messageStyle);
    finishSubmission(result);
}

void NewWorkloadDialog::finishSubmission(const Session::CommandResult &result)
{
    if (result.ok) {
        m_submitted = result.job;
        Q_EMIT workloadSubmitted(result.job);
        QDialog::accept();
        return;
    }
    // The session's refusal stays until the next edit, which the reader checks anew.
    // A coded refusal in the console's words; a reader's or the runtime's English (Code::Text)
    // without the field it names, which the form shows beside it.
    const QString message
            = !result.problem.isNone() && result.problem.code != Domain::Problem::Code::Text
                      ? problemText(result.problem, result.status)
              : result.error.isEmpty() ? tr("The appliance refused the workload.")
                                       : commandErrorText(withoutField(result.error, result.field));
    showProblem(SpecError{result.field, message});
    if (QWidget *w = fieldWidget(result.field); w && !m_formLocked) {
        m_tabs->setCurrentIndex(0);
        w->setFocus();
    }
}

} // namespace Zhaoxi::Widgets
