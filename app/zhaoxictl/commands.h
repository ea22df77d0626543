// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cli.h"

namespace Zhaoxi::Cli {

using CommandFn = int (*)(const QStringList &args, Io &io);

struct Command
{
    const char *name;
    const char *synopsis;
    CommandFn run;
};

int runCatalogue(const QStringList &args, Io &io);   // cmd_catalogue.cpp
int runLayouts(const QStringList &args, Io &io);     // cmd_catalogue.cpp
int runCheckLayout(const QStringList &args, Io &io); // cmd_catalogue.cpp
int runPlaceBench(const QStringList &args, Io &io);  // cmd_placebench.cpp
int runSimulate(const QStringList &args, Io &io);    // cmd_simulate.cpp
int runReplay(const QStringList &args, Io &io);      // cmd_replay.cpp
int runAdvise(const QStringList &args, Io &io);      // cmd_advise.cpp
int runRun(const QStringList &args, Io &io);         // cmd_run.cpp
int runEvents(const QStringList &args, Io &io);      // cmd_events.cpp
int runMetrics(const QStringList &args, Io &io);     // cmd_events.cpp
int runMigParted(const QStringList &args, Io &io);   // cmd_migparted.cpp
int runApplyPlan(const QStringList &args, Io &io);   // cmd_applyplan.cpp
int runNvmlCheck(const QStringList &args, Io &io);   // cmd_nvmlcheck.cpp
// The service's client (cmd_service.cpp): through zhaoxid's socket (--socket PATH, else
// $ZHAOXI_SOCKET, else /run/zhaoxi/zhaoxid.sock).
int runSubmit(const QStringList &args, Io &io);
int runCancel(const QStringList &args, Io &io);
int runRequeue(const QStringList &args, Io &io);
int runPriority(const QStringList &args, Io &io);
int runJobs(const QStringList &args, Io &io);
int runCards(const QStringList &args, Io &io);
int runEventsTail(const QStringList &args, Io &io);
int runSchedule(const QStringList &args, Io &io);
int runLayout(const QStringList &args, Io &io);
int runCard(const QStringList &args, Io &io);
int runAudit(const QStringList &args, Io &io);
// A Slurm cluster of appliances through slurmrestd (cmd_fleet.cpp).
int runFleet(const QStringList &args, Io &io);

inline const Command kCommands[] = {
        {"catalogue",
         "catalogue [--json]  list card models and their partition profiles",
         runCatalogue},
        {"layouts",
         "layouts --model NAME [--profiles P1,P2,...] [--json]  every maximal MIG layout",
         runLayouts},
        {"check-layout",
         "check-layout --model NAME PROFILE@START ...  is this MIG layout valid, or why not",
         runCheckLayout},
        {"simulate",
         "simulate --scenario FILE [--policy NAME] [--seed N] [--compare] [--json] [--db FILE]  "
         "replay a scenario on the simulated appliance",
         runSimulate},
        {"replay",
         "replay --db FILE --from T --to T (--policy NAME | --compare) [--json]  "
         "replay a recorded period in the twin, beside what happened",
         runReplay},
        {"advise",
         "advise --db FILE [--days N] [--json]  suggested changes (window edges, class budgets, "
         "replica ranges, power caps), each with its evidence and a replay of the recorded days "
         "that proves it",
         runAdvise},
        {"run",
         "run --scenario FILE [--for DURATION] [--policy NAME|none] [--db FILE [--resume]] "
         "[--hardware [--nvml-library PATH] [--allow-changes]] [--json]  "
         "run a scenario on the wall clock with real processes (simulated cards, or this "
         "machine's NVIDIA cards with --hardware)",
         runRun},
        {"submit",
         "submit SPEC.json [--socket PATH] [--json]  submit a workload to the service",
         runSubmit},
        {"cancel",
         "cancel JOB [--socket PATH]  end a job (its process gets its stop signal)",
         runCancel},
        {"requeue",
         "requeue JOB [--socket PATH]  back to the queue (at its checkpoint when it checkpoints)",
         runRequeue},
        {"priority", "priority JOB N [--socket PATH]  a job's priority from now on", runPriority},
        {"jobs", "jobs [--socket PATH] [--json]  every job of the service", runJobs},
        {"cards",
         "cards [--socket PATH] [--json]  every card, its partitions and readings",
         runCards},
        {"schedule",
         "schedule get [--json] | preview FILE [--json] | set FILE [--socket PATH]  the windows "
         "schedule in force; what setting one would do",
         runSchedule},
        {"layout",
         "layout apply --card N PROFILE@START ... [--drain DEADLINE] [--socket PATH]  repartition "
         "a MIG card (jobs on removed partitions leave at once, or at their checkpoint within "
         "DEADLINE) | pin --card N [--for DURATION]  the scheduler never changes its layout by "
         "itself (until unpinned, or for DURATION) | unpin --card N",
         runLayout},
        {"card",
         "card cordon --card N [--drain] [--socket PATH]  the card takes no new work (with "
         "--drain, what runs on it goes back to the queue, training at its checkpoint) | "
         "uncordon --card N",
         runCard},
        {"audit",
         "audit verify --db FILE [--json]  is the operator audit chain intact, or where is it "
         "broken",
         runAudit},
        {"events",
         "events tail [--last N] [--follow] [--socket PATH] [--json]  the service's newest events "
         "| "
         "events export --db FILE --format csv|jsonl [--from T] [--to T] [--severity S] [--source "
         "S] [--card N] [--job J] [--code C] [--out FILE] [--force]  export the event log (a store "
         "that "
         "fails its check only with --force)",
         runEvents},
        {"metrics",
         "metrics --db FILE --prom  latest metrics in the Prometheus text format",
         runMetrics},
        {"migparted",
         "migparted import FILE --model NAME [--config NAME] [--json] | export --scenario FILE  "
         "NVIDIA mig-parted configuration files",
         runMigParted},
        {"apply-plan",
         "apply-plan --plan FILE [--yes]  apply a plan exported from the console to this machine's "
         "NVIDIA cards",
         runApplyPlan},
        {"nvml-check",
         "nvml-check [--library PATH]  read-only: what the NVML backend reads on this machine",
         runNvmlCheck},
        {"fleet",
         "fleet show | submit SPEC.json [--qos KIND=QOS,...] [--qos-never QOS] [--slurm-chooses] | "
         "cancel JOB "
         "[--signal SIG] | requeue JOB | priority JOB N | windows SCHEDULE.json [--apply] [--lead "
         "MIN] | repartition NODE --layout L --gres-command CMD [--immediate|--deadline S] "
         "[--apply-command CMD], each with --rest URL --token-file F [--user NAME] [--timeout MS] "
         "[--json]  a Slurm cluster of appliances: its nodes as cards and partitions, a workload "
         "on the node Zhaoxi chooses, Slurm jobs acted on (audited with --db FILE), day/night "
         "windows as reservations, a node's MIG layout changed (docs/fleet.md)",
         runFleet},
        {"place-bench",
         "place-bench --nodes FILE --pods FILE --policy NAME --seed N|--seeds A-B [--tune 1.3] "
         "[--json]  FGD protocol replay",
         runPlaceBench},
};

} // namespace Zhaoxi::Cli
