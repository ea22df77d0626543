// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The service's /metrics over HTTP for Prometheus. Qt 6.4's QHttpServer is a technical preview:
// this class is the only user of it, and its header names no QtHttpServer type, so a change
// of that API stays in metricsendpoint.cpp.

#include <QByteArray>
#include <QHostAddress>
#include <QObject>
#include <QString>

#include <functional>
#include <optional>

QT_BEGIN_NAMESPACE
class QHttpServer;
QT_END_NAMESPACE

namespace Zhaoxi::Service {

struct ListenAddress
{
    QHostAddress address;
    quint16 port = 0;
};

// Reads `--metrics-listen`'s ADDR:PORT: an IPv4 address ("127.0.0.1:9400"), a bracketed IPv6
// one ("[::1]:9400") or "localhost" (the IPv4 loopback), and a port 1..65535. nullopt with an
// English *error ("expected ADDR:PORT", "bad port ...", "bad address ...") otherwise. Host
// names other than localhost are refused: a metrics port bound to whatever a name resolves to
// at start is a surprise.
std::optional<ListenAddress> parseListenAddress(QStringView text, QString *error = nullptr);

// Answers GET /metrics with the provider's text, `Content-Type: text/plain; version=0.0.4;
// charset=utf-8` (the Prometheus text format); any other path or method gets 404.
//
// Thread: it serves on the thread it lives in (moveToThread before listen() to serve on
// another), which needs an event loop; the provider is called there, once per scrape.
class MetricsEndpoint final : public QObject
{
    Q_OBJECT

public:
    using Provider = std::function<QByteArray()>;

    explicit MetricsEndpoint(Provider provider, QObject *parent = nullptr);
    ~MetricsEndpoint() override;

    // Listens on `address`:`port` (0: a free port the system picks). Returns the port bound,
    // or 0 with an English *error (the port is taken, the address is not this machine's,
    // already listening).
    quint16 listen(const QHostAddress &address, quint16 port, QString *error = nullptr);
    quint16 port() const { return m_port; } // 0 while not listening
    quint64 scrapes() const { return m_scrapes; }

Q_SIGNALS:
    // After each /metrics answer was handed to the connection.
    void scraped(quint64 count);

private:
    Provider m_provider;
    QHttpServer *m_server = nullptr; // a child: moveToThread takes it along
    quint16 m_port = 0;
    quint64 m_scrapes = 0;
};

} // namespace Zhaoxi::Service
