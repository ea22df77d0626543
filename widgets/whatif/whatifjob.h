// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/replay/replay.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <optional>

namespace Zhaoxi::Widgets {

// What a "What if?" replay found: written by the job's thread before it signals `finished`, read
// by the GUI thread after that signal arrives (the queued signal orders the two).
struct WhatIfOutcome
{
    enum class Status {
        Running,
        Done,
        Cancelled,
        StoreUnreadable, // the store cannot be opened (detail: why, in English)
        NothingRecorded, // no recorded run started before the period's end
        Failed,          // the period cannot be replayed (detail: core's reason, in English)
    };
    Status status = Status::Running;
    QString detail;
    std::optional<Replay::RecordedPeriod> period;
    QList<Sim::Report> reports; // Replay::replayCompare's rows: "recorded", then each policy
};

// One replay of a recorded period beside every policy, run on a thread of the global thread pool
// (start()): its own Storage::Reader on the store file, never the session's objects. The object
// itself lives in the GUI thread; its signals are emitted from the pool's thread (connect them
// queued or auto). It deletes itself once the work is over. cancel() may be called from any
// thread: the work stops before the next policy's replay (a policy's replay is not interrupted,
// half a second for a demo day), and `finished` still comes, with Status::Cancelled.
class WhatIfJob : public QObject
{
    Q_OBJECT

public:
    WhatIfJob(QString storePath, qint64 fromMs, qint64 toMs);

    std::shared_ptr<const WhatIfOutcome> outcome() const { return m_outcome; }
    // Starts the work on the global thread pool. Once only.
    void start();
    void cancel() { m_cancel->store(true); }

    // The steps the progress counts: reading the period, then one per policy.
    static int steps();

Q_SIGNALS:
    // `step` of `steps` begun; `policy` the policy replayed now (empty: reading the period).
    void progressed(int step, int steps, const QString &policy);
    void finished();

private:
    void run();

    QString m_storePath;
    qint64 m_fromMs = 0;
    qint64 m_toMs = 0;
    std::shared_ptr<WhatIfOutcome> m_outcome;
    std::shared_ptr<std::atomic_bool> m_cancel;
};

} // namespace Zhaoxi::Widgets
