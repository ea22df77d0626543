// SPDX-License-Identifier: GPL-3.0-or-later
// The New workload dialog on the offscreen platform: the form writes the JSON the project's
// reader accepts, a problem is shown at the widget of its field and keeps Submit disabled, the
// JSON tab and the form follow each other, spec files load, and a submission the appliance
// refuses is shown at the field it names while the dialog stays open.
#include "jobcommandsession.h"

#include "core/domain/workloadspec.h"
#include "widgets/cardmap/newworkloaddialog.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QGroupBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace Zhaoxi;
using JobCommands::JobCommandSession;
using Widgets::NewWorkloadDialog;

namespace {

// "objectName=value": sets a form widget as the operator would; "\n" in a value is a line break.
void edit(NewWorkloadDialog &dialog, const QString &assignment)
{
    const qsizetype eq = assignment.indexOf(u'=');
    QVERIFY2(eq > 0, qPrintable(assignment));
    const QString name = assignment.left(eq);
    QString value = assignment.mid(eq + 1);
    value.replace(QStringLiteral("\\n"), QStringLiteral("\n"));
    QWidget *w = dialog.findChild<QWidget *>(name);
    QVERIFY2(w, qPrintable(QStringLiteral("no widget ") + name));
    if (auto *line = qobject_cast<QLineEdit *>(w)) {
        line->setText(value);
    } else if (auto *spin = qobject_cast<QSpinBox *>(w)) {
        spin->setValue(value.toInt());
    } else if (auto *dspin = qobject_cast<QDoubleSpinBox *>(w)) {
        dspin->setValue(value.toDouble());
    } else if (auto *combo = qobject_cast<QComboBox *>(w)) {
        const int index = combo->findData(value);
        if (index >= 0)
            combo->setCurrentIndex(index);
        else
            combo->setCurrentText(value);
    } else if (auto *text = qobject_cast<QPlainTextEdit *>(w)) {
        text->setPlainText(value);
    } else if (auto *group = qobject_cast<QGroupBox *>(w)) {
        group->setChecked(value == QLatin1String("true"));
    } else {
        QFAIL(qPrintable(QStringLiteral("cannot edit ") + name));
    }
}

void edit(NewWorkloadDialog &dialog, const QStringList &assignments)
{
    for (const QString &a : assignments) {
        edit(dialog, a);
        if (QTest::currentTestFailed())
            return;
    }
}

// A valid training job: what each row then spoils.
const QStringList goodTraining = {QStringLiteral("name=train-1"),
                                  QStringLiteral("run.command=zhaoxi-demo-train --steps 100")};

QByteArray compact(const QJsonObject &o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

QJsonObject jsonTab(const NewWorkloadDialog &dialog)
{
    return QJsonDocument::fromJson(dialog.specText().toUtf8()).object();
}

QLabel *messageLabel(const NewWorkloadDialog &dialog, const QWidget *widget)
{
    // The command's two editors share the label of their row.
    QString name = widget->objectName();
    if (name == QLatin1String("run.commandList"))
        name = QStringLiteral("run.command");
    return dialog.findChild<QLabel *>(name + QStringLiteral("/error"));
}

} // namespace

class TestNewWorkloadDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void startsEmptyAndSaysWhatIsMissing();
    void goodFormIsWhatTheReaderAccepts();
    void badFieldIsShownAtItsWidget_data();
    void badFieldIsShownAtItsWidget();
    void badJsonIsShownWithItsLine_data();
    void badJsonIsShownWithItsLine();
    void jsonAndFormFollowEachOther();
    void formLocksWhatItCannotShow();
    void kindChangeTakesItsKeysAlong();
    void argumentListMode();
    void loadsSpecFiles();
    void submitsAndCloses();
    void refusalIsShownAtItsField();
    void lateAnswerKeepsTheDialogWaiting();
};

void TestNewWorkloadDialog::startsEmptyAndSaysWhatIsMissing()
{
    JobCommandSession session;
    Models::SessionClient client(&session);
    NewWorkloadDialog dialog(&client);
    QVERIFY(!dialog.spec());
    QVERIFY(dialog.problem());
    QCOMPARE(dialog.problem()->field, QStringLiteral("name"));
    QVERIFY(!dialog.submitButton()->isEnabled());
    QVERIFY(!dialog.isFormLocked());
    edit(dialog, goodTraining);
    QVERIFY(dialog.spec());
    QVERIFY(!dialog.problem());
    QVERIFY(dialog.submitButton()->isEnabled());
    QVERIFY(dialog.jsonMessage().isEmpty());
    QVERIFY(dialog.generalMessage().isEmpty());
    // Without a session there is nothing to submit to.
    NewWorkloadDialog offline(nullptr);
    edit(offline, goodTraining);
    QVERIFY(offline.spec());
    QVERIFY(!offline.submitButton()->isEnabled());
}

void TestNewWorkloadDialog::goodFormIsWhatTheReaderAccepts()
{
    JobCommandSession session;
    Models::SessionClient client(&session);
    NewWorkloadDialog dialog(&client);
    edit(dialog,
         {QStringLiteral("name=chat-frontend"),
          QStringLiteral("kind=inference"),
          QStringLiteral("priority=500"),
          QStringLiteral("preemption=never"),
          QStringLiteral("demand.compute=profile"),
          QStringLiteral("demand.compute.profile=3g.40gb"),
          QStringLiteral("demand.memoryMiB=20480"),
          QStringLiteral("demand.hostCpuMilli=2.5"),
          QStringLiteral("demand.hostMemoryMiB=32768"),
          QStringLiteral("time.expectedDuration=1h30m"),
          QStringLiteral("inference.service=chat"),
          QStringLiteral("inference.sloP99Ms=250"),
          QStringLiteral("inference.replicas.min=1"),
          QStringLiteral("inference.replicas.max=4"),
          QStringLiteral("run.command=/bin/sh -c 'exec vllm serve m --port \"$ZHAOXI_PORT\"'"),
          QStringLiteral("run.workdir=/srv/models"),
          QStringLiteral("run.env=HF_HOME=/srv/models/hf\\n\\nHF_HUB_OFFLINE=1"),
          QStringLiteral("run.user=vllm")});
    QVERIFY2(!dialog.problem(), qPrintable(dialog.problem() ? dialog.problem()->toString() : ""));

    // Exactly the form's fields, in the spec's own keys and units.
    const QJsonObject expected = QJsonDocument::fromJson(R"({
        "name": "chat-frontend", "kind": "inference", "priority": 500, "preemption": "never",
        "demand": {"compute": {"profile": "3g.40gb"}, "cards": 1, "memoryMiB": 20480,
                   "hostCpuMilli": 2500, "hostMemoryMiB": 32768},
        "time": {"expectedDuration": "1h30m"},
        "inference": {"service": "chat", "sloP99Ms": 250, "replicas": {"min": 1, "max": 4}},
        "run": {"command": ["/bin/sh", "-c", "exec vllm serve m --port \"$ZHAOXI_PORT\""],
                "workdir": "/srv/models",
                "env": {"HF_HOME": "/srv/models/hf", "HF_HUB_OFFLINE": "1"},
                "user": "vllm"}
    })")
                                         .object();
    QVERIFY(!expected.isEmpty());
    QCOMPARE(compact(jsonTab(dialog)), compact(expected));

    // The reader accepts it, and its canonical form reads back to the same spec.
    Domain::SpecError error;
    const std::optional<Domain::WorkloadSpec> spec
            = Domain::workloadSpecFromJson(dialog.specText().toUtf8(), &error);
    QVERIFY2(spec, qPrintable(error.toString()));
    QVERIFY(dialog.spec());
    QVERIFY(*dialog.spec() == *spec);
    QCOMPARE(spec->demand.compute.kind, Domain::ComputeDemand::Kind::MigProfile);
    QCOMPARE(spec->demand.hostCpuMilli, 2500);
    QCOMPARE(spec->time.expectedDurationMs, 5400'000);
    QCOMPARE(spec->inference->maxReplicas, 4);
    QCOMPARE(spec->run->command.size(), 3);
    const std::optional<Domain::WorkloadSpec> back
            = Domain::workloadSpecFromJson(Domain::workloadSpecToJson(*spec), &error);
    QVERIFY2(back, qPrintable(error.toString()));
    QVERIFY(*back == *spec);
}

void TestNewWorkloadDialog::badFieldIsShownAtItsWidget_data()
{
    QTest::addColumn<QStringList>("edits"); // on top of goodTraining
    QTest::addColumn<QString>("field");     // the reader's (or the form's) JSON path
    QTest::addColumn<QString>("widget");    // the form widget that shows it
    QTest::addColumn<QString>("message");   // part of the message shown there

    QTest::newRow("MIG profile for a CPU-only job")
            << QStringList{"demand.compute=profile",
                           "demand.compute.profile=3g.40gb",
                           "demand.cards=0"}
            << "demand.compute"
            << "demand.compute"
            << "not allowed when cards is 0 (a CPU-only job uses no card)";
    QTest::newRow("no compute for a card") << QStringList{"demand.compute=none"} << "demand.compute"
                                           << "demand.compute"
                                           << "required";
    QTest::newRow("malformed profile")
            << QStringList{"demand.compute=profile", "demand.compute.profile=3G.40GB"}
            << "demand.compute.profile"
            << "demand.compute.profile"
            << "expected a MIG profile name such as \"3g.40gb\"";
    QTest::newRow("fraction in a gang")
            << QStringList{"demand.compute=fraction", "demand.cards=2"} << "demand.cards"
            << "demand.cards"
            << "must be 1 for a fraction demand";
    QTest::newRow("empty command") << QStringList{"run.command="} << "run.command"
                                   << "run.command"
                                   << "must not be empty; give the program and its arguments";
    QTest::newRow("relative program") << QStringList{"run.command=bin/train"} << "run.command[0]"
                                      << "run.command"
                                      << "must be an absolute path or a program name";
    QTest::newRow("unclosed quote")
            << QStringList{"run.command=python -c 'print(1)"} << "run.command"
            << "run.command"
            << "The quote ' at character 11 is not closed.";
    QTest::newRow("replicas max below min") << QStringList{"kind=inference",
                                                           "inference.service=chat",
                                                           "inference.replicas.min=3",
                                                           "inference.replicas.max=2"}
                                            << "inference.replicas.max"
                                            << "inference.replicas.max"
                                            << "must be at least min (3), got 2";
    QTest::newRow("no latency objective")
            << QStringList{"kind=inference", "inference.service=chat", "inference.sloP99Ms=0"}
            << "inference.sloP99Ms"
            << "inference.sloP99Ms"
            << "must be greater than 0";
    QTest::newRow("blank service")
            << QStringList{"kind=inference", "inference.service=  "} << "inference.service"
            << "inference.service"
            << "must not be empty";
    QTest::newRow("blank name") << QStringList{"name= "} << "name"
                                << "name"
                                << "must not be empty";
    QTest::newRow("checkpoint without interval")
            << QStringList{"preemption=checkpoint"} << "checkpointInterval"
            << "checkpointInterval"
            << "required when preemption is \"checkpoint\"";
    QTest::newRow("duration with a space")
            << QStringList{"time.expectedDuration=1h 30m"} << "time.expectedDuration"
            << "time.expectedDuration"
            << "expected a duration such as \"90m\"";
    QTest::newRow("deadline without offset")
            << QStringList{"time.deadline=2026-12-01T08:00:00"} << "time.deadline"
            << "time.deadline"
            << "needs a UTC offset";
    QTest::newRow("env line without =") << QStringList{"run.env=A=1\\nHF_HOME"} << "run.env"
                                        << "run.env"
                                        << "Line 2 is not NAME=VALUE.";
    QTest::newRow("env set twice") << QStringList{"run.env=A=1\\nA=2"} << "run.env"
                                   << "run.env"
                                   << "Line 2 sets A again.";
    QTest::newRow("appliance's variable")
            << QStringList{"run.env=CUDA_VISIBLE_DEVICES=0"} << "run.env.CUDA_VISIBLE_DEVICES"
            << "run.env"
            << "set by the appliance";
    QTest::newRow("relative workdir") << QStringList{"run.workdir=work"} << "run.workdir"
                                      << "run.workdir"
                                      << "must be an absolute path";
    QTest::newRow("bad user") << QStringList{"run.user=Root"} << "run.user"
                              << "run.user"
                              << "must be a POSIX user name";
}

void TestNewWorkloadDialog::badFieldIsShownAtItsWidget()
{
    QFETCH(QStringList, edits);
    QFETCH(QString, field);
    QFETCH(QString, widget);
    QFETCH(QString, message);

    JobCommandSession session;
    Models::SessionClient client(&session);
    NewWorkloadDialog dialog(&client);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    edit(dialog, goodTraining);
    QVERIFY(dialog.submitButton()->isEnabled());
    edit(dialog, edits);

    QVERIFY(dialog.problem());
    QCOMPARE(dialog.problem()->field, field);
    QVERIFY2(dialog.problem()->message.contains(message), qPrintable(dialog.problem()->message));
    QVERIFY(!dialog.spec());
    QVERIFY(!dialog.submitButton()->isEnabled());

    QWidget *at = dialog.fieldWidget(field);
    QVERIFY(at);
    QCOMPARE(at->objectName(), widget);
    QCOMPARE(dialog.messageAt(at), dialog.problem()->message);
    QCOMPARE(at->toolTip(), dialog.problem()->message);
    QVERIFY(!at->styleSheet().isEmpty()); // the red frame
    QLabel *label = messageLabel(dialog, at);
    QVERIFY(label);
    QVERIFY(label->isVisible());
    QCOMPARE(label->text(), dialog.problem()->message);
    // Only that widget is marked, and nothing is left for the line below the tabs.
    for (QLabel *other : dialog.findChildren<QLabel *>()) {
        if (other != label && other->objectName().endsWith(QLatin1String("/error")))
            QVERIFY2(other->isHidden(), qPrintable(other->objectName()));
    }
    QVERIFY(dialog.generalMessage().isEmpty());
    // The JSON tab names the field too.
    QCOMPARE(dialog.jsonMessage(), field + QStringLiteral(": ") + dialog.problem()->message);

    // Undoing the edits clears it all.
    edit(dialog,
         QStringList{"demand.compute=wholeCard",
                     "demand.cards=1",
                     "run.command=true",
                     "kind=training",
                     "name=train-1",
                     "preemption=restart",
                     "time.expectedDuration=",
                     "time.deadline=",
                     "run.env=",
                     "run.workdir=",
                     "run.user="});
    QVERIFY2(!dialog.problem(), qPrintable(dialog.problem()->toString()));
    QVERIFY(dialog.messageAt(at).isEmpty());
    QVERIFY(at->styleSheet().isEmpty());
    QVERIFY(label->isHidden());
    QVERIFY(dialog.submitButton()->isEnabled());
}

void TestNewWorkloadDialog::badJsonIsShownWithItsLine_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("message");

    QTest::newRow("missing comma") << QStringLiteral("{\n"
                                                     "  \"name\": \"x\",\n"
                                                     "  \"kind\": \"batch\"\n"
                                                     "  \"demand\": {}\n"
                                                     "}\n")
                                   << 4 << "line 4, column 3:";
    QTest::newRow("cut short") << QStringLiteral("{\n  \"name\": \"x\",\n  \"demand\": {\n") << 3
                               << "line 3, column 13:";
    QTest::newRow("repeated key") << QStringLiteral("{\n"
                                                    "  \"name\": \"x\",\n"
                                                    "  \"kind\": \"batch\",\n"
                                                    "  \"demand\": {\"cards\": 1,\n"
                                                    "             \"cards\": 2}\n"
                                                    "}\n")
                                  << 5 << "line 5, column 14: repeated key";
}

void TestNewWorkloadDialog::badJsonIsShownWithItsLine()
{
    QFETCH(QString, text);
    QFETCH(int, line);
    QFETCH(QString, message);

    JobCommandSession session;
    Models::SessionClient client(&session);
    NewWorkloadDialog dialog(&client);
    edit(dialog, goodTraining);
    dialog.tabs()->setCurrentIndex(1);
    dialog.setSpecText(text);
    QVERIFY(dialog.problem());
    QVERIFY2(dialog.problem()->message.contains(message), qPrintable(dialog.problem()->message));
    QVERIFY2(dialog.jsonMessage().contains(message), qPrintable(dialog.jsonMessage()));
    QCOMPARE(dialog.jsonErrorLine(), line);
    auto *editor = dialog.findChild<QPlainTextEdit *>(QStringLiteral("json"));
    QVERIFY(editor);
    QCOMPARE(editor->extraSelections().size(), 1);
    QCOMPARE(editor->extraSelections().first().cursor.blockNumber(), line - 1);
    QVERIFY(!dialog.submitButton()->isEnabled());
    // The form cannot show text the reader refuses: it is locked, and on its tab the problem is
    // named below the tabs, as no form widget shows it.
    QVERIFY(dialog.isFormLocked());
    QVERIFY(!dialog.findChild<QLabel *>(QStringLiteral("formLock"))->isHidden());
    QVERIFY(dialog.generalMessage().isEmpty());
    dialog.tabs()->setCurrentIndex(0);
    QVERIFY(dialog.generalMessage().contains(message));
    // The text as typed stays; the form did not overwrite it.
    QCOMPARE(dialog.specText(), text);
}

void TestNewWorkloadDialog::jsonAndFormFollowEachOther()
{
    JobCommandSession session;
    Models::SessionClient client(&session);
    NewWorkloadDialog dialog(&client);
    // The form writes the JSON tab as it is edited.
    edit(dialog, goodTraining);
    QCOMPARE(jsonTab(dialog).value(QLatin1String("name")).toString(), QStringLiteral("train-1"));
    edit(dialog, QStringLiteral("priority=42"));
    QCOMPARE(jsonTab(dialog).value(QLatin1String("priority")).toInt(), 42);
    // A bare number of seconds is a JSON number, as the spec writes one; empty leaves it out.
    edit(dialog, QStringLiteral("time.expectedDuration=90.5"));
    QCOMPARE(jsonTab(dialog)
                     .value(QLatin1String("time"))
                     .toObject()
                     .value(QLatin1String("expectedDuration")),
             QJsonValue(90.5));
    QCOMPARE(dialog.spec()->time.expectedDurationMs, 90'500);
    edit(dialog, QStringLiteral("time.expectedDuration="));
    QVERIFY(!jsonTab(dialog).contains(QLatin1String("time")));

    // The JSON tab fills the form, and the keys the form has no widget for survive its edits.
    dialog.setSpecText(QStringLiteral(R"({"name": "embed", "kind": "batch", "priority": -10,
        "demand": {"compute": {"slices": 2}, "memoryGiB": 8.5, "hostCpu": 0.25},
        "isolation": "hard", "affinity": {"host": "node-1", "cardModels": ["H100-SXM5-80GB"]},
        "time": {"expectedDuration": 5400, "deadline": "2026-12-01T16:00:00+08:00"},
        "run": {"command": ["embed", "--in", "a b"], "stopSignal": "SIGINT", "env": {"B": "2", "A": "1"}}})"));
    QVERIFY2(!dialog.problem(), qPrintable(dialog.problem()->toString()));
    QVERIFY(!dialog.isFormLocked());
    QCOMPARE(dialog.findChild<QLineEdit *>(QStringLiteral("name"))->text(),
             QStringLiteral("embed"));
    QCOMPARE(dialog.findChild<QComboBox *>(QStringLiteral("kind"))->currentData().toString(),
             QStringLiteral("batch"));
    QCOMPARE(dialog.findChild<QSpinBox *>(QStringLiteral("priority"))->value(), -10);
    QCOMPARE(dialog.findChild<QComboBox *>(QStringLiteral("demand.compute"))
                     ->currentData()
                     .toString(),
             QStringLiteral("slices"));
    QCOMPARE(dialog.findChild<QSpinBox *>(QStringLiteral("demand.compute.slices"))->value(), 2);
    QCOMPARE(dialog.findChild<QSpinBox *>(QStringLiteral("demand.memoryMiB"))->value(), 8704);
    QCOMPARE(dialog.findChild<QDoubleSpinBox *>(QStringLiteral("demand.hostCpuMilli"))->value(),
             0.25);
    QCOMPARE(dialog.findChild<QLineEdit *>(QStringLiteral("time.expectedDuration"))->text(),
             QStringLiteral("1h30m"));
    QCOMPARE(dialog.findChild<QLineEdit *>(QStringLiteral("time.deadline"))->text(),
             QStringLiteral("2026-12-01T08:00:00Z"));
    QCOMPARE(dialog.findChild<QLineEdit *>(QStringLiteral("run.command"))->text(),
             QStringLiteral("embed --in 'a b'"));
    QCOMPARE(dialog.findChild<QPlainTextEdit *>(QStringLiteral("run.env"))->toPlainText(),
             QStringLiteral("A=1\nB=2"));

    edit(dialog, QStringLiteral("priority=7"));
    const QJsonObject json = jsonTab(dialog);
    QCOMPARE(json.value(QLatin1String("priority")).toInt(), 7);
    QCOMPARE(json.value(QLatin1String("isolation")).toString(), QStringLiteral("hard"));
    QCOMPARE(json.value(QLatin1String("affinity"))
                     .toObject()
                     .value(QLatin1String("host"))
                     .toString(),
             QStringLiteral("node-1"));
    QCOMPARE(json.value(QLatin1String("run"))
                     .toObject()
                     .value(QLatin1String("stopSignal"))
                     .toString(),
             QStringLiteral("SIGINT"));
    QVERIFY(dialog.spec());
    QCOMPARE(dialog.spec()->priority, 7);
    QCOMPARE(dialog.spec()->demand.memoryMiB, 8704);
    QCOMPARE(dialog.spec()->affinity.cardModels, QStringList{"H100-SXM5-80GB"});
    QCOMPARE(dialog.spec()->run->command, (QStringList{"embed", "--in", "a b"}));

    // A problem of a key the form has no widget for is named below the tabs.
    dialog.setSpecText(QStringLiteral(R"({"name": "x", "kind": "batch",
        "demand": {"compute": {"wholeCard": true}}, "affinity": {"host": ""}})"));
    QVERIFY(dialog.problem());
    QCOMPARE(dialog.problem()->field, QStringLiteral("affinity.host"));
    QVERIFY(!dialog.fieldWidget(QStringLiteral("affinity.host")));
    QVERIFY(dialog.generalMessage().startsWith(QStringLiteral("affinity.host: must not be empty")));
}

void TestNewWorkloadDialog::formLocksWhatItCannotShow()
{
    JobCommandSession session;
    Models::SessionClient client(&session);
    NewWorkloadDialog dialog(&client);
    // A line break in an environment value: valid, but not as lines of NAME=VALUE.
    dialog.setSpecText(QStringLiteral(R"({"name": "x", "kind": "batch",
        "demand": {"compute": {"wholeCard": true}},
        "run": {"command": ["true"], "env": {"A": "one\ntwo"}}})"));
    QVERIFY(dialog.spec());
    QVERIFY(!dialog.problem());
    QVERIFY(dialog.submitButton()->isEnabled());
    QVERIFY(dialog.isFormLocked());
    auto *lock = dialog.findChild<QLabel *>(QStringLiteral("formLock"));
    QVERIFY(lock && !lock->isHidden());
    QVERIFY(!dialog.findChild<QLineEdit *>(QStringLiteral("name"))->isEnabledTo(dialog.formPage()));
    const QString text = dialog.specText();
    // Widgets that are locked do not write (a test can still set them).
    edit(dialog, QStringLiteral("name=changed"));
    QCOMPARE(dialog.specText(), text);

    // Fixed in the JSON tab, the form is back.
    dialog.setSpecText(QStringLiteral(R"({"name": "x", "kind": "batch",
        "demand": {"compute": {"wholeCard": true}}, "run": {"command": ["true"]}})"));
    QVERIFY(!dialog.isFormLocked());
    QVERIFY(lock->isHidden());
    QVERIFY(dialog.findChild<QLineEdit *>(QStringLiteral("name"))->isEnabledTo(dialog.formPage()));
    QCOMPARE(dialog.findChild<QLineEdit *>(QStringLiteral("name"))->text(), QStringLiteral("x"));
    edit(dialog, QStringLiteral("name=y"));
    QCOMPARE(jsonTab(dialog).value(QLatin1String("name")).toString(), QStringLiteral("y"));
}

void TestNewWorkloadDialog::kindChangeTakesItsKeysAlong()
{
    JobCommandSession session;
    Models::SessionClient client(&session);
    NewWorkloadDialog dialog(&client);
    dialog.setSpecText(QStringLiteral(R"({"name": "svc", "kind": "inference",
        "demand": {"compute": {"profile": "1g.10gb"}},
        "inference": {"service": "svc", "sloP99Ms": 100},
        "run": {"command": ["serve"], "port": 8000, "ready": "/health", "metricsPreset": "tgi"}})"));
    QVERIFY2(dialog.spec(), qPrintable(dialog.problem()->toString()));
    QVERIFY(!dialog.isFormLocked());
    QVERIFY(dialog.findChild<QGroupBox *>(QStringLiteral("inferenceGroup"))->isEnabled());

    edit(dialog, QStringLiteral("kind=training"));
    QVERIFY2(dialog.spec(), qPrintable(dialog.problem()->toString()));
    QVERIFY(!dialog.findChild<QGroupBox *>(QStringLiteral("inferenceGroup"))->isEnabled());
    const QJsonObject json = jsonTab(dialog);
    QVERIFY(!json.contains(QLatin1String("inference")));
    const QJsonObject run = json.value(QLatin1String("run")).toObject();
    for (const char *key : {"port", "ready", "readyTimeout", "metrics", "metricsPreset"})
        QVERIFY2(!run.contains(QLatin1String(key)), key);
    QCOMPARE(run.value(QLatin1String("command")).toArray().size(), 1);

    // And back: the service comes from the form again, training's keys leave.
    edit(dialog, QStringLiteral("kind=inference"));
    QVERIFY2(dialog.spec(), qPrintable(dialog.problem()->toString()));
    QCOMPARE(dialog.spec()->inference->service, QStringLiteral("svc"));
    QVERIFY(!jsonTab(dialog)
                     .value(QLatin1String("run"))
                     .toObject()
                     .contains(QLatin1String("progressTimeout")));

    // Without "Run a command" there is no run block (the digital twin models the workload).
    edit(dialog, QStringLiteral("runGroup=false"));
    QVERIFY(!jsonTab(dialog).contains(QLatin1String("run")));
    QVERIFY(dialog.spec() && !dialog.spec()->run);
}

void TestNewWorkloadDialog::argumentListMode()
{
    JobCommandSession session;
    Models::SessionClient client(&session);
    NewWorkloadDialog dialog(&client);
    edit(dialog, goodTraining);
    edit(dialog, QStringLiteral("run.command=printf '%s|' 'a b'"));
    // The other editor takes the same arguments over.
    edit(dialog, QStringLiteral("commandMode=list"));
    auto *list = dialog.findChild<QPlainTextEdit *>(QStringLiteral("run.commandList"));
    QCOMPARE(list->toPlainText(), QStringLiteral("printf\n%s|\na b"));
    QCOMPARE(dialog.spec()->run->command, (QStringList{"printf", "%s|", "a b"}));
    // One argument per line; a last line break ends the last argument, an empty line is one.
    edit(dialog, QStringLiteral("run.commandList=echo\\n\\nx\\n"));
    QCOMPARE(dialog.spec()->run->command, (QStringList{"echo", "", "x"}));
    edit(dialog, QStringLiteral("run.commandList="));
    QCOMPARE(dialog.problem()->field, QStringLiteral("run.command"));
    QCOMPARE(dialog.fieldWidget(QStringLiteral("run.command")), list);
    QVERIFY(!dialog.messageAt(list).isEmpty());
    // An argument with a line break is not one line of the list: the form says it cannot show it
    // and leaves the spec to the JSON tab, which still submits it as it is.
    dialog.setSpecText(QStringLiteral(R"({"name": "x", "kind": "batch",
        "demand": {"compute": {"wholeCard": true}},
        "run": {"command": ["printf", "a\nb"]}})"));
    QVERIFY(dialog.isFormLocked());
    QVERIFY(dialog.spec());
    QCOMPARE(dialog.spec()->run->command, (QStringList{"printf", "a\nb"}));
    QVERIFY(dialog.submitButton()->isEnabled());
}

void TestNewWorkloadDialog::loadsSpecFiles()
{
    JobCommandSession session;
    Models::SessionClient client(&session);
    NewWorkloadDialog dialog(&client);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString good = dir.filePath(QStringLiteral("demo-train.json"));
    {
        QFile f(good);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({
  "name": "demo-train",
  "kind": "training",
  "demand": {"compute": {"slices": 1}, "hostCpu": 1, "hostMemoryGiB": 2},
  "priority": 10,
  "preemption": "checkpoint",
  "checkpointInterval": "2m",
  "run": {
    "command": ["zhaoxi-demo-train", "--steps", "20000"],
    "stopGrace": "30s",
    "progressTimeout": "5m"
  }
})");
    }
    QVERIFY(dialog.loadSpecFile(good));
    QVERIFY2(dialog.spec(), qPrintable(dialog.problem()->toString()));
    QCOMPARE(dialog.findChild<QLineEdit *>(QStringLiteral("name"))->text(),
             QStringLiteral("demo-train"));
    QCOMPARE(dialog.findChild<QLineEdit *>(QStringLiteral("checkpointInterval"))->text(),
             QStringLiteral("2m"));
    QCOMPARE(dialog.findChild<QLineEdit *>(QStringLiteral("run.command"))->text(),
             QStringLiteral("zhaoxi-demo-train --steps 20000"));
    QCOMPARE(dialog.spec()->run->progressTimeoutMs, 5 * 60'000);
    QVERIFY(dialog.submitButton()->isEnabled());

    // A file that is not there: said below the tabs; what the dialog had stays.
    QVERIFY(!dialog.loadSpecFile(dir.filePath(QStringLiteral("missing.json"))));
    QVERIFY2(dialog.generalMessage().startsWith(QStringLiteral("Could not read ")),
             qPrintable(dialog.generalMessage()));
    QVERIFY(dialog.spec());

    // A file the reader refuses opens in the JSON tab, at its line.
    const QString bad = dir.filePath(QStringLiteral("bad.json"));
    {
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\n  \"name\": \"x\",\n  \"kind\": \"batch\",,\n}\n");
    }
    dialog.tabs()->setCurrentIndex(0);
    QVERIFY(dialog.loadSpecFile(bad));
    QVERIFY(!dialog.spec());
    QCOMPARE(dialog.tabs()->currentIndex(), 1);
    QCOMPARE(dialog.jsonErrorLine(), 3);
    QVERIFY(!dialog.submitButton()->isEnabled());
}

void TestNewWorkloadDialog::submitsAndCloses()
{
    JobCommandSession session;
    session.result.job = Domain::JobId(6);
    Models::SessionClient client(&session);
    NewWorkloadDialog dialog(&client);
    QSignalSpy submitted(&dialog, &NewWorkloadDialog::workloadSubmitted);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    edit(dialog, goodTraining);
    edit(dialog, QStringLiteral("demand.hostMemoryMiB=4096"));
    QTest::mouseClick(dialog.submitButton(), Qt::LeftButton);

    QCOMPARE(session.calls.size(), 1);
    QCOMPARE(session.calls.first().command, QStringLiteral("submitWorkload"));
    // What goes to the session is the reader's canonical form of the spec.
    QCOMPARE(compact(session.calls.first().spec),
             compact(Domain::workloadSpecToJson(*dialog.spec())));
    // The session answered inside the call; the dialog gets that answer after it, with the
    // request id the call gave it (a client that delivered it inside would leave it waiting).
    QTRY_COMPARE(submitted.size(), 1);
    QCOMPARE(submitted.first().first().value<Domain::JobId>(), Domain::JobId(6));
    QCOMPARE(dialog.submittedJob(), Domain::JobId(6));
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QVERIFY(!dialog.isVisible());
}

void TestNewWorkloadDialog::refusalIsShownAtItsField()
{
    JobCommandSession session;
    session.result.ok = false;
    session.result.field = QStringLiteral("run.user");
    session.result.error = QStringLiteral("run.user: root may not run workloads on this appliance");
    Models::SessionClient client(&session);
    NewWorkloadDialog dialog(&client);
    QSignalSpy submitted(&dialog, &NewWorkloadDialog::workloadSubmitted);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    edit(dialog, goodTraining);
    edit(dialog, QStringLiteral("run.user=root"));
    QVERIFY(dialog.submitButton()->isEnabled());
    QSignalSpy answers(&client, &Models::SessionClient::commandFinished);
    QTest::mouseClick(dialog.submitButton(), Qt::LeftButton);

    QCOMPARE(session.calls.size(), 1);
    QTRY_COMPARE(answers.size(), 1);
    QVERIFY(dialog.isVisible());
    QCOMPARE(submitted.size(), 0);
    QVERIFY(dialog.problem());
    QCOMPARE(dialog.problem()->field, QStringLiteral("run.user"));
    QWidget *user = dialog.fieldWidget(QStringLiteral("run.user"));
    QCOMPARE(user, dialog.findChild<QWidget *>(QStringLiteral("run.user")));
    QCOMPARE(dialog.messageAt(user),
             QStringLiteral("root may not run workloads on this appliance"));
    QVERIFY(!dialog.submitButton()->isEnabled());
    QCOMPARE(dialog.tabs()->currentIndex(), 0);

    // The next edit is checked anew; a refusal that is not one field's is said below the tabs.
    edit(dialog, QStringLiteral("run.user=trainer"));
    QVERIFY(!dialog.problem());
    QVERIFY(dialog.submitButton()->isEnabled());
    session.result.field.clear();
    session.result.error = QStringLiteral("the simulated appliance does not run inference");
    QTest::mouseClick(dialog.submitButton(), Qt::LeftButton);
    QTRY_COMPARE(answers.size(), 2);
    QVERIFY(dialog.isVisible());
    QCOMPARE(dialog.generalMessage(),
             QStringLiteral("the simulated appliance does not run inference"));
    QVERIFY(dialog.messageAt(user).isEmpty());
}

void TestNewWorkloadDialog::lateAnswerKeepsTheDialogWaiting()
{
    JobCommandSession session;
    session.answerAtOnce = false;
    Models::SessionClient client(&session);
    NewWorkloadDialog dialog(&client);
    QSignalSpy answers(&client, &Models::SessionClient::commandFinished);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    edit(dialog, goodTraining);
    QTest::mouseClick(dialog.submitButton(), Qt::LeftButton);
    QCOMPARE(session.calls.size(), 1);
    // Waiting: nothing can be edited or sent twice.
    QVERIFY(!dialog.submitButton()->isEnabled());
    QVERIFY(!dialog.tabs()->isEnabled());
    QTest::mouseClick(dialog.submitButton(), Qt::LeftButton);
    QCOMPARE(session.calls.size(), 1);
    // Nor closed as if nothing had been sent: the answer may still create the job.
    dialog.reject();
    QVERIFY(dialog.isVisible());

    // Another request's answer is not this one's.
    Session::CommandResult other;
    other.request = session.calls.first().request + 100;
    other.ok = true;
    Q_EMIT session.commandFinished(other);
    QTRY_COMPARE(answers.size(), 1);
    QVERIFY(dialog.isVisible());

    session.result.ok = false;
    session.result.field = QStringLiteral("demand.cards");
    session.result.error = QStringLiteral("demand.cards: no host has 1 card of that kind");
    session.answer(session.calls.first());
    QTRY_COMPARE(answers.size(), 2);
    QVERIFY(dialog.isVisible());
    QVERIFY(dialog.tabs()->isEnabled());
    QCOMPARE(dialog.messageAt(dialog.fieldWidget(QStringLiteral("demand.cards"))),
             QStringLiteral("no host has 1 card of that kind"));

    // Edited and sent again; this time the appliance takes it.
    edit(dialog, QStringLiteral("demand.cards=2"));
    QTest::mouseClick(dialog.submitButton(), Qt::LeftButton);
    QCOMPARE(session.calls.size(), 2);
    session.result = Session::CommandResult::answer(0);
    session.result.job = Domain::JobId(9);
    session.answer(session.calls.last());
    QTRY_VERIFY(!dialog.isVisible());
    QCOMPARE(dialog.submittedJob(), Domain::JobId(9));
}

QTEST_MAIN(TestNewWorkloadDialog)
#include "tst_newworkloaddialog.moc"
