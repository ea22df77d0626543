// SPDX-License-Identifier: GPL-3.0-or-later
// Appliance files: the shipped demo, how a bad file is refused (file, JSON path, why), and the
// writer's round trip.
#include "fixture.h"

#include "core/catalogue/layoutrules.h"
#include "core/sched/appliancefile.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace Zhaoxi::Sched;
using Zhaoxi::Domain::PartitionMode;

namespace {

QString demoPath()
{
    return QStringLiteral(ZHAOXI_SOURCE_DIR "/resources/appliances/demo.json");
}

std::optional<Appliance> read(const QByteArray &json, ApplianceError *error = nullptr)
{
    return readAppliance(json, Test::catalogue(), QStringLiteral("test.json"), error);
}

QStringList layoutOf(const ClusterState &s, int card)
{
    QStringList r;
    const CardState &c = s.cards()[card];
    for (const Zhaoxi::Domain::MigPlacement &p : c.migLayout())
        r << Zhaoxi::Catalogue::formatPlacement(s.model(c), p);
    return r;
}

} // namespace

class TestApplianceFile : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void demoAppliance();
    void minimalFile();
    void errors_data();
    void errors();
    void syntaxErrorHasLineAndColumn();
    void missingFile();
    void roundTrip_data();
    void roundTrip();
    void writerFoldsIdenticalCards();
};

void TestApplianceFile::demoAppliance()
{
    ApplianceError error;
    const std::optional<Appliance> a = loadApplianceFile(demoPath(), Test::catalogue(), &error);
    QVERIFY2(a, qPrintable(error.toString()));
    const ClusterState &s = a->state;
    QCOMPARE(s.checkInvariants(), QString());
    QCOMPARE(s.hosts().size(), 2);
    QCOMPARE(s.hosts()[0].name, QStringLiteral("dgx-h200"));
    QCOMPARE(s.hosts()[0].cardCount, 8);
    QCOMPARE(s.hosts()[0].cpuMilli, 224000);
    QCOMPARE(s.hosts()[0].memoryMiB, 2048 * 1024);
    int mig = 0;
    int whole = 0;
    for (int i = 0; i < 8; ++i) {
        const CardState &c = s.cards()[i];
        QCOMPARE(s.model(c).name, QStringLiteral("H200-141GB"));
        QCOMPARE(c.linkDomain, 0); // one NVLink domain of eight
        mig += c.mode == PartitionMode::Mig;
        whole += c.mode == PartitionMode::Whole;
    }
    QCOMPARE(whole, 4);
    QCOMPARE(mig, 4);
    QCOMPARE(layoutOf(s, 5), (QStringList{"3g.71gb@0", "2g.35gb@4", "1g.18gb@6"}));

    const HostState &ada = s.hosts()[1];
    QCOMPARE(ada.cardCount, 4);
    QList<PartitionMode> modes;
    QStringList models;
    for (int i = ada.firstCard; i < ada.firstCard + ada.cardCount; ++i) {
        modes << s.cards()[i].mode;
        models << s.model(s.cards()[i]).name;
    }
    QCOMPARE(models, (QStringList{"L40S-48GB", "L40S-48GB", "L20-48GB", "L20-48GB"}));
    QVERIFY(modes.contains(PartitionMode::Mps));
    QVERIFY(modes.contains(PartitionMode::TimeSlicing));
}

void TestApplianceFile::minimalFile()
{
    const std::optional<Appliance> a = read(R"({"name": "lab", "hosts": [
        {"name": "n1", "cpu": 8, "memoryGiB": 64,
         "cards": [{"model": "NVIDIA H200", "mode": "mig"}, {"model": "L20"}]}]})");
    QVERIFY(a);
    QCOMPARE(a->name, QStringLiteral("lab"));
    QCOMPARE(a->state.cards().size(), 2);
    QVERIFY(a->state.cards()[0].mode == PartitionMode::Mig);
    QVERIFY(a->state.cards()[0].units.isEmpty()); // MIG without a layout: no instances yet
    QVERIFY(a->state.cards()[1].mode == PartitionMode::Whole); // the default mode
    QCOMPARE(a->state.model(a->state.cards()[1]).name, QStringLiteral("L20-48GB"));
    QCOMPARE(a->state.checkInvariants(), QString());
}

void TestApplianceFile::errors_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("message"); // a part of the message

    // A valid second host whose cards the rows below vary.
    const auto twoHosts = [](const char *cards) -> QByteArray {
        return QByteArray(R"({"name": "a", "hosts": [
            {"name": "n1", "cpu": 16, "memoryGiB": 128, "cards": [{"model": "L20-48GB"}]},
            {"name": "n2", "cpu": 16, "memoryGiB": 128, "cards": )")
               + cards + "}]}";
    };

    QTest::newRow("not an object") << QByteArray("[]") << QString() << "expected a JSON object";
    QTest::newRow("no name") << QByteArray(R"({"hosts": []})") << "name"
                             << "required";
    QTest::newRow("unknown key") << QByteArray(R"({"name": "a", "host": []})") << "host"
                                 << R"(unknown key (did you mean "hosts"?))";
    QTest::newRow("duplicate key")
            << QByteArray(R"({"name": "a", "name": "b", "hosts": []})") << "name"
            << "repeated key";
    // Issue 14: names holding a NUL, a control character or a lone surrogate, and keys given
    // twice, are refused at their path.
    QTest::newRow("host name with NUL") << QByteArray(
            R"({"name": "a", "hosts": [{"name": "n\u0000", "cpu": 1, "memoryGiB": 1}]})")
                                        << "hosts[0].name"
                                        << "must not contain a NUL character";
    QTest::newRow("appliance name with a lone surrogate")
            << QByteArray(R"({"name": "a\ud800", "hosts": []})") << "name"
            << "must be valid Unicode (it has a lone surrogate)";
    QTest::newRow("card model with a control character")
            << twoHosts(R"([{"model": "L20\t"}])") << "hosts[1].cards[0].model"
            << "must not contain control characters (U+0009 at character 4)";
    QTest::newRow("repeated key in a card")
            << twoHosts(R"([{"model": "L20", "count": 1, "count": 2}])")
            << "hosts[1].cards[0].count"
            << "repeated key; each key may appear once";
    QTest::newRow("no hosts") << QByteArray(R"({"name": "a", "hosts": []})") << "hosts"
                              << "at least one host";
    QTest::newRow("host not an object")
            << QByteArray(R"({"name": "a", "hosts": [3]})") << "hosts[0]"
            << "expected an object, got a number";
    QTest::newRow("host without cpu")
            << QByteArray(R"({"name": "a", "hosts": [{"name": "n", "memoryGiB": 1}]})")
            << "hosts[0].cpu"
            << "required";
    QTest::newRow("negative memory")
            << QByteArray(R"({"name": "a", "hosts": [{"name": "n", "cpu": 1, "memoryGiB": -4}]})")
            << "hosts[0].memoryGiB"
            << "must be in (0, 1073741824], got -4";
    QTest::newRow("duplicate host")
            << QByteArray(R"({"name": "a", "hosts": [{"name": "n", "cpu": 1, "memoryGiB": 1},
                                                     {"name": "n", "cpu": 1, "memoryGiB": 1}]})")
            << "hosts[1].name"
            << "duplicate host name \"n\" (hosts[0] has it already)";
    QTest::newRow("unknown model")
            << twoHosts(R"([{"model": "B300"}])") << "hosts[1].cards[0].model"
            << "unknown card model \"B300\" (known: ";
    QTest::newRow("unknown model lists known ones")
            << twoHosts(R"([{"model": "B300"}])") << "hosts[1].cards[0].model"
            << "H200-141GB";
    QTest::newRow("unknown mode") << twoHosts(R"([{"model": "L20", "mode": "vgpu"}])")
                                  << "hosts[1].cards[0].mode"
                                  << "unknown mode \"vgpu\"";
    QTest::newRow("mode the model lacks")
            << twoHosts(R"([{"model": "L40S-48GB", "mode": "mig"}])") << "hosts[1].cards[0].mode"
            << "L40S-48GB does not support mode \"mig\" (it supports: whole, time-slicing, mps)";
    QTest::newRow("unknown card key")
            << twoHosts(R"([{"model": "L20", "nvlink": 1}])") << "hosts[1].cards[0].nvlink"
            << "unknown key";
    QTest::newRow("negative link domain")
            << twoHosts(R"([{"model": "L20", "linkDomain": -1}])") << "hosts[1].cards[0].linkDomain"
            << "must be 0..1048576, got -1";
    QTest::newRow("zero count") << twoHosts(R"([{"model": "L20", "count": 0}])")
                                << "hosts[1].cards[0].count"
                                << "must be 1..64, got 0";
    QTest::newRow("fractional count")
            << twoHosts(R"([{"model": "L20", "count": 1.5}])") << "hosts[1].cards[0].count"
            << "expected an integer, got 1.5";
    QTest::newRow("over 64 cards")
            << twoHosts(R"([{"model": "L20", "count": 60}, {"model": "L20", "count": 5}])")
            << "hosts[1].cards[1]"
            << "at most 64 cards";
    QTest::newRow("layout outside MIG")
            << twoHosts(R"([{"model": "H200-141GB", "layout": ["7g.141gb@0"]}])")
            << "hosts[1].cards[0].layout"
            << "only allowed in mode \"mig\", not \"whole\"";
    QTest::newRow("layout entry not a string")
            << twoHosts(R"([{"model": "H200-141GB", "mode": "mig", "layout": [7]}])")
            << "hosts[1].cards[0].layout[0]"
            << "expected a string, got a number";
    QTest::newRow("layout entry without start") << twoHosts(
            R"([{"model": "H200-141GB", "mode": "mig", "layout": ["3g.71gb@0", "1g.18gb@6", "2g.35gb"]}])")
                                                << "hosts[1].cards[0].layout[2]"
                                                << "is not \"<profile>@<start>\"";
    QTest::newRow("unknown profile")
            << twoHosts(R"([{"model": "H200-141GB", "mode": "mig", "layout": ["3g.40gb@0"]}])")
            << "hosts[1].cards[0].layout[0]"
            << "H200-141GB has no MIG profile \"3g.40gb\" (known: 1g.18gb, ";
    QTest::newRow("start not allowed") << twoHosts(
            R"([{"model": "H200-141GB", "mode": "mig", "layout": ["1g.18gb@0", "3g.71gb@2"]}])")
                                       << "hosts[1].cards[0].layout[1]"
                                       << "3g.71gb@2 is not an allowed placement";
    QTest::newRow("overlap") << twoHosts(
            R"([{"model": "H200-141GB", "mode": "mig", "layout": ["3g.71gb@0", "1g.18gb@6", "2g.35gb@2"]}])")
                             << "hosts[1].cards[0].layout[2]"
                             << "2g.35gb@2 overlaps 3g.71gb@0";
    QTest::newRow("overlap on the last slots") << twoHosts(
            R"([{"model": "H200-141GB", "mode": "mig", "layout": ["4g.71gb@0", "2g.35gb@4", "1g.35gb@6", "1g.18gb@6"]}])")
                                               << "hosts[1].cards[0].layout[3]"
                                               << "1g.18gb@6 overlaps 1g.35gb@6 on memory slot 6";
    QTest::newRow("second card bad, first fine") << twoHosts(
            R"([{"model": "H200-141GB", "mode": "mig", "layout": ["7g.141gb@0"]}, {"model": "H200-141GB", "mode": "mig", "layout": ["4g.71gb@0", "3g.71gb@4", "1g.18gb@6"]}])")
                                                 << "hosts[1].cards[1].layout[2]"
                                                 << "1g.18gb@6 overlaps 3g.71gb@4";
}

void TestApplianceFile::errors()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, field);
    QFETCH(QString, message);
    ApplianceError error;
    const std::optional<Appliance> a = read(json, &error);
    QVERIFY2(!a, "the file must be refused, all of it");
    QCOMPARE(error.file, QStringLiteral("test.json"));
    QCOMPARE(error.field, field);
    QVERIFY2(error.message.contains(message), qPrintable(error.toString()));
    QVERIFY(error.toString().startsWith(QStringLiteral("test.json")));
    if (!field.isEmpty())
        QVERIFY(error.toString().contains(QStringLiteral(": ") + field + QStringLiteral(": ")));
}

void TestApplianceFile::syntaxErrorHasLineAndColumn()
{
    ApplianceError error;
    const QByteArray json = "{\"name\": \"\xe6\x9c\x9d\xe5\xa4\x95\",\n  \"hosts\": [}\n";
    QVERIFY(!read(json, &error));
    QCOMPARE(error.line, 2);
    QCOMPARE(error.column, 13); // the "}" where a value should be
    QVERIFY2(error.message.startsWith(QStringLiteral("JSON syntax error: ")),
             qPrintable(error.message));
    QVERIFY(error.toString().startsWith(QStringLiteral("test.json:2:13: JSON syntax error")));

    // Columns count characters, not bytes: the Chinese name is two characters, six bytes.
    const QByteArray json2 = "{\"name\": \"\xe6\x9c\x9d\xe5\xa4\x95\" \"hosts\": []}";
    QVERIFY(!read(json2, &error));
    QCOMPARE(error.line, 1);
    QCOMPARE(error.column, 15); // bytes would say 19
}

void TestApplianceFile::missingFile()
{
    ApplianceError error;
    QVERIFY(!loadApplianceFile(
            QStringLiteral("/nonexistent/appliance.json"), Test::catalogue(), &error));
    QCOMPARE(error.file, QStringLiteral("/nonexistent/appliance.json"));
    QVERIFY(error.message.startsWith(QStringLiteral("cannot read the file")));
}

void TestApplianceFile::roundTrip_data()
{
    QTest::addColumn<QByteArray>("json");
    QFile demo(demoPath());
    QVERIFY(demo.open(QIODevice::ReadOnly));
    QTest::newRow("demo") << demo.readAll();
    QTest::newRow("fractions and a host without cards") << QByteArray(R"({"name": "odd",
        "hosts": [{"name": "cpu-only", "cpu": 0.5, "memoryGiB": 1.5},
                  {"name": "g", "cpu": 12.125, "memoryGiB": 96,
                   "cards": [{"model": "A100-SXM4-80GB", "mode": "mig", "linkDomain": 3,
                              "layout": ["1g.10gb@6", "3g.40gb@0"]},
                             {"model": "T4-16GB", "mode": "time-slicing", "count": 2}]}]})");
}

void TestApplianceFile::roundTrip()
{
    QFETCH(QByteArray, json);
    ApplianceError error;
    const std::optional<Appliance> first = read(json, &error);
    QVERIFY2(first, qPrintable(error.toString()));
    const QByteArray written = writeAppliance(*first);
    const std::optional<Appliance> second = read(written, &error);
    QVERIFY2(second, qPrintable(error.toString() + QStringLiteral("\n") + written));
    QCOMPARE(second->name, first->name);
    QVERIFY(second->state == first->state);
    QCOMPARE(writeAppliance(*second), written); // the writer is stable
}

void TestApplianceFile::writerFoldsIdenticalCards()
{
    const std::optional<Appliance> demo = loadApplianceFile(demoPath(), Test::catalogue(), nullptr);
    QVERIFY(demo);
    const QJsonObject root = QJsonDocument::fromJson(writeAppliance(*demo)).object();
    const QJsonArray cards = root[QStringLiteral("hosts")][0][QStringLiteral("cards")].toArray();
    QCOMPARE(cards[0][QStringLiteral("count")].toInt(), 4);
    QCOMPARE(cards[0][QStringLiteral("mode")].toString(), QStringLiteral("whole"));
    QCOMPARE(cards.size(), 5); // four whole cards in one entry, then four MIG layouts
    QCOMPARE(cards[2][QStringLiteral("layout")].toArray().toVariantList(),
             (QVariantList{"3g.71gb@0", "2g.35gb@4", "1g.18gb@6"}));
}

QTEST_APPLESS_MAIN(TestApplianceFile)
#include "tst_appliancefile.moc"
