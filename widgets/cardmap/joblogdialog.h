// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/domain/ids.h"
#include "core/session/session.h"

#include <QDialog>
#include <QPointer>

class QCheckBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTimer;

namespace Zhaoxi::Models {
class SessionClient;
}

namespace Zhaoxi::Widgets {

// The output of one job (SessionClient::requestJobLog, answered by jobLogReady): its last bytes
// in a read-only monospace view, the file it comes from on the appliance, and why there is none
// when the session says so. Non-modal. It asks once when shown, again on Refresh, and every
// `followIntervalMs` while "Follow" is checked and the dialog is visible (then it also keeps the
// view at the end); it never has two requests out at once for the timer. GUI thread only.
class JobLogDialog : public QDialog
{
    Q_OBJECT

public:
    static constexpr int followIntervalMs = 2000;

    // `client` not owned; it may go away first (the dialog then asks nothing).
    JobLogDialog(Models::SessionClient *client,
                 Domain::JobId job,
                 const QString &jobName,
                 QWidget *parent = nullptr);

    Domain::JobId job() const { return m_job; }
    bool follows() const;
    void setFollow(bool follow);

    // What the dialog shows, for tests: the log text, the file line ("" when unknown) and the
    // error line ("" when the last answer was a log).
    QString logText() const;
    QString pathText() const;
    QString errorText() const;
    QPlainTextEdit *textView() const { return m_text; }

public Q_SLOTS:
    // Asks for the log now.
    void refresh();

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void onLog(const Session::JobLog &log);
    void showLog(const Session::JobLog &log);
    void updateTimer();
    void retranslateUi();

    QPointer<Models::SessionClient> m_client;
    Domain::JobId m_job;
    QString m_jobName;
    quint64 m_pending = 0;
    bool m_asked = false; // asked once since shown
    std::optional<Session::JobLog> m_last;

    QPlainTextEdit *m_text = nullptr;
    QLabel *m_path = nullptr;
    QLabel *m_error = nullptr;
    QCheckBox *m_follow = nullptr;
    QPushButton *m_refresh = nullptr;
    QPushButton *m_close = nullptr;
    QTimer *m_timer = nullptr;
};

} // namespace Zhaoxi::Widgets
