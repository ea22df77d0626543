// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandtext.h"

#include <QCoreApplication>
#include <QRegularExpression>

namespace Zhaoxi::Widgets {

class CommandText
{
    Q_DECLARE_TR_FUNCTIONS(Zhaoxi::Widgets::CommandText)
};

QString commandErrorText(const QString &error)
{
    static const QRegularExpression noJob(QStringLiteral("^no job (\\d+)$"));
    static const QRegularExpression noJobOrCard(QStringLiteral("^no job (\\d+) or card (\\d+)$"));
    static const QRegularExpression notWaiting(QStringLiteral("^job (\\d+) is not waiting$"));
    static const QRegularExpression notRunning(QStringLiteral("^job (\\d+) is not running$"));
    static const QRegularExpression ended(QStringLiteral(
            "^job (\\d+) (?:has (?:already )?ended(?: or does not exist)?|is over)$"));
    const QString text = error.trimmed();
    if (text.isEmpty())
        return CommandText::tr("The appliance gave no reason.");
    if (const auto m = noJob.match(text); m.hasMatch())
        return CommandText::tr("There is no job %1.").arg(m.captured(1));
    if (const auto m = noJobOrCard.match(text); m.hasMatch())
        return CommandText::tr("There is no job %1 or no card %2.")
                .arg(m.captured(1), m.captured(2));
    if (const auto m = notWaiting.match(text); m.hasMatch())
        return CommandText::tr("Job %1 is no longer waiting.").arg(m.captured(1));
    if (const auto m = notRunning.match(text); m.hasMatch())
        return CommandText::tr("Job %1 is not running.").arg(m.captured(1));
    if (const auto m = ended.match(text); m.hasMatch())
        return CommandText::tr("Job %1 has already ended.").arg(m.captured(1));
    return text;
}

} // namespace Zhaoxi::Widgets
