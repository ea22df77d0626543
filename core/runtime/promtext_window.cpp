// SPDX-License-Identifier: GPL-3.0-or-later
// Queries on a parsed exposition: histogram quantiles, the metric presets, and the service window
// between two scrapes of one server (each scrape digested into small sorted vectors, label set by
// label set, and subtracted: see promtext.cpp for why).
#include "promtext_p.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace Zhaoxi::Runtime {

using namespace PromDetail;

namespace {

// The counters of one label set (all labels but `le`) of one server.
struct Group
{
    Labels key;                  // the label set, sorted by name
    std::vector<Bucket> buckets; // le -> cumulative count; sorted by bound once complete
    std::optional<double> count;
    std::optional<double> sum;
};

// One scrape's counters of the wanted metrics, by label set in order of first appearance.
struct Digest
{
    std::vector<Group> groups;
    bool anyBucket = false; // a `_bucket` sample of the histogram was there (numeric le or not)
    bool anySum = false;    // CounterSum: a sample of the latency counter was there
    bool anyCount = false;  // CounterSum: a sample of the count metric was there
};

// Whether `labels` (as a sample gave them, `le` aside) are exactly the set `key`.
bool sameLabelSet(const Labels &labels, const Labels &key)
{
    qsizetype n = 0;
    for (const auto &pair : labels) {
        if (pair.first == QLatin1String("le"))
            continue;
        ++n;
        const auto it = std::find_if(
                key.cbegin(), key.cend(), [&](const auto &k) { return k.first == pair.first; });
        if (it == key.cend() || it->second != pair.second)
            return false;
    }
    return n == key.size();
}

// The group of a sample's label set; consecutive samples share one, so the last is tried first.
Group &groupOf(std::vector<Group> &groups, const Labels &labels)
{
    if (!groups.empty() && sameLabelSet(labels, groups.back().key))
        return groups.back();
    for (Group &g : groups) {
        if (sameLabelSet(labels, g.key))
            return g;
    }
    Group g;
    for (const auto &pair : labels) {
        if (pair.first != QLatin1String("le"))
            g.key.append(pair);
    }
    std::sort(g.key.begin(), g.key.end(), [](const auto &a, const auto &b) {
        return a.first < b.first;
    });
    groups.push_back(std::move(g));
    return groups.back();
}

void addValue(std::optional<double> *slot, double v)
{
    *slot = slot->value_or(0) + v;
}

// Sorts by bound and adds up equal bounds (duplicated series, or label sets summed away), the
// first of them keeping its bound as a map's key would.
void mergeBounds(std::vector<Bucket> *buckets)
{
    std::stable_sort(buckets->begin(), buckets->end(), [](const Bucket &a, const Bucket &b) {
        return a.upperBound < b.upperBound;
    });
    size_t out = 0;
    for (size_t i = 0; i < buckets->size(); ++i) {
        if (out > 0 && (*buckets)[out - 1].upperBound == (*buckets)[i].upperBound)
            (*buckets)[out - 1].count += (*buckets)[i].count;
        else
            (*buckets)[out++] = (*buckets)[i];
    }
    buckets->resize(out);
}

// Calls f(sample, which) for every sample whose own name is base + suffixes[which], whatever
// family it belongs to, in the order of Exposition::samples(). The samples of one name share one
// string when the parser made them, so a name is compared once per run of equal strings.
template<size_t N, typename F>
void forEachSample(const Exposition &m,
                   const QString &base,
                   const std::array<QLatin1String, N> &suffixes,
                   F f)
{
    const auto matches = [&](QStringView name) {
        if (!name.startsWith(base))
            return -1;
        const QStringView rest = name.sliced(base.size());
        for (size_t i = 0; i < N; ++i) {
            if (rest == suffixes[i])
                return int(i);
        }
        return -1;
    };
    for (const Family &family : m.families) {
        // A family whose name is no prefix of a wanted name holds none of its samples.
        const QStringView own(family.name);
        bool maybe = false;
        for (size_t i = 0; i < N && !maybe; ++i) {
            maybe = own.size() <= base.size()
                            ? base.startsWith(own)
                            : own.startsWith(base)
                                      && suffixes[i].startsWith(own.sliced(base.size()));
        }
        if (!maybe)
            continue;
        const QChar *lastName = nullptr;
        qsizetype lastSize = -1;
        int lastWhich = -1;
        for (const Sample &s : family.samples) {
            if (s.name.constData() != lastName || s.name.size() != lastSize) {
                lastName = s.name.constData();
                lastSize = s.name.size();
                lastWhich = matches(s.name);
            }
            if (lastWhich >= 0)
                f(s, lastWhich);
        }
    }
}

Digest histogramDigest(const Exposition &m, const QString &name)
{
    static const std::array<QLatin1String, 3> suffixes{
            QLatin1String("_bucket"), QLatin1String("_count"), QLatin1String("_sum")};
    Digest d;
    forEachSample(m, name, suffixes, [&](const Sample &s, int which) {
        if (which == 0) {
            d.anyBucket = true;
            const std::optional<double> le = parseFloat(QStringView(s.label(QStringLiteral("le"))));
            if (le && !std::isnan(*le))
                groupOf(d.groups, s.labels).buckets.push_back(Bucket{*le, s.value});
        } else {
            Group &g = groupOf(d.groups, s.labels);
            addValue(which == 1 ? &g.count : &g.sum, s.value);
        }
    });
    for (Group &g : d.groups)
        mergeBounds(&g.buckets);
    return d;
}

Digest counterDigest(const Exposition &m, const MetricNames &names)
{
    static const std::array<QLatin1String, 1> exact{QLatin1String("")};
    Digest d;
    forEachSample(m, names.latency, exact, [&](const Sample &s, int) {
        d.anySum = true;
        addValue(&groupOf(d.groups, s.labels).sum, s.value);
    });
    forEachSample(m, names.countMetric, exact, [&](const Sample &s, int) {
        d.anyCount = true;
        addValue(&groupOf(d.groups, s.labels).count, s.value);
    });
    return d;
}

bool decreased(const std::optional<double> &before, const std::optional<double> &after)
{
    return before && after && *after < *before;
}

// The count of `bound` in sorted `buckets`, or nullptr.
const Bucket *findBound(const std::vector<Bucket> &buckets, double bound)
{
    const auto it = std::lower_bound(buckets.cbegin(),
                                     buckets.cend(),
                                     bound,
                                     [](const Bucket &b, double v) { return b.upperBound < v; });
    return it != buckets.cend() && it->upperBound == bound ? &*it : nullptr;
}

bool restarted(const Group &before, const Group &after)
{
    if (decreased(before.count, after.count) || decreased(before.sum, after.sum))
        return true;
    for (const Bucket &a : after.buckets) {
        const Bucket *b = findBound(before.buckets, a.upperBound);
        if (b && a.count < b->count)
            return true;
    }
    return false;
}

struct Totals
{
    std::vector<Bucket> buckets; // sorted by bound
    std::optional<double> count;
    std::optional<double> sum;
};

// Sums the per-label-set deltas; sets a reset flag when a set restarted.
Totals windowDelta(const Digest &before, const Digest &after, bool *reset)
{
    Totals total;
    for (size_t i = 0; i < after.groups.size(); ++i) {
        const Group &a = after.groups[i];
        // Label sets come in the same order scrape after scrape: try the same place first.
        const Group *b = nullptr;
        if (i < before.groups.size() && before.groups[i].key == a.key) {
            b = &before.groups[i];
        } else {
            for (const Group &g : before.groups) {
                if (g.key == a.key) {
                    b = &g;
                    break;
                }
            }
        }
        const bool again = b && restarted(*b, a);
        if (again)
            *reset = true;
        // nullptr: this set is counted from zero (new, or restarted since `before`)
        const Group *old = b && !again ? b : nullptr;
        for (const Bucket &bk : a.buckets) {
            const Bucket *was = old ? findBound(old->buckets, bk.upperBound) : nullptr;
            total.buckets.push_back(Bucket{bk.upperBound, bk.count - (was ? was->count : 0)});
        }
        if (a.count)
            addValue(&total.count, *a.count - (old ? old->count.value_or(0) : 0));
        if (a.sum)
            addValue(&total.sum, *a.sum - (old ? old->sum.value_or(0) : 0));
    }
    if (after.groups.size() > 1)
        mergeBounds(&total.buckets);
    return total;
}

ServiceWindow failed(ServiceWindow::Status status, const QString &message)
{
    ServiceWindow w;
    w.status = status;
    w.message = message;
    return w;
}

} // namespace

double histogramQuantile(double q, QList<Bucket> buckets)
{
    if (std::isnan(q))
        return qQNaN();
    if (q < 0)
        return -inf;
    if (q > 1)
        return inf;
    const auto byBound
            = [](const Bucket &a, const Bucket &b) { return a.upperBound < b.upperBound; };
    // A window's buckets come sorted: sorting them anyway would copy the list.
    if (!std::is_sorted(buckets.cbegin(), buckets.cend(), byBound))
        std::sort(buckets.begin(), buckets.end(), byBound);
    if (buckets.isEmpty() || buckets.last().upperBound != inf)
        return qQNaN();
    // Equal bounds (e.g. from label sets that differed only in labels summed away) add up.
    QList<Bucket> merged;
    for (const Bucket &b : std::as_const(buckets)) {
        if (!merged.isEmpty() && merged.last().upperBound == b.upperBound)
            merged.last().count += b.count;
        else
            merged.append(b);
    }
    // Counts scraped non-atomically can dip; Prometheus raises each to the running maximum.
    double running = -inf;
    for (Bucket &b : merged) {
        if (b.count > running)
            running = b.count;
        else if (b.count < running)
            b.count = running;
    }
    if (merged.size() < 2)
        return qQNaN();
    const double observations = merged.last().count;
    if (observations == 0 || std::isnan(observations))
        return qQNaN();
    double rank = q * observations;
    qsizetype b = 0;
    while (b < merged.size() - 1 && !(merged.at(b).count >= rank))
        ++b;
    if (b == merged.size() - 1)
        return merged.at(b - 1).upperBound;
    if (b == 0 && merged.at(0).upperBound <= 0)
        return merged.at(0).upperBound;
    double start = 0;
    const double end = merged.at(b).upperBound;
    double count = merged.at(b).count;
    if (b > 0) {
        start = merged.at(b - 1).upperBound;
        count -= merged.at(b - 1).count;
        rank -= merged.at(b - 1).count;
    }
    return start + (end - start) * (rank / count);
}

QList<Bucket> bucketsOf(const Exposition &metrics, const QString &name)
{
    std::vector<Bucket> all;
    for (const Group &g : histogramDigest(metrics, name).groups)
        all.insert(all.end(), g.buckets.cbegin(), g.buckets.cend());
    mergeBounds(&all);
    return QList<Bucket>(all.cbegin(), all.cend());
}

bool MetricNames::isValid() const
{
    return !latency.isEmpty() && toMs > 0 && std::isfinite(toMs)
           && (kind == LatencyKind::Histogram || !countMetric.isEmpty());
}

MetricNames metricPreset(const QString &preset)
{
    MetricNames n;
    if (preset == QLatin1String("vllm")) {
        n.latency = QStringLiteral("vllm:e2e_request_latency_seconds");
        n.queue = QStringLiteral("vllm:num_requests_waiting");
        n.toMs = 1000;
    } else if (preset == QLatin1String("triton")) {
        n.latency = QStringLiteral("nv_inference_request_duration_us");
        n.queue = QStringLiteral("nv_inference_pending_request_count");
        n.kind = MetricNames::LatencyKind::CounterSum;
        n.countMetric = QStringLiteral("nv_inference_request_success");
        n.toMs = 0.001;
    } else if (preset == QLatin1String("tgi")) {
        n.latency = QStringLiteral("tgi_request_duration");
        n.queue = QStringLiteral("tgi_queue_size");
        n.toMs = 1000;
    }
    return n;
}

std::optional<double> latencyUnitToMs(const QString &unit)
{
    if (unit == QLatin1String("s"))
        return 1000.0;
    if (unit == QLatin1String("ms"))
        return 1.0;
    if (unit == QLatin1String("us"))
        return 0.001;
    return std::nullopt;
}

const char *toString(ServiceWindow::Status status)
{
    switch (status) {
    case ServiceWindow::Status::Ok:
        return "ok";
    case ServiceWindow::Status::ScrapeFailed:
        return "scrape failed";
    case ServiceWindow::Status::BadInterval:
        return "bad interval";
    case ServiceWindow::Status::MissingMetric:
        return "missing metric";
    case ServiceWindow::Status::InvalidNames:
        return "invalid metric names";
    }
    return "?";
}

double ServiceWindow::overSlo(double sloMs) const
{
    if (!ok() || latencyIsMean || std::isnan(sloMs))
        return qQNaN();
    if (requests <= 0)
        return 0;
    double below = 0;
    double lower = 0;
    for (qsizetype i = 0; i < bucketsMs.size(); ++i) {
        const Bucket &b = bucketsMs.at(i);
        if (b.upperBound == inf)
            break;
        const double prevCount = i == 0 ? 0 : bucketsMs.at(i - 1).count;
        if (i == 0 && b.upperBound <= 0)
            lower = b.upperBound; // no width to interpolate in: all of it is at its bound
        if (sloMs >= b.upperBound) {
            below = b.count;
        } else {
            if (sloMs > lower)
                below = prevCount
                        + (b.count - prevCount) * (sloMs - lower) / (b.upperBound - lower);
            break;
        }
        lower = b.upperBound;
    }
    return std::max(0.0, requests - std::min(below, requests));
}

ServiceWindow windowBetween(const Scrape &before, const Scrape &after, const MetricNames &names)
{
    using Status = ServiceWindow::Status;
    if (!names.isValid())
        return failed(
                Status::InvalidNames,
                QStringLiteral("metric names incomplete: latency '%1', count '%2', unit %3 ms")
                        .arg(names.latency, names.countMetric, QString::number(names.toMs)));
    if (!before.ok())
        return failed(Status::ScrapeFailed,
                      QStringLiteral("earlier scrape failed: %1").arg(before.error));
    if (!after.ok())
        return failed(Status::ScrapeFailed,
                      QStringLiteral("later scrape failed: %1").arg(after.error));
    if (after.readAtMs <= before.readAtMs)
        return failed(
                Status::BadInterval,
                QStringLiteral("later scrape read at %1 ms, not after the earlier one at %2 ms")
                        .arg(after.readAtMs)
                        .arg(before.readAtMs));

    ServiceWindow w;
    w.seconds = double(after.readAtMs - before.readAtMs) / 1000.0;
    if (!names.queue.isEmpty()) {
        static const std::array<QLatin1String, 1> exact{QLatin1String("")};
        bool any = false;
        double total = 0;
        forEachSample(after.metrics, names.queue, exact, [&](const Sample &s, int) {
            any = true;
            total += s.value;
        });
        if (any)
            w.queue = total;
    }

    if (names.kind == MetricNames::LatencyKind::CounterSum) {
        const Digest a = counterDigest(after.metrics, names);
        if (!a.anySum || !a.anyCount)
            return failed(Status::MissingMetric,
                          QStringLiteral("counter %1 is not in the later scrape")
                                  .arg(a.anySum ? names.countMetric : names.latency));
        const Totals d = windowDelta(counterDigest(before.metrics, names), a, &w.counterReset);
        w.requests = d.count.value_or(0);
        w.latencyIsMean = true;
        if (w.requests > 0)
            w.meanMs = d.sum.value_or(0) * names.toMs / w.requests;
        w.p50Ms = w.meanMs;
        w.p99Ms = w.meanMs;
        w.ratePerSecond = w.requests / w.seconds;
        return w;
    }

    const Digest a = histogramDigest(after.metrics, names.latency);
    if (!a.anyBucket)
        return failed(
                Status::MissingMetric,
                QStringLiteral("histogram %1: no %1_bucket samples in the later scrape (a server "
                               "that has served no request yet may not expose it)")
                        .arg(names.latency));
    const Totals d
            = windowDelta(histogramDigest(before.metrics, names.latency), a, &w.counterReset);
    w.bucketsMs.reserve(qsizetype(d.buckets.size()));
    double running = 0;
    for (const Bucket &b : d.buckets) {
        running = std::max(running, b.count);
        w.bucketsMs.append(Bucket{b.upperBound * names.toMs, running});
    }
    if (d.count)
        w.requests = *d.count;
    else if (!d.buckets.empty() && d.buckets.back().upperBound == inf)
        w.requests = d.buckets.back().count;
    else
        return failed(Status::MissingMetric,
                      QStringLiteral("histogram %1 has neither %1_count nor a +Inf bucket")
                              .arg(names.latency));
    w.ratePerSecond = w.requests / w.seconds;
    w.p50Ms = histogramQuantile(0.5, w.bucketsMs);
    w.p99Ms = histogramQuantile(0.99, w.bucketsMs);
    if (w.requests > 0 && d.sum)
        w.meanMs = *d.sum * names.toMs / w.requests;
    return w;
}

} // namespace Zhaoxi::Runtime
