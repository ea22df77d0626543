// SPDX-License-Identifier: GPL-3.0-or-later
#include "promtext_p.h"

#include <QHash>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <string_view>
#include <unordered_map>
#include <vector>

// Why it is written the way it is: the live run scrapes every replica once a second (64 on a full
// appliance), so this file runs 64 times a second, the parse on the scraper's thread and the
// window on the runtime's. It once cost about 0.1 ms a scrape, the largest share of the
// runtime's own CPU (issue 13): a copy of every line, a QString for every name and label of every
// sample, each number (`le` included) lowered and copied before it was read, and per window a
// string key built, sorted and hashed for every bucket of both scrapes, into maps. Now a line is
// read in place (views into the page), the strings of one page are made once and shared by its
// samples, plain decimals are read without a copy, and a window digests the wanted family of
// each scrape into small sorted vectors, label set by label set, and subtracts them.

namespace Zhaoxi::Runtime {

using namespace PromDetail;

namespace {

bool isBlank(char c)
{
    return c == ' ' || c == '\t';
}

bool isLetter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

} // namespace

namespace PromDetail {

// Go's strconv.ParseFloat is what Prometheus uses: it takes Inf, +Inf, -Inf, NaN and
// "Infinity" in any case besides ordinary decimal numbers.
std::optional<double> parseFloatSlow(QByteArrayView token)
{
    const QByteArray lower = token.toByteArray().toLower();
    if (lower == "+inf" || lower == "inf" || lower == "+infinity" || lower == "infinity")
        return inf;
    if (lower == "-inf" || lower == "-infinity")
        return -inf;
    if (lower == "nan")
        return qQNaN();
    if (token.isEmpty())
        return std::nullopt;
    bool ok = false;
    const double v = token.toByteArray().toDouble(&ok);
    if (!ok)
        return std::nullopt;
    return v;
}

// Servers write plain decimals ("12", "-0.5", "1.5e-3") nearly always: those are read in place;
// from_chars rounds exactly, as toDouble does. Anything else (a sign '+', "1.", Inf, blanks, an
// overflow) takes the slow path, whose grammar is the whole of ParseFloat's and toDouble's.
std::optional<double> parseFloat(QByteArrayView token)
{
    const char *const begin = token.data();
    const char *const end = begin + token.size();
    const auto digits = [end](const char *p) {
        while (p != end && isDigit(*p))
            ++p;
        return p;
    };
    const char *p = begin;
    if (p != end && *p == '-')
        ++p;
    const char *q = digits(p);
    bool plain = q != p;
    if (plain && q != end && *q == '.') {
        p = q + 1;
        q = digits(p);
        plain = q != p;
    }
    if (plain && q != end && (*q == 'e' || *q == 'E')) {
        p = q + 1;
        if (p != end && (*p == '+' || *p == '-'))
            ++p;
        q = digits(p);
        plain = q != p;
    }
    if (plain && q == end) {
        double v = 0;
        const std::from_chars_result r = std::from_chars(begin, end, v);
        if (r.ec == std::errc() && r.ptr == end)
            return v;
    }
    return parseFloatSlow(token);
}

// The same on a label value already made a QString (as parseFloat(value.toUtf8()) would).
std::optional<double> parseFloat(QStringView text)
{
    char buf[64];
    if (text.size() <= qsizetype(sizeof buf)) {
        qsizetype i = 0;
        for (; i < text.size() && text[i].unicode() < 0x80; ++i)
            buf[i] = char(text[i].unicode());
        if (i == text.size())
            return parseFloat(QByteArrayView(buf, i));
    }
    return parseFloatSlow(text.toUtf8());
}

} // namespace PromDetail

namespace {

std::optional<MetricType> typeFromString(QByteArrayView text)
{
    if (text == "counter")
        return MetricType::Counter;
    if (text == "gauge")
        return MetricType::Gauge;
    if (text == "histogram")
        return MetricType::Histogram;
    if (text == "summary")
        return MetricType::Summary;
    if (text == "untyped")
        return MetricType::Untyped;
    return std::nullopt;
}

QString quoted(QByteArrayView text)
{
    return QLatin1Char('\'') + QString::fromUtf8(text) + QLatin1Char('\'');
}

// A cursor over one line (without its line end); what it returns are views into the page.
class Cursor
{
public:
    explicit Cursor(QByteArrayView line)
        : m_s(line)
    {}
    bool atEnd() const { return m_pos >= m_s.size(); }
    qsizetype pos() const { return m_pos; }
    char peek() const { return atEnd() ? '\0' : m_s.at(m_pos); }
    char take() { return atEnd() ? '\0' : m_s.at(m_pos++); }
    // Returns whether any blank was skipped.
    bool skipBlanks()
    {
        const qsizetype from = m_pos;
        while (!atEnd() && isBlank(m_s.at(m_pos)))
            ++m_pos;
        return m_pos > from;
    }
    // [a-zA-Z_:][a-zA-Z0-9_:]* for metrics; labels allow no ':'. Empty when none is here.
    QByteArrayView name(bool colons)
    {
        const qsizetype from = m_pos;
        auto first = [&](char c) { return isLetter(c) || c == '_' || (colons && c == ':'); };
        if (atEnd() || !first(m_s.at(m_pos)))
            return {};
        ++m_pos;
        while (!atEnd() && (first(m_s.at(m_pos)) || isDigit(m_s.at(m_pos))))
            ++m_pos;
        return m_s.sliced(from, m_pos - from);
    }
    QByteArrayView token()
    {
        const qsizetype from = m_pos;
        while (!atEnd() && !isBlank(m_s.at(m_pos)))
            ++m_pos;
        return m_s.sliced(from, m_pos - from);
    }
    QByteArrayView rest()
    {
        const QByteArrayView r = m_s.sliced(m_pos);
        m_pos = m_s.size();
        return r;
    }
    QByteArrayView between(qsizetype from, qsizetype to) const
    {
        return m_s.sliced(from, to - from);
    }

private:
    QByteArrayView m_s;
    qsizetype m_pos = 0;
};

QString unescapeHelp(QByteArrayView text)
{
    QByteArray out;
    out.reserve(text.size());
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char c = text.at(i);
        if (c == '\\' && i + 1 < text.size() && (text.at(i + 1) == '\\' || text.at(i + 1) == 'n')) {
            out.append(text.at(i + 1) == 'n' ? '\n' : '\\');
            ++i;
        } else {
            out.append(c); // HELP is free text: keep any other backslash as it is
        }
    }
    return QString::fromUtf8(out);
}

// A label value between its quotes, escapes already checked valid.
QByteArray unescapeLabel(QByteArrayView raw)
{
    QByteArray out;
    out.reserve(raw.size());
    for (qsizetype i = 0; i < raw.size(); ++i) {
        const char c = raw.at(i);
        if (c != '\\') {
            out.append(c);
            continue;
        }
        const char esc = raw.at(++i);
        out.append(esc == 'n' ? '\n' : esc);
    }
    return out;
}

// The strings of one page, each made into a QString once: a page repeats its sample names, label
// names and most label values on every line, and its samples then share one copy of each. The
// keys are raw bytes of the page (a label value still escaped: names have no backslash and an
// unescaped raw value is its own text, so one table serves both), valid while it is parsed.
// (std::hash, not qHash: Qt's vectorised hash reads whole 16-byte blocks, past the end of a
// view into the page, which memcheck rightly reports.)
class Strings
{
public:
    template<typename Make>
    QString get(QByteArrayView raw, Make make)
    {
        const std::string_view key(raw.data(), size_t(raw.size()));
        const auto it = m_table.find(key);
        if (it != m_table.end())
            return it->second;
        return m_table.emplace(key, make()).first->second;
    }
    QString get(QByteArrayView raw)
    {
        // An empty value is a null QString, as QString::fromUtf8 of an empty QByteArray is.
        return get(raw, [raw] { return raw.isEmpty() ? QString() : QString::fromUtf8(raw); });
    }

private:
    std::unordered_map<std::string_view, QString> m_table;
};

class Builder
{
public:
    Exposition result;

    // Returns the error for a malformed line (the line then changes nothing), or empty.
    QString line(QByteArrayView line)
    {
        Cursor c(line);
        c.skipBlanks();
        if (c.atEnd())
            return {};
        if (c.peek() == '#')
            return comment(c);
        return sample(c);
    }

private:
    struct State
    {
        bool typed = false;
        bool helped = false;
    };
    // A label as the page spelled it, and as made a QString.
    struct Seen
    {
        QByteArrayView raw;
        QString text;
    };
    QHash<QString, int> m_index;
    QList<State> m_state;
    Strings m_strings;
    // The last sample's name and family: the samples of a family come one after another.
    // Forgotten at each HELP or TYPE line, which may add a family or change a type.
    Seen m_lastName;
    int m_lastFamily = -1;
    bool m_lastIsBucket = false;
    // The last sample's labels by position, and this sample's as they are read.
    std::vector<std::pair<Seen, Seen>> m_lastLabels;
    std::vector<std::pair<Seen, Seen>> m_labels;

    QString intern(QByteArrayView raw, Seen *last)
    {
        if (last->raw.data() && last->raw == raw)
            return last->text;
        last->raw = raw;
        last->text = m_strings.get(raw);
        return last->text;
    }

    int familyIndex(const QString &name, MetricType type)
    {
        const auto it = m_index.constFind(name);
        if (it != m_index.constEnd())
            return it.value();
        result.families.append(Family{name, type, {}, {}});
        m_state.append(State{});
        m_index.insert(name, int(result.families.size() - 1));
        return int(result.families.size() - 1);
    }

    QString comment(Cursor &c)
    {
        m_lastFamily = -1;
        c.take(); // '#'
        c.skipBlanks();
        const QByteArrayView keyword = c.token();
        if (keyword != "HELP" && keyword != "TYPE")
            return {}; // an ordinary comment
        if (!c.skipBlanks())
            return QStringLiteral("%1 line without a metric name")
                    .arg(QString::fromLatin1(keyword));
        const QByteArrayView name = c.name(true);
        if (name.isEmpty())
            return QStringLiteral("invalid metric name in %1 line")
                    .arg(QString::fromLatin1(keyword));
        if (!c.atEnd() && !isBlank(c.peek()))
            return QStringLiteral("invalid character '%1' in metric name")
                    .arg(QLatin1Char(c.peek()));
        const QString family = m_strings.get(name);
        if (keyword == "HELP") {
            c.skipBlanks();
            const QString help = unescapeHelp(c.rest());
            const auto it = m_index.constFind(family);
            if (it != m_index.constEnd() && m_state.at(it.value()).helped)
                return QStringLiteral("second HELP line for %1").arg(family);
            const int i = familyIndex(family, MetricType::Untyped);
            result.families[i].help = help;
            m_state[i].helped = true;
            return {};
        }
        c.skipBlanks();
        const QByteArrayView typeText = c.token();
        if (typeText.isEmpty())
            return QStringLiteral("TYPE line for %1 without a type").arg(family);
        const std::optional<MetricType> type = typeFromString(typeText);
        if (!type)
            return QStringLiteral("unknown metric type %1 for %2").arg(quoted(typeText), family);
        c.skipBlanks();
        if (!c.atEnd())
            return QStringLiteral("unexpected text after the type of %1").arg(family);
        const auto it = m_index.constFind(family);
        if (it != m_index.constEnd()) {
            if (m_state.at(it.value()).typed)
                return QStringLiteral("second TYPE line for %1").arg(family);
            if (!result.families.at(it.value()).samples.isEmpty())
                return QStringLiteral("TYPE line for %1 after its samples").arg(family);
        }
        const int i = familyIndex(family, *type);
        result.families[i].type = *type;
        m_state[i].typed = true;
        return {};
    }

    // The family a sample belongs to: its own name's, or the histogram / summary it is a
    // _bucket, _sum or _count of.
    int familyOfSample(const QString &name)
    {
        const auto own = m_index.constFind(name);
        if (own != m_index.constEnd())
            return own.value();
        static const QLatin1String suffixes[]
                = {QLatin1String("_bucket"), QLatin1String("_sum"), QLatin1String("_count")};
        for (const QLatin1String &suffix : suffixes) {
            if (!name.endsWith(suffix))
                continue;
            const auto it = m_index.constFind(name.chopped(suffix.size()));
            if (it == m_index.constEnd())
                continue;
            const MetricType type = result.families.at(it.value()).type;
            if (type == MetricType::Histogram
                || (type == MetricType::Summary && suffix != QLatin1String("_bucket")))
                return it.value();
        }
        return familyIndex(name, MetricType::Untyped);
    }

    // Reads the labels into m_labels; *le gets the unescaped bytes of the `le` label's value
    // (a view into the page or into *leStore), or stays null when there is none.
    QString labels(Cursor &c, QByteArrayView *le, QByteArray *leStore)
    {
        c.take(); // '{'
        for (;;) {
            c.skipBlanks();
            if (c.peek() == '}') {
                c.take();
                return {};
            }
            const QByteArrayView name = c.name(false);
            if (name.isEmpty())
                return c.atEnd() ? QStringLiteral("expected '}' before the end of the line")
                                 : QStringLiteral("expected a label name or '}'");
            c.skipBlanks();
            if (c.take() != '=')
                return QStringLiteral("expected '=' after label name %1")
                        .arg(QString::fromUtf8(name));
            c.skipBlanks();
            if (c.take() != '"')
                return QStringLiteral("expected '\"' to open the value of label %1")
                        .arg(QString::fromUtf8(name));
            const qsizetype from = c.pos();
            bool escaped = false;
            for (;;) {
                if (c.atEnd())
                    return QStringLiteral("unterminated value of label %1")
                            .arg(QString::fromUtf8(name));
                const char ch = c.take();
                if (ch == '"')
                    break;
                if (ch != '\\')
                    continue;
                escaped = true;
                const char esc = c.take();
                if (esc != '\\' && esc != '"' && esc != 'n')
                    return QStringLiteral("invalid escape sequence '\\%1' in the value of label %2")
                            .arg(esc == '\0' ? QString() : QString(QLatin1Char(esc)),
                                 QString::fromUtf8(name));
            }
            const QByteArrayView raw = c.between(from, c.pos() - 1);
            for (const auto &pair : m_labels) {
                if (pair.first.raw == name)
                    return QStringLiteral("label %1 repeated").arg(QString::fromUtf8(name));
            }
            const size_t at = m_labels.size();
            if (m_lastLabels.size() <= at)
                m_lastLabels.resize(at + 1);
            std::pair<Seen, Seen> &last = m_lastLabels[at];
            Seen label{name, intern(name, &last.first)};
            Seen value{raw, {}};
            if (escaped) {
                QByteArray unescaped;
                value.text = m_strings.get(raw, [&] {
                    unescaped = unescapeLabel(raw);
                    return QString::fromUtf8(unescaped);
                });
                last.second = value;
                if (name == "le") {
                    *leStore = unescaped.isNull() ? unescapeLabel(raw) : unescaped;
                    *le = *leStore;
                }
            } else {
                value.text = intern(raw, &last.second);
                if (name == "le")
                    *le = raw.isNull() ? QByteArrayView("", 0) : raw;
            }
            m_labels.push_back({label, value});
            c.skipBlanks();
            const char next = c.take();
            if (next == '}')
                return {};
            if (next != ',')
                return QStringLiteral("expected ',' or '}' after label value");
        }
    }

    QString sample(Cursor &c)
    {
        const QByteArrayView rawName = c.name(true);
        if (rawName.isEmpty())
            return QStringLiteral("expected a metric name");
        const bool sameName = m_lastFamily >= 0 && m_lastName.raw == rawName;
        const QString name = sameName ? m_lastName.text : m_strings.get(rawName);
        const bool blank = c.skipBlanks();
        Sample s;
        s.name = name;
        QByteArrayView le;
        QByteArray leStore;
        m_labels.clear();
        if (c.peek() == '{') {
            const QString error = labels(c, &le, &leStore);
            if (!error.isEmpty())
                return error;
            s.labels.reserve(qsizetype(m_labels.size()));
            for (const auto &pair : m_labels)
                s.labels.append({pair.first.text, pair.second.text});
            c.skipBlanks();
        } else if (!blank && !c.atEnd()) {
            return QStringLiteral("invalid character '%1' in metric name")
                    .arg(QLatin1Char(c.peek()));
        }
        const QByteArrayView valueText = c.token();
        if (valueText.isEmpty())
            return QStringLiteral("missing value for %1").arg(name);
        const std::optional<double> value = parseFloat(valueText);
        if (!value)
            return QStringLiteral("invalid value %1 for %2").arg(quoted(valueText), name);
        s.value = *value;
        c.skipBlanks();
        if (!c.atEnd()) {
            const QByteArrayView stamp = c.token();
            bool ok = false;
            const qint64 ms = stamp.toByteArray().toLongLong(&ok);
            if (!ok)
                return QStringLiteral("invalid timestamp %1 for %2").arg(quoted(stamp), name);
            s.timestampMs = ms;
            c.skipBlanks();
            if (!c.atEnd())
                return QStringLiteral("unexpected text after the timestamp of %1").arg(name);
        }
        if (!sameName) {
            m_lastFamily = familyOfSample(name);
            m_lastName = Seen{rawName, name};
            const Family &family = result.families.at(m_lastFamily);
            m_lastIsBucket = family.type == MetricType::Histogram
                             && name.endsWith(QLatin1String("_bucket"))
                             && name.size() == family.name.size() + 7;
        }
        if (m_lastIsBucket) {
            const std::optional<double> bound = le.data() ? parseFloat(le) : std::nullopt;
            if (!bound || std::isnan(*bound))
                return QStringLiteral("histogram bucket %1 without a numeric 'le' label").arg(name);
        }
        result.families[m_lastFamily].samples.append(std::move(s));
        return {};
    }
};
} // namespace

QString toString(MetricType type)
{
    switch (type) {
    case MetricType::Counter:
        return QStringLiteral("counter");
    case MetricType::Gauge:
        return QStringLiteral("gauge");
    case MetricType::Histogram:
        return QStringLiteral("histogram");
    case MetricType::Summary:
        return QStringLiteral("summary");
    case MetricType::Untyped:
        break;
    }
    return QStringLiteral("untyped");
}

QString Sample::label(const QString &labelName) const
{
    for (const auto &pair : labels) {
        if (pair.first == labelName)
            return pair.second.isNull() ? QStringLiteral("") : pair.second;
    }
    return {};
}

QString ParseError::toString() const
{
    return QStringLiteral("line %1: %2").arg(line).arg(message);
}

const Family *Exposition::family(const QString &name) const
{
    for (const Family &f : families) {
        if (f.name == name)
            return &f;
    }
    return nullptr;
}

QList<Sample> Exposition::samples(const QString &sampleName) const
{
    QList<Sample> out;
    for (const Family &f : families) {
        if (!sampleName.startsWith(f.name))
            continue;
        for (const Sample &s : f.samples) {
            if (s.name == sampleName)
                out.append(s);
        }
    }
    return out;
}

Exposition parseExposition(const QByteArray &text)
{
    Builder builder;
    int number = 0;
    qsizetype start = 0;
    while (start <= text.size()) {
        qsizetype end = text.indexOf('\n', start);
        if (end < 0)
            end = text.size();
        QByteArrayView line(text.constData() + start, end - start);
        if (line.endsWith('\r'))
            line.chop(1);
        ++number;
        const QString error = builder.line(line);
        if (!error.isEmpty())
            builder.result.errors.append(ParseError{number, error});
        start = end + 1;
    }
    return builder.result;
}
} // namespace Zhaoxi::Runtime
