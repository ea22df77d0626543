// SPDX-License-Identifier: GPL-3.0-or-later
// Event params by name, and where stores written before the params were named kept each one.
#include "exporter.h"

namespace Zhaoxi::Storage {

namespace {

struct LegacyParam
{
    const char *code;
    const char *key;    // the named key written now
    const char *legacy; // the key that held it before
};

// What each code wrote before its params were named (Device::ApplianceEvent's a, b, c, value;
// Sched::SchedEvent's value; Runtime::ProcessEvent's value). training-resumed's "value" was the work the checkpoint kept, not
// the work lost: it maps to workSavedMs.
const LegacyParam kLegacyParams[] = {
        {"job-waiting", "need", "value"},
        {"job-preempting", "evictionAtMs", "value"},
        {"job-evicted", "workLostMs", "value"},
        {"job-priority-changed", "previousPriority", "was"},
        {"step-started", "stepKind", "a"},
        {"step-started", "profileIndex", "b"},
        {"step-started", "start", "c"},
        {"step-done", "stepKind", "a"},
        {"step-done", "profileIndex", "b"},
        {"step-done", "start", "c"},
        {"step-done", "durationMs", "value"},
        {"step-failed", "stepKind", "a"},
        {"step-failed", "profileIndex", "b"},
        {"step-failed", "start", "c"},
        {"step-skipped", "stepKind", "a"},
        {"step-skipped", "profileIndex", "b"},
        {"step-skipped", "start", "c"},
        {"fault-thermal-throttle", "durationMs", "value"},
        {"throttle-started", "temperatureMilliC", "value"},
        {"throttle-ended", "temperatureMilliC", "value"},
        {"window-switch", "windowIndex", "a"},
        {"window-switch", "opensAtMs", "value"},
        {"window-opened", "windowIndex", "a"},
        {"budget-set", "inferenceMilli", "a"},
        {"budget-set", "trainingMilli", "value"},
        {"replica-added", "service", "a"},
        {"replica-removed", "service", "a"},
        {"training-requeued", "atCheckpoint", "a"},
        {"training-requeued", "leavesAtMs", "value"},
        {"guard-pressure", "service", "a"},
        {"guard-pressure", "queueDepth", "b"},
        {"guard-pressure", "p99Us", "value"},
        {"guard-release", "service", "a"},
        {"guard-release", "replicas", "value"},
        {"forecast-ramp", "service", "a"},
        {"forecast-ramp", "forecastMilliRps", "value"},
        {"power-cap-set", "workloadClass", "a"},
        {"power-cap-set", "watts", "value"},
        {"bandwidth-quota-set", "workloadClass", "a"},
        {"bandwidth-quota-set", "sharePermille", "value"},
        {"training-checkpoint", "workSavedMs", "value"},
        {"training-resumed", "workSavedMs", "value"},
        {"requests-failed-over", "service", "a"},
        {"requests-failed-over", "requests", "value"},
        {"process-started", "pid", "value"},
        {"process-adopted", "pid", "value"},
        {"checkpoint-requested", "deadlineMs", "value"},
        {"checkpoint-acknowledged", "step", "value"},
        {"process-stopping", "graceMs", "value"},
        {"replica-restarting", "backoffMs", "value"},
        {"replica-crash-loop", "crashes", "value"},
        {"replica-ready", "port", "value"},
        {"replica-ready-timeout", "timeoutMs", "value"},
        {"progress-stalled", "timeoutMs", "value"},
};

} // namespace

const char *legacyParamKey(QByteArrayView code, QByteArrayView key)
{
    for (const LegacyParam &l : kLegacyParams) {
        if (code == QByteArrayView(l.code) && key == QByteArrayView(l.key))
            return l.legacy;
    }
    return "";
}

QString eventParam(const Event &event, QLatin1StringView key)
{
    QString v = jsonParam(event.params, key);
    if (!v.isEmpty())
        return v;
    const char *legacy = legacyParamKey(event.code, QByteArrayView(key.data(), key.size()));
    return *legacy ? jsonParam(event.params, QLatin1StringView(legacy)) : QString();
}

} // namespace Zhaoxi::Storage
