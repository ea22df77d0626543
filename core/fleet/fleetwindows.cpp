// SPDX-License-Identifier: GPL-3.0-or-later
#include "fleetwindows.h"

#include <QProcess>
#include <QSet>
#include <QTimeZone>

#include <algorithm>
#include <cmath>
#include <vector>

namespace Zhaoxi::Fleet {

namespace {

constexpr qint64 kDayMs = 24 * 3600'000LL;
constexpr qint64 kDayS = 24 * 3600;
// Slurm keeps reservation times in seconds but people and scontrol think in minutes: a start or
// end within a minute of the plan is the plan.
constexpr qint64 kToleranceS = 60;
// How far in the past Slurm 22.05 still accepts a reservation's StartTime (measured: 590 s is
// taken, 610 s refused with "Invalid time specified").
constexpr qint64 kPastStartS = 600;

const QStringList &dayKeys()
{
    static const QStringList keys = {QStringLiteral("mon"),
                                     QStringLiteral("tue"),
                                     QStringLiteral("wed"),
                                     QStringLiteral("thu"),
                                     QStringLiteral("fri"),
                                     QStringLiteral("sat"),
                                     QStringLiteral("sun")};
    return keys;
}

const QStringList &repeatFlags()
{
    static const QStringList flags = {QStringLiteral("DAILY"),
                                      QStringLiteral("WEEKDAY"),
                                      QStringLiteral("WEEKEND"),
                                      QStringLiteral("WEEKLY")};
    return flags;
}

// Flags scontrol accepts back when a deleted reservation is created again (Slurm adds others of
// its own, such as SPEC_NODES, which it refuses as input).
const QStringList &settableFlags()
{
    static const QStringList flags = {QStringLiteral("DAILY"),
                                      QStringLiteral("WEEKDAY"),
                                      QStringLiteral("WEEKEND"),
                                      QStringLiteral("WEEKLY"),
                                      QStringLiteral("IGNORE_JOBS"),
                                      QStringLiteral("OVERLAP"),
                                      QStringLiteral("MAINT"),
                                      QStringLiteral("MAGNETIC"),
                                      QStringLiteral("FLEX"),
                                      QStringLiteral("PURGE_COMP")};
    return flags;
}

QString repeatOf(const QStringList &flags)
{
    for (const QString &f : flags) {
        if (repeatFlags().contains(f))
            return f;
    }
    return QString();
}

qint64 periodOf(const QString &repeat)
{
    return repeat == QLatin1String("WEEKLY") ? 7 * kDayS : kDayS;
}

qint64 mod(qint64 a, qint64 b)
{
    const qint64 r = a % b;
    return r < 0 ? r + b : r;
}

bool near(qint64 a, qint64 b)
{
    return std::llabs(a - b) <= kToleranceS;
}

// Distance of two instants modulo a period, in [0, period/2].
qint64 phaseDistance(qint64 a, qint64 b, qint64 period)
{
    const qint64 d = mod(a - b, period);
    return std::min(d, period - d);
}

struct Candidate
{
    QString name;
    int cards = 0;
};

// The subset of `c` (in that order of preference) whose cards are the largest sum <= `target`
// (atMost) or the smallest sum >= `target` (otherwise); earlier candidates are taken first among
// subsets with the same sum. Empty when no subset qualifies.
QList<Candidate> pickNodes(const QList<Candidate> &c, int target, bool atMost)
{
    int total = 0;
    for (const Candidate &x : c)
        total += x.cards;
    if (atMost && target <= 0)
        return {};
    if (!atMost && target > total)
        return {};
    // reach[i][s]: the candidates i.. can make exactly s cards.
    const int n = int(c.size());
    std::vector<std::vector<bool>> reach(size_t(n) + 1, std::vector<bool>(size_t(total) + 1));
    reach[size_t(n)][0] = true;
    for (int i = n - 1; i >= 0; --i) {
        for (int s = 0; s <= total; ++s) {
            reach[size_t(i)][size_t(s)]
                    = reach[size_t(i) + 1][size_t(s)]
                      || (s >= c[i].cards && reach[size_t(i) + 1][size_t(s - c[i].cards)]);
        }
    }
    int sum = -1;
    if (atMost) {
        for (int s = std::min(target, total); s > 0 && sum < 0; --s) {
            if (reach[0][size_t(s)])
                sum = s;
        }
    } else {
        for (int s = std::max(target, 0); s <= total && sum < 0; ++s) {
            if (reach[0][size_t(s)])
                sum = s;
        }
    }
    if (sum <= 0)
        return {};
    QList<Candidate> out;
    for (int i = 0; i < n && sum > 0; ++i) {
        if (c[i].cards <= sum && reach[size_t(i) + 1][size_t(sum - c[i].cards)]) {
            out.append(c[i]);
            sum -= c[i].cards;
        }
    }
    return out;
}

int lowestBit(quint8 mask)
{
    int i = 0;
    while (i < 7 && !(mask >> i & 1))
        ++i;
    return i;
}

// Monday-first day bit of a date.
int dayBit(const QDate &d)
{
    return d.dayOfWeek() - 1;
}

// The window's days moved one day back (a start that the lead pulls before midnight).
quint8 daysBefore(quint8 days)
{
    return quint8(((days >> 1) | ((days & 1) << 6)) & 0x7f);
}

QDateTime atOffset(const QDateTime &now, const QDate &day, qint64 offsetMs)
{
    QDateTime t = now;
    t.setDate(day);
    t.setTime(QTime(0, 0));
    return t.addMSecs(offsetMs);
}

struct Occurrence
{
    QDateTime start;
    QDateTime end;
    bool inForce = false;
    QDateTime nextStart; // of the occurrence after an occurrence in force
};

// The occurrence of a (moved) window in force at `now`, else the next one.
std::optional<Occurrence> occurrenceAt(const QDateTime &now,
                                       qint64 offsetMs,
                                       qint64 lengthMs,
                                       quint8 days)
{
    for (int k = -2; k <= 8; ++k) {
        const QDate d = now.date().addDays(k);
        if (!(days >> dayBit(d) & 1))
            continue;
        Occurrence o;
        o.start = atOffset(now, d, offsetMs);
        o.end = o.start.addMSecs(lengthMs);
        if (o.end <= now)
            continue;
        o.inForce = o.start <= now;
        if (o.inForce) {
            for (int j = k + 1; j <= k + 8; ++j) {
                const QDate n = now.date().addDays(j);
                if (days >> dayBit(n) & 1) {
                    o.nextStart = atOffset(now, n, offsetMs);
                    break;
                }
            }
        }
        return o;
    }
    return std::nullopt;
}

// Whether a window's own interval covers a minute of the local week (Monday 00:00 = 0), as
// TimeWindows::windowAt reads one window.
bool covers(const ScheduleWindow &w, int weekMinute)
{
    const int day = weekMinute / 1440;
    const qint64 tod = qint64(weekMinute % 1440) * 60'000;
    int startDay = day;
    bool in = false;
    if (w.fromMs == w.toMs) {
        in = true;
    } else if (w.fromMs < w.toMs) {
        in = tod >= w.fromMs && tod < w.toMs;
    } else {
        in = tod >= w.fromMs || tod < w.toMs;
        if (tod < w.toMs)
            startDay = (day + 6) % 7;
    }
    return in && (w.days >> startDay & 1);
}

// The first minute of the week both windows cover, or -1.
int overlapMinute(const ScheduleWindow &a, const ScheduleWindow &b)
{
    for (int m = 0; m < 7 * 1440; ++m) {
        if (covers(a, m) && covers(b, m))
            return m;
    }
    return -1;
}

// Unix seconds as a time in the zone of `like`.
QDateTime sameZone(qint64 seconds, const QDateTime &like)
{
    if (like.timeSpec() == Qt::TimeZone)
        return QDateTime::fromSecsSinceEpoch(seconds, like.timeZone());
    return QDateTime::fromSecsSinceEpoch(seconds, like.timeSpec(), like.offsetFromUtc());
}

QString joinedNodes(const QStringList &nodes)
{
    return nodes.join(QLatin1Char(','));
}

QStringList sortedNodes(QStringList nodes)
{
    std::sort(nodes.begin(), nodes.end());
    return nodes;
}

// What differs between the plan and what Slurm has; empty when they match.
QString differences(const PlannedReservation &want, const FleetReservation &have, bool oneOff)
{
    QStringList diff;
    if (sortedNodes(have.nodes) != want.nodes)
        diff << QStringLiteral("nodes %1 -> %2")
                        .arg(joinedNodes(sortedNodes(have.nodes)), joinedNodes(want.nodes));
    if (have.partition != want.partition)
        diff << QStringLiteral("partition %1 -> %2").arg(have.partition, want.partition);
    if (have.users != want.users)
        diff << QStringLiteral("users %1 -> %2").arg(have.users, want.users);
    const QString repeat = repeatOf(want.flags);
    if (repeatOf(have.flags) != repeat || !have.flags.contains(QLatin1String("IGNORE_JOBS")))
        diff << QStringLiteral("flags %1 -> %2")
                        .arg(have.flags.join(QLatin1Char(',')), want.flags.join(QLatin1Char(',')));
    const qint64 wantStart = want.start.toSecsSinceEpoch();
    if (oneOff) {
        if (!near(have.endTime, wantStart + want.durationS))
            diff << QStringLiteral("end %1 -> %2")
                            .arg(slurmTime(QDateTime::fromSecsSinceEpoch(have.endTime)),
                                 slurmTime(want.start.addSecs(want.durationS)));
    } else {
        if (!near(have.endTime - have.startTime, want.durationS))
            diff << QStringLiteral("duration %1 -> %2")
                            .arg(slurmDuration(have.endTime - have.startTime),
                                 slurmDuration(want.durationS));
        if (phaseDistance(have.startTime, wantStart, periodOf(repeat)) > kToleranceS)
            diff << QStringLiteral("start %1 -> %2")
                            .arg(slurmTime(QDateTime::fromSecsSinceEpoch(have.startTime)),
                                 slurmTime(want.start));
    }
    return diff.join(QStringLiteral("; "));
}

} // namespace

const char *toString(ReservationAction action)
{
    switch (action) {
    case ReservationAction::Create:
        return "create";
    case ReservationAction::Update:
        return "update";
    case ReservationAction::Delete:
        return "delete";
    case ReservationAction::Keep:
        return "keep";
    }
    return "?";
}

bool WindowsPlan::changes() const
{
    return std::any_of(reservations.cbegin(), reservations.cend(), [](const PlannedReservation &r) {
        return r.action != ReservationAction::Keep;
    });
}

QString slurmTime(const QDateTime &t)
{
    return t.toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss"));
}

QString slurmDuration(qint64 seconds)
{
    const qint64 days = seconds / kDayS;
    const qint64 rest = seconds % kDayS;
    const QString hms = QStringLiteral("%1:%2:%3")
                                .arg(rest / 3600, 2, 10, QLatin1Char('0'))
                                .arg(rest / 60 % 60, 2, 10, QLatin1Char('0'))
                                .arg(rest % 60, 2, 10, QLatin1Char('0'));
    return days > 0 ? QStringLiteral("%1-%2").arg(days).arg(hms) : hms;
}

WindowsPlan planWindows(const QList<ScheduleWindow> &windows,
                        const FleetState &fleet,
                        const QDateTime &now,
                        const WindowsPlanOptions &options)
{
    WindowsPlan plan;
    plan.nowS = now.toSecsSinceEpoch();
    // The cards of every node Zhaoxi could map; the shares are of these.
    QHash<QString, int> cardsOf;
    for (int i = 0; i < fleet.nodes.size() && i < fleet.snapshot.nodes.size(); ++i) {
        if (fleet.nodes[i].problem.isEmpty()) {
            cardsOf.insert(fleet.snapshot.nodes[i].name, int(fleet.nodes[i].cards.size()));
            plan.fleetCards += int(fleet.nodes[i].cards.size());
        }
    }
    if (plan.fleetCards == 0) {
        plan.error = QStringLiteral("the fleet has no node whose cards Zhaoxi could map");
        return plan;
    }
    if (options.users.isEmpty()) {
        plan.error = QStringLiteral("no user for the reservations' Users=");
        return plan;
    }
    const auto candidatesIn = [&](const QString &partition) {
        QList<Candidate> c;
        for (const FleetNode &n : fleet.snapshot.nodes) {
            const int cards = cardsOf.value(n.name, 0);
            if (cards > 0 && n.partitions.contains(partition))
                c.append({n.name, cards});
        }
        std::sort(c.begin(), c.end(), [](const Candidate &a, const Candidate &b) {
            return a.cards != b.cards ? a.cards > b.cards : a.name < b.name;
        });
        return c;
    };
    const auto hasPartition = [&](const QString &name) {
        return std::any_of(fleet.snapshot.partitions.cbegin(),
                           fleet.snapshot.partitions.cend(),
                           [&](const FleetPartition &p) { return p.name == name; });
    };

    QList<PlannedReservation> wanted;
    QSet<QString> names;
    QHash<QString, QStringList> nodesOfWindow;
    for (const ScheduleWindow &w : windows) {
        const bool training = w.inferenceShare < 0.5;
        const QString partition = training ? options.trainingPartition : options.inferencePartition;
        if (!hasPartition(partition)) {
            plan.error = QStringLiteral("window %1: the cluster has no partition %2")
                                 .arg(w.name, partition);
            return plan;
        }
        const double share = training ? 1 - w.inferenceShare : w.inferenceShare;
        const double exact = share * plan.fleetCards;
        // Training may not take what inference's share needs; inference gets at least its share.
        const int target = training ? int(std::floor(exact + 1e-9)) : int(std::ceil(exact - 1e-9));
        const QList<Candidate> candidates = candidatesIn(partition);
        QList<Candidate> picked = pickNodes(candidates, target, training);
        if (picked.isEmpty() && !training && !candidates.isEmpty()) {
            picked = candidates;
            plan.warnings << QStringLiteral("window %1: the nodes of partition %2 have fewer "
                                            "cards than inference's share %3 of %4: all of "
                                            "them are reserved")
                                     .arg(w.name, partition)
                                     .arg(w.inferenceShare)
                                     .arg(plan.fleetCards);
        }
        if (picked.isEmpty()) {
            plan.warnings << QStringLiteral("window %1: %2's share %3 of %4 cards is smaller than "
                                            "any node of partition %5: no reservation")
                                     .arg(w.name,
                                          training ? QStringLiteral("training")
                                                   : QStringLiteral("inference"))
                                     .arg(share)
                                     .arg(plan.fleetCards)
                                     .arg(partition);
            continue;
        }
        QStringList nodes;
        int cards = 0;
        for (const Candidate &c : std::as_const(picked)) {
            nodes << c.name;
            cards += c.cards;
        }
        nodes = sortedNodes(nodes);
        // The policy lets the first window that matches win; Slurm refuses two reservations of
        // the same nodes at the same time. Overlapping windows must reserve different nodes.
        for (const ScheduleWindow &o : windows) {
            if (o.name == w.name)
                break;
            const QStringList other = nodesOfWindow.value(o.name);
            const bool shared = std::any_of(nodes.cbegin(), nodes.cend(), [&](const QString &n) {
                return other.contains(n);
            });
            const int m = shared ? overlapMinute(o, w) : -1;
            if (m >= 0) {
                plan.error = QStringLiteral("windows %1 and %2 overlap (%3 %4:%5) and would "
                                            "reserve the same nodes; Slurm refuses overlapping "
                                            "reservations of a node")
                                     .arg(o.name, w.name, dayKeys()[m / 1440])
                                     .arg(m % 1440 / 60, 2, 10, QLatin1Char('0'))
                                     .arg(m % 60, 2, 10, QLatin1Char('0'));
                return plan;
            }
        }
        nodesOfWindow.insert(w.name, nodes);

        const qint64 lengthMs = w.fromMs == w.toMs ? kDayMs : (w.toMs - w.fromMs + kDayMs) % kDayMs;
        qint64 offsetMs = w.fromMs - options.leadMs;
        quint8 days = w.days & 0x7f;
        if (offsetMs < 0) {
            offsetMs += kDayMs;
            days = daysBefore(days);
        }
        // One reservation per repeat pattern Slurm has; WEEKLY ones per day otherwise.
        QList<QPair<QString, quint8>> repeats; // (flag, days)
        if (days == 0x7f)
            repeats.append({QStringLiteral("DAILY"), days});
        else if (days == 0x1f)
            repeats.append({QStringLiteral("WEEKDAY"), days});
        else if (days == 0x60)
            repeats.append({QStringLiteral("WEEKEND"), days});
        else {
            for (int d = 0; d < 7; ++d) {
                if (days >> d & 1)
                    repeats.append({QStringLiteral("WEEKLY"), quint8(1u << d)});
            }
        }
        for (const auto &[flag, mask] : std::as_const(repeats)) {
            PlannedReservation r;
            r.name = QStringLiteral("zhaoxi-") + w.name;
            if (flag == QLatin1String("WEEKLY"))
                r.name += QLatin1Char('-') + dayKeys()[lowestBit(mask)];
            r.window = w.name;
            r.nodes = nodes;
            r.cards = cards;
            r.durationS = lengthMs / 1000;
            r.flags = {flag, QStringLiteral("IGNORE_JOBS")};
            r.partition = partition;
            r.users = options.users;
            const std::optional<Occurrence> o = occurrenceAt(now, offsetMs, lengthMs, mask);
            if (!o)
                continue; // cannot happen for a non-empty mask
            if (names.contains(r.name)) {
                plan.error = QStringLiteral("two windows are named %1: reservation names must be "
                                            "unique")
                                     .arg(w.name);
                return plan;
            }
            names.insert(r.name);
            if (o->inForce) {
                // Slurm refuses a start far in the past: the rest of this occurrence is a
                // one-off, the repeat begins with the next occurrence.
                PlannedReservation rest = r;
                rest.name += QStringLiteral("-now");
                rest.flags = {QStringLiteral("IGNORE_JOBS")};
                rest.start = now.addMSecs(-(now.time().msec()));
                rest.durationS = rest.start.secsTo(o->end);
                r.start = o->nextStart;
                wanted.append(r);
                wanted.append(rest);
                names.insert(rest.name);
            } else {
                r.start = o->start;
                wanted.append(r);
            }
        }
    }

    // Against what Slurm has.
    QHash<QString, FleetReservation> existing;
    for (const FleetReservation &r : fleet.snapshot.reservations) {
        if (r.name.startsWith(QLatin1String("zhaoxi-")))
            existing.insert(r.name, r);
    }
    const qint64 nowS = now.toSecsSinceEpoch();
    QList<PlannedReservation> deletes, updates, creates, keeps;
    QSet<QString> activeKept; // repeating reservations kept that cover now
    for (PlannedReservation &r : wanted) {
        const bool oneOff = r.name.endsWith(QLatin1String("-now")) && r.flags.size() == 1;
        if (oneOff)
            continue;
        const auto it = existing.constFind(r.name);
        if (it == existing.cend())
            continue;
        r.existing = *it;
        r.why = differences(r, *it, false);
        r.action = r.why.isEmpty() ? ReservationAction::Keep : ReservationAction::Update;
        if (r.action == ReservationAction::Keep && it->startTime <= nowS && nowS < it->endTime)
            activeKept.insert(r.name + QStringLiteral("-now"));
    }
    for (PlannedReservation &r : wanted) {
        if (activeKept.contains(r.name))
            continue; // the repeating one already covers the occurrence in force
        const auto it = existing.constFind(r.name);
        if (r.name.endsWith(QLatin1String("-now")) && r.flags.size() == 1
            && it != existing.cend()) {
            r.existing = *it;
            r.why = differences(r, *it, true);
            r.action = r.why.isEmpty() ? ReservationAction::Keep : ReservationAction::Update;
            if (r.action == ReservationAction::Keep) {
                r.start = sameZone(it->startTime, now);
                r.durationS = it->endTime - it->startTime;
            }
        }
        existing.remove(r.name);
        switch (r.action) {
        case ReservationAction::Keep:
            keeps.append(r);
            break;
        case ReservationAction::Update:
            updates.append(r);
            break;
        default:
            creates.append(r);
            break;
        }
    }
    QStringList gone = existing.keys();
    std::sort(gone.begin(), gone.end());
    for (const QString &name : std::as_const(gone)) {
        const FleetReservation &have = existing[name];
        PlannedReservation r;
        r.name = name;
        r.action = ReservationAction::Delete;
        r.nodes = sortedNodes(have.nodes);
        r.start = sameZone(have.startTime, now);
        r.durationS = have.endTime - have.startTime;
        r.flags = have.flags;
        r.partition = have.partition;
        r.users = have.users;
        for (const QString &n : std::as_const(r.nodes))
            r.cards += cardsOf.value(n, 0);
        r.why = QStringLiteral("no window of the schedule wants it");
        r.existing = have;
        deletes.append(r);
    }
    plan.reservations = deletes + updates + creates + keeps;
    return plan;
}

QStringList scontrolArgs(const PlannedReservation &r)
{
    const QString name = QStringLiteral("ReservationName=") + r.name;
    const bool oneOff = repeatOf(r.flags).isEmpty();
    // A one-off ends when the occurrence in force ends; a repeating one lasts the window.
    const QStringList when
            = oneOff ? QStringList{QStringLiteral("StartTime=now"),
                                   QStringLiteral("EndTime=")
                                           + slurmTime(r.start.addSecs(r.durationS))}
                     : QStringList{QStringLiteral("StartTime=") + slurmTime(r.start),
                                   QStringLiteral("Duration=") + slurmDuration(r.durationS)};
    const QStringList what = {QStringLiteral("Nodes=") + joinedNodes(r.nodes),
                              QStringLiteral("PartitionName=") + r.partition,
                              QStringLiteral("Users=") + r.users};
    switch (r.action) {
    case ReservationAction::Create:
        return QStringList{QStringLiteral("create"), QStringLiteral("reservation"), name} + when
               + what + QStringList{QStringLiteral("Flags=") + r.flags.join(QLatin1Char(','))};
    case ReservationAction::Update:
        // scontrol cannot swap a repeat flag for another in one update: those are deleted and
        // created again (carried out as two steps by applyWindowsPlan).
        return QStringList{QStringLiteral("update"), name} + when + what;
    case ReservationAction::Delete:
        return {QStringLiteral("delete"), name};
    case ReservationAction::Keep:
        break;
    }
    return {};
}

namespace {

// A reservation as Slurm had it, as a Create (to undo a delete) or an Update (to undo an update).
PlannedReservation fromExisting(const FleetReservation &have,
                                ReservationAction action,
                                qint64 nowS,
                                bool *startable)
{
    PlannedReservation r;
    r.name = have.name;
    r.action = action;
    r.nodes = sortedNodes(have.nodes);
    r.partition = have.partition;
    r.users = have.users;
    for (const QString &f : have.flags) {
        if (settableFlags().contains(f))
            r.flags << f;
    }
    r.start = QDateTime::fromSecsSinceEpoch(have.startTime);
    r.durationS = have.endTime - have.startTime;
    *startable = have.startTime >= nowS - kPastStartS + kToleranceS;
    return r;
}

bool flagsChange(const PlannedReservation &r)
{
    return r.existing && repeatOf(r.existing->flags) != repeatOf(r.flags);
}

} // namespace

QStringList scontrolUndoArgs(const PlannedReservation &r, qint64 nowS)
{
    switch (r.action) {
    case ReservationAction::Create:
        return {QStringLiteral("delete"), QStringLiteral("ReservationName=") + r.name};
    case ReservationAction::Delete:
    case ReservationAction::Update: {
        if (!r.existing)
            return {};
        bool startable = false;
        const PlannedReservation old
                = fromExisting(*r.existing,
                               r.action == ReservationAction::Delete ? ReservationAction::Create
                                                                     : ReservationAction::Update,
                               nowS,
                               &startable);
        if (startable)
            return scontrolArgs(old);
        if (r.action == ReservationAction::Update) {
            // Started long ago: everything but the start.
            return {QStringLiteral("update"),
                    QStringLiteral("ReservationName=") + old.name,
                    QStringLiteral("EndTime=") + slurmTime(old.start.addSecs(old.durationS)),
                    QStringLiteral("Nodes=") + joinedNodes(old.nodes),
                    QStringLiteral("PartitionName=") + old.partition,
                    QStringLiteral("Users=") + old.users};
        }
        return {};
    }
    case ReservationAction::Keep:
        break;
    }
    return {};
}

ApplyReport applyWindowsPlan(const WindowsPlan &plan,
                             const QString &scontrol,
                             const CommandRunner &run)
{
    ApplyReport report;
    struct Step
    {
        QString what;
        QStringList args;
        QStringList undo;
    };
    QList<Step> steps;
    for (const PlannedReservation &r : plan.reservations) {
        if (r.action == ReservationAction::Keep)
            continue;
        const QString what = QStringLiteral("%1 %2").arg(QLatin1String(toString(r.action)), r.name);
        if (r.action == ReservationAction::Update && flagsChange(r)) {
            PlannedReservation del = r;
            del.action = ReservationAction::Delete;
            PlannedReservation create = r;
            create.action = ReservationAction::Create;
            steps.append({what + QStringLiteral(" (delete)"),
                          scontrolArgs(del),
                          scontrolUndoArgs(del, plan.nowS)});
            steps.append({what + QStringLiteral(" (create)"),
                          scontrolArgs(create),
                          scontrolUndoArgs(create, plan.nowS)});
        } else {
            steps.append({what, scontrolArgs(r), scontrolUndoArgs(r, plan.nowS)});
        }
    }
    QList<const Step *> done;
    for (const Step &s : std::as_const(steps)) {
        const CommandResult res = run(scontrol, s.args);
        if (res.exitCode == 0) {
            report.done << QStringLiteral("%1: %2 %3")
                                   .arg(s.what, scontrol, s.args.join(QLatin1Char(' ')));
            done.append(&s);
            continue;
        }
        report.ok = false;
        report.failedStep = s.what;
        report.error
                = QStringLiteral("%1 %2 failed (%3): %4")
                          .arg(scontrol, s.args.join(QLatin1Char(' ')))
                          .arg(res.exitCode < 0 ? QStringLiteral("could not run")
                                                : QStringLiteral("exit code %1").arg(res.exitCode))
                          .arg(res.output.isEmpty() ? QStringLiteral("no output") : res.output);
        for (auto it = done.crbegin(); it != done.crend(); ++it) {
            const Step *d = *it;
            if (d->undo.isEmpty()) {
                report.undoFailures << QStringLiteral("%1: cannot be undone (it had started more "
                                                      "than %2 s ago)")
                                               .arg(d->what)
                                               .arg(kPastStartS);
                continue;
            }
            const CommandResult u = run(scontrol, d->undo);
            if (u.exitCode == 0)
                report.done << QStringLiteral("undone %1: %2 %3")
                                       .arg(d->what, scontrol, d->undo.join(QLatin1Char(' ')));
            else
                report.undoFailures << QStringLiteral("%1: %2 %3: %4")
                                               .arg(d->what,
                                                    scontrol,
                                                    d->undo.join(QLatin1Char(' ')),
                                                    u.output);
        }
        break;
    }
    return report;
}

CommandResult runCommand(const QString &program,
                         const QStringList &args,
                         int timeoutMs,
                         const QString &slurmConf)
{
    QProcess p;
    if (!slurmConf.isEmpty()) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("SLURM_CONF"), slurmConf);
        p.setProcessEnvironment(env);
    }
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.setStandardInputFile(QProcess::nullDevice());
    p.start(program, args);
    CommandResult r;
    if (!p.waitForStarted(10000)) {
        r.output = QStringLiteral("cannot start %1: %2").arg(program, p.errorString());
        return r;
    }
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished(5000);
        r.output = QStringLiteral("%1 did not finish within %2 ms").arg(program).arg(timeoutMs);
        return r;
    }
    r.output = QString::fromLocal8Bit(p.readAll()).trimmed();
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    if (p.exitStatus() != QProcess::NormalExit)
        r.output = QStringLiteral("%1 crashed. %2").arg(program, r.output);
    return r;
}

} // namespace Zhaoxi::Fleet
