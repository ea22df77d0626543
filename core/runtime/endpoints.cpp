// SPDX-License-Identifier: GPL-3.0-or-later
#include "endpoints.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

#include <algorithm>
#include <memory>
#include <vector>

namespace Zhaoxi::Runtime {

namespace {

const QLatin1String jsonName("endpoints.json");
const QLatin1String confName("upstreams.conf");

QList<ReplicaEndpoint> sortedReplicas(QList<ReplicaEndpoint> replicas)
{
    std::sort(replicas.begin(),
              replicas.end(),
              [](const ReplicaEndpoint &a, const ReplicaEndpoint &b) {
                  if (a.replica != b.replica)
                      return a.replica < b.replica;
                  if (a.address != b.address)
                      return a.address < b.address;
                  return a.port < b.port;
              });
    return replicas;
}

QJsonObject servicesJson(const ServiceEndpoints &services)
{
    QJsonObject out;
    for (auto it = services.constBegin(); it != services.constEnd(); ++it) {
        QJsonArray replicas;
        for (const ReplicaEndpoint &r : sortedReplicas(it.value())) {
            replicas.append(QJsonObject{{QLatin1String("replica"), r.replica},
                                        {QLatin1String("address"), r.address},
                                        {QLatin1String("port"), r.port},
                                        {QLatin1String("ready"), r.ready}});
        }
        out.insert(it.key(), replicas);
    }
    return out;
}

bool validAddress(const QString &address)
{
    if (address.isEmpty())
        return false;
    // Nothing that could end or open an nginx directive may pass into upstreams.conf.
    return std::all_of(address.begin(), address.end(), [](QChar c) {
        return (c >= QLatin1Char('a') && c <= QLatin1Char('z'))
               || (c >= QLatin1Char('A') && c <= QLatin1Char('Z'))
               || (c >= QLatin1Char('0') && c <= QLatin1Char('9')) || c == QLatin1Char('.')
               || c == QLatin1Char('-') || c == QLatin1Char(':');
    });
}

QByteArray readFile(const QString &path, bool *exists)
{
    QFile f(path);
    *exists = f.open(QIODevice::ReadOnly);
    return *exists ? f.readAll() : QByteArray();
}

} // namespace

EndpointPublisher::EndpointPublisher(const QString &directory)
    : m_directory(directory)
{}

QString EndpointPublisher::jsonPath() const
{
    return QDir(m_directory).filePath(jsonName);
}

QString EndpointPublisher::confPath() const
{
    return QDir(m_directory).filePath(confName);
}

QString EndpointPublisher::upstreamName(const QString &service)
{
    QString clean;
    clean.reserve(service.size());
    for (const QChar c : service) {
        const bool ok = (c >= QLatin1Char('a') && c <= QLatin1Char('z'))
                        || (c >= QLatin1Char('A') && c <= QLatin1Char('Z'))
                        || (c >= QLatin1Char('0') && c <= QLatin1Char('9'))
                        || c == QLatin1Char('_');
        clean.append(ok ? c : QLatin1Char('_'));
    }
    QString name = QStringLiteral("zhaoxi_") + clean;
    if (clean != service) {
        const QByteArray digest
                = QCryptographicHash::hash(service.toUtf8(), QCryptographicHash::Sha1);
        name += QLatin1Char('_') + QString::fromLatin1(digest.toHex().left(8));
    }
    return name;
}

QByteArray EndpointPublisher::endpointsJson(const ServiceEndpoints &services, qint64 nowMs)
{
    const QJsonObject doc{
            {QLatin1String("services"), servicesJson(services)},
            {QLatin1String("updated"),
             QDateTime::fromMSecsSinceEpoch(nowMs, Qt::UTC).toString(Qt::ISODateWithMs)}};
    return QJsonDocument(doc).toJson(QJsonDocument::Indented);
}

QByteArray EndpointPublisher::upstreamsConf(const ServiceEndpoints &services)
{
    QByteArray out = "# Written by Zhaoxi: the ready replicas of each inference service.\n"
                     "# Replaced whenever they change; do not edit.\n";
    for (auto it = services.constBegin(); it != services.constEnd(); ++it) {
        QByteArray servers;
        for (const ReplicaEndpoint &r : sortedReplicas(it.value())) {
            if (!r.ready)
                continue;
            const QByteArray host = r.address.contains(QLatin1Char(':'))
                                            ? "[" + r.address.toLatin1() + "]"
                                            : r.address.toLatin1();
            servers += "    server " + host + ":" + QByteArray::number(r.port) + ";\n";
        }
        if (servers.isEmpty())
            continue;
        out += "upstream " + upstreamName(it.key()).toLatin1() + " {\n" + servers + "}\n";
    }
    return out;
}

EndpointPublisher::Result EndpointPublisher::publish(const ServiceEndpoints &services, qint64 nowMs)
{
    Result result;
    auto fail = [&result](const QString &error) {
        result.ok = false;
        result.error = error;
        return result;
    };
    for (auto it = services.constBegin(); it != services.constEnd(); ++it) {
        for (const ReplicaEndpoint &r : it.value()) {
            const QString who
                    = QStringLiteral("service %1, replica '%2': ").arg(it.key(), r.replica);
            if (r.replica.isEmpty())
                return fail(who + QStringLiteral("empty replica name"));
            if (r.port < 1 || r.port > 65535)
                return fail(who + QStringLiteral("port %1 is not in 1..65535").arg(r.port));
            if (!validAddress(r.address))
                return fail(who
                            + QStringLiteral("address '%1' is not an IP address or host name")
                                      .arg(r.address));
        }
    }
    if (!QDir().mkpath(m_directory))
        return fail(QStringLiteral("cannot create the directory %1").arg(m_directory));

    bool jsonExists = false;
    const QByteArray oldJson = readFile(jsonPath(), &jsonExists);
    const QJsonDocument oldDoc = QJsonDocument::fromJson(oldJson);
    const bool jsonSame
            = jsonExists && oldDoc.isObject()
              && oldDoc.object().value(QLatin1String("services")) == servicesJson(services);
    bool confExists = false;
    const QByteArray newConf = upstreamsConf(services);
    const bool confSame = readFile(confPath(), &confExists) == newConf && confExists;

    struct Pending
    {
        std::unique_ptr<QSaveFile> file;
        bool *written;
    };
    std::vector<Pending> pending;
    auto prepare = [&](const QString &path, const QByteArray &content, bool *written) {
        auto file = std::make_unique<QSaveFile>(path);
        if (!file->open(QIODevice::WriteOnly))
            return QStringLiteral("cannot write %1: %2").arg(path, file->errorString());
        if (file->write(content) != content.size())
            return QStringLiteral("cannot write %1: %2").arg(path, file->errorString());
        pending.push_back(Pending{std::move(file), written});
        return QString();
    };
    if (!jsonSame) {
        const QString error
                = prepare(jsonPath(), endpointsJson(services, nowMs), &result.jsonWritten);
        if (!error.isEmpty())
            return fail(error); // pending files are discarded unrenamed
    }
    if (!confSame) {
        const QString error = prepare(confPath(), newConf, &result.confWritten);
        if (!error.isEmpty())
            return fail(error);
    }
    for (Pending &p : pending) {
        if (!p.file->commit())
            return fail(QStringLiteral("cannot replace %1: %2")
                                .arg(p.file->fileName(), p.file->errorString()));
        *p.written = true;
    }
    return result;
}

} // namespace Zhaoxi::Runtime
