// SPDX-License-Identifier: GPL-3.0-or-later
// The card catalogue: the shipped model files, and how the loader treats bad ones.
#include "core/catalogue/catalogue.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <functional>

using namespace Zhaoxi::Catalogue;
using Zhaoxi::Domain::MigProfile;
using Zhaoxi::Domain::PartitionMode;

Q_DECLARE_METATYPE(Zhaoxi::Catalogue::LoadError)

namespace {

// A small valid model; the error rows each break one thing in it.
QJsonObject baseModel()
{
    const auto profile = [](const char *name,
                            int id,
                            int compute,
                            int memory,
                            int mib,
                            int max,
                            QJsonArray starts) {
        return QJsonObject{{"name", name},
                           {"profileId", id},
                           {"computeSlices", compute},
                           {"memorySlices", memory},
                           {"memoryMiB", mib},
                           {"maxInstances", max},
                           {"starts", starts},
                           {"span", memory}};
    };
    return QJsonObject{
            {"schemaVersion", 1},
            {"name", "Test-GPU"},
            {"aliases", QJsonArray{"TG"}},
            {"source", "unit test"},
            {"pciDeviceIds", QJsonArray{"0x1234"}},
            {"memoryMiB", 8192},
            {"fp16Tflops", 10.5},
            {"idlePowerW", 5},
            {"maxPowerW", 100},
            {"migComputeSlices", 7},
            {"migMemorySlices", 8},
            {"migProfiles",
             QJsonArray{profile("1g.1gb", 19, 1, 1, 1024, 7, QJsonArray{0, 1, 2, 3, 4, 5, 6}),
                        profile("3g.4gb", 9, 3, 4, 4096, 2, QJsonArray{0, 4}),
                        profile("7g.8gb", 0, 7, 8, 8192, 1, QJsonArray{0})}},
            {"softModes",
             QJsonArray{QJsonObject{{"mode", "time-slicing"},
                                    {"maxClients", 16},
                                    {"memoryIsolation", false},
                                    {"isolation", "none"},
                                    {"overheadFactor", 0.9}},
                        QJsonObject{{"mode", "mps"},
                                    {"maxClients", 48},
                                    {"memoryIsolation", true},
                                    {"isolation", "weak"},
                                    {"overheadFactor", 0.95}}}},
    };
}

QByteArray toJson(const QJsonObject &o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Indented);
}

QByteArray mutated(const std::function<void(QJsonObject &)> &change)
{
    QJsonObject o = baseModel();
    change(o);
    return toJson(o);
}

// Sets (or, with an undefined value, removes) key `key` of element `i` of array `array`.
void setIn(QJsonObject &root, const char *array, int i, const char *key, const QJsonValue &value)
{
    QJsonArray a = root.value(array).toArray();
    QJsonObject e = a[i].toObject();
    if (value.isUndefined())
        e.remove(key);
    else
        e.insert(key, value);
    a[i] = e;
    root.insert(array, a);
}

QJsonObject named(const QString &name, const QJsonArray &aliases = {})
{
    QJsonObject o = baseModel();
    o.insert("name", name);
    o.insert("aliases", aliases);
    return o;
}

bool writeFile(const QString &path, const QByteArray &data)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(data) == data.size();
}

const QString kSourceCatalogue = QStringLiteral(ZHAOXI_SOURCE_DIR "/resources/catalogue");

const QStringList kShippedModels = {
        "A100-SXM4-40GB",
        "A100-SXM4-80GB",
        "H100-SXM5-80GB",
        "H200-141GB",
        "H200-NVL-141GB",
        "L20-48GB",
        "L40S-48GB",
        "T4-16GB",
};

} // namespace

class TestCatalogue : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // The shipped catalogue
    void builtInHoldsEveryModel();
    void builtInMatchesTheSourceTree();
    void everyShippedFileNamesItsSource();
    void modelFacts_data();
    void modelFacts();
    void migProfileTable_data();
    void migProfileTable();
    void softModes_data();
    void softModes();
    void findByNameOrAlias_data();
    void findByNameOrAlias();
    void addReplacesSameName();

    // parseModel
    void baseModelParses();
    void optionalFieldsDefault();
    void badModel_data();
    void badModel();

    // loadDirectory
    void loadsAGoodDirectory();
    void oneBadFileFailsTheWholeDirectory();
    void listsTheErrorOfEveryBadFile();
    void duplicateModelNamesAcrossFiles_data();
    void duplicateModelNamesAcrossFiles();
    void missingOrEmptyDirectory();
    void loadErrorToString_data();
    void loadErrorToString();
};

void TestCatalogue::builtInHoldsEveryModel()
{
    const Catalogue c = Catalogue::builtIn();
    QStringList names = c.names();
    names.sort();
    QCOMPARE(names, kShippedModels);
}

void TestCatalogue::builtInMatchesTheSourceTree()
{
    QList<LoadError> errors;
    const std::optional<Catalogue> fromDisk = Catalogue::loadDirectory(kSourceCatalogue, &errors);
    QVERIFY2(fromDisk, qPrintable(errors.isEmpty() ? QString() : errors.first().toString()));
    QVERIFY(errors.isEmpty());
    QCOMPARE(fromDisk->names(), Catalogue::builtIn().names());
}

void TestCatalogue::everyShippedFileNamesItsSource()
{
    const QDir dir(kSourceCatalogue);
    const QStringList files = dir.entryList({"*.json"}, QDir::Files);
    QCOMPARE(files.size(), kShippedModels.size());
    for (const QString &name : files) {
        QFile f(dir.filePath(name));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
        QVERIFY2(o.value("source").toString().size() > 20, qPrintable(name));
        // One file per model, named after it.
        QCOMPARE(o.value("name").toString() + ".json", name);
    }
}

void TestCatalogue::modelFacts_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<quint16>("pciDeviceId");
    QTest::addColumn<qint64>("memoryMiB");
    QTest::addColumn<int>("profiles");
    QTest::addColumn<QStringList>("modes");

    const QStringList all = {"whole", "mig", "time-slicing", "mps"};
    const QStringList soft = {"whole", "time-slicing", "mps"};
    QTest::newRow("A100 40GB") << "A100-SXM4-40GB" << quint16(0x20B0) << qint64(40960) << 7 << all;
    QTest::newRow("A100 80GB") << "A100-SXM4-80GB" << quint16(0x20B2) << qint64(81920) << 7 << all;
    QTest::newRow("H100") << "H100-SXM5-80GB" << quint16(0x2330) << qint64(81559) << 7 << all;
    QTest::newRow("H200") << "H200-141GB" << quint16(0x2335) << qint64(143771) << 7 << all;
    QTest::newRow("H200 NVL") << "H200-NVL-141GB" << quint16(0x233B) << qint64(143771) << 7 << all;
    QTest::newRow("L40S") << "L40S-48GB" << quint16(0x26B9) << qint64(46068) << 0 << soft;
    QTest::newRow("L20") << "L20-48GB" << quint16(0x26BA) << qint64(46068) << 0 << soft;
    QTest::newRow("T4") << "T4-16GB" << quint16(0x1EB8) << qint64(15360) << 0 << soft;
}

void TestCatalogue::modelFacts()
{
    QFETCH(QString, model);
    QFETCH(quint16, pciDeviceId);
    QFETCH(qint64, memoryMiB);
    QFETCH(int, profiles);
    QFETCH(QStringList, modes);

    const Catalogue c = Catalogue::builtIn();
    const CardModel *m = c.find(model);
    QVERIFY(m);
    QCOMPARE(m->name, model);
    QCOMPARE(m->vendor, QStringLiteral("NVIDIA"));
    QCOMPARE(m->pciVendorId, quint16(0x10DE));
    QCOMPARE(m->pciDeviceIds, QList<quint16>{pciDeviceId});
    QCOMPARE(m->memoryMiB, memoryMiB);
    QCOMPARE(m->migProfiles.size(), profiles);
    QVERIFY(m->fp16Tflops > 0);
    QVERIFY(m->maxPowerW > m->idlePowerW);
    QStringList supported;
    for (PartitionMode mode : {PartitionMode::Whole,
                               PartitionMode::Mig,
                               PartitionMode::TimeSlicing,
                               PartitionMode::Mps}) {
        if (m->supports(mode))
            supported << Zhaoxi::Domain::toString(mode);
    }
    QCOMPARE(supported, modes);
    if (m->supportsMig()) {
        QCOMPARE(m->migComputeSlices, 7);
        QCOMPARE(m->migMemorySlices, 8);
    }
}

void TestCatalogue::migProfileTable_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("profile");
    QTest::addColumn<int>("profileId");
    QTest::addColumn<int>("computeSlices");
    QTest::addColumn<int>("memorySlices");
    QTest::addColumn<qint64>("memoryMiB");
    QTest::addColumn<int>("maxInstances");
    QTest::addColumn<QList<int>>("starts");
    QTest::addColumn<bool>("mediaExtensions");

    // The MIG user guide's placement table, the same on every model here: 1g {0..6} max 7,
    // 1g+me {0..6} max 1, 1g with double memory {0,2,4,6} max 4, 2g {0,2,4} max 3, 3g {0,4}
    // max 2, 4g {0} max 1, 7g {0} max 1 (spanning all 8 slots).
    const auto model = [](const char *name,
                          const QStringList &profiles,
                          qint64 m1,
                          qint64 m2,
                          qint64 m4,
                          qint64 m8) {
        const QList<int> ids = {19, 20, 15, 14, 9, 5, 0};
        const QList<int> compute = {1, 1, 1, 2, 3, 4, 7};
        const QList<int> memory = {1, 1, 2, 2, 4, 4, 8};
        const QList<qint64> mib = {m1, m1, m2, m2, m4, m4, m8};
        const QList<int> max = {7, 1, 4, 3, 2, 1, 1};
        const QList<QList<int>> starts = {{0, 1, 2, 3, 4, 5, 6},
                                          {0, 1, 2, 3, 4, 5, 6},
                                          {0, 2, 4, 6},
                                          {0, 2, 4},
                                          {0, 4},
                                          {0},
                                          {0}};
        for (int i = 0; i < 7; ++i) {
            QTest::addRow("%s %s", name, qPrintable(profiles[i]))
                    << QString::fromLatin1(name) << profiles[i] << ids[i] << compute[i] << memory[i]
                    << mib[i] << max[i] << starts[i] << (i == 1);
        }
    };
    model("A100-SXM4-40GB",
          {"1g.5gb", "1g.5gb+me", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"},
          4864,
          9984,
          20096,
          40448);
    model("A100-SXM4-80GB",
          {"1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"},
          9728,
          19968,
          40192,
          80896);
    model("H100-SXM5-80GB",
          {"1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"},
          9984,
          20096,
          40448,
          81152);
    const QStringList h200
            = {"1g.18gb", "1g.18gb+me", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"};
    model("H200-141GB", h200, 16384, 33280, 66560, 143360);
    model("H200-NVL-141GB", h200, 16384, 33280, 66560, 143360);
}

void TestCatalogue::migProfileTable()
{
    QFETCH(QString, model);
    QFETCH(QString, profile);
    QFETCH(int, profileId);
    QFETCH(int, computeSlices);
    QFETCH(int, memorySlices);
    QFETCH(qint64, memoryMiB);
    QFETCH(int, maxInstances);
    QFETCH(QList<int>, starts);
    QFETCH(bool, mediaExtensions);

    const Catalogue c = Catalogue::builtIn();
    const CardModel *m = c.find(model);
    QVERIFY(m);
    const int index = m->profileIndex(profile);
    QVERIFY2(index >= 0, qPrintable(profile));
    const MigProfile &p = m->migProfiles[index];
    QCOMPARE(p.profileId, profileId);
    QCOMPARE(p.computeSlices, computeSlices);
    QCOMPARE(p.memorySlices, memorySlices);
    QCOMPARE(p.span, memorySlices);
    QCOMPARE(p.memoryMiB, memoryMiB);
    QCOMPARE(p.maxInstances, maxInstances);
    QCOMPARE(p.starts, starts);
    QCOMPARE(p.mediaExtensions, mediaExtensions);
}

void TestCatalogue::softModes_data()
{
    QTest::addColumn<QString>("model");
    for (const QString &m : kShippedModels)
        QTest::newRow(qPrintable(m)) << m;
}

void TestCatalogue::softModes()
{
    QFETCH(QString, model);
    const Catalogue c = Catalogue::builtIn();
    const CardModel *m = c.find(model);
    QVERIFY(m);
    QCOMPARE(m->softModes.size(), 2);

    const auto *ts = m->softMode(PartitionMode::TimeSlicing);
    QVERIFY(ts);
    QVERIFY(!ts->memoryIsolation);
    QCOMPARE(Zhaoxi::Domain::toString(ts->isolation), QStringLiteral("none"));
    QVERIFY(ts->overheadFactor > 0 && ts->overheadFactor < 1);
    QVERIFY(ts->maxClients >= 1);

    const auto *mps = m->softMode(PartitionMode::Mps);
    QVERIFY(mps);
    QCOMPARE(mps->maxClients, 48);
    QVERIFY(mps->memoryIsolation);
    QCOMPARE(Zhaoxi::Domain::toString(mps->isolation), QStringLiteral("weak"));
    QVERIFY(mps->overheadFactor > ts->overheadFactor && mps->overheadFactor <= 1);
}

void TestCatalogue::findByNameOrAlias_data()
{
    QTest::addColumn<QString>("query");
    QTest::addColumn<QString>("expected"); // empty: unknown

    QTest::newRow("canonical") << "H100-SXM5-80GB"
                               << "H100-SXM5-80GB";
    QTest::newRow("canonical, other case") << "h100-sxm5-80gb"
                                           << "H100-SXM5-80GB";
    QTest::newRow("alias") << "H100"
                           << "H100-SXM5-80GB";
    QTest::newRow("driver name") << "NVIDIA H100 80GB HBM3"
                                 << "H100-SXM5-80GB";
    QTest::newRow("alias, other case") << "tesla t4"
                                       << "T4-16GB";
    QTest::newRow("H200 NVL is its own model") << "H200-NVL"
                                               << "H200-NVL-141GB";
    QTest::newRow("H200") << "H200"
                          << "H200-141GB";
    QTest::newRow("unknown") << "V100"
                             << "";
    QTest::newRow("empty") << ""
                           << "";
}

void TestCatalogue::findByNameOrAlias()
{
    QFETCH(QString, query);
    QFETCH(QString, expected);
    const Catalogue c = Catalogue::builtIn();
    const CardModel *m = c.find(query);
    if (expected.isEmpty()) {
        QVERIFY(!m);
        QCOMPARE(c.indexOf(query), -1);
        return;
    }
    QVERIFY(m);
    QCOMPARE(m->name, expected);
    QCOMPARE(c.models().at(c.indexOf(query)).name, expected);
}

void TestCatalogue::addReplacesSameName()
{
    Catalogue c;
    CardModel a;
    a.name = "Synthetic-1";
    a.memoryMiB = 1000;
    c.add(a);
    CardModel b;
    b.name = "Synthetic-2";
    c.add(b);
    a.memoryMiB = 2000;
    c.add(a);
    QCOMPARE(c.names(), (QStringList{"Synthetic-1", "Synthetic-2"}));
    QCOMPARE(c.find("synthetic-1")->memoryMiB, qint64(2000));
}

void TestCatalogue::baseModelParses()
{
    LoadError e;
    const std::optional<CardModel> m = Catalogue::parseModel(toJson(baseModel()), "base.json", &e);
    QVERIFY2(m, qPrintable(e.toString()));
    QCOMPARE(m->name, QStringLiteral("Test-GPU"));
    QCOMPARE(m->aliases, QStringList{"TG"});
    QCOMPARE(m->pciDeviceIds, QList<quint16>{0x1234});
    QCOMPARE(m->fp16Tflops, 10.5);
    QCOMPARE(m->migProfiles.size(), 3);
    QCOMPARE(m->migProfiles[1].starts, (QList<int>{0, 4}));
    QCOMPARE(m->softModes.size(), 2);
    QVERIFY(m->softModes[1].mode == PartitionMode::Mps);
}

void TestCatalogue::optionalFieldsDefault()
{
    QJsonObject o = baseModel();
    o.remove("aliases");
    o.remove("source");
    o.remove("migProfiles");
    o.remove("migComputeSlices");
    o.remove("migMemorySlices");
    o.remove("softModes");
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

    // span defaults to memorySlices, mediaExtensions to false.
    o = baseModel();
    setIn(o, "migProfiles", 1, "span", QJsonValue::Undefined);
    m = Catalogue::parseModel(toJson(o), "span.json", &e);
    QVERIFY2(m, qPrintable(e.toString()));
    QCOMPARE(m->migProfiles[1].span, 4);
    QVERIFY(!m->migProfiles[1].mediaExtensions);
}

void TestCatalogue::badModel_data()
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
                                    << "JSON syntax error" << 3;
    QTest::newRow("not an object") << QByteArray("[1, 2]") << ""
                                   << "one JSON object" << 0;
    QTest::newRow("key twice") << QByteArray("{\n\"name\": \"X\",\n\"name\": \"Y\"\n}") << "name"
                               << "appears twice" << 3;
    {
        // A key repeated deep inside a profile: the path and the line name it.
        QByteArray text = toJson(baseModel());
        const QByteArray needle = "\"maxInstances\": 2,";
        const qsizetype at = text.indexOf(needle);
        text.insert(at + needle.size(), "\n\"maxInstances\": 1,");
        const int line = int(text.left(at).count('\n')) + 2;
        QTest::newRow("key twice in a profile") << text << "migProfiles[1].maxInstances"
                                                << "appears twice" << line;
    }
    // The same key in sibling objects is fine; a quote escaped inside a key does not end it.
    QTest::newRow("escaped quote in a repeated key")
            << QByteArray(R"({"a\"": {"x": 1}, "b": {"x": [{"x": 1}, {"x": 2}]}, "a\"": 2})")
            << R"(a\")"
            << "appears twice" << 1;

    // top level
    QTest::newRow("unknown key") << top("colour", "green") << "colour"
                                 << "unknown key" << 0;
    QTest::newRow("misspelt key") << top("memoryMib", 1) << "memoryMib"
                                  << "unknown key" << 0;
    QTest::newRow("no schemaVersion") << top("schemaVersion", none) << "schemaVersion"
                                      << "is required" << 0;
    QTest::newRow("future schemaVersion") << top("schemaVersion", 2) << "schemaVersion"
                                          << "not supported" << 0;
    QTest::newRow("no name") << top("name", none) << "name"
                             << "is required" << 0;
    QTest::newRow("name not a string") << top("name", 42) << "name"
                                       << "must be a string" << 0;
    QTest::newRow("empty name") << top("name", "  ") << "name"
                                << "must not be empty" << 0;
    QTest::newRow("name with spaces around") << top("name", " X") << "name"
                                             << "white space" << 0;
    QTest::newRow("aliases not an array") << top("aliases", "TG") << "aliases"
                                          << "must be an array" << 0;
    QTest::newRow("alias not a string") << top("aliases", QJsonArray{"TG", 3}) << "aliases[1]"
                                        << "non-empty string" << 0;
    QTest::newRow("alias repeats the name")
            << top("aliases", QJsonArray{"test-gpu"}) << "aliases[0]"
            << "repeats" << 0;
    QTest::newRow("source not a string") << top("source", 1) << "source"
                                         << "must be a string" << 0;
    QTest::newRow("no pciDeviceIds") << top("pciDeviceIds", none) << "pciDeviceIds"
                                     << "is required" << 0;
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
                                  << "is required" << 0;
    QTest::newRow("negative memoryMiB") << top("memoryMiB", -1) << "memoryMiB"
                                        << "at least 1" << 0;
    QTest::newRow("fractional memoryMiB") << top("memoryMiB", 8192.5) << "memoryMiB"
                                          << "integer" << 0;
    QTest::newRow("memoryMiB a string") << top("memoryMiB", "8 GiB") << "memoryMiB"
                                        << "must be an integer, not a string" << 0;
    QTest::newRow("zero fp16Tflops") << top("fp16Tflops", 0) << "fp16Tflops"
                                     << "greater than 0" << 0;
    QTest::newRow("fp16Tflops a string") << top("fp16Tflops", "fast") << "fp16Tflops"
                                         << "must be a number" << 0;
    QTest::newRow("negative idle power") << top("idlePowerW", -5) << "idlePowerW"
                                         << "at least 0" << 0;
    QTest::newRow("max power below idle") << top("maxPowerW", 4) << "maxPowerW"
                                          << "at least 5" << 0;
    QTest::newRow("profiles without compute slices")
            << top("migComputeSlices", none) << "migComputeSlices"
            << "is required" << 0;
    QTest::newRow("too many memory slots") << top("migMemorySlices", 40) << "migMemorySlices"
                                           << "1..32" << 0;
    QTest::newRow("profiles not an array") << top("migProfiles", QJsonObject{}) << "migProfiles"
                                           << "must be an array" << 0;
    QTest::newRow("softModes not an array") << top("softModes", 1) << "softModes"
                                            << "must be an array" << 0;

    // MIG profiles
    QTest::newRow("profile not an object") << mutated([](QJsonObject &o) {
        QJsonArray a = o.value("migProfiles").toArray();
        a[0] = 5;
        o.insert("migProfiles", a);
    }) << "migProfiles[0]"
                                           << "must be an object" << 0;
    QTest::newRow("profile unknown key") << profile(1, "colour", "red") << "migProfiles[1].colour"
                                         << "unknown key" << 0;
    QTest::newRow("profile without name") << profile(2, "name", none) << "migProfiles[2].name"
                                          << "is required" << 0;
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
            << "is required" << 0;
    QTest::newRow("unknown isolation") << soft(1, "isolation", "medium") << "softModes[1].isolation"
                                       << "\"none\", \"weak\" or \"strong\"" << 0;
    QTest::newRow("zero overhead factor")
            << soft(0, "overheadFactor", 0) << "softModes[0].overheadFactor"
            << "(0, 1]" << 0;
    QTest::newRow("overhead factor above 1")
            << soft(0, "overheadFactor", 1.5) << "softModes[0].overheadFactor"
            << "(0, 1]" << 0;
}

void TestCatalogue::badModel()
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

void TestCatalogue::loadsAGoodDirectory()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(writeFile(dir.filePath("b.json"), toJson(named("Model-B", {"B"}))));
    QVERIFY(writeFile(dir.filePath("a.json"), toJson(named("Model-A", {"A"}))));
    QVERIFY(writeFile(dir.filePath("README.txt"), "not a model"));

    QList<LoadError> errors{LoadError{"stale", "", 0, "left from before"}};
    const std::optional<Catalogue> c = Catalogue::loadDirectory(dir.path(), &errors);
    QVERIFY(c);
    QVERIFY(errors.isEmpty());
    QCOMPARE(c->names(), (QStringList{"Model-A", "Model-B"})); // file-name order
    QCOMPARE(c->find("b")->name, QStringLiteral("Model-B"));
}

void TestCatalogue::oneBadFileFailsTheWholeDirectory()
{
    QTemporaryDir dir;
    QVERIFY(writeFile(dir.filePath("good.json"), toJson(named("Good"))));
    QVERIFY(writeFile(dir.filePath("bad.json"), mutated([](QJsonObject &o) {
                          setIn(o, "migProfiles", 1, "starts", QJsonArray{0, 6});
                      })));

    QList<LoadError> errors;
    QVERIFY(!Catalogue::loadDirectory(dir.path(), &errors));
    QCOMPARE(errors.size(), 1);
    QCOMPARE(errors[0].file, dir.filePath("bad.json"));
    QCOMPARE(errors[0].field, QStringLiteral("migProfiles[1].starts[1]"));
}

void TestCatalogue::listsTheErrorOfEveryBadFile()
{
    QTemporaryDir dir;
    QVERIFY(writeFile(dir.filePath("1-syntax.json"), "{\n\"name\": \"X\"\n\"aliases\": []\n}"));
    QVERIFY(writeFile(dir.filePath("2-good.json"), toJson(named("Good"))));
    QVERIFY(writeFile(dir.filePath("3-field.json"),
                      mutated([](QJsonObject &o) { o.insert("memoryMiB", 0); })));

    QList<LoadError> errors;
    QVERIFY(!Catalogue::loadDirectory(dir.path(), &errors));
    QCOMPARE(errors.size(), 2);
    QCOMPARE(QFileInfo(errors[0].file).fileName(), QStringLiteral("1-syntax.json"));
    QCOMPARE(errors[0].line, 3);
    QCOMPARE(QFileInfo(errors[1].file).fileName(), QStringLiteral("3-field.json"));
    QCOMPARE(errors[1].field, QStringLiteral("memoryMiB"));
}

void TestCatalogue::duplicateModelNamesAcrossFiles_data()
{
    QTest::addColumn<QJsonObject>("first");
    QTest::addColumn<QJsonObject>("second");
    QTest::addColumn<QString>("field");

    QTest::newRow("same name") << named("Twin") << named("Twin") << "name";
    QTest::newRow("same name, other case") << named("Twin") << named("TWIN") << "name";
    QTest::newRow("alias is another model's name")
            << named("Twin") << named("Other", {"twin"}) << "aliases[0]";
    QTest::newRow("shared alias") << named("One", {"X", "Shared"}) << named("Two", {"shared"})
                                  << "aliases[0]";
}

void TestCatalogue::duplicateModelNamesAcrossFiles()
{
    QFETCH(QJsonObject, first);
    QFETCH(QJsonObject, second);
    QFETCH(QString, field);

    QTemporaryDir dir;
    QVERIFY(writeFile(dir.filePath("a.json"), toJson(first)));
    QVERIFY(writeFile(dir.filePath("b.json"), toJson(second)));
    QList<LoadError> errors;
    QVERIFY(!Catalogue::loadDirectory(dir.path(), &errors));
    QCOMPARE(errors.size(), 1);
    QCOMPARE(errors[0].file, dir.filePath("b.json"));
    QCOMPARE(errors[0].field, field);
    QVERIFY2(errors[0].message.contains("duplicate model name"), qPrintable(errors[0].message));
    QVERIFY2(errors[0].message.contains(dir.filePath("a.json")), qPrintable(errors[0].message));
}

void TestCatalogue::missingOrEmptyDirectory()
{
    QTemporaryDir dir;
    QList<LoadError> errors;
    QVERIFY(!Catalogue::loadDirectory(dir.filePath("nowhere"), &errors));
    QCOMPARE(errors.size(), 1);
    QVERIFY(errors[0].message.contains("no such directory"));

    QVERIFY(!Catalogue::loadDirectory(dir.path(), &errors));
    QCOMPARE(errors.size(), 1);
    QVERIFY(errors[0].message.contains("no *.json"));
}

void TestCatalogue::loadErrorToString_data()
{
    QTest::addColumn<LoadError>("error");
    QTest::addColumn<QString>("text");
    QTest::newRow("everything") << LoadError{"a.json", "migProfiles[1].starts", 0, "bad"}
                                << "a.json: migProfiles[1].starts: bad";
    QTest::newRow("with line") << LoadError{"a.json", "", 7, "JSON syntax error: x"}
                               << "a.json:7: JSON syntax error: x";
    QTest::newRow("no field") << LoadError{"dir", "", 0, "no such directory"}
                              << "dir: no such directory";
}

void TestCatalogue::loadErrorToString()
{
    QFETCH(LoadError, error);
    QFETCH(QString, text);
    QCOMPARE(error.toString(), text);
}

QTEST_GUILESS_MAIN(TestCatalogue)
#include "tst_catalogue.moc"
