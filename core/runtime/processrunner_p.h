// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internals of ProcessRunner shared by its parts, not for other units:
// - processrunner.cpp: the ProcessInfo record, signals, stops and queries;
// - processrunner_spawn.cpp: launching a job under its shim and the shim's start protocol;
// - processrunner_watch.cpp: watching (pidfds in one epoll set, the poll and its sweep) and
//   adopting processes started by an earlier runner.
// Everything here runs on the runner's thread, as the runner does.

#include "processrunner.h"

#include <optional>

namespace Zhaoxi::Runtime {

namespace RunnerDetail {

constexpr int kExitLines = 20;

QString errnoText(int error);
bool validKey(const QString &key);

struct ProcState
{
    bool exists = false;
    char state = '?';
    qint64 parent = 0;  // field 4
    qint64 session = 0; // field 6
    quint64 startTicks = 0;
};

// /proc/<pid>/stat: state (field 3) and start time (field 22), counted after the last ')' since
// the command name may contain anything.
ProcState readProc(qint64 pid);
bool sameProcess(const ProcState &s, quint64 startTicks);
// Running and still the same process. A zombie has ended (only its parent has not reaped it).
bool identityHolds(qint64 pid, quint64 startTicks);

struct ExitRecord
{
    qint64 pid = 0;
    quint64 startTicks = 0; // 0: not recorded
    int code = -1;
    int signal = 0;
};

// The exit file belongs to this process (a stale one from an earlier launch in the same
// directory is removed at launch, but an adopted record may be older than the directory).
std::optional<ExitRecord> exitFor(const ProcessInfo &info);

QByteArray readTail(const QString &path, qint64 maxBytes, bool *truncated);
QStringList tailLines(const QString &dir, int n);

} // namespace RunnerDetail

struct ProcessRunner::Watched
{
    ProcessInfo info;
    bool ownChild = false; // the shim is our child: reap it
    bool shimGone = false;
    bool requested = false;
    qint64 killAtMs = -1;  // m_clock time of the SIGKILL; -1: none
    qint64 jobGoneMs = -1; // m_clock time the job was first seen gone while the shim lived
    std::optional<ProgressFollower> follower;
    // The process whose end is an event (the own shim, else the job): a pidfd in the runner's
    // epoll set, readable once it has ended. -1 when the kernel has none (before Linux 5.3):
    // then every poll looks.
    int pidfd = -1;
    bool ended = false; // the pidfd said so: looked at on every poll from now
    bool hot = false;   // signalled, no checkpoint line since: an acknowledgement is awaited
};

} // namespace Zhaoxi::Runtime
