// SPDX-License-Identifier: GPL-3.0-or-later
#include "scheduletimeline.h"

#include <QApplication>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace Zhaoxi::Widgets {

using Models::ScheduleModel;
using Models::ScheduleWindow;

namespace {

constexpr int kDay = ScheduleModel::kMinutesPerDay;
constexpr int kWeek = ScheduleModel::kMinutesPerWeek;
constexpr int kGutter = 44; // day names
constexpr int kHeader = 20; // hour labels
constexpr int kMargin = 10; // right
constexpr int kLaneH = 28;  // blocks
constexpr int kLoadH = 16;  // the load strip under them
constexpr int kRowGap = 6;
constexpr int kRowH = kLaneH + kLoadH + kRowGap;
constexpr int kLegendH = 22;
constexpr int kEdgeGrab = 5; // px either side of a block's edge that resize it

int snap(int minute)
{
    const int s = ScheduleTimeline::kSnapMinutes;
    return int(std::lround(double(minute) / s)) * s;
}

int floorMod(int a, int b)
{
    const int r = a % b;
    return r < 0 ? r + b : r;
}

// Blocks are told apart by their names; the hue only helps.
QColor blockColour(int row)
{
    return QColor::fromHsv((205 + row * 67) % 360, 70, 240);
}

} // namespace

ScheduleTimeline::ScheduleTimeline(Models::ScheduleModel *model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
{
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAccessibleName(tr("Weekly schedule"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    auto repaint = [this] { update(); };
    connect(model, &QAbstractItemModel::dataChanged, this, repaint);
    connect(model, &QAbstractItemModel::modelReset, this, [this] {
        m_selected = -1;
        update();
    });
    connect(model, &QAbstractItemModel::rowsInserted, this, repaint);
    connect(model, &QAbstractItemModel::rowsRemoved, this, [this] {
        if (m_selected >= m_model->rowCount())
            m_selected = m_model->rowCount() - 1;
        update();
    });
}

QSize ScheduleTimeline::sizeHint() const
{
    return {kGutter + 24 * 32 + kMargin, kHeader + 7 * kRowH + kLegendH};
}

QSize ScheduleTimeline::minimumSizeHint() const
{
    return {kGutter + 24 * 14 + kMargin, kHeader + 7 * kRowH + kLegendH};
}

void ScheduleTimeline::setSelectedRow(int row)
{
    if (!m_model || row < -1 || row >= m_model->rowCount() || row == m_selected)
        return;
    m_selected = row;
    update();
}

void ScheduleTimeline::setNowMinute(int minuteOfWeek)
{
    if (minuteOfWeek == m_now)
        return;
    m_now = minuteOfWeek;
    update();
}

void ScheduleTimeline::setLoad(const QList<double> &forecast, const QList<double> &observed)
{
    m_forecast = forecast;
    m_observed = observed;
    update();
}

// ---- geometry --------------------------------------------------------------------------------

int ScheduleTimeline::left() const
{
    return kGutter;
}

int ScheduleTimeline::right() const
{
    return std::max(left() + 24, width() - kMargin);
}

double ScheduleTimeline::xOf(int minute) const
{
    return left() + double(right() - left()) * minute / kDay;
}

int ScheduleTimeline::minuteAtX(int x) const
{
    const double m = double(x - left()) * kDay / double(right() - left());
    return std::clamp(int(std::lround(m)), 0, kDay);
}

int ScheduleTimeline::dayAtY(int y) const
{
    return std::clamp((y - kHeader) / kRowH, 0, 6);
}

QRect ScheduleTimeline::laneRect(int day) const
{
    return QRect(left(), kHeader + day * kRowH, right() - left(), kLaneH);
}

QRect ScheduleTimeline::loadRect(int day) const
{
    const QRect lane = laneRect(day);
    return QRect(lane.left(), lane.bottom() + 1, lane.width(), kLoadH);
}

QRect ScheduleTimeline::rectOf(const Piece &p) const
{
    const QRect lane = laneRect(p.day);
    const int x0 = int(std::lround(xOf(p.from)));
    const int x1 = int(std::lround(xOf(p.to)));
    return QRect(x0, lane.top() + 2, std::max(1, x1 - x0), lane.height() - 4);
}

QPoint ScheduleTimeline::pointAt(int day, int minute) const
{
    return QPoint(int(std::lround(xOf(minute))), laneRect(day).center().y());
}

QList<ScheduleTimeline::Piece> ScheduleTimeline::piecesOf(int row, const ScheduleWindow &w)
{
    QList<Piece> out;
    const int len = w.lengthMinutes();
    for (int d = 0; d < 7; ++d) {
        if (!(w.days >> d & 1) || len <= 0)
            continue;
        const int start = d * kDay + w.effectiveFrom();
        const int end = start + len;
        for (int cur = start; cur < end;) {
            const int dayStart = cur - cur % kDay;
            const int segEnd = std::min(end, dayStart + kDay);
            Piece p;
            p.row = row;
            p.occurrenceDay = d;
            p.day = (dayStart / kDay) % 7;
            p.from = cur - dayStart;
            p.to = segEnd - dayStart;
            p.first = cur == start;
            p.last = segEnd == end;
            out.append(p);
            cur = segEnd;
        }
    }
    return out;
}

QList<ScheduleTimeline::Piece> ScheduleTimeline::pieces() const
{
    QList<Piece> out;
    if (!m_model)
        return out;
    for (int r = 0; r < m_model->rowCount(); ++r)
        out += piecesOf(r, m_model->window(r));
    return out;
}

QRect ScheduleTimeline::pieceRect(int row, int day) const
{
    for (const Piece &p : pieces()) {
        if (p.row == row && p.day == day)
            return rectOf(p);
    }
    return {};
}

std::optional<ScheduleTimeline::Piece> ScheduleTimeline::pieceAt(const QPoint &pos,
                                                                 DragKind *kind) const
{
    const QList<Piece> all = pieces();
    for (qsizetype i = all.size() - 1; i >= 0; --i) {
        const Piece &p = all[i];
        const QRect r = rectOf(p);
        const int grab = std::min(kEdgeGrab, std::max(1, r.width() / 4));
        if (pos.y() < r.top() || pos.y() > r.bottom() || pos.x() < r.left() - grab
            || pos.x() > r.right() + grab)
            continue;
        DragKind k = DragKind::Move;
        if (p.first && std::abs(pos.x() - r.left()) <= grab)
            k = DragKind::ResizeFrom;
        else if (p.last && std::abs(pos.x() - r.right()) <= grab)
            k = DragKind::ResizeTo;
        else if (pos.x() < r.left() || pos.x() > r.right())
            continue;
        if (kind)
            *kind = k;
        return p;
    }
    return std::nullopt;
}

int ScheduleTimeline::rowAt(const QPoint &pos) const
{
    const std::optional<Piece> p = pieceAt(pos, nullptr);
    return p ? p->row : -1;
}

// ---- dragging --------------------------------------------------------------------------------

void ScheduleTimeline::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || !m_model) {
        QWidget::mousePressEvent(event);
        return;
    }
    setFocus(Qt::MouseFocusReason);
    DragKind kind = DragKind::None;
    const std::optional<Piece> p = pieceAt(event->position().toPoint(), &kind);
    if (!p)
        return;
    m_drag = Drag();
    m_drag.kind = kind;
    m_drag.piece = *p;
    m_drag.pressPos = event->position().toPoint();
    m_drag.original = m_model->window(p->row);
    m_drag.candidate = m_drag.original;
    if (m_selected != p->row) {
        m_selected = p->row;
        update();
    }
    Q_EMIT windowClicked(p->row);
}

void ScheduleTimeline::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    if (m_drag.kind == DragKind::None) {
        DragKind kind = DragKind::None;
        const std::optional<Piece> p = pieceAt(pos, &kind);
        if (!p)
            unsetCursor();
        else
            setCursor(kind == DragKind::Move ? Qt::OpenHandCursor : Qt::SizeHorCursor);
        return;
    }
    // The drag follows the press, not the buttons the event reports (synthetic events may
    // carry none).
    if (!m_drag.moved
        && (pos - m_drag.pressPos).manhattanLength() < QApplication::startDragDistance())
        return;
    m_drag.moved = true;
    updateDrag(pos);
}

void ScheduleTimeline::updateDrag(const QPoint &pos)
{
    const ScheduleWindow &w = m_drag.original;
    const int len = w.lengthMinutes();
    const int from = w.effectiveFrom();
    ScheduleWindow c = w;
    const double perMinute = double(right() - left()) / kDay;
    switch (m_drag.kind) {
    case DragKind::Move: {
        const int dx = int(std::lround((pos.x() - m_drag.pressPos.x()) / perMinute));
        const int dDays = dayAtY(pos.y()) - dayAtY(m_drag.pressPos.y());
        const int raw = m_drag.piece.occurrenceDay * kDay + from + dx + dDays * kDay;
        m_drag.newFromMinuteOfWeek = floorMod(snap(raw), kWeek);
        c = ScheduleModel::moved(w, m_drag.newFromMinuteOfWeek, m_drag.piece.occurrenceDay);
        setCursor(Qt::ClosedHandCursor);
        break;
    }
    case DragKind::ResizeFrom: {
        const int m = snap(minuteAtX(pos.x()));
        if (from + len > kDay) { // wraps: the end stays on the next day
            c.fromMinute = std::clamp(m, w.toMinute + kSnapMinutes, kDay - kSnapMinutes);
        } else {
            const int end = from + len;
            c.fromMinute = std::clamp(m, 0, end - kSnapMinutes);
            c.toMinute = (end == kDay && w.toMinute == 0 && c.fromMinute > 0) ? 0 : end;
        }
        break;
    }
    case DragKind::ResizeTo: {
        const int m = snap(minuteAtX(pos.x()));
        if (m_drag.piece.first) { // the end is in the same row
            c.fromMinute = from;
            c.toMinute = std::clamp(m, from + kSnapMinutes, kDay);
        } else { // the tail of a window that wraps past midnight
            c.toMinute = std::clamp(m, 0, w.fromMinute - kSnapMinutes);
        }
        break;
    }
    case DragKind::None:
        return;
    }
    m_drag.candidate = c;
    const Models::ScheduleProblem problem = m_model->checkWindow(m_drag.piece.row, c);
    m_drag.possible = problem.ok();
    if (m_dragProblem != problem.text) {
        m_dragProblem = problem.text;
        Q_EMIT dragFeedback(m_dragProblem);
    }
    update();
}

void ScheduleTimeline::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || m_drag.kind == DragKind::None) {
        QWidget::mouseReleaseEvent(event);
        return;
    }
    if (m_drag.moved)
        updateDrag(event->position().toPoint());
    finishDrag();
}

void ScheduleTimeline::finishDrag()
{
    const Drag drag = m_drag;
    m_drag = Drag();
    m_dragProblem.clear();
    unsetCursor();
    update();
    if (!drag.moved || drag.candidate == drag.original)
        return;
    // Only ask: the owner applies it (or refuses it, and the block stays where it was).
    if (drag.kind == DragKind::Move)
        Q_EMIT moveRequested(drag.piece.row, drag.piece.occurrenceDay, drag.newFromMinuteOfWeek);
    else
        Q_EMIT resizeRequested(drag.piece.row, drag.candidate.fromMinute, drag.candidate.toMinute);
}

void ScheduleTimeline::keyPressEvent(QKeyEvent *event)
{
    if (!m_model || m_selected < 0 || m_selected >= m_model->rowCount()
        || (event->key() != Qt::Key_Left && event->key() != Qt::Key_Right)) {
        QWidget::keyPressEvent(event);
        return;
    }
    const ScheduleWindow w = m_model->window(m_selected);
    const int step = event->key() == Qt::Key_Left ? -kSnapMinutes : kSnapMinutes;
    if (event->modifiers() & Qt::ShiftModifier) {
        if (w.allDay())
            return;
        int to = w.toMinute + step;
        if (to < 0)
            to += kDay;
        else if (to > kDay)
            to -= kDay;
        Q_EMIT resizeRequested(m_selected, w.fromMinute, to);
    } else {
        const int d = [&] {
            for (int k = 0; k < 7; ++k) {
                if (w.days >> k & 1)
                    return k;
            }
            return 0;
        }();
        const int minutes = w.allDay() ? step / kSnapMinutes * kDay : step;
        Q_EMIT moveRequested(
                m_selected, d, floorMod(d * kDay + w.effectiveFrom() + minutes, kWeek));
    }
}

bool ScheduleTimeline::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip && m_model) {
        auto *help = static_cast<QHelpEvent *>(event);
        const std::optional<Piece> p = pieceAt(help->pos(), nullptr);
        if (!p) {
            QToolTip::hideText();
            event->ignore();
            return true;
        }
        const ScheduleWindow w = m_model->window(p->row);
        QToolTip::showText(help->globalPos(),
                           tr("%1: %2, inference %3")
                                   .arg(w.name,
                                        ScheduleModel::occurrenceText(w, p->occurrenceDay),
                                        ScheduleModel::shareText(w.inferenceShare)),
                           this);
        return true;
    }
    return QWidget::event(event);
}

void ScheduleTimeline::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange) {
        setAccessibleName(tr("Weekly schedule"));
        update();
    }
    QWidget::changeEvent(event);
}

// ---- painting --------------------------------------------------------------------------------

void ScheduleTimeline::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing, false);
    const QPalette pal = palette();
    p.fillRect(rect(), pal.base());

    // Hours: a line each hour, stronger every six, labels every three.
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.85));
    p.setFont(small);
    const QFontMetrics sfm(small);
    const int bottom = kHeader + 7 * kRowH - kRowGap;
    for (int h = 0; h <= 24; ++h) {
        const int x = int(std::lround(xOf(h * 60)));
        QColor c = pal.color(QPalette::Mid);
        c.setAlpha(h % 6 == 0 ? 160 : 60);
        p.setPen(c);
        p.drawLine(x, kHeader - 3, x, bottom);
        if (h % 3 == 0) {
            const QString label = ScheduleModel::timeText(h * 60);
            const int w = sfm.horizontalAdvance(label);
            const int lx = std::clamp(x - w / 2, left() - w / 2, width() - w - 1);
            p.setPen(pal.color(QPalette::Text));
            p.drawText(lx, kHeader - 6, label);
        }
    }
    p.setFont(font());
    for (int d = 0; d < 7; ++d) {
        const QRect lane = laneRect(d);
        const QRect label(0, lane.top(), kGutter - 6, kLaneH + kLoadH);
        p.setPen(pal.color(QPalette::Text));
        p.drawText(label, Qt::AlignRight | Qt::AlignVCenter, ScheduleModel::dayName(d));
    }

    paintLoad(p);

    if (m_model) {
        const bool dragging = m_drag.kind != DragKind::None && m_drag.moved;
        for (const Piece &piece : pieces()) {
            if (dragging && piece.row == m_drag.piece.row)
                p.setOpacity(0.35);
            paintBlock(p, piece, m_model->window(piece.row), false);
            p.setOpacity(1);
        }
        if (dragging) {
            for (const Piece &piece : piecesOf(m_drag.piece.row, m_drag.candidate))
                paintBlock(p, piece, m_drag.candidate, true);
        }
    }

    // Now: a line through the day's row, marked in the legend.
    const QColor nowColour(200, 30, 30);
    if (m_now >= 0) {
        const int day = (m_now / kDay) % 7;
        const int x = int(std::lround(xOf(m_now % kDay)));
        const QRect lane = laneRect(day);
        p.setPen(QPen(nowColour, 2));
        p.drawLine(x, lane.top() - 2, x, lane.bottom() + kLoadH);
        QPolygon tri;
        tri << QPoint(x - 4, lane.top() - 5) << QPoint(x + 4, lane.top() - 5)
            << QPoint(x, lane.top());
        p.setBrush(nowColour);
        p.setPen(Qt::NoPen);
        p.drawPolygon(tri);
        p.setBrush(Qt::NoBrush);
    }

    // Legend: the area, the observed line and the now line, each with its words.
    int x = left();
    const int y = bottom + 6;
    const QFontMetrics fm(font());
    QColor area = pal.color(QPalette::Highlight);
    area.setAlpha(90);
    p.fillRect(QRect(x, y + 4, 18, 10), area);
    p.setPen(pal.color(QPalette::Highlight));
    p.drawLine(x, y + 4, x + 18, y + 4);
    x += 24;
    p.setPen(pal.color(QPalette::Text));
    const QString forecastLabel = tr("forecast load");
    p.drawText(x, y + 4 + fm.ascent() / 2 + 3, forecastLabel);
    x += fm.horizontalAdvance(forecastLabel) + 18;
    if (!m_observed.isEmpty()) {
        p.setPen(QPen(pal.color(QPalette::Text), 1, Qt::DashLine));
        p.drawLine(x, y + 9, x + 18, y + 9);
        x += 24;
        p.setPen(pal.color(QPalette::Text));
        const QString observedLabel = tr("observed load");
        p.drawText(x, y + 4 + fm.ascent() / 2 + 3, observedLabel);
        x += fm.horizontalAdvance(observedLabel) + 18;
    }
    p.setPen(QPen(nowColour, 2));
    p.drawLine(x + 9, y + 2, x + 9, y + 16);
    x += 24;
    p.setPen(pal.color(QPalette::Text));
    p.drawText(x, y + 4 + fm.ascent() / 2 + 3, tr("now"));

    if (hasFocus()) {
        QColor c = pal.color(QPalette::Highlight);
        c.setAlpha(120);
        p.setPen(QPen(c, 1, Qt::DotLine));
        p.drawRect(rect().adjusted(0, 0, -1, -1));
    }
}

void ScheduleTimeline::paintLoad(QPainter &p)
{
    // Each series to its own peak: the forecast may come in another unit than the observed
    // request rate, and the strip shows shape, not amount.
    auto peakOf = [](const QList<double> &series) {
        double peak = 0;
        for (double v : series) {
            if (std::isfinite(v))
                peak = std::max(peak, v);
        }
        return peak;
    };
    const double forecastPeak = peakOf(m_forecast);
    const double observedPeak = peakOf(m_observed);
    const QPalette pal = palette();
    QColor fill = pal.color(QPalette::Highlight);
    fill.setAlpha(90);
    for (int d = 0; d < 7; ++d) {
        const QRect strip = loadRect(d);
        QColor bg = pal.color(QPalette::AlternateBase);
        p.fillRect(strip, bg);
        auto yOf = [&](double v, double peak) {
            return strip.bottom() - (strip.height() - 1) * std::clamp(v / peak, 0.0, 1.0);
        };
        // The forecast: a filled step area, one step per hour.
        QPainterPath outline;
        bool open = false;
        for (int h = 0; h < 24; ++h) {
            const qsizetype i = d * 24 + h;
            const double v = i < m_forecast.size() ? m_forecast[i] : qQNaN();
            if (!std::isfinite(v) || forecastPeak <= 0) {
                open = false;
                continue;
            }
            const double x0 = xOf(h * 60);
            const double x1 = xOf(h * 60 + 60);
            const double y = yOf(v, forecastPeak);
            p.fillRect(QRectF(x0, y, x1 - x0, strip.bottom() + 1 - y), fill);
            if (!open)
                outline.moveTo(x0, y);
            else
                outline.lineTo(x0, y);
            outline.lineTo(x1, y);
            open = true;
        }
        p.setPen(pal.color(QPalette::Highlight));
        p.setBrush(Qt::NoBrush);
        p.drawPath(outline);
        // The observed rate: a dashed step line.
        QPainterPath seen;
        open = false;
        for (int h = 0; h < 24; ++h) {
            const qsizetype i = d * 24 + h;
            const double v = i < m_observed.size() ? m_observed[i] : qQNaN();
            if (!std::isfinite(v) || observedPeak <= 0) {
                open = false;
                continue;
            }
            const double x0 = xOf(h * 60);
            const double x1 = xOf(h * 60 + 60);
            if (!open)
                seen.moveTo(x0, yOf(v, observedPeak));
            else
                seen.lineTo(x0, yOf(v, observedPeak));
            seen.lineTo(x1, yOf(v, observedPeak));
            open = true;
        }
        p.setPen(QPen(pal.color(QPalette::Text), 1, Qt::DashLine));
        p.drawPath(seen);
    }
}

void ScheduleTimeline::paintBlock(QPainter &p,
                                  const Piece &piece,
                                  const ScheduleWindow &w,
                                  bool ghost)
{
    const QRect r = rectOf(piece);
    const QPalette pal = palette();
    QColor fill = blockColour(piece.row);
    QPen pen(fill.darker(150), 1);
    QString text = tr("%1 · %2").arg(w.name, ScheduleModel::shareText(w.inferenceShare));
    if (ghost) {
        // Where it would land, and whether it may: a tick or a cross, not only a colour.
        fill = m_drag.possible ? QColor(200, 235, 200, 200) : QColor(245, 200, 200, 200);
        pen = QPen(m_drag.possible ? QColor(40, 120, 40) : QColor(170, 30, 30), 2, Qt::DashLine);
        text = (m_drag.possible ? QStringLiteral("\u2713 ") : QStringLiteral("\u2717 "))
               + ScheduleModel::occurrenceText(w, piece.occurrenceDay);
    } else if (piece.row == m_selected) {
        pen = QPen(pal.color(QPalette::Text), 3); // the selection: a heavy outline
    }
    p.setBrush(fill);
    p.setPen(pen);
    p.drawRect(r.adjusted(0, 0, -1, -1));
    p.setBrush(Qt::NoBrush);
    // Grips on the edges that resize.
    if (!ghost) {
        p.setPen(QPen(fill.darker(170), 1));
        if (piece.first && r.width() > 12)
            p.drawLine(r.left() + 3, r.top() + 6, r.left() + 3, r.bottom() - 6);
        if (piece.last && r.width() > 12)
            p.drawLine(r.right() - 3, r.top() + 6, r.right() - 3, r.bottom() - 6);
    }
    const QRect textRect = r.adjusted(6, 0, -6, 0);
    if (textRect.width() > 8) {
        p.setPen(QColor(20, 20, 20));
        p.drawText(textRect,
                   Qt::AlignVCenter | Qt::AlignLeft,
                   p.fontMetrics().elidedText(text, Qt::ElideRight, textRect.width()));
    }
}

} // namespace Zhaoxi::Widgets
