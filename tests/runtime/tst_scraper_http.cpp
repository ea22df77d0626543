// SPDX-License-Identifier: GPL-3.0-or-later
// The scraper against scripted loopback servers: answers framed each way, bad answers, a body
// growing past the cap, a server dribbling past the deadline, connections closed under it. Every
// process a test starts is killed by its pid in cleanup(), whatever happened.
#include "tests/runtime/scrapertest.h"

class TestScraperHttp : public ScraperTest
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { noProxy(); }
    void cleanup() { killProcesses(); }

    void answersFramedEachWay_data()
    {
        QTest::addColumn<QList<QByteArray>>("pieces"); // what the server sends for each request
        QTest::addColumn<bool>("serverCloses");        // after each answer
        QTest::addColumn<int>("connections");          // for three scrapes

        const QByteArray chunkedHead = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
        QTest::newRow("Content-Length") << QList<QByteArray>{okAnswer()} << false << 1;
        QTest::newRow("Content-Length, in pieces")
                << QList<QByteArray>{"HTTP/1.1 200 OK\r\nContent-Len",
                                     "gth: 21\r\n\r",
                                     "\n# TYPE up gauge\n",
                                     "up 1\n"}
                << false << 1;
        QTest::newRow("chunked")
                << QList<QByteArray>{chunkedHead
                                     + "10\r\n# TYPE up gauge\n\r\n5\r\nup 1\n\r\n0\r\n\r\n"}
                << false << 1;
        QTest::newRow("chunked, extensions and trailers")
                << QList<QByteArray>{chunkedHead
                                     + "10;a=b\r\n# TYPE up gauge\n\r\n005 \r\nup 1\n\r\n0\r\n"
                                       "X-Checksum: 1\r\n\r\n"}
                << false << 1;
        QTest::newRow("chunked, in pieces") << QList<QByteArray>{"HTTP/1.1 200 OK\r\nTransfer-Enc",
                                                                 "oding: chunked\r\n\r\n1",
                                                                 "0\r\n# TYPE up gauge\n\r",
                                                                 "\n5\r\nup 1\n",
                                                                 "\r\n0\r\n",
                                                                 "\r\n"}
                                            << false << 1;
        QTest::newRow("neither: until the close")
                << QList<QByteArray>{"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n" + upBody}
                << true << 3;
        QTest::newRow("Connection: close")
                << QList<QByteArray>{okAnswer(upBody, "Connection: close\r\n")} << true << 3;
        QTest::newRow("HTTP/1.0") << QList<QByteArray>{
                "HTTP/1.0 200 OK\r\nContent-Length: 21\r\n\r\n"
                + upBody} << true << 3;
        QTest::newRow("100 Continue first")
                << QList<QByteArray>{"HTTP/1.1 100 Continue\r\n\r\n" + okAnswer()} << false << 1;
        QTest::newRow("bare LF line ends")
                << QList<QByteArray>{"HTTP/1.1 200 OK\nContent-Length: 21\n\n" + upBody} << false
                << 1;
    }

    void answersFramedEachWay()
    {
        QFETCH(QList<QByteArray>, pieces);
        QFETCH(bool, serverCloses);
        QFETCH(int, connections);
        ScriptedServer server([&](QTcpSocket *s, int, const QByteArray &) {
            writeInPieces(s, pieces, serverCloses);
        });
        Scraper scraper;
        for (int i = 0; i < 3; ++i) {
            const std::optional<Scrape> s = scrapeNow(
                    scraper, QStringLiteral("k"), url(server.port(), QStringLiteral("/m")));
            QVERIFY(s);
            QVERIFY2(s->ok(), qPrintable(s->error));
            QVERIFY2(s->metrics.errors.isEmpty(),
                     qPrintable(s->metrics.errors.value(0).toString()));
            QCOMPARE(s->metrics.samples(QStringLiteral("up")).value(0).value, 1.0);
        }
        QCOMPARE(server.requests(), 3);
        QCOMPARE(server.connections(), connections);
    }

    void badAnswersAreErrors_data()
    {
        QTest::addColumn<QByteArray>("answer");
        QTest::addColumn<bool>("serverCloses");
        QTest::addColumn<QString>("error"); // the end of the error
        QTest::addColumn<int>("status");

        QTest::newRow("not HTTP") << QByteArray("SSH-2.0-OpenSSH_9.2\r\n\r\n") << false
                                  << QStringLiteral(
                                             "not an HTTP/1.x answer: \"SSH-2.0-OpenSSH_9.2\"")
                                  << 0;
        QTest::newRow("bad Content-Length")
                << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 12x\r\n\r\n") << false
                << QStringLiteral("bad Content-Length in the answer: \"12x\"") << 200;
        QTest::newRow("bad chunk size")
                << QByteArray("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
                << false << QStringLiteral("bad chunk size in the answer: \"zz\"") << 200;
        QTest::newRow("a chunk longer than its size")
                << QByteArray("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n")
                << false << QStringLiteral("a chunk in the answer does not end where its size says")
                << 200;
        QTest::newRow("closed in the body")
                << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nup 1\n") << true
                << QStringLiteral("the server closed the connection before the answer was complete")
                << 200;
        QTest::newRow("closed without answering")
                << QByteArray() << true
                << QStringLiteral("the server closed the connection without answering") << 0;
        QTest::newRow("a redirect is not followed")
                << QByteArray("HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:1/metrics\r\n"
                              "Content-Length: 0\r\n\r\n")
                << false << QStringLiteral("HTTP 302 Found") << 302;
        QTest::newRow("404") << QByteArray("HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\n"
                                           "not here\n")
                             << false << QStringLiteral("HTTP 404 Not Found") << 404;
        QTest::newRow("a status without a reason")
                << QByteArray("HTTP/1.1 500\r\nContent-Length: 0\r\n\r\n") << false
                << QStringLiteral("HTTP 500") << 500;
        QTest::newRow("announced over the cap")
                << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: "
                              + QByteArray::number(Scraper::maxBodyBytes + 1) + "\r\n\r\n")
                << false << QStringLiteral("answer larger than %1 bytes").arg(Scraper::maxBodyBytes)
                << 200;
    }

    void badAnswersAreErrors()
    {
        QFETCH(QByteArray, answer);
        QFETCH(bool, serverCloses);
        QFETCH(QString, error);
        QFETCH(int, status);
        ScriptedServer server([&](QTcpSocket *s, int, const QByteArray &) {
            s->write(answer);
            if (serverCloses)
                s->disconnectFromHost();
        });
        Scraper scraper;
        const QUrl where = url(server.port(), QStringLiteral("/metrics"));
        const std::optional<Scrape> s = scrapeNow(scraper, QStringLiteral("k"), where);
        QVERIFY(s);
        QVERIFY(!s->ok());
        QVERIFY2(s->error.startsWith(QStringLiteral("GET ") + where.toString()
                                     + QStringLiteral(": ")),
                 qPrintable(s->error));
        QVERIFY2(s->error.endsWith(error), qPrintable(s->error));
        QCOMPARE(s->httpStatus, status);
        QVERIFY(s->metrics.families.isEmpty());
        QCOMPARE(server.requests(), 1); // not sent again, not redirected
        QCOMPARE(server.connections(), 1);

        QSignalSpy probed(&scraper, &Scraper::probed);
        scraper.probe(QStringLiteral("k"), where);
        QVERIFY(probed.wait(waitMs));
        QCOMPARE(probed.first().at(1).toBool(), false);
        QVERIFY2(probed.first().at(2).toString().endsWith(error),
                 qPrintable(probed.first().at(2).toString()));
    }

    void aBodyGrowingPastTheCapIsCut_data()
    {
        QTest::addColumn<bool>("chunked");
        QTest::newRow("chunked") << true;
        QTest::newRow("until the close") << false;
    }

    void aBodyGrowingPastTheCapIsCut()
    {
        QFETCH(bool, chunked);
        const int mib = 1024 * 1024;
        const int pieces = int(Scraper::maxBodyBytes / mib) + 1;
        const QByteArray line = QByteArray(63, 'x').prepend("# ").append('\n'); // 66 bytes
        QByteArray piece = line.repeated(mib / line.size() + 1).left(mib - 1).append('\n');
        ScriptedServer server([&](QTcpSocket *s, int, const QByteArray &) {
            s->write(chunked ? "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                             : "HTTP/1.1 200 OK\r\n\r\n");
            for (int i = 0; i < pieces; ++i) {
                if (chunked)
                    s->write(QByteArray::number(mib, 16) + "\r\n" + piece + "\r\n");
                else
                    s->write(piece);
            }
            if (chunked)
                s->write("0\r\n\r\n");
            s->disconnectFromHost();
        });
        Scraper scraper;
        const std::optional<Scrape> s = scrapeNow(
                scraper, QStringLiteral("big"), url(server.port(), QStringLiteral("/metrics")));
        QVERIFY(s);
        QVERIFY(!s->ok());
        QVERIFY2(s->error.endsWith(
                         QStringLiteral("answer larger than %1 bytes").arg(Scraper::maxBodyBytes)),
                 qPrintable(s->error));
        QCOMPARE(s->httpStatus, 200);
    }

    void aDribblingServerIsCutAtTheDeadline_data()
    {
        QTest::addColumn<QByteArray>("head"); // sent at once; then one byte every 20 ms
        QTest::addColumn<int>("status");
        QTest::newRow("in the body")
                << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n") << 200;
        QTest::newRow("in the head") << QByteArray("HTTP/1.1 200 OK\r\nX-Slow: ") << 0;
    }

    void aDribblingServerIsCutAtTheDeadline()
    {
        QFETCH(QByteArray, head);
        QFETCH(int, status);
        int dribbled = 0;
        ScriptedServer server([&](QTcpSocket *s, int, const QByteArray &) {
            s->write(head);
            auto *drip = new QTimer(s);
            connect(drip, &QTimer::timeout, s, [s, &dribbled] {
                s->write("x");
                ++dribbled;
            });
            drip->start(20);
        });
        {
            // Destroyed while the answer is still dribbling in: that must not hang either.
            Scraper scraper;
            scraper.scrape(QStringLiteral("d"), url(server.port(), QStringLiteral("/metrics")));
            QTRY_VERIFY_WITH_TIMEOUT(dribbled > 0, waitMs);
        }
        QTRY_COMPARE_WITH_TIMEOUT(server.closed(), 1, waitMs);

        Scraper scraper;
        scraper.setTimeoutMs(300);
        const int before = dribbled;
        const std::optional<Scrape> s = scrapeNow(
                scraper, QStringLiteral("d"), url(server.port(), QStringLiteral("/metrics")));
        QVERIFY(s);
        QVERIFY(!s->ok());
        QVERIFY2(s->error.endsWith(QStringLiteral("timed out after 300 ms")), qPrintable(s->error));
        QCOMPARE(s->httpStatus, status);
        QVERIFY(dribbled > before);                            // it was sending all along
        QTRY_COMPARE_WITH_TIMEOUT(server.closed(), 2, waitMs); // the scraper gave up the connection
    }

    void aKeptConnectionTheServerJustClosedIsTriedOnceMore()
    {
        // The server answers the first request of each connection and closes the connection on
        // the second one, unanswered, as a server does whose idle timeout struck just then.
        ScriptedServer server([](QTcpSocket *s, int nth, const QByteArray &) {
            if (nth == 1)
                s->write(okAnswer());
            else
                s->abort();
        });
        Scraper scraper;
        const QUrl where = url(server.port(), QStringLiteral("/metrics"));
        for (int i = 1; i <= 3; ++i) {
            const std::optional<Scrape> s = scrapeNow(scraper, QStringLiteral("k"), where);
            QVERIFY(s);
            QVERIFY2(s->ok(), qPrintable(s->error));
            QCOMPARE(server.connections(), i);
        }
        QCOMPARE(server.requests(), 5); // 1, then 2 for each later scrape
    }

    void aFreshConnectionClosedUnansweredIsNotTriedAgain()
    {
        ScriptedServer server([](QTcpSocket *s, int, const QByteArray &) { s->abort(); });
        Scraper scraper;
        const std::optional<Scrape> s = scrapeNow(
                scraper, QStringLiteral("k"), url(server.port(), QStringLiteral("/metrics")));
        QVERIFY(s);
        QVERIFY(!s->ok());
        QCOMPARE(s->httpStatus, 0);
        QCOMPARE(server.requests(), 1);
        QCOMPARE(server.connections(), 1);
    }

    void aProbeReads503AndKeepsTheConnection()
    {
        ScriptedServer server([](QTcpSocket *s, int nth, const QByteArray &) {
            if (nth == 1)
                s->write("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 12\r\n\r\nwarming "
                         "up\r\n");
            else
                s->write("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n");
        });
        Scraper scraper;
        QSignalSpy probed(&scraper, &Scraper::probed);
        const QUrl health = url(server.port(), QStringLiteral("/health"));
        scraper.probe(QStringLiteral("p"), health);
        QVERIFY(probed.wait(waitMs));
        QCOMPARE(probed.at(0).at(0).toString(), QStringLiteral("p"));
        QCOMPARE(probed.at(0).at(1).toBool(), false);
        QCOMPARE(probed.at(0).at(2).toString(),
                 QStringLiteral("GET ") + health.toString()
                         + QStringLiteral(": HTTP 503 Service Unavailable"));
        scraper.probe(QStringLiteral("p"), health);
        QVERIFY(probed.wait(waitMs));
        QCOMPARE(probed.at(1).at(1).toBool(), true);
        QCOMPARE(probed.at(1).at(2).toString(), QString());
        QCOMPARE(server.connections(), 1); // the 503's body was read to its end
    }
};

QTEST_GUILESS_MAIN(TestScraperHttp)
#include "tst_scraper_http.moc"
