// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxictl events export | metrics, run as a user or a script would run them.
#include "core/storage/exporter.h"
#include "core/storage/store.h"
#include "tests/data/fixtures.h"

#include <QBuffer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace Zhaoxi::Storage;

namespace {

constexpr qint64 kT0 = Q_INT64_C(1714521600000); // 2024-05-01T00:00:00Z

struct Run
{
    int exitCode = -1;
    QByteArray out;
    QString err;
};

Run zhaoxictl(const QStringList &args)
{
    QProcess p;
    p.start(QStringLiteral(ZHAOXICTL_PATH), args);
    Run r;
    if (!p.waitForFinished(120000)) { // a guard against a hung child, not a performance check
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

} // namespace

class TestCmdEvents : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void exports_data();
    void exports();
    void exportToAFile();
    void exportWritesWhatTheLibraryWrites_data();
    void exportWritesWhatTheLibraryWrites();
    void exportNeverClobbersTheStoreOrALink();
    void aDamagedStoreIsExportedOnlyWithForce();
    void aStoreOnAReadOnlyFilesystemIsRead();
    void errorsNameTheFileOrOption_data();
    void errorsNameTheFileOrOption();
    void metricsInPrometheusFormat();

private:
    QTemporaryDir m_dir;
    QString m_db;
};

void TestCmdEvents::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_db = m_dir.filePath(QStringLiteral("appliance.sqlite"));
    QString err;
    auto store = Store::open(m_db, &err);
    QVERIFY2(store, qPrintable(err));
    for (int i = 0; i < 48; ++i) { // one an hour for two days
        Event e;
        e.atMs = kT0 + qint64(i) * 3600 * 1000;
        e.severity = i % 6 == 0 ? Severity::Error : Severity::Info;
        e.source = i % 4 == 0 ? Source::Operator : Source::Scheduler;
        e.code = i % 2 ? QByteArray("job-placed") : QByteArray("card-failed");
        e.card = i % 3;
        e.job = i % 5;
        if (e.source == Source::Operator)
            e.actor = QStringLiteral("管理员");
        e.params = R"({"host":1})";
        store->append(e);
    }
    MetricSample s;
    s.key = {Metric::GpuUtil, 0, -1, {}, -1};
    s.atMs = kT0;
    s.value = 37;
    s.labels = {{QStringLiteral("gpu"), QStringLiteral("0")},
                {QStringLiteral("UUID"), QStringLiteral("GPU-abc")},
                {QStringLiteral("device"), QStringLiteral("nvidia0")},
                {QStringLiteral("modelName"), QStringLiteral("NVIDIA H200")},
                {QStringLiteral("Hostname"), QStringLiteral("node-a")}};
    store->appendMetric(s);
    s.atMs = kT0 + 1000;
    s.value = 41;
    store->appendMetric(s);
    MetricSample mig;
    mig.key = {Metric::GrEngineActive, 0, 3, {}, -1};
    mig.atMs = kT0;
    mig.value = 0.5;
    mig.labels = s.labels;
    mig.labels.insert(QStringLiteral("GPU_I_PROFILE"), QStringLiteral("3g.71gb"));
    mig.labels.insert(QStringLiteral("GPU_I_ID"), QStringLiteral("3"));
    store->appendMetric(mig);
    store->appendMetric(
            MetricSample{{Metric::LatencyP99Ms, -1, -1, QStringLiteral("chat"), -1}, kT0, 85, {}});
    store->appendMetric(MetricSample{{Metric::TrainingThroughput, -1, -1, {}, 4}, kT0, 1200, {}});
    // A label value the text format must escape (\\ and \").
    store->appendMetric(MetricSample{
            {Metric::RequestRate, -1, -1, QStringLiteral("a \"b\" \\c"), -1}, kT0, 2.5, {}});
    QVERIFY(store->flush());
}

void TestCmdEvents::exports_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("rows");
    const QStringList base
            = {QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("jsonl")};
    QTest::newRow("everything") << base << 48;
    QTest::newRow("the first day, ISO with offset")
            << base
                       + QStringList{QStringLiteral("--from"),
                                     QStringLiteral("2024-05-01T08:00:00+08:00"),
                                     QStringLiteral("--to"),
                                     QStringLiteral("2024-05-02T00:00:00Z")}
            << 24;
    QTest::newRow("epoch ms") << base
                                         + QStringList{QStringLiteral("--from"),
                                                       QString::number(kT0 + 47 * 3600 * 1000)}
                              << 1;
    QTest::newRow("errors") << base
                                       + QStringList{QStringLiteral("--severity"),
                                                     QStringLiteral("error")}
                            << 8;
    QTest::newRow("operator or policy")
            << base + QStringList{QStringLiteral("--source"), QStringLiteral("operator,policy")}
            << 12;
    QTest::newRow("card 1, repeated option for jobs")
            << base
                       + QStringList{QStringLiteral("--card"),
                                     QStringLiteral("1"),
                                     QStringLiteral("--job"),
                                     QStringLiteral("1"),
                                     QStringLiteral("--job"),
                                     QStringLiteral("2")}
            << 7; // i % 3 == 1 and i % 5 in {1, 2}: i = 1, 7, 16, 22, 31, 37, 46
    QTest::newRow("a code") << base
                                       + QStringList{QStringLiteral("--code"),
                                                     QStringLiteral("card-failed")}
                            << 24;
}

void TestCmdEvents::exports()
{
    QFETCH(QStringList, args);
    QFETCH(int, rows);
    const Run r = zhaoxictl(QStringList{QStringLiteral("events")} + args
                            + QStringList{QStringLiteral("--db"), m_db});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QList<QByteArray> lines
            = r.out.isEmpty() ? QList<QByteArray>() : r.out.chopped(1).split('\n');
    QCOMPARE(lines.size(), rows);
    for (const QByteArray &line : lines)
        QVERIFY(QJsonDocument::fromJson(line).isObject());
}

void TestCmdEvents::exportToAFile()
{
    const QString out = m_dir.filePath(QStringLiteral("events.csv"));
    const Run r = zhaoxictl({QStringLiteral("events"),
                             QStringLiteral("export"),
                             QStringLiteral("--db"),
                             m_db,
                             QStringLiteral("--format"),
                             QStringLiteral("csv"),
                             QStringLiteral("--bom"),
                             QStringLiteral("--tz"),
                             QStringLiteral("Asia/Shanghai"),
                             QStringLiteral("--out"),
                             out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(r.out.isEmpty());
    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray csv = f.readAll();
    QVERIFY(csv.startsWith("\xEF\xBB\xBFid,time,epoch_ms,severity,source,code,"));
    QVERIFY(csv.contains("2024-05-01T08:00:00.000+08:00"));
    QVERIFY(csv.contains("管理员"));
    QCOMPARE(csv.count("\r\n"), 49);
}

void TestCmdEvents::exportWritesWhatTheLibraryWrites_data()
{
    QTest::addColumn<QString>("format");
    QTest::addColumn<int>("exportFormat");
    QTest::newRow("csv") << QStringLiteral("csv") << int(ExportFormat::Csv);
    QTest::newRow("jsonl") << QStringLiteral("jsonl") << int(ExportFormat::JsonLines);
}

// The events whose texts break naive writers (the export tests' fixture): the command line's
// output is the library's, byte for byte.
void TestCmdEvents::exportWritesWhatTheLibraryWrites()
{
    QFETCH(QString, format);
    QFETCH(int, exportFormat);
    const QString db = m_dir.filePath(QStringLiteral("texts.sqlite"));
    if (!QFileInfo::exists(db)) {
        QString err;
        auto store = Store::open(db, &err);
        QVERIFY2(store, qPrintable(err));
        for (const Event &e : Zhaoxi::TestData::events(QStringLiteral("events/export-texts.jsonl")))
            store->append(e);
        QVERIFY(store->flush());
    }
    QString err;
    auto reader = Reader::open(db, Reader::OpenMode::RequireCurrent, &err);
    QVERIFY2(reader, qPrintable(err));
    QBuffer expected;
    QVERIFY(expected.open(QIODevice::WriteOnly));
    ExportOptions options;
    options.format = ExportFormat(exportFormat);
    const ExportResult lib = exportEvents(*reader, {}, options, &expected);
    QVERIFY2(lib.ok, qPrintable(lib.error));
    QVERIFY(lib.rows > 0);
    const Run r = zhaoxictl({QStringLiteral("events"),
                             QStringLiteral("export"),
                             QStringLiteral("--db"),
                             db,
                             QStringLiteral("--format"),
                             format});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(r.out, expected.data());
}

// Issue 14: --out naming the store itself (or a hard link to it) is refused and the store is
// left whole; a symbolic link at --out is neither followed nor replaced; an export is the
// owner's only (0600).
void TestCmdEvents::exportNeverClobbersTheStoreOrALink()
{
    const auto exportTo = [&](const QString &out) {
        return zhaoxictl({QStringLiteral("events"),
                          QStringLiteral("export"),
                          QStringLiteral("--db"),
                          m_db,
                          QStringLiteral("--format"),
                          QStringLiteral("csv"),
                          QStringLiteral("--out"),
                          out});
    };
    const auto storeIsWhole = [&] {
        QString err;
        auto reader = Reader::open(m_db, Reader::OpenMode::RequireCurrent, &err);
        return reader && reader->countEvents({}) == 48;
    };
    const QString hardLink = m_dir.filePath(QStringLiteral("same.sqlite"));
    QVERIFY(::link(QFile::encodeName(m_db).constData(), QFile::encodeName(hardLink).constData())
            == 0);
    const QString dotted = m_dir.path() + QStringLiteral("/./sub/../appliance.sqlite");
    QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("sub")));
    for (const QString &out : {m_db, dotted, hardLink}) {
        const Run r = exportTo(out);
        QVERIFY2(r.exitCode != 0, qPrintable(out));
        QVERIFY2(r.err.contains(QStringLiteral("is the store being read")), qPrintable(r.err));
        QVERIFY(storeIsWhole());
    }
    QFile::remove(hardLink);

    const QString victim = m_dir.filePath(QStringLiteral("victim.txt"));
    QFile v(victim);
    QVERIFY(v.open(QIODevice::WriteOnly));
    v.write("keep me\n");
    v.close();
    const QString link = m_dir.filePath(QStringLiteral("link.csv"));
    QVERIFY(QFile::link(victim, link));
    const Run viaLink = exportTo(link);
    QVERIFY(viaLink.exitCode != 0);
    QVERIFY2(viaLink.err.contains(QStringLiteral("symbolic link")), qPrintable(viaLink.err));
    QVERIFY(QFileInfo(link).isSymLink());
    QVERIFY(v.open(QIODevice::ReadOnly));
    QCOMPARE(v.readAll(), QByteArray("keep me\n"));
    v.close();

    const QString out = m_dir.filePath(QStringLiteral("private.csv"));
    QCOMPARE(exportTo(out).exitCode, 0);
    struct stat st = {};
    QCOMPARE(::stat(QFile::encodeName(out).constData(), &st), 0);
    QCOMPARE(int(st.st_mode & 0777), 0600);
}

// Issue 14: a store that fails quick_check is not exported as if whole: the export says so and
// exits non-zero, unless --force (then it says so and exports what can be read).
void TestCmdEvents::aDamagedStoreIsExportedOnlyWithForce()
{
    const QString damaged = m_dir.filePath(QStringLiteral("damaged.sqlite"));
    QVERIFY(QFile::copy(m_db, damaged)); // initTestCase's store, closed: WAL checked in
    // The metric samples' root page gets an invalid page type: the events still read.
    sqlite3 *raw = nullptr;
    QCOMPARE(sqlite3_open(QFile::encodeName(damaged).constData(), &raw), SQLITE_OK);
    const auto scalar = [&](const char *sql) {
        sqlite3_stmt *st = nullptr;
        qint64 v = -1;
        if (sqlite3_prepare_v2(raw, sql, -1, &st, nullptr) == SQLITE_OK
            && sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        return v;
    };
    const qint64 pageSize = scalar("PRAGMA page_size");
    const qint64 root = scalar("SELECT rootpage FROM sqlite_master WHERE name = 'metric_samples'");
    scalar("PRAGMA journal_mode=DELETE"); // out of WAL mode: the copy is one file
    sqlite3_close(raw);
    QVERIFY(pageSize > 0 && root > 1);
    {
        QFile f(damaged);
        QVERIFY(f.open(QIODevice::ReadWrite));
        QVERIFY(f.seek((root - 1) * pageSize));
        QCOMPARE(f.write(QByteArray(1, char(0x7f))), qint64(1));
    }
    const QStringList args{QStringLiteral("events"),
                           QStringLiteral("export"),
                           QStringLiteral("--db"),
                           damaged,
                           QStringLiteral("--format"),
                           QStringLiteral("jsonl")};
    const Run refused = zhaoxictl(args);
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral("the store %1 fails its check").arg(damaged))
                     && refused.err.contains(QStringLiteral("--force")),
             qPrintable(refused.err));
    QVERIFY(refused.out.isEmpty());
    const Run forced = zhaoxictl(args + QStringList{QStringLiteral("--force")});
    QVERIFY2(forced.exitCode == 0, qPrintable(forced.err));
    QVERIFY2(forced.err.contains(
                     QStringLiteral("warning: the store %1 fails its check").arg(damaged)),
             qPrintable(forced.err));
    QCOMPARE(forced.out.count('\n'), 48);
    QVERIFY(QFile::exists(damaged)); // never moved aside by an export
}

// Issue 14: a healthy store on a read-only filesystem is read (export, metrics), never called
// unreadable, never moved aside. A WAL store needs a -shm file that cannot be made there.
void TestCmdEvents::aStoreOnAReadOnlyFilesystemIsRead()
{
    if (::geteuid() != 0)
        QSKIP("mounting a read-only filesystem needs root");
    QTemporaryDir mnt;
    QVERIFY(mnt.isValid());
    if (QProcess::execute(QStringLiteral("mount"),
                          {QStringLiteral("-t"),
                           QStringLiteral("tmpfs"),
                           QStringLiteral("-o"),
                           QStringLiteral("size=16m"),
                           QStringLiteral("tmpfs"),
                           mnt.path()})
        != 0)
        QSKIP("this machine does not let a test mount a filesystem");
    const auto unmount
            = qScopeGuard([&] { QProcess::execute(QStringLiteral("umount"), {mnt.path()}); });
    const QString db = mnt.filePath(QStringLiteral("ro.sqlite"));
    QVERIFY(QFile::copy(m_db, db)); // initTestCase's store, closed: no -wal, no -shm
    QCOMPARE(QProcess::execute(QStringLiteral("mount"),
                               {QStringLiteral("-o"), QStringLiteral("remount,ro"), mnt.path()}),
             0);
    const Run events = zhaoxictl({QStringLiteral("events"),
                                  QStringLiteral("export"),
                                  QStringLiteral("--db"),
                                  db,
                                  QStringLiteral("--format"),
                                  QStringLiteral("jsonl")});
    QVERIFY2(events.exitCode == 0, qPrintable(events.err));
    QCOMPARE(events.out.count('\n'), 48);
    const Run metrics = zhaoxictl(
            {QStringLiteral("metrics"), QStringLiteral("--db"), db, QStringLiteral("--prom")});
    QVERIFY2(metrics.exitCode == 0, qPrintable(metrics.err));
    QVERIFY(metrics.out.contains("DCGM_FI_DEV_GPU_UTIL"));
    QCOMPARE(QDir(mnt.path()).entryList(QDir::Files), QStringList{QStringLiteral("ro.sqlite")});
}

void TestCmdEvents::errorsNameTheFileOrOption_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("mentions");
    const QString db = QStringLiteral("--db");
    QTest::newRow("no subcommand")
            << QStringList{QStringLiteral("events")} << QStringLiteral("export");
    QTest::newRow("no db") << QStringList{QStringLiteral("events"),
                                          QStringLiteral("export"),
                                          QStringLiteral("--format"),
                                          QStringLiteral("csv")}
                           << QStringLiteral("--db");
    QTest::newRow("bad format") << QStringList{QStringLiteral("events"),
                                               QStringLiteral("export"),
                                               db,
                                               QStringLiteral("x.sqlite"),
                                               QStringLiteral("--format"),
                                               QStringLiteral("xml")}
                                << QStringLiteral("--format");
    QTest::newRow("bad time") << QStringList{QStringLiteral("events"),
                                             QStringLiteral("export"),
                                             db,
                                             QStringLiteral("x.sqlite"),
                                             QStringLiteral("--format"),
                                             QStringLiteral("csv"),
                                             QStringLiteral("--from"),
                                             QStringLiteral("yesterday")}
                              << QStringLiteral("--from");
    QTest::newRow("bad severity") << QStringList{QStringLiteral("events"),
                                                 QStringLiteral("export"),
                                                 db,
                                                 QStringLiteral("x.sqlite"),
                                                 QStringLiteral("--format"),
                                                 QStringLiteral("csv"),
                                                 QStringLiteral("--severity"),
                                                 QStringLiteral("loud")}
                                  << QStringLiteral("--severity");
    QTest::newRow("bom with jsonl") << QStringList{QStringLiteral("events"),
                                                   QStringLiteral("export"),
                                                   db,
                                                   QStringLiteral("x.sqlite"),
                                                   QStringLiteral("--format"),
                                                   QStringLiteral("jsonl"),
                                                   QStringLiteral("--bom")}
                                    << QStringLiteral("--bom");
    QTest::newRow("unknown option") << QStringList{QStringLiteral("events"),
                                                   QStringLiteral("export"),
                                                   QStringLiteral("--colour")}
                                    << QStringLiteral("--colour");
    QTest::newRow("missing file") << QStringList{QStringLiteral("events"),
                                                 QStringLiteral("export"),
                                                 db,
                                                 QStringLiteral("/nonexistent/x.sqlite"),
                                                 QStringLiteral("--format"),
                                                 QStringLiteral("csv")}
                                  << QStringLiteral("/nonexistent/x.sqlite");
    QTest::newRow("metrics without --prom")
            << QStringList{QStringLiteral("metrics"), db, QStringLiteral("x.sqlite")}
            << QStringLiteral("--prom");
    QTest::newRow("metrics, missing file") << QStringList{QStringLiteral("metrics"),
                                                          db,
                                                          QStringLiteral("/nonexistent/y.sqlite"),
                                                          QStringLiteral("--prom")}
                                           << QStringLiteral("/nonexistent/y.sqlite");
}

void TestCmdEvents::errorsNameTheFileOrOption()
{
    QFETCH(QStringList, args);
    QFETCH(QString, mentions);
    const Run r = zhaoxictl(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(mentions), qPrintable(r.err));
}

void TestCmdEvents::metricsInPrometheusFormat()
{
    // A corrupt file is an error naming it, and is left where it is.
    const QString bad = m_dir.filePath(QStringLiteral("corrupt.sqlite"));
    {
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(8192, 'Z'));
    }
    Run r = zhaoxictl(
            {QStringLiteral("metrics"), QStringLiteral("--db"), bad, QStringLiteral("--prom")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(bad), qPrintable(r.err));
    QVERIFY(QFile::exists(bad));

    r = zhaoxictl(
            {QStringLiteral("metrics"), QStringLiteral("--db"), m_db, QStringLiteral("--prom")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QByteArray text = r.out;
    QVERIFY2(text.contains("# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"), text.constData());
    QVERIFY2(
            text.contains(
                    R"(DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-abc",device="nvidia0",modelName="NVIDIA H200",Hostname="node-a"} 41)"),
            text.constData());
    QVERIFY2(
            text.contains(
                    R"(DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu="0",UUID="GPU-abc",device="nvidia0",modelName="NVIDIA H200",Hostname="node-a",GPU_I_PROFILE="3g.71gb",GPU_I_ID="3"} 0.5)"),
            text.constData());
    QVERIFY2(text.contains(
                     R"(zhaoxi_inference_latency_seconds{service="chat",quantile="0.99"} 0.085)"),
             text.constData());
    QVERIFY2(text.contains(R"(zhaoxi_training_throughput_samples_per_second{job_id="4"} 1200)"),
             text.constData());
    QVERIFY2(text.contains(
                     "zhaoxi_inference_requests_per_second{service=\"a \\\"b\\\" \\\\c\"} 2.5"),
             text.constData());
    // Every sample line is "name{labels} value" and every family has HELP and TYPE.
    for (const QByteArray &line : text.split('\n')) {
        if (line.isEmpty() || line.startsWith('#'))
            continue;
        const qsizetype space = line.lastIndexOf(' ');
        bool ok = false;
        line.mid(space + 1).toDouble(&ok);
        QVERIFY2(ok, line.constData());
        const QByteArray name = line.left(line.indexOf('{') >= 0 ? line.indexOf('{') : space);
        const QByteArray help = "# HELP " + name + ' ';
        const QByteArray type = "# TYPE " + name + " gauge";
        QVERIFY2(text.contains(help) && text.contains(type), name.constData());
    }
}

QTEST_GUILESS_MAIN(TestCmdEvents)
#include "tst_cmd_events.moc"
