// SPDX-License-Identifier: GPL-3.0-or-later
// Importing a 1,000-node Slurm fleet (issue 17: under 1 s): generates slurmrestd v0.0.38 answers
// for nodes and jobs shaped like the ones recorded from the real cluster (tests/fleet/data: the
// same keys, each job with the ~95 keys Slurm writes that the reader skips), then times parsing
// and the mapping onto the scheduler's state, and one placement decision on it. A quarter of the
// nodes each: 8 H200 in MIG (4 cards 2x3g.71gb, 4 cards 7x1g.18gb), 8 whole H200, 4 L40S with
// mps:400, 4 L40S with shard:32; four jobs per node (3,000 running with IDX, 1,000 pending).
// Prints figures; asserts nothing.
//
//   bench_fleetimport [--nodes N] [--reps N]
#include "core/catalogue/catalogue.h"
#include "core/fleet/fleetstate.h"
#include "core/fleet/fleetsubmit.h"
#include "core/fleet/slurmjson.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

using namespace Zhaoxi;
using namespace Zhaoxi::Fleet;

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// The keys of a real v0.0.38 job the reader does not read (their values as an idle job has them).
QJsonObject jobFiller()
{
    static const char *const strings[] = {"account",
                                          "admin_comment",
                                          "array_task_string",
                                          "batch_features",
                                          "batch_host",
                                          "burst_buffer",
                                          "burst_buffer_state",
                                          "cluster",
                                          "cluster_features",
                                          "command",
                                          "comment",
                                          "container",
                                          "cpus_per_tres",
                                          "dependency",
                                          "excluded_nodes",
                                          "features",
                                          "federation_origin",
                                          "federation_siblings_active",
                                          "federation_siblings_viable",
                                          "group_name",
                                          "licenses",
                                          "mcs_label",
                                          "memory_per_tres",
                                          "het_job_id_set",
                                          "prefer",
                                          "required_nodes",
                                          "resv_name",
                                          "state_description",
                                          "standard_error",
                                          "standard_input",
                                          "standard_output",
                                          "system_comment",
                                          "tres_bind",
                                          "tres_freq",
                                          "tres_per_job",
                                          "tres_per_socket",
                                          "tres_per_task",
                                          "tres_req_str",
                                          "tres_alloc_str",
                                          "wckey",
                                          "current_working_directory"};
    static const char *const numbers[] = {"accrue_time",
                                          "array_job_id",
                                          "array_max_tasks",
                                          "association_id",
                                          "deadline",
                                          "delay_boot",
                                          "derived_exit_code",
                                          "eligible_time",
                                          "end_time",
                                          "exit_code",
                                          "group_id",
                                          "last_sched_evaluation",
                                          "max_cpus",
                                          "max_nodes",
                                          "tasks_per_node",
                                          "tasks_per_board",
                                          "node_count",
                                          "tasks",
                                          "het_job_id",
                                          "het_job_offset",
                                          "minimum_cpus_per_node",
                                          "minimum_tmp_disk_per_node",
                                          "preempt_time",
                                          "pre_sus_time",
                                          "priority",
                                          "resize_time",
                                          "sockets_per_board",
                                          "suspend_time",
                                          "time_limit",
                                          "time_minimum",
                                          "user_id",
                                          "billable_tres"};
    static const char *const nulls[] = {"array_task_id",
                                        "core_spec",
                                        "thread_spec",
                                        "cores_per_socket",
                                        "cpus_per_task",
                                        "cpu_frequency_minimum",
                                        "cpu_frequency_maximum",
                                        "cpu_frequency_governor",
                                        "nice",
                                        "tasks_per_core",
                                        "tasks_per_socket",
                                        "profile",
                                        "shared",
                                        "sockets_per_node",
                                        "threads_per_core"};
    QJsonObject o;
    for (const char *k : strings)
        o.insert(QLatin1String(k), QStringLiteral("x"));
    for (const char *k : numbers)
        o.insert(QLatin1String(k), 1796383043);
    for (const char *k : nulls)
        o.insert(QLatin1String(k), QJsonValue::Null);
    for (const char *k : {"batch_flag", "contiguous", "reboot", "requeue"})
        o.insert(QLatin1String(k), true);
    o.insert(QStringLiteral("flags"), QJsonArray{QStringLiteral("JOB_WAS_RUNNING")});
    o.insert(QStringLiteral("show_flags"),
             QJsonArray{QStringLiteral("SHOW_ALL"), QStringLiteral("SHOW_DETAIL")});
    return o;
}

QJsonObject node(const QString &name, const QString &gres, const QString &used, int allocCpus)
{
    return QJsonObject{{QStringLiteral("architecture"), QStringLiteral("x86_64")},
                       {QStringLiteral("boards"), 1},
                       {QStringLiteral("boot_time"), 1796380492},
                       {QStringLiteral("cores"), 1},
                       {QStringLiteral("cpu_load"), 180},
                       {QStringLiteral("free_memory"), 18741},
                       {QStringLiteral("cpus"), 128},
                       {QStringLiteral("features"), QString()},
                       {QStringLiteral("active_features"), QString()},
                       {QStringLiteral("gres"), gres},
                       {QStringLiteral("gres_drained"), QStringLiteral("N/A")},
                       {QStringLiteral("gres_used"), used},
                       {QStringLiteral("name"), name},
                       {QStringLiteral("address"), QStringLiteral("10.0.0.1")},
                       {QStringLiteral("hostname"), name},
                       {QStringLiteral("state"), QStringLiteral("mixed")},
                       {QStringLiteral("state_flags"), QJsonArray()},
                       {QStringLiteral("owner"), QJsonValue::Null},
                       {QStringLiteral("partitions"),
                        QJsonArray{QStringLiteral("inference"), QStringLiteral("training")}},
                       {QStringLiteral("port"), 6818},
                       {QStringLiteral("real_memory"), 2 * 1024 * 1024},
                       {QStringLiteral("reason"), QString()},
                       {QStringLiteral("sockets"), 2},
                       {QStringLiteral("threads"), 1},
                       {QStringLiteral("weight"), 1},
                       {QStringLiteral("tres"), QStringLiteral("cpu=128,mem=2T,billing=128")},
                       {QStringLiteral("slurmd_version"), QStringLiteral("22.05.8")},
                       {QStringLiteral("alloc_memory"), allocCpus * 4096},
                       {QStringLiteral("alloc_cpus"), allocCpus},
                       {QStringLiteral("idle_cpus"), 128 - allocCpus},
                       {QStringLiteral("tres_used"), QStringLiteral("cpu=8,mem=32G")},
                       {QStringLiteral("tres_weighted"), 8.0}};
}

QJsonObject job(const QJsonObject &filler,
                qint64 id,
                const QString &partition,
                const QString &node,
                const QString &tres,
                const QString &detail)
{
    QJsonObject j = filler;
    const bool running = !node.isEmpty();
    j.insert(QStringLiteral("job_id"), id);
    j.insert(QStringLiteral("name"), QStringLiteral("job-%1").arg(id));
    j.insert(QStringLiteral("user_name"), QStringLiteral("root"));
    j.insert(QStringLiteral("partition"), partition);
    j.insert(QStringLiteral("qos"), QString());
    j.insert(QStringLiteral("job_state"),
             running ? QStringLiteral("RUNNING") : QStringLiteral("PENDING"));
    j.insert(QStringLiteral("state_reason"),
             running ? QStringLiteral("None") : QStringLiteral("Resources"));
    j.insert(QStringLiteral("nodes"), node);
    j.insert(QStringLiteral("tres_per_node"), QString(QStringLiteral("gres:") + tres));
    j.insert(QStringLiteral("gres_detail"), running ? QJsonArray{detail} : QJsonArray());
    j.insert(QStringLiteral("cpus"), 2);
    j.insert(QStringLiteral("submit_time"), 1796383043);
    j.insert(QStringLiteral("start_time"), 1796383043);
    j.insert(QStringLiteral("restart_cnt"), 0);
    j.insert(QStringLiteral("memory_per_node"), QJsonValue::Null);
    j.insert(QStringLiteral("memory_per_cpu"), 4096);
    if (running) {
        j.insert(
                QStringLiteral("job_resources"),
                QJsonObject{{QStringLiteral("nodes"), node},
                            {QStringLiteral("allocated_cpus"), 2},
                            {QStringLiteral("allocated_hosts"), 1},
                            {QStringLiteral("allocated_nodes"),
                             QJsonArray{QJsonObject{{QStringLiteral("nodename"), node},
                                                    {QStringLiteral("cpus_used"), 0},
                                                    {QStringLiteral("memory_used"), 0},
                                                    {QStringLiteral("memory_allocated"), 8192}}}}});
    }
    return j;
}

QByteArray answer(const QString &key, const QJsonArray &list)
{
    const QJsonObject meta{
            {QStringLiteral("plugin"),
             QJsonObject{{QStringLiteral("type"), QStringLiteral("openapi/v0.0.38")},
                         {QStringLiteral("name"), QStringLiteral("Slurm OpenAPI v0.0.38")}}}};
    return QJsonDocument(QJsonObject{{QStringLiteral("meta"), meta},
                                     {QStringLiteral("errors"), QJsonArray()},
                                     {key, list}})
            .toJson(QJsonDocument::Indented);
}

void generate(int count, QByteArray *nodesJson, QByteArray *jobsJson)
{
    const QJsonObject filler = jobFiller();
    QJsonArray nodes, jobs;
    qint64 id = 1;
    for (int i = 0; i < count; ++i) {
        const QString name = QStringLiteral("gpu%1").arg(i, 4, 10, QLatin1Char('0'));
        switch (i % 4) {
        case 0: // MIG: IDX 0-7 are 3g (cards 0-3), 8-35 are 1g (cards 4-7)
            nodes.append(node(name,
                              QStringLiteral("gpu:3g.71gb:8,gpu:1g.18gb:28"),
                              QStringLiteral("gpu:3g.71gb:4(IDX:0-3),gpu:1g.18gb:3(IDX:8-10)"),
                              6));
            jobs.append(job(
                    filler, id++, "inference", name, "gpu:3g.71gb:2", "gpu:3g.71gb:2(IDX:0-1)"));
            jobs.append(
                    job(filler, id++, "training", name, "gpu:3g.71gb:2", "gpu:3g.71gb:2(IDX:2-3)"));
            jobs.append(job(
                    filler, id++, "inference", name, "gpu:1g.18gb:3", "gpu:1g.18gb:3(IDX:8-10)"));
            jobs.append(job(filler, id++, "training", QString(), "gpu:3g.71gb:6", QString()));
            break;
        case 1:
            nodes.append(node(
                    name, QStringLiteral("gpu:h200:8"), QStringLiteral("gpu:h200:6(IDX:0-5)"), 6));
            jobs.append(job(filler, id++, "training", name, "gpu:h200:4", "gpu:h200:4(IDX:0-3)"));
            jobs.append(job(filler, id++, "inference", name, "gpu:h200:1", "gpu:h200:1(IDX:4)"));
            jobs.append(job(filler, id++, "inference", name, "gpu:h200:1", "gpu:h200:1(IDX:5)"));
            jobs.append(job(filler, id++, "training", QString(), "gpu:h200:8", QString()));
            break;
        case 2:
            nodes.append(node(name,
                              QStringLiteral("gpu:l40s:4,mps:l40s:400"),
                              QStringLiteral("gpu:l40s:0(IDX:N/A),mps:l40s:3(IDX:0-2)"),
                              6));
            for (int k = 0; k < 3; ++k)
                jobs.append(job(filler,
                                id++,
                                "inference",
                                name,
                                "mps:50",
                                QStringLiteral("mps:50(IDX:%1)").arg(k)));
            jobs.append(job(filler, id++, "training", QString(), "mps:100", QString()));
            break;
        default:
            nodes.append(node(name,
                              QStringLiteral("gpu:l40s:4,shard:l40s:32"),
                              QStringLiteral("gpu:l40s:0(IDX:N/A),shard:l40s:3(IDX:0-2)"),
                              6));
            for (int k = 0; k < 3; ++k)
                jobs.append(job(filler,
                                id++,
                                "training",
                                name,
                                "shard:4",
                                QStringLiteral("shard:4(IDX:%1)").arg(k)));
            jobs.append(job(filler, id++, "training", QString(), "shard:8", QString()));
            break;
        }
    }
    *nodesJson = answer(QStringLiteral("nodes"), nodes);
    *jobsJson = answer(QStringLiteral("jobs"), jobs);
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    int count = 1000, reps = 5;
    const QStringList args = app.arguments();
    for (int i = 1; i + 1 < args.size(); i += 2) {
        if (args[i] == QLatin1String("--nodes"))
            count = std::max(4, args[i + 1].toInt());
        else if (args[i] == QLatin1String("--reps"))
            reps = std::max(1, args[i + 1].toInt());
    }
    const Catalogue::Catalogue catalogue = Catalogue::Catalogue::builtIn();
    auto t0 = Clock::now();
    QByteArray nodesJson, jobsJson;
    generate(count, &nodesJson, &jobsJson);
    std::printf("fleet: %d nodes, generated in %.0f ms: nodes %.1f MB, jobs %.1f MB\n",
                count,
                msSince(t0),
                nodesJson.size() / 1e6,
                jobsJson.size() / 1e6);

    std::vector<double> parseNodesMs, parseJobsMs, mapMs, totalMs, decideMs;
    FleetState last;
    for (int r = 0; r < reps; ++r) {
        JsonError e;
        const auto start = Clock::now();
        t0 = Clock::now();
        std::optional<QList<FleetNode>> nodes = parseNodes(nodesJson, &e);
        parseNodesMs.push_back(msSince(t0));
        t0 = Clock::now();
        std::optional<QList<FleetJob>> jobs = parseJobs(jobsJson, &e);
        parseJobsMs.push_back(msSince(t0));
        if (!nodes || !jobs) {
            std::printf("parse error: %s\n", qPrintable(e.toString()));
            return 1;
        }
        FleetSnapshot snap;
        snap.nodes = std::move(*nodes);
        snap.jobs = std::move(*jobs);
        t0 = Clock::now();
        last = buildFleetState(snap, catalogue, 0);
        mapMs.push_back(msSince(t0));
        totalMs.push_back(msSince(start));

        Domain::WorkloadSpec spec;
        spec.name = QStringLiteral("probe");
        spec.kind = Domain::WorkloadKind::Training;
        spec.demand.compute.kind = Domain::ComputeDemand::Kind::MigProfile;
        spec.demand.compute.profile = QStringLiteral("1g.18gb");
        spec.run = Domain::RunSpec{};
        spec.run->command = {QStringLiteral("true")};
        SubmitOptions options;
        options.workdir = QStringLiteral("/tmp");
        QString why;
        t0 = Clock::now();
        const std::optional<SubmitPlan> plan = planSubmission(last, spec, 0, options, &why);
        decideMs.push_back(msSince(t0));
        if (!plan)
            std::printf("no node: %s\n", qPrintable(why));
    }
    int running = 0, pending = 0;
    for (const Sched::Job &j : last.state.jobs()) {
        running += j.isActive();
        pending += j.state == Sched::JobState::Pending;
    }
    std::printf("state: %lld hosts, %lld cards, %d running and %d pending jobs, %lld warnings, "
                "invariants %s\n",
                qint64(last.state.hosts().size()),
                qint64(last.state.cards().size()),
                running,
                pending,
                qint64(last.warnings.size()),
                last.state.checkInvariants().isEmpty() ? "hold" : "BROKEN");
    std::printf("median of %d (ms):  parse nodes %.1f   parse jobs %.1f   map %.1f   import "
                "total %.1f   (min %.1f)\n",
                reps,
                median(parseNodesMs),
                median(parseJobsMs),
                median(mapMs),
                median(totalMs),
                *std::min_element(totalMs.begin(), totalMs.end()));
    std::printf("one submission plan (Scheduler copy + placeNow over %d hosts): median %.1f ms\n",
                count,
                median(decideMs));
    return 0;
}
