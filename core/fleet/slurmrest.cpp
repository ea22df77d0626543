// SPDX-License-Identifier: GPL-3.0-or-later
#include "slurmrest.h"

#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>

#include <memory>

namespace Zhaoxi::Fleet {

namespace {

constexpr qint64 kMaxTokenBytes = 64 * 1024;

const QString kApi = QStringLiteral("/slurm/v0.0.38/");

} // namespace

const char *toString(RestStatus::Code code)
{
    switch (code) {
    case RestStatus::Code::Ok:
        return "ok";
    case RestStatus::Code::TokenFile:
        return "token-file";
    case RestStatus::Code::Unreachable:
        return "unreachable";
    case RestStatus::Code::Http:
        return "http";
    case RestStatus::Code::Slurm:
        return "slurm";
    case RestStatus::Code::BadJson:
        return "bad-json";
    }
    return "?";
}

SlurmRestClient::SlurmRestClient(const QUrl &baseUrl,
                                 const QString &user,
                                 const QString &tokenFile,
                                 QObject *parent)
    : QObject(parent)
    , m_base(baseUrl)
    , m_user(user)
    , m_tokenFile(tokenFile)
    , m_nam(new QNetworkAccessManager(this))
{}

SlurmRestClient::~SlurmRestClient() = default;

void SlurmRestClient::get(const QString &path, Callback done)
{
    send("GET", path, QByteArray(), std::move(done));
}

void SlurmRestClient::post(const QString &path, const QJsonObject &body, Callback done)
{
    send("POST", path, QJsonDocument(body).toJson(QJsonDocument::Compact), std::move(done));
}

void SlurmRestClient::del(const QString &path, Callback done)
{
    send("DELETE", path, QByteArray(), std::move(done));
}

void SlurmRestClient::send(const QByteArray &verb,
                           const QString &path,
                           const QByteArray &body,
                           Callback done)
{
    // The token is read for every request: whoever renews it rewrites the file.
    QFile f(m_tokenFile);
    QByteArray token;
    RestReply failed;
    if (!f.open(QIODevice::ReadOnly)) {
        failed.status.code = RestStatus::Code::TokenFile;
        failed.status.message = QStringLiteral("cannot read the token file %1: %2")
                                        .arg(m_tokenFile, f.errorString());
    } else {
        token = f.read(kMaxTokenBytes).trimmed();
        // `scontrol token` writes "SLURM_JWT=<token>"; take the value.
        if (token.startsWith("SLURM_JWT="))
            token = token.mid(10);
        if (token.isEmpty() || token.contains('\n')) {
            failed.status.code = RestStatus::Code::TokenFile;
            failed.status.message = QStringLiteral("the token file %1 holds no token (one line "
                                                   "expected, as `scontrol token` prints it)")
                                            .arg(m_tokenFile);
        }
    }
    if (failed.status.code != RestStatus::Code::Ok) {
        // Asynchronous like every other answer: the caller's stack has unwound first.
        QMetaObject::invokeMethod(
                this, [done = std::move(done), failed] { done(failed); }, Qt::QueuedConnection);
        return;
    }
    QUrl url = m_base;
    const qsizetype query = path.indexOf(QLatin1Char('?'));
    url.setPath(m_base.path() + path.left(query));
    if (query >= 0)
        url.setQuery(path.mid(query + 1));
    QNetworkRequest request(url);
    request.setRawHeader("X-SLURM-USER-NAME", m_user.toUtf8());
    request.setRawHeader("X-SLURM-USER-TOKEN", token);
    request.setRawHeader("Accept", "application/json");
    request.setTransferTimeout(m_timeoutMs);
    if (!body.isEmpty())
        request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    QNetworkReply *reply = m_nam->sendCustomRequest(request, verb, body);
    connect(reply, &QNetworkReply::finished, this, [this, reply, verb, path, done] {
        reply->deleteLater();
        RestReply r;
        if (reply->isOpen()) // not after an abort (the transfer timeout)
            r.body = reply->readAll();
        r.status = finished(reply, verb, path, r.body);
        done(r);
    });
}

RestStatus SlurmRestClient::finished(QNetworkReply *reply,
                                     const QByteArray &verb,
                                     const QString &path,
                                     const QByteArray &body) const
{
    RestStatus s;
    const QString what = QString::fromLatin1(verb) + QLatin1Char(' ') + m_base.toString() + path;
    s.httpStatus = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (s.httpStatus == 0) {
        s.code = RestStatus::Code::Unreachable;
        s.message
                = reply->error() == QNetworkReply::OperationCanceledError
                                  || reply->error() == QNetworkReply::TimeoutError
                          ? QStringLiteral("%1: no answer within %2 ms").arg(what).arg(m_timeoutMs)
                          : QStringLiteral("%1: slurmrestd is unreachable: %2")
                                    .arg(what, reply->errorString());
        return s;
    }
    const QJsonDocument doc = QJsonDocument::fromJson(body);
    if (doc.isObject())
        s.slurmErrors = slurmErrors(doc.object());
    if (s.httpStatus != 200) {
        s.code = RestStatus::Code::Http;
        QString detail = s.slurmErrors.join(QStringLiteral("; "));
        if (detail.isEmpty())
            detail = QString::fromUtf8(body.left(200)).trimmed();
        s.message = QStringLiteral("%1: HTTP %2").arg(what).arg(s.httpStatus);
        if (!detail.isEmpty())
            s.message += QStringLiteral(": ") + detail;
        if (s.httpStatus == 401) {
            s.message += QStringLiteral(" (slurmrestd got no token it could use: check --user and "
                                        "the token file %1)")
                                 .arg(m_tokenFile);
        } else if (s.httpStatus == 500 && s.slurmErrors.size() == 1
                   && s.slurmErrors.first().startsWith(QLatin1String("Unspecified error"))) {
            s.message += QStringLiteral(" (slurmrestd answers this way when the token is wrong or "
                                        "expired, or not the user's: renew the token file %1)")
                                 .arg(m_tokenFile);
        }
        return s;
    }
    if (!doc.isObject()) {
        s.code = RestStatus::Code::BadJson;
        s.message = QStringLiteral("%1: the answer is not a JSON object").arg(what);
        return s;
    }
    if (!s.slurmErrors.isEmpty()) {
        s.code = RestStatus::Code::Slurm;
        s.message = QStringLiteral("%1: Slurm: %2")
                            .arg(what, s.slurmErrors.join(QStringLiteral("; ")));
    }
    return s;
}

RestReply SlurmRestClient::wait(const std::function<void(Callback)> &start)
{
    QEventLoop loop;
    RestReply out;
    bool done = false;
    start([&](const RestReply &r) {
        out = r;
        done = true;
        loop.quit();
    });
    if (!done)
        loop.exec();
    return out;
}

RestReply SlurmRestClient::getBlocking(const QString &path)
{
    return wait([&](Callback cb) { get(path, std::move(cb)); });
}

RestReply SlurmRestClient::postBlocking(const QString &path, const QJsonObject &body)
{
    return wait([&](Callback cb) { post(path, body, std::move(cb)); });
}

RestReply SlurmRestClient::deleteBlocking(const QString &path)
{
    return wait([&](Callback cb) { del(path, std::move(cb)); });
}

void SlurmRestClient::fetchFleet(
        std::function<void(const RestStatus &, const FleetSnapshot &)> done)
{
    struct Run
    {
        FleetSnapshot snapshot;
        std::function<void(const RestStatus &, const FleetSnapshot &)> done;
    };
    auto run = std::make_shared<Run>();
    run->done = std::move(done);
    // Parses one answer into the snapshot; false (and the run ended) on any failure.
    const auto take = [this, run](const RestReply &r, const QString &what, auto parse) {
        RestStatus s = r.status;
        if (s.isOk()) {
            JsonError e;
            if (!parse(r.body, &e)) {
                s.code = RestStatus::Code::BadJson;
                s.message = QStringLiteral("%1%2%3: %4")
                                    .arg(m_base.toString(), kApi, what, e.toString());
            }
        }
        if (!s.isOk())
            run->done(s, run->snapshot);
        return s.isOk();
    };
    get(kApi + QStringLiteral("nodes"), [=, this](const RestReply &r) {
        if (!take(r, QStringLiteral("nodes"), [run](const QByteArray &b, JsonError *e) {
                auto v = parseNodes(b, e);
                return v ? (run->snapshot.nodes = *v, true) : false;
            }))
            return;
        get(kApi + QStringLiteral("jobs"), [=, this](const RestReply &r2) {
            if (!take(r2, QStringLiteral("jobs"), [run](const QByteArray &b, JsonError *e) {
                    auto v = parseJobs(b, e);
                    return v ? (run->snapshot.jobs = *v, true) : false;
                }))
                return;
            get(kApi + QStringLiteral("partitions"), [=, this](const RestReply &r3) {
                if (!take(r3,
                          QStringLiteral("partitions"),
                          [run](const QByteArray &b, JsonError *e) {
                              auto v = parsePartitions(b, e);
                              return v ? (run->snapshot.partitions = *v, true) : false;
                          }))
                    return;
                get(kApi + QStringLiteral("reservations"), [=, this](const RestReply &r4) {
                    if (!take(r4,
                              QStringLiteral("reservations"),
                              [run](const QByteArray &b, JsonError *e) {
                                  auto v = parseReservations(b, e);
                                  return v ? (run->snapshot.reservations = *v, true) : false;
                              }))
                        return;
                    // QOS only with accounting: a failure here leaves the read as it is and
                    // says why there are none.
                    get(QStringLiteral("/slurmdb/v0.0.38/qos"), [=, this](const RestReply &r5) {
                        QString problem = r5.status.message;
                        if (r5.status.isOk()) {
                            JsonError e;
                            if (const auto v = parseQos(r5.body, &e))
                                run->snapshot.qos = *v;
                            else
                                problem = QStringLiteral("%1/slurmdb/v0.0.38/qos: %2")
                                                  .arg(m_base.toString(), e.toString());
                        }
                        run->snapshot.qosProblem = problem;
                        run->done(RestStatus{}, run->snapshot);
                    });
                });
            });
        });
    });
}

std::optional<FleetSnapshot> SlurmRestClient::fetchFleetBlocking(RestStatus *status)
{
    QEventLoop loop;
    bool done = false;
    RestStatus st;
    FleetSnapshot snap;
    fetchFleet([&](const RestStatus &s, const FleetSnapshot &f) {
        st = s;
        snap = f;
        done = true;
        loop.quit();
    });
    if (!done)
        loop.exec();
    if (status)
        *status = st;
    if (!st.isOk())
        return std::nullopt;
    return snap;
}

std::optional<qint64> SlurmRestClient::submitBlocking(const QJsonObject &request,
                                                      RestStatus *status)
{
    const RestReply r = postBlocking(kApi + QStringLiteral("job/submit"), request);
    RestStatus s = r.status;
    std::optional<qint64> id;
    if (s.isOk()) {
        JsonError e;
        id = parseSubmitResponse(r.body, &e);
        if (!id) {
            s.code = RestStatus::Code::BadJson;
            s.message = QStringLiteral("%1%2job/submit: %3")
                                .arg(m_base.toString(), kApi, e.toString());
        }
    }
    if (status)
        *status = s;
    return id;
}

} // namespace Zhaoxi::Fleet
