// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QSortFilterProxyModel>

namespace Zhaoxi::Models {

// Sorts a CardTableModel by each column's natural key (CardTableModel::SortRole: host order for
// the host column, numbers as numbers), ties in card-id order in either direction. So sorting by host keeps each
// host's cards together and in order, and every sort is total: rows never swap places between
// two updates with equal keys. GUI thread only.
class CardSortModel : public QSortFilterProxyModel
{
    Q_OBJECT

public:
    explicit CardSortModel(QObject *parent = nullptr);

protected:
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;
};

} // namespace Zhaoxi::Models
