// SPDX-License-Identifier: GPL-3.0-or-later
// The live charts at the scale of a day: 8 series of 86,400 points (24 h at 1 s) on one chart,
// then a live second at a time: how long one frame takes (sync the new points, legends over the
// visible range, value axes, replot) and the replot alone, per time range preset. Offscreen
// unless QT_QPA_PLATFORM says otherwise. Figures, not pass/fail (the goal: under 16 ms).
//
// Each figure is given twice: the GUI thread's CPU time (what a frame costs, whatever else the
// machine runs: on a shared build machine the wall clock mostly measures the others) and the
// wall time.
//
//   bench_charts [frames per preset, default 200]
#include "core/models/seriesstore.h"
#include "widgets/charts/livecharts.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QRandomGenerator>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>

using namespace Zhaoxi;
using Models::SeriesInfo;
using Models::SeriesMetric;
using Models::SeriesStore;
using Models::SeriesSubject;
using Widgets::LiveCharts;

namespace {

constexpr int kSeries = 8;
constexpr int kPoints = 86'400;
constexpr double kStart = 1'767'542'400; // 2026-01-05T00:00+08:00

// The calling thread's CPU time, in ms.
double threadCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

// Runs `what` and adds its CPU and wall time (ms) to the lists.
template<typename F>
void measure(F what, QList<double> *cpu, QList<double> *wall)
{
    QElapsedTimer timer;
    const double c0 = threadCpuMs();
    timer.start();
    what();
    wall->append(double(timer.nsecsElapsed()) / 1e6);
    cpu->append(threadCpuMs() - c0);
}

struct Figures
{
    double median = 0;
    double p99 = 0;
    double max = 0;
};

Figures figures(QList<double> ms)
{
    std::sort(ms.begin(), ms.end());
    Figures f;
    if (ms.isEmpty())
        return f;
    f.median = ms[ms.size() / 2];
    f.p99 = ms[std::min<qsizetype>(ms.size() - 1, qsizetype(std::ceil(0.99 * ms.size())) - 1)];
    f.max = ms.last();
    return f;
}

// A latency-like walk: a daily curve, noise, and now and then a spike.
class Walk
{
public:
    explicit Walk(int i)
        : m_rng(quint32(1000 + i))
        , m_base(150.0 + 80.0 * i)
    {}
    double next(double t)
    {
        const double day = std::sin((t - kStart) / 86400.0 * 2 * M_PI);
        m_level = 0.98 * m_level + 0.02 * (m_rng.generateDouble() - 0.5) * 200;
        double v = m_base * (1.3 + 0.5 * day) + m_level + m_rng.generateDouble() * 40;
        if (m_rng.bounded(1000) == 0)
            v *= 3;
        return std::max(1.0, v);
    }

private:
    QRandomGenerator m_rng;
    double m_base;
    double m_level = 0;
};

// Series i: service i of 8, its p99 (solid); or, `mixed`, service i/2's p99 (solid) and p50
// (dashed), as the Inference page draws four services.
SeriesInfo info(int i, bool mixed)
{
    SeriesInfo s;
    s.subject = SeriesSubject::Service;
    s.metric = mixed && i % 2 ? SeriesMetric::P50 : SeriesMetric::P99;
    s.id = mixed ? i / 2 : i;
    s.name = QStringLiteral("bench-%1").arg(s.id);
    s.key = SeriesStore::serviceKey(s.name, s.metric);
    return s;
}

void print(const char *what, const QList<double> &cpu, const QList<double> &wall)
{
    const Figures c = figures(cpu);
    const Figures w = figures(wall);
    std::printf("  %-34s cpu median %6.2f p99 %6.2f max %6.2f ms | wall median %6.2f p99 %6.2f\n",
                what,
                c.median,
                c.p99,
                c.max,
                w.median,
                w.p99);
}

void runCase(QApplication &app, bool mixed, int frames)
{
    SeriesStore store;
    QList<Walk> walks;
    QList<SeriesInfo> infos;
    for (int i = 0; i < kSeries; ++i) {
        walks.append(Walk(i));
        infos.append(info(i, mixed));
    }
    QElapsedTimer timer;
    timer.start();
    for (int p = 0; p < kPoints; ++p) {
        const double t = kStart + p;
        for (int i = 0; i < kSeries; ++i)
            store.appendPoint(infos[i], t, walks[i].next(t));
    }
    store.notifyAppended();
    const double fillMs = double(timer.nsecsElapsed()) / 1e6;

    LiveCharts charts(nullptr, &store);
    charts.resize(1600, 900);
    charts.show();
    for (int i = 0; i < 5; ++i)
        app.processEvents();
    QCustomPlot *plot = charts.plot(LiveCharts::Page::Inference);

    timer.restart();
    charts.refresh(); // the first sync: every point into the graphs
    const double firstMs = double(timer.nsecsElapsed()) / 1e6;

    std::printf("\n%d series x %d points (24 h at 1 s): %s; plot %dx%d px, platform %s\n",
                kSeries,
                kPoints,
                mixed ? "4 services' p99 (solid) and p50 (dashed)" : "8 services' p99 (solid)",
                plot->width(),
                plot->height(),
                qgetenv("QT_QPA_PLATFORM").constData());
    std::printf("  store fill                         %8.1f ms (%.0f ns a point)\n",
                fillMs,
                fillMs * 1e6 / (double(kSeries) * kPoints));
    std::printf("  first refresh (sync all points)    %8.1f ms\n", firstMs);

    double t = kStart + kPoints;
    const struct
    {
        LiveCharts::Preset preset;
        const char *name;
    } presets[] = {{LiveCharts::Preset::OneDay, "24 h"},
                   {LiveCharts::Preset::SixHours, "6 h"},
                   {LiveCharts::Preset::OneHour, "1 h"},
                   {LiveCharts::Preset::FiveMinutes, "5 min"}};
    for (const auto &p : presets) {
        charts.setPreset(p.preset);
        charts.setLive(true);
        charts.refresh();
        QList<double> frameCpu, frameWall, replotCpu, replotWall;
        for (int f = 0; f < frames; ++f) {
            // One live second: a point per series, then what a coalesced replot does.
            for (int i = 0; i < kSeries; ++i)
                store.appendPoint(infos[i], t, walks[i].next(t));
            t += 1;
            store.notifyAppended();
            measure([&] { charts.refresh(); }, &frameCpu, &frameWall);
            measure([&] { plot->replot(QCustomPlot::rpImmediateRefresh); },
                    &replotCpu,
                    &replotWall);
        }
        std::printf(" preset %s, %d frames:\n", p.name, frames);
        print("frame (sync+legends+axes+replot)", frameCpu, frameWall);
        print("replot alone (rpImmediateRefresh)", replotCpu, replotWall);
    }

    // The same day rendered to a pixmap (an export): no widget repaint involved.
    charts.setPreset(LiveCharts::Preset::OneDay);
    charts.refresh();
    QList<double> pixmapCpu, pixmapWall;
    for (int f = 0; f < std::min(frames, 50); ++f)
        measure([&] { plot->toPixmap(1600, 900); }, &pixmapCpu, &pixmapWall);
    std::printf(" export, 24 h:\n");
    print("toPixmap(1600x900)", pixmapCpu, pixmapWall);
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const int frames = argc > 1 ? std::max(10, QString::fromLocal8Bit(argv[1]).toInt()) : 200;
    std::printf("bench_charts: LiveCharts' Inference page; cpu = the GUI thread's CPU time\n");
    runCase(app, false, frames);
    runCase(app, true, frames);
    return 0;
}
