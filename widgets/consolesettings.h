// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

class QSettings;

namespace Zhaoxi::Widgets {

// What the console remembers between runs (QSettings, organisation "Zhaoxi", application
// "zhaoxi"). Window geometry and the event log's filters are kept by their owners.
struct ConsoleSettings
{
    QString language;       // empty: follow the system
    double speed = 60;      // simulated seconds per second; <= 0: as fast as it goes
    double tempAmberC = 75; // badges turn amber / red at these
    double tempRedC = 85;
    double powerAmberPct = 80; // of the card's power limit
    double powerRedPct = 95;
    bool allowHardwareChanges = false; // real hardware: apply repartitions (off: read-only)
    int pollIntervalMs = 2000;         // real hardware: how often the cards are read

    static ConsoleSettings load(const QSettings &settings);
    void save(QSettings &settings) const;
    friend bool operator==(const ConsoleSettings &, const ConsoleSettings &) = default;
};

} // namespace Zhaoxi::Widgets
