// SPDX-License-Identifier: GPL-3.0-or-later
#include "progress.h"

#include "core/domain/jsonnames.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QJsonValue>

#include <cerrno>
#include <cmath>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Zhaoxi::Runtime {

namespace {

bool fail(QString *error, const QString &message)
{
    if (error)
        *error = message;
    return false;
}

} // namespace

std::optional<ProgressLine> parseProgressLine(const QByteArray &line, QString *error)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(line.trimmed(), &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        fail(error,
             QStringLiteral("not valid JSON (%1 at offset %2)")
                     .arg(parseError.errorString())
                     .arg(parseError.offset));
        return std::nullopt;
    }
    if (!doc.isObject()) {
        fail(error, QStringLiteral("not a JSON object"));
        return std::nullopt;
    }
    const QJsonObject object = doc.object();
    ProgressLine out;

    const auto wrongType = [&](const char *field, const char *wanted, const QJsonValue &v) {
        return fail(
                error,
                QStringLiteral("field \"%1\" must be %2, got %3")
                        .arg(QLatin1String(field), QLatin1String(wanted), Domain::jsonTypeName(v)));
    };

    if (const auto it = object.constFind(QLatin1String("step")); it != object.constEnd()) {
        const QJsonValue v = *it;
        // 2^53: above it a double no longer holds every integer, so the step would be a guess.
        constexpr double maxExact = 9007199254740992.0;
        if (!v.isDouble()) {
            wrongType("step", "a non-negative integer", v);
            return std::nullopt;
        }
        const double d = v.toDouble();
        if (!(d >= 0) || d >= maxExact || std::floor(d) != d) {
            fail(error,
                 QStringLiteral("field \"step\" must be a non-negative integer, not %1")
                         .arg(d, 0, 'g', 17));
            return std::nullopt;
        }
        out.step = qint64(d);
    }
    const auto number = [&](const char *field, double *target) {
        const auto it = object.constFind(QLatin1String(field));
        if (it == object.constEnd())
            return true;
        if (!it->isDouble())
            return wrongType(field, "a number", *it);
        *target = it->toDouble();
        return true;
    };
    if (!number("samples_per_s", &out.samplesPerS) || !number("loss", &out.loss))
        return std::nullopt;
    if (const auto it = object.constFind(QLatin1String("checkpoint")); it != object.constEnd()) {
        if (!it->isBool()) {
            wrongType("checkpoint", "a boolean", *it);
            return std::nullopt;
        }
        out.checkpoint = it->toBool();
    }
    return out;
}

ProgressFollower::ProgressFollower(const QString &path)
    : m_path(path)
    , m_native(path.toLocal8Bit())
{}

void ProgressFollower::restart()
{
    m_seenSize = -1;
    m_offset = 0;
    m_lineNumber = 0;
    m_skipping = false;
}

void ProgressFollower::skipExisting()
{
    restart();
    m_haveIdentity = false;
    struct stat st = {};
    if (m_path.isEmpty() || ::stat(m_native.constData(), &st) != 0)
        return;
    m_device = quint64(st.st_dev);
    m_inode = quint64(st.st_ino);
    m_haveIdentity = true;
    m_offset = qint64(st.st_size);
}

ProgressFollower::Result ProgressFollower::poll(qint64 nowMs)
{
    Result result;
    if (m_path.isEmpty())
        return result;
    // The common case, nothing written since the last look, costs one stat. Otherwise open +
    // fstat: the identity checked is the file actually read.
    {
        struct stat quick = {};
        if (::stat(m_native.constData(), &quick) == 0 && m_haveIdentity
            && quint64(quick.st_dev) == m_device && quint64(quick.st_ino) == m_inode
            && qint64(quick.st_size) == m_seenSize)
            return result;
    }
    const int fd = ::open(m_native.constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT)
            result.errors << QStringLiteral("progress file %1: %2")
                                     .arg(m_path, QString::fromLocal8Bit(std::strerror(errno)));
        return result;
    }
    struct stat st = {};
    if (::fstat(fd, &st) != 0) {
        result.errors << QStringLiteral("progress file %1: %2")
                                 .arg(m_path, QString::fromLocal8Bit(std::strerror(errno)));
        ::close(fd);
        return result;
    }
    const bool replaced
            = m_haveIdentity && (quint64(st.st_dev) != m_device || quint64(st.st_ino) != m_inode);
    if (replaced || qint64(st.st_size) < m_offset)
        restart();
    m_device = quint64(st.st_dev);
    m_inode = quint64(st.st_ino);
    m_haveIdentity = true;

    const qint64 available = qMin<qint64>(qint64(st.st_size) - m_offset, maxReadBytes);
    // Read up to the end (not capped by maxReadBytes): then the next poll may skip the file.
    if (qint64(st.st_size) - m_offset <= maxReadBytes)
        m_seenSize = qint64(st.st_size);
    if (available <= 0) {
        ::close(fd);
        return result;
    }
    QByteArray data(available, Qt::Uninitialized);
    qint64 got = 0;
    while (got < available) {
        const ssize_t n = ::pread(fd, data.data() + got, size_t(available - got), m_offset + got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += n;
    }
    ::close(fd);
    if (got < available)
        m_seenSize = -1; // a short read: look again next time
    data.truncate(got);

    qint64 pos = 0;
    while (pos < data.size()) {
        const qint64 nl = data.indexOf('\n', pos);
        if (nl < 0) {
            // A last line still being written waits for its newline, unless it can no longer
            // be a valid line: then it is dropped up to the newline that ends it.
            const qint64 pending = data.size() - pos;
            if (pending > maxLineBytes || (m_skipping && pending > 0)) {
                if (!m_skipping) {
                    ++m_lineNumber;
                    result.errors << QStringLiteral("progress line %1: longer than %2 bytes")
                                             .arg(m_lineNumber)
                                             .arg(maxLineBytes);
                }
                m_skipping = true;
                pos = data.size();
            }
            break;
        }
        const QByteArray line = data.mid(pos, nl - pos);
        pos = nl + 1;
        if (m_skipping) { // the tail of an over-long line already reported
            m_skipping = false;
            continue;
        }
        ++m_lineNumber;
        if (line.size() > maxLineBytes) {
            result.errors << QStringLiteral("progress line %1: longer than %2 bytes")
                                     .arg(m_lineNumber)
                                     .arg(maxLineBytes);
            continue;
        }
        if (line.trimmed().isEmpty())
            continue;
        QString error;
        if (auto parsed = parseProgressLine(line, &error)) {
            parsed->readMs = nowMs;
            result.lines << *parsed;
        } else {
            result.errors << QStringLiteral("progress line %1: %2").arg(m_lineNumber).arg(error);
        }
    }
    m_offset += pos;
    return result;
}

} // namespace Zhaoxi::Runtime
