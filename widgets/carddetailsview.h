// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QPersistentModelIndex>
#include <QWidget>

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace Zhaoxi::Models {
struct CardReading;
class SeriesStore;
} // namespace Zhaoxi::Models

namespace Zhaoxi::Widgets {

// The selected card in detail: what it is; its health as nvidia-smi would tell it (utilisation,
// memory in use and whose, clock against full with the throttle reasons, temperature against
// the model's slowdown and shutdown temperatures, power against its limit, Xid and uncorrectable
// ECC errors, processes Zhaoxi did not start); and its partitions (MIG instances, the whole card,
// or its soft shares) with their compute, memory, job, whether that job is working or idle, how
// busy each is and how much of its memory is in use, and on hardware the processes on each; with
// a series store, the selected partition's utilisation and memory over the last hours
// (PartitionChart). Reads a CardTableModel row through its roles and follows the row's updates
// at most four times a second. GUI
// thread only.
class CardDetailsView : public QWidget
{
    Q_OBJECT

public:
    explicit CardDetailsView(QWidget *parent = nullptr);

    // An index of a Models::CardTableModel row (any column); an invalid index clears the view.
    void setCard(const QModelIndex &index);
    QModelIndex card() const { return m_card; }
    // Shows the selected partition's history from `store` (which must outlive the view).
    void setSeriesStore(Models::SeriesStore *store);
    // The partition whose history is shown (-1: none).
    int selectedPartition() const { return m_selectedUid; }
    void selectPartition(int uid);

protected:
    void changeEvent(QEvent *event) override;

    // The readings' lines as the view shows them (empty when the card has no reading).
    static QString readingsText(const Models::CardReading &reading);
    // "1g.18gb at slot 3 · chat-2": a partition row's name and job, the chart's title.
    static QString partitionTitle(const QTreeWidgetItem *item);

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
    class PartitionChart *m_chart = nullptr;
    int m_selectedUid = -1;
    bool m_filling = false;
    // Readings change with every snapshot (a catch-up sends one per simulated minute): the view
    // follows them at most four times a second; a card chosen is shown at once.
    class QTimer *m_refreshTimer = nullptr;
    void requestRefresh();
};

} // namespace Zhaoxi::Widgets
