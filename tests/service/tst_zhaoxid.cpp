// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxid as its users run it: a real process on a real socket, driven by zhaoxictl and by raw
// clients; SIGTERM leaves the work running for the next start to adopt; a user outside the
// operator group reads but cannot change; SIGKILL at random moments while commands arrive loses
// no acknowledged command and never runs one job twice.
#include "servicetest.h"

#include "core/service/audit.h"
#include "core/storage/store.h"

#include <QDirIterator>
#include <QElapsedTimer>
#include <QHash>
#include <QProcess>
#include <QRandomGenerator>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>

#include <csignal>
#include <tuple>

#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace Zhaoxi;
using namespace Zhaoxi::TestService;

namespace {

// A blocking line client for a service in another process.
class Line
{
public:
    bool open(const QString &path, int timeoutMs = 5000)
    {
        m_socket.connectToServer(path);
        return m_socket.waitForConnected(timeoutMs);
    }
    void write(const QJsonObject &request)
    {
        m_socket.write(Service::encodeLine(request)), m_socket.flush();
    }
    // The next answer (pushes skipped), or an empty object when none comes in time.
    QJsonObject read(int timeoutMs)
    {
        QElapsedTimer t;
        t.start();
        while (true) {
            const qsizetype nl = m_buffer.indexOf('\n');
            if (nl >= 0) {
                const QJsonObject m = QJsonDocument::fromJson(m_buffer.left(nl)).object();
                m_buffer.remove(0, nl + 1);
                if (!m.contains(QStringLiteral("push")))
                    return m;
                continue;
            }
            const qint64 left = timeoutMs - t.elapsed();
            if (left <= 0
                || (!m_socket.waitForReadyRead(int(left)) && m_socket.bytesAvailable() == 0))
                return {};
            m_buffer += m_socket.readAll();
        }
    }
    QJsonObject call(QJsonObject request, int timeoutMs = 20000)
    {
        request.insert(QStringLiteral("id"), ++m_id);
        write(request);
        return read(timeoutMs);
    }

private:
    QLocalSocket m_socket;
    QByteArray m_buffer;
    int m_id = 0;
};

// The live zhaoxi-shim processes whose --dir lies under `root`, by that directory. A shim's child
// between fork and exec still reads as the shim (same command line, parent that shim, its
// directory): it is the job being started, not a second shim, and is not counted.
QMap<QString, int> shimsUnder(const QString &root)
{
    struct Shim
    {
        QString dir;
        int parent = 0;
    };
    QHash<int, Shim> shims;
    QDirIterator it(QStringLiteral("/proc"), QDir::Dirs | QDir::NoDotAndDotDot);
    while (it.hasNext()) {
        it.next();
        bool ok = false;
        const int pid = it.fileName().toInt(&ok);
        if (!ok)
            continue;
        QFile f(it.filePath() + QStringLiteral("/cmdline"));
        if (!f.open(QIODevice::ReadOnly))
            continue;
        const QList<QByteArray> argv = f.readAll().split('\0');
        if (argv.isEmpty() || !argv[0].endsWith("zhaoxi-shim"))
            continue;
        const qsizetype d = argv.indexOf("--dir");
        if (d < 0 || d + 1 >= argv.size() || !argv[d + 1].startsWith(root.toUtf8()))
            continue;
        // /proc/PID/stat: "pid (comm) state ppid ...", comm may hold spaces: read after the last ')'.
        QFile st(it.filePath() + QStringLiteral("/stat"));
        if (!st.open(QIODevice::ReadOnly))
            continue;
        const QByteArray stat = st.readAll();
        const QList<QByteArray> fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
        shims.insert(pid, {QString::fromUtf8(argv[d + 1]), fields.value(1).toInt()});
    }
    QMap<QString, int> out;
    for (auto s = shims.cbegin(); s != shims.cend(); ++s) {
        const auto parent = shims.constFind(s->parent);
        if (parent == shims.cend() || parent->dir != s->dir)
            ++out[s->dir];
    }
    return out;
}

Storage::EventFilter withCodes(QList<QByteArray> codes)
{
    Storage::EventFilter f;
    f.codes = std::move(codes);
    return f;
}

Storage::EventFilter operatorOnly(QList<QByteArray> codes = {})
{
    Storage::EventFilter f = withCodes(std::move(codes));
    f.sources = {Storage::Source::Operator};
    return f;
}

} // namespace

class TestZhaoxid : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void servesItsClientsAndLeavesTheWorkRunningAtSigterm();
    void aUserOutsideTheGroupReadsButCannotChange();
    void killedAtRandomMomentsItLosesNothingAndRunsNothingTwice();
    void theSystemdUnitRunsZhaoxidAsThisBuildReadsIt();
    void badCommandLinesAreRefusedWithTheReason_data();
    void badCommandLinesAreRefusedWithTheReason();

private:
    bool start(const QStringList &extra = {});
    int ctl(const QStringList &args,
            QString *out = nullptr,
            QString *err = nullptr,
            bool asNobody = false);
    void stopWork();
    QList<Storage::Event> events(const Storage::EventFilter &f = {});
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<QProcess> m_daemon;
    QString m_socket, m_db;
};

void TestZhaoxid::initTestCase()
{
    putDemoOnPath();
}

void TestZhaoxid::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_dir->setAutoRemove(qEnvironmentVariableIsEmpty("ZHAOXI_KEEP_TEST_DIR"));
    // Other users (nobody) must reach the socket and the spec files in it.
    QVERIFY(::chmod(QFile::encodeName(m_dir->path()).constData(), 0755) == 0);
    m_socket = m_dir->filePath(QStringLiteral("zhaoxid.sock"));
    m_db = m_dir->filePath(QStringLiteral("zhaoxi.sqlite"));
}

void TestZhaoxid::cleanup()
{
    stopWork();
    if (m_daemon && m_daemon->state() != QProcess::NotRunning) {
        m_daemon->terminate();
        if (!m_daemon->waitForFinished(30000))
            m_daemon->kill();
        m_daemon->waitForFinished();
    }
    m_daemon.reset();
    // Whatever a killed daemon left running, by its PID (only our own shims, under our dir).
    for (int tries = 0; tries < 50 && !shimsUnder(m_dir->path()).isEmpty(); ++tries) {
        QDirIterator it(QStringLiteral("/proc"), QDir::Dirs | QDir::NoDotAndDotDot);
        while (it.hasNext()) {
            it.next();
            QFile f(it.filePath() + QStringLiteral("/cmdline"));
            if (f.open(QIODevice::ReadOnly) && f.readAll().contains(m_dir->path().toUtf8())
                && it.fileName().toInt() > 0)
                ::kill(-it.fileName().toInt(), SIGKILL), ::kill(it.fileName().toInt(), SIGKILL);
        }
        QTest::qWait(100);
    }
}

bool TestZhaoxid::start(const QStringList &extra)
{
    // A service that does not come up says why: its exit and the end of its log.
    const auto failed = [this] {
        QFile log(m_dir->filePath(QStringLiteral("zhaoxid.log")));
        const QByteArray text = log.open(QIODevice::ReadOnly) ? log.readAll() : QByteArray();
        qWarning("zhaoxid did not come up (%s, exit %d); its log ends:\n%s",
                 m_daemon->state() == QProcess::NotRunning ? "ended" : "still running",
                 m_daemon->state() == QProcess::NotRunning ? m_daemon->exitCode() : -1,
                 text.right(2000).constData());
        return false;
    };
    m_daemon = std::make_unique<QProcess>();
    m_daemon->setStandardOutputFile(QProcess::nullDevice());
    m_daemon->setStandardErrorFile(m_dir->filePath(QStringLiteral("zhaoxid.log")),
                                   QIODevice::Append);
    m_daemon->start(QStringLiteral(ZHAOXID_PATH),
                    QStringList{QStringLiteral("--scenario"),
                                dataPath("service.json"),
                                QStringLiteral("--db"),
                                m_db,
                                QStringLiteral("--socket"),
                                m_socket,
                                QStringLiteral("--policy"),
                                QStringLiteral("none")}
                            + extra);
    if (!m_daemon->waitForStarted())
        return failed();
    // Ready when it answers.
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 20000) {
        if (m_daemon->state() == QProcess::NotRunning)
            return failed();
        Line l;
        if (l.open(m_socket, 200)
            && l.call({{QStringLiteral("cmd"), QStringLiteral("hello")}}, 2000)
                       .value(QStringLiteral("ok"))
                       .toBool())
            return true;
        QTest::qWait(20);
    }
    return failed();
}

int TestZhaoxid::ctl(const QStringList &args, QString *out, QString *err, bool asNobody)
{
    QProcess p;
    if (asNobody) {
        p.setChildProcessModifier([] {
            // nobody:nogroup, with no supplementary groups.
            if (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0)
                ::_exit(99);
        });
    }
    // Every command but the store's own (audit verify --db) goes to this test's service.
    p.start(QStringLiteral(ZHAOXICTL_PATH),
            args.value(0) == QLatin1String("audit")
                    ? args
                    : args + QStringList{QStringLiteral("--socket"), m_socket});
    if (!p.waitForFinished(60000))
        return -1;
    if (out)
        *out = QString::fromUtf8(p.readAllStandardOutput());
    if (err)
        *err = QString::fromUtf8(p.readAllStandardError());
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

void TestZhaoxid::stopWork()
{
    if (!m_daemon || m_daemon->state() != QProcess::Running)
        return;
    Line l;
    if (!l.open(m_socket))
        return;
    const QJsonObject jobs = l.call({{QStringLiteral("cmd"), QStringLiteral("jobs")}});
    for (const QJsonValue &j :
         jobs.value(QStringLiteral("result"))[QStringLiteral("jobs")].toArray()) {
        const QString state = j[QStringLiteral("state")].toString();
        if (state == QLatin1String("running") || state == QLatin1String("pending")
            || state == QLatin1String("preempting"))
            l.call({{QStringLiteral("cmd"), QStringLiteral("cancel")},
                    {QStringLiteral("job"), j[QStringLiteral("job")].toInt()}});
    }
    QElapsedTimer t;
    t.start();
    while (!shimsUnder(m_dir->path()).isEmpty() && t.elapsed() < 20000)
        QTest::qWait(100);
}

QList<Storage::Event> TestZhaoxid::events(const Storage::EventFilter &f)
{
    QString err;
    auto reader = Storage::Reader::open(m_db, Storage::Reader::OpenMode::RequireCurrent, &err);
    if (!reader)
        qFatal("%s", qPrintable(err));
    return reader->events(f);
}

void TestZhaoxid::servesItsClientsAndLeavesTheWorkRunningAtSigterm()
{
    if (::getuid() != 0)
        QSKIP("changes need root or the operator group");
    // A free loopback port for /metrics.
    quint16 port = 0;
    {
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        port = probe.serverPort();
    }
    QVERIFY(start({QStringLiteral("--metrics-listen"), QStringLiteral("127.0.0.1:%1").arg(port)}));
    const QString spec = m_dir->filePath(QStringLiteral("spec.json"));
    {
        QFile f(spec);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QJsonDocument(trainSpec()).toJson());
    }
    QString out, err;
    QCOMPARE(ctl({QStringLiteral("submit"), spec}, &out, &err), 0);
    QCOMPARE(out.trimmed(), QStringLiteral("submitted: job 0"));
    QTRY_VERIFY_WITH_TIMEOUT(shimsUnder(m_dir->path()).size() == 1, 20000);
    QCOMPARE(ctl({QStringLiteral("jobs")}, &out, &err), 0);
    QVERIFY2(out.contains(QStringLiteral("finetune")) && out.contains(QStringLiteral("running")),
             qPrintable(out));
    QCOMPARE(
            ctl({QStringLiteral("priority"), QStringLiteral("0"), QStringLiteral("5")}, &out, &err),
            0);
    QCOMPARE(ctl({QStringLiteral("cancel"), QStringLiteral("9")}, &out, &err), 1);
    QVERIFY2(err.contains(QStringLiteral("job 9")), qPrintable(err));
    // What a schedule giving every card to inference would do: it names the running job it
    // stops, and changes nothing (the job still runs).
    const QString schedule = m_dir->filePath(QStringLiteral("schedule.json"));
    {
        QFile f(schedule);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"mode": "immediate", "windows": [
            {"name": "day", "from": "00:00", "to": "24:00", "inferenceShare": 1.0}]})");
    }
    QCOMPARE(ctl({QStringLiteral("schedule"), QStringLiteral("preview"), schedule}, &out, &err), 0);
    QVERIFY2(out.contains(QStringLiteral("-> windows (window day)"))
                     && out.contains(QStringLiteral("evicts job 0 finetune: at once")),
             qPrintable(out + err));
    QCOMPARE(ctl({QStringLiteral("jobs")}, &out, &err), 0);
    QVERIFY2(out.contains(QStringLiteral("running")), qPrintable(out));
    // A stray word on a card command is refused before anything is sent: the card is not
    // cordoned and the job keeps running.
    QCOMPARE(ctl({QStringLiteral("card"),
                  QStringLiteral("cordon"),
                  QStringLiteral("--card"),
                  QStringLiteral("0"),
                  QStringLiteral("--drain"),
                  QStringLiteral("now")},
                 &out,
                 &err),
             2);
    QVERIFY2(err.contains(QStringLiteral("card cordon: unexpected argument(s): now")),
             qPrintable(err));
    QCOMPARE(ctl({QStringLiteral("cards")}, &out, &err), 0);
    QVERIFY2(!out.contains(QStringLiteral("cordoned")), qPrintable(out));
    QCOMPARE(ctl({QStringLiteral("jobs")}, &out, &err), 0);
    QVERIFY2(out.contains(QStringLiteral("running")), qPrintable(out));
    // /metrics: the cards with dcgm-exporter's names, the queue, the appliance.
    {
        QTcpSocket http;
        http.connectToHost(QHostAddress::LocalHost, port);
        QVERIFY(http.waitForConnected(5000));
        http.write("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        QByteArray page;
        while (http.waitForReadyRead(5000))
            page += http.readAll();
        QVERIFY2(page.startsWith("HTTP/1.1 200"), page.left(200).constData());
        for (const char *name : {"DCGM_FI_DEV_GPU_TEMP{",
                                 "DCGM_FI_DEV_FB_USED{",
                                 "modelName=\"H200-141GB\"",
                                 "zhaoxi_queue_length"})
            QVERIFY2(page.contains(name), name);
    }
    // The socket may come before the command too.
    {
        QProcess p;
        p.start(QStringLiteral(ZHAOXICTL_PATH),
                {QStringLiteral("--socket"),
                 m_socket,
                 QStringLiteral("cards"),
                 QStringLiteral("--json")});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        QCOMPARE(QJsonDocument::fromJson(p.readAllStandardOutput())
                         .object()
                         .value(QStringLiteral("cards"))
                         .toArray()
                         .size(),
                 2);
    }
    const QMap<QString, int> before = shimsUnder(m_dir->path());

    // SIGTERM: exit 0, the job's process lives on.
    m_daemon->terminate();
    QVERIFY(m_daemon->waitForFinished(30000));
    QCOMPARE(m_daemon->exitStatus(), QProcess::NormalExit);
    QCOMPARE(m_daemon->exitCode(), 0);
    QCOMPARE(shimsUnder(m_dir->path()), before);
    QVERIFY(!QFileInfo::exists(m_socket));
    // The cards' readings went to the store too: the headless tool prints them with the names
    // /metrics uses.
    {
        QProcess p;
        p.start(QStringLiteral(ZHAOXICTL_PATH),
                {QStringLiteral("metrics"),
                 QStringLiteral("--db"),
                 m_db,
                 QStringLiteral("--prom")});
        QVERIFY(p.waitForFinished(30000));
        const QByteArray prom = p.readAllStandardOutput();
        QCOMPARE(p.exitCode(), 0);
        for (const char *name : {"DCGM_FI_DEV_GPU_TEMP{",
                                 "DCGM_FI_DEV_FB_USED{",
                                 "DCGM_FI_DEV_FB_FREE{",
                                 "DCGM_FI_DEV_SM_CLOCK{",
                                 "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{"})
            QVERIFY2(prom.contains(name), name);
    }

    // The next start adopts it: running, not launched again.
    QVERIFY(start());
    QTRY_VERIFY_WITH_TIMEOUT(!events(withCodes({"process-adopted"})).isEmpty(), 20000);
    QCOMPARE(events(withCodes({"process-started"})).size(), 1);
    QCOMPARE(shimsUnder(m_dir->path()), before);
    QCOMPARE(ctl({QStringLiteral("jobs"), QStringLiteral("--json")}, &out, &err), 0);
    const QJsonObject jobs = QJsonDocument::fromJson(out.toUtf8()).object();
    QCOMPARE(jobs.value(QStringLiteral("jobs"))[0][QStringLiteral("state")].toString(),
             QStringLiteral("running"));
    QCOMPARE(jobs.value(QStringLiteral("jobs"))[0][QStringLiteral("priority")].toInt(), 5);
    QCOMPARE(ctl({QStringLiteral("events"),
                  QStringLiteral("tail"),
                  QStringLiteral("--last"),
                  QStringLiteral("50")},
                 &out,
                 &err),
             0);
    QVERIFY2(out.contains(QStringLiteral("operator-submit"))
                     && out.contains(QStringLiteral("actor=root")),
             qPrintable(out));
    QVERIFY2(ctl({QStringLiteral("audit"), QStringLiteral("verify"), QStringLiteral("--db"), m_db},
                 &out,
                 &err)
                     == 0,
             qPrintable(err));
    QVERIFY2(out.startsWith(QStringLiteral("intact: 3 operator events")), qPrintable(out));
    // A clean stop and start leaves nothing without a record: no process was taken for an orphan.
    for (const Storage::Event &e : events(withCodes({"process-stopping"})))
        QVERIFY2(!e.params.contains("in no record"), e.params.constData());
}

void TestZhaoxid::aUserOutsideTheGroupReadsButCannotChange()
{
    if (::getuid() != 0)
        QSKIP("needs root to drop to nobody");
    // A group nobody is in (none by that name): only root may change things.
    const QString group = QStringLiteral("zx-test-%1").arg(::getpid());
    // (A retention of its own: taken as given.)
    QVERIFY(start({QStringLiteral("--group"),
                   group,
                   QStringLiteral("--retention"),
                   QStringLiteral("raw=2h,minute=2d,quarter-hour=90d,traces=5000")}));
    const QString spec = m_dir->filePath(QStringLiteral("spec.json"));
    {
        QFile f(spec);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QJsonDocument(trainSpec()).toJson());
        f.setPermissions(QFileDevice::ReadOwner | QFileDevice::ReadGroup | QFileDevice::ReadOther
                         | QFileDevice::WriteOwner);
    }
    QString out, err;
    QCOMPARE(ctl({QStringLiteral("cards")}, &out, &err, true), 0);
    QVERIFY2(out.contains(QStringLiteral("H200-141GB")), qPrintable(err));
    // The refusal budget refills from the first refusal on: timed from here.
    QElapsedTimer took;
    took.start();
    QCOMPARE(ctl({QStringLiteral("submit"), spec}, &out, &err, true), 1);
    QVERIFY2(err.contains(QStringLiteral("nobody may only read")) && err.contains(group),
             qPrintable(err));
    QCOMPARE(ctl({QStringLiteral("priority"), QStringLiteral("0"), QStringLiteral("1")},
                 &out,
                 &err,
                 true),
             1);
    QCOMPARE(ctl({QStringLiteral("layout"),
                  QStringLiteral("apply"),
                  QStringLiteral("--card"),
                  QStringLiteral("0"),
                  QStringLiteral("7g.40gb@0")},
                 &out,
                 &err,
                 true),
             1);
    // Every refusal is an audit event with the real author.
    const QList<Storage::Event> ops = events(operatorOnly());
    QCOMPARE(ops.size(), 3);
    for (const Storage::Event &e : ops) {
        QCOMPARE(e.actor, QStringLiteral("nobody"));
        QCOMPARE(e.severity, Storage::Severity::Warning);
        QVERIFY(QJsonDocument::fromJson(e.params)
                        .object()
                        .value(QStringLiteral("refused"))
                        .toString()
                        .contains(QStringLiteral("may only read")));
    }
    QCOMPARE(ops[0].code, QByteArray("operator-submit"));
    QCOMPARE(events(withCodes({"job-submitted"})).size(), 0);
    // A flood of refusals is recorded up to a budget (20 a minute per user, 3 spent above), then
    // said once; each is still answered.
    for (int i = 0; i < 25; ++i)
        QCOMPARE(ctl({QStringLiteral("cancel"), QStringLiteral("0")}, &out, &err, true), 1);
    // The budget refills at 20 a minute: what the time since the first refusal gave back may be
    // recorded too.
    const int refilled = int(took.elapsed() * 20 / 60'000) + 1;
    int recorded = 0, throttled = 0;
    for (const Storage::Event &e : events(operatorOnly())) {
        QCOMPARE(e.actor, QStringLiteral("nobody"));
        (e.code == "operator-refusals-throttled" ? throttled : recorded) += 1;
    }
    QCOMPARE(throttled, 1);
    QVERIFY2(recorded >= 20 && recorded <= 20 + refilled, qPrintable(QString::number(recorded)));
    // Root may (its budget is its own).
    QCOMPARE(ctl({QStringLiteral("submit"), spec}, &out, &err), 0);

    // With mode 0660 the appliance is hidden from users outside the group.
    stopWork();
    m_daemon->terminate();
    QVERIFY(m_daemon->waitForFinished(30000));
    QVERIFY(start({QStringLiteral("--group"),
                   group,
                   QStringLiteral("--socket-mode"),
                   QStringLiteral("0660")}));
    QCOMPARE(QFileInfo(m_socket).permissions() & (QFileDevice::ReadOther | QFileDevice::WriteOther),
             QFileDevice::Permissions());
    QCOMPARE(ctl({QStringLiteral("jobs")}, &out, &err, true), 2);
    QVERIFY2(err.contains(QStringLiteral("cannot connect")), qPrintable(err));
    QCOMPARE(ctl({QStringLiteral("jobs")}, &out, &err), 0);
}

void TestZhaoxid::killedAtRandomMomentsItLosesNothingAndRunsNothingTwice()
{
    if (::getuid() != 0)
        QSKIP("changes need root or the operator group");
    const int rounds = qEnvironmentVariableIntValue("ZHAOXI_KILL_ROUNDS") > 0
                               ? qEnvironmentVariableIntValue("ZHAOXI_KILL_ROUNDS")
                               : 200;
    QRandomGenerator rng(1515);
    QMap<int, QString> acked; // job -> name, every submit the service acknowledged
    QSet<int> reprioritised;
    int commands = 0;
    for (int round = 0; round < rounds; ++round) {
        QVERIFY2(start(),
                 qPrintable(QStringLiteral("round %1: the service did not come back").arg(round)));
        Line l;
        QVERIFY(l.open(m_socket));
        // Commands arrive until a random moment, then SIGKILL (a command may be in flight).
        QElapsedTimer t;
        t.start();
        const qint64 killAt = rng.bounded(400);
        int i = 0;
        while (t.elapsed() < killAt) {
            QJsonObject req;
            const QString name = QStringLiteral("r%1-%2").arg(round).arg(i++);
            if (acked.isEmpty() || rng.bounded(3) > 0) {
                QJsonObject spec = trainSpec(name, 5 + int(rng.bounded(40)));
                req = {{QStringLiteral("cmd"), QStringLiteral("submit")},
                       {QStringLiteral("spec"), spec}};
            } else {
                req = {{QStringLiteral("cmd"), QStringLiteral("priority")},
                       {QStringLiteral("job"), acked.lastKey()},
                       {QStringLiteral("priority"), int(rng.bounded(200))}};
            }
            const QJsonObject a = l.call(req, int(std::max<qint64>(1, killAt - t.elapsed())));
            ++commands;
            const QMap<QString, int> now = shimsUnder(m_dir->path());
            for (auto it = now.cbegin(); it != now.cend(); ++it)
                if (it.value() != 1 && qEnvironmentVariableIsSet("ZHAOXI_KEEP_TEST_DIR"))
                    QProcess::execute(QStringLiteral("sh"),
                                      {QStringLiteral("-c"),
                                       QStringLiteral("ps -eo pid,ppid,pgid,etimes,stat,args | "
                                                      "grep '%1' | grep -v grep > %2/ps.txt")
                                               .arg(it.key(), m_dir->path())});
            for (auto it = now.cbegin(); it != now.cend(); ++it)
                QVERIFY2(it.value() == 1,
                         qPrintable(QStringLiteral("round %1: %2 runs %3 times")
                                            .arg(round)
                                            .arg(it.key())
                                            .arg(it.value())));
            if (a.value(QStringLiteral("ok")).toBool()) {
                if (req.value(QStringLiteral("cmd")) == QLatin1String("submit"))
                    acked.insert(a.value(QStringLiteral("result"))[QStringLiteral("job")].toInt(),
                                 name);
                else
                    reprioritised.insert(req.value(QStringLiteral("job")).toInt());
            }
        }
        ::kill(pid_t(m_daemon->processId()), SIGKILL);
        QVERIFY(m_daemon->waitForFinished(10000));
        // Never two live processes for one job's rank, whatever the moment of the kill.
        const QMap<QString, int> shims = shimsUnder(m_dir->path());
        for (auto it = shims.cbegin(); it != shims.cend(); ++it)
            QVERIFY2(it.value() == 1,
                     qPrintable(QStringLiteral("round %1: %2 runs %3 times")
                                        .arg(round)
                                        .arg(it.key())
                                        .arg(it.value())));
    }
    qInfo("%d kills, %d commands sent, %d submits acknowledged",
          rounds,
          commands,
          int(acked.size()));

    QVERIFY(start());
    Line l;
    QVERIFY(l.open(m_socket));
    const QJsonArray jobs = l.call({{QStringLiteral("cmd"), QStringLiteral("jobs")}})
                                    .value(QStringLiteral("result"))[QStringLiteral("jobs")]
                                    .toArray();
    QMap<int, QString> known;
    for (const QJsonValue &j : jobs)
        known.insert(j[QStringLiteral("job")].toInt(), j[QStringLiteral("name")].toString());
    // Every acknowledged submit is in the state and in the audit trail.
    QSet<int> audited;
    for (const Storage::Event &e : events(operatorOnly({"operator-submit"}))) {
        if (QJsonDocument::fromJson(e.params).object().value(QStringLiteral("ok")).toBool())
            audited.insert(e.job);
    }
    for (auto it = acked.cbegin(); it != acked.cend(); ++it) {
        QVERIFY2(known.value(it.key()) == it.value(),
                 qPrintable(QStringLiteral("job %1 (%2) was acknowledged and lost")
                                    .arg(it.key())
                                    .arg(it.value())));
        QVERIFY2(audited.contains(it.key()),
                 qPrintable(QStringLiteral("job %1 has no audit event").arg(it.key())));
    }
    // Stopped where no record named them (their launch was lost with a killed service): the lock
    // each shim holds on its directory found them, and nothing ran beside them meanwhile (the
    // /proc checks after every command and every kill above).
    int unrecorded = 0;
    for (const Storage::Event &e : events(withCodes({"process-stopping"})))
        unrecorded += e.params.contains("in no record");
    qInfo("%d processes found running without a record and stopped", unrecorded);
    const QJsonObject verify = l.call({{QStringLiteral("cmd"), QStringLiteral("audit-verify")}});
    QVERIFY2(verify.value(QStringLiteral("result"))[QStringLiteral("intact")].toBool(),
             qPrintable(QJsonDocument(verify).toJson()));
}

// packaging/zhaoxid.service: its command line is one zhaoxid takes (here it stops at the NVML
// library, there being no driver), and it leaves the workloads running when it stops.
void TestZhaoxid::theSystemdUnitRunsZhaoxidAsThisBuildReadsIt()
{
    QFile unit(QStringLiteral(ZHAOXI_SOURCE_DIR "/packaging/zhaoxid.service"));
    QVERIFY(unit.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(unit.readAll());
    QStringList lines = text.split(QLatin1Char('\n'));
    for (const char *must : {"KillMode=process",
                             "Restart=on-failure",
                             "StateDirectory=zhaoxi",
                             "RuntimeDirectory=zhaoxi"})
        QVERIFY2(lines.contains(QLatin1String(must)), must);
    const auto exec = std::find_if(lines.cbegin(), lines.cend(), [](const QString &l) {
        return l.startsWith(QLatin1String("ExecStart="));
    });
    QVERIFY(exec != lines.cend());
    QStringList args
            = exec->mid(int(qstrlen("ExecStart="))).split(QLatin1Char(' '), Qt::SkipEmptyParts);
    QCOMPARE(args.takeFirst(), QStringLiteral("/usr/bin/zhaoxid"));
    args.replaceInStrings(QStringLiteral("/var/lib/zhaoxi"), m_dir->path());
    args.replaceInStrings(QStringLiteral("/run/zhaoxi"), m_dir->path());
    args << QStringLiteral("--nvml-library")
         << m_dir->filePath(QStringLiteral("no-libnvidia-ml.so.1"));
    QProcess p;
    p.start(QStringLiteral(ZHAOXID_PATH), args);
    QVERIFY(p.waitForFinished(30000));
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QCOMPARE(p.exitCode(), 2);
    QVERIFY2(err.startsWith(QStringLiteral("zhaoxid: --hardware: "))
                     && !err.contains(QStringLiteral("usage:")),
             qPrintable(err));
}

void TestZhaoxid::badCommandLinesAreRefusedWithTheReason_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("words");
    QTest::newRow("neither") << QStringList{QStringLiteral("--db"), QStringLiteral("x.sqlite")}
                             << "one of --scenario FILE, --hardware and --fleet slurm";
    QTest::newRow("another fleet kind") << QStringList{QStringLiteral("--fleet"),
                                                       QStringLiteral("k8s"),
                                                       QStringLiteral("--db"),
                                                       QStringLiteral("x")}
                                        << "--fleet: the only kind is slurm, got \"k8s\"";
    QTest::newRow("a fleet without its REST")
            << QStringList{QStringLiteral("--fleet"),
                           QStringLiteral("slurm"),
                           QStringLiteral("--db"),
                           QStringLiteral("x")}
            << "--fleet slurm needs --rest URL and --token-file FILE";
    QTest::newRow("a REST without a fleet") << QStringList{QStringLiteral("--scenario"),
                                                           dataPath("service.json"),
                                                           QStringLiteral("--db"),
                                                           QStringLiteral("x"),
                                                           QStringLiteral("--rest"),
                                                           QStringLiteral("http://127.0.0.1:1")}
                                            << "go with --fleet slurm";
    QTest::newRow("a fleet at a URL that is not http")
            << QStringList{QStringLiteral("--fleet"),
                           QStringLiteral("slurm"),
                           QStringLiteral("--rest"),
                           QStringLiteral("ftp://x"),
                           QStringLiteral("--token-file"),
                           QStringLiteral("t"),
                           QStringLiteral("--db"),
                           QStringLiteral("x")}
            << "is not an http:// or https:// URL";
    QTest::newRow("a fleet with a bad poll") << QStringList{QStringLiteral("--fleet"),
                                                            QStringLiteral("slurm"),
                                                            QStringLiteral("--rest"),
                                                            QStringLiteral("http://127.0.0.1:1"),
                                                            QStringLiteral("--token-file"),
                                                            QStringLiteral("t"),
                                                            QStringLiteral("--poll-ms"),
                                                            QStringLiteral("5"),
                                                            QStringLiteral("--db"),
                                                            QStringLiteral("x")}
                                             << "--poll-ms: expected 250..600000, got \"5\"";
    QTest::newRow("no store") << QStringList{QStringLiteral("--scenario"), dataPath("service.json")}
                              << "--db FILE is required";
    QTest::newRow("a bad mode") << QStringList{QStringLiteral("--scenario"),
                                               dataPath("service.json"),
                                               QStringLiteral("--db"),
                                               QStringLiteral("x"),
                                               QStringLiteral("--socket-mode"),
                                               QStringLiteral("rw")}
                                << "octal";
    QTest::newRow("a bad listen address") << QStringList{QStringLiteral("--scenario"),
                                                         dataPath("service.json"),
                                                         QStringLiteral("--db"),
                                                         QStringLiteral("x"),
                                                         QStringLiteral("--metrics-listen"),
                                                         QStringLiteral("localhost")}
                                          << "ADDR:PORT";
    QTest::newRow("an unknown policy") << QStringList{QStringLiteral("--scenario"),
                                                      dataPath("service.json"),
                                                      QStringLiteral("--db"),
                                                      QStringLiteral("x"),
                                                      QStringLiteral("--policy"),
                                                      QStringLiteral("fifo")}
                                       << "unknown policy";
    for (const auto &[row, spec, words] :
         {std::tuple{"a retention term unknown", "raw=6h,hours=3d", "unknown term \"hours\""},
          std::tuple{"a retention too short", "raw=10s", "raw: expected a duration of at least 1m"},
          std::tuple{"a retention finer than coarser", "raw=9d", "raw <= minute <= quarter-hour"},
          std::tuple{"no traces", "traces=0", "traces: expected a count"}}) {
        QTest::newRow(row) << QStringList{QStringLiteral("--scenario"),
                                          dataPath("service.json"),
                                          QStringLiteral("--db"),
                                          QStringLiteral("x"),
                                          QStringLiteral("--retention"),
                                          QLatin1String(spec)}
                           << QStringLiteral("--retention: ") + QLatin1String(words);
    }
    QTest::newRow("an unknown option")
            << QStringList{QStringLiteral("--scenaro"), QStringLiteral("x")}
            << "unexpected argument";
    QTest::newRow("a missing scenario") << QStringList{QStringLiteral("--scenario"),
                                                       QStringLiteral("/nonexistent.json"),
                                                       QStringLiteral("--db"),
                                                       QStringLiteral("x")}
                                        << "/nonexistent.json";
}

void TestZhaoxid::badCommandLinesAreRefusedWithTheReason()
{
    QFETCH(QStringList, args);
    QFETCH(QString, words);
    QProcess p;
    p.setWorkingDirectory(m_dir->path());
    p.start(QStringLiteral(ZHAOXID_PATH), args);
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 2);
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QVERIFY2(err.contains(words), qPrintable(err));
    // --help answers on stdout with exit 0.
    QProcess h;
    h.start(QStringLiteral(ZHAOXID_PATH), {QStringLiteral("--help")});
    QVERIFY(h.waitForFinished(30000));
    QCOMPARE(h.exitCode(), 0);
    QVERIFY(h.readAllStandardOutput().startsWith("usage: zhaoxid"));
}

QTEST_GUILESS_MAIN(TestZhaoxid)
#include "tst_zhaoxid.moc"
