// SPDX-License-Identifier: GPL-3.0-or-later
// The New workload dialog's one-line command: split as a shell splits words, with nothing
// expanded, and joined back so that it splits to the same arguments.
#include "widgets/cardmap/commandline.h"

#include <QTest>

using Zhaoxi::Widgets::joinCommandLine;
using Zhaoxi::Widgets::splitCommandLine;

class TestCommandLine : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void splitsLikeAShell_data();
    void splitsLikeAShell();
    void refusesWhatDoesNotEnd_data();
    void refusesWhatDoesNotEnd();
    void joinSplitsBack_data();
    void joinSplitsBack();
};

void TestCommandLine::splitsLikeAShell_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QStringList>("arguments");

    QTest::newRow("empty") << QString() << QStringList();
    QTest::newRow("blanks only") << QStringLiteral(" \t ") << QStringList();
    QTest::newRow("words") << QStringLiteral("  zhaoxi-demo-train   --steps\t20000 ")
                           << QStringList{"zhaoxi-demo-train", "--steps", "20000"};
    QTest::newRow("single quotes keep everything")
            << QStringLiteral("/bin/sh -c 'exec vllm --port \"$ZHAOXI_PORT\" \\n'")
            << QStringList{"/bin/sh", "-c", "exec vllm --port \"$ZHAOXI_PORT\" \\n"};
    QTest::newRow("double quotes unescape four")
            << QStringLiteral("echo \"a \\\"b\\\" \\\\ \\$HOME \\` \\x\"")
            << QStringList{"echo", "a \"b\" \\ $HOME ` \\x"};
    QTest::newRow("backslash outside quotes")
            << QStringLiteral("a\\ b c\\'d \\\\") << QStringList{"a b", "c'd", "\\"};
    QTest::newRow("quotes join their neighbours")
            << QStringLiteral("--name=\"a b\"'c'd") << QStringList{"--name=a bcd"};
    QTest::newRow("empty arguments")
            << QStringLiteral("prog '' \"\" x") << QStringList{"prog", "", "", "x"};
    QTest::newRow("nothing expanded")
            << QStringLiteral("ls ~ * $HOME ${X} | wc > f && y")
            << QStringList{"ls", "~", "*", "$HOME", "${X}", "|", "wc", ">", "f", "&&", "y"};
    QTest::newRow("unicode") << QStringLiteral("echo '朝夕' 训练")
                             << QStringList{"echo", "朝夕", "训练"};
}

void TestCommandLine::splitsLikeAShell()
{
    QFETCH(QString, line);
    QFETCH(QStringList, arguments);
    QString error;
    const std::optional<QStringList> split = splitCommandLine(line, &error);
    QVERIFY2(split, qPrintable(error));
    QCOMPARE(*split, arguments);
}

void TestCommandLine::refusesWhatDoesNotEnd_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("error");

    QTest::newRow("open single quote")
            << QStringLiteral("python -c 'print(1)")
            << QStringLiteral("The quote ' at character 11 is not closed.");
    QTest::newRow("open double quote")
            << QStringLiteral("echo \"a \\\"")
            << QStringLiteral("The quote \" at character 6 is not closed.");
    QTest::newRow("lone backslash") << QStringLiteral("echo a\\")
                                    << QStringLiteral("The command line ends with a lone "
                                                      "backslash; write \\\\ for a backslash.");
}

void TestCommandLine::refusesWhatDoesNotEnd()
{
    QFETCH(QString, line);
    QFETCH(QString, error);
    QString why;
    QVERIFY(!splitCommandLine(line, &why));
    QCOMPARE(why, error);
    QVERIFY(!splitCommandLine(line)); // without an error to fill
}

void TestCommandLine::joinSplitsBack_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("line");

    QTest::newRow("none") << QStringList() << QString();
    QTest::newRow("plain") << QStringList{"zhaoxi-demo-train", "--steps", "20000", "a=b,c:d/e@f%"}
                           << QStringLiteral("zhaoxi-demo-train --steps 20000 a=b,c:d/e@f%");
    QTest::newRow("spaces and quotes")
            << QStringList{"/bin/sh", "-c", "exec vllm --port \"$ZHAOXI_PORT\"", "it's"}
            << QStringLiteral("/bin/sh -c 'exec vllm --port \"$ZHAOXI_PORT\"' 'it'\\''s'");
    QTest::newRow("empty and special")
            << QStringList{"", "\\", "~", "*", "a\tb"} << QStringLiteral("'' '\\' '~' '*' 'a\tb'");
    QTest::newRow("line break") << QStringList{"printf", "a\nb"} << QStringLiteral("printf 'a\nb'");
}

void TestCommandLine::joinSplitsBack()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, line);
    QCOMPARE(joinCommandLine(arguments), line);
    const std::optional<QStringList> back = splitCommandLine(line);
    QVERIFY(back);
    QCOMPARE(*back, arguments);
}

QTEST_GUILESS_MAIN(TestCommandLine)
#include "tst_commandline.moc"
