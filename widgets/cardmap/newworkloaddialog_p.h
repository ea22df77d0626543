// SPDX-License-Identifier: GPL-3.0-or-later
// What the New workload dialog's two halves share (newworkloaddialog.cpp builds the form,
// newworkloaddialogspec.cpp reads it into a spec): not a public header.
#pragma once

#include <QString>
#include <QStringList>

namespace Zhaoxi::Widgets::NewWorkloadText {

inline const QString messageStyle = QStringLiteral("QLabel { color: #b71c1c; }");

// The compute forms of docs/workload-spec.md, and a CPU-only job's lack of one.
inline const QString computeWhole = QStringLiteral("wholeCard");
inline const QString computeProfile = QStringLiteral("profile");
inline const QString computeSlices = QStringLiteral("slices");
inline const QString computeFraction = QStringLiteral("fraction");
inline const QString computeNone = QStringLiteral("none");

// One argument per line; a trailing line break ends the last argument rather than starting an
// empty one, so an empty last argument is written with one more.
inline QStringList argumentsFromLines(const QString &text)
{
    if (text.isEmpty())
        return {};
    QStringList lines = text.split(u'\n');
    if (lines.constLast().isEmpty())
        lines.removeLast();
    return lines;
}

inline QString linesFromArguments(const QStringList &arguments)
{
    QString text = arguments.join(u'\n');
    if (!arguments.isEmpty() && arguments.constLast().isEmpty())
        text += u'\n';
    return text;
}

} // namespace Zhaoxi::Widgets::NewWorkloadText
