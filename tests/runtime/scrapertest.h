// SPDX-License-Identifier: GPL-3.0-or-later
// What the scraper's tests share (tst_scraper: against zhaoxi-demo-infer and zhaoxi-demo-load;
// tst_scraper_http: against scripted loopback servers, answer by answer): loopback servers, the
// demo programs started and killed by their pid in killProcesses(), scrapes and probes waited for.
#pragma once

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

inline quint16 freeLoopbackPort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 0;
    return probe.serverPort(); // closed when `probe` goes: a small race, retried by startInfer
}

inline QUrl url(quint16 port, const QString &path)
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

inline QByteArray okAnswer(const QByteArray &body = upBody, const QByteArray &headers = {})
{
    return "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: "
           + QByteArray::number(body.size()) + "\r\n" + headers + "\r\n" + body;
}

// Writes `pieces` one by one, 10 ms apart (so that they arrive apart), then closes the socket if
// `close`.
inline void writeInPieces(QTcpSocket *socket, const QList<QByteArray> &pieces, bool close)
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

class ScraperTest : public QObject
{
protected:
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

    // Each test case's initTestCase().
    void noProxy() { m_nam.setProxy(QNetworkProxy::NoProxy); }

    // Each test case's cleanup(): every process a test started is killed, whatever happened.
    void killProcesses()
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
};
