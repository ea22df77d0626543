// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxictl migparted | apply-plan | nvml-check, run as an administrator would, against the NVML
// test double (ZHAOXI_NVML_LIBRARY) or no library at all.
#include "core/catalogue/catalogue.h"
#include "tests/device/fakenvml/fixture.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

using namespace Zhaoxi;

namespace {

struct Run
{
    int exitCode = -1;
    QString out;
    QString err;
};

Run zhaoxictl(const QStringList &args,
              const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(ZHAOXICTL_PATH), args);
    Run r;
    if (!p.waitForFinished(120000)) { // a guard against a hung child only
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

const QByteArray kConfigs = R"(version: v1
mig-configs:
  all-disabled:
    - devices: all
      mig-enabled: false
  all-balanced:
    - device-filter: ["0x20B010DE"]
      devices: all
      mig-enabled: true
      mig-devices: {"1g.5gb": 2, "2g.10gb": 1, "3g.20gb": 1}
  h200-only:
    - device-filter: "0x233510DE"
      devices: all
      mig-enabled: true
      mig-devices: {"7g.141gb": 1}
  too-many:
    - devices: all
      mig-enabled: true
      mig-devices:
        "3g.20gb": 3
)";

} // namespace

class TestCmdNvml : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    QString write(const QString &name, const QByteArray &data)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (f.open(QIODevice::WriteOnly))
            f.write(data);
        return path;
    }

    // The test double with one A100-40GB in MIG mode holding 3g.20gb@0 and 1g.5gb@4.
    QProcessEnvironment fakeDriver()
    {
        const Catalogue::Catalogue cat = Catalogue::Catalogue::builtIn();
        const Domain::CardModel &m = *cat.find(QStringLiteral("A100-SXM4-40GB"));
        const QJsonArray profiles = Device::FakeNvml::profilesOf(m);
        const QJsonObject gpu{{"name", "NVIDIA A100-SXM4-40GB"},
                              {"uuid", "GPU-0001"},
                              {"busId", "00000000:07:00.0"},
                              {"pciDeviceId", "0x20B010DE"},
                              {"memoryTotalMiB", 40960},
                              {"memoryUsedMiB", 10},
                              {"temperature", 33},
                              {"powerMw", 51000},
                              {"mig", QJsonObject{{"current", true}, {"pending", true}}},
                              {"profiles", profiles},
                              {"instances",
                               QJsonArray{QJsonObject{{"profileId", 9}, {"start", 0}},
                                          QJsonObject{{"profileId", 19}, {"start", 4}}}}};
        const QString fixture
                = write(QStringLiteral("fixture.json"),
                        QJsonDocument(QJsonObject{{"gpus", QJsonArray{gpu}}}).toJson());
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("ZHAOXI_NVML_LIBRARY"), QStringLiteral(FAKENVML_PATH));
        env.insert(QStringLiteral("FAKENVML_FIXTURE"), fixture);
        return env;
    }

    QProcessEnvironment noDriver()
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("ZHAOXI_NVML_LIBRARY"),
                   QStringLiteral("/nonexistent/libnvidia-ml.so.1"));
        return env;
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void importJsonIsExactlyThisShape()
    {
        const QString file = write(QStringLiteral("configs.yaml"), kConfigs);
        const Run r
                = zhaoxictl({"migparted", "import", file, "--model", "A100-SXM4-40GB", "--json"});
        QCOMPARE(r.exitCode, 1); // too-many cannot be placed
        const QJsonObject root = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(root.keys(), (QStringList{"configs", "model"}));
        QCOMPARE(root.value("model").toString(), QStringLiteral("A100-SXM4-40GB"));
        const QJsonArray configs = root.value("configs").toArray();
        QCOMPARE(configs.size(), 4);
        const QJsonObject balanced = configs[1].toObject();
        QCOMPARE(balanced.keys(),
                 (QStringList{"applies", "layout", "migEnabled", "name", "ok", "reason"}));
        QCOMPARE(balanced.value("name").toString(), QStringLiteral("all-balanced"));
        QVERIFY(balanced.value("ok").toBool());
        const QJsonArray layout = balanced.value("layout").toArray();
        QCOMPARE(layout.size(), 4);
        QCOMPARE(layout[0].toObject(), (QJsonObject{{"profile", "2g.10gb"}, {"start", 0}}));
        QCOMPARE(layout[3].toObject(), (QJsonObject{{"profile", "3g.20gb"}, {"start", 4}}));
        const QJsonObject h200 = configs[2].toObject();
        QCOMPARE(h200.value("applies").toBool(true), false);
        QVERIFY(h200.value("reason").toString().contains(QLatin1String("device-filter")));
        const QJsonObject tooMany = configs[3].toObject();
        QVERIFY(!tooMany.value("ok").toBool());
        QVERIFY(tooMany.value("reason").toString().contains(
                QLatin1String("more than the 2 instance(s) of 3g.20gb")));

        const Run one = zhaoxictl(
                {"migparted", "import", file, "--model", "A100-40GB", "--config", "all-balanced"});
        QCOMPARE(one.exitCode, 0);
        QVERIFY2(one.out.contains(
                         QLatin1String("all-balanced: 2g.10gb@0 1g.5gb@2 1g.5gb@3 3g.20gb@4")),
                 qPrintable(one.out));
    }

    void importReportsYamlErrorsWithTheirLine()
    {
        const QString file = write(QStringLiteral("broken.yaml"),
                                   "version: v1\nmig-configs:\n  x:\n    - devices: [0, 1\n");
        const Run r = zhaoxictl({"migparted", "import", file, "--model", "A100-SXM4-40GB"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(file + QStringLiteral(":4: \"[\" is not closed on this line")),
                 qPrintable(r.err));
    }

    void exportTheDemoApplianceAndImportItBack()
    {
        const Run r
                = zhaoxictl({"migparted",
                             "export",
                             "--scenario",
                             QStringLiteral(ZHAOXI_SOURCE_DIR "/resources/appliances/demo.json")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QLatin1String("version: v1\nmig-configs:\n  dgx-h200:\n")),
                 qPrintable(r.out));
        QVERIFY(r.out.contains(QLatin1String("  ada-edge:\n")));
        const QString file = write(QStringLiteral("exported.yaml"), r.out.toUtf8());
        const Run back = zhaoxictl({"migparted",
                                    "import",
                                    file,
                                    "--model",
                                    "H200-141GB",
                                    "--config",
                                    "dgx-h200",
                                    "--json"});
        QCOMPARE(back.exitCode, 0);
        const QJsonArray configs
                = QJsonDocument::fromJson(back.out.toUtf8()).object().value("configs").toArray();
        QCOMPARE(configs.size(), 5); // whole cards, then the four MIG layouts of the demo
        QVERIFY(!configs[0].toObject().value("migEnabled").toBool());
        QCOMPARE(configs[4].toObject().value("layout").toArray().size(), 7);

        // A scenario that holds the appliance under "appliance" works as well.
        QFile demo(QStringLiteral(ZHAOXI_SOURCE_DIR "/resources/appliances/demo.json"));
        QVERIFY(demo.open(QIODevice::ReadOnly));
        const QJsonObject scenario{{"appliance", QJsonDocument::fromJson(demo.readAll()).object()}};
        const QString s = write(QStringLiteral("scenario.json"), QJsonDocument(scenario).toJson());
        const Run viaScenario = zhaoxictl({"migparted", "export", "--scenario", s});
        QCOMPARE(viaScenario.exitCode, 0);
        QCOMPARE(viaScenario.out, r.out);
    }

    void applyPlanRefusesWithoutYes()
    {
        const QString plan = write(QStringLiteral("plan.json"),
                                   R"({"zhaoxiPlan": 1, "cards": [{"uuid": "GPU-0001",
            "model": "A100-SXM4-40GB", "expect": ["3g.20gb@0", "1g.5gb@4"],
            "steps": [{"op": "destroy", "instance": "1g.5gb@4"}, {"op": "create", "instance": "2g.10gb@4"}]}]})");
        const Run r = zhaoxictl({"apply-plan", "--plan", plan}, fakeDriver());
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QLatin1String("not applied")), qPrintable(r.err));
        QVERIFY(r.out.contains(QLatin1String("create  2g.10gb@4")));
    }

    void applyPlanWithoutDriver()
    {
        const QString plan
                = write(QStringLiteral("plan2.json"), R"({"zhaoxiPlan": 1, "cards": [{"index": 0,
            "model": "A100-SXM4-40GB", "steps": [{"op": "create", "instance": "1g.5gb@6"}]}]})");
        const Run r = zhaoxictl({"apply-plan", "--plan", plan, "--yes"}, noDriver());
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QLatin1String("no NVIDIA driver found")), qPrintable(r.err));
    }

    void applyPlanThroughTheBackend()
    {
        const QString plan = write(QStringLiteral("plan3.json"),
                                   R"({"zhaoxiPlan": 1, "cards": [{"uuid": "GPU-0001",
            "model": "A100-SXM4-40GB", "expect": ["3g.20gb@0", "1g.5gb@4"],
            "steps": [{"op": "destroy", "instance": "1g.5gb@4"}, {"op": "create", "instance": "2g.10gb@4"},
                      {"op": "create", "instance": "1g.5gb@6"}]}]})");
        const Run r = zhaoxictl({"apply-plan", "--plan", plan, "--yes"}, fakeDriver());
        if (::geteuid() != 0) {
            // Without root (or the MIG capability) the backend stays read-only and says so.
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains(QLatin1String("may not change MIG")), qPrintable(r.err));
            return;
        }
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QLatin1String("now holds: 3g.20gb@0 2g.10gb@4 1g.5gb@6")),
                 qPrintable(r.out + r.err));

        const QString stale = write(QStringLiteral("plan4.json"),
                                    R"({"zhaoxiPlan": 1, "cards": [{"uuid": "GPU-0001",
            "model": "A100-SXM4-40GB", "expect": [], "steps": [{"op": "create", "instance": "7g.40gb@0"}]}]})");
        const Run s = zhaoxictl({"apply-plan", "--plan", stale, "--yes"}, fakeDriver());
        QCOMPARE(s.exitCode, 1);
        QVERIFY2(s.err.contains(QLatin1String("nothing was applied")), qPrintable(s.err));
    }

    void nvmlCheckIsReadOnly()
    {
        const Run r = zhaoxictl({"nvml-check"}, fakeDriver());
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QLatin1String(
                         "catalogue comparison: the driver's profiles match A100-SXM4-40GB")),
                 qPrintable(r.out));
        QVERIFY(r.out.contains(QLatin1String("layout: 3g.20gb@0 1g.5gb@4")));
        QVERIFY(r.out.contains(QLatin1String("utilisation: not available")));
        QVERIFY(r.out.contains(QLatin1String("power: 51 W")));
        QVERIFY(r.out.contains(QLatin1String("access: read-only")));
        const Run none = zhaoxictl({"nvml-check"}, noDriver());
        QCOMPARE(none.exitCode, 2);
        QVERIFY(none.err.contains(QLatin1String("no NVIDIA driver found")));
    }
};

QTEST_GUILESS_MAIN(TestCmdNvml)
#include "tst_cmd_nvml.moc"
