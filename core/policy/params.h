// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "policy.h"

#include "core/domain/jsonreader.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>

#include <optional>

namespace Zhaoxi::Policy {

// Reads a policy's parameters strictly, through the shared JSON reader (core/domain/jsonreader.h):
// each read names the key it accepts; finish() refuses keys nobody asked for, with a "did you
// mean" when one is close. The first problem is kept in the error (fields are paths under the
// policy's object, e.g. "windows[1].from"). Every string read is held to the name rule (no NUL,
// control character or lone surrogate): parameters hold names and words, never free text.
// Called on the thread that builds the policy.
class ParamReader
{
public:
    ParamReader(const QJsonObject &object, QString path, PolicyError *error);
    bool ok() const { return m_ok; }
    double number(const QString &key, double fallback, double min, double max);
    // Durations: a number of seconds or a string such as "15m", "1h30m".
    qint64 duration(const QString &key, qint64 fallbackMs, qint64 minMs, qint64 maxMs);
    // Time of day "HH:MM" -> ms since midnight.
    std::optional<qint64> timeOfDay(const QString &key);
    bool boolean(const QString &key, bool fallback);
    QString string(const QString &key, const QString &fallback, const QStringList &allowed = {});
    QJsonArray array(const QString &key);
    bool has(const QString &key) const { return m_scope.has(key); }
    QString field(const QString &key) const { return m_scope.field(key); }
    void fail(const QString &field, const QString &message);
    bool finish();

private:
    // Passes on the shared reader's problem when `read` failed.
    bool take(bool read);

    Domain::JsonScope m_scope;
    Domain::JsonReader m_json;
    PolicyError *m_error;
    QStringList m_known;
    bool m_ok = true;
};

// Parameters given as text (a file, a form field): one JSON object, refused for a syntax error or
// a repeated key (Qt's parser would keep only the last) with "line L, column C: " leading the
// message, since a PolicyError has no line of its own. Pure; any thread.
std::optional<QJsonObject> policyParamsFromJson(const QByteArray &utf8, PolicyError *error);

} // namespace Zhaoxi::Policy
