// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>

#include <limits>
#include <optional>

namespace Zhaoxi::Domain {

// The one strict JSON reader behind every file the appliance reads (card catalogue, appliance
// file, scenarios, policy parameters, workload specs). It owns what those formats have in
// common: parsing bytes into one object with syntax errors at their line and column, refusing a
// key given twice (which Qt's parser silently collapses), unknown keys with a "did you mean",
// type errors that name both types, integer and number ranges, and the rule for names. What a
// format means stays in its reader.
//
// Messages are English (HOUSE_STYLE 4: logs and the command line) and always come with the JSON
// path of the value they are about, e.g. "services[2].rate.curve". All functions are pure and
// reentrant: any thread.

// The JSON type of a value, bare ("number") and as a sentence says it ("a number", "an object",
// "null"; "nothing" for an absent value).
QString jsonTypeName(const QJsonValue &value);
QString jsonTypeNameWithArticle(const QJsonValue &value);

// Paths: jsonPath("hosts[1]", "name") == "hosts[1].name", jsonPath("", "name") == "name",
// jsonPath("hosts", 1) == "hosts[1]".
QString jsonPath(const QString &path, const QString &key);
QString jsonPath(const QString &path, qsizetype index);

// Levenshtein distance, letters compared case-insensitively ("memoryGib" is one edit from
// "memoryGiB" only in case, so 0).
int editDistance(const QString &a, const QString &b);
// The key of `known` nearest to `key`, when it is within two edits, fewer than the candidate's
// length (so "s" is never suggested for "ns"), and not `key` itself; empty otherwise. Ties go to
// the first in `known`.
QString closestKey(const QString &key, const QStringList &known);

// Where in the text something is: 1-based line, and column in characters (not UTF-8 bytes; a
// byte-order mark is not a column).
struct JsonTextPosition
{
    int line = 1;
    int column = 1;
    QString toString() const; // "line L, column C"
};
JsonTextPosition jsonTextPosition(const QByteArray &utf8, qsizetype offset);

// A refused document: the path of the value (empty for the document as a whole), why, and
// where in the text when it can be told (syntax errors and repeated keys; line 0 otherwise).
struct JsonError
{
    QString path;
    QString message;
    int line = 0;   // 1-based; 0 when unknown
    int column = 0; // 1-based, in characters; 0 when unknown
    // "line L, column C: path: message", leaving out the parts that are unknown.
    QString toString() const;
};

// The first key that appears twice in one object of well-formed JSON text: its path (escapes
// decoded, so "n\u0061me" repeats "name"), message "repeated key; each key may appear once",
// and the position of the repeat's opening quote. nullopt when every key is unique.
std::optional<JsonError> findDuplicateKey(const QByteArray &utf8);

// Parses text that must hold one JSON object. Refuses, with *error filled (when not null):
// empty text ("empty document; expected a JSON object"), a syntax error ("JSON syntax error: "
// and Qt's message, at the character that is wrong or for text cut short at its last character), another top-level
// value ("expected a JSON object at the top level, got an array") and a repeated key.
std::optional<QJsonObject> parseJsonObject(const QByteArray &utf8, JsonError *error);

// The rule for names (ids; job, service, model, host and profile names): no NUL, no control
// character, no lone UTF-16 surrogate (JSON can spell "\u0000" and "\ud800"). Returns the
// problem as a message ("must not contain a NUL character", "must not contain control
// characters (U+000A at character 3)", "must be valid Unicode (it has a lone surrogate)"), or
// an empty string for a good name. Emptiness and length are the format's business.
QString nameProblem(const QString &text);

// One JSON object being read and the path that names it in errors.
struct JsonScope
{
    QJsonObject object;
    QString path;

    bool has(const QString &key) const { return object.contains(key); }
    QJsonValue at(const QString &key) const { return object.value(key); }
    QString field(const QString &key) const { return jsonPath(path, key); }
};

// Reads values out of scopes and keeps the first problem found. Every read* returns false after
// recording a problem, and true otherwise; with Presence::Optional an absent key is not a
// problem and leaves *out untouched (so it keeps the caller's default). Once a problem is
// recorded, later ones are ignored: the first is the honest one, later checks often depend on
// earlier fields.
class JsonReader
{
public:
    enum class Presence { Optional, Required };
    // A range of numbers. minExclusive: the minimum itself is out ("(0, 1]").
    struct NumberRange
    {
        double min = -std::numeric_limits<double>::max();
        double max = std::numeric_limits<double>::max();
        bool minExclusive = false;
    };
    static constexpr qint64 noLimit = std::numeric_limits<qint64>::max();

    bool fail(const QString &path, const QString &message);
    bool failed() const { return m_failed; }
    const JsonError &error() const { return m_error; }

    // Unknown keys: each key of the scope must be one of `known`, else "unknown key (did you
    // mean "x"?)" or, with nothing close, "unknown key (known keys: a, b, c)".
    bool checkKeys(const JsonScope &in, const QStringList &known);
    // "required" for the first of `keys` the scope lacks.
    bool require(const JsonScope &in, const QStringList &keys);

    // Values by key. Type errors read "expected a string, got a number".
    bool readObject(const JsonScope &in,
                    const QString &key,
                    JsonScope *out,
                    Presence presence = Presence::Optional);
    bool readArray(const JsonScope &in,
                   const QString &key,
                   QJsonArray *out,
                   Presence presence = Presence::Optional);
    bool readString(const JsonScope &in,
                    const QString &key,
                    QString *out,
                    Presence presence = Presence::Optional);
    // A string that is a name: readString, then not empty ("must not be empty") and
    // nameProblem().
    bool readName(const JsonScope &in,
                  const QString &key,
                  QString *out,
                  Presence presence = Presence::Optional);
    // readName, and no white space around it ("must not start or end with white space"): for
    // names matched as written, such as catalogue model names and host names.
    bool readTrimmedName(const JsonScope &in,
                         const QString &key,
                         QString *out,
                         Presence presence = Presence::Optional);
    // "expected true or false, got a string".
    bool readBool(const JsonScope &in,
                  const QString &key,
                  bool *out,
                  Presence presence = Presence::Optional);
    bool readNumber(const JsonScope &in,
                    const QString &key,
                    double *out,
                    Presence presence = Presence::Optional);
    bool readNumber(const JsonScope &in,
                    const QString &key,
                    const NumberRange &range,
                    double *out,
                    Presence presence = Presence::Optional);
    // A JSON number with no fraction in lo..hi: "expected an integer, got 2.5", "must be 1..7,
    // got 9"; with hi == noLimit "must be at least 1, got 0".
    bool readInteger(const JsonScope &in,
                     const QString &key,
                     qint64 lo,
                     qint64 hi,
                     qint64 *out,
                     Presence presence = Presence::Optional);
    bool readInt(const JsonScope &in,
                 const QString &key,
                 int lo,
                 int hi,
                 int *out,
                 Presence presence = Presence::Optional);
    // An array of strings; an element of another type is reported at its own path.
    bool readStrings(const JsonScope &in,
                     const QString &key,
                     QStringList *out,
                     Presence presence = Presence::Optional);
    // A string out of `allowed`: "must be one of a, b, got "x"" (with "did you mean" when one is
    // close).
    bool readChoice(const JsonScope &in,
                    const QString &key,
                    const QStringList &allowed,
                    QString *out,
                    Presence presence = Presence::Optional);

    // The same checks on a value already in hand (an array element, a map's value), at `path`.
    bool objectValue(const QJsonValue &value, const QString &path, JsonScope *out);
    bool stringValue(const QJsonValue &value, const QString &path, QString *out);
    bool nameValue(const QJsonValue &value, const QString &path, QString *out);
    bool trimmedNameValue(const QJsonValue &value, const QString &path, QString *out);
    bool numberValue(const QJsonValue &value,
                     const QString &path,
                     const NumberRange &range,
                     double *out);
    bool integerValue(
            const QJsonValue &value, const QString &path, qint64 lo, qint64 hi, qint64 *out);
    bool choiceValue(const QJsonValue &value,
                     const QString &path,
                     const QStringList &allowed,
                     QString *out);
    // nameProblem() of a string read elsewhere, reported at `path`.
    bool checkName(const QString &path, const QString &text);

    // The wording of the messages above, for checks a format makes itself.
    static QString typeMessage(const QString &expected, const QJsonValue &got);
    static QString rangeMessage(qint64 lo, qint64 hi, const QString &got);
    static QString rangeMessage(const NumberRange &range, double got);
    static QString numberText(double value); // shortest round-trip spelling: 0.1, 1e+30

private:
    bool absent(const JsonScope &in, const QString &key, Presence presence);

    JsonError m_error;
    bool m_failed = false;
};

} // namespace Zhaoxi::Domain
