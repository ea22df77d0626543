// SPDX-License-Identifier: GPL-3.0-or-later
// What the engine's three parts share (engine.cpp: the event loop and jobs on units;
// enginedevice.cpp: steps, faults and the control tick; enginepolicy.cpp: the policy's view and
// the report). Private to core/sim.
#pragma once

#include "engine.h"

namespace Zhaoxi::Sim {

using Device::ActionReason;
using Device::ApplianceEvent;
using Device::ApplianceEventCode;
using Domain::CardId;
using Domain::JobId;
using Domain::PartitionMode;
using Sched::EventCode;
using Sched::JobState;

inline constexpr qint64 kDayMs = 24 * 3600'000LL;
inline constexpr double kHourMs = 3600'000.0;

} // namespace Zhaoxi::Sim
