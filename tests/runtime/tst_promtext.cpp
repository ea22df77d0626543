// SPDX-License-Identifier: GPL-3.0-or-later
// What a server's /metrics text says: samples and types as written, malformed lines reported by
// number and skipped, quantiles as Prometheus' histogram_quantile computes them (checked against
// values worked out by hand), and windows between two scrapes, restarts included.
#include "core/runtime/promtext.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace Zhaoxi::Runtime;

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

// One model_name series of vllm:e2e_request_latency_seconds with buckets 0.1, 0.5, 1.0, +Inf
// (cumulative counts; _count is the +Inf count).
struct Series
{
    QString model;
    QList<double> cumulative;
    double sum = 0;
};

QByteArray vllmText(const QList<Series> &series, double waiting)
{
    static const char *const bounds[] = {"0.1", "0.5", "1.0", "+Inf"};
    QByteArray t
            = "# HELP vllm:e2e_request_latency_seconds Histogram of end to end request latency "
              "in seconds.\n# TYPE vllm:e2e_request_latency_seconds histogram\n";
    for (const Series &s : series) {
        for (int i = 0; i < 4; ++i)
            t += "vllm:e2e_request_latency_seconds_bucket{le=\"" + QByteArray(bounds[i])
                 + "\",model_name=\"" + s.model.toUtf8() + "\"} "
                 + QByteArray::number(s.cumulative.at(i)) + "\n";
        t += "vllm:e2e_request_latency_seconds_sum{model_name=\"" + s.model.toUtf8() + "\"} "
             + QByteArray::number(s.sum) + "\n";
        t += "vllm:e2e_request_latency_seconds_count{model_name=\"" + s.model.toUtf8() + "\"} "
             + QByteArray::number(s.cumulative.last()) + "\n";
    }
    t += "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\"m\"} "
         + QByteArray::number(waiting) + "\n";
    return t;
}

Scrape scrapeOf(const QByteArray &text, qint64 readAtMs)
{
    Scrape s;
    s.readAtMs = readAtMs;
    s.httpStatus = 200;
    s.metrics = parseExposition(text);
    return s;
}

QByteArray tritonText(double durationUs, double success)
{
    return "# HELP nv_inference_request_success Number of successful inference requests\n"
           "# TYPE nv_inference_request_success counter\n"
           "nv_inference_request_success{model=\"m\",version=\"1\"} "
           + QByteArray::number(success, 'f', 0)
           + "\n# TYPE nv_inference_request_duration_us counter\n"
             "nv_inference_request_duration_us{model=\"m\",version=\"1\"} "
           + QByteArray::number(durationUs, 'f', 0)
           + "\n# TYPE nv_inference_pending_request_count gauge\n"
             "nv_inference_pending_request_count{model=\"m\",version=\"1\"} 3\n";
}

} // namespace

Q_DECLARE_METATYPE(QList<Zhaoxi::Runtime::Bucket>)
Q_DECLARE_METATYPE(QList<Series>)

class TestPromText : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parsesSamples_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("sample");
        QTest::addColumn<QString>("labelName");
        QTest::addColumn<QString>("labelValue");
        QTest::addColumn<double>("value");
        QTest::addColumn<qint64>("timestamp"); // -1 = none
        QTest::newRow("bare sample") << QByteArray("up 1\n") << "up"
                                     << ""
                                     << "" << 1.0 << -1LL;
        QTest::newRow("labels and a colon in the name")
                << QByteArray("vllm:num_requests_running{model_name=\"demo\"} 3\n")
                << "vllm:num_requests_running"
                << "model_name"
                << "demo" << 3.0 << -1LL;
        QTest::newRow("escapes in a label value")
                << QByteArray("x{path=\"C:\\\\dir\\\\\\\"q\\\"\\nend\"} 2\n") << "x"
                << "path"
                << "C:\\dir\\\"q\"\nend" << 2.0 << -1LL;
        QTest::newRow("+Inf value") << QByteArray("x +Inf\n") << "x"
                                    << ""
                                    << "" << inf << -1LL;
        QTest::newRow("-Inf value") << QByteArray("x -Inf\n") << "x"
                                    << ""
                                    << "" << -inf << -1LL;
        QTest::newRow("NaN value") << QByteArray("x NaN\n") << "x"
                                   << ""
                                   << "" << qQNaN() << -1LL;
        QTest::newRow("exponent") << QByteArray("x 1.5e-3\n") << "x"
                                  << ""
                                  << "" << 0.0015 << -1LL;
        QTest::newRow("timestamp") << QByteArray("x{a=\"b\"} 7 1712000000123\n") << "x"
                                   << "a"
                                   << "b" << 7.0 << 1712000000123LL;
        QTest::newRow("negative timestamp") << QByteArray("x 7 -5\n") << "x"
                                            << ""
                                            << "" << 7.0 << -5LL;
        QTest::newRow("CRLF, blanks, tabs and a trailing comma")
                << QByteArray("\r\n  \t\r\nx { a = \"b\" , }\t 4 \r\n\r\n") << "x"
                << "a"
                << "b" << 4.0 << -1LL;
        QTest::newRow("empty braces") << QByteArray("x{} 5") << "x"
                                      << ""
                                      << "" << 5.0 << -1LL;
        QTest::newRow("ordinary comments ignored")
                << QByteArray("# a comment\n#another\n# TYPEX is not TYPE\nx 6\n") << "x"
                << ""
                << "" << 6.0 << -1LL;
        // Not plain decimals: read as Go's ParseFloat and QByteArray::toDouble read them.
        QTest::newRow("a leading plus") << QByteArray("x +5\n") << "x"
                                        << ""
                                        << "" << 5.0 << -1LL;
        QTest::newRow("a trailing point") << QByteArray("x 1.\n") << "x"
                                          << ""
                                          << "" << 1.0 << -1LL;
        QTest::newRow("a leading point") << QByteArray("x .5\n") << "x"
                                         << ""
                                         << "" << 0.5 << -1LL;
        QTest::newRow("Infinity") << QByteArray("x Infinity\n") << "x"
                                  << ""
                                  << "" << inf << -1LL;
        QTest::newRow("a numeric le with blanks")
                << QByteArray("# TYPE h histogram\nh_bucket{le=\" 1 \"} 2\n") << "h_bucket"
                << "le"
                << " 1 " << 2.0 << -1LL;
        QTest::newRow("utf-8 label value")
                << QByteArray("x{model=\"\xe6\x9c\x9d\xe6\x9b\xa6\"} 1\n") << "x"
                << "model" << QString::fromUtf8("\xe6\x9c\x9d\xe6\x9b\xa6") << 1.0 << -1LL;
    }

    void parsesSamples()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, sample);
        QFETCH(QString, labelName);
        QFETCH(QString, labelValue);
        QFETCH(double, value);
        QFETCH(qint64, timestamp);
        const Exposition e = parseExposition(text);
        QVERIFY2(e.errors.isEmpty(), qPrintable(e.errors.value(0).toString()));
        const QList<Sample> samples = e.samples(sample);
        QCOMPARE(samples.size(), 1);
        const Sample &s = samples.first();
        if (std::isnan(value))
            QVERIFY(std::isnan(s.value));
        else
            QCOMPARE(s.value, value);
        if (!labelName.isEmpty())
            QCOMPARE(s.label(labelName), labelValue);
        QCOMPARE(s.labels.size(), labelName.isEmpty() ? 0 : 1);
        QCOMPARE(s.timestampMs.has_value(), timestamp != -1);
        if (timestamp != -1)
            QCOMPARE(*s.timestampMs, timestamp);
    }

    void malformedLinesAreSkippedAndReported_data()
    {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<QString>("message");
        QTest::newRow("unclosed braces")
                << QByteArray("bad{a=\"b\" 1") << "expected ',' or '}' after label value";
        QTest::newRow("no value") << QByteArray("bad{a=\"b\"}") << "missing value for bad";
        QTest::newRow("not a number") << QByteArray("bad 12abc") << "invalid value '12abc' for bad";
        QTest::newRow("out of range") << QByteArray("bad 1e400") << "invalid value '1e400' for bad";
        QTest::newRow("an exponent without digits")
                << QByteArray("bad 5e") << "invalid value '5e' for bad";
        QTest::newRow("bad timestamp")
                << QByteArray("bad 1 12.5") << "invalid timestamp '12.5' for bad";
        QTest::newRow("trailing text")
                << QByteArray("bad 1 2 3") << "unexpected text after the timestamp of bad";
        QTest::newRow("unknown escape") << QByteArray("bad{a=\"x\\t\"} 1")
                                        << "invalid escape sequence '\\t' in the value of label a";
        QTest::newRow("unterminated value")
                << QByteArray("bad{a=\"x} 1") << "unterminated value of label a";
        QTest::newRow("unquoted value")
                << QByteArray("bad{a=x} 1") << "expected '\"' to open the value of label a";
        QTest::newRow("no equals")
                << QByteArray("bad{a \"x\"} 1") << "expected '=' after label name a";
        QTest::newRow("repeated label")
                << QByteArray("bad{a=\"1\",a=\"2\"} 1") << "label a repeated";
        QTest::newRow("label name with a colon")
                << QByteArray("bad{a:b=\"1\"} 1") << "expected '=' after label name a";
        QTest::newRow("no metric name") << QByteArray("{a=\"1\"} 1") << "expected a metric name";
        QTest::newRow("bad character in the name")
                << QByteArray("bad-name 1") << "invalid character '-' in metric name";
        QTest::newRow("unknown type")
                << QByteArray("# TYPE bad gaugeish") << "unknown metric type 'gaugeish' for bad";
        QTest::newRow("type without a type")
                << QByteArray("# TYPE bad") << "TYPE line for bad without a type";
        QTest::newRow("second TYPE") << QByteArray("# TYPE ok gauge") << "second TYPE line for ok";
        QTest::newRow("TYPE after samples")
                << QByteArray("# TYPE good counter") << "TYPE line for good after its samples";
        QTest::newRow("bucket without le")
                << QByteArray("h_bucket{x=\"1\"} 3")
                << "histogram bucket h_bucket without a numeric 'le' label";
        QTest::newRow("bucket with a non-numeric le")
                << QByteArray("h_bucket{le=\"big\"} 3")
                << "histogram bucket h_bucket without a numeric 'le' label";
        QTest::newRow("bucket with a NaN le")
                << QByteArray("h_bucket{le=\"NaN\"} 3")
                << "histogram bucket h_bucket without a numeric 'le' label";
        QTest::newRow("bucket with an empty le")
                << QByteArray("h_bucket{le=\"\"} 3")
                << "histogram bucket h_bucket without a numeric 'le' label";
    }

    void malformedLinesAreSkippedAndReported()
    {
        QFETCH(QByteArray, line);
        QFETCH(QString, message);
        // The bad line is line 6; the good lines around it survive.
        const QByteArray text
                = "# TYPE ok gauge\nok 1\ngood 2\n# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\n"
                  + line + "\r\nafter 3\n";
        const Exposition e = parseExposition(text);
        QCOMPARE(e.errors.size(), 1);
        QCOMPARE(e.errors.first().line, 6);
        QCOMPARE(e.errors.first().message, message);
        QCOMPARE(e.errors.first().toString(), QStringLiteral("line 6: ") + message);
        QCOMPARE(e.samples(QStringLiteral("ok")).size(), 1);
        QCOMPARE(e.samples(QStringLiteral("good")).size(), 1);
        QCOMPARE(e.samples(QStringLiteral("after")).size(), 1);
        QCOMPARE(e.samples(QStringLiteral("h_bucket")).size(), 1);
        QCOMPARE(toString(e.family(QStringLiteral("ok"))->type), toString(MetricType::Gauge));
        QVERIFY(e.samples(QStringLiteral("bad")).isEmpty());
    }

    void familiesKeepTypesAndHelp()
    {
        const QByteArray text
                = "# HELP vllm:request_success_total Count of successfully processed requests.\n"
                  "# TYPE vllm:request_success_total counter\n"
                  "vllm:request_success_total{finished_reason=\"stop\",model_name=\"m\"} 12.0\n"
                  "# HELP lat Latency with a \\\\ and a\\nnewline.\n"
                  "# TYPE lat histogram\n"
                  "lat_bucket{le=\"1\"} 2\nlat_bucket{le=\"+Inf\"} 3\nlat_sum 4.5\nlat_count 3\n"
                  "# TYPE rpc summary\n"
                  "rpc{quantile=\"0.5\"} 0.2\nrpc_sum 9\nrpc_count 30\n"
                  "# TYPE u untyped\nu 1\nloose_metric 2\n";
        const Exposition e = parseExposition(text);
        QVERIFY(e.errors.isEmpty());
        QCOMPARE(e.families.size(), 5);
        QCOMPARE(e.families.at(0).name, QStringLiteral("vllm:request_success_total"));
        QCOMPARE(toString(e.families.at(0).type), toString(MetricType::Counter));
        QCOMPARE(e.families.at(0).help,
                 QStringLiteral("Count of successfully processed requests."));
        QCOMPARE(e.families.at(0).samples.first().labels,
                 (Labels{{QStringLiteral("finished_reason"), QStringLiteral("stop")},
                         {QStringLiteral("model_name"), QStringLiteral("m")}}));
        const Family *lat = e.family(QStringLiteral("lat"));
        QVERIFY(lat);
        QCOMPARE(toString(lat->type), toString(MetricType::Histogram));
        QCOMPARE(lat->help, QStringLiteral("Latency with a \\ and a\nnewline."));
        QCOMPARE(lat->samples.size(), 4);
        const Family *rpc = e.family(QStringLiteral("rpc"));
        QCOMPARE(toString(rpc->type), toString(MetricType::Summary));
        QCOMPARE(rpc->samples.size(), 3);
        QCOMPARE(toString(e.family(QStringLiteral("u"))->type), toString(MetricType::Untyped));
        QCOMPARE(toString(e.family(QStringLiteral("loose_metric"))->type),
                 toString(MetricType::Untyped));
        QCOMPARE(e.samples(QStringLiteral("lat_count")).first().value, 3.0);
        QCOMPARE(toString(MetricType::Histogram), QStringLiteral("histogram"));
        // A _bucket sample of a family that is not a histogram is a family of its own.
        const Exposition g = parseExposition("# TYPE c counter\nc 1\nc_bucket{le=\"1\"} 2\n");
        QVERIFY(g.errors.isEmpty());
        QCOMPARE(g.families.size(), 2);
        QCOMPARE(toString(g.family(QStringLiteral("c_bucket"))->type),
                 toString(MetricType::Untyped));
    }

    void quantile_data()
    {
        QTest::addColumn<QList<Bucket>>("buckets");
        QTest::addColumn<double>("q");
        QTest::addColumn<double>("expected");
        const QList<Bucket> h{{0.1, 10}, {0.5, 60}, {1.0, 90}, {inf, 100}};
        // rank 50 lies in (0.1, 0.5] holding 50: 0.1 + 0.4 * 40/50
        QTest::newRow("median interpolated") << h << 0.5 << 0.42;
        // rank 5 in the lowest bucket, whose lower bound is 0: 0.1 * 5/10
        QTest::newRow("lowest bucket starts at 0") << h << 0.05 << 0.05;
        // rank 90 is reached exactly at the 1.0 bucket's count
        QTest::newRow("rank at a bucket's top") << h << 0.9 << 1.0;
        QTest::newRow("rank in +Inf: highest finite bound") << h << 0.99 << 1.0;
        QTest::newRow("q = 1 in +Inf") << h << 1.0 << 1.0;
        QTest::newRow("q below 0") << h << -0.1 << -inf;
        QTest::newRow("q above 1") << h << 1.1 << inf;
        QTest::newRow("q NaN") << h << qQNaN() << qQNaN();
        QTest::newRow("no observations")
                << QList<Bucket>{{0.1, 0}, {1, 0}, {inf, 0}} << 0.5 << qQNaN();
        QTest::newRow("no +Inf bucket") << QList<Bucket>{{0.1, 5}, {1, 10}} << 0.5 << qQNaN();
        QTest::newRow("only the +Inf bucket") << QList<Bucket>{{inf, 10}} << 0.5 << qQNaN();
        QTest::newRow("empty") << QList<Bucket>{} << 0.5 << qQNaN();
        // 0 <= 6, (0, 0.5] 5, ...: rank 9.5 -> 0 + 0.5 * 3.5/5
        QTest::newRow("a bucket at 0")
                << QList<Bucket>{{0, 6}, {0.5, 11}, {1, 14}, {inf, 19}} << 0.5 << 0.35;
        QTest::newRow("rank in a bucket at a negative bound")
                << QList<Bucket>{{-1, 5}, {inf, 10}} << 0.2 << -1.0;
        QTest::newRow("unsorted input")
                << QList<Bucket>{{inf, 100}, {1.0, 90}, {0.1, 10}, {0.5, 60}} << 0.5 << 0.42;
        // Counts that dip are raised to the running maximum: (0.5, 60) (1, 60) -> rank 75 in +Inf
        QTest::newRow("non-monotonic counts")
                << QList<Bucket>{{0.1, 10}, {0.5, 60}, {1.0, 55}, {inf, 100}} << 0.75 << 1.0;
        // equal bounds add up: {0.1: 10, 0.5: 60, +Inf: 100}; rank 50 -> 0.1 + 0.4 * 40/50
        QTest::newRow("equal bounds merged")
                << QList<Bucket>{{0.1, 4}, {0.1, 6}, {0.5, 60}, {inf, 100}} << 0.5 << 0.42;
    }

    void quantile()
    {
        QFETCH(QList<Bucket>, buckets);
        QFETCH(double, q);
        QFETCH(double, expected);
        const double got = histogramQuantile(q, buckets);
        if (std::isnan(expected))
            QVERIFY2(std::isnan(got), qPrintable(QString::number(got)));
        else
            QCOMPARE(got, expected);
    }

    void bucketsAreSummedOverLabelSets()
    {
        const Exposition e = parseExposition(vllmText({{QStringLiteral("a"), {4, 30, 40, 50}, 0},
                                                       {QStringLiteral("b"), {6, 30, 50, 50}, 0}},
                                                      0));
        QVERIFY(e.errors.isEmpty());
        const QList<Bucket> b = bucketsOf(e, QStringLiteral("vllm:e2e_request_latency_seconds"));
        QCOMPARE(b, (QList<Bucket>{{0.1, 10}, {0.5, 60}, {1.0, 90}, {inf, 100}}));
        QCOMPARE(histogramQuantile(0.5, b), 0.42);
        QVERIFY(bucketsOf(e, QStringLiteral("absent")).isEmpty());
    }

    void histogramWindow_data()
    {
        QTest::addColumn<QList<Series>>("before");
        QTest::addColumn<QList<Series>>("after");
        QTest::addColumn<double>("requests");
        QTest::addColumn<double>("p50");
        QTest::addColumn<double>("p99");
        QTest::addColumn<double>("mean");
        QTest::addColumn<bool>("reset");
        const QString m = QStringLiteral("m");
        // deltas {10, 60, 90, 100}, sum 70 s over 100 requests
        QTest::newRow("plain delta") << QList<Series>{{m, {10, 20, 30, 30}, 12}}
                                     << QList<Series>{{m, {20, 80, 120, 130}, 82}} << 100.0 << 420.0
                                     << 1000.0 << 700.0 << false;
        // restarted: after's own counts {5, 8, 9, 9}: p50 rank 4.5 -> 100 * 4.5/5 = 90 ms,
        // p99 rank 8.91 -> 500 + 500 * 0.91 = 955 ms
        QTest::newRow("counter reset")
                << QList<Series>{{m, {10, 20, 30, 30}, 12}} << QList<Series>{{m, {5, 8, 9, 9}, 4.5}}
                << 9.0 << 90.0 << 955.0 << 500.0 << true;
        // a: deltas {10, 60, 90, 100}; b restarted: {2, 2, 2, 2}; total {12, 62, 92, 102}:
        // p50 rank 51 -> 100 + 400 * 39/50 = 412 ms; p99 rank 100.98 -> +Inf -> 1000
        QTest::newRow("one of two label sets reset")
                << QList<Series>{{QStringLiteral("a"), {10, 20, 30, 30}, 12},
                                 {QStringLiteral("b"), {10, 10, 10, 10}, 1}}
                << QList<Series>{{QStringLiteral("a"), {20, 80, 120, 130}, 82},
                                 {QStringLiteral("b"), {2, 2, 2, 2}, 0.1}}
                << 102.0 << 412.0 << 1000.0 << 70.1 / 102 * 1000 << true;
        // a new label set is counted from zero and is no reset
        QTest::newRow("a new label set")
                << QList<Series>{{QStringLiteral("a"), {10, 20, 30, 30}, 12}}
                << QList<Series>{{QStringLiteral("a"), {10, 20, 30, 30}, 12},
                                 {QStringLiteral("b"), {10, 60, 90, 100}, 70}}
                << 100.0 << 420.0 << 1000.0 << 700.0 << false;
        QTest::newRow("no requests in the window") << QList<Series>{{m, {10, 20, 30, 30}, 12}}
                                                   << QList<Series>{{m, {10, 20, 30, 30}, 12}}
                                                   << 0.0 << qQNaN() << qQNaN() << qQNaN() << false;
    }

    void histogramWindow()
    {
        QFETCH(QList<Series>, before);
        QFETCH(QList<Series>, after);
        QFETCH(double, requests);
        QFETCH(double, p50);
        QFETCH(double, p99);
        QFETCH(double, mean);
        QFETCH(bool, reset);
        const ServiceWindow w = windowBetween(scrapeOf(vllmText(before, 1), 1000),
                                              scrapeOf(vllmText(after, 4), 11000),
                                              metricPreset(QStringLiteral("vllm")));
        QVERIFY2(w.ok(), qPrintable(w.message));
        QVERIFY(w.message.isEmpty());
        QCOMPARE(w.seconds, 10.0);
        QCOMPARE(w.requests, requests);
        QCOMPARE(w.ratePerSecond, requests / 10);
        QCOMPARE(w.p50Ms, p50);
        QCOMPARE(w.p99Ms, p99);
        if (std::isnan(mean))
            QVERIFY(std::isnan(w.meanMs));
        else
            QCOMPARE(w.meanMs, mean);
        QCOMPARE(w.counterReset, reset);
        QVERIFY(!w.latencyIsMean);
        QCOMPARE(w.queue, std::optional<double>(4));
        QCOMPARE(w.bucketsMs.size(), 4);
        QCOMPARE(w.bucketsMs.last().upperBound, inf);
        QCOMPARE(w.bucketsMs.last().count, requests);
    }

    void overSlo_data()
    {
        QTest::addColumn<double>("sloMs");
        QTest::addColumn<double>("over");
        // window buckets (ms): 100: 10, 500: 60, 1000: 90, +Inf: 100
        QTest::newRow("at a bucket bound") << 500.0 << 40.0;
        // 10 + 50 * (250 - 100) / 400 = 28.75 at or below
        QTest::newRow("inside a bucket") << 250.0 << 71.25;
        QTest::newRow("inside the lowest bucket") << 50.0 << 95.0;
        QTest::newRow("at the highest finite bound") << 1000.0 << 10.0;
        QTest::newRow("beyond the highest bound: +Inf counts as over") << 5000.0 << 10.0;
        QTest::newRow("zero") << 0.0 << 100.0;
        QTest::newRow("NaN") << qQNaN() << qQNaN();
    }

    void overSlo()
    {
        QFETCH(double, sloMs);
        QFETCH(double, over);
        const QString m = QStringLiteral("m");
        const ServiceWindow w
                = windowBetween(scrapeOf(vllmText({{m, {10, 20, 30, 30}, 12}}, 0), 0),
                                scrapeOf(vllmText({{m, {20, 80, 120, 130}, 82}}, 0), 1000),
                                metricPreset(QStringLiteral("vllm")));
        QVERIFY(w.ok());
        if (std::isnan(over))
            QVERIFY(std::isnan(w.overSlo(sloMs)));
        else
            QCOMPARE(w.overSlo(sloMs), over);
    }

    void overSloWithoutRequestsIsZero()
    {
        const QString m = QStringLiteral("m");
        const QByteArray t = vllmText({{m, {10, 20, 30, 30}, 12}}, 0);
        const ServiceWindow w = windowBetween(
                scrapeOf(t, 0), scrapeOf(t, 1000), metricPreset(QStringLiteral("vllm")));
        QCOMPARE(w.overSlo(100), 0.0);
    }

    void windowEdgeCases_data()
    {
        QTest::addColumn<QByteArray>("before");
        QTest::addColumn<QByteArray>("after");
        QTest::addColumn<int>("afterErrors"); // lines of `after` that did not parse
        QTest::addColumn<double>("requests");
        QTest::addColumn<double>("p50");
        QTest::addColumn<bool>("reset");
        const QByteArray type = "# TYPE h histogram\n";
        QTest::newRow("label order makes no other set")
                << type
                           + "h_bucket{le=\"0.1\",m=\"a\"} 2\nh_bucket{le=\"+Inf\",m=\"a\"} 4\n"
                             "h_count{m=\"a\"} 4\n"
                << type
                           + "h_bucket{m=\"a\",le=\"0.1\"} 5\nh_bucket{m=\"a\",le=\"+Inf\"} 10\n"
                             "h_count{m=\"a\"} 10\n"
                << 0 << 6.0 << 100.0 << false;
        // 0.1 went down (5 -> 3): the set restarted and after's counts are the window's; rank 6
        // lies in +Inf, whose answer is the highest finite bound
        QTest::newRow("a reset seen in one bucket only")
                << type + "h_bucket{le=\"0.1\"} 5\nh_bucket{le=\"+Inf\"} 10\nh_count 10\n"
                << type + "h_bucket{le=\"0.1\"} 3\nh_bucket{le=\"+Inf\"} 12\nh_count 12\n"
                << 0 << 12.0 << 100.0 << true;
        // each series written twice: the copies add up, before as after ({4, 8} - {2, 4} twice)
        QTest::newRow("duplicated series add up")
                << type
                           + QByteArray(
                                     "h_bucket{le=\"0.1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_count 2\n")
                                     .repeated(2)
                << type
                           + QByteArray(
                                     "h_bucket{le=\"0.1\"} 3\nh_bucket{le=\"+Inf\"} 6\nh_count 6\n")
                                     .repeated(2)
                << 0 << 8.0 << 100.0 << false;
        QTest::newRow("no +Inf bucket: requests from _count, no quantile")
                << type + "h_bucket{le=\"0.1\"} 1\nh_bucket{le=\"0.5\"} 2\nh_count 3\n"
                << type + "h_bucket{le=\"0.1\"} 3\nh_bucket{le=\"0.5\"} 6\nh_count 9\n"
                << 0 << 6.0 << qQNaN() << false;
        // a NaN count is no decrease; the window's cumulative counts keep their running maximum
        QTest::newRow("a NaN bucket count")
                << type + "h_bucket{le=\"0.1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_count 2\n"
                << type + "h_bucket{le=\"0.1\"} NaN\nh_bucket{le=\"+Inf\"} 4\nh_count 4\n"
                << 0 << 2.0 << 100.0 << false;
        QTest::newRow("a bucket with a NaN le is left out")
                << type + "h_bucket{le=\"0.1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_count 2\n"
                << type
                           + "h_bucket{le=\"0.1\"} 2\nh_bucket{le=\"NaN\"} 100\n"
                             "h_bucket{le=\"+Inf\"} 4\nh_count 4\n"
                << 1 << 2.0 << 100.0 << false;
        // m="a\"b" grew by 2; m="a\\b" went down (5 -> 4): restarted, counted from zero
        QTest::newRow("escaped label values are other sets")
                << type
                           + "h_bucket{le=\"+Inf\",m=\"a\\\"b\"} 1\nh_count{m=\"a\\\"b\"} 1\n"
                             "h_bucket{le=\"+Inf\",m=\"a\\\\b\"} 5\nh_count{m=\"a\\\\b\"} 5\n"
                << type
                           + "h_bucket{le=\"+Inf\",m=\"a\\\"b\"} 3\nh_count{m=\"a\\\"b\"} 3\n"
                             "h_bucket{le=\"+Inf\",m=\"a\\\\b\"} 4\nh_count{m=\"a\\\\b\"} 4\n"
                << 0 << 6.0 << qQNaN() << true;
        // {a="x<US>b=c"} and {a="x",b="c"} are two label sets, however their pairs are joined
        QTest::newRow("a value holding '=' and a separator is its own set")
                << type
                           + "h_bucket{le=\"+Inf\",a=\"x\x1f"
                             "b=c\"} 10\nh_count{a=\"x\x1f"
                             "b=c\"} 10\n"
                << type + "h_bucket{le=\"+Inf\",a=\"x\",b=\"c\"} 3\nh_count{a=\"x\",b=\"c\"} 3\n"
                << 0 << 3.0 << qQNaN() << false;
    }

    void windowEdgeCases()
    {
        QFETCH(QByteArray, before);
        QFETCH(QByteArray, after);
        QFETCH(int, afterErrors);
        QFETCH(double, requests);
        QFETCH(double, p50);
        QFETCH(bool, reset);
        MetricNames names;
        names.latency = QStringLiteral("h");
        names.toMs = 1000;
        const Scrape b = scrapeOf(before, 1000);
        const Scrape a = scrapeOf(after, 3000);
        QVERIFY2(b.metrics.errors.isEmpty(), qPrintable(b.metrics.errors.value(0).toString()));
        QCOMPARE(a.metrics.errors.size(), afterErrors);
        const ServiceWindow w = windowBetween(b, a, names);
        QVERIFY2(w.ok(), qPrintable(w.message));
        QCOMPARE(w.requests, requests);
        QCOMPARE(w.ratePerSecond, requests / 2);
        if (std::isnan(p50))
            QVERIFY2(std::isnan(w.p50Ms), qPrintable(QString::number(w.p50Ms)));
        else
            QCOMPARE(w.p50Ms, p50);
        QCOMPARE(w.counterReset, reset);
        QVERIFY(!w.queue);
        // the window's buckets stay cumulative, sorted and without a NaN
        for (qsizetype i = 0; i < w.bucketsMs.size(); ++i) {
            QVERIFY(!std::isnan(w.bucketsMs.at(i).count));
            if (i > 0) {
                QVERIFY(w.bucketsMs.at(i - 1).upperBound < w.bucketsMs.at(i).upperBound);
                QVERIFY(w.bucketsMs.at(i - 1).count <= w.bucketsMs.at(i).count);
            }
        }
    }

    void bucketsOfSumsDuplicatesAndSortsBounds()
    {
        const Exposition e = parseExposition(
                "# TYPE h histogram\nh_bucket{le=\"+Inf\",m=\"a\"} 9\nh_bucket{le=\"1\",m=\"a\"} "
                "4\n"
                "h_bucket{m=\"b\",le=\"1.0\"} 1\nh_bucket{le=\"0.5\",m=\"b\"} 1\n"
                "h_bucket{le=\"+Inf\",m=\"b\"} 2\nh_bucket{le=\"1\",m=\"a\"} 4\n");
        QVERIFY(e.errors.isEmpty());
        QCOMPARE(bucketsOf(e, QStringLiteral("h")), (QList<Bucket>{{0.5, 1}, {1, 9}, {inf, 11}}));
    }

    void tritonWindowIsTheMean_data()
    {
        QTest::addColumn<double>("beforeUs");
        QTest::addColumn<double>("beforeCount");
        QTest::addColumn<double>("afterUs");
        QTest::addColumn<double>("afterCount");
        QTest::addColumn<double>("requests");
        QTest::addColumn<double>("meanMs");
        QTest::addColumn<bool>("reset");
        // 2 000 000 us over 100 requests
        QTest::newRow("delta") << 1e6 << 100.0 << 3e6 << 200.0 << 100.0 << 20.0 << false;
        QTest::newRow("restarted") << 1e6 << 100.0 << 5e5 << 10.0 << 10.0 << 50.0 << true;
        QTest::newRow("idle") << 1e6 << 100.0 << 1e6 << 100.0 << 0.0 << qQNaN() << false;
    }

    void tritonWindowIsTheMean()
    {
        QFETCH(double, beforeUs);
        QFETCH(double, beforeCount);
        QFETCH(double, afterUs);
        QFETCH(double, afterCount);
        QFETCH(double, requests);
        QFETCH(double, meanMs);
        QFETCH(bool, reset);
        const ServiceWindow w = windowBetween(scrapeOf(tritonText(beforeUs, beforeCount), 5000),
                                              scrapeOf(tritonText(afterUs, afterCount), 7000),
                                              metricPreset(QStringLiteral("triton")));
        QVERIFY2(w.ok(), qPrintable(w.message));
        QCOMPARE(w.requests, requests);
        QCOMPARE(w.ratePerSecond, requests / 2);
        QVERIFY(w.latencyIsMean);
        QCOMPARE(w.meanMs, meanMs);
        QCOMPARE(w.p50Ms, meanMs);
        QCOMPARE(w.p99Ms, meanMs);
        QCOMPARE(w.counterReset, reset);
        QCOMPARE(w.queue, std::optional<double>(3));
        QVERIFY(w.bucketsMs.isEmpty());
        QVERIFY(std::isnan(w.overSlo(10))); // no distribution to count from
    }

    void windowProblemsHaveAStatus_data()
    {
        QTest::addColumn<QByteArray>("afterText");
        QTest::addColumn<QString>("afterError");
        QTest::addColumn<qint64>("afterAt");
        QTest::addColumn<QString>("preset");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("messagePart");
        const QByteArray good = vllmText({{QStringLiteral("m"), {1, 2, 3, 3}, 1}}, 0);
        QTest::newRow("failed scrape")
                << QByteArray() << QStringLiteral("connection refused") << 2000LL << "vllm"
                << int(ServiceWindow::Status::ScrapeFailed)
                << "later scrape failed: connection refused";
        QTest::newRow("same instant") << good << QString() << 1000LL << "vllm"
                                      << int(ServiceWindow::Status::BadInterval) << "not after";
        QTest::newRow("histogram missing") << QByteArray("other_metric 1\n") << QString() << 2000LL
                                           << "vllm" << int(ServiceWindow::Status::MissingMetric)
                                           << "no vllm:e2e_request_latency_seconds_bucket samples";
        QTest::newRow("histogram without +Inf or _count")
                << QByteArray("# TYPE vllm:e2e_request_latency_seconds histogram\n"
                              "vllm:e2e_request_latency_seconds_bucket{le=\"0.1\"} 1\n")
                << QString() << 2000LL << "vllm" << int(ServiceWindow::Status::MissingMetric)
                << "has neither vllm:e2e_request_latency_seconds_count nor a +Inf bucket";
        QTest::newRow("triton latency missing")
                << QByteArray("nv_inference_request_success 5\n") << QString() << 2000LL << "triton"
                << int(ServiceWindow::Status::MissingMetric)
                << "counter nv_inference_request_duration_us is not in the later scrape";
        QTest::newRow("triton count missing")
                << QByteArray("nv_inference_request_duration_us 5\n") << QString() << 2000LL
                << "triton" << int(ServiceWindow::Status::MissingMetric)
                << "counter nv_inference_request_success is not in the later scrape";
        QTest::newRow("custom without names")
                << good << QString() << 2000LL << "custom"
                << int(ServiceWindow::Status::InvalidNames) << "metric names incomplete";
    }

    void windowProblemsHaveAStatus()
    {
        QFETCH(QByteArray, afterText);
        QFETCH(QString, afterError);
        QFETCH(qint64, afterAt);
        QFETCH(QString, preset);
        QFETCH(int, status);
        QFETCH(QString, messagePart);
        const Scrape before = scrapeOf(vllmText({{QStringLiteral("m"), {1, 2, 3, 3}, 1}}, 0), 1000);
        Scrape after = scrapeOf(afterText, afterAt);
        after.error = afterError;
        const ServiceWindow w = windowBetween(before, after, metricPreset(preset));
        QCOMPARE(int(w.status), status);
        QVERIFY2(w.message.contains(messagePart), qPrintable(w.message));
        QVERIFY(std::isnan(w.p99Ms));
        QVERIFY(std::isnan(w.overSlo(100)));
    }

    void queueGaugeMayBeAbsent()
    {
        MetricNames names = metricPreset(QStringLiteral("vllm"));
        names.queue = QStringLiteral("not_there");
        const QByteArray t = vllmText({{QStringLiteral("m"), {1, 2, 3, 3}, 1}}, 0);
        const ServiceWindow w = windowBetween(scrapeOf(t, 0), scrapeOf(t, 1), names);
        QVERIFY(w.ok());
        QVERIFY(!w.queue);
    }

    void presets_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("latency");
        QTest::addColumn<QString>("queue");
        QTest::addColumn<bool>("counterSum");
        QTest::addColumn<QString>("count");
        QTest::addColumn<double>("toMs");
        QTest::addColumn<bool>("valid");
        QTest::newRow("vllm") << "vllm"
                              << "vllm:e2e_request_latency_seconds"
                              << "vllm:num_requests_waiting" << false << "" << 1000.0 << true;
        QTest::newRow("triton") << "triton"
                                << "nv_inference_request_duration_us"
                                << "nv_inference_pending_request_count" << true
                                << "nv_inference_request_success" << 0.001 << true;
        QTest::newRow("tgi") << "tgi"
                             << "tgi_request_duration"
                             << "tgi_queue_size" << false << "" << 1000.0 << true;
        QTest::newRow("custom") << "custom"
                                << ""
                                << "" << false << "" << 1000.0 << false;
        QTest::newRow("unknown") << "VLLM"
                                 << ""
                                 << "" << false << "" << 1000.0 << false;
    }

    void presets()
    {
        QFETCH(QString, preset);
        QFETCH(QString, latency);
        QFETCH(QString, queue);
        QFETCH(bool, counterSum);
        QFETCH(QString, count);
        QFETCH(double, toMs);
        QFETCH(bool, valid);
        const MetricNames n = metricPreset(preset);
        QCOMPARE(n.latency, latency);
        QCOMPARE(n.queue, queue);
        QCOMPARE(n.kind == MetricNames::LatencyKind::CounterSum, counterSum);
        QCOMPARE(n.countMetric, count);
        QCOMPARE(n.toMs, toMs);
        QCOMPARE(n.isValid(), valid);
    }

    void latencyUnits()
    {
        QCOMPARE(latencyUnitToMs(QStringLiteral("s")), std::optional<double>(1000));
        QCOMPARE(latencyUnitToMs(QStringLiteral("ms")), std::optional<double>(1));
        QCOMPARE(latencyUnitToMs(QStringLiteral("us")), std::optional<double>(0.001));
        QVERIFY(!latencyUnitToMs(QStringLiteral("min")));
    }
};

QTEST_GUILESS_MAIN(TestPromText)
#include "tst_promtext.moc"
