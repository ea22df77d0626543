// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/domain/ids.h"
#include "core/sched/decisiontrace.h"
#include "core/session/snapshot.h"

#include <QHash>
#include <QWidget>

class QLabel;
class QTextBrowser;

namespace Zhaoxi::Models {
class SessionClient;
}

namespace Zhaoxi::Widgets {

// "Why?" for one job (HOUSE_STYLE 5): the latest decision the scheduler made about it, in plain,
// translated language.
//  - waiting: the reason, then per host why it was rejected (the first host per reason, and how
//    many cards or hosts were turned down for it), the class budget when that was the limit;
//  - placed: why here: the chosen host and cards, the best candidates with each score plugin's
//    score, and the jobs it preempted with their lost work;
//  - preempted: by whom, when it leaves or left, and the work it lost.
//
// Keeps the latest Sched::DecisionTrace of every job from the snapshots (Snapshot::traces) and
// the preemptions from their events, so a job decided before setJob() is explained too (from the
// first snapshot the view saw). GUI thread only.
class WhyView : public QWidget
{
    Q_OBJECT

public:
    explicit WhyView(Models::SessionClient *client, QWidget *parent = nullptr);

    Domain::JobId job() const { return m_job; }
    // The explanation shown now, as plain text.
    QString text() const;
    // The latest trace kept for `job`; nullptr when none was seen.
    const Sched::DecisionTrace *trace(Domain::JobId job) const;

public Q_SLOTS:
    // Explains `job` (an invalid id clears the view).
    void setJob(Domain::JobId job);

protected:
    void changeEvent(QEvent *event) override;

private:
    struct Preemption
    {
        int by = -1;          // the preemptor's job id
        qint64 atMs = 0;      // when it was chosen as a victim
        qint64 evictAtMs = 0; // when it leaves (or left)
        qint64 lostMs = -1;   // work lost at the eviction; -1 until evicted
    };

    void onSnapshot(const Session::SnapshotPtr &snapshot);
    void render();
    QString explanation(const Session::Snapshot &snapshot) const;
    // A fleet's scheduler's view of the job (Slurm's state and pending reason); empty when none.
    QString externalText(const Session::Snapshot &s) const;
    QString waitingText(const Session::Snapshot &s, const Sched::DecisionTrace &t) const;
    QString placedText(const Session::Snapshot &s, const Sched::DecisionTrace *t) const;
    // What one unit of a demand is and how many: "2 MIG partition(s) 3g.71gb".
    QString demandText(const Domain::Demand &d) const;
    // A job with alternative shapes: each shape the scheduler judged, its verdict and figure.
    QString shapesText(const Session::Snapshot &s, const Sched::DecisionTrace &t) const;
    QString preemptedText(const Session::Snapshot &s, const Preemption &p, bool leaving) const;

    Models::SessionClient *m_client;
    Domain::JobId m_job;
    QHash<int, Sched::DecisionTrace> m_traces;
    QHash<int, Preemption> m_preempted; // by victim, the latest
    QLabel *m_title;
    QTextBrowser *m_text;
    QString m_html; // the last explanation set on m_text (not the placeholders)
};

} // namespace Zhaoxi::Widgets
