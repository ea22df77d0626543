// SPDX-License-Identifier: GPL-3.0-or-later
#include "scraper.h"

#include <QDateTime>
#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QNetworkProxy>
#include <QTcpSocket>
#include <QTimer>

#include <optional>

// Why not QNetworkAccessManager: for a 2.5 KB page every second from 64 servers it cost about
// 0.4 ms of CPU per request (its own HTTP thread, a QNetworkReply and its signals per request,
// header maps, cookie and cache look-ups), several times what reading the page costs. What the
// scraper needs of HTTP is small: GET, a status, a body framed by Content-Length or chunks, and a
// connection kept for the next second. That is done here on QTcpSocket, on the private thread.

namespace Zhaoxi::Runtime {

namespace ScraperHttp {

// The head of an answer (status line and headers) may take this much; more is an error.
constexpr qsizetype maxHeadBytes = 64 * 1024;
// A chunk-size line or the trailers beyond this are an error.
constexpr qsizetype maxChunkLineBytes = 1024;
// Connections kept idle per server: one is the steady state; more only after bursts.
constexpr int maxIdlePerOrigin = 4;
// An idle connection unused this long is closed: its key may no longer be scraped.
constexpr int idleCloseMs = 30'000;

enum class Kind { Scrape, Probe };

struct Request
{
    Kind kind = Kind::Scrape;
    QString key;
    QUrl url;
    int timeoutMs = 0;
    QDeadlineTimer deadline;
    QByteArray wire; // the request as sent
    bool retried = false;
};

// What came of one request, before it is worded for the caller.
struct Answer
{
    int status = 0; // 0 when no status line was read
    QByteArray reason;
    QByteArray body; // scrapes only
    QString error;   // transport or framing error, without the "GET url: " prefix
    bool tooLarge = false;
    bool timedOut = false;
};

class Connection;

// Server text quoted in an error, cut to `max` bytes.
static QString shown(QByteArrayView text, qsizetype max)
{
    return QString::fromLatin1(text.first(std::min(text.size(), max)));
}

} // namespace ScraperHttp

// The half of the Scraper that lives on its private thread: the connections, by server. Its
// signals reach the Scraper through queued connections (the Scraper is on another thread).
class ScraperWorker : public QObject
{
    Q_OBJECT

public:
    using Kind = ScraperHttp::Kind;

    ScraperWorker();

    void get(Kind kind, const QString &key, const QUrl &url, int timeoutMs);

    // For the connections: send on a kept connection to the server if one is idle (unless
    // `fresh`), else on a new one.
    void dispatch(ScraperHttp::Request request, bool fresh);
    // The connection finished its request and may serve the next one.
    void release(ScraperHttp::Connection *c);
    // The connection is done for (closed, broken, or not reusable).
    void discard(ScraperHttp::Connection *c);
    void complete(const ScraperHttp::Request &request, ScraperHttp::Answer answer);

Q_SIGNALS:
    void scrapeDone(const QString &key, const Zhaoxi::Runtime::Scrape &scrape);
    void probeDone(const QString &key, bool ok, const QString &error);

private:
    void sweepIdle();

    QHash<QString, QList<ScraperHttp::Connection *>> m_idle; // by "host:port", last used last
    QTimer m_sweep{this}; // a child, so that moveToThread takes it along
    QElapsedTimer m_clock;
};

namespace ScraperHttp {

// One TCP connection to one server, serving one request at a time (no pipelining). Owned by the
// worker (a child of it); deleted with deleteLater once discarded, since that may happen from
// inside its socket's signals.
class Connection : public QObject
{
public:
    Connection(ScraperWorker *worker, const QString &origin, const QString &host, quint16 port);

    const QString &origin() const { return m_origin; }
    bool isUsable() const
    {
        return !m_discarded && m_socket->state() == QAbstractSocket::ConnectedState;
    }
    qint64 idleSinceMs = 0;

    void start(Request request);
    // Drops the socket and any request on it without a report (the caller reports, if anyone).
    void close();

private:
    enum class Phase { Idle, Connecting, Head, Body };
    enum class Framing { None, Length, Chunked, UntilClose };
    enum class ChunkPhase { Size, Data, DataEnd, Trailer };

    void send();
    void onReadyRead();
    void onClosed();
    void onDeadline();
    // Reads what m_in holds; finishes the request when the answer is complete or wrong.
    void parse();
    // Returns false while the head is incomplete.
    bool parseHead(QString *error);
    // Returns true when the body is complete.
    bool parseBody(QString *error);
    void take(qint64 n);
    void fail(const QString &error);
    void fail(Answer &&answer);
    void finish(bool reusable);

    ScraperWorker *m_worker;
    QString m_origin;
    QString m_host;
    quint16 m_port;
    QTcpSocket *m_socket;
    QTimer m_deadline{this};
    bool m_discarded = false;
    int m_served = 0; // answers read on this connection

    std::optional<Request> m_request;
    Phase m_phase = Phase::Idle;
    QByteArray m_in;
    qsizetype m_pos = 0; // m_in before this is consumed
    bool m_gotBytes = false;
    Answer m_answer;
    bool m_keepAlive = false;
    Framing m_framing = Framing::None;
    ChunkPhase m_chunk = ChunkPhase::Size;
    qint64 m_left = 0; // Length: body bytes to come; Chunked: bytes left of this chunk
    qint64 m_bodyBytes = 0;
};

Connection::Connection(ScraperWorker *worker,
                       const QString &origin,
                       const QString &host,
                       quint16 port)
    : QObject(worker)
    , m_worker(worker)
    , m_origin(origin)
    , m_host(host)
    , m_port(port)
    , m_socket(new QTcpSocket(this))
{
    m_socket->setProxy(QNetworkProxy::NoProxy);
    m_deadline.setSingleShot(true);
    // Precise: a coarse timer may fire up to 5 % early, and the report says "after N ms".
    m_deadline.setTimerType(Qt::PreciseTimer);
    connect(&m_deadline, &QTimer::timeout, this, &Connection::onDeadline);
    connect(m_socket, &QTcpSocket::connected, this, &Connection::send);
    connect(m_socket, &QTcpSocket::readyRead, this, &Connection::onReadyRead);
    connect(m_socket, &QTcpSocket::disconnected, this, &Connection::onClosed);
    connect(m_socket, &QTcpSocket::errorOccurred, this, &Connection::onClosed);
}

void Connection::start(Request request)
{
    m_request = std::move(request);
    m_in.clear();
    m_pos = 0;
    m_gotBytes = false;
    m_answer = Answer{};
    m_keepAlive = false;
    m_framing = Framing::None;
    m_chunk = ChunkPhase::Size;
    m_left = 0;
    m_bodyBytes = 0;
    m_deadline.start(int(std::max<qint64>(0, m_request->deadline.remainingTime())));
    if (m_socket->state() == QAbstractSocket::ConnectedState) {
        send();
    } else {
        m_phase = Phase::Connecting;
        m_socket->connectToHost(m_host, m_port);
    }
}

void Connection::close()
{
    if (m_discarded)
        return;
    m_discarded = true;
    m_request.reset();
    m_deadline.stop();
    m_socket->disconnect(this);
    m_socket->abort();
    deleteLater();
}

void Connection::send()
{
    if (!m_request)
        return;
    m_phase = Phase::Head;
    m_socket->write(m_request->wire);
    // Now rather than from the next turn of the event loop: saves a wake-up per request.
    m_socket->flush();
}

void Connection::onReadyRead()
{
    if (!m_request || m_phase == Phase::Connecting) {
        // Bytes nobody asked for: the server is not speaking HTTP as we know it.
        if (!m_request)
            m_worker->discard(this);
        return;
    }
    m_in += m_socket->readAll();
    m_gotBytes = m_gotBytes || !m_in.isEmpty();
    parse();
}

void Connection::onClosed()
{
    if (m_discarded)
        return;
    if (!m_request) {
        m_worker->discard(this); // an idle connection the server closed
        return;
    }
    // What arrived with the close is still in the socket's buffer.
    if (m_socket->bytesAvailable() > 0) {
        m_in += m_socket->readAll();
        m_gotBytes = true;
        parse();
        if (!m_request || m_discarded)
            return;
    }
    if (m_phase == Phase::Body && m_framing == Framing::UntilClose) {
        finish(false);
        return;
    }
    if (m_served > 0 && !m_gotBytes && !m_request->retried) {
        // A kept connection the server closed as the request went: idempotent, so once more on a
        // new connection, within the same deadline.
        Request again = std::move(*m_request);
        again.retried = true;
        m_worker->discard(this);
        m_worker->dispatch(std::move(again), true);
        return;
    }
    const QAbstractSocket::SocketError e = m_socket->error();
    if (m_phase == Phase::Connecting
        || (!m_gotBytes && e != QAbstractSocket::RemoteHostClosedError
            && e != QAbstractSocket::UnknownSocketError))
        fail(m_socket->errorString());
    else if (!m_gotBytes)
        fail(QStringLiteral("the server closed the connection without answering"));
    else
        fail(QStringLiteral("the server closed the connection before the answer was complete"));
}

void Connection::onDeadline()
{
    if (!m_request)
        return;
    Answer a = std::move(m_answer);
    a.timedOut = true;
    fail(std::move(a));
}

void Connection::parse()
{
    QString error;
    if (m_phase == Phase::Head && !parseHead(&error)) {
        if (!error.isEmpty())
            fail(error);
        return;
    }
    if (m_answer.tooLarge) {
        fail(std::move(m_answer));
        return;
    }
    if (!parseBody(&error)) {
        if (!error.isEmpty())
            fail(error);
        else if (m_answer.tooLarge)
            fail(std::move(m_answer));
        else if (m_pos > 0) { // keep what is not read yet, drop the rest
            m_in.remove(0, m_pos);
            m_pos = 0;
        }
        return;
    }
    // Anything after a complete answer was not asked for: do not read the next answer from it.
    finish(m_keepAlive && m_pos == m_in.size());
}

bool Connection::parseHead(QString *error)
{
    for (;;) {
        // The head ends at an empty line; bare LF line ends are accepted as RFC 9112 allows.
        qsizetype end = -1, bodyStart = -1;
        for (qsizetype nl = m_in.indexOf('\n', m_pos); nl >= 0; nl = m_in.indexOf('\n', nl + 1)) {
            if (nl + 1 < m_in.size() && m_in.at(nl + 1) == '\n') {
                end = nl + 1;
                bodyStart = nl + 2;
                break;
            }
            if (nl + 2 < m_in.size() && m_in.at(nl + 1) == '\r' && m_in.at(nl + 2) == '\n') {
                end = nl + 1;
                bodyStart = nl + 3;
                break;
            }
        }
        if (end < 0) {
            if (m_in.size() - m_pos > maxHeadBytes)
                *error = QStringLiteral("the answer's head is larger than %1 bytes")
                                 .arg(maxHeadBytes);
            return false;
        }
        if (end - m_pos > maxHeadBytes) {
            *error = QStringLiteral("the answer's head is larger than %1 bytes").arg(maxHeadBytes);
            return false;
        }

        const QByteArrayView head(m_in.constData() + m_pos, end - m_pos);
        qsizetype lineEnd = head.indexOf('\n');
        QByteArrayView status = head.first(lineEnd);
        if (status.endsWith('\r'))
            status.chop(1);
        // "HTTP/1.1 200 OK"; the reason may be empty, and so may the space before it.
        if (status.size() < 12 || !status.startsWith("HTTP/1.") || status.at(8) != ' '
            || (status.size() > 12 && status.at(12) != ' ')) {
            *error = QStringLiteral("not an HTTP/1.x answer: \"%1\"").arg(shown(status, 80));
            return false;
        }
        bool ok = false;
        const int code = status.sliced(9, 3).toInt(&ok);
        if (!ok || code < 100) {
            *error = QStringLiteral("bad HTTP status line: \"%1\"").arg(shown(status, 80));
            return false;
        }
        const bool http10 = status.at(7) == '0';
        if (code >= 200) { // known even if a header below is wrong
            m_answer.status = code;
            m_answer.reason
                    = status.size() > 13 ? status.sliced(13).trimmed().toByteArray() : QByteArray();
        }

        qint64 contentLength = -1;
        bool chunked = false, otherCoding = false, close = http10;
        for (qsizetype from = lineEnd + 1; from < head.size();) {
            lineEnd = head.indexOf('\n', from);
            QByteArrayView line = head.sliced(from, lineEnd - from);
            from = lineEnd + 1;
            if (line.endsWith('\r'))
                line.chop(1);
            const qsizetype colon = line.indexOf(':');
            if (colon <= 0) {
                *error = QStringLiteral("bad header line in the answer: \"%1\"")
                                 .arg(shown(line, 80));
                return false;
            }
            const QByteArrayView name = line.first(colon).trimmed();
            const QByteArrayView value = line.sliced(colon + 1).trimmed();
            auto is = [&name](const char *n) {
                return qstrnicmp(name.data(), name.size(), n) == 0;
            };
            if (is("content-length")) {
                const qint64 n = value.toLongLong(&ok);
                if (!ok || n < 0 || (contentLength >= 0 && n != contentLength)) {
                    *error = QStringLiteral("bad Content-Length in the answer: \"%1\"")
                                     .arg(shown(value, 80));
                    return false;
                }
                contentLength = n;
            } else if (is("transfer-encoding")) {
                const QByteArray codings = value.toByteArray().toLower();
                const QByteArray last = codings.mid(codings.lastIndexOf(',') + 1).trimmed();
                chunked = last == "chunked";
                otherCoding = !chunked;
            } else if (is("connection")) {
                const QByteArray v = value.toByteArray().toLower();
                if (v.contains("close"))
                    close = true;
                else if (v.contains("keep-alive"))
                    close = false;
            }
        }

        m_pos = bodyStart;
        if (code < 200) {
            if (code == 101) {
                *error = QStringLiteral("the server switched protocols (HTTP 101)");
                return false;
            }
            continue; // 100 Continue and the like: the real answer follows
        }
        m_keepAlive = !close;
        if (code == 204 || code == 304) {
            m_framing = Framing::None;
        } else if (chunked) {
            m_framing = Framing::Chunked;
        } else if (otherCoding || contentLength < 0) {
            // RFC 9112 6.3: a body ended by the close, which also ends the connection.
            m_framing = Framing::UntilClose;
            m_keepAlive = false;
        } else {
            m_framing = Framing::Length;
            m_left = contentLength;
            if (contentLength > Scraper::maxBodyBytes) {
                m_answer.tooLarge = true;
            } else if (m_request->kind == Kind::Scrape) {
                // Not all of a large announced length: it is a promise, not yet bytes.
                m_answer.body.reserve(qsizetype(std::min<qint64>(contentLength, 1 << 20)));
            }
        }
        m_phase = Phase::Body;
        return true;
    }
}

void Connection::take(qint64 n)
{
    if (m_request->kind == Kind::Scrape)
        m_answer.body.append(m_in.constData() + m_pos, n);
    m_pos += n;
    m_bodyBytes += n;
}

bool Connection::parseBody(QString *error)
{
    switch (m_framing) {
    case Framing::None:
        return true;
    case Framing::Length: {
        const qint64 n = std::min<qint64>(m_left, m_in.size() - m_pos);
        take(n);
        m_left -= n;
        return m_left == 0;
    }
    case Framing::UntilClose:
        if (m_bodyBytes + (m_in.size() - m_pos) > Scraper::maxBodyBytes) {
            m_answer.tooLarge = true;
            return false;
        }
        take(m_in.size() - m_pos);
        return false; // until the close
    case Framing::Chunked:
        break;
    }
    for (;;) {
        const qsizetype available = m_in.size() - m_pos;
        switch (m_chunk) {
        case ChunkPhase::Size: {
            const qsizetype nl = m_in.indexOf('\n', m_pos);
            if (nl < 0) {
                if (available > maxChunkLineBytes)
                    *error = QStringLiteral("bad chunk size line in the answer");
                return false;
            }
            QByteArrayView line(m_in.constData() + m_pos, nl - m_pos);
            const qsizetype semicolon = line.indexOf(';');
            if (semicolon >= 0)
                line.truncate(semicolon);
            line = line.trimmed();
            bool ok = false;
            const qint64 size = line.isEmpty() ? -1 : line.toLongLong(&ok, 16);
            if (!ok || size < 0) {
                *error = QStringLiteral("bad chunk size in the answer: \"%1\"")
                                 .arg(shown(line, 40));
                return false;
            }
            m_pos = nl + 1;
            if (size == 0) {
                m_chunk = ChunkPhase::Trailer;
                m_left = 0; // trailer bytes read so far
            } else if (size > Scraper::maxBodyBytes - m_bodyBytes) {
                m_answer.tooLarge = true;
                return false;
            } else {
                m_chunk = ChunkPhase::Data;
                m_left = size;
            }
            break;
        }
        case ChunkPhase::Data: {
            if (available == 0)
                return false;
            const qint64 n = std::min<qint64>(m_left, available);
            take(n);
            m_left -= n;
            if (m_left == 0)
                m_chunk = ChunkPhase::DataEnd;
            break;
        }
        case ChunkPhase::DataEnd:
            if (available == 0 || (m_in.at(m_pos) == '\r' && available < 2))
                return false;
            if (m_in.at(m_pos) == '\n') {
                m_pos += 1;
            } else if (m_in.at(m_pos) == '\r' && m_in.at(m_pos + 1) == '\n') {
                m_pos += 2;
            } else {
                *error = QStringLiteral("a chunk in the answer does not end where its size says");
                return false;
            }
            m_chunk = ChunkPhase::Size;
            break;
        case ChunkPhase::Trailer: {
            const qsizetype nl = m_in.indexOf('\n', m_pos);
            if (nl < 0) {
                if (m_left + available > maxHeadBytes)
                    *error = QStringLiteral("the answer's trailers are larger than %1 bytes")
                                     .arg(maxHeadBytes);
                return false;
            }
            const bool empty = nl == m_pos || (nl == m_pos + 1 && m_in.at(m_pos) == '\r');
            m_left += nl + 1 - m_pos;
            m_pos = nl + 1;
            if (empty)
                return true;
            if (m_left > maxHeadBytes) {
                *error = QStringLiteral("the answer's trailers are larger than %1 bytes")
                                 .arg(maxHeadBytes);
                return false;
            }
            break;
        }
        }
    }
}

void Connection::fail(const QString &error)
{
    Answer a = std::move(m_answer);
    a.error = error;
    fail(std::move(a));
}

void Connection::fail(Answer &&answer)
{
    m_answer = std::move(answer);
    finish(false);
}

void Connection::finish(bool reusable)
{
    m_deadline.stop();
    const Request request = std::move(*m_request);
    m_request.reset();
    Answer answer = std::move(m_answer);
    m_answer = Answer{};
    m_in.clear();
    m_pos = 0;
    m_phase = Phase::Idle;
    ++m_served;
    if (reusable && isUsable())
        m_worker->release(this);
    else
        m_worker->discard(this);
    m_worker->complete(request, std::move(answer));
}

} // namespace ScraperHttp

using ScraperHttp::Answer;
using ScraperHttp::Connection;
using ScraperHttp::Request;

ScraperWorker::ScraperWorker()
{
    m_sweep.setInterval(ScraperHttp::idleCloseMs / 3);
    connect(&m_sweep, &QTimer::timeout, this, &ScraperWorker::sweepIdle);
    m_clock.start();
}

void ScraperWorker::get(Kind kind, const QString &key, const QUrl &url, int timeoutMs)
{
    Request r;
    r.kind = kind;
    r.key = key;
    r.url = url;
    r.timeoutMs = timeoutMs;
    r.deadline = QDeadlineTimer(timeoutMs, Qt::PreciseTimer);
    if (url.scheme() != QLatin1String("http") || url.host().isEmpty()) {
        Answer a;
        a.error = url.scheme() != QLatin1String("http")
                          ? QStringLiteral("only http:// URLs are supported")
                          : QStringLiteral("the URL names no host");
        complete(r, std::move(a));
        return;
    }
    QByteArray target = url.path(QUrl::FullyEncoded).toLatin1();
    if (target.isEmpty())
        target = "/";
    if (url.hasQuery())
        target += '?' + url.query(QUrl::FullyEncoded).toLatin1();
    QByteArray host = url.host(QUrl::FullyEncoded).toLatin1();
    if (host.contains(':'))
        host = '[' + host + ']'; // an IPv6 literal
    if (url.port() >= 0)
        host += ':' + QByteArray::number(url.port());
    r.wire = "GET " + target + " HTTP/1.1\r\nHost: " + host
             + (kind == Kind::Scrape ? "\r\nAccept: text/plain;version=0.0.4;q=1,*/*;q=0.1"
                                     : "\r\nAccept: */*")
             + "\r\nUser-Agent: zhaoxi-scraper\r\nConnection: keep-alive\r\n\r\n";
    dispatch(std::move(r), false);
}

void ScraperWorker::dispatch(Request request, bool fresh)
{
    const QString host = request.url.host();
    const quint16 port = quint16(request.url.port(80));
    const QString origin = host + QLatin1Char(':') + QString::number(port);
    if (!fresh) {
        const auto it = m_idle.find(origin);
        if (it != m_idle.end()) {
            while (!it->isEmpty()) {
                Connection *c = it->takeLast();
                if (c->isUsable()) {
                    if (it->isEmpty())
                        m_idle.erase(it);
                    c->start(std::move(request));
                    return;
                }
                c->close();
            }
            m_idle.erase(it);
        }
    }
    auto *c = new Connection(this, origin, host, port);
    c->start(std::move(request));
}

void ScraperWorker::release(Connection *c)
{
    QList<Connection *> &idle = m_idle[c->origin()];
    if (idle.size() >= ScraperHttp::maxIdlePerOrigin) {
        c->close();
        return;
    }
    c->idleSinceMs = m_clock.elapsed();
    idle.append(c);
    if (!m_sweep.isActive())
        m_sweep.start();
}

void ScraperWorker::discard(Connection *c)
{
    const auto it = m_idle.find(c->origin());
    if (it != m_idle.end()) {
        it->removeOne(c);
        if (it->isEmpty())
            m_idle.erase(it);
    }
    c->close();
}

void ScraperWorker::sweepIdle()
{
    const qint64 now = m_clock.elapsed();
    for (auto it = m_idle.begin(); it != m_idle.end();) {
        QList<Connection *> &list = *it;
        // Oldest first: the list is in the order of release.
        while (!list.isEmpty() && now - list.first()->idleSinceMs >= ScraperHttp::idleCloseMs)
            list.takeFirst()->close();
        it = list.isEmpty() ? m_idle.erase(it) : std::next(it);
    }
    if (m_idle.isEmpty())
        m_sweep.stop();
}

void ScraperWorker::complete(const Request &request, Answer answer)
{
    Scrape s;
    s.readAtMs = QDateTime::currentMSecsSinceEpoch();
    s.httpStatus = answer.status;
    const QString where = QStringLiteral("GET ") + request.url.toString() + QStringLiteral(": ");
    if (answer.timedOut) {
        s.error = where + QStringLiteral("timed out after %1 ms").arg(request.timeoutMs);
    } else if (answer.tooLarge) {
        s.error = where + QStringLiteral("answer larger than %1 bytes").arg(Scraper::maxBodyBytes);
    } else if (!answer.error.isEmpty()) {
        s.error = where + answer.error;
    } else if (answer.status != 200) {
        s.error = QString(where
                          + QStringLiteral("HTTP %1 %2")
                                    .arg(answer.status)
                                    .arg(QString::fromLatin1(answer.reason)))
                          .trimmed();
    }
    if (request.kind == Kind::Probe) {
        Q_EMIT probeDone(request.key, s.ok(), s.error);
        return;
    }
    if (s.ok())
        s.metrics = parseExposition(answer.body);
    Q_EMIT scrapeDone(request.key, s);
}

Scraper::Scraper(QObject *parent)
    : QObject(parent)
    , m_worker(new ScraperWorker)
{
    qRegisterMetaType<Zhaoxi::Runtime::Scrape>();
    m_thread.setObjectName(QStringLiteral("zhaoxi-scraper"));
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &ScraperWorker::scrapeDone, this, &Scraper::onScrapeDone);
    connect(m_worker, &ScraperWorker::probeDone, this, &Scraper::onProbeDone);
    m_thread.start();
}

Scraper::~Scraper()
{
    // The worker and its connections are deleted on their own thread as it finishes, which
    // closes every socket; results still queued for this object die with it.
    m_thread.quit();
    m_thread.wait();
}

void Scraper::setTimeoutMs(int ms)
{
    m_timeoutMs = std::max(1, ms);
}

void Scraper::scrape(const QString &key, const QUrl &url)
{
    if (m_scraping.contains(key)) {
        ++m_skipped;
        return;
    }
    m_scraping.insert(key);
    ScraperWorker *worker = m_worker;
    const int timeout = m_timeoutMs;
    QMetaObject::invokeMethod(
            worker,
            [worker, key, url, timeout] {
                worker->get(ScraperWorker::Kind::Scrape, key, url, timeout);
            },
            Qt::QueuedConnection);
}

void Scraper::probe(const QString &key, const QUrl &url)
{
    if (m_probing.contains(key)) {
        ++m_skipped;
        return;
    }
    m_probing.insert(key);
    ScraperWorker *worker = m_worker;
    const int timeout = m_timeoutMs;
    QMetaObject::invokeMethod(
            worker,
            [worker, key, url, timeout] {
                worker->get(ScraperWorker::Kind::Probe, key, url, timeout);
            },
            Qt::QueuedConnection);
}

void Scraper::onScrapeDone(const QString &key, const Zhaoxi::Runtime::Scrape &scrape)
{
    m_scraping.remove(key);
    Q_EMIT scraped(key, scrape);
}

void Scraper::onProbeDone(const QString &key, bool ok, const QString &error)
{
    m_probing.remove(key);
    Q_EMIT probed(key, ok, error);
}

} // namespace Zhaoxi::Runtime

#include "scraper.moc"
