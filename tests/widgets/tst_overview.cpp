// SPDX-License-Identifier: GPL-3.0-or-later
// The overview, the console's landing view, on the demo day: its figures are the session's own
// (the services' attainment and p99, the training delivered, the waiting queue and its oldest
// job), the cards by holder add up to the appliance's cards and follow its units, and the day's
// history of holders grows minute by minute and draws its stacked areas.
#include "core/models/sessionclient.h"
#include "core/session/simulationsession.h"
#include "core/sim/scenario.h"
#include "widgets/catchup.h"
#include "widgets/languagecontroller.h"
#include "widgets/overviewview.h"

#include "tests/data/scenarios.h"

#include "widgets/charts/qcp.h"

#include <QSignalSpy>
#include <QTest>

#include <cmath>

using namespace Zhaoxi;
using TestData::demoDay;
using Widgets::OverviewView;

class TestOverview : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void theFiguresAreTheSessions();
    void theDayOfHoldersGrowsMinuteByMinute();
    void itSpeaksChinese();
    void theWindowsAreShadedAndAClickNamesAMoment();
};

void TestOverview::theFiguresAreTheSessions()
{
    Session::SimulationSession session(demoDay(), QString(), demoDay().seed);
    session.runTo(10 * 3600'000);
    Models::SessionClient client(&session);
    OverviewView view(&client);
    view.resize(1200, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTRY_VERIFY(client.snapshot());
    const Session::Snapshot &s = *client.snapshot();
    const Widgets::OverviewFigures &f = view.figures();
    // Services: the session's figures, one for one.
    QCOMPARE(f.services.size(), s.services.size());
    QVERIFY(!f.services.isEmpty());
    for (int i = 0; i < s.services.size(); ++i) {
        QCOMPARE(f.services[i].name, s.services[i].name);
        QCOMPARE(f.services[i].today, s.services[i].attainment);
        QCOMPARE(f.services[i].p99Ms, s.services[i].p99Ms);
        QCOMPARE(f.services[i].metNow, s.services[i].p99Ms <= s.services[i].sloMs);
    }
    // Training delivered: the sum of the jobs' work done.
    double done = 0;
    for (const Session::TrainingSample &t : s.training)
        done += t.doneHours;
    QCOMPARE(f.trainingDoneHours, done);
    QVERIFY(done > 0);
    // The cards by holder add up to the appliance's cards; what jobs hold matches their units.
    QCOMPARE(f.cards, int(s.state.cards().size()));
    QVERIFY(std::abs(f.holders.total() - double(f.cards)) < 1e-9);
    double inference = 0, training = 0;
    for (const Sched::CardState &c : s.state.cards()) {
        for (const Sched::Unit &u : c.units) {
            if (!u.job.isValid() || u.state != Sched::UnitState::Ready)
                continue;
            const double share = s.state.unitMilli(c, u) / 1000.0;
            if (s.state.job(u.job).spec.kind == Domain::WorkloadKind::Inference)
                inference += share;
            else if (s.state.job(u.job).spec.kind == Domain::WorkloadKind::Training)
                training += share;
        }
    }
    QVERIFY(std::abs(f.holders.inference - inference) < 1e-9);
    QVERIFY(std::abs(f.holders.training - training) < 1e-9);
    QVERIFY(f.holders.inference > 0 && f.holders.training > 0);
    // The queue: its waiting jobs, the oldest by submission, with its reason in words.
    int waiting = 0;
    qint64 oldest = -1;
    for (const Domain::JobId id : s.queue) {
        if (s.state.job(id).state != Sched::JobState::Pending)
            continue;
        ++waiting;
        const Sched::Job &j = s.state.job(id);
        oldest = std::max(oldest, s.nowMs - std::max(j.submittedMs, j.accountedAtMs));
    }
    QCOMPARE(f.waiting, waiting);
    QCOMPARE(f.oldestWaitMs, oldest);
    const QString text = view.headlineText();
    QVERIFY2(text.contains(QStringLiteral("%1 job(s) waiting").arg(waiting))
                     || text.contains(QStringLiteral("%1 jobs waiting").arg(waiting))
                     || text.contains(QStringLiteral("%1 job waiting").arg(waiting)),
             qPrintable(text));
    QVERIFY2(text.contains(f.oldestName), qPrintable(text));
    QVERIFY2(text.contains(s.services.first().name), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("policy: forecast-driven")), qPrintable(text));
}

void TestOverview::theDayOfHoldersGrowsMinuteByMinute()
{
    Session::SimulationSession session(demoDay(), QString(), demoDay().seed);
    session.runTo(0);
    Models::SessionClient client(&session);
    OverviewView view(&client);
    view.resize(1200, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    Widgets::catchUp(session, 2 * 3600'000, nullptr);
    QTRY_VERIFY(view.history().size() >= 100);
    const auto &h = view.history();
    for (int i = 1; i < h.size(); ++i) {
        QVERIFY(h[i].atMs - h[i - 1].atMs >= 60'000);
        QVERIFY(std::abs(h[i].holders.total() - 11.0) < 1e-9);
        QVERIFY(h[i].holders.utilised <= 11.0 + 1e-9);
    }
    // Drawn: seven graphs (six stacked areas and the utilisation) with a point each.
    auto *plot = view.findChild<QCustomPlot *>(QStringLiteral("overviewHolders"));
    QVERIFY(plot);
    QCOMPARE(plot->graphCount(), 7);
    QTRY_COMPARE(plot->graph(5)->data()->size(), h.size());
    // The top area is the whole appliance.
    QCOMPARE((plot->graph(5)->data()->end() - 1)->value, 11.0);
}

void TestOverview::itSpeaksChinese()
{
    Widgets::LanguageController languages;
    Session::SimulationSession session(demoDay(), QString(), demoDay().seed);
    session.runTo(10 * 3600'000);
    Models::SessionClient client(&session);
    OverviewView view(&client);
    QVERIFY(languages.setLanguage(QStringLiteral("zh_CN")));
    QCoreApplication::processEvents();
    const QString text = view.headlineText();
    QVERIFY2(text.contains(QStringLiteral("服务")) && text.contains(QStringLiteral("等待")),
             qPrintable(text));
    QVERIFY2(!text.contains(QStringLiteral("waiting"))
                     && !text.contains(QStringLiteral("Services")),
             qPrintable(text));
    languages.setLanguage(QStringLiteral("en"));
}

// Under the time windows policy, the night and the day that follows are two shaded stretches,
// split at 07:00; a click on the chart names the moment under the pointer.
void TestOverview::theWindowsAreShadedAndAClickNamesAMoment()
{
    const Sim::Scenario day = demoDay();
    Session::SimulationSession session(day, QString(), day.seed);
    session.runTo(0);
    session.setSchedule(1, day.policyParams.value(QStringLiteral("windows")).toObject());
    Models::SessionClient client(&session);
    OverviewView view(&client);
    view.resize(1200, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    Widgets::catchUp(session, 8 * 3600'000, nullptr);
    QTRY_VERIFY(view.history().size() >= 400);
    const QList<OverviewView::Band> bands = view.windowBands();
    QCOMPARE(bands.size(), 2);
    QCOMPARE(bands[0].window, QStringLiteral("night"));
    QCOMPARE(bands[1].window, QStringLiteral("day"));
    const qint64 seven = day.startMs + 7 * 3600'000LL; // the demo day starts at 00:00 local
    QVERIFY2(std::abs(bands[1].fromMs - seven) <= 60'000,
             qPrintable(QString::number(bands[1].fromMs - seven)));
    QCOMPARE(bands[0].toMs, bands[1].fromMs);

    auto *plot = view.findChild<QCustomPlot *>(QStringLiteral("overviewHolders"));
    QVERIFY(plot);
    QTRY_COMPARE(plot->graph(5)->data()->size(), view.history().size()); // drawn
    plot->replot();
    const qint64 moment = day.startMs + 5 * 3600'000LL; // 05:00
    const int offset = client.snapshot()->utcOffsetSeconds;
    const QPoint at(qRound(plot->xAxis->coordToPixel(double(moment) / 1000.0 + offset)),
                    plot->axisRect()->center().y());
    QSignalSpy clicked(&view, &OverviewView::momentClicked);
    QTest::mouseClick(plot, Qt::LeftButton, Qt::NoModifier, at);
    QCOMPARE(clicked.size(), 1);
    QVERIFY(std::abs(clicked.first().first().toLongLong() - moment) <= 2 * 60'000);
    // Off the history, nothing.
    QCOMPARE(view.momentAt(QPoint(1, 1)), -1);
}

QTEST_MAIN(TestOverview)
#include "tst_overview.moc"
