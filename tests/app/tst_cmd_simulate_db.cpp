// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxictl simulate --db: a simulated run lands in a store that the export and metrics commands
// read back, like a real appliance's.
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

class TestCmdSimulateDb : public QObject
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
        p.waitForFinished(120'000);
        return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
    }
    static QString scenario()
    {
        return QString::fromUtf8(qgetenv("ZHAOXI_SOURCE_DIR"))
               + QStringLiteral("/resources/scenarios/small-ramp.json");
    }

private Q_SLOTS:
    void recordsEventsMetricsAndState()
    {
        if (qEnvironmentVariableIsEmpty("ZHAOXI_SOURCE_DIR"))
            QSKIP("run through ctest (needs ZHAOXI_SOURCE_DIR)");
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("run.sqlite"));
        const Result sim = run({QStringLiteral("simulate"),
                                QStringLiteral("--scenario"),
                                scenario(),
                                QStringLiteral("--policy"),
                                QStringLiteral("forecast"),
                                QStringLiteral("--json"),
                                QStringLiteral("--db"),
                                db});
        QVERIFY2(sim.code == 0, sim.err.constData());
        QVERIFY(QJsonDocument::fromJson(sim.out).object().contains(QStringLiteral("policy")));

        const Result events = run({QStringLiteral("events"),
                                   QStringLiteral("export"),
                                   QStringLiteral("--db"),
                                   db,
                                   QStringLiteral("--format"),
                                   QStringLiteral("jsonl")});
        QVERIFY2(events.code == 0, events.err.constData());
        const QList<QByteArray> lines = events.out.trimmed().split('\n');
        QVERIFY(lines.size() > 10);
        QSet<QString> codes, sources;
        for (const QByteArray &l : lines) {
            const QJsonObject o = QJsonDocument::fromJson(l).object();
            codes.insert(o.value(QStringLiteral("code")).toString());
            sources.insert(o.value(QStringLiteral("source")).toString());
        }
        QVERIFY(codes.contains(QStringLiteral("job-placed")));
        QVERIFY(sources.contains(QStringLiteral("scheduler")));
        QVERIFY(sources.contains(QStringLiteral("policy")));

        const Result prom = run(
                {QStringLiteral("metrics"), QStringLiteral("--db"), db, QStringLiteral("--prom")});
        QVERIFY2(prom.code == 0, prom.err.constData());
        QVERIFY(prom.out.contains("DCGM_FI_DEV_GPU_TEMP{"));
        QVERIFY(prom.out.contains("DCGM_FI_DEV_POWER_USAGE{"));
    }

    void compareAndDbRefused()
    {
        if (qEnvironmentVariableIsEmpty("ZHAOXI_SOURCE_DIR"))
            QSKIP("run through ctest (needs ZHAOXI_SOURCE_DIR)");
        const Result r = run({QStringLiteral("simulate"),
                              QStringLiteral("--scenario"),
                              scenario(),
                              QStringLiteral("--compare"),
                              QStringLiteral("--db"),
                              QStringLiteral("x.sqlite")});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("--db records one run"));
    }
};

QTEST_GUILESS_MAIN(TestCmdSimulateDb)
#include "tst_cmd_simulate_db.moc"
