// SPDX-License-Identifier: GPL-3.0-or-later
// mig-parted files: the YAML subset, import onto catalogue models (placements or why not),
// export and round trips.
#include "core/catalogue/catalogue.h"
#include "core/catalogue/layoutrules.h"
#include "core/catalogue/migparted.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Zhaoxi;
using namespace Zhaoxi::Catalogue;
using Domain::CardModel;
using Domain::MigPlacement;

namespace {

// In the style of the GPU Operator's default MIG configuration: per-card sections selected by
// device-filter, configs that apply to every card, one with index lists, and a few this test
// adds to check refusals.
const QByteArray kOperatorStyle = R"(---
version: v1
mig-configs:
  all-disabled:
    - devices: all
      mig-enabled: false

  all-enabled:
    - devices: all
      mig-enabled: true
      mig-devices: {}

  # A100-40GB only: a profile name other cards lack, no filter
  all-1g.5gb:
    - devices: all
      mig-enabled: true
      mig-devices:
        "1g.5gb": 7

  all-1g.10gb:
    # A100-40GB: the double-memory 1-slice profile, four of them
    - device-filter: ["0x20B010DE", "0x20B110DE"]
      devices: all
      mig-enabled: true
      mig-devices:
        "1g.10gb": 4
    # H100-80GB, A100-80GB
    - device-filter: ["0x233010DE", "0x20B210DE"]
      devices: all
      mig-enabled: true
      mig-devices:
        "1g.10gb": 7

  all-balanced:
    - device-filter: ["0x20B010DE"]   # A100-40GB
      devices: all
      mig-enabled: true
      mig-devices:
        "1g.5gb": 2
        "2g.10gb": 1
        "3g.20gb": 1
    - device-filter: ["0x233010DE", "0x20B210DE"]
      devices: all
      mig-enabled: true
      mig-devices: {"1g.10gb": 2, "2g.20gb": 1, "3g.40gb": 1}
    - device-filter: ["0x233510DE", "0x233B10DE"]  # H200, H200 NVL
      devices: all
      mig-enabled: true
      mig-devices:
        '1g.18gb': 2
        "2g.35gb": 1
        3g.71gb: 1

  h200-only:
  - device-filter: "0x233510DE"
    devices: all
    mig-enabled: true
    mig-devices:
      "7g.141gb": 1

  custom-config:
    - devices: [0, 1, 2, 3]
      mig-enabled: false
    - devices: [4]
      mig-enabled: true
      mig-devices:
        "1g.5gb.me": 1
        "3g.20gb": 1
    - devices: [5]
      mig-enabled: true
      mig-devices:
        "3g.20gb": 3

  over-compute:
    - devices: all
      mig-enabled: true
      mig-devices: {"4g.20gb": 1, "3g.20gb": 1, "1g.5gb": 1}
)";

const QString kTooDeep = QStringLiteral(
        "nesting is too deep: at most 64 levels of sequences and mappings inside each other are "
        "allowed");

// A block mapping `levels` deep, one more space of indentation per level, then `last`.
QByteArray indentedKeys(int levels, const QByteArray &last = "k: 1")
{
    QByteArray out;
    for (int i = 0; i < levels; ++i)
        out += QByteArray(i, ' ') + "k:\n";
    return out + QByteArray(levels, ' ') + last + "\n";
}

QString layoutText(const CardModel &m, const QList<MigPlacement> &l)
{
    QStringList parts;
    for (const MigPlacement &p : l)
        parts << formatPlacement(m, p);
    return parts.join(QLatin1Char(' '));
}

} // namespace

class TestMigParted : public QObject
{
    Q_OBJECT

    Catalogue::Catalogue m_cat = Catalogue::Catalogue::builtIn();

private Q_SLOTS:
    void yamlSubset()
    {
        YamlError e;
        const auto doc = parseYaml(R"(# comment
a: 1   # trailing comment
"b c": "x # not a comment"
d:
- one
- 'it''s'
e: {k: v, "q": [1, 2, {z: null}]}
f:
  g:
    - h: 1
      i: [ ]
)",
                                   &e);
        QVERIFY2(doc, qPrintable(e.toString()));
        QVERIFY(doc->isMapping());
        QCOMPARE(doc->entries.size(), 5);
        QCOMPARE(doc->value("a")->scalar, QStringLiteral("1"));
        QCOMPARE(doc->value("b c")->scalar, QStringLiteral("x # not a comment"));
        QVERIFY(doc->value("b c")->quoted);
        QCOMPARE(doc->value("d")->items.size(), 2);
        QCOMPARE(doc->value("d")->items[1].scalar, QStringLiteral("it's"));
        const YamlNode *q = doc->value("e")->value("q");
        QCOMPARE(q->items.size(), 3);
        QVERIFY(q->items[2].value("z")->isNull());
        const YamlNode &g0 = doc->value("f")->value("g")->items[0];
        QCOMPARE(g0.value("h")->scalar, QStringLiteral("1"));
        QVERIFY(g0.value("i")->isSequence());
        QCOMPARE(g0.line, 10);
    }

    void yamlErrors_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("error");
        QTest::newRow("tab") << QByteArray("a:\n\tb: 1\n")
                             << "line 2: tabs are not allowed in indentation";
        QTest::newRow("bad indentation")
                << QByteArray("a:\n  b: 1\n    c: 2\n") << "line 3: unexpected indentation";
        QTest::newRow("duplicate")
                << QByteArray("a: 1\nb: 2\na: 3\n") << "line 3: duplicate key \"a\"";
        QTest::newRow("unterminated quote")
                << QByteArray("a: \"x\n") << "line 1: unterminated quoted string";
        QTest::newRow("open flow")
                << QByteArray("a: [1, 2\nb: 1\n") << "line 1: \"[\" is not closed on this line";
        QTest::newRow("not a key")
                << QByteArray("a: 1\njust text\n") << "line 2: expected \"key: value\"";
        QTest::newRow("anchor") << QByteArray("a: &x 1\n")
                                << "line 1: anchors and aliases are not supported";
        QTest::newRow("block scalar") << QByteArray("a: |\n  text\n")
                                      << "line 1: block scalars (| and >) are not supported";
        QTest::newRow("two documents") << QByteArray("---\na: 1\n---\nb: 2\n")
                                       << "line 3: only one document per file is supported";
        QTest::newRow("item in mapping")
                << QByteArray("a: 1\n- b\n") << "line 2: a sequence item where a key was expected";
    }
    void yamlErrors()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, error);
        YamlError e;
        QVERIFY(!parseYaml(text, &e));
        QCOMPARE(e.toString(), error);
    }

    void migPartedShapeErrors_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("error");
        QTest::newRow("version") << QByteArray("version: v2\nmig-configs: {}\n")
                                 << "line 1: version: only \"v1\" is supported";
        QTest::newRow("count") << QByteArray(
                "version: v1\nmig-configs:\n  x:\n    - devices: all\n      mig-enabled: true\n"
                "      mig-devices:\n        \"1g.5gb\": many\n")
                               << "line 7: x: mig-devices: count of \"1g.5gb\" must be an integer "
                                  ">= 0";
        QTest::newRow("filter")
                << QByteArray("version: v1\nmig-configs:\n  x:\n    - devices: all\n      "
                              "device-filter: \"0x2330\"\n"
                              "      mig-enabled: false\n")
                << "line 5: x: device-filter: \"0x2330\" is not a PCI id like \"0x233510DE\"";
        QTest::newRow("unknown key") << QByteArray(
                "version: v1\nmig-configs:\n  x:\n    - devices: all\n      mig-enable: true\n")
                                     << "line 5: x: unknown key \"mig-enable\"";
        QTest::newRow("devices") << QByteArray(
                "version: v1\nmig-configs:\n  x:\n    - devices: some\n      mig-enabled: false\n")
                                 << "line 4: x: devices: \"all\" or a list of indexes";
    }
    void migPartedShapeErrors()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, error);
        YamlError e;
        QVERIFY(!readMigParted(text, &e));
        QCOMPARE(e.toString(), error);
    }

    void readsOperatorStyleFile()
    {
        YamlError e;
        const auto f = readMigParted(kOperatorStyle, &e);
        QVERIFY2(f, qPrintable(e.toString()));
        QCOMPARE(f->configs.size(), 8);
        const MigPartedConfig *balanced = f->config("all-balanced");
        QVERIFY(balanced);
        QCOMPARE(balanced->entries.size(), 3);
        QCOMPARE(balanced->entries[2].deviceFilter, (QList<quint32>{0x233510DE, 0x233B10DE}));
        QCOMPARE(balanced->entries[2].migDevices.size(), 3);
        QCOMPARE(f->config("h200-only")->entries[0].deviceFilter, QList<quint32>{0x233510DE});
        QCOMPARE(f->config("custom-config")->entries[0].devices, (QList<int>{0, 1, 2, 3}));
        QVERIFY(f->config("all-enabled")->entries[0].migEnabled);
        QVERIFY(f->config("all-enabled")->entries[0].migDevices.isEmpty());
    }

    void importOntoModels_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("config");
        QTest::addColumn<QStringList>("expected"); // per result: "applies ok layout | reason"
        QTest::newRow("disabled") << "A100-SXM4-40GB"
                                  << "all-disabled" << QStringList{"yes ok off"};
        QTest::newRow("enabled, none") << "A100-SXM4-40GB"
                                       << "all-enabled" << QStringList{"yes ok "};
        QTest::newRow("A100-40GB 1g.10gb")
                << "A100-SXM4-40GB"
                << "all-1g.10gb" << QStringList{"yes ok 1g.10gb@0 1g.10gb@2 1g.10gb@4 1g.10gb@6"};
        QTest::newRow("H100 1g.10gb") << "H100-SXM5-80GB"
                                      << "all-1g.10gb"
                                      << QStringList{"yes ok 1g.10gb@0 1g.10gb@1 1g.10gb@2 "
                                                     "1g.10gb@3 1g.10gb@4 1g.10gb@5 1g.10gb@6"};
        QTest::newRow("A100-40GB balanced")
                << "A100-SXM4-40GB"
                << "all-balanced" << QStringList{"yes ok 2g.10gb@0 1g.5gb@2 1g.5gb@3 3g.20gb@4"};
        QTest::newRow("A100-80GB balanced")
                << "A100-SXM4-80GB"
                << "all-balanced" << QStringList{"yes ok 2g.20gb@0 1g.10gb@2 1g.10gb@3 3g.40gb@4"};
        QTest::newRow("H200 NVL balanced (0x233B)")
                << "H200-NVL-141GB"
                << "all-balanced" << QStringList{"yes ok 2g.35gb@0 1g.18gb@2 1g.18gb@3 3g.71gb@4"};
        QTest::newRow("H200 whole card") << "H200-141GB"
                                         << "h200-only" << QStringList{"yes ok 7g.141gb@0"};
        QTest::newRow("filter for other cards")
                << "H200-NVL-141GB"
                << "h200-only"
                << QStringList{"no | its device-filter selects other cards (0x233510DE); "
                               "H200-NVL-141GB is 0x233B10DE"};
        QTest::newRow("other profile names")
                << "H100-SXM5-80GB"
                << "all-1g.5gb"
                << QStringList{"no | \"1g.5gb\" is not a profile of H100-SXM5-80GB"};
        QTest::newRow("index lists, +me spelt .me, too many 3g")
                << "A100-SXM4-40GB"
                << "custom-config"
                << QStringList{
                           "yes ok off",
                           "yes ok 3g.20gb@0 1g.5gb+me@4",
                           "yes fail | device(s) 5 (3 × 3g.20gb) cannot be placed on "
                           "A100-SXM4-40GB: 3 × 3g.20gb: 3 "
                           "is more than the 2 instance(s) of 3g.20gb one A100-SXM4-40GB holds"};
        QTest::newRow("over compute")
                << "A100-SXM4-40GB"
                << "over-compute"
                << QStringList{"yes fail | all devices (1 × 4g.20gb, 1 × 3g.20gb, 1 × 1g.5gb) "
                               "cannot be placed on "
                               "A100-SXM4-40GB: they need 8 compute slices; A100-SXM4-40GB has 7"};
        QTest::newRow("no MIG on the card")
                << "L40S-48GB"
                << "all-balanced"
                << QStringList{"no | its device-filter selects other cards (0x20B010DE, "
                               "0x233010DE, 0x20B210DE, 0x233510DE, 0x233B10DE); "
                               "L40S-48GB is 0x26B910DE"};
        QTest::newRow("whole card without MIG") << "L40S-48GB"
                                                << "all-disabled" << QStringList{"yes ok off"};
    }
    void importOntoModels()
    {
        QFETCH(QString, model);
        QFETCH(QString, config);
        QFETCH(QStringList, expected);
        const CardModel &m = *m_cat.find(model);
        YamlError e;
        const auto f = readMigParted(kOperatorStyle, &e);
        QVERIFY2(f, qPrintable(e.toString()));
        const QList<MigPartedPlacement> got = importMigParted(*f, m, config);
        QStringList text;
        for (const MigPartedPlacement &r : got) {
            if (!r.applies)
                text << QStringLiteral("no | ") + r.reason;
            else if (!r.ok)
                text << QStringLiteral("yes fail | ") + r.reason;
            else
                text << QStringLiteral("yes ok ")
                                + (r.migEnabled ? layoutText(m, r.layout) : QStringLiteral("off"));
            if (r.ok)
                QVERIFY(validateLayout(m, r.layout).isValid());
        }
        QCOMPARE(text.size(), expected.size());
        for (int i = 0; i < text.size(); ++i) {
            if (expected[i].endsWith(QLatin1String("... ")))
                QVERIFY2(text[i].startsWith(expected[i].chopped(4)), qPrintable(text[i]));
            else
                QCOMPARE(text[i], expected[i]);
        }
    }

    void placementsNoArrangementHolds()
    {
        // A model whose allowed starts cannot hold counts that fit the slice totals.
        CardModel m;
        m.name = QStringLiteral("Synthetic");
        m.migProfiles << Domain::MigProfile{"2g", 1, 2, 2, 100, 1, {1}, 2, false}
                      << Domain::MigProfile{"1g", 2, 1, 1, 50, 2, {1, 2}, 1, false};
        QString why;
        QVERIFY(!placeCounts(m, {{0, 1}, {1, 1}}, &why));
        QVERIFY2(why.startsWith(QLatin1String("no arrangement of the allowed starts")),
                 qPrintable(why));
        QVERIFY(placeCounts(m, {{1, 2}}, &why));
        const CardModel &a100 = *m_cat.find(QStringLiteral("A100-SXM4-40GB"));
        QVERIFY(!placeCounts(
                a100,
                {{a100.profileIndex("1g.5gb+me"), 1}, {a100.profileIndex("1g.5gb+me"), 1}},
                &why));
        QVERIFY2(why.contains(QLatin1String("more than the 1 instance")), qPrintable(why));
    }

    void exportThenImportKeepsTheCounts()
    {
        const int h200 = m_cat.indexOf(QStringLiteral("H200-141GB"));
        const int l40s = m_cat.indexOf(QStringLiteral("L40S-48GB"));
        const CardModel &m = m_cat.models()[h200];
        auto p = [&](const char *profile, int start) {
            return MigPlacement{m.profileIndex(profile), start};
        };
        const QList<MigPartedCardLayout> cards{
                {h200, false, {}},
                {h200, true, {p("3g.71gb", 0), p("3g.71gb", 4)}},
                {h200, true, {p("3g.71gb", 4), p("2g.35gb", 0), p("1g.18gb", 2), p("1g.18gb", 3)}},
                {h200, true, {p("3g.71gb", 0), p("3g.71gb", 4)}},
                {l40s, false, {}},
                {h200, true, {}},
        };
        MigPartedFile file;
        file.configs << exportHost(m_cat, QStringLiteral("dgx-h200"), cards);
        const QByteArray yaml = writeMigParted(file, {QStringLiteral("written by a test")});
        QVERIFY(yaml.startsWith("# written by a test\nversion: v1\nmig-configs:\n  dgx-h200:\n"));
        QVERIFY2(yaml.contains("    - device-filter: \"0x233510DE\"\n      devices: [1, 3]\n      "
                               "mig-enabled: true\n"
                               "      mig-devices:\n        \"3g.71gb\": 2\n"),
                 yaml.constData());
        QVERIFY2(yaml.contains(
                         "      devices: [5]\n      mig-enabled: true\n      mig-devices: {}\n"),
                 yaml.constData());

        YamlError e;
        const auto back = readMigParted(yaml, &e);
        QVERIFY2(back, qPrintable(e.toString()));
        QCOMPARE(back->configs.size(), 1);
        QCOMPARE(back->configs[0].entries.size(), 5);
        for (int i = 0; i < 5; ++i) {
            MigPartedEntry a = back->configs[0].entries[i];
            MigPartedEntry b = file.configs[0].entries[i];
            a.line = b.line = 0;
            QCOMPARE(a, b);
        }
        // Import gives back layouts with the same counts (at legal starts).
        const QList<MigPartedPlacement> imported
                = importMigParted(*back, m, QStringLiteral("dgx-h200"));
        QCOMPARE(imported.size(), 4); // the L40S entry's filter is for other cards
        QCOMPARE(imported[1].devices, (QList<int>{1, 3}));
        QCOMPARE(layoutText(m, imported[1].layout), QStringLiteral("3g.71gb@0 3g.71gb@4"));
        QCOMPARE(layoutText(m, imported[2].layout),
                 QStringLiteral("2g.35gb@0 1g.18gb@2 1g.18gb@3 3g.71gb@4"));
        QVERIFY(imported[3].migEnabled && imported[3].layout.isEmpty());
        QVERIFY(!imported[0].migEnabled);
        // The whole host in one entry becomes "devices: all".
        MigPartedFile all;
        all.configs << exportHost(
                m_cat,
                QStringLiteral("uniform"),
                {{h200, true, {p("7g.141gb", 0)}}, {h200, true, {p("7g.141gb", 0)}}});
        QVERIFY(writeMigParted(all).contains("      devices: all\n"));
    }
    // Fuzzing overflowed the stack with about 15,000 levels: every recursive path of the
    // reader (flow, JSON, block indentation, "- - -" items) stops at kMaxYamlNesting with the
    // line and column of the first collection too deep.
    void nestingTooDeepIsRefused_data()
    {
        QCOMPARE(kMaxYamlNesting, 64);
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("error");
        constexpr int deep = 15000;
        // The root mapping is level 1, the first "[" (column 14) level 2, so level 65 is the
        // 64th "[".
        QTest::newRow("flow sequence [[[...]]]")
                << "version: v1\nmig-configs: " + QByteArray(deep, '[') + QByteArray(deep, ']')
                           + "\n"
                << "line 2, column 77: " + kTooDeep;
        // JSON is flow YAML: {"a": {"a": ...}}, each level 6 columns on from column 34.
        QTest::newRow("JSON object")
                << R"({"version": "v1", "mig-configs": )" + QByteArray(R"({"a": )").repeated(deep)
                           + "1" + QByteArray(deep + 1, '}') + "\n"
                << "line 1, column 412: " + kTooDeep;
        QTest::newRow("JSON array of objects")
                << R"({"version": "v1", "mig-configs": {"x": )"
                           + QByteArray(R"([{"a": )").repeated(deep) + "1"
                           + QByteArray("}]").repeated(deep) + "}}\n"
                << "line 1, column 257: " + kTooDeep; // the 32nd "[" of [{"a": ...}]
        QTest::newRow("block mappings by indentation")
                << indentedKeys(1000) << "line 65, column 65: " + kTooDeep;
        QByteArray dashes;
        for (int i = 0; i < 1000; ++i)
            dashes += QByteArray(2 * i, ' ') + "-\n";
        QTest::newRow("block sequences by indentation")
                << dashes << "line 65, column 129: " + kTooDeep;
        QTest::newRow("block sequence items on one line \"- - - x\"")
                << QByteArray("- ").repeated(deep) + "x\n"
                << "line 1, column 129: " + kTooDeep;
        // Block and flow levels count together: 61 block mappings, then "[" at column 64.
        QTest::newRow("block then flow")
                << indentedKeys(60, "k: [[[[[1]]]]]") << "line 61, column 67: " + kTooDeep;
    }
    void nestingTooDeepIsRefused()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, error);
        YamlError e;
        QVERIFY(!readMigParted(text, &e));
        QCOMPARE(e.toString(), error);
        QVERIFY(!parseYaml(text, &e));
        QCOMPARE(e.toString(), error);
    }

    void nestingAtTheLimitIsRead()
    {
        YamlError e;
        const auto flow = parseYaml(QByteArray(64, '[') + "1" + QByteArray(64, ']'), &e);
        QVERIFY2(flow, qPrintable(e.toString()));
        const YamlNode *n = &*flow;
        for (int level = 0; level < 64; ++level) {
            QVERIFY(n->isSequence());
            QCOMPARE(n->items.size(), 1);
            n = &n->items[0];
        }
        QCOMPARE(n->scalar, QStringLiteral("1"));

        const auto mixed = parseYaml(indentedKeys(60, "k: [[[1]]]"), &e);
        QVERIFY2(mixed, qPrintable(e.toString()));
        n = &*mixed;
        for (int level = 0; level < 61; ++level)
            n = n->value(QStringLiteral("k"));
        for (int level = 0; level < 3; ++level)
            n = &n->items[0];
        QCOMPARE(n->scalar, QStringLiteral("1"));
        QVERIFY(!parseYaml(indentedKeys(60, "k: [[[[1]]]]"), &e));
    }

    // The file's size is checked before it is read (an 86 MB file once took far too long).
    void refusesAFileOverTheSizeLimit()
    {
        QCOMPARE(kMaxMigPartedFileSize, qint64(16) * 1024 * 1024);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("huge.yaml"));
        // A valid file padded with comments to one byte over the limit.
        QByteArray text = "version: v1\nmig-configs:\n  x:\n    - devices: all\n"
                          "      mig-enabled: false\n";
        const QByteArray padding = "# " + QByteArray(77, '.') + "\n";
        while (text.size() <= kMaxMigPartedFileSize)
            text += padding;
        text.truncate(kMaxMigPartedFileSize + 1);
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QCOMPARE(f.write(text), text.size());
        }
        YamlError e;
        QVERIFY(!readMigPartedFile(path, &e));
        QCOMPARE(e.file, path);
        QCOMPARE(e.toString(),
                 path
                         + QStringLiteral(": the file is 16777217 bytes; a mig-parted file may "
                                          "be at most 16777216 bytes (16 MiB)"));
        QVERIFY(!readMigParted(text, &e));
        QCOMPARE(e.toString(),
                 QStringLiteral("the text is 16777217 bytes; a mig-parted file may be at most "
                                "16777216 bytes (16 MiB)"));

        // At the limit exactly it is read (the cut falls inside a comment).
        QVERIFY(QFile::resize(path, kMaxMigPartedFileSize));
        const auto atLimit = readMigPartedFile(path, &e);
        QVERIFY2(atLimit, qPrintable(e.toString()));
        QCOMPARE(atLimit->configs.size(), 1);

        // A device without a size is read only up to the limit.
        QVERIFY(!readMigPartedFile(QStringLiteral("/dev/zero"), &e));
        QCOMPARE(e.toString(),
                 QStringLiteral("/dev/zero: the file is more than 16777216 bytes; a mig-parted "
                                "file may be at most 16777216 bytes (16 MiB)"));
    }

    void fileErrorsNameTheFile()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        YamlError e;
        const QString missing = dir.filePath(QStringLiteral("missing.yaml"));
        QVERIFY(!readMigPartedFile(missing, &e));
        QVERIFY2(e.toString().startsWith(missing + QStringLiteral(": cannot read the file: ")),
                 qPrintable(e.toString()));

        const QString deep = dir.filePath(QStringLiteral("deep.yaml"));
        QFile f(deep);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("version: v1\nmig-configs: " + QByteArray(15000, '[') + QByteArray(15000, ']'));
        f.close();
        QVERIFY(!readMigPartedFile(deep, &e));
        QCOMPARE(e.toString(), deep + QStringLiteral(":2:77: ") + kTooDeep);

        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write("version: v1\nmig-configs:\n  x:\n    - devices: [0, 1\n");
        f.close();
        QVERIFY(!readMigPartedFile(deep, &e));
        QCOMPARE(e.toString(), deep + QStringLiteral(":4: \"[\" is not closed on this line"));

        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(kOperatorStyle);
        f.close();
        const auto ok = readMigPartedFile(deep, &e);
        QVERIFY2(ok, qPrintable(e.toString()));
        QCOMPARE(ok->configs.size(), 8);
    }

    // Inputs near the limit are read in time linear in their size: each row was quadratic
    // once (a duplicate check per item or key, a rescan of the line per tab).
    void readsLargeAllowedInputs_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("configs");
        QTest::addColumn<int>("devices");    // in the last config's first entry
        QTest::addColumn<int>("migDevices"); // in the last config's first entry
        const QByteArray head = "version: v1\nmig-configs:\n";
        constexpr int many = 1'200'000;
        QByteArray list;
        for (int i = 0; i < many; ++i)
            list += (i ? ", " : "") + QByteArray::number(i);
        QTest::newRow("long flat device list (~10 MB)")
                << head + "  x:\n    - devices: [" + list + "]\n      mig-enabled: false\n"
                << 1 << many << 0;
        QByteArray configs = head;
        constexpr int manyConfigs = 200'000;
        for (int i = 0; i < manyConfigs; ++i)
            configs += "  c" + QByteArray::number(i)
                       + ":\n    - devices: all\n      mig-enabled: false\n";
        QTest::newRow("many configs (~11 MB)") << configs << manyConfigs << 0 << 0;
        QByteArray counts;
        constexpr int manyProfiles = 700'000;
        for (int i = 0; i < manyProfiles; ++i)
            counts += (i ? ", \"p" : "\"p") + QByteArray::number(i) + "\": 1";
        QTest::newRow("wide flow mapping (~10 MB)")
                << head + "  x:\n    - devices: [0]\n      mig-enabled: true\n      mig-devices: {"
                           + counts + "}\n"
                << 1 << 1 << manyProfiles;
        QTest::newRow("a blank line of tabs (4 MB)")
                << head + QByteArray(4'000'000, '\t')
                           + "\n  x:\n    - devices: all\n      mig-enabled: false\n"
                << 1 << 0 << 0;
    }
    void readsLargeAllowedInputs()
    {
        QFETCH(QByteArray, text);
        QFETCH(int, configs);
        QFETCH(int, devices);
        QFETCH(int, migDevices);
        QVERIFY(text.size() <= kMaxMigPartedFileSize);
        YamlError e;
        const auto f = readMigParted(text, &e);
        QVERIFY2(f, qPrintable(e.toString()));
        QCOMPARE(f->configs.size(), configs);
        const MigPartedEntry &entry = f->configs.last().entries.first();
        QCOMPARE(entry.devices.size(), devices);
        if (devices > 0)
            QCOMPARE(entry.devices.last(), devices - 1);
        QCOMPARE(entry.migDevices.size(), migDevices);
        if (migDevices > 0)
            QCOMPARE(entry.migDevices.last(),
                     qMakePair(QStringLiteral("p%1").arg(migDevices - 1), 1));
    }
};

QTEST_GUILESS_MAIN(TestMigParted)
#include "tst_migparted.moc"
