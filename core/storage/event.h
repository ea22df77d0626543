// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include <cstdint>
#include <optional>

namespace Zhaoxi::Storage {

// Stored as small integers: append only, never renumber.
enum class Severity : std::uint8_t { Info = 0, Warning = 1, Error = 2, Critical = 3 };
enum class Source : std::uint8_t {
    Scheduler = 0,
    Policy = 1,
    Device = 2,
    Operator = 3, // an operator's action: the audit trail (durable on commit, actor set)
    System = 4,   // the store itself (e.g. a corrupt file moved aside)
};

// Stable English spellings, used in exports and on the command line.
const char *toString(Severity severity);
const char *toString(Source source);
std::optional<Severity> severityFromString(QStringView text);
std::optional<Source> sourceFromString(QStringView text);

// One event as stored. Codes are stable identifiers ("job-placed", "operator-login"); the words
// belong to whoever shows them (HOUSE_STYLE 4).
struct Event
{
    qint64 id = 0;   // assigned by Store::append; increasing in append order
    qint64 atMs = 0; // UTC epoch ms
    Severity severity = Severity::Info;
    Source source = Source::Scheduler;
    QByteArray code;    // ASCII identifier
    int card = -1;      // -1: none
    int partition = -1; // the unit's uid on the card; -1: none
    int job = -1;       // -1: none
    QString actor;      // the operator's login for Source::Operator; empty otherwise
    QByteArray params;  // a JSON object in UTF-8; empty means {}
    friend bool operator==(const Event &, const Event &) = default;
};

// What an export or a query selects. Empty lists select everything; from is inclusive, to
// exclusive. Lists are ORed within, filters ANDed across.
struct EventFilter
{
    std::optional<qint64> fromMs;
    std::optional<qint64> toMs;
    QList<Severity> severities;
    QList<Source> sources;
    QList<int> cards;
    QList<int> jobs;
    QList<QByteArray> codes;
    // Only events appended after this id; rows then come in id (append) order, so a client can
    // page through what is new since it last read.
    std::optional<qint64> afterId;
    // The newest first (by id): with `limit`, the tail of the log.
    bool newestFirst = false;
    qint64 limit = -1; // -1: no limit; rows come in (at_ms, id) order unless said otherwise above
};

} // namespace Zhaoxi::Storage
