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

QJsonObject applianceEventParams(const Device::ApplianceEvent &e)
{
    using C = Device::ApplianceEventCode;
    QJsonObject p{{QStringLiteral("reason"), QLatin1String(Device::toString(e.reason))}};
    auto put = [&p](const char *key, const QJsonValue &value) {
        p.insert(QLatin1String(key), value);
    };
    switch (e.code) {
    case C::StepStarted:
    case C::StepDone:
    case C::StepFailed:
        put("stepKind", e.stepKind);
        if (e.profile >= 0)
            put("profileIndex", e.profile);
        if (e.start >= 0)
            put("start", e.start);
        if (e.code == C::StepDone)
            put("durationMs", e.durationMs);
        if (e.code == C::StepFailed)
            put("error", e.error);
        break;
    case C::FaultThermalThrottle:
        put("durationMs", e.durationMs);
        break;
    case C::ThrottleStarted:
    case C::ThrottleEnded:
        put("temperatureMilliC", e.temperatureMilliC);
        break;
    case C::FaultCardLost:
    case C::FaultMemoryError:
    case C::CardRecovered:
    case C::TrainingKept:
    case C::TrainingCompleted:
        break;
    case C::WindowSwitch:
        put("windowIndex", e.windowIndex);
        put("opensAtMs", e.opensAtMs);
        break;
    case C::WindowOpened:
        put("windowIndex", e.windowIndex);
        break;
    case C::BudgetSet:
        put("trainingMilli", e.trainingMilli);
        put("inferenceMilli", e.inferenceMilli);
        break;
    case C::ReplicaAdded:
    case C::ReplicaRemoved:
    case C::GuardRelease:
        put("service", e.service);
        if (e.code == C::GuardRelease)
            put("replicas", e.replicas);
        break;
    case C::TrainingRequeued:
        put("leavesAtMs", e.leavesAtMs);
        put("atCheckpoint", e.atCheckpoint);
        break;
    case C::GuardPressure:
        put("service", e.service);
        put("p99Us", e.p99Us);
        put("queueDepth", e.queueDepth);
        break;
    case C::ForecastRamp:
        put("service", e.service);
        put("forecastMilliRps", e.forecastMilliRps);
        break;
    case C::PowerCapSet:
        put("workloadClass", e.workloadClass);
        put("watts", e.watts);
        break;
    case C::BandwidthQuotaSet:
        put("workloadClass", e.workloadClass);
        put("sharePermille", e.sharePermille);
        break;
    case C::TrainingCheckpoint:
        put("workSavedMs", e.workSavedMs);
        break;
    case C::TrainingResumed:
        put("workSavedMs", e.workSavedMs);
        put("workLostMs", e.workLostMs);
        break;
    case C::RequestsFailedOver:
        put("service", e.service);
        put("requests", e.requests);
        break;
    }
    return p;
}

qint64 recordApplianceEvent(Storage::Recorder &recorder, const Device::ApplianceEvent &e)
{
    const QJsonObject params = applianceEventParams(e);
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
                  {QStringLiteral("rank"), e.rank}};
    // The code's own parameter, by name (stores before named params kept it in "value":
    // Storage::eventParam reads those).
    using C = Runtime::ProcessEventCode;
    switch (e.code) {
    case C::Started:
    case C::Adopted:
        o.insert(QStringLiteral("pid"), double(e.pid));
        break;
    case C::CheckpointRequested:
        o.insert(QStringLiteral("deadlineMs"), double(e.deadlineMs));
        break;
    case C::CheckpointAcknowledged:
        o.insert(QStringLiteral("step"), double(e.step));
        break;
    case C::Stopping:
        o.insert(QStringLiteral("graceMs"), double(e.graceMs));
        break;
    case C::Restarting:
        o.insert(QStringLiteral("backoffMs"), double(e.backoffMs));
        break;
    case C::CrashLoop:
        o.insert(QStringLiteral("crashes"), e.crashes);
        break;
    case C::Ready:
        o.insert(QStringLiteral("port"), e.port);
        break;
    case C::ReadyTimeout:
    case C::ProgressStalled:
        o.insert(QStringLiteral("timeoutMs"), double(e.timeoutMs));
        break;
    default:
        break;
    }
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
