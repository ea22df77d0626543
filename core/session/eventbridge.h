// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/runtime/processworkloads.h"

#include "core/device/applianceevents.h"
#include "core/storage/event.h"

#include <QJsonObject>

namespace Zhaoxi::Storage {
class Recorder;
}

namespace Zhaoxi::Session {

// Appliance events (device steps and faults, policy actions) as stored events: device codes go
// to Source::Device, the rest to Source::Policy; the severity follows the code (failures and
// faults are errors, throttling and guard pressure warnings). One mapping for the console and
// `zhaoxictl simulate --db`.
bool isDeviceEvent(Device::ApplianceEventCode code);
Storage::Severity severityOf(Device::ApplianceEventCode code);
// The stored params of an appliance event: "reason", then the members its code sets, each under
// its member's name (core/device/applianceevents.h), except the step's profile index, stored as
// "profileIndex" as the scheduler's partition events store it. Readers go through
// Storage::eventParam, which also reads stores written before the params were named.
QJsonObject applianceEventParams(const Device::ApplianceEvent &event);
qint64 recordApplianceEvent(Storage::Recorder &recorder, const Device::ApplianceEvent &event);

// Real processes' events (launches, exits, checkpoints, MPS daemons) as stored events: their code
// (Runtime::toString), Source::Device, the job as subject, and the params job, process, rank,
// value, detail, exit_code, signal, last_lines. Failures are errors, restarts and rlimits
// warnings. One mapping for the console's hardware session and `zhaoxictl run`.
Storage::Severity severityOf(Runtime::ProcessEventCode code);
QJsonObject processEventJson(const Runtime::ProcessEvent &event);
qint64 recordProcessEvent(Storage::Recorder &recorder, const Runtime::ProcessEvent &event);

} // namespace Zhaoxi::Session
