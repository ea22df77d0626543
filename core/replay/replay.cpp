// SPDX-License-Identifier: GPL-3.0-or-later
#include "replay.h"
#include "storehistory.h"

#include "core/catalogue/catalogue.h"
#include "core/domain/cardmodel.h"
#include "core/domain/workloadspec.h"
#include "core/policy/policy.h"
#include "core/sim/engine.h"
#include "core/storage/store.h"

#include <QDateTime>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <map>

namespace Zhaoxi::Replay {

namespace {

using Storage::Event;
using Storage::EventFilter;
using Storage::Metric;
using Storage::MetricPoint;
using Storage::SeriesKey;
using Storage::Tier;

constexpr qint64 kMinuteMs = 60'000;
constexpr double kHourMs = 3600'000.0;
constexpr qint64 kDayMs = 24 * 3600'000LL;

QString isoUtc(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODate);
}

// The series of a metric the store holds for one service (any unit size), from its newest points.
QList<SeriesKey> seriesOf(const QList<Storage::LatestMetric> &latest, Metric m, const QString &name)
{
    QList<SeriesKey> out;
    for (const Storage::LatestMetric &l : latest) {
        if (l.key.metric == m && l.key.service == name)
            out.append(l.key);
    }
    return out;
}

// The value at each minute's middle of [fromMs, toMs): linear between the recorded points (each
// stands for the minute before it was taken), 0 where none lies within two minutes. Returns the
// share of minutes with a point near.
double minuteGrid(const QList<MetricPoint> &points,
                  qint64 fromMs,
                  qint64 toMs,
                  qint64 spanBeforeMs,
                  QList<double> *grid)
{
    grid->clear();
    const int n = int((toMs - fromMs + kMinuteMs - 1) / kMinuteMs);
    std::vector<std::pair<double, double>> at; // (the middle of what the point covers, value)
    for (const MetricPoint &p : points)
        at.emplace_back(double(p.atMs) - double(spanBeforeMs) / 2, p.value);
    std::sort(at.begin(), at.end());
    int covered = 0;
    std::size_t j = 0;
    for (int k = 0; k < n; ++k) {
        const double mid = double(fromMs) + (k + 0.5) * kMinuteMs;
        while (j + 1 < at.size() && at[j + 1].first <= mid)
            ++j;
        double v = 0;
        bool near = false;
        if (!at.empty()) {
            const auto &a = at[j];
            if (a.first <= mid && j + 1 < at.size()) {
                const auto &b = at[j + 1];
                if (b.first - a.first <= 3 * kMinuteMs) {
                    const double f = (mid - a.first) / std::max(1.0, b.first - a.first);
                    v = a.second + (b.second - a.second) * f;
                    near = true;
                }
            }
            if (!near) {
                // the nearest point, if it is close enough
                double best = 1e300;
                for (std::size_t c = j; c < std::min(at.size(), j + 2); ++c) {
                    const double d = std::abs(at[c].first - mid);
                    if (d < best) {
                        best = d;
                        v = at[c].second;
                    }
                }
                near = best <= 2 * kMinuteMs;
                if (!near)
                    v = 0;
            }
        }
        covered += near;
        grid->append(v);
    }
    return n > 0 ? double(covered) / n : 0;
}

// The newest value of a series at or before `atMs` (-1: none).
double valueAt(Storage::Reader &reader, const SeriesKey &key, qint64 sinceMs, qint64 atMs)
{
    QString err;
    const QList<MetricPoint> p = recordedPoints(reader, key, sinceMs, atMs, &err);
    return p.isEmpty() ? -1 : p.last().value;
}

std::optional<Device::FaultKind> faultOf(const QByteArray &code)
{
    if (code == "fault-card-lost")
        return Device::FaultKind::CardLost;
    if (code == "fault-memory-error")
        return Device::FaultKind::MemoryError;
    if (code == "fault-thermal-throttle")
        return Device::FaultKind::ThermalThrottle;
    return std::nullopt;
}

struct Builder
{
    Storage::Reader &reader;
    RecordedPeriod &out;
    QString *error;
    Sim::Scenario basis;                    // the run's scenario as it was read
    QList<Storage::LatestMetric> latest;    // every series the store holds
    QHash<int, Domain::WorkloadSpec> specs; // the resubmitted jobs' specs, by recorded id

    bool fail(const QString &why)
    {
        if (error)
            *error = why;
        return false;
    }
    QString store() const { return reader.path(); }

    bool readBasis(const Catalogue::Catalogue &catalogue);
    bool layouts();
    bool services();
    bool training();
    bool faults();
    bool actual();
};

bool Builder::readBasis(const Catalogue::Catalogue &catalogue)
{
    QString err;
    EventFilter f;
    f.codes = {QByteArrayLiteral("run-basis")};
    f.toMs = out.fromMs + 1;
    f.newestFirst = true;
    f.limit = 1;
    QList<Event> found = reader.events(f, &err);
    if (!err.isEmpty())
        return fail(QStringLiteral("cannot read %1: %2").arg(store(), err));
    if (found.isEmpty()) {
        EventFilter later;
        later.codes = f.codes;
        later.fromMs = out.fromMs;
        later.toMs = out.toMs;
        later.limit = 1;
        found = reader.events(later, &err);
        if (found.isEmpty())
            return fail(QStringLiteral("%1 holds no recorded run that started before %2 (a replay "
                                       "starts from the \"run-basis\" event a recording writes: "
                                       "zhaoxictl simulate --db, the console's store, zhaoxid "
                                       "--scenario)")
                                .arg(store(), isoUtc(out.toMs)));
        out.notes.append(QStringLiteral("the period starts at %1, when the recording started")
                                 .arg(isoUtc(found.first().atMs)));
        out.fromMs = found.first().atMs;
    }
    const Event &b = found.first();
    const QJsonObject p = eventParams(b);
    out.basisAtMs = b.atMs;
    out.basisPolicy = p.value(QStringLiteral("policy")).toString();
    out.seed = p.value(QStringLiteral("seed")).toString().toULongLong();
    QJsonObject scenarioJson = p.value(QStringLiteral("scenario")).toObject();
    const QString file = p.value(QStringLiteral("file")).toString();
    if (scenarioJson.isEmpty())
        return fail(QStringLiteral("%1: the run-basis event %2 (%3) has no scenario")
                            .arg(store())
                            .arg(b.id)
                            .arg(isoUtc(b.atMs)));
    const QString where = QStringLiteral("%1 (run-basis event %2)").arg(store()).arg(b.id);
    Sim::ScenarioError se;
    std::optional<Sim::Scenario> sc
            = Sim::readScenario(QJsonDocument(scenarioJson).toJson(QJsonDocument::Compact),
                                where,
                                file.isEmpty() ? QString() : QFileInfo(file).absolutePath(),
                                catalogue,
                                &se);
    if (!sc) {
        // The rate curves' files may be gone; the recorded rates replace them anyway.
        QJsonArray services = scenarioJson.value(QStringLiteral("services")).toArray();
        for (qsizetype i = 0; i < services.size(); ++i) {
            QJsonObject s = services[i].toObject();
            s.insert(QStringLiteral("rate"), QJsonObject{{QStringLiteral("constant"), 0}});
            services[i] = s;
        }
        scenarioJson.insert(QStringLiteral("services"), services);
        Sim::ScenarioError second;
        sc = Sim::readScenario(QJsonDocument(scenarioJson).toJson(QJsonDocument::Compact),
                               where,
                               QString(),
                               catalogue,
                               &second);
        if (!sc)
            return fail(QStringLiteral("the recorded scenario cannot be read: %1")
                                .arg(second.toString()));
        out.notes.append(QStringLiteral("the scenario's rate curves are not readable any more "
                                        "(%1): the forecast's past is flat")
                                 .arg(se.toString()));
    }
    basis = *sc;
    out.scenario = *sc;
    out.scenario.startMs = out.fromMs;
    out.scenario.durationMs = out.toMs - out.fromMs;
    out.scenario.training.clear();
    out.scenario.faults.clear();
    out.scenario.name = QStringLiteral("%1, recorded %2 - %3")
                                .arg(basis.name, isoUtc(out.fromMs), isoUtc(out.toMs));
    // The forecast's past: the days the store recorded before the period when there are
    // enough, else the run's own synthetic days before it, from the scenario's curves (what the
    // recorded run had when the period starts with it).
    Sim::Scenario past = basis;
    past.startMs = out.fromMs;
    for (int i = 0; i < past.services.size(); ++i) {
        const Sim::ServiceDef &def = past.services[i];
        const QString name = serviceName(def);
        Sim::LearnedService l;
        const StoreHistory h = learnHistory(reader, name, out.fromMs, basis.utcOffsetMs);
        if (h.enough()) {
            l.days = h.days;
            l.byWeekday = true;
            out.notes.append(QStringLiteral("%1: the forecast learnt %2 recorded day(s) before "
                                            "the period")
                                     .arg(name)
                                     .arg(h.counted));
        } else {
            const Policy::HistoryDays d
                    = Sim::syntheticHistoryDays(past, i, out.seed, kQuarterHourMs);
            l.days = d.days;
            l.byWeekday = d.byWeekday;
        }
        out.scenario.learned.insert(name, l);
    }
    latest = reader.latestMetrics(&err);
    if (!err.isEmpty())
        return fail(QStringLiteral("cannot read %1: %2").arg(store(), err));
    return true;
}

// The cards' layouts at the period's start: the basis's, with every partition created or
// destroyed and every mode switched since the run started applied in order. A step the state
// cannot take (the store and the basis disagree) is skipped and counted in a note; a result that
// fails the state's own checks leaves the basis's layouts.
bool Builder::layouts()
{
    if (out.fromMs <= out.basisAtMs)
        return true;
    QString err;
    EventFilter f;
    f.sources = {Storage::Source::Scheduler};
    f.codes = {QByteArrayLiteral("partition-created"),
               QByteArrayLiteral("partition-destroyed"),
               QByteArrayLiteral("card-mode-changed")};
    f.fromMs = out.basisAtMs;
    f.toMs = out.fromMs;
    const QList<Event> events = reader.events(f, &err);
    if (!err.isEmpty())
        return fail(QStringLiteral("cannot read %1: %2").arg(store(), err));
    Sched::ClusterState st = out.scenario.appliance.state;
    const int cards = int(st.cards().size());
    int applied = 0, skipped = 0;
    for (const Event &e : events) {
        if (e.card < 0 || e.card >= cards) {
            ++skipped;
            continue;
        }
        const Domain::CardId id(e.card);
        const Sched::CardState &c = st.card(id);
        const QJsonObject p = eventParams(e);
        if (e.code == "partition-created") {
            const Domain::CardModel &m = st.model(c);
            const int profile = p.value(QStringLiteral("profileIndex")).toInt(-1);
            const int start = p.value(QStringLiteral("start")).toInt(-1);
            bool ok = c.mode == Domain::PartitionMode::Mig && profile >= 0
                      && profile < m.migProfiles.size() && start >= 0
                      && (e.partition < 0 || !c.unit(e.partition));
            if (ok) {
                const quint32 span = ((1u << m.migProfiles[profile].span) - 1u) << start;
                ok = start + m.migProfiles[profile].span <= 32 && (c.occupancy & span) == 0;
            }
            if (!ok) {
                ++skipped;
                continue;
            }
            // Stores before the uid was recorded on partition-created: the card's next one.
            st.createPartition(id, profile, start, Sched::UnitState::Ready, e.partition);
        } else if (e.code == "partition-destroyed") {
            // By its uid, else (a uid the rebuilt card gave otherwise) by its place.
            int uid = -1;
            const int start = p.value(QStringLiteral("start")).toInt(-1);
            const int profile = p.value(QStringLiteral("profileIndex")).toInt(-1);
            for (const Sched::Unit &u : c.units) {
                if (u.start == start && u.profile == profile)
                    uid = u.uid;
            }
            if (uid < 0 || c.mode != Domain::PartitionMode::Mig) {
                ++skipped;
                continue;
            }
            st.destroyPartition(id, uid);
        } else {
            Domain::PartitionMode mode;
            if (!Domain::partitionModeFromString(p.value(QStringLiteral("mode")).toString(), &mode)
                || c.clients != 0) {
                ++skipped;
                continue;
            }
            st.setMode(id, mode);
        }
        ++applied;
    }
    if (const QString bad = st.checkInvariants(); !bad.isEmpty()) {
        out.notes.append(QStringLiteral("the layouts at the start could not be rebuilt (%1): "
                                        "the run's first layouts are used")
                                 .arg(bad));
        return true;
    }
    out.scenario.appliance.state = st;
    if (skipped > 0)
        out.notes.append(QStringLiteral("layouts at the start: %1 recorded change(s) applied, %2 "
                                        "the store and the basis disagree on skipped")
                                 .arg(applied)
                                 .arg(skipped));
    return true;
}

bool Builder::services()
{
    QString err;
    for (int i = 0; i < out.scenario.services.size(); ++i) {
        Sim::ServiceDef &def = out.scenario.services[i];
        const QString name = serviceName(def);
        // Arrivals: one rate per minute; a point stands for the minute before it.
        const QList<MetricPoint> rates = recordedPoints(reader,
                                                        {Metric::RequestRate, -1, -1, name, -1},
                                                        out.fromMs,
                                                        out.toMs + kMinuteMs,
                                                        &err);
        if (!err.isEmpty())
            return fail(QStringLiteral("cannot read %1: %2").arg(store(), err));
        QList<double> grid;
        const double covered = minuteGrid(rates, out.fromMs, out.toMs, kMinuteMs, &grid);
        if (rates.isEmpty())
            out.notes.append(QStringLiteral("%1: no recorded requests in the period: replayed "
                                            "with none")
                                     .arg(name));
        else {
            ++out.recordedServices;
            if (covered < 0.98)
                out.notes.append(QStringLiteral("%1: %2 % of the period's minutes have no "
                                                "recorded rate: replayed with none there")
                                         .arg(name)
                                         .arg(std::round(1000 * (1 - covered)) / 10));
        }
        def.curve = Sim::RateCurve::recorded(grid,
                                             kMinuteMs,
                                             // The twin reads curves at local time counted from a
                                             // Monday (the epoch's Thursday plus three days:
                                             // core/sim/engine.cpp).
                                             out.fromMs + out.scenario.utcOffsetMs + 3 * kDayMs);
        def.curveSource = QStringLiteral("recorded");
        // The replicas serving at the start, when it is not the run's own start.
        if (out.fromMs > out.basisAtMs) {
            const double serving = valueAt(
                    reader, {Metric::Replicas, -1, -1, name, -1}, out.basisAtMs, out.fromMs);
            if (serving > 0 && def.spec.inference)
                def.initialReplicas
                        = std::min(int(std::lround(serving)), def.spec.inference->maxReplicas);
        }
        // The measured service time on the replica's own unit size.
        const Sim::ReplicaUnit unit = Sim::replicaUnit(out.scenario, def);
        double sum = 0, count = 0;
        QList<qint64> otherSizes;
        for (const SeriesKey &k : seriesOf(latest, Metric::ServiceTimeMs, name)) {
            if (k.partition != int(unit.unitMilli)) {
                otherSizes.append(k.partition);
                continue;
            }
            for (const MetricPoint &p : recordedPoints(reader, k, out.fromMs, out.toMs, &err)) {
                sum += p.value * double(p.count);
                count += double(p.count);
            }
        }
        if (count > 0) {
            def.serviceMs = sum / count * unit.unitRef;
        } else {
            out.notes.append(
                    QStringLiteral("%1: no measured service time on its %2-milli-card unit%3: "
                                   "the scenario's %4 ms kept")
                            .arg(name)
                            .arg(unit.unitMilli)
                            .arg(otherSizes.isEmpty()
                                         ? QString()
                                         : QStringLiteral(" (only on other unit sizes)"))
                            .arg(def.serviceMs));
        }
    }
    return true;
}

bool Builder::training()
{
    QString err;
    EventFilter f;
    f.codes = {QByteArrayLiteral("job-submitted")};
    f.fromMs = out.basisAtMs;
    f.toMs = out.toMs;
    const QList<Event> submitted = reader.events(f, &err);
    if (!err.isEmpty())
        return fail(QStringLiteral("cannot read %1: %2").arg(store(), err));
    QList<int> ids;
    QHash<int, qint64> submittedAt;
    for (const Event &e : submitted) {
        const QJsonObject p = eventParams(e);
        if (e.job < 0 || !p.contains(QStringLiteral("spec")))
            continue;
        Domain::SpecError se;
        std::optional<Domain::WorkloadSpec> spec
                = Domain::workloadSpecFromJson(p.value(QStringLiteral("spec")).toObject(), &se);
        if (!spec) {
            out.notes.append(QStringLiteral("job %1: its recorded spec is not valid (%2): left "
                                            "out")
                                     .arg(e.job)
                                     .arg(se.toString()));
            continue;
        }
        if (spec->kind == Domain::WorkloadKind::Inference || spec->demand.cards < 1)
            continue;
        specs.insert(e.job, *spec);
        submittedAt.insert(e.job, e.atMs);
        ids.append(e.job);
    }
    // How each ended, if it did.
    QHash<int, Event> ended;
    if (!ids.isEmpty()) {
        EventFilter ef;
        ef.codes = {QByteArrayLiteral("job-finished"),
                    QByteArrayLiteral("job-cancelled"),
                    QByteArrayLiteral("job-failed")};
        ef.fromMs = out.basisAtMs;
        ef.toMs = out.toMs;
        ef.jobs = ids;
        for (const Event &e : reader.events(ef, &err)) {
            if (!ended.contains(e.job))
                ended.insert(e.job, e);
        }
        if (!err.isEmpty())
            return fail(QStringLiteral("cannot read %1: %2").arg(store(), err));
    }
    // The scenario's own jobs, by name, keep their model (work, restart cost, paths, loss).
    QMultiHash<QString, int> byName;
    for (int i = basis.training.size() - 1; i >= 0; --i)
        byName.insert(basis.training[i].spec.name, i);
    QSet<int> used;
    for (int id : std::as_const(ids)) {
        const Domain::WorkloadSpec &spec = specs[id];
        Sim::TrainingDef def;
        bool modelled = false;
        for (auto it = byName.find(spec.name); it != byName.end() && it.key() == spec.name; ++it) {
            if (!used.contains(it.value())) {
                used.insert(it.value());
                def = basis.training[it.value()];
                modelled = true;
                break;
            }
        }
        def.spec = spec;
        if (!modelled)
            def.workMs = double(spec.time.expectedDurationMs) * std::max(1, spec.demand.cards);
        const qint64 at = submittedAt.value(id);
        if (ended.contains(id) && ended[id].atMs < out.fromMs)
            continue; // over before the period
        if (at < out.fromMs) {
            // Running or waiting at the start: what it had left then.
            const double doneH
                    = valueAt(reader, {Metric::TrainingWorkH, -1, -1, {}, id}, at, out.fromMs);
            if (doneH > 0)
                def.workMs -= doneH * kHourMs;
            def.submitAtMs = 0;
        } else {
            def.submitAtMs = at - out.fromMs;
        }
        if (def.workMs <= 0) {
            out.notes.append(QStringLiteral("job %1 (%2): no work known (no time.expectedDuration "
                                            "and not one of the scenario's jobs): left out")
                                     .arg(id)
                                     .arg(spec.name));
            continue;
        }
        if (ended.contains(id) && ended[id].code == "job-cancelled")
            out.notes.append(QStringLiteral("job %1 (%2) was cancelled at %3; the replay lets it "
                                            "run")
                                     .arg(id)
                                     .arg(spec.name, isoUtc(ended[id].atMs)));
        out.scenario.training.append(def);
        ++out.recordedJobs;
    }
    std::stable_sort(out.scenario.training.begin(),
                     out.scenario.training.end(),
                     [](const Sim::TrainingDef &a, const Sim::TrainingDef &b) {
                         return a.submitAtMs < b.submitAtMs;
                     });
    return true;
}

bool Builder::faults()
{
    QString err;
    EventFilter f;
    f.sources = {Storage::Source::Device};
    f.codes = {QByteArrayLiteral("fault-card-lost"),
               QByteArrayLiteral("fault-memory-error"),
               QByteArrayLiteral("fault-thermal-throttle"),
               QByteArrayLiteral("card-recovered")};
    f.fromMs = out.fromMs;
    f.toMs = out.toMs;
    const QList<Event> events = reader.events(f, &err);
    if (!err.isEmpty())
        return fail(QStringLiteral("cannot read %1: %2").arg(store(), err));
    const int cards = int(out.scenario.appliance.state.cards().size());
    for (int i = 0; i < events.size(); ++i) {
        const Event &e = events[i];
        const std::optional<Device::FaultKind> kind = faultOf(e.code);
        if (!kind || e.card < 0 || e.card >= cards)
            continue;
        Sim::FaultDef d;
        d.atMs = e.atMs - out.fromMs;
        d.card = Domain::CardId(e.card);
        d.kind = *kind;
        if (*kind == Device::FaultKind::ThermalThrottle) {
            d.durationMs = qint64(eventParams(e).value(QStringLiteral("durationMs")).toDouble());
        } else {
            for (int j = i + 1; j < events.size(); ++j) {
                if (events[j].card == e.card && events[j].code == "card-recovered") {
                    d.durationMs = events[j].atMs - e.atMs;
                    break;
                }
            }
        }
        out.scenario.faults.append(d);
        ++out.recordedFaults;
    }
    return true;
}

// What happened, in the replay's columns, from the recorded series and events.
bool Builder::actual()
{
    QString err;
    Sim::Report &r = out.actual;
    r.scenario = out.scenario.name;
    r.policy = QStringLiteral("recorded");
    r.seed = out.seed;
    r.durationH = double(out.toMs - out.fromMs) / kHourMs;
    double good = 0, p99Weighted = 0;
    for (const Sim::ServiceDef &def : std::as_const(out.scenario.services)) {
        const QString name = serviceName(def);
        Sim::ServiceReport s;
        s.name = name;
        s.sloMs = def.spec.inference ? def.spec.inference->sloP99Ms : 0;
        const QList<RecordedRequests> minutes
                = recordedRequests(reader, name, out.fromMs, out.toMs, &err);
        QHash<qint64, double> arrived; // requests by recording point
        double requests = 0, within = 0, weighted = 0, weight = 0;
        for (const RecordedRequests &m : minutes) {
            arrived.insert(m.atMs, m.requests);
            requests += m.requests;
            if (!std::isnan(m.attainment)) {
                within += m.attainment * m.requests;
                weight += m.requests;
            }
        }
        for (const MetricPoint &p : recordedPoints(reader,
                                                   {Metric::LatencyP99Ms, -1, -1, name, -1},
                                                   out.fromMs + 1,
                                                   out.toMs,
                                                   &err))
            weighted += p.value * arrived.value(p.atMs);
        s.requests = qint64(std::llround(requests));
        s.sloAttainment = weight > 0 ? within / weight : 1;
        // The p99 of the period is not recorded: the request-weighted mean of the windows' p99.
        s.p99Ms = requests > 0 ? weighted / requests : 0;
        r.requests += s.requests;
        good += s.sloAttainment * requests;
        p99Weighted += s.p99Ms * requests;
        r.services.append(s);
    }
    r.sloAttainment = r.requests > 0 ? good / double(r.requests) : 1;
    r.p99Ms = r.requests > 0 ? p99Weighted / double(r.requests) : 0;
    // Training: the work each job did within the period.
    for (auto it = specs.cbegin(); it != specs.cend(); ++it) {
        const SeriesKey key{Metric::TrainingWorkH, -1, -1, {}, it.key()};
        const double before = valueAt(reader, key, out.basisAtMs, out.fromMs);
        const double after = valueAt(reader, key, out.basisAtMs, out.toMs);
        if (after > 0)
            r.workDone += after - std::max(0.0, before);
    }
    // Events: preemptions and lost work of training, reconfigurations, faults.
    EventFilter f;
    f.fromMs = out.fromMs;
    f.toMs = out.toMs;
    f.codes = {QByteArrayLiteral("job-evicted"),
               QByteArrayLiteral("partition-created"),
               QByteArrayLiteral("partition-destroyed"),
               QByteArrayLiteral("card-mode-changed"),
               QByteArrayLiteral("fault-card-lost"),
               QByteArrayLiteral("fault-memory-error"),
               QByteArrayLiteral("fault-thermal-throttle")};
    QList<Event> events;
    const bool ok = reader.forEachEvent(
            f,
            [&](const Event &e) {
                events.append(e);
                return true;
            },
            &err);
    if (!ok)
        return fail(QStringLiteral("cannot read %1: %2").arg(store(), err));
    // A card lost or failing evicts what it held at that moment: the twin does not count those
    // as preemptions.
    QSet<qint64> faultTimes;
    for (const Event &e : std::as_const(events)) {
        if (e.code.startsWith("fault-")) {
            ++r.faults;
            faultTimes.insert(e.atMs);
        }
    }
    for (const Event &e : std::as_const(events)) {
        if (e.code == "job-evicted") {
            if (specs.contains(e.job) && !faultTimes.contains(e.atMs)) {
                ++r.preemptions;
                r.lostWork += eventParams(e).value(QStringLiteral("workLostMs")).toDouble()
                              / kHourMs * std::max(1, specs[e.job].demand.cards);
            }
        } else if (!e.code.startsWith("fault-")) {
            ++r.reconfigurations;
        }
    }
    // Energy and the peak: every card's power, minute by minute.
    std::map<qint64, double> powerByMinute;
    for (const Storage::LatestMetric &l : std::as_const(latest)) {
        if (l.key.metric != Metric::PowerW || l.key.partition >= 0)
            continue;
        for (const MetricPoint &p : recordedPoints(reader, l.key, out.fromMs + 1, out.toMs, &err)) {
            r.energyKwh += p.value * double(kMinuteMs) / kHourMs / 1000.0;
            powerByMinute[p.atMs / kMinuteMs] += p.value;
        }
    }
    for (const auto &[minute, w] : powerByMinute)
        r.peakPowerW = std::max(r.peakPowerW, w);
    // Utilisation: the cards' mean GPU utilisation.
    double util = 0, samples = 0;
    for (const Storage::LatestMetric &l : std::as_const(latest)) {
        if (l.key.metric != Metric::GpuUtil || l.key.partition >= 0)
            continue;
        for (const MetricPoint &p : recordedPoints(reader, l.key, out.fromMs + 1, out.toMs, &err)) {
            util += p.value / 100.0 * double(p.count);
            samples += double(p.count);
        }
    }
    r.busy = samples > 0 ? util / samples : 0;
    return true;
}

} // namespace

QJsonObject eventParams(const Storage::Event &event)
{
    return event.params.isEmpty() ? QJsonObject() : QJsonDocument::fromJson(event.params).object();
}

QString serviceName(const Sim::ServiceDef &def)
{
    return def.spec.inference ? def.spec.inference->service : def.spec.name;
}

QList<RecordedRequests> recordedRequests(
        Storage::Reader &reader, const QString &service, qint64 fromMs, qint64 toMs, QString *error)
{
    QList<RecordedRequests> out;
    qint64 prev = fromMs;
    for (const MetricPoint &p : recordedPoints(
                 reader, {Metric::RequestRate, -1, -1, service, -1}, fromMs + 1, toMs, error)) {
        const qint64 span = std::clamp<qint64>(p.atMs - prev, 1, 15 * kMinuteMs);
        out.append({p.atMs, p.value * double(span) / 1000.0, std::nan("")});
        prev = p.atMs;
    }
    QHash<qint64, qsizetype> at;
    for (qsizetype i = 0; i < out.size(); ++i)
        at.insert(out[i].atMs, i);
    for (const MetricPoint &p : recordedPoints(
                 reader, {Metric::SloAttainment, -1, -1, service, -1}, fromMs + 1, toMs, error)) {
        if (const auto it = at.constFind(p.atMs); it != at.constEnd())
            out[*it].attainment = p.value;
    }
    return out;
}

QList<MetricPoint> recordedPoints(
        Storage::Reader &reader, const SeriesKey &key, qint64 fromMs, qint64 toMs, QString *error)
{
    QList<MetricPoint> raw = reader.series(key, Tier::Raw, fromMs, toMs, error);
    qint64 covered = raw.isEmpty() ? toMs + 1 : raw.first().atMs;
    if (covered <= fromMs + 2 * kMinuteMs)
        return raw;
    QList<MetricPoint> out;
    QList<MetricPoint> minutes = reader.series(key, Tier::Minute, fromMs, covered - 1, error);
    const qint64 minuteCovered = minutes.isEmpty() ? covered : minutes.first().atMs;
    if (minuteCovered > fromMs + 30 * kMinuteMs) {
        for (const MetricPoint &p :
             reader.series(key, Tier::QuarterHour, fromMs, minuteCovered - 1, error))
            out.append(p);
    }
    for (const MetricPoint &p : std::as_const(minutes)) {
        if (p.atMs < covered)
            out.append(p);
    }
    out.append(raw);
    return out;
}

std::optional<RecordedPeriod> readRecordedPeriod(Storage::Reader &reader,
                                                 qint64 fromMs,
                                                 qint64 toMs,
                                                 const Catalogue::Catalogue &catalogue,
                                                 QString *error)
{
    if (toMs <= fromMs) {
        if (error)
            *error = QStringLiteral("the period is empty: --to (%1) is not later than --from (%2)")
                             .arg(isoUtc(toMs), isoUtc(fromMs));
        return std::nullopt;
    }
    RecordedPeriod out;
    out.fromMs = fromMs;
    out.toMs = toMs;
    Builder b{reader, out, error, {}, {}, {}};
    if (!b.readBasis(catalogue) || !b.layouts() || !b.services() || !b.training() || !b.faults()
        || !b.actual())
        return std::nullopt;
    return out;
}

Sim::Report replay(const RecordedPeriod &period, const QString &policy)
{
    Sim::Engine engine(
            period.scenario, policy.isEmpty() ? period.basisPolicy : policy, period.seed);
    return engine.run();
}

QList<Sim::Report> replayCompare(const RecordedPeriod &period,
                                 const std::function<bool(int, const QString &)> &before)
{
    QList<Sim::Report> out;
    Sim::Report actual = period.actual;
    const QStringList policies = Policy::policyNames();
    for (int i = 0; i < policies.size(); ++i) {
        if (before && !before(i, policies[i]))
            return {};
        out.append(replay(period, policies[i]));
    }
    if (!out.isEmpty()) {
        actual.workBound = out.first().workBound;
        actual.efficiency = actual.workBound > 0 ? actual.workDone / actual.workBound : 0;
    }
    out.prepend(actual);
    return out;
}

QJsonObject replayJson(const RecordedPeriod &period, const QList<Sim::Report> &reports)
{
    QJsonArray rows;
    for (const Sim::Report &r : reports)
        rows.append(r.toJson());
    return QJsonObject{
            {QStringLiteral("from"), isoUtc(period.fromMs)},
            {QStringLiteral("to"), isoUtc(period.toMs)},
            {QStringLiteral("basis"),
             QJsonObject{{QStringLiteral("at"), isoUtc(period.basisAtMs)},
                         {QStringLiteral("scenario"), period.scenario.name},
                         {QStringLiteral("policy"), period.basisPolicy},
                         {QStringLiteral("seed"), QString::number(period.seed)}}},
            {QStringLiteral("recorded"),
             QJsonObject{{QStringLiteral("services"), period.recordedServices},
                         {QStringLiteral("jobs"), period.recordedJobs},
                         {QStringLiteral("faults"), period.recordedFaults}}},
            {QStringLiteral("notes"), QJsonArray::fromStringList(period.notes)},
            {QStringLiteral("policies"), rows},
    };
}

} // namespace Zhaoxi::Replay
