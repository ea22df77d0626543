// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fleetstate.h"

#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace Zhaoxi::Fleet {

// The console's day/night windows (the `windows` policy's parameters, core/policy/timewindows.h)
// as Slurm reservations, so that a Slurm fleet moves capacity between the classes on the same
// schedule as the appliance. Planning is pure (planWindows); carrying a plan out runs scontrol
// (applyWindowsPlan), because slurmrestd v0.0.38 cannot create reservations.
//
// The rules (docs/fleet.md has them for users):
// - A window with inferenceShare < 0.5 is a training window: it reserves, for the training
//   partition, the largest set of whole nodes whose cards are at most the training share
//   (1 - inferenceShare) of the fleet's cards: inference never gets less than its share. A window
//   with inferenceShare >= 0.5 is an inference window: it reserves, for the inference partition,
//   the smallest set of nodes whose cards are at least the inference share. Only nodes of the
//   class's partition whose cards Zhaoxi could map count; ties go to nodes with more cards, then
//   to the first name.
// - The whole window moves `lead` earlier (capacity moves before the ramp, and comes back that
//   much before the window ends), so consecutive windows' reservations never overlap.
// - The repeat follows the window's days after that move: every day DAILY, Monday to Friday
//   WEEKDAY, Saturday and Sunday WEEKEND, any other set one WEEKLY reservation per day
//   (zhaoxi-<window>-<day>). Every reservation has IGNORE_JOBS: a running job does not stop the
//   schedule from being set up (its node is taken when it ends).
// - Slurm refuses a start more than 600 s in the past (measured on 22.05.8). A window in force
//   now therefore gets a repeating reservation from its next occurrence and a one-off
//   zhaoxi-<window>-now from now to the end of the occurrence in force, unless the repeating one
//   already exists, matches and is active.
// - Reservations named zhaoxi-* that the plan does not want are deleted; others are never
//   touched.

// One window of the schedule as the plan needs it (TimeWindows::Window's fields).
struct ScheduleWindow
{
    QString name;
    qint64 fromMs = 0;  // local time of day
    qint64 toMs = 0;    // to < from wraps past midnight; from == to: the whole day
    quint8 days = 0x7f; // bit 0 = Monday: the days the window starts on
    double inferenceShare = 0.5;
};

enum class ReservationAction { Create, Update, Delete, Keep };
const char *toString(ReservationAction action); // "create", "update", "delete", "keep"

struct PlannedReservation
{
    QString name;   // zhaoxi-<window>, zhaoxi-<window>-<day>, zhaoxi-<window>-now
    QString window; // the schedule's window; empty for a delete of one no window wants
    ReservationAction action = ReservationAction::Create;
    QStringList nodes;    // sorted
    QDateTime start;      // local time
    qint64 durationS = 0; // seconds
    QStringList flags;    // e.g. DAILY, IGNORE_JOBS
    QString partition;
    QString users;
    int cards = 0; // the fleet's cards on `nodes`
    QString why;   // update: what differs; delete: why it goes
    // What Slurm has now (update and delete): to undo the step.
    std::optional<FleetReservation> existing;
};

struct WindowsPlanOptions
{
    qint64 leadMs = 20 * 60'000;
    QString users; // Users= of every reservation (Slurm needs Users or Accounts)
    QString trainingPartition = QStringLiteral("training");
    QString inferencePartition = QStringLiteral("inference");
};

struct WindowsPlan
{
    // Deletions first, then updates, then creations, then those kept: the order they are carried
    // out in (a deletion frees nodes a creation may need).
    QList<PlannedReservation> reservations;
    int fleetCards = 0;   // the cards the shares are taken of
    QStringList warnings; // English: a window that reserves nothing, a share no node set meets
    QString error;        // English; a plan with an error must not be applied
    qint64 nowS = 0;      // when it was planned (Unix seconds): its undo steps are for then
    bool changes() const;
};

// Plans the reservations of `windows` on `fleet` at local time `now`, against the zhaoxi-*
// reservations in fleet.snapshot. Pure.
WindowsPlan planWindows(const QList<ScheduleWindow> &windows,
                        const FleetState &fleet,
                        const QDateTime &now,
                        const WindowsPlanOptions &options);

// "2026-12-04T21:40:00" (local time, as scontrol reads it) and "09:00:00" / "1-00:00:00".
QString slurmTime(const QDateTime &t);
QString slurmDuration(qint64 seconds);

// The scontrol arguments that carry out one planned action ("create reservation ...",
// "update ReservationName=...", "delete ReservationName=..."); empty for Keep.
QStringList scontrolArgs(const PlannedReservation &r);
// The arguments that undo it at `nowS` (Unix seconds), from what Slurm had (`existing`); empty
// when nothing can undo it (a deleted reservation that started more than 600 s before).
QStringList scontrolUndoArgs(const PlannedReservation &r, qint64 nowS);

// Runs a program with arguments; returns its exit code (-1: it could not run) and its output.
struct CommandResult
{
    int exitCode = -1;
    QString output; // stdout and stderr, trimmed
};
using CommandRunner = std::function<CommandResult(const QString &program, const QStringList &args)>;

struct ApplyReport
{
    bool ok = true;
    QStringList done;   // one English line per step carried out (and per undo)
    QString failedStep; // the reservation whose step failed
    QString error;      // the command and its answer
    QStringList undoFailures;
};

// Carries the plan's changes out in order with `scontrol`; on the first failure undoes the steps
// done so far in reverse order (what can be undone: a deleted reservation that had already
// started more than 600 s ago cannot be created again at its old start) and reports both.
ApplyReport applyWindowsPlan(const WindowsPlan &plan,
                             const QString &scontrol,
                             const CommandRunner &run);

// The real runner: QProcess, stdin from /dev/null, up to `timeoutMs`; with SLURM_CONF set to
// `slurmConf` when one is given (else the environment's).
CommandResult runCommand(const QString &program,
                         const QStringList &args,
                         int timeoutMs,
                         const QString &slurmConf = QString());

} // namespace Zhaoxi::Fleet
