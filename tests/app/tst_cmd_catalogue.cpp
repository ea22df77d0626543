// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxictl catalogue | layouts | check-layout, run as a user or a script would run them.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

namespace {

struct Run
{
    int exitCode = -1;
    QString out;
    QString err;
};

Run zhaoxictl(const QStringList &args)
{
    QProcess p;
    p.start(QStringLiteral(ZHAOXICTL_PATH), args);
    Run r;
    // A guard against a hung child, not a performance expectation.
    if (!p.waitForFinished(120000)) {
        p.kill();
        p.waitForFinished();
        r.err = QStringLiteral("zhaoxictl did not finish");
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

QStringList sortedKeys(const QJsonObject &o)
{
    QStringList keys = o.keys();
    keys.sort();
    return keys;
}

} // namespace

class TestCmdCatalogue : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void scenarios_data();
    void scenarios();
    void catalogueJson();
    void layoutsJsonIsExactlyModelCountLayouts();
    void layoutsHumanFormOneLinePerLayout();
};

void TestCmdCatalogue::scenarios_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QStringList>("stdoutHas");
    QTest::addColumn<QStringList>("stderrHas");

    const QStringList none;
    const QString h100 = "H100-SXM5-80GB";

    // catalogue
    QTest::newRow("catalogue lists every model") << QStringList{"catalogue"} << 0
                                                 << QStringList{"A100-SXM4-40GB",
                                                                "A100-SXM4-80GB",
                                                                h100,
                                                                "H200-141GB",
                                                                "H200-NVL-141GB",
                                                                "L40S-48GB",
                                                                "L20-48GB",
                                                                "T4-16GB",
                                                                "1g.5gb+me",
                                                                "7g.141gb",
                                                                "time-slicing",
                                                                "mps"}
                                                 << none;
    // Issue 14: every command answers --help (on stdout, exit 0), whatever else is given.
    for (const char *name : {"catalogue",
                             "layouts",
                             "check-layout",
                             "simulate",
                             "run",
                             "events",
                             "metrics",
                             "migparted",
                             "apply-plan",
                             "nvml-check",
                             "place-bench"}) {
        const QString n = QString::fromLatin1(name);
        QTest::addRow("%s --help", name)
                << QStringList{n, "--help"} << 0 << QStringList{"usage: zhaoxictl " + n} << none;
        QTest::addRow("%s -h among bad options", name)
                << QStringList{n, "--no-such-option", "-h"} << 0
                << QStringList{"usage: zhaoxictl " + n} << none;
    }
    // Policy names, letters' case aside.
    const QString ramp = QStringLiteral(ZHAOXI_SOURCE_DIR "/resources/scenarios/small-ramp.json");
    QTest::newRow("simulate --policy WINDOWS")
            << QStringList{"simulate", "--scenario", ramp, "--policy", "WINDOWS", "--json"} << 0
            << QStringList{"\"policy\": \"windows\""} << none;
    QTest::newRow("simulate, unknown policy")
            << QStringList{"simulate", "--scenario", ramp, "--policy", "window"} << 2 << none
            << QStringList{"unknown policy \"window\""};
    QTest::newRow("place-bench --policy fgd") << QStringList{"place-bench",
                                                             "--nodes",
                                                             "/nonexistent/n.csv",
                                                             "--pods",
                                                             "/nonexistent/p.csv",
                                                             "--policy",
                                                             "fgd",
                                                             "--seed",
                                                             "1"}
                                              << 2 << none << QStringList{"/nonexistent/n.csv"};
    QTest::newRow("events, --from later than --to")
            << QStringList{"events",
                           "export",
                           "--db",
                           "/nonexistent/x.sqlite",
                           "--format",
                           "csv",
                           "--from",
                           "2026-02-01T00:00:00Z",
                           "--to",
                           "2026-01-01T00:00:00Z"}
            << 2 << none << QStringList{"is later than --to"};

    QTest::newRow("catalogue, unknown option")
            << QStringList{"catalogue", "--frobnicate"} << 2 << none << QStringList{"--frobnicate"};
    QTest::newRow("catalogue, stray argument") << QStringList{"catalogue", "H100"} << 2 << none
                                               << QStringList{"unexpected argument H100"};

    // layouts
    QTest::newRow("layouts by alias")
            << QStringList{"layouts", "--model", "h100", "--profiles", "3g.40gb"} << 0
            << QStringList{"3g.40gb@0 3g.40gb@4\n", "1 maximal layout on " + h100} << none;
    QTest::newRow("layouts, --model=NAME form")
            << QStringList{"layouts", "--model=A100-SXM4-40GB", "--profiles=7g.40gb"} << 0
            << QStringList{"7g.40gb@0\n"} << none;
    QTest::newRow("layouts, unknown model")
            << QStringList{"layouts", "--model", "V100"} << 2 << none
            << QStringList{"unknown model 'V100'", "known models:", h100, "T4-16GB"};
    QTest::newRow("layouts, no model")
            << QStringList{"layouts"} << 2 << none << QStringList{"--model NAME is required", h100};
    QTest::newRow("layouts, model without MIG")
            << QStringList{"layouts", "--model", "L40S"} << 2 << none
            << QStringList{"L40S-48GB has no MIG profiles", h100};
    QTest::newRow("layouts, unknown profile")
            << QStringList{"layouts", "--model", h100, "--profiles", "3g.40gb,5g.50gb"} << 2 << none
            << QStringList{"unknown profile '5g.50gb'", "known profiles:", "1g.10gb+me", "7g.80gb"};
    QTest::newRow("layouts, unknown option") << QStringList{"layouts", "--model", h100, "--fast"}
                                             << 2 << none << QStringList{"--fast"};
    QTest::newRow("layouts, option without value") << QStringList{"layouts", "--model"} << 2 << none
                                                   << QStringList{"--model needs a value"};

    // check-layout
    QTest::newRow("valid")
            << QStringList{"check-layout", "--model", h100, "3g.40gb@0", "2g.20gb@4", "1g.10gb@6"}
            << 0 << QStringList{"valid"} << none;
    QTest::newRow("valid, any order and case")
            << QStringList{"check-layout", "--model", "h100", "1G.10GB@6", "3g.40gb@0"} << 0
            << QStringList{"valid"} << none;
    QTest::newRow("overlap names both partitions")
            << QStringList{"check-layout", "--model", h100, "3g.40gb@0", "2g.20gb@2"} << 1
            << QStringList{"2g.20gb@2 overlaps 3g.40gb@0"} << none;
    QTest::newRow("start not allowed")
            << QStringList{"check-layout", "--model", "A100-SXM4-40GB", "3g.20gb@2"} << 1
            << QStringList{"3g.20gb@2", "only at slots 0, 4"} << none;
    QTest::newRow("second +me")
            << QStringList{"check-layout", "--model", "H200", "1g.18gb+me@0", "1g.18gb+me@1"} << 1
            << QStringList{"1g.18gb+me@1", "media extensions", "1g.18gb+me@0"} << none;
    QTest::newRow("malformed placement")
            << QStringList{"check-layout", "--model", h100, "3g.40gb"} << 2 << none
            << QStringList{"malformed placement '3g.40gb'"};
    QTest::newRow("start not a number")
            << QStringList{"check-layout", "--model", h100, "3g.40gb@four"} << 2 << none
            << QStringList{"malformed placement '3g.40gb@four'"};
    QTest::newRow("no placements") << QStringList{"check-layout", "--model", h100} << 2 << none
                                   << QStringList{"PROFILE@START"};
    QTest::newRow("check-layout, unknown profile")
            << QStringList{"check-layout", "--model", h100, "1g.5gb@0"} << 2 << none
            << QStringList{"unknown profile '1g.5gb'", "1g.10gb, 1g.10gb+me, 1g.20gb"};
    QTest::newRow("check-layout, unknown model")
            << QStringList{"check-layout", "--model", "B200", "1g@0"} << 2 << none
            << QStringList{"unknown model 'B200'", "A100-SXM4-40GB"};
    QTest::newRow("check-layout, unknown option")
            << QStringList{"check-layout", "--model", h100, "--verbose", "3g.40gb@0"} << 2 << none
            << QStringList{"unknown option --verbose"};
}

void TestCmdCatalogue::scenarios()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QStringList, stdoutHas);
    QFETCH(QStringList, stderrHas);

    const Run r = zhaoxictl(args);
    QVERIFY2(r.exitCode == exitCode,
             qPrintable(QStringLiteral("exit %1, expected %2\nstdout: %3\nstderr: %4")
                                .arg(r.exitCode)
                                .arg(exitCode)
                                .arg(r.out, r.err)));
    for (const QString &s : stdoutHas)
        QVERIFY2(r.out.contains(s), qPrintable("stdout lacks '" + s + "':\n" + r.out));
    for (const QString &s : stderrHas)
        QVERIFY2(r.err.contains(s), qPrintable("stderr lacks '" + s + "':\n" + r.err));
    if (exitCode == 2)
        QVERIFY2(r.out.isEmpty(), qPrintable(r.out)); // errors go to stderr only
    if (exitCode != 2)
        QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
}

void TestCmdCatalogue::catalogueJson()
{
    const Run r = zhaoxictl({"catalogue", "--json"});
    QCOMPARE(r.exitCode, 0);
    QJsonParseError e;
    const QJsonDocument doc = QJsonDocument::fromJson(r.out.toUtf8(), &e);
    QVERIFY2(e.error == QJsonParseError::NoError, qPrintable(e.errorString()));
    QCOMPARE(doc.object().keys(), QStringList{"models"});
    const QJsonArray models = doc.object().value("models").toArray();
    QCOMPARE(models.size(), 8);
    for (const QJsonValue &v : models) {
        const QJsonObject m = v.toObject();
        for (const char *key :
             {"name", "aliases", "pciDeviceIds", "memoryMiB", "modes", "migProfiles", "softModes"})
            QVERIFY2(m.contains(key), key);
        QVERIFY(m.value("modes").toArray().contains("whole"));
        if (m.value("name") == "H100-SXM5-80GB") {
            QCOMPARE(m.value("pciDeviceIds").toArray(), QJsonArray{"0x2330"});
            QCOMPARE(m.value("modes").toArray(),
                     (QJsonArray{"whole", "mig", "time-slicing", "mps"}));
            const QJsonObject threeG = m.value("migProfiles").toArray().at(4).toObject();
            QCOMPARE(threeG.value("name").toString(), QStringLiteral("3g.40gb"));
            QCOMPARE(threeG.value("profileId").toInt(), 9);
            QCOMPARE(threeG.value("starts").toArray(), (QJsonArray{0, 4}));
            QCOMPARE(threeG.value("span").toInt(), 4);
        }
        if (m.value("name") == "T4-16GB") {
            QVERIFY(m.value("migProfiles").toArray().isEmpty());
            QCOMPARE(m.value("softModes").toArray().size(), 2);
        }
    }
}

void TestCmdCatalogue::layoutsJsonIsExactlyModelCountLayouts()
{
    const Run r = zhaoxictl({"layouts",
                             "--model",
                             "A100-SXM4-40GB",
                             "--profiles",
                             "1g.5gb,2g.10gb,3g.20gb,4g.20gb,7g.40gb",
                             "--json"});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(sortedKeys(o), (QStringList{"count", "layouts", "model"}));
    QCOMPARE(o.value("model").toString(), QStringLiteral("A100-SXM4-40GB"));
    QCOMPARE(o.value("count").toInt(), 19);
    const QJsonArray layouts = o.value("layouts").toArray();
    QCOMPARE(layouts.size(), 19);
    for (const QJsonValue &layout : layouts) {
        QVERIFY(layout.isArray());
        QVERIFY(!layout.toArray().isEmpty());
        for (const QJsonValue &p : layout.toArray()) {
            QCOMPARE(sortedKeys(p.toObject()), (QStringList{"profile", "start"}));
            QVERIFY(p.toObject().value("profile").isString());
            QVERIFY(p.toObject().value("start").isDouble());
        }
    }
    QCOMPARE(layouts.last().toArray(),
             (QJsonArray{QJsonObject{{"profile", "7g.40gb"}, {"start", 0}}}));
}

void TestCmdCatalogue::layoutsHumanFormOneLinePerLayout()
{
    const Run r = zhaoxictl(
            {"layouts", "--model", "H100-SXM5-80GB", "--profiles", "3g.40gb,2g.20gb,1g.10gb"});
    QCOMPARE(r.exitCode, 0);
    QStringList lines = r.out.split('\n', Qt::SkipEmptyParts);
    QVERIFY(lines.size() > 2);
    const QString count = lines.takeLast();
    QCOMPARE(count, QStringLiteral("%1 maximal layouts on H100-SXM5-80GB").arg(lines.size()));
    QVERIFY(lines.contains("3g.40gb@0 2g.20gb@4 1g.10gb@6"));
    QVERIFY(lines.contains("3g.40gb@0 1g.10gb@4 1g.10gb@5 1g.10gb@6"));
    QVERIFY(lines.contains("3g.40gb@0 3g.40gb@4"));
}

QTEST_GUILESS_MAIN(TestCmdCatalogue)
#include "tst_cmd_catalogue.moc"
