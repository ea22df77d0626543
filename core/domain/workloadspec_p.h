// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Private to workloadspec*.cpp: what the spec's reader (workloadspecread.cpp), its validation
// (workloadspecvalidate.cpp) and its writer (workloadspec.cpp) share.

#include "core/domain/jsonreader.h"
#include "core/domain/workloadspec.h"

#include <initializer_list>
#include <optional>

namespace Zhaoxi::Domain::SpecDetail {

using Limits = WorkloadSpecLimits;

template<typename Enum>
bool enumFromString(const QString &text, std::initializer_list<Enum> values, Enum *out)
{
    for (Enum value : values) {
        if (text == toString(value)) {
            *out = value;
            return true;
        }
    }
    return false;
}

template<typename Enum>
QStringList enumNames(std::initializer_list<Enum> values)
{
    QStringList names;
    for (Enum v : values)
        names.append(toString(v));
    return names;
}

template<typename Enum>
bool isKnown(Enum value, std::initializer_list<Enum> values)
{
    for (Enum v : values) {
        if (v == value)
            return true;
    }
    return false;
}

inline constexpr std::initializer_list<WorkloadKind> allKinds
        = {WorkloadKind::Training, WorkloadKind::Inference, WorkloadKind::Batch};
inline constexpr std::initializer_list<PreemptionTolerance> allTolerances
        = {PreemptionTolerance::Never,
           PreemptionTolerance::AtCheckpoint,
           PreemptionTolerance::Restart};
inline constexpr std::initializer_list<IsolationRequirement> allRequirements
        = {IsolationRequirement::HardOnly, IsolationRequirement::SoftAllowed};
inline constexpr std::initializer_list<MetricsPreset> allPresets
        = {MetricsPreset::Vllm, MetricsPreset::Triton, MetricsPreset::Tgi, MetricsPreset::Custom};
inline constexpr std::initializer_list<LatencyUnit> allLatencyUnits
        = {LatencyUnit::Seconds, LatencyUnit::Milliseconds, LatencyUnit::Microseconds};

inline QString quoted(const QString &text)
{
    return u'"' + text + u'"';
}

inline QString numberText(double value)
{
    return JsonReader::numberText(value);
}

// ISO-8601 UTC, with milliseconds only when there are any.
QString deadlineText(qint64 ms);

// The spec's own rules on top of the shared reader. Both the reader and validateWorkloadSpec
// report through this, so a rule reads the same whichever of them finds the problem.
class SpecChecks : public JsonReader
{
public:
    bool checkRange(const QString &field, qint64 value, qint64 lo, qint64 hi);
    // A name: not blank, at most maxLength characters, and JSON's name rule (nameProblem).
    bool checkText(const QString &field, const QString &text, int maxLength);
    bool checkDuration(const QString &field, qint64 ms);
    // A duration already read within checkDuration's bounds, against a narrower range.
    bool checkDurationRange(const QString &field, qint64 ms, qint64 lo, qint64 hi);
    bool checkNoNul(const QString &field, const QString &text);
    bool checkAbsolutePath(const QString &field, const QString &path);
    bool checkHttpPath(const QString &field, const QString &path);
    bool checkMetricName(const QString &field, const QString &name);
    bool checkUserName(const QString &field, const QString &name);
    bool checkSignal(const QString &field, const QString &name, const QStringList &accepted);
    bool checkLogLimit(const QString &field, qint64 bytes);
    bool checkProfile(const QString &field, const QString &profile);
    static QString logLimitRange(const QString &got);
    static QString portRange(const QString &got);

    // The first problem as a SpecError (when `error` is not null).
    void report(SpecError *error) const;
};

// Types and syntax of a spec object, with the reader's own range checks; nullopt after
// recording the first problem in `checks`.
std::optional<WorkloadSpec> readSpec(const QJsonObject &json, SpecChecks &checks);
// Ranges and cross-field rules (validateWorkloadSpec).
bool validateSpec(const WorkloadSpec &spec, SpecChecks &checks);

} // namespace Zhaoxi::Domain::SpecDetail
