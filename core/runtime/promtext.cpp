// SPDX-License-Identifier: GPL-3.0-or-later
#include "promtext.h"

#include <QHash>
#include <QMap>

#include <algorithm>
#include <cmath>
#include <limits>

namespace Zhaoxi::Runtime {

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

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

// Go's strconv.ParseFloat is what Prometheus uses: it takes Inf, +Inf, -Inf, NaN and
// "Infinity" in any case besides ordinary decimal numbers.
std::optional<double> parseFloat(const QByteArray &token)
{
    const QByteArray lower = token.toLower();
    if (lower == "+inf" || lower == "inf" || lower == "+infinity" || lower == "infinity")
        return inf;
    if (lower == "-inf" || lower == "-infinity")
        return -inf;
    if (lower == "nan")
        return qQNaN();
    if (token.isEmpty())
        return std::nullopt;
    bool ok = false;
    const double v = token.toDouble(&ok);
    if (!ok)
        return std::nullopt;
    return v;
}

std::optional<MetricType> typeFromString(const QByteArray &text)
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

QString quoted(const QByteArray &text)
{
    return QLatin1Char('\'') + QString::fromUtf8(text) + QLatin1Char('\'');
}

// A cursor over one line (without its line end).
class Cursor
{
public:
    explicit Cursor(const QByteArray &line)
        : m_s(line)
    {}
    bool atEnd() const { return m_pos >= m_s.size(); }
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
    QByteArray name(bool colons)
    {
        const qsizetype from = m_pos;
        auto first = [&](char c) { return isLetter(c) || c == '_' || (colons && c == ':'); };
        if (atEnd() || !first(m_s.at(m_pos)))
            return {};
        ++m_pos;
        while (!atEnd() && (first(m_s.at(m_pos)) || isDigit(m_s.at(m_pos))))
            ++m_pos;
        return m_s.mid(from, m_pos - from);
    }
    QByteArray token()
    {
        const qsizetype from = m_pos;
        while (!atEnd() && !isBlank(m_s.at(m_pos)))
            ++m_pos;
        return m_s.mid(from, m_pos - from);
    }
    QByteArray rest()
    {
        const QByteArray r = m_s.mid(m_pos);
        m_pos = m_s.size();
        return r;
    }

private:
    const QByteArray &m_s;
    qsizetype m_pos = 0;
};

QString unescapeHelp(const QByteArray &text)
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

class Builder
{
public:
    Exposition result;

    // Returns the error for a malformed line (the line then changes nothing), or empty.
    QString line(const QByteArray &line)
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
    QHash<QString, int> m_index;
    QList<State> m_state;

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
        c.take(); // '#'
        c.skipBlanks();
        const QByteArray keyword = c.token();
        if (keyword != "HELP" && keyword != "TYPE")
            return {}; // an ordinary comment
        if (!c.skipBlanks())
            return QStringLiteral("%1 line without a metric name")
                    .arg(QString::fromLatin1(keyword));
        const QByteArray name = c.name(true);
        if (name.isEmpty())
            return QStringLiteral("invalid metric name in %1 line")
                    .arg(QString::fromLatin1(keyword));
        if (!c.atEnd() && !isBlank(c.peek()))
            return QStringLiteral("invalid character '%1' in metric name")
                    .arg(QLatin1Char(c.peek()));
        const QString family = QString::fromUtf8(name);
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
        const QByteArray typeText = c.token();
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
        if (m_index.contains(name))
            return m_index.value(name);
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

    QString labels(Cursor &c, Labels *out)
    {
        c.take(); // '{'
        for (;;) {
            c.skipBlanks();
            if (c.peek() == '}') {
                c.take();
                return {};
            }
            const QByteArray name = c.name(false);
            if (name.isEmpty())
                return c.atEnd() ? QStringLiteral("expected '}' before the end of the line")
                                 : QStringLiteral("expected a label name or '}'");
            const QString label = QString::fromUtf8(name);
            c.skipBlanks();
            if (c.take() != '=')
                return QStringLiteral("expected '=' after label name %1").arg(label);
            c.skipBlanks();
            if (c.take() != '"')
                return QStringLiteral("expected '\"' to open the value of label %1").arg(label);
            QByteArray value;
            for (;;) {
                if (c.atEnd())
                    return QStringLiteral("unterminated value of label %1").arg(label);
                const char ch = c.take();
                if (ch == '"')
                    break;
                if (ch != '\\') {
                    value.append(ch);
                    continue;
                }
                const char esc = c.take();
                if (esc == '\\' || esc == '"')
                    value.append(esc);
                else if (esc == 'n')
                    value.append('\n');
                else
                    return QStringLiteral("invalid escape sequence '\\%1' in the value of label %2")
                            .arg(esc == '\0' ? QString() : QString(QLatin1Char(esc)), label);
            }
            for (const auto &pair : std::as_const(*out)) {
                if (pair.first == label)
                    return QStringLiteral("label %1 repeated").arg(label);
            }
            out->append({label, QString::fromUtf8(value)});
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
        const QByteArray rawName = c.name(true);
        if (rawName.isEmpty())
            return QStringLiteral("expected a metric name");
        const QString name = QString::fromUtf8(rawName);
        const bool blank = c.skipBlanks();
        Sample s;
        s.name = name;
        if (c.peek() == '{') {
            const QString error = labels(c, &s.labels);
            if (!error.isEmpty())
                return error;
            c.skipBlanks();
        } else if (!blank && !c.atEnd()) {
            return QStringLiteral("invalid character '%1' in metric name")
                    .arg(QLatin1Char(c.peek()));
        }
        const QByteArray valueText = c.token();
        if (valueText.isEmpty())
            return QStringLiteral("missing value for %1").arg(name);
        const std::optional<double> value = parseFloat(valueText);
        if (!value)
            return QStringLiteral("invalid value %1 for %2").arg(quoted(valueText), name);
        s.value = *value;
        c.skipBlanks();
        if (!c.atEnd()) {
            const QByteArray stamp = c.token();
            bool ok = false;
            const qint64 ms = stamp.toLongLong(&ok);
            if (!ok)
                return QStringLiteral("invalid timestamp %1 for %2").arg(quoted(stamp), name);
            s.timestampMs = ms;
            c.skipBlanks();
            if (!c.atEnd())
                return QStringLiteral("unexpected text after the timestamp of %1").arg(name);
        }
        const int i = familyOfSample(name);
        Family &family = result.families[i];
        if (family.type == MetricType::Histogram && name.endsWith(QLatin1String("_bucket"))
            && name.size() == family.name.size() + 7) {
            const std::optional<double> le = parseFloat(s.label(QStringLiteral("le")).toUtf8());
            if (!le || std::isnan(*le))
                return QStringLiteral("histogram bucket %1 without a numeric 'le' label").arg(name);
        }
        family.samples.append(s);
        return {};
    }
};

// ---- windows ---------------------------------------------------------------------------------

// The counters of one label set (all labels but `le`) of one server.
struct Group
{
    QMap<double, double> buckets; // le -> cumulative count
    std::optional<double> count;
    std::optional<double> sum;
};

QString groupKey(const Labels &labels)
{
    QStringList parts;
    for (const auto &pair : labels) {
        if (pair.first != QLatin1String("le"))
            parts.append(pair.first + QLatin1Char('=') + pair.second);
    }
    parts.sort();
    return parts.join(QChar(0x1f));
}

void addValue(std::optional<double> *slot, double v)
{
    *slot = slot->value_or(0) + v;
}

QHash<QString, Group> histogramGroups(const Exposition &m, const QString &name)
{
    QHash<QString, Group> groups;
    for (const Sample &s : m.samples(name + QLatin1String("_bucket"))) {
        const std::optional<double> le = parseFloat(s.label(QStringLiteral("le")).toUtf8());
        if (le && !std::isnan(*le))
            groups[groupKey(s.labels)].buckets[*le] += s.value;
    }
    for (const Sample &s : m.samples(name + QLatin1String("_count")))
        addValue(&groups[groupKey(s.labels)].count, s.value);
    for (const Sample &s : m.samples(name + QLatin1String("_sum")))
        addValue(&groups[groupKey(s.labels)].sum, s.value);
    return groups;
}

QHash<QString, Group> counterGroups(const Exposition &m, const MetricNames &names)
{
    QHash<QString, Group> groups;
    for (const Sample &s : m.samples(names.latency))
        addValue(&groups[groupKey(s.labels)].sum, s.value);
    for (const Sample &s : m.samples(names.countMetric))
        addValue(&groups[groupKey(s.labels)].count, s.value);
    return groups;
}

bool decreased(const std::optional<double> &before, const std::optional<double> &after)
{
    return before && after && *after < *before;
}

bool restarted(const Group &before, const Group &after)
{
    if (decreased(before.count, after.count) || decreased(before.sum, after.sum))
        return true;
    for (auto it = after.buckets.constBegin(); it != after.buckets.constEnd(); ++it) {
        const auto b = before.buckets.constFind(it.key());
        if (b != before.buckets.constEnd() && it.value() < b.value())
            return true;
    }
    return false;
}

// Sums the per-label-set deltas; sets a reset flag when a set restarted.
Group windowDelta(const QHash<QString, Group> &before,
                  const QHash<QString, Group> &after,
                  bool *reset)
{
    Group total;
    for (auto it = after.constBegin(); it != after.constEnd(); ++it) {
        const Group &a = it.value();
        const auto b = before.constFind(it.key());
        const bool known = b != before.constEnd();
        if (known && restarted(b.value(), a))
            *reset = true;
        // nullptr: this set is counted from zero (new, or restarted since `before`)
        const Group *old = known && !restarted(b.value(), a) ? &b.value() : nullptr;
        for (auto bk = a.buckets.constBegin(); bk != a.buckets.constEnd(); ++bk)
            total.buckets[bk.key()] += bk.value() - (old ? old->buckets.value(bk.key(), 0) : 0);
        if (a.count)
            addValue(&total.count, *a.count - (old ? old->count.value_or(0) : 0));
        if (a.sum)
            addValue(&total.sum, *a.sum - (old ? old->sum.value_or(0) : 0));
    }
    return total;
}

ServiceWindow failed(ServiceWindow::Status status, const QString &message)
{
    ServiceWindow w;
    w.status = status;
    w.message = message;
    return w;
}

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
        QByteArray line = text.mid(start, end - start);
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

double histogramQuantile(double q, QList<Bucket> buckets)
{
    if (std::isnan(q))
        return qQNaN();
    if (q < 0)
        return -inf;
    if (q > 1)
        return inf;
    std::sort(buckets.begin(), buckets.end(), [](const Bucket &a, const Bucket &b) {
        return a.upperBound < b.upperBound;
    });
    if (buckets.isEmpty() || buckets.last().upperBound != inf)
        return qQNaN();
    // Equal bounds (e.g. from label sets that differed only in labels summed away) add up.
    QList<Bucket> merged;
    for (const Bucket &b : std::as_const(buckets)) {
        if (!merged.isEmpty() && merged.last().upperBound == b.upperBound)
            merged.last().count += b.count;
        else
            merged.append(b);
    }
    // Counts scraped non-atomically can dip; Prometheus raises each to the running maximum.
    double running = -inf;
    for (Bucket &b : merged) {
        if (b.count > running)
            running = b.count;
        else if (b.count < running)
            b.count = running;
    }
    if (merged.size() < 2)
        return qQNaN();
    const double observations = merged.last().count;
    if (observations == 0 || std::isnan(observations))
        return qQNaN();
    double rank = q * observations;
    qsizetype b = 0;
    while (b < merged.size() - 1 && !(merged.at(b).count >= rank))
        ++b;
    if (b == merged.size() - 1)
        return merged.at(b - 1).upperBound;
    if (b == 0 && merged.at(0).upperBound <= 0)
        return merged.at(0).upperBound;
    double start = 0;
    const double end = merged.at(b).upperBound;
    double count = merged.at(b).count;
    if (b > 0) {
        start = merged.at(b - 1).upperBound;
        count -= merged.at(b - 1).count;
        rank -= merged.at(b - 1).count;
    }
    return start + (end - start) * (rank / count);
}

QList<Bucket> bucketsOf(const Exposition &metrics, const QString &name)
{
    QMap<double, double> byBound;
    const QHash<QString, Group> groups = histogramGroups(metrics, name);
    for (const Group &g : groups) {
        for (auto it = g.buckets.constBegin(); it != g.buckets.constEnd(); ++it)
            byBound[it.key()] += it.value();
    }
    QList<Bucket> out;
    for (auto it = byBound.constBegin(); it != byBound.constEnd(); ++it)
        out.append(Bucket{it.key(), it.value()});
    return out;
}

bool MetricNames::isValid() const
{
    return !latency.isEmpty() && toMs > 0 && std::isfinite(toMs)
           && (kind == LatencyKind::Histogram || !countMetric.isEmpty());
}

MetricNames metricPreset(const QString &preset)
{
    MetricNames n;
    if (preset == QLatin1String("vllm")) {
        n.latency = QStringLiteral("vllm:e2e_request_latency_seconds");
        n.queue = QStringLiteral("vllm:num_requests_waiting");
        n.toMs = 1000;
    } else if (preset == QLatin1String("triton")) {
        n.latency = QStringLiteral("nv_inference_request_duration_us");
        n.queue = QStringLiteral("nv_inference_pending_request_count");
        n.kind = MetricNames::LatencyKind::CounterSum;
        n.countMetric = QStringLiteral("nv_inference_request_success");
        n.toMs = 0.001;
    } else if (preset == QLatin1String("tgi")) {
        n.latency = QStringLiteral("tgi_request_duration");
        n.queue = QStringLiteral("tgi_queue_size");
        n.toMs = 1000;
    }
    return n;
}

std::optional<double> latencyUnitToMs(const QString &unit)
{
    if (unit == QLatin1String("s"))
        return 1000.0;
    if (unit == QLatin1String("ms"))
        return 1.0;
    if (unit == QLatin1String("us"))
        return 0.001;
    return std::nullopt;
}

const char *toString(ServiceWindow::Status status)
{
    switch (status) {
    case ServiceWindow::Status::Ok:
        return "ok";
    case ServiceWindow::Status::ScrapeFailed:
        return "scrape failed";
    case ServiceWindow::Status::BadInterval:
        return "bad interval";
    case ServiceWindow::Status::MissingMetric:
        return "missing metric";
    case ServiceWindow::Status::InvalidNames:
        return "invalid metric names";
    }
    return "?";
}

double ServiceWindow::overSlo(double sloMs) const
{
    if (!ok() || latencyIsMean || std::isnan(sloMs))
        return qQNaN();
    if (requests <= 0)
        return 0;
    double below = 0;
    double lower = 0;
    for (qsizetype i = 0; i < bucketsMs.size(); ++i) {
        const Bucket &b = bucketsMs.at(i);
        if (b.upperBound == inf)
            break;
        const double prevCount = i == 0 ? 0 : bucketsMs.at(i - 1).count;
        if (i == 0 && b.upperBound <= 0)
            lower = b.upperBound; // no width to interpolate in: all of it is at its bound
        if (sloMs >= b.upperBound) {
            below = b.count;
        } else {
            if (sloMs > lower)
                below = prevCount
                        + (b.count - prevCount) * (sloMs - lower) / (b.upperBound - lower);
            break;
        }
        lower = b.upperBound;
    }
    return std::max(0.0, requests - std::min(below, requests));
}

ServiceWindow windowBetween(const Scrape &before, const Scrape &after, const MetricNames &names)
{
    using Status = ServiceWindow::Status;
    if (!names.isValid())
        return failed(
                Status::InvalidNames,
                QStringLiteral("metric names incomplete: latency '%1', count '%2', unit %3 ms")
                        .arg(names.latency, names.countMetric, QString::number(names.toMs)));
    if (!before.ok())
        return failed(Status::ScrapeFailed,
                      QStringLiteral("earlier scrape failed: %1").arg(before.error));
    if (!after.ok())
        return failed(Status::ScrapeFailed,
                      QStringLiteral("later scrape failed: %1").arg(after.error));
    if (after.readAtMs <= before.readAtMs)
        return failed(
                Status::BadInterval,
                QStringLiteral("later scrape read at %1 ms, not after the earlier one at %2 ms")
                        .arg(after.readAtMs)
                        .arg(before.readAtMs));

    ServiceWindow w;
    w.seconds = double(after.readAtMs - before.readAtMs) / 1000.0;
    if (!names.queue.isEmpty()) {
        const QList<Sample> queue = after.metrics.samples(names.queue);
        if (!queue.isEmpty()) {
            double total = 0;
            for (const Sample &s : queue)
                total += s.value;
            w.queue = total;
        }
    }

    if (names.kind == MetricNames::LatencyKind::CounterSum) {
        for (const QString &metric : {names.latency, names.countMetric}) {
            if (after.metrics.samples(metric).isEmpty())
                return failed(Status::MissingMetric,
                              QStringLiteral("counter %1 is not in the later scrape").arg(metric));
        }
        const Group d = windowDelta(counterGroups(before.metrics, names),
                                    counterGroups(after.metrics, names),
                                    &w.counterReset);
        w.requests = d.count.value_or(0);
        w.latencyIsMean = true;
        if (w.requests > 0)
            w.meanMs = d.sum.value_or(0) * names.toMs / w.requests;
        w.p50Ms = w.meanMs;
        w.p99Ms = w.meanMs;
        w.ratePerSecond = w.requests / w.seconds;
        return w;
    }

    const QString bucketName = names.latency + QLatin1String("_bucket");
    if (after.metrics.samples(bucketName).isEmpty())
        return failed(
                Status::MissingMetric,
                QStringLiteral("histogram %1: no %2 samples in the later scrape (a server that "
                               "has served no request yet may not expose it)")
                        .arg(names.latency, bucketName));
    const Group d = windowDelta(histogramGroups(before.metrics, names.latency),
                                histogramGroups(after.metrics, names.latency),
                                &w.counterReset);
    double running = 0;
    for (auto it = d.buckets.constBegin(); it != d.buckets.constEnd(); ++it) {
        running = std::max(running, it.value());
        w.bucketsMs.append(Bucket{it.key() * names.toMs, running});
    }
    if (d.count)
        w.requests = *d.count;
    else if (d.buckets.contains(inf))
        w.requests = d.buckets.value(inf);
    else
        return failed(Status::MissingMetric,
                      QStringLiteral("histogram %1 has neither %1_count nor a +Inf bucket")
                              .arg(names.latency));
    w.ratePerSecond = w.requests / w.seconds;
    w.p50Ms = histogramQuantile(0.5, w.bucketsMs);
    w.p99Ms = histogramQuantile(0.99, w.bucketsMs);
    if (w.requests > 0 && d.sum)
        w.meanMs = *d.sum * names.toMs / w.requests;
    return w;
}

} // namespace Zhaoxi::Runtime
