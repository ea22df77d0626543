// SPDX-License-Identifier: GPL-3.0-or-later
#include "processrunner.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSocketNotifier>
#include <QStandardPaths>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

namespace Zhaoxi::Runtime {

namespace {

constexpr int kExitLines = 20;
constexpr qint64 kMinLogLimit = 4096;
// A shim copies what is left in the pipe and writes the exit file right after its job ends; one
// that is still there this long after is considered broken and the job vanished.
constexpr qint64 kShimLingerMs = 10000;

QString errnoText(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

bool validKey(const QString &key)
{
    static const QRegularExpression re(QStringLiteral("^[A-Za-z0-9._-]+$"));
    return re.match(key).hasMatch() && key != QLatin1String(".") && key != QLatin1String("..");
}

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
ProcState readProc(qint64 pid)
{
    ProcState out;
    if (pid <= 0)
        return out;
    const QByteArray path = "/proc/" + QByteArray::number(pid) + "/stat";
    const int fd = ::open(path.constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return out;
    char buf[1024];
    ssize_t n;
    do {
        n = ::read(fd, buf, sizeof buf - 1);
    } while (n < 0 && errno == EINTR);
    ::close(fd);
    if (n <= 0)
        return out;
    const QByteArray text(buf, int(n));
    const int close = text.lastIndexOf(')');
    if (close < 0)
        return out;
    const QList<QByteArray> fields = text.mid(close + 2).split(' '); // fields[0] is field 3
    if (fields.size() < 20)
        return out;
    out.exists = true;
    out.state = fields[0].isEmpty() ? '?' : fields[0].at(0);
    out.parent = fields[1].toLongLong();
    out.session = fields[3].toLongLong();
    out.startTicks = fields[19].toULongLong();
    return out;
}

bool sameProcess(const ProcState &s, quint64 startTicks)
{
    return s.exists && s.startTicks == startTicks;
}

// Running and still the same process. A zombie has ended (only its parent has not reaped it).
bool identityHolds(qint64 pid, quint64 startTicks)
{
    const ProcState s = readProc(pid);
    return sameProcess(s, startTicks) && s.state != 'Z' && s.state != 'X';
}

struct ExitRecord
{
    qint64 pid = 0;
    quint64 startTicks = 0; // 0: not recorded
    int code = -1;
    int signal = 0;
};

std::optional<ExitRecord> readExitFile(const QString &dir)
{
    QFile f(dir + QLatin1String("/exit"));
    if (!f.open(QIODevice::ReadOnly))
        return std::nullopt;
    const QJsonDocument doc = QJsonDocument::fromJson(f.read(4096));
    if (!doc.isObject())
        return std::nullopt;
    const QJsonObject o = doc.object();
    ExitRecord r;
    r.pid = o.value(QLatin1String("pid")).toInteger();
    r.startTicks = o.value(QLatin1String("start_ticks")).toInteger();
    if (o.contains(QLatin1String("signal")))
        r.signal = o.value(QLatin1String("signal")).toInt();
    else if (o.contains(QLatin1String("code")))
        r.code = o.value(QLatin1String("code")).toInt();
    else
        return std::nullopt;
    return r;
}

// The exit file belongs to this process (a stale one from an earlier launch in the same
// directory is removed at launch, but an adopted record may be older than the directory).
std::optional<ExitRecord> exitFor(const ProcessInfo &info)
{
    auto r = readExitFile(info.dir);
    if (!r || r->pid != info.pid || (r->startTicks != 0 && r->startTicks != info.startTicks))
        return std::nullopt;
    return r;
}

QByteArray readTail(const QString &path, qint64 maxBytes, bool *truncated)
{
    *truncated = false;
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return {};
    struct stat st = {};
    QByteArray data;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        const qint64 from = qMax<qint64>(0, qint64(st.st_size) - maxBytes);
        *truncated = from > 0;
        data.resize(qint64(st.st_size) - from);
        qint64 got = 0;
        while (got < data.size()) {
            const ssize_t n = ::pread(fd, data.data() + got, size_t(data.size() - got), from + got);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            got += n;
        }
        data.truncate(got);
    }
    ::close(fd);
    return data;
}

QStringList tailLines(const QString &dir, int n)
{
    if (n <= 0 || dir.isEmpty())
        return {};
    // Enough for n ordinary lines; a longer line is cut at its start.
    const qint64 budget = qMax<qint64>(64 * 1024, qint64(n) * 1024);
    bool logCut = false;
    bool oldCut = false;
    QByteArray data = readTail(dir + QLatin1String("/log"), budget, &logCut);
    bool cut = logCut;
    if (!logCut && data.count('\n') < n) {
        // The rotation splits at a byte count, so log.1's last line may continue in log.
        data.prepend(readTail(dir + QLatin1String("/log.1"), budget, &oldCut));
        cut = oldCut;
    }
    QList<QByteArray> lines = data.split('\n');
    if (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    if (cut && !lines.isEmpty())
        lines.removeFirst();
    QStringList out;
    for (qsizetype i = qMax<qsizetype>(0, lines.size() - n); i < lines.size(); ++i) {
        QByteArray line = lines.at(i);
        if (line.endsWith('\r'))
            line.chop(1);
        out << QString::fromUtf8(line);
    }
    return out;
}

struct Account
{
    QString name;
    QString home;
    uid_t uid = 0;
    gid_t gid = 0;
};

std::optional<Account> lookupAccount(const QString &name, QString *error)
{
    std::vector<char> buf(16384);
    passwd pw = {};
    passwd *result = nullptr;
    int rc;
    if (name.isEmpty())
        rc = ::getpwuid_r(::geteuid(), &pw, buf.data(), buf.size(), &result);
    else
        rc = ::getpwnam_r(name.toLocal8Bit().constData(), &pw, buf.data(), buf.size(), &result);
    if (!result) {
        if (name.isEmpty()) {
            // The runner's own uid need not have an entry (e.g. in a container).
            Account a;
            a.uid = ::geteuid();
            a.gid = ::getegid();
            a.name = QString::fromLocal8Bit(qgetenv("USER"));
            a.home = QString::fromLocal8Bit(qgetenv("HOME"));
            return a;
        }
        *error = rc != 0 ? QStringLiteral("cannot look up user \"%1\": %2").arg(name, errnoText(rc))
                         : QStringLiteral("no such user \"%1\"").arg(name);
        return std::nullopt;
    }
    Account a;
    a.name = QString::fromLocal8Bit(pw.pw_name);
    a.home = QString::fromLocal8Bit(pw.pw_dir);
    a.uid = pw.pw_uid;
    a.gid = pw.pw_gid;
    return a;
}

bool fail(QString *error, const QString &message)
{
    if (error)
        *error = message;
    return false;
}

// The message for a shim's "fail STEP ERRNO".
QString startFailure(const LaunchRequest &r, const QString &step, int error)
{
    const QString what = QStringLiteral("cannot start \"%1\"").arg(r.argv.value(0));
    if (step == QLatin1String("exec")) {
        if (error == ENOENT)
            return what
                   + (r.argv.value(0).contains(QLatin1Char('/'))
                              ? QStringLiteral(": no such file")
                              : QStringLiteral(": no such file (not found in PATH)"));
        if (error == EACCES)
            return what + QStringLiteral(": not executable / permission denied");
        if (error == ENOEXEC)
            return what + QStringLiteral(": not an executable format");
        return what + QStringLiteral(": exec failed: ") + errnoText(error);
    }
    if (step == QLatin1String("chdir"))
        return what
               + QStringLiteral(": cannot change to directory \"%1\": %2")
                         .arg(r.workdir.isEmpty() ? r.dir : r.workdir, errnoText(error));
    if (step == QLatin1String("setgroups") || step == QLatin1String("setgid")
        || step == QLatin1String("setuid"))
        return what
               + QStringLiteral(" as user \"%1\": %2 failed: %3")
                         .arg(r.user, step, errnoText(error));
    if (step == QLatin1String("rlimit"))
        return what + QStringLiteral(": cannot set the memory limit: ") + errnoText(error);
    if (step == QLatin1String("exec-shim"))
        return QStringLiteral("cannot run the shim: ") + errnoText(error);
    if (step == QLatin1String("open-log"))
        return what
               + QStringLiteral(": cannot open its log in \"%1\": %2").arg(r.dir, errnoText(error));
    return what + QStringLiteral(": %1 failed: %2").arg(step, errnoText(error));
}

// Creates dir 0700 (parents with the default mode) unless it exists. Returns whether it created
// the last component, or nullopt with *error.
std::optional<bool> makeDir(const QString &dir, QString *error)
{
    const QByteArray native = QFile::encodeName(dir);
    struct stat st = {};
    if (::stat(native.constData(), &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            *error = QStringLiteral("\"%1\" exists and is not a directory").arg(dir);
            return std::nullopt;
        }
        return false;
    }
    const QString parent = QFileInfo(dir).absolutePath();
    if (!QDir().mkpath(parent)) {
        *error = QStringLiteral("cannot create directory \"%1\"").arg(parent);
        return std::nullopt;
    }
    if (::mkdir(native.constData(), 0700) != 0 && errno != EEXIST) {
        *error = QStringLiteral("cannot create directory \"%1\": %2").arg(dir, errnoText(errno));
        return std::nullopt;
    }
    return true;
}

bool writeInfoFile(const ProcessInfo &info)
{
    QSaveFile f(info.dir + QLatin1String("/info"));
    if (!f.open(QIODevice::WriteOnly))
        return false;
    f.write(QJsonDocument(info.toJson()).toJson(QJsonDocument::Compact) + '\n');
    return f.commit();
}

// The processes whose parent is `pid` (/proc/<pid>/task/<tid>/children needs a kernel option
// that not every kernel has: every /proc/<n>/stat is read instead; this is a rare path).
QList<pid_t> childrenOf(pid_t pid)
{
    QList<pid_t> out;
    DIR *proc = ::opendir("/proc");
    if (!proc)
        return out;
    while (const dirent *e = ::readdir(proc)) {
        char *end = nullptr;
        const long n = std::strtol(e->d_name, &end, 10);
        if (n <= 0 || *end != '\0' || n == pid)
            continue;
        if (readProc(n).parent == pid)
            out << pid_t(n);
    }
    ::closedir(proc);
    return out;
}

// Ends everything a launch that is given up may have left running, and reaps our shim. `shim`
// leads its own process group (the runner's child starts a session before it execs), which
// holds the shim, or a wrapper that has not exec'd it yet, and whatever they started without a
// session of their own; the job started by the shim leads a group of its own, under the shim.
// The shim's group is stopped first so that nothing in it can fork while its children are looked
// up (a fork racing the stop either fails or yields a child that is stopped and found too); then
// each child's group and the shim's own get SIGKILL, stopped or not.
void killLaunch(pid_t shim)
{
    ::kill(-shim, SIGSTOP);
    for (const pid_t child : childrenOf(shim)) {
        ::kill(-child, SIGKILL); // the job's group: it leads one once it has started its session
        ::kill(child, SIGKILL);  // a child that had not started its session yet
    }
    ::kill(-shim, SIGKILL);
    ::kill(shim, SIGKILL);
    while (::waitpid(shim, nullptr, 0) < 0 && errno == EINTR) {
    }
}

// Waits for our shim that reported a failure (it exits right after: its job never ran), and ends
// it and anything it left when it does not.
void reapFailedShim(pid_t pid)
{
    for (int i = 0; i < 500; ++i) {
        const pid_t r = ::waitpid(pid, nullptr, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR))
            return;
        ::usleep(10000);
    }
    killLaunch(pid);
}

} // namespace

// ---- ProcessInfo ----

QJsonObject ProcessInfo::toJson() const
{
    QJsonObject o;
    o.insert(QLatin1String("key"), key);
    o.insert(QLatin1String("dir"), dir);
    o.insert(QLatin1String("argv"), QJsonArray::fromStringList(argv));
    o.insert(QLatin1String("progress_path"), progressPath);
    o.insert(QLatin1String("shim_pid"), shimPid);
    o.insert(QLatin1String("shim_start_ticks"), QString::number(shimStartTicks));
    o.insert(QLatin1String("pid"), pid);
    o.insert(QLatin1String("start_ticks"), QString::number(startTicks));
    o.insert(QLatin1String("started_ms"), startedMs);
    o.insert(QLatin1String("limits"), limits);
    return o;
}

std::optional<ProcessInfo> ProcessInfo::fromJson(const QJsonObject &o, QString *error)
{
    ProcessInfo info;
    const auto str = [&](const char *name, QString *out) {
        const QJsonValue v = o.value(QLatin1String(name));
        if (!v.isString())
            return fail(error,
                        QStringLiteral("field \"%1\" must be a string").arg(QLatin1String(name)));
        *out = v.toString();
        return true;
    };
    const auto integer = [&](const char *name, qint64 *out, qint64 min) {
        const QJsonValue v = o.value(QLatin1String(name));
        const double d = v.toDouble(-1);
        if (!v.isDouble() || d < double(min) || d > 9007199254740992.0 || qint64(d) != d)
            return fail(error,
                        QStringLiteral("field \"%1\" must be an integer >= %2")
                                .arg(QLatin1String(name))
                                .arg(min));
        *out = qint64(d);
        return true;
    };
    const auto ticks = [&](const char *name, quint64 *out) {
        QString text;
        if (!str(name, &text))
            return false;
        bool ok = false;
        *out = text.toULongLong(&ok);
        if (!ok)
            return fail(error,
                        QStringLiteral("field \"%1\" must be a decimal number")
                                .arg(QLatin1String(name)));
        return true;
    };
    if (!str("key", &info.key) || !str("dir", &info.dir) || !str("limits", &info.limits))
        return std::nullopt;
    if (!validKey(info.key)) {
        fail(error, QStringLiteral("field \"key\": \"%1\" is not a valid key").arg(info.key));
        return std::nullopt;
    }
    if (info.dir.isEmpty() || !QDir::isAbsolutePath(info.dir)) {
        fail(error, QStringLiteral("field \"dir\" must be an absolute path"));
        return std::nullopt;
    }
    if (info.limits != QLatin1String("systemd-scope") && info.limits != QLatin1String("rlimit")
        && info.limits != QLatin1String("none")) {
        fail(error,
             QStringLiteral(
                     "field \"limits\" must be \"systemd-scope\", \"rlimit\" or \"none\", not "
                     "\"%1\"")
                     .arg(info.limits));
        return std::nullopt;
    }
    const QJsonValue argv = o.value(QLatin1String("argv"));
    if (!argv.isArray()) {
        fail(error, QStringLiteral("field \"argv\" must be an array of strings"));
        return std::nullopt;
    }
    for (const QJsonValue &a : argv.toArray()) {
        if (!a.isString()) {
            fail(error, QStringLiteral("field \"argv\" must be an array of strings"));
            return std::nullopt;
        }
        info.argv << a.toString();
    }
    if (o.contains(QLatin1String("progress_path")) && !str("progress_path", &info.progressPath))
        return std::nullopt;
    if (!integer("shim_pid", &info.shimPid, 1) || !integer("pid", &info.pid, 1)
        || !integer("started_ms", &info.startedMs, 0)
        || !ticks("shim_start_ticks", &info.shimStartTicks)
        || !ticks("start_ticks", &info.startTicks))
        return std::nullopt;
    return info;
}

// ---- ProcessRunner ----

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

namespace {

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

ProcessRunner::ProcessRunner(const Options &options, QObject *parent)
    : QObject(parent)
    , m_options(options)
{
    qRegisterMetaType<Zhaoxi::Runtime::ExitInfo>();
    qRegisterMetaType<Zhaoxi::Runtime::ProgressLine>();
    qRegisterMetaType<Zhaoxi::Runtime::ProcessInfo>();
    m_clock.start();
    m_timer.setInterval(qMax(1, m_options.pollIntervalMs));
    m_options.sweepIntervalMs = qMax(m_options.pollIntervalMs, m_options.sweepIntervalMs);
    connect(&m_timer, &QTimer::timeout, this, &ProcessRunner::poll);
}

ProcessRunner::~ProcessRunner()
{
    for (auto &[key, w] : m_watched)
        forget(*w);
    m_epollWatch.reset();
    if (m_epoll >= 0)
        ::close(m_epoll);
    for (const qint64 pid : std::as_const(m_unreaped))
        ::waitpid(pid_t(pid), nullptr, WNOHANG);
}

void ProcessRunner::ensureTimer()
{
    if (!m_timer.isActive())
        m_timer.start();
}

QMap<QString, QString> ProcessRunner::baseEnvironment(const QString &home, const QString &user)
{
    QMap<QString, QString> env;
    const QByteArray path = qgetenv("PATH");
    env.insert(QStringLiteral("PATH"),
               path.isEmpty() ? QStringLiteral("/usr/local/bin:/usr/bin:/bin")
                              : QString::fromLocal8Bit(path));
    if (!home.isEmpty())
        env.insert(QStringLiteral("HOME"), home);
    if (!user.isEmpty()) {
        env.insert(QStringLiteral("USER"), user);
        env.insert(QStringLiteral("LOGNAME"), user);
    }
    const QByteArray lang = qgetenv("LANG");
    env.insert(QStringLiteral("LANG"),
               lang.isEmpty() ? QStringLiteral("C.UTF-8") : QString::fromLocal8Bit(lang));
    return env;
}

std::optional<ProcessInfo> ProcessRunner::launch(const LaunchRequest &r, QString *error)
{
    QString dummy;
    QString &err = error ? *error : dummy;
    const auto refuse = [&](const QString &message) -> std::optional<ProcessInfo> {
        err = message;
        return std::nullopt;
    };

    // ---- check everything before anything is created ----
    if (!validKey(r.key))
        return refuse(
                QStringLiteral("key \"%1\" is not valid: [A-Za-z0-9._-]+ expected").arg(r.key));
    if (m_watched.count(r.key))
        return refuse(QStringLiteral("key \"%1\" is in use by a running process").arg(r.key));
    if (r.dir.isEmpty() || !QDir::isAbsolutePath(r.dir))
        return refuse(QStringLiteral("dir must be an absolute path, not \"%1\"").arg(r.dir));
    if (r.argv.isEmpty() || r.argv.first().isEmpty())
        return refuse(QStringLiteral("argv is empty"));
    for (const QString &a : r.argv)
        if (a.contains(QChar(0)))
            return refuse(QStringLiteral("argv contains a NUL character"));
    if (!r.workdir.isEmpty() && !QDir::isAbsolutePath(r.workdir))
        return refuse(
                QStringLiteral("workdir must be an absolute path, not \"%1\"").arg(r.workdir));
    if (r.logLimitBytes < kMinLogLimit)
        return refuse(QStringLiteral("logLimitBytes must be at least %1").arg(kMinLogLimit));
    if (r.memoryLimitMiB < 0 || r.memoryLimitMiB > qint64(1) << 40)
        return refuse(QStringLiteral("memoryLimitMiB must be between 0 and 2^40"));
    if (r.cpuMilli < 0 || r.cpuMilli > qint64(1) << 30)
        return refuse(QStringLiteral("cpuMilli must be between 0 and 2^30"));
    for (auto it = r.env.cbegin(); it != r.env.cend(); ++it)
        if (it.key().isEmpty() || it.key().contains(QLatin1Char('=')) || it.key().contains(QChar(0))
            || it.value().contains(QChar(0)))
            return refuse(QStringLiteral("env: \"%1\" is not a valid variable").arg(it.key()));
    if (m_options.shimPath.isEmpty() || !QFileInfo(m_options.shimPath).isExecutable())
        return refuse(QStringLiteral("the shim \"%1\" is not an executable file")
                              .arg(m_options.shimPath));

    QString accountError;
    const auto account = lookupAccount(r.user, &accountError);
    if (!account)
        return refuse(accountError);
    const bool switchUser = !r.user.isEmpty() && account->uid != ::geteuid();
    if (switchUser && ::geteuid() != 0)
        return refuse(QStringLiteral("running as user \"%1\" needs root").arg(r.user));

    // ---- host limits ----
    QStringList command;
    QString limits = QStringLiteral("none");
    QMap<QString, QString> env = baseEnvironment(account->home, account->name);
    for (auto it = r.env.cbegin(); it != r.env.cend(); ++it)
        env.insert(it.key(), it.value());
    QMap<QString, QString> execEnv = env; // what systemd-run itself needs on top
    const qint64 memoryBytes = r.memoryLimitMiB * 1024 * 1024;
    if (r.memoryLimitMiB > 0 || r.cpuMilli > 0) {
        const QString systemdRun
                = QFileInfo::exists(QStringLiteral("/run/systemd/system"))
                          ? QStandardPaths::findExecutable(QStringLiteral("systemd-run"))
                          : QString();
        if (!systemdRun.isEmpty()) {
            command << systemdRun;
            if (::geteuid() != 0) {
                command << QStringLiteral("--user");
                for (const char *name : {"XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS"})
                    if (qEnvironmentVariableIsSet(name))
                        execEnv.insert(QLatin1String(name), qEnvironmentVariable(name));
            }
            command << QStringLiteral("--scope") << QStringLiteral("--quiet")
                    << QStringLiteral("--collect")
                    << QStringLiteral("--unit=zhaoxi-%1-%2")
                               .arg(r.key)
                               .arg(QDateTime::currentMSecsSinceEpoch());
            if (memoryBytes > 0)
                command << QStringLiteral("-p") << QStringLiteral("MemoryMax=%1").arg(memoryBytes);
            if (r.cpuMilli > 0)
                command << QStringLiteral("-p")
                        << QStringLiteral("CPUQuota=%1%").arg(qMax<qint64>(1, r.cpuMilli / 10));
            command << QStringLiteral("--");
            limits = QStringLiteral("systemd-scope");
        } else if (memoryBytes > 0) {
            limits = QStringLiteral("rlimit");
        }
    }

    // ---- the directory ----
    QString dirError;
    const auto created = makeDir(r.dir, &dirError);
    if (!created)
        return refuse(dirError);
    const QByteArray nativeDir = QFile::encodeName(r.dir);
    if (*created && switchUser && ::chown(nativeDir.constData(), account->uid, account->gid) != 0)
        return refuse(QStringLiteral("cannot give \"%1\" to user \"%2\": %3")
                              .arg(r.dir, r.user, errnoText(errno)));
    ::unlink(QFile::encodeName(r.dir + QLatin1String("/exit")).constData());
    ::unlink(QFile::encodeName(r.dir + QLatin1String("/exit.tmp")).constData());

    // ---- the command line and environment, all prepared before fork ----
    int statusPipe[2];
    if (::pipe2(statusPipe, O_CLOEXEC) != 0)
        return refuse(QStringLiteral("cannot create a pipe: ") + errnoText(errno));
    // Descriptors above 2, so that the child's dup2 onto 0..2 cannot overwrite them.
    const auto high = [](int fd) {
        if (fd > 2 || fd < 0)
            return fd;
        const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
        ::close(fd);
        return moved;
    };
    const int statusRead = high(statusPipe[0]);
    const int statusWrite = high(statusPipe[1]);
    const int devNull = high(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    const int errFile
            = high(::open(QFile::encodeName(r.dir + QLatin1String("/shim.err")).constData(),
                          O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW,
                          0640));
    const auto closeAll = [&] {
        for (const int fd : {statusRead, statusWrite, devNull, errFile})
            if (fd >= 0)
                ::close(fd);
    };
    if (statusRead < 0 || statusWrite < 0 || devNull < 0 || errFile < 0) {
        const int saved = errno;
        closeAll();
        return refuse(QStringLiteral("cannot prepare the launch in \"%1\": %2")
                              .arg(r.dir, errnoText(saved)));
    }

    command << m_options.shimPath << QStringLiteral("--status-fd") << QString::number(statusWrite)
            << QStringLiteral("--dir") << r.dir << QStringLiteral("--log-limit")
            << QString::number(r.logLimitBytes) << QStringLiteral("--workdir")
            << (r.workdir.isEmpty() ? r.dir : r.workdir);
    if (switchUser)
        command << QStringLiteral("--uid") << QString::number(account->uid)
                << QStringLiteral("--gid") << QString::number(account->gid);
    if (limits == QLatin1String("rlimit"))
        command << QStringLiteral("--rlimit-data") << QString::number(memoryBytes);
    command << QStringLiteral("--") << r.argv;

    std::vector<QByteArray> argStore;
    for (const QString &a : std::as_const(command))
        argStore.push_back(a.toLocal8Bit());
    std::vector<char *> argvC;
    for (QByteArray &a : argStore)
        argvC.push_back(a.data());
    argvC.push_back(nullptr);
    std::vector<QByteArray> envStore;
    for (auto it = execEnv.cbegin(); it != execEnv.cend(); ++it)
        envStore.push_back((it.key() + QLatin1Char('=') + it.value()).toLocal8Bit());
    std::vector<char *> envC;
    for (QByteArray &e : envStore)
        envC.push_back(e.data());
    envC.push_back(nullptr);

    // The progress file may hold an earlier run's lines (a resumed job appends): follow from
    // here, before the job can write anything.
    std::optional<ProgressFollower> follower;
    if (!r.progressPath.isEmpty()) {
        follower.emplace(r.progressPath);
        follower->skipExisting();
    }

    const pid_t shim = ::fork();
    if (shim < 0) {
        const int saved = errno;
        closeAll();
        return refuse(QStringLiteral("cannot fork: ") + errnoText(saved));
    }
    if (shim == 0) {
        // Only async-signal-safe calls from here to exec: the runner may have other threads.
        struct sigaction dfl = {};
        dfl.sa_handler = SIG_DFL;
        for (int sig = 1; sig < NSIG; ++sig)
            ::sigaction(sig, &dfl, nullptr);
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        // A group of its own, led by this pid: a launch given up can then end the shim and all
        // it started so far (killLaunch), whatever it was doing. It fails only for a group
        // leader, which a child just forked is not.
        ::setsid();
        if (::dup2(devNull, 0) < 0 || ::dup2(errFile, 1) < 0 || ::dup2(errFile, 2) < 0
            || ::fcntl(statusWrite, F_SETFD, 0) < 0)
            ::_exit(127);
        ::execve(argvC[0], argvC.data(), envC.data());
        char msg[48] = "fail exec-shim ";
        int e = errno;
        char digits[16];
        int nd = 0;
        do {
            digits[nd++] = char('0' + e % 10);
            e /= 10;
        } while (e > 0 && nd < 15);
        size_t len = std::strlen(msg);
        while (nd > 0)
            msg[len++] = digits[--nd];
        msg[len++] = '\n';
        [[maybe_unused]] const ssize_t w = ::write(statusWrite, msg, len);
        ::_exit(127);
    }
    ::close(statusWrite);
    ::close(devNull);
    ::close(errFile);

    // The shim's one status line, then end of file when it closes the pipe.
    QByteArray status;
    QElapsedTimer waited;
    waited.start();
    const int launchTimeoutMs = qMax(1, m_options.launchTimeoutMs);
    bool timedOut = false;
    for (;;) {
        const qint64 left = launchTimeoutMs - waited.elapsed();
        if (left <= 0) {
            timedOut = true;
            break;
        }
        pollfd pfd{statusRead, POLLIN, 0};
        const int n = ::poll(&pfd, 1, int(left));
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            timedOut = true;
        if (n <= 0)
            break;
        char buf[256];
        const ssize_t got = ::read(statusRead, buf, sizeof buf);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0 || status.size() > 4096)
            break;
        status.append(buf, int(got));
        if (status.contains('\n'))
            break;
    }
    ::close(statusRead);
    const QList<QByteArray> words = status.trimmed().split(' ');

    if (words.size() == 3 && words[0] == "ok" && words[1].toLongLong() > 0) {
        ProcessInfo info;
        info.key = r.key;
        info.dir = r.dir;
        info.argv = r.argv;
        info.progressPath = r.progressPath;
        info.shimPid = shim;
        info.shimStartTicks = readProc(shim).startTicks; // our child: there even as a zombie
        info.pid = words[1].toLongLong();
        info.startTicks = words[2].toULongLong();
        info.startedMs = QDateTime::currentMSecsSinceEpoch();
        info.limits = limits;
        if (!writeInfoFile(info))
            qWarning("zhaoxi: cannot write %s/info", qPrintable(r.dir));
        auto w = std::make_unique<Watched>();
        w->info = info;
        w->ownChild = true;
        w->follower = std::move(follower);
        watchExit(*w);
        m_watched[r.key] = std::move(w);
        m_dirs.insert(r.key, r.dir);
        ensureTimer();
        return info;
    }

    const bool failed = words.size() == 3 && words[0] == "fail";
    // Nothing (or nothing sensible) said: the shim died, hangs, or is slow; its job may already
    // run even so. Nothing of this launch may outlive it: no one would watch or stop it.
    if (failed)
        reapFailedShim(shim);
    else
        killLaunch(shim);
    if (failed)
        return refuse(startFailure(r, QString::fromLatin1(words[1]), words[2].toInt()));
    bool cut = false;
    const QString shimErr
            = QString::fromLocal8Bit(readTail(r.dir + QLatin1String("/shim.err"), 2048, &cut))
                      .trimmed();
    return refuse(
            QStringLiteral("cannot start \"%1\": the shim gave no status%2%3")
                    .arg(r.argv.first(),
                         timedOut ? QStringLiteral(" within %1 ms").arg(launchTimeoutMs)
                                  : QString(),
                         shimErr.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(shimErr)));
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

bool ProcessRunner::signal(const QString &key, int sig)
{
    const auto it = m_watched.find(key);
    if (it == m_watched.end())
        return false;
    Watched &w = *it->second;
    if (!identityHolds(w.info.pid, w.info.startTicks))
        return false;
    if (sig == SIGKILL)
        w.requested = true;
    w.hot = true;
    return ::kill(-pid_t(w.info.pid), sig) == 0;
}

void ProcessRunner::stop(const QString &key, int stopSignal, qint64 graceMs)
{
    const auto it = m_watched.find(key);
    if (it == m_watched.end())
        return;
    Watched &w = *it->second;
    w.requested = true;
    w.hot = true;
    if (!identityHolds(w.info.pid, w.info.startTicks))
        return;
    if (graceMs <= 0 || stopSignal == SIGKILL) {
        ::kill(-pid_t(w.info.pid), SIGKILL);
        return;
    }
    ::kill(-pid_t(w.info.pid), stopSignal);
    const qint64 at = m_clock.elapsed() + graceMs;
    if (w.killAtMs < 0 || at < w.killAtMs)
        w.killAtMs = at;
}

qint64 ProcessRunner::sessionOf(qint64 pid)
{
    const ProcState s = readProc(pid);
    return s.exists ? s.session : -1;
}

bool ProcessRunner::isRunning(const QString &key) const
{
    return m_watched.count(key) > 0;
}

QList<ProcessInfo> ProcessRunner::processes() const
{
    QList<ProcessInfo> out;
    for (const auto &[key, w] : m_watched)
        out << w->info;
    return out;
}

QStringList ProcessRunner::lastLogLines(const QString &key, int n) const
{
    return tailLines(m_dirs.value(key), n);
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
