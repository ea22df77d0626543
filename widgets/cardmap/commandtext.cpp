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
    static const QRegularExpression cordoned(QStringLiteral("^card (\\d+) is cordoned already$"));
    static const QRegularExpression notCordoned(QStringLiteral("^card (\\d+) is not cordoned$"));
    static const QRegularExpression noCard(QStringLiteral("^no card (\\d+)$"));
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
    if (const auto m = cordoned.match(text); m.hasMatch())
        return CommandText::tr("Card %1 is cordoned already.").arg(m.captured(1));
    if (const auto m = notCordoned.match(text); m.hasMatch())
        return CommandText::tr("Card %1 is not cordoned.").arg(m.captured(1));
    if (const auto m = noCard.match(text); m.hasMatch())
        return CommandText::tr("There is no card %1.").arg(m.captured(1));
    if (text.startsWith(QLatin1String("the simulated appliance models its workloads")))
        return CommandText::tr("The simulated appliance models its workloads: they run no "
                               "process and write no log.");
    if (text == QLatin1String("this appliance cannot cordon cards"))
        return CommandText::tr("This appliance cannot cordon cards.");
    return text;
}

QString specProblemText(const QString &message)
{
    static const struct
    {
        const char *english;
        const char *text;
    } kMessages[] = {
            {"must not be empty",
             QT_TRANSLATE_NOOP("Zhaoxi::Widgets::CommandText", "must not be empty")},
            {"required", QT_TRANSLATE_NOOP("Zhaoxi::Widgets::CommandText", "required")},
            {"must not be negative",
             QT_TRANSLATE_NOOP("Zhaoxi::Widgets::CommandText", "must not be negative")},
            {"must not start or end with white space",
             QT_TRANSLATE_NOOP("Zhaoxi::Widgets::CommandText",
                               "must not start or end with white space")},
            {"must not contain spaces or control characters",
             QT_TRANSLATE_NOOP("Zhaoxi::Widgets::CommandText",
                               "must not contain spaces or control characters")},
            {"must not be empty; give the program and its arguments",
             QT_TRANSLATE_NOOP("Zhaoxi::Widgets::CommandText",
                               "must not be empty; give the program and its arguments")},
    };
    for (const auto &m : kMessages) {
        if (message == QLatin1String(m.english))
            return CommandText::tr(m.text);
    }
    return message;
}

} // namespace Zhaoxi::Widgets
