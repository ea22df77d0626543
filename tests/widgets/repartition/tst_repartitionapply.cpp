// SPDX-License-Identifier: GPL-3.0-or-later
// Applying the repartition editor's plan on a real simulated appliance (the demo day),
// offscreen: immediately (asking first when it evicts a job) or by draining, cards that cannot be
// edited, and a read-only appliance. Editing the plan is tested in tst_repartitioneditor.cpp.
#include "repartitionfixture.h"

#include "widgets/repartition/layoutstrip.h"
#include "widgets/repartition/profilepalette.h"
#include "widgets/repartition/repartitioneditor.h"
#include "widgets/repartition/repartitiontext.h"

#include <QAction>
#include <QCheckBox>
#include <QCoreApplication>
#include <QDragEnterEvent>
#include <QLabel>
#include <QListWidget>
#include <QMimeData>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QTranslator>
#include <QUndoStack>

using namespace RepartitionFixture;
using Catalogue::LayoutProblem;
using Catalogue::LayoutVerdict;
using Widgets::LayoutStrip;
using Widgets::ProfilePalette;
using Widgets::RepartitionEditor;
using Widgets::RepartitionText;

namespace {

// An appliance session that only replays one snapshot (to show a read-only one).
class FixedSession : public Session::ApplianceSession
{
public:
    explicit FixedSession(Session::SnapshotPtr snapshot)
        : m_snapshot(std::move(snapshot))
    {}
    Session::SnapshotPtr latest() const override { return m_snapshot; }
    void start() override {}
    void stop() override {}
    void setSpeed(double) override {}
    void setPaused(bool) override {}
    void setPollIntervalMs(int) override {}
    void previewPlacement(quint64, int, int) override {}
    void placeJob(quint64, int, int, bool) override {}
    void placeJobConfirmed(quint64, int, int, QList<int>, Sched::BudgetRule) override {}
    void requeueJob(quint64, int) override {}
    void previewLayout(quint64, int, QList<MigPlacement>) override {}
    void applyLayout(quint64 request, int, QList<MigPlacement>, Session::ApplyMode, qint64) override
    {
        ++applies;
        Q_EMIT commandFinished(Session::CommandResult::answer(
                request, Domain::Problem::text(QStringLiteral("read-only"))));
    }
    void setSchedule(quint64, QJsonObject) override {}
    void submitWorkload(quint64, QJsonObject) override {}
    void cancelJob(quint64, int) override {}
    void setJobPriority(quint64, int, int) override {}
    void pinLayout(quint64, int, qint64) override {}
    void requestJobLog(quint64, int, qint64) override {}
    int applies = 0;

private:
    Session::SnapshotPtr m_snapshot;
};

// MIG cards with an instance that serves a job saving checkpoints and spans more than one slot
// (at 10:00 on the demo day every H200 is busy: training on 7g.141gb, replicas and sweeps on the
// others), with that instance's index in the card's sorted layout.
QList<QPair<CardId, int>> splittableBusyInstances(const Appliance &a)
{
    QList<QPair<CardId, int>> found;
    const Sched::ClusterState &st = a.snapshot()->state;
    for (const Sched::CardState &c : st.cards()) {
        if (c.mode != Domain::PartitionMode::Mig || c.health != Sched::CardHealth::Healthy)
            continue;
        const QList<LayoutEdit::CurrentUnit> units = LayoutEdit::currentUnits(st, c.id);
        for (int i = 0; i < units.size(); ++i) {
            const LayoutEdit::CurrentUnit &u = units[i];
            if (u.job.isValid() && st.job(u.job).spec.checkpointIntervalMs > 0
                && st.model(c).migProfiles[u.placement.profile].span > 1) {
                found.append({c.id, i});
                break;
            }
        }
    }
    return found;
}

QString holds(const Domain::CardModel &model, const Layout &layout)
{
    return layout.isEmpty() ? QStringLiteral("no instances")
                            : LayoutEdit::layoutName(model, layout);
}

} // namespace

class TestRepartitionApply : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void applyImmediately();
    void aPinnedLayoutSurvivesTheDay();
    void drainWaitsForTheJobOrTheDeadline();
    void notMigOrFailedCardsCannotBeEdited();
    void readOnlySnapshotDisablesApply();
};

void TestRepartitionApply::applyImmediately()
{
    // The appliance's own scheduler may take a card straight back for the job the change
    // evicted (it re-creates the instance that job wants); the editor then says so. Cards are
    // tried one after the other until one keeps the planned layout.
    Appliance a(10 * kHour);
    const QList<QPair<CardId, int>> candidates = splittableBusyInstances(a);
    QVERIFY(!candidates.isEmpty());
    // An immediate apply that evicts a job asks first: declined, nothing changes. (Declared
    // before the editor: its confirmation refers to them.)
    QStringList askedSteps, askedJobs;
    bool answer = false;
    RepartitionEditor editor(a.client.get());
    editor.setApplyConfirmation([&](const QStringList &steps, const QStringList &jobs) {
        askedSteps = steps;
        askedJobs = jobs;
        return answer;
    });
    {
        const auto [card, index] = candidates.first();
        editor.setCard(card);
        const Layout before = a.layout(card);
        QVERIFY(editor.splitPlacement(index));
        editor.setApplyMode(Session::ApplyMode::Immediate);
        // No apply before the appliance has said which jobs the change stops.
        QVERIFY(!editor.canApply());
        QVERIFY(!editor.apply());
        QCOMPARE(editor.statusText(),
                 QStringLiteral("The appliance is still planning this change."));
        QVERIFY(askedSteps.isEmpty());
        QTRY_VERIFY(editor.canApply());
        QVERIFY(!editor.apply());
        QCOMPARE(askedSteps, editor.planSteps());
        QCOMPARE(askedJobs, editor.affectedJobNames());
        QCOMPARE(editor.statusText(), QStringLiteral("Not applied."));
        QCOMPARE(a.layout(card), before);
        answer = true;
    }
    QSignalSpy applied(&editor, &RepartitionEditor::layoutApplied);
    bool kept = false;
    for (const auto &[card, index] : candidates) {
        // An earlier candidate's apply may have moved this one's job (the scheduler re-placed
        // what it evicted): only an instance still busy is tried.
        const QList<LayoutEdit::CurrentUnit> units
                = LayoutEdit::currentUnits(a.snapshot()->state, card);
        if (index >= units.size() || !units[index].job.isValid())
            continue;
        editor.setCard(card);
        const Domain::CardModel &model = a.model(card);
        const Domain::JobId job = units[index].job;
        const int preemptionsBefore = a.snapshot()->state.job(job).preemptions;
        QVERIFY(editor.splitPlacement(index));
        const Layout pending = editor.pendingLayout();
        QTRY_VERIFY(editor.canApply());
        QCOMPARE(editor.affectedJobNames(), QStringList{a.snapshot()->state.job(job).spec.name});
        QVERIFY(editor.undoStack()->count() > 0);

        editor.setApplyMode(Session::ApplyMode::Immediate);
        QCOMPARE(editor.applyMode(), Session::ApplyMode::Immediate);
        const int appliedBefore = int(applied.size());
        QVERIFY(editor.apply());
        // The session answered inside the call; the editor gets it after, by the call's id.
        QVERIFY(editor.isApplying());
        QTRY_COMPARE(applied.size(), appliedBefore + 1);
        QCOMPARE(applied.last().first().value<CardId>(), card);
        QVERIFY(!editor.isApplying());
        QCOMPARE(editor.undoStack()->count(), 0); // applied edits are not undoable
        QVERIFY(!editor.undoAction()->isEnabled());
        // The job went back to the queue at once.
        QCOMPARE(a.snapshot()->state.job(job).preemptions, preemptionsBefore + 1);
        // The editor follows the card: the planned layout, or what the scheduler made of it.
        QCOMPARE(editor.currentLayout(), a.layout(card));
        QCOMPARE(editor.pendingLayout(), a.layout(card));
        if (a.layout(card) != pending) {
            QCOMPARE(editor.statusText(),
                     QStringLiteral("The change is done, but the card has changed since: it now "
                                    "holds %1.")
                             .arg(holds(model, a.layout(card))));
            continue;
        }
        QCOMPARE(editor.statusText(), QStringLiteral("Done: the card has the planned layout now."));

        // Later the card still has the layout, and the editor shows it as the current one.
        a.session.runTo(a.sinceStart() + kMinute);
        if (a.layout(card) != pending)
            continue;
        QCOMPARE(editor.currentLayout(), pending);
        QCOMPARE(editor.pendingLayout(), pending);
        QVERIFY(!editor.canApply());
        QVERIFY(editor.isEditable());
        kept = true;
        break;
    }
    QVERIFY2(kept, "the scheduler took every card back");
}

// "Pin this layout": the card is pinned before it changes, so the very next cycle cannot take it
// back for the job the change evicted (which it otherwise may, see applyImmediately), and the
// layout is still there at the end of the day; Unpin gives the card back to the scheduler.
void TestRepartitionApply::aPinnedLayoutSurvivesTheDay()
{
    Appliance a(10 * kHour);
    const QList<QPair<CardId, int>> candidates = splittableBusyInstances(a);
    QVERIFY(!candidates.isEmpty());
    const auto [card, index] = candidates.first();
    RepartitionEditor editor(a.client.get());
    editor.setApplyConfirmation([](const QStringList &, const QStringList &) { return true; });
    editor.setCard(card);
    auto *pinBox = editor.findChild<QCheckBox *>(QStringLiteral("pinAfterApply"));
    auto *unpin = editor.findChild<QPushButton *>(QStringLiteral("unpinButton"));
    QVERIFY(pinBox && unpin);
    QVERIFY(!pinBox->isHidden());
    QVERIFY(unpin->isHidden());
    QVERIFY(editor.splitPlacement(index));
    const Layout pending = editor.pendingLayout();
    editor.setPinAfterApply(true);
    editor.setApplyMode(Session::ApplyMode::Immediate);
    QTRY_VERIFY(editor.canApply());
    QSignalSpy applied(&editor, &RepartitionEditor::layoutApplied);
    QVERIFY(editor.apply());
    QTRY_COMPARE(applied.size(), 1);
    QCOMPARE(a.card(card).layoutPinnedUntilMs, -1);
    QCOMPARE(a.layout(card), pending);
    QCOMPARE(editor.statusText(), QStringLiteral("Done: the card has the planned layout now."));
    // The editor says the card is pinned and offers Unpin instead of the box.
    QTRY_VERIFY(!unpin->isHidden());
    QVERIFY(pinBox->isHidden());
    auto *state = editor.findChild<QLabel *>(QStringLiteral("pinState"));
    QVERIFY(state && state->text().contains(QStringLiteral("pinned until unpinned")));

    // To the end of the day, through the evening and the night's training, the layout stays.
    for (qint64 t = 11 * kHour; t <= 24 * kHour - kMinute; t += kHour) {
        a.session.runTo(std::min(t, 24 * kHour - kMinute));
        QVERIFY2(a.layout(card) == pending,
                 qPrintable(QStringLiteral("changed by %1:00").arg(t / kHour)));
    }
    QVERIFY(editor.unpin());
    QTRY_COMPARE(a.card(card).layoutPinnedUntilMs, 0);
    QTRY_VERIFY(unpin->isHidden());
    QVERIFY(!pinBox->isHidden());
}

void TestRepartitionApply::drainWaitsForTheJobOrTheDeadline()
{
    // An odd moment, between the jobs' checkpoints (at one, a drain has nothing to wait for).
    Appliance a(10 * kHour + 7 * kMinute + 13'000);
    const QList<QPair<CardId, int>> candidates = splittableBusyInstances(a);
    QVERIFY(!candidates.isEmpty());
    const auto [card, index] = candidates.first();
    const Domain::CardModel &model = a.model(card);
    const LayoutEdit::CurrentUnit busy = LayoutEdit::currentUnits(a.snapshot()->state, card)[index];
    const int preemptionsBefore = a.snapshot()->state.job(busy.job).preemptions;
    RepartitionEditor editor(a.client.get());
    editor.setCard(card);
    QSignalSpy applied(&editor, &RepartitionEditor::layoutApplied);

    QVERIFY(editor.splitPlacement(index));
    const Layout pending = editor.pendingLayout();
    QTRY_VERIFY(editor.canApply());
    QCOMPARE(editor.affectedJobNames(), QStringList{busy.jobName});
    QCOMPARE(editor.planSteps().first(),
             QStringLiteral("destroy %1 (serves %2)")
                     .arg(Catalogue::formatPlacement(model, busy.placement), busy.jobName));

    editor.setApplyMode(Session::ApplyMode::Drain, 15);
    QCOMPARE(editor.drainDeadlineMinutes(), 15);
    QVERIFY(editor.apply());
    // The job stays on its instance until its checkpoint: the change waits, and the plan cannot
    // be edited meanwhile.
    QVERIFY(editor.isApplying());
    QVERIFY(editor.statusText().startsWith(
            QStringLiteral("Draining: waiting for %1 to leave").arg(busy.jobName)));
    QVERIFY(!editor.isEditable());
    QVERIFY(!editor.undoAction()->isEnabled());
    QVERIFY(!editor.dropProfile(0, 0));
    QCOMPARE(editor.statusText(), QStringLiteral("Wait until the change being applied is done."));
    QCOMPARE(applied.size(), 0);
    QVERIFY(a.layout(card) != pending);
    QVERIFY(editor.strip()->isEditable() == false);

    // Past the job's checkpoint and the deadline. The simulated session applies a waiting
    // layout from its frame timer: let it run, paused, for a frame or two.
    a.session.runTo(a.sinceStart() + 16 * kMinute);
    a.session.setPaused(true);
    a.session.start();
    QTRY_COMPARE(applied.size(), 1);
    a.session.stop();
    // The steps take the device's time: a minute more and the card is laid out.
    a.session.runTo(a.sinceStart() + kMinute);
    QTRY_VERIFY2(!editor.statusText().startsWith(QStringLiteral("Applied")),
                 qPrintable(editor.statusText()));
    QCOMPARE(applied.first().first().value<CardId>(), card);
    QVERIFY(!editor.isApplying());
    QVERIFY(editor.isEditable());
    QCOMPARE(editor.undoStack()->count(), 0);
    // The job had to leave its instance, at its checkpoint or at the deadline.
    QVERIFY(a.snapshot()->state.job(busy.job).preemptions > preemptionsBefore);
    // The card has the planned layout, unless the scheduler has already taken it back for the
    // job; either way the editor shows what the card has.
    QCOMPARE(editor.currentLayout(), a.layout(card));
    QCOMPARE(editor.pendingLayout(), a.layout(card));
    if (a.layout(card) == pending)
        QCOMPARE(editor.statusText(), QStringLiteral("Done: the card has the planned layout now."));
    else
        QCOMPARE(editor.statusText(),
                 QStringLiteral(
                         "The change is done, but the card has changed since: it now holds %1.")
                         .arg(holds(model, a.layout(card))));
}

void TestRepartitionApply::notMigOrFailedCardsCannotBeEdited()
{
    Appliance a(15 * kHour); // card 6 of dgx-h200 was lost at 14:20, for two hours
    RepartitionEditor editor(a.client.get());

    // An L40S in MPS mode.
    CardId l40s;
    for (const Sched::CardState &c : a.snapshot()->state.cards()) {
        if (c.mode == Domain::PartitionMode::Mps)
            l40s = c.id;
    }
    QVERIFY(l40s.isValid());
    editor.setCard(l40s);
    QVERIFY(!editor.isEditable());
    QVERIFY(!editor.canApply());
    QCOMPARE(editor.applyBlockedReason(),
             QStringLiteral("L40S-48GB cards have no MIG: this card cannot be partitioned here."));
    QVERIFY(!editor.dropProfile(0, 0));
    QCOMPARE(editor.statusText(), editor.applyBlockedReason());
    QVERIFY(!editor.findChild<QPushButton *>(QStringLiteral("applyButton"))->isEnabled());
    QCOMPARE(editor.profilePalette()->topLevelItemCount(), 0);

    CardId failed;
    for (const Sched::CardState &c : a.snapshot()->state.cards()) {
        if (c.health == Sched::CardHealth::Failed)
            failed = c.id;
    }
    QVERIFY(failed.isValid());
    editor.setCard(failed);
    QVERIFY(!editor.isEditable());
    QCOMPARE(editor.applyBlockedReason(),
             QStringLiteral(
                     "This card has failed: its layout cannot be changed until it recovers."));
    QVERIFY(!editor.choosePreset(QStringLiteral("Empty")));
    QCOMPARE(editor.undoStack()->count(), 0);
}

void TestRepartitionApply::readOnlySnapshotDisablesApply()
{
    Appliance a(10 * kHour);
    auto snapshot = std::make_shared<Session::Snapshot>(*a.snapshot());
    snapshot->readOnly = true;
    snapshot->readOnlyProblem = Domain::Problem(Domain::Problem::Code::ReadOnlyNoPermission);
    FixedSession fixed(snapshot);
    Models::SessionClient client(&fixed);
    RepartitionEditor editor(&client);
    const CardId card = a.firstH200();
    editor.setCard(card);
    // Planning is allowed; applying is not.
    QVERIFY(editor.isEditable());
    QVERIFY(editor.choosePreset(QStringLiteral("Empty")));
    QVERIFY(!editor.canApply());
    QCOMPARE(editor.applyBlockedReason(),
             QStringLiteral("Read-only: the console has no permission to change MIG (run it as "
                            "root or grant CAP_SYS_ADMIN)."));
    QVERIFY(!editor.findChild<QPushButton *>(QStringLiteral("applyButton"))->isEnabled());
    QCOMPARE(editor.findChild<QLabel *>(QStringLiteral("applyReason"))->text(),
             editor.applyBlockedReason());
    QVERIFY(!editor.apply());
    QCOMPARE(fixed.applies, 0);
}

QTEST_MAIN(TestRepartitionApply)
#include "tst_repartitionapply.moc"
