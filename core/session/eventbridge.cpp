// SPDX-License-Identifier: GPL-3.0-or-later
#include "eventbridge.h"

#include "core/storage/recorder.h"

#include <QJsonObject>

namespace Zhaoxi::Session {

bool isDeviceEvent(Device::ApplianceEventCode code)
{
    using C = Device::ApplianceEventCode;
    switch (code) {
    case C::StepStarted:
    case C::StepDone:
    case C::StepFailed:
    case C::FaultCardLost:
    case C::FaultMemoryError:
    case C::FaultThermalThrottle:
    case C::CardRecovered:
    case C::ThrottleStarted:
    case C::ThrottleEnded:
        return true;
    default:
        return false;
    }
}

Storage::Severity severityOf(Device::ApplianceEventCode code)
{
    using C = Device::ApplianceEventCode;
    switch (code) {
    case C::StepFailed:
    case C::FaultMemoryError:
    case C::FaultCardLost:
        return Storage::Severity::Error;
    case C::FaultThermalThrottle:
    case C::ThrottleStarted:
    case C::GuardPressure:
        return Storage::Severity::Warning;
    default:
        return Storage::Severity::Info;
    }
}

qint64 recordApplianceEvent(Storage::Recorder &recorder, const Device::ApplianceEvent &e)
{
    const QJsonObject params{{QStringLiteral("reason"), QLatin1String(Device::toString(e.reason))},
                             {QStringLiteral("a"), e.a},
                             {QStringLiteral("b"), e.b},
                             {QStringLiteral("c"), e.c},
                             {QStringLiteral("value"), e.value}};
    const Storage::Subject subject{e.card.value(), -1, e.job.value()};
    const QByteArray code(Device::toString(e.code));
    if (isDeviceEvent(e.code))
        return recorder.recordDevice(e.atMs, code, severityOf(e.code), params, subject);
    return recorder.recordPolicy(e.atMs, code, severityOf(e.code), params, subject);
}

} // namespace Zhaoxi::Session
