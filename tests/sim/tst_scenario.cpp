// SPDX-License-Identifier: GPL-3.0-or-later
// Scenario files: the shipped ones load; every error names the file and the field, and nothing
// is half-loaded.
#include "core/catalogue/catalogue.h"
#include "core/sim/scenario.h"

#include <QJsonDocument>
#include <QtTest>

using namespace Zhaoxi;
using namespace Zhaoxi::Sim;

namespace {

const Catalogue::Catalogue &catalogue()
{
    static const Catalogue::Catalogue c = Catalogue::Catalogue::builtIn();
    return c;
}

QString scenarioDir()
{
    return qEnvironmentVariable("ZHAOXI_SOURCE_DIR") + QStringLiteral("/resources/scenarios");
}

// A small valid scenario; rows change one thing in it.
QJsonObject valid()
{
    const char *json = R"({
        "name": "t", "duration": "1h",
        "appliance": {"name": "a", "hosts": [{"name": "h", "cpu": 8, "memoryGiB": 64,
                       "cards": [{"model": "H200-141GB", "mode": "mig", "count": 2}]}]},
        "services": [{"spec": {"name": "s", "kind": "inference", "demand": {"compute": {"profile": "3g.71gb"}},
                               "priority": 500, "isolation": "hard",
                               "inference": {"service": "s", "sloP99Ms": 100}},
                      "serviceTimeMs": 10, "rate": {"constant": 5}}],
        "training": [{"spec": {"name": "t", "kind": "training", "demand": {"compute": {"wholeCard": true}},
                               "time": {"expectedDuration": "2h"}}}],
        "faults": [{"at": "30m", "host": "h", "card": 1, "kind": "card-lost"}],
        "policy": {"default": "guard", "windows": {"windows": [{"name": "d", "from": "08:00", "to": "20:00", "inferenceShare": 0.5}]}}
    })";
    return QJsonDocument::fromJson(json).object();
}

// `v` with `value` set at a dotted path with [i] indexes ("services[0].rate.peak"), or the key
// removed.
QJsonValue withPath(QJsonValue v, QStringList parts, const QJsonValue &value, bool remove)
{
    if (parts.isEmpty())
        return value;
    QString head = parts.takeFirst();
    int index = -1;
    const qsizetype br = head.indexOf(QLatin1Char('['));
    if (br >= 0) {
        index = head.mid(br + 1, head.size() - br - 2).toInt();
        head = head.left(br);
    }
    QJsonObject o = v.toObject();
    if (index >= 0) {
        QJsonArray a = o.value(head).toArray();
        a[index] = withPath(a[index], parts, value, remove);
        o[head] = a;
    } else if (parts.isEmpty() && remove) {
        o.remove(head);
    } else {
        o[head] = withPath(o.value(head), parts, value, remove);
    }
    return o;
}

} // namespace

class TestScenario : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void shippedScenariosLoad_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("demo day") << QStringLiteral("demo-day.json");
        QTest::newRow("small ramp") << QStringLiteral("small-ramp.json");
        QTest::newRow("small fault") << QStringLiteral("small-fault.json");
        QTest::newRow("fleet of 16") << QStringLiteral("fleet-16.json");
    }
    void shippedScenariosLoad()
    {
        QFETCH(QString, file);
        ScenarioError e;
        const auto s = loadScenarioFile(scenarioDir() + QLatin1Char('/') + file, catalogue(), &e);
        QVERIFY2(s, qPrintable(e.toString()));
        QVERIFY(s->durationMs > 0);
    }

    void demoDayIsTheDemoDay()
    {
        ScenarioError e;
        const auto s = loadScenarioFile(
                scenarioDir() + QStringLiteral("/demo-day.json"), catalogue(), &e);
        QVERIFY2(s, qPrintable(e.toString()));
        int h200 = 0, soft = 0;
        for (const Sched::CardState &c : s->appliance.state.cards()) {
            h200 += s->appliance.state.model(c).name == QLatin1String("H200-141GB");
            soft += c.mode == Domain::PartitionMode::Mps
                    || c.mode == Domain::PartitionMode::TimeSlicing;
        }
        QCOMPARE(h200, 8);
        QVERIFY(soft >= 2);
        QCOMPARE(s->durationMs, 24 * 3600'000LL);
        QVERIFY(!s->services.isEmpty());
        QVERIFY(!s->training.isEmpty());
        QVERIFY(!s->faults.isEmpty());
    }

    // The fleet twin's scenario (docs/fleet.md): 16 hosts, and its Slurm-like partitions as card
    // model affinities: the MIG services only on the H200 nodes, the soft-sliced ones only on the
    // L40S nodes, so that the H100 nodes are training's alone.
    void fleetIsSixteenHosts()
    {
        ScenarioError e;
        const auto s = loadScenarioFile(
                scenarioDir() + QStringLiteral("/fleet-16.json"), catalogue(), &e);
        QVERIFY2(s, qPrintable(e.toString()));
        QCOMPARE(s->appliance.state.hosts().size(), 16);
        QMap<QString, int> models;
        for (const Sched::CardState &c : s->appliance.state.cards())
            ++models[s->appliance.state.model(c).name];
        QCOMPARE(models.value(QStringLiteral("H200-141GB")), 80);
        QCOMPARE(models.value(QStringLiteral("H100-SXM5-80GB")), 16);
        QCOMPARE(models.value(QStringLiteral("L40S-48GB")), 32);
        for (const ServiceDef &d : s->services) {
            QVERIFY2(!d.spec.affinity.cardModels.isEmpty(), qPrintable(d.spec.name));
            QVERIFY2(!d.spec.affinity.cardModels.contains(QStringLiteral("H100-SXM5-80GB")),
                     qPrintable(d.spec.name));
        }
    }

    void validBaseLoads()
    {
        ScenarioError e;
        QVERIFY2(readScenario(QJsonDocument(valid()).toJson(),
                              QStringLiteral("t.json"),
                              scenarioDir(),
                              catalogue(),
                              &e),
                 qPrintable(e.toString()));
    }

    void errorsNameTheField_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QJsonValue>("value"); // Undefined: remove the key
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("message");
        const QJsonValue remove(QJsonValue::Undefined);
        QTest::newRow("name missing") << "name" << remove << "name"
                                      << "required";
        QTest::newRow("unknown top key") << "colour" << QJsonValue(1) << "colour"
                                         << "unknown key";
        QTest::newRow("duration malformed") << "duration" << QJsonValue("1 h") << "duration"
                                            << "not a duration";
        QTest::newRow("start without offset")
                << "start" << QJsonValue("2026-01-05T00:00:00") << "start"
                << "offset";
        QTest::newRow("unknown reference model")
                << "referenceModel" << QJsonValue("Z1") << "referenceModel"
                << "unknown";
        QTest::newRow("appliance card model")
                << "appliance.hosts[0].cards[0].model" << QJsonValue("nope")
                << "appliance.hosts[0].cards[0].model"
                << "";
        QTest::newRow("service spec field")
                << "services[0].spec.priority" << QJsonValue("high") << "services[0].spec.priority"
                << "expected an integer";
        QTest::newRow("service of the wrong kind")
                << "services[0].spec.kind" << QJsonValue("batch") << "services[0].spec"
                << "";
        QTest::newRow("service time missing")
                << "services[0].serviceTimeMs" << remove << "services[0].serviceTimeMs"
                << "required";
        QTest::newRow("rate with two forms")
                << "services[0].rate.formula" << QJsonValue("diurnal") << "services[0].rate"
                << "exactly one";
        QTest::newRow("rate negative")
                << "services[0].rate.constant" << QJsonValue(-1) << "services[0].rate.constant"
                << "must be";
        QTest::newRow("curve file missing")
                << "services[0].rate" << QJsonValue(QJsonObject{{"curve", "nope.csv"}, {"peak", 3}})
                << "services[0].rate.curve"
                << "nope.csv";
        QTest::newRow("training unknown key")
                << "training[0].wrk" << QJsonValue(3) << "training[0].wrk"
                << "unknown key";
        QTest::newRow("training without work")
                << "training[0].spec.time" << QJsonValue(QJsonObject{}) << "training[0].workHours"
                << "";
        QTest::newRow("fault on a missing card")
                << "faults[0].card" << QJsonValue(2) << "faults[0].card"
                << "2 card";
        QTest::newRow("fault on a missing host")
                << "faults[0].host" << QJsonValue("x") << "faults[0].host"
                << "no host";
        QTest::newRow("fault kind") << "faults[0].kind" << QJsonValue("fire") << "faults[0].kind"
                                    << "must be one of";
        QTest::newRow("unknown policy")
                << "policy.fastest" << QJsonValue(QJsonObject{}) << "policy.fastest"
                << "unknown policy";
        QTest::newRow("policy parameter")
                << "policy.guard" << QJsonValue(QJsonObject{{"hold", "soon"}})
                << "policy.guard.hold"
                << "not a duration";
        QTest::newRow("window time") << "policy.windows.windows[0].from" << QJsonValue("8am")
                                     << "policy.windows.windows[0].from"
                                     << "HH:MM";
        QTest::newRow("default policy")
                << "policy.default" << QJsonValue("best") << "policy.default"
                << "must be one of";
    }
    void errorsNameTheField()
    {
        QFETCH(QString, path);
        QFETCH(QJsonValue, value);
        QFETCH(QString, field);
        QFETCH(QString, message);
        const QJsonObject o
                = withPath(valid(), path.split(QLatin1Char('.')), value, value.isUndefined())
                          .toObject();
        ScenarioError e;
        const auto s = readScenario(QJsonDocument(o).toJson(),
                                    QStringLiteral("bad.json"),
                                    scenarioDir(),
                                    catalogue(),
                                    &e);
        QVERIFY(!s);
        QCOMPARE(e.file, QStringLiteral("bad.json"));
        QVERIFY2(e.field.startsWith(field), qPrintable(e.toString()));
        QVERIFY2(e.message.contains(message), qPrintable(e.toString()));
        QVERIFY(e.toString().startsWith(QStringLiteral("bad.json: ")));
    }

    // Issue 14: the text is read as written. Names holding a NUL, a control character or a
    // lone surrogate (which JSON can spell but no file should hold), and keys given twice (which
    // Qt's parser would collapse), are refused at their path, in every part of the scenario.
    void namesAndRepeatedKeys_data()
    {
        QTest::addColumn<QString>("path"); // set to a placeholder that `spelling` replaces
        QTest::addColumn<QByteArray>("spelling");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("message");
        QTest::addColumn<int>("line"); // 0: none given
        QTest::newRow("scenario name with NUL") << "name" << QByteArray(R"("t\u0000")") << "name"
                                                << "must not contain a NUL character" << 0;
        QTest::newRow("host name with a lone surrogate")
                << "appliance.hosts[0].name" << QByteArray(R"("h\ud800")")
                << "appliance.hosts[0].name"
                << "must be valid Unicode (it has a lone surrogate)" << 0;
        QTest::newRow("service name with a control character")
                << "services[0].spec.inference.service" << QByteArray(R"("s\u001b")")
                << "services[0].spec.inference.service"
                << "must not contain control characters (U+001B at character 2)" << 0;
        QTest::newRow("fault host with NUL")
                << "faults[0].host" << QByteArray(R"("\u0000h")") << "faults[0].host"
                << "must not contain a NUL character" << 0;
        QTest::newRow("window name with a lone surrogate")
                << "policy.windows.windows[0].name" << QByteArray(R"("\udc00")")
                << "policy.windows.windows[0].name"
                << "must be valid Unicode (it has a lone surrogate)" << 0;
        QTest::newRow("repeated key in a service")
                << "services[0].serviceTimeMs" << QByteArray(R"(10, "serviceTimeMs": 20)")
                << "services[0].serviceTimeMs"
                << "repeated key; each key may appear once" << 1;
        QTest::newRow("repeated key in the appliance")
                << "appliance.hosts[0].cpu" << QByteArray(R"(8, "cpu": 16)")
                << "appliance.hosts[0].cpu"
                << "repeated key; each key may appear once" << 1;
    }
    void namesAndRepeatedKeys()
    {
        QFETCH(QString, path);
        QFETCH(QByteArray, spelling);
        QFETCH(QString, field);
        QFETCH(QString, message);
        QFETCH(int, line);
        const QJsonObject o = withPath(valid(),
                                       path.split(QLatin1Char('.')),
                                       QJsonValue(QStringLiteral("@placeholder@")),
                                       false)
                                      .toObject();
        QByteArray json = QJsonDocument(o).toJson(QJsonDocument::Compact);
        QVERIFY(json.contains("\"@placeholder@\""));
        json.replace("\"@placeholder@\"", spelling);
        ScenarioError e;
        QVERIFY(!readScenario(json, QStringLiteral("bad.json"), scenarioDir(), catalogue(), &e));
        QCOMPARE(e.field, field);
        QCOMPARE(e.message, message);
        QCOMPARE(e.line, line);
        QVERIFY2(e.toString().startsWith(QStringLiteral("bad.json")), qPrintable(e.toString()));
    }

    void syntaxErrorsGiveLineAndColumn()
    {
        ScenarioError e;
        QVERIFY(!readScenario("{\n  \"name\": \"x\",\n  oops\n}",
                              QStringLiteral("s.json"),
                              QString(),
                              catalogue(),
                              &e));
        QCOMPARE(e.line, 3);
        QVERIFY(e.toString().startsWith(QStringLiteral("s.json:3:")));
    }
};

QTEST_GUILESS_MAIN(TestScenario)
#include "tst_scenario.moc"
