// SPDX-License-Identifier: GPL-3.0-or-later
#include "cardtimelineview.h"

#include "cardmap/cardtile.h"

#include <QDateTime>
#include <QEvent>
#include <QHelpEvent>
#include <QPainter>
#include <QTimeZone>
#include <QTimer>
#include <QToolTip>

#include <algorithm>
#include <array>

namespace Zhaoxi::Widgets {

using Models::TimelineSpan;

namespace {

constexpr int kLeft = 34;   // the vertical axis' labels
constexpr int kTop = 18;    // the caption
constexpr int kBottom = 18; // the time axis' labels
constexpr int kRight = 8;

CardTile::UnitClass classOf(const TimelineSpan &s)
{
    if (!s.job.isValid())
        return CardTile::UnitClass::Free;
    switch (s.kind) {
    case Domain::WorkloadKind::Inference:
        return CardTile::UnitClass::Inference;
    case Domain::WorkloadKind::Training:
        return CardTile::UnitClass::Training;
    case Domain::WorkloadKind::Batch:
        break;
    }
    return CardTile::UnitClass::Batch;
}

} // namespace

CardTimelineView::CardTimelineView(const Models::CardTimeline *timeline, QWidget *parent)
    : QWidget(parent)
    , m_timeline(timeline)
{
    setObjectName(QStringLiteral("cardTimeline"));
    setMouseTracking(false);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    m_grew = new QTimer(this);
    m_grew->setSingleShot(true);
    m_grew->setInterval(250);
    connect(m_grew, &QTimer::timeout, this, &CardTimelineView::refresh);
}

void CardTimelineView::timelineGrew()
{
    if (!m_grew->isActive())
        m_grew->start();
}

void CardTimelineView::setCard(Domain::CardId card)
{
    m_card = card;
    refresh();
}

void CardTimelineView::setUtcOffset(int seconds)
{
    if (seconds == m_utcOffset)
        return;
    m_utcOffset = seconds;
    update();
}

void CardTimelineView::refresh()
{
    // Hidden (another side tab, a folded dock): read again when shown, not on every snapshot.
    m_stale = !isVisible();
    if (m_stale)
        return;
    m_spans = m_timeline ? m_timeline->spans(m_card) : QList<TimelineSpan>();
    m_slots = m_timeline ? m_timeline->memorySlots(m_card) : 0;
    update();
}

QSize CardTimelineView::sizeHint() const
{
    return {360, 170};
}

QSize CardTimelineView::minimumSizeHint() const
{
    return {200, 110};
}

CardTimelineView::Geometry CardTimelineView::geometry() const
{
    Geometry g;
    g.plot = rect().adjusted(kLeft, kTop, -kRight, -kBottom);
    if (m_timeline && m_timeline->lastMs() >= 0) {
        g.toMs = m_timeline->lastMs();
        g.fromMs = std::max(m_timeline->firstMs(), g.toMs - m_timeline->keepMs());
    }
    if (g.toMs - g.fromMs < 60'000)
        g.fromMs = g.toMs - 60'000; // at least a minute wide
    // Lanes: MIG spans sit on the memory slots; whole cards and shares get a lane per unit.
    bool mig = false;
    for (const TimelineSpan &s : m_spans) {
        if (s.span > 0) {
            mig = true;
            continue;
        }
        if (!g.laneOfUid.contains(s.uid))
            g.laneOfUid.insert(s.uid, int(g.laneOfUid.size()));
    }
    g.slots = mig ? std::max(1, m_slots) : 0;
    g.lanes = std::max<int>(1, int(g.laneOfUid.size()));
    // Ticks on round local times, at most about one per 70 px.
    const qint64 span = g.toMs - g.fromMs;
    const int most = std::max(2, g.plot.width() / 70);
    static constexpr std::array<qint64, 10> steps{60'000LL,
                                                  5 * 60'000LL,
                                                  15 * 60'000LL,
                                                  30 * 60'000LL,
                                                  3600'000LL,
                                                  2 * 3600'000LL,
                                                  3 * 3600'000LL,
                                                  6 * 3600'000LL,
                                                  12 * 3600'000LL,
                                                  24 * 3600'000LL};
    qint64 step = steps.back();
    for (const qint64 s : steps) {
        if (span / s <= most) {
            step = s;
            break;
        }
    }
    const qint64 offsetMs = qint64(m_utcOffset) * 1000;
    qint64 t = ((g.fromMs + offsetMs + step - 1) / step) * step - offsetMs;
    for (; t <= g.toMs; t += step)
        g.ticksMs.append(t);
    return g;
}

QRect CardTimelineView::rectOf(const Geometry &g, const TimelineSpan &s) const
{
    const double w = g.plot.width();
    const double range = double(g.toMs - g.fromMs);
    const auto x = [&](qint64 ms) {
        return g.plot.left()
               + int(std::lround(w * double(std::clamp(ms, g.fromMs, g.toMs) - g.fromMs) / range));
    };
    int left = x(s.fromMs);
    int right = std::max(left + 1, x(s.toMs)); // a moment seen once is still a line
    double top = 0;
    double bottom = 1;
    if (s.span > 0 && g.slots > 0) {
        top = double(s.start) / g.slots;
        bottom = double(s.start + s.span) / g.slots;
    } else if (g.laneOfUid.contains(s.uid) && g.slots == 0) {
        const int lane = g.laneOfUid.value(s.uid);
        top = double(lane) / g.lanes;
        bottom = double(lane + 1) / g.lanes;
    }
    const int h = g.plot.height();
    return QRect(QPoint(left, g.plot.top() + int(std::lround(top * h))),
                 QPoint(right - 1, g.plot.top() + int(std::lround(bottom * h)) - 2));
}

QRect CardTimelineView::spanRect(qsizetype index) const
{
    if (index < 0 || index >= m_spans.size())
        return {};
    return rectOf(geometry(), m_spans[index]);
}

QString CardTimelineView::timeText(qint64 ms) const
{
    return QDateTime::fromMSecsSinceEpoch(ms, QTimeZone(m_utcOffset))
            .toString(QStringLiteral("HH:mm"));
}

QStringList CardTimelineView::timeLabels() const
{
    QStringList labels;
    for (const qint64 t : geometry().ticksMs)
        labels << timeText(t);
    return labels;
}

QString CardTimelineView::unitText(const TimelineSpan &s) const
{
    if (!s.profile.isEmpty())
        return tr("%1 at slot %2").arg(s.profile).arg(s.start);
    if (s.milli >= 1000)
        return tr("the whole card");
    return tr("share %1 (%2% of the card)").arg(s.uid).arg(s.milli / 10);
}

QString CardTimelineView::describeAt(const QPoint &pos) const
{
    const Geometry g = geometry();
    for (qsizetype i = m_spans.size() - 1; i >= 0; --i) {
        const TimelineSpan &s = m_spans[i];
        if (!rectOf(g, s).contains(pos))
            continue;
        const QString to = s.open ? tr("now") : timeText(s.toMs);
        const QString from = timeText(s.fromMs);
        if (s.reconfiguring)
            return tr("%1 being created or destroyed, %2–%3").arg(unitText(s), from, to);
        if (!s.job.isValid())
            return tr("%1 free, %2–%3").arg(unitText(s), from, to);
        return tr("%1 on %2, %3–%4").arg(s.jobName, unitText(s), from, to);
    }
    return {};
}

bool CardTimelineView::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const QString text = describeAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    if (event->type() == QEvent::LanguageChange)
        update();
    if (event->type() == QEvent::Show && m_stale)
        refresh();
    return QWidget::event(event);
}

void CardTimelineView::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const Geometry g = geometry();
    const QPalette pal = palette();
    const QFontMetrics fm = fontMetrics();
    p.setPen(pal.color(QPalette::WindowText));
    p.drawText(QRect(0, 0, width(), kTop),
               Qt::AlignLeft | Qt::AlignVCenter,
               m_spans.isEmpty() ? tr("Layouts and holders over the day: nothing seen yet")
                                 : tr("Layouts and holders over the day"));
    p.fillRect(g.plot, pal.color(QPalette::Base));

    // The vertical axis: memory slots for MIG, or the lanes.
    p.setPen(pal.color(QPalette::PlaceholderText));
    if (g.slots > 0) {
        const int h = g.plot.height();
        const int every = h / g.slots >= fm.height() ? 1 : 2;
        for (int slot = 0; slot < g.slots; slot += every) {
            const int y = g.plot.top() + h * slot / g.slots;
            p.drawText(QRect(0, y, kLeft - 4, std::max(fm.height(), h / g.slots)),
                       Qt::AlignRight | Qt::AlignVCenter,
                       QString::number(slot));
        }
    }
    // The time axis: a tick and its local time.
    for (const qint64 t : g.ticksMs) {
        const int x = g.plot.left()
                      + int(std::lround(double(g.plot.width()) * double(t - g.fromMs)
                                        / double(g.toMs - g.fromMs)));
        p.drawLine(x, g.plot.top(), x, g.plot.bottom() + 3);
        const QString label = timeText(t);
        const int lw = fm.horizontalAdvance(label);
        p.drawText(QRect(std::clamp(x - lw / 2, 0, std::max(0, width() - lw)),
                         g.plot.bottom() + 3,
                         lw,
                         kBottom - 3),
                   Qt::AlignCenter,
                   label);
    }

    for (const TimelineSpan &s : m_spans) {
        const QRect r = rectOf(g, s);
        const QColor c = CardTile::classColor(classOf(s));
        QColor fill = c;
        fill.setAlpha(s.job.isValid() ? 210 : 70);
        p.setPen(QPen(c.darker(130), 1));
        p.setBrush(fill);
        p.drawRect(r);
        if (s.reconfiguring) {
            p.setBrush(QBrush(CardTile::reconfiguringColor(), Qt::BDiagPattern));
            p.drawRect(r);
        }
        if (s.job.isValid() && r.width() > 24 && r.height() >= fm.height()) {
            p.setPen(Qt::white);
            p.drawText(r.adjusted(3, 0, -2, 0),
                       Qt::AlignLeft | Qt::AlignVCenter,
                       fm.elidedText(s.jobName, Qt::ElideRight, r.width() - 5));
        }
    }
    p.setPen(pal.color(QPalette::Mid));
    p.setBrush(Qt::NoBrush);
    p.drawRect(g.plot.adjusted(0, 0, -1, -1));
}

} // namespace Zhaoxi::Widgets
