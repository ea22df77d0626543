// SPDX-License-Identifier: GPL-3.0-or-later
// Catalogue::parseModel: one model file, and how the reader treats bad ones.
#include "cataloguefixture.h"

#include "core/catalogue/catalogue.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace Zhaoxi::Catalogue;
using namespace CatalogueFixture;
using Zhaoxi::Domain::MigProfile;
using Zhaoxi::Domain::PartitionMode;

class TestCatalogueParse : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void baseModelParses();
    void optionalFieldsDefault();
    void badModel_data();
    void badModel();
};

void TestCatalogueParse::baseModelParses()
{
    LoadError e;
    const std::optional<CardModel> m = Catalogue::parseModel(toJson(baseModel()), "base.json", &e);
    QVERIFY2(m, qPrintable(e.toString()));
    QCOMPARE(m->name, QStringLiteral("Test-GPU"));
    QCOMPARE(m->aliases, QStringList{"TG"});
    QCOMPARE(m->pciDeviceIds, QList<quint16>{0x1234});
    QCOMPARE(m->fp16Tflops, 10.5);
    QCOMPARE(m->maxSmClockMHz, 1500);
    QCOMPARE(m->migProfiles.size(), 3);
    QCOMPARE(m->migProfiles[1].starts, (QList<int>{0, 4}));
    QCOMPARE(m->softModes.size(), 2);
    QVERIFY(m->softModes[1].mode == PartitionMode::Mps);
}

void TestCatalogueParse::optionalFieldsDefault()
{
    QJsonObject o = baseModel();
    o.remove("aliases");
    o.remove("source");
    o.remove("migProfiles");
    o.remove("migComputeSlices");
    o.remove("migMemorySlices");
    o.remove("softModes");
    o.remove("maxSmClockMHz");
    o.insert("vendor", "Other");
    o.insert("pciVendorId", "0x1af4");
    LoadError e;
    std::optional<CardModel> m = Catalogue::parseModel(toJson(o), "min.json", &e);
    QVERIFY2(m, qPrintable(e.toString()));
    QVERIFY(!m->supportsMig());
    QVERIFY(m->softModes.isEmpty());
    QVERIFY(m->supports(PartitionMode::Whole));
    QCOMPARE(m->vendor, QStringLiteral("Other"));
    QCOMPARE(m->pciVendorId, quint16(0x1AF4));
    QCOMPARE(m->maxSmClockMHz, 0); // unknown: the exporter leaves the SM clock out

    // span defaults to memorySlices, mediaExtensions to false.
    o = baseModel();
    setIn(o, "migProfiles", 1, "span", QJsonValue::Undefined);
    m = Catalogue::parseModel(toJson(o), "span.json", &e);
    QVERIFY2(m, qPrintable(e.toString()));
    QCOMPARE(m->migProfiles[1].span, 4);
    QVERIFY(!m->migProfiles[1].mediaExtensions);
}

void TestCatalogueParse::badModel_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("message"); // a part of it
    QTest::addColumn<int>("line");

    const QJsonValue none = QJsonValue::Undefined;
    const auto top = [](const char *key, const QJsonValue &v) {
        return mutated([=](QJsonObject &o) {
            if (v.isUndefined())
                o.remove(key);
            else
                o.insert(key, v);
        });
    };
    const auto profile = [](int i, const char *key, const QJsonValue &v) {
        return mutated([=](QJsonObject &o) { setIn(o, "migProfiles", i, key, v); });
    };
    const auto soft = [](int i, const char *key, const QJsonValue &v) {
        return mutated([=](QJsonObject &o) { setIn(o, "softModes", i, key, v); });
    };

    // JSON itself
    QTest::newRow("syntax error names the line")
            << QByteArray("{\n  \"schemaVersion\": 1,\n  \"name\": \"X\"\n  \"memoryMiB\": 1\n}\n")
            << ""
            << "JSON syntax error" << 4;
    QTest::newRow("syntax error on line 1") << QByteArray("{ nope }") << ""
                                            << "JSON syntax error" << 1;
    QTest::newRow("truncated file") << QByteArray("{\n\"name\": \"X\",\n") << ""
                                    << "JSON syntax error" << 2;
    QTest::newRow("not an object") << QByteArray("[1, 2]") << ""
                                   << "expected a JSON object" << 0;
    QTest::newRow("key twice") << QByteArray("{\n\"name\": \"X\",\n\"name\": \"Y\"\n}") << "name"
                               << "repeated key" << 3;
    {
        // A key repeated deep inside a profile: the path and the line name it.
        QByteArray text = toJson(baseModel());
        const QByteArray needle = "\"maxInstances\": 2,";
        const qsizetype at = text.indexOf(needle);
        text.insert(at + needle.size(), "\n\"maxInstances\": 1,");
        const int line = int(text.left(at).count('\n')) + 2;
        QTest::newRow("key twice in a profile") << text << "migProfiles[1].maxInstances"
                                                << "repeated key" << line;
    }
    {
        // Issue 14: names with a NUL, a control character or a lone surrogate, as JSON can
        // spell them, are refused at their path.
        const QByteArray text = toJson(baseModel());
        const auto spelt = [&text](const QByteArray &from, const QByteArray &to) {
            QByteArray t = text;
            return t.replace(from, to);
        };
        QTest::newRow("name with NUL") << spelt("\"Test-GPU\"", "\"Test\\u0000GPU\"") << "name"
                                       << "must not contain a NUL character" << 0;
        QTest::newRow("alias with a lone surrogate")
                << spelt("\"TG\"", "\"T\\ud800G\"") << "aliases[0]"
                << "must be valid Unicode (it has a lone surrogate)" << 0;
        QTest::newRow("profile name with a control character")
                << spelt("\"1g.1gb\"", "\"1g\\n1gb\"") << "migProfiles[0].name"
                << "must not contain control characters (U+000A at character 3)" << 0;
    }
    // The same key in sibling objects is fine; a quote escaped inside a key does not end it.
    QTest::newRow("escaped quote in a repeated key")
            << QByteArray(R"({"a\"": {"x": 1}, "b": {"x": [{"x": 1}, {"x": 2}]}, "a\"": 2})")
            << R"(a")"
            << "repeated key" << 1;

    // top level
    QTest::newRow("unknown key") << top("colour", "green") << "colour"
                                 << "unknown key" << 0;
    QTest::newRow("misspelt key") << top("memoryMib", 1) << "memoryMib"
                                  << "unknown key" << 0;
    QTest::newRow("no schemaVersion") << top("schemaVersion", none) << "schemaVersion"
                                      << "required" << 0;
    QTest::newRow("future schemaVersion") << top("schemaVersion", 2) << "schemaVersion"
                                          << "not supported" << 0;
    QTest::newRow("no name") << top("name", none) << "name"
                             << "required" << 0;
    QTest::newRow("name not a string") << top("name", 42) << "name"
                                       << "expected a string" << 0;
    QTest::newRow("empty name") << top("name", "  ") << "name"
                                << "must not be empty" << 0;
    QTest::newRow("name with spaces around") << top("name", " X") << "name"
                                             << "white space" << 0;
    QTest::newRow("aliases not an array") << top("aliases", "TG") << "aliases"
                                          << "expected an array" << 0;
    QTest::newRow("alias not a string") << top("aliases", QJsonArray{"TG", 3}) << "aliases[1]"
                                        << "expected a string, got a number" << 0;
    QTest::newRow("alias repeats the name")
            << top("aliases", QJsonArray{"test-gpu"}) << "aliases[0]"
            << "repeats" << 0;
    QTest::newRow("source not a string") << top("source", 1) << "source"
                                         << "expected a string" << 0;
    QTest::newRow("no pciDeviceIds") << top("pciDeviceIds", none) << "pciDeviceIds"
                                     << "required" << 0;
    QTest::newRow("pci id without 0x")
            << top("pciDeviceIds", QJsonArray{"2330"}) << "pciDeviceIds[0]"
            << "hex string" << 0;
    QTest::newRow("pci id too long")
            << top("pciDeviceIds", QJsonArray{"0x12345"}) << "pciDeviceIds[0]"
            << "hex string" << 0;
    QTest::newRow("pci id a number") << top("pciDeviceIds", QJsonArray{0x2330}) << "pciDeviceIds[0]"
                                     << "hex string" << 0;
    QTest::newRow("pci id twice") << top("pciDeviceIds", QJsonArray{"0x1", "0x0001"})
                                  << "pciDeviceIds[1]"
                                  << "repeats" << 0;
    QTest::newRow("bad vendor id") << top("pciVendorId", "NVIDIA") << "pciVendorId"
                                   << "hex string" << 0;
    QTest::newRow("no memoryMiB") << top("memoryMiB", none) << "memoryMiB"
                                  << "required" << 0;
    QTest::newRow("negative memoryMiB") << top("memoryMiB", -1) << "memoryMiB"
                                        << "at least 1" << 0;
    QTest::newRow("fractional memoryMiB") << top("memoryMiB", 8192.5) << "memoryMiB"
                                          << "integer" << 0;
    QTest::newRow("memoryMiB a string") << top("memoryMiB", "8 GiB") << "memoryMiB"
                                        << "expected an integer, got a string" << 0;
    QTest::newRow("zero fp16Tflops") << top("fp16Tflops", 0) << "fp16Tflops"
                                     << "greater than 0" << 0;
    QTest::newRow("fp16Tflops a string") << top("fp16Tflops", "fast") << "fp16Tflops"
                                         << "expected a number" << 0;
    QTest::newRow("negative idle power") << top("idlePowerW", -5) << "idlePowerW"
                                         << "at least 0" << 0;
    QTest::newRow("max power below idle") << top("maxPowerW", 4) << "maxPowerW"
                                          << "at least 5" << 0;
    QTest::newRow("zero SM clock") << top("maxSmClockMHz", 0) << "maxSmClockMHz"
                                   << "1..10000" << 0;
    QTest::newRow("SM clock in kHz") << top("maxSmClockMHz", 1980000) << "maxSmClockMHz"
                                     << "1..10000" << 0;
    QTest::newRow("fractional SM clock") << top("maxSmClockMHz", 1410.5) << "maxSmClockMHz"
                                         << "integer" << 0;
    QTest::newRow("SM clock a string") << top("maxSmClockMHz", "1980 MHz") << "maxSmClockMHz"
                                       << "expected an integer, got a string" << 0;
    QTest::newRow("profiles without compute slices")
            << top("migComputeSlices", none) << "migComputeSlices"
            << "required" << 0;
    QTest::newRow("too many memory slots") << top("migMemorySlices", 40) << "migMemorySlices"
                                           << "1..32" << 0;
    QTest::newRow("profiles not an array") << top("migProfiles", QJsonObject{}) << "migProfiles"
                                           << "expected an array" << 0;
    QTest::newRow("softModes not an array") << top("softModes", 1) << "softModes"
                                            << "expected an array" << 0;

    // MIG profiles
    QTest::newRow("profile not an object") << mutated([](QJsonObject &o) {
        QJsonArray a = o.value("migProfiles").toArray();
        a[0] = 5;
        o.insert("migProfiles", a);
    }) << "migProfiles[0]"
                                           << "expected an object" << 0;
    QTest::newRow("profile unknown key") << profile(1, "colour", "red") << "migProfiles[1].colour"
                                         << "unknown key" << 0;
    QTest::newRow("profile without name") << profile(2, "name", none) << "migProfiles[2].name"
                                          << "required" << 0;
    QTest::newRow("profile name twice") << profile(1, "name", "1g.1gb") << "migProfiles[1].name"
                                        << "already the name of migProfiles[0]" << 0;
    QTest::newRow("profile id twice") << profile(2, "profileId", 9) << "migProfiles[2].profileId"
                                      << "already the id of migProfiles[1]" << 0;
    QTest::newRow("negative profile id")
            << profile(0, "profileId", -1) << "migProfiles[0].profileId"
            << "at least 0" << 0;
    QTest::newRow("more compute than the card")
            << profile(0, "computeSlices", 8) << "migProfiles[0].computeSlices"
            << "1..7" << 0;
    QTest::newRow("no memory slices")
            << profile(0, "memorySlices", 0) << "migProfiles[0].memorySlices"
            << "1..8" << 0;
    QTest::newRow("span differs from memory slices")
            << profile(1, "span", 3) << "migProfiles[1].span"
            << "must equal memorySlices (4)" << 0;
    QTest::newRow("profile memory above the card")
            << profile(2, "memoryMiB", 9000) << "migProfiles[2].memoryMiB"
            << "1..8192" << 0;
    QTest::newRow("start off the axis")
            << profile(0, "starts", QJsonArray{0, 8}) << "migProfiles[0].starts[1]"
            << "0..7" << 0;
    QTest::newRow("negative start")
            << profile(0, "starts", QJsonArray{-1}) << "migProfiles[0].starts[0]"
            << "0..7" << 0;
    QTest::newRow("start plus span past the axis")
            << profile(1, "starts", QJsonArray{0, 5}) << "migProfiles[1].starts[1]"
            << "runs past" << 0;
    QTest::newRow("starts not ascending")
            << profile(1, "starts", QJsonArray{4, 0}) << "migProfiles[1].starts[1]"
            << "strictly ascending" << 0;
    QTest::newRow("start twice") << profile(0, "starts", QJsonArray{1, 1})
                                 << "migProfiles[0].starts[1]"
                                 << "strictly ascending" << 0;
    QTest::newRow("no starts") << profile(0, "starts", QJsonArray{}) << "migProfiles[0].starts"
                               << "at least one" << 0;
    QTest::newRow("start not an integer")
            << profile(0, "starts", QJsonArray{"0"}) << "migProfiles[0].starts[0]"
            << "integer" << 0;
    QTest::newRow("more instances than starts")
            << profile(1, "maxInstances", 3) << "migProfiles[1].maxInstances"
            << "1..2" << 0;
    QTest::newRow("no instances") << profile(0, "maxInstances", 0) << "migProfiles[0].maxInstances"
                                  << "1..7" << 0;
    QTest::newRow("mediaExtensions not a bool")
            << profile(0, "mediaExtensions", "yes") << "migProfiles[0].mediaExtensions"
            << "true or false" << 0;

    // soft modes
    QTest::newRow("soft mode unknown key") << soft(0, "quantum", 5) << "softModes[0].quantum"
                                           << "unknown key" << 0;
    QTest::newRow("soft mode whole") << soft(0, "mode", "whole") << "softModes[0].mode"
                                     << "\"time-slicing\" or \"mps\"" << 0;
    QTest::newRow("soft mode listed twice")
            << soft(1, "mode", "time-slicing") << "softModes[1].mode"
            << "listed twice" << 0;
    QTest::newRow("no clients") << soft(1, "maxClients", 0) << "softModes[1].maxClients"
                                << "at least 1" << 0;
    QTest::newRow("no memoryIsolation")
            << soft(0, "memoryIsolation", none) << "softModes[0].memoryIsolation"
            << "required" << 0;
    QTest::newRow("unknown isolation") << soft(1, "isolation", "medium") << "softModes[1].isolation"
                                       << "\"none\", \"weak\" or \"strong\"" << 0;
    QTest::newRow("zero overhead factor")
            << soft(0, "overheadFactor", 0) << "softModes[0].overheadFactor"
            << "(0, 1]" << 0;
    QTest::newRow("overhead factor above 1")
            << soft(0, "overheadFactor", 1.5) << "softModes[0].overheadFactor"
            << "(0, 1]" << 0;
}

void TestCatalogueParse::badModel()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, field);
    QFETCH(QString, message);
    QFETCH(int, line);

    LoadError e;
    const std::optional<CardModel> m = Catalogue::parseModel(json, "models/bad.json", &e);
    QVERIFY(!m);
    QCOMPARE(e.file, QStringLiteral("models/bad.json"));
    QCOMPARE(e.field, field);
    QVERIFY2(e.message.contains(message), qPrintable(e.message));
    QCOMPARE(e.line, line);

    // A null error pointer is allowed.
    QVERIFY(!Catalogue::parseModel(json, "models/bad.json", nullptr));
}

QTEST_GUILESS_MAIN(TestCatalogueParse)
#include "tst_catalogue_parse.moc"
