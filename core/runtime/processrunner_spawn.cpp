// SPDX-License-Identifier: GPL-3.0-or-later
// ProcessRunner's launches: a job started under its own zhaoxi-shim, the shim's start protocol
// ("fail STEP ERRNO" or the job's pid on its status pipe), and the clean-up of a launch given up.
#include "processrunner_p.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSaveFile>
#include <QStandardPaths>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

namespace Zhaoxi::Runtime {

using namespace RunnerDetail;

namespace {

constexpr qint64 kMinLogLimit = 4096;

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
    if (step == QLatin1String("lock"))
        return what
               + QStringLiteral(": another process of it still runs in \"%1\" (%2)")
                         .arg(r.dir, errnoText(error));
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
} // namespace Zhaoxi::Runtime
