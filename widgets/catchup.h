// SPDX-License-Identifier: GPL-3.0-or-later
// `zhaoxi --at HH:MM`: the simulated day run up to a moment before the console takes over, a
// snapshot every simulated minute so that the charts and the event log have the morning behind
// them, with its progress shown.
#pragma once

#include <QtGlobal>

class QWidget;

namespace Zhaoxi::Session {
class SimulationSession;
}

namespace Zhaoxi::Widgets {

// Runs `session` (on this thread, before it gets its own) to `untilMs` after the day's start,
// minute by minute. The window under `parent` keeps painting (events are processed 25 times a
// second, and at least every two simulated hours); past a short moment a progress dialog says
// how far the day is. Returns
// the wall time it took, in ms.
qint64 catchUp(Session::SimulationSession &session, qint64 untilMs, QWidget *parent);

} // namespace Zhaoxi::Widgets
