// SPDX-License-Identifier: GPL-3.0-or-later
#include "consolesettings.h"

#include <QSettings>

#include <algorithm>

namespace Zhaoxi::Widgets {

ConsoleSettings ConsoleSettings::load(const QSettings &s)
{
    ConsoleSettings c;
    c.language = s.value(QStringLiteral("ui/language"), c.language).toString();
    c.speed = s.value(QStringLiteral("simulation/speed"), c.speed).toDouble();
    c.tempAmberC = s.value(QStringLiteral("thresholds/tempAmberC"), c.tempAmberC).toDouble();
    c.tempRedC = s.value(QStringLiteral("thresholds/tempRedC"), c.tempRedC).toDouble();
    c.powerAmberPct
            = s.value(QStringLiteral("thresholds/powerAmberPct"), c.powerAmberPct).toDouble();
    c.powerRedPct = s.value(QStringLiteral("thresholds/powerRedPct"), c.powerRedPct).toDouble();
    c.allowHardwareChanges
            = s.value(QStringLiteral("hardware/allowChanges"), c.allowHardwareChanges).toBool();
    c.pollIntervalMs = std::clamp(
            s.value(QStringLiteral("hardware/pollIntervalMs"), c.pollIntervalMs).toInt(),
            250,
            60'000);
    // A hand-edited file may disorder the thresholds: amber never above red.
    c.tempAmberC = std::min(c.tempAmberC, c.tempRedC);
    c.powerAmberPct = std::min(c.powerAmberPct, c.powerRedPct);
    return c;
}

void ConsoleSettings::save(QSettings &s) const
{
    s.setValue(QStringLiteral("ui/language"), language);
    s.setValue(QStringLiteral("simulation/speed"), speed);
    s.setValue(QStringLiteral("thresholds/tempAmberC"), tempAmberC);
    s.setValue(QStringLiteral("thresholds/tempRedC"), tempRedC);
    s.setValue(QStringLiteral("thresholds/powerAmberPct"), powerAmberPct);
    s.setValue(QStringLiteral("thresholds/powerRedPct"), powerRedPct);
    s.setValue(QStringLiteral("hardware/allowChanges"), allowHardwareChanges);
    s.setValue(QStringLiteral("hardware/pollIntervalMs"), pollIntervalMs);
}

} // namespace Zhaoxi::Widgets
