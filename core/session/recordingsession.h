// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "session.h"

#include "core/storage/metrics.h"

#include <QHash>
#include <QMutex>
#include <QSet>
#include <QTemporaryDir>

#include <memory>

namespace Zhaoxi::Sched {
class Scheduler;
}
namespace Zhaoxi::Storage {
class Recorder;
class Store;
} // namespace Zhaoxi::Storage

namespace Zhaoxi::Device {
class DeviceBackend;
}
namespace Zhaoxi::Storage {
class Recorder;
}

namespace Zhaoxi::Session {

// Records every card's readings of `backend` (the simulated one: the twin, a scenario's live
// cards) as the store's card series at `atMs`: utilisation (when known), memory used and free,
// temperature, power and the SM clock (the model's maximum times the clock factor). A lost card
// has none.
void recordCardMetrics(Storage::Recorder &recorder,
                       qint64 atMs,
                       const Sched::ClusterState &state,
                       const Device::DeviceBackend &backend);

// Records each partition of `cards` as the store's per-partition series at `atMs` (the key's
// partition is the unit's uid): its memory in use (where known) and its utilisation as
// GrEngineActive, 0..1 (where the hardware says). Lost cards and whole cards (their one unit is
// the card, already in the card's series) have none. What a console started later reads back as
// each partition's history.
void recordUnitMetrics(Storage::Recorder &recorder,
                       qint64 atMs,
                       const Sched::ClusterState &state,
                       const QList<CardSample> &cards);

// What the simulated and the real appliance share: the event store their events go to (through a
// Storage::Recorder), the events and decision traces gathered for the next snapshot, and the
// latest snapshot published.
//
// Threads: like its subclasses; latest() is thread-safe, the rest runs on the session's thread.
class RecordingSession : public ApplianceSession
{
    Q_OBJECT

public:
    ~RecordingSession() override;

    SnapshotPtr latest() const override;
    Storage::Store *eventStore() const override { return m_store.get(); }
    // Persists the subclass's state (persistState()) and flushes the store.
    bool commitNow(QString *error) override;
    QList<Sched::DecisionTrace> latestTraces() const override;
    // The store the events go to (the event log exports from it); empty when none could be
    // opened (`storeError()` says why; the session runs without one).
    QString storePath() const { return m_storePath; }
    QString storeError() const { return m_storeError; }

protected:
    explicit RecordingSession(QObject *parent = nullptr);

    // Opens the event store at `storePath`, or (empty) at `tempFileName` in a temporary directory,
    // and a recorder on it whose events go to the next snapshot. Without a store, `storeError()`
    // says why and recorder() is nullptr.
    void openStore(const QString &storePath,
                   const QString &tempFileName,
                   const Storage::Retention &retention = {});
    // The recorder on the store; nullptr when there is none. A scheduler that adds it as a sink
    // must go before closeStore().
    Storage::Recorder *recorder() const { return m_recorder.get(); }
    Storage::Store *store() const { return m_store.get(); }
    // Queues the session's state documents (commitNow() calls it before flushing); the twin
    // keeps none.
    virtual void persistState() {}
    // Closes the recorder and the store (the destructor does it too).
    void closeStore();
    void flushStore();
    // Hands an event to the next snapshot (the recorder's observer; or an event not stored).
    void noteEvent(const Storage::Event &e);
    // Completes `s` (its serial, the events since the last snapshot in time order and the latest
    // decision traces of the jobs they name, from `sched`), makes it the latest and emits it.
    // Every unitMetricPeriodMs of the snapshots' clock it also records the partitions' readings
    // (recordUnitMetrics).
    SnapshotPtr publishSnapshot(std::shared_ptr<Snapshot> s, const Sched::Scheduler &sched);
    // How often the partitions' readings go to the store (default: a minute).
    void setUnitMetricPeriodMs(qint64 ms) { m_unitMetricPeriodMs = std::max<qint64>(1, ms); }

private:
    std::unique_ptr<QTemporaryDir> m_tempDir;
    std::unique_ptr<Storage::Store> m_store;
    std::unique_ptr<Storage::Recorder> m_recorder;
    QString m_storePath;
    QString m_storeError;
    QList<Storage::Event> m_newEvents;
    QSet<int> m_tracedJobs; // jobs decided since the last snapshot
    quint64 m_serial = 0;
    qint64 m_unitMetricPeriodMs = 60'000;
    qint64 m_lastUnitMetricMs = -1;
    QHash<int, Sched::DecisionTrace> m_latestTraces; // by job: every trace published, the latest
    mutable QMutex m_latestLock;
    SnapshotPtr m_latest;
};

} // namespace Zhaoxi::Session
