// SPDX-License-Identifier: GPL-3.0-or-later
#include "advicepanel.h"
#include "advicetext.h"

#include "core/catalogue/catalogue.h"
#include "core/storage/store.h"

#include <QCoreApplication>
#include <QEvent>
#include <QFileInfo>
#include <QFrame>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QScrollArea>
#include <QThreadPool>
#include <QVBoxLayout>

namespace Zhaoxi::Widgets {

namespace {

// The worker: its own reader on the store file, nothing of the session's.
void runAdvise(const QString &storePath, const Replay::AdviseOptions &options, AdviceOutcome &out)
{
    using Status = AdviceOutcome::Status;
    if (storePath.isEmpty() || !QFileInfo(storePath).isReadable()) {
        out.status = Status::StoreUnreadable;
        out.detail = storePath.isEmpty() ? QStringLiteral("no store")
                                         : QStringLiteral("%1: not readable").arg(storePath);
        return;
    }
    QString err;
    // RequireCurrent: a console never migrates a store (it may be the service's).
    std::unique_ptr<Storage::Reader> reader
            = Storage::Reader::open(storePath, Storage::Reader::OpenMode::RequireCurrent, &err);
    if (!reader) {
        out.status = Status::StoreUnreadable;
        out.detail = err;
        return;
    }
    // Asked by its code, so that "nothing recorded" is told apart from other failures without
    // reading core's English.
    Storage::EventFilter basis;
    basis.codes = {QByteArrayLiteral("run-basis")};
    basis.limit = 1;
    const qint64 bases = reader->countEvents(basis, &err);
    if (!err.isEmpty()) {
        out.status = Status::StoreUnreadable;
        out.detail = err;
        return;
    }
    if (bases == 0) {
        out.status = Status::NothingRecorded;
        return;
    }
    std::optional<Replay::Advice> advice
            = Replay::advise(*reader, Catalogue::Catalogue::builtIn(), options, &err);
    if (!advice) {
        out.status = Status::Failed;
        out.detail = err;
        return;
    }
    out.advice = std::move(advice);
    out.status = Status::Done;
}

QLabel *wrappedLabel(QWidget *parent, const char *name)
{
    auto *label = new QLabel(parent);
    label->setObjectName(QLatin1String(name));
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

} // namespace

AdvicePanel::AdvicePanel(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("advicePanel"));
    m_intro = wrappedLabel(this, "adviceIntro");
    m_look = new QPushButton(this);
    m_look->setObjectName(QStringLiteral("adviceLookButton"));
    m_status = wrappedLabel(this, "adviceStatus");

    m_list = new QWidget;
    m_list->setObjectName(QStringLiteral("adviceList"));
    m_listLayout = new QVBoxLayout(m_list);
    m_listLayout->setContentsMargins(0, 0, 0, 0);
    m_listLayout->addStretch(1);
    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(m_list);

    m_detailsBox = new QGroupBox(this);
    m_detailsBox->setCheckable(true);
    m_detailsBox->setChecked(false);
    m_details = new QPlainTextEdit(m_detailsBox);
    m_details->setObjectName(QStringLiteral("adviceDetails"));
    m_details->setReadOnly(true);
    m_details->setVisible(false);
    auto *detailsLayout = new QVBoxLayout(m_detailsBox);
    detailsLayout->addWidget(m_details);
    connect(m_detailsBox, &QGroupBox::toggled, m_details, &QWidget::setVisible);

    auto *top = new QHBoxLayout;
    top->addWidget(m_look);
    top->addWidget(m_status, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_intro);
    layout->addLayout(top);
    layout->addWidget(scroll, 1);
    layout->addWidget(m_detailsBox);

    connect(m_look, &QPushButton::clicked, this, &AdvicePanel::lookForAdvice);
    retranslateUi();
}

AdvicePanel::~AdvicePanel() = default;

void AdvicePanel::setStorePath(const QString &storePath)
{
    m_storePath = storePath;
}

bool AdvicePanel::isRunning() const
{
    return m_running;
}

AdviceOutcome::Status AdvicePanel::status() const
{
    return m_outcome ? m_outcome->status : AdviceOutcome::Status::Running;
}

QList<Replay::Suggestion> AdvicePanel::suggestions() const
{
    if (m_running || !m_outcome || !m_outcome->advice)
        return {};
    return m_outcome->advice->suggestions;
}

void AdvicePanel::lookForAdvice()
{
    if (m_running)
        return;
    m_running = true;
    m_outcome.reset();
    auto outcome = std::make_shared<AdviceOutcome>();
    QPointer<AdvicePanel> self(this);
    QThreadPool::globalInstance()->start([self, outcome, path = m_storePath, options = m_options] {
        runAdvise(path, options, *outcome);
        // Back in the GUI thread, where `self` may be checked: the panel may be gone.
        QMetaObject::invokeMethod(
                qApp,
                [self, outcome] {
                    if (self)
                        self->onFinished(outcome);
                },
                Qt::QueuedConnection);
    });
    showOutcome(true);
    Q_EMIT adviceStarted();
}

void AdvicePanel::onFinished(const std::shared_ptr<AdviceOutcome> &outcome)
{
    m_running = false;
    m_outcome = outcome;
    showOutcome(true);
    Q_EMIT adviceFinished();
}

bool AdvicePanel::applySuggestion(int index)
{
    const QList<Replay::Suggestion> list = suggestions();
    if (index < 0 || index >= list.size() || !AdviceText::appliesToSchedule(list[index]))
        return false;
    const Replay::Suggestion &s = list[index];
    const QString change = AdviceText::headline(s);
    bool ok = false;
    if (m_confirm) {
        ok = m_confirm(change);
    } else {
        QMessageBox box(QMessageBox::Question,
                        tr("Apply the advice"),
                        tr("Change the schedule: %1?").arg(change),
                        QMessageBox::Yes | QMessageBox::Cancel,
                        this);
        box.setInformativeText(
                AdviceText::proof(s) + QStringLiteral("\n\n")
                + tr("The schedule editor then previews the new schedule and asks again before "
                     "it stops or moves any work; the change is recorded in the audit log."));
        box.button(QMessageBox::Yes)->setText(tr("Apply…"));
        box.setDefaultButton(QMessageBox::Cancel);
        ok = box.exec() == QMessageBox::Yes;
    }
    if (!ok)
        return false;
    Q_EMIT applyScheduleRequested(s.change.value(QLatin1String("windows")).toObject(), s.toJson());
    return true;
}

QString AdvicePanel::statusText() const
{
    return m_status->text();
}

QString AdvicePanel::detailsText() const
{
    return m_details->toPlainText();
}

QString AdvicePanel::headlineText(int index) const
{
    return index >= 0 && index < m_rows.size() ? m_rows[index].headline->text() : QString();
}

QString AdvicePanel::evidenceText(int index) const
{
    return index >= 0 && index < m_rows.size() ? m_rows[index].evidence->text() : QString();
}

QString AdvicePanel::proofText(int index) const
{
    return index >= 0 && index < m_rows.size() ? m_rows[index].proof->text() : QString();
}

QString AdvicePanel::hintText(int index) const
{
    return index >= 0 && index < m_rows.size() && m_rows[index].hint ? m_rows[index].hint->text()
                                                                     : QString();
}

QPushButton *AdvicePanel::applyButton(int index) const
{
    return index >= 0 && index < m_rows.size() ? m_rows[index].apply : nullptr;
}

void AdvicePanel::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

void AdvicePanel::retranslateUi()
{
    m_intro->setText(tr("Suggestions from what the store recorded: each change comes with its "
                        "evidence and a replay of the recorded days that proves it."));
    m_look->setText(tr("Look for advice"));
    m_detailsBox->setTitle(tr("Details"));
    showOutcome(false);
}

void AdvicePanel::showOutcome(bool rebuild)
{
    using Status = AdviceOutcome::Status;
    m_look->setEnabled(!m_running);
    if (rebuild)
        rebuildRows();
    rewordRows();
    QStringList details;
    if (m_running) {
        m_status->setText(tr("Replaying up to %1 recorded days…").arg(m_options.days));
    } else if (!m_outcome) {
        m_status->setText(tr("Press “Look for advice” to replay the recorded days."));
    } else {
        switch (m_outcome->status) {
        case Status::Running:
            break;
        case Status::StoreUnreadable:
            m_status->setText(m_storePath.isEmpty()
                                      ? tr("This console has no store to look in.")
                                      : tr("The store %1 cannot be read.").arg(m_storePath));
            break;
        case Status::NothingRecorded:
            m_status->setText(tr("The store holds no recorded run to learn from. Let the "
                                 "appliance run with this store for a day, then look again."));
            break;
        case Status::Failed:
            m_status->setText(tr("The recorded days cannot be replayed."));
            break;
        case Status::Done: {
            const Replay::Advice &a = *m_outcome->advice;
            m_status->setText(a.suggestions.isEmpty() ? AdviceText::noSuggestion(a)
                                                      : tr("%n suggestion(s), best first.",
                                                           nullptr,
                                                           int(a.suggestions.size())));
            details.append(AdviceText::summary(a));
            details.append(a.notes);
            break;
        }
        }
        if (!m_outcome->detail.isEmpty())
            details.append(m_outcome->detail);
    }
    m_details->setPlainText(details.join(QLatin1Char('\n')));
}

void AdvicePanel::rebuildRows()
{
    // Later: a row's own button may be what led here (a language change during its dialog).
    for (const Row &row : std::as_const(m_rows)) {
        row.frame->hide();
        row.frame->deleteLater();
    }
    m_rows.clear();
    const QList<Replay::Suggestion> list = suggestions();
    for (int i = 0; i < list.size(); ++i) {
        const Replay::Suggestion &s = list[i];
        Row row;
        auto *frame = new QFrame(m_list);
        frame->setObjectName(QStringLiteral("adviceSuggestion"));
        frame->setFrameShape(QFrame::StyledPanel);
        row.frame = frame;
        row.headline = wrappedLabel(frame, "adviceHeadline");
        QFont bold = row.headline->font();
        bold.setBold(true);
        row.headline->setFont(bold);
        row.evidence = wrappedLabel(frame, "adviceEvidence");
        row.proof = wrappedLabel(frame, "adviceProof");
        auto *layout = new QVBoxLayout(frame);
        layout->addWidget(row.headline);
        layout->addWidget(row.evidence);
        layout->addWidget(row.proof);
        if (AdviceText::appliesToSchedule(s)) {
            row.apply = new QPushButton(frame);
            row.apply->setObjectName(QStringLiteral("adviceApplyButton"));
            auto *buttons = new QHBoxLayout;
            buttons->addStretch(1);
            buttons->addWidget(row.apply);
            layout->addLayout(buttons);
            connect(row.apply, &QPushButton::clicked, this, [this, i] { applySuggestion(i); });
        } else {
            row.hint = wrappedLabel(frame, "adviceHint");
            layout->addWidget(row.hint);
        }
        m_listLayout->insertWidget(m_listLayout->count() - 1, frame);
        m_rows.append(row);
    }
}

void AdvicePanel::rewordRows()
{
    const QList<Replay::Suggestion> list = suggestions();
    for (int i = 0; i < m_rows.size() && i < list.size(); ++i) {
        const Row &row = m_rows[i];
        const Replay::Suggestion &s = list[i];
        row.headline->setText(tr("%1. %2").arg(i + 1).arg(AdviceText::headline(s)));
        row.evidence->setText(AdviceText::evidence(s));
        row.proof->setText(AdviceText::proof(s));
        if (row.apply)
            row.apply->setText(tr("Apply…"));
        if (row.hint)
            row.hint->setText(AdviceText::howToApply(s));
    }
}

} // namespace Zhaoxi::Widgets
