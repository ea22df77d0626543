// SPDX-License-Identifier: GPL-3.0-or-later
#include "layoutstrip.h"

#include "profilepalette.h"
#include "repartitiontext.h"

#include <QDragEnterEvent>
#include <QDragLeaveEvent>
#include <QDragMoveEvent>
#include <QDropEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMimeData>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>

namespace Zhaoxi::Widgets {

using Domain::MigPlacement;
using LayoutEdit::CurrentUnit;

namespace {

// Semantic accents; every use also carries words and a hatch, never the hue alone.
const QColor kCreateColor(46, 125, 50);
const QColor kDestroyColor(198, 40, 40);
const QColor kChangingColor(239, 108, 0);

QColor mix(const QColor &a, const QColor &b, double t)
{
    return QColor::fromRgbF(float(a.redF() * (1 - t) + b.redF() * t),
                            float(a.greenF() * (1 - t) + b.greenF() * t),
                            float(a.blueF() * (1 - t) + b.blueF() * t));
}

} // namespace

LayoutStrip::LayoutStrip(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("layoutStrip"));
    setAcceptDrops(true);
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(false);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setAccessibleName(tr("Memory slots of the card"));
}

void LayoutStrip::setCardModel(const Domain::CardModel *model, int modelIndex)
{
    m_model = model;
    m_modelIndex = modelIndex;
    m_selection.clear();
    clearDrag();
    updateGeometry();
    update();
}

void LayoutStrip::setLayouts(const QList<CurrentUnit> &current, const LayoutEdit::Layout &planned)
{
    const bool plannedChanged = planned != m_planned;
    m_current = current;
    m_planned = planned;
    m_diff = LayoutEdit::diff(m_current, m_planned);
    if (plannedChanged && !m_selection.isEmpty()) {
        m_selection.clear();
        Q_EMIT selectionChanged();
    }
    if (m_dragging)
        updateHover(m_hoverSlot);
    update();
}

void LayoutStrip::setEditable(bool editable)
{
    if (m_editable == editable)
        return;
    m_editable = editable;
    setAcceptDrops(editable);
    if (!editable && !m_selection.isEmpty()) {
        m_selection.clear();
        Q_EMIT selectionChanged();
    }
    clearDrag();
    update();
}

void LayoutStrip::setPlaceholder(const QString &text)
{
    m_placeholder = text;
    update();
}

void LayoutStrip::setSelection(const QList<int> &indexes)
{
    QList<int> valid;
    for (int i : indexes) {
        if (i >= 0 && i < m_planned.size() && !valid.contains(i))
            valid.append(i);
    }
    if (valid == m_selection)
        return;
    m_selection = valid;
    update();
    Q_EMIT selectionChanged();
}

LayoutStrip::Metrics LayoutStrip::metrics() const
{
    const QFontMetrics fm = fontMetrics();
    Metrics m;
    m.labelWidth = std::max(fm.horizontalAdvance(tr("Now")), fm.horizontalAdvance(tr("Planned")))
                   + 2 * m.margin;
    m.headerHeight = fm.height() + 4;
    m.rowHeight = 3 * fm.height() + 12;
    m.hintHeight = fm.height() + 8;
    return m;
}

QSize LayoutStrip::sizeHint() const
{
    const Metrics m = metrics();
    const int h = 2 * m.margin + m.headerHeight + 2 * m.rowHeight + 2 * m.rowGap + m.hintHeight;
    const int slots = m_model ? m_model->migMemorySlices : 8;
    return QSize(m.labelWidth
                         + slots * fontMetrics().horizontalAdvance(QStringLiteral("1g.18gb+me"))
                         + 2 * m.margin,
                 h);
}

QSize LayoutStrip::minimumSizeHint() const
{
    const Metrics m = metrics();
    const int slots = m_model ? m_model->migMemorySlices : 8;
    return QSize(m.labelWidth + slots * fontMetrics().horizontalAdvance(QStringLiteral("1g.18gb"))
                         + 2 * m.margin,
                 sizeHint().height());
}

QRect LayoutStrip::slotsArea(Row row) const
{
    const Metrics m = metrics();
    const int left = m.margin + m.labelWidth;
    const int top = m.margin + m.headerHeight + (row == Row::Current ? 0 : m.rowHeight + m.rowGap);
    return QRect(left, top, std::max(1, width() - left - m.margin), m.rowHeight);
}

QRect LayoutStrip::spanRect(Row row, int start, int spanSlots) const
{
    const QRect area = slotsArea(row);
    const int slots = m_model ? std::max(1, m_model->migMemorySlices) : 8;
    const double w = double(area.width()) / slots;
    const int x0 = area.left() + int(start * w);
    const int x1 = area.left() + int((start + spanSlots) * w);
    return QRect(x0, area.top(), x1 - x0, area.height()).adjusted(2, 2, -2, -2);
}

int LayoutStrip::span(int profile) const
{
    if (!m_model || profile < 0 || profile >= m_model->migProfiles.size())
        return 1;
    return std::max(1, m_model->migProfiles[profile].span);
}

int LayoutStrip::slotAt(const QPoint &pos) const
{
    if (!m_model)
        return -1;
    const QRect area = slotsArea(Row::Current);
    if (pos.x() < area.left() || pos.x() > area.right())
        return -1;
    const int slots = std::max(1, m_model->migMemorySlices);
    const int slot = int(double(pos.x() - area.left()) * slots / area.width());
    return std::clamp(slot, 0, slots - 1);
}

QPoint LayoutStrip::slotCenter(Row row, int slot) const
{
    return spanRect(row, slot, 1).center();
}

int LayoutStrip::plannedAt(const QPoint &pos) const
{
    const QRect area = slotsArea(Row::Planned);
    if (pos.y() < area.top() || pos.y() > area.bottom())
        return -1;
    const int slot = slotAt(pos);
    if (slot < 0)
        return -1;
    for (int i = 0; i < m_planned.size(); ++i) {
        const MigPlacement p = m_planned[i];
        if (p.start <= slot && slot < p.start + span(p.profile))
            return i;
    }
    return -1;
}

void LayoutStrip::updateHover(int slot)
{
    m_hoverSlot = slot;
    m_legal.clear();
    m_hover = LayoutEdit::DropTarget();
    if (!m_model || !m_sameModel) {
        m_hoverText = tr("This profile belongs to another card model.");
        return;
    }
    m_legal = LayoutEdit::legalStarts(*m_model, m_planned, m_dragProfile);
    if (slot < 0) {
        m_hoverText = m_legal.isEmpty()
                              ? tr("There is no room for this profile on the planned layout.")
                              : tr("Drop over one of the outlined places.");
        return;
    }
    m_hover = LayoutEdit::dropTarget(*m_model, m_planned, m_dragProfile, slot);
    const QString what = Catalogue::formatPlacement(*m_model, m_hover.candidate);
    if (m_hover.isLegal()) {
        m_hoverText = tr("\u2713 Legal: %1 can go here.").arg(what);
    } else {
        LayoutEdit::Layout with = m_planned;
        with.append(m_hover.candidate);
        m_hoverText = tr("\u2717 Not here: %1")
                              .arg(RepartitionText::problem(*m_model, with, m_hover.verdict));
    }
}

void LayoutStrip::clearDrag()
{
    const bool was = m_dragging;
    m_dragging = false;
    m_dragProfile = -1;
    m_hoverSlot = -1;
    m_legal.clear();
    m_hoverText.clear();
    m_hover = LayoutEdit::DropTarget();
    if (was)
        update();
}

void LayoutStrip::dragEnterEvent(QDragEnterEvent *event)
{
    int modelIndex = -1, profile = -1;
    if (!m_editable || !m_model
        || !ProfilePalette::decode(event->mimeData(), &modelIndex, &profile)) {
        event->ignore();
        return;
    }
    m_dragging = true;
    m_dragProfile = profile;
    m_sameModel = modelIndex == m_modelIndex && profile < m_model->migProfiles.size();
    updateHover(slotAt(event->position().toPoint()));
    // Accept the enter even when the place is wrong, so that moves keep coming and the strip
    // can say why.
    event->setDropAction(Qt::CopyAction);
    event->accept();
    update();
}

void LayoutStrip::dragMoveEvent(QDragMoveEvent *event)
{
    if (!m_dragging) {
        event->ignore();
        return;
    }
    const int slot = slotAt(event->position().toPoint());
    if (slot != m_hoverSlot) {
        updateHover(slot);
        update();
    }
    if (isHoverLegal()) {
        event->setDropAction(Qt::CopyAction);
        event->accept();
    } else {
        event->ignore();
    }
}

void LayoutStrip::dragLeaveEvent(QDragLeaveEvent *event)
{
    clearDrag();
    event->accept();
}

void LayoutStrip::dropEvent(QDropEvent *event)
{
    int modelIndex = -1, profile = -1;
    const bool ok = m_editable && m_model
                    && ProfilePalette::decode(event->mimeData(), &modelIndex, &profile)
                    && modelIndex == m_modelIndex;
    const int slot = slotAt(event->position().toPoint());
    clearDrag();
    if (!ok) {
        event->ignore();
        return;
    }
    event->setDropAction(Qt::CopyAction);
    event->accept();
    Q_EMIT profileDropped(profile, slot);
}

void LayoutStrip::mousePressEvent(QMouseEvent *event)
{
    if (!m_editable || event->button() != Qt::LeftButton) {
        QWidget::mousePressEvent(event);
        return;
    }
    const int index = plannedAt(event->position().toPoint());
    QList<int> selection = m_selection;
    if (event->modifiers() & (Qt::ControlModifier | Qt::ShiftModifier)) {
        if (index >= 0) {
            if (selection.contains(index))
                selection.removeOne(index);
            else
                selection.append(index);
            while (selection.size() > 2)
                selection.removeFirst();
        }
    } else {
        selection = index >= 0 ? QList<int>{index} : QList<int>{};
    }
    setSelection(selection);
    event->accept();
}

void LayoutStrip::keyPressEvent(QKeyEvent *event)
{
    if (!m_editable) {
        QWidget::keyPressEvent(event);
        return;
    }
    switch (event->key()) {
    case Qt::Key_Delete:
    case Qt::Key_Backspace:
        if (!m_selection.isEmpty()) {
            Q_EMIT removeRequested();
            event->accept();
            return;
        }
        break;
    case Qt::Key_Left:
    case Qt::Key_Right:
        if (!m_planned.isEmpty()) {
            const int step = event->key() == Qt::Key_Left ? -1 : 1;
            const int from = m_selection.isEmpty() ? (step > 0 ? -1 : int(m_planned.size()))
                                                   : m_selection.last();
            const int to = std::clamp(from + step, 0, int(m_planned.size()) - 1);
            if (event->modifiers() & Qt::ShiftModifier) {
                QList<int> sel = m_selection;
                if (!sel.contains(to))
                    sel.append(to);
                while (sel.size() > 2)
                    sel.removeFirst();
                setSelection(sel);
            } else {
                setSelection({to});
            }
            event->accept();
            return;
        }
        break;
    case Qt::Key_Escape:
        if (!m_selection.isEmpty()) {
            setSelection({});
            event->accept();
            return;
        }
        break;
    default:
        break;
    }
    QWidget::keyPressEvent(event);
}

QString LayoutStrip::tooltipAt(const QPoint &pos) const
{
    if (!m_model)
        return QString();
    const int slot = slotAt(pos);
    if (slot < 0)
        return QString();
    const auto memory = [&](int profile) {
        return tr("%1 GiB").arg(QLocale().toString(
                double(m_model->migProfiles[profile].memoryMiB) / 1024.0, 'f', 1));
    };
    if (slotsArea(Row::Current).contains(pos)) {
        for (int u = 0; u < m_current.size(); ++u) {
            const CurrentUnit &cu = m_current[u];
            if (cu.placement.profile < 0 || cu.placement.profile >= m_model->migProfiles.size())
                continue;
            if (cu.placement.start <= slot
                && slot < cu.placement.start + span(cu.placement.profile)) {
                QStringList lines;
                lines << tr("%1 at slot %2, %3")
                                 .arg(m_model->migProfiles[cu.placement.profile].name)
                                 .arg(cu.placement.start)
                                 .arg(memory(cu.placement.profile));
                lines << (cu.jobName.isEmpty() ? tr("Free: serves no job")
                                               : tr("Busy: serves %1").arg(cu.jobName));
                if (cu.state != Sched::UnitState::Ready)
                    lines << tr("State: %1").arg(RepartitionText::unitState(cu.state));
                if (u < m_diff.unitKept.size() && !m_diff.unitKept[u])
                    lines << tr("The planned layout destroys it.");
                return lines.join(QLatin1Char('\n'));
            }
        }
        return tr("Slot %1 is free now.").arg(slot);
    }
    const int i = plannedAt(pos);
    if (i < 0)
        return slotsArea(Row::Planned).contains(pos) ? tr("Slot %1 stays free.").arg(slot)
                                                     : QString();
    const MigPlacement p = m_planned[i];
    if (p.profile < 0 || p.profile >= m_model->migProfiles.size())
        return QString();
    QStringList lines;
    lines << tr("%1 at slot %2, %3")
                     .arg(m_model->migProfiles[p.profile].name)
                     .arg(p.start)
                     .arg(memory(p.profile));
    lines << ((i < m_diff.placementCreated.size() && m_diff.placementCreated[i])
                      ? tr("The change creates it.")
                      : tr("Kept as it is."));
    return lines.join(QLatin1Char('\n'));
}

bool LayoutStrip::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const QString text = tooltipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

void LayoutStrip::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange) {
        setAccessibleName(tr("Memory slots of the card"));
        if (m_dragging)
            updateHover(m_hoverSlot);
        updateGeometry();
        update();
    } else if (event->type() == QEvent::FontChange) {
        updateGeometry();
    }
    QWidget::changeEvent(event);
}

void LayoutStrip::paintRowLabel(QPainter &p, Row row, const QString &text) const
{
    const Metrics m = metrics();
    const QRect area = slotsArea(row);
    const QRect label(m.margin, area.top(), m.labelWidth - m.margin, area.height());
    p.setPen(palette().color(QPalette::WindowText));
    QFont f = font();
    f.setBold(true);
    p.setFont(f);
    p.drawText(label, Qt::AlignLeft | Qt::AlignVCenter, text);
    p.setFont(font());
}

void LayoutStrip::paintFreeSlots(QPainter &p, Row row, quint32 occupied) const
{
    const QColor line = mix(palette().color(QPalette::Base), palette().color(QPalette::Text), 0.35);
    QPen pen(line, 1, Qt::DotLine);
    for (int s = 0; s < m_model->migMemorySlices; ++s) {
        if (occupied & (quint32(1) << s))
            continue;
        const QRect r = spanRect(row, s, 1);
        p.setPen(pen);
        p.setBrush(Qt::NoBrush);
        p.drawRoundedRect(r, 4, 4);
        p.setPen(line);
        p.drawText(r, Qt::AlignCenter, tr("free"));
    }
}

void LayoutStrip::paintInstance(QPainter &p,
                                const QRect &r,
                                const QStringList &lines,
                                Qt::BrushStyle hatch,
                                const QColor &accent,
                                bool dashed,
                                bool selected) const
{
    const QColor base = palette().color(QPalette::Base);
    const QColor text = palette().color(QPalette::Text);
    const QColor fill = mix(base, palette().color(QPalette::Highlight), 0.18);
    p.setPen(Qt::NoPen);
    p.setBrush(fill);
    p.drawRoundedRect(r, 5, 5);
    if (hatch != Qt::NoBrush) {
        QColor h = accent;
        h.setAlphaF(0.45f);
        p.setBrush(QBrush(h, hatch));
        p.drawRoundedRect(r, 5, 5);
    }
    QPen border(accent.isValid() ? accent : mix(base, text, 0.6), dashed ? 2 : 1.5);
    if (dashed)
        border.setStyle(Qt::DashLine);
    p.setPen(border);
    p.setBrush(Qt::NoBrush);
    p.drawRoundedRect(r, 5, 5);
    if (selected) {
        QPen sel(palette().color(QPalette::Highlight), 3);
        p.setPen(sel);
        p.drawRoundedRect(r.adjusted(-1, -1, 1, 1), 6, 6);
    }
    // Text on a plate of the base colour, so hatching never hurts legibility.
    const QFontMetrics fm = fontMetrics();
    const QRect inner = r.adjusted(5, 4, -5, -4);
    int y = inner.top();
    for (int i = 0; i < lines.size(); ++i) {
        if (lines[i].isEmpty()) {
            y += fm.height();
            continue;
        }
        QFont f = font();
        f.setBold(i == 0);
        const QFontMetrics lineMetrics(f);
        const QString t = lineMetrics.elidedText(lines[i], Qt::ElideRight, inner.width() - 4);
        const QRect plate(inner.left(),
                          y,
                          std::min(inner.width(), lineMetrics.horizontalAdvance(t) + 4),
                          fm.height());
        QColor plateColor = base;
        plateColor.setAlphaF(0.85f);
        p.fillRect(plate, plateColor);
        p.setFont(f);
        p.setPen(text);
        p.drawText(plate.adjusted(2, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, t);
        y += fm.height();
    }
    p.setFont(font());
}

void LayoutStrip::paintDragOverlay(QPainter &p) const
{
    if (!m_dragging || !m_sameModel || !m_model)
        return;
    const int sp = span(m_dragProfile);
    for (int s : m_legal) {
        const QRect r = spanRect(Row::Planned, s, sp).adjusted(1, 1, -1, -1);
        QPen pen(kCreateColor, 2, Qt::DashLine);
        p.setPen(pen);
        p.setBrush(Qt::NoBrush);
        p.drawRoundedRect(r, 5, 5);
        p.setPen(kCreateColor);
        p.drawText(r.adjusted(4, 2, -4, -2),
                   Qt::AlignRight | Qt::AlignBottom,
                   QStringLiteral("\u25BC"));
    }
    if (m_hoverSlot < 0)
        return;
    if (m_hover.isLegal()) {
        const QRect r = spanRect(Row::Planned, m_hover.start, sp);
        p.setPen(Qt::NoPen);
        p.setBrush(palette().color(QPalette::Base));
        p.drawRoundedRect(r, 5, 5);
        QColor fill = kCreateColor;
        fill.setAlphaF(0.25f);
        p.setPen(QPen(kCreateColor, 3));
        p.setBrush(fill);
        p.drawRoundedRect(r, 5, 5);
        p.setPen(palette().color(QPalette::Text));
        p.drawText(r.adjusted(4, 2, -4, -2),
                   Qt::AlignCenter | Qt::TextWordWrap,
                   QStringLiteral("\u2713 ")
                           + Catalogue::formatPlacement(*m_model, m_hover.candidate));
    } else {
        const QRect r = spanRect(Row::Planned, m_hoverSlot, 1);
        p.setPen(QPen(kDestroyColor, 3));
        QColor h = kDestroyColor;
        h.setAlphaF(0.6f);
        p.setBrush(QBrush(h, Qt::DiagCrossPattern));
        p.drawRoundedRect(r, 5, 5);
        p.setPen(palette().color(QPalette::Text));
        QFont f = font();
        f.setBold(true);
        p.setFont(f);
        p.drawText(r, Qt::AlignCenter, QStringLiteral("\u2717"));
        p.setFont(font());
    }
}

void LayoutStrip::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (!m_model) {
        p.setPen(palette().color(QPalette::Text));
        p.drawText(
                rect().adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap, m_placeholder);
        return;
    }
    const Metrics m = metrics();
    const QColor text = palette().color(QPalette::Text);

    // Slot numbers.
    p.setPen(mix(palette().color(QPalette::Base), text, 0.7));
    p.drawText(QRect(m.margin, m.margin, m.labelWidth - m.margin, m.headerHeight),
               Qt::AlignLeft | Qt::AlignVCenter,
               tr("Slot"));
    for (int s = 0; s < m_model->migMemorySlices; ++s) {
        QRect r = spanRect(Row::Current, s, 1);
        r.setTop(m.margin);
        r.setHeight(m.headerHeight);
        p.drawText(r, Qt::AlignCenter, QString::number(s));
    }

    // Now.
    paintRowLabel(p, Row::Current, tr("Now"));
    for (int u = 0; u < m_current.size(); ++u) {
        const CurrentUnit &cu = m_current[u];
        if (cu.placement.profile < 0 || cu.placement.profile >= m_model->migProfiles.size())
            continue;
        const int sp = span(cu.placement.profile);
        const bool destroyed = u < m_diff.unitKept.size() && !m_diff.unitKept[u];
        QStringList lines{m_model->migProfiles[cu.placement.profile].name,
                          cu.jobName.isEmpty() ? tr("idle")
                                               : QStringLiteral("\u25CF ") + cu.jobName};
        Qt::BrushStyle hatch = Qt::NoBrush;
        QColor accent;
        if (cu.state != Sched::UnitState::Ready) {
            lines << QStringLiteral("\u21BB ") + RepartitionText::unitState(cu.state);
            hatch = Qt::Dense6Pattern;
            accent = kChangingColor;
        } else if (destroyed) {
            lines << QStringLiteral("\u00D7 ") + tr("destroy");
            hatch = Qt::BDiagPattern;
            accent = kDestroyColor;
        } else {
            lines << QString();
        }
        paintInstance(p,
                      spanRect(Row::Current, cu.placement.start, sp),
                      lines,
                      hatch,
                      accent,
                      false,
                      false);
    }
    paintFreeSlots(
            p, Row::Current, Catalogue::occupancyMask(*m_model, LayoutEdit::layoutOf(m_current)));

    // Planned.
    paintRowLabel(p, Row::Planned, tr("Planned"));
    for (int i = 0; i < m_planned.size(); ++i) {
        const MigPlacement pl = m_planned[i];
        if (pl.profile < 0 || pl.profile >= m_model->migProfiles.size())
            continue;
        const int sp = span(pl.profile);
        const bool created = i < m_diff.placementCreated.size() && m_diff.placementCreated[i];
        const int unit = i < m_diff.unitOf.size() ? m_diff.unitOf[i] : -1;
        QString second;
        if (unit >= 0 && !m_current[unit].jobName.isEmpty())
            second = QStringLiteral("\u25CF ") + m_current[unit].jobName;
        QStringList lines{m_model->migProfiles[pl.profile].name, second};
        lines << (created ? QStringLiteral("+ ") + tr("create") : tr("kept"));
        paintInstance(p,
                      spanRect(Row::Planned, pl.start, sp),
                      lines,
                      created ? Qt::FDiagPattern : Qt::NoBrush,
                      created ? kCreateColor : QColor(),
                      created,
                      m_selection.contains(i));
    }
    paintFreeSlots(p, Row::Planned, Catalogue::occupancyMask(*m_model, m_planned));
    paintDragOverlay(p);

    // The hint line: the drag's verdict, or the legend.
    const QRect hint(m.margin,
                     slotsArea(Row::Planned).bottom() + m.rowGap,
                     width() - 2 * m.margin,
                     m.hintHeight);
    QString line;
    if (m_dragging) {
        line = m_hoverText;
        p.setPen(isHoverLegal() ? kCreateColor.darker(120) : kDestroyColor);
        QFont f = font();
        f.setBold(true);
        p.setFont(f);
    } else {
        line = tr("+ create (dashed, hatched) \u00B7 \u00D7 destroy (hatched) \u00B7 \u25CF busy "
                  "(job name) \u00B7 \u21BB changing state");
        p.setPen(mix(palette().color(QPalette::Base), text, 0.7));
    }
    p.drawText(hint,
               Qt::AlignLeft | Qt::AlignVCenter,
               fontMetrics().elidedText(line, Qt::ElideRight, hint.width()));
    p.setFont(font());
    if (hasFocus()) {
        p.setPen(QPen(palette().color(QPalette::Highlight), 1, Qt::DotLine));
        p.setBrush(Qt::NoBrush);
        p.drawRect(rect().adjusted(0, 0, -1, -1));
    }
}

} // namespace Zhaoxi::Widgets
