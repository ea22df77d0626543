// SPDX-License-Identifier: GPL-3.0-or-later
// Alternative shapes of a workload (issue 18): how `shapes` and inference.serviceTimeMs are read,
// refused with the field named, written back, and that specs without them are written as before.
#include "workloadspecfixture.h"

#include <QtTest>

using namespace WorkloadSpecFixture;

namespace {

// An inference spec (3g primary) with these shapes and, unless told otherwise, a service time.
QByteArray inferenceShapes(const QByteArray &shapes,
                           const QByteArray &serviceTime = R"(, "serviceTimeMs": 140)")
{
    return patch(R"({"kind": "inference", "isolation": "hard",
                     "demand": {"compute": {"profile": "3g.71gb"}, "memoryGiB": 40,
                                "hostCpu": 4, "hostMemoryGiB": 32},
                     "inference": {"service": "chat", "sloP99Ms": 1000)"
                 + serviceTime + R"(}, "shapes": )" + shapes + "}");
}

// A training gang (2 x 3g primary) with these shapes.
QByteArray trainingShapes(const QByteArray &shapes)
{
    return patch(R"({"kind": "training", "isolation": "hard",
                     "demand": {"compute": {"profile": "3g.71gb"}, "cards": 2, "hostCpu": 16},
                     "shapes": )"
                 + shapes + "}");
}

} // namespace

class TestWorkloadSpecShapes : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void readsShapes()
    {
        SpecError e;
        const auto spec = workloadSpecFromJson(
                inferenceShapes(R"([{"demand": {"compute": {"profile": "1g.18gb"},
                                                "memoryGiB": 16}, "speed": 0.45},
                                    {"demand": {"compute": {"slices": 2}}, "speed": 0.75}])"),
                &e);
        QVERIFY2(spec, qPrintable(e.toString()));
        QCOMPARE(spec->shapes.size(), 2);
        QCOMPARE(spec->shapes[0].demand.compute.kind, ComputeDemand::Kind::MigProfile);
        QCOMPARE(spec->shapes[0].demand.compute.profile, QStringLiteral("1g.18gb"));
        QCOMPARE(spec->shapes[0].demand.memoryMiB, 16 * 1024);
        QCOMPARE(spec->shapes[0].demand.cards, 1);
        QCOMPARE(spec->shapes[0].speed, 0.45);
        QCOMPARE(spec->shapes[1].demand.compute.slices, 2);
        // The host CPU and memory are the job's, in every shape.
        QCOMPARE(spec->shapes[1].demand.hostCpuMilli, 4000);
        QCOMPARE(spec->shapes[1].demand.hostMemoryMiB, 32 * 1024);
        QCOMPARE(spec->inference->serviceTimeMs, 140.0);
        QCOMPARE(shapeDemand(*spec, -1), spec->demand);
        QCOMPARE(shapeDemand(*spec, 1), spec->shapes[1].demand);
        QCOMPARE(shapeSpeed(*spec, -1), 1.0);
        QCOMPARE(shapeSpeed(*spec, 0), 0.45);
        QCOMPARE(shapeText(spec->shapes[0].demand), QStringLiteral("1g.18gb"));
    }

    void roundTrip_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::newRow("inference") << inferenceShapes(
                R"([{"demand": {"compute": {"profile": "1g.18gb"}}, "speed": 0.45}])");
        QTest::newRow("training gangs") << trainingShapes(
                R"([{"demand": {"compute": {"profile": "7g.141gb"}, "memoryGiB": 120},
                     "speed": 1.25},
                    {"demand": {"compute": {"wholeCard": true}, "cards": 4}, "speed": 0.9}])");
        QTest::newRow("eight shapes") << trainingShapes(
                R"([{"demand": {"compute": {"slices": 1}}, "speed": 0.1},
                    {"demand": {"compute": {"slices": 2}}, "speed": 0.2},
                    {"demand": {"compute": {"slices": 3}}, "speed": 0.3},
                    {"demand": {"compute": {"slices": 4}}, "speed": 0.4},
                    {"demand": {"compute": {"slices": 5}}, "speed": 0.5},
                    {"demand": {"compute": {"slices": 6}}, "speed": 0.6},
                    {"demand": {"compute": {"slices": 7}}, "speed": 0.7},
                    {"demand": {"compute": {"wholeCard": true}}, "speed": 100}])");
    }
    void roundTrip()
    {
        QFETCH(QByteArray, json);
        SpecError e;
        const auto spec = workloadSpecFromJson(json, &e);
        QVERIFY2(spec, qPrintable(e.toString()));
        const QJsonObject written = workloadSpecToJson(*spec);
        QVERIFY(written.contains(QLatin1String("shapes")));
        // The shapes' host CPU and memory are the spec's: not written again.
        const QJsonObject first = written.value(QLatin1String("shapes")).toArray()[0].toObject();
        QVERIFY(!first.value(QLatin1String("demand"))
                         .toObject()
                         .contains(QLatin1String("hostCpuMilli")));
        const auto again = workloadSpecFromJson(written, &e);
        QVERIFY2(again, qPrintable(e.toString()));
        QCOMPARE(*again, *spec);
        QCOMPARE(workloadSpecToJson(*again), written);
    }

    // Specs without shapes are written exactly as before: no new keys.
    void withoutShapesNothingNew()
    {
        SpecError e;
        const auto spec
                = workloadSpecFromJson(inferenceWith(R"({"service": "s", "sloP99Ms": 100})"), &e);
        QVERIFY2(spec, qPrintable(e.toString()));
        QVERIFY(spec->shapes.isEmpty());
        const QJsonObject written = workloadSpecToJson(*spec);
        QVERIFY(!written.contains(QLatin1String("shapes")));
        QVERIFY(!written.value(QLatin1String("inference"))
                         .toObject()
                         .contains(QLatin1String("serviceTimeMs")));
        QCOMPARE(written.value(QLatin1String("inference")).toObject().keys(),
                 (QStringList{"replicas", "requestRate", "service", "sloP99Ms"}));
    }

    void errors_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("message");
        const QByteArray one = R"({"demand": {"compute": {"profile": "1g.18gb"}}, "speed": 0.45})";
        QTest::newRow("not an array") << trainingShapes(R"({})") << "shapes"
                                      << "expected an array";
        QTest::newRow("element not an object") << trainingShapes(R"([3])") << "shapes[0]"
                                               << "expected an object";
        QTest::newRow("speed missing")
                << trainingShapes(R"([{"demand": {"compute": {"slices": 1}}}])")
                << "shapes[0].speed"
                << "required";
        QTest::newRow("speed zero")
                << trainingShapes(R"([{"demand": {"compute": {"slices": 1}}, "speed": 0}])")
                << "shapes[0].speed"
                << "0";
        QTest::newRow("speed too high")
                << trainingShapes(R"([{"demand": {"compute": {"slices": 1}}, "speed": 0.5},
                                      {"demand": {"compute": {"slices": 2}}, "speed": 101}])")
                << "shapes[1].speed"
                << "101";
        QTest::newRow("speed a string")
                << trainingShapes(R"([{"demand": {"compute": {"slices": 1}}, "speed": "fast"}])")
                << "shapes[0].speed"
                << "expected a number";
        QTest::newRow("unknown key")
                << trainingShapes(R"([{"demand": {"compute": {"slices": 1}}, "sped": 1}])")
                << "shapes[0].sped"
                << "did you mean \"speed\"";
        QTest::newRow("host CPU in a shape")
                << trainingShapes(R"([{"demand": {"compute": {"slices": 1}, "hostCpu": 2},
                                       "speed": 1}])")
                << "shapes[0].demand.hostCpu"
                << "the whole job's";
        QTest::newRow("bad profile")
                << trainingShapes(R"([{"demand": {"compute": {"profile": "3G40"}}, "speed": 1}])")
                << "shapes[0].demand.compute.profile"
                << "MIG profile name";
        QTest::newRow("cpu-only shape")
                << trainingShapes(R"([{"demand": {"compute": {"slices": 1}, "cards": 0},
                                       "speed": 1}])")
                << "shapes[0].demand.cards"
                << "must be 1..64";
        QTest::newRow("compute missing")
                << trainingShapes(R"([{"demand": {"cards": 2}, "speed": 1}])")
                << "shapes[0].demand.compute"
                << "required";
        QTest::newRow("ganged fraction")
                << trainingShapes(R"([{"demand": {"compute": {"fraction": 0.5}, "cards": 2},
                                       "speed": 1}])")
                << "shapes[0].demand.cards"
                << "fraction";
        QTest::newRow("fraction under hard isolation")
                << trainingShapes(R"([{"demand": {"compute": {"fraction": 0.5}}, "speed": 1}])")
                << "shapes[0].demand.compute"
                << "\"hard\"";
        QTest::newRow("same as the primary")
                << trainingShapes(R"([{"demand": {"compute": {"profile": "3g.71gb"}, "cards": 2},
                                       "speed": 1.1}])")
                << "shapes[0].demand"
                << "the same as demand";
        QTest::newRow("repeated") << trainingShapes("[" + one + ", " + one + "]")
                                  << "shapes[1].demand"
                                  << "the same as shapes[0].demand";
        QTest::newRow("nine shapes")
                << trainingShapes("[" + one + "," + one + "," + one + "," + one + "," + one + ","
                                  + one + "," + one + "," + one + "," + one + "]")
                << "shapes"
                << "at most 8";
        QTest::newRow("cpu-only job")
                << patch(R"({"demand": {"cards": 0}, "shapes": [)" + one + "]}") << "shapes"
                << "CPU-only";
        QTest::newRow("inference without a service time")
                << inferenceShapes("[" + one + "]", "") << "inference.serviceTimeMs"
                << "required when shapes are given";
        QTest::newRow("service time zero")
                << inferenceShapes("[" + one + "]", R"(, "serviceTimeMs": 0)")
                << "inference.serviceTimeMs"
                << "0";
    }
    void errors()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, field);
        QFETCH(QString, message);
        SpecError e;
        QVERIFY(!workloadSpecFromJson(json, &e));
        QCOMPARE(e.field, field);
        QVERIFY2(e.message.contains(message), qPrintable(e.toString()));
    }

    // validateWorkloadSpec names the same fields for specs built in code.
    void validationNamesTheField_data()
    {
        QTest::addColumn<int>("breakage");
        QTest::addColumn<QString>("field");
        QTest::newRow("speed") << 0 << "shapes[1].speed";
        QTest::newRow("slices") << 1 << "shapes[1].demand.compute.slices";
        QTest::newRow("host cpu") << 2 << "shapes[1].demand";
        QTest::newRow("too many") << 3 << "shapes";
    }
    void validationNamesTheField()
    {
        QFETCH(int, breakage);
        QFETCH(QString, field);
        SpecError e;
        auto spec = workloadSpecFromJson(
                trainingShapes(R"([{"demand": {"compute": {"slices": 1}}, "speed": 0.5},
                                   {"demand": {"compute": {"slices": 2}}, "speed": 0.8}])"),
                &e);
        QVERIFY2(spec, qPrintable(e.toString()));
        QVERIFY(validateWorkloadSpec(*spec, &e));
        switch (breakage) {
        case 0:
            spec->shapes[1].speed = -1;
            break;
        case 1:
            spec->shapes[1].demand.compute.slices = 9;
            break;
        case 2:
            spec->shapes[1].demand.hostCpuMilli = 1;
            break;
        case 3:
            for (int i = 3; i <= 9; ++i) {
                WorkloadShape s = spec->shapes[0];
                s.demand.compute.kind = ComputeDemand::Kind::MigSlices;
                s.demand.memoryMiB = i;
                spec->shapes.append(s);
            }
            break;
        }
        QVERIFY(!validateWorkloadSpec(*spec, &e));
        QCOMPARE(e.field, field);
    }
};

QTEST_APPLESS_MAIN(TestWorkloadSpecShapes)
#include "tst_workloadspec_shapes.moc"
