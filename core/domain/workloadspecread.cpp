// SPDX-License-Identifier: GPL-3.0-or-later
// Reading a workload spec from JSON: types and syntax. Ranges and cross-field rules are
// workloadspecvalidate.cpp's, which the reader runs after it.
#include "workloadspec_p.h"

#include <QDateTime>
#include <QRegularExpression>

#include <cmath>
#include <limits>

namespace Zhaoxi::Domain {

namespace SpecDetail {

namespace {

// The read* members leave *out untouched and succeed when the key is absent: optional keys keep
// the struct's default, and required ones are checked beforehand with require(). Unknown keys
// are looked at before anything else in each object, so a typo is reported as a typo and not as
// the required key it was meant to be.
class Reader : public SpecChecks
{
public:
    std::optional<WorkloadSpec> read(const QJsonObject &json);

private:
    bool readDuration(const JsonScope &in, const QString &key, qint64 *ms);
    bool readDeadline(const JsonScope &in, const QString &key, std::optional<qint64> *ms);
    template<typename Enum>
    bool readEnum(const JsonScope &in,
                  const QString &key,
                  std::initializer_list<Enum> values,
                  Enum *out);
    bool readScaled(const JsonScope &in,
                    const QString &scaledKey,
                    const QString &baseKey,
                    double scale,
                    qint64 maxBase,
                    qint64 *out);

    bool readCompute(const JsonScope &in, ComputeDemand *compute);
    bool readDemand(const JsonScope &in, Demand *demand);
    bool readShapes(const JsonScope &in, const Demand &primary, QList<WorkloadShape> *shapes);
    bool readTime(const JsonScope &in, TimeBudget *time);
    bool readAffinity(const JsonScope &in, Affinity *affinity);
    bool readInference(const JsonScope &in, InferenceSpec *inference);
    bool readPort(const JsonScope &in, std::optional<int> *port);
    bool readLogLimit(const JsonScope &in, qint64 *bytes);
    bool readRun(const JsonScope &in, WorkloadKind kind, RunSpec *run);
};

bool Reader::readDuration(const JsonScope &in, const QString &key, qint64 *ms)
{
    const QJsonValue value = in.at(key);
    const QString field = in.field(key);
    qint64 result = 0;
    if (value.isUndefined()) {
        return true;
    } else if (value.isDouble()) {
        const double seconds = value.toDouble();
        if (seconds < 0)
            return fail(field,
                        QStringLiteral("must not be negative, got %1").arg(numberText(seconds)));
        const double total = seconds * 1000.0;
        result = total < 9.2e18 ? std::llround(total) : std::numeric_limits<qint64>::max();
    } else if (value.isString()) {
        const std::optional<qint64> parsed = durationMsFromString(value.toString());
        if (!parsed) {
            return fail(field,
                        QStringLiteral("expected a duration such as \"90m\" or \"1h30m\" (units d, "
                                       "h, m, s, largest first), got %1")
                                .arg(quoted(value.toString())));
        }
        result = *parsed;
    } else {
        return fail(field,
                    QStringLiteral("expected a number of seconds or a duration string, got %1")
                            .arg(jsonTypeNameWithArticle(value)));
    }
    if (!checkDuration(field, result))
        return false;
    *ms = result;
    return true;
}

bool Reader::readDeadline(const JsonScope &in, const QString &key, std::optional<qint64> *ms)
{
    if (!in.has(key))
        return true;
    QString text;
    if (!readString(in, key, &text))
        return false;
    const QString field = in.field(key);
    const QDateTime t = QDateTime::fromString(text, Qt::ISODateWithMs);
    if (!t.isValid()) {
        return fail(field,
                    QStringLiteral("expected an ISO-8601 date and time such as "
                                   "\"2026-12-01T08:00:00Z\", got %1")
                            .arg(quoted(text)));
    }
    // Without an offset Qt would take the appliance's local zone: a deadline must not move
    // with the machine it is read on.
    if (t.timeSpec() != Qt::UTC && t.timeSpec() != Qt::OffsetFromUTC) {
        return fail(field,
                    QStringLiteral("needs a UTC offset or \"Z\", e.g. \"2026-12-01T08:00:00Z\", "
                                   "got %1")
                            .arg(quoted(text)));
    }
    const qint64 result = t.toMSecsSinceEpoch();
    if (result < 0 || result > Limits::maxDeadlineMs)
        return fail(field,
                    QStringLiteral("must be between 1970 and 9999, got %1").arg(quoted(text)));
    *ms = result;
    return true;
}

template<typename Enum>
bool Reader::readEnum(const JsonScope &in,
                      const QString &key,
                      std::initializer_list<Enum> values,
                      Enum *out)
{
    QString text;
    if (!in.has(key) || !readChoice(in, key, enumNames(values), &text))
        return !failed();
    return enumFromString(text, values, out);
}

// Reads a quantity written either in the canonical integer unit (baseKey) or in a friendlier
// scaled one (scaledKey, e.g. GiB or cores), at most one of the two.
bool Reader::readScaled(const JsonScope &in,
                        const QString &scaledKey,
                        const QString &baseKey,
                        double scale,
                        qint64 maxBase,
                        qint64 *out)
{
    if (in.has(scaledKey) && in.has(baseKey)) {
        return fail(in.field(scaledKey),
                    QStringLiteral("give %1 or %2, not both").arg(scaledKey, baseKey));
    }
    if (!in.has(scaledKey))
        return readInteger(in, baseKey, 0, maxBase, out);
    double v = 0;
    if (!readNumber(in, scaledKey, &v))
        return false;
    const double max = double(maxBase) / scale;
    if (v < 0 || v > max) {
        return fail(in.field(scaledKey),
                    QStringLiteral("must be 0..%1, got %2").arg(numberText(max), numberText(v)));
    }
    *out = std::llround(v * scale);
    return true;
}

bool Reader::readCompute(const JsonScope &in, ComputeDemand *compute)
{
    static const QStringList forms = {"wholeCard", "profile", "slices", "fraction"};
    if (!checkKeys(in, forms))
        return false;
    QStringList given;
    for (const QString &form : forms) {
        if (in.has(form))
            given.append(form);
    }
    if (given.isEmpty())
        return fail(in.path, QStringLiteral("needs one of wholeCard, profile, slices, fraction"));
    if (given.size() > 1) {
        return fail(in.path,
                    QStringLiteral("give exactly one of wholeCard, profile, slices, fraction; "
                                   "got %1")
                            .arg(given.join(QStringLiteral(" and "))));
    }

    if (in.has("wholeCard")) {
        bool whole = true;
        if (!readBool(in, "wholeCard", &whole))
            return false;
        if (!whole) {
            return fail(in.field("wholeCard"),
                        QStringLiteral("must be true; for less than a card give profile, slices "
                                       "or fraction instead"));
        }
        compute->kind = ComputeDemand::Kind::WholeCard;
    } else if (in.has("profile")) {
        if (!readString(in, "profile", &compute->profile)
            || !checkProfile(in.field("profile"), compute->profile)) {
            return false;
        }
        compute->kind = ComputeDemand::Kind::MigProfile;
    } else if (in.has("slices")) {
        if (!readInt(in, "slices", 1, Limits::maxMigSlices, &compute->slices))
            return false;
        compute->kind = ComputeDemand::Kind::MigSlices;
    } else {
        double fraction = 0;
        if (!readNumber(in, "fraction", &fraction))
            return false;
        const QString field = in.field("fraction");
        if (!(fraction > 0 && fraction <= 1))
            return fail(field,
                        QStringLiteral("must be in (0, 1], got %1").arg(numberText(fraction)));
        compute->milli = int(std::llround(fraction * 1000));
        if (compute->milli < 1) {
            return fail(field,
                        QStringLiteral("must be at least 0.001 (shares count in thousandths), "
                                       "got %1")
                                .arg(numberText(fraction)));
        }
        compute->kind = ComputeDemand::Kind::Fraction;
    }
    return true;
}

bool Reader::readDemand(const JsonScope &in, Demand *demand)
{
    if (!checkKeys(in,
                   {"compute",
                    "memoryGiB",
                    "memoryMiB",
                    "cards",
                    "hostCpu",
                    "hostCpuMilli",
                    "hostMemoryGiB",
                    "hostMemoryMiB"})
        || !readInt(in, "cards", 0, Limits::maxCards, &demand->cards)) {
        return false;
    }
    // cards 0 is a CPU-only job: it asks for nothing from a card, so saying what it wants from
    // one is a contradiction rather than something to ignore.
    const bool cpuOnly = demand->cards == 0;
    JsonScope compute;
    if (cpuOnly && in.has("compute")) {
        return fail(in.field("compute"),
                    QStringLiteral("not allowed when cards is 0 (a CPU-only job uses no card)"));
    }
    if (!cpuOnly
        && (!require(in, {"compute"}) || !readObject(in, "compute", &compute)
            || !readCompute(compute, &demand->compute))) {
        return false;
    }
    if (!readScaled(in, "memoryGiB", "memoryMiB", 1024, Limits::maxMemoryMiB, &demand->memoryMiB))
        return false;
    if (cpuOnly && demand->memoryMiB != 0) {
        return fail(in.field(in.has("memoryGiB") ? "memoryGiB" : "memoryMiB"),
                    QStringLiteral("must be 0 when cards is 0 (a CPU-only job uses no card "
                                   "memory)"));
    }
    return readScaled(in,
                      "hostCpu",
                      "hostCpuMilli",
                      1000,
                      Limits::maxHostCpuMilli,
                      &demand->hostCpuMilli)
           && readScaled(in,
                         "hostMemoryGiB",
                         "hostMemoryMiB",
                         1024,
                         Limits::maxHostMemoryMiB,
                         &demand->hostMemoryMiB);
}

// Each shape: {"demand": {compute, memoryGiB|memoryMiB, cards}, "speed": s}. The host CPU and
// memory are the job's, so a shape takes them from the primary demand rather than repeating them.
bool Reader::readShapes(const JsonScope &in, const Demand &primary, QList<WorkloadShape> *shapes)
{
    QJsonArray list;
    if (!readArray(in, "shapes", &list))
        return false;
    if (list.size() > Limits::maxShapes) {
        return fail(in.field("shapes"),
                    QStringLiteral("at most %1 alternative shapes, got %2")
                            .arg(QString::number(Limits::maxShapes), QString::number(list.size())));
    }
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QString path = jsonPath(in.field("shapes"), i);
        JsonScope item;
        JsonScope demand;
        if (!objectValue(list[i], path, &item) || !checkKeys(item, {"demand", "speed"})
            || !require(item, {"demand", "speed"})
            || !readObject(item, "demand", &demand, Presence::Required)) {
            return false;
        }
        for (const char *key : {"hostCpu", "hostCpuMilli", "hostMemoryGiB", "hostMemoryMiB"}) {
            if (demand.has(QLatin1String(key))) {
                return fail(
                        demand.field(QLatin1String(key)),
                        QStringLiteral("not allowed in a shape: the host CPU and memory are the "
                                       "whole job's, the same for every shape (give them in "
                                       "demand)"));
            }
        }
        WorkloadShape shape;
        shape.demand.hostCpuMilli = primary.hostCpuMilli;
        shape.demand.hostMemoryMiB = primary.hostMemoryMiB;
        JsonScope compute;
        if (!checkKeys(demand, {"compute", "memoryGiB", "memoryMiB", "cards"})
            || !readInt(demand, "cards", 1, Limits::maxCards, &shape.demand.cards)
            || !require(demand, {"compute"}) || !readObject(demand, "compute", &compute)
            || !readCompute(compute, &shape.demand.compute)
            || !readScaled(demand,
                           "memoryGiB",
                           "memoryMiB",
                           1024,
                           Limits::maxMemoryMiB,
                           &shape.demand.memoryMiB)
            || !readNumber(
                    item, "speed", NumberRange{0, Limits::maxShapeSpeed, true}, &shape.speed)) {
            return false;
        }
        shapes->append(shape);
    }
    return true;
}

bool Reader::readTime(const JsonScope &in, TimeBudget *time)
{
    return checkKeys(in, {"expectedDuration", "deadline"})
           && readDuration(in, "expectedDuration", &time->expectedDurationMs)
           && readDeadline(in, "deadline", &time->deadlineMs);
}

bool Reader::readAffinity(const JsonScope &in, Affinity *affinity)
{
    if (!checkKeys(in, {"cardModels", "sameLinkDomain", "host"})
        || !readStrings(in, "cardModels", &affinity->cardModels)) {
        return false;
    }
    if (!readBool(in, "sameLinkDomain", &affinity->sameLinkDomain)
        || !readString(in, "host", &affinity->host)) {
        return false;
    }
    // An empty host would read as "any host" and hide a template that forgot to fill it in.
    if (in.has("host") && affinity->host.isEmpty())
        return fail(in.field("host"),
                    QStringLiteral("must not be empty; leave the key out for any host"));
    return true;
}

bool Reader::readInference(const JsonScope &in, InferenceSpec *inference)
{
    JsonScope replicas;
    if (!checkKeys(in, {"service", "sloP99Ms", "requestRate", "serviceTimeMs", "replicas"})
        || !require(in, {"service", "sloP99Ms"}) || !readString(in, "service", &inference->service)
        || !readNumber(in, "sloP99Ms", &inference->sloP99Ms)
        || !readNumber(in, "requestRate", &inference->requestRate)
        || !readNumber(in,
                       "serviceTimeMs",
                       NumberRange{0, Limits::maxSloP99Ms, true},
                       &inference->serviceTimeMs)
        || !readObject(in, "replicas", &replicas) || !checkKeys(replicas, {"min", "max"})
        || !readInt(replicas, "min", 1, Limits::maxReplicas, &inference->minReplicas)) {
        return false;
    }
    // A lone "min" is a fixed replica count unless "max" says otherwise.
    inference->maxReplicas = inference->minReplicas;
    return readInt(replicas, "max", 1, Limits::maxReplicas, &inference->maxReplicas);
}

bool Reader::readPort(const JsonScope &in, std::optional<int> *port)
{
    const QJsonValue value = in.at("port");
    const QString field = in.field("port");
    if (value.isUndefined())
        return true;
    if (value.isString()) {
        if (value.toString() != QLatin1String("auto"))
            return fail(field, portRange(quoted(value.toString())));
        port->reset();
        return true;
    }
    if (!value.isDouble()) {
        return fail(field,
                    QStringLiteral("expected \"auto\" or an integer, got %1")
                            .arg(jsonTypeNameWithArticle(value)));
    }
    const double d = value.toDouble();
    if (std::trunc(d) != d || d < 1 || d > Limits::maxPort)
        return fail(field, portRange(numberText(d)));
    *port = int(d);
    return true;
}

bool Reader::readLogLimit(const JsonScope &in, qint64 *bytes)
{
    const QJsonValue value = in.at("logLimit");
    const QString field = in.field("logLimit");
    if (value.isUndefined())
        return true;
    if (value.isDouble()) {
        const double d = value.toDouble();
        if (std::trunc(d) != d)
            return fail(field,
                        QStringLiteral("expected an integer number of bytes, got %1")
                                .arg(numberText(d)));
        if (d < double(Limits::minLogLimitBytes) || d > double(Limits::maxLogLimitBytes))
            return fail(field, logLimitRange(numberText(d)));
        *bytes = value.toInteger();
        return true;
    }
    if (!value.isString()) {
        return fail(field,
                    QStringLiteral("expected a number of bytes or a size such as \"64MiB\", got %1")
                            .arg(jsonTypeNameWithArticle(value)));
    }
    // Binary units only, and whole numbers: "64MB" and "1.5GiB" are more likely a guess at the
    // syntax than a size someone means to the byte.
    static const QRegularExpression re(QStringLiteral("^([0-9]+)(KiB|MiB|GiB)$"));
    const QString text = value.toString();
    const QRegularExpressionMatch match = re.match(text);
    if (!match.hasMatch()) {
        return fail(field,
                    QStringLiteral("expected a number of bytes or a size such as \"512KiB\", "
                                   "\"64MiB\" or \"2GiB\" (a whole number and KiB, MiB or GiB), "
                                   "got %1")
                            .arg(quoted(text)));
    }
    const QString unit = match.captured(2);
    const int shift = unit == QLatin1String("KiB") ? 10 : unit == QLatin1String("MiB") ? 20 : 30;
    bool ok = false;
    const qint64 n = match.captured(1).toLongLong(&ok);
    if (!ok || n > (Limits::maxLogLimitBytes >> shift) || (n << shift) < Limits::minLogLimitBytes)
        return fail(field, logLimitRange(quoted(text)));
    *bytes = n << shift;
    return true;
}

// Types and syntax only; ranges and cross-field rules are validateRun's, which the reader runs
// after it. Keys that do not apply to the kind are refused before their values are looked at.
bool Reader::readRun(const JsonScope &in, WorkloadKind kind, RunSpec *run)
{
    static const QStringList inferenceOnly = {"port",
                                              "ready",
                                              "readyTimeout",
                                              "metrics",
                                              "metricsPreset",
                                              "latencyMetric",
                                              "queueMetric",
                                              "latencyUnit"};
    if (!checkKeys(in,
                   {"command",
                    "workdir",
                    "env",
                    "user",
                    "stopSignal",
                    "checkpointSignal",
                    "stopGrace",
                    "logLimit",
                    "progressTimeout",
                    "port",
                    "ready",
                    "readyTimeout",
                    "metrics",
                    "metricsPreset",
                    "latencyMetric",
                    "queueMetric",
                    "latencyUnit"})) {
        return false;
    }
    if (kind != WorkloadKind::Inference) {
        for (const QString &key : inferenceOnly) {
            if (in.has(key)) {
                return fail(in.field(key),
                            QStringLiteral("only allowed when kind is \"inference\", but it is %1")
                                    .arg(quoted(toString(kind))));
            }
        }
    } else if (in.has("progressTimeout")) {
        return fail(in.field("progressTimeout"),
                    QStringLiteral("only allowed when kind is \"training\" or \"batch\", but it "
                                   "is \"inference\""));
    }
    if (!require(in, {"command"}) || !readStrings(in, "command", &run->command)
        || !readString(in, "workdir", &run->workdir)
        || (in.has("workdir") && !checkAbsolutePath(in.field("workdir"), run->workdir))) {
        return false;
    }

    JsonScope env;
    if (!readObject(in, "env", &env))
        return false;
    for (auto it = env.object.begin(); it != env.object.end(); ++it) {
        QString value;
        if (!stringValue(it.value(), jsonPath(env.path, it.key()), &value))
            return false;
        run->env.insert(it.key(), value);
    }

    if (!readString(in, "user", &run->user)
        || (in.has("user") && !checkUserName(in.field("user"), run->user))
        || !readString(in, "stopSignal", &run->stopSignal)
        || !readString(in, "checkpointSignal", &run->checkpointSignal)
        || !readDuration(in, "stopGrace", &run->stopGraceMs)
        || !readLogLimit(in, &run->logLimitBytes)
        || !readDuration(in, "progressTimeout", &run->progressTimeoutMs)
        || !readPort(in, &run->port) || !readString(in, "ready", &run->ready)
        || (in.has("ready") && !checkHttpPath(in.field("ready"), run->ready))
        || !readDuration(in, "readyTimeout", &run->readyTimeoutMs)
        || !readString(in, "metrics", &run->metrics)
        || !readEnum(in, "metricsPreset", allPresets, &run->metricsPreset)
        || !readString(in, "latencyMetric", &run->latencyMetric)
        || (in.has("latencyMetric")
            && !checkMetricName(in.field("latencyMetric"), run->latencyMetric))
        || !readString(in, "queueMetric", &run->queueMetric)
        || (in.has("queueMetric") && !checkMetricName(in.field("queueMetric"), run->queueMetric))) {
        return false;
    }
    if (in.has("latencyUnit")) {
        LatencyUnit unit = LatencyUnit::Seconds;
        if (!readEnum(in, "latencyUnit", allLatencyUnits, &unit))
            return false;
        run->latencyUnit = unit;
    }
    return true;
}

std::optional<WorkloadSpec> Reader::read(const QJsonObject &json)
{
    const JsonScope in{json, {}};
    WorkloadSpec spec;
    JsonScope demand;
    JsonScope time;
    JsonScope affinity;
    JsonScope inference;
    const bool ok
            = checkKeys(in,
                        {"name",
                         "kind",
                         "demand",
                         "shapes",
                         "time",
                         "priority",
                         "preemption",
                         "checkpointInterval",
                         "affinity",
                         "isolation",
                         "inference",
                         "run"})
              && require(in, {"name", "kind", "demand"}) && readString(in, "name", &spec.name)
              && checkText(in.field("name"), spec.name, Limits::maxNameLength)
              && readEnum(in, "kind", allKinds, &spec.kind) && readObject(in, "demand", &demand)
              && readDemand(demand, &spec.demand) && readShapes(in, spec.demand, &spec.shapes)
              && readObject(in, "time", &time) && readTime(time, &spec.time)
              && readInt(in, "priority", Limits::minPriority, Limits::maxPriority, &spec.priority)
              && readEnum(in, "preemption", allTolerances, &spec.preemption)
              && readDuration(in, "checkpointInterval", &spec.checkpointIntervalMs)
              && readObject(in, "affinity", &affinity) && readAffinity(affinity, &spec.affinity)
              && readEnum(in, "isolation", allRequirements, &spec.isolation);
    if (!ok)
        return std::nullopt;
    if (in.has("inference")) {
        InferenceSpec block;
        if (!readObject(in, "inference", &inference) || !readInference(inference, &block))
            return std::nullopt;
        spec.inference = block;
    }
    if (in.has("run")) {
        JsonScope run;
        RunSpec block;
        if (!readObject(in, "run", &run) || !readRun(run, spec.kind, &block))
            return std::nullopt;
        spec.run = block;
    }
    return spec;
}

} // namespace

std::optional<WorkloadSpec> readSpec(const QJsonObject &json, SpecChecks &checks)
{
    Reader reader;
    std::optional<WorkloadSpec> spec = reader.read(json);
    if (!spec)
        checks.fail(reader.error().path, reader.error().message);
    return spec;
}

} // namespace SpecDetail

std::optional<WorkloadSpec> workloadSpecFromJson(const QJsonObject &json, SpecError *error)
{
    SpecDetail::SpecChecks checks;
    std::optional<WorkloadSpec> spec = SpecDetail::readSpec(json, checks);
    if (!spec || !SpecDetail::validateSpec(*spec, checks)) {
        checks.report(error);
        return std::nullopt;
    }
    return spec;
}

std::optional<WorkloadSpec> workloadSpecFromJson(const QByteArray &utf8, SpecError *error)
{
    JsonError jsonError;
    const std::optional<QJsonObject> json = parseJsonObject(utf8, &jsonError);
    if (!json) {
        // A SpecError has no line of its own: the position leads the message, as an editor
        // would show it.
        if (error) {
            const QString where
                    = jsonError.line > 0
                              ? JsonTextPosition{jsonError.line, jsonError.column}.toString()
                                        + QStringLiteral(": ")
                              : QString();
            *error = SpecError{jsonError.path, where + jsonError.message};
        }
        return std::nullopt;
    }
    return workloadSpecFromJson(*json, error);
}

} // namespace Zhaoxi::Domain
