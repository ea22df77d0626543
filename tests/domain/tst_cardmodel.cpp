// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/domain/cardmodel.h"

#include <QTest>

using namespace Zhaoxi::Domain;

namespace {

CardModel migModel()
{
    CardModel m;
    m.name = QStringLiteral("H100-SXM5-80GB");
    m.aliases = {QStringLiteral("NVIDIA H100 80GB HBM3")};
    m.memoryMiB = 81559;
    MigProfile small;
    small.name = QStringLiteral("1g.10gb");
    MigProfile half;
    half.name = QStringLiteral("3g.40gb");
    m.migProfiles = {small, half};
    SoftSlicing mps;
    mps.mode = PartitionMode::Mps;
    mps.maxClients = 48;
    m.softModes = {mps};
    return m;
}

} // namespace

class tst_CardModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void partitionModeStrings_data();
    void partitionModeStrings();
    void isolationLevelStrings();
    void supports();
    void profileIndex();
    void matchesName();
};

void tst_CardModel::partitionModeStrings_data()
{
    QTest::addColumn<PartitionMode>("mode");
    QTest::addColumn<QString>("text");
    QTest::newRow("whole") << PartitionMode::Whole << "whole";
    QTest::newRow("mig") << PartitionMode::Mig << "mig";
    QTest::newRow("time-slicing") << PartitionMode::TimeSlicing << "time-slicing";
    QTest::newRow("mps") << PartitionMode::Mps << "mps";
}

void tst_CardModel::partitionModeStrings()
{
    QFETCH(PartitionMode, mode);
    QFETCH(QString, text);
    QCOMPARE(toString(mode), text);
    PartitionMode back = PartitionMode::Whole;
    QVERIFY(partitionModeFromString(text, &back));
    QCOMPARE(toString(back), toString(mode));
    QVERIFY(!partitionModeFromString(text.toUpper() + u'x', &back));
}

void tst_CardModel::isolationLevelStrings()
{
    for (IsolationLevel level :
         {IsolationLevel::None, IsolationLevel::Weak, IsolationLevel::Strong}) {
        IsolationLevel back = IsolationLevel::None;
        QVERIFY(isolationLevelFromString(toString(level), &back));
        QCOMPARE(toString(back), toString(level));
    }
    IsolationLevel untouched = IsolationLevel::Weak;
    QVERIFY(!isolationLevelFromString(QStringLiteral("total"), &untouched));
    QCOMPARE(toString(untouched), toString(IsolationLevel::Weak));
}

void tst_CardModel::supports()
{
    const CardModel m = migModel();
    QVERIFY(m.supportsMig());
    QVERIFY(m.supports(PartitionMode::Whole));
    QVERIFY(m.supports(PartitionMode::Mig));
    QVERIFY(m.supports(PartitionMode::Mps));
    QVERIFY(!m.supports(PartitionMode::TimeSlicing));
    QVERIFY(m.softMode(PartitionMode::Mps));
    QCOMPARE(m.softMode(PartitionMode::Mps)->maxClients, 48);
    QVERIFY(!m.softMode(PartitionMode::TimeSlicing));

    const CardModel plain;
    QVERIFY(!plain.supportsMig());
    QVERIFY(plain.supports(PartitionMode::Whole));
    QVERIFY(!plain.supports(PartitionMode::Mig));
}

void tst_CardModel::profileIndex()
{
    const CardModel m = migModel();
    QCOMPARE(m.profileIndex(QStringLiteral("1g.10gb")), 0);
    QCOMPARE(m.profileIndex(QStringLiteral("3g.40gb")), 1);
    QCOMPARE(m.profileIndex(QStringLiteral("7g.80gb")), -1);
}

void tst_CardModel::matchesName()
{
    const CardModel m = migModel();
    QVERIFY(m.matchesName(QStringLiteral("H100-SXM5-80GB")));
    QVERIFY(m.matchesName(QStringLiteral("h100-sxm5-80gb")));
    QVERIFY(m.matchesName(QStringLiteral("nvidia h100 80gb hbm3")));
    QVERIFY(!m.matchesName(QStringLiteral("H100")));
}

QTEST_GUILESS_MAIN(tst_CardModel)
#include "tst_cardmodel.moc"
