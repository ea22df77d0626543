// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "policy.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QSet>

#include <optional>

namespace Zhaoxi::Policy {

// Reads a policy's parameters strictly: each read names the key it accepts; finish() refuses
// keys nobody asked for. The first problem is kept in the error (fields are paths under the
// policy's object, e.g. "windows[1].from").
class ParamReader
{
public:
    ParamReader(const QJsonObject &object, QString path, PolicyError *error)
        : m_object(object)
        , m_path(std::move(path))
        , m_error(error)
    {}
    bool ok() const { return m_ok; }
    double number(const QString &key, double fallback, double min, double max);
    // Durations: a number of seconds or a string such as "15m", "1h30m".
    qint64 duration(const QString &key, qint64 fallbackMs, qint64 minMs, qint64 maxMs);
    // Time of day "HH:MM" -> ms since midnight.
    std::optional<qint64> timeOfDay(const QString &key);
    bool boolean(const QString &key, bool fallback);
    QString string(const QString &key, const QString &fallback, const QStringList &allowed = {});
    QJsonArray array(const QString &key);
    bool has(const QString &key) const { return m_object.contains(key); }
    QString field(const QString &key) const
    {
        return m_path.isEmpty() ? key : m_path + QLatin1Char('.') + key;
    }
    void fail(const QString &field, const QString &message);
    bool finish();

private:
    QJsonObject m_object;
    QString m_path;
    PolicyError *m_error;
    QSet<QString> m_known;
    bool m_ok = true;
};

} // namespace Zhaoxi::Policy
