// SPDX-License-Identifier: GPL-3.0-or-later
// Ranges and cross-field rules of a workload spec (validateWorkloadSpec), and the checks the
// reader shares with them.
#include "workloadspec_p.h"

#include <QRegularExpression>
#include <QSet>

namespace Zhaoxi::Domain {

namespace SpecDetail {

bool SpecChecks::checkRange(const QString &field, qint64 value, qint64 lo, qint64 hi)
{
    if (value < lo || value > hi) {
        return fail(field,
                    QStringLiteral("must be %1..%2, got %3")
                            .arg(QString::number(lo), QString::number(hi), QString::number(value)));
    }
    return true;
}

bool SpecChecks::checkText(const QString &field, const QString &text, int maxLength)
{
    if (text.trimmed().isEmpty())
        return fail(field, QStringLiteral("must not be empty"));
    if (text.size() > maxLength) {
        return fail(field,
                    QStringLiteral("must be at most %1 characters, got %2")
                            .arg(QString::number(maxLength), QString::number(text.size())));
    }
    return checkName(field, text);
}

bool SpecChecks::checkDuration(const QString &field, qint64 ms)
{
    if (ms < 0)
        return fail(field, QStringLiteral("must not be negative"));
    if (ms > Limits::maxDurationMs) {
        return fail(field,
                    QStringLiteral("must be at most %1, got %2")
                            .arg(durationToString(Limits::maxDurationMs), durationToString(ms)));
    }
    return true;
}

// A duration already read within checkDuration's bounds, against a narrower range.
bool SpecChecks::checkDurationRange(const QString &field, qint64 ms, qint64 lo, qint64 hi)
{
    if (!checkDuration(field, ms))
        return false;
    if (ms < lo || ms > hi) {
        return fail(field,
                    QStringLiteral("must be %1..%2, got %3")
                            .arg(durationToString(lo), durationToString(hi), durationToString(ms)));
    }
    return true;
}

bool SpecChecks::checkNoNul(const QString &field, const QString &text)
{
    // execve() takes C strings: a NUL would silently cut the value short.
    if (text.contains(QChar(0)))
        return fail(field, QStringLiteral("must not contain a NUL character"));
    return true;
}

bool SpecChecks::checkAbsolutePath(const QString &field, const QString &path)
{
    if (!path.startsWith(u'/')) {
        return fail(field,
                    QStringLiteral("must be an absolute path (starting with \"/\"), got %1")
                            .arg(quoted(path)));
    }
    return checkNoNul(field, path);
}

bool SpecChecks::checkHttpPath(const QString &field, const QString &path)
{
    if (!path.startsWith(u'/')) {
        return fail(field,
                    QStringLiteral("must be an HTTP path starting with \"/\", got %1")
                            .arg(quoted(path)));
    }
    // It goes into a request line as it is.
    for (QChar c : path) {
        if (c.isSpace() || c.category() == QChar::Other_Control)
            return fail(field, QStringLiteral("must not contain spaces or control characters"));
    }
    return true;
}

bool SpecChecks::checkMetricName(const QString &field, const QString &name)
{
    static const QRegularExpression re(QStringLiteral("^[a-zA-Z_:][a-zA-Z0-9_:]*$"));
    if (!re.match(name).hasMatch()) {
        return fail(field,
                    QStringLiteral("must be a Prometheus metric name ([a-zA-Z_:][a-zA-Z0-9_:]*), "
                                   "got %1")
                            .arg(quoted(name)));
    }
    return true;
}

bool SpecChecks::checkUserName(const QString &field, const QString &name)
{
    // shadow-utils' rule (useradd without --badname), with "." as POSIX allows it; the
    // length is what utmp and useradd keep.
    static const QRegularExpression re(QStringLiteral("^[a-z_][a-z0-9_.-]*\\$?$"));
    if (name.isEmpty()) {
        return fail(field,
                    QStringLiteral("must not be empty; leave the key out to run as the "
                                   "appliance's default account"));
    }
    if (name.size() > Limits::maxUserNameLength) {
        return fail(field,
                    QStringLiteral("must be at most %1 characters, got %2")
                            .arg(QString::number(Limits::maxUserNameLength),
                                 QString::number(name.size())));
    }
    if (!re.match(name).hasMatch()) {
        return fail(field,
                    QStringLiteral("must be a POSIX user name (lower-case letters, digits, "
                                   "\"_\", \".\" and \"-\", not starting with a digit, \".\" "
                                   "or \"-\", optionally ending in \"$\"), got %1")
                            .arg(quoted(name)));
    }
    return true;
}

bool SpecChecks::checkSignal(const QString &field, const QString &name, const QStringList &accepted)
{
    if (accepted.contains(name))
        return true;
    QString message = QStringLiteral("must be one of %1, got %2")
                              .arg(accepted.join(QStringLiteral(", ")), quoted(name));
    const QString upper = name.toUpper();
    const QString spelt
            = upper.startsWith(QLatin1String("SIG")) ? upper : QStringLiteral("SIG") + upper;
    if (accepted.contains(spelt))
        message += QStringLiteral(" (did you mean %1?)").arg(quoted(spelt));
    else if (spelt == QLatin1String("SIGKILL"))
        message += QStringLiteral(" (SIGKILL cannot be caught, so it cannot ask for anything)");
    return fail(field, message);
}

bool SpecChecks::checkLogLimit(const QString &field, qint64 bytes)
{
    if (bytes < Limits::minLogLimitBytes || bytes > Limits::maxLogLimitBytes)
        return fail(field, logLimitRange(QString::number(bytes)));
    return true;
}

QString SpecChecks::logLimitRange(const QString &got)
{
    return QStringLiteral("must be 64KiB..64GiB (%1..%2 bytes), got %3")
            .arg(QString::number(Limits::minLogLimitBytes),
                 QString::number(Limits::maxLogLimitBytes),
                 got);
}

QString SpecChecks::portRange(const QString &got)
{
    return QStringLiteral("must be \"auto\" or 1..%1, got %2")
            .arg(QString::number(Limits::maxPort), got);
}

bool SpecChecks::checkProfile(const QString &field, const QString &profile)
{
    // The catalogue decides whether a profile exists on some model; here only its shape is
    // checked, to catch "3G.40GB" or "3g40gb" before they reach a queue and wait forever.
    static const QRegularExpression re(
            QStringLiteral("^[1-9]g\\.[1-9][0-9]*gb(?:[+-][a-z]+(?:\\.[a-z]+)*)?$"));
    if (!re.match(profile).hasMatch()) {
        return fail(field,
                    QStringLiteral("expected a MIG profile name such as \"3g.40gb\" or "
                                   "\"1g.10gb+me\", got %1")
                            .arg(quoted(profile)));
    }
    return true;
}

void SpecChecks::report(SpecError *error) const
{
    if (error && failed())
        *error = SpecError{this->error().path, this->error().message};
}

namespace {

// ---- validation -------------------------------------------------------------------------------

// Each returns false after reporting the first problem; paths are the canonical JSON keys.

// `at` is the demand's own path: "demand" or "shapes[i].demand".
bool validateCompute(const ComputeDemand &c, SpecChecks &r, const QString &at)
{
    switch (c.kind) {
    case ComputeDemand::Kind::WholeCard:
        return true;
    case ComputeDemand::Kind::MigProfile:
        return r.checkProfile(at + QStringLiteral(".compute.profile"), c.profile);
    case ComputeDemand::Kind::MigSlices:
        return r.checkRange(
                at + QStringLiteral(".compute.slices"), c.slices, 1, Limits::maxMigSlices);
    case ComputeDemand::Kind::Fraction:
        if (c.milli < 1 || c.milli > 1000) {
            return r.fail(
                    at + QStringLiteral(".compute.fraction"),
                    QStringLiteral("must be in (0, 1], got %1").arg(numberText(c.milli / 1000.0)));
        }
        return true;
    }
    return r.fail(at + QStringLiteral(".compute"), QStringLiteral("unknown compute form"));
}

bool validateDemand(const Demand &d, SpecChecks &r)
{
    if (!r.checkRange(QStringLiteral("demand.cards"), d.cards, 0, Limits::maxCards))
        return false;
    // A CPU-only job's compute demand is never looked at, so whatever it holds is not an error.
    const bool cpuOnly = d.cards == 0;
    if (!cpuOnly && !validateCompute(d.compute, r, QStringLiteral("demand")))
        return false;
    if (!r.checkRange(QStringLiteral("demand.memoryMiB"), d.memoryMiB, 0, Limits::maxMemoryMiB))
        return false;
    if (cpuOnly && d.memoryMiB != 0) {
        return r.fail(QStringLiteral("demand.memoryMiB"),
                      QStringLiteral("must be 0 when cards is 0 (a CPU-only job uses no card "
                                     "memory)"));
    }
    if (d.compute.kind == ComputeDemand::Kind::Fraction && d.cards > 1) {
        return r.fail(QStringLiteral("demand.cards"),
                      QStringLiteral("must be 1 for a fraction demand (a share of one card cannot "
                                     "be ganged), got %1")
                              .arg(d.cards));
    }
    return r.checkRange(QStringLiteral("demand.hostCpuMilli"),
                        d.hostCpuMilli,
                        0,
                        Limits::maxHostCpuMilli)
           && r.checkRange(QStringLiteral("demand.hostMemoryMiB"),
                           d.hostMemoryMiB,
                           0,
                           Limits::maxHostMemoryMiB);
}

// The alternatives to the primary demand (WorkloadShape): each a unit the job could use instead,
// never a CPU-only one, each different from the primary and from the others.
bool validateShapes(const WorkloadSpec &spec, SpecChecks &r)
{
    if (spec.shapes.isEmpty())
        return true;
    const QString field = QStringLiteral("shapes");
    if (spec.demand.cards == 0) {
        return r.fail(field,
                      QStringLiteral("not allowed when demand.cards is 0 (a CPU-only job has no "
                                     "unit to choose)"));
    }
    if (spec.shapes.size() > Limits::maxShapes) {
        return r.fail(field,
                      QStringLiteral("at most %1 alternative shapes, got %2")
                              .arg(QString::number(Limits::maxShapes),
                                   QString::number(spec.shapes.size())));
    }
    for (qsizetype i = 0; i < spec.shapes.size(); ++i) {
        const WorkloadShape &shape = spec.shapes[i];
        const Demand &d = shape.demand;
        const QString at = QStringLiteral("shapes[%1]").arg(i);
        const QString demandAt = at + QStringLiteral(".demand");
        if (!r.checkRange(demandAt + QStringLiteral(".cards"), d.cards, 1, Limits::maxCards)
            || !validateCompute(d.compute, r, demandAt)
            || !r.checkRange(demandAt + QStringLiteral(".memoryMiB"),
                             d.memoryMiB,
                             0,
                             Limits::maxMemoryMiB)) {
            return false;
        }
        if (d.compute.kind == ComputeDemand::Kind::Fraction && d.cards > 1) {
            return r.fail(demandAt + QStringLiteral(".cards"),
                          QStringLiteral("must be 1 for a fraction demand (a share of one card "
                                         "cannot be ganged), got %1")
                                  .arg(d.cards));
        }
        if (d.compute.kind == ComputeDemand::Kind::Fraction
            && spec.isolation == IsolationRequirement::HardOnly) {
            return r.fail(demandAt + QStringLiteral(".compute"),
                          QStringLiteral("a fraction is a soft share, but isolation is \"hard\"; "
                                         "ask for a profile, slices or a whole card"));
        }
        if (d.hostCpuMilli != spec.demand.hostCpuMilli
            || d.hostMemoryMiB != spec.demand.hostMemoryMiB) {
            return r.fail(demandAt,
                          QStringLiteral("its host CPU and memory must be the job's "
                                         "(demand.hostCpuMilli and demand.hostMemoryMiB)"));
        }
        if (!(shape.speed > 0 && shape.speed <= Limits::maxShapeSpeed)) {
            return r.fail(at + QStringLiteral(".speed"),
                          QStringLiteral("must be greater than 0 and at most %1, got %2")
                                  .arg(numberText(Limits::maxShapeSpeed), numberText(shape.speed)));
        }
        if (d == spec.demand) {
            return r.fail(demandAt,
                          QStringLiteral("the same as demand, the primary shape; leave it out"));
        }
        for (qsizetype j = 0; j < i; ++j) {
            if (spec.shapes[j].demand == d)
                return r.fail(demandAt, QStringLiteral("the same as shapes[%1].demand").arg(j));
        }
    }
    if (spec.inference && spec.inference->serviceTimeMs <= 0) {
        return r.fail(QStringLiteral("inference.serviceTimeMs"),
                      QStringLiteral("required when shapes are given: the scheduler checks each "
                                     "shape's service time against sloP99Ms"));
    }
    return true;
}

bool validateTime(const TimeBudget &t, SpecChecks &r)
{
    if (!r.checkDuration(QStringLiteral("time.expectedDuration"), t.expectedDurationMs))
        return false;
    if (t.deadlineMs && (*t.deadlineMs < 0 || *t.deadlineMs > Limits::maxDeadlineMs)) {
        return r.fail(QStringLiteral("time.deadline"),
                      QStringLiteral("must be between 1970 and 9999, got %1 ms since the epoch")
                              .arg(*t.deadlineMs));
    }
    return true;
}

bool validatePreemption(const WorkloadSpec &spec, SpecChecks &r)
{
    if (!isKnown(spec.preemption, allTolerances))
        return r.fail(QStringLiteral("preemption"), QStringLiteral("unknown preemption tolerance"));
    // An interval is meaningful with any tolerance: the scheduler uses it to bound the work an
    // eviction loses. Only "checkpoint" cannot do without one.
    const QString field = QStringLiteral("checkpointInterval");
    if (spec.preemption == PreemptionTolerance::AtCheckpoint && spec.checkpointIntervalMs == 0)
        return r.fail(field, QStringLiteral("required when preemption is \"checkpoint\""));
    if (spec.checkpointIntervalMs < 0)
        return r.fail(field, QStringLiteral("must not be negative"));
    return r.checkDuration(field, spec.checkpointIntervalMs);
}

bool validateAffinity(const Affinity &a, bool cpuOnly, SpecChecks &r)
{
    if (cpuOnly && !a.cardModels.isEmpty()) {
        return r.fail(QStringLiteral("affinity.cardModels"),
                      QStringLiteral("must be empty when demand.cards is 0 (a CPU-only job uses no "
                                     "card)"));
    }
    QSet<QString> seen;
    for (qsizetype i = 0; i < a.cardModels.size(); ++i) {
        const QString field = QStringLiteral("affinity.cardModels[%1]").arg(i);
        if (!r.checkText(field, a.cardModels[i], Limits::maxNameLength))
            return false;
        const QString folded = a.cardModels[i].toCaseFolded();
        if (seen.contains(folded)) {
            return r.fail(field,
                          QStringLiteral("repeats %1 (model names are case-insensitive)")
                                  .arg(quoted(a.cardModels[i])));
        }
        seen.insert(folded);
    }
    return a.host.isEmpty() || r.checkText(QStringLiteral("affinity.host"), a.host, 253);
}

bool validateInference(const InferenceSpec &i, SpecChecks &r)
{
    if (!r.checkText(QStringLiteral("inference.service"), i.service, Limits::maxNameLength))
        return false;
    if (!(i.sloP99Ms > 0 && i.sloP99Ms <= Limits::maxSloP99Ms)) {
        return r.fail(QStringLiteral("inference.sloP99Ms"),
                      QStringLiteral("must be greater than 0 and at most %1, got %2")
                              .arg(numberText(Limits::maxSloP99Ms), numberText(i.sloP99Ms)));
    }
    if (!(i.requestRate >= 0 && i.requestRate <= Limits::maxRequestRate)) {
        return r.fail(QStringLiteral("inference.requestRate"),
                      QStringLiteral("must be 0..%1, got %2")
                              .arg(numberText(Limits::maxRequestRate), numberText(i.requestRate)));
    }
    if (!(i.serviceTimeMs >= 0 && i.serviceTimeMs <= Limits::maxSloP99Ms)) {
        return r.fail(QStringLiteral("inference.serviceTimeMs"),
                      QStringLiteral("must be greater than 0 and at most %1, got %2")
                              .arg(numberText(Limits::maxSloP99Ms), numberText(i.serviceTimeMs)));
    }
    if (!r.checkRange(
                QStringLiteral("inference.replicas.min"), i.minReplicas, 1, Limits::maxReplicas))
        return false;
    if (i.maxReplicas < i.minReplicas) {
        return r.fail(QStringLiteral("inference.replicas.max"),
                      QStringLiteral("must be at least min (%1), got %2")
                              .arg(QString::number(i.minReplicas), QString::number(i.maxReplicas)));
    }
    return r.checkRange(
            QStringLiteral("inference.replicas.max"), i.maxReplicas, 1, Limits::maxReplicas);
}

bool validateEnvironment(const QMap<QString, QString> &env, SpecChecks &r)
{
    static const QRegularExpression re(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    for (auto it = env.begin(); it != env.end(); ++it) {
        const QString field = QStringLiteral("run.env.") + it.key();
        if (!re.match(it.key()).hasMatch()) {
            return r.fail(field,
                          QStringLiteral("not a valid environment variable name (letters, digits "
                                         "and \"_\", not starting with a digit)"));
        }
        if (it.key().startsWith(QLatin1String("ZHAOXI_"))) {
            return r.fail(field,
                          QStringLiteral("names starting with ZHAOXI_ are set by the appliance; "
                                         "leave it out"));
        }
        if (isApplianceEnvironmentName(it.key())) {
            return r.fail(field,
                          QStringLiteral("set by the appliance, from the card, partition or share "
                                         "it gives each unit; leave it out"));
        }
        if (!r.checkNoNul(field, it.value()))
            return false;
    }
    return true;
}

// The inference-only keys of a run for another kind: the writer leaves them out, so a value
// other than the default would not survive a round trip and is refused as if it had been given.
bool validateRunKeysForKind(const WorkloadSpec &spec, SpecChecks &r)
{
    const RunSpec &run = *spec.run;
    const RunSpec defaults;
    if (spec.kind == WorkloadKind::Inference) {
        if (run.progressTimeoutMs != defaults.progressTimeoutMs) {
            return r.fail(QStringLiteral("run.progressTimeout"),
                          QStringLiteral("only allowed when kind is \"training\" or \"batch\", "
                                         "but it is \"inference\""));
        }
        return true;
    }
    const std::pair<const char *, bool> given[] = {
            {"port", run.port.has_value()},
            {"ready", !run.ready.isEmpty()},
            {"readyTimeout", run.readyTimeoutMs != defaults.readyTimeoutMs},
            {"metrics", run.metrics != defaults.metrics},
            {"metricsPreset", run.metricsPreset != defaults.metricsPreset},
            {"latencyMetric", !run.latencyMetric.isEmpty()},
            {"queueMetric", !run.queueMetric.isEmpty()},
            {"latencyUnit", run.latencyUnit.has_value()},
    };
    for (const auto &[key, isGiven] : given) {
        if (isGiven) {
            return r.fail(QStringLiteral("run.") + QLatin1String(key),
                          QStringLiteral("only allowed when kind is \"inference\", but it is %1")
                                  .arg(quoted(toString(spec.kind))));
        }
    }
    return true;
}

bool validateServing(const WorkloadSpec &spec, SpecChecks &r)
{
    const RunSpec &run = *spec.run;
    if (run.port && (*run.port < 1 || *run.port > Limits::maxPort))
        return r.fail(QStringLiteral("run.port"),
                      SpecChecks::portRange(QString::number(*run.port)));
    if (!run.ready.isEmpty() && !r.checkHttpPath(QStringLiteral("run.ready"), run.ready))
        return false;
    if (!r.checkDurationRange(QStringLiteral("run.readyTimeout"),
                              run.readyTimeoutMs,
                              Limits::minReadyTimeoutMs,
                              Limits::maxReadyTimeoutMs)
        || !r.checkHttpPath(QStringLiteral("run.metrics"), run.metrics)) {
        return false;
    }
    if (!isKnown(run.metricsPreset, allPresets))
        return r.fail(QStringLiteral("run.metricsPreset"), QStringLiteral("unknown preset"));
    if (!run.latencyMetric.isEmpty()
        && !r.checkMetricName(QStringLiteral("run.latencyMetric"), run.latencyMetric)) {
        return false;
    }
    if (!run.queueMetric.isEmpty()
        && !r.checkMetricName(QStringLiteral("run.queueMetric"), run.queueMetric)) {
        return false;
    }
    if (run.metricsPreset == MetricsPreset::Custom) {
        const QString why = QStringLiteral("required when metricsPreset is \"custom\" (there are "
                                           "no preset names to fall back on)");
        if (run.latencyMetric.isEmpty())
            return r.fail(QStringLiteral("run.latencyMetric"), why);
        if (run.queueMetric.isEmpty())
            return r.fail(QStringLiteral("run.queueMetric"), why);
    }
    if (run.latencyUnit) {
        if (!isKnown(*run.latencyUnit, allLatencyUnits))
            return r.fail(QStringLiteral("run.latencyUnit"), QStringLiteral("unknown unit"));
        if (run.latencyMetric.isEmpty()) {
            RunSpec preset = run;
            preset.latencyUnit.reset();
            return r.fail(QStringLiteral("run.latencyUnit"),
                          QStringLiteral("only allowed with run.latencyMetric; the preset %1 "
                                         "fixes the unit of its own metric (%2)")
                                  .arg(quoted(toString(run.metricsPreset)),
                                       toString(metricNamesFor(preset).latencyUnit)));
        }
    }
    // Checked here rather than in validateInference: it is the port that limits the replicas.
    if (run.port && spec.inference && spec.inference->maxReplicas != 1) {
        return r.fail(QStringLiteral("inference.replicas.max"),
                      QStringLiteral("must be 1 when run.port is fixed (%1): two replicas on one "
                                     "host cannot listen on the same port; use \"port\": "
                                     "\"auto\" to scale, got %2")
                              .arg(QString::number(*run.port),
                                   QString::number(spec.inference->maxReplicas)));
    }
    return true;
}

bool validateRun(const WorkloadSpec &spec, SpecChecks &r)
{
    const RunSpec &run = *spec.run;
    if (run.command.isEmpty()) {
        return r.fail(QStringLiteral("run.command"),
                      QStringLiteral("must not be empty; give the program and its arguments"));
    }
    for (qsizetype i = 0; i < run.command.size(); ++i) {
        if (!r.checkNoNul(QStringLiteral("run.command[%1]").arg(i), run.command[i]))
            return false;
    }
    const QString program = run.command.constFirst();
    if (program.isEmpty())
        return r.fail(QStringLiteral("run.command[0]"),
                      QStringLiteral("must not be empty; it is the program to run"));
    // A relative path would be resolved against whatever directory the process starts in,
    // which is the appliance's choice unless workdir is given: say where the program is.
    if (program.contains(u'/') && !program.startsWith(u'/')) {
        return r.fail(QStringLiteral("run.command[0]"),
                      QStringLiteral("must be an absolute path or a program name looked up in "
                                     "PATH, got %1")
                              .arg(quoted(program)));
    }
    if (!run.workdir.isEmpty() && !r.checkAbsolutePath(QStringLiteral("run.workdir"), run.workdir))
        return false;
    if (!validateEnvironment(run.env, r))
        return false;
    if (!run.user.isEmpty() && !r.checkUserName(QStringLiteral("run.user"), run.user))
        return false;
    if (!r.checkSignal(QStringLiteral("run.stopSignal"), run.stopSignal, stopSignalNames())
        || !r.checkSignal(QStringLiteral("run.checkpointSignal"),
                          run.checkpointSignal,
                          checkpointSignalNames())
        || !r.checkDurationRange(
                QStringLiteral("run.stopGrace"), run.stopGraceMs, 0, Limits::maxStopGraceMs)
        || !r.checkLogLimit(QStringLiteral("run.logLimit"), run.logLimitBytes)
        || !validateRunKeysForKind(spec, r)) {
        return false;
    }
    if (spec.kind == WorkloadKind::Inference)
        return validateServing(spec, r);
    return r.checkDurationRange(QStringLiteral("run.progressTimeout"),
                                run.progressTimeoutMs,
                                0,
                                Limits::maxProgressTimeoutMs);
}

} // namespace

bool validateSpec(const WorkloadSpec &spec, SpecChecks &r)
{
    if (!r.checkText(QStringLiteral("name"), spec.name, Limits::maxNameLength))
        return false;
    if (!isKnown(spec.kind, allKinds))
        return r.fail(QStringLiteral("kind"), QStringLiteral("unknown kind"));
    if (!validateDemand(spec.demand, r) || !validateTime(spec.time, r)
        || !r.checkRange(
                QStringLiteral("priority"), spec.priority, Limits::minPriority, Limits::maxPriority)
        || !validatePreemption(spec, r)
        || !validateAffinity(spec.affinity, spec.demand.cards == 0, r)) {
        return false;
    }

    if (!isKnown(spec.isolation, allRequirements))
        return r.fail(QStringLiteral("isolation"), QStringLiteral("unknown isolation requirement"));
    if (spec.demand.cards > 0 && spec.demand.compute.kind == ComputeDemand::Kind::Fraction
        && spec.isolation == IsolationRequirement::HardOnly) {
        return r.fail(QStringLiteral("isolation"),
                      QStringLiteral("\"hard\" cannot be met by a fraction, which is a soft share; "
                                     "ask for a profile, slices or a whole card"));
    }

    const QString inference = QStringLiteral("inference");
    if (spec.kind == WorkloadKind::Inference && !spec.inference)
        return r.fail(inference, QStringLiteral("required when kind is \"inference\""));
    if (spec.kind != WorkloadKind::Inference && spec.inference) {
        return r.fail(inference,
                      QStringLiteral("only allowed when kind is \"inference\", but it is %1")
                              .arg(quoted(toString(spec.kind))));
    }
    if (spec.inference && !validateInference(*spec.inference, r))
        return false;
    if (!validateShapes(spec, r))
        return false;
    return !spec.run || validateRun(spec, r);
}

} // namespace SpecDetail

bool validateWorkloadSpec(const WorkloadSpec &spec, SpecError *error)
{
    SpecDetail::SpecChecks checks;
    if (SpecDetail::validateSpec(spec, checks))
        return true;
    checks.report(error);
    return false;
}

} // namespace Zhaoxi::Domain
