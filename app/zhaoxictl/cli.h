// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>

#include <QTextStream>

#include <optional>

namespace Zhaoxi::Cli {

// What a command gets: its arguments (after the command name) and its two streams.
// A command returns the process exit code: 0 ok, 1 a negative answer (e.g. layout invalid),
// 2 a usage or input error (the message names what is wrong).
struct Io
{
    QTextStream &out;
    QTextStream &err;
};

// Minimal option parsing shared by commands: "--name value", "--name=value" and flags.
class Args
{
public:
    explicit Args(const QStringList &args);
    bool flag(const QString &name);                    // consumes --name
    std::optional<QString> value(const QString &name); // consumes --name V / --name=V
    QStringList positional() const;                    // what is left that does not start with --
    QStringList unknownOptions() const;                // leftover --options (call after consuming)
    QString missingValueFor() const { return m_missingValue; } // an option given without value

private:
    QStringList m_args;
    QString m_missingValue;
};

// The name of `known` that `given` spells, letters' case aside ("FGD", "fgd", "Fgd"): that
// entry as `known` has it; empty when none matches.
QString knownName(const QString &given, const QStringList &known);

// A time on the command line: epoch milliseconds, or ISO-8601 ("2024-05-01T09:12:00+08:00",
// "2024-05-01T01:12:00Z", "2024-05-01"). A time without an offset is UTC. nullopt: neither.
std::optional<qint64> parseTimeArg(const QString &text);

// The shim and the shipped demo workloads sit beside the running program when installed, and in
// their own build directories in a build tree (app/<buildSubdir>/); else PATH. Empty when none.
QString findBeside(const QString &name, const QString &buildSubdir);

} // namespace Zhaoxi::Cli
