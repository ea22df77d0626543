// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/domain/ids.h"
#include "core/session/snapshot.h"

#include <QPointer>
#include <QWidget>

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace Zhaoxi::Models {
class JobTableModel;
class SessionClient;
} // namespace Zhaoxi::Models

namespace Zhaoxi::Widgets {

// The jobs of the appliance as a sortable table (a Models::JobTableModel fed by the client's
// snapshots, behind a sort/filter proxy) with a filter: "Waiting only" (the default: the jobs
// that can be dragged onto the card map) or "All jobs". Waiting rows drag their job ids
// (JobTableModel::mimeType()); the card map decides where they go. GUI thread only.
class JobsView : public QWidget
{
    Q_OBJECT

public:
    enum class Filter { WaitingOnly, All };
    Q_ENUM(Filter)

    // `client` may be null: feed setSnapshot() yourself then.
    explicit JobsView(Models::SessionClient *client, QWidget *parent = nullptr);

    Models::JobTableModel *jobModel() const { return m_model; }
    QSortFilterProxyModel *proxyModel() const { return m_proxy; }
    QTableView *tableView() const { return m_table; }

    Filter filter() const;
    void setFilter(Filter filter);
    // The job of the current row (invalid when none).
    Domain::JobId currentJob() const;

public Q_SLOTS:
    void setSnapshot(const Zhaoxi::Session::SnapshotPtr &snapshot);

Q_SIGNALS:
    // The current row moved to another job (invalid: none).
    void jobSelected(Zhaoxi::Domain::JobId job);

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslateUi();
    void updateSummary();

    QPointer<Models::SessionClient> m_client;
    Models::JobTableModel *m_model = nullptr;
    QSortFilterProxyModel *m_proxy = nullptr;
    QTableView *m_table = nullptr;
    QComboBox *m_filter = nullptr;
    QLabel *m_filterLabel = nullptr;
    QLabel *m_summary = nullptr;
};

} // namespace Zhaoxi::Widgets
