// SPDX-License-Identifier: GPL-3.0-or-later
#include "recorder.h"

#include "statecodec.h"
#include "store.h"

#include <QJsonDocument>

namespace Zhaoxi::Storage {

using namespace Sched;

namespace {

Severity severityOf(EventCode code)
{
    switch (code) {
    case EventCode::JobFailed:
    case EventCode::CardFailed:
        return Severity::Error;
    case EventCode::JobPreempting:
    case EventCode::JobEvicted:
    case EventCode::CardChangedAfterOperator:
        return Severity::Warning;
    default:
        return Severity::Info;
    }
}

QByteArray compact(const QJsonObject &o)
{
    return o.isEmpty() ? QByteArray() : QJsonDocument(o).toJson(QJsonDocument::Compact);
}

} // namespace

qint64 Recorder::append(qint64 atMs,
                        Source source,
                        const QByteArray &code,
                        Severity severity,
                        const QJsonObject &params,
                        Subject subject,
                        const QString &actor)
{
    Event e;
    e.atMs = atMs;
    e.source = source;
    e.severity = severity;
    e.code = code;
    e.card = subject.card;
    e.partition = subject.partition;
    e.job = subject.job;
    e.actor = actor;
    e.params = compact(params);
    if (!m_observer)
        return m_store.append(std::move(e));
    e.id = m_store.append(e);
    m_observer(e);
    return e.id;
}

void Recorder::record(const SchedEvent &ev)
{
    QJsonObject p;
    if (ev.host.isValid())
        p.insert(QStringLiteral("host"), ev.host.value());
    if (ev.other.isValid())
        p.insert(QStringLiteral("other"), ev.other.value());
    if (ev.profile >= 0) {
        p.insert(QStringLiteral("profileIndex"), ev.profile);
        QString name = QString::number(ev.profile);
        if (m_state && ev.card.isValid() && ev.card.value() < m_state->cards().size()) {
            const CardModel &m = m_state->model(m_state->card(ev.card));
            if (ev.profile < m.migProfiles.size())
                name = m.migProfiles[ev.profile].name;
        }
        p.insert(QStringLiteral("profile"), name);
    }
    if (ev.start >= 0)
        p.insert(QStringLiteral("start"), ev.start);
    if (ev.reason != Reason::None)
        p.insert(QStringLiteral("reason"), QLatin1String(reasonCode(ev.reason)));
    switch (ev.code) {
    case EventCode::CardModeChanged:
        p.insert(QStringLiteral("mode"), Domain::toString(ev.mode));
        break;
    case EventCode::JobWaiting:
        if (ev.need != 0 || ev.have != 0) {
            p.insert(QStringLiteral("need"), ev.need);
            p.insert(QStringLiteral("have"), ev.have);
        }
        break;
    case EventCode::JobPreempting:
        p.insert(QStringLiteral("evictionAtMs"), ev.evictionAtMs);
        break;
    case EventCode::JobEvicted:
        p.insert(QStringLiteral("workLostMs"), ev.workLostMs);
        break;
    case EventCode::JobSubmitted:
        // What a replay resubmits (docs/storage.md): a training or batch job's spec. A service's
        // replicas are replayed from its recorded requests instead.
        if (m_state && ev.job.isValid() && ev.job.value() < m_state->jobs().size()) {
            const Domain::WorkloadSpec &spec = m_state->job(ev.job).spec;
            if (spec.kind != Domain::WorkloadKind::Inference)
                p.insert(QStringLiteral("spec"), Domain::workloadSpecToJson(spec));
        }
        break;
    case EventCode::JobPriorityChanged:
        p.insert(QStringLiteral("priority"), ev.priority);
        p.insert(QStringLiteral("previousPriority"), ev.previousPriority);
        break;
    case EventCode::LayoutPinned:
        p.insert(QStringLiteral("untilMs"), ev.untilMs);
        break;
    case EventCode::LayoutUnpinned:
        p.insert(QStringLiteral("expired"), ev.expired);
        break;
    case EventCode::CardChangedAfterOperator:
        p.insert(QStringLiteral("cause"), QLatin1String(autoChangeCauseName(ev.cause)));
        p.insert(QStringLiteral("operatorAtMs"), ev.operatorAtMs);
        break;
    default:
        break;
    }
    Subject s{ev.card.value(), ev.uid, ev.job.value()};
    append(ev.atMs,
           Source::Scheduler,
           QByteArray(eventCodeName(ev.code)),
           severityOf(ev.code),
           p,
           s);
}

qint64 Recorder::recordPolicy(qint64 atMs,
                              const QByteArray &code,
                              Severity severity,
                              const QJsonObject &params,
                              Subject subject)
{
    return append(atMs, Source::Policy, code, severity, params, subject);
}

qint64 Recorder::recordDevice(qint64 atMs,
                              const QByteArray &code,
                              Severity severity,
                              const QJsonObject &params,
                              Subject subject)
{
    return append(atMs, Source::Device, code, severity, params, subject);
}

qint64 Recorder::recordOperator(qint64 atMs,
                                const QString &actor,
                                const QByteArray &code,
                                const QJsonObject &params,
                                Subject subject)
{
    return append(atMs, Source::Operator, code, Severity::Info, params, subject, actor);
}

void Recorder::recordMetric(const MetricSample &sample)
{
    if (sample.labels.isEmpty() && m_state && sample.key.card >= 0
        && sample.key.card < m_state->cards().size() && !m_labelled.contains(sample.key)) {
        m_labelled.insert(sample.key);
        MetricSample labelled = sample;
        labelled.labels = deviceLabels(*m_state, sample.key.card, sample.key.partition);
        m_store.appendMetric(labelled);
        return;
    }
    m_store.appendMetric(sample);
}

void Recorder::recordState(const ClusterState &state,
                           qint64 atMs,
                           const QList<std::pair<QString, QByteArray>> &alongside)
{
    QList<std::pair<QString, QByteArray>> docs{
            {QLatin1String(StateKey::Layouts), layoutsToJson(state)},
            {QLatin1String(StateKey::Queue), queueToJson(state)}};
    docs += alongside;
    m_store.putStates(docs, atMs);
}

void Recorder::recordTrace(const DecisionTrace &trace)
{
    m_store.appendTrace(trace.atMs, trace.job.value(), decisionTraceToJson(trace));
}

QMap<QString, QString> Recorder::deviceLabels(const ClusterState &state,
                                              int card,
                                              int partition,
                                              const QStringList &uuids)
{
    QMap<QString, QString> l;
    const CardState &c = state.card(CardId(card));
    const HostState &h = state.host(c.host);
    const CardModel &m = state.model(c);
    l.insert(QStringLiteral("gpu"), QString::number(c.indexOnHost));
    l.insert(QStringLiteral("UUID"),
             card < uuids.size() && !uuids[card].isEmpty()
                     ? uuids[card]
                     : QStringLiteral("GPU-zhaoxi-%1-%2").arg(h.name).arg(c.indexOnHost));
    l.insert(QStringLiteral("device"), QStringLiteral("nvidia%1").arg(c.indexOnHost));
    l.insert(QStringLiteral("modelName"), m.name);
    l.insert(QStringLiteral("Hostname"), h.name);
    if (partition >= 0) {
        if (const Unit *u = c.unit(partition); u && u->profile >= 0)
            l.insert(QStringLiteral("GPU_I_PROFILE"), m.migProfiles[u->profile].name);
        l.insert(QStringLiteral("GPU_I_ID"), QString::number(partition));
    }
    return l;
}

} // namespace Zhaoxi::Storage
