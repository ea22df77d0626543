// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/domain/demand.h"

#include <QTest>

using namespace Zhaoxi::Domain;

namespace {

// A model with `slices` compute slices and one profile of `profileSlices` of them ("Ng.10gb");
// no MIG when `profileSlices` is 0.
CardModel model(int slices, int profileSlices)
{
    CardModel m;
    m.name = QStringLiteral("test-%1").arg(slices);
    m.migComputeSlices = slices;
    if (profileSlices > 0) {
        MigProfile p;
        p.name = QStringLiteral("%1g.10gb").arg(profileSlices);
        p.computeSlices = profileSlices;
        m.migProfiles = {p};
    }
    return m;
}

ComputeDemand demand(ComputeDemand::Kind kind,
                     int slices = 0,
                     int milli = 1000,
                     QString profile = {})
{
    ComputeDemand d;
    d.kind = kind;
    d.slices = slices;
    d.milli = milli;
    d.profile = profile;
    return d;
}

} // namespace

Q_DECLARE_METATYPE(ComputeDemand)

class tst_Demand : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void milliOnModel_data();
    void milliOnModel();
};

void tst_Demand::milliOnModel_data()
{
    using K = ComputeDemand::Kind;
    QTest::addColumn<int>("modelSlices");
    QTest::addColumn<int>("profileSlices");
    QTest::addColumn<ComputeDemand>("demand");
    QTest::addColumn<int>("milli");
    QTest::addColumn<double>("share");

    QTest::newRow("whole card") << 7 << 1 << demand(K::WholeCard) << 1000 << 1.0;
    QTest::newRow("fraction") << 7 << 0 << demand(K::Fraction, 0, 250) << 250 << 0.25;
    QTest::newRow("3 of 7 slices, rounded up")
            << 7 << 1 << demand(K::MigSlices, 3) << 429 << 3.0 / 7;
    // A30-like: 4 compute slices; 2 of them are half the card, not 2/7 of it.
    QTest::newRow("2 of 4 slices") << 4 << 1 << demand(K::MigSlices, 2) << 500 << 0.5;
    QTest::newRow("4 of 4 slices") << 4 << 1 << demand(K::MigSlices, 4) << 1000 << 1.0;
    QTest::newRow("more slices than the model has")
            << 4 << 1 << demand(K::MigSlices, 7) << 1000 << 1.0;
    QTest::newRow("slices on a card without MIG count its nominal 7")
            << 7 << 0 << demand(K::MigSlices, 1) << 143 << 1.0 / 7;
    QTest::newRow("profile of 2 on a 4-slice model")
            << 4 << 2 << demand(K::MigProfile, 0, 1000, QStringLiteral("2g.10gb")) << 500 << 0.5;
    QTest::newRow("profile of 3 on a 7-slice model")
            << 7 << 3 << demand(K::MigProfile, 0, 1000, QStringLiteral("3g.10gb")) << 428
            << 3.0 / 7;
    QTest::newRow("profile the model lacks")
            << 7 << 1 << demand(K::MigProfile, 0, 1000, QStringLiteral("7g.80gb")) << 0 << 0.0;
}

void tst_Demand::milliOnModel()
{
    QFETCH(int, modelSlices);
    QFETCH(int, profileSlices);
    QFETCH(ComputeDemand, demand);
    QFETCH(int, milli);
    QFETCH(double, share);
    const CardModel m = model(modelSlices, profileSlices);
    QCOMPARE(demandMilliOn(m, demand), milli);
    QVERIFY(qAbs(demandShareOn(m, demand) - share) < 1e-9);
}

QTEST_APPLESS_MAIN(tst_Demand)
#include "tst_demand.moc"
