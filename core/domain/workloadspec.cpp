// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloadspec.h"

#include "core/domain/jsonnames.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QJsonValue>
#include <QList>
#include <QLocale>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>

namespace Zhaoxi::Domain {

using Limits = WorkloadSpecLimits;

QString toString(WorkloadKind kind)
{
    switch (kind) {
    case WorkloadKind::Training:
        return QStringLiteral("training");
    case WorkloadKind::Inference:
        return QStringLiteral("inference");
    case WorkloadKind::Batch:
        return QStringLiteral("batch");
    }
    return {};
}

QString toString(PreemptionTolerance tolerance)
{
    switch (tolerance) {
    case PreemptionTolerance::Never:
        return QStringLiteral("never");
    case PreemptionTolerance::AtCheckpoint:
        return QStringLiteral("checkpoint");
    case PreemptionTolerance::Restart:
        return QStringLiteral("restart");
    }
    return {};
}

QString toString(IsolationRequirement requirement)
{
    switch (requirement) {
    case IsolationRequirement::HardOnly:
        return QStringLiteral("hard");
    case IsolationRequirement::SoftAllowed:
        return QStringLiteral("soft");
    }
    return {};
}

QString toString(MetricsPreset preset)
{
    switch (preset) {
    case MetricsPreset::Vllm:
        return QStringLiteral("vllm");
    case MetricsPreset::Triton:
        return QStringLiteral("triton");
    case MetricsPreset::Tgi:
        return QStringLiteral("tgi");
    case MetricsPreset::Custom:
        return QStringLiteral("custom");
    }
    return {};
}

QString toString(LatencyUnit unit)
{
    switch (unit) {
    case LatencyUnit::Seconds:
        return QStringLiteral("s");
    case LatencyUnit::Milliseconds:
        return QStringLiteral("ms");
    case LatencyUnit::Microseconds:
        return QStringLiteral("us");
    }
    return {};
}

namespace {

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

constexpr std::initializer_list<WorkloadKind> allKinds
        = {WorkloadKind::Training, WorkloadKind::Inference, WorkloadKind::Batch};
constexpr std::initializer_list<PreemptionTolerance> allTolerances
        = {PreemptionTolerance::Never,
           PreemptionTolerance::AtCheckpoint,
           PreemptionTolerance::Restart};
constexpr std::initializer_list<IsolationRequirement> allRequirements
        = {IsolationRequirement::HardOnly, IsolationRequirement::SoftAllowed};
constexpr std::initializer_list<MetricsPreset> allPresets
        = {MetricsPreset::Vllm, MetricsPreset::Triton, MetricsPreset::Tgi, MetricsPreset::Custom};
constexpr std::initializer_list<LatencyUnit> allLatencyUnits
        = {LatencyUnit::Seconds, LatencyUnit::Milliseconds, LatencyUnit::Microseconds};

template<typename Enum>
bool isKnown(Enum value, std::initializer_list<Enum> values)
{
    for (Enum v : values) {
        if (v == value)
            return true;
    }
    return false;
}

} // namespace

bool workloadKindFromString(const QString &text, WorkloadKind *kind)
{
    return enumFromString(text, allKinds, kind);
}

bool preemptionToleranceFromString(const QString &text, PreemptionTolerance *tolerance)
{
    return enumFromString(text, allTolerances, tolerance);
}

bool isolationRequirementFromString(const QString &text, IsolationRequirement *requirement)
{
    return enumFromString(text, allRequirements, requirement);
}

bool metricsPresetFromString(const QString &text, MetricsPreset *preset)
{
    return enumFromString(text, allPresets, preset);
}

bool latencyUnitFromString(const QString &text, LatencyUnit *unit)
{
    return enumFromString(text, allLatencyUnits, unit);
}

double secondsPer(LatencyUnit unit)
{
    switch (unit) {
    case LatencyUnit::Seconds:
        return 1.0;
    case LatencyUnit::Milliseconds:
        return 1e-3;
    case LatencyUnit::Microseconds:
        return 1e-6;
    }
    return 1.0;
}

MetricNames metricNamesFor(const RunSpec &run)
{
    MetricNames names;
    switch (run.metricsPreset) {
    case MetricsPreset::Vllm:
        names.latency = QStringLiteral("vllm:e2e_request_latency_seconds");
        names.queue = QStringLiteral("vllm:num_requests_waiting");
        break;
    case MetricsPreset::Triton:
        // Triton exports no latency histogram by default, only the time spent and the requests
        // served, both cumulative.
        names.latency = QStringLiteral("nv_inference_request_duration_us");
        names.latencyKind = MetricNames::LatencyKind::CounterPair;
        names.latencyCount = QStringLiteral("nv_inference_request_success");
        names.latencyUnit = LatencyUnit::Microseconds;
        names.queue = QStringLiteral("nv_inference_pending_request_count");
        break;
    case MetricsPreset::Tgi:
        names.latency = QStringLiteral("tgi_request_duration");
        names.queue = QStringLiteral("tgi_queue_size");
        break;
    case MetricsPreset::Custom:
        break;
    }
    if (!run.latencyMetric.isEmpty())
        names.latency = run.latencyMetric;
    if (!run.queueMetric.isEmpty())
        names.queue = run.queueMetric;
    if (run.latencyUnit)
        names.latencyUnit = *run.latencyUnit;
    return names;
}

QStringList checkpointSignalNames()
{
    return {QStringLiteral("SIGTERM"),
            QStringLiteral("SIGINT"),
            QStringLiteral("SIGHUP"),
            QStringLiteral("SIGQUIT"),
            QStringLiteral("SIGUSR1"),
            QStringLiteral("SIGUSR2")};
}

QStringList stopSignalNames()
{
    return checkpointSignalNames() << QStringLiteral("SIGKILL");
}

bool isApplianceEnvironmentName(const QString &name)
{
    static const QSet<QString> names{QStringLiteral("CUDA_VISIBLE_DEVICES"),
                                     QStringLiteral("NVIDIA_VISIBLE_DEVICES"),
                                     QStringLiteral("CUDA_MPS_PIPE_DIRECTORY"),
                                     QStringLiteral("CUDA_MPS_LOG_DIRECTORY"),
                                     QStringLiteral("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"),
                                     QStringLiteral("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT")};
    return name.startsWith(QLatin1String("ZHAOXI_")) || names.contains(name);
}

// ---- durations --------------------------------------------------------------------------------

namespace {

constexpr qint64 secondMs = 1000;
constexpr qint64 minuteMs = 60 * secondMs;
constexpr qint64 hourMs = 60 * minuteMs;
constexpr qint64 dayMs = 24 * hourMs;

} // namespace

std::optional<qint64> durationMsFromString(const QString &text)
{
    // [0-9] rather than \d: only ASCII digits may ever count.
    static const QRegularExpression re(QStringLiteral("^(?:([0-9]+(?:\\.[0-9]+)?)d)?"
                                                      "(?:([0-9]+(?:\\.[0-9]+)?)h)?"
                                                      "(?:([0-9]+(?:\\.[0-9]+)?)m)?"
                                                      "(?:([0-9]+(?:\\.[0-9]+)?)s)?$"));
    if (text.isEmpty())
        return std::nullopt;
    const QRegularExpressionMatch match = re.match(text);
    if (!match.hasMatch())
        return std::nullopt;
    static constexpr qint64 unitMs[] = {dayMs, hourMs, minuteMs, secondMs};
    double total = 0;
    for (int i = 0; i < 4; ++i) {
        const QString term = match.captured(i + 1);
        if (!term.isEmpty())
            total += term.toDouble() * double(unitMs[i]);
    }
    // Saturate rather than overflow: the caller's range check then reports a clear "too long".
    if (!(total < 9.2e18))
        return std::numeric_limits<qint64>::max();
    return std::llround(total);
}

QString durationToString(qint64 ms)
{
    if (ms <= 0)
        return QStringLiteral("0s");
    QString text;
    const auto term = [&](qint64 unit, QChar suffix) {
        if (ms >= unit) {
            text += QString::number(ms / unit) + suffix;
            ms %= unit;
        }
    };
    term(dayMs, u'd');
    term(hourMs, u'h');
    term(minuteMs, u'm');
    if (ms > 0) {
        text += QString::number(ms / secondMs);
        if (const qint64 frac = ms % secondMs) {
            QString digits = QString::number(frac).rightJustified(3, u'0');
            while (digits.endsWith(u'0'))
                digits.chop(1);
            text += u'.' + digits;
        }
        text += u's';
    }
    return text;
}

// ---- shared checks ----------------------------------------------------------------------------

namespace {

QString join(const QString &path, const QString &key)
{
    return path.isEmpty() ? key : path + u'.' + key;
}

QString numberText(double value)
{
    return QString::number(value, 'g', QLocale::FloatingPointShortest);
}

QString quoted(const QString &text)
{
    return u'"' + text + u'"';
}

QString typeName(const QJsonValue &value)
{
    return Domain::jsonTypeName(value);
}

QString deadlineText(qint64 ms)
{
    const QDateTime t = QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC);
    return t.toString(ms % 1000 == 0 ? Qt::ISODate : Qt::ISODateWithMs);
}

bool hasControlCharacters(const QString &text)
{
    for (QChar c : text) {
        if (c.category() == QChar::Other_Control)
            return true;
    }
    return false;
}

// Both the reader and validateWorkloadSpec report through this, so a rule reads the same
// whichever of them finds the problem.
class Reporter
{
public:
    explicit Reporter(SpecError *error)
        : m_error(error)
    {}

    bool fail(const QString &field, const QString &message)
    {
        if (m_error)
            *m_error = SpecError{field, message};
        return false;
    }

    bool checkRange(const QString &field, qint64 value, qint64 lo, qint64 hi)
    {
        if (value < lo || value > hi) {
            return fail(
                    field,
                    QStringLiteral("must be %1..%2, got %3")
                            .arg(QString::number(lo), QString::number(hi), QString::number(value)));
        }
        return true;
    }

    bool checkText(const QString &field, const QString &text, int maxLength)
    {
        if (text.trimmed().isEmpty())
            return fail(field, QStringLiteral("must not be empty"));
        if (text.size() > maxLength) {
            return fail(field,
                        QStringLiteral("must be at most %1 characters, got %2")
                                .arg(QString::number(maxLength), QString::number(text.size())));
        }
        if (hasControlCharacters(text))
            return fail(field, QStringLiteral("must not contain control characters"));
        // JSON may spell a half of a surrogate pair alone ("\ud800"): not a character.
        if (!QStringView(text).isValidUtf16())
            return fail(field, QStringLiteral("must be valid Unicode (it has a lone surrogate)"));
        return true;
    }

    bool checkDuration(const QString &field, qint64 ms)
    {
        if (ms < 0)
            return fail(field, QStringLiteral("must not be negative"));
        if (ms > Limits::maxDurationMs) {
            return fail(
                    field,
                    QStringLiteral("must be at most %1, got %2")
                            .arg(durationToString(Limits::maxDurationMs), durationToString(ms)));
        }
        return true;
    }

    // A duration already read within checkDuration's bounds, against a narrower range.
    bool checkDurationRange(const QString &field, qint64 ms, qint64 lo, qint64 hi)
    {
        if (!checkDuration(field, ms))
            return false;
        if (ms < lo || ms > hi) {
            return fail(
                    field,
                    QStringLiteral("must be %1..%2, got %3")
                            .arg(durationToString(lo), durationToString(hi), durationToString(ms)));
        }
        return true;
    }

    bool checkNoNul(const QString &field, const QString &text)
    {
        // execve() takes C strings: a NUL would silently cut the value short.
        if (text.contains(QChar(0)))
            return fail(field, QStringLiteral("must not contain a NUL character"));
        return true;
    }

    bool checkAbsolutePath(const QString &field, const QString &path)
    {
        if (!path.startsWith(u'/')) {
            return fail(field,
                        QStringLiteral("must be an absolute path (starting with \"/\"), got %1")
                                .arg(quoted(path)));
        }
        return checkNoNul(field, path);
    }

    bool checkHttpPath(const QString &field, const QString &path)
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

    bool checkMetricName(const QString &field, const QString &name)
    {
        static const QRegularExpression re(QStringLiteral("^[a-zA-Z_:][a-zA-Z0-9_:]*$"));
        if (!re.match(name).hasMatch()) {
            return fail(
                    field,
                    QStringLiteral("must be a Prometheus metric name ([a-zA-Z_:][a-zA-Z0-9_:]*), "
                                   "got %1")
                            .arg(quoted(name)));
        }
        return true;
    }

    bool checkUserName(const QString &field, const QString &name)
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

    bool checkSignal(const QString &field, const QString &name, const QStringList &accepted)
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

    bool checkLogLimit(const QString &field, qint64 bytes)
    {
        if (bytes < Limits::minLogLimitBytes || bytes > Limits::maxLogLimitBytes)
            return fail(field, logLimitRange(QString::number(bytes)));
        return true;
    }

    static QString logLimitRange(const QString &got)
    {
        return QStringLiteral("must be 64KiB..64GiB (%1..%2 bytes), got %3")
                .arg(QString::number(Limits::minLogLimitBytes),
                     QString::number(Limits::maxLogLimitBytes),
                     got);
    }

    static QString portRange(const QString &got)
    {
        return QStringLiteral("must be \"auto\" or 1..%1, got %2")
                .arg(QString::number(Limits::maxPort), got);
    }

    bool checkProfile(const QString &field, const QString &profile)
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

private:
    SpecError *m_error;
};

int editDistance(const QString &a, const QString &b)
{
    QList<int> row(b.size() + 1);
    for (int j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (int i = 1; i <= a.size(); ++i) {
        int diagonal = row[0];
        row[0] = i;
        for (int j = 1; j <= b.size(); ++j) {
            const int above = row[j];
            const int cost = a[i - 1].toCaseFolded() == b[j - 1].toCaseFolded() ? 0 : 1;
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
            diagonal = above;
        }
    }
    return row[b.size()];
}

// ---- reading ----------------------------------------------------------------------------------

using Keys = std::initializer_list<const char *>;

// One JSON object being read and the path that names it in errors.
struct Scope
{
    QJsonObject object;
    QString path;

    bool has(const char *key) const { return object.contains(QLatin1String(key)); }
    QJsonValue at(const char *key) const { return object.value(QLatin1String(key)); }
    QString field(const char *key) const { return join(path, QString::fromLatin1(key)); }
};

// The read* members leave *out untouched and succeed when the key is absent: optional keys keep
// the struct's default, and required ones are checked beforehand with require().
class Reader : public Reporter
{
public:
    using Reporter::Reporter;

    std::optional<WorkloadSpec> read(const QJsonObject &json);

private:
    bool checkKeys(const Scope &in, Keys known);
    bool require(const Scope &in, Keys required);
    bool readObject(const Scope &in, const char *key, Scope *out);
    bool readString(const Scope &in, const char *key, QString *out);
    bool readBool(const Scope &in, const char *key, bool *out);
    bool readNumber(const Scope &in, const char *key, double *out);
    bool readInteger(const Scope &in, const char *key, qint64 lo, qint64 hi, qint64 *out);
    bool readInt(const Scope &in, const char *key, int lo, int hi, int *out);
    bool readDuration(const Scope &in, const char *key, qint64 *ms);
    bool readDeadline(const Scope &in, const char *key, std::optional<qint64> *ms);
    template<typename Enum>
    bool readEnum(const Scope &in, const char *key, std::initializer_list<Enum> values, Enum *out);
    bool readScaled(const Scope &in,
                    const char *scaledKey,
                    const char *baseKey,
                    double scale,
                    qint64 maxBase,
                    qint64 *out);

    bool readCompute(const Scope &in, ComputeDemand *compute);
    bool readDemand(const Scope &in, Demand *demand);
    bool readTime(const Scope &in, TimeBudget *time);
    bool readAffinity(const Scope &in, Affinity *affinity);
    bool readInference(const Scope &in, InferenceSpec *inference);
    bool readStrings(const Scope &in, const char *key, QStringList *out);
    bool readPort(const Scope &in, std::optional<int> *port);
    bool readLogLimit(const Scope &in, qint64 *bytes);
    bool readRun(const Scope &in, WorkloadKind kind, RunSpec *run);
};

// Unknown keys are looked at before anything else, so a typo is reported as a typo and not as
// the required key it was meant to be.
bool Reader::checkKeys(const Scope &in, Keys known)
{
    for (auto it = in.object.begin(); it != in.object.end(); ++it) {
        const QString key = it.key();
        bool isKnown = false;
        QString suggestion;
        int best = 3; // suggest only within two edits
        for (const char *k : known) {
            const QString candidate = QString::fromLatin1(k);
            if (key == candidate) {
                isKnown = true;
                break;
            }
            const int d = editDistance(key, candidate);
            if (d < best) {
                best = d;
                suggestion = candidate;
            }
        }
        if (isKnown)
            continue;
        QString message = QStringLiteral("unknown key");
        if (!suggestion.isEmpty())
            message += QStringLiteral(" (did you mean %1?)").arg(quoted(suggestion));
        return fail(join(in.path, key), message);
    }
    return true;
}

bool Reader::require(const Scope &in, Keys required)
{
    for (const char *key : required) {
        if (!in.has(key))
            return fail(in.field(key), QStringLiteral("required"));
    }
    return true;
}

bool Reader::readObject(const Scope &in, const char *key, Scope *out)
{
    const QJsonValue value = in.at(key);
    out->path = in.field(key);
    if (value.isUndefined())
        return true;
    if (!value.isObject())
        return fail(out->path, QStringLiteral("expected an object, got %1").arg(typeName(value)));
    out->object = value.toObject();
    return true;
}

bool Reader::readString(const Scope &in, const char *key, QString *out)
{
    const QJsonValue value = in.at(key);
    if (value.isUndefined())
        return true;
    if (!value.isString())
        return fail(in.field(key),
                    QStringLiteral("expected a string, got %1").arg(typeName(value)));
    *out = value.toString();
    return true;
}

bool Reader::readBool(const Scope &in, const char *key, bool *out)
{
    const QJsonValue value = in.at(key);
    if (value.isUndefined())
        return true;
    if (!value.isBool()) {
        return fail(in.field(key),
                    QStringLiteral("expected true or false, got %1").arg(typeName(value)));
    }
    *out = value.toBool();
    return true;
}

bool Reader::readNumber(const Scope &in, const char *key, double *out)
{
    const QJsonValue value = in.at(key);
    if (value.isUndefined())
        return true;
    if (!value.isDouble())
        return fail(in.field(key),
                    QStringLiteral("expected a number, got %1").arg(typeName(value)));
    *out = value.toDouble();
    return true;
}

bool Reader::readInteger(const Scope &in, const char *key, qint64 lo, qint64 hi, qint64 *out)
{
    const QJsonValue value = in.at(key);
    if (value.isUndefined())
        return true;
    const QString field = in.field(key);
    if (!value.isDouble())
        return fail(field, QStringLiteral("expected an integer, got %1").arg(typeName(value)));
    const double d = value.toDouble();
    if (std::trunc(d) != d)
        return fail(field, QStringLiteral("expected an integer, got %1").arg(numberText(d)));
    // Compared as a double first: an integral value beyond qint64 has no toInteger().
    if (d < double(lo) || d > double(hi)) {
        return fail(field,
                    QStringLiteral("must be %1..%2, got %3")
                            .arg(QString::number(lo), QString::number(hi), numberText(d)));
    }
    *out = value.toInteger();
    return true;
}

bool Reader::readInt(const Scope &in, const char *key, int lo, int hi, int *out)
{
    qint64 v = *out;
    if (!readInteger(in, key, lo, hi, &v))
        return false;
    *out = int(v);
    return true;
}

bool Reader::readDuration(const Scope &in, const char *key, qint64 *ms)
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
                            .arg(typeName(value)));
    }
    if (!checkDuration(field, result))
        return false;
    *ms = result;
    return true;
}

bool Reader::readDeadline(const Scope &in, const char *key, std::optional<qint64> *ms)
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
bool Reader::readEnum(const Scope &in,
                      const char *key,
                      std::initializer_list<Enum> values,
                      Enum *out)
{
    if (!in.has(key))
        return true;
    QString text;
    if (!readString(in, key, &text))
        return false;
    if (enumFromString(text, values, out))
        return true;
    QStringList names;
    for (Enum v : values)
        names.append(toString(v));
    return fail(in.field(key),
                QStringLiteral("must be one of %1, got %2")
                        .arg(names.join(QStringLiteral(", ")), quoted(text)));
}

// Reads a quantity written either in the canonical integer unit (baseKey) or in a friendlier
// scaled one (scaledKey, e.g. GiB or cores), at most one of the two.
bool Reader::readScaled(const Scope &in,
                        const char *scaledKey,
                        const char *baseKey,
                        double scale,
                        qint64 maxBase,
                        qint64 *out)
{
    if (in.has(scaledKey) && in.has(baseKey)) {
        return fail(in.field(scaledKey),
                    QStringLiteral("give %1 or %2, not both")
                            .arg(QLatin1String(scaledKey), QLatin1String(baseKey)));
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

bool Reader::readCompute(const Scope &in, ComputeDemand *compute)
{
    static constexpr Keys forms = {"wholeCard", "profile", "slices", "fraction"};
    if (!checkKeys(in, forms))
        return false;
    QStringList given;
    for (const char *form : forms) {
        if (in.has(form))
            given.append(QString::fromLatin1(form));
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

bool Reader::readDemand(const Scope &in, Demand *demand)
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
    Scope compute;
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

bool Reader::readTime(const Scope &in, TimeBudget *time)
{
    return checkKeys(in, {"expectedDuration", "deadline"})
           && readDuration(in, "expectedDuration", &time->expectedDurationMs)
           && readDeadline(in, "deadline", &time->deadlineMs);
}

bool Reader::readAffinity(const Scope &in, Affinity *affinity)
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

bool Reader::readInference(const Scope &in, InferenceSpec *inference)
{
    Scope replicas;
    if (!checkKeys(in, {"service", "sloP99Ms", "requestRate", "replicas"})
        || !require(in, {"service", "sloP99Ms"}) || !readString(in, "service", &inference->service)
        || !readNumber(in, "sloP99Ms", &inference->sloP99Ms)
        || !readNumber(in, "requestRate", &inference->requestRate)
        || !readObject(in, "replicas", &replicas) || !checkKeys(replicas, {"min", "max"})
        || !readInt(replicas, "min", 1, Limits::maxReplicas, &inference->minReplicas)) {
        return false;
    }
    // A lone "min" is a fixed replica count unless "max" says otherwise.
    inference->maxReplicas = inference->minReplicas;
    return readInt(replicas, "max", 1, Limits::maxReplicas, &inference->maxReplicas);
}

bool Reader::readStrings(const Scope &in, const char *key, QStringList *out)
{
    const QJsonValue value = in.at(key);
    if (value.isUndefined())
        return true;
    if (!value.isArray())
        return fail(in.field(key),
                    QStringLiteral("expected an array, got %1").arg(typeName(value)));
    const QJsonArray array = value.toArray();
    QStringList strings;
    for (qsizetype i = 0; i < array.size(); ++i) {
        if (!array.at(i).isString()) {
            return fail(in.field(key) + QStringLiteral("[%1]").arg(i),
                        QStringLiteral("expected a string, got %1").arg(typeName(array.at(i))));
        }
        strings.append(array.at(i).toString());
    }
    *out = strings;
    return true;
}

bool Reader::readPort(const Scope &in, std::optional<int> *port)
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
                    QStringLiteral("expected \"auto\" or an integer, got %1").arg(typeName(value)));
    }
    const double d = value.toDouble();
    if (std::trunc(d) != d || d < 1 || d > Limits::maxPort)
        return fail(field, portRange(numberText(d)));
    *port = int(d);
    return true;
}

bool Reader::readLogLimit(const Scope &in, qint64 *bytes)
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
                            .arg(typeName(value)));
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
bool Reader::readRun(const Scope &in, WorkloadKind kind, RunSpec *run)
{
    static constexpr Keys inferenceOnly = {"port",
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
        for (const char *key : inferenceOnly) {
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

    Scope env;
    if (!readObject(in, "env", &env))
        return false;
    for (auto it = env.object.begin(); it != env.object.end(); ++it) {
        if (!it.value().isString()) {
            return fail(join(env.path, it.key()),
                        QStringLiteral("expected a string, got %1").arg(typeName(it.value())));
        }
        run->env.insert(it.key(), it.value().toString());
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
    const Scope in{json, {}};
    WorkloadSpec spec;
    Scope demand;
    Scope time;
    Scope affinity;
    Scope inference;
    const bool ok
            = checkKeys(in,
                        {"name",
                         "kind",
                         "demand",
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
              && readDemand(demand, &spec.demand) && readObject(in, "time", &time)
              && readTime(time, &spec.time)
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
        Scope run;
        RunSpec block;
        if (!readObject(in, "run", &run) || !readRun(run, spec.kind, &block))
            return std::nullopt;
        spec.run = block;
    }
    return spec;
}

// ---- validation -------------------------------------------------------------------------------

// Each returns false after reporting the first problem; paths are the canonical JSON keys.

bool validateCompute(const ComputeDemand &c, Reporter &r)
{
    switch (c.kind) {
    case ComputeDemand::Kind::WholeCard:
        return true;
    case ComputeDemand::Kind::MigProfile:
        return r.checkProfile(QStringLiteral("demand.compute.profile"), c.profile);
    case ComputeDemand::Kind::MigSlices:
        return r.checkRange(
                QStringLiteral("demand.compute.slices"), c.slices, 1, Limits::maxMigSlices);
    case ComputeDemand::Kind::Fraction:
        if (c.milli < 1 || c.milli > 1000) {
            return r.fail(
                    QStringLiteral("demand.compute.fraction"),
                    QStringLiteral("must be in (0, 1], got %1").arg(numberText(c.milli / 1000.0)));
        }
        return true;
    }
    return r.fail(QStringLiteral("demand.compute"), QStringLiteral("unknown compute form"));
}

bool validateDemand(const Demand &d, Reporter &r)
{
    if (!r.checkRange(QStringLiteral("demand.cards"), d.cards, 0, Limits::maxCards))
        return false;
    // A CPU-only job's compute demand is never looked at, so whatever it holds is not an error.
    const bool cpuOnly = d.cards == 0;
    if (!cpuOnly && !validateCompute(d.compute, r))
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

bool validateTime(const TimeBudget &t, Reporter &r)
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

bool validatePreemption(const WorkloadSpec &spec, Reporter &r)
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

bool validateAffinity(const Affinity &a, bool cpuOnly, Reporter &r)
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

bool validateInference(const InferenceSpec &i, Reporter &r)
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

bool validateEnvironment(const QMap<QString, QString> &env, Reporter &r)
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
bool validateRunKeysForKind(const WorkloadSpec &spec, Reporter &r)
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

bool validateServing(const WorkloadSpec &spec, Reporter &r)
{
    const RunSpec &run = *spec.run;
    if (run.port && (*run.port < 1 || *run.port > Limits::maxPort))
        return r.fail(QStringLiteral("run.port"), Reporter::portRange(QString::number(*run.port)));
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

bool validateRun(const WorkloadSpec &spec, Reporter &r)
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

bool validate(const WorkloadSpec &spec, Reporter &r)
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
    return !spec.run || validateRun(spec, r);
}

// ---- byte-level checks ------------------------------------------------------------------------

// "line L, column C" for a byte offset; columns count characters, not UTF-8 bytes.
QString position(const QByteArray &utf8, qsizetype offset)
{
    offset = std::clamp<qsizetype>(offset, 0, utf8.size());
    int line = 1;
    int column = 1;
    // A byte-order mark is not a character an editor shows.
    const qsizetype begin = utf8.startsWith("\xEF\xBB\xBF") ? 3 : 0;
    for (qsizetype i = begin; i < offset; ++i) {
        const auto byte = static_cast<unsigned char>(utf8[i]);
        if (byte == '\n') {
            ++line;
            column = 1;
        } else if ((byte & 0xC0) != 0x80) { // not a UTF-8 continuation byte
            ++column;
        }
    }
    return QStringLiteral("line %1, column %2").arg(line).arg(column);
}

// Qt's parser keeps the last of two equal keys without a word. A repeated key is as likely a
// mistake as a misspelt one, so the (already well-formed) bytes are walked once more for them.
bool findDuplicateKeys(const QByteArray &utf8, Reporter &r)
{
    struct Frame
    {
        bool isObject = false;
        QString path;
        QSet<QString> keys;
        QString lastKey;
        int index = 0;
    };
    QList<Frame> stack;
    const qsizetype n = utf8.size();
    for (qsizetype i = 0; i < n; ++i) {
        const char ch = utf8[i];
        if (ch == '{' || ch == '[') {
            QString path;
            if (!stack.isEmpty()) {
                const Frame &top = stack.constLast();
                path = top.isObject ? join(top.path, top.lastKey)
                                    : top.path + QStringLiteral("[%1]").arg(top.index);
            }
            stack.append(Frame{ch == '{', path, {}, {}, 0});
        } else if (ch == '}' || ch == ']') {
            if (!stack.isEmpty())
                stack.removeLast();
        } else if (ch == ',') {
            if (!stack.isEmpty() && !stack.constLast().isObject)
                ++stack.last().index;
        } else if (ch == '"') {
            const qsizetype start = i;
            bool escaped = false;
            for (++i; i < n; ++i) {
                if (escaped)
                    escaped = false;
                else if (utf8[i] == '\\')
                    escaped = true;
                else if (utf8[i] == '"')
                    break;
            }
            qsizetype next = i + 1;
            while (next < n
                   && (utf8[next] == ' ' || utf8[next] == '\t' || utf8[next] == '\r'
                       || utf8[next] == '\n'))
                ++next;
            if (next >= n || utf8[next] != ':' || stack.isEmpty() || !stack.constLast().isObject)
                continue;
            const QByteArray token = utf8.mid(start, i - start + 1);
            const QString key
                    = token.contains('\\')
                              ? QJsonDocument::fromJson('[' + token + ']').array().at(0).toString()
                              : QString::fromUtf8(token.mid(1, token.size() - 2));
            Frame &top = stack.last();
            if (top.keys.contains(key)) {
                return r.fail(join(top.path, key),
                              QStringLiteral("repeated key (%1); each key may appear once")
                                      .arg(position(utf8, start)));
            }
            top.keys.insert(key);
            top.lastKey = key;
        }
    }
    return true;
}

// Qt reports where its reader stopped, which for most errors is just past the character that
// was wrong (and past any blanks it skipped to get there); this points at the character itself,
// or for a document cut short at its last character. Trailing garbage is reported where it starts.
qsizetype errorOffset(const QByteArray &utf8, const QJsonParseError &error)
{
    qsizetype offset = std::clamp<qsizetype>(error.offset, 0, utf8.size());
    if (error.error == QJsonParseError::GarbageAtEnd || offset == 0)
        return offset;
    --offset;
    while (offset > 0 && QByteArrayView(" \t\r\n").indexOf(utf8.at(offset)) >= 0)
        --offset;
    return offset;
}

// ---- writing ----------------------------------------------------------------------------------

QJsonValue durationValue(qint64 ms)
{
    if (ms % 1000 == 0)
        return QJsonValue(ms / 1000);
    return QJsonValue(double(ms) / 1000.0);
}

QJsonObject runToJson(WorkloadKind kind, const RunSpec &run)
{
    QJsonObject env;
    for (auto it = run.env.begin(); it != run.env.end(); ++it)
        env.insert(it.key(), it.value());
    QJsonObject json{
            {QLatin1String("command"), QJsonArray::fromStringList(run.command)},
            {QLatin1String("env"), env},
            {QLatin1String("stopSignal"), run.stopSignal},
            {QLatin1String("checkpointSignal"), run.checkpointSignal},
            {QLatin1String("stopGrace"), durationValue(run.stopGraceMs)},
            {QLatin1String("logLimit"), run.logLimitBytes},
    };
    if (!run.workdir.isEmpty())
        json.insert(QLatin1String("workdir"), run.workdir);
    if (!run.user.isEmpty())
        json.insert(QLatin1String("user"), run.user);
    if (kind != WorkloadKind::Inference) {
        json.insert(QLatin1String("progressTimeout"), durationValue(run.progressTimeoutMs));
        return json;
    }
    json.insert(QLatin1String("port"),
                run.port ? QJsonValue(*run.port) : QJsonValue(QLatin1String("auto")));
    if (!run.ready.isEmpty())
        json.insert(QLatin1String("ready"), run.ready);
    json.insert(QLatin1String("readyTimeout"), durationValue(run.readyTimeoutMs));
    json.insert(QLatin1String("metrics"), run.metrics);
    json.insert(QLatin1String("metricsPreset"), toString(run.metricsPreset));
    if (!run.latencyMetric.isEmpty())
        json.insert(QLatin1String("latencyMetric"), run.latencyMetric);
    if (!run.queueMetric.isEmpty())
        json.insert(QLatin1String("queueMetric"), run.queueMetric);
    if (run.latencyUnit)
        json.insert(QLatin1String("latencyUnit"), toString(*run.latencyUnit));
    return json;
}

} // namespace

std::optional<WorkloadSpec> workloadSpecFromJson(const QJsonObject &json, SpecError *error)
{
    Reader reader(error);
    std::optional<WorkloadSpec> spec = reader.read(json);
    if (!spec || !validate(*spec, reader))
        return std::nullopt;
    return spec;
}

std::optional<WorkloadSpec> workloadSpecFromJson(const QByteArray &utf8, SpecError *error)
{
    Reporter r(error);
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(utf8, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        if (utf8.trimmed().isEmpty()) {
            r.fail({}, QStringLiteral("empty document; expected a JSON object"));
            return std::nullopt;
        }
        r.fail({},
               position(utf8, errorOffset(utf8, parseError)) + QStringLiteral(": ")
                       + parseError.errorString());
        return std::nullopt;
    }
    if (!document.isObject()) {
        r.fail({}, QStringLiteral("expected a JSON object at the top level, got an array"));
        return std::nullopt;
    }
    if (!findDuplicateKeys(utf8, r))
        return std::nullopt;
    return workloadSpecFromJson(document.object(), error);
}

QJsonObject workloadSpecToJson(const WorkloadSpec &spec)
{
    const ComputeDemand &c = spec.demand.compute;
    QJsonObject compute;
    switch (c.kind) {
    case ComputeDemand::Kind::WholeCard:
        compute.insert(QLatin1String("wholeCard"), true);
        break;
    case ComputeDemand::Kind::MigProfile:
        compute.insert(QLatin1String("profile"), c.profile);
        break;
    case ComputeDemand::Kind::MigSlices:
        compute.insert(QLatin1String("slices"), c.slices);
        break;
    case ComputeDemand::Kind::Fraction:
        compute.insert(QLatin1String("fraction"), c.milli / 1000.0);
        break;
    }
    QJsonObject demand{
            {QLatin1String("memoryMiB"), spec.demand.memoryMiB},
            {QLatin1String("cards"), spec.demand.cards},
            {QLatin1String("hostCpuMilli"), spec.demand.hostCpuMilli},
            {QLatin1String("hostMemoryMiB"), spec.demand.hostMemoryMiB},
    };
    if (spec.demand.cards > 0) // a CPU-only job has no compute form
        demand.insert(QLatin1String("compute"), compute);
    QJsonObject time{
            {QLatin1String("expectedDuration"), durationValue(spec.time.expectedDurationMs)}};
    if (spec.time.deadlineMs)
        time.insert(QLatin1String("deadline"), deadlineText(*spec.time.deadlineMs));
    QJsonObject affinity{
            {QLatin1String("cardModels"), QJsonArray::fromStringList(spec.affinity.cardModels)},
            {QLatin1String("sameLinkDomain"), spec.affinity.sameLinkDomain},
    };
    if (!spec.affinity.host.isEmpty())
        affinity.insert(QLatin1String("host"), spec.affinity.host);

    QJsonObject json{
            {QLatin1String("name"), spec.name},
            {QLatin1String("kind"), toString(spec.kind)},
            {QLatin1String("demand"), demand},
            {QLatin1String("time"), time},
            {QLatin1String("priority"), spec.priority},
            {QLatin1String("preemption"), toString(spec.preemption)},
            {QLatin1String("affinity"), affinity},
            {QLatin1String("isolation"), toString(spec.isolation)},
    };
    if (spec.checkpointIntervalMs != 0)
        json.insert(QLatin1String("checkpointInterval"), durationValue(spec.checkpointIntervalMs));
    if (spec.inference) {
        const InferenceSpec &i = *spec.inference;
        json.insert(QLatin1String("inference"),
                    QJsonObject{
                            {QLatin1String("service"), i.service},
                            {QLatin1String("sloP99Ms"), i.sloP99Ms},
                            {QLatin1String("requestRate"), i.requestRate},
                            {QLatin1String("replicas"),
                             QJsonObject{{QLatin1String("min"), i.minReplicas},
                                         {QLatin1String("max"), i.maxReplicas}}},
                    });
    }
    if (spec.run)
        json.insert(QLatin1String("run"), runToJson(spec.kind, *spec.run));
    return json;
}

bool validateWorkloadSpec(const WorkloadSpec &spec, SpecError *error)
{
    Reporter reporter(error);
    return validate(spec, reporter);
}

bool operator==(const ComputeDemand &a, const ComputeDemand &b)
{
    if (a.kind != b.kind)
        return false;
    switch (a.kind) {
    case ComputeDemand::Kind::WholeCard:
        return true;
    case ComputeDemand::Kind::MigProfile:
        return a.profile == b.profile;
    case ComputeDemand::Kind::MigSlices:
        return a.slices == b.slices;
    case ComputeDemand::Kind::Fraction:
        return a.milli == b.milli;
    }
    return a.profile == b.profile && a.slices == b.slices && a.milli == b.milli;
}

bool operator==(const Demand &a, const Demand &b)
{
    // A CPU-only job's compute demand means nothing (see operator== for ComputeDemand).
    return a.cards == b.cards && (a.cards == 0 || a.compute == b.compute)
           && a.memoryMiB == b.memoryMiB && a.hostCpuMilli == b.hostCpuMilli
           && a.hostMemoryMiB == b.hostMemoryMiB;
}

bool operator==(const TimeBudget &a, const TimeBudget &b)
{
    return a.expectedDurationMs == b.expectedDurationMs && a.deadlineMs == b.deadlineMs;
}

bool operator==(const Affinity &a, const Affinity &b)
{
    return a.cardModels == b.cardModels && a.sameLinkDomain == b.sameLinkDomain && a.host == b.host;
}

bool operator==(const InferenceSpec &a, const InferenceSpec &b)
{
    return a.service == b.service && a.sloP99Ms == b.sloP99Ms && a.requestRate == b.requestRate
           && a.minReplicas == b.minReplicas && a.maxReplicas == b.maxReplicas;
}

bool operator==(const RunSpec &a, const RunSpec &b)
{
    return a.command == b.command && a.workdir == b.workdir && a.env == b.env && a.user == b.user
           && a.stopSignal == b.stopSignal && a.checkpointSignal == b.checkpointSignal
           && a.stopGraceMs == b.stopGraceMs && a.logLimitBytes == b.logLimitBytes
           && a.progressTimeoutMs == b.progressTimeoutMs && a.port == b.port && a.ready == b.ready
           && a.readyTimeoutMs == b.readyTimeoutMs && a.metrics == b.metrics
           && a.metricsPreset == b.metricsPreset && a.latencyMetric == b.latencyMetric
           && a.queueMetric == b.queueMetric && a.latencyUnit == b.latencyUnit;
}

bool operator==(const WorkloadSpec &a, const WorkloadSpec &b)
{
    return a.name == b.name && a.kind == b.kind && a.demand == b.demand && a.time == b.time
           && a.priority == b.priority && a.preemption == b.preemption
           && a.checkpointIntervalMs == b.checkpointIntervalMs && a.affinity == b.affinity
           && a.isolation == b.isolation && a.inference == b.inference && a.run == b.run;
}

} // namespace Zhaoxi::Domain
