// SPDX-License-Identifier: GPL-3.0-or-later
// Published endpoints: what the two files say, that they are replaced whole by a rename, left
// alone when nothing changed, and that a write that cannot happen is reported by file name.
#include "core/runtime/endpoints.h"

#include <QtTest>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <sys/stat.h>

using namespace Zhaoxi::Runtime;

namespace {

constexpr qint64 t0 = 1711972800000; // 2024-04-01T12:00:00.000Z

ServiceEndpoints twoServices()
{
    return {{QStringLiteral("chat"),
             {{QStringLiteral("chat-1"), QStringLiteral("127.0.0.1"), 40124, false},
              {QStringLiteral("chat-0"), QStringLiteral("127.0.0.1"), 40123, true}}},
            {QStringLiteral("embed"),
             {{QStringLiteral("embed-0"), QStringLiteral("127.0.0.1"), 40200, false}}},
            {QStringLiteral("rank-v2"),
             {{QStringLiteral("rank-v2-0"), QStringLiteral("::1"), 40300, true},
              {QStringLiteral("rank-v2-1"), QStringLiteral("127.0.0.1"), 40301, true}}}};
}

ino_t inodeOf(const QString &path)
{
    struct stat st = {};
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return 0;
    return st.st_ino;
}

QByteArray contentOf(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

} // namespace

class TestEndpoints : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void writesBothFiles()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        EndpointPublisher publisher(dir.filePath(QStringLiteral("published")));
        const EndpointPublisher::Result r = publisher.publish(twoServices(), t0);
        QVERIFY2(r.ok, qPrintable(r.error));
        QVERIFY(r.jsonWritten);
        QVERIFY(r.confWritten);
        QCOMPARE(QDir(publisher.directory()).entryList(QDir::Files | QDir::Hidden),
                 (QStringList{QStringLiteral("endpoints.json"), QStringLiteral("upstreams.conf")}));

        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(contentOf(publisher.jsonPath()), &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        const QJsonObject root = doc.object();
        QCOMPARE(root.keys(), (QStringList{QStringLiteral("services"), QStringLiteral("updated")}));
        QCOMPARE(root.value(QLatin1String("updated")).toString(),
                 QStringLiteral("2024-04-01T12:00:00.000Z"));
        const QJsonObject services = root.value(QLatin1String("services")).toObject();
        QCOMPARE(services.keys(),
                 (QStringList{QStringLiteral("chat"),
                              QStringLiteral("embed"),
                              QStringLiteral("rank-v2")}));
        const QJsonArray chat = services.value(QLatin1String("chat")).toArray();
        QCOMPARE(chat.size(), 2);
        QCOMPARE(chat.at(0).toObject(),
                 (QJsonObject{{QLatin1String("replica"), QStringLiteral("chat-0")},
                              {QLatin1String("address"), QStringLiteral("127.0.0.1")},
                              {QLatin1String("port"), 40123},
                              {QLatin1String("ready"), true}}));
        QCOMPARE(chat.at(1).toObject().value(QLatin1String("replica")).toString(),
                 QStringLiteral("chat-1"));
        QCOMPARE(chat.at(1).toObject().value(QLatin1String("ready")).toBool(), false);
        QCOMPARE(services.value(QLatin1String("embed")).toArray().size(), 1);

        // embed has no ready replica: no block; rank-v2 has a '-': a suffixed name.
        const QString rank = EndpointPublisher::upstreamName(QStringLiteral("rank-v2"));
        const QByteArray expected
                = "# Written by Zhaoxi: the ready replicas of each inference service.\n"
                  "# Replaced whenever they change; do not edit.\n"
                  "upstream zhaoxi_chat {\n"
                  "    server 127.0.0.1:40123;\n"
                  "}\n"
                  "upstream "
                  + rank.toLatin1()
                  + " {\n"
                    "    server [::1]:40300;\n"
                    "    server 127.0.0.1:40301;\n"
                    "}\n";
        QCOMPARE(contentOf(publisher.confPath()), expected);
    }

    void upstreamNames_data()
    {
        QTest::addColumn<QString>("service");
        QTest::addColumn<QString>("prefix");
        QTest::addColumn<bool>("suffixed");
        QTest::newRow("clean") << "chat"
                               << "zhaoxi_chat" << false;
        QTest::newRow("underscore and digits") << "chat_v2"
                                               << "zhaoxi_chat_v2" << false;
        QTest::newRow("dash") << "chat-a"
                              << "zhaoxi_chat_a_" << true;
        QTest::newRow("dot and space") << "my model.v1"
                                       << "zhaoxi_my_model_v1_" << true;
        QTest::newRow("not ASCII")
                << QString::fromUtf8("\xe6\x9c\x9d\xe6\x9b\xa6") << "zhaoxi____" << true;
        QTest::newRow("braces and semicolon") << "a;}{"
                                              << "zhaoxi_a____" << true;
    }

    void upstreamNames()
    {
        QFETCH(QString, service);
        QFETCH(QString, prefix);
        QFETCH(bool, suffixed);
        const QString name = EndpointPublisher::upstreamName(service);
        QVERIFY2(QRegularExpression(QStringLiteral("^[A-Za-z0-9_]+$")).match(name).hasMatch(),
                 qPrintable(name));
        QVERIFY2(name.startsWith(prefix), qPrintable(name));
        if (suffixed)
            QCOMPARE(name.size(), prefix.size() + 8);
        else
            QCOMPARE(name, prefix);
        QCOMPARE(EndpointPublisher::upstreamName(service), name); // stable
    }

    void sanitisedNamesDoNotCollide()
    {
        QVERIFY(EndpointPublisher::upstreamName(QStringLiteral("chat-a"))
                != EndpointPublisher::upstreamName(QStringLiteral("chat_a")));
        QVERIFY(EndpointPublisher::upstreamName(QStringLiteral("chat-a"))
                != EndpointPublisher::upstreamName(QStringLiteral("chat.a")));
    }

    void unchangedContentIsNotRewritten()
    {
        QTemporaryDir dir;
        EndpointPublisher publisher(dir.path());
        QVERIFY(publisher.publish(twoServices(), t0).ok);
        const ino_t jsonInode = inodeOf(publisher.jsonPath());
        const ino_t confInode = inodeOf(publisher.confPath());
        const QByteArray json = contentOf(publisher.jsonPath());
        QVERIFY(jsonInode != 0 && confInode != 0);

        // Later, the same services (in another order): nothing written, "updated" kept.
        ServiceEndpoints same = twoServices();
        std::reverse(same[QStringLiteral("chat")].begin(), same[QStringLiteral("chat")].end());
        const EndpointPublisher::Result r = publisher.publish(same, t0 + 60000);
        QVERIFY(r.ok);
        QVERIFY(!r.jsonWritten);
        QVERIFY(!r.confWritten);
        QCOMPARE(inodeOf(publisher.jsonPath()), jsonInode);
        QCOMPARE(inodeOf(publisher.confPath()), confInode);
        QCOMPARE(contentOf(publisher.jsonPath()), json);

        // A publisher started afresh on the same directory finds the files current too.
        EndpointPublisher again(dir.path());
        const EndpointPublisher::Result r2 = again.publish(twoServices(), t0 + 120000);
        QVERIFY(!r2.jsonWritten);
        QVERIFY(!r2.confWritten);

        // A replica that is not ready changes endpoints.json only.
        ServiceEndpoints more = twoServices();
        more[QStringLiteral("embed")].append(
                {QStringLiteral("embed-1"), QStringLiteral("127.0.0.1"), 40201, false});
        const EndpointPublisher::Result r3 = publisher.publish(more, t0 + 180000);
        QVERIFY(r3.ok);
        QVERIFY(r3.jsonWritten);
        QVERIFY(!r3.confWritten);
        QCOMPARE(inodeOf(publisher.confPath()), confInode);
        QVERIFY(contentOf(publisher.jsonPath()).contains("2024-04-01T12:03:00.000Z"));
    }

    void filesAreReplacedWholeByARename()
    {
        QTemporaryDir dir;
        EndpointPublisher publisher(dir.path());
        QVERIFY(publisher.publish(twoServices(), t0).ok);
        const QByteArray oldJson = contentOf(publisher.jsonPath());
        const QByteArray oldConf = contentOf(publisher.confPath());
        const ino_t jsonInode = inodeOf(publisher.jsonPath());
        // A reader that opened the old files keeps reading them, complete, after the update.
        QFile oldJsonReader(publisher.jsonPath());
        QFile oldConfReader(publisher.confPath());
        QVERIFY(oldJsonReader.open(QIODevice::ReadOnly));
        QVERIFY(oldConfReader.open(QIODevice::ReadOnly));

        ServiceEndpoints changed = twoServices();
        changed[QStringLiteral("embed")].first().ready = true;
        const EndpointPublisher::Result r = publisher.publish(changed, t0 + 1000);
        QVERIFY2(r.ok, qPrintable(r.error));
        QVERIFY(r.jsonWritten);
        QVERIFY(r.confWritten);
        QVERIFY(inodeOf(publisher.jsonPath()) != jsonInode);
        QCOMPARE(oldJsonReader.readAll(), oldJson);
        QCOMPARE(oldConfReader.readAll(), oldConf);
        QVERIFY(contentOf(publisher.confPath())
                        .contains("upstream zhaoxi_embed {\n    server 127.0.0.1:40200;\n}\n"));
        QVERIFY(contentOf(publisher.jsonPath()).contains("2024-04-01T12:00:01.000Z"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 2); // no temp left
    }

    void noServicesIsAValidPublication()
    {
        QTemporaryDir dir;
        EndpointPublisher publisher(dir.path());
        QVERIFY(publisher.publish({}, t0).ok);
        QCOMPARE(QJsonDocument::fromJson(contentOf(publisher.jsonPath()))
                         .object()
                         .value(QLatin1String("services"))
                         .toObject(),
                 QJsonObject());
        QVERIFY(!contentOf(publisher.confPath()).contains("upstream"));
    }

    void aDirectoryThatCannotBeMadeIsReported()
    {
        QTemporaryDir dir;
        QFile blocker(dir.filePath(QStringLiteral("plainfile")));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        const QString target = dir.filePath(QStringLiteral("plainfile/endpoints"));
        EndpointPublisher publisher(target);
        const EndpointPublisher::Result r = publisher.publish(twoServices(), t0);
        QVERIFY(!r.ok);
        QVERIFY(!r.jsonWritten && !r.confWritten);
        QCOMPARE(r.error, QStringLiteral("cannot create the directory ") + target);
    }

    void anUnwritableFileIsReportedByNameAndNothingIsHalfDone()
    {
        QTemporaryDir dir;
        EndpointPublisher publisher(dir.path());
        // endpoints.json is a directory here: it cannot be replaced by a file (as root too,
        // which ignores permission bits).
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("endpoints.json")));
        const EndpointPublisher::Result r = publisher.publish(twoServices(), t0);
        QVERIFY(!r.ok);
        QVERIFY2(r.error.startsWith(QStringLiteral("cannot write ") + publisher.jsonPath()),
                 qPrintable(r.error));
        QVERIFY(!QFile::exists(publisher.confPath())); // the other file was not written alone
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList());
    }

    void badEndpointsAreRefusedBeforeWriting_data()
    {
        QTest::addColumn<QString>("replica");
        QTest::addColumn<QString>("address");
        QTest::addColumn<int>("port");
        QTest::addColumn<QString>("error");
        QTest::newRow("port 0") << "chat-0"
                                << "127.0.0.1" << 0
                                << "service chat, replica 'chat-0': port 0 is not in 1..65535";
        QTest::newRow("port too big")
                << "chat-0"
                << "127.0.0.1" << 70000
                << "service chat, replica 'chat-0': port 70000 is not in 1..65535";
        QTest::newRow("directive in the address") << "chat-0"
                                                  << "127.0.0.1; include /etc/passwd" << 80
                                                  << "service chat, replica 'chat-0': address "
                                                     "'127.0.0.1; include /etc/passwd' is not "
                                                     "an IP address or host name";
        QTest::newRow("empty address") << "chat-0"
                                       << "" << 80
                                       << "service chat, replica 'chat-0': address '' is not an IP "
                                          "address or host name";
        QTest::newRow("empty replica")
                << ""
                << "127.0.0.1" << 80 << "service chat, replica '': empty replica name";
    }

    void badEndpointsAreRefusedBeforeWriting()
    {
        QFETCH(QString, replica);
        QFETCH(QString, address);
        QFETCH(int, port);
        QFETCH(QString, error);
        QTemporaryDir dir;
        EndpointPublisher publisher(dir.path());
        const EndpointPublisher::Result r = publisher.publish(
                {{QStringLiteral("chat"), {{replica, address, port, true}}}}, t0);
        QVERIFY(!r.ok);
        QCOMPARE(r.error, error);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList());
    }
};

QTEST_GUILESS_MAIN(TestEndpoints)
#include "tst_endpoints.moc"
