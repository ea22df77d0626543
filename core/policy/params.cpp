// SPDX-License-Identifier: GPL-3.0-or-later
#include "params.h"

#include "core/domain/workloadspec.h"

#include <QRegularExpression>

#include <cmath>

namespace Zhaoxi::Policy {

using Domain::JsonReader;

ParamReader::ParamReader(const QJsonObject &object, QString path, PolicyError *error)
    : m_scope{object, std::move(path)}
    , m_error(error)
{}

void ParamReader::fail(const QString &f, const QString &message)
{
    if (!m_ok)
        return;
    m_ok = false;
    if (m_error)
        *m_error = PolicyError{f, message};
}

bool ParamReader::take(bool read)
{
    if (!read)
        fail(m_json.error().path, m_json.error().message);
    return read;
}

double ParamReader::number(const QString &key, double fallback, double min, double max)
{
    m_known.append(key);
    double d = fallback;
    return take(m_json.readNumber(m_scope, key, JsonReader::NumberRange{min, max}, &d)) ? d
                                                                                        : fallback;
}

qint64 ParamReader::duration(const QString &key, qint64 fallbackMs, qint64 minMs, qint64 maxMs)
{
    m_known.append(key);
    if (!has(key))
        return fallbackMs;
    const QJsonValue v = m_scope.at(key);
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
        fail(field(key), JsonReader::typeMessage(QStringLiteral("a duration"), v));
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
    m_known.append(key);
    const QJsonValue v = m_scope.at(key);
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
    m_known.append(key);
    bool b = fallback;
    return take(m_json.readBool(m_scope, key, &b)) ? b : fallback;
}

QString ParamReader::string(const QString &key, const QString &fallback, const QStringList &allowed)
{
    m_known.append(key);
    if (!has(key))
        return fallback;
    QString s;
    const bool read = allowed.isEmpty()
                              ? m_json.stringValue(m_scope.at(key), field(key), &s)
                                        && m_json.checkName(field(key), s)
                              : m_json.choiceValue(m_scope.at(key), field(key), allowed, &s);
    return take(read) ? s : fallback;
}

QJsonArray ParamReader::array(const QString &key)
{
    m_known.append(key);
    QJsonArray a;
    take(m_json.readArray(m_scope, key, &a));
    return a;
}

bool ParamReader::finish()
{
    if (m_ok)
        take(m_json.checkKeys(m_scope, m_known));
    return m_ok;
}

std::optional<QJsonObject> policyParamsFromJson(const QByteArray &utf8, PolicyError *error)
{
    Domain::JsonError e;
    std::optional<QJsonObject> params = Domain::parseJsonObject(utf8, &e);
    if (!params && error) {
        const QString where = e.line > 0 ? Domain::JsonTextPosition{e.line, e.column}.toString()
                                                   + QStringLiteral(": ")
                                         : QString();
        *error = PolicyError{e.path, where + e.message};
    }
    return params;
}

} // namespace Zhaoxi::Policy
