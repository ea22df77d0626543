// SPDX-License-Identifier: GPL-3.0-or-later
#include "advicetext.h"

#include "widgets/cardmap/reasontext.h"

#include <QJsonArray>
#include <QLocale>

#include <cmath>

namespace Zhaoxi::Widgets {

using Replay::Figure;
using Replay::Suggestion;
using Replay::SuggestionKind;

namespace {

QString num(double v, int decimals)
{
    return QLocale().toString(v, 'f', decimals);
}

QString count(double v)
{
    return QLocale().toString(qint64(std::llround(v)));
}

QString hour(int h)
{
    return QStringLiteral("%1:00").arg(h, 2, 10, QLatin1Char('0'));
}

int intOf(const QJsonObject &o, const char *key)
{
    return o.value(QLatin1String(key)).toInt();
}

double realOf(const QJsonObject &o, const char *key)
{
    return o.value(QLatin1String(key)).toDouble();
}

QString stringOf(const QJsonObject &o, const char *key)
{
    return o.value(QLatin1String(key)).toString();
}

QStringList stringsOf(const QJsonObject &o, const char *key)
{
    QStringList out;
    for (const QJsonValue &v : o.value(QLatin1String(key)).toArray())
        out.append(v.isString() ? v.toString() : QString::number(v.toInt()));
    return out;
}

} // namespace

QString AdviceText::figureName(Figure f)
{
    switch (f) {
    case Figure::Preemptions:
        return tr("preemptions");
    case Figure::LostWork:
        return tr("lost work (card-h)");
    case Figure::SloMisses:
        return tr("requests past the SLO");
    case Figure::TrainingWork:
        return tr("training work (card-h)");
    case Figure::Energy:
        return tr("energy (kWh)");
    }
    return {};
}

QString AdviceText::headline(const Suggestion &s)
{
    const QJsonObject &p = s.params;
    const QString window = windowNameText(stringOf(p, "window"));
    switch (s.kind) {
    case SuggestionKind::WindowEdge: {
        QStringList moved;
        for (const QString &n : stringsOf(p, "neighbours"))
            moved.append(tr("“%1”").arg(windowNameText(n)));
        if (moved.isEmpty())
            return tr("Open the window “%1” at %2 instead of %3")
                    .arg(window, stringOf(p, "new"), stringOf(p, "old"));
        return tr("Open the window “%1” at %2 instead of %3 (%4 then ends at %2)")
                .arg(window,
                     stringOf(p, "new"),
                     stringOf(p, "old"),
                     QLocale().createSeparatedList(moved));
    }
    case SuggestionKind::ClassBudget:
        return tr("Give inference %1 % of the cards in “%2” instead of %3 %")
                .arg(num(realOf(p, "new") * 100, 0), window, num(realOf(p, "old") * 100, 0));
    case SuggestionKind::ReplicaRange:
        return tr("Let %1 run %2–%3 replicas instead of %4–%5")
                .arg(stringOf(p, "service"))
                .arg(intOf(p, "newMin"))
                .arg(intOf(p, "newMax"))
                .arg(intOf(p, "oldMin"))
                .arg(intOf(p, "oldMax"));
    case SuggestionKind::PowerCap: {
        const double old = realOf(p, "old");
        if (old > 0)
            return tr("Cap training's power in “%1” at %2 W instead of %3 W")
                    .arg(window, num(realOf(p, "new"), 0), num(old, 0));
        return tr("Cap training's power in “%1” at %2 W (it has no cap now)")
                .arg(window, num(realOf(p, "new"), 0));
    }
    case SuggestionKind::NightLayout:
        return tr("Switch card(s) %1 to whole mode when “%2” opens at %3")
                .arg(QLocale().createSeparatedList(stringsOf(p, "cards")),
                     window,
                     stringOf(p, "at"));
    }
    return {};
}

QString AdviceText::evidence(const Suggestion &s)
{
    const QJsonObject &ev = s.evidence;
    const QString days = QString::number(intOf(ev, "days"));
    const QString of = QString::number(intOf(ev, "of"));
    const QString span = tr("%1–%2").arg(hour(intOf(ev, "fromHour")), hour(intOf(ev, "toHour")));
    if (s.kind == SuggestionKind::ReplicaRange) {
        const QString svc = stringOf(ev, "service");
        if (s.figure == Figure::SloMisses)
            return tr("On %1 of the last %2 days %3 ran at its maximum of %4 replicas and missed "
                      "its SLO on %5 of %6 requests.")
                    .arg(days, of, svc)
                    .arg(intOf(s.params, "oldMax"))
                    .arg(count(realOf(ev, "sloMisses")), count(realOf(ev, "requests")));
        return tr("Training waited while %1 card-h stood idle over the replayed days, and %2 "
                  "never needed more than %3 replicas.")
                .arg(num(realOf(ev, "idleWaitCardH"), 1), svc)
                .arg(intOf(ev, "maxReplicasSeen"));
    }
    if (s.kind == SuggestionKind::NightLayout)
        return tr("On %1 of the last %2 days, %3, the appliance repartitioned %4 times for the "
                  "night's training; in the replays %5 card-h went to training starting, "
                  "reconfiguring and gangs' width.")
                .arg(days, of, span)
                .arg(intOf(ev, "reconfigurations"))
                .arg(num(realOf(ev, "startingCardH"), 1));
    if (s.kind == SuggestionKind::PowerCap)
        return tr("The training power cap slowed training by %1 card-h over the replayed days; "
                  "%2 minutes at the power budget in %3.")
                .arg(num(realOf(ev, "powerSlowedCardH"), 2))
                .arg(intOf(ev, "powerBoundMinutes"))
                .arg(span);
    if (s.figure == Figure::SloMisses) {
        QStringList svcs = stringsOf(ev, "services");
        QString text = tr("On %1 of the last %2 days, %3, %4 missed the SLO on %5 of %6 requests.")
                               .arg(days,
                                    of,
                                    span,
                                    svcs.isEmpty() ? tr("inference")
                                                   : QLocale().createSeparatedList(svcs),
                                    count(realOf(ev, "sloMisses")),
                                    count(realOf(ev, "requests")));
        const QJsonObject att = ev.value(QLatin1String("attainmentPct")).toObject();
        if (!att.isEmpty() && intOf(ev, "days") > 0) {
            const QString lo = num(realOf(att, "min"), 1);
            const QString hi = num(realOf(att, "max"), 1);
            text += QLatin1Char(' ')
                    + (lo == hi ? tr("SLO attainment %1 %.").arg(lo)
                                : tr("SLO attainment %1–%2 % a day.").arg(lo, hi));
        }
        return text;
    }
    if (s.figure == Figure::Preemptions) {
        const QJsonObject p = ev.value(QLatin1String("preemptions")).toObject();
        return tr("On %1 of the last %2 days, %3, training was evicted %4–%5 times a day (%6 of "
                  "them for inference replicas) and lost %7 card-h.")
                .arg(days, of, span)
                .arg(intOf(p, "min"))
                .arg(intOf(p, "max"))
                .arg(intOf(ev, "inferencePreemptions"))
                .arg(num(realOf(ev, "lostCardH"), 1));
    }
    // Training work: capacity idle while training waited, and no misses where it would go.
    if (s.kind == SuggestionKind::WindowEdge)
        return tr("Training waited while %1 card-h stood idle over the replayed days, and "
                  "inference met its SLO in %2 on every day.")
                .arg(num(realOf(ev, "idleWaitCardH"), 1), span);
    return tr("Training waited while %1 card-h stood idle over the replayed days, and inference "
              "met its SLO in the window on every day.")
            .arg(num(realOf(ev, "idleWaitCardH"), 1));
}

namespace {

QString signedPercent(double before, double after)
{
    if (before == 0)
        return after == 0 ? QStringLiteral("±0 %") : AdviceText::tr("new");
    const double d = (after - before) / std::abs(before) * 100;
    return (d >= 0 ? QStringLiteral("+") : QStringLiteral("−")) + num(std::abs(d), 1)
           + QStringLiteral(" %");
}

} // namespace

QString AdviceText::proof(const Suggestion &s)
{
    const Replay::Figures &b = s.proof.baseline;
    const Replay::Figures &c = s.proof.candidate;
    const int decimals = s.figure == Figure::Preemptions || s.figure == Figure::SloMisses ? 0 : 1;
    QStringList parts;
    parts.append(tr("%1: %2 → %3 (%4)")
                         .arg(figureName(s.figure),
                              num(b.value(s.figure), decimals),
                              num(c.value(s.figure), decimals),
                              signedPercent(b.value(s.figure), c.value(s.figure))));
    if (s.figure != Figure::TrainingWork)
        parts.append(tr("training work %1").arg(signedPercent(b.trainingWorkH, c.trainingWorkH)));
    if (s.figure != Figure::Preemptions)
        parts.append(tr("preemptions %1 → %2").arg(b.preemptions).arg(c.preemptions));
    for (const Replay::ServiceFigures &bs : b.services) {
        for (const Replay::ServiceFigures &cs : c.services) {
            if (cs.name == bs.name)
                parts.append(tr("%1's SLO attainment %2 % → %3 %")
                                     .arg(bs.name,
                                          num(bs.sloAttainment * 100, 2),
                                          num(cs.sloAttainment * 100, 2)));
        }
    }
    return tr("Replayed on %1 recorded days: %2.")
            .arg(s.proof.days.size())
            .arg(parts.join(tr(", ", "between the parts of a proof")));
}

bool AdviceText::appliesToSchedule(const Suggestion &s)
{
    return (s.kind == SuggestionKind::WindowEdge || s.kind == SuggestionKind::ClassBudget
            || s.kind == SuggestionKind::PowerCap)
           && s.change.value(QLatin1String("windows")).isObject();
}

QString AdviceText::howToApply(const Suggestion &s)
{
    switch (s.kind) {
    case SuggestionKind::ReplicaRange:
        return tr("To apply it, edit the replicas in the spec of %1: at least %2, at most %3.")
                .arg(stringOf(s.params, "service"))
                .arg(intOf(s.params, "newMin"))
                .arg(intOf(s.params, "newMax"));
    case SuggestionKind::NightLayout:
        return tr("To apply it, switch card(s) %1 to whole mode in the repartition editor when "
                  "“%2” opens at %3.")
                .arg(QLocale().createSeparatedList(stringsOf(s.params, "cards")),
                     windowNameText(stringOf(s.params, "window")),
                     stringOf(s.params, "at"));
    default:
        return {};
    }
}

QString AdviceText::noSuggestion(const Replay::Advice &advice)
{
    if (advice.candidates == 0)
        return tr("No suggestion: the recorded days show nothing to act on (no SLO misses around "
                  "a window edge or within a window, no training evicted around an edge, no idle "
                  "capacity while training waited, no service at its most replicas with misses, "
                  "no training slowed by its power cap).");
    int noGain = 0, slo = 0, cost = 0;
    for (const Suggestion &r : advice.rejected) {
        noGain += r.rejected == QLatin1String("no-improvement");
        slo += r.rejected == QLatin1String("slo-worse");
        cost += r.rejected == QLatin1String("training-cost");
    }
    return tr("No suggestion: of %1 changes tried, none improved its figure by %2 % in the "
              "replays while keeping every service's SLO attainment within %3 points (%4 did not "
              "improve it, %5 lowered the SLO attainment, %6 cost training more than %7 %).")
            .arg(advice.candidates)
            .arg(num(Replay::kMinImprovement * 100, 0), num(Replay::kMaxSloDrop * 100, 2))
            .arg(noGain)
            .arg(slo)
            .arg(cost)
            .arg(num(Replay::kMaxTrainingCost * 100, 0));
}

QString AdviceText::summary(const Replay::Advice &advice)
{
    QStringList days;
    for (const Replay::RecordedDay &d : advice.days)
        days.append(d.partial ? tr("%1 (part of the day)").arg(d.day) : d.day);
    const QString policy = advice.days.isEmpty() ? QString() : advice.days.last().policy;
    return tr("Recorded days: %1 (ran under %2).")
                   .arg(days.join(tr(", ", "between the parts of a proof")),
                        policy.isEmpty() ? tr("no policy") : policyNameText(policy))
           + QLatin1Char('\n')
           + tr("%1 changes tried over %2 days: %3 replays in %4 s.")
                     .arg(advice.candidates)
                     .arg(advice.days.size())
                     .arg(advice.replays)
                     .arg(num(advice.seconds, 1));
}

} // namespace Zhaoxi::Widgets
