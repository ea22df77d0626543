// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sim/report.h"

#include <QAbstractTableModel>
#include <QList>
#include <QString>

namespace Zhaoxi::Widgets {

// The table of "What if?" (issue 18): one row per policy for a recorded period, what happened
// first ("recorded", Replay::replayCompare's first report), then each policy's replay; the
// columns of `zhaoxictl replay --compare` (SLO attainment, p99, training work, its share of the
// bound, work lost, reconfigurations, preemptions, energy) and one SLO attainment column per
// service. The best value of each column is bold (FontRole) and says so (ToolTipRole,
// BestRole), the policy that ran is marked in words. Numbers are rounded as shown before they
// are compared, so ties are bold alike. GUI thread only.
class WhatIfModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        PolicyColumn,
        SloColumn,
        P99Column,
        WorkColumn,
        BoundShareColumn,
        LostColumn,
        ReconfigurationsColumn,
        PreemptionsColumn,
        EnergyColumn,
        FirstServiceColumn, // then one per service
    };
    enum Role {
        ValueRole = Qt::UserRole + 1, // double: the column's figure (policy column: its name)
        BestRole,                     // bool: the best value of its column
        RanRole,                      // bool: the row of the policy that ran
        RecordedRole,                 // bool: the row of what happened
    };

    explicit WhatIfModel(QObject *parent = nullptr);

    // `reports` as Replay::replayCompare returns them; `ranPolicy` the one in force when the
    // period was recorded (RecordedPeriod::basisPolicy).
    void setReports(const QList<Sim::Report> &reports, const QString &ranPolicy);
    void clear();
    const QList<Sim::Report> &reports() const { return m_reports; }
    QString ranPolicy() const { return m_ran; }
    // The services of the per-service columns, in column order.
    QStringList services() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    // The policy's name as shown ("recorded", "time windows", …), for the row header and tests.
    static QString policyText(const QString &policy);

private:
    // The figure of a cell rounded as it is shown (NaN: none), and whether more is better.
    double shownValue(int row, int column) const;
    static bool higherIsBetter(int column);
    static int decimals(int column);
    void findBest();

    QList<Sim::Report> m_reports;
    QString m_ran;
    QList<double> m_best; // per column, the best shown value (NaN: none)
};

} // namespace Zhaoxi::Widgets
