// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxi-demo-load: open-loop load for a demo inference service.
//
//   zhaoxi-demo-load (--url URL | --endpoints FILE --service NAME [--path /v1/completions])
//                    [--rate 0:5,30s:50,60s:5] [--for 90s] [--seed 1] [--max-inflight 256]
//                    [--timeout 10s]
//
// Arrivals are a Poisson process whose rate (requests per second) follows the --rate curve:
// points time:rate, linear between them, the first rate before the first point and the last
// after the last. They are drawn by thinning from --seed, so a seed gives the same arrival
// times every run. Arrivals do not wait for answers (open loop); an arrival while
// --max-inflight requests are unanswered is not sent and counts as dropped.
//
// --url: every request goes to that URL. --endpoints: the file EndpointPublisher writes
// (endpoints.json); requests go round robin to the ready replicas of --service at --path, and
// the file is read again whenever its content changes (checked every 250 ms). An arrival with no
// ready replica counts as an error (and in "no_endpoint").
// A request is POST with a small JSON body when the path is /v1/completions, GET otherwise;
// each uses its own connection (Connection: close), so the server sees real concurrency.
//
// After --for it sends nothing more, waits for the requests in flight (each ends by --timeout)
// and prints one JSON line: {"sent","ok","errors","dropped","no_endpoint","p50_ms","p99_ms",
// "seconds"}; p50/p99 are nearest-rank over the ok requests' latencies (null when none).
// Exit code 0 then; 2 for a usage error.
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPointer>
#include <QRegularExpression>
#include <QTcpSocket>
#include <QTimer>
#include <QUrl>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <random>

namespace {

void fail(const QString &message)
{
    std::fprintf(stderr, "zhaoxi-demo-load: %s\n", qPrintable(message));
    std::exit(2);
}

// "90s", "500ms", "1.5m", "30" (seconds) -> seconds
std::optional<double> durationSeconds(const QString &text)
{
    static const QRegularExpression re(QStringLiteral("^(\\d+(?:\\.\\d+)?)(ms|s|m)?$"));
    const QRegularExpressionMatch m = re.match(text.trimmed());
    if (!m.hasMatch())
        return std::nullopt;
    const double v = m.captured(1).toDouble();
    const QString unit = m.captured(2);
    return unit == QLatin1String("ms") ? v / 1000 : unit == QLatin1String("m") ? v * 60 : v;
}

struct RatePoint
{
    double t = 0;
    double rate = 0;
};

std::optional<QList<RatePoint>> parseCurve(const QString &text, QString *error)
{
    QList<RatePoint> points;
    for (const QString &part : text.split(QLatin1Char(','))) {
        const QStringList kv = part.split(QLatin1Char(':'));
        if (kv.size() != 2) {
            *error = QStringLiteral("'%1' is not time:rate").arg(part);
            return std::nullopt;
        }
        const std::optional<double> t = durationSeconds(kv.at(0));
        bool ok = false;
        const double r = kv.at(1).trimmed().toDouble(&ok);
        if (!t || !ok || r < 0 || !std::isfinite(r)) {
            *error = QStringLiteral("'%1' is not time:rate (a duration and a rate >= 0)").arg(part);
            return std::nullopt;
        }
        if (!points.isEmpty() && *t <= points.last().t) {
            *error = QStringLiteral("times must increase: '%1'").arg(part);
            return std::nullopt;
        }
        points.append({*t, r});
    }
    return points;
}

double rateAt(const QList<RatePoint> &curve, double t)
{
    if (t <= curve.first().t)
        return curve.first().rate;
    for (qsizetype i = 1; i < curve.size(); ++i) {
        if (t <= curve.at(i).t) {
            const RatePoint &a = curve.at(i - 1);
            const RatePoint &b = curve.at(i);
            return a.rate + (b.rate - a.rate) * (t - a.t) / (b.t - a.t);
        }
    }
    return curve.last().rate;
}

struct Target
{
    QString host;
    quint16 port = 0;
    QByteArray path;
};

class Load : public QObject
{
public:
    struct Options
    {
        std::optional<Target> url;
        QString endpointsFile;
        QString service;
        QByteArray path = "/v1/completions";
        QList<RatePoint> curve;
        double seconds = 90;
        quint64 seed = 1;
        int maxInflight = 256;
        int timeoutMs = 10000;
    };

    explicit Load(const Options &o)
        : m_o(o)
        , m_random(o.seed)
    {
        for (const RatePoint &p : std::as_const(m_o.curve))
            m_maxRate = std::max(m_maxRate, p.rate);
    }

    void start()
    {
        m_clock.start();
        if (!m_o.endpointsFile.isEmpty()) {
            reloadEndpoints();
            connect(&m_reload, &QTimer::timeout, this, &Load::reloadEndpoints);
            m_reload.start(250);
        }
        m_arrival.setSingleShot(true);
        m_arrival.setTimerType(Qt::PreciseTimer);
        connect(&m_arrival, &QTimer::timeout, this, &Load::arrive);
        m_next = drawNext(0);
        schedule();
    }

private:
    // The next arrival after t by thinning: candidates at the curve's peak rate, each kept with
    // probability rate(t)/peak. Past the end: infinity.
    double drawNext(double t)
    {
        if (m_maxRate <= 0)
            return qInf();
        std::exponential_distribution<double> gap(m_maxRate);
        std::uniform_real_distribution<double> coin(0, 1);
        for (;;) {
            t += gap(m_random);
            if (t >= m_o.seconds)
                return qInf();
            if (coin(m_random) * m_maxRate <= rateAt(m_o.curve, t))
                return t;
        }
    }

    double now() const { return double(m_clock.nsecsElapsed()) / 1e9; }

    void schedule()
    {
        if (std::isinf(m_next)) {
            const double left = m_o.seconds - now();
            QTimer::singleShot(std::max(0, int(left * 1000)), this, [this] {
                m_sending = false;
                maybeFinish();
            });
            return;
        }
        m_arrival.start(std::max(0, int((m_next - now()) * 1000)));
    }

    void arrive()
    {
        // Catch up with every arrival that is due: a late timer must not thin the load.
        while (!std::isinf(m_next) && m_next <= now()) {
            send();
            m_next = drawNext(m_next);
        }
        schedule();
    }

    void reloadEndpoints()
    {
        QFile f(m_o.endpointsFile);
        if (!f.open(QIODevice::ReadOnly))
            return; // not there (yet): keep what we had
        const QByteArray content = f.readAll();
        if (content == m_endpointsContent)
            return;
        const QJsonDocument doc = QJsonDocument::fromJson(content);
        if (!doc.isObject())
            return; // being written by someone not using a rename: read it next time
        m_endpointsContent = content;
        QList<Target> ready;
        const QJsonArray replicas = doc.object()
                                            .value(QLatin1String("services"))
                                            .toObject()
                                            .value(m_o.service)
                                            .toArray();
        for (const QJsonValue &v : replicas) {
            const QJsonObject r = v.toObject();
            if (!r.value(QLatin1String("ready")).toBool())
                continue;
            const int port = r.value(QLatin1String("port")).toInt();
            if (port < 1 || port > 65535)
                continue;
            ready.append(
                    Target{r.value(QLatin1String("address")).toString(), quint16(port), m_o.path});
        }
        m_targets = ready;
    }

    std::optional<Target> pickTarget()
    {
        if (m_o.url)
            return m_o.url;
        if (m_targets.isEmpty())
            return std::nullopt;
        m_roundRobin = (m_roundRobin + 1) % m_targets.size();
        return m_targets.at(m_roundRobin);
    }

    void send()
    {
        if (m_inflight >= m_o.maxInflight) {
            ++m_dropped;
            return;
        }
        const std::optional<Target> target = pickTarget();
        if (!target) {
            ++m_sent;
            ++m_errors;
            ++m_noEndpoint;
            return;
        }
        ++m_sent;
        ++m_inflight;
        const bool post = target->path == "/v1/completions";
        const QByteArray body
                = post ? QByteArray(R"({"model":"demo","prompt":"hello","max_tokens":8})")
                       : QByteArray();
        const QByteArray host = target->host.contains(QLatin1Char(':'))
                                        ? "[" + target->host.toUtf8() + "]"
                                        : target->host.toUtf8();
        QByteArray request = (post ? "POST " : "GET ") + target->path + " HTTP/1.1\r\nHost: " + host
                             + ":" + QByteArray::number(target->port) + "\r\nConnection: close\r\n";
        if (post)
            request += "Content-Type: application/json\r\nContent-Length: "
                       + QByteArray::number(body.size()) + "\r\n";
        request += "\r\n" + body;

        auto *socket = new QTcpSocket(this);
        auto *timer = new QTimer(socket);
        auto buffer = std::make_shared<QByteArray>();
        const double started = now();
        auto done = [this, socket, buffer, started](bool ok) {
            if (socket->property("zhaoxiDone").toBool())
                return;
            socket->setProperty("zhaoxiDone", true);
            socket->abort();
            --m_inflight;
            if (ok) {
                ++m_ok;
                m_latenciesMs.append((now() - started) * 1000);
            } else {
                ++m_errors;
            }
            buffer->clear();
            socket->deleteLater();
            maybeFinish();
        };
        // Complete when the status line and Content-Length bytes of body are in.
        auto check = [socket, buffer, done](bool closed) {
            if (socket->property("zhaoxiDone").toBool())
                return;
            *buffer += socket->readAll();
            const qsizetype headEnd = buffer->indexOf("\r\n\r\n");
            if (headEnd >= 0) {
                const QList<QByteArray> lines = buffer->left(headEnd).split('\n');
                const QList<QByteArray> status = lines.first().trimmed().split(' ');
                const bool ok200 = status.size() >= 2 && status.at(1) == "200";
                qint64 length = -1;
                for (const QByteArray &line : lines) {
                    if (line.toLower().startsWith("content-length:"))
                        length = line.mid(15).trimmed().toLongLong();
                }
                if (length >= 0 && buffer->size() >= headEnd + 4 + length) {
                    done(ok200);
                    return;
                }
                if (closed) {
                    done(ok200 && length < 0);
                    return;
                }
            } else if (closed) {
                done(false);
            }
        };
        timer->setSingleShot(true);
        connect(timer, &QTimer::timeout, this, [done] { done(false); });
        connect(socket, &QTcpSocket::connected, this, [socket, request] {
            socket->write(request);
        });
        connect(socket, &QTcpSocket::readyRead, this, [check] { check(false); });
        connect(socket, &QTcpSocket::disconnected, this, [check] { check(true); });
        connect(socket,
                &QTcpSocket::errorOccurred,
                this,
                [check, done, socket](QAbstractSocket::SocketError e) {
                    if (e == QAbstractSocket::RemoteHostClosedError)
                        check(true);
                    else
                        done(false);
                });
        timer->start(m_o.timeoutMs);
        socket->connectToHost(target->host, target->port);
    }

    void maybeFinish()
    {
        if (m_sending || m_inflight > 0 || m_finished)
            return;
        m_finished = true;
        std::sort(m_latenciesMs.begin(), m_latenciesMs.end());
        auto rank = [this](double q) -> QJsonValue {
            if (m_latenciesMs.isEmpty())
                return QJsonValue::Null;
            const qsizetype i = qsizetype(std::ceil(q * double(m_latenciesMs.size()))) - 1;
            return m_latenciesMs.at(std::clamp<qsizetype>(i, 0, m_latenciesMs.size() - 1));
        };
        const QJsonObject summary{{QLatin1String("sent"), m_sent},
                                  {QLatin1String("ok"), m_ok},
                                  {QLatin1String("errors"), m_errors},
                                  {QLatin1String("dropped"), m_dropped},
                                  {QLatin1String("no_endpoint"), m_noEndpoint},
                                  {QLatin1String("p50_ms"), rank(0.5)},
                                  {QLatin1String("p99_ms"), rank(0.99)},
                                  {QLatin1String("seconds"), now()}};
        std::printf("%s\n", QJsonDocument(summary).toJson(QJsonDocument::Compact).constData());
        std::fflush(stdout);
        QCoreApplication::quit();
    }

    Options m_o;
    std::mt19937_64 m_random;
    double m_maxRate = 0;
    QElapsedTimer m_clock;
    QTimer m_arrival;
    QTimer m_reload;
    double m_next = 0;
    bool m_sending = true;
    bool m_finished = false;
    QByteArray m_endpointsContent;
    QList<Target> m_targets;
    qsizetype m_roundRobin = -1;
    int m_inflight = 0;
    qint64 m_sent = 0;
    qint64 m_ok = 0;
    qint64 m_errors = 0;
    qint64 m_dropped = 0;
    qint64 m_noEndpoint = 0;
    QList<double> m_latenciesMs;
};

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("zhaoxi-demo-load"));
    QCommandLineParser parser;
    parser.setApplicationDescription(
            QStringLiteral("Open-loop Poisson load for a demo inference service."));
    parser.addHelpOption();
    const QCommandLineOption urlOption(QStringLiteral("url"),
                                       QStringLiteral("Send every request to this http:// URL."),
                                       QStringLiteral("URL"));
    const QCommandLineOption endpointsOption(QStringLiteral("endpoints"),
                                             QStringLiteral("The published endpoints.json."),
                                             QStringLiteral("FILE"));
    const QCommandLineOption serviceOption(QStringLiteral("service"),
                                           QStringLiteral("The service in --endpoints."),
                                           QStringLiteral("NAME"));
    const QCommandLineOption pathOption(QStringLiteral("path"),
                                        QStringLiteral("Request path with --endpoints."),
                                        QStringLiteral("path"),
                                        QStringLiteral("/v1/completions"));
    const QCommandLineOption rateOption(QStringLiteral("rate"),
                                        QStringLiteral("Rate curve time:rate,... (requests/s)."),
                                        QStringLiteral("curve"),
                                        QStringLiteral("0:5"));
    const QCommandLineOption forOption(QStringLiteral("for"),
                                       QStringLiteral("How long to send, e.g. 90s."),
                                       QStringLiteral("duration"),
                                       QStringLiteral("90s"));
    const QCommandLineOption seedOption(QStringLiteral("seed"),
                                        QStringLiteral("Seed of the arrival times."),
                                        QStringLiteral("n"),
                                        QStringLiteral("1"));
    const QCommandLineOption inflightOption(
            QStringLiteral("max-inflight"),
            QStringLiteral("Most unanswered requests; more arrivals are dropped."),
            QStringLiteral("n"),
            QStringLiteral("256"));
    const QCommandLineOption timeoutOption(QStringLiteral("timeout"),
                                           QStringLiteral("Deadline of one request."),
                                           QStringLiteral("duration"),
                                           QStringLiteral("10s"));
    parser.addOptions({urlOption,
                       endpointsOption,
                       serviceOption,
                       pathOption,
                       rateOption,
                       forOption,
                       seedOption,
                       inflightOption,
                       timeoutOption});
    parser.process(app);

    Load::Options o;
    if (parser.isSet(urlOption) == parser.isSet(endpointsOption))
        fail(QStringLiteral("give either --url URL or --endpoints FILE --service NAME"));
    if (parser.isSet(urlOption)) {
        const QUrl url(parser.value(urlOption), QUrl::StrictMode);
        if (!url.isValid() || url.scheme() != QLatin1String("http") || url.host().isEmpty())
            fail(QStringLiteral("--url '%1' is not an http:// URL").arg(parser.value(urlOption)));
        QByteArray path = url.path(QUrl::FullyEncoded).toUtf8();
        if (path.isEmpty())
            path = "/";
        if (url.hasQuery())
            path += "?" + url.query(QUrl::FullyEncoded).toUtf8();
        o.url = Target{url.host(), quint16(url.port(80)), path};
    } else {
        if (!parser.isSet(serviceOption))
            fail(QStringLiteral("--endpoints needs --service NAME"));
        o.endpointsFile = parser.value(endpointsOption);
        o.service = parser.value(serviceOption);
        o.path = parser.value(pathOption).toUtf8();
        if (!o.path.startsWith('/'))
            fail(QStringLiteral("--path '%1' must start with '/'").arg(parser.value(pathOption)));
    }
    QString error;
    const std::optional<QList<RatePoint>> curve = parseCurve(parser.value(rateOption), &error);
    if (!curve)
        fail(QStringLiteral("--rate: %1").arg(error));
    o.curve = *curve;
    const std::optional<double> seconds = durationSeconds(parser.value(forOption));
    if (!seconds)
        fail(QStringLiteral("--for '%1' is not a duration such as 90s")
                     .arg(parser.value(forOption)));
    o.seconds = *seconds;
    bool ok = false;
    o.seed = parser.value(seedOption).toULongLong(&ok);
    if (!ok)
        fail(QStringLiteral("--seed '%1' is not an unsigned integer")
                     .arg(parser.value(seedOption)));
    o.maxInflight = parser.value(inflightOption).toInt(&ok);
    if (!ok || o.maxInflight < 1)
        fail(QStringLiteral("--max-inflight '%1' is not an integer >= 1")
                     .arg(parser.value(inflightOption)));
    const std::optional<double> timeout = durationSeconds(parser.value(timeoutOption));
    if (!timeout || *timeout <= 0)
        fail(QStringLiteral("--timeout '%1' is not a duration > 0")
                     .arg(parser.value(timeoutOption)));
    o.timeoutMs = std::max(1, int(*timeout * 1000));

    Load load(o);
    QTimer::singleShot(0, &load, [&load] { load.start(); });
    return app.exec();
}
