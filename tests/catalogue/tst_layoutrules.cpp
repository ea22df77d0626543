// SPDX-License-Identifier: GPL-3.0-or-later
// MIG layout rules, checked against the shipped catalogue and the NVIDIA MIG user guide.
#include "core/catalogue/catalogue.h"
#include "core/catalogue/layoutrules.h"

#include <QSet>
#include <QTest>

#include <algorithm>

using namespace Zhaoxi::Catalogue;
using Zhaoxi::Domain::MigProfile;

Q_DECLARE_METATYPE(Zhaoxi::Catalogue::LayoutProblem)

namespace QTest {
template<>
char *toString(const Zhaoxi::Catalogue::LayoutProblem &problem)
{
    return qstrdup(Zhaoxi::Catalogue::toString(problem));
}
} // namespace QTest

namespace {

using Layout = QList<MigPlacement>;

const Catalogue &catalogue()
{
    static const Catalogue c = Catalogue::builtIn();
    return c;
}

const CardModel &model(const QString &name)
{
    const CardModel *m = catalogue().find(name);
    if (!m)
        qFatal("model %s is not in the built-in catalogue", qPrintable(name));
    return *m;
}

// "3g.40gb@0 1g.10gb@4" -> placements; the test's own parser, so rows read like the CLI.
Layout parse(const CardModel &m, const QString &text)
{
    Layout layout;
    for (const QString &part : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const qsizetype at = part.lastIndexOf(QLatin1Char('@'));
        const QString name = part.left(at);
        int profile = m.profileIndex(name);
        if (profile < 0 && name.startsWith(QLatin1Char('#')))
            profile = name.mid(1).toInt();
        else if (profile < 0)
            qFatal("no profile %s in %s", qPrintable(name), qPrintable(m.name));
        layout.append(MigPlacement{profile, part.mid(at + 1).toInt()});
    }
    return layout;
}

QString format(const CardModel &m, const Layout &layout)
{
    QStringList parts;
    for (const MigPlacement &p : layout)
        parts << formatPlacement(m, p);
    return parts.join(QLatin1Char(' '));
}

MigProfile profile(const char *name,
                   int compute,
                   int span,
                   int maxInstances,
                   QList<int> starts,
                   bool me = false)
{
    MigProfile p;
    p.name = QString::fromLatin1(name);
    p.profileId = 100 + compute * 10 + span;
    p.computeSlices = compute;
    p.memorySlices = span;
    p.span = span;
    p.memoryMiB = 1024 * span;
    p.maxInstances = maxInstances;
    p.starts = starts;
    p.mediaExtensions = me;
    return p;
}

// Small made-up models for the limits the real tables never reach on their own.
CardModel synthetic()
{
    CardModel m;
    m.name = QStringLiteral("Synthetic");
    m.memoryMiB = 8192;
    m.migComputeSlices = 3;
    m.migMemorySlices = 8;
    m.migProfiles = {
            profile("1g.1gb", 1, 1, 2, {0, 1, 2, 3, 4, 5, 6, 7}),
            profile("2c.2gb", 2, 2, 4, {0, 2, 4, 6}),
            profile("1g.1gb+me", 1, 1, 1, {0, 1, 2, 3, 4, 5, 6, 7}, true),
            profile("2c.2gb+me", 2, 2, 1, {0, 2, 4, 6}, true),
    };
    return m;
}

// The 1g profile with two memory slots, per model.
QString doubleMemoryOneG(const QString &modelName)
{
    if (modelName == QLatin1String("A100-SXM4-40GB"))
        return QStringLiteral("1g.10gb");
    if (modelName.startsWith(QLatin1String("H200")))
        return QStringLiteral("1g.35gb");
    return QStringLiteral("1g.20gb"); // A100 80GB, H100
}

// The MIG user guide's placement table, written out independently of the catalogue files.
QList<int> guideStarts(const QString &modelName, const QString &profileName)
{
    if (profileName.endsWith(QLatin1String("+me")))
        return {0, 1, 2, 3, 4, 5, 6};
    if (profileName == doubleMemoryOneG(modelName))
        return {0, 2, 4, 6};
    if (profileName.startsWith(QLatin1String("1g.")))
        return {0, 1, 2, 3, 4, 5, 6};
    if (profileName.startsWith(QLatin1String("2g.")))
        return {0, 2, 4};
    if (profileName.startsWith(QLatin1String("3g.")))
        return {0, 4};
    return {0}; // 4g, 7g
}

const QStringList kMigModels
        = {"A100-SXM4-40GB", "A100-SXM4-80GB", "H100-SXM5-80GB", "H200-141GB", "H200-NVL-141GB"};

bool placementLess(MigPlacement a, MigPlacement b)
{
    return a.start != b.start ? a.start < b.start : a.profile < b.profile;
}

} // namespace

class TestLayoutRules : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void placementTable_data();
    void placementTable();
    void h100ThreeGAtZeroLeavesExactlyThreeOneG();
    void a100HasTheNineteenConfigurationsOfTheGuide();
    void maximalLayoutsOfEveryModelAreValidMaximalAndOrdered_data();
    void maximalLayoutsOfEveryModelAreValidMaximalAndOrdered();
    void restrictedProfileSets_data();
    void restrictedProfileSets();
    void verdicts_data();
    void verdicts();
    void describe_data();
    void describe();
    void canAddAgreesWithValidateLayout_data();
    void canAddAgreesWithValidateLayout();
    void occupancyMasks_data();
    void occupancyMasks();
    void modelWithoutMig();
    void stepsKeepWhatStaysAndCreateLargerFirst();
};

void TestLayoutRules::placementTable_data()
{
    QTest::addColumn<QString>("modelName");
    QTest::addColumn<QString>("profileName");
    QTest::addColumn<int>("start");
    QTest::addColumn<LayoutProblem>("expected");

    for (const QString &name : kMigModels) {
        const CardModel &m = model(name);
        QCOMPARE(m.migProfiles.size(), 7);
        for (const MigProfile &p : m.migProfiles) {
            const QList<int> allowed = guideStarts(name, p.name);
            for (int start = 0; start < 8; ++start) {
                QTest::addRow("%s %s@%d", qPrintable(name), qPrintable(p.name), start)
                        << name << p.name << start
                        << (allowed.contains(start) ? LayoutProblem::None
                                                    : LayoutProblem::StartNotAllowed);
            }
        }
    }
}

void TestLayoutRules::placementTable()
{
    QFETCH(QString, modelName);
    QFETCH(QString, profileName);
    QFETCH(int, start);
    QFETCH(LayoutProblem, expected);

    const CardModel &m = model(modelName);
    const MigPlacement p{m.profileIndex(profileName), start};
    const LayoutVerdict v = validateLayout(m, {p});
    QCOMPARE(v.problem, expected);
    QCOMPARE(canAdd(m, {}, p).problem, expected);
    if (expected != LayoutProblem::None) {
        QCOMPARE(v.index, 0);
        QVERIFY(v.describe(m, {p}).contains(profileName + QLatin1Char('@')
                                            + QString::number(start)));
    }
}

void TestLayoutRules::h100ThreeGAtZeroLeavesExactlyThreeOneG()
{
    const CardModel &m = model("H100-SXM5-80GB");
    const int oneG = m.profileIndex("1g.10gb");
    Layout layout = parse(m, "3g.40gb@0");
    QVERIFY(validateLayout(m, layout).isValid());
    QCOMPARE(occupancyMask(m, layout), quint32(0x0F));

    QList<int> room;
    for (int s = 0; s < 8; ++s) {
        if (canAdd(m, layout, MigPlacement{oneG, s}).isValid())
            room << s;
    }
    QCOMPARE(room, (QList<int>{4, 5, 6}));

    for (int expectedStart : {4, 5, 6}) {
        const int s = firstFreeStart(m, layout, oneG);
        QCOMPARE(s, expectedStart);
        layout.append(MigPlacement{oneG, s});
    }
    QCOMPARE(firstFreeStart(m, layout, oneG), -1);
    QVERIFY(validateLayout(m, layout).isValid());
    QCOMPARE(occupancyMask(m, layout), quint32(0x7F));
    QCOMPARE(format(m, layout), QStringLiteral("3g.40gb@0 1g.10gb@4 1g.10gb@5 1g.10gb@6"));
}

void TestLayoutRules::a100HasTheNineteenConfigurationsOfTheGuide()
{
    const CardModel &m = model("A100-SXM4-40GB");
    QList<int> basic;
    for (const char *name : {"1g.5gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"})
        basic << m.profileIndex(name);
    const QList<Layout> layouts = enumerateMaximalLayouts(m, basic);

    // The guide's A100 figure: the left half [0, 4) holds one of six fillings, the right half
    // [4, 8) one of three, or 7g takes the whole card.
    const QStringList left = {"4g.20gb@0",
                              "3g.20gb@0",
                              "2g.10gb@0 2g.10gb@2",
                              "2g.10gb@0 1g.5gb@2 1g.5gb@3",
                              "1g.5gb@0 1g.5gb@1 2g.10gb@2",
                              "1g.5gb@0 1g.5gb@1 1g.5gb@2 1g.5gb@3"};
    const QStringList right = {"3g.20gb@4", "2g.10gb@4 1g.5gb@6", "1g.5gb@4 1g.5gb@5 1g.5gb@6"};
    QSet<QString> expected{QStringLiteral("7g.40gb@0")};
    for (const QString &l : left) {
        for (const QString &r : right)
            expected.insert(l + QLatin1Char(' ') + r);
    }
    QCOMPARE(expected.size(), 19);

    QSet<QString> got;
    for (const Layout &layout : layouts)
        got.insert(format(m, layout));
    QCOMPARE(layouts.size(), 19);
    QCOMPARE(got, expected);
}

void TestLayoutRules::maximalLayoutsOfEveryModelAreValidMaximalAndOrdered_data()
{
    QTest::addColumn<QString>("modelName");
    for (const QString &name : kMigModels)
        QTest::newRow(qPrintable(name)) << name;
}

void TestLayoutRules::maximalLayoutsOfEveryModelAreValidMaximalAndOrdered()
{
    QFETCH(QString, modelName);
    const CardModel &m = model(modelName);
    const QList<Layout> layouts = enumerateMaximalLayouts(m);
    QVERIFY(!layouts.isEmpty());
    QSet<QString> seen;
    for (qsizetype i = 0; i < layouts.size(); ++i) {
        const Layout &layout = layouts[i];
        const QString text = format(m, layout);
        QVERIFY2(validateLayout(m, layout).isValid(), qPrintable(text));
        QVERIFY2(std::is_sorted(layout.cbegin(), layout.cend(), placementLess), qPrintable(text));
        for (int p = 0; p < m.migProfiles.size(); ++p) {
            QVERIFY2(firstFreeStart(m, layout, p) < 0,
                     qPrintable(text + " still has room for " + m.migProfiles[p].name));
        }
        QVERIFY2(!seen.contains(text), qPrintable(text));
        seen.insert(text);
        if (i > 0) {
            const Layout &prev = layouts[i - 1];
            QVERIFY(std::lexicographical_compare(
                    prev.cbegin(), prev.cend(), layout.cbegin(), layout.cend(), placementLess));
        }
    }
    // Whatever else, the single full-card instance and seven 1g instances are among them.
    QVERIFY(seen.contains(m.migProfiles[6].name + "@0"));
}

void TestLayoutRules::restrictedProfileSets_data()
{
    QTest::addColumn<QStringList>("profiles");
    QTest::addColumn<QStringList>("expected");

    QTest::newRow("7g only") << QStringList{"7g.80gb"} << QStringList{"7g.80gb@0"};
    QTest::newRow("3g only") << QStringList{"3g.40gb"} << QStringList{"3g.40gb@0 3g.40gb@4"};
    QTest::newRow("4g and 1g") << QStringList{"4g.40gb", "1g.10gb"}
                               << QStringList{"1g.10gb@0 1g.10gb@1 1g.10gb@2 1g.10gb@3 1g.10gb@4 "
                                              "1g.10gb@5 1g.10gb@6",
                                              "4g.40gb@0 1g.10gb@4 1g.10gb@5 1g.10gb@6"};
    QTest::newRow("+me alone") << QStringList{"1g.10gb+me"}
                               << QStringList{"1g.10gb+me@0",
                                              "1g.10gb+me@1",
                                              "1g.10gb+me@2",
                                              "1g.10gb+me@3",
                                              "1g.10gb+me@4",
                                              "1g.10gb+me@5",
                                              "1g.10gb+me@6"};
    QTest::newRow("double-memory 1g")
            << QStringList{"1g.20gb"} << QStringList{"1g.20gb@0 1g.20gb@2 1g.20gb@4 1g.20gb@6"};
}

void TestLayoutRules::restrictedProfileSets()
{
    QFETCH(QStringList, profiles);
    QFETCH(QStringList, expected);
    const CardModel &m = model("H100-SXM5-80GB");
    QList<int> allowed{99, -1}; // indexes the model lacks are ignored
    for (const QString &p : profiles)
        allowed << m.profileIndex(p);
    QStringList got;
    for (const Layout &layout : enumerateMaximalLayouts(m, allowed))
        got << format(m, layout);
    QCOMPARE(got, expected);
}

void TestLayoutRules::verdicts_data()
{
    QTest::addColumn<QString>("modelName"); // "Synthetic": the made-up model
    QTest::addColumn<QString>("layout");
    QTest::addColumn<LayoutProblem>("problem");
    QTest::addColumn<int>("index");
    QTest::addColumn<int>("other");
    QTest::addColumn<int>("limit");

    const QString a100 = "A100-SXM4-40GB";
    const QString h100 = "H100-SXM5-80GB";
    QTest::newRow("empty") << a100 << "" << LayoutProblem::None << -1 << -1 << 0;
    QTest::newRow("full 2+2+2+1") << a100 << "2g.10gb@0 2g.10gb@2 2g.10gb@4 1g.5gb@6"
                                  << LayoutProblem::None << -1 << -1 << 0;
    QTest::newRow("order does not matter")
            << h100 << "1g.10gb@6 3g.40gb@0 2g.20gb@4" << LayoutProblem::None << -1 << -1 << 0;
    QTest::newRow("+me with plain 1g")
            << h100 << "1g.10gb+me@0 1g.10gb@1 1g.10gb@2" << LayoutProblem::None << -1 << -1 << 0;

    // overlaps name the earliest partition in the way
    QTest::newRow("2g inside 3g") << h100 << "3g.40gb@0 2g.20gb@2" << LayoutProblem::Overlap << 1
                                  << 0 << 0;
    QTest::newRow("1g inside 7g") << h100 << "7g.80gb@0 1g.10gb@3" << LayoutProblem::Overlap << 1
                                  << 0 << 0;
    QTest::newRow("4g over two 1g") << a100 << "1g.5gb@5 1g.5gb@0 1g.5gb@1 4g.20gb@0"
                                    << LayoutProblem::Overlap << 3 << 1 << 0;
    QTest::newRow("3g@4 over 2g and 1g")
            << a100 << "2g.10gb@4 1g.5gb@6 3g.20gb@4" << LayoutProblem::Overlap << 2 << 0 << 0;
    QTest::newRow("same slot twice")
            << a100 << "1g.5gb@3 1g.5gb@3" << LayoutProblem::Overlap << 1 << 0 << 0;
    QTest::newRow("double-memory 1g over a 1g")
            << a100 << "1g.5gb@1 1g.10gb@0" << LayoutProblem::Overlap << 1 << 0 << 0;

    QTest::newRow("start not allowed")
            << a100 << "1g.5gb@0 3g.20gb@2" << LayoutProblem::StartNotAllowed << 1 << -1 << 0;
    QTest::newRow("start past the axis")
            << a100 << "1g.5gb@9" << LayoutProblem::StartNotAllowed << 0 << -1 << 0;
    QTest::newRow("negative start")
            << a100 << "1g.5gb@-1" << LayoutProblem::StartNotAllowed << 0 << -1 << 0;
    QTest::newRow("start checked before overlap")
            << a100 << "7g.40gb@0 3g.20gb@2" << LayoutProblem::StartNotAllowed << 1 << -1 << 0;

    QTest::newRow("second +me") << a100 << "1g.5gb+me@0 1g.5gb@1 1g.5gb+me@3"
                                << LayoutProblem::MediaExtensionsTaken << 2 << 0 << 0;
    QTest::newRow("overlap checked before +me")
            << a100 << "1g.5gb+me@0 1g.5gb+me@0" << LayoutProblem::Overlap << 1 << 0 << 0;
    QTest::newRow("+me across profiles")
            << "Synthetic"
            << "2c.2gb+me@0 1g.1gb+me@4" << LayoutProblem::MediaExtensionsTaken << 1 << 0 << 0;

    QTest::newRow("instance limit")
            << "Synthetic"
            << "1g.1gb@0 1g.1gb@1 1g.1gb@2" << LayoutProblem::InstanceLimit << 2 << -1 << 2;
    QTest::newRow("compute exhausted")
            << "Synthetic"
            << "2c.2gb@0 2c.2gb@2" << LayoutProblem::ComputeExhausted << 1 << -1 << 3;

    QTest::newRow("unknown profile")
            << a100 << "1g.5gb@0 #7@1" << LayoutProblem::UnknownProfile << 1 << -1 << 0;
    QTest::newRow("negative profile")
            << a100 << "#-1@0" << LayoutProblem::UnknownProfile << 0 << -1 << 0;
    QTest::newRow("not MIG capable") << "L40S-48GB"
                                     << "#0@0" << LayoutProblem::NotMigCapable << 0 << -1 << 0;
}

void TestLayoutRules::verdicts()
{
    QFETCH(QString, modelName);
    QFETCH(QString, layout);
    QFETCH(LayoutProblem, problem);
    QFETCH(int, index);
    QFETCH(int, other);
    QFETCH(int, limit);

    const CardModel m = modelName == QLatin1String("Synthetic") ? synthetic() : model(modelName);
    const Layout l = parse(m, layout);
    const LayoutVerdict v = validateLayout(m, l);
    QCOMPARE(v.problem, problem);
    QCOMPARE(v.index, index);
    QCOMPARE(v.other, other);
    QCOMPARE(v.limit, limit);
    QCOMPARE(v.isValid(), problem == LayoutProblem::None);
    QVERIFY(!v.describe(m, l).isEmpty());

    // The offending placement, offered to the valid prefix before it, gets the same verdict.
    if (!v.isValid()) {
        const Layout prefix = l.mid(0, index);
        const LayoutVerdict added = canAdd(m, prefix, l[index]);
        QCOMPARE(added.problem, v.problem);
        QCOMPARE(added.index, v.index);
        QCOMPARE(added.other, v.other);
        QCOMPARE(added.limit, v.limit);
    }
}

void TestLayoutRules::describe_data()
{
    QTest::addColumn<QString>("modelName");
    QTest::addColumn<QString>("layout");
    QTest::addColumn<QString>("sentence");

    QTest::newRow("valid") << "H100-SXM5-80GB"
                           << "3g.40gb@0"
                           << "The layout is valid.";
    QTest::newRow("start")
            << "H100-SXM5-80GB"
            << "3g.40gb@2"
            << "3g.40gb@2 is not an allowed placement: 3g.40gb may start only at slots 0, 4.";
    QTest::newRow("start, one slot")
            << "H100-SXM5-80GB"
            << "7g.80gb@1"
            << "7g.80gb@1 is not an allowed placement: 7g.80gb may start only at slot 0.";
    QTest::newRow("overlap") << "H100-SXM5-80GB"
                             << "3g.40gb@0 2g.20gb@2"
                             << "2g.20gb@2 overlaps 3g.40gb@0 on memory slots 2, 3.";
    QTest::newRow("overlap, one slot") << "H100-SXM5-80GB"
                                       << "1g.10gb@3 4g.40gb@0"
                                       << "4g.40gb@0 overlaps 1g.10gb@3 on memory slot 3.";
    QTest::newRow("+me")
            << "A100-SXM4-40GB"
            << "1g.5gb+me@0 1g.5gb+me@3"
            << "1g.5gb+me@3 needs the card's media extensions, which 1g.5gb+me@0 already owns.";
    QTest::newRow("instances") << "Synthetic"
                               << "1g.1gb@0 1g.1gb@1 1g.1gb@2"
                               << "1g.1gb@2 exceeds the limit of 2 1g.1gb instances per card.";
    QTest::newRow("compute")
            << "Synthetic"
            << "2c.2gb@0 2c.2gb@2"
            << "2c.2gb@2 brings the layout to 4 compute slices, more than the 3 of Synthetic.";
    QTest::newRow("unknown") << "A100-SXM4-40GB"
                             << "#9@0"
                             << "Placement 0 names profile #9, which A100-SXM4-40GB does not have.";
    QTest::newRow("no MIG") << "T4-16GB"
                            << "#0@0"
                            << "T4-16GB does not support MIG, so it cannot hold #0@0.";
}

void TestLayoutRules::describe()
{
    QFETCH(QString, modelName);
    QFETCH(QString, layout);
    QFETCH(QString, sentence);
    const CardModel m = modelName == QLatin1String("Synthetic") ? synthetic() : model(modelName);
    const Layout l = parse(m, layout);
    QCOMPARE(validateLayout(m, l).describe(m, l), sentence);
}

void TestLayoutRules::canAddAgreesWithValidateLayout_data()
{
    QTest::addColumn<QString>("modelName");
    QTest::newRow("A100 40GB") << "A100-SXM4-40GB";
    QTest::newRow("H200") << "H200-141GB";
    QTest::newRow("Synthetic") << "Synthetic";
}

// Walks every valid layout (as sets) and offers every placement, allowed start or not.
void TestLayoutRules::canAddAgreesWithValidateLayout()
{
    QFETCH(QString, modelName);
    const CardModel m = modelName == QLatin1String("Synthetic") ? synthetic() : model(modelName);

    QList<Layout> work{Layout{}};
    QSet<QString> seen{QString()};
    int checked = 0;
    while (!work.isEmpty()) {
        const Layout layout = work.takeLast();
        for (int p = 0; p < m.migProfiles.size(); ++p) {
            int lowest = -1;
            for (int s = 0; s < m.migMemorySlices; ++s) {
                const MigPlacement c{p, s};
                const LayoutVerdict added = canAdd(m, layout, c);
                const LayoutVerdict whole = validateLayout(m, layout + Layout{c});
                QCOMPARE(added.problem, whole.problem);
                QCOMPARE(added.index, whole.index);
                QCOMPARE(added.other, whole.other);
                QCOMPARE(added.limit, whole.limit);
                ++checked;
                if (!added.isValid())
                    continue;
                if (lowest < 0)
                    lowest = s;
                Layout next = layout + Layout{c};
                std::sort(next.begin(), next.end(), placementLess);
                const QString key = format(m, next);
                if (!seen.contains(key)) {
                    seen.insert(key);
                    work.append(next);
                }
            }
            QCOMPARE(firstFreeStart(m, layout, p), lowest);
        }
    }
    QVERIFY(checked > 1000);
}

void TestLayoutRules::occupancyMasks_data()
{
    QTest::addColumn<QString>("layout");
    QTest::addColumn<quint32>("mask");
    QTest::newRow("empty") << "" << quint32(0);
    QTest::newRow("7g") << "7g.80gb@0" << quint32(0xFF);
    QTest::newRow("3g@4") << "3g.40gb@4" << quint32(0xF0);
    QTest::newRow("2g@2 1g@6") << "2g.20gb@2 1g.10gb@6" << quint32(0x4C);
    QTest::newRow("double-memory 1g@6") << "1g.20gb@6" << quint32(0xC0);
    QTest::newRow("unknown profile ignored") << "#42@0 1g.10gb@1" << quint32(0x02);
}

void TestLayoutRules::occupancyMasks()
{
    QFETCH(QString, layout);
    QFETCH(quint32, mask);
    const CardModel &m = model("H100-SXM5-80GB");
    QCOMPARE(occupancyMask(m, parse(m, layout)), mask);
}

void TestLayoutRules::modelWithoutMig()
{
    const CardModel &m = model("L40S-48GB");
    QVERIFY(validateLayout(m, {}).isValid());
    QCOMPARE(canAdd(m, {}, MigPlacement{0, 0}).problem, LayoutProblem::NotMigCapable);
    QCOMPARE(firstFreeStart(m, {}, 0), -1);
    QVERIFY(enumerateMaximalLayouts(m).isEmpty());
    QCOMPARE(occupancyMask(m, {}), quint32(0));

    const CardModel &h100 = model("H100-SXM5-80GB");
    QCOMPARE(firstFreeStart(h100, {}, 7), -1); // no such profile
    QCOMPARE(firstFreeStart(h100, {}, -1), -1);
}

void TestLayoutRules::stepsKeepWhatStaysAndCreateLargerFirst()
{
    const CardModel &m = model("H100-SXM5-80GB");
    // A 3g and a 1g; the target keeps the 3g, moves the 1g and adds a 2g.
    const Layout current = parse(m, "3g.40gb@4 1g.10gb@0");
    const Layout target = parse(m, "1g.10gb@1 3g.40gb@4 2g.20gb@2");
    QVERIFY(validateLayout(m, target).isValid());
    const LayoutSteps steps = layoutSteps(m, current, target);
    QCOMPARE(steps.destroy, (QList<int>{1}));                // 1g@0 goes, the 3g stays
    QCOMPARE(steps.create, parse(m, "2g.20gb@2 1g.10gb@1")); // the larger span first
    // The same layout in another order: nothing to do.
    const LayoutSteps none = layoutSteps(m, current, parse(m, "1g.10gb@0 3g.40gb@4"));
    QVERIFY(none.destroy.isEmpty() && none.create.isEmpty());
}

QTEST_GUILESS_MAIN(TestLayoutRules)
#include "tst_layoutrules.moc"
