// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/domain/ids.h"

#include <QSet>
#include <QTest>

#include <type_traits>

using namespace Zhaoxi::Domain;

class tst_Ids : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void defaultIsInvalid();
    void ordering();
    void hashing();
    void kindsDoNotMix();
};

void tst_Ids::defaultIsInvalid()
{
    QVERIFY(!CardId().isValid());
    QCOMPARE(CardId().value(), -1);
    QVERIFY(CardId(0).isValid());
    QCOMPARE(JobId(42).toString(), QStringLiteral("42"));
}

void tst_Ids::ordering()
{
    QVERIFY(HostId(1) < HostId(2));
    QVERIFY(HostId(2) == HostId(2));
    QVERIFY(HostId(3) != HostId(2));
    QVERIFY(HostId() < HostId(0));
}

void tst_Ids::hashing()
{
    const QSet<CardId> cards{CardId(1), CardId(2), CardId(1)};
    QCOMPARE(cards.size(), 2);
    QVERIFY(cards.contains(CardId(2)));
    QVERIFY(!cards.contains(CardId(3)));
}

void tst_Ids::kindsDoNotMix()
{
    static_assert(!std::is_convertible_v<CardId, JobId>);
    static_assert(!std::is_convertible_v<int, CardId>);
    static_assert(!std::is_same_v<HostId, ServiceId>);
    QVERIFY(true);
}

QTEST_GUILESS_MAIN(tst_Ids)
#include "tst_ids.moc"
