// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli.h"

#include <QDateTime>

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace Zhaoxi::Cli {

Args::Args(const QStringList &args)
    : m_args(args)
{}

bool Args::flag(const QString &name)
{
    const QString opt = QStringLiteral("--") + name;
    const qsizetype i = m_args.indexOf(opt);
    if (i < 0)
        return false;
    m_args.removeAt(i);
    return true;
}

std::optional<QString> Args::value(const QString &name)
{
    const QString opt = QStringLiteral("--") + name;
    for (qsizetype i = 0; i < m_args.size(); ++i) {
        const QString &a = m_args[i];
        if (a == opt) {
            if (i + 1 >= m_args.size()) {
                m_missingValue = opt;
                m_args.removeAt(i);
                return std::nullopt;
            }
            QString v = m_args[i + 1];
            m_args.remove(i, 2);
            return v;
        }
        if (a.startsWith(opt + QLatin1Char('='))) {
            QString v = a.mid(opt.size() + 1);
            m_args.removeAt(i);
            return v;
        }
    }
    return std::nullopt;
}

QStringList Args::positional() const
{
    QStringList r;
    for (const QString &a : m_args) {
        if (!a.startsWith(QStringLiteral("--")))
            r << a;
    }
    return r;
}

QStringList Args::unknownOptions() const
{
    QStringList r;
    for (const QString &a : m_args) {
        if (a.startsWith(QStringLiteral("--")))
            r << a;
    }
    return r;
}

QString knownName(const QString &given, const QStringList &known)
{
    for (const QString &k : known) {
        if (k.compare(given, Qt::CaseInsensitive) == 0)
            return k;
    }
    return {};
}

QString findBeside(const QString &name, const QString &buildSubdir)
{
    const QString here = QCoreApplication::applicationDirPath();
    for (const QString &candidate :
         {QDir(here).filePath(name),
          QDir(here).filePath(QStringLiteral("../") + buildSubdir + QLatin1Char('/') + name)}) {
        const QFileInfo fi(candidate);
        if (fi.isExecutable() && fi.isFile())
            return fi.canonicalFilePath();
    }
    return QStandardPaths::findExecutable(name);
}

std::optional<qint64> parseTimeArg(const QString &text)
{
    bool ok = false;
    const qint64 ms = text.toLongLong(&ok);
    if (ok)
        return ms;
    QDateTime dt = QDateTime::fromString(text, Qt::ISODateWithMs);
    if (!dt.isValid())
        dt = QDateTime::fromString(text, Qt::ISODate);
    if (!dt.isValid())
        return std::nullopt;
    if (dt.timeSpec() == Qt::LocalTime)
        dt = QDateTime(dt.date(), dt.time(), Qt::UTC);
    return dt.toMSecsSinceEpoch();
}

} // namespace Zhaoxi::Cli
