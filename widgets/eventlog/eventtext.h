// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/models/eventlogmodel.h"
#include "core/sched/status.h"
#include "core/storage/event.h"

#include <QString>

namespace Zhaoxi::Widgets {

// The console's words for every stored event code (HOUSE_STYLE 4): the scheduler's
// (core/sched/events.h), the policies' and devices' (core/device/applianceevents.h), the
// store's own and the operator's, each a translated sentence built from the event's params,
// e.g. "Job llama-70b placed on dgx-h200 card 3 (3g.71gb@4)". Names (hosts, cards, jobs,
// services, windows) come from `names` where it knows them, else ids are shown. Codes it does not
// know fall back to Storage::englishMessage().
//
// Translation context: "Zhaoxi::Widgets::EventText". Thread-safe (tr() is): the export calls
// it on its own thread with a copy of the names.
QString eventMessage(const Storage::Event &event, const Models::EventNames &names);
QString eventMessage(const Storage::Event &event);

// A scheduler reason code as stored ("no-free-unit") as a short translated phrase for a
// sentence ("every fitting partition is busy"); empty for an unknown code.
QString reasonPhrase(Sched::Reason reason);
// The Reason a stored code names; Reason::None when unknown.
Sched::Reason reasonFromCode(QLatin1StringView code);

// "45 s", "12 min", "2.5 h": a length of time, rounded for reading.
QString eventDurationText(qint64 ms);
// "14:20" in the appliance's local time.
QString eventClockText(qint64 epochMs, int utcOffsetSeconds);

} // namespace Zhaoxi::Widgets
