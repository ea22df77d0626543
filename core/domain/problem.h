// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>

#include <cstdint>

namespace Zhaoxi::Domain {

// Why the appliance refused a command, a preview or a log, or why it is read-only: a code with
// its parameters (HOUSE_STYLE 4: codes in core, words in the UI). The console words each code in
// the operator's language (widgets/cardmap/commandtext.cpp); `english()` is the text that logs,
// the command line and the service's "message" carry (stable: other tools read it). The
// parameters are strings in the order the code's comment lists them.
struct Problem
{
    enum class Code : std::uint8_t {
        None,
        Text, // a component without codes of its own: args[0] is its English sentence
        // Jobs and cards
        NoJob,           // job
        NoCard,          // card
        NoJobOrCard,     // job, card
        JobNotWaiting,   // job
        JobNotRunning,   // job
        JobEnded,        // job (ended or unknown)
        CardFailed,      // card
        CardNotMig,      // card
        CardCordoned,    // card (cordoned already)
        CardNotCordoned, // card
        CannotCordon,    // this appliance cannot cordon cards
        // Layouts
        LayoutPinned,   // the card's layout is pinned
        LayoutRule,     // args[0]: the layout rules' English sentence (catalogue)
        InstanceBusy,   // profile@start, job: the change would destroy a busy instance
        ModeNotOnModel, // model, mode
        CardServesJobs, // number of jobs on the card
        PinNotAfterNow, // pin end ms, now ms
        NoPin,          // card
        StepsLeftOther, // steps, the layout the card now has
        StepsStopped,   // done, steps, the layout the card now has
        StepFailed,     // done, steps, the step, "refused"/"failed", message, the layout now
        // Scheduling (CommandResult::status has the scheduler's reason)
        Unschedulable, // the status's reason
        NeverRuns,     // the status's reason: no card of this appliance could ever take it
        // Confirmed plans (CommandResult::planChanged)
        NowFitsInBudget,             // job, card: within its class budget now
        NowFitsAlone,                // job, card: without preempting anyone now
        NowPreemptsOthers,           // job, card, jobs it would preempt now, jobs confirmed
        NowPreemptsOthersOverBudget, // job, card, jobs now, jobs confirmed
        NowRefused,                  // the status's reason
        ScheduleNowTakesOthers,      // jobs now, jobs confirmed
        // The twin
        TwinServicesFromScenario, // inference is the scenario's
        TwinNeedsDuration,        // a modelled job needs its expected duration
        TwinHasNoLogs,            // modelled workloads write no log
        DayRestarted,             // the day restarted before a pending change was made
        // The appliance's state
        CannotPreviewSchedule,
        ShuttingDown,
        RuntimeNotRunning,
        RuntimeNotStarted, // the real appliance's runtime has not started yet
        NoRealWork,        // args[0]: why (English, from the runtime)
        ServiceGaveNoReason,
        ServiceUnreachable, // the service's socket path
        ServiceWentAway,    // before answering
        ConsoleClosed,      // the console closed its connection before the answer
        // Read-only (Snapshot::readOnlyProblem)
        ReadOnlyDisabled,         // applying changes is off in the settings
        ReadOnlyNoPermission,     // no permission to change MIG
        ReadOnlyNoMig,            // MIG not enabled on any card
        ReadOnlyUnreachable,      // the service's socket path
        ReadOnlyNotOperator,      // user, group
        ReadOnlyNotTakingChanges, // the service is shutting down
        // A fleet through Slurm (FleetSession)
        ReadOnlyFleetUnreachable, // REST URL, why (English), seconds to the next try
        FleetStaticLayout,        // Slurm's MIG layouts change only through a node's repartition
        FleetRefused,             // Slurm's words
        FleetNotSlurmJob,         // job
        FleetStartsItsJobs,       // Slurm starts a pending job itself
        FleetNoLogs,              // the output file's path on the node
        Count
    };
    Code code = Code::None;
    QStringList args;

    Problem() = default;
    explicit Problem(Code c, QStringList a = {})
        : code(c)
        , args(std::move(a))
    {}
    // A component's English sentence without a code (Code::Text); an empty one is no problem.
    static Problem text(const QString &english);

    bool isNone() const { return code == Code::None; }
    QString arg(int i) const { return args.value(i); }
    QString english() const;
    bool operator==(const Problem &o) const { return code == o.code && args == o.args; }
};

// Stable identifiers ("no-job") for the wire and exports; Count when unknown.
const char *problemCodeName(Problem::Code code);
Problem::Code problemCodeFromName(QStringView name);

// Sets `*out` (when not null) and returns false: `return refuse(why, Problem(...));`.
inline bool refuse(Problem *out, Problem problem)
{
    if (out)
        *out = std::move(problem);
    return false;
}

} // namespace Zhaoxi::Domain
