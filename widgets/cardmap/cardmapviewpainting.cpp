// SPDX-License-Identifier: GPL-3.0-or-later
// CardMapView: painting (the tiles, the legend and the drop target's verdict).
#include "cardmapview.h"

#include <QPaintEvent>
#include <QPainter>
#include <QScrollBar>

#include <algorithm>

namespace Zhaoxi::Widgets {

using Domain::CardId;
using Domain::HostId;
using Domain::JobId;
using Domain::PartitionMode;
using Session::PlacementPreview;

namespace {

const QString kIconFits = QStringLiteral("\u2713");     // ✓
const QString kIconPreempt = QStringLiteral("\u26a0");  // ⚠
const QString kIconRefused = QStringLiteral("\u2717");  // ✗
const QString kIconChecking = QStringLiteral("\u2026"); // …

QColor dropColor(CardMapView::DropState s)
{
    switch (s) {
    case CardMapView::DropState::Fits:
        return CardTile::levelColor(CardTile::Level::Green);
    case CardMapView::DropState::NeedsPreemption:
        return CardTile::levelColor(CardTile::Level::Amber);
    case CardMapView::DropState::Refused:
        return CardTile::levelColor(CardTile::Level::Red);
    case CardMapView::DropState::Checking:
    case CardMapView::DropState::None:
        break;
    }
    return QColor(0x80, 0x80, 0x80);
}

QString dropIcon(CardMapView::DropState s)
{
    switch (s) {
    case CardMapView::DropState::Fits:
        return kIconFits;
    case CardMapView::DropState::NeedsPreemption:
        return kIconPreempt;
    case CardMapView::DropState::Refused:
        return kIconRefused;
    case CardMapView::DropState::Checking:
        return kIconChecking;
    case CardMapView::DropState::None:
        break;
    }
    return QString();
}

} // namespace

void CardMapView::paintLegend(QPainter &p, const QRect &rect) const
{
    struct Entry
    {
        QColor color;
        Qt::BrushStyle brush;
        bool outlineOnly;
        QString text;
    };
    using CardTile::UnitClass;
    const QList<Entry> entries{
            {CardTile::classColor(UnitClass::Inference),
             Qt::SolidPattern,
             false,
             CardTile::classText(UnitClass::Inference)},
            {CardTile::classColor(UnitClass::Training),
             Qt::SolidPattern,
             false,
             CardTile::classText(UnitClass::Training)},
            {CardTile::classColor(UnitClass::Batch),
             Qt::SolidPattern,
             false,
             CardTile::classText(UnitClass::Batch)},
            {CardTile::classColor(UnitClass::Training),
             Qt::SolidPattern,
             true,
             tr("allocated, idle")},
            {m_style.mid, Qt::NoBrush, true, CardTile::classText(UnitClass::Free)},
            {CardTile::reconfiguringColor(), Qt::BDiagPattern, false, tr("reconf")},
            {CardTile::drainingColor(), Qt::FDiagPattern, false, tr("draining")},
    };
    p.setFont(m_style.smallFont);
    const QFontMetrics fm(m_style.smallFont);
    const int box = fm.height() - 4;
    int x = rect.left();
    const int cy = rect.center().y();
    for (const Entry &e : entries) {
        const QRect swatch(x, cy - box / 2, box * 2, box);
        if (e.outlineOnly) {
            QColor fill = e.color;
            fill.setAlpha(45);
            p.setPen(QPen(e.color, e.brush == Qt::NoBrush ? 1 : 2));
            p.setBrush(e.brush == Qt::NoBrush ? QBrush(Qt::NoBrush) : QBrush(fill));
        } else {
            p.setPen(QPen(e.color, 1));
            p.setBrush(QBrush(e.color, e.brush));
        }
        p.drawRect(swatch.adjusted(0, 0, -1, -1));
        x += swatch.width() + 4;
        p.setPen(m_style.text);
        const qreal w = CardTile::drawText(p,
                                           m_style,
                                           m_style.smallFont,
                                           QRectF(x, rect.top(), rect.right() - x, rect.height()),
                                           Qt::AlignLeft,
                                           e.text);
        x += int(w) + 14;
        if (x > rect.right())
            break;
    }
}

void CardMapView::paintEvent(QPaintEvent *event)
{
    QPainter p(viewport());
    p.fillRect(event->rect(), palette().color(QPalette::Window));
    if (!m_snapshot)
        return;
    const QPoint off = offset();
    p.translate(-off);
    const QRect visible = event->rect().translated(off);

    if (m_legend.intersects(visible))
        paintLegend(p, m_legend);

    const QFontMetrics smallFm(m_style.smallFont);
    for (const HostBlock &h : std::as_const(m_hosts)) {
        if (h.header.intersects(visible)) {
            p.setPen(m_style.text);
            CardTile::drawText(p,
                               m_style,
                               m_style.titleFont,
                               h.header.adjusted(0, 0, 0, -2),
                               Qt::AlignLeft,
                               h.title);
            p.setPen(m_style.mid);
            p.drawLine(h.header.bottomLeft(), h.header.bottomRight());
        }
        p.setFont(m_style.smallFont);
        for (const HostBlock::Bracket &b : h.brackets) {
            if (!b.rect.intersects(visible))
                continue;
            // ┌── NVLink 0 ──┐ over the tiles the link joins; a side that goes on to the
            // next row (or comes from the one above) stays open: ┌── NVLink 0 (1/2) ──.
            const int y = b.rect.center().y() + 1;
            const QString label = bracketLabel(b);
            const int lw = smallFm.horizontalAdvance(label) + 8;
            p.setPen(QPen(m_style.text, 1));
            if (!b.continuesLeft())
                p.drawLine(b.rect.left() + 1, y, b.rect.left() + 1, b.rect.bottom());
            if (!b.continuesRight())
                p.drawLine(b.rect.right() - 1, y, b.rect.right() - 1, b.rect.bottom());
            p.drawLine(b.rect.left() + 1, y, b.rect.left() + 6, y);
            p.drawLine(b.rect.left() + 6 + lw, y, b.rect.right() - 1, y);
            CardTile::drawText(p,
                               m_style,
                               m_style.smallFont,
                               QRect(b.rect.left() + 8, b.rect.top(), lw, b.rect.height()),
                               Qt::AlignLeft,
                               label);
        }
    }

    for (Tile &t : m_tiles) {
        if (t.rect.intersects(visible))
            p.drawPixmap(t.rect.topLeft(), tilePixmap(t));
    }

    // The selection: the card, and the partition within it.
    if (m_selection.card.isValid() && m_selection.card.value() < m_tiles.size()) {
        const Tile &t = m_tiles[m_selection.card.value()];
        QColor hl = palette().color(QPalette::Highlight);
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(hl, 3));
        p.drawRect(t.rect.adjusted(-2, -2, 1, 1));
        const QRect u = unitRect(m_selection.card, m_selection.unitUid).translated(off);
        if (!u.isEmpty()) {
            p.setPen(QPen(hl, 2, Qt::DashLine));
            p.drawRect(u.adjusted(1, 1, -2, -2));
        }
    }
    paintDropTarget(p);
}

void CardMapView::paintDropTarget(QPainter &p) const
{
    if (!m_drag.active || !m_drag.card.isValid() || m_drag.card.value() >= m_tiles.size())
        return;
    const QRect r = m_tiles[m_drag.card.value()].rect;
    const QColor c = dropColor(m_drag.state);
    QColor veil = c;
    veil.setAlpha(50);
    p.setPen(QPen(c, 4, m_drag.state == DropState::Checking ? Qt::DashLine : Qt::SolidLine));
    p.setBrush(veil);
    p.drawRect(r.adjusted(-1, -1, 0, 0));

    // The answer in words next to the card (never colour alone).
    const QString label = dropIcon(m_drag.state) + QLatin1Char(' ') + m_drag.text;
    QFont f = m_style.smallFont;
    f.setPixelSize(std::max(11, f.pixelSize()));
    p.setFont(f);
    const QFontMetrics fm(f);
    const int maxW = std::max(r.width() * 2, 240);
    QRect textRect = fm.boundingRect(QRect(0, 0, maxW, 1000), Qt::TextWordWrap, label);
    textRect.adjust(-6, -4, 6, 4);
    QPoint at(r.left(), r.bottom() + 4);
    const QRect content(QPoint(0, 0), m_contentSize);
    if (at.y() + textRect.height() > content.bottom())
        at.setY(r.top() - 4 - textRect.height());
    if (at.x() + textRect.width() > content.right())
        at.setX(std::max(0, content.right() - textRect.width()));
    textRect.moveTopLeft(at);
    p.setPen(QPen(c, 1));
    p.setBrush(palette().color(QPalette::ToolTipBase));
    p.drawRoundedRect(textRect, 4, 4);
    p.setPen(palette().color(QPalette::ToolTipText));
    p.drawText(textRect.adjusted(6, 4, -6, -4), Qt::TextWordWrap, label);
}

} // namespace Zhaoxi::Widgets
