// SPDX-License-Identifier: GPL-3.0-or-later
// The service's costs (issue 15), against a real zhaoxid process on a real socket:
//   1. API round trip: "hello", "jobs" (a read of the whole state) and "priority" (a change:
//      audited and committed before the answer), median and p99 over N calls each;
//   2. snapshots streamed to 4 attached clients at 10 Hz: zhaoxid's CPU as a share of one core,
//      idle (no client) and streaming, and the difference; then the same with the consoles'
//      whole picture ("console": true, what zhaoxi --connect reads).
// Prints figures; asserts nothing.
//
//   bench_service [--calls N] [--seconds S] [--clients N]
#include "core/service/protocol.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocalSocket>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>

#include <algorithm>
#include <cstdio>
#include <memory>

#include <unistd.h>

using namespace Zhaoxi;

namespace {

int argValue(const QStringList &args, const QString &name, int fallback)
{
    const int i = args.indexOf(name);
    return i >= 0 && i + 1 < args.size() ? args[i + 1].toInt() : fallback;
}

class Line
{
public:
    bool open(const QString &path)
    {
        m_socket.connectToServer(path);
        return m_socket.waitForConnected(5000);
    }
    void send(QJsonObject request)
    {
        request.insert(QStringLiteral("id"), ++m_id);
        m_socket.write(Service::encodeLine(request));
        m_socket.flush();
    }
    // The next whole line (answer or push); empty when none comes within timeoutMs.
    QByteArray next(int timeoutMs)
    {
        while (true) {
            const qsizetype nl = m_buffer.indexOf('\n');
            if (nl >= 0) {
                QByteArray line = m_buffer.left(nl);
                m_buffer.remove(0, nl + 1);
                return line;
            }
            if (!m_socket.waitForReadyRead(timeoutMs))
                return {};
            m_buffer += m_socket.readAll();
        }
    }
    QJsonObject call(const QJsonObject &request)
    {
        send(request);
        while (true) {
            const QByteArray line = next(30000);
            if (line.isEmpty())
                return {};
            const QJsonObject m = QJsonDocument::fromJson(line).object();
            if (!m.contains(QStringLiteral("push")))
                return m;
        }
    }

private:
    QLocalSocket m_socket;
    QByteArray m_buffer;
    int m_id = 0;
};

double cpuSeconds(qint64 pid)
{
    QFile f(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray s = f.readAll();
    const QList<QByteArray> fields = s.mid(s.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after "pid (comm) ".
    return double(fields.value(11).toLongLong() + fields.value(12).toLongLong())
           / double(::sysconf(_SC_CLK_TCK));
}

struct Spread
{
    double median = 0, p99 = 0;
};

Spread spread(QList<double> v)
{
    std::sort(v.begin(), v.end());
    if (v.isEmpty())
        return {};
    return {v[v.size() / 2], v[std::min<qsizetype>(v.size() - 1, qsizetype(v.size() * 0.99))]};
}

// A client that takes snapshots at 10 Hz on its own thread and counts them: the API's snapshot,
// or with `console` the whole picture an attached console reads (zhaoxi --connect).
class Subscriber : public QThread
{
public:
    Subscriber(QString path, int seconds, bool console)
        : m_path(std::move(path))
        , m_seconds(seconds)
        , m_console(console)
    {}
    int snapshots = 0;
    qint64 bytes = 0;

protected:
    void run() override
    {
        Line l;
        if (!l.open(m_path))
            return;
        // The recent past a console reads on attaching is a one-off (measured apart, below): the
        // streaming figure is for the pictures that follow.
        l.send({{QStringLiteral("cmd"), QStringLiteral("subscribe")},
                {QStringLiteral("interval_ms"), 100},
                {QStringLiteral("console"), m_console},
                {QStringLiteral("history"), 0}});
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < m_seconds * 1000) {
            const QByteArray line = l.next(1000);
            bytes += line.size();
            snapshots += line.startsWith("{\"push\":\"snapshot\"")
                         || line.startsWith("{\"push\":\"console\"");
        }
    }

private:
    QString m_path;
    int m_seconds;
    bool m_console;
};

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    const int calls = argValue(args, QStringLiteral("--calls"), 2000);
    const int seconds = argValue(args, QStringLiteral("--seconds"), 10);
    const int clients = argValue(args, QStringLiteral("--clients"), 4);
    QTemporaryDir dir;
    const QString socket = dir.filePath(QStringLiteral("zhaoxid.sock"));
    const QString demo = QFileInfo(QStringLiteral(DEMO_TRAIN_PATH)).absolutePath();
    qputenv("PATH", (demo + QLatin1Char(':') + qEnvironmentVariable("PATH")).toLocal8Bit());
    QProcess daemon;
    daemon.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    daemon.start(QStringLiteral(ZHAOXID_PATH),
                 {QStringLiteral("--scenario"),
                  QStringLiteral(ZHAOXI_SOURCE_DIR "/tests/service/data/service.json"),
                  QStringLiteral("--db"),
                  dir.filePath(QStringLiteral("zhaoxi.sqlite")),
                  QStringLiteral("--socket"),
                  socket,
                  QStringLiteral("--policy"),
                  QStringLiteral("none")});
    Line l;
    for (int i = 0; i < 200 && !l.open(socket); ++i)
        QThread::msleep(50);
    if (l.call({{QStringLiteral("cmd"), QStringLiteral("hello")}}).isEmpty()) {
        std::fprintf(stderr, "bench_service: zhaoxid did not answer\n");
        return 1;
    }
    // Some state to read: a running job and a few waiting ones (the H200 takes one at a time).
    QFile specFile(QStringLiteral(ZHAOXI_SOURCE_DIR "/tests/service/data/train-spec.json"));
    specFile.open(QIODevice::ReadOnly);
    const QJsonObject spec = QJsonDocument::fromJson(specFile.readAll()).object();
    for (int i = 0; i < 8; ++i) {
        QJsonObject s = spec;
        s.insert(QStringLiteral("name"), QStringLiteral("bench-%1").arg(i));
        l.call({{QStringLiteral("cmd"), QStringLiteral("submit")}, {QStringLiteral("spec"), s}});
    }

    std::printf("API round trip over a Unix socket, %d calls each (ms):\n", calls);
    for (const char *cmd : {"hello", "jobs", "priority"}) {
        QList<double> ms;
        for (int i = 0; i < calls; ++i) {
            QJsonObject req{{QStringLiteral("cmd"), QLatin1String(cmd)}};
            if (QByteArray(cmd) == "priority")
                req = {{QStringLiteral("cmd"), QStringLiteral("priority")},
                       {QStringLiteral("job"), 1 + i % 7},
                       {QStringLiteral("priority"), i % 100}};
            QElapsedTimer t;
            t.start();
            const QJsonObject a = l.call(req);
            ms << double(t.nsecsElapsed()) / 1e6;
            if (!a.value(QStringLiteral("ok")).toBool()) {
                std::fprintf(stderr,
                             "bench_service: %s failed: %s\n",
                             cmd,
                             QJsonDocument(a).toJson().constData());
                break;
            }
        }
        const Spread s = spread(ms);
        std::printf("  %-9s median %.3f  p99 %.3f%s\n",
                    cmd,
                    s.median,
                    s.p99,
                    QByteArray(cmd) == "priority"
                            ? "   (audited, committed with fsync before the answer)"
                            : "");
    }

    const qint64 pid = daemon.processId();
    const double idle0 = cpuSeconds(pid);
    QThread::sleep(unsigned(seconds));
    const double idle = (cpuSeconds(pid) - idle0) / seconds;
    for (const bool console : {false, true}) {
        std::vector<std::unique_ptr<Subscriber>> subs;
        for (int i = 0; i < clients; ++i)
            subs.push_back(std::make_unique<Subscriber>(socket, seconds, console));
        const double busy0 = cpuSeconds(pid);
        for (auto &s : subs)
            s->start();
        for (auto &s : subs)
            s->wait();
        const double busy = (cpuSeconds(pid) - busy0) / seconds;
        int snapshots = 0;
        qint64 bytes = 0;
        for (auto &s : subs) {
            snapshots += s->snapshots;
            bytes += s->bytes;
        }
        std::printf("%s to %d clients at 10 Hz for %d s: %d pushes (%.1f per client per s, "
                    "%.1f kB each)\n",
                    console ? "the console's whole picture" : "snapshots",
                    clients,
                    seconds,
                    snapshots,
                    double(snapshots) / clients / seconds,
                    snapshots ? double(bytes) / snapshots / 1024 : 0.0);
        std::printf("  zhaoxid CPU, share of one core: idle %.2f %%, streaming %.2f %%, "
                    "streaming's cost %.2f %%\n",
                    100 * idle,
                    100 * busy,
                    100 * (busy - idle));
    }

    // Attaching a console: the subscription's first picture with the last 2,000 stored events.
    {
        QList<double> ms;
        for (int i = 0; i < 20; ++i) {
            Line c;
            if (!c.open(socket))
                break;
            QElapsedTimer t;
            t.start();
            c.send({{QStringLiteral("cmd"), QStringLiteral("subscribe")},
                    {QStringLiteral("console"), true},
                    {QStringLiteral("history"), 2000}});
            qint64 bytes = 0;
            for (;;) {
                const QByteArray line = c.next(5000);
                if (line.isEmpty())
                    break;
                bytes += line.size();
                if (line.startsWith("{\"push\":\"console\""))
                    break;
            }
            ms << double(t.nsecsElapsed()) / 1e6;
            if (i == 0)
                std::printf("attaching a console (first picture with up to 2,000 events, %.1f kB):",
                            double(bytes) / 1024);
        }
        const Spread s = spread(ms);
        std::printf(
                " median %.2f ms, p99 %.2f ms over %d attaches\n", s.median, s.p99, int(ms.size()));
    }

    // Leave nothing behind: the jobs' processes end with the service's work.
    const QJsonObject jobs = l.call({{QStringLiteral("cmd"), QStringLiteral("jobs")}});
    for (const QJsonValue &j :
         jobs.value(QStringLiteral("result"))[QStringLiteral("jobs")].toArray())
        l.call({{QStringLiteral("cmd"), QStringLiteral("cancel")},
                {QStringLiteral("job"), j[QStringLiteral("job")].toInt()}});
    QThread::sleep(4);
    daemon.terminate();
    daemon.waitForFinished(30000);
    return 0;
}
