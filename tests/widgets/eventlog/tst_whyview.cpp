// SPDX-License-Identifier: GPL-3.0-or-later
// "Why?" on the demo day: a waiting job's explanation names its reasons and the hosts that turned
// it down, a placed job's names where it runs and the candidates, a preempted job's names the job
// that preempted it (and the preemptor's names its victims).
#include "widgets/cardmap/reasontext.h"
#include "widgets/eventlog/eventtext.h"
#include "widgets/eventlog/whyview.h"

#include "core/catalogue/catalogue.h"
#include "core/models/sessionclient.h"
#include "core/session/fleetsession.h"
#include "core/session/simulationsession.h"
#include "core/sim/scenario.h"

#include "tests/data/fleetrecorded.h"
#include "tests/data/scenarios.h"

#include <QTest>

using namespace Zhaoxi;
using Domain::JobId;
using Widgets::WhyView;

namespace {

constexpr qint64 kStep = 15 * 60'000;
constexpr qint64 kDay = 24 * 3'600'000;

using TestData::demoDay;

// One simulated appliance with a client and a Why? view watching it.
struct Rig
{
    Sim::Scenario scenario = demoDay();
    Session::SimulationSession session{scenario, QString(), scenario.seed};
    Models::SessionClient client{&session};
    WhyView view{&client};

    const Session::Snapshot &now() const { return *client.snapshot(); }
    QString host(Domain::HostId h) const { return now().state.host(h).name; }
    QString job(JobId j) const { return now().state.job(j).spec.name; }
};

} // namespace

class TestWhyView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void nothingSelected();
    void aWaitingJobNamesItsReasons();
    void aPlacedJobNamesItsHost();
    void aPreemptedJobNamesThePreemptor();
    void aSlurmJobSaysSlurmsReason();
};

void TestWhyView::nothingSelected()
{
    Rig rig;
    rig.session.runTo(kStep);
    QVERIFY(rig.view.text().contains(QStringLiteral("Select a job")));
    rig.view.setJob(JobId(100000));
    QVERIFY(rig.view.text().contains(QStringLiteral("does not know this job")));
}

void TestWhyView::aWaitingJobNamesItsReasons()
{
    Rig rig;
    for (qint64 t = kStep; t <= kDay; t += kStep) {
        rig.session.runTo(t);
        for (JobId j : rig.now().queue) {
            const Sched::DecisionTrace *trace = rig.view.trace(j);
            if (!trace || trace->result.isSuccess() || trace->rejected.isEmpty())
                continue;
            rig.view.setJob(j);
            const QString text = rig.view.text();
            QVERIFY2(text.contains(rig.job(j) + QStringLiteral(" is waiting")), qPrintable(text));
            QVERIFY2(text.contains(Widgets::reasonText(trace->result)), qPrintable(text));
            // Each host that turned it down, with its own reason.
            for (const Sched::CandidateTrace &c : trace->rejected) {
                const QString line
                        = rig.host(c.host) + QStringLiteral(": ") + Widgets::reasonText(c.verdict);
                QVERIFY2(text.contains(line), qPrintable(text));
            }
            return;
        }
    }
    QFAIL("no waiting job with rejected hosts on the demo day");
}

void TestWhyView::aPlacedJobNamesItsHost()
{
    Rig rig;
    for (qint64 t = kStep; t <= kDay; t += kStep) {
        rig.session.runTo(t);
        for (const Sched::Job &j : rig.now().state.jobs()) {
            const Sched::DecisionTrace *trace = rig.view.trace(j.id);
            if (j.state != Sched::JobState::Running || !trace || !trace->result.isSuccess()
                || !trace->placement || trace->best.isEmpty() || j.assignments.isEmpty())
                continue;
            rig.view.setJob(j.id);
            const QString text = rig.view.text();
            QVERIFY2(text.contains(j.spec.name + QStringLiteral(" is running")), qPrintable(text));
            QVERIFY2(text.contains(QStringLiteral("It runs on %1 since").arg(rig.host(j.host))),
                     qPrintable(text));
            const Sched::CardState &card = rig.now().state.card(j.assignments.first().card);
            QVERIFY2(text.contains(QStringLiteral("%1 card %2")
                                           .arg(rig.host(card.host))
                                           .arg(card.indexOnHost)),
                     qPrintable(text));
            // Why here: the candidates with their scores, the chosen one marked.
            QVERIFY2(text.contains(QStringLiteral("Why here")), qPrintable(text));
            for (const Sched::CandidateTrace &c : trace->best)
                QVERIFY2(text.contains(rig.host(c.host) + QStringLiteral(": score")),
                         qPrintable(text));
            QVERIFY2(text.contains(QStringLiteral("chosen")), qPrintable(text));
            return;
        }
    }
    QFAIL("no running job with a placement trace on the demo day");
}

void TestWhyView::aPreemptedJobNamesThePreemptor()
{
    Rig rig;
    JobId victim, preemptor;
    for (qint64 t = kStep; t <= kDay && !victim.isValid(); t += kStep) {
        rig.session.runTo(t);
        for (const Storage::Event &e : rig.now().events) {
            if (e.code == "job-preempting") {
                victim = JobId(e.job);
                preemptor = JobId(Storage::jsonParam(e.params, QLatin1StringView("other")).toInt());
                break;
            }
        }
        for (const Sched::DecisionTrace &tr : rig.now().traces) {
            if (!victim.isValid() && tr.kind == Sched::DecisionKind::Preemption
                && !tr.victims.isEmpty()) {
                victim = tr.victims.first().job;
                preemptor = tr.job;
            }
        }
    }
    if (!victim.isValid()) {
        // The day preempted nobody: the operator places a waiting job where others run.
        const Session::Snapshot &s = rig.now();
        for (JobId j : s.queue) {
            for (int card = 0; card < s.state.cards().size() && !victim.isValid(); ++card) {
                Session::PlacementPreview preview;
                QObject::connect(&rig.client,
                                 &Models::SessionClient::placementPreviewReady,
                                 &rig.view,
                                 [&](const Session::PlacementPreview &p) { preview = p; });
                rig.client.previewPlacement(j, Domain::CardId(card));
                QObject::disconnect(&rig.client,
                                    &Models::SessionClient::placementPreviewReady,
                                    &rig.view,
                                    nullptr);
                if (preview.outcome != Session::PlacementPreview::Outcome::NeedsPreemption)
                    continue;
                rig.client.placeJob(j, Domain::CardId(card), true);
                victim = preview.victims.first().job;
                preemptor = j;
            }
            if (victim.isValid())
                break;
        }
    }
    QVERIFY2(victim.isValid(), "no preemption on the demo day, and none could be made");
    // Let the eviction happen (victims leave at their checkpoint).
    rig.view.setJob(victim);
    QString text = rig.view.text();
    QVERIFY2(text.contains(QStringLiteral("preempted by %1").arg(rig.job(preemptor))),
             qPrintable(text));
    const qint64 at = rig.now().nowMs - rig.now().startMs;
    rig.session.runTo(std::min(kDay, at + 2 * 3'600'000));
    text = rig.view.text();
    QVERIFY2(text.contains(QStringLiteral("preempted by %1").arg(rig.job(preemptor))),
             qPrintable(text));
    // The preemptor explains whom it moved out, once it was placed.
    const Sched::DecisionTrace *trace = rig.view.trace(preemptor);
    if (trace && trace->kind == Sched::DecisionKind::Preemption) {
        rig.view.setJob(preemptor);
        text = rig.view.text();
        QVERIFY2(text.contains(QStringLiteral("To make room it preempted")), qPrintable(text));
        QVERIFY2(text.contains(rig.job(victim) + QStringLiteral(" (priority")), qPrintable(text));
    }
}

QTEST_MAIN(TestWhyView)
#include "tst_whyview.moc"

// A fleet through Slurm: a job Slurm keeps waiting shows Slurm's view (its id, user, partition,
// state and pending reason) beside Zhaoxi's own analysis.
void TestWhyView::aSlurmJobSaysSlurmsReason()
{
    Session::FleetOptions o;
    o.restUrl = QUrl(QStringLiteral("http://127.0.0.1:1"));
    o.user = QStringLiteral("root");
    o.tokenFile = QStringLiteral("/nonexistent/token");
    QString why;
    const std::unique_ptr<Session::FleetSession> fleet = Session::FleetSession::create(o, &why);
    QVERIFY2(fleet, qPrintable(why));
    Models::SessionClient client{fleet.get()};
    WhyView view{&client};
    fleet->takeRead(TestData::recordedFleet());
    QVERIFY(client.snapshot());
    const Domain::JobId seven = fleet->fleet().jobBySlurmId.value(7);
    QVERIFY(seven.isValid());
    view.setJob(seven);
    QString text = view.text();
    QVERIFY2(text.contains(QStringLiteral("whole-2-pending is waiting")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Slurm job 7 (user root, partition training): PENDING. "
                                          "Slurm's reason: Resources.")),
             qPrintable(text));
    // Zhaoxi's analysis: no node has two whole H200 free (job 6 holds all four).
    QVERIFY2(text.contains(QStringLiteral("could not place it")), qPrintable(text));

    // After job 9 preempted job 6, Slurm holds 6 back until it may begin again, requeued once.
    fleet->takeRead(TestData::recordedFleet(QStringLiteral("squeue-after-preemption.json")));
    view.setJob(fleet->fleet().jobBySlurmId.value(6));
    text = view.text();
    QVERIFY2(text.contains(QStringLiteral("Slurm's reason: BeginTime.")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Slurm requeued it 1 time")), qPrintable(text));
}
