// SPDX-License-Identifier: GPL-3.0-or-later
#include "applianceevents.h"

namespace Zhaoxi::Device {

const char *toString(ApplianceEventCode code)
{
    switch (code) {
    case ApplianceEventCode::StepStarted:
        return "step-started";
    case ApplianceEventCode::StepDone:
        return "step-done";
    case ApplianceEventCode::StepFailed:
        return "step-failed";
    case ApplianceEventCode::FaultCardLost:
        return "fault-card-lost";
    case ApplianceEventCode::FaultMemoryError:
        return "fault-memory-error";
    case ApplianceEventCode::FaultThermalThrottle:
        return "fault-thermal-throttle";
    case ApplianceEventCode::CardRecovered:
        return "card-recovered";
    case ApplianceEventCode::ThrottleStarted:
        return "throttle-started";
    case ApplianceEventCode::ThrottleEnded:
        return "throttle-ended";
    case ApplianceEventCode::WindowSwitch:
        return "window-switch";
    case ApplianceEventCode::WindowOpened:
        return "window-opened";
    case ApplianceEventCode::BudgetSet:
        return "budget-set";
    case ApplianceEventCode::ReplicaAdded:
        return "replica-added";
    case ApplianceEventCode::ReplicaRemoved:
        return "replica-removed";
    case ApplianceEventCode::TrainingRequeued:
        return "training-requeued";
    case ApplianceEventCode::TrainingKept:
        return "training-kept";
    case ApplianceEventCode::GuardPressure:
        return "guard-pressure";
    case ApplianceEventCode::GuardRelease:
        return "guard-release";
    case ApplianceEventCode::ForecastRamp:
        return "forecast-ramp";
    case ApplianceEventCode::PowerCapSet:
        return "power-cap-set";
    case ApplianceEventCode::BandwidthQuotaSet:
        return "bandwidth-quota-set";
    case ApplianceEventCode::TrainingCheckpoint:
        return "training-checkpoint";
    case ApplianceEventCode::TrainingResumed:
        return "training-resumed";
    case ApplianceEventCode::TrainingCompleted:
        return "training-completed";
    case ApplianceEventCode::RequestsFailedOver:
        return "requests-failed-over";
    }
    return "unknown";
}

const char *toString(ActionReason reason)
{
    switch (reason) {
    case ActionReason::None:
        return "none";
    case ActionReason::Window:
        return "window";
    case ActionReason::SloAtRisk:
        return "slo-at-risk";
    case ActionReason::Pressure:
        return "pressure";
    case ActionReason::LoadFell:
        return "load-fell";
    case ActionReason::ForecastRamp:
        return "forecast-ramp";
    case ActionReason::StaticShare:
        return "static-share";
    case ActionReason::DeviceInUse:
        return "device-in-use";
    case ActionReason::InvalidOrder:
        return "invalid-order";
    case ActionReason::GpuLost:
        return "gpu-lost";
    case ActionReason::LoadRose:
        return "load-rose";
    case ActionReason::Consolidate:
        return "consolidate";
    case ActionReason::Drain:
        return "drain";
    }
    return "unknown";
}

} // namespace Zhaoxi::Device
