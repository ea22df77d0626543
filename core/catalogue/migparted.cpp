// SPDX-License-Identifier: GPL-3.0-or-later
#include "migparted.h"

#include "catalogue.h"
#include "layoutrules.h"

#include <QFile>
#include <QSet>
#include <QStringView>

#include <algorithm>

namespace Zhaoxi::Catalogue {

using Domain::CardModel;
using Domain::MigPlacement;
using Domain::MigProfile;

// ============================================================================ YAML subset

const YamlNode *YamlNode::value(const QString &key) const
{
    for (const auto &e : entries) {
        if (e.first == key)
            return &e.second;
    }
    return nullptr;
}

QString YamlError::toString() const
{
    if (!file.isEmpty()) {
        if (line <= 0)
            return QStringLiteral("%1: %2").arg(file, message);
        if (column > 0)
            return QStringLiteral("%1:%2:%3: %4").arg(file).arg(line).arg(column).arg(message);
        return QStringLiteral("%1:%2: %3").arg(file).arg(line).arg(message);
    }
    if (line <= 0)
        return message;
    if (column > 0)
        return QStringLiteral("line %1, column %2: %3").arg(line).arg(column).arg(message);
    return QStringLiteral("line %1: %2").arg(line).arg(message);
}

namespace {

struct Line
{
    int number = 0;
    int indent = 0;
    QString text; // without indentation, comment and trailing blanks
};

// Thrown inside the parser only; turned into a YamlError at the top.
struct ParseFailure
{
    int line;
    QString message;
    int column = 0;
};

[[noreturn]] void fail(int line, const QString &message)
{
    throw ParseFailure{line, message};
}

// Input quoted in a message: a fuzzed file may hold megabytes on one line.
QString excerpt(QStringView s)
{
    constexpr qsizetype kMax = 40;
    return s.size() <= kMax ? s.toString() : s.left(kMax).toString() + QStringLiteral("...");
}

// Every collection, block or flow, is entered through one of these; the parsers recurse once
// per level, so this bound is what keeps a deeply nested file from overflowing the stack.
class Nesting
{
public:
    Nesting(int &depth, int line, int column)
        : m_depth(depth)
    {
        if (depth >= kMaxYamlNesting)
            throw ParseFailure{line,
                               QStringLiteral("nesting is too deep: at most %1 levels of "
                                              "sequences and mappings inside each other are "
                                              "allowed")
                                       .arg(kMaxYamlNesting),
                               column};
        ++m_depth;
    }
    ~Nesting() { --m_depth; }
    Nesting(const Nesting &) = delete;
    Nesting &operator=(const Nesting &) = delete;

private:
    int &m_depth;
};

// Strips a comment: '#' at the start or after a blank, outside quotes.
QStringView stripComment(QStringView s)
{
    QChar quote;
    for (int i = 0; i < s.size(); ++i) {
        const QChar c = s[i];
        if (!quote.isNull()) {
            if (c == quote) {
                if (quote == QLatin1Char('\'') && i + 1 < s.size() && s[i + 1] == quote)
                    ++i; // '' inside single quotes
                else
                    quote = QChar();
            } else if (c == QLatin1Char('\\') && quote == QLatin1Char('"')) {
                ++i;
            }
            continue;
        }
        if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
            if (i == 0 || s[i - 1].isSpace() || QStringLiteral("[{,:-").contains(s[i - 1]))
                quote = c;
        } else if (c == QLatin1Char('#') && (i == 0 || s[i - 1].isSpace())) {
            return s.left(i);
        }
    }
    return s;
}

// A scalar or flow collection on one line, from position `pos`. `column` is where `text`
// starts on its line (0-based), `depth` the number of collections around it.
class FlowParser
{
public:
    FlowParser(const QString &text, int line, int column, int depth)
        : m_s(text)
        , m_line(line)
        , m_column(column)
        , m_depth(depth)
    {}

    YamlNode parseWhole()
    {
        skipBlanks();
        YamlNode n = parseValue(false);
        skipBlanks();
        if (m_pos < m_s.size())
            fail(m_line,
                 QStringLiteral("unexpected \"%1\" after the value")
                         .arg(excerpt(QStringView(m_s).mid(m_pos))));
        return n;
    }

    // Quoted key at the start of a mapping line: returns the key, leaves pos after the quote.
    QString parseQuotedKey()
    {
        const YamlNode n = parseQuoted();
        return n.scalar;
    }
    int pos() const { return m_pos; }
    void setPos(int p) { m_pos = p; }
    const QString &text() const { return m_s; }

private:
    void skipBlanks()
    {
        while (m_pos < m_s.size() && m_s[m_pos].isSpace())
            ++m_pos;
    }

    YamlNode parseValue(bool inFlow)
    {
        skipBlanks();
        YamlNode n;
        n.line = m_line;
        if (m_pos >= m_s.size())
            return n; // null
        const QChar c = m_s[m_pos];
        if (c == QLatin1Char('{'))
            return parseFlowMapping();
        if (c == QLatin1Char('['))
            return parseFlowSequence();
        if (c == QLatin1Char('"') || c == QLatin1Char('\''))
            return parseQuoted();
        if (c == QLatin1Char('&') || c == QLatin1Char('*'))
            fail(m_line, QStringLiteral("anchors and aliases are not supported"));
        if (c == QLatin1Char('!'))
            fail(m_line, QStringLiteral("tags are not supported"));
        if ((c == QLatin1Char('|') || c == QLatin1Char('>')) && !inFlow)
            fail(m_line, QStringLiteral("block scalars (| and >) are not supported"));
        return parsePlain(inFlow);
    }

    YamlNode parsePlain(bool inFlow)
    {
        YamlNode n;
        n.line = m_line;
        n.kind = YamlNode::Kind::Scalar;
        const int begin = m_pos;
        while (m_pos < m_s.size()) {
            const QChar c = m_s[m_pos];
            if (inFlow && (c == QLatin1Char(',') || c == QLatin1Char(']') || c == QLatin1Char('}')))
                break;
            if (inFlow && c == QLatin1Char(':')
                && (m_pos + 1 >= m_s.size() || m_s[m_pos + 1].isSpace()
                    || QStringLiteral(",]}").contains(m_s[m_pos + 1])))
                break;
            ++m_pos;
        }
        n.scalar = m_s.mid(begin, m_pos - begin).trimmed();
        if (n.scalar == QLatin1String("~") || n.scalar == QLatin1String("null")
            || (n.scalar.isEmpty() && inFlow)) {
            n.kind = YamlNode::Kind::Null;
            n.scalar.clear();
        }
        return n;
    }

    YamlNode parseQuoted()
    {
        YamlNode n;
        n.line = m_line;
        n.kind = YamlNode::Kind::Scalar;
        n.quoted = true;
        const QChar q = m_s[m_pos++];
        QString out;
        while (true) {
            if (m_pos >= m_s.size())
                fail(m_line, QStringLiteral("unterminated quoted string"));
            const QChar c = m_s[m_pos++];
            if (c == q) {
                if (q == QLatin1Char('\'') && m_pos < m_s.size() && m_s[m_pos] == q) {
                    out += q;
                    ++m_pos;
                    continue;
                }
                break;
            }
            if (c == QLatin1Char('\\') && q == QLatin1Char('"')) {
                if (m_pos >= m_s.size())
                    fail(m_line, QStringLiteral("unterminated quoted string"));
                const QChar e = m_s[m_pos++];
                switch (e.unicode()) {
                case 'n':
                    out += QLatin1Char('\n');
                    break;
                case 't':
                    out += QLatin1Char('\t');
                    break;
                case '"':
                    out += QLatin1Char('"');
                    break;
                case '\\':
                    out += QLatin1Char('\\');
                    break;
                case '/':
                    out += QLatin1Char('/');
                    break;
                case '0':
                    out += QChar(0);
                    break;
                default:
                    fail(m_line, QStringLiteral("unsupported escape \"\\%1\"").arg(e));
                }
                continue;
            }
            out += c;
        }
        n.scalar = out;
        return n;
    }

    YamlNode parseFlowSequence()
    {
        const Nesting level(m_depth, m_line, m_column + m_pos + 1);
        YamlNode n;
        n.line = m_line;
        n.kind = YamlNode::Kind::Sequence;
        ++m_pos; // [
        skipBlanks();
        if (m_pos < m_s.size() && m_s[m_pos] == QLatin1Char(']')) {
            ++m_pos;
            return n;
        }
        while (true) {
            n.items << parseValue(true);
            skipBlanks();
            if (m_pos >= m_s.size())
                fail(m_line, QStringLiteral("\"[\" is not closed on this line"));
            const QChar c = m_s[m_pos++];
            if (c == QLatin1Char(']'))
                return n;
            if (c != QLatin1Char(','))
                fail(m_line, QStringLiteral("expected \",\" or \"]\" in a flow sequence"));
            skipBlanks();
            if (m_pos < m_s.size() && m_s[m_pos] == QLatin1Char(']')) { // trailing comma
                ++m_pos;
                return n;
            }
        }
    }

    YamlNode parseFlowMapping()
    {
        const Nesting level(m_depth, m_line, m_column + m_pos + 1);
        YamlNode n;
        n.line = m_line;
        n.kind = YamlNode::Kind::Mapping;
        ++m_pos; // {
        skipBlanks();
        if (m_pos < m_s.size() && m_s[m_pos] == QLatin1Char('}')) {
            ++m_pos;
            return n;
        }
        QSet<QString> keys; // YamlNode::value() per key would make a wide mapping quadratic
        while (true) {
            skipBlanks();
            const YamlNode key = parseValue(true);
            if (!key.isScalar())
                fail(m_line, QStringLiteral("a flow mapping key must be a scalar"));
            skipBlanks();
            if (m_pos >= m_s.size() || m_s[m_pos] != QLatin1Char(':'))
                fail(m_line,
                     QStringLiteral("expected \":\" after \"%1\"").arg(excerpt(key.scalar)));
            ++m_pos;
            if (keys.contains(key.scalar))
                fail(m_line, QStringLiteral("duplicate key \"%1\"").arg(excerpt(key.scalar)));
            keys.insert(key.scalar);
            n.entries << qMakePair(key.scalar, parseValue(true));
            skipBlanks();
            if (m_pos >= m_s.size())
                fail(m_line, QStringLiteral("\"{\" is not closed on this line"));
            const QChar c = m_s[m_pos++];
            if (c == QLatin1Char('}'))
                return n;
            if (c != QLatin1Char(','))
                fail(m_line, QStringLiteral("expected \",\" or \"}\" in a flow mapping"));
        }
    }

    QString m_s;
    int m_pos = 0;
    int m_line = 0;
    int m_column = 0;
    int m_depth = 0;
};

class BlockParser
{
public:
    explicit BlockParser(QList<Line> lines)
        : m_lines(std::move(lines))
    {}

    YamlNode parseDocument()
    {
        if (m_lines.isEmpty())
            return YamlNode{};
        const int indent = m_lines.first().indent;
        YamlNode root = parseNode(indent);
        if (m_pos < m_lines.size())
            fail(m_lines[m_pos].number,
                 m_lines[m_pos].indent > indent
                         ? QStringLiteral("unexpected indentation")
                         : QStringLiteral("unexpected content after the document"));
        return root;
    }

private:
    static bool isSequenceItem(const QString &t)
    {
        return t == QLatin1String("-") || t.startsWith(QLatin1String("- "));
    }

    // The column of "key:" in a mapping line, or -1. Sets *key.
    static int keyEnd(const Line &l, QString *key)
    {
        const QString &t = l.text;
        if (t.startsWith(QLatin1Char('"')) || t.startsWith(QLatin1Char('\''))) {
            FlowParser fp(t, l.number, l.indent, 0);
            const QString k = fp.parseQuotedKey();
            int p = fp.pos();
            while (p < t.size() && t[p] == QLatin1Char(' '))
                ++p;
            if (p < t.size() && t[p] == QLatin1Char(':')
                && (p + 1 == t.size() || t[p + 1].isSpace())) {
                *key = k;
                return p;
            }
            return -1;
        }
        if (t.startsWith(QLatin1Char('{')) || t.startsWith(QLatin1Char('[')))
            return -1;
        for (int i = 0; i < t.size(); ++i) {
            if (t[i] == QLatin1Char(':') && (i + 1 == t.size() || t[i + 1].isSpace())) {
                *key = t.left(i).trimmed();
                return i;
            }
        }
        return -1;
    }

    YamlNode parseNode(int indent)
    {
        const Line &l = m_lines[m_pos];
        if (isSequenceItem(l.text))
            return parseSequence(indent);
        QString key;
        if (keyEnd(l, &key) >= 0)
            return parseMapping(indent);
        // A lone scalar or flow collection.
        FlowParser fp(l.text, l.number, l.indent, m_depth);
        ++m_pos;
        return fp.parseWhole();
    }

    YamlNode parseSequence(int indent)
    {
        const Nesting level(m_depth, m_lines[m_pos].number, m_lines[m_pos].indent + 1);
        YamlNode n;
        n.kind = YamlNode::Kind::Sequence;
        n.line = m_lines[m_pos].number;
        while (m_pos < m_lines.size() && m_lines[m_pos].indent == indent
               && isSequenceItem(m_lines[m_pos].text)) {
            Line &l = m_lines[m_pos];
            int lead = 1; // the "-" and the spaces after it
            while (lead < l.text.size() && l.text[lead] == QLatin1Char(' '))
                ++lead;
            int begin = lead;
            while (begin < l.text.size() && l.text[begin].isSpace())
                ++begin;
            if (begin == l.text.size()) {
                ++m_pos;
                if (m_pos < m_lines.size() && m_lines[m_pos].indent > indent) {
                    n.items << parseNode(m_lines[m_pos].indent);
                } else {
                    YamlNode null;
                    null.line = l.number;
                    n.items << null;
                }
                continue;
            }
            // "- key: value" opens a mapping whose keys sit at the item's column. The line is
            // cut in place: "- - - ..." is cut once per level, and a copy per level would
            // hold a long line that many times over.
            l.indent = indent + lead;
            l.text.remove(0, begin);
            n.items << parseNode(l.indent);
        }
        if (m_pos < m_lines.size() && m_lines[m_pos].indent > indent)
            fail(m_lines[m_pos].number, QStringLiteral("unexpected indentation"));
        return n;
    }

    YamlNode parseMapping(int indent)
    {
        const Nesting level(m_depth, m_lines[m_pos].number, m_lines[m_pos].indent + 1);
        YamlNode n;
        n.kind = YamlNode::Kind::Mapping;
        n.line = m_lines[m_pos].number;
        QSet<QString> keys; // YamlNode::value() per key would make many configs quadratic
        while (m_pos < m_lines.size() && m_lines[m_pos].indent == indent) {
            const Line l = m_lines[m_pos];
            if (isSequenceItem(l.text))
                fail(l.number, QStringLiteral("a sequence item where a key was expected"));
            QString key;
            const int colon = keyEnd(l, &key);
            if (colon < 0)
                fail(l.number, QStringLiteral("expected \"key: value\""));
            if (key.isEmpty())
                fail(l.number, QStringLiteral("empty key"));
            if (keys.contains(key))
                fail(l.number, QStringLiteral("duplicate key \"%1\"").arg(excerpt(key)));
            keys.insert(key);
            int restBegin = colon + 1;
            while (restBegin < l.text.size() && l.text[restBegin].isSpace())
                ++restBegin;
            const QString rest = l.text.mid(restBegin); // the line has no trailing blanks
            ++m_pos;
            YamlNode value;
            value.line = l.number;
            if (!rest.isEmpty()) {
                FlowParser fp(rest, l.number, l.indent + restBegin, m_depth);
                value = fp.parseWhole();
            } else if (m_pos < m_lines.size() && m_lines[m_pos].indent > indent) {
                value = parseNode(m_lines[m_pos].indent);
            } else if (m_pos < m_lines.size() && m_lines[m_pos].indent == indent
                       && isSequenceItem(m_lines[m_pos].text)) {
                value = parseSequence(indent); // "key:\n- item" at the key's indentation
            }
            n.entries << qMakePair(key, value);
        }
        if (m_pos < m_lines.size() && m_lines[m_pos].indent > indent)
            fail(m_lines[m_pos].number, QStringLiteral("unexpected indentation"));
        return n;
    }

    QList<Line> m_lines;
    int m_pos = 0;
    int m_depth = 0;
};

} // namespace

namespace {

// The lines with content, without indentation, comments and trailing blanks. Views into the
// decoded text keep the memory at one copy of it; each line is looked at a constant number of
// times.
QList<Line> contentLines(const QString &all)
{
    QList<Line> lines;
    bool started = false;
    int number = 0;
    for (qsizetype from = 0; from <= all.size();) {
        qsizetype to = all.indexOf(QLatin1Char('\n'), from);
        if (to < 0)
            to = all.size();
        QStringView s = QStringView(all).mid(from, to - from);
        from = to + 1;
        ++number;
        if (s.endsWith(QLatin1Char('\r')))
            s.chop(1);
        int indent = 0;
        bool tab = false;
        while (indent < s.size()
               && (s[indent] == QLatin1Char(' ') || s[indent] == QLatin1Char('\t'))) {
            tab = tab || s[indent] == QLatin1Char('\t');
            ++indent;
        }
        const QStringView trimmed = stripComment(s.mid(indent)).trimmed();
        if (trimmed.isEmpty())
            continue; // blank lines may hold anything, tabs included
        if (tab)
            fail(number, QStringLiteral("tabs are not allowed in indentation"));
        if (indent == 0 && trimmed.startsWith(QLatin1String("%")))
            fail(number, QStringLiteral("directives are not supported"));
        if (indent == 0
            && (trimmed == QLatin1String("---") || trimmed.startsWith(QLatin1String("--- ")))) {
            if (started)
                fail(number, QStringLiteral("only one document per file is supported"));
            started = true;
            if (trimmed != QLatin1String("---"))
                fail(number, QStringLiteral("content after \"---\" is not supported"));
            continue;
        }
        if (indent == 0 && trimmed == QLatin1String("..."))
            break;
        started = true;
        lines << Line{number, indent, trimmed.toString()};
    }
    return lines;
}

} // namespace

std::optional<YamlNode> parseYaml(const QByteArray &text, YamlError *error)
{
    try {
        BlockParser p(contentLines(QString::fromUtf8(text)));
        return p.parseDocument();
    } catch (const ParseFailure &f) {
        if (error) {
            *error = YamlError{};
            error->line = f.line;
            error->column = f.column;
            error->message = f.message;
        }
        return std::nullopt;
    }
}

// ============================================================================ mig-parted

const MigPartedConfig *MigPartedFile::config(const QString &name) const
{
    for (const MigPartedConfig &c : configs) {
        if (c.name == name)
            return &c;
    }
    return nullptr;
}

namespace {

bool scalarBool(const YamlNode &n, bool *value)
{
    if (!n.isScalar() || n.quoted)
        return false;
    const QString s = n.scalar.toLower();
    if (s == QLatin1String("true")) {
        *value = true;
        return true;
    }
    if (s == QLatin1String("false")) {
        *value = false;
        return true;
    }
    return false;
}

bool scalarInt(const YamlNode &n, int *value)
{
    if (!n.isScalar() || n.quoted)
        return false;
    bool ok = false;
    const int v = n.scalar.toInt(&ok);
    if (ok)
        *value = v;
    return ok;
}

QString sizeMessage(const QString &what, qint64 size)
{
    return QStringLiteral("%1 is %2 bytes; a mig-parted file may be at most %3 bytes (%4 MiB)")
            .arg(what)
            .arg(size)
            .arg(kMaxMigPartedFileSize)
            .arg(kMaxMigPartedFileSize / (1024 * 1024));
}

bool parseFilter(const QString &s, quint32 *value)
{
    QString t = s.trimmed();
    if (!t.startsWith(QLatin1String("0x"), Qt::CaseInsensitive) || t.size() != 10)
        return false;
    bool ok = false;
    *value = t.mid(2).toUInt(&ok, 16);
    return ok;
}

} // namespace

std::optional<MigPartedFile> readMigParted(const QByteArray &yaml, YamlError *error)
{
    YamlError dummy;
    YamlError &err = error ? *error : dummy;
    if (yaml.size() > kMaxMigPartedFileSize) {
        err = YamlError{};
        err.message = sizeMessage(QStringLiteral("the text"), yaml.size());
        return std::nullopt;
    }
    const std::optional<YamlNode> doc = parseYaml(yaml, &err);
    if (!doc)
        return std::nullopt;
    auto bad = [&](int line, const QString &message) {
        err = YamlError{};
        err.line = line;
        err.message = message;
        return std::nullopt;
    };
    if (!doc->isMapping())
        return bad(doc->line,
                   QStringLiteral(
                           "a mig-parted file is a mapping with \"version\" and \"mig-configs\""));
    MigPartedFile file;
    for (const auto &[key, value] : doc->entries) {
        if (key != QLatin1String("version") && key != QLatin1String("mig-configs"))
            return bad(value.line, QStringLiteral("unknown key \"%1\"").arg(key));
    }
    const YamlNode *version = doc->value(QStringLiteral("version"));
    if (!version)
        return bad(doc->line, QStringLiteral("\"version\" is missing"));
    if (!version->isScalar() || version->scalar != QLatin1String("v1"))
        return bad(version->line, QStringLiteral("version: only \"v1\" is supported"));
    const YamlNode *configs = doc->value(QStringLiteral("mig-configs"));
    if (!configs)
        return bad(doc->line, QStringLiteral("\"mig-configs\" is missing"));
    if (!configs->isMapping())
        return bad(configs->line,
                   QStringLiteral("mig-configs: must map config names to lists of entries"));
    for (const auto &[name, list] : configs->entries) {
        MigPartedConfig config;
        config.name = name;
        config.line = list.line;
        if (!list.isSequence() || list.items.isEmpty())
            return bad(list.line, QStringLiteral("%1: must be a list of entries").arg(name));
        for (const YamlNode &e : list.items) {
            if (!e.isMapping())
                return bad(e.line,
                           QStringLiteral("%1: each entry is a mapping (devices, mig-enabled, ...)")
                                   .arg(name));
            MigPartedEntry entry;
            entry.line = e.line;
            for (const auto &[k, v] : e.entries) {
                static const QStringList known = {QStringLiteral("devices"),
                                                  QStringLiteral("device-filter"),
                                                  QStringLiteral("mig-enabled"),
                                                  QStringLiteral("mig-devices")};
                if (!known.contains(k))
                    return bad(v.line, QStringLiteral("%1: unknown key \"%2\"").arg(name, k));
            }
            const YamlNode *devices = e.value(QStringLiteral("devices"));
            if (!devices)
                return bad(e.line, QStringLiteral("%1: \"devices\" is missing").arg(name));
            if (devices->isScalar() && devices->scalar == QLatin1String("all")) {
                entry.allDevices = true;
            } else if (devices->isSequence()) {
                entry.allDevices = false;
                QSet<int> seen; // QList::contains() per index would make a long list quadratic
                for (const YamlNode &d : devices->items) {
                    int index = -1;
                    if (!scalarInt(d, &index) || index < 0)
                        return bad(d.line,
                                   QStringLiteral("%1: devices: each device is an index >= 0")
                                           .arg(name));
                    if (seen.contains(index))
                        return bad(d.line,
                                   QStringLiteral("%1: devices: %2 is listed twice")
                                           .arg(name)
                                           .arg(index));
                    seen.insert(index);
                    entry.devices << index;
                }
                if (entry.devices.isEmpty())
                    return bad(devices->line,
                               QStringLiteral("%1: devices: the list is empty").arg(name));
            } else {
                return bad(devices->line,
                           QStringLiteral("%1: devices: \"all\" or a list of indexes").arg(name));
            }
            if (const YamlNode *f = e.value(QStringLiteral("device-filter"))) {
                QList<YamlNode> values;
                if (f->isScalar())
                    values << *f;
                else if (f->isSequence())
                    values = f->items;
                else
                    return bad(
                            f->line,
                            QStringLiteral("%1: device-filter: one id or a list of ids").arg(name));
                for (const YamlNode &v : values) {
                    quint32 id = 0;
                    if (!v.isScalar() || !parseFilter(v.scalar, &id))
                        return bad(v.line,
                                   QStringLiteral("%1: device-filter: \"%2\" is not a PCI id like "
                                                  "\"0x233510DE\"")
                                           .arg(name, excerpt(v.scalar)));
                    entry.deviceFilter << id;
                }
            }
            const YamlNode *enabled = e.value(QStringLiteral("mig-enabled"));
            if (!enabled)
                return bad(e.line, QStringLiteral("%1: \"mig-enabled\" is missing").arg(name));
            if (!scalarBool(*enabled, &entry.migEnabled))
                return bad(enabled->line,
                           QStringLiteral("%1: mig-enabled: true or false").arg(name));
            if (const YamlNode *md = e.value(QStringLiteral("mig-devices"))) {
                if (!md->isMapping() && !md->isNull())
                    return bad(md->line,
                               QStringLiteral("%1: mig-devices: a mapping of profile to count")
                                       .arg(name));
                for (const auto &[profile, count] : md->entries) {
                    int n = -1;
                    if (!scalarInt(count, &n) || n < 0)
                        return bad(count.line,
                                   QStringLiteral("%1: mig-devices: count of \"%2\" must be an "
                                                  "integer >= 0")
                                           .arg(name, profile));
                    entry.migDevices << qMakePair(profile, n);
                }
                if (!entry.migEnabled && !entry.migDevices.isEmpty())
                    return bad(md->line,
                               QStringLiteral("%1: mig-devices given with mig-enabled: false")
                                       .arg(name));
            }
            config.entries << entry;
        }
        file.configs << config;
    }
    return file;
}

std::optional<MigPartedFile> readMigPartedFile(const QString &path, YamlError *error)
{
    YamlError dummy;
    YamlError &err = error ? *error : dummy;
    auto bad = [&](const QString &message) {
        err = YamlError{};
        err.file = path;
        err.message = message;
        return std::nullopt;
    };
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return bad(QStringLiteral("cannot read the file: %1").arg(f.errorString()));
    // Before reading: a huge file would otherwise be in memory (twice, decoded) to be refused.
    if (!f.isSequential() && f.size() > kMaxMigPartedFileSize)
        return bad(sizeMessage(QStringLiteral("the file"), f.size()));
    // Read in pieces up to the limit: a pipe has no size, and a file may grow while read.
    QByteArray text;
    if (!f.isSequential())
        text.reserve(f.size());
    char chunk[64 * 1024];
    while (true) {
        const qint64 n = f.read(chunk, sizeof chunk);
        if (n < 0)
            return bad(QStringLiteral("cannot read the file: %1").arg(f.errorString()));
        if (n == 0)
            break;
        if (text.size() + n > kMaxMigPartedFileSize)
            return bad(QStringLiteral("the file is more than %1 bytes; a mig-parted file may be "
                                      "at most %1 bytes (%2 MiB)")
                               .arg(kMaxMigPartedFileSize)
                               .arg(kMaxMigPartedFileSize / (1024 * 1024)));
        text.append(chunk, n);
    }
    std::optional<MigPartedFile> file = readMigParted(text, &err);
    if (!file)
        err.file = path;
    return file;
}

namespace {

QString quoteIfNeeded(const QString &s)
{
    static const QString plainSafe
            = QStringLiteral("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.");
    const bool plain
            = !s.isEmpty()
              && std::all_of(s.cbegin(), s.cend(), [](QChar c) { return plainSafe.contains(c); })
              && s != QLatin1String("true") && s != QLatin1String("false")
              && s != QLatin1String("null") && !s.front().isDigit()
              && !s.startsWith(QLatin1Char('-'));
    if (plain)
        return s;
    QString q = s;
    q.replace(QLatin1Char('\\'), QLatin1String("\\\\"))
            .replace(QLatin1Char('"'), QLatin1String("\\\""));
    return QLatin1Char('"') + q + QLatin1Char('"');
}

QString hexFilter(quint32 id)
{
    return QStringLiteral("0x")
           + QString::number(id, 16).toUpper().rightJustified(8, QLatin1Char('0'));
}

} // namespace

QByteArray writeMigParted(const MigPartedFile &file, const QStringList &header)
{
    QString out;
    for (const QString &h : header)
        out += QStringLiteral("# ") + h + QLatin1Char('\n');
    out += QStringLiteral("version: ") + file.version + QLatin1Char('\n');
    out += QStringLiteral("mig-configs:\n");
    for (const MigPartedConfig &c : file.configs) {
        out += QStringLiteral("  ") + quoteIfNeeded(c.name) + QStringLiteral(":\n");
        for (const MigPartedEntry &e : c.entries) {
            QString first = QStringLiteral("    - ");
            auto line = [&](const QString &text) {
                out += first + text + QLatin1Char('\n');
                first = QStringLiteral("      ");
            };
            if (!e.deviceFilter.isEmpty()) {
                if (e.deviceFilter.size() == 1) {
                    line(QStringLiteral("device-filter: \"%1\"")
                                 .arg(hexFilter(e.deviceFilter.first())));
                } else {
                    QStringList ids;
                    for (quint32 id : e.deviceFilter)
                        ids << QLatin1Char('"') + hexFilter(id) + QLatin1Char('"');
                    line(QStringLiteral("device-filter: [%1]").arg(ids.join(QStringLiteral(", "))));
                }
            }
            if (e.allDevices) {
                line(QStringLiteral("devices: all"));
            } else {
                QStringList ids;
                for (int d : e.devices)
                    ids << QString::number(d);
                line(QStringLiteral("devices: [%1]").arg(ids.join(QStringLiteral(", "))));
            }
            line(QStringLiteral("mig-enabled: %1")
                         .arg(e.migEnabled ? QStringLiteral("true") : QStringLiteral("false")));
            if (e.migEnabled) {
                if (e.migDevices.isEmpty()) {
                    line(QStringLiteral("mig-devices: {}"));
                } else {
                    line(QStringLiteral("mig-devices:"));
                    for (const auto &[profile, count] : e.migDevices)
                        out += QStringLiteral("        \"%1\": %2\n").arg(profile).arg(count);
                }
            }
        }
    }
    return out.toUtf8();
}

QStringList pciFilters(const CardModel &model)
{
    QStringList out;
    for (quint16 d : model.pciDeviceIds)
        out << hexFilter((quint32(d) << 16) | model.pciVendorId);
    return out;
}

bool filterMatches(const QList<quint32> &filter, const CardModel &model)
{
    if (filter.isEmpty())
        return true;
    for (quint32 f : filter) {
        const quint16 device = quint16(f >> 16);
        const quint16 vendor = quint16(f & 0xFFFFu);
        if (vendor == model.pciVendorId && model.pciDeviceIds.contains(device))
            return true;
    }
    return false;
}

int profileIndexFor(const CardModel &model, const QString &name)
{
    int i = model.profileIndex(name);
    if (i < 0 && name.endsWith(QLatin1String(".me")))
        i = model.profileIndex(name.left(name.size() - 3) + QLatin1String("+me"));
    return i;
}

namespace {

// Depth-first over the allowed starts; `items` sorted by span descending. Equal profiles take
// ascending starts so each layout is visited once.
bool placeAll(const CardModel &model, const QList<int> &items, int k, QList<MigPlacement> &layout)
{
    if (k == items.size())
        return true;
    const int p = items[k];
    const int minStart = k > 0 && items[k - 1] == p ? layout.last().start + 1 : 0;
    for (int s : model.migProfiles[p].starts) {
        if (s < minStart)
            continue;
        const MigPlacement candidate{p, s};
        if (!canAdd(model, layout, candidate).isValid())
            continue;
        layout << candidate;
        if (placeAll(model, items, k + 1, layout))
            return true;
        layout.removeLast();
    }
    return false;
}

} // namespace

std::optional<QList<MigPlacement>> placeCounts(const CardModel &model,
                                               const QList<QPair<int, int>> &counts,
                                               QString *reason)
{
    QString dummy;
    QString &why = reason ? *reason : dummy;
    if (!model.supportsMig()) {
        why = QStringLiteral("%1 has no MIG").arg(model.name);
        return std::nullopt;
    }
    QList<qint64> perProfile(model.migProfiles.size(), 0); // counts come from files: no overflow
    for (const auto &[p, n] : counts) {
        if (p < 0 || p >= model.migProfiles.size()) {
            why = QStringLiteral("%1 has no profile #%2").arg(model.name).arg(p);
            return std::nullopt;
        }
        perProfile[p] += n;
    }
    int compute = 0;
    int memory = 0;
    int media = 0;
    QList<int> items;
    for (int p = 0; p < perProfile.size(); ++p) {
        const MigProfile &prof = model.migProfiles[p];
        const qint64 n64 = perProfile[p];
        if (n64 > prof.maxInstances) {
            why = QStringLiteral("%1 × %2: %1 is more than the %3 instance(s) of %2 one %4 holds")
                          .arg(n64)
                          .arg(prof.name)
                          .arg(prof.maxInstances)
                          .arg(model.name);
            return std::nullopt;
        }
        const int n = int(n64);
        compute += n * prof.computeSlices;
        memory += n * prof.span;
        if (prof.mediaExtensions)
            media += n;
        for (int i = 0; i < n; ++i)
            items << p;
    }
    if (media > 1) {
        why = QStringLiteral("%1 instances own the media engines; a card has one set").arg(media);
        return std::nullopt;
    }
    if (compute > model.migComputeSlices) {
        why = QStringLiteral("they need %1 compute slices; %2 has %3")
                      .arg(compute)
                      .arg(model.name)
                      .arg(model.migComputeSlices);
        return std::nullopt;
    }
    if (memory > model.migMemorySlices) {
        why = QStringLiteral("they need %1 memory slices; %2 has %3")
                      .arg(memory)
                      .arg(model.name)
                      .arg(model.migMemorySlices);
        return std::nullopt;
    }
    std::stable_sort(items.begin(), items.end(), [&](int a, int b) {
        const MigProfile &pa = model.migProfiles[a];
        const MigProfile &pb = model.migProfiles[b];
        if (pa.span != pb.span)
            return pa.span > pb.span;
        if (pa.starts.size() != pb.starts.size())
            return pa.starts.size() < pb.starts.size(); // the most constrained first
        return a < b;
    });
    QList<MigPlacement> layout;
    if (!placeAll(model, items, 0, layout)) {
        why = QStringLiteral("no arrangement of the allowed starts holds them all (they fit the "
                             "slice counts, not the placement rules)");
        return std::nullopt;
    }
    std::sort(layout.begin(), layout.end(), [](MigPlacement a, MigPlacement b) {
        return a.start != b.start ? a.start < b.start : a.profile < b.profile;
    });
    return layout;
}

QList<MigPartedPlacement> importMigParted(const MigPartedFile &file,
                                          const CardModel &model,
                                          const QString &onlyConfig)
{
    QList<MigPartedPlacement> out;
    for (const MigPartedConfig &c : file.configs) {
        if (!onlyConfig.isEmpty() && c.name != onlyConfig)
            continue;
        QList<const MigPartedEntry *> applicable;
        QStringList otherFilters;
        for (const MigPartedEntry &e : c.entries) {
            if (filterMatches(e.deviceFilter, model)) {
                applicable << &e;
            } else {
                for (quint32 f : e.deviceFilter)
                    otherFilters << hexFilter(f);
            }
        }
        auto notApplying = [&](const QString &why, int line) {
            MigPartedPlacement r;
            r.config = c.name;
            r.applies = false;
            r.reason = why;
            r.line = line;
            out << r;
        };
        if (applicable.isEmpty()) {
            otherFilters.removeDuplicates();
            notApplying(QStringLiteral("its device-filter selects other cards (%1); %2 is %3")
                                .arg(otherFilters.join(QStringLiteral(", ")),
                                     model.name,
                                     pciFilters(model).join(QStringLiteral(", "))),
                        c.line);
            continue;
        }
        QString unknown;
        int unknownLine = c.line;
        for (const MigPartedEntry *e : applicable) {
            for (const auto &[name, n] : e->migDevices) {
                Q_UNUSED(n)
                if (unknown.isEmpty() && profileIndexFor(model, name) < 0) {
                    unknown = name;
                    unknownLine = e->line;
                }
            }
        }
        if (!unknown.isEmpty()) {
            const QString why = !model.supportsMig()
                                        ? QStringLiteral("%1 has no MIG").arg(model.name)
                                        : QStringLiteral("\"%1\" is not a profile of %2")
                                                  .arg(unknown, model.name);
            notApplying(why, unknownLine);
            continue;
        }
        for (const MigPartedEntry *e : applicable) {
            MigPartedPlacement r;
            r.config = c.name;
            r.migEnabled = e->migEnabled;
            r.allDevices = e->allDevices;
            r.devices = e->devices;
            r.line = e->line;
            if (!e->migEnabled) {
                r.ok = true;
            } else if (!model.supportsMig()) {
                r.ok = false;
                r.reason = QStringLiteral("%1 has no MIG").arg(model.name);
            } else {
                QList<QPair<int, int>> counts;
                for (const auto &[name, n] : e->migDevices)
                    counts << qMakePair(profileIndexFor(model, name), n);
                QString why;
                if (const auto layout = placeCounts(model, counts, &why)) {
                    r.ok = true;
                    r.layout = *layout;
                } else {
                    QStringList asked;
                    for (const auto &[name, n] : e->migDevices)
                        asked << QStringLiteral("%1 × %2").arg(n).arg(name);
                    const QString devices = e->allDevices ? QStringLiteral("all devices") : [&] {
                        QStringList d;
                        for (int i : e->devices)
                            d << QString::number(i);
                        return QStringLiteral("device(s) %1").arg(d.join(QStringLiteral(", ")));
                    }();
                    r.ok = false;
                    r.reason = QStringLiteral("%1 (%2) cannot be placed on %3: %4")
                                       .arg(devices,
                                            asked.join(QStringLiteral(", ")),
                                            model.name,
                                            why);
                }
            }
            out << r;
        }
    }
    return out;
}

MigPartedConfig exportHost(const Catalogue &catalogue,
                           const QString &configName,
                           const QList<MigPartedCardLayout> &cards)
{
    MigPartedConfig config;
    config.name = configName;
    struct Group
    {
        int model;
        bool mig;
        QList<QPair<QString, int>> counts;
        QList<int> devices;
    };
    QList<Group> groups;
    for (int i = 0; i < cards.size(); ++i) {
        const MigPartedCardLayout &c = cards[i];
        const CardModel &model = catalogue.models()[c.model];
        QList<QPair<QString, int>> counts;
        if (c.migEnabled) {
            for (int p = 0; p < model.migProfiles.size(); ++p) {
                const int n = int(std::count_if(c.layout.cbegin(),
                                                c.layout.cend(),
                                                [p](MigPlacement x) { return x.profile == p; }));
                if (n > 0)
                    counts << qMakePair(model.migProfiles[p].name, n);
            }
        }
        auto same = std::find_if(groups.begin(), groups.end(), [&](const Group &g) {
            return g.model == c.model && g.mig == c.migEnabled && g.counts == counts;
        });
        if (same != groups.end())
            same->devices << i;
        else
            groups << Group{c.model, c.migEnabled, counts, {i}};
    }
    for (const Group &g : groups) {
        const CardModel &model = catalogue.models()[g.model];
        MigPartedEntry e;
        for (quint16 d : model.pciDeviceIds)
            e.deviceFilter << ((quint32(d) << 16) | model.pciVendorId);
        e.allDevices = g.devices.size() == cards.size();
        if (!e.allDevices)
            e.devices = g.devices;
        e.migEnabled = g.mig;
        e.migDevices = g.counts;
        config.entries << e;
    }
    return config;
}

} // namespace Zhaoxi::Catalogue
