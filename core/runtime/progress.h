// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What a training job reports about itself: JSON lines appended to a progress file, one object
// per line, e.g.
//   {"step": 1200, "samples_per_s": 812.5, "loss": 0.734}
//   {"step": 1250, "samples_per_s": 809.1, "loss": 0.731, "checkpoint": true}
// Every field is optional; unknown keys are ignored (a job may report more than we read).
//
// parseProgressLine is pure and reentrant. ProgressFollower is a plain value object with no
// thread affinity; use one instance from one thread at a time. Time is an argument: the caller
// passes the wall clock it wants stamped on each line.

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>

#include <limits>
#include <optional>

namespace Zhaoxi::Runtime {

struct ProgressLine
{
    qint64 step = -1;                                              // -1: not reported
    double samplesPerS = std::numeric_limits<double>::quiet_NaN(); // NaN: not reported
    double loss = std::numeric_limits<double>::quiet_NaN();        // NaN: not reported
    bool checkpoint = false; // true: a checkpoint was saved at this step
    qint64 readMs = 0;       // when the line was read (UTC epoch ms, from the caller)
};

// One line, without its newline (surrounding whitespace is allowed). The line must be a JSON
// object; "step" must be a non-negative integer (a JSON number with no fraction, < 2^53),
// "samples_per_s" and "loss" numbers, "checkpoint" a boolean. A wrong type, including null, is an
// error naming the field, e.g. `field "loss" must be a number, got string`. On failure returns
// nullopt and sets *error (when error is not null); readMs is left 0.
std::optional<ProgressLine> parseProgressLine(const QByteArray &line, QString *error);

// Follows one progress file as it grows. Each poll() reads only what was appended since the
// previous poll, and only whole lines: a last line without its newline waits for it (it is read
// again next time). Blank lines are skipped but counted. When the file shrinks below what was
// read (truncated) or is replaced by another file (another inode, e.g. a rename over it), the
// follower starts again from offset 0 and line 1. A missing file is not an error: it yields
// nothing until it appears. A line longer than maxLineBytes is reported as an error and skipped.
class ProgressFollower
{
public:
    static constexpr qint64 maxLineBytes = 64 * 1024;
    static constexpr qint64 maxReadBytes = 4 * 1024 * 1024; // per poll; the rest waits

    explicit ProgressFollower(const QString &path = {});

    struct Result
    {
        QList<ProgressLine> lines; // in file order, each stamped readMs = nowMs
        // One message per bad line, "progress line 7: field \"step\" must be ..."; a file that
        // cannot be read (other than missing) gives "progress file <path>: <reason>".
        QStringList errors;
    };
    Result poll(qint64 nowMs);

    // Skips what the file holds now: only lines appended later are read (a file that does not
    // exist yet is read from its start once it appears). For a process that writes to a file
    // an earlier run wrote to.
    void skipExisting();

    QString path() const { return m_path; }
    qint64 offset() const { return m_offset; }        // bytes consumed (whole lines)
    qint64 linesRead() const { return m_lineNumber; } // lines consumed since the (re)start

private:
    void restart();

    QString m_path;
    QByteArray m_native;    // m_path encoded once (read every sweep of every job)
    qint64 m_seenSize = -1; // the size at the last read: unchanged, nothing to read
    qint64 m_offset = 0;
    qint64 m_lineNumber = 0;
    quint64 m_device = 0;
    quint64 m_inode = 0;
    bool m_haveIdentity = false;
    bool m_skipping = false; // inside an over-long line: drop bytes up to its newline
};

} // namespace Zhaoxi::Runtime

Q_DECLARE_METATYPE(Zhaoxi::Runtime::ProgressLine)
