// SPDX-License-Identifier: GPL-3.0-or-later
#include "catchup.h"

#include "core/session/simulationsession.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QLocale>
#include <QProgressDialog>
#include <QTimeZone>

#include <memory>

namespace Zhaoxi::Widgets {

namespace {
constexpr qint64 kStepMs = 60'000; // a snapshot every simulated minute
// The window paints 25 times a second of wall time (each turn delivers the latest snapshot and
// repaints: a few ms that would otherwise be spent every few simulated minutes), and at least
// every two simulated hours, so a fast catch-up still shows the day going by.
constexpr qint64 kEventsEveryMs = 40;
constexpr int kEventsEverySteps = 120;
constexpr qint64 kDialogAfterMs = 300; // a catch-up shorter than this shows no dialog
} // namespace

qint64 catchUp(Session::SimulationSession &session, qint64 untilMs, QWidget *parent)
{
    QElapsedTimer took;
    took.start();
    const Session::SnapshotPtr first = session.latest();
    const qint64 startMs = first ? first->startMs : 0;
    const int utcOffset = first ? first->utcOffsetSeconds : 0;
    const int steps = int(std::max<qint64>(0, untilMs / kStepMs));
    std::unique_ptr<QProgressDialog> dialog;
    int step = 0;
    qint64 turnedAtMs = -kEventsEveryMs;
    for (qint64 t = kStepMs; t < untilMs; t += kStepMs, ++step) {
        session.runTo(t);
        if (step % kEventsEverySteps != 0 && took.elapsed() - turnedAtMs < kEventsEveryMs)
            continue;
        turnedAtMs = took.elapsed();
        if (!dialog && took.elapsed() >= kDialogAfterMs && parent) {
            const QDateTime at
                    = QDateTime::fromMSecsSinceEpoch(startMs + untilMs, QTimeZone(utcOffset));
            dialog = std::make_unique<QProgressDialog>(
                    QCoreApplication::translate("Zhaoxi::Widgets::CatchUp",
                                                "Running the day up to %1…")
                            .arg(QLocale().toString(at.time(), QLocale::ShortFormat)),
                    QString(),
                    0,
                    steps,
                    parent);
            dialog->setObjectName(QStringLiteral("catchUpProgress"));
            dialog->setWindowTitle(
                    QCoreApplication::translate("Zhaoxi::Widgets::CatchUp", "Starting the day"));
            dialog->setCancelButton(nullptr);
            dialog->setMinimumDuration(0);
            dialog->setWindowModality(Qt::WindowModal);
        }
        if (dialog)
            dialog->setValue(step); // processes events: the window follows the day
        else
            QCoreApplication::processEvents();
    }
    session.runTo(untilMs);
    if (dialog)
        dialog->setValue(steps);
    return took.elapsed();
}

} // namespace Zhaoxi::Widgets
