// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/replay/advise.h"

#include <QCoreApplication>
#include <QString>

namespace Zhaoxi::Widgets {

// The console's words for Replay::advise's codes and parameters (issue 18): one place, in the
// UI's language (the command line's are app/zhaoxictl/cmd_advise.cpp's, in English). Core's
// notes are not worded here: they are shown as they are. GUI thread (the translator).
class AdviceText
{
    Q_DECLARE_TR_FUNCTIONS(Zhaoxi::Widgets::AdviceText)

public:
    // "Open the window “day” at 08:30 instead of 09:00 (“night” then ends at 08:30)".
    static QString headline(const Replay::Suggestion &s);
    // What the store (and the baseline replays) showed.
    static QString evidence(const Replay::Suggestion &s);
    // The replay's proof: the stated figure before → after, training's change, preemptions,
    // each service's SLO attainment before → after, on how many days.
    static QString proof(const Replay::Suggestion &s);
    // True for the kinds whose change is a complete windows schedule (the console applies it
    // through the schedule editor's preview and confirmation).
    static bool appliesToSchedule(const Replay::Suggestion &s);
    // For the other kinds: where the operator makes the change.
    static QString howToApply(const Replay::Suggestion &s);
    // Why nothing is suggested (an Advice without suggestions).
    static QString noSuggestion(const Replay::Advice &advice);
    // The recorded days and the work done: "Recorded days: …", "11 changes tried over …".
    static QString summary(const Replay::Advice &advice);
    static QString figureName(Replay::Figure f);
};

} // namespace Zhaoxi::Widgets
