// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/domain/jsonreader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

#include <functional>

using namespace Zhaoxi::Domain;

namespace {

using Presence = JsonReader::Presence;
using Read = std::function<bool(JsonReader &, const JsonScope &)>;

JsonScope scope(const QByteArray &json, const QString &path = {})
{
    QJsonParseError e;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &e);
    if (e.error != QJsonParseError::NoError)
        qFatal("bad JSON in a test row: %s", qPrintable(e.errorString()));
    return JsonScope{doc.object(), path};
}

} // namespace

Q_DECLARE_METATYPE(Read)

class tst_JsonReader : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void typeNames_data();
    void typeNames();
    void paths();
    void editDistance_data();
    void editDistance();
    void closestKey_data();
    void closestKey();
    void parseErrors_data();
    void parseErrors();
    void siblingKeysAreNotRepeats();
    void names_data();
    void names();
    void readErrors_data();
    void readErrors();
    void absentOptionalKeysKeepTheDefault();
    void firstProblemIsKept();
};

void tst_JsonReader::typeNames_data()
{
    QTest::addColumn<QJsonValue>("value");
    QTest::addColumn<QString>("bare");
    QTest::addColumn<QString>("withArticle");
    QTest::newRow("null") << QJsonValue(QJsonValue::Null) << "null"
                          << "null";
    QTest::newRow("bool") << QJsonValue(true) << "boolean"
                          << "a boolean";
    QTest::newRow("number") << QJsonValue(1.5) << "number"
                            << "a number";
    QTest::newRow("string") << QJsonValue("x") << "string"
                            << "a string";
    QTest::newRow("array") << QJsonValue(QJsonArray{}) << "array"
                           << "an array";
    QTest::newRow("object") << QJsonValue(QJsonObject{}) << "object"
                            << "an object";
    QTest::newRow("absent") << QJsonValue(QJsonValue::Undefined) << "nothing"
                            << "nothing";
}

void tst_JsonReader::typeNames()
{
    QFETCH(QJsonValue, value);
    QFETCH(QString, bare);
    QFETCH(QString, withArticle);
    QCOMPARE(jsonTypeName(value), bare);
    QCOMPARE(jsonTypeNameWithArticle(value), withArticle);
}

void tst_JsonReader::paths()
{
    QCOMPARE(jsonPath(QString(), QStringLiteral("name")), QStringLiteral("name"));
    QCOMPARE(jsonPath(QStringLiteral("hosts[1]"), QStringLiteral("name")),
             QStringLiteral("hosts[1].name"));
    QCOMPARE(jsonPath(QStringLiteral("services"), 2), QStringLiteral("services[2]"));
    const JsonScope in{QJsonObject{}, QStringLiteral("services[2].rate")};
    QCOMPARE(in.field(QStringLiteral("curve")), QStringLiteral("services[2].rate.curve"));
}

void tst_JsonReader::editDistance_data()
{
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("b");
    QTest::addColumn<int>("distance");
    QTest::newRow("equal") << "priority"
                           << "priority" << 0;
    QTest::newRow("case only") << "memoryGib"
                               << "memoryGiB" << 0;
    QTest::newRow("transposition") << "nmae"
                                   << "name" << 2;
    QTest::newRow("deletion") << "prority"
                              << "priority" << 1;
    QTest::newRow("insertion") << "hosts"
                               << "host" << 1;
    QTest::newRow("empty") << ""
                           << "abc" << 3;
    QTest::newRow("unrelated") << "owner"
                               << "kind" << 4;
}

void tst_JsonReader::editDistance()
{
    QFETCH(QString, a);
    QFETCH(QString, b);
    QFETCH(int, distance);
    QCOMPARE(Zhaoxi::Domain::editDistance(a, b), distance);
    QCOMPARE(Zhaoxi::Domain::editDistance(b, a), distance);
}

void tst_JsonReader::closestKey_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QStringList>("known");
    QTest::addColumn<QString>("closest");
    const QStringList keys{"name", "kind", "priority", "hosts"};
    QTest::newRow("one edit") << "prority" << keys << "priority";
    QTest::newRow("two edits") << "nmae" << keys << "name";
    QTest::newRow("three edits is too far") << "prio" << keys << "";
    QTest::newRow("nothing close") << "owner" << keys << "";
    QTest::newRow("ties go to the first") << "kinf" << QStringList{"kind", "kine"} << "kind";
}

void tst_JsonReader::closestKey()
{
    QFETCH(QString, key);
    QFETCH(QStringList, known);
    QFETCH(QString, closest);
    QCOMPARE(Zhaoxi::Domain::closestKey(key, known), closest);
}

void tst_JsonReader::parseErrors_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("error"); // the whole of JsonError::toString()
    QTest::addColumn<int>("line");

    QTest::newRow("empty") << QByteArray() << "empty document; expected a JSON object" << 0;
    QTest::newRow("blank") << QByteArray(" \n\t") << "empty document; expected a JSON object" << 0;
    QTest::newRow("missing colon")
            << QByteArray("{\n  \"a\" 1\n}")
            << "line 2, column 7: JSON syntax error: missing name separator" << 2;
    QTest::newRow("cut short") << QByteArray("{\"a\": 1,\n")
                               << "line 1, column 8: JSON syntax error: unterminated object" << 1;
    QTest::newRow("garbage at the end")
            << QByteArray("{} x")
            << "line 1, column 4: JSON syntax error: garbage at the end of the document" << 1;
    QTest::newRow("array") << QByteArray("[1]")
                           << "expected a JSON object at the top level, got an array" << 0;
    QTest::newRow("repeated top-level key")
            << QByteArray(R"({"a": 1, "a": 2})")
            << "line 1, column 10: a: repeated key; each key may appear once" << 1;
    QTest::newRow("repeated key in an array element")
            << QByteArray(R"({"s": [{"r": {"c": 1}}, {"r": {"c": 1, "c": 2}}]})")
            << "line 1, column 40: s[1].r.c: repeated key; each key may appear once" << 1;
    QTest::newRow("repeated key on a later line")
            << QByteArray("{\n  \"hosts\": [\n    {\"name\": \"a\",\n     \"name\": \"b\"}]}")
            << "line 4, column 6: hosts[0].name: repeated key; each key may appear once" << 4;
    QTest::newRow("repeated key spelt with an escape")
            << QByteArray(R"({"name": 1, "n\u0061me": 2})")
            << "line 1, column 13: name: repeated key; each key may appear once" << 1;
    QTest::newRow("an escaped quote does not end a key")
            << QByteArray(R"({"a\"": {"x": 1}, "b": [{"x": 1}, {"x": 2}], "a\"": 2})")
            << "line 1, column 46: a\": repeated key; each key may appear once" << 1;
    QTest::newRow("columns count characters")
            << QByteArray("{\"\xe6\x9c\x9d\": 1, \"\xe6\x9c\x9d\": 2}")
            << "line 1, column 10: \xe6\x9c\x9d: repeated key; each key may appear once" << 1;
}

void tst_JsonReader::parseErrors()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, error);
    QFETCH(int, line);
    JsonError e;
    QVERIFY(!parseJsonObject(json, &e));
    QCOMPARE(e.toString(), error);
    QCOMPARE(e.line, line);
    QVERIFY(!parseJsonObject(json, nullptr)); // a null error pointer is allowed
}

void tst_JsonReader::siblingKeysAreNotRepeats()
{
    const QByteArray json = R"({"a": {"x": 1, "y": {"x": 2}}, "b": [{"x": 1}, {"x": 2}],
        "s": "not a \"key\": here", "x": 3})";
    JsonError e;
    const std::optional<QJsonObject> o = parseJsonObject(json, &e);
    QVERIFY2(o, qPrintable(e.toString()));
    QCOMPARE(o->value(QStringLiteral("x")).toInt(), 3);
    QVERIFY(!findDuplicateKey(json));
}

void tst_JsonReader::names_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("problem");
    QTest::newRow("plain") << "node-a"
                           << "";
    QTest::newRow("CJK") << QString::fromUtf8("\xe6\x9c\x9d\xe5\xa4\x95") << "";
    QTest::newRow("a pair is a character") << QString::fromUtf8("gpu-\xf0\x9f\x98\x80") << "";
    QTest::newRow("NUL") << QString::fromUtf16(u"a\u0000b", 3)
                         << "must not contain a NUL character";
    QTest::newRow("newline") << "a\nb"
                             << "must not contain control characters (U+000A at character 2)";
    QTest::newRow("tab") << "\tb"
                         << "must not contain control characters (U+0009 at character 1)";
    QTest::newRow("DEL") << "ab\x7f"
                         << "must not contain control characters (U+007F at character 3)";
    QTest::newRow("lone high surrogate")
            << QString(QChar(0xD800)) << "must be valid Unicode (it has a lone surrogate)";
    QTest::newRow("lone low surrogate") << QStringLiteral("x") + QChar(0xDC00)
                                        << "must be valid Unicode (it has a lone surrogate)";
}

void tst_JsonReader::names()
{
    QFETCH(QString, name);
    QFETCH(QString, problem);
    QCOMPARE(nameProblem(name), problem);

    // The same through a document, spelt as JSON escapes: the path names the value.
    JsonReader reader;
    const JsonScope in{QJsonObject{{QStringLiteral("name"), name}}, QStringLiteral("hosts[3]")};
    QString out = QStringLiteral("unchanged");
    QCOMPARE(reader.readName(in, QStringLiteral("name"), &out), problem.isEmpty());
    if (problem.isEmpty()) {
        QCOMPARE(out, name);
    } else {
        QCOMPARE(reader.error().toString(), QStringLiteral("hosts[3].name: ") + problem);
        QCOMPARE(out, QStringLiteral("unchanged"));
    }
}

void tst_JsonReader::readErrors_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<Read>("read");
    QTest::addColumn<QString>("error"); // the whole of JsonError::toString(), under path "p"

    const auto keys = [](const QStringList &known) {
        return Read([=](JsonReader &r, const JsonScope &in) { return r.checkKeys(in, known); });
    };
    // Where the reads put what they read; static, as the rows outlive this function.
    static QString s;
    static qint64 i = 0;
    static int n = 0;
    static double d = 0;
    static bool b = false;
    static QJsonArray a;
    static QStringList l;
    static JsonScope o;
    const Read str = [](JsonReader &r, const JsonScope &in) { return r.readString(in, "k", &s); };
    const Read strRequired = [](JsonReader &r, const JsonScope &in) {
        return r.readString(in, "k", &s, Presence::Required);
    };
    const Read name = [](JsonReader &r, const JsonScope &in) { return r.readName(in, "k", &s); };
    const Read integer
            = [](JsonReader &r, const JsonScope &in) { return r.readInteger(in, "k", 1, 7, &i); };
    const Read atLeast = [](JsonReader &r, const JsonScope &in) {
        return r.readInteger(in, "k", 1, JsonReader::noLimit, &i);
    };
    const Read smallInt
            = [](JsonReader &r, const JsonScope &in) { return r.readInt(in, "k", 0, 64, &n); };
    const Read number
            = [](JsonReader &r, const JsonScope &in) { return r.readNumber(in, "k", &d); };
    const Read share = [](JsonReader &r, const JsonScope &in) {
        return r.readNumber(in, "k", {0, 1, true}, &d);
    };
    const Read positive = [](JsonReader &r, const JsonScope &in) {
        JsonReader::NumberRange range;
        range.min = 0;
        range.minExclusive = true;
        return r.readNumber(in, "k", range, &d);
    };
    const Read closed = [](JsonReader &r, const JsonScope &in) {
        return r.readNumber(in, "k", {-24, 24}, &d);
    };
    const Read boolean = [](JsonReader &r, const JsonScope &in) { return r.readBool(in, "k", &b); };
    const Read array = [](JsonReader &r, const JsonScope &in) { return r.readArray(in, "k", &a); };
    const Read object
            = [](JsonReader &r, const JsonScope &in) { return r.readObject(in, "k", &o); };
    const Read strings
            = [](JsonReader &r, const JsonScope &in) { return r.readStrings(in, "k", &l); };
    const Read choice = [](JsonReader &r, const JsonScope &in) {
        return r.readChoice(in, "k", {"drain", "immediate"}, &s);
    };
    const Read required = [](JsonReader &r, const JsonScope &in) {
        return r.require(in, {"a", "k"});
    };

    QTest::newRow("unknown key, did you mean")
            << QByteArray(R"({"prority": 1})") << keys({"name", "priority"})
            << R"(p.prority: unknown key (did you mean "priority"?))";
    QTest::newRow("unknown key, nothing close")
            << QByteArray(R"({"owner": 1})") << keys({"name", "priority"})
            << "p.owner: unknown key (known keys: name, priority)";
    QTest::newRow("required") << QByteArray(R"({"a": 1})") << required << "p.k: required";
    QTest::newRow("required string") << QByteArray("{}") << strRequired << "p.k: required";
    QTest::newRow("string, got a number")
            << QByteArray(R"({"k": 1})") << str << "p.k: expected a string, got a number";
    QTest::newRow("string, got null")
            << QByteArray(R"({"k": null})") << str << "p.k: expected a string, got null";
    QTest::newRow("name empty") << QByteArray(R"({"k": " "})") << name << "p.k: must not be empty";
    QTest::newRow("name with NUL")
            << QByteArray(R"({"k": "a\u0000"})") << name << "p.k: must not contain a NUL character";
    QTest::newRow("name with a lone surrogate")
            << QByteArray(R"({"k": "\udfff"})") << name
            << "p.k: must be valid Unicode (it has a lone surrogate)";
    QTest::newRow("name, got an array")
            << QByteArray(R"({"k": []})") << name << "p.k: expected a string, got an array";
    QTest::newRow("integer, got a string")
            << QByteArray(R"({"k": "3"})") << integer << "p.k: expected an integer, got a string";
    QTest::newRow("integer with a fraction")
            << QByteArray(R"({"k": 2.5})") << integer << "p.k: expected an integer, got 2.5";
    QTest::newRow("integer too big")
            << QByteArray(R"({"k": 9})") << integer << "p.k: must be 1..7, got 9";
    QTest::newRow("integer huge") << QByteArray(R"({"k": 1e30})") << integer
                                  << "p.k: must be 1..7, got 1e+30";
    QTest::newRow("integer, no upper limit")
            << QByteArray(R"({"k": 0})") << atLeast << "p.k: must be at least 1, got 0";
    QTest::newRow("int too big") << QByteArray(R"({"k": 65})") << smallInt
                                 << "p.k: must be 0..64, got 65";
    QTest::newRow("number, got a boolean")
            << QByteArray(R"({"k": true})") << number << "p.k: expected a number, got a boolean";
    QTest::newRow("number, got an object")
            << QByteArray(R"({"k": {}})") << number << "p.k: expected a number, got an object";
    QTest::newRow("share of zero")
            << QByteArray(R"({"k": 0})") << share << "p.k: must be in (0, 1], got 0";
    QTest::newRow("share above one")
            << QByteArray(R"({"k": 1.5})") << share << "p.k: must be in (0, 1], got 1.5";
    QTest::newRow("not positive") << QByteArray(R"({"k": -0.5})") << positive
                                  << "p.k: must be greater than 0, got -0.5";
    QTest::newRow("closed range") << QByteArray(R"({"k": 25})") << closed
                                  << "p.k: must be -24..24, got 25";
    QTest::newRow("bool, got a string") << QByteArray(R"({"k": "yes"})") << boolean
                                        << "p.k: expected true or false, got a string";
    QTest::newRow("array, got an object")
            << QByteArray(R"({"k": {}})") << array << "p.k: expected an array, got an object";
    QTest::newRow("object, got an array")
            << QByteArray(R"({"k": [1]})") << object << "p.k: expected an object, got an array";
    QTest::newRow("strings, element of another type")
            << QByteArray(R"({"k": ["a", "b", 3]})") << strings
            << "p.k[2]: expected a string, got a number";
    QTest::newRow("choice, did you mean")
            << QByteArray(R"({"k": "drian"})") << choice
            << R"(p.k: must be one of drain, immediate, got "drian" (did you mean "drain"?))";
    QTest::newRow("choice, nothing close") << QByteArray(R"({"k": "soon"})") << choice
                                           << R"(p.k: must be one of drain, immediate, got "soon")";
}

void tst_JsonReader::readErrors()
{
    QFETCH(QByteArray, json);
    QFETCH(Read, read);
    QFETCH(QString, error);
    JsonReader reader;
    QVERIFY(!read(reader, scope(json, QStringLiteral("p"))));
    QVERIFY(reader.failed());
    QCOMPARE(reader.error().toString(), error);
}

void tst_JsonReader::absentOptionalKeysKeepTheDefault()
{
    JsonReader reader;
    const JsonScope in = scope(R"({"other": 1})", QStringLiteral("p"));
    QString s = QStringLiteral("default");
    int n = 5;
    double d = 0.5;
    bool b = true;
    QStringList l{QStringLiteral("x")};
    JsonScope o;
    QVERIFY(reader.readString(in, "k", &s));
    QVERIFY(reader.readName(in, "k", &s));
    QVERIFY(reader.readInt(in, "k", 0, 9, &n));
    QVERIFY(reader.readNumber(in, "k", &d));
    QVERIFY(reader.readBool(in, "k", &b));
    QVERIFY(reader.readStrings(in, "k", &l));
    QVERIFY(reader.readObject(in, "k", &o));
    QVERIFY(!reader.failed());
    QCOMPARE(s, QStringLiteral("default"));
    QCOMPARE(n, 5);
    QCOMPARE(d, 0.5);
    QCOMPARE(b, true);
    QCOMPARE(l, QStringList{QStringLiteral("x")});
    QCOMPARE(o.path, QStringLiteral("p.k")); // the path of an absent object is still its own
    QVERIFY(o.object.isEmpty());
}

void tst_JsonReader::firstProblemIsKept()
{
    JsonReader reader;
    const JsonScope in = scope(R"({"a": "x", "b": "y"})");
    int n = 0;
    QVERIFY(!reader.readInt(in, "a", 0, 9, &n));
    QVERIFY(!reader.readInt(in, "b", 0, 9, &n));
    QVERIFY(!reader.fail(QStringLiteral("c"), QStringLiteral("later")));
    QCOMPARE(reader.error().path, QStringLiteral("a"));
    QCOMPARE(reader.error().message, QStringLiteral("expected an integer, got a string"));
}

QTEST_GUILESS_MAIN(tst_JsonReader)
#include "tst_jsonreader.moc"
