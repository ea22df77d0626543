// SPDX-License-Identifier: GPL-3.0-or-later
// The scraper against real processes on loopback: zhaoxi-demo-infer as the server (vLLM's
// metric names), zhaoxi-demo-load and the test itself as clients. Every process a test starts
// is killed by its pid in cleanup(), whatever happened.
#include "core/runtime/endpoints.h"
#include "core/runtime/scraper.h"

#include <QtTest>

#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QProcess>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>

#include <csignal>
#include <functional>
#include <memory>
#include <sys/types.h>

using namespace Zhaoxi::Runtime;

namespace {

constexpr int waitMs = 30000; // generous: the machine is shared

quint16 freeLoopbackPort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 0;
    return probe.serverPort(); // closed when `probe` goes: a small race, retried by startInfer
}

QUrl url(quint16 port, const QString &path)
{
    return QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(port).arg(path));
}

// A loopback server that accepts connections and never answers.
class SilentServer
{
public:
    SilentServer()
    {
        m_server.listen(QHostAddress::LocalHost, 0);
        QObject::connect(&m_server, &QTcpServer::newConnection, &m_server, [this] {
            while (QTcpSocket *s = m_server.nextPendingConnection())
                s->setParent(&m_server);
        });
    }
    quint16 port() const { return m_server.serverPort(); }

private:
    QTcpServer m_server;
};

// A loopback HTTP server whose answers the test writes. Each request head that arrives is handed
// to `answer` with the number of that request on its connection (from 1); it writes to the
// socket what the server is to send, and may close it. Counts connections and requests.
class ScriptedServer
{
public:
    using Answer = std::function<void(QTcpSocket *socket, int nth, const QByteArray &head)>;

    explicit ScriptedServer(Answer answer)
        : m_answer(std::move(answer))
    {
        m_server.listen(QHostAddress::LocalHost, 0);
        QObject::connect(&m_server, &QTcpServer::newConnection, &m_server, [this] {
            while (QTcpSocket *s = m_server.nextPendingConnection()) {
                s->setParent(&m_server);
                ++m_connections;
                QObject::connect(s, &QTcpSocket::readyRead, s, [this, s] { read(s); });
                QObject::connect(s, &QTcpSocket::disconnected, s, [this, s] {
                    ++m_closed;
                    m_buffers.remove(s);
                    s->deleteLater();
                });
            }
        });
    }
    ~ScriptedServer()
    {
        // Before the members the sockets' signals refer to are gone.
        const QList<QTcpSocket *> sockets = m_server.findChildren<QTcpSocket *>();
        for (QTcpSocket *s : sockets) {
            s->disconnect();
            delete s;
        }
    }
    quint16 port() const { return m_server.serverPort(); }
    int connections() const { return m_connections; }
    int closed() const { return m_closed; } // connections that are closed by now, by either side
    int requests() const { return m_heads.size(); }
    QList<QByteArray> heads() const { return m_heads; }

private:
    void read(QTcpSocket *s)
    {
        QByteArray &buffer = m_buffers[s];
        buffer += s->readAll();
        for (qsizetype end; (end = buffer.indexOf("\r\n\r\n")) >= 0;) {
            const QByteArray head = buffer.left(end + 4);
            buffer.remove(0, end + 4);
            m_heads.append(head);
            const int nth = s->property("requests").toInt() + 1;
            s->setProperty("requests", nth);
            m_answer(s, nth, head); // may close (and so delete later) the socket
            if (!m_buffers.contains(s))
                return;
        }
    }

    QTcpServer m_server;
    Answer m_answer;
    QHash<QTcpSocket *, QByteArray> m_buffers;
    QList<QByteArray> m_heads;
    int m_connections = 0;
    int m_closed = 0;
};

const QByteArray upBody = "# TYPE up gauge\nup 1\n";

QByteArray okAnswer(const QByteArray &body = upBody, const QByteArray &headers = {})
{
    return "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: "
           + QByteArray::number(body.size()) + "\r\n" + headers + "\r\n" + body;
}

// Writes `pieces` one by one, 10 ms apart (so that they arrive apart), then closes the socket if
// `close`.
void writeInPieces(QTcpSocket *socket, const QList<QByteArray> &pieces, bool close)
{
    if (pieces.size() == 1) {
        socket->write(pieces.first());
        if (close)
            socket->disconnectFromHost();
        return;
    }
    for (qsizetype i = 0; i < pieces.size(); ++i) {
        QTimer::singleShot(int(10 * i), socket, [socket, piece = pieces.at(i)] {
            socket->write(piece);
            socket->flush();
        });
    }
    if (close)
        QTimer::singleShot(
                int(10 * pieces.size()), socket, [socket] { socket->disconnectFromHost(); });
}

} // namespace

class TestScraper : public QObject
{
    Q_OBJECT

private:
    QList<QProcess *> m_processes;
    QNetworkAccessManager m_nam;

    QProcess *spawn(const QString &program,
                    const QStringList &args,
                    const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
    {
        auto *p = new QProcess(this);
        p->setProcessEnvironment(env);
        p->setProgram(program);
        p->setArguments(args);
        m_processes.append(p);
        p->start();
        return p;
    }

    // Starts zhaoxi-demo-infer on a free port and waits for its start line. Returns the port,
    // 0 on failure (with the reason in *why).
    quint16 startInfer(const QStringList &extra,
                       QProcess **out = nullptr,
                       QString *why = nullptr,
                       const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
    {
        for (int attempt = 0; attempt < 5; ++attempt) {
            const quint16 port = freeLoopbackPort();
            QProcess *p
                    = spawn(QStringLiteral(DEMO_INFER_PATH),
                            QStringList{QStringLiteral("--port"), QString::number(port)} + extra,
                            env);
            QByteArray seen;
            while (!seen.contains('\n') && p->state() != QProcess::NotRunning
                   && (p->waitForReadyRead(waitMs) || p->bytesAvailable() > 0))
                seen += p->readAllStandardOutput();
            if (seen.contains(QByteArray("listening on 127.0.0.1:" + QByteArray::number(port)))) {
                if (out)
                    *out = p;
                p->setProperty("startLine", seen);
                return port;
            }
            p->waitForFinished(waitMs);
            if (why)
                *why = QString::fromUtf8(seen + p->readAllStandardError());
            if (p->exitCode() != 2) // not "port taken": no point in another port
                break;
        }
        return 0;
    }

    static bool waitForHealth(Scraper &scraper, const QString &key, quint16 port, QString *last)
    {
        QSignalSpy spy(&scraper, &Scraper::probed);
        for (int i = 0; i < 200; ++i) {
            scraper.probe(key, url(port, QStringLiteral("/health")));
            if (!spy.wait(waitMs))
                return false;
            const QList<QVariant> r = spy.takeFirst();
            if (r.at(1).toBool())
                return true;
            *last = r.at(2).toString();
            QTest::qWait(50);
        }
        return false;
    }

    static std::optional<Scrape> scrapeNow(Scraper &scraper, const QString &key, const QUrl &where)
    {
        QSignalSpy spy(&scraper, &Scraper::scraped);
        scraper.scrape(key, where);
        if (!spy.wait(waitMs) || spy.first().at(0).toString() != key)
            return std::nullopt;
        return spy.first().at(1).value<Scrape>();
    }

    int get(const QUrl &where)
    {
        QNetworkRequest request(where);
        QNetworkReply *reply = m_nam.get(request);
        QSignalSpy done(reply, &QNetworkReply::finished);
        if (!done.wait(waitMs)) {
            reply->abort();
            reply->deleteLater();
            return -1;
        }
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        reply->deleteLater();
        return status;
    }

    QJsonObject runLoad(const QStringList &args, QString *why)
    {
        QProcess *p = spawn(QStringLiteral(DEMO_LOAD_PATH), args);
        if (!p->waitForFinished(120000) || p->exitCode() != 0) {
            *why = QString::fromUtf8(p->readAllStandardError());
            return {};
        }
        return QJsonDocument::fromJson(p->readAllStandardOutput()).object();
    }

private Q_SLOTS:
    void initTestCase() { m_nam.setProxy(QNetworkProxy::NoProxy); }

    void cleanup()
    {
        for (QProcess *p : std::as_const(m_processes)) {
            if (p->state() != QProcess::NotRunning) {
                ::kill(pid_t(p->processId()), SIGKILL);
                p->waitForFinished(waitMs);
            }
            delete p;
        }
        m_processes.clear();
    }

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

    void answersFramedEachWay_data()
    {
        QTest::addColumn<QList<QByteArray>>("pieces"); // what the server sends for each request
        QTest::addColumn<bool>("serverCloses");        // after each answer
        QTest::addColumn<int>("connections");          // for three scrapes

        const QByteArray chunkedHead = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
        QTest::newRow("Content-Length") << QList<QByteArray>{okAnswer()} << false << 1;
        QTest::newRow("Content-Length, in pieces")
                << QList<QByteArray>{"HTTP/1.1 200 OK\r\nContent-Len",
                                     "gth: 21\r\n\r",
                                     "\n# TYPE up gauge\n",
                                     "up 1\n"}
                << false << 1;
        QTest::newRow("chunked")
                << QList<QByteArray>{chunkedHead
                                     + "10\r\n# TYPE up gauge\n\r\n5\r\nup 1\n\r\n0\r\n\r\n"}
                << false << 1;
        QTest::newRow("chunked, extensions and trailers")
                << QList<QByteArray>{chunkedHead
                                     + "10;a=b\r\n# TYPE up gauge\n\r\n005 \r\nup 1\n\r\n0\r\n"
                                       "X-Checksum: 1\r\n\r\n"}
                << false << 1;
        QTest::newRow("chunked, in pieces") << QList<QByteArray>{"HTTP/1.1 200 OK\r\nTransfer-Enc",
                                                                 "oding: chunked\r\n\r\n1",
                                                                 "0\r\n# TYPE up gauge\n\r",
                                                                 "\n5\r\nup 1\n",
                                                                 "\r\n0\r\n",
                                                                 "\r\n"}
                                            << false << 1;
        QTest::newRow("neither: until the close")
                << QList<QByteArray>{"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n" + upBody}
                << true << 3;
        QTest::newRow("Connection: close")
                << QList<QByteArray>{okAnswer(upBody, "Connection: close\r\n")} << true << 3;
        QTest::newRow("HTTP/1.0") << QList<QByteArray>{
                "HTTP/1.0 200 OK\r\nContent-Length: 21\r\n\r\n"
                + upBody} << true << 3;
        QTest::newRow("100 Continue first")
                << QList<QByteArray>{"HTTP/1.1 100 Continue\r\n\r\n" + okAnswer()} << false << 1;
        QTest::newRow("bare LF line ends")
                << QList<QByteArray>{"HTTP/1.1 200 OK\nContent-Length: 21\n\n" + upBody} << false
                << 1;
    }

    void answersFramedEachWay()
    {
        QFETCH(QList<QByteArray>, pieces);
        QFETCH(bool, serverCloses);
        QFETCH(int, connections);
        ScriptedServer server([&](QTcpSocket *s, int, const QByteArray &) {
            writeInPieces(s, pieces, serverCloses);
        });
        Scraper scraper;
        for (int i = 0; i < 3; ++i) {
            const std::optional<Scrape> s = scrapeNow(
                    scraper, QStringLiteral("k"), url(server.port(), QStringLiteral("/m")));
            QVERIFY(s);
            QVERIFY2(s->ok(), qPrintable(s->error));
            QVERIFY2(s->metrics.errors.isEmpty(),
                     qPrintable(s->metrics.errors.value(0).toString()));
            QCOMPARE(s->metrics.samples(QStringLiteral("up")).value(0).value, 1.0);
        }
        QCOMPARE(server.requests(), 3);
        QCOMPARE(server.connections(), connections);
    }

    void badAnswersAreErrors_data()
    {
        QTest::addColumn<QByteArray>("answer");
        QTest::addColumn<bool>("serverCloses");
        QTest::addColumn<QString>("error"); // the end of the error
        QTest::addColumn<int>("status");

        QTest::newRow("not HTTP") << QByteArray("SSH-2.0-OpenSSH_9.2\r\n\r\n") << false
                                  << QStringLiteral(
                                             "not an HTTP/1.x answer: \"SSH-2.0-OpenSSH_9.2\"")
                                  << 0;
        QTest::newRow("bad Content-Length")
                << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 12x\r\n\r\n") << false
                << QStringLiteral("bad Content-Length in the answer: \"12x\"") << 200;
        QTest::newRow("bad chunk size")
                << QByteArray("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
                << false << QStringLiteral("bad chunk size in the answer: \"zz\"") << 200;
        QTest::newRow("a chunk longer than its size")
                << QByteArray("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n")
                << false << QStringLiteral("a chunk in the answer does not end where its size says")
                << 200;
        QTest::newRow("closed in the body")
                << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nup 1\n") << true
                << QStringLiteral("the server closed the connection before the answer was complete")
                << 200;
        QTest::newRow("closed without answering")
                << QByteArray() << true
                << QStringLiteral("the server closed the connection without answering") << 0;
        QTest::newRow("a redirect is not followed")
                << QByteArray("HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:1/metrics\r\n"
                              "Content-Length: 0\r\n\r\n")
                << false << QStringLiteral("HTTP 302 Found") << 302;
        QTest::newRow("404") << QByteArray("HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\n"
                                           "not here\n")
                             << false << QStringLiteral("HTTP 404 Not Found") << 404;
        QTest::newRow("a status without a reason")
                << QByteArray("HTTP/1.1 500\r\nContent-Length: 0\r\n\r\n") << false
                << QStringLiteral("HTTP 500") << 500;
        QTest::newRow("announced over the cap")
                << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: "
                              + QByteArray::number(Scraper::maxBodyBytes + 1) + "\r\n\r\n")
                << false << QStringLiteral("answer larger than %1 bytes").arg(Scraper::maxBodyBytes)
                << 200;
    }

    void badAnswersAreErrors()
    {
        QFETCH(QByteArray, answer);
        QFETCH(bool, serverCloses);
        QFETCH(QString, error);
        QFETCH(int, status);
        ScriptedServer server([&](QTcpSocket *s, int, const QByteArray &) {
            s->write(answer);
            if (serverCloses)
                s->disconnectFromHost();
        });
        Scraper scraper;
        const QUrl where = url(server.port(), QStringLiteral("/metrics"));
        const std::optional<Scrape> s = scrapeNow(scraper, QStringLiteral("k"), where);
        QVERIFY(s);
        QVERIFY(!s->ok());
        QVERIFY2(s->error.startsWith(QStringLiteral("GET ") + where.toString()
                                     + QStringLiteral(": ")),
                 qPrintable(s->error));
        QVERIFY2(s->error.endsWith(error), qPrintable(s->error));
        QCOMPARE(s->httpStatus, status);
        QVERIFY(s->metrics.families.isEmpty());
        QCOMPARE(server.requests(), 1); // not sent again, not redirected
        QCOMPARE(server.connections(), 1);

        QSignalSpy probed(&scraper, &Scraper::probed);
        scraper.probe(QStringLiteral("k"), where);
        QVERIFY(probed.wait(waitMs));
        QCOMPARE(probed.first().at(1).toBool(), false);
        QVERIFY2(probed.first().at(2).toString().endsWith(error),
                 qPrintable(probed.first().at(2).toString()));
    }

    void aBodyGrowingPastTheCapIsCut_data()
    {
        QTest::addColumn<bool>("chunked");
        QTest::newRow("chunked") << true;
        QTest::newRow("until the close") << false;
    }

    void aBodyGrowingPastTheCapIsCut()
    {
        QFETCH(bool, chunked);
        const int mib = 1024 * 1024;
        const int pieces = int(Scraper::maxBodyBytes / mib) + 1;
        const QByteArray line = QByteArray(63, 'x').prepend("# ").append('\n'); // 66 bytes
        QByteArray piece = line.repeated(mib / line.size() + 1).left(mib - 1).append('\n');
        ScriptedServer server([&](QTcpSocket *s, int, const QByteArray &) {
            s->write(chunked ? "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                             : "HTTP/1.1 200 OK\r\n\r\n");
            for (int i = 0; i < pieces; ++i) {
                if (chunked)
                    s->write(QByteArray::number(mib, 16) + "\r\n" + piece + "\r\n");
                else
                    s->write(piece);
            }
            if (chunked)
                s->write("0\r\n\r\n");
            s->disconnectFromHost();
        });
        Scraper scraper;
        const std::optional<Scrape> s = scrapeNow(
                scraper, QStringLiteral("big"), url(server.port(), QStringLiteral("/metrics")));
        QVERIFY(s);
        QVERIFY(!s->ok());
        QVERIFY2(s->error.endsWith(
                         QStringLiteral("answer larger than %1 bytes").arg(Scraper::maxBodyBytes)),
                 qPrintable(s->error));
        QCOMPARE(s->httpStatus, 200);
    }

    void aDribblingServerIsCutAtTheDeadline_data()
    {
        QTest::addColumn<QByteArray>("head"); // sent at once; then one byte every 20 ms
        QTest::addColumn<int>("status");
        QTest::newRow("in the body")
                << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n") << 200;
        QTest::newRow("in the head") << QByteArray("HTTP/1.1 200 OK\r\nX-Slow: ") << 0;
    }

    void aDribblingServerIsCutAtTheDeadline()
    {
        QFETCH(QByteArray, head);
        QFETCH(int, status);
        int dribbled = 0;
        ScriptedServer server([&](QTcpSocket *s, int, const QByteArray &) {
            s->write(head);
            auto *drip = new QTimer(s);
            connect(drip, &QTimer::timeout, s, [s, &dribbled] {
                s->write("x");
                ++dribbled;
            });
            drip->start(20);
        });
        {
            // Destroyed while the answer is still dribbling in: that must not hang either.
            Scraper scraper;
            scraper.scrape(QStringLiteral("d"), url(server.port(), QStringLiteral("/metrics")));
            QTRY_VERIFY_WITH_TIMEOUT(dribbled > 0, waitMs);
        }
        QTRY_COMPARE_WITH_TIMEOUT(server.closed(), 1, waitMs);

        Scraper scraper;
        scraper.setTimeoutMs(300);
        const int before = dribbled;
        const std::optional<Scrape> s = scrapeNow(
                scraper, QStringLiteral("d"), url(server.port(), QStringLiteral("/metrics")));
        QVERIFY(s);
        QVERIFY(!s->ok());
        QVERIFY2(s->error.endsWith(QStringLiteral("timed out after 300 ms")), qPrintable(s->error));
        QCOMPARE(s->httpStatus, status);
        QVERIFY(dribbled > before);                            // it was sending all along
        QTRY_COMPARE_WITH_TIMEOUT(server.closed(), 2, waitMs); // the scraper gave up the connection
    }

    void aKeptConnectionTheServerJustClosedIsTriedOnceMore()
    {
        // The server answers the first request of each connection and closes the connection on
        // the second one, unanswered, as a server does whose idle timeout struck just then.
        ScriptedServer server([](QTcpSocket *s, int nth, const QByteArray &) {
            if (nth == 1)
                s->write(okAnswer());
            else
                s->abort();
        });
        Scraper scraper;
        const QUrl where = url(server.port(), QStringLiteral("/metrics"));
        for (int i = 1; i <= 3; ++i) {
            const std::optional<Scrape> s = scrapeNow(scraper, QStringLiteral("k"), where);
            QVERIFY(s);
            QVERIFY2(s->ok(), qPrintable(s->error));
            QCOMPARE(server.connections(), i);
        }
        QCOMPARE(server.requests(), 5); // 1, then 2 for each later scrape
    }

    void aFreshConnectionClosedUnansweredIsNotTriedAgain()
    {
        ScriptedServer server([](QTcpSocket *s, int, const QByteArray &) { s->abort(); });
        Scraper scraper;
        const std::optional<Scrape> s = scrapeNow(
                scraper, QStringLiteral("k"), url(server.port(), QStringLiteral("/metrics")));
        QVERIFY(s);
        QVERIFY(!s->ok());
        QCOMPARE(s->httpStatus, 0);
        QCOMPARE(server.requests(), 1);
        QCOMPARE(server.connections(), 1);
    }

    void aProbeReads503AndKeepsTheConnection()
    {
        ScriptedServer server([](QTcpSocket *s, int nth, const QByteArray &) {
            if (nth == 1)
                s->write("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 12\r\n\r\nwarming "
                         "up\r\n");
            else
                s->write("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n");
        });
        Scraper scraper;
        QSignalSpy probed(&scraper, &Scraper::probed);
        const QUrl health = url(server.port(), QStringLiteral("/health"));
        scraper.probe(QStringLiteral("p"), health);
        QVERIFY(probed.wait(waitMs));
        QCOMPARE(probed.at(0).at(0).toString(), QStringLiteral("p"));
        QCOMPARE(probed.at(0).at(1).toBool(), false);
        QCOMPARE(probed.at(0).at(2).toString(),
                 QStringLiteral("GET ") + health.toString()
                         + QStringLiteral(": HTTP 503 Service Unavailable"));
        scraper.probe(QStringLiteral("p"), health);
        QVERIFY(probed.wait(waitMs));
        QCOMPARE(probed.at(1).at(1).toBool(), true);
        QCOMPARE(probed.at(1).at(2).toString(), QString());
        QCOMPARE(server.connections(), 1); // the 503's body was read to its end
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
