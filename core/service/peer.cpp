// SPDX-License-Identifier: GPL-3.0-or-later
#include "peer.h"

#include <QByteArray>
#include <QList>

#include <cerrno>
#include <cstring>

#include <grp.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

namespace Zhaoxi::Service {

const char *toString(Role role)
{
    return role == Role::Operator ? "operator" : "reader";
}

std::optional<Peer> peerOf(qintptr socketDescriptor, QString *error)
{
    ucred cred{};
    socklen_t len = sizeof cred;
    if (::getsockopt(int(socketDescriptor), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0
        || len != sizeof cred) {
        *error = QStringLiteral("cannot read the peer's credentials: %1")
                         .arg(QString::fromLocal8Bit(std::strerror(errno)));
        return std::nullopt;
    }
    Peer p;
    p.pid = cred.pid;
    p.uid = cred.uid;
    p.gid = cred.gid;
    p.login = loginOf(cred.uid);
    return p;
}

QString loginOf(qint64 uid)
{
    QByteArray buf(16384, Qt::Uninitialized);
    passwd pw{};
    passwd *found = nullptr;
    if (::getpwuid_r(uid_t(uid), &pw, buf.data(), size_t(buf.size()), &found) == 0 && found)
        return QString::fromLocal8Bit(found->pw_name);
    return QStringLiteral("uid:%1").arg(uid);
}

std::optional<qint64> groupId(const QString &name)
{
    if (name.isEmpty())
        return std::nullopt;
    QByteArray buf(65536, Qt::Uninitialized);
    group gr{};
    group *found = nullptr;
    if (::getgrnam_r(name.toLocal8Bit().constData(), &gr, buf.data(), size_t(buf.size()), &found)
                != 0
        || !found)
        return std::nullopt;
    return qint64(found->gr_gid);
}

Role roleOf(const Peer &peer, const QString &groupName)
{
    if (peer.uid == 0)
        return Role::Operator;
    const std::optional<qint64> gid = groupId(groupName);
    if (!gid)
        return Role::Reader;
    if (peer.gid == *gid)
        return Role::Operator;
    // The user's groups as the user database has them (the peer's supplementary groups are not
    // in SO_PEERCRED): its primary group and every group that lists it.
    QByteArray buf(16384, Qt::Uninitialized);
    passwd pw{};
    passwd *found = nullptr;
    if (::getpwuid_r(uid_t(peer.uid), &pw, buf.data(), size_t(buf.size()), &found) != 0 || !found)
        return Role::Reader;
    int count = 64;
    QList<gid_t> groups(count);
    while (::getgrouplist(found->pw_name, found->pw_gid, groups.data(), &count) < 0) {
        if (count <= groups.size())
            return Role::Reader;
        groups.resize(count);
    }
    for (int i = 0; i < count; ++i) {
        if (qint64(groups[i]) == *gid)
            return Role::Operator;
    }
    return Role::Reader;
}

} // namespace Zhaoxi::Service
