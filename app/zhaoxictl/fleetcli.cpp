// SPDX-License-Identifier: GPL-3.0-or-later
#include "fleetcli.h"

#include "core/catalogue/catalogue.h"

#include <QDateTime>

#include <pwd.h>
#include <unistd.h>

namespace Zhaoxi::Cli {

QString currentUserName()
{
    QString name = qEnvironmentVariable("USER", qEnvironmentVariable("LOGNAME"));
    if (name.isEmpty()) {
        if (const passwd *pw = ::getpwuid(::geteuid()))
            name = QString::fromLocal8Bit(pw->pw_name);
    }
    return name;
}

bool readFleetConnection(Args &args, const char *command, Io &io, FleetConnection *out)
{
    const std::optional<QString> rest = args.value(QStringLiteral("rest"));
    const std::optional<QString> token = args.value(QStringLiteral("token-file"));
    const std::optional<QString> user = args.value(QStringLiteral("user"));
    const std::optional<QString> timeout = args.value(QStringLiteral("timeout"));
    if (!args.missingValueFor().isEmpty()) {
        io.err << "zhaoxictl fleet " << command << ": option " << args.missingValueFor()
               << " needs a value\n";
        return false;
    }
    const QStringList unknown = args.unknownOptions();
    if (!unknown.isEmpty()) {
        io.err << "zhaoxictl fleet " << command << ": unknown option "
               << unknown.join(QStringLiteral(", ")) << "\n";
        return false;
    }
    if (!rest || !token) {
        io.err << "zhaoxictl fleet " << command
               << ": --rest URL and --token-file FILE are required (slurmrestd with JWT, e.g. "
                  "the REST_URL and TOKEN_FILE scripts/slurm-local up prints)\n";
        return false;
    }
    out->url = QUrl(*rest, QUrl::StrictMode);
    if (!out->url.isValid()
        || (out->url.scheme() != QLatin1String("http")
            && out->url.scheme() != QLatin1String("https"))
        || out->url.host().isEmpty()) {
        io.err << "zhaoxictl fleet " << command << ": --rest " << *rest
               << " is not an http:// or https:// URL\n";
        return false;
    }
    if (out->url.path().endsWith(QLatin1Char('/')))
        out->url.setPath(out->url.path().chopped(1));
    out->tokenFile = *token;
    out->user = user.value_or(currentUserName());
    if (out->user.isEmpty()) {
        io.err << "zhaoxictl fleet " << command
               << ": no user name: give --user NAME (the token's user)\n";
        return false;
    }
    if (timeout) {
        bool ok = false;
        out->timeoutMs = timeout->toInt(&ok);
        if (!ok || out->timeoutMs < 100 || out->timeoutMs > 600000) {
            io.err << "zhaoxictl fleet " << command
                   << ": --timeout must be milliseconds in 100..600000, got " << *timeout << "\n";
            return false;
        }
    }
    return true;
}

std::optional<Fleet::FleetState> readFleet(Fleet::SlurmRestClient &client,
                                           const char *command,
                                           Io &io)
{
    Fleet::RestStatus status;
    const std::optional<Fleet::FleetSnapshot> snapshot = client.fetchFleetBlocking(&status);
    if (!snapshot) {
        io.err << "zhaoxictl fleet " << command << ": " << status.message << "\n";
        return std::nullopt;
    }
    return Fleet::buildFleetState(
            *snapshot, Catalogue::Catalogue::builtIn(), QDateTime::currentMSecsSinceEpoch());
}

std::unique_ptr<Fleet::SlurmRestClient> fleetClient(const FleetConnection &conn)
{
    auto client = std::make_unique<Fleet::SlurmRestClient>(conn.url, conn.user, conn.tokenFile);
    client->setTimeoutMs(conn.timeoutMs);
    return client;
}

} // namespace Zhaoxi::Cli
