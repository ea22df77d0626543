// SPDX-License-Identifier: GPL-3.0-or-later
// /metrics over HTTP: --metrics-listen's ADDR:PORT, the endpoint's answers (the text format's
// content type, 404 for anything else, a port already taken), and Debian's real Prometheus
// scraping the digital twin through it: a card's temperature and a service's p99 as
// Prometheus' HTTP API returns them equal what the service reports.
#include "core/catalogue/catalogue.h"
#include "core/runtime/promtext.h"
#include "core/service/exposition.h"
#include "core/service/metricsendpoint.h"
#include "core/session/simulationsession.h"
#include "core/sim/scenario.h"

#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUrlQuery>

#include <limits>
#include <optional>

#include <signal.h>

using namespace Zhaoxi;
using Service::ListenAddress;
using Service::MetricsEndpoint;

namespace {

const QString kPrometheus = QStringLiteral("/usr/bin/prometheus");

// One H200 in MIG mode serving "chat" on a 3g.71gb instance, one whole H200 training "big".
const char kScenario[] = R"({
    "name": "metrics test",
    "start": "2026-01-05T09:00:00+08:00",
    "duration": "4h",
    "seed": 5,
    "appliance": {"name": "metrics", "hosts": [
        {"name": "h", "cpu": 64, "memoryGiB": 512,
         "cards": [{"model": "H200-141GB", "mode": "mig"},
                   {"model": "H200-141GB", "mode": "whole"}]}]},
    "history": {"days": 1, "noise": 0},
    "services": [{
        "spec": {"name": "chat", "kind": "inference",
                 "demand": {"compute": {"profile": "3g.71gb"}, "memoryGiB": 40},
                 "priority": 500, "preemption": "never", "isolation": "hard",
                 "inference": {"service": "chat", "sloP99Ms": 1000, "replicas": {"min": 1, "max": 1}}},
        "serviceTimeMs": 50, "rate": {"constant": 5}}],
    "training": [
        {"spec": {"name": "big", "kind": "training", "demand": {"compute": {"wholeCard": true}},
                  "time": {"expectedDuration": "10h"}, "priority": 100, "preemption": "checkpoint",
                  "checkpointInterval": "10m"}}],
    "policy": {"default": "static", "static": {"inferenceShare": 0.5}}
})";

Sim::Scenario scenario()
{
    static const Catalogue::Catalogue catalogue = Catalogue::Catalogue::builtIn();
    Sim::ScenarioError err;
    auto s = Sim::readScenario(QByteArray(kScenario),
                               QStringLiteral("metrics.json"),
                               QString::fromUtf8(ZHAOXI_SOURCE_DIR)
                                       + QStringLiteral("/resources/scenarios"),
                               catalogue,
                               &err);
    if (!s)
        qFatal("%s", qPrintable(err.toString()));
    return *s;
}

struct Reply
{
    int status = 0;
    QByteArray contentType;
    QByteArray body;
};

// One request, waited for in a local event loop (which also lets the endpoint under test,
// on this thread, answer it).
Reply request(QNetworkAccessManager &net, const QByteArray &verb, const QUrl &url)
{
    QNetworkRequest req(url);
    QNetworkReply *reply = net.sendCustomRequest(req, verb);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(10'000, &loop, &QEventLoop::quit);
    loop.exec();
    Reply r;
    r.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    r.contentType = reply->rawHeader("Content-Type");
    r.body = reply->readAll();
    reply->deleteLater();
    return r;
}

quint16 freePort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 0;
    return probe.serverPort(); // closed when probe goes: a small race, fine on a test machine
}

// The one value of an instant query's vector result; nullopt while there is none.
std::optional<double> promValue(QNetworkAccessManager &net, quint16 port, const QString &query)
{
    QUrl url(QStringLiteral("http://127.0.0.1:%1/api/v1/query").arg(port));
    QUrlQuery q;
    q.addQueryItem(QStringLiteral("query"), query);
    url.setQuery(q);
    const Reply r = request(net, "GET", url);
    if (r.status != 200)
        return std::nullopt;
    const QJsonObject root = QJsonDocument::fromJson(r.body).object();
    const QJsonArray result = root.value("data").toObject().value("result").toArray();
    if (root.value("status").toString() != QLatin1String("success") || result.size() != 1)
        return std::nullopt;
    // [ <time>, "<value>" ]: Prometheus writes the float64 as the shortest decimal of it.
    bool ok = false;
    const double v = result[0].toObject().value("value").toArray().at(1).toString().toDouble(&ok);
    return ok ? std::optional<double>(v) : std::nullopt;
}

double textValue(const QByteArray &text, const QString &name, const Runtime::Labels &match)
{
    for (const Runtime::Sample &s : Runtime::parseExposition(text).samples(name)) {
        bool all = true;
        for (const auto &[k, v] : match)
            all = all && s.label(k) == v;
        if (all)
            return s.value;
    }
    return std::numeric_limits<double>::quiet_NaN();
}

} // namespace

class TestPrometheus : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void listenAddress_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("address"); // empty: refused
        QTest::addColumn<int>("port");
        QTest::addColumn<QString>("error"); // a part of it
        QTest::newRow("IPv4 loopback") << "127.0.0.1:9400"
                                       << "127.0.0.1" << 9400 << "";
        QTest::newRow("any IPv4") << "0.0.0.0:9400"
                                  << "0.0.0.0" << 9400 << "";
        QTest::newRow("IPv6 loopback") << "[::1]:9401"
                                       << "::1" << 9401 << "";
        QTest::newRow("localhost") << "localhost:80"
                                   << "127.0.0.1" << 80 << "";
        QTest::newRow("no port") << "127.0.0.1"
                                 << "" << 0 << "expected ADDR:PORT";
        QTest::newRow("empty port") << "127.0.0.1:"
                                    << "" << 0 << "expected ADDR:PORT";
        QTest::newRow("no address") << ":9400"
                                    << "" << 0 << "expected ADDR:PORT";
        QTest::newRow("port 0") << "127.0.0.1:0"
                                << "" << 0 << "bad port";
        QTest::newRow("port too big") << "127.0.0.1:65536"
                                      << "" << 0 << "bad port";
        QTest::newRow("port not a number") << "127.0.0.1:http"
                                           << "" << 0 << "bad port";
        QTest::newRow("IPv6 unbracketed") << "::1:9400"
                                          << "" << 0 << "bad address";
        QTest::newRow("host name") << "example.org:9400"
                                   << "" << 0 << "bad address";
        QTest::newRow("bad IPv4") << "127.0.0.300:9400"
                                  << "" << 0 << "bad address";
    }

    void listenAddress()
    {
        QFETCH(QString, text);
        QFETCH(QString, address);
        QFETCH(int, port);
        QFETCH(QString, error);
        QString why;
        const std::optional<ListenAddress> a = Service::parseListenAddress(text, &why);
        if (address.isEmpty()) {
            QVERIFY(!a);
            QVERIFY2(why.contains(error), qPrintable(why));
            return;
        }
        QVERIFY2(a, qPrintable(why));
        QCOMPARE(a->address, QHostAddress(address));
        QCOMPARE(int(a->port), port);
    }

    void servesTheTextFormat()
    {
        int calls = 0;
        MetricsEndpoint endpoint([&] {
            ++calls;
            return QByteArrayLiteral("# TYPE up gauge\nup 1\n");
        });
        QSignalSpy scraped(&endpoint, &MetricsEndpoint::scraped);
        QString error;
        const quint16 port = endpoint.listen(QHostAddress::LocalHost, 0, &error);
        QVERIFY2(port != 0, qPrintable(error));
        QCOMPARE(endpoint.port(), port);
        QNetworkAccessManager net;
        const QString base = QStringLiteral("http://127.0.0.1:%1").arg(port);

        const Reply ok = request(net, "GET", QUrl(base + "/metrics"));
        QCOMPARE(ok.status, 200);
        QCOMPARE(ok.contentType, QByteArray("text/plain; version=0.0.4; charset=utf-8"));
        QCOMPARE(ok.body, QByteArray("# TYPE up gauge\nup 1\n"));
        QCOMPARE(calls, 1);
        QCOMPARE(scraped.count(), 1);
        QCOMPARE(endpoint.scrapes(), quint64(1));

        QCOMPARE(request(net, "GET", QUrl(base + "/")).status, 404);
        QCOMPARE(request(net, "GET", QUrl(base + "/metrics/x")).status, 404);
        QCOMPARE(request(net, "POST", QUrl(base + "/metrics")).status, 404);
        QCOMPARE(calls, 1); // only a GET /metrics renders
        QCOMPARE(request(net, "GET", QUrl(base + "/metrics?x=1")).status, 200);
        QCOMPARE(calls, 2);
    }

    void listenFailuresAreTold()
    {
        MetricsEndpoint first([] { return QByteArray(); });
        QString error;
        const quint16 port = first.listen(QHostAddress::LocalHost, 0, &error);
        QVERIFY2(port != 0, qPrintable(error));
        QCOMPARE(first.listen(QHostAddress::LocalHost, 0, &error), quint16(0));
        QVERIFY2(error.contains("already listening"), qPrintable(error));

        MetricsEndpoint second([] { return QByteArray(); });
        QCOMPARE(second.listen(QHostAddress::LocalHost, port, &error), quint16(0));
        QVERIFY2(error.contains(QStringLiteral("cannot listen on 127.0.0.1:%1").arg(port)),
                 qPrintable(error));
        QCOMPARE(second.port(), quint16(0));
        // 192.0.2.1 (TEST-NET-1) is no address of this machine.
        QCOMPARE(second.listen(QHostAddress(QStringLiteral("192.0.2.1")), 0, &error), quint16(0));
        QVERIFY2(error.contains("cannot listen"), qPrintable(error));
    }

    void prometheusScrapesTheTwin()
    {
        if (!QFile::exists(kPrometheus))
            QSKIP("Debian's prometheus is not installed (/usr/bin/prometheus)");

        // The twin at 09:40, stepped by hand: what it reports stays put while Prometheus reads.
        Session::SimulationSession session(scenario(), QString(), 5);
        Service::MetricsExporter exporter;
        QObject::connect(&session,
                         &Session::ApplianceSession::snapshotReady,
                         &session,
                         [&](Session::SnapshotPtr s) { exporter.observe(std::move(s)); });
        session.runTo(40 * 60'000);
        const Session::SnapshotPtr snap = session.latest();
        QVERIFY(snap);
        QCOMPARE(exporter.latest(), snap);
        QCOMPARE(snap->cards.size(), 2);
        QCOMPARE(snap->services.size(), 1);
        QVERIFY2(snap->services[0].p99Ms > 0, "chat served requests");
        QVERIFY(snap->cards[1].temperatureC > 0);

        MetricsEndpoint endpoint([&] { return exporter.render(); });
        QString error;
        const quint16 port = endpoint.listen(QHostAddress::LocalHost, 0, &error);
        QVERIFY2(port != 0, qPrintable(error));

        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const quint16 promPort = freePort();
        QVERIFY(promPort != 0);
        QFile config(dir.filePath(QStringLiteral("prometheus.yml")));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write(QStringLiteral("global:\n"
                                    "  scrape_interval: 1s\n"
                                    "  evaluation_interval: 1s\n"
                                    "scrape_configs:\n"
                                    "  - job_name: zhaoxi\n"
                                    "    scrape_interval: 1s\n"
                                    "    scrape_timeout: 1s\n"
                                    "    static_configs:\n"
                                    "      - targets: ['127.0.0.1:%1']\n")
                             .arg(port)
                             .toUtf8());
        config.close();
        QProcess prometheus;
        prometheus.setProcessChannelMode(QProcess::MergedChannels);
        prometheus.start(kPrometheus,
                         {QStringLiteral("--config.file=") + config.fileName(),
                          QStringLiteral("--storage.tsdb.path=") + dir.filePath("tsdb"),
                          QStringLiteral("--web.listen-address=127.0.0.1:%1").arg(promPort)});
        QVERIFY2(prometheus.waitForStarted(), qPrintable(prometheus.errorString()));
        const qint64 pid = prometheus.processId();
        const auto stop = qScopeGuard([&] {
            // By its PID, as it was started; then wait for it so that its TSDB lock is gone
            // before the temporary directory is.
            if (prometheus.state() != QProcess::NotRunning) {
                ::kill(pid_t(pid), SIGTERM);
                if (!prometheus.waitForFinished(15'000)) {
                    ::kill(pid_t(pid), SIGKILL);
                    prometheus.waitForFinished(5'000);
                }
            }
        });

        // Prometheus has scraped us once its scrape of the target is counted in `up`...
        QNetworkAccessManager net;
        QTRY_VERIFY_WITH_TIMEOUT(
                endpoint.scrapes() > 0 || prometheus.state() == QProcess::NotRunning, 60'000);
        QVERIFY2(prometheus.state() == QProcess::Running, prometheus.readAll().constData());
        std::optional<double> up;
        QTRY_VERIFY_WITH_TIMEOUT((up = promValue(net, promPort, "up{job=\"zhaoxi\"}")), 60'000);
        QCOMPARE(*up, 1.0);

        // ... and its API then returns what /metrics said.
        const QByteArray text = exporter.render();
        const QString tempQuery = QStringLiteral("DCGM_FI_DEV_GPU_TEMP{Hostname=\"h\",gpu=\"1\"}");
        std::optional<double> temp;
        QTRY_VERIFY_WITH_TIMEOUT((temp = promValue(net, promPort, tempQuery)), 30'000);
        const double tempText = textValue(text, "DCGM_FI_DEV_GPU_TEMP", {{"gpu", "1"}});
        QVERIFY2(*temp == tempText,
                 qPrintable(QStringLiteral("%1 vs %2").arg(*temp).arg(tempText)));
        QCOMPARE(*temp, snap->cards[1].temperatureC);

        const QString p99Query = QStringLiteral(
                "zhaoxi_inference_latency_seconds{service=\"chat\",quantile=\"0.99\"}");
        std::optional<double> p99;
        QTRY_VERIFY_WITH_TIMEOUT((p99 = promValue(net, promPort, p99Query)), 30'000);
        const double p99Text = textValue(text,
                                         "zhaoxi_inference_latency_seconds",
                                         {{"service", "chat"}, {"quantile", "0.99"}});
        QVERIFY2(*p99 == p99Text, qPrintable(QStringLiteral("%1 vs %2").arg(*p99).arg(p99Text)));
        QCOMPARE(*p99, snap->services[0].p99Ms / 1000.0);

        // The dashboard's per-instance panels find the MIG card's instances too.
        std::optional<double> instances;
        QTRY_VERIFY_WITH_TIMEOUT(
                (instances = promValue(net,
                                       promPort,
                                       "count(DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\","
                                       "GPU_I_PROFILE=\"3g.71gb\"})")),
                30'000);
        QVERIFY(*instances >= 1);
    }
};

QTEST_GUILESS_MAIN(TestPrometheus)
#include "tst_prometheus.moc"
