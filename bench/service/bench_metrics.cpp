// SPDX-License-Identifier: GPL-3.0-or-later
// What one Prometheus scrape of the service's /metrics costs to render (issue 15): 64 H200 cards
// on 8 hosts, each in MIG mode with seven 1g.18gb instances (448 instance series sets), most
// bound and busy, 8 services and 32 training jobs. Prints milliseconds per render (median and
// best of rounds) for the exporter as the service keeps it (label sets kept between scrapes)
// and for a first render (renderExposition, label sets built from nothing); the target
// is under 5 ms. Asserts nothing.
//
//   bench_metrics [--rounds N] [--print]   (--print: write the text itself and stop)
#include "core/catalogue/catalogue.h"
#include "core/service/exposition.h"

#include <QCoreApplication>
#include <QElapsedTimer>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace Zhaoxi;

namespace {

int argValue(const QStringList &args, const QString &name, int fallback)
{
    const int i = args.indexOf(name);
    return i >= 0 && i + 1 < args.size() ? args[i + 1].toInt() : fallback;
}

Session::SnapshotPtr bigAppliance()
{
    const Catalogue::Catalogue catalogue = Catalogue::Catalogue::builtIn();
    const int h200 = catalogue.indexOf(QStringLiteral("H200-141GB"));
    const Domain::CardModel &model = catalogue.models()[h200];
    const int p1g = model.profileIndex(QStringLiteral("1g.18gb"));
    auto s = std::make_shared<Session::Snapshot>();
    Sched::ClusterState st(catalogue);
    int jobIndex = 0;
    for (int h = 0; h < 8; ++h) {
        const Domain::HostId host
                = st.addHost(QStringLiteral("dgx-%1").arg(h), 224'000, 2048 * 1024);
        for (int c = 0; c < 8; ++c) {
            const Domain::CardId card = st.addCard(host, h200, Domain::PartitionMode::Mig);
            Session::CardSample cs;
            cs.card = card.value();
            for (int slot = 0; slot < 7; ++slot) {
                const int uid = st.createPartition(card, p1g, slot);
                if (slot == 6)
                    continue; // one idle instance per card
                Domain::WorkloadSpec spec;
                const bool inference = slot < 3;
                spec.name = inference ? QStringLiteral("svc-%1").arg(jobIndex % 8)
                                      : QStringLiteral("train-%1").arg(jobIndex % 32);
                spec.kind = inference ? Domain::WorkloadKind::Inference
                                      : Domain::WorkloadKind::Training;
                const Domain::JobId job = st.addJob(spec, 0);
                st.attachHost(job, host);
                st.bind(job, Sched::UnitChoice{card, Sched::UnitChoice::Kind::Existing, uid});
                st.setJobState(job, Sched::JobState::Running);
                ++jobIndex;
                if (slot != 5)
                    cs.busyUnits.append(uid);
            }
            cs.utilisation = 0.55 + 0.01 * c;
            cs.inferenceUtilisation = cs.utilisation * 0.4;
            cs.trainingUtilisation = cs.utilisation * 0.6;
            cs.memoryUsedMiB = st.card(card).usedMemoryMiB;
            cs.memoryTotalMiB = model.memoryMiB;
            cs.temperatureC = 55.25 + h + 0.5 * c;
            cs.powerW = 431.5 + 3 * c;
            cs.clockFactor = c == 7 ? 0.85 : 1.0;
            s->cards.append(cs);
        }
    }
    for (int i = 0; i < 8; ++i) {
        Session::ServiceSample v;
        v.index = i;
        v.name = QStringLiteral("svc-%1").arg(i);
        v.sloMs = 1000;
        v.p50Ms = 42.5 + i;
        v.p99Ms = 310.25 + 10 * i;
        v.ratePerS = 17.5;
        v.attainment = 0.999;
        v.replicas = v.targetReplicas = 24;
        s->services.append(v);
    }
    for (int i = 0; i < 32; ++i) {
        Session::TrainingSample t;
        t.job = Domain::JobId(i);
        t.name = QStringLiteral("train-%1").arg(i);
        t.speed = 0.8;
        t.loss = 2.5 - 0.01 * i;
        t.progress = 0.25;
        t.workHours = 100;
        s->training.append(t);
    }
    s->serial = 1;
    s->applianceName = QStringLiteral("bench");
    s->policy = QStringLiteral("windows");
    s->state = st;
    return s;
}

template<typename F>
std::vector<double> timeRounds(int rounds, F &&f)
{
    std::vector<double> ms;
    for (int r = 0; r < rounds; ++r) {
        QElapsedTimer t;
        t.start();
        f();
        ms.push_back(double(t.nsecsElapsed()) / 1e6);
    }
    std::sort(ms.begin(), ms.end());
    return ms;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const int rounds = std::max(1, argValue(app.arguments(), QStringLiteral("--rounds"), 200));
    const Session::SnapshotPtr snapshot = bigAppliance();
    qsizetype instances = 0;
    for (const Sched::CardState &c : snapshot->state.cards())
        instances += c.units.size();

    Service::MetricsExporter exporter;
    exporter.observe(snapshot);
    if (app.arguments().contains(QStringLiteral("--print"))) {
        const QByteArray text = exporter.render();
        std::fwrite(text.constData(), 1, std::size_t(text.size()), stdout);
        return 0;
    }
    qsizetype bytes = exporter.render().size(); // the first scrape builds the label sets
    const std::vector<double> warm = timeRounds(rounds, [&] { bytes = exporter.render().size(); });
    const std::vector<double> cold = timeRounds(rounds, [&] {
        bytes = Service::renderExposition(*snapshot, exporter.counters()).size();
    });
    std::printf("/metrics for %lld cards x %lld MIG instances (%lld bytes, %d rounds)\n",
                qlonglong(snapshot->cards.size()),
                qlonglong(instances / std::max<qsizetype>(1, snapshot->cards.size())),
                qlonglong(bytes),
                rounds);
    std::printf("  exporter (label sets kept):  median %.3f ms, best %.3f ms\n",
                warm[warm.size() / 2],
                warm.front());
    std::printf("  first render (sets built):   median %.3f ms, best %.3f ms\n",
                cold[cold.size() / 2],
                cold.front());
    return 0;
}
