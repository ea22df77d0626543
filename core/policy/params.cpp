// SPDX-License-Identifier: GPL-3.0-or-later
#include "params.h"

#include "core/domain/jsonnames.h"

#include "core/domain/workloadspec.h"

#include <QRegularExpression>

#include <cmath>

namespace Zhaoxi::Policy {

namespace {
QString typeName(const QJsonValue &v)
{
    return Domain::jsonTypeName(v);
}
} // namespace

void ParamReader::fail(const QString &f, const QString &message)
{
    if (!m_ok)
        return;
    m_ok = false;
    if (m_error)
        *m_error = PolicyError{f, message};
}

double ParamReader::number(const QString &key, double fallback, double min, double max)
{
    m_known.insert(key);
    if (!m_object.contains(key))
        return fallback;
    const QJsonValue v = m_object.value(key);
    if (!v.isDouble()) {
        fail(field(key), QStringLiteral("expected a number, got %1").arg(typeName(v)));
        return fallback;
    }
    const double d = v.toDouble();
    if (!(d >= min && d <= max)) {
        fail(field(key), QStringLiteral("must be %1..%2, got %3").arg(min).arg(max).arg(d));
        return fallback;
    }
    return d;
}

qint64 ParamReader::duration(const QString &key, qint64 fallbackMs, qint64 minMs, qint64 maxMs)
{
    m_known.insert(key);
    if (!m_object.contains(key))
        return fallbackMs;
    const QJsonValue v = m_object.value(key);
    qint64 ms = 0;
    if (v.isDouble()) {
        ms = qint64(std::llround(v.toDouble() * 1000));
    } else if (v.isString()) {
        const std::optional<qint64> d = Domain::durationMsFromString(v.toString());
        if (!d) {
            fail(field(key), QStringLiteral("not a duration: \"%1\"").arg(v.toString()));
            return fallbackMs;
        }
        ms = *d;
    } else {
        fail(field(key), QStringLiteral("expected a duration, got %1").arg(typeName(v)));
        return fallbackMs;
    }
    if (ms < minMs || ms > maxMs) {
        fail(field(key),
             QStringLiteral("must be %1..%2")
                     .arg(Domain::durationToString(minMs), Domain::durationToString(maxMs)));
        return fallbackMs;
    }
    return ms;
}

std::optional<qint64> ParamReader::timeOfDay(const QString &key)
{
    m_known.insert(key);
    const QJsonValue v = m_object.value(key);
    static const QRegularExpression re(QStringLiteral("^([01][0-9]|2[0-4]):([0-5][0-9])$"));
    const QRegularExpressionMatch m = re.match(v.toString());
    if (!v.isString() || !m.hasMatch()
        || (m.captured(1) == QLatin1String("24") && m.captured(2) != QLatin1String("00"))) {
        fail(field(key),
             v.isUndefined() ? QStringLiteral("required (\"HH:MM\")")
                             : QStringLiteral("expected a time of day \"HH:MM\""));
        return std::nullopt;
    }
    return (m.captured(1).toLongLong() * 60 + m.captured(2).toLongLong()) * 60'000;
}

bool ParamReader::boolean(const QString &key, bool fallback)
{
    m_known.insert(key);
    if (!m_object.contains(key))
        return fallback;
    const QJsonValue v = m_object.value(key);
    if (!v.isBool()) {
        fail(field(key), QStringLiteral("expected a boolean, got %1").arg(typeName(v)));
        return fallback;
    }
    return v.toBool();
}

QString ParamReader::string(const QString &key, const QString &fallback, const QStringList &allowed)
{
    m_known.insert(key);
    if (!m_object.contains(key))
        return fallback;
    const QJsonValue v = m_object.value(key);
    if (!v.isString()) {
        fail(field(key), QStringLiteral("expected a string, got %1").arg(typeName(v)));
        return fallback;
    }
    if (!allowed.isEmpty() && !allowed.contains(v.toString())) {
        fail(field(key),
             QStringLiteral("expected one of %1, got \"%2\"")
                     .arg(allowed.join(QStringLiteral(", ")), v.toString()));
        return fallback;
    }
    return v.toString();
}

QJsonArray ParamReader::array(const QString &key)
{
    m_known.insert(key);
    const QJsonValue v = m_object.value(key);
    if (!v.isUndefined() && !v.isArray())
        fail(field(key), QStringLiteral("expected an array, got %1").arg(typeName(v)));
    return v.toArray();
}

bool ParamReader::finish()
{
    for (auto it = m_object.constBegin(); it != m_object.constEnd(); ++it) {
        if (!m_known.contains(it.key())) {
            fail(field(it.key()), QStringLiteral("unknown key"));
            break;
        }
    }
    return m_ok;
}

} // namespace Zhaoxi::Policy
