// SPDX-License-Identifier: GPL-3.0-or-later
// ScheduleModel: the schedule (loading, saving, checks, edits) and its clock (the item model and
// its words are in schedulemodelitems.cpp).
#include "schedulemodel.h"
#include "schedulemodel_p.h"

#include "core/policy/timewindows.h"

#include <QJsonArray>
#include <QRegularExpression>

#include <cmath>
#include <vector>

namespace Zhaoxi::Models {

using namespace ScheduleDetail;

namespace {

constexpr int kWeek = ScheduleModel::kMinutesPerWeek;
constexpr qint64 kDayMs = 24 * 3600'000LL;
constexpr qint64 kWeekMs = 7 * kDayMs;

QJsonArray daysJson(quint8 mask)
{
    const QStringList &keys = Policy::TimeWindows::dayKeys();
    QJsonArray a;
    for (int k = 0; k < 7; ++k) {
        if (mask >> k & 1)
            a.append(keys[k]);
    }
    return a;
}

quint8 rotateDays(quint8 mask, int shift)
{
    shift = int(floorMod(shift, 7));
    quint8 out = 0;
    for (int k = 0; k < 7; ++k) {
        if (mask >> k & 1)
            out |= quint8(1u << ((k + shift) % 7));
    }
    return out;
}

// The day whose occurrence of `w` covers `minute` of the week (-1: none).
int occurrenceDayAt(const ScheduleWindow &w, int minute)
{
    const int len = w.lengthMinutes();
    for (int d = 0; d < 7; ++d) {
        if (!(w.days >> d & 1))
            continue;
        if (floorMod(minute - (d * kDay + w.effectiveFrom()), kWeek) < len)
            return d;
    }
    return -1;
}

bool sameNumber(const QJsonObject &o, const char *key, double value)
{
    const QJsonValue v = o.value(QLatin1String(key));
    return v.isDouble() && v.toDouble() == value;
}

// The parameters with `windows` written over them; values that did not change keep the spelling
// they were read with.
QJsonObject buildJson(QJsonObject params, const QList<ScheduleWindow> &windows)
{
    QJsonArray array;
    for (const ScheduleWindow &w : windows) {
        QJsonObject o = w.source;
        if (o.value(QLatin1String("name")).toString() != w.name
            || !o.contains(QLatin1String("name")))
            o.insert(QLatin1String("name"), w.name);
        if (parseTime(o.value(QLatin1String("from"))) != w.fromMinute)
            o.insert(QLatin1String("from"), ScheduleModel::timeText(w.fromMinute));
        if (parseTime(o.value(QLatin1String("to"))) != w.toMinute)
            o.insert(QLatin1String("to"), ScheduleModel::timeText(w.toMinute));
        const bool hadDays = o.contains(QLatin1String("days"));
        const quint8 oldDays
                = hadDays ? parseDays(o.value(QLatin1String("days")).toArray()) : quint8(0x7f);
        if (oldDays != w.days || (hadDays && !o.value(QLatin1String("days")).isArray()))
            o.insert(QLatin1String("days"), daysJson(w.days));
        if (!sameNumber(o, "inferenceShare", w.inferenceShare))
            o.insert(QLatin1String("inferenceShare"), w.inferenceShare);
        if (!w.bandwidthShare)
            o.remove(QLatin1String("trainingBandwidthShare"));
        else if (!sameNumber(o, "trainingBandwidthShare", *w.bandwidthShare))
            o.insert(QLatin1String("trainingBandwidthShare"), *w.bandwidthShare);
        if (!w.powerCapW)
            o.remove(QLatin1String("trainingPowerCapW"));
        else if (!sameNumber(o, "trainingPowerCapW", *w.powerCapW))
            o.insert(QLatin1String("trainingPowerCapW"), *w.powerCapW);
        array.append(o);
    }
    params.insert(QLatin1String("windows"), array);
    return params;
}

bool validShare(double v)
{
    return std::isfinite(v) && v >= 0 && v <= 1;
}

} // namespace

int ScheduleWindow::lengthMinutes() const
{
    if (fromMinute == toMinute)
        return kDay;
    if (fromMinute < toMinute)
        return toMinute - fromMinute;
    return kDay - fromMinute + toMinute;
}

ScheduleModel::ScheduleModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

// ---- loading and saving ----------------------------------------------------------------------

bool ScheduleModel::fromJson(const QJsonObject &windowsParams, QString *error)
{
    // The headless tool's reader first: the editor never holds what the tool would refuse.
    Policy::PolicyError perr;
    if (!Policy::TimeWindows::create(windowsParams, &perr)) {
        ScheduleProblem p;
        p.code = ScheduleProblem::Code::PolicyRefused;
        p.field = perr.field;
        p.text = tr("The policy refuses it: %1")
                         .arg(perr.field.isEmpty()
                                      ? perr.message
                                      : perr.field + QStringLiteral(": ") + perr.message);
        m_lastProblem = p;
        if (error)
            *error = p.text;
        return false;
    }
    QList<ScheduleWindow> windows;
    const QJsonArray array = windowsParams.value(QLatin1String("windows")).toArray();
    for (const QJsonValue &v : array) {
        const QJsonObject o = v.toObject();
        ScheduleWindow w;
        w.source = o;
        w.name = o.value(QLatin1String("name")).toString();
        w.fromMinute = parseTime(o.value(QLatin1String("from")));
        w.toMinute = parseTime(o.value(QLatin1String("to")));
        if (o.contains(QLatin1String("days")))
            w.days = parseDays(o.value(QLatin1String("days")).toArray());
        w.inferenceShare = o.value(QLatin1String("inferenceShare")).toDouble();
        if (o.contains(QLatin1String("trainingBandwidthShare")))
            w.bandwidthShare = o.value(QLatin1String("trainingBandwidthShare")).toDouble();
        if (o.contains(QLatin1String("trainingPowerCapW")))
            w.powerCapW = o.value(QLatin1String("trainingPowerCapW")).toDouble();
        windows.append(w);
    }
    QJsonObject params = windowsParams;
    params.remove(QLatin1String("windows"));
    std::shared_ptr<const Policy::TimeWindows> policy;
    const ScheduleProblem p = check(windows, params, -1, &policy);
    if (!p.ok()) {
        m_lastProblem = p;
        if (error)
            *error = p.text;
        return false;
    }
    beginResetModel();
    m_windows = windows;
    m_params = params;
    adopt(std::move(policy));
    endResetModel();
    m_lastProblem = {};
    Q_EMIT scheduleChanged();
    return true;
}

QJsonObject ScheduleModel::toJson() const
{
    return buildJson(m_params, m_windows);
}

QString ScheduleModel::mode() const
{
    return m_params.value(QLatin1String("mode")).toString(QStringLiteral("drain"));
}

double ScheduleModel::defaultInferenceShare() const
{
    return m_params.value(QLatin1String("defaultInferenceShare")).toDouble(0.5);
}

int ScheduleModel::rowOfName(const QString &name) const
{
    for (int i = 0; i < m_windows.size(); ++i) {
        if (m_windows[i].name == name)
            return i;
    }
    return -1;
}

// ---- checks ----------------------------------------------------------------------------------

ScheduleProblem ScheduleModel::validate() const
{
    return check(m_windows, m_params, -1);
}

ScheduleProblem ScheduleModel::checkWindow(int row, const ScheduleWindow &candidate) const
{
    QList<ScheduleWindow> windows = m_windows;
    if (row == windows.size()) {
        windows.append(candidate);
    } else if (row >= 0 && row < windows.size()) {
        windows[row] = candidate;
    } else {
        return noSuchWindow(row);
    }
    return check(windows, m_params, row);
}

ScheduleProblem ScheduleModel::noSuchWindow(int row) const
{
    ScheduleProblem p;
    p.code = ScheduleProblem::Code::NoSuchWindow;
    p.row = row;
    p.text = tr("There is no window %1.").arg(row + 1);
    return p;
}

ScheduleProblem ScheduleModel::check(const QList<ScheduleWindow> &windows,
                                     const QJsonObject &params,
                                     int focus,
                                     std::shared_ptr<const Policy::TimeWindows> *policy) const
{
    using Code = ScheduleProblem::Code;
    ScheduleProblem p;
    if (windows.isEmpty()) {
        p.code = Code::NoWindows;
        p.text = tr("The schedule needs at least one window.");
        return p;
    }
    // The window being edited is looked at first, so that a refusal names it first.
    QList<int> order;
    if (focus >= 0 && focus < windows.size())
        order.append(focus);
    for (int i = 0; i < windows.size(); ++i) {
        if (i != focus)
            order.append(i);
    }
    for (int i : order) {
        const ScheduleWindow &w = windows[i];
        p.row = i;
        if (w.name.trimmed().isEmpty()) {
            p.code = Code::EmptyName;
            p.text = tr("Window %1 needs a name.").arg(i + 1);
            return p;
        }
        if ((w.days & 0x7f) == 0) {
            p.code = Code::NoDays;
            p.text = tr("‘%1’ opens on no day: choose at least one.").arg(w.name);
            return p;
        }
        if (w.fromMinute < 0 || w.fromMinute > kDay || w.toMinute < 0 || w.toMinute > kDay) {
            p.code = Code::BadTime;
            p.text = tr("‘%1’: times run from 00:00 to 24:00.").arg(w.name);
            return p;
        }
        if (!validShare(w.inferenceShare) || (w.bandwidthShare && !validShare(*w.bandwidthShare))) {
            p.code = Code::BadShare;
            p.text = tr("‘%1’: shares run from 0 to 100 %.").arg(w.name);
            return p;
        }
        if (w.lengthMinutes() <= 0) {
            p.code = Code::EmptyWindow;
            p.text = tr("‘%1’ covers no time.").arg(w.name);
            return p;
        }
        for (int j = 0; j < windows.size(); ++j) {
            if (j != i && windows[j].name == w.name) {
                p.code = Code::DuplicateName;
                p.otherRow = j;
                p.text = tr("Two windows are named ‘%1’.").arg(w.name);
                return p;
            }
        }
    }
    p.row = -1;

    // Each minute of the week has at most one owner; the first window to claim a minute is named
    // first. Occurrences wrap past midnight and from Sunday into Monday.
    std::vector<int> owner(kWeek, -1);
    for (int i : order) {
        const ScheduleWindow &w = windows[i];
        const int len = w.lengthMinutes();
        for (int d = 0; d < 7; ++d) {
            if (!(w.days >> d & 1))
                continue;
            const int start = d * kDay + w.effectiveFrom();
            for (int k = 0; k < len; ++k) {
                const int m = (start + k) % kWeek;
                const int o = owner[size_t(m)];
                if (o >= 0 && o != i) {
                    const int od = occurrenceDayAt(windows[o], m);
                    p.code = Code::Overlap;
                    p.row = o;
                    p.day = od;
                    p.otherRow = i;
                    p.otherDay = d;
                    p.text = tr("‘%1’ (%2) overlaps ‘%3’ (%4)")
                                     .arg(windows[o].name,
                                          occurrenceText(windows[o], od),
                                          w.name,
                                          occurrenceText(w, d));
                    return p;
                }
                owner[size_t(m)] = i;
            }
        }
    }

    const QJsonValue mode = params.value(QLatin1String("mode"));
    if (!mode.isUndefined() && mode.toString() != QLatin1String("drain")
        && mode.toString() != QLatin1String("immediate")) {
        p.code = Code::BadMode;
        p.text = tr("The mode must be drain or immediate.");
        return p;
    }

    // The same reader the headless tool and the session use.
    Policy::PolicyError perr;
    std::unique_ptr<Policy::Policy> built
            = Policy::TimeWindows::create(buildJson(params, windows), &perr);
    if (!built) {
        p.code = Code::PolicyRefused;
        p.field = perr.field;
        p.text = tr("The policy refuses it: %1")
                         .arg(perr.field.isEmpty()
                                      ? perr.message
                                      : perr.field + QStringLiteral(": ") + perr.message);
        return p;
    }
    if (policy) {
        *policy = std::static_pointer_cast<const Policy::TimeWindows>(
                std::shared_ptr<const Policy::Policy>(std::move(built)));
    }
    return {};
}

bool ScheduleModel::refuse(const ScheduleProblem &problem, QString *error)
{
    m_lastProblem = problem;
    if (error)
        *error = problem.text;
    Q_EMIT editRefused(problem.text);
    return false;
}

void ScheduleModel::adopt(std::shared_ptr<const Policy::TimeWindows> policy)
{
    m_policy = std::move(policy);
    m_owner.clear();
    m_switchCache = {};
}

bool ScheduleModel::accept(QString *error)
{
    m_lastProblem = {};
    if (error)
        error->clear();
    Q_EMIT scheduleChanged();
    return true;
}

// ---- edits -----------------------------------------------------------------------------------

bool ScheduleModel::setWindow(int row, const ScheduleWindow &window, QString *error)
{
    if (row < 0 || row >= m_windows.size())
        return refuse(noSuchWindow(row), error);
    if (m_windows[row] == window) {
        m_lastProblem = {};
        if (error)
            error->clear();
        return true;
    }
    QList<ScheduleWindow> windows = m_windows;
    windows[row] = window;
    std::shared_ptr<const Policy::TimeWindows> policy;
    const ScheduleProblem p = check(windows, m_params, row, &policy);
    if (!p.ok())
        return refuse(p, error);
    m_windows[row] = window;
    adopt(std::move(policy));
    Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
    return accept(error);
}

bool ScheduleModel::insertWindow(int row, const ScheduleWindow &window, QString *error)
{
    if (row < 0 || row > m_windows.size())
        return refuse(noSuchWindow(row), error);
    QList<ScheduleWindow> windows = m_windows;
    windows.insert(row, window);
    std::shared_ptr<const Policy::TimeWindows> policy;
    const ScheduleProblem p = check(windows, m_params, row, &policy);
    if (!p.ok())
        return refuse(p, error);
    beginInsertRows(QModelIndex(), row, row);
    m_windows = windows;
    adopt(std::move(policy));
    endInsertRows();
    return accept(error);
}

bool ScheduleModel::removeWindow(int row, QString *error)
{
    if (row < 0 || row >= m_windows.size())
        return refuse(noSuchWindow(row), error);
    QList<ScheduleWindow> windows = m_windows;
    windows.removeAt(row);
    std::shared_ptr<const Policy::TimeWindows> policy;
    const ScheduleProblem p = check(windows, m_params, -1, &policy);
    if (!p.ok())
        return refuse(p, error);
    beginRemoveRows(QModelIndex(), row, row);
    m_windows = windows;
    adopt(std::move(policy));
    endRemoveRows();
    return accept(error);
}

ScheduleWindow ScheduleModel::moved(const ScheduleWindow &window,
                                    int newFromMinuteOfWeek,
                                    int occurrenceDay)
{
    ScheduleWindow w = window;
    const int d0 = occurrenceDay >= 0 ? occurrenceDay % 7 : firstDay(window.days);
    const int len = window.lengthMinutes();
    const qint64 delta
            = floorMod(qint64(newFromMinuteOfWeek) - (d0 * kDay + window.effectiveFrom()), kWeek);
    if (len >= kDay) {
        // A whole day cannot start at 03:00 ("from == to" means the calendar day): whole days.
        const int days = int(std::lround(double(delta) / kDay));
        w.days = rotateDays(window.days, days);
        return w;
    }
    const qint64 total = window.effectiveFrom() + delta;
    w.fromMinute = int(total % kDay);
    w.days = rotateDays(window.days, int(total / kDay));
    w.toMinute = w.fromMinute + len;
    if (w.toMinute > kDay)
        w.toMinute -= kDay;
    return w;
}

bool ScheduleModel::moveWindow(int row, int newFromMinuteOfWeek, QString *error, int occurrenceDay)
{
    if (row < 0 || row >= m_windows.size())
        return refuse(noSuchWindow(row), error);
    return setWindow(row, moved(m_windows[row], newFromMinuteOfWeek, occurrenceDay), error);
}

bool ScheduleModel::resizeWindow(int row, int fromMinute, int toMinute, QString *error)
{
    if (row < 0 || row >= m_windows.size())
        return refuse(noSuchWindow(row), error);
    ScheduleWindow w = m_windows[row];
    w.fromMinute = fromMinute;
    w.toMinute = toMinute;
    return setWindow(row, w, error);
}

bool ScheduleModel::setMode(const QString &mode, QString *error)
{
    if (mode == this->mode()) {
        m_lastProblem = {};
        return true;
    }
    QJsonObject params = m_params;
    params.insert(QLatin1String("mode"), mode);
    std::shared_ptr<const Policy::TimeWindows> policy;
    const ScheduleProblem p = check(m_windows, params, -1, &policy);
    if (!p.ok())
        return refuse(p, error);
    m_params = params;
    adopt(std::move(policy));
    return accept(error);
}

// ---- time ------------------------------------------------------------------------------------

int ScheduleModel::minuteOfWeek(qint64 utcMs, int utcOffsetSeconds)
{
    // The epoch was a Thursday: Monday 00:00 is three days before it.
    const qint64 local = utcMs + qint64(utcOffsetSeconds) * 1000 + 3 * kDayMs;
    return int(floorMod(local, kWeekMs) / 60'000);
}

int ScheduleModel::windowAtMinute(int minuteOfWeek) const
{
    // The policy's own reading of the schedule held (its rows in the same order).
    return m_policy ? m_policy->windowAt(qint64(minuteOfWeek) * 60'000) : -1;
}

QList<ScheduleSwitch> ScheduleModel::nextSwitches(qint64 nowUtcMs,
                                                  int utcOffsetSeconds,
                                                  int count) const
{
    QList<ScheduleSwitch> out;
    if (count <= 0)
        return out;
    const qint64 local = nowUtcMs + qint64(utcOffsetSeconds) * 1000 + 3 * kDayMs;
    const qint64 weekMs = floorMod(local, kWeekMs);
    // The answer depends on the local minute only, not on the time within it: the editor asks on
    // every snapshot, and gets the last answer until the minute (or the schedule) changes.
    const qint64 minuteStartMs = local - floorMod(local, 60'000);
    SwitchCache &cache = m_switchCache;
    if (cache.valid && cache.minuteStartMs == minuteStartMs
        && cache.utcOffsetSeconds == utcOffsetSeconds && cache.count == count)
        return cache.switches;
    // The owner of each minute as the policy decides it (the first window that matches wins).
    if (m_owner.empty()) {
        m_owner.resize(size_t(kWeek));
        for (int m = 0; m < kWeek; ++m)
            m_owner[size_t(m)] = windowAtMinute(m);
    }
    const std::vector<int> &owner = m_owner;
    const qint64 m0 = weekMs / 60'000;
    int current = owner[size_t(m0)];
    for (qint64 k = 1; out.size() < count; ++k) {
        if (k > kWeek && out.isEmpty())
            break; // one window all week, or none: nothing ever changes
        const qint64 m = m0 + k;
        const int o = owner[size_t(m % kWeek)];
        if (o == current)
            continue;
        ScheduleSwitch s;
        s.atUtcMs = nowUtcMs + (m * 60'000 - weekMs);
        s.minuteOfWeek = int(m % kWeek);
        s.fromRow = current;
        s.toRow = o;
        out.append(s);
        current = o;
    }
    cache = {true, minuteStartMs, utcOffsetSeconds, count, out};
    return out;
}

} // namespace Zhaoxi::Models
