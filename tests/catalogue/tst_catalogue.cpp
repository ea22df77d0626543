// SPDX-License-Identifier: GPL-3.0-or-later
// The card catalogue: the shipped model files, and loading directories of them.
#include "cataloguefixture.h"

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
using namespace CatalogueFixture;
using Zhaoxi::Domain::MigProfile;
using Zhaoxi::Domain::PartitionMode;

Q_DECLARE_METATYPE(Zhaoxi::Catalogue::LoadError)

namespace {

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
    QTest::addColumn<int>("maxSmClockMHz");

    const QStringList all = {"whole", "mig", "time-slicing", "mps"};
    const QStringList soft = {"whole", "time-slicing", "mps"};
    QTest::newRow("A100 40GB") << "A100-SXM4-40GB" << quint16(0x20B0) << qint64(40960) << 7 << all
                               << 1410;
    QTest::newRow("A100 80GB") << "A100-SXM4-80GB" << quint16(0x20B2) << qint64(81920) << 7 << all
                               << 1410;
    QTest::newRow("H100") << "H100-SXM5-80GB" << quint16(0x2330) << qint64(81559) << 7 << all
                          << 1980;
    QTest::newRow("H200") << "H200-141GB" << quint16(0x2335) << qint64(143771) << 7 << all << 1980;
    QTest::newRow("H200 NVL") << "H200-NVL-141GB" << quint16(0x233B) << qint64(143771) << 7 << all
                              << 1785;
    QTest::newRow("L40S") << "L40S-48GB" << quint16(0x26B9) << qint64(46068) << 0 << soft << 2520;
    QTest::newRow("L20") << "L20-48GB" << quint16(0x26BA) << qint64(46068) << 0 << soft << 2520;
    QTest::newRow("T4") << "T4-16GB" << quint16(0x1EB8) << qint64(15360) << 0 << soft << 1590;
}

void TestCatalogue::modelFacts()
{
    QFETCH(QString, model);
    QFETCH(quint16, pciDeviceId);
    QFETCH(qint64, memoryMiB);
    QFETCH(int, profiles);
    QFETCH(QStringList, modes);
    QFETCH(int, maxSmClockMHz);

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
    QCOMPARE(m->maxSmClockMHz, maxSmClockMHz);
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
