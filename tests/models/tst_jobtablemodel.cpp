// SPDX-License-Identifier: GPL-3.0-or-later
// The jobs table through a small simulated day: jobs appear, wait, run, are preempted and
// finish, snapshot after snapshot, with QAbstractItemModelTester watching every change; only
// waiting jobs drag, and they drag their ids.
#include "fixture.h"

#include "core/models/jobtablemodel.h"

#include <QAbstractItemModelTester>
#include <QMimeData>
#include <QSignalSpy>
#include <QTest>

using namespace Zhaoxi;
using namespace CardMapFixture;
using Models::JobTableModel;
using Sched::JobState;

namespace {

int rowOfName(const JobTableModel &m, const QString &name)
{
    for (int r = 0; r < m.rowCount(); ++r) {
        if (m.index(r, 0).data(JobTableModel::NameRole).toString() == name)
            return r;
    }
    return -1;
}

JobState stateOf(const JobTableModel &m, const QString &name)
{
    const int r = rowOfName(m, name);
    if (r < 0)
        qFatal("no row for %s", qPrintable(name));
    return JobState(m.index(r, 0).data(JobTableModel::StateRole).toInt());
}

QString display(const JobTableModel &m, const QString &name, int column)
{
    return m.index(rowOfName(m, name), column).data().toString();
}

} // namespace

class TestJobTableModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void followsTheDay();
    void onlyWaitingJobsDrag();
    void mimeDataRoundTrip_data();
    void mimeDataRoundTrip();
    void anotherApplianceResets();
};

void TestJobTableModel::followsTheDay()
{
    Appliance a;
    JobTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);

    // 00:04: the first two jobs run.
    a.runTo(4 * kMinute);
    model.setSnapshot(a.now());
    QCOMPARE(model.rowCount(), int(a.now().state.jobs().size()));
    QCOMPARE(stateOf(model, QStringLiteral("gang-a")), JobState::Running);
    QCOMPARE(stateOf(model, QStringLiteral("solo-b")), JobState::Running);
    QCOMPARE(model.waitingCount(), 0);
    const int gang = rowOfName(model, QStringLiteral("gang-a"));
    QCOMPARE(model.index(gang, 0).data(JobTableModel::CardsRole).toInt(), 2);
    QCOMPARE(model.index(gang, 0).data(JobTableModel::HostRole).toString(), QStringLiteral("node"));
    QCOMPARE(model.index(gang, 0).data(JobTableModel::CardIdsRole).value<QList<int>>().size(), 2);
    QCOMPARE(display(model, QStringLiteral("gang-a"), JobTableModel::DemandColumn),
             QStringLiteral("2 \u00d7 whole card"));
    QCOMPARE(display(model, QStringLiteral("gang-a"), JobTableModel::MemoryColumn),
             QStringLiteral("100 GiB"));
    QCOMPARE(display(model, QStringLiteral("gang-a"), JobTableModel::SubmittedColumn),
             QStringLiteral("00:00"));

    // 00:08: four more have come; urgent-p waits for gang-a's checkpoint, the rest wait behind
    // it. One insert for the new rows.
    inserted.clear();
    a.runTo(8 * kMinute);
    model.setSnapshot(a.now());
    QCOMPARE(inserted.size(), 1);
    QCOMPARE(model.rowCount(), int(a.now().state.jobs().size()));
    for (const char *name : {"urgent-p", "small-l", "mid-m", "big-n"})
        QCOMPARE(stateOf(model, QString::fromLatin1(name)), JobState::Pending);
    QCOMPARE(stateOf(model, QStringLiteral("gang-a")), JobState::Preempting);
    QCOMPARE(display(model, QStringLiteral("gang-a"), JobTableModel::StateColumn),
             QStringLiteral("Draining"));
    QCOMPARE(model.waitingCount(), 4);
    const int waiting = rowOfName(model, QStringLiteral("small-l"));
    QVERIFY(model.index(waiting, 0).data(JobTableModel::WaitingRole).toBool());
    QVERIFY(model.index(waiting, 0).data(JobTableModel::QueuePositionRole).toInt() >= 0);
    QCOMPARE(model.index(waiting, 0).data(JobTableModel::HostIdRole).toInt(), -1);
    QCOMPARE(display(model, QStringLiteral("small-l"), JobTableModel::PlacementColumn), QString());

    // The same snapshot again changes nothing.
    changed.clear();
    model.setSnapshot(a.now());
    QCOMPARE(changed.size(), 0);

    // 00:30: urgent-p has its cards; progress moves on for the running.
    a.runTo(30 * kMinute);
    model.setSnapshot(a.now());
    QCOMPARE(stateOf(model, QStringLiteral("urgent-p")), JobState::Running);
    QCOMPARE(stateOf(model, QStringLiteral("gang-a")), JobState::Pending);
    QVERIFY(model.index(rowOfName(model, QStringLiteral("gang-a")), 0)
                    .data(JobTableModel::PreemptionsRole)
                    .toInt()
            >= 1);
    const QVariant progress = model.index(rowOfName(model, QStringLiteral("urgent-p")), 0)
                                      .data(JobTableModel::ProgressRole);
    QVERIFY(progress.isValid());
    QVERIFY(progress.toDouble() > 0 && progress.toDouble() < 1);

    // 03:00: urgent-p is done.
    a.runTo(180 * kMinute);
    model.setSnapshot(a.now());
    QCOMPARE(stateOf(model, QStringLiteral("urgent-p")), JobState::Finished);
    QCOMPARE(display(model, QStringLiteral("urgent-p"), JobTableModel::ProgressColumn),
             QStringLiteral("100%"));
    QCOMPARE(model.rowCount(), int(a.now().state.jobs().size()));
}

void TestJobTableModel::onlyWaitingJobsDrag()
{
    Appliance a;
    a.runTo(8 * kMinute);
    JobTableModel model;
    model.setSnapshot(a.now());
    const QModelIndex waiting = model.index(rowOfName(model, QStringLiteral("small-l")), 0);
    const QModelIndex running = model.index(rowOfName(model, QStringLiteral("solo-b")), 0);
    QVERIFY(model.flags(waiting) & Qt::ItemIsDragEnabled);
    QVERIFY(!(model.flags(running) & Qt::ItemIsDragEnabled));
    QVERIFY(model.flags(running) & Qt::ItemIsSelectable);
    QCOMPARE(model.mimeTypes(), QStringList{QStringLiteral("application/x-zhaoxi-job-ids")});
    QCOMPARE(model.supportedDragActions(), Qt::MoveAction);

    // A running job alone drags nothing; with a waiting one, only the waiting one's id.
    QVERIFY(model.mimeData({running}) == nullptr);
    std::unique_ptr<QMimeData> data(model.mimeData({running, waiting, waiting.siblingAtColumn(3)}));
    QVERIFY(data);
    QCOMPARE(JobTableModel::jobIdsFromMimeData(data.get()),
             QList<Domain::JobId>{a.job(QStringLiteral("small-l"))});
}

void TestJobTableModel::mimeDataRoundTrip_data()
{
    QTest::addColumn<QList<int>>("ids");
    QTest::newRow("one") << QList<int>{3};
    QTest::newRow("several") << QList<int>{4, 0, 17};
    QTest::newRow("none") << QList<int>{};
}

void TestJobTableModel::mimeDataRoundTrip()
{
    QFETCH(QList<int>, ids);
    QList<Domain::JobId> jobs;
    for (int i : ids)
        jobs.append(Domain::JobId(i));
    QMimeData data;
    data.setData(JobTableModel::mimeType(), JobTableModel::encodeJobIds(jobs));
    QCOMPARE(JobTableModel::jobIdsFromMimeData(&data), jobs);

    // Other drags are not ours.
    QMimeData text;
    text.setText(QStringLiteral("3"));
    QVERIFY(JobTableModel::jobIdsFromMimeData(&text).isEmpty());
}

void TestJobTableModel::anotherApplianceResets()
{
    Appliance day;
    day.runTo(30 * kMinute);
    JobTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSnapshot(day.now());
    QCOMPARE(model.rowCount(), 6);

    // A fresh session of the same appliance, earlier in its day: fewer jobs.
    Appliance fresh;
    fresh.runTo(2 * kMinute);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    model.setSnapshot(fresh.now());
    QCOMPARE(reset.size(), 1);
    QCOMPARE(model.rowCount(), 2);
}

QTEST_GUILESS_MAIN(TestJobTableModel)
#include "tst_jobtablemodel.moc"
