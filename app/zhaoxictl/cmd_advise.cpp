// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxictl advise: a few concrete changes, each with its evidence from the store and the replay
// of the recorded days that proves it (issue 18, docs/replay.md "Recommendations"). The words
// are this file's: the core gives codes and parameters.
#include "commands.h"

#include "core/catalogue/catalogue.h"
#include "core/replay/advise.h"
#include "core/storage/store.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>

namespace Zhaoxi::Cli {

namespace {

using Replay::Figure;
using Replay::Suggestion;
using Replay::SuggestionKind;

int usage(Io &io, const QString &why)
{
    io.err << "advise: " << why << "\n";
    return 2;
}

QString num(double v, int decimals)
{
    return QString::number(v, 'f', decimals);
}

QString hourSpan(const QJsonObject &ev)
{
    return QStringLiteral("%1:00–%2:00")
            .arg(ev.value(QStringLiteral("fromHour")).toInt(), 2, 10, QLatin1Char('0'))
            .arg(ev.value(QStringLiteral("toHour")).toInt(), 2, 10, QLatin1Char('0'));
}

QString daysOf(const QJsonObject &ev)
{
    return QStringLiteral("on %1 of the last %2 day(s)")
            .arg(ev.value(QStringLiteral("days")).toInt())
            .arg(ev.value(QStringLiteral("of")).toInt());
}

QString percent(double share)
{
    return num(share * 100, 0) + QStringLiteral(" %");
}

// What the store (and the baseline replays) showed.
QString evidenceText(const Suggestion &s)
{
    const QJsonObject &ev = s.evidence;
    if (s.kind == SuggestionKind::ReplicaRange) {
        const QString svc = ev.value(QStringLiteral("service")).toString();
        if (s.figure == Figure::SloMisses)
            return QStringLiteral("%1 %2 ran at its maximum of %3 replica(s) and missed its SLO "
                                  "on %4 of %5 request(s)")
                    .arg(daysOf(ev), svc)
                    .arg(s.params.value(QStringLiteral("oldMax")).toInt())
                    .arg(ev.value(QStringLiteral("sloMisses")).toDouble(), 0, 'f', 0)
                    .arg(ev.value(QStringLiteral("requests")).toDouble(), 0, 'f', 0);
        return QStringLiteral("training waited while %1 card-h stood idle over the replayed "
                              "day(s), and %2 never needed more than %3 replica(s)")
                .arg(num(ev.value(QStringLiteral("idleWaitCardH")).toDouble(), 1), svc)
                .arg(ev.value(QStringLiteral("maxReplicasSeen")).toInt());
    }
    if (s.kind == SuggestionKind::NightLayout)
        return QStringLiteral("%1, %2, the appliance repartitioned %3 time(s) for the night's "
                              "training; %4 card-h went to training starting, reconfiguring and "
                              "gangs' width in the replays")
                .arg(daysOf(ev), hourSpan(ev))
                .arg(ev.value(QStringLiteral("reconfigurations")).toInt())
                .arg(num(ev.value(QStringLiteral("startingCardH")).toDouble(), 1));
    if (s.kind == SuggestionKind::PowerCap)
        return QStringLiteral("the training power cap slowed training by %1 card-h over the "
                              "replayed day(s); %2 minute(s) at the power budget in %3")
                .arg(num(ev.value(QStringLiteral("powerSlowedCardH")).toDouble(), 2))
                .arg(ev.value(QStringLiteral("powerBoundMinutes")).toInt())
                .arg(hourSpan(ev));
    if (s.figure == Figure::SloMisses) {
        const QJsonObject att = ev.value(QStringLiteral("attainmentPct")).toObject();
        QStringList svcs;
        for (const QJsonValue &v : ev.value(QStringLiteral("services")).toArray())
            svcs.append(v.toString());
        QString text = QStringLiteral("%1, %2, %3 missed the SLO on %4 of %5 request(s)")
                               .arg(daysOf(ev),
                                    hourSpan(ev),
                                    svcs.isEmpty() ? QStringLiteral("inference")
                                                   : svcs.join(QStringLiteral(", ")))
                               .arg(ev.value(QStringLiteral("sloMisses")).toDouble(), 0, 'f', 0)
                               .arg(ev.value(QStringLiteral("requests")).toDouble(), 0, 'f', 0);
        if (!att.isEmpty() && ev.value(QStringLiteral("days")).toInt() > 0) {
            const QString lo = num(att.value(QStringLiteral("min")).toDouble(), 1);
            const QString hi = num(att.value(QStringLiteral("max")).toDouble(), 1);
            text += lo == hi ? QStringLiteral(" (attainment %1 %)").arg(lo)
                             : QStringLiteral(" (attainment %1–%2 % a day)").arg(lo, hi);
        }
        return text;
    }
    if (s.figure == Figure::Preemptions) {
        const QJsonObject p = ev.value(QStringLiteral("preemptions")).toObject();
        return QStringLiteral("%1, %2, training was evicted %3–%4 time(s) a day (%5 of them for "
                              "inference replicas) and lost %6 card-h")
                .arg(daysOf(ev), hourSpan(ev))
                .arg(p.value(QStringLiteral("min")).toInt())
                .arg(p.value(QStringLiteral("max")).toInt())
                .arg(ev.value(QStringLiteral("inferencePreemptions")).toInt())
                .arg(num(ev.value(QStringLiteral("lostCardH")).toDouble(), 1));
    }
    // Training work: capacity idle while training waited, and no misses where it would go.
    return QStringLiteral("training waited while %1 card-h stood idle over the replayed day(s), "
                          "and inference met its SLO %2")
            .arg(num(ev.value(QStringLiteral("idleWaitCardH")).toDouble(), 1),
                 s.kind == SuggestionKind::WindowEdge
                         ? QStringLiteral("in %1 on every day").arg(hourSpan(ev))
                         : QStringLiteral("in the window on every day"));
}

QString changeText(const Suggestion &s)
{
    const QJsonObject &p = s.params;
    const QString window = p.value(QStringLiteral("window")).toString();
    switch (s.kind) {
    case SuggestionKind::WindowEdge: {
        QString t = QStringLiteral("open the window \"%1\" at %2 instead of %3")
                            .arg(window,
                                 p.value(QStringLiteral("new")).toString(),
                                 p.value(QStringLiteral("old")).toString());
        QStringList moved;
        for (const QJsonValue &v : p.value(QStringLiteral("neighbours")).toArray())
            moved.append(QLatin1Char('"') + v.toString() + QLatin1Char('"'));
        if (!moved.isEmpty())
            t += QStringLiteral(" (%1 then ends)").arg(moved.join(QStringLiteral(", ")));
        return t;
    }
    case SuggestionKind::ClassBudget:
        return QStringLiteral("give inference %1 of the cards in \"%2\" instead of %3")
                .arg(percent(p.value(QStringLiteral("new")).toDouble()),
                     window,
                     percent(p.value(QStringLiteral("old")).toDouble()));
    case SuggestionKind::ReplicaRange:
        return QStringLiteral("let %1 run %2–%3 replicas instead of %4–%5")
                .arg(p.value(QStringLiteral("service")).toString())
                .arg(p.value(QStringLiteral("newMin")).toInt())
                .arg(p.value(QStringLiteral("newMax")).toInt())
                .arg(p.value(QStringLiteral("oldMin")).toInt())
                .arg(p.value(QStringLiteral("oldMax")).toInt());
    case SuggestionKind::PowerCap: {
        const double old = p.value(QStringLiteral("old")).toDouble();
        return QStringLiteral("cap training's power in \"%1\" at %2 W instead of %3")
                .arg(window,
                     num(p.value(QStringLiteral("new")).toDouble(), 0),
                     old > 0 ? num(old, 0) + QStringLiteral(" W") : QStringLiteral("no cap"));
    }
    case SuggestionKind::NightLayout: {
        QStringList cards;
        for (const QJsonValue &v : p.value(QStringLiteral("cards")).toArray())
            cards.append(QString::number(v.toInt()));
        return QStringLiteral("switch card(s) %1 to whole mode when \"%2\" opens at %3")
                .arg(cards.join(QStringLiteral(", ")),
                     window,
                     p.value(QStringLiteral("at")).toString());
    }
    }
    return {};
}

QString figureName(Figure f)
{
    switch (f) {
    case Figure::Preemptions:
        return QStringLiteral("preemptions");
    case Figure::LostWork:
        return QStringLiteral("lost work");
    case Figure::SloMisses:
        return QStringLiteral("SLO misses");
    case Figure::TrainingWork:
        return QStringLiteral("training");
    case Figure::Energy:
        return QStringLiteral("energy");
    }
    return {};
}

QString signedPercent(double before, double after)
{
    if (before == 0)
        return after == 0 ? QStringLiteral("±0 %") : QStringLiteral("new");
    const double d = (after - before) / std::abs(before) * 100;
    return (d >= 0 ? QStringLiteral("+") : QStringLiteral("−")) + num(std::abs(d), 1)
           + QStringLiteral(" %");
}

QString proofText(const Suggestion &s)
{
    const Replay::Figures &b = s.proof.baseline;
    const Replay::Figures &c = s.proof.candidate;
    QStringList parts;
    const int decimals = s.figure == Figure::Preemptions || s.figure == Figure::SloMisses ? 0 : 1;
    parts.append(QStringLiteral("%1 %2 (%3 → %4)")
                         .arg(figureName(s.figure),
                              signedPercent(b.value(s.figure), c.value(s.figure)),
                              num(b.value(s.figure), decimals),
                              num(c.value(s.figure), decimals)));
    if (s.figure != Figure::TrainingWork)
        parts.append(
                QStringLiteral("training %1").arg(signedPercent(b.trainingWorkH, c.trainingWorkH)));
    if (s.figure != Figure::Preemptions)
        parts.append(QStringLiteral("preemptions %1 → %2").arg(b.preemptions).arg(c.preemptions));
    QStringList slo;
    bool changed = false;
    for (const Replay::ServiceFigures &bs : b.services) {
        for (const Replay::ServiceFigures &cs : c.services) {
            if (cs.name != bs.name)
                continue;
            const double pp = (cs.sloAttainment - bs.sloAttainment) * 100;
            changed = changed || std::abs(pp) >= 0.005;
            slo.append(QStringLiteral("%1 %2 → %3 %")
                               .arg(bs.name,
                                    num(bs.sloAttainment * 100, 2),
                                    num(cs.sloAttainment * 100, 2)));
        }
    }
    parts.append(changed ? QStringLiteral("SLO attainment ") + slo.join(QStringLiteral(", "))
                         : QStringLiteral("SLO unchanged"));
    return QStringLiteral("replay of %1 day(s): ").arg(s.proof.days.size())
           + parts.join(QStringLiteral(", "));
}

} // namespace

int runAdvise(const QStringList &argList, Io &io)
{
    Args args(argList);
    const std::optional<QString> db = args.value(QStringLiteral("db"));
    const std::optional<QString> daysText = args.value(QStringLiteral("days"));
    const bool json = args.flag(QStringLiteral("json"));
    if (!args.missingValueFor().isEmpty())
        return usage(io, args.missingValueFor() + QStringLiteral(" needs a value"));
    if (!args.unknownOptions().isEmpty() || !args.positional().isEmpty())
        return usage(io,
                     QStringLiteral("unexpected argument(s): ")
                             + (args.unknownOptions() + args.positional()).join(QLatin1Char(' ')));
    if (!db)
        return usage(io, QStringLiteral("--db FILE is required (the store a run recorded)"));
    Replay::AdviseOptions options;
    if (daysText) {
        bool ok = false;
        const int n = daysText->toInt(&ok);
        if (!ok || n < 1 || n > 366)
            return usage(io,
                         QStringLiteral("--days: '%1' is not a positive whole number of days "
                                        "(1..366)")
                                 .arg(*daysText));
        options.days = n;
    }
    if (!QFileInfo::exists(*db))
        return usage(io, QStringLiteral("--db: %1: no such file").arg(*db));
    QString err;
    auto reader = Storage::Reader::open(*db, Storage::Reader::OpenMode::MigrateIfOlder, &err);
    if (!reader)
        return usage(io, QStringLiteral("--db: %1").arg(err));
    const Catalogue::Catalogue catalogue = Catalogue::Catalogue::builtIn();
    const std::optional<Replay::Advice> advice = Replay::advise(*reader, catalogue, options, &err);
    if (!advice)
        return usage(io, err);
    if (json) {
        io.out << QJsonDocument(advice->toJson()).toJson(QJsonDocument::Indented);
        return 0;
    }
    QStringList dayNames;
    for (const Replay::RecordedDay &d : advice->days)
        dayNames.append(d.partial ? d.day + QStringLiteral(" (part)") : d.day);
    io.out << "recorded days of " << *db << ": " << dayNames.join(QStringLiteral(", "))
           << " (ran under " << (advice->days.isEmpty() ? QString() : advice->days.last().policy)
           << ")\n";
    for (const QString &n : advice->notes)
        io.out << "note: " << n << "\n";
    io.out << "\n";
    int i = 0;
    for (const Suggestion &s : advice->suggestions) {
        io.out << ++i << ". [" << Replay::toString(s.kind) << "] " << evidenceText(s) << ": "
               << changeText(s) << " → " << proofText(s) << ".\n\n";
    }
    if (advice->suggestions.isEmpty()) {
        if (advice->candidates == 0) {
            io.out << "no suggestion: the recorded days show nothing to act on (no SLO misses "
                      "around a window edge or within a window, no training evicted around an "
                      "edge, no idle capacity while training waited, no service at its most "
                      "replicas with misses, no training slowed by its power cap).\n";
        } else {
            int noGain = 0, slo = 0, cost = 0;
            for (const Suggestion &r : advice->rejected) {
                noGain += r.rejected == QLatin1String("no-improvement");
                slo += r.rejected == QLatin1String("slo-worse");
                cost += r.rejected == QLatin1String("training-cost");
            }
            io.out << "no suggestion: of " << advice->candidates
                   << " change(s) tried, none improved its figure by "
                   << num(Replay::kMinImprovement * 100, 0)
                   << " % in the replays while keeping every service's SLO attainment within "
                   << num(Replay::kMaxSloDrop * 100, 2) << " points (" << noGain
                   << " did not improve it, " << slo << " lowered the SLO attainment, " << cost
                   << " cost training more than " << num(Replay::kMaxTrainingCost * 100, 0)
                   << " %).\n";
        }
    }
    io.out << advice->candidates << " change(s) tried over " << advice->days.size()
           << " day(s): " << advice->replays << " replays in " << num(advice->seconds, 1) << " s\n";
    return 0;
}

} // namespace Zhaoxi::Cli
