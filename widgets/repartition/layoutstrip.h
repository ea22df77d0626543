// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "layoutedit.h"

#include <QList>
#include <QWidget>

namespace Zhaoxi::Widgets {

// A MIG card's memory slots as a strip with two rows: the layout the card has now (its instances,
// the busy ones with their job's name, instances being created or destroyed) and the planned
// layout being edited, with what the change destroys and creates marked in words and hatching,
// not by colour alone. Accepts profiles dropped from a ProfilePalette: while one is dragged over
// it, the allowed starts the layout rules accept are outlined and the slot under the cursor says
// whether the profile can go there and, when not, why. A drop is reported with profileDropped();
// the strip itself changes nothing (the editor decides). Clicking selects planned instances
// (Ctrl adds a second one). GUI thread only.
class LayoutStrip : public QWidget
{
    Q_OBJECT

public:
    enum class Row { Current, Planned };

    explicit LayoutStrip(QWidget *parent = nullptr);

    // The card's model (nullptr: nothing to show) and its catalogue index (dropped profiles of
    // another model are refused). The model must outlive its use here.
    void setCardModel(const Domain::CardModel *model, int modelIndex);
    void setLayouts(const QList<LayoutEdit::CurrentUnit> &current,
                    const LayoutEdit::Layout &planned);
    // Whether drops and selection are accepted.
    void setEditable(bool editable);
    bool isEditable() const { return m_editable; }
    // Shown instead of the rows when there is no model (e.g. "not a MIG card").
    void setPlaceholder(const QString &text);

    // Selected planned instances (indexes into the planned layout, in the order selected).
    QList<int> selection() const { return m_selection; }
    void setSelection(const QList<int> &indexes);

    // Geometry, for hit tests and tests: the memory slot under a point (-1 outside the slots),
    // and the centre of a slot in a row.
    int slotAt(const QPoint &pos) const;
    QPoint slotCenter(Row row, int slot) const;
    // The planned instance under a point, or -1.
    int plannedAt(const QPoint &pos) const;

    // Drag feedback while a profile is over the strip: the slot under the cursor (-1 when no drag),
    // whether the profile can go there, the sentence saying so, and the outlined legal starts.
    int hoverSlot() const { return m_dragging ? m_hoverSlot : -1; }
    bool isHoverLegal() const { return m_dragging && m_hover.isLegal() && m_sameModel; }
    QString hoverText() const { return m_dragging ? m_hoverText : QString(); }
    QList<int> highlightedStarts() const { return m_dragging ? m_legal : QList<int>(); }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    // A profile of the card's model was dropped over memory slot `slot`.
    void profileDropped(int profile, int slot);
    void selectionChanged();
    // Delete or Backspace with a selection.
    void removeRequested();

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dragMoveEvent(QDragMoveEvent *event) override;
    void dragLeaveEvent(QDragLeaveEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    bool event(QEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    struct Metrics
    {
        int margin = 6;
        int labelWidth = 0;
        int headerHeight = 0;
        int rowHeight = 0;
        int rowGap = 6;
        int hintHeight = 0;
    };
    Metrics metrics() const;
    QRect slotsArea(Row row) const;
    QRect spanRect(Row row, int start, int span) const;
    int span(int profile) const;
    void updateHover(int slot);
    void clearDrag();
    QString tooltipAt(const QPoint &pos) const;
    void paintRowLabel(QPainter &p, Row row, const QString &text) const;
    void paintFreeSlots(QPainter &p, Row row, quint32 occupied) const;
    void paintInstance(QPainter &p,
                       const QRect &r,
                       const QStringList &lines,
                       Qt::BrushStyle hatch,
                       const QColor &accent,
                       bool dashed,
                       bool selected) const;
    void paintDragOverlay(QPainter &p) const;

    const Domain::CardModel *m_model = nullptr;
    int m_modelIndex = -1;
    QList<LayoutEdit::CurrentUnit> m_current;
    LayoutEdit::Layout m_planned;
    LayoutEdit::Diff m_diff;
    QList<int> m_selection;
    bool m_editable = true;
    QString m_placeholder;

    bool m_dragging = false;
    bool m_sameModel = true;
    int m_dragProfile = -1;
    int m_hoverSlot = -1;
    LayoutEdit::DropTarget m_hover;
    QList<int> m_legal;
    QString m_hoverText;
};

} // namespace Zhaoxi::Widgets
