// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/models/schedulemodel.h"

#include <QList>
#include <QPointer>
#include <QWidget>

#include <optional>

namespace Zhaoxi::Widgets {

// The week as seven rows (Monday to Sunday) of 24 hours: each window of a ScheduleModel is a
// block per day it covers, labelled with its name and inference share (colour is never the only
// cue); under the blocks of each row the forecast load, normalised to the week's peak; a "now"
// line at the appliance's local time.
//
// Dragging a block asks to move it, dragging its left or right edge asks to resize it (snapping
// to 15 minutes). While dragging, the model is asked whether the result could be the schedule
// and the ghost block says so (with the reason); on release the timeline only asks
// (moveRequested / resizeRequested): the owner applies the edit, and when it is refused nothing
// moved, so the block is where it was. Left/Right move the selected window by 15 minutes,
// Shift+Left/Right move its end. GUI thread.
class ScheduleTimeline : public QWidget
{
    Q_OBJECT

public:
    static constexpr int kSnapMinutes = 15;

    explicit ScheduleTimeline(Models::ScheduleModel *model, QWidget *parent = nullptr);

    int selectedRow() const { return m_selected; }
    void setSelectedRow(int row);
    // The local time of the appliance (minute of the week, Monday 00:00 = 0; -1 hides the line).
    void setNowMinute(int minuteOfWeek);
    int nowMinute() const { return m_now; }
    // Per hour of the week (168 values, NaN: unknown): the area under the blocks and, when
    // given, the observed load as a line.
    void setLoad(const QList<double> &forecast, const QList<double> &observed);

    // Geometry, for tests and for the owner's tooltips.
    QPoint pointAt(int day, int minute) const; // the middle of the block lane
    QRect pieceRect(int row, int day) const;   // the piece of `row` drawn in `day`'s row
    int rowAt(const QPoint &pos) const;        // the window under `pos` (-1: none)
    // The text shown while a drag would be refused (empty otherwise).
    QString dragProblem() const { return m_dragProblem; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void windowClicked(int row);
    // Move `row` so that its occurrence opening on `occurrenceDay` opens at the minute given.
    void moveRequested(int row, int occurrenceDay, int newFromMinuteOfWeek);
    void resizeRequested(int row, int fromMinute, int toMinute);
    // While dragging: the reason the drop would be refused ("" when it would be accepted).
    void dragFeedback(const QString &problem);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void changeEvent(QEvent *event) override;
    bool event(QEvent *event) override;

private:
    // One day row's share of one occurrence of a window.
    struct Piece
    {
        int row = -1;
        int occurrenceDay = 0; // the day the occurrence opens
        int day = 0;           // the day row it is drawn in
        int from = 0;          // minutes within that day
        int to = 0;
        bool first = false; // holds the window's opening edge
        bool last = false;  // ... its closing edge
    };
    enum class DragKind { None, Move, ResizeFrom, ResizeTo };
    struct Drag
    {
        DragKind kind = DragKind::None;
        Piece piece;
        QPoint pressPos;
        bool moved = false;
        Models::ScheduleWindow original;
        Models::ScheduleWindow candidate;
        int newFromMinuteOfWeek = 0; // Move
        bool possible = true;
    };

    static QList<Piece> piecesOf(int row, const Models::ScheduleWindow &w);
    QList<Piece> pieces() const;
    QRect laneRect(int day) const; // the block lane of a day row
    QRect loadRect(int day) const; // the load strip under it
    int left() const;
    int right() const;
    double xOf(int minute) const;
    int minuteAtX(int x) const; // unsnapped, clamped to the day
    int dayAtY(int y) const;    // clamped to 0..6
    QRect rectOf(const Piece &p) const;
    std::optional<Piece> pieceAt(const QPoint &pos, DragKind *kind) const;
    void updateDrag(const QPoint &pos);
    void finishDrag();
    void paintLoad(QPainter &p);
    void paintBlock(QPainter &p, const Piece &piece, const Models::ScheduleWindow &w, bool ghost);

    QPointer<Models::ScheduleModel> m_model;
    int m_selected = -1;
    int m_now = -1;
    QList<double> m_forecast;
    QList<double> m_observed;
    Drag m_drag;
    QString m_dragProblem;
};

} // namespace Zhaoxi::Widgets
