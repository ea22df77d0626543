// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "event.h"
#include "metrics.h"

#include "core/sched/decisiontrace.h"
#include "core/sched/events.h"

#include <QJsonObject>
#include <QSet>

#include <functional>

namespace Zhaoxi::Storage {

class Store;

// What an event is about; -1: nothing of that kind.
struct Subject
{
    int card = -1;
    int partition = -1;
    int job = -1;
};

// Records a run into a Store: the scheduler's events (as an EventSink), policy, device and
// operator events, metric samples, the state and decision traces. The console and
// `zhaoxictl simulate --db` wire the same Recorder to their scheduler, policy and backend.
//
// Threads: call from one thread (the scheduler's); the Store queues and returns at once.
class Recorder final : public Sched::EventSink
{
public:
    explicit Recorder(Store &store)
        : m_store(store)
    {}

    // Names MIG profiles and fills device labels from this state when given (optional; it must
    // outlive the Recorder or be reset).
    void setState(const Sched::ClusterState *state) { m_state = state; }

    // Called with every event as stored (its id set), on the recording thread: the console's
    // session forwards them to the event log without reading the store back.
    void setEventObserver(std::function<void(const Event &)> observer)
    {
        m_observer = std::move(observer);
    }

    // Sched::EventSink: source scheduler, code eventCodeName(), card/partition/job from the
    // event, the rest in params: host, other, profile (its name) and profileIndex, start, reason,
    // and per code need/have (job-waiting), evictionAtMs (job-preempting), workLostMs
    // (job-evicted), mode (card-mode-changed), priority/previousPriority (job-priority-changed).
    void record(const Sched::SchedEvent &event) override;

    qint64 recordPolicy(qint64 atMs,
                        const QByteArray &code,
                        Severity severity,
                        const QJsonObject &params = {},
                        Subject subject = {});
    qint64 recordDevice(qint64 atMs,
                        const QByteArray &code,
                        Severity severity,
                        const QJsonObject &params = {},
                        Subject subject = {});
    // An operator's action (the audit trail): committed with synchronous=FULL.
    qint64 recordOperator(qint64 atMs,
                          const QString &actor,
                          const QByteArray &code,
                          const QJsonObject &params = {},
                          Subject subject = {});

    // A sample; when the key names a card and the state is set, dcgm-style labels (gpu, UUID,
    // device, modelName, Hostname, and GPU_I_PROFILE/GPU_I_ID for MIG instances) are added the
    // first time the series is seen.
    void recordMetric(const MetricSample &sample);
    void recordMetric(qint64 atMs, const SeriesKey &key, double value)
    {
        recordMetric(MetricSample{key, atMs, value, {}});
    }

    // The state documents (StateKey::Layouts and StateKey::Queue), written durably, in one
    // transaction with `alongside` (the runtime's own documents).
    void recordState(const Sched::ClusterState &state,
                     qint64 atMs,
                     const QList<std::pair<QString, QByteArray>> &alongside = {});
    void recordTrace(const Sched::DecisionTrace &trace);

    // Device labels for a card (and MIG instance) of `state`, as dcgm-exporter names them. The
    // UUID is the real one when the backend set it in `uuids` (index = card id), else a stable
    // made-up "GPU-zhaoxi-<host>-<index>" for simulated cards.
    static QMap<QString, QString> deviceLabels(const Sched::ClusterState &state,
                                               int card,
                                               int partition,
                                               const QStringList &uuids = {});

private:
    qint64 append(qint64 atMs,
                  Source source,
                  const QByteArray &code,
                  Severity severity,
                  const QJsonObject &params,
                  Subject subject,
                  const QString &actor = {});

    Store &m_store;
    const Sched::ClusterState *m_state = nullptr;
    QSet<SeriesKey> m_labelled;
    std::function<void(const Event &)> m_observer;
};

} // namespace Zhaoxi::Storage
