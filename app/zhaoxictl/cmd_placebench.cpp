// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxictl place-bench: replays an openb trace through the scheduling framework under the FGD
// paper's evaluation protocol (benchmarks/FGD_PROTOCOL.md) and prints the allocation curve.
#include "commands.h"

#include "core/sched/plugins/policies.h"
#include "core/trace/placebench.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <cmath>

namespace Zhaoxi::Cli {

using namespace Zhaoxi::Trace;

namespace {

struct RunOutcome
{
    BenchResult result;
    double seconds = 0;      // the replay: every decision, bind and sample
    double setupSeconds = 0; // the protocol's preparation and the cluster build
    QString invariants;      // ClusterState::checkInvariants() after the run; empty = consistent
};

QJsonValue number(double v)
{
    return std::isfinite(v) ? QJsonValue(v) : QJsonValue(QJsonValue::Null);
}

QJsonArray curveJson(const QList<double> &c)
{
    QJsonArray a;
    for (double v : c)
        a.append(number(v));
    return a;
}

double perSecond(const RunOutcome &o)
{
    return o.seconds > 0 ? double(o.result.decisions) / o.seconds : 0;
}

QJsonObject runJson(const RunOutcome &o)
{
    const BenchResult &r = o.result;
    QJsonObject j;
    j[QStringLiteral("policy")] = r.policy;
    j[QStringLiteral("seed")] = r.seed;
    j[QStringLiteral("tune")] = r.tune;
    j[QStringLiteral("hosts")] = r.hosts;
    j[QStringLiteral("gpus")] = r.gpus;
    j[QStringLiteral("arrivals")] = r.arrivals;
    j[QStringLiteral("original_pods")] = r.originals;
    j[QStringLiteral("placed")] = r.placed;
    j[QStringLiteral("failed")] = r.failed;
    j[QStringLiteral("decisions")] = r.decisions;
    j[QStringLiteral("seconds")] = o.seconds;
    j[QStringLiteral("setup_seconds")] = o.setupSeconds;
    j[QStringLiteral("decisions_per_second")] = perSecond(o);
    j[QStringLiteral("arrived_pct")] = 100.0 * double(r.arrivedMilli) / (1000.0 * r.gpus);
    j[QStringLiteral("target_shapes")] = r.targetShapes;
    j[QStringLiteral("alloc_pct_at_130")] = number(r.curves.alloc.value(130, NAN));
    j[QStringLiteral("frag_pct_at_130")] = number(r.curves.frag.value(130, NAN));
    j[QStringLiteral("frag_ratio_pct_at_130")] = number(r.curves.fragRatio.value(130, NAN));
    j[QStringLiteral("alloc_curve")] = curveJson(r.curves.alloc);
    j[QStringLiteral("frag_curve")] = curveJson(r.curves.frag);
    j[QStringLiteral("frag_ratio_curve")] = curveJson(r.curves.fragRatio);
    j[QStringLiteral("invariants")] = o.invariants.isEmpty() ? QStringLiteral("ok") : o.invariants;
    return j;
}

QString fmt(double v, int decimals = 2)
{
    return std::isfinite(v) ? QString::number(v, 'f', decimals) : QStringLiteral("-");
}

void printCurve(QTextStream &out, const char *title, const QList<double> &c)
{
    out << title << " (columns 0..130, 10 per line)\n";
    for (int x = 0; x < c.size(); x += 10) {
        out << QString::number(x).rightJustified(5) << ":";
        for (int k = x; k < std::min<int>(x + 10, int(c.size())); ++k)
            out << " " << fmt(c[k]).rightJustified(6);
        out << "\n";
    }
}

void printRun(QTextStream &out, const RunOutcome &o)
{
    const BenchResult &r = o.result;
    out << "policy " << r.policy << ", seed " << r.seed << ", tune " << r.tune << ": " << r.hosts
        << " hosts, " << r.gpus << " GPUs, " << r.arrivals << " arrivals (" << r.originals
        << " original), " << r.placed << " placed, " << r.failed << " failed\n";
    printCurve(out, "GPU allocation %", r.curves.alloc);
    printCurve(out, "fragmentation, % of all GPUs", r.curves.frag);
    printCurve(out, "fragmentation ratio, % of idle GPU", r.curves.fragRatio);
    out << "allocation at 130 % arrived: " << fmt(r.curves.alloc.value(130, NAN)) << " %\n";
    out << "fragmentation at 130 %: " << fmt(r.curves.frag.value(130, NAN)) << " % of GPUs, ratio "
        << fmt(r.curves.fragRatio.value(130, NAN)) << " %\n";
    out << "replay: " << r.decisions << " decisions in " << fmt(o.seconds, 3) << " s ("
        << fmt(perSecond(o), 0) << " decisions/s); setup " << fmt(o.setupSeconds, 3) << " s\n";
}

} // namespace

int runPlaceBench(const QStringList &argList, Io &io)
{
    Args args(argList);
    const bool json = args.flag(QStringLiteral("json"));
    const std::optional<QString> nodesPath = args.value(QStringLiteral("nodes"));
    const std::optional<QString> podsPath = args.value(QStringLiteral("pods"));
    std::optional<QString> policy = args.value(QStringLiteral("policy"));
    const std::optional<QString> seedText = args.value(QStringLiteral("seed"));
    const std::optional<QString> seedsText = args.value(QStringLiteral("seeds"));
    const std::optional<QString> tuneText = args.value(QStringLiteral("tune"));
    auto usage = [&](const QString &message) {
        io.err << "place-bench: " << message << "\n"
               << "usage: zhaoxictl place-bench --nodes FILE --pods FILE --policy NAME "
                  "(--seed N | --seeds A-B) [--tune 1.3] [--json]\n";
        return 2;
    };
    if (!args.missingValueFor().isEmpty())
        return usage(QStringLiteral("option %1 needs a value").arg(args.missingValueFor()));
    if (!args.unknownOptions().isEmpty())
        return usage(QStringLiteral("unknown option %1").arg(args.unknownOptions().first()));
    if (!args.positional().isEmpty())
        return usage(QStringLiteral("unexpected argument '%1'").arg(args.positional().first()));
    if (!nodesPath)
        return usage(QStringLiteral("--nodes FILE is required"));
    if (!podsPath)
        return usage(QStringLiteral("--pods FILE is required"));
    if (!policy)
        return usage(QStringLiteral("--policy NAME is required (known: %1)")
                             .arg(Sched::placementPolicyNames().join(QStringLiteral(", "))));
    if (const QString known = knownName(*policy, Sched::placementPolicyNames()); !known.isEmpty())
        policy = known;
    if (!Sched::placementPolicyNames().contains(*policy))
        return usage(
                QStringLiteral("unknown policy '%1' (known: %2)")
                        .arg(*policy, Sched::placementPolicyNames().join(QStringLiteral(", "))));
    if (seedText.has_value() == seedsText.has_value())
        return usage(QStringLiteral("give exactly one of --seed N and --seeds A-B"));
    QList<qint64> seeds;
    if (seedText) {
        bool ok = false;
        const qint64 s = seedText->toLongLong(&ok);
        if (!ok)
            return usage(QStringLiteral("--seed: '%1' is not an integer").arg(*seedText));
        seeds << s;
    } else {
        static const QRegularExpression range(QStringLiteral("^(-?\\d+)-(-?\\d+)$"));
        const QRegularExpressionMatch m = range.match(*seedsText);
        bool okA = false, okB = false;
        const qint64 a = m.hasMatch() ? m.captured(1).toLongLong(&okA) : 0;
        const qint64 b = m.hasMatch() ? m.captured(2).toLongLong(&okB) : 0;
        if (!okA || !okB)
            return usage(QStringLiteral("--seeds: '%1' is not a range A-B").arg(*seedsText));
        if (b < a)
            return usage(QStringLiteral("--seeds: the range %1 is empty (%2 > %3)")
                                 .arg(*seedsText)
                                 .arg(a)
                                 .arg(b));
        if (b - a >= 1000)
            return usage(QStringLiteral("--seeds: at most 1000 seeds at once"));
        for (qint64 s = a; s <= b; ++s)
            seeds << s;
    }
    double tune = 1.3;
    if (tuneText) {
        bool ok = false;
        tune = tuneText->toDouble(&ok);
        if (!ok || !(tune > 0) || tune > 100)
            return usage(QStringLiteral("--tune: '%1' is not a ratio in (0, 100]").arg(*tuneText));
    }

    TraceError te;
    const std::optional<QList<NodeRecord>> nodes = readNodes(*nodesPath, &te);
    if (!nodes) {
        io.err << "place-bench: " << te.toString() << "\n";
        return 2;
    }
    const std::optional<QList<PodRecord>> pods = readPods(*podsPath, &te);
    if (!pods) {
        io.err << "place-bench: " << te.toString() << "\n";
        return 2;
    }

    QList<RunOutcome> runs;
    for (qint64 seed : std::as_const(seeds)) {
        BenchOptions o;
        o.policy = *policy;
        o.seed = seed;
        o.tune = tune;
        QString error;
        QElapsedTimer setup;
        setup.start();
        std::unique_ptr<PlaceBench> bench = PlaceBench::prepare(*nodes, *pods, o, &error);
        if (!bench) {
            io.err << "place-bench: " << error << "\n";
            return 2;
        }
        RunOutcome out;
        out.setupSeconds = double(setup.nsecsElapsed()) / 1e9;
        QElapsedTimer t;
        t.start();
        bench->replay();
        out.seconds = double(t.nsecsElapsed()) / 1e9;
        out.result = bench->result();
        out.invariants = bench->verify();
        if (!out.invariants.isEmpty())
            io.err << "place-bench: inconsistent state after seed " << seed << ": "
                   << out.invariants << "\n";
        runs.append(out);
        if (!json)
            printRun(io.out, out);
    }

    double sum = 0, sumSq = 0, secs = 0, rate = 0;
    for (const RunOutcome &o : std::as_const(runs)) {
        const double v = o.result.curves.alloc.value(130, NAN);
        sum += v;
        sumSq += v * v;
        secs += o.seconds;
        rate += perSecond(o);
    }
    const double n = double(runs.size());
    const double mean = sum / n;
    const double sd = n > 1 ? std::sqrt(std::max(0.0, (sumSq - n * mean * mean) / (n - 1))) : 0;
    if (json) {
        if (seedText) {
            io.out << QJsonDocument(runJson(runs.first())).toJson(QJsonDocument::Compact) << "\n";
        } else {
            QJsonObject j;
            j[QStringLiteral("policy")] = *policy;
            j[QStringLiteral("tune")] = tune;
            QJsonArray a;
            for (const RunOutcome &o : std::as_const(runs))
                a.append(runJson(o));
            j[QStringLiteral("runs")] = a;
            j[QStringLiteral("mean_alloc_pct_at_130")] = number(mean);
            j[QStringLiteral("std_alloc_pct_at_130")] = number(sd);
            j[QStringLiteral("mean_seconds")] = secs / n;
            j[QStringLiteral("mean_decisions_per_second")] = rate / n;
            io.out << QJsonDocument(j).toJson(QJsonDocument::Compact) << "\n";
        }
    } else if (seedsText) {
        io.out << "\nseed  alloc@130  frag%@130  ratio%@130  arrivals  seconds  decisions/s\n";
        for (const RunOutcome &o : std::as_const(runs)) {
            const BenchResult &r = o.result;
            io.out << QString::number(r.seed).leftJustified(6)
                   << fmt(r.curves.alloc.value(130, NAN)).rightJustified(9)
                   << fmt(r.curves.frag.value(130, NAN)).rightJustified(11)
                   << fmt(r.curves.fragRatio.value(130, NAN)).rightJustified(12)
                   << QString::number(r.arrivals).rightJustified(10)
                   << fmt(o.seconds, 3).rightJustified(9) << fmt(perSecond(o), 0).rightJustified(13)
                   << "\n";
        }
        io.out << "mean allocation at 130 %: " << fmt(mean) << " +- " << fmt(sd) << " over "
               << runs.size() << " seeds (policy " << *policy << ")\n";
    }
    for (const RunOutcome &o : std::as_const(runs)) {
        if (!o.invariants.isEmpty())
            return 1; // the figures are not to be trusted
    }
    return 0;
}

} // namespace Zhaoxi::Cli
