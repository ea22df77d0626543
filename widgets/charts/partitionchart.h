// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/domain/ids.h"
#include "core/models/seriesstore.h"

#include "qcp.h"

class QTimer;

namespace Zhaoxi::Widgets {

// One partition's history for the card details: its utilisation (left axis, percent; a gap where
// the hardware cannot say, as NVML for a MIG instance) and its memory in use (right axis, GiB)
// over the last `spanSeconds` (two hours by default), on a local time axis, every axis labelled.
// Reads the store's "part/<card>/<uid>/util" and ".../mem" series; replots at most twice a second
// and only while visible. The store must outlive the chart. GUI thread.
class PartitionChart : public QCustomPlot
{
    Q_OBJECT

public:
    explicit PartitionChart(Models::SeriesStore *store, QWidget *parent = nullptr);

    // The partition `uid` of `card`, called `title` ("3g.71gb at slot 4 · chat"); an invalid
    // card shows nothing.
    void setPartition(Domain::CardId card, int uid, const QString &title);
    Domain::CardId card() const { return m_card; }
    int uid() const { return m_uid; }
    void setSpanSeconds(double seconds);

    // Syncs with the store and replots now (tests; the chart does this on its own).
    void refresh();
    // The points drawn of utilisation and memory, as of the last refresh.
    int utilisationPoints() const;
    int memoryPoints() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void changeEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    void scheduleReplot();
    void updateChart(bool immediate);
    void retranslateUi();

    Models::SeriesStore *m_store;
    Domain::CardId m_card;
    int m_uid = -1;
    QString m_title;
    double m_span = 2 * 3600;
    QCPTextElement *m_heading = nullptr;
    QTimer *m_timer = nullptr;
};

} // namespace Zhaoxi::Widgets
