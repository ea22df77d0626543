// SPDX-License-Identifier: GPL-3.0-or-later
#include "whatifdialog.h"
#include "whatifmodel.h"

#include "widgets/cardmap/reasontext.h"

#include <QDateTime>
#include <QDialogButtonBox>
#include <QEvent>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTableView>
#include <QTimeZone>
#include <QVBoxLayout>

namespace Zhaoxi::Widgets {

namespace {

QString offsetText(int seconds)
{
    const int m = std::abs(seconds) / 60;
    return QStringLiteral("UTC%1%2:%3")
            .arg(seconds < 0 ? QLatin1Char('-') : QLatin1Char('+'))
            .arg(m / 60, 2, 10, QLatin1Char('0'))
            .arg(m % 60, 2, 10, QLatin1Char('0'));
}

} // namespace

WhatIfDialog::WhatIfDialog(
        const QString &storePath, qint64 fromMs, qint64 toMs, int utcOffsetSeconds, QWidget *parent)
    : QDialog(parent)
    , m_storePath(storePath)
    , m_fromMs(fromMs)
    , m_toMs(toMs)
    , m_offsetSeconds(utcOffsetSeconds)
{
    setObjectName(QStringLiteral("whatIfDialog"));
    m_model = new WhatIfModel(this);
    m_period = new QLabel(this);
    m_period->setObjectName(QStringLiteral("whatIfPeriod"));
    QFont bold = m_period->font();
    bold.setBold(true);
    m_period->setFont(bold);
    m_intro = new QLabel(this);
    m_intro->setWordWrap(true);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("whatIfStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_progress = new QProgressBar(this);
    m_progress->setTextVisible(false);
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("whatIfTable"));
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // As tall as its rows: the details below take what is left.
    m_table->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    m_table->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Maximum);
    m_table->hide();
    m_legend = new QLabel(this);
    m_legend->setWordWrap(true);
    m_legend->hide();
    m_detailsBox = new QGroupBox(this);
    m_details = new QPlainTextEdit(m_detailsBox);
    m_details->setObjectName(QStringLiteral("whatIfDetails"));
    m_details->setReadOnly(true);
    m_details->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_details->setMinimumHeight(m_details->fontMetrics().lineSpacing() * 4);
    auto *detailsLayout = new QVBoxLayout(m_detailsBox);
    detailsLayout->addWidget(m_details);
    m_detailsBox->hide();
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &WhatIfDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_period);
    layout->addWidget(m_intro);
    layout->addWidget(m_status);
    layout->addWidget(m_progress);
    layout->addWidget(m_table);
    layout->addWidget(m_legend);
    layout->addWidget(m_detailsBox, 1);
    layout->addWidget(m_buttons);
    resize(900, 460);

    auto *job = new WhatIfJob(storePath, fromMs, toMs);
    m_job = job;
    m_outcome = job->outcome();
    m_steps = WhatIfJob::steps();
    m_progress->setRange(0, m_steps);
    connect(job, &WhatIfJob::progressed, this, &WhatIfDialog::onProgress);
    connect(job, &WhatIfJob::finished, this, &WhatIfDialog::onFinished);
    retranslateUi();
    job->start();
}

WhatIfDialog::~WhatIfDialog()
{
    // The replay is left to end on its own (it deletes itself); it only needs telling.
    if (m_job)
        m_job->cancel();
}

bool WhatIfDialog::isRunning() const
{
    return !m_finished;
}

WhatIfOutcome::Status WhatIfDialog::status() const
{
    return m_finished ? m_outcome->status : WhatIfOutcome::Status::Running;
}

void WhatIfDialog::reject()
{
    if (m_job && !m_finished)
        m_job->cancel();
    QDialog::reject();
}

void WhatIfDialog::onProgress(int step, int steps, const QString &policy)
{
    if (m_finished)
        return;
    m_step = step;
    m_steps = steps;
    m_stepPolicy = policy;
    m_progress->setRange(0, steps);
    m_progress->setValue(step);
    retranslateUi();
}

void WhatIfDialog::onFinished()
{
    m_finished = true;
    m_job = nullptr; // it deletes itself
    const WhatIfOutcome &o = *m_outcome;
    if (o.status == WhatIfOutcome::Status::Done && o.period) {
        // The period as the recording has it (cut to what was recorded) in its own offset.
        m_fromMs = o.period->fromMs;
        m_toMs = o.period->toMs;
        m_offsetSeconds = int(o.period->scenario.utcOffsetMs / 1000);
        m_model->setReports(o.reports, ranPolicy());
    }
    m_buttons->setStandardButtons(QDialogButtonBox::Close);
    showOutcome();
    retranslateUi();
    Q_EMIT replayFinished();
}

void WhatIfDialog::showOutcome()
{
    const bool done = m_outcome->status == WhatIfOutcome::Status::Done;
    m_progress->hide();
    m_table->setVisible(done);
    m_legend->setVisible(done);
    m_detailsBox->setVisible(done || !m_outcome->detail.isEmpty());
    if (done) {
        m_table->resizeColumnsToContents();
        // Wide enough for the whole table where the screen allows.
        const int want = m_table->horizontalHeader()->length() + 2 * m_table->frameWidth()
                         + layout()->contentsMargins().left() + layout()->contentsMargins().right();
        if (want > width())
            resize(std::min(want, 1400), height());
    }
}

QString WhatIfDialog::ranPolicy() const
{
    if (!m_outcome->period)
        return QString();
    // A recording that names no policy ran its scenario's own (the console's twin records it so).
    return m_outcome->period->basisPolicy.isEmpty() ? m_outcome->period->scenario.defaultPolicy
                                                    : m_outcome->period->basisPolicy;
}

QString WhatIfDialog::timeText(qint64 ms) const
{
    const QDateTime t = QDateTime::fromMSecsSinceEpoch(ms, QTimeZone(m_offsetSeconds));
    return QLocale().toString(t.date(), QLocale::ShortFormat) + QLatin1Char(' ')
           + t.toString(QStringLiteral("HH:mm"));
}

QString WhatIfDialog::periodText() const
{
    return m_period->text();
}

QString WhatIfDialog::statusText() const
{
    return m_status->text();
}

QString WhatIfDialog::detailsText() const
{
    return m_details->toPlainText();
}

void WhatIfDialog::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QDialog::changeEvent(event);
}

void WhatIfDialog::retranslateUi()
{
    const QDateTime from = QDateTime::fromMSecsSinceEpoch(m_fromMs, QTimeZone(m_offsetSeconds));
    const QDateTime to = QDateTime::fromMSecsSinceEpoch(m_toMs, QTimeZone(m_offsetSeconds));
    const QString toText
            = from.date() == to.date() ? to.toString(QStringLiteral("HH:mm")) : timeText(m_toMs);
    const QString hours = trimmedNumberText(double(m_toMs - m_fromMs) / 3'600'000.0, 1);
    m_period->setText(tr("%1 – %2 (%3), %4 h")
                              .arg(timeText(m_fromMs), toText, offsetText(m_offsetSeconds), hours));
    setWindowTitle(tr("What if? %1").arg(m_period->text()));
    m_intro->setText(tr("The recorded period replayed in the twin under each policy, beside what "
                        "actually happened."));
    m_legend->setText(tr("Bold: the best value of its column. Underlined: the policy that ran "
                         "(its replay). “recorded” is what happened: its p99 is the "
                         "request-weighted mean of the recorded minutes' p99, its bound the "
                         "replays'."));
    m_detailsBox->setTitle(tr("Details"));

    const WhatIfOutcome &o = *m_outcome;
    if (!m_finished) {
        m_status->setText(m_stepPolicy.isEmpty() ? tr("Reading the recorded period…")
                                                 : tr("Replaying under %1 (%2 of %3)…")
                                                           .arg(policyNameText(m_stepPolicy))
                                                           .arg(m_step)
                                                           .arg(m_steps - 1));
        return;
    }
    QStringList details;
    switch (o.status) {
    case WhatIfOutcome::Status::Done:
        m_status->setText(
                tr("Ran under %1 when it was recorded.").arg(policyNameText(ranPolicy())));
        details << tr("Recorded by “%1” (seed %2). Services with recorded requests: %3; training "
                      "and batch jobs: %4; faults: %5.")
                           .arg(o.period->scenario.name)
                           .arg(o.period->seed)
                           .arg(o.period->recordedServices)
                           .arg(o.period->recordedJobs)
                           .arg(o.period->recordedFaults);
        if (!o.period->notes.isEmpty()) {
            details << tr("What the replay had to approximate:");
            for (const QString &n : o.period->notes)
                details << QStringLiteral("• ") + n; // core's English, as it is
        }
        break;
    case WhatIfOutcome::Status::Cancelled:
        m_status->setText(tr("Cancelled."));
        break;
    case WhatIfOutcome::Status::StoreUnreadable:
        m_status->setText(tr("The appliance's store cannot be read, so there is nothing to "
                             "replay."));
        break;
    case WhatIfOutcome::Status::NothingRecorded:
        m_status->setText(tr("Nothing was recorded in this period: the store holds no run that "
                             "started before %1.")
                                  .arg(timeText(m_toMs)));
        break;
    case WhatIfOutcome::Status::Failed:
    case WhatIfOutcome::Status::Running:
        m_status->setText(tr("This period cannot be replayed."));
        break;
    }
    if (!o.detail.isEmpty())
        details << o.detail; // core's or the store's English
    m_details->setPlainText(details.join(QLatin1Char('\n')));
}

} // namespace Zhaoxi::Widgets
