// SPDX-License-Identifier: GPL-3.0-or-later
#include "newworkloaddialog.h"

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

namespace {

// A spec file is a page of JSON; anything much larger is not one.
constexpr qint64 maxSpecFileBytes = 1024 * 1024;

const QString errorStyle = QStringLiteral("border: 2px solid #d32f2f;");
const QString messageStyle = QStringLiteral("QLabel { color: #b71c1c; }");

// The compute forms of docs/workload-spec.md, and a CPU-only job's lack of one.
const QString computeWhole = QStringLiteral("wholeCard");
const QString computeProfile = QStringLiteral("profile");
const QString computeSlices = QStringLiteral("slices");
const QString computeFraction = QStringLiteral("fraction");
const QString computeNone = QStringLiteral("none");

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

// One argument per line; a trailing line break ends the last argument rather than starting an
// empty one, so an empty last argument is written with one more.
QStringList argumentsFromLines(const QString &text)
{
    if (text.isEmpty())
        return {};
    QStringList lines = text.split(u'\n');
    if (lines.constLast().isEmpty())
        lines.removeLast();
    return lines;
}

QString linesFromArguments(const QStringList &arguments)
{
    QString text = arguments.join(u'\n');
    if (!arguments.isEmpty() && arguments.constLast().isEmpty())
        text += u'\n';
    return text;
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

QSpinBox *spinBox(int lo, int hi, QWidget *parent)
{
    auto *box = new QSpinBox(parent);
    box->setRange(lo, hi);
    return box;
}

} // namespace

NewWorkloadDialog::NewWorkloadDialog(Models::SessionClient *client, QWidget *parent)
    : QDialog(parent)
    , m_client(client)
{
    setObjectName(QStringLiteral("newWorkloadDialog"));
    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("specTabs"));
    m_tabs->addTab(createForm(), QString());
    m_tabs->addTab(createJsonPage(), QString());

    m_general = new QLabel(this);
    m_general->setObjectName(QStringLiteral("generalError"));
    m_general->setWordWrap(true);
    m_general->setStyleSheet(messageStyle);
    m_general->hide();

    auto *buttons = new QDialogButtonBox(this);
    m_open = buttons->addButton(QString(), QDialogButtonBox::ActionRole);
    m_open->setObjectName(QStringLiteral("openSpec"));
    m_submit = buttons->addButton(QString(), QDialogButtonBox::AcceptRole);
    m_submit->setObjectName(QStringLiteral("submit"));
    m_submit->setDefault(true);
    m_cancel = buttons->addButton(QDialogButtonBox::Cancel);
    connect(m_open, &QPushButton::clicked, this, &NewWorkloadDialog::openSpecFile);
    connect(buttons, &QDialogButtonBox::accepted, this, &NewWorkloadDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_tabs, 1);
    layout->addWidget(m_general);
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] { updateGeneral(); });
    layout->addWidget(buttons);

    if (client) {
        connect(client,
                &Models::SessionClient::commandFinished,
                this,
                &NewWorkloadDialog::onCommandFinished);
    }

    retranslateUi();
    updateComputeRows();
    updateKindRows();
    onFormEdited();
    resize(640, 720);
}

QWidget *NewWorkloadDialog::addField(QFormLayout *form,
                                     QLabel *label,
                                     QWidget *field,
                                     const QString &path)
{
    auto *row = new QWidget(form->parentWidget());
    auto *rowLayout = new QVBoxLayout(row);
    rowLayout->setContentsMargins(0, 0, 0, 0);
    rowLayout->setSpacing(2);
    rowLayout->addWidget(field);
    auto *message = new QLabel(row);
    message->setObjectName(path + QStringLiteral("/error"));
    message->setWordWrap(true);
    message->setStyleSheet(messageStyle);
    message->hide();
    rowLayout->addWidget(message);
    if (field->objectName().isEmpty())
        field->setObjectName(path);
    label->setBuddy(field);
    form->addRow(label, row);
    m_fields.insert(path, field);
    m_messages.insert(field, message);
    m_labels.insert(path, label);
    return row;
}

void NewWorkloadDialog::addAlias(const QString &alias, const QString &path)
{
    m_fields.insert(alias, m_fields.value(path));
}

QWidget *NewWorkloadDialog::createForm()
{
    m_formPage = new QWidget(this);
    m_formPage->setObjectName(QStringLiteral("formPage"));
    m_formLock = new QLabel(m_formPage);
    m_formLock->setObjectName(QStringLiteral("formLock"));
    m_formLock->setWordWrap(true);
    m_formLock->setStyleSheet(QStringLiteral(
            "QLabel { background: #fff4ce; color: #4a3b00; border: 1px solid #d9b600;"
            " padding: 4px; }"));
    m_formLock->hide();

    m_formBody = new QWidget;
    auto *body = new QVBoxLayout(m_formBody);
    const auto label = [this] { return new QLabel(m_formBody); };

    // The workload itself.
    auto *general = new QGroupBox(m_formBody);
    general->setObjectName(QStringLiteral("generalGroup"));
    m_generalGroup = general;
    m_generalForm = new QFormLayout(general);
    m_name = new QLineEdit(general);
    m_name->setMaxLength(Limits::maxNameLength + 1); // one over: the reader says what is too long
    addField(m_generalForm, label(), m_name, QStringLiteral("name"));
    m_kind = new QComboBox(general);
    for (WorkloadKind k : {WorkloadKind::Training, WorkloadKind::Inference, WorkloadKind::Batch})
        m_kind->addItem(QString(), Domain::toString(k));
    addField(m_generalForm, label(), m_kind, QStringLiteral("kind"));
    m_priority = spinBox(Limits::minPriority, Limits::maxPriority, general);
    addField(m_generalForm, label(), m_priority, QStringLiteral("priority"));
    m_preemption = new QComboBox(general);
    for (auto t : {Domain::PreemptionTolerance::Restart,
                   Domain::PreemptionTolerance::AtCheckpoint,
                   Domain::PreemptionTolerance::Never}) {
        m_preemption->addItem(QString(), Domain::toString(t));
    }
    addField(m_generalForm, label(), m_preemption, QStringLiteral("preemption"));
    m_checkpoint = new QLineEdit(general);
    addField(m_generalForm, label(), m_checkpoint, QStringLiteral("checkpointInterval"));
    m_duration = new QLineEdit(general);
    addField(m_generalForm, label(), m_duration, QStringLiteral("time.expectedDuration"));
    m_deadline = new QLineEdit(general);
    m_deadline->setPlaceholderText(QStringLiteral("2026-12-01T08:00:00Z"));
    addField(m_generalForm, label(), m_deadline, QStringLiteral("time.deadline"));
    addAlias(QStringLiteral("time"), QStringLiteral("time.expectedDuration"));
    body->addWidget(general);

    // What one unit needs, and how many units.
    auto *demand = new QGroupBox(m_formBody);
    demand->setObjectName(QStringLiteral("demandGroup"));
    m_demandGroup = demand;
    m_demandForm = new QFormLayout(demand);
    m_compute = new QComboBox(demand);
    for (const QString &form :
         {computeWhole, computeProfile, computeSlices, computeFraction, computeNone})
        m_compute->addItem(QString(), form);
    addField(m_demandForm, label(), m_compute, QStringLiteral("demand.compute"));
    m_profile = new QComboBox(demand);
    m_profile->setEditable(true);
    m_profile->setInsertPolicy(QComboBox::NoInsert);
    // The profiles of the appliance's own card models first; any well-formed name is accepted.
    QStringList profiles;
    if (m_client && m_client->snapshot()) {
        const Sched::ClusterState &state = m_client->snapshot()->state;
        for (const Sched::CardState &card : state.cards()) {
            for (const Domain::MigProfile &p : state.model(card).migProfiles) {
                if (!profiles.contains(p.name))
                    profiles.append(p.name);
            }
        }
    }
    if (profiles.isEmpty())
        profiles = {QStringLiteral("1g.10gb"),
                    QStringLiteral("2g.20gb"),
                    QStringLiteral("3g.40gb"),
                    QStringLiteral("4g.40gb"),
                    QStringLiteral("7g.80gb")};
    m_profile->addItems(profiles);
    m_profile->setCurrentText(QString());
    m_profile->lineEdit()->setPlaceholderText(QStringLiteral("3g.40gb"));
    addField(m_demandForm, label(), m_profile, QStringLiteral("demand.compute.profile"));
    m_slices = spinBox(1, Limits::maxMigSlices, demand);
    addField(m_demandForm, label(), m_slices, QStringLiteral("demand.compute.slices"));
    m_fraction = new QDoubleSpinBox(demand);
    m_fraction->setDecimals(3);
    m_fraction->setRange(0.001, 1.0);
    m_fraction->setSingleStep(0.05);
    m_fraction->setValue(0.25);
    addField(m_demandForm, label(), m_fraction, QStringLiteral("demand.compute.fraction"));
    m_cards = spinBox(0, Limits::maxCards, demand);
    m_cards->setValue(1);
    addField(m_demandForm, label(), m_cards, QStringLiteral("demand.cards"));
    m_memory = spinBox(0, int(Limits::maxMemoryMiB), demand);
    m_memory->setSingleStep(1024);
    m_memory->setSuffix(QStringLiteral(" MiB"));
    addField(m_demandForm, label(), m_memory, QStringLiteral("demand.memoryMiB"));
    addAlias(QStringLiteral("demand.memoryGiB"), QStringLiteral("demand.memoryMiB"));
    m_hostCpu = new QDoubleSpinBox(demand);
    m_hostCpu->setDecimals(3);
    m_hostCpu->setRange(0, double(Limits::maxHostCpuMilli) / 1000.0);
    addField(m_demandForm, label(), m_hostCpu, QStringLiteral("demand.hostCpuMilli"));
    addAlias(QStringLiteral("demand.hostCpu"), QStringLiteral("demand.hostCpuMilli"));
    m_hostMemory = spinBox(0, int(Limits::maxHostMemoryMiB), demand);
    m_hostMemory->setSingleStep(1024);
    m_hostMemory->setSuffix(QStringLiteral(" MiB"));
    addField(m_demandForm, label(), m_hostMemory, QStringLiteral("demand.hostMemoryMiB"));
    addAlias(QStringLiteral("demand.hostMemoryGiB"), QStringLiteral("demand.hostMemoryMiB"));
    body->addWidget(demand);

    // A service's objective and its replicas.
    m_inference = new QGroupBox(m_formBody);
    m_inference->setObjectName(QStringLiteral("inferenceGroup"));
    auto *inference = new QFormLayout(m_inference);
    m_service = new QLineEdit(m_inference);
    addField(inference, label(), m_service, QStringLiteral("inference.service"));
    addAlias(QStringLiteral("inference"), QStringLiteral("inference.service"));
    m_slo = new QDoubleSpinBox(m_inference);
    m_slo->setDecimals(3);
    m_slo->setRange(0, Limits::maxSloP99Ms);
    m_slo->setSuffix(QStringLiteral(" ms"));
    m_slo->setValue(250);
    addField(inference, label(), m_slo, QStringLiteral("inference.sloP99Ms"));
    m_minReplicas = spinBox(1, Limits::maxReplicas, m_inference);
    addField(inference, label(), m_minReplicas, QStringLiteral("inference.replicas.min"));
    addAlias(QStringLiteral("inference.replicas"), QStringLiteral("inference.replicas.min"));
    m_maxReplicas = spinBox(1, Limits::maxReplicas, m_inference);
    addField(inference, label(), m_maxReplicas, QStringLiteral("inference.replicas.max"));
    body->addWidget(m_inference);

    // What the appliance starts.
    m_run = new QGroupBox(m_formBody);
    m_run->setObjectName(QStringLiteral("runGroup"));
    m_run->setCheckable(true);
    m_run->setChecked(true);
    auto *run = new QFormLayout(m_run);
    m_commandMode = new QComboBox(m_run);
    m_commandMode->setObjectName(QStringLiteral("commandMode"));
    m_commandMode->addItem(QString(), QStringLiteral("line"));
    m_commandMode->addItem(QString(), QStringLiteral("list"));
    auto *modeLabel = new QLabel(m_run);
    modeLabel->setBuddy(m_commandMode);
    run->addRow(modeLabel, m_commandMode);
    m_labels.insert(QStringLiteral("commandMode"), modeLabel);
    // Both editors in one row, one of them shown: the row is as tall as the one in use.
    m_commandBox = new QWidget(m_run);
    m_commandBox->setObjectName(QStringLiteral("commandBox"));
    m_commandLine = new QLineEdit(m_commandBox);
    m_commandLine->setObjectName(QStringLiteral("run.command"));
    m_commandList = new QPlainTextEdit(m_commandBox);
    m_commandList->setObjectName(QStringLiteral("run.commandList"));
    m_commandList->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_commandList->setTabChangesFocus(true);
    m_commandList->setFixedHeight(m_commandList->fontMetrics().lineSpacing() * 5 + 12);
    m_commandList->hide();
    auto *commandLayout = new QVBoxLayout(m_commandBox);
    commandLayout->setContentsMargins(0, 0, 0, 0);
    commandLayout->addWidget(m_commandLine);
    commandLayout->addWidget(m_commandList);
    addField(run, label(), m_commandBox, QStringLiteral("run.command"));
    // Problems of the command are shown at the editor in use (see fieldWidget()).
    m_messages.insert(m_commandLine, m_messages.value(m_commandBox));
    m_messages.insert(m_commandList, m_messages.value(m_commandBox));
    m_fields.insert(QStringLiteral("run.command"), m_commandLine);
    m_labels.value(QStringLiteral("run.command"))->setBuddy(m_commandLine);
    addAlias(QStringLiteral("run"), QStringLiteral("run.command"));
    m_workdir = new QLineEdit(m_run);
    m_workdir->setPlaceholderText(QStringLiteral("/srv/work"));
    addField(run, label(), m_workdir, QStringLiteral("run.workdir"));
    m_env = new QPlainTextEdit(m_run);
    m_env->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_env->setTabChangesFocus(true);
    m_env->setFixedHeight(m_env->fontMetrics().lineSpacing() * 4 + 12);
    m_env->setPlaceholderText(QStringLiteral("HF_HOME=/srv/models"));
    addField(run, label(), m_env, QStringLiteral("run.env"));
    m_user = new QLineEdit(m_run);
    addField(run, label(), m_user, QStringLiteral("run.user"));
    body->addWidget(m_run);
    body->addStretch(1);

    auto *scroll = new QScrollArea(m_formPage);
    scroll->setObjectName(QStringLiteral("formScroll"));
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(m_formBody);
    auto *page = new QVBoxLayout(m_formPage);
    page->addWidget(m_formLock);
    page->addWidget(scroll, 1);

    const auto edited = [this] { onFormEdited(); };
    for (QLineEdit *e : {m_name,
                         m_checkpoint,
                         m_duration,
                         m_deadline,
                         m_service,
                         m_commandLine,
                         m_workdir,
                         m_user})
        connect(e, &QLineEdit::textChanged, this, edited);
    for (QSpinBox *s :
         {m_priority, m_slices, m_cards, m_memory, m_hostMemory, m_minReplicas, m_maxReplicas})
        connect(s, &QSpinBox::valueChanged, this, edited);
    for (QDoubleSpinBox *s : {m_fraction, m_hostCpu, m_slo})
        connect(s, &QDoubleSpinBox::valueChanged, this, edited);
    for (QComboBox *c : {m_kind, m_preemption, m_compute})
        connect(c, &QComboBox::currentIndexChanged, this, edited);
    connect(m_profile, &QComboBox::currentTextChanged, this, edited);
    for (QPlainTextEdit *t : {m_commandList, m_env})
        connect(t, &QPlainTextEdit::textChanged, this, edited);
    connect(m_run, &QGroupBox::toggled, this, edited);
    connect(m_compute, &QComboBox::currentIndexChanged, this, [this] { updateComputeRows(); });
    connect(m_kind, &QComboBox::currentIndexChanged, this, [this] { updateKindRows(); });
    connect(m_commandMode, &QComboBox::currentIndexChanged, this, [this](int mode) {
        m_commandLine->setVisible(mode == 0);
        m_commandList->setVisible(mode == 1);
        // The other editor takes over the same arguments, as far as they split.
        if (m_filling)
            return;
        m_filling = true;
        if (mode == 1) {
            const std::optional<QStringList> args = splitCommandLine(m_commandLine->text());
            if (args)
                m_commandList->setPlainText(linesFromArguments(*args));
        } else {
            m_commandLine->setText(
                    joinCommandLine(argumentsFromLines(m_commandList->toPlainText())));
        }
        m_filling = false;
        onFormEdited();
    });
    return m_formPage;
}

QWidget *NewWorkloadDialog::createJsonPage()
{
    auto *page = new QWidget(this);
    page->setObjectName(QStringLiteral("jsonPage"));
    m_json = new QPlainTextEdit(page);
    m_json->setObjectName(QStringLiteral("json"));
    m_json->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_json->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_json->setTabChangesFocus(false);
    m_jsonError = new QLabel(page);
    m_jsonError->setObjectName(QStringLiteral("jsonError"));
    m_jsonError->setWordWrap(true);
    m_jsonError->setStyleSheet(messageStyle);
    m_jsonError->hide();
    auto *layout = new QVBoxLayout(page);
    layout->addWidget(m_json, 1);
    layout->addWidget(m_jsonError);
    connect(m_json, &QPlainTextEdit::textChanged, this, &NewWorkloadDialog::onJsonEdited);
    return page;
}

void NewWorkloadDialog::updateComputeRows()
{
    const QString form = m_compute->currentData().toString();
    m_demandForm->setRowVisible(m_profile->parentWidget(), form == computeProfile);
    m_demandForm->setRowVisible(m_slices->parentWidget(), form == computeSlices);
    m_demandForm->setRowVisible(m_fraction->parentWidget(), form == computeFraction);
}

void NewWorkloadDialog::updateKindRows()
{
    m_inference->setEnabled(m_kind->currentData().toString()
                            == Domain::toString(WorkloadKind::Inference));
}

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
            widget->setToolTip(problem->message);
            QLabel *label = m_messages.value(widget);
            label->setText(problem->message);
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
    // A session on this thread answers inside the call, before its request id is known here.
    m_issuing = true;
    m_answeredNow.reset();
    const quint64 request = m_client->submitWorkload(spec);
    m_issuing = false;
    if (m_answeredNow && m_answeredNow->request == request) {
        const Session::CommandResult result = *m_answeredNow;
        m_answeredNow.reset();
        finishSubmission(result);
        return;
    }
    m_pending = request;
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
    if (m_issuing) {
        m_answeredNow = result;
        return;
    }
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
    const QString message = result.error.isEmpty()
                                    ? tr("The appliance refused the workload.")
                                    : commandErrorText(withoutField(result.error, result.field));
    showProblem(SpecError{result.field, message});
    if (QWidget *w = fieldWidget(result.field); w && !m_formLocked) {
        m_tabs->setCurrentIndex(0);
        w->setFocus();
    }
}

// ---- words ------------------------------------------------------------------------------------

void NewWorkloadDialog::retranslateUi()
{
    setWindowTitle(tr("New workload"));
    m_tabs->setTabText(0, tr("Form"));
    m_tabs->setTabText(1, tr("JSON"));
    m_open->setText(tr("&Open spec file…"));
    m_submit->setText(tr("Submit"));

    const auto setLabel = [this](const QString &path, const QString &text) {
        if (QLabel *l = m_labels.value(path))
            l->setText(text);
    };
    const auto setHint = [this](QWidget *w, const QString &hint) {
        m_hints.insert(w, hint);
        if (w != m_marked)
            w->setToolTip(hint);
    };
    m_generalGroup->setTitle(tr("Workload"));
    m_demandGroup->setTitle(tr("Demand"));
    m_inference->setTitle(tr("Inference service"));
    m_run->setTitle(tr("Run a command"));
    m_run->setToolTip(tr("What the appliance starts for each unit. The real appliance needs it; "
                         "the digital twin models workloads without one."));

    setLabel(QStringLiteral("name"), tr("&Name:"));
    setLabel(QStringLiteral("kind"), tr("&Kind:"));
    for (int i = 0; i < m_kind->count(); ++i) {
        Domain::WorkloadKind k = WorkloadKind::Batch;
        Domain::workloadKindFromString(m_kind->itemData(i).toString(), &k);
        m_kind->setItemText(i, Models::JobTableModel::kindText(k));
    }
    setLabel(QStringLiteral("priority"), tr("&Priority:"));
    setHint(m_priority,
            tr("Higher runs first and may preempt lower (%1 to %2)")
                    .arg(Limits::minPriority)
                    .arg(Limits::maxPriority));
    setLabel(QStringLiteral("preemption"), tr("P&reemption:"));
    m_preemption->setItemText(0, tr("May be stopped at once (restart)"));
    m_preemption->setItemText(1, tr("May be stopped at a checkpoint"));
    m_preemption->setItemText(2, tr("Never preempted"));
    setLabel(QStringLiteral("checkpointInterval"), tr("Checkpoint &every:"));
    const QString durationHint = tr("A duration such as 90m, 1h30m or 2d12h, or seconds");
    m_checkpoint->setPlaceholderText(tr("e.g. 30m (needed to stop at a checkpoint)"));
    setHint(m_checkpoint, durationHint);
    setLabel(QStringLiteral("time.expectedDuration"), tr("Expected &duration:"));
    m_duration->setPlaceholderText(tr("e.g. 6h; empty: unknown or open-ended"));
    setHint(m_duration, durationHint);
    setLabel(QStringLiteral("time.deadline"), tr("Dead&line:"));
    setHint(m_deadline, tr("An ISO-8601 date and time with Z or a UTC offset; empty: none"));

    setLabel(QStringLiteral("demand.compute"), tr("&Compute per unit:"));
    m_compute->setItemText(0, tr("A whole card"));
    m_compute->setItemText(1, tr("A MIG profile"));
    m_compute->setItemText(2, tr("MIG compute slices"));
    m_compute->setItemText(3, tr("A fraction of a card"));
    m_compute->setItemText(4, tr("None (CPU only; cards 0)"));
    setLabel(QStringLiteral("demand.compute.profile"), tr("MIG pro&file:"));
    setLabel(QStringLiteral("demand.compute.slices"), tr("&Slices:"));
    setHint(m_slices, tr("At least this many of the 7 compute slices, on any MIG card"));
    setLabel(QStringLiteral("demand.compute.fraction"), tr("&Fraction:"));
    setHint(m_fraction, tr("A share of one card, served by time-slicing or MPS"));
    setLabel(QStringLiteral("demand.cards"), tr("C&ards (units):"));
    setHint(m_cards, tr("How many units, on distinct cards of one host; 0 for a CPU-only job"));
    setLabel(QStringLiteral("demand.memoryMiB"), tr("Card &memory per unit:"));
    m_memory->setSpecialValueText(tr("whatever the unit has"));
    m_hostCpu->setSpecialValueText(tr("none"));
    m_hostMemory->setSpecialValueText(tr("none"));
    setLabel(QStringLiteral("demand.hostCpuMilli"), tr("&Host CPU:"));
    m_hostCpu->setSuffix(tr(" cores"));
    setHint(m_hostCpu, tr("For the whole job, on the host its cards are on"));
    setLabel(QStringLiteral("demand.hostMemoryMiB"), tr("Host memor&y:"));
    setHint(m_hostMemory, tr("For the whole job, on the host its cards are on"));

    setLabel(QStringLiteral("inference.service"), tr("Ser&vice:"));
    setHint(m_service, tr("Replicas of one service share its name"));
    setLabel(QStringLiteral("inference.sloP99Ms"), tr("p99 latency o&bjective:"));
    setLabel(QStringLiteral("inference.replicas.min"), tr("Replicas, m&inimum:"));
    setLabel(QStringLiteral("inference.replicas.max"), tr("Replicas, ma&ximum:"));

    setLabel(QStringLiteral("commandMode"), tr("Command as:"));
    m_commandMode->setItemText(0, tr("One line"));
    m_commandMode->setItemText(1, tr("One argument per line"));
    setLabel(QStringLiteral("run.command"), tr("Pro&gram and arguments:"));
    m_commandLine->setPlaceholderText(tr("e.g. zhaoxi-demo-train --steps 20000"));
    const QString commandHint = tr("Started directly, without a shell: $VARIABLES, ~ and * are not "
                                   "expanded. Quote arguments with spaces in '…' or \"…\".");
    setHint(m_commandLine, commandHint);
    setHint(m_commandList, tr("The program on the first line, one argument on each further line"));
    setLabel(QStringLiteral("run.workdir"), tr("&Working directory:"));
    setHint(m_workdir, tr("An absolute path; empty: the appliance's choice"));
    setLabel(QStringLiteral("run.env"), tr("Environmen&t:"));
    setHint(m_env, tr("One NAME=VALUE per line, on top of what the appliance sets"));
    setLabel(QStringLiteral("run.user"), tr("R&un as user:"));
    m_user->setPlaceholderText(tr("the appliance's default account"));
}

void NewWorkloadDialog::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QDialog::changeEvent(event);
}

} // namespace Zhaoxi::Widgets
