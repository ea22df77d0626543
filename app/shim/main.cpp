// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxi-shim: the small parent every job process runs under (after Nomad's executor), so that a
// job outlives the console or service that started it and its exit status is never lost.
//
//   zhaoxi-shim --dir DIR --log-limit BYTES [--status-fd FD] [--uid U --gid G] [--workdir W]
//               [--rlimit-data BYTES] -- ARGV...
//
// The job's environment is the shim's own. The shim
//  1. starts its own session (it survives the caller's terminal and process group);
//  2. takes DIR/lock (flock, held for its life; it names the shim's pid and then the job's), so
//     one shim at most runs in DIR; forks the job, which starts a session of its own too (pid = pgid: the runner signals the
//     group), changes to W (default DIR), drops to U/G (supplementary groups of U's account,
//     then gid, then uid), applies RLIMIT_DATA and execs ARGV (execvp: a bare name is looked up
//     in the PATH of the environment);
//  3. reports on FD (then closes it) one line: "ok PID START_TICKS" once the exec succeeded
//     (START_TICKS: field 22 of /proc/PID/stat), or "fail STEP ERRNO" when it did not, STEP one
//     of usage, open-log, pipe, fork, setsid, dup2, chdir, setgroups, setgid, setuid, rlimit,
//     exec, lock (DIR/lock is held: another shim runs in DIR). The exec outcome comes through a close-on-exec pipe: end of file means it succeeded;
//  4. copies the job's stdout and stderr into DIR/log, renamed to DIR/log.1 (replacing it) each
//     time it reaches BYTES/2, so at most BYTES are kept and the oldest go first;
//  5. when the job exits, copies what is left in the pipe, writes DIR/exit atomically
//     ({"pid":N,"start_ticks":T,"code":C} or {"pid":N,"start_ticks":T,"signal":S}; exit.tmp,
//     fsync, rename) and exits 0. A job that failed to start gets no exit file (the shim exits
//     127).
//
// SIGHUP, SIGINT and SIGTERM are ignored here: they are for the job, whose process group the
// runner signals directly. Plain C++ and POSIX, no Qt. Between fork and exec the child does only
// async-signal-safe work (everything it needs is prepared before the fork).

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

int g_selfPipe[2] = {-1, -1};

void onSigchld(int)
{
    const int saved = errno;
    const char c = 'c';
    [[maybe_unused]] const ssize_t n = ::write(g_selfPipe[1], &c, 1);
    errno = saved;
}

// Steps of starting the job, as reported to the runner.
enum Step : int {
    StepUsage,
    StepOpenLog,
    StepPipe,
    StepFork,
    StepSetsid,
    StepDup2,
    StepChdir,
    StepSetgroups,
    StepSetgid,
    StepSetuid,
    StepRlimit,
    StepExec,
    StepLock,
};
const char *const kStepNames[] = {"usage",
                                  "open-log",
                                  "pipe",
                                  "fork",
                                  "setsid",
                                  "dup2",
                                  "chdir",
                                  "setgroups",
                                  "setgid",
                                  "setuid",
                                  "rlimit",
                                  "exec",
                                  "lock"};

struct ExecFailure
{
    int step;
    int error;
};

bool writeAll(int fd, const char *data, size_t size)
{
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        size -= size_t(n);
    }
    return true;
}

int g_statusFd = -1;
int g_lockFd = -1;

// DIR/lock names who holds it: "SHIM_PID JOB_PID\n" (JOB_PID 0 until the job is forked), so an
// owner that lost its records can stop what runs there.
void writeLock(pid_t shim, pid_t job)
{
    char line[64];
    const int n = std::snprintf(line, sizeof line, "%d %d\n", int(shim), int(job));
    if (::ftruncate(g_lockFd, 0) == 0) {
        [[maybe_unused]] const ssize_t w = ::pwrite(g_lockFd, line, size_t(n), 0);
    }
}

void report(const char *line)
{
    if (g_statusFd < 0)
        return;
    writeAll(g_statusFd, line, std::strlen(line));
    ::close(g_statusFd);
    g_statusFd = -1;
}

[[noreturn]] void failStartup(int step, int error, const char *what)
{
    std::fprintf(stderr, "zhaoxi-shim: %s: %s\n", what, std::strerror(error));
    char line[64];
    std::snprintf(line, sizeof line, "fail %s %d\n", kStepNames[step], error);
    report(line);
    std::exit(127);
}

bool parseNumber(const char *text, long long *out)
{
    errno = 0;
    char *end = nullptr;
    const long long v = std::strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < 0)
        return false;
    *out = v;
    return true;
}

// Field 22 of /proc/<pid>/stat. The comm field (2) may hold spaces and parentheses, so the
// fields are counted from the last ')'.
unsigned long long startTicks(pid_t pid)
{
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", int(pid));
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char buf[1024];
    ssize_t n;
    do {
        n = ::read(fd, buf, sizeof buf - 1);
    } while (n < 0 && errno == EINTR);
    ::close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    const char *p = std::strrchr(buf, ')');
    if (!p)
        return 0;
    // after ')' come fields 3, 4, ...: field 22 is the 20th of them
    int field = 2;
    for (++p; *p; ++p) {
        if (*p != ' ')
            continue;
        ++field;
        if (field == 22)
            return std::strtoull(p + 1, nullptr, 10);
    }
    return 0;
}

// The bounded log: DIR/log grows to half the limit, then becomes DIR/log.1.
class Log
{
public:
    Log(std::string dir, long long limit)
        : m_dir(std::move(dir))
        , m_half(limit / 2 > 0 ? limit / 2 : 1)
    {}

    bool open()
    {
        const std::string path = m_dir + "/log";
        // O_NOFOLLOW: the directory may belong to the job's account; never write through a link.
        m_fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0640);
        if (m_fd < 0)
            return false;
        struct stat st = {};
        m_size = ::fstat(m_fd, &st) == 0 ? st.st_size : 0;
        return true;
    }

    void write(const char *data, size_t size)
    {
        while (size > 0) {
            if (m_size >= m_half)
                rotate();
            const size_t room = size_t(m_half - m_size);
            const size_t chunk = size < room ? size : room;
            if (m_fd >= 0 && !writeAll(m_fd, data, chunk)) {
                // Disk full or similar: keep draining the job's output so it never blocks on a
                // full pipe; what cannot be written is lost.
            }
            m_size += (long long)chunk;
            data += chunk;
            size -= chunk;
        }
    }

private:
    void rotate()
    {
        const std::string path = m_dir + "/log";
        const std::string old = m_dir + "/log.1";
        if (m_fd >= 0)
            ::close(m_fd);
        ::rename(path.c_str(), old.c_str());
        open();
        m_size = 0; // even if reopening failed: keep counting so a later rotate retries
    }

    std::string m_dir;
    long long m_half;
    int m_fd = -1;
    long long m_size = 0;
};

void writeExitRecord(const std::string &dir, pid_t pid, unsigned long long ticks, int status)
{
    char record[160];
    if (WIFSIGNALED(status))
        std::snprintf(record,
                      sizeof record,
                      "{\"pid\":%d,\"start_ticks\":%llu,\"signal\":%d}\n",
                      int(pid),
                      ticks,
                      WTERMSIG(status));
    else
        std::snprintf(record,
                      sizeof record,
                      "{\"pid\":%d,\"start_ticks\":%llu,\"code\":%d}\n",
                      int(pid),
                      ticks,
                      WEXITSTATUS(status));
    const std::string tmp = dir + "/exit.tmp";
    const std::string final = dir + "/exit";
    ::unlink(tmp.c_str());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0640);
    if (fd < 0) {
        std::fprintf(
                stderr, "zhaoxi-shim: cannot write %s: %s\n", tmp.c_str(), std::strerror(errno));
        return;
    }
    const bool ok = writeAll(fd, record, std::strlen(record)) && ::fsync(fd) == 0;
    ::close(fd);
    if (!ok || ::rename(tmp.c_str(), final.c_str()) != 0) {
        std::fprintf(
                stderr, "zhaoxi-shim: cannot write %s: %s\n", final.c_str(), std::strerror(errno));
        return;
    }
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}

// Everything but 0, 1, 2 and keep: the shim may have been started by a process that leaked
// descriptors, and the job must not hold them.
void closeOtherFds(int keep)
{
    std::vector<int> fds;
    if (DIR *d = ::opendir("/proc/self/fd")) {
        while (const dirent *e = ::readdir(d)) {
            long long fd;
            if (parseNumber(e->d_name, &fd) && fd > 2 && fd != keep && fd != ::dirfd(d))
                fds.push_back(int(fd));
        }
        ::closedir(d);
    }
    for (const int fd : fds)
        ::close(fd);
}

[[noreturn]] void childFail(int pipeFd, int step)
{
    const ExecFailure failure{step, errno};
    writeAll(pipeFd, reinterpret_cast<const char *>(&failure), sizeof failure);
    ::_exit(127);
}

} // namespace

int main(int argc, char **argv)
{
    std::string dir;
    std::string workdir;
    long long logLimit = -1;
    long long uid = -1;
    long long gid = -1;
    long long rlimitData = -1;
    int jobArg = -1;

    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--") {
            jobArg = i + 1;
            break;
        }
        if (i + 1 >= argc) {
            std::fprintf(stderr, "zhaoxi-shim: %s needs a value\n", a.c_str());
            return 127;
        }
        const char *v = argv[++i];
        long long n = 0;
        bool ok = true;
        if (a == "--dir")
            dir = v;
        else if (a == "--workdir")
            workdir = v;
        else if (a == "--log-limit")
            ok = parseNumber(v, &logLimit) && logLimit > 0;
        else if (a == "--uid")
            ok = parseNumber(v, &uid) && uid <= INT_MAX;
        else if (a == "--gid")
            ok = parseNumber(v, &gid) && gid <= INT_MAX;
        else if (a == "--rlimit-data")
            ok = parseNumber(v, &rlimitData) && rlimitData > 0;
        else if (a == "--status-fd")
            ok = parseNumber(v, &n) && n > 2 && n <= INT_MAX && (g_statusFd = int(n), true);
        else
            ok = false;
        if (!ok) {
            std::fprintf(stderr, "zhaoxi-shim: bad option %s %s\n", a.c_str(), v);
            failStartup(StepUsage, EINVAL, "usage");
        }
    }
    if (g_statusFd >= 0)
        ::fcntl(g_statusFd, F_SETFD, FD_CLOEXEC);
    if (dir.empty() || logLimit <= 0 || jobArg < 0 || jobArg >= argc || ((uid < 0) != (gid < 0)))
        failStartup(StepUsage,
                    EINVAL,
                    "usage: zhaoxi-shim --dir DIR --log-limit BYTES [--status-fd FD] [--uid U "
                    "--gid G] [--workdir W] [--rlimit-data BYTES] -- ARGV...");
    if (workdir.empty())
        workdir = dir;
    closeOtherFds(g_statusFd);

    // Its own session when started by hand; under the runner (which starts one for it, so a launch
    // it gives up can end the whole group) or systemd-run it already leads one and this fails: fine.
    ::setsid();
    struct sigaction ign = {};
    ign.sa_handler = SIG_IGN;
    ::sigaction(SIGHUP, &ign, nullptr);
    ::sigaction(SIGINT, &ign, nullptr);
    ::sigaction(SIGTERM, &ign, nullptr);
    ::sigaction(SIGPIPE, &ign, nullptr);

    Log log(dir, logLimit);
    if (!log.open())
        failStartup(StepOpenLog, errno, "cannot open the log");
    // One shim per directory at a time, whoever started it: the lock is held for the shim's life
    // (close-on-exec: the job does not keep it), so an owner restarted without its records finds
    // what still runs here instead of starting the same rank twice.
    g_lockFd = ::open((dir + "/lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (g_lockFd < 0)
        failStartup(StepLock, errno, "cannot open the lock");
    if (::flock(g_lockFd, LOCK_EX | LOCK_NB) != 0)
        failStartup(StepLock, errno, "another process runs in this directory");
    writeLock(::getpid(), 0);

    // Supplementary groups are looked up now: getgrouplist is not safe after fork.
    std::vector<gid_t> groups;
    if (uid >= 0) {
        const passwd *pw = ::getpwuid(uid_t(uid));
        if (pw) {
            int count = 64;
            groups.resize(size_t(count));
            if (::getgrouplist(pw->pw_name, gid_t(gid), groups.data(), &count) < 0) {
                groups.resize(size_t(count));
                ::getgrouplist(pw->pw_name, gid_t(gid), groups.data(), &count);
            }
            groups.resize(size_t(count));
        }
        if (groups.empty())
            groups.push_back(gid_t(gid));
    }

    int out[2];
    int execPipe[2];
    if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(execPipe, O_CLOEXEC) != 0
        || ::pipe2(g_selfPipe, O_CLOEXEC | O_NONBLOCK) != 0)
        failStartup(StepPipe, errno, "pipe");
    const int devNull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);

    struct sigaction chld = {};
    chld.sa_handler = onSigchld;
    chld.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigemptyset(&chld.sa_mask);
    ::sigaction(SIGCHLD, &chld, nullptr);

    char **jobArgv = argv + jobArg;
    const pid_t pid = ::fork();
    if (pid < 0)
        failStartup(StepFork, errno, "fork");
    if (pid == 0) {
        ::close(execPipe[0]);
        struct sigaction dfl = {};
        dfl.sa_handler = SIG_DFL;
        for (const int sig : {SIGHUP, SIGINT, SIGTERM, SIGPIPE, SIGCHLD})
            ::sigaction(sig, &dfl, nullptr);
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        if (::setsid() < 0)
            childFail(execPipe[1], StepSetsid);
        if ((devNull >= 0 && ::dup2(devNull, 0) < 0) || ::dup2(out[1], 1) < 0
            || ::dup2(out[1], 2) < 0)
            childFail(execPipe[1], StepDup2);
        if (::chdir(workdir.c_str()) != 0)
            childFail(execPipe[1], StepChdir);
        if (uid >= 0) {
            if (::setgroups(groups.size(), groups.data()) != 0)
                childFail(execPipe[1], StepSetgroups);
            if (::setgid(gid_t(gid)) != 0)
                childFail(execPipe[1], StepSetgid);
            if (::setuid(uid_t(uid)) != 0)
                childFail(execPipe[1], StepSetuid);
            // Dropping must be irreversible: a process that could become root again is refused.
            if (uid != 0 && ::setuid(0) == 0) {
                errno = EPERM;
                childFail(execPipe[1], StepSetuid);
            }
        }
        if (rlimitData > 0) {
            const rlimit lim{rlim_t(rlimitData), rlim_t(rlimitData)};
            if (::setrlimit(RLIMIT_DATA, &lim) != 0)
                childFail(execPipe[1], StepRlimit);
        }
        ::execvp(jobArgv[0], jobArgv);
        childFail(execPipe[1], StepExec);
    }

    ::close(execPipe[1]);
    ::close(out[1]);
    if (devNull >= 0)
        ::close(devNull);
    writeLock(::getpid(), pid);
    ExecFailure failure{};
    ssize_t got;
    do {
        got = ::read(execPipe[0], &failure, sizeof failure);
    } while (got < 0 && errno == EINTR);
    ::close(execPipe[0]);
    if (got == ssize_t(sizeof failure)) {
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        char line[256];
        std::snprintf(line,
                      sizeof line,
                      "zhaoxi-shim: cannot start %s: %s: %s\n",
                      jobArgv[0],
                      kStepNames[failure.step],
                      std::strerror(failure.error));
        log.write(line, std::strlen(line));
        std::snprintf(line, sizeof line, "fail %s %d\n", kStepNames[failure.step], failure.error);
        report(line);
        return 127;
    }
    // The child is ours until we reap it, so /proc/<pid> is there even if it already exited.
    const unsigned long long ticks = startTicks(pid);
    {
        char line[64];
        std::snprintf(line, sizeof line, "ok %d %llu\n", int(pid), ticks);
        report(line);
    }

    char buf[65536];
    bool outOpen = true;
    for (;;) {
        pollfd fds[2] = {{g_selfPipe[0], POLLIN, 0}, {out[0], POLLIN, 0}};
        const int n = ::poll(fds, outOpen ? 2 : 1, -1);
        if (n < 0 && errno != EINTR)
            break;
        if (outOpen && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
            const ssize_t r = ::read(out[0], buf, sizeof buf);
            if (r > 0)
                log.write(buf, size_t(r));
            else if (r == 0 || (errno != EINTR && errno != EAGAIN))
                outOpen = false; // every writer closed; the job may still run
        }
        if (fds[0].revents & POLLIN) {
            char drain[64];
            while (::read(g_selfPipe[0], drain, sizeof drain) > 0) {
            }
        }
        int status = 0;
        const pid_t w = ::waitpid(pid, &status, WNOHANG);
        if (w == pid) {
            // What the job wrote before it exited is in the pipe now. Children it left behind
            // may still hold the pipe open, so read only what is there, not up to end of file.
            ::fcntl(out[0], F_SETFL, O_NONBLOCK);
            while (outOpen) {
                const ssize_t r = ::read(out[0], buf, sizeof buf);
                if (r > 0)
                    log.write(buf, size_t(r));
                else if (r < 0 && errno == EINTR)
                    continue;
                else
                    break;
            }
            writeExitRecord(dir, pid, ticks, status);
            return 0;
        }
        if (w < 0 && errno == ECHILD)
            break;
    }
    std::fprintf(stderr, "zhaoxi-shim: lost track of job %d\n", int(pid));
    return 1;
}
