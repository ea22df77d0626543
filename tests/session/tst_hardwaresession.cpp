// SPDX-License-Identifier: GPL-3.0-or-later
// The console's real-hardware session against the test double of NVIDIA's library
// (tests/device/fakenvml): no driver, cards and MIG layouts in the snapshot, safe by default
// (read-only by setting, by missing permission), an apply that works, one that fails half way
// and leaves the console showing what the card really holds, faults and Xids as events,
// polling that follows its interval, and the session on its own thread behind a SessionClient.
#include "core/catalogue/catalogue.h"
#include "core/catalogue/layoutrules.h"
#include "core/models/sessionclient.h"
#include "core/runtime/liverun.h"
#include "core/session/hardwaresession.h"
#include "core/storage/exporter.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <cmath>
#include <csignal>
#include <dlfcn.h>

using namespace Zhaoxi;
using Domain::CardModel;
using Domain::MigPlacement;
using Session::HardwareOptions;
using Session::HardwareSession;

namespace {

// NVML_GPU_INSTANCE_PROFILE_* index of a catalogue profile, as the driver numbers them.
int driverIndex(const Domain::MigProfile &p)
{
    if (p.computeSlices == 1)
        return p.mediaExtensions ? 7 : (p.memorySlices == 2 ? 9 : 0);
    switch (p.computeSlices) {
    case 2:
        return 1;
    case 3:
        return 2;
    case 4:
        return 3;
    case 7:
        return 4;
    default:
        return 16;
    }
}

QJsonArray profilesOf(const CardModel &m)
{
    QJsonArray a;
    for (const Domain::MigProfile &p : m.migProfiles) {
        QJsonArray starts;
        for (int s : p.starts)
            starts.append(s);
        a.append(QJsonObject{{"index", driverIndex(p)},
                             {"id", p.profileId},
                             {"name", QString(QStringLiteral("MIG ") + p.name)},
                             {"slices", p.computeSlices},
                             {"instances", p.maxInstances},
                             {"memoryMB", p.memoryMiB},
                             {"size", p.span},
                             {"starts", starts}});
    }
    return a;
}

QList<QByteArray> codesOf(const QList<Storage::Event> &events)
{
    QList<QByteArray> out;
    for (const Storage::Event &e : events)
        out << e.code;
    return out;
}

QString param(const Storage::Event &e, const char *key)
{
    return Storage::jsonParam(e.params, QLatin1String(key));
}

} // namespace

class TestHardwareSession : public QObject
{
    Q_OBJECT

private:
    Catalogue::Catalogue m_cat = Catalogue::Catalogue::builtIn();
    QTemporaryDir m_dir;
    void *m_fake = nullptr;
    int (*m_control)(const char *) = nullptr;
    const char *(*m_log)() = nullptr;
    int m_fixtures = 0;
    qint64 m_clock = 1'767'600'000'000; // a manual wall clock, UTC epoch ms
    QList<qint64> m_spawned;            // real processes a test started (killed in cleanup)

    const CardModel &model(const char *name) { return *m_cat.find(QLatin1String(name)); }

    QJsonObject gpu(const char *modelName,
                    const QString &uuid,
                    bool mig,
                    const QStringList &instances = {})
    {
        const CardModel &m = model(modelName);
        QJsonObject g{{"name", QString(QStringLiteral("NVIDIA ") + m.name)},
                      {"uuid", uuid},
                      {"busId", QStringLiteral("00000000:%1:00.0").arg(uuid.right(2))},
                      {"pciDeviceId",
                       QStringLiteral("0x%1%2")
                               .arg(m.pciDeviceIds.first(), 4, 16, QLatin1Char('0'))
                               .arg(m.pciVendorId, 4, 16, QLatin1Char('0'))
                               .toUpper()
                               .replace(QLatin1String("0X"), QLatin1String("0x"))},
                      {"memoryTotalMiB", m.memoryMiB},
                      {"memoryUsedMiB", 1024},
                      {"utilisation", 37},
                      {"temperature", 41},
                      {"powerMw", 63500},
                      {"eccUncorrected", 0},
                      {"eccCorrected", 2}};
        if (m.supportsMig()) {
            g.insert("mig", QJsonObject{{"current", mig}, {"pending", mig}});
            g.insert("profiles", profilesOf(m));
        }
        QJsonArray inst;
        for (const QString &i : instances) {
            const int at = i.indexOf(QLatin1Char('@'));
            const int p = m.profileIndex(i.left(at));
            inst.append(QJsonObject{{"profileId", m.migProfiles[p].profileId},
                                    {"start", i.mid(at + 1).toInt()},
                                    {"busy", false}});
        }
        g.insert("instances", inst);
        return g;
    }

    void useFixture(const QJsonObject &root)
    {
        const QString path = m_dir.filePath(QStringLiteral("fixture%1.json").arg(m_fixtures++));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QJsonDocument(root).toJson());
        f.close();
        qputenv("FAKENVML_FIXTURE", path.toLocal8Bit());
    }

    // An A100-40GB in MIG mode with 3g.20gb@0 and 1g.5gb@4, a card the catalogue does not know
    // (left out of the state), and an H200 NVL with MIG off.
    QJsonObject threeCards()
    {
        QJsonObject unknown{{"name", "NVIDIA GeForce GT 710"},
                            {"uuid", "GPU-gt710-5e"},
                            {"busId", "00000000:5E:00.0"},
                            {"pciDeviceId", "0x128B10DE"},
                            {"memoryTotalMiB", 2048},
                            {"memoryUsedMiB", 0},
                            {"utilisation", 0},
                            {"temperature", 30},
                            {"powerMw", 10000},
                            {"instances", QJsonArray{}}};
        return QJsonObject{
                {"driverVersion", "550.54.15"},
                {"gpus",
                 QJsonArray{gpu("A100-SXM4-40GB", "GPU-a100-07", true, {"3g.20gb@0", "1g.5gb@4"}),
                            unknown,
                            gpu("H200-NVL-141GB", "GPU-h200-3b", false)}}};
    }

    Device::NvmlBackendOptions backendOptions(const char *lib = FAKENVML_PATH)
    {
        Device::NvmlBackendOptions o;
        o.libraryPath = QString::fromLocal8Bit(lib);
        o.checkPrivileges = false; // the double answers NO_PERMISSION itself
        o.catalogue = m_cat;
        return o;
    }

    std::unique_ptr<HardwareSession> open(bool allowChanges, int pollMs = 2000)
    {
        HardwareOptions h;
        h.allowChanges = allowChanges;
        h.pollIntervalMs = pollMs;
        h.storePath = m_dir.filePath(QStringLiteral("events%1.sqlite").arg(m_fixtures));
        h.clock = [this] { return m_clock; };
        QString why;
        auto s = HardwareSession::open(backendOptions(), h, &why);
        if (!s)
            qWarning("open: %s", qPrintable(why));
        return s;
    }

    QStringList layoutOf(const Session::Snapshot &s, int card)
    {
        const Sched::CardState &c = s.state.card(Domain::CardId(card));
        QStringList out;
        for (const MigPlacement &p : c.migLayout())
            out << Catalogue::formatPlacement(s.state.model(c), p);
        return out;
    }

    // What the double really holds on a GPU, read back through a fresh look at the driver.
    QStringList fakeLayout(const HardwareSession &s, int nvmlIndex)
    {
        const Device::NvmlCardReport &rep = s.backend().cardReports()[nvmlIndex];
        QStringList out;
        for (const Device::InstanceInfo &i : rep.layout.instances)
            out << Catalogue::formatPlacement(m_cat.models()[rep.model],
                                              MigPlacement{i.profile, i.start});
        return out;
    }

    QList<MigPlacement> placements(const char *modelName, const QStringList &layout)
    {
        const CardModel &m = model(modelName);
        QList<MigPlacement> out;
        for (const QString &i : layout) {
            const int at = i.indexOf(QLatin1Char('@'));
            out << MigPlacement{m.profileIndex(i.left(at)), i.mid(at + 1).toInt()};
        }
        return out;
    }

    Session::CommandResult apply(HardwareSession &s, int card, const QList<MigPlacement> &target)
    {
        QSignalSpy done(&s, &HardwareSession::commandFinished);
        s.applyLayout(7, card, target, Session::ApplyMode::Immediate, 0);
        if (done.size() != 1)
            return {};
        return done.first().first().value<Session::CommandResult>();
    }

    int logSize() { return int(QString::fromUtf8(m_log()).count(QLatin1Char('\n'))); }

    // A session that runs real work: the real wall clock, its jobs under m_dir/work.
    std::unique_ptr<HardwareSession> openForWork(bool allowChanges, const QString &store)
    {
        HardwareOptions h;
        h.allowChanges = allowChanges;
        h.pollIntervalMs = 250;
        h.storePath = store;
        h.dataDir = m_dir.filePath(QStringLiteral("work"));
        h.shimPath = QStringLiteral(SHIM_PATH);
        QString why;
        auto s = HardwareSession::open(backendOptions(), h, &why);
        if (!s)
            qWarning("open: %s", qPrintable(why));
        return s;
    }

    static QJsonObject trainSpec(const QString &name, const QJsonObject &compute, int stepMs = 20)
    {
        return QJsonObject{
                {"name", name},
                {"kind", "training"},
                {"demand", QJsonObject{{"compute", compute}, {"cards", 1}, {"memoryGiB", 4}}},
                {"preemption", "checkpoint"},
                {"checkpointInterval", "1m"},
                {"run",
                 QJsonObject{{"command",
                              QJsonArray{QStringLiteral(DEMO_TRAIN_PATH),
                                         "--steps",
                                         "1000000",
                                         "--step-ms",
                                         QString::number(stepMs),
                                         "--checkpoint-every",
                                         "25"}},
                             {"stopGrace", "5s"}}}};
    }

    static Session::CommandResult lastResult(const QSignalSpy &spy)
    {
        return spy.isEmpty() ? Session::CommandResult{}
                             : spy.last().first().value<Session::CommandResult>();
    }

    static QString logOf(HardwareSession &s, Domain::JobId job)
    {
        QSignalSpy logs(&s, &HardwareSession::jobLogReady);
        s.requestJobLog(99, job.value(), 64 * 1024);
        return logs.isEmpty() ? QString() : logs.first().first().value<Session::JobLog>().text;
    }

    static int countCode(const QList<Storage::Event> &events, const char *code, int job = -1)
    {
        int n = 0;
        for (const Storage::Event &e : events)
            n += e.code == code && (job < 0 || e.job == job);
        return n;
    }

private Q_SLOTS:
    void cleanup()
    {
        // A test that failed half way leaves nothing running: each job is its process group.
        for (const qint64 pid : std::as_const(m_spawned)) {
            if (pid > 0) {
                ::kill(-pid_t(pid), SIGKILL);
                ::kill(pid_t(pid), SIGKILL);
            }
        }
        m_spawned.clear();
        // ... also those it had no time to note: every shim under this test's directory and
        // its job.
        QList<pid_t> shims;
        for (const QString &entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
            bool isPid = false;
            const pid_t pid = pid_t(entry.toInt(&isPid));
            QFile cmd(QStringLiteral("/proc/%1/cmdline").arg(entry));
            if (isPid && cmd.open(QIODevice::ReadOnly)
                && cmd.readAll().contains(m_dir.path().toLocal8Bit()))
                shims << pid;
        }
        for (const QString &entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
            QFile stat(QStringLiteral("/proc/%1/stat").arg(entry));
            if (!stat.open(QIODevice::ReadOnly))
                continue;
            const QByteArray st = stat.readAll();
            const QList<QByteArray> f = st.mid(st.lastIndexOf(')') + 2).split(' ');
            if (f.size() > 1 && shims.contains(pid_t(f[1].toInt()))) {
                ::kill(-pid_t(entry.toInt()), SIGKILL);
                ::kill(pid_t(entry.toInt()), SIGKILL);
            }
        }
        for (const pid_t pid : std::as_const(shims))
            ::kill(pid, SIGKILL);
    }

    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // Held for the whole run, so the double's state lives across sessions and its control
        // functions are reachable.
        m_fake = dlopen(FAKENVML_PATH, RTLD_NOW | RTLD_LOCAL);
        QVERIFY2(m_fake, dlerror());
        m_control = reinterpret_cast<int (*)(const char *)>(dlsym(m_fake, "fakenvml_control"));
        m_log = reinterpret_cast<const char *(*)()>(dlsym(m_fake, "fakenvml_log"));
        QVERIFY(m_control && m_log);
    }

    void noDriverOffersTheSimulation()
    {
        QString why;
        Device::NvmlOpenStatus status = Device::NvmlOpenStatus::Ok;
        QVERIFY(!HardwareSession::open(
                backendOptions("/nonexistent/libnvidia-ml.so.1"), {}, &why, &status));
        QVERIFY2(why.startsWith(QLatin1String(HardwareSession::kNoDriver)), qPrintable(why));
        QVERIFY(status == Device::NvmlOpenStatus::NoDriver);

        useFixture(QJsonObject{{"init", "driver-not-loaded"}});
        QVERIFY(!HardwareSession::open(backendOptions(), {}, &why, &status));
        QVERIFY2(why.startsWith(QLatin1String(HardwareSession::kNoDriver)), qPrintable(why));

        useFixture(QJsonObject{{"init", "no-permission"}});
        QVERIFY(!HardwareSession::open(backendOptions(), {}, &why, &status));
        QVERIFY(status == Device::NvmlOpenStatus::InitFailed);
        QVERIFY2(why.startsWith(QLatin1String("NVML did not initialise")), qPrintable(why));
    }

    void cardsAndLayoutsInTheSnapshot()
    {
        useFixture(threeCards());
        auto s = open(false);
        QVERIFY(s);
        const Session::SnapshotPtr snap = s->latest();
        QVERIFY(snap);
        QVERIFY(!snap->simulated);
        QCOMPARE(snap->endMs, -1);
        QCOMPARE(snap->speed, 1.0);
        QCOMPARE(snap->nowMs, m_clock);
        QCOMPARE(snap->startMs, m_clock);
        QVERIFY(!snap->finished);
        QCOMPARE(snap->state.hosts().size(), 1);
        // The GT 710 is not in the catalogue: the state holds the A100 and the H200, in NVML order.
        QCOMPARE(snap->state.cards().size(), 2);
        QCOMPARE(s->nvmlIndex(0), 0);
        QCOMPARE(s->nvmlIndex(1), 2);
        QCOMPARE(s->nvmlIndex(2), -1);
        QCOMPARE(snap->state.cards()[0].model, m_cat.indexOf(QStringLiteral("A100-SXM4-40GB")));
        QCOMPARE(snap->state.cards()[1].model, m_cat.indexOf(QStringLiteral("H200-NVL-141GB")));
        QVERIFY(snap->state.cards()[0].mode == Domain::PartitionMode::Mig);
        QVERIFY(snap->state.cards()[1].mode == Domain::PartitionMode::Whole);
        QCOMPARE(layoutOf(*snap, 0), (QStringList{"3g.20gb@0", "1g.5gb@4"}));
        QVERIFY2(snap->state.checkInvariants().isEmpty(),
                 qPrintable(snap->state.checkInvariants()));
        QVERIFY(codesOf(snap->events).contains("card-not-in-catalogue"));

        QCOMPARE(snap->cards.size(), 2);
        const Session::CardSample &mig = snap->cards[0];
        QVERIFY(std::isnan(mig.utilisation)); // MIG on: not available, never zero
        QCOMPARE(mig.memoryUsedMiB, 1024);
        QCOMPARE(mig.memoryTotalMiB, model("A100-SXM4-40GB").memoryMiB);
        QCOMPARE(mig.temperatureC, 41.0);
        QCOMPARE(mig.powerW, 63.5);
        QCOMPARE(mig.powerLimitW, double(model("A100-SXM4-40GB").maxPowerW));
        QVERIFY(!mig.lost);
        QCOMPARE(snap->cards[1].utilisation, 0.37);

        // A poll reads the metrics again at the wall clock's now.
        m_control(R"({"utilisation": {"gpu": 2, "value": 90}})");
        m_clock += 2000;
        const Session::SnapshotPtr next = s->pollNow();
        QCOMPARE(next->nowMs, m_clock);
        QCOMPARE(next->cards[1].utilisation, 0.9);
        QVERIFY(next->serial > snap->serial);
        QVERIFY(next->events.isEmpty()); // nothing new happened
    }

    void readOnlyByDefault()
    {
        useFixture(threeCards());
        auto s = open(false);
        QVERIFY(s);
        QVERIFY(s->latest()->readOnly);
        QCOMPARE(s->latest()->readOnlyReason, QLatin1String(HardwareSession::kReasonDisabled));
        QVERIFY(s->backend().access() == Device::NvmlAccess::ReadOnlyBySetting);
        const int calls = logSize();
        const Session::CommandResult r
                = apply(*s, 0, placements("A100-SXM4-40GB", {"3g.20gb@0", "1g.5gb@4", "1g.5gb@6"}));
        QVERIFY(!r.ok);
        QCOMPARE(r.request, 7u);
        QCOMPARE(r.error, QLatin1String(HardwareSession::kReasonDisabled));
        QCOMPARE(logSize(), calls); // not a single changing call
        QCOMPARE(layoutOf(*s->latest(), 0), (QStringList{"3g.20gb@0", "1g.5gb@4"}));
    }

    void noPermissionStaysReadOnlyAndSaysSo()
    {
        QJsonObject root = threeCards();
        root.insert("permission", false);
        useFixture(root);
        auto s = open(true);
        QVERIFY(s);
        // The driver tells only when asked to change something.
        QVERIFY(!s->latest()->readOnly);
        const Session::CommandResult r
                = apply(*s, 0, placements("A100-SXM4-40GB", {"3g.20gb@0", "1g.5gb@4", "1g.5gb@6"}));
        QVERIFY(!r.ok);
        QVERIFY2(r.error.startsWith(QLatin1String("stopped after 0 of 1 steps: create 1g.5gb@6 "
                                                  "failed")),
                 qPrintable(r.error));
        QVERIFY2(r.error.endsWith(QLatin1String("the card now has 3g.20gb@0, 1g.5gb@4")),
                 qPrintable(r.error));
        const Session::SnapshotPtr snap = s->latest();
        QVERIFY(snap->readOnly);
        QCOMPARE(snap->readOnlyReason, QLatin1String(HardwareSession::kReasonNoPermission));
        QCOMPARE(layoutOf(*snap, 0), (QStringList{"3g.20gb@0", "1g.5gb@4"}));
        QVERIFY(codesOf(snap->events).contains("step-failed"));
        // From now on it is refused before the driver is asked.
        const int calls = logSize();
        QCOMPARE(apply(*s, 0, placements("A100-SXM4-40GB", {"3g.20gb@0", "1g.5gb@4", "1g.5gb@6"}))
                         .error,
                 QLatin1String(HardwareSession::kReasonNoPermission));
        QCOMPARE(logSize(), calls);
    }

    void migOffEverywhereIsReadOnly()
    {
        useFixture(QJsonObject{{"gpus", QJsonArray{gpu("H200-NVL-141GB", "GPU-h200-3b", false)}}});
        auto s = open(true);
        QVERIFY(s);
        QVERIFY(s->latest()->readOnly);
        QCOMPARE(s->latest()->readOnlyReason, QLatin1String(HardwareSession::kReasonNoMig));
    }

    void allowedApplySucceedsAndTheSnapshotShowsIt()
    {
        useFixture(threeCards());
        auto s = open(false);
        QVERIFY(s);
        QVERIFY(s->latest()->readOnly);
        QSignalSpy snaps(s.get(), &HardwareSession::snapshotReady);
        s->setAllowChanges(true);
        QCOMPARE(snaps.size(), 1);
        QVERIFY(!s->latest()->readOnly);
        QVERIFY(s->backend().access() == Device::NvmlAccess::Writable);
        QCOMPARE(layoutOf(*s->latest(), 0), (QStringList{"3g.20gb@0", "1g.5gb@4"}));

        const QStringList want{"4g.20gb@0", "2g.10gb@4", "1g.5gb@6"};
        QSignalSpy previews(s.get(), &HardwareSession::layoutPreviewReady);
        s->previewLayout(3, 0, placements("A100-SXM4-40GB", want));
        QCOMPARE(previews.size(), 1);
        const auto preview = previews.first().first().value<Session::LayoutPreview>();
        QVERIFY2(preview.ok, qPrintable(preview.error));
        QCOMPARE(preview.destroys, 2);
        QCOMPARE(preview.creates, 3);
        QVERIFY(preview.affectedJobs.isEmpty());

        const Session::CommandResult r = apply(*s, 0, placements("A100-SXM4-40GB", want));
        QVERIFY2(r.ok, qPrintable(r.error));
        const Session::SnapshotPtr snap = s->latest();
        QCOMPARE(layoutOf(*snap, 0), want);
        QCOMPARE(fakeLayout(*s, 0), want);
        QVERIFY2(snap->state.checkInvariants().isEmpty(),
                 qPrintable(snap->state.checkInvariants()));
        // Each step is an event, destroys first; the state's own partition events follow.
        QList<QByteArray> steps;
        for (const Storage::Event &e : snap->events) {
            if (e.code.startsWith("step-")) {
                steps << e.code;
                QVERIFY(e.source == Storage::Source::Device);
                QCOMPARE(e.card, 0);
                QVERIFY(e.id > 0);
            }
        }
        QCOMPARE(steps, QList<QByteArray>(5, "step-done"));
        QVERIFY(codesOf(snap->events).contains("partition-created"));
        QCOMPARE(param(snap->events.first(), "a"), QStringLiteral("1")); // a destroy first

        // Switching the setting off again: read-only, and the backend re-opened read-only.
        s->setAllowChanges(false);
        QVERIFY(s->latest()->readOnly);
        QVERIFY(s->backend().access() == Device::NvmlAccess::ReadOnlyBySetting);
        QCOMPARE(layoutOf(*s->latest(), 0), want);
    }

    void failureHalfWayShowsWhatTheCardHolds()
    {
        useFixture(threeCards());
        auto s = open(true);
        QVERIFY(s);
        // Someone's process runs on the 1g instance: the driver says "in use". The 3g instance
        // goes first (destroys by start), then the plan stops.
        m_control(R"({"busy": {"gpu": 0, "start": 4, "busy": true}})");
        const Session::CommandResult r = apply(*s, 0, placements("A100-SXM4-40GB", {"7g.40gb@0"}));
        QVERIFY(!r.ok);
        QVERIFY2(r.error.startsWith(QLatin1String("stopped after 1 of 3 steps: destroy 1g.5gb@4 "
                                                  "failed: ")),
                 qPrintable(r.error));
        QVERIFY2(r.error.contains(QLatin1String("In use")), qPrintable(r.error));
        QVERIFY2(r.error.endsWith(QLatin1String("; the card now has 1g.5gb@4")),
                 qPrintable(r.error));
        const Session::SnapshotPtr snap = s->latest();
        QCOMPARE(layoutOf(*snap, 0), QStringList{"1g.5gb@4"});
        QCOMPARE(fakeLayout(*s, 0), QStringList{"1g.5gb@4"});
        QVERIFY2(snap->state.checkInvariants().isEmpty(),
                 qPrintable(snap->state.checkInvariants()));
        QList<QByteArray> steps;
        for (const QByteArray &c : codesOf(snap->events)) {
            if (c.startsWith("step-"))
                steps << c;
        }
        QCOMPARE(steps, (QList<QByteArray>{"step-done", "step-failed", "step-skipped"}));
        for (const Storage::Event &e : snap->events) {
            if (e.code == "step-failed") {
                QVERIFY(e.severity == Storage::Severity::Error);
                QCOMPARE(param(e, "reason"), QStringLiteral("device-in-use"));
                QCOMPARE(param(e, "status"), QStringLiteral("in-use"));
            }
        }
        // Still writable: "in use" is no permission problem.
        QVERIFY(!snap->readOnly);
    }

    void refusedCommandsSayWhy()
    {
        useFixture(threeCards());
        auto s = open(true);
        QVERIFY(s);
        QSignalSpy results(s.get(), &HardwareSession::commandFinished);
        QSignalSpy placementPreviews(s.get(), &HardwareSession::placementPreviewReady);
        QSignalSpy layoutPreviews(s.get(), &HardwareSession::layoutPreviewReady);
        s->placeJob(1, 0, 0, true);
        s->requeueJob(2, 0);
        s->setSchedule(3, QJsonObject{});
        s->previewPlacement(4, 0, 0);
        s->previewLayout(5, 1, {}); // the H200 has MIG off
        s->previewLayout(6, 0, placements("A100-SXM4-40GB", {"4g.20gb@0", "3g.20gb@0"}));
        QCOMPARE(results.size(), 3);
        // Before start() no runtime runs work; an empty schedule is refused by its reader.
        for (int i = 0; i < 2; ++i) {
            const auto r = results[i].first().value<Session::CommandResult>();
            QVERIFY(!r.ok);
            QVERIFY2(r.error == QLatin1String("the real appliance's runtime has not started yet")
                             || r.error.startsWith(QLatin1String("no job")),
                     qPrintable(r.error));
        }
        QVERIFY(!results[2].first().value<Session::CommandResult>().ok);
        const auto pp = placementPreviews.first().first().value<Session::PlacementPreview>();
        QCOMPARE(pp.request, 4u);
        QVERIFY(pp.outcome == Session::PlacementPreview::Outcome::Refused);
        QVERIFY(!pp.status.isSuccess());
        QCOMPARE(layoutPreviews.size(), 2);
        const auto whole = layoutPreviews[0].first().value<Session::LayoutPreview>();
        QVERIFY(!whole.ok);
        QCOMPARE(whole.error, QStringLiteral("card 1 is not in MIG mode"));
        const auto overlap = layoutPreviews[1].first().value<Session::LayoutPreview>();
        QVERIFY(!overlap.ok);
        QVERIFY(!overlap.error.isEmpty());
        // An invalid layout is refused before the driver is asked.
        const int calls = logSize();
        QVERIFY(!apply(*s, 0, placements("A100-SXM4-40GB", {"4g.20gb@0", "3g.20gb@0"})).ok);
        QCOMPARE(logSize(), calls);
    }

    // Issue 13: on NVML cards, each card's use split by whose processes run there: the
    // driver's compute processes matched to the jobs' process sessions, memory per process, the
    // utilisation split by the processes' own samples where the driver has them (not MIG).
    void nvmlProcessesSayWhoseTheCardIs()
    {
        useFixture(threeCards());
        auto s = openForWork(false, m_dir.filePath(QStringLiteral("whose.sqlite")));
        QVERIFY(s);
        s->start();
        QVERIFY(s->runtime());
        QSignalSpy results(s.get(), &HardwareSession::commandFinished);
        s->submitWorkload(1, trainSpec(QStringLiteral("whole"), {{"wholeCard", true}}));
        const Session::CommandResult whole = lastResult(results);
        QVERIFY2(whole.ok, qPrintable(whole.error));
        s->submitWorkload(2, trainSpec(QStringLiteral("slice"), {{"profile", "1g.5gb"}}));
        const Session::CommandResult slice = lastResult(results);
        QVERIFY2(slice.ok, qPrintable(slice.error));
        QTRY_VERIFY_WITH_TIMEOUT(s->runtime()->workloads().liveProcesses().size() == 2, 20000);
        QHash<int, qint64> pidOf;
        for (const Runtime::ProcessInfo &p : s->runtime()->workloads().liveProcesses()) {
            m_spawned << p.pid << p.shimPid;
            const QHash<qint64, Domain::JobId> by = s->runtime()->workloads().jobsBySession();
            pidOf.insert(Runtime::ProcessWorkloads::jobOfPid(by, p.pid).value(), p.pid);
        }
        QVERIFY(pidOf.contains(whole.job.value()) && pidOf.contains(slice.job.value()));
        const qint64 self = QCoreApplication::applicationPid(); // a process Zhaoxi did not start

        // The H200 (NVML index 2): the job's process and this test's, with SM samples.
        QCOMPARE(m_control(QStringLiteral(R"({"utilisation": {"gpu": 2, "value": 80},
                 "processes": {"gpu": 2, "list": [{"pid": %1, "memoryMiB": 30000, "smUtil": 70},
                                                  {"pid": %2, "memoryMiB": 1000, "smUtil": 6}]}})")
                                   .arg(pidOf[whole.job.value()])
                                   .arg(self)
                                   .toUtf8()
                                   .constData()),
                 0);
        // The A100 in MIG mode: the slice's process on its instance (start 4); NVML gives no
        // per-process utilisation under MIG.
        QCOMPARE(m_control(QStringLiteral(R"({"processes": {"gpu": 0, "list":
                 [{"pid": %1, "memoryMiB": 2000, "start": 4}]}})")
                                   .arg(pidOf[slice.job.value()])
                                   .toUtf8()
                                   .constData()),
                 0);
        const Session::SnapshotPtr snap = s->pollNow();
        QVERIFY(snap);
        QCOMPARE(snap->cards.size(), 2);
        const Session::CardSample &h200 = snap->cards[1];
        QCOMPARE(h200.trainingMemoryMiB, 30000);
        QCOMPARE(h200.inferenceMemoryMiB, 0);
        QCOMPARE(h200.otherMemoryMiB, 1000);
        QCOMPARE(h200.otherProcesses, 1);
        QVERIFY(h200.utilisationMeasuredPerProcess);
        QCOMPARE(h200.trainingUtilisation, 0.70);
        QCOMPARE(h200.inferenceUtilisation, 0.0);
        const Session::CardSample &a100 = snap->cards[0];
        QCOMPARE(a100.trainingMemoryMiB, 2000);
        QCOMPARE(a100.otherMemoryMiB, 0);
        QCOMPARE(a100.otherProcesses, 0);
        QVERIFY(!a100.utilisationMeasuredPerProcess);

        // A driver that does not say a process's memory: the split is unknown, not zero.
        QCOMPARE(m_control(QStringLiteral(R"({"processes": {"gpu": 2, "list":
                 [{"pid": %1, "memoryMiB": -1, "smUtil": 50}]}})")
                                   .arg(pidOf[whole.job.value()])
                                   .toUtf8()
                                   .constData()),
                 0);
        const Session::SnapshotPtr later = s->pollNow();
        QCOMPARE(later->cards[1].trainingMemoryMiB, -1);
        QCOMPARE(later->cards[1].otherProcesses, 0);
        QCOMPARE(later->cards[1].trainingUtilisation, 0.50);
        s->stop();
    }

    // Issue 13: the console's real appliance runs real work. Processes bound to the driver's
    // units, controlled from the session's commands; read-only MIG does not stop placing on the
    // instances that exist.
    void realWorkRunsBoundToTheDriversUnits()
    {
        useFixture(threeCards());
        const QString store = m_dir.filePath(QStringLiteral("work.sqlite"));
        auto s = openForWork(false, store);
        QVERIFY(s);
        s->start();
        QVERIFY(s->runtime());
        QSignalSpy results(s.get(), &HardwareSession::commandFinished);
        QList<Storage::Event> events;
        connect(s.get(), &HardwareSession::snapshotReady, this, [&](Session::SnapshotPtr snap) {
            events += snap->events;
        });

        // A spec the real appliance cannot run is refused at its field; nothing is submitted.
        QJsonObject noRun = trainSpec(QStringLiteral("no-run"), {{"wholeCard", true}});
        noRun.remove(QStringLiteral("run"));
        s->submitWorkload(1, noRun);
        QCOMPARE(lastResult(results).field, QStringLiteral("run"));
        QVERIFY(!lastResult(results).ok);
        QJsonObject bad = trainSpec(QStringLiteral("bad"), {{"wholeCard", true}});
        bad.insert(QStringLiteral("priority"), QStringLiteral("high"));
        s->submitWorkload(2, bad);
        QCOMPARE(lastResult(results).field, QStringLiteral("priority"));
        QCOMPARE(s->runtime()->scheduler().state().jobs().size(), 0);

        // A whole card: the H200 (state card 1, NVML index 2).
        s->submitWorkload(3, trainSpec(QStringLiteral("whole"), {{"wholeCard", true}}));
        const Session::CommandResult whole = lastResult(results);
        QVERIFY2(whole.ok, qPrintable(whole.error));
        // A MIG slice on the instance that exists (1g.5gb@4): read-only creates nothing.
        s->submitWorkload(4, trainSpec(QStringLiteral("slice"), {{"profile", "1g.5gb"}}));
        const Session::CommandResult slice = lastResult(results);
        QVERIFY2(slice.ok, qPrintable(slice.error));
        const QString migUuid = [&] {
            for (const Device::InstanceInfo &i : s->backend().layout(Domain::CardId(0)).instances)
                if (m_cat.models()[s->backend().cardReports()[0].model].migProfiles[i.profile].name
                    == QLatin1String("1g.5gb"))
                    return i.uuid;
            return QString();
        }();
        QVERIFY(migUuid.startsWith(QLatin1String("MIG-")));
        QTRY_VERIFY_WITH_TIMEOUT(
                logOf(*s, whole.job).contains(QLatin1String("CUDA_VISIBLE_DEVICES=GPU-h200-3b")),
                20000);
        QTRY_VERIFY_WITH_TIMEOUT(
                logOf(*s, slice.job).contains(QStringLiteral("CUDA_VISIBLE_DEVICES=") + migUuid),
                20000);
        QCOMPARE(fakeLayout(*s, 0), QStringList({"3g.20gb@0", "1g.5gb@4"}));
        for (const Runtime::ProcessInfo &p : s->runtime()->workloads().liveProcesses())
            m_spawned << p.pid << p.shimPid;

        // Priority, requeue at the checkpoint (acknowledged, then placed again), cancel.
        s->setJobPriority(5, whole.job.value(), 42);
        QVERIFY(lastResult(results).ok);
        QCOMPARE(s->runtime()->scheduler().state().job(whole.job).spec.priority, 42);
        s->requeueJob(6, whole.job.value());
        QVERIFY(lastResult(results).ok);
        QTRY_VERIFY_WITH_TIMEOUT(s->runtime()->workloads().stats(whole.job).starts == 2, 30000);
        for (const Runtime::ProcessInfo &p : s->runtime()->workloads().liveProcesses())
            m_spawned << p.pid << p.shimPid;
        QVERIFY(s->runtime()->workloads().stats(whole.job).checkpoints >= 1);
        QTRY_VERIFY_WITH_TIMEOUT(
                logOf(*s, whole.job)
                        .contains(QRegularExpression(QStringLiteral("resuming from step [1-9]"))),
                20000);
        s->cancelJob(7, slice.job.value());
        QVERIFY(lastResult(results).ok);
        QTRY_VERIFY_WITH_TIMEOUT(!s->runtime()->workloads().stats(slice.job).running, 20000);
        QCOMPARE(s->runtime()->scheduler().state().job(slice.job).state,
                 Sched::JobState::Cancelled);
        s->cancelJob(8, slice.job.value());
        QVERIFY(!lastResult(results).ok);
        QTRY_VERIFY(countCode(events, "job-priority-changed", whole.job.value()) == 1);
        QVERIFY(countCode(events, "process-started", whole.job.value()) >= 2);
        QVERIFY(countCode(events, "checkpoint-acknowledged", whole.job.value()) >= 1);

        // The console exits: the job runs on; started again, it is adopted, not launched twice.
        const QList<Runtime::ProcessInfo> before = s->runtime()->workloads().liveProcesses();
        for (const Runtime::ProcessInfo &p : before)
            m_spawned << p.pid << p.shimPid;
        QCOMPARE(before.size(), 1);
        s->stop();
        s.reset();
        QVERIFY(::kill(pid_t(before.first().pid), 0) == 0);
        auto again = openForWork(false, store);
        QVERIFY(again);
        again->start();
        QVERIFY(again->runtime());
        const Sched::Job &j = again->runtime()->scheduler().state().job(whole.job);
        QCOMPARE(j.spec.name, QStringLiteral("whole"));
        QVERIFY(j.isActive());
        const QList<Runtime::ProcessInfo> after = again->runtime()->workloads().liveProcesses();
        QCOMPARE(after.size(), 1);
        QCOMPARE(after.first().pid, before.first().pid);
        QCOMPARE(again->runtime()->workloads().stats(whole.job).starts, 2);

        // An administrator's stop ends the work; nothing is left behind.
        QVERIFY(again->stopAllWork(20000).isEmpty());
        QVERIFY(::kill(pid_t(before.first().pid), 0) != 0);
    }

    // A repartition that destroys the instance a job runs on drains it at its checkpoint, then
    // changes the card; the job waits for room and the scheduler creates a new instance for it,
    // which the driver carries out: the job's CUDA_VISIBLE_DEVICES is that instance's UUID as
    // read after its creation. A schedule becomes the policy in force.
    void repartitionDrainsRealWorkAndNewInstancesCarryTheirUuid()
    {
        useFixture(threeCards());
        auto s = openForWork(true, m_dir.filePath(QStringLiteral("drain.sqlite")));
        QVERIFY(s);
        s->start();
        QVERIFY(s->runtime());
        QVERIFY(s->readOnlyReason().isEmpty());
        QSignalSpy results(s.get(), &HardwareSession::commandFinished);
        s->submitWorkload(1, trainSpec(QStringLiteral("slice"), {{"profile", "1g.5gb"}}));
        const Session::CommandResult slice = lastResult(results);
        QVERIFY2(slice.ok, qPrintable(slice.error));
        QTRY_VERIFY_WITH_TIMEOUT(s->runtime()->workloads().stats(slice.job).running, 20000);
        for (const Runtime::ProcessInfo &p : s->runtime()->workloads().liveProcesses())
            m_spawned << p.pid << p.shimPid;

        const int before = int(results.size());
        s->applyLayout(2,
                       0,
                       placements("A100-SXM4-40GB", {"3g.20gb@0", "2g.10gb@4"}),
                       Session::ApplyMode::Drain,
                       60'000);
        // Not at once: the job leaves at its checkpoint first.
        QTRY_VERIFY_WITH_TIMEOUT(results.size() > before, 30000);
        const Session::CommandResult applied = lastResult(results);
        QCOMPARE(applied.request, 2u);
        QVERIFY2(applied.ok, qPrintable(applied.error));
        QVERIFY(s->runtime()->workloads().stats(slice.job).checkpoints >= 1);
        QVERIFY(s->runtime()->workloads().stats(slice.job).preemptions >= 1);
        // The job comes back on a new 1g.5gb the scheduler creates in the free slot.
        QTRY_VERIFY_WITH_TIMEOUT(s->runtime()->workloads().stats(slice.job).starts == 2, 30000);
        for (const Runtime::ProcessInfo &p : s->runtime()->workloads().liveProcesses())
            m_spawned << p.pid << p.shimPid;
        QCOMPARE(fakeLayout(*s, 0), QStringList({"3g.20gb@0", "2g.10gb@4", "1g.5gb@6"}));
        QString created;
        for (const Device::InstanceInfo &i : s->backend().layout(Domain::CardId(0)).instances)
            if (i.start == 6)
                created = i.uuid;
        QVERIFY(created.startsWith(QLatin1String("MIG-")));
        QTRY_VERIFY_WITH_TIMEOUT(
                logOf(*s, slice.job).contains(QStringLiteral("CUDA_VISIBLE_DEVICES=") + created),
                20000);

        // The day/night schedule applies to the real appliance too.
        s->setSchedule(3,
                       QJsonObject{{"windows",
                                    QJsonArray{QJsonObject{{"name", "day"},
                                                           {"from", "07:00"},
                                                           {"to", "22:00"},
                                                           {"inferenceShare", 0.5}},
                                               QJsonObject{{"name", "night"},
                                                           {"from", "22:00"},
                                                           {"to", "07:00"},
                                                           {"inferenceShare", 0.1}}}}});
        QVERIFY2(lastResult(results).ok, qPrintable(lastResult(results).error));
        QCOMPARE(s->pollNow()->policy, QStringLiteral("windows"));
        QVERIFY(s->stopAllWork(20000).isEmpty());
    }

    void faultsAndXidsBecomeEvents()
    {
        useFixture(threeCards());
        auto s = open(false);
        QVERIFY(s);
        m_control(R"({"xid": {"gpu": 2, "xid": 13}})");
        m_control(R"({"lost": {"gpu": 2, "lost": true}})");
        m_clock += 2000;
        Session::SnapshotPtr snap = s->pollNow();
        QVERIFY(codesOf(snap->events).contains("xid"));
        QVERIFY(codesOf(snap->events).contains("fault-card-lost"));
        QVERIFY(codesOf(snap->events).contains("card-failed")); // the scheduler's view
        QVERIFY(snap->cards[1].lost);
        QVERIFY(snap->state.cards()[1].health == Sched::CardHealth::Failed);
        for (const Storage::Event &e : snap->events) {
            if (e.code == "xid") {
                QCOMPARE(e.card, 1); // the state's card id, not NVML's index
                QCOMPARE(param(e, "xid"), QStringLiteral("13"));
                QCOMPARE(param(e, "gpu"), QStringLiteral("2"));
            }
        }
        m_control(R"({"lost": {"gpu": 2, "lost": false}})");
        m_clock += 2000;
        snap = s->pollNow();
        QVERIFY(codesOf(snap->events).contains("card-recovered"));
        QVERIFY(!snap->cards[1].lost);
        QVERIFY(snap->state.cards()[1].health == Sched::CardHealth::Healthy);
        QVERIFY(!codesOf(snap->events).contains("xid")); // seen once, told once
    }

    void layoutsChangedBehindTheConsoleAreFollowed()
    {
        useFixture(threeCards());
        auto s = open(true);
        QVERIFY(s);
        // Another tool (nvidia-smi) changes the card: the console follows at the next refresh.
        Device::NvmlBackendOptions o = backendOptions();
        o.applyEnabled = true;
        auto other = Device::NvmlBackend::open(o, nullptr);
        QVERIFY(other);
        const CardModel &m = model("A100-SXM4-40GB");
        other->apply({Device::DeviceStep{Device::DeviceStep::Kind::CreateInstance,
                                         Domain::CardId(0),
                                         m.profileIndex(QStringLiteral("1g.5gb")),
                                         6,
                                         {}}},
                     0);
        other->advance(0);
        QVERIFY(other->takeStepReports().first().state == Device::NvmlStepState::Done);
        other.reset();
        for (int i = 0; i < 5; ++i) { // layoutRefreshPolls
            m_clock += 2000;
            s->pollNow();
        }
        QCOMPARE(layoutOf(*s->latest(), 0), (QStringList{"3g.20gb@0", "1g.5gb@4", "1g.5gb@6"}));
    }

    void pollingFollowsItsInterval()
    {
        useFixture(threeCards());
        HardwareOptions h;
        h.pollIntervalMs = 60'000;
        QString why;
        auto s = HardwareSession::open(backendOptions(), h, &why);
        QVERIFY2(s, qPrintable(why));
        s->setPollIntervalMs(10);
        QCOMPARE(s->pollIntervalMs(), HardwareSession::kMinPollMs);
        s->setPollIntervalMs(1'000'000);
        QCOMPARE(s->pollIntervalMs(), HardwareSession::kMaxPollMs);

        QSignalSpy snaps(s.get(), &HardwareSession::snapshotReady);
        s->start();
        QVERIFY(s->isPolling());
        QCOMPARE(snaps.size(), 1); // start publishes at once
        s->setPollIntervalMs(250);
        QTRY_VERIFY_WITH_TIMEOUT(snaps.size() >= 4, 20'000);
        // The wall clock moves on with the polls.
        const auto last = snaps.last().first().value<Session::SnapshotPtr>();
        QVERIFY(last->nowMs >= last->startMs);

        s->setPaused(true);
        QVERIFY(!s->isPolling());
        QVERIFY(s->latest()->paused);
        s->setPaused(false);
        QVERIFY(s->isPolling());
        s->stop();
        QVERIFY(!s->isPolling());
    }

    void onItsOwnThreadBehindAClient()
    {
        useFixture(threeCards());
        HardwareOptions h;
        h.pollIntervalMs = 250;
        QString why;
        std::unique_ptr<HardwareSession> s = HardwareSession::open(backendOptions(), h, &why);
        QVERIFY2(s, qPrintable(why));
        QThread worker;
        s->moveToThread(&worker);
        worker.start();
        Models::SessionClient client(s.get());
        QSignalSpy snaps(&client, &Models::SessionClient::snapshotChanged);
        QSignalSpy results(&client, &Models::SessionClient::commandFinished);
        QMetaObject::invokeMethod(s.get(), &HardwareSession::start, Qt::QueuedConnection);
        QTRY_VERIFY_WITH_TIMEOUT(snaps.size() >= 2, 20'000);
        QVERIFY(client.snapshot()->readOnly);

        QMetaObject::invokeMethod(
                s.get(), [&s] { s->setAllowChanges(true); }, Qt::QueuedConnection);
        QTRY_VERIFY_WITH_TIMEOUT(!client.snapshot()->readOnly, 20'000);
        const QStringList want{"3g.20gb@0", "1g.5gb@4", "1g.5gb@5"};
        const quint64 id = client.applyLayout(Domain::CardId(0),
                                              placements("A100-SXM4-40GB", want),
                                              Session::ApplyMode::Drain,
                                              60'000);
        QTRY_COMPARE_WITH_TIMEOUT(results.size(), 1, 20'000);
        const auto r = results.first().first().value<Session::CommandResult>();
        QCOMPARE(r.request, id);
        QVERIFY2(r.ok, qPrintable(r.error));
        QTRY_COMPARE_WITH_TIMEOUT(layoutOf(*client.snapshot(), 0), want, 20'000);

        QMetaObject::invokeMethod(s.get(), &HardwareSession::stop, Qt::BlockingQueuedConnection);
        worker.quit();
        QVERIFY(worker.wait(20'000));
        s.reset();
    }
};

QTEST_GUILESS_MAIN(TestHardwareSession)
#include "tst_hardwaresession.moc"
