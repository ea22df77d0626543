// SPDX-License-Identifier: GPL-3.0-or-later
#include "timewindows.h"

#include <algorithm>
#include <cmath>

namespace Zhaoxi::Policy {

namespace {
constexpr qint64 kDayMs = 24 * 3600'000LL;
constexpr qint64 kWeekMs = 7 * kDayMs;

qint64 mod(qint64 a, qint64 b)
{
    const qint64 r = a % b;
    return r < 0 ? r + b : r;
}
} // namespace

const QStringList &TimeWindows::dayKeys()
{
    static const QStringList keys = {QStringLiteral("mon"),
                                     QStringLiteral("tue"),
                                     QStringLiteral("wed"),
                                     QStringLiteral("thu"),
                                     QStringLiteral("fri"),
                                     QStringLiteral("sat"),
                                     QStringLiteral("sun")};
    return keys;
}

std::unique_ptr<Policy> TimeWindows::create(const QJsonObject &params, PolicyError *error)
{
    auto p = std::make_unique<TimeWindows>();
    ParamReader r(params, QString(), error);
    p->m_common.read(r);
    p->m_prepareMs = r.duration(QStringLiteral("prepareAhead"), p->m_prepareMs, 0, 12 * 3600'000LL);
    p->m_drain = r.string(QStringLiteral("mode"),
                          QStringLiteral("drain"),
                          {QStringLiteral("drain"), QStringLiteral("immediate")})
                 == QLatin1String("drain");
    p->m_defaultShare = r.number(QStringLiteral("defaultInferenceShare"), 0.5, 0, 1);
    const QJsonArray ws = r.array(QStringLiteral("windows"));
    if (r.ok() && ws.isEmpty())
        r.fail(QStringLiteral("windows"), QStringLiteral("required: at least one window"));
    for (qsizetype i = 0; r.ok() && i < ws.size(); ++i) {
        const QString path = QStringLiteral("windows[%1]").arg(i);
        if (!ws[i].isObject()) {
            r.fail(path, QStringLiteral("expected an object"));
            break;
        }
        ParamReader w(ws[i].toObject(), path, error);
        Window win;
        win.name = w.string(QStringLiteral("name"), QString());
        if (w.ok() && win.name.isEmpty())
            w.fail(w.field(QStringLiteral("name")), QStringLiteral("required"));
        if (const auto f = w.timeOfDay(QStringLiteral("from")))
            win.fromMs = *f;
        if (const auto t = w.timeOfDay(QStringLiteral("to")))
            win.toMs = *t;
        if (!w.has(QStringLiteral("inferenceShare")))
            w.fail(w.field(QStringLiteral("inferenceShare")), QStringLiteral("required"));
        win.inferenceShare = w.number(QStringLiteral("inferenceShare"), 0.5, 0, 1);
        win.bandwidthShare = w.number(
                QStringLiteral("trainingBandwidthShare"), p->m_common.trainingBandwidthShare, 0, 1);
        win.powerCapW = w.number(
                QStringLiteral("trainingPowerCapW"), p->m_common.trainingPowerCapW, -1, 1e7);
        if (w.has(QStringLiteral("days"))) {
            const QJsonArray days = w.array(QStringLiteral("days"));
            win.days = 0;
            for (qsizetype d = 0; w.ok() && d < days.size(); ++d) {
                const qsizetype k = dayKeys().indexOf(days[d].toString());
                if (k < 0)
                    w.fail(w.field(QStringLiteral("days[%1]").arg(d)),
                           QStringLiteral("expected one of mon, tue, wed, thu, fri, sat, sun"));
                else
                    win.days |= quint8(1u << k);
            }
            if (w.ok() && win.days == 0)
                w.fail(w.field(QStringLiteral("days")),
                       QStringLiteral("must name at least one day"));
        }
        if (!w.finish()) {
            r.fail(error ? error->field : path, error ? error->message : QString());
            break;
        }
        p->m_windows.append(win);
    }
    if (!r.finish())
        return nullptr;
    return p;
}

int TimeWindows::windowAt(qint64 localWeekMs) const
{
    const qint64 t = mod(localWeekMs, kWeekMs);
    const qint64 tod = t % kDayMs;
    const int day = int(t / kDayMs);
    for (int i = 0; i < m_windows.size(); ++i) {
        const Window &w = m_windows[i];
        bool in = false;
        int startDay = day;
        if (w.fromMs == w.toMs) {
            in = true;
        } else if (w.fromMs < w.toMs) {
            in = tod >= w.fromMs && tod < w.toMs;
        } else {
            in = tod >= w.fromMs || tod < w.toMs;
            if (tod < w.toMs)
                startDay = (day + 6) % 7; // it opened the day before
        }
        if (in && (w.days >> startDay & 1))
            return i;
    }
    return -1;
}

qint64 TimeWindows::nextEdgeIn(qint64 localWeekMs, int *nextWindow) const
{
    const int now = windowAt(localWeekMs);
    const qint64 t = mod(localWeekMs, kWeekMs);
    QList<qint64> deltas;
    const qint64 dayStart = t - t % kDayMs;
    for (const Window &w : m_windows) {
        // A window's own times, and midnight: where its days begin and end (a whole-day window,
        // from == to, changes only there).
        for (qint64 edge : {w.fromMs, w.toMs, qint64(0)}) {
            for (int d = 0; d <= 7; ++d) {
                const qint64 delta = dayStart + d * kDayMs + edge - t;
                if (delta > 0)
                    deltas.append(delta);
            }
        }
    }
    std::sort(deltas.begin(), deltas.end());
    deltas.erase(std::unique(deltas.begin(), deltas.end()), deltas.end());
    for (qint64 delta : deltas) {
        const int w = windowAt(localWeekMs + delta);
        if (w != now) {
            if (nextWindow)
                *nextWindow = w;
            return delta;
        }
    }
    return -1;
}

double TimeWindows::shareOf(int window) const
{
    return window >= 0 ? m_windows[window].inferenceShare : m_defaultShare;
}

void TimeWindows::start(PolicyContext &ctx, qint64 nowMs)
{
    m_current = -2;
    tick(ctx, nowMs);
}

QString TimeWindows::windowNameAt(const Policy *policy, qint64 localWeekMs)
{
    const auto *w = dynamic_cast<const TimeWindows *>(policy);
    const int at = w ? w->windowAt(localWeekMs) : -1;
    return at >= 0 ? w->m_windows[at].name : QString();
}

QList<PlannedBudget> TimeWindows::plannedBudgets(const PolicyContext &ctx,
                                                 qint64 nowMs,
                                                 qint64 horizonMs) const
{
    QList<PlannedBudget> out;
    const qint64 total = ctx.totalMilli();
    const auto budgetFor = [&](qint64 training) {
        Sched::ClassBudget b;
        b.trainingMilli = training;
        b.inferenceMilli = total - training;
        return b;
    };
    const auto trainingFor
            = [&](int w) { return total - qint64(std::llround(shareOf(w) * double(total))); };
    qint64 t = nowMs;
    int cur = windowAt(ctx.localWeekMs(nowMs));
    for (int edges = 0; edges < 16; ++edges) {
        int next = -1;
        const qint64 in = nextEdgeIn(ctx.localWeekMs(t), &next);
        if (in <= 0 || t + in > nowMs + horizonMs)
            break;
        const qint64 edge = t + in;
        // Preparing for a window that gives training less: it gets less from then on.
        if (trainingFor(next) < trainingFor(cur) && edge - m_prepareMs > nowMs)
            out.append(PlannedBudget{edge - m_prepareMs, budgetFor(trainingFor(next)), {}});
        out.append(PlannedBudget{
                edge, budgetFor(trainingFor(next)), next >= 0 ? m_windows[next].name : QString()});
        t = edge;
        cur = next;
    }
    return out;
}

qint64 TimeWindows::tick(PolicyContext &ctx, qint64 nowMs)
{
    const qint64 total = ctx.totalMilli();
    const qint64 local = ctx.localWeekMs(nowMs);
    const int cur = windowAt(local);
    auto trainingFor
            = [&](int w) { return total - qint64(std::llround(shareOf(w) * double(total))); };

    if (cur != m_current) {
        m_current = cur;
        Device::ApplianceEvent e;
        e.atMs = nowMs;
        e.code = Device::ApplianceEventCode::WindowOpened;
        e.reason = ActionReason::Window;
        e.windowIndex = cur;
        ctx.record(e);
    }
    const Window *w = cur >= 0 ? &m_windows[cur] : nullptr;
    m_qos.apply(ctx,
                nowMs,
                w ? w->bandwidthShare : m_common.trainingBandwidthShare,
                w ? w->powerCapW : m_common.trainingPowerCapW);

    Sched::ClassBudget b;
    b.trainingMilli = trainingFor(cur);
    b.inferenceMilli = total - b.trainingMilli;

    int next = -1;
    const qint64 edgeIn = nextEdgeIn(local, &next);
    const bool preparing = edgeIn >= 0 && edgeIn <= m_prepareMs;
    if (preparing) {
        // Capacity for the next window: training may not start beyond its share, and what it
        // holds beyond that leaves by the edge.
        b.trainingMilli = std::min(b.trainingMilli, trainingFor(next));
        b.inferenceMilli = std::max(b.inferenceMilli, total - trainingFor(next));
        if (m_preparedFor != nowMs + edgeIn) {
            m_preparedFor = nowMs + edgeIn;
            Device::ApplianceEvent e;
            e.atMs = nowMs;
            e.code = Device::ApplianceEventCode::WindowSwitch;
            e.reason = ActionReason::Window;
            e.windowIndex = next;
            e.opensAtMs = nowMs + edgeIn;
            ctx.record(e);
        }
    }
    ctx.setBudget(b, nowMs, ActionReason::Window);
    // Only the training class answers for its budget: batch has its own (none here), and a batch
    // job taken off to bring training under it would be placed straight back.
    const qint64 used = ctx.scheduler().state().classUsage().training;
    if (used > b.trainingMilli)
        freeTraining(ctx,
                     nowMs,
                     used - b.trainingMilli,
                     m_drain,
                     preparing ? nowMs + edgeIn : nowMs,
                     ActionReason::Window,
                     -1,
                     Domain::WorkloadKind::Training);

    // Replicas for the observed load within the inference share.
    const QList<ServiceView> views = ctx.services(nowMs);
    QList<int> want;
    qint64 need = 0;
    for (const ServiceView &s : views) {
        want.append(replicasForRate(s, s.observedRate, m_common));
        need += inferenceMilli(s, want.last());
    }
    while (need > b.inferenceMilli) {
        int cut = -1;
        for (int i = 0; i < views.size(); ++i) {
            if (want[i] > views[i].minReplicas
                && (cut < 0 || views[i].unitMilli * want[i] > views[cut].unitMilli * want[cut]))
                cut = i;
        }
        if (cut < 0)
            break;
        --want[cut];
        need -= views[cut].unitMilli;
    }
    for (int i = 0; i < views.size(); ++i)
        ctx.setReplicas(i, want[i], nowMs, ActionReason::Window);
    // The share is inference's: replicas that wait for room within it get it (at checkpoints).
    makeRoomForReplicas(ctx,
                        nowMs,
                        b.inferenceMilli,
                        false,
                        nowMs + m_common.periodMs * 20,
                        ActionReason::Window);

    consolidateTraining(ctx, nowMs, nowMs + 10 * 60'000, &m_consolidation);
    qint64 wake = nowMs + m_common.periodMs;
    if (edgeIn > 0) {
        if (edgeIn > m_prepareMs)
            wake = std::min(wake, nowMs + edgeIn - m_prepareMs);
        wake = std::min(wake, nowMs + edgeIn);
    }
    return wake;
}

} // namespace Zhaoxi::Policy
