// SPDX-License-Identifier: GPL-3.0-or-later
// Exports read back: CSV by a strict RFC 4180 parser written here, JSON Lines by Qt's parser.
#include "core/storage/exporter.h"
#include "core/storage/store.h"
#include "tests/data/fixtures.h"

#include <QBuffer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace Zhaoxi::Storage;

namespace {

constexpr qint64 kT0 = Q_INT64_C(1714521600000); // 2024-05-01T00:00:00Z

// RFC 4180, strictly: records end in CRLF (the last one too, as we write it), a field is either
// plain (no quote, comma, CR or LF) or quoted with inner quotes doubled, and a closing quote is
// followed by a comma or the record's end. Anything else is an error.
struct CsvParse
{
    QList<QStringList> rows;
    QString error;
};

CsvParse parseCsv(const QByteArray &data)
{
    CsvParse r;
    QStringList row;
    QByteArray field;
    qsizetype i = 0;
    const qsizetype n = data.size();
    auto fail = [&](const QString &why) {
        r.error = QStringLiteral("byte %1: %2").arg(i).arg(why);
        return r;
    };
    while (i < n) {
        field.clear();
        if (data[i] == '"') {
            ++i;
            for (;;) {
                if (i >= n)
                    return fail(QStringLiteral("unterminated quoted field"));
                if (data[i] == '"') {
                    if (i + 1 < n && data[i + 1] == '"') {
                        field += '"';
                        i += 2;
                        continue;
                    }
                    ++i;
                    break;
                }
                field += data[i++];
            }
        } else {
            while (i < n && data[i] != ',' && data[i] != '\r') {
                if (data[i] == '"' || data[i] == '\n')
                    return fail(QStringLiteral("quote or bare LF in an unquoted field"));
                field += data[i++];
            }
        }
        row << QString::fromUtf8(field);
        if (i < n && data[i] == ',') {
            ++i;
            if (i == n)
                return fail(QStringLiteral("comma at the end of the data"));
            continue;
        }
        if (i + 1 < n && data[i] == '\r' && data[i + 1] == '\n') {
            i += 2;
            r.rows << row;
            row.clear();
            continue;
        }
        return fail(QStringLiteral("a field must end in a comma or CRLF"));
    }
    if (!row.isEmpty())
        return fail(QStringLiteral("the last record does not end in CRLF"));
    return r;
}

QByteArray exportAll(Reader &reader, const ExportOptions &options, const EventFilter &filter = {})
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    const ExportResult r = exportEvents(reader, filter, options, &buffer);
    if (!r.ok)
        qWarning("%s", qPrintable(r.error));
    return buffer.data();
}

const QStringList kHeader = {QStringLiteral("id"),
                             QStringLiteral("time"),
                             QStringLiteral("epoch_ms"),
                             QStringLiteral("severity"),
                             QStringLiteral("source"),
                             QStringLiteral("code"),
                             QStringLiteral("card"),
                             QStringLiteral("partition"),
                             QStringLiteral("job"),
                             QStringLiteral("actor"),
                             QStringLiteral("message"),
                             QStringLiteral("params")};

// The tricky text an event of the fixture carries.
QString text(const Event &e)
{
    return QJsonDocument::fromJson(e.params).object().value(QStringLiteral("text")).toString();
}

QString guarded(const QString &s)
{
    static const QString starters = QStringLiteral("=+-@\t\r");
    return !s.isEmpty() && starters.contains(s.front()) ? QLatin1Char('\'') + s : s;
}

} // namespace

class TestExport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void csvRoundTripsThroughAStrictParser();
    void injectionGuard_data();
    void injectionGuard();
    void bomOnlyWhenAsked();
    void jsonLinesParseAndCarryTheSameFields();
    void timesCarryTheZoneOffset_data();
    void timesCarryTheZoneOffset();
    void filtersApplyToExports();
    void acceptHookLeavesRowsOut();
    void englishMessagesFromCodes();
    void eventParamsReadOldStores_data();
    void eventParamsReadOldStores();
    void defaultMessagesAreEnglishMessage_data();
    void defaultMessagesAreEnglishMessage();
    void fileExportReplacesAtomically();

private:
    QTemporaryDir m_dir;
    std::unique_ptr<Store> m_store;
    QList<Event> m_events;
};

void TestExport::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QString err;
    m_store = Store::open(m_dir.filePath(QStringLiteral("x.sqlite")), &err);
    QVERIFY2(m_store, qPrintable(err));
    // Texts that break naive writers (separators, quotes, line ends, Chinese, formula starters),
    // each an event's actor and its params' "text".
    for (Event e : Zhaoxi::TestData::events(QStringLiteral("events/export-texts.jsonl"))) {
        e.id = m_store->append(e);
        m_events << e;
    }
    // Every kind of text the writers must survive is still in the fixture.
    for (const char *kind : {",", "\"", "\r\n", "\n", "\t", "\r", "=", "+", "-", "@", "卡"}) {
        QVERIFY2(std::any_of(
                         m_events.cbegin(),
                         m_events.cend(),
                         [&](const Event &e) { return e.actor.contains(QString::fromUtf8(kind)); }),
                 kind);
    }
    QVERIFY(m_store->flush());
}

void TestExport::csvRoundTripsThroughAStrictParser()
{
    auto reader = m_store->reader();
    ExportOptions options;
    // The console passes its translated words; the text comes back cell for cell.
    options.message = [](const Event &e) -> QString {
        return QStringLiteral("消息: ")
               + QJsonDocument::fromJson(e.params)
                         .object()
                         .value(QStringLiteral("text"))
                         .toString();
    };
    const QByteArray csv = exportAll(*reader, options);
    const CsvParse parsed = parseCsv(csv);
    QVERIFY2(parsed.error.isEmpty(), qPrintable(parsed.error));
    QCOMPARE(parsed.rows.size(), m_events.size() + 1);
    QCOMPARE(parsed.rows[0], kHeader);
    for (int i = 0; i < m_events.size(); ++i) {
        const Event &e = m_events[i];
        const QStringList &row = parsed.rows[i + 1];
        QCOMPARE(row.size(), kHeader.size());
        QCOMPARE(row[0], QString::number(e.id));
        QCOMPARE(row[1], QString::fromLatin1(isoTime(e.atMs, 0)));
        QCOMPARE(row[2], QString::number(e.atMs));
        QCOMPARE(row[3], QLatin1String(toString(e.severity)));
        QCOMPARE(row[4], QLatin1String(toString(e.source)));
        QCOMPARE(row[5], QString::fromLatin1(e.code));
        QCOMPARE(row[6], e.card < 0 ? QString() : QString::number(e.card));
        QCOMPARE(row[7], e.partition < 0 ? QString() : QString::number(e.partition));
        QCOMPARE(row[8], e.job < 0 ? QString() : QString::number(e.job));
        QCOMPARE(row[9], guarded(e.actor));
        QCOMPARE(row[10], QStringLiteral("消息: ") + text(e));
        QCOMPARE(QJsonDocument::fromJson(row[11].toUtf8())
                         .object()
                         .value(QStringLiteral("text"))
                         .toString(),
                 text(e));
    }
}

void TestExport::injectionGuard_data()
{
    QTest::addColumn<QString>("cell");
    QTest::addColumn<QByteArray>("written");
    QTest::newRow("equals") << QStringLiteral("=1+2") << QByteArray("'=1+2");
    QTest::newRow("plus") << QStringLiteral("+1") << QByteArray("'+1");
    QTest::newRow("minus") << QStringLiteral("-1") << QByteArray("'-1");
    QTest::newRow("at") << QStringLiteral("@cmd") << QByteArray("'@cmd");
    QTest::newRow("tab") << QStringLiteral("\tx") << QByteArray("'\tx");
    QTest::newRow("carriage return, quoted") << QStringLiteral("\rx") << QByteArray("\"'\rx\"");
    QTest::newRow("formula with a comma, quoted")
            << QStringLiteral("=A1,B1") << QByteArray("\"'=A1,B1\"");
    QTest::newRow("quote first: not a formula")
            << QStringLiteral("\"=x\"") << QByteArray("\"\"\"=x\"\"\"");
    QTest::newRow("inner equals") << QStringLiteral("a=b") << QByteArray("a=b");
    QTest::newRow("chinese") << QStringLiteral("作业-7") << QByteArray("作业-7");
    QTest::newRow("empty") << QString() << QByteArray();
}

void TestExport::injectionGuard()
{
    QFETCH(QString, cell);
    QFETCH(QByteArray, written);
    QByteArray line;
    const QByteArray utf8 = cell.toUtf8();
    Csv::appendCell(line, utf8.constData(), utf8.size());
    QCOMPARE(line, written);
}

void TestExport::bomOnlyWhenAsked()
{
    auto reader = m_store->reader();
    ExportOptions options;
    QVERIFY(exportAll(*reader, options).startsWith("id,time,"));
    options.bom = true;
    const QByteArray withBom = exportAll(*reader, options);
    QVERIFY(withBom.startsWith("\xEF\xBB\xBFid,time,"));
    QVERIFY(parseCsv(withBom.mid(3)).error.isEmpty());
    options.format = ExportFormat::JsonLines; // never a BOM in JSON Lines
    QVERIFY(exportAll(*reader, options).startsWith("{\"id\":"));
}

void TestExport::jsonLinesParseAndCarryTheSameFields()
{
    auto reader = m_store->reader();
    ExportOptions options;
    options.format = ExportFormat::JsonLines;
    const QByteArray data = exportAll(*reader, options);
    QVERIFY(data.endsWith('\n'));
    QVERIFY(!data.contains('\r') || data.contains("\\r")); // CRs only inside escaped strings
    const QList<QByteArray> lines = data.chopped(1).split('\n');
    QCOMPARE(lines.size(), m_events.size());
    for (int i = 0; i < lines.size(); ++i) {
        QJsonParseError pe;
        const QJsonDocument doc = QJsonDocument::fromJson(lines[i], &pe);
        QVERIFY2(doc.isObject(),
                 qPrintable(pe.errorString() + QStringLiteral(": ") + QString::fromUtf8(lines[i])));
        const QJsonObject o = doc.object();
        const Event &e = m_events[i];
        QCOMPARE(o.value(QStringLiteral("id")).toInteger(), e.id);
        QCOMPARE(o.value(QStringLiteral("epoch_ms")).toInteger(), e.atMs);
        QCOMPARE(o.value(QStringLiteral("time")).toString(),
                 QString::fromLatin1(isoTime(e.atMs, 0)));
        QCOMPARE(o.value(QStringLiteral("code")).toString(), QString::fromLatin1(e.code));
        QCOMPARE(o.value(QStringLiteral("severity")).toString(),
                 QLatin1String(toString(e.severity)));
        QCOMPARE(o.value(QStringLiteral("card")).isNull(), e.card < 0);
        QCOMPARE(o.value(QStringLiteral("job")).isNull(), e.job < 0);
        // No formula guard in JSON: the text is the text.
        QCOMPARE(o.value(QStringLiteral("actor")).toString(), e.actor);
        QCOMPARE(o.value(QStringLiteral("params"))
                         .toObject()
                         .value(QStringLiteral("text"))
                         .toString(),
                 text(e));
    }
}

void TestExport::timesCarryTheZoneOffset_data()
{
    QTest::addColumn<qint64>("ms");
    QTest::addColumn<QByteArray>("zone");
    QTest::addColumn<QByteArray>("iso");
    QTest::newRow("utc") << kT0 + 33123 << QByteArray("UTC")
                         << QByteArray("2024-05-01T00:00:33.123+00:00");
    QTest::newRow("shanghai") << kT0 << QByteArray("Asia/Shanghai")
                              << QByteArray("2024-05-01T08:00:00.000+08:00");
    QTest::newRow("leap day") << Q_INT64_C(1709164800000) << QByteArray("UTC")
                              << QByteArray("2024-02-29T00:00:00.000+00:00");
    QTest::newRow("before 1970") << Q_INT64_C(-1) << QByteArray("UTC")
                                 << QByteArray("1969-12-31T23:59:59.999+00:00");
    QTest::newRow("new york, summer")
            << kT0 << QByteArray("America/New_York") << QByteArray("2024-04-30T20:00:00.000-04:00");
    QTest::newRow("new york, winter") << Q_INT64_C(1704067200000) << QByteArray("America/New_York")
                                      << QByteArray("2023-12-31T19:00:00.000-05:00");
    QTest::newRow("kathmandu") << kT0 << QByteArray("Asia/Kathmandu")
                               << QByteArray("2024-05-01T05:45:00.000+05:45");
}

void TestExport::timesCarryTheZoneOffset()
{
    QFETCH(qint64, ms);
    QFETCH(QByteArray, zone);
    QFETCH(QByteArray, iso);
    const QTimeZone tz(zone);
    if (!tz.isValid())
        QSKIP("time zone database lacks this zone");
    QCOMPARE(isoTime(ms, tz.offsetFromUtc(QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC))), iso);
    // And the same through an export.
    QString err;
    auto store = Store::open(m_dir.filePath(QStringLiteral("tz-")
                                            + QString::fromLatin1(QTest::currentDataTag())
                                                      .replace(QLatin1Char(' '), QLatin1Char('_'))
                                            + QStringLiteral(".sqlite")),
                             &err);
    Event e;
    e.atMs = ms;
    e.code = "x";
    store->append(e);
    QVERIFY(store->flush());
    ExportOptions options;
    options.timeZone = tz;
    const CsvParse parsed = parseCsv(exportAll(*store->reader(), options));
    QCOMPARE(parsed.rows.value(1).value(1), QString::fromLatin1(iso));
}

void TestExport::filtersApplyToExports()
{
    auto reader = m_store->reader();
    EventFilter filter;
    filter.sources = {Source::Operator};
    filter.codes = {"operator-note"};
    filter.fromMs = kT0 + 2000;
    const CsvParse parsed = parseCsv(exportAll(*reader, {}, filter));
    QVERIFY(parsed.error.isEmpty());
    int expected = 0;
    for (const Event &e : std::as_const(m_events))
        expected += e.source == Source::Operator && e.code == "operator-note"
                    && e.atMs >= kT0 + 2000;
    QVERIFY(expected > 0);
    QCOMPARE(parsed.rows.size() - 1, expected);
    for (int i = 1; i < parsed.rows.size(); ++i)
        QCOMPARE(parsed.rows[i][4], QStringLiteral("operator"));
}

// The console's free text is no EventFilter field: the accept hook drops rows after the SQL
// filter, in both formats, and the row count counts only what was written.
void TestExport::acceptHookLeavesRowsOut()
{
    auto reader = m_store->reader();
    EventFilter filter;
    filter.sources = {Source::Operator};
    ExportOptions options;
    const auto wanted = [](const Event &e) {
        return e.actor.contains(QLatin1Char(',')) || e.actor.contains(QStringLiteral("卡"))
               || e.actor.contains(QLatin1Char('C'));
    };
    QList<qint64> offered;
    options.accept = [&offered, &wanted](const Event &e) {
        offered << e.id;
        return wanted(e);
    };
    QList<qint64> expected;
    int operatorRows = 0;
    for (const Event &e : std::as_const(m_events)) {
        if (e.source != Source::Operator)
            continue;
        ++operatorRows;
        if (wanted(e))
            expected << e.id;
    }
    QVERIFY(!expected.isEmpty());
    QVERIFY(expected.size() < operatorRows);

    QBuffer csvOut;
    csvOut.open(QIODevice::WriteOnly);
    const ExportResult r = exportEvents(*reader, filter, options, &csvOut);
    QVERIFY2(r.ok, qPrintable(r.error));
    QCOMPARE(r.rows, expected.size());
    QCOMPARE(offered.size(), operatorRows); // asked only about the rows the filter selected
    const CsvParse parsed = parseCsv(csvOut.data());
    QVERIFY2(parsed.error.isEmpty(), qPrintable(parsed.error));
    QList<qint64> written;
    for (int i = 1; i < parsed.rows.size(); ++i)
        written << parsed.rows[i][0].toLongLong();
    QCOMPARE(written, expected);

    options.format = ExportFormat::JsonLines;
    offered.clear();
    QBuffer jsonOut;
    jsonOut.open(QIODevice::WriteOnly);
    const ExportResult j = exportEvents(*reader, filter, options, &jsonOut);
    QVERIFY2(j.ok, qPrintable(j.error));
    QCOMPARE(j.rows, expected.size());
    written.clear();
    for (const QByteArray &line : jsonOut.data().chopped(1).split('\n'))
        written << QJsonDocument::fromJson(line).object().value(QStringLiteral("id")).toInteger();
    QCOMPARE(written, expected);

    // Refusing everything writes the header alone.
    options.format = ExportFormat::Csv;
    options.accept = [](const Event &) { return false; };
    QBuffer none;
    none.open(QIODevice::WriteOnly);
    const ExportResult n = exportEvents(*reader, filter, options, &none);
    QVERIFY(n.ok);
    QCOMPARE(n.rows, 0);
    QCOMPARE(parseCsv(none.data()).rows.size(), 1);
}

void TestExport::englishMessagesFromCodes()
{
    Event e;
    e.code = "job-placed";
    e.job = 7;
    e.params = R"({"host":2,"profile":"3g.40gb"})";
    QCOMPARE(englishMessage(e), QStringLiteral("Job 7 placed on host 2"));
    e.code = "partition-created";
    e.card = 1;
    e.partition = 4;
    QCOMPARE(englishMessage(e), QStringLiteral("Partition 4 (3g.40gb) created on card 1"));
    e.code = "store-moved-aside";
    e.params = R"({"movedTo":"/d/\"x\".corrupt","problem":"file is not a database"})";
    QCOMPARE(englishMessage(e),
             QStringLiteral("The store file was unreadable (file is not a database); it was moved "
                            "to /d/\"x\".corrupt"));
    e.code = "something-new";
    e.actor = QStringLiteral("ops");
    QCOMPARE(englishMessage(e), QStringLiteral("ops: something-new"));
    e.actor.clear();
    e.code = "job-evicted";
    e.job = 3;
    e.params = R"({"workLostMs":450000})";
    QCOMPARE(englishMessage(e), QStringLiteral("Job 3 evicted; 450000 ms of work lost"));
    e.params = R"({"value":450000})"; // an old store's row
    QCOMPARE(englishMessage(e), QStringLiteral("Job 3 evicted; 450000 ms of work lost"));
    QCOMPARE(jsonParam(R"({"a":{"b":1},"b":"two"})", QLatin1StringView("b")),
             QStringLiteral("two"));
}

void TestExport::eventParamsReadOldStores_data()
{
    QTest::addColumn<QByteArray>("code");
    QTest::addColumn<QByteArray>("params");
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("value");

    const QByteArray old = R"({"a":2,"b":14,"c":6,"reason":"window","value":3000})";
    QTest::newRow("a named row") << QByteArray("guard-pressure")
                                 << QByteArray(R"({"service":1,"p99Us":900})")
                                 << QStringLiteral("p99Us") << QStringLiteral("900");
    QTest::newRow("named wins over old")
            << QByteArray("guard-pressure") << QByteArray(R"({"service":1,"value":5})")
            << QStringLiteral("service") << QStringLiteral("1");
    QTest::newRow("old guard service") << QByteArray("guard-pressure") << old
                                       << QStringLiteral("service") << QStringLiteral("2");
    QTest::newRow("old guard depth") << QByteArray("guard-pressure") << old
                                     << QStringLiteral("queueDepth") << QStringLiteral("14");
    QTest::newRow("old guard p99") << QByteArray("guard-pressure") << old << QStringLiteral("p99Us")
                                   << QStringLiteral("3000");
    QTest::newRow("old step kind")
            << QByteArray("step-done") << old << QStringLiteral("stepKind") << QStringLiteral("2");
    QTest::newRow("old step profile") << QByteArray("step-done") << old
                                      << QStringLiteral("profileIndex") << QStringLiteral("14");
    QTest::newRow("old step start")
            << QByteArray("step-done") << old << QStringLiteral("start") << QStringLiteral("6");
    QTest::newRow("old step duration") << QByteArray("step-done") << old
                                       << QStringLiteral("durationMs") << QStringLiteral("3000");
    QTest::newRow("old budget inference")
            << QByteArray("budget-set") << old << QStringLiteral("inferenceMilli")
            << QStringLiteral("2");
    QTest::newRow("old budget training")
            << QByteArray("budget-set") << old << QStringLiteral("trainingMilli")
            << QStringLiteral("3000");
    QTest::newRow("old window") << QByteArray("window-switch") << old
                                << QStringLiteral("windowIndex") << QStringLiteral("2");
    QTest::newRow("old window edge") << QByteArray("window-switch") << old
                                     << QStringLiteral("opensAtMs") << QStringLiteral("3000");
    // The old training-resumed row held the work kept, never the work lost.
    QTest::newRow("old resume kept") << QByteArray("training-resumed") << old
                                     << QStringLiteral("workSavedMs") << QStringLiteral("3000");
    QTest::newRow("old resume lost")
            << QByteArray("training-resumed") << old << QStringLiteral("workLostMs") << QString();
    QTest::newRow("old eviction") << QByteArray("job-evicted") << QByteArray(R"({"value":450000})")
                                  << QStringLiteral("workLostMs") << QStringLiteral("450000");
    QTest::newRow("old preemption")
            << QByteArray("job-preempting") << QByteArray(R"({"other":3,"value":1767594000000})")
            << QStringLiteral("evictionAtMs") << QStringLiteral("1767594000000");
    QTest::newRow("old priority") << QByteArray("job-priority-changed")
                                  << QByteArray(R"({"priority":5,"was":1})")
                                  << QStringLiteral("previousPriority") << QStringLiteral("1");
    QTest::newRow("another code's old key")
            << QByteArray("replica-added") << old << QStringLiteral("p99Us") << QString();
    // A process event's own "value" is no appliance parameter.
    QTest::newRow("a process event")
            << QByteArray("launched") << QByteArray(R"({"job":"a","value":4242})")
            << QStringLiteral("durationMs") << QString();
    // Process events named their one "value" per code.
    QTest::newRow("old process pid")
            << QByteArray("process-started") << QByteArray(R"({"job":"a","value":4242})")
            << QStringLiteral("pid") << QStringLiteral("4242");
    QTest::newRow("old checkpoint deadline")
            << QByteArray("checkpoint-requested") << QByteArray(R"({"value":1767594000000})")
            << QStringLiteral("deadlineMs") << QStringLiteral("1767594000000");
    QTest::newRow("old restart back-off")
            << QByteArray("replica-restarting") << QByteArray(R"({"value":2000})")
            << QStringLiteral("backoffMs") << QStringLiteral("2000");
    QTest::newRow("a named process port")
            << QByteArray("replica-ready") << QByteArray(R"({"port":40123})")
            << QStringLiteral("port") << QStringLiteral("40123");
    QTest::newRow("a process code's other key")
            << QByteArray("replica-ready") << QByteArray(R"({"value":40123})")
            << QStringLiteral("pid") << QString();
}

// Stores written before the params were named still answer by name, code by code.
void TestExport::eventParamsReadOldStores()
{
    QFETCH(QByteArray, code);
    QFETCH(QByteArray, params);
    QFETCH(QString, key);
    QFETCH(QString, value);
    Event e;
    e.code = code;
    e.params = params;
    const QByteArray k = key.toLatin1();
    QCOMPARE(eventParam(e, QLatin1StringView(k)), value);
}

void TestExport::defaultMessagesAreEnglishMessage_data()
{
    QTest::addColumn<int>("format");
    QTest::newRow("csv") << int(ExportFormat::Csv);
    QTest::newRow("jsonl") << int(ExportFormat::JsonLines);
}

// Without a message function the exporter writes englishMessage()'s words without building them
// as a QString per row: byte for byte what englishMessage() says, for every template, for params
// it copies as they stand and for those it must unescape, trim or convert.
void TestExport::defaultMessagesAreEnglishMessage()
{
    QFETCH(int, format);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString err;
    auto store = Store::open(dir.filePath(QStringLiteral("m.sqlite")), &err);
    QVERIFY2(store, qPrintable(err));
    const QList<QByteArray> codes = {"job-submitted",
                                     "job-placed",
                                     "job-waiting",
                                     "job-preempting",
                                     "job-evicted",
                                     "partition-created",
                                     "card-mode-changed",
                                     "store-moved-aside",
                                     "something-new",
                                     "caf\xE9"};
    const QList<QByteArray> params = {
            {},
            "{}",
            R"({"host":2,"reason":"no room","other":9})",
            R"({"host":" 3 ","reason":"","profile":"3g.71gb","mode":"mig"})",
            R"({"reason":"quote \" and \\ and \n","host":"\u4e3b"})",
            R"({"reason":"机房 A","host":"x\u0001"})",
            R"( {"host" : 4 , "reason" : "spaced" , "mode":true} )",
            R"({"nested":{"host":1},"host":[1,2],"reason":{"x":1}})",
            R"({"movedTo":"/d/\"x\".corrupt","problem":"file is not a database"})",
            R"(["not","an","object"])",
            "not json",
            R"({"reason":"unterminated)",
            R"({"value":450000})", // job-evicted's work lost, as old stores kept it
            R"({"workLostMs":"","value":"\u0037"})", // an empty named key reads the old one
    };
    const QStringList actors
            = {QString(), QStringLiteral("ops"), QStringLiteral("张伟, \"admin\"")};
    int n = 0;
    for (const QByteArray &code : codes) {
        for (const QByteArray &p : params) {
            Event e;
            e.atMs = kT0 + n;
            e.code = code;
            e.card = n % 3 ? n % 8 : -1;
            e.partition = n % 4 ? n % 7 : -1;
            e.job = n % 5 ? n : -1;
            e.actor = actors[n % actors.size()];
            e.params = p;
            store->append(e);
            ++n;
        }
    }
    QVERIFY(store->flush());
    auto reader = store->reader();
    ExportOptions options;
    options.format = ExportFormat(format);
    const QByteArray direct = exportAll(*reader, options);
    options.message = englishMessage;
    const QByteArray viaQString = exportAll(*reader, options);
    QVERIFY(direct.contains("Job 16 placed on host 2"));
    QVERIFY(direct.contains("Job 68 evicted; 450000 ms of work lost"));
    QVERIFY(direct.contains("Job 69 evicted; 7 ms of work lost"));
    QCOMPARE(direct, viaQString);
}

void TestExport::fileExportReplacesAtomically()
{
    auto reader = m_store->reader();
    const QString target = m_dir.filePath(QStringLiteral("out.csv"));
    {
        QFile old(target);
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write("old contents");
    }
    const ExportResult r = exportEventsToFile(*reader, {}, {}, target);
    QVERIFY2(r.ok, qPrintable(r.error));
    QCOMPARE(r.rows, m_events.size());
    QFile f(target);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(parseCsv(f.readAll()).error.isEmpty());
    // An export that cannot be written names the file and leaves nothing behind.
    const QString bad = m_dir.filePath(QStringLiteral("missing-dir/out.csv"));
    const ExportResult failed = exportEventsToFile(*reader, {}, {}, bad);
    QVERIFY(!failed.ok);
    QVERIFY2(failed.error.contains(bad), qPrintable(failed.error));
    QVERIFY(!QFile::exists(bad));
    QCOMPARE(QDir(m_dir.path()).entryList({QStringLiteral("out.csv*")}),
             QStringList{QStringLiteral("out.csv")});
}

QTEST_GUILESS_MAIN(TestExport)
#include "tst_export.moc"
