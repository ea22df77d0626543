// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/trace/openbtrace.h"
#include "core/trace/protocol.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

using namespace Zhaoxi::Trace;

namespace {

// Writes `csv` to `name` in `dir`; returns its path (empty when it could not be written).
QString writeFile(const QTemporaryDir &dir, const QString &name, const QByteArray &csv)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(csv) != csv.size())
        return {};
    return path;
}

// The pods of the minimal-column tests, as the reader must return them.
QList<PodRecord> minimalPods()
{
    return {
            PodRecord{QStringLiteral("pod-share"), 6000, 12288, 1, 460, {}},
            PodRecord{QStringLiteral("pod-gang"), 88000, 131072, 8, 1000, {}},
            PodRecord{QStringLiteral("pod-cpu"), 8000, 30517, 0, 0, {}},
            PodRecord{QStringLiteral("pod-over"), 4000, 2048, 2, 1500, {}},
    };
}

// minimalPods() as a CSV with the columns of `header` in that order; columns the pod does not
// have get a filler value.
QByteArray minimalCsv(const QList<QByteArray> &header)
{
    QByteArray csv = header.join(',') + '\n';
    for (const PodRecord &p : minimalPods()) {
        QList<QByteArray> fields;
        for (const QByteArray &column : header) {
            if (column == "name")
                fields << p.name.toUtf8();
            else if (column == "cpu_milli")
                fields << QByteArray::number(p.cpuMilli);
            else if (column == "memory_mib")
                fields << QByteArray::number(p.memoryMiB);
            else if (column == "num_gpu")
                fields << QByteArray::number(p.numGpu);
            else if (column == "gpu_milli")
                fields << QByteArray::number(p.gpuMilli);
            else
                fields << "7"; // an unknown column, or one the reader never reads
        }
        csv += fields.join(',') + '\n';
    }
    return csv;
}

// Where the real openb files are: $ZHAOXI_OPENB_DATA, else ../shared/data beside the source tree
// (ctest sets $ZHAOXI_SOURCE_DIR). Empty when neither is set.
QString openbDataDir()
{
    const QString dir = qEnvironmentVariable("ZHAOXI_OPENB_DATA");
    if (!dir.isEmpty())
        return dir;
    const QString source = qEnvironmentVariable("ZHAOXI_SOURCE_DIR");
    return source.isEmpty() ? QString() : QDir(source).filePath(QStringLiteral("../shared/data"));
}

} // namespace

class tst_OpenbTrace : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void readsNodes();
    void readsPods();
    void podRequestRules_data();
    void podRequestRules();
    void badRows_data();
    void badRows();
    void readsFiles();
    void missingFile();
    void readsPodsWithoutOptionalColumns_data();
    void readsPodsWithoutOptionalColumns();
    void refusesMissingRequiredColumns_data();
    void refusesMissingRequiredColumns();
    void readsRealPodFiles_data();
    void readsRealPodFiles();
};

void tst_OpenbTrace::readsNodes()
{
    // Columns in any order, extra columns ignored, CRLF line ends, a trailing blank line.
    const QByteArray csv = "model,gpu,extra,sn,cpu_milli,memory_mib\r\n"
                           "V100M16,8,x,node-b,96000,393216\r\n"
                           ",0,y,node-a,32000,65536\r\n"
                           "\r\n";
    TraceError e;
    const auto nodes = parseNodes(csv, QStringLiteral("nodes.csv"), &e);
    QVERIFY2(nodes, qPrintable(e.toString()));
    QCOMPARE(nodes->size(), 2);
    QCOMPARE(nodes->at(0),
             (NodeRecord{QStringLiteral("node-b"), 96000, 393216, 8, QStringLiteral("V100M16")}));
    QCOMPARE(nodes->at(1).gpus, 0);
    QVERIFY(nodes->at(1).model.isEmpty());
}

void tst_OpenbTrace::readsPods()
{
    const QByteArray csv
            = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
              "deletion_time,scheduled_time\n"
              "pod-0,12000,16384,1,1000,,LS,Running,0,12537496,0\n"
              "pod-1,6000,12288,1,460,V100M16|V100M32,LS,Running,427061,12902960,427061\n"
              "pod-2,88000,131072,8,1000,,BE,Running,1,2,3\n"
              "\"pod-3\",8000,30517,0,0,,BE,Running,1,2,3\n";
    TraceError e;
    const auto pods = parsePods(csv, QStringLiteral("pods.csv"), &e);
    QVERIFY2(pods, qPrintable(e.toString()));
    QCOMPARE(pods->size(), 4);
    QCOMPARE(pods->at(1).gpuSpec, QStringLiteral("V100M16|V100M32"));
    QCOMPARE(pods->at(1).models(),
             (QStringList{QStringLiteral("V100M16"), QStringLiteral("V100M32")}));
    QCOMPARE(pods->at(2).gpuDemand(), 8000);
    QCOMPARE(pods->at(3).name, QStringLiteral("pod-3"));
    QCOMPARE(pods->at(3).gpuDemand(), 0);
}

void tst_OpenbTrace::podRequestRules_data()
{
    QTest::addColumn<int>("numGpu");
    QTest::addColumn<int>("gpuMilli");
    QTest::addColumn<QString>("spec");
    QTest::addColumn<int>("milli");
    QTest::addColumn<qint64>("demand");
    QTest::addColumn<QStringList>("models");
    QTest::newRow("share") << 1 << 460 << "" << 460 << qint64(460) << QStringList{};
    QTest::newRow("over 1000 is cut to a whole card")
            << 2 << 1500 << "" << 1000 << qint64(2000) << QStringList{};
    QTest::newRow("gpu_milli 0 asks for no share")
            << 1 << 0 << "T4" << 0 << qint64(0) << QStringList{"T4"};
    QTest::newRow("no GPU: no share and no model, whatever the columns say")
            << 0 << 500 << "T4" << 0 << qint64(0) << QStringList{};
    QTest::newRow("empty model parts dropped")
            << 1 << 1000 << "|G2||T4|" << 1000 << qint64(1000) << QStringList{"G2", "T4"};
}

void tst_OpenbTrace::podRequestRules()
{
    QFETCH(int, numGpu);
    QFETCH(int, gpuMilli);
    QFETCH(QString, spec);
    PodRecord p;
    p.numGpu = numGpu;
    p.gpuMilli = gpuMilli;
    p.gpuSpec = spec;
    QTEST(p.milliPerCard(), "milli");
    QTEST(p.gpuDemand(), "demand");
    QTEST(p.models(), "models");
}

void tst_OpenbTrace::badRows_data()
{
    QTest::addColumn<bool>("pods");
    QTest::addColumn<QByteArray>("csv");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("column");
    QTest::addColumn<QString>("message");
    const QByteArray podHeader = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n";
    const QByteArray nodeHeader = "sn,cpu_milli,memory_mib,gpu,model\n";
    QTest::newRow("not an integer")
            << true << (podHeader + "p0,1000,10,1,500,\np1,1x00,10,1,500,\n") << 3 << "cpu_milli"
            << "'1x00' is not an integer";
    QTest::newRow("negative") << true << (podHeader + "p0,1000,-10,1,500,\n") << 2 << "memory_mib"
                              << "-10 is negative";
    QTest::newRow("too many fields") << true << (podHeader + "p0,1000,10,1,500,,extra\n") << 2 << ""
                                     << "7 fields, the header has 6";
    QTest::newRow("too few fields") << true << (podHeader + "\np0,1000,10\n") << 3 << ""
                                    << "3 fields, the header has 6";
    QTest::newRow("duplicate pod")
            << true << (podHeader + "p0,1,1,0,0,\np0,1,1,0,0,\n") << 3 << "name"
            << "pod 'p0' listed twice";
    QTest::newRow("empty name") << true << (podHeader + " ,1,1,0,0,\n") << 2 << "name"
                                << "empty pod name";
    QTest::newRow("missing column")
            << true << QByteArray("name,cpu_milli,memory_mib,num_gpu,gpu_spec\n") << 1
            << "gpu_milli"
            << "required column missing from the header";
    QTest::newRow("empty file") << true << QByteArray("\n\n") << 0 << ""
                                << "empty file: no header";
    QTest::newRow("unterminated quote") << true << (podHeader + "\"p0,1,1,0,0,\n") << 2 << ""
                                        << "unterminated quote";
    QTest::newRow("GPU count out of range")
            << false << (nodeHeader + "n0,1000,10,65,G2\n") << 2 << "gpu"
            << "65 is larger than 64";
    QTest::newRow("node without model") << false << (nodeHeader + "n0,1000,10,2,\n") << 2 << "model"
                                        << "a node with GPUs needs a model";
    QTest::newRow("duplicate node")
            << false << (nodeHeader + "n0,1,1,0,\nn1,1,1,0,\nn0,1,1,0,\n") << 4 << "sn"
            << "node 'n0' listed twice";
}

void tst_OpenbTrace::badRows()
{
    QFETCH(bool, pods);
    QFETCH(QByteArray, csv);
    TraceError e;
    const bool ok = pods ? parsePods(csv, QStringLiteral("t.csv"), &e).has_value()
                         : parseNodes(csv, QStringLiteral("t.csv"), &e).has_value();
    QVERIFY(!ok); // nothing half-loaded: no records at all
    QCOMPARE(e.file, QStringLiteral("t.csv"));
    QTEST(e.line, "line");
    QTEST(e.column, "column");
    QTEST(e.message, "message");
    QVERIFY(e.toString().startsWith(QStringLiteral("t.csv")));
}

void tst_OpenbTrace::readsFiles()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("pods.csv"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\np0,1000,10,1,500,\np1,1000,10,1,"
            "abc,\n");
    f.close();
    TraceError e;
    QVERIFY(!readPods(path, &e));
    QCOMPARE(e.toString(),
             path + QStringLiteral(":3: column 'gpu_milli': 'abc' is not an integer"));
}

void tst_OpenbTrace::missingFile()
{
    TraceError e;
    QVERIFY(!readNodes(QStringLiteral("/nonexistent/nodes.csv"), &e));
    QCOMPARE(e.line, 0);
    QVERIFY(e.message.startsWith(QStringLiteral("cannot open")));
}

void tst_OpenbTrace::readsPodsWithoutOptionalColumns_data()
{
    QTest::addColumn<QList<QByteArray>>("header");
    QTest::newRow("the five required columns")
            << QList<QByteArray>{"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"};
    QTest::newRow("reversed") << QList<QByteArray>{
            "gpu_milli", "num_gpu", "memory_mib", "cpu_milli", "name"};
    QTest::newRow("shuffled") << QList<QByteArray>{
            "memory_mib", "name", "gpu_milli", "cpu_milli", "num_gpu"};
    QTest::newRow("shuffled, with times, qos and unknown columns")
            << QList<QByteArray>{"qos",
                                 "num_gpu",
                                 "owner",
                                 "name",
                                 "creation_time",
                                 "gpu_milli",
                                 "cpu_milli",
                                 "memory_mib",
                                 "deletion_time"};
}

void tst_OpenbTrace::readsPodsWithoutOptionalColumns()
{
    QFETCH(QList<QByteArray>, header);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = writeFile(dir, QStringLiteral("pods.csv"), minimalCsv(header));
    QVERIFY(!path.isEmpty());
    TraceError e;
    const auto pods = readPods(path, &e);
    QVERIFY2(pods, qPrintable(e.toString()));
    // In file order, with the demands as written and gpu_spec empty.
    QCOMPARE(*pods, minimalPods());
    const PodRecord &share = pods->at(0), &gang = pods->at(1), &cpu = pods->at(2),
                    &over = pods->at(3);
    QCOMPARE(share.milliPerCard(), 460);
    QCOMPARE(share.gpuDemand(), 460);
    QCOMPARE(gang.cards(), 8);
    QCOMPARE(gang.gpuDemand(), 8000);
    QCOMPARE(cpu.gpuDemand(), 0);
    QCOMPARE(over.milliPerCard(), 1000);
    QCOMPARE(over.gpuDemand(), 2000);
    // No gpu_spec: any model will do, for the protocol's request too.
    for (const PodRecord &p : *pods) {
        QVERIFY(p.gpuSpec.isEmpty());
        QVERIFY(p.models().isEmpty());
        QVERIFY(specOf(p).affinity.cardModels.isEmpty());
    }
    QCOMPARE(specOf(share).demand.cards, 1);
    QCOMPARE(specOf(share).demand.compute.milli, 460);
    QCOMPARE(specOf(gang).demand.cards, 8);
    QCOMPARE(specOf(cpu).demand.cards, 0);
    QCOMPARE(specOf(over).demand.hostMemoryMiB, 2048);
}

void tst_OpenbTrace::refusesMissingRequiredColumns_data()
{
    QTest::addColumn<bool>("pods");
    QTest::addColumn<QByteArray>("header");
    QTest::addColumn<QString>("column");
    QTest::addColumn<QString>("message");
    const QString one = QStringLiteral("required column missing from the header");
    QTest::newRow("num_gpu, no gpu_spec either")
            << true << QByteArray("name,cpu_milli,memory_mib,gpu_milli") << "num_gpu" << one;
    QTest::newRow("num_gpu, every other column there")
            << true
            << QByteArray("name,cpu_milli,memory_mib,gpu_milli,gpu_spec,qos,pod_phase,"
                          "creation_time,deletion_time,scheduled_time")
            << "num_gpu" << one;
    QTest::newRow("name: matched whole, not as a part")
            << true << QByteArray("pod_name,cpu_milli,memory_mib,num_gpu,gpu_milli") << "name"
            << one;
    QTest::newRow("two columns, both named")
            << true << QByteArray("gpu_milli,name,memory_mib") << "cpu_milli"
            << "required columns missing from the header: cpu_milli, num_gpu";
    QTest::newRow("only optional and unknown columns")
            << true << QByteArray("gpu_spec,qos,creation_time") << "name"
            << "required columns missing from the header: name, cpu_milli, memory_mib, num_gpu, "
               "gpu_milli";
    QTest::newRow("host without model")
            << false << QByteArray("sn,gpu,cpu_milli,memory_mib") << "model" << one;
}

void tst_OpenbTrace::refusesMissingRequiredColumns()
{
    QFETCH(bool, pods);
    QFETCH(QByteArray, header);
    QFETCH(QString, column);
    QFETCH(QString, message);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // Rows that would read well under a complete header: the header alone is refused.
    const QString path
            = writeFile(dir, QStringLiteral("trace.csv"), header + "\na,1,2,3\nb,4,5,6\n");
    QVERIFY(!path.isEmpty());
    TraceError e;
    const bool ok = pods ? readPods(path, &e).has_value() : readNodes(path, &e).has_value();
    QVERIFY(!ok);
    QCOMPARE(e.file, path);
    QCOMPARE(e.line, 1);
    QCOMPARE(e.column, column);
    QCOMPARE(e.message, message);
    QCOMPARE(e.toString(), path + QStringLiteral(":1: column '%1': %2").arg(column, message));
}

void tst_OpenbTrace::readsRealPodFiles_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("count");
    QTest::addColumn<qint64>("demand");
    // Counts of the published files; the GPU demand of each is protocol 3.3's 6,086,800.
    QTest::newRow("default") << "openb_pod_list_default.csv" << 8152 << qint64(6086800);
    QTest::newRow("cpu050") << "openb_pod_list_cpu050.csv" << 7439 << qint64(6086800);
    QTest::newRow("cpu100") << "openb_pod_list_cpu100.csv" << 7853 << qint64(6086800);
    QTest::newRow("cpu200") << "openb_pod_list_cpu200.csv" << 8832 << qint64(6086800);
    QTest::newRow("cpu250") << "openb_pod_list_cpu250.csv" << 9420 << qint64(6086800);
}

void tst_OpenbTrace::readsRealPodFiles()
{
    QFETCH(QString, file);
    const QString dataDir = openbDataDir();
    const QString path = QDir(dataDir).filePath(file);
    if (dataDir.isEmpty())
        QSKIP("no openb data folder: set ZHAOXI_OPENB_DATA to it (the files are never part of "
              "the project)");
    if (!QFile::exists(path))
        QSKIP(qPrintable(path
                         + QStringLiteral(" not found: set ZHAOXI_OPENB_DATA to the folder "
                                          "of the openb files")));
    TraceError e;
    const auto full = readPods(path, &e);
    QVERIFY2(full, qPrintable(e.toString()));
    QTEST(int(full->size()), "count");
    qint64 demand = 0;
    for (const PodRecord &p : *full)
        demand += p.gpuDemand();
    QTEST(demand, "demand");

    // The same file cut down to the five required columns, shuffled, reads the same pods but
    // for gpu_spec, which becomes "any model".
    QFile in(path);
    QVERIFY(in.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = in.readAll().split('\n');
    const QList<QByteArray> header = lines.first().trimmed().split(',');
    const QList<QByteArray> keep{"gpu_milli", "name", "num_gpu", "memory_mib", "cpu_milli"};
    QList<qsizetype> at;
    for (const QByteArray &column : keep) {
        at << header.indexOf(column);
        QVERIFY(at.last() >= 0);
    }
    QByteArray cut = keep.join(',') + '\n';
    for (qsizetype i = 1; i < lines.size(); ++i) {
        if (lines[i].trimmed().isEmpty())
            continue;
        const QList<QByteArray> fields = lines[i].trimmed().split(',');
        QCOMPARE(fields.size(), header.size());
        QList<QByteArray> out;
        for (qsizetype k : std::as_const(at))
            out << fields[k];
        cut += out.join(',') + '\n';
    }
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString cutPath = writeFile(dir, file, cut);
    QVERIFY(!cutPath.isEmpty());
    const auto minimal = readPods(cutPath, &e);
    QVERIFY2(minimal, qPrintable(e.toString()));
    QList<PodRecord> expected = *full;
    for (PodRecord &p : expected)
        p.gpuSpec.clear();
    QCOMPARE(*minimal, expected);
}

QTEST_GUILESS_MAIN(tst_OpenbTrace)
#include "tst_openbtrace.moc"
