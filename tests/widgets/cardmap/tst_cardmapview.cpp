// SPDX-License-Identifier: GPL-3.0-or-later
// The card map on the offscreen platform: it draws the demo appliance's MIG layouts where they
// are (hit tests find the right partition of the right card), fits 64 cards, and takes jobs
// dropped from the jobs table as the scheduler says: placed where they fit, refused with the
// reason where they do not, placed by preemption only after the operator agreed; undo takes a
// placement back. A session that answers later shows "checking" meanwhile.
#include "tests/models/fixture.h"

#include "core/models/jobtablemodel.h"
#include "core/sched/appliancefile.h"
#include "widgets/cardmap/cardmapview.h"
#include "widgets/cardmap/cardtile.h"
#include "widgets/cardmap/jobsview.h"
#include "widgets/cardmap/preemptiondialog.h"
#include "widgets/cardmap/reasontext.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QContextMenuEvent>
#include <QDateTime>
#include <QDragEnterEvent>
#include <QHelpEvent>
#include <QLocale>
#include <QMenu>
#include <QMimeData>
#include <QScrollBar>
#include <QSet>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>
#include <QTimeZone>
#include <QToolTip>
#include <QUndoStack>

using namespace Zhaoxi;
using namespace CardMapFixture;
using Domain::CardId;
using Domain::JobId;
using Models::JobTableModel;
using Sched::JobState;
using Session::PlacementPreview;
using Widgets::CardMapView;
using DropState = Widgets::CardMapView::DropState;

namespace {

Sched::Appliance demoAppliance()
{
    static const Catalogue::Catalogue catalogue = Catalogue::Catalogue::builtIn();
    Sched::ApplianceError error;
    const std::optional<Sched::Appliance> a = Sched::loadApplianceFile(
            QStringLiteral(ZHAOXI_SOURCE_DIR "/resources/appliances/demo.json"), catalogue, &error);
    if (!a)
        qFatal("demo appliance: %s", qPrintable(error.toString()));
    return *a;
}

Session::SnapshotPtr snapshotOf(const Sched::ClusterState &state, quint64 serial = 1)
{
    auto s = std::make_shared<Session::Snapshot>();
    s->serial = serial;
    s->state = state;
    for (const Sched::CardState &c : state.cards()) {
        Session::CardSample sample;
        sample.card = c.id.value();
        sample.utilisation = 0.5;
        sample.temperatureC = 60 + c.id.value();
        sample.powerW = 300;
        sample.powerLimitW = 700;
        sample.memoryTotalMiB = state.model(c).memoryMiB;
        s->cards.append(sample);
    }
    return s;
}

// The unit of `card` that starts at MIG slot `start`.
int uidAt(const Sched::ClusterState &state, int card, int start)
{
    for (const Sched::Unit &u : state.cards()[card].units) {
        if (u.start == start)
            return u.uid;
    }
    return -1;
}

// A drag of one job's id, as the jobs table makes it.
std::unique_ptr<QMimeData> jobDrag(JobId job)
{
    auto data = std::make_unique<QMimeData>();
    data->setData(JobTableModel::mimeType(), JobTableModel::encodeJobIds({job}));
    return data;
}

bool dragEnter(CardMapView &map, const QMimeData *data, const QPoint &at)
{
    QDragEnterEvent e(at, Qt::MoveAction, data, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(map.viewport(), &e);
    return e.isAccepted();
}

bool dragMove(CardMapView &map, const QMimeData *data, const QPoint &at)
{
    QDragMoveEvent e(at, Qt::MoveAction, data, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(map.viewport(), &e);
    return e.isAccepted();
}

bool drop(CardMapView &map, const QMimeData *data, const QPoint &at)
{
    QDropEvent e(QPointF(at), Qt::MoveAction, data, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(map.viewport(), &e);
    return e.isAccepted();
}

// Drags `job` from outside over the centre of `card` and drops it there; returns whether the
// map took the drop.
bool dragAndDrop(CardMapView &map, JobId job, int card)
{
    const std::unique_ptr<QMimeData> data = jobDrag(job);
    const QPoint at = map.cardRect(CardId(card)).center();
    if (!dragEnter(map, data.get(), at))
        return false;
    dragMove(map, data.get(), at);
    return drop(map, data.get(), at);
}

// An appliance that answers only when the test says so (a session on a busy thread).
class LateSession : public Session::ApplianceSession
{
    Q_OBJECT

public:
    struct Asked
    {
        quint64 request;
        int job;
        int card;
        bool preempt = false;
        bool overBudget = false;
    };

    explicit LateSession(Session::SnapshotPtr snapshot)
        : m_snapshot(std::move(snapshot))
    {}

    Session::SnapshotPtr latest() const override { return m_snapshot; }
    void start() override {}
    void stop() override {}
    void setSpeed(double) override {}
    void setPaused(bool) override {}
    void setPollIntervalMs(int) override {}
    void previewPlacement(quint64 request, int job, int card) override
    {
        previews.append({request, job, card});
    }
    void placeJob(quint64 request, int job, int card, bool allowPreemption) override
    {
        places.append({request, job, card, allowPreemption});
    }
    void placeJobConfirmed(
            quint64 request, int job, int card, QList<int>, Sched::BudgetRule budget) override
    {
        places.append({request, job, card, true, budget == Sched::BudgetRule::Exceed});
    }
    void requeueJob(quint64 request, int job) override { requeues.append({request, job, -1}); }
    void previewLayout(quint64, int, QList<Domain::MigPlacement>) override {}
    void applyLayout(quint64, int, QList<Domain::MigPlacement>, Session::ApplyMode, qint64) override
    {}
    void setSchedule(quint64, QJsonObject) override {}
    void submitWorkload(quint64, QJsonObject) override {}
    void cancelJob(quint64, int) override {}
    void setJobPriority(quint64, int, int) override {}
    void pinLayout(quint64, int, qint64) override {}
    void requestJobLog(quint64, int, qint64) override {}

    void answer(const Asked &asked, PlacementPreview::Outcome outcome, Sched::Status status = {})
    {
        PlacementPreview p;
        p.request = asked.request;
        p.job = JobId(asked.job);
        p.card = CardId(asked.card);
        p.outcome = outcome;
        p.status = status;
        Q_EMIT placementPreviewReady(p);
    }
    void answer(PlacementPreview p, const Asked &asked)
    {
        p.request = asked.request;
        p.job = JobId(asked.job);
        p.card = CardId(asked.card);
        Q_EMIT placementPreviewReady(p);
    }
    void publishAgain()
    {
        auto next = std::make_shared<Session::Snapshot>(*m_snapshot);
        next->serial = m_snapshot->serial + 1;
        m_snapshot = next;
        Q_EMIT snapshotReady(m_snapshot);
    }

    QList<Asked> previews;
    QList<Asked> places;
    QList<Asked> requeues;

private:
    Session::SnapshotPtr m_snapshot;
};

} // namespace

class TestCardMapView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void partitionsSitAtTheirSlots();
    void clickSelectsCardPartitionAndJob();
    void tooltipTellsThePartition();
    void tooltipTellsWhoseTheCardIs();
    void aCardsMenuRepartitionsPinsAndUnpins();
    void aCardsMenuCordonsDrainsAndUncordons();
    void aRefusedDropSaysWhenItFits();
    void healthNotLevel();
    void fitsSixtyFourCards();
    void aLinkDomainThatWrapsKeepsOneName();
    void badgesFollowTheThresholds();
    void everyReasonHasWords_data();
    void everyReasonHasWords();
    void dropPlacesWhereItFits();
    void dropIsRefusedWithTheReason_data();
    void dropIsRefusedWithTheReason();
    void preemptionAsksFirst();
    void aConfirmedPlanThatChangedIsRefusedAndAskedAgain();
    void undoRequeuesRedoPlaces();
    void answersAreCachedPerSnapshot();
    void lateAnswersShowCheckingFirst();
    void placeAnywayOverTheBudgetAsksFirst();
    void aRefusedDropOffersTheLayoutThatFits();
    void jobsViewFiltersWaiting();
};

void TestCardMapView::partitionsSitAtTheirSlots()
{
    const Sched::Appliance demo = demoAppliance();
    CardMapView map(nullptr);
    map.resize(1200, 800);
    map.show();
    QVERIFY(QTest::qWaitForWindowExposed(&map));
    map.setSnapshot(snapshotOf(demo.state));

    // Card 5 of the demo appliance: 3g.71gb@0, 2g.35gb@4, 1g.18gb@6 (slot 7 free).
    const CardId card(5);
    const int g3 = uidAt(demo.state, 5, 0);
    const int g2 = uidAt(demo.state, 5, 4);
    const int g1 = uidAt(demo.state, 5, 6);
    const QRect r3 = map.unitRect(card, g3);
    const QRect r2 = map.unitRect(card, g2);
    const QRect r1 = map.unitRect(card, g1);
    QVERIFY(!r3.isEmpty() && !r2.isEmpty() && !r1.isEmpty());
    QVERIFY(map.cardRect(card).contains(r3) && map.cardRect(card).contains(r1));

    // Widths follow the spans (4, 2 and 1 of 8 memory slots), offsets the start slots.
    QVERIFY(qAbs(r3.width() - 2 * r2.width()) <= 2);
    QVERIFY(qAbs(r2.width() - 2 * r1.width()) <= 2);
    QVERIFY(qAbs(r2.left() - r3.right()) <= 2);
    QVERIFY(qAbs(r1.left() - r2.right()) <= 2);

    // Each unit's middle hits that unit of that card; slot 7 hits the card and no unit.
    for (int uid : {g3, g2, g1}) {
        const CardMapView::Hit hit = map.hitTest(map.unitRect(card, uid).center());
        QCOMPARE(hit.card, card);
        QCOMPARE(hit.unitUid, uid);
    }
    const QPoint slot7(r1.right() + r1.width() / 2, r1.center().y());
    QCOMPARE(map.hitTest(slot7).card, card);
    QCOMPARE(map.hitTest(slot7).unitUid, -1);

    // The next card (seven 1g instances) is somewhere else; so is a whole card.
    const CardMapView::Hit next
            = map.hitTest(map.unitRect(CardId(7), uidAt(demo.state, 7, 3)).center());
    QCOMPARE(next.card, CardId(7));
    QCOMPARE(next.unitUid, uidAt(demo.state, 7, 3));
    const CardMapView::Hit whole = map.hitTest(map.cardRect(CardId(0)).center());
    QCOMPARE(whole.card, CardId(0));
    QCOMPARE(whole.unitUid, demo.state.cards()[0].units.first().uid);
    // Between the tiles: nothing.
    QVERIFY(!map.hitTest(QPoint(1, 1)).card.isValid());
}

void TestCardMapView::clickSelectsCardPartitionAndJob()
{
    Appliance a;
    a.runTo(8 * kMinute);
    CardMapView map(&a.client);
    map.resize(1000, 700);
    map.show();
    QVERIFY(QTest::qWaitForWindowExposed(&map));
    QSignalSpy cards(&map, &CardMapView::cardSelected);
    QSignalSpy partitions(&map, &CardMapView::partitionSelected);
    QSignalSpy jobs(&map, &CardMapView::jobSelected);

    const Sched::CardState &c = a.now().state.cards()[kH200c];
    const int uid = c.units.first().uid;
    QTest::mouseClick(
            map.viewport(), Qt::LeftButton, {}, map.unitRect(CardId(kH200c), uid).center());
    QCOMPARE(cards.size(), 1);
    QCOMPARE(cards.first().first().value<CardId>(), CardId(kH200c));
    QCOMPARE(partitions.size(), 1);
    QCOMPARE(partitions.first().at(1).toInt(), uid);
    QCOMPARE(jobs.size(), 1);
    QCOMPARE(jobs.first().first().value<JobId>(), a.job(QStringLiteral("solo-b")));
    QCOMPARE(map.selectedJob(), a.job(QStringLiteral("solo-b")));

    // The jobs table chose a job: its card and unit are selected, without a signal.
    map.selectJob(a.job(QStringLiteral("gang-a")));
    QVERIFY(map.selectedCard() == CardId(kH200a) || map.selectedCard() == CardId(kH200b));
    QCOMPARE(map.selectedJob(), a.job(QStringLiteral("gang-a")));
    map.selectJob(a.job(QStringLiteral("small-l"))); // waiting: nowhere
    QVERIFY(!map.selectedCard().isValid());
    QCOMPARE(cards.size(), 1);

    // The free L40S: a card, no job.
    QTest::mouseClick(map.viewport(), Qt::LeftButton, {}, map.cardRect(CardId(kL40S)).center());
    QCOMPARE(cards.size(), 2);
    QCOMPARE(map.selectedCard(), CardId(kL40S));
    QCOMPARE(jobs.size(), 1);
}

void TestCardMapView::tooltipTellsThePartition()
{
    const Sched::Appliance demo = demoAppliance();
    CardMapView map(nullptr);
    map.resize(1200, 800);
    map.show();
    QVERIFY(QTest::qWaitForWindowExposed(&map));
    map.setSnapshot(snapshotOf(demo.state));
    const QPoint at = map.unitRect(CardId(5), uidAt(demo.state, 5, 4)).center();
    QHelpEvent help(QEvent::ToolTip, at, map.viewport()->mapToGlobal(at));
    QCoreApplication::sendEvent(map.viewport(), &help);
    const QString text = QToolTip::text();
    QVERIFY2(text.contains(QStringLiteral("2g.35gb at slot 4")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("32.5 GiB")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Job: none (free)")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("State: ready")), qPrintable(text));
    QToolTip::hideText();
}

void TestCardMapView::aCardsMenuRepartitionsPinsAndUnpins()
{
    Appliance a;
    a.runTo(8 * kMinute);
    CardMapView map(&a.client);
    map.resize(1000, 700);
    map.show();
    QVERIFY(QTest::qWaitForWindowExposed(&map));
    const CardId card(kH200a); // whole: pinned, it is not switched to another mode either
    const auto action = [](QMenu *menu, const char *name) {
        return menu ? menu->findChild<QAction *>(QLatin1String(name)) : nullptr;
    };
    std::unique_ptr<QMenu> menu(map.createCardMenu(card, &map));
    QVERIFY(menu);
    QVERIFY(!action(menu.get(), "unpinLayout"));
    QVERIFY(!action(menu.get(), "repartitionCard")->isEnabled()); // not a MIG card
    {
        // A MIG card's "Repartition…" asks the window to open the editor on it.
        const Sched::Appliance demo = demoAppliance();
        CardMapView shown(nullptr);
        shown.setSnapshot(snapshotOf(demo.state));
        const std::unique_ptr<QMenu> migMenu(shown.createCardMenu(CardId(5), &shown));
        QSignalSpy repartition(&shown, &CardMapView::repartitionRequested);
        QAction *open = action(migMenu.get(), "repartitionCard");
        QVERIFY(open && open->isEnabled());
        open->trigger();
        QCOMPARE(repartition.size(), 1);
        QCOMPARE(repartition.first().first().value<CardId>(), CardId(5));
        // Without a session nothing can be pinned.
        QVERIFY(!action(migMenu.get(), "pinLayout")->isEnabled());
    }

    QAction *pin = action(menu.get(), "pinLayout");
    QVERIFY(pin && pin->isEnabled());
    pin->trigger();
    QTRY_COMPARE(a.now().state.card(card).layoutPinnedUntilMs, qint64(-1));
    // The tile says so, and its tooltip says what it means.
    const QPoint at = map.cardRect(card).topLeft() + QPoint(4, map.cardRect(card).height() - 4);
    QHelpEvent help(QEvent::ToolTip, at, map.viewport()->mapToGlobal(at));
    QCoreApplication::sendEvent(map.viewport(), &help);
    QVERIFY2(QToolTip::text().contains(QStringLiteral("Layout pinned until unpinned")),
             qPrintable(QToolTip::text()));
    QToolTip::hideText();

    menu.reset(map.createCardMenu(card, &map));
    QVERIFY(!action(menu.get(), "pinLayout"));
    action(menu.get(), "unpinLayout")->trigger();
    QTRY_COMPARE(a.now().state.card(card).layoutPinnedUntilMs, qint64(0));
    // No menu off the cards.
    QVERIFY(!map.createCardMenu(CardId(), &map));
    // A right-click on a job's partition asks for the job's menu, not the card's.
    const Sched::ClusterState &st = a.now().state;
    for (const Sched::CardState &c : st.cards()) {
        const auto u = std::find_if(c.units.cbegin(), c.units.cend(), [](const Sched::Unit &x) {
            return x.job.isValid();
        });
        if (u == c.units.cend())
            continue;
        QSignalSpy jobMenu(&map, &CardMapView::jobMenuRequested);
        const QPoint on = map.unitRect(c.id, u->uid).center();
        QContextMenuEvent right(QContextMenuEvent::Mouse, on, map.viewport()->mapToGlobal(on));
        QCoreApplication::sendEvent(map.viewport(), &right);
        QCOMPARE(jobMenu.size(), 1);
        QCOMPARE(jobMenu.first().first().value<JobId>(), u->job);
        break;
    }
}

// Cordon from a card's menu: its work stays, the tile says so; "Drain…" asks first with the jobs
// that leave and how, then sends them back to the queue; "Uncordon" lifts it.
void TestCardMapView::aCardsMenuCordonsDrainsAndUncordons()
{
    Appliance a;
    a.runTo(8 * kMinute);
    CardMapView map(&a.client);
    map.resize(1000, 700);
    map.show();
    QVERIFY(QTest::qWaitForWindowExposed(&map));
    const auto action = [](QMenu *menu, const char *name) {
        return menu ? menu->findChild<QAction *>(QLatin1String(name)) : nullptr;
    };
    // A card with running work.
    CardId card;
    QList<JobId> onIt;
    for (const Sched::CardState &c : a.now().state.cards()) {
        for (const Sched::Unit &u : c.units) {
            if (u.job.isValid() && a.now().state.job(u.job).state == Sched::JobState::Running
                && !onIt.contains(u.job))
                onIt << u.job;
        }
        if (!onIt.isEmpty()) {
            card = c.id;
            break;
        }
    }
    QVERIFY(card.isValid());
    std::unique_ptr<QMenu> menu(map.createCardMenu(card, &map));
    QVERIFY(!action(menu.get(), "uncordonCard"));
    action(menu.get(), "cordonCard")->trigger();
    QTRY_VERIFY(a.now().state.card(card).operatorCordoned);
    for (JobId j : onIt)
        QCOMPARE(a.now().state.job(j).state, Sched::JobState::Running);
    const QPoint at = map.cardRect(card).topLeft() + QPoint(4, map.cardRect(card).height() - 4);
    QHelpEvent help(QEvent::ToolTip, at, map.viewport()->mapToGlobal(at));
    QCoreApplication::sendEvent(map.viewport(), &help);
    QVERIFY2(QToolTip::text().contains(QStringLiteral("Cordoned")), qPrintable(QToolTip::text()));
    QToolTip::hideText();

    // Drain, declined: nothing leaves. Accepted: every job on it leaves.
    QStringList asked;
    bool accept = false;
    map.setDrainConfirmation([&](CardId c, const QStringList &lines) {
        asked = lines;
        return c == card && accept;
    });
    menu.reset(map.createCardMenu(card, &map));
    QVERIFY(action(menu.get(), "uncordonCard"));
    action(menu.get(), "drainCard")->trigger();
    QCOMPARE(asked.size(), onIt.size());
    QVERIFY2(asked.first().contains(QStringLiteral("leaves")), qPrintable(asked.first()));
    QTest::qWait(20);
    for (JobId j : onIt)
        QCOMPARE(a.now().state.job(j).state, Sched::JobState::Running);
    accept = true;
    action(menu.get(), "drainCard")->trigger();
    QTRY_VERIFY(std::all_of(onIt.cbegin(), onIt.cend(), [&](JobId j) {
        const Sched::Job &job = a.now().state.job(j);
        return job.state != Sched::JobState::Running
               || !std::any_of(job.assignments.cbegin(),
                               job.assignments.cend(),
                               [&](const Sched::Assignment &x) { return x.card == card; });
    }));

    menu.reset(map.createCardMenu(card, &map));
    action(menu.get(), "uncordonCard")->trigger();
    QTRY_VERIFY(!a.now().state.card(card).operatorCordoned);
}

// The hint under a red target: the time (and the window that opens then), another day's with
// its weekday, none for a time past the simulated day's end or already come.
void TestCardMapView::aRefusedDropSaysWhenItFits()
{
    const Sched::Appliance demo = demoAppliance();
    CardMapView map(nullptr);
    auto snapshot = std::make_shared<Session::Snapshot>(*snapshotOf(demo.state));
    snapshot->utcOffsetSeconds = 8 * 3600;
    const qint64 midnight = 1'767'542'400'000; // 2026-01-05 00:00 at UTC+8, a Monday
    snapshot->nowMs = midnight + 10 * 3600'000LL + 30 * 60'000; // 10:30
    snapshot->endMs = midnight + 24 * 3600'000LL;
    map.setSnapshot(snapshot);
    Session::PlacementPreview p;
    p.outcome = Session::PlacementPreview::Outcome::Refused;
    p.startsAtMs = midnight + 22 * 3600'000LL;
    p.startsWithWindow = QStringLiteral("night");
    QCOMPARE(map.startHintText(p), QStringLiteral("It fits at 22:00, when ‘night’ opens."));
    p.startsWithWindow.clear();
    QCOMPARE(map.startHintText(p),
             QStringLiteral("It could start at about 22:00, as running work ends."));
    p.startsAtMs = snapshot->endMs + 60'000; // after the day the twin plays
    QVERIFY(map.startHintText(p).isEmpty());
    snapshot->endMs = -1; // a real appliance: tomorrow, with its weekday
    map.setSnapshot(snapshot);
    QVERIFY2(map.startHintText(p).contains(QLocale().toString(
                     QDateTime::fromMSecsSinceEpoch(p.startsAtMs, QTimeZone(8 * 3600)),
                     QStringLiteral("ddd HH:mm"))),
             qPrintable(map.startHintText(p)));
    p.startsAtMs = snapshot->nowMs - 1;
    QVERIFY(map.startHintText(p).isEmpty());
    p.startsAtMs = -1;
    QVERIFY(map.startHintText(p).isEmpty());
}

void TestCardMapView::tooltipTellsWhoseTheCardIs()
{
    const Sched::Appliance demo = demoAppliance();
    CardMapView map(nullptr);
    map.resize(1200, 800);
    map.show();
    QVERIFY(QTest::qWaitForWindowExposed(&map));
    const auto tooltipAt = [&](const QPoint &at) {
        QHelpEvent help(QEvent::ToolTip, at, map.viewport()->mapToGlobal(at));
        QCoreApplication::sendEvent(map.viewport(), &help);
        const QString text = QToolTip::text();
        QToolTip::hideText();
        return text;
    };

    // The twin's snapshot: the split by units, no memory by use, no foreign processes.
    auto twin = std::make_shared<Session::Snapshot>(*snapshotOf(demo.state));
    twin->cards[5].trainingUtilisation = 0.2;
    twin->cards[5].inferenceUtilisation = 0.3;
    map.setSnapshot(twin);
    const QRect r1 = map.unitRect(CardId(5), uidAt(demo.state, 5, 6));
    const QPoint slot7(r1.right() + r1.width() / 2, r1.center().y()); // the card, no unit
    QCOMPARE(map.hitTest(slot7).unitUid, -1);
    QString text = tooltipAt(slot7);
    QVERIFY2(text.contains(QStringLiteral("Training 20.0%, inference 30.0% (by the units they "
                                          "hold)")),
             qPrintable(text));
    QVERIFY2(!text.contains(QStringLiteral("Memory by use")), qPrintable(text));
    QVERIFY2(!text.contains(QStringLiteral("not started by Zhaoxi")), qPrintable(text));

    // A real card's: what NVML lists, by whose processes they are.
    auto real = std::make_shared<Session::Snapshot>(*snapshotOf(demo.state, 2));
    Session::CardSample &c = real->cards[5];
    c.trainingUtilisation = 0.35;
    c.inferenceUtilisation = 0.1;
    c.utilisationMeasuredPerProcess = true;
    c.trainingMemoryMiB = 30 * 1024;
    c.inferenceMemoryMiB = 0;
    c.otherMemoryMiB = 1024;
    c.otherProcesses = 2;
    map.setSnapshot(real);
    text = tooltipAt(slot7);
    QVERIFY2(text.contains(QStringLiteral("Training 35.0%, inference 10.0% (the processes' own "
                                          "samples)")),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Memory by use: training 30 GiB, inference 0 MiB, "
                                          "other 1 GiB")),
             qPrintable(text));
    // (No translation loaded here: the source's plural form.)
    QVERIFY2(text.contains(QStringLiteral("2 compute process(es) not started by Zhaoxi")),
             qPrintable(text));
}

void TestCardMapView::fitsSixtyFourCards()
{
    // 8 hosts x 8 H200 in MIG mode.
    Sched::ClusterState state(Catalogue::Catalogue::builtIn());
    const int h200 = state.catalogue().indexOf(QStringLiteral("H200-141GB"));
    QVERIFY(h200 >= 0);
    for (int h = 0; h < 8; ++h) {
        const Domain::HostId host
                = state.addHost(QStringLiteral("node-%1").arg(h), 224'000, 2'097'152);
        for (int c = 0; c < 8; ++c)
            state.addCard(host, h200, Domain::PartitionMode::Mig, c / 4);
    }
    CardMapView map(nullptr);
    map.resize(1600, 1000);
    map.show();
    QVERIFY(QTest::qWaitForWindowExposed(&map));
    map.setSnapshot(snapshotOf(state));
    QVERIFY(map.isFitMode());
    const QRect viewport = map.viewport()->rect();
    for (int c = 0; c < 64; ++c)
        QVERIFY2(viewport.contains(map.cardRect(CardId(c))), qPrintable(QString::number(c)));
    QCOMPARE(map.verticalScrollBar()->maximum(), 0);
    // Readable still: the tiles keep most of their natural size.
    QVERIFY(map.zoom() > 0.5);

    QSignalSpy zoomed(&map, &CardMapView::zoomChanged);
    const double fit = map.zoom();
    map.zoomIn();
    QVERIFY(!map.isFitMode());
    QVERIFY(map.zoom() > fit);
    QVERIFY(map.verticalScrollBar()->maximum() > 0);
    map.fitToView();
    QVERIFY(map.isFitMode());
    QCOMPARE(map.zoom(), fit);
    QCOMPARE(zoomed.size(), 2);
}

// Zoomed in, the dgx's eight-card NVLink domain no longer fits one row: one bracket per row, open
// on the sides it wraps at and numbered; never two brackets that both read "NVLink 0".
void TestCardMapView::aLinkDomainThatWrapsKeepsOneName()
{
    const Sched::Appliance demo = demoAppliance();
    CardMapView map(nullptr);
    map.resize(1000, 700);
    map.show();
    QVERIFY(QTest::qWaitForWindowExposed(&map));
    map.setSnapshot(snapshotOf(demo.state));
    // Wide enough, the eight cards share one row and one bracket.
    map.resize(2400, 700);
    map.setZoom(1.0);
    QCOMPARE(map.linkDomainLabels(), QStringList{QStringLiteral("NVLink 0")});
    map.resize(1000, 700);
    bool wrapped = false;
    for (const double zoom : {-1.0, 0.75, 1.0, 1.5, 2.0, 3.0}) {
        if (zoom < 0)
            map.fitToView();
        else
            map.setZoom(zoom);
        const QStringList labels = map.linkDomainLabels();
        QVERIFY2(!labels.isEmpty(), qPrintable(QString::number(zoom)));
        QCOMPARE(QSet<QString>(labels.cbegin(), labels.cend()).size(), labels.size());
        if (labels.size() == 1)
            QCOMPARE(labels.first(), QStringLiteral("NVLink 0"));
        for (qsizetype i = 0; labels.size() > 1 && i < labels.size(); ++i)
            QCOMPARE(labels[i], QStringLiteral("NVLink 0 (%1/%2)").arg(i + 1).arg(labels.size()));
        wrapped |= labels.size() > 1;
    }
    QVERIFY(wrapped);
}

void TestCardMapView::badgesFollowTheThresholds()
{
    using namespace Widgets::CardTile;
    Data d;
    d.temperatureC = 80;
    d.powerPermille = 900;
    const Widgets::CardMapThresholds defaults;
    QCOMPARE(temperatureLevel(d, defaults), Level::Amber);
    QCOMPARE(powerLevel(d, defaults), Level::Amber);
    d.temperatureC = 86;
    d.powerPermille = 960;
    QCOMPARE(temperatureLevel(d, defaults), Level::Red);
    QCOMPARE(powerLevel(d, defaults), Level::Red);
    Widgets::CardMapThresholds hot;
    hot.temperatureAmberC = 90;
    hot.temperatureRedC = 95;
    hot.powerAmber = 0.97;
    hot.powerRed = 0.99;
    QCOMPARE(temperatureLevel(d, hot), Level::Green);
    QCOMPARE(powerLevel(d, hot), Level::Green);
    d.lost = true;
    QCOMPARE(temperatureLevel(d, hot), Level::None);

    CardMapView map(nullptr);
    map.setThresholds(hot);
    QCOMPARE(map.thresholds(), hot);
}

// Health, not level: against the card's own slowdown and shutdown temperatures, full-power work
// at a normal temperature is no alarm; throttling (with its reason), heat past the slowdown,
// Xid and ECC errors are.
void TestCardMapView::healthNotLevel()
{
    using namespace Widgets::CardTile;
    namespace R = Device::ThrottleReason;
    const Widgets::CardMapThresholds console; // 75/85 °C, 80/95 % power
    Data d;
    d.slowdownTempC = 87; // an H200's, from the catalogue
    d.shutdownTempC = 92;
    d.temperatureC = 85;
    d.powerW = 700;
    d.powerPermille = 1000; // training at the board limit
    QCOMPARE(temperatureLevel(d, console), Level::None);
    QCOMPARE(powerLevel(d, console), Level::None);
    QCOMPARE(attention(d, console).level, Level::None);
    QVERIFY(attention(d, console).reasons.isEmpty());
    // The clocks held down, with the reason.
    d.throttleReasons = R::HwThermal;
    Attention a = attention(d, console);
    QCOMPARE(a.level, Level::Amber);
    QVERIFY2(a.reasons.join(' ').contains(QStringLiteral("thermal slowdown")),
             qPrintable(a.reasons.join(' ')));
    d.throttleReasons = R::SwPowerCap;
    QCOMPARE(powerLevel(d, console), Level::Amber);
    QVERIFY(attention(d, console).reasons.join(' ').contains(QStringLiteral("power cap")));
    d.throttleReasons = 0x1; // idle clocks: not trouble
    QCOMPARE(attention(d, console).level, Level::None);
    d.throttleReasons = 0;
    // Heat: amber from the slowdown, red near the shutdown.
    d.temperatureC = 88;
    QCOMPARE(attention(d, console).level, Level::Amber);
    d.temperatureC = 90;
    QCOMPARE(attention(d, console).level, Level::Red);
    d.temperatureC = 60;
    // Errors.
    d.xidErrors = 1;
    QCOMPARE(attention(d, console).level, Level::Red);
    QVERIFY(attention(d, console).reasons.join(' ').contains(QStringLiteral("Xid")));
    d.xidErrors = 0;
    d.eccUncorrected = 2;
    QCOMPARE(attention(d, console).level, Level::Red);
    QVERIFY(attention(d, console).reasons.join(' ').contains(QStringLiteral("ECC")));
    d.eccUncorrected = 0;
    QCOMPARE(attention(d, console).level, Level::None);
    // A model the catalogue gives no limits for: the console's own thresholds.
    Data unknown;
    unknown.temperatureC = 80;
    unknown.powerPermille = 900;
    QCOMPARE(temperatureLevel(unknown, console), Level::Amber);
    QCOMPARE(attention(unknown, console).level, Level::Amber);

    // From a snapshot: the samples' throttling and Xids reach the tile and its tooltip.
    const Sched::Appliance demo = demoAppliance();
    auto snap = std::const_pointer_cast<Session::Snapshot>(snapshotOf(demo.state));
    for (Session::CardSample &c : snap->cards) {
        c.temperatureC = 84; // hot for the console's old 75 °C, normal for the models
        c.powerW = 690;
        c.powerLimitW = 700;
    }
    snap->cards[3].throttled = true;
    snap->cards[3].throttleReasons = R::HwThermal;
    snap->cards[4].xidErrors = 1;
    int flagged = 0;
    for (const Sched::CardState &c : demo.state.cards())
        flagged += attention(makeData(*snap, c), console).level != Level::None;
    QCOMPARE(flagged, 2);
    QCOMPARE(attention(makeData(*snap, demo.state.cards()[3]), console).level, Level::Amber);
    QCOMPARE(attention(makeData(*snap, demo.state.cards()[4]), console).level, Level::Red);
    CardMapView map(nullptr);
    map.resize(1200, 800);
    map.show();
    QVERIFY(QTest::qWaitForWindowExposed(&map));
    map.setSnapshot(snap);
    const QPoint at
            = map.cardRect(CardId(3)).topLeft() + QPoint(4, map.cardRect(CardId(3)).height() - 4);
    QHelpEvent help(QEvent::ToolTip, at, map.viewport()->mapToGlobal(at));
    QCoreApplication::sendEvent(map.viewport(), &help);
    QVERIFY2(QToolTip::text().contains(
                     QStringLiteral("Needs attention: throttled: thermal slowdown")),
             qPrintable(QToolTip::text()));
    QToolTip::hideText();
}

void TestCardMapView::everyReasonHasWords_data()
{
    QTest::addColumn<int>("reason");
    for (int r = 0; r < Sched::kReasonCount; ++r)
        QTest::newRow(Sched::reasonCode(Sched::Reason(r))) << r;
}

void TestCardMapView::everyReasonHasWords()
{
    QFETCH(int, reason);
    const QString text = Widgets::reasonText(
            Sched::Status::unschedulable(Sched::Reason(reason), 40960, 16384));
    QVERIFY(!text.isEmpty());
    QVERIFY2(!text.startsWith(QStringLiteral("Refused (")), qPrintable(text));
    QVERIFY2(text != Sched::Status::unschedulable(Sched::Reason(reason), 40960, 16384).describe(),
             qPrintable(text));
}

void TestCardMapView::dropPlacesWhereItFits()
{
    Appliance a;
    a.runTo(8 * kMinute);
    QCOMPARE(a.jobState(QStringLiteral("small-l")).state, JobState::Pending);
    CardMapView map(&a.client);
    map.resize(1000, 700);
    map.show();
    QVERIFY(QTest::qWaitForWindowExposed(&map));
    QSignalSpy placed(&map, &CardMapView::jobPlaced);

    const JobId job = a.job(QStringLiteral("small-l"));
    const std::unique_ptr<QMimeData> data = jobDrag(job);
    const QPoint at = map.cardRect(CardId(kL40S)).center();
    QVERIFY(dragEnter(map, data.get(), at));
    QVERIFY(dragMove(map, data.get(), at));
    // The session answered inside the question; the map gets the answer after it, matched by
    // the request id the question returned (delivered inside, it would stay "checking").
    QTRY_COMPARE(map.dropState(), DropState::Fits);
    QCOMPARE(map.dropCard(), CardId(kL40S));
    QVERIFY(drop(map, data.get(), at));
    QCOMPARE(map.dropState(), DropState::None);

    QTRY_COMPARE(placed.size(), 1);
    QCOMPARE(a.jobState(QStringLiteral("small-l")).state, JobState::Running);
    QCOMPARE(a.cardsOf(QStringLiteral("small-l")), QList<int>{kL40S});
}

void TestCardMapView::dropIsRefusedWithTheReason_data()
{
    QTest::addColumn<QString>("job");
    QTest::addColumn<int>("card");
    QTest::addColumn<QString>("reason");
    QTest::newRow("an H200-only job onto the L40S")
            << QStringLiteral("mid-m") << kL40S
            << QStringLiteral("The job may not run on this card model (its affinity excludes it).");
    QTest::newRow("60 GiB onto a 45 GiB card")
            << QStringLiteral("big-n") << kL40S
            << QStringLiteral("Needs 60 GiB of card memory; this card offers at most 45 GiB.");
    QTest::newRow("low priority onto a busy card")
            << QStringLiteral("small-l") << kH200c
            << QStringLiteral("Every partition of this card that would fit is busy.");
}

void TestCardMapView::dropIsRefusedWithTheReason()
{
    QFETCH(QString, job);
    QFETCH(int, card);
    QFETCH(QString, reason);
    Appliance a;
    a.runTo(8 * kMinute);
    CardMapView map(&a.client);
    map.resize(1000, 700);
    map.show();
    QVERIFY(QTest::qWaitForWindowExposed(&map));
    QSignalSpy messages(&map, &CardMapView::statusMessage);

    const std::unique_ptr<QMimeData> data = jobDrag(a.job(job));
    const QPoint at = map.cardRect(CardId(card)).center();
    QVERIFY(dragEnter(map, data.get(), at));
    dragMove(map, data.get(), at);
    QTRY_COMPARE(map.dropState(), DropState::Refused);
    QVERIFY(!dragMove(map, data.get(), at)); // refused by the answer now at hand
    QCOMPARE(map.dropText(), reason);
    const QString text = map.dropText();

    QVERIFY(!drop(map, data.get(), at));
    QCOMPARE(messages.size(), 1);
    QVERIFY2(messages.first().first().toString().endsWith(text),
             qPrintable(messages.first().first().toString()));
    QCoreApplication::processEvents();
    QCOMPARE(a.jobState(job).state, JobState::Pending);
}

void TestCardMapView::preemptionAsksFirst()
{
    Appliance a;
    a.runTo(8 * kMinute);
    CardMapView map(&a.client);
    map.resize(1000, 700);
    map.show();
    QVERIFY(QTest::qWaitForWindowExposed(&map));
    QList<Widgets::PreemptionRequest> asked;
    bool agree = false;
    map.setPreemptionConfirmation([&](const Widgets::PreemptionRequest &r) {
        asked.append(r);
        return agree;
    });
    QSignalSpy messages(&map, &CardMapView::statusMessage);

    // mid-m (priority 50) onto solo-b's card (priority 10): it fits if solo-b leaves.
    const JobId mid = a.job(QStringLiteral("mid-m"));
    const std::unique_ptr<QMimeData> data = jobDrag(mid);
    const QPoint at = map.cardRect(CardId(kH200c)).center();
    QVERIFY(dragEnter(map, data.get(), at));
    QVERIFY(dragMove(map, data.get(), at));
    QTRY_COMPARE(map.dropState(), DropState::NeedsPreemption);
    QVERIFY2(map.dropText().contains(QStringLiteral("solo-b")), qPrintable(map.dropText()));
    QVERIFY(drop(map, data.get(), at));

    // Declined: nothing moves.
    QTRY_COMPARE(asked.size(), 1);
    const Widgets::PreemptionRequest &r = asked.first();
    QCOMPARE(r.jobName, QStringLiteral("mid-m"));
    QCOMPARE(r.cardName, QStringLiteral("node GPU 2"));
    QCOMPARE(r.preview.victims.size(), 1);
    QCOMPARE(r.preview.victims.first().job, a.job(QStringLiteral("solo-b")));
    QVERIFY(r.preview.victims.first().lostWorkMs > 0);
    const QStringList lines = Widgets::PreemptionDialog::victimLines(r);
    QCOMPARE(lines.size(), 1);
    QCOMPARE(lines.first(),
             QStringLiteral("solo-b: loses %1 of work")
                     .arg(Widgets::hoursMinutesText(r.preview.victims.first().lostWorkMs)));
    QVERIFY(lines.first().contains(QStringLiteral("0:0")));
    QCOMPARE(a.jobState(QStringLiteral("mid-m")).state, JobState::Pending);
    QCOMPARE(a.jobState(QStringLiteral("solo-b")).state, JobState::Running);
    QVERIFY(messages.last().first().toString().contains(QStringLiteral("declined")));

    // Agreed: solo-b is told to leave, mid-m takes its card once it has.
    agree = true;
    QVERIFY(dragAndDrop(map, mid, kH200c));
    QTRY_COMPARE(asked.size(), 2);
    QTRY_COMPARE(a.jobState(QStringLiteral("solo-b")).state, JobState::Preempting);
    QCOMPARE(a.jobState(QStringLiteral("solo-b")).preemptedBy, mid);
}

// What runs is what was confirmed: the appliance changes while the question is open (the victim
// ends by itself), so the confirmed plan is refused and the map asks the appliance again; now
// nobody need leave, and the job is placed without another question.
void TestCardMapView::aConfirmedPlanThatChangedIsRefusedAndAskedAgain()
{
    Appliance a;
    a.runTo(8 * kMinute);
    CardMapView map(&a.client);
    map.resize(1000, 700);
    map.show();
    QVERIFY(QTest::qWaitForWindowExposed(&map));
    const JobId mid = a.job(QStringLiteral("mid-m"));
    const JobId solo = a.job(QStringLiteral("solo-b"));
    QList<Widgets::PreemptionRequest> asked;
    map.setPreemptionConfirmation([&](const Widgets::PreemptionRequest &r) {
        asked.append(r);
        if (asked.size() == 1) // meanwhile, on the appliance
            a.session.cancelJob(999, solo.value());
        return true;
    });
    QSignalSpy messages(&map, &CardMapView::statusMessage);
    QSignalSpy placed(&map, &CardMapView::jobPlaced);
    QVERIFY(dragAndDrop(map, mid, kH200c));
    QTRY_COMPARE(placed.size(), 1);
    QCOMPARE(asked.size(), 1);
    QCOMPARE(asked.first().preview.victims.first().job, solo);
    bool said = false;
    for (const QList<QVariant> &m : messages)
        said |= m.first().toString().contains(QStringLiteral("changed since you confirmed"));
    QVERIFY(said);
    QCOMPARE(placed.first().at(2).toBool(), false); // placed as it is: nobody preempted
    QCOMPARE(a.jobState(QStringLiteral("mid-m")).state, JobState::Running);
    QCOMPARE(a.cardsOf(QStringLiteral("mid-m")), QList<int>{kH200c});
    QCOMPARE(a.jobState(QStringLiteral("solo-b")).preemptions, 0);
}

void TestCardMapView::undoRequeuesRedoPlaces()
{
    Appliance a;
    a.runTo(8 * kMinute);
    CardMapView map(&a.client);
    QUndoStack stack;
    map.setUndoStack(&stack);
    map.resize(1000, 700);
    map.show();
    QVERIFY(QTest::qWaitForWindowExposed(&map));

    QVERIFY(dragAndDrop(map, a.job(QStringLiteral("small-l")), kL40S));
    QTRY_COMPARE(stack.count(), 1);
    QCOMPARE(stack.undoText(), QStringLiteral("Place small-l on node GPU 3"));
    QCOMPARE(a.jobState(QStringLiteral("small-l")).state, JobState::Running);

    stack.undo();
    QCOMPARE(a.jobState(QStringLiteral("small-l")).state, JobState::Pending);
    QVERIFY(a.now().queue.contains(a.job(QStringLiteral("small-l"))));

    stack.redo();
    QCOMPARE(a.jobState(QStringLiteral("small-l")).state, JobState::Running);
    QCOMPARE(a.cardsOf(QStringLiteral("small-l")), QList<int>{kL40S});
}

void TestCardMapView::answersAreCachedPerSnapshot()
{
    Appliance a;
    a.runTo(8 * kMinute);
    CardMapView map(&a.client);
    map.resize(1000, 700);
    map.show();
    QVERIFY(QTest::qWaitForWindowExposed(&map));
    QSignalSpy answers(&a.client, &Models::SessionClient::placementPreviewReady);

    const std::unique_ptr<QMimeData> data = jobDrag(a.job(QStringLiteral("small-l")));
    const QRect l40s = map.cardRect(CardId(kL40S));
    const QRect other = map.cardRect(CardId(kH200a));
    // Answers come from the event loop: every one asked for has come once the posted events
    // are delivered.
    QVERIFY(dragEnter(map, data.get(), l40s.center()));
    QTRY_COMPARE(answers.size(), 1);
    dragMove(map, data.get(), l40s.center() + QPoint(5, 5)); // same card: no new question
    QCoreApplication::sendPostedEvents();
    QCOMPARE(answers.size(), 1);
    dragMove(map, data.get(), other.center());
    QTRY_COMPARE(answers.size(), 2);
    dragMove(map, data.get(), l40s.center()); // back: answered already
    QCoreApplication::sendPostedEvents();
    QCOMPARE(answers.size(), 2);
    QCOMPARE(map.dropState(), DropState::Fits);

    // A new snapshot: the card under the cursor is asked again.
    a.session.publish();
    QTRY_COMPARE(answers.size(), 3);
    QCoreApplication::sendPostedEvents();
    QCOMPARE(answers.size(), 3);
    QCOMPARE(map.dropState(), DropState::Fits);

    QDragLeaveEvent leave;
    QCoreApplication::sendEvent(map.viewport(), &leave);
    QCOMPARE(map.dropState(), DropState::None);
}

void TestCardMapView::lateAnswersShowCheckingFirst()
{
    Appliance day;
    day.runTo(8 * kMinute);
    LateSession late(day.client.snapshot());
    Models::SessionClient client(&late);
    CardMapView map(&client);
    QUndoStack stack;
    map.setUndoStack(&stack);
    map.resize(1000, 700);
    map.show();
    QVERIFY(QTest::qWaitForWindowExposed(&map));
    const JobId job = day.job(QStringLiteral("small-l"));
    const std::unique_ptr<QMimeData> data = jobDrag(job);

    // Over the L40S: "checking" until the answer comes; the drag goes on meanwhile.
    const QPoint l40s = map.cardRect(CardId(kL40S)).center();
    QVERIFY(dragEnter(map, data.get(), l40s));
    QVERIFY(dragMove(map, data.get(), l40s));
    QCOMPARE(map.dropState(), DropState::Checking);
    QCOMPARE(late.previews.size(), 1);
    QCOMPARE(late.previews.first().card, kL40S);
    late.answer(late.previews.first(),
                PlacementPreview::Outcome::Refused,
                Sched::Status::unschedulable(Sched::Reason::CardMemoryInUse, 20480, 8192));
    QTRY_COMPARE(map.dropState(), DropState::Refused);
    QCOMPARE(map.dropText(), QStringLiteral("Needs 20 GiB of card memory; only 8 GiB is free."));
    QVERIFY(!dragMove(map, data.get(), l40s));

    // A new snapshot: asked again, the old answer shown until the new one comes.
    late.publishAgain();
    QCOMPARE(late.previews.size(), 2);
    QCOMPARE(map.dropState(), DropState::Refused);
    late.answer(late.previews.last(), PlacementPreview::Outcome::Direct);
    QTRY_COMPARE(map.dropState(), DropState::Fits);

    // Dropped on another card before its answer: placed once the answer says it fits.
    const QPoint h200 = map.cardRect(CardId(kH200a)).center();
    QVERIFY(dragMove(map, data.get(), h200));
    QCOMPARE(map.dropState(), DropState::Checking);
    QVERIFY(drop(map, data.get(), h200));
    QCoreApplication::processEvents();
    QVERIFY(late.places.isEmpty());
    late.answer(late.previews.last(), PlacementPreview::Outcome::Direct);
    QTRY_COMPARE(late.places.size(), 1);
    QCOMPARE(late.places.first().job, job.value());
    QCOMPARE(late.places.first().card, kH200a);
    QVERIFY(!late.places.first().preempt);

    // The placement's answer comes later too; then it is undoable.
    QCOMPARE(stack.count(), 0);
    Session::CommandResult done;
    done.request = late.places.first().request;
    done.ok = true;
    Q_EMIT late.commandFinished(done);
    QTRY_COMPARE(stack.count(), 1);
    stack.undo();
    QCOMPARE(late.requeues.size(), 1);
    QCOMPARE(late.requeues.first().job, job.value());
}

// A drop refused for the class budget where the job would fit with the budget waived: the
// target says it may be placed anyway; the drop asks (what it needs, what is left, by how much it
// goes over, the job it preempts); declined, nothing is sent; agreed, the session is asked to
// place it over the budget with exactly that victim.
void TestCardMapView::placeAnywayOverTheBudgetAsksFirst()
{
    Appliance day;
    day.runTo(8 * kMinute);
    LateSession late(day.client.snapshot());
    Models::SessionClient client(&late);
    CardMapView map(&client);
    map.resize(1000, 700);
    map.show();
    QVERIFY(QTest::qWaitForWindowExposed(&map));
    QList<Widgets::PreemptionRequest> asked;
    bool agree = false;
    map.setPreemptionConfirmation([&](const Widgets::PreemptionRequest &r) {
        asked.append(r);
        return agree;
    });
    QSignalSpy messages(&map, &CardMapView::statusMessage);
    const JobId job = day.job(QStringLiteral("mid-m"));
    const JobId victim = day.job(QStringLiteral("solo-b"));
    PlacementPreview over;
    over.outcome = PlacementPreview::Outcome::Refused;
    over.status = Sched::Status::unschedulable(Sched::Reason::ClassBudgetExceeded, 1000, 250);
    over.overBudget = PlacementPreview::Outcome::NeedsPreemption;
    over.overBudgetVictims = {Sched::Victim{victim, 10, 5 * 60'000, 0}};
    over.overBudgetVictimNames = {QStringLiteral("solo-b")};

    const std::unique_ptr<QMimeData> data = jobDrag(job);
    const QPoint at = map.cardRect(CardId(kH200c)).center();
    QVERIFY(dragEnter(map, data.get(), at));
    QVERIFY(dragMove(map, data.get(), at));
    late.answer(over, late.previews.last());
    QTRY_COMPARE(map.dropState(), DropState::Refused);
    QVERIFY2(map.dropText().contains(QStringLiteral("may use only 0.25 cards more"))
                     && map.dropText().contains(QStringLiteral("place it anyway, over the budget")),
             qPrintable(map.dropText()));
    QVERIFY(drop(map, data.get(), at));
    QTRY_COMPARE(asked.size(), 1);
    const Widgets::PreemptionRequest &r = asked.first();
    QVERIFY(r.overBudget);
    QCOMPARE(Widgets::PreemptionDialog::victimLines(r),
             QStringList{QStringLiteral("solo-b: loses 0:05 of work")});
    QCOMPARE(Widgets::PreemptionDialog::budgetLine(r),
             QStringLiteral("mid-m needs one card of compute; its class may use only 0.25 cards "
                            "more now. Placed anyway, the class goes over its budget by up to "
                            "0.75 cards, and the policies will not move mid-m to bring it back "
                            "within the budget."));
    QCoreApplication::processEvents();
    QVERIFY(late.places.isEmpty());
    QVERIFY(messages.last().first().toString().contains(QStringLiteral("over its class budget")));

    agree = true;
    QVERIFY(dragEnter(map, data.get(), at));
    QVERIFY(dragMove(map, data.get(), at));
    late.answer(over, late.previews.last());
    QTRY_COMPARE(map.dropState(), DropState::Refused);
    QVERIFY(dragMove(map, data.get(), at)); // the cursor says yes: the drop asks
    QVERIFY(drop(map, data.get(), at));
    QTRY_COMPARE(late.places.size(), 1);
    QCOMPARE(late.places.first().job, job.value());
    QCOMPARE(late.places.first().card, kH200c);
    QVERIFY(late.places.first().overBudget);
}

// A red target whose preview names a layout that would fit says so, and a drop there offers
// to open that layout (in the repartition editor, through layoutProposed): it places nothing.
void TestCardMapView::aRefusedDropOffersTheLayoutThatFits()
{
    Appliance day;
    day.runTo(8 * kMinute);
    LateSession late(day.client.snapshot());
    Models::SessionClient client(&late);
    CardMapView map(&client);
    map.resize(1000, 700);
    map.show();
    QVERIFY(QTest::qWaitForWindowExposed(&map));
    QStringList asked;
    bool agree = false;
    map.setLayoutConfirmation([&](const PlacementPreview &, const QString &hint) {
        asked.append(hint);
        return agree;
    });
    QSignalSpy proposed(&map, &CardMapView::layoutProposed);
    QSignalSpy messages(&map, &CardMapView::statusMessage);
    const Sched::ClusterState &st = day.now().state;
    const Domain::CardModel &model = st.model(st.card(CardId(kH200a)));
    const int g3 = model.profileIndex(QStringLiteral("3g.71gb"));
    const int g1 = model.profileIndex(QStringLiteral("1g.18gb"));
    const JobId job = day.job(QStringLiteral("mid-m"));
    PlacementPreview refused;
    refused.outcome = PlacementPreview::Outcome::Refused;
    refused.status = Sched::Status::unschedulable(Sched::Reason::NoFreeUnit);
    refused.layoutCard = CardId(kH200a);
    refused.layoutTarget = {{g3, 0}, {g1, 4}, {g1, 5}, {g1, 6}};

    const std::unique_ptr<QMimeData> data = jobDrag(job);
    const QPoint at = map.cardRect(CardId(kH200c)).center();
    for (const bool yes : {false, true}) {
        agree = yes;
        QVERIFY(dragEnter(map, data.get(), at));
        QVERIFY(dragMove(map, data.get(), at));
        late.answer(refused, late.previews.last());
        QTRY_COMPARE(map.dropState(), DropState::Refused);
        const QString hint = QStringLiteral("It fits on %1 GPU 0 as 3g.71gb + 3\u00d71g.18gb.")
                                     .arg(st.host(st.card(CardId(kH200a)).host).name);
        QVERIFY2(map.dropText().contains(hint)
                         && map.dropText().contains(QStringLiteral("open that layout")),
                 qPrintable(map.dropText()));
        QVERIFY(dragMove(map, data.get(), at)); // the cursor says yes: the drop offers it
        QVERIFY(drop(map, data.get(), at));
        QTRY_COMPARE(asked.size(), yes ? 2 : 1);
        QCOMPARE(asked.last(), hint);
        QCoreApplication::processEvents();
        QCOMPARE(proposed.size(), yes ? 1 : 0);
        if (!yes)
            QVERIFY(messages.last().first().toString().contains(QStringLiteral("was not placed")));
    }
    QCOMPARE(proposed.first().at(0).value<CardId>(), CardId(kH200a));
    QCOMPARE(proposed.first().at(1).value<QList<Domain::MigPlacement>>(), refused.layoutTarget);
    QVERIFY(late.places.isEmpty());
    // The hint on the card it was dropped on speaks of "here".
    refused.card = CardId(kH200c);
    refused.layoutCard = CardId(kH200c);
    QVERIFY(map.layoutHintText(refused).startsWith(QStringLiteral("It fits here as 3g.71gb")));
    refused.layoutCard = CardId();
    QVERIFY(map.layoutHintText(refused).isEmpty());
}

void TestCardMapView::jobsViewFiltersWaiting()
{
    Appliance a;
    a.runTo(8 * kMinute);
    Widgets::JobsView view(&a.client);
    QAbstractItemModelTester tester(view.proxyModel(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(view.filter(), Widgets::JobsView::Filter::WaitingOnly);
    QCOMPARE(view.proxyModel()->rowCount(), 4);
    QVERIFY(view.tableView()->dragEnabled());
    view.setFilter(Widgets::JobsView::Filter::All);
    QCOMPARE(view.proxyModel()->rowCount(), 6);
    view.setFilter(Widgets::JobsView::Filter::WaitingOnly);

    // Placing one takes it off the waiting list with the next snapshot.
    a.client.placeJob(a.job(QStringLiteral("small-l")), CardId(kL40S), false);
    QCOMPARE(view.proxyModel()->rowCount(), 3);
}

QTEST_MAIN(TestCardMapView)
#include "tst_cardmapview.moc"
