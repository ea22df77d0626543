// SPDX-License-Identifier: GPL-3.0-or-later
// The scraper against real processes on loopback: zhaoxi-demo-infer as the server (vLLM's
// metric names), zhaoxi-demo-load and the test itself as clients. Every process a test starts
// is killed by its pid in cleanup(), whatever happened.
// How answers are framed and cut is in tst_scraper_http.cpp.
#include "tests/runtime/scrapertest.h"

class TestScraper : public ScraperTest
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { noProxy(); }
    void cleanup() { killProcesses(); }

    void metricsAreVllmsAndParseClean()
    {
        QString why;
        const quint16 port = startInfer({QStringLiteral("--service-ms"),
                                         QStringLiteral("1"),
                                         QStringLiteral("--model"),
                                         QStringLiteral("llama \"8b\"")},
                                        nullptr,
                                        &why);
        QVERIFY2(port, qPrintable(why));
        Scraper scraper;
        QVERIFY2(waitForHealth(scraper, QStringLiteral("r0"), port, &why), qPrintable(why));
        QCOMPARE(get(url(port, QStringLiteral("/infer"))), 200);
        const std::optional<Scrape> s
                = scrapeNow(scraper, QStringLiteral("r0"), url(port, QStringLiteral("/metrics")));
        QVERIFY(s);
        QVERIFY2(s->ok(), qPrintable(s->error));
        QCOMPARE(s->httpStatus, 200);
        QVERIFY(s->readAtMs > 0);
        QVERIFY2(s->metrics.errors.isEmpty(), qPrintable(s->metrics.errors.value(0).toString()));
        const struct
        {
            const char *name;
            MetricType type;
        } expected[] = {{"vllm:e2e_request_latency_seconds", MetricType::Histogram},
                        {"vllm:num_requests_running", MetricType::Gauge},
                        {"vllm:num_requests_waiting", MetricType::Gauge},
                        {"vllm:request_success_total", MetricType::Counter}};
        for (const auto &e : expected) {
            const Family *f = s->metrics.family(QString::fromLatin1(e.name));
            QVERIFY2(f, e.name);
            QCOMPARE(toString(f->type), toString(e.type));
            QCOMPARE(f->samples.first().label(QStringLiteral("model_name")),
                     QStringLiteral("llama \"8b\""));
        }
        QCOMPARE(s->metrics.samples(QStringLiteral("vllm:request_success_total")).first().value,
                 1.0);
        QCOMPARE(bucketsOf(s->metrics, QStringLiteral("vllm:e2e_request_latency_seconds"))
                         .last()
                         .count,
                 1.0);
    }

    void windowCountsRequestsAndP99RisesWithLoad()
    {
        QString why;
        const quint16 port = startInfer({QStringLiteral("--service-ms"),
                                         QStringLiteral("10"),
                                         QStringLiteral("--cv"),
                                         QStringLiteral("0"),
                                         QStringLiteral("--concurrency"),
                                         QStringLiteral("1")},
                                        nullptr,
                                        &why);
        QVERIFY2(port, qPrintable(why));
        Scraper scraper;
        QVERIFY2(waitForHealth(scraper, QStringLiteral("chat-0"), port, &why), qPrintable(why));
        const QUrl metrics = url(port, QStringLiteral("/metrics"));
        const MetricNames names = metricPreset(QStringLiteral("vllm"));

        // Light load: one request at a time, no queue.
        const std::optional<Scrape> s0 = scrapeNow(scraper, QStringLiteral("chat-0"), metrics);
        QVERIFY(s0 && s0->ok());
        const int sequential = 25;
        for (int i = 0; i < sequential; ++i)
            QCOMPARE(get(url(port, QStringLiteral("/infer"))), 200);
        QTest::qWait(5); // two scrapes are never read in the same millisecond
        const std::optional<Scrape> s1 = scrapeNow(scraper, QStringLiteral("chat-0"), metrics);
        QVERIFY(s1 && s1->ok());
        const ServiceWindow light = windowBetween(*s0, *s1, names);
        QVERIFY2(light.ok(), qPrintable(light.message));
        QCOMPARE(light.requests, double(sequential));
        QVERIFY(light.ratePerSecond > 0);
        QVERIFY(!light.counterReset);

        // Heavy load: arrivals at 4x what one slot serves; a queue builds.
        const QJsonObject summary
                = runLoad({QStringLiteral("--url"),
                           url(port, QStringLiteral("/v1/completions")).toString(),
                           QStringLiteral("--rate"),
                           QStringLiteral("0:400"),
                           QStringLiteral("--for"),
                           QStringLiteral("0.4s"),
                           QStringLiteral("--seed"),
                           QStringLiteral("11")},
                          &why);
        QVERIFY2(!summary.isEmpty(), qPrintable(why));
        QCOMPARE(summary.value(QLatin1String("errors")).toInt(), 0);
        QCOMPARE(summary.value(QLatin1String("dropped")).toInt(), 0);
        const int sent = summary.value(QLatin1String("sent")).toInt();
        QVERIFY(sent > 0);
        QCOMPARE(summary.value(QLatin1String("ok")).toInt(), sent);
        const std::optional<Scrape> s2 = scrapeNow(scraper, QStringLiteral("chat-0"), metrics);
        QVERIFY(s2 && s2->ok());
        const ServiceWindow heavy = windowBetween(*s1, *s2, names);
        QVERIFY2(heavy.ok(), qPrintable(heavy.message));
        QCOMPARE(heavy.requests, double(sent));
        QVERIFY2(heavy.p99Ms > light.p99Ms,
                 qPrintable(QStringLiteral("p99 %1 ms under load, %2 ms without")
                                    .arg(heavy.p99Ms)
                                    .arg(light.p99Ms)));
        QVERIFY(heavy.meanMs > light.meanMs);
        QVERIFY(heavy.overSlo(light.p99Ms) > light.overSlo(light.p99Ms));
        QCOMPARE(heavy.queue, std::optional<double>(0)); // all answered by now
    }

    void aRestartedServerIsCountedFromZero()
    {
        QString why;
        QProcess *first = nullptr;
        const quint16 port
                = startInfer({QStringLiteral("--service-ms"), QStringLiteral("1")}, &first, &why);
        QVERIFY2(port, qPrintable(why));
        Scraper scraper;
        QVERIFY2(waitForHealth(scraper, QStringLiteral("r"), port, &why), qPrintable(why));
        for (int i = 0; i < 5; ++i)
            QCOMPARE(get(url(port, QStringLiteral("/infer"))), 200);
        const std::optional<Scrape> before
                = scrapeNow(scraper, QStringLiteral("r"), url(port, QStringLiteral("/metrics")));
        QVERIFY(before && before->ok());
        ::kill(pid_t(first->processId()), SIGTERM);
        QVERIFY(first->waitForFinished(waitMs));

        QProcess *second = spawn(QStringLiteral(DEMO_INFER_PATH),
                                 {QStringLiteral("--port"),
                                  QString::number(port),
                                  QStringLiteral("--service-ms"),
                                  QStringLiteral("1")});
        QVERIFY(second->waitForStarted(waitMs));
        QVERIFY2(waitForHealth(scraper, QStringLiteral("r"), port, &why), qPrintable(why));
        for (int i = 0; i < 2; ++i)
            QCOMPARE(get(url(port, QStringLiteral("/infer"))), 200);
        const std::optional<Scrape> after
                = scrapeNow(scraper, QStringLiteral("r"), url(port, QStringLiteral("/metrics")));
        QVERIFY(after && after->ok());
        const ServiceWindow w
                = windowBetween(*before, *after, metricPreset(QStringLiteral("vllm")));
        QVERIFY2(w.ok(), qPrintable(w.message));
        QVERIFY(w.counterReset);
        QCOMPARE(w.requests, 2.0);
    }

    void aClosedPortReportsAnError()
    {
        const quint16 port = freeLoopbackPort();
        Scraper scraper;
        const std::optional<Scrape> s
                = scrapeNow(scraper, QStringLiteral("gone"), url(port, QStringLiteral("/metrics")));
        QVERIFY(s);
        QVERIFY(!s->ok());
        QCOMPARE(s->httpStatus, 0);
        QVERIFY2(s->error.contains(QStringLiteral("refused"), Qt::CaseInsensitive),
                 qPrintable(s->error));
        QVERIFY2(s->error.contains(QString::number(port)), qPrintable(s->error));
        QSignalSpy probed(&scraper, &Scraper::probed);
        scraper.probe(QStringLiteral("gone"), url(port, QStringLiteral("/health")));
        QVERIFY(probed.wait(waitMs));
        QCOMPARE(probed.first().at(1).toBool(), false);
        QVERIFY(!probed.first().at(2).toString().isEmpty());
    }

    void notReadyIsNotOk()
    {
        QString why;
        const quint16 port
                = startInfer({QStringLiteral("--warmup"), QStringLiteral("60m")}, nullptr, &why);
        QVERIFY2(port, qPrintable(why));
        Scraper scraper;
        QSignalSpy probed(&scraper, &Scraper::probed);
        scraper.probe(QStringLiteral("w"), url(port, QStringLiteral("/health")));
        QVERIFY(probed.wait(waitMs));
        QCOMPARE(probed.first().at(1).toBool(), false);
        QVERIFY2(probed.first().at(2).toString().contains(QStringLiteral("HTTP 503")),
                 qPrintable(probed.first().at(2).toString()));
        // The metrics are served meanwhile; a non-200 page is an error of the scrape.
        const std::optional<Scrape> s
                = scrapeNow(scraper, QStringLiteral("w"), url(port, QStringLiteral("/infer")));
        QVERIFY(s && !s->ok());
        QCOMPARE(s->httpStatus, 503);
    }

    void aSilentServerTimesOutAndHoldsUpNoOther()
    {
        SilentServer silent;
        QString why;
        const quint16 port = startInfer({}, nullptr, &why);
        QVERIFY2(port, qPrintable(why));
        {
            Scraper scraper;
            scraper.setTimeoutMs(600000);
            QSignalSpy spy(&scraper, &Scraper::scraped);
            scraper.scrape(QStringLiteral("slow"), url(silent.port(), QStringLiteral("/metrics")));
            scraper.scrape(QStringLiteral("fast"), url(port, QStringLiteral("/metrics")));
            QVERIFY(spy.wait(waitMs));
            QCOMPARE(spy.first().at(0).toString(), QStringLiteral("fast"));
            QVERIFY(spy.first().at(1).value<Scrape>().ok());
            QVERIFY(scraper.isScraping(QStringLiteral("slow")));
            // Leaving the scope destroys the scraper with "slow" in flight: that must not hang.
        }
        Scraper scraper;
        scraper.setTimeoutMs(200);
        QCOMPARE(scraper.timeoutMs(), 200);
        QSignalSpy spy(&scraper, &Scraper::scraped);
        scraper.scrape(QStringLiteral("slow"), url(silent.port(), QStringLiteral("/metrics")));
        QVERIFY(spy.wait(waitMs));
        const Scrape s = spy.first().at(1).value<Scrape>();
        QVERIFY(!s.ok());
        QVERIFY2(s.error.endsWith(QStringLiteral("timed out after 200 ms")), qPrintable(s.error));
    }

    void oneRequestInFlightPerKey()
    {
        SilentServer silent;
        Scraper scraper;
        scraper.setTimeoutMs(300);
        QSignalSpy spy(&scraper, &Scraper::scraped);
        const QUrl where = url(silent.port(), QStringLiteral("/metrics"));
        scraper.scrape(QStringLiteral("k"), where);
        scraper.scrape(QStringLiteral("k"), where); // skipped: one is in flight
        scraper.scrape(QStringLiteral("k"), where);
        QCOMPARE(scraper.skippedCount(), qint64(2));
        scraper.probe(QStringLiteral("k"), where); // probes are counted apart from scrapes
        QCOMPARE(scraper.skippedCount(), qint64(2));
        QVERIFY(spy.wait(waitMs));
        QTest::qWait(200); // a second report, if there were one, would come now
        QCOMPARE(spy.size(), 1);
        QVERIFY(!scraper.isScraping(QStringLiteral("k")));
        scraper.scrape(QStringLiteral("k"), where); // free again
        QCOMPARE(scraper.skippedCount(), qint64(2));
        QVERIFY(spy.wait(waitMs));
        QCOMPARE(spy.size(), 2);
    }

    // ---- the HTTP client against odd servers (ScriptedServer) ----------------------------------

    void keepAliveUsesOneConnection()
    {
        ScriptedServer server([](QTcpSocket *s, int, const QByteArray &) { s->write(okAnswer()); });
        Scraper scraper;
        QThread *reportedOn = nullptr;
        connect(&scraper, &Scraper::scraped, this, [&reportedOn] {
            reportedOn = QThread::currentThread();
        });
        const QUrl where = url(server.port(), QStringLiteral("/metrics?x=1"));
        const int n = 20;
        for (int i = 0; i < n; ++i) {
            const std::optional<Scrape> s = scrapeNow(scraper, QStringLiteral("k"), where);
            QVERIFY(s);
            QVERIFY2(s->ok(), qPrintable(s->error));
            QCOMPARE(s->httpStatus, 200);
            QCOMPARE(s->metrics.samples(QStringLiteral("up")).value(0).value, 1.0);
        }
        QCOMPARE(reportedOn, QThread::currentThread()); // the owner's thread
        QCOMPARE(server.requests(), n);
        QCOMPARE(server.connections(), 1);
        const QByteArray head = server.heads().first();
        QVERIFY2(head.startsWith("GET /metrics?x=1 HTTP/1.1\r\n"), head.constData());
        const QByteArray host = "\r\nHost: 127.0.0.1:" + QByteArray::number(server.port()) + "\r\n";
        QVERIFY2(head.contains(host), head.constData());
        QVERIFY2(head.contains("\r\nConnection: keep-alive\r\n"), head.constData());
    }

    void aScrapeAndAProbeOfOneServerAtOnce()
    {
        // Answers held back until both requests are in: neither may wait for the other.
        QList<QPair<QTcpSocket *, QByteArray>> held;
        ScriptedServer server([&held](QTcpSocket *s, int, const QByteArray &head) {
            held.append({s, head});
            if (held.size() < 2)
                return;
            for (const auto &[socket, h] : std::as_const(held))
                socket->write(h.startsWith("GET /health")
                                      ? QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
                                      : okAnswer());
        });
        Scraper scraper;
        QSignalSpy scraped(&scraper, &Scraper::scraped);
        QSignalSpy probed(&scraper, &Scraper::probed);
        scraper.scrape(QStringLiteral("r"), url(server.port(), QStringLiteral("/metrics")));
        scraper.probe(QStringLiteral("r"), url(server.port(), QStringLiteral("/health")));
        QVERIFY(scraper.isScraping(QStringLiteral("r")) && scraper.isProbing(QStringLiteral("r")));
        QTRY_VERIFY_WITH_TIMEOUT(scraped.size() == 1 && probed.size() == 1, waitMs);
        QVERIFY(scraped.first().at(1).value<Scrape>().ok());
        QVERIFY(probed.first().at(1).toBool());
        QCOMPARE(server.connections(), 2);
        QCOMPARE(scraper.skippedCount(), qint64(0));
    }

    void aHostNameIsLookedUp()
    {
        ScriptedServer server([](QTcpSocket *s, int, const QByteArray &) { s->write(okAnswer()); });
        Scraper scraper;
        const QUrl where(QStringLiteral("http://localhost:%1/metrics").arg(server.port()));
        const std::optional<Scrape> s = scrapeNow(scraper, QStringLiteral("n"), where);
        QVERIFY(s);
        QVERIFY2(s->ok(), qPrintable(s->error));
        QVERIFY(server.heads().value(0).contains(
                QByteArray("\r\nHost: localhost:" + QByteArray::number(server.port()) + "\r\n")));
    }

    void onlyHttpUrls()
    {
        Scraper scraper;
        QSignalSpy spy(&scraper, &Scraper::scraped);
        scraper.scrape(QStringLiteral("s"), QUrl(QStringLiteral("https://127.0.0.1:1/metrics")));
        QCOMPARE(spy.size(), 0); // never from inside scrape()
        QVERIFY(spy.wait(waitMs));
        const Scrape s = spy.first().at(1).value<Scrape>();
        QCOMPARE(
                s.error,
                QStringLiteral("GET https://127.0.0.1:1/metrics: only http:// URLs are supported"));
        QVERIFY(!scraper.isScraping(QStringLiteral("s")));
    }

    void loadFollowsThePublishedEndpoints()
    {
        QString why;
        const quint16 a
                = startInfer({QStringLiteral("--service-ms"), QStringLiteral("2")}, nullptr, &why);
        QVERIFY2(a, qPrintable(why));
        const quint16 b
                = startInfer({QStringLiteral("--service-ms"), QStringLiteral("2")}, nullptr, &why);
        QVERIFY2(b, qPrintable(why));
        const quint16 notReady = freeLoopbackPort();
        QTemporaryDir dir;
        EndpointPublisher publisher(dir.path());
        const EndpointPublisher::Result r = publisher.publish(
                {{QStringLiteral("chat"),
                  {{QStringLiteral("chat-0"), QStringLiteral("127.0.0.1"), a, true},
                   {QStringLiteral("chat-1"), QStringLiteral("127.0.0.1"), b, true},
                   {QStringLiteral("chat-2"), QStringLiteral("127.0.0.1"), notReady, false}}}},
                QDateTime::currentMSecsSinceEpoch());
        QVERIFY2(r.ok, qPrintable(r.error));
        Scraper scraper;
        const std::optional<Scrape> a0
                = scrapeNow(scraper, QStringLiteral("a"), url(a, QStringLiteral("/metrics")));
        const std::optional<Scrape> b0
                = scrapeNow(scraper, QStringLiteral("b"), url(b, QStringLiteral("/metrics")));
        QVERIFY(a0 && a0->ok() && b0 && b0->ok());
        const QJsonObject summary = runLoad({QStringLiteral("--endpoints"),
                                             publisher.jsonPath(),
                                             QStringLiteral("--service"),
                                             QStringLiteral("chat"),
                                             QStringLiteral("--rate"),
                                             QStringLiteral("0:40,0.5s:80"),
                                             QStringLiteral("--for"),
                                             QStringLiteral("1s"),
                                             QStringLiteral("--seed"),
                                             QStringLiteral("5")},
                                            &why);
        QVERIFY2(!summary.isEmpty(), qPrintable(why));
        const int ok = summary.value(QLatin1String("ok")).toInt();
        QCOMPARE(summary.value(QLatin1String("errors")).toInt(), 0);
        QCOMPARE(ok, summary.value(QLatin1String("sent")).toInt());
        QVERIFY(ok >= 2);
        QVERIFY(summary.value(QLatin1String("p50_ms")).isDouble());
        const std::optional<Scrape> a1
                = scrapeNow(scraper, QStringLiteral("a"), url(a, QStringLiteral("/metrics")));
        const std::optional<Scrape> b1
                = scrapeNow(scraper, QStringLiteral("b"), url(b, QStringLiteral("/metrics")));
        QVERIFY(a1 && a1->ok() && b1 && b1->ok());
        const MetricNames names = metricPreset(QStringLiteral("vllm"));
        const double ra = windowBetween(*a0, *a1, names).requests;
        const double rb = windowBetween(*b0, *b1, names).requests;
        QCOMPARE(ra + rb, double(ok));
        QVERIFY2(qAbs(ra - rb) <= 1,
                 qPrintable(QStringLiteral("%1 vs %2").arg(ra).arg(rb))); // round robin
    }

    void loadReadsTheEndpointsAgainWhenTheyChange()
    {
        QString why;
        const quint16 port
                = startInfer({QStringLiteral("--service-ms"), QStringLiteral("1")}, nullptr, &why);
        QVERIFY2(port, qPrintable(why));
        QTemporaryDir dir;
        EndpointPublisher publisher(dir.path());
        ServiceEndpoints services{
                {QStringLiteral("chat"),
                 {{QStringLiteral("chat-0"), QStringLiteral("127.0.0.1"), port, false}}}};
        QVERIFY(publisher.publish(services, 0).ok);
        Scraper scraper;
        const std::optional<Scrape> s0
                = scrapeNow(scraper, QStringLiteral("c"), url(port, QStringLiteral("/metrics")));
        QVERIFY(s0 && s0->ok());
        QProcess *load = spawn(QStringLiteral(DEMO_LOAD_PATH),
                               {QStringLiteral("--endpoints"),
                                publisher.jsonPath(),
                                QStringLiteral("--service"),
                                QStringLiteral("chat"),
                                QStringLiteral("--rate"),
                                QStringLiteral("0:40"),
                                QStringLiteral("--for"),
                                QStringLiteral("3s"),
                                QStringLiteral("--seed"),
                                QStringLiteral("2")});
        QVERIFY(load->waitForStarted(waitMs));
        // The replica becomes ready while the load runs: the load must find it.
        services[QStringLiteral("chat")].first().ready = true;
        QVERIFY(publisher.publish(services, 1000).jsonWritten);
        QVERIFY(load->waitForFinished(120000));
        QCOMPARE(load->exitCode(), 0);
        const QJsonObject summary = QJsonDocument::fromJson(load->readAllStandardOutput()).object();
        const int ok = summary.value(QLatin1String("ok")).toInt();
        QVERIFY2(ok > 0, QJsonDocument(summary).toJson().constData());
        // Whatever failed, failed for want of a ready replica.
        QCOMPARE(summary.value(QLatin1String("errors")).toInt(),
                 summary.value(QLatin1String("no_endpoint")).toInt());
        QCOMPARE(ok + summary.value(QLatin1String("errors")).toInt(),
                 summary.value(QLatin1String("sent")).toInt());
        const std::optional<Scrape> s1
                = scrapeNow(scraper, QStringLiteral("c"), url(port, QStringLiteral("/metrics")));
        QVERIFY(s1 && s1->ok());
        QCOMPARE(windowBetween(*s0, *s1, metricPreset(QStringLiteral("vllm"))).requests,
                 double(ok));
    }

    void sigtermExitsZero()
    {
        QString why;
        QProcess *p = nullptr;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"), QStringLiteral("25"));
        env.insert(QStringLiteral("CUDA_VISIBLE_DEVICES"), QStringLiteral("GPU-1234"));
        const quint16 port = startInfer({}, &p, &why, env);
        QVERIFY2(port, qPrintable(why));
        const QByteArray startLine = p->property("startLine").toByteArray();
        QVERIFY2(startLine.contains("share=0.25"), startLine.constData());
        QVERIFY2(startLine.contains("CUDA_VISIBLE_DEVICES=GPU-1234"), startLine.constData());
        // An idle keep-alive connection must not keep it from stopping.
        QTcpSocket idle;
        idle.connectToHost(QHostAddress::LocalHost, port);
        QVERIFY(idle.waitForConnected(waitMs));
        ::kill(pid_t(p->processId()), SIGTERM);
        QVERIFY(p->waitForFinished(waitMs));
        QCOMPARE(p->exitStatus(), QProcess::NormalExit);
        QCOMPARE(p->exitCode(), 0);
        QVERIFY(p->readAllStandardOutput().contains("stopping on SIGTERM"));
    }

    void aPortIsRequired()
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("ZHAOXI_PORT"));
        QProcess *none = spawn(QStringLiteral(DEMO_INFER_PATH), {}, env);
        QVERIFY(none->waitForFinished(waitMs));
        QCOMPARE(none->exitCode(), 2);
        QVERIFY(none->readAllStandardError().contains("no port: give --port N or set ZHAOXI_PORT"));

        QTcpServer holder;
        QVERIFY(holder.listen(QHostAddress::LocalHost, 0));
        env.insert(QStringLiteral("ZHAOXI_PORT"), QString::number(holder.serverPort()));
        QProcess *taken = spawn(QStringLiteral(DEMO_INFER_PATH), {}, env);
        QVERIFY(taken->waitForFinished(waitMs));
        QCOMPARE(taken->exitCode(), 2);
        QVERIFY(taken->readAllStandardError().contains(QByteArray(
                "cannot listen on 127.0.0.1:" + QByteArray::number(holder.serverPort()))));

        // ZHAOXI_PORT alone is enough.
        holder.close();
        const quint16 port = freeLoopbackPort();
        env.insert(QStringLiteral("ZHAOXI_PORT"), QString::number(port));
        QProcess *byEnv = spawn(QStringLiteral(DEMO_INFER_PATH), {}, env);
        QVERIFY(byEnv->waitForReadyRead(waitMs));
        QVERIFY(byEnv->readAllStandardOutput().contains(
                QByteArray("listening on 127.0.0.1:" + QByteArray::number(port))));
    }
};

QTEST_GUILESS_MAIN(TestScraper)
#include "tst_scraper.moc"
