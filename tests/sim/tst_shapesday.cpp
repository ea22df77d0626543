// SPDX-License-Identifier: GPL-3.0-or-later
// The shapes day (issue 18): the twin's scheduler puts the inference replicas on the smallest
// unit their SLO allows and the training job on its large unit, the job runs at its shape's
// speed, and the report counts the choices (and says nothing of shapes when there are none).
#include "core/catalogue/catalogue.h"
#include "core/sim/engine.h"

#include <QJsonArray>
#include <QtTest>

using namespace Zhaoxi;
using namespace Zhaoxi::Sim;

namespace {

const Catalogue::Catalogue &catalogue()
{
    static const Catalogue::Catalogue c = Catalogue::Catalogue::builtIn();
    return c;
}

Scenario shapesDay(qint64 durationMs)
{
    ScenarioError e;
    auto s = loadScenarioFile(qEnvironmentVariable("ZHAOXI_SOURCE_DIR")
                                      + QStringLiteral("/resources/scenarios/shapes-day.json"),
                              catalogue(),
                              &e);
    if (!s)
        qFatal("%s", qPrintable(e.toString()));
    s->durationMs = durationMs;
    return *s;
}

int countOf(const QList<ShapeChoiceReport> &choices, const QString &workload, int shape)
{
    for (const ShapeChoiceReport &c : choices) {
        if (c.workload == workload && c.shape == shape)
            return c.count;
    }
    return -1;
}

constexpr qint64 kHour = 3600'000;

} // namespace

class TestShapesDay : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void choicesAreCounted_data()
    {
        QTest::addColumn<QString>("workload");
        QTest::addColumn<int>("chosen"); // the shape every placement chose
        QTest::addColumn<int>("shapes"); // alternatives besides the primary
        QTest::newRow("chat: 1g too slow for its SLO, 2g") << "chat" << 1 << 2;
        QTest::newRow("rerank: 1g") << "rerank" << 0 << 2;
        QTest::newRow("ft-shapes: one 7g") << "ft-shapes" << 0 << 2;
    }
    void choicesAreCounted()
    {
        QFETCH(QString, workload);
        QFETCH(int, chosen);
        QFETCH(int, shapes);
        const Scenario s = shapesDay(3 * kHour);
        const Report r = Engine(s, QString(), s.seed).run();
        int listed = 0;
        for (const ShapeChoiceReport &c : r.shapeChoices) {
            if (c.workload != workload)
                continue;
            ++listed;
            if (c.shape == chosen)
                QVERIFY2(c.count >= 1, qPrintable(c.demand));
            else
                QCOMPARE(c.count, 0);
        }
        QCOMPARE(listed, shapes + 1);
        // lora-1 lists no shapes: it is not in the list.
        QCOMPARE(countOf(r.shapeChoices, QStringLiteral("lora-1"), -1), -1);

        const QJsonArray json = r.toJson().value(QLatin1String("shape_choices")).toArray();
        QCOMPARE(json.size(), r.shapeChoices.size());
        bool found = false;
        for (const QJsonValue &v : json) {
            const QJsonObject o = v.toObject();
            if (o.value(QLatin1String("workload")).toString() == workload
                && o.value(QLatin1String("shape")).toInt() == chosen) {
                found = true;
                QCOMPARE(o.value(QLatin1String("count")).toInt(),
                         countOf(r.shapeChoices, workload, chosen));
                QCOMPARE(o.value(QLatin1String("kind")).toString(),
                         workload == QLatin1String("ft-shapes") ? QStringLiteral("job")
                                                                : QStringLiteral("service"));
            }
        }
        QVERIFY(found);
        QVERIFY(formatReport(r).contains(QLatin1String("placements per shape")));
        QVERIFY(formatComparison({r}).contains(QLatin1String("placements per shape")));
    }

    // On its 7g the job runs at its shape's speed: 1.25 times what two 3g would do (2 x 3/7 of
    // a reference card, 0.98 for the pair), not the bare 7g's 1.0.
    void runsAtTheShapesSpeed()
    {
        Scenario s = shapesDay(2 * kHour);
        s.powerBudgetW = -1;
        Engine e(s, QStringLiteral("none"), s.seed);
        e.advanceTo(30 * 60'000);
        const Sched::Job &job = e.scheduler().state().job(e.trainingJob(0));
        QCOMPARE(job.shape, 0);
        const double expected = 1.25 * 2 * 3.0 / 7.0 * 0.98;
        const double speed = e.trainingRun(0).speed();
        QVERIFY2(speed > 1.0 && speed <= expected * (1 + 1e-9), qPrintable(QString::number(speed)));
    }

    // Without shapes the report has no shape_choices and its text no shape lines.
    void nothingWithoutShapes()
    {
        Report r;
        QVERIFY(!r.toJson().contains(QLatin1String("shape_choices")));
        QVERIFY(!formatReport(r).contains(QLatin1String("shape")));
        QVERIFY(!formatComparison({r}).contains(QLatin1String("shape")));
    }
};

QTEST_GUILESS_MAIN(TestShapesDay)
#include "tst_shapesday.moc"
