// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QPersistentModelIndex>
#include <QWidget>

class QLabel;
class QTreeWidget;

namespace Zhaoxi::Widgets {

// The selected card in detail: what it is and its partitions (MIG instances, the whole card, or
// its soft shares) with their compute, memory and job. Reads a CardTableModel row through its
// roles and follows the row as the model updates. GUI thread only.
class CardDetailsView : public QWidget
{
    Q_OBJECT

public:
    explicit CardDetailsView(QWidget *parent = nullptr);

    // An index of a Models::CardTableModel row (any column); an invalid index clears the view.
    void setCard(const QModelIndex &index);
    QModelIndex card() const { return m_card; }

protected:
    void changeEvent(QEvent *event) override;

private:
    void watch(const QAbstractItemModel *model);
    void refresh();
    void retranslateUi();

    QPersistentModelIndex m_card;
    const QAbstractItemModel *m_model = nullptr;
    QLabel *m_title = nullptr;
    QLabel *m_summary = nullptr;
    QTreeWidget *m_partitions = nullptr;
};

} // namespace Zhaoxi::Widgets
