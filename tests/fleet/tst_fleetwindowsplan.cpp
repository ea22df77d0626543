// SPDX-License-Identifier: GPL-3.0-or-later
// The pure parts of `zhaoxictl fleet windows` and `fleet repartition`, without daemons: the
// reservation plan of a schedule on the cluster recorded in data/ (and against the zhaoxi-*
// reservations recorded from a real apply), carrying a plan out with a scripted scontrol (and the
// undo when a step fails), node layouts and their GRES, and the repartition cycle against a
// scripted Slurm on a manual clock.
#include "core/catalogue/catalogue.h"
#include "core/fleet/fleetrepartition.h"
#include "core/fleet/fleetstate.h"
#include "core/fleet/fleetwindows.h"
#include "core/fleet/slurmjson.h"
#include "core/policy/params.h"
#include "core/policy/timewindows.h"

#include <QFile>
#include <QTest>
#include <QTimeZone>

#include <ctime>

using namespace Zhaoxi;
using namespace Zhaoxi::Fleet;

namespace {

QByteArray readData(const QString &name)
{
    QFile f(QStringLiteral(FLEET_TEST_DATA "/") + name);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(f.fileName()));
    return f.readAll();
}

// The recorded cluster, with the reservations of `reservationsFile`.
FleetState recordedFleet(const QString &reservationsFile = QStringLiteral("rest-reservations.json"))
{
    JsonError e;
    FleetSnapshot s;
    s.nodes = parseNodes(readData(QStringLiteral("rest-nodes.json")), &e).value();
    s.partitions = parsePartitions(readData(QStringLiteral("rest-partitions.json")), &e).value();
    s.reservations = parseReservations(readData(reservationsFile), &e).value();
    return buildFleetState(s, Catalogue::Catalogue::builtIn(), 0);
}

// A schedule through the policy's own reader, as zhaoxictl reads it.
QList<ScheduleWindow> schedule(const QByteArray &json)
{
    Policy::PolicyError err;
    const std::optional<QJsonObject> params = Policy::policyParamsFromJson(json, &err);
    if (!params)
        qFatal("bad test schedule: %s", qPrintable(err.message));
    const std::unique_ptr<Policy::Policy> p = Policy::TimeWindows::create(*params, &err);
    if (!p)
        qFatal("bad test schedule: %s: %s", qPrintable(err.field), qPrintable(err.message));
    QList<ScheduleWindow> out;
    for (const auto &w : static_cast<const Policy::TimeWindows *>(p.get())->windows())
        out.append({w.name, w.fromMs, w.toMs, w.days, w.inferenceShare});
    return out;
}

QDateTime utc(const QString &iso)
{
    QDateTime t = QDateTime::fromString(iso, Qt::ISODate);
    t.setTimeZone(QTimeZone::utc());
    return t;
}

WindowsPlanOptions rootOptions(int leadMinutes = 20)
{
    WindowsPlanOptions o;
    o.users = QStringLiteral("root");
    o.leadMs = qint64(leadMinutes) * 60'000;
    return o;
}

const PlannedReservation *named(const WindowsPlan &plan, const QString &name)
{
    for (const PlannedReservation &r : plan.reservations) {
        if (r.name == name)
            return &r;
    }
    return nullptr;
}

QStringList namesOf(const WindowsPlan &plan)
{
    QStringList n;
    for (const PlannedReservation &r : plan.reservations)
        n << r.name + QLatin1Char(':') + QLatin1String(toString(r.action));
    return n;
}

// scontrol as a script: records the calls, fails the ones whose words contain `failOn`.
struct ScriptedScontrol
{
    QString failOn;
    QList<QStringList> calls;
    CommandResult operator()(const QString &, const QStringList &args)
    {
        calls.append(args);
        if (!failOn.isEmpty() && args.join(QLatin1Char(' ')).contains(failOn))
            return {1, QStringLiteral("Error creating the reservation: Requested nodes are busy")};
        return {0, QString()};
    }
};

// A scripted Slurm node for the repartition cycle, on a manual clock.
class FakeSlurm final : public RepartitionIo
{
public:
    qint64 now = 0;
    NodeView node;
    QList<QStringList> calls; // program + args
    QString failProgram;      // a program whose runs fail
    qint64 jobEndsAt = -1;    // the job leaves by itself then (-1: only when requeued)
    qint64 requeueTakesMs = 500;
    qint64 requeuedAt = -1;
    QString gresAfterCommand; // what the node shows once the GRES command ran

    CommandResult run(const QString &program, const QStringList &args, const QStringList &) override
    {
        calls.append(QStringList{program} + args);
        if (program == failProgram)
            return {1, QStringLiteral("refused")};
        if (program == QLatin1String("scontrol") && args.value(0) == QLatin1String("requeue"))
            requeuedAt = now;
        if (program == QLatin1String("set-gres"))
            node.gres = gresAfterCommand;
        return {0, QString()};
    }
    std::optional<NodeView> readNode(const QString &, QString *) override
    {
        if ((jobEndsAt >= 0 && now >= jobEndsAt)
            || (requeuedAt >= 0 && now >= requeuedAt + requeueTakesMs))
            node.jobsHolding.clear();
        return node;
    }
    qint64 nowMs() override { return now; }
    void sleepMs(int ms) override { now += ms; }

    bool called(const QString &words) const
    {
        for (const QStringList &c : calls) {
            if (c.join(QLatin1Char(' ')).contains(words))
                return true;
        }
        return false;
    }
};

} // namespace

class TestFleetWindowsPlan : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // Plans are in local time, as scontrol reads times: the expected values are UTC.
    void initTestCase()
    {
        qputenv("TZ", "UTC");
        tzset();
    }

    // The demo day's schedule on the recorded cluster (8 cards): night gives training 0.85 of
    // the cards, at most 6.8, so the largest whole-node set under it, 6 (zx-whole + zx-mig); day
    // gives inference at least 5.2, so the smallest set over it, again 6 cards.
    void demoDayOnRecordedFleet()
    {
        const QList<ScheduleWindow> w = schedule(R"({"windows": [
            {"name": "day", "from": "07:00", "to": "22:00", "inferenceShare": 0.65},
            {"name": "night", "from": "22:00", "to": "07:00", "inferenceShare": 0.15}]})");
        const WindowsPlan plan = planWindows(
                w, recordedFleet(), utc(QStringLiteral("2026-12-04T12:00:00")), rootOptions());
        QVERIFY2(plan.error.isEmpty(), qPrintable(plan.error));
        QCOMPARE(plan.fleetCards, 8);
        // "day" is in force at noon: the rest of it as a one-off, the repeat from tomorrow.
        QCOMPARE(
                namesOf(plan),
                (QStringList{"zhaoxi-day:create", "zhaoxi-day-now:create", "zhaoxi-night:create"}));
        const PlannedReservation *night = named(plan, QStringLiteral("zhaoxi-night"));
        QCOMPARE(night->nodes, (QStringList{"zx-mig", "zx-whole"}));
        QCOMPARE(night->cards, 6);
        QCOMPARE(night->partition, QStringLiteral("training"));
        QCOMPARE(night->flags, (QStringList{"DAILY", "IGNORE_JOBS"}));
        QCOMPARE(night->start, utc(QStringLiteral("2026-12-04T21:40:00")));
        QCOMPARE(night->durationS, 9 * 3600);
        const PlannedReservation *day = named(plan, QStringLiteral("zhaoxi-day"));
        QCOMPARE(day->partition, QStringLiteral("inference"));
        QCOMPARE(day->cards, 6);
        QCOMPARE(day->start, utc(QStringLiteral("2026-12-05T06:40:00")));
        QCOMPARE(day->durationS, 15 * 3600);
        const PlannedReservation *now = named(plan, QStringLiteral("zhaoxi-day-now"));
        QCOMPARE(now->flags, QStringList{"IGNORE_JOBS"});
        QCOMPARE(now->start, utc(QStringLiteral("2026-12-04T12:00:00")));
        QCOMPARE(now->start.addSecs(now->durationS), utc(QStringLiteral("2026-12-04T21:40:00")));
        QCOMPARE(scontrolArgs(*night),
                 (QStringList{"create",
                              "reservation",
                              "ReservationName=zhaoxi-night",
                              "StartTime=2026-12-04T21:40:00",
                              "Duration=09:00:00",
                              "Nodes=zx-mig,zx-whole",
                              "PartitionName=training",
                              "Users=root",
                              "Flags=DAILY,IGNORE_JOBS"}));
        QCOMPARE(scontrolArgs(*now),
                 (QStringList{"create",
                              "reservation",
                              "ReservationName=zhaoxi-day-now",
                              "StartTime=now",
                              "EndTime=2026-12-04T21:40:00",
                              "Nodes=zx-mig,zx-whole",
                              "PartitionName=inference",
                              "Users=root",
                              "Flags=IGNORE_JOBS"}));
        QVERIFY(plan.changes());
    }

    // The repeat follows the days after the lead moved the start.
    void repeatFlags_data()
    {
        QTest::addColumn<QString>("days");
        QTest::addColumn<QString>("from");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("every day") << ""
                                   << "22:00" << QStringList{"zhaoxi-w:DAILY"};
        QTest::newRow("weekdays") << R"(["mon","tue","wed","thu","fri"])"
                                  << "22:00" << QStringList{"zhaoxi-w:WEEKDAY"};
        QTest::newRow("weekend") << R"(["sat","sun"])"
                                 << "22:00" << QStringList{"zhaoxi-w:WEEKEND"};
        QTest::newRow("two days") << R"(["mon","wed"])"
                                  << "22:00"
                                  << QStringList{"zhaoxi-w-mon:WEEKLY", "zhaoxi-w-wed:WEEKLY"};
        // 00:10 on weekdays starts at 23:50 the day before with a 20 min lead: Sunday..Thursday.
        QTest::newRow("lead crosses midnight") << R"(["mon","tue","wed","thu","fri"])"
                                               << "00:10"
                                               << QStringList{"zhaoxi-w-mon:WEEKLY",
                                                              "zhaoxi-w-tue:WEEKLY",
                                                              "zhaoxi-w-wed:WEEKLY",
                                                              "zhaoxi-w-thu:WEEKLY",
                                                              "zhaoxi-w-sun:WEEKLY"};
    }
    void repeatFlags()
    {
        QFETCH(QString, days);
        QFETCH(QString, from);
        QFETCH(QStringList, expected);
        const QByteArray json
                = QStringLiteral(R"({"windows": [{"name": "w", "from": "%1", "to":
            "06:00", "inferenceShare": 0.2%2}]})")
                          .arg(from,
                               days.isEmpty() ? QString() : QStringLiteral(", \"days\": ") + days)
                          .toUtf8();
        // Friday noon: no occurrence in force.
        const WindowsPlan plan = planWindows(schedule(json),
                                             recordedFleet(),
                                             utc(QStringLiteral("2026-12-04T12:00:00")),
                                             rootOptions());
        QVERIFY2(plan.error.isEmpty(), qPrintable(plan.error));
        QStringList got;
        for (const PlannedReservation &r : plan.reservations)
            got << r.name + QLatin1Char(':') + r.flags.value(0);
        std::sort(got.begin(), got.end());
        std::sort(expected.begin(), expected.end());
        QCOMPARE(got, expected);
        for (const PlannedReservation &r : plan.reservations) {
            // Every start is the window's (moved) time on a day it repeats on.
            QCOMPARE(r.start.time(),
                     from == QLatin1String("00:10") ? QTime(23, 50) : QTime(21, 40));
            QVERIFY(r.start > utc(QStringLiteral("2026-12-04T12:00:00")));
        }
    }

    // Against what a real apply left (recorded: zhaoxi-night DAILY 13:21 for 2 h, and
    // zhaoxi-night-now until 15:21 on zx-mig and zx-whole): the same schedule keeps both; other
    // nodes update; a schedule without the window deletes both.
    void againstRecordedReservations()
    {
        const FleetState fleet = recordedFleet(QStringLiteral("rest-reservations-zhaoxi.json"));
        const QDateTime now = utc(QStringLiteral("2026-12-04T14:50:00"));
        const WindowsPlan same = planWindows(schedule(R"({"windows": [{"name": "night", "from":
            "13:41", "to": "15:41", "inferenceShare": 0.15}]})"),
                                             fleet,
                                             now,
                                             rootOptions());
        QVERIFY2(same.error.isEmpty(), qPrintable(same.error));
        QCOMPARE(namesOf(same), (QStringList{"zhaoxi-night:keep", "zhaoxi-night-now:keep"}));
        QVERIFY(!same.changes());

        // Inference 0.45 of 8 cards leaves training 4.4: zx-whole's 4 cards.
        const WindowsPlan smaller = planWindows(schedule(R"({"windows": [{"name": "night", "from":
            "13:41", "to": "15:41", "inferenceShare": 0.45}]})"),
                                                fleet,
                                                now,
                                                rootOptions());
        QCOMPARE(namesOf(smaller), (QStringList{"zhaoxi-night:update", "zhaoxi-night-now:update"}));
        QCOMPARE(named(smaller, QStringLiteral("zhaoxi-night"))->nodes, QStringList{"zx-whole"});
        QVERIFY(named(smaller, QStringLiteral("zhaoxi-night"))
                        ->why.startsWith(QLatin1String("nodes")));

        const WindowsPlan other = planWindows(schedule(R"({"windows": [{"name": "late", "from":
            "23:00", "to": "05:00", "inferenceShare": 0.15}]})"),
                                              fleet,
                                              now,
                                              rootOptions());
        QCOMPARE(namesOf(other),
                 (QStringList{
                         "zhaoxi-night:delete", "zhaoxi-night-now:delete", "zhaoxi-late:create"}));
        QCOMPARE(scontrolArgs(other.reservations[0]),
                 (QStringList{"delete", "ReservationName=zhaoxi-night"}));
        // Deleting the one that has not started can be undone at its old start.
        QCOMPARE(scontrolUndoArgs(other.reservations[0], other.nowS).mid(0, 4),
                 (QStringList{"create",
                              "reservation",
                              "ReservationName=zhaoxi-night",
                              "StartTime=2026-12-05T13:21:00"}));
    }

    // A step that fails undoes the steps done before it, in reverse order.
    void applyUndoesOnFailure()
    {
        const FleetState fleet = recordedFleet(QStringLiteral("rest-reservations-zhaoxi.json"));
        const WindowsPlan plan = planWindows(schedule(R"({"windows": [{"name": "late", "from":
            "23:00", "to": "05:00", "inferenceShare": 0.15}]})"),
                                             fleet,
                                             utc(QStringLiteral("2026-12-04T14:50:00")),
                                             rootOptions());
        ScriptedScontrol sc;
        sc.failOn = QStringLiteral("zhaoxi-late");
        const ApplyReport report = applyWindowsPlan(plan, QStringLiteral("scontrol"), std::ref(sc));
        QVERIFY(!report.ok);
        QCOMPARE(report.failedStep, QStringLiteral("create zhaoxi-late"));
        QVERIFY(report.error.contains(QLatin1String("Requested nodes are busy")));
        QCOMPARE(sc.calls.size(), 5); // two deletes, the failed create, two undos
        QCOMPARE(sc.calls[3].value(2), QStringLiteral("ReservationName=zhaoxi-night-now"));
        QCOMPARE(sc.calls[4].value(2), QStringLiteral("ReservationName=zhaoxi-night"));
        QCOMPARE(sc.calls[4].value(0), QStringLiteral("create"));

        ScriptedScontrol ok;
        QVERIFY(applyWindowsPlan(plan, QStringLiteral("scontrol"), std::ref(ok)).ok);
        QCOMPARE(ok.calls.size(), 3);
    }

    // What the plan refuses.
    void planErrors()
    {
        const FleetState fleet = recordedFleet();
        const QDateTime now = utc(QStringLiteral("2026-12-04T12:00:00"));
        // Overlapping windows that would reserve the same nodes.
        const WindowsPlan overlap = planWindows(schedule(R"({"windows": [
            {"name": "a", "from": "20:00", "to": "23:00", "inferenceShare": 0.2},
            {"name": "b", "from": "22:00", "to": "02:00", "inferenceShare": 0.2}]})"),
                                                fleet,
                                                now,
                                                rootOptions());
        QVERIFY(overlap.error.contains(QLatin1String("windows a and b overlap")));
        // A share smaller than any node: a warning, no reservation.
        const WindowsPlan tiny = planWindows(schedule(R"({"windows": [
            {"name": "t", "from": "20:00", "to": "23:00", "inferenceShare": 0.49}]})"),
                                             fleet,
                                             now,
                                             rootOptions());
        QVERIFY(tiny.error.isEmpty());
        QVERIFY(tiny.reservations.isEmpty() == false); // 0.51 of 8 = 4 cards: zx-whole
        const WindowsPlan none = planWindows(schedule(R"({"windows": [
            {"name": "t", "from": "20:00", "to": "23:00", "inferenceShare": 0.95}]})"),
                                             fleet,
                                             now,
                                             rootOptions());
        QVERIFY(none.error.isEmpty());
        QCOMPARE(named(none, QStringLiteral("zhaoxi-t"))->cards, 8);
        WindowsPlanOptions noUser = rootOptions();
        noUser.users.clear();
        QVERIFY(!planWindows(schedule(R"({"windows": [{"name": "t", "from": "20:00", "to":
            "23:00", "inferenceShare": 0.1}]})"),
                             fleet,
                             now,
                             noUser)
                         .error.isEmpty());
    }

    void slurmTimes()
    {
        QCOMPARE(slurmDuration(9 * 3600), QStringLiteral("09:00:00"));
        QCOMPARE(slurmDuration(24 * 3600 + 61), QStringLiteral("1-00:01:01"));
        QCOMPARE(slurmTime(utc(QStringLiteral("2026-12-04T21:40:00"))),
                 QStringLiteral("2026-12-04T21:40:00"));
    }

    // ---- layouts

    void layouts_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("gres");    // empty: refused
        QTest::addColumn<QString>("message"); // part of the error
        QTest::newRow("as recorded") << "0:3g.71gb@0,3g.71gb@4;1:7x1g.18gb"
                                     << "gpu:3g.71gb:2,gpu:1g.18gb:7"
                                     << "";
        QTest::newRow("all 1g") << "1:7x1g.18gb;0:7x1g.18gb"
                                << "gpu:1g.18gb:14"
                                << "";
        QTest::newRow("swapped") << "0:7x1g.18gb;1:2x3g.71gb"
                                 << "gpu:1g.18gb:7,gpu:3g.71gb:2"
                                 << "";
        QTest::newRow("mixed card") << "0:3g.71gb@0,1g.18gb@4,1g.18gb@5,1g.18gb@6;1:7x1g.18gb"
                                    << "gpu:3g.71gb:1,gpu:1g.18gb:10"
                                    << "";
        QTest::newRow("bad start") << "0:3g.71gb@0,3g.71gb@2;1:7x1g.18gb"
                                   << ""
                                   << "card 0, instance 1 (3g.71gb@2)";
        QTest::newRow("too many") << "0:2x3g.71gb;1:8x1g.18gb"
                                  << ""
                                  << "card 1, instance 7";
        QTest::newRow("unknown profile") << "0:2x3g.40gb;1:7x1g.18gb"
                                         << ""
                                         << "card 0, instance 0: unknown profile '3g.40gb'";
        QTest::newRow("card missing") << "0:2x3g.71gb"
                                      << ""
                                      << "card 1 is not named";
        QTest::newRow("card out of range") << "0:2x3g.71gb;2:1g.18gb"
                                           << ""
                                           << "card 2: the node has cards 0..1";
        QTest::newRow("empty card") << "0:2x3g.71gb;1:"
                                    << ""
                                    << "card 1: no instance";
        QTest::newRow("malformed") << "3g.71gb@0"
                                   << ""
                                   << "expected CARD:PROFILE@START";
    }
    void layouts()
    {
        QFETCH(QString, text);
        QFETCH(QString, gres);
        QFETCH(QString, message);
        const Catalogue::Catalogue cat = Catalogue::Catalogue::builtIn();
        const int h200 = cat.indexOf(QStringLiteral("H200-141GB"));
        QString error;
        const std::optional<NodeLayout> layout = parseNodeLayout(text, cat, h200, 2, &error);
        if (gres.isEmpty()) {
            QVERIFY(!layout);
            QVERIFY2(error.contains(message), qPrintable(error));
            return;
        }
        QVERIFY2(layout, qPrintable(error));
        QCOMPARE(gresText(gresForLayout(cat, *layout)), gres);
        // The text form parses back to the same layout.
        const std::optional<NodeLayout> again
                = parseNodeLayout(formatNodeLayout(cat, *layout), cat, h200, 2, &error);
        QVERIFY(again);
        QCOMPARE(again->cards, layout->cards);
    }

    // A layout whose GRES Zhaoxi would read back otherwise is refused before Slurm is touched.
    void roundTrip_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("recorded") << "0:3g.71gb@0,3g.71gb@4;1:7x1g.18gb"
                                  << "";
        QTest::newRow("mixed") << "0:3g.71gb@0,1g.18gb@4,1g.18gb@5,1g.18gb@6;1:7x1g.18gb"
                               << "";
        QTest::newRow("3g at 4 alone") << "0:3g.71gb@4;1:7x1g.18gb"
                                       << "would read GRES";
        QTest::newRow("two runs") << "0:3g.71gb@0,1g.18gb@4,1g.18gb@5,1g.18gb@6;1:2x3g.71gb"
                                  << "two runs";
    }
    void roundTrip()
    {
        QFETCH(QString, text);
        QFETCH(QString, message);
        const Catalogue::Catalogue cat = Catalogue::Catalogue::builtIn();
        const FleetState fleet = recordedFleet();
        QString error;
        const std::optional<RepartitionTarget> target
                = repartitionTarget(fleet, cat, QStringLiteral("zx-mig"), &error);
        QVERIFY2(target, qPrintable(error));
        QCOMPARE(target->cards, 2);
        QCOMPARE(cat.models()[target->model].name, QStringLiteral("H200-141GB"));
        const std::optional<NodeLayout> layout
                = parseNodeLayout(text, cat, target->model, target->cards, &error);
        QVERIFY2(layout, qPrintable(error));
        const bool ok = gresRoundTrips(cat, *target, *layout, &error);
        QCOMPARE(ok, message.isEmpty());
        if (!ok)
            QVERIFY2(error.contains(message), qPrintable(error));
    }

    void targets()
    {
        const Catalogue::Catalogue cat = Catalogue::Catalogue::builtIn();
        QString error;
        QVERIFY(!repartitionTarget(recordedFleet(), cat, QStringLiteral("nope"), &error));
        QVERIFY(error.contains(QLatin1String("no node nope")));
        // zx-whole: four whole H200 cards, which a MIG layout may take.
        const std::optional<RepartitionTarget> whole
                = repartitionTarget(recordedFleet(), cat, QStringLiteral("zx-whole"), &error);
        QVERIFY(whole);
        QCOMPARE(whole->cards, 4);
        QCOMPARE(normalizedGres(QStringLiteral("gpu:3g.71gb:2(IDX:0-1),gpu:1g.18gb:7")),
                 QStringLiteral("gpu:1g.18gb:7,gpu:3g.71gb:2"));
    }

    // ---- the cycle, on a scripted Slurm

    void cycle_data()
    {
        QTest::addColumn<int>("policy"); // JobPolicy
        QTest::addColumn<qint64>("deadlineMs");
        QTest::addColumn<qint64>("jobEndsAtMs");
        QTest::addColumn<QString>("failProgram");
        QTest::addColumn<QString>("failedStep"); // empty: ok
        QTest::addColumn<bool>("requeued");
        QTest::newRow("immediate") << int(JobPolicy::Immediate) << qint64(0) << qint64(-1) << ""
                                   << "" << true;
        QTest::newRow("job ends before deadline")
                << int(JobPolicy::Deadline) << qint64(60'000) << qint64(10'000) << ""
                << "" << false;
        QTest::newRow("deadline reached")
                << int(JobPolicy::Deadline) << qint64(5'000) << qint64(3'600'000) << ""
                << "" << true;
        QTest::newRow("gres command fails")
                << int(JobPolicy::Immediate) << qint64(0) << qint64(-1) << "set-gres"
                << "gres" << true;
        QTest::newRow("apply command fails")
                << int(JobPolicy::Immediate) << qint64(0) << qint64(-1) << "apply"
                << "apply" << true;
    }
    void cycle()
    {
        QFETCH(int, policy);
        QFETCH(qint64, deadlineMs);
        QFETCH(qint64, jobEndsAtMs);
        QFETCH(QString, failProgram);
        QFETCH(QString, failedStep);
        QFETCH(bool, requeued);
        const Catalogue::Catalogue cat = Catalogue::Catalogue::builtIn();
        QString error;
        const RepartitionTarget target
                = repartitionTarget(recordedFleet(), cat, QStringLiteral("zx-mig"), &error).value();
        const NodeLayout layout
                = parseNodeLayout(
                          QStringLiteral("0:7x1g.18gb;1:7x1g.18gb"), cat, target.model, 2, &error)
                          .value();
        FakeSlurm slurm;
        slurm.node.gres = target.gres;
        slurm.node.state = QStringLiteral("mixed");
        slurm.node.jobsHolding = {42};
        slurm.jobEndsAt = jobEndsAtMs;
        slurm.failProgram = failProgram;
        slurm.gresAfterCommand = QStringLiteral("gpu:1g.18gb:14");
        RepartitionOptions o;
        o.jobs = JobPolicy(policy);
        o.deadlineMs = deadlineMs;
        o.applyCommand = {QStringLiteral("apply")};
        o.gresCommand = {QStringLiteral("set-gres"), QStringLiteral("--dir"), QStringLiteral("D")};
        o.reconfigure = false;
        QList<RepartitionStep> seen;
        const RepartitionResult r = runRepartition(
                target, layout, cat, o, slurm, [&](const RepartitionEvent &e) { seen << e.step; });
        QCOMPARE(r.ok, failedStep.isEmpty());
        QCOMPARE(slurm.called(QStringLiteral("scontrol requeue 42")), requeued);
        QVERIFY(slurm.called(QStringLiteral(
                "scontrol update NodeName=zx-mig State=DRAIN Reason=zhaoxi repartition: "
                "gpu:1g.18gb:14")));
        QCOMPARE(seen.first(), RepartitionStep::Plan);
        if (failedStep.isEmpty()) {
            QCOMPARE(seen.last(), RepartitionStep::Resume);
            QVERIFY(slurm.called(QStringLiteral("set-gres --dir D zx-mig gpu:1g.18gb:14")));
            QVERIFY(slurm.called(QStringLiteral("scontrol update NodeName=zx-mig State=RESUME")));
            // Waiting costs time on the manual clock, never more than the job or the deadline.
            const qint64 waited = policy == int(JobPolicy::Immediate) ? 0
                                  : requeued                          ? deadlineMs
                                                                      : jobEndsAtMs;
            QVERIFY(r.events.last().atMs >= waited);
        } else {
            QCOMPARE(QLatin1String(toString(r.failedStep)), failedStep);
            QVERIFY(!slurm.called(QStringLiteral("State=RESUME")));
            QVERIFY(slurm.called(QStringLiteral("State=DRAIN Reason=zhaoxi repartition failed at ")
                                 + failedStep + QStringLiteral(": ")));
        }
    }

    // The node never shows the new GRES: the cycle gives up at the bound, node drained.
    void gresNeverShows()
    {
        const Catalogue::Catalogue cat = Catalogue::Catalogue::builtIn();
        QString error;
        const RepartitionTarget target
                = repartitionTarget(recordedFleet(), cat, QStringLiteral("zx-mig"), &error).value();
        const NodeLayout layout
                = parseNodeLayout(
                          QStringLiteral("0:7x1g.18gb;1:7x1g.18gb"), cat, target.model, 2, &error)
                          .value();
        FakeSlurm slurm;
        slurm.node.gres = target.gres;
        slurm.gresAfterCommand = target.gres; // the command "worked" but Slurm kept the old GRES
        RepartitionOptions o;
        o.gresCommand = {QStringLiteral("set-gres")};
        o.gresTimeoutMs = 10'000;
        const RepartitionResult r = runRepartition(target, layout, cat, o, slurm, {});
        QVERIFY(!r.ok);
        QCOMPARE(r.failedStep, RepartitionStep::WaitGres);
        QVERIFY(slurm.called(QStringLiteral("scontrol reconfigure")));
        QVERIFY(slurm.called(
                QStringLiteral("failed at wait-gres: node zx-mig does not show GRES")));
    }
};

QTEST_GUILESS_MAIN(TestFleetWindowsPlan)
#include "tst_fleetwindowsplan.moc"
