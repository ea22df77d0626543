// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>

namespace Zhaoxi::Sim {

struct ServiceReport
{
    QString name;
    double sloMs = 0;
    qint64 requests = 0;
    double sloAttainment = 1;
    double p50Ms = 0;
    double p95Ms = 0;
    double p99Ms = 0;
    double meanWaitMs = 0;
    int maxReplicas = 0;     // most serving at once
    double replicaHours = 0; // replica-hours held (placed)
    int failedOver = 0;      // requests re-sent after their replica was lost
};

struct TrainingJobReport
{
    QString name;
    double workHours = 0; // asked, reference card-hours
    double doneHours = 0;
    double lostHours = 0;
    int evictions = 0;
    double completedAtH = -1; // hours after the start; -1 not completed
    double finalLoss = 0;
    QList<QPair<double, double>> lossCurve; // (hours after start, loss)
};

// How often a workload whose spec lists alternative shapes (issue 18) was placed in one of its
// shapes: one per shape, the primary (-1) first.
struct ShapeChoiceReport
{
    QString workload;     // the service's name, or the training job's
    bool service = false; // an inference service (each replica placed counts) or a job
    int shape = -1;       // -1 the spec's primary demand, else the index into spec.shapes
    QString demand;       // Domain::shapeText: "1g.18gb", "2 × 3g.71gb"
    double speed = 1;     // as the spec gives it
    int count = 0;        // placements in this shape
};

// Where the appliance's capacity went, in reference card-hours (one reference card for an hour),
// sampled at every control period over healthy cards: a diagnostic of the gap between training
// work done and the fluid bound (the bound gives inference `inferenceNeed` and training the
// rest, all of it progressing at full speed).
struct CapacityBreakdown
{
    double capacity = 0;              // healthy cards
    double inferenceNeed = 0;         // what the fluid bound gives inference
    double inference = 0;             // held by replicas (loading, serving, draining)
    double trainingWork = 0;          // held by training, progressing: its speed (work incl. lost)
    double trainingSlowdown = 0;      // ... the rest of what it holds: gangs, paths, power, clocks
    double trainingSlowdownGang = 0;  // of which a gang's width costs (gangEfficiency)
    double trainingSlowdownPower = 0; // of which the power cap and budget cost
    double trainingStarting = 0;      // held by training not progressing yet: restart, device steps
    double idleReconfiguring = 0;     // not held, on a card with device steps under way
    double idleTrainingWaits = 0;     // not held while training waits (it does not fit, or budget)
    double idle = 0;                  // not held, nothing waits
};

// What one run of a scenario under one policy measured. Work is in reference card-hours (one
// reference card at full speed for an hour); utilisation is time-averaged over healthy cards.
struct Report
{
    QString scenario;
    QString policy;
    quint64 seed = 0;
    double durationH = 0;
    // inference
    qint64 requests = 0;
    double sloAttainment = 1;
    double p50Ms = 0, p95Ms = 0, p99Ms = 0;
    QList<ServiceReport> services;
    // training
    double workDone = 0;
    double workBound = 0;
    double efficiency = 0;
    double lostWork = 0;
    int jobsCompleted = 0;
    CapacityBreakdown capacity;
    QList<TrainingJobReport> jobs;
    // appliance
    double allocated = 0;
    double busy = 0;
    int reconfigurations = 0;
    int preemptions = 0;
    int faults = 0;
    double energyKwh = 0;
    double peakPowerW = 0;
    double trainingGB = 0; // host-path traffic per class
    double inferenceGB = 0;
    double trainingPathShare = 0; // peak share of a host path training used
    int schedulerEvents = 0;
    int applianceEvents = 0;
    double wallSeconds = 0;
    // Placements per shape of the workloads that list alternatives; empty when none does (the
    // JSON then has no shape_choices, so reports of scenarios without shapes are unchanged).
    QList<ShapeChoiceReport> shapeChoices;

    // The report's JSON (docs/simulation.md). With `withWallTime` false, wall_seconds is left
    // out, so two runs of the same scenario and seed give equal objects.
    QJsonObject toJson(bool withWallTime = true) const;
};

// A table of reports side by side (one row per policy), for the terminal.
QString formatComparison(const QList<Report> &reports);
// One report as text.
QString formatReport(const Report &report);

} // namespace Zhaoxi::Sim
