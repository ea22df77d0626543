// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandline.h"

#include <QCoreApplication>
#include <QRegularExpression>

namespace Zhaoxi::Widgets {

class CommandLine
{
    Q_DECLARE_TR_FUNCTIONS(Zhaoxi::Widgets::CommandLine)
};

std::optional<QStringList> splitCommandLine(const QString &line, QString *error)
{
    enum class Quote { None, Single, Double };
    QStringList arguments;
    QString word;
    // An argument exists once anything was written for it, an empty '' included.
    bool inWord = false;
    Quote quote = Quote::None;
    qsizetype quoteStart = 0;
    const auto fail = [&](const QString &message) -> std::optional<QStringList> {
        if (error)
            *error = message;
        return std::nullopt;
    };
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line.at(i);
        switch (quote) {
        case Quote::Single:
            if (c == u'\'')
                quote = Quote::None;
            else
                word += c;
            break;
        case Quote::Double:
            if (c == u'"') {
                quote = Quote::None;
            } else if (c == u'\\' && i + 1 < line.size()
                       && QStringView(u"\"\\$`").contains(line.at(i + 1))) {
                word += line.at(++i);
            } else {
                word += c;
            }
            break;
        case Quote::None:
            if (c == u' ' || c == u'\t') {
                if (inWord)
                    arguments.append(word);
                word.clear();
                inWord = false;
            } else if (c == u'\'' || c == u'"') {
                quote = c == u'\'' ? Quote::Single : Quote::Double;
                quoteStart = i;
                inWord = true;
            } else if (c == u'\\') {
                if (i + 1 >= line.size()) {
                    return fail(CommandLine::tr("The command line ends with a lone backslash; "
                                                "write \\\\ for a backslash."));
                }
                word += line.at(++i);
                inWord = true;
            } else {
                word += c;
                inWord = true;
            }
            break;
        }
    }
    if (quote == Quote::Single) {
        return fail(
                CommandLine::tr("The quote ' at character %1 is not closed.").arg(quoteStart + 1));
    }
    if (quote == Quote::Double) {
        return fail(
                CommandLine::tr("The quote \" at character %1 is not closed.").arg(quoteStart + 1));
    }
    if (inWord)
        arguments.append(word);
    return arguments;
}

QString joinCommandLine(const QStringList &arguments)
{
    // What no shell reads specially, so it needs no quotes.
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_@%+=:,./-]+$"));
    QStringList words;
    for (const QString &argument : arguments) {
        if (plain.match(argument).hasMatch()) {
            words.append(argument);
        } else {
            QString quoted = argument;
            quoted.replace(u'\'', QStringLiteral("'\\''"));
            words.append(u'\'' + quoted + u'\'');
        }
    }
    return words.join(u' ');
}

} // namespace Zhaoxi::Widgets
