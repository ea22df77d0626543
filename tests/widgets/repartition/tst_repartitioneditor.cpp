// SPDX-License-Identifier: GPL-3.0-or-later
// Editing with the repartition editor on a real simulated appliance (the demo day), offscreen:
// edits made the way a drop makes them and by synthetic drag events, undo and redo, refusals
// with their (translated) reasons, presets, split and merge, and the strip's states. Applying
// the plan is tested in tst_repartitionapply.cpp.
#include "repartitionfixture.h"

#include "widgets/repartition/layoutstrip.h"
#include "widgets/repartition/profilepalette.h"
#include "widgets/repartition/repartitioneditor.h"
#include "widgets/repartition/repartitiontext.h"

#include <QAction>
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

// A translator that marks every RepartitionText sentence, to tell translated text from the
// layout rules' English describe().
class MarkingTranslator : public QTranslator
{
public:
    QString translate(const char *context,
                      const char *sourceText,
                      const char *disambiguation,
                      int n) const override
    {
        Q_UNUSED(disambiguation)
        Q_UNUSED(n)
        if (qstrcmp(context, "Zhaoxi::Widgets::RepartitionText") == 0)
            return QStringLiteral("[zh] ") + QString::fromUtf8(sourceText);
        return QString();
    }
    bool isEmpty() const override { return false; }
};

} // namespace

class TestRepartitionEditor : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void startsFromTheCardsLayout();
    void dropUndoRedo();
    void dragEventsOnTheStrip();
    void illegalEditsAreRefusedWithTheirReason();
    void refusedReasonsAreTranslatedSentences_data();
    void refusedReasonsAreTranslatedSentences();
    void reasonsGoThroughTheTranslator();
    void presetsAndPlan();
    void splitAndMerge();
    void stripShowsStatesAndChanges();
};

void TestRepartitionEditor::startsFromTheCardsLayout()
{
    Appliance a(10 * kHour);
    const CardId card = a.firstH200();
    QVERIFY(card.isValid());
    RepartitionEditor editor(a.client.get());
    editor.setCard(card);
    QCOMPARE(editor.card(), card);
    QVERIFY(editor.isEditable());
    QCOMPARE(editor.pendingLayout(), a.layout(card));
    QCOMPARE(editor.currentLayout(), a.layout(card));
    QCOMPARE(editor.undoStack()->count(), 0);
    QVERIFY(!editor.canApply()); // nothing to apply yet
    QCOMPARE(editor.applyBlockedReason(),
             QStringLiteral("The planned layout is the card's current layout: nothing to apply."));
    // The palette lists the model's profiles.
    QCOMPARE(editor.profilePalette()->topLevelItemCount(), a.model(card).migProfiles.size());
    QCOMPARE(editor.profilePalette()->topLevelItem(0)->text(ProfilePalette::ProfileColumn),
             QStringLiteral("1g.18gb"));
}

void TestRepartitionEditor::dropUndoRedo()
{
    Appliance a(10 * kHour);
    const CardId card = a.firstH200();
    const Domain::CardModel &model = a.model(card);
    RepartitionEditor editor(a.client.get());
    editor.setCard(card);
    QSignalSpy changed(&editor, &RepartitionEditor::pendingLayoutChanged);

    // Clear the plan, then drop a 3g.71gb over slot 6: it goes to its nearest legal start, 4.
    QVERIFY(editor.choosePreset(QStringLiteral("Empty")));
    QVERIFY(editor.pendingLayout().isEmpty());
    const int threeG = profileIndex(model, "3g.71gb");
    QVERIFY(editor.dropProfile(threeG, 6));
    QCOMPARE(format(model, editor.pendingLayout()), QStringLiteral("3g.71gb@4"));
    QCOMPARE(editor.undoStack()->count(), 2);
    QCOMPARE(editor.undoAction()->text(), QStringLiteral("Undo add 3g.71gb@4"));
    QVERIFY(editor.undoAction()->isEnabled());
    QVERIFY(!editor.redoAction()->isEnabled());

    editor.undoAction()->trigger();
    QVERIFY(editor.pendingLayout().isEmpty());
    QCOMPARE(editor.redoAction()->text(), QStringLiteral("Redo add 3g.71gb@4"));
    editor.redoAction()->trigger();
    QCOMPARE(format(model, editor.pendingLayout()), QStringLiteral("3g.71gb@4"));
    editor.undoStack()->undo();
    editor.undoStack()->undo();
    QCOMPARE(editor.pendingLayout(), a.layout(card));
    QCOMPARE(changed.size(), 6);
    QCOMPARE(changed.last().first().value<QList<MigPlacement>>(), a.layout(card));
}

void TestRepartitionEditor::dragEventsOnTheStrip()
{
    Appliance a(10 * kHour);
    const CardId card = a.firstH200();
    const Domain::CardModel &model = a.model(card);
    RepartitionEditor editor(a.client.get());
    editor.resize(1000, 700);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    editor.setCard(card);
    QVERIFY(editor.choosePreset(QStringLiteral("Empty")));
    const int oneG = profileIndex(model, "1g.18gb");
    QVERIFY(editor.dropProfile(profileIndex(model, "3g.71gb"), 0)); // 3g.71gb@0

    LayoutStrip *strip = editor.strip();
    const int modelIndex = a.card(card).model;
    std::unique_ptr<QMimeData> mime(ProfilePalette::encode(modelIndex, oneG));
    QCOMPARE(mime->formats(), QStringList{QStringLiteral("application/x-zhaoxi-mig-profile")});

    // Entering over the free slot 5: legal; the legal starts 4, 5 and 6 are outlined.
    const QPoint free = strip->slotCenter(LayoutStrip::Row::Planned, 5);
    QDragEnterEvent enter(free, Qt::CopyAction, mime.get(), Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(strip, &enter);
    QVERIFY(enter.isAccepted());
    QCOMPARE(strip->hoverSlot(), 5);
    QVERIFY(strip->isHoverLegal());
    QCOMPARE(strip->highlightedStarts(), (QList<int>{4, 5, 6}));
    QCOMPARE(strip->hoverText(), QStringLiteral("\u2713 Legal: 1g.18gb@5 can go here."));

    // Over slot 2 (inside 3g.71gb@0): illegal, and the strip says why.
    const QPoint taken = strip->slotCenter(LayoutStrip::Row::Planned, 2);
    QDragMoveEvent overTaken(taken, Qt::CopyAction, mime.get(), Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(strip, &overTaken);
    QVERIFY(!overTaken.isAccepted());
    QCOMPARE(strip->hoverSlot(), 2);
    QVERIFY(!strip->isHoverLegal());
    QCOMPARE(
            strip->hoverText(),
            QStringLiteral("\u2717 Not here: 1g.18gb@2 would overlap 3g.71gb@0 on memory slot 2."));

    // Back over slot 5, and dropped there.
    QDragMoveEvent overFree(free, Qt::CopyAction, mime.get(), Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(strip, &overFree);
    QVERIFY(overFree.isAccepted());
    QDropEvent drop(free, Qt::CopyAction, mime.get(), Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(strip, &drop);
    QVERIFY(drop.isAccepted());
    QCOMPARE(drop.dropAction(), Qt::CopyAction);
    QCOMPARE(strip->hoverSlot(), -1); // the drag is over
    QCOMPARE(format(model, editor.pendingLayout()), QStringLiteral("3g.71gb@0 1g.18gb@5"));
    QCOMPARE(editor.undoStack()->count(), 3);

    // A profile of another model is not taken.
    std::unique_ptr<QMimeData> foreign(ProfilePalette::encode(modelIndex + 1, oneG));
    QDragEnterEvent enterForeign(
            free, Qt::CopyAction, foreign.get(), Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(strip, &enterForeign);
    QDragMoveEvent moveForeign(free, Qt::CopyAction, foreign.get(), Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(strip, &moveForeign);
    QVERIFY(!moveForeign.isAccepted());
    QCOMPARE(strip->hoverText(), QStringLiteral("This profile belongs to another card model."));
    QDropEvent dropForeign(free, Qt::CopyAction, foreign.get(), Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(strip, &dropForeign);
    QCOMPARE(editor.undoStack()->count(), 3);

    // The palette hands out the same MIME data for a row.
    int m = -1, p = -1;
    QVERIFY(ProfilePalette::decode(mime.get(), &m, &p));
    QCOMPARE(m, modelIndex);
    QCOMPARE(p, oneG);
}

void TestRepartitionEditor::illegalEditsAreRefusedWithTheirReason()
{
    Appliance a(10 * kHour);
    const CardId card = a.firstH200();
    const Domain::CardModel &model = a.model(card);
    RepartitionEditor editor(a.client.get());
    editor.setCard(card);
    QVERIFY(editor.choosePreset(QStringLiteral("Empty")));
    QVERIFY(editor.dropProfile(profileIndex(model, "3g.71gb"), 0));
    const int count = editor.undoStack()->count();

    // Given 3g.71gb@0: a second 3g.71gb cannot start at slot 2, a 1g.18gb cannot go into its
    // slots, a 4g.71gb cannot start at slot 5, and there is no room left for a 7g.141gb.
    QVERIFY(!editor.addPlacement(MigPlacement{profileIndex(model, "3g.71gb"), 2}));
    QCOMPARE(editor.statusText(),
             QStringLiteral("3g.71gb cannot start at slot 2: it may start only at slots 0, 4."));
    QVERIFY(!editor.dropProfile(profileIndex(model, "1g.18gb"), 3));
    QCOMPARE(editor.statusText(),
             QStringLiteral("1g.18gb@3 would overlap 3g.71gb@0 on memory slot 3."));
    QVERIFY(!editor.dropProfile(profileIndex(model, "4g.71gb"), 5));
    QCOMPARE(editor.statusText(),
             QStringLiteral("4g.71gb cannot start at slot 5: it may start only at slot 0."));
    QVERIFY(!editor.addProfile(profileIndex(model, "7g.141gb")));
    QCOMPARE(editor.statusText(),
             QStringLiteral("No room for another instance: 7g.141gb@0 would overlap 3g.71gb@0 on "
                            "memory slots 0, 1, 2, 3."));
    // The status line marks a refusal with a sign, not only by colour.
    QVERIFY(editor.findChild<QLabel *>(QStringLiteral("repartitionStatus"))
                    ->text()
                    .startsWith(QStringLiteral("\u26A0 ")));

    // Three 1g.18gb fill slots 4 to 6; no one-slot profile may start at slot 7.
    for (int slot : {4, 5, 6})
        QVERIFY(editor.dropProfile(profileIndex(model, "1g.18gb"), slot));
    QVERIFY(!editor.dropProfile(profileIndex(model, "1g.18gb+me"), 7));
    QCOMPARE(editor.statusText(),
             QStringLiteral("1g.18gb+me cannot start at slot 7: it may start only at slots 0, 1, "
                            "2, 3, 4, 5, 6."));

    QCOMPARE(format(model, editor.pendingLayout()),
             QStringLiteral("3g.71gb@0 1g.18gb@4 1g.18gb@5 1g.18gb@6"));
    QCOMPARE(editor.undoStack()->count(), count + 3);
    QVERIFY(!editor.mergePlacements(0, 2));
    QCOMPARE(editor.statusText(),
             QStringLiteral("3g.71gb@0 and 1g.18gb@5 cannot be merged: only two instances side by "
                            "side can."));
    QVERIFY(!editor.splitPlacement(1));
    QCOMPARE(editor.statusText(),
             QStringLiteral(
                     "1g.18gb@4 cannot be split: no two smaller instances fit in its slots."));
    QCOMPARE(editor.undoStack()->count(), count + 3);
}

void TestRepartitionEditor::refusedReasonsAreTranslatedSentences_data()
{
    QTest::addColumn<QString>("layout"); // "profile@start ..." on an H200
    QTest::addColumn<int>("problem");
    QTest::addColumn<QString>("sentence");

    QTest::newRow("start not allowed")
            << "3g.71gb@2" << int(LayoutProblem::StartNotAllowed)
            << "3g.71gb cannot start at slot 2: it may start only at slots 0, 4.";
    QTest::newRow("start not allowed, one start")
            << "7g.141gb@4" << int(LayoutProblem::StartNotAllowed)
            << "7g.141gb cannot start at slot 4: it may start only at slot 0.";
    QTest::newRow("overlap") << "2g.35gb@2 3g.71gb@0" << int(LayoutProblem::Overlap)
                             << "3g.71gb@0 would overlap 2g.35gb@2 on memory slots 2, 3.";
    QTest::newRow("media extensions")
            << "1g.18gb+me@0 1g.18gb+me@1" << int(LayoutProblem::MediaExtensionsTaken)
            << "1g.18gb+me@1 needs the card's media engines, which 1g.18gb+me@0 already owns.";
    QTest::newRow("valid") << "4g.71gb@0 2g.35gb@4 1g.35gb@6" << int(LayoutProblem::None)
                           << "The layout is valid.";
    // On H200 every profile's limit equals its number of starts and no layout can exceed the
    // compute slices without overlapping first: reasonsGoThroughTheTranslator makes those up.
}

void TestRepartitionEditor::refusedReasonsAreTranslatedSentences()
{
    QFETCH(QString, layout);
    QFETCH(int, problem);
    QFETCH(QString, sentence);
    const Catalogue::Catalogue catalogue = Catalogue::Catalogue::builtIn();
    const Domain::CardModel *model = catalogue.find(QStringLiteral("H200-141GB"));
    QVERIFY(model);
    Layout placements;
    for (const QString &part : layout.split(QLatin1Char(' '))) {
        const QStringList pieces = part.split(QLatin1Char('@'));
        placements.append(MigPlacement{model->profileIndex(pieces[0]), pieces[1].toInt()});
    }
    const LayoutVerdict v = Catalogue::validateLayout(*model, placements);
    QCOMPARE(int(v.problem), problem);
    QCOMPARE(RepartitionText::problem(*model, placements, v), sentence);
}

void TestRepartitionEditor::reasonsGoThroughTheTranslator()
{
    // The remaining codes, made up directly, and the sentences a refused edit shows: they come
    // from tr() (a marking translator changes them), not from the rules' English describe().
    const Catalogue::Catalogue catalogue = Catalogue::Catalogue::builtIn();
    const Domain::CardModel &h200 = *catalogue.find(QStringLiteral("H200-141GB"));
    const int twoG = h200.profileIndex(QStringLiteral("2g.35gb"));
    const int oneG = h200.profileIndex(QStringLiteral("1g.18gb"));
    LayoutVerdict limit;
    limit.problem = LayoutProblem::InstanceLimit;
    limit.index = 3;
    limit.limit = 3;
    const Layout fourTwoG{{twoG, 0}, {twoG, 2}, {twoG, 4}, {twoG, 6}};
    QCOMPARE(RepartitionText::problem(h200, fourTwoG, limit),
             QStringLiteral("A card can hold at most 3 2g.35gb instances."));
    LayoutVerdict compute;
    compute.problem = LayoutProblem::ComputeExhausted;
    compute.index = 4;
    compute.limit = 7;
    const Layout tooMuch{{twoG, 0}, {twoG, 2}, {twoG, 4}, {oneG, 6}, {oneG, 7}};
    QCOMPARE(RepartitionText::problem(h200, tooMuch, compute),
             QStringLiteral("Not enough compute: 1g.18gb@7 would bring the card to 8 of its 7 "
                            "compute slices."));
    LayoutVerdict notMig;
    notMig.problem = LayoutProblem::NotMigCapable;
    QCOMPARE(RepartitionText::problem(*catalogue.find(QStringLiteral("L40S-48GB")), {}, notMig),
             QStringLiteral("L40S-48GB cards have no MIG partitions."));

    Appliance a(10 * kHour);
    const CardId card = a.firstH200();
    RepartitionEditor editor(a.client.get());
    editor.setCard(card);
    QVERIFY(editor.choosePreset(QStringLiteral("Empty")));
    const Domain::CardModel &model = a.model(card);
    QVERIFY(editor.dropProfile(profileIndex(model, "3g.71gb"), 0));

    const Layout with{{profileIndex(model, "3g.71gb"), 0}, {profileIndex(model, "3g.71gb"), 2}};
    const QString english = Catalogue::canAdd(model, {with[0]}, with[1]).describe(model, with);
    MarkingTranslator marking;
    QCoreApplication::installTranslator(&marking);
    QVERIFY(!editor.addPlacement(with[1]));
    QCoreApplication::removeTranslator(&marking);
    QCOMPARE(editor.statusText(),
             QStringLiteral("[zh] %1 cannot start at slot %2: it may start only at %3.")
                     .arg(QStringLiteral("3g.71gb"),
                          QStringLiteral("2"),
                          QStringLiteral("[zh] slots %1").arg(QStringLiteral("0[zh] , 4"))));
    QVERIFY(editor.statusText() != english);
}

void TestRepartitionEditor::presetsAndPlan()
{
    Appliance a(10 * kHour);
    const CardId card = a.firstH200();
    const Domain::CardModel &model = a.model(card);
    RepartitionEditor editor(a.client.get());
    editor.setCard(card);

    // The maximal layouts of the common profiles (1g.18gb, 2g.35gb, 3g.71gb, 4g.71gb, 7g.141gb):
    // nineteen, as in the MIG user guide's figure, after "Current layout" and "Empty".
    const QStringList names = editor.presetNames();
    QCOMPARE(names.size(), 2 + 19);
    QCOMPARE(names[0], QStringLiteral("Current layout"));
    QCOMPARE(names[1], QStringLiteral("Empty"));
    QCOMPARE(names[2], QStringLiteral("7g.141gb"));
    QVERIFY(names.contains(QStringLiteral("7x 1g.18gb")));
    QVERIFY(names.contains(QStringLiteral("4g.71gb + 3g.71gb")));
    QVERIFY(names.contains(QStringLiteral("3g.71gb + 2x 2g.35gb")));

    QVERIFY(editor.choosePreset(QStringLiteral("7x 1g.18gb")));
    QCOMPARE(format(model, editor.pendingLayout()),
             QStringLiteral(
                     "1g.18gb@0 1g.18gb@1 1g.18gb@2 1g.18gb@3 1g.18gb@4 1g.18gb@5 1g.18gb@6"));
    QCOMPARE(editor.undoStack()->undoText(), QStringLiteral("preset 7x 1g.18gb"));

    // The plan: every destroy of the current layout first, then the creates, larger first; the
    // affected jobs and the time come from the session's preview.
    const QList<LayoutEdit::CurrentUnit> units
            = LayoutEdit::currentUnits(a.snapshot()->state, card);
    const QList<LayoutEdit::Step> steps
            = LayoutEdit::planSteps(model, units, editor.pendingLayout());
    QStringList expected;
    QStringList busy;
    int destroys = 0;
    for (const LayoutEdit::Step &s : steps) {
        expected << RepartitionText::step(model, s);
        if (s.kind == LayoutEdit::Step::Kind::Destroy) {
            ++destroys;
            if (!s.jobName.isEmpty() && !busy.contains(s.jobName))
                busy << s.jobName;
        }
    }
    QCOMPARE(editor.planSteps(), expected);
    bool seenCreate = false;
    for (const LayoutEdit::Step &s : steps) {
        if (s.kind == LayoutEdit::Step::Kind::Create)
            seenCreate = true;
        else
            QVERIFY2(!seenCreate, "a destroy after a create");
    }
    QVERIFY(editor.planSteps().contains(QStringLiteral("create 1g.18gb@6")));
    QTRY_VERIFY(editor.canApply()); // the appliance's answer: which jobs the change stops
    QCOMPARE(editor.affectedJobNames(), busy);
    const qint64 expectedMs = qint64(destroys) * 2000 + qint64(steps.size() - destroys) * 4000;
    QCOMPARE(editor.expectedTimeText(), RepartitionText::duration(expectedMs));
    QCOMPARE(RepartitionText::duration(14'000), QStringLiteral("about 14 s"));
    QCOMPARE(RepartitionText::duration(180'000), QStringLiteral("about 3 min"));
    QVERIFY(editor.canApply());

    // "Current layout" takes the plan back (an edit too, undoable).
    QVERIFY(editor.choosePreset(0));
    QCOMPARE(editor.pendingLayout(), a.layout(card));
    QVERIFY(editor.planSteps().isEmpty());
    QCOMPARE(editor.undoStack()->count(), 2);
}

void TestRepartitionEditor::splitAndMerge()
{
    Appliance a(10 * kHour);
    const CardId card = a.firstH200();
    const Domain::CardModel &model = a.model(card);
    RepartitionEditor editor(a.client.get());
    editor.setCard(card);

    QVERIFY(editor.choosePreset(QStringLiteral("7g.141gb")));
    QVERIFY(editor.splitPlacement(0));
    QCOMPARE(format(model, editor.pendingLayout()), QStringLiteral("4g.71gb@0 3g.71gb@4"));
    // 3g.71gb@4 splits into 2g.35gb@4 and what compute is left: a 1g.35gb.
    QVERIFY(editor.splitPlacement(1));
    QCOMPARE(format(model, editor.pendingLayout()),
             QStringLiteral("4g.71gb@0 2g.35gb@4 1g.35gb@6"));
    // Through the strip's selection and the buttons.
    editor.strip()->setSelection({1, 2});
    auto *merge = editor.findChild<QPushButton *>(QStringLiteral("mergeButton"));
    QVERIFY(merge->isEnabled());
    merge->click();
    QCOMPARE(format(model, editor.pendingLayout()), QStringLiteral("4g.71gb@0 3g.71gb@4"));
    QVERIFY(editor.mergePlacements(0, 1));
    QCOMPARE(format(model, editor.pendingLayout()), QStringLiteral("7g.141gb@0"));
    QCOMPARE(editor.undoStack()->undoText(), QStringLiteral("merge 4g.71gb@0 and 3g.71gb@4"));
    // Two 1g.18gb side by side become the 2g.35gb whose compute they had.
    QVERIFY(editor.choosePreset(QStringLiteral("7x 1g.18gb")));
    QVERIFY(editor.mergePlacements(2, 3));
    QCOMPARE(format(model, editor.pendingLayout()),
             QStringLiteral("1g.18gb@0 1g.18gb@1 2g.35gb@2 1g.18gb@4 1g.18gb@5 1g.18gb@6"));
    // 1g.18gb@1 and 2g.35gb@2 span three slots: no profile covers exactly those.
    QVERIFY(!editor.mergePlacements(1, 2));
    QCOMPARE(editor.statusText(),
             QStringLiteral("1g.18gb@1 and 2g.35gb@2 cannot be merged: no profile of this card "
                            "covers exactly their slots."));
    // Delete on the strip removes the selection.
    editor.strip()->setSelection({0});
    QTest::keyClick(editor.strip(), Qt::Key_Delete);
    QCOMPARE(format(model, editor.pendingLayout()),
             QStringLiteral("1g.18gb@1 2g.35gb@2 1g.18gb@4 1g.18gb@5 1g.18gb@6"));
}

void TestRepartitionEditor::stripShowsStatesAndChanges()
{
    // Instances being created and destroyed (a hardware appliance's later snapshots), a busy
    // one, and a plan that destroys and creates: the strip paints all of it and says it in words.
    const Catalogue::Catalogue catalogue = Catalogue::Catalogue::builtIn();
    const Domain::CardModel &h200 = *catalogue.find(QStringLiteral("H200-141GB"));
    const int threeG = h200.profileIndex(QStringLiteral("3g.71gb"));
    const int twoG = h200.profileIndex(QStringLiteral("2g.35gb"));
    const int oneG = h200.profileIndex(QStringLiteral("1g.18gb"));
    QList<LayoutEdit::CurrentUnit> units;
    units.append(
            {0, {threeG, 0}, Domain::JobId(3), QStringLiteral("chat#1"), Sched::UnitState::Ready});
    units.append({1, {twoG, 4}, Domain::JobId(), QString(), Sched::UnitState::Creating});
    units.append({2, {oneG, 6}, Domain::JobId(), QString(), Sched::UnitState::Destroying});
    LayoutStrip strip;
    strip.resize(900, strip.sizeHint().height());
    strip.setCardModel(&h200, 0);
    strip.setLayouts(units, {{threeG, 0}, {oneG, 4}, {oneG, 5}});
    const QImage image = strip.grab().toImage();
    QVERIFY(!image.isNull());
    QCOMPARE(image.height(), strip.sizeHint().height());
    // Selection: a click on a planned instance, Ctrl+click a second; a third replaces the first.
    QTest::mouseClick(&strip, Qt::LeftButton, {}, strip.slotCenter(LayoutStrip::Row::Planned, 0));
    QCOMPARE(strip.selection(), QList<int>{0});
    QTest::mouseClick(&strip,
                      Qt::LeftButton,
                      Qt::ControlModifier,
                      strip.slotCenter(LayoutStrip::Row::Planned, 4));
    QCOMPARE(strip.selection(), (QList<int>{0, 1}));
    QTest::mouseClick(&strip,
                      Qt::LeftButton,
                      Qt::ControlModifier,
                      strip.slotCenter(LayoutStrip::Row::Planned, 5));
    QCOMPARE(strip.selection(), (QList<int>{1, 2}));
    QTest::mouseClick(&strip, Qt::LeftButton, {}, strip.slotCenter(LayoutStrip::Row::Planned, 7));
    QVERIFY(strip.selection().isEmpty());
    QCOMPARE(strip.plannedAt(strip.slotCenter(LayoutStrip::Row::Current, 0)), -1);
    QCOMPARE(strip.slotAt(strip.slotCenter(LayoutStrip::Row::Current, 6)), 6);
    const LayoutEdit::Diff d = LayoutEdit::diff(units, {{threeG, 0}, {oneG, 4}, {oneG, 5}});
    QCOMPARE(d.unitKept, (QList<bool>{true, false, false}));
    QCOMPARE(d.placementCreated, (QList<bool>{false, true, true}));
    QCOMPARE(RepartitionText::unitState(Sched::UnitState::Creating), QStringLiteral("creating"));
}

QTEST_MAIN(TestRepartitionEditor)
#include "tst_repartitioneditor.moc"
