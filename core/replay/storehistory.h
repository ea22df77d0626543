// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/policy/policy.h"
#include "core/storage/event.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>

namespace Zhaoxi::Sim {
struct Scenario;
}
namespace Zhaoxi::Storage {
class Reader;
class Recorder;
} // namespace Zhaoxi::Storage

namespace Zhaoxi::Replay {

constexpr qint64 kQuarterHourMs = 15 * 60'000;
// A day counts when at least this share of its buckets hold samples; the empty ones in between
// are filled linearly from their neighbours.
constexpr double kMinDayCoverage = 0.9;

// Why a service's recorded past falls short of what was asked.
enum class HistoryShortfall {
    None,       // at least minDays days count
    NoSamples,  // no request-rate sample of the service in the days asked
    TooFewDays, // samples, but fewer than minDays days covered enough
    ReadFailed, // the store could not be read (StoreHistory::error)
};
const char *toString(HistoryShortfall shortfall); // "none", "no-samples", ...

struct StoreHistory
{
    // One entry per local day asked, oldest first, the last one the day before nowMs's local
    // day, each with its weekday; a day that does not count has no rates.
    QList<Policy::HistoryDay> days;
    int counted = 0; // days that count
    int partial = 0; // days with samples that fall short of kMinDayCoverage
    int minDays = 0;
    HistoryShortfall shortfall = HistoryShortfall::NoSamples;
    QString error; // the store's words, for ReadFailed
    bool enough() const { return shortfall == HistoryShortfall::None; }
    QList<int> weekdays() const; // of the days that count, oldest first
};

// The service's request rate (Storage::Metric::RequestRate, SeriesKey{RequestRate, -1, -1,
// service, -1}) on the `days` local days before the one holding `nowMs` (UTC epoch ms; local =
// UTC + utcOffsetMs): per day the mean req/s per bucket of `bucketMs` from local midnight.
// Samples are taken by their time (a minute's rate is stamped at its end). Each bucket is read
// from the tier that holds the most samples in it (raw, minutes, quarter hours: the finest that
// still covers it wins ties), so rolled-up days past the raw and minute retention still count;
// `bucketMs` is best a multiple of 15 min, so that a quarter-hour point falls in one bucket.
// Pure but for the reads; any thread that owns the reader.
StoreHistory learnHistory(Storage::Reader &reader,
                          const QString &service,
                          qint64 nowMs,
                          qint64 utcOffsetMs,
                          int days = 7,
                          qint64 bucketMs = kQuarterHourMs,
                          int minDays = 3);

struct ServiceTime
{
    double ms = 0; // the sample-weighted mean time of one request on the unit
    qint64 samples = 0;
};

// Per unit size (milli-cards): the service's measured time per request (Metric::ServiceTimeMs,
// SeriesKey{ServiceTimeMs, -1, unit milli-cards, service, -1}) over [fromMs, toMs), for the sizes
// with at least `minSamples` samples (a rolled-up point counts its samples). The tiers are read
// as learnHistory reads them, per quarter hour. Empty when none has enough, or on a read error
// (*error).
QMap<qint64, ServiceTime> learnServiceTimes(Storage::Reader &reader,
                                            const QString &service,
                                            qint64 fromMs,
                                            qint64 toMs,
                                            int minSamples,
                                            QString *error = nullptr);

// --- What a run learns at its start ----------------------------------------------------------

struct LearnOptions
{
    int days = 14;       // asked: two of each weekday, when recorded
    int minDays = 3;     // fewer: the scenario's synthetic past
    int minSamples = 30; // service-time samples on the service's own unit
};

// A policy event to record (Storage::Recorder::recordPolicy).
struct LearnEvent
{
    QByteArray code; // forecast-history-learned | forecast-history-short | service-time-learned
    Storage::Severity severity = Storage::Severity::Info;
    QJsonObject params;
};

// Learns each of the scenario's services from the store, for a run whose clock starts at
// `nowMs`: enough recorded days become Scenario::learned[service].days (the forecast's past, by
// weekday) with an event forecast-history-learned {service, days, weekdays}; too few, an event
// forecast-history-short {service, days, needed, partial, reason} (warning) and the synthetic
// past stays. A measured service time on the service's own unit (Sim::replicaUnit) over the same
// days, with minSamples, replaces ServiceDef::serviceMs (converted to reference-card ms) with an
// event service-time-learned {service, unitMilli, ms, refMs, samples}. When the store has no
// past at all (no request-rate sample of any service in the days asked, and no service time),
// nothing is learnt and no event returned: a fresh store is not a short history.
QList<LearnEvent> learnScenario(Storage::Reader &reader,
                                Sim::Scenario &scenario,
                                qint64 nowMs,
                                const LearnOptions &options = {});
void recordLearnEvents(Storage::Recorder &recorder, qint64 atMs, const QList<LearnEvent> &events);

} // namespace Zhaoxi::Replay
