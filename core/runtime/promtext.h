// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Reading what inference servers report (HOUSE_STYLE 7: parsing is pure). Three layers:
//   1. parseExposition: the Prometheus text exposition format 0.0.4 into families and samples;
//   2. histogramQuantile / bucketsOf: Prometheus' histogram_quantile on classic buckets;
//   3. windowBetween: what one server did between two scrapes (requests, rate, p50/p99, queue,
//      requests over an SLO), for the metric names of vLLM, Triton or TGI (metricPreset).
// No I/O and no clock here: every function is reentrant and callable from any thread; the time
// of a scrape is data (Scrape::readAtMs), set by whoever read it (see scraper.h).

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QtNumeric>

#include <optional>
#include <utility>

namespace Zhaoxi::Runtime {

// ---- 1. The text format ----------------------------------------------------------------------

enum class MetricType { Untyped, Counter, Gauge, Histogram, Summary };
// "untyped" | "counter" | "gauge" | "histogram" | "summary", as a TYPE line spells them.
QString toString(MetricType type);

// Label pairs in the order the text gave them (names are unique within one sample).
using Labels = QList<std::pair<QString, QString>>;

struct Sample
{
    QString name; // the sample's own name: "x_bucket", "x_sum", "x_count" for histogram x
    Labels labels;
    double value = 0; // may be +Inf, -Inf or NaN
    std::optional<qint64> timestampMs;

    // The value of label `labelName`, or a null QString when the sample has no such label.
    QString label(const QString &labelName) const;
};

// One metric family: a TYPE (and HELP) line and the samples that belong to it. A histogram x
// holds x_bucket, x_sum and x_count samples, a summary x holds x, x_sum and x_count; samples
// with no TYPE line before them form an untyped family of their own name.
struct Family
{
    QString name;
    MetricType type = MetricType::Untyped;
    QString help; // unescaped; empty when there was no HELP line
    QList<Sample> samples;
};

// A malformed line: its 1-based number and what is wrong with it.
struct ParseError
{
    int line = 0;
    QString message;
    QString toString() const; // "line 12: expected '}' after label value"
};

struct Exposition
{
    QList<Family> families;   // in order of first appearance
    QList<ParseError> errors; // the lines that were skipped, in order

    // The family named `name` (a TYPE line's name), or nullptr.
    const Family *family(const QString &name) const;
    // Every sample whose own name is `sampleName` ("vllm:e2e_request_latency_seconds_bucket"),
    // whatever family it belongs to, in text order.
    QList<Sample> samples(const QString &sampleName) const;
};

// Parses the text exposition format 0.0.4: `# HELP name text`, `# TYPE name type`, other `#`
// lines as comments, samples `name{label="value",...} value [timestamp-ms]`, label values with
// the escapes \\ \" \n, values including +Inf, -Inf and NaN, blank lines, CRLF line ends.
//
// A malformed line is SKIPPED and reported in Exposition::errors; the rest of the text is kept.
// A live server's one odd line (a new metric, a bug in one exporter) must not blind the console
// to all its other metrics; callers that need an intact text check `errors.isEmpty()`. Lines
// that are rejected: bad names or syntax, an escape other than the three above, a repeated
// label, trailing text, a second TYPE or HELP line for a family, a TYPE line after that
// family's samples, an unknown type, and a histogram bucket without a numeric `le` label.
Exposition parseExposition(const QByteArray &text);

// ---- 2. Histogram quantiles ------------------------------------------------------------------

// One classic bucket: the number of observations <= upperBound (cumulative).
struct Bucket
{
    double upperBound = 0;
    double count = 0;
    friend bool operator==(const Bucket &, const Bucket &) = default;
};

// Prometheus' histogram_quantile on classic buckets, in any order: NaN for a NaN q, -Inf for
// q < 0, +Inf for q > 1; NaN without a +Inf bucket, with fewer than two buckets or without
// observations. Buckets of equal bound are merged and counts made monotonic as Prometheus does;
// the rank q * count(+Inf) is found in the first bucket whose count reaches it and interpolated
// linearly inside it, the lowest bucket's lower bound being 0 when its upper bound is positive
// (else its upper bound is the answer); a rank in the +Inf bucket gives the highest finite
// bound. An estimate between bucket bounds, never an observed value: say so where it is shown.
double histogramQuantile(double q, QList<Bucket> buckets);

// The buckets of histogram `name` in one exposition (`name`_bucket samples), summed over all
// label sets except `le` (sum by (le)), sorted by bound. Empty when there are none.
QList<Bucket> bucketsOf(const Exposition &metrics, const QString &name);

// ---- 3. One server between two scrapes -------------------------------------------------------

// One reading of a server's /metrics. readAtMs is UTC epoch ms when the body was complete.
struct Scrape
{
    qint64 readAtMs = 0;
    int httpStatus = 0; // 0 when no HTTP answer came
    QString error;      // empty = the body was read and parsed (see metrics.errors for lines)
    Exposition metrics;
    bool ok() const { return error.isEmpty(); }
};

// Which metrics carry a server's latency and queue. Histogram: `latency` is a histogram
// (latency_bucket{le}, _sum, _count). CounterSum: `latency` is a cumulative counter of summed
// latency and `countMetric` the counter of requests (Triton): the mean is all one can know.
struct MetricNames
{
    enum class LatencyKind { Histogram, CounterSum };
    QString latency;
    QString queue; // a gauge of waiting requests; empty = none
    LatencyKind kind = LatencyKind::Histogram;
    QString countMetric; // CounterSum only
    double toMs = 1000;  // milliseconds per unit of `latency` (and of its `le` bounds)

    bool isValid() const; // a latency name, a positive toMs, a count metric for CounterSum
};

// The names for "vllm" (vllm:e2e_request_latency_seconds histogram in s,
// vllm:num_requests_waiting), "triton" (nv_inference_request_duration_us counter in us with
// count nv_inference_request_success, nv_inference_pending_request_count) and "tgi"
// (tgi_request_duration histogram in s, tgi_queue_size). "custom" and any other text give
// empty names (isValid() false): the caller fills them in from its spec.
MetricNames metricPreset(const QString &preset);
// Milliseconds per unit for "s", "ms" and "us"; nullopt for anything else.
std::optional<double> latencyUnitToMs(const QString &unit);

struct ServiceWindow
{
    enum class Status {
        Ok,
        ScrapeFailed,  // `before` or `after` has an error: nothing was computed
        BadInterval,   // after.readAtMs is not later than before.readAtMs
        MissingMetric, // a latency or count metric is absent from `after` (message names it)
        InvalidNames,  // MetricNames::isValid() is false
    };
    Status status = Status::Ok;
    QString message; // empty when Ok; otherwise what is wrong, naming the metric or scrape

    double seconds = 0;       // after.readAtMs - before.readAtMs
    double requests = 0;      // completed requests in the window
    double ratePerSecond = 0; // requests / seconds
    // Histogram: estimated by histogramQuantile from the window's bucket deltas (NaN without
    // requests). CounterSum: both are the window's mean, as Triton gives no distribution;
    // latencyIsMean tells which.
    double p50Ms = qQNaN();
    double p99Ms = qQNaN();
    double meanMs = qQNaN(); // sum delta / count delta (NaN without requests or a _sum)
    bool latencyIsMean = false;
    std::optional<double> queue; // the queue gauge in `after`, summed over label sets; nullopt
                                 // when names.queue is empty or the gauge is not there
    // A counter went down between the scrapes (the server restarted): the label sets concerned
    // were counted from zero, i.e. `after`'s values are the window's.
    bool counterReset = false;
    QList<Bucket> bucketsMs; // Histogram: the window's cumulative buckets, bounds in ms

    bool ok() const { return status == Status::Ok; }
    // The estimated number of the window's requests slower than sloMs: the count at or below
    // sloMs is interpolated linearly inside the bucket that holds sloMs, as a quantile is.
    // Requests in the +Inf bucket count as slower than any SLO at or above the highest finite
    // bound (their latency is unknown past it; an SLO guard must not miss them). 0 without
    // requests; NaN for CounterSum (no distribution) and when the window is not Ok.
    double overSlo(double sloMs) const;
};

const char *toString(ServiceWindow::Status status);

// What the server behind `names` did between two scrapes of it. Counters are compared per
// label set (all labels but `le`): when any of a set's counters (a bucket, _count, _sum, or the
// CounterSum pair) is lower in `after`, that set restarted and its `after` values are taken as
// the window's; a set absent from `before` is counted from zero as well. The deltas are then
// summed over label sets (a vLLM server labels by model_name).
ServiceWindow windowBetween(const Scrape &before, const Scrape &after, const MetricNames &names);

} // namespace Zhaoxi::Runtime

Q_DECLARE_METATYPE(Zhaoxi::Runtime::Scrape)
