// SPDX-License-Identifier: GPL-3.0-or-later
// The run block of a workload spec: its errors, its validation and the metric presets.
#include "workloadspecfixture.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTest>

using namespace Zhaoxi::Domain;
using namespace WorkloadSpecFixture;

class tst_WorkloadSpecRun : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void logLimitSizes_data();
    void logLimitSizes();
    void metricNames_data();
    void metricNames();
    void runErrors_data();
    void runErrors();
    void runValidateStruct_data();
    void runValidateStruct();
    void applianceEnvironmentNames();
};

void tst_WorkloadSpecRun::logLimitSizes_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<qint64>("bytes");
    QTest::newRow("bytes") << QByteArray("1000000") << qint64(1'000'000);
    QTest::newRow("bytes as a float") << QByteArray("1e6") << qint64(1'000'000);
    QTest::newRow("smallest") << QByteArray("65536") << qint64(65536);
    QTest::newRow("largest") << QByteArray("68719476736") << qint64(68'719'476'736);
    QTest::newRow("KiB") << QByteArray(R"("512KiB")") << qint64(512 * 1024);
    QTest::newRow("MiB") << QByteArray(R"("64MiB")") << qint64(64 << 20);
    QTest::newRow("GiB") << QByteArray(R"("2GiB")") << (qint64(2) << 30);
    QTest::newRow("leading zeros") << QByteArray(R"("0064KiB")") << qint64(64 * 1024);
    QTest::newRow("64 GiB in KiB") << QByteArray(R"("67108864KiB")") << qint64(64) * (1 << 30);
}

void tst_WorkloadSpecRun::logLimitSizes()
{
    QFETCH(QByteArray, value);
    QFETCH(qint64, bytes);
    SpecError error;
    const auto spec = workloadSpecFromJson(trainRun(R"("logLimit": )" + value), &error);
    QVERIFY2(spec, qPrintable(error.toString()));
    QCOMPARE(spec->run->logLimitBytes, bytes);
}

void tst_WorkloadSpecRun::metricNames_data()
{
    QTest::addColumn<QByteArray>("keys"); // added to an inference run block
    QTest::addColumn<QString>("latency");
    QTest::addColumn<bool>("histogram");
    QTest::addColumn<QString>("count");
    QTest::addColumn<QString>("unit");
    QTest::addColumn<QString>("queue");

    QTest::newRow("default is vllm")
            << QByteArray() << "vllm:e2e_request_latency_seconds" << true << ""
            << "s"
            << "vllm:num_requests_waiting";
    QTest::newRow("triton") << QByteArray(R"("metricsPreset": "triton")")
                            << "nv_inference_request_duration_us" << false
                            << "nv_inference_request_success"
                            << "us"
                            << "nv_inference_pending_request_count";
    QTest::newRow("tgi") << QByteArray(R"("metricsPreset": "tgi")") << "tgi_request_duration"
                         << true << ""
                         << "s"
                         << "tgi_queue_size";
    QTest::newRow("custom") << QByteArray(R"("metricsPreset": "custom", "latencyMetric": "a:lat",
                                              "queueMetric": "q_len")")
                            << "a:lat" << true << ""
                            << "s"
                            << "q_len";
    QTest::newRow("custom in ms") << QByteArray(
            R"("metricsPreset": "custom", "latencyMetric": "lat_ms",
                             "queueMetric": "q", "latencyUnit": "ms")")
                                  << "lat_ms" << true << ""
                                  << "ms"
                                  << "q";
    QTest::newRow("vllm, queue overridden")
            << QByteArray(R"("queueMetric": "vllm:num_requests_running")")
            << "vllm:e2e_request_latency_seconds" << true << ""
            << "s"
            << "vllm:num_requests_running";
    QTest::newRow("triton, latency overridden, unit kept")
            << QByteArray(R"("metricsPreset": "triton",
                             "latencyMetric": "nv_inference_compute_infer_duration_us")")
            << "nv_inference_compute_infer_duration_us" << false << "nv_inference_request_success"
            << "us"
            << "nv_inference_pending_request_count";
    QTest::newRow("tgi, latency overridden in ms")
            << QByteArray(R"("metricsPreset": "tgi", "latencyMetric": "tgi_x_ms",
                             "latencyUnit": "ms")")
            << "tgi_x_ms" << true << ""
            << "ms"
            << "tgi_queue_size";
}

void tst_WorkloadSpecRun::metricNames()
{
    QFETCH(QByteArray, keys);
    QFETCH(QString, latency);
    QFETCH(bool, histogram);
    QFETCH(QString, count);
    QFETCH(QString, unit);
    QFETCH(QString, queue);
    SpecError error;
    const auto spec = workloadSpecFromJson(serveRun(keys), &error);
    QVERIFY2(spec, qPrintable(error.toString()));
    const MetricNames names = metricNamesFor(*spec->run);
    QCOMPARE(names.latency, latency);
    QCOMPARE(names.latencyKind == MetricNames::LatencyKind::Histogram, histogram);
    QCOMPARE(names.latencyCount, count);
    QCOMPARE(toString(names.latencyUnit), unit);
    QCOMPARE(names.queue, queue);

    QCOMPARE(secondsPer(LatencyUnit::Seconds), 1.0);
    QCOMPARE(secondsPer(LatencyUnit::Milliseconds), 1e-3);
    QCOMPARE(secondsPer(LatencyUnit::Microseconds), 1e-6);
    for (MetricsPreset p :
         {MetricsPreset::Vllm, MetricsPreset::Triton, MetricsPreset::Tgi, MetricsPreset::Custom}) {
        MetricsPreset back = MetricsPreset::Custom;
        QVERIFY(metricsPresetFromString(toString(p), &back));
        QCOMPARE(toString(back), toString(p));
    }
    LatencyUnit u = LatencyUnit::Seconds;
    QVERIFY(latencyUnitFromString(QStringLiteral("us"), &u));
    QCOMPARE(toString(u), QStringLiteral("us"));
    QVERIFY(!latencyUnitFromString(QStringLiteral("µs"), &u));
    QCOMPARE(toString(u), QStringLiteral("us"));
}

void tst_WorkloadSpecRun::runErrors_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("error"); // the whole of SpecError::toString()

    const QString signals = QStringLiteral("SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2");
    const QString logRange = QStringLiteral("must be 64KiB..64GiB (65536..68719476736 bytes)");

    // the block and its keys
    QTest::newRow("run not an object")
            << patch(R"({"run": ["train"]})") << "run: expected an object, got an array";
    QTest::newRow("run null") << patch(R"({"run": null})") << "run: expected an object, got null";
    QTest::newRow("unknown key")
            << trainRun(R"("cwd": "/")")
            << "run.cwd: unknown key (known keys: command, workdir, env, user, stopSignal, "
               "checkpointSignal, stopGrace, logLimit, progressTimeout, port, "
               "ready, readyTimeout, metrics, metricsPreset, latencyMetric, "
               "queueMetric, latencyUnit)";
    QTest::newRow("unknown key, suggestion")
            << trainRun(R"("stopgrace": 5)")
            << R"(run.stopgrace: unknown key (did you mean "stopGrace"?))";
    QTest::newRow("unknown key, suggestion among inference keys")
            << serveRun(R"("readyTimout": 5)")
            << R"(run.readyTimout: unknown key (did you mean "readyTimeout"?))";
    QTest::newRow("typo before missing command")
            << withRun("batch", R"({"comand": ["x"]})")
            << R"(run.comand: unknown key (did you mean "command"?))";

    // command
    QTest::newRow("command missing") << withRun("batch", "{}") << "run.command: required";
    QTest::newRow("command a string") << withRun("batch", R"({"command": "train --fast"})")
                                      << "run.command: expected an array, got a string";
    QTest::newRow("command empty") << withRun("batch", R"({"command": []})")
                                   << "run.command: must not be empty; give the program and its "
                                      "arguments";
    QTest::newRow("command element a number")
            << withRun("batch", R"({"command": ["train", "--steps", 20000]})")
            << "run.command[2]: expected a string, got a number";
    QTest::newRow("command element null") << withRun("batch", R"({"command": ["train", null]})")
                                          << "run.command[1]: expected a string, got null";
    QTest::newRow("program empty") << withRun("batch", R"({"command": ["", "x"]})")
                                   << "run.command[0]: must not be empty; it is the program to run";
    QTest::newRow("program relative path")
            << withRun("batch", R"({"command": ["bin/train"]})")
            << R"(run.command[0]: must be an absolute path or a program name looked up in PATH, got "bin/train")";
    QTest::newRow("program dot slash")
            << withRun("batch", R"({"command": ["./train.sh"]})")
            << R"(run.command[0]: must be an absolute path or a program name looked up in PATH, got "./train.sh")";
    QTest::newRow("NUL in an argument")
            << withRun("batch", R"({"command": ["train", "a", "b\u0000c"]})")
            << "run.command[2]: must not contain a NUL character";
    QTest::newRow("NUL in the program") << withRun("batch", R"({"command": ["tr\u0000ain"]})")
                                        << "run.command[0]: must not contain a NUL character";

    // workdir and user
    QTest::newRow("workdir relative")
            << trainRun(R"("workdir": "data")")
            << R"(run.workdir: must be an absolute path (starting with "/"), got "data")";
    QTest::newRow("workdir empty")
            << trainRun(R"("workdir": "")")
            << R"(run.workdir: must be an absolute path (starting with "/"), got "")";
    QTest::newRow("workdir a number")
            << trainRun(R"("workdir": 1)") << "run.workdir: expected a string, got a number";
    QTest::newRow("workdir with NUL") << trainRun(R"("workdir": "/a\u0000b")")
                                      << "run.workdir: must not contain a NUL character";
    const QString userRule = QStringLiteral(
            R"(must be a POSIX user name (lower-case letters, digits, "_", "." and "-", not starting with a digit, "." or "-", optionally ending in "$"))");
    QTest::newRow("user empty") << trainRun(R"("user": "")")
                                << "run.user: must not be empty; leave the key out to run as the "
                                   "appliance's default account";
    QTest::newRow("user upper case")
            << trainRun(R"("user": "Alice")") << "run.user: " + userRule + R"(, got "Alice")";
    QTest::newRow("user starts with a digit")
            << trainRun(R"("user": "1ab")") << "run.user: " + userRule + R"(, got "1ab")";
    QTest::newRow("user starts with a dash")
            << trainRun(R"("user": "-x")") << "run.user: " + userRule + R"(, got "-x")";
    QTest::newRow("user with a space")
            << trainRun(R"("user": "a b")") << "run.user: " + userRule + R"(, got "a b")";
    QTest::newRow("user dollar inside")
            << trainRun(R"("user": "a$b")") << "run.user: " + userRule + R"(, got "a$b")";
    QTest::newRow("user too long") << trainRun(R"("user": ")" + QByteArray(33, 'u') + R"(")")
                                   << "run.user: must be at most 32 characters, got 33";
    QTest::newRow("user a number")
            << trainRun(R"("user": 0)") << "run.user: expected a string, got a number";

    // env
    QTest::newRow("env not an object")
            << trainRun(R"("env": ["A=1"])") << "run.env: expected an object, got an array";
    QTest::newRow("env value a number") << trainRun(R"("env": {"THREADS": 4})")
                                        << "run.env.THREADS: expected a string, got a number";
    QTest::newRow("env value null")
            << trainRun(R"("env": {"X": null})") << "run.env.X: expected a string, got null";
    const QString badName = QStringLiteral(
            R"(not a valid environment variable name (letters, digits and "_", not starting with a digit))");
    QTest::newRow("env name starts with a digit")
            << trainRun(R"("env": {"2PATH": "x"})") << "run.env.2PATH: " + badName;
    QTest::newRow("env name with a dash")
            << trainRun(R"("env": {"MY-VAR": "x"})") << "run.env.MY-VAR: " + badName;
    QTest::newRow("env name with =")
            << trainRun(R"("env": {"A=B": "x"})") << "run.env.A=B: " + badName;
    QTest::newRow("env name empty") << trainRun(R"("env": {"": "x"})") << "run.env.: " + badName;
    QTest::newRow("env name non-ASCII")
            << trainRun(R"("env": {"É": "x"})") << "run.env.É: " + badName;
    QTest::newRow("env value with NUL") << trainRun(R"("env": {"PATH2x": "a\u0000"})")
                                        << "run.env.PATH2x: must not contain a NUL character";
    const QString zhaoxi
            = QStringLiteral("names starting with ZHAOXI_ are set by the appliance; leave it out");
    QTest::newRow("env ZHAOXI_PORT")
            << serveRun(R"("env": {"ZHAOXI_PORT": "80"})") << "run.env.ZHAOXI_PORT: " + zhaoxi;
    QTest::newRow("env ZHAOXI_ anything")
            << trainRun(R"("env": {"ZHAOXI_FOO": ""})") << "run.env.ZHAOXI_FOO: " + zhaoxi;
    const QString device = QStringLiteral(
            "set by the appliance, from the card, partition or share it gives each unit; leave "
            "it out");
    for (const char *name : {"CUDA_VISIBLE_DEVICES",
                             "NVIDIA_VISIBLE_DEVICES",
                             "CUDA_MPS_PIPE_DIRECTORY",
                             "CUDA_MPS_LOG_DIRECTORY",
                             "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
                             "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"}) {
        QTest::addRow("env %s", name) << trainRun(R"("env": {")" + QByteArray(name) + R"(": "0"})")
                                      << "run.env." + QLatin1String(name) + ": " + device;
    }

    // signals
    QTest::newRow("stopSignal unknown")
            << trainRun(R"("stopSignal": "SIGSTOP")")
            << R"(run.stopSignal: must be one of )" + signals + R"(, SIGKILL, got "SIGSTOP")";
    QTest::newRow("stopSignal without SIG")
            << trainRun(R"("stopSignal": "TERM")")
            << R"(run.stopSignal: must be one of )" + signals
                       + R"(, SIGKILL, got "TERM" (did you mean "SIGTERM"?))";
    QTest::newRow("stopSignal lower case")
            << trainRun(R"("stopSignal": "sigint")")
            << R"(run.stopSignal: must be one of )" + signals
                       + R"(, SIGKILL, got "sigint" (did you mean "SIGINT"?))";
    QTest::newRow("stopSignal as a number")
            << trainRun(R"("stopSignal": 15)") << "run.stopSignal: expected a string, got a number";
    QTest::newRow("checkpointSignal SIGKILL")
            << trainRun(R"("checkpointSignal": "SIGKILL")")
            << R"(run.checkpointSignal: must be one of )" + signals
                       + R"(, got "SIGKILL" (SIGKILL cannot be caught, so it cannot ask for anything))";
    QTest::newRow("checkpointSignal unknown")
            << trainRun(R"("checkpointSignal": "SIGUSR3")")
            << R"(run.checkpointSignal: must be one of )" + signals + R"(, got "SIGUSR3")";

    // durations and sizes
    QTest::newRow("stopGrace too long")
            << trainRun(R"("stopGrace": "2h")") << "run.stopGrace: must be 0s..1h, got 2h";
    QTest::newRow("stopGrace negative")
            << trainRun(R"("stopGrace": -1)") << "run.stopGrace: must not be negative, got -1";
    QTest::newRow("stopGrace malformed")
            << trainRun(R"("stopGrace": "30 s")")
            << R"(run.stopGrace: expected a duration such as "90m" or "1h30m" (units d, h, m, s, largest first), got "30 s")";
    QTest::newRow("stopGrace boolean")
            << trainRun(R"("stopGrace": true)")
            << "run.stopGrace: expected a number of seconds or a duration string, got a boolean";
    QTest::newRow("progressTimeout too long") << trainRun(R"("progressTimeout": "1d1s")")
                                              << "run.progressTimeout: must be 0s..1d, got 1d1s";
    QTest::newRow("progressTimeout on inference")
            << serveRun(R"("progressTimeout": "5m")")
            << R"(run.progressTimeout: only allowed when kind is "training" or "batch", but it is "inference")";
    QTest::newRow("logLimit too small")
            << trainRun(R"("logLimit": 1000)") << "run.logLimit: " + logRange + ", got 1000";
    QTest::newRow("logLimit too small as text") << trainRun(R"("logLimit": "63KiB")")
                                                << "run.logLimit: " + logRange + R"(, got "63KiB")";
    QTest::newRow("logLimit too large") << trainRun(R"("logLimit": "65GiB")")
                                        << "run.logLimit: " + logRange + R"(, got "65GiB")";
    QTest::newRow("logLimit overflowing")
            << trainRun(R"("logLimit": "99999999999999999999GiB")")
            << "run.logLimit: " + logRange + R"(, got "99999999999999999999GiB")";
    QTest::newRow("logLimit huge number")
            << trainRun(R"("logLimit": 1e30)") << "run.logLimit: " + logRange + ", got 1e+30";
    QTest::newRow("logLimit negative")
            << trainRun(R"("logLimit": -65536)") << "run.logLimit: " + logRange + ", got -65536";
    QTest::newRow("logLimit fractional")
            << trainRun(R"("logLimit": 65536.5)")
            << "run.logLimit: expected an integer number of bytes, got 65536.5";
    const QString sizeSyntax = QStringLiteral(
            R"(run.logLimit: expected a number of bytes or a size such as "512KiB", "64MiB" or "2GiB" (a whole number and KiB, MiB or GiB), got )");
    QTest::newRow("logLimit decimal unit")
            << trainRun(R"("logLimit": "64MB")") << sizeSyntax + R"("64MB")";
    QTest::newRow("logLimit fractional text")
            << trainRun(R"("logLimit": "1.5GiB")") << sizeSyntax + R"("1.5GiB")";
    QTest::newRow("logLimit with a space")
            << trainRun(R"("logLimit": "64 MiB")") << sizeSyntax + R"("64 MiB")";
    QTest::newRow("logLimit digits as text")
            << trainRun(R"("logLimit": "65536")") << sizeSyntax + R"("65536")";
    QTest::newRow("logLimit lower-case unit")
            << trainRun(R"("logLimit": "64mib")") << sizeSyntax + R"("64mib")";
    QTest::newRow("logLimit TiB") << trainRun(R"("logLimit": "1TiB")") << sizeSyntax + R"("1TiB")";
    QTest::newRow("logLimit boolean")
            << trainRun(R"("logLimit": false)")
            << R"(run.logLimit: expected a number of bytes or a size such as "64MiB", got a boolean)";

    // inference-only keys on other kinds
    for (const char *key : {"port",
                            "ready",
                            "readyTimeout",
                            "metrics",
                            "metricsPreset",
                            "latencyMetric",
                            "queueMetric",
                            "latencyUnit"}) {
        QTest::addRow("%s on training", key)
                << trainRun(R"(")" + QByteArray(key) + R"(": "x")")
                << "run." + QLatin1String(key)
                           + R"(: only allowed when kind is "inference", but it is "training")";
    }
    QTest::newRow("port on batch")
            << withRun("batch", R"({"command": ["x"], "port": 80})")
            << R"(run.port: only allowed when kind is "inference", but it is "batch")";

    // port
    QTest::newRow("port too large")
            << serveRun(R"("port": 70000)") << R"(run.port: must be "auto" or 1..65535, got 70000)";
    QTest::newRow("port zero") << serveRun(R"("port": 0)")
                               << R"(run.port: must be "auto" or 1..65535, got 0)";
    QTest::newRow("port fractional")
            << serveRun(R"("port": 80.5)") << R"(run.port: must be "auto" or 1..65535, got 80.5)";
    QTest::newRow("port as text") << serveRun(R"("port": "8000")")
                                  << R"(run.port: must be "auto" or 1..65535, got "8000")";
    QTest::newRow("port Auto") << serveRun(R"("port": "Auto")")
                               << R"(run.port: must be "auto" or 1..65535, got "Auto")";
    QTest::newRow("port boolean") << serveRun(R"("port": true)")
                                  << R"(run.port: expected "auto" or an integer, got a boolean)";
    QTest::newRow("fixed port with replicas")
            << patch(R"({"kind": "inference",
                         "inference": {"service": "s", "sloP99Ms": 100, "replicas": {"min": 1, "max": 4}},
                         "run": {"command": ["serve"], "port": 8000}})")
            << R"(inference.replicas.max: must be 1 when run.port is fixed (8000): two replicas on one host cannot listen on the same port; use "port": "auto" to scale, got 4)";
    QTest::newRow("fixed port with a fixed count of two")
            << patch(R"({"kind": "inference",
                         "inference": {"service": "s", "sloP99Ms": 100, "replicas": {"min": 2}},
                         "run": {"command": ["serve"], "port": 443}})")
            << R"(inference.replicas.max: must be 1 when run.port is fixed (443): two replicas on one host cannot listen on the same port; use "port": "auto" to scale, got 2)";

    // readiness and metrics
    QTest::newRow("ready without slash")
            << serveRun(R"("ready": "health")")
            << R"(run.ready: must be an HTTP path starting with "/", got "health")";
    QTest::newRow("ready empty") << serveRun(R"("ready": "")")
                                 << R"(run.ready: must be an HTTP path starting with "/", got "")";
    QTest::newRow("ready a URL")
            << serveRun(R"("ready": "http://localhost/health")")
            << R"(run.ready: must be an HTTP path starting with "/", got "http://localhost/health")";
    QTest::newRow("ready with a space")
            << serveRun(R"("ready": "/a b")")
            << "run.ready: must not contain spaces or control characters";
    QTest::newRow("ready boolean")
            << serveRun(R"("ready": true)") << "run.ready: expected a string, got a boolean";
    QTest::newRow("readyTimeout zero")
            << serveRun(R"("readyTimeout": 0)") << "run.readyTimeout: must be 1s..1d, got 0s";
    QTest::newRow("readyTimeout too short") << serveRun(R"("readyTimeout": "0.5s")")
                                            << "run.readyTimeout: must be 1s..1d, got 0.5s";
    QTest::newRow("readyTimeout too long")
            << serveRun(R"("readyTimeout": "2d")") << "run.readyTimeout: must be 1s..1d, got 2d";
    QTest::newRow("metrics without slash")
            << serveRun(R"("metrics": "metrics")")
            << R"(run.metrics: must be an HTTP path starting with "/", got "metrics")";
    QTest::newRow("metrics empty")
            << serveRun(R"("metrics": "")")
            << R"(run.metrics: must be an HTTP path starting with "/", got "")";
    QTest::newRow("metrics with a newline")
            << serveRun(R"("metrics": "/m\n")")
            << "run.metrics: must not contain spaces or control characters";
    QTest::newRow("metricsPreset unknown")
            << serveRun(R"("metricsPreset": "sglang")")
            << R"(run.metricsPreset: must be one of vllm, triton, tgi, custom, got "sglang")";
    QTest::newRow("metricsPreset is case-sensitive")
            << serveRun(R"("metricsPreset": "vLLM")")
            << R"(run.metricsPreset: must be one of vllm, triton, tgi, custom, got "vLLM" (did you mean "vllm"?))";
    const QString metricRule
            = QStringLiteral("must be a Prometheus metric name ([a-zA-Z_:][a-zA-Z0-9_:]*), got ");
    QTest::newRow("latencyMetric with a dash")
            << serveRun(R"("latencyMetric": "req-latency")")
            << "run.latencyMetric: " + metricRule + R"("req-latency")";
    QTest::newRow("latencyMetric starts with a digit")
            << serveRun(R"("latencyMetric": "9lat")")
            << "run.latencyMetric: " + metricRule + R"("9lat")";
    QTest::newRow("latencyMetric empty")
            << serveRun(R"("latencyMetric": "")") << "run.latencyMetric: " + metricRule + R"("")";
    QTest::newRow("latencyMetric with labels")
            << serveRun(R"("latencyMetric": "lat{model=\"x\"}")")
            << "run.latencyMetric: " + metricRule + R"("lat{model="x"}")";
    QTest::newRow("queueMetric with a dot") << serveRun(R"("queueMetric": "queue.size")")
                                            << "run.queueMetric: " + metricRule + R"("queue.size")";
    QTest::newRow("queueMetric a number") << serveRun(R"("queueMetric": 1)")
                                          << "run.queueMetric: expected a string, got a number";
    const QString customWhy = QStringLiteral(
            R"(required when metricsPreset is "custom" (there are no preset names to fall back on))");
    QTest::newRow("custom without metrics")
            << serveRun(R"("metricsPreset": "custom")") << "run.latencyMetric: " + customWhy;
    QTest::newRow("custom without queue")
            << serveRun(R"("metricsPreset": "custom", "latencyMetric": "lat")")
            << "run.queueMetric: " + customWhy;
    QTest::newRow("custom without latency")
            << serveRun(R"("metricsPreset": "custom", "queueMetric": "q")")
            << "run.latencyMetric: " + customWhy;
    QTest::newRow("latencyUnit without latencyMetric")
            << serveRun(R"("latencyUnit": "ms")")
            << R"(run.latencyUnit: only allowed with run.latencyMetric; the preset "vllm" fixes the unit of its own metric (s))";
    QTest::newRow("latencyUnit with triton preset only")
            << serveRun(R"("metricsPreset": "triton", "queueMetric": "q", "latencyUnit": "s")")
            << R"(run.latencyUnit: only allowed with run.latencyMetric; the preset "triton" fixes the unit of its own metric (us))";
    QTest::newRow("latencyUnit unknown")
            << serveRun(R"("latencyMetric": "lat", "latencyUnit": "ns")")
            << R"(run.latencyUnit: must be one of s, ms, us, got "ns" (did you mean "ms"?))";
    QTest::newRow("latencyUnit µs")
            << serveRun(R"("latencyMetric": "lat", "latencyUnit": "µs")")
            << R"(run.latencyUnit: must be one of s, ms, us, got "µs" (did you mean "ms"?))";
}

void tst_WorkloadSpecRun::runErrors()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, error);
    SpecError e;
    QVERIFY2(!workloadSpecFromJson(json, &e), json.constData());
    QCOMPARE(e.toString(), error);
    // The object overload says the same.
    SpecError fromObject;
    QVERIFY(!workloadSpecFromJson(parse(json), &fromObject));
    QCOMPARE(fromObject.toString(), error);
}

void tst_WorkloadSpecRun::runValidateStruct_data()
{
    QTest::addColumn<int>("mutation");
    QTest::addColumn<QString>("field");

    QTest::newRow("no command") << 0 << "run.command";
    QTest::newRow("empty program") << 1 << "run.command[0]";
    QTest::newRow("NUL in an argument") << 2 << "run.command[1]";
    QTest::newRow("relative workdir") << 3 << "run.workdir";
    QTest::newRow("reserved environment name") << 4 << "run.env.CUDA_VISIBLE_DEVICES";
    QTest::newRow("bad environment name") << 5 << "run.env.A B";
    QTest::newRow("bad user") << 6 << "run.user";
    QTest::newRow("stop signal by number") << 7 << "run.stopSignal";
    QTest::newRow("checkpoint with SIGKILL") << 8 << "run.checkpointSignal";
    QTest::newRow("negative grace") << 9 << "run.stopGrace";
    QTest::newRow("log limit too small") << 10 << "run.logLimit";
    QTest::newRow("progress timeout too long") << 11 << "run.progressTimeout";
    QTest::newRow("port on training") << 12 << "run.port";
    QTest::newRow("ready on training") << 13 << "run.ready";
    QTest::newRow("preset on training") << 14 << "run.metricsPreset";
    QTest::newRow("ready timeout on training") << 15 << "run.readyTimeout";
    QTest::newRow("progress timeout on inference") << 16 << "run.progressTimeout";
    QTest::newRow("port out of range") << 17 << "run.port";
    QTest::newRow("fixed port, two replicas") << 18 << "inference.replicas.max";
    QTest::newRow("custom without names") << 19 << "run.latencyMetric";
    QTest::newRow("unit without metric") << 20 << "run.latencyUnit";
    QTest::newRow("unknown preset value") << 21 << "run.metricsPreset";
    QTest::newRow("bad metrics path") << 22 << "run.metrics";
    QTest::newRow("ready timeout zero") << 23 << "run.readyTimeout";
    QTest::newRow("bad queue metric") << 24 << "run.queueMetric";
}

void tst_WorkloadSpecRun::runValidateStruct()
{
    QFETCH(int, mutation);
    QFETCH(QString, field);
    WorkloadSpec s;
    s.name = QStringLiteral("job");
    s.kind = WorkloadKind::Training;
    s.run = RunSpec{};
    s.run->command = {QStringLiteral("train")};
    SpecError error;
    QVERIFY2(validateWorkloadSpec(s, &error), qPrintable(error.toString()));
    WorkloadSpec service = s;
    service.kind = WorkloadKind::Inference;
    service.inference = InferenceSpec{QStringLiteral("s"), 100, 0, 1, 1};
    QVERIFY2(validateWorkloadSpec(service, &error), qPrintable(error.toString()));

    RunSpec &r = *s.run;
    RunSpec &sr = *service.run;
    bool serving = false;
    switch (mutation) {
    case 0:
        r.command.clear();
        break;
    case 1:
        r.command = {QString(), QStringLiteral("x")};
        break;
    case 2:
        r.command.append(QStringLiteral("a") + QChar(0));
        break;
    case 3:
        r.workdir = QStringLiteral("tmp");
        break;
    case 4:
        r.env.insert(QStringLiteral("CUDA_VISIBLE_DEVICES"), QStringLiteral("0"));
        break;
    case 5:
        r.env.insert(QStringLiteral("A B"), QStringLiteral("0"));
        break;
    case 6:
        r.user = QStringLiteral("Root");
        break;
    case 7:
        r.stopSignal = QStringLiteral("15");
        break;
    case 8:
        r.checkpointSignal = QStringLiteral("SIGKILL");
        break;
    case 9:
        r.stopGraceMs = -1;
        break;
    case 10:
        r.logLimitBytes = 65535;
        break;
    case 11:
        r.progressTimeoutMs = WorkloadSpecLimits::maxProgressTimeoutMs + 1;
        break;
    case 12:
        r.port = 8000;
        break;
    case 13:
        r.ready = QStringLiteral("/health");
        break;
    case 14:
        r.metricsPreset = MetricsPreset::Tgi;
        break;
    case 15:
        r.readyTimeoutMs = 1000;
        break;
    case 16:
        serving = true;
        sr.progressTimeoutMs = 0;
        break;
    case 17:
        serving = true;
        sr.port = 0;
        break;
    case 18:
        serving = true;
        sr.port = 8000;
        service.inference->maxReplicas = 2;
        break;
    case 19:
        serving = true;
        sr.metricsPreset = MetricsPreset::Custom;
        break;
    case 20:
        serving = true;
        sr.latencyUnit = LatencyUnit::Milliseconds;
        break;
    case 21:
        serving = true;
        sr.metricsPreset = MetricsPreset(9);
        break;
    case 22:
        serving = true;
        sr.metrics.clear();
        break;
    case 23:
        serving = true;
        sr.readyTimeoutMs = 0;
        break;
    case 24:
        serving = true;
        sr.queueMetric = QStringLiteral("a-b");
        break;
    }
    QVERIFY(!validateWorkloadSpec(serving ? service : s, &error));
    QCOMPARE(error.field, field);
}

void tst_WorkloadSpecRun::applianceEnvironmentNames()
{
    for (const char *name : {"ZHAOXI_JOB",
                             "ZHAOXI_",
                             "ZHAOXI_ANYTHING",
                             "CUDA_VISIBLE_DEVICES",
                             "NVIDIA_VISIBLE_DEVICES",
                             "CUDA_MPS_PIPE_DIRECTORY",
                             "CUDA_MPS_LOG_DIRECTORY",
                             "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
                             "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"}) {
        QVERIFY2(isApplianceEnvironmentName(QLatin1String(name)), name);
    }
    for (const char *name : {"ZHAOXI",
                             "zhaoxi_job",
                             "CUDA_HOME",
                             "CUDA_DEVICE_ORDER",
                             "NVIDIA_DRIVER_CAPABILITIES",
                             "PATH"}) {
        QVERIFY2(!isApplianceEnvironmentName(QLatin1String(name)), name);
    }
    QCOMPARE(stopSignalNames().size(), checkpointSignalNames().size() + 1);
    QVERIFY(stopSignalNames().contains(QStringLiteral("SIGKILL")));
    QVERIFY(!checkpointSignalNames().contains(QStringLiteral("SIGKILL")));
}

QTEST_GUILESS_MAIN(tst_WorkloadSpecRun)
#include "tst_workloadspec_run.moc"
