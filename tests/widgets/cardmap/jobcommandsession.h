// SPDX-License-Identifier: GPL-3.0-or-later
// A session on the test's thread that records the job commands it is sent (submit, cancel,
// requeue, priority, log) and answers each as the test says: at once, as a session on the
// client's own thread does, or later with answer(). Its snapshot holds one job in each state:
//
//   id  name          state
//   0   waiting-w     Pending
//   1   running-r     Running
//   2   preempting-p  Preempting
//   3   done-d        Finished
//   4   cancelled-c   Cancelled
//   5   failed-f      Failed
#pragma once

#include "core/models/sessionclient.h"
#include "core/session/session.h"

#include <QApplication>
#include <QJsonObject>
#include <QPointer>
#include <QTimer>
#include <QWidget>

#include <functional>
#include <memory>

namespace JobCommands {

using namespace Zhaoxi;

inline Domain::WorkloadSpec jobSpec(const QString &name, int priority)
{
    Domain::WorkloadSpec spec;
    spec.name = name;
    spec.kind = Domain::WorkloadKind::Training;
    spec.priority = priority;
    return spec;
}

inline Session::SnapshotPtr jobsSnapshot(quint64 serial = 1, int extraJobs = 0)
{
    auto s = std::make_shared<Session::Snapshot>();
    s->serial = serial;
    s->applianceName = QStringLiteral("jobs-test");
    s->nowMs = 1'767'571'200'000;
    const struct
    {
        const char *name;
        Sched::JobState state;
    } jobs[] = {{"waiting-w", Sched::JobState::Pending},
                {"running-r", Sched::JobState::Running},
                {"preempting-p", Sched::JobState::Preempting},
                {"done-d", Sched::JobState::Finished},
                {"cancelled-c", Sched::JobState::Cancelled},
                {"failed-f", Sched::JobState::Failed}};
    int priority = 10;
    for (const auto &j : jobs) {
        const Domain::JobId id
                = s->state.addJob(jobSpec(QString::fromLatin1(j.name), priority++), s->nowMs);
        s->state.setJobState(id, j.state);
    }
    for (int i = 0; i < extraJobs; ++i)
        s->state.addJob(jobSpec(QStringLiteral("new-%1").arg(i), 0), s->nowMs);
    for (const Sched::Job &j : s->state.jobs()) {
        if (j.state == Sched::JobState::Pending)
            s->queue.append(j.id);
    }
    return s;
}

class JobCommandSession final : public Session::ApplianceSession
{
public:
    struct Call
    {
        QString command; // "submitWorkload", "cancelJob", "requeueJob", "setJobPriority", ...
        quint64 request = 0;
        int job = -1;
        int priority = 0;
        QJsonObject spec = {};
        qint64 maxBytes = 0;
    };

    explicit JobCommandSession(Session::SnapshotPtr snapshot = jobsSnapshot())
        : m_latest(std::move(snapshot))
    {}

    Session::SnapshotPtr latest() const override { return m_latest; }
    void publish(Session::SnapshotPtr snapshot)
    {
        m_latest = std::move(snapshot);
        Q_EMIT snapshotReady(m_latest);
    }

    void start() override {}
    void stop() override {}
    void setSpeed(double) override {}
    void setPaused(bool) override {}
    void setPollIntervalMs(int) override {}
    void previewPlacement(quint64, int, int) override {}
    void placeJob(quint64, int, int, bool) override {}
    void placeJobConfirmed(quint64, int, int, QList<int>, Sched::BudgetRule) override {}
    void requeueJob(quint64 request, int job) override
    {
        record({QStringLiteral("requeueJob"), request, job});
    }
    void previewLayout(quint64, int, QList<Domain::MigPlacement>) override {}
    void applyLayout(quint64, int, QList<Domain::MigPlacement>, Session::ApplyMode, qint64) override
    {}
    void setSchedule(quint64, QJsonObject) override {}
    void submitWorkload(quint64 request, QJsonObject spec) override
    {
        Call c{QStringLiteral("submitWorkload"), request};
        c.spec = spec;
        record(c);
    }
    void cancelJob(quint64 request, int job) override
    {
        record({QStringLiteral("cancelJob"), request, job});
    }
    void setJobPriority(quint64 request, int job, int priority) override
    {
        record({QStringLiteral("setJobPriority"), request, job, priority});
    }
    void pinLayout(quint64 request, int card, qint64 untilMs) override
    {
        Call c{QStringLiteral("pinLayout"), request, card};
        c.maxBytes = untilMs; // the card in `job`, the end in `maxBytes`
        record(c);
    }
    void requestJobLog(quint64 request, int job, qint64 maxBytes) override
    {
        Call c{QStringLiteral("requestJobLog"), request, job};
        c.maxBytes = maxBytes;
        record(c);
    }

    // Answers `call` with `result` (a command) or `log` (requestJobLog), their request and job
    // filled in from the call.
    void answer(const Call &call)
    {
        if (call.command == QLatin1String("requestJobLog")) {
            Session::JobLog l = log;
            l.request = call.request;
            l.job = Domain::JobId(call.job);
            Q_EMIT jobLogReady(l);
            return;
        }
        Session::CommandResult r = result;
        r.request = call.request;
        if (call.command != QLatin1String("submitWorkload"))
            r.job = Domain::JobId(call.job);
        Q_EMIT commandFinished(r);
    }

    QList<Call> calls;
    bool answerAtOnce = true;
    Session::CommandResult result{0, true, {}, {}, {}, {}};
    Session::JobLog log;
    // After an answer to a submission that succeeded (at once): a snapshot with the new job.
    std::function<void()> afterSubmit;

private:
    void record(const Call &call)
    {
        calls.append(call);
        if (!answerAtOnce)
            return;
        answer(call);
        if (call.command == QLatin1String("submitWorkload") && result.ok && afterSubmit)
            afterSubmit();
    }

    Session::SnapshotPtr m_latest;
};

// Runs `act` on the next modal dialog of type T once it is up: QMessageBox::exec() and
// QDialog::exec() block the test until the dialog closes, so the answer has to come from the
// event loop they run. Gives up (and lets the test fail on what follows) when no such dialog
// comes within a generous while.
// Returns the poll's timer: delete it to stop waiting.
template<typename T>
QPointer<QTimer> whenModal(std::function<void(T *)> act)
{
    auto *timer = new QTimer;
    auto tries = std::make_shared<int>(0);
    timer->setInterval(10);
    QObject::connect(timer, &QTimer::timeout, [timer, act, tries] {
        if (auto *dialog = qobject_cast<T *>(QApplication::activeModalWidget())) {
            timer->stop();
            timer->deleteLater();
            act(dialog);
        } else if (++*tries > 3000) {
            timer->stop();
            timer->deleteLater();
        }
    });
    timer->start();
    return timer;
}

} // namespace JobCommands
