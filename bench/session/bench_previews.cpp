// SPDX-License-Identifier: GPL-3.0-or-later
// What the console's questions cost the session on the demo day under its own policy and under
// the windows policy, at 10:30 and at 23:30 (with how many drop targets are green, amber, red,
// why the red ones are, how many of those an operator could place over the class budget, and
// how many name a card's layout that would take the job, Scheduler::layoutToFit):
// every waiting job's drop preview on every card (a refused one for the class budget also asks
// when it could start, Scheduler::earliestStart over the policy's planned budgets, and whether it
// would fit with the budget waived), and a schedule's preview (the new policy started on a
// dry-run context). Prints median, p99 and max per call. Figures, not pass/fail.
//
//   bench_previews [--repeat N]
#include "core/catalogue/catalogue.h"
#include "core/session/simulationsession.h"
#include "core/sim/scenario.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QMap>
#include <QTextStream>
#include <QTimeZone>

#include <algorithm>

using namespace Zhaoxi;

namespace {

struct Figures
{
    QList<double> ms;
    void add(double v) { ms.append(v); }
    QString text() const
    {
        if (ms.isEmpty())
            return QStringLiteral("none");
        QList<double> s = ms;
        std::sort(s.begin(), s.end());
        const auto at = [&](double q) { return s[qsizetype(q * double(s.size() - 1))]; };
        return QStringLiteral("median %1 ms, p99 %2 ms, max %3 ms (%4 calls)")
                .arg(at(0.5), 0, 'f', 3)
                .arg(at(0.99), 0, 'f', 3)
                .arg(s.last(), 0, 'f', 3)
                .arg(s.size());
    }
};

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QTextStream out(stdout);
    int repeat = 3;
    const QStringList args = app.arguments().mid(1);
    for (int i = 0; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--repeat") && i + 1 < args.size())
            repeat = std::max(1, args[++i].toInt());
    }
    Sim::ScenarioError error;
    const auto scenario = Sim::loadScenarioFile(
            QStringLiteral(ZHAOXI_SOURCE_DIR "/resources/scenarios/demo-day.json"),
            Catalogue::Catalogue::builtIn(),
            &error);
    if (!scenario) {
        QTextStream(stderr) << error.toString() << "\n";
        return 2;
    }
    const QJsonObject windows = scenario->policyParams.value(QStringLiteral("windows")).toObject();
    // The same schedule with the day ending at 20:00: what an operator would preview.
    QJsonObject edited = windows;
    QJsonArray list = edited.value(QStringLiteral("windows")).toArray();
    QJsonObject day = list[0].toObject();
    day.insert(QStringLiteral("to"), QStringLiteral("20:00"));
    list[0] = day;
    QJsonObject night = list[1].toObject();
    night.insert(QStringLiteral("from"), QStringLiteral("20:00"));
    list[1] = night;
    edited.insert(QStringLiteral("windows"), list);

    for (const bool underWindows : {false, true})
        for (const qint64 at : {10 * 3600'000LL + 30 * 60'000, 23 * 3600'000LL + 30 * 60'000}) {
            Session::SimulationSession session(*scenario, QString(), scenario->seed);
            session.runTo(0);
            if (underWindows)
                session.setSchedule(1, windows);
            session.runTo(at);
            session.setPaused(true);
            const Session::SnapshotPtr s = session.latest();
            Figures drops, hinted, laidOut, otherRefusals, schedules;
            int withHint = 0, withLayout = 0;
            int direct = 0, preempting = 0, refused = 0, anyway = 0;
            QMap<QString, int> reasons; // refused drops by reason code
            QObject ctx;
            Session::PlacementPreview last;
            QObject::connect(&session,
                             &Session::ApplianceSession::placementPreviewReady,
                             &ctx,
                             [&](const Session::PlacementPreview &p) { last = p; });
            for (int r = 0; r < repeat; ++r) {
                for (const Sched::Job &j : s->state.jobs()) {
                    if (j.state != Sched::JobState::Pending)
                        continue;
                    for (const Sched::CardState &c : s->state.cards()) {
                        QElapsedTimer t;
                        t.start();
                        session.previewPlacement(2, j.id.value(), c.id.value());
                        const double ms = double(t.nsecsElapsed()) / 1e6;
                        drops.add(ms);
                        if (r == 0) {
                            direct += last.outcome == Session::PlacementPreview::Outcome::Direct;
                            preempting += last.outcome
                                          == Session::PlacementPreview::Outcome::NeedsPreemption;
                            if (last.outcome == Session::PlacementPreview::Outcome::Refused) {
                                ++refused;
                                ++reasons[QString::fromLatin1(
                                        Sched::reasonCode(last.status.reason))];
                                anyway += last.overBudget
                                          != Session::PlacementPreview::Outcome::Refused;
                            }
                        }
                        if (last.startsAtMs >= 0) {
                            hinted.add(ms);
                            withHint += r == 0;
                        }
                        // Refused for another reason than the budget: the layout search ran.
                        if (last.outcome == Session::PlacementPreview::Outcome::Refused
                            && last.status.reason != Sched::Reason::ClassBudgetExceeded)
                            otherRefusals.add(ms);
                        if (last.outcome == Session::PlacementPreview::Outcome::Refused
                            && last.layoutCard.isValid()) {
                            laidOut.add(ms);
                            withLayout += r == 0;
                        }
                    }
                }
                QElapsedTimer t;
                t.start();
                session.previewSchedule(3, edited);
                schedules.add(double(t.nsecsElapsed()) / 1e6);
            }
            const QDateTime local
                    = QDateTime::fromMSecsSinceEpoch(s->nowMs, QTimeZone(s->utcOffsetSeconds));
            out << "demo day at " << local.toString(QStringLiteral("HH:mm")) << " (" << s->policy
                << " policy), " << s->queue.size() << " waiting jobs x " << s->state.cards().size()
                << " cards: " << direct << " fit, " << preempting << " fit by preempting, "
                << refused << " refused (" << anyway << " of them placeable over the budget)\n";
            if (!reasons.isEmpty()) {
                QStringList parts;
                for (auto it = reasons.cbegin(); it != reasons.cend(); ++it)
                    parts << QStringLiteral("%1 %2").arg(it.key()).arg(it.value());
                out << "  refused for:                     " << parts.join(QStringLiteral(", "))
                    << "\n";
            }
            out << "  drop preview:                    " << drops.text() << "\n"
                << "  ... of those with a start hint:  " << hinted.text() << " (" << withHint
                << " previews)\n"
                << "  ... refused, not for the budget: " << otherRefusals.text() << "\n"
                << "  ... refused, naming a layout:    " << laidOut.text() << " (" << withLayout
                << " previews)\n"
                << "  schedule preview (dry run):      " << schedules.text() << "\n";
        }
    return 0;
}
