// SPDX-License-Identifier: GPL-3.0-or-later
// The console attached to a real service (zhaoxi --connect): a zhaoxid started here serving the
// test scenario with real processes; the console's window over a RemoteSession shows its jobs,
// places a waiting one by drag and drop (through the API, audited with this user as the author),
// loses the service (the picture stays, read-only, saying so; a command is refused with the
// reason) and attaches again by itself when the service is back, the work still where it was.
#include "core/catalogue/catalogue.h"
#include "core/models/jobtablemodel.h"
#include "core/models/seriesstore.h"
#include "core/models/sessionclient.h"
#include "core/service/remotesession.h"
#include "tests/service/servicetest.h"
#include "widgets/cardmap/cardmapview.h"
#include "widgets/mainwindow.h"

#include <QDirIterator>
#include <QDragEnterEvent>
#include <QMimeData>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <csignal>

using namespace Zhaoxi;
using namespace Zhaoxi::TestService;

namespace {

constexpr int kH200 = 1; // the scenario's whole H200 (card 0 is the MIG A100)

void sendDrag(QWidget *viewport, QEvent *e)
{
    QCoreApplication::sendEvent(viewport, e);
}

// Drags `job` from outside over the centre of `card` and drops it there, as the jobs table's
// drag would; returns whether the map took the drop.
bool dragAndDrop(Widgets::CardMapView &map, Domain::JobId job, int card)
{
    QMimeData data;
    data.setData(Models::JobTableModel::mimeType(), Models::JobTableModel::encodeJobIds({job}));
    const QPoint at = map.cardRect(Domain::CardId(card)).center();
    QDragEnterEvent enter(at, Qt::MoveAction, &data, Qt::LeftButton, Qt::NoModifier);
    sendDrag(map.viewport(), &enter);
    if (!enter.isAccepted())
        return false;
    // The preview is the service's answer: wait for it before dropping, as a hand would hover.
    QTest::qWaitFor(
            [&] {
                QDragMoveEvent move(at, Qt::MoveAction, &data, Qt::LeftButton, Qt::NoModifier);
                sendDrag(map.viewport(), &move);
                return map.dropState() != Widgets::CardMapView::DropState::Checking;
            },
            10000);
    QDropEvent drop(QPointF(at), Qt::MoveAction, &data, Qt::LeftButton, Qt::NoModifier);
    sendDrag(map.viewport(), &drop);
    return drop.isAccepted();
}

const Sched::Job *jobNamed(const Session::SnapshotPtr &s, const QString &name)
{
    if (!s)
        return nullptr;
    for (const Sched::Job &j : s->state.jobs())
        if (j.spec.name == name)
            return &j;
    return nullptr;
}

bool runsOn(const Session::SnapshotPtr &s, const QString &name, int card)
{
    const Sched::Job *j = jobNamed(s, name);
    return j && j->state == Sched::JobState::Running && j->assignments.size() == 1
           && j->assignments.first().card.value() == card;
}

} // namespace

class TestRemoteConsole : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void attachesPlacesByDragLosesTheServiceAndReattaches();

private:
    bool startService();
    void stopService();
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<QProcess> m_daemon;
    QString m_socket;
    QString m_scenario;
};

void TestRemoteConsole::initTestCase()
{
    if (::getuid() != 0)
        QSKIP("changes through the service need root or its operator group");
    putDemoOnPath();
    m_dir = std::make_unique<QTemporaryDir>(QDir::tempPath()
                                            + QStringLiteral("/tst_remote-XXXXXX"));
    QVERIFY(m_dir->isValid());
    m_dir->setAutoRemove(!qEnvironmentVariableIsSet("ZHAOXI_KEEP_TEST_DIR"));
    m_socket = m_dir->filePath(QStringLiteral("zhaoxid.sock"));
    // The test scenario with the scheduler's own preemption off: a waiting job of higher
    // priority waits for the operator, who may still place it over the running one.
    QFile in(dataPath("service.json"));
    QVERIFY(in.open(QIODevice::ReadOnly));
    QJsonObject scenario = QJsonDocument::fromJson(in.readAll()).object();
    QJsonObject scheduler = scenario.value(QStringLiteral("scheduler")).toObject();
    scheduler.insert(QStringLiteral("automaticPreemption"), false);
    scenario.insert(QStringLiteral("scheduler"), scheduler);
    m_scenario = m_dir->filePath(QStringLiteral("scenario.json"));
    QFile out(m_scenario);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(QJsonDocument(scenario).toJson());
}

bool TestRemoteConsole::startService()
{
    m_daemon = std::make_unique<QProcess>();
    m_daemon->setStandardOutputFile(QProcess::nullDevice());
    m_daemon->setStandardErrorFile(m_dir->filePath(QStringLiteral("zhaoxid.log")),
                                   QIODevice::Append);
    m_daemon->start(QStringLiteral(ZHAOXID_PATH),
                    {QStringLiteral("--scenario"),
                     m_scenario,
                     QStringLiteral("--db"),
                     m_dir->filePath(QStringLiteral("zhaoxi.db")),
                     QStringLiteral("--socket"),
                     m_socket,
                     QStringLiteral("--data-dir"),
                     m_dir->filePath(QStringLiteral("work")),
                     QStringLiteral("--policy"),
                     QStringLiteral("none")});
    return m_daemon->waitForStarted();
}

void TestRemoteConsole::stopService()
{
    if (m_daemon && m_daemon->state() != QProcess::NotRunning) {
        m_daemon->terminate();
        if (!m_daemon->waitForFinished(30000))
            m_daemon->kill();
        m_daemon->waitForFinished();
    }
}

void TestRemoteConsole::cleanup()
{
    stopService();
    m_daemon.reset();
    // The workloads the service left running: only ours, by PID, under this test's directory.
    if (!m_dir)
        return;
    for (int tries = 0; tries < 50; ++tries) {
        bool any = false;
        QDirIterator it(QStringLiteral("/proc"), QDir::Dirs | QDir::NoDotAndDotDot);
        while (it.hasNext()) {
            it.next();
            const int pid = it.fileName().toInt();
            QFile f(it.filePath() + QStringLiteral("/cmdline"));
            if (pid > 0 && f.open(QIODevice::ReadOnly)
                && f.readAll().contains(m_dir->path().toUtf8())) {
                ::kill(-pid, SIGKILL);
                ::kill(pid, SIGKILL);
                any = true;
            }
        }
        if (!any)
            break;
        QTest::qWait(100);
    }
}

void TestRemoteConsole::attachesPlacesByDragLosesTheServiceAndReattaches()
{
    QVERIFY(startService());
    // Two whole-H200 jobs: the first runs, the second (of a higher priority) waits, the
    // scheduler preempting nobody by itself, until the operator says otherwise.
    Client api;
    QVERIFY(QTest::qWaitFor([&] { return api.connectTo(m_socket); }, 20000));
    for (const char *name : {"first", "second"}) {
        QJsonObject spec = trainSpec(QLatin1String(name));
        spec.insert(QStringLiteral("priority"), QByteArray(name) == "first" ? 100 : 200);
        const QJsonObject a = api.call({{QStringLiteral("cmd"), QStringLiteral("submit")},
                                        {QStringLiteral("spec"), spec}});
        QVERIFY2(a.value(QStringLiteral("ok")).toBool(), qPrintable(QJsonDocument(a).toJson()));
    }

    Service::RemoteSession remote(m_socket, Catalogue::Catalogue::builtIn());
    remote.setRetryIntervalMs(200);
    Models::SessionClient client(&remote);
    QList<Storage::Event> seen;
    double firstPicture = std::numeric_limits<double>::quiet_NaN();
    connect(&client, &Models::SessionClient::snapshotChanged, this, [&](const auto &s) {
        seen += s->events;
        if (s->connected && std::isnan(firstPicture))
            firstPicture = double(s->nowMs) / 1000.0;
    });
    Widgets::MainWindow window;
    window.setSession(&client, QString());
    // As zhaoxi --connect wires it: the service's recorded hours come over the socket.
    connect(&remote,
            &Service::RemoteSession::historyReceived,
            &window,
            &Widgets::MainWindow::mergeHistory);
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    remote.start();

    // Attached: the service's jobs, as it has them.
    QTRY_VERIFY_WITH_TIMEOUT(client.snapshot() && client.snapshot()->connected
                                     && runsOn(client.snapshot(), QStringLiteral("first"), kH200)
                                     && jobNamed(client.snapshot(), QStringLiteral("second")),
                             30000);
    QCOMPARE(jobNamed(client.snapshot(), QStringLiteral("second"))->state,
             Sched::JobState::Pending);
    QCOMPARE(client.snapshot()->servicePath, m_socket);
    QCOMPARE(window.bannerText(), QString());
    // The run bar says whose clock it is: the service's, its cards simulated, its work real.
    QVERIFY2(window.clockText().contains(QStringLiteral("service ") + m_socket)
                     && window.clockText().contains(
                             QStringLiteral("simulated cards, real processes")),
             qPrintable(window.clockText()));
    QCOMPARE(remote.role(), QStringLiteral("operator"));
    QVERIFY(!remote.storePath().isEmpty());
    // The charts start with what the service recorded before the console attached (no store
    // path was given to the window: it came over the socket).
    auto *series = window.findChild<Models::SeriesStore *>();
    QVERIFY(series);
    const QString power
            = Models::SeriesStore::cardKey(Domain::CardId(kH200), Models::SeriesMetric::Power);
    QTRY_VERIFY_WITH_TIMEOUT(series->series(power) && !std::isnan(firstPicture)
                                     && series->series(power)->first().t < firstPicture,
                             10000);

    // Dropped on the H200: the service asks for the preemption (confirmed), places it.
    auto *map = window.findChild<Widgets::CardMapView *>(QStringLiteral("cardMap"));
    QVERIFY(map);
    int confirmations = 0;
    map->setPreemptionConfirmation([&](const auto &) { return ++confirmations > 0; });
    const Domain::JobId second = jobNamed(client.snapshot(), QStringLiteral("second"))->id;
    QSignalSpy placed(map, &Widgets::CardMapView::jobPlaced);
    QVERIFY(dragAndDrop(*map, second, kH200));
    QTRY_COMPARE_WITH_TIMEOUT(placed.size(), 1, 20000);
    QCOMPARE(confirmations, 1);
    QTRY_VERIFY_WITH_TIMEOUT(runsOn(client.snapshot(), QStringLiteral("second"), kH200), 60000);
    // The operator's action reached the console's log with its author.
    QTRY_VERIFY_WITH_TIMEOUT(std::any_of(seen.cbegin(),
                                         seen.cend(),
                                         [&](const Storage::Event &e) {
                                             return e.code == "operator-place"
                                                    && e.actor == remote.user()
                                                    && e.job == second.value();
                                         }),
                             10000);

    // The service goes away: the last picture stays, read-only, and says so.
    stopService();
    QTRY_VERIFY_WITH_TIMEOUT(!client.snapshot()->connected, 10000);
    QVERIFY(client.snapshot()->readOnly);
    QVERIFY2(window.bannerText().contains(m_socket), qPrintable(window.bannerText()));
    QVERIFY(runsOn(client.snapshot(), QStringLiteral("second"), kH200));
    QSignalSpy finished(&client, &Models::SessionClient::commandFinished);
    client.requeueJob(second);
    QTRY_COMPARE(finished.size(), 1);
    const auto refused = finished[0][0].value<Session::CommandResult>();
    QVERIFY(!refused.ok);
    QVERIFY2(refused.error.contains(QStringLiteral("not reachable")), qPrintable(refused.error));

    // Back: attached again by itself, the work where it was (adopted by the new service).
    QVERIFY(startService());
    QTRY_VERIFY_WITH_TIMEOUT(client.snapshot()->connected, 30000);
    QCOMPARE(window.bannerText(), QString());
    QVERIFY(runsOn(client.snapshot(), QStringLiteral("second"), kH200));
    // Nothing the console had is shown twice: the recent past sent again on attaching is not.
    QSet<qint64> ids;
    for (const Storage::Event &e : std::as_const(seen)) {
        QVERIFY2(!ids.contains(e.id), qPrintable(QString::number(e.id)));
        ids.insert(e.id);
    }
    remote.stop();
}

QTEST_MAIN(TestRemoteConsole)
#include "tst_remoteconsole.moc"
