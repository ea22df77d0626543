// SPDX-License-Identifier: GPL-3.0-or-later
// The schedule editor on the offscreen platform: blocks dragged and resized with the mouse, a
// move onto another window refused with the reason (and nothing moved), edits undone, and a
// schedule applied through a real simulated session of the demo day.
#include "core/catalogue/catalogue.h"
#include "core/models/schedulemodel.h"
#include "core/models/sessionclient.h"
#include "core/session/simulationsession.h"
#include "core/sim/scenario.h"
#include "widgets/schedule/scheduleconfirmdialog.h"
#include "widgets/schedule/scheduleeditor.h"
#include "widgets/schedule/scheduletimeline.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QUndoStack>

#include <cmath>

using namespace Zhaoxi;
using Models::ScheduleModel;
using Widgets::ScheduleEditor;
using Widgets::ScheduleTimeline;

namespace {

const QString kScenario = QStringLiteral(ZHAOXI_SOURCE_DIR "/resources/scenarios/demo-day.json");

// Weekdays by day, every night, and a Saturday maintenance slot.
const char *const kWeek = R"({
  "windows": [
    {"name": "day", "from": "08:00", "to": "20:00", "days": ["mon","tue","wed","thu","fri"],
     "inferenceShare": 0.7},
    {"name": "night", "from": "22:00", "to": "06:00", "inferenceShare": 0.2},
    {"name": "maintenance", "from": "10:00", "to": "12:00", "days": ["sat"],
     "inferenceShare": 0.5}
  ]
})";

QJsonObject object(const char *json)
{
    return QJsonDocument::fromJson(QByteArray(json)).object();
}

// The demo day's `policy.windows`, read straight from the scenario file.
QJsonObject demoWindows()
{
    QFile f(kScenario);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("demo day scenario missing");
    return QJsonDocument::fromJson(f.readAll())
            .object()
            .value(QStringLiteral("policy"))
            .toObject()
            .value(QStringLiteral("windows"))
            .toObject();
}

Sim::Scenario demoScenario()
{
    static const Catalogue::Catalogue catalogue = Catalogue::Catalogue::builtIn();
    Sim::ScenarioError error;
    const std::optional<Sim::Scenario> s = Sim::loadScenarioFile(kScenario, catalogue, &error);
    if (!s)
        qFatal("demo day: %s", qPrintable(error.toString()));
    return *s;
}

// Presses at `from`, moves in two steps and releases at `to`, as a hand would.
void drag(QWidget *w, QPoint from, QPoint to)
{
    QTest::mousePress(w, Qt::LeftButton, Qt::NoModifier, from);
    QTest::mouseMove(w, from + (to - from) / 2);
    QTest::mouseMove(w, to);
    QTest::mouseRelease(w, Qt::LeftButton, Qt::NoModifier, to);
}

// The horizontal distance of `minutes` on the timeline.
int dx(const ScheduleTimeline *t, int minutes)
{
    return t->pointAt(0, minutes).x() - t->pointAt(0, 0).x();
}

struct Shown
{
    explicit Shown(Models::SessionClient *client = nullptr)
        : editor(client)
    {
        editor.resize(1100, 760);
    }
    bool show(const QJsonObject &params)
    {
        if (!editor.setSchedule(params))
            return false;
        editor.show();
        return QTest::qWaitForWindowExposed(&editor);
    }
    ScheduleEditor editor;
};

} // namespace

class TestScheduleEditor : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void dragMovesABlock();
    void aMoveOntoAnotherWindowIsRefusedWithTheReason();
    void dragsAnEdgeToResize();
    void formEditsGoThroughUndo();
    void addsInFreeTimeOnly();
    void showsTheTimeZoneNowAndNextSwitches();
    void appliesThroughARealSession();
    void aChangedPlanIsRefusedAndPreviewedAgain();
    void aFleetsPreviewListsItsReservations();
};

void TestScheduleEditor::dragMovesABlock()
{
    Shown s;
    QAbstractItemModelTester tester(s.editor.model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(s.show(object(kWeek)));
    ScheduleTimeline *t = s.editor.timeline();
    const QRect block = t->pieceRect(2, 5); // maintenance, Saturday
    QVERIFY(block.isValid());
    QCOMPARE(t->rowAt(block.center()), 2);

    // An hour to the right: 11:00-13:00, still Saturday.
    drag(t, block.center(), block.center() + QPoint(dx(t, 60), 0));
    const Models::ScheduleWindow w = s.editor.model()->window(2);
    QCOMPARE(w.fromMinute, 11 * 60);
    QCOMPARE(w.toMinute, 13 * 60);
    QCOMPARE(w.days, quint8(1u << 5));
    QCOMPARE(s.editor.currentRow(), 2);
    QCOMPARE(s.editor.undoStack()->count(), 1);
    QCOMPARE(s.editor.statusText(),
             QStringLiteral("‘maintenance’: Sat 11:00–13:00, inference 50 %."));

    // Down a row (Sunday) and 20 minutes left: snaps to Sunday 10:45.
    const QRect moved = t->pieceRect(2, 5);
    drag(t, moved.center(), QPoint(moved.center().x() - dx(t, 20), t->pointAt(6, 0).y()));
    QCOMPARE(s.editor.model()->window(2).days, quint8(1u << 6));
    QCOMPARE(s.editor.model()->window(2).fromMinute, 10 * 60 + 45);

    s.editor.undoStack()->undo();
    QCOMPARE(s.editor.model()->window(2).fromMinute, 11 * 60);
    s.editor.undoStack()->undo();
    QCOMPARE(s.editor.model()->window(2).fromMinute, 10 * 60);
    QCOMPARE(s.editor.model()->window(2).days, quint8(1u << 5));
    s.editor.undoStack()->redo();
    QCOMPARE(s.editor.model()->window(2).fromMinute, 11 * 60);
}

void TestScheduleEditor::aMoveOntoAnotherWindowIsRefusedWithTheReason()
{
    Shown s;
    QVERIFY(s.show(object(kWeek)));
    ScheduleTimeline *t = s.editor.timeline();
    const QJsonObject before = s.editor.schedule();
    const QRect block = t->pieceRect(2, 5);
    const QPoint monday(block.center().x(), t->pointAt(0, 0).y()); // the same hours, Monday

    // While dragging, the reason shows before the drop.
    QTest::mousePress(t, Qt::LeftButton, Qt::NoModifier, block.center());
    QTest::mouseMove(t, block.center() + QPoint(0, -20));
    QTest::mouseMove(t, monday);
    const QString reason
            = QStringLiteral("‘maintenance’ (Mon 10:00–12:00) overlaps ‘day’ (Mon 08:00–20:00)");
    QCOMPARE(t->dragProblem(), reason);
    QCOMPARE(s.editor.statusText(), QStringLiteral("Cannot go here: ") + reason);
    QTest::mouseRelease(t, Qt::LeftButton, Qt::NoModifier, monday);

    // Dropped: refused, nothing moved, the block is back where it was.
    QCOMPARE(s.editor.statusText(), QStringLiteral("Not moved: ") + reason);
    QCOMPARE(s.editor.schedule(), before);
    QCOMPARE(s.editor.undoStack()->count(), 0);
    QCOMPARE(t->pieceRect(2, 5), block);
    QVERIFY(t->pieceRect(2, 0).isNull());
    QVERIFY(t->dragProblem().isEmpty());
}

void TestScheduleEditor::dragsAnEdgeToResize()
{
    Shown s;
    QVERIFY(s.show(object(kWeek)));
    ScheduleTimeline *t = s.editor.timeline();
    ScheduleModel *m = s.editor.model();

    // Monday's day block, right edge from 20:00 to 21:00: every weekday ends at 21:00.
    QRect block = t->pieceRect(0, 0);
    drag(t, QPoint(block.right(), block.center().y()), t->pointAt(0, 21 * 60));
    QCOMPARE(m->window(0).fromMinute, 8 * 60);
    QCOMPARE(m->window(0).toMinute, 21 * 60);
    QCOMPARE(m->window(0).days, quint8(0x1f));

    // Left edge from 08:00 to 07:10: snaps to 07:15.
    block = t->pieceRect(0, 0);
    drag(t, QPoint(block.left(), block.center().y()), t->pointAt(0, 7 * 60 + 10));
    QCOMPARE(m->window(0).fromMinute, 7 * 60 + 15);
    QCOMPARE(m->window(0).toMinute, 21 * 60);

    // Into the night: refused, with the reason.
    block = t->pieceRect(0, 0);
    drag(t, QPoint(block.right(), block.center().y()), t->pointAt(0, 23 * 60));
    QCOMPARE(m->window(0).toMinute, 21 * 60);
    QCOMPARE(s.editor.statusText(),
             QStringLiteral("Not resized: ‘day’ (Mon 07:15–23:00) overlaps ‘night’ (Mon "
                            "22:00–06:00)"));

    // The night's tail on Tuesday morning: its end from 06:00 to 05:00.
    block = t->pieceRect(1, 1);
    QCOMPARE(block.left(), t->pointAt(1, 0).x());
    drag(t, QPoint(block.right(), block.center().y()), t->pointAt(1, 5 * 60));
    QCOMPARE(m->window(1).fromMinute, 22 * 60);
    QCOMPARE(m->window(1).toMinute, 5 * 60);
    QCOMPARE(s.editor.undoStack()->count(), 3);
}

void TestScheduleEditor::formEditsGoThroughUndo()
{
    Shown s;
    QVERIFY(s.show(object(kWeek)));
    ScheduleModel *m = s.editor.model();
    s.editor.setCurrentRow(0);

    auto *share = s.editor.findChild<QSpinBox *>(QStringLiteral("inferenceShare"));
    QVERIFY(share);
    QCOMPARE(share->value(), 70);
    share->setValue(60);
    share->setValue(55); // one step of undo for both
    QCOMPARE(m->window(0).inferenceShare, 0.55);
    QCOMPARE(s.editor.undoStack()->count(), 1);

    auto *name = s.editor.findChild<QLineEdit *>(QStringLiteral("windowName"));
    QVERIFY(name);
    name->setFocus();
    name->selectAll();
    QTest::keyClicks(name, QStringLiteral("weekday"));
    QTest::keyClick(name, Qt::Key_Return);
    QCOMPARE(m->window(0).name, QStringLiteral("weekday"));

    // Saturday on: it would overlap maintenance; the box unticks itself again.
    auto *saturday = s.editor.findChild<QCheckBox *>(QStringLiteral("day5"));
    QVERIFY(saturday);
    saturday->setChecked(true);
    QVERIFY(!saturday->isChecked());
    QCOMPARE(m->window(0).days, quint8(0x1f));
    QVERIFY(s.editor.statusText().startsWith(QStringLiteral("Not changed: ")));
    QVERIFY(s.editor.statusText().contains(QStringLiteral("overlaps")));

    s.editor.undoStack()->undo();
    QCOMPARE(m->window(0).name, QStringLiteral("day"));
    QCOMPARE(name->text(), QStringLiteral("day"));
    s.editor.undoStack()->undo();
    QCOMPARE(m->window(0).inferenceShare, 0.7);
    QCOMPARE(share->value(), 70);

    // Revert goes back to what was loaded and starts the history afresh.
    share->setValue(40);
    s.editor.revert();
    QCOMPARE(m->window(0).inferenceShare, 0.7);
    QCOMPARE(s.editor.undoStack()->count(), 0);
}

void TestScheduleEditor::addsInFreeTimeOnly()
{
    Shown s;
    QVERIFY(s.show(demoWindows()));
    // Day and night fill the week: nowhere to put a new window.
    QVERIFY(!s.editor.addWindow());
    QCOMPARE(s.editor.statusText(),
             QStringLiteral("Not added: the week has no free time; shorten a window first."));

    QVERIFY(s.editor.setSchedule(object(kWeek)));
    QVERIFY(s.editor.addWindow());
    ScheduleModel *m = s.editor.model();
    QCOMPARE(m->rowCount(), 4);
    // Monday from 06:00, when Sunday's night ends, up to the day at 08:00.
    QCOMPARE(m->window(3).days, quint8(1));
    QCOMPARE(m->window(3).fromMinute, 6 * 60);
    QCOMPARE(m->window(3).toMinute, 8 * 60);
    QCOMPARE(s.editor.currentRow(), 3);
    QVERIFY(s.editor.removeWindow(3));
    QCOMPARE(m->rowCount(), 3);
    s.editor.undoStack()->undo();
    QCOMPARE(m->rowCount(), 4);
}

void TestScheduleEditor::showsTheTimeZoneNowAndNextSwitches()
{
    Session::SimulationSession session(demoScenario(), QString(), demoScenario().seed);
    session.runTo(10 * 3600'000LL); // Monday 10:00 in UTC+8
    Models::SessionClient client(&session);
    Shown s(&client);
    QVERIFY(s.show(demoWindows()));

    QCOMPARE(s.editor.timeZoneText(), QStringLiteral("Time zone: UTC+08:00"));
    QCOMPARE(s.editor.timeline()->nowMinute(), 10 * 60);
    const QStringList next = s.editor.nextSwitchTexts();
    QCOMPARE(next.size(), 6);
    QCOMPARE(next.at(0), QStringLiteral("Mon 22:00 → night (inference 15 %)"));
    QCOMPARE(next.at(1), QStringLiteral("Tue 07:00 → day (inference 65 %)"));

    // The load under the windows: observed from the snapshots until a forecast is given.
    QVERIFY(s.editor.forecastLoad().at(10) > 0);
    QVERIFY(std::isnan(s.editor.forecastLoad().at(30)));
    QList<double> forecast(168, 1.0);
    forecast[8] = 4.0;
    s.editor.setForecast(forecast);
    QCOMPARE(s.editor.forecastLoad(), forecast);
    QVERIFY(s.editor.observedLoad().at(10) > 0);

    session.runTo(11 * 3600'000LL);
    QCOMPARE(s.editor.timeline()->nowMinute(), 11 * 60);
    QVERIFY(s.editor.observedLoad().at(11) > 0);
    QCOMPARE(ScheduleEditor::utcOffsetText(-(5 * 3600 + 1800)), QStringLiteral("UTC-05:30"));
}

void TestScheduleEditor::appliesThroughARealSession()
{
    const Sim::Scenario scenario = demoScenario();
    Session::SimulationSession session(scenario, QString(), scenario.seed);
    session.runTo(10 * 3600'000LL);
    Models::SessionClient client(&session);
    QVERIFY(client.snapshot());
    QCOMPARE(client.snapshot()->policy, QStringLiteral("forecast"));

    Shown s(&client);
    QVERIFY(s.show(demoWindows()));
    QSignalSpy applied(&s.editor, &ScheduleEditor::scheduleApplied);
    // The day ends at 21:00 instead of 22:00 (the night still starts at 22:00).
    QVERIFY(s.editor.resizeWindow(0, 7 * 60, 21 * 60));
    auto *apply = s.editor.findChild<QPushButton *>(QStringLiteral("applySchedule"));
    QVERIFY(apply && apply->isEnabled());
    // From forecast-driven to time windows: the operator is asked first, with the plan.
    QList<Session::SchedulePreview> asked;
    s.editor.setApplyConfirmation([&](const Session::SchedulePreview &p) {
        asked << p;
        return true;
    });
    QTest::mouseClick(apply, Qt::LeftButton);

    // The session answered inside the call; the editor gets the answer after it, with the id
    // the call returned (delivered inside, it would be nobody's and the editor would wait on).
    QCOMPARE(s.editor.statusText(), QStringLiteral("Checking what this schedule will do…"));
    QVERIFY(!apply->isEnabled());
    QTRY_COMPARE(applied.count(), 1);
    QCOMPARE(asked.size(), 1);
    QCOMPARE(asked[0].policyBefore, QStringLiteral("forecast"));
    QCOMPARE(asked[0].policyAfter, QStringLiteral("windows"));
    QCOMPARE(asked[0].windowAfter, QStringLiteral("day"));
    QVERIFY(!asked[0].services.isEmpty());
    QCOMPARE(s.editor.statusText(),
             QStringLiteral("Applied: this schedule is the policy in force."));
    const QJsonObject sent = applied.first().first().toJsonObject();
    QCOMPARE(sent[QStringLiteral("windows")]
                     .toArray()[0]
                     .toObject()[QStringLiteral("to")]
                     .toString(),
             QStringLiteral("21:00"));
    QVERIFY(s.editor.undoStack()->isClean());
    QCOMPARE(client.snapshot()->policy, QStringLiteral("windows"));

    session.runTo(10 * 3600'000LL + 10 * 60'000);
    QCOMPARE(client.snapshot()->policy, QStringLiteral("windows"));
    QCOMPARE(client.snapshot()->window, QStringLiteral("day"));

    // Revert now returns to what was applied, not to what was first loaded.
    QVERIFY(s.editor.resizeWindow(0, 8 * 60, 21 * 60));
    s.editor.revert();
    QCOMPARE(s.editor.model()->window(0).fromMinute, 7 * 60);
    QCOMPARE(s.editor.model()->window(0).toMinute, 21 * 60);
}

// The day given wholly to inference at 10:00 stops the training that runs. While the operator
// reads the plan, one of those jobs ends: the confirmed plan no longer holds, so the session
// refuses it and the editor asks again with what the schedule does now; declined, nothing
// changes.
void TestScheduleEditor::aChangedPlanIsRefusedAndPreviewedAgain()
{
    const Sim::Scenario scenario = demoScenario();
    Session::SimulationSession session(scenario, QString(), scenario.seed);
    session.runTo(10 * 3600'000LL);
    Models::SessionClient client(&session);
    Shown s(&client);
    QVERIFY(s.show(object(R"({"mode": "immediate", "windows": [
        {"name": "day", "from": "00:00", "to": "24:00", "inferenceShare": 1.0}]})")));
    QList<Session::SchedulePreview> asked;
    s.editor.setApplyConfirmation([&](const Session::SchedulePreview &p) {
        asked << p;
        if (asked.size() > 1)
            return false; // the second time: declined
        // Meanwhile the first job it would stop is cancelled by someone else.
        session.cancelJob(999, p.evictions.first().job.value());
        return true;
    });
    QVERIFY(s.editor.apply() != 0);
    QTRY_COMPARE(asked.size(), 2);
    QVERIFY2(!asked[0].evictions.isEmpty(), "training runs at 10:00 on the demo day");
    const int cancelled = asked[0].evictions.first().job.value();
    QVERIFY(!asked[1].evictedIds().contains(cancelled));
    QVERIFY(asked[1].evictedIds()
            != asked[0].evictedIds()); // (a waiting job may have taken its place)
    QTRY_COMPARE(s.editor.statusText(),
                 QStringLiteral("Not applied: the schedule in force stays."));
    QCOMPARE(client.snapshot()->policy, QStringLiteral("forecast"));
    // The dialog's words for the first plan: the policy, the budgets, the jobs and their loss.
    const QStringList lines = Widgets::ScheduleConfirmDialog::summaryLines(asked[0], 8 * 3600);
    QVERIFY2(lines.first().startsWith(QStringLiteral("Policy: forecast-driven → time windows")),
             qPrintable(lines.first()));
    QVERIFY2(lines.join(QLatin1Char('\n')).contains(QStringLiteral("at once, losing")),
             qPrintable(lines.join(QLatin1Char('\n'))));
}

// A fleet through Slurm: the windows become reservations, and the confirmation says what
// happens to each.
void TestScheduleEditor::aFleetsPreviewListsItsReservations()
{
    Session::SchedulePreview p;
    p.ok = true;
    p.policyBefore = p.policyAfter = QStringLiteral("slurm");
    Session::SchedulePreview::Reservation night;
    night.action = QStringLiteral("create");
    night.name = QStringLiteral("zhaoxi-night");
    night.nodes = {QStringLiteral("zx-mig"), QStringLiteral("zx-whole")};
    night.cards = 6;
    night.startMs = 1'796'421'600'000; // a Monday 22:00 at +08:00
    night.durationS = 9 * 3600;
    night.flags = {QStringLiteral("DAILY"), QStringLiteral("IGNORE_JOBS")};
    night.partition = QStringLiteral("training");
    Session::SchedulePreview::Reservation old = night;
    old.action = QStringLiteral("delete");
    old.name = QStringLiteral("zhaoxi-day");
    p.reservations = {old, night};
    QVERIFY(p.needsConfirmation());
    const QString text
            = Widgets::ScheduleConfirmDialog::summaryLines(p, 8 * 3600).join(QLatin1Char('\n'));
    QVERIFY2(text.contains(QStringLiteral("Slurm reservation zhaoxi-day is deleted.")),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Slurm reservation zhaoxi-night is created: zx-mig, "
                                          "zx-whole (6 card")),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("for training from ")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("for 9:00 h:mm (DAILY,IGNORE_JOBS)")), qPrintable(text));
    // Only kept ones: nothing to ask.
    night.action = QStringLiteral("keep");
    p.reservations = {night};
    QVERIFY(!p.needsConfirmation());
}

QTEST_MAIN(TestScheduleEditor)
#include "tst_scheduleeditor.moc"
