// SPDX-License-Identifier: GPL-3.0-or-later
// The scenarios tests share, each read once per test process. The demo day is the one the console
// ships (resources/scenarios/demo-day.json), read the way the console reads it, with the built-in
// catalogue; a scenario that does not load is a broken checkout, so the test stops (qFatal) with
// the reader's error.
#pragma once

#include "core/catalogue/catalogue.h"
#include "core/sim/scenario.h"

namespace Zhaoxi::TestData {

inline const Sim::Scenario &demoDay()
{
    static const Sim::Scenario scenario = [] {
        static const Catalogue::Catalogue catalogue = Catalogue::Catalogue::builtIn();
        Sim::ScenarioError error;
        const std::optional<Sim::Scenario> s = Sim::loadScenarioFile(
                QStringLiteral(ZHAOXI_SOURCE_DIR "/resources/scenarios/demo-day.json"),
                catalogue,
                &error);
        if (!s)
            qFatal("demo day: %s", qPrintable(error.toString()));
        return *s;
    }();
    return scenario;
}

} // namespace Zhaoxi::TestData
