// SPDX-License-Identifier: GPL-3.0-or-later
// The zhaoxi console binary, run as a user or a script would: help, screenshots, bad input, and
// a machine without a display (it must say so and exit, never crash or hang).
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QProcessEnvironment>
#include <QSet>
#include <QSize>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Run
{
    int exitCode = -1; // -1: crashed or hung
    QString out;
    QString err;
};

// The environment of a machine without a display: no X11, no Wayland, no platform chosen.
QProcessEnvironment headless()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    return env;
}

Run zhaoxi(const QStringList &args, const QProcessEnvironment &env = headless())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(ZHAOXI_PATH), args);
    Run r;
    // A guard against a hung child, not a performance expectation.
    if (!p.waitForFinished(120000)) {
        p.kill();
        p.waitForFinished();
        r.err = QStringLiteral("zhaoxi did not finish");
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

} // namespace

class TestZhaoxi : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void help();
    void noDisplay();
    void unreachableDisplay();
    void screenshot_data();
    void screenshot();
    void usageErrors_data();
    void usageErrors();
    void badApplianceFile();
};

void TestZhaoxi::help()
{
    const Run r = zhaoxi({QStringLiteral("--help")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.startsWith(QStringLiteral("usage: zhaoxi")));
    QVERIFY(r.out.contains(QStringLiteral("--screenshot FILE")));
}

void TestZhaoxi::noDisplay()
{
    const Run r = zhaoxi({});
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err,
             QStringLiteral("zhaoxi: no display found; run under X11/Wayland, set "
                            "QT_QPA_PLATFORM=offscreen, or use --screenshot FILE\n"));
}

void TestZhaoxi::unreachableDisplay()
{
    // A display that is named but not there: Qt's platform plugin gives up; the console must
    // still exit with its own message rather than abort.
    QProcessEnvironment env = headless();
    env.insert(QStringLiteral("DISPLAY"), QStringLiteral(":9731"));
    const Run r = zhaoxi({}, env);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.endsWith(QStringLiteral("zhaoxi: cannot open a window; run under X11/Wayland, "
                                           "set QT_QPA_PLATFORM=offscreen, or use --screenshot "
                                           "FILE\n")),
             qPrintable(r.err));
}

void TestZhaoxi::screenshot_data()
{
    QTest::addColumn<QString>("lang");
    QTest::addColumn<QString>("at");
    QTest::addColumn<QSize>("size"); // invalid: the window's own
    QTest::newRow("en, start of the day") << QStringLiteral("en") << QString() << QSize();
    QTest::newRow("zh_CN, start of the day") << QStringLiteral("zh_CN") << QString() << QSize();
    QTest::newRow("en, day") << QStringLiteral("en") << QStringLiteral("10:30") << QSize();
    QTest::newRow("zh_CN, night") << QStringLiteral("zh_CN") << QStringLiteral("23:30") << QSize();
    QTest::newRow("en, a laptop's screen")
            << QStringLiteral("en") << QStringLiteral("10:30") << QSize(1366, 768);
    QTest::newRow("zh_CN, 1280x720")
            << QStringLiteral("zh_CN") << QStringLiteral("10:30") << QSize(1280, 720);
}

void TestZhaoxi::screenshot()
{
    QFETCH(QString, lang);
    QFETCH(QString, at);
    QFETCH(QSize, size);
    // Kept in the build tree (screenshots/), so a run leaves the console's pictures to look at.
    QDir().mkpath(QStringLiteral("screenshots"));
    const QString png
            = QFileInfo(QStringLiteral("screenshots/console-%1%2.png")
                                .arg(lang,
                                     (at.isEmpty() ? QString()
                                                   : QLatin1Char('-')
                                                             + QString(at).remove(QLatin1Char(':')))
                                             + (size.isValid() ? QStringLiteral("-%1x%2")
                                                                         .arg(size.width())
                                                                         .arg(size.height())
                                                               : QString())))
                      .absoluteFilePath();
    QFile::remove(png);
    // No display and no platform chosen: --screenshot renders offscreen by itself.
    QStringList args{QStringLiteral("--lang"), lang, QStringLiteral("--screenshot"), png};
    if (!at.isEmpty())
        args << QStringLiteral("--at") << at;
    if (size.isValid())
        args << QStringLiteral("--size")
             << QStringLiteral("%1x%2").arg(size.width()).arg(size.height());
    const Run r = zhaoxi(args);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(QFile::exists(png));
    QVERIFY(QFileInfo(png).size() > 0);
    const QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY2(image.width() >= 800 && image.height() >= 500,
             qPrintable(QStringLiteral("%1x%2").arg(image.width()).arg(image.height())));
    if (size.isValid()) // the window fits that screen: nothing forced it larger
        QCOMPARE(image.size(), size);
    // Something was drawn: a blank frame has one colour.
    QSet<QRgb> colours;
    for (int y = 0; y < image.height() && colours.size() < 3; y += 7) {
        for (int x = 0; x < image.width() && colours.size() < 3; x += 7)
            colours.insert(image.pixel(x, y));
    }
    QVERIFY(colours.size() >= 3);
}

void TestZhaoxi::usageErrors_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown option") << QStringList{"--frobnicate"} << "Unknown option";
    QTest::newRow("unknown language")
            << QStringList{"--lang", "fr", "--screenshot", "x.png"} << "unknown language 'fr'";
    QTest::newRow("missing value") << QStringList{"--appliance"} << "Missing value";
    QTest::newRow("stray argument") << QStringList{"demo.json"} << "unexpected argument";
    QTest::newRow("bad --size") << QStringList{"--size", "12x3", "--screenshot", "x.png"}
                                << QStringLiteral("--size");
    QTest::newRow("bad --at") << QStringList{"--at", "25:00", "--screenshot", "x.png"}
                              << "--at: expected HH:MM (00:00..23:59), got '25:00'";
    QTest::newRow("bad --speed") << QStringList{"--speed", "fast", "--screenshot", "x.png"}
                                 << "--speed: expected a number 0..1000000, got 'fast'";
    QTest::newRow("unknown policy") << QStringList{"--policy", "magic", "--screenshot", "x.png"}
                                    << "unknown policy 'magic'";
    QTest::newRow("scenario and appliance")
            << QStringList{"--scenario", "a.json", "--appliance", "b.json"}
            << "--appliance and --scenario exclude each other";
    QTest::newRow("no such scenario")
            << QStringList{"--scenario", "/nonexistent.json", "--screenshot", "x.png"}
            << "/nonexistent.json";
    QTest::newRow("no such appliance")
            << QStringList{"--appliance", "/nonexistent.json", "--screenshot", "x.png"}
            << "zhaoxi: /nonexistent.json: cannot read the file";
}

void TestZhaoxi::usageErrors()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Run r = zhaoxi(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
}

void TestZhaoxi::badApplianceFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("bad.json"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"name": "bad", "hosts": [{"name": "n", "cpu": 8, "memoryGiB": 64, "cards": [
        {"model": "H200-141GB", "mode": "mig", "layout": ["3g.71gb@0", "4g.71gb@0"]}]}]})");
    f.close();
    // Reported before any window exists: no display needed.
    const Run r = zhaoxi({QStringLiteral("--appliance"), path});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.startsWith(QStringLiteral("zhaoxi: ") + path
                              + QStringLiteral(": hosts[0].cards[0].layout[1]: ")),
             qPrintable(r.err));
}

QTEST_GUILESS_MAIN(TestZhaoxi)
#include "tst_zhaoxi.moc"
