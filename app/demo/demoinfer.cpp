// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxi-demo-infer: a stand-in for an inference server (vLLM), for tests and demos without a
// GPU. It listens on 127.0.0.1 only and serves:
//   GET /health                   200 once warmed up (--warmup), 503 before
//   POST /v1/completions, GET /infer
//                                 one request: it waits in a FIFO queue for one of
//                                 --concurrency slots, then takes a service time drawn from a
//                                 gamma distribution of mean --service-ms and coefficient of
//                                 variation --cv, divided by its share of the card (--share, else
//                                 CUDA_MPS_ACTIVE_THREAD_PERCENTAGE / 100, else 1)
//   GET /metrics                  Prometheus text with vLLM's names: the histogram
//                                 vllm:e2e_request_latency_seconds (queueing included), the gauges
//                                 vllm:num_requests_running / _waiting and the counter
//                                 vllm:request_success_total, labelled model_name (--model)
// HTTP/1.1 with keep-alive (one request at a time per connection, pipelined ones in order).
// Memory is bounded: a request head of at most 16 KiB, a body of at most 1 MiB, at most 1024
// connections and 10000 waiting requests (503 beyond), idle connections closed after 60 s.
// The port is --port N or ZHAOXI_PORT; exit code 2 when there is none or it cannot be bound,
// 0 after SIGTERM or SIGINT.
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QHash>
#include <QHostAddress>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPointer>
#include <QRegularExpression>
#include <QSet>
#include <QSocketNotifier>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <deque>
#include <optional>
#include <random>
#include <sys/socket.h>
#include <unistd.h>

namespace {

constexpr qsizetype maxHeadBytes = 16 * 1024;
constexpr qsizetype maxBodyBytes = 1024 * 1024;
constexpr int maxConnections = 1024;
constexpr qsizetype maxWaiting = 10000;
constexpr int idleTimeoutMs = 60000;

// vLLM's end-to-end latency bounds start at 0.3 s; the demo's requests take milliseconds, so
// finer bounds come first or every quantile would sit in one bucket.
const double latencyBounds[]
        = {0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1,  0.15, 0.2,  0.3,  0.5,  0.8,
           1.0,   1.5,  2.0,  2.5,  5.0,  10.0,  15.0, 20.0, 30.0, 40.0, 50.0, 60.0};
constexpr int boundCount = int(sizeof(latencyBounds) / sizeof(latencyBounds[0]));

int signalPipe[2] = {-1, -1};

void onSignal(int signo)
{
    const char byte = char(signo);
    const int saved = errno;
    [[maybe_unused]] const ssize_t n = ::write(signalPipe[0], &byte, 1);
    errno = saved;
}

void fail(const QString &message)
{
    std::fprintf(stderr, "zhaoxi-demo-infer: %s\n", qPrintable(message));
    std::exit(2);
}

// "2s", "500ms", "1.5m", "3" (seconds) -> ms
std::optional<qint64> durationMs(const QString &text)
{
    static const QRegularExpression re(QStringLiteral("^(\\d+(?:\\.\\d+)?)(ms|s|m)?$"));
    const QRegularExpressionMatch m = re.match(text.trimmed());
    if (!m.hasMatch())
        return std::nullopt;
    const double v = m.captured(1).toDouble();
    const QString unit = m.captured(2);
    const double factor = unit == QLatin1String("ms")  ? 1
                          : unit == QLatin1String("m") ? 60000
                                                       : 1000;
    return qint64(v * factor + 0.5);
}

struct Options
{
    quint16 port = 0;
    qint64 warmupMs = 0;
    double serviceMs = 20;
    double cv = 0.3;
    int concurrency = 1;
    double share = 1;
    QString model = QStringLiteral("demo");
    quint64 seed = 0;
};

class Server;

// One client connection: reads requests one at a time and writes their answers in order.
class Connection : public QObject
{
public:
    Connection(QTcpSocket *socket, Server *server);
    ~Connection() override;
    void respond(int status, const QByteArray &contentType, const QByteArray &body);
    qint64 arrivalNs = 0; // when the request being served was read (monotonic)

private:
    void readRequests();
    void answerAndClose(int status, const QByteArray &message);

    QTcpSocket *m_socket;
    Server *m_server;
    QByteArray m_buffer;
    bool m_busy = false;       // a request is being served; later ones wait in m_buffer
    bool m_closeAfter = false; // the request being served asked to close
    bool m_closing = false;    // the last answer is written: read nothing more
    QTimer m_idle;
};

class Server : public QObject
{
public:
    explicit Server(const Options &options)
        : m_options(options)
        , m_random(options.seed)
    {
        m_clock.start();
        m_buckets.fill(0, boundCount);
        connect(&m_tcp, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_tcp.nextPendingConnection()) {
                if (connectionCount() >= maxConnections) {
                    socket->abort();
                    socket->deleteLater();
                    continue;
                }
                new Connection(socket, this);
            }
        });
        if (m_options.warmupMs > 0)
            QTimer::singleShot(m_options.warmupMs, this, [this] { m_ready = true; });
        else
            m_ready = true;
    }

    bool listen(QString *error)
    {
        if (m_tcp.listen(QHostAddress::LocalHost, m_options.port))
            return true;
        *error = m_tcp.errorString();
        return false;
    }
    void close() { m_tcp.close(); }
    quint16 port() const { return m_tcp.serverPort(); }
    qint64 nowNs() const { return m_clock.nsecsElapsed(); }

    void handle(Connection *c, const QByteArray &method, const QByteArray &path)
    {
        const bool infer = (method == "POST" && path == "/v1/completions")
                           || (method == "GET" && path == "/infer");
        if (path == "/health" && method == "GET") {
            if (m_ready)
                c->respond(200, "text/plain", "ok\n");
            else
                c->respond(503, "text/plain", "warming up\n");
        } else if (path == "/metrics" && method == "GET") {
            c->respond(200, "text/plain; version=0.0.4; charset=utf-8", metrics());
        } else if (infer) {
            if (!m_ready) {
                c->respond(503, "text/plain", "warming up\n");
            } else if (qsizetype(m_waiting.size()) >= maxWaiting) {
                c->respond(503, "text/plain", "queue full\n");
            } else {
                m_waiting.push_back(QPointer<Connection>(c));
                startWaiting();
            }
        } else if (path == "/health" || path == "/metrics" || path == "/infer"
                   || path == "/v1/completions") {
            c->respond(405, "text/plain", "method not allowed\n");
        } else {
            c->respond(404, "text/plain", "not found\n");
        }
    }

    ~Server() override
    {
        // Connections refer to this server's members as they go: before those are destroyed.
        const QSet<Connection *> all = m_all;
        for (Connection *c : all)
            delete c;
    }

    void add(Connection *c) { m_all.insert(c); }
    int connectionCount() const { return int(m_all.size()); }

    void forget(Connection *c)
    {
        m_all.remove(c);
        // A client that went away no longer waits; one in service finishes and is counted.
        m_waiting.erase(
                std::remove_if(m_waiting.begin(),
                               m_waiting.end(),
                               [c](const QPointer<Connection> &p) { return p.isNull() || p == c; }),
                m_waiting.end());
    }

private:
    double drawServiceMs()
    {
        double ms = m_options.serviceMs;
        if (m_options.cv > 0 && ms > 0) {
            const double shape = 1.0 / (m_options.cv * m_options.cv);
            std::gamma_distribution<double> gamma(shape, ms / shape);
            ms = gamma(m_random);
        }
        return ms / m_options.share;
    }

    void startWaiting()
    {
        while (m_running < m_options.concurrency && !m_waiting.empty()) {
            QPointer<Connection> c = m_waiting.front();
            m_waiting.pop_front();
            if (!c)
                continue;
            ++m_running;
            const qint64 arrival = c->arrivalNs;
            const double serviceMs = drawServiceMs();
            QTimer::singleShot(
                    int(serviceMs + 0.5), Qt::PreciseTimer, this, [this, c, arrival, serviceMs] {
                        --m_running;
                        const double seconds = double(nowNs() - arrival) / 1e9;
                        observe(seconds);
                        ++m_served;
                        if (c) {
                            const QJsonObject body{
                                    {QLatin1String("id"), QStringLiteral("cmpl-%1").arg(m_served)},
                                    {QLatin1String("object"), QLatin1String("text_completion")},
                                    {QLatin1String("model"), m_options.model},
                                    {QLatin1String("choices"),
                                     QJsonArray{QJsonObject{
                                             {QLatin1String("index"), 0},
                                             {QLatin1String("text"), QLatin1String(" demo")},
                                             {QLatin1String("finish_reason"),
                                              QLatin1String("stop")}}}},
                                    {QLatin1String("service_ms"), serviceMs},
                                    {QLatin1String("latency_ms"), seconds * 1000}};
                            c->respond(200,
                                       "application/json",
                                       QJsonDocument(body).toJson(QJsonDocument::Compact) + "\n");
                        }
                        startWaiting();
                    });
        }
    }

    void observe(double seconds)
    {
        for (int i = 0; i < boundCount; ++i) {
            if (seconds <= latencyBounds[i])
                ++m_buckets[i];
        }
        m_sum += seconds;
        ++m_count;
    }

    QByteArray metrics() const
    {
        const QByteArray label = "model_name=\"" + escapeLabel(m_options.model) + "\"";
        QByteArray t;
        t += "# HELP vllm:num_requests_running Number of requests currently running on GPU.\n"
             "# TYPE vllm:num_requests_running gauge\n"
             "vllm:num_requests_running{"
             + label + "} " + QByteArray::number(m_running) + "\n";
        t += "# HELP vllm:num_requests_waiting Number of requests waiting to be processed.\n"
             "# TYPE vllm:num_requests_waiting gauge\n"
             "vllm:num_requests_waiting{"
             + label + "} " + QByteArray::number(qsizetype(m_waiting.size())) + "\n";
        t += "# HELP vllm:request_success_total Count of successfully processed requests.\n"
             "# TYPE vllm:request_success_total counter\n"
             "vllm:request_success_total{finished_reason=\"stop\","
             + label + "} " + QByteArray::number(m_served) + "\n";
        t += "# HELP vllm:e2e_request_latency_seconds Histogram of end to end request latency in "
             "seconds.\n"
             "# TYPE vllm:e2e_request_latency_seconds histogram\n";
        for (int i = 0; i < boundCount; ++i)
            t += "vllm:e2e_request_latency_seconds_bucket{le=\""
                 + QByteArray::number(latencyBounds[i]) + "\"," + label + "} "
                 + QByteArray::number(m_buckets[i]) + "\n";
        t += "vllm:e2e_request_latency_seconds_bucket{le=\"+Inf\"," + label + "} "
             + QByteArray::number(m_count) + "\n";
        t += "vllm:e2e_request_latency_seconds_sum{" + label + "} "
             + QByteArray::number(m_sum, 'g', 12) + "\n";
        t += "vllm:e2e_request_latency_seconds_count{" + label + "} " + QByteArray::number(m_count)
             + "\n";
        return t;
    }

    static QByteArray escapeLabel(const QString &value)
    {
        QByteArray out;
        for (const char c : value.toUtf8()) {
            if (c == '\\')
                out += "\\\\";
            else if (c == '"')
                out += "\\\"";
            else if (c == '\n')
                out += "\\n";
            else
                out += c;
        }
        return out;
    }

    Options m_options;
    std::mt19937_64 m_random;
    QTcpServer m_tcp;
    QElapsedTimer m_clock;
    bool m_ready = false;
    int m_running = 0;
    std::deque<QPointer<Connection>> m_waiting;
    QSet<Connection *> m_all;
    QList<qint64> m_buckets;
    double m_sum = 0;
    qint64 m_count = 0;
    qint64 m_served = 0;
};

Connection::Connection(QTcpSocket *socket, Server *server)
    : QObject(server)
    , m_socket(socket)
    , m_server(server)
{
    m_server->add(this);
    socket->setParent(this);
    m_idle.setSingleShot(true);
    m_idle.setInterval(idleTimeoutMs);
    connect(&m_idle, &QTimer::timeout, this, [this] {
        if (!m_busy)
            m_socket->abort();
    });
    connect(socket, &QTcpSocket::readyRead, this, &Connection::readRequests);
    connect(socket, &QTcpSocket::disconnected, this, &QObject::deleteLater);
    connect(socket, &QTcpSocket::errorOccurred, this, [this](QAbstractSocket::SocketError) {
        if (m_socket->state() == QAbstractSocket::UnconnectedState)
            deleteLater();
    });
    m_idle.start();
    readRequests();
}

Connection::~Connection()
{
    m_server->forget(this);
}

void Connection::answerAndClose(int status, const QByteArray &message)
{
    m_closeAfter = true;
    m_busy = true;
    respond(status, "text/plain", message + "\n");
}

void Connection::readRequests()
{
    if (m_closing) {
        m_socket->readAll();
        return;
    }
    m_buffer += m_socket->readAll();
    m_idle.start();
    if (m_buffer.size() > maxHeadBytes + 4 + maxBodyBytes) {
        // More than one whole request piled up while one is served: a client we will not hold.
        m_socket->abort();
        return;
    }
    while (!m_busy) {
        const qsizetype headEnd = m_buffer.indexOf("\r\n\r\n");
        if (headEnd < 0) {
            if (m_buffer.size() > maxHeadBytes)
                answerAndClose(431, "request head too large");
            return;
        }
        if (headEnd > maxHeadBytes) {
            answerAndClose(431, "request head too large");
            return;
        }
        const QList<QByteArray> lines = m_buffer.left(headEnd).split('\n');
        const QList<QByteArray> requestLine = lines.first().trimmed().split(' ');
        if (requestLine.size() != 3 || !requestLine.at(2).startsWith("HTTP/1.")) {
            answerAndClose(400, "malformed request line");
            return;
        }
        const bool http10 = requestLine.at(2) == "HTTP/1.0";
        qint64 contentLength = 0;
        bool close = http10;
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const QByteArray line = lines.at(i).trimmed();
            const qsizetype colon = line.indexOf(':');
            if (colon <= 0) {
                answerAndClose(400, "malformed header line");
                return;
            }
            const QByteArray name = line.left(colon).trimmed().toLower();
            const QByteArray value = line.mid(colon + 1).trimmed();
            if (name == "content-length") {
                bool ok = false;
                contentLength = value.toLongLong(&ok);
                if (!ok || contentLength < 0) {
                    answerAndClose(400, "bad Content-Length");
                    return;
                }
            } else if (name == "transfer-encoding") {
                answerAndClose(501, "Transfer-Encoding is not supported; send a Content-Length");
                return;
            } else if (name == "connection") {
                const QByteArray v = value.toLower();
                if (v.contains("close"))
                    close = true;
                else if (v.contains("keep-alive"))
                    close = false;
            }
        }
        if (contentLength > maxBodyBytes) {
            answerAndClose(413, "request body too large");
            return;
        }
        if (m_buffer.size() < headEnd + 4 + contentLength)
            return; // the body is still coming
        m_buffer.remove(0, headEnd + 4 + contentLength);
        m_busy = true;
        m_closeAfter = close;
        arrivalNs = m_server->nowNs();
        QByteArray path = requestLine.at(1);
        const qsizetype query = path.indexOf('?');
        if (query >= 0)
            path.truncate(query);
        m_server->handle(this, requestLine.at(0), path);
    }
}

void Connection::respond(int status, const QByteArray &contentType, const QByteArray &body)
{
    static const QHash<int, QByteArray> reasons{{200, "OK"},
                                                {400, "Bad Request"},
                                                {404, "Not Found"},
                                                {405, "Method Not Allowed"},
                                                {413, "Content Too Large"},
                                                {431, "Request Header Fields Too Large"},
                                                {501, "Not Implemented"},
                                                {503, "Service Unavailable"}};
    QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + " "
                      + reasons.value(status, "Error") + "\r\nContent-Type: " + contentType
                      + "\r\nContent-Length: " + QByteArray::number(body.size())
                      + "\r\nConnection: " + (m_closeAfter ? "close" : "keep-alive") + "\r\n\r\n";
    m_socket->write(head + body);
    m_idle.start();
    if (m_closeAfter) {
        m_closing = true;
        m_socket->disconnectFromHost(); // after what was written has gone
        return;
    }
    m_busy = false;
    // Requests that arrived while this one was served; not from inside handle() itself.
    QMetaObject::invokeMethod(this, &Connection::readRequests, Qt::QueuedConnection);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("zhaoxi-demo-infer"));
    QCommandLineParser parser;
    parser.setApplicationDescription(
            QStringLiteral("A stand-in inference server with vLLM's metrics."));
    parser.addHelpOption();
    const QCommandLineOption portOption(QStringLiteral("port"),
                                        QStringLiteral("Port on 127.0.0.1 (else ZHAOXI_PORT)."),
                                        QStringLiteral("N"));
    const QCommandLineOption warmupOption(QStringLiteral("warmup"),
                                          QStringLiteral("Delay before /health is 200, e.g. 2s."),
                                          QStringLiteral("duration"),
                                          QStringLiteral("0"));
    const QCommandLineOption serviceOption(
            QStringLiteral("service-ms"),
            QStringLiteral("Mean service time of a request on a whole card."),
            QStringLiteral("ms"),
            QStringLiteral("20"));
    const QCommandLineOption cvOption(
            QStringLiteral("cv"),
            QStringLiteral("Coefficient of variation of the service time."),
            QStringLiteral("cv"),
            QStringLiteral("0.3"));
    const QCommandLineOption concurrencyOption(QStringLiteral("concurrency"),
                                               QStringLiteral("Requests served at once."),
                                               QStringLiteral("n"),
                                               QStringLiteral("1"));
    const QCommandLineOption shareOption(
            QStringLiteral("share"),
            QStringLiteral("Share of the card in (0, 1] (else "
                           "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE/100, else 1)."),
            QStringLiteral("share"));
    const QCommandLineOption modelOption(QStringLiteral("model"),
                                         QStringLiteral("The model_name label."),
                                         QStringLiteral("name"),
                                         QStringLiteral("demo"));
    const QCommandLineOption seedOption(
            QStringLiteral("seed"),
            QStringLiteral("Seed of the service-time draws (default: random)."),
            QStringLiteral("n"));
    parser.addOptions({portOption,
                       warmupOption,
                       serviceOption,
                       cvOption,
                       concurrencyOption,
                       shareOption,
                       modelOption,
                       seedOption});
    parser.process(app);

    Options o;
    QString portText = parser.value(portOption);
    if (portText.isEmpty())
        portText = qEnvironmentVariable("ZHAOXI_PORT");
    if (portText.isEmpty())
        fail(QStringLiteral("no port: give --port N or set ZHAOXI_PORT"));
    bool ok = false;
    const uint port = portText.toUInt(&ok);
    if (!ok || port < 1 || port > 65535)
        fail(QStringLiteral("port '%1' is not in 1..65535").arg(portText));
    o.port = quint16(port);
    const std::optional<qint64> warmup = durationMs(parser.value(warmupOption));
    if (!warmup)
        fail(QStringLiteral("--warmup '%1' is not a duration such as 2s or 500ms")
                     .arg(parser.value(warmupOption)));
    o.warmupMs = *warmup;
    o.serviceMs = parser.value(serviceOption).toDouble(&ok);
    if (!ok || o.serviceMs < 0)
        fail(QStringLiteral("--service-ms '%1' is not a number >= 0")
                     .arg(parser.value(serviceOption)));
    o.cv = parser.value(cvOption).toDouble(&ok);
    if (!ok || o.cv < 0)
        fail(QStringLiteral("--cv '%1' is not a number >= 0").arg(parser.value(cvOption)));
    o.concurrency = parser.value(concurrencyOption).toInt(&ok);
    if (!ok || o.concurrency < 1)
        fail(QStringLiteral("--concurrency '%1' is not an integer >= 1")
                     .arg(parser.value(concurrencyOption)));
    QString shareSource = QStringLiteral("default");
    if (parser.isSet(shareOption)) {
        o.share = parser.value(shareOption).toDouble(&ok);
        if (!ok || !(o.share > 0 && o.share <= 1))
            fail(QStringLiteral("--share '%1' is not in (0, 1]").arg(parser.value(shareOption)));
        shareSource = QStringLiteral("--share");
    } else if (qEnvironmentVariableIsSet("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE")) {
        const QString text = qEnvironmentVariable("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
        const double percent = text.toDouble(&ok);
        if (!ok || !(percent > 0 && percent <= 100))
            fail(QStringLiteral("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE '%1' is not in (0, 100]")
                         .arg(text));
        o.share = percent / 100;
        shareSource = QStringLiteral("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
    }
    o.model = parser.value(modelOption);
    if (parser.isSet(seedOption)) {
        o.seed = parser.value(seedOption).toULongLong(&ok);
        if (!ok)
            fail(QStringLiteral("--seed '%1' is not an unsigned integer")
                         .arg(parser.value(seedOption)));
    } else {
        o.seed = std::random_device{}();
    }

    // Signals become a byte on a socket pair, read by the event loop: the handler itself only
    // writes, which is async-signal-safe.
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, signalPipe) != 0)
        fail(QStringLiteral("socketpair: %1").arg(QString::fromLocal8Bit(std::strerror(errno))));
    struct sigaction sa = {};
    sa.sa_handler = onSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGINT, &sa, nullptr);
    std::signal(SIGPIPE, SIG_IGN);

    Server server(o);
    QString error;
    if (!server.listen(&error))
        fail(QStringLiteral("cannot listen on 127.0.0.1:%1: %2").arg(o.port).arg(error));

    QSocketNotifier notifier(signalPipe[1], QSocketNotifier::Read);
    QObject::connect(&notifier, &QSocketNotifier::activated, &app, [&] {
        char byte = 0;
        [[maybe_unused]] const ssize_t n = ::read(signalPipe[1], &byte, 1);
        std::printf("zhaoxi-demo-infer: stopping on %s\n", byte == SIGINT ? "SIGINT" : "SIGTERM");
        std::fflush(stdout);
        server.close();
        QCoreApplication::quit();
    });

    const QByteArray devices = qgetenv("CUDA_VISIBLE_DEVICES");
    std::printf("zhaoxi-demo-infer: listening on 127.0.0.1:%u model=%s share=%g (%s) service-ms=%g "
                "cv=%g concurrency=%d warmup-ms=%lld CUDA_VISIBLE_DEVICES=%s\n",
                unsigned(server.port()),
                qPrintable(o.model),
                o.share,
                qPrintable(shareSource),
                o.serviceMs,
                o.cv,
                o.concurrency,
                static_cast<long long>(o.warmupMs),
                qEnvironmentVariableIsSet("CUDA_VISIBLE_DEVICES") ? devices.constData()
                                                                  : "(unset)");
    std::fflush(stdout);
    return app.exec();
}
