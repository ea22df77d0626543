// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace Zhaoxi::Domain {

enum class WorkloadKind { Training, Inference, Batch };
enum class PreemptionTolerance { Never, AtCheckpoint, Restart };
// HardOnly: only a MIG partition or a whole card will do. SoftAllowed: a time-slicing or MPS
// share is acceptable too.
enum class IsolationRequirement { HardOnly, SoftAllowed };

QString toString(WorkloadKind kind);
QString toString(PreemptionTolerance tolerance);
QString toString(IsolationRequirement requirement);

// What one unit of the workload needs from one card. A gang asks for `cards` such units.
struct ComputeDemand
{
    enum class Kind {
        WholeCard,  // a whole card (Whole mode, an empty soft card, or a free full-size MIG instance)
        MigProfile, // a named MIG profile, e.g. "3g.40gb" (restricts to models that have it)
        MigSlices,  // at least this many of the 7 compute slices, on any MIG model
        Fraction,   // a share of one card in 1/1000 (soft slicing; a hard partition also serves)
    };
    Kind kind = Kind::WholeCard;
    QString profile;   // MigProfile
    int slices = 0;    // MigSlices: 1..7
    int milli = 1000;  // Fraction: 1..1000
};

struct Demand
{
    ComputeDemand compute;
    qint64 memoryMiB = 0;     // card memory per unit; 0 = whatever the unit has
    int cards = 1;            // gang width: units on distinct cards, all bound together
    qint64 hostCpuMilli = 0;  // per unit, on the host of its card
    qint64 hostMemoryMiB = 0; // per unit
};

struct TimeBudget
{
    qint64 expectedDurationMs = 0;   // 0 = unknown / open-ended (services)
    std::optional<qint64> deadlineMs; // UTC epoch ms
};

struct Affinity
{
    QStringList cardModels;    // allowed models (names or aliases); empty = any
    bool sameLinkDomain = true; // gangs: all cards in one fast-link domain
    QString host;              // pinned host name; empty = any
};

struct InferenceSpec
{
    QString service;          // service name; replicas of one service share it
    double sloP99Ms = 0;
    double requestRate = 0;   // expected requests per second
    int minReplicas = 1;
    int maxReplicas = 1;
};

// One workload unit: the single spec for training, inference and batch work.
struct WorkloadSpec
{
    QString name;
    WorkloadKind kind = WorkloadKind::Batch;
    Demand demand;
    TimeBudget time;
    int priority = 0;                      // higher runs first and may preempt lower
    PreemptionTolerance preemption = PreemptionTolerance::Restart;
    qint64 checkpointIntervalMs = 0;       // AtCheckpoint: progress is saved this often
    Affinity affinity;
    IsolationRequirement isolation = IsolationRequirement::SoftAllowed;
    std::optional<InferenceSpec> inference; // required for Inference, absent otherwise
};

// An error from reading a spec: which field (a JSON path such as "demand.cards") and why.
struct SpecError
{
    QString field;
    QString message;
    QString toString() const { return field.isEmpty() ? message : field + QStringLiteral(": ") + message; }
};

// Reads a spec from JSON. On any error returns nullopt and fills *error; nothing is half-made.
std::optional<WorkloadSpec> workloadSpecFromJson(const QJsonObject &json, SpecError *error);
std::optional<WorkloadSpec> workloadSpecFromJson(const QByteArray &utf8, SpecError *error);
// Writes a spec; workloadSpecFromJson(workloadSpecToJson(s)) == s for every valid s.
QJsonObject workloadSpecToJson(const WorkloadSpec &spec);
// Checks ranges and cross-field rules; the readers call it too.
bool validateWorkloadSpec(const WorkloadSpec &spec, SpecError *error);

bool operator==(const ComputeDemand &a, const ComputeDemand &b);
bool operator==(const Demand &a, const Demand &b);
bool operator==(const TimeBudget &a, const TimeBudget &b);
bool operator==(const Affinity &a, const Affinity &b);
bool operator==(const InferenceSpec &a, const InferenceSpec &b);
bool operator==(const WorkloadSpec &a, const WorkloadSpec &b);

} // namespace Zhaoxi::Domain
