// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxictl as the service's client (issue 15): submit, cancel, requeue, priority, jobs, cards,
// events tail, schedule get/set, layout apply, through zhaoxid's socket; audit verify on a store.
#include "commands.h"

#include "core/domain/workloadspec.h"
#include "core/service/audit.h"
#include "core/service/protocol.h"
#include "core/storage/store.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocalSocket>

#include <cmath>

namespace Zhaoxi::Cli {

namespace {

constexpr int kTimeoutMs = 30'000;

// Taken first, before the positional arguments are read. A relative path is the working
// directory's (as a file argument would be).
QString socketPath(Args &args)
{
    QString path
            = args.value(QStringLiteral("socket")).value_or(qEnvironmentVariable("ZHAOXI_SOCKET"));
    if (path.isEmpty())
        path = QString::fromLatin1(Service::kDefaultSocket);
    return QFileInfo(path).absoluteFilePath();
}

// One connection to the service, used synchronously (a command-line tool waits for its answer).
class Connection
{
public:
    bool open(const QString &path, QString *error)
    {
        m_socket.connectToServer(path);
        if (!m_socket.waitForConnected(5000)) {
            *error = QStringLiteral("cannot connect to the service at %1: %2 (is zhaoxid running? "
                                    "--socket PATH or ZHAOXI_SOCKET names another)")
                             .arg(path, m_socket.errorString());
            return false;
        }
        return true;
    }

    // Sends one request and waits for its answer; pushes that come first are kept for next().
    std::optional<QJsonObject> call(QJsonObject request, QString *error)
    {
        const int id = ++m_id;
        request.insert(QStringLiteral("id"), id);
        m_socket.write(Service::encodeLine(request));
        while (true) {
            std::optional<QJsonObject> m = next(kTimeoutMs, error);
            if (!m)
                return std::nullopt;
            if (m->contains(QStringLiteral("push"))) {
                m_pushes.append(*m);
                continue;
            }
            if (m->value(QStringLiteral("id")).toInt(-1) == id
                || m->value(QStringLiteral("id")).isNull())
                return m;
        }
    }

    // The next message (a push kept earlier first); nullopt with *error on a timeout or when the
    // service goes away. timeoutMs < 0: wait without bound.
    std::optional<QJsonObject> next(int timeoutMs, QString *error)
    {
        if (!m_pushes.isEmpty())
            return m_pushes.takeFirst();
        while (true) {
            const qsizetype nl = m_buffer.indexOf('\n');
            if (nl >= 0) {
                const QByteArray line = m_buffer.left(nl);
                m_buffer.remove(0, nl + 1);
                const QJsonDocument doc = QJsonDocument::fromJson(line);
                if (doc.isObject())
                    return doc.object();
                continue;
            }
            if (m_socket.state() != QLocalSocket::ConnectedState
                && m_socket.bytesAvailable() == 0) {
                *error = QStringLiteral("the service closed the connection");
                return std::nullopt;
            }
            if (!m_socket.waitForReadyRead(timeoutMs) && m_socket.bytesAvailable() == 0) {
                *error = m_socket.state() == QLocalSocket::ConnectedState
                                 ? QStringLiteral("no answer from the service within %1 s")
                                           .arg(timeoutMs / 1000)
                                 : QStringLiteral("the service closed the connection");
                return std::nullopt;
            }
            m_buffer += m_socket.readAll();
        }
    }

private:
    QLocalSocket m_socket;
    QByteArray m_buffer;
    QList<QJsonObject> m_pushes;
    int m_id = 0;
};

// Connects, sends, and turns the answer into an exit code: 0 done, 1 refused by the appliance
// (its words on stderr), 2 a usage error or no service. `result` gets the answer's result.
int request(const char *command,
            const QString &path,
            const Args &args,
            const QJsonObject &req,
            QJsonObject *result,
            Io &io)
{
    if (!args.missingValueFor().isEmpty()) {
        io.err << "zhaoxictl " << command << ": option " << args.missingValueFor()
               << " needs a value\n";
        return 2;
    }
    if (!args.unknownOptions().isEmpty()) {
        io.err << "zhaoxictl " << command
               << ": unknown option(s): " << args.unknownOptions().join(QLatin1Char(' ')) << "\n";
        return 2;
    }
    Connection c;
    QString why;
    if (!c.open(path, &why)) {
        io.err << "zhaoxictl " << command << ": " << why << "\n";
        return 2;
    }
    const std::optional<QJsonObject> answer = c.call(req, &why);
    if (!answer) {
        io.err << "zhaoxictl " << command << ": " << why << "\n";
        return 2;
    }
    if (!answer->value(QStringLiteral("ok")).toBool()) {
        const QJsonObject e = answer->value(QStringLiteral("error")).toObject();
        const QString field = e.value(QStringLiteral("field")).toString();
        io.err << "zhaoxictl " << command << ": "
               << (field.isEmpty() ? QString() : field + QStringLiteral(": "))
               << e.value(QStringLiteral("message")).toString() << "\n";
        const QString code = e.value(QStringLiteral("code")).toString();
        return code == QLatin1String(Service::Code::BadArgument)
                               || code == QLatin1String(Service::Code::Malformed)
                       ? 2
                       : 1;
    }
    *result = answer->value(QStringLiteral("result")).toObject();
    return 0;
}

bool takeJson(Args &args)
{
    return args.flag(QStringLiteral("json"));
}

void printJson(Io &io, const QJsonObject &o)
{
    io.out << QJsonDocument(o).toJson(QJsonDocument::Indented);
}

std::optional<qint64> integer(const QString &text)
{
    bool ok = false;
    const qint64 v = text.toLongLong(&ok);
    return ok ? std::optional<qint64>(v) : std::nullopt;
}

// A job command taking JOB (and maybe one more integer).
int jobCommand(const char *command,
               const QString &cmd,
               const QStringList &argList,
               Io &io,
               bool withPriority)
{
    Args args(argList);
    const bool json = takeJson(args);
    const QString path = socketPath(args);
    const QStringList pos = args.positional();
    const int want = withPriority ? 2 : 1;
    std::optional<qint64> job = pos.size() == want ? integer(pos[0]) : std::nullopt;
    std::optional<qint64> priority
            = withPriority && pos.size() == 2 ? integer(pos[1]) : std::nullopt;
    if (!job || (withPriority && !priority)) {
        io.err << "zhaoxictl " << command << ": expected "
               << (withPriority ? "JOB PRIORITY" : "JOB") << " (integers), got '"
               << pos.join(QLatin1Char(' ')) << "'\n";
        return 2;
    }
    QJsonObject req{{QStringLiteral("cmd"), cmd}, {QStringLiteral("job"), *job}};
    if (priority)
        req.insert(QStringLiteral("priority"), *priority);
    QJsonObject result;
    const int rc = request(command, path, args, req, &result, io);
    if (rc != 0)
        return rc;
    if (json)
        printJson(io, result);
    else
        io.out << command << ": job " << *job << " done\n";
    return 0;
}

QString formatTime(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs);
}

QString eventLine(const QJsonObject &e)
{
    QString line = QStringLiteral("%1 %2 %3 %4 %5")
                           .arg(QString::number(e.value(QStringLiteral("id")).toInteger()), 6)
                           .arg(formatTime(e.value(QStringLiteral("at_ms")).toInteger()),
                                e.value(QStringLiteral("severity")).toString(),
                                e.value(QStringLiteral("source")).toString(),
                                e.value(QStringLiteral("code")).toString());
    for (const char *k : {"card", "job", "actor"}) {
        const QJsonValue v = e.value(QLatin1String(k));
        if (!v.isNull() && !v.isUndefined())
            line += QStringLiteral(" %1=%2").arg(
                    QLatin1String(k), v.isString() ? v.toString() : QString::number(v.toInteger()));
    }
    const QJsonObject params = e.value(QStringLiteral("params")).toObject();
    if (!params.isEmpty())
        line += QLatin1Char(' ')
                + QString::fromUtf8(QJsonDocument(params).toJson(QJsonDocument::Compact));
    return line;
}

} // namespace

int runSubmit(const QStringList &argList, Io &io)
{
    Args args(argList);
    const QString path = socketPath(args);
    const bool json = takeJson(args);
    const QStringList pos = args.positional();
    if (pos.size() != 1) {
        io.err << "zhaoxictl submit: expected one SPEC.json (docs/workload-spec.md)\n";
        return 2;
    }
    QFile f(pos[0]);
    if (!f.open(QIODevice::ReadOnly)) {
        io.err << "zhaoxictl submit: cannot read " << pos[0] << ": " << f.errorString() << "\n";
        return 2;
    }
    const QByteArray text = f.read(Service::kMaxMessageBytes / 2 + 1);
    if (text.size() > Service::kMaxMessageBytes / 2) {
        io.err << "zhaoxictl submit: " << pos[0] << " is over " << Service::kMaxMessageBytes / 2
               << " bytes\n";
        return 2;
    }
    QJsonParseError perr{};
    const QJsonDocument doc = QJsonDocument::fromJson(text, &perr);
    if (perr.error != QJsonParseError::NoError || !doc.isObject()) {
        // Line and column of the offending byte, as the spec reader names them.
        const QByteArray before = text.left(perr.offset);
        io.err << "zhaoxictl submit: " << pos[0] << ":" << before.count('\n') + 1 << ":"
               << perr.offset - before.lastIndexOf('\n') << ": "
               << (perr.error != QJsonParseError::NoError
                           ? perr.errorString()
                           : QStringLiteral("a spec is a JSON object"))
               << "\n";
        return 2;
    }
    QJsonObject result;
    const int rc = request("submit",
                           path,
                           args,
                           {{QStringLiteral("cmd"), QStringLiteral("submit")},
                            {QStringLiteral("spec"), doc.object()}},
                           &result,
                           io);
    if (rc != 0)
        return rc;
    if (json)
        printJson(io, result);
    else
        io.out << "submitted: job " << result.value(QStringLiteral("job")).toInteger() << "\n";
    return 0;
}

int runCancel(const QStringList &args, Io &io)
{
    return jobCommand("cancel", QStringLiteral("cancel"), args, io, false);
}

int runRequeue(const QStringList &args, Io &io)
{
    return jobCommand("requeue", QStringLiteral("requeue"), args, io, false);
}

int runPriority(const QStringList &args, Io &io)
{
    return jobCommand("priority", QStringLiteral("priority"), args, io, true);
}

int runJobs(const QStringList &argList, Io &io)
{
    Args args(argList);
    const QString path = socketPath(args);
    const bool json = takeJson(args);
    if (!args.positional().isEmpty()) {
        io.err << "zhaoxictl jobs: unexpected argument(s): "
               << args.positional().join(QLatin1Char(' ')) << "\n";
        return 2;
    }
    QJsonObject result;
    const int rc = request(
            "jobs", path, args, {{QStringLiteral("cmd"), QStringLiteral("jobs")}}, &result, io);
    if (rc != 0)
        return rc;
    if (json) {
        printJson(io, result);
        return 0;
    }
    io.out << QStringLiteral("%1 %2 %3 %4 %5 %6\n")
                      .arg(QStringLiteral("job"), 5)
                      .arg(QStringLiteral("name"), -24)
                      .arg(QStringLiteral("kind"), -10)
                      .arg(QStringLiteral("state"), -11)
                      .arg(QStringLiteral("prio"), 5)
                      .arg(QStringLiteral("units"));
    for (const QJsonValue &v : result.value(QStringLiteral("jobs")).toArray()) {
        const QJsonObject j = v.toObject();
        QStringList units;
        for (const QJsonValue &u : j.value(QStringLiteral("units")).toArray())
            units << QStringLiteral("card %1/unit %2")
                             .arg(u[QStringLiteral("card")].toInt())
                             .arg(u[QStringLiteral("uid")].toInt());
        io.out << QStringLiteral("%1 %2 %3 %4 %5 %6\n")
                          .arg(j.value(QStringLiteral("job")).toInt(), 5)
                          .arg(j.value(QStringLiteral("name")).toString(), -24)
                          .arg(j.value(QStringLiteral("kind")).toString(), -10)
                          .arg(j.value(QStringLiteral("state")).toString(), -11)
                          .arg(j.value(QStringLiteral("priority")).toInt(), 5)
                          .arg(units.join(QStringLiteral(", ")));
    }
    return 0;
}

int runCards(const QStringList &argList, Io &io)
{
    Args args(argList);
    const QString path = socketPath(args);
    const bool json = takeJson(args);
    if (!args.positional().isEmpty()) {
        io.err << "zhaoxictl cards: unexpected argument(s): "
               << args.positional().join(QLatin1Char(' ')) << "\n";
        return 2;
    }
    QJsonObject result;
    const int rc = request(
            "cards", path, args, {{QStringLiteral("cmd"), QStringLiteral("cards")}}, &result, io);
    if (rc != 0)
        return rc;
    if (json) {
        printJson(io, result);
        return 0;
    }
    for (const QJsonValue &v : result.value(QStringLiteral("cards")).toArray()) {
        const QJsonObject c = v.toObject();
        const double util = c.value(QStringLiteral("utilisation")).toDouble(std::nan(""));
        io.out << QStringLiteral("card %1  %2  %3  %4  util %5  mem %6/%7 MiB  %8 C  %9 W\n")
                          .arg(c.value(QStringLiteral("card")).toInt())
                          .arg(c.value(QStringLiteral("model")).toString(),
                               c.value(QStringLiteral("mode")).toString(),
                               c.value(QStringLiteral("health")).toString(),
                               std::isnan(util) ? QStringLiteral("n/a")
                                                : QStringLiteral("%1%").arg(100 * util, 0, 'f', 0))
                          .arg(c.value(QStringLiteral("memory_used_mib")).toInteger())
                          .arg(c.value(QStringLiteral("memory_total_mib")).toInteger())
                          .arg(c.value(QStringLiteral("temperature_c")).toDouble(), 0, 'f', 0)
                          .arg(c.value(QStringLiteral("power_w")).toDouble(), 0, 'f', 0);
        if (c.value(QStringLiteral("cordoned_by_operator")).toBool())
            io.out << "    cordoned: takes no new work until 'zhaoxictl card uncordon --card "
                   << c.value(QStringLiteral("card")).toInt() << "'\n";
        const qint64 pinned = c.value(QStringLiteral("pinned_until_ms")).toInteger();
        if (pinned != 0)
            io.out << "    layout pinned"
                   << (pinned < 0 ? QStringLiteral(" until unpinned")
                                  : QStringLiteral(" until %1").arg(pinned))
                   << "\n";
        for (const QJsonValue &u : c.value(QStringLiteral("units")).toArray()) {
            const QJsonObject uo = u.toObject();
            io.out << "    unit " << uo.value(QStringLiteral("uid")).toInt();
            if (uo.contains(QStringLiteral("profile")))
                io.out << " " << uo.value(QStringLiteral("profile")).toString() << "@"
                       << uo.value(QStringLiteral("start")).toInt();
            io.out << "  "
                   << (uo.value(QStringLiteral("job")).isNull()
                               ? QStringLiteral("free")
                               : QStringLiteral("job %1").arg(
                                       uo.value(QStringLiteral("job")).toInt()))
                   << "\n";
        }
    }
    return 0;
}

int runEventsTail(const QStringList &argList, Io &io)
{
    Args args(argList);
    const QString path = socketPath(args);
    const bool json = takeJson(args);
    const bool follow = args.flag(QStringLiteral("follow"));
    const auto lastText = args.value(QStringLiteral("last"));
    const std::optional<qint64> last = lastText ? integer(*lastText) : std::optional<qint64>(20);
    if (!last || *last < 0) {
        io.err << "zhaoxictl events tail: --last expects a count, got '"
               << lastText.value_or(QString()) << "'\n";
        return 2;
    }
    if (!args.missingValueFor().isEmpty() || !args.unknownOptions().isEmpty()
        || !args.positional().isEmpty()) {
        io.err << "zhaoxictl events tail: unexpected argument(s): "
               << (args.unknownOptions() + args.positional()).join(QLatin1Char(' '))
               << args.missingValueFor() << "\n";
        return 2;
    }
    Connection c;
    QString why;
    if (!c.open(path, &why)) {
        io.err << "zhaoxictl events tail: " << why << "\n";
        return 2;
    }
    // Subscribed before reading the tail, so nothing falls between the two; ids drop repeats.
    if (follow
        && !c.call({{QStringLiteral("cmd"), QStringLiteral("subscribe")},
                    {QStringLiteral("snapshots"), false},
                    {QStringLiteral("events"), true}},
                   &why)) {
        io.err << "zhaoxictl events tail: " << why << "\n";
        return 2;
    }
    const auto answer = c.call(
            {{QStringLiteral("cmd"), QStringLiteral("events")}, {QStringLiteral("last"), *last}},
            &why);
    if (!answer || !answer->value(QStringLiteral("ok")).toBool()) {
        io.err << "zhaoxictl events tail: "
               << (answer ? answer->value(QStringLiteral("error"))[QStringLiteral("message")]
                                    .toString()
                          : why)
               << "\n";
        return answer ? 1 : 2;
    }
    qint64 seen = -1;
    auto print = [&](const QJsonObject &e) {
        const qint64 id = e.value(QStringLiteral("id")).toInteger();
        if (id <= seen)
            return;
        seen = id;
        io.out << (json ? QString::fromUtf8(QJsonDocument(e).toJson(QJsonDocument::Compact))
                        : eventLine(e))
               << "\n";
    };
    for (const QJsonValue &v :
         answer->value(QStringLiteral("result"))[QStringLiteral("events")].toArray())
        print(v.toObject());
    io.out.flush();
    if (!follow)
        return 0;
    while (true) {
        const std::optional<QJsonObject> m = c.next(-1, &why);
        if (!m) {
            io.err << "zhaoxictl events tail: " << why << "\n";
            return 1;
        }
        if (m->value(QStringLiteral("push")).toString() == QLatin1String("event")) {
            print(m->value(QStringLiteral("event")).toObject());
            io.out.flush();
        }
    }
}

namespace {

QString milliText(qint64 milli)
{
    return milli < 0 ? QStringLiteral("no limit")
                     : QString::number(double(milli) / 1000.0, 'f', 2) + QStringLiteral(" cards");
}

// A schedule preview for people: what changes, what stops, which service's SLO is at risk.
int printSchedulePreview(const QJsonObject &r, Io &io)
{
    if (!r.value(QStringLiteral("ok")).toBool()) {
        io.err << "zhaoxictl schedule preview: refused: "
               << r.value(QStringLiteral("error")).toString() << "\n";
        return 1;
    }
    const auto policyWindow = [&](const char *policy, const char *window) -> QString {
        const QString w = r.value(QLatin1String(window)).toString();
        return r.value(QLatin1String(policy)).toString()
               + (w.isEmpty() ? QString() : QStringLiteral(" (window %1)").arg(w));
    };
    io.out << "policy: " << policyWindow("policy_before", "window_before") << " -> "
           << policyWindow("policy_after", "window_after") << "\n";
    const QJsonObject b0 = r.value(QStringLiteral("budget_before")).toObject();
    const QJsonObject b1 = r.value(QStringLiteral("budget_after")).toObject();
    for (const char *cls : {"training", "inference", "batch"}) {
        const QString key = QLatin1String(cls) + QStringLiteral("_milli");
        const qint64 before = qint64(b0.value(key).toDouble(-1));
        const qint64 after = qint64(b1.value(key).toDouble(-1));
        io.out << "budget " << cls << ": " << milliText(before) << " -> " << milliText(after)
               << (before == after ? "" : "  (changes)") << "\n";
    }
    const QJsonArray ev = r.value(QStringLiteral("evictions")).toArray();
    if (ev.isEmpty())
        io.out << "evictions: none\n";
    for (const QJsonValue &v : ev) {
        const QJsonObject e = v.toObject();
        io.out << "evicts job " << e.value(QStringLiteral("job")).toInt() << " "
               << e.value(QStringLiteral("name")).toString() << ": "
               << (e.value(QStringLiteral("at_checkpoint")).toBool()
                           ? QStringLiteral("at its next checkpoint, losing nothing")
                           : QStringLiteral("at once, losing %1 s of work")
                                     .arg(qint64(e.value(QStringLiteral("lost_work_ms")).toDouble())
                                          / 1000))
               << "\n";
    }
    for (const QJsonValue &v : r.value(QStringLiteral("services")).toArray()) {
        const QJsonObject c = v.toObject();
        const QJsonValue p99 = c.value(QStringLiteral("p99_after_ms"));
        io.out << "service " << c.value(QStringLiteral("name")).toString() << ": replicas "
               << c.value(QStringLiteral("replicas_before")).toInt() << " -> "
               << c.value(QStringLiteral("replicas_after")).toInt() << ", p99 estimate "
               << (p99.isDouble() ? QString::number(p99.toDouble(), 'f', 0) + QStringLiteral(" ms")
                                  : QStringLiteral("unbounded"))
               << " (SLO " << c.value(QStringLiteral("slo_ms")).toDouble() << " ms)"
               << (c.value(QStringLiteral("at_risk")).toBool() ? "  SLO AT RISK" : "") << "\n";
    }
    return 0;
}

} // namespace

int runSchedule(const QStringList &argList, Io &io)
{
    const QString sub = argList.value(0);
    Args args(argList.mid(1));
    const QString path = socketPath(args);
    const bool json = takeJson(args);
    if (sub == QLatin1String("get")) {
        QJsonObject result;
        const int rc = request("schedule get",
                               path,
                               args,
                               {{QStringLiteral("cmd"), QStringLiteral("schedule-get")}},
                               &result,
                               io);
        if (rc != 0)
            return rc;
        if (json || !result.value(QStringLiteral("schedule")).isNull()) {
            printJson(io, json ? result : result.value(QStringLiteral("schedule")).toObject());
        } else {
            io.out << "no windows schedule set through the service; policy in force: "
                   << result.value(QStringLiteral("policy")).toString() << "\n";
        }
        return 0;
    }
    if (sub == QLatin1String("set") || sub == QLatin1String("preview")) {
        const bool set = sub == QLatin1String("set");
        const char *what = set ? "schedule set" : "schedule preview";
        const QStringList pos = args.positional();
        if (pos.size() != 1) {
            io.err << "zhaoxictl " << what
                   << ": expected one FILE (the windows policy's parameters)\n";
            return 2;
        }
        QFile f(pos[0]);
        if (!f.open(QIODevice::ReadOnly)) {
            io.err << "zhaoxictl " << what << ": cannot read " << pos[0] << ": " << f.errorString()
                   << "\n";
            return 2;
        }
        QJsonParseError perr{};
        const QByteArray text = f.read(Service::kMaxMessageBytes / 2);
        const QJsonDocument doc = QJsonDocument::fromJson(text, &perr);
        if (perr.error != QJsonParseError::NoError || !doc.isObject()) {
            const QByteArray before = text.left(perr.offset);
            io.err << "zhaoxictl " << what << ": " << pos[0] << ":" << before.count('\n') + 1 << ":"
                   << perr.offset - before.lastIndexOf('\n') << ": "
                   << (perr.error != QJsonParseError::NoError
                               ? perr.errorString()
                               : QStringLiteral("a schedule is a JSON object"))
                   << "\n";
            return 2;
        }
        QJsonObject result;
        const int rc = request(
                what,
                path,
                args,
                {{QStringLiteral("cmd"),
                  set ? QStringLiteral("schedule-set") : QStringLiteral("preview-schedule")},
                 {QStringLiteral("schedule"), doc.object()}},
                &result,
                io);
        if (rc != 0)
            return rc;
        if (set) {
            io.out << "schedule set: the windows policy is in force\n";
            return 0;
        }
        if (json) {
            printJson(io, result);
            return result.value(QStringLiteral("ok")).toBool() ? 0 : 1;
        }
        return printSchedulePreview(result, io);
    }
    io.err << "zhaoxictl schedule: expected 'get', 'preview FILE' or 'set FILE'\n";
    return 2;
}

// `--card N` for a command on one card: nullopt (after saying so) when it is missing or not a
// number, or when words are left over that the command takes none of (call it after the
// command's other options are read).
std::optional<qint64> cardArgument(Args &args, const char *what, Io &io, bool takesWords = false)
{
    const auto text = args.value(QStringLiteral("card"));
    const std::optional<qint64> card = text ? integer(*text) : std::nullopt;
    if (!card) {
        io.err << "zhaoxictl " << what << ": --card N is required (a card number)\n";
        return std::nullopt;
    }
    // The card commands take options only: a stray word is a mistake, not something to skip.
    if (!takesWords && !args.positional().isEmpty()) {
        io.err << "zhaoxictl " << what
               << ": unexpected argument(s): " << args.positional().join(QLatin1Char(' ')) << "\n";
        return std::nullopt;
    }
    return card;
}

int runLayoutPin(const QStringList &argList, Io &io)
{
    const bool pin = argList.value(0) == QLatin1String("pin");
    const char *what = pin ? "layout pin" : "layout unpin";
    Args args(argList.mid(1));
    const QString path = socketPath(args);
    const bool json = takeJson(args);
    const auto forText = pin ? args.value(QStringLiteral("for")) : std::nullopt;
    const std::optional<qint64> card = cardArgument(args, what, io);
    if (!card)
        return 2;
    QJsonObject req{{QStringLiteral("cmd"),
                     pin ? QStringLiteral("layout-pin") : QStringLiteral("layout-unpin")},
                    {QStringLiteral("card"), *card}};
    if (forText) {
        const std::optional<qint64> forMs = Domain::durationMsFromString(*forText);
        if (!forMs || *forMs <= 0) {
            io.err << "zhaoxictl layout pin: --for expects a duration such as 2h or 30m, got '"
                   << *forText << "'\n";
            return 2;
        }
        req.insert(QStringLiteral("for_ms"), *forMs);
    }
    if (!args.positional().isEmpty()) {
        io.err << "zhaoxictl " << what << ": unexpected '" << args.positional().join(' ') << "'\n";
        return 2;
    }
    QJsonObject result;
    const int rc = request(what, path, args, req, &result, io);
    if (rc != 0)
        return rc;
    if (json)
        printJson(io, result);
    else if (!pin)
        io.out << "layout unpin: card " << *card
               << " is no longer pinned; the scheduler may change it again\n";
    else
        io.out << "layout pin: card " << *card << "'s layout is pinned "
               << (forText ? QStringLiteral("for %1").arg(*forText)
                           : QStringLiteral("until unpinned"))
               << "\n";
    return 0;
}

int runCard(const QStringList &argList, Io &io)
{
    const QString sub = argList.value(0);
    const bool cordon = sub == QLatin1String("cordon");
    if (!cordon && sub != QLatin1String("uncordon")) {
        io.err << "zhaoxictl card: expected 'cordon --card N [--drain]' or 'uncordon --card N'\n";
        return 2;
    }
    const char *what = cordon ? "card cordon" : "card uncordon";
    Args args(argList.mid(1));
    const QString path = socketPath(args);
    const bool json = takeJson(args);
    const bool drain = cordon && args.flag(QStringLiteral("drain"));
    const std::optional<qint64> card = cardArgument(args, what, io);
    if (!card)
        return 2;
    QJsonObject req{{QStringLiteral("cmd"),
                     cordon ? QStringLiteral("card-cordon") : QStringLiteral("card-uncordon")},
                    {QStringLiteral("card"), *card}};
    if (cordon)
        req.insert(QStringLiteral("drain"), drain);
    QJsonObject result;
    const int rc = request(what, path, args, req, &result, io);
    if (rc != 0)
        return rc;
    if (json)
        printJson(io, result);
    else if (!cordon)
        io.out << "card uncordon: card " << *card << " takes work again\n";
    else
        io.out << "card cordon: card " << *card << " takes no new work"
               << (drain ? "; what ran on it goes back to the queue" : "") << "\n";
    return 0;
}

int runLayout(const QStringList &argList, Io &io)
{
    if (argList.value(0) == QLatin1String("pin") || argList.value(0) == QLatin1String("unpin"))
        return runLayoutPin(argList, io);
    if (argList.value(0) != QLatin1String("apply")) {
        io.err << "zhaoxictl layout: expected 'apply --card N PROFILE@START ... [--drain "
                  "DEADLINE]', 'pin --card N [--for DURATION]' or 'unpin --card N'\n";
        return 2;
    }
    Args args(argList.mid(1));
    const QString path = socketPath(args);
    const bool json = takeJson(args);
    const std::optional<qint64> card = cardArgument(args, "layout apply", io, true);
    const auto drain = args.value(QStringLiteral("drain"));
    if (!card)
        return 2;
    std::optional<qint64> deadline;
    if (drain) {
        deadline = Domain::durationMsFromString(*drain);
        if (!deadline || *deadline < 0) {
            io.err << "zhaoxictl layout apply: --drain expects a duration such as 10m or 90s, got '"
                   << *drain << "'\n";
            return 2;
        }
    }
    QStringList placements;
    for (const QString &p : args.positional()) {
        for (const QString &part : p.split(QLatin1Char(','), Qt::SkipEmptyParts))
            placements << part.trimmed();
    }
    const QJsonArray layout = QJsonArray::fromStringList(placements);
    QJsonObject req{{QStringLiteral("cmd"), QStringLiteral("layout-apply")},
                    {QStringLiteral("card"), *card},
                    {QStringLiteral("layout"), layout}};
    if (deadline)
        req.insert(QStringLiteral("drain_deadline_ms"), *deadline);
    QJsonObject result;
    const int rc = request("layout apply", path, args, req, &result, io);
    if (rc != 0)
        return rc;
    if (json)
        printJson(io, result);
    else
        io.out << "layout apply: card " << *card << " now has "
               << (placements.isEmpty() ? QStringLiteral("no partitions")
                                        : placements.join(QLatin1Char(' ')))
               << "\n";
    return 0;
}

int runAudit(const QStringList &argList, Io &io)
{
    if (argList.value(0) != QLatin1String("verify")) {
        io.err << "zhaoxictl audit: expected 'verify --db FILE'\n";
        return 2;
    }
    Args args(argList.mid(1));
    const bool json = takeJson(args);
    const auto db = args.value(QStringLiteral("db"));
    if (!db || !args.unknownOptions().isEmpty() || !args.positional().isEmpty()) {
        io.err << "zhaoxictl audit verify: --db FILE is required (and nothing else)\n";
        return 2;
    }
    QString why;
    const auto reader = Storage::Reader::open(*db, Storage::Reader::OpenMode::RequireCurrent, &why);
    if (!reader) {
        io.err << "zhaoxictl audit verify: " << why << "\n";
        return 2;
    }
    Service::AuditTrail::Verdict v;
    if (!Service::AuditTrail::verify(*reader, &v, &why)) {
        io.err << "zhaoxictl audit verify: " << *db << ": " << why << "\n";
        return 2;
    }
    if (json) {
        printJson(io,
                  {{QStringLiteral("intact"), v.intact},
                   {QStringLiteral("events"), v.events},
                   {QStringLiteral("broken_at"),
                    v.brokenAt >= 0 ? QJsonValue(v.brokenAt) : QJsonValue()},
                   {QStringLiteral("problem"), v.problem}});
    } else if (v.intact) {
        io.out << "intact: " << v.events << " operator events, every link holds\n";
    } else {
        io.out << "broken at event " << v.brokenAt << ": " << v.problem << "\n";
    }
    return v.intact ? 0 : 1;
}

} // namespace Zhaoxi::Cli
