// SPDX-License-Identifier: GPL-3.0-or-later
// What the two halves of ScheduleModel share (schedulemodel.cpp: the schedule, its checks and
// edits; schedulemodelitems.cpp: the item model and its words). Not a public header.
#pragma once

#include "schedulemodel.h"

#include "core/policy/timewindows.h"

#include <QJsonArray>
#include <QJsonValue>
#include <QRegularExpression>

namespace Zhaoxi::Models::ScheduleDetail {

inline constexpr int kDay = ScheduleModel::kMinutesPerDay;

inline qint64 floorMod(qint64 a, qint64 b)
{
    const qint64 r = a % b;
    return r < 0 ? r + b : r;
}

// "HH:MM" (00:00..24:00) -> minutes; -1 when it is not one.
inline int parseTime(const QJsonValue &v)
{
    static const QRegularExpression re(QStringLiteral("^([01][0-9]|2[0-4]):([0-5][0-9])$"));
    if (!v.isString())
        return -1;
    const QRegularExpressionMatch m = re.match(v.toString());
    if (!m.hasMatch())
        return -1;
    const int minute = m.captured(1).toInt() * 60 + m.captured(2).toInt();
    return minute <= kDay ? minute : -1;
}

inline quint8 parseDays(const QJsonArray &days)
{
    const QStringList &keys = Policy::TimeWindows::dayKeys();
    quint8 mask = 0;
    for (const QJsonValue &d : days) {
        for (int k = 0; k < 7; ++k) {
            if (d.toString() == keys[k])
                mask |= quint8(1u << k);
        }
    }
    return mask;
}

inline int firstDay(quint8 mask)
{
    for (int k = 0; k < 7; ++k) {
        if (mask >> k & 1)
            return k;
    }
    return 0;
}

} // namespace Zhaoxi::Models::ScheduleDetail
