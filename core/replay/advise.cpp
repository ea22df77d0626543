// SPDX-License-Identifier: GPL-3.0-or-later
#include "advise.h"

#include "replay.h"

#include "core/catalogue/catalogue.h"
#include "core/domain/cardmodel.h"
#include "core/domain/workloadspec.h"
#include "core/policy/policy.h"
#include "core/sim/engine.h"
#include "core/storage/store.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRunnable>
#include <QSet>
#include <QThread>
#include <QThreadPool>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

namespace Zhaoxi::Replay {

namespace {

using Storage::Event;
using Storage::EventFilter;
using Storage::Metric;
using Storage::MetricPoint;
using Storage::SeriesKey;
using Storage::Tier;

constexpr qint64 kMinuteMs = 60'000;
constexpr qint64 kHourMs = 3600'000;
constexpr qint64 kDayMs = 24 * kHourMs;
constexpr int kDayMinutes = 24 * 60;
// Requests past the SLO in an hour count as a miss cluster when they are more than this share
// of the hour's requests (the twin's counting noise stays well below).
constexpr double kMissShare = 0.001;

QString localDate(qint64 ms, qint64 offsetMs)
{
    return QDateTime::fromMSecsSinceEpoch(ms + offsetMs, Qt::UTC).date().toString(Qt::ISODate);
}

QString hhmm(int minutes)
{
    minutes = ((minutes % kDayMinutes) + kDayMinutes) % kDayMinutes;
    return QStringLiteral("%1:%2")
            .arg(minutes / 60, 2, 10, QLatin1Char('0'))
            .arg(minutes % 60, 2, 10, QLatin1Char('0'));
}

int minutesOf(const QString &t)
{
    const QStringList p = t.split(QLatin1Char(':'));
    return p.size() == 2 ? p[0].toInt() * 60 + p[1].toInt() : -1;
}

// ---- the store's evidence, per local hour of a day -------------------------------------------

struct HourEvidence
{
    QHash<QString, double> requests, misses; // by service
    int evictions = 0;                       // training, not for failed cards
    int inferencePreemptions = 0;            // training preempted for an inference replica
    double lostCardH = 0;
    int powerBoundMinutes = 0;
    int reconfigurations = 0; // MIG instances created or destroyed, mode switches
};

struct DayData
{
    RecordedDay day;
    RecordedPeriod period;
    qint64 midnightMs = 0;     // local midnight of the day, UTC ms
    QList<HourEvidence> hours; // 24
    Sim::Report baseline;
    bool hasBaseline = false;
    int hourOf(qint64 atMs) const
    {
        return int(std::clamp<qint64>((atMs - midnightMs) / kHourMs, 0, 23));
    }
};

struct JobInfo
{
    bool inference = false;
    int cards = 1;
};

void readEvidence(Storage::Reader &reader,
                  const QHash<int, JobInfo> &jobs,
                  const QList<Storage::LatestMetric> &latest,
                  DayData &d)
{
    d.hours = QList<HourEvidence>(24);
    const qint64 from = d.day.fromMs, to = d.day.toMs;
    for (const Sim::ServiceDef &def : std::as_const(d.period.scenario.services)) {
        const QString name = serviceName(def);
        for (const RecordedRequests &m : recordedRequests(reader, name, from, to)) {
            HourEvidence &h = d.hours[d.hourOf(m.atMs - 1)];
            h.requests[name] += m.requests;
            if (!std::isnan(m.attainment))
                h.misses[name] += std::max(0.0, 1 - m.attainment) * m.requests;
        }
    }
    QString err;
    EventFilter f;
    f.fromMs = from;
    f.toMs = to - 1;
    f.codes = {QByteArrayLiteral("job-evicted"), QByteArrayLiteral("job-preempting")};
    reader.forEachEvent(
            f,
            [&](const Event &e) {
                const JobInfo info = jobs.value(e.job, JobInfo{true, 1});
                if (info.inference)
                    return true;
                const QJsonObject p = eventParams(e);
                HourEvidence &h = d.hours[d.hourOf(e.atMs)];
                if (e.code == "job-evicted") {
                    if (p.value(QStringLiteral("reason")).toString()
                        == QLatin1String("card-failed"))
                        return true;
                    ++h.evictions;
                    h.lostCardH += p.value(QStringLiteral("workLostMs")).toDouble()
                                   / double(kHourMs) * info.cards;
                } else if (p.contains(QStringLiteral("other"))) {
                    const int other = p.value(QStringLiteral("other")).toInt(-1);
                    if (jobs.value(other).inference)
                        ++h.inferencePreemptions;
                }
                return true;
            },
            &err);
    EventFilter rf;
    rf.fromMs = from;
    rf.toMs = to - 1;
    rf.codes = {QByteArrayLiteral("partition-created"),
                QByteArrayLiteral("partition-destroyed"),
                QByteArrayLiteral("card-mode-changed")};
    reader.forEachEvent(
            rf,
            [&](const Event &e) {
                ++d.hours[d.hourOf(e.atMs)].reconfigurations;
                return true;
            },
            &err);
    // Minutes at the power budget (all cards together).
    const double budget = d.period.scenario.powerBudgetW;
    if (budget > 0) {
        std::map<qint64, double> byMinute;
        for (const Storage::LatestMetric &l : latest) {
            if (l.key.metric != Metric::PowerW || l.key.partition >= 0)
                continue;
            for (const MetricPoint &p : recordedPoints(reader, l.key, from + 1, to))
                byMinute[(p.atMs - 1) / kMinuteMs] += p.value;
        }
        for (const auto &[minute, w] : byMinute) {
            if (w >= 0.97 * budget)
                ++d.hours[d.hourOf(minute * kMinuteMs)].powerBoundMinutes;
        }
    }
}

// ---- figures ----------------------------------------------------------------------------------

Figures figuresOf(const Sim::Report &r)
{
    Figures f;
    f.preemptions = r.preemptions;
    f.trainingWorkH = r.workDone;
    f.lostWorkH = r.lostWork;
    f.energyKwh = r.energyKwh;
    for (const Sim::ServiceReport &s : r.services) {
        f.services.append({s.name, double(s.requests), s.sloAttainment});
        f.sloMisses += double(s.requests) * (1 - s.sloAttainment);
    }
    return f;
}

// ---- candidates -------------------------------------------------------------------------------

struct Candidate
{
    Suggestion s;
    QString target;  // kind + what it changes: candidates of one target compete
    double size = 0; // how large the change is (smaller preferred at a near tie)
};

struct Window
{
    QString name;
    int from = 0, to = 0; // minutes of the day
    double share = 0.5;
    double powerCapW = -1;
};

QList<Window> windowsOf(const QJsonObject &params)
{
    QList<Window> out;
    for (const QJsonValue &v : params.value(QStringLiteral("windows")).toArray()) {
        const QJsonObject o = v.toObject();
        Window w;
        w.name = o.value(QStringLiteral("name")).toString();
        w.from = minutesOf(o.value(QStringLiteral("from")).toString());
        w.to = minutesOf(o.value(QStringLiteral("to")).toString());
        w.share = o.value(QStringLiteral("inferenceShare")).toDouble(0.5);
        w.powerCapW = o.value(QStringLiteral("trainingPowerCapW")).toDouble(-1);
        out.append(w);
    }
    return out;
}

// Whether local minute-of-day `m` lies in [from, to) (wrapping; from == to: all day).
bool inSpan(int m, int from, int to)
{
    m = ((m % kDayMinutes) + kDayMinutes) % kDayMinutes;
    from %= kDayMinutes;
    to %= kDayMinutes;
    if (from == to)
        return true;
    return from < to ? (m >= from && m < to) : (m >= from || m < to);
}

// The windows params with one window's field set (and others' as given).
QJsonObject withWindowField(QJsonObject params, int window, const QString &key, const QJsonValue &v)
{
    QJsonArray ws = params.value(QStringLiteral("windows")).toArray();
    QJsonObject o = ws[window].toObject();
    o.insert(key, v);
    ws[window] = o;
    params.insert(QStringLiteral("windows"), ws);
    return params;
}

struct Generator
{
    const QList<DayData> &days;
    const Sim::Scenario &scenario; // the newest day's
    QString policy;
    QStringList &notes;
    QList<Candidate> out;

    int daysWith(const std::function<bool(const DayData &)> &pred) const
    {
        int n = 0;
        for (const DayData &d : days)
            n += pred(d) ? 1 : 0;
        return n;
    }
    // Requests and misses of all services in [fromMin, toMin) local (hours, whole).
    static void missesIn(const DayData &d, int fromH, int toH, double *misses, double *requests)
    {
        *misses = 0;
        *requests = 0;
        for (int h = fromH; h < toH; ++h) {
            const HourEvidence &e = d.hours[((h % 24) + 24) % 24];
            for (double v : e.misses)
                *misses += v;
            for (double v : e.requests)
                *requests += v;
        }
    }
    static bool missCluster(const DayData &d, int h)
    {
        double m = 0, r = 0;
        missesIn(d, h, h + 1, &m, &r);
        return r > 0 && m > kMissShare * r && m >= 1;
    }
    // The services that miss in hour h (most first).
    static QStringList missingServices(const QList<DayData> &days, int fromH, int toH)
    {
        QHash<QString, double> by;
        for (const DayData &d : days)
            for (int h = fromH; h < toH; ++h)
                for (auto it = d.hours[((h % 24) + 24) % 24].misses.cbegin();
                     it != d.hours[((h % 24) + 24) % 24].misses.cend();
                     ++it)
                    by[it.key()] += it.value();
        QStringList names = by.keys();
        names.erase(std::remove_if(names.begin(),
                                   names.end(),
                                   [&](const QString &n) { return by.value(n) < 1; }),
                    names.end());
        std::sort(names.begin(), names.end(), [&](const QString &a, const QString &b) {
            return by.value(a) > by.value(b);
        });
        return names;
    }

    QJsonObject missEvidence(int fromH, int toH) const
    {
        double misses = 0, requests = 0, minAtt = 1, maxAtt = 0;
        int with = 0;
        for (const DayData &d : days) {
            double m = 0, r = 0;
            missesIn(d, fromH, toH, &m, &r);
            bool any = false;
            for (int h = fromH; h < toH; ++h)
                any = any || missCluster(d, h);
            if (!any)
                continue;
            ++with;
            misses += m;
            requests += r;
            const double att = r > 0 ? 1 - m / r : 1;
            minAtt = std::min(minAtt, att);
            maxAtt = std::max(maxAtt, att);
        }
        return QJsonObject{{QStringLiteral("days"), with},
                           {QStringLiteral("of"), int(days.size())},
                           {QStringLiteral("fromHour"), ((fromH % 24) + 24) % 24},
                           {QStringLiteral("toHour"), ((toH % 24) + 24) % 24},
                           {QStringLiteral("sloMisses"), std::round(misses)},
                           {QStringLiteral("requests"), std::round(requests)},
                           {QStringLiteral("attainmentPct"),
                            QJsonObject{{QStringLiteral("min"), std::round(minAtt * 1e5) / 1e3},
                                        {QStringLiteral("max"), std::round(maxAtt * 1e5) / 1e3}}},
                           {QStringLiteral("services"),
                            QJsonArray::fromStringList(missingServices(days, fromH, toH))}};
    }

    QJsonObject evictionEvidence(int fromH, int toH) const
    {
        int with = 0, lo = INT_MAX, hi = 0, total = 0, byInference = 0;
        double lost = 0;
        for (const DayData &d : days) {
            int n = 0;
            for (int h = fromH; h < toH; ++h) {
                const HourEvidence &e = d.hours[((h % 24) + 24) % 24];
                n += e.evictions;
                byInference += e.inferencePreemptions;
                lost += e.lostCardH;
            }
            if (n == 0)
                continue;
            ++with;
            total += n;
            lo = std::min(lo, n);
            hi = std::max(hi, n);
        }
        return QJsonObject{{QStringLiteral("days"), with},
                           {QStringLiteral("of"), int(days.size())},
                           {QStringLiteral("fromHour"), ((fromH % 24) + 24) % 24},
                           {QStringLiteral("toHour"), ((toH % 24) + 24) % 24},
                           {QStringLiteral("preemptions"),
                            QJsonObject{{QStringLiteral("min"), with ? lo : 0},
                                        {QStringLiteral("max"), hi},
                                        {QStringLiteral("total"), total}}},
                           {QStringLiteral("inferencePreemptions"), byInference},
                           {QStringLiteral("lostCardH"), std::round(lost * 100) / 100}};
    }

    double idleWaitCardH() const
    {
        double v = 0;
        for (const DayData &d : days)
            v += d.baseline.capacity.idleTrainingWaits;
        return v;
    }

    void add(SuggestionKind kind,
             Figure figure,
             const QString &target,
             double size,
             const QJsonObject &params,
             const QJsonObject &evidence,
             const QJsonObject &change)
    {
        Candidate c;
        c.s.kind = kind;
        c.s.figure = figure;
        c.s.params = params;
        c.s.evidence = evidence;
        c.s.change = change;
        c.target = target;
        c.size = size;
        out.append(c);
    }

    void windowEdges(const QJsonObject &params, const QList<Window> &ws, double defaultShare)
    {
        QList<int> edges;
        for (const Window &w : ws) {
            if (w.from >= 0)
                edges.append(w.from);
            if (w.to >= 0)
                edges.append(w.to);
        }
        for (int i = 0; i < ws.size(); ++i) {
            const Window &w = ws[i];
            if (w.from < 0 || w.to < 0 || w.from == w.to)
                continue;
            const int F = w.from;
            // The window in force just before the edge, and those whose "to" moves with it.
            double before = defaultShare;
            for (const Window &o : ws) {
                if (inSpan(F - 1, o.from, o.to)) {
                    before = o.share;
                    break;
                }
            }
            QList<int> neighbours;
            for (int j = 0; j < ws.size(); ++j)
                if (j != i && ws[j].to == F && ws[j].from != ws[j].to)
                    neighbours.append(j);
            // How far the edge may move: not past (or onto) another edge, 30 min apart.
            int room = kDayMinutes, roomBack = kDayMinutes;
            for (int e : edges) {
                if (e == F)
                    continue;
                const int fwd = ((e - F) % kDayMinutes + kDayMinutes) % kDayMinutes;
                room = std::min(room, fwd);
                roomBack = std::min(roomBack, kDayMinutes - fwd);
            }
            const int fH = F / 60; // the hour the edge falls in
            const bool moreInference = w.share > before;
            struct Shift
            {
                QList<int> minutes;
                Figure figure;
                QJsonObject evidence;
            };
            QList<Shift> shifts;
            if (moreInference) {
                // Misses before the window that gives inference more opens: open it earlier.
                const int with = daysWith([&](const DayData &d) {
                    return missCluster(d, fH - 1) || (F % 60 != 0 && missCluster(d, fH));
                });
                if (with > 0) {
                    int start = fH - 1;
                    while (start > fH - 3 && daysWith([&](const DayData &d) {
                                                 return missCluster(d, start - 1);
                                             }) > 0)
                        --start;
                    shifts.append({{-30, -60, -90},
                                   Figure::SloMisses,
                                   missEvidence(start, fH + (F % 60 ? 1 : 0))});
                }
            } else if (w.share < before) {
                // Misses after a window that gives inference less opened: open it later.
                const int with = daysWith([&](const DayData &d) { return missCluster(d, fH); });
                if (with > 0) {
                    int end = fH + 1;
                    while (end < fH + 3
                           && daysWith([&](const DayData &d) { return missCluster(d, end); }) > 0)
                        ++end;
                    shifts.append({{30, 60, 90}, Figure::SloMisses, missEvidence(fH, end)});
                } else if (idleWaitCardH() > 0.5 * days.size()) {
                    // No misses in the two hours before it: training could have the room sooner.
                    const int before2 = daysWith([&](const DayData &d) {
                        return missCluster(d, fH - 1) || missCluster(d, fH - 2);
                    });
                    if (before2 == 0) {
                        QJsonObject ev = missEvidence(fH - 2, fH);
                        ev.insert(QStringLiteral("idleWaitCardH"),
                                  std::round(idleWaitCardH() * 10) / 10);
                        shifts.append({{-30, -60}, Figure::TrainingWork, ev});
                    }
                }
            }
            // Training evicted around the edge.
            const QJsonObject ev = evictionEvidence(fH - 1, fH + 2);
            if (shifts.isEmpty() && ev.value(QStringLiteral("days")).toInt() > 0)
                shifts.append({{-60, -30, 30, 60}, Figure::Preemptions, ev});
            for (const Shift &s : shifts) {
                for (int m : s.minutes) {
                    if ((m > 0 && m > room - 30) || (m < 0 && -m > roomBack - 30))
                        continue;
                    const int nf = F + m;
                    QJsonObject np = withWindowField(params, i, QStringLiteral("from"), hhmm(nf));
                    QJsonObject pp{{QStringLiteral("window"), w.name},
                                   {QStringLiteral("edge"), QStringLiteral("from")},
                                   {QStringLiteral("old"), hhmm(F)},
                                   {QStringLiteral("new"), hhmm(nf)}};
                    QJsonArray moved;
                    for (int j : neighbours) {
                        np = withWindowField(np, j, QStringLiteral("to"), hhmm(nf));
                        moved.append(ws[j].name);
                    }
                    if (!moved.isEmpty())
                        pp.insert(QStringLiteral("neighbours"), moved);
                    add(SuggestionKind::WindowEdge,
                        s.figure,
                        QStringLiteral("window-edge:%1:%2").arg(w.name, toString(s.figure)),
                        std::abs(m),
                        pp,
                        s.evidence,
                        QJsonObject{{QStringLiteral("windows"), np}});
                }
            }
        }
    }

    // Hours (local) a window covers, as hour indexes.
    static QList<int> hoursOf(const Window &w)
    {
        QList<int> out;
        for (int h = 0; h < 24; ++h)
            if (inSpan(h * 60 + 30, w.from, w.to))
                out.append(h);
        return out;
    }

    void classBudgets(const QJsonObject &params, const QList<Window> &ws)
    {
        for (int i = 0; i < ws.size(); ++i) {
            const Window &w = ws[i];
            const QList<int> hours = hoursOf(w);
            if (hours.isEmpty())
                continue;
            // Inference misses its SLO inside the window: more share. Else training waits with
            // idle capacity: less.
            int missDays = 0;
            double misses = 0, requests = 0;
            for (const DayData &d : days) {
                double dm = 0, dr = 0;
                bool any = false;
                for (int h : hours) {
                    double m = 0, r = 0;
                    missesIn(d, h, h + 1, &m, &r);
                    dm += m;
                    dr += r;
                    any = any || missCluster(d, h);
                }
                missDays += any ? 1 : 0;
                misses += dm;
                requests += dr;
            }
            QList<double> steps;
            Figure figure = Figure::SloMisses;
            QJsonObject ev{{QStringLiteral("days"), missDays},
                           {QStringLiteral("of"), int(days.size())},
                           {QStringLiteral("fromHour"), w.from / 60},
                           {QStringLiteral("toHour"), w.to / 60},
                           {QStringLiteral("sloMisses"), std::round(misses)},
                           {QStringLiteral("requests"), std::round(requests)}};
            QStringList missing;
            for (int h : hours)
                for (const QString &n : missingServices(days, h, h + 1))
                    if (!missing.contains(n))
                        missing.append(n);
            ev.insert(QStringLiteral("services"), QJsonArray::fromStringList(missing));
            if (missDays > 0) {
                steps = {0.05, 0.10};
            } else if (idleWaitCardH() > 0.5 * days.size()) {
                steps = {-0.05, -0.10};
                figure = Figure::TrainingWork;
                ev.insert(QStringLiteral("days"), int(days.size()));
                ev.insert(QStringLiteral("idleWaitCardH"), std::round(idleWaitCardH() * 10) / 10);
            }
            for (double st : steps) {
                const double ns = std::round((w.share + st) * 100) / 100;
                if (ns < 0 || ns > 1)
                    continue;
                add(SuggestionKind::ClassBudget,
                    figure,
                    QStringLiteral("class-budget:%1").arg(w.name),
                    std::abs(st),
                    {{QStringLiteral("window"), w.name},
                     {QStringLiteral("old"), w.share},
                     {QStringLiteral("new"), ns}},
                    ev,
                    {{QStringLiteral("windows"),
                      withWindowField(params, i, QStringLiteral("inferenceShare"), ns)}});
            }
        }
    }

    void powerCaps(const QJsonObject &params, const QList<Window> &ws)
    {
        double slowed = 0;
        for (const DayData &d : days)
            slowed += d.baseline.capacity.trainingSlowdownPower;
        for (int i = 0; i < ws.size(); ++i) {
            const Window &w = ws[i];
            if (w.powerCapW <= 0 || slowed < 0.1)
                continue;
            int bound = 0;
            for (const DayData &d : days)
                for (int h : hoursOf(w))
                    bound += d.hours[h].powerBoundMinutes;
            const QJsonObject ev{
                    {QStringLiteral("days"), int(days.size())},
                    {QStringLiteral("of"), int(days.size())},
                    {QStringLiteral("fromHour"), w.from / 60},
                    {QStringLiteral("toHour"), w.to / 60},
                    {QStringLiteral("powerSlowedCardH"), std::round(slowed * 100) / 100},
                    {QStringLiteral("powerBoundMinutes"), bound}};
            for (double f : {1.15, 1.3}) {
                const double nw = std::round(w.powerCapW * f / 10) * 10;
                add(SuggestionKind::PowerCap,
                    Figure::TrainingWork,
                    QStringLiteral("power-cap:%1").arg(w.name),
                    f,
                    {{QStringLiteral("window"), w.name},
                     {QStringLiteral("old"), w.powerCapW},
                     {QStringLiteral("new"), nw}},
                    ev,
                    {{QStringLiteral("windows"),
                      withWindowField(params, i, QStringLiteral("trainingPowerCapW"), nw)}});
            }
        }
    }

    void replicaRanges()
    {
        for (const Sim::ServiceDef &def : scenario.services) {
            if (!def.spec.inference)
                continue;
            const QString name = serviceName(def);
            const int mn = def.spec.inference->minReplicas, mx = def.spec.inference->maxReplicas;
            int atMax = 0, seen = 0;
            double misses = 0, requests = 0;
            for (const DayData &d : days) {
                bool dayMiss = false;
                for (int h = 0; h < 24; ++h) {
                    misses += d.hours[h].misses.value(name);
                    requests += d.hours[h].requests.value(name);
                    dayMiss = dayMiss
                              || d.hours[h].misses.value(name)
                                         > kMissShare * d.hours[h].requests.value(name);
                }
                for (const Sim::ServiceReport &s : d.baseline.services) {
                    if (s.name != name)
                        continue;
                    seen = std::max(seen, s.maxReplicas);
                    if (s.maxReplicas >= mx && dayMiss)
                        ++atMax;
                }
            }
            const QJsonObject ev{{QStringLiteral("days"), atMax},
                                 {QStringLiteral("of"), int(days.size())},
                                 {QStringLiteral("service"), name},
                                 {QStringLiteral("maxReplicasSeen"), seen},
                                 {QStringLiteral("sloMisses"), std::round(misses)},
                                 {QStringLiteral("requests"), std::round(requests)}};
            auto range = [&](int nmin, int nmax) {
                return QJsonObject{{QStringLiteral("service"), name},
                                   {QStringLiteral("minReplicas"), nmin},
                                   {QStringLiteral("maxReplicas"), nmax}};
            };
            auto params = [&](int nmin, int nmax) {
                return QJsonObject{{QStringLiteral("service"), name},
                                   {QStringLiteral("oldMin"), mn},
                                   {QStringLiteral("newMin"), nmin},
                                   {QStringLiteral("oldMax"), mx},
                                   {QStringLiteral("newMax"), nmax}};
            };
            if (atMax > 0) {
                for (int k : {1, 2})
                    add(SuggestionKind::ReplicaRange,
                        Figure::SloMisses,
                        QStringLiteral("replica-range:%1:max").arg(name),
                        k,
                        params(mn, mx + k),
                        ev,
                        range(mn, mx + k));
            }
            if (mn > 1 && idleWaitCardH() > 0.5 * days.size()) {
                QJsonObject e = ev;
                e.insert(QStringLiteral("days"), int(days.size()));
                e.insert(QStringLiteral("idleWaitCardH"), std::round(idleWaitCardH() * 10) / 10);
                add(SuggestionKind::ReplicaRange,
                    Figure::TrainingWork,
                    QStringLiteral("replica-range:%1:min").arg(name),
                    1,
                    params(mn - 1, mx),
                    e,
                    range(mn - 1, mx));
            }
        }
    }

    // The night (the window that leaves inference the least): cards in whole mode from its
    // opening, for training's gangs, when the store shows the appliance repartitioning in its
    // first hours (the gangs waiting for whole cards the day's layout had cut up).
    void nightLayout(const QList<Window> &ws)
    {
        int night = -1;
        for (int i = 0; i < ws.size(); ++i)
            if (ws[i].from != ws[i].to && (night < 0 || ws[i].share < ws[night].share))
                night = i;
        if (night < 0)
            return;
        const Window &w = ws[night];
        const int fH = w.from / 60;
        int with = 0, churn = 0;
        for (const DayData &d : days) {
            int n = 0;
            for (int h = fH; h < fH + 2; ++h)
                n += d.hours[h % 24].reconfigurations;
            churn += n;
            with += n > 0 ? 1 : 0;
        }
        double starting = 0;
        for (const DayData &d : days)
            starting += d.baseline.capacity.idleReconfiguring + d.baseline.capacity.trainingStarting
                        + d.baseline.capacity.trainingSlowdownGang;
        if (with == 0)
            return;
        // The MIG cards, the last first (inference's replicas are placed from the first).
        QList<int> mig;
        const QList<Sched::CardState> &cards = scenario.appliance.state.cards();
        for (int c = int(cards.size()) - 1; c >= 0; --c)
            if (cards[c].mode == Domain::PartitionMode::Mig)
                mig.append(c);
        // Never more than the night's training share of the cards.
        const int most = int(std::floor((1 - w.share) * double(cards.size())));
        const QJsonObject ev{{QStringLiteral("days"), with},
                             {QStringLiteral("of"), int(days.size())},
                             {QStringLiteral("fromHour"), fH},
                             {QStringLiteral("toHour"), (fH + 2) % 24},
                             {QStringLiteral("reconfigurations"), churn},
                             {QStringLiteral("startingCardH"), std::round(starting * 100) / 100}};
        for (int k : {1, 2, 4}) {
            if (k > mig.size() || k > most)
                break;
            QJsonArray list, modes, profiles;
            for (int j = 0; j < k; ++j) {
                list.append(mig[j]);
                modes.append(QJsonObject{{QStringLiteral("card"), mig[j]},
                                         {QStringLiteral("mode"), QStringLiteral("whole")}});
                profiles.append(QStringLiteral("whole"));
            }
            add(SuggestionKind::NightLayout,
                Figure::TrainingWork,
                QStringLiteral("night-layout:%1").arg(w.name),
                k,
                {{QStringLiteral("window"), w.name},
                 {QStringLiteral("at"), hhmm(w.from)},
                 {QStringLiteral("cards"), list},
                 {QStringLiteral("profiles"), profiles}},
                ev,
                {{QStringLiteral("at"), hhmm(w.from)}, {QStringLiteral("cards"), modes}});
        }
    }

    void run()
    {
        const QJsonObject params
                = scenario.policyParams.value(QStringLiteral("windows")).toObject();
        if (policy == QLatin1String("windows") && !params.isEmpty()) {
            const QList<Window> ws = windowsOf(params);
            const double defaultShare
                    = params.value(QStringLiteral("defaultInferenceShare")).toDouble(0.5);
            windowEdges(params, ws, defaultShare);
            classBudgets(params, ws);
            powerCaps(params, ws);
            nightLayout(ws);
        } else {
            notes.append(QStringLiteral("the recorded days ran under \"%1\", not the windows "
                                        "schedule: window edges, class budgets and power caps are "
                                        "not suggested, nor the night's layout")
                                 .arg(policy));
        }
        replicaRanges();
    }
};

void applyChange(const QJsonObject &change, Sim::Scenario &sc)
{
    if (change.contains(QStringLiteral("windows")))
        sc.policyParams.insert(QStringLiteral("windows"), change.value(QStringLiteral("windows")));
    if (change.contains(QStringLiteral("service"))) {
        const QString name = change.value(QStringLiteral("service")).toString();
        for (Sim::ServiceDef &def : sc.services) {
            if (def.spec.inference && serviceName(def) == name) {
                def.spec.inference->minReplicas
                        = change.value(QStringLiteral("minReplicas")).toInt();
                def.spec.inference->maxReplicas
                        = change.value(QStringLiteral("maxReplicas")).toInt();
            }
        }
    }
}

// One replay with the candidate's change: a scenario change runs as is; cards set to a mode at
// a local time of day are set at each such time of the period (an operator's change at the
// window's opening; a card still busy then keeps its layout).
Sim::Report replayWith(const RecordedPeriod &period, const QJsonObject &change)
{
    Sim::Scenario sc = period.scenario;
    applyChange(change, sc);
    Sim::Engine engine(sc, period.basisPolicy, period.seed);
    const QJsonArray cards = change.value(QStringLiteral("cards")).toArray();
    const int at = minutesOf(change.value(QStringLiteral("at")).toString());
    if (cards.isEmpty() || at < 0)
        return engine.run();
    engine.start();
    const qint64 local = sc.startMs + sc.utcOffsetMs;
    qint64 t = local - ((local % kDayMs) + kDayMs) % kDayMs + at * kMinuteMs - sc.utcOffsetMs;
    for (; t < sc.startMs + sc.durationMs; t += kDayMs) {
        if (t < sc.startMs)
            continue;
        engine.advanceTo(t - sc.startMs);
        engine.operate([&](Sched::Scheduler &s, qint64 now) {
            for (const QJsonValue &v : cards) {
                const QJsonObject c = v.toObject();
                Domain::PartitionMode mode = Domain::PartitionMode::Whole;
                Domain::partitionModeFromString(c.value(QStringLiteral("mode")).toString(), &mode);
                s.setCardMode(Domain::CardId(c.value(QStringLiteral("card")).toInt()), mode, now);
            }
        });
    }
    return engine.finish();
}

// The margin a figure must move by, besides kMinImprovement.
double floorOf(Figure f)
{
    switch (f) {
    case Figure::Preemptions:
        return 1;
    case Figure::SloMisses:
        return 10;
    case Figure::LostWork:
    case Figure::TrainingWork:
    case Figure::Energy:
        return 0.1;
    }
    return 0;
}

} // namespace

// ---- public -----------------------------------------------------------------------------------

const char *toString(SuggestionKind kind)
{
    switch (kind) {
    case SuggestionKind::WindowEdge:
        return "window-edge";
    case SuggestionKind::ClassBudget:
        return "class-budget";
    case SuggestionKind::ReplicaRange:
        return "replica-range";
    case SuggestionKind::NightLayout:
        return "night-layout";
    case SuggestionKind::PowerCap:
        return "power-cap";
    }
    return "";
}

const char *toString(Figure figure)
{
    switch (figure) {
    case Figure::Preemptions:
        return "preemptions";
    case Figure::LostWork:
        return "lost-work";
    case Figure::SloMisses:
        return "slo-misses";
    case Figure::TrainingWork:
        return "training-work";
    case Figure::Energy:
        return "energy";
    }
    return "";
}

bool lowerIsBetter(Figure figure)
{
    return figure != Figure::TrainingWork;
}

double Figures::value(Figure f) const
{
    switch (f) {
    case Figure::Preemptions:
        return preemptions;
    case Figure::LostWork:
        return lostWorkH;
    case Figure::SloMisses:
        return sloMisses;
    case Figure::TrainingWork:
        return trainingWorkH;
    case Figure::Energy:
        return energyKwh;
    }
    return 0;
}

void Figures::add(const Figures &o)
{
    preemptions += o.preemptions;
    trainingWorkH += o.trainingWorkH;
    lostWorkH += o.lostWorkH;
    energyKwh += o.energyKwh;
    sloMisses += o.sloMisses;
    for (const ServiceFigures &s : o.services) {
        auto it = std::find_if(services.begin(), services.end(), [&](const ServiceFigures &x) {
            return x.name == s.name;
        });
        if (it == services.end()) {
            services.append(s);
            continue;
        }
        const double n = it->requests + s.requests;
        it->sloAttainment
                = n > 0 ? (it->sloAttainment * it->requests + s.sloAttainment * s.requests) / n : 1;
        it->requests = n;
    }
}

QJsonObject Figures::toJson() const
{
    QJsonObject svc;
    for (const ServiceFigures &s : services)
        svc.insert(s.name,
                   QJsonObject{{QStringLiteral("requests"), std::round(s.requests)},
                               {QStringLiteral("slo_attainment"), s.sloAttainment}});
    return QJsonObject{{QStringLiteral("preemptions"), preemptions},
                       {QStringLiteral("training_work_h"), trainingWorkH},
                       {QStringLiteral("lost_work_h"), lostWorkH},
                       {QStringLiteral("energy_kwh"), energyKwh},
                       {QStringLiteral("slo_misses"), std::round(sloMisses)},
                       {QStringLiteral("services"), svc}};
}

QJsonObject Proof::deltas() const
{
    QJsonObject pp;
    for (const ServiceFigures &b : baseline.services) {
        for (const ServiceFigures &c : candidate.services)
            if (c.name == b.name)
                pp.insert(b.name, (c.sloAttainment - b.sloAttainment) * 100);
    }
    return QJsonObject{
            {QStringLiteral("preemptions"), candidate.preemptions - baseline.preemptions},
            {QStringLiteral("training_work_h"), candidate.trainingWorkH - baseline.trainingWorkH},
            {QStringLiteral("lost_work_h"), candidate.lostWorkH - baseline.lostWorkH},
            {QStringLiteral("energy_kwh"), candidate.energyKwh - baseline.energyKwh},
            {QStringLiteral("slo_misses"), std::round(candidate.sloMisses - baseline.sloMisses)},
            {QStringLiteral("figure_change"), figureChange},
            {QStringLiteral("slo_attainment_pp"), pp},
    };
}

QJsonObject Suggestion::toJson() const
{
    QJsonArray days;
    for (const DayProof &d : proof.days)
        days.append(QJsonObject{{QStringLiteral("day"), d.day},
                                {QStringLiteral("baseline"), d.baseline.toJson()},
                                {QStringLiteral("candidate"), d.candidate.toJson()}});
    QJsonObject o{{QStringLiteral("kind"), QString::fromLatin1(toString(kind))},
                  {QStringLiteral("figure"), QString::fromLatin1(toString(figure))},
                  {QStringLiteral("params"), params},
                  {QStringLiteral("evidence"), evidence},
                  {QStringLiteral("change"), change},
                  {QStringLiteral("proof"),
                   QJsonObject{{QStringLiteral("days"), days},
                               {QStringLiteral("baseline"), proof.baseline.toJson()},
                               {QStringLiteral("candidate"), proof.candidate.toJson()},
                               {QStringLiteral("deltas"), proof.deltas()}}}};
    if (!rejected.isEmpty())
        o.insert(QStringLiteral("rejected"), rejected);
    return o;
}

QJsonObject Advice::toJson() const
{
    QJsonArray s, r, d;
    for (const Suggestion &x : suggestions)
        s.append(x.toJson());
    for (const Suggestion &x : rejected)
        r.append(QJsonObject{{QStringLiteral("kind"), QString::fromLatin1(toString(x.kind))},
                             {QStringLiteral("figure"), QString::fromLatin1(toString(x.figure))},
                             {QStringLiteral("params"), x.params},
                             {QStringLiteral("rejected"), x.rejected},
                             {QStringLiteral("deltas"), x.proof.deltas()}});
    for (const RecordedDay &x : days)
        d.append(QJsonObject{
                {QStringLiteral("day"), x.day},
                {QStringLiteral("from"),
                 QDateTime::fromMSecsSinceEpoch(x.fromMs, Qt::UTC).toString(Qt::ISODate)},
                {QStringLiteral("to"),
                 QDateTime::fromMSecsSinceEpoch(x.toMs, Qt::UTC).toString(Qt::ISODate)},
                {QStringLiteral("policy"), x.policy},
                {QStringLiteral("partial"), x.partial}});
    return QJsonObject{{QStringLiteral("suggestions"), s},
                       {QStringLiteral("rejected"), r},
                       {QStringLiteral("notes"), QJsonArray::fromStringList(notes)},
                       {QStringLiteral("days"), d},
                       {QStringLiteral("candidates"), candidates},
                       {QStringLiteral("replays"), replays},
                       {QStringLiteral("seconds"), seconds}};
}

std::optional<Advice> advise(Storage::Reader &reader,
                             const Catalogue::Catalogue &catalogue,
                             const AdviseOptions &options,
                             QString *error)
{
    QElapsedTimer wall;
    wall.start();
    auto fail = [&](const QString &why) {
        if (error)
            *error = why;
        return std::nullopt;
    };
    Advice advice;
    QString err;
    // The recorded runs and the store's extent.
    EventFilter bf;
    bf.codes = {QByteArrayLiteral("run-basis")};
    const QList<Event> bases = reader.events(bf, &err);
    if (!err.isEmpty())
        return fail(QStringLiteral("cannot read %1: %2").arg(reader.path(), err));
    if (bases.isEmpty())
        return fail(QStringLiteral("%1 holds no recorded run (advice replays the days a recording "
                                   "wrote: zhaoxictl simulate --db, the console's store, zhaoxid "
                                   "--scenario)")
                            .arg(reader.path()));
    const QList<Storage::LatestMetric> latest = reader.latestMetrics(&err);
    if (!err.isEmpty())
        return fail(QStringLiteral("cannot read %1: %2").arg(reader.path(), err));
    qint64 endMs = bases.last().atMs;
    for (const Storage::LatestMetric &l : latest)
        endMs = std::max(endMs, l.point.atMs);
    const QJsonObject lastScenario
            = eventParams(bases.last()).value(QStringLiteral("scenario")).toObject();
    QDateTime start = QDateTime::fromString(lastScenario.value(QStringLiteral("start")).toString(),
                                            Qt::ISODate);
    const qint64 offsetMs = start.isValid() ? qint64(start.offsetFromUtc()) * 1000 : 8 * kHourMs;
    const qint64 firstMs = bases.first().atMs;
    if (endMs - firstMs < kMinDayMs)
        return fail(QStringLiteral("%1 holds less than %2 h of recording")
                            .arg(reader.path())
                            .arg(kMinDayMs / kHourMs));

    // Job kinds (inference replicas or training) and gang sizes, from their submissions.
    QHash<int, JobInfo> jobs;
    {
        EventFilter f;
        f.codes = {QByteArrayLiteral("job-submitted")};
        f.fromMs = firstMs;
        reader.forEachEvent(
                f,
                [&](const Event &e) {
                    const QJsonObject spec
                            = eventParams(e).value(QStringLiteral("spec")).toObject();
                    JobInfo info;
                    info.inference = spec.value(QStringLiteral("kind")).toString()
                                             == QLatin1String("inference")
                                     || spec.contains(QStringLiteral("inference"))
                                     || spec.isEmpty();
                    info.cards = std::max(1,
                                          spec.value(QStringLiteral("demand"))
                                                  .toObject()
                                                  .value(QStringLiteral("cards"))
                                                  .toInt(1));
                    jobs.insert(e.job, info);
                    return true;
                },
                &err);
    }

    // The days: local midnight to midnight, the newest `days` of them.
    auto midnightOf = [&](qint64 ms) {
        const qint64 local = ms + offsetMs;
        return local - ((local % kDayMs) + kDayMs) % kDayMs - offsetMs;
    };
    QList<DayData> days;
    for (qint64 m = midnightOf(endMs - 1); m + kDayMs > firstMs && days.size() < options.days;
         m -= kDayMs) {
        DayData d;
        d.midnightMs = m;
        d.day.fromMs = std::max(m, firstMs);
        d.day.toMs = std::min(m + kDayMs, endMs);
        d.day.partial = d.day.fromMs != m || d.day.toMs != m + kDayMs;
        d.day.day = localDate(m, offsetMs);
        if (d.day.toMs - d.day.fromMs < kMinDayMs) {
            advice.notes.append(QStringLiteral("%1: only %2 min recorded: left out")
                                        .arg(d.day.day)
                                        .arg((d.day.toMs - d.day.fromMs) / kMinuteMs));
            continue;
        }
        QString perr;
        std::optional<RecordedPeriod> p
                = readRecordedPeriod(reader, d.day.fromMs, d.day.toMs, catalogue, &perr);
        if (!p) {
            advice.notes.append(QStringLiteral("%1: not replayable: %2").arg(d.day.day, perr));
            continue;
        }
        d.period = std::move(*p);
        d.day.fromMs = d.period.fromMs;
        d.day.policy = d.period.basisPolicy;
        if (!Policy::policyNames().contains(d.day.policy)) {
            advice.notes.append(QStringLiteral("%1: ran under \"%2\", which the twin does not "
                                               "replay: left out")
                                        .arg(d.day.day, d.day.policy));
            continue;
        }
        readEvidence(reader, jobs, latest, d);
        days.prepend(std::move(d));
    }
    if (days.isEmpty())
        return fail(QStringLiteral("%1 holds no recorded day that can be replayed%2")
                            .arg(reader.path(),
                                 advice.notes.isEmpty()
                                         ? QString()
                                         : QStringLiteral(" (")
                                                   + advice.notes.join(QStringLiteral("; "))
                                                   + QLatin1Char(')')));
    for (const DayData &d : std::as_const(days))
        advice.days.append(d.day);
    // Days under another policy or basis than the newest are replayed under theirs; the
    // candidates come from the newest day's scenario.
    const Sim::Scenario &newest = days.last().period.scenario;
    const QString policy = days.last().period.basisPolicy;
    for (const DayData &d : std::as_const(days)) {
        if (d.period.basisPolicy != policy) {
            advice.notes.append(QStringLiteral("%1 ran under \"%2\", the newest day under \"%3\": "
                                               "its replays use its own")
                                        .arg(d.day.day, d.period.basisPolicy, policy));
        }
    }

    QThreadPool pool;
    pool.setMaxThreadCount(options.threads > 0 ? options.threads : QThread::idealThreadCount());
    // Baselines first: the evidence of some kinds reads them.
    for (DayData &d : days) {
        DayData *dp = &d;
        pool.start(QRunnable::create([dp] {
            dp->baseline = replay(dp->period, dp->period.basisPolicy);
            dp->hasBaseline = true;
        }));
    }
    pool.waitForDone();
    advice.replays += int(days.size());

    Generator gen{days, newest, policy, advice.notes, {}};
    gen.run();
    QList<Candidate> cands = gen.out;
    advice.candidates = int(cands.size());

    // Every candidate on every day.
    // Plain vectors: each replay writes its own element while the others run.
    std::vector<std::vector<Sim::Report>> results(
            std::size_t(cands.size()), std::vector<Sim::Report>(std::size_t(days.size())));
    for (qsizetype c = 0; c < cands.size(); ++c) {
        for (qsizetype k = 0; k < days.size(); ++k) {
            const RecordedPeriod *period = &days[k].period;
            const QJsonObject change = cands[c].s.change;
            Sim::Report *out = &results[std::size_t(c)][std::size_t(k)];
            pool.start(QRunnable::create(
                    [period, change, out] { *out = replayWith(*period, change); }));
        }
    }
    pool.waitForDone();
    advice.replays += int(cands.size() * days.size());

    // Proofs and the verdicts.
    QList<Candidate> kept;
    for (qsizetype c = 0; c < cands.size(); ++c) {
        Suggestion &s = cands[c].s;
        for (qsizetype k = 0; k < days.size(); ++k) {
            DayProof dp;
            dp.day = days[k].day.day;
            dp.fromMs = days[k].day.fromMs;
            dp.toMs = days[k].day.toMs;
            dp.baseline = figuresOf(days[k].baseline);
            dp.candidate = figuresOf(results[std::size_t(c)][std::size_t(k)]);
            s.proof.baseline.add(dp.baseline);
            s.proof.candidate.add(dp.candidate);
            s.proof.days.append(dp);
        }
        const double b = s.proof.baseline.value(s.figure);
        const double v = s.proof.candidate.value(s.figure);
        s.proof.figureDelta = v - b;
        s.proof.figureChange = b != 0 ? (v - b) / std::abs(b) : 0;
        const double gain = lowerIsBetter(s.figure) ? b - v : v - b;
        const bool improves
                = gain >= floorOf(s.figure) && b != 0 && gain / std::abs(b) >= kMinImprovement;
        bool sloOk = true;
        for (const ServiceFigures &bs : std::as_const(s.proof.baseline.services)) {
            for (const ServiceFigures &cs : std::as_const(s.proof.candidate.services))
                if (cs.name == bs.name && cs.sloAttainment < bs.sloAttainment - kMaxSloDrop)
                    sloOk = false;
        }
        const bool trainingOk
                = s.figure == Figure::TrainingWork
                  || s.proof.candidate.trainingWorkH
                             >= s.proof.baseline.trainingWorkH * (1 - kMaxTrainingCost) - 1e-9;
        s.score = b != 0 ? gain / std::abs(b) : 0;
        if (!improves)
            s.rejected = QStringLiteral("no-improvement");
        else if (!sloOk)
            s.rejected = QStringLiteral("slo-worse");
        else if (!trainingOk)
            s.rejected = QStringLiteral("training-cost");
        if (s.rejected.isEmpty())
            kept.append(cands[c]);
        else
            advice.rejected.append(s);
    }
    // One per target: the best, or a smaller change that gets 90 % of it.
    QHash<QString, int> best;
    for (int i = 0; i < kept.size(); ++i) {
        const auto it = best.constFind(kept[i].target);
        if (it == best.cend()) {
            best.insert(kept[i].target, i);
            continue;
        }
        const Candidate &cur = kept[*it];
        const Candidate &c = kept[i];
        const bool better = c.size < cur.size ? c.s.score >= 0.9 * cur.s.score
                                              : c.s.score * 0.9 > cur.s.score;
        if (better)
            best[kept[i].target] = i;
    }
    QList<Suggestion> shown;
    for (int i = 0; i < kept.size(); ++i) {
        if (best.value(kept[i].target) == i)
            shown.append(kept[i].s);
        else {
            Suggestion s = kept[i].s;
            s.rejected = QStringLiteral("superseded");
            advice.rejected.append(s);
        }
    }
    std::stable_sort(shown.begin(), shown.end(), [](const Suggestion &a, const Suggestion &b) {
        return a.score > b.score;
    });
    while (shown.size() > std::max(0, options.maxSuggestions)) {
        Suggestion s = shown.takeLast();
        s.rejected = QStringLiteral("beyond-limit");
        advice.rejected.append(s);
    }
    advice.suggestions = shown;
    advice.seconds = double(wall.nsecsElapsed()) / 1e9;
    return advice;
}

} // namespace Zhaoxi::Replay
