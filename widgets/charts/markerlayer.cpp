// SPDX-License-Identifier: GPL-3.0-or-later
#include "markerlayer.h"

#include <QFontMetrics>

#include <limits>

namespace Zhaoxi::Widgets {

MarkerLayer::MarkerLayer(QCPAxisRect *rect, bool labels)
    : QCPLayerable(rect->parentPlot(), QStringLiteral("markers"))
    , m_rect(rect)
    , m_labels(labels)
{}

void MarkerLayer::applyDefaultAntialiasingHint(QCPPainter *painter) const
{
    applyAntialiasingHint(painter, false, QCP::aeOther);
}

QRect MarkerLayer::clipRect() const
{
    return m_rect ? m_rect->rect() : QRect();
}

void MarkerLayer::draw(QCPPainter *painter)
{
    if (!m_rect)
        return;
    const QRect r = m_rect->rect();
    const QCPAxis *x = m_rect->axis(QCPAxis::atBottom);
    QFont font = mParentPlot->font();
    font.setPointSizeF(font.pointSizeF() * 0.85);
    const QFontMetrics fm(font);
    constexpr int kRows = 2;
    double rowEnd[kRows];
    std::fill(std::begin(rowEnd), std::end(rowEnd), -std::numeric_limits<double>::infinity());
    for (const Line &line : std::as_const(m_lines)) {
        const double px = x->coordToPixel(line.t);
        if (px < r.left() || px > r.right())
            continue;
        // The lines a little faded, so that a busy hour does not hide the data; labels not.
        QPen pen = line.pen;
        QColor faded = pen.color();
        faded.setAlpha(150);
        pen.setColor(faded);
        painter->setPen(pen);
        painter->drawLine(QLineF(px, r.top(), px, r.bottom()));
        if (!m_labels || line.label.isEmpty())
            continue;
        const int w = fm.horizontalAdvance(line.label) + 4;
        for (int row = 0; row < kRows; ++row) {
            if (px + 2 < rowEnd[row])
                continue;
            const QRectF box(px + 2, r.top() + 2 + row * (fm.height() + 2), w, fm.height());
            painter->setPen(Qt::NoPen);
            painter->setBrush(QColor(255, 255, 255, 210));
            painter->drawRect(box);
            painter->setFont(font);
            painter->setPen(line.pen.color());
            painter->drawText(box, Qt::AlignCenter, line.label);
            rowEnd[row] = box.right() + 4;
            break;
        }
    }
}

} // namespace Zhaoxi::Widgets
