// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/domain/ids.h"
#include "core/session/session.h"
#include "core/session/snapshot.h"

#include <QFont>
#include <QHash>
#include <QPixmap>
#include <QPoint>
#include <QPointer>
#include <QWidget>

#include <optional>

class QComboBox;
class QLabel;
class QMenu;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace Zhaoxi::Models {
class JobTableModel;
class SessionClient;
} // namespace Zhaoxi::Models

namespace Zhaoxi::Widgets {

class JobLogDialog;
class NewWorkloadDialog;

// The jobs of the appliance as a sortable table (a Models::JobTableModel fed by the client's
// snapshots, behind a sort/filter proxy) with a filter: "Waiting only" (the default: the jobs
// that can be dragged onto the card map) or "All jobs". Waiting rows drag their job ids
// (JobTableModel::mimeType()); the card map decides where they go.
//
// The operator's commands on jobs: "New workload…" (a button, and NewWorkloadDialog), and a
// row's context menu: Cancel (after a confirmation), Requeue (running jobs), Change priority…,
// View log… (a JobLogDialog per job). Each action is enabled by the job's state (an ended job
// only shows its log); each command's answer is said through statusMessage(), a refusal with the
// session's reason in the console's words. GUI thread only.
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
    // The image a dragged job carries: a chip with its name (or "3 jobs"), at most about 216 px
    // wide, held below and to the right of the pointer (kDragHotSpot) so the target stays seen.
    static QPixmap dragImage(const QStringList &names, qreal devicePixelRatio, const QFont &font);
    static constexpr QPoint kDragHotSpot{-14, -14};

    Filter filter() const;
    void setFilter(Filter filter);
    // The job of the current row (invalid when none).
    Domain::JobId currentJob() const;
    // Makes `job` the current row, showing all jobs when the filter hides it; a job the
    // snapshots do not have yet (just submitted) is selected when it arrives.
    void selectJob(Domain::JobId job);

    // The context menu for a job (invalid: for no row): the actions below, by objectName
    // "cancelJob", "requeueJob", "changePriority", "viewLog" (not for no row) and "newWorkload",
    // enabled as the job's state allows. The caller owns the menu.
    QMenu *createContextMenu(Domain::JobId job, QWidget *parent = nullptr);

    // The commands, as the menu runs them, with the same state rules (cancel and priority: a job
    // that has not ended; requeue: a running job). Cancel asks for confirmation first and
    // changePriority for the new value (both modal); each returns the request id sent (0:
    // nothing sent, as the operator declined, or the job is unknown or its state does not allow
    // it).
    quint64 cancelJob(Domain::JobId job);
    quint64 requeueJob(Domain::JobId job);
    quint64 changePriority(Domain::JobId job);
    quint64 setJobPriority(Domain::JobId job, int priority);
    // The job's log window (one per job, raised when already open; non-modal).
    JobLogDialog *showLog(Domain::JobId job);
    // Opens the New workload dialog (window-modal); on success it selects the new job.
    NewWorkloadDialog *newWorkload();

public Q_SLOTS:
    void setSnapshot(const Zhaoxi::Session::SnapshotPtr &snapshot);

Q_SIGNALS:
    // The current row moved to another job (invalid: none).
    void jobSelected(Zhaoxi::Domain::JobId job);
    // A sentence for the status bar: a command's outcome.
    void statusMessage(const QString &text);

protected:
    void changeEvent(QEvent *event) override;

private:
    struct PendingCommand
    {
        enum class Kind { Cancel, Requeue, Priority };
        Kind kind = Kind::Cancel;
        Domain::JobId job;
        int priority = 0;
    };
    // What the table knows of a job (nullopt: not in the snapshots).
    struct JobFacts
    {
        QString name;
        int state = 0; // Sched::JobState
        int priority = 0;
    };

    void retranslateUi();
    void updateSummary();
    std::optional<JobFacts> facts(Domain::JobId job) const;
    QString jobName(Domain::JobId job) const;
    bool trySelect(Domain::JobId job);
    quint64 issue(const PendingCommand &command);
    void onCommandFinished(const Session::CommandResult &result);
    void finishCommand(const PendingCommand &command, const Session::CommandResult &result);

    QPointer<Models::SessionClient> m_client;
    Models::JobTableModel *m_model = nullptr;
    QSortFilterProxyModel *m_proxy = nullptr;
    QTableView *m_table = nullptr;
    QComboBox *m_filter = nullptr;
    QLabel *m_filterLabel = nullptr;
    QLabel *m_summary = nullptr;
    QPushButton *m_new = nullptr;

    QHash<quint64, PendingCommand> m_commands;
    Domain::JobId m_selectWhenSeen;
    QHash<Domain::JobId, QPointer<JobLogDialog>> m_logs;
};

} // namespace Zhaoxi::Widgets
