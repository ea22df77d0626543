// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "whatifjob.h"

#include <QDialog>
#include <QPointer>

#include <memory>

class QDialogButtonBox;
class QGroupBox;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QTableView;

namespace Zhaoxi::Widgets {

class WhatIfModel;

// "What if?" (issue 18): a recorded period of the appliance's store replayed in the twin under
// every policy, shown beside what actually happened — the console's `zhaoxictl replay
// --compare`. The replay runs on a thread of its own (WhatIfJob, with its own reader on the
// store file) as soon as the dialog is made; the dialog shows its progress, then the table
// (WhatIfModel), the period in the appliance's local time and, under "Details", what the replay
// had to approximate (core's notes, in English). Errors (the store cannot be read, nothing was
// recorded then) are said in the dialog. Cancel and Close never wait for the replay: it is told
// to stop and left to end on its own. GUI thread only.
class WhatIfDialog : public QDialog
{
    Q_OBJECT

public:
    // `storePath`: the session's store; [fromMs, toMs): the period (UTC ms); `utcOffsetSeconds`:
    // the appliance's offset, for the times shown until the recording's own is read.
    WhatIfDialog(const QString &storePath,
                 qint64 fromMs,
                 qint64 toMs,
                 int utcOffsetSeconds,
                 QWidget *parent = nullptr);
    ~WhatIfDialog() override;

    bool isRunning() const;
    WhatIfOutcome::Status status() const;
    WhatIfModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    // The texts shown (tests): the period, the state or the error, and the details.
    QString periodText() const;
    QString statusText() const;
    QString detailsText() const;

Q_SIGNALS:
    // The replay is over: done, failed or cancelled (status() says which).
    void replayFinished();

public Q_SLOTS:
    void reject() override;

protected:
    void changeEvent(QEvent *event) override;

private:
    void onProgress(int step, int steps, const QString &policy);
    void onFinished();
    void showOutcome();
    void retranslateUi();
    QString timeText(qint64 ms) const;
    QString ranPolicy() const;

    QString m_storePath;
    qint64 m_fromMs = 0;
    qint64 m_toMs = 0;
    int m_offsetSeconds = 0;
    QPointer<WhatIfJob> m_job;
    std::shared_ptr<const WhatIfOutcome> m_outcome;
    bool m_finished = false;
    int m_step = 0;
    int m_steps = 1;
    QString m_stepPolicy;

    WhatIfModel *m_model = nullptr;
    QLabel *m_period = nullptr;
    QLabel *m_intro = nullptr;
    QLabel *m_status = nullptr;
    QProgressBar *m_progress = nullptr;
    QTableView *m_table = nullptr;
    QLabel *m_legend = nullptr;
    QGroupBox *m_detailsBox = nullptr;
    QPlainTextEdit *m_details = nullptr;
    QDialogButtonBox *m_buttons = nullptr;
};

} // namespace Zhaoxi::Widgets
