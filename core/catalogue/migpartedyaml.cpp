// SPDX-License-Identifier: GPL-3.0-or-later
// The YAML subset mig-parted files use (see migparted.h): the line splitter, the flow parser
// ({} and [] on one line) and the block parser, with their limits. The file's model is in
// migparted.cpp; import and export in migpartedimport.cpp.
#include "migparted.h"

#include "migparted_p.h"

#include <QSet>
#include <QStringView>

#include <algorithm>

namespace Zhaoxi::Catalogue {

using Detail::excerpt;

QString Detail::excerpt(QStringView s)
{
    constexpr qsizetype kMax = 40;
    return s.size() <= kMax ? s.toString() : s.left(kMax).toString() + QStringLiteral("...");
}

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

} // namespace Zhaoxi::Catalogue
