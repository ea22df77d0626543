// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/trace/openbtrace.h"

#include <QTemporaryDir>
#include <QTest>

using namespace Zhaoxi::Trace;

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

QTEST_GUILESS_MAIN(tst_OpenbTrace)
#include "tst_openbtrace.moc"
