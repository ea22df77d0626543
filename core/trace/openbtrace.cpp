// SPDX-License-Identifier: GPL-3.0-or-later
#include "openbtrace.h"

#include <QFile>
#include <QSet>

#include <functional>

namespace Zhaoxi::Trace {

QString TraceError::toString() const
{
    QString s = file;
    if (line > 0)
        s += QLatin1Char(':') + QString::number(line);
    s += QStringLiteral(": ");
    if (!column.isEmpty())
        s += QStringLiteral("column '") + column + QStringLiteral("': ");
    return s + message;
}

QStringList PodRecord::models() const
{
    if (numGpu < 1)
        return {};
    return gpuSpec.split(QLatin1Char('|'), Qt::SkipEmptyParts);
}

namespace {

// Splits one CSV line. Quoted fields ("a,b", "say ""hi""") are accepted though the openb files
// have none. Returns false on an unterminated quote.
bool splitCsv(QByteArrayView line, QList<QByteArray> *fields)
{
    fields->clear();
    QByteArray cur;
    bool quoted = false;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"') {
                if (i + 1 < line.size() && line[i + 1] == '"') {
                    cur += '"';
                    ++i;
                } else {
                    quoted = false;
                }
            } else {
                cur += c;
            }
        } else if (c == '"' && cur.isEmpty()) {
            quoted = true;
        } else if (c == ',') {
            fields->append(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    fields->append(cur);
    return !quoted;
}

// Walks a CSV file: header first, then each non-empty data line with its 1-based line number.
class CsvTable
{
public:
    // `optional`: the columns run() may find absent; their col[] entry is then -1.
    CsvTable(const QByteArray &csv,
             const QString &file,
             TraceError *error,
             const QStringList &optional = {})
        : m_csv(csv)
        , m_file(file)
        , m_error(error)
        , m_optional(optional)
    {}

    bool fail(int line, const QString &column, const QString &message)
    {
        if (m_error)
            *m_error = TraceError{m_file, line, column, message};
        return false;
    }

    // Reads the header and finds the columns by name (col[i] is the field index of columns[i]);
    // then calls `row` per data line.
    bool run(const QStringList &columns,
             const std::function<
                     bool(int line, const QList<QByteArray> &fields, const QList<int> &col)> &row)
    {
        const QList<QByteArray> lines = m_csv.split('\n');
        int headerLine = 0;
        QList<QByteArray> header;
        QList<QByteArray> fields;
        int width = 0;
        QList<int> col;
        for (qsizetype i = 0; i < lines.size(); ++i) {
            QByteArray line = lines[i];
            if (line.endsWith('\r'))
                line.chop(1);
            const int lineNo = int(i) + 1;
            if (line.trimmed().isEmpty())
                continue;
            if (headerLine == 0) {
                if (lineNo == 1 && line.startsWith("\xEF\xBB\xBF"))
                    line.remove(0, 3); // a UTF-8 byte order mark
                headerLine = lineNo;
                if (!splitCsv(line, &header))
                    return fail(lineNo, {}, QStringLiteral("unterminated quote in the header"));
                width = int(header.size());
                // Every missing column in one error: a file cut down to other columns usually
                // lacks several, and naming them one at a time would take a run for each.
                QStringList missing;
                for (const QString &name : columns) {
                    const qsizetype at = header.indexOf(name.toUtf8());
                    if (at < 0 && !m_optional.contains(name))
                        missing.append(name);
                    col.append(int(at));
                }
                if (missing.size() == 1)
                    return fail(lineNo,
                                missing.first(),
                                QStringLiteral("required column missing from the header"));
                if (!missing.isEmpty())
                    return fail(lineNo,
                                missing.first(),
                                QStringLiteral("required columns missing from the header: %1")
                                        .arg(missing.join(QStringLiteral(", "))));
                continue;
            }
            if (!splitCsv(line, &fields))
                return fail(lineNo, {}, QStringLiteral("unterminated quote"));
            if (fields.size() != width)
                return fail(lineNo,
                            {},
                            QStringLiteral("%1 fields, the header has %2")
                                    .arg(fields.size())
                                    .arg(width));
            if (!row(lineNo, fields, col))
                return false;
        }
        if (headerLine == 0)
            return fail(0, {}, QStringLiteral("empty file: no header"));
        return true;
    }

    // An integer >= 0 (surrounding blanks allowed).
    bool integer(int line, const QString &column, const QByteArray &text, qint64 max, qint64 *out)
    {
        bool ok = false;
        const QByteArray t = text.trimmed();
        const qint64 v = t.toLongLong(&ok);
        if (!ok)
            return fail(line,
                        column,
                        QStringLiteral("'%1' is not an integer").arg(QString::fromUtf8(t)));
        if (v < 0)
            return fail(line, column, QStringLiteral("%1 is negative").arg(v));
        if (v > max)
            return fail(line, column, QStringLiteral("%1 is larger than %2").arg(v).arg(max));
        *out = v;
        return true;
    }

private:
    const QByteArray &m_csv;
    QString m_file;
    TraceError *m_error;
    QStringList m_optional;
};

constexpr qint64 kMaxAmount = qint64(1) << 50;

std::optional<QByteArray> readAll(const QString &path, TraceError *error)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        if (error)
            *error = TraceError{path, 0, {}, QStringLiteral("cannot open: ") + f.errorString()};
        return std::nullopt;
    }
    return f.readAll();
}

} // namespace

std::optional<QList<NodeRecord>> parseNodes(const QByteArray &csv,
                                            const QString &fileName,
                                            TraceError *error)
{
    CsvTable t(csv, fileName, error);
    QList<NodeRecord> nodes;
    QSet<QString> names;
    const QStringList req{QStringLiteral("sn"),
                          QStringLiteral("cpu_milli"),
                          QStringLiteral("memory_mib"),
                          QStringLiteral("gpu"),
                          QStringLiteral("model")};
    const bool ok = t.run(req, [&](int line, const QList<QByteArray> &f, const QList<int> &col) {
        NodeRecord n;
        n.name = QString::fromUtf8(f[col[0]].trimmed());
        if (n.name.isEmpty())
            return t.fail(line, req[0], QStringLiteral("empty node name"));
        if (names.contains(n.name))
            return t.fail(line, req[0], QStringLiteral("node '%1' listed twice").arg(n.name));
        qint64 gpus = 0;
        if (!t.integer(line, req[1], f[col[1]], kMaxAmount, &n.cpuMilli)
            || !t.integer(line, req[2], f[col[2]], kMaxAmount, &n.memoryMiB)
            || !t.integer(line, req[3], f[col[3]], 64, &gpus))
            return false;
        n.gpus = int(gpus);
        n.model = QString::fromUtf8(f[col[4]].trimmed());
        if (n.gpus > 0 && n.model.isEmpty())
            return t.fail(line, req[4], QStringLiteral("a node with GPUs needs a model"));
        names.insert(n.name);
        nodes.append(n);
        return true;
    });
    if (!ok)
        return std::nullopt;
    return nodes;
}

std::optional<QList<PodRecord>> parsePods(const QByteArray &csv,
                                          const QString &fileName,
                                          TraceError *error)
{
    // gpu_spec is not needed for a request: without it every pod may use any model (protocol
    // 2.2; the openb simulator's pod_csv_to_yaml.py then leaves the model annotation out).
    CsvTable t(csv, fileName, error, {QStringLiteral("gpu_spec")});
    QList<PodRecord> pods;
    QSet<QString> names;
    const QStringList req{QStringLiteral("name"),
                          QStringLiteral("cpu_milli"),
                          QStringLiteral("memory_mib"),
                          QStringLiteral("num_gpu"),
                          QStringLiteral("gpu_milli"),
                          QStringLiteral("gpu_spec")};
    const bool ok = t.run(req, [&](int line, const QList<QByteArray> &f, const QList<int> &col) {
        PodRecord p;
        p.name = QString::fromUtf8(f[col[0]].trimmed());
        if (p.name.isEmpty())
            return t.fail(line, req[0], QStringLiteral("empty pod name"));
        if (names.contains(p.name))
            return t.fail(line, req[0], QStringLiteral("pod '%1' listed twice").arg(p.name));
        qint64 numGpu = 0, gpuMilli = 0;
        if (!t.integer(line, req[1], f[col[1]], kMaxAmount, &p.cpuMilli)
            || !t.integer(line, req[2], f[col[2]], kMaxAmount, &p.memoryMiB)
            || !t.integer(line, req[3], f[col[3]], 64, &numGpu)
            || !t.integer(line, req[4], f[col[4]], 1000000, &gpuMilli))
            return false;
        p.numGpu = int(numGpu);
        p.gpuMilli = int(gpuMilli);
        if (col[5] >= 0)
            p.gpuSpec = QString::fromUtf8(f[col[5]].trimmed());
        names.insert(p.name);
        pods.append(p);
        return true;
    });
    if (!ok)
        return std::nullopt;
    return pods;
}

std::optional<QList<NodeRecord>> readNodes(const QString &path, TraceError *error)
{
    const auto bytes = readAll(path, error);
    if (!bytes)
        return std::nullopt;
    return parseNodes(*bytes, path, error);
}

std::optional<QList<PodRecord>> readPods(const QString &path, TraceError *error)
{
    const auto bytes = readAll(path, error);
    if (!bytes)
        return std::nullopt;
    return parsePods(*bytes, path, error);
}

} // namespace Zhaoxi::Trace
