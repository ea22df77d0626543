// SPDX-License-Identifier: GPL-3.0-or-later
// Reading Slurm's answers (recorded from a real cluster, tests/fleet/data) and mapping them onto
// the scheduler's state; the submission a spec becomes.
#include "core/fleet/fleetjson.h"
#include "core/fleet/fleetstate.h"
#include "core/fleet/fleetsubmit.h"
#include "core/fleet/slurmjson.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace Zhaoxi;
using namespace Zhaoxi::Fleet;

namespace {

QByteArray fixture(const QString &name)
{
    QFile f(QStringLiteral(FLEET_TEST_DATA "/") + name);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read fixture %s", qPrintable(name));
    return f.readAll();
}

FleetSnapshot recorded(const QString &jobsFile = QStringLiteral("rest-jobs.json"))
{
    FleetSnapshot s;
    JsonError e;
    s.nodes = parseNodes(fixture(QStringLiteral("rest-nodes.json")), &e).value();
    s.jobs = parseJobs(fixture(jobsFile), &e).value();
    s.partitions = parsePartitions(fixture(QStringLiteral("rest-partitions.json")), &e).value();
    s.reservations
            = parseReservations(fixture(QStringLiteral("rest-reservations.json")), &e).value();
    return s;
}

const FleetJob *jobById(const FleetSnapshot &s, qint64 id)
{
    for (const FleetJob &j : s.jobs) {
        if (j.id == id)
            return &j;
    }
    return nullptr;
}

// "3g.71gb@0:2 3g.71gb@4:2" for a MIG card: profile@start:job per instance ("-" free).
QString describeCard(const FleetState &f, const Sched::CardState &c)
{
    QStringList out;
    for (const Sched::Unit &u : c.units) {
        const qint64 job = f.slurmJobOn(c.id, u.uid);
        const QString who = job > 0 ? QString::number(job) : QStringLiteral("-");
        if (u.profile >= 0)
            out << QStringLiteral("%1@%2:%3")
                            .arg(f.state.model(c).migProfiles[u.profile].name)
                            .arg(u.start)
                            .arg(who);
        else
            out << QStringLiteral("%1m:%2").arg(u.milli).arg(who);
    }
    return out.join(QLatin1Char(' '));
}

const Sched::HostState &hostNamed(const FleetState &f, const QString &name)
{
    return f.state.host(Domain::HostId(f.state.hostIndexByName(name)));
}

} // namespace

class TestSlurmJson : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void gresList_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected"); // name/type/count/indices;...

        QTest::newRow("mig node") << "gpu:3g.71gb:2,gpu:1g.18gb:7"
                                  << "gpu/3g.71gb/2/;gpu/1g.18gb/7/";
        QTest::newRow("whole") << "gpu:h200:4"
                               << "gpu/h200/4/";
        QTest::newRow("mps untyped") << "mps:100"
                                     << "mps//100/";
        QTest::newRow("shard typed") << "gpu:l40s:1,shard:l40s:8"
                                     << "gpu/l40s/1/;shard/l40s/8/";
        QTest::newRow("used with IDX")
                << "gpu:3g.71gb:2(IDX:0-1),gpu:1g.18gb:3(IDX:2-4),mps:0,shard:0"
                << "gpu/3g.71gb/2/0,1;gpu/1g.18gb/3/2,3,4;mps//0/;shard//0/";
        QTest::newRow("IDX N/A") << "gpu:l40s:0(IDX:N/A)"
                                 << "gpu/l40s/0/";
        QTest::newRow("IDX list") << "gpu:1g.18gb:3(IDX:2,5-6)"
                                  << "gpu/1g.18gb/3/2,5,6";
        QTest::newRow("tres_per_node") << "gres:gpu:1g.18gb:2"
                                       << "gpu/1g.18gb/2/";
        QTest::newRow("count only") << "gpu:2"
                                    << "gpu//2/";
        QTest::newRow("type only") << "gpu:h200"
                                   << "gpu/h200/1/";
        QTest::newRow("suffix") << "mps:1K"
                                << "mps//1024/";
        QTest::newRow("socket binding") << "gpu:h200:4(S:0-1)"
                                        << "gpu/h200/4/";
        QTest::newRow("empty") << ""
                               << "";
        QTest::newRow("N/A") << "N/A"
                             << "";
    }
    void gresList()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        QString error;
        QList<Gres> list;
        if (text.startsWith(QLatin1String("gres:"))) {
            // The job reader drops the prefix; the bare parser must not take it as a name.
            text = text.mid(5);
        }
        const std::optional<QList<Gres>> parsed = parseGresList(text, &error);
        QVERIFY2(parsed, qPrintable(error));
        QStringList got;
        for (const Gres &g : *parsed) {
            QStringList idx;
            for (int i : g.indices)
                idx << QString::number(i);
            got << QStringLiteral("%1/%2/%3/%4")
                            .arg(g.name, g.type)
                            .arg(g.count)
                            .arg(idx.join(','));
        }
        QCOMPARE(got.join(QLatin1Char(';')), expected);
    }

    void badGres_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("empty type") << "gpu::2"
                                    << "gres entry \"gpu::2\": empty field";
        QTest::newRow("bad count") << "gpu:h200:x4"
                                   << "count \"x4\" is not a number";
        QTest::newRow("too many fields") << "gpu:a:b:2"
                                         << "expected name[:type][:count]";
        QTest::newRow("bad IDX") << "gpu:h200:2(IDX:3-1)"
                                 << "bad index list \"3-1\"";
        QTest::newRow("unbalanced") << "gpu:h200:2(IDX:0-1"
                                    << "unbalanced parenthesis";
        QTest::newRow("annotation") << "gpu:h200:2(Q:1)"
                                    << "unknown annotation \"(Q:1)\"";
    }
    void badGres()
    {
        QFETCH(QString, text);
        QFETCH(QString, message);
        QString error;
        QVERIFY(!parseGresList(text, &error));
        QVERIFY2(error.contains(message), qPrintable(error));
    }

    void hostList_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("hosts");
        QTest::newRow("plain") << "zx-mig,zx-mps,zx-shard,zx-whole"
                               << QStringList{"zx-mig", "zx-mps", "zx-shard", "zx-whole"};
        QTest::newRow("range") << "zx-[1-3,7]" << QStringList{"zx-1", "zx-2", "zx-3", "zx-7"};
        QTest::newRow("padded and suffix")
                << "n[08-10]-gpu,a" << QStringList{"n08-gpu", "n09-gpu", "n10-gpu", "a"};
        QTest::newRow("empty") << "" << QStringList{};
    }
    void hostList()
    {
        QFETCH(QString, text);
        QFETCH(QStringList, hosts);
        QString error;
        const std::optional<QStringList> got = expandHostList(text, &error);
        QVERIFY2(got, qPrintable(error));
        QCOMPARE(*got, hosts);
        QVERIFY(!expandHostList(QStringLiteral("n[3-1]"), &error));
        QVERIFY(error.contains(QLatin1String("bad range \"3-1\"")));
        QVERIFY(!expandHostList(QStringLiteral("n[1-2"), &error));
    }

    void nodes()
    {
        JsonError e;
        const std::optional<QList<FleetNode>> nodes
                = parseNodes(fixture(QStringLiteral("rest-nodes.json")), &e);
        QVERIFY2(nodes, qPrintable(e.toString()));
        QCOMPARE(nodes->size(), 4);
        const FleetNode &mig = nodes->at(0);
        QCOMPARE(mig.name, QStringLiteral("zx-mig"));
        QCOMPARE(mig.state, QStringLiteral("mixed"));
        QVERIFY(mig.acceptsWork());
        QCOMPARE(mig.cpus, 32);
        QCOMPARE(mig.allocCpus, 3);
        QCOMPARE(mig.realMemoryMiB, 262144);
        QCOMPARE(mig.allocMemoryMiB, 10240);
        QCOMPARE(mig.partitions, (QStringList{"inference", "training"}));
        QCOMPARE(mig.gres.size(), 2);
        QCOMPARE(mig.gres[1], (Gres{"gpu", "1g.18gb", 7, {}}));
        QCOMPARE(mig.gresUsed[1], (Gres{"gpu", "1g.18gb", 3, {2, 3, 4}}));
        const FleetNode &mps = nodes->at(1);
        QCOMPARE(mps.gres[1], (Gres{"mps", "l40s", 100, {}}));
        QCOMPARE(mps.gresUsed[1], (Gres{"mps", "l40s", 1, {0}}));
    }

    void jobs()
    {
        JsonError e;
        const std::optional<QList<FleetJob>> jobs
                = parseJobs(fixture(QStringLiteral("rest-jobs.json")), &e);
        QVERIFY2(jobs, qPrintable(e.toString()));
        QCOMPARE(jobs->size(), 8);
        const FleetJob &j1 = jobs->at(0);
        QCOMPARE(j1.id, 1);
        QCOMPARE(j1.name, QStringLiteral("mig-2x1g"));
        QCOMPARE(j1.user, QStringLiteral("root"));
        QCOMPARE(j1.partition, QStringLiteral("training"));
        QCOMPARE(j1.state, QStringLiteral("RUNNING"));
        QCOMPARE(j1.reason, QStringLiteral("None"));
        QCOMPARE(j1.nodes, QStringList{"zx-mig"});
        QCOMPARE(j1.gresRequested, (QList<Gres>{{"gpu", "1g.18gb", 2, {}}}));
        QCOMPARE(j1.gresAllocated, (QList<QList<Gres>>{{{"gpu", "1g.18gb", 2, {2, 3}}}}));
        QCOMPARE(j1.memoryMiB, 4096);
        QCOMPARE(j1.submitTime, 1796383043);
        QVERIFY(j1.holdsResources());
        const FleetJob &j3 = jobs->at(2);
        QCOMPARE(j3.state, QStringLiteral("PENDING"));
        QCOMPARE(j3.reason, QStringLiteral("Resources"));
        QVERIFY(j3.nodes.isEmpty());
        QVERIFY(j3.gresAllocated.isEmpty());
        QCOMPARE(j3.gresRequested, (QList<Gres>{{"gpu", "3g.71gb", 1, {}}}));
        QVERIFY(j3.isPending() && !j3.holdsResources());
        QCOMPARE(jobs->at(3).gresAllocated, (QList<QList<Gres>>{{{"mps", "", 50, {0}}}}));
        QCOMPARE(jobs->at(5).memoryMiB, 32768); // whole-4: --mem=32G
    }

    void jobsAfterPreemption()
    {
        JsonError e;
        const std::optional<QList<FleetJob>> jobs
                = parseJobs(fixture(QStringLiteral("squeue-after-preemption.json")), &e);
        QVERIFY2(jobs, qPrintable(e.toString()));
        FleetSnapshot s;
        s.jobs = *jobs;
        const FleetJob *victim = jobById(s, 6);
        QVERIFY(victim);
        QCOMPARE(victim->state, QStringLiteral("PENDING"));
        QCOMPARE(victim->reason, QStringLiteral("BeginTime"));
        QCOMPARE(victim->restarts, 1);
        QCOMPARE(jobById(s, 9)->gresAllocated.first().first().indices, (QList<int>{0, 1}));
    }

    void partitionsAndReservations()
    {
        JsonError e;
        const auto parts = parsePartitions(fixture(QStringLiteral("rest-partitions.json")), &e);
        QVERIFY2(parts, qPrintable(e.toString()));
        QCOMPARE(parts->size(), 2);
        QCOMPARE(parts->at(0).name, QStringLiteral("inference"));
        QCOMPARE(parts->at(0).priorityTier, 10);
        QCOMPARE(parts->at(0).preemptMode, QStringList{"disabled"});
        QVERIFY(!parts->at(0).isDefault);
        QCOMPARE(parts->at(1).name, QStringLiteral("training"));
        QCOMPARE(parts->at(1).priorityTier, 1);
        QCOMPARE(parts->at(1).preemptMode, QStringList{"requeue"});
        QVERIFY(parts->at(1).isDefault);
        QCOMPARE(parts->at(1).nodes.size(), 4);

        const auto res = parseReservations(fixture(QStringLiteral("rest-reservations.json")), &e);
        QVERIFY2(res, qPrintable(e.toString()));
        QCOMPARE(res->size(), 1);
        QCOMPARE(res->at(0).name, QStringLiteral("night"));
        QCOMPARE(res->at(0).nodes, (QStringList{"zx-mps", "zx-shard"}));
        QVERIFY(res->at(0).flags.contains(QLatin1String("DAILY")));
        QCOMPARE(res->at(0).endTime - res->at(0).startTime, 8 * 3600);
        QCOMPARE(res->at(0).partition, QStringLiteral("training"));
    }

    void submitResponses()
    {
        JsonError e;
        QCOMPARE(parseSubmitResponse(fixture(QStringLiteral("rest-job-submit.response.json")), &e),
                 std::optional<qint64>(8));
        QVERIFY(!parseSubmitResponse(
                fixture(QStringLiteral("rest-job-submit-bad-key.response.json")), &e));
        QCOMPARE(e.path, QStringLiteral("errors"));
        QVERIFY2(e.message.contains(QLatin1String("Unknown key \"tres_per_node\"")),
                 qPrintable(e.message));
        QVERIFY2(e.message.contains(QLatin1String("Failure during parsing (error 9001)")),
                 qPrintable(e.message));
    }

    // Bad answers: the error names the JSON path and what is wrong.
    void badAnswers_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QString>("error");
        QTest::newRow("cpus a string") << "rest-nodes.json"
                                       << "\"cpus\": 32,"
                                       << "\"cpus\": \"32\","
                                       << "nodes[0].cpus: expected an integer, got a string";
        QTest::newRow("bad node gres")
                << "rest-nodes.json"
                << "\"gres\": \"gpu:h200:4\""
                << "\"gres\": \"gpu:h200:four\""
                << "nodes[3].gres: gres entry \"gpu:h200:four\": count \"four\" is not a number";
        QTest::newRow("node without name") << "rest-nodes.json"
                                           << "\"name\": \"zx-mps\","
                                           << ""
                                           << "nodes[1].name: required";
        QTest::newRow("bad gres_detail")
                << "rest-jobs.json"
                << "\"mps:50(IDX:0)\""
                << "\"mps:50(IDX:x)\""
                << "jobs[3].gres_detail[0]: gres entry \"mps:50(IDX:x)\": bad index list \"x\"";
        QTest::newRow("job id negative") << "rest-jobs.json"
                                         << "\"job_id\": 5,"
                                         << "\"job_id\": -5,"
                                         << "jobs[4].job_id: must be 0..";
        QTest::newRow("bad node list")
                << "rest-partitions.json"
                << "\"nodes\": \"zx-mig,zx-mps,zx-shard,zx-whole\""
                << "\"nodes\": \"zx-[4-1]\""
                << "partitions[0].nodes: host list \"zx-[4-1]\": bad range \"4-1\"";
        QTest::newRow("no list") << "rest-reservations.json"
                                 << "\"reservations\": ["
                                 << "\"x\": ["
                                 << "reservations: required";
        QTest::newRow("slurm errors")
                << "rest-nodes.json"
                << "\"errors\": [\n  ]"
                << "\"errors\": [{\"error\": \"Unspecified error\", \"errno\": -1}]"
                << "errors: Slurm answered with errors: Unspecified error (error -1)";
        QTest::newRow("not JSON") << "rest-nodes.json"
                                  << "\"meta\": {"
                                  << "\"meta\" {"
                                  << "line 2, column";
    }
    void badAnswers()
    {
        QFETCH(QString, file);
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(QString, error);
        QByteArray json = fixture(file);
        // The recorded reservations answer escapes its slashes; the rows match either.
        QVERIFY2(json.contains(from.toUtf8()), qPrintable(from));
        json.replace(from.toUtf8(), to.toUtf8());
        JsonError e;
        bool ok = false;
        if (file == QLatin1String("rest-nodes.json"))
            ok = parseNodes(json, &e).has_value();
        else if (file == QLatin1String("rest-jobs.json"))
            ok = parseJobs(json, &e).has_value();
        else if (file == QLatin1String("rest-partitions.json"))
            ok = parsePartitions(json, &e).has_value();
        else
            ok = parseReservations(json, &e).has_value();
        QVERIFY(!ok);
        QVERIFY2(e.toString().contains(error), qPrintable(e.toString()));
    }

    void models()
    {
        const Catalogue::Catalogue cat = Catalogue::Catalogue::builtIn();
        const auto name = [&](int i) { return i >= 0 ? cat.models()[i].name : QString(); };
        QCOMPARE(name(modelForGpuType(cat, QStringLiteral("h200"))), QStringLiteral("H200-141GB"));
        QCOMPARE(name(modelForGpuType(cat, QStringLiteral("l40s"))), QStringLiteral("L40S-48GB"));
        QCOMPARE(name(modelForGpuType(cat, QStringLiteral("H200-NVL"))),
                 QStringLiteral("H200-NVL-141GB"));
        QCOMPARE(name(modelForGpuType(cat, QStringLiteral("t4"))), QStringLiteral("T4-16GB"));
        QCOMPARE(modelForGpuType(cat, QStringLiteral("a100")), -1); // two models: ambiguous
        QCOMPARE(modelForGpuType(cat, QStringLiteral("mi300x")), -1);
        const QStringList h200 = {QStringLiteral("3g.71gb"), QStringLiteral("1g.18gb")};
        QCOMPARE(name(modelForMigProfiles(cat, h200, {})), QStringLiteral("H200-141GB"));
        QCOMPARE(name(modelForMigProfiles(cat, h200, {QStringLiteral("h200-nvl")})),
                 QStringLiteral("H200-NVL-141GB"));
        QCOMPARE(name(modelForMigProfiles(cat, {QStringLiteral("3g.40gb")}, {})),
                 QStringLiteral("A100-SXM4-80GB"));
        QCOMPARE(modelForMigProfiles(
                         cat, {QStringLiteral("3g.40gb"), QStringLiteral("1g.18gb")}, {}),
                 -1);
    }

    // The recorded cluster as Zhaoxi's state: cards, layouts, and each job on the instances
    // Slurm's indices name.
    void mapping()
    {
        const FleetState f = buildFleetState(recorded(), Catalogue::Catalogue::builtIn(), 0);
        QCOMPARE(f.state.checkInvariants(), QString());
        QCOMPARE(f.warnings, QStringList());
        QCOMPARE(f.state.hosts().size(), 4);

        const Sched::HostState &mig = hostNamed(f, QStringLiteral("zx-mig"));
        QCOMPARE(mig.cardCount, 2);
        const Sched::CardState &c0 = f.state.cards()[mig.firstCard];
        const Sched::CardState &c1 = f.state.cards()[mig.firstCard + 1];
        QCOMPARE(f.state.model(c0).name, QStringLiteral("H200-141GB"));
        QCOMPARE(int(c0.mode), int(Domain::PartitionMode::Mig));
        QCOMPARE(int(c1.mode), int(Domain::PartitionMode::Mig));
        // Job 2 holds IDX 0-1 (card 0); job 1 IDX 2-3 and job 8 IDX 4 (card 1, by start).
        QCOMPARE(describeCard(f, c0), QStringLiteral("3g.71gb@0:2 3g.71gb@4:2"));
        QCOMPARE(describeCard(f, c1),
                 QStringLiteral("1g.18gb@0:1 1g.18gb@1:1 1g.18gb@2:8 1g.18gb@3:- 1g.18gb@4:- "
                                "1g.18gb@5:- 1g.18gb@6:-"));
        QCOMPARE(f.gresIndexOf(c1.id, c1.units[2].uid), 4);
        QCOMPARE(mig.usedCpuMilli, 3000);
        // Jobs 1 and 2 took 4096 MiB, job 8 (REST) 2048: what Slurm says the node has allocated.
        QCOMPARE(mig.usedMemoryMiB, 10240);
        QCOMPARE(mig.usedMemoryMiB, f.snapshot.nodes[0].allocMemoryMiB);

        const Sched::HostState &whole = hostNamed(f, QStringLiteral("zx-whole"));
        QCOMPARE(whole.cardCount, 4);
        for (int i = 0; i < 4; ++i) {
            const Sched::CardState &c = f.state.cards()[whole.firstCard + i];
            QCOMPARE(int(c.mode), int(Domain::PartitionMode::Whole));
            QCOMPARE(describeCard(f, c), QStringLiteral("1000m:6"));
        }
        const Sched::CardState &mps
                = f.state.cards()[hostNamed(f, QStringLiteral("zx-mps")).firstCard];
        QCOMPARE(f.state.model(mps).name, QStringLiteral("L40S-48GB"));
        QCOMPARE(int(mps.mode), int(Domain::PartitionMode::Mps));
        QCOMPARE(describeCard(f, mps), QStringLiteral("500m:4"));
        QCOMPARE(f.fleetCard(mps.id)->mpsPerCard, 100);
        const Sched::CardState &shard
                = f.state.cards()[hostNamed(f, QStringLiteral("zx-shard")).firstCard];
        QCOMPARE(int(shard.mode), int(Domain::PartitionMode::TimeSlicing));
        QCOMPARE(describeCard(f, shard), QStringLiteral("500m:5"));

        // Pending jobs are queued, holding nothing; kinds follow the partitions.
        const Sched::Job &pending = f.state.job(f.jobBySlurmId.value(3));
        QCOMPARE(int(pending.state), int(Sched::JobState::Pending));
        QCOMPARE(int(pending.spec.demand.compute.kind),
                 int(Domain::ComputeDemand::Kind::MigProfile));
        QCOMPARE(pending.spec.demand.compute.profile, QStringLiteral("3g.71gb"));
        QCOMPARE(int(pending.spec.kind), int(Domain::WorkloadKind::Training));
        QCOMPARE(int(f.state.job(f.jobBySlurmId.value(2)).spec.kind),
                 int(Domain::WorkloadKind::Inference));
        QCOMPARE(int(f.state.job(f.jobBySlurmId.value(2)).state), int(Sched::JobState::Running));
        QCOMPARE(f.jobBySlurmId.size(), 8);
    }

    // After job 9 preempted job 6: the indices move the holders.
    void mappingAfterPreemption()
    {
        const FleetState f
                = buildFleetState(recorded(QStringLiteral("squeue-after-preemption.json")),
                                  Catalogue::Catalogue::builtIn(),
                                  0);
        QCOMPARE(f.state.checkInvariants(), QString());
        const Sched::HostState &whole = hostNamed(f, QStringLiteral("zx-whole"));
        QStringList holders;
        for (int i = 0; i < whole.cardCount; ++i)
            holders << describeCard(f, f.state.cards()[whole.firstCard + i]);
        QCOMPARE(holders, (QStringList{"1000m:9", "1000m:9", "1000m:7", "1000m:7"}));
        QCOMPARE(int(f.state.job(f.jobBySlurmId.value(6)).state), int(Sched::JobState::Pending));
    }

    // A node Zhaoxi cannot map is a host without cards that takes nothing; the others are
    // unaffected, and jobs that cannot be matched are warnings.
    void mappingProblems()
    {
        FleetSnapshot s = recorded();
        s.nodes[3].gres = {Gres{"gpu", "mi300x", 4, {}}}; // zx-whole
        s.nodes[1].gres.append(Gres{"shard", "", 8, {}}); // zx-mps: mps and shard
        FleetJob ghost;
        ghost.id = 42;
        ghost.state = QStringLiteral("RUNNING");
        ghost.nodes = {QStringLiteral("zx-mig")};
        ghost.cpus = 1;
        ghost.gresAllocated = {{Gres{"gpu", "1g.18gb", 1, {12}}}};
        s.jobs.append(ghost);
        FleetJob clash = ghost;
        clash.id = 43;
        clash.gresAllocated = {{Gres{"gpu", "1g.18gb", 1, {2}}}}; // job 1 holds IDX 2
        s.jobs.append(clash);
        const FleetState f = buildFleetState(s, Catalogue::Catalogue::builtIn(), 0);
        QCOMPARE(f.state.checkInvariants(), QString());
        QVERIFY(f.nodes[3].problem.contains(QLatin1String("gpu type \"mi300x\" is neither")));
        QVERIFY(!f.state.hosts()[3].up);
        QCOMPARE(f.state.hosts()[3].cardCount, 0);
        QVERIFY(f.nodes[1].problem.contains(QLatin1String("both mps and shard")));
        QVERIFY(f.nodes[0].problem.isEmpty());
        QCOMPARE(f.state.hosts()[0].cardCount, 2);
        const QString all = f.warnings.join(QLatin1Char('\n'));
        QVERIFY2(all.contains(QLatin1String("job 42 on zx-mig: gpu index 12 is not on the node (it "
                                            "has 9)")),
                 qPrintable(all));
        QVERIFY2(
                all.contains(QLatin1String("job 43 on zx-mig: gpu index 2 is held by another job")),
                qPrintable(all));
        QVERIFY2(all.contains(QLatin1String("job 6 on zx-whole: its node's cards could not be "
                                            "mapped")),
                 qPrintable(all));
        // They keep their CPU, not a unit.
        QCOMPARE(f.state.job(f.jobBySlurmId.value(42)).assignments.size(), 0);
        QCOMPARE(int(f.state.job(f.jobBySlurmId.value(42)).state), int(Sched::JobState::Running));
    }

    void showJson()
    {
        const FleetState f = buildFleetState(recorded(), Catalogue::Catalogue::builtIn(), 0);
        const QJsonObject o = fleetToJson(f);
        const QJsonArray nodes = o.value(QStringLiteral("nodes")).toArray();
        QCOMPARE(nodes.size(), 4);
        const QJsonObject mig = nodes[0].toObject();
        QCOMPARE(mig.value(QStringLiteral("name")).toString(), QStringLiteral("zx-mig"));
        QCOMPARE(mig.value(QStringLiteral("state")).toString(), QStringLiteral("mixed"));
        const QJsonArray cards = mig.value(QStringLiteral("cards")).toArray();
        QCOMPARE(cards.size(), 2);
        const QJsonObject card1 = cards[1].toObject();
        QCOMPARE(card1.value(QStringLiteral("model")).toString(), QStringLiteral("H200-141GB"));
        QCOMPARE(card1.value(QStringLiteral("mode")).toString(), QStringLiteral("mig"));
        const QJsonArray parts = card1.value(QStringLiteral("partitions")).toArray();
        QCOMPARE(parts.size(), 7);
        QCOMPARE(parts[2].toObject(),
                 (QJsonObject{{"profile", "1g.18gb"}, {"start", 2}, {"gresIndex", 4}, {"job", 8}}));
        QVERIFY(parts[3].toObject().value(QStringLiteral("job")).isNull());
        const QJsonObject mpsCard
                = nodes[1].toObject().value(QStringLiteral("cards")).toArray()[0].toObject();
        QCOMPARE(mpsCard.value(QStringLiteral("mode")).toString(), QStringLiteral("mps"));
        QCOMPARE(mpsCard.value(QStringLiteral("partitions")).toArray()[0].toObject(),
                 (QJsonObject{{"share", "mps:50"}, {"milli", 500}, {"job", 4}}));
        QCOMPARE(mpsCard.value(QStringLiteral("capacity")).toString(), QStringLiteral("mps:100"));
        const QJsonArray jobs = o.value(QStringLiteral("jobs")).toArray();
        QCOMPARE(jobs.size(), 8);
        QCOMPARE(jobs[2].toObject().value(QStringLiteral("reason")).toString(),
                 QStringLiteral("Resources"));
        QCOMPARE(o.value(QStringLiteral("partitions")).toArray().size(), 2);
        QCOMPARE(o.value(QStringLiteral("reservations")).toArray().size(), 1);
    }

    // A spec becomes a job on the node Zhaoxi's framework picks, with the GRES of the units it
    // picked there.
    void submission_data()
    {
        QTest::addColumn<QString>("demand");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("node");
        QTest::addColumn<QString>("gres");
        QTest::addColumn<QString>("partition");
        QTest::newRow("MIG 1g") << "{\"compute\": {\"profile\": \"1g.18gb\"}}"
                                << "training"
                                << "zx-mig"
                                << "gpu:1g.18gb:1"
                                << "training";
        QTest::newRow("MIG slices") << "{\"compute\": {\"slices\": 1}}"
                                    << "training"
                                    << "zx-mig"
                                    << "gpu:1g.18gb:1"
                                    << "training";
        QTest::newRow("half a card") << "{\"compute\": {\"fraction\": 0.25}, \"hostCpu\": 1}"
                                     << "batch"
                                     << ""
                                     << ""
                                     << "";
        QTest::newRow("CPU only") << "{\"cards\": 0, \"hostCpu\": 4, \"hostMemoryGiB\": 8}"
                                  << "batch"
                                  << ""
                                  << ""
                                  << "";
    }
    void submission()
    {
        QFETCH(QString, demand);
        QFETCH(QString, kind);
        QFETCH(QString, node);
        QFETCH(QString, gres);
        QFETCH(QString, partition);
        const FleetState f = buildFleetState(recorded(), Catalogue::Catalogue::builtIn(), 0);
        const QByteArray json
                = QStringLiteral("{\"name\": \"t\", \"kind\": \"%1\", \"demand\": %2,\n"
                                 "            \"run\": {\"command\": [\"/bin/echo\", \"it's\", "
                                 "\"$HOME\"], \"env\": {\"A\": \"1\"}}}")
                          .arg(kind, demand)
                          .toUtf8();
        Domain::SpecError se;
        const std::optional<Domain::WorkloadSpec> spec = Domain::workloadSpecFromJson(json, &se);
        QVERIFY2(spec, qPrintable(se.toString()));
        SubmitOptions options;
        options.workdir = QStringLiteral("/tmp/w");
        options.environment.insert(QStringLiteral("PATH"), QStringLiteral("/usr/bin:/bin"));
        QString why;
        const std::optional<SubmitPlan> plan = planSubmission(f, *spec, 0, options, &why);
        QVERIFY2(plan, qPrintable(why));
        if (!node.isEmpty())
            QCOMPARE(plan->node, node);
        if (kind == QLatin1String("batch") && demand.contains(QLatin1String("fraction"))) {
            // A quarter card goes to a shared card: its GRES is that node's kind of share.
            QVERIFY2(plan->node == QLatin1String("zx-mps")
                             || plan->node == QLatin1String("zx-shard"),
                     qPrintable(plan->node));
            gres = plan->node == QLatin1String("zx-mps") ? QStringLiteral("mps:25")
                                                         : QStringLiteral("shard:2");
        }
        QCOMPARE(plan->gres, gres);
        QCOMPARE(plan->partition, partition);
        const QJsonObject job = plan->request.value(QStringLiteral("job")).toObject();
        QCOMPARE(job.value(QStringLiteral("nodelist")).toString(), plan->node);
        QCOMPARE(job.value(QStringLiteral("gres")).toString(), gres);
        QVERIFY(!job.contains(QStringLiteral("tres_per_node")));
        QCOMPARE(job.contains(QStringLiteral("partition")), !partition.isEmpty());
        QCOMPARE(job.value(QStringLiteral("current_working_directory")).toString(),
                 QStringLiteral("/tmp/w"));
        QCOMPARE(job.value(QStringLiteral("time_limit")).toInt(), 60);
        QCOMPARE(job.value(QStringLiteral("environment")).toObject().value("PATH").toString(),
                 QStringLiteral("/usr/bin:/bin"));
        QCOMPARE(job.value(QStringLiteral("environment")).toObject().value("A").toString(),
                 QStringLiteral("1"));
        QCOMPARE(plan->request.value(QStringLiteral("script")).toString(),
                 QStringLiteral("#!/bin/bash\nexec '/bin/echo' 'it'\\''s' '$HOME'\n"));
    }

    // QOS and requeue from the kind and the preemption tolerance, on a cluster with QOS (a map
    // given) and without (no "qos" key at all, as before).
    void submissionQos_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("preemption");
        QTest::addColumn<bool>("clusterHasQos");
        QTest::addColumn<QString>("qosNever");
        QTest::addColumn<QString>("qos");     // expected; empty: no "qos" key
        QTest::addColumn<bool>("requeue");    // expected
        QTest::addColumn<QString>("refused"); // expected part of the refusal; empty: planned
        QTest::newRow("training restart, QOS") << "training"
                                               << "restart" << true << "normal"
                                               << "training" << true << "";
        QTest::newRow("training checkpoint, QOS") << "training"
                                                  << "checkpoint" << true << ""
                                                  << "training" << true << "";
        QTest::newRow("inference, QOS") << "inference"
                                        << "restart" << true << ""
                                        << "inference" << true << "";
        QTest::newRow("batch: no entry, account default") << "batch"
                                                          << "restart" << true << ""
                                                          << "" << true << "";
        QTest::newRow("never, QOS") << "training"
                                    << "never" << true << "normal"
                                    << "normal" << false << "";
        QTest::newRow("never, no never QOS") << "training"
                                             << "never" << true << ""
                                             << "" << false << "qosNever";
        QTest::newRow("training, no QOS") << "training"
                                          << "checkpoint" << false << ""
                                          << "" << true << "";
        QTest::newRow("never, no QOS") << "inference"
                                       << "never" << false << "normal"
                                       << "" << false << "";
    }
    void submissionQos()
    {
        QFETCH(QString, kind);
        QFETCH(QString, preemption);
        QFETCH(bool, clusterHasQos);
        QFETCH(QString, qosNever);
        QFETCH(QString, qos);
        QFETCH(bool, requeue);
        QFETCH(QString, refused);
        const FleetState f = buildFleetState(recorded(), Catalogue::Catalogue::builtIn(), 0);
        const QString extra = kind == QLatin1String("inference") ? QStringLiteral(
                                      ", \"inference\": {\"service\": \"s\", \"sloP99Ms\": 100}")
                                                                 : QString();
        const QString interval = preemption == QLatin1String("checkpoint")
                                         ? QStringLiteral(", \"checkpointInterval\": \"5m\"")
                                         : QString();
        const QByteArray json
                = QStringLiteral("{\"name\": \"q\", \"kind\": \"%1\", \"preemption\": "
                                 "\"%2\"%3%4, \"demand\": {\"cards\": 0, \"hostCpu\": 1},"
                                 " \"run\": {\"command\": [\"true\"]}}")
                          .arg(kind, preemption, interval, extra)
                          .toUtf8();
        Domain::SpecError se;
        const std::optional<Domain::WorkloadSpec> spec = Domain::workloadSpecFromJson(json, &se);
        QVERIFY2(spec, qPrintable(se.toString() + QLatin1Char(' ') + QString::fromUtf8(json)));
        SubmitOptions options;
        options.workdir = QStringLiteral("/tmp/w");
        if (clusterHasQos) {
            options.qosByKind.insert(QStringLiteral("inference"), QStringLiteral("inference"));
            options.qosByKind.insert(QStringLiteral("training"), QStringLiteral("training"));
        }
        options.qosNever = qosNever;
        QString why;
        const std::optional<SubmitPlan> plan = planSubmission(f, *spec, 0, options, &why);
        if (!refused.isEmpty()) {
            QVERIFY(!plan);
            QVERIFY2(why.contains(refused), qPrintable(why));
            return;
        }
        QVERIFY2(plan, qPrintable(why));
        const QJsonObject job = plan->request.value(QStringLiteral("job")).toObject();
        QCOMPARE(plan->qos, qos);
        QCOMPARE(job.contains(QStringLiteral("qos")), !qos.isEmpty());
        QCOMPARE(job.value(QStringLiteral("qos")).toString(), qos);
        QCOMPARE(plan->requeue, requeue);
        QCOMPARE(job.value(QStringLiteral("requeue")).toBool(!requeue), requeue);
        // v0.0.38 refuses the batch-shell form of "signal": it is never sent.
        QVERIFY(!job.contains(QStringLiteral("signal")));
        const QJsonObject env = job.value(QStringLiteral("environment")).toObject();
        const bool checkpoint = preemption == QLatin1String("checkpoint");
        QCOMPARE(env.value(QStringLiteral("ZHAOXI_CHECKPOINT_SIGNAL")).toString(),
                 checkpoint ? QStringLiteral("SIGTERM") : QString());
    }

    void submissionRefused()
    {
        const FleetState f = buildFleetState(recorded(), Catalogue::Catalogue::builtIn(), 0);
        SubmitOptions options;
        options.workdir = QStringLiteral("/tmp/w");
        QString why;
        Domain::WorkloadSpec spec;
        spec.name = QStringLiteral("no-run");
        spec.kind = Domain::WorkloadKind::Training;
        QVERIFY(!planSubmission(f, spec, 0, options, &why));
        QVERIFY2(why.contains(QLatin1String("no run.command")), qPrintable(why));
        // Four whole H200 are all held by job 6: no node can take one now.
        spec.run = Domain::RunSpec{};
        spec.run->command = QStringList{QStringLiteral("true")};
        spec.affinity.cardModels = {QStringLiteral("H200-141GB")};
        spec.isolation = Domain::IsolationRequirement::HardOnly;
        QVERIFY(!planSubmission(f, spec, 0, options, &why));
        QVERIFY2(why.startsWith(QLatin1String("no node can take it now: ")), qPrintable(why));
        // A partition the cluster lacks.
        FleetState noTraining = f;
        noTraining.snapshot.partitions.removeLast();
        spec.affinity.cardModels.clear();
        spec.demand.compute.kind = Domain::ComputeDemand::Kind::MigProfile;
        spec.demand.compute.profile = QStringLiteral("1g.18gb");
        QVERIFY(!planSubmission(noTraining, spec, 0, options, &why));
        QVERIFY2(why.contains(QLatin1String("no partition \"training\"")), qPrintable(why));
        QVERIFY(planSubmission(f, spec, 0, options, &why));
    }

    // The QOS slurmdbd has (recorded with scripts/slurm-local up --accounting, training given
    // GrpTRES=gres/gpu=4): priorities, who preempts whom and how, limits; and what fleet show
    // says of them.
    void qosRead()
    {
        JsonError e;
        const std::optional<QList<FleetQos>> qos
                = parseQos(fixture(QStringLiteral("rest-qos.json")), &e);
        QVERIFY2(qos, qPrintable(e.toString()));
        QCOMPARE(qos->size(), 3);
        const FleetQos &inference = qos->at(2);
        QCOMPARE(inference.name, QStringLiteral("inference"));
        QCOMPARE(inference.priority, qint64(1000));
        QCOMPARE(inference.preempts, QStringList{QStringLiteral("training")});
        QCOMPARE(inference.preemptMode, QStringList{QStringLiteral("REQUEUE")});
        QCOMPARE(qos->at(1).groupTres, QStringList{QStringLiteral("gres/gpu=4")});
        QVERIFY(qos->at(0).groupTres.isEmpty());
        // A value of the wrong type is named by its path.
        QByteArray bad = fixture(QStringLiteral("rest-qos.json"));
        bad.replace("\"priority\": 1000", "\"priority\": \"high\"");
        QVERIFY(!parseQos(bad, &e));
        QVERIFY2(e.toString().contains(QLatin1String("QOS[2].priority")), qPrintable(e.toString()));
        FleetSnapshot snap = recorded();
        snap.qos = *qos;
        const QJsonObject shown
                = fleetToJson(buildFleetState(snap, Catalogue::Catalogue::builtIn(), 0));
        QCOMPARE(shown.value(QStringLiteral("qos")).toArray().size(), 3);
        QCOMPARE(shown.value(QStringLiteral("qos"))[2][QStringLiteral("preempts")][0].toString(),
                 QStringLiteral("training"));
        QVERIFY(!shown.contains(QStringLiteral("qosProblem")));
    }

    // A gang no node holds alone goes on several nodes in equal parts (Slurm's nodes and tasks);
    // Slurm may pick the node instead; a node Slurm refused is left out of a re-plan.
    void submissionOverNodesOrSlurmsChoice()
    {
        FleetSnapshot snap;
        for (const char *name : {"zx-a", "zx-b", "zx-c"}) {
            FleetNode n;
            n.name = QString::fromLatin1(name);
            n.state = QStringLiteral("idle");
            n.cpus = 32;
            n.realMemoryMiB = 262144;
            n.gres = {Gres{QStringLiteral("gpu"), QStringLiteral("h200"), 2, {}}};
            n.partitions = {QStringLiteral("training")};
            snap.nodes.append(n);
        }
        const FleetState f = buildFleetState(snap, Catalogue::Catalogue::builtIn(), 0);
        Domain::WorkloadSpec spec;
        spec.name = QStringLiteral("gang");
        spec.kind = Domain::WorkloadKind::Training;
        spec.demand.cards = 4;
        spec.affinity.cardModels = {QStringLiteral("H200-141GB")};
        spec.affinity.sameLinkDomain = false;
        spec.run = Domain::RunSpec{};
        spec.run->command = QStringList{QStringLiteral("true")};
        SubmitOptions options;
        options.workdir = QStringLiteral("/tmp/w");
        QString why;
        std::optional<SubmitPlan> plan = planSubmission(f, spec, 0, options, &why);
        QVERIFY2(plan, qPrintable(why));
        QCOMPARE(plan->nodes.size(), 2);
        QVERIFY(plan->nodes[0] != plan->nodes[1]);
        QCOMPARE(plan->node, plan->nodes.first());
        QCOMPARE(plan->gres, QStringLiteral("gpu:h200:2")); // per node
        QJsonObject job = plan->request.value(QStringLiteral("job")).toObject();
        QCOMPARE(job.value(QStringLiteral("nodes")).toString(), QStringLiteral("2"));
        QCOMPARE(job.value(QStringLiteral("tasks")).toInt(), 2);
        QCOMPARE(job.value(QStringLiteral("tasks_per_node")).toInt(), 1);
        QCOMPARE(job.value(QStringLiteral("nodelist")).toString(), plan->nodes.join(','));
        QVERIFY2(plan->why.contains(QLatin1String("2 nodes take 2 each")), qPrintable(plan->why));
        // Six cards: three nodes of two.
        spec.demand.cards = 6;
        plan = planSubmission(f, spec, 0, options, &why);
        QVERIFY2(plan, qPrintable(why));
        QCOMPARE(plan->nodes.size(), 3);
        // Eight: no split fits three nodes of two.
        spec.demand.cards = 8;
        QVERIFY(!planSubmission(f, spec, 0, options, &why));
        QVERIFY2(why.startsWith(QLatin1String("no node can take it now")), qPrintable(why));

        // Slurm chooses: no nodelist, the GRES still Zhaoxi's.
        spec.demand.cards = 1;
        options.slurmChooses = true;
        plan = planSubmission(f, spec, 0, options, &why);
        QVERIFY2(plan, qPrintable(why));
        job = plan->request.value(QStringLiteral("job")).toObject();
        QVERIFY(!job.contains(QStringLiteral("nodelist")));
        QCOMPARE(job.value(QStringLiteral("gres")).toString(), QStringLiteral("gpu:h200:1"));
        options.slurmChooses = false;

        // A re-plan leaves out the nodes Slurm refused.
        options.avoidNodes = {QStringLiteral("zx-a"), QStringLiteral("zx-b")};
        plan = planSubmission(f, spec, 0, options, &why);
        QVERIFY2(plan, qPrintable(why));
        QCOMPARE(plan->node, QStringLiteral("zx-c"));
        options.avoidNodes << QStringLiteral("zx-c");
        QVERIFY(!planSubmission(f, spec, 0, options, &why));
    }
};

QTEST_GUILESS_MAIN(TestSlurmJson)
#include "tst_slurmjson.moc"
