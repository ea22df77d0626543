// SPDX-License-Identifier: GPL-3.0-or-later
#include "whatifmodel.h"

#include "widgets/cardmap/reasontext.h"

#include <QFont>
#include <QLocale>

#include <cmath>
#include <limits>

namespace Zhaoxi::Widgets {

namespace {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

const Sim::ServiceReport *serviceOf(const Sim::Report &r, const QString &name)
{
    for (const Sim::ServiceReport &s : r.services) {
        if (s.name == name)
            return &s;
    }
    return nullptr;
}

} // namespace

WhatIfModel::WhatIfModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

void WhatIfModel::setReports(const QList<Sim::Report> &reports, const QString &ranPolicy)
{
    beginResetModel();
    m_reports = reports;
    m_ran = ranPolicy;
    findBest();
    endResetModel();
}

void WhatIfModel::clear()
{
    setReports({}, QString());
}

QStringList WhatIfModel::services() const
{
    QStringList out;
    if (!m_reports.isEmpty()) {
        for (const Sim::ServiceReport &s : m_reports.first().services)
            out << s.name;
    }
    return out;
}

int WhatIfModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_reports.size());
}

int WhatIfModel::columnCount(const QModelIndex &parent) const
{
    if (parent.isValid())
        return 0;
    return FirstServiceColumn + (m_reports.isEmpty() ? 0 : int(m_reports.first().services.size()));
}

QString WhatIfModel::policyText(const QString &policy)
{
    if (policy == QLatin1String("recorded"))
        return tr("recorded");
    return policyNameText(policy);
}

bool WhatIfModel::higherIsBetter(int column)
{
    switch (column) {
    case SloColumn:
    case WorkColumn:
    case BoundShareColumn:
        return true;
    case P99Column:
    case LostColumn:
    case ReconfigurationsColumn:
    case PreemptionsColumn:
    case EnergyColumn:
        return false;
    default:
        return column >= FirstServiceColumn; // a service's SLO attainment
    }
}

int WhatIfModel::decimals(int column)
{
    switch (column) {
    case SloColumn:
        return 2;
    case P99Column:
    case WorkColumn:
    case BoundShareColumn:
    case EnergyColumn:
        return 1;
    case LostColumn:
        return 2;
    case ReconfigurationsColumn:
    case PreemptionsColumn:
        return 0;
    default:
        return 2; // a service's SLO attainment
    }
}

double WhatIfModel::shownValue(int row, int column) const
{
    if (row < 0 || row >= m_reports.size())
        return kNone;
    const Sim::Report &r = m_reports[row];
    double v = kNone;
    switch (column) {
    case SloColumn:
        v = 100.0 * r.sloAttainment;
        break;
    case P99Column:
        v = r.p99Ms;
        break;
    case WorkColumn:
        v = r.workDone;
        break;
    case BoundShareColumn:
        v = r.workBound > 0 ? 100.0 * r.workDone / r.workBound : kNone;
        break;
    case LostColumn:
        v = r.lostWork;
        break;
    case ReconfigurationsColumn:
        v = r.reconfigurations;
        break;
    case PreemptionsColumn:
        v = r.preemptions;
        break;
    case EnergyColumn:
        v = r.energyKwh;
        break;
    default: {
        const QStringList names = services();
        const int s = column - FirstServiceColumn;
        if (s >= 0 && s < names.size()) {
            if (const Sim::ServiceReport *sr = serviceOf(r, names[s]))
                v = 100.0 * sr->sloAttainment;
        }
        break;
    }
    }
    if (std::isnan(v))
        return v;
    // Rounded as shown, so that what looks equal is equally best.
    const double scale = std::pow(10.0, decimals(column));
    return std::round(v * scale) / scale;
}

void WhatIfModel::findBest()
{
    m_best.clear();
    const int columns = columnCount();
    for (int c = 0; c < columns; ++c) {
        double best = kNone;
        if (c != PolicyColumn) {
            for (int r = 0; r < m_reports.size(); ++r) {
                const double v = shownValue(r, c);
                if (std::isnan(v))
                    continue;
                if (std::isnan(best) || (higherIsBetter(c) ? v > best : v < best))
                    best = v;
            }
        }
        m_best << best;
    }
}

QVariant WhatIfModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int row = index.row();
    const int column = index.column();
    const Sim::Report &r = m_reports[row];
    const bool recorded = row == 0 && r.policy == QLatin1String("recorded");
    const bool ran = !recorded && !m_ran.isEmpty() && r.policy == m_ran;
    const double v = column == PolicyColumn ? kNone : shownValue(row, column);
    const bool best = !std::isnan(v) && column < m_best.size() && v == m_best[column];
    switch (role) {
    case Qt::DisplayRole:
        if (column == PolicyColumn) {
            if (ran)
                return tr("%1 (ran)").arg(policyText(r.policy));
            return policyText(r.policy);
        }
        if (std::isnan(v))
            return QStringLiteral("–");
        return QLocale().toString(v, 'f', decimals(column));
    case Qt::ToolTipRole:
        if (column == PolicyColumn) {
            if (recorded)
                return tr("What actually happened in this period");
            if (ran)
                return tr("The policy in force when the period was recorded, replayed");
            return tr("The recorded period replayed under this policy");
        }
        return best ? tr("Best in this column") : QVariant();
    case Qt::FontRole:
        if (best || (column == PolicyColumn && (ran || recorded))) {
            QFont f;
            f.setBold(best);
            f.setItalic(column == PolicyColumn && recorded);
            f.setUnderline(column == PolicyColumn && ran);
            return f;
        }
        return {};
    case Qt::TextAlignmentRole:
        return column == PolicyColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                      : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case ValueRole:
        if (column == PolicyColumn)
            return r.policy;
        return std::isnan(v) ? QVariant() : QVariant(v);
    case BestRole:
        return best;
    case RanRole:
        return ran;
    case RecordedRole:
        return recorded;
    default:
        return {};
    }
}

QVariant WhatIfModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case PolicyColumn:
            return tr("Policy");
        case SloColumn:
            return tr("SLO %");
        case P99Column:
            return tr("p99 ms");
        case WorkColumn:
            return tr("Training h");
        case BoundShareColumn:
            return tr("% of bound");
        case LostColumn:
            return tr("Lost h");
        case ReconfigurationsColumn:
            return tr("Reconfigurations");
        case PreemptionsColumn:
            return tr("Preemptions");
        case EnergyColumn:
            return tr("kWh");
        default:
            return tr("%1 SLO %").arg(services().value(section - FirstServiceColumn));
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case SloColumn:
            return tr("Requests answered within their service's SLO, all services");
        case P99Column:
            return tr("99th percentile latency, all services");
        case WorkColumn:
            return tr("Training work done, in reference card-hours");
        case BoundShareColumn:
            return tr("Training work done against the fluid upper bound of the period");
        case LostColumn:
            return tr("Training work lost to preemptions and faults, in reference card-hours");
        case ReconfigurationsColumn:
            return tr("Partition changes made");
        case PreemptionsColumn:
            return tr("Jobs preempted");
        case EnergyColumn:
            return tr("Energy used by the cards");
        default:
            if (section >= FirstServiceColumn)
                return tr("Requests of %1 answered within its SLO")
                        .arg(services().value(section - FirstServiceColumn));
            return {};
        }
    }
    return {};
}

} // namespace Zhaoxi::Widgets
