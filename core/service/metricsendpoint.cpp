// SPDX-License-Identifier: GPL-3.0-or-later
#include "metricsendpoint.h"

#include <QHttpServer>
#include <QHttpServerRequest>
#include <QHttpServerResponder>
#include <QTcpServer>

namespace Zhaoxi::Service {

namespace {

const QByteArray kTextFormat = QByteArrayLiteral("text/plain; version=0.0.4; charset=utf-8");

void setError(QString *error, const QString &text)
{
    if (error)
        *error = text;
}

} // namespace

std::optional<ListenAddress> parseListenAddress(QStringView text, QString *error)
{
    const qsizetype colon = text.lastIndexOf(u':');
    if (colon <= 0 || colon == text.size() - 1) {
        setError(error, QStringLiteral("expected ADDR:PORT, got \"%1\"").arg(text));
        return std::nullopt;
    }
    QStringView host = text.first(colon);
    const QStringView portText = text.sliced(colon + 1);
    bool ok = false;
    const uint port = portText.toUInt(&ok);
    if (!ok || port < 1 || port > 65535) {
        setError(error, QStringLiteral("bad port \"%1\": expected 1..65535").arg(portText));
        return std::nullopt;
    }
    const bool bracketed = host.startsWith(u'[') && host.endsWith(u']');
    if (bracketed)
        host = host.sliced(1, host.size() - 2);
    ListenAddress r;
    r.port = quint16(port);
    if (!bracketed && host.compare(u"localhost", Qt::CaseInsensitive) == 0) {
        r.address = QHostAddress(QHostAddress::LocalHost);
        return r;
    }
    // An IPv6 address must be bracketed: its colons would otherwise be read as the port's.
    const bool v6 = host.contains(u':');
    if (v6 != bracketed || !r.address.setAddress(host.toString())) {
        setError(error,
                 QStringLiteral("bad address \"%1\": expected an IPv4 address, [IPv6] or "
                                "localhost")
                         .arg(host));
        return std::nullopt;
    }
    return r;
}

MetricsEndpoint::MetricsEndpoint(Provider provider, QObject *parent)
    : QObject(parent)
    , m_provider(std::move(provider))
    , m_server(new QHttpServer(this))
{
    m_server->route(
            "/metrics", QHttpServerRequest::Method::Get, [this](QHttpServerResponder &&responder) {
                responder.write(m_provider ? m_provider() : QByteArray(), kTextFormat);
                ++m_scrapes;
                Q_EMIT scraped(m_scrapes);
            });
    m_server->setMissingHandler([](const QHttpServerRequest &, QHttpServerResponder &&responder) {
        responder.write(QByteArrayLiteral("not found: this server answers GET /metrics\n"),
                        QByteArrayLiteral("text/plain; charset=utf-8"),
                        QHttpServerResponder::StatusCode::NotFound);
    });
}

MetricsEndpoint::~MetricsEndpoint() = default;

quint16 MetricsEndpoint::listen(const QHostAddress &address, quint16 port, QString *error)
{
    if (m_port != 0) {
        setError(error, QStringLiteral("already listening on port %1").arg(m_port));
        return 0;
    }
    // Our own QTcpServer, not QHttpServer::listen: that one reports a failure only as a log
    // line, and the operator must be told why --metrics-listen did not work.
    auto tcp = std::make_unique<QTcpServer>();
    if (!tcp->listen(address, port)) {
        setError(error,
                 QStringLiteral("cannot listen on %1:%2: %3")
                         .arg(address.toString())
                         .arg(port)
                         .arg(tcp->errorString()));
        return 0;
    }
    m_port = tcp->serverPort();
    m_server->bind(tcp.release()); // the HTTP server takes it as its child
    return m_port;
}

} // namespace Zhaoxi::Service
