// SPDX-License-Identifier: GPL-3.0-or-later
// ScheduleModel: the item model over the windows (data, edits in place, headers, roles) and the
// words it shows them in. The schedule itself, its checks and edits are in schedulemodel.cpp.
#include "schedulemodel.h"
#include "schedulemodel_p.h"

namespace Zhaoxi::Models {

using namespace ScheduleDetail;

QString ScheduleModel::dayName(int day)
{
    switch (floorMod(day, 7)) {
    case 0:
        return tr("Mon");
    case 1:
        return tr("Tue");
    case 2:
        return tr("Wed");
    case 3:
        return tr("Thu");
    case 4:
        return tr("Fri");
    case 5:
        return tr("Sat");
    default:
        return tr("Sun");
    }
}

QString ScheduleModel::timeText(int minute)
{
    return QStringLiteral("%1:%2")
            .arg(minute / 60, 2, 10, QLatin1Char('0'))
            .arg(minute % 60, 2, 10, QLatin1Char('0'));
}

QString ScheduleModel::daysText(quint8 days)
{
    days &= 0x7f;
    if (days == 0x7f)
        return tr("every day");
    if (days == 0)
        return tr("no day");
    // Runs of three or more days read as a range: "Mon–Fri".
    QStringList parts;
    int d = 0;
    while (d < 7) {
        if (!(days >> d & 1)) {
            ++d;
            continue;
        }
        int e = d;
        while (e + 1 < 7 && (days >> (e + 1) & 1))
            ++e;
        if (e - d >= 2) {
            parts << tr("%1–%2").arg(dayName(d), dayName(e));
        } else {
            for (int k = d; k <= e; ++k)
                parts << dayName(k);
        }
        d = e + 1;
    }
    return parts.join(tr(", "));
}

QString ScheduleModel::occurrenceText(const ScheduleWindow &window, int day)
{
    if (window.lengthMinutes() >= kDay && window.effectiveFrom() == 0)
        return tr("%1 all day").arg(dayName(day));
    int end = window.effectiveFrom() + window.lengthMinutes();
    if (end > kDay)
        end -= kDay;
    return tr("%1 %2–%3").arg(dayName(day), timeText(window.effectiveFrom()), timeText(end));
}

QString ScheduleModel::shareText(double share)
{
    return tr("%1 %").arg(std::lround(share * 100));
}

// ---- the item model --------------------------------------------------------------------------

int ScheduleModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_windows.size());
}

int ScheduleModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ScheduleModel::displayData(const ScheduleWindow &w, int column) const
{
    switch (column) {
    case NameColumn:
        return w.name;
    case DaysColumn:
        return daysText(w.days);
    case FromColumn:
        return timeText(w.fromMinute);
    case ToColumn:
        return timeText(w.toMinute);
    case InferenceShareColumn:
        return shareText(w.inferenceShare);
    case BandwidthShareColumn:
        return w.bandwidthShare ? shareText(*w.bandwidthShare) : tr("default");
    case PowerCapColumn:
        if (!w.powerCapW)
            return tr("default");
        if (*w.powerCapW <= 0)
            return tr("no cap");
        return tr("%1 W").arg(std::lround(*w.powerCapW));
    default:
        return {};
    }
}

QVariant ScheduleModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid()
        || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ScheduleWindow &w = m_windows[index.row()];
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        return displayData(w, column);
    case Qt::EditRole:
        switch (column) {
        case NameColumn:
            return w.name;
        case DaysColumn:
            return int(w.days);
        case FromColumn:
            return timeText(w.fromMinute);
        case ToColumn:
            return timeText(w.toMinute);
        case InferenceShareColumn:
            return w.inferenceShare;
        case BandwidthShareColumn:
            return w.bandwidthShare ? QVariant(*w.bandwidthShare) : QVariant();
        case PowerCapColumn:
            return w.powerCapW ? QVariant(*w.powerCapW) : QVariant();
        default:
            return {};
        }
    case Qt::ToolTipRole:
        return tr("%1: %2, %3").arg(w.name, daysText(w.days), occurrenceText(w, firstDay(w.days)));
    case NameRole:
        return w.name;
    case DaysRole:
        return int(w.days);
    case FromMinuteRole:
        return w.fromMinute;
    case ToMinuteRole:
        return w.toMinute;
    case LengthMinutesRole:
        return w.lengthMinutes();
    case AllDayRole:
        return w.allDay();
    case WrapsRole:
        return w.effectiveFrom() + w.lengthMinutes() > kDay;
    case InferenceShareRole:
        return w.inferenceShare;
    case BandwidthShareRole:
        return w.bandwidthShare ? QVariant(*w.bandwidthShare) : QVariant();
    case PowerCapWRole:
        return w.powerCapW ? QVariant(*w.powerCapW) : QVariant();
    case SortRole:
        switch (column) {
        case NameColumn:
            return w.name;
        case DaysColumn:
            return firstDay(w.days) * kDay + w.effectiveFrom();
        case FromColumn:
            return w.fromMinute;
        case ToColumn:
            return w.toMinute;
        case InferenceShareColumn:
            return w.inferenceShare;
        case BandwidthShareColumn:
            return w.bandwidthShare.value_or(-1);
        case PowerCapColumn:
            return w.powerCapW.value_or(-2);
        default:
            return {};
        }
    default:
        return {};
    }
}

bool ScheduleModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (!index.isValid()
        || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return false;
    int field = -1;
    if (role == Qt::EditRole) {
        field = index.column();
    } else {
        switch (role) {
        case NameRole:
            field = NameColumn;
            break;
        case DaysRole:
            field = DaysColumn;
            break;
        case FromMinuteRole:
            field = FromColumn;
            break;
        case ToMinuteRole:
            field = ToColumn;
            break;
        case InferenceShareRole:
            field = InferenceShareColumn;
            break;
        case BandwidthShareRole:
            field = BandwidthShareColumn;
            break;
        case PowerCapWRole:
            field = PowerCapColumn;
            break;
        default:
            return false;
        }
    }
    ScheduleWindow w = m_windows[index.row()];
    auto minuteOf = [&](const QVariant &v) {
        return v.typeId() == QMetaType::QString ? parseTime(QJsonValue(v.toString()))
                                                : (v.canConvert<int>() ? v.toInt() : -1);
    };
    switch (field) {
    case NameColumn:
        w.name = value.toString().trimmed();
        break;
    case DaysColumn:
        if (value.typeId() == QMetaType::QStringList)
            w.days = parseDays(QJsonArray::fromStringList(value.toStringList()));
        else
            w.days = quint8(value.toInt() & 0x7f);
        break;
    case FromColumn:
        w.fromMinute = minuteOf(value);
        break;
    case ToColumn:
        w.toMinute = minuteOf(value);
        break;
    case InferenceShareColumn:
        w.inferenceShare = value.toDouble();
        break;
    case BandwidthShareColumn:
        if (value.isValid() && !value.isNull())
            w.bandwidthShare = value.toDouble();
        else
            w.bandwidthShare.reset();
        break;
    case PowerCapColumn:
        if (value.isValid() && !value.isNull())
            w.powerCapW = value.toDouble();
        else
            w.powerCapW.reset();
        break;
    default:
        return false;
    }
    return setWindow(index.row(), w);
}

Qt::ItemFlags ScheduleModel::flags(const QModelIndex &index) const
{
    if (!index.isValid()
        || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsEditable | Qt::ItemNeverHasChildren;
}

QVariant ScheduleModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn:
        return tr("Window");
    case DaysColumn:
        return tr("Days");
    case FromColumn:
        return tr("From");
    case ToColumn:
        return tr("To");
    case InferenceShareColumn:
        return tr("Inference share");
    case BandwidthShareColumn:
        return tr("Training bandwidth");
    case PowerCapColumn:
        return tr("Training power cap");
    default:
        return {};
    }
}

QHash<int, QByteArray> ScheduleModel::roleNames() const
{
    QHash<int, QByteArray> names = QAbstractTableModel::roleNames();
    names.insert(NameRole, "name");
    names.insert(DaysRole, "days");
    names.insert(FromMinuteRole, "fromMinute");
    names.insert(ToMinuteRole, "toMinute");
    names.insert(LengthMinutesRole, "lengthMinutes");
    names.insert(AllDayRole, "allDay");
    names.insert(WrapsRole, "wraps");
    names.insert(InferenceShareRole, "inferenceShare");
    names.insert(BandwidthShareRole, "bandwidthShare");
    names.insert(PowerCapWRole, "powerCapW");
    names.insert(SortRole, "sort");
    return names;
}

void ScheduleModel::retranslate()
{
    Q_EMIT headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
    if (!m_windows.isEmpty())
        Q_EMIT dataChanged(index(0, 0), index(int(m_windows.size()) - 1, ColumnCount - 1));
}

} // namespace Zhaoxi::Models
