// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "recordingsession.h"

#include <functional>
#include <memory>

namespace Zhaoxi::Runtime {
class LiveRun;
}

namespace Zhaoxi::Session {

// What the two sessions that drive a Runtime::LiveRun share (LiveSession: a scenario's simulated
// cards; HardwareSession: NVML): the operator's commands on work, which the runtime answers alone,
// and their snapshots' runtime parts. Each subclass owns when the runtime exists (m_run) and says
// when work may be commanded (readyForWork).
//
// Threads: like its subclasses.
class RuntimeSession : public RecordingSession
{
    Q_OBJECT

public:
    ~RuntimeSession() override;
    // The runtime (null before it started, or when it could not).
    Runtime::LiveRun *runtime() const { return m_run.get(); }
    // Publishes a snapshot now and returns it.
    virtual SnapshotPtr publish() = 0;

public Q_SLOTS:
    // Placing, preempting only when allowed (a waiting job, a valid card).
    void placeJob(quint64 request, int job, int card, bool allowPreemption) override;
    void placeJobConfirmed(quint64 request,
                           int job,
                           int card,
                           QList<int> victims,
                           Sched::BudgetRule budget) override;
    // Back to the queue: at the job's checkpoint when it checkpoints, else at once.
    void requeueJob(quint64 request, int job) override;
    void cancelJob(quint64 request, int job) override;
    void setJobPriority(quint64 request, int job, int priority) override;
    void pinLayout(quint64 request, int card, qint64 untilMs) override;
    void cordonCard(quint64 request, int card, bool cordoned, bool drain) override;
    // A spec with `run`; an error names its field.
    void submitWorkload(quint64 request, QJsonObject spec) override;
    void requestJobLog(quint64 request, int job, qint64 maxBytes) override;
    // The windows policy in force from now.
    void setSchedule(quint64 request, QJsonObject windowsParams) override;
    void previewSchedule(quint64 request, QJsonObject windowsParams) override;
    void setScheduleConfirmed(quint64 request,
                              QJsonObject windowsParams,
                              QList<int> evicted) override;

protected:
    explicit RuntimeSession(QObject *parent = nullptr);
    // Whether commands on work may run now (m_run is then set); false with r->error saying why.
    virtual bool readyForWork(CommandResult *r) const = 0;

    std::unique_ptr<Runtime::LiveRun> m_run;

    // A repartition of `card` that destroys partitions serving `affected` jobs (m_run set): they
    // leave first (at once, or at their next checkpoint), the card takes no new work meanwhile,
    // and the change follows when their processes have gone, at the latest `drainDeadlineMs`
    // after `nowMs` (the runtime's clock) for a drain. Answers `request` then.
    void drainThenApply(quint64 request,
                        int card,
                        const QList<Domain::MigPlacement> &target,
                        ApplyMode mode,
                        qint64 drainDeadlineMs,
                        const QList<Domain::JobId> &affected,
                        qint64 nowMs);
    // Carries out the pending repartitions whose jobs have gone, or whose deadline has come (the
    // jobs still there then leave at once). Called as time goes on.
    void tryPendingLayouts(qint64 nowMs);
    // The jobs on partitions the change of `card` to `target` would destroy, as the subclass plans
    // it.
    virtual QList<Domain::JobId> jobsInTheWay(int card,
                                              const QList<Domain::MigPlacement> &target) const = 0;
    // Carries out a change on a card no job is in the way of; answers `request`.
    virtual void applyLayoutNow(quint64 request,
                                int card,
                                const QList<Domain::MigPlacement> &target)
            = 0;

private:
    // placeJob and placeJobConfirmed, once the plan is checked.
    void place(quint64 request, int job, int card, bool allowPreemption, Sched::BudgetRule budget);
    struct PendingLayout
    {
        quint64 request = 0;
        int card = -1;
        QList<Domain::MigPlacement> target;
        qint64 deadlineMs = 0;
        QList<Domain::JobId> jobs; // those that had to leave
    };
    // A job of a pending change still holds a partition it destroys, or its process is stopping.
    bool cardHasWork(const PendingLayout &pending) const;
    QList<PendingLayout> m_pendingLayouts;

    // A command on one job through the runtime; the answer and a snapshot follow.
    void jobCommand(quint64 request,
                    int job,
                    const std::function<bool(Domain::Problem *)> &command);
};

// The policy in force, every service's window figures and every training or batch job that has
// started (samples per second: what real jobs report).
void addRuntimeSamples(Snapshot &snapshot, Runtime::LiveRun &run);

// One card's utilisation split by the class of the jobs whose units it holds (each unit's share
// of the card), the units whose job's process runs, and each unit's sample as the runtime's
// simulated cards model it (busy while its job's process runs, with the memory the job asked
// for). `run` may be null (no runtime yet).
void splitByUnits(const Sched::ClusterState &state,
                  const Sched::CardState &card,
                  const Runtime::LiveRun *run,
                  CardSample *sample);

} // namespace Zhaoxi::Session
