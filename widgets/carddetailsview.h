// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QPersistentModelIndex>
#include <QWidget>

class QLabel;
class QTreeWidget;

namespace Zhaoxi::Models {
struct CardReading;
}

namespace Zhaoxi::Widgets {

// The selected card in detail: what it is; its health as nvidia-smi would tell it (utilisation,
// memory in use and whose, clock against full with the throttle reasons, temperature against
// the model's slowdown and shutdown temperatures, power against its limit, Xid and uncorrectable
// ECC errors, processes Zhaoxi did not start); and its partitions (MIG instances, the whole card,
// or its soft shares) with their compute, memory, job and whether that job is working or idle.
// Reads a CardTableModel row through its roles and follows the row as the model updates. GUI
// thread only.
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

    // The readings' lines as the view shows them (empty when the card has no reading).
    static QString readingsText(const Models::CardReading &reading);

private:
    void watch(const QAbstractItemModel *model);
    void refresh();
    void retranslateUi();

    QPersistentModelIndex m_card;
    const QAbstractItemModel *m_model = nullptr;
    QLabel *m_title = nullptr;
    QLabel *m_summary = nullptr;
    QLabel *m_readings = nullptr;
    QTreeWidget *m_partitions = nullptr;
};

} // namespace Zhaoxi::Widgets
