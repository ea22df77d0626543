// SPDX-License-Identifier: GPL-3.0-or-later
// The schedule editor's model: the windows policy's week with no two windows on one minute
// (same day, past midnight, past Sunday into Monday), loaded and saved without losing what it
// does not edit, checked by the headless tool's reader, and the next switch times in UTC+8.
#include "core/models/schedulemodel.h"
#include "core/policy/timewindows.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTest>
#include <QTimeZone>

using namespace Zhaoxi;
using Models::ScheduleModel;
using Models::ScheduleProblem;
using Models::ScheduleSwitch;
using Models::ScheduleWindow;

namespace {

constexpr int kUtc8 = 8 * 3600;

QJsonObject object(const char *json)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray(json), &error);
    if (!doc.isObject())
        qFatal("bad test JSON: %s in %s", qPrintable(error.errorString()), json);
    return doc.object();
}

// A schedule of `windows` (a JSON array's text) with the policy's defaults.
QJsonObject schedule(const QString &windows)
{
    return object(QStringLiteral("{\"windows\": %1}").arg(windows).toUtf8().constData());
}

QJsonObject demoWindows()
{
    QFile f(QStringLiteral(ZHAOXI_SOURCE_DIR "/resources/scenarios/demo-day.json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("demo day scenario missing");
    return QJsonDocument::fromJson(f.readAll())
            .object()
            .value(QStringLiteral("policy"))
            .toObject()
            .value(QStringLiteral("windows"))
            .toObject();
}

// Weekdays by day, every night, and a Saturday maintenance slot.
const char *const kWeek = R"({
  "prepareAhead": "20m",
  "windows": [
    {"name": "day", "from": "08:00", "to": "20:00", "days": ["mon","tue","wed","thu","fri"],
     "inferenceShare": 0.7},
    {"name": "night", "from": "22:00", "to": "06:00", "inferenceShare": 0.2},
    {"name": "maintenance", "from": "10:00", "to": "12:00", "days": ["sat"],
     "inferenceShare": 0.5}
  ]
})";

qint64 localMs(const char *iso)
{
    return QDateTime::fromString(QString::fromLatin1(iso), Qt::ISODate)
            .toTimeZone(QTimeZone::utc())
            .toMSecsSinceEpoch();
}

QString switchText(const ScheduleModel &m, const ScheduleSwitch &s)
{
    auto name = [&](int row) { return row < 0 ? QStringLiteral("-") : m.window(row).name; };
    return QStringLiteral("%1 %2 %3/%4")
            .arg(ScheduleModel::dayName(s.minuteOfWeek / 1440),
                 ScheduleModel::timeText(s.minuteOfWeek % 1440),
                 name(s.fromRow),
                 name(s.toRow));
}

} // namespace

class TestScheduleModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void overlaps_data();
    void overlaps();
    void anEditThatWouldOverlapIsRefusedWhole();
    void movesAcrossSundayIntoMonday();
    void wholeDayWindowsMoveByDays();
    void resizesAndRefusesBadTimes();
    void roundTripsTheDemoDay();
    void roundTripKeepsWhatItDoesNotEdit();
    void refusesWhatTheHeadlessToolRefuses();
    void keepsAtLeastOneWindow();
    void agreesWithThePolicyOnEveryMinute();
    void nextSwitchesInUtcPlus8_data();
    void nextSwitchesInUtcPlus8();
    void oneWindowAllWeekNeverSwitches();
    void rolesAndOneDataChangedPerEdit();
    void passesTheModelTester();
};

void TestScheduleModel::overlaps_data()
{
    QTest::addColumn<QString>("windows");
    QTest::addColumn<QString>("problem"); // empty: accepted

    QTest::newRow("same day") << QStringLiteral(
            R"([{"name": "day", "from": "08:00", "to": "22:00", "days": ["mon"], "inferenceShare": 0.7},
                {"name": "maintenance", "from": "20:00", "to": "23:00", "days": ["mon"], "inferenceShare": 0.2}])")
                              << QStringLiteral(
                                         "‘day’ (Mon 08:00–22:00) overlaps ‘maintenance’ (Mon "
                                         "20:00–23:00)");
    QTest::newRow("across midnight") << QStringLiteral(
            R"([{"name": "night", "from": "22:00", "to": "06:00", "days": ["mon"], "inferenceShare": 0.2},
                {"name": "early", "from": "05:00", "to": "07:00", "days": ["tue"], "inferenceShare": 0.6}])")
                                     << QStringLiteral(
                                                "‘night’ (Mon 22:00–06:00) overlaps ‘early’ (Tue "
                                                "05:00–07:00)");
    QTest::newRow("past midnight into a day the window does not list") << QStringLiteral(
            R"([{"name": "night", "from": "22:00", "to": "06:00", "days": ["fri"], "inferenceShare": 0.2},
                           {"name": "backup", "from": "02:00", "to": "03:00", "days": ["sat"], "inferenceShare": 0.5}])")
                                                                       << QStringLiteral(
                                                                                  "‘night’ (Fri "
                                                                                  "22:00–06:00) "
                                                                                  "overlaps "
                                                                                  "‘backup’ (Sat "
                                                                                  "02:00–03:00)");
    QTest::newRow("across Sunday into Monday") << QStringLiteral(
            R"([{"name": "night", "from": "22:00", "to": "06:00", "days": ["sun"], "inferenceShare": 0.2},
                           {"name": "monday", "from": "05:30", "to": "09:00", "days": ["mon"], "inferenceShare": 0.7}])")
                                               << QStringLiteral(
                                                          "‘night’ (Sun 22:00–06:00) overlaps "
                                                          "‘monday’ (Mon 05:30–09:00)");
    QTest::newRow("adjacent windows are allowed") << QStringLiteral(
            R"([{"name": "day", "from": "07:00", "to": "22:00", "inferenceShare": 0.65},
                {"name": "night", "from": "22:00", "to": "07:00", "inferenceShare": 0.15}])")
                                                  << QString();
    QTest::newRow("adjacent across the week's end") << QStringLiteral(
            R"([{"name": "late", "from": "20:00", "to": "24:00", "days": ["sun"], "inferenceShare": 0.3},
                {"name": "early", "from": "00:00", "to": "08:00", "days": ["mon"], "inferenceShare": 0.3}])")
                                                    << QString();
    QTest::newRow("from == to is the whole day") << QStringLiteral(
            R"([{"name": "tuesday", "from": "09:00", "to": "09:00", "days": ["tue"], "inferenceShare": 0.9},
                {"name": "backup", "from": "01:00", "to": "02:00", "days": ["tue"], "inferenceShare": 0.5}])")
                                                 << QStringLiteral(
                                                            "‘tuesday’ (Tue all day) overlaps "
                                                            "‘backup’ (Tue 01:00–02:00)");
    QTest::newRow("a whole day ends at midnight") << QStringLiteral(
            R"([{"name": "tuesday", "from": "09:00", "to": "09:00", "days": ["tue"], "inferenceShare": 0.9},
                {"name": "backup", "from": "01:00", "to": "02:00", "days": ["wed"], "inferenceShare": 0.5}])")
                                                  << QString();
    QTest::newRow("the same hours on other days") << QStringLiteral(
            R"([{"name": "a", "from": "08:00", "to": "12:00", "days": ["mon", "wed"], "inferenceShare": 0.5},
                {"name": "b", "from": "08:00", "to": "12:00", "days": ["tue", "thu"], "inferenceShare": 0.5}])")
                                                  << QString();
    QTest::newRow("one minute is enough") << QStringLiteral(
            R"([{"name": "a", "from": "08:00", "to": "12:01", "days": ["mon"], "inferenceShare": 0.5},
                {"name": "b", "from": "12:00", "to": "14:00", "days": ["mon"], "inferenceShare": 0.5}])")
                                          << QStringLiteral(
                                                     "‘a’ (Mon 08:00–12:01) overlaps ‘b’ (Mon "
                                                     "12:00–14:00)");
}

void TestScheduleModel::overlaps()
{
    QFETCH(QString, windows);
    QFETCH(QString, problem);
    const QJsonObject params = schedule(windows);
    // The headless tool reads every row (first match wins there); the editor refuses overlaps.
    Policy::PolicyError perr;
    QVERIFY2(Policy::TimeWindows::create(params, &perr), qPrintable(perr.message));

    ScheduleModel m;
    QString error;
    QCOMPARE(m.fromJson(params, &error), problem.isEmpty());
    QCOMPARE(error, problem);
    if (problem.isEmpty()) {
        QVERIFY(m.validate().ok());
        QCOMPARE(m.rowCount(), 2);
    } else {
        QCOMPARE(m.lastProblem().code, ScheduleProblem::Code::Overlap);
        QCOMPARE(m.rowCount(), 0); // nothing half loaded
    }
}

void TestScheduleModel::anEditThatWouldOverlapIsRefusedWhole()
{
    ScheduleModel m;
    QVERIFY(m.fromJson(object(kWeek)));
    const QJsonObject before = m.toJson();
    QSignalSpy refused(&m, &ScheduleModel::editRefused);
    QSignalSpy changed(&m, &ScheduleModel::scheduleChanged);

    // Saturday's maintenance onto Monday 10:00, inside the day window: refused, named first.
    QString error;
    QVERIFY(!m.moveWindow(2, 10 * 60, &error));
    QCOMPARE(error,
             QStringLiteral("‘maintenance’ (Mon 10:00–12:00) overlaps ‘day’ (Mon 08:00–20:00)"));
    QCOMPARE(refused.count(), 1);
    QCOMPARE(refused.first().first().toString(), error);
    QCOMPARE(m.lastProblem().row, 2);
    QCOMPARE(m.lastProblem().otherRow, 0);

    // A new window at 21:00-23:00 on Wednesday runs into the night.
    ScheduleWindow late;
    late.name = QStringLiteral("late");
    late.days = 1u << 2;
    late.fromMinute = 21 * 60;
    late.toMinute = 23 * 60;
    QVERIFY(!m.insertWindow(3, late, &error));
    QCOMPARE(error, QStringLiteral("‘late’ (Wed 21:00–23:00) overlaps ‘night’ (Wed 22:00–06:00)"));
    QCOMPARE(m.rowCount(), 3);

    // The day window's end pushed past 22:00 (same day, into the night).
    QVERIFY(!m.resizeWindow(0, 8 * 60, 23 * 60, &error));
    QVERIFY(error.startsWith(QStringLiteral("‘day’ (Mon 08:00–23:00) overlaps ‘night’")));
    QCOMPARE(m.toJson(), before);
    QCOMPARE(changed.count(), 0);

    // Moving it an hour within Saturday is fine.
    QVERIFY(m.moveWindow(2, 5 * 1440 + 11 * 60, &error));
    QVERIFY(error.isEmpty());
    QCOMPARE(m.window(2).fromMinute, 11 * 60);
    QCOMPARE(m.window(2).toMinute, 13 * 60);
    QCOMPARE(m.window(2).days, quint8(1u << 5));
    QCOMPARE(changed.count(), 1);
}

void TestScheduleModel::movesAcrossSundayIntoMonday()
{
    ScheduleModel m;
    QVERIFY(m.fromJson(schedule(QStringLiteral(
            R"([{"name": "day", "from": "08:00", "to": "20:00", "days": ["mon"], "inferenceShare": 0.7},
                {"name": "maintenance", "from": "10:00", "to": "12:00", "days": ["sat"], "inferenceShare": 0.5}])"))));
    // Sunday 23:00 for two hours: it wraps into Monday 01:00, where nothing is.
    QVERIFY(m.moveWindow(1, 6 * 1440 + 23 * 60));
    QCOMPARE(m.window(1).days, quint8(1u << 6));
    QCOMPARE(m.window(1).fromMinute, 23 * 60);
    QCOMPARE(m.window(1).toMinute, 60);
    QCOMPARE(m.windowAtMinute(30), 1); // Monday 00:30
    // Sunday 22:00 for ten hours would reach Monday 08:00's day window.
    QString error;
    QVERIFY(!m.resizeWindow(1, 22 * 60, 9 * 60, &error));
    QCOMPARE(error,
             QStringLiteral("‘maintenance’ (Sun 22:00–09:00) overlaps ‘day’ (Mon 08:00–20:00)"));
    // ... and up to 08:00 it touches, which is allowed.
    QVERIFY(m.resizeWindow(1, 22 * 60, 8 * 60));
    const QJsonObject saved = m.toJson();
    const QJsonObject w = saved[QStringLiteral("windows")].toArray()[1].toObject();
    QCOMPARE(w[QStringLiteral("from")].toString(), QStringLiteral("22:00"));
    QCOMPARE(w[QStringLiteral("to")].toString(), QStringLiteral("08:00"));
    QCOMPARE(w[QStringLiteral("days")].toArray(), QJsonArray{QStringLiteral("sun")});
}

void TestScheduleModel::wholeDayWindowsMoveByDays()
{
    ScheduleModel m;
    QVERIFY(m.fromJson(schedule(QStringLiteral(
            R"([{"name": "tuesday", "from": "09:00", "to": "09:00", "days": ["tue"], "inferenceShare": 0.9}])"))));
    // Dragged five hours later: still the whole of a day, the nearest one (Tuesday).
    QVERIFY(m.moveWindow(0, 1440 + 5 * 60));
    QCOMPARE(m.window(0).days, quint8(1u << 1));
    // Dragged to Thursday 02:00: the whole of Thursday.
    QVERIFY(m.moveWindow(0, 3 * 1440 + 2 * 60));
    QCOMPARE(m.window(0).days, quint8(1u << 3));
    QVERIFY(m.window(0).allDay());
    QCOMPARE(ScheduleModel::occurrenceText(m.window(0), 3), QStringLiteral("Thu all day"));
}

void TestScheduleModel::resizesAndRefusesBadTimes()
{
    ScheduleModel m;
    QVERIFY(m.fromJson(object(kWeek)));
    QVERIFY(m.setData(m.index(0, ScheduleModel::ToColumn), QStringLiteral("21:00")));
    QCOMPARE(m.window(0).toMinute, 21 * 60);
    QVERIFY(!m.setData(m.index(0, ScheduleModel::ToColumn), QStringLiteral("25:00")));
    QCOMPARE(m.lastProblem().code, ScheduleProblem::Code::BadTime);
    QVERIFY(!m.setData(m.index(0, ScheduleModel::InferenceShareColumn), 1.5));
    QCOMPARE(m.lastProblem().code, ScheduleProblem::Code::BadShare);
    QVERIFY(!m.setData(m.index(0, ScheduleModel::NameColumn), QStringLiteral("night")));
    QCOMPARE(m.lastProblem().code, ScheduleProblem::Code::DuplicateName);
    QVERIFY(!m.setData(m.index(0, ScheduleModel::NameColumn), QStringLiteral("  ")));
    QCOMPARE(m.lastProblem().code, ScheduleProblem::Code::EmptyName);
    QVERIFY(!m.setData(m.index(2, ScheduleModel::DaysColumn), 0));
    QCOMPARE(m.lastProblem().code, ScheduleProblem::Code::NoDays);
    QVERIFY(m.setData(m.index(2, ScheduleModel::DaysColumn),
                      QStringList{QStringLiteral("sat"), QStringLiteral("sun")}));
    QCOMPARE(m.window(2).days, quint8(0x60));
    QCOMPARE(m.data(m.index(2, ScheduleModel::DaysColumn)).toString(), QStringLiteral("Sat, Sun"));
    QCOMPARE(m.data(m.index(0, ScheduleModel::DaysColumn)).toString(), QStringLiteral("Mon–Fri"));
    QCOMPARE(m.data(m.index(1, ScheduleModel::DaysColumn)).toString(), QStringLiteral("every day"));
    QCOMPARE(m.window(0).toMinute, 21 * 60);
}

void TestScheduleModel::roundTripsTheDemoDay()
{
    const QJsonObject demo = demoWindows();
    QVERIFY(!demo.isEmpty());
    ScheduleModel m;
    QString error;
    QVERIFY2(m.fromJson(demo, &error), qPrintable(error));
    QCOMPARE(m.rowCount(), 2);
    QCOMPARE(m.window(0).name, QStringLiteral("day"));
    QCOMPARE(m.window(0).fromMinute, 7 * 60);
    QCOMPARE(m.window(0).powerCapW.value_or(0), 3200.0);
    QVERIFY(!m.window(1).bandwidthShare);
    QCOMPARE(m.mode(), QStringLiteral("drain"));
    QCOMPARE(m.toJson(), demo);
}

void TestScheduleModel::roundTripKeepsWhatItDoesNotEdit()
{
    const QJsonObject params = object(R"({
      "period": "15s", "targetUtilisation": 0.8, "defaultInferenceShare": 0.4,
      "prepareAhead": 1800, "mode": "immediate",
      "windows": [
        {"name": "weekday", "from": "08:00", "to": "24:00", "days": ["mon","tue","wed","thu","fri"],
         "inferenceShare": 0.75, "trainingPowerCapW": -1},
        {"name": "weekend", "from": "09:00", "to": "09:00", "days": ["sat","sun"],
         "inferenceShare": 0.3, "trainingBandwidthShare": 1}
      ]
    })");
    ScheduleModel m;
    QVERIFY(m.fromJson(params));
    QCOMPARE(m.toJson(), params);
    QCOMPARE(m.mode(), QStringLiteral("immediate"));
    QCOMPARE(m.defaultInferenceShare(), 0.4);

    // Only what was edited changes.
    QVERIFY(m.setData(m.index(0, ScheduleModel::NameColumn), QStringLiteral("workday")));
    QVERIFY(m.setData(m.index(1, ScheduleModel::BandwidthShareColumn), QVariant()));
    QVERIFY(m.setMode(QStringLiteral("drain")));
    QJsonObject expected = params;
    QJsonArray windows = expected[QStringLiteral("windows")].toArray();
    QJsonObject w0 = windows[0].toObject();
    w0[QStringLiteral("name")] = QStringLiteral("workday");
    QJsonObject w1 = windows[1].toObject();
    w1.remove(QStringLiteral("trainingBandwidthShare"));
    windows = {w0, w1};
    expected[QStringLiteral("windows")] = windows;
    expected[QStringLiteral("mode")] = QStringLiteral("drain");
    QCOMPARE(m.toJson(), expected);
}

void TestScheduleModel::refusesWhatTheHeadlessToolRefuses()
{
    ScheduleModel m;
    QString error;
    QVERIFY(!m.fromJson(object(R"({"mode": "sometimes", "windows": [
        {"name": "all", "from": "00:00", "to": "00:00", "inferenceShare": 0.5}]})"),
                        &error));
    QCOMPARE(m.lastProblem().code, ScheduleProblem::Code::PolicyRefused);
    QVERIFY2(error.startsWith(QStringLiteral("The policy refuses it: mode: ")), qPrintable(error));
    QVERIFY(!m.fromJson(object(R"({"windows": [
        {"name": "all", "from": "7:00", "to": "00:00", "inferenceShare": 0.5}]})"),
                        &error));
    QVERIFY2(error.contains(QStringLiteral("windows[0].from")), qPrintable(error));
    QVERIFY(!m.fromJson(object(R"({"windows": []})"), &error));
    QCOMPARE(m.rowCount(), 0);

    QVERIFY(m.fromJson(object(kWeek)));
    QVERIFY(!m.setMode(QStringLiteral("sometimes"), &error));
    QCOMPARE(m.lastProblem().code, ScheduleProblem::Code::BadMode);
    QCOMPARE(m.mode(), QStringLiteral("drain"));
    // A power cap beyond what the reader takes: its error, through the model's words.
    ScheduleWindow w = m.window(0);
    w.powerCapW = 2e7;
    QVERIFY(!m.setWindow(0, w, &error));
    QCOMPARE(m.lastProblem().code, ScheduleProblem::Code::PolicyRefused);
    QCOMPARE(m.lastProblem().field, QStringLiteral("windows[0].trainingPowerCapW"));
}

void TestScheduleModel::keepsAtLeastOneWindow()
{
    ScheduleModel m;
    QVERIFY(m.fromJson(schedule(QStringLiteral(
            R"([{"name": "a", "from": "08:00", "to": "12:00", "inferenceShare": 0.5},
                {"name": "b", "from": "12:00", "to": "14:00", "inferenceShare": 0.5}])"))));
    QVERIFY(m.removeWindow(0));
    QCOMPARE(m.window(0).name, QStringLiteral("b"));
    QString error;
    QVERIFY(!m.removeWindow(0, &error));
    QCOMPARE(m.lastProblem().code, ScheduleProblem::Code::NoWindows);
    QCOMPARE(m.rowCount(), 1);
    QVERIFY(!m.setWindow(5, m.window(0), &error));
    QCOMPARE(m.lastProblem().code, ScheduleProblem::Code::NoSuchWindow);
    // Just past the last row too: an edit is no append, whatever it names.
    const int past = m.rowCount();
    QVERIFY(!m.setWindow(past, m.window(0), &error));
    QCOMPARE(m.lastProblem().code, ScheduleProblem::Code::NoSuchWindow);
    QCOMPARE(error, QStringLiteral("There is no window 2."));
    QVERIFY(!m.removeWindow(past));
    QCOMPARE(m.lastProblem().code, ScheduleProblem::Code::NoSuchWindow);
    QVERIFY(!m.moveWindow(past, 600));
    QCOMPARE(m.lastProblem().code, ScheduleProblem::Code::NoSuchWindow);
    QVERIFY(!m.resizeWindow(past, 600, 700));
    QCOMPARE(m.lastProblem().code, ScheduleProblem::Code::NoSuchWindow);
    QCOMPARE(m.rowCount(), 1);
}

void TestScheduleModel::agreesWithThePolicyOnEveryMinute()
{
    ScheduleModel m;
    QVERIFY(m.fromJson(object(kWeek)));
    QVERIFY(m.moveWindow(2, 6 * 1440 + 19 * 60 + 30)); // Sunday 19:30-21:30
    QVERIFY(m.resizeWindow(2, 20 * 60 + 30, 22 * 60));
    Policy::PolicyError perr;
    const auto policy = Policy::TimeWindows::create(m.toJson(), &perr);
    QVERIFY(policy);
    const auto *tw = static_cast<const Policy::TimeWindows *>(policy.get());
    for (int minute = 0; minute < ScheduleModel::kMinutesPerWeek; ++minute) {
        if (m.windowAtMinute(minute) != tw->windowAt(qint64(minute) * 60'000))
            QFAIL(qPrintable(QStringLiteral("minute %1 of the week").arg(minute)));
    }
}

void TestScheduleModel::nextSwitchesInUtcPlus8_data()
{
    QTest::addColumn<QString>("now");          // local time, ISO with offset
    QTest::addColumn<QStringList>("expected"); // "Day HH:MM from/to"
    QTest::addColumn<QString>("firstAt");      // the first switch, local ISO

    QTest::newRow("Monday before work") << QStringLiteral("2026-01-05T07:30:00+08:00")
                                        << QStringList{QStringLiteral("Mon 08:00 -/day"),
                                                       QStringLiteral("Mon 20:00 day/-"),
                                                       QStringLiteral("Mon 22:00 -/night"),
                                                       QStringLiteral("Tue 06:00 night/-")}
                                        << QStringLiteral("2026-01-05T08:00:00+08:00");
    QTest::newRow("half a minute before the edge") << QStringLiteral("2026-01-05T07:59:30+08:00")
                                                   << QStringList{QStringLiteral("Mon 08:00 -/day")}
                                                   << QStringLiteral("2026-01-05T08:00:00+08:00");
    QTest::newRow("at the edge: the next one") << QStringLiteral("2026-01-05T08:00:00+08:00")
                                               << QStringList{QStringLiteral("Mon 20:00 day/-")}
                                               << QStringLiteral("2026-01-05T20:00:00+08:00");
    QTest::newRow("Friday night into the weekend")
            << QStringLiteral("2026-01-09T23:00:00+08:00")
            << QStringList{QStringLiteral("Sat 06:00 night/-"),
                           QStringLiteral("Sat 10:00 -/maintenance"),
                           QStringLiteral("Sat 12:00 maintenance/-"),
                           QStringLiteral("Sat 22:00 -/night")}
            << QStringLiteral("2026-01-10T06:00:00+08:00");
    QTest::newRow("Sunday night into Monday")
            << QStringLiteral("2026-01-11T23:00:00+08:00")
            << QStringList{QStringLiteral("Mon 06:00 night/-"), QStringLiteral("Mon 08:00 -/day")}
            << QStringLiteral("2026-01-12T06:00:00+08:00");
}

void TestScheduleModel::nextSwitchesInUtcPlus8()
{
    QFETCH(QString, now);
    QFETCH(QStringList, expected);
    QFETCH(QString, firstAt);
    ScheduleModel m;
    QVERIFY(m.fromJson(object(kWeek)));
    const qint64 nowMs = localMs(now.toLatin1().constData());
    const QList<ScheduleSwitch> switches = m.nextSwitches(nowMs, kUtc8, int(expected.size()));
    QStringList got;
    for (const ScheduleSwitch &s : switches)
        got << switchText(m, s);
    QCOMPARE(got, expected);
    QCOMPARE(switches.first().atUtcMs, localMs(firstAt.toLatin1().constData()));
    for (qsizetype i = 1; i < switches.size(); ++i)
        QVERIFY(switches[i].atUtcMs > switches[i - 1].atUtcMs);
}

void TestScheduleModel::oneWindowAllWeekNeverSwitches()
{
    ScheduleModel m;
    QVERIFY(m.fromJson(schedule(QStringLiteral(
            R"([{"name": "always", "from": "00:00", "to": "00:00", "inferenceShare": 0.5}])"))));
    QVERIFY(m.nextSwitches(localMs("2026-01-05T07:30:00+08:00"), kUtc8, 3).isEmpty());
    // Switches wrap into the following weeks when more are asked for than a week has.
    QVERIFY(m.fromJson(schedule(QStringLiteral(
            R"([{"name": "mon", "from": "08:00", "to": "09:00", "days": ["mon"], "inferenceShare": 0.5}])"))));
    const QList<ScheduleSwitch> s = m.nextSwitches(localMs("2026-01-05T07:30:00+08:00"), kUtc8, 4);
    QCOMPARE(s.size(), 4);
    QCOMPARE(s[2].atUtcMs - s[0].atUtcMs, 7 * 24 * 3600'000LL);
}

void TestScheduleModel::rolesAndOneDataChangedPerEdit()
{
    ScheduleModel m;
    QVERIFY(m.fromJson(demoWindows()));
    const QModelIndex night = m.index(1, ScheduleModel::NameColumn);
    QCOMPARE(night.data(ScheduleModel::NameRole).toString(), QStringLiteral("night"));
    QCOMPARE(night.data(ScheduleModel::FromMinuteRole).toInt(), 22 * 60);
    QCOMPARE(night.data(ScheduleModel::LengthMinutesRole).toInt(), 9 * 60);
    QCOMPARE(night.data(ScheduleModel::WrapsRole).toBool(), true);
    QCOMPARE(night.data(ScheduleModel::DaysRole).toInt(), 0x7f);
    QCOMPARE(night.data(ScheduleModel::InferenceShareRole).toDouble(), 0.15);
    QVERIFY(!night.data(ScheduleModel::BandwidthShareRole).isValid());
    QCOMPARE(m.index(0, ScheduleModel::PowerCapColumn).data().toString(), QStringLiteral("3200 W"));
    QCOMPARE(m.index(1, ScheduleModel::PowerCapColumn).data().toString(),
             QStringLiteral("default"));
    QCOMPARE(m.index(0, ScheduleModel::InferenceShareColumn).data().toString(),
             QStringLiteral("65 %"));

    QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
    QVERIFY(m.setData(m.index(0, ScheduleModel::InferenceShareColumn), 0.7));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.first().at(0).toModelIndex(), m.index(0, 0));
    QCOMPARE(changed.first().at(1).toModelIndex(), m.index(0, ScheduleModel::ColumnCount - 1));
    // No change, no signal.
    QVERIFY(m.setData(m.index(0, ScheduleModel::InferenceShareColumn), 0.7));
    QCOMPARE(changed.count(), 1);
}

void TestScheduleModel::passesTheModelTester()
{
    ScheduleModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(m.fromJson(object(kWeek)));
    QVERIFY(m.moveWindow(2, 5 * 1440 + 13 * 60));
    QVERIFY(m.resizeWindow(0, 9 * 60, 19 * 60));
    ScheduleWindow extra;
    extra.name = QStringLiteral("extra");
    extra.days = 1u << 6;
    extra.fromMinute = 12 * 60;
    extra.toMinute = 14 * 60;
    QVERIFY(m.insertWindow(1, extra));
    QCOMPARE(m.window(1).name, QStringLiteral("extra"));
    QVERIFY(m.setData(m.index(1, ScheduleModel::NameColumn), QStringLiteral("sunday")));
    QVERIFY(m.removeWindow(0));
    QVERIFY(m.fromJson(demoWindows()));
    m.retranslate();
    QCOMPARE(m.rowCount(), 2);
}

QTEST_GUILESS_MAIN(TestScheduleModel)
#include "tst_schedulemodel.moc"
