// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "qcp.h"

#include <QList>
#include <QPen>
#include <QPointer>
#include <QString>

namespace Zhaoxi::Widgets {

// Vertical lines across one axis rect at given times (event markers), drawn on the plot's
// "markers" layer (behind the graphs), optionally with a short label at the top of each; labels
// that would overlap the ones before them go to a second row, or are left out. One layerable for
// all markers: cheaper than an item each. GUI thread.
class MarkerLayer : public QCPLayerable
{
    Q_OBJECT

public:
    struct Line
    {
        double t = 0; // on the rect's bottom axis
        QPen pen;
        QString label;
    };

    MarkerLayer(QCPAxisRect *rect, bool labels);

    void setLines(QList<Line> lines) { m_lines = std::move(lines); }
    const QList<Line> &lines() const { return m_lines; }

protected:
    void applyDefaultAntialiasingHint(QCPPainter *painter) const override;
    QRect clipRect() const override;
    void draw(QCPPainter *painter) override;

private:
    QPointer<QCPAxisRect> m_rect;
    bool m_labels;
    QList<Line> m_lines;
};

} // namespace Zhaoxi::Widgets
