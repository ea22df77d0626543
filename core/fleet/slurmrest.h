// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "slurmjson.h"

#include <QByteArray>
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QUrl>

#include <functional>
#include <optional>

class QNetworkAccessManager;
class QNetworkReply;

namespace Zhaoxi::Fleet {

// How a request to slurmrestd ended. English text for logs and the command line.
struct RestStatus
{
    enum class Code {
        Ok,
        TokenFile,   // the token file could not be read, or is empty
        Unreachable, // no connection, refused, closed, or no answer within the timeout
        Http,        // an HTTP status other than 200 (Slurm's errors[] in `slurmErrors`)
        Slurm,       // HTTP 200 with a non-empty errors[]
        BadJson,     // the answer is not what v0.0.38 writes (the JSON path in `message`)
    };
    Code code = Code::Ok;
    int httpStatus = 0;
    QStringList slurmErrors;
    QString message; // one English sentence with the method and path
    bool isOk() const { return code == Code::Ok; }
};

const char *toString(RestStatus::Code code); // "ok", "token-file", "unreachable", ...

struct RestReply
{
    RestStatus status;
    QByteArray body;
};

// A client of slurmrestd's v0.0.38 API over TCP with JWT (FLEET_SLURM.md: Qt cannot speak over
// its unix socket). Every request reads the token file again (a renewed token is picked up),
// sends X-SLURM-USER-NAME and X-SLURM-USER-TOKEN, and ends within the timeout. A wrong or
// expired token is answered by slurmrestd 22.05 with HTTP 500 "Unspecified error", a missing one
// with 401: both are Code::Http with a sentence that says so.
//
// Thread: the thread the client lives in (its QNetworkAccessManager's); callbacks run there,
// from its event loop. The blocking helpers run a local event loop and are for command-line
// tools, not for a GUI thread.
class SlurmRestClient : public QObject
{
public:
    // `baseUrl` e.g. "http://127.0.0.1:6820" (no path). `user` the token's user name.
    SlurmRestClient(const QUrl &baseUrl,
                    const QString &user,
                    const QString &tokenFile,
                    QObject *parent = nullptr);
    ~SlurmRestClient() override;

    void setTimeoutMs(int ms) { m_timeoutMs = ms; }
    int timeoutMs() const { return m_timeoutMs; }
    const QUrl &baseUrl() const { return m_base; }

    using Callback = std::function<void(const RestReply &)>;
    // `path` e.g. "/slurm/v0.0.38/nodes". The callback is called exactly once.
    void get(const QString &path, Callback done);
    void post(const QString &path, const QJsonObject &body, Callback done);
    // DELETE (job/{id}: cancel a job, with an optional `?signal=` query in `path`).
    void del(const QString &path, Callback done);

    RestReply getBlocking(const QString &path);
    RestReply postBlocking(const QString &path, const QJsonObject &body);
    RestReply deleteBlocking(const QString &path);

    // Nodes, jobs, partitions and reservations, one after the other; the first failure ends it
    // (its status; a parse error is Code::BadJson naming the endpoint and the JSON path).
    void fetchFleet(std::function<void(const RestStatus &, const FleetSnapshot &)> done);
    std::optional<FleetSnapshot> fetchFleetBlocking(RestStatus *status);

    // POST job/submit: the Slurm job id, or nullopt with the status (Slurm's refusal in
    // slurmErrors and message).
    std::optional<qint64> submitBlocking(const QJsonObject &request, RestStatus *status);

private:
    void send(const QByteArray &verb, const QString &path, const QByteArray &body, Callback done);
    RestReply wait(const std::function<void(Callback)> &start);
    RestStatus finished(QNetworkReply *reply,
                        const QByteArray &verb,
                        const QString &path,
                        const QByteArray &body) const;

    QUrl m_base;
    QString m_user;
    QString m_tokenFile;
    int m_timeoutMs = 10000;
    QNetworkAccessManager *m_nam = nullptr;
};

} // namespace Zhaoxi::Fleet
