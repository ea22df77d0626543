// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "event.h"

#include <QByteArray>
#include <QString>
#include <QTimeZone>

#include <functional>

class QIODevice;

namespace Zhaoxi::Storage {

class Reader;

// Words for an event. The console passes a translated one; the core's default is English.
using MessageFn = std::function<QString(const Event &)>;
// English, from the code and its params (e.g. "Job 7 placed on host 2").
QString englishMessage(const Event &event);

enum class ExportFormat { Csv, JsonLines };

struct ExportOptions
{
    ExportFormat format = ExportFormat::Csv;
    bool bom = false;                      // CSV only: a UTF-8 BOM, so Excel reads Chinese right
    QTimeZone timeZone = QTimeZone::utc(); // the offset the time column is written in
    MessageFn message;                     // empty: englishMessage
    // Applied to each row the filter selected, before it is written: false leaves the row out
    // (and out of ExportResult::rows). For what EventFilter cannot say, such as the console's
    // free-text search. Called on the reader's thread. Empty: every row is written.
    std::function<bool(const Event &)> accept;
};

struct ExportResult
{
    bool ok = false;
    qint64 rows = 0;
    QString error; // English; names the file
};

// The event export used by the console and `zhaoxictl events export`.
//
// CSV (RFC 4180): a header row, then one row per event, CRLF line ends, fields with a comma,
// quote, CR or LF quoted with quotes doubled. Columns: id, time (ISO-8601 with offset, ms),
// epoch_ms, severity, source, code (stable), card, partition, job, actor, message, params (JSON).
// A text cell that starts with = + - @, tab or CR gets a leading ' (formula injection).
// JSON Lines: UTF-8 without BOM, one object per line (LF) with the same fields; params is an
// object, absent ids are null.
//
// Rows come in time order. Call from the reader's thread.
ExportResult exportEvents(Reader &reader,
                          const EventFilter &filter,
                          const ExportOptions &options,
                          QIODevice *out);
// Writes through a temporary file in the target's directory and renames it over `path` only
// when everything was written (QSaveFile): an interrupted export leaves no half file.
ExportResult exportEventsToFile(Reader &reader,
                                const EventFilter &filter,
                                const ExportOptions &options,
                                const QString &path);

// Building blocks, exposed for tests.
namespace Csv {
// Appends one cell (UTF-8) to `line`, guarded and quoted as above.
void appendCell(QByteArray &line, const char *utf8, qsizetype size, bool guard = true);
} // namespace Csv
// "2024-05-01T09:12:03.123+08:00"
QByteArray isoTime(qint64 epochMs, int offsetSeconds);
// The value of `key` in a flat JSON object as text (strings unescaped); empty when absent.
QString jsonParam(const QByteArray &params, QLatin1StringView key);
// The value of the named param `key` of a stored event (jsonParam of its params). Stores written
// before the params were named kept them as "a", "b", "c" and "value" (and job-priority-changed's
// previous priority as "was"), each code in its own way: when `key` is absent, the legacy key
// that held it for the event's code is read instead. The one place that knows the old names;
// every reader of scheduler, policy and device params goes through it.
QString eventParam(const Event &event, QLatin1StringView key);
// The key that held the named param `key` of events of `code` before the params were named, or ""
// when the code never had one for it (eventparams.cpp holds the table).
const char *legacyParamKey(QByteArrayView code, QByteArrayView key);

} // namespace Zhaoxi::Storage
