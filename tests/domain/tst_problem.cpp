// SPDX-License-Identifier: GPL-3.0-or-later
// Domain::Problem: every code has its own stable name that reads back to it, and its English
// fills the parameters in once, in order.
#include "core/domain/problem.h"

#include <QSet>
#include <QTest>

using namespace Zhaoxi;
using Domain::Problem;

class TestProblem : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyCodeHasItsOwnName()
    {
        QSet<QString> seen;
        for (int i = 0; i < int(Problem::Code::Count); ++i) {
            const auto code = Problem::Code(i);
            const QString name = QString::fromLatin1(Domain::problemCodeName(code));
            QVERIFY2(!name.isEmpty() && name != QLatin1String("unknown"), qPrintable(name));
            QVERIFY2(!seen.contains(name), qPrintable(name));
            seen.insert(name);
            QCOMPARE(Domain::problemCodeFromName(name), code);
            // Every code but None says something.
            if (code != Problem::Code::None)
                QVERIFY2(!Problem(code, {QStringLiteral("x")}).english().isEmpty(),
                         qPrintable(name));
        }
        QCOMPARE(Domain::problemCodeFromName(u"no-such-code"), Problem::Code::Count);
    }

    void englishFillsTheParametersOnce()
    {
        QCOMPARE(Problem(Problem::Code::NoJobOrCard, {QStringLiteral("3"), QStringLiteral("5")})
                         .english(),
                 QStringLiteral("no job 3 or card 5"));
        // A parameter that holds "%2" is not substituted again.
        QCOMPARE(Problem(Problem::Code::InstanceBusy, {QStringLiteral("%2"), QStringLiteral("svc")})
                         .english(),
                 QStringLiteral("instance %2 serves job svc"));
        // A missing parameter leaves an empty place, never the marker.
        QCOMPARE(Problem(Problem::Code::NoCard).english(), QStringLiteral("no card "));
        QCOMPARE(Problem::text(QStringLiteral("disk full")).english(), QStringLiteral("disk full"));
        QVERIFY(Problem::text(QString()).isNone());
        QVERIFY(Problem().english().isEmpty());
    }

    void refuseSetsTheProblemAndSaysNo()
    {
        Problem why;
        QVERIFY(!Domain::refuse(&why, Problem(Problem::Code::LayoutPinned)));
        QCOMPARE(why.code, Problem::Code::LayoutPinned);
        QVERIFY(!Domain::refuse(nullptr, Problem(Problem::Code::LayoutPinned)));
    }
};

QTEST_APPLESS_MAIN(TestProblem)
#include "tst_problem.moc"
