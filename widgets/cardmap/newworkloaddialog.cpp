// SPDX-License-Identifier: GPL-3.0-or-later
// NewWorkloadDialog: the form, the JSON page and their words (reading them into a spec,
// its problems and submitting it are in newworkloaddialogspec.cpp).
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
