// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/models/seriesstore.h"

#include "qcp.h"

#include <QPointer>
#include <QStringList>

class QTimer;

namespace Zhaoxi::Widgets {

// A small chart for the details pane: one or two series of a Models::SeriesStore over the last
// `spanSeconds` (15 min by default), without axes or legend; the second series has its own scale.
// The tooltip says what is drawn and its last and highest values ("chat p99: last 412 ms · max
// 930 ms"), so the chart is never colour alone. Follows the store's latest time; replots at most
// five times a second, and only while visible. The store must outlive the chart. GUI thread.
class SparkChart : public QCustomPlot
{
    Q_OBJECT

public:
    explicit SparkChart(Models::SeriesStore *store, QWidget *parent = nullptr);

    // Keys such as "card/3/util" or "svc/chat/p99"; an empty second key: one series.
    void setSeries(const QString &key, const QString &secondKey = QString());
    QStringList keys() const { return m_keys; }
    void setSpanSeconds(double seconds);
    double spanSeconds() const { return m_span; }

    // Syncs with the store and replots now (tests; the chart does this on its own).
    void refresh();
    // The tooltip's text, as of the last refresh.
    QString summary() const { return toolTip(); }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void changeEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    void scheduleReplot();
    void updateChart(bool immediate);
    void rebuild();

    Models::SeriesStore *m_store;
    QStringList m_keys;
    QList<quint64> m_next; // per key: the next sequence number of its series to draw
    double m_span = 15 * 60;
    QTimer *m_timer = nullptr;
};

} // namespace Zhaoxi::Widgets
