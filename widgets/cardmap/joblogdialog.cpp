// SPDX-License-Identifier: GPL-3.0-or-later
#include "joblogdialog.h"

#include "commandtext.h"

#include "core/models/sessionclient.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QEvent>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QTimer>
#include <QVBoxLayout>

namespace Zhaoxi::Widgets {

JobLogDialog::JobLogDialog(Models::SessionClient *client,
                           Domain::JobId job,
                           const QString &jobName,
                           QWidget *parent)
    : QDialog(parent)
    , m_client(client)
    , m_job(job)
    , m_jobName(jobName)
{
    setObjectName(QStringLiteral("jobLogDialog"));
    setModal(false);

    m_path = new QLabel(this);
    m_path->setObjectName(QStringLiteral("logPath"));
    m_path->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_path->setWordWrap(true);
    m_path->hide();
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("logError"));
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("QLabel { color: #b71c1c; }"));
    m_error->hide();

    m_text = new QPlainTextEdit(this);
    m_text->setObjectName(QStringLiteral("logText"));
    m_text->setReadOnly(true);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));

    m_follow = new QCheckBox(this);
    m_follow->setObjectName(QStringLiteral("follow"));
    auto *buttons = new QDialogButtonBox(this);
    m_refresh = buttons->addButton(QString(), QDialogButtonBox::ActionRole);
    m_refresh->setObjectName(QStringLiteral("refresh"));
    m_close = buttons->addButton(QDialogButtonBox::Close);
    connect(m_refresh, &QPushButton::clicked, this, &JobLogDialog::refresh);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);

    auto *bottom = new QHBoxLayout;
    bottom->addWidget(m_follow);
    bottom->addStretch(1);
    bottom->addWidget(buttons);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_path);
    layout->addWidget(m_error);
    layout->addWidget(m_text, 1);
    layout->addLayout(bottom);

    m_timer = new QTimer(this);
    m_timer->setInterval(followIntervalMs);
    connect(m_timer, &QTimer::timeout, this, [this] {
        // A session that is slow to answer is not asked again on top.
        if (m_pending == 0)
            refresh();
    });
    connect(m_follow, &QCheckBox::toggled, this, [this](bool on) {
        updateTimer();
        if (on)
            refresh();
    });
    if (client)
        connect(client, &Models::SessionClient::jobLogReady, this, &JobLogDialog::onLog);

    retranslateUi();
    resize(760, 480);
}

bool JobLogDialog::follows() const
{
    return m_follow->isChecked();
}

void JobLogDialog::setFollow(bool follow)
{
    m_follow->setChecked(follow);
}

QString JobLogDialog::logText() const
{
    return m_text->toPlainText();
}

QString JobLogDialog::pathText() const
{
    return m_path->isHidden() ? QString() : m_path->text();
}

QString JobLogDialog::errorText() const
{
    return m_error->isHidden() ? QString() : m_error->text();
}

void JobLogDialog::refresh()
{
    if (!m_client)
        return;
    m_asked = true;
    m_pending = m_client->requestJobLog(m_job);
}

void JobLogDialog::onLog(const Session::JobLog &log)
{
    if (m_pending == 0 || log.request != m_pending)
        return;
    m_pending = 0;
    showLog(log);
}

void JobLogDialog::showLog(const Session::JobLog &log)
{
    m_last = log;
    if (log.ok) {
        QScrollBar *bar = m_text->verticalScrollBar();
        const bool atEnd = bar->value() >= bar->maximum();
        const int was = bar->value();
        const int column = m_text->horizontalScrollBar()->value();
        if (m_text->toPlainText() != log.text)
            m_text->setPlainText(log.text);
        // Following, or already reading the end: stay at the end as output grows; otherwise keep
        // the place the operator scrolled to.
        bar->setValue(follows() || atEnd ? bar->maximum() : std::min(was, bar->maximum()));
        m_text->horizontalScrollBar()->setValue(column);
        m_error->hide();
    } else {
        m_error->show();
    }
    m_path->setHidden(log.path.isEmpty());
    retranslateUi();
}

void JobLogDialog::updateTimer()
{
    if (follows() && isVisible())
        m_timer->start();
    else
        m_timer->stop();
}

void JobLogDialog::showEvent(QShowEvent *event)
{
    QDialog::showEvent(event);
    updateTimer();
    if (!m_asked)
        refresh();
}

void JobLogDialog::hideEvent(QHideEvent *event)
{
    QDialog::hideEvent(event);
    updateTimer();
    // Shown again later, it asks again at once.
    m_asked = false;
}

void JobLogDialog::retranslateUi()
{
    setWindowTitle(
            tr("Log of %1").arg(m_jobName.isEmpty() ? tr("job %1").arg(m_job.value()) : m_jobName));
    m_follow->setText(tr("&Follow (refresh every 2 s)"));
    m_follow->setToolTip(tr("Ask the appliance for the latest output every two seconds while "
                            "this window is open"));
    m_refresh->setText(tr("&Refresh"));
    if (m_last) {
        QString path = tr("File on the appliance: %1").arg(m_last->path);
        if (m_last->ok && m_last->truncated)
            path += QLatin1Char(' ') + tr("(older output is not shown)");
        m_path->setText(path);
        m_error->setText(m_last->ok
                                 ? QString()
                                 : tr("No log: %1").arg(problemText(Session::problemOf(*m_last))));
    } else {
        m_path->clear();
    }
}

void JobLogDialog::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QDialog::changeEvent(event);
}

} // namespace Zhaoxi::Widgets
