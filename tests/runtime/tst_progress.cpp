// SPDX-License-Identifier: GPL-3.0-or-later
// Progress lines as a training job writes them, and the follower that reads a growing file.
#include "core/runtime/progress.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstdio>

using namespace Zhaoxi::Runtime;

class TestProgress : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    QString path(const char *name) const { return m_dir.filePath(QLatin1String(name)); }

    static void append(const QString &file, const QByteArray &data)
    {
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Append));
        QCOMPARE(f.write(data), data.size());
    }

private Q_SLOTS:
    void parse_data()
    {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<qint64>("step");
        QTest::addColumn<double>("samplesPerS"); // NaN: absent
        QTest::addColumn<double>("loss");
        QTest::addColumn<bool>("checkpoint");
        QTest::addColumn<QString>("error"); // a part of the message

        const double nan = std::nan("");
        QTest::newRow("all fields")
                << QByteArray(R"({"step":12,"samples_per_s":812.5,"loss":0.73})") << true
                << qint64(12) << 812.5 << 0.73 << false << QString();
        QTest::newRow("checkpoint line")
                << QByteArray(R"({"step": 50, "loss": 1.2, "checkpoint": true})") << true
                << qint64(50) << nan << 1.2 << true << QString();
        QTest::newRow("empty object")
                << QByteArray("{}") << true << qint64(-1) << nan << nan << false << QString();
        QTest::newRow("unknown keys ignored")
                << QByteArray(R"({"step":3,"lr":0.001,"epoch":"one","extra":{"a":[1]}})") << true
                << qint64(3) << nan << nan << false << QString();
        QTest::newRow("surrounding whitespace") << QByteArray("  {\"step\":0}\r") << true
                                                << qint64(0) << nan << nan << false << QString();
        QTest::newRow("step in exponent form") << QByteArray(R"({"step":1e3})") << true
                                               << qint64(1000) << nan << nan << false << QString();
        QTest::newRow("checkpoint false") << QByteArray(R"({"checkpoint":false})") << true
                                          << qint64(-1) << nan << nan << false << QString();

        QTest::newRow("step with a fraction")
                << QByteArray(R"({"step":3.5})") << false << qint64(-1) << nan << nan << false
                << QStringLiteral("field \"step\" must be a non-negative integer, not 3.5");
        QTest::newRow("negative step")
                << QByteArray(R"({"step":-1})") << false << qint64(-1) << nan << nan << false
                << QStringLiteral("field \"step\" must be a non-negative");
        QTest::newRow("step as a string")
                << QByteArray(R"({"step":"12"})") << false << qint64(-1) << nan << nan << false
                << QStringLiteral("field \"step\" must be a non-negative integer, got string");
        QTest::newRow("loss as a string")
                << QByteArray(R"({"step":1,"loss":"0.5"})") << false << qint64(-1) << nan << nan
                << false << QStringLiteral("field \"loss\" must be a number, got string");
        QTest::newRow("loss null")
                << QByteArray(R"({"loss":null})") << false << qint64(-1) << nan << nan << false
                << QStringLiteral("field \"loss\" must be a number, got null");
        QTest::newRow("samples_per_s as a boolean")
                << QByteArray(R"({"samples_per_s":true})") << false << qint64(-1) << nan << nan
                << false << QStringLiteral("field \"samples_per_s\" must be a number, got boolean");
        QTest::newRow("checkpoint as a number")
                << QByteArray(R"({"checkpoint":1})") << false << qint64(-1) << nan << nan << false
                << QStringLiteral("field \"checkpoint\" must be a boolean, got number");
        QTest::newRow("an array") << QByteArray("[1,2]") << false << qint64(-1) << nan << nan
                                  << false << QStringLiteral("not a JSON object");
        QTest::newRow("a number") << QByteArray("42") << false << qint64(-1) << nan << nan << false
                                  << QStringLiteral("not valid JSON");
        QTest::newRow("broken JSON") << QByteArray(R"({"step":1)") << false << qint64(-1) << nan
                                     << nan << false << QStringLiteral("not valid JSON");
        QTest::newRow("NaN is not JSON") << QByteArray(R"({"loss":NaN})") << false << qint64(-1)
                                         << nan << nan << false << QStringLiteral("not valid JSON");
    }

    void parse()
    {
        QFETCH(QByteArray, line);
        QFETCH(bool, ok);
        QFETCH(qint64, step);
        QFETCH(double, samplesPerS);
        QFETCH(double, loss);
        QFETCH(bool, checkpoint);
        QFETCH(QString, error);

        QString message;
        const auto parsed = parseProgressLine(line, &message);
        QCOMPARE(parsed.has_value(), ok);
        if (!ok) {
            QVERIFY2(message.contains(error), qPrintable(message));
            return;
        }
        QVERIFY(message.isEmpty());
        QCOMPARE(parsed->step, step);
        QCOMPARE(std::isnan(parsed->samplesPerS), std::isnan(samplesPerS));
        if (!std::isnan(samplesPerS))
            QCOMPARE(parsed->samplesPerS, samplesPerS);
        QCOMPARE(std::isnan(parsed->loss), std::isnan(loss));
        if (!std::isnan(loss))
            QCOMPARE(parsed->loss, loss);
        QCOMPARE(parsed->checkpoint, checkpoint);
        QCOMPARE(parsed->readMs, qint64(0));
    }

    void missingFileYieldsNothing()
    {
        ProgressFollower f(path("never-written"));
        const auto r = f.poll(1000);
        QVERIFY(r.lines.isEmpty());
        QVERIFY(r.errors.isEmpty());
        QCOMPARE(f.offset(), qint64(0));
    }

    void followsAppendedWholeLines()
    {
        const QString file = path("follow.jsonl");
        ProgressFollower f(file);
        append(file, "{\"step\":1,\"loss\":2.0}\n{\"step\":2");
        auto r = f.poll(1000);
        QCOMPARE(r.lines.size(), 1);
        QCOMPARE(r.lines[0].step, qint64(1));
        QCOMPARE(r.lines[0].readMs, qint64(1000));
        QCOMPARE(f.offset(), qint64(QByteArray("{\"step\":1,\"loss\":2.0}\n").size()));

        // the partial line waits for its newline, however many polls it takes
        r = f.poll(1100);
        QVERIFY(r.lines.isEmpty());
        append(file, ",\"loss\":1.9");
        r = f.poll(1200);
        QVERIFY(r.lines.isEmpty());
        append(file, "}\n\n{\"step\":3,\"checkpoint\":true}\n");
        r = f.poll(1300);
        QCOMPARE(r.lines.size(), 2);
        QCOMPARE(r.lines[0].step, qint64(2));
        QCOMPARE(r.lines[0].loss, 1.9);
        QCOMPARE(r.lines[0].readMs, qint64(1300));
        QCOMPARE(r.lines[1].step, qint64(3));
        QVERIFY(r.lines[1].checkpoint);
        QVERIFY(r.errors.isEmpty());
        QCOMPARE(f.linesRead(), qint64(4)); // the blank line counts

        // nothing new: nothing read again
        r = f.poll(1400);
        QVERIFY(r.lines.isEmpty());
        QVERIFY(r.errors.isEmpty());
    }

    void badLinesNameTheirNumber()
    {
        const QString file = path("bad.jsonl");
        ProgressFollower f(file);
        append(file, "{\"step\":1}\nnot json\n{\"step\":\"x\"}\n{\"step\":4}\n");
        const auto r = f.poll(5);
        QCOMPARE(r.lines.size(), 2);
        QCOMPARE(r.lines[0].step, qint64(1));
        QCOMPARE(r.lines[1].step, qint64(4));
        QCOMPARE(r.errors.size(), 2);
        QVERIFY2(r.errors[0].startsWith(QLatin1String("progress line 2: not valid JSON")),
                 qPrintable(r.errors[0]));
        QVERIFY2(r.errors[1].startsWith(QLatin1String("progress line 3: field \"step\"")),
                 qPrintable(r.errors[1]));
    }

    void truncatedFileStartsAgain()
    {
        const QString file = path("trunc.jsonl");
        ProgressFollower f(file);
        append(file, "{\"step\":1}\n{\"step\":2}\n{\"step\":3}\n");
        QCOMPARE(f.poll(1).lines.size(), 3);
        {
            QFile t(file);
            QVERIFY(t.open(QIODevice::WriteOnly | QIODevice::Truncate));
            t.write("{\"step\":10}\n");
        }
        const auto r = f.poll(2);
        QCOMPARE(r.lines.size(), 1);
        QCOMPARE(r.lines[0].step, qint64(10));
        QCOMPARE(f.linesRead(), qint64(1));
    }

    void replacedFileStartsAgain()
    {
        // A new file renamed over the old one, even a longer one: another inode, read from 0.
        const QString file = path("replace.jsonl");
        ProgressFollower f(file);
        append(file, "{\"step\":1}\n");
        QCOMPARE(f.poll(1).lines.size(), 1);
        const QString other = path("replace.new");
        append(other, "{\"step\":100}\n{\"step\":101}\n{\"step\":102}\n");
        QVERIFY(::rename(QFile::encodeName(other).constData(), QFile::encodeName(file).constData())
                == 0);
        const auto r = f.poll(2);
        QCOMPARE(r.lines.size(), 3);
        QCOMPARE(r.lines[0].step, qint64(100));
        QCOMPARE(r.lines[2].step, qint64(102));
    }

    void overlongLineIsSkipped()
    {
        const QString file = path("long.jsonl");
        ProgressFollower f(file);
        append(file, QByteArray(ProgressFollower::maxLineBytes + 10, 'x'));
        auto r = f.poll(1);
        QVERIFY(r.lines.isEmpty());
        QCOMPARE(r.errors.size(), 1);
        QVERIFY2(r.errors[0].startsWith(QLatin1String("progress line 1: longer than")),
                 qPrintable(r.errors[0]));
        append(file, "yyyy\n{\"step\":7}\n");
        r = f.poll(2);
        QVERIFY(r.errors.isEmpty());
        QCOMPARE(r.lines.size(), 1);
        QCOMPARE(r.lines[0].step, qint64(7));
    }
};

QTEST_GUILESS_MAIN(TestProgress)
#include "tst_progress.moc"
