// SPDX-License-Identifier: GPL-3.0-or-later
// The card table: one row per card, semantic roles, and updates in batches (one dataChanged per
// run of changed rows, row inserts and removals when the card count changes), checked by
// QAbstractItemModelTester throughout.
#include "core/catalogue/catalogue.h"
#include "core/models/cardsortmodel.h"
#include "core/models/cardtablemodel.h"
#include "core/sched/appliancefile.h"

#include "tests/models/demostate.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

#include <limits>

using namespace Zhaoxi;
using DemoState::bindJob;
using DemoState::demo;
using Domain::CardId;
using Domain::PartitionMode;
using Models::CardSortModel;
using Models::CardTableModel;
using Models::PartitionInfo;
using Sched::ClusterState;

namespace {

const Catalogue::Catalogue &catalogue()
{
    static const Catalogue::Catalogue c = Catalogue::Catalogue::builtIn();
    return c;
}

// A small appliance: one host with `cards` whole L20s.
ClusterState smallAppliance(int cards)
{
    ClusterState s(catalogue());
    const Domain::HostId h = s.addHost(QStringLiteral("small"), 8000, 65536);
    for (int i = 0; i < cards; ++i)
        s.addCard(h, catalogue().indexOf(QStringLiteral("L20-48GB")), PartitionMode::Whole, i);
    return s;
}

struct Range
{
    int first;
    int last;
    friend bool operator==(const Range &, const Range &) = default;
};

QList<Range> changedRows(const QSignalSpy &spy)
{
    QList<Range> r;
    for (const QList<QVariant> &args : spy) {
        const auto topLeft = args[0].value<QModelIndex>();
        const auto bottomRight = args[1].value<QModelIndex>();
        r.append({topLeft.row(), bottomRight.row()});
    }
    return r;
}

} // namespace

namespace QTest {
template<>
char *toString(const Range &r)
{
    const QByteArray text = QByteArray::number(r.first) + ".." + QByteArray::number(r.last);
    return qstrdup(text.constData());
}
} // namespace QTest

class TestCardTableModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void rowsAndRoles();
    void layoutText();
    void changedRowsInBatches();
    void cardCountChanges();
    void summary();
    void sortByHostKeepsHostsTogether();
    void retranslateAnnouncesHeaders();
    void readingsShowAndSort();
};

void TestCardTableModel::rowsAndRoles()
{
    CardTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setState(demo());
    QCOMPARE(model.rowCount(), 12);
    QCOMPARE(model.columnCount(), int(CardTableModel::ColumnCount));

    const QModelIndex mig = model.index(5, CardTableModel::ModeColumn);
    QCOMPARE(mig.data(CardTableModel::CardIdRole).toInt(), 5);
    QCOMPARE(mig.data(CardTableModel::HostRole).toString(), QStringLiteral("dgx-h200"));
    QCOMPARE(mig.data(CardTableModel::HostIdRole).toInt(), 0);
    QCOMPARE(mig.data(CardTableModel::CardIndexRole).toInt(), 5);
    QCOMPARE(mig.data(CardTableModel::ModelRole).toString(), QStringLiteral("H200-141GB"));
    QCOMPARE(mig.data(CardTableModel::ModeRole).toInt(), int(PartitionMode::Mig));
    QCOMPARE(mig.data(Qt::DisplayRole).toString(), QStringLiteral("MIG"));
    QCOMPARE(mig.data(CardTableModel::LayoutRole).toStringList(),
             (QStringList{"3g.71gb@0", "2g.35gb@4", "1g.18gb@6"}));
    QCOMPARE(mig.data(CardTableModel::PartitionCountRole).toInt(), 3);
    QCOMPARE(mig.data(CardTableModel::AllocatedMilliRole).toInt(), 0);
    QCOMPARE(mig.data(CardTableModel::HealthRole).toInt(), int(Sched::CardHealth::Healthy));
    QCOMPARE(mig.data(CardTableModel::LinkDomainRole).toInt(), 0);

    const auto partitions = mig.data(CardTableModel::PartitionsRole).value<QList<PartitionInfo>>();
    QCOMPARE(partitions.size(), 3);
    QCOMPARE(partitions[0].profile, QStringLiteral("3g.71gb"));
    QCOMPARE(partitions[0].start, 0);
    QCOMPARE(partitions[0].computeSlices, 3);
    QCOMPARE(partitions[0].totalSlices, 7);
    QVERIFY(!partitions[0].job.isValid());

    const QModelIndex l40s = model.index(8, CardTableModel::ModeColumn);
    QCOMPARE(l40s.data(CardTableModel::HostRole).toString(), QStringLiteral("ada-edge"));
    QCOMPARE(l40s.data(CardTableModel::ModeRole).toInt(), int(PartitionMode::Mps));
    QCOMPARE(model.index(8, CardTableModel::CardColumn).data().toString(), QStringLiteral("GPU 0"));

    // No colours or icons: views decide how a role looks.
    for (int role : {int(Qt::DecorationRole), int(Qt::ForegroundRole), int(Qt::BackgroundRole)})
        QVERIFY(!mig.data(role).isValid());
}

void TestCardTableModel::layoutText()
{
    ClusterState s = demo();
    bindJob(s, CardId(5), s.card(CardId(5)).units[0].uid, QStringLiteral("job-x"));
    bindJob(s, CardId(0), s.card(CardId(0)).units[0].uid, QStringLiteral("llama-train"));
    CardTableModel model;
    model.setState(s);
    const auto text = [&](int row) {
        return model.index(row, CardTableModel::LayoutColumn).data().toString();
    };
    QCOMPARE(text(5),
             QStringLiteral("3g.71gb@0 [job-x] \u00b7 2g.35gb@4 [idle] \u00b7 1g.18gb@6 [idle]"));
    QCOMPARE(text(0), QStringLiteral("llama-train"));
    QCOMPARE(text(1), QStringLiteral("idle"));
    QCOMPARE(text(8), QStringLiteral("no clients")); // MPS card without clients
    QCOMPARE(model.index(5, CardTableModel::AllocatedColumn).data().toString(),
             QStringLiteral("42.8%")); // 3 of 7 compute slices
    QCOMPARE(model.index(5, CardTableModel::AllocatedColumn)
                     .data(CardTableModel::AllocatedMilliRole)
                     .toInt(),
             3000 / 7);
}

void TestCardTableModel::changedRowsInBatches()
{
    CardTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    ClusterState s = demo();
    model.setState(s);

    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);

    model.setState(s); // the same snapshot: nothing to announce
    QCOMPARE(changed.size(), 0);

    bindJob(s, CardId(2), s.card(CardId(2)).units[0].uid, QStringLiteral("a"));
    bindJob(s, CardId(3), s.card(CardId(3)).units[0].uid, QStringLiteral("b"));
    s.setCardHealth(CardId(9), Sched::CardHealth::Throttled);
    model.setState(s);
    QCOMPARE(changedRows(changed), (QList<Range>{{2, 3}, {9, 9}}));
    for (const QList<QVariant> &args : changed) {
        QCOMPARE(args[0].value<QModelIndex>().column(), 0);
        QCOMPARE(args[1].value<QModelIndex>().column(), CardTableModel::ColumnCount - 1);
    }
    QCOMPARE(inserted.size(), 0);
    QCOMPARE(removed.size(), 0);
    QCOMPARE(model.index(9, CardTableModel::HealthColumn).data().toString(),
             QStringLiteral("Throttled"));

    // A new MIG instance and a host going down change rows 6 and 8..11.
    changed.clear();
    s.destroyPartition(CardId(6), s.card(CardId(6)).units.last().uid);
    s.setHostUp(Domain::HostId(1), false);
    model.setState(s);
    QCOMPARE(changedRows(changed), (QList<Range>{{6, 6}, {8, 11}}));
    QCOMPARE(model.index(10, CardTableModel::HealthColumn).data().toString(),
             QStringLiteral("Host down"));
    QCOMPARE(
            model.index(10, CardTableModel::HealthColumn).data(CardTableModel::HostUpRole).toBool(),
            false);
}

void TestCardTableModel::cardCountChanges()
{
    CardTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);

    model.setState(smallAppliance(3));
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(inserted.size(), 1);
    QCOMPARE(inserted[0][1].toInt(), 0);
    QCOMPARE(inserted[0][2].toInt(), 2);

    model.setState(demo()); // every common row differs; nine rows more
    QCOMPARE(model.rowCount(), 12);
    QCOMPARE(changedRows(changed), (QList<Range>{{0, 2}}));
    QCOMPARE(inserted.size(), 2);
    QCOMPARE(inserted[1][1].toInt(), 3);
    QCOMPARE(inserted[1][2].toInt(), 11);
    QCOMPARE(model.index(11, CardTableModel::ModelColumn).data().toString(),
             QStringLiteral("L20-48GB"));

    model.setState(smallAppliance(2));
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(removed.size(), 1);
    QCOMPARE(removed[0][1].toInt(), 2);
    QCOMPARE(removed[0][2].toInt(), 11);
    QCOMPARE(model.index(1, CardTableModel::HostColumn).data().toString(), QStringLiteral("small"));

    model.setState(ClusterState(catalogue()));
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.rowOf(CardId(0)), -1);
}

void TestCardTableModel::summary()
{
    CardTableModel model;
    QSignalSpy summaryChanged(&model, &CardTableModel::summaryChanged);
    ClusterState s = demo();
    model.setState(s);
    QCOMPARE(summaryChanged.size(), 1);
    QCOMPARE(model.hostCount(), 2);
    QCOMPARE(model.cardCount(), 12);
    // 4 whole H200s, 2 + 3 + 4 + 7 MIG instances, 2 whole L20s; soft cards without clients: 0
    QCOMPARE(model.partitionCount(), 22);

    bindJob(s, CardId(0), s.card(CardId(0)).units[0].uid, QStringLiteral("a"));
    model.setState(s); // a job bound: the counts stay
    QCOMPARE(summaryChanged.size(), 1);

    Sched::UnitChoice share;
    share.card = CardId(8);
    share.kind = Sched::UnitChoice::Kind::NewShare;
    share.milli = 250;
    share.memoryMiB = 8192;
    Domain::WorkloadSpec spec;
    spec.name = QStringLiteral("svc");
    const Domain::JobId job = s.addJob(spec, 0);
    s.attachHost(job, Domain::HostId(1));
    s.bind(job, share);
    model.setState(s);
    QCOMPARE(summaryChanged.size(), 2);
    QCOMPARE(model.partitionCount(), 23);
    QCOMPARE(model.index(8, CardTableModel::LayoutColumn).data().toString(),
             QStringLiteral("svc (25.0%)"));
}

void TestCardTableModel::sortByHostKeepsHostsTogether()
{
    CardTableModel model;
    CardSortModel sorted;
    sorted.setSourceModel(&model);
    QAbstractItemModelTester tester(&sorted, QAbstractItemModelTester::FailureReportingMode::Fatal);
    ClusterState s = demo();
    model.setState(s);

    sorted.sort(CardTableModel::HostColumn, Qt::DescendingOrder);
    QCOMPARE(sorted.index(0, 0).data().toString(), QStringLiteral("ada-edge"));
    QCOMPARE(sorted.index(4, 0).data().toString(), QStringLiteral("dgx-h200"));
    // Ties go by card id, so each host's cards stay in order.
    QCOMPARE(sorted.index(0, 0).data(CardTableModel::CardIndexRole).toInt(), 0);
    QCOMPARE(sorted.index(3, 0).data(CardTableModel::CardIndexRole).toInt(), 3);

    // Numbers sort as numbers; a live update re-sorts.
    sorted.sort(CardTableModel::AllocatedColumn, Qt::DescendingOrder);
    bindJob(s, CardId(7), s.card(CardId(7)).units[0].uid, QStringLiteral("small"));
    bindJob(s, CardId(10), s.card(CardId(10)).units[0].uid, QStringLiteral("whole"));
    model.setState(s);
    QCOMPARE(sorted.index(0, 0).data(CardTableModel::CardIdRole).toInt(), 10);
    QCOMPARE(sorted.index(1, 0).data(CardTableModel::CardIdRole).toInt(), 7);
}

void TestCardTableModel::retranslateAnnouncesHeaders()
{
    CardTableModel model;
    model.setState(demo());
    QSignalSpy headers(&model, &QAbstractItemModel::headerDataChanged);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.retranslate();
    QCOMPARE(headers.size(), 1);
    QCOMPARE(changedRows(changed), (QList<Range>{{0, 11}}));
    QCOMPARE(model.headerData(CardTableModel::HostColumn, Qt::Horizontal).toString(),
             QStringLiteral("Host"));
}

// The card table carries the cards' latest utilisation, temperature and power, announced per
// changed row, "n/a" where the driver cannot say (a MIG card's utilisation), sortable.
void TestCardTableModel::readingsShowAndSort()
{
    CardTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setState(demo());
    const int n = model.rowCount();
    QVERIFY(n >= 3);
    QList<Session::CardSample> samples(n);
    for (int i = 0; i < n; ++i) {
        samples[i].card = i;
        samples[i].utilisation = 0.1 * i;
        samples[i].temperatureC = 40 + i;
        samples[i].powerW = 100 + 10 * i;
    }
    samples[1].utilisation = std::numeric_limits<double>::quiet_NaN();
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setReadings(samples);
    QVERIFY(!changed.isEmpty());
    QCOMPARE(model.index(2, CardTableModel::UtilisationColumn).data().toString(),
             QStringLiteral("20 %"));
    QCOMPARE(model.index(1, CardTableModel::UtilisationColumn).data().toString(),
             QStringLiteral("n/a"));
    QCOMPARE(model.index(2, CardTableModel::TemperatureColumn).data().toString(),
             QStringLiteral("42 °C"));
    QCOMPARE(model.index(2, CardTableModel::PowerColumn).data().toString(),
             QStringLiteral("120 W"));
    QVERIFY(model.index(3, CardTableModel::PowerColumn).data(CardTableModel::SortRole).toDouble()
            > model.index(2, CardTableModel::PowerColumn)
                      .data(CardTableModel::SortRole)
                      .toDouble());
    // The same readings again: nothing announced.
    changed.clear();
    model.setReadings(samples);
    QVERIFY(changed.isEmpty());
    // One card's power changes: that row only, the reading columns only.
    samples[2].powerW = 300;
    model.setReadings(samples);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed.first()[0].value<QModelIndex>().row(), 2);
    QCOMPARE(changed.first()[0].value<QModelIndex>().column(),
             int(CardTableModel::UtilisationColumn));
    QCOMPARE(changed.first()[1].value<QModelIndex>().column(), int(CardTableModel::PowerColumn));
    QCOMPARE(model.headerData(CardTableModel::TemperatureColumn, Qt::Horizontal).toString(),
             QStringLiteral("Temperature"));
}

QTEST_GUILESS_MAIN(TestCardTableModel)
#include "tst_cardtablemodel.moc"
