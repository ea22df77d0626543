// SPDX-License-Identifier: GPL-3.0-or-later
// The real-process runtime's own costs (issue 13), on this machine with real processes:
//   1. submit -> process running: from Scheduler submit to the job's process exec'd (median, p90);
//   2. checkpoint signal -> card free: from the drain's signal to the checkpoint's acknowledgement
//      and to the process gone (the card free for the next job);
//   3. the runtime's own CPU while it watches 40 training jobs and scrapes 64 inference replicas
//      (zhaoxi-demo-infer) at 1 Hz, as a share of one core (its children not counted).
// Prints figures; asserts nothing.
//
//   bench_runtime [--samples N] [--seconds S] [--replicas N] [--jobs N]
#include "core/catalogue/catalogue.h"
#include "core/runtime/processworkloads.h"
#include "core/runtime/promtext.h"
#include "core/runtime/scraper.h"
#include "core/sched/scheduler.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>
#include <QUrl>

#include <algorithm>
#include <cstdio>

#include <sys/resource.h>

using namespace Zhaoxi;

namespace {

int argValue(const QStringList &args, const QString &name, int fallback)
{
    const int i = args.indexOf(name);
    return i >= 0 && i + 1 < args.size() ? args[i + 1].toInt() : fallback;
}

double percentile(QList<double> v, double q)
{
    if (v.isEmpty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[std::min<qsizetype>(v.size() - 1, qsizetype(q * double(v.size())))];
}

double cpuSeconds()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec)
           + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

Sched::ClusterState cards(int hosts, int perHost)
{
    const Catalogue::Catalogue cat = Catalogue::Catalogue::builtIn();
    Sched::ClusterState s(cat);
    for (int h = 0; h < hosts; ++h) {
        const Domain::HostId host = s.addHost(QStringLiteral("h%1").arg(h), 1024'000, 16 << 20);
        for (int c = 0; c < perHost; ++c)
            s.addCard(host,
                      cat.indexOf(QStringLiteral("H100-SXM5-80GB")),
                      Domain::PartitionMode::Whole);
    }
    return s;
}

Domain::WorkloadSpec job(const QString &name, Domain::WorkloadKind kind, const QStringList &command)
{
    Domain::WorkloadSpec s;
    s.name = name;
    s.kind = kind;
    s.demand.compute.kind = Domain::ComputeDemand::Kind::WholeCard;
    s.time.expectedDurationMs = 3600'000;
    if (kind == Domain::WorkloadKind::Inference) {
        s.inference = Domain::InferenceSpec{};
        s.inference->service = name;
        s.inference->sloP99Ms = 100;
    } else {
        s.preemption = Domain::PreemptionTolerance::AtCheckpoint;
        s.checkpointIntervalMs = 60'000;
    }
    Domain::RunSpec r;
    r.command = command;
    r.stopGraceMs = 5000;
    r.progressTimeoutMs = 0;
    s.run = r;
    return s;
}

struct Rig
{
    QTemporaryDir dir;
    Sched::Scheduler sched;
    Runtime::ProcessRunner runner;
    Runtime::ProcessWorkloads work;
    static Runtime::UnitIds ids()
    {
        Runtime::UnitIds u;
        u.cardUuid = [](Domain::CardId c) {
            return QStringLiteral("GPU-00000000-0000-0000-0000-%1")
                    .arg(c.value(), 12, 10, QLatin1Char('0'));
        };
        return u;
    }
    static Sched::SchedulerOptions options()
    {
        Sched::SchedulerOptions o;
        o.preemption.checkpointOnRequest = true;
        return o;
    }
    static Runtime::ProcessWorkloads::Options workOptions(const QString &d)
    {
        Runtime::ProcessWorkloads::Options o;
        o.dataDir = d;
        return o;
    }
    Rig(int hosts, int perHost)
        : sched(cards(hosts, perHost), Sched::defaultProfile(), options())
        , runner(Runtime::ProcessRunner::Options{QStringLiteral(SHIM_PATH), 100})
        , work(sched, runner, ids(), workOptions(dir.path()))
    {
        QObject::connect(&work, &Runtime::ProcessWorkloads::changed, &work, [this] { tick(); });
    }
    static qint64 now() { return QDateTime::currentMSecsSinceEpoch(); }
    void tick()
    {
        sched.tick(now());
        work.sync(now());
    }
    void waitFor(const std::function<bool()> &done, int ms = 30'000)
    {
        QElapsedTimer t;
        t.start();
        while (!done() && t.elapsed() < ms) {
            QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
            QThread::usleep(500);
        }
    }
    int count(Runtime::ProcessEventCode code, Domain::JobId j) const
    {
        int n = 0;
        for (const Runtime::ProcessEvent &e : work.events())
            n += e.code == code && e.job == j;
        return n;
    }
};

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    const int samples = argValue(args, QStringLiteral("--samples"), 50);
    const int seconds = argValue(args, QStringLiteral("--seconds"), 30);
    const int replicas = argValue(args, QStringLiteral("--replicas"), 64);
    const int jobs = argValue(args, QStringLiteral("--jobs"), 40);

    // 1. Submit -> running.
    {
        Rig rig(1, 1);
        QList<double> ms;
        for (int i = 0; i < samples; ++i) {
            QElapsedTimer t;
            t.start();
            const Domain::JobId id
                    = rig.work.submit(job(QStringLiteral("s%1").arg(i),
                                          Domain::WorkloadKind::Batch,
                                          {QStringLiteral("/bin/sleep"), QStringLiteral("30")}),
                                      Rig::now(),
                                      nullptr);
            rig.tick();
            if (rig.count(Runtime::ProcessEventCode::Started, id) == 1)
                ms << double(t.nsecsElapsed()) / 1e6;
            rig.sched.cancel(id, Rig::now());
            rig.tick();
            rig.waitFor([&] { return rig.work.processKeys(id).isEmpty(); });
        }
        std::printf("submit -> running: %lld samples, median %.2f ms, p90 %.2f ms, max %.2f ms\n",
                    qlonglong(ms.size()),
                    percentile(ms, 0.5),
                    percentile(ms, 0.9),
                    percentile(ms, 1.0));
    }

    // 2. Checkpoint signal -> acknowledged -> card free: a higher-priority job takes the only
    //    card; the trainer is signalled, acknowledges, leaves, and the newcomer starts.
    {
        Rig rig(1, 1);
        QList<double> ack, free, freeAfterAck;
        for (int i = 0; i < std::max(5, samples / 5); ++i) {
            const Domain::JobId id = rig.work.submit(job(QStringLiteral("t%1").arg(i),
                                                         Domain::WorkloadKind::Training,
                                                         {QStringLiteral(DEMO_TRAIN_PATH),
                                                          QStringLiteral("--steps"),
                                                          QStringLiteral("1000000"),
                                                          QStringLiteral("--step-ms"),
                                                          QStringLiteral("20")}),
                                                     Rig::now(),
                                                     nullptr);
            rig.tick();
            rig.waitFor([&] { return rig.work.stats(id).lastStep >= 5; });
            Domain::WorkloadSpec urgentSpec
                    = job(QStringLiteral("u%1").arg(i),
                          Domain::WorkloadKind::Batch,
                          {QStringLiteral("/bin/sleep"), QStringLiteral("30")});
            urgentSpec.priority = 10;
            QElapsedTimer t;
            t.start();
            const Domain::JobId urgent = rig.work.submit(urgentSpec, Rig::now(), nullptr);
            rig.tick(); // the trainer is chosen and signalled
            double ackMs = -1;
            rig.waitFor([&] {
                if (ackMs < 0
                    && rig.count(Runtime::ProcessEventCode::CheckpointAcknowledged, id) > 0)
                    ackMs = double(t.nsecsElapsed()) / 1e6;
                return rig.count(Runtime::ProcessEventCode::Started, urgent) > 0;
            });
            const double freeMs = double(t.nsecsElapsed()) / 1e6;
            ack << ackMs;
            free << freeMs;
            freeAfterAck << freeMs - ackMs;
            rig.sched.cancel(urgent, Rig::now());
            rig.sched.cancel(id, Rig::now());
            rig.tick();
            rig.waitFor([&] { return rig.work.liveProcesses().isEmpty(); });
        }
        std::printf("checkpoint signal -> acknowledged: median %.1f ms (the job ends its 20 ms "
                    "step and saves); -> the card's next job running: median %.1f ms, max %.1f "
                    "ms; after the acknowledgement: median %.1f ms, max %.1f ms\n",
                    percentile(ack, 0.5),
                    percentile(free, 0.5),
                    percentile(free, 1.0),
                    percentile(freeAfterAck, 0.5),
                    percentile(freeAfterAck, 1.0));
    }

    // 3. The runtime's own CPU: jobs watched, replicas scraped at 1 Hz.
    {
        Rig rig(2, (replicas + jobs + 1) / 2);
        QList<Domain::JobId> infer;
        for (int i = 0; i < replicas; ++i)
            infer << rig.work.submit(job(QStringLiteral("r%1").arg(i),
                                         Domain::WorkloadKind::Inference,
                                         {QStringLiteral(DEMO_INFER_PATH),
                                          QStringLiteral("--service-ms"),
                                          QStringLiteral("5")}),
                                     Rig::now(),
                                     nullptr);
        for (int i = 0; i < jobs; ++i)
            rig.work.submit(job(QStringLiteral("j%1").arg(i),
                                Domain::WorkloadKind::Training,
                                {QStringLiteral(DEMO_TRAIN_PATH),
                                 QStringLiteral("--steps"),
                                 QStringLiteral("1000000"),
                                 QStringLiteral("--step-ms"),
                                 QStringLiteral("1000")}),
                            Rig::now(),
                            nullptr);
        rig.tick();
        Runtime::Scraper scraper;
        int scrapes = 0, failed = 0;
        QHash<QString, Runtime::Scrape> last;
        const Runtime::MetricNames names = Runtime::metricPreset(QStringLiteral("vllm"));
        QObject::connect(&scraper,
                         &Runtime::Scraper::scraped,
                         &app,
                         [&](const QString &key, const Runtime::Scrape &s) {
                             ++scrapes;
                             if (!s.ok()) {
                                 ++failed;
                                 return;
                             }
                             if (last.contains(key))
                                 Runtime::windowBetween(last[key], s, names);
                             last[key] = s;
                         });
        QThread::sleep(2); // let the replicas bind their ports
        rig.waitFor([] { return false; }, 1000);
        const qint64 live = rig.work.liveProcesses().size();
        // Driven by timers as the live run is: the figure is the runtime's, not a polling loop's
        // (one that woke every 5 ms added about 0.6 % of a core by itself).
        int rounds = 0;
        const auto scrapeAll = [&] {
            ++rounds;
            for (const Domain::JobId id : std::as_const(infer)) {
                const int port = rig.work.stats(id).port;
                scraper.scrape(QString::number(id.value()),
                               QUrl(QStringLiteral("http://127.0.0.1:%1/metrics").arg(port)));
            }
            rig.tick();
        };
        QEventLoop loop;
        QTimer every;
        every.setTimerType(Qt::PreciseTimer);
        every.setInterval(1000);
        QObject::connect(&every, &QTimer::timeout, &loop, [&] {
            if (rounds < seconds)
                scrapeAll();
        });
        QTimer::singleShot(seconds * 1000, Qt::PreciseTimer, &loop, &QEventLoop::quit);
        const double cpu0 = cpuSeconds();
        QElapsedTimer wall;
        wall.start();
        every.start();
        scrapeAll();
        loop.exec();
        const double cpu = cpuSeconds() - cpu0;
        const double secs = double(wall.elapsed()) / 1000.0;
        std::printf("runtime CPU: %lld processes watched (%d replicas scraped at 1 Hz, %d jobs), "
                    "%d scrapes (%d failed) in %.1f s: %.2f %% of one core\n",
                    qlonglong(live),
                    replicas,
                    jobs,
                    scrapes,
                    failed,
                    secs,
                    100.0 * cpu / secs);
        const QStringList alive = rig.work.stopAll(20'000);
        if (!alive.isEmpty())
            std::printf("left alive: %s\n", qPrintable(alive.join(QLatin1Char(' '))));
    }
    return 0;
}
