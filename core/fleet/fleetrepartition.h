// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fleetstate.h"
#include "fleetwindows.h" // CommandResult

#include "core/catalogue/catalogue.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace Zhaoxi::Fleet {

// One node's MIG layout changed through Slurm (`zhaoxictl fleet repartition`): Slurm's MIG
// support is static, so the node is drained, its jobs leave (requeued), the layout is applied on
// the node, its GRES is rewritten, Slurm is made to take it, and the node is resumed. Parsing and
// planning are pure; the cycle (runRepartition) talks to Slurm only through RepartitionIo.

// A MIG layout for every card of a node, cards in order, each card's placements by start.
struct NodeLayout
{
    int model = -1; // catalogue index
    QList<QList<Domain::MigPlacement>> cards;
};

// The text form, one card after another, separated by ';':
//   CARD:ITEM,ITEM,...     ITEM = PROFILE@START | PROFILE (the lowest free start) | NxPROFILE
//   e.g. "0:3g.71gb@0,3g.71gb@4;1:7x1g.18gb"
// Every card of the node (0..cardCount-1) must be named once, and no card may be empty (a MIG
// card without instances has no device Slurm could count). Each card is checked against the
// catalogue's layout rules for `model`. nullopt with an English *error naming the card and the
// instance ("card 1, instance 8 (1g.18gb): ..."). Pure.
std::optional<NodeLayout> parseNodeLayout(const QString &text,
                                          const Catalogue::Catalogue &catalogue,
                                          int model,
                                          int cardCount,
                                          QString *error);
// "0:3g.71gb@0,3g.71gb@4;1:1g.18gb@0,..." (every instance with its start).
QString formatNodeLayout(const Catalogue::Catalogue &catalogue, const NodeLayout &layout);

// The node's GRES for a layout: gpu:<profile>:N per run of equal profiles in device order
// (cards in order, instances by start), e.g. "gpu:3g.71gb:2,gpu:1g.18gb:7". Pure.
QList<Gres> gresForLayout(const Catalogue::Catalogue &catalogue, const NodeLayout &layout);
QString gresText(const QList<Gres> &gres); // "gpu:3g.71gb:2,gpu:1g.18gb:7"

// What a repartition of `node` starts from: its model and card count from the fleet.
struct RepartitionTarget
{
    QString node;
    int model = -1;
    int cards = 0;
    QString gres; // as Slurm has it now
    FleetNode slurmNode;
};
std::optional<RepartitionTarget> repartitionTarget(const FleetState &fleet,
                                                   const Catalogue::Catalogue &catalogue,
                                                   const QString &node,
                                                   QString *error);

// Checks that Zhaoxi reads `layout`'s GRES back as the same layout (buildFleetState's packing
// rule, the node's features): otherwise the fleet's view would not match the node. A profile
// that comes back in two runs is refused too (Slurm adds up a type's counts on a node). Pure.
bool gresRoundTrips(const Catalogue::Catalogue &catalogue,
                    const RepartitionTarget &target,
                    const NodeLayout &layout,
                    QString *error);

enum class RepartitionStep { Plan, Drain, Jobs, Apply, Gres, Reconfigure, WaitGres, Resume };
const char *toString(RepartitionStep step); // "plan", "drain", "jobs", "apply", "gres", ...

struct RepartitionEvent
{
    RepartitionStep step = RepartitionStep::Plan;
    qint64 atMs = 0; // since the cycle began
    bool ok = true;
    QString message; // English
};

// What the cycle needs from a node, read through REST between steps.
struct NodeView
{
    QString gres;           // configured, "gpu:1g.18gb:14"
    QString state;          // base state, lower case
    QStringList stateFlags; // DRAIN, ...
    QString reason;
    QList<qint64> jobsHolding; // jobs holding resources on the node (running, completing, ...)
};

// Where the cycle touches the world. Calls come from the cycle's thread.
class RepartitionIo
{
public:
    virtual ~RepartitionIo() = default;
    // Runs a program (scontrol, the apply and GRES commands) with extra environment.
    virtual CommandResult run(const QString &program,
                              const QStringList &args,
                              const QStringList &env = {})
            = 0;
    virtual std::optional<NodeView> readNode(const QString &node, QString *error) = 0;
    virtual qint64 nowMs() = 0;
    virtual void sleepMs(int ms) = 0;
};

enum class JobPolicy {
    Wait,      // wait for the node's jobs to end (bounded by RepartitionOptions::jobsTimeoutMs)
    Immediate, // requeue them at once
    Deadline,  // wait until the deadline, then requeue what is left
};

struct RepartitionOptions
{
    QString scontrol = QStringLiteral("scontrol");
    JobPolicy jobs = JobPolicy::Wait;
    qint64 deadlineMs = 0;                  // JobPolicy::Deadline
    qint64 jobsTimeoutMs = 24 * 3600'000LL; // Wait: give up after this long
    qint64 requeueTimeoutMs = 120'000;      // requeued jobs must have left the node by then
    QStringList applyCommand;               // program and its first arguments; empty: skipped
    QStringList gresCommand;                // program and its first arguments; required
    bool reconfigure = true;                // scontrol reconfigure after the GRES command
    qint64 gresTimeoutMs = 120'000;         // the node must show the new GRES by then
    int pollMs = 250;
};

struct RepartitionResult
{
    bool ok = false;
    RepartitionStep failedStep = RepartitionStep::Plan;
    QList<RepartitionEvent> events;
};

// Runs the cycle on `target` towards `layout` (already checked): drain (Reason "zhaoxi
// repartition: <GRES>"), the jobs (per options.jobs; `scontrol requeue`), the apply command
// (NODE LAYOUT; env ZHAOXI_NODE, ZHAOXI_LAYOUT, ZHAOXI_GRES), the GRES command (NODE GRES, same
// env), `scontrol reconfigure` (unless options.reconfigure is false: the command restarts Slurm
// itself), a wait until the node shows the GRES, resume. `onEvent` sees each event as it happens.
// A failing step stops the cycle and leaves the node DRAINED with Reason "zhaoxi repartition
// failed at <step>: <why>"; nothing is undone (the node's real layout may be half-way, which is
// why it stays drained for an operator).
RepartitionResult runRepartition(const RepartitionTarget &target,
                                 const NodeLayout &layout,
                                 const Catalogue::Catalogue &catalogue,
                                 const RepartitionOptions &options,
                                 RepartitionIo &io,
                                 const std::function<void(const RepartitionEvent &)> &onEvent);

// Sorted entries without indices, to compare what Slurm prints in any order ("gpu:a:1,gpu:b:2").
QString normalizedGres(const QString &gres);

} // namespace Zhaoxi::Fleet
