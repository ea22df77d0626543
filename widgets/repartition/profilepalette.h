// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/domain/cardmodel.h"

#include <QList>
#include <QTreeWidget>

class QMimeData;

namespace Zhaoxi::Widgets {

// The MIG profiles of one card model as a palette: name, memory, compute slices, the most
// instances a card holds, and where the profile could go on the pending layout now. Profiles are
// dragged out of it as ProfilePalette::kMimeType (HOUSE_STYLE 9: ids, not text); double-click or
// Enter asks for the profile at its first free start. GUI thread only.
class ProfilePalette : public QTreeWidget
{
    Q_OBJECT

public:
    // Carries the catalogue model index and the profile index, as a small JSON object:
    // {"model": 3, "profile": 0}.
    static constexpr const char *kMimeType = "application/x-zhaoxi-mig-profile";
    static QMimeData *encode(int modelIndex, int profile);
    // False when the data carries no valid profile reference.
    static bool decode(const QMimeData *data, int *modelIndex, int *profile);

    enum Column { ProfileColumn, MemoryColumn, ComputeColumn, MaxColumn, WhereColumn, ColumnCount };

    explicit ProfilePalette(QWidget *parent = nullptr);

    // The model whose profiles to list (`modelIndex`: its index in the catalogue); nullptr
    // empties the palette. The model must outlive the palette's use of it.
    void setCardModel(const Domain::CardModel *model, int modelIndex);
    // Refreshes the "can go at" column for this layout.
    void setPendingLayout(const QList<Domain::MigPlacement> &layout);
    // Whether profiles can be dragged out and activated.
    void setEditable(bool editable);

    QSize sizeHint() const override;

Q_SIGNALS:
    void profileActivated(int profile);

protected:
    QStringList mimeTypes() const override;
    QMimeData *mimeData(const QList<QTreeWidgetItem *> &items) const override;
    Qt::DropActions supportedDropActions() const override;
    void startDrag(Qt::DropActions supportedActions) override;
    void changeEvent(QEvent *event) override;

private:
    void rebuild();
    void refreshWhere();
    void retranslateUi();

    const Domain::CardModel *m_model = nullptr;
    int m_modelIndex = -1;
    QList<Domain::MigPlacement> m_layout;
    bool m_editable = true;
};

} // namespace Zhaoxi::Widgets
