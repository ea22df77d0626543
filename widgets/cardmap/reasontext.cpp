// SPDX-License-Identifier: GPL-3.0-or-later
#include "reasontext.h"

#include <QCoreApplication>

#include <algorithm>

namespace Zhaoxi::Widgets {

using Sched::Reason;
using Sched::Status;

// One translation context for the free functions, so lupdate and the translators see them
// together.
class ReasonText
{
    Q_DECLARE_TR_FUNCTIONS(Zhaoxi::Widgets::ReasonText)
};

QString trimmedNumberText(double value, int decimals)
{
    // Drops a trailing ".0" so whole numbers read as whole numbers.
    QString text = QString::number(value, 'f', decimals);
    if (text.contains(QLatin1Char('.'))) {
        while (text.endsWith(QLatin1Char('0')))
            text.chop(1);
        if (text.endsWith(QLatin1Char('.')))
            text.chop(1);
    }
    return text;
}

namespace {

QString coresText(qint64 milli)
{
    return ReasonText::tr("%1 CPU cores").arg(trimmedNumberText(double(milli) / 1000.0, 1));
}

QString shareText(qint64 milli)
{
    return ReasonText::tr("%1% of the card").arg(trimmedNumberText(double(milli) / 10.0, 1));
}

} // namespace

QString cardsText(qint64 milliCards)
{
    if (milliCards == 1000)
        return ReasonText::tr("one card");
    return ReasonText::tr("%1 cards").arg(trimmedNumberText(double(milliCards) / 1000.0, 2));
}

QString policyNameText(const QString &policy)
{
    if (policy == QLatin1String("static"))
        return ReasonText::tr("static split");
    if (policy == QLatin1String("windows"))
        return ReasonText::tr("time windows");
    if (policy == QLatin1String("guard"))
        return ReasonText::tr("latency guard");
    if (policy == QLatin1String("forecast"))
        return ReasonText::tr("forecast-driven");
    if (policy == QLatin1String("none"))
        return ReasonText::tr("none");
    return policy;
}

QString windowNameText(const QString &window)
{
    if (window == QLatin1String("day"))
        return ReasonText::tr("day");
    if (window == QLatin1String("night"))
        return ReasonText::tr("night");
    return window;
}

QString memoryAmountText(qint64 memoryMiB)
{
    if (memoryMiB < 1024)
        return ReasonText::tr("%1 MiB").arg(memoryMiB);
    return ReasonText::tr("%1 GiB").arg(trimmedNumberText(double(memoryMiB) / 1024.0, 1));
}

namespace {
bool isCjk(QChar c)
{
    const char16_t u = c.unicode();
    return (u >= 0x4E00 && u <= 0x9FFF) || (u >= 0x3000 && u <= 0x303F)
           || (u >= 0xFF00 && u <= 0xFFEF);
}
} // namespace

QString tidyCjkSpacing(QString text)
{
    qsizetype out = 0;
    const qsizetype n = text.size();
    QChar *d = nullptr;
    for (qsizetype i = 0; i < n; ++i) {
        const QChar c = text.at(i);
        if (c == QLatin1Char(' ') && i > 0 && i + 1 < n && isCjk(text.at(i - 1))
            && isCjk(text.at(i + 1))) {
            if (!d)
                d = text.data(); // detaches once, only when there is something to drop
            continue;
        }
        if (d)
            d[out] = c;
        ++out;
    }
    if (d)
        text.truncate(out);
    return text;
}

QString hoursMinutesText(qint64 ms)
{
    const qint64 minutes = std::max<qint64>(0, ms) / 60'000;
    return QStringLiteral("%1:%2").arg(minutes / 60).arg(minutes % 60, 2, 10, QLatin1Char('0'));
}

namespace {
QString reasonWords(const Status &status);
}

QString reasonText(const Status &status)
{
    return tidyCjkSpacing(reasonWords(status));
}

namespace {
QString reasonWords(const Status &status)
{
    const qint64 need = status.need;
    const qint64 have = status.have;
    switch (status.reason) {
    case Reason::None:
        if (status.isSuccess())
            return ReasonText::tr("It fits here.");
        if (status.code == Status::Code::Error)
            return ReasonText::tr(
                    "The appliance could not answer: the job is no longer waiting, or the job "
                    "or card is gone.");
        return ReasonText::tr("It cannot run here.");
    case Reason::HostDown:
        return ReasonText::tr("The host is down.");
    case Reason::HostNotAllowed:
        return ReasonText::tr("The job is pinned to another host.");
    case Reason::InsufficientHostCpu:
        return ReasonText::tr("Needs %1 on the host; only %2 are free.")
                .arg(coresText(need), coresText(have));
    case Reason::InsufficientHostMemory:
        return ReasonText::tr("Needs %1 of host memory; only %2 is free.")
                .arg(memoryAmountText(need), memoryAmountText(have));
    case Reason::HostCpuTooSmall:
        return ReasonText::tr("Needs %1; the host has only %2 in all.")
                .arg(coresText(need), coresText(have));
    case Reason::HostMemoryTooSmall:
        return ReasonText::tr("Needs %1 of host memory; the host has only %2 in all.")
                .arg(memoryAmountText(need), memoryAmountText(have));
    case Reason::CardFailed:
        return ReasonText::tr("The card has failed.");
    case Reason::ModelNotAllowed:
        return ReasonText::tr("The job may not run on this card model (its affinity excludes it).");
    case Reason::ProfileNotOnModel:
        return ReasonText::tr("This card model has no such MIG profile.");
    case Reason::IsolationMismatch:
        return ReasonText::tr(
                "The job needs hard isolation (a MIG partition or a whole card); this card is "
                "soft-sliced.");
    case Reason::CardMemoryTooSmall:
        return ReasonText::tr("Needs %1 of card memory; this card offers at most %2.")
                .arg(memoryAmountText(need), memoryAmountText(have));
    case Reason::CardMemoryInUse:
        return ReasonText::tr("Needs %1 of card memory; only %2 is free.")
                .arg(memoryAmountText(need), memoryAmountText(have));
    case Reason::CardComputeInUse:
        return ReasonText::tr("Needs %1; only %2 is free.").arg(shareText(need), shareText(have));
    case Reason::NoFreeUnit:
        return ReasonText::tr("Every partition of this card that would fit is busy.");
    case Reason::NeedsRepartition:
        return ReasonText::tr("The card must be repartitioned first.");
    case Reason::TooManyClients:
        return ReasonText::tr("The card already serves its limit of %1 clients.").arg(have);
    case Reason::CardReconfiguring:
        return ReasonText::tr("The card is being reconfigured.");
    case Reason::GangTooWide:
        return ReasonText::tr("Needs %1 cards on one host; at most %2 are available.")
                .arg(need)
                .arg(have);
    case Reason::GangNotInOneLinkDomain:
        return ReasonText::tr("Needs %1 cards in one fast-link domain; at most %2 are free in one.")
                .arg(need)
                .arg(have);
    case Reason::ClassBudgetExceeded:
        if (have <= 0) {
            return ReasonText::tr("Needs %1 of compute; its class has used up its budget for now.")
                    .arg(cardsText(need));
        }
        return ReasonText::tr("Needs %1 of compute; its class may use only %2 more now.")
                .arg(cardsText(need), cardsText(have));
    case Reason::NoHosts:
        return ReasonText::tr("The appliance has no hosts.");
    case Reason::Count:
        break;
    }
    return ReasonText::tr("Refused (%1).")
            .arg(QString::fromLatin1(Sched::reasonCode(status.reason)));
}
} // namespace

QString readOnlyText(const Domain::Problem &reason)
{
    using C = Domain::Problem::Code;
    switch (reason.code) {
    case C::ReadOnlyDisabled:
        return ReasonText::tr("Read-only: applying changes to the hardware is off in Settings.");
    case C::ReadOnlyNoPermission:
        return ReasonText::tr("Read-only: the console has no permission to change MIG (run it as "
                              "root or grant CAP_SYS_ADMIN).");
    case C::ReadOnlyNoMig:
        return ReasonText::tr("Read-only: MIG is not enabled on any card.");
    case C::ReadOnlyUnreachable:
        return ReasonText::tr("Read-only: the service at %1 is not reachable; the picture is the "
                              "last one read. Reconnecting…")
                .arg(reason.arg(0));
    case C::ReadOnlyNotOperator:
        return ReasonText::tr("Read-only: %1 may only read; changes need membership of the %2 "
                              "group.")
                .arg(reason.arg(0), reason.arg(1));
    case C::ReadOnlyNotTakingChanges:
        return ReasonText::tr("Read-only: the service is shutting down and takes no changes.");
    case C::ReadOnlyFleetUnreachable:
        return ReasonText::tr("Read-only: Slurm at %1 is not reachable (%2); the picture is the "
                              "last one read. Retrying in %3 s…")
                .arg(reason.arg(0), reason.arg(1), reason.arg(2));
    case C::None:
        return ReasonText::tr("Read-only: changes are not allowed.");
    default:
        break;
    }
    return ReasonText::tr("Read-only: %1").arg(reason.english());
}

} // namespace Zhaoxi::Widgets
