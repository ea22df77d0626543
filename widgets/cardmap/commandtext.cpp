// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandtext.h"

#include "reasontext.h"

#include <QCoreApplication>
#include <QRegularExpression>

namespace Zhaoxi::Widgets {

class CommandText
{
    Q_DECLARE_TR_FUNCTIONS(Zhaoxi::Widgets::CommandText)
};

QString commandErrorText(const QString &error)
{
    static const QRegularExpression noJob(QStringLiteral("^no job (\\d+)$"));
    static const QRegularExpression noJobOrCard(QStringLiteral("^no job (\\d+) or card (\\d+)$"));
    static const QRegularExpression notWaiting(QStringLiteral("^job (\\d+) is not waiting$"));
    static const QRegularExpression notRunning(QStringLiteral("^job (\\d+) is not running$"));
    static const QRegularExpression cordoned(QStringLiteral("^card (\\d+) is cordoned already$"));
    static const QRegularExpression notCordoned(QStringLiteral("^card (\\d+) is not cordoned$"));
    static const QRegularExpression noCard(QStringLiteral("^no card (\\d+)$"));
    static const QRegularExpression ended(QStringLiteral(
            "^job (\\d+) (?:has (?:already )?ended(?: or does not exist)?|is over)$"));
    const QString text = error.trimmed();
    if (text.isEmpty())
        return CommandText::tr("The appliance gave no reason.");
    if (const auto m = noJob.match(text); m.hasMatch())
        return CommandText::tr("There is no job %1.").arg(m.captured(1));
    if (const auto m = noJobOrCard.match(text); m.hasMatch())
        return CommandText::tr("There is no job %1 or no card %2.")
                .arg(m.captured(1), m.captured(2));
    if (const auto m = notWaiting.match(text); m.hasMatch())
        return CommandText::tr("Job %1 is no longer waiting.").arg(m.captured(1));
    if (const auto m = notRunning.match(text); m.hasMatch())
        return CommandText::tr("Job %1 is not running.").arg(m.captured(1));
    if (const auto m = ended.match(text); m.hasMatch())
        return CommandText::tr("Job %1 has already ended.").arg(m.captured(1));
    if (const auto m = cordoned.match(text); m.hasMatch())
        return CommandText::tr("Card %1 is cordoned already.").arg(m.captured(1));
    if (const auto m = notCordoned.match(text); m.hasMatch())
        return CommandText::tr("Card %1 is not cordoned.").arg(m.captured(1));
    if (const auto m = noCard.match(text); m.hasMatch())
        return CommandText::tr("There is no card %1.").arg(m.captured(1));
    if (text.startsWith(QLatin1String("the simulated appliance models its workloads")))
        return CommandText::tr("The simulated appliance models its workloads: they run no "
                               "process and write no log.");
    if (text == QLatin1String("this appliance cannot cordon cards"))
        return CommandText::tr("This appliance cannot cordon cards.");
    return text;
}

QString problemText(const Domain::Problem &problem, const Sched::Status &status)
{
    using C = Domain::Problem::Code;
    const auto a = [&](int i) { return problem.arg(i); };
    // A scheduling refusal: the scheduler's reason in the console's words when it came along.
    const auto scheduling = [&] {
        return status.reason != Sched::Reason::None ? reasonText(status) : commandErrorText(a(0));
    };
    switch (problem.code) {
    case C::None:
        return CommandText::tr("The appliance gave no reason.");
    case C::Text:
        return commandErrorText(a(0));
    case C::NoJob:
        return CommandText::tr("There is no job %1.").arg(a(0));
    case C::NoCard:
        return CommandText::tr("There is no card %1.").arg(a(0));
    case C::NoJobOrCard:
        return CommandText::tr("There is no job %1 or no card %2.").arg(a(0), a(1));
    case C::JobNotWaiting:
        return CommandText::tr("Job %1 is no longer waiting.").arg(a(0));
    case C::JobNotRunning:
        return CommandText::tr("Job %1 is not running.").arg(a(0));
    case C::JobEnded:
        return CommandText::tr("Job %1 has already ended.").arg(a(0));
    case C::CardFailed:
        return CommandText::tr("Card %1 has failed.").arg(a(0));
    case C::CardNotMig:
        return CommandText::tr("Card %1 is not in MIG mode.").arg(a(0));
    case C::CardCordoned:
        return CommandText::tr("Card %1 is cordoned already.").arg(a(0));
    case C::CardNotCordoned:
        return CommandText::tr("Card %1 is not cordoned.").arg(a(0));
    case C::CannotCordon:
        return CommandText::tr("This appliance cannot cordon cards.");
    case C::LayoutPinned:
        return CommandText::tr("The card's layout is pinned.");
    case C::LayoutRule:
        return CommandText::tr("The layout breaks the card's rules: %1").arg(a(0));
    case C::InstanceBusy:
        return CommandText::tr("Instance %1 serves %2: it cannot be destroyed now.")
                .arg(a(0), a(1));
    case C::ModeNotOnModel:
        return CommandText::tr("A %1 has no %2 mode.").arg(a(0), a(1));
    case C::CardServesJobs:
        return CommandText::tr("The card serves %n job(s).", nullptr, a(0).toInt());
    case C::PinNotAfterNow:
        return CommandText::tr("The pin must end after now.");
    case C::NoPin:
        return CommandText::tr("Card %1 has no pinned layout.").arg(a(0));
    case C::StepsLeftOther:
        return CommandText::tr("The %1 steps were carried out, but the card now has %2.")
                .arg(a(0), a(1));
    case C::StepsStopped:
        return CommandText::tr("Stopped after %1 of %2 steps; the card now has %3.")
                .arg(a(0), a(1), a(2));
    case C::StepFailed:
        return (a(3) == QLatin1String("refused")
                        ? CommandText::tr("Stopped after %1 of %2 steps: the driver refused %3 "
                                          "(%4); the card now has %5.")
                        : CommandText::tr("Stopped after %1 of %2 steps: %3 failed (%4); the card "
                                          "now has %5."))
                .arg(a(0), a(1), a(2), a(4), a(5));
    case C::Unschedulable:
        return scheduling();
    case C::NeverRuns:
        return CommandText::tr("It could never run on this appliance: %1").arg(scheduling());
    case C::NowFitsInBudget:
        return CommandText::tr("The appliance changed since you confirmed: job %1 now fits on "
                               "card %2 within its class budget.")
                .arg(a(0), a(1));
    case C::NowFitsAlone:
        return CommandText::tr("The appliance changed since you confirmed: job %1 now fits on "
                               "card %2 without preempting anyone.")
                .arg(a(0), a(1));
    case C::NowPreemptsOthers:
        return CommandText::tr("The appliance changed since you confirmed: placing job %1 on "
                               "card %2 would now preempt jobs %3, not %4.")
                .arg(a(0), a(1), a(2), a(3));
    case C::NowPreemptsOthersOverBudget:
        return CommandText::tr("The appliance changed since you confirmed: placing job %1 on "
                               "card %2 over its class budget would now preempt jobs %3, not %4.")
                .arg(a(0), a(1), a(2), a(3));
    case C::NowRefused:
        return CommandText::tr("The appliance changed since you confirmed: %1").arg(scheduling());
    case C::ScheduleNowTakesOthers:
        return CommandText::tr("The appliance changed since you confirmed: the schedule would "
                               "now take off jobs %1, not %2.")
                .arg(a(0), a(1));
    case C::TwinServicesFromScenario:
        return CommandText::tr("The simulated appliance's services come from its scenario: add "
                               "the service to the scenario file.");
    case C::TwinNeedsDuration:
        return CommandText::tr("The simulated appliance models the work from its expected "
                               "duration: give one.");
    case C::TwinHasNoLogs:
        return CommandText::tr("The simulated appliance models its workloads: they run no "
                               "process and write no log.");
    case C::DayRestarted:
        return CommandText::tr("The day restarted before the change was made.");
    case C::CannotPreviewSchedule:
        return CommandText::tr("This appliance cannot preview a schedule.");
    case C::ShuttingDown:
        return CommandText::tr("The appliance is shutting down.");
    case C::RuntimeNotRunning:
        return CommandText::tr("The appliance's runtime is not running.");
    case C::RuntimeNotStarted:
        return CommandText::tr("The real appliance's runtime has not started yet.");
    case C::NoRealWork:
        return CommandText::tr("No real work can run: %1").arg(a(0));
    case C::ServiceGaveNoReason:
        return CommandText::tr("The service gave no reason.");
    case C::ServiceUnreachable:
        return CommandText::tr("The service at %1 is not reachable.").arg(a(0));
    case C::ServiceWentAway:
        return CommandText::tr("The service went away before answering.");
    case C::ConsoleClosed:
        return CommandText::tr("The console closed its connection to the service.");
    case C::ReadOnlyDisabled:
    case C::ReadOnlyNoPermission:
    case C::ReadOnlyNoMig:
    case C::ReadOnlyUnreachable:
    case C::ReadOnlyNotOperator:
    case C::ReadOnlyNotTakingChanges:
    case C::ReadOnlyFleetUnreachable:
        return readOnlyText(problem);
    case C::FleetStaticLayout:
        return CommandText::tr("Slurm's MIG layouts are static: repartition the node with "
                               "zhaoxictl fleet repartition.");
    case C::FleetRefused:
        return CommandText::tr("Slurm refused: %1").arg(a(0));
    case C::FleetNotSlurmJob:
        return CommandText::tr("Job %1 is not one of Slurm's jobs.").arg(a(0));
    case C::FleetStartsItsJobs:
        return CommandText::tr("Slurm starts a waiting job itself: Zhaoxi names the node when it "
                               "submits one.");
    case C::FleetNoLogs:
        return CommandText::tr("Slurm writes the job's output on its node: %1").arg(a(0));

    case C::Count:
        break;
    }
    return commandErrorText(problem.english());
}

QString specProblemText(const QString &message)
{
    static const struct
    {
        const char *english;
        const char *text;
    } kMessages[] = {
            {"must not be empty",
             QT_TRANSLATE_NOOP("Zhaoxi::Widgets::CommandText", "must not be empty")},
            {"required", QT_TRANSLATE_NOOP("Zhaoxi::Widgets::CommandText", "required")},
            {"must not be negative",
             QT_TRANSLATE_NOOP("Zhaoxi::Widgets::CommandText", "must not be negative")},
            {"must not start or end with white space",
             QT_TRANSLATE_NOOP("Zhaoxi::Widgets::CommandText",
                               "must not start or end with white space")},
            {"must not contain spaces or control characters",
             QT_TRANSLATE_NOOP("Zhaoxi::Widgets::CommandText",
                               "must not contain spaces or control characters")},
            {"must not be empty; give the program and its arguments",
             QT_TRANSLATE_NOOP("Zhaoxi::Widgets::CommandText",
                               "must not be empty; give the program and its arguments")},
    };
    for (const auto &m : kMessages) {
        if (message == QLatin1String(m.english))
            return CommandText::tr(m.text);
    }
    return message;
}

} // namespace Zhaoxi::Widgets
