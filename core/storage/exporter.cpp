// SPDX-License-Identifier: GPL-3.0-or-later
#include "exporter.h"

#include "store.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

namespace Zhaoxi::Storage {

namespace {

// The export's buffers. QByteArray::append() goes through insert() (and strlen() for a literal)
// on each call; at a dozen appends per row and a million rows that cost more than the bytes.
class Bytes
{
public:
    void append(const char *p, qsizetype n) { m_s.append(p, size_t(n)); }
    void append(const char *text) { m_s.append(text); } // literals: the length is folded
    void append(char c) { m_s.push_back(c); }
    void append(const QByteArray &b) { m_s.append(b.constData(), size_t(b.size())); }
    qsizetype size() const { return qsizetype(m_s.size()); }
    const char *constData() const { return m_s.data(); }
    void clear() { m_s.clear(); } // keeps the capacity
    void reserve(qsizetype n) { m_s.reserve(size_t(n)); }

private:
    std::string m_s;
};

// Howard Hinnant's days-to-civil: no QDateTime per row, which matters at a million rows.
void civilFromDays(qint64 z, int *y, unsigned *m, unsigned *d)
{
    z += 719468;
    const qint64 era = (z >= 0 ? z : z - 146096) / 146097;
    const unsigned doe = unsigned(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const qint64 yy = qint64(yoe) + era * 400;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = int(yy + (*m <= 2));
}

inline char *digits(char *p, unsigned v, int n)
{
    for (int i = n - 1; i >= 0; --i) {
        p[i] = char('0' + v % 10);
        v /= 10;
    }
    return p + n;
}

template<class Buf>
void appendInt(Buf &out, qint64 v)
{
    char buf[24];
    char *end = buf + sizeof buf;
    char *p = end;
    const bool neg = v < 0;
    quint64 u = neg ? quint64(0) - quint64(v) : quint64(v);
    do {
        *--p = char('0' + u % 10);
        u /= 10;
    } while (u);
    if (neg)
        *--p = '-';
    out.append(p, end - p);
}

template<class Buf>
void appendJsonString(Buf &out, const char *p, qsizetype n)
{
    out.append('"');
    qsizetype run = 0;
    for (qsizetype i = 0; i < n; ++i) {
        const unsigned char c = static_cast<unsigned char>(p[i]);
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        out.append(p + run, i - run);
        run = i + 1;
        switch (c) {
        case '"':
            out.append("\\\"", 2);
            break;
        case '\\':
            out.append("\\\\", 2);
            break;
        case '\n':
            out.append("\\n", 2);
            break;
        case '\r':
            out.append("\\r", 2);
            break;
        case '\t':
            out.append("\\t", 2);
            break;
        default: {
            static const char hex[] = "0123456789abcdef";
            const char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            out.append(esc, 6);
        }
        }
    }
    out.append(p + run, n - run);
    out.append('"');
}

// The zone's offset changes only on quarter-hour boundaries in every real zone: cache per
// quarter hour instead of asking QTimeZone for each row.
class OffsetCache
{
public:
    explicit OffsetCache(const QTimeZone &tz)
        : m_tz(tz)
        , m_utc(tz == QTimeZone::utc() || !tz.isValid())
    {}
    int offset(qint64 ms)
    {
        if (m_utc)
            return 0;
        const qint64 q = ms >= 0 ? ms / 900000 : (ms - 899999) / 900000;
        if (q != m_bucket) {
            m_bucket = q;
            m_offset = m_tz.offsetFromUtc(QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC));
        }
        return m_offset;
    }

private:
    QTimeZone m_tz;
    bool m_utc;
    qint64 m_bucket = std::numeric_limits<qint64>::min();
    int m_offset = 0;
};

// The CSV header: the columns exporter.h lists.
const char kHeader[]
        = "id,time,epoch_ms,severity,source,code,card,partition,job,actor,message,params\r\n";

struct Template
{
    const char *code;
    const char *text;
};

// {name}: a param or one of job, card, partition, actor, code.

const Template kTemplates[] = {
        {"job-submitted", "Job {job} submitted"},
        {"job-placed", "Job {job} placed on host {host}"},
        {"job-waiting", "Job {job} is waiting: {reason}"},
        {"job-preempting", "Job {job} will be preempted for job {other}"},
        {"job-evicted", "Job {job} evicted; {workLostMs} ms of work lost"},
        {"job-finished", "Job {job} finished"},
        {"job-cancelled", "Job {job} cancelled"},
        {"job-failed", "Job {job} failed"},
        {"partition-created", "Partition {partition} ({profile}) created on card {card}"},
        {"partition-destroyed", "Partition {partition} ({profile}) destroyed on card {card}"},
        {"card-mode-changed", "Card {card} switched to {mode} mode"},
        {"card-failed", "Card {card} failed"},
        {"card-recovered", "Card {card} recovered"},
        {"budget-changed", "Class budgets changed"},
        {"fleet-read", "Slurm at {url} read: {nodes} nodes, {jobs} jobs"},
        {"fleet-unreachable", "Slurm at {url} is not reachable: {message}"},
        {"fleet-reachable", "Slurm at {url} answers again after {downMs} ms"},
        {"fleet-node-added", "Node {node} joined: {state}"},
        {"fleet-node-state", "Node {node} is {state} (was {previousState}) {reason}"},
        {"fleet-token-renewed", "The Slurm token was renewed ({why})"},
        {"fleet-token-renew-failed", "The Slurm token could not be renewed: {error}"},
        {"fleet-token-expiring", "The Slurm token in {tokenFile} expires soon"},
        {"slurm-job-seen", "Slurm job {slurmJob} ({name}) seen: {state}"},
        {"slurm-job-submitted", "Slurm job {slurmJob} ({name}) submitted for node {node}"},
        {"slurm-job-started", "Slurm job {slurmJob} ({name}) started on {nodes}"},
        {"slurm-job-requeued", "Slurm job {slurmJob} ({name}) requeued"},
        {"slurm-job-ended", "Slurm job {slurmJob} ({name}) ended: {state}"},
        {"slurm-job-waiting", "Slurm job {slurmJob} ({name}) waits: {reason}"},
        {"slurm-job-replanned", "Slurm refused {name} on {refusedNodes}; re-planned on {node}"},
        {"fleet-windows-applied", "The schedule's Slurm reservations were applied"},
        {"fleet-windows-failed",
         "The schedule's Slurm reservations failed at {failedStep}: {error}"},
        {"store-moved-aside",
         "The store file was unreadable ({problem}); it was moved to {movedTo}"},
};

QString fieldText(const Event &e, const QByteArray &name)
{
    if (name == "job")
        return e.job >= 0 ? QString::number(e.job) : QStringLiteral("?");
    if (name == "card")
        return e.card >= 0 ? QString::number(e.card) : QStringLiteral("?");
    if (name == "partition")
        return e.partition >= 0 ? QString::number(e.partition) : QStringLiteral("?");
    if (name == "actor")
        return e.actor;
    if (name == "code")
        return QString::fromLatin1(e.code);
    QString v = eventParam(e, QLatin1StringView(name));
    return v.isEmpty() ? QStringLiteral("?") : v;
}

// isoTime(), appended to `out`: no QByteArray per row.
template<class Buf>
void appendIsoTime(Buf &out, qint64 epochMs, int offsetSeconds)
{
    const qint64 local = epochMs + qint64(offsetSeconds) * 1000;
    qint64 days = local >= 0 ? local / 86400000 : (local - 86399999) / 86400000;
    qint64 msOfDay = local - days * 86400000;
    int y = 0;
    unsigned m = 0, d = 0;
    civilFromDays(days, &y, &m, &d);
    char buf[40];
    char *p = buf;
    if (y < 0 || y > 9999) {
        // Outside ISO-8601's four digits: fall back to an expanded year.
        const QByteArray ys
                = (y < 0 ? "-" : "+") + QByteArray::number(std::abs(y)).rightJustified(6, '0');
        std::memcpy(p, ys.constData(), size_t(ys.size()));
        p += ys.size();
    } else {
        p = digits(p, unsigned(y), 4);
    }
    *p++ = '-';
    p = digits(p, m, 2);
    *p++ = '-';
    p = digits(p, d, 2);
    *p++ = 'T';
    const unsigned ms = unsigned(msOfDay);
    p = digits(p, ms / 3600000, 2);
    *p++ = ':';
    p = digits(p, ms / 60000 % 60, 2);
    *p++ = ':';
    p = digits(p, ms / 1000 % 60, 2);
    *p++ = '.';
    p = digits(p, ms % 1000, 3);
    const int off = offsetSeconds;
    *p++ = off < 0 ? '-' : '+';
    const unsigned a = unsigned(std::abs(off));
    p = digits(p, a / 3600, 2);
    *p++ = ':';
    p = digits(p, a / 60 % 60, 2);
    out.append(buf, p - buf);
}

// Where jsonParam() finds the value of `key`: for a string, [begin, end] are its quotes (end is
// the text's size when the closing quote is missing); otherwise [begin, end) is the raw value.
struct ParamSpan
{
    bool found = false;
    bool string = false;
    qsizetype begin = 0;
    qsizetype end = 0;
};

ParamSpan locateParam(const QByteArray &params, QLatin1StringView key)
{
    // A flat object written by the Recorder; find "key" followed by a colon at depth 1.
    const char *s = params.constData();
    const qsizetype n = params.size();
    int depth = 0;
    for (qsizetype i = 0; i < n; ++i) {
        const char c = s[i];
        if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            --depth;
        } else if (c == '"') {
            qsizetype j = i + 1;
            while (j < n && s[j] != '"')
                j += s[j] == '\\' ? 2 : 1;
            const bool isKey = depth == 1 && j - i - 1 == key.size()
                               && std::memcmp(s + i + 1, key.data(), size_t(key.size())) == 0;
            i = j;
            if (!isKey)
                continue;
            qsizetype k = j + 1;
            while (k < n && (s[k] == ' ' || s[k] == '\t'))
                ++k;
            if (k >= n || s[k] != ':')
                continue;
            ++k;
            while (k < n && (s[k] == ' ' || s[k] == '\t'))
                ++k;
            if (k < n && s[k] == '"') {
                qsizetype e = k + 1;
                while (e < n && s[e] != '"')
                    e += s[e] == '\\' ? 2 : 1;
                // A trailing backslash steps past the end: stop at the terminating NUL.
                return {true, true, k, std::min(e, n)};
            }
            qsizetype e = k;
            int nest = 0;
            while (e < n && (nest > 0 || (s[e] != ',' && s[e] != '}'))) {
                if (s[e] == '{' || s[e] == '[')
                    ++nest;
                else if (s[e] == '}' || s[e] == ']')
                    --nest;
                ++e;
            }
            return {true, false, k, e};
        }
    }
    return {};
}

QString paramText(const QByteArray &params, const ParamSpan &v)
{
    if (!v.found)
        return {};
    const char *s = params.constData();
    if (v.string) {
        // Let Qt unescape the string properly.
        const QByteArray doc = "[" + QByteArray(s + v.begin, v.end - v.begin + 1) + "]";
        return QJsonDocument::fromJson(doc).array().at(0).toString();
    }
    return QString::fromUtf8(s + v.begin, v.end - v.begin).trimmed();
}

} // namespace

QByteArray isoTime(qint64 epochMs, int offsetSeconds)
{
    QByteArray r;
    appendIsoTime(r, epochMs, offsetSeconds);
    return r;
}

QString jsonParam(const QByteArray &params, QLatin1StringView key)
{
    return paramText(params, locateParam(params, key));
}

namespace {

// Other: actor and code, which fieldText() knows and no template here uses.
enum class Field : std::uint8_t { None, Job, Card, Partition, Param, Other };

// A template split once into literal text and fields, so a million rows do not re-parse it.
struct CompiledTemplate
{
    struct Part
    {
        QString literal;
        QByteArray literalUtf8; // the same text: templates are ASCII
        Field field = Field::None;
        QByteArray name;   // the param's name for Field::Param
        QByteArray legacy; // where stores before named params kept it (eventParam); may be empty
    };
    QByteArray code;
    QList<Part> parts;
};

Field fieldOf(const QByteArray &name)
{
    if (name.isEmpty())
        return Field::None;
    if (name == "job" || name == "card" || name == "partition")
        return name == "job" ? Field::Job : name == "card" ? Field::Card : Field::Partition;
    return name == "actor" || name == "code" ? Field::Other : Field::Param;
}

const QList<CompiledTemplate> &compiledTemplates()
{
    static const QList<CompiledTemplate> compiled = [] {
        QList<CompiledTemplate> r;
        for (const Template &t : kTemplates) {
            CompiledTemplate c;
            c.code = t.code;
            const QByteArray text = t.text;
            qsizetype i = 0;
            auto part = [&](const QByteArray &literal, const QByteArray &name) {
                const QByteArray legacy = legacyParamKey(c.code, name);
                c.parts.append(
                        {QString::fromLatin1(literal), literal, fieldOf(name), name, legacy});
            };
            while (i < text.size()) {
                const qsizetype open = text.indexOf('{', i);
                if (open < 0) {
                    part(text.mid(i), QByteArray());
                    break;
                }
                const qsizetype close = text.indexOf('}', open);
                part(text.mid(i, open - i), text.mid(open + 1, close - open - 1));
                i = close + 1;
            }
            r.append(c);
        }
        return r;
    }();
    return compiled;
}

const CompiledTemplate *templateFor(const QByteArray &code)
{
    for (const CompiledTemplate &t : compiledTemplates()) {
        if (code == t.code)
            return &t;
    }
    return nullptr;
}

bool isAscii(const char *p, qsizetype n)
{
    for (qsizetype i = 0; i < n; ++i) {
        if (static_cast<unsigned char>(p[i]) >= 0x80)
            return false;
    }
    return true;
}

// QString::fromLatin1(text).toUtf8(), without the QString for ASCII (every real code).
void appendLatin1AsUtf8(Bytes &out, const QByteArray &text)
{
    if (isAscii(text.constData(), text.size()))
        out.append(text);
    else
        out.append(QString::fromLatin1(text).toUtf8());
}

// jsonParam(params, key).toUtf8() appended to `out`; false, with nothing appended, when that is
// empty. The values the Recorder writes (numbers, plain ASCII strings) are copied as they stand;
// anything to unescape, or not ASCII and so open to QString's UTF-8 round trip and trimming,
// takes jsonParam's own path.
bool appendParamValue(Bytes &out, const QByteArray &params, QLatin1StringView key)
{
    const ParamSpan v = locateParam(params, key);
    if (!v.found)
        return false;
    const char *s = params.constData();
    if (v.string) {
        if (v.end < params.size()) {
            const char *b = s + v.begin + 1;
            const qsizetype n = v.end - v.begin - 1;
            bool plain = true;
            for (qsizetype i = 0; i < n && plain; ++i)
                plain = b[i] >= 0x20 && b[i] <= 0x7e && b[i] != '\\';
            if (plain) {
                out.append(b, n);
                return n > 0;
            }
        }
    } else if (isAscii(s + v.begin, v.end - v.begin)) {
        // QString::trimmed() on ASCII: tab, LF, VT, FF, CR and space.
        auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
        qsizetype b = v.begin;
        qsizetype end = v.end;
        while (b < end && space(s[b]))
            ++b;
        while (end > b && space(s[end - 1]))
            --end;
        out.append(s + b, end - b);
        return end > b;
    }
    const QString text = paramText(params, v);
    out.append(text.toUtf8());
    return !text.isEmpty();
}

// englishMessage(e).toUtf8(), written straight into `out`: the export's default message at a
// million rows, without a QString and its conversion per row.
void appendEnglishMessageUtf8(Bytes &out, const Event &e)
{
    const CompiledTemplate *t = templateFor(e.code);
    if (!t) {
        if (!e.actor.isEmpty()) {
            out.append(e.actor.toUtf8());
            out.append(": ", 2);
        }
        appendLatin1AsUtf8(out, e.code);
        return;
    }
    for (const CompiledTemplate::Part &part : t->parts) {
        out.append(part.literalUtf8);
        switch (part.field) {
        case Field::None:
            break;
        case Field::Job:
        case Field::Card:
        case Field::Partition: {
            const int id = part.field == Field::Job    ? e.job
                           : part.field == Field::Card ? e.card
                                                       : e.partition;
            if (id >= 0)
                appendInt(out, id);
            else
                out.append('?');
            break;
        }
        case Field::Other:
            out.append(fieldText(e, part.name).toUtf8());
            break;
        case Field::Param:
            // fieldText(): eventParam(), then "?".
            if (!appendParamValue(out, e.params, QLatin1StringView(part.name))
                && (part.legacy.isEmpty()
                    || !appendParamValue(out, e.params, QLatin1StringView(part.legacy))))
                out.append('?');
            break;
        }
    }
}

} // namespace

QString englishMessage(const Event &e)
{
    if (const CompiledTemplate *t = templateFor(e.code)) {
        QString r;
        r.reserve(64);
        for (const CompiledTemplate::Part &part : t->parts) {
            r += part.literal;
            if (part.field != Field::None)
                r += fieldText(e, part.name);
        }
        return r;
    }
    QString r = QString::fromLatin1(e.code);
    if (!e.actor.isEmpty())
        r = e.actor + QStringLiteral(": ") + r;
    return r;
}

namespace {

template<class Buf>
void appendCellTo(Buf &line, const char *p, qsizetype n, bool guard = true)
{
    const bool inject = guard && n > 0
                        && (p[0] == '=' || p[0] == '+' || p[0] == '-' || p[0] == '@' || p[0] == '\t'
                            || p[0] == '\r');
    bool quote = false;
    for (qsizetype i = 0; i < n && !quote; ++i)
        quote = p[i] == ',' || p[i] == '"' || p[i] == '\r' || p[i] == '\n';
    if (!quote) {
        if (inject)
            line.append('\'');
        line.append(p, n);
        return;
    }
    line.append('"');
    if (inject)
        line.append('\'');
    qsizetype run = 0;
    for (qsizetype i = 0; i < n; ++i) {
        if (p[i] == '"') {
            line.append(p + run, i - run + 1);
            line.append('"');
            run = i + 1;
        }
    }
    line.append(p + run, n - run);
    line.append('"');
}

} // namespace

namespace Csv {

void appendCell(QByteArray &line, const char *p, qsizetype n, bool guard)
{
    appendCellTo(line, p, n, guard);
}

} // namespace Csv

ExportResult exportEvents(Reader &reader,
                          const EventFilter &filter,
                          const ExportOptions &options,
                          QIODevice *out)
{
    ExportResult result;
    // No message function: englishMessage's words, written as UTF-8 without a QString per row.
    const MessageFn &message = options.message;
    OffsetCache offsets(options.timeZone);
    Bytes buf;
    buf.reserve(1 << 21);
    bool writeFailed = false;
    auto drain = [&](bool force) {
        if (buf.size() < (1 << 20) && !force)
            return;
        if (out->write(buf.constData(), buf.size()) != buf.size())
            writeFailed = true;
        buf.clear();
    };
    const bool csv = options.format == ExportFormat::Csv;
    if (csv) {
        if (options.bom)
            buf.append("\xEF\xBB\xBF");
        buf.append(kHeader);
    }
    auto optInt = [&](int v) {
        if (v >= 0)
            appendInt(buf, v);
        else if (!csv)
            buf.append("null");
    };
    Bytes msg;
    QByteArray actor;
    QString err;
    const bool ok = reader.forEachEvent(
            filter,
            [&](const Event &e) {
                if (options.accept && !options.accept(e))
                    return true;
                msg.clear();
                if (message)
                    msg.append(message(e).toUtf8());
                else
                    appendEnglishMessageUtf8(msg, e);
                actor.resize(0);
                if (!e.actor.isEmpty())
                    actor.append(e.actor.toUtf8());
                const char *sev = toString(e.severity);
                const char *src = toString(e.source);
                if (csv) {
                    appendInt(buf, e.id);
                    buf.append(',');
                    appendIsoTime(buf, e.atMs, offsets.offset(e.atMs));
                    buf.append(',');
                    appendInt(buf, e.atMs);
                    buf.append(',');
                    buf.append(sev);
                    buf.append(',');
                    buf.append(src);
                    buf.append(',');
                    appendCellTo(buf, e.code.constData(), e.code.size());
                    buf.append(',');
                    optInt(e.card);
                    buf.append(',');
                    optInt(e.partition);
                    buf.append(',');
                    optInt(e.job);
                    buf.append(',');
                    appendCellTo(buf, actor.constData(), actor.size());
                    buf.append(',');
                    appendCellTo(buf, msg.constData(), msg.size());
                    buf.append(',');
                    if (e.params.isEmpty())
                        buf.append("{}");
                    else
                        appendCellTo(buf, e.params.constData(), e.params.size());
                    buf.append("\r\n");
                } else {
                    buf.append("{\"id\":");
                    appendInt(buf, e.id);
                    buf.append(",\"time\":\"");
                    appendIsoTime(buf, e.atMs, offsets.offset(e.atMs));
                    buf.append("\",\"epoch_ms\":");
                    appendInt(buf, e.atMs);
                    buf.append(",\"severity\":\"");
                    buf.append(sev);
                    buf.append("\",\"source\":\"");
                    buf.append(src);
                    buf.append("\",\"code\":");
                    appendJsonString(buf, e.code.constData(), e.code.size());
                    buf.append(",\"card\":");
                    optInt(e.card);
                    buf.append(",\"partition\":");
                    optInt(e.partition);
                    buf.append(",\"job\":");
                    optInt(e.job);
                    buf.append(",\"actor\":");
                    if (e.actor.isEmpty())
                        buf.append("null");
                    else
                        appendJsonString(buf, actor.constData(), actor.size());
                    buf.append(",\"message\":");
                    appendJsonString(buf, msg.constData(), msg.size());
                    buf.append(",\"params\":");
                    // Params are JSON objects by contract (the Recorder writes them); anything else
                    // is carried as a string rather than breaking the line.
                    if (e.params.isEmpty())
                        buf.append("{}");
                    else if (e.params.startsWith('{') && e.params.endsWith('}'))
                        buf.append(e.params);
                    else
                        appendJsonString(buf, e.params.constData(), e.params.size());
                    buf.append("}\n");
                }
                ++result.rows;
                drain(false);
                return !writeFailed;
            },
            &err);
    drain(true);
    if (!ok) {
        result.error = QStringLiteral("reading events failed: %1").arg(err);
        return result;
    }
    if (writeFailed) {
        result.error = QStringLiteral("writing failed: %1").arg(out->errorString());
        return result;
    }
    result.ok = true;
    return result;
}

ExportResult exportEventsToFile(Reader &reader,
                                const EventFilter &filter,
                                const ExportOptions &options,
                                const QString &path)
{
    if (const QString why = refusedOutputReason(path, reader.path()); !why.isEmpty()) {
        ExportResult r;
        r.error = QStringLiteral("cannot export: %1").arg(why);
        return r;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        ExportResult r;
        r.error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return r;
    }
    // The owner's only: an export holds what the event log holds.
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    ExportResult r = exportEvents(reader, filter, options, &file);
    if (!r.ok) {
        file.cancelWriting();
        r.error = QStringLiteral("%1: %2").arg(path, r.error);
        return r;
    }
    if (!file.commit()) {
        r.ok = false;
        r.error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
    }
    return r;
}

} // namespace Zhaoxi::Storage
