// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/domain/ids.h"
#include "core/models/cardtimeline.h"

#include <QList>
#include <QWidget>

class QTimer;

namespace Zhaoxi::Widgets {

// One card's day: its layouts and who held each unit, left (oldest) to right (now), from a
// Models::CardTimeline. MIG instances sit on the card's memory slots (the vertical axis, labelled
// 0..7), as on the card map, so a repartition shows as the strips changing shape; whole cards and
// soft shares are lanes. A unit is coloured by its holder's class (inference, training, batch),
// grey while free, hatched while being created or destroyed, and named where the name fits; the
// time axis is labelled in the appliance's local time, and a tooltip tells each stretch's unit,
// holder and times. GUI thread only.
class CardTimelineView : public QWidget
{
    Q_OBJECT

public:
    explicit CardTimelineView(const Models::CardTimeline *timeline, QWidget *parent = nullptr);

    void setCard(Domain::CardId card);
    Domain::CardId card() const { return m_card; }
    void setUtcOffset(int seconds);
    // The timeline learnt more: read the card's spans again and repaint (when shown; a hidden
    // view reads them when it is shown).
    void refresh();
    // The timeline learnt a snapshot more: refreshed at most a few times a second (a catch-up
    // delivers a snapshot per simulated minute; a day-long picture needs no more).
    void timelineGrew();

    // What is under a point ("chat on 1g.18gb at slot 6, 09:12–now"); empty where nothing is.
    QString describeAt(const QPoint &pos) const;
    // The spans shown, oldest first, and where each is drawn (for tests and the tooltip).
    const QList<Models::TimelineSpan> &spans() const { return m_spans; }
    QRect spanRect(qsizetype index) const;
    // The time axis' labels as drawn ("06:00", "12:00").
    QStringList timeLabels() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;
    bool event(QEvent *event) override;

private:
    struct Geometry
    {
        QRect plot;
        qint64 fromMs = 0;
        qint64 toMs = 1;
        int slots = 0; // MIG memory slots on the vertical axis (0: lanes only)
        int lanes = 1; // whole cards and shares
        QHash<int, int> laneOfUid;
        QList<qint64> ticksMs;
    };
    Geometry geometry() const;
    QRect rectOf(const Geometry &g, const Models::TimelineSpan &s) const;
    QString unitText(const Models::TimelineSpan &s) const;
    QString timeText(qint64 ms) const;

    const Models::CardTimeline *m_timeline = nullptr;
    Domain::CardId m_card;
    int m_utcOffset = 0;
    QList<Models::TimelineSpan> m_spans;
    int m_slots = 0;
    bool m_stale = false; // refreshed while hidden
    QTimer *m_grew = nullptr;
};

} // namespace Zhaoxi::Widgets
