// SPDX-License-Identifier: GPL-3.0-or-later
// The live charts on the offscreen platform, fed by a real simulated session of the demo day:
// graphs fill from successive snapshots, old points go past the horizon, presets and Live set the
// visible range, a pan or a wheel turn stops following, and what the appliance did shows as
// markers on the time axis.
#include "core/catalogue/catalogue.h"
#include "core/models/seriesstore.h"
#include "core/models/sessionclient.h"
#include "core/session/simulationsession.h"
#include "core/sim/scenario.h"
#include "widgets/charts/livecharts.h"
#include "widgets/charts/markerlayer.h"
#include "widgets/charts/sparkchart.h"

#include "tests/data/scenarios.h"

#include <QApplication>
#include <QComboBox>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <QToolButton>
#include <QWheelEvent>

#include <cmath>

using namespace Zhaoxi;
using Models::MarkerKind;
using Models::SeriesStore;
using Widgets::LiveCharts;
using Widgets::MarkerLayer;
using Widgets::SparkChart;

namespace {

constexpr qint64 kHour = 3600 * 1000;

using TestData::demoDay;

// The demo day on this thread, a client, and charts that follow it.
struct Fixture
{
    explicit Fixture(const QString &policy = QString())
        : session(scenario, policy, scenario.seed)
        , client(&session)
        , charts(&client)
    {
        charts.resize(1400, 900);
        charts.show();
    }
    // Runs the day to `ms` since its start in steps of `stepMs`, a snapshot after each.
    void runTo(qint64 ms, qint64 stepMs = 5 * 60 * 1000)
    {
        for (qint64 t = reached + stepMs; t < ms; t += stepMs)
            session.runTo(t);
        session.runTo(ms);
        reached = ms;
    }
    double now() const { return double(client.snapshot()->nowMs) / 1000.0; }

    Sim::Scenario scenario = demoDay();
    Session::SimulationSession session;
    Models::SessionClient client;
    LiveCharts charts;
    qint64 reached = 0;
};

QToolButton *button(const LiveCharts &charts, const char *name)
{
    return charts.findChild<QToolButton *>(QLatin1String(name));
}

QCPAxis *timeAxis(const LiveCharts &charts, LiveCharts::Page page, int rect = 0)
{
    return charts.plot(page)->axisRects().at(rect)->axis(QCPAxis::atBottom);
}

} // namespace

class TestLiveCharts : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void graphsFillFromSnapshots();
    void trainingAndCardsPages();
    void snapshotsReplotThePageOnShowOnce();
    void trimmingDropsPointsPastTheHorizon();
    void presetsSetTheVisibleRange();
    void aPanStopsFollowingUntilLiveIsOn();
    void aWheelTurnStopsFollowing();
    void markersShowWhatTheApplianceDid();
    void windowSwitchesAreMarked();
    void sparkChartShowsTheLatestMinutes();
};

void TestLiveCharts::graphsFillFromSnapshots()
{
    Fixture f;
    QVERIFY(QTest::qWaitForWindowExposed(&f.charts));
    f.runTo(10 * kHour);
    f.charts.refresh();

    QCOMPARE(f.charts.page(), LiveCharts::Page::Inference);
    for (const char *service : {"chat", "image", "embed"}) {
        for (const char *metric : {"p50", "p99", "rate"}) {
            const QString key = QStringLiteral("svc/%1/%2")
                                        .arg(QLatin1String(service), QLatin1String(metric));
            QCPGraph *g = f.charts.graph(key);
            QVERIFY2(g, qPrintable(key));
            QVERIFY2(g->dataCount() > 1, qPrintable(key));
        }
    }
    // The SLO is a horizontal line at the objective: a flat run keeps two points.
    QCPGraph *slo = f.charts.graph(QStringLiteral("svc/chat/slo"));
    QVERIFY(slo);
    QCOMPARE(slo->dataCount(), 2);
    QCOMPARE(slo->data()->at(0)->value, 1000.0);
    QCOMPARE(slo->data()->at(1)->value, 1000.0);
    QCOMPARE(slo->data()->at(1)->key, f.now());
    QVERIFY(slo->pen().style() != Qt::SolidLine);
    QCOMPARE(f.charts.graph(QStringLiteral("svc/chat/p99"))->pen().style(), Qt::SolidLine);
    QCOMPARE(f.charts.graph(QStringLiteral("svc/chat/p50"))->pen().style(), Qt::DashLine);

    // Legends say last / mean / max over the visible range.
    const QString legend = f.charts.graph(QStringLiteral("svc/chat/p99"))->name();
    QVERIFY2(legend.startsWith(QStringLiteral("chat p99 — last ")), qPrintable(legend));
    QVERIFY2(legend.contains(QStringLiteral(" ms · mean "))
                     && legend.contains(QStringLiteral(" · max ")),
             qPrintable(legend));
    QCOMPARE(slo->name(), QStringLiteral("chat SLO 1000 ms"));

    // Live: the range ends at the latest snapshot and spans the preset (1 h by default).
    QVERIFY(f.charts.isLive());
    QCOMPARE(f.charts.timeRange().upper, f.now());
    QCOMPARE(f.charts.timeRange().size(), 3600.0);
    QCOMPARE(timeAxis(f.charts, LiveCharts::Page::Inference, 1)->range(), f.charts.timeRange());

    // The time axis is in the appliance's local time (UTC+8).
    auto ticker = qSharedPointerDynamicCast<QCPAxisTickerDateTime>(
            timeAxis(f.charts, LiveCharts::Page::Inference)->ticker());
    QVERIFY(ticker);
    QCOMPARE(ticker->timeZone().offsetFromUtc(QDateTime::currentDateTimeUtc()), 8 * 3600);

    // More snapshots: more points, the range moves along.
    const int before = f.charts.graph(QStringLiteral("svc/chat/p99"))->dataCount();
    f.runTo(11 * kHour);
    f.charts.refresh();
    QVERIFY(f.charts.graph(QStringLiteral("svc/chat/p99"))->dataCount() > before);
    QCOMPARE(f.charts.timeRange().upper, f.now());
}

void TestLiveCharts::trainingAndCardsPages()
{
    Fixture f;
    f.runTo(12 * kHour);
    QSignalSpy pageChanged(&f.charts, &LiveCharts::pageChanged);
    f.charts.setPage(LiveCharts::Page::Training);
    QCOMPARE(pageChanged.size(), 1);
    f.charts.refresh();

    // Every job has a throughput and a loss graph; the jobs that ran in the last hour show.
    const Session::SnapshotPtr snap = f.client.snapshot();
    int running = 0;
    for (const Session::TrainingSample &t : snap->training) {
        QCPGraph *speed = f.charts.graph(SeriesStore::jobKey(t.job, Models::SeriesMetric::Speed));
        QCPGraph *loss = f.charts.graph(SeriesStore::jobKey(t.job, Models::SeriesMetric::Loss));
        QVERIFY(speed && loss);
        QCOMPARE(loss->visible(), speed->visible());
        if (t.speed > 0) {
            ++running;
            QVERIFY2(speed->visible(), qPrintable(t.name));
            QVERIFY(speed->name().startsWith(t.name + QStringLiteral(" — last ")));
        }
    }
    QVERIFY(running > 0);

    // Cards: the whole appliance at first, then one card.
    f.charts.setPage(LiveCharts::Page::Cards);
    f.charts.refresh();
    QVERIFY(f.charts.graph(QStringLiteral("all/util-training")));
    QVERIFY(f.charts.graph(QStringLiteral("all/util-inference")));
    QVERIFY(f.charts.graph(QStringLiteral("all/power")));
    QSignalSpy cardChanged(&f.charts, &LiveCharts::cardChanged);
    f.charts.setCard(Domain::CardId(3));
    QCOMPARE(cardChanged.size(), 1);
    f.charts.refresh();
    QVERIFY(!f.charts.graph(QStringLiteral("all/util-training")));
    for (const char *metric : {"util-training", "util-inference", "mem-pct", "temp", "power"}) {
        QCPGraph *g = f.charts.graph(QStringLiteral("card/3/") + QLatin1String(metric));
        QVERIFY2(g && g->dataCount() > 0, metric);
    }
    // Training and inference utilisation differ by line style, not only by colour.
    QVERIFY(f.charts.graph(QStringLiteral("card/3/util-training"))->pen().style()
            != f.charts.graph(QStringLiteral("card/3/util-inference"))->pen().style());
    QCOMPARE(f.charts.graph(QStringLiteral("card/3/power"))->valueAxis()->axisType(),
             QCPAxis::atRight);
    const auto *chooser = f.charts.findChild<QComboBox *>(QStringLiteral("cardChooser"));
    QVERIFY(chooser);
    QCOMPARE(chooser->count(), 1 + 11);
    QCOMPARE(chooser->currentData().toInt(), 3);
    QCOMPARE(chooser->currentText(), QStringLiteral("dgx-h200 · GPU 3"));
}

void TestLiveCharts::snapshotsReplotThePageOnShowOnce()
{
    Fixture f;
    QVERIFY(QTest::qWaitForWindowExposed(&f.charts));
    // The first show's replot has run, and nothing it queued is left.
    QTRY_VERIFY(!f.charts.replotPending());
    QCoreApplication::sendPostedEvents();
    QSignalSpy inference(f.charts.plot(LiveCharts::Page::Inference), &QCustomPlot::afterReplot);
    QSignalSpy training(f.charts.plot(LiveCharts::Page::Training), &QCustomPlot::afterReplot);

    // Twelve snapshots in a burst: one replot, of the page on show, on its own.
    f.runTo(2 * kHour, 10 * 60 * 1000);
    QTRY_COMPARE(inference.size(), 1);
    QCPGraph *p99 = f.charts.graph(QStringLiteral("svc/chat/p99"));
    QVERIFY(p99);
    QCOMPARE(p99->dataCount(), 12);
    // ... and no other is on its way.
    QVERIFY(!f.charts.replotPending());
    QCoreApplication::sendPostedEvents();
    QCOMPARE(inference.size(), 1);
    // The hidden Training page has not even made its graphs yet ...
    QCOMPARE(training.size(), 0);
    const Domain::JobId job = f.client.snapshot()->training.first().job;
    QVERIFY(!f.charts.graph(SeriesStore::jobKey(job, Models::SeriesMetric::Loss)));
    // ... and catches up when shown.
    f.charts.setPage(LiveCharts::Page::Training);
    QVERIFY(training.size() >= 1); // ours, and QCustomPlot's own as the page is laid out
    QCPGraph *loss = f.charts.graph(SeriesStore::jobKey(job, Models::SeriesMetric::Loss));
    QVERIFY(loss);
    QVERIFY(loss->dataCount() >= 2);
}

void TestLiveCharts::trimmingDropsPointsPastTheHorizon()
{
    Fixture f;
    f.charts.store()->setHorizonSeconds(2 * 3600);
    f.charts.setPreset(LiveCharts::Preset::SixHours);
    f.runTo(2 * kHour, 10 * 60 * 1000);
    f.charts.refresh();
    QCPGraph *p99 = f.charts.graph(QStringLiteral("svc/chat/p99"));
    const double firstBefore = p99->data()->constBegin()->key;

    f.runTo(6 * kHour, 10 * 60 * 1000);
    f.charts.refresh();
    const double cut = f.now() - 2 * 3600;
    QVERIFY(p99->data()->constBegin()->key > firstBefore);
    QVERIFY(p99->data()->constBegin()->key >= cut);
    QVERIFY(f.charts.store()->series(QStringLiteral("svc/chat/p99"))->first().t >= cut);
    // A flat series still starts at the cut, not where its run of equal values began.
    QCPGraph *slo = f.charts.graph(QStringLiteral("svc/chat/slo"));
    QCOMPARE(slo->data()->constBegin()->key,
             f.charts.store()->series(QStringLiteral("svc/chat/slo"))->first().t);
    QCOMPARE(slo->data()->constBegin()->value, 1000.0);
}

void TestLiveCharts::presetsSetTheVisibleRange()
{
    Fixture f;
    f.runTo(9 * kHour);
    f.charts.refresh();
    QSignalSpy rangeChanged(&f.charts, &LiveCharts::timeRangeChanged);

    button(f.charts, "preset5m")->click();
    QCOMPARE(f.charts.preset(), LiveCharts::Preset::FiveMinutes);
    QCOMPARE(f.charts.timeRange().size(), 300.0);
    QCOMPARE(f.charts.timeRange().upper, f.now());
    QCOMPARE(timeAxis(f.charts, LiveCharts::Page::Cards)->range().size(), 300.0);
    QVERIFY(button(f.charts, "preset5m")->isChecked());
    QVERIFY(!button(f.charts, "preset1h")->isChecked());
    QCOMPARE(rangeChanged.size(), 1);

    button(f.charts, "preset24h")->click();
    QCOMPARE(f.charts.timeRange().size(), 24 * 3600.0);
    QCOMPARE(f.charts.timeRange().upper, f.now());
    QVERIFY(f.charts.isLive()); // a preset keeps following

    // Not live: a preset keeps the range's end.
    f.charts.setTimeRange(f.now() - 4 * 3600, f.now() - 3600);
    QVERIFY(!f.charts.isLive());
    for (QToolButton *b : f.charts.findChildren<QToolButton *>()) {
        if (b->objectName().startsWith(QStringLiteral("preset")))
            QVERIFY2(!b->isChecked(), qPrintable(b->objectName())); // a span of no preset
    }
    button(f.charts, "preset15m")->click();
    QCOMPARE(f.charts.timeRange().upper, f.now() - 3600);
    QCOMPARE(f.charts.timeRange().size(), 900.0);
}

void TestLiveCharts::aPanStopsFollowingUntilLiveIsOn()
{
    Fixture f;
    f.runTo(8 * kHour);
    f.charts.refresh();
    QSignalSpy liveChanged(&f.charts, &LiveCharts::liveChanged);
    QToolButton *live = button(f.charts, "liveButton");
    QVERIFY(live->isChecked());

    // The user drags the time axis back ten minutes.
    QCPAxis *x = timeAxis(f.charts, LiveCharts::Page::Inference);
    const QCPRange panned(x->range().lower - 600, x->range().upper - 600);
    x->setRange(panned);
    QVERIFY(!f.charts.isLive());
    QVERIFY(!live->isChecked());
    QCOMPARE(liveChanged.size(), 1);
    QCOMPARE(f.charts.timeRange(), panned);
    // ... and the chart below it and the other pages move with it.
    QCOMPARE(timeAxis(f.charts, LiveCharts::Page::Inference, 1)->range(), panned);
    QCOMPARE(timeAxis(f.charts, LiveCharts::Page::Training)->range(), panned);

    // New snapshots do not move it, neither at the coalesced replot they bring ...
    f.runTo(9 * kHour);
    QVERIFY(f.charts.replotPending());
    QTRY_VERIFY(!f.charts.replotPending());
    QCOMPARE(f.charts.timeRange(), panned);
    QCOMPARE(x->range(), panned);
    // ... nor at a refresh.
    f.charts.refresh();
    QCOMPARE(f.charts.timeRange(), panned);
    QCOMPARE(x->range(), panned);

    // Live follows again, keeping the span.
    live->click();
    QVERIFY(f.charts.isLive());
    QCOMPARE(liveChanged.size(), 2);
    QCOMPARE(f.charts.timeRange().upper, f.now());
    QCOMPARE(f.charts.timeRange().size(), panned.size());
    f.runTo(10 * kHour);
    f.charts.refresh();
    QCOMPARE(f.charts.timeRange().upper, f.now());
}

void TestLiveCharts::aWheelTurnStopsFollowing()
{
    Fixture f;
    QVERIFY(QTest::qWaitForWindowExposed(&f.charts));
    f.runTo(8 * kHour);
    f.charts.refresh();
    QCustomPlot *plot = f.charts.plot(LiveCharts::Page::Inference);
    const QCPRange before = f.charts.timeRange();
    const QPointF at = plot->axisRects().at(0)->rect().center();
    QWheelEvent wheel(at,
                      plot->mapToGlobal(at),
                      QPoint(),
                      QPoint(0, 120),
                      Qt::NoButton,
                      Qt::NoModifier,
                      Qt::NoScrollPhase,
                      false);
    QApplication::sendEvent(plot, &wheel);
    QVERIFY(!f.charts.isLive());
    QVERIFY(f.charts.timeRange().size() < before.size()); // zoomed in
    const QCPRange zoomed = f.charts.timeRange();
    f.runTo(9 * kHour);
    f.charts.refresh();
    QCOMPARE(f.charts.timeRange(), zoomed);
}

void TestLiveCharts::markersShowWhatTheApplianceDid()
{
    Fixture f;
    f.charts.setPreset(LiveCharts::Preset::OneDay);
    f.runTo(16 * kHour, 10 * 60 * 1000);
    f.charts.refresh();

    const QList<Models::EventMarker> &markers = f.charts.store()->markers();
    auto has = [&markers](MarkerKind kind) {
        return std::any_of(
                markers.cbegin(), markers.cend(), [kind](const auto &m) { return m.kind == kind; });
    };
    QVERIFY(has(MarkerKind::Repartition));
    QVERIFY(has(MarkerKind::Preemption));
    QVERIFY(has(MarkerKind::Fault)); // card 6 is lost at 14:20

    // All within the day on show: each has a line, labelled.
    QCOMPARE(f.charts.visibleMarkers().size(), markers.size());
    const QStringList labels = f.charts.visibleMarkerLabels();
    QVERIFY(std::any_of(labels.cbegin(), labels.cend(), [](const QString &l) {
        return l.startsWith(QStringLiteral("Repartition"));
    }));
    QVERIFY(std::any_of(labels.cbegin(), labels.cend(), [](const QString &l) {
        return l.startsWith(QStringLiteral("Preemption"));
    }));
    QVERIFY(labels.contains(QStringLiteral("Fault · card 6")));
    const QList<MarkerLayer *> layers
            = f.charts.plot(LiveCharts::Page::Inference)->findChildren<MarkerLayer *>();
    QCOMPARE(layers.size(), 2); // one per chart of the page
    for (const MarkerLayer *layer : layers)
        QCOMPARE(layer->lines().size(), markers.size());

    // Five minutes around the fault: its marker only.
    const auto fault = std::find_if(markers.cbegin(), markers.cend(), [](const auto &m) {
        return m.kind == MarkerKind::Fault && m.card == 6;
    });
    f.charts.setTimeRange(fault->t - 1, fault->t + 1);
    QVERIFY(f.charts.visibleMarkerLabels().contains(QStringLiteral("Fault · card 6")));
}

void TestLiveCharts::windowSwitchesAreMarked()
{
    Fixture f(QStringLiteral("windows"));
    f.charts.setPreset(LiveCharts::Preset::SixHours);
    f.runTo(8 * kHour, 10 * 60 * 1000);
    f.charts.refresh();
    // The night window opens with the day's start, the day window at 07:00 local time.
    const QStringList labels = f.charts.visibleMarkerLabels();
    QVERIFY2(labels.contains(QStringLiteral("Window: day")), qPrintable(labels.join(u", ")));
    QVERIFY(!labels.contains(QStringLiteral("Window: night"))); // 00:00 is out of the 6 h on show
    const auto &markers = f.charts.store()->markers();
    const auto night = std::find_if(markers.cbegin(), markers.cend(), [](const auto &m) {
        return m.kind == MarkerKind::Window;
    });
    QVERIFY(night != markers.cend());
    QCOMPARE(night->windowName, QStringLiteral("night"));
    QCOMPARE(qint64(night->t * 1000), f.scenario.startMs);
    const auto day = std::find_if(markers.cbegin(), markers.cend(), [](const auto &m) {
        return m.kind == MarkerKind::Window && m.windowName == QStringLiteral("day");
    });
    QVERIFY(day != markers.cend());
    QCOMPARE(qint64(day->t * 1000), f.scenario.startMs + 7 * kHour);
}

void TestLiveCharts::sparkChartShowsTheLatestMinutes()
{
    Fixture f;
    SparkChart spark(f.charts.store());
    spark.setSeries(QStringLiteral("card/0/util"), QStringLiteral("card/0/temp"));
    spark.resize(spark.sizeHint());
    spark.show();
    f.runTo(10 * kHour);
    spark.refresh();
    QCOMPARE(spark.graphCount(), 2);
    QVERIFY(spark.graph(0)->dataCount() > 0);
    QVERIFY(spark.graph(1)->dataCount() > 0);
    QCOMPARE(spark.xAxis->range().upper, f.now());
    QCOMPARE(spark.xAxis->range().size(), 15 * 60.0);
    QVERIFY(!spark.xAxis->visible() && !spark.yAxis->visible());
    QVERIFY2(spark.summary().startsWith(QStringLiteral("Utilisation: last ")),
             qPrintable(spark.summary()));
    QVERIFY(spark.summary().contains(QStringLiteral("\nTemperature: last ")));
}

QTEST_MAIN(TestLiveCharts)
#include "tst_livecharts.moc"
