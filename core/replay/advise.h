// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace Zhaoxi::Catalogue {
class Catalogue;
}
namespace Zhaoxi::Storage {
class Reader;
}

namespace Zhaoxi::Replay {

// Recommendations from what the store recorded (issue 18, docs/replay.md "Recommendations"):
// a few concrete changes, each with its evidence from the store and a replay of the recorded
// days that proves it. Codes and parameters only; the command line and the console word them.
//
// How a suggestion is found and kept:
//  1. The recorded days: each local day (the run's UTC offset) of the last `days` days with
//     recorded data under a "run-basis" event; the partial days at the ends count when they hold
//     at least kMinDayMs.
//  2. The evidence, per local hour of each day, from the store: each service's requests past
//     its SLO (SloAttainment x RequestRate), training evictions and the work they lost,
//     preemptions of training for an inference replica, minutes at the power budget; and from the
//     day's baseline replay: each service's most replicas, idle capacity while training waited,
//     training slowed by the power cap.
//  3. Candidates from the evidence, a small search per kind (never all combinations): a window
//     edge moved by 30/60/90 min towards where the misses or evictions cluster; a window's
//     inferenceShare +-0.05/0.10; a service's maxReplicas +1/+2 (at its max with misses) or its
//     minReplicas -1; a window's trainingPowerCapW raised by 15/30 % (when the replays show
//     training slowed by it); for the night (the window that leaves inference the
//     least), 1, 2 or 4 MIG cards in whole mode from its opening, when the store shows the
//     appliance repartitioning in its first two hours.
//  4. Baseline: each day replayed under the policy and parameters that ran (the replay's own
//     figures, so the comparison is like for like); candidate: the same replay with the one
//     change. All replays run in parallel (a QThreadPool of the machine's cores).
//  5. Kept only when the stated figure improves by its margin (kMinImprovement and the figure's
//     floor: at least one preemption, 10 requests, 0.1 card-h or 0.1 kWh over the days) AND no
//     service's SLO attainment, request-weighted over the days, drops by more than
//     kMaxSloDrop (0.05 percentage points) AND, unless the stated figure is training work,
//     training work drops by at most kMaxTrainingCost (5 %). Of the candidates of one kind and target (one edge,
//     one window's share, one service) the best is kept, a smaller change preferred when it
//     achieves at least 90 % of the best's improvement; the rest ranked by relative improvement,
//     at most `maxSuggestions`.

enum class SuggestionKind { WindowEdge, ClassBudget, ReplicaRange, NightLayout, PowerCap };
const char *toString(SuggestionKind kind); // "window-edge", "class-budget", "replica-range",
                                           // "night-layout", "power-cap"

// The figure a suggestion states it improves.
enum class Figure {
    Preemptions,  // training evictions other than for failed cards, fewer is better
    LostWork,     // training work lost to evictions, card-h, less is better
    SloMisses,    // requests past their service's SLO, fewer is better
    TrainingWork, // training work done, card-h, more is better
    Energy,       // kWh, less is better
};
const char *toString(Figure figure); // "preemptions", "lost-work", "slo-misses",
                                     // "training-work", "energy"
bool lowerIsBetter(Figure figure);

constexpr double kMinImprovement = 0.05;  // relative, of the stated figure over the days
constexpr double kMaxSloDrop = 0.0005;    // attainment (0..1): 0.05 percentage points
constexpr double kMaxTrainingCost = 0.05; // relative: what a change for another figure may
                                          // cost training work over the days
constexpr qint64 kMinDayMs = 2 * 3600'000LL;

struct ServiceFigures
{
    QString name;
    double requests = 0;
    double sloAttainment = 1; // 0..1
};

// One replay's figures (or their sum over days: attainment request-weighted).
struct Figures
{
    int preemptions = 0;
    double trainingWorkH = 0;
    double lostWorkH = 0;
    double energyKwh = 0;
    double sloMisses = 0; // requests past their SLO, all services
    QList<ServiceFigures> services;
    double value(Figure f) const;
    void add(const Figures &other);
    QJsonObject toJson() const;
};

struct DayProof
{
    QString day; // local date, "2026-01-05"
    qint64 fromMs = 0, toMs = 0;
    Figures baseline, candidate;
};

struct Proof
{
    QList<DayProof> days;
    Figures baseline, candidate; // summed over the days
    // The stated figure's change, candidate - baseline, relative to the baseline (0 when the
    // baseline is 0); and each service's attainment change (percentage points).
    double figureChange = 0;
    double figureDelta = 0;
    QJsonObject deltas() const; // {preemptions, training_work_h, lost_work_h, energy_kwh,
                                //  slo_misses, figure_change, slo_attainment_pp{service: pp}}
};

struct Suggestion
{
    SuggestionKind kind = SuggestionKind::WindowEdge;
    Figure figure = Figure::Preemptions;
    // What changes, by kind (times "HH:MM" local, shares 0..1, watts):
    //  window-edge:   window, edge ("from"), old, new, neighbour (the window whose "to" moves
    //                 with it, or absent)
    //  class-budget:  window, old, new (inferenceShare)
    //  replica-range: service, oldMin, newMin, oldMax, newMax
    //  power-cap:     window, old (-1: none), new
    //  night-layout:  window, at ("HH:MM", its opening), cards [index], profiles (per card,
    //                 "whole": the card in whole mode for the night's gangs)
    QJsonObject params;
    // What the store showed: days (with it), of (days looked at), fromHour, toHour (local, the
    // span it clusters in), and the counts by kind: sloMisses, requests, attainmentPct
    // {min, max}, preemptions {min, max, total}, inferencePreemptions, lostCardH, idleWaitCardH,
    // powerBoundMinutes, service, maxReplicasSeen. Only what applies is present.
    QJsonObject evidence;
    // The change as data. Schedule kinds (window-edge, class-budget, power-cap): {"windows": the
    // complete new windows params} — what ApplianceSession::previewSchedule and
    // setScheduleConfirmed take. replica-range: {"service", "minReplicas", "maxReplicas"}.
    // night-layout: {"at": "HH:MM", "cards": [{"card", "mode"}]}: each card set to the mode at
    // that time of day (an operator's change; the console's layout preview-and-confirm path).
    // The replay makes it at that time of each day; a card still busy then keeps its layout.
    QJsonObject change;
    Proof proof;
    double score = 0; // the relative improvement of the stated figure (> 0)
    // For candidates not shown (empty when shown): "no-improvement" (the stated figure did not
    // move by its margin), "slo-worse" (a service's attainment dropped by more than
    // kMaxSloDrop), "training-cost" (a change for another figure cost training more than
    // kMaxTrainingCost), "superseded" (another change of the same target did better),
    // "beyond-limit" (more than maxSuggestions were kept).
    QString rejected;
    QJsonObject toJson() const; // {kind, figure, params, evidence, change, proof{days[], deltas}}
};

struct RecordedDay
{
    QString day; // local date
    qint64 fromMs = 0, toMs = 0;
    QString policy; // the policy that ran
    bool partial = false;
};

struct AdviseOptions
{
    int days = 7;           // the last N local days with recorded data
    int maxSuggestions = 5; // at most shown
    int threads = 0;        // replays at once; 0 the machine's cores
};

struct Advice
{
    QList<Suggestion> suggestions; // best first
    QList<Suggestion> rejected;    // replayed but not shown, with their reason and proof
    QStringList notes;             // English, for logs: what was approximated or skipped
    QList<RecordedDay> days;
    int candidates = 0;         // changes tried
    int replays = 0;            // replays run (days x (candidates + 1))
    double seconds = 0;         // wall time of the whole
    QJsonObject toJson() const; // {suggestions, rejected, notes, days, candidates, replays,
                                //  seconds} (docs/replay.md)
};

// Reads the store's last `options.days` recorded days, finds candidate changes from their
// evidence and proves each by replaying every day with and without it. nullopt with *error
// (English) when the store holds no recorded run or cannot be read. An Advice without
// suggestions is an answer too (nothing both improves and keeps the SLO; `rejected` says why).
// Blocks for the replays (seconds); any thread that owns the reader.
std::optional<Advice> advise(Storage::Reader &reader,
                             const Catalogue::Catalogue &catalogue,
                             const AdviseOptions &options,
                             QString *error);

} // namespace Zhaoxi::Replay
