// SPDX-License-Identifier: GPL-3.0-or-later
// The fleet session on answers recorded from a real Slurm cluster (tests/fleet/data), without
// daemons: what two reads make of the state, the events of what changed, ids that stay, Zhaoxi's
// analysis of the waiting jobs beside Slurm's reasons, and the snapshot's wire form.
#include "core/session/fleetsession.h"

#include "core/catalogue/catalogue.h"
#include "core/fleet/slurmjson.h"
#include "core/service/consolecodec.h"

#include "tests/data/fleetrecorded.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QMultiHash>
#include <QSignalSpy>
#include <QTest>

using namespace Zhaoxi;
using Session::FleetSession;

namespace {

Fleet::FleetSnapshot recorded(const QString &jobsFile = QStringLiteral("rest-jobs.json"))
{
    return TestData::recordedFleet(jobsFile);
}

std::unique_ptr<FleetSession> session()
{
    Session::FleetOptions o;
    o.restUrl = QUrl(QStringLiteral("http://127.0.0.1:1"));
    o.user = QStringLiteral("root");
    o.tokenFile = QStringLiteral("/nonexistent/token");
    o.clock = [] { return qint64(1'796'400'000'000); };
    QString why;
    return FleetSession::create(o, &why);
}

QStringList codes(const Session::Snapshot &s)
{
    QStringList out;
    for (const Storage::Event &e : s.events)
        out << QString::fromLatin1(e.code);
    return out;
}

QJsonObject params(const Storage::Event &e)
{
    return QJsonDocument::fromJson(e.params).object();
}

const Session::ExternalJob *external(const Session::Snapshot &s, qint64 id)
{
    for (const Session::ExternalJob &j : s.externalJobs) {
        if (j.id == id)
            return &j;
    }
    return nullptr;
}

} // namespace

class TestFleetSessionRead : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { Session::registerMetaTypes(); }

    void createRefusesWhatCannotWork()
    {
        Session::FleetOptions o;
        QString why;
        o.restUrl = QUrl(QStringLiteral("ftp://x"));
        o.tokenFile = QStringLiteral("t");
        o.user = QStringLiteral("u");
        QVERIFY(!FleetSession::create(o, &why));
        QVERIFY2(why.contains(QLatin1String("not an http")), qPrintable(why));
        o.restUrl = QUrl(QStringLiteral("http://127.0.0.1:6820"));
        o.tokenFile.clear();
        QVERIFY(!FleetSession::create(o, &why));
        QVERIFY2(why.contains(QLatin1String("token")), qPrintable(why));
        o.tokenFile = QStringLiteral("t");
        o.user.clear();
        QVERIFY(!FleetSession::create(o, &why));
        QVERIFY2(why.contains(QLatin1String("user")), qPrintable(why));
    }

    // The first read: hosts, cards, every job (pending ones queued), Slurm's view of each and
    // Zhaoxi's analysis of the waiting ones.
    void theFirstRead()
    {
        auto s = session();
        QVERIFY(s);
        QSignalSpy snaps(s.get(), &FleetSession::snapshotReady);
        s->takeRead(recorded());
        QCOMPARE(snaps.size(), 1);
        const Session::SnapshotPtr snap = s->latest();
        QCOMPARE(snap->state.hosts().size(), 4);
        QCOMPARE(snap->state.jobs().size(), 8);
        QCOMPARE(snap->externalScheduler, QStringLiteral("slurm"));
        QCOMPARE(snap->externalJobs.size(), 8);
        QVERIFY(codes(*snap).contains(QStringLiteral("fleet-read")));
        // Job ids are the order jobs were first seen: Slurm's list order.
        for (int i = 0; i < 8; ++i)
            QCOMPARE(s->fleet().slurmIdByJob.value(i), qint64(i + 1));
        // Jobs 3 and 7 wait in Slurm for Resources; both are in the queue.
        const Session::ExternalJob *three = external(*snap, 3);
        QVERIFY(three);
        QCOMPARE(three->state, QStringLiteral("PENDING"));
        QCOMPARE(three->reason, QStringLiteral("Resources"));
        QCOMPARE(snap->queue.size(), 2);
        // Zhaoxi's analysis, with Slurm's reason in its note: job 7 asks for two whole H200
        // (gpu:h200:2) while job 6 holds all four: no node can take it.
        bool sawSeven = false;
        for (const Sched::DecisionTrace &t : snap->traces) {
            const qint64 id = s->fleet().slurmIdByJob.value(t.job.value());
            QVERIFY2(t.note.contains(
                             QStringLiteral("Slurm: job %1 PENDING (reason: Resources)").arg(id)),
                     qPrintable(t.note));
            if (id == 7) {
                sawSeven = true;
                QVERIFY(!t.result.isSuccess());
            }
        }
        QVERIFY(sawSeven);
        // No readings from Slurm: shown as not available, never as zero.
        QVERIFY(std::isnan(snap->cards.first().utilisation));
        QVERIFY(!snap->readOnly);
    }

    // The second read after a preemption: the events say what Slurm did, each job keeps its id,
    // and an unchanged analysis is not repeated.
    void theNextReadSaysWhatChanged()
    {
        auto s = session();
        s->takeRead(recorded());
        const int tracesBefore = int(s->latest()->traces.size());
        QVERIFY(tracesBefore > 0);
        s->takeRead(recorded(QStringLiteral("squeue-after-preemption.json")));
        const Session::SnapshotPtr snap = s->latest();
        QCOMPARE(snap->state.jobs().size(), 9);
        QCOMPARE(s->fleet().slurmIdByJob.value(8), qint64(9)); // the new one at the end
        QMultiHash<qint64, QString> byJob;
        for (const Storage::Event &e : snap->events)
            byJob.insert(params(e).value(QStringLiteral("slurmJob")).toInteger(),
                         QString::fromLatin1(e.code));
        QVERIFY(byJob.values(6).contains(QStringLiteral("slurm-job-requeued")));
        QVERIFY(byJob.values(7).contains(QStringLiteral("slurm-job-started")));
        QVERIFY(byJob.values(9).contains(QStringLiteral("slurm-job-seen")));
        QVERIFY(!byJob.contains(1)); // unchanged
        const Session::ExternalJob *six = external(*snap, 6);
        QCOMPARE(six->reason, QStringLiteral("BeginTime"));
        QCOMPARE(six->restarts, 1);
        QCOMPARE(snap->state.job(Domain::JobId(5)).state, Sched::JobState::Pending);
        QCOMPARE(snap->state.job(Domain::JobId(6)).state, Sched::JobState::Running);
        // Job 3's analysis is the same as before: not published again.
        for (const Sched::DecisionTrace &t : snap->traces)
            QVERIFY(t.job.value() != 2);

        // Slurm stops listing job 1 while it ran: it ended unseen.
        Fleet::FleetSnapshot third = recorded(QStringLiteral("squeue-after-preemption.json"));
        third.jobs.removeFirst();
        s->takeRead(third);
        const Session::SnapshotPtr after = s->latest();
        QCOMPARE(after->state.jobs().size(), 9); // ids stay
        QCOMPARE(after->state.job(Domain::JobId(0)).state, Sched::JobState::Failed);
        QVERIFY(codes(*after).contains(QStringLiteral("slurm-job-ended")));
        QVERIFY(!external(*after, 1)); // Slurm's view: only what it lists
    }

    // The snapshot's wire form (zhaoxid --fleet → an attached console) keeps Slurm's view.
    void theWireKeepsSlurmsView()
    {
        auto s = session();
        s->takeRead(recorded());
        const Session::SnapshotPtr snap = s->latest();
        const QByteArray picture = Service::consolePicture(*snap);
        QString why;
        const auto back = Service::snapshotFromConsoleJson(
                QJsonDocument::fromJson(picture).object(), Catalogue::Catalogue::builtIn(), &why);
        QVERIFY2(back, qPrintable(why));
        QCOMPARE(back->externalScheduler, QStringLiteral("slurm"));
        QCOMPARE(back->externalJobs, snap->externalJobs);
        // A job id the state does not have is refused, named.
        QJsonObject o = QJsonDocument::fromJson(picture).object();
        o.insert(QStringLiteral("external_jobs"),
                 QJsonArray{QJsonObject{{QStringLiteral("job"), 99}}});
        QVERIFY(!Service::snapshotFromConsoleJson(o, Catalogue::Catalogue::builtIn(), &why));
        QCOMPARE(why, QStringLiteral("external_jobs: no job 99"));
    }

    // The console's schedule as reservations, planned on the recorded fleet: a night window
    // reserves the training nodes whose cards fit training's share.
    void aSchedulePreviewListsReservations()
    {
        auto s = session();
        QSignalSpy previews(s.get(), &FleetSession::schedulePreviewReady);
        // Not read yet: refused with the reason.
        s->previewSchedule(1, QJsonObject());
        QCOMPARE(previews.takeFirst().at(0).value<Session::SchedulePreview>().problem.code,
                 Domain::Problem::Code::ReadOnlyFleetUnreachable);
        s->takeRead(recorded());
        const QJsonObject night = QJsonDocument::fromJson(R"({"windows": [
            {"name": "night", "from": "22:00", "to": "07:00", "inferenceShare": 0.15}]})")
                                          .object();
        s->previewSchedule(2, night);
        const auto p = previews.takeFirst().at(0).value<Session::SchedulePreview>();
        QVERIFY2(p.ok, qPrintable(p.error));
        QCOMPARE(p.request, quint64(2));
        QVERIFY(p.needsConfirmation());
        QVERIFY(!p.reservations.isEmpty());
        QCOMPARE(p.reservations.first().name, QStringLiteral("zhaoxi-night"));
        QCOMPARE(p.reservations.first().action, QStringLiteral("create"));
        QVERIFY(p.reservations.first().flags.contains(QStringLiteral("DAILY")));
        QVERIFY(p.reservations.first().cards > 0);
        s->previewSchedule(3, QJsonObject{{QStringLiteral("windows"), QStringLiteral("x")}});
        const auto bad = previews.takeFirst().at(0).value<Session::SchedulePreview>();
        QVERIFY(!bad.ok);
        QCOMPARE(bad.field, QStringLiteral("windows"));
    }

    // What Slurm cannot do through Zhaoxi, refused without a request to it.
    void refusals()
    {
        auto s = session();
        s->takeRead(recorded());
        QSignalSpy done(s.get(), &FleetSession::commandFinished);
        s->applyLayout(1, 0, {}, Session::ApplyMode::Immediate, 0);
        s->pinLayout(2, 0, -1);
        s->cancelJob(3, 42);
        QCOMPARE(done.size(), 3);
        QCOMPARE(done[0][0].value<Session::CommandResult>().problem.code,
                 Domain::Problem::Code::FleetStaticLayout);
        QCOMPARE(done[1][0].value<Session::CommandResult>().problem.code,
                 Domain::Problem::Code::FleetStaticLayout);
        QCOMPARE(done[2][0].value<Session::CommandResult>().problem.code,
                 Domain::Problem::Code::FleetNotSlurmJob);
        QSignalSpy logs(s.get(), &FleetSession::jobLogReady);
        s->requestJobLog(4, 0, 1000);
        QCOMPARE(logs.size(), 1);
        const auto log = logs[0][0].value<Session::JobLog>();
        QCOMPARE(log.problem.code, Domain::Problem::Code::FleetNoLogs);
        QCOMPARE(log.problem.arg(0), QStringLiteral("slurm-1.out"));
    }
};

QTEST_GUILESS_MAIN(TestFleetSessionRead)
#include "tst_fleetsessionread.moc"
