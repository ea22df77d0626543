// SPDX-License-Identifier: GPL-3.0-or-later
// A card's day as the console learns it from snapshots (Models::CardTimeline): a unit's span ends
// when its holder, size or state changes and a new one starts; a repartition shows as spans that
// end and others that begin on new slots; old spans are trimmed past the horizon; a clock that
// goes back starts again; and over a real twin day the open spans are the cards' units now.
#include "core/catalogue/catalogue.h"
#include "core/models/cardtimeline.h"
#include "core/session/simulationsession.h"
#include "core/sim/scenario.h"

#include "tests/data/scenarios.h"
#include "tests/models/demostate.h"

#include <QTest>

#include <algorithm>

using namespace Zhaoxi;
using DemoState::bindJob;
using DemoState::demo;
using Domain::CardId;
using Models::CardTimeline;
using Models::TimelineSpan;
using Sched::ClusterState;

namespace {

constexpr qint64 kMinute = 60'000;

QList<TimelineSpan> openSpans(const CardTimeline &t, CardId card)
{
    QList<TimelineSpan> out;
    for (const TimelineSpan &s : t.spans(card)) {
        if (s.open)
            out << s;
    }
    return out;
}

} // namespace

class TestCardTimeline : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aHolderChangeStartsANewSpan();
    void aRepartitionEndsOldSlotsAndStartsNewOnes();
    void oldSpansAreTrimmedAndABackwardClockStartsAgain();
    void aTwinDayEndsWithTheCardsUnits();
};

void TestCardTimeline::aHolderChangeStartsANewSpan()
{
    ClusterState s = demo();
    const CardId card(7); // seven 1g.18gb instances
    const int uid = s.card(card).units[2].uid;
    CardTimeline t;
    t.observe(s, 0);
    QCOMPARE(t.memorySlots(card), 8);
    QCOMPARE(openSpans(t, card).size(), 7);
    t.observe(s, 5 * kMinute); // nothing changed: the same spans, longer
    QCOMPARE(t.spans(card).size(), 7);
    QCOMPARE(t.spans(card).first().toMs, 5 * kMinute);

    const Domain::JobId chat
            = bindJob(s, card, uid, QStringLiteral("chat"), Domain::WorkloadKind::Inference);
    t.observe(s, 10 * kMinute);
    QList<TimelineSpan> spans = t.spans(card);
    QCOMPARE(spans.size(), 8);
    // The free stretch of that unit ended when chat took it; chat's began then.
    const auto freeEnded = std::find_if(spans.cbegin(), spans.cend(), [&](const TimelineSpan &x) {
        return x.uid == uid && !x.open;
    });
    QVERIFY(freeEnded != spans.cend());
    QCOMPARE(freeEnded->fromMs, 0);
    QCOMPARE(freeEnded->toMs, 10 * kMinute);
    QVERIFY(!freeEnded->job.isValid());
    const TimelineSpan &held = spans.last();
    QCOMPARE(held.uid, uid);
    QCOMPARE(held.job, chat);
    QCOMPARE(held.jobName, QStringLiteral("chat"));
    QVERIFY(held.kind == Domain::WorkloadKind::Inference);
    QCOMPARE(held.profile, QStringLiteral("1g.18gb"));
    QCOMPARE(held.start, 2);
    QCOMPARE(held.span, 1);
    QVERIFY(held.open);

    s.unbind(chat, card, uid);
    t.observe(s, 30 * kMinute);
    spans = t.spans(card);
    QCOMPARE(spans.size(), 9);
    const auto chatSpan = std::find_if(
            spans.cbegin(), spans.cend(), [&](const TimelineSpan &x) { return x.job == chat; });
    QCOMPARE(chatSpan->fromMs, 10 * kMinute);
    QCOMPARE(chatSpan->toMs, 30 * kMinute);
    QVERIFY(!chatSpan->open);
    QCOMPARE(openSpans(t, card).size(), 7);
}

void TestCardTimeline::aRepartitionEndsOldSlotsAndStartsNewOnes()
{
    ClusterState s = demo();
    const CardId card(5); // 3g.71gb@0, 2g.35gb@4, 1g.18gb@6
    CardTimeline t;
    t.observe(s, 0);
    QCOMPARE(openSpans(t, card).size(), 3);
    const Domain::CardModel &model = s.model(s.card(card));
    // The 2g and the 1g go; a 3g takes their slots.
    const QList<Sched::Unit> units = s.card(card).units;
    for (const Sched::Unit &u : units) {
        if (u.start >= 4)
            s.destroyPartition(card, u.uid);
    }
    s.createPartition(card, model.profileIndex(QStringLiteral("3g.71gb")), 4);
    t.observe(s, kMinute);
    const QList<TimelineSpan> open = openSpans(t, card);
    QCOMPARE(open.size(), 2);
    QCOMPARE(open[0].profile, QStringLiteral("3g.71gb"));
    QCOMPARE(open[1].profile, QStringLiteral("3g.71gb"));
    QCOMPARE(open[1].start, 4);
    QCOMPARE(open[1].span, 4);
    QCOMPARE(open[1].fromMs, kMinute);
    int ended = 0;
    for (const TimelineSpan &x : t.spans(card))
        ended += !x.open && x.toMs == kMinute
                 && (x.profile == QLatin1String("2g.35gb")
                     || x.profile == QLatin1String("1g.18gb"));
    QCOMPARE(ended, 2);
}

void TestCardTimeline::oldSpansAreTrimmedAndABackwardClockStartsAgain()
{
    ClusterState s = demo();
    const CardId card(7);
    CardTimeline t(60 * kMinute);
    t.observe(s, 0);
    const int uid = s.card(card).units[0].uid;
    const Domain::JobId job
            = bindJob(s, card, uid, QStringLiteral("etl"), Domain::WorkloadKind::Batch);
    t.observe(s, 10 * kMinute);
    s.unbind(job, card, uid);
    t.observe(s, 20 * kMinute);
    QCOMPARE(t.spans(card).size(), 9);
    // An hour and a half on: etl's stretch ended before the horizon and goes; the free units'
    // spans stay, cut at the horizon.
    t.observe(s, 90 * kMinute);
    const QList<TimelineSpan> spans = t.spans(card);
    for (const TimelineSpan &x : spans) {
        QVERIFY(x.job != job);
        QVERIFY(x.fromMs >= 30 * kMinute);
    }
    QCOMPARE(t.firstMs(), 30 * kMinute);
    QCOMPARE(spans.size(), 7);
    // The day restarted: the clock goes back, the history starts again.
    t.observe(s, 5 * kMinute);
    QCOMPARE(t.firstMs(), 5 * kMinute);
    QCOMPARE(t.spans(card).size(), 7);
    QCOMPARE(t.spans(card).first().fromMs, 5 * kMinute);
}

void TestCardTimeline::aTwinDayEndsWithTheCardsUnits()
{
    const Sim::Scenario scenario = TestData::demoDay();
    Session::SimulationSession session(scenario, QString(), scenario.seed);
    session.runTo(0);
    CardTimeline t;
    const qint64 start = session.latest()->nowMs;
    for (qint64 at = 0; at <= 6 * 3600'000LL; at += kMinute) {
        session.runTo(at);
        const Session::SnapshotPtr snap = session.latest();
        t.observe(snap->state, snap->nowMs);
    }
    const Session::SnapshotPtr last = session.latest();
    int held = 0;
    int closed = 0;
    for (const Sched::CardState &c : last->state.cards()) {
        const QList<TimelineSpan> open = openSpans(t, c.id);
        QCOMPARE(open.size(), c.units.size());
        for (const Sched::Unit &u : c.units) {
            const auto it = std::find_if(open.cbegin(), open.cend(), [&](const TimelineSpan &x) {
                return x.uid == u.uid;
            });
            QVERIFY(it != open.cend());
            QCOMPARE(it->job, u.job);
            QCOMPARE(it->toMs, last->nowMs);
        }
        for (const TimelineSpan &x : t.spans(c.id)) {
            QVERIFY(x.fromMs >= start && x.fromMs <= x.toMs && x.toMs <= last->nowMs);
            held += x.job.isValid();
            closed += !x.open;
        }
    }
    // Six hours of the demo day: work came and went.
    QVERIFY(held > 0);
    QVERIFY(closed > 0);
}

QTEST_GUILESS_MAIN(TestCardTimeline)
#include "tst_cardtimeline.moc"
