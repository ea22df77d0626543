// SPDX-License-Identifier: GPL-3.0-or-later
// Learning from the store (issue 18): a store holding days of a service's request rate, weekdays
// busy at noon and weekends in the evening, as the appliance records them (one sample a minute,
// stamped at the minute's end, rolled up into the minute and quarter-hour tiers and dropped past
// their retention). learnHistory gives the days back with their weekdays; the forecast then
// follows the same weekday's days (a Saturday its Saturdays, not the weekday noon peak), falls
// back to the day's class or to every day, and pools every day when the days say nothing of
// their weekday. Too few days are a short history (an event, the synthetic past kept); a day
// with a gap does not count; a service time needs enough samples on the unit.
#include "core/catalogue/catalogue.h"
#include "core/policy/forecast.h"
#include "core/replay/storehistory.h"
#include "core/sim/engine.h"
#include "core/sim/scenario.h"
#include "core/storage/recorder.h"
#include "core/storage/store.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace Zhaoxi;

namespace {

constexpr qint64 kMin = 60'000;
constexpr qint64 kHour = 60 * kMin;
constexpr qint64 kDay = 24 * kHour;
constexpr qint64 kOffset = 8 * kHour; // +08:00
// Saturday 2026-01-17 00:00 +08:00, in UTC epoch ms.
const qint64 kSaturday17 = QDateTime(QDate(2026, 1, 17), QTime(0, 0), Qt::OffsetFromUTC, 8 * 3600)
                                   .toMSecsSinceEpoch();

const Catalogue::Catalogue &catalogue()
{
    static const Catalogue::Catalogue c = Catalogue::Catalogue::builtIn();
    return c;
}

bool isWeekend(int weekday)
{
    return weekday >= 6;
}

// Weekdays: 10 req/s at night, 100 at noon; weekends: 5, and 40 at 20:00.
double rateAt(int weekday, double hour)
{
    const auto bump = [](double h, double at) { return std::exp(-(h - at) * (h - at) / 8.0); };
    return isWeekend(weekday) ? 5 + 35 * bump(hour, 20) : 10 + 90 * bump(hour, 12);
}

int weekdayOf(qint64 utcMs)
{
    const qint64 localDay = (utcMs + kOffset) / kDay; // after 1970: no negative days here
    return int((localDay + 3) % 7) + 1;
}

// One RequestRate sample a minute of the local day starting at `midnightUtc`, except the minutes
// in [gapFrom, gapTo) (hours of the day).
void recordDay(Storage::Recorder &rec,
               const QString &service,
               qint64 midnightUtc,
               double gapFromH = -1,
               double gapToH = -1)
{
    const int weekday = weekdayOf(midnightUtc);
    const Storage::SeriesKey key{Storage::Metric::RequestRate, -1, -1, service, -1};
    for (int m = 0; m < 1440; ++m) {
        const double hour = (m + 0.5) / 60.0;
        if (hour >= gapFromH && hour < gapToH)
            continue;
        rec.recordMetric(midnightUtc + (m + 1) * kMin, key, rateAt(weekday, hour));
    }
}

Sim::Scenario scenario(const QString &start = QStringLiteral("2026-01-17T00:00:00+08:00"))
{
    const QByteArray json = QStringLiteral(R"({
        "name": "learning", "start": "%1", "duration": "24h", "seed": 3,
        "appliance": {"name": "one", "hosts": [{"name": "h", "cpu": 128, "memoryGiB": 1024,
            "cards": [{"model": "H200-141GB", "mode": "mig", "count": 2}]}]},
        "history": {"days": 7, "noise": 0.1},
        "services": [
            {"spec": {"name": "chat", "kind": "inference",
                      "demand": {"compute": {"profile": "3g.71gb"}, "memoryGiB": 40},
                      "priority": 500, "preemption": "never", "isolation": "hard",
                      "inference": {"service": "chat", "sloP99Ms": 1000,
                                    "replicas": {"min": 1, "max": 4}}},
             "serviceTimeMs": 60, "loadTime": "20s",
             "rate": {"formula": "diurnal", "base": 10, "peak": 100, "peakHour": 12}}
        ],
        "policy": {"default": "static", "static": {"inferenceShare": 0.5}}
    })")
                                    .arg(start)
                                    .toUtf8();
    Sim::ScenarioError e;
    const auto s = Sim::readScenario(json, QStringLiteral("learning.json"), {}, catalogue(), &e);
    if (!s)
        qFatal("%s", qPrintable(e.toString()));
    return *s;
}

// The engine as a policy sees it, with its past as a context gives it: the scenario's learnt
// days by weekday (what LiveRun::historyDays answers), or days set by the test.
class HistoryContext : public Policy::PolicyContext
{
public:
    HistoryContext(Sim::Engine &engine, const Sim::Scenario &scenario)
        : m_inner(engine)
        , m_scenario(scenario)
    {}
    std::optional<Policy::HistoryDays> given;

    const Sched::Scheduler &scheduler() const override { return m_inner.scheduler(); }
    qint64 localWeekMs(qint64 nowMs) const override { return m_inner.localWeekMs(nowMs); }
    qint64 totalMilli() const override { return m_inner.totalMilli(); }
    QList<Policy::ServiceView> services(qint64 nowMs) override { return m_inner.services(nowMs); }
    QList<Policy::TrainingView> training(qint64 nowMs) override { return m_inner.training(nowMs); }
    void setReplicas(int service, int replicas, qint64 nowMs, Device::ActionReason why) override
    {
        m_inner.setReplicas(service, replicas, nowMs, why);
    }
    void setBudget(const Sched::ClassBudget &budget,
                   qint64 nowMs,
                   Device::ActionReason why) override
    {
        m_inner.setBudget(budget, nowMs, why);
    }
    qint64 requeueTraining(Domain::JobId job,
                           qint64 nowMs,
                           bool atCheckpoint,
                           Device::ActionReason why) override
    {
        return m_inner.requeueTraining(job, nowMs, atCheckpoint, why);
    }
    bool keepTraining(Domain::JobId job, qint64 nowMs, Device::ActionReason why) override
    {
        return m_inner.keepTraining(job, nowMs, why);
    }
    void setTrainingPowerCapW(double watts, qint64 nowMs) override
    {
        m_inner.setTrainingPowerCapW(watts, nowMs);
    }
    void setTrainingBandwidthShare(double share, qint64 nowMs) override
    {
        m_inner.setTrainingBandwidthShare(share, nowMs);
    }
    void record(const Device::ApplianceEvent &event) override { m_inner.record(event); }
    QList<QList<double>> history(int service) const override
    {
        return Sim::historyRates(historyDays(service, 0));
    }
    qint64 historyBucketMs() const override { return m_inner.historyBucketMs(); }
    Policy::HistoryDays historyDays(int service, qint64 nowMs) const override
    {
        Q_UNUSED(nowMs)
        if (given)
            return *given;
        return Sim::scenarioHistoryDays(m_scenario, service, 3, historyBucketMs());
    }

private:
    Policy::PolicyContext &m_inner;
    const Sim::Scenario &m_scenario;
};

// A forecast policy with its defaults.
struct PolicyRef
{
    std::unique_ptr<Policy::Policy> policy;
    PolicyRef()
    {
        Policy::PolicyError e;
        policy = Policy::Forecast::create({}, &e);
    }
    Policy::Forecast *operator->() { return static_cast<Policy::Forecast *>(policy.get()); }
    void start(Policy::PolicyContext &ctx, qint64 nowMs) { policy->start(ctx, nowMs); }
};

// Local time since Monday 00:00 of a weekday (1 Monday) at an hour.
qint64 weekAt(int weekday, double hour)
{
    return (weekday - 1) * kDay + qint64(hour * kHour);
}

} // namespace

class TstStoreHistory : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    int m_n = 0;
    // A fresh store; `fill` records into it; flushed.
    std::unique_ptr<Storage::Store> store(const std::function<void(Storage::Recorder &)> &fill)
    {
        QString err;
        auto s = Storage::Store::open(m_dir->filePath(QStringLiteral("s%1.sqlite").arg(++m_n)),
                                      &err);
        if (!s)
            qFatal("%s", qPrintable(err));
        Storage::Recorder rec(*s);
        fill(rec);
        if (!s->flush())
            qFatal("%s", qPrintable(s->lastError()));
        return s;
    }
    // The 14 days before Saturday 17 January (two of each weekday), one sample a minute.
    std::unique_ptr<Storage::Store> fortnight()
    {
        return store([](Storage::Recorder &rec) {
            for (int d = 14; d >= 1; --d)
                recordDay(rec, QStringLiteral("chat"), kSaturday17 - d * kDay);
        });
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        QCOMPARE(weekdayOf(kSaturday17), 6);
    }

    void learnsDaysWithWeekdays()
    {
        const auto s = fortnight();
        const auto reader = s->reader();
        QVERIFY(reader);
        // Asked at 10:00 on Saturday: the 14 days before it, whatever tier keeps them (the
        // minute tier is gone past 8 days, raw past 6 hours).
        const Replay::StoreHistory h = Replay::learnHistory(
                *reader, QStringLiteral("chat"), kSaturday17 + 10 * kHour, kOffset, 14);
        QVERIFY(h.enough());
        QCOMPARE(h.counted, 14);
        QCOMPARE(h.days.size(), 14);
        QCOMPARE(h.weekdays(), (QList<int>{6, 7, 1, 2, 3, 4, 5, 6, 7, 1, 2, 3, 4, 5}));
        for (int d = 0; d < 14; ++d) {
            const Policy::HistoryDay &day = h.days[d];
            QCOMPARE(day.rates.size(), 96);
            for (double hour : {3.0, 12.0, 20.0}) {
                // The bucket holding `hour`, its middle 7.5 min later.
                const double v = day.rates[int(hour * 4)];
                const double want = rateAt(day.weekday, hour + 0.125);
                QVERIFY2(std::abs(v - want) < 0.05 * want,
                         qPrintable(QStringLiteral("day %1 (%2) at %3: %4, want %5")
                                            .arg(d)
                                            .arg(day.weekday)
                                            .arg(hour)
                                            .arg(v)
                                            .arg(want)));
            }
        }
        // Another service: nothing recorded.
        const Replay::StoreHistory none = Replay::learnHistory(
                *reader, QStringLiteral("image"), kSaturday17 + 10 * kHour, kOffset, 14);
        QCOMPARE(none.shortfall, Replay::HistoryShortfall::NoSamples);
        QCOMPARE(none.counted, 0);
    }

    void forecastFollowsTheSameWeekday()
    {
        const auto s = fortnight();
        Sim::Scenario sc = scenario();
        const auto reader = s->reader();
        const QList<Replay::LearnEvent> events
                = Replay::learnScenario(*reader, sc, sc.startMs, Replay::LearnOptions{14, 3, 30});
        QCOMPARE(events.size(), 1);
        QCOMPARE(events[0].code, QByteArray("forecast-history-learned"));
        QCOMPARE(events[0].params.value(QStringLiteral("days")).toInt(), 14);
        QCOMPARE(events[0].params.value(QStringLiteral("weekdays")).toArray().size(), 14);
        QCOMPARE(sc.learned.value(QStringLiteral("chat")).days.size(), 14);

        Sim::Engine engine(sc, QStringLiteral("static"), 3);
        engine.start();
        HistoryContext ctx(engine, sc);
        PolicyRef f;
        f.start(ctx, engine.nowMs());
        QCOMPARE(f->shapeSource(0, 6), QStringLiteral("6"));
        QCOMPARE(f->shapeSource(0, 1), QStringLiteral("1"));
        // Saturday: quiet at noon, its evening peak at 20:00; Monday: the noon peak.
        QVERIFY2(f->shapeAt(0, weekAt(6, 12)) < 8,
                 qPrintable(QString::number(f->shapeAt(0, weekAt(6, 12)))));
        QVERIFY(std::abs(f->shapeAt(0, weekAt(6, 20)) - 40) < 2);
        QVERIFY(std::abs(f->shapeAt(0, weekAt(1, 12)) - 100) < 3);
        QVERIFY(f->forecastMax(0, weekAt(6, 11), weekAt(6, 13), 1) < 10);

        // The same days pooled (as a context whose days say nothing of their weekday): Saturday
        // noon forecasts the weekday peak, ten weekdays to four weekend days.
        Policy::HistoryDays pooled = Sim::scenarioHistoryDays(sc, 0, 3, 15 * kMin);
        pooled.byWeekday = false;
        ctx.given = pooled;
        PolicyRef p;
        p.start(ctx, engine.nowMs());
        QCOMPARE(p->shapeSource(0, 6), QStringLiteral("all"));
        QVERIFY(p->shapeAt(0, weekAt(6, 12)) > 60);
    }

    void forecastFallsBackToTheClassThenEveryDay()
    {
        Sim::Scenario sc = scenario();
        Sim::Engine engine(sc, QStringLiteral("static"), 3);
        engine.start();
        HistoryContext ctx(engine, sc);
        auto day = [](int weekday, double level) {
            return Policy::HistoryDay{weekday, QList<double>(96, level)};
        };
        // One of each weekday: Saturday from the weekend's two days, Monday from the five.
        ctx.given = Policy::HistoryDays{
                {day(1, 10), day(2, 20), day(3, 30), day(4, 40), day(5, 50), day(6, 6), day(7, 8)},
                true};
        PolicyRef f;
        f.start(ctx, engine.nowMs());
        QCOMPARE(f->shapeSource(0, 6), QStringLiteral("weekend"));
        QCOMPARE(f->shapeSource(0, 1), QStringLiteral("weekdays"));
        QCOMPARE(f->shapeAt(0, weekAt(7, 12)), 7.0);
        QCOMPARE(f->shapeAt(0, weekAt(2, 12)), 30.0);
        // One weekend day: every day's mean for the weekend, the five for weekdays.
        ctx.given = Policy::HistoryDays{
                {day(1, 10), day(2, 20), day(3, 30), day(4, 40), day(5, 50), day(6, 20)}, true};
        PolicyRef g;
        g.start(ctx, engine.nowMs());
        QCOMPARE(g->shapeSource(0, 6), QStringLiteral("all"));
        QCOMPARE(g->shapeAt(0, weekAt(6, 12)), 170.0 / 6);
        QCOMPARE(g->shapeSource(0, 3), QStringLiteral("weekdays"));
        // Days not told apart by weekday (the synthetic past of a daily curve): every day's
        // mean, summed in order as before weekdays counted.
        const Policy::HistoryDays synthetic = Sim::scenarioHistoryDays(sc, 0, 3, 15 * kMin);
        QVERIFY(!synthetic.byWeekday);
        QCOMPARE(synthetic.days.size(), 7);
        QCOMPARE(synthetic.days.last().weekday, 5); // Friday before Saturday's start
        QCOMPARE(synthetic.days.first().weekday, 6);
        const QList<QList<double>> rates = Sim::syntheticHistory(sc, 0, 3, 15 * kMin);
        QCOMPARE(Sim::historyRates(synthetic), rates);
        ctx.given = synthetic;
        PolicyRef h;
        h.start(ctx, engine.nowMs());
        for (int w = 1; w <= 7; ++w)
            QCOMPARE(h->shapeSource(0, w), QStringLiteral("all"));
        double sum = 0;
        for (const QList<double> &d : rates)
            sum += d[40];
        QCOMPARE(h->shapeAt(0, weekAt(3, 10 + 0.125)), sum / 7);
    }

    void twoDaysAreShort()
    {
        const auto s = store([](Storage::Recorder &rec) {
            for (int d = 2; d >= 1; --d)
                recordDay(rec, QStringLiteral("chat"), kSaturday17 - d * kDay);
        });
        const auto reader = s->reader();
        const Replay::StoreHistory h
                = Replay::learnHistory(*reader, QStringLiteral("chat"), kSaturday17, kOffset, 7);
        QVERIFY(!h.enough());
        QCOMPARE(h.shortfall, Replay::HistoryShortfall::TooFewDays);
        QCOMPARE(h.counted, 2);
        QCOMPARE(h.days.size(), 7);
        QVERIFY(h.days[0].rates.isEmpty());
        QCOMPARE(h.days[5].weekday, 4);
        QCOMPARE(h.days[6].rates.size(), 96);

        // A run: an event says so, and the synthetic past stays.
        Sim::Scenario sc = scenario();
        const QList<Replay::LearnEvent> events = Replay::learnScenario(*reader, sc, sc.startMs);
        QCOMPARE(events.size(), 1);
        QCOMPARE(events[0].code, QByteArray("forecast-history-short"));
        QCOMPARE(events[0].severity, Storage::Severity::Warning);
        QCOMPARE(events[0].params.value(QStringLiteral("service")).toString(),
                 QStringLiteral("chat"));
        QCOMPARE(events[0].params.value(QStringLiteral("days")).toInt(), 2);
        QCOMPARE(events[0].params.value(QStringLiteral("needed")).toInt(), 3);
        QVERIFY(sc.learned.isEmpty());
        QCOMPARE(Sim::historyRates(Sim::scenarioHistoryDays(sc, 0, 3, 15 * kMin)),
                 Sim::syntheticHistory(sc, 0, 3, 15 * kMin));

        // Recorded as a policy event.
        Storage::Recorder rec(*s);
        Replay::recordLearnEvents(rec, sc.startMs, events);
        QVERIFY(s->flush());
        Storage::EventFilter filter;
        filter.codes = {QByteArray("forecast-history-short")};
        const QList<Storage::Event> stored = reader->events(filter);
        QCOMPARE(stored.size(), 1);
        QCOMPARE(stored[0].source, Storage::Source::Policy);
        QCOMPARE(stored[0].severity, Storage::Severity::Warning);
    }

    void freshStoreLearnsNothing()
    {
        const auto s = store([](Storage::Recorder &) {});
        Sim::Scenario sc = scenario();
        const auto reader = s->reader();
        QVERIFY(Replay::learnScenario(*reader, sc, sc.startMs).isEmpty());
        QVERIFY(sc.learned.isEmpty());
        QCOMPARE(sc.services[0].serviceMs, 60.0);
    }

    void gapsLeaveDaysOut()
    {
        // Friday: 3 hours missing (12 of 96 buckets), not counted; Thursday: 1 hour (4 of 96),
        // counted, its hole filled from either side; Wednesday: whole.
        const auto s = store([](Storage::Recorder &rec) {
            recordDay(rec, QStringLiteral("chat"), kSaturday17 - 3 * kDay);
            recordDay(rec, QStringLiteral("chat"), kSaturday17 - 2 * kDay, 5, 6);
            recordDay(rec, QStringLiteral("chat"), kSaturday17 - 1 * kDay, 9, 12);
        });
        const auto reader = s->reader();
        const Replay::StoreHistory h = Replay::learnHistory(
                *reader, QStringLiteral("chat"), kSaturday17, kOffset, 3, 15 * kMin, 2);
        QCOMPARE(h.counted, 2);
        QCOMPARE(h.partial, 1);
        QVERIFY(h.enough());
        QCOMPARE(h.weekdays(), (QList<int>{3, 4}));
        QVERIFY(h.days[2].rates.isEmpty());
        const QList<double> &thu = h.days[1].rates;
        QCOMPARE(thu.size(), 96);
        // Minutes 05:00-06:00 are stamped 05:01-06:00: buckets 21..23 are empty (20 holds the
        // 04:59 minute, 24 the rest of 06:00-06:15), filled linearly between their neighbours.
        QVERIFY(thu[21] > thu[20] && thu[21] < thu[24]);
        const double t = (thu[24] - thu[20]) / 4.0;
        QVERIFY(std::abs(thu[22] - (thu[20] + 2 * t)) < 1e-9);
    }

    void serviceTimes()
    {
        Sim::Scenario sc = scenario();
        const Sim::ReplicaUnit unit = Sim::replicaUnit(sc, sc.services[0]);
        QVERIFY(unit.unitMilli > 0 && unit.unitMilli < 1000);
        const qint64 from = kSaturday17 - 2 * kDay;
        auto key = [](qint64 milli) {
            return Storage::SeriesKey{
                    Storage::Metric::ServiceTimeMs, -1, int(milli), QStringLiteral("chat"), -1};
        };
        // The service's unit: 20 samples, too few. A whole card: 30 of 50 ms and 10 of 90 ms.
        const auto few = store([&](Storage::Recorder &rec) {
            for (int i = 0; i < 20; ++i)
                rec.recordMetric(from + i * kMin, key(unit.unitMilli), 140);
            for (int i = 0; i < 40; ++i)
                rec.recordMetric(from + i * kMin, key(1000), i < 30 ? 50 : 90);
        });
        {
            const auto reader = few->reader();
            const QMap<qint64, Replay::ServiceTime> t = Replay::learnServiceTimes(
                    *reader, QStringLiteral("chat"), from - kDay, kSaturday17, 30);
            QCOMPARE(t.size(), 1);
            QVERIFY(t.contains(1000));
            QCOMPARE(t.value(1000).samples, 40);
            QVERIFY(std::abs(t.value(1000).ms - 60) < 1e-9);
            // Outside the period asked: nothing.
            QVERIFY(Replay::learnServiceTimes(
                            *reader, QStringLiteral("chat"), from + kHour, kSaturday17, 1)
                            .isEmpty());
            // Not the service's own unit: the scenario's time stays, no event for it.
            Sim::Scenario copy = sc;
            const QList<Replay::LearnEvent> events
                    = Replay::learnScenario(*reader, copy, copy.startMs);
            QCOMPARE(copy.services[0].serviceMs, 60.0);
            for (const Replay::LearnEvent &e : events)
                QVERIFY(e.code != "service-time-learned");
        }
        // Enough on the service's unit, over an hour (rolled up past the first minutes): the
        // weighted mean, in reference-card ms.
        const auto enough = store([&](Storage::Recorder &rec) {
            for (int i = 0; i < 90; ++i)
                rec.recordMetric(from + i * kMin, key(unit.unitMilli), i < 60 ? 100 : 160);
        });
        const auto reader = enough->reader();
        const QMap<qint64, Replay::ServiceTime> t = Replay::learnServiceTimes(
                *reader, QStringLiteral("chat"), from - kDay, kSaturday17, 30);
        QCOMPARE(t.value(unit.unitMilli).samples, 90);
        QVERIFY(std::abs(t.value(unit.unitMilli).ms - 120) < 1e-9);
        const QList<Replay::LearnEvent> events = Replay::learnScenario(*reader, sc, sc.startMs);
        const auto learnt
                = std::find_if(events.begin(), events.end(), [](const Replay::LearnEvent &e) {
                      return e.code == "service-time-learned";
                  });
        QVERIFY(learnt != events.end());
        QCOMPARE(learnt->params.value(QStringLiteral("unitMilli")).toInteger(), unit.unitMilli);
        QCOMPARE(learnt->params.value(QStringLiteral("samples")).toInt(), 90);
        QVERIFY(std::abs(sc.services[0].serviceMs - 120 * unit.unitRef) < 1e-9);
        QVERIFY(std::abs(sc.learned.value(QStringLiteral("chat")).serviceMs - 120 * unit.unitRef)
                < 1e-9);
        // The history: none recorded, so a short one alongside.
        QCOMPARE(events.first().code, QByteArray("forecast-history-short"));
    }
};

QTEST_GUILESS_MAIN(TstStoreHistory)
#include "tst_storehistory.moc"
