// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxictl replay (issue 18): a day the twin recorded into a store (zhaoxictl simulate --db) is
// replayed from that store alone: under the policy it ran it reproduces the run's figures, and
// --compare puts what happened beside every policy. Bad input names what is wrong.
#include "core/storage/store.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

class TestCmdReplay : public QObject
{
    Q_OBJECT

private:
    struct Result
    {
        int code = -1;
        QByteArray out, err;
    };
    static Result run(const QStringList &args)
    {
        QProcess p;
        p.start(QStringLiteral(ZHAOXICTL_PATH), args);
        p.waitForFinished(300'000);
        return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
    }
    static QString scenarioFile(const QString &name)
    {
        return QStringLiteral(ZHAOXI_SOURCE_DIR "/resources/scenarios/") + name;
    }
    static QJsonObject json(const Result &r) { return QJsonDocument::fromJson(r.out).object(); }
    static QJsonObject row(const QJsonObject &compare, const QString &policy)
    {
        for (const QJsonValue &v : compare.value(QStringLiteral("policies")).toArray()) {
            if (v.toObject().value(QStringLiteral("policy")).toString() == policy)
                return v.toObject();
        }
        return {};
    }
    static double at(const QJsonObject &report, const QString &section, const QString &key)
    {
        return report.value(section).toObject().value(key).toDouble();
    }

    QTemporaryDir m_dir;
    QString m_db;
    QJsonObject m_original; // the recorded run's own report

    static constexpr char kFrom[] = "2026-01-05T00:00:00+08:00";
    static constexpr char kTo[] = "2026-01-06T00:00:00+08:00";

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath(QStringLiteral("day.sqlite"));
        const Result r = run({QStringLiteral("simulate"),
                              QStringLiteral("--scenario"),
                              scenarioFile(QStringLiteral("demo-day.json")),
                              QStringLiteral("--policy"),
                              QStringLiteral("forecast"),
                              QStringLiteral("--db"),
                              m_db,
                              QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        m_original = json(r);
        QVERIFY(m_original.contains(QStringLiteral("training")));
    }

    // The recorded day under the policy it ran: the arrivals are the recorded ones (minute by
    // minute, drawn again as a Poisson process), the jobs and faults the recorded ones, so the
    // figures agree within: requests 1 %, SLO attainment 0.3 points, training work 3 %.
    void theDayUnderItsPolicyReproducesItsFigures()
    {
        const Result r = run({QStringLiteral("replay"),
                              QStringLiteral("--db"),
                              m_db,
                              QStringLiteral("--from"),
                              QString::fromLatin1(kFrom),
                              QStringLiteral("--to"),
                              QString::fromLatin1(kTo),
                              QStringLiteral("--policy"),
                              QStringLiteral("forecast"),
                              QStringLiteral("--json")});
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject o = json(r);
        QCOMPARE(o.value(QStringLiteral("basis")).toObject().value(QStringLiteral("policy")),
                 QJsonValue(QStringLiteral("forecast")));
        const QJsonObject rec = o.value(QStringLiteral("recorded")).toObject();
        QCOMPARE(rec.value(QStringLiteral("services")).toInt(), 3);
        QVERIFY(rec.value(QStringLiteral("jobs")).toInt() >= 4);
        const QJsonObject replayed
                = o.value(QStringLiteral("policies")).toArray().first().toObject();
        const double reqA = at(m_original, QStringLiteral("inference"), QStringLiteral("requests"));
        const double reqB = at(replayed, QStringLiteral("inference"), QStringLiteral("requests"));
        QVERIFY2(std::abs(reqB / reqA - 1) < 0.01,
                 qPrintable(QStringLiteral("%1 vs %2").arg(reqB).arg(reqA)));
        const double sloA
                = at(m_original, QStringLiteral("inference"), QStringLiteral("slo_attainment"));
        const double sloB
                = at(replayed, QStringLiteral("inference"), QStringLiteral("slo_attainment"));
        QVERIFY2(std::abs(sloA - sloB) < 0.003,
                 qPrintable(QStringLiteral("%1 vs %2").arg(sloB).arg(sloA)));
        const double workA
                = at(m_original, QStringLiteral("training"), QStringLiteral("work_done"));
        const double workB = at(replayed, QStringLiteral("training"), QStringLiteral("work_done"));
        QVERIFY2(std::abs(workB / workA - 1) < 0.03,
                 qPrintable(QStringLiteral("%1 vs %2").arg(workB).arg(workA)));
        const double boundA
                = at(m_original, QStringLiteral("training"), QStringLiteral("work_bound"));
        const double boundB
                = at(replayed, QStringLiteral("training"), QStringLiteral("work_bound"));
        QVERIFY2(std::abs(boundB / boundA - 1) < 0.02,
                 qPrintable(QStringLiteral("%1 vs %2").arg(boundB).arg(boundA)));
    }

    // --compare: what happened first, read from the store, then each policy, in simulate
    // --compare's columns. The recorded row's counts are the run's own.
    void compareShowsWhatHappenedBesideEveryPolicy()
    {
        const Result r = run({QStringLiteral("replay"),
                              QStringLiteral("--db"),
                              m_db,
                              QStringLiteral("--from"),
                              QString::fromLatin1(kFrom),
                              QStringLiteral("--to"),
                              QString::fromLatin1(kTo),
                              QStringLiteral("--compare"),
                              QStringLiteral("--json")});
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject o = json(r);
        const QJsonArray rows = o.value(QStringLiteral("policies")).toArray();
        QCOMPARE(rows.size(), 5);
        QCOMPARE(rows.first().toObject().value(QStringLiteral("policy")).toString(),
                 QStringLiteral("recorded"));
        for (const QString &p : {QStringLiteral("static"),
                                 QStringLiteral("windows"),
                                 QStringLiteral("guard"),
                                 QStringLiteral("forecast")})
            QVERIFY2(!row(o, p).isEmpty(), qPrintable(p));
        const QJsonObject recorded = row(o, QStringLiteral("recorded"));
        const double reqA = at(m_original, QStringLiteral("inference"), QStringLiteral("requests"));
        const double reqR = at(recorded, QStringLiteral("inference"), QStringLiteral("requests"));
        QVERIFY2(std::abs(reqR / reqA - 1) < 0.001,
                 qPrintable(QStringLiteral("%1 vs %2").arg(reqR).arg(reqA)));
        const double sloA
                = at(m_original, QStringLiteral("inference"), QStringLiteral("slo_attainment"));
        const double sloR
                = at(recorded, QStringLiteral("inference"), QStringLiteral("slo_attainment"));
        QVERIFY2(std::abs(sloA - sloR) < 0.001,
                 qPrintable(QStringLiteral("%1 vs %2").arg(sloR).arg(sloA)));
        const double workA
                = at(m_original, QStringLiteral("training"), QStringLiteral("work_done"));
        const double workR = at(recorded, QStringLiteral("training"), QStringLiteral("work_done"));
        QVERIFY2(std::abs(workR / workA - 1) < 0.01,
                 qPrintable(QStringLiteral("%1 vs %2").arg(workR).arg(workA)));
        // Counts from the events. Faults are the run's own; a job evicted at the moment of a
        // fault is not a preemption in the store's count, while the twin counts those its fault
        // handling did not evict itself: they differ by at most one per fault.
        const int faults = m_original.value(QStringLiteral("faults")).toInt();
        QVERIFY(faults > 0);
        QCOMPARE(recorded.value(QStringLiteral("faults")).toInt(), faults);
        const int preemptions = m_original.value(QStringLiteral("preemptions")).toInt();
        QVERIFY(preemptions > 0);
        QVERIFY2(
                std::abs(recorded.value(QStringLiteral("preemptions")).toInt() - preemptions)
                        <= faults,
                qPrintable(QString::number(recorded.value(QStringLiteral("preemptions")).toInt())));

        // The table, as a person reads it.
        const Result text = run({QStringLiteral("replay"),
                                 QStringLiteral("--db"),
                                 m_db,
                                 QStringLiteral("--from"),
                                 QString::fromLatin1(kFrom),
                                 QStringLiteral("--to"),
                                 QString::fromLatin1(kTo),
                                 QStringLiteral("--compare")});
        QCOMPARE(text.code, 0);
        QVERIFY(text.out.contains("recorded "));
        QVERIFY(text.out.contains("policy"));
        QVERIFY(text.out.contains("forecast"));
    }

    // A part of the day: the jobs running at its start carry the work they had left.
    void aPartOfTheDay()
    {
        const Result r = run({QStringLiteral("replay"),
                              QStringLiteral("--db"),
                              m_db,
                              QStringLiteral("--from"),
                              QStringLiteral("2026-01-05T08:00:00+08:00"),
                              QStringLiteral("--to"),
                              QStringLiteral("2026-01-05T12:00:00+08:00"),
                              QStringLiteral("--compare"),
                              QStringLiteral("--json")});
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject o = json(r);
        const QJsonObject recorded = row(o, QStringLiteral("recorded"));
        const QJsonObject forecast = row(o, QStringLiteral("forecast"));
        QCOMPARE(recorded.value(QStringLiteral("duration_h")).toDouble(), 4.0);
        const double reqR = at(recorded, QStringLiteral("inference"), QStringLiteral("requests"));
        const double reqF = at(forecast, QStringLiteral("inference"), QStringLiteral("requests"));
        QVERIFY(reqR > 0);
        QVERIFY2(std::abs(reqF / reqR - 1) < 0.02,
                 qPrintable(QStringLiteral("%1 vs %2").arg(reqF).arg(reqR)));
        QVERIFY(at(forecast, QStringLiteral("training"), QStringLiteral("work_done")) > 0);
    }

    void badInputIsNamed_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QString from = QString::fromLatin1(kFrom), to = QString::fromLatin1(kTo);
        QTest::newRow("no db") << QStringList{"--from", from, "--to", to, "--compare"}
                               << "--db FILE is required";
        QTest::newRow("no period")
                << QStringList{"--db", "DB", "--compare"} << "--from T and --to T are required";
        QTest::newRow("neither") << QStringList{"--db", "DB", "--from", from, "--to", to}
                                 << "give --policy NAME or --compare";
        QTest::newRow("both") << QStringList{"--db",
                                             "DB",
                                             "--from",
                                             from,
                                             "--to",
                                             to,
                                             "--compare",
                                             "--policy",
                                             "static"}
                              << "give --policy NAME or --compare";
        QTest::newRow("bad time")
                << QStringList{"--db", "DB", "--from", "yesterday", "--to", to, "--compare"}
                << "--from: 'yesterday' is neither ISO-8601 nor epoch ms";
        QTest::newRow("backwards")
                << QStringList{"--db", "DB", "--from", to, "--to", from, "--compare"}
                << "the period is empty";
        QTest::newRow("policy")
                << QStringList{"--db", "DB", "--from", from, "--to", to, "--policy", "fifo"}
                << "unknown policy \"fifo\"";
        QTest::newRow("missing store")
                << QStringList{"--db", "NOFILE", "--from", from, "--to", to, "--compare"}
                << "no such file";
        QTest::newRow("before the recording")
                << QStringList{"--db",
                               "DB",
                               "--from",
                               "2025-01-01T00:00:00Z",
                               "--to",
                               "2025-01-02T00:00:00Z",
                               "--compare"}
                << "holds no recorded run that started before 2025-01-02T00:00:00Z";
        QTest::newRow("store without a run")
                << QStringList{"--db", "EMPTY", "--from", from, "--to", to, "--compare"}
                << "holds no recorded run";
    }
    void badInputIsNamed()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const QString empty = m_dir.filePath(QStringLiteral("empty.sqlite"));
        if (!QFile::exists(empty)) {
            QString err;
            QVERIFY2(Zhaoxi::Storage::Store::open(empty, &err), qPrintable(err));
        }
        for (QString &a : args) {
            if (a == QLatin1String("DB"))
                a = m_db;
            else if (a == QLatin1String("EMPTY"))
                a = empty;
            else if (a == QLatin1String("NOFILE"))
                a = m_dir.filePath(QStringLiteral("none.sqlite"));
        }
        const Result r = run(QStringList{QStringLiteral("replay")} + args);
        QCOMPARE(r.code, 2);
        QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
        QVERIFY(r.out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestCmdReplay)
#include "tst_cmd_replay.moc"
