// SPDX-License-Identifier: GPL-3.0-or-later
#include "problem.h"

#include <array>
#include <cstring>

namespace Zhaoxi::Domain {

namespace {

using C = Problem::Code;

struct Entry
{
    C code;
    const char *name;
    const char *english; // %1..%n: the parameters
};

// One row per code, in the enum's order (checked by problemCodeName's test).
constexpr std::array<Entry, size_t(C::Count)> kEntries = {{
        {C::None, "none", ""},
        {C::Text, "text", "%1"},
        {C::NoJob, "no-job", "no job %1"},
        {C::NoCard, "no-card", "no card %1"},
        {C::NoJobOrCard, "no-job-or-card", "no job %1 or card %2"},
        {C::JobNotWaiting, "job-not-waiting", "job %1 is not waiting"},
        {C::JobNotRunning, "job-not-running", "job %1 is not running"},
        {C::JobEnded, "job-ended", "job %1 has ended or does not exist"},
        {C::CardFailed, "card-failed", "card %1 has failed"},
        {C::CardNotMig, "card-not-mig", "card %1 is not in MIG mode"},
        {C::CardCordoned, "card-cordoned", "card %1 is cordoned already"},
        {C::CardNotCordoned, "card-not-cordoned", "card %1 is not cordoned"},
        {C::CannotCordon, "cannot-cordon", "this appliance cannot cordon cards"},
        {C::LayoutPinned, "layout-pinned", "the card's layout is pinned"},
        {C::LayoutRule, "layout-rule", "%1"},
        {C::InstanceBusy, "instance-busy", "instance %1 serves job %2"},
        {C::ModeNotOnModel, "mode-not-on-model", "model %1 has no %2 mode"},
        {C::CardServesJobs, "card-serves-jobs", "card serves %1 job(s)"},
        {C::PinNotAfterNow, "pin-not-after-now", "the pin's end (%1 ms) is not after now (%2 ms)"},
        {C::NoPin, "no-pin", "card %1 has no pinned layout"},
        {C::StepsLeftOther,
         "steps-left-other-layout",
         "the %1 steps were carried out, but the card now has %2"},
        {C::StepsStopped, "steps-stopped", "stopped after %1 of %2 steps; the card now has %3"},
        {C::StepFailed,
         "step-failed",
         "stopped after %1 of %2 steps: %3 %4: %5; the card now has %6"},
        {C::Unschedulable, "unschedulable", "%1"},
        {C::NeverRuns, "never-runs", "it could never run on this appliance: %1"},
        {C::NowFitsInBudget,
         "now-fits-in-budget",
         "the appliance changed since you confirmed: job %1 now fits on card %2 within its class "
         "budget"},
        {C::NowFitsAlone,
         "now-fits-alone",
         "the appliance changed since you confirmed: job %1 now fits on card %2 without "
         "preempting anyone"},
        {C::NowPreemptsOthers,
         "now-preempts-others",
         "the appliance changed since you confirmed: placing job %1 on card %2 would now preempt "
         "jobs %3, not %4"},
        {C::NowPreemptsOthersOverBudget,
         "now-preempts-others-over-budget",
         "the appliance changed since you confirmed: placing job %1 on card %2 over its class "
         "budget would now preempt jobs %3, not %4"},
        {C::NowRefused, "now-refused", "the appliance changed since you confirmed: %1"},
        {C::ScheduleNowTakesOthers,
         "schedule-now-takes-others",
         "the appliance changed since you confirmed: the schedule would now take off jobs %1, "
         "not %2"},
        {C::TwinServicesFromScenario,
         "twin-services-from-scenario",
         "the simulated appliance's services are its scenario's: add the service to the scenario "
         "file"},
        {C::TwinNeedsDuration,
         "twin-needs-duration",
         "the simulated appliance models the work from the expected duration: give one"},
        {C::TwinHasNoLogs,
         "twin-has-no-logs",
         "the simulated appliance models its workloads: they run no process and write no log"},
        {C::DayRestarted, "day-restarted", "the day restarted before the change"},
        {C::CannotPreviewSchedule,
         "cannot-preview-schedule",
         "this appliance cannot preview a schedule"},
        {C::ShuttingDown, "shutting-down", "the appliance is shutting down"},
        {C::RuntimeNotRunning, "runtime-not-running", "the appliance's runtime is not running"},
        {C::RuntimeNotStarted,
         "runtime-not-started",
         "the real appliance's runtime has not started yet"},
        {C::NoRealWork, "no-real-work", "no real work can run: %1"},
        {C::ServiceGaveNoReason, "service-gave-no-reason", "the service gave no reason"},
        {C::ServiceUnreachable, "service-unreachable", "the service at %1 is not reachable"},
        {C::ServiceWentAway, "service-went-away", "the service went away before answering"},
        {C::ConsoleClosed, "console-closed", "the console closed its connection to the service"},
        {C::ReadOnlyDisabled, "read-only-disabled", "changes disabled in settings"},
        {C::ReadOnlyNoPermission,
         "read-only-no-permission",
         "no permission to change MIG (run as root or grant CAP_SYS_ADMIN)"},
        {C::ReadOnlyNoMig, "read-only-no-mig", "MIG not enabled on any card"},
        {C::ReadOnlyUnreachable, "read-only-unreachable", "service unreachable: %1"},
        {C::ReadOnlyNotOperator, "read-only-not-operator", "not an operator: %1 is not in %2"},
        {C::ReadOnlyNotTakingChanges, "read-only-not-taking-changes", "service not taking changes"},
        {C::ReadOnlyFleetUnreachable,
         "read-only-fleet-unreachable",
         "Slurm at %1 is not reachable (%2); retrying in %3 s"},
        {C::FleetStaticLayout,
         "fleet-static-layout",
         "Slurm's MIG layouts are static: repartition the node with zhaoxictl fleet repartition"},
        {C::FleetRefused, "fleet-refused", "Slurm refused: %1"},
        {C::FleetNotSlurmJob, "fleet-not-slurm-job", "job %1 is not one of Slurm's jobs"},
        {C::FleetStartsItsJobs,
         "fleet-starts-its-jobs",
         "Slurm starts a waiting job itself: Zhaoxi names the node when it submits one"},
        {C::FleetNoLogs, "fleet-no-logs", "Slurm writes the job's output on its node: %1"},
}};

constexpr bool inOrder()
{
    for (size_t i = 0; i < kEntries.size(); ++i) {
        if (size_t(kEntries[i].code) != i)
            return false;
    }
    return true;
}
static_assert(inOrder(), "kEntries must list the codes in the enum's order");

} // namespace

Problem Problem::text(const QString &english)
{
    return english.isEmpty() ? Problem() : Problem(Code::Text, {english});
}

QString Problem::english() const
{
    if (code >= Code::Count)
        return args.value(0);
    QString out = QString::fromUtf8(kEntries[size_t(code)].english);
    // Substitute %1..%9 at once, so that a parameter holding "%2" is never substituted again.
    QString result;
    result.reserve(out.size());
    for (qsizetype i = 0; i < out.size(); ++i) {
        if (out[i] == QLatin1Char('%') && i + 1 < out.size() && out[i + 1] >= QLatin1Char('1')
            && out[i + 1] <= QLatin1Char('9')) {
            result += args.value(out[i + 1].unicode() - '1');
            ++i;
        } else {
            result += out[i];
        }
    }
    return result;
}

const char *problemCodeName(Problem::Code code)
{
    return code < Problem::Code::Count ? kEntries[size_t(code)].name : "unknown";
}

Problem::Code problemCodeFromName(QStringView name)
{
    for (const Entry &e : kEntries) {
        if (name == QLatin1String(e.name))
            return e.code;
    }
    return Problem::Code::Count;
}

} // namespace Zhaoxi::Domain
