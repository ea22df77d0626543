// SPDX-License-Identifier: GPL-3.0-or-later
#include "recordingsession.h"
#include "runtimesession.h"

#include "core/device/devicebackend.h"
#include "core/sched/scheduler.h"
#include "core/storage/recorder.h"
#include "core/storage/store.h"

#include <QMutexLocker>

#include <algorithm>
#include <cmath>

namespace Zhaoxi::Session {

RecordingSession::RecordingSession(QObject *parent)
    : ApplianceSession(parent)
{}

RecordingSession::~RecordingSession()
{
    closeStore();
}

SnapshotPtr RecordingSession::latest() const
{
    QMutexLocker lock(&m_latestLock);
    return m_latest;
}

void RecordingSession::openStore(const QString &storePath,
                                 const QString &tempFileName,
                                 const Storage::Retention &retention)
{
    m_storePath = storePath;
    if (m_storePath.isEmpty()) {
        m_tempDir = std::make_unique<QTemporaryDir>();
        if (m_tempDir->isValid())
            m_storePath = m_tempDir->filePath(tempFileName);
    }
    if (!m_storePath.isEmpty()) {
        Storage::StoreOptions options;
        options.retention = retention;
        m_store = Storage::Store::open(m_storePath, options, nullptr, &m_storeError);
    }
    if (m_store) {
        m_recorder = std::make_unique<Storage::Recorder>(*m_store);
        m_recorder->setEventObserver([this](const Storage::Event &e) { noteEvent(e); });
    } else {
        if (m_storeError.isEmpty())
            m_storeError = QStringLiteral("no temporary directory for the event store");
        m_storePath.clear();
    }
}

void RecordingSession::closeStore()
{
    m_recorder.reset();
    m_store.reset();
}

void RecordingSession::flushStore()
{
    if (m_store)
        m_store->flush();
}

bool RecordingSession::commitNow(QString *error)
{
    if (!m_store) {
        *error = m_storeError.isEmpty() ? QStringLiteral("the session has no store") : m_storeError;
        return false;
    }
    persistState();
    if (!m_store->flush()) {
        *error = m_store->lastError();
        return false;
    }
    return true;
}

QList<Sched::DecisionTrace> RecordingSession::latestTraces() const
{
    QList<Sched::DecisionTrace> out = m_latestTraces.values();
    std::sort(out.begin(), out.end(), [](const auto &a, const auto &b) {
        return a.job.value() < b.job.value();
    });
    return out;
}

void RecordingSession::noteEvent(const Storage::Event &e)
{
    m_newEvents.append(e);
    if (e.job >= 0 && e.source == Storage::Source::Scheduler)
        m_tracedJobs.insert(e.job);
}

SnapshotPtr RecordingSession::publishSnapshot(std::shared_ptr<Snapshot> s,
                                              const Sched::Scheduler &sched)
{
    s->serial = ++m_serial;
    // A clock that went back (the day restarted) starts the period again.
    if (m_recorder
        && (m_lastUnitMetricMs < 0 || s->nowMs < m_lastUnitMetricMs
            || s->nowMs >= m_lastUnitMetricMs + m_unitMetricPeriodMs)) {
        recordUnitMetrics(*m_recorder, s->nowMs, s->state, s->cards);
        m_lastUnitMetricMs = s->nowMs;
    }
    std::stable_sort(m_newEvents.begin(), m_newEvents.end(), [](const auto &a, const auto &b) {
        return a.atMs < b.atMs;
    });
    s->events = std::move(m_newEvents);
    m_newEvents = {};
    for (int job : std::as_const(m_tracedJobs)) {
        if (const Sched::DecisionTrace *t = sched.lastTrace(Domain::JobId(job)))
            s->traces.append(*t);
    }
    m_tracedJobs.clear();
    for (const Sched::DecisionTrace &t : std::as_const(s->traces))
        m_latestTraces.insert(t.job.value(), t);

    SnapshotPtr out = std::move(s);
    {
        QMutexLocker lock(&m_latestLock);
        m_latest = out;
    }
    Q_EMIT snapshotReady(out);
    return out;
}

void recordCardMetrics(Storage::Recorder &rec,
                       qint64 at,
                       const Sched::ClusterState &state,
                       const Device::DeviceBackend &backend)
{
    using Storage::Metric;
    for (const Sched::CardState &card : state.cards()) {
        const Device::CardMetrics m = backend.metrics(card.id);
        if (m.lost)
            continue;
        const int c = card.id.value();
        const Domain::CardModel &model = state.model(card);
        if (!std::isnan(m.utilisation))
            rec.recordMetric(at, {Metric::GpuUtil, c, -1, {}, -1}, 100.0 * m.utilisation);
        rec.recordMetric(at, {Metric::MemoryUsedMiB, c, -1, {}, -1}, double(m.memoryUsedMiB));
        rec.recordMetric(at,
                         {Metric::MemoryFreeMiB, c, -1, {}, -1},
                         double(std::max<qint64>(0, model.memoryMiB - m.memoryUsedMiB)));
        rec.recordMetric(at, {Metric::TemperatureC, c, -1, {}, -1}, m.temperatureC);
        rec.recordMetric(at, {Metric::PowerW, c, -1, {}, -1}, m.powerW);
        // The tensor pipe: each class's share of the busy time at its modelled activity.
        if (!std::isnan(m.utilisation)) {
            CardSample split;
            split.utilisation = m.utilisation;
            splitByUnits(state, card, nullptr, &split);
            rec.recordMetric(at,
                             {Metric::TensorActive, c, -1, {}, -1},
                             Storage::MetricsModel::kTensorActiveTraining
                                             * split.trainingUtilisation
                                     + Storage::MetricsModel::kTensorActiveInference
                                               * split.inferenceUtilisation);
        }
        if (model.maxSmClockMHz > 0 && !std::isnan(m.clockFactor))
            rec.recordMetric(at,
                             {Metric::SmClockMHz, c, -1, {}, -1},
                             std::round(model.maxSmClockMHz * m.clockFactor));
    }
}

void recordUnitMetrics(Storage::Recorder &rec,
                       qint64 at,
                       const Sched::ClusterState &state,
                       const QList<CardSample> &cards)
{
    using Storage::Metric;
    for (const CardSample &c : cards) {
        if (c.lost || c.card < 0 || c.card >= state.cards().size()
            || state.card(Domain::CardId(c.card)).mode == Domain::PartitionMode::Whole)
            continue;
        for (const UnitSample &u : c.units) {
            if (u.memoryUsedMiB >= 0)
                rec.recordMetric(at,
                                 {Metric::MemoryUsedMiB, c.card, u.uid, {}, -1},
                                 double(u.memoryUsedMiB));
            if (!std::isnan(u.utilisation))
                rec.recordMetric(
                        at, {Metric::GrEngineActive, c.card, u.uid, {}, -1}, u.utilisation);
        }
    }
}

} // namespace Zhaoxi::Session
