// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <optional>

namespace Zhaoxi::Service {

// What a local client may do: read everything (like nvidia-smi), or change things as well.
enum class Role { Reader, Operator };
const char *toString(Role role); // "reader", "operator"

// The process at the other end of a Unix socket, as the kernel says (SO_PEERCRED): not what the
// client claims. Its login is the user database's name for the uid ("uid:N" when it has none).
struct Peer
{
    qint64 pid = -1;
    qint64 uid = -1;
    qint64 gid = -1;
    QString login;
};

// The peer of a connected Unix socket; nullopt with an English *error when the kernel cannot say.
std::optional<Peer> peerOf(qintptr socketDescriptor, QString *error);
// The user database's login for a uid; "uid:N" when the uid has no entry.
QString loginOf(qint64 uid);
// The gid of a group by name; nullopt when there is no such group.
std::optional<qint64> groupId(const QString &name);

// Who may change things: root, and the members of `group` (its member list or their primary
// group). Everyone else who can open the socket may only read. An empty or unknown group gives
// operators' rights to root alone.
Role roleOf(const Peer &peer, const QString &group);

} // namespace Zhaoxi::Service
