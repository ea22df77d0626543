// SPDX-License-Identifier: GPL-3.0-or-later
// The console's twin learns from its store at its start (issue 18): a store holding two weeks of
// the service's request rate and its service time gives the run the recorded days (an event
// says how many, with their weekdays) and the measured time; one holding two days says the
// history is short and keeps the synthetic past; a fresh one says nothing.
#include "core/catalogue/catalogue.h"
#include "core/session/simulationsession.h"
#include "core/sim/scenario.h"
#include "core/storage/recorder.h"
#include "core/storage/store.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtTest>

using namespace Zhaoxi;

namespace {

constexpr qint64 kMin = 60'000;
constexpr qint64 kDay = 24 * 60 * kMin;

const Catalogue::Catalogue &catalogue()
{
    static const Catalogue::Catalogue c = Catalogue::Catalogue::builtIn();
    return c;
}

Sim::Scenario scenario()
{
    const QByteArray json = R"({
        "name": "learning", "start": "2026-01-17T00:00:00+08:00", "duration": "24h", "seed": 3,
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
             "rate": {"formula": "diurnal", "base": 2, "peak": 20, "peakHour": 12}}
        ],
        "policy": {"default": "forecast"}
    })";
    Sim::ScenarioError e;
    const auto s = Sim::readScenario(json, QStringLiteral("learning.json"), {}, catalogue(), &e);
    if (!s)
        qFatal("%s", qPrintable(e.toString()));
    return *s;
}

QList<Storage::Event> policyEvents(const QString &path, const QByteArray &code)
{
    QString err;
    const auto reader
            = Storage::Reader::open(path, Storage::Reader::OpenMode::RequireCurrent, &err);
    if (!reader)
        qFatal("%s", qPrintable(err));
    Storage::EventFilter f;
    f.codes = {code};
    f.sources = {Storage::Source::Policy};
    return reader->events(f);
}

QJsonObject params(const Storage::Event &e)
{
    return QJsonDocument::fromJson(e.params).object();
}

} // namespace

class TstLearnSession : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    // A store at `name` with `days` days of one sample a minute before the scenario's start,
    // and `serviceSamples` service-time samples on the service's unit.
    QString store(const QString &name, int days, int serviceSamples)
    {
        const QString path = m_dir.filePath(name);
        QString err;
        auto s = Storage::Store::open(path, &err);
        if (!s)
            qFatal("%s", qPrintable(err));
        Storage::Recorder rec(*s);
        const Sim::Scenario sc = scenario();
        const qint64 unit = Sim::replicaUnit(sc, sc.services[0]).unitMilli;
        const Storage::SeriesKey rate{
                Storage::Metric::RequestRate, -1, -1, QStringLiteral("chat"), -1};
        const Storage::SeriesKey time{
                Storage::Metric::ServiceTimeMs, -1, int(unit), QStringLiteral("chat"), -1};
        for (qint64 at = sc.startMs - days * kDay + kMin; at <= sc.startMs; at += kMin)
            rec.recordMetric(at, rate, 10);
        for (int i = 0; i < serviceSamples; ++i)
            rec.recordMetric(sc.startMs - kDay + i * kMin, time, 150);
        if (!s->flush())
            qFatal("%s", qPrintable(s->lastError()));
        return path;
    }

    void run(const QString &path)
    {
        Session::SimulationOptions o;
        o.storePath = path;
        Session::SimulationSession session(scenario(), QStringLiteral("forecast"), 3, o);
        session.runTo(10 * kMin);
        QString err;
        QVERIFY2(session.commitNow(&err), qPrintable(err));
    }

private Q_SLOTS:
    void aStoreWithAPastIsLearnt()
    {
        const QString path = store(QStringLiteral("fortnight.sqlite"), 14, 40);
        run(path);
        const QList<Storage::Event> learnt = policyEvents(path, "forecast-history-learned");
        QCOMPARE(learnt.size(), 1);
        QCOMPARE(learnt[0].atMs, scenario().startMs);
        QCOMPARE(params(learnt[0]).value(QStringLiteral("service")).toString(),
                 QStringLiteral("chat"));
        QCOMPARE(params(learnt[0]).value(QStringLiteral("days")).toInt(), 14);
        const QJsonArray weekdays = params(learnt[0]).value(QStringLiteral("weekdays")).toArray();
        QCOMPARE(weekdays.size(), 14);
        QCOMPARE(weekdays.first().toInt(), 6); // Saturday 3 January
        QCOMPARE(weekdays.last().toInt(), 5);  // Friday 16 January
        const QList<Storage::Event> time = policyEvents(path, "service-time-learned");
        QCOMPARE(time.size(), 1);
        QCOMPARE(params(time[0]).value(QStringLiteral("ms")).toDouble(), 150.0);
        QCOMPARE(params(time[0]).value(QStringLiteral("samples")).toInt(), 40);
        QVERIFY(policyEvents(path, "forecast-history-short").isEmpty());
    }

    void twoDaysAreShort()
    {
        const QString path = store(QStringLiteral("two.sqlite"), 2, 10);
        run(path);
        const QList<Storage::Event> shortOf = policyEvents(path, "forecast-history-short");
        QCOMPARE(shortOf.size(), 1);
        QCOMPARE(shortOf[0].severity, Storage::Severity::Warning);
        QCOMPARE(params(shortOf[0]).value(QStringLiteral("days")).toInt(), 2);
        QCOMPARE(params(shortOf[0]).value(QStringLiteral("needed")).toInt(), 3);
        QVERIFY(policyEvents(path, "forecast-history-learned").isEmpty());
        QVERIFY(policyEvents(path, "service-time-learned").isEmpty()); // 10 samples: too few
    }

    void aFreshStoreSaysNothing()
    {
        const QString path = m_dir.filePath(QStringLiteral("fresh.sqlite"));
        run(path);
        QVERIFY(policyEvents(path, "forecast-history-short").isEmpty());
        QVERIFY(policyEvents(path, "forecast-history-learned").isEmpty());
    }
};

QTEST_GUILESS_MAIN(TstLearnSession)
#include "tst_learnsession.moc"
