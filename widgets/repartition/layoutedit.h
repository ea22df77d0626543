// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/catalogue/layoutrules.h"
#include "core/domain/cardmodel.h"
#include "core/domain/ids.h"
#include "core/sched/clusterstate.h"

#include <QList>
#include <QString>

// The repartition editor's arithmetic on MIG layouts: what a drop, a split, a merge or a preset
// turns a pending layout into, and the steps from the card's current layout to a pending one.
// Pure functions over the catalogue's layout rules (core/catalogue/layoutrules.h): no widgets,
// no words (reasons are codes; RepartitionText turns them into sentences). Any thread.
namespace Zhaoxi::Widgets::LayoutEdit {

using Domain::CardModel;
using Domain::MigPlacement;
using Layout = QList<MigPlacement>;

// One MIG instance of the card as the latest snapshot has it.
struct CurrentUnit
{
    int uid = -1;
    MigPlacement placement;
    Domain::JobId job; // invalid: free
    QString jobName;   // the job's name; empty when free
    Sched::UnitState state = Sched::UnitState::Ready;
    friend bool operator==(const CurrentUnit &, const CurrentUnit &) = default;
};

// The MIG instances of `card`, by start slot. Empty for a card that is not in MIG mode.
QList<CurrentUnit> currentUnits(const Sched::ClusterState &state, Domain::CardId card);
// The units' placements, in the units' order.
Layout layoutOf(const QList<CurrentUnit> &units);
// A layout sorted by (start, profile): the pending layout's canonical order.
Layout sorted(Layout layout);
// Whether two layouts hold the same placements, in any order.
bool sameLayout(const Layout &a, const Layout &b);

// Which current units a change to `pending` keeps and which pending placements it creates: the
// same matching as the scheduler's applyLayout (each unit keeps the first equal placement left).
struct Diff
{
    QList<bool> unitKept;         // parallel to the units
    QList<bool> placementCreated; // parallel to `pending`
    QList<int> unitOf;            // parallel to `pending`: the kept unit's index, or -1
};
Diff diff(const QList<CurrentUnit> &units, const Layout &pending);

// One step of a change, in the order the appliance carries it out (core/sched/scheduler.cpp
// applyLayout): every destroy first, in the units' order, then the creates, larger first (by
// span, then start).
struct Step
{
    enum class Kind { Destroy, Create };
    Kind kind = Kind::Create;
    MigPlacement placement;
    QString jobName; // Destroy of a busy instance: the job it serves
    friend bool operator==(const Step &, const Step &) = default;
};
QList<Step> planSteps(const CardModel &model,
                      const QList<CurrentUnit> &units,
                      const Layout &pending);

// The allowed starts of `profile` at which it can be added to `layout` (ascending).
QList<int> legalStarts(const CardModel &model, const Layout &layout, int profile);

// Where a profile dropped over memory slot `slot` goes: the legal start nearest the slot among
// those whose span covers it. When there is none, `start` is -1 and `verdict` is the layout
// rules' answer for the placement that would cover the slot (an allowed start covering it, the
// nearest first; else the profile at `slot` itself, which the rules refuse as StartNotAllowed).
// `candidate` is the placement the verdict is about; describe it with `layout + candidate`.
struct DropTarget
{
    int start = -1;
    MigPlacement candidate;
    Catalogue::LayoutVerdict verdict;
    bool isLegal() const { return start >= 0; }
};
DropTarget dropTarget(const CardModel &model, const Layout &layout, int profile, int slot);

// Why an edit other than an addition cannot be made.
enum class EditProblem {
    None,
    LayoutRule,        // the layout rules refuse the result: see `verdict` on `verdictLayout`
    NoSmallerProfile,  // split: no smaller profile fits in the instance's slots
    NotAdjacent,       // merge: the two instances do not touch
    NoCoveringProfile, // merge: the model has no profile starting and ending where they do
    NoFreeStart,       // add: no allowed start is free (`verdict`: the first start's answer)
};

struct EditResult
{
    EditProblem problem = EditProblem::None;
    Layout layout;                    // the new pending layout (sorted) when problem is None
    MigPlacement added;               // addAtFirstFreeStart: the placement it added
    Catalogue::LayoutVerdict verdict; // EditProblem::LayoutRule / NoFreeStart
    Layout verdictLayout;             // the layout the verdict indexes into
    bool isOk() const { return problem == EditProblem::None; }
};

// Replaces placement `index` of `layout` by the largest smaller profiles that fit in its slots at
// legal starts: profiles of a smaller span, largest span then most compute first, each placed at
// every allowed start inside the slots that the rules accept, in ascending order, until the slots
// are filled or nothing else fits. Profiles with media extensions are not used. Needs at least
// two pieces.
EditResult split(const CardModel &model, const Layout &layout, int index);

// Replaces placements `a` and `b` (adjacent) by one instance covering their slots: a profile of
// that span allowed to start there, preferring the one whose compute equals theirs together,
// then the one with more compute; media extensions only when one of the two had them.
EditResult merge(const CardModel &model, const Layout &layout, int a, int b);

// Adds `profile` at its lowest free start (`added` says where).
EditResult addAtFirstFreeStart(const CardModel &model, const Layout &layout, int profile);

// The profiles presets are made of: without media extensions, and for each compute size the one
// with the least memory (on H200: 1g.18gb, 2g.35gb, 3g.71gb, 4g.71gb, 7g.141gb).
QList<int> commonProfiles(const CardModel &model);

// "3g.71gb + 2x 2g.35gb": larger profiles first (span, then compute), "Nx " when repeated.
// Empty for an empty layout.
QString layoutName(const CardModel &model, const Layout &layout);
// Placements with formatPlacement, by start: "2g.35gb@0 1g.18gb@2 3g.71gb@4".
QString placementList(const CardModel &model, const Layout &layout);

struct Preset
{
    QString name; // layoutName, or with its placements in parentheses when two share a name
    Layout layout;
};
// Every maximal layout of the common profiles, most instances last (then by name).
QList<Preset> maximalPresets(const CardModel &model);

} // namespace Zhaoxi::Widgets::LayoutEdit
