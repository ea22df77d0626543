// SPDX-License-Identifier: GPL-3.0-or-later
#include "cardsortmodel.h"

#include "cardtablemodel.h"

namespace Zhaoxi::Models {

CardSortModel::CardSortModel(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(CardTableModel::SortRole);
    setDynamicSortFilter(true);
}

bool CardSortModel::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const QVariant a = left.data(sortRole());
    const QVariant b = right.data(sortRole());
    const QPartialOrdering order = QVariant::compare(a, b);
    if (order == QPartialOrdering::Less)
        return true;
    if (order == QPartialOrdering::Greater)
        return false;
    // Qt reverses lessThan() for a descending sort; ties stay in card-id order either way.
    const int l = left.data(CardTableModel::CardIdRole).toInt();
    const int r = right.data(CardTableModel::CardIdRole).toInt();
    return sortOrder() == Qt::AscendingOrder ? l < r : l > r;
}

} // namespace Zhaoxi::Models
