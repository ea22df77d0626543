// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/trace/gorand.h"

#include <QSet>
#include <QTest>

using namespace Zhaoxi::Trace;

class tst_GoRand : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void knownInt63Values();
    void knownIntnValues();
    void seedNormalisation();
    void int31nIsInRangeAndUniform();
    void permIsAPermutation();
    void shuffleFollowsGo();
};

// Values Go's math/rand prints (rand.Seed(1); rand.Int63() ... is the package's historic default).
void tst_GoRand::knownInt63Values()
{
    GoRand r(1);
    QCOMPARE(r.int63(), Q_INT64_C(5577006791947779410));
    QCOMPARE(r.int63(), Q_INT64_C(8674665223082153551));
    QCOMPARE(r.int63(), Q_INT64_C(6129484611666145821));
    GoRand r42(42);
    QCOMPARE(r42.int63(), Q_INT64_C(3440579354231278675));
    QCOMPARE(r42.int63(), Q_INT64_C(608747136543856411));
}

void tst_GoRand::knownIntnValues()
{
    // "go by example": rand.New(rand.NewSource(42)).Intn(100) twice prints 5,87; seed 1 gives 81,87.
    GoRand r(42);
    QCOMPARE(r.intn(100), qint64(5));
    QCOMPARE(r.intn(100), qint64(87));
    GoRand one(1);
    QCOMPARE(one.intn(100), qint64(81));
    QCOMPARE(one.intn(100), qint64(87));
}

void tst_GoRand::seedNormalisation()
{
    // Go reduces the seed modulo 2^31-1, maps negatives up and 0 to 89482311.
    GoRand zero(0), magic(89482311), wrapped(Q_INT64_C(2147483647) + 5), five(5), neg(-3),
            negUp(Q_INT64_C(2147483647) - 3);
    QCOMPARE(zero.int63(), magic.int63());
    QCOMPARE(wrapped.int63(), five.int63());
    QCOMPARE(neg.int63(), negUp.int63());
    GoRand a(7), b(7);
    a.int63();
    a.reseed(7);
    QCOMPARE(a.int63(), b.int63());
}

void tst_GoRand::int31nIsInRangeAndUniform()
{
    GoRand r(3);
    int counts[7] = {};
    for (int i = 0; i < 70000; ++i) {
        const int v = r.int31n(7);
        QVERIFY(v >= 0 && v < 7);
        ++counts[v];
    }
    for (int c : counts)
        QVERIFY(qAbs(c - 10000) < 500);
    for (int i = 0; i < 1000; ++i) {
        const qint64 v = r.int63n(Q_INT64_C(5000000000));
        QVERIFY(v >= 0 && v < Q_INT64_C(5000000000));
    }
}

void tst_GoRand::permIsAPermutation()
{
    GoRand r(42);
    const QList<int> p = r.perm(1213);
    QCOMPARE(p.size(), 1213);
    QCOMPARE(QSet<int>(p.begin(), p.end()).size(), 1213);
    QCOMPARE(*std::min_element(p.begin(), p.end()), 0);
    QCOMPARE(*std::max_element(p.begin(), p.end()), 1212);
    // Go's Perm: for i = 0..n-1, j = Intn(i + 1), m[i] = m[j], m[j] = i.
    GoRand g(42);
    QList<int> m(1213, 0);
    for (int i = 0; i < 1213; ++i) {
        const int j = int(g.intn(i + 1));
        m[i] = m[j];
        m[j] = i;
    }
    QCOMPARE(p, m);
}

void tst_GoRand::shuffleFollowsGo()
{
    // Go's Shuffle draws j = (u * (i+1)) >> 32 with u the top 32 bits of Int63, rejecting when the
    // low half falls under (2^32 - (i+1)) mod (i+1).
    GoRand a(11), b(11);
    QList<int> v(500);
    for (int i = 0; i < 500; ++i)
        v[i] = i;
    QList<int> w = v;
    a.shuffle(v.size(), [&](qint64 i, qint64 j) { std::swap(v[i], v[j]); });
    for (int i = 499; i > 0; --i) {
        const quint32 n = quint32(i + 1);
        quint64 prod = quint64(b.uint32()) * n;
        const quint32 thresh = quint32(-qint32(n)) % n;
        while (quint32(prod) < thresh)
            prod = quint64(b.uint32()) * n;
        std::swap(w[i], w[int(prod >> 32)]);
    }
    QCOMPARE(v, w);
    int moved = 0;
    for (int i = 0; i < 500; ++i)
        moved += v[i] != i;
    QVERIFY(moved > 400);
}

QTEST_GUILESS_MAIN(tst_GoRand)
#include "tst_gorand.moc"
