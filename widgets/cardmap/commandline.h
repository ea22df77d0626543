// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>

#include <optional>

namespace Zhaoxi::Widgets {

// The console's one-line form of a workload's run.command (docs/workload-spec.md): the words of
// a POSIX shell command line, without anything a shell would do to them. Blanks (spaces, tabs)
// separate arguments; '...' keeps everything literally; "..." keeps everything but a backslash
// before ", \, $ or `, which stands for that character; outside quotes a backslash stands for
// the next character. Quotes join with what is next to them (--name="a b" is one argument), and
// '' or "" is an empty argument. Nothing is expanded: $VAR, ~ and * stay as they are written, as
// the appliance runs the command without a shell.
//
// On a line that ends inside quotes or after a lone backslash returns nullopt and, when `error`
// is not null, a translated sentence that says where. Pure; GUI thread (it uses tr()).
std::optional<QStringList> splitCommandLine(const QString &line, QString *error = nullptr);

// The line that splitCommandLine() reads back as `arguments`: plain words as they are, anything
// else in single quotes (a ' inside as '\''), an empty argument as ''. Pure; any thread.
QString joinCommandLine(const QStringList &arguments);

} // namespace Zhaoxi::Widgets
