// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Publishes where each inference service's replicas listen, for load balancers and clients
// outside the appliance, as two files in one directory:
//
// endpoints.json:
//   {"services": {"chat": [{"replica": "chat-0", "address": "127.0.0.1", "port": 40123,
//                           "ready": true}, ...], ...},
//    "updated": "2024-04-01T12:00:00.000Z"}
//   every replica given, ready or not, services by name and replicas by replica name; "updated"
//   is the ISO-8601 UTC time of the publish() that last changed the services.
//
// upstreams.conf: an nginx snippet with one block per service that has a ready replica:
//   upstream zhaoxi_chat {
//       server 127.0.0.1:40123;
//   }
//   The block's name is upstreamName(service): "zhaoxi_" + the service name with every
//   character outside [A-Za-z0-9_] replaced by '_'; when anything was replaced, "_" and the
//   first 8 hex digits of the SHA-1 of the UTF-8 name follow, so two services never share a
//   name ("chat" -> zhaoxi_chat, "chat-a" -> zhaoxi_chat_a_<8 hex>). IPv6 addresses are written
//   in brackets.
//
// Writing: a file is written only when its content would change (endpoints.json compared
// without "updated", against the file on disk, so a restarted publisher does not rewrite
// either); each is replaced atomically (QSaveFile: a temporary file renamed over the old one),
// so a reader sees the old file or the new one, never a part. Both files are prepared first and
// renamed only when both were written in full: a failure before the renames leaves both old
// files. (A failure of the second rename, after the first, leaves the files disagreeing; it is
// reported as any other.) The directory is created when missing.
//
// Threading: a plain object, used from one thread at a time; publish() does small blocking
// file I/O.

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QString>

namespace Zhaoxi::Runtime {

struct ReplicaEndpoint
{
    QString replica; // the replica's job name, e.g. "chat-0"
    QString address; // an IP address or host name: letters, digits, '.', '-', ':' only
    int port = 0;    // 1..65535
    bool ready = false;
    friend bool operator==(const ReplicaEndpoint &, const ReplicaEndpoint &) = default;
};

// Service name -> its replicas.
using ServiceEndpoints = QMap<QString, QList<ReplicaEndpoint>>;

class EndpointPublisher
{
public:
    struct Result
    {
        bool ok = true;
        QString error; // empty when ok; names the file or the endpoint that is wrong
        bool jsonWritten = false;
        bool confWritten = false;
    };

    explicit EndpointPublisher(const QString &directory);

    QString directory() const { return m_directory; }
    QString jsonPath() const;
    QString confPath() const;

    // Brings both files up to date with `services` at time nowMs (UTC epoch ms). An endpoint
    // with an empty replica name, a port outside 1..65535 or an address with other characters
    // than the above is refused before anything is written (error names the service and
    // replica).
    Result publish(const ServiceEndpoints &services, qint64 nowMs);

    // The files' content, as publish() writes it.
    static QByteArray endpointsJson(const ServiceEndpoints &services, qint64 nowMs);
    static QByteArray upstreamsConf(const ServiceEndpoints &services);
    static QString upstreamName(const QString &service);

private:
    QString m_directory;
};

} // namespace Zhaoxi::Runtime
