// SPDX-License-Identifier: GPL-3.0-or-later
// Nothing the store acknowledged is lost when the process is killed: a child writes events (and
// state, and metrics with roll-ups) and reports each committed id; we SIGKILL it at a random
// moment, reopen the file, check its integrity and that every reported id is there.
#include "core/storage/store.h"

#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace Zhaoxi::Storage;

class TestCrashSafety : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void killAtRandomMoments_data();
    void killAtRandomMoments();
    void totalKills();

private:
    int m_kills = 0;
};

void TestCrashSafety::killAtRandomMoments_data()
{
    QTest::addColumn<QString>("mode");
    QTest::addColumn<int>("kills");
    QTest::addColumn<int>("killsPerFile");
    // Events alone (telemetry commits, synchronous=NORMAL), events with durable state
    // documents and operator markers (synchronous=FULL), and metrics whose roll-ups and
    // retention run inside the killed transactions.
    QTest::newRow("events") << QStringLiteral("events") << 90 << 15;
    QTest::newRow("state and operator events") << QStringLiteral("state") << 60 << 15;
    QTest::newRow("metrics with roll-ups") << QStringLiteral("metrics") << 60 << 15;
}

void TestCrashSafety::killAtRandomMoments()
{
    QFETCH(QString, mode);
    QFETCH(int, kills);
    QFETCH(int, killsPerFile);
    const quint32 seed = qEnvironmentVariableIsSet("ZHAOXI_CRASH_SEED")
                                 ? quint32(qEnvironmentVariableIntValue("ZHAOXI_CRASH_SEED"))
                                 : 20240501u;
    QRandomGenerator rng(seed ^ qHash(mode));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString path;
    QSet<qint64> reported;
    int reportedState = 0;
    for (int k = 0; k < kills; ++k) {
        if (k % killsPerFile == 0) {
            // A fresh file now and then keeps the checks fast.
            path = dir.filePath(QStringLiteral("crash-%1.sqlite").arg(k));
            reported.clear();
            reportedState = 0;
        }
        QProcess child;
        child.start(QStringLiteral(CRASH_WRITER_PATH),
                    {path, mode, QString::number(rng.generate() & 0x7fffffff)});
        QVERIFY2(child.waitForStarted(10000), qPrintable(child.errorString()));
        // Kill after it is writing: at first output, then a random 0..40 ms later, which lands
        // anywhere in a transaction, a commit, a checkpoint or a roll-up.
        QByteArray out;
        while (!out.contains("ready") && child.state() == QProcess::Running) {
            child.waitForReadyRead(5000);
            out += child.readAllStandardOutput();
        }
        QTest::qSleep(int(rng.bounded(41)));
        child.kill(); // SIGKILL
        QVERIFY(child.waitForFinished(10000));
        out += child.readAllStandardOutput();
        QVERIFY2(child.exitStatus() == QProcess::CrashExit,
                 qPrintable(QStringLiteral("the writer exited by itself: ")
                            + QString::fromUtf8(out)));
        ++m_kills;

        qint64 maxId = 0;
        for (const QByteArray &line : out.split('\n')) {
            if (line.startsWith("moved") || line.startsWith("error"))
                QFAIL(qPrintable(QStringLiteral("kill %1: the reopened file was refused: %2")
                                         .arg(k)
                                         .arg(QString::fromUtf8(line))));
            if (line.startsWith("state ")) {
                reportedState = std::max(reportedState, line.mid(6).toInt());
            } else if (!line.isEmpty() && line != "ready") {
                bool ok = false;
                const qint64 id = line.toLongLong(&ok);
                if (ok) {
                    reported.insert(id);
                    maxId = std::max(maxId, id);
                }
            }
        }

        QString err;
        auto reader = Reader::open(path, Reader::OpenMode::RequireCurrent, &err);
        QVERIFY2(reader, qPrintable(err));
        QCOMPARE(reader->integrityCheck(), QStringLiteral("ok"));
        QSet<qint64> present;
        QVERIFY(reader->forEachEvent(
                {},
                [&](const Event &e) {
                    present.insert(e.id);
                    return true;
                },
                &err));
        for (qint64 id : std::as_const(reported)) {
            if (!present.contains(id))
                QFAIL(qPrintable(QStringLiteral("kill %1 (%2): acknowledged event %3 is missing")
                                         .arg(k)
                                         .arg(mode)
                                         .arg(id)));
        }
        if (reportedState > 0) {
            const auto doc = reader->state(QStringLiteral("crash-test"));
            QVERIFY(doc);
            const int stored = QJsonDocument::fromJson(*doc)
                                       .object()
                                       .value(QStringLiteral("version"))
                                       .toInt();
            QVERIFY2(stored >= reportedState,
                     qPrintable(QStringLiteral("state %1 acknowledged, %2 stored")
                                        .arg(reportedState)
                                        .arg(stored)));
            // Documents written together are committed together.
            const auto pair = reader->state(QStringLiteral("crash-test-pair"));
            QVERIFY(pair);
            QCOMPARE(QJsonDocument::fromJson(*pair)
                             .object()
                             .value(QStringLiteral("version"))
                             .toInt(),
                     stored);
        }
        if (mode == QLatin1String("metrics")) {
            // Roll-ups never double count: a minute bucket holds at most 60 one-second samples.
            for (int card = 0; card < 4; ++card) {
                const auto minutes = reader->series({Metric::GpuUtil, card, -1, {}, -1},
                                                    Tier::Minute,
                                                    0,
                                                    std::numeric_limits<qint64>::max());
                for (const MetricPoint &p : minutes)
                    QVERIFY(p.count >= 1 && p.count <= 60);
            }
        }
    }
    const QStringList aside = QDir(dir.path()).entryList({QStringLiteral("*.corrupt-*")});
    QVERIFY2(aside.isEmpty(), qPrintable(aside.join(QLatin1Char(' '))));
}

void TestCrashSafety::totalKills()
{
    qInfo("%d SIGKILLs in this run", m_kills);
    QVERIFY(m_kills >= 200);
}

QTEST_GUILESS_MAIN(TestCrashSafety)
#include "tst_crashsafety.moc"
