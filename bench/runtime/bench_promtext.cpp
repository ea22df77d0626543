// SPDX-License-Identifier: GPL-3.0-or-later
// What reading one replica's /metrics costs the runtime (issue 13), without the network: the page
// zhaoxi-demo-infer serves (vLLM's names, 24 latency buckets), parsed as the scraper does
// (parseExposition), and the window between two such scrapes as the live run takes it
// (windowBetween, vLLM names). Prints microseconds per call (median of rounds); asserts nothing.
//
//   bench_promtext [--rounds N] [--calls N]
#include "core/runtime/promtext.h"

#include <QCoreApplication>
#include <QElapsedTimer>

#include <algorithm>
#include <cstdio>

using namespace Zhaoxi::Runtime;

namespace {

int argValue(const QStringList &args, const QString &name, int fallback)
{
    const int i = args.indexOf(name);
    return i >= 0 && i + 1 < args.size() ? args[i + 1].toInt() : fallback;
}

// The text zhaoxi-demo-infer's metrics() writes, `served` requests into its run.
QByteArray demoPage(qint64 served)
{
    static const double bounds[]
            = {0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1,  0.15, 0.2,  0.3,  0.5,  0.8,
               1.0,   1.5,  2.0,  2.5,  5.0,  10.0,  15.0, 20.0, 30.0, 40.0, 50.0, 60.0};
    const QByteArray label = "model_name=\"demo\"";
    QByteArray t;
    t += "# HELP vllm:num_requests_running Number of requests currently running on GPU.\n"
         "# TYPE vllm:num_requests_running gauge\n"
         "vllm:num_requests_running{"
         + label + "} 1\n";
    t += "# HELP vllm:num_requests_waiting Number of requests waiting to be processed.\n"
         "# TYPE vllm:num_requests_waiting gauge\n"
         "vllm:num_requests_waiting{"
         + label + "} 3\n";
    t += "# HELP vllm:request_success_total Count of successfully processed requests.\n"
         "# TYPE vllm:request_success_total counter\n"
         "vllm:request_success_total{finished_reason=\"stop\","
         + label + "} " + QByteArray::number(served) + "\n";
    t += "# HELP vllm:e2e_request_latency_seconds Histogram of end to end request latency in "
         "seconds.\n"
         "# TYPE vllm:e2e_request_latency_seconds histogram\n";
    qint64 cumulative = 0;
    for (int i = 0; i < 24; ++i) {
        cumulative = std::min(served, cumulative + served / 12);
        t += "vllm:e2e_request_latency_seconds_bucket{le=\"" + QByteArray::number(bounds[i]) + "\","
             + label + "} " + QByteArray::number(cumulative) + "\n";
    }
    t += "vllm:e2e_request_latency_seconds_bucket{le=\"+Inf\"," + label + "} "
         + QByteArray::number(served) + "\n";
    t += "vllm:e2e_request_latency_seconds_sum{" + label + "} "
         + QByteArray::number(double(served) * 0.0061, 'g', 12) + "\n";
    t += "vllm:e2e_request_latency_seconds_count{" + label + "} " + QByteArray::number(served)
         + "\n";
    return t;
}

template<typename F>
double medianMicros(int rounds, int calls, F &&f)
{
    QList<double> us;
    for (int r = 0; r < rounds; ++r) {
        QElapsedTimer t;
        t.start();
        for (int c = 0; c < calls; ++c)
            f();
        us << double(t.nsecsElapsed()) / 1000.0 / calls;
    }
    std::sort(us.begin(), us.end());
    return us.at(us.size() / 2);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    const int rounds = std::max(1, argValue(args, QStringLiteral("--rounds"), 15));
    const int calls = std::max(1, argValue(args, QStringLiteral("--calls"), 2000));

    const QByteArray before = demoPage(12'000);
    const QByteArray after = demoPage(12'200);
    Scrape a;
    a.readAtMs = 1000;
    a.httpStatus = 200;
    a.metrics = parseExposition(before);
    Scrape b = a;
    b.readAtMs = 2000;
    b.metrics = parseExposition(after);
    const MetricNames names = metricPreset(QStringLiteral("vllm"));

    volatile qsizetype sink = 0;
    const double parseUs = medianMicros(
            rounds, calls, [&] { sink = sink + parseExposition(after).families.size(); });
    volatile double sinkD = 0;
    const double windowUs = medianMicros(
            rounds, calls, [&] { sinkD = sinkD + windowBetween(a, b, names).requests; });
    // What the live run does per scrape: a fresh parse, then the window from the last one.
    const double bothUs = medianMicros(rounds, calls, [&] {
        Scrape s;
        s.readAtMs = 2000;
        s.httpStatus = 200;
        s.metrics = parseExposition(after);
        sinkD = sinkD + windowBetween(a, s, names).requests;
    });
    const ServiceWindow w = windowBetween(a, b, names);
    std::printf("page of %lld bytes: parseExposition %.2f us, windowBetween %.2f us, a scrape "
                "(parse + window) %.2f us; window: %g requests, p50 %.2f ms, p99 %.2f ms\n",
                qlonglong(after.size()),
                parseUs,
                windowUs,
                bothUs,
                w.requests,
                w.p50Ms,
                w.p99Ms);
    return 0;
}
