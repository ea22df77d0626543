// SPDX-License-Identifier: GPL-3.0-or-later
// The console's real-hardware session against the test double of NVIDIA's library
// (tests/device/fakenvml): no driver, cards and MIG layouts in the snapshot, safe by default
// (read-only by setting, by missing permission), an apply that works, one that fails half way
// and leaves the console showing what the card really holds, faults and Xids as events,
// polling that follows its interval, and the session on its own thread behind a SessionClient.
#include "tests/session/hardwaresessiontest.h"

namespace {
// The read-only reason for missing permissions, as the service and logs say it.
constexpr char kNoPermission[] = "no permission to change MIG (run as root or grant CAP_SYS_ADMIN)";
} // namespace

class TestHardwareSession : public QObject, protected HardwareSessionTest
{
    Q_OBJECT

private Q_SLOTS:
    void cleanup() { stopEverythingStarted(); }
    void initTestCase() { openTheFake(); }

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
        // The driver's SM clock (1410 MHz) over the model's full clock: the A100's full clock,
        // the H200 NVL's 1785 MHz; /metrics exports it back as the driver's 1410.
        QCOMPARE(mig.clockFactor, 1.0);
        QCOMPARE(snap->cards[1].clockFactor, 1410.0 / 1785.0);

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
        QCOMPARE(s->latest()->readOnlyProblem.english(),
                 QStringLiteral("changes disabled in settings"));
        QVERIFY(s->backend().access() == Device::NvmlAccess::ReadOnlyBySetting);
        const int calls = logSize();
        const Session::CommandResult r
                = apply(*s, 0, placements("A100-SXM4-40GB", {"3g.20gb@0", "1g.5gb@4", "1g.5gb@6"}));
        QVERIFY(!r.ok);
        QCOMPARE(r.request, 7u);
        QCOMPARE(r.error, QStringLiteral("changes disabled in settings"));
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
        QCOMPARE(snap->readOnlyProblem.english(), QLatin1String(kNoPermission));
        QCOMPARE(layoutOf(*snap, 0), (QStringList{"3g.20gb@0", "1g.5gb@4"}));
        QVERIFY(codesOf(snap->events).contains("step-failed"));
        // From now on it is refused before the driver is asked.
        const int calls = logSize();
        QCOMPARE(apply(*s, 0, placements("A100-SXM4-40GB", {"3g.20gb@0", "1g.5gb@4", "1g.5gb@6"}))
                         .error,
                 QLatin1String(kNoPermission));
        QCOMPARE(logSize(), calls);
    }

    void migOffEverywhereIsReadOnly()
    {
        useFixture(QJsonObject{{"gpus", QJsonArray{gpu("H200-NVL-141GB", "GPU-h200-3b", false)}}});
        auto s = open(true);
        QVERIFY(s);
        QVERIFY(s->latest()->readOnly);
        QCOMPARE(s->latest()->readOnlyProblem.english(),
                 QStringLiteral("MIG not enabled on any card"));
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
        QCOMPARE(param(snap->events.first(), "stepKind"), QStringLiteral("1")); // a destroy first

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

    // The card's health as the driver tells it: its clocks' throttle reasons, its own slowdown
    // and shutdown temperatures (else the catalogue's), Xids and uncorrectable ECC errors.
    void healthAsTheDriverTellsIt()
    {
        QJsonObject root = threeCards();
        QJsonArray gpus = root.value("gpus").toArray();
        QJsonObject h200 = gpus[2].toObject();
        h200.insert("slowdownTempC", 86);
        h200.insert("shutdownTempC", 91);
        gpus[2] = h200;
        root.insert("gpus", gpus);
        useFixture(root);
        auto s = open(false);
        QVERIFY(s);
        Session::SnapshotPtr snap = s->latest();
        const Session::CardSample &a100 = snap->cards[0];
        QCOMPARE(a100.slowdownTempC, model("A100-SXM4-40GB").slowdownTempC); // the catalogue's
        QVERIFY(a100.slowdownTempC > 0);
        QCOMPARE(snap->cards[1].slowdownTempC, 86); // the driver's own
        QCOMPARE(snap->cards[1].shutdownTempC, 91);
        QVERIFY(!snap->cards[1].throttled);
        QCOMPARE(snap->cards[1].throttleReasons, quint64(0));

        m_control(R"({"throttle": {"gpu": 2, "reasons": 64, "temperature": 87}})");
        m_control(R"({"eccUncorrected": {"gpu": 2, "count": 1}})");
        m_control(R"({"xid": {"gpu": 2, "xid": 48}})");
        m_clock += 2000;
        snap = s->pollNow();
        const Session::CardSample &hot = snap->cards[1];
        QCOMPARE(hot.throttleReasons, Device::ThrottleReason::HwThermal);
        QVERIFY(hot.throttled);
        QCOMPARE(hot.temperatureC, 87.0);
        QCOMPARE(hot.eccUncorrected, 1);
        QCOMPARE(hot.xidErrors, 1);
        // Idle clocks alone are no throttling.
        m_control(R"({"throttle": {"gpu": 2, "reasons": 1}})");
        m_clock += 2000;
        snap = s->pollNow();
        QVERIFY(!snap->cards[1].throttled);
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
