// SPDX-License-Identifier: GPL-3.0-or-later
// The server's per-connection state, shared by server.cpp (transport, reads) and
// server_changes.cpp (changes). Not part of the API.
#pragma once

#include "server.h"

#include <QByteArray>
#include <QHash>
#include <QList>

namespace Zhaoxi::Service {

struct Server::Client
{
    QLocalSocket *socket = nullptr;
    Peer peer;
    Role role = Role::Reader;
    QString name;            // what it said in "hello"
    QByteArray buffer;       // the unfinished line
    bool discarding = false; // inside a line over the limit: dropped up to its end
    bool snapshots = false;
    bool events = false;
    bool withState = false;
    // "console": pushes the whole picture (consoleJson) instead, with what happened between
    // pushes gathered here (events in order; each job's latest trace).
    bool console = false;
    QList<Storage::Event> consoleEvents;
    QHash<int, Sched::DecisionTrace> consoleTraces;
    int intervalMs = 100;
    qint64 lastPushMs = 0;
};

} // namespace Zhaoxi::Service
