// SPDX-License-Identifier: GPL-3.0-or-later
#include "eventbridge.h"

#include "core/storage/recorder.h"

#include <QJsonArray>
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

QJsonObject processEventJson(const Runtime::ProcessEvent &e)
{
    QJsonObject o{{QStringLiteral("job"), e.jobName},
                  {QStringLiteral("process"), e.key},
                  {QStringLiteral("rank"), e.rank},
                  {QStringLiteral("value"), double(e.value)}};
    if (!e.detail.isEmpty())
        o.insert(QStringLiteral("detail"), e.detail);
    if (e.exitCode >= 0)
        o.insert(QStringLiteral("exit_code"), e.exitCode);
    if (e.signal)
        o.insert(QStringLiteral("signal"), e.signal);
    if (!e.lastLines.isEmpty())
        o.insert(QStringLiteral("last_lines"), QJsonArray::fromStringList(e.lastLines));
    return o;
}

Storage::Severity severityOf(Runtime::ProcessEventCode code)
{
    using C = Runtime::ProcessEventCode;
    switch (code) {
    case C::Refused:
    case C::LaunchFailed:
    case C::Failed:
    case C::CrashLoop:
    case C::ReadyTimeout:
    case C::ProgressStalled:
    case C::Vanished:
    case C::MpsDaemonFailed:
        return Storage::Severity::Error;
    case C::Restarting:
    case C::ProgressError:
    case C::LimitsByRlimit:
        return Storage::Severity::Warning;
    default:
        return Storage::Severity::Info;
    }
}

qint64 recordProcessEvent(Storage::Recorder &recorder, const Runtime::ProcessEvent &e)
{
    return recorder.recordDevice(e.atMs,
                                 QByteArray(Runtime::toString(e.code)),
                                 severityOf(e.code),
                                 processEventJson(e),
                                 Storage::Subject{-1, -1, e.job.value()});
}

} // namespace Zhaoxi::Session
