// SPDX-License-Identifier: GPL-3.0-or-later
// ProcessRunner's watch: each process's end as a pidfd in one epoll set, the poll that reports
// exits and progress (and sweeps every sweepIntervalMs), and adoption of processes an earlier
// runner started.
#include "processrunner_p.h"

#include <QSocketNotifier>

#include <cerrno>
#include <csignal>

#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

namespace Zhaoxi::Runtime {

using namespace RunnerDetail;

namespace {

// A shim copies what is left in the pipe and writes the exit file right after its job ends; one
// that is still there this long after is considered broken and the job vanished.
constexpr qint64 kShimLingerMs = 10000;

int openPidfd(qint64 pid)
{
#ifdef SYS_pidfd_open
    return int(::syscall(SYS_pidfd_open, pid_t(pid), 0));
#else
    Q_UNUSED(pid)
    return -1;
#endif
}

} // namespace

void ProcessRunner::watchExit(Watched &w)
{
    // All pidfds are in one epoll set, so the event loop watches one descriptor, not one per
    // process (with a hundred processes, polling each pidfd on every wake-up cost more than
    // the polls they replaced).
    if (m_epoll < 0) {
        m_epoll = ::epoll_create1(EPOLL_CLOEXEC);
        if (m_epoll < 0)
            return;
        m_epollWatch = std::make_unique<QSocketNotifier>(m_epoll, QSocketNotifier::Read);
        connect(m_epollWatch.get(), &QSocketNotifier::activated, this, &ProcessRunner::onEnded);
    }
    w.pidfd = openPidfd(w.ownChild && !w.shimGone ? w.info.shimPid : w.info.pid);
    if (w.pidfd < 0)
        return; // a pidfd is close-on-exec from the start
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = w.pidfd;
    if (::epoll_ctl(m_epoll, EPOLL_CTL_ADD, w.pidfd, &ev) != 0) {
        ::close(w.pidfd);
        w.pidfd = -1;
        return;
    }
    m_byPidfd.insert(w.pidfd, &w);
}

void ProcessRunner::onEnded()
{
    epoll_event events[64];
    for (;;) {
        const int n = ::epoll_wait(m_epoll, events, 64, 0);
        if (n <= 0)
            break;
        for (int i = 0; i < n; ++i) {
            const int fd = events[i].data.fd;
            // Stays readable: one notice is enough, the polls take it from here.
            ::epoll_ctl(m_epoll, EPOLL_CTL_DEL, fd, nullptr);
            if (Watched *w = m_byPidfd.value(fd))
                w->ended = true;
        }
        if (n < 64)
            break;
    }
    poll();
}

void ProcessRunner::forget(Watched &w)
{
    if (w.pidfd < 0)
        return;
    m_byPidfd.remove(w.pidfd);
    ::close(w.pidfd); // leaves the epoll set with it
    w.pidfd = -1;
}

bool ProcessRunner::adopt(const ProcessInfo &info, ExitInfo *ifGone)
{
    if (m_watched.count(info.key) || info.pid <= 0)
        return false;
    m_dirs.insert(info.key, info.dir);

    auto w = std::make_unique<Watched>();
    w->info = info;
    // The shim is ours only when this very process (same start time) is our child, as when a
    // runner is re-created within one process; waitpid tells.
    const ProcState shim = readProc(info.shimPid);
    if (sameProcess(shim, info.shimStartTicks)) {
        int st = 0;
        const pid_t r = ::waitpid(pid_t(info.shimPid), &st, WNOHANG);
        w->ownChild = r == 0;
        w->shimGone = r == info.shimPid || (r < 0 && (shim.state == 'Z' || shim.state == 'X'));
    } else {
        w->shimGone = true;
    }

    const auto gone = [&](const std::optional<ExitRecord> &rec) {
        if (ifGone) {
            *ifGone = ExitInfo();
            if (rec) {
                ifGone->code = rec->code;
                ifGone->signal = rec->signal;
            } else {
                ifGone->vanished = true;
            }
            ifGone->lastLines = tailLines(info.dir, kExitLines);
        }
        return false;
    };
    if (const auto rec = exitFor(info))
        return gone(rec);
    const bool jobRuns = identityHolds(info.pid, info.startTicks);
    // A job that has just ended while its shim still runs: the exit file is moments away.
    const bool finishing
            = !jobRuns && !w->shimGone && sameProcess(readProc(info.pid), info.startTicks);
    if (!jobRuns && !finishing)
        return gone(std::nullopt);
    if (!info.progressPath.isEmpty()) {
        w->follower.emplace(info.progressPath);
        // Lines written before the restart were the previous runner's to report.
        w->follower->skipExisting();
    }
    watchExit(*w);
    m_watched[info.key] = std::move(w);
    ensureTimer();
    return true;
}

void ProcessRunner::poll()
{
    // Signals are emitted after the bookkeeping, from copies: a slot may call back into us.
    struct Event
    {
        QString key;
        std::optional<ProgressLine> line;
        QString progressError;
        std::optional<ExitInfo> exit;
    };
    QList<Event> events;
    const qint64 now = m_clock.elapsed();
    const qint64 wallNow = QDateTime::currentMSecsSinceEpoch();

    for (qsizetype i = 0; i < m_unreaped.size();) {
        const pid_t r = ::waitpid(pid_t(m_unreaped.at(i)), nullptr, WNOHANG);
        if (r == 0)
            ++i;
        else
            m_unreaped.removeAt(i);
    }

    const auto followProgress = [&](Watched &w) {
        if (!w.follower)
            return;
        const ProgressFollower::Result res = w.follower->poll(wallNow);
        for (const ProgressLine &l : res.lines) {
            if (l.checkpoint)
                w.hot = false;
            events.append({w.info.key, l, {}, {}});
        }
        for (const QString &e : res.errors)
            events.append({w.info.key, {}, e, {}});
    };

    // Ends come as pidfd notices, so only what may change between sweeps is looked at every
    // poll: a process signalled and not yet acknowledged, one that has ended, a kill deadline,
    // and every process when the kernel gives no pidfd. The rest (progress lines, adopted
    // processes' identity) waits for the next sweep.
    const bool sweep = now >= m_nextSweepMs;
    if (sweep)
        m_nextSweepMs = now + m_options.sweepIntervalMs;
    for (auto it = m_watched.begin(); it != m_watched.end();) {
        Watched &w = *it->second;
        if (!sweep && w.pidfd >= 0 && !w.ended && !w.hot && w.jobGoneMs < 0
            && !(w.killAtMs >= 0 && now >= w.killAtMs)) {
            ++it;
            continue;
        }
        // Our own shim with a pidfd that has not said it ended runs: nothing to ask.
        if (!w.shimGone && !(w.ownChild && w.pidfd >= 0 && !w.ended)) {
            if (w.ownChild) {
                const pid_t r = ::waitpid(pid_t(w.info.shimPid), nullptr, WNOHANG);
                w.shimGone = r == w.info.shimPid || (r < 0 && errno == ECHILD);
            } else {
                w.shimGone = !identityHolds(w.info.shimPid, w.info.shimStartTicks);
            }
        }
        followProgress(w);

        std::optional<ExitInfo> exit;
        if (w.ownChild && !w.shimGone) {
            // Our own shim writes the exit record and then exits: while waitpid says it runs,
            // the job has not ended, and nothing under /proc needs reading (the poll stays cheap
            // with many processes). Only a kill deadline needs the identity checked.
            if (w.killAtMs >= 0 && now >= w.killAtMs) {
                if (identityHolds(w.info.pid, w.info.startTicks))
                    ::kill(-pid_t(w.info.pid), SIGKILL);
                w.killAtMs = -1;
            }
        } else if (const auto rec = exitFor(w.info)) {
            exit.emplace();
            exit->code = rec->code;
            exit->signal = rec->signal;
        } else if (!identityHolds(w.info.pid, w.info.startTicks)) {
            if (w.jobGoneMs < 0)
                w.jobGoneMs = now;
            if (w.shimGone || now - w.jobGoneMs > kShimLingerMs) {
                exit.emplace();
                if (const auto late = exitFor(w.info)) { // written since we looked
                    exit->code = late->code;
                    exit->signal = late->signal;
                } else {
                    exit->vanished = true;
                }
            }
        } else if (w.killAtMs >= 0 && now >= w.killAtMs) {
            ::kill(-pid_t(w.info.pid), SIGKILL);
            w.killAtMs = -1;
        }

        if (!exit) {
            ++it;
            continue;
        }
        followProgress(w); // the last lines it wrote come before its exit
        exit->requested = w.requested;
        exit->lastLines = tailLines(w.info.dir, kExitLines);
        events.append({w.info.key, {}, {}, exit});
        if (w.ownChild && !w.shimGone)
            m_unreaped << w.info.shimPid;
        forget(w);
        it = m_watched.erase(it);
    }
    if (m_watched.empty() && m_unreaped.isEmpty())
        m_timer.stop();

    for (const Event &e : std::as_const(events)) {
        if (e.line)
            Q_EMIT progressed(e.key, *e.line);
        else if (e.exit)
            Q_EMIT exited(e.key, *e.exit);
        else
            Q_EMIT progressError(e.key, e.progressError);
    }
}
} // namespace Zhaoxi::Runtime
