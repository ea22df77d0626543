// SPDX-License-Identifier: GPL-3.0-or-later
#include "jsonreader.h"

#include <QJsonDocument>
#include <QJsonParseError>
#include <QList>
#include <QLocale>
#include <QSet>

#include <algorithm>
#include <cmath>

namespace Zhaoxi::Domain {

QString jsonTypeName(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Bool:
        return QStringLiteral("boolean");
    case QJsonValue::Double:
        return QStringLiteral("number");
    case QJsonValue::String:
        return QStringLiteral("string");
    case QJsonValue::Array:
        return QStringLiteral("array");
    case QJsonValue::Object:
        return QStringLiteral("object");
    case QJsonValue::Undefined:
        break;
    }
    return QStringLiteral("nothing");
}

QString jsonTypeNameWithArticle(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null:
    case QJsonValue::Undefined:
        return jsonTypeName(value);
    case QJsonValue::Array:
    case QJsonValue::Object:
        return QStringLiteral("an ") + jsonTypeName(value);
    case QJsonValue::Bool:
    case QJsonValue::Double:
    case QJsonValue::String:
        break;
    }
    return QStringLiteral("a ") + jsonTypeName(value);
}

QString jsonPath(const QString &path, const QString &key)
{
    return path.isEmpty() ? key : path + u'.' + key;
}

QString jsonPath(const QString &path, qsizetype index)
{
    return path + u'[' + QString::number(index) + u']';
}

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

QString closestKey(const QString &key, const QStringList &known)
{
    QString best;
    int bestDistance = 3; // suggest only within two edits
    for (const QString &candidate : known) {
        if (candidate == key)
            continue;
        const int d = editDistance(key, candidate);
        // A candidate no longer than the edits would share nothing with the key ("s" for "ns").
        if (d < bestDistance && d < candidate.size()) {
            bestDistance = d;
            best = candidate;
        }
    }
    return best;
}

QString JsonTextPosition::toString() const
{
    return QStringLiteral("line %1, column %2").arg(line).arg(column);
}

JsonTextPosition jsonTextPosition(const QByteArray &utf8, qsizetype offset)
{
    offset = std::clamp<qsizetype>(offset, 0, utf8.size());
    JsonTextPosition p;
    // A byte-order mark is not a character an editor shows.
    const qsizetype begin = utf8.startsWith("\xEF\xBB\xBF") ? 3 : 0;
    for (qsizetype i = begin; i < offset; ++i) {
        const auto byte = static_cast<unsigned char>(utf8[i]);
        if (byte == '\n') {
            ++p.line;
            p.column = 1;
        } else if ((byte & 0xC0) != 0x80) { // not a UTF-8 continuation byte
            ++p.column;
        }
    }
    return p;
}

QString JsonError::toString() const
{
    QString s;
    if (line > 0)
        s = JsonTextPosition{line, column}.toString();
    if (!path.isEmpty())
        s += (s.isEmpty() ? QString() : QStringLiteral(": ")) + path;
    return s + (s.isEmpty() ? QString() : QStringLiteral(": ")) + message;
}

std::optional<JsonError> findDuplicateKey(const QByteArray &utf8)
{
    // Runs on text the parser has accepted, so it only tracks strings, nesting and commas.
    struct Frame
    {
        bool isObject = false;
        QString path;
        QSet<QString> keys;
        QString lastKey;     // object: the key whose value comes next
        qsizetype index = 0; // array: the element that comes next
        bool expectKey = true;
    };
    QList<Frame> stack;
    const qsizetype n = utf8.size();
    for (qsizetype i = 0; i < n; ++i) {
        const char ch = utf8[i];
        if (ch == '{' || ch == '[') {
            QString path;
            if (!stack.isEmpty()) {
                const Frame &top = stack.constLast();
                path = top.isObject ? jsonPath(top.path, top.lastKey)
                                    : jsonPath(top.path, top.index);
            }
            stack.append(Frame{ch == '{', path, {}, {}, 0, true});
        } else if (ch == '}' || ch == ']') {
            if (!stack.isEmpty())
                stack.removeLast();
        } else if (ch == ',') {
            if (!stack.isEmpty()) {
                Frame &top = stack.last();
                if (top.isObject)
                    top.expectKey = true;
                else
                    ++top.index;
            }
        } else if (ch == '"') {
            const qsizetype start = i;
            for (++i; i < n && utf8[i] != '"'; ++i) {
                if (utf8[i] == '\\')
                    ++i;
            }
            if (stack.isEmpty() || !stack.constLast().isObject || !stack.constLast().expectKey)
                continue;
            const QByteArray token = utf8.mid(start, i - start + 1);
            // Escapes are decoded by the parser itself, so "n\u0061me" is the "name" Qt sees.
            const QString key
                    = token.contains('\\')
                              ? QJsonDocument::fromJson('[' + token + ']').array().at(0).toString()
                              : QString::fromUtf8(token.mid(1, token.size() - 2));
            Frame &top = stack.last();
            if (top.keys.contains(key)) {
                const JsonTextPosition at = jsonTextPosition(utf8, start);
                return JsonError{jsonPath(top.path, key),
                                 QStringLiteral("repeated key; each key may appear once"),
                                 at.line,
                                 at.column};
            }
            top.keys.insert(key);
            top.lastKey = key;
            top.expectKey = false;
        }
    }
    return std::nullopt;
}

namespace {

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

bool report(JsonError *error, JsonError e)
{
    if (error)
        *error = std::move(e);
    return false;
}

} // namespace

std::optional<QJsonObject> parseJsonObject(const QByteArray &utf8, JsonError *error)
{
    if (utf8.trimmed().isEmpty()) {
        report(error, JsonError{{}, QStringLiteral("empty document; expected a JSON object")});
        return std::nullopt;
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(utf8, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        const JsonTextPosition at = jsonTextPosition(utf8, errorOffset(utf8, parseError));
        report(error,
               JsonError{{},
                         QStringLiteral("JSON syntax error: ") + parseError.errorString(),
                         at.line,
                         at.column});
        return std::nullopt;
    }
    if (!document.isObject()) {
        report(error,
               JsonError{{},
                         QStringLiteral("expected a JSON object at the top level, got %1")
                                 .arg(document.isArray() ? QStringLiteral("an array")
                                                         : QStringLiteral("a single value"))});
        return std::nullopt;
    }
    if (std::optional<JsonError> duplicate = findDuplicateKey(utf8)) {
        report(error, *duplicate);
        return std::nullopt;
    }
    return document.object();
}

QString nameProblem(const QString &text)
{
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        // A NUL cuts a C string short: what the driver or a log sees would differ from the file.
        if (c.unicode() == 0)
            return QStringLiteral("must not contain a NUL character");
        if (c.category() == QChar::Other_Control) {
            return QStringLiteral("must not contain control characters (U+%1 at character %2)")
                    .arg(QString::number(c.unicode(), 16).toUpper().rightJustified(4, u'0'))
                    .arg(i + 1);
        }
    }
    // JSON may spell a half of a surrogate pair alone ("\ud800"): not a character, and no
    // UTF-8 writer can put it back.
    if (!QStringView(text).isValidUtf16())
        return QStringLiteral("must be valid Unicode (it has a lone surrogate)");
    return {};
}

// ---- JsonReader -------------------------------------------------------------------------------

bool JsonReader::fail(const QString &path, const QString &message)
{
    if (!m_failed) {
        m_failed = true;
        m_error = JsonError{path, message};
    }
    return false;
}

QString JsonReader::typeMessage(const QString &expected, const QJsonValue &got)
{
    return QStringLiteral("expected %1, got %2").arg(expected, jsonTypeNameWithArticle(got));
}

QString JsonReader::numberText(double value)
{
    return QString::number(value, 'g', QLocale::FloatingPointShortest);
}

QString JsonReader::rangeMessage(qint64 lo, qint64 hi, const QString &got)
{
    if (hi == noLimit)
        return QStringLiteral("must be at least %1, got %2").arg(QString::number(lo), got);
    return QStringLiteral("must be %1..%2, got %3")
            .arg(QString::number(lo), QString::number(hi), got);
}

QString JsonReader::rangeMessage(const NumberRange &range, double got)
{
    const bool unbounded = range.max == std::numeric_limits<double>::max();
    QString what;
    if (unbounded) {
        what = (range.minExclusive ? QStringLiteral("greater than %1")
                                   : QStringLiteral("at least %1"))
                       .arg(numberText(range.min));
    } else if (range.minExclusive) {
        what = QStringLiteral("in (%1, %2]").arg(numberText(range.min), numberText(range.max));
    } else {
        what = QStringLiteral("%1..%2").arg(numberText(range.min), numberText(range.max));
    }
    return QStringLiteral("must be %1, got %2").arg(what, numberText(got));
}

bool JsonReader::checkKeys(const JsonScope &in, const QStringList &known)
{
    for (auto it = in.object.begin(); it != in.object.end(); ++it) {
        if (known.contains(it.key()))
            continue;
        const QString suggestion = closestKey(it.key(), known);
        return fail(in.field(it.key()),
                    suggestion.isEmpty()
                            ? QStringLiteral("unknown key (known keys: %1)")
                                      .arg(known.join(QStringLiteral(", ")))
                            : QStringLiteral("unknown key (did you mean \"%1\"?)").arg(suggestion));
    }
    return true;
}

bool JsonReader::require(const JsonScope &in, const QStringList &keys)
{
    for (const QString &key : keys) {
        if (!in.has(key))
            return fail(in.field(key), QStringLiteral("required"));
    }
    return true;
}

// True when the key is absent: fine if optional (the caller then returns true), recorded as
// "required" otherwise (the caller returns !failed()).
bool JsonReader::absent(const JsonScope &in, const QString &key, Presence presence)
{
    if (in.has(key))
        return false;
    if (presence == Presence::Required)
        fail(in.field(key), QStringLiteral("required"));
    return true;
}

bool JsonReader::objectValue(const QJsonValue &value, const QString &path, JsonScope *out)
{
    if (!value.isObject())
        return fail(path, typeMessage(QStringLiteral("an object"), value));
    *out = JsonScope{value.toObject(), path};
    return true;
}

bool JsonReader::stringValue(const QJsonValue &value, const QString &path, QString *out)
{
    if (!value.isString())
        return fail(path, typeMessage(QStringLiteral("a string"), value));
    *out = value.toString();
    return true;
}

bool JsonReader::checkName(const QString &path, const QString &text)
{
    const QString problem = nameProblem(text);
    return problem.isEmpty() || fail(path, problem);
}

bool JsonReader::nameValue(const QJsonValue &value, const QString &path, QString *out)
{
    QString text;
    if (!stringValue(value, path, &text))
        return false;
    if (text.trimmed().isEmpty())
        return fail(path, QStringLiteral("must not be empty"));
    if (!checkName(path, text))
        return false;
    *out = text;
    return true;
}

bool JsonReader::trimmedNameValue(const QJsonValue &value, const QString &path, QString *out)
{
    QString text;
    if (!nameValue(value, path, &text))
        return false;
    if (text != text.trimmed())
        return fail(path, QStringLiteral("must not start or end with white space"));
    *out = text;
    return true;
}

bool JsonReader::numberValue(const QJsonValue &value,
                             const QString &path,
                             const NumberRange &range,
                             double *out)
{
    if (!value.isDouble())
        return fail(path, typeMessage(QStringLiteral("a number"), value));
    const double d = value.toDouble();
    const bool belowMin = range.minExclusive ? !(d > range.min) : !(d >= range.min);
    if (!std::isfinite(d) || belowMin || d > range.max)
        return fail(path, rangeMessage(range, d));
    *out = d;
    return true;
}

bool JsonReader::integerValue(
        const QJsonValue &value, const QString &path, qint64 lo, qint64 hi, qint64 *out)
{
    if (!value.isDouble())
        return fail(path, typeMessage(QStringLiteral("an integer"), value));
    const double d = value.toDouble();
    if (!std::isfinite(d) || std::trunc(d) != d)
        return fail(path, QStringLiteral("expected an integer, got %1").arg(numberText(d)));
    // Compared as a double first: an integral value beyond qint64 has no toInteger().
    if (d < double(lo) || d > double(hi) || value.toInteger() < lo || value.toInteger() > hi)
        return fail(path, rangeMessage(lo, hi, numberText(d)));
    *out = value.toInteger();
    return true;
}

bool JsonReader::choiceValue(const QJsonValue &value,
                             const QString &path,
                             const QStringList &allowed,
                             QString *out)
{
    QString text;
    if (!stringValue(value, path, &text))
        return false;
    if (allowed.contains(text)) {
        *out = text;
        return true;
    }
    QString message = QStringLiteral("must be one of %1, got \"%2\"")
                              .arg(allowed.join(QStringLiteral(", ")), text);
    const QString suggestion = closestKey(text, allowed);
    if (!suggestion.isEmpty())
        message += QStringLiteral(" (did you mean \"%1\"?)").arg(suggestion);
    return fail(path, message);
}

bool JsonReader::readObject(const JsonScope &in,
                            const QString &key,
                            JsonScope *out,
                            Presence presence)
{
    out->path = in.field(key);
    if (absent(in, key, presence))
        return !m_failed;
    return objectValue(in.at(key), in.field(key), out);
}

bool JsonReader::readArray(const JsonScope &in,
                           const QString &key,
                           QJsonArray *out,
                           Presence presence)
{
    if (absent(in, key, presence))
        return !m_failed;
    const QJsonValue value = in.at(key);
    if (!value.isArray())
        return fail(in.field(key), typeMessage(QStringLiteral("an array"), value));
    *out = value.toArray();
    return true;
}

bool JsonReader::readString(const JsonScope &in,
                            const QString &key,
                            QString *out,
                            Presence presence)
{
    if (absent(in, key, presence))
        return !m_failed;
    return stringValue(in.at(key), in.field(key), out);
}

bool JsonReader::readName(const JsonScope &in, const QString &key, QString *out, Presence presence)
{
    if (absent(in, key, presence))
        return !m_failed;
    return nameValue(in.at(key), in.field(key), out);
}

bool JsonReader::readTrimmedName(const JsonScope &in,
                                 const QString &key,
                                 QString *out,
                                 Presence presence)
{
    if (absent(in, key, presence))
        return !m_failed;
    return trimmedNameValue(in.at(key), in.field(key), out);
}

bool JsonReader::readBool(const JsonScope &in, const QString &key, bool *out, Presence presence)
{
    if (absent(in, key, presence))
        return !m_failed;
    const QJsonValue value = in.at(key);
    if (!value.isBool())
        return fail(in.field(key), typeMessage(QStringLiteral("true or false"), value));
    *out = value.toBool();
    return true;
}

bool JsonReader::readNumber(const JsonScope &in, const QString &key, double *out, Presence presence)
{
    return readNumber(in, key, NumberRange{}, out, presence);
}

bool JsonReader::readNumber(const JsonScope &in,
                            const QString &key,
                            const NumberRange &range,
                            double *out,
                            Presence presence)
{
    if (absent(in, key, presence))
        return !m_failed;
    return numberValue(in.at(key), in.field(key), range, out);
}

bool JsonReader::readInteger(const JsonScope &in,
                             const QString &key,
                             qint64 lo,
                             qint64 hi,
                             qint64 *out,
                             Presence presence)
{
    if (absent(in, key, presence))
        return !m_failed;
    return integerValue(in.at(key), in.field(key), lo, hi, out);
}

bool JsonReader::readInt(
        const JsonScope &in, const QString &key, int lo, int hi, int *out, Presence presence)
{
    qint64 wide = *out;
    // int-sized fields use INT_MAX as "no upper bound".
    const qint64 top = hi == std::numeric_limits<int>::max() ? noLimit : qint64(hi);
    if (!readInteger(in, key, lo, top, &wide, presence))
        return false;
    if (wide > hi)
        return fail(in.field(key), rangeMessage(lo, hi, QString::number(wide)));
    *out = int(wide);
    return true;
}

bool JsonReader::readStrings(const JsonScope &in,
                             const QString &key,
                             QStringList *out,
                             Presence presence)
{
    QJsonArray array;
    if (absent(in, key, presence))
        return !m_failed;
    if (!readArray(in, key, &array))
        return false;
    QStringList strings;
    for (qsizetype i = 0; i < array.size(); ++i) {
        QString s;
        if (!stringValue(array.at(i), jsonPath(in.field(key), i), &s))
            return false;
        strings.append(s);
    }
    *out = strings;
    return true;
}

bool JsonReader::readChoice(const JsonScope &in,
                            const QString &key,
                            const QStringList &allowed,
                            QString *out,
                            Presence presence)
{
    if (absent(in, key, presence))
        return !m_failed;
    return choiceValue(in.at(key), in.field(key), allowed, out);
}

} // namespace Zhaoxi::Domain
