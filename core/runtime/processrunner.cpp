// SPDX-License-Identifier: GPL-3.0-or-later
// ProcessRunner: the ProcessInfo record, what the parts share (/proc, the exit file, the log's
// tail), signals, stops and queries. Launching is in processrunner_spawn.cpp, watching and
// adoption in processrunner_watch.cpp.
#include "processrunner_p.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSocketNotifier>

#include <cerrno>
#include <csignal>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

namespace Zhaoxi::Runtime {

namespace RunnerDetail {

QString errnoText(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

bool validKey(const QString &key)
{
    static const QRegularExpression re(QStringLiteral("^[A-Za-z0-9._-]+$"));
    return re.match(key).hasMatch() && key != QLatin1String(".") && key != QLatin1String("..");
}

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

bool identityHolds(qint64 pid, quint64 startTicks)
{
    const ProcState s = readProc(pid);
    return sameProcess(s, startTicks) && s.state != 'Z' && s.state != 'X';
}

namespace {

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

} // namespace

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

} // namespace RunnerDetail

using namespace RunnerDetail;

namespace {

bool fail(QString *error, const QString &message)
{
    if (error)
        *error = message;
    return false;
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

} // namespace Zhaoxi::Runtime
