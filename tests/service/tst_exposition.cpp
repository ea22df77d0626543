// SPDX-License-Identifier: GPL-3.0-or-later
// The /metrics text of a snapshot: dcgm-exporter's names, units and labels per card and MIG
// instance, the modelled values, what is left out when a reading is unknown, the zhaoxi_*
// series, and the counters fed from the snapshots' events. Every text is read back with the
// console's own Prometheus parser (core/runtime/promtext.h), which must find no error in it.
#include "core/catalogue/catalogue.h"
#include "core/runtime/promtext.h"
#include "core/service/exposition.h"
#include "core/storage/recorder.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace Zhaoxi;
using Runtime::Exposition;
using Runtime::Labels;
using Runtime::MetricType;
using Service::MetricCounters;
using Service::MetricsExporter;
using Session::Snapshot;
namespace Model = Service::MetricsModel;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// node-a: card 0 an H200 in MIG mode (3g.71gb serving "chat", busy; 1g.18gb training "bert",
// busy; 1g.18gb idle; a 1g.18gb still being created), card 1 a whole H200 training "llama",
// card 2 a T4 whose driver lost it.
struct Fixture
{
    Snapshot snapshot;
    int uidInference = -1;
    int uidTraining = -1;
    int uidIdle = -1;
    int uidCreating = -1;
};

Domain::WorkloadSpec spec(const char *name, Domain::WorkloadKind kind)
{
    Domain::WorkloadSpec s;
    s.name = QString::fromLatin1(name);
    s.kind = kind;
    if (kind == Domain::WorkloadKind::Inference)
        s.inference = Domain::InferenceSpec{s.name, 200, 10, 1, 2};
    return s;
}

Fixture fixture(Catalogue::Catalogue catalogue = Catalogue::Catalogue::builtIn())
{
    const int h200 = catalogue.indexOf(QStringLiteral("H200-141GB"));
    const int t4 = catalogue.indexOf(QStringLiteral("T4-16GB"));
    Fixture f;
    Sched::ClusterState st(catalogue);
    const Domain::HostId host = st.addHost(QStringLiteral("node-a"), 64'000, 512 * 1024);
    const Domain::CardId mig = st.addCard(host, h200, Domain::PartitionMode::Mig);
    const Domain::CardId whole = st.addCard(host, h200, Domain::PartitionMode::Whole);
    st.addCard(host, t4, Domain::PartitionMode::Whole);
    const Domain::CardModel &model = catalogue.models()[h200];
    const int p3g = model.profileIndex(QStringLiteral("3g.71gb"));
    const int p1g = model.profileIndex(QStringLiteral("1g.18gb"));
    f.uidInference = st.createPartition(mig, p3g, 0);
    f.uidTraining = st.createPartition(mig, p1g, 4);
    f.uidIdle = st.createPartition(mig, p1g, 5);
    f.uidCreating = st.createPartition(mig, p1g, 6, Sched::UnitState::Creating);
    const auto run
            = [&](const char *name, Domain::WorkloadKind kind, Domain::CardId card, int uid) {
                  const Domain::JobId job = st.addJob(spec(name, kind), 0);
                  st.attachHost(job, host);
                  st.bind(job, Sched::UnitChoice{card, Sched::UnitChoice::Kind::Existing, uid});
                  st.setJobState(job, Sched::JobState::Running);
                  return job;
              };
    run("chat", Domain::WorkloadKind::Inference, mig, f.uidInference);
    const Domain::JobId bert = run("bert", Domain::WorkloadKind::Training, mig, f.uidTraining);
    const Domain::JobId llama
            = run("llama", Domain::WorkloadKind::Training, whole, st.card(whole).units.first().uid);
    const Domain::JobId waiting = st.addJob(spec("later", Domain::WorkloadKind::Batch), 0);
    if (const QString broken = st.checkInvariants(); !broken.isEmpty())
        qFatal("fixture: %s", qPrintable(broken));

    Snapshot &s = f.snapshot;
    s.serial = 7;
    s.nowMs = 1'767'577'200'000;
    s.simulated = true;
    s.applianceName = QStringLiteral("lab");
    s.policy = QStringLiteral("windows");
    s.window = QStringLiteral("day");
    s.budget.trainingMilli = 1500;
    s.budget.inferenceMilli = 2000;
    s.queue = {waiting};

    Session::CardSample c0;
    c0.card = 0;
    c0.utilisation = 0.5;
    c0.inferenceUtilisation = 0.375;
    c0.trainingUtilisation = 0.125;
    c0.memoryUsedMiB = st.card(mig).usedMemoryMiB; // the twin: what the bound instances hold
    c0.memoryTotalMiB = model.memoryMiB;
    c0.temperatureC = 61.5;
    c0.powerW = 402.25;
    c0.clockFactor = 0.9;
    c0.busyUnits = {f.uidInference, f.uidTraining};
    Session::CardSample c1;
    c1.card = 1;
    c1.utilisation = 0.8;
    c1.trainingUtilisation = 0.8;
    c1.memoryUsedMiB = 100'000;
    c1.memoryTotalMiB = model.memoryMiB;
    c1.temperatureC = 70;
    c1.powerW = 650;
    c1.busyUnits = {st.card(whole).units.first().uid};
    Session::CardSample c2;
    c2.card = 2;
    c2.lost = true;
    s.cards = {c0, c1, c2};

    Session::ServiceSample chat;
    chat.name = QStringLiteral("chat");
    chat.sloMs = 200;
    chat.p50Ms = 40;
    chat.p99Ms = 180.5;
    chat.ratePerS = 12.5;
    chat.attainment = 0.995;
    chat.replicas = 1;
    chat.targetReplicas = 2;
    s.services = {chat};
    Session::TrainingSample t1;
    t1.job = llama;
    t1.name = QStringLiteral("llama");
    t1.speed = 0.75;
    t1.loss = 2.25;
    t1.progress = 0.4;
    t1.workHours = 10;
    Session::TrainingSample t2;
    t2.job = bert;
    t2.name = QStringLiteral("bert");
    t2.speed = 0.1;
    t2.loss = kNaN;   // no loss reported yet
    t2.workHours = 0; // open-ended: no progress to tell
    s.training = {t1, t2};
    s.state = st;
    return f;
}

Exposition parsed(const QByteArray &text)
{
    Exposition e = Runtime::parseExposition(text);
    for (const Runtime::ParseError &err : e.errors)
        qWarning("%s", qPrintable(err.toString()));
    if (!e.errors.isEmpty()) // fails the test that asked, which goes on to its other checks
        QTest::qFail("the exposition has malformed lines", __FILE__, __LINE__);
    return e;
}

// The samples of `name` whose labels include every pair of `match`.
QList<Runtime::Sample> find(const Exposition &e, const QString &name, const Labels &match = {})
{
    QList<Runtime::Sample> r;
    for (const Runtime::Sample &s : e.samples(name)) {
        bool all = true;
        for (const auto &[k, v] : match)
            all = all && s.label(k) == v;
        if (all)
            r.append(s);
    }
    return r;
}

// The one value of `name` with `match`; NaN (and a failed check) when there is not exactly one.
double value(const Exposition &e, const QString &name, const Labels &match = {})
{
    const QList<Runtime::Sample> s = find(e, name, match);
    if (s.size() != 1) {
        qWarning("%s: %d samples", qPrintable(name), int(s.size()));
        return kNaN;
    }
    return s.first().value;
}

// The compute of card 0's busy instances, in cards.
double busyCompute(const Fixture &f)
{
    const Sched::ClusterState &st = f.snapshot.state;
    const Sched::CardState &c = st.cards()[0];
    return (st.unitMilli(c, *c.unit(f.uidInference)) + st.unitMilli(c, *c.unit(f.uidTraining)))
           / 1000.0;
}

Labels instance(int uid)
{
    return {{QStringLiteral("gpu"), QStringLiteral("0")},
            {QStringLiteral("GPU_I_ID"), QString::number(uid)}};
}

Labels card(int gpu)
{
    return {{QStringLiteral("gpu"), QString::number(gpu)}};
}

const QStringList kDcgmFamilies = {
        "DCGM_FI_DEV_GPU_UTIL",
        "DCGM_FI_DEV_FB_USED",
        "DCGM_FI_DEV_FB_FREE",
        "DCGM_FI_DEV_GPU_TEMP",
        "DCGM_FI_DEV_POWER_USAGE",
        "DCGM_FI_DEV_SM_CLOCK",
        "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
        "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
};

} // namespace

class TestExposition : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyFamilyIsATypedGauge()
    {
        const Fixture f = fixture();
        const Exposition e = parsed(Service::renderExposition(f.snapshot, {}));
        QVERIFY(e.errors.isEmpty());
        for (const QString &name : kDcgmFamilies) {
            const Runtime::Family *fam = e.family(name);
            QVERIFY2(fam, qPrintable(name));
            QVERIFY(fam->type == MetricType::Gauge);
            QVERIFY2(!fam->help.isEmpty(), qPrintable(name));
            QVERIFY2(!fam->samples.isEmpty(), qPrintable(name));
        }
        QVERIFY(e.family("zhaoxi_preemptions_total")->type == MetricType::Counter);
        QVERIFY(e.family("zhaoxi_inference_latency_seconds")->type == MetricType::Gauge);
    }

    void migInstancesCarryDcgmLabels()
    {
        const Fixture f = fixture();
        const Exposition e = parsed(Service::renderExposition(f.snapshot, {}));
        // One series per instance that exists (not the one being created), none for the card.
        const QList<Runtime::Sample> used = find(e, "DCGM_FI_DEV_FB_USED", card(0));
        QCOMPARE(used.size(), 3);
        for (const Runtime::Sample &s : used) {
            const QMap<QString, QString> store = Storage::Recorder::deviceLabels(
                    f.snapshot.state, 0, s.label(QStringLiteral("GPU_I_ID")).toInt());
            QCOMPARE(s.labels.size(), store.size());
            for (const auto &[k, v] : s.labels)
                QCOMPARE(v, store.value(k));
        }
        const Runtime::Sample s = find(e, "DCGM_FI_DEV_FB_USED", instance(f.uidInference)).first();
        QCOMPARE(s.label(QStringLiteral("UUID")), QStringLiteral("GPU-zhaoxi-node-a-0"));
        QCOMPARE(s.label(QStringLiteral("device")), QStringLiteral("nvidia0"));
        QCOMPARE(s.label(QStringLiteral("modelName")), QStringLiteral("H200-141GB"));
        QCOMPARE(s.label(QStringLiteral("Hostname")), QStringLiteral("node-a"));
        QCOMPARE(s.label(QStringLiteral("GPU_I_PROFILE")), QStringLiteral("3g.71gb"));
        // dcgm-exporter's order of the labels it writes.
        QStringList order;
        for (const auto &[k, v] : s.labels)
            order << k;
        QCOMPARE(order,
                 (QStringList{"gpu",
                              "UUID",
                              "device",
                              "modelName",
                              "GPU_I_PROFILE",
                              "GPU_I_ID",
                              "Hostname"}));
        QVERIFY(find(e, "DCGM_FI_DEV_FB_USED", instance(f.uidCreating)).isEmpty());
        // The whole card: no GPU_I_* labels.
        const Runtime::Sample w = find(e, "DCGM_FI_DEV_FB_USED", card(1)).first();
        QVERIFY(w.label(QStringLiteral("GPU_I_ID")).isNull());
        QVERIFY(w.label(QStringLiteral("GPU_I_PROFILE")).isNull());
        // The lost card is in no family.
        for (const QString &name : kDcgmFamilies)
            QVERIFY2(find(e, name, card(2)).isEmpty(), qPrintable(name));
    }

    void unitsAndModelledValues()
    {
        const Fixture f = fixture();
        const Exposition e = parsed(Service::renderExposition(f.snapshot, {}));
        const Domain::CardModel &h200 = *f.snapshot.state.catalogue().find("H200-141GB");
        const qint64 mem3g = h200.migProfiles[h200.profileIndex("3g.71gb")].memoryMiB;
        const qint64 mem1g = h200.migProfiles[h200.profileIndex("1g.18gb")].memoryMiB;

        // GPU_UTIL in %, only where the card is not in MIG mode.
        QVERIFY(find(e, "DCGM_FI_DEV_GPU_UTIL", card(0)).isEmpty());
        QCOMPARE(value(e, "DCGM_FI_DEV_GPU_UTIL", card(1)), 80.0);
        QCOMPARE(value(e, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", card(1)), 0.8);
        QCOMPARE(value(e, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", card(1)),
                 0.8 * Model::kTensorActiveTraining);
        // Memory in MiB: a bound instance holds its size on the twin, an idle one nothing.
        QCOMPARE(value(e, "DCGM_FI_DEV_FB_USED", instance(f.uidInference)), double(mem3g));
        QCOMPARE(value(e, "DCGM_FI_DEV_FB_FREE", instance(f.uidInference)), 0.0);
        QCOMPARE(value(e, "DCGM_FI_DEV_FB_USED", instance(f.uidIdle)), 0.0);
        QCOMPARE(value(e, "DCGM_FI_DEV_FB_FREE", instance(f.uidIdle)), double(mem1g));
        QCOMPARE(value(e, "DCGM_FI_DEV_FB_USED", card(1)), 100'000.0);
        QCOMPARE(value(e, "DCGM_FI_DEV_FB_FREE", card(1)), double(h200.memoryMiB - 100'000));
        // Card-wide readings repeated on every instance, as DCGM reports them.
        for (int uid : {f.uidInference, f.uidTraining, f.uidIdle}) {
            QCOMPARE(value(e, "DCGM_FI_DEV_GPU_TEMP", instance(uid)), 61.5);
            QCOMPARE(value(e, "DCGM_FI_DEV_POWER_USAGE", instance(uid)), 402.25);
            QCOMPARE(value(e, "DCGM_FI_DEV_SM_CLOCK", instance(uid)), std::round(1980 * 0.9));
        }
        QCOMPARE(value(e, "DCGM_FI_DEV_SM_CLOCK", card(1)), 1980.0);
        // The card's 50 % shared over its busy 3/7 + 1/7 of compute (in the scheduler's
        // milli-cards): each busy instance about 7/8 busy.
        const double busy = 0.5 / busyCompute(f);
        QCOMPARE(value(e, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", instance(f.uidInference)), busy);
        QCOMPARE(value(e, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", instance(f.uidTraining)), busy);
        QCOMPARE(value(e, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", instance(f.uidIdle)), 0.0);
        QCOMPARE(value(e, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", instance(f.uidInference)),
                 busy * Model::kTensorActiveInference);
        QCOMPARE(value(e, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", instance(f.uidTraining)),
                 busy * Model::kTensorActiveTraining);
        QCOMPARE(value(e, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", instance(f.uidIdle)), 0.0);
        // Ratios stay within 0..1.
        for (const QString &name : {QStringLiteral("DCGM_FI_PROF_GR_ENGINE_ACTIVE"),
                                    QStringLiteral("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE")}) {
            for (const Runtime::Sample &s : e.samples(name))
                QVERIFY2(s.value >= 0 && s.value <= 1, qPrintable(name));
        }
    }

    void memoryOfARealMigCardIsSharedBySize()
    {
        // A real card's used memory is whatever its processes hold: shared over the bound
        // instances by their size, never above an instance's size.
        Fixture f = fixture();
        f.snapshot.cards[0].memoryUsedMiB = 30'000;
        const Domain::CardModel &h200 = *f.snapshot.state.catalogue().find("H200-141GB");
        const Sched::CardState &c = f.snapshot.state.cards()[0];
        const qint64 a = c.unit(f.uidInference)->memoryMiB;
        const qint64 b = c.unit(f.uidTraining)->memoryMiB;
        const Exposition e = parsed(Service::renderExposition(f.snapshot, {}));
        QCOMPARE(value(e, "DCGM_FI_DEV_FB_USED", instance(f.uidInference)),
                 std::round(30'000.0 * double(a) / double(a + b)));
        QCOMPARE(value(e, "DCGM_FI_DEV_FB_USED", instance(f.uidTraining)),
                 std::round(30'000.0 * double(b) / double(a + b)));
        QCOMPARE(value(e, "DCGM_FI_DEV_FB_FREE", instance(f.uidTraining)),
                 double(h200.migProfiles[h200.profileIndex("1g.18gb")].memoryMiB)
                         - std::round(30'000.0 * double(b) / double(a + b)));
    }

    void unknownReadingsAreLeftOut()
    {
        // A real MIG card: NVML gives no utilisation and (here) no per-process split, and the
        // backend reads no clocks.
        Fixture f = fixture();
        f.snapshot.simulated = false;
        f.snapshot.cards[0].utilisation = kNaN;
        f.snapshot.cards[0].clockFactor = kNaN;
        f.snapshot.cards[1].utilisation = kNaN;
        f.snapshot.services[0].p50Ms = 0; // the real appliance has only the p99
        Exposition e = parsed(Service::renderExposition(f.snapshot, {}));
        QVERIFY(e.errors.isEmpty());
        QVERIFY(find(e, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", card(0)).isEmpty());
        QVERIFY(find(e, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", card(0)).isEmpty());
        QVERIFY(find(e, "DCGM_FI_DEV_SM_CLOCK", card(0)).isEmpty());
        QVERIFY(find(e, "DCGM_FI_DEV_GPU_UTIL", card(1)).isEmpty());
        QVERIFY(find(e, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", card(1)).isEmpty());
        QCOMPARE(find(e, "DCGM_FI_DEV_GPU_TEMP", card(0)).size(), 3); // still known
        QVERIFY(find(e, "zhaoxi_inference_latency_seconds", {{"quantile", "0.5"}}).isEmpty());
        QCOMPARE(value(e, "zhaoxi_inference_latency_seconds", {{"quantile", "0.99"}}), 0.1805);
        // A real job reports samples per second, not the twin's reference-card speed.
        QVERIFY(!e.family("zhaoxi_training_speed_reference_cards"));
        QCOMPARE(value(e, "zhaoxi_training_throughput_samples_per_second", {{"name", "llama"}}),
                 0.75);

        // Per-process utilisation measured: the classes' sum stands for the card's.
        f.snapshot.cards[0].utilisationMeasuredPerProcess = true;
        e = parsed(Service::renderExposition(f.snapshot, {}));
        QCOMPARE(value(e, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", instance(f.uidTraining)),
                 0.5 / busyCompute(f));

        // A model without maxSmClockMHz: no SM clock, whatever its clock factor.
        Catalogue::Catalogue cat = Catalogue::Catalogue::builtIn();
        Domain::CardModel h200 = *cat.find("H200-141GB");
        h200.maxSmClockMHz = 0;
        cat.add(h200);
        e = parsed(Service::renderExposition(fixture(cat).snapshot, {}));
        QVERIFY(e.family("DCGM_FI_DEV_SM_CLOCK"));
        QVERIFY(e.samples("DCGM_FI_DEV_SM_CLOCK").isEmpty());
        QCOMPARE(find(e, "DCGM_FI_DEV_GPU_TEMP").size(), 4);
    }

    void applianceSeries()
    {
        const Fixture f = fixture();
        const Exposition e = parsed(Service::renderExposition(f.snapshot, {}));
        const Runtime::Sample info = e.samples("zhaoxi_appliance_info").first();
        QCOMPARE(info.value, 1.0);
        QCOMPARE(info.label("appliance"), QStringLiteral("lab"));
        QCOMPARE(info.label("policy"), QStringLiteral("windows"));
        QCOMPARE(info.label("window"), QStringLiteral("day"));
        QCOMPARE(info.label("simulated"), QStringLiteral("true"));
        QCOMPARE(value(e, "zhaoxi_snapshot_timestamp_seconds"), 1'767'577'200.0);
        // Two H200 cards and a T4 (lost to the driver, still healthy to the scheduler).
        QCOMPARE(value(e, "zhaoxi_capacity_cards"), 3.0);
        const double threeSevenths = double(3 * 1000 / 7) / 1000.0;
        const double oneSeventh = double(1000 / 7) / 1000.0;
        QCOMPARE(value(e, "zhaoxi_class_allocated_cards", {{"class", "inference"}}), threeSevenths);
        QCOMPARE(value(e, "zhaoxi_class_allocated_cards", {{"class", "training"}}),
                 1.0 + oneSeventh);
        QCOMPARE(value(e, "zhaoxi_class_allocated_cards", {{"class", "batch"}}), 0.0);
        QCOMPARE(value(e, "zhaoxi_class_budget_cards", {{"class", "training"}}), 1.5);
        QCOMPARE(value(e, "zhaoxi_class_budget_cards", {{"class", "inference"}}), 2.0);
        QVERIFY(std::isinf(value(e, "zhaoxi_class_budget_cards", {{"class", "batch"}})));
        QCOMPARE(value(e, "zhaoxi_class_busy_cards", {{"class", "training"}}), 0.925);
        QCOMPARE(value(e, "zhaoxi_class_busy_cards", {{"class", "inference"}}), 0.375);
        QCOMPARE(value(e, "zhaoxi_queue_length"), 1.0);

        const Labels chat = {{"service", "chat"}};
        QCOMPARE(value(e, "zhaoxi_inference_latency_seconds", chat + Labels{{"quantile", "0.5"}}),
                 0.04);
        QCOMPARE(value(e, "zhaoxi_inference_latency_seconds", chat + Labels{{"quantile", "0.99"}}),
                 0.1805);
        QCOMPARE(value(e, "zhaoxi_inference_slo_seconds", chat), 0.2);
        QCOMPARE(value(e, "zhaoxi_inference_slo_attainment_ratio", chat), 0.995);
        QCOMPARE(value(e, "zhaoxi_inference_requests_per_second", chat), 12.5);
        QCOMPARE(value(e, "zhaoxi_inference_replicas", chat), 1.0);
        QCOMPARE(value(e, "zhaoxi_inference_replicas_target", chat), 2.0);

        const Labels llama = {{"name", "llama"}, {"job_id", "2"}};
        QCOMPARE(value(e, "zhaoxi_training_speed_reference_cards", llama), 0.75);
        QCOMPARE(value(e, "zhaoxi_training_progress_ratio", llama), 0.4);
        QCOMPARE(value(e, "zhaoxi_training_loss", llama), 2.25);
        QVERIFY(!e.family("zhaoxi_training_throughput_samples_per_second"));
        // bert: open-ended (no progress) and no loss yet.
        QCOMPARE(value(e, "zhaoxi_training_speed_reference_cards", {{"name", "bert"}}), 0.1);
        QVERIFY(find(e, "zhaoxi_training_progress_ratio", {{"name", "bert"}}).isEmpty());
        QVERIFY(find(e, "zhaoxi_training_loss", {{"name", "bert"}}).isEmpty());
    }

    void labelValuesAreEscaped()
    {
        Fixture f = fixture();
        const QString odd = QStringLiteral("say \"hi\"\\n\nline two 朝夕");
        f.snapshot.services[0].name = odd;
        f.snapshot.applianceName = odd;
        const Exposition e = parsed(Service::renderExposition(f.snapshot, {}));
        QVERIFY(e.errors.isEmpty());
        QCOMPARE(e.samples("zhaoxi_appliance_info").first().label("appliance"), odd);
        QCOMPARE(value(e, "zhaoxi_inference_replicas", {{"service", odd}}), 1.0);
    }

    void countersFollowTheEvents()
    {
        const auto event = [](qint64 id, const char *code, const char *params = "") {
            Storage::Event e;
            e.id = id;
            e.code = code;
            e.params = params;
            return e;
        };
        Fixture f = fixture();
        f.snapshot.events = {
                event(1, "job-preempting", R"({"other":4,"host":0})"),
                event(2, "job-preempting", R"({"host":0})"), // a requeue at a checkpoint
                event(3, "job-evicted", R"({"workLostMs":0})"),
                event(4, "partition-destroyed"),
                event(5, "partition-created"),
                event(6, "partition-created"),
                event(7, "card-mode-changed", R"({"mode":"mig"})"),
                event(8, "window-switch", R"({"windowIndex":1})"), // announced ahead
                event(9, "window-opened", R"({"windowIndex":1})"),
                event(10, "job-placed"),
        };
        MetricsExporter exporter;
        QVERIFY(parsed(exporter.render()).errors.isEmpty()); // before any snapshot
        QCOMPARE(value(parsed(exporter.render()), "zhaoxi_snapshots_total"), 0.0);
        QVERIFY(parsed(exporter.render()).samples("DCGM_FI_DEV_GPU_TEMP").isEmpty());

        exporter.observe(f.snapshot);
        MetricCounters want;
        want.snapshots = 1;
        want.preemptions = 1;
        want.evictions = 1;
        want.partitionsCreated = 2;
        want.partitionsDestroyed = 1;
        want.modeChanges = 1;
        want.windowSwitches = 1;
        QCOMPARE(exporter.counters(), want);
        // The same snapshot again counts nothing; the next one adds only its new events.
        exporter.observe(f.snapshot);
        QCOMPARE(exporter.counters(), want);
        f.snapshot.serial = 8;
        f.snapshot.events = {event(10, "job-placed"), event(11, "job-evicted")};
        exporter.observe(f.snapshot);
        ++want.snapshots;
        ++want.evictions;
        QCOMPARE(exporter.counters(), want);

        const Exposition e = parsed(exporter.render());
        QVERIFY(e.errors.isEmpty());
        QCOMPARE(value(e, "zhaoxi_snapshots_total"), 2.0);
        QCOMPARE(value(e, "zhaoxi_preemptions_total"), 1.0);
        QCOMPARE(value(e, "zhaoxi_evictions_total"), 2.0);
        QCOMPARE(value(e, "zhaoxi_reconfigurations_total", {{"step", "create"}}), 2.0);
        QCOMPARE(value(e, "zhaoxi_reconfigurations_total", {{"step", "destroy"}}), 1.0);
        QCOMPARE(value(e, "zhaoxi_reconfigurations_total", {{"step", "mode"}}), 1.0);
        QCOMPARE(value(e, "zhaoxi_window_switches_total"), 1.0);
        QVERIFY(e.family("zhaoxi_window_switches_total")->type == MetricType::Counter);
        // The latest snapshot's readings come with them.
        QCOMPARE(value(e, "DCGM_FI_DEV_GPU_TEMP", card(1)), 70.0);
    }

    void exporterKeepsLabelsUpToDate()
    {
        // The exporter keeps label sets between renders: they must follow a changed layout and
        // UUIDs the backend learns later.
        Fixture f = fixture();
        MetricsExporter exporter;
        exporter.observe(f.snapshot);
        const QByteArray first = exporter.render();
        QCOMPARE(first, Service::renderExposition(f.snapshot, exporter.counters()));

        Sched::ClusterState st = f.snapshot.state;
        st.destroyPartition(Domain::CardId(0), f.uidIdle);
        const Domain::CardModel &h200 = *st.catalogue().find("H200-141GB");
        const int uid = st.createPartition(Domain::CardId(0), h200.profileIndex("1g.18gb"), 5);
        QVERIFY(uid != f.uidIdle);
        f.snapshot.state = st;
        f.snapshot.serial = 8;
        exporter.setCardUuids({QStringLiteral("GPU-real-0")});
        exporter.observe(f.snapshot);
        const QByteArray second = exporter.render();
        QCOMPARE(second,
                 Service::renderExposition(
                         f.snapshot, exporter.counters(), {QStringLiteral("GPU-real-0")}));
        const Exposition e = parsed(second);
        QCOMPARE(find(e, "DCGM_FI_DEV_FB_USED", instance(uid)).size(), 1);
        QVERIFY(find(e, "DCGM_FI_DEV_FB_USED", instance(f.uidIdle)).isEmpty());
        QCOMPARE(find(e, "DCGM_FI_DEV_FB_USED", {{"UUID", "GPU-real-0"}}).size(), 3);
        QCOMPARE(find(e, "DCGM_FI_DEV_FB_USED", {{"UUID", "GPU-zhaoxi-node-a-1"}}).size(), 1);
    }
};

QTEST_GUILESS_MAIN(TestExposition)
#include "tst_exposition.moc"
