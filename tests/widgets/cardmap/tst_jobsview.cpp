// SPDX-License-Identifier: GPL-3.0-or-later
// The jobs view's commands on the offscreen platform: a row's context menu offers what the
// job's state allows and sends it to the session (cancel only after the operator agreed, a
// priority the operator chose), says the outcome, a refusal in the console's words; the log
// window shows a job's output or why there is none; a new workload is selected once it exists.
#include "jobcommandsession.h"

#include "core/models/jobtablemodel.h"
#include "widgets/cardmap/commandtext.h"
#include "widgets/cardmap/joblogdialog.h"
#include "widgets/cardmap/jobsview.h"
#include "widgets/cardmap/newworkloaddialog.h"
#include "widgets/cardmap/reasontext.h"

#include <QAction>
#include <QApplication>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

#include <memory>

using namespace Zhaoxi;
using Domain::JobId;
using JobCommands::JobCommandSession;
using JobCommands::whenModal;
using Widgets::JobsView;

namespace {

constexpr JobId kWaiting(0);
constexpr JobId kRunning(1);
constexpr JobId kPreempting(2);
constexpr JobId kDone(3);
constexpr JobId kCancelled(4);
constexpr JobId kFailed(5);

QAction *action(QMenu *menu, const char *name)
{
    return menu->findChild<QAction *>(QLatin1String(name));
}

// The last status message said, or "" when none.
QString lastMessage(const QSignalSpy &spy)
{
    return spy.isEmpty() ? QString() : spy.last().first().toString();
}

} // namespace

class TestJobsView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void theDragImageIsSmallAndBesideThePointer();
    void menuFollowsTheJobsState_data();
    void menuFollowsTheJobsState();
    void rightClickOpensTheMenu();
    void requeueAndItsRefusal();
    void cancelAsksFirst();
    void priorityIsAskedFor();
    void lateAnswersAreMatchedByRequest();
    void logShowsTheOutputOrWhyNot();
    void logFollowsWhileOpen();
    void newWorkloadIsSelected();
    void commandErrorsInTheConsolesWords_data();
    void commandErrorsInTheConsolesWords();
    void problemsInTheConsolesWords();
};

void TestJobsView::menuFollowsTheJobsState_data()
{
    QTest::addColumn<int>("job");
    QTest::addColumn<bool>("cancel");
    QTest::addColumn<bool>("requeue");
    QTest::addColumn<bool>("priority");

    QTest::newRow("waiting") << kWaiting.value() << true << false << true;
    QTest::newRow("running") << kRunning.value() << true << true << true;
    QTest::newRow("preempting") << kPreempting.value() << true << false << true;
    QTest::newRow("finished") << kDone.value() << false << false << false;
    QTest::newRow("cancelled") << kCancelled.value() << false << false << false;
    QTest::newRow("failed") << kFailed.value() << false << false << false;
}

void TestJobsView::menuFollowsTheJobsState()
{
    QFETCH(int, job);
    QFETCH(bool, cancel);
    QFETCH(bool, requeue);
    QFETCH(bool, priority);

    JobCommandSession session;
    Models::SessionClient client(&session);
    JobsView view(&client);
    const std::unique_ptr<QMenu> menu(view.createContextMenu(JobId(job)));
    QVERIFY(action(menu.get(), "cancelJob"));
    QCOMPARE(action(menu.get(), "cancelJob")->isEnabled(), cancel);
    QCOMPARE(action(menu.get(), "requeueJob")->isEnabled(), requeue);
    QCOMPARE(action(menu.get(), "changePriority")->isEnabled(), priority);
    // Every job has a log to look at, ended ones too, and its "why".
    QVERIFY(action(menu.get(), "viewLog")->isEnabled());
    QSignalSpy selected(&view, &JobsView::jobSelected);
    action(menu.get(), "whyJob")->trigger();
    QCOMPARE(selected.size(), 1);
    QCOMPARE(selected.first().first().value<JobId>(), JobId(job));
    QVERIFY(action(menu.get(), "newWorkload")->isEnabled());

    // No row: only a new workload; no session: nothing.
    const std::unique_ptr<QMenu> none(view.createContextMenu(JobId()));
    QVERIFY(!action(none.get(), "cancelJob"));
    QVERIFY(action(none.get(), "newWorkload")->isEnabled());
    JobsView offline(nullptr);
    offline.setSnapshot(JobCommands::jobsSnapshot());
    const std::unique_ptr<QMenu> dead(offline.createContextMenu(JobId(job)));
    for (QAction *a : dead->actions())
        QVERIFY2(a->isSeparator() || !a->isEnabled(), qPrintable(a->objectName()));
    QCOMPARE(session.calls.size(), 0);
}

void TestJobsView::rightClickOpensTheMenu()
{
    JobCommandSession session;
    Models::SessionClient client(&session);
    JobsView view(&client);
    view.setFilter(JobsView::Filter::All);
    view.resize(800, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTableView *table = view.tableView();
    int row = -1;
    for (int r = 0; r < table->model()->rowCount(); ++r) {
        if (table->model()->index(r, 0).data(Models::JobTableModel::JobIdRole).toInt()
            == kRunning.value())
            row = r;
    }
    QVERIFY(row >= 0);
    const QRect cell = table->visualRect(table->model()->index(row, 0));
    QVERIFY(!cell.isEmpty());
    // The menu that comes up is the running job's: Requeue it from there.
    QTimer::singleShot(0, [&] {
        auto *menu = qobject_cast<QMenu *>(QApplication::activePopupWidget());
        QVERIFY(menu);
        QAction *requeue = menu->findChild<QAction *>(QStringLiteral("requeueJob"));
        QVERIFY(requeue && requeue->isEnabled());
        requeue->trigger();
        menu->close();
    });
    QContextMenuEvent event(
            QContextMenuEvent::Mouse, cell.center(), table->viewport()->mapToGlobal(cell.center()));
    QCoreApplication::sendEvent(table->viewport(), &event);
    QTRY_COMPARE(session.calls.size(), 1);
    QCOMPARE(session.calls.first().command, QStringLiteral("requeueJob"));
    QCOMPARE(session.calls.first().job, kRunning.value());
    QCOMPARE(view.currentJob(), kRunning);
}

void TestJobsView::requeueAndItsRefusal()
{
    JobCommandSession session;
    Models::SessionClient client(&session);
    JobsView view(&client);
    QSignalSpy said(&view, &JobsView::statusMessage);

    const std::unique_ptr<QMenu> menu(view.createContextMenu(kRunning));
    action(menu.get(), "requeueJob")->trigger();
    QCOMPARE(session.calls.size(), 1);
    QCOMPARE(session.calls.first().command, QStringLiteral("requeueJob"));
    QCOMPARE(session.calls.first().job, kRunning.value());
    QTRY_COMPARE(lastMessage(said), QStringLiteral("running-r went back to the queue."));

    session.result.ok = false;
    session.result.error = QStringLiteral("job 1 is not running");
    QVERIFY(view.requeueJob(kRunning) != 0);
    QCOMPARE(session.calls.size(), 2);
    QTRY_COMPARE(
            lastMessage(said),
            QStringLiteral("Could not take running-r back to the queue: Job 1 is not running."));
}

void TestJobsView::cancelAsksFirst()
{
    JobCommandSession session;
    Models::SessionClient client(&session);
    JobsView view(&client);
    QSignalSpy said(&view, &JobsView::statusMessage);
    const std::unique_ptr<QMenu> menu(view.createContextMenu(kWaiting));

    // Declined: nothing is sent.
    QString question;
    whenModal<QMessageBox>([&](QMessageBox *box) {
        question = box->text();
        box->findChild<QPushButton *>(QStringLiteral("keep"))->click();
    });
    action(menu.get(), "cancelJob")->trigger();
    QCOMPARE(question, QStringLiteral("Cancel waiting-w?"));
    QCOMPARE(session.calls.size(), 0);
    QVERIFY(said.isEmpty());

    // Agreed: cancelled.
    whenModal<QMessageBox>([](QMessageBox *box) {
        box->findChild<QPushButton *>(QStringLiteral("confirm"))->click();
    });
    action(menu.get(), "cancelJob")->trigger();
    QCOMPARE(session.calls.size(), 1);
    QCOMPARE(session.calls.first().command, QStringLiteral("cancelJob"));
    QCOMPARE(session.calls.first().job, kWaiting.value());
    QTRY_COMPARE(lastMessage(said), QStringLiteral("Cancelled waiting-w."));

    // Refused, in the console's words.
    session.result.ok = false;
    session.result.error = QStringLiteral("job 0 has ended");
    whenModal<QMessageBox>([](QMessageBox *box) {
        box->findChild<QPushButton *>(QStringLiteral("confirm"))->click();
    });
    QVERIFY(view.cancelJob(kWaiting) != 0);
    QTRY_COMPARE(lastMessage(said),
                 QStringLiteral("Could not cancel waiting-w: Job 0 has already ended."));
    // An ended or unknown job is not even asked about.
    bool asked = false;
    const QPointer<QTimer> poll = whenModal<QMessageBox>([&](QMessageBox *box) {
        asked = true;
        box->reject();
    });
    QCOMPARE(view.cancelJob(kDone), quint64(0));
    QCOMPARE(view.cancelJob(JobId(99)), quint64(0));
    QCOMPARE(view.requeueJob(kWaiting), quint64(0));
    QCOMPARE(view.setJobPriority(kFailed, 1), quint64(0));
    delete poll.data();
    QVERIFY(!asked);
    QCOMPARE(session.calls.size(), 2);
}

void TestJobsView::priorityIsAskedFor()
{
    JobCommandSession session;
    Models::SessionClient client(&session);
    JobsView view(&client);
    QSignalSpy said(&view, &JobsView::statusMessage);
    const std::unique_ptr<QMenu> menu(view.createContextMenu(kRunning));

    int offered = 0;
    whenModal<QInputDialog>([&](QInputDialog *dialog) {
        offered = dialog->intValue();
        QCOMPARE(dialog->intMinimum(), Domain::WorkloadSpecLimits::minPriority);
        QCOMPARE(dialog->intMaximum(), Domain::WorkloadSpecLimits::maxPriority);
        dialog->setIntValue(250);
        dialog->accept();
    });
    action(menu.get(), "changePriority")->trigger();
    QCOMPARE(offered, 11); // running-r's priority now
    QCOMPARE(session.calls.size(), 1);
    QCOMPARE(session.calls.first().command, QStringLiteral("setJobPriority"));
    QCOMPARE(session.calls.first().job, kRunning.value());
    QCOMPARE(session.calls.first().priority, 250);
    QTRY_COMPARE(lastMessage(said), QStringLiteral("running-r now has priority 250."));

    // Cancelled, or the same value: nothing to send.
    whenModal<QInputDialog>([](QInputDialog *dialog) { dialog->reject(); });
    QCOMPARE(view.changePriority(kRunning), quint64(0));
    whenModal<QInputDialog>([](QInputDialog *dialog) { dialog->accept(); });
    QCOMPARE(view.changePriority(kRunning), quint64(0));
    QCOMPARE(session.calls.size(), 1);

    session.result.ok = false;
    session.result.error = QStringLiteral("no job 1");
    QVERIFY(view.setJobPriority(kRunning, -5) != 0);
    QTRY_COMPARE(lastMessage(said),
                 QStringLiteral("Could not change the priority of running-r: There is no job 1."));
}

void TestJobsView::lateAnswersAreMatchedByRequest()
{
    JobCommandSession session;
    session.answerAtOnce = false;
    Models::SessionClient client(&session);
    JobsView view(&client);
    QSignalSpy said(&view, &JobsView::statusMessage);
    QSignalSpy answers(&client, &Models::SessionClient::commandFinished);
    const quint64 requeue = view.requeueJob(kRunning);
    const quint64 priority = view.setJobPriority(kWaiting, 3);
    QVERIFY(requeue != 0 && priority != 0 && requeue != priority);
    QVERIFY(said.isEmpty());
    // Answered in the other order; someone else's answer is not ours.
    Session::CommandResult foreign;
    foreign.request = priority + 100;
    Q_EMIT session.commandFinished(foreign);
    QTRY_COMPARE(answers.size(), 1);
    QVERIFY(said.isEmpty());
    session.answer(session.calls.at(1));
    QTRY_COMPARE(lastMessage(said), QStringLiteral("waiting-w now has priority 3."));
    session.answer(session.calls.at(0));
    QTRY_COMPARE(lastMessage(said), QStringLiteral("running-r went back to the queue."));
    QCOMPARE(said.size(), 2);
}

void TestJobsView::logShowsTheOutputOrWhyNot()
{
    JobCommandSession session;
    session.log.ok = true;
    session.log.path = QStringLiteral("/var/lib/zhaoxi/jobs/3/output.log");
    session.log.text = QStringLiteral("step 100 loss 1.84\nstep 200 loss 1.79\n");
    Models::SessionClient client(&session);
    JobsView view(&client);
    const std::unique_ptr<QMenu> menu(view.createContextMenu(kDone));
    action(menu.get(), "viewLog")->trigger();

    auto *dialog = view.findChild<Widgets::JobLogDialog *>();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    QVERIFY(!dialog->isModal());
    QCOMPARE(dialog->job(), kDone);
    QCOMPARE(dialog->windowTitle(), QStringLiteral("Log of done-d"));
    QCOMPARE(session.calls.size(), 1);
    QCOMPARE(session.calls.first().command, QStringLiteral("requestJobLog"));
    QCOMPARE(session.calls.first().job, kDone.value());
    QVERIFY(session.calls.first().maxBytes > 0);
    QTRY_COMPARE(dialog->logText(), session.log.text);
    QVERIFY(dialog->textView()->isReadOnly());
    QVERIFY(QFontInfo(dialog->textView()->font()).fixedPitch());
    QCOMPARE(dialog->pathText(),
             QStringLiteral("File on the appliance: /var/lib/zhaoxi/jobs/3/output.log"));
    QVERIFY(dialog->errorText().isEmpty());

    // Asked again for the same job: the same window; Refresh asks anew.
    QCOMPARE(view.showLog(kDone), dialog);
    session.log.text += QStringLiteral("step 300 loss 1.70\n");
    session.log.truncated = true;
    QTest::mouseClick(dialog->findChild<QPushButton *>(QStringLiteral("refresh")), Qt::LeftButton);
    QCOMPARE(session.calls.size(), 2);
    QTRY_VERIFY(dialog->logText().endsWith(QStringLiteral("step 300 loss 1.70\n")));
    QVERIFY(dialog->pathText().endsWith(QStringLiteral("(older output is not shown)")));

    // No log: why, in the console's words.
    session.log = {};
    session.log.ok = false;
    session.log.error = QStringLiteral("no job 3");
    dialog->refresh();
    QTRY_COMPARE(dialog->errorText(), QStringLiteral("No log: There is no job 3."));
    session.log.error = QStringLiteral("job 3 is modelled by the digital twin and has no process");
    dialog->refresh();
    QTRY_COMPARE(
            dialog->errorText(),
            QStringLiteral("No log: job 3 is modelled by the digital twin and has no process"));
    QVERIFY(dialog->pathText().isEmpty());

    // Closing it deletes it; the next View log opens a new one.
    dialog->close();
    QTRY_VERIFY(!view.findChild<Widgets::JobLogDialog *>());
    QVERIFY(view.showLog(kDone));
}

void TestJobsView::logFollowsWhileOpen()
{
    JobCommandSession session;
    session.answerAtOnce = false;
    Models::SessionClient client(&session);
    QSignalSpy logs(&client, &Models::SessionClient::jobLogReady);
    Widgets::JobLogDialog dialog(&client, kRunning, QStringLiteral("running-r"));
    QVERIFY(!dialog.follows());
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QCOMPARE(session.calls.size(), 1); // asked once when shown
    session.log.ok = true;
    session.log.text = QStringLiteral("a\n");
    session.log.path = QStringLiteral("/log");
    session.answer(session.calls.first());
    QTRY_COMPARE(dialog.logText(), QStringLiteral("a\n"));

    // Following: asked again and again while open, each after the last was answered.
    dialog.setFollow(true);
    QCOMPARE(session.calls.size(), 2);
    session.log.text = QStringLiteral("a\nb\n");
    session.answer(session.calls.last());
    QTRY_VERIFY_WITH_TIMEOUT(session.calls.size() >= 3, 20000);
    session.log.text = QStringLiteral("a\nb\nc\n");
    session.answer(session.calls.last());
    QTRY_COMPARE(dialog.logText(), QStringLiteral("a\nb\nc\n"));
    QTRY_VERIFY_WITH_TIMEOUT(session.calls.size() >= 4, 20000);
    // An answer to an earlier request than the one out is not shown.
    session.log.text = QStringLiteral("stale\n");
    const qsizetype delivered = logs.size();
    session.answer(session.calls.at(1));
    QTRY_COMPARE(logs.size(), delivered + 1);
    QCOMPARE(dialog.logText(), QStringLiteral("a\nb\nc\n"));
}

void TestJobsView::newWorkloadIsSelected()
{
    JobCommandSession session;
    session.result.job = JobId(6);
    Models::SessionClient client(&session);
    JobsView view(&client);
    QSignalSpy said(&view, &JobsView::statusMessage);
    auto *button = view.findChild<QPushButton *>(QStringLiteral("newWorkload"));
    QVERIFY(button && button->isEnabled());
    QTest::mouseClick(button, Qt::LeftButton);
    auto *dialog = view.findChild<Widgets::NewWorkloadDialog *>();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    dialog->findChild<QLineEdit *>(QStringLiteral("name"))->setText(QStringLiteral("fresh"));
    dialog->findChild<QLineEdit *>(QStringLiteral("run.command"))->setText(QStringLiteral("true"));
    QVERIFY(dialog->submitButton()->isEnabled());

    // The answer comes before the snapshot with the job: it is selected when that arrives.
    QTest::mouseClick(dialog->submitButton(), Qt::LeftButton);
    QCOMPARE(session.calls.size(), 1);
    QTRY_COMPARE(lastMessage(said), QStringLiteral("Submitted fresh as job 6."));
    QVERIFY(view.currentJob() != JobId(6));
    session.publish(JobCommands::jobsSnapshot(2, 1));
    QCOMPARE(view.currentJob(), JobId(6));
    QTRY_VERIFY(!view.findChild<Widgets::NewWorkloadDialog *>()); // closed and deleted

    // A job the filter hides is shown with every job rather than left unselected.
    QCOMPARE(view.filter(), JobsView::Filter::WaitingOnly);
    view.selectJob(kRunning);
    QCOMPARE(view.filter(), JobsView::Filter::All);
    QCOMPARE(view.currentJob(), kRunning);
}

void TestJobsView::commandErrorsInTheConsolesWords_data()
{
    QTest::addColumn<QString>("error");
    QTest::addColumn<QString>("text");

    QTest::newRow("no job") << "no job 12"
                            << "There is no job 12.";
    QTest::newRow("no job or card") << "no job 3 or card 4"
                                    << "There is no job 3 or no card 4.";
    QTest::newRow("not waiting") << "job 3 is not waiting"
                                 << "Job 3 is no longer waiting.";
    QTest::newRow("not running") << "job 3 is not running"
                                 << "Job 3 is not running.";
    QTest::newRow("ended") << "job 3 has ended"
                           << "Job 3 has already ended.";
    QTest::newRow("already ended") << "job 3 has already ended"
                                   << "Job 3 has already ended.";
    QTest::newRow("none") << ""
                          << "The appliance gave no reason.";
    QTest::newRow("anything else, as it is") << "run.user: root may not run workloads"
                                             << "run.user: root may not run workloads";
}

void TestJobsView::commandErrorsInTheConsolesWords()
{
    QFETCH(QString, error);
    QFETCH(QString, text);
    QCOMPARE(Widgets::commandErrorText(error), text);
}

// The sessions' codes become the console's sentences with their parameters, never the core's
// English inside a translated sentence: a scheduling refusal in the scheduler's words, a
// read-only code as the banner says it, and English without a code as it is.
void TestJobsView::problemsInTheConsolesWords()
{
    using Domain::Problem;
    QCOMPARE(Widgets::problemText(Problem(Problem::Code::JobNotWaiting, {QStringLiteral("3")})),
             QStringLiteral("Job 3 is no longer waiting."));
    const Sched::Status full = Sched::Status::unschedulable(Sched::Reason::NoFreeUnit);
    QCOMPARE(Widgets::problemText(Problem(Problem::Code::Unschedulable, {full.describe()}), full),
             Widgets::reasonText(full));
    QVERIFY(!Widgets::problemText(Problem(Problem::Code::NowRefused, {full.describe()}), full)
                     .contains(full.describe()));
    QCOMPARE(Widgets::problemText(Problem(Problem::Code::ReadOnlyNoMig)),
             Widgets::readOnlyText(Problem(Problem::Code::ReadOnlyNoMig)));
    QCOMPARE(Widgets::problemText(Problem::text(QStringLiteral("no job 12"))),
             QStringLiteral("There is no job 12."));
    QCOMPARE(Widgets::problemText(Problem::text(QStringLiteral("disk full"))),
             QStringLiteral("disk full"));
    QCOMPARE(Widgets::problemText(Problem()), QStringLiteral("The appliance gave no reason."));
}

// A dragged job carries a small chip with its name, held below and right of the pointer: the
// card under the pointer stays in sight.
void TestJobsView::theDragImageIsSmallAndBesideThePointer()
{
    const QFont font = QApplication::font();
    const QPixmap one = JobsView::dragImage({QStringLiteral("ft-70b-a")}, 1.0, font);
    QVERIFY(!one.isNull());
    QVERIFY2(one.width() <= 230 && one.height() <= 48,
             qPrintable(QStringLiteral("%1x%2").arg(one.width()).arg(one.height())));
    const QPixmap longName = JobsView::dragImage({QString(200, QLatin1Char('x'))}, 1.0, font);
    QVERIFY(longName.width() <= 230); // elided
    const QPixmap hidpi = JobsView::dragImage({QStringLiteral("ft-70b-a")}, 2.0, font);
    QCOMPARE(hidpi.deviceIndependentSize().toSize(), one.size());
    QVERIFY(JobsView::kDragHotSpot.x() < 0 && JobsView::kDragHotSpot.y() < 0);
}

QTEST_MAIN(TestJobsView)
#include "tst_jobsview.moc"
